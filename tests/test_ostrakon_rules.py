"""Ostrakon: the rules of RULES.md §2, one clause per test.

Situations in the middle of a game are laid out by hand (``situate``): which philosophers stand
on which square, top of each pile first, where the Sun is and who is under it. A turn's tessons
are written as a string, one letter per seat from seat 0: ``"BBBBBWWW"`` means seats 0 to 4 lay
a black tesson and seats 5 to 7 a white one.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence

import pytest

from companion.game import (
    Action,
    AudienceKind,
    Event,
    IllegalAction,
    MalformedAction,
    action_from_json,
)
from companion.games.ostrakon.engine import Ostrakon
from companion.games.ostrakon.path import DEFAULT_SYMBOLS, DayRule, Path
from companion.games.ostrakon.state import (
    ACTIONS,
    Ask,
    ClaimDisciple,
    ContestDisciple,
    Flip,
    Name,
    OstrakonState,
    Phase,
    Termination,
    Vote,
)
from companion.games.ostrakon.subjects import SubjectDeck, default_subjects
from companion.games.titles import game_for
from tests import engine_steps as steps

GAME = Ostrakon()
play = functools.partial(steps.play, GAME)
refused = functools.partial(steps.refused, GAME)
kinds = steps.kinds
only = steps.only
SEED = 7
W, B = True, False

# The printed tables, copied rather than imported, so that they check the code.
PRINTED_START_SQUARE = {5: 5, 6: 5, 7: 2, 8: 2, 9: 1, 10: 1, 11: 2, 12: 2}
PRINTED_DAYS = {5: 6, 6: 6, 7: 5, 8: 5, 9: 4, 10: 4, 11: 3, 12: 3}
PRINTED_NAMED = {5: 1, 6: 1, 7: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3}


# -- helpers --------------------------------------------------------------------------------------


def new(players: int = 8, pile: Sequence[int] | None = None, **options: object) -> OstrakonState:
    given: dict[str, object] = {"players": players, **options}
    given["pile"] = list(range(players)) if pile is None else list(pile)
    return GAME.new(given, SEED)


def situate(
    state: OstrakonState,
    piles: Mapping[int, Sequence[int]],
    sun: int,
    under_sun: Sequence[int] = (),
    rule: DayRule = DayRule.NORMAL,
    moon: int = 0,
) -> OstrakonState:
    """The same game, with the philosophers laid out as given (top of each pile first)."""
    path = Path.empty()
    for square, pile in piles.items():
        path = path.placed(square, tuple(pile))
    assert sorted([*path.seats(), *under_sun]) == list(range(state.players))
    return dataclasses.replace(
        state, path=path, sun=sun, under_sun=tuple(under_sun), day_rule=rule, moon=moon
    )


def tessons(text: str) -> list[Vote]:
    """One vote per seat, in seat order: W is white, B is black."""
    return [Vote(seat, letter == "W") for seat, letter in enumerate(text)]


def question(state: OstrakonState, text: str) -> tuple[OstrakonState, list[Event]]:
    """The asker puts the question, then everyone votes as ``text`` says, in seat order."""
    assert state.asker is not None
    return play(state, Ask(state.asker), *tessons(text))


def public(events: Iterable[Event]) -> list[dict[str, object]]:
    return [e.to_json() for e in events if e.audience.kind is AudienceKind.EVERYONE]


def result(events: Iterable[Event]) -> Mapping[str, object]:
    return only(events, "turn_result").data


# -- setting up -----------------------------------------------------------------------------------


def test_ostrakon_is_a_registered_game() -> None:
    assert isinstance(game_for("ostrakon"), Ostrakon)


@pytest.mark.parametrize("players", range(5, 13))
def test_all_philosophers_start_in_one_pile_on_the_square_of_their_number(players: int) -> None:
    state = GAME.new({"players": players}, SEED)
    square = PRINTED_START_SQUARE[players]
    assert sorted(state.path.pile(square)) == list(range(players))
    assert [s for s, _ in state.path.squares()] == [square]
    assert state.sun == square
    assert state.under_sun == ()


@pytest.mark.parametrize("players", range(5, 13))
def test_the_calendar_shows_as_many_moons_as_days_by_player_count(players: int) -> None:
    view = GAME.public_view(GAME.new({"players": players}, SEED))
    assert view["days"] == PRINTED_DAYS[players]
    assert view["moons_covered"] == 0
    assert view["day"] == 1


@pytest.mark.parametrize("players", range(5, 13))
def test_corruption_and_oracle_name_k_philosophers_by_player_count(players: int) -> None:
    assert (
        GAME.public_view(GAME.new({"players": players}, SEED))["named_count"]
        == (PRINTED_NAMED[players])
    )


@pytest.mark.parametrize("players", [4, 13, "8", None])
def test_the_game_is_for_five_to_twelve_philosophers(players: object) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": players}, SEED)
    assert caught.value.code == "players_out_of_range"


def test_the_starting_pile_is_shuffled_from_the_seed() -> None:
    piles = {GAME.new({"players": 8}, seed).path.pile(2) for seed in range(20)}
    assert GAME.new({"players": 8}, 3).path.pile(2) == GAME.new({"players": 8}, 3).path.pile(2)
    assert len(piles) > 10
    assert all(sorted(p) == list(range(8)) for p in piles)


def test_a_table_may_give_its_own_starting_pile() -> None:
    state = new(6, pile=[3, 1, 0, 5, 2, 4])
    assert state.path.pile(5) == (3, 1, 0, 5, 2, 4)
    assert state.asker == 3


@pytest.mark.parametrize("pile", [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 4], [0, 1, 2, 3, 4, "5"], 5])
def test_a_starting_pile_must_list_every_philosopher_once(pile: object) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": 6, "pile": pile}, SEED)
    assert caught.value.code == "pile_not_every_philosopher"


def test_unknown_options_are_refused() -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": 6, "moons": 3}, SEED)
    assert caught.value.code == "unknown_option"


def test_the_options_give_back_the_same_game() -> None:
    state = GAME.new({"players": 9, "subjects": ["sea", "Dragons", {"en": "cats"}]}, 5)
    again = GAME.new(json.loads(json.dumps(GAME.options_json(state))), 5)
    assert again == state


def test_the_opening_announces_the_setup_the_first_day_and_the_first_question() -> None:
    state = new(8)
    events = GAME.opening_events(state)
    assert kinds(events) == ["game_set_up", "day_started", "turn_started"]
    assert events[0].data["square"] == 2
    assert events[0].data["pile"] == list(range(8))
    assert events[0].data["days"] == 5
    assert events[1].data == {"day": 1, "days": 5, "rule": "normal", "sun": 2, "named_count": 2}


# -- the announcement and the question -------------------------------------------------------------


def test_the_asker_is_the_top_of_the_illuminated_pile_and_the_next_asker_the_one_below() -> None:
    state = new(8, pile=[4, 6, 0, 1, 2, 3, 5, 7])
    turn = only(GAME.opening_events(state), "turn_started").data
    assert turn["asker"] == 4
    assert turn["next_asker"] == 6
    assert turn["subject"] == state.subject
    assert turn["next_subject"] == state.next_subject
    assert turn["last_of_day"] is False


def test_the_next_asker_is_the_top_of_the_pile_behind_when_the_asker_stands_alone() -> None:
    state = situate(new(8), {6: [0], 4: [1, 2], 9: [3, 4, 5]}, sun=6, under_sun=[6, 7])
    assert GAME.next_asker(state) == 1


def test_before_the_days_last_question_the_next_asker_is_not_known() -> None:
    state = situate(new(8), {3: [0], 9: [1, 2, 3, 4, 5]}, sun=3, under_sun=[6, 7])
    turn = GAME.turn_event(state).data
    assert turn["next_asker"] is None
    assert turn["last_of_day"] is True


def test_only_the_asker_puts_the_question() -> None:
    state = new(8)
    error = refused(state, Ask(3), "not_the_asker")
    assert error.params == {"seat": 3, "turn": 0}
    after, events = play(state, Ask(0))
    assert after.phase is Phase.VOTE
    assert kinds(events) == ["question_asked"]


def test_votes_and_disciples_wait_for_the_question() -> None:
    state = new(8)
    refused(state, Vote(2, W), "question_not_asked")
    refused(state, ClaimDisciple(2), "question_not_asked")


def test_everyone_votes_the_asker_included() -> None:
    state, _ = play(new(8), Ask(0), *tessons("BBBBBWWW")[1:])
    assert state.phase is Phase.VOTE
    state, events = play(state, Vote(0, B))
    assert "turn_result" in kinds(events)


def test_a_tesson_is_told_to_its_owner_only_and_the_table_hears_that_it_was_laid() -> None:
    state, _ = play(new(8), Ask(0))
    state, events = play(state, Vote(3, W))
    mine = only(events, "your_vote")
    assert mine.audience.kind is AudienceKind.SEAT and mine.audience.seat == 3
    assert public(events) == [{"kind": "vote_in", "seat": 3, "voted": 1}]
    view = GAME.public_view(state)
    assert view["voted"] == [3]
    assert view["tessons"] == [None] * 8
    assert GAME.private_view(state, 3)["my_vote"] == "white"
    assert GAME.private_view(state, 4)["my_vote"] is None


def test_a_tesson_may_be_changed_until_the_tessons_are_shown() -> None:
    state, _ = play(new(8), Ask(0), Vote(1, W))
    state, events = play(state, Vote(1, B))
    assert public(events) == []  # the table already knew seat 1 had voted
    state, events = play(state, *tessons("BBBBBWWW")[2:], Vote(0, B))
    assert result(events)["votes"][1] == "black"
    assert result(events)["steps"] == 3


# -- the count -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("others_black", "steps"),
    [(0, 0), (1, 0), (2, 0), (3, 0), (4, 3), (5, 2), (6, 1), (7, 0)],
)
def test_the_seed_example_asker_black_among_seven_others(others_black: int, steps: int) -> None:
    """7 others, the asker black: 4 black and 3 white advance 3; 7 black, or fewer than 4, send
    the asker under the Sun (RULES.md §2)."""
    text = "B" + "B" * others_black + "W" * (7 - others_black)
    state, events = question(new(8), text)
    moved = result(events)
    assert moved["same"] == others_black
    if steps:
        assert moved["moved"] == "forward"
        assert moved["steps"] == steps
        assert state.path.top(2 + steps) == 0
    else:
        assert moved["moved"] == "under_sun"
        assert state.under_sun == (0,)


def test_exactly_half_of_the_others_agreeing_is_enough() -> None:
    state, events = question(new(7), "WWWWBBB")  # 6 others: 3 white like the asker, 3 black
    assert (result(events)["same"], result(events)["steps"]) == (3, 3)
    assert state.path.top(5) == 0


def test_a_unanimous_vote_sends_the_asker_under_the_sun() -> None:
    state, events = question(new(8), "WWWWWWWW")
    assert result(events)["contrary"] == 0
    assert result(events)["moved"] == "under_sun"
    assert state.under_sun == (0,)
    assert 0 not in state.path.seats()


def test_the_result_is_told_as_counts_of_white_and_black() -> None:
    _, events = question(new(8), "BBBBBWWW")
    revealed = only(events, "votes_revealed").data
    assert (revealed["white"], revealed["black"]) == (3, 5)
    assert (result(events)["white"], result(events)["black"]) == (3, 5)


def test_the_asker_lands_on_top_of_a_pile_already_there() -> None:
    state = situate(new(8), {2: [0, 1, 2, 3, 4], 5: [5, 6, 7]}, sun=2)
    state, _ = question(state, "BBBBBWWW")
    assert state.path.pile(5) == (0, 5, 6, 7)


def test_the_temple_is_the_square_after_sixteen_and_nobody_goes_further() -> None:
    state = situate(new(8), {15: [0], 1: [1, 2, 3, 4, 5, 6, 7]}, sun=15)
    state, events = question(state, "BBBBBWWW")  # 3 contrary: 15 + 3 would be 18
    assert result(events)["to"] == 17
    assert state.path.pile(17) == (0,)


def test_the_last_to_reach_the_temple_lies_on_top() -> None:
    state = situate(new(8), {16: [0], 17: [3], 1: [1, 2, 4, 5, 6, 7]}, sun=16)
    state, _ = question(state, "BBBBBWWW")
    assert state.path.pile(17) == (0, 3)


def test_the_asker_goes_under_the_sun_below_those_already_there() -> None:
    state = situate(new(8), {4: [0, 1, 2], 2: [3, 4, 5, 6, 7]}, sun=4)
    state, _ = question(state, "WWWWWWWW")
    state, _ = question(state, "BBBBBBBB")
    assert state.under_sun == (0, 1)
    assert state.asker == 2


# -- the Sun ---------------------------------------------------------------------------------------


def test_the_illuminated_pile_emptied_the_pile_under_the_sun_returns_and_the_sun_walks_back() -> (
    None
):
    state = situate(new(8), {5: [0], 3: [2, 3], 1: [4, 5, 6, 7]}, sun=5, under_sun=[1])
    state, events = question(state, "WWWWWWWW")
    assert state.path.pile(5) == (1, 0)
    assert state.under_sun == ()
    assert state.sun == 3
    assert only(events, "under_sun_returned").data == {"square": 5, "pile": [1, 0]}
    assert only(events, "sun_moved").data == {"from": 5, "to": 3, "day_end": False}
    assert state.asker == 2
    assert only(events, "turn_started").data["next_asker"] == 3


def test_the_sun_stays_while_its_pile_has_philosophers() -> None:
    state, events = question(new(8), "BBBBBWWW")
    assert state.sun == 2
    assert "sun_moved" not in kinds(events)
    assert state.asker == 1


# -- the end of a day ------------------------------------------------------------------------------


def last_question_of_day_one(leader: int, **options: object) -> OstrakonState:
    """Philosopher 0 alone on square 1, the only one still to ask; the others lead on ``leader``."""
    return situate(new(5, **options), {1: [0], leader: [1, 2, 3, 4]}, sun=1)


def test_the_day_ends_when_the_sun_finds_no_pile_behind() -> None:
    state, events = question(last_question_of_day_one(9), "WWWWW")
    assert kinds(events)[-4:] == ["sun_moved", "day_ended", "day_started", "turn_started"]
    assert only(events, "sun_moved").data == {"from": 1, "to": 9, "day_end": True}
    assert only(events, "day_ended").data == {"day": 1, "moons_covered": 1, "days": 6}
    assert state.sun == 9  # 1. the Sun illuminates the leading pile
    assert state.moon == 1  # 2. the Moon covers one more moon
    assert state.asker == 1
    assert GAME.public_view(state)["day"] == 2


@pytest.mark.parametrize(
    ("leader", "rule"),
    [(4, "corruption"), (6, "oracle"), (8, "tromperie"), (10, "corruption"), (7, "normal")],
)
def test_the_new_day_rule_is_the_symbol_of_the_suns_square(leader: int, rule: str) -> None:
    state, events = question(last_question_of_day_one(leader), "WWWWW")
    assert state.day_rule.value == rule  # 3. the Day Rule from the Sun's square
    assert only(events, "day_started").data["rule"] == rule


def test_a_square_without_symbol_makes_a_normal_day_again() -> None:
    state = dataclasses.replace(last_question_of_day_one(9), day_rule=DayRule.TROMPERIE)
    state, _ = play(state, Ask(0), *tessons("WWWWW"), Flip(0, False))
    assert state.day_rule is DayRule.NORMAL


def test_the_first_day_is_normal_whatever_the_starting_square() -> None:
    state = new(5, symbols={"5": "oracle"})
    assert state.sun == 5
    assert state.day_rule is DayRule.NORMAL


def test_the_symbols_are_an_option_with_a_documented_default() -> None:
    assert GAME.options_json(new(5))["symbols"] == {
        str(square): rule.value for square, rule in DEFAULT_SYMBOLS.items()
    }
    state, _ = question(last_question_of_day_one(9, symbols={"9": "oracle"}), "WWWWW")
    assert state.day_rule is DayRule.ORACLE
    state, _ = question(last_question_of_day_one(4, symbols={}), "WWWWW")
    assert state.day_rule is DayRule.NORMAL


@pytest.mark.parametrize(
    ("symbols", "code"),
    [
        ({"17": "oracle"}, "no_such_square"),
        ({"0": "oracle"}, "no_such_square"),
        ({"two": "oracle"}, "no_such_square"),
        ({"3": "normal"}, "unknown_option_value"),
        (["oracle"], "symbols_not_a_mapping"),
    ],
)
def test_symbols_must_name_a_square_and_a_special_day(symbols: object, code: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": 5, "symbols": symbols}, SEED)
    assert caught.value.code == code


def test_those_in_the_temple_ask_no_more_questions() -> None:
    state = situate(new(5), {17: [1], 1: [0], 5: [2, 3, 4]}, sun=1)
    state, _ = question(state, "WWWWW")
    assert state.sun == 5  # the leading pile on the path, not the Temple's
    assert state.asker == 2


# -- special days ----------------------------------------------------------------------------------


def test_corruption_step_by_step() -> None:
    """8 philosophers: k = 2. The asker shows a white tesson, names 1 and 2 (both black), whose
    tessons turn white: 4 of the 7 others now agree, 3 do not: the asker advances 3."""
    state = situate(new(8), {2: list(range(8))}, sun=2, rule=DayRule.CORRUPTION)
    state, events = question(state, "WBBBWBWB")
    assert kinds(events)[-3:] == ["all_voted", "asker_shows", "name_awaited"]
    assert only(events, "asker_shows").data == {"asker": 0, "vote": "white"}
    assert only(events, "name_awaited").data["count"] == 2
    assert state.phase is Phase.NAME
    assert GAME.public_view(state)["tessons"] == ["white", *[None] * 7]

    refused(state, Vote(3, W), "no_vote_now")
    refused(state, Name(0, (1,)), "wrong_number_named")
    refused(state, Name(0, (0, 1)), "asker_names_self")
    refused(state, Name(0, (1, 1)), "philosopher_named_twice")
    refused(state, Name(3, (1, 2)), "not_the_asker")
    refused(state, Flip(0, True), "no_flip_now")

    state, events = play(state, Name(0, (1, 2)))
    named = only(events, "philosophers_named").data
    assert named["tessons"] == [
        {"seat": 1, "vote": "black", "now": "white"},
        {"seat": 2, "vote": "black", "now": "white"},
    ]
    assert named["corrupted"] is True
    assert only(events, "votes_revealed").data["shown_now"] == [3, 4, 5, 6, 7]
    assert (result(events)["same"], result(events)["steps"]) == (4, 3)
    assert (result(events)["white"], result(events)["black"]) == (5, 3)


def test_oracle_step_by_step() -> None:
    """8 philosophers: k = 2. The asker votes black; the named 1 and 2 show white; the asker
    turns their tesson, unseen, to white: 5 of the 7 others agree, 2 do not: advance 2."""
    state = situate(new(8), {2: list(range(8))}, sun=2, rule=DayRule.ORACLE)
    state, events = question(state, "BWWWWBBW")
    assert kinds(events)[-2:] == ["all_voted", "name_awaited"]
    assert GAME.public_view(state)["tessons"] == [None] * 8  # not even the asker's

    state, events = play(state, Name(0, (1, 2)))
    assert only(events, "philosophers_named").data["tessons"] == [
        {"seat": 1, "vote": "white", "now": "white"},
        {"seat": 2, "vote": "white", "now": "white"},
    ]
    assert kinds(events)[-1] == "flip_awaited"
    assert state.phase is Phase.FLIP
    assert GAME.public_view(state)["tessons"] == [None, "white", "white", *[None] * 5]

    refused(state, Flip(3, True), "not_the_asker")
    refused(state, Name(0, (1, 2)), "not_naming_now")
    state, events = play(state, Flip(0, True))
    mine = only(events, "your_flip")
    assert mine.audience.kind is AudienceKind.SEAT and mine.audience.seat == 0
    assert mine.data == {"seat": 0, "flip": True, "vote": "white"}
    assert only(events, "flip_decided").data == {"asker": 0}  # kept or turned: not said
    assert only(events, "votes_revealed").data["shown_now"] == [0, 3, 4, 5, 6, 7]
    assert result(events)["asker_vote"] == "white"
    assert (result(events)["same"], result(events)["steps"]) == (5, 2)


def test_oracle_the_asker_may_keep_their_tesson() -> None:
    state = situate(new(8), {2: list(range(8))}, sun=2, rule=DayRule.ORACLE)
    state, _ = question(state, "BWWWWBBW")
    state, events = play(state, Name(0, (1, 2)), Flip(0, False))
    assert result(events)["asker_vote"] == "black"
    assert result(events)["moved"] == "under_sun"


def test_tromperie_step_by_step() -> None:
    """The asker votes white; 4 others black, 3 white: all are shown, then the asker turns
    their tesson, in the open, to black: 4 agree, 3 do not: advance 3."""
    state = situate(new(8), {2: list(range(8))}, sun=2, rule=DayRule.TROMPERIE)
    state, events = question(state, "WBBBBWWW")
    assert kinds(events)[-3:] == ["all_voted", "votes_revealed", "flip_awaited"]
    assert state.phase is Phase.FLIP
    assert GAME.public_view(state)["tessons"] == ["white"] + ["black"] * 4 + ["white"] * 3
    refused(state, Name(0, (1, 2)), "not_naming_now")
    state, events = play(state, Flip(0, True))
    assert public(events)[0] == {"kind": "asker_flipped", "asker": 0, "flip": True, "vote": "black"}
    assert (result(events)["same"], result(events)["steps"]) == (4, 3)


@pytest.mark.parametrize("flip", [False, True])
def test_tromperie_cannot_beat_a_unanimous_vote_of_the_others(flip: bool) -> None:
    state = situate(new(8), {2: list(range(8))}, sun=2, rule=DayRule.TROMPERIE)
    state, _ = question(state, "WBBBBBBB")
    state, events = play(state, Flip(0, flip))
    assert result(events)["moved"] == "under_sun"


def test_a_normal_day_has_no_naming_and_no_flip() -> None:
    state, _ = play(new(8), Ask(0))
    refused(state, Name(0, (1, 2)), "not_naming_now")
    refused(state, Flip(0, True), "no_flip_now")


def twin(state: OstrakonState, keep: Iterable[int] = ()) -> OstrakonState:
    """The same moment, every tesson still face down (but those in ``keep``) turned over."""
    kept = set(keep)
    votes = tuple(
        v if v is None or shown or seat in kept else not v
        for seat, (v, shown) in enumerate(zip(state.votes, state.shown, strict=True))
    )
    return dataclasses.replace(state, votes=votes)


SHOWN_BEFORE_THE_END = {  # whose tessons are face up before the rest, in the scene below
    DayRule.NORMAL: (),
    DayRule.TROMPERIE: (),
    DayRule.CORRUPTION: (0,),  # the asker shows theirs
    DayRule.ORACLE: (1, 2),  # the named
}


@pytest.mark.parametrize("rule", list(DayRule))
def test_no_tesson_face_down_shows_in_the_public_view_or_the_tables_events(rule: DayRule) -> None:
    """Twin tables whose face-down tessons differ look the same to everyone, step by step."""
    state = situate(new(8), {2: list(range(8))}, sun=2, rule=rule)
    state, _ = play(state, Ask(0), *tessons("WBWBBWW"))
    other = twin(state, keep=SHOWN_BEFORE_THE_END[rule])
    assert GAME.public_view(state) == GAME.public_view(other)
    for seat in range(8):
        mine, theirs = GAME.private_view(state, seat), GAME.private_view(other, seat)
        mine.pop("my_vote"), theirs.pop("my_vote")
        assert mine == theirs
    if rule in (DayRule.NORMAL, DayRule.TROMPERIE):
        return  # the last vote shows every tesson
    state, events = play(state, Vote(7, B))
    other, twin_events = play(other, Vote(7, W))
    assert public(events) == public(twin_events)
    assert GAME.public_view(state) == GAME.public_view(other)
    if rule is DayRule.CORRUPTION:
        return  # naming shows every tesson
    state, events = play(state, Name(0, (1, 2)))
    other, twin_events = play(other, Name(0, (1, 2)))
    assert public(events) == public(twin_events)
    assert GAME.public_view(state) == GAME.public_view(other)
    assert GAME.public_view(state)["tessons"][0] is None
    state, events = play(state, Flip(0, True))
    other, twin_events = play(other, Flip(0, True))
    for told in (public(events), public(twin_events)):  # the tessons are then all shown
        assert told[0] == {"kind": "flip_decided", "asker": 0}
        assert told[1]["kind"] == "votes_revealed"


# -- the disciple ----------------------------------------------------------------------------------


def disciple_scene() -> OstrakonState:
    """The Sun on square 6, philosopher 0 asking; 2 on top on square 3 with 3 below; 4 alone on
    square 2; 5 ahead on square 9; 6 and 7 under the Sun. The question is put."""
    state = situate(new(8), {6: [0, 1], 3: [2, 3], 2: [4], 9: [5]}, sun=6, under_sun=[6, 7], moon=1)
    return play(state, Ask(0))[0]


def test_a_philosopher_on_top_of_a_pile_behind_the_asker_may_become_the_disciple() -> None:
    state, events = play(disciple_scene(), ClaimDisciple(2))
    assert public(events) == [{"kind": "disciple_claimed", "seat": 2, "asker": 0, "square": 3}]
    assert state.disciple == 2
    assert GAME.public_view(state)["olive_branches"][2] == "used"
    assert GAME.public_view(state)["disciple"] == 2


@pytest.mark.parametrize(
    ("seat", "code", "params"),
    [
        (3, "disciple_not_on_top", {"seat": 3, "square": 3}),
        (1, "disciple_not_on_top", {"seat": 1, "square": 6}),
        (5, "disciple_not_behind", {"seat": 5, "square": 9, "asker_square": 6}),
        (6, "disciple_under_sun", {"seat": 6}),
        (0, "disciple_is_asker", {"seat": 0}),
    ],
)
def test_a_disciple_claim_is_refused_naming_the_failed_condition(
    seat: int, code: str, params: dict[str, int]
) -> None:
    assert refused(disciple_scene(), ClaimDisciple(seat), code).params == params


def test_a_disciple_must_still_show_the_olive_branch() -> None:
    state = disciple_scene()
    state = dataclasses.replace(state, olive=(True, True, False, True, True, True, True, True))
    refused(state, ClaimDisciple(2), "disciple_used")


def test_the_first_claim_stands_and_a_second_is_refused() -> None:
    state, _ = play(disciple_scene(), ClaimDisciple(4))  # 4 is even further from the Temple
    error = refused(state, ClaimDisciple(2), "disciple_taken")
    assert error.params == {"seat": 2, "claimant": 4}


def test_a_disciple_may_claim_until_all_the_others_have_voted() -> None:
    state, _ = play(disciple_scene(), *tessons("WWWWWWW")[1:7], Vote(2, B))
    state, _ = play(state, ClaimDisciple(2))  # 7 has not voted yet, the claimant has
    assert state.disciple == 2
    late, _ = play(disciple_scene(), *tessons("WWWWWWWW")[1:])
    assert late.phase is Phase.VOTE  # only the asker is still to vote
    refused(late, ClaimDisciple(2), "disciple_too_late")


def test_a_disciple_advances_as_far_as_the_asker() -> None:
    state, _ = play(disciple_scene(), ClaimDisciple(2))
    state, events = play(state, *tessons("BBBBBBWW"))  # 5 agree, 2 do not: advance 2
    moved = result(events)
    assert (moved["disciple"], moved["disciple_from"], moved["disciple_to"]) == (2, 3, 5)
    assert moved["disciple_steps"] == 2
    assert state.path.pile(5) == (2,)
    assert state.path.pile(3) == (3,)
    assert state.path.top(8) == 0


@pytest.mark.parametrize("text", ["BBBBBWWW", "BBBBBBWW"])  # the asker advances 3, then 2
def test_a_disciple_never_passes_the_suns_square_stops_on_it_and_asks_next(text: str) -> None:
    state = situate(new(8), {6: [0, 1], 4: [2, 3], 2: [4], 9: [5]}, sun=6, under_sun=[6, 7])
    state, _ = play(state, Ask(0), ClaimDisciple(2))
    state, events = play(state, *tessons(text))
    assert result(events)["disciple_to"] == 6
    assert state.path.pile(6) == (2, 1)  # on top of the illuminated pile
    assert state.asker == 2


def test_a_disciple_stays_when_the_asker_goes_under_the_sun() -> None:
    state, _ = play(disciple_scene(), ClaimDisciple(2))
    state, events = play(state, *tessons("WWWWWWWW"))
    assert result(events)["disciple_to"] is None
    assert state.path.pile(3) == (2, 3)
    assert state.olive[2] is False


def test_a_philosopher_is_a_disciple_once_per_game() -> None:
    state, _ = play(disciple_scene(), ClaimDisciple(4))
    state, _ = play(state, *tessons("WWWWWWWW"))  # 0 under the Sun; 1 asks next
    assert state.disciple is None
    state, _ = play(state, Ask(1))
    refused(state, ClaimDisciple(4), "disciple_used")
    assert GAME.public_view(state)["olive_branches"] == ["unused"] * 4 + ["used"] + ["unused"] * 3


def test_a_refused_claim_costs_nothing() -> None:
    state = disciple_scene()
    refused(state, ClaimDisciple(3), "disciple_not_on_top")
    assert state.olive[3] is True
    assert ClaimDisciple(2) in list(GAME.legal_actions(state, 2))
    assert ClaimDisciple(3) not in list(GAME.legal_actions(state, 3))
    assert GAME.private_view(state, 2)["may_claim_disciple"] is True


# "un joueur, et un seul (celui qui a été le premier à se définir « disciple » ; en cas de
# contestation c'est le joueur qui se trouve le plus loin de l'arrivée qui gagne)"
# In disciple_scene, 2 is on top on square 3 and 4 alone on square 2: 4 is farther from the
# Temple (l'arrivée).


def test_two_disciples_at_once_the_one_farthest_from_the_arrival_wins() -> None:
    """ "en cas de contestation c'est le joueur qui se trouve le plus loin de l'arrivée qui
    gagne": two claims made together, neither accepted yet."""
    state, events = play(disciple_scene(), ContestDisciple((2, 4)))
    assert public(events) == [
        {
            "kind": "disciple_contested",
            "seats": [2, 4],
            "seat": 4,
            "asker": 0,
            "square": 2,
            "squares": [3, 2],
        }
    ]
    assert (state.disciple, state.claimants) == (4, (2, 4))
    assert GAME.public_view(state)["olive_branches"][2] == "unused"  # 2 is not the disciple
    assert GAME.public_view(state)["olive_branches"][4] == "used"
    assert GAME.public_view(state)["disciple_claimants"] == [2, 4]


