"""Oraklos: the 70 wish cards (RULES.md §3), generated, checked here against the rulebook."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise, product

import pytest

from companion.games.oraklos.deck import ANTIPODES_CARDS, WISH_CARDS, canonical, mirror

EVERY_SEQUENCE = ["".join(letters) for letters in product("RYBK", repeat=4)]


def turned(card: str) -> set[str]:
    return {card[i:] + card[:i] for i in range(4)}


def test_the_deck_has_70_wish_cards() -> None:
    assert len(WISH_CARDS) == 70


def test_no_two_cards_are_the_same_card_turned_round() -> None:
    for first, second in pairwise(WISH_CARDS):
        assert first < second
    assert all(turned(a).isdisjoint(turned(b)) for a in WISH_CARDS for b in WISH_CARDS if a != b)


def test_every_four_colour_sequence_is_a_card_turned_round() -> None:
    cards = set(WISH_CARDS)
    for sequence in EVERY_SEQUENCE:
        assert len(turned(sequence) & cards) == 1


def test_a_card_is_written_turned_to_its_alphabetically_smallest_reading() -> None:
    assert canonical("RYBK") == "BKRY"
    assert canonical("KRYB") == "BKRY"
    assert canonical("YYRY") == "RYYY"
    assert all(card == min(turned(card)) for card in WISH_CARDS)


def test_a_card_may_be_given_in_lower_case() -> None:
    assert canonical("rybk") == "BKRY"


def test_a_card_and_its_mirror_image_are_separate_cards() -> None:
    assert mirror("RYBK") == "BYRK"
    assert {"BKRY", "BYRK"} <= set(WISH_CARDS)


def test_40_cards_are_their_own_mirror_image_and_30_come_in_mirror_pairs() -> None:
    own = [card for card in WISH_CARDS if mirror(card) == card]

    assert len(own) == 40
    assert "BBRR" in own and "BRBR" in own
    assert len(WISH_CARDS) - len(own) == 30


def test_the_mirror_of_the_mirror_is_the_card() -> None:
    for card in WISH_CARDS:
        assert mirror(card) in WISH_CARDS
        assert mirror(mirror(card)) == card
        assert mirror(card) == canonical(card[::-1])


def test_16_cards_have_three_or_four_corners_of_one_colour() -> None:
    lopsided = [card for card in WISH_CARDS if max(Counter(card).values()) >= 3]

    assert len(lopsided) == 16
    assert sum(1 for card in lopsided if len(set(card)) == 1) == 4


def test_antipodes_removes_those_16_and_plays_with_54() -> None:
    assert len(ANTIPODES_CARDS) == 54
    assert set(ANTIPODES_CARDS) <= set(WISH_CARDS)
    assert all(max(Counter(card).values()) <= 2 for card in ANTIPODES_CARDS)
    assert tuple(sorted(ANTIPODES_CARDS)) == ANTIPODES_CARDS


@pytest.mark.parametrize("letters", ["", "RYB", "RYBKR", "RYBX", "RGBK", "R YB", "ROUGE"])
def test_a_card_is_four_letters_among_r_y_b_k(letters: str) -> None:
    with pytest.raises(ValueError, match=r"four colour letters among R \(red\)"):
        canonical(letters)
    with pytest.raises(ValueError, match="is not one"):
        mirror(letters)
