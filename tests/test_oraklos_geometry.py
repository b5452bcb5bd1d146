"""Oraklos: what makes a true prediction (RULES.md §3), one rule clause per test.

Layouts are drawn in camera coordinates: x to the right, y DOWN. So (0, 0) is the top-left
corner of the picture, and "clockwise" is clockwise as seen on the screen.
"""

from __future__ import annotations

import dataclasses
from itertools import combinations, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oraklos_referee import reference, signed_area

from companion.games.oraklos.deck import WISH_CARDS, canonical
from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.predictions import (
    Prediction,
    Rule,
    Verdict,
    check,
    find,
    predictions,
)

COLORS = {"R": Color.RED, "Y": Color.YELLOW, "B": Color.BLUE, "K": Color.BLACK}


def die(
    x: float, y: float, color: str, size: float = 2.0, hole: bool = False, angle: float = 0.0
) -> Die:
    return Die(float(x), float(y), float(size), COLORS[color], hole, float(angle))


def square(hole: int | None = None) -> list[Die]:
    """Red top-left, yellow top-right, blue bottom-right, black bottom-left: clockwise on
    screen these read R, Y, B, K (the card BKRY). Die ``hole`` shows its hole."""
    corners = [die(0, 0, "R"), die(20, 0, "Y"), die(20, 20, "B"), die(0, 20, "K")]
    return [dataclasses.replace(d, hole=i == hole) for i, d in enumerate(corners)]


def on(found: list[Prediction], dice: set[int]) -> list[Prediction]:
    return [p for p in found if set(p.dice) == dice]


# -- matching a card ------------------------------------------------------------------------------


def test_a_square_of_four_dice_is_one_true_prediction_read_clockwise() -> None:
    assert predictions(square()) == [Prediction((0, 1, 2, 3), "BKRY")]


def test_clockwise_is_clockwise_on_screen_with_y_pointing_down() -> None:
    # Red at the top, yellow on the right, blue at the bottom, black on the left: on screen
    # (y down) the clock hand meets red, yellow, blue, black. With y up it would be the mirror.
    dice = [die(4, 0, "R"), die(2, 13, "B"), die(12, 6, "Y"), die(-5, 5, "K")]

    assert predictions(dice) == [Prediction((0, 2, 1, 3), canonical("RYBK"))]
    assert check(dice, [0, 1, 2, 3], "RYBK").valid
    assert not check(dice, [0, 1, 2, 3], "RKBY").valid


def test_a_card_matches_from_any_starting_corner() -> None:
    for card in ("RYBK", "YBKR", "BKRY", "KRYB"):
        assert find(square(), card) == Prediction((0, 1, 2, 3), "BKRY")
        assert check(square(), [3, 1, 0, 2], card).valid


def test_the_mirror_card_does_not_match() -> None:
    verdict = check(square(), [0, 1, 2, 3], "RKBY")

    assert find(square(), "RKBY") is None
    assert (verdict.valid, verdict.rule, verdict.code) == (False, Rule.CARD, "wrong_order")
    assert verdict.params["order"] == ["red", "yellow", "blue", "black"]
    assert verdict.params["card_colors"] == ["red", "black", "blue", "yellow"]


def test_the_either_direction_option_accepts_the_mirror_card() -> None:
    assert find(square(), "RKBY", either_direction=True) == Prediction((0, 1, 2, 3), "BKRY")
    assert check(square(), [0, 1, 2, 3], "RKBY", either_direction=True).valid


def test_a_card_with_other_colours_does_not_match() -> None:
    assert find(square(), "RRBK", either_direction=True) is None
    assert check(square(), [0, 1, 2, 3], "RRBK").rule is Rule.CARD


def test_without_a_card_any_true_prediction_is_valid() -> None:
    verdict = check(square(), [2, 0, 3, 1])

    assert verdict == Verdict(
        True, None, "valid", {"card": "BKRY"}, Prediction((0, 1, 2, 3), "BKRY")
    )


# -- convex and concave quadrilaterals ------------------------------------------------------------

# A red, yellow, blue triangle with the black die inside it, off the triangle's sides.
TRIANGLE = [die(0, 0, "R"), die(20, 0, "Y"), die(10, 20, "B"), die(10, 7, "K")]
NOTCH_RED_BLUE = Prediction((0, 1, 2, 3), canonical("RYBK"))  # R→Y→B→K: side B–R bent in
NOTCH_RED_YELLOW = Prediction((0, 3, 1, 2), canonical("RKYB"))  # R→K→Y→B: side R–Y bent in
NOTCH_YELLOW_BLUE = Prediction((0, 1, 3, 2), canonical("RYKB"))  # R→Y→K→B: side Y–B bent in


