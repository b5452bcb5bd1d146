"""Résistance with two buttons per seat: the protocol of companion/games/resistance/controls.py."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from resistance_play import ten_with

from companion.game import Event
from companion.games.resistance.controls import Interpretation, Nomination, interpret
from companion.games.resistance.engine import Resistance
from companion.games.resistance.plot import PlotCard
from companion.games.resistance.state import (
    Card,
    CastVote,
    EndNight,
    Phase,
    PlayMissionCard,
    ProposeSquad,
    ResistanceState,
)
from companion.seat_input import Button, Press

GAME = Resistance()
A, B = Button.A, Button.B


# -- helpers --------------------------------------------------------------------------------------


def new_game(players: int = 5, **more: object) -> ResistanceState:
    """A game past its night phase, the first Commandant about to name a squad."""
    state = GAME.new({"players": players, **more}, seed=11)
    if state.phase is Phase.NIGHT:
        state, _ = GAME.apply(state, EndNight())
    return state


def presses(
    state: ResistanceState, *sequence: tuple[int, Button], nomination: Nomination | None = None
) -> tuple[Nomination, list[Interpretation]]:
    """Interpret presses one after another against the same state (no action is applied)."""
    nomination = nomination or Nomination()
    out = []
    for seat, button in sequence:
        got = interpret(state, nomination, Press(seat, button))
        nomination = got.pending
        out.append(got)
    return nomination, out


def last(
    state: ResistanceState, *sequence: tuple[int, Button], nomination: Nomination | None = None
) -> Interpretation:
    return presses(state, *sequence, nomination=nomination)[1][-1]


def feedback(got: Interpretation) -> list[tuple[str, dict[str, object]]]:
    return [(e.kind, dict(e.data)) for e in got.feedback]


def ignored(seat: int, why: str) -> list[tuple[str, dict[str, object]]]:
    return [("press_ignored", {"seat": seat, "why": why})]


def in_vote(players: int = 5) -> ResistanceState:
    state = new_game(players)
    state, _ = GAME.apply(state, ProposeSquad(state.commander, (1, 3)))
    return state


def in_mission(players: int = 5) -> ResistanceState:
    state = in_vote(players)
    for seat in range(players):
        state, _ = GAME.apply(state, CastVote(seat, True))
    assert state.phase is Phase.MISSION and state.squad == (1, 3)
    return state


def drive(
    state: ResistanceState, nomination: Nomination, sequence: Iterable[tuple[int, Button]]
) -> tuple[ResistanceState, Nomination, list[Event]]:
    """Presses as the table makes them: each action the protocol yields goes to the engine."""
    events: list[Event] = []
    for seat, button in sequence:
        got = interpret(state, nomination, Press(seat, button))
        nomination = got.pending
        events.extend(got.feedback)
        if got.action is not None:
            state, more = GAME.apply(state, got.action)
            events.extend(more)
    return state, nomination, events


# -- naming the squad -----------------------------------------------------------------------------


def test_a_named_player_joins_the_squad_with_a() -> None:
    got = last(new_game(5), (3, A))
    assert got.pending.members == (3,)
    assert got.action is None
    assert feedback(got) == [("squad_member_in", {"seat": 3, "count": 1, "size": 2})]


def test_a_named_player_steps_out_with_b() -> None:
    got = last(new_game(5), (3, A), (3, B))
    assert got.pending.members == ()
    assert feedback(got) == [("squad_member_out", {"seat": 3, "count": 0, "size": 2})]


def test_b_from_a_player_not_named_is_ignored() -> None:
    got = last(new_game(5), (3, A), (4, B))
    assert got.pending.members == (3,)
    assert feedback(got) == ignored(4, "not_named")


def test_a_second_a_from_a_named_player_is_ignored() -> None:
    got = last(new_game(5), (3, A), (3, A))
    assert got.pending.members == (3,)
    assert feedback(got) == ignored(3, "already_named")


def test_the_commandant_may_name_themself() -> None:
    got = last(new_game(5, first_commander=2), (2, A))
    assert got.pending.members == (2,)
    assert got.action is None


def test_the_squad_is_read_back_when_full() -> None:
    got = last(new_game(5, first_commander=2), (4, A), (1, A))
    assert got.pending.members == (1, 4)
    assert feedback(got) == [
        ("squad_member_in", {"seat": 1, "count": 2, "size": 2}),
        ("squad_read_back", {"commander": 2, "squad": [1, 4], "mission": 1}),
    ]


def test_the_commandant_confirms_the_full_squad_with_a() -> None:
    state = new_game(5, first_commander=2)
    got = last(state, (4, A), (1, A), (2, A))
    assert got.action == ProposeSquad(2, (1, 4), None)
    assert got.pending == Nomination()
    state, _ = GAME.apply(state, got.action)
    assert (state.phase, state.squad) == (Phase.VOTE, (1, 4))


def test_the_commandant_clears_the_full_squad_with_b() -> None:
    got = last(new_game(5, first_commander=2), (4, A), (1, A), (2, B))
    assert got.action is None
    assert got.pending == Nomination()
    assert feedback(got) == [("squad_cleared", {"commander": 2})]


def test_an_extra_a_when_the_squad_is_full_is_ignored() -> None:
    got = last(new_game(5), (3, A), (4, A), (1, A))
    assert got.pending.members == (3, 4)
    assert got.action is None
    assert feedback(got) == ignored(1, "squad_full")


def test_a_member_may_step_out_of_a_full_squad() -> None:
    got = last(new_game(5), (3, A), (4, A), (4, B), (1, A))
    assert got.pending.members == (1, 3)
    assert [kind for kind, _ in feedback(got)] == ["squad_member_in", "squad_read_back"]


def test_the_squad_size_follows_the_current_mission() -> None:
    state = new_game(8)  # mission 1 at eight players: three members
    got = last(state, (5, A), (6, A))
    assert [kind for kind, _ in feedback(got)] == ["squad_member_in"]
    got = last(state, (5, A), (6, A), (7, A))
    assert feedback(got)[-1] == (
        "squad_read_back",
        {"commander": 0, "squad": [5, 6, 7], "mission": 1},
    )


# -- presses that have no say ---------------------------------------------------------------------


@pytest.mark.parametrize("button", [A, B])
def test_presses_during_the_night_are_ignored(button: Button) -> None:
    state = GAME.new({"players": 5}, seed=1)
    for seat in range(5):
        got = interpret(state, Nomination(), Press(seat, button))
        assert got.action is None
        assert feedback(got) == ignored(seat, "night")


def test_presses_from_a_seat_not_at_the_table_are_ignored() -> None:
    got = interpret(in_vote(5), Nomination(), Press(5, A))
    assert (got.action, feedback(got)) == (None, ignored(5, "no_such_seat"))


def test_presses_after_the_game_are_ignored() -> None:
    state = new_game(5)
    for _ in range(5):  # five rejected squads
        state, _ = GAME.apply(state, ProposeSquad(state.commander, (0, 1)))
        for seat in range(5):
            state, _ = GAME.apply(state, CastVote(seat, False))
    assert state.phase is Phase.OVER
    got = interpret(state, Nomination(), Press(0, A))
    assert (got.action, feedback(got)) == (None, ignored(0, "game_over"))


@pytest.mark.parametrize("seat", [0, 2, 4])
@pytest.mark.parametrize("button", [A, B])
def test_presses_from_seats_off_the_squad_during_a_mission_are_ignored(
    seat: int, button: Button
) -> None:
    got = interpret(in_mission(5), Nomination(), Press(seat, button))
    assert (got.action, feedback(got)) == (None, ignored(seat, "not_on_squad"))


# -- the vote and the mission: no feedback, ever --------------------------------------------------


@pytest.mark.parametrize("seat", range(5))
def test_a_vote_press_casts_a_vote_and_gives_no_feedback(seat: int) -> None:
    state = in_vote(5)
    yes = interpret(state, Nomination(), Press(seat, A))
    no = interpret(state, Nomination(), Press(seat, B))
    assert (yes.action, no.action) == (CastVote(seat, True), CastVote(seat, False))
    assert yes.feedback == () and no.feedback == ()


def test_a_changed_vote_gives_no_feedback_either() -> None:
    state = in_vote(5)
    state, _ = GAME.apply(state, CastVote(2, True))
    got = interpret(state, Nomination(), Press(2, B))
    assert (got.action, got.feedback) == (CastVote(2, False), ())


@pytest.mark.parametrize("seat", [1, 3])
def test_a_squad_member_press_plays_a_mission_card_and_gives_no_feedback(seat: int) -> None:
    state = in_mission(5)
    success = interpret(state, Nomination(), Press(seat, A))
    fail = interpret(state, Nomination(), Press(seat, B))
    assert success.action == PlayMissionCard(seat, Card.SUCCESS)
    assert fail.action == PlayMissionCard(seat, Card.FAIL)
    assert success.feedback == () and fail.feedback == ()


# -- variant "Attaques ciblées": the Commandant first picks the mission ---------------------------


def offered(got: Interpretation) -> int | None:
    return got.pending.offered


def test_targeting_a_offers_the_available_missions_in_order_and_wraps() -> None:
    state = new_game(5, targeting=True)
    _, got = presses(state, *[(0, A)] * 5)
    assert [offered(g) for g in got] == [1, 2, 3, 4, 1]  # mission 5 is locked at first
    assert feedback(got[1]) == [("mission_offered", {"mission": 2, "size": 3})]
    assert all(g.action is None for g in got)


def test_targeting_b_takes_the_offered_mission() -> None:
    state = new_game(5, targeting=True)
    got = last(state, (0, A), (0, A), (0, B))
    assert got.pending == Nomination(mission=2)
    assert feedback(got) == [("mission_chosen", {"commander": 0, "mission": 2, "size": 3})]


def test_targeting_b_before_any_offer_is_ignored() -> None:
    got = last(new_game(5, targeting=True), (0, B))
    assert (got.pending, feedback(got)) == (Nomination(), ignored(0, "offer_first"))


@pytest.mark.parametrize("button", [A, B])
def test_targeting_other_seats_are_ignored_while_the_mission_is_chosen(button: Button) -> None:
    state = new_game(5, targeting=True)
    nomination, _ = presses(state, (0, A))
    for seat in (1, 2, 3, 4):
        got = interpret(state, nomination, Press(seat, button))
        assert got.pending == nomination
        assert feedback(got) == ignored(seat, "commander_chooses_mission")


def test_targeting_the_squad_size_follows_the_chosen_mission() -> None:
    state = new_game(6, targeting=True)  # mission 3 at six players: four members
    nomination, got = presses(state, (0, A), (0, A), (0, A), (0, B), (1, A), (2, A), (3, A), (4, A))
    assert feedback(got[-2]) == [("squad_member_in", {"seat": 3, "count": 3, "size": 4})]
    assert feedback(got[-1])[-1] == (
        "squad_read_back",
        {"commander": 0, "squad": [1, 2, 3, 4], "mission": 3},
    )
    confirm = interpret(state, nomination, Press(0, A))
    assert confirm.action == ProposeSquad(0, (1, 2, 3, 4), 3)
    state, _ = GAME.apply(state, confirm.action)
    assert (state.phase, state.mission) == (Phase.VOTE, 3)


def test_targeting_attempted_missions_are_no_longer_offered() -> None:
    state = new_game(5, targeting=True)
    for number, squad in ((2, (0, 1, 2)), (4, (1, 2, 3))):
        state, _ = GAME.apply(state, ProposeSquad(state.commander, squad, number))
        for seat in range(5):
            state, _ = GAME.apply(state, CastVote(seat, True))
        for seat in squad:
            state, _ = GAME.apply(state, PlayMissionCard(seat, Card.SUCCESS))
    _, got = presses(state, *[(state.commander, A)] * 4)
    assert [offered(g) for g in got] == [1, 3, 5, 1]  # two successes: mission 5 opens


# -- a whole game ---------------------------------------------------------------------------------


def test_a_whole_five_player_game_played_with_buttons() -> None:
    state = GAME.new({"players": 5, "isolated_cylons": True}, seed=5)
    nomination = Nomination()

    def name_squad(*members: int) -> list[tuple[int, Button]]:
        return [(m, A) for m in members] + [(state.commander, A)]

    def everyone_votes(*no: int) -> list[tuple[int, Button]]:
        return [(s, B if s in no else A) for s in range(5)]

    # Mission 1: seat 0 names 0 and 1; seat 4 first says no, then changes its mind. Success.
    state, nomination, events = drive(
        state,
        nomination,
        [*name_squad(0, 1), (4, B), (0, A), (1, A), (2, A), (4, A), (3, A), (1, A), (0, A)],
    )
    assert (state.successes, state.commander) == (1, 1)
    assert not any(e.kind == "press_ignored" for e in events)

    # Mission 2 (three): seat 1's squad is rejected; seat 2's squad fails with one Fail card.
    state, nomination, events = drive(
        state, nomination, [*name_squad(1, 2, 3), *everyone_votes(0, 2, 4)]
    )
    assert (state.commander, state.rejections, state.phase) == (2, 1, Phase.PROPOSE)
    # Seat 4 steps out of the full squad, seat 3 steps in; seat 3 changes its card to Fail.
    state, nomination, events = drive(
        state,
        nomination,
        [
            (0, A),
            (2, A),
            (4, A),
            (4, B),
            (3, A),
            (2, A),
            *everyone_votes(),
            (4, A),
            (1, B),
            (0, A),
            (3, A),
            (3, B),
            (2, A),
        ],
    )
    assert any(e.kind == "press_ignored" and e.data["why"] == "not_on_squad" for e in events)
    assert (state.failures, state.rejections, state.commander) == (1, 0, 3)

    # Missions 3 (two) and 4 (three) succeed: three successes, the Colons win.
    state, nomination, _ = drive(
        state, nomination, [*name_squad(3, 4), *everyone_votes(1), (3, A), (4, A)]
    )
    state, nomination, events = drive(
        state, nomination, [*name_squad(0, 4, 1), *everyone_votes(), (0, A), (1, A), (4, A)]
    )
    assert GAME.outcome(state) is not None
    assert GAME.outcome(state).winner == "colons"
    assert [r.failed for r in state.results] == [False, True, False, False]
    assert events[-1].kind == "game_over"
    assert nomination == Nomination()


# -- with Le Plan ---------------------------------------------------------------------------------


def plot_game(draws: list[str], players: int = 5) -> ResistanceState:
    """A game with plot cards whose first Commandant (seat 0) has drawn ``draws``."""
    options: dict[str, object] = {"players": players, "plot": True, "plot_draws": draws}
    if players < 7:  # a deck of ten that holds them
        options["plot_deck"] = [c.value for c in ten_with(PlotCard(d) for d in draws)]
    state = GAME.new(options, seed=11)
    state, _ = GAME.apply(state, EndNight())
    return state


@pytest.mark.parametrize("seat", [0, 2])
def test_presses_while_plot_cards_are_handed_are_ignored(seat: int) -> None:
    state = plot_game(["no_confidence", "opinion_maker"])
    assert state.phase is Phase.PLOT_HAND
    for button in (A, B):
        got = last(state, (seat, button))
        assert got.action is None
        assert feedback(got) == ignored(seat, "plot_on_page")


def test_presses_while_plot_cards_may_be_played_are_ignored() -> None:
    from companion.games.resistance.state import HandPlot

    state = plot_game(["no_confidence", "opinion_maker"])
    for action in (HandPlot(0, 0, 2), HandPlot(0, 0, 4)):  # No Confidence to 2, Opinion Maker to 4
        state, _ = GAME.apply(state, action)
    state, _, _ = drive(
        state, Nomination(), [(0, A), (1, A), (0, A), (4, A), *((s, A) for s in range(4))]
    )
    assert state.phase is Phase.PLOT_WINDOW
    assert feedback(last(state, (2, A))) == ignored(2, "plot_on_page")


def test_with_an_opinion_maker_other_votes_wait_for_theirs() -> None:
    from companion.games.resistance.state import HandPlot

    state = plot_game(["opinion_maker", "keeping_a_close_eye"])
    for action in (HandPlot(0, 0, 3), HandPlot(0, 0, 1)):
        state, _ = GAME.apply(state, action)
    state, _, _ = drive(state, Nomination(), [(0, A), (1, A), (0, A)])
    assert state.phase is Phase.VOTE
    got = last(state, (2, A))
    assert (got.action, feedback(got)) == (None, ignored(2, "opinion_makers_first"))
    state, _, events = drive(state, Nomination(), [(3, B)])
    assert any(e.kind == "opinion_votes" for e in events)
    assert last(state, (2, A)).action == CastVote(2, True)


def test_buttons_play_a_whole_game_without_plot_cards_by_default() -> None:
    state = new_game(5)
    assert state.plot is None
    for press in [(s, b) for s in range(5) for b in (A, B)]:
        got = last(state, press)
        assert all(e.data.get("why") != "plot_on_page" for e in got.feedback)
