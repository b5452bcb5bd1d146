"""The companion as an opponent in Les 7 Sages: it picks a move for its side.

Pure and deterministic: the same position and strength give the same move. Ties are broken by
a hash of the position and the move (``zlib.crc32``, never Python's salted ``hash``), and the
effort is bounded by depth and by how many moves are searched, never by a clock.

**The search.** A goal on the board is always taken, 2 points before 1. Otherwise a negamax
alpha-beta search runs on a copy of the board (a list of squares and a bit mask of the sages),
changed and restored in place:

- every position reached is first *probed* for each side: could it send the fool into the
  other cité with one chase, for how many points? The side to move takes such a goal, so a
  position where it has one ends the line there (worth the points, more the sooner);
- a position where the side to move cannot score but the other side could is *resolved*: only
  moves that change a square one goal path reads (or that chase the fool) can parry it, and
  those are tried until one does. A threat nothing parries counts as the goal it will be;
- one ply from the leaves every move is tried (until one reaches the bound of alpha-beta);
  the root and deeper nodes order their moves by that one-ply value and search only the best
  few further (``Level``: strength 3 looks 3 plies deep, 8 moves at the root, 4 further in).

The search keeps its own copy of the move rules on that board, because the engine's immutable
positions are far too slow to make and unmake thousands of times per move;
``tests/test_sages_opponent.py`` checks it finds exactly the engine's moves and goals.

**Read sets.** A probe records, for each of the eight chase directions, every square whose
occupant it read: the line from the fool to the first piece, the chaser's three-in-a-row
check, each segment the fool may fly. A move that neither leaves nor lands on such a square
cannot change that direction's answer, so a child position keeps its parent's probes except
for the directions the move touches (a chase, which moves the fool, is probed afresh). That is
what makes trying every move one ply from the leaves affordable.

**The evaluation** of a position where the side to move cannot score, for that side: the other
side's goal threats (less once it is known they can be parried), who controls the fool (own
sages that may chase it, minus theirs), how near the fool stands to each cité, and a defender
in one's own cité. See ``_Search.static``.
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from companion.game import Action
from companion.games.sages import board
from companion.games.sages.board import ALL_DIRECTIONS, SIZE, Side, Square, cite
from companion.games.sages.engine import placements
from companion.games.sages.moves import Move, Position, legal_moves, scored
from companion.games.sages.state import (
    DEFAULT_STRENGTH,
    STANDARD_BLUE,
    STANDARD_RED,
    STRENGTHS,
    MoveSage,
    Phase,
    Place,
    Placement,
    SagesState,
)


def companion_move(state: SagesState) -> Action | None:
    """The companion's action if it plays the side to move now, else None."""
    side = state.options.computer
    if side is None or state.phase is Phase.OVER or state.to_move is not side:
        return None
    if state.phase is Phase.PLACE:
        halves = state.options.placement is Placement.HALVES
        return Place(side.seat, Square(place(state.position, side, halves)))
    move = choose(state.position, side, state.options.strength)
    if move is None:
        return None
    fool_to = None if move.fool_to is None else Square(move.fool_to)
    return MoveSage(side.seat, Square(move.frm), Square(move.to), fool_to)


def place(position: Position, side: Side, halves: bool = False) -> int:
    """Free placement: the project's standard squares while they are free, else the square
    allowed nearest the centre column on the companion's own half (its cité included)."""
    allowed = placements(position, side, halves)
    standard = STANDARD_RED if side is Side.RED else STANDARD_BLUE
    for name in standard:
        if board.parse(name) in allowed:
            return board.parse(name)
    own = board.half(side) | cite(side)
    return min(allowed, key=lambda s: (s not in own, abs(board.column(s) - 7), s))


@dataclass(frozen=True)
class Level:
    """How hard the companion looks: plies searched, how many of the root's moves and of an
    inner node's moves are searched deeper than one ply, and whether threats are resolved."""

    depth: int
    root_width: int = 0
    width: int = 0
    resolve: bool = True


LEVELS = {
    1: Level(depth=1, resolve=False),
    2: Level(depth=2, root_width=8),
    3: Level(depth=3, root_width=8, width=4),
    4: Level(depth=4, root_width=8, width=4),
}


