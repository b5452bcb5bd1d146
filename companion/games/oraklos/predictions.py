"""True predictions (RULES.md §3): which four dice make one, and why a claimed one does not.

A prediction is four dice joined, in some order round, by four straight lines between their
centres. It is *true* when:

1. **Holes are profane** (``Rule.HOLES``): none of the four shows its hole on top (unless the
   Antipodes option ``holes_allowed`` makes holes sacred).
2. **Lines of fate do not cross** (``Rule.CROSSING``): the two pairs of opposite lines do not
   cross each other, and no line touches the footprint of any die other than the two it joins
   (the other two corners included). Touching counts: see ``geometry`` for the tolerance.
3. **The world has four corners** (``Rule.CORNERS``): no three consecutive corners are in
   line, meaning: for each corner, the straight line joining its two neighbours does not touch
   its footprint (the measuring cord stretched between the neighbours would lie on it). With
   rule 2 this also makes the lines a real, simple quadrilateral, convex or concave.
4. **The heart is pure** (``Rule.HEART``): no other die's centre lies inside the
   quadrilateral. (A die that straddles a side already touches a line, so rule 2 refuses it;
   a die not refused by rule 2 is wholly inside or wholly outside.)

A true prediction *matches* a card (``Rule.CARD``) when its colours read clockwise on screen
(x right, y down, as the camera sees the table from above) are the card's corners read
clockwise from some corner; ``either_direction`` also accepts the anticlockwise reading.

Four dice in convex position make one quadrilateral (the other two orders round are bow-ties,
refused by rule 2); when one die is inside the triangle of the other three they make three
different concave quadrilaterals, each judged on its own.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from companion.games.oraklos import deck
from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.geometry import (
    Footprint,
    Point,
    blockers,
    clear_lines,
    inside,
    lines_cross,
    signed_area,
    touches,
)


class Rule(enum.Enum):
    HOLES = "holes_are_profane"
    CROSSING = "lines_do_not_cross"
    CORNERS = "four_corners"
    HEART = "pure_heart"
    CARD = "card_order"
    CLAIM = "bad_claim"


@dataclass(frozen=True)
class Prediction:
    """Four dice in clockwise order on screen, starting from the lowest index, and the card
    they make (their colour letters clockwise, in canonical form)."""

    dice: tuple[int, int, int, int]
    card: str

    def to_json(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "card": self.card}


@dataclass(frozen=True)
class Verdict:
    """The referee's answer to a claim.

    ``code`` names the sentence ``oraklos.reasons.<code>`` in the catalogs and ``params`` fill
    it in (JSON values only: die indices, colour names such as ``"red"``, card letters).
    ``prediction`` is the true prediction found, or, for a refusal, ``None``.
    """

    valid: bool
    rule: Rule | None
    code: str
    params: Mapping[str, Any] = field(default_factory=dict)
    prediction: Prediction | None = None


CODES: tuple[str, ...] = (
    "valid",
    "not_four_dice",
    "no_such_die",
    "die_repeated",
    "hole_on_top",
    "lines_cross",
    "line_crosses_die",
    "corners_in_line",
    "die_inside",
    "wrong_order",
)
"""Every ``Verdict.code``: each is a sentence ``oraklos.reasons.<code>`` in every catalog."""


def predictions(dice: Sequence[Die], holes_allowed: bool = False) -> list[Prediction]:
    """Every true prediction on the table, each quadrilateral once, sorted by its dice."""
    return _Board(dice).true_predictions(holes_allowed)


def find(
    dice: Sequence[Die],
    card: str,
    either_direction: bool = False,
    holes_allowed: bool = False,
) -> Prediction | None:
    """A true prediction matching ``card`` (the first in the order of ``predictions``), or None."""
    wanted = _wanted(card, either_direction)
    for prediction in predictions(dice, holes_allowed):
        if prediction.card in wanted:
            return prediction
    return None


def check(
    dice: Sequence[Die],
    indices: Sequence[int],
    card: str | None = None,
    either_direction: bool = False,
    holes_allowed: bool = False,
) -> Verdict:
    """Judge a player's claim that the four dice ``indices`` (a set) make a true prediction,
    matching ``card`` if one is given.

    Valid when some quadrilateral on these dice is true (and matches); if several are, the
    verdict holds the first in the order of ``predictions``. Otherwise the reason is
    given for the quadrilateral the player most likely meant: with a card, the ways round whose
    colours read as the card come first (a bow-tie, having no clockwise, reads either way);
    then the one that got furthest through the rules, taken in order (holes, lines crossing
    each other, lines crossing dice, corners, heart, card); then the first of the three ways
    round the four dice.
    """
    wanted = _wanted(card, either_direction) if card is not None else None
    claim = _claim_problem(dice, indices)
    if claim is not None:
        return claim
    board = _Board(dice)
    chosen = tuple(sorted(int(i) for i in indices))
    if not holes_allowed:
        for i in chosen:
            if dice[i].hole:
                return Verdict(False, Rule.HOLES, "hole_on_top", board.die(i))
    best: tuple[tuple[int, int, int], Verdict] | None = None
    valid: list[Verdict] = []
    for rank, order in enumerate(board.ways_round(chosen)):
        prediction = board.prediction(order)
        matches = wanted is None or prediction.card in wanted
        stage, verdict = board.judge(prediction, matches, wanted)
        if verdict.valid:
            valid.append(verdict)
            continue
        meant = matches or (
            stage == _STAGE_LINES_CROSS
            and wanted is not None
            and deck.mirror(prediction.card) in wanted
        )
        key = (int(meant), stage, -rank)
        if best is None or key > best[0]:
            best = (key, verdict)
    if valid:
        return min(valid, key=lambda v: v.prediction.dice if v.prediction else ())
    assert best is not None
    return best[1]


# -- internals ------------------------------------------------------------------------------------

_STAGE_LINES_CROSS = 1
_STAGE_LINE_CROSSES_DIE = 2
_STAGE_CORNERS = 3
_STAGE_HEART = 4
_STAGE_CARD = 5
_STAGE_VALID = 6


def _wanted(card: str, either_direction: bool) -> frozenset[str]:
    card = deck.canonical(card)
    return frozenset({card, deck.mirror(card)} if either_direction else {card})


def _claim_problem(dice: Sequence[Die], indices: Sequence[int]) -> Verdict | None:
    if len(indices) != 4:
        return Verdict(False, Rule.CLAIM, "not_four_dice", {"count": len(indices)})
    seen: set[int] = set()
    for i in indices:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(dice):
            return Verdict(False, Rule.CLAIM, "no_such_die", {"die": i, "last": len(dice) - 1})
        if i in seen:
            return Verdict(False, Rule.CLAIM, "die_repeated", {"die": i})
        seen.add(i)
    return None


class _Board:
    """The dice of one throw with their footprints, and the rules applied to them."""

    def __init__(self, dice: Sequence[Die]) -> None:
        self.dice = list(dice)
        self.fps = [Footprint.of(die) for die in self.dice]
        self.points: list[Point] = [(die.x, die.y) for die in self.dice]

    def die(self, i: int, name: str = "die") -> dict[str, Any]:
        return {name: i, f"{name}_color": self.dice[i].color.value}

    def clockwise(self, order: Sequence[int]) -> tuple[int, int, int, int]:
        """The same quadrilateral run clockwise on screen, from its lowest index."""
        a, b, c, d = order
        if signed_area([self.points[i] for i in order]) < 0:
            a, b, c, d = a, d, c, b
        start = (a, b, c, d).index(min(order))
        rotated = (a, b, c, d)[start:] + (a, b, c, d)[:start]
        return rotated[0], rotated[1], rotated[2], rotated[3]

    def prediction(self, order: Sequence[int]) -> Prediction:
        ordered = self.clockwise(order)
        letters = "".join(self.dice[i].color.letter for i in ordered)
        return Prediction(ordered, deck.canonical(letters))

    @staticmethod
    def ways_round(chosen: Sequence[int]) -> list[tuple[int, int, int, int]]:
        """The three ways to join four dice in a closed loop (each up to direction)."""
        p, q, r, s = chosen
        return [(p, q, r, s), (p, q, s, r), (p, r, q, s)]

    def judge(
        self,
        prediction: Prediction,
        matches: bool,
        wanted: frozenset[str] | None,
    ) -> tuple[int, Verdict]:
        """How far one way round gets through rules 2 to 4 and the card, and the verdict."""
        a, b, c, d = prediction.dice
        pts = [self.points[i] for i in (a, b, c, d)]
        for (i, j), (k, m) in (((a, b), (c, d)), ((b, c), (d, a))):
            if lines_cross(self.points[i], self.points[j], self.points[k], self.points[m]):
                params = {**self.die(i, "a"), **self.die(j, "b")}
                params |= {**self.die(k, "c"), **self.die(m, "d")}
                return _STAGE_LINES_CROSS, Verdict(False, Rule.CROSSING, "lines_cross", params)
        for i, j in ((a, b), (b, c), (c, d), (d, a)):
            hit = blockers(self.fps, i, j)
            if hit:
                params = {**self.die(i, "a"), **self.die(j, "b"), **self.die(hit[0])}
                verdict = Verdict(False, Rule.CROSSING, "line_crosses_die", params)
                return _STAGE_LINE_CROSSES_DIE, verdict
        for before, corner, after in ((d, a, b), (a, b, c), (b, c, d), (c, d, a)):
            (px, py), (qx, qy) = self.points[before], self.points[after]
            if touches(px, py, qx, qy, self.fps[corner]):
                params = {**self.die(before, "a"), **self.die(corner, "b")}
                params |= self.die(after, "c")
                return _STAGE_CORNERS, Verdict(False, Rule.CORNERS, "corners_in_line", params)
        corners = {a, b, c, d}
        for k, (x, y) in enumerate(self.points):
            if k not in corners and inside(pts, x, y):
                return _STAGE_HEART, Verdict(False, Rule.HEART, "die_inside", self.die(k))
        if not matches:
            assert wanted is not None
            card = min(wanted)
            colors = [self.dice[i].color for i in (a, b, c, d)]
            shown = next(
                (card[k:] + card[:k] for k in range(4) if card[k] == colors[0].letter), card
            )
            params = {
                "order": [color.value for color in colors],
                "found": prediction.card,
                "card": card,
                "card_colors": [Color.from_letter(letter).value for letter in shown],
            }
            verdict = Verdict(False, Rule.CARD, "wrong_order", params, None)
            return _STAGE_CARD, verdict
        valid = Verdict(True, None, "valid", {"card": prediction.card}, prediction)
        return _STAGE_VALID, valid

    def true_predictions(self, holes_allowed: bool) -> list[Prediction]:
        """Every true prediction, sorted: the 4-cycles of clear lines that pass rules 2 to 4.

        Only clear lines (``geometry.clear_lines``) can be sides, so rule 2's die test is done
        once per pair. A loop a-b-c-d is visited once, from its lowest die a, with b < d its
        two neighbours; everything that depends on a, b, d only is decided before trying c.

        The four turns a→b→c, b→c→d, c→d→a, d→a→b decide the shape: all the same sign is a
        convex quadrilateral, three and one a concave one, two and two a bow-tie (its opposite
        sides cross: rule 2), and a zero turn puts three centres in line, which rule 2 or 3
        refuses anyway (a centre on a line touches its own footprint). The sign of the majority
        gives the direction round, positive being clockwise on screen. A turn is also twice the
        area of its triangle, so |turn| / |diagonal| is the corner's distance from the cord
        between its neighbours: only corners within reach of that cord get the exact test.
        """
        n = len(self.dice)
        fps = self.fps
        xs = [die.x for die in self.dice]
        ys = [die.y for die in self.dice]
        colors = [_COLOR_INDEX[die.color] for die in self.dice]
        usable = [holes_allowed or not die.hole for die in self.dice]
        clear = clear_lines(fps)
        neighbours = [{j for j in clear[i] if usable[j]} if usable[i] else set() for i in range(n)]
        right = _right_sides(xs, ys, neighbours)
        near = [(f.reach * 1.000001) ** 2 for f in fps]
        found: list[tuple[tuple[int, int, int, int], str]] = []
        for a in range(n):
            ax, ay, fa, right_a = xs[a], ys[a], fps[a], right[a]
            higher = sorted(j for j in neighbours[a] if j > a)
            for x, b in enumerate(higher):
                bx, by, fb, right_b = xs[b], ys[b], fps[b], right[b]
                common_b = neighbours[b]
                for d in higher[x + 1 :]:
                    dx, dy, fd, right_d = xs[d], ys[d], fps[d], right[d]
                    turn_a = (ax - dx) * (by - dy) - (ay - dy) * (bx - dx)
                    bd2 = (bx - dx) ** 2 + (by - dy) ** 2
                    if turn_a == 0 or (
                        turn_a * turn_a <= near[a] * bd2 and touches(dx, dy, bx, by, fa)
                    ):
                        continue
                    ear = right_d[a] & right_a[b]
                    back_ear = right_b[a] & right_a[d]
                    for c in common_b & neighbours[d]:
                        if c <= a:
                            continue
                        cx, cy = xs[c], ys[c]
                        turn_b = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
                        turn_c = (cx - bx) * (dy - by) - (cy - by) * (dx - bx)
                        turn_d = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
                        if turn_b == 0 or turn_c == 0 or turn_d == 0:
                            continue
                        turns = (turn_a > 0) + (turn_b > 0) + (turn_c > 0) + (turn_d > 0)
                        if turns == 2:
                            continue
                        ac2 = (ax - cx) ** 2 + (ay - cy) ** 2
                        if (
                            (turn_b * turn_b <= near[b] * ac2 and touches(ax, ay, cx, cy, fb))
                            or (
                                turn_c * turn_c <= near[c] * bd2 and touches(bx, by, dx, dy, fps[c])
                            )
                            or (turn_d * turn_d <= near[d] * ac2 and touches(cx, cy, ax, ay, fd))
                        ):
                            continue
                        right_c = right[c]
                        if turns == 4:
                            heart = ear & right_b[c] & right_c[d]
                        elif turns == 0:
                            heart = back_ear & right_d[c] & right_c[b]
                        elif turns == 3:
                            if turn_a < 0:
                                heart = right_b[c] & right_c[d] & (right_a[b] | right_d[a])
                            elif turn_b < 0:
                                heart = right_c[d] & right_d[a] & (right_b[c] | right_a[b])
                            elif turn_c < 0:
                                heart = right_d[a] & right_a[b] & (right_c[d] | right_b[c])
                            else:
                                heart = right_a[b] & right_b[c] & (right_d[a] | right_c[d])
                        elif turn_a > 0:
                            heart = right_d[c] & right_c[b] & (right_a[d] | right_b[a])
                        elif turn_b > 0:
                            heart = right_a[d] & right_d[c] & (right_b[a] | right_c[b])
                        elif turn_c > 0:
                            heart = right_b[a] & right_a[d] & (right_c[b] | right_d[c])
                        else:
                            heart = right_c[b] & right_b[a] & (right_d[c] | right_a[d])
                        if heart & ~((1 << a) | (1 << b) | (1 << c) | (1 << d)):
                            continue
                        if turns > 2:
                            code = colors[a] << 6 | colors[b] << 4 | colors[c] << 2 | colors[d]
                            found.append(((a, b, c, d), _CANONICAL[code]))
                        else:
                            code = colors[a] << 6 | colors[d] << 4 | colors[c] << 2 | colors[b]
                            found.append(((a, d, c, b), _CANONICAL[code]))
        found.sort()
        return [Prediction(order, card) for order, card in found]


def _right_sides(
    xs: Sequence[float], ys: Sequence[float], lines: Sequence[set[int]]
) -> list[dict[int, int]]:
    """For each line i→j in ``lines``, the dice strictly on its right on screen, as a bit mask.

    The inside of a quadrilateral run clockwise is on the right of its sides: all four sides
    for a convex one; for a concave one with its reflex corner r, the right of the two sides
    away from r and of at least one of the two sides at r. (Points on a side's own line do
    not matter: a centre on a side would make that side touch its die, and the centres of the
    loop's own corners are taken out of the mask by the caller.)
    """
    n = len(xs)
    right: list[dict[int, int]] = [{} for _ in range(n)]
    for i in range(n):
        xi, yi = xs[i], ys[i]
        for j in lines[i]:
            if j < i:
                continue
            ex, ey = xs[j] - xi, ys[j] - yi
            on_right = on_left = 0
            for k in range(n):
                side = ex * (ys[k] - yi) - ey * (xs[k] - xi)
                if side > 0:
                    on_right |= 1 << k
                elif side < 0:
                    on_left |= 1 << k
            right[i][j] = on_right
            right[j][i] = on_left
    return right


_COLOR_INDEX = {Color.from_letter(letter): i for i, letter in enumerate(deck.COLOR_LETTERS)}
_CANONICAL = [deck.canonical("".join(letters)) for letters in product(deck.COLOR_LETTERS, repeat=4)]
"""The canonical card of four colours, indexed by their ``_COLOR_INDEX`` in base 4."""
