"""Les 7 Sages: the rules of RULES.md §5 and the seed rulebook, one clause per test.

Positions are built by hand: ``position("h5 c3", "h12", fool="h8")`` puts Red's sages on h5 and
c3, Blue's on h12 and the fool on h8. Columns a to o run from Red's left, rows 1 to 15 from
Red's edge; Red's cité is f1 to j1, Blue's f15 to j15, the kingdom b2 to n14. The figures the
seed cites (Fig. 1 to 15) are missing from it: each test says which one it stands for, as the
text describes it.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Iterable, Iterator

import pytest

from companion.game import IllegalAction
from companion.games.sages import board
from companion.games.sages.board import (
    Side,
    Square,
    cite,
    in_barbarian_lands,
    in_kingdom,
    name,
    parse,
)
from companion.games.sages.engine import Sages
from companion.games.sages.fool import Flight, flights
from companion.games.sages.moves import (
    Move,
    Position,
    chases,
    find,
    legal_moves,
    refusal,
    sage_moves,
    scored,
)
from companion.games.sages.state import (
    STANDARD_BLUE,
    STANDARD_RED,
    AgreeDraw,
    MoveSage,
    Phase,
    Place,
    Reason,
    SagesState,
    TimeUp,
    standard_start,
)
from tests import engine_steps as steps

GAME = Sages()
play = functools.partial(steps.play, GAME)
refused = functools.partial(steps.refused, GAME)
kinds = steps.kinds
only = steps.only
RED, BLUE = Side.RED, Side.BLUE


# -- helpers --------------------------------------------------------------------------------------


def squares(names: str) -> frozenset[int]:
    return frozenset(parse(n) for n in names.split())


def position(red: str = "", blue: str = "", fool: str = "h8") -> Position:
    return Position(squares(red), squares(blue), parse(fool))


def names(found: Iterable[int]) -> set[str]:
    return {name(s) for s in found}


def column_of(letter: str, rows: Iterable[int]) -> set[str]:
    return {f"{letter}{r}" for r in rows}


def row_of(number: int, letters: str) -> set[str]:
    return {f"{c}{number}" for c in letters}


def destinations(pos: Position, side: Side, sage: str) -> set[str]:
    """Where the sage on ``sage`` may go without chasing the fool."""
    return {name(m.to) for m in sage_moves(pos, side) if m.frm == parse(sage)}


def ends(pos: Position, side: Side, chaser: str) -> dict[str, Flight]:
    """Where the fool may end when the sage on ``chaser`` chases it, and the flight there."""
    out: dict[str, Flight] = {}
    for move in chases(pos, side):
        if move.frm == parse(chaser):
            assert move.to == pos.fool and move.flight is not None
            out[name(move.flight.end)] = move.flight
    return out


def path(flight: Flight) -> list[str]:
    return [name(s) for s in flight.path]


def reflectors(flight: Flight) -> list[str]:
    return [name(s) for s in flight.reflectors]


def why(pos: Position, side: Side, sage: str, to: str, fool_to: str | None = None) -> str:
    """The refusal of a move the rules forbid (and a check that it is indeed not legal)."""
    target = None if fool_to is None else parse(fool_to)
    assert find(pos, side, parse(sage), parse(to), target) is None
    return refusal(pos, side, parse(sage), parse(to), target)


def playing(pos: Position, to_move: Side = RED, **options: object) -> SagesState:
    """A match (standard starting squares unless ``options`` say otherwise) at ``pos``."""
    return dataclasses.replace(GAME.new(options, seed=0), position=pos, to_move=to_move)


def move(side: Side, sage: str, to: str, fool_to: str | None = None) -> MoveSage:
    return MoveSage(
        side.seat,
        Square(parse(sage)),
        Square(parse(to)),
        None if fool_to is None else Square(parse(fool_to)),
    )


# -- the board ------------------------------------------------------------------------------------


def test_the_board_has_225_squares_named_a1_to_o15() -> None:
    assert board.SIZE == 15
    every = [name(s) for s in range(225)]
    assert len(set(every)) == 225
    assert every[0] == "a1" and every[-1] == "o15" and name(board.CENTRE) == "h8"
    assert all(parse(n) == s for s, n in enumerate(every))
    for bad in ("p1", "a0", "a16", "h", "", "8h", "hh"):
        with pytest.raises(ValueError):
            parse(bad)


def test_the_kingdom_is_the_13_by_13_squares_inside_the_outer_ring() -> None:
    kingdom = {s for s in range(225) if in_kingdom(s)}
    assert len(kingdom) == 13 * 13
    assert names(kingdom) == {f"{c}{r}" for c in "bcdefghijklmn" for r in range(2, 15)}


def test_each_cite_is_the_five_middle_squares_of_its_home_edge_row() -> None:
    assert names(cite(RED)) == row_of(1, "fghij")
    assert names(cite(BLUE)) == row_of(15, "fghij")
    assert not any(in_kingdom(s) or in_barbarian_lands(s) for s in cite(RED) | cite(BLUE))


def test_the_barbarian_lands_are_the_outer_ring_less_the_two_cites() -> None:
    lands = {s for s in range(225) if in_barbarian_lands(s)}
    ring = {s for s in range(225) if not in_kingdom(s)}
    assert len(ring) == 56
    assert lands == ring - cite(RED) - cite(BLUE)
    assert len(lands) == 46
    assert {"a1", "a8", "o15", "e1", "k1", "e15", "k15"} <= names(lands)


# -- the sages' own moves (Fig. 1, 2) -------------------------------------------------------------


def test_a_sage_goes_any_distance_straight_or_diagonally_forward_six_directions() -> None:
    """Fig. 1. Red's forward is up the rows; the fool on n12 is on none of e5's lines."""
    pos = position("e5", "", fool="n12")
    assert destinations(pos, RED, "e5") == (
        column_of("e", range(6, 16))  # forward
        | column_of("e", range(1, 5))  # straight back
        | row_of(5, "abcd")
        | row_of(5, "fghijklmno")
        | {"f6", "g7", "h8", "i9", "j10", "k11", "l12", "m13", "n14", "o15"}
        | {"d6", "c7", "b8", "a9"}
    )


def test_blues_forward_is_down_the_rows() -> None:
    pos = position("", "e11", fool="n4")
    assert destinations(pos, BLUE, "e11") == (
        column_of("e", range(12, 16))
        | column_of("e", range(1, 11))
        | row_of(11, "abcd")
        | row_of(11, "fghijklmno")
        | {"f10", "g9", "h8", "i7", "j6", "k5", "l4", "m3", "n2", "o1"}
        | {"d10", "c9", "b8", "a7"}
    )


@pytest.mark.parametrize(
    ("side", "sage", "to"), [(RED, "e5", "d4"), (RED, "e5", "g3"), (BLUE, "e11", "f12")]
)
def test_a_sage_never_moves_diagonally_backward(side: Side, sage: str, to: str) -> None:
    pos = position("e5" if side is RED else "", "e11" if side is BLUE else "", fool="n8")
    assert why(pos, side, sage, to) == "sages_wrong_direction"


def test_a_sage_moves_only_in_straight_lines() -> None:
    pos = position("e5", "", fool="n12")
    assert why(pos, RED, "e5", "f7") == "sages_wrong_direction"
    assert why(pos, RED, "e5", "h9") == "sages_wrong_direction"


def test_no_piece_jumps_over_another() -> None:
    pos = position("e5 e3", "c5 g7", fool="g5")
    reach = destinations(pos, RED, "e5")
    assert {"e6", "e15", "d5", "f5", "f6", "e4"} <= reach
    assert not reach & {"e3", "e2", "c5", "b5", "g5", "h5", "g7", "h8"}
    assert why(pos, RED, "e5", "a5") == "sages_path_blocked"  # a Blue sage on c5
    assert why(pos, RED, "e5", "e1") == "sages_path_blocked"  # Red's own sage on e3
    assert why(pos, RED, "e5", "k5") == "sages_path_blocked"  # the fool on g5
    assert why(pos, RED, "e5", "i9") == "sages_path_blocked"


def test_one_piece_per_square_and_no_captures() -> None:
    pos = position("e5 e8", "h5", fool="n12")
    assert why(pos, RED, "e5", "e8") == "sages_square_taken"
    assert why(pos, RED, "e5", "h5") == "sages_square_taken"
    for move_ in legal_moves(pos, RED):
        assert move_.flight is None and not pos.occupied(move_.to)
    state, _ = play(playing(pos), move(RED, "e5", "g5"))
    assert state.position.blue == squares("h5")  # nothing was taken


def test_a_sage_may_cross_the_opponents_cite_but_never_stop_there() -> None:
    """Fig. 2: with no Blue defender home, Red's sage on e15 runs along row 15 through f15 to
    j15 and stops beyond, on k15 to o15."""
    pos = position("e15", "c13", fool="h8")
    reach = destinations(pos, RED, "e15")
    assert row_of(15, "klmno") <= reach
    assert not reach & row_of(15, "fghij")
    assert why(pos, RED, "e15", "g15") == "sages_no_stop_in_their_cite"
    assert why(position("g12", "", fool="n8"), RED, "g12", "g15") == "sages_no_stop_in_their_cite"


def test_at_most_one_sage_of_a_side_stands_in_its_own_cite() -> None:
    pos = position("h1 g4", "", fool="n12")
    assert "g1" not in destinations(pos, RED, "g4")
    assert "g2" in destinations(pos, RED, "g4")
    assert why(pos, RED, "g4", "g1") == "sages_cite_taken"
    assert {"i1", "j1", "g1", "f1"} <= destinations(pos, RED, "h1")  # the defender may shift
    gone = position("h2 g4", "", fool="n12")
    assert "g1" in destinations(gone, RED, "g4")


def test_sages_may_go_into_the_barbarian_lands_and_on_from_there() -> None:
    pos = position("e5", "", fool="n12")
    assert {"a5", "o5", "e1", "e15", "o15", "a9"} <= destinations(pos, RED, "e5")
    out = position("a5", "", fool="n12")
    assert {"a1", "a15", "b5", "o5", "b6", "e9"} <= destinations(out, RED, "a5")


# -- chasing the fool (Fig. 3, 4) -----------------------------------------------------------------

EIGHT = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)]


def shifted(square: str, direction: tuple[int, int], times: int) -> str:
    s = parse(square)
    return name(s + times * (direction[0] + board.SIZE * direction[1]))


@pytest.mark.parametrize("direction", EIGHT)
@pytest.mark.parametrize("distance", [1, 3])
def test_a_sage_chases_the_fool_from_any_distance_along_eight_directions(
    direction: tuple[int, int], distance: int
) -> None:
    """Fig. 3, 4: like a queen at chess, backward diagonals included; the fool moves on in the
    direction it was chased."""
    chaser = shifted("h8", direction, -distance)
    beyond = shifted("h8", direction, 3)
    found = ends(position(chaser, beyond), RED, chaser)
    assert found
    for flight in found.values():
        assert path(flight)[:2] == ["h8", shifted("h8", direction, 1)]


def test_the_backward_diagonal_is_only_for_chasing() -> None:
    pos = position("k11", "e5", fool="h8")
    assert why(pos, RED, "k11", "j10") == "sages_wrong_direction"
    assert ends(pos, RED, "k11")  # the same line, onto the fool: allowed


def test_a_chase_needs_a_clear_line_to_the_fool() -> None:
    pos = position("h4 c8 e4", "h6 f8 l8", fool="h8")
    assert not ends(pos, RED, "h4")  # h6 stands between
    assert why(pos, RED, "h4", "h8", "h11") == "sages_cannot_reach_fool"
    assert not ends(pos, RED, "c8")  # f8 stands between...
    assert why(pos, RED, "c8", "h8", "k11") == "sages_cannot_reach_fool"
    assert ends(position("c8", "l8"), RED, "c8")  # ...and once it is gone, c8 may chase
    assert why(pos, RED, "e4", "h8", "k11") == "sages_cannot_reach_fool"  # off the fool's lines


def test_the_chaser_takes_the_fools_place() -> None:
    """ "Fou qui se fait chasser perd sa place." """
    state, events = play(playing(position("h5", "h12")), move(RED, "h5", "h8", "l11"))
    assert state.position == position("h8", "h12", fool="l11")
    chased = only(events, "chased").data
    assert chased["fool_path"] == ["h8", "h9", "h10", "h11", "i11", "j11", "k11", "l11"]
    assert chased["reflectors"] == ["h12"]
    assert state.to_move is BLUE


def test_sages_do_not_chase_each_other() -> None:
    pos = position("h5", "h7", fool="n12")
    assert why(pos, RED, "h5", "h7") == "sages_square_taken"
    assert not list(chases(pos, RED))


# -- the fool must meet a sage (Fig. 5) -----------------------------------------------------------


def test_a_fool_that_would_meet_no_sage_may_not_be_chased() -> None:
    """Fig. 5: chased east from e8, the fool would run into the barbarian lands unreflected."""
    pos = position("e8", "c12", fool="h8")
    assert not ends(pos, RED, "e8")
    assert why(pos, RED, "e8", "h8", "n8") == "sages_fool_meets_no_sage"


@pytest.mark.parametrize(
    ("chaser", "fool", "goal"),
    [("h6", "h8", "h15"), ("a8", "c10", "h15"), ("j3", "j10", "j15")],
)
def test_the_fool_enters_directly_when_nothing_stands_before_the_opponents_cite(
    chaser: str, fool: str, goal: str
) -> None:
    """Fig. 5's exception: no sage to meet, but a clear line straight into Blue's cité."""
    pos = position(chaser, "c13", fool=fool)
    found = ends(pos, RED, chaser)
    assert list(found) == [goal]
    assert found[goal].goal and found[goal].decisive is RED
    assert found[goal].reflectors == ()


def test_a_sage_on_the_line_to_the_cite_reflects_the_fool_instead() -> None:
    found = ends(position("h6", "h13"), RED, "h6")
    assert "h15" not in found
    assert {"h12", "b12", "n12"} <= set(found)


def test_no_direct_entry_into_ones_own_cite() -> None:
    """Chased down column h from h10, the fool's line runs into Red's own cité: no chase."""
    pos = position("h10", "c13", fool="h8")
    assert not ends(pos, RED, "h10")
    assert why(pos, RED, "h10", "h8", "h1") == "sages_fool_meets_no_sage"


# -- reflections (Fig. 6 to 12) -------------------------------------------------------------------

FIG_6 = position("h5", "h12")  # chased north from h5, the fool meets h12 and turns on h11


def test_a_fool_arriving_vertically_is_deviated_horizontally() -> None:
    """Fig. 6 (a)."""
    found = ends(FIG_6, RED, "h5")
    assert row_of(11, "bcdefg") | row_of(11, "ijklmn") <= set(found)
    assert path(found["l11"]) == ["h8", "h9", "h10", "h11", "i11", "j11", "k11", "l11"]
    assert reflectors(found["l11"]) == ["h12"]
    assert path(found["b11"])[-7:] == ["h11", "g11", "f11", "e11", "d11", "c11", "b11"]


def test_a_fool_arriving_horizontally_is_deviated_vertically() -> None:
    """Fig. 6 (b): chased east from e8, the fool meets l8 and turns on k8."""
    found = ends(position("e8", "l8"), RED, "e8")
    assert column_of("k", range(2, 8)) | column_of("k", range(9, 15)) <= set(found)
    assert path(found["k12"]) == ["h8", "i8", "j8", "k8", "k9", "k10", "k11", "k12"]
    assert "k15" not in found and "k1" not in found  # barbarian lands


def test_a_fool_arriving_diagonally_goes_off_on_the_perpendicular_diagonal_of_its_colour() -> None:
    """Fig. 7: chased north-east from e5, the fool meets l12 and turns on k11."""
    found = ends(position("e5", "l12"), RED, "e5")
    once = {end for end, flight in found.items() if len(flight.reflectors) == 1}
    assert {"l10", "m9", "n8", "j12", "i13", "h14"} <= once
    assert path(found["n8"]) == ["h8", "i9", "j10", "k11", "l10", "m9", "n8"]
    colour = (board.column(parse("h8")) + board.row(parse("h8"))) % 2
    for flight in found.values():
        for square in flight.path:
            assert (board.column(square) + board.row(square)) % 2 == colour


def test_the_fool_may_come_straight_back() -> None:
    """Fig. 8A: reflected by h12, the fool may return down column h."""
    found = ends(FIG_6, RED, "h5")
    assert path(found["h9"]) == ["h8", "h9", "h10", "h11", "h10", "h9"]
    diagonal = ends(position("e5", "l12"), RED, "e5")
    assert path(diagonal["j10"]) == ["h8", "i9", "j10", "k11", "j10"]


def test_the_fool_may_stop_beside_the_sage_that_reflected_it() -> None:
    """Fig. 8B."""
    found = ends(FIG_6, RED, "h5")
    assert path(found["h11"]) == ["h8", "h9", "h10", "h11"]
    assert reflectors(found["h11"]) == ["h12"]


def test_the_fool_stops_only_after_its_first_reflection() -> None:
    """The first reflection is compulsory: the fool ends nowhere on its way out to h11 unless it
    came back there after h12 reflected it."""
    for pos, chaser in ((FIG_6, "h5"), (position("e5", "l12"), "e5"), (position("e8", "l8"), "e8")):
        for flight in ends(pos, RED, chaser).values():
            assert flight.reflectors
    found = ends(FIG_6, RED, "h5")
    assert path(found["h10"]) == ["h8", "h9", "h10", "h11", "h10"]


def test_a_reflection_ignores_the_frontier() -> None:
    """Fig. 9: "la réflexion du sage ignore les frontières": a sage in the barbarian lands (a8)
    reflects the fool on b8, the kingdom's last square."""
    pos = position("g8", "a8", fool="d8")
    found = ends(pos, RED, "g8")
    assert column_of("b", range(2, 8)) | column_of("b", range(9, 15)) | {"b8"} <= set(found)
    assert reflectors(found["b12"]) == ["a8"]
    assert not ends(position("g8", "a3", fool="d8"), RED, "g8")  # nobody on a8: no chase


