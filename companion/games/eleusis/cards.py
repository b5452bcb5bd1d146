"""Playing cards for Eleusis (RULES.md §4): 2 to 4 standard 52-card decks mixed together.

A card is its rank (A=1 ... K=13) and its suit. Copies from different decks are the same card:
they are told apart by nothing a rule or a player can see. The vocabulary of the seed is here:
colour (red, black), suit (spades, hearts, diamonds, clubs), court (J, Q, K), low (A-9), honour
(10, J, Q, K, A), parity by value (A, J and K odd, Q even).

A card is written as its rank and suit letter, as in ``"QH"``, ``"10S"`` or ``"AD"`` (the
English letters S, H, D, C; the French ones P, C, K, T are read by ``from_french``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

RANKS = range(1, 14)
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
DECK_SIZE = 52


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)


FRENCH_SUITS = {"P": Suit.SPADES, "C": Suit.HEARTS, "K": Suit.DIAMONDS, "T": Suit.CLUBS}
FRENCH_RANKS = {"A": 1, "V": 11, "D": 12, "R": 13}


@dataclass(frozen=True, order=True)
class Card:
    rank: int  # 1 (ace) to 13 (king)
    suit: Suit

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise ValueError(f"a card's rank is 1 (ace) to 13 (king), not {self.rank!r}")

    @property
    def red(self) -> bool:
        return self.suit.red

    @property
    def court(self) -> bool:
        return self.rank >= 11

    @property
    def low(self) -> bool:
        return self.rank <= 9

    @property
    def honour(self) -> bool:
        return self.rank >= 10 or self.rank == 1

    @property
    def odd(self) -> bool:
        return self.rank % 2 == 1

    def to_json(self) -> str:
        return f"{RANK_NAMES.get(self.rank, str(self.rank))}{self.suit.value}"

    @staticmethod
    def from_json(value: object, index: int = 0) -> Card:
        """``"QH"``, ``"10S"``, ``"ad"``... Anything else raises ``ValueError`` saying what a
        card is."""
        if isinstance(value, str) and 2 <= len(value.strip()) <= 3:
            text = value.strip().upper()
            rank_text, suit_text = text[:-1], text[-1]
            names = {v: k for k, v in RANK_NAMES.items()}
            rank = names.get(rank_text) or (int(rank_text) if rank_text.isdigit() else 0)
            suits = {s.value: s for s in Suit}
            if rank in RANKS and suit_text in suits:
                return Card(rank, suits[suit_text])
        raise ValueError(
            f"a card is its rank (A, 2-10, J, Q, K) and suit (S, H, D, C), such as QH or 10S; "
            f"{value!r} is not one"
        )

    @staticmethod
    def from_french(value: str) -> Card:
        """The French way: ``"DC"`` (dame de cœur), ``"10P"``, ``"AK"``, ``"VT"``."""
        text = value.strip().upper()
        rank_text, suit_text = text[:-1], text[-1]
        rank = FRENCH_RANKS.get(rank_text) or (int(rank_text) if rank_text.isdigit() else 0)
        if rank not in RANKS or suit_text not in FRENCH_SUITS:
            raise ValueError(
                f"une carte s'écrit valeur (A, 2-10, V, D, R) et enseigne (P, C, K, T), "
                f"comme DC ou 10P ; {value!r} n'en est pas une"
            )
        return Card(rank, FRENCH_SUITS[suit_text])


ONE_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in RANKS)