def test_two_disciples_at_once_the_first_to_reach_the_companion_does_not_win_by_that() -> None:
    """The claim that reached the companion first was accepted; a claim made together with it
    contests it, and the one farthest from the arrival wins, not the first."""
    state, _ = play(disciple_scene(), ClaimDisciple(2))
    state, events = play(state, ContestDisciple((2, 4)))
    assert only(events, "disciple_contested").data["seat"] == 4
    assert state.disciple == 4
    assert state.olive[2] is True  # the card turned back: 2 may be a disciple later in the game
    state, events = play(state, *tessons("BBBBBBWW"))  # the asker advances 2: so does 4
    assert (result(events)["disciple"], result(events)["disciple_to"]) == (4, 4)


def test_two_disciples_at_once_the_first_claim_stands_if_it_is_farthest() -> None:
    state, _ = play(disciple_scene(), ClaimDisciple(4))
    state, events = play(state, ContestDisciple((2, 4)))
    assert only(events, "disciple_contested").data["seat"] == 4
    assert (state.disciple, state.olive[2], state.olive[4]) == (4, True, False)


def test_a_contest_settles_on_the_farthest_of_three_claimants() -> None:
    scene = situate(new(8), {6: [0, 1], 3: [2, 3], 2: [4], 1: [5]}, sun=6, under_sun=[6, 7])
    state, _ = play(scene, Ask(0), ClaimDisciple(4), ContestDisciple((2, 4)))
    state, events = play(state, ContestDisciple((2, 4, 5)))
    assert only(events, "disciple_contested").data["seats"] == [2, 4, 5]
    assert (state.disciple, state.olive[:6]) == (5, (True, True, True, True, True, False))