def test_a_sage_in_a_cite_reflects_the_fool() -> None:
    found = ends(position("h6", "h15"), RED, "h6")  # Blue's defender at home
    assert {"h14", "b14", "n14", "h10"} <= set(found)
    assert "h15" not in found


def test_a_simple_deviation_uses_one_sage() -> None:
    """Fig. 10: with one sage on its way, every flight is reflected by that one sage (the
    chaser aside: Fig. 12)."""
    for end, flight in ends(FIG_6, RED, "h5").items():
        assert flight.reflectors[0] == parse("h12"), end
        assert set(flight.reflectors) <= squares("h12 h8")


def test_a_multiple_deviation_uses_several_sages_in_one_move() -> None:
    """Fig. 11: h12 turns the fool east along row 11, m11 turns it up column l."""
    found = ends(position("h5 m11", "h12"), RED, "h5")
    assert path(found["l13"]) == [
        "h8", "h9", "h10", "h11", "i11", "j11", "k11", "l11", "l12", "l13"
    ]  # fmt: skip
    assert reflectors(found["l13"]) == ["h12", "m11"]
    assert reflectors(found["l4"]) == ["h12", "m11"]


def test_further_reflections_are_optional() -> None:
    """After the first reflection the fool may stop anywhere on its way, before the next sage."""
    found = ends(position("h5 m11", "h12"), RED, "h5")
    assert reflectors(found["j11"]) == ["h12"]
    assert reflectors(found["l11"]) == ["h12"]  # beside m11, not reflected by it


