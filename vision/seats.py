"""Which seat's zone a point of the frame lies in: the map from table to players.

A ``SeatMap`` describes the zones in front of each seat in pixels of the frame, in one of two
ways:

- **by angles** round a table centre: ``centre`` and one ``starts`` angle per seat, in degrees
  measured clockwise on screen (x right, y down: ``atan2(dy, dx)``), in clockwise order. Seat
  ``i`` owns the directions from ``starts[i]`` (included) clockwise to ``starts[i + 1]``
  (excluded), the last seat up to ``starts[0]``. ``inner`` and ``outer`` (pixels) optionally
  limit the zones to a ring: a point nearer the centre than ``inner`` (the middle of the table)
  or further than ``outer`` is in no zone.
- **by polygons** drawn at calibration: one polygon per seat (three points or more, in pixels).
  A point inside (or on the edge of) polygon ``i`` is in seat ``i``'s zone; where polygons
  overlap the first one wins; a point inside none is in no zone.

Seats are numbered from 0 in the order given. JSON: ``{"centre": [x, y], "starts": [a0, ...],
"inner": r, "outer": r}`` or ``{"polygons": [[[x, y], ...], ...]}``; ``from_json`` says which
field is wrong and why.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

Point = tuple[float, float]


class BadSeatMap(ValueError):
    """A seat map that cannot be used: says which field and why."""


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadSeatMap(f"{what} must be a number, not {value!r}")
    return float(value)


def _point(value: Any, what: str) -> Point:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        raise BadSeatMap(f"{what} must be a point [x, y], not {value!r}")
    return (_number(value[0], f"{what} x"), _number(value[1], f"{what} y"))


@dataclass(frozen=True)
class SeatMap:
    """Seat zones in pixels of the frame: by angles round ``centre`` or by ``polygons``."""

    centre: Point | None = None
    starts: tuple[float, ...] = ()
    inner: float = 0.0
    outer: float | None = None
    polygons: tuple[tuple[Point, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.polygons:
            if self.centre is not None or self.starts:
                raise BadSeatMap("give either centre and starts, or polygons, not both")
            for i, polygon in enumerate(self.polygons):
                if len(polygon) < 3:
                    raise BadSeatMap(f"polygon of seat {i} needs at least 3 points")
                for j, point in enumerate(polygon):
                    _point(point, f"polygon of seat {i}, point {j}")
            return
        if self.centre is None:
            raise BadSeatMap("give centre and starts (seats by angles) or polygons")
        _point(self.centre, "centre")
        if not self.starts:
            raise BadSeatMap("starts must hold one angle per seat (at least one)")
        turned = [
            (_number(a, f"start of seat {i}") - self.starts[0]) % 360.0
            for i, a in enumerate(self.starts)
        ]
        if any(b <= a for a, b in pairwise(turned)):
            raise BadSeatMap("starts must be different angles in clockwise order (degrees)")
        if _number(self.inner, "inner") < 0:
            raise BadSeatMap("inner must be 0 or more")
        if self.outer is not None and _number(self.outer, "outer") <= self.inner:
            raise BadSeatMap("outer must be more than inner")

    @staticmethod
    def by_angles(
        centre: Point, starts: Sequence[float], inner: float = 0.0, outer: float | None = None
    ) -> SeatMap:
        return SeatMap(
            centre=(float(centre[0]), float(centre[1])),
            starts=tuple(float(a) for a in starts),
            inner=float(inner),
            outer=None if outer is None else float(outer),
        )

    @staticmethod
    def by_polygons(polygons: Sequence[Sequence[Point]]) -> SeatMap:
        return SeatMap(
            polygons=tuple(tuple((float(x), float(y)) for x, y in polygon) for polygon in polygons)
        )

    @property
    def seats(self) -> int:
        return len(self.polygons) if self.polygons else len(self.starts)

    def seat_of(self, x: float, y: float) -> int | None:
        """The seat whose zone holds (x, y), or None when it is in no zone."""
        if self.polygons:
            for i, polygon in enumerate(self.polygons):
                if _inside(polygon, x, y):
                    return i
            return None
        assert self.centre is not None
        dx, dy = x - self.centre[0], y - self.centre[1]
        distance = math.hypot(dx, dy)
        if distance < self.inner or (self.outer is not None and distance > self.outer):
            return None
        if distance == 0:
            return None
        angle = math.degrees(math.atan2(dy, dx))
        turned = (angle - self.starts[0]) % 360.0
        seat = 0
        for i, start in enumerate(self.starts):
            if (start - self.starts[0]) % 360.0 <= turned:
                seat = i
        return seat

    def to_json(self) -> dict[str, Any]:
        if self.polygons:
            return {"polygons": [[[x, y] for x, y in polygon] for polygon in self.polygons]}
        assert self.centre is not None
        out: dict[str, Any] = {"centre": list(self.centre), "starts": list(self.starts)}
        if self.inner:
            out["inner"] = self.inner
        if self.outer is not None:
            out["outer"] = self.outer
        return out

    @staticmethod
    def from_json(data: Any) -> SeatMap:
        """A map from its JSON object (already parsed, or as text)."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as error:
                raise BadSeatMap(f"not JSON: {error}") from None
        if not isinstance(data, Mapping):
            raise BadSeatMap("a seat map must be an object with centre and starts, or polygons")
        unknown = set(data) - {"centre", "starts", "inner", "outer", "polygons"}
        if unknown:
            raise BadSeatMap(f"unknown field {sorted(unknown)[0]!r}")
        if "polygons" in data:
            polygons = data["polygons"]
            if not isinstance(polygons, list) or not polygons:
                raise BadSeatMap("polygons must be a list of polygons, one per seat")
            out = []
            for i, polygon in enumerate(polygons):
                if not isinstance(polygon, list):
                    raise BadSeatMap(f"polygon of seat {i} must be a list of points [x, y]")
                out.append(
                    tuple(
                        _point(p, f"polygon of seat {i}, point {j}") for j, p in enumerate(polygon)
                    )
                )
            if "centre" in data or "starts" in data:
                raise BadSeatMap("give either centre and starts, or polygons, not both")
            return SeatMap(polygons=tuple(out))
        if "centre" not in data or "starts" not in data:
            raise BadSeatMap("a seat map needs centre and starts, or polygons")
        starts = data["starts"]
        if not isinstance(starts, list):
            raise BadSeatMap("starts must be a list of angles in degrees, one per seat")
        outer = data.get("outer")
        return SeatMap(
            centre=_point(data["centre"], "centre"),
            starts=tuple(_number(a, f"start of seat {i}") for i, a in enumerate(starts)),
            inner=_number(data.get("inner", 0.0), "inner"),
            outer=None if outer is None else _number(outer, "outer"),
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @staticmethod
    def load(path: str | Path) -> SeatMap:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise BadSeatMap(f"{path}: cannot read: {error.strerror or error}") from None
        try:
            return SeatMap.from_json(text)
        except BadSeatMap as error:
            raise BadSeatMap(f"{path}: {error}") from None


def _inside(polygon: Sequence[Point], x: float, y: float) -> bool:
    """Point in polygon (even-odd), points on an edge count as inside."""
    inside = False
    n = len(polygon)
    for i in range(n):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % n]
        cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
        if (
            abs(cross) <= 1e-9 * (abs(x2 - x1) + abs(y2 - y1) + 1)
            and min(x1, x2) - 1e-9 <= x <= max(x1, x2) + 1e-9
            and min(y1, y2) - 1e-9 <= y <= max(y1, y2) + 1e-9
        ):
            return True
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside
