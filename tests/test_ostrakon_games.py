"""Random whole games of Ostrakon for every player count, checked after every action:

- every philosopher on the path at the start of a day asks exactly once that day (those in the
  Temple ask no more);
- every philosopher is somewhere, once: on the path or under the Sun; only the asker and the
  disciple move, each landing on top of a pile (or the asker at the bottom of the pile under the
  Sun), and the pile under the Sun goes back whole, in order;
- the game ends after exactly as many days as the Calendar shows (or earlier only when everyone
  has reached the Temple), won by the top of the pile nearest the Temple;
- no public view and no event for the table holds a tesson still face down: a "twin" table whose
  face-down tessons are turned over looks the same;
- the public record, and the journal's JSON lines, replay to the same game.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from collections import Counter
from collections.abc import Mapping

import pytest

from companion.game import Action, AudienceKind, Event, IllegalAction, action_from_json
from companion.games.ostrakon.engine import Ostrakon
from companion.games.ostrakon.path import DayRule, Path
from companion.games.ostrakon.state import (
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
from companion.record import public_record

GAMES_PER_COUNT = 30
GAME = Ostrakon()
TEMPLE = 17
PRINTED_DAYS = {5: 6, 6: 6, 7: 5, 8: 5, 9: 4, 10: 4, 11: 3, 12: 3}


def choose(rng: random.Random, state: OstrakonState) -> Action:
    asker = state.asker
    assert asker is not None
    n = state.players
    if state.phase is Phase.QUESTION:
        return Ask(asker) if rng.random() < 0.95 else Vote(rng.randrange(n), True)
    if state.phase is Phase.VOTE:
        contenders = GAME.disciple_contenders(state)
        if contenders and len(state.claimants) + len(contenders) >= 2 and rng.random() < 0.05:
            joining = rng.sample(contenders, 1 if state.claimants else 2)
            return ContestDisciple(tuple(sorted((*state.claimants, *joining))))
        if rng.random() < 0.08:
            willing = [s for s in range(n) if GAME.disciple_refusal(state, s) is None]
            return ClaimDisciple(rng.choice(willing) if willing else rng.randrange(n))
        waiting = [s for s, v in enumerate(state.votes) if v is None]
        seat = rng.choice(waiting) if rng.random() < 0.9 else rng.randrange(n)
        return Vote(seat, rng.random() < 0.5)
    if state.phase is Phase.NAME:
        others = [s for s in range(n) if s != asker]
        return Name(asker, tuple(rng.sample(others, state.options.named)))
    return Flip(asker, rng.random() < 0.5)


def public(events: list[Event]) -> list[dict[str, object]]:
    return [e.to_json() for e in events if e.audience.kind is AudienceKind.EVERYONE]


def twin(state: OstrakonState) -> OstrakonState:
    """The same moment with every face-down tesson turned over."""
    votes = tuple(
        v if v is None or shown else not v
        for v, shown in zip(state.votes, state.shown, strict=True)
    )
    return dataclasses.replace(state, votes=votes)


def check_secrets(rng: random.Random, state: OstrakonState, action: Action) -> None:
    laid = zip(state.votes, state.shown, strict=True)
    hidden = [seat for seat, (v, shown) in enumerate(laid) if v is not None and not shown]
    if not hidden:
        return
    other = twin(state)
    view = GAME.public_view(state)
    assert view == GAME.public_view(other)
    assert repr(state) == repr(other)
    assert all(view["tessons"][s] is None for s in hidden)
    if (
        isinstance(action, Vote)
        and sum(v is None for v in state.votes) > (state.votes[action.seat] is None)
        and rng.random() < 0.3
    ):  # a vote that leaves someone still to vote shows nothing (checked on a sample)
        _, events = GAME.apply(state, action)
        _, twin_events = GAME.apply(other, Vote(action.seat, not action.white))
        assert public(events) == public(twin_events)


def expected_path(before: OstrakonState, result: dict[str, object]) -> tuple[Path, tuple[int, ...]]:
    """Where the philosophers must stand after a count: only the movers move."""
    path, under = before.path, before.under_sun
    asker = result["asker"]
    assert isinstance(asker, int)
    path = path.without(asker)
    if result["moved"] == "forward":
        assert isinstance(result["to"], int)
        path = path.placed(result["to"], (asker, *path.pile(result["to"])))
        disciple = result["disciple"]
        if isinstance(disciple, int):
            assert path.square_of(disciple) == result["disciple_from"]
            assert isinstance(result["disciple_to"], int)
            path = path.without(disciple)
            path = path.placed(result["disciple_to"], (disciple, *path.pile(result["disciple_to"])))
    else:
        under = (*under, asker)
    if not path.pile(before.sun):
        path, under = path.placed(before.sun, under), ()
    return path, under


def play_game(
    players: int, seed: int, seen: Counter[str], extra: Mapping[str, object] | None = None
) -> list[str]:
    """One game, checked after every action; returns the subjects of its questions in order."""
    rng = random.Random(seed * 100 + players)
    options = {"players": players, **(extra or {})}
    state = GAME.new(options, seed)
    subjects: list[str] = []
    actions: list[Action] = []
    to_ask = set(state.path.seats())
    days_ended = 0
    while state.phase is not Phase.OVER:
        assert len(actions) < 5000
        action = choose(rng, state)
        check_secrets(rng, state, action)
        try:
            after, events = GAME.apply(state, action)
        except IllegalAction as refusal:
            seen[f"refused:{refusal.code}"] += 1
            assert isinstance(action, ClaimDisciple | Vote)
            continue
        actions.append(action)
        everyone = sorted([*after.path.seats(), *after.under_sun])
        assert everyone == list(range(players))
        for event in events:
            if event.kind == "turn_result":
                data = dict(event.data)
                subjects.append(str(data["subject"]))
                assert data["asker"] in to_ask, "asked twice in a day"
                to_ask.discard(data["asker"])
                seen[f"rule:{data['rule']}"] += 1
                if data["to"] == TEMPLE:
                    seen["temple"] += 1
                if len(state.claimants) > 1:  # the farthest from the Temple won the contest
                    seen["contested"] += 1
                    squares = {s: state.path.square_of(s) or 0 for s in state.claimants}
                    assert data["disciple"] == min(state.claimants, key=squares.__getitem__)
                if data["disciple_to"] is not None:
                    seen["disciple_moved"] += 1
                    if data["disciple_to"] == state.sun:
                        seen["disciple_stopped_at_sun"] += 1
                assert (after.path, after.under_sun) == expected_path(state, data)
            elif event.kind == "day_ended":
                assert to_ask == set(), "someone did not ask"
                days_ended += 1
                to_ask = set(after.path.seats()) - set(after.path.pile(TEMPLE))
        state = after
    outcome = GAME.outcome(state)
    assert outcome is not None
    everyone_in_temple = len(state.path.pile(TEMPLE)) == players
    assert days_ended == PRINTED_DAYS[players] or (
        everyone_in_temple and days_ended < PRINTED_DAYS[players]
    )
    square = state.path.winning_square()
    assert square is not None
    assert outcome.winner == str(state.path.top(square))
    assert (outcome.reason is Termination.VICTOIRE_SUPREME) == (square == TEMPLE)
    seen[outcome.reason.value] += 1
    seen["reshuffles"] += state.deck.reshuffles
    seen["games"] += 1

    if seed % 3 == 0:  # the journal: every action as a JSON line, replayed
        replayed = GAME.new(GAME.options_json(state), seed)
        for action in actions:
            replayed, _ = GAME.apply(replayed, action_from_json(GAME.actions, action.to_json()))
        assert replayed == state
    elif seed % 3 == 1:  # the record anyone may see: the same game to everyone's eyes
        shown = GAME.new(options, seed)
        for action in public_record(GAME, actions, options, seed):
            shown, _ = GAME.apply(shown, action)
        assert GAME.public_view(shown) == GAME.public_view(state)
    return subjects


@functools.cache
def games(players: int) -> Counter[str]:
    """What happened in the random games of a player count (played once per test session)."""
    seen: Counter[str] = Counter()
    for seed in range(GAMES_PER_COUNT):
        play_game(players, seed, seen)
    return seen


@pytest.mark.parametrize("players", range(5, 13))
def test_random_games_keep_every_rule(players: int) -> None:
    seen = games(players)
    assert seen["calendar_covered"] + seen["victoire_supreme"] == GAMES_PER_COUNT
    assert seen["disciple_moved"] > 0


def test_random_games_meet_every_special_day_the_temple_and_the_disciple_stopping() -> None:
    seen = sum((games(players) for players in range(5, 13)), Counter[str]())
    for rule in DayRule:
        assert seen[f"rule:{rule.value}"] > 0, seen
    assert seen["disciple_stopped_at_sun"] > 0, seen
    assert seen["temple"] > 0, seen
    assert seen["victoire_supreme"] > 0, seen
    assert seen["refused:disciple_too_late"] > 0, seen
    assert seen["refused:question_not_asked"] > 0, seen
    assert seen["contested"] > 0, seen


def test_random_games_with_few_subjects_reshuffle_all_the_cards() -> None:
    """ "mélangez à nouveau toutes ces cartes": every subject comes back, never as the next
    subject of itself, and sometimes soon after it was asked (nothing is kept back)."""
    seen: Counter[str] = Counter()
    subjects = ["sea", "money", "sport", "love", "music", "free-1", "Dragons"]
    soon = 0
    for seed in range(6):
        asked = play_game(6, seed, seen, {"subjects": subjects})
        assert all(a != b for a, b in itertools.pairwise(asked))
        soon += sum(asked[i] in asked[i + 2 : i + 4] for i in range(len(asked)))
    assert seen["reshuffles"] > 0
    assert soon > 0


def test_a_public_record_cut_in_the_middle_of_a_vote_leaves_the_open_turn_out() -> None:
    state = GAME.new({"players": 6, "pile": [0, 1, 2, 3, 4, 5]}, 3)
    actions: list[Action] = [Ask(0), Vote(1, True), Vote(2, False), Vote(1, False)]
    record = public_record(GAME, actions, {"players": 6, "pile": [0, 1, 2, 3, 4, 5]}, 3)
    assert record == [Ask(0)]
    for action in actions:
        state, _ = GAME.apply(state, action)
    actions += [Vote(0, False), Vote(3, True), Vote(4, True), Vote(5, False)]
    record = public_record(GAME, actions, {"players": 6, "pile": [0, 1, 2, 3, 4, 5]}, 3)
    assert record == [Ask(0), Vote(1, False), Vote(2, False), *actions[4:]]


def test_the_public_record_never_tells_an_oracle_askers_first_tesson() -> None:
    every_square_oracle = {str(square): "oracle" for square in range(1, 17)}
    options = {"players": 5, "pile": [0, 1, 2, 3, 4], "symbols": every_square_oracle}
    state = GAME.new(options, 3)
    actions: list[Action] = []
    for _ in range(5):  # the first day: every vote unanimous, everyone under the Sun
        asker = state.asker
        assert asker is not None
        turn = [Ask(asker), *(Vote(s, True) for s in range(5))]
        for action in turn:
            state, _ = GAME.apply(state, action)
        actions += turn
    assert state.day_rule is DayRule.ORACLE
    asker = state.asker
    assert asker is not None
    others = [s for s in range(5) if s != asker]
    turn = [
        Ask(asker),
        Vote(asker, False),
        *(Vote(s, True) for s in others),
        Name(asker, (others[0],)),
        Flip(asker, True),
    ]
    for action in turn:
        state, _ = GAME.apply(state, action)
    record = public_record(GAME, [*actions, *turn], options, 3)
    told = record[len(actions) :]
    assert Vote(asker, True) in told and Flip(asker, False) in told
    assert Vote(asker, False) not in told and Flip(asker, True) not in told