def test_the_fool_is_reflected_by_sages_of_either_colour() -> None:
    """ "Pour le fou, les sages n'ont pas de couleur." """
    by_blue = ends(position("h5", "h12"), RED, "h5")
    by_red = ends(position("h5 h12", ""), RED, "h5")
    assert set(by_blue) == set(by_red)
    assert {end: path(f) for end, f in by_blue.items()} == {
        end: path(f) for end, f in by_red.items()
    }


def test_a_fool_coming_back_may_be_reflected_again_by_its_chaser() -> None:
    """Fig. 12: back down column h, the fool meets its chaser (now on h8) and turns on h9."""
    found = ends(FIG_6, RED, "h5")
    assert reflectors(found["c9"]) == ["h12", "h8"]
    assert path(found["c9"])[-6:] == ["h9", "g9", "f9", "e9", "d9", "c9"]
    assert set(found) == row_of(11, "bcdefghijklmn") | row_of(9, "bcdefghijklmn") | {"h10"}


def test_the_fool_never_enters_the_barbarian_lands() -> None:
    for pos, chaser in ((FIG_6, "h5"), (position("g8", "a8", fool="d8"), "g8")):
        for flight in ends(pos, RED, chaser).values():
            assert all(in_kingdom(s) for s in flight.path if not flight.goal or s != flight.end)
    found = ends(FIG_6, RED, "h5")
    assert "n11" in found and "o11" not in found


def test_the_fool_is_never_put_into_ones_own_cite() -> None:
    """ "Aucun sage n'introduira volontairement le fou dans sa propre cité." Chased west from
    l8, the fool meets e8 and turns on f8: up column f into Blue's cité, never down into Red's."""
    pos = position("l8", "e8")
    found = ends(pos, RED, "l8")
    assert {"f2", "f7", "f14", "f15"} <= set(found)
    assert "f1" not in found
    assert why(pos, RED, "l8", "h8", "f1") == "sages_fool_into_own_cite"
    mirrored = ends(position("e8", "l8"), BLUE, "l8")  # Blue chasing: the other way round
    assert {"f2", "f14", "f1"} <= set(mirrored)
    assert "f15" not in mirrored


# -- the rule of three (Fig. 13) ------------------------------------------------------------------


def test_three_sages_of_a_side_never_stand_side_by_side_in_a_row() -> None:
    """Fig. 13: "Deux sages amis discutent, trois se disputent." """
    pos = position("f5 g5 h3", "", fool="n12")
    assert "h5" not in destinations(pos, RED, "h3")
    assert why(pos, RED, "h3", "h5") == "sages_three_side_by_side"
    assert "e5" not in destinations(position("f5 g5 e2", "", fool="n12"), RED, "e2")


