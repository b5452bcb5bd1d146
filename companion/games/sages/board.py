"""The board of Les 7 Sages (RULES.md §5): 15×15 squares, named like a chessboard.

Columns are ``a`` to ``o`` from Red's left, rows ``1`` to ``15`` from Red's edge: ``h8`` is the
centre. The outer ring is the **barbarian lands**, except the two **cités**: the five middle
squares (columns f to j) of each player's home edge row, Red's on row 1 and Blue's on row 15.
Inside the ring is the 13×13 **kingdom** (b2 to n14). Red moves "forward" up the rows, Blue
down.

Squares are plain ints (``row * 15 + column``, 0-based) inside the engine, for speed; ``Square``
is their value object at the edges (actions, JSON).
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any

SIZE = 15
CENTRE = 7 * SIZE + 7  # h8
COLUMNS = "abcdefghijklmno"
CITE_COLUMNS = range(5, 10)  # f to j

# (column step, row step): the eight directions of the board
NORTH, SOUTH, EAST, WEST = (0, 1), (0, -1), (1, 0), (-1, 0)
ORTHOGONAL = (NORTH, SOUTH, EAST, WEST)
DIAGONAL = ((1, 1), (-1, 1), (1, -1), (-1, -1))
ALL_DIRECTIONS = ORTHOGONAL + DIAGONAL
Direction = tuple[int, int]


class Side(enum.Enum):
    """The two players: Red (seat 0, home row 1) starts; Blue (seat 1, home row 15)."""

    RED = "red"
    BLUE = "blue"

    @property
    def seat(self) -> int:
        return 0 if self is Side.RED else 1

    @staticmethod
    def of_seat(seat: int) -> Side:
        return Side.RED if seat == 0 else Side.BLUE

    @property
    def other(self) -> Side:
        return Side.BLUE if self is Side.RED else Side.RED

    @property
    def forward(self) -> int:
        """The row step that takes this side's sages towards the other side's cité."""
        return 1 if self is Side.RED else -1

    @property
    def home_row(self) -> int:
        return 0 if self is Side.RED else SIZE - 1


def row(square: int) -> int:
    return square // SIZE


def column(square: int) -> int:
    return square % SIZE


def at(col: int, row_: int) -> int | None:
    """The square at (column, row), 0-based, or None off the board."""
    if 0 <= col < SIZE and 0 <= row_ < SIZE:
        return row_ * SIZE + col
    return None


def name(square: int) -> str:
    return f"{COLUMNS[column(square)]}{row(square) + 1}"


def parse(text: str) -> int:
    """``"h8"`` -> the square. Raises ValueError with a sentence a person can act on."""
    cleaned = text.strip().lower()
    letter, digits = cleaned[:1], cleaned[1:]
    if not letter or letter not in COLUMNS or not digits.isdigit() or not 1 <= int(digits) <= SIZE:
        raise ValueError(f"{text!r} is not a square: a column a to o and a row 1 to 15, like h8")
    return (int(digits) - 1) * SIZE + COLUMNS.index(letter)


def cite(side: Side) -> frozenset[int]:
    return _CITES[side]


def in_kingdom(square: int) -> bool:
    return 1 <= row(square) <= SIZE - 2 and 1 <= column(square) <= SIZE - 2


def in_barbarian_lands(square: int) -> bool:
    return not in_kingdom(square) and not any(square in c for c in _CITES.values())


@functools.cache
def kingdom() -> frozenset[int]:
    """The kingdom's 169 squares (where free placement puts the six sages out of the cité)."""
    return frozenset(s for s in range(SIZE * SIZE) if in_kingdom(s))


def half(side: Side) -> frozenset[int]:
    """The kingdom's squares on this side of the centre row (free placement with option
    ``placement`` "halves")."""
    rows = range(1, 7) if side is Side.RED else range(8, SIZE - 1)
    return frozenset(r * SIZE + c for r in rows for c in range(1, SIZE - 1))


@functools.cache
def ray(square: int, direction: Direction) -> tuple[int, ...]:
    """The squares from ``square`` (excluded) to the board's edge in ``direction``."""
    out = []
    col, row_ = column(square) + direction[0], row(square) + direction[1]
    while (nxt := at(col, row_)) is not None:
        out.append(nxt)
        col, row_ = col + direction[0], row_ + direction[1]
    return tuple(out)


def step(square: int, direction: Direction) -> int | None:
    return at(column(square) + direction[0], row(square) + direction[1])


def sage_directions(side: Side) -> tuple[Direction, ...]:
    """A sage's own moves: straight in four directions, diagonally forward only (six)."""
    f = side.forward
    return (*ORTHOGONAL, (1, f), (-1, f))


def reflections(direction: Direction) -> tuple[Direction, ...]:
    """Where a sage may send the fool arriving in ``direction``: 90° to either side, or back
    (vertical <-> horizontal; a diagonal onto the perpendicular diagonal)."""
    dc, dr = direction
    back = (-dc, -dr)
    if dc == 0 or dr == 0:
        return ((dr, dc), (-dr, -dc), back)
    return ((dc, -dr), (-dc, dr), back)


_CITES = {side: frozenset(side.home_row * SIZE + c for c in CITE_COLUMNS) for side in Side}


@dataclass(frozen=True, order=True)
class Square:
    """A square at the edges of the engine: written ``"h8"`` in JSON."""

    index: int

    def to_json(self) -> str:
        return name(self.index)

    @staticmethod
    def from_json(data: Any, index: int = 0) -> Square:
        if not isinstance(data, str):
            raise ValueError("a square is written like h8: a column a to o and a row 1 to 15")
        return Square(parse(data))

    def __str__(self) -> str:
        return name(self.index)
