"""The library of secret rules: every rule passes the checker, in both languages.

Acceptance bands (share of random cards accepted after random lines): the seed asks for 30-50%.
A rule that is 50% once the line is under way reads a little higher, because it accepts any
card while the line is shorter than what it reads back (the benefit of the doubt), and the
seed's own "even, two odd" is 20/39: so medium and hard rules may reach 55%, and easy rules,
which should be found, 60%.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.games.eleusis.cards import Card
from companion.games.eleusis.rule_check import check_rule
from companion.games.eleusis.rule_language import parse_rule
from companion.games.eleusis.rule_library import (
    LEVELS,
    LIBRARY,
    LibraryRule,
    by_id,
    draw_rule,
)

BANDS = {"easy": (0.30, 0.60), "medium": (0.30, 0.55), "hard": (0.30, 0.55)}
BAD_ADVICE = {"blocks", "first_card", "unproven", "narrow", "too_hard", "long_series"}
PROOF_BUDGET = 200_000  # enough to visit every state of every library rule


def cards(text: str) -> list[Card]:
    return [Card.from_json(c) for c in text.split()]


def plays(rule_id: str, line: str) -> list[bool]:
    """Whether each card of ``line`` is accepted after the ones before it."""
    rule, played = by_id(rule_id).rule, cards(line)
    return [rule.accepts(played[:i], played[i]) for i in range(len(played))]


def test_the_library_holds_at_least_40_rules_of_every_level() -> None:
    levels = Counter(entry.level for entry in LIBRARY)
    assert len(LIBRARY) >= 40
    assert set(levels) == set(LEVELS) and min(levels.values()) >= 10


def test_ids_are_unique() -> None:
    assert len({entry.id for entry in LIBRARY}) == len(LIBRARY)


@pytest.mark.parametrize("entry", LIBRARY, ids=[entry.id for entry in LIBRARY])
def test_a_library_rule_is_fit_for_a_game(entry: LibraryRule) -> None:
    report = check_rule(entry.rule, budget=PROOF_BUDGET)
    assert report.exhaustive and not report.blocks
    assert report.first_cards > 0
    low, high = BANDS[entry.level]
    assert low <= report.acceptance <= high
    assert not BAD_ADVICE & set(report.codes)


@pytest.mark.parametrize("entry", LIBRARY, ids=[entry.id for entry in LIBRARY])
def test_a_library_rule_is_told_in_english_and_french(entry: LibraryRule) -> None:
    assert entry.en and entry.fr and entry.en != entry.fr
    assert entry.description("en") == entry.en and entry.description("fr") == entry.fr
    assert entry.en[-1] in ".!" and entry.fr[-1] in ".!"


def test_rule_texts_read_back_to_the_same_rules() -> None:
    assert all(parse_rule(entry.text) == entry.rule for entry in LIBRARY)


# The seed's four examples


def test_red_black_red_the_colours_alternate() -> None:
    assert plays("red-black", "QH 9S 2D KC 3H") == [True] * 5
    assert plays("red-black", "QH QD") == [True, False]


def test_one_even_two_odd() -> None:
    assert plays("pair-odd-odd", "2H 3S 5D 4C 7C KD QS") == [True] * 7
    assert plays("pair-odd-odd", "2H 4S") == [True, False]


def test_only_reds_are_accepted() -> None:
    assert plays("only-red", "QH 9D 2S") == [True, True, False]


def test_after_a_court_card_odd_after_a_low_card_even() -> None:
    assert plays("court-odd-else-even", "QH 9S 2D 10C QS 3C") == [True] * 6
    assert plays("court-odd-else-even", "KC 4H") == [True, False]
    assert plays("court-odd-else-even", "9C 3H") == [True, False]
    assert plays("court-odd-else-even", "10C 3H") == [True, False]  # a 10 counts with the low


def test_the_seed_bad_rules_are_not_in_the_library() -> None:
    bad = [
        "if prev.value = king then card.value = ace else card.value > prev.value",
        "card is red or card is odd",
        "card.value = (prev.value + prev2.value + prev3.value) mod 13 + 1",
    ]
    trees = {entry.rule.tree for entry in LIBRARY}
    assert not trees & {parse_rule(text).tree for text in bad}


# Drawing a rule


def test_a_rule_is_drawn_from_its_level() -> None:
    rng = random.Random(1)
    assert all(draw_rule("hard", rng).level == "hard" for _ in range(20))


def test_the_same_seed_draws_the_same_rule() -> None:
    assert draw_rule("easy", random.Random(5)) == draw_rule("easy", random.Random(5))


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="easy, medium, hard"):
        draw_rule("impossible", random.Random(0))


def test_an_unknown_id_is_refused() -> None:
    with pytest.raises(KeyError, match="no rule 'nope'"):
        by_id("nope")
