"""An obviously correct, slow Oraklos referee (RULES.md §3), written apart from the engine's
geometry: every 4-subset, every order round it, every rule checked the plain way. The rule tests
(tests/test_oraklos_geometry.py) check the engine's ``predictions`` against it, and the page test
(tests/test_oraklos_page.py) scores a claim with it instead of with the engine's own ``check``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from itertools import combinations, permutations

from companion.games.oraklos.deck import canonical
from companion.games.oraklos.dice import Die
from companion.games.oraklos.predictions import Prediction

TOUCH = 1e-9  # as in geometry.EPSILON: a footprint grown by a billionth of its size


def signed_area(points: list[tuple[float, float]]) -> float:
    """Positive when the polygon runs clockwise on screen (y down)."""
    return sum(
        x1 * y2 - x2 * y1
        for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1], strict=True)
    )


def orient(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def within(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> bool:
    return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])


def segments_meet(
    p1: tuple[float, float],
    p2: tuple[float, float],
    q1: tuple[float, float],
    q2: tuple[float, float],
) -> bool:
    d1, d2, d3, d4 = orient(p1, p2, q1), orient(p1, p2, q2), orient(q1, q2, p1), orient(q1, q2, p2)
    if d1 * d2 < 0 and d3 * d4 < 0:
        return True
    return (
        (d1 == 0 and within(p1, p2, q1))
        or (d2 == 0 and within(p1, p2, q2))
        or (d3 == 0 and within(q1, q2, p1))
        or (d4 == 0 and within(q1, q2, p2))
    )


def distance_to_segment(
    p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]
) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    t = max(0.0, min(1.0, t))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def in_footprint(d: Die, p: tuple[float, float]) -> bool:
    c, s = math.cos(math.radians(d.angle)), math.sin(math.radians(d.angle))
    u = (p[0] - d.x) * c + (p[1] - d.y) * s
    v = (p[1] - d.y) * c - (p[0] - d.x) * s
    return abs(u) <= d.size / 2 and abs(v) <= d.size / 2


def line_touches(p: tuple[float, float], q: tuple[float, float], d: Die) -> bool:
    """The segment meets the footprint, or passes within the tolerance of it."""
    corners = d.corners()
    sides = [(corners[i], corners[(i + 1) % 4]) for i in range(4)]
    if in_footprint(d, p) or in_footprint(d, q) or any(segments_meet(p, q, a, b) for a, b in sides):
        return True
    gap = min(
        [distance_to_segment(c, p, q) for c in corners]
        + [distance_to_segment(e, a, b) for e in (p, q) for a, b in sides]
    )
    return gap <= TOUCH * d.size


def strictly_inside(polygon: list[tuple[float, float]], p: tuple[float, float]) -> bool:
    """Winding number: the angles seen from p add up to a full turn."""
    total = 0.0
    for a, b in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        dot = (a[0] - p[0]) * (b[0] - p[0]) + (a[1] - p[1]) * (b[1] - p[1])
        total += math.atan2(orient(p, a, b), dot)
    return abs(total) > math.pi


def reference(
    dice: list[Die], holes_allowed: bool, only: frozenset[int] | None = None
) -> list[Prediction]:
    """Every 4-subset (or ``only`` that one), every order round it, every rule checked the
    plain way."""
    centre = [(d.x, d.y) for d in dice]

    @cache
    def touches(i: int, j: int, k: int) -> bool:
        return line_touches(centre[i], centre[j], dice[k])

    def true(order: tuple[int, ...]) -> bool:
        sides = list(zip(order, order[1:] + order[:1], strict=True))
        pts = [centre[i] for i in order]
        return (
            (holes_allowed or not any(dice[i].hole for i in order))
            and not any(
                touches(i, j, k) for i, j in sides for k in range(len(dice)) if k not in (i, j)
            )
            and not segments_meet(pts[0], pts[1], pts[2], pts[3])
            and not segments_meet(pts[1], pts[2], pts[3], pts[0])
            and not any(touches(order[m - 1], order[(m + 1) % 4], order[m]) for m in range(4))
            and not any(strictly_inside(pts, centre[k]) for k in range(len(dice)) if k not in order)
        )

    found = set()
    for chosen in combinations(range(len(dice)), 4):
        if only is not None and set(chosen) != only:
            continue
        for rest in permutations(chosen[1:]):
            order = (chosen[0], *rest)
            if true(order):
                if signed_area([centre[i] for i in order]) < 0:
                    order = (order[0], order[3], order[2], order[1])
                letters = "".join(dice[i].color.letter for i in order)
                found.add(Prediction(order, canonical(letters)))
    return sorted(found, key=lambda p: p.dice)


def reference_claim(
    dice: list[Die],
    four: Sequence[int],
    card: str,
    either_direction: bool = False,
    holes_allowed: bool = False,
) -> bool:
    """Whether the four dice ``four`` make a true prediction read as ``card`` (or as its
    mirror, with ``either_direction``): the brute-force referee's verdict on a claim."""
    wanted = {canonical(card)} | ({canonical(card[::-1])} if either_direction else set())
    return any(p.card in wanted for p in reference(dice, holes_allowed, frozenset(four)))