def test_three_sages_of_a_side_never_stand_side_by_side_in_a_column() -> None:
    pos = position("c6 c7 a8", "", fool="n12")
    assert why(pos, RED, "a8", "c8") == "sages_three_side_by_side"
    assert "c8" not in destinations(pos, RED, "a8")
    assert "b8" in destinations(pos, RED, "a8")


def test_three_sages_in_a_diagonal_or_with_a_gap_are_allowed() -> None:
    """Side by side means sharing sides (the engine's documented reading): corners do not count."""
    assert "e5" in destinations(position("c3 d4 e2", "", fool="n12"), RED, "e2")
    assert "f5" in destinations(position("c5 d5 f2", "", fool="n12"), RED, "f2")


def test_only_ones_own_sages_make_up_a_three() -> None:
    pos = position("c5 d5 e2", "f5", fool="n12")
    assert "e5" not in destinations(pos, RED, "e2")  # c5 d5 e5: three reds
    assert "b5" not in destinations(position("c5 d5 b2", "e5", fool="n12"), RED, "b2")
    mixed = position("c5 f2", "d5 e5", fool="n12")
    assert "f5" in destinations(mixed, RED, "f2")  # c5 (red) d5 e5 (blue) f5 (red)


def test_three_into_ones_own_cite_is_still_three() -> None:
    pos = position("g2 g3 e1", "", fool="n12")
    assert "g1" not in destinations(pos, RED, "e1")
    assert why(pos, RED, "e1", "g1") == "sages_three_side_by_side"


def test_the_rule_of_three_binds_a_chasing_sage_too() -> None:
    row = position("h5 f8 g8", "h12")
    assert not ends(row, RED, "h5")
    assert why(row, RED, "h5", "h8", "l11") == "sages_three_side_by_side"
    column = position("e5 h9 h10", "l12")
    assert not ends(column, RED, "e5")
    assert why(column, RED, "e5", "h8", "n8") == "sages_three_side_by_side"


# -- scoring (Fig. 14, 15) ------------------------------------------------------------------------


def test_a_direct_entry_after_ones_own_chase_is_worth_two() -> None:
    """Fig. 14."""
    state, events = play(playing(position("h6", "c13")), move(RED, "h6", "h8", "h15"))
    assert only(events, "point").data == {"seat": 0, "points": 2, "score": [2, 0]}
    assert state.score == (2, 0)


def test_a_last_deviation_by_ones_own_sage_is_worth_two() -> None:
    pos = position("e5 l12", "c13")
    flight = ends(pos, RED, "e5")["g15"]
    assert flight.decisive is RED and reflectors(flight) == ["l12"]
    state, _ = play(playing(pos), move(RED, "e5", "h8", "g15"))
    assert state.score == (2, 0)


def test_a_last_deviation_by_an_opponents_sage_is_worth_one() -> None:
    """Fig. 15: Blue's l12 sends the fool into Blue's own cité: Red scores, but only one."""
    pos = position("e5", "l12")
    flight = ends(pos, RED, "e5")["g15"]
    assert flight.decisive is BLUE
    state, events = play(playing(pos), move(RED, "e5", "h8", "g15"))
    assert state.score == (1, 0)
    assert only(events, "point").data["points"] == 1


def test_the_decisive_sage_is_the_last_to_deviate_the_fool() -> None:
    """ "C'est le sage objet de la déviation déterminante qui sera pris en considération": Red's
    h11 turns the fool east, Blue's k10 turns it up column j into Blue's cité: one point."""
    pos = position("h6 h11", "k10 c13")
    flight = ends(pos, RED, "h6")["j15"]
    assert reflectors(flight) == ["h11", "k10"]
    assert flight.decisive is BLUE
    assert scored(Move(parse("h6"), parse("h8"), flight), RED) == 1


def test_when_both_are_possible_the_mover_gets_the_better_goal() -> None:
    """j15 is reachable through Blue's k10 last (one point) or, turning down column j and back
    off Red's j6, through Red's own sage last (two): a chase named by its end keeps the two."""
    only_blue = ends(position("h6", "h11 k10"), RED, "h6")["j15"]
    assert only_blue.decisive is BLUE
    both = ends(position("h6 j6", "h11 k10"), RED, "h6")["j15"]
    assert both.decisive is RED
    assert reflectors(both) == ["h11", "k10", "j6"]
    state, _ = play(playing(position("h6 j6", "h11 k10")), move(RED, "h6", "h8", "j15"))
    assert state.score == (2, 0)


def test_blue_scores_in_reds_cite() -> None:
    state, events = play(playing(position("c3", "h10"), BLUE), move(BLUE, "h10", "h8", "h1"))
    assert state.score == (0, 2)
    assert only(events, "point").data["seat"] == 1


# -- rounds and the match -------------------------------------------------------------------------


def test_red_starts_the_match() -> None:
    state = GAME.new({}, seed=0)
    assert state.to_move is RED and state.phase is Phase.PLAY
    assert list(GAME.legal_actions(state, 1)) == []
    assert list(GAME.legal_actions(state, 0))
    blue_move = move(BLUE, "h15", "g14")
    assert refused(state, blue_move).code == "sages_not_your_turn"


def test_turns_alternate() -> None:
    state, _ = play(GAME.new({}, seed=0), move(RED, "d3", "d4"))
    assert state.to_move is BLUE
    state, _ = play(state, move(BLUE, "d13", "d12"))
    assert state.to_move is RED and state.moves == 2


def test_after_a_point_the_pieces_go_back_and_the_loser_starts_the_next_round() -> None:
    state, events = play(playing(position("h6", "c13")), move(RED, "h6", "h8", "h15"))
    assert state.position == standard_start()
    assert state.to_move is BLUE and state.first is BLUE
    assert state.round == 2 and state.moves == 0
    assert only(events, "round_started").data == {"round": 2, "first": 1}
    state, _ = play(
        dataclasses.replace(state, position=position("c3", "h10")), move(BLUE, "h10", "h8", "h1")
    )
    assert state.to_move is RED and state.first is RED and state.round == 3
    assert state.score == (2, 2)


def test_the_match_is_won_at_five_points() -> None:
    near = dataclasses.replace(playing(position("e5", "l12")), score=(4, 3))
    state, events = play(near, move(RED, "e5", "h8", "g15"))  # one point: 5
    assert state.phase is Phase.OVER
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == "red"
    assert only(events, "match_won").data == {"seat": 0, "score": [5, 3]}
    assert GAME.public_view(state)["winner"] == 0
    not_yet = dataclasses.replace(playing(position("e5", "l12")), score=(3, 4))
    state, _ = play(not_yet, move(RED, "e5", "h8", "g15"))
    assert state.phase is Phase.PLAY and GAME.outcome(state) is None


def test_the_target_is_an_option() -> None:
    short = playing(position("h6", "c13"), target=2)
    state, _ = play(short, move(RED, "h6", "h8", "h15"))
    assert state.phase is Phase.OVER
    for bad in (0, 16, "5", True):
        with pytest.raises(IllegalAction) as caught:
            GAME.new({"target": bad}, seed=0)
        assert caught.value.code == "sages_number_range"


def test_nothing_is_played_after_the_end() -> None:
    state, _ = play(playing(position("h6", "c13"), target=2), move(RED, "h6", "h8", "h15"))
    assert list(GAME.legal_actions(state, 0)) == list(GAME.legal_actions(state, 1)) == []
    assert refused(state, move(BLUE, "h15", "g14")).code == "game_over"
    assert refused(state, move(RED, "d3", "d4")).code == "game_over"
    assert GAME.public_view(state)["to_move"] is None