def test_a_contest_keeps_the_claims_standing_even_if_it_names_only_one_of_them() -> None:
    scene = situate(new(8), {6: [0, 1], 3: [2, 3], 2: [4], 1: [5]}, sun=6, under_sun=[6, 7])
    state, _ = play(scene, Ask(0), ContestDisciple((2, 4)))
    state, _ = play(state, ContestDisciple((2, 5)))
    assert (state.disciple, state.claimants) == (5, (2, 4, 5))


def test_a_claim_alone_after_the_first_is_still_refused() -> None:
    """ "celui qui a été le premier à se définir « disciple »": a claim that was not made
    together with the one standing (it names none of its claimants) is refused."""
    state, _ = play(disciple_scene(), ClaimDisciple(2))
    error = refused(state, ContestDisciple((4, 0)), "disciple_taken")
    assert error.params == {"seat": 4, "claimant": 2}


def test_a_claim_made_together_with_the_first_may_come_after_the_last_vote() -> None:
    """The first claim came before all the others had voted: a claim made together with it did
    too, even if the contest is settled once they have."""
    state, _ = play(disciple_scene(), ClaimDisciple(2), *tessons("WWWWWWWW")[1:])
    assert state.phase is Phase.VOTE  # only the asker is still to vote
    state, _ = play(state, ContestDisciple((2, 4)))
    assert state.disciple == 4
    late, _ = play(disciple_scene(), *tessons("WWWWWWWW")[1:])
    refused(late, ContestDisciple((2, 4)), "disciple_too_late")


