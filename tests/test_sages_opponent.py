"""The companion as an opponent in Les 7 Sages (companion/games/sages/opponent.py).

No timing here: the speed is measured by benchmarks/sages_opponent.py (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from companion.games.sages.board import Side, Square, cite, column, parse
from companion.games.sages.engine import Sages, placements
from companion.games.sages.moves import Move, Position, chases, legal_moves, scored
from companion.games.sages.opponent import (
    LEVELS,
    _code,
    _probe,
    _Search,
    choose,
    companion_move,
    place,
)
from companion.games.sages.state import (
    DEFAULT_STRENGTH,
    STRENGTHS,
    MoveSage,
    Phase,
    Place,
    SagesState,
    check_standing,
)

ROOT = Path(__file__).resolve().parents[1]
MOVE_CAP = 2000


def position(red: list[str], blue: list[str], fool: str) -> Position:
    return Position(frozenset(map(parse, red)), frozenset(map(parse, blue)), parse(fool))


def after(position: Position, side: Side, move: Move) -> Position:
    return position.moved(side, move.frm, move.to, move.fool_to)


def goal_for(position: Position, side: Side) -> int:
    """The most ``side`` could score with one move (the engine's own answer)."""
    return max((scored(m, side) for m in chases(position, side)), default=0)


def random_positions(games: int, plies: int) -> list[tuple[Position, Side]]:
    """Positions of random games, each with the side to move."""
    game, out = Sages(), []
    for seed in range(games):
        rng, state = random.Random(seed), game.new({}, seed)
        for _ in range(plies):
            if state.outcome is not None:
                break
            out.append((state.position, state.to_move))
            state, _ = game.apply(
                state, rng.choice(list(game.legal_actions(state, state.to_move.seat)))
            )
    return out


# A position where Red may score 2 (h5 chases the fool up the h file into an empty h15) or 1
# (c8 chases it east onto Blue's k8, which turns it up the j file into j15).
TWO_OR_ONE = position(
    ["h5", "c8", "d3", "l3", "f4", "m2", "g1"],
    ["k8", "f15", "d13", "l13", "b12", "m12", "c14"],
    "h8",
)

# Red's only goal: h1 chases the fool up the h file onto Blue's defender on h15, which turns it
# into i15 (the decisive sage is Blue's: 1 point).
ONE_ONLY = position(
    ["c6", "d3", "f4", "g12", "h1", "j4", "l3"],
    ["c10", "d13", "f12", "h15", "j9", "l13", "m10"],
    "h8",
)

# Blue's h10 threatens to chase the fool down the open h file into h1 (Red's defender is on f1).
THREATENED = position(
    ["f1", "d3", "l3", "f4", "j4", "c6", "m6"],
    ["h10", "d13", "l13", "f12", "j12", "c10", "m10"],
    "h8",
)

# Red's h4 alone stands between Blue's chase down the h file and h1.
BLOCKING = position(
    ["f1", "h4", "d3", "l3", "c6", "m6", "b2"],
    ["h10", "d13", "l13", "f12", "j12", "c10", "m10"],
    "h8",
)


# -- goals --------------------------------------------------------------------------------------


@pytest.mark.parametrize("strength", STRENGTHS)
def test_a_goal_on_the_board_is_taken_the_two_point_one_first(strength: int) -> None:
    worth = {scored(m, Side.RED) for m in legal_moves(TWO_OR_ONE, Side.RED)}
    assert {1, 2} <= worth
    move = choose(TWO_OR_ONE, Side.RED, strength)
    assert move is not None and scored(move, Side.RED) == 2


def test_a_one_point_goal_is_taken_when_it_is_the_only_goal() -> None:
    goals = [m for m in legal_moves(ONE_ONLY, Side.RED) if scored(m, Side.RED)]
    assert [scored(m, Side.RED) for m in goals] == [1]
    assert choose(ONE_ONLY, Side.RED, 1) == goals[0]


# -- defence ------------------------------------------------------------------------------------


@pytest.mark.parametrize("strength", STRENGTHS)
def test_an_immediate_goal_threat_is_parried(strength: int) -> None:
    assert goal_for(THREATENED, Side.BLUE) == 2
    assert goal_for(THREATENED, Side.RED) == 0
    conceding = [
        m
        for m in legal_moves(THREATENED, Side.RED)
        if goal_for(after(THREATENED, Side.RED, m), Side.BLUE)
    ]
    assert len(conceding) > 100  # almost every move lets it in
    move = choose(THREATENED, Side.RED, strength)
    assert move is not None
    assert goal_for(after(THREATENED, Side.RED, move), Side.BLUE) == 0


@pytest.mark.parametrize("strength", STRENGTHS)
def test_the_sage_blocking_a_goal_stays_in_the_way(strength: int) -> None:
    assert goal_for(BLOCKING, Side.BLUE) == 0
    opening = [  # h4 stepping off the h file
        m
        for m in legal_moves(BLOCKING, Side.RED)
        if m.frm == parse("h4") and column(m.to) != column(m.frm)
    ]
    assert opening and all(goal_for(after(BLOCKING, Side.RED, m), Side.BLUE) for m in opening)
    move = choose(BLOCKING, Side.RED, strength)
    assert move is not None
    assert goal_for(after(BLOCKING, Side.RED, move), Side.BLUE) == 0


def test_no_goal_is_conceded_when_a_move_avoids_it() -> None:
    """Over positions of random games where the other side could score next, the companion's
    move leaves it none whenever some move would."""
    checked = 0
    for pos, side in random_positions(games=6, plies=60):
        if goal_for(pos, side) or not goal_for(pos, side.other):
            continue
        safe = any(not goal_for(after(pos, side, m), side.other) for m in legal_moves(pos, side))
        move = choose(pos, side, DEFAULT_STRENGTH)
        assert move is not None
        if safe:
            assert not goal_for(after(pos, side, move), side.other), (pos, side, move)
            checked += 1
    assert checked >= 5


# -- the search's own copy of the rules --------------------------------------------------------


def test_the_search_generates_the_engines_moves_and_finds_its_goals() -> None:
    for pos, side in random_positions(games=6, plies=120):
        search = _Search(pos, side, 0, LEVELS[DEFAULT_STRENGTH])
        code = _code(side)
        best = goal_for(pos, side)
        assert _probe(search.cells, search.occupied, search.fool, code).points == best
        if not best:
            engine = {
                (m.frm, m.to, -1 if m.fool_to is None else m.fool_to)
                for m in legal_moves(pos, side)
            }
            assert set(search.moves(code)) == engine


def test_a_threat_is_resolved_as_trying_every_move_would() -> None:
    resolved = 0
    for pos, side in random_positions(games=4, plies=100):
        if goal_for(pos, side) or not goal_for(pos, side.other):
            continue
        search = _Search(pos, side, 0, LEVELS[DEFAULT_STRENGTH])
        code = _code(side)
        threat = _probe(search.cells, search.occupied, search.fool, 3 - code)
        fewest = min(goal_for(after(pos, side, m), side.other) for m in legal_moves(pos, side))
        assert search.parry(code, threat) == fewest
        resolved += 1
    assert resolved >= 5


# -- determinism --------------------------------------------------------------------------------


@pytest.mark.parametrize("strength", STRENGTHS)
def test_the_same_position_gives_the_same_move(strength: int) -> None:
    for pos, side in random_positions(games=2, plies=40)[::16]:
        copy = Position(frozenset(sorted(pos.red)), frozenset(sorted(pos.blue)), pos.fool)
        assert choose(pos, side, strength) == choose(copy, side, strength)


def test_the_choice_does_not_depend_on_the_interpreters_hash_seed() -> None:
    script = (
        "import json, random\n"
        "from companion.games.sages.engine import Sages\n"
        "from companion.games.sages.opponent import choose\n"
        "game, rng = Sages(), random.Random(5)\n"
        "state, out = game.new({}, 0), []\n"
        "for _ in range(30):\n"
        "    move = choose(state.position, state.to_move, 2)\n"
        "    out.append([move.frm, move.to, move.fool_to])\n"
        "    actions = list(game.legal_actions(state, state.to_move.seat))\n"
        "    state, _ = game.apply(state, rng.choice(actions))\n"
        "print(json.dumps(out))\n"
    )
    answers = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(done.stdout))
    assert answers[0] == answers[1]