def test_one_die_inside_the_triangle_of_three_makes_three_concave_quadrilaterals() -> None:
    assert predictions(TRIANGLE) == [NOTCH_RED_BLUE, NOTCH_YELLOW_BLUE, NOTCH_RED_YELLOW]


def test_each_concave_quadrilateral_matches_its_own_card() -> None:
    for prediction in (NOTCH_RED_BLUE, NOTCH_RED_YELLOW, NOTCH_YELLOW_BLUE):
        verdict = check(TRIANGLE, [0, 1, 2, 3], prediction.card)
        assert verdict.prediction == prediction
    assert check(TRIANGLE, [0, 1, 2, 3], "RBYK").code == "wrong_order"


def test_a_die_in_a_notch_spoils_only_the_concave_quadrilaterals_around_it() -> None:
    # The fifth die sits in the triangle red-black-yellow: outside the quadrilateral whose
    # notch is there, inside the two others.
    dice = [*TRIANGLE, die(10, 3, "Y")]

    assert on(predictions(dice), {0, 1, 2, 3}) == [NOTCH_RED_YELLOW]
    verdict = check(dice, [0, 1, 2, 3], NOTCH_RED_BLUE.card)
    assert (verdict.rule, verdict.code, verdict.params["die"]) == (Rule.HEART, "die_inside", 4)


# -- rule 1: holes are profane --------------------------------------------------------------------


def test_holes_are_profane_a_die_showing_its_hole_cannot_be_a_corner() -> None:
    dice = square(hole=2)
    verdict = check(dice, [0, 1, 2, 3])

    assert predictions(dice) == []
    assert (verdict.rule, verdict.code) == (Rule.HOLES, "hole_on_top")
    assert dict(verdict.params) == {"die": 2, "die_color": "blue"}


def test_holes_allowed_makes_holes_sacred() -> None:
    dice = square(hole=2)

    assert predictions(dice, holes_allowed=True) == [Prediction((0, 1, 2, 3), "BKRY")]
    assert check(dice, [0, 1, 2, 3], holes_allowed=True).valid


def test_a_die_showing_its_hole_still_blocks_a_line() -> None:
    dice = [*square(), die(10, 0, "B", hole=True)]

    assert on(predictions(dice), {0, 1, 2, 3}) == []
    assert check(dice, [0, 1, 2, 3]).code == "line_crosses_die"


# -- rule 2: lines of fate do not cross -----------------------------------------------------------


def test_a_line_grazing_a_die_crosses_it() -> None:
    # The fifth die's footprint spans y from -2 to 0: its lower side lies on the red-yellow line.
    dice = [*square(), die(10, -1, "B")]
    verdict = check(dice, [0, 1, 2, 3])

    assert on(predictions(dice), {0, 1, 2, 3}) == []
    assert (verdict.valid, verdict.rule, verdict.code) == (False, Rule.CROSSING, "line_crosses_die")
    assert dict(verdict.params) == {
        "a": 0,
        "a_color": "red",
        "b": 1,
        "b_color": "yellow",
        "die": 4,
        "die_color": "blue",
    }


def test_a_line_just_clear_of_a_die_does_not_cross_it() -> None:
    dice = [*square(), die(10, -1.001, "B")]

    assert on(predictions(dice), {0, 1, 2, 3}) == [Prediction((0, 1, 2, 3), "BKRY")]


def test_a_turned_die_crosses_a_line_its_corner_reaches() -> None:
    # 1.3 from the line: clear when square to it (half side 1), crossed when turned by 45
    # degrees (its corners reach 1.41 from the centre).
    straight = [*square(), die(10, -1.3, "B")]
    turned = [*square(), die(10, -1.3, "B", angle=45)]

    assert check(straight, [0, 1, 2, 3]).valid
    verdict = check(turned, [0, 1, 2, 3])
    assert (verdict.code, verdict.params["die"]) == ("line_crosses_die", 4)


def test_a_die_straddling_a_side_is_a_crossed_line_not_an_impure_heart() -> None:
    dice = [*square(), die(19.5, 10, "R")]

    verdict = check(dice, [0, 1, 2, 3])
    assert (verdict.rule, verdict.code) == (Rule.CROSSING, "line_crosses_die")
    assert (verdict.params["a"], verdict.params["b"], verdict.params["die"]) == (1, 2, 4)


def test_a_line_may_not_cross_a_corner_of_its_own_quadrilateral() -> None:
    # Black inside the triangle, 0.5 from the red-yellow side: the loop red→yellow→blue→black
    # would be a fine concave quadrilateral but for its side red-yellow touching black.
    dice = [die(0, 0, "R"), die(20, 0, "Y"), die(10, 20, "B"), die(10, 0.5, "K")]

    assert predictions(dice) == []
    assert predictions([*dice[:3], die(10, 1.5, "K")]) == [
        NOTCH_RED_BLUE,
        NOTCH_YELLOW_BLUE,
        NOTCH_RED_YELLOW,
    ]