@pytest.mark.parametrize(
    ("seats", "code", "params"),
    [
        ((2, 3), "disciple_not_on_top", {"seat": 3, "square": 3}),
        ((5, 2), "disciple_not_behind", {"seat": 5, "square": 9, "asker_square": 6}),
        ((2, 6), "disciple_under_sun", {"seat": 6}),
        ((0, 2), "disciple_is_asker", {"seat": 0}),
        ((2,), "contest_needs_two", {"given": 1}),
        ((), "contest_needs_two", {"given": 0}),
        ((2, 2), "philosopher_named_twice", {"seat": 2}),
        ((2, 9), "no_such_seat", {"seat": 9, "players": 8}),
    ],
)
def test_a_contest_is_refused_naming_the_claimant_who_fails_a_condition(
    seats: tuple[int, ...], code: str, params: dict[str, int]
) -> None:
    assert refused(disciple_scene(), ContestDisciple(seats), code).params == params


def test_a_contest_already_settled_is_refused() -> None:
    state, _ = play(disciple_scene(), ContestDisciple((2, 4)))
    assert refused(state, ContestDisciple((4, 2)), "contest_settled").params == {"seat": 4}
    used = dataclasses.replace(
        disciple_scene(), olive=(True, True, True, True, False) + (True,) * 3
    )
    refused(used, ContestDisciple((2, 4)), "disciple_used")


