"""Game night played at random: whole evenings of random throws (with dice kept and thrown
again), corrections, turns, pauses, scores and draws, with the invariants checked after every
action, every action through its JSON form, the public view through ``json``, and the evening
replayed from its actions to the same state."""

from __future__ import annotations

import json
import random

import pytest

from companion.game import Action, IllegalAction, action_from_json
from companion.games.night.dice import COLORS, DiceStats, PipDie
from companion.games.night.engine import Night
from companion.games.night.state import (
    ACTIONS,
    CorrectDie,
    CountByColor,
    EndEvening,
    NewSheet,
    NightState,
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

GAME = Night()


def a_throw(rng: random.Random, state: NightState) -> ReadDice:
    """Dice on a tray: some of the last throw's left where they lay, the rest thrown anew."""
    last = state.throws[-1].dice if state.throws else ()
    kept = [d for d in last if d.placed and rng.random() < 0.4]
    count = rng.randint(max(1, len(kept)), 8)
    thrown = [
        PipDie(
            rng.randint(1, 6),
            rng.choice([*COLORS, None]),
            round(rng.uniform(0, 600), 1),
            round(rng.uniform(0, 400), 1),
            round(rng.uniform(18, 40), 1),
            round(rng.uniform(0, 90), 1),
            round(rng.random(), 3),
        )
        for _ in range(count - len(kept))
    ]
    if rng.random() < 0.1:
        thrown = [PipDie(d.value) for d in thrown]  # typed by hand
    return ReadDice(tuple(kept + thrown))


def choose(rng: random.Random, state: NightState) -> Action:
    """A random thing a game night table does next (not always allowed: a pause when no turn
    runs...); now and then the evening ends."""
    players = state.players
    timer = state.timer
    if rng.random() < 0.004:
        return EndEvening()
    if timer is not None and not timer.sand.paused and rng.random() < 0.5:
        return PassTurn(timer.turn, timed_out=rng.random() < 0.3)
    if timer is None and rng.random() < 0.2:
        return StartTimer(rng.randrange(players), rng.choice([5, 30, 60, 3600]))
    roll = rng.random()
    if roll < 0.3:
        return a_throw(rng, state)
    if roll < 0.35 and state.throws:
        return CorrectDie(rng.randrange(len(state.throws[-1].dice)), rng.randint(1, 6))
    if roll < 0.38:
        return CountByColor(rng.random() < 0.5)
    if roll < 0.45:
        return StartTimer(rng.randrange(players), rng.choice([5, 30, 60, 3600]))
    if roll < 0.5 and timer is not None:
        if timer.sand.paused:
            return ResumeHourglass()
        return PauseHourglass(round(rng.uniform(0.1, timer.countdown), 1))
    if roll < 0.52:
        return StopTimer()
    if roll < 0.75:
        rounds = len(state.pad.rounds)
        points = None if rng.random() < 0.1 else rng.randint(-20, 60)
        return WriteScore(rng.randrange(players), rng.randint(0, rounds), points)
    if roll < 0.8:
        return SayLeader()
    if roll < 0.83:
        return NewSheet()
    if roll < 0.93:
        among = tuple(sorted(rng.sample(range(players), rng.randint(0, players))))
        return PickStarter(among)
    return ShowScreen(rng.choice(list(Screen)))


def check(state: NightState) -> None:
    view = GAME.public_view(state)
    assert json.loads(json.dumps(view)) == view
    stats = DiceStats.of(state.throws)
    assert view["dice"]["stats"]["dice"] == stats.dice == sum(sum(t.rolled) for t in state.throws)
    assert sum(s["dice"] for s in view["dice"]["stats_by_color"].values()) <= stats.dice
    assert view["scores"]["totals"] == [
        sum(row[seat] or 0 for row in state.pad.rounds) for seat in range(state.players)
    ]
    assert all(len(row) == state.players for row in state.pad.rounds)
    assert not state.pad.rounds or any(p is not None for p in state.pad.rounds[-1])
    for p in state.picks:
        assert p.seat in p.among
    if state.timer is not None:
        assert 0 <= state.timer.turn < state.players
        assert 0 < state.timer.countdown <= state.timer.seconds
    assert GAME.private_view(state, 0) == {}


@pytest.mark.parametrize("seed", range(12))
def test_a_random_evening_keeps_every_invariant_and_replays_to_the_same_state(seed: int):
    rng = random.Random(seed)
    options = {"players": rng.randint(1, 8), "low_wins": rng.random() < 0.3}
    state = GAME.new(options, seed)
    start = state
    taken: list[Action] = []
    refused = 0
    for _ in range(600):
        if GAME.outcome(state) is not None:
            break
        action = choose(rng, state)
        again = action_from_json(ACTIONS, json.loads(json.dumps(action.to_json())))
        assert again == action
        try:
            state, _ = GAME.apply(state, again)
        except IllegalAction:
            refused += 1
            continue
        taken.append(action)
        check(state)
    replayed = start
    for action in taken:
        replayed, _ = GAME.apply(replayed, action)
    assert replayed == state
    assert len(taken) > refused
