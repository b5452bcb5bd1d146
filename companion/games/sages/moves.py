"""Where the pieces are, and every legal move from there (RULES.md §5).

A **sage move** goes any distance in a straight line over empty squares: straight in four
directions, diagonally forward only. It may cross the opponent's cité but never stop there, and
it may stop in its own cité only if no other sage of its side is there. A **chase** moves a sage
onto the fool's square along any of the eight directions (backward diagonals too) over empty
squares, and the fool flies on (``fool.flights``). No move may leave three sages of the mover
side by side (sharing sides: in a row or a column). The fool stands on no one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from companion.games.sages import board
from companion.games.sages.board import ALL_DIRECTIONS, Side, cite, ray
from companion.games.sages.fool import Flight, flights, points


@dataclass(frozen=True)
class Position:
    """The sages of each side and the fool, as board squares (ints)."""

    red: frozenset[int]
    blue: frozenset[int]
    fool: int

    def sages(self, side: Side) -> frozenset[int]:
        return self.red if side is Side.RED else self.blue

    def occupied(self, square: int) -> bool:
        return square == self.fool or square in self.red or square in self.blue

    def side_at(self, square: int) -> Side | None:
        if square in self.red:
            return Side.RED
        if square in self.blue:
            return Side.BLUE
        return None

    def moved(self, side: Side, frm: int, to: int, fool: int | None = None) -> Position:
        sages = (self.sages(side) - {frm}) | {to}
        red, blue = (sages, self.blue) if side is Side.RED else (self.red, sages)
        return Position(red, blue, self.fool if fool is None else fool)


@dataclass(frozen=True)
class Move:
    """A legal move: the sage from ``frm`` to ``to``; for a chase (``to`` is the fool's square)
    the fool's flight, whose last square is where the fool ends (a cité square for a goal)."""

    frm: int
    to: int
    flight: Flight | None = None

    @property
    def fool_to(self) -> int | None:
        return None if self.flight is None else self.flight.end


def three_side_by_side(sages: frozenset[int], square: int) -> bool:
    """Whether the sage on ``square`` stands in a row or column of three or more of ``sages``."""
    for dc, dr in ((1, 0), (0, 1)):
        count = 1
        for sign in (1, -1):
            for nxt in ray(square, (dc * sign, dr * sign)):
                if nxt not in sages:
                    break
                count += 1
        if count >= 3:
            return True
    return False


def sage_moves(position: Position, side: Side) -> Iterator[Move]:
    """Every legal sage move (not a chase) of ``side``."""
    own_cite, their_cite = cite(side), cite(side.other)
    sages = position.sages(side)
    for frm in sorted(sages):
        cite_taken = any(s in own_cite for s in sages if s != frm)
        for direction in board.sage_directions(side):
            for to in ray(frm, direction):
                if position.occupied(to):
                    break
                if to in their_cite or (to in own_cite and cite_taken):
                    continue  # free passage, but no stopping
                if not three_side_by_side((sages - {frm}) | {to}, to):
                    yield Move(frm, to)


def chases(position: Position, side: Side) -> Iterator[Move]:
    """Every legal chase of ``side``: one move per chasing sage and square the fool may end on
    (for a goal, the flight worth most to ``side``)."""
    sages = position.sages(side)
    fool = position.fool
    for direction in ALL_DIRECTIONS:
        back = (-direction[0], -direction[1])
        for frm in ray(fool, back):
            if not position.occupied(frm):
                continue
            if frm in sages:
                after = position.moved(side, frm, fool)
                if not three_side_by_side(after.sages(side), fool):
                    found = flights(after.red, after.blue, fool, direction, side)
                    for end in sorted(found):
                        yield Move(frm, fool, found[end])
            break  # the first piece on the line, of either side, is the only one that may chase


def legal_moves(position: Position, side: Side) -> list[Move]:
    return [*sage_moves(position, side), *chases(position, side)]


def find(position: Position, side: Side, frm: int, to: int, fool_to: int | None) -> Move | None:
    """The legal move a player means, or None: a chase is named by where the fool ends."""
    if to == position.fool:
        for move in chases(position, side):
            if move.frm == frm and move.fool_to == fool_to:
                return move
        return None
    if fool_to is not None:
        return None  # only a chase moves the fool
    for move in sage_moves(position, side):
        if move.frm == frm and move.to == to:
            return move
    return None


def scored(move: Move, side: Side) -> int:
    return 0 if move.flight is None else points(move.flight, side)


def refusal(position: Position, side: Side, frm: int, to: int, fool_to: int | None) -> str:
    """Why the move ``frm`` -> ``to`` (the fool sent to ``fool_to``) is not legal for ``side``:
    the catalog code of the first rule it breaks. Only asked of a move ``find`` did not find."""
    sages = position.sages(side)
    if frm not in sages:
        return "sages_not_your_sage"
    if to == position.fool:
        line = _line(frm, to, ALL_DIRECTIONS)
        if line is None or any(position.occupied(s) for s in line[:-1]):
            return "sages_cannot_reach_fool"
        after = position.moved(side, frm, to)
        if three_side_by_side(after.sages(side), to):
            return "sages_three_side_by_side"
        direction = _direction(frm, to)
        options = flights(after.red, after.blue, to, direction, side)
        if not options:
            met = _meets_a_sage(after, to, direction)
            return "sages_fool_cannot_stop" if met else "sages_fool_meets_no_sage"
        if fool_to is None:
            return "sages_say_where_fool_ends"
        if fool_to in cite(side):
            return "sages_fool_into_own_cite"
        return "sages_fool_cannot_end_there"
    if fool_to is not None:
        return "sages_fool_not_chased"
    if position.occupied(to):
        return "sages_square_taken"
    line = _line(frm, to, board.sage_directions(side))
    if line is None:
        return "sages_wrong_direction"
    if any(position.occupied(s) for s in line[:-1]):
        return "sages_path_blocked"
    if to in cite(side.other):
        return "sages_no_stop_in_their_cite"
    if to in cite(side) and any(s in cite(side) for s in sages if s != frm):
        return "sages_cite_taken"
    return "sages_three_side_by_side"


def _meets_a_sage(position: Position, start: int, direction: board.Direction) -> bool:
    """Whether a fool flying off ``start`` in ``direction`` meets a sage before it would leave
    the kingdom (a chase that meets one yet can stop nowhere is refused for that reason)."""
    for square in ray(start, direction):
        if square in position.red or square in position.blue:
            return True
        if not board.in_kingdom(square):
            return False
    return False


def _direction(frm: int, to: int) -> board.Direction:
    dc = board.column(to) - board.column(frm)
    dr = board.row(to) - board.row(frm)
    return ((dc > 0) - (dc < 0), (dr > 0) - (dr < 0))


def _line(frm: int, to: int, directions: tuple[board.Direction, ...]) -> tuple[int, ...] | None:
    """The squares from ``frm`` (excluded) to ``to`` (included) if ``to`` lies straight along
    one of ``directions``, else None."""
    for direction in directions:
        squares = ray(frm, direction)
        if to in squares:
            return squares[: squares.index(to) + 1]
    return None