def test_a_player_with_no_legal_move_passes() -> None:
    """Documented choice: the turn goes back to the other player."""
    state, events = play(playing(position("c3", "")), move(RED, "c3", "c4"))
    assert only(events, "no_move").data == {"seat": 1}
    assert state.to_move is RED


def test_a_round_where_nobody_can_move_is_replayed() -> None:
    stuck = playing(position("", ""), hourglass=30)
    state, events = play(stuck, TimeUp(0))
    assert "round_replayed" in kinds(events)
    assert state.position == standard_start() and state.to_move is RED and state.score == (0, 0)


# -- a match that loops: options draw_by_agreement and repetition --------------------------------
#
# The seed ends a match only with « Le gagnant de la partie sera celui qui, le premier, obtiendra
# une somme d'avantages d'au moins 5 points. »: it has no end for a match that loops. Both ways
# out are options, off by default.

LOOP = [  # from the standard squares, back to them with Red to move
    move(RED, "d3", "d4"),
    move(BLUE, "d13", "d12"),
    move(RED, "d4", "d3"),
    move(BLUE, "d12", "d13"),
]


def test_without_the_options_a_looping_match_goes_on() -> None:
    state = GAME.new({}, seed=0)
    state, events = play(state, *LOOP, *LOOP, *LOOP)
    assert state.position == standard_start() and state.to_move is RED
    assert state.phase is Phase.PLAY and state.outcome is None and state.round == 1
    assert not {"round_drawn", "match_drawn"} & set(kinds(events))
    assert GAME.public_view(state)["repeats"] == 0


def test_there_is_no_agreed_draw_unless_the_host_chose_it() -> None:
    state = GAME.new({}, seed=0)
    assert list(GAME.legal_actions(state, None)) == []
    assert refused(state, AgreeDraw()).code == "sages_no_draw_by_agreement"
    assert GAME.public_view(state)["may_agree_draw"] is False


def test_an_agreed_draw_ends_the_match_with_no_winner() -> None:
    """Option ``draw_by_agreement``: the players agree, the host enters it (it is no seat's
    move), and the match ends drawn, the score as it stood."""
    state = dataclasses.replace(GAME.new({"draw_by_agreement": True}, seed=0), score=(3, 4))
    state, _ = play(state, move(RED, "d3", "d4"))
    assert list(GAME.legal_actions(state, None)) == [AgreeDraw()]
    assert GAME.public_view(state)["may_agree_draw"] is True
    state, events = play(state, AgreeDraw())
    assert only(events, "match_drawn").data == {
        "reason": "draw_agreed",
        "round": 1,
        "score": [3, 4],
    }
    assert state.phase is Phase.OVER and state.score == (3, 4)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("draw", Reason.DRAW_AGREED)
    view = GAME.public_view(state)
    assert view["winner"] is None and view["drawn"] == "draw_agreed"
    assert view["to_move"] is None and view["may_agree_draw"] is False
    assert list(GAME.legal_actions(state, None)) == list(GAME.legal_actions(state, 1)) == []
    assert refused(state, move(BLUE, "d13", "d12")).code == "game_over"
    assert refused(state, AgreeDraw()).code == "game_over"


def test_an_agreed_draw_waits_for_the_sages_to_be_placed() -> None:
    state = GAME.new({"layout": "free", "draw_by_agreement": True}, seed=0)
    assert list(GAME.legal_actions(state, None)) == []
    assert refused(state, AgreeDraw()).code == "sages_placing_now"


def test_a_third_repetition_draws_the_round_with_repetition_round() -> None:
    """Option ``repetition`` "round": the same position with the same player to move, a third
    time, ends the round with no point; it is replayed from the starting squares by the player
    who started it, as a round where nobody can move is."""
    start = dataclasses.replace(GAME.new({"repetition": "round"}, seed=0), score=(1, 2))
    state, events = play(start, *LOOP)
    assert state.repeats == 2 and GAME.public_view(state)["repeats"] == 2
    state, events = play(state, *LOOP[:3])
    assert "round_drawn" not in kinds(events)
    state, events = play(state, LOOP[3])
    assert only(events, "round_drawn").data == {"round": 1, "first": 0}
    assert state.position == standard_start() and state.to_move is RED and state.moves == 0
    assert state.phase is Phase.PLAY and state.score == (1, 2) and state.round == 1
    assert state.repeats == 1  # counted again from the replayed round's start


def test_a_third_repetition_draws_the_match_with_repetition_match() -> None:
    """Option ``repetition`` "match": the third repetition ends the match drawn."""
    start = dataclasses.replace(GAME.new({"repetition": "match"}, seed=0), score=(4, 4))
    state, events = play(start, *LOOP, *LOOP)
    assert only(events, "match_drawn").data == {
        "reason": "repetition",
        "round": 1,
        "score": [4, 4],
    }
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("draw", Reason.REPETITION)
    assert GAME.public_view(state)["drawn"] == "repetition"
    assert refused(state, LOOP[0]).code == "game_over"


def test_the_same_squares_with_the_other_player_to_move_are_another_position() -> None:
    """Passing the turn (the hourglass) leaves the squares as they were: with Blue to move it
    is a position of its own, counted apart from the one with Red to move."""
    state = GAME.new({"repetition": "match", "hourglass": 30}, seed=0)
    state, _ = play(state, TimeUp(0), TimeUp(1), TimeUp(0))
    assert state.to_move is BLUE and state.repeats == 2 and state.phase is Phase.PLAY
    state, events = play(state, TimeUp(1))
    assert state.to_move is RED and "match_drawn" in kinds(events)


def test_a_point_starts_the_count_again() -> None:
    state = playing(position("h6", "c13"), repetition="match")
    state = dataclasses.replace(state, seen=((state.position, RED),) * 2)
    state, events = play(state, move(RED, "h6", "h8", "h15"))
    assert "point" in kinds(events) and state.phase is Phase.PLAY
    assert state.seen == ((standard_start(), BLUE),)


def test_the_draw_options_are_checked() -> None:
    options = GAME.options_json(GAME.new({}, seed=0))
    assert (options["draw_by_agreement"], options["repetition"]) == (False, "off")
    for bad, code in (
        ({"draw_by_agreement": "yes"}, "option_not_boolean"),
        ({"repetition": "third"}, "unknown_option_value"),
        ({"repetition": 3}, "unknown_option_value"),
    ):
        with pytest.raises(IllegalAction) as caught:
            GAME.new(bad, seed=0)
        assert caught.value.code == code
    chosen = GAME.new({"draw_by_agreement": True, "repetition": "round"}, seed=0)
    assert GAME.new(GAME.options_json(chosen), seed=0) == chosen


# -- the standard layout --------------------------------------------------------------------------


def test_the_standard_layout_puts_one_sage_in_each_cite_and_the_fool_on_h8() -> None:
    start = standard_start()
    assert len(start.red) == len(start.blue) == 7
    assert names(start.red) == set(STANDARD_RED) and names(start.blue) == set(STANDARD_BLUE)
    assert len(start.red & cite(RED)) == 1 and len(start.blue & cite(BLUE)) == 1
    assert name(start.fool) == "h8"
    assert GAME.new({}, seed=0).position == start


def test_the_standard_layout_is_the_same_for_both_sides() -> None:
    start = standard_start()
    mirror = {name(s)[0] + str(16 - int(name(s)[1:])) for s in start.red}
    assert names(start.blue) == mirror