def test_lines_of_fate_do_not_cross_each_other_so_a_bow_tie_is_never_a_prediction() -> None:
    # A die on the red-yellow side spoils the square; the bow-tie red→blue→yellow→black has
    # four clear lines, but two of them cross in the middle.
    dice = [*square(), die(10, 0, "B")]

    assert on(predictions(dice), {0, 1, 2, 3}) == []
    verdict = check(dice, [0, 1, 2, 3])
    assert (verdict.code, verdict.params["die"]) == ("line_crosses_die", 4)


def test_a_card_read_along_a_bow_tie_is_refused_because_its_lines_cross() -> None:
    verdict = check(square(), [0, 1, 2, 3], "RBYK")

    assert (verdict.rule, verdict.code) == (Rule.CROSSING, "lines_cross")
    lines = {(verdict.params["a"], verdict.params["b"]), (verdict.params["c"], verdict.params["d"])}
    assert lines == {(0, 2), (1, 3)}


# -- rule 3: the world has four corners -----------------------------------------------------------


def test_three_corners_in_line_do_not_make_a_corner() -> None:
    # Yellow lies on the line from red to blue.
    dice = [die(0, 0, "R"), die(10, 0, "Y"), die(20, 0, "B"), die(10, 10, "K")]
    verdict = check(dice, [0, 1, 2, 3])

    assert predictions(dice) == []
    assert (verdict.rule, verdict.code) == (Rule.CORNERS, "corners_in_line")
    assert (verdict.params["a"], verdict.params["b"], verdict.params["c"]) == (0, 1, 2)


def test_three_corners_are_in_line_when_the_cord_between_two_touches_the_third() -> None:
    # Yellow is 1 off the red-blue line; its footprint (half side 1) touches it.
    dice = [die(0, 0, "R"), die(10, -1, "Y"), die(20, 0, "B"), die(10, 10, "K")]

    assert predictions(dice) == []
    assert check(dice, [0, 1, 2, 3]).code == "corners_in_line"


def test_nearly_in_line_but_clear_is_a_corner() -> None:
    dice = [die(0, 0, "R"), die(10, -1.01, "Y"), die(20, 0, "B"), die(10, 10, "K")]

    assert predictions(dice) == [Prediction((0, 1, 2, 3), canonical("RYBK"))]


def test_a_reflex_corner_too_close_to_the_cord_between_its_neighbours_is_in_line() -> None:
    # Black inside the triangle, 0.9 below the red-yellow side: bent in at black, the loop
    # red→black→yellow→blue has black's footprint on the cord red-yellow.
    dice = [die(0, 0, "R"), die(20, 0, "Y"), die(10, 20, "B"), die(10, 0.9, "K")]
    verdict = check(dice, [0, 1, 2, 3], NOTCH_RED_YELLOW.card)

    assert predictions(dice) == []
    assert (verdict.rule, verdict.code) == (Rule.CORNERS, "corners_in_line")
    assert (verdict.params["a"], verdict.params["b"], verdict.params["c"]) == (0, 3, 1)


# -- rule 4: the heart is pure --------------------------------------------------------------------


def test_a_die_inside_makes_the_heart_impure() -> None:
    dice = [*square(), die(10, 10, "K")]
    verdict = check(dice, [0, 1, 2, 3])

    assert on(predictions(dice), {0, 1, 2, 3}) == []
    assert (verdict.rule, verdict.code) == (Rule.HEART, "die_inside")
    assert dict(verdict.params) == {"die": 4, "die_color": "black"}


@pytest.mark.parametrize("inner", [(24, 22), (16, 6)])
@pytest.mark.parametrize("labels", list(permutations(range(4))))
def test_a_die_inside_a_concave_quadrilateral_on_either_side_of_its_reflex_corner(
    inner: tuple[int, int], labels: tuple[int, ...]
) -> None:
    # Red, yellow, blue triangle bent in at black: the loop red→yellow→blue→black. The inner
    # die is inside it, on the inner side of only one of the two lines at black: (24, 22) of
    # blue-black, (16, 6) of black-red. The dice are numbered in every order.
    corners = [die(0, 0, "R"), die(40, 0, "Y"), die(20, 40, "B"), die(20, 14, "K")]
    dice = [corners[labels.index(i)] for i in range(4)]
    loop = [labels[i] for i in range(4)]
    sides = {frozenset(pair) for pair in zip(loop, loop[1:] + loop[:1], strict=True)}

    def loops(found: list[Prediction]) -> list[set[frozenset[int]]]:
        return [
            {frozenset(p) for p in zip(q.dice, q.dice[1:] + q.dice[:1], strict=True)} for q in found
        ]

    crowded = [*dice, die(*inner, "K")]
    verdict = check(crowded, range(4), "RYBK")

    assert sides in loops(predictions(dice))
    assert sides not in loops(predictions(crowded))
    assert (verdict.code, verdict.params["die"]) == ("die_inside", 4)