def choose(position: Position, side: Side, strength: int = DEFAULT_STRENGTH) -> Move | None:
    """The companion's move for ``side``, or None when it has none (it passes)."""
    moves = legal_moves(position, side)
    if not moves:
        return None
    seed = _seed(position, side)
    goals = [m for m in moves if scored(m, side)]
    if goals:
        return max(goals, key=lambda m: (scored(m, side), _tiebreak(seed, _key(m))))
    level = LEVELS[min(max(strength, STRENGTHS[0]), STRENGTHS[-1])]
    best = _Search(position, side, seed, level).root([_key(m) for m in moves])
    return next(m for m in moves if _key(m) == best)


def _seed(position: Position, side: Side) -> int:
    text = f"{sorted(position.red)}|{sorted(position.blue)}|{position.fool}|{side.value}"
    return zlib.crc32(text.encode())


def _tiebreak(seed: int, key: tuple[int, int, int]) -> int:
    return zlib.crc32(repr(key).encode(), seed)


def _key(move: Move) -> tuple[int, int, int]:
    """A move inside the search: (from, to, where the fool ends or -1)."""
    return (move.frm, move.to, -1 if move.fool_to is None else move.fool_to)


# -- the board inside the search: squares 0..224, bit masks of squares -----------------------

_EMPTY, _RED, _BLUE = 0, 1, 2
_AREA = SIZE * SIZE
_WIN = 1000  # a point
_DIRS = ALL_DIRECTIONS
_BACK = [_DIRS.index((-dc, -dr)) for dc, dr in _DIRS]
_DELTA = [dr * SIZE + dc for dc, dr in _DIRS]
_UP = [delta > 0 for delta in _DELTA]  # along a line, square numbers grow or shrink
_BIT = [1 << sq for sq in range(_AREA)]
_RAY = [[board.ray(sq, d) for d in _DIRS] for sq in range(_AREA)]
_RAY_MASK = [sum(_BIT[s] for s in _RAY[sq][d]) for sq in range(_AREA) for d in range(8)]
_REFLECT = [tuple(_DIRS.index(t) for t in board.reflections(d)) for d in _DIRS]
_KINGDOM = [board.in_kingdom(sq) for sq in range(_AREA)]
_CITE = [
    _RED if sq in cite(Side.RED) else _BLUE if sq in cite(Side.BLUE) else _EMPTY
    for sq in range(_AREA)
]
_CITES = {_RED: sorted(cite(Side.RED)), _BLUE: sorted(cite(Side.BLUE))}
_SAGE_DIRS = {
    code: [_DIRS.index(d) for d in board.sage_directions(side)]
    for code, side in ((_RED, Side.RED), (_BLUE, Side.BLUE))
}
_ROW_COLUMN = [
    (_DIRS.index((1, 0)), _DIRS.index((-1, 0))),
    (_DIRS.index((0, 1)), _DIRS.index((0, -1))),
]


def _flight_line(square: int, d: int) -> tuple[int, int]:
    """A fool flying off ``square`` (in the kingdom) in direction ``d`` crosses kingdom squares
    and then meets the ring (barbarian lands or a cité): the mask of those squares, ring square
    included, and the ring square."""
    squares = []
    for nxt in _RAY[square][d]:
        squares.append(nxt)
        if not _KINGDOM[nxt]:
            return sum(_BIT[s] for s in squares), nxt
    return 0, -1  # ``square`` is not in the kingdom: no fool flies from there


_FLIGHT = [_flight_line(sq, d) for sq in range(_AREA) for d in range(8)]  # [sq * 8 + d]
_LINE = [line for line, _ in _FLIGHT]
_RING = [ring for _, ring in _FLIGHT]
_TURNS = [tuple(turn * 2 for turn in turns) for turns in _REFLECT]  # in a state: (sq*8+d)*2+own


def _distance(square: int, code: int) -> int:
    """Moves of a king from ``square`` to the nearest square of ``code``'s cité."""
    home = 0 if code == _RED else SIZE - 1
    return max(abs(board.row(square) - home), max(0, abs(board.column(square) - 7) - 2))


_FOOL_DISTANCE = {code: [_distance(sq, code) for sq in range(_AREA)] for code in (_RED, _BLUE)}


def _code(side: Side) -> int:
    return _RED if side is Side.RED else _BLUE


def _nearest(hits: int, d: int) -> int:
    """The first square of the mask ``hits`` along a line in direction ``d``."""
    return (hits & -hits).bit_length() - 1 if _UP[d] else hits.bit_length() - 1


def _upto(line: int, square: int, d: int) -> int:
    """The squares of the line mask ``line`` (direction ``d``) up to ``square``, included."""
    return line & ((_BIT[square] << 1) - 1) if _UP[d] else line & -_BIT[square]


