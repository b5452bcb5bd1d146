"""Résistance's identities, physical or digital (RULES.md §1), and what each seat may learn."""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Sequence

import pytest
from heard import HeardNarrator
from resistance_play import choose, ten_with

from companion.game import AudienceKind, Event, IllegalAction
from companion.games.resistance.controls import Nomination, interpret
from companion.games.resistance.engine import Resistance, deal_identities
from companion.games.resistance.plot import Neighbour, PlotCard
from companion.games.resistance.state import (
    Card,
    CastVote,
    EndNight,
    EstablishConfidence,
    HandPlot,
    OpenUp,
    Overhear,
    Phase,
    PlayMissionCard,
    ProposeSquad,
    ResistanceState,
    Side,
)
from companion.journal import Journal
from companion.moderator import Table
from companion.seat_input import Button, Press
from tests import engine_steps as steps

GAME = Resistance()
play = functools.partial(steps.play, GAME)
PRINTED_CYLONS = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}


class Lights:
    def __init__(self) -> None:
        self.lit: dict[int, bool] = {}

    def set_led(self, seat: int, lit: bool) -> None:
        self.lit[seat] = lit


# -- helpers --------------------------------------------------------------------------------------


def digital(players: int = 5, seed: int = 7, **more: object) -> ResistanceState:
    state = GAME.new({"players": players, "identities": "digital", **more}, seed)
    if state.phase is Phase.NIGHT:
        state, _ = GAME.apply(state, EndNight())
    return state


def sides(state: ResistanceState) -> tuple[Side, ...]:
    assert state.identities is not None
    return state.identities


def colons(state: ResistanceState) -> list[int]:
    return [s for s, side in enumerate(sides(state)) if side is Side.COLONS]


def cylons(state: ResistanceState) -> list[int]:
    return [s for s, side in enumerate(sides(state)) if side is Side.CYLONS]


def on_mission(state: ResistanceState, squad: Sequence[int]) -> ResistanceState:
    """A squad of the first mission (two at five players) approved by all."""
    state, _ = play(state, ProposeSquad(state.commander, tuple(squad)))
    state, _ = play(state, *(CastVote(s, True) for s in range(state.players)))
    assert state.phase is Phase.MISSION
    return state


def twin(state: ResistanceState, identities: Sequence[Side]) -> ResistanceState:
    return dataclasses.replace(state, identities=tuple(identities))


def public(events: list[Event]) -> list[dict[str, object]]:
    return [e.to_json() for e in events if e.audience.kind is AudienceKind.EVERYONE]


# -- physical identities --------------------------------------------------------------------------


def test_identities_are_physical_by_default_and_the_companion_holds_none() -> None:
    state = GAME.new({"players": 5}, seed=1)
    assert state.identities is None
    assert GAME.options_json(state)["identities"] == "physical"
    view = GAME.private_view(state, 2)
    assert view["identity"] is None and view["fellow_cylons"] is None


def test_with_physical_identities_a_fail_from_anyone_is_accepted() -> None:
    state = GAME.new({"players": 5, "isolated_cylons": True}, seed=1)
    for squad in [(0, 1), (1, 2, 3), (3, 4)]:
        state = on_mission(state, squad)
        state, events = play(state, *(PlayMissionCard(s, Card.FAIL) for s in squad))
        assert any(e.kind == "mission_result" for e in events)


def test_an_unknown_identities_mode_is_refused() -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": 5, "identities": "telepathic"}, seed=1)
    assert caught.value.code == "unknown_option_value"
    assert caught.value.params["choices"] == ["physical", "digital"]


# -- digital identities ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(5, 11))
def test_digital_identities_follow_the_printed_table(players: int) -> None:
    for seed in range(20):
        assert sides(digital(players, seed)).count(Side.CYLONS) == PRINTED_CYLONS[players]


def test_digital_identities_are_dealt_from_the_seed() -> None:
    assert deal_identities(7, 3) == deal_identities(7, 3)
    assert len({deal_identities(7, seed) for seed in range(30)}) > 5


def test_a_seat_sees_its_own_identity_on_its_private_page() -> None:
    state = digital(7)
    for seat in range(7):
        assert GAME.private_view(state, seat)["identity"] == sides(state)[seat].value


