"""Time Oraklos' ``predictions()`` on realistic throws and print a Markdown table.

    python benchmarks/oraklos_predictions.py [--repeat 21]

A throw: dice of side 16 mm with random turns, scattered on a 600 x 400 mm table so that no
two footprints overlap (their enclosing circles are apart); a die shows its hole one time in
three (two of its six faces have it). Seeded, so every run times the same throws: 16 dice
(a two-player round, Oraklos Junior, Antipodes), 20 dice (a four-player round: 4 x 4 + 4)
and 54 dice (the whole box); 16 and 54 again with holes allowed (Antipodes). Prints, per
size, the median and 95th percentile of one call over 10 throws times ``--repeat`` calls,
and how many true predictions a throw holds on average.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.oraklos.dice import Color, Die  # noqa: E402
from companion.games.oraklos.predictions import predictions  # noqa: E402

TABLE = (600.0, 400.0)
SIZE = 16.0
THROWS = 10


def throw(count: int, rng: random.Random) -> list[Die]:
    """``count`` dice, colours in turn, each placed at random where it overlaps no other."""
    gap = SIZE * math.sqrt(2)
    colors = list(Color)
    dice: list[Die] = []
    for _ in range(1000 * count):
        if len(dice) == count:
            return dice
        x = rng.uniform(SIZE, TABLE[0] - SIZE)
        y = rng.uniform(SIZE, TABLE[1] - SIZE)
        if all(math.hypot(x - d.x, y - d.y) >= gap for d in dice):
            hole = rng.random() < 1 / 3
            dice.append(Die(x, y, SIZE, colors[len(dice) % 4], hole, rng.uniform(0, 90)))
    raise ValueError(f"{count} dice do not fit on a {TABLE[0]:g} x {TABLE[1]:g} table")


def measure(count: int, repeat: int, holes_allowed: bool) -> tuple[float, float, float]:
    """Median and 95th percentile (ms) of one call, and the mean number of predictions."""
    rng = random.Random(1000 + count)
    samples: list[float] = []
    found = 0
    for _ in range(THROWS):
        dice = throw(count, rng)
        found += len(predictions(dice, holes_allowed))
        for _ in range(repeat):
            start = time.perf_counter()
            predictions(dice, holes_allowed)
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))], found / THROWS


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description="Time Oraklos predictions() on random throws.")
    parser.add_argument("--repeat", type=int, default=21, help="calls per throw (default 21)")
    args = parser.parse_args()
    print(f"{machine()}; {THROWS} throws per size, {args.repeat} calls each")
    print()
    print("| dice | holes | median | p95 | true predictions per throw |")
    print("|---|---|---|---|---|")
    for count, holes_allowed in ((16, False), (16, True), (20, False), (54, False), (54, True)):
        median, p95, found = measure(count, args.repeat, holes_allowed)
        holes = "allowed" if holes_allowed else "profane"
        print(f"| {count} | {holes} | {median:.2f} ms | {p95:.2f} ms | {found:.0f} |")


if __name__ == "__main__":
    main()
