"""Ordinary six-sided dice on the table: what a throw showed, which dice were thrown again, and
the statistics of every die thrown in the evening.

A die is *rolled* in a throw when it was not lying at the same place with the same value in
the throw before (the camera saw it move); a die that stayed where it was is *kept* and is not
counted again in the statistics, so a player who re-rolls two dice of five adds two to the
histogram, not five. Dice typed by hand have no place: they are all rolled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FACES = range(1, 7)
MAX_DICE = 40  # dice in one throw (the photos have up to 25)
SAME_PLACE = 0.35  # a die within this share of its side of a die of the last throw stayed put
CONFIRM_BELOW = 0.6  # a reading less sure than this is flagged for a person to check
FEW_DICE = 30  # below this many dice thrown, no verdict on fairness
UNUSUAL_BELOW = 0.01  # p-value below which the dice are called unusual
COLORS = ("white", "black", "red", "yellow", "green", "blue", "other")
COORDINATE_LIMIT = 1e6


@dataclass(frozen=True)
class PipDie:
    """One die: its value, and where the camera saw it (table units, None when typed by hand);
    ``color`` as the camera named it (None when unknown)."""

    value: int
    color: str | None = None
    x: float | None = None
    y: float | None = None
    size: float | None = None
    angle: float = 0.0
    confidence: float = 1.0

    @property
    def placed(self) -> bool:
        return self.x is not None and self.y is not None and self.size is not None

    @property
    def flagged(self) -> bool:
        return self.confidence < CONFIRM_BELOW

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "color": self.color,
            "x": self.x,
            "y": self.y,
            "size": self.size,
            "angle": self.angle,
            "confidence": self.confidence,
        }

    def view(self, rolled: bool) -> dict[str, Any]:
        return {**self.to_json(), "flagged": self.flagged, "rolled": rolled}

    @staticmethod
    def from_json(data: Any, index: int = 0) -> PipDie:
        """Raises ValueError saying what is wrong with die ``index``."""
        if not isinstance(data, Mapping):
            raise ValueError(f"die {index + 1} must be an object")
        unknown = set(data) - {"value", "color", "x", "y", "size", "angle", "confidence"}
        if unknown:
            raise ValueError(f"die {index + 1}: unexpected field(s) {', '.join(sorted(unknown))}")
        value = data.get("value")
        if not isinstance(value, int) or isinstance(value, bool) or value not in FACES:
            raise ValueError(f"die {index + 1}: value must be a whole number from 1 to 6")
        color = data.get("color")
        if color is not None and color not in COLORS:
            raise ValueError(f"die {index + 1}: color must be one of {', '.join(COLORS)}")
        place = [data.get(k) for k in ("x", "y", "size")]
        if any(v is None for v in place) and any(v is not None for v in place):
            raise ValueError(f"die {index + 1}: give x, y and size together, or none of them")
        x, y, size = (
            None if v is None else _number(index, name, v)
            for name, v in zip(("x", "y", "size"), place, strict=True)
        )
        if size is not None and size <= 0:
            raise ValueError(f"die {index + 1}: size must be more than 0")
        confidence = _number(index, "confidence", data.get("confidence", 1.0))
        if not 0 <= confidence <= 1:
            raise ValueError(f"die {index + 1}: confidence must be from 0 to 1")
        angle = _number(index, "angle", data.get("angle", 0.0))
        return PipDie(value, color, x, y, size, angle, confidence)


def _number(index: int, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"die {index + 1}: {name} must be a number")
    if not math.isfinite(value) or abs(value) > COORDINATE_LIMIT:
        raise ValueError(f"die {index + 1}: {name} is out of range")
    return float(value)


def rolled(before: Sequence[PipDie], now: Sequence[PipDie]) -> tuple[bool, ...]:
    """Whether each die of ``now`` was thrown: not if it lies where a die of ``before`` lay,
    showing the same value (each die of ``before`` explains at most one die, nearest first)."""
    pairs = sorted(
        (_distance(a, b), i, j)
        for i, a in enumerate(now)
        for j, b in enumerate(before)
        if a.placed and b.placed and a.value == b.value and _same_place(a, b)
    )
    kept: set[int] = set()
    used: set[int] = set()
    for _, i, j in pairs:
        if i not in kept and j not in used:
            kept.add(i)
            used.add(j)
    return tuple(i not in kept for i in range(len(now)))


def _distance(a: PipDie, b: PipDie) -> float:
    assert a.x is not None and a.y is not None and b.x is not None and b.y is not None
    return math.hypot(a.x - b.x, a.y - b.y)


def _same_place(a: PipDie, b: PipDie) -> bool:
    assert a.size is not None and b.size is not None
    return _distance(a, b) <= SAME_PLACE * (a.size + b.size) / 2


@dataclass(frozen=True)
class Throw:
    """The ``number``-th throw of the evening (from 1): its dice, and which were thrown."""

    number: int
    dice: tuple[PipDie, ...]
    rolled: tuple[bool, ...]

    @property
    def thrown(self) -> list[PipDie]:
        return [die for die, rolled in zip(self.dice, self.rolled, strict=True) if rolled]

    @property
    def total(self) -> int:
        return sum(d.value for d in self.dice)

    def by_color(self) -> list[tuple[str, list[int]]]:
        """The values grouped by colour, colours in ``COLORS`` order (unknown last)."""
        order = {c: i for i, c in enumerate(COLORS)}
        groups: dict[str, list[int]] = {}
        for die in sorted(self.dice, key=lambda d: order.get(d.color or "", len(COLORS))):
            groups.setdefault(die.color or "unknown", []).append(die.value)
        return [(color, sorted(values, reverse=True)) for color, values in groups.items()]

    def view(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "dice": [d.view(r) for d, r in zip(self.dice, self.rolled, strict=True)],
            "values": [d.value for d in self.dice],
            "total": self.total,
            "rolled": len(self.thrown),
            "by_color": [
                {"color": color, "values": values, "total": sum(values)}
                for color, values in self.by_color()
            ],
        }


@dataclass(frozen=True)
class DiceStats:
    """How often each face came up among the dice thrown (kept dice are not counted again)."""

    faces: tuple[int, ...]  # counts of 1..6

    @staticmethod
    def of(throws: Sequence[Throw], color: str | None = None) -> DiceStats:
        counts = [0] * 6
        for throw in throws:
            for die in throw.thrown:
                if color is None or die.color == color:
                    counts[die.value - 1] += 1
        return DiceStats(tuple(counts))

    @property
    def dice(self) -> int:
        return sum(self.faces)

    @property
    def mean(self) -> float | None:
        if not self.dice:
            return None
        return sum(f * c for f, c in zip(FACES, self.faces, strict=True)) / self.dice

    @property
    def chi2(self) -> float | None:
        """Pearson's chi-square against fair dice (each face 1/6), 5 degrees of freedom."""
        if not self.dice:
            return None
        expected = self.dice / 6
        return sum((c - expected) ** 2 / expected for c in self.faces)

    @property
    def p_value(self) -> float | None:
        """The chance that fair dice stray at least this far from even counts."""
        chi2 = self.chi2
        return None if chi2 is None else chi2_survival_5(chi2)

    @property
    def verdict(self) -> str:
        """ "few" (too few dice to say), "fair" or "unusual" (p below 1 %)."""
        p = self.p_value
        if p is None or self.dice < FEW_DICE:
            return "few"
        return "unusual" if p < UNUSUAL_BELOW else "fair"

    def view(self) -> dict[str, Any]:
        mean, chi2, p = self.mean, self.chi2, self.p_value
        return {
            "dice": self.dice,
            "faces": list(self.faces),
            "expected": round(self.dice / 6, 2),
            "mean": None if mean is None else round(mean, 3),
            "chi2": None if chi2 is None else round(chi2, 3),
            "p": None if p is None else round(p, 4),
            "verdict": self.verdict,
        }


def chi2_survival_5(x: float) -> float:
    """P(X ≥ x) for a chi-square variable with 5 degrees of freedom (closed form for odd
    degrees: erfc(√(x/2)) + √(2x/π)·e^(−x/2)·(1 + x/3))."""
    if x <= 0:
        return 1.0
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3)
