"""What the dice's side holes cost a cube reader: the same held-out wild tables with the
generator's ``side_holes`` off, then on, read alone and as the throw desk reads them.

    python benchmarks/cube_side_holes.py [--scenes 200] [--start 1000000] [--model M]

Tables: ``cube_scene(seed, **wild_cube_knobs(seed))`` for ``--scenes`` held-out seeds from
``--start`` (1,000,000 on: never trained or tuned on), with ``side_holes`` set to False, then to
True (every other knob as the seed draws it). "As the desk reads":
``CubeNetReader.read(frame, candidates=True)`` then ``doubt_counts`` with what the cup held (the
true dice's colours). Figures of ``benchmarks/vision_scenes.py``'s ``evaluate_cubes`` (a
reading matches the nearest true cube within half its size). One OpenCV thread.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision_scenes import CUBE_HEADER, evaluate_cubes  # noqa: E402

from vision.cube_net import CubeNetReader  # noqa: E402
from vision.readings import DieReading, doubt_counts  # noqa: E402
from vision.synthetic import Scene, cube_scene, wild_cube_knobs  # noqa: E402

HELD_OUT = 1_000_000  # tools/train_cubes.py's held-out seeds: never trained or tuned on


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=200, help="held-out wild tables")
    parser.add_argument("--start", type=int, default=HELD_OUT, help="the first seed")
    parser.add_argument("--model", type=Path, help="the detector (default: the shipped one)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    reader = CubeNetReader(args.model)
    print(CUBE_HEADER.replace("cubes: family", "tables, reader"))
    for side_holes in (False, True):
        scenes: list[Scene] = []
        alone: list[list[DieReading]] = []
        desk: list[list[DieReading]] = []
        for seed in range(args.start, args.start + args.scenes):
            scene = cube_scene(seed, **{**wild_cube_knobs(seed), "side_holes": side_holes})
            scenes.append(scene)
            alone.append(reader.read(scene.image))
            cup = Counter(d.color for d in scene.dice if d.color)
            desk.append(doubt_counts(reader.read(scene.image, candidates=True), expected=cup))
        holes = "on" if side_holes else "off"
        for how, found in (("read alone", alone), ("as the desk reads", desk)):
            tally = evaluate_cubes(scenes, found)
            print(tally.cube_row(f"side holes {holes}, {how} ({tally.truth} cubes)"), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
