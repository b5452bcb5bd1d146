"""Measure the cube and tesson readers on Blender renders they were never tuned on.

    python benchmarks/vision_renders.py renders/heldout [more folders] [--by table_family,light]
                                        [--cube-model M.onnx]   # another learned cube model
                                        [--cube-check C.onnx|none]  # another second look
                                        [--tesson-model T.onnx]     # another tesson model
                                        [--one-view]   # the tesson reader without its mirror
    python benchmarks/vision_renders.py tests/data/renders      # the committed sample

Each folder holds renders of ``tools/render/render_scenes.py`` (docs/vision/renders.md): an
image and a JSON of its ground truth. The readers run as the companion runs them, in three
steps so that each step's worth shows:

- **hand-tuned, as seen**: ``vision.cubes.read_cubes`` on the frame as the camera gave it;
- **hand-tuned, white paper**: the frame white-balanced by the markers' paper first
  (``vision.white_balance.balanced``: what ``ThrowCamera`` does);
- **hand-tuned, + colour check**: and read with the palette learnt from the scene's colour-check
  frame (four cubes laid red, yellow, blue, black under the same light:
  ``vision.color_check``), balanced by the same paper (``[camera] cubes = "hand-tuned"``);
- **learned, white paper**: ``vision.cube_net.read_cubes_net`` on the balanced frame;
- **learned, + what the cup held**: the same with its candidates (weaker detections), kept by
  ``vision.readings.doubt_counts`` only for dice the cup held that are missing, flagged: the
  companion's default reader, as the throw desk reads from a still source;
- **learned, + new on the table, + what the cup held**, for scenes rendered with ``--before``:
  the readings that lay there already, unchanged, on the before frame left out first (but for a
  colour that would be short of the cup's dice), as the throw desk reads from a live camera.
  The conditions and ``--pictures`` are of the last step.

Tessons are read with the scene's seat map: by the hand-tuned reader as seen, white-balanced
as the tesson desk does, and with what lies on the markers' paper left out; then by the learned
reader (``vision.tesson_net.read_tessons_net``) the same way; with its candidates (weaker
detections), one kept for each seat dealt a tesson that shows none, flagged
(``vision.readings.seat_candidates``: the seats revealing are what the game knows); and, for
scenes rendered with ``--before``, with the readings that lay there already on the before frame,
unchanged, left out (``vision.table_change``), without and with the candidates: the last is the
companion's, and the breakdown by condition is of it.

A reading matches the nearest true die within half its size (a tesson within 0.6 of a plain
card's size, or of the printed card's short side); a die less than half visible (under a hand,
a cup, another die) is left out of the truth, and a reading of it is not counted either way:
the readings are matched to the shown dice first, and one left over within reach of a hidden die
counts neither way. A die lying on a hidden one is scored as itself, however near the hidden
one's centre its reading lies (their centres are a few pixels apart). Printed: recall,
precision, colour / hole / side / seat over the matched, flagged share, silent errors (wrong
and not flagged) and the share of the true items read right and not flagged (what the table
takes without asking anyone), for all scenes and then per condition (``--by``).
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import platform
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools" / "render"))

from truth import Rendered, load  # noqa: E402

from vision.color_check import ColorCheckError, read_color_check  # noqa: E402
from vision.cube_net import CubeNetReader, read_cubes_net  # noqa: E402
from vision.cubes import read_cubes  # noqa: E402
from vision.readings import back_where_short, doubt_counts, seat_candidates  # noqa: E402
from vision.table_change import TableBefore  # noqa: E402
from vision.tesson_net import TessonNetReader, read_tessons_net  # noqa: E402
from vision.tessons import off_the_markers, read_tessons  # noqa: E402
from vision.white_balance import white_from_markers  # noqa: E402

LEARNED = "learned, white paper"
NEW = "learned, + new on the table"
FAINT = "learned, + a faint one where a seat shows none (the companion's, from a still source)"
FAINT_NEW = "learned, + new on the table, + a faint one where a seat shows none (the companion's)"
CUP = "learned, + what the cup held (the companion's)"
CUP_NEW = "learned, + new on the table, + what the cup held (the companion's, on a live camera)"
BY = ("table_family", "light", "exposure", "height", "tilt", "edge_object", "plastic", "pose")


@dataclass
class Outcome:
    """One true item (``found`` …) or one reading that matched no true item (``extra``)."""

    conditions: dict[str, str]
    found: bool = False
    kind_right: bool = False
    hole_right: bool = False
    seat_right: bool = False
    right: bool = False  # found, and all of it read right (colour and hole, or side and seat)
    flagged: bool = False
    silent: bool = False
    extra: bool = False


def conditions_of(scene: Rendered) -> dict[str, str]:
    c = scene.conditions
    height = float(c["camera_height_mm"])
    tilt = float(c["tilt_deg"])
    return {
        "table_family": str(c["table_family"]),
        "light": str(c["light"]),
        "exposure": str(c["exposure"]),
        "height": "< 0.5 m" if height < 500 else ("0.5-0.65 m" if height <= 650 else "> 0.65 m"),
        "tilt": "< 5°" if tilt < 5 else ("5-10°" if tilt <= 10 else "> 10°"),
        "edge_object": str(c["edge_object"]),
    }


def _match(truth: list[Any], read: list[Any], radius: Callable[[Any], float]) -> dict[int, int]:
    """Truth index → reading index, nearest first, within ``radius`` of the truth."""
    pairs = sorted(
        (math.hypot(r.x - t.x, r.y - t.y), i, j)
        for i, t in enumerate(truth)
        for j, r in enumerate(read)
        if math.hypot(r.x - t.x, r.y - t.y) <= radius(t)
    )
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in pairs:
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out


def not_of_hidden(
    found: list[Any], hidden: list[Any], shown: list[Any], radius: Callable[[Any], float]
) -> list[Any]:
    """``found`` less the readings of hidden items: those that match no shown item (nearest
    first, within ``radius``) but lie within ``radius`` of a hidden one count neither way. A
    reading of a die lying on a hidden one is that die's, even nearer the hidden one's centre."""
    matched = set(_match(shown, found, radius).values())
    return [
        r
        for j, r in enumerate(found)
        if j in matched or not any(math.hypot(r.x - t.x, r.y - t.y) <= radius(t) for t in hidden)
    ]


def score(
    scene: Rendered, truth: list[Any], found: list[Any], radius: Callable[[Any], float]
) -> list[Outcome]:
    base = conditions_of(scene)
    hidden = [t for t in truth if getattr(t, "visible", 1.0) < 0.5]
    shown = [t for t in truth if getattr(t, "visible", 1.0) >= 0.5]
    found = not_of_hidden(found, hidden, shown, radius)
    pairs = _match(shown, found, radius)
    out = []
    for i, t in enumerate(shown):
        extra = {"plastic": getattr(t, "plastic", "-"), "pose": getattr(t, "pose", "-")}
        o = Outcome({**base, **extra})
        if i in pairs:
            r = found[pairs[i]]
            o.found, o.flagged = True, r.flagged
            if hasattr(t, "color"):
                o.kind_right = r.color == t.color
                o.hole_right = r.hole == t.hole
                wrong = not (o.kind_right and o.hole_right)
            else:
                o.kind_right = r.side == t.side
                o.seat_right = r.seat == t.seat
                wrong = not (o.kind_right and o.seat_right)
            o.right, o.silent = not wrong, wrong and not r.flagged
        out.append(o)
    matched = set(pairs.values())
    for j, r in enumerate(found):
        if j not in matched:
            out.append(
                Outcome(
                    {**base, "plastic": "-", "pose": "-"},
                    extra=True,
                    flagged=r.flagged,
                    silent=not r.flagged,
                )
            )
    return out


PER_ITEM = ("plastic", "pose")
"""Conditions of one die, not of the scene: a false reading has none, so no precision."""


def row(name: str, outcomes: list[Outcome], cubes: bool, precision: bool = True) -> str:
    truth = [o for o in outcomes if not o.extra]
    found = [o for o in truth if o.found]
    extra = [o for o in outcomes if o.extra]
    readings = len(found) + len(extra)
    pct = lambda n, d: f"{100 * n / d:.1f}%" if d else "-"  # noqa: E731
    second = (
        pct(sum(o.hole_right for o in found), len(found))
        if cubes
        else pct(sum(o.seat_right for o in found), len(found))
    )
    flagged = sum(o.flagged for o in found) + sum(o.flagged for o in extra)
    silent = sum(o.silent for o in found) + sum(o.silent for o in extra)
    return (
        f"| {name} | {len(truth)} | {pct(len(found), len(truth))} "
        f"| {pct(len(found), readings) if precision else '-'} "
        f"| {pct(sum(o.kind_right for o in found), len(found))} | {second} "
        f"| {pct(flagged, readings)} | {silent} "
        f"| {pct(sum(o.right and not o.flagged for o in found), len(truth))} |"
    )


def as_the_companion_reads(scene: Rendered) -> tuple[Any, Any, Callable[..., Any]]:
    """The frame as seen, white-balanced by the markers' paper, and the cube reader with the
    palette of the scene's colour check (the usual one when the check is refused)."""
    white = white_from_markers(scene.image, {m.id: m.corners for m in scene.markers})
    balanced = scene.image if white is None else white.apply(scene.image)
    reader: Callable[..., Any] = read_cubes
    if scene.check is not None:
        try:
            palette = read_color_check(scene.check.image).palette()
            reader = functools.partial(read_cubes, palette=palette)
        except ColorCheckError as exc:
            print(f"{scene.path.name}: colour check refused: {exc}", file=sys.stderr)
    return scene.image, balanced, reader


