"""Les 7 Sages played at random: whole matches by seeded random players, with the rules'
invariants checked after every action, actions through their JSON form, and the public view
through ``json``.

The players pick a legal action at random, but chase the fool more often than chance would, and
now and then take a goal when one is offered, so that rounds end and the pieces go back; matches
run on to a new one when one is won.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from companion.game import Action, IllegalAction, MalformedAction, action_from_json
from companion.games.sages.board import Side, Square, cite, in_kingdom, name, parse
from companion.games.sages.engine import Sages
from companion.games.sages.state import MoveSage, Phase, Place, SagesState, TimeUp
from companion.games.titles import game_for
from companion.record import public_record

GAME = Sages()
ACTIONS_PER_GAME = 300

LAYOUTS: list[object] = [
    "standard",
    "free",
    {
        "red": ["h1", "c3", "e3", "g5", "j3", "l4", "n6"],
        "blue": ["i15", "c13", "e13", "g11", "j13", "l12", "n10"],
        "fool": "g8",
    },
]


def three_side_by_side(squares: frozenset[int]) -> bool:
    cells = {(s % 15, s // 15) for s in squares}
    return any(
        {(c + 1, r), (c + 2, r)} <= cells or {(c, r + 1), (c, r + 2)} <= cells for c, r in cells
    )


def check_position(state: SagesState) -> None:
    """What must hold of any position a game reaches."""
    pos = state.position
    assert len(pos.red) == len(pos.blue) == 7
    assert not pos.red & pos.blue and pos.fool not in pos.red | pos.blue
    if state.outcome is None:
        assert in_kingdom(pos.fool), name(pos.fool)
    else:  # the match ends with the fool in the loser's cité, as the winning move left it
        assert pos.fool in cite(Side(state.outcome.winner).other), name(pos.fool)
    for side in Side:
        sages = pos.sages(side)
        assert not three_side_by_side(sages), sorted(name(s) for s in sages)
        assert len(sages & cite(side)) <= 1
        assert not sages & cite(side.other)


@dataclass
class Tally:
    points: int = 0
    resets: int = 0
    matches: int = 0
    chases: int = 0
    time_ups: int = 0
    kinds: set[str] = field(default_factory=set)


def pick(rng: random.Random, state: SagesState, offered: list[Action]) -> Action:
    side = state.to_move
    moves = [a for a in offered if not isinstance(a, TimeUp)]
    chases = [a for a in moves if isinstance(a, MoveSage) and a.fool_to is not None]
    goals = [a for a in chases if a.fool_to is not None and a.fool_to.index in cite(side.other)]
    if goals and rng.random() < 0.25:
        return rng.choice(goals)
    if chases and rng.random() < 0.5:
        return rng.choice(chases)
    if len(moves) < len(offered) and rng.random() < 0.02:
        return TimeUp(side.seat)
    return rng.choice(moves)


def round_trip(action: Action) -> Action:
    return action_from_json(Sages.actions, json.loads(json.dumps(action.to_json())))


def play_matches(seed: int, options: dict[str, object], tally: Tally) -> Iterator[SagesState]:
    """Random matches from ``options`` until ``ACTIONS_PER_GAME`` actions were applied: each state
    reached, after the checks that relate it to the one before."""
    rng = random.Random(seed)
    state = GAME.new(options, seed)
    record: list[Action] = []
    for _ in range(ACTIONS_PER_GAME):
        if state.phase is Phase.OVER:
            check_over(state, record, options, seed)
            tally.matches += 1
            state, record = GAME.new(options, seed), []
        seat = state.to_move.seat
        offered = list(GAME.legal_actions(state, seat))
        assert offered, "a player with no legal action was left to move"
        assert list(GAME.legal_actions(state, 1 - seat)) == []
        for action in rng.sample(offered, min(4, len(offered))):
            assert round_trip(action) == action
        action = pick(rng, state, offered)
        after, events = GAME.apply(state, round_trip(action))
        record.append(action)
        tally.kinds |= {e.kind for e in events}
        check_step(state, action, after, tally)
        json.dumps(GAME.public_view(after))
        json.dumps([e.to_json() for e in events])
        state = after
        yield state


def check_step(before: SagesState, action: Action, after: SagesState, tally: Tally) -> None:
    if isinstance(action, Place):
        assert after.score == before.score
        assert after.phase in (Phase.PLACE, Phase.PLAY)
        if after.phase is Phase.PLAY:
            assert after.start == after.position and after.to_move is Side.RED
            check_position(after)
        return
    check_position(after)
    mover = before.to_move
    gained = [a - b for a, b in zip(after.score, before.score, strict=True)]
    assert gained[1 - mover.seat] == 0, "only the mover scores"
    assert gained[mover.seat] in (0, 1, 2)
    if isinstance(action, TimeUp):
        tally.time_ups += 1
        assert after.position == before.position and gained == [0, 0]
        return
    assert isinstance(action, MoveSage)
    if action.fool_to is not None:
        tally.chases += 1
        assert after.last is not None and after.last.move.flight is not None
    if gained[mover.seat]:
        tally.points += 1
        assert action.fool_to is not None and action.fool_to.index in cite(mover.other)
        if after.phase is Phase.OVER:
            assert after.score[mover.seat] >= after.options.target
            outcome = GAME.outcome(after)
            assert outcome is not None and outcome.winner == mover.value
        else:
            tally.resets += 1
            assert after.position == after.start, "the pieces go back after a point"
            assert after.to_move is mover.other and after.first is mover.other
            assert after.round == before.round + 1 and after.moves == 0
    else:
        assert after.phase is Phase.PLAY and after.round == before.round
        pos, was = after.position, before.position
        moved = was.sages(mover) - pos.sages(mover)
        assert len(moved) == 1 and pos.sages(mover.other) == was.sages(mover.other)
        if action.fool_to is None:
            assert pos.fool == was.fool
        else:
            assert pos.fool == action.fool_to.index and action.to.index == was.fool


def check_over(
    state: SagesState, record: list[Action], options: dict[str, object], seed: int
) -> None:
    assert list(GAME.legal_actions(state, 0)) == list(GAME.legal_actions(state, 1)) == []
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, TimeUp(state.to_move.seat))
    assert caught.value.code == "game_over"
    assert GAME.public_view(state)["winner"] in (0, 1)
    replayed = GAME.new(options, seed)
    for action in public_record(GAME, record, options, seed):
        replayed, _ = GAME.apply(replayed, action)
    assert replayed == state, "replaying the record gives the same match"


@pytest.mark.parametrize("seed", range(4))
def test_random_matches_keep_the_rules(seed: int) -> None:
    tally = Tally()
    layout = LAYOUTS[seed % len(LAYOUTS)]
    options = {"layout": layout, "target": 5, "hourglass": 60 if seed % 2 else None}
    for _ in play_matches(seed, options, tally):
        pass
    assert tally.chases >= 1


def test_random_matches_are_won_and_replayed() -> None:
    tally = Tally()
    for _ in play_matches(7, {"target": 2}, tally):
        pass
    assert tally.matches >= 2 and tally.points >= 4


def test_the_hourglass_is_used_in_random_play() -> None:
    tally = Tally()
    for _ in play_matches(1, {"hourglass": 60, "target": 15}, tally):
        pass
    assert tally.time_ups >= 1 and "time_up" in tally.kinds
    assert tally.resets >= 1 and "round_started" in tally.kinds


def test_the_public_view_is_json_and_shows_the_board() -> None:
    state = GAME.new({}, seed=0)
    view = json.loads(json.dumps(GAME.public_view(state)))
    assert view["position"]["fool"] == "h8" and len(view["position"]["red"]) == 7
    assert view["to_move"] == 0 and view["score"] == [0, 0] and view["phase"] == "play"
    assert view["cites"] == {
        "red": ["f1", "g1", "h1", "i1", "j1"],
        "blue": ["f15", "g15", "h15", "i15", "j15"],
    }
    offered = [a for a in GAME.legal_actions(state, 0) if isinstance(a, MoveSage)]
    listed = sum(len(e["to"]) + len(e["chases"]) for e in view["moves"].values())
    assert listed == len(offered)
    assert GAME.private_view(state, 0) == {} and GAME.private_view(state, 1) == {}
    placing = GAME.new({"layout": "free"}, seed=0)
    placing_view = json.loads(json.dumps(GAME.public_view(placing)))
    assert placing_view["phase"] == "place" and placing_view["placements"]


def test_actions_have_a_json_form() -> None:
    state = GAME.new({"hourglass": 30}, seed=0)
    offered = list(GAME.legal_actions(state, 0))
    for action in offered:
        assert round_trip(action) == action
    chase = next(a for a in offered if isinstance(a, MoveSage) and a.fool_to is not None)
    assert chase.to_json()["to"] == "h8" and chase.to_json()["fool_to"] == str(chase.fool_to)
    written = {"kind": "move", "seat": 0, "sage": "d3", "to": "d4"}
    assert action_from_json(Sages.actions, written) == MoveSage(
        0, Square(parse("d3")), Square(parse("d4"))
    )
    assert round_trip(TimeUp(1)) == TimeUp(1)
    assert round_trip(Place(1, Square(parse("c13")))) == Place(1, Square(parse("c13")))
    for bad in ({**written, "sage": "z1"}, {**written, "to": 5}, {**written, "fool": "h9"}):
        with pytest.raises(MalformedAction):
            action_from_json(Sages.actions, bad)


def test_the_options_give_back_the_same_game() -> None:
    for layout in LAYOUTS:
        state = GAME.new({"layout": layout, "hourglass": 45, "target": 7}, seed=0)
        assert GAME.new(GAME.options_json(state), seed=0) == state
    chosen = {"placement": "halves", "draw_by_agreement": True, "repetition": "match"}
    state = GAME.new({"layout": "free", **chosen}, seed=0)
    assert GAME.options_json(state) | chosen == GAME.options_json(state)
    assert GAME.new(GAME.options_json(state), seed=0) == state


def test_sages_is_a_registered_game() -> None:
    assert isinstance(game_for("sages"), Sages)