def test_the_standard_layout_has_no_three_side_by_side() -> None:
    start = standard_start()
    for side in Side:
        for square in start.sages(side):
            col, row = board.column(square), board.row(square)
            for dc, dr in ((1, 0), (0, 1)):
                line = {board.at(col + k * dc, row + k * dr) for k in range(3)}
                assert not line <= start.sages(side)


@pytest.mark.parametrize("side", [RED, BLUE])
def test_nobody_can_score_on_the_first_move(side: Side) -> None:
    moves = legal_moves(standard_start(), side)
    assert moves and any(m.flight for m in moves)
    assert all(scored(m, side) == 0 for m in moves)


# -- free placement and custom layouts ------------------------------------------------------------


def place(side: Side, square: str) -> Place:
    return Place(side.seat, Square(parse(square)))


RED_PLACES = ["c3", "e5", "g4", "j6", "l3", "n5", "h1"]
BLUE_PLACES = ["c13", "e11", "g12", "j10", "l13", "n11", "i15"]


def test_free_placement_red_first_in_turn_then_red_moves() -> None:
    state = GAME.new({"layout": "free"}, seed=0)
    assert state.phase is Phase.PLACE and state.to_move is RED
    for red, blue in zip(RED_PLACES, BLUE_PLACES, strict=True):
        state, _ = play(state, place(RED, red))
        assert state.to_move is BLUE
        state, events = play(state, place(BLUE, blue))
    assert "round_started" in kinds(events)
    assert state.phase is Phase.PLAY and state.to_move is RED
    expected = position(" ".join(RED_PLACES), " ".join(BLUE_PLACES))
    assert state.position == expected and state.start == expected


def test_free_placement_is_the_start_of_every_round() -> None:
    state = GAME.new({"layout": "free"}, seed=0)
    for red, blue in zip(RED_PLACES, BLUE_PLACES, strict=True):
        state, _ = play(state, place(RED, red), place(BLUE, blue))
    placed = state.position
    state, _ = play(
        dataclasses.replace(state, position=position("h6", "c13")), move(RED, "h6", "h8", "h15")
    )
    assert state.position == placed


PLACEMENT = (
    "Chaque joueur dispose ses pions sur le jeu : un sage dans la cité, les six autres à travers "
    "le royaume, le fou est placé au centre du damier ; la partie commence."
)


def test_free_placement_one_sage_in_the_cite_the_six_others_anywhere_in_the_kingdom() -> None:
    """« un sage dans la cité, les six autres à travers le royaume »: the whole kingdom, the
    opponent's side of it included, and one's own cité; never the barbarian lands."""
    state = GAME.new({"layout": "free"}, seed=0)
    placeable = {a.square.index for a in GAME.legal_actions(state, 0) if isinstance(a, Place)}
    assert placeable == (board.kingdom() - {parse("h8")}) | cite(RED)
    state, _ = play(state, place(RED, "h12"), place(BLUE, "c3"), place(RED, "n14"))
    state, _ = play(state, place(BLUE, "b2"))
    assert names(state.position.red) == {"h12", "n14"}
    assert names(state.position.blue) == {"c3", "b2"}


def test_free_placement_refusals() -> None:
    state = GAME.new({"layout": "free", "hourglass": 30}, seed=0)
    assert refused(state, place(RED, "h8")).code == "sages_square_taken"  # the fool
    assert refused(state, place(RED, "a3")).code == "sages_place_in_the_kingdom"  # barbarians
    assert refused(state, place(RED, "h15")).code == "sages_place_in_the_kingdom"  # Blue's cité
    assert refused(state, move(RED, "c3", "c4")).code == "sages_placing_now"
    assert refused(state, TimeUp(0)).code == "sages_placing_now"
    state, _ = play(state, place(RED, "h1"), place(BLUE, "c13"))
    assert refused(state, place(RED, "g1")).code == "sages_cite_taken"
    assert refused(state, place(RED, "c13")).code == "sages_square_taken"
    state, _ = play(state, place(RED, "c3"), place(BLUE, "d13"))
    state, _ = play(state, place(RED, "d3"), place(BLUE, "c11"))
    assert refused(state, place(RED, "e3")).code == "sages_three_side_by_side"


def test_free_placement_in_halves_keeps_each_side_in_its_own_half() -> None:
    """Option ``placement`` "halves" (not the seed's rule, which says « à travers le
    royaume »): Red on rows 2-7, Blue on rows 9-14, each with one sage in its cité."""
    state = GAME.new({"layout": "free", "placement": "halves"}, seed=0)
    placeable = {a.square.index for a in GAME.legal_actions(state, 0) if isinstance(a, Place)}
    assert placeable == board.half(RED) | cite(RED)
    assert refused(state, place(RED, "h10")).code == "sages_place_in_your_half"
    assert refused(state, place(RED, "a3")).code == "sages_place_in_your_half"
    state, _ = play(state, place(RED, "c3"))
    assert refused(state, place(BLUE, "c5")).code == "sages_place_in_your_half"
    state, _ = play(state, place(BLUE, "c13"))
    assert GAME.public_view(state)["placement"] == "halves"


def test_free_placement_is_in_the_kingdom_unless_the_host_chooses_halves() -> None:
    assert GAME.options_json(GAME.new({"layout": "free"}, seed=0))["placement"] == "kingdom"
    for bad in ("half", True, None):
        with pytest.raises(IllegalAction) as caught:
            GAME.new({"layout": "free", "placement": bad}, seed=0)
        assert caught.value.code == "unknown_option_value"


def test_free_placement_the_last_sage_goes_home() -> None:
    state = GAME.new({"layout": "free"}, seed=0)
    for red, blue in zip(RED_PLACES[:-1], BLUE_PLACES[:-1], strict=True):
        state, _ = play(state, place(RED, red), place(BLUE, blue))
    assert {a.square for a in GAME.legal_actions(state, 0) if isinstance(a, Place)} == {
        Square(s) for s in cite(RED)
    }
    assert refused(state, place(RED, "k6")).code == "sages_last_sage_to_cite"


def test_free_placement_three_side_by_side_into_the_cite_is_refused_as_three() -> None:
    """g2, g3 then g1 would make a column of three, though Red's cité is still empty."""
    state = GAME.new({"layout": "free"}, seed=0)
    state, _ = play(state, place(RED, "g2"), place(BLUE, "c13"), place(RED, "g3"))
    state, _ = play(state, place(BLUE, "d13"))
    placeable = {a.square for a in GAME.legal_actions(state, 0) if isinstance(a, Place)}
    assert Square(parse("g1")) not in placeable and Square(parse("h1")) in placeable
    assert refused(state, place(RED, "g1")).code == "sages_three_side_by_side", (
        "engine.placement_refusal says 'sages_cite_taken' for a cité square refused only by the "
        "rule of three: check `sages & cite(side)` before naming the cité"
    )


def test_placing_after_the_placement_is_refused() -> None:
    assert refused(GAME.new({}, seed=0), place(RED, "c4")).code == "sages_placement_over"


CUSTOM = {
    "red": ["h1", "c3", "e3", "g5", "j3", "l4", "n6"],
    "blue": ["i15", "c13", "e13", "g11", "j13", "l12", "n10"],
    "fool": "g8",
}


def test_a_custom_layout_gives_the_starting_squares() -> None:
    state = GAME.new({"layout": CUSTOM}, seed=0)
    expected = position(" ".join(CUSTOM["red"]), " ".join(CUSTOM["blue"]), fool="g8")
    assert state.position == expected and state.start == expected and state.to_move is RED
    assert GAME.options_json(state)["layout"] == {
        "red": sorted(CUSTOM["red"], key=parse),
        "blue": sorted(CUSTOM["blue"], key=parse),
        "fool": "g8",
    }
    assert GAME.new(GAME.options_json(state), seed=0) == state