def test_a_die_outside_does_not_touch_the_heart() -> None:
    dice = [*square(), die(30, 10, "K")]

    assert on(predictions(dice), {0, 1, 2, 3}) == [Prediction((0, 1, 2, 3), "BKRY")]


# -- claims ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("indices", "code", "params"),
    [
        ([0, 1, 2], "not_four_dice", {"count": 3}),
        ([0, 1, 2, 3, 3], "not_four_dice", {"count": 5}),
        ([0, 1, 2, 4], "no_such_die", {"die": 4, "last": 3}),
        ([0, 1, -1, 2], "no_such_die", {"die": -1, "last": 3}),
        ([0, 1, 1, 2], "die_repeated", {"die": 1}),
    ],
)
def test_a_claim_names_four_different_dice_of_the_throw(
    indices: list[int], code: str, params: dict[str, int]
) -> None:
    verdict = check(square(), indices)

    assert (verdict.valid, verdict.rule, verdict.code) == (False, Rule.CLAIM, code)
    assert dict(verdict.params) == params


def test_a_claim_is_a_set_of_dice_in_any_order() -> None:
    assert check(square(), [2, 3, 0, 1]) == check(square(), [0, 1, 2, 3])


def test_a_card_with_bad_letters_is_refused() -> None:
    with pytest.raises(ValueError, match="four colour letters"):
        check(square(), [0, 1, 2, 3], "RYBX")
    with pytest.raises(ValueError, match="four colour letters"):
        find(square(), "RYB")


# -- every prediction, each once ------------------------------------------------------------------

GRID = [
    die(x * 10, y * 10, "RYBK"[(x + 2 * y) % 4], angle=15 * x)
    for x in range(4)
    for y in range(3)
    if (x, y) != (1, 1)
]


def test_each_quadrilateral_appears_once_clockwise_from_its_lowest_die() -> None:
    found = predictions(GRID)

    loops = [frozenset(zip(p.dice, p.dice[1:] + p.dice[:1], strict=True)) for p in found]
    assert len(set(loops)) == len(found) > 0
    assert found == sorted(found, key=lambda p: p.dice)
    for p in found:
        assert p.dice[0] == min(p.dice)
        corners = [(GRID[i].x, GRID[i].y) for i in p.dice]
        assert signed_area(corners) > 0
        assert p.card == canonical("".join(GRID[i].color.letter for i in p.dice))


def test_check_agrees_with_the_list_of_predictions() -> None:
    found = predictions(GRID)
    for chosen in combinations(range(len(GRID)), 4):
        expected = on(found, set(chosen))
        verdict = check(GRID, chosen)
        assert verdict.valid == bool(expected)
        if verdict.valid:
            assert verdict.prediction == expected[0]


# -- the same answers as an obviously correct, slow referee ---------------------------------------

dice_strategy = st.builds(
    Die,
    x=st.integers(0, 16).map(float),
    y=st.integers(0, 16).map(float),
    size=st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.0]),
    color=st.sampled_from(list(Color)),
    hole=st.sampled_from([False, False, False, True]),
    angle=st.sampled_from([0.0, 0.0, 30.0, 45.0, 90.0]),
)


@settings(max_examples=200, deadline=None)
@given(dice=st.lists(dice_strategy, min_size=5, max_size=9), holes_allowed=st.booleans())
def test_predictions_are_exactly_those_of_a_brute_force_referee(
    dice: list[Die], holes_allowed: bool
) -> None:
    assert predictions(dice, holes_allowed) == reference(dice, holes_allowed)


@settings(max_examples=100, deadline=None)
@given(dice=st.lists(dice_strategy, min_size=4, max_size=8), card=st.sampled_from(WISH_CARDS))
def test_check_finds_a_claimed_set_true_exactly_when_predictions_lists_it(
    dice: list[Die], card: str
) -> None:
    found = predictions(dice)
    for chosen in combinations(range(len(dice)), 4):
        matching = [p for p in on(found, set(chosen)) if p.card == card]
        assert check(dice, chosen).valid == bool(on(found, set(chosen)))
        assert check(dice, chosen, card).prediction == (matching[0] if matching else None)