def _squares(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _three(cells: list[int], square: int, code: int) -> tuple[bool, int]:
    """Whether ``code``'s sage on ``square`` stands in a row or column of three or more, and
    the squares looked at."""
    read = 0
    for a, b in _ROW_COLUMN:
        count = 1
        for d in (a, b):
            for nxt in _RAY[square][d]:
                read |= _BIT[nxt]
                if cells[nxt] != code:
                    break
                count += 1
        if count >= 3:
            return True, read
    return False, read


def _chaser(cells: list[int], occupied: int, fool: int, d: int) -> tuple[int, int]:
    """The first sage behind the fool for a chase in direction ``d`` (-1: none), and the
    squares looked at."""
    back = _BACK[d]
    line = _RAY_MASK[fool * 8 + back]
    hits = occupied & line
    if not hits:
        return -1, line
    frm = _nearest(hits, back)
    return frm, _upto(line, frm, back)


class Probe(NamedTuple):
    """What a side could do with the fool if it were to move: the most one chase would score
    (0, 1 or 2), how many of its sages could chase into a goal, how many could chase at all,
    and the mask of the squares whose occupant decided it; ``lines`` holds the same for each
    of the eight directions of a chase, as (points, or -1 if no sage may chase that way; the
    squares read)."""

    points: int
    scorers: int
    chasers: int
    read: int
    lines: tuple[tuple[int, int], ...]


def _probe(cells: list[int], occupied: int, fool: int, code: int) -> Probe:
    return _summary(tuple(_line(cells, occupied, fool, d, code) for d in range(8)))


def _reprobe(
    cells: list[int], occupied: int, fool: int, code: int, old: Probe, touched: int
) -> Probe:
    """``old`` after a sage move that changed the squares ``touched`` (the fool did not
    move): only the directions whose reads were touched are looked at again."""
    if not old.read & touched:
        return old
    return _summary(
        tuple(
            _line(cells, occupied, fool, d, code) if line[1] & touched else line
            for d, line in enumerate(old.lines)
        )
    )


def _summary(lines: tuple[tuple[int, int], ...]) -> Probe:
    points = scorers = chasers = read = 0
    for outcome, looked in lines:
        read |= looked
        if outcome >= 0:
            chasers += 1
            if outcome:
                scorers += 1
                points = max(points, outcome)
    return Probe(points, scorers, chasers, read, lines)


def _line(cells: list[int], occupied: int, fool: int, d: int, code: int) -> tuple[int, int]:
    """A chase by ``code`` in direction ``d``: the most it scores (-1: no sage of ``code`` may
    chase that way), and the squares read to know it."""
    frm, read = _chaser(cells, occupied, fool, d)
    if frm < 0 or cells[frm] != code:
        return -1, read
    cells[frm], cells[fool] = _EMPTY, code
    three, looked = _three(cells, fool, code)
    read |= looked
    outcome = -1
    if not three:
        outcome, looked = _goal(cells, occupied ^ _BIT[frm] ^ _BIT[fool], fool, d, code)
        read |= looked
    cells[frm], cells[fool] = code, _EMPTY
    return outcome, read


def _goal(cells: list[int], occupied: int, start: int, d: int, code: int) -> tuple[int, int]:
    """The most a chase off ``start`` in direction ``d`` scores for ``code`` (``occupied``:
    the sages once the chaser stands on ``start``), and the squares read to know it.

    ``fool.flights`` reduced to goals, one straight segment at a time: a state is where the
    fool turns, its new heading, and whether the sage that sent it is the chaser's (whether it
    was reflected yet changes where it may stop, not where it may go)."""
    target = 3 - code
    read, best = 0, 0
    first = (start * 8 + d) * 2 + 1
    seen = {first}
    stack = [first]
    while stack:
        state = stack.pop()
        index = state >> 1
        line = _LINE[index]
        hits = occupied & line
        if hits:
            if _UP[index & 7]:
                low = hits & -hits
                hit = low.bit_length() - 1
                read |= line & ((low << 1) - 1)
            else:
                hit = hits.bit_length() - 1
                read |= line & -_BIT[hit]
            base = (hit - _DELTA[index & 7]) * 16 + (cells[hit] == code)
            for turn in _TURNS[index & 7]:
                state = base + turn
                if state not in seen:
                    seen.add(state)
                    stack.append(state)
            continue
        read |= line
        if _CITE[_RING[index]] == target:
            if state & 1:
                return 2, read
            best = 1
    return best, read


def _goal_squares(cells: list[int], occupied: int, fool: int, code: int) -> int:
    """The squares one of ``code``'s best goals reads: the chaser's line to the fool, its
    three-in-a-row check, and the segments of one shortest flight into the cité. A move that
    changes none of them leaves that goal on the board."""
    best, squares = 0, 0
    for d in range(8):
        frm, line = _chaser(cells, occupied, fool, d)
        if frm < 0 or cells[frm] != code:
            continue
        cells[frm], cells[fool] = _EMPTY, code
        three, looked = _three(cells, fool, code)
        if not three:
            found = _goal_path(cells, occupied ^ _BIT[frm] ^ _BIT[fool], fool, d, code)
            if found[0] > best:
                best, squares = found[0], line | looked | found[1]
        cells[frm], cells[fool] = code, _EMPTY
        if best == 2:
            break
    return squares


def _goal_path(cells: list[int], occupied: int, start: int, d: int, code: int) -> tuple[int, int]:
    """Like ``_goal``, breadth first, with the squares of the best goal's flight alone."""
    target = 3 - code
    first = (start, d, 1)
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], int] | None] = {first: None}
    queue = deque([first])
    found: tuple[int, tuple[int, int, int], int] | None = None
    while queue:
        state = queue.popleft()
        square, heading, own = state
        line, ring = _FLIGHT[square * 8 + heading]
        hits = occupied & line
        if hits:
            hit = _nearest(hits, heading)
            mine = 1 if cells[hit] == code else 0
            for turn in _REFLECT[heading]:
                turned = (hit - _DELTA[heading], turn, mine)
                if turned not in parent:
                    parent[turned] = (state, _upto(line, hit, heading))
                    queue.append(turned)
        elif _CITE[ring] == target and (found is None or (own and found[0] == 1)):
            found = (2 if own else 1, state, line)
            if own:
                break
    if found is None:
        return 0, 0
    points, last, squares = found
    link = parent[last]
    while link is not None:
        last, segment = link
        squares |= segment
        link = parent[last]
    return points, squares


