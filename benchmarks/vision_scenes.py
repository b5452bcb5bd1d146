"""Measure the cube and tesson readers on seeded synthetic scenes, per hard-case family.

    python benchmarks/vision_scenes.py [--scenes 40] [--family wood] [--timing 30]
    python benchmarks/vision_scenes.py --as-companion --family wild --skip-tessons
    python benchmarks/vision_scenes.py --as-companion --learned --skip-tessons --scenes 10

Each family renders ``--scenes`` seeded 1280x720 frames with ``vision.synthetic`` and compares
what ``read_cubes`` / ``read_tessons`` report with the exact ground truth: a reading matches
the nearest true die (tesson) whose centre is within half a die size (20 px for a plain
tesson, 30 px for a printed card).
Prints Markdown tables: recall, precision, colour / hole / side / seat accuracy over the
matched ones, centre error (median and 95th percentile, pixels and share of the die size),
how many readings were flagged for a person to confirm, and how many were wrong *without*
being flagged (the silent errors), then the median time of one read per frame.
``--as-companion`` reads the cubes white-balanced by the markers' paper when the scene has
markers, with the palette of the table's colour check (``color_check_scene``); ``--learned``
reads cubes and tessons with the learned readers (``vision.cube_net``, ``vision.tesson_net``,
the companion's defaults; with ``--as-companion`` the cubes on the balanced frame, as the
companion reads). The learned cube reader's training scenes are seeds 0-2,399 of
``wild_cube_knobs``, these families' are seeds 1,000+ of other knobs; the learned tesson
reader's are seeds 0-1,999 of ``wild_tesson_knobs``, these families' seeds 2,000+.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.color_check import ColorCheckError, read_color_check  # noqa: E402
from vision.cube_net import read_cubes_net  # noqa: E402
from vision.cubes import read_cubes  # noqa: E402
from vision.readings import DieReading, TessonReading  # noqa: E402
from vision.synthetic import (  # noqa: E402
    Scene,
    color_check_scene,
    cube_scene,
    tesson_scene,
    wild_cube_knobs,
    wild_tesson_knobs,
)
from vision.tesson_net import read_tessons_net  # noqa: E402
from vision.tessons import read_tessons  # noqa: E402
from vision.white_balance import white_from_markers  # noqa: E402

Knobs = dict[str, Any]

CUBE_FAMILIES: dict[str, Knobs | Callable[[int], Knobs]] = {
    "even light, felt": {"noise": 2.0},
    "uneven light + shadows": {"light": "uneven", "shadows": True, "noise": 2.0},
    "spot light + shadows": {"light": "spot", "shadows": True, "noise": 2.0},
    "tilt 10°": {"tilt": 10.0, "shadows": True, "noise": 2.0},
    "blur 1.5 + noise 6": {"blur": 1.5, "noise": 6.0},
    "touching": {"touching": True, "noise": 2.0},
    "rotated ~45°, touching": {"angles": (30.0, 60.0), "touching": True, "noise": 2.0},
    "black + holes, dark table": {
        "table": "dark",
        "holes": 0.5,
        "colors": ["black"] * 8 + ["red", "yellow", "blue"] * 2,
        "shadows": True,
        "noise": 3.0,
    },
    "wood, uneven + shadows": {"table": "wood", "light": "uneven", "shadows": True, "noise": 2.0},
    "photo floor (real)": {"table": "photo", "shadows": True},
    "all at once": {
        "table": "wood",
        "tilt": 10.0,
        "light": "spot",
        "shadows": True,
        "blur": 1.0,
        "noise": 4.0,
        "touching": True,
    },
    # The wider world (vision/scene_effects.py): what the reader meets on real tables.
    "warm bulb, faded plastic": {
        "kelvin": 2700,
        "plastic": "faded",
        "light": "uneven",
        "shadows": True,
        "noise": 2.0,
    },
    "dim room": {"exposure": 0.4, "light": "uneven", "noise": 2.0},
    "daylight + white-balance error": {"kelvin": 6500, "white_balance": 0.15, "noise": 2.0},
    "camera at 0.8 m": {"camera_height": 800, "noise": 2.0},
    "lens distortion + motion blur + JPEG": {
        "camera_height": 500,
        "distortion": -0.12,
        "motion_blur": 4.0,
        "jpeg": 60,
        "noise": 2.0,
    },
    "hand or cup at the edge": lambda seed: {
        "edge_object": ("hand", "cup")[seed % 2],
        "shadows": True,
        "noise": 2.0,
    },
    "lacquer": {"table": "lacquer", "shadows": True, "noise": 2.0},
    "patterned cloth": {"table": "cloth", "noise": 2.0},
    "game mat": {"table": "mat", "noise": 2.0},
    "glossy plastic": {"finish": "glossy", "light": "uneven", "shadows": True, "noise": 2.0},
    "leaning dice": {"leaning": 0.25, "shadows": True, "noise": 2.0},
    "wild: everything random": wild_cube_knobs,
}
"""Per family, the knobs of ``cube_scene``, or a function of the seed that gives them."""


def _knobs(seed: int, knobs: Knobs | Callable[[int], Knobs]) -> Knobs:
    return knobs(seed) if callable(knobs) else knobs


def _seats(i: int, seats: int, knobs: Knobs | Callable[[int], Knobs]) -> int:
    """A family's number of seats: 5 to 12 in turn for the random tables."""
    return 5 + i % 8 if callable(knobs) else seats


