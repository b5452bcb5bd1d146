"""Eleusis: the rules of RULES.md §4 as the engine plays them, one clause per test.

Most situations are played with physical cards (``table``): the host enters every card, so a
test chooses them. Digital games (``digital``) get a chosen hand by swapping cards with the deck
(``with_hand``), which keeps every card of the decks somewhere. Rules are written in the rule
language: ``card is red`` and ``card.colour != prev.colour`` are enough for most clauses.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from companion.game import (
    Action,
    AudienceKind,
    Event,
    IllegalAction,
    action_from_json,
)
from companion.games.eleusis.cards import ONE_DECK, Card
from companion.games.eleusis.engine import Eleusis
from companion.games.eleusis.state import (
    ACTIONS,
    AdmitMistake,
    DeclareProphet,
    EleusisState,
    Judge,
    JudgeKind,
    Layout,
    LineCard,
    NoPlay,
    Overturn,
    Phase,
    PlayCards,
    ProphetJudge,
    Termination,
    TurnCard,
    Uphold,
    sort_cards,
)
from companion.record import NO_SEED, public_record, public_setup
from tests import engine_steps as steps

GAME = Eleusis()
refused = functools.partial(steps.refused, GAME)
kinds = steps.kinds
SEED = 11
RED = "card is red"
ALTERNATE = "card.colour != prev.colour"
BLACKS = ("2S", "3C", "4S", "5C", "6S", "7C", "8S", "9C")


# -- helpers ---------------------------------------------------------------------------------------


def cs(*texts: str) -> tuple[Card, ...]:
    return tuple(Card.from_json(t) for t in texts)


def card(text: str) -> Card:
    return Card.from_json(text)


def apply(state: EleusisState, *actions: Action) -> tuple[EleusisState, list[Event]]:
    events: list[Event] = []
    for action in actions:
        state, more = GAME.apply(state, action)
        events.extend(more)
    return state, events


def event(events: Sequence[Event], kind: str) -> Event:
    found = [e for e in events if e.kind == kind]
    assert len(found) == 1, f"{kind}: {kinds(events)}"
    return found[0]


def table(rule: str = RED, players: int = 4, starter: str = "5H", **options: Any) -> EleusisState:
    """Physical cards, the companion as God, started on ``starter`` (seat 0 starts on a 5 at
    four players)."""
    state = GAME.new({"players": players, "rule": rule, "cards": "physical", **options}, SEED)
    state, _ = GAME.apply(state, TurnCard(card(starter)))
    assert state.phase is Phase.PLAY
    return state


def human(players: int = 6, god_seat: int = 0, starter: str = "5H", **options: Any) -> EleusisState:
    """Physical cards and a human God, who accepted ``starter``."""
    state = GAME.new(
        {"players": players, "god": "human", "god_seat": god_seat, "cards": "physical", **options},
        SEED,
    )
    state, _ = apply(state, TurnCard(card(starter)), Judge(god_seat, True))
    return state


def digital(rule: str = RED, players: int = 4, **options: Any) -> EleusisState:
    return GAME.new({"players": players, "rule": rule, **options}, SEED)


def with_hand(state: EleusisState, seat: int, *texts: str) -> EleusisState:
    """Give ``seat`` exactly these cards: they come out of the deck (or another hand, which gets
    one of the deck's instead); the old hand goes to the deck's bottom. Every card of the decks
    stays somewhere."""
    hands = [list(h) for h in state.hands]
    pool = [*state.deck, *hands[seat]]
    hands[seat] = []
    for c in cs(*texts):
        if c not in pool:
            other = next(s for s, hand in enumerate(hands) if c in hand)
            hands[other].remove(c)
            hands[other].append(pool.pop(0))
            pool.append(c)
        pool.remove(c)
        hands[seat].append(c)
    return dataclasses.replace(
        state,
        hands=tuple(sort_cards(h) for h in hands),
        sizes=tuple(len(h) for h in hands),
        deck=tuple(pool),
    )


def with_deck_top(state: EleusisState, *texts: str) -> EleusisState:
    top = cs(*texts)
    rest = list(state.deck)
    for c in top:
        rest.remove(c)
    return dataclasses.replace(state, deck=(*top, *rest))


def with_size(state: EleusisState, seat: int, size: int) -> EleusisState:
    sizes = list(state.sizes)
    sizes[seat] = size
    return dataclasses.replace(state, sizes=tuple(sizes))


def every_card(state: EleusisState) -> Counter[Card]:
    held = [c for hand in state.hands for c in hand]
    pending = () if state.pending is None or state.pending.no_play else state.pending.cards
    return Counter([*state.deck, *held, *state.layout.cards, *pending])


def with_line(state: EleusisState, length: int) -> EleusisState:
    line = tuple(LineCard(ONE_DECK[i % 52], None) for i in range(length))
    return dataclasses.replace(state, layout=Layout(line=line))


@dataclass(frozen=True)
class Predicate:
    """A rule made of a Python function, for the engine's own rule protocol."""

    text: str
    test: Any

    def accepts(self, line: Sequence[Card], card: Card) -> bool:
        return bool(self.test(line, card))


# -- options ---------------------------------------------------------------------------------------


def test_with_the_companion_as_god_2_to_10_players_play() -> None:
    assert digital(players=2).options.seats == (0, 1)
    assert digital(players=10).options.seats == tuple(range(10))
    for players in (1, 11):
        assert refused_options({"players": players}).code == "players_out_of_range"


def refused_options(options: dict[str, Any]) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        GAME.new(options, SEED)
    return caught.value


def test_a_human_god_makes_5_to_10_seats_gods_included() -> None:
    state = GAME.new({"players": 5, "god": "human", "god_seat": 2}, SEED)
    assert state.options.seats == (3, 4, 0, 1)
    assert refused_options({"players": 4, "god": "human"}).code == "players_out_of_range"
    assert refused_options({"players": 11, "god": "human"}).code == "players_out_of_range"


def test_gods_seat_is_a_seat_of_the_table() -> None:
    assert refused_options({"players": 5, "god": "human", "god_seat": 5}).code == "no_such_seat"
    assert (
        refused_options({"players": 5, "god_seat": 1}).code == "option_needs_human_god"
    )  # the companion has no seat


def test_a_rule_is_for_the_companion_as_god_only() -> None:
    error = refused_options({"players": 5, "god": "human", "rule": RED})
    assert error.code == "option_needs_companion_god"


def test_the_companions_rule_is_typed_drawn_or_picked_but_one_only() -> None:
    error = refused_options({"players": 4, "rule": RED, "level": "easy"})
    assert error.code == "one_rule_only"


def test_a_rule_that_cannot_be_read_is_refused_with_its_column() -> None:
    error = refused_options({"players": 4, "rule": "card is red and"})
    assert error.code == "rule_syntax_error"
    assert error.params["column"] == 16
    assert isinstance(error.params["error"], str)


def test_a_rule_that_accepts_no_first_card_is_refused() -> None:
    error = refused_options({"players": 4, "rule": "card is red and card is black"})
    assert error.code == "rule_accepts_no_first_card"


def test_the_default_rule_is_an_easy_one_drawn_from_the_library_with_the_seed() -> None:
    one, two = digital(players=4, rule=None), GAME.new({"players": 4}, SEED)
    assert one.options.level is not None and one.options.level.value == "easy"
    assert one.rule_info == two.rule_info
    assert one.rule_info is not None and one.rule_info.level == "easy"


def test_a_level_draws_a_rule_of_that_level() -> None:
    drawn = {GAME.new({"players": 4, "level": "hard"}, seed).rule_info for seed in range(20)}
    assert {info.level for info in drawn if info is not None} == {"hard"}
    assert len(drawn) > 1


def test_a_library_rule_may_be_picked_by_its_id() -> None:
    state = GAME.new({"players": 4, "rule_id": "red-black"}, SEED)
    assert state.rule_info is not None
    assert state.rule_info.text == ALTERNATE
    assert state.rule_info.description_en is not None
    assert refused_options({"players": 4, "rule_id": "nope"}).code == "no_such_rule"


def test_an_injected_rule_source_judges_like_any_rule() -> None:
    only_aces = Predicate("aces", lambda line, c: c.rank == 1)
    game = Eleusis(parse=lambda text: only_aces)
    state = game.new({"players": 3, "rule": "aces", "cards": "physical"}, SEED)
    state, _ = game.apply(state, TurnCard(card("2H")))
    state, _ = game.apply(state, TurnCard(card("AH")))
    assert state.layout.starter_refused == cs("2H")
    assert state.layout.main == cs("AH")


def test_decks_default_to_2_up_to_4_card_players_3_up_to_7_then_4() -> None:
    assert [digital(players=n).options.decks for n in (2, 4, 5, 7, 8, 10)] == [2, 2, 3, 3, 4, 4]
    human_god = GAME.new({"players": 8, "god": "human"}, SEED)  # 7 card players
    assert human_god.options.decks == 3


def test_2_to_4_decks() -> None:
    assert digital(decks=4).options.decks == 4
    assert refused_options({"players": 4, "decks": 1}).code == "option_out_of_range"
    assert refused_options({"players": 4, "decks": 5}).code == "option_out_of_range"


def test_penalties_default_to_abbotts_new_eleusis() -> None:
    penalties = digital().options.penalties
    assert (penalties.refused, penalties.no_play_smaller) == (2, 4)
    assert (penalties.wrong_no_play, penalties.fallen_prophet) == (5, 4)


def test_the_rules_the_seed_lacks_default_to_abbotts_new_eleusis() -> None:
    """Sudden death after 40 cards played, a prophet at most once, with at least two other
    players still playing, and God scoring the highest score when no prophet stands."""
    options = digital().options
    assert options.sudden_death == 40
    assert options.prophet_once is True
    assert options.prophet_min_others == 2
    assert options.god_without_prophet.value == "highest"
    public = GAME.public_view(digital())["options"]
    assert public["god_without_prophet"] == "highest"
    assert public["prophet_once"] is True and public["prophet_min_others"] == 2


@pytest.mark.parametrize(
    ("option", "value", "code"),
    [
        ("prophet_once", "yes", "option_not_boolean"),
        ("prophet_once", 1, "option_not_boolean"),
        ("prophet_min_others", 0, "option_out_of_range"),
        ("prophet_min_others", 10, "option_out_of_range"),
        ("prophet_min_others", True, "option_out_of_range"),
        ("god_without_prophet", "double", "unknown_option_value"),
    ],
)
def test_the_options_for_the_rules_the_seed_lacks_are_checked(
    option: str, value: Any, code: str
) -> None:
    error = refused_options({"players": 4, option: value})
    assert error.code == code and error.params["option"] == option


def test_an_unknown_option_is_refused() -> None:
    assert refused_options({"players": 4, "jokers": True}).code == "unknown_option"


@pytest.mark.parametrize(
    "options",
    [
        {"players": 4, "rule": RED},
        {"players": 3, "level": "medium", "cards": "physical"},
        {"players": 5, "rule_id": "red-black", "decks": 4, "sudden_death": None},
        {"players": 7, "god": "human", "god_seat": 6, "refused_penalty": 3, "hand_size": 6},
        {"players": 4, "god_without_prophet": "zero", "prophet_once": False},
        {"players": 2, "prophet_min_others": 1, "rule": ALTERNATE},
    ],
)
def test_the_journals_options_set_up_the_same_game(options: dict[str, Any]) -> None:
    state = GAME.new(options, SEED)
    assert GAME.new(GAME.options_json(state), SEED) == state
    assert GAME.options_json(state) == GAME.options_json(GAME.new(GAME.options_json(state), SEED))


def test_the_public_options_hold_no_rule() -> None:
    public = GAME.public_view(digital(rule=ALTERNATE))["options"]
    assert "rule" not in public and "rule_id" not in public


def test_the_deck_must_hold_more_than_the_hands() -> None:
    error = refused_options({"players": 10, "decks": 2, "hand_size": 11})
    assert error.code == "too_few_cards"


# -- setting up ------------------------------------------------------------------------------------


def test_each_card_player_is_dealt_8_cards() -> None:
    state = digital(players=5)
    assert [len(h) for h in state.hands] == [8] * 5
    assert state.sizes == (8,) * 5


def test_a_human_god_is_dealt_no_cards() -> None:
    state = GAME.new({"players": 6, "god": "human", "god_seat": 3}, SEED)
    assert state.hands[3] == ()
    assert GAME.public_view(state)["hand_sizes"][3] is None


def test_the_deal_uses_every_card_of_the_decks_once() -> None:
    state = digital(players=6)
    assert every_card(state) == Counter(ONE_DECK * state.options.decks)


def test_god_turns_cards_until_one_is_accepted_refused_ones_lie_before_the_line() -> None:
    state = GAME.new({"players": 4, "rule": RED, "cards": "physical"}, SEED)
    state, events = apply(state, TurnCard(card("2S")), TurnCard(card("KC")))
    assert state.phase is Phase.STARTER
    state, events = apply(state, TurnCard(card("4D")))
    assert state.layout.starter_refused == cs("2S", "KC")
    assert state.layout.main == cs("4D")
    assert kinds(events)[:2] == ["card_turned", "starter_accepted"]


def test_with_digital_cards_the_companion_turns_the_starter_at_setup() -> None:
    state = digital()
    assert state.phase is Phase.PLAY
    assert state.layout.main[0].red
    assert all(not c.red for c in state.layout.starter_refused)
    opening = kinds(GAME.opening_events(state))
    assert opening[0] == "game_set_up"
    assert "starter_accepted" in opening and opening[-1] == "turn"


def test_the_starters_rank_r_makes_the_rth_player_after_god_start() -> None:
    # the companion sits just before seat 0: the 3rd player after God is seat 2
    assert table(starter="3H").turn == 2


def test_the_count_from_god_wraps_round() -> None:
    assert table(starter="6H", players=4).turn == 1  # the 6th after God: 0 1 2 3 0 1
    assert table(starter="KD", players=4).turn == 0


def test_with_a_human_god_the_count_starts_at_gods_left() -> None:
    assert human(players=6, god_seat=2, starter="2H").turn == 4  # 3 is the 1st, 4 the 2nd


def test_a_human_god_judges_each_starter_card() -> None:
    state = GAME.new({"players": 5, "god": "human", "god_seat": 0}, SEED)
    first = state.turned
    assert first is not None and state.phase is Phase.STARTER
    assert GAME.public_view(state)["judge"] == {"by": "god", "seat": 0}
    state, events = apply(state, Judge(0, False))
    assert state.layout.starter_refused == (first,)
    assert state.turned is not None
    assert kinds(events) == ["starter_verdict", "starter_refused", "card_turned", "verdict_awaited"]
    second = state.turned
    state, _ = apply(state, Judge(0, True))
    assert state.layout.main == (second,)
    assert state.phase is Phase.PLAY


def test_a_human_gods_digital_game_opens_on_the_first_card_turned() -> None:
    state = GAME.new({"players": 5, "god": "human", "god_seat": 4}, SEED)
    opening = GAME.opening_events(state)
    assert [e.kind for e in opening if e.audience.kind is AudienceKind.EVERYONE] == [
        "game_set_up",
        "card_turned",
        "verdict_awaited",
    ]
    hands = [e for e in opening if e.kind == "your_hand"]
    assert [e.audience.seat for e in hands] == [0, 1, 2, 3]


def test_a_deck_without_an_accepted_card_blocks_the_game() -> None:
    state = GAME.new({"players": 2, "rule": RED, "cards": "physical"}, SEED)
    blacks = [c for c in ONE_DECK if not c.red]
    for i in range(state.deck_size):
        state, _ = apply(state, TurnCard(blacks[i % len(blacks)]))
    assert state.phase is Phase.OVER
    assert state.outcome is not None and state.outcome.reason is Termination.BLOCKED
    assert state.scores is not None and state.scores.winners == ()


def test_physical_starter_cards_are_entered_by_the_host_only() -> None:
    state = digital()
    with pytest.raises(IllegalAction):
        GAME.apply(state, TurnCard(card("2H")))
    fresh = GAME.new({"players": 4, "rule": RED, "cards": "physical"}, SEED)
    assert len(list(GAME.legal_actions(fresh, None))) == 52
    assert list(GAME.legal_actions(fresh, 0)) == []


# -- a turn ----------------------------------------------------------------------------------------


def test_only_the_player_in_turn_plays() -> None:
    state = table()
    assert refused(state, PlayCards(1, cs("2H"))).code == "not_your_turn"


def test_a_series_holds_1_to_4_cards() -> None:
    state = table()
    assert refused(state, PlayCards(0, ())).code == "series_length"
    assert refused(state, PlayCards(0, cs("2H", "3H", "4H", "5H", "6H"))).code == "series_length"
    state, _ = apply(state, PlayCards(0, cs("2H", "3H", "4H", "6H")))
    assert state.layout.accepted == 5


def test_accepted_cards_extend_the_main_line() -> None:
    state, events = apply(table(), PlayCards(0, cs("2H", "3D")))
    assert state.layout.main == cs("5H", "2H", "3D")
    assert event(events, "accepted").data == {"seat": 0, "cards": ["2H", "3D"], "position": 1}
    assert state.sizes[0] == 6


def test_each_card_of_a_series_is_judged_after_the_series_cards_before_it() -> None:
    state, _ = apply(table(ALTERNATE), PlayCards(0, cs("2S", "3H", "4C")))
    assert state.layout.main == cs("5H", "2S", "3H", "4C")


def test_a_series_is_refused_as_a_whole_when_one_card_breaks_the_rule() -> None:
    state, events = apply(table(ALTERNATE), PlayCards(0, cs("2S", "3H", "4H")))
    assert state.layout.main == cs("5H")
    assert event(events, "verdict").data["accepted"] is False


def test_refused_cards_go_below_the_last_accepted_card_as_one_group() -> None:
    state, _ = apply(table(), PlayCards(0, cs("2H")), PlayCards(1, cs("3S", "4H")))
    below = state.layout.line[-1].below
    assert [(r.cards, r.seat) for r in below] == [(cs("3S", "4H"), 1)]
    state, events = apply(state, PlayCards(2, cs("6C")))
    assert [r.cards for r in state.layout.line[-1].below] == [cs("3S", "4H"), cs("6C")]
    assert event(events, "refused").data["below"] == 1


def test_a_refused_card_draws_two_penalty_cards_each() -> None:
    state = table()
    deck = state.deck_size
    state, events = apply(state, PlayCards(0, cs("2S", "3H", "4C")))
    assert state.sizes[0] == 8 - 3 + 6
    assert state.deck_size == deck - 6
    assert event(events, "penalty").data == {
        "seat": 0,
        "owed": 6,
        "drawn": 6,
        "reason": "refused",
    }


def test_the_penalty_for_a_refused_card_is_configurable() -> None:
    state, _ = apply(table(refused_penalty=1), PlayCards(0, cs("2S", "3C")))
    assert state.sizes[0] == 8 - 2 + 2


def test_penalties_stop_when_the_deck_runs_out() -> None:
    state = dataclasses.replace(table(), physical_deck=3)
    state, events = apply(state, PlayCards(0, cs("2S", "3C")))
    assert event(events, "penalty").data["drawn"] == 3
    assert state.sizes[0] == 8 - 2 + 3
    assert state.deck_size == 0


def test_then_the_next_player_clockwise_plays() -> None:
    state, events = apply(table(), PlayCards(0, cs("2S")))
    assert state.turn == 1
    assert events[-1] == Event("turn", {"seat": 1})
    state, _ = apply(state, PlayCards(1, cs("2H")), PlayCards(2, cs("3H")), PlayCards(3, cs("4H")))
    assert state.turn == 0


def test_a_card_not_in_the_hand_is_refused_on_the_seats_own_page_only() -> None:
    state = with_hand(digital(), 0, "2H", "3H", "4H", "5S", "6S", "7S", "8S", "9S")
    state = dataclasses.replace(state, turn=0)
    error = refused(state, PlayCards(0, cs("2H", "KD")))
    assert error.code == "card_not_in_hand"
    assert error.params["private_to"] == 0
    assert error.params["eleusis_card"] == "KD"


def test_physical_cards_are_played_while_the_hand_holds_enough() -> None:
    state = with_size(table(), 0, 1)
    assert refused(state, PlayCards(0, cs("2H", "3H"))).code == "not_enough_cards"


def test_penalty_cards_are_shown_to_their_seat_only() -> None:
    state = with_hand(digital(), 0, "2S", "3H", "4H", "5S", "6S", "7S", "8S", "9S")
    state = with_deck_top(dataclasses.replace(state, turn=0), "KH", "QC")
    state, events = apply(state, PlayCards(0, cs("2S")))
    private = event(events, "penalty_cards")
    assert private.audience.kind is AudienceKind.SEAT and private.audience.seat == 0
    assert private.data["cards"] == ["QC", "KH"]
    assert event(events, "penalty").audience.kind is AudienceKind.EVERYONE
    assert "cards" not in event(events, "penalty").data
    assert card("KH") in state.hands[0]


# -- no-play ---------------------------------------------------------------------------------------


def test_a_correct_no_play_replaces_the_hand_by_one_four_cards_smaller() -> None:
    state = table()
    deck = state.deck_size
    state, events = apply(state, NoPlay(0, cs(*BLACKS)))
    assert state.sizes[0] == 4
    assert state.deck_size == deck + 4
    assert event(events, "hand_replaced").data == {"seat": 0, "before": 8, "size": 4}
    assert state.last is not None and state.last.accepted and state.last.no_play


def test_digital_a_correct_no_play_shuffles_the_hand_into_the_deck_and_deals_anew() -> None:
    state = with_hand(digital(), 0, *BLACKS)
    state = dataclasses.replace(state, turn=0)
    before = every_card(state)
    state, events = apply(state, NoPlay(0))
    assert len(state.hands[0]) == 4
    assert every_card(state) == before
    assert event(events, "your_hand").audience.seat == 0


def test_a_correct_no_play_with_four_cards_or_fewer_leaves_no_card_and_ends_the_game() -> None:
    state = with_size(table(), 0, 3)
    state, _ = apply(state, NoPlay(0, cs("2S", "3S", "4S")))
    assert state.sizes[0] == 0
    assert state.outcome is not None and state.outcome.reason is Termination.HAND_EMPTY


def test_a_no_play_shows_as_many_cards_as_the_hand_holds() -> None:
    state = table()
    assert refused(state, NoPlay(0, cs("2S", "3S"))).code == "shown_hand_size"


def test_digital_a_no_play_shows_the_hand_to_the_table() -> None:
    state = with_hand(digital(), 0, *BLACKS)
    shown = [c.to_json() for c in state.hands[0]]
    state, events = apply(dataclasses.replace(state, turn=0), NoPlay(0))
    assert event(events, "no_play").audience.kind is AudienceKind.EVERYONE
    assert event(events, "no_play").data["cards"] == shown
    assert GAME.public_view(state)["last_verdict"]["cards"] == shown


def test_digital_the_companion_shows_the_hand_itself() -> None:
    state = with_hand(digital(), 0, *BLACKS)
    state = dataclasses.replace(state, turn=0)
    assert refused(state, NoPlay(0, cs("2S"))).code == "hand_shown_by_companion"


def test_a_wrong_no_play_god_plays_a_correct_card_of_it_and_the_player_draws_five() -> None:
    state, events = apply(table(), NoPlay(0, cs("2S", "3S", "4S", "5S", "6S", "7S", "9H", "8S")))
    assert state.layout.main == cs("5H", "9H")
    assert state.layout.line[-1].from_no_play
    assert state.sizes[0] == 8 - 1 + 5
    assert event(events, "god_plays").data == {"seat": 0, "card": "9H", "position": 1, "by": "god"}


def test_the_companion_plays_the_first_acceptable_card_by_rank_then_suit() -> None:
    hand = cs("KH", "7D", "7H", "2S", "3S", "4S", "5S", "6S")
    state, _ = apply(table(), NoPlay(0, hand))
    assert state.layout.main[-1] == card("7H")


def test_a_human_god_names_the_card_played_out_of_a_wrong_no_play() -> None:
    state = human()
    seat = state.turn
    assert seat is not None
    state, _ = apply(state, NoPlay(seat, cs(*BLACKS)))
    assert refused(state, Judge(0, False)).code == "name_the_playable_card"
    assert refused(state, Judge(0, False, card("KH"))).code == "card_not_shown"
    state, _ = apply(state, Judge(0, False, card("4S")))
    assert state.layout.main[-1] == card("4S")


# -- a human God -----------------------------------------------------------------------------------


def test_with_a_human_god_a_play_waits_for_gods_verdict() -> None:
    state = human()
    seat = state.turn
    assert seat is not None
    state, events = apply(state, PlayCards(seat, cs("2S")))
    assert state.phase is Phase.JUDGE
    assert events[-1] == Event("verdict_awaited", {"by": "god", "seat": 0})
    state, _ = apply(state, Judge(0, True))
    assert state.layout.main == cs("5H", "2S")


def test_only_god_judges() -> None:
    state = human()
    seat = state.turn
    assert seat is not None
    state, _ = apply(state, PlayCards(seat, cs("2S")))
    assert refused(state, Judge(seat, True)).code == "not_god"


def test_the_companion_takes_no_verdict_from_anyone() -> None:
    state = GAME.new({"players": 4, "rule": RED, "cards": "physical"}, SEED)
    assert refused(state, Judge(None, True)).code == "companion_judges"


def test_a_human_gods_game_holds_no_rule() -> None:
    state = human()
    assert state.rule is None and state.rule_info is None


# -- the prophet -----------------------------------------------------------------------------------


def test_a_player_may_declare_prophet_before_playing_and_then_does_not_play() -> None:
    state, events = apply(table(), DeclareProphet(0))
    assert state.prophet is not None and state.prophet.seat == 0
    assert state.turn == 1
    assert kinds(events) == ["prophet_declared", "turn"]


def test_a_player_may_declare_prophet_just_after_playing() -> None:
    state, _ = apply(table(), PlayCards(0, cs("2H")), DeclareProphet(0))
    assert state.prophet is not None and state.prophet.seat == 0
    assert state.turn == 1


def test_the_chance_to_declare_after_playing_ends_when_the_next_player_acts() -> None:
    state, _ = apply(table(), PlayCards(0, cs("2H")), PlayCards(1, cs("3H")))
    assert refused(state, DeclareProphet(0)).code == "prophet_on_own_turn"


def test_the_marker_lies_on_the_last_accepted_card() -> None:
    state, events = apply(table(), PlayCards(0, cs("2H", "3S")), PlayCards(1, cs("4D")))
    state, events = apply(state, DeclareProphet(1))
    assert state.prophet is not None and state.prophet.marker == 1
    assert event(events, "prophet_declared").data["card"] == "4D"


def test_there_is_one_prophet_at_a_time() -> None:
    state, _ = apply(table(), DeclareProphet(0))
    assert refused(state, DeclareProphet(1)).code == "already_a_prophet"


def test_no_prophet_once_30_cards_have_been_accepted() -> None:
    assert refused(with_line(table(), 30), DeclareProphet(0)).code == "prophet_too_late"
    state, _ = apply(with_line(table(), 29), DeclareProphet(0))
    assert state.prophet is not None


def test_the_prophet_plays_no_more() -> None:
    state, _ = apply(table(), DeclareProphet(0))
    for seat in (1, 2, 3):
        state, _ = apply(state, PlayCards(seat, cs("2H")), ProphetJudge(0, True))
    assert state.turn == 1


def test_the_prophet_judges_the_plays() -> None:
    state, _ = apply(table(), DeclareProphet(0), PlayCards(1, cs("3H")))
    assert state.phase is Phase.JUDGE
    assert GAME.public_view(state)["judge"] == {"by": "prophet", "seat": 0}
    assert refused(state, ProphetJudge(2, True)).code == "not_the_prophet"


def test_a_correct_verdict_of_the_prophet_stands() -> None:
    state, events = apply(
        table(), DeclareProphet(0), PlayCards(1, cs("3S")), ProphetJudge(0, False)
    )
    assert state.prophet is not None
    assert state.sizes[1] == 8 - 1 + 2
    assert state.last is not None and state.last.by is JudgeKind.PROPHET
    assert "overturned" not in kinds(events)


def test_the_companion_overturns_a_wrong_verdict_of_the_prophet() -> None:
    state, events = apply(
        table(), DeclareProphet(0), PlayCards(1, cs("3H")), ProphetJudge(0, False)
    )
    assert "overturned" in kinds(events)
    assert state.layout.main == cs("5H", "3H")
    assert state.last is not None and state.last.overturned


def test_an_overturned_prophet_takes_back_the_hand_plus_four_and_plays_again() -> None:
    state, events = apply(
        table(), DeclareProphet(0), PlayCards(1, cs("3H")), ProphetJudge(0, False)
    )
    assert state.prophet is None
    assert state.fallen == (0,)
    assert state.sizes[0] == 8 + 4
    assert event(events, "prophet_fallen").data == {"seat": 0}
    state, _ = apply(state, PlayCards(2, cs("4H")), PlayCards(3, cs("6H")))
    assert state.turn == 0


def test_a_series_the_prophet_accepted_but_god_refuses_goes_below_without_penalty() -> None:
    state, events = apply(
        table(), DeclareProphet(0), PlayCards(1, cs("3S", "4S")), ProphetJudge(0, True)
    )
    assert state.layout.line[-1].below[-1].cards == cs("3S", "4S")
    assert state.sizes[1] == 8 - 2
    assert event(events, "protected").data == {"seat": 1}
    assert "penalty" in kinds(events)  # the fallen prophet's, not the player's
    assert all(e.data["seat"] == 0 for e in events if e.kind == "penalty")


def test_a_wrong_no_play_the_prophet_approved_loses_one_playable_card_without_penalty() -> None:
    hand = cs("2S", "3S", "4S", "5S", "6S", "7S", "8S", "9H")
    state, _ = apply(table(), DeclareProphet(0), NoPlay(1, hand), ProphetJudge(0, True))
    assert state.layout.main == cs("5H", "9H")
    assert state.sizes[1] == 7
    assert state.fallen == (0,)


def test_the_prophet_plays_a_card_of_a_wrong_no_play() -> None:
    hand = cs("2S", "3S", "4S", "5S", "6S", "7S", "8H", "9H")
    state, events = apply(
        table(), DeclareProphet(0), NoPlay(1, hand), ProphetJudge(0, False, card("9H"))
    )
    assert state.layout.main == cs("5H", "9H")
    assert event(events, "god_plays").data["by"] == "prophet"
    assert state.sizes[1] == 8 - 1 + 5


def test_a_prophet_playing_an_unacceptable_card_of_a_no_play_is_overturned() -> None:
    hand = cs("2S", "3S", "4S", "5S", "6S", "7S", "8S", "9H")
    state, _ = apply(
        table(), DeclareProphet(0), NoPlay(1, hand), ProphetJudge(0, False, card("2S"))
    )
    assert state.fallen == (0,)
    assert state.layout.main == cs("5H", "9H")
    assert state.sizes[1] == 7


def test_a_human_god_reviews_the_prophets_verdict() -> None:
    state, events = apply(human(), DeclareProphet(5), PlayCards(1, cs("3H")), ProphetJudge(5, True))
    assert state.phase is Phase.REVIEW
    assert events[-1].kind == "review_awaited"
    assert list(GAME.legal_actions(state, 0))[:2] == [Uphold(0), Overturn(0)]
    upheld, events = apply(state, Uphold(0))
    assert upheld.layout.main == cs("5H", "3H")
    assert upheld.prophet is not None
    overturned, events = apply(state, Overturn(0))
    assert overturned.layout.line[-1].below[-1].cards == cs("3H")
    assert overturned.fallen == (5,)
    assert overturned.sizes[1] == 7


def test_god_overturning_a_no_play_names_the_card_or_says_the_no_play_was_right() -> None:
    hand = cs("2S", "3S", "4S", "5S", "6S", "7S", "8S", "9H")
    state, _ = apply(human(), DeclareProphet(5), NoPlay(1, hand), ProphetJudge(5, True))
    assert refused(state, Overturn(0)).code == "overturn_changes_nothing"
    state, _ = apply(state, Overturn(0, card("9H")))
    assert state.layout.main[-1] == card("9H")
    assert state.sizes[1] == 7


def test_a_fallen_prophet_is_never_prophet_again() -> None:
    state, _ = apply(table(), DeclareProphet(0), PlayCards(1, cs("3H")), ProphetJudge(0, False))
    state, _ = apply(state, PlayCards(2, cs("4H")), PlayCards(3, cs("6H")))
    assert state.turn == 0
    assert refused(state, DeclareProphet(0)).code == "prophet_only_once"


def fallen_after(played_under: int) -> EleusisState:
    """Seat 0 declares, ``played_under`` cards are played under them (the last, 3H by seat 1,
    accepted by God's rule, is the one the prophet wrongly refuses), and they fall; seat 2 is in
    turn."""
    state, _ = apply(table(sudden_death=None), DeclareProphet(0))
    state = dataclasses.replace(state, played=state.played + played_under - 1)
    state, _ = apply(state, PlayCards(1, cs("3H")), ProphetJudge(0, False))
    assert state.fallen == (0,) and state.turn == 2
    return state


def test_another_prophet_may_declare_if_at_most_30_cards_were_played_under_the_fallen_one() -> None:
    """«Si trente cartes au plus ont été jouées sous le prophète déchu, un autre prophète peut se
    déclarer.» The cards played from the marker to the fall count, the overturned play included."""
    state = fallen_after(30)
    assert state.played_under_fallen == 30
    assert GAME.public_view(state)["played_under_fallen"] == 30
    state, _ = apply(state, DeclareProphet(2))
    assert state.prophet is not None and state.prophet.seat == 2


def test_no_other_prophet_once_more_than_30_cards_were_played_under_the_fallen_one() -> None:
    """«Si trente cartes au plus ont été jouées sous le prophète déchu, un autre prophète peut se
    déclarer»: with 31, none may."""
    error = refused(fallen_after(31), DeclareProphet(2), "prophet_fell_too_late")
    assert error.params == {"played": 31, "prophet": 0, "limit": 30}
    assert 2 not in GAME.public_view(fallen_after(31))["may_declare_prophet"]


def test_cards_played_since_the_fall_do_not_bar_another_prophet() -> None:
    """«... jouées sous le prophète déchu»: what is counted is the fallen prophet's reign, not the
    cards played after the fall."""
    state = fallen_after(3)
    state = dataclasses.replace(state, played=state.played + 40)
    state, _ = apply(state, DeclareProphet(2))
    assert state.prophet is not None and state.prophet.seat == 2


def test_a_fallen_prophet_may_declare_again_when_prophet_once_is_off() -> None:
    """Not in the seed: «un autre prophète» says nothing of the fallen one. Abbott makes a player
    prophet at most once (``prophet_once``, on by default); off, the fallen prophet may return."""
    state, _ = apply(
        table(prophet_once=False), DeclareProphet(0), PlayCards(1, cs("3H")), ProphetJudge(0, False)
    )
    state, _ = apply(state, PlayCards(2, cs("4H")), PlayCards(3, cs("6H")))
    assert state.turn == 0
    state, _ = apply(state, DeclareProphet(0))
    assert state.prophet is not None and state.prophet.seat == 0


def test_a_prophet_needs_two_other_players_still_playing_as_in_abbott() -> None:
    """Not in the seed. Abbott's *New Eleusis*: "two or more players besides yourself and the
    dealer" (option ``prophet_min_others``, default 2)."""
    three = table(players=3, starter="AH")
    state, _ = apply(three, DeclareProphet(0))
    assert state.prophet is not None
    one_left = dataclasses.replace(three, eliminated=(2,))
    error = refused(one_left, DeclareProphet(0), "prophet_needs_players")
    assert error.params == {"seat": 0, "others": 1, "least": 2}
    assert refused(table(players=2, starter="AH"), DeclareProphet(0)).code == (
        "prophet_needs_players"
    )


def test_the_number_of_other_players_a_prophet_needs_is_an_option() -> None:
    state, _ = apply(table(players=2, starter="AH", prophet_min_others=1), DeclareProphet(0))
    assert state.prophet is not None
    four = table(prophet_min_others=4)
    assert refused(four, DeclareProphet(0)).params == {"seat": 0, "others": 3, "least": 4}


def test_the_prophets_hand_stays_in_front_of_them() -> None:
    state = with_hand(digital(), 0, *BLACKS)
    state, _ = apply(dataclasses.replace(state, turn=0), DeclareProphet(0))
    assert GAME.private_view(state, 0)["my_hand"] == sorted(BLACKS, key=lambda t: (card(t).rank, t))


# -- elimination -----------------------------------------------------------------------------------


def test_after_40_cards_played_a_refused_play_eliminates_the_player_without_penalty() -> None:
    state = dataclasses.replace(table(), played=40)
    state, events = apply(state, PlayCards(0, cs("2S")))
    assert state.eliminated == (0,)
    assert state.sizes[0] == 7
    assert "penalty" not in kinds(events)
    assert event(events, "eliminated").data == {"seat": 0}


def test_sudden_death_begins_when_the_40th_card_is_played() -> None:
    state = dataclasses.replace(table(), played=39)
    state, events = apply(state, PlayCards(0, cs("2H")))
    assert event(events, "sudden_death").data == {"played": 40}
    state, _ = apply(state, PlayCards(1, cs("2S")))
    assert state.eliminated == (1,)


def test_an_eliminated_player_plays_no_more() -> None:
    state = dataclasses.replace(table(), played=40)
    state, _ = apply(state, PlayCards(0, cs("2S")))
    state, _ = apply(state, PlayCards(1, cs("2H")), PlayCards(2, cs("3H")), PlayCards(3, cs("4H")))
    assert state.turn == 1


def test_the_game_ends_when_all_players_are_eliminated() -> None:
    state = dataclasses.replace(table(players=2, starter="AH"), played=40)
    state, events = apply(state, PlayCards(0, cs("2S")), PlayCards(1, cs("3S")))
    assert state.outcome is not None and state.outcome.reason is Termination.ALL_ELIMINATED
    assert events[-1].kind == "game_over"


def test_sudden_death_can_be_switched_off() -> None:
    state = dataclasses.replace(table(sudden_death=None), played=100)
    state, _ = apply(state, PlayCards(0, cs("2S")))
    assert state.eliminated == ()
    assert state.sizes[0] == 9


def test_a_player_protected_by_the_prophet_is_not_eliminated() -> None:
    state = dataclasses.replace(table(), played=45)
    state, _ = apply(state, DeclareProphet(0), PlayCards(1, cs("3S")), ProphetJudge(0, True))
    assert state.eliminated == ()


# -- the end ---------------------------------------------------------------------------------------


def test_the_game_ends_when_a_player_has_no_cards_left() -> None:
    state = with_size(table(), 0, 1)
    state, _ = apply(state, PlayCards(0, cs("2H")))
    assert state.phase is Phase.OVER
    assert state.outcome is not None and state.outcome.reason is Termination.HAND_EMPTY
    assert state.outcome.winner == "0"
    assert state.scores is not None and state.scores.points == (8, 0, 0, 0)


def test_a_human_god_may_admit_a_mistake() -> None:
    state, events = apply(human(), AdmitMistake(0))
    assert state.outcome is not None and state.outcome.reason is Termination.GOD_MISTAKE
    assert state.scores is not None and state.scores.change_god
    assert event(events, "mistake_admitted").data == {"seat": 0, "played": 0}


def test_a_late_mistake_costs_god_twenty_points() -> None:
    state = dataclasses.replace(human(), played=4)
    state, _ = apply(state, AdmitMistake(0))
    assert state.scores is not None and state.scores.points == (-20, 0, 0, 0, 0, 0)
    assert state.outcome is not None and state.outcome.winner == "1,2,3,4,5"


def test_a_play_being_judged_when_god_admits_a_mistake_goes_back_to_the_hand() -> None:
    state = human()
    seat = state.turn
    assert seat is not None
    state, _ = apply(state, PlayCards(seat, cs("2S", "3S")), AdmitMistake(0))
    assert state.sizes[seat] == 8


def test_a_starter_card_waiting_when_god_admits_a_mistake_goes_back_on_the_deck() -> None:
    state = GAME.new({"players": 5, "god": "human"}, SEED)
    before = every_card(state) + Counter([state.turned])
    state, _ = apply(state, AdmitMistake(0))
    assert state.turned is None
    assert every_card(state) == before


def test_the_companion_admits_no_mistake() -> None:
    assert refused(table(), AdmitMistake(0)).code == "companion_makes_no_mistake"


def test_a_prophet_standing_at_the_end_scores_a_and_the_companion_min_a_b() -> None:
    state, _ = apply(table(), PlayCards(0, cs("2H")), DeclareProphet(0))  # B = 2 x 2
    state, _ = apply(state, PlayCards(1, cs("3S")), ProphetJudge(0, False))  # refused: 2
    state = with_size(state, 2, 1)
    state, _ = apply(state, PlayCards(2, cs("4H")), ProphetJudge(0, True))  # accepted: 1
    assert state.scores is not None
    assert state.scores.points[0] == 3
    assert state.scores.god == 3
    assert state.scores.prophet is not None and state.scores.prophet.b == 4


def test_without_a_prophet_god_scores_the_highest_score_of_the_players() -> None:
    """The seed scores God only «S'il existait un prophète». Abbott's *New Eleusis*: the dealer
    scores the highest score of the players (option ``god_without_prophet``, default)."""
    state = with_size(human(), 5, 1)
    assert state.turn == 5
    state, _ = apply(state, PlayCards(5, cs("2H")), Judge(0, True))
    assert state.scores is not None
    assert state.scores.points == (8, 0, 0, 0, 0, 8)
    assert state.outcome is not None and state.outcome.winner == "0,5"


def test_without_a_prophet_god_scores_nothing_when_the_option_says_zero() -> None:
    state = with_size(human(god_without_prophet="zero"), 5, 1)
    state, _ = apply(state, PlayCards(5, cs("2H")), Judge(0, True))
    assert state.scores is not None and state.scores.points == (0, 0, 0, 0, 0, 8)


def test_the_companion_as_god_scores_the_highest_score_without_a_seat() -> None:
    state, _ = apply(with_size(table(), 0, 1), PlayCards(0, cs("2H")))
    assert state.scores is not None
    assert state.scores.god == 8 and state.scores.points == (8, 0, 0, 0)


def test_starting_cards_are_laid_but_not_played() -> None:
    """Two counts, two words: cards *laid* lie on the table, the starting cards included; cards
    *played* are the players'."""
    state = GAME.new({"players": 4, "rule": RED, "cards": "physical"}, SEED)
    state, _ = apply(state, TurnCard(card("2S")), TurnCard(card("KC")), TurnCard(card("4D")))
    state, _ = apply(state, PlayCards(3, cs("2S")))
    view = GAME.public_view(state)
    assert (view["accepted"], view["refused"], view["laid"]) == (1, 3, 4)
    assert view["played"] == state.played == 1


def test_total_b_counts_the_cards_laid_up_to_the_marker_starting_cards_included() -> None:
    """«On compte également le nombre de cartes jouées jusqu'à sa marque, que l'on multiplie par
    deux.» This project counts every card lying on the table then: the starting cards too."""
    state = GAME.new({"players": 4, "rule": RED, "cards": "physical"}, SEED)
    state, _ = apply(state, TurnCard(card("2S")), TurnCard(card("KC")), TurnCard(card("4D")))
    state, _ = apply(state, PlayCards(3, cs("2S")), DeclareProphet(0))
    assert state.prophet is not None
    assert (state.prophet.laid_at, state.prophet.played_at) == (4, 1)
    tally = GAME.tally(state)
    assert tally is not None and tally.laid_to_marker == 4 and tally.b == 8


def test_god_admitting_a_mistake_counts_the_cards_played_not_the_starting_cards() -> None:
    """«Si trois cartes au plus ont été jouées, on change de Dieu et il n'y a aucune pénalité.»"""
    state = GAME.new({"players": 5, "god": "human", "cards": "physical"}, SEED)
    state, _ = apply(state, TurnCard(card("2S")), Judge(0, False), TurnCard(card("KC")))
    state, _ = apply(state, Judge(0, False), TurnCard(card("5H")), Judge(0, True))
    assert state.turn == 1
    state, _ = apply(state, PlayCards(1, cs("2H")), Judge(0, True))
    state, _ = apply(state, PlayCards(2, cs("3S")), Judge(0, False))
    state, _ = apply(state, PlayCards(3, cs("4H")), Judge(0, True))
    assert (state.played, state.layout.laid) == (3, 6)
    early, _ = apply(state, AdmitMistake(0))
    assert early.scores is not None and early.scores.change_god
    state, _ = apply(state, PlayCards(4, cs("6H")), Judge(0, True))
    late, _ = apply(state, AdmitMistake(0))
    assert late.scores is not None and late.scores.points == (-20, 0, 0, 0, 0)


def test_nothing_is_played_after_the_end() -> None:
    state, _ = apply(human(), AdmitMistake(0))
    assert refused(state, PlayCards(1, cs("2H"))).code == "game_over"
    assert all(list(GAME.legal_actions(state, s)) == [] for s in (None, 0, 1))


# -- secrets ---------------------------------------------------------------------------------------


def test_the_rule_is_in_no_view_before_the_end() -> None:
    state = GAME.new({"players": 4, "rule_id": "court-keeps-suit"}, SEED)
    views = [GAME.public_view(state), *(GAME.private_view(state, s) for s in range(4))]
    for view in views:
        text = json.dumps(view)
        assert "court-keeps-suit" not in text and "prev.suit" not in text
        assert view["rule"] is None


def game_states(options: dict[str, Any], moves: int = 80) -> list[EleusisState]:
    """A digital game played at random (single cards, no-plays, prophecies, the companion's
    verdicts): every state it goes through, up to the end."""
    rng = random.Random(3)
    state = GAME.new(options, SEED)
    states = [state]
    while state.phase is not Phase.OVER and len(states) < moves:
        seat = state.turn
        assert seat is not None
        declare = GAME.prophet_refusal(state, seat) is None and rng.random() < 0.3
        if state.phase is Phase.JUDGE:
            pending = state.pending
            assert pending is not None and state.prophet is not None
            action: Action = ProphetJudge(state.prophet.seat, rng.random() < 0.5)
            if pending.no_play and not action.accepted:  # type: ignore[attr-defined]
                action = ProphetJudge(state.prophet.seat, False, rng.choice(pending.cards))
        elif declare:
            action = DeclareProphet(seat)
        elif rng.random() < 0.1:
            action = NoPlay(seat)
        else:
            action = PlayCards(seat, (rng.choice(state.hands[seat]),))
        state, _ = GAME.apply(state, action)
        states.append(state)
    return states


def secrets_told(state: EleusisState, secrets: Sequence[str]) -> list[str]:
    """The secrets that ``repr`` or ``str`` of the state, or of its options, prints. A hand
    shown for a no-play (in the play pending or the last verdict) is public."""
    text = " ".join((repr(state), str(state), repr(state.options), str(state.options)))
    shown = repr(state.pending) + repr(state.last)
    orders = [state.deck[:3], *(hand[:3] for hand in state.hands)]
    told = [s for s in secrets if s in text]
    told += [
        f"cards in order {o}"
        for o in orders
        if len(o) == 3 and repr(o)[1:-1] in text and repr(o)[1:-1] not in shown
    ]
    told += [
        f"{name}=" for name in ("seed", "deck", "hands", "rule", "rule_info") if f" {name}=" in text
    ]
    return told


@pytest.mark.parametrize(
    ("options", "secrets"),
    [
        ({"players": 4, "rule": ALTERNATE, "hand_size": 4}, [ALTERNATE, "prev.colour"]),
        (
            {"players": 3, "rule_id": "court-keeps-suit", "hand_size": 3},
            ["court-keeps-suit", "prev.suit"],
        ),
    ],
)
def test_no_repr_of_a_state_tells_the_rule_the_deck_or_a_hand(
    options: dict[str, Any], secrets: list[str]
) -> None:
    states = game_states(options)
    assert states[-1].phase is Phase.OVER, "the game should reach its end"
    assert any(s.prophet is not None for s in states), "a prophet should rise"
    info = states[0].rule_info
    assert info is not None
    secrets = [*secrets, *(d for d in (info.description_en, info.description_fr) if d)]
    for step, state in enumerate(states):
        assert secrets_told(state, secrets) == [], f"step {step}"
    assert not any(s in repr(info) for s in secrets)
    assert not any(s in repr(states[0].rule) for s in secrets)


def test_the_public_view_reveals_the_rule_at_the_end() -> None:
    state = with_size(table(), 0, 1)
    state, events = apply(state, PlayCards(0, cs("2H")))
    assert GAME.public_view(state)["rule"]["text"] == RED
    assert event(events, "game_over").data["rule"]["text"] == RED
    library = GAME.new({"players": 4, "rule_id": "only-red", "cards": "physical"}, SEED)
    library, _ = apply(library, TurnCard(card("5H")))
    library, _ = apply(with_size(library, 0, 1), PlayCards(0, cs("2H")))
    revealed = GAME.public_view(library)["rule"]
    assert revealed["id"] == "only-red" and revealed["level"] == "easy"
    assert set(revealed["description"]) == {"en", "fr"}


def test_the_public_view_shows_hand_sizes_only() -> None:
    state = digital()
    view = GAME.public_view(state)
    assert view["hand_sizes"] == [8, 8, 8, 8]
    text = json.dumps(view)
    for seat in range(4):
        hand = [c.to_json() for c in state.hands[seat]]
        assert f'"{hand[0]}", "{hand[1]}", "{hand[2]}"' not in text
    assert "my_hand" not in view


def test_a_private_view_adds_the_seats_own_hand() -> None:
    state = digital()
    view = GAME.private_view(state, 2)
    assert view["my_hand"] == [c.to_json() for c in state.hands[2]]
    assert {k: v for k, v in view.items() if k not in ("seat", "my_hand")} == GAME.public_view(
        state
    )


def test_physical_cards_leave_no_hand_in_the_private_view() -> None:
    assert GAME.private_view(table(), 0)["my_hand"] is None


# -- actions as JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        TurnCard(card("10S")),
        PlayCards(2, cs("QH", "10S", "AD")),
        NoPlay(1),
        NoPlay(1, cs("2C", "KD")),
        DeclareProphet(3),
        Judge(0, False, card("7C")),
        Judge(None, True),
        ProphetJudge(4, True),
        Overturn(None, card("AS")),
        Uphold(2),
        AdmitMistake(0),
    ],
)
def test_every_action_has_a_json_form(action: Action) -> None:
    data = json.loads(json.dumps(action.to_json()))
    assert action_from_json(ACTIONS, data) == action