def test_a_contest_waits_for_the_question_and_ends_with_the_vote() -> None:
    scene = situate(new(8), {6: [0, 1], 3: [2, 3], 2: [4], 9: [5]}, sun=6, under_sun=[6, 7])
    refused(scene, ContestDisciple((2, 4)), "question_not_asked")
    state, _ = play(disciple_scene(), ClaimDisciple(2), *tessons("WWWWWWWW"))
    assert state.phase is Phase.QUESTION and state.claimants == ()  # a new question
    refused(state, ContestDisciple((2, 4)), "question_not_asked")


def test_the_contenders_are_those_a_contest_would_accept() -> None:
    state = disciple_scene()
    assert GAME.disciple_contenders(state) == (2, 4)
    assert GAME.public_view(state)["disciple_candidates"] == [2, 4]
    state, _ = play(state, ClaimDisciple(2))
    assert GAME.disciple_contenders(state) == (4,)
    assert GAME.public_view(state)["disciple_candidates"] == []
    assert GAME.public_view(state)["disciple_contenders"] == [4]
    assert ContestDisciple((2, 4)) in list(GAME.legal_actions(state, 4))
    state, _ = play(state, ContestDisciple((2, 4)))
    assert GAME.disciple_contenders(state) == ()


# -- the end of the game ---------------------------------------------------------------------------