def _cube_scene(seed: int, knobs: Knobs | Callable[[int], Knobs]) -> Scene:
    return cube_scene(seed, **_knobs(seed, knobs))


def read_as_the_companion(
    seed: int, scene: Scene, knobs: Knobs, learned: bool = False
) -> list[DieReading]:
    """What the companion reads of a throw: the frame white-balanced by the markers' paper
    (when the scene has markers), read by the learned reader, or by the hand-tuned one with the
    palette of the table's colour check (``color_check_scene`` of the same seed and knobs; the
    usual palette if it is refused)."""
    white = white_from_markers(scene.image, scene.markers) if scene.markers else None
    frame = scene.image if white is None else white.apply(scene.image)
    if learned:
        return read_cubes_net(frame)
    try:
        palette = read_color_check(color_check_scene(seed, **knobs).image).palette()
    except ColorCheckError:
        return read_cubes(frame)
    return read_cubes(frame, palette=palette)


TESSON_FAMILIES: dict[str, Knobs | Callable[[int], Knobs]] = {
    "felt, even": {"noise": 2.0},
    "uneven + shadows": {"light": "uneven", "shadows": True, "noise": 2.0},
    "tilt 10°": {"tilt": 10.0, "noise": 2.0},
    "blur + noise": {"blur": 1.5, "noise": 6.0},
    "dark table": {"table": "dark", "shadows": True, "noise": 3.0},
    "wood + cubes about": {"table": "wood", "shadows": True, "dice": 4, "noise": 2.0},
    "photo floor (real)": {"table": "photo", "shadows": True},
    "12 seats, strays": {"strays": 2, "noise": 2.0},
    # The box's printed cards (vision/synthetic_cards.py): one stock and size per scene.
    "printed cards": {"printed": 1.0, "noise": 2.0},
    "printed, sleeves + glare": {"printed": 1.0, "sleeves": 1.0, "light": "uneven", "noise": 2.0},
    "mixed plain and printed": {
        "printed": 0.5,
        "sleeves": 0.3,
        "table": "wood",
        "shadows": True,
        "noise": 2.0,
    },
    "printed, dim warm room": {
        "printed": 1.0,
        "sleeves": 0.3,
        "exposure": 0.45,
        "kelvin": 3000,
        "light": "uneven",
        "noise": 3.0,
    },
    "printed, 12 seats + strays + dice": {
        "printed": 1.0,
        "sleeves": 0.3,
        "strays": 2,
        "dice": 4,
        "noise": 2.0,
    },
    # Tables and lights the tesson reader was not tuned on (docs/vision/scenes.md).
    "printed, dark cloth (check)": {
        "printed": 1.0,
        "sleeves": 0.5,
        "table": "dark",
        "shadows": True,
        "noise": 3.0,
    },
    "printed, photo floor, spot (check)": {
        "printed": 1.0,
        "sleeves": 0.5,
        "table": "photo",
        "light": "spot",
        "shadows": True,
    },
    "printed, blue felt, 2700 K (check)": {
        "printed": 0.7,
        "sleeves": 0.3,
        "table": "blue felt",
        "kelvin": 2700,
        "noise": 2.0,
    },
    "printed, patterned cloth (check)": {
        "printed": 0.7,
        "sleeves": 0.3,
        "table": "cloth",
        "noise": 2.0,
    },
    # A lamp mirrored in a wooden table: two hot spots, most in a seat's zone (the false white
    # shards of the Blender renders, docs/vision/tesson_net.md).
    "hot spots on wood, plain and printed": {
        "table": "wood",
        "printed": 0.5,
        "hot_spots": 2,
        "shadows": True,
        "noise": 2.0,
    },
    # Plain shards and cards among printed flowers of their size (the misses of the Blender
    # renders' floral prints, docs/vision/tesson_net.md).
    "flowered cloth, plain and printed": {
        "table": "flowered cloth",
        "printed": 0.5,
        "shadows": True,
        "noise": 2.0,
    },
    # A tablecloth half white, striped or a gingham: white shards on the white (the misses of
    # the Blender renders' stripes and ginghams, docs/vision/generalization.md).
    "striped cloth, plain and printed": {
        "table": "striped cloth",
        "printed": 0.5,
        "shadows": True,
        "noise": 2.0,
    },
    # Sleeves mirroring a broad light: a pale veil over the whole card, black shards a pale grey
    # (the black cards read white of the Blender renders, docs/vision/tesson_net.md).
    "printed, sleeves mirroring a window": {
        "printed": 1.0,
        "sleeves": 1.0,
        "sheen": 1.0,
        "noise": 2.0,
    },
    # A camera metering a black lacquer: whites clip, black shards a mid grey lighter than the
    # table (the black shards read white of the Blender renders, docs/vision/tesson_net.md).
    "overexposed lacquer, plain and printed": {
        "table": "lacquer",
        "exposure": 2.6,
        "printed": 0.3,
        "shadows": True,
        "noise": 2.0,
    },
    # A black lacquer mirroring a dark room, darker than the shards' matte black, overexposed:
    # black shards about twice as bright as the table (the Blender renders' 5,000,014).
    "dark-room lacquer overexposed, plain and printed": {
        "table": "lacquer",
        "table_shade": 0.5,
        "exposure": 3.4,
        "printed": 0.3,
        "shadows": True,
        "noise": 2.0,
    },
    # A printed game mat: panels, a track, words and bare shapes a shard's white or black (the
    # Blender renders' mats, where the learned reader reads the most false tessons).
    "game mat, plain and printed": {
        "table": "mat",
        "printed": 0.5,
        "shadows": True,
        "noise": 2.0,
    },
    # A player's hand and forearm reaching in from an edge, often over a tesson (the Blender
    # renders' hands, where a knuckle or a nail passes for a shard).
    "a hand reaching in, plain and printed": {
        "hand": True,
        "printed": 0.5,
        "shadows": True,
        "noise": 2.0,
    },
    # Every knob at random, 5-12 seats (never tuned on).
    "wild tessons: everything random": wild_tesson_knobs,
}
CARD_MATCH = 30.0
"""A reading this close to a printed card's centre (pixels) is of that card: a quarter of the
smallest card's short side (a plain tesson's is 20 px)."""


