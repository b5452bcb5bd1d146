"""The rule checker: the seed's principles for a good Eleusis rule (RULES.md §4)."""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.eleusis.cards import ONE_DECK, Card
from companion.games.eleusis.rule_check import Advice, card_classes, check_rule
from companion.games.eleusis.rule_language import Rule, parse_rule


def is_reachable_and_blocked(rule: Rule, line: Sequence[Card]) -> bool:
    """Every card of ``line`` was acceptable in turn, and no card may follow it."""
    reachable = all(rule.accepts(line[:i], line[i]) for i in range(len(line)))
    return reachable and not any(rule.accepts(line, card) for card in ONE_DECK)


def test_each_card_higher_than_the_previous_blocks_after_a_king() -> None:
    rule = parse_rule("card.value > prev.value")
    report = check_rule(rule)
    assert report.blocks and report.exhaustive
    assert report.blocking_line is not None
    assert [card.rank for card in report.blocking_line] == [13]
    assert is_reachable_and_blocked(rule, report.blocking_line)
    assert Advice("blocks", {"line": "KS", "length": 1}) in report.advice


def test_a_block_deeper_in_the_line_is_found_with_a_shortest_line() -> None:
    rule = parse_rule("card.value > prev2.value and card.suit != prev.suit")
    report = check_rule(rule)
    assert report.blocks and report.exhaustive
    assert report.blocking_line is not None and len(report.blocking_line) == 2
    assert is_reachable_and_blocked(rule, report.blocking_line)


def test_a_block_beyond_the_exhaustive_search_is_found_by_random_games() -> None:
    rule = parse_rule("card.value > prev4.value or card.value < prev3.value")
    report = check_rule(rule)
    assert report.blocks and not report.exhaustive
    assert report.blocking_line is not None
    assert is_reachable_and_blocked(rule, report.blocking_line)


def test_a_small_budget_leaves_the_search_to_random_games() -> None:
    rule = parse_rule("card.value > prev.value")
    report = check_rule(rule, budget=10)
    assert not report.exhaustive
    assert report.blocking_line is not None
    assert is_reachable_and_blocked(rule, report.blocking_line)


def test_red_only_never_blocks_and_accepts_half_the_cards() -> None:
    report = check_rule(parse_rule("card is red"))
    assert not report.blocks and report.blocking_line is None and report.exhaustive
    assert report.acceptance == 0.5
    assert report.first_cards == 26
    assert report.advice == ()


def test_a_rule_no_card_can_start_blocks_on_the_empty_line() -> None:
    report = check_rule(parse_rule("card is red and card is black"))
    assert report.blocks and report.blocking_line == ()
    assert report.first_cards == 0
    assert report.codes[0] == "first_card" and "blocks" not in report.codes


def test_red_or_odd_is_too_easy() -> None:
    report = check_rule(parse_rule("card is red or card is odd"))
    assert not report.blocks
    assert Advice("too_easy", {"percent": 77, "limit": 50}) in report.advice


def test_higher_each_time_and_an_ace_after_a_king_nearly_blocks() -> None:
    rule = "if prev.value = king then card.value = ace else card.value > prev.value"
    report = check_rule(parse_rule(rule))
    assert not report.blocks and report.exhaustive
    assert Advice("narrow", {"cards": 4}) in report.advice  # after a queen, only kings


def test_base_13_arithmetic_on_three_cards_is_too_hard() -> None:
    rule = "card.value = (prev.value + prev2.value + prev3.value) mod 13 + 1"
    report = check_rule(parse_rule(rule))
    assert not report.blocks
    assert {"too_hard", "narrow"} <= set(report.codes)
    assert report.fewest_choices == 4  # one value once three cards are down


def test_a_rule_reading_more_than_six_cards_back_is_a_long_series() -> None:
    report = check_rule(parse_rule("prev7.colour = card.colour"))
    assert Advice("long_series", {"lookback": 7, "limit": 6}) in report.advice


def test_a_rule_too_big_to_search_is_unproven() -> None:
    rule = "card.value != prev3.value and card.suit != prev2.suit"
    report = check_rule(parse_rule(rule))
    assert not report.blocks and not report.exhaustive
    assert "unproven" in report.codes


def test_a_rule_with_positions_is_searched_over_the_period() -> None:
    report = check_rule(parse_rule("if position mod 3 = 1 then card is even else card is odd"))
    assert report.exhaustive and report.period == 3 and report.states == 3
    assert round(report.acceptance, 3) == round(20 / 39, 3)


def test_acceptance_leaves_out_the_first_card_god_turns() -> None:
    report = check_rule(parse_rule("card.colour != prev.colour"))
    assert report.first_cards == 52
    assert report.acceptance == 0.5


def test_the_same_seed_gives_the_same_report() -> None:
    rule = parse_rule("card.value != prev3.value and card.suit != prev2.suit")
    assert check_rule(rule, seed=7) == check_rule(rule, seed=7)


def test_cards_the_rule_cannot_tell_apart_are_searched_once() -> None:
    assert sorted(n for _, n in card_classes(parse_rule("card.colour = prev.colour"))) == [26, 26]
    assert [n for _, n in card_classes(parse_rule("card.value > prev.value"))] == [4] * 13
    assert len(card_classes(parse_rule("card.suit = prev.suit or card is court"))) == 8
    assert len(card_classes(parse_rule("card.suit = hearts and card.value < 3"))) == 52
    assert card_classes(parse_rule("position is odd")) == ((ONE_DECK[0], 52),)