def last_question_of_the_game(piles: Mapping[int, Sequence[int]]) -> OstrakonState:
    """5 philosophers: the sixth and last day, philosopher 0 alone on square 1, asking last."""
    return situate(new(5), {1: [0], **piles}, sun=1, moon=5)


def test_the_game_ends_when_the_moon_covers_the_calendar() -> None:
    state, events = question(last_question_of_the_game({9: [1, 2], 7: [3, 4]}), "WWWWW")
    assert state.phase is Phase.OVER
    assert state.moon == 6
    assert kinds(events)[-2:] == ["day_ended", "game_over"]
    assert GAME.outcome(state) is not None
    assert GAME.outcome(state).winner == "1"  # type: ignore[union-attr]
    assert GAME.outcome(state).reason is Termination.CALENDAR_COVERED  # type: ignore[union-attr]
    refused(state, Ask(1), "game_over")
    assert list(GAME.legal_actions(state, 1)) == []


def test_a_philosopher_in_the_temple_wins_a_victoire_supreme() -> None:
    _, events = question(last_question_of_the_game({17: [3, 4], 12: [1, 2]}), "WWWWW")
    outcome = only(events, "game_over").data
    assert outcome["winner"] == "3"
    assert outcome["reason"] == "victoire_supreme"
    assert outcome["temple"] == [3, 4]


