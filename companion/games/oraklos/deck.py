"""The wish cards, generated rather than typed in (RULES.md §3).

A card shows four colours at its corners, read clockwise. Turning a card round does not make a
new card, so a card is a 4-colour cyclic sequence up to rotation; turning it over is not allowed
(a sequence and its mirror image are different cards). There are exactly 70 such sequences over
red, yellow, blue and black. A card is written as its four letters (R, Y, B, K) rotated to the
alphabetically smallest string: ``"BKRY"`` is blue, black, red, yellow clockwise.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

COLOR_LETTERS = "RYBK"
CARD_LENGTH = 4


def _rotations(letters: str) -> list[str]:
    return [letters[i:] + letters[:i] for i in range(len(letters))]


def canonical(letters: str) -> str:
    """The card written the standard way: four colour letters, rotated to the smallest string.

    Lower-case letters are accepted. Anything else raises ``ValueError`` saying what a card is.
    """
    if not isinstance(letters, str):
        raise ValueError(f"a wish card is written as four colour letters, not {letters!r}")
    upper = letters.upper()
    if len(upper) != CARD_LENGTH or any(letter not in COLOR_LETTERS for letter in upper):
        raise ValueError(
            f"a wish card is four colour letters among R (red), Y (yellow), B (blue) and "
            f"K (black), such as RYBK; {letters!r} is not one"
        )
    return min(_rotations(upper))


def mirror(card: str) -> str:
    """The mirror-image card: the same corners read anticlockwise, in canonical form."""
    return canonical(canonical(card)[::-1])


def _is_antipodes_card(card: str) -> bool:
    """Antipodes removes the cards with three or four corners of one colour."""
    return max(Counter(card).values()) < 3


WISH_CARDS: tuple[str, ...] = tuple(
    sorted({canonical("".join(letters)) for letters in product(COLOR_LETTERS, repeat=4)})
)
ANTIPODES_CARDS: tuple[str, ...] = tuple(card for card in WISH_CARDS if _is_antipodes_card(card))
