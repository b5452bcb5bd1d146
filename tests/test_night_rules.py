"""Game night's tools, clause by clause (companion/games/night): the dice (re-rolls, the
statistics), the turn timer, the score pad and who starts. One behaviour per test."""

from __future__ import annotations

import collections
import functools
import json
import math

import engine_steps as steps
import pytest

from companion.game import IllegalAction, action_from_json
from companion.games.night.dice import DiceStats, PipDie, Throw, chi2_survival_5, rolled
from companion.games.night.engine import Night, pick, timed
from companion.games.night.state import (
    ACTIONS,
    CorrectDie,
    CountByColor,
    EndEvening,
    NewSheet,
    PassTurn,
    PickStarter,
    ReadDice,
    SayLeader,
    Screen,
    ShowScreen,
    StartTimer,
    StopTimer,
    WriteScore,
)
from companion.games.sand import PauseHourglass, ResumeHourglass
from companion.record import public_record

GAME = Night()
play = functools.partial(steps.play, GAME)
refused = functools.partial(steps.refused, GAME)
kinds, only = steps.kinds, steps.only


def new(players: int = 4, **options: object):
    return GAME.new({"players": players, **options}, seed=7)


def die(value: int, x: float, y: float = 0.0, color: str | None = None, size: float = 20.0):
    return PipDie(value, color, x, y, size)


THREE = (die(6, 0), die(3, 100), die(1, 200))


# -- options ----------------------------------------------------------------------------------


def test_options_default_to_four_players_and_a_minute_a_turn():
    state = GAME.new({}, seed=1)
    assert (state.players, state.options.turn_seconds) == (4, 60)


@pytest.mark.parametrize(
    "options, code",
    [
        ({"players": 0}, "night_number_range"),
        ({"players": 21}, "night_number_range"),
        ({"players": "4"}, "night_number_range"),
        ({"turn_seconds": 4}, "night_number_range"),
        ({"low_wins": "yes"}, "option_not_boolean"),
        ({"colour": True}, "unknown_option"),
    ],
)
def test_bad_options_are_refused_with_a_reason(options, code):
    with pytest.raises(IllegalAction) as caught:
        GAME.new(options, seed=1)
    assert caught.value.code == code


# -- dice -------------------------------------------------------------------------------------


def test_a_throw_is_said_with_its_values_high_to_low_and_its_total():
    _, events = play(new(), ReadDice(THREE))
    said = only(events, "dice_read").data
    assert (said["values"], said["total"], said["kept"]) == ([6, 3, 1], 10, 0)


def test_a_die_lying_where_it_lay_with_the_same_value_was_kept_not_thrown():
    state, _ = play(new(), ReadDice(THREE))
    again = (die(6, 2), die(5, 100), die(1, 330))  # the 6 nudged 2 px; the 3 and the 1 thrown
    state, events = play(state, ReadDice(again))
    assert state.throws[-1].rolled == (False, True, True)
    assert only(events, "dice_read").data["rolled"] == [5, 1]


def test_a_die_at_the_same_place_showing_another_value_was_thrown():
    assert rolled(THREE, (die(5, 0), die(3, 100), die(1, 200))) == (True, False, False)


def test_a_die_moved_by_more_than_a_third_of_its_side_was_thrown():
    assert rolled(THREE, (die(6, 8), die(3, 100), die(1, 200))) == (True, False, False)


def test_one_die_of_the_last_throw_explains_one_die_only():
    assert sorted(rolled((die(4, 0),), (die(4, 1), die(4, 2)))) == [False, True]


def test_typed_dice_have_no_place_and_are_all_thrown():
    state, _ = play(new(), ReadDice((PipDie(2), PipDie(2))))
    state, _ = play(state, ReadDice((PipDie(2), PipDie(2))))
    assert all(state.throws[-1].rolled)


def test_a_reading_where_no_die_moved_is_refused():
    state, _ = play(new(), ReadDice(THREE))
    refused(state, ReadDice(THREE), "night_dice_unchanged")


def test_a_reading_without_dice_is_refused():
    refused(new(), ReadDice(()), "night_no_dice")


def test_more_dice_than_a_throw_may_hold_are_refused():
    refused(new(), ReadDice(tuple(PipDie(1) for _ in range(41))), "night_too_many_dice")


def test_the_host_corrects_a_misread_die_of_the_last_throw():
    state, _ = play(new(), ReadDice(THREE))
    state, events = play(state, CorrectDie(2, 4))
    assert state.throws[-1].total == 13
    assert only(events, "die_corrected").data == {"die": 3, "value": 4, "total": 13}