def test_with_everyone_in_the_temple_the_game_ends_with_the_day() -> None:
    state = situate(new(5), {16: [0], 17: [1, 2, 3, 4]}, sun=16)
    state, events = question(state, "WWWBB")  # 2 of 4 agree, 2 do not: 0 enters the Temple
    assert state.phase is Phase.OVER
    assert only(events, "game_over").data["calendar_covered"] is False
    assert GAME.outcome(state).winner == "0"  # type: ignore[union-attr]
    assert GAME.outcome(state).reason is Termination.VICTOIRE_SUPREME  # type: ignore[union-attr]


# -- the seed's worked examples --------------------------------------------------------------------


DOREMINOS, NAUSICAA = 0, 1


def doreminos_turn() -> OstrakonState:
    """ "Le sujet d'actualité c'est le Sport et c'est à Doreminos de poser la question ; le
    prochain sujet sera libre et ce sera au tour de Nausicaa." Read as: 8 philosophers (Doreminos
    asks "the seven others"), Doreminos on top of the illuminated pile and Nausicaa just below.
    The dealer's cards show sport, then a free subject: set here by hand."""
    state = new(8, pile=[DOREMINOS, NAUSICAA, 2, 3, 4, 5, 6, 7])
    return dataclasses.replace(state, subject="sport", next_subject="free-1")


def test_doreminos_the_announcement() -> None:
    turn = GAME.turn_event(doreminos_turn()).data
    assert (turn["subject"], turn["asker"]) == ("sport", DOREMINOS)
    assert (turn["next_subject"], turn["next_asker"]) == ("free-1", NAUSICAA)
    assert turn["next_subject_text"]["free"] is True


def test_doreminos_advances_three_squares_then_nausicaa_asks() -> None:
    """ "Doreminos et quatre autres Philosophes dévoilent un tesson noir (foot), les trois autres
    montrent le blanc (tennis). Doreminos avance donc de trois cases. [...] Puisque le Soleil
    illumine maintenant Nausicaa, ce sera à son tour." Read as: the pile starts on square 2 (8
    players), so Doreminos lands on square 5; the Sun stays on square 2, on Nausicaa."""
    state, events = question(doreminos_turn(), "BBBBBWWW")
    assert (result(events)["from"], result(events)["to"]) == (2, 5)
    assert state.path.pile(5) == (DOREMINOS,)
    assert state.asker == NAUSICAA
    assert state.subject == "free-1"


@pytest.mark.parametrize("text", ["BBBBBBBB", "BBBBWWWW", "BWWWWWWW"])
def test_doreminos_with_seven_black_or_fewer_than_four_lands_under_the_sun(text: str) -> None:
    """ "Si les autres Philosophes avaient montré sept tessons noirs ou moins de quatre,
    Doreminos aurait atterri sous le Soleil.\""""
    state, _ = question(doreminos_turn(), text)
    assert state.under_sun == (DOREMINOS,)
    assert state.asker == NAUSICAA


CALIPPOS, MALIA = 0, 1


def test_calippos_and_malia_the_day_ends_on_a_corruption_square() -> None:
    """ "Calippos doit avancer de trois cases. Les Philosophes qui se trouvent sous le Soleil se
    repositionnent sur la case (6). Le Soleil, en reculant, ne rencontre plus personne [...]
    1) Le Soleil va donc illuminer la pile [...] en tête du parcours, celle de Malia ; 2) la Lune
    recouvre une lune supplémentaire ; 3) la nouvelle Règle du Jour est celle de la Corruption."
    Read as: the Sun on square 6, Calippos the last of the day to ask (alone on 6, nobody
    behind), two philosophers under the Sun, Malia on top of the leading pile. The player count
    is not given: 7 here (6 others; 3 agree and 3 do not: advance 3, to square 9). Malia's
    square is not given either: past 9, on a Corruption symbol, square 10 in the default
    spread. The second day ends here (the Sun could not be on square 6 on the first day)."""
    state = situate(
        new(7), {6: [CALIPPOS], 7: [6], 8: [5], 10: [MALIA, 4]}, sun=6, under_sun=[2, 3], moon=1
    )
    state, events = question(state, "BBBBWWW")
    assert (result(events)["from"], result(events)["to"]) == (6, 9)
    assert only(events, "under_sun_returned").data == {"square": 6, "pile": [2, 3]}
    assert only(events, "sun_moved").data == {"from": 6, "to": 10, "day_end": True}
    assert state.sun == 10 and state.asker == MALIA  # 1)
    assert state.moon == 2  # 2)
    assert state.day_rule is DayRule.CORRUPTION  # 3)
    assert [(square, list(pile)) for square, pile in state.path.squares()] == [
        (6, [2, 3]),
        (7, [6]),
        (8, [5]),
        (9, [CALIPPOS]),
        (10, [MALIA, 4]),
    ]


# -- subjects --------------------------------------------------------------------------------------


def test_the_default_subjects_are_forty_plus_free_cards_in_both_languages() -> None:
    subjects = default_subjects()
    assert len([s for s in subjects if not s.free]) == 40
    assert any(s.free for s in subjects)
    assert len({s.id for s in subjects}) == len(subjects)
    assert all(s.en and s.fr for s in subjects)


def test_each_question_discards_the_subject_and_the_next_becomes_current() -> None:
    state = new(8)
    first, second = state.subject, state.next_subject
    state, events = question(state, "BBBBBWWW")
    assert state.subject == second
    assert state.deck.discards == (first,)
    turn = only(events, "turn_started").data
    assert (turn["subject"], turn["next_subject"]) == (second, state.next_subject)