def test_a_cylon_sees_its_fellow_cylons_and_a_colon_sees_none() -> None:
    state = digital(7)
    spies = cylons(state)
    for seat in spies:
        assert GAME.private_view(state, seat)["fellow_cylons"] == [s for s in spies if s != seat]
    for seat in colons(state):
        assert GAME.private_view(state, seat)["fellow_cylons"] == []


def test_with_isolated_cylons_a_cylon_sees_no_fellow() -> None:
    state = digital(7, isolated_cylons=True)
    for seat in range(7):
        assert GAME.private_view(state, seat)["fellow_cylons"] == []


def test_the_night_phase_still_runs_with_digital_identities() -> None:
    state = GAME.new({"players": 5, "identities": "digital"}, seed=1)
    assert state.phase is Phase.NIGHT


def test_no_identity_is_in_the_public_view() -> None:
    state = digital(6)
    other = twin(state, tuple(reversed(sides(state))))
    assert sides(other) != sides(state)
    assert GAME.public_view(state) == GAME.public_view(other)
    view = GAME.public_view(state)
    assert "cylons" not in str({k: v for k, v in view.items() if k != "options"})


def test_a_colons_fail_card_is_refused_to_that_seat_alone() -> None:
    state = digital(5)
    colon, spy = colons(state)[0], cylons(state)[0]
    state = on_mission(state, sorted((colon, spy)))
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, PlayMissionCard(colon, Card.FAIL))
    refusal = caught.value
    assert refusal.code == "colons_cannot_fail"
    assert refusal.params == {"seat": colon, "private_to": colon}
    state, events = play(state, PlayMissionCard(spy, Card.FAIL))
    assert [e.kind for e in events] == ["your_card", "card_in"]
    state, events = play(state, PlayMissionCard(colon, Card.SUCCESS))
    assert state.results[-1].fails == 1


def test_a_colons_legal_actions_hold_no_fail_card() -> None:
    state = digital(5)
    colon, spy = colons(state)[0], cylons(state)[0]
    state = on_mission(state, sorted((colon, spy)))
    assert list(GAME.legal_actions(state, colon)) == [PlayMissionCard(colon, Card.SUCCESS)]
    assert PlayMissionCard(spy, Card.FAIL) in list(GAME.legal_actions(state, spy))


def test_with_buttons_a_colons_fail_press_is_played_as_success_in_silence() -> None:
    state = digital(5)
    colon, spy = colons(state)[0], cylons(state)[0]
    state = on_mission(state, sorted((colon, spy)))
    got = interpret(state, Nomination(), Press(colon, Button.B))
    assert (got.action, got.feedback) == (PlayMissionCard(colon, Card.SUCCESS), ())
    got = interpret(state, Nomination(), Press(spy, Button.B))
    assert (got.action, got.feedback) == (PlayMissionCard(spy, Card.FAIL), ())


def test_at_the_table_a_colons_fail_press_looks_like_a_cylons() -> None:
    """Two tables, alike but for one seat's identity: the same press of B says and shows the
    same, and lights the same LEDs."""
    tables = []
    for flip in (False, True):
        lights = Lights()
        voice = HeardNarrator()
        table = Table(Journal(":memory:"), voice, seats=5, lights=lights)
        table.new_game(
            "resistance", {"players": 5, "identities": "digital", "isolated_cylons": True}, seed=4
        )
        running = table.running
        assert running is not None
        if flip:  # the same seat, the other side
            first = sides(running.state)
            running.state = twin(running.state, [*reversed(first)])
        tables.append((table, lights, voice))
    base = tables[0][0].running
    assert base is not None
    seat = next(
        s
        for s in range(5)
        if sides(base.state)[s] is not sides(tables[1][0].running.state)[s]  # type: ignore[union-attr]
    )
    mate = (seat + 1) % 5
    for table, _, _ in tables:
        table.submit(ProposeSquad(0, tuple(sorted((seat, mate)))))
        for s in range(5):
            table.submit(CastVote(s, True))
    results = []
    for table, lights, voice in tables:
        pressed = table.press(Press(seat, Button.B))
        assert pressed.accepted is not None and pressed.messages == ()
        results.append((table.snapshot(), dict(lights.lit), list(voice.said)))
    assert results[0] == results[1]


# -- what plot cards show to one seat -------------------------------------------------------------