CUBE_READER: Callable[..., list[Any]] = read_cubes_net
"""The learned cube reader measured: the shipped model, or ``--cube-model``'s (main sets it)."""
TESSON_READER: Callable[..., list[Any]] = read_tessons_net
"""The learned tesson reader measured: the shipped model, or ``--tesson-model``'s."""


def cube_outcomes(scenes: Iterable[Rendered]) -> dict[str, list[Outcome]]:
    steps: dict[str, list[Outcome]] = defaultdict(list)
    radius = lambda t: t.size / 2  # noqa: E731
    for scene in scenes:
        seen, balanced, reader = as_the_companion_reads(scene)
        truth = list(scene.dice)
        steps["hand-tuned, as seen"] += score(scene, truth, read_cubes(seen), radius)
        steps["hand-tuned, white paper"] += score(scene, truth, read_cubes(balanced), radius)
        steps["hand-tuned, + colour check"] += score(scene, truth, reader(balanced), radius)
        steps["learned, white paper"] += score(scene, truth, CUBE_READER(balanced), radius)
        steps[CUP] += score(scene, truth, as_the_desk_reads(scene, balanced), radius)
        if scene.before is not None:
            found = as_the_desk_reads(scene, balanced, new_only=True)
            steps[CUP_NEW] += score(scene, truth, found, radius)
    return steps