def _ends(cells: list[int], occupied: int, start: int, d: int) -> list[int]:
    """Where a chase off ``start`` in direction ``d`` may leave the fool, goals left out (the
    search only asks a side that cannot score): ``fool.flights``, one segment at a time."""
    seen = {(start * 8 + d) * 2}
    stack = [(start, d, 0)]
    ends = 0
    while stack:
        square, heading, reflected = stack.pop()
        line, ring = _FLIGHT[square * 8 + heading]
        hits = occupied & line
        if not hits:
            if reflected:
                ends |= line ^ _BIT[ring]
            continue
        hit = _nearest(hits, heading)
        at = hit - _DELTA[heading]
        if reflected:
            ends |= _upto(line, hit, heading) ^ _BIT[hit]
        if at != start:
            ends |= _BIT[at]
        for turn in _REFLECT[heading]:
            state = (at * 8 + turn) * 2 + 1
            if state not in seen:
                seen.add(state)
                stack.append((at, turn, 1))
    return _squares(ends)


Key = tuple[int, int, int]


class _Search:
    """One choice: the board as a list of 225 codes and a mask of the sages, changed and
    restored in place."""

    def __init__(self, position: Position, side: Side, seed: int, level: Level) -> None:
        self.cells = [_EMPTY] * _AREA
        for square in position.red:
            self.cells[square] = _RED
        for square in position.blue:
            self.cells[square] = _BLUE
        self.occupied = sum(_BIT[s] for s in position.red | position.blue)
        self.fool = position.fool
        self.code = _code(side)
        self.seed = seed
        self.level = level

    # -- moves ---------------------------------------------------------------------------------

    def moves(self, code: int) -> list[Key]:
        """Every legal move of ``code`` (``moves.legal_moves``) when it cannot score."""
        out: list[Key] = []
        for frm in range(_AREA):
            if self.cells[frm] == code:
                out.extend(self.sage_moves(code, frm))
        return out + self.chases(code)

    def sage_moves(self, code: int, frm: int) -> list[Key]:
        cells, fool = self.cells, self.fool
        out: list[Key] = []
        cells[frm] = _EMPTY
        for d in _SAGE_DIRS[code]:
            for to in _RAY[frm][d]:
                if cells[to] or to == fool:
                    break
                if self.may_stop(code, to):
                    out.append((frm, to, -1))
        cells[frm] = code
        return out

    def may_stop(self, code: int, to: int) -> bool:
        """Whether ``code``'s sage, lifted off the board, may stop on the empty square ``to``."""
        cells = self.cells
        where = _CITE[to]
        if where and (where != code or any(cells[sq] == code for sq in _CITES[code])):
            return False
        cells[to] = code
        three = _three(cells, to, code)[0]
        cells[to] = _EMPTY
        return not three

    def chases(self, code: int) -> list[Key]:
        cells, fool = self.cells, self.fool
        out: list[Key] = []
        for d in range(8):
            frm = _chaser(cells, self.occupied, fool, d)[0]
            if frm < 0 or cells[frm] != code:
                continue
            cells[frm], cells[fool] = _EMPTY, code
            if not _three(cells, fool, code)[0]:
                after = self.occupied ^ _BIT[frm] ^ _BIT[fool]
                out.extend((frm, fool, end) for end in _ends(cells, after, fool, d))
            cells[frm], cells[fool] = code, _EMPTY
        return out

    def moves_touching(self, code: int, squares: int) -> Iterator[Key]:
        """The legal moves of ``code`` that land on or leave one of ``squares`` (a mask), then
        all its chases: the only moves that change what those squares hold, or the fool.
        Lazily, the likeliest parries (a sage put in the way) first."""
        cells, fool = self.cells, self.fool
        movers = [sq for sq in _squares(squares) if cells[sq] == code]
        blockers = self.occupied | _BIT[fool]
        for target in _squares(squares & ~blockers):
            for d in _SAGE_DIRS[code]:
                back = _BACK[d]
                hits = blockers & _RAY_MASK[target * 8 + back]
                if not hits:
                    continue
                frm = _nearest(hits, back)
                if cells[frm] == code and frm not in movers:
                    cells[frm] = _EMPTY
                    legal = self.may_stop(code, target)
                    cells[frm] = code
                    if legal:
                        yield (frm, target, -1)
        for frm in movers:
            yield from self.sage_moves(code, frm)
        yield from self.chases(code)

    def play(self, code: int, move: Key) -> int:
        """Make ``move``; returns where the fool was, for ``undo``."""
        frm, to, end = move
        fool = self.fool
        self.cells[frm], self.cells[to] = _EMPTY, code
        self.occupied ^= _BIT[frm] | _BIT[to]
        if end >= 0:
            self.fool = end
        return fool

    def undo(self, code: int, move: Key, fool: int) -> None:
        frm, to, _ = move
        self.cells[frm], self.cells[to] = code, _EMPTY
        self.occupied ^= _BIT[frm] | _BIT[to]
        self.fool = fool

    def probe(self, code: int) -> Probe:
        return _probe(self.cells, self.occupied, self.fool, code)

    def reprobe(self, code: int, old: Probe, touched: int) -> Probe:
        return _reprobe(self.cells, self.occupied, self.fool, code, old, touched)

    # -- values --------------------------------------------------------------------------------

    def static(self, code: int, mine: Probe, theirs: Probe, parried: bool = False) -> int:
        """A position where ``code`` is to move and cannot score, for ``code``: ``mine`` and
        ``theirs`` are the probes of ``code`` and of the other side. A threat of the other
        side costs less once it is known that ``code`` can parry it."""
        other = 3 - code
        value = 0
        if theirs.points:
            weight = 40 if parried else 120 if theirs.scorers == 1 else 300
            value -= weight * theirs.points
        value += 60 * (mine.chasers - theirs.chasers)
        value += 6 * (_FOOL_DISTANCE[code][self.fool] - _FOOL_DISTANCE[other][self.fool])
        cells = self.cells
        value += 25 * (
            any(cells[sq] == code for sq in _CITES[code])
            - any(cells[sq] == other for sq in _CITES[other])
        )
        return value

    def children(
        self, code: int, depth: int, mine: Probe, theirs: Probe, moves: Iterable[Key]
    ) -> list[tuple[int, Key, Probe, Probe]]:
        """Each move of ``code`` with its one-ply value and the probes after it (the mover's
        and the other side's), best first."""
        out = [(*self.one_ply(code, depth, mine, theirs, move), move) for move in moves]
        out.sort(key=lambda c: (-c[0], _tiebreak(self.seed, c[3])))
        return [(value, move, threat, answer) for value, threat, answer, move in out]

    def one_ply(
        self, code: int, depth: int, mine: Probe, theirs: Probe, move: Key
    ) -> tuple[int, Probe, Probe]:
        """The value of ``move`` for ``code`` one ply deep, and the probes after it (the
        mover's and the other side's). A goal conceded costs its points, and a little more the
        sooner it comes (``depth``: the plies left to search)."""
        other = 3 - code
        frm, to, end = move
        touched = _BIT[frm] | _BIT[to]
        fool = self.play(code, move)
        chase = end >= 0
        answer = self.probe(other) if chase else self.reprobe(other, theirs, touched)
        if answer.points:
            value = -_WIN * answer.points - depth
            threat = mine
        else:
            threat = self.probe(code) if chase else self.reprobe(code, mine, touched)
            value = -self.static(other, answer, threat)
            if threat.points and self.level.resolve:
                kept = self.parry(other, threat)
                if kept:
                    value = _WIN * kept + depth - 2
                else:
                    value = -self.static(other, answer, threat, parried=True)
        self.undo(code, move, fool)
        return value, threat, answer

    def frontier(self, code: int, alpha: int, beta: int, mine: Probe, theirs: Probe) -> int:
        """A node one ply from the leaves: the best one-ply value of ``code``'s moves, or the
        first found at ``beta`` or more (the other side will not allow this node). The moves
        that touch no probe (they all keep the position's threats) are cheap: first."""
        moves = self.moves(code)
        if not moves:
            return self.static(code, mine, theirs)  # it passes: near enough
        read = mine.read | theirs.read
        quiet = [m for m in moves if m[2] < 0 and not read & (_BIT[m[0]] | _BIT[m[1]])]
        busy = [m for m in moves if m[2] >= 0 or read & (_BIT[m[0]] | _BIT[m[1]])]
        best = -10 * _WIN
        for move in quiet + busy:
            value = self.one_ply(code, 1, mine, theirs, move)[0]
            if value > best:
                best = value
                if best >= beta:
                    break
        return best

    def parry(self, code: int, threat: Probe) -> int:
        """``code`` to move cannot score and faces ``threat`` (the other side's probe): the
        fewest points it can hold the other side to with one move (0: parried). Only moves
        that change a square one of the goals reads, or that chase the fool, can parry it:
        those are tried, sage moves first."""
        other = 3 - code
        squares = _goal_squares(self.cells, self.occupied, self.fool, other)
        fewest = 2
        for move in self.moves_touching(code, squares):
            frm, to, end = move
            fool = self.play(code, move)
            if end >= 0:
                left = self.probe(other).points
            else:
                left = self.reprobe(other, threat, _BIT[frm] | _BIT[to]).points
            self.undo(code, move, fool)
            if left < fewest:
                fewest = left
                if not left:
                    break
        return fewest

    def node(self, code: int, depth: int, alpha: int, beta: int, mine: Probe, theirs: Probe) -> int:
        """Negamax value for ``code`` to move, which cannot score (``mine.points`` is 0)."""
        if depth <= 1:
            return self.frontier(code, alpha, beta, mine, theirs)
        children = self.children(code, depth, mine, theirs, self.moves(code))
        if not children:
            return self.static(code, mine, theirs)  # it passes: near enough
        best = -10 * _WIN
        for one_ply, move, threat, answer in children[: self.level.width]:
            value = self.after(code, move, depth, alpha, beta, one_ply, threat, answer)
            if value > best:
                best = value
                alpha = max(alpha, value)
                if alpha >= beta:
                    break
        return best

    def after(
        self,
        code: int,
        move: Key,
        depth: int,
        alpha: int,
        beta: int,
        one_ply: int,
        threat: Probe,
        answer: Probe,
    ) -> int:
        """The value for ``code`` of ``move`` searched ``depth`` plies deep."""
        if answer.points:
            return one_ply
        fool = self.play(code, move)
        value = -self.node(3 - code, depth - 1, -beta, -alpha, answer, threat)
        self.undo(code, move, fool)
        return value

    def root(self, moves: list[Key]) -> Key:
        code, level = self.code, self.level
        children = self.children(code, level.depth, self.probe(code), self.probe(3 - code), moves)
        if level.depth <= 1:
            return children[0][1]
        best, chosen = -10 * _WIN - 1, children[0][1]
        alpha, beta = -10 * _WIN - 1, 10 * _WIN + 1
        for one_ply, move, threat, answer in children[: level.root_width]:
            value = self.after(code, move, level.depth, alpha, beta, one_ply, threat, answer)
            if value > best:
                best, chosen = value, move
                alpha = max(alpha, value)
        return chosen