def custom(**changes: object) -> dict[str, object]:
    return {**CUSTOM, **changes}


@pytest.mark.parametrize(
    ("layout", "code"),
    [
        (custom(red=CUSTOM["red"][:6]), "sages_layout_count"),
        (custom(blue="c13 e13"), "sages_layout_count"),
        (custom(red=[*CUSTOM["red"][:6], "c13"]), "sages_square_taken"),
        (custom(red=[*CUSTOM["red"][:6], "c3"]), "sages_square_taken"),
        (custom(fool="c3"), "sages_fool_start"),
        (custom(fool="a8"), "sages_fool_start"),
        (custom(fool="h1"), "sages_fool_start"),
        (custom(red=[*CUSTOM["red"][:6], "z9"]), "sages_no_such_square"),
        (custom(red=[*CUSTOM["red"][:6], 7]), "sages_no_such_square"),
        (custom(red=[*CUSTOM["red"][:6], "h15"]), "sages_no_stop_in_their_cite"),
        (custom(red=[*CUSTOM["red"][:6], "f1"]), "sages_cite_taken"),
        (custom(red=[*CUSTOM["red"][:6], "d3"]), "sages_three_side_by_side"),
        (custom(red=["h1", "c3", "e3", "g5", "g4", "g6", "l4"]), "sages_three_side_by_side"),
        ({**CUSTOM, "sages": []}, "unknown_option"),
    ],
)
def test_a_custom_layout_that_no_game_could_reach_is_refused(
    layout: dict[str, object], code: str
) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"layout": layout}, seed=0)
    assert caught.value.code == code


def test_an_unknown_layout_is_refused() -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"layout": "spiral"}, seed=0)
    assert caught.value.code == "unknown_option_value"


# -- refusals: the right reason, the state untouched ----------------------------------------------

REFUSALS = [
    # code, red, blue, fool, side, sage, to, fool_to
    ("sages_not_your_sage", "h5", "h12", "h8", RED, "h12", "h11", None),
    ("sages_not_your_sage", "h5", "h12", "h8", RED, "c4", "c5", None),
    ("sages_cannot_reach_fool", "h4 c4", "h6 h12", "h8", RED, "h4", "h8", "l11"),
    ("sages_cannot_reach_fool", "c4", "h12", "h8", RED, "c4", "h8", "l11"),
    ("sages_three_side_by_side", "h5 f8 g8", "h12", "h8", RED, "h5", "h8", "l11"),
    ("sages_fool_meets_no_sage", "e8", "c12", "h8", RED, "e8", "h8", "n8"),
    ("sages_say_where_fool_ends", "h5", "h12", "h8", RED, "h5", "h8", None),
    ("sages_fool_into_own_cite", "l8", "e8", "h8", RED, "l8", "h8", "f1"),
    ("sages_fool_cannot_end_there", "h5", "h12", "h8", RED, "h5", "h8", "c3"),
    ("sages_fool_cannot_end_there", "h5", "h12", "h8", RED, "h5", "h8", "h15"),
    ("sages_square_taken", "c3 c5", "d4", "h8", RED, "c3", "c5", None),
    ("sages_square_taken", "c3 c5", "d4", "h8", RED, "c3", "d4", None),
    ("sages_wrong_direction", "c3", "", "h8", RED, "c3", "b2", None),
    ("sages_wrong_direction", "c3", "", "h8", RED, "c3", "d5", None),
    ("sages_wrong_direction", "", "c13", "h8", BLUE, "c13", "d14", None),
    ("sages_path_blocked", "c3", "c6", "h8", RED, "c3", "c9", None),
    ("sages_no_stop_in_their_cite", "g12", "c13", "h8", RED, "g12", "g15", None),
    ("sages_cite_taken", "h1 g3", "", "n12", RED, "g3", "g1", None),
    ("sages_cite_taken", "", "h15 g13", "n4", BLUE, "g13", "g15", None),
    ("sages_three_side_by_side", "f5 g5 h3", "", "n12", RED, "h3", "h5", None),
    ("sages_three_side_by_side", "g2 g3 e1", "", "n12", RED, "e1", "g1", None),
    ("sages_fool_not_chased", "c3", "", "h8", RED, "c3", "c5", "c9"),
    # boxed in: reflected where it stood, it may go back only into Red's own cité
    ("sages_fool_cannot_stop", "h1", "h3 g2 i2", "h2", RED, "h1", "h2", "h4"),
]


@pytest.mark.parametrize(
    ("code", "red", "blue", "fool", "side", "sage", "to", "fool_to"),
    REFUSALS,
    ids=[f"{r[0]}-{r[5]}-{r[6]}" for r in REFUSALS],
)
def test_a_refused_move_names_the_rule_it_breaks_and_changes_nothing(
    code: str, red: str, blue: str, fool: str, side: Side, sage: str, to: str, fool_to: str | None
) -> None:
    pos = position(red, blue, fool)
    assert why(pos, side, sage, to, fool_to) == code
    refusal_ = refused(playing(pos, side), move(side, sage, to, fool_to))
    assert refusal_.code == code
    assert refusal_.params["sage"] == sage and refusal_.params["square"] == to


def test_a_seat_out_of_the_game_is_refused() -> None:
    state = GAME.new({}, seed=0)
    assert refused(state, MoveSage(2, Square(parse("d3")), Square(parse("d4")))).code == (
        "sages_no_such_seat"
    )


# -- the hourglass --------------------------------------------------------------------------------


def test_when_the_hourglass_runs_out_the_turn_passes() -> None:
    state = GAME.new({"hourglass": 30}, seed=0)
    assert TimeUp(0) in list(GAME.legal_actions(state, 0))
    after, events = play(state, TimeUp(0))
    assert after.to_move is BLUE and after.position == state.position
    assert only(events, "time_up").data == {"seat": 0, "turn": 1}
    assert refused(after, TimeUp(0)).code == "sages_not_your_turn"


def test_no_time_up_without_an_hourglass() -> None:
    state = GAME.new({}, seed=0)
    assert TimeUp(0) not in list(GAME.legal_actions(state, 0))
    assert refused(state, TimeUp(0)).code == "sages_no_hourglass"


@pytest.mark.parametrize("seconds", [9, 601, 2.5])
def test_the_hourglass_runs_ten_seconds_to_ten_minutes(seconds: object) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"hourglass": seconds}, seed=0)
    assert caught.value.code == "sages_number_range"


# -- every legal move, and only those -------------------------------------------------------------
#
# An independent reading of the rules: squares as (column, row) pairs, every sage tried on every
# square, and the fool's flights walked depth first, path by path.

Cell = tuple[int, int]


def cell(square: int) -> Cell:
    return square % 15, square // 15


def index(c: Cell) -> int:
    return c[1] * 15 + c[0]


def home(side: Side) -> set[Cell]:
    row = 0 if side is RED else 14
    return {(col, row) for col in range(5, 10)}


def kingdom(c: Cell) -> bool:
    return 0 < c[0] < 14 and 0 < c[1] < 14


def threes(sages: set[Cell]) -> bool:
    return any(
        {(c + 1, r), (c + 2, r)} <= sages or {(c, r + 1), (c, r + 2)} <= sages for c, r in sages
    )