def as_the_desk_reads(scene: Rendered, balanced: Any, new_only: bool = False) -> list[Any]:
    """The learned reader with its candidates, and what the cup held (every die of the scene,
    hidden ones too): what the throw desk gives the game. With ``new_only``, what the before
    frame (the table at rest before the throw) read unchanged is left out first, but for a
    colour it would leave short (``vision.readings.back_where_short``): a live camera's way."""
    cup = Counter(die.color for die in scene.dice)
    found = CUBE_READER(balanced, candidates=True)
    if new_only:
        assert scene.before is not None
        white = white_from_markers(scene.before, {m.id: m.corners for m in scene.markers})
        before = scene.before if white is None else white.apply(scene.before)
        table = TableBefore.of(scene.before, CUBE_READER(before, candidates=True))
        new = {id(r) for r in table.new_on_table(found, scene.image)}
        kept = [r for r in found if id(r) in new]
        found = back_where_short(kept, [r for r in found if id(r) not in new], expected=cup)
    return doubt_counts(found, expected=cup)


def reach(tesson: Any) -> float:
    """How far from a true tesson's centre a reading of it may lie (px)."""
    return 40.0 if getattr(tesson, "printed", False) else 20.0


def tesson_outcomes(scenes: Iterable[Rendered]) -> dict[str, list[Outcome]]:
    steps: dict[str, list[Outcome]] = defaultdict(list)
    for scene in scenes:
        white = white_from_markers(scene.image, {m.id: m.corners for m in scene.markers})
        balanced = scene.image if white is None else white.apply(scene.image)
        truth = list(scene.tessons)
        steps["as seen"] += score(scene, truth, read_tessons(scene.image, scene.seats), reach)
        steps["white paper"] += score(scene, truth, read_tessons(balanced, scene.seats), reach)
        markers = {m.id: m.corners for m in scene.markers}
        found = off_the_markers(read_tessons(balanced, scene.seats), markers)
        steps["+ off the markers' paper"] += score(scene, truth, found, reach)
        found = off_the_markers(TESSON_READER(balanced, scene.seats, candidates=True), markers)
        sure = [r for r in found if not r.candidate]
        steps[LEARNED] += score(scene, truth, sure, reach)
        steps[FAINT] += score(scene, truth, seat_candidates(found, revealing(scene)), reach)
        if scene.before is not None:
            steps[NEW] += score(scene, truth, new_on_table(scene, sure), reach)
            steps[FAINT_NEW] += score(scene, truth, the_desks(scene, found), reach)
    return steps