CUBE_HEADER = (
    "| cubes: family | recall | precision | colour | hole | angle err (median) "
    "| centre err median / p95 (share of size) | flagged | silent errors |\n"
    "|---|---|---|---|---|---|---|---|---|"
)
"""The cube table's head, whose rows ``Tally.cube_row`` writes."""


@dataclass
class Tally:
    truth: int = 0
    found: int = 0
    matched: int = 0
    right_kind: int = 0
    right_hole: int = 0
    right_seat: int = 0
    flagged: int = 0
    silent: int = 0
    errors: list[float] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)
    angle_errors: list[float] = field(default_factory=list)

    def cube_row(self, name: str) -> str:
        """A row of ``CUBE_HEADER``'s table: ``row`` with the hole and the median angle error."""
        hole = 100 * self.right_hole / max(1, self.matched)
        angle = statistics.median(self.angle_errors or [0.0])
        return self.row(name, f"{hole:.1f}% | {angle:.1f}°")

    def row(self, name: str, extra: str) -> str:
        m = max(1, self.matched)
        errors = sorted(self.errors) or [0.0]
        shares = sorted(self.shares) or [0.0]
        p95 = errors[min(len(errors) - 1, int(0.95 * len(errors)))]
        return (
            f"| {name} | {100 * self.matched / max(1, self.truth):.1f}% "
            f"| {100 * self.matched / max(1, self.found):.1f}% "
            f"| {100 * self.right_kind / m:.1f}% | {extra} "
            f"| {statistics.median(errors):.2f} / {p95:.2f} px "
            f"({100 * statistics.median(shares):.1f}%) "
            f"| {100 * self.flagged / max(1, self.found):.1f}% | {self.silent} |"
        )