# -- records ---------------------------------------------------------------------------------------


def test_an_exported_digital_game_becomes_physical() -> None:
    options = {"players": 5, "god": "human", "god_seat": 1}
    header = public_setup(GAME, [], options, 1234)
    assert header["cards"] == "physical"


def test_an_exported_companion_game_withholds_the_rule_until_the_end() -> None:
    options = {"players": 4, "rule": RED, "cards": "physical"}
    actions: list[Action] = [TurnCard(card("5H")), PlayCards(0, cs("2S"))]
    header = public_setup(GAME, actions, options, SEED)
    assert header["rule_withheld"] is True and "rule" not in header
    record = public_record(GAME, actions, options, SEED)
    assert record == [
        TurnCard(card("5H")),
        Judge(None, True),
        PlayCards(0, cs("2S")),
        Judge(None, False),
    ]


def test_an_exported_game_that_is_over_reveals_the_rule() -> None:
    options = {"players": 4, "rule_id": "only-red", "cards": "physical", "hand_size": 1}
    finished = [TurnCard(card("5H")), PlayCards(0, cs("2H"))]
    assert apply(GAME.new(options, SEED), *finished)[0].phase is Phase.OVER
    header = public_setup(GAME, finished, options, SEED)
    assert header["rule_id"] == "only-red" and "rule_withheld" not in header
    assert public_record(GAME, finished, options, SEED) == finished


def test_replaying_the_public_record_of_a_digital_game_gives_the_same_public_view() -> None:
    options: dict[str, Any] = {"players": 3, "rule": ALTERNATE}
    rng = random.Random(5)
    state = GAME.new(options, SEED)
    actions: list[Action] = []
    while state.phase is not Phase.OVER and len(actions) < 25:
        assert state.turn is not None
        hand = state.hands[state.turn]
        action: Action = (
            NoPlay(state.turn) if rng.random() < 0.2 else PlayCards(state.turn, (rng.choice(hand),))
        )
        actions.append(action)
        state, _ = GAME.apply(state, action)
    header = public_setup(GAME, actions, options, SEED)
    replay = GAME.new(header, NO_SEED)
    for action in public_record(GAME, actions, options, SEED):
        replay, _ = GAME.apply(replay, action)
    mine, theirs = GAME.public_view(replay), GAME.public_view(state)
    assert {k: v for k, v in mine.items() if k != "options"} == {
        k: v for k, v in theirs.items() if k != "options"
    }