def revealing(scene: Rendered) -> set[int]:
    """The seats revealing: every seat dealt a tesson (what the game knows), seen or not."""
    return {t.seat for t in scene.tessons if t.seat is not None}


def the_desks(scene: Rendered, found: list[Any]) -> list[Any]:
    """What the tesson desk keeps of the learned reader's ``found`` (read with its candidates):
    what lay there before left out (a scene rendered with ``--before``), then a faint one for
    each seat revealing that shows none."""
    if scene.before is not None:
        found = new_on_table(scene, found, candidates=True)
    return seat_candidates(found, revealing(scene))


def new_on_table(scene: Rendered, found: list[Any], candidates: bool = False) -> list[Any]:
    """The readings of ``found`` that are not the table's own: the before frame read the same
    way (``vision.table_change``), as the tesson desk reads at the reveal."""
    assert scene.before is not None
    markers = {m.id: m.corners for m in scene.markers}
    white = white_from_markers(scene.before, markers)
    balanced = scene.before if white is None else white.apply(scene.before)
    read = TESSON_READER(balanced, scene.seats, candidates=candidates)
    before = off_the_markers(read, markers)
    return TableBefore.of(scene.before, before).new_on_table(found, scene.image)


def report(title: str, steps: dict[str, list[Outcome]], by: list[str], cubes: bool) -> None:
    kind, second = ("colour", "hole") if cubes else ("side", "seat")
    header = (
        f"| {title} | items | recall | precision | {kind} | {second} | flagged | silent errors "
        "| read right, unflagged |"
    )
    line = "|---|---|---|---|---|---|---|---|---|"
    print(header + "\n" + line)
    for step, outcomes in steps.items():
        print(row(step, outcomes, cubes))
    last = list(steps)[-1]
    for key in by:
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in steps[last]:
            groups[o.conditions.get(key, "-")].append(o)
        if len(groups) <= 1 and "-" in groups:
            continue
        print(f"\n{title}, {last}, by {key}\n\n{header.replace(title, key)}\n{line}")
        for value in sorted(groups):
            if value != "-":
                print(row(value, groups[value], cubes, precision=key not in PER_ITEM))
    print()


def save_picture(picture: Any, name: Path) -> None:
    """Write a picture as JPEG, making its folder; an image that cannot be written is said."""
    import cv2

    name.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(name), picture, [cv2.IMWRITE_JPEG_QUALITY, 80]):
        raise OSError(f"{name}: could not be written")
    print(f"wrote {name}")


def write_pictures(scenes: list[Rendered], folder: Path, count: int) -> None:
    """The ``count`` cube scenes whose dice are most often missed or misread, read as the
    companion reads them (white paper, the learned reader with its candidates and what the cup
    held), with the truth drawn over: a green ring round each true die found and right, a
    magenta one round each missed or misread."""
    import cv2

    from vision.cubes import annotate_cubes

    def worst(scene: Rendered) -> float:
        outcomes = cube_outcomes([scene])[CUP]
        truth = [o for o in outcomes if not o.extra]
        right = sum(o.found and o.kind_right and o.hole_right for o in truth)
        return right / max(1, len(truth))

    for scene in sorted(scenes, key=worst)[:count]:
        _, balanced, _ = as_the_companion_reads(scene)
        found = as_the_desk_reads(scene, balanced)
        picture = annotate_cubes(scene.image, found)
        for die in scene.dice:
            if die.visible < 0.5:
                continue
            near = [r for r in found if math.hypot(r.x - die.x, r.y - die.y) <= die.size / 2]
            good = any(r.color == die.color and r.hole == die.hole for r in near)
            colour = (60, 200, 60) if good else (255, 0, 255)
            cv2.circle(picture, (round(die.x), round(die.y)), round(0.75 * die.size), colour, 2)
        save_picture(picture, folder / f"render-{scene.path.stem}.jpg")