def brute_force(pos: Position, side: Side) -> dict[tuple[int, int, int | None], int]:
    """Every legal move as (sage, to, where the fool ends or None) -> points scored."""
    mine = {cell(s) for s in pos.sages(side)}
    theirs = {cell(s) for s in pos.sages(side.other)}
    fool = cell(pos.fool)
    taken = mine | theirs | {fool}
    forward = 1 if side is RED else -1
    out: dict[tuple[int, int, int | None], int] = {}
    for c0, r0 in mine:
        for col in range(15):
            for row in range(15):
                dc, dr = col - c0, row - r0
                if (dc, dr) == (0, 0) or (dc and dr and abs(dc) != abs(dr)):
                    continue
                chase = (col, row) == fool
                if dc and dr and dr != forward * abs(dr) and not chase:
                    continue  # backward diagonals only to chase
                steps = max(abs(dc), abs(dr))
                unit = ((dc > 0) - (dc < 0), (dr > 0) - (dr < 0))
                between = [(c0 + k * unit[0], r0 + k * unit[1]) for k in range(1, steps)]
                if any(c in taken for c in between):
                    continue
                after = (mine - {(c0, r0)}) | {(col, row)}
                if threes(after):
                    continue
                frm, to = index((c0, r0)), index((col, row))
                if chase:
                    for end, points in fly(after, theirs, fool, unit, side).items():
                        out[(frm, to, index(end))] = points
                else:
                    crowded = (col, row) in home(side) and len(after & home(side)) > 1
                    if (col, row) not in taken | home(side.other) and not crowded:
                        out[(frm, to, None)] = 0
    return out


def fly(
    mine: set[Cell], theirs: set[Cell], start: Cell, heading: Cell, side: Side
) -> dict[Cell, int]:
    """Where the fool may end, chased from ``start`` going ``heading``: each end with the most
    points it can bring (0: no goal)."""
    found: dict[Cell, int] = {}

    def walk(at: Cell, go: Cell, reflected: bool, last: Side, seen: frozenset[object]) -> None:
        key = (at, go, reflected, last)
        if key in seen:
            return
        seen = seen | {key}
        nxt = (at[0] + go[0], at[1] + go[1])
        if nxt in mine or nxt in theirs:
            if at != start:
                found.setdefault(at, 0)
            owner = side if nxt in mine else side.other
            if go[0] == 0 or go[1] == 0:
                turns = [(go[1], go[0]), (-go[1], -go[0])]
            else:
                turns = [(-go[0], go[1]), (go[0], -go[1])]
            for turn in [*turns, (-go[0], -go[1])]:
                walk(at, turn, True, owner, seen)
        elif nxt in home(side.other):
            found[nxt] = max(found.get(nxt, 0), 2 if last is side else 1)
        elif kingdom(nxt) and nxt not in home(side):
            if reflected:
                found.setdefault(nxt, 0)
            walk(nxt, go, reflected, last, seen)

    walk(start, heading, False, side, frozenset())
    return found


def engine_moves(pos: Position, side: Side) -> dict[tuple[int, int, int | None], int]:
    out: dict[tuple[int, int, int | None], int] = {}
    for m in legal_moves(pos, side):
        key = (m.frm, m.to, m.fool_to)
        assert key not in out, "one move per sage, square and end of the fool"
        out[key] = scored(m, side)
    return out


def random_positions(seed: int, count: int, most: int = 7) -> Iterator[Position]:
    """Positions any game could reach, crowded on the fool's lines and the board's edge."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        fool = index((rng.randrange(1, 14), rng.randrange(1, 14)))
        fc, fr = cell(fool)
        lines = [
            s
            for s in range(225)
            if s != fool
            and (fc == s % 15 or fr == s // 15 or abs(fc - s % 15) == abs(fr - s // 15))
        ]
        edge = [s for s in range(225) if not in_kingdom(s)]
        nr, nb = rng.randint(1, most), rng.randint(1, most)
        chosen: set[int] = set()
        while len(chosen) < nr + nb:
            pool = rng.choice([lines, lines, edge, range(225)])
            chosen.add(rng.choice(pool))
        chosen.discard(fool)
        if len(chosen) < nr + nb:
            continue
        picked = list(chosen)
        rng.shuffle(picked)
        pos = Position(frozenset(picked[:nr]), frozenset(picked[nr:]), fool)
        if any(
            threes({cell(s) for s in pos.sages(side)})
            or {cell(s) for s in pos.sages(side)} & home(side.other)
            or len({cell(s) for s in pos.sages(side)} & home(side)) > 1
            for side in Side
        ):
            continue
        made += 1
        yield pos


@pytest.mark.parametrize("seed", range(4))
def test_legal_moves_are_exactly_those_an_independent_reading_of_the_rules_finds(seed: int) -> None:
    for pos in random_positions(seed, 40):
        for side in Side:
            assert engine_moves(pos, side) == brute_force(pos, side), (
                f"red {sorted(names(pos.red))} blue {sorted(names(pos.blue))} fool {name(pos.fool)}"
            )


def test_the_independent_reading_sees_chases_and_goals() -> None:
    """The random positions above are worth checking: they hold chases and goals of both kinds."""
    points: set[int] = set()
    chased = 0
    for pos in random_positions(0, 40):
        for side in Side:
            found = brute_force(pos, side)
            chased += sum(1 for key in found if key[2] is not None)
            points |= set(found.values())
    assert chased > 100 and points == {0, 1, 2}


REFUSAL_CODES = {code for code, *_ in REFUSALS}


@pytest.mark.parametrize("seed", range(2))
def test_find_accepts_exactly_the_legal_moves_and_refusal_explains_the_rest(seed: int) -> None:
    """Every own sage to every square (onto the fool: with every end, or none): ``find`` accepts
    the legal moves and no other; each refused one gets a reason that holds."""
    for pos in random_positions(100 + seed, 4, most=3):
        for side in Side:
            legal = set(brute_force(pos, side))
            accepted = set()
            for frm in sorted(pos.sages(side)):
                for to in range(225):
                    ends_ = [None, *range(225)] if to == pos.fool else [None]
                    for fool_to in ends_:
                        if find(pos, side, frm, to, fool_to) is not None:
                            accepted.add((frm, to, fool_to))
                        else:
                            check_refusal(pos, side, frm, to, fool_to)
            assert accepted == legal


def check_refusal(pos: Position, side: Side, frm: int, to: int, fool_to: int | None) -> None:
    code = refusal(pos, side, frm, to, fool_to)
    assert code in REFUSAL_CODES
    sages = pos.sages(side)
    if code == "sages_square_taken":
        assert pos.occupied(to)
    elif code == "sages_cite_taken":
        assert to in cite(side) and (sages - {frm}) & cite(side)
    elif code == "sages_no_stop_in_their_cite":
        assert to in cite(side.other)
    elif code == "sages_three_side_by_side":
        assert threes({cell(s) for s in (sages - {frm}) | {to}})
    elif code == "sages_fool_into_own_cite":
        assert fool_to in cite(side)
    elif code == "sages_say_where_fool_ends":
        assert fool_to is None and to == pos.fool
    elif code in ("sages_fool_meets_no_sage", "sages_fool_cannot_end_there"):
        assert to == pos.fool
        after = pos.moved(side, frm, to)
        direction = (
            (board.column(to) > board.column(frm)) - (board.column(to) < board.column(frm)),
            (board.row(to) > board.row(frm)) - (board.row(to) < board.row(frm)),
        )
        assert bool(flights(after.red, after.blue, to, direction, side)) == (
            code == "sages_fool_cannot_end_there"
        )
