"""A die as the referee sees it: a square footprint on the table, a colour, and its hole."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class Color(enum.Enum):
    RED = "red"
    YELLOW = "yellow"
    BLUE = "blue"
    BLACK = "black"

    @property
    def letter(self) -> str:
        return LETTERS[self]

    @staticmethod
    def from_letter(letter: str) -> Color:
        return BY_LETTER[letter.upper()]


LETTERS = {Color.RED: "R", Color.YELLOW: "Y", Color.BLUE: "B", Color.BLACK: "K"}
BY_LETTER = {letter: color for color, letter in LETTERS.items()}


CONFIRM_BELOW = 0.6
"""A die read with less confidence than this is flagged for a person to confirm (the vision
readers use the same threshold)."""


class BadDie(ValueError):
    """A die description that cannot be used: says which field and why."""


@dataclass(frozen=True)
class Die:
    """Centre (x, y) in image-like coordinates (x right, y down), side length ``size``, rotation
    ``angle`` in degrees, colour, and whether the hole shows on top.

    ``confidence`` (0 to 1) is how sure the camera is of its reading; a die typed or confirmed by
    a person has 1.0. The geometry ignores it."""

    x: float
    y: float
    size: float
    color: Color
    hole: bool = False
    angle: float = 0.0
    confidence: float = 1.0

    @property
    def flagged(self) -> bool:
        """Read with too little confidence: a person should look at it on the table."""
        return self.confidence < CONFIRM_BELOW

    def corners(self) -> tuple[tuple[float, float], ...]:
        """The footprint's four corners, in order round the square."""
        half = self.size / 2
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        return tuple(
            (self.x + dx * c - dy * s, self.y + dx * s + dy * c)
            for dx, dy in ((-half, -half), (half, -half), (half, half), (-half, half))
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "x": self.x,
            "y": self.y,
            "size": self.size,
            "angle": self.angle,
            "color": self.color.value,
            "hole": self.hole,
            "confidence": self.confidence,
        }

    @staticmethod
    def from_json(data: Any, index: int = 0) -> Die:
        if not isinstance(data, Mapping):
            raise BadDie(f"die {index}: must be an object with x, y, size, color")
        unknown = set(data) - {"x", "y", "size", "angle", "color", "hole", "confidence"}
        if unknown:
            raise BadDie(f"die {index}: unknown field {sorted(unknown)[0]!r}")
        values: dict[str, float] = {}
        for name, default in (
            ("x", None),
            ("y", None),
            ("size", None),
            ("angle", 0.0),
            ("confidence", 1.0),
        ):
            value = data.get(name, default)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or abs(value) > 1e9  # far beyond any table (and ints that overflow a float)
                or not math.isfinite(value)
            ):
                raise BadDie(f"die {index}: {name} must be a number")
            values[name] = float(value)
        if values["size"] <= 0:
            raise BadDie(f"die {index}: size must be more than 0")
        if not 0.0 <= values["confidence"] <= 1.0:
            raise BadDie(f"die {index}: confidence must be from 0 to 1")
        try:
            color = Color(data.get("color"))
        except ValueError:
            raise BadDie(f"die {index}: color must be red, yellow, blue or black") from None
        hole = data.get("hole", False)
        if not isinstance(hole, bool):
            raise BadDie(f"die {index}: hole must be true or false")
        return Die(
            values["x"],
            values["y"],
            values["size"],
            color,
            hole,
            values["angle"],
            values["confidence"],
        )