def _match(truth: list[Any], read: list[Any], radius: Callable[[Any], float]) -> list[tuple]:
    pairs = []
    used: set[int] = set()
    for t in truth:
        best, best_d = None, math.inf
        for j, r in enumerate(read):
            if j in used:
                continue
            d = math.hypot(r.x - t.x, r.y - t.y)
            if d < best_d:
                best, best_d = j, d
        if best is not None and best_d <= radius(t):
            used.add(best)
            pairs.append((t, read[best], best_d))
    return pairs


def _angle_error(a: float, b: float) -> float:
    d = (a - b) % 90.0
    return min(d, 90.0 - d)


def evaluate_cubes(scenes: list[Scene], read: list[list[DieReading]]) -> Tally:
    tally = Tally()
    for scene, found in zip(scenes, read, strict=True):
        tally.truth += len(scene.dice)
        tally.found += len(found)
        tally.flagged += sum(r.flagged for r in found)
        pairs = _match(list(scene.dice), found, lambda t: t.size / 2)
        matched = {id(r) for _, r, _ in pairs}
        tally.silent += sum(1 for r in found if id(r) not in matched and not r.flagged)
        for t, r, d in pairs:
            tally.matched += 1
            tally.right_kind += r.color == t.color
            tally.right_hole += r.hole == t.hole
            if (r.color != t.color or r.hole != t.hole) and not r.flagged:
                tally.silent += 1
            tally.errors.append(d)
            tally.shares.append(d / t.size)
            tally.angle_errors.append(_angle_error(r.angle, t.angle))
    return tally


def _reach(cards: set[int], t: TessonReading) -> float:
    return CARD_MATCH if id(t) in cards else 20.0