# -- at the table -------------------------------------------------------------------------------


def test_companion_move_is_none_unless_the_companion_is_to_move() -> None:
    game = Sages()
    red_to_move = game.new({"computer": "blue"}, 0)
    assert red_to_move.to_move is Side.RED
    assert companion_move(red_to_move) is None
    assert companion_move(game.new({}, 0)) is None  # nobody plays for the companion
    blue = game.new({"computer": "red"}, 0)
    action = companion_move(blue)
    assert isinstance(action, MoveSage) and action.seat == Side.RED.seat
    over = dataclasses.replace(blue, phase=Phase.OVER)
    assert companion_move(over) is None


def test_companion_move_is_accepted_by_the_engine() -> None:
    game = Sages()
    state = game.new({"computer": "red"}, 0)
    action = companion_move(state)
    assert action is not None
    state, events = game.apply(state, action)
    assert state.to_move is Side.BLUE and events


def test_free_placement_gives_a_legal_layout() -> None:
    game = Sages()
    state = game.new({"layout": "free", "computer": "blue"}, 0)
    while state.phase is Phase.PLACE:
        if state.to_move is Side.BLUE:
            action = companion_move(state)
            assert isinstance(action, Place)
        else:
            action = Place(Side.RED.seat, Square(place(state.position, Side.RED)))
        state, _ = game.apply(state, action)
    assert state.phase is Phase.PLAY
    for side in Side:
        check_standing(state.position, side)  # raises IllegalAction if not
        assert len(state.position.sages(side)) == 7
        assert len(state.position.sages(side) & cite(side)) == 1
    assert companion_move(dataclasses.replace(state, to_move=Side.BLUE)) is not None


def test_free_placement_picks_an_allowed_square_beside_any_earlier_placement() -> None:
    """Sages laid at random before it (the standard squares may then be taken or make three
    side by side): the companion's square is always one the engine allows."""
    game = Sages()
    for seed in range(20):
        rng = random.Random(seed)
        state = game.new({"layout": "free"}, seed)
        while state.phase is Phase.PLACE:
            side = state.to_move
            assert place(state.position, side) in placements(state.position, side)
            action = rng.choice(list(game.legal_actions(state, side.seat)))
            state, _ = game.apply(state, action)


# -- against a random mover ---------------------------------------------------------------------


def play_random(match: int) -> SagesState:
    game, rng = Sages(), random.Random(match)
    companion = Side.RED if match % 2 == 0 else Side.BLUE
    state = game.new({"computer": companion.value}, match)
    for _ in range(MOVE_CAP):
        if state.outcome is not None:
            break
        action = companion_move(state)
        if action is None:
            action = rng.choice(list(game.legal_actions(state, state.to_move.seat)))
        state, _ = game.apply(state, action)
    return state


@pytest.mark.parametrize("match", range(10))
def test_the_default_strength_beats_a_random_mover(match: int) -> None:
    state = play_random(match)
    companion = Side.RED if match % 2 == 0 else Side.BLUE
    assert state.outcome is not None, f"not over after {MOVE_CAP} moves: {state.score}"
    assert state.outcome.winner == companion.value, state.score
