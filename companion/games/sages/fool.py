"""Chasing the fool (RULES.md §5): where a chased fool may end, and by which path.

A sage on a line with the fool moves onto its square; the fool travels on in the same direction
and must meet a sage (of either colour, in the kingdom or beyond its border) that reflects it:
90° to either side or straight back. After that first reflection the fool may stop on any square
of its path (the square beside the reflecting sage included), and each further reflection is the
chasing player's choice. The fool never enters the barbarian lands; it enters a cité, which ends
its journey. With no sage met, the chase is legal only if the line runs straight into the
opponent's cité. The fool may never be put into the chaser's own cité.

``flights`` explores every choice once: a state is (square, direction, reflected yet, whose sage
sent it last); a path repeating a state would loop, so each is visited once, by the shortest
path. Ending squares are distinct outcomes; the path shown for each is the shortest one (for a
goal, the one worth most).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from dataclasses import dataclass

from companion.games.sages.board import Direction, Side, cite, in_kingdom, reflections, step

GOAL = -1  # the end of a flight into the opponent's cité: the square itself is in ``path``


@dataclass(frozen=True)
class Flight:
    """One way the fool may go: the squares it crosses from where it was chased (first) to where
    it stops (last; a cité square for a goal), the sages that reflected it, in order, and for a
    goal the side of the decisive sage (the last reflector, or the chaser on a direct entry)."""

    path: tuple[int, ...]
    reflectors: tuple[int, ...]
    decisive: Side | None = None

    @property
    def end(self) -> int:
        return self.path[-1]

    @property
    def goal(self) -> bool:
        return self.decisive is not None


def points(flight: Flight, mover: Side) -> int:
    """A goal is worth 2 if the decisive sage is the mover's own, 1 if it is the opponent's."""
    if flight.decisive is None:
        return 0
    return 2 if flight.decisive is mover else 1


_State = tuple[int, Direction, bool, Side]


def flights(
    red: Collection[int], blue: Collection[int], start: int, direction: Direction, mover: Side
) -> dict[int, Flight]:
    """Every outcome of chasing the fool off ``start`` in ``direction``, by ending square.

    ``red`` and ``blue`` are the sages *after* the chaser moved (it stands on ``start``). A goal
    is keyed by its cité square. Empty: the chase is illegal (no sage met, no straight entry).
    """
    own, target = cite(mover), cite(mover.other)
    first: _State = (start, direction, False, mover)
    parent: dict[_State, tuple[_State, int | None] | None] = {first: None}
    queue = deque([first])
    ends: dict[int, tuple[_State, int | None]] = {}  # ending square -> (state, goal square)
    while queue:
        state = queue.popleft()
        square, heading, reflected, sender = state
        nxt = step(square, heading)
        if nxt is None:
            continue
        if nxt in red or nxt in blue:
            owner = Side.RED if nxt in red else Side.BLUE
            turns = [(square, turn, True, owner) for turn in reflections(heading)]
            for turned in turns:
                _visit(parent, queue, turned, state, nxt)
            if square != start:  # it may stop beside the sage that reflected it
                ends.setdefault(square, (turns[0], None))
            continue
        if nxt in target:
            previous = ends.get(nxt)
            if previous is None or (sender is mover and previous[0][3] is not mover):
                ends[nxt] = (state, nxt)
            continue
        if nxt in own or not in_kingdom(nxt):
            continue
        moved: _State = (nxt, heading, reflected, sender)
        if _visit(parent, queue, moved, state, None) and reflected:
            ends.setdefault(nxt, (moved, None))
    return {end: _flight(parent, state, goal) for end, (state, goal) in ends.items()}


def _visit(
    parent: dict[_State, tuple[_State, int | None] | None],
    queue: deque[_State],
    state: _State,
    came_from: _State,
    reflector: int | None,
) -> bool:
    if state in parent:
        return False
    parent[state] = (came_from, reflector)
    queue.append(state)
    return True


def _flight(
    parent: dict[_State, tuple[_State, int | None] | None], last: _State, goal: int | None
) -> Flight:
    squares: list[int] = [] if goal is None else [goal]
    reflectors: list[int] = []
    state: _State | None = last
    while state is not None:
        if not squares or squares[-1] != state[0]:
            squares.append(state[0])
        link = parent[state]
        if link is None:
            break
        state, reflector = link
        if reflector is not None:
            reflectors.append(reflector)
    decisive = last[3] if goal is not None else None
    return Flight(tuple(reversed(squares)), tuple(reversed(reflectors)), decisive)
