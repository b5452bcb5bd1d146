"""Colours of pip dice (vision/die_colors.py) on the hand-labelled photos, and generated pip dice
(vision/synthetic.py ``pip_scene``) read by the pip reader.

    python benchmarks/vision_pip_colors.py [--labels CSV] [--scenes N] [--no-speed]

1. **Colours.** Every die of ``tests/data/pip_colors.csv`` (hand-labelled colours of dice in
   the real photos) is found with ``read_pips`` (a reading matches a labelled die when its
   centre lies inside the die's box, nearest first) and named by ``die_colors``: accuracy,
   overall, on the photos labelled while the colour rules were set ("tuning") and on the
   photos labelled only after they were fixed ("held out", ``HELD_OUT``), the confusion table
   and the dice read wrong; mean confidence of right and wrong names.
2. **Speed.** Median time of ``die_colors`` for all the dice of a frame, over the 200 photos
   (one frame at a time, after a warm-up call), and for the busiest photo (median of 20
   calls); median time to render a
   generated 1280×720 scene of 6 dice.
3. **Generated pip dice.** ``--scenes`` scenes (seeds 1000..; 1 to 12 dice) for each setting:
   dice found by ``read_pips`` (nearest reading within half a side), false detections, right
   values, right colours (``die_colors``).
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.die_colors import DIE_COLORS, die_colors  # noqa: E402
from vision.pips import read_pips  # noqa: E402
from vision.readings import DieReading  # noqa: E402
from vision.synthetic import PHOTOS, pip_scene  # noqa: E402

LABELS = ROOT / "tests" / "data" / "pip_colors.csv"
HELD_OUT = frozenset(
    {
        "IMG_20191208_111352.jpg",
        "IMG_20191208_111820.jpg",
        "IMG_20191208_112239.jpg",
        "IMG_20191208_112536.jpg",
        "IMG_20191209_095405.jpg",
        "IMG_20191209_095730.jpg",
        "IMG_20191209_100043.jpg",
        "IMG_20191209_100237.jpg",
        "IMG_20191209_100525.jpg",
        "IMG_20191209_100722.jpg",
    }
)
"""Photos whose dice were labelled after the colour rules were fixed (78 dice)."""

SETTINGS: dict[str, dict[str, object]] = {
    "default (tray, soft shadows)": {},
    "touching dice": {"touching": True},
    "uneven light": {"light": "uneven"},
    "tilted camera 10°": {"tilt": 10.0},
    "real tray photo": {"table": "photo"},
    "green felt": {"table": "felt"},
    "wood": {"table": "wood"},
    "dark cloth": {"table": "dark"},
}

Box = tuple[float, float, float, float]


def load_colors(path: Path) -> dict[str, list[tuple[Box, str]]]:
    """Hand labels: photo name → [(box, colour)]."""
    out: dict[str, list[tuple[Box, str]]] = defaultdict(list)
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            box = (float(row["xmin"]), float(row["ymin"]), float(row["xmax"]), float(row["ymax"]))
            out[row["filename"]].append((box, row["color"]))
    return dict(out)


def nearest_in_box(readings: list[DieReading], box: Box) -> int | None:
    """Index of the reading whose centre lies in the box, nearest its centre first."""
    x0, y0, x1, y1 = box
    inside = [i for i, r in enumerate(readings) if x0 <= r.x <= x1 and y0 <= r.y <= y1]
    if not inside:
        return None
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return min(inside, key=lambda i: math.hypot(readings[i].x - cx, readings[i].y - cy))


def photo_colours(labels: dict[str, list[tuple[Box, str]]]) -> list[tuple[str, str, str, float]]:
    """(photo, true colour, read colour or "missed", confidence) per labelled die."""
    out = []
    for name, dice in sorted(labels.items()):
        image = cv2.imread(str(PHOTOS / "images" / name))
        readings = read_pips(image)
        names = die_colors(image, readings)
        for box, truth in dice:
            i = nearest_in_box(readings, box)
            if i is None:
                out.append((name, truth, "missed", 0.0))
            else:
                out.append((name, truth, names[i][0], names[i][1]))
    return out


def report_colours(rows: list[tuple[str, str, str, float]]) -> None:
    found = [r for r in rows if r[2] != "missed"]
    print(f"labelled dice: {len(rows)}, found by read_pips: {len(found)}")
    print("\n| set | photos | dice | right | accuracy |")
    print("|---|---|---|---|---|")
    for title, keep in (
        ("all", lambda r: True),
        ("tuning", lambda r: r[0] not in HELD_OUT),
        ("held out", lambda r: r[0] in HELD_OUT),
    ):
        part = [r for r in found if keep(r)]
        right = sum(1 for r in part if r[1] == r[2])
        photos = len({r[0] for r in part})
        print(f"| {title} | {photos} | {len(part)} | {right} | {right / max(len(part), 1):.3f} |")
    confusion = Counter((r[1], r[2]) for r in found)
    print("\nconfusion (rows: hand label, columns: read)\n")
    print("| label | " + " | ".join(DIE_COLORS) + " | recall |")
    print("|---|" + "---|" * (len(DIE_COLORS) + 1))
    for truth in DIE_COLORS:
        cells = [confusion[(truth, read)] for read in DIE_COLORS]
        total = sum(cells)
        recall = confusion[(truth, truth)] / max(total, 1)
        print(f"| {truth} | " + " | ".join(map(str, cells)) + f" | {recall:.3f} |")
    wrong = [r for r in found if r[1] != r[2]]
    print("\nread wrong:")
    for name, truth, read, conf in wrong:
        part = "held out" if name in HELD_OUT else "tuning"
        print(f"  {name} ({part}): {truth} read {read}, confidence {conf:.2f}")
    right_conf = [r[3] for r in found if r[1] == r[2]]
    wrong_conf = [r[3] for r in wrong]
    print(
        f"mean confidence: right {statistics.fmean(right_conf):.2f}, "
        f"wrong {statistics.fmean(wrong_conf) if wrong_conf else float('nan'):.2f}"
    )


def speed() -> tuple[float, float, int]:
    """Median ms per photo, and median of 20 timings of the photo with the most dice."""
    times = []
    busiest: tuple[int, object, list[DieReading]] = (-1, None, [])
    for path in sorted((PHOTOS / "images").glob("*.jpg")):
        image = cv2.imread(str(path))
        readings = read_pips(image)
        die_colors(image, readings)  # warm
        t0 = time.perf_counter()
        die_colors(image, readings)
        times.append((time.perf_counter() - t0) * 1000)
        if len(readings) > busiest[0]:
            busiest = (len(readings), image, readings)
    repeats = []
    for _ in range(20):
        t0 = time.perf_counter()
        die_colors(busiest[1], busiest[2])  # type: ignore[arg-type]
        repeats.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), statistics.median(repeats), busiest[0]


def scene_speed(count: int = 10) -> float:
    """Median ms to render a 1280×720 scene of 6 pip dice."""
    times = []
    for k in range(count):
        t0 = time.perf_counter()
        pip_scene(3000 + k, 6)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def generated(scenes: int, **knobs: object) -> dict[str, float]:
    dice = found = right = colours = false = 0
    for k in range(scenes):
        scene = pip_scene(1000 + k, 1 + k % 12, **knobs)  # type: ignore[arg-type]
        readings = read_pips(scene.image)
        names = die_colors(scene.image, readings)
        used: set[int] = set()
        for truth in scene.dice:
            dice += 1
            near = [
                (math.dist((r.x, r.y), (truth.x, truth.y)), i)
                for i, r in enumerate(readings)
                if i not in used
            ]
            near = [n for n in near if n[0] <= truth.size / 2]
            if not near:
                continue
            _, i = min(near)
            used.add(i)
            found += 1
            right += readings[i].value == truth.value
            colours += names[i][0] == truth.color
        false += len(readings) - len(used)
    return {
        "dice": dice,
        "found": found / dice,
        "false": false,
        "values": right / max(found, 1),
        "colours": colours / max(found, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--scenes", type=int, default=50, help="generated scenes per setting")
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args(argv)
    report_colours(photo_colours(load_colors(args.labels)))
    if not args.no_speed:
        median, busy, dice = speed()
        print(
            f"\ndie_colors per frame (all its dice): median {median:.2f} ms; "
            f"{busy:.2f} ms for the busiest photo ({dice} dice)"
        )
        print(f"pip_scene, 1280×720 with 6 dice: median {scene_speed():.0f} ms")
    if args.scenes:
        print(f"\ngenerated pip dice, {args.scenes} scenes per setting (1 to 12 dice)\n")
        print("| setting | dice | found | false | values right | colours right |")
        print("|---|---|---|---|---|---|")
        for title, knobs in SETTINGS.items():
            f = generated(args.scenes, **knobs)
            print(
                f"| {title} | {f['dice']:.0f} | {f['found']:.3f} | {f['false']:.0f} | "
                f"{f['values']:.3f} | {f['colours']:.3f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
