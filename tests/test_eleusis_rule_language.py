"""The Eleusis rule language (docs/ELEUSIS_RULES.md): what rules mean, and what cannot be read."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.eleusis.cards import ONE_DECK, Card
from companion.games.eleusis.rule_language import (
    MAX_LENGTH,
    MESSAGES,
    QUOTING_PARAMS,
    WORDS,
    RuleSyntaxError,
    parse_rule,
    truth_with_unknowns,
)
from companion.narration.catalog import LANGUAGES, Catalog


def cards(text: str) -> list[Card]:
    return [Card.from_json(c) for c in text.split()]


def accepted(rule: str, line: str, card: str) -> bool:
    return parse_rule(rule).accepts(cards(line), Card.from_json(card))


# --- The seed's vocabulary ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "properties"),
    [
        ("AS", {"black", "spades", "low", "honour", "odd"}),
        ("9H", {"red", "hearts", "low", "odd"}),
        ("10D", {"red", "diamonds", "honour", "even"}),
        ("JC", {"black", "clubs", "court", "honour", "odd"}),
        ("QH", {"red", "hearts", "court", "honour", "even"}),
        ("KS", {"black", "spades", "court", "honour", "odd"}),
    ],
)
def test_a_card_has_the_properties_of_the_seed(card: str, properties: set[str]) -> None:
    words = ["red", "black", "court", "low", "honour", "odd", "even"]
    words += ["spades", "hearts", "diamonds", "clubs"]
    for word in words:
        assert accepted(f"card is {word}", "", card) == (word in properties), word


@pytest.mark.parametrize(
    ("rule", "card"),
    [
        ("card.value = 1", "AD"),
        ("card.value = ace", "AD"),
        ("card.value = a", "AD"),
        ("card.value = 11", "JD"),
        ("card.value = jack", "JD"),
        ("card.value = queen", "QD"),
        ("card.value = K", "KD"),
        ("card.value = 10", "10D"),
    ],
)
def test_values_run_from_ace_1_to_king_13(rule: str, card: str) -> None:
    assert accepted(rule, "", card)
    assert not accepted(rule, "", "5D")


@pytest.mark.parametrize(
    ("op", "lower", "equal", "higher"),
    [
        ("<", True, False, False),
        ("<=", True, True, False),
        ("=", False, True, False),
        ("!=", True, False, True),
        (">=", False, True, True),
        (">", False, False, True),
    ],
)
def test_comparisons_compare_values(op: str, lower: bool, equal: bool, higher: bool) -> None:
    rule = f"card.value {op} prev.value"
    assert [accepted(rule, "7S", card) for card in ("6H", "7H", "8H")] == [lower, equal, higher]


def test_colour_and_suit_compare_with_equal_and_not_equal() -> None:
    assert accepted("card.colour = prev.colour", "2H", "9D")
    assert not accepted("card.colour = prev.colour", "2H", "9S")
    assert accepted("card.suit != prev.suit", "2H", "9D")
    assert accepted("card.suit = hearts and card.colour = red", "", "9H")


def test_arithmetic_adds_and_subtracts() -> None:
    assert accepted("card.value = prev.value + 2", "5C", "7C")
    assert accepted("card.value = prev.value - 2", "5C", "3C")
    assert not accepted("card.value = prev.value + 2", "5C", "6C")


def test_mod_13_makes_the_ace_follow_the_king() -> None:
    rule = "card.value mod 13 = (prev.value + 1) mod 13"
    assert accepted(rule, "KS", "AH")
    assert accepted(rule, "QS", "KH")
    assert accepted(rule, "4S", "5H")
    assert not accepted(rule, "KS", "2H")


def test_mod_of_a_difference_is_never_negative() -> None:
    assert accepted("(card.value - prev.value) mod 13 = 12", "5S", "4H")


def test_and_binds_tighter_than_or() -> None:
    rule = parse_rule("card is red or card is odd and card is court")
    assert rule.tree == parse_rule("card is red or (card is odd and card is court)").tree


def test_not_applies_to_one_test() -> None:
    rule = parse_rule("not card is red and card is odd")
    assert rule.tree == parse_rule("(not card is red) and card is odd").tree
    assert rule.tree == parse_rule("card is not red and card is odd").tree


def test_if_then_else_chooses_the_test_by_the_condition() -> None:
    rule = "if prev is court then card is odd else card is even"
    assert accepted(rule, "QS", "3H")
    assert not accepted(rule, "QS", "4H")
    assert accepted(rule, "5S", "4H")
    assert not accepted(rule, "5S", "3H")


def test_else_if_chains() -> None:
    rule = "if prev is court then card is odd else if prev is low then card is even else true"
    assert accepted(rule, "10S", "3H") and accepted(rule, "10S", "4H")
    assert not accepted(rule, "9S", "3H")


def test_counting_back_reads_the_cards_before_the_candidate() -> None:
    line = "2H 3S 4D 5C"
    assert accepted("prev.value = 5 and prev2.value = 4 and prev3.value = 3", line, "AS")
    assert accepted("back(4).value = 2 and back(1).value = 5", line, "AS")


def test_position_is_the_candidate_place_in_the_line() -> None:
    rule = "if position is odd then card is red else card is black"
    assert accepted(rule, "", "2H")  # the first card is at position 1
    assert accepted(rule, "2H", "2S")
    assert not accepted(rule, "2H 2S", "2S")


def test_position_counts_in_threes_with_mod() -> None:
    rule = parse_rule("if position mod 3 = 1 then card is even else card is odd")
    line = cards("2H 3S 5D 4C 7C")  # even, odd, odd, even, odd
    assert all(rule.accepts(line[:i], line[i]) for i in range(len(line)))
    assert rule.accepts(line, Card.from_json("9H"))  # position 6: odd
    assert not rule.accepts(line[:3], Card.from_json("9H"))  # position 4: even


def test_count_counts_among_the_last_cards_before_the_candidate() -> None:
    rule = "count red in last 3 >= 2"
    assert accepted(rule, "2S 3H 4D", "5S")
    assert not accepted(rule, "2H 3S 4D 5S", "6H")  # only 4D of 3S 4D 5S


def test_a_truth_can_be_compared_to_a_truth() -> None:
    rule = "(card is red) = (prev is odd)"
    assert accepted(rule, "3S", "4H") and accepted(rule, "4S", "3S")
    assert not accepted(rule, "3S", "3S")


def test_french_words_are_aliases_of_the_english_ones() -> None:
    english = "if prev is court then card is odd else card is even"
    french = "si préc est habillé alors carte est impaire sinon carte est paire"
    assert parse_rule(french).tree == parse_rule(english).tree
    assert parse_rule("carte.couleur != prec.couleur").tree == (
        parse_rule("card.colour != prev.colour").tree
    )
    assert parse_rule("compte rouge dans derniers 3 >= 2 et carte est cœur").tree == (
        parse_rule("count red in last 3 >= 2 and card is hearts").tree
    )


def test_words_are_read_whatever_their_case() -> None:
    assert parse_rule("CARD IS RED").tree == parse_rule("card is red").tree
    assert parse_rule("Carte Est Habillée").tree == parse_rule("card is court").tree


def test_the_rule_keeps_its_text() -> None:
    assert parse_rule("card is red").text == "card is red"


@pytest.mark.parametrize(
    ("rule", "lookback"),
    [
        ("card is red", 0),
        ("card.colour != prev.colour", 1),
        ("prev3 is red or card is red", 3),
        ("back(5).value < card.value", 5),
        ("count odd in last 6 > 2 or card is odd", 6),
    ],
)
def test_lookback_is_the_farthest_card_read(rule: str, lookback: int) -> None:
    assert parse_rule(rule).lookback == lookback


@pytest.mark.parametrize(
    ("rule", "period"),
    [
        ("card is red", 1),
        ("(position is odd) = (card is red)", 2),
        ("if position mod 3 = 1 then card is even else card is odd", 3),
        ("(position + prev.value) mod 4 = 0", 4),
        ("position mod 3 = 1 and position is even", 6),
        ("((position mod 5) + 1) mod 3 = 0", 5),
    ],
)
def test_period_is_how_the_position_is_read(rule: str, period: int) -> None:
    assert parse_rule(rule).period == period


# --- Before the start of the line: the benefit of the doubt --------------------------------


def test_a_rule_on_the_previous_card_accepts_any_first_card() -> None:
    rule = parse_rule("card.colour != prev.colour")
    assert all(rule.accepts([], card) for card in ONE_DECK)


def test_what_the_rule_can_judge_without_the_missing_card_still_counts() -> None:
    assert accepted("card is red and prev is black", "", "2H")
    assert not accepted("card is red and prev is black", "", "2S")


def test_an_if_on_a_missing_card_holds_when_both_branches_agree() -> None:
    assert not accepted("if prev is court then card is red else card is red", "", "2S")
    assert accepted("if prev is court then card is red else card is black", "", "2S")


def test_a_missing_value_could_be_anything_from_ace_to_king() -> None:
    assert not accepted("card.value > prev.value", "", "AS")  # nothing is under an ace
    assert accepted("card.value > prev.value", "", "2S")


def test_count_takes_the_missing_cards_as_maybe() -> None:
    rule = "count red in last 3 >= 2 or card is black"
    assert accepted(rule, "2H", "3H")  # one red and two unknown cards: maybe 2 reds
    assert not accepted(rule, "2S 4S", "3H")  # one unknown card: 1 red at most


def test_with_no_card_missing_the_three_valued_reading_is_the_plain_one() -> None:
    rules = [
        "if prev is court then card is odd else card is even",
        "(card.value - prev2.value) mod 13 <= 4 or count red in last 2 = 1",
        "card.suit = prev.suit or card.value = prev.value",
        "(card is red) = (position mod 3 = 1)",
    ]
    line = cards("KS 2H 9D QC 10H")
    for text in rules:
        rule = parse_rule(text)
        for card in ONE_DECK:
            plain = rule.accepts(line, card)
            assert truth_with_unknowns(rule.tree, [*line, card], len(line) + 1) is plain


def test_the_end_of_the_line_is_enough_to_judge() -> None:
    rule = parse_rule("card.value > prev2.value")
    line = cards("KS 2H 9D QC")
    for card in ONE_DECK:
        assert rule.accepts_at(line[-2:], card, 5) == rule.accepts(line, card)


# --- What cannot be read --------------------------------------------------------------------

ERRORS = [
    ("", "empty", 1),
    ("   ", "empty", 1),
    ("x" * 501, "too_long", 501),
    ("(" * 25 + "card is red" + ")" * 25, "too_deep", 21),
    ("card is red!", "bad_character", 12),
    ("card is purple", "unknown_word", 9),
    ("card.value = 1000", "number_too_large", 14),
    ("card.value = ", "missing_value", 14),
    ("card is", "missing_property", 8),
    ("card.red", "missing_attribute", 6),
    ("if card is red card is black", "missing_then", 16),
    ("if card is red then card is odd", "missing_else", 32),
    ("((card is red) or card is odd", "missing_close", 30),
    ("back 2 is red", "back_form", 6),
    ("prev13 is red", "back_range", 1),
    ("count red in 3 > 1", "count_form", 14),
    ("card.value mod 0 = 1", "mod_range", 16),
    ("card is red red", "trailing_text", 13),
    ("prev.value", "not_a_condition", 1),
    ("card.value + red > 3", "not_a_number", 14),
    ("card = prev", "card_needs_attribute", 1),
    ("card.value.value = 3", "attribute_needs_card", 1),
    ("card.colour = hearts", "mismatched_comparison", 1),
    ("card.colour < red", "order_needs_numbers", 1),
    ("red is odd", "is_needs_card", 1),
    ("card.value is rouge", "number_is_odd_or_even", 15),
    ("position > 3 and card is red", "position_needs_mod", 1),
]


@pytest.mark.parametrize(("text", "code", "column"), ERRORS)
def test_an_unreadable_rule_says_what_and_where(text: str, code: str, column: int) -> None:
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule(text)
    assert (caught.value.code, caught.value.column) == (code, column)
    assert f"(column {column})" in str(caught.value)


def test_every_error_code_has_an_example() -> None:
    assert {code for _, code, _ in ERRORS} == set(MESSAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("text", "code", "column"), ERRORS)
def test_an_error_is_said_by_its_column_and_kind_without_the_rules_words(
    text: str, code: str, column: int, lang: str
) -> None:
    """The rule is secret: said for a masked field or a refused game, an error is the same
    sentence whatever the rule's words, and has its column; a host who sees the rule may get
    the sentence that quotes it."""
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule(text)
    error = caught.value
    params = {"column": error.column, **error.params}
    other = {**params, **{k: "zqzq" for k in QUOTING_PARAMS & set(params)}}
    catalog = Catalog(lang)
    masked = catalog.rule_error(code, params)
    assert masked == catalog.rule_error(code, other)
    assert "zqzq" not in masked and str(column) in masked
    quoted = catalog.rule_error(code, params, quoted=True)
    assert quoted == catalog.text(f"eleusis.rule_errors.{code}", **params)
    assert all(str(error.params[k]) in quoted for k in QUOTING_PARAMS & set(error.params))


def test_an_error_quotes_the_rule_as_written() -> None:
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule("carte.couleur = cœur")
    assert caught.value.params == {"left": "carte.couleur", "right": "cœur"}


def test_a_syntax_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="column 9"):
        parse_rule("card is purple")


# --- Hostile text ---------------------------------------------------------------------------

HOSTILE = [
    "(" * 10_000 + "card is red" + ")" * 10_000,
    "card is red or " * 70_000,
    "card is red\x00",
    "\x00" * 100,
    "__import__('os').system('ls')",
    "lambda: 0",
    "card.__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "card is red; import os",
    "eval('1')",
    "exec",
    "{card}",
    "ｃａｒｄ is red",  # fullwidth letters
    "сard is red",  # a Cyrillic es
    "card is re\u0301d",  # a combining accent
    "card is red\u202e",  # right-to-left override
    "ca\u200brd is red",  # zero-width space
    "card.value = １",  # a fullwidth digit
    "not " * 100 + "card is red",
    "1+" * 200 + "1 = card.value",
    "if " * 100 + "card is red",
    "prev999999999999999999 is red",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_refused_with_a_column(text: str) -> None:
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule(text)
    assert 1 <= caught.value.column <= min(len(text), MAX_LENGTH) + 1


def test_a_megabyte_is_refused_at_once() -> None:
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule("card is red " * 90_000)
    assert (caught.value.code, caught.value.column) == ("too_long", MAX_LENGTH + 1)


def test_a_control_character_is_shown_by_its_code_point() -> None:
    with pytest.raises(RuleSyntaxError) as caught:
        parse_rule("card is\x00red")
    assert caught.value.params == {"found": "U+0000"}


VOCABULARY = [*WORDS, "prev2", "back", "(", ")", ".", "+", "-", "=", "!=", "<", ">=", "3", "13"]
SOME_LINES = [cards(""), cards("KS"), cards("2H 9D QC 10H 3S 3S 7D 8C 9C 10C JC QC KC")]


def outcome(text: str) -> None:
    """Parse ``text``; a rule that reads must judge every card of some lines."""
    try:
        rule = parse_rule(text)
    except RuleSyntaxError as error:
        assert 1 <= error.column <= min(len(text), MAX_LENGTH) + 1
        return
    for line in SOME_LINES:
        for card in ONE_DECK[::5]:
            rule.accepts(line, card)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_random_text_only_ever_raises_a_syntax_error(text: str) -> None:
    outcome(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=25).map(" ".join))
def test_random_words_of_the_language_only_ever_raise_a_syntax_error(text: str) -> None:
    outcome(text)