def plot_digital(draws: Sequence[PlotCard], deck: Sequence[PlotCard]) -> ResistanceState:
    return digital(
        5,
        plot=True,
        plot_deck=[c.value for c in ten_with(deck)],
        plot_draws=[c.value for c in draws],
    )


def test_overheard_conversation_shows_the_identity_to_the_receiver_alone() -> None:
    cards = [PlotCard.OVERHEARD_CONVERSATION, PlotCard.OPEN_UP]
    state = plot_digital(cards, cards)
    state, _ = play(state, HandPlot(0, 0, 2))
    after, events = play(state, Overhear(2, Neighbour.LEFT))
    side = sides(state)[3].value
    seen = [e for e in events if e.kind == "identity_seen"]
    assert [(e.audience.seat, dict(e.data)) for e in seen] == [
        (2, {"seat": 3, "identity": side, "via": "overheard_conversation"})
    ]
    shown = next(e for e in events if e.kind == "identity_shown")
    assert shown.data["digital"] is True and shown.audience.kind is AudienceKind.EVERYONE
    assert GAME.private_view(after, 2)["learned"] == [
        {"seat": 3, "via": "overheard_conversation", "identity": side}
    ]
    for seat in (0, 1, 3, 4):
        assert GAME.private_view(after, seat)["learned"] == []
    other = twin(state, [*reversed(sides(state))])
    other_after, other_events = play(other, Overhear(2, Neighbour.LEFT))
    assert public(events) == public(other_events)
    assert GAME.public_view(after) == GAME.public_view(other_after)


def test_open_up_shows_the_receivers_identity_to_the_chosen_player() -> None:
    cards = [PlotCard.OPEN_UP, PlotCard.OVERHEARD_CONVERSATION]
    state = plot_digital(cards, cards)
    state, _ = play(state, HandPlot(0, 0, 3))
    state, _ = play(state, OpenUp(3, 1))
    assert GAME.private_view(state, 1)["learned"] == [
        {"seat": 3, "via": "open_up", "identity": sides(state)[3].value}
    ]
    assert GAME.private_view(state, 3)["learned"] == []


def test_establish_confidence_shows_the_commandants_identity_to_the_chosen_player() -> None:
    cards = [PlotCard.ESTABLISH_CONFIDENCE, PlotCard.OPEN_UP]
    state = plot_digital(cards, cards)
    state, _ = play(state, HandPlot(0, 0, 2), EstablishConfidence(0, 4))
    assert GAME.private_view(state, 4)["learned"] == [
        {"seat": 0, "via": "establish_confidence", "identity": sides(state)[0].value}
    ]
    assert GAME.private_view(state, 2)["learned"] == []


def test_with_physical_identities_identity_looks_teach_the_companion_nothing() -> None:
    cards = [PlotCard.OVERHEARD_CONVERSATION, PlotCard.OPEN_UP]
    state = GAME.new(
        {
            "players": 5,
            "plot": True,
            "plot_deck": [c.value for c in ten_with(cards)],
            "plot_draws": [c.value for c in cards],
            "isolated_cylons": True,
        },
        seed=7,
    )
    state, events = play(state, HandPlot(0, 0, 2), Overhear(2, Neighbour.RIGHT))
    assert all(e.audience.kind is AudienceKind.EVERYONE for e in events)
    assert GAME.private_view(state, 2)["learned"] == []


# -- twin games -----------------------------------------------------------------------------------


def test_twin_games_differing_only_in_identities_look_the_same_to_the_table() -> None:
    """Random games with plot cards and digital identities: after every action, a twin game whose
    identities are another deal (and where the action is legal) shows the same public view and the
    same public events."""
    for seed in range(40):
        rng = random.Random(seed)
        players = 5 + seed % 6
        state = digital(players, seed, plot=True, targeting=rng.random() < 0.3)
        other_deal = deal_identities(players, seed + 1000)
        steps = 0
        while state.outcome is None and steps < 400:
            action = choose(rng, state)
            after, events = GAME.apply(state, action)
            other = twin(state, other_deal)
            try:
                other_after, other_events = GAME.apply(other, action)
            except IllegalAction as refusal:
                assert refusal.code == "colons_cannot_fail"
            else:
                assert public(events) == public(other_events), (seed, action)
                assert GAME.public_view(after) == GAME.public_view(other_after), (seed, action)
            state, steps = after, steps + 1