@pytest.mark.parametrize(
    "action, code",
    [(CorrectDie(3, 4), "night_no_such_die"), (CorrectDie(0, 7), "night_die_value")],
)
def test_a_correction_must_name_a_die_and_a_face(action, code):
    state, _ = play(new(), ReadDice(THREE))
    refused(state, action, code)


def test_nothing_can_be_corrected_before_the_first_throw():
    refused(new(), CorrectDie(0, 4), "night_no_throw_yet")


def test_counting_by_colour_groups_each_colour_with_its_total():
    dice = (die(6, 0, color="red"), die(2, 50, color="blue"), die(3, 100, color="red"))
    state, _ = play(new(), CountByColor(True))
    _, events = play(state, ReadDice(dice))
    groups = only(events, "dice_read").data["by_color"]
    assert groups == [
        {"color": "red", "values": [6, 3], "total": 9},
        {"color": "blue", "values": [2], "total": 2},
    ]


def test_without_counting_by_colour_the_throw_is_said_whole():
    _, events = play(new(), ReadDice((die(6, 0, color="red"),)))
    assert only(events, "dice_read").data["by_color"] is None


def test_unsure_dice_are_counted_for_a_person_to_check():
    unsure = PipDie(5, None, 300, 0, 20, confidence=0.3)
    _, events = play(new(), ReadDice((*THREE, unsure)))
    assert only(events, "dice_read").data["unsure"] == 1


# -- statistics -------------------------------------------------------------------------------


def test_the_histogram_counts_thrown_dice_only_never_a_kept_die_twice():
    state, _ = play(new(), ReadDice(THREE), ReadDice((die(6, 0), die(6, 100), die(6, 200))))
    # second throw: the 6 at x=0 was kept, the other two were thrown and show 6
    assert DiceStats.of(state.throws).faces == (1, 0, 1, 0, 0, 3)


def test_the_histogram_per_colour_counts_that_colour_only():
    dice = (die(6, 0, color="red"), die(1, 50, color="blue"), die(6, 99, color="red"))
    throw = Throw(1, dice, (True, True, True))
    assert DiceStats.of([throw], "red").faces == (0, 0, 0, 0, 0, 2)


def test_even_counts_are_fair_and_chi_square_is_zero():
    stats = DiceStats((10, 10, 10, 10, 10, 10))
    assert (stats.chi2, stats.p_value, stats.verdict, stats.mean) == (0.0, 1.0, "fair", 3.5)


def test_dice_that_always_show_six_are_unusual():
    assert DiceStats((2, 2, 2, 2, 2, 50)).verdict == "unusual"


def test_too_few_dice_give_no_verdict():
    assert DiceStats((0, 0, 0, 0, 0, 20)).verdict == "few"


@pytest.mark.parametrize(
    "chi2, p",  # scipy.stats.chi2.sf(chi2, 5), to 6 places
    [(1.0, 0.962566), (5.0, 0.415880), (11.070498, 0.05), (15.086272, 0.01), (30.0, 0.0000148)],
)
def test_the_p_value_is_chi_square_with_five_degrees_of_freedom(chi2, p):
    assert chi2_survival_5(chi2) == pytest.approx(p, rel=1e-4, abs=1e-7)


def test_the_public_view_carries_the_statistics_and_the_last_throw():
    state, _ = play(new(), ReadDice(THREE))
    dice = GAME.public_view(state)["dice"]
    assert dice["last"]["total"] == 10
    assert dice["stats"]["faces"] == [1, 0, 1, 0, 0, 1]


# -- the turn timer ----------------------------------------------------------------------------


def test_the_timer_starts_with_the_first_player_chosen():
    state, events = play(new(), StartTimer(2, 45))
    assert (state.timer.turn, state.timer.seconds, state.screen) == (2, 45, Screen.TIMER)
    assert only(events, "timer_started").data == {"seat": 2, "seconds": 45}


def test_turns_pass_clockwise_and_wrap_round():
    state, _ = play(new(3), StartTimer(1, 30), PassTurn(1), PassTurn(2))
    assert (state.timer.turn, state.timer.turns) == (0, 2)


def test_only_the_player_whose_turn_it_is_passes_it():
    state, _ = play(new(), StartTimer(0, 30))
    refused(state, PassTurn(1), "night_not_their_turn")


def test_sand_running_out_passes_the_turn_and_says_so():
    state, _ = play(new(), StartTimer(0, 30))
    _, events = play(state, PassTurn(0, timed_out=True))
    assert only(events, "turn_passed").data == {"seat": 0, "next": 1, "timed_out": True}