def evaluate_tessons(scenes: list[Scene], read: list[list[TessonReading]]) -> Tally:
    tally = Tally()
    for scene, found in zip(scenes, read, strict=True):
        tally.truth += len(scene.tessons)
        tally.found += len(found)
        tally.flagged += sum(r.flagged for r in found)
        printed = getattr(scene, "printed", ())
        cards = {id(t) for t, p in zip(scene.tessons, printed, strict=False) if p}
        pairs = _match(list(scene.tessons), found, functools.partial(_reach, cards))
        matched = {id(r) for _, r, _ in pairs}
        tally.silent += sum(1 for r in found if id(r) not in matched and not r.flagged)
        for t, r, d in pairs:
            tally.matched += 1
            tally.right_kind += r.side == t.side
            tally.right_seat += r.seat == t.seat
            if (r.side != t.side or r.seat != t.seat) and not r.flagged:
                tally.silent += 1
            tally.errors.append(d)
            tally.shares.append(d / 30.0)
    return tally


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def write_images(folder: Path) -> None:
    """docs/images/cubes-annotated.png and tessons-annotated.png: hard scenes, read, annotated."""
    import cv2

    from vision.cubes import annotate_cubes
    from vision.tessons import annotate_tessons

    cubes = cube_scene(
        5,
        20,
        table="wood",
        tilt=10.0,
        light="spot",
        shadows=True,
        blur=1.0,
        noise=4.0,
        touching=True,
        holes=0.4,
    )
    cv2.imwrite(
        str(folder / "cubes-annotated.png"), annotate_cubes(cubes.image, read_cubes(cubes.image))
    )
    tessons = tesson_scene(
        3, 7, table="wood", light="uneven", shadows=True, dice=3, strays=1, tilt=8.0, noise=3.0
    )
    cv2.imwrite(
        str(folder / "tessons-annotated.png"),
        annotate_tessons(tessons.image, read_tessons(tessons.image, tessons.seats), tessons.seats),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=40, help="scenes per family")
    parser.add_argument("--family", default="", help="only families whose name holds this")
    parser.add_argument("--timing", type=int, default=30, help="reads timed per reader")
    parser.add_argument("--skip-tessons", action="store_true")
    parser.add_argument("--skip-cubes", action="store_true")
    parser.add_argument(
        "--as-companion",
        action="store_true",
        help="cubes white-balanced by the markers' paper and read with the colour check",
    )
    parser.add_argument(
        "--learned",
        action="store_true",
        help="cubes and tessons read by the learned readers (the companion's defaults)",
    )
    parser.add_argument(
        "--images", metavar="DIR", help="only write the annotated doc images into DIR"
    )
    args = parser.parse_args(argv)
    if args.images:
        write_images(Path(args.images))
        return 0
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; {args.scenes} scenes per family, 1280x720\n"
    )
    if not args.skip_cubes:
        print(CUBE_HEADER)
        for name, knobs in CUBE_FAMILIES.items():
            if args.family not in name:
                continue
            scenes = [_cube_scene(1000 + i, knobs) for i in range(args.scenes)]
            if args.as_companion:
                found = [
                    read_as_the_companion(1000 + i, s, _knobs(1000 + i, knobs), args.learned)
                    for i, s in enumerate(scenes)
                ]
            else:
                read = read_cubes_net if args.learned else read_cubes
                found = [read(s.image) for s in scenes]
            print(evaluate_cubes(scenes, found).cube_row(name))
        print()
    if not args.skip_tessons:
        print(
            "| tessons: family | recall | precision | side | seat "
            "| centre err median / p95 (share of 30 px) | flagged | silent errors |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name, knobs in TESSON_FAMILIES.items():
            if args.family not in name:
                continue
            seats = 12 if "12 seats" in name else 6
            scenes = [
                tesson_scene(2000 + i, _seats(i, seats, knobs), **_knobs(2000 + i, knobs))
                for i in range(args.scenes)
            ]
            read_tesson = read_tessons_net if args.learned else read_tessons
            found = [read_tesson(s.image, s.seats) for s in scenes]
            tally = evaluate_tessons(scenes, found)
            seat = 100 * tally.right_seat / max(1, tally.matched)
            print(tally.row(name, f"{seat:.1f}%"))
        print()
    if args.timing:
        cube = cube_scene(7, shadows=True, light="uneven", noise=2.0)
        tesson = tesson_scene(7, shadows=True, noise=2.0)
        read_cubes(cube.image)
        read_tessons(tesson.image, tesson.seats)
        cube_ms = _median_ms(lambda: read_cubes(cube.image), args.timing)
        read_cubes_net(cube.image)
        net_ms = _median_ms(lambda: read_cubes_net(cube.image), args.timing)
        tesson_ms = _median_ms(lambda: read_tessons(tesson.image, tesson.seats), args.timing)
        cards = tesson_scene(7, 12, printed=1.0, sleeves=0.3, strays=2, dice=4, noise=2.0)
        read_tessons(cards.image, cards.seats)
        cards_ms = _median_ms(lambda: read_tessons(cards.image, cards.seats), args.timing)
        read_tessons_net(cards.image, cards.seats)
        tnet_ms = _median_ms(lambda: read_tessons_net(cards.image, cards.seats), args.timing)
        print("| reader | median per 1280x720 frame |")
        print("|---|---|")
        print(f"| read_cubes (16 cubes) | {cube_ms:.1f} ms |")
        print(f"| read_cubes_net (16 cubes) | {net_ms:.1f} ms |")
        print(f"| read_tessons (6 seats) | {tesson_ms:.1f} ms |")
        print(f"| read_tessons (12 printed cards, 2 strays, 4 cubes) | {cards_ms:.1f} ms |")
        print(f"| read_tessons_net (the same) | {tnet_ms:.1f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
