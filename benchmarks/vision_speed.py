"""Time each camera reader on 1280×720 frames, as the companion calls it.

    python benchmarks/vision_speed.py [--frames 40] [--reads 3]

The issue's target is 25 ms a frame here for each reader (a Raspberry Pi 4 is about five times
slower, docs/PERFORMANCE.md). Readers, each on frames it was never tuned on:

- cubes: ``read_cubes_net(frame, candidates=True)`` (the throw desk's reader) on the wild
  generated tables of seeds 900,000 and up;
- tessons: ``read_tessons_net(frame, seats)`` with the scene's seat map on the wild generated
  tesson tables of seeds 900,000 and up;
- pip dice: ``read_pips`` on the real dice photos, each made a 1280×720 frame as
  ``benchmarks/vision_pips.py`` makes them.

Each frame is read once untimed (the network's first call), then ``--reads`` times, one after
the other in this process; the table gives the median, the 90th percentile and the fastest of
all the timed reads, with OpenCV's own number of threads (one per core: what the companion
uses) and with one thread. The load average before and after is printed: nothing else should
run meanwhile.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision_pips import to_1280x720  # noqa: E402

from vision.cube_net import read_cubes_net  # noqa: E402
from vision.pips import read_pips  # noqa: E402
from vision.synthetic import PHOTOS, tesson_scene, wild_cube_scene, wild_tesson_knobs  # noqa: E402
from vision.tesson_net import read_tessons_net  # noqa: E402

TARGET_MS = 25.0
FIRST_SEED = 900_000

Read = Callable[[], object]


def cube_reads(frames: int) -> list[Read]:
    scenes = [wild_cube_scene(FIRST_SEED + i) for i in range(frames)]
    return [lambda s=s: read_cubes_net(s.image, candidates=True) for s in scenes]


def tesson_reads(frames: int) -> list[Read]:
    reads: list[Read] = []
    for i in range(frames):
        seed = FIRST_SEED + i
        scene = tesson_scene(seed, 5 + i % 8, **wild_tesson_knobs(seed))
        reads.append(lambda s=scene: read_tessons_net(s.image, s.seats))
    return reads


def pip_reads(frames: int, photos: Path = PHOTOS) -> list[Read]:
    names = sorted((photos / "images").glob("*.jpg"))
    if not names:
        raise SystemExit(
            f"no dice photos in {photos / 'images'}: copy the project's shared data next to the "
            "clone (../shared/data/dice-photos) or set DICE_PHOTOS"
        )
    step = max(1, len(names) // frames)
    chosen = [cv2.imread(str(p)) for p in names[::step][:frames]]
    images = [to_1280x720(image, [])[0] for image in chosen]
    return [lambda f=f: read_pips(f) for f in images]


def timings(reads: list[Read], repeat: int) -> list[float]:
    out = []
    for read in reads:
        read()
        for _ in range(repeat):
            start = time.perf_counter()
            read()
            out.append((time.perf_counter() - start) * 1000)
    return out


def row(name: str, threads: int, ms: list[float]) -> str:
    p90 = float(np.percentile(ms, 90))
    median = statistics.median(ms)
    verdict = "yes" if median <= TARGET_MS else "no"
    return f"| {name} | {threads} | {median:.1f} ms | {p90:.1f} ms | {min(ms):.1f} ms | {verdict} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40, help="frames per reader")
    parser.add_argument("--reads", type=int, default=3, help="timed reads of each frame")
    args = parser.parse_args(argv)
    readers = {
        "cubes (`read_cubes_net`, with candidates)": cube_reads(args.frames),
        "tessons (`read_tessons_net`, seat map)": tesson_reads(args.frames),
        "pip dice (`read_pips`, real photos)": pip_reads(args.frames),
    }
    cores = cv2.getNumThreads()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"\n{args.frames} frames of 1280×720 per reader, each read {args.reads} times\n")
    print("| reader | OpenCV threads | median | 90th percentile | fastest | ≤ 25 ms |")
    print("|---|---|---|---|---|---|")
    for threads in (cores, 1):
        cv2.setNumThreads(threads)
        for name, reads in readers.items():
            print(row(name, threads, timings(reads, args.reads)), flush=True)
    cv2.setNumThreads(cores)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