def write_tesson_pictures(scenes: list[Rendered], folder: Path, count: int) -> None:
    """The same for the ``count`` tesson scenes most often missed or misread as the tesson
    desk reads (the seat zones drawn too; a ring round each true tesson shown)."""
    import cv2

    from vision.tessons import annotate_tessons

    def worst(scene: Rendered) -> float:
        read = list(tesson_outcomes([scene]).values())[-1]
        truth = [o for o in read if not o.extra]
        return sum(o.found and o.kind_right and o.seat_right for o in truth) / max(1, len(truth))

    for scene in sorted(scenes, key=worst)[:count]:
        markers = {m.id: m.corners for m in scene.markers}
        white = white_from_markers(scene.image, markers)
        balanced = scene.image if white is None else white.apply(scene.image)
        read = TESSON_READER(balanced, scene.seats, candidates=True)
        found = the_desks(scene, off_the_markers(read, markers))
        picture = annotate_tessons(scene.image, found, scene.seats)
        for t in scene.tessons:
            if t.visible < 0.5:
                continue
            near = [r for r in found if math.hypot(r.x - t.x, r.y - t.y) <= reach(t)]
            good = any(r.side == t.side and r.seat == t.seat for r in near)
            colour = (60, 200, 60) if good else (255, 0, 255)
            cv2.circle(picture, (round(t.x), round(t.y)), round(1.5 * reach(t)), colour, 2)
        save_picture(picture, folder / f"render-{scene.path.stem}.jpg")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--by", default=",".join(BY), help="conditions to break down by")
    parser.add_argument(
        "--pictures", type=Path, metavar="DIR", help="only draw the worst-read scenes of each kind"
    )
    parser.add_argument("--count", type=int, default=3, help="how many pictures")
    parser.add_argument(
        "--cube-model", type=Path, metavar="ONNX", help="the learned cube reader's model to measure"
    )
    parser.add_argument(
        "--cube-check",
        metavar="ONNX",
        help="the learned cube reader's second look to measure (none: without one)",
    )
    parser.add_argument(
        "--tesson-model", type=Path, metavar="ONNX", help="the learned tesson reader's model"
    )
    parser.add_argument(
        "--one-view",
        action="store_true",
        help="the learned tesson reader without its mirrored view, with its thresholds of then",
    )
    args = parser.parse_args(argv)
    global CUBE_READER, TESSON_READER
    if args.cube_model is not None or args.cube_check is not None:
        check = {None: True, "none": False}.get(args.cube_check, args.cube_check)
        CUBE_READER = CubeNetReader(args.cube_model, check=check).read
    if args.one_view:  # as shipped before 2026-12-07 (docs/vision/tesson_net.md)
        TESSON_READER = TessonNetReader(
            args.tesson_model, mirrored=False, sure_at=0.6, candidate_at=0.2
        ).read
    elif args.tesson_model is not None:
        TESSON_READER = TessonNetReader(args.tesson_model).read
    files = sorted(p for folder in args.folders for p in folder.glob("*.json"))
    scenes = [load(p) for p in files]
    cubes = [s for s in scenes if s.kind == "cubes"]
    tessons = [s for s in scenes if s.kind == "tessons"]
    if args.pictures is not None:
        write_pictures(cubes, args.pictures, args.count)
        write_tesson_pictures(tessons, args.pictures, args.count)
        return 0
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; {len(cubes)} cube scenes, {len(tessons)} tesson "
        f"scenes from {', '.join(str(f) for f in args.folders)}\n"
    )
    by = [b for b in args.by.split(",") if b]
    if cubes:
        report("cubes", cube_outcomes(cubes), by, cubes=True)
    if tessons:
        report(
            "tessons",
            tesson_outcomes(tessons),
            [b for b in by if b not in ("plastic", "pose")],
            cubes=False,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