def test_a_pause_keeps_the_seconds_left_and_a_resume_counts_down_from_them():
    state, _ = play(new(), StartTimer(0, 60), PauseHourglass(23.5))
    assert timed(state) is None
    state, _ = play(state, ResumeHourglass())
    _, seconds, expire = timed(state)
    assert (seconds, expire) == (23.5, PassTurn(0, timed_out=True))


def test_the_next_turn_after_a_pause_is_a_full_one():
    state, _ = play(new(), StartTimer(0, 60), PauseHourglass(10), ResumeHourglass(), PassTurn(0))
    assert timed(state)[1] == 60


def test_each_turn_pass_and_resume_is_a_new_countdown():
    state, _ = play(new(), StartTimer(0, 60))
    runs = [timed(state)[0]]
    for action in (PassTurn(0), PauseHourglass(5), ResumeHourglass()):
        state, _ = play(state, action)
        if timed(state) is not None:
            runs.append(timed(state)[0])
    assert len(set(runs)) == 3


def test_a_score_written_while_a_turn_runs_leaves_its_countdown_running():
    state, _ = play(new(), StartTimer(0, 60))
    after, _ = play(state, WriteScore(1, 0, 5))
    assert timed(after) == timed(state)


@pytest.mark.parametrize("left", [0, -1, 61])
def test_a_pause_must_leave_some_of_the_turn(left):
    state, _ = play(new(), StartTimer(0, 60))
    refused(state, PauseHourglass(left), "hourglass_pause_left")


def test_a_paused_timer_passes_no_turn_until_resumed():
    state, _ = play(new(), StartTimer(0, 60), PauseHourglass(30))
    refused(state, PassTurn(0), "hourglass_paused")
    refused(state, PauseHourglass(10), "hourglass_paused")


def test_resume_needs_a_paused_timer():
    state, _ = play(new(), StartTimer(0, 60))
    refused(state, ResumeHourglass(), "hourglass_running")


def test_no_turn_passes_without_a_timer():
    refused(new(), PassTurn(0), "night_no_timer")
    refused(new(), StopTimer(), "night_no_timer")


def test_a_stopped_timer_awaits_nothing():
    state, _ = play(new(), StartTimer(0, 60), StopTimer())
    assert state.timer is None and timed(state) is None


@pytest.mark.parametrize(
    "action, code",
    [(StartTimer(4, 60), "night_no_such_player"), (StartTimer(0, 4), "night_number_range")],
)
def test_the_timer_starts_with_a_player_of_the_table_and_at_least_five_seconds(action, code):
    refused(new(4), action, code)


# -- the score pad ----------------------------------------------------------------------------


def test_scores_add_up_per_player_over_the_rounds():
    state, _ = play(new(3), WriteScore(0, 0, 5), WriteScore(1, 0, 7), WriteScore(0, 1, -2))
    assert state.pad.totals == (3, 7, 0)
    assert len(state.pad.rounds) == 2


def test_writing_in_the_row_after_the_last_opens_a_round_and_no_further():
    state, _ = play(new(), WriteScore(0, 0, 5))
    refused(state, WriteScore(0, 2, 5), "night_no_such_round")


def test_a_score_can_be_rubbed_out_and_an_empty_last_round_disappears():
    state, _ = play(new(), WriteScore(0, 0, 5), WriteScore(0, 1, 2), WriteScore(0, 1, None))
    assert (state.pad.totals[0], len(state.pad.rounds)) == (5, 1)


def test_the_leader_has_the_highest_total():
    state, _ = play(new(3), WriteScore(0, 0, 5), WriteScore(1, 0, 9))
    _, events = play(state, SayLeader())
    assert only(events, "leader").data == {"seats": [1], "total": 9, "low_wins": False}


def test_with_low_wins_the_leader_has_the_lowest_total():
    state, _ = play(new(3, low_wins=True), WriteScore(0, 0, 5), WriteScore(1, 0, 9))
    assert state.pad.leaders() == (2,)  # no points yet is 0, the lowest


def test_tied_leaders_are_all_named():
    state, _ = play(new(3), WriteScore(0, 0, 9), WriteScore(2, 0, 9))
    assert state.pad.leaders() == (0, 2)


def test_no_leader_is_named_before_any_score():
    _, events = play(new(), SayLeader())
    assert only(events, "leader").data["seats"] == []


