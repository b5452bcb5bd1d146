"""What the camera reports: value objects shared by every reader, with a confidence each.

Readers know no rules. A reading says where something lies and what it looks like; a reading
whose confidence is below ``CONFIRM_BELOW`` is flagged for a person to confirm, never silently
trusted. Coordinates are pixels of the frame (x right, y down) unless a calibration turned them
into millimetres on the table plane (``units == "mm"``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

CONFIRM_BELOW = 0.6

Units = Literal["px", "mm"]


@dataclass(frozen=True)
class DieReading:
    """One die seen from above: centre, side length and rotation (degrees) of its top face,
    and what shows on top: ``value`` (pips 1-6) for ordinary dice, ``color`` and ``hole`` for
    Oraklos cubes."""

    x: float
    y: float
    size: float
    angle: float
    confidence: float
    value: int | None = None
    color: str | None = None
    hole: bool | None = None

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
        for name in ("value", "color", "hole"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def moved(self, x: float, y: float, size: float, angle: float) -> DieReading:
        return replace(self, x=x, y=y, size=size, angle=angle)


@dataclass(frozen=True)
class TessonReading:
    """A revealed tesson (Ostrakon's voting card): where it lies, which side shows, and whose
    seat's zone it lies in (None when it is in no zone)."""

    x: float
    y: float
    side: Literal["white", "black"]
    confidence: float
    seat: int | None = None

    @property
    def flagged(self) -> bool:
        return self.confidence < CONFIRM_BELOW

    def to_json(self) -> dict[str, Any]:
        return {
            "x": round(self.x, 2),
            "y": round(self.y, 2),
            "side": self.side,
            "seat": self.seat,
            "confidence": round(self.confidence, 3),
            "flagged": self.flagged,
        }


class UnreadableFrame(ValueError):
    """A frame or image file that cannot be read at all (say which file and why)."""
