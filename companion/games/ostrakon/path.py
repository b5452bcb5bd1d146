"""The path of Ostrakon: 16 numbered squares and the Temple of Wisdom, with piles of philosophers.

A pile is a tuple of seats, **top first**: the philosopher on top is the one who asks when the Sun
illuminates the pile. Squares are numbered 1 to 16 as printed; the Temple is square 17.

The symbols of the special days (Corruption, Oracle, Tromperie) are printed on the path cards, and
the seed rulebook does not say on which squares: ``DEFAULT_SYMBOLS`` is this companion's own
spread, not the printed one, and the game option ``symbols`` replaces it with a table's real path.
The default alternates the three rules on the even squares from 4 on (4, 6, 8, 10, 12, 14, 16),
leaving the first squares plain, where the piles stand on the first days. It agrees with the
seed's worked example "Calippos and Malia", where the leading pile, on a square past 9, carries
the Corruption symbol (square 10 here).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

from companion.games.ostrakon.tables import SQUARES, TEMPLE

Pile = tuple[int, ...]


class DayRule(enum.Enum):
    """The Day Rule card: a normal day, or one of the three special days."""

    NORMAL = "normal"
    CORRUPTION = "corruption"
    ORACLE = "oracle"
    TROMPERIE = "tromperie"


SYMBOLS = (DayRule.CORRUPTION, DayRule.ORACLE, DayRule.TROMPERIE)  # what a square may carry

DEFAULT_SYMBOLS: dict[int, DayRule] = {
    4: DayRule.CORRUPTION,
    6: DayRule.ORACLE,
    8: DayRule.TROMPERIE,
    10: DayRule.CORRUPTION,
    12: DayRule.ORACLE,
    14: DayRule.TROMPERIE,
    16: DayRule.CORRUPTION,
}


@dataclass(frozen=True)
class Path:
    """The piles on squares 1 to 17 (17: the Temple). ``piles[square - 1]`` is top first."""

    piles: tuple[Pile, ...]

    @staticmethod
    def empty() -> Path:
        return Path(((),) * TEMPLE)

    @staticmethod
    def starting(square: int, pile: Pile) -> Path:
        return Path.empty().placed(square, pile)

    def pile(self, square: int) -> Pile:
        return self.piles[square - 1]

    def top(self, square: int) -> int | None:
        pile = self.pile(square)
        return pile[0] if pile else None

    def square_of(self, seat: int) -> int | None:
        """The square of a philosopher on the path (None: under the Sun)."""
        for square, pile in self.squares():
            if seat in pile:
                return square
        return None

    def is_on_top(self, seat: int) -> bool:
        square = self.square_of(seat)
        return square is not None and self.top(square) == seat

    def squares(self) -> Iterator[tuple[int, Pile]]:
        """Every square with a pile, from square 1 to the Temple."""
        for index, pile in enumerate(self.piles):
            if pile:
                yield index + 1, pile

    def seats(self) -> list[int]:
        return [seat for _, pile in self.squares() for seat in pile]

    def pile_behind(self, square: int) -> int | None:
        """The nearest square behind ``square`` with a pile on it: where the Sun stops."""
        for behind in range(square - 1, 0, -1):
            if self.pile(behind):
                return behind
        return None

    def leading_square(self) -> int | None:
        """The square of the pile nearest the Temple on the numbered squares (the Temple's pile
        is not on them: those who reached it ask no more questions)."""
        for square in range(SQUARES, 0, -1):
            if self.pile(square):
                return square
        return None

    def winning_square(self) -> int | None:
        """The square of the pile nearest the end of the path, the Temple included."""
        return TEMPLE if self.pile(TEMPLE) else self.leading_square()

    # -- moves: each returns a new path ----------------------------------------------------------

    def without(self, seat: int) -> Path:
        return Path(tuple(tuple(s for s in pile if s != seat) for pile in self.piles))

    def landed(self, seat: int, square: int) -> Path:
        """``seat`` taken from where it is and put on top of any pile on ``square``."""
        moved = self.without(seat)
        return moved.placed(square, (seat, *moved.pile(square)))

    def placed(self, square: int, pile: Pile) -> Path:
        """``square``'s pile replaced by ``pile``."""
        index = square - 1
        return Path((*self.piles[:index], pile, *self.piles[index + 1 :]))

    def to_json(
        self, symbols: dict[int, DayRule] | None = None
    ) -> list[dict[str, int | str | bool | list[int] | None]]:
        symbols = symbols or {}
        out: list[dict[str, int | str | bool | list[int] | None]] = []
        for index, pile in enumerate(self.piles):
            square = index + 1
            symbol = symbols.get(square)
            out.append(
                {
                    "square": square,
                    "temple": square == TEMPLE,
                    "symbol": None if symbol is None else symbol.value,
                    "pile": list(pile),
                }
            )
        return out
