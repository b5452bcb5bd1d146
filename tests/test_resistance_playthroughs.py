"""200 random games per player count (and some with the expansion *Le Plan*, half of them with
digital identities), checked after every action:

- no public view and no SSE payload holds an unrevealed vote or a mission card's author: the
  payload is byte-identical to the one a "twin" table would send, whose secrets differ (pending
  votes and cards flipped; at a mission's reveal, the squad's cards handed round among them);
- replaying the journal gives the same state after every action.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from heard import HeardNarrator
from resistance_play import choose as choose_with_plot

from companion.announcing import tell_move
from companion.game import EVERYONE, Action, Event, IllegalAction, action_from_json
from companion.games.resistance.engine import Resistance
from companion.games.resistance.state import (
    Card,
    CastVote,
    EndNight,
    Phase,
    PlayMissionCard,
    ResistanceState,
    Side,
)
from companion.journal import Journal
from companion.moderator import Table, public_snapshot, undo_view
from companion.narration import Catalog
from companion.playing import Step
from companion.record import NO_SEED, public_record, public_setup
from companion.said import Said
from web.sse import sse_message

GAMES_PER_COUNT = 200
GAME = Resistance()


def choose(rng: random.Random, state: ResistanceState) -> Action:
    if state.phase is Phase.NIGHT:
        return EndNight()
    if state.phase is Phase.PROPOSE:
        return rng.choice(list(GAME.legal_actions(state, state.commander)))
    if state.phase is Phase.VOTE:
        waiting = [s for s, v in enumerate(state.votes) if v is None]
        seat = rng.choice(waiting) if rng.random() < 0.9 else rng.randrange(state.players)
        return CastVote(seat, rng.random() < 0.65)
    waiting = [s for s in state.squad if state.cards[s] is None]
    seat = rng.choice(waiting) if rng.random() < 0.9 else rng.choice(state.squad)
    return PlayMissionCard(seat, Card.FAIL if rng.random() < 0.3 else Card.SUCCESS)


def twin(state: ResistanceState, action: Action) -> tuple[ResistanceState, Action] | None:
    """The same moment with other secrets: what the table sees must not change."""
    if isinstance(action, CastVote):
        after = [v for s, v in enumerate(state.votes) if s != action.seat]
        if None not in after:
            return None  # the last vote: every vote is revealed, face up, by the rules
        flipped = tuple(None if v is None else not v for v in state.votes)
        return dataclasses.replace(state, votes=flipped), CastVote(action.seat, not action.approve)
    if isinstance(action, PlayMissionCard):
        cards = dict(enumerate(state.cards))
        cards[action.seat] = action.card
        squad = state.squad
        if any(cards[s] is None for s in squad):
            swap = {Card.SUCCESS: Card.FAIL, Card.FAIL: Card.SUCCESS, None: None}
            flipped = tuple(swap[c] for c in state.cards)
            return (
                dataclasses.replace(state, cards=flipped),
                PlayMissionCard(action.seat, swap[action.card]),
            )
        # The reveal: hand each squad member the card of the next one. Same counts, other authors.
        rotated = {s: cards[squad[(i + 1) % len(squad)]] for i, s in enumerate(squad)}
        twin_cards = tuple(
            rotated.get(s) if s != action.seat else None for s in range(state.players)
        )
        twin_cards = tuple(c if s in squad else None for s, c in enumerate(twin_cards))
        return (
            dataclasses.replace(state, cards=twin_cards),
            PlayMissionCard(action.seat, rotated[action.seat]),
        )
    return None


def public(events: list[Event]) -> list[dict]:
    return [e.to_json() for e in events if e.audience == EVERYONE]


def twin_payload(
    table: Table,
    told: list[str],
    after: ResistanceState,
    events: list[Event],
    step: tuple[ResistanceState, Action],
) -> str:
    """The stream's message had ``events`` (the twin's) been the game's, leading to ``after``:
    the table's narration ``told`` before the move, then what the table tells of the move
    (``tell_move``, the table's own). ``step``, the twin's state before and its action, gives
    the host's undo offer, if any."""
    running = table.running
    assert running is not None
    before, action = step
    seen = GAME.public_view(after) != GAME.public_view(before)
    twin = Step(running.steps[-1].seq, before, action, seen)
    running = dataclasses.replace(running, state=after, steps=[*running.steps[:-1], twin])
    snap = table.snapshot()
    said = Said(lambda line, lang: None)  # the narration a silent voice tells
    said.pick_up(told)
    said.message = snap["message"]
    tell_move(said, running, events)
    return sse_message(
        public_snapshot(
            snap["revision"],
            running,
            running.catalog.lang,
            list(said.lines),
            said.message,
            state=after,
            undo=undo_view(running),
        )
    )


def unrevealed(payload: str) -> dict[str, Any]:
    """A stream message less what the end of a game shows by design (RULES.md §1: once the game
    is over the identities are revealed): each seat's side and the line naming the Cylons, or the
    call to turn the identity cards over (the twins of a mission card deal everyone Cylon, so
    that no twin card is refused: which of the two the end says is the deal's public mode, not
    a secret). Everything else must be the same whatever the hidden deal."""
    snap = json.loads(payload.split("data: ", 1)[1])
    if snap.get("ending"):
        snap["ending"]["sides"] = snap["ending"]["turn_over"] = None
        end_lines = tuple(
            Catalog(lang).text(key, names="\0").split("\0")[0]
            for lang in ("en", "fr")
            for key in ("ending.cylons_were", "ending.turn_over")
        )
        snap["narration"] = [line for line in snap["narration"] if not line.startswith(end_lines)]
        if str(snap["message"]).startswith(end_lines):
            snap["message"] = None
    return dict(snap)


def opened_game(
    journal: Journal, options: dict[str, Any], rng: random.Random, seed: int
) -> tuple[Table, Any, list[dict[str, Any]]]:
    """A new game on a table narrated by the real narrator, once its opening has been said: the
    night, whose last cue ends it as at the table. Returns the table, its running game and the
    actions of the opening (the night's end; none without a night)."""
    voice = HeardNarrator()
    table = Table(journal, voice, seats=options["players"])
    table.new_game("resistance", options, language=rng.choice(["en", "fr"]), seed=seed)
    assert voice.wait_idle(10), "the night was never said to its end"
    running = table.running
    assert running is not None
    opened = journal.actions(running.entry.id)
    assert [a["kind"] for a in opened] == ([] if options["isolated_cylons"] else ["end_night"])
    return table, running, opened


def replay_opening(options: dict[str, Any], seed: int, opened: list[Any]) -> ResistanceState:
    """The game's first state from its options and seed alone, then its opening replayed."""
    replayed = GAME.new(options, seed)
    for data in opened:
        replayed, _ = GAME.apply(replayed, action_from_json(GAME.actions, data))
    return replayed


def play_one(players: int, seed: int) -> None:
    rng = random.Random(seed)
    options = {
        "players": players,
        "targeting": rng.random() < 0.3,
        "isolated_cylons": rng.random() < 0.2,
        "first_commander": rng.randrange(players),
    }
    journal = Journal(":memory:")
    table, running, opened = opened_game(journal, options, rng, seed)
    states = [running.state]
    while running.state.outcome is None:
        before = running.state
        told = list(table.snapshot()["narration"])
        action = choose(rng, before)
        events = table.submit(action)
        payload = sse_message(table.snapshot())
        states.append(running.state)

        alternative = twin(before, action)
        if alternative is not None:
            twin_before, twin_action = alternative
            twin_after, twin_events = GAME.apply(twin_before, twin_action)
            assert public(twin_events) == public(events), f"{action}'s events leak (seed {seed})"
            seen = twin_payload(table, told, twin_after, twin_events, (twin_before, twin_action))
            assert unrevealed(payload) == unrevealed(seen), f"{action} leaks a secret (seed {seed})"
            assert GAME.public_view(twin_after) == GAME.public_view(running.state)

    replayed = replay_opening(options, seed, opened)
    recorded = journal.actions(running.entry.id)[len(opened) :]
    assert len(recorded) == len(states) - 1
    assert replayed == states[0]
    for step, data in enumerate(recorded, start=1):
        replayed, _ = GAME.apply(replayed, action_from_json(GAME.actions, data))
        assert replayed == states[step], f"replay differs at action {step} (seed {seed})"
    assert journal.latest_game() is not None and journal.latest_game().finished


@pytest.mark.parametrize("players", range(5, 11))
def test_random_games_never_leak_a_secret_and_replay_exactly(players: int) -> None:
    for seed in range(GAMES_PER_COUNT):
        play_one(players, seed * 100 + players)


# -- with the expansion Le Plan, and digital identities half of the time ------------------------

PLOT_GAMES_PER_COUNT = 12


def plot_twins(state: ResistanceState, action: Action) -> list[tuple[ResistanceState, Action]]:
    """The same moment with other secrets: another deal of the identities (digital), or the
    pending votes and Mission cards the table cannot see turned over."""
    twins: list[tuple[ResistanceState, Action]] = []
    if state.identities is not None:
        others = tuple(reversed(state.identities))
        if others != state.identities:
            twins.append((dataclasses.replace(state, identities=others), action))
    makers = set(GAME.opinion_makers(state))
    opened = GAME.opinion_open(state)
    if isinstance(action, CastVote):
        after = [v for s, v in enumerate(state.votes) if s != action.seat]
        revealing = action.seat in makers and all(
            state.votes[m] is not None for m in makers if m != action.seat
        )
        if None in after and not revealing:
            hidden = {s for s in range(state.players) if not (opened and s in makers)}
            flipped = tuple(
                not v if v is not None and s in hidden else v for s, v in enumerate(state.votes)
            )
            twins.append(
                (
                    dataclasses.replace(state, votes=flipped),
                    CastVote(action.seat, not action.approve),
                )
            )
    if isinstance(action, PlayMissionCard):
        plot = state.plot
        spotlit = None if plot is None else plot.spotlight
        anyone = (Side.CYLONS,) * state.players  # any card may be played: the twin is not refused
        cards = dict(enumerate(state.cards))
        cards[action.seat] = action.card
        hidden = [s for s in state.squad if s != spotlit]
        swap = {Card.SUCCESS: Card.FAIL, Card.FAIL: Card.SUCCESS, None: None}
        if any(cards[s] is None for s in state.squad):
            if action.seat != spotlit:
                flipped = tuple(swap[c] if s in hidden else c for s, c in enumerate(state.cards))
                twins.append(
                    (
                        dataclasses.replace(state, cards=flipped, identities=anyone),
                        PlayMissionCard(action.seat, swap[action.card]),
                    )
                )
        elif len(hidden) > 1:  # the reveal: the hidden cards handed round among their players
            rotated = {s: cards[hidden[(i + 1) % len(hidden)]] for i, s in enumerate(hidden)}
            rotated_cards = tuple(
                rotated[s] if s in rotated and s != action.seat else c
                for s, c in enumerate(state.cards)
            )
            card = rotated.get(action.seat, action.card)
            assert card is not None
            twins.append(
                (
                    dataclasses.replace(state, cards=rotated_cards, identities=anyone),
                    PlayMissionCard(action.seat, card),
                )
            )
    return twins


def play_one_with_plot(players: int, seed: int) -> None:
    rng = random.Random(seed)
    options = {
        "players": players,
        "plot": True,
        "identities": rng.choice(["digital", "physical"]),
        "targeting": rng.random() < 0.3,
        "isolated_cylons": rng.random() < 0.2,
        "first_commander": rng.randrange(players),
    }
    journal = Journal(":memory:")
    table, running, opened = opened_game(journal, options, rng, seed)
    states = [running.state]
    actions: list[Action] = [action_from_json(GAME.actions, data) for data in opened]
    while running.state.outcome is None:
        before = running.state
        told = list(table.snapshot()["narration"])
        action = choose_with_plot(rng, before)
        events = table.submit(action)
        payload = sse_message(table.snapshot())
        states.append(running.state)
        actions.append(action)
        for secret in ('"identity"', '"fellow_cylons"', '"learned"', "mission_card_seen"):
            assert secret not in payload, f"{secret} in a public payload (seed {seed})"

        for twin_before, twin_action in plot_twins(before, action):
            try:
                twin_after, twin_events = GAME.apply(twin_before, twin_action)
            except IllegalAction as refusal:  # another deal: this seat is a Colon there
                assert refusal.code == "colons_cannot_fail"
                continue
            assert public(twin_events) == public(events), f"{action}'s events leak (seed {seed})"
            seen = twin_payload(table, told, twin_after, twin_events, (twin_before, twin_action))
            assert unrevealed(payload) == unrevealed(seen), f"{action} leaks a secret (seed {seed})"

    replayed = replay_opening(options, seed, opened)
    recorded = journal.actions(running.entry.id)[len(opened) :]
    assert len(recorded) == len(states) - 1
    assert replayed == states[0]
    for step, data in enumerate(recorded, start=1):
        replayed, _ = GAME.apply(replayed, action_from_json(GAME.actions, data))
        assert replayed == states[step], f"replay differs at action {step} (seed {seed})"

    header = public_setup(GAME, actions, options, seed)
    public_replay = GAME.new(header, NO_SEED)
    for action in public_record(GAME, actions, options, seed):
        public_replay, _ = GAME.apply(public_replay, action)
    mine, theirs = GAME.public_view(public_replay), GAME.public_view(running.state)
    assert {k: v for k, v in mine.items() if k != "options"} == {
        k: v for k, v in theirs.items() if k != "options"
    }


@pytest.mark.parametrize("players", range(5, 11))
def test_random_games_with_plot_cards_never_leak_a_secret_and_replay_exactly(
    players: int,
) -> None:
    for seed in range(PLOT_GAMES_PER_COUNT):
        play_one_with_plot(players, seed * 100 + players)
