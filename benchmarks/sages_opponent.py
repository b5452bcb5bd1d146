"""Les 7 Sages: the companion's opponent against a random mover, and its time per move at each
strength; prints Markdown for docs/PERFORMANCE.md.

    .venv/bin/python benchmarks/sages_opponent.py [--matches 100] [--games 12] [--ladder 16]

1. ``--matches`` matches to 5 points at the default strength against a uniformly random mover
   (a seeded choice among ``Sages().legal_actions`` for its seat), the companion Red in even
   matches and Blue in odd ones. A match not over after 2,000 moves counts as not won. Prints
   the wins, the match lengths and the companion's time per move.
2. The time per move at each strength on the positions of ``--games`` matches of the default
   strength against itself, each from its own opening of 6 random plies, to 3 points, at most
   200 moves a round: the busy positions a real opponent makes, slower than those against a
   random mover. The slowest positions are the worst cases measured.
3. With ``--ladder N``: N matches of each strength against the one below (openings as in 2,
   each side Red in half of them, at most 300 moves a match).

Times are the process's CPU time (``time.process_time``), so that other jobs on the machine do
not inflate them; on an idle machine the wall clock agrees (both are printed for part 1). A
Raspberry Pi 4 is roughly 5 times slower. Target: under 2 s a move on a Pi 4 at the default
strength, so under about 0.35 s here.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.sages.board import Side, Square  # noqa: E402
from companion.games.sages.engine import Sages  # noqa: E402
from companion.games.sages.moves import Move, legal_moves, scored  # noqa: E402
from companion.games.sages.opponent import LEVELS, Level, choose  # noqa: E402
from companion.games.sages.state import (  # noqa: E402
    DEFAULT_STRENGTH,
    MoveSage,
    SagesState,
)

MOVE_CAP = 2000
PI_FACTOR = 5


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f}"


def action(side: Side, move: Move) -> MoveSage:
    fool_to = None if move.fool_to is None else Square(move.fool_to)
    return MoveSage(side.seat, Square(move.frm), Square(move.to), fool_to)


def against_random(match: int) -> tuple[bool, int, list[float], list[float]]:
    """One match: whether the companion won, the moves played, its CPU and wall seconds."""
    game, rng = Sages(), random.Random(match)
    companion = Side.RED if match % 2 == 0 else Side.BLUE
    state = game.new({}, match)
    cpu: list[float] = []
    wall: list[float] = []
    moves = 0
    while state.outcome is None and moves < MOVE_CAP:
        if state.to_move is companion:
            started, clock = time.process_time(), time.perf_counter()
            move = choose(state.position, companion, DEFAULT_STRENGTH)
            cpu.append(time.process_time() - started)
            wall.append(time.perf_counter() - clock)
            assert move is not None
            state, _ = game.apply(state, action(companion, move))
        else:
            choice = rng.choice(list(game.legal_actions(state, state.to_move.seat)))
            state, _ = game.apply(state, choice)
        moves += 1
    won = state.outcome is not None and state.outcome.winner == companion.value
    return won, moves, cpu, wall


def opening(number: int) -> SagesState:
    """A match to 3 points from its own opening: 6 random plies (no goal), which every round
    starts from."""
    game, rng = Sages(), random.Random(number)
    state = game.new({"target": 3}, number)
    for _ in range(6):
        side = state.to_move
        quiet = [m for m in legal_moves(state.position, side) if not scored(m, side)]
        state, _ = game.apply(state, action(side, rng.choice(quiet)))
    return dataclasses.replace(state, start=state.position, moves=0)


def busy_positions(games: int) -> list[SagesState]:
    """The positions of ``games`` matches of the default strength against itself (at most
    200 moves a round)."""
    game, seen = Sages(), []
    for number in range(games):
        state = opening(number)
        while state.outcome is None and state.moves < 200:
            seen.append(state)
            side = state.to_move
            move = choose(state.position, side, DEFAULT_STRENGTH)
            assert move is not None
            state, _ = game.apply(state, action(side, move))
    return seen


def ladder(strong: int, matches: int) -> tuple[int, int, int, int]:
    """``strong`` against ``strong - 1``, each Red in half the matches, 300 moves at most:
    wins and points of each."""
    game = Sages()
    wins, points = [0, 0], [0, 0]
    for number in range(matches):
        state = opening(number)
        sides = {Side.RED: strong, Side.BLUE: strong - 1}
        if number % 2:
            sides = {Side.RED: strong - 1, Side.BLUE: strong}
        for _ in range(300):
            if state.outcome is not None:
                break
            side = state.to_move
            move = choose(state.position, side, sides[side])
            assert move is not None
            state, _ = game.apply(state, action(side, move))
        for side, strength in sides.items():
            points[strength != strong] += state.points(side)
            if state.outcome is not None and state.outcome.winner == side.value:
                wins[strength != strong] += 1
    return wins[0], wins[1], points[0], points[1]


def described(level: Level) -> str:
    parts = [f"{level.depth} ply" if level.depth == 1 else f"{level.depth} plies"]
    if level.root_width:
        parts.append(f"best {level.root_width} root moves searched on")
    if level.width:
        parts.append(f"{level.width} at inner nodes")
    if not level.resolve:
        parts.append("threats not resolved")
    return ", ".join(parts)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.01 else f"{seconds * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description="The Les 7 Sages opponent: wins and speed.")
    parser.add_argument("--matches", type=int, default=100, help="matches against random")
    parser.add_argument("--games", type=int, default=12, help="self-play matches for timing")
    parser.add_argument("--ladder", type=int, default=0, help="matches between strengths")
    args = parser.parse_args()
    print(machine())
    print()

    results = [against_random(match) for match in range(args.matches)]
    wins = sum(won for won, *_ in results)
    lengths = [moves for _, moves, *_ in results]
    cpu = [t for *_, times, _ in results for t in times]
    wall = [t for *_, times in results for t in times]
    print(f"Strength {DEFAULT_STRENGTH} against a random mover, matches to 5 points:")
    print()
    print(
        "| matches | won | moves per match (median, max) | time per move: mean | median "
        "| max | max on a Pi 4 (×5) |"
    )
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {args.matches} | {wins} | {statistics.median(lengths):.0f}, {max(lengths)} "
        f"| {ms(statistics.mean(cpu))} | {ms(statistics.median(cpu))} | {ms(max(cpu))} "
        f"| {ms(max(cpu) * PI_FACTOR)} |"
    )
    print()
    print(
        f"{len(cpu)} companion moves; wall clock: median {ms(statistics.median(wall))}, "
        f"max {ms(max(wall))}."
    )
    print()

    positions = busy_positions(args.games)
    print(f"Time per move at each strength, {len(positions)} positions of {args.games} matches")
    print(f"of strength {DEFAULT_STRENGTH} against itself (CPU time):")
    print()
    print("| strength | search | median | p95 | max | max on a Pi 4 (×5) |")
    print("|---|---|---|---|---|---|")
    for strength, level in sorted(LEVELS.items()):
        times = []
        for state in positions:
            started = time.process_time()
            choose(state.position, state.to_move, strength)
            times.append(time.process_time() - started)
        ordered = sorted(times)
        print(
            f"| {strength} | {described(level)} | {ms(statistics.median(ordered))} "
            f"| {ms(ordered[int(0.95 * (len(ordered) - 1))])} | {ms(ordered[-1])} "
            f"| {ms(ordered[-1] * PI_FACTOR)} |"
        )

    if args.ladder:
        print()
        print(f"Each strength against the one below, {args.ladder} matches to 3 points:")
        print()
        print("| match | wins | points |")
        print("|---|---|---|")
        for strong in sorted(LEVELS)[1:]:
            won, lost, scored_for, scored_against = ladder(strong, args.ladder)
            print(
                f"| {strong} against {strong - 1} | {won} to {lost} "
                f"| {scored_for} to {scored_against} |"
            )


if __name__ == "__main__":
    main()
