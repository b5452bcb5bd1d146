"""What the camera reports: value objects shared by every reader, with a confidence each.

Readers know no rules. A reading says where something lies and what it looks like; a reading
whose confidence is below ``CONFIRM_BELOW`` is flagged for a person to confirm, never silently
trusted. Coordinates are pixels of the frame (x right, y down) unless a calibration turned them
into millimetres on the table plane (``units == "mm"``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

CONFIRM_BELOW = 0.6

Units = Literal["px", "mm"]
Side = Literal["white", "black"]
"""The side of a tesson that shows."""


@dataclass(frozen=True)
class DieReading:
    """One die seen from above: centre, side length and rotation (degrees) of its top face,
    and what shows on top: ``value`` (pips 1-6) for ordinary dice, ``color`` and ``hole`` for
    Oraklos cubes. A ``candidate`` is a die the reader is unsure is there at all (a weak
    detection): it counts only where the table knows that dice are missing (``doubt_counts``).
    ``present``, where the reader measures it, is how sure it is that a die lies there at all,
    whatever it shows (``confidence`` is also how sure it is of what shows)."""

    x: float
    y: float
    size: float
    angle: float
    confidence: float
    value: int | None = None
    color: str | None = None
    hole: bool | None = None
    candidate: bool = False
    present: float | None = None

    @property
    def flagged(self) -> bool:
        return self.confidence < CONFIRM_BELOW

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "x": round(self.x, 2),
            "y": round(self.y, 2),
            "size": round(self.size, 2),
            "angle": round(self.angle, 1),
            "confidence": round(self.confidence, 3),
            "flagged": self.flagged,
        }
        if self.candidate:
            out["candidate"] = True
        for name in ("value", "color", "hole"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def moved(self, x: float, y: float, size: float, angle: float) -> DieReading:
        return replace(self, x=x, y=y, size=size, angle=angle)


@dataclass(frozen=True)
class TessonReading:
    """A revealed tesson (Ostrakon's voting card): where it lies, which side shows, whose
    seat's zone it lies in (None when it is in no zone) and, where the reader measures it, its
    ``size`` in pixels (a plain shard's width, a printed card's short side). A ``candidate`` is
    a tesson the reader is unsure is there at all (a weak detection): it counts only for a seat
    that must show one and shows none (``seat_candidates``)."""

    x: float
    y: float
    side: Side
    confidence: float
    seat: int | None = None
    size: float | None = None
    candidate: bool = False

    @property
    def flagged(self) -> bool:
        return self.confidence < CONFIRM_BELOW

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "x": round(self.x, 2),
            "y": round(self.y, 2),
            "side": self.side,
            "seat": self.seat,
            "confidence": round(self.confidence, 3),
            "flagged": self.flagged,
        }
        if self.candidate:
            out["candidate"] = True
        return out


class UnreadableFrame(ValueError):
    """A frame or image file that cannot be read at all (say which file and why)."""


DOUBT = CONFIRM_BELOW - 0.1
"""The confidence a reading is lowered to when what the table knows disagrees with it."""

SHIFTED_FROM = 2
"""How many dice of other colours read as one colour make it the light's doing (``doubt_counts``):
then every die read in that colour is asked, not only its least sure."""


def doubt_counts(
    readings: Sequence[DieReading],
    expected: Mapping[str, int] | None = None,
    total: int | None = None,
) -> list[DieReading]:
    """The readings, with those that disagree with what the table knows flagged for a person.

    ``expected`` is how many dice of each colour were thrown (the companion filled the cup), or
    ``total`` only how many dice. Where a colour is read more often than it was thrown, the
    least sure dice of that colour are flagged, as many as are too many: one of them is read
    wrong, and a person looks at them. Where at least ``SHIFTED_FROM`` of those too many must be
    dice of other colours (no more dice are read than were thrown), the table's light shifts
    that colour (faded reds read as yellow under a warm bulb) and the shifted dice can be read
    as surely as the true ones: every die of that colour is flagged. Where more dice are read
    than were thrown, the least sure dice are flagged, as many as are too many. Nothing is
    recoloured: a doubtful die is asked, never guessed.

    A reading of a die too many that its reader doubts is a die at all (``ghosts``) is left out
    first. Candidates (weak detections, and black readings lying as a light's shadows lie:
    ``shadows``) fill in for missing dice: where fewer dice are read than were thrown, the
    likeliest candidates (of a colour still short first) are kept, as many as are missing, each
    flagged; the other candidates are dropped, and all of them where the table knows nothing.
    Too few dice even so flags nothing (the missing die is not on the picture); the game says
    how many are missing.
    """
    out = _fill_in(readings, expected, total)

    def flag(indices: Sequence[int], extra: int) -> None:
        for i in sorted(indices, key=lambda i: out[i].confidence)[: max(0, extra)]:
            out[i] = replace(out[i], confidence=min(out[i].confidence, DOUBT))

    if expected is not None:
        too_many = max(0, len(out) - sum(expected.values()))
        for color in {r.color for r in out if r.color is not None}:
            mine = [i for i, r in enumerate(out) if r.color == color]
            extra = len(mine) - expected.get(color, 0)
            flag(mine, len(mine) if extra - too_many >= SHIFTED_FROM else extra)
    if total is not None:
        flag(range(len(out)), len(out) - total)
    return out


def back_where_short(
    kept: Sequence[DieReading],
    left_out: Sequence[DieReading],
    expected: Mapping[str, int] | None = None,
    total: int | None = None,
) -> list[DieReading]:
    """``kept``, with the readings ``left_out`` as the table's own (``vision.table_change``)
    back where the table would be short of a die that was thrown: those of a colour read fewer
    times than ``expected``, or all of them when fewer dice than ``total`` are read. A die no
    one picked up before the throw lies there unchanged, and is on the table all the same.
    Candidates (weak detections) left out stay out: they were the table's own. Sorted as the
    readers sort, top to bottom."""
    sure = [r for r in kept if not r.candidate]
    back = [r for r in left_out if not r.candidate]
    if expected is not None:
        read = Counter(r.color for r in sure)
        back = [r for r in back if read[r.color] < expected.get(r.color or "", 0)]
    elif total is None or len(sure) >= total:
        back = []
    if not back:
        return list(kept)
    return sorted([*kept, *back], key=lambda r: (round(r.y), r.x))


def seat_candidates(
    readings: Sequence[TessonReading], expected: Collection[int] | None
) -> list[TessonReading]:
    """The readings that are not candidates and, for each ``expected`` seat (the seats that
    reveal now) where none was read, the surest candidate in its zone, flagged: a faint tesson
    is shown to a person to confirm, not reported missing. Every other candidate is dropped, and
    all of them where no seat is expected. Sorted as the readers sort, top to bottom."""
    out = [r for r in readings if not r.candidate]
    read = {r.seat for r in out}
    for seat in expected or ():
        mine = [r for r in readings if r.candidate and r.seat == seat]
        if mine and seat not in read:
            best = max(mine, key=lambda r: r.confidence)
            out.append(replace(best, candidate=False, confidence=min(best.confidence, DOUBT)))
    return sorted(out, key=lambda r: (round(r.y), r.x))


GHOST_BELOW = 0.3
"""A reading of a die too many whose reader is less sure than this that a die lies there at all
(``present``) is a ghost (``ghosts``)."""


def ghosts(
    readings: Sequence[DieReading],
    expected: Mapping[str, int] | None = None,
    total: int | None = None,
) -> list[DieReading]:
    """The readings, less those the reader doubts are dice at all (``present`` below
    ``GHOST_BELOW``: a die's shadow or reflection, a cloth's check) where they are too many:
    of a colour read more often than ``expected``, or of all when more dice than ``total`` are
    read; the least likely first, as many as are too many (``doubt_counts``). The cup did not
    hold them, and they do not stand in for a die of another colour either."""
    groups: dict[str | None, int] = {}
    if expected is not None:
        for color, read in Counter(r.color for r in readings if not r.candidate).items():
            groups[color] = read - expected.get(color or "", 0)
    elif total is not None:
        groups[None] = sum(not r.candidate for r in readings) - total
    doubted = sorted(
        (r.present, i)
        for i, r in enumerate(readings)
        if not r.candidate and r.present is not None and r.present < GHOST_BELOW
    )
    ghost: set[int] = set()
    for color, too_many in groups.items():
        mine = [i for _, i in doubted if color is None or readings[i].color == color]
        ghost.update(mine[: max(0, too_many)])
    return [r for i, r in enumerate(readings) if i not in ghost]


SHADOW_REACH = (0.9, 1.7)
"""How far a die's shadow read as a black cube lies from the die, in sides (``shadows``)."""
SHADOW_SPREAD = 20.0
"""How far apart (degrees) the directions of shadows cast by one light may be (``shadows``)."""
SHADOWS_AT_LEAST = 4
"""How many black readings must lie in one direction from their dice to be the light's shadows."""


def shadows(readings: Sequence[DieReading]) -> list[DieReading]:
    """The readings, with the black ones that look like the dice's shadows made candidates
    (``doubt_counts``): a low sun or a bare bulb casts every die's shadow the same way, and a
    hard shadow beside a die can be read as a black cube. Where ``SHADOWS_AT_LEAST`` black
    readings or more each lie a side or so (``SHADOW_REACH``) from their nearest die, all in
    one direction (within ``SHADOW_SPREAD``), those are the light's shadows. A real black die
    that lies that way from another comes back where black would be short of the cup, the
    surest first; a shadow is weaker than the die that casts it."""
    sure = [r for r in readings if not r.candidate]
    ways: dict[int, float] = {}
    for i, r in enumerate(readings):
        if r.candidate or r.color != "black":
            continue
        others = [o for o in sure if o is not r]
        if not others:
            continue
        o = min(others, key=lambda o: math.hypot(o.x - r.x, o.y - r.y))
        apart = math.hypot(o.x - r.x, o.y - r.y) / max(o.size, r.size)
        if SHADOW_REACH[0] <= apart <= SHADOW_REACH[1]:
            ways[i] = math.degrees(math.atan2(r.y - o.y, r.x - o.x))

    def within(a: float, b: float) -> bool:
        return abs((a - b + 180.0) % 360.0 - 180.0) <= SHADOW_SPREAD

    cast = max(
        ([i for i, w in ways.items() if within(w, way)] for way in ways.values()),
        key=len,
        default=[],
    )
    if len(cast) < SHADOWS_AT_LEAST:
        return list(readings)
    return [replace(r, candidate=True) if i in cast else r for i, r in enumerate(readings)]


def _fill_in(
    readings: Sequence[DieReading], expected: Mapping[str, int] | None, total: int | None
) -> list[DieReading]:
    """The readings that are not candidates, and the candidates that stand for missing dice,
    flagged (``doubt_counts``); in the readers' order, top to bottom. Where the table knows how
    many dice were thrown, black readings cast as one light casts shadows are candidates
    (``shadows``)."""
    thrown = sum(expected.values()) if expected is not None else total
    if thrown is None:
        return [r for r in readings if not r.candidate]
    readings = ghosts(shadows(readings), expected, total)
    out = [r for r in readings if not r.candidate]
    short = Counter(expected or {})
    short.subtract(r.color for r in out if r.color is not None)
    left = sorted((r for r in readings if r.candidate), key=lambda r: -r.confidence)
    if not left or len(out) >= thrown:
        return out
    while left and len(out) < thrown:
        pick = next((r for r in left if short[r.color or ""] > 0), left[0])
        left.remove(pick)
        short[pick.color or ""] -= 1
        out.append(replace(pick, candidate=False, confidence=min(pick.confidence, DOUBT)))
    return sorted(out, key=lambda r: (round(r.y), r.x))
