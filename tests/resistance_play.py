"""Random Résistance games with plot cards, for the tests (not a test module itself)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable

from companion.game import Action, Event
from companion.games.resistance.engine import Resistance
from companion.games.resistance.plot import (
    FULL_DECK,
    SMALL_DECK_SIZE,
    PlotCard,
    StrongLeaderTiming,
)
from companion.games.resistance.state import (
    CastVote,
    EndNight,
    PassPlot,
    Phase,
    ProposeSquad,
    ResistanceState,
)

GAME = Resistance()
TIMINGS = {t.value: t for t in StrongLeaderTiming}


def ten_with(cards: Iterable[PlotCard]) -> list[PlotCard]:
    """A plot deck of ten for 5-6 players (the seed's « 10 des 15 cartes Complot ») holding
    ``cards``, filled up in the printed deck's order: for scenarios that draw cards the default
    ten lack (option ``plot_deck``)."""
    deck = list(cards)
    for card in FULL_DECK:
        if len(deck) < SMALL_DECK_SIZE and deck.count(card) < FULL_DECK.count(card):
            deck.append(card)
    return deck


def random_game(
    players: int, seed: int, digital: bool = False, stop: int | None = None
) -> tuple[list[ResistanceState], list[Event], list[Action], dict[str, object]]:
    """A whole random game with plot cards: the states, events, actions and options."""
    rng = random.Random(seed)
    options: dict[str, object] = {
        "players": players,
        "plot": True,
        "identities": "digital" if digital else "physical",
        "targeting": rng.random() < 0.3,
        "isolated_cylons": rng.random() < 0.2,
        "first_commander": rng.randrange(players),
        # drawn apart, so that each seed's game stays the one it was before the option
        "strong_leader": random.Random(f"{seed}:strong_leader").choice(list(TIMINGS)),
    }
    state = GAME.new(options, seed)
    states, events, actions = [state], [], []
    while state.outcome is None and (stop is None or len(actions) < stop):
        action = choose(rng, state)
        state, more = GAME.apply(state, action)
        states.append(state)
        events += more
        actions.append(action)
    return states, events, actions, options


def choose(rng: random.Random, state: ResistanceState) -> Action:
    """A random legal action, quickly: squads and votes are drawn, not listed."""
    n = state.players
    if state.phase is Phase.NIGHT:
        return EndNight()
    if state.phase is Phase.PROPOSE:
        missions = GAME.available_missions(state)
        mission = rng.choice(missions)
        size = GAME.public_view(dataclasses.replace(state, mission=mission))["squad_size"]
        chosen = mission if state.options.targeting else None
        return ProposeSquad(state.commander, tuple(rng.sample(range(n), size)), chosen)
    if state.phase is Phase.VOTE:
        seats = [s for s in range(n) if next(GAME.legal_actions(state, s), None) is not None]
        waiting = [s for s in seats if state.votes[s] is None]
        seat = rng.choice(waiting) if waiting and rng.random() < 0.9 else rng.choice(seats)
        return CastVote(seat, rng.random() < 0.6)
    if state.phase is Phase.MISSION:
        seats = [s for s in state.squad if next(GAME.legal_actions(state, s), None) is not None]
        waiting = [s for s in seats if state.cards[s] is None]
        seat = rng.choice(waiting) if waiting and rng.random() < 0.9 else rng.choice(seats)
        return rng.choice(list(GAME.legal_actions(state, seat)))
    plot = state.plot
    assert plot is not None
    if state.phase is Phase.PLOT_HAND:
        actor = state.commander
    elif state.phase is Phase.PLOT_IMMEDIATE:
        assert plot.pending is not None
        actor = plot.pending.actor
    else:
        assert plot.window is not None
        actor = plot.window.turn
    options = list(GAME.legal_actions(state, actor))
    plays = [a for a in options if not isinstance(a, PassPlot)]
    if state.phase is Phase.PLOT_WINDOW and plays and rng.random() < 0.6:
        return rng.choice(plays)
    return rng.choice(options)