def test_a_new_sheet_keeps_the_old_totals_and_starts_clean():
    state, _ = play(new(2), WriteScore(0, 0, 5), NewSheet())
    assert state.sheets == ((5, 0),) and not state.pad.written
    refused(state, NewSheet(), "night_sheet_empty")


@pytest.mark.parametrize(
    "action, code",
    [
        (WriteScore(4, 0, 1), "night_no_such_player"),
        (WriteScore(0, 0, 1_000_001), "night_points_range"),
        (WriteScore(0, -1, 1), "night_no_such_round"),
    ],
)
def test_a_score_needs_a_player_a_round_and_sane_points(action, code):
    refused(new(4), action, code)


# -- who starts -------------------------------------------------------------------------------


def test_who_starts_is_drawn_among_the_players_chosen():
    for seed in range(50):
        state, _ = play(GAME.new({"players": 6}, seed), PickStarter((1, 4)))
        assert state.picks[-1].seat in (1, 4)


def test_the_draw_can_be_checked_from_the_seed_and_its_number():
    state, events = play(new(5), PickStarter(), PickStarter())
    for p in state.picks:
        assert p.seat == pick(7, p.number, tuple(range(5)))
    assert only(events[1:], "starter_picked").data["number"] == 2


def test_the_draw_is_fair_every_player_equally_likely():
    counts = collections.Counter(pick(seed, 1, tuple(range(6))) for seed in range(6000))
    expected = 1000
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert len(counts) == 6 and chi2 < 20.5  # the 0.1 % critical value for 5 degrees


def test_a_player_is_in_the_draw_once_and_must_exist():
    refused(new(4), PickStarter((1, 1)), "night_pick_twice")
    refused(new(4), PickStarter((0, 4)), "night_no_such_player")


# -- the evening ------------------------------------------------------------------------------


def test_the_page_turns_to_the_tool_just_used():
    state, _ = play(new(), WriteScore(0, 0, 1))
    assert state.screen is Screen.SCORES
    state, _ = play(state, PickStarter())
    assert state.screen is Screen.STARTER
    state, _ = play(state, ShowScreen(Screen.DICE))
    assert state.screen is Screen.DICE


def test_ending_the_evening_names_the_leaders_and_then_nothing_more_is_taken():
    state, events = play(new(2), WriteScore(1, 0, 4), EndEvening())
    assert only(events, "evening_ended").data == {"totals": [0, 4], "leaders": [1]}
    assert GAME.outcome(state) is not None
    refused(state, PickStarter(), "game_over")


def test_every_action_round_trips_through_its_json_form():
    actions = [
        ReadDice((PipDie(3, "red", 1.5, 2, 20, 12.5, 0.5), PipDie(4))),
        CorrectDie(0, 2),
        StartTimer(1, 30),
        PauseHourglass(12.5),
        WriteScore(0, 0, None),
        PickStarter((0, 2)),
        ShowScreen(Screen.TIMER),
    ]
    for action in actions:
        assert action_from_json(ACTIONS, json.loads(json.dumps(action.to_json()))) == action


@pytest.mark.parametrize(
    "die_json",
    [
        {"value": 7},
        {"value": 3, "color": "mauve"},
        {"value": 3, "x": 1},
        {"value": 3, "x": 1, "y": 1, "size": 0},
        {"value": 3, "confidence": 2},
        {"value": 3, "x": math.inf, "y": 1, "size": 3},
        {"value": 3, "spin": 1},
    ],
)
def test_a_malformed_die_is_refused_before_the_engine(die_json):
    from companion.game import MalformedAction

    with pytest.raises(MalformedAction):
        action_from_json(ACTIONS, {"kind": "read_dice", "dice": [die_json]})


def test_nothing_is_secret_at_game_night():
    state, _ = play(new(3), ReadDice(THREE), PickStarter())
    assert GAME.private_view(state, 0) == {}
    assert public_record(GAME, [PickStarter()], {"players": 3}, 7) == [PickStarter()]


def test_every_refusal_has_its_sentence_in_both_languages():
    from companion.narration.catalog import Catalog

    refusals = [
        refused(new(4), StartTimer(4, 60)),
        refused(new(4), StartTimer(0, 4)),
        refused(new(4), WriteScore(0, 3, 1)),
        refused(new(4), WriteScore(0, 0, 10**7)),
        refused(new(4), PickStarter((1, 1))),
        refused(new(4), CorrectDie(0, 1)),
        refused(new(4), ReadDice(())),
        refused(new(4), PassTurn(0)),
    ]
    for lang in ("en", "fr"):
        for refusal in refusals:
            assert Catalog(lang).explain(refusal) != str(refusal)