def test_the_subjects_are_shuffled_from_the_seed() -> None:
    one = GAME.new({"players": 5}, 1)
    assert (one.subject, one.next_subject, one.deck) == (
        GAME.new({"players": 5}, 1).subject,
        GAME.new({"players": 5}, 1).next_subject,
        GAME.new({"players": 5}, 1).deck,
    )
    orders = {GAME.new({"players": 5}, seed).deck.deck[:5] for seed in range(10)}
    assert len(orders) == 10


def subjects_asked(count: int, seed: int, questions: int) -> list[str]:
    """The subjects of ``questions`` questions in a row, dealt from ``count`` cards."""
    deck = SubjectDeck.shuffled([f"s{i}" for i in range(count)], seed)
    current, deck = deck.draw(seed)
    upcoming, deck = deck.draw(seed)
    asked = [current]
    for _ in range(questions - 1):
        deck = deck.discard(current)
        current = upcoming
        upcoming, deck = deck.draw(seed)
        asked.append(current)
    return asked


# "Lorsqu'il n'y a plus de cartes Sujet, mélangez à nouveau toutes ces cartes et reformez le
# talon."


@pytest.mark.parametrize("count", [2, 3, 4, 7, 12, 43])
def test_when_the_subjects_run_out_all_the_cards_are_shuffled_again_into_the_deck(
    count: int,
) -> None:
    """Every card but the one in play goes into the new deck: every subject is asked, and the
    subject in play is never drawn as the next one."""
    for seed in range(10):
        asked = subjects_asked(count, seed, 5 * count + 3)
        assert set(asked) == {f"s{i}" for i in range(count)}
        assert all(a != b for a, b in itertools.pairwise(asked))  # current != next


def test_a_reshuffle_takes_every_discard_together_in_one_shuffle() -> None:
    """ "toutes ces cartes": the new deck holds all the discards, in an order where any of them,
    the one asked last included, may come first (no part of them is kept back)."""
    discards = ("a", "b", "c", "d", "e")
    firsts, lasts = set(), set()
    for seed in range(200):
        card, deck = SubjectDeck((), discards).draw(seed)
        assert sorted((card, *deck.deck)) == sorted(discards)
        assert (deck.discards, deck.reshuffles) == ((), 1)
        firsts.add(card)
        lasts.add(deck.deck[-1])
    assert firsts == lasts == set(discards)


def test_after_a_reshuffle_the_subject_just_asked_may_come_back_next() -> None:
    """Three cards: the current subject, the next and one in the deck. The second question
    empties the deck: both discards, the subject just asked included, are shuffled again, and
    either may be the next subject."""
    came_back = 0
    for seed in range(40):
        options = {"players": 5, "pile": [0, 1, 2, 3, 4], "subjects": ["sea", "money", "sport"]}
        state = GAME.new(options, seed)
        first = state.subject
        state, _ = question(state, "WWWWW")
        just_asked = state.subject
        state, _ = question(state, "WWWWW")
        assert state.deck.reshuffles == 1
        assert sorted((state.next_subject, *state.deck.deck)) == sorted((first, just_asked))
        came_back += state.next_subject == just_asked
    assert 0 < came_back < 40


def test_a_reshuffle_is_reproducible_from_the_seed() -> None:
    assert subjects_asked(6, 3, 40) == subjects_asked(6, 3, 40)


def test_a_game_may_bring_its_own_subjects() -> None:
    subjects = ["sea", "Dragons", {"id": "cats", "en": "cats", "fr": "les chats"}, {"fr": "rien"}]
    state = GAME.new({"players": 5, "subjects": subjects}, SEED)
    cards = {s.id: s for s in state.options.subject_cards}
    assert set(cards) == {"sea", "custom-2", "cats", "custom-4"}
    assert cards["sea"].fr == "la mer"
    assert (cards["custom-2"].en, cards["custom-2"].fr) == ("Dragons", "Dragons")
    assert cards["custom-4"].en == "rien"
    assert {state.subject, state.next_subject} <= set(cards)
    view = GAME.public_view(state)
    assert view["subject_text"]["en"] == cards[state.subject].en


@pytest.mark.parametrize(
    ("subjects", "code"),
    [
        ("sea", "subjects_not_a_list"),
        (["sea"], "too_few_subjects"),
        (["sea", "sea"], "subject_repeated"),
        (["sea", 3], "bad_subject"),
        (["sea", ""], "bad_subject"),
        (["sea", {"en": "x", "colour": "red"}], "bad_subject"),
        (["sea", {"id": "bad id", "en": "x"}], "bad_subject"),
    ],
)
def test_a_subject_list_is_checked(subjects: object, code: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": 5, "subjects": subjects}, SEED)
    assert caught.value.code == code


# -- actions as JSON -------------------------------------------------------------------------------


EXAMPLES: list[Action] = [
    Ask(3),
    Vote(2, True),
    Vote(11, False),
    ClaimDisciple(4),
    ContestDisciple((2, 4)),
    Name(0, (1, 2, 3)),
    Name(5, (2,)),
    Flip(1, True),
    Flip(1, False),
]


def test_every_action_kind_has_an_example() -> None:
    assert {a.kind for a in EXAMPLES} == set(ACTIONS)


@pytest.mark.parametrize("action", EXAMPLES, ids=repr)
def test_an_action_survives_its_json_form(action: Action) -> None:
    data = json.loads(json.dumps(action.to_json()))
    assert action_from_json(GAME.actions, data) == action


def test_the_json_forms_of_the_actions() -> None:
    assert Vote(2, True).to_json() == {"kind": "vote", "seat": 2, "white": True}
    assert Name(0, (1, 2)).to_json() == {"kind": "name", "seat": 0, "named": [1, 2]}
    assert Flip(1, False).to_json() == {"kind": "flip", "seat": 1, "flip": False}
    assert ClaimDisciple(4).to_json() == {"kind": "claim_disciple", "seat": 4}
    assert ContestDisciple((2, 4)).to_json() == {"kind": "contest_disciple", "seats": [2, 4]}
    assert Ask(3).to_json() == {"kind": "ask", "seat": 3}


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "vote", "seat": 2, "white": "yes"},
        {"kind": "name", "seat": 0, "named": 1},
        {"kind": "flip", "seat": 0},
        {"kind": "dance", "seat": 0},
    ],
)
def test_a_malformed_action_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(MalformedAction):
        action_from_json(GAME.actions, data)
