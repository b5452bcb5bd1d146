"""Plane geometry for the Oraklos referee: dice footprints, lines of fate, and what sees what.

Coordinates are the camera's: x to the right, y downwards, in any unit (mm on the real table).
A die's footprint is the closed square of side ``size`` centred on (x, y) and turned by ``angle``
degrees. The lines of a prediction join dice *centres*.

Tolerance policy
----------------
Contact counts. A line that exactly touches a footprint (at a corner or along a side) crosses
it: that is the measuring cord's verdict when its shadow just reaches a die. So that rounding
noise in the last bits of a float never decides a verdict, each footprint is grown, for every
test, by ``EPSILON`` times its size on every side (1e-9: a billionth of a die, far below what a
camera can see). A line that passes at least that far from a die is clear of it.

The other predicates (do two lines cross, is a centre inside a quadrilateral, which way round
does a quadrilateral turn) use plain floating-point orientation tests without a tolerance. This
is safe because they only decide cases that the footprint tests have not already settled: a
centre lying on, or within rounding distance of, another line is inside that die's own footprint,
so such a line touches the die and is refused before the finer test is asked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from companion.games.oraklos.dice import Die

EPSILON = 1e-9
"""How much each footprint grows, as a fraction of its size, so that touching is robust."""

_BUCKETS = 64
_BUCKET_WIDTH = 2 * math.pi / _BUCKETS

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Footprint:
    """A die's square on the table, ready for fast tests.

    ``half`` is half the side, already grown by the tolerance; (ux, uy) is the square's first
    axis (its second is (-uy, ux)); ``reach`` is a radius that surely contains the square.
    """

    x: float
    y: float
    half: float
    ux: float
    uy: float
    reach: float

    @staticmethod
    def of(die: Die) -> Footprint:
        half = die.size / 2 + EPSILON * die.size
        radians = math.radians(die.angle)
        reach = half * math.sqrt(2) * (1 + 1e-9) + 1e-12
        return Footprint(die.x, die.y, half, math.cos(radians), math.sin(radians), reach)


def touches(px: float, py: float, qx: float, qy: float, f: Footprint) -> bool:
    """Whether the closed segment p–q meets the (grown) footprint ``f``.

    Separating-axis test: a segment and a square are apart exactly when their projections are
    apart on one of the square's two axes or on the segment's normal. A segment of length 0 is
    a point, and the test becomes "is the point in the square".
    """
    ux, uy, h = f.ux, f.uy, f.half
    dpx, dpy = px - f.x, py - f.y
    dqx, dqy = qx - f.x, qy - f.y
    a = dpx * ux + dpy * uy
    b = dqx * ux + dqy * uy
    if (a > h and b > h) or (a < -h and b < -h):
        return False
    a = dpy * ux - dpx * uy
    b = dqy * ux - dqx * uy
    if (a > h and b > h) or (a < -h and b < -h):
        return False
    nx, ny = py - qy, qx - px
    centre = dpx * nx + dpy * ny
    extent = h * (abs(ux * nx + uy * ny) + abs(ux * ny - uy * nx))
    return -extent <= centre <= extent


def cross(o: Point, p: Point, q: Point) -> float:
    """Twice the signed area of o, p, q: positive when o→p→q turns clockwise on screen."""
    return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])


def lines_cross(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    """Whether segments p1–p2 and q1–q2 cross at a point inside both (a proper crossing)."""
    d1, d2 = cross(p1, p2, q1), cross(p1, p2, q2)
    if (d1 > 0 and d2 > 0) or (d1 < 0 and d2 < 0) or d1 == 0 or d2 == 0:
        return False
    d3, d4 = cross(q1, q2, p1), cross(q1, q2, p2)
    return (d3 > 0 > d4) or (d3 < 0 < d4)


def signed_area(points: Sequence[Point]) -> float:
    """Twice the signed area of a polygon: positive when it runs clockwise on screen (y down)."""
    total = 0.0
    for i, (x1, y1) in enumerate(points):
        x2, y2 = points[(i + 1) % len(points)]
        total += x1 * y2 - x2 * y1
    return total


def inside(points: Sequence[Point], x: float, y: float) -> bool:
    """Whether (x, y) is inside the simple polygon ``points`` (even-odd ray casting)."""
    result = False
    n = len(points)
    for i in range(n):
        x1, y1 = points[i]
        x2, y2 = points[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            result = not result
    return result


def blockers(fps: Sequence[Footprint], i: int, j: int) -> list[int]:
    """Every die other than i and j whose footprint the line between their centres touches."""
    a, b = fps[i], fps[j]
    return [k for k, f in enumerate(fps) if k != i and k != j and touches(a.x, a.y, b.x, b.y, f)]


def clear_lines(fps: Sequence[Footprint]) -> list[set[int]]:
    """For each die, the dice it can be joined to by a line that touches no other footprint.

    A brute-force answer tests every pair against every die (n³ tests). Instead, from each
    centre, every other die casts a *shadow*: the directions in which a line from here could
    touch it (the angle under which its enclosing circle is seen), starting at the distance
    where it begins. Dice are visited by distance; a die is clear unless its direction falls in
    the shadow of a die that starts nearer than it, and only those few shadow-casters get the
    exact test. Shadows are filed in 64 direction buckets, so a lookup reads one short list.
    """
    n = len(fps)
    clear: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        xi, yi = fps[i].x, fps[i].y
        shadows: list[tuple[float, int, float, float]] = []
        targets: list[tuple[float, int, float]] = []
        for k in range(n):
            if k == i:
                continue
            f = fps[k]
            dx, dy = f.x - xi, f.y - yi
            distance = math.hypot(dx, dy)
            theta = math.atan2(dy, dx)
            if distance <= f.reach:
                shadows.append((-math.inf, k, theta, 4.0))
            else:
                spread = math.asin(f.reach / distance) * (1 + 1e-9) + 1e-12
                shadows.append((distance - f.reach, k, theta, spread))
            if k > i:
                targets.append((distance, k, theta))
        shadows.sort()
        targets.sort()
        buckets: list[list[tuple[int, float, float]]] = [[] for _ in range(_BUCKETS)]
        filed = 0
        for distance, j, theta in targets:
            while filed < len(shadows) and shadows[filed][0] <= distance:
                _, k, phi, spread = shadows[filed]
                filed += 1
                entry = (k, phi, spread)
                low = math.floor((phi - spread + math.pi) / _BUCKET_WIDTH) - 1
                high = math.floor((phi + spread + math.pi) / _BUCKET_WIDTH) + 1
                if high - low + 1 >= _BUCKETS:
                    for bucket in buckets:
                        bucket.append(entry)
                else:
                    for b in range(low, high + 1):
                        buckets[b % _BUCKETS].append(entry)
            fj = fps[j]
            for k, phi, spread in buckets[int((theta + math.pi) / _BUCKET_WIDTH) % _BUCKETS]:
                if k == j:
                    continue
                gap = abs(theta - phi)
                if gap > math.pi:
                    gap = 2 * math.pi - gap
                if gap <= spread and touches(xi, yi, fj.x, fj.y, fps[k]):
                    break
            else:
                clear[i].add(j)
                clear[j].add(i)
    return clear
