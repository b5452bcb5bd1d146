"""Les 7 Sages, RULES.md §5: two players, seven sages each, one fool, a match to 5 points.

Red is seat 0, Blue seat 1; Red starts the match and the loser of a round starts the next. A
round ends when the fool enters a cité (the mover's opponent's: the mover scores 2 if the
decisive sage was their own, 1 if it was the opponent's); the pieces go back to their starting
squares. The whole game is on the table, so every view is public.

Where the rules are silent, this engine decides (docs/SAGES.md says the same for the table):

- *Board*: the cités are the five middle squares of each home edge row (they break the barbarian
  ring); the fool may enter a cité only by ending its flight there.
- *Three side by side* means sharing sides: three of one player's sages in a row or a column.
  Diagonal neighbours touch only at a corner and do not count.
- *A chase* is named by where the fool ends; when several flights end there the engine keeps the
  one worth most to the mover (a goal through their own sage), then the shortest.
- *No legal move*: the player passes (``no_move``); if neither player can move the round is
  replayed from the start with no point, by the same first player.
- *The hourglass* (option, seconds per move) is run by the moderator's clock: when it runs out it
  sends ``TimeUp`` and the turn passes to the other player. The host may pause it and resume it
  (``companion.games.sand``, as game night's turn timer); a move made meanwhile ends the pause.
- *Free placement* (« Chaque joueur dispose ses pions sur le jeu : un sage dans la cité, les six
  autres à travers le royaume »): the players lay their sages in turn, Red first, each on an
  empty square of the kingdom (anywhere in it, the opponent's side included: the seed says
  "à travers le royaume") or of their own cité, one sage there and only one (the last sage goes
  there if none does yet); never three side by side. Option ``placement`` "halves" keeps each
  side in its own half of the kingdom (rows 2-7 for Red, 9-14 for Blue) instead. Those squares
  are the starting squares of every round.
- *A match that loops*: the seed gives it no end. Two options, both off by default.
  ``draw_by_agreement``: the host enters ``AgreeDraw`` (it belongs to no seat) when both
  players agree, and the match ends drawn. ``repetition``: when the same position comes a third
  time in a round with the same player to move (the positions are counted from the round's
  start, after every move, pass or time-up), "round" draws the round: no point, the pieces go
  back and the round is replayed by the player who started it, as when nobody can move;
  "match" ends the match drawn. A drawn match has ``Outcome("draw", Reason.DRAW_AGREED)`` or
  ``Outcome("draw", Reason.REPETITION)``: neither side won, the score stands as it was.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from companion.game import JSON, Action, Event, IllegalAction, Outcome
from companion.games.sages import board
from companion.games.sages.board import CENTRE, Side, Square, cite
from companion.games.sages.moves import (
    Move,
    Position,
    find,
    legal_moves,
    refusal,
    scored,
    three_side_by_side,
)
from companion.games.sages.state import (
    ACTIONS,
    DRAW,
    REPEATS_TO_DRAW,
    SAGES_PER_SIDE,
    AgreeDraw,
    LastMove,
    MoveSage,
    Options,
    Phase,
    Place,
    Placement,
    Reason,
    Repetition,
    SagesState,
    TimeUp,
    position_json,
    squares_json,
)
from companion.games.sand import PauseHourglass, ResumeHourglass, Sand
from companion.played import Played

Step = tuple[SagesState, list[Event]]


class Sages:
    title = "sages"
    actions: Mapping[str, type[Action]] = ACTIONS

    def new(self, options: Mapping[str, Any], seed: int) -> SagesState:
        """A new match. Nothing is random: ``seed`` is unused (the companion's own choices are
        seeded by the position, see ``opponent``)."""
        opts = Options.from_json(options)
        if opts.start is None:
            empty = Position(frozenset(), frozenset(), CENTRE)
            return SagesState(opts, Phase.PLACE, empty, None, Side.RED)
        return _round_start(SagesState(opts, Phase.PLAY, opts.start, opts.start, Side.RED))

    def options_json(self, state: SagesState) -> JSON:
        return state.options.to_json()

    def opening_events(self, state: SagesState) -> list[Event]:
        opts = state.options
        return [
            Event(
                "sages_set_up",
                {
                    "layout": opts.layout.value,
                    "target": opts.target,
                    "hourglass": opts.hourglass,
                    "computer": None if opts.computer is None else opts.computer.seat,
                    "first": Side.RED.seat,
                    "placement": opts.placement.value,
                    "draw_by_agreement": opts.draw_by_agreement,
                    "repetition": opts.repetition.value,
                },
            )
        ]

    def situation_events(self, state: SagesState) -> list[Event]:
        """What the table awaits now, said again after a restart or the host's undo: the
        placement so far, or the round and the score; whose move it is; the sand, if paused."""
        if state.phase is Phase.OVER:
            return []
        side = state.to_move
        mover = {"seat": side.seat, "side": side.value}
        if state.phase is Phase.PLACE:
            placed = len(state.position.red) + len(state.position.blue)
            events = [Event("placing", {**mover, "placed": placed, "total": 2 * SAGES_PER_SIDE})]
        else:
            standing = {"round": state.round, "target": state.options.target}
            events = [
                Event("match_standing", {**standing, "score": list(state.score)}),
                Event("to_move", mover),
            ]
        left = state.sand.left
        if state.sand.paused and left is not None:
            events.append(
                Event("hourglass_paused", {"seat": side.seat, "left": max(1, round(left))})
            )
        return events

    # -- what may be done -----------------------------------------------------------------------

    def legal_actions(self, state: SagesState, seat: int | None) -> Iterator[Action]:
        """What ``seat`` may do now; ``None``, the table as a whole: the agreed draw, when the
        match allows one."""
        if seat is None and may_agree_draw(state):
            yield AgreeDraw()
        if state.phase is Phase.OVER or seat != state.to_move.seat:
            return
        side = state.to_move
        if state.phase is Phase.PLACE:
            for square in sorted(placements(state.position, side, _halves(state))):
                yield Place(seat, Square(square))
            return
        for move in legal_moves(state.position, side):
            fool_to = None if move.fool_to is None else Square(move.fool_to)
            yield MoveSage(seat, Square(move.frm), Square(move.to), fool_to)
        if state.options.hourglass is not None:
            yield TimeUp(seat)

    def apply(self, state: SagesState, action: Action) -> Step:
        if state.phase is Phase.OVER:
            raise IllegalAction("game_over")
        match action:
            case PauseHourglass(left=left):
                sand, event = state.sand.pause(_timed_seconds(state), left, state.to_move.seat)
                return dataclasses.replace(state, sand=sand), [event]
            case ResumeHourglass():
                sand, event = state.sand.resume(_timed_seconds(state), state.to_move.seat)
                return dataclasses.replace(state, sand=sand), [event]
            case AgreeDraw():
                return self._agreed_draw(state)
        after, events = self._act(state, action)
        return dataclasses.replace(after, sand=Sand()), events  # each move has its whole sand

    def _act(self, state: SagesState, action: Action) -> Step:
        seat = getattr(action, "seat", None)
        if seat not in (0, 1):
            raise IllegalAction("sages_no_such_seat", seat=seat)
        if seat != state.to_move.seat:
            raise IllegalAction("sages_not_your_turn", seat=seat, turn=state.to_move.seat)
        match action:
            case Place(square=square):
                return self._place(state, square.index)
            case MoveSage(sage=sage, to=to, fool_to=fool_to):
                return self._move(state, sage.index, to.index, fool_to)
            case TimeUp():
                if state.options.hourglass is None:
                    raise IllegalAction("sages_no_hourglass")
                if state.phase is not Phase.PLAY:
                    raise IllegalAction("sages_placing_now")
                turn = state.to_move.other
                event = Event("time_up", {"seat": seat, "turn": turn.seat})
                return self._next_turn(dataclasses.replace(state, to_move=turn), [event])
        raise IllegalAction("unknown_action", kind=action.kind)

    def _agreed_draw(self, state: SagesState) -> Step:
        """The players agree to a draw (option ``draw_by_agreement``): the match ends drawn."""
        if not state.options.draw_by_agreement:
            raise IllegalAction("sages_no_draw_by_agreement")
        if state.phase is Phase.PLACE:
            raise IllegalAction("sages_placing_now")
        return self._drawn(state, Reason.DRAW_AGREED, [])

    def _drawn(self, state: SagesState, why: Reason, events: list[Event]) -> Step:
        """The match ends with no winner; the score stands."""
        events.append(
            Event(
                "match_drawn",
                {"reason": why.value, "round": state.round, "score": list(state.score)},
            )
        )
        return dataclasses.replace(
            state, phase=Phase.OVER, outcome=Outcome(DRAW, why), sand=Sand()
        ), events

    def _place(self, state: SagesState, square: int) -> Step:
        if state.phase is not Phase.PLACE:
            raise IllegalAction("sages_placement_over")
        side = state.to_move
        halves = _halves(state)
        if square not in placements(state.position, side, halves):
            raise IllegalAction(
                placement_refusal(state.position, side, square, halves), square=board.name(square)
            )
        sages = state.position.sages(side) | {square}
        red, blue = (
            (sages, state.position.blue) if side is Side.RED else (state.position.red, sages)
        )
        position = Position(red, blue, state.position.fool)
        events = [Event("placed", {"seat": side.seat, "square": board.name(square)})]
        if len(position.red) == len(position.blue) == SAGES_PER_SIDE:
            events.append(Event("round_started", {"round": 1, "first": Side.RED.seat}))
            return _round_start(
                dataclasses.replace(
                    state, phase=Phase.PLAY, position=position, start=position, to_move=Side.RED
                )
            ), events
        return dataclasses.replace(state, position=position, to_move=side.other), events

    def _move(self, state: SagesState, frm: int, to: int, fool_to: Square | None) -> Step:
        if state.phase is not Phase.PLAY:
            raise IllegalAction("sages_placing_now")
        side = state.to_move
        target = None if fool_to is None else fool_to.index
        move = find(state.position, side, frm, to, target)
        if move is None:
            code = refusal(state.position, side, frm, to, target)
            raise IllegalAction(
                code,
                seat=side.seat,
                sage=board.name(frm),
                square=board.name(to),
                fool_to=None if target is None else board.name(target),
            )
        gained = scored(move, side)
        last = LastMove(side, move, gained)
        events = [Event("chased" if move.flight else "moved", last.to_json())]
        if gained:
            return self._point(state, side, gained, last, events)
        position = _after(state.position, side, move)
        moved = dataclasses.replace(
            state, position=position, to_move=side.other, moves=state.moves + 1, last=last
        )
        return self._next_turn(moved, events)

    def _point(
        self, state: SagesState, side: Side, gained: int, last: LastMove, events: list[Event]
    ) -> Step:
        score = state.with_points(side, gained)
        events.append(
            Event(
                "point",
                {"seat": side.seat, "points": gained, "score": list(score)},
            )
        )
        if score[side.seat] >= state.options.target:
            outcome = Outcome(side.value, Reason.TARGET_REACHED)
            events.append(Event("match_won", {"seat": side.seat, "score": list(score)}))
            return dataclasses.replace(
                state,
                phase=Phase.OVER,
                position=_after(state.position, side, last.move),  # the fool in the cité
                score=score,
                last=last,
                moves=state.moves + 1,
                outcome=outcome,
            ), events
        assert state.start is not None
        loser = side.other
        events.append(Event("round_started", {"round": state.round + 1, "first": loser.seat}))
        return _round_start(
            dataclasses.replace(
                state,
                position=state.start,
                to_move=loser,
                first=loser,
                score=score,
                round=state.round + 1,
                moves=0,
                last=last,
            )
        ), events

    def _next_turn(self, state: SagesState, events: list[Event]) -> Step:
        """Hand the turn over; a player with no legal move passes, and a round where neither
        can move starts again. Then, with option ``repetition``, count the position."""
        side = state.to_move
        if not legal_moves(state.position, side):
            events.append(Event("no_move", {"seat": side.seat}))
            if not legal_moves(state.position, side.other):
                data = {"round": state.round, "first": state.first.seat}
                events.append(Event("round_replayed", data))
                return _replayed(state), events
            state = dataclasses.replace(state, to_move=side.other)
        return self._count_position(state, events)

    def _count_position(self, state: SagesState, events: list[Event]) -> Step:
        """Option ``repetition``: the position now on the board, with the player to move, is
        seen once more; the third time draws the round (replayed from the starting squares by
        the player who started it) or the match."""
        rule = state.options.repetition
        if rule is Repetition.OFF:
            return state, events
        state = dataclasses.replace(state, seen=(*state.seen, (state.position, state.to_move)))
        if state.repeats < REPEATS_TO_DRAW:
            return state, events
        if rule is Repetition.MATCH:
            return self._drawn(state, Reason.REPETITION, events)
        events.append(Event("round_drawn", {"round": state.round, "first": state.first.seat}))
        return _replayed(state), events

    # -- what may be seen -----------------------------------------------------------------------

    def outcome(self, state: SagesState) -> Outcome | None:
        return state.outcome

    def public_view(self, state: SagesState) -> JSON:
        """Everything: the board is in plain sight. ``moves`` lists what the player to move may
        do, by sage: the squares it may go to and, for a chase, each square the fool may end on
        with the path it takes there."""
        opts = state.options
        view: JSON = {
            "game": self.title,
            "players": 2,
            "phase": state.phase.value,
            "to_move": None if state.phase is Phase.OVER else state.to_move.seat,
            "score": list(state.score),
            "target": opts.target,
            "round": state.round,
            "moves_played": state.moves,
            "position": position_json(state.position),
            "cites": {side.value: squares_json(sorted(cite(side))) for side in Side},
            "last_move": None if state.last is None else state.last.to_json(),
            "hourglass": opts.hourglass,
            "hourglass_paused": state.sand.paused,
            "hourglass_left": state.sand.left,
            "computer": None if opts.computer is None else opts.computer.seat,
            "strength": opts.strength,
            "layout": opts.layout.value,
            "placement": opts.placement.value,
            "draw_by_agreement": opts.draw_by_agreement,
            "may_agree_draw": may_agree_draw(state),
            "repetition": opts.repetition.value,
            "repeats": state.repeats if state.phase is Phase.PLAY else 0,
            "repeats_to_draw": REPEATS_TO_DRAW,
            "winner": None
            if state.outcome is None or state.drawn
            else Side(state.outcome.winner).seat,
            "drawn": state.outcome.reason.value if state.drawn and state.outcome else None,
        }
        if state.phase is Phase.PLACE:
            view["placements"] = squares_json(
                sorted(placements(state.position, state.to_move, _halves(state)))
            )
        elif state.phase is Phase.PLAY:
            view["moves"] = moves_json(legal_moves(state.position, state.to_move), state.to_move)
        return view

    def private_view(self, state: SagesState, seat: int) -> JSON:
        return {}  # nothing is hidden in this game

    def public_record(self, played: Played[SagesState]) -> list[Action]:
        return played.actions  # nothing is hidden in this game


def _round_start(state: SagesState) -> SagesState:
    """A round begins at ``state``: with option ``repetition``, its position is the first
    seen."""
    if state.options.repetition is Repetition.OFF:
        return state
    return dataclasses.replace(state, seen=((state.position, state.to_move),))


def _replayed(state: SagesState) -> SagesState:
    """The round starts again from the starting squares, by the player who started it, with
    no point."""
    assert state.start is not None
    return _round_start(
        dataclasses.replace(state, position=state.start, to_move=state.first, moves=0)
    )


def may_agree_draw(state: SagesState) -> bool:
    """Whether the host may enter an agreed draw now: the option is on and the match is
    being played."""
    return state.options.draw_by_agreement and state.phase is Phase.PLAY


def _halves(state: SagesState) -> bool:
    return state.options.placement is Placement.HALVES


def _after(position: Position, side: Side, move: Move) -> Position:
    fool = None if move.flight is None else move.flight.end
    return position.moved(side, move.frm, move.to, fool)


def moves_json(moves: Sequence[Move], side: Side) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for move in moves:
        entry = out.setdefault(board.name(move.frm), {"to": [], "chases": []})
        if move.flight is None:
            entry["to"].append(board.name(move.to))
        else:
            entry["chases"].append(
                {
                    "fool_to": board.name(move.flight.end),
                    "path": squares_json(move.flight.path),
                    "reflectors": squares_json(move.flight.reflectors),
                    "points": scored(move, side),
                }
            )
    return out


def placements(position: Position, side: Side, halves: bool = False) -> set[int]:
    """Where ``side`` may lay its next sage in free placement: its own cité (one sage), and
    the kingdom, or only its half of it with ``halves``."""
    sages = position.sages(side)
    in_cite = bool(sages & cite(side))
    last = len(sages) == SAGES_PER_SIDE - 1
    allowed: set[int] = set()
    if not in_cite:
        allowed |= cite(side)
    if in_cite or not last:
        allowed |= board.half(side) if halves else board.kingdom()
    return {
        s for s in allowed if not position.occupied(s) and not three_side_by_side(sages | {s}, s)
    }


def placement_refusal(position: Position, side: Side, square: int, halves: bool = False) -> str:
    if position.occupied(square):
        return "sages_square_taken"
    sages = position.sages(side)
    if square in cite(side):
        return "sages_cite_taken" if sages & cite(side) else "sages_three_side_by_side"
    if halves and square not in board.half(side):
        return "sages_place_in_your_half"
    if not halves and not board.in_kingdom(square):
        return "sages_place_in_the_kingdom"
    if not sages & cite(side) and len(sages) == SAGES_PER_SIDE - 1:
        return "sages_last_sage_to_cite"
    return "sages_three_side_by_side"


def hourglass(state: SagesState) -> tuple[float, TimeUp] | None:
    """The move awaited under the hourglass, if the match uses one and it is not paused: its
    seconds (those left when it was paused, once resumed), and what is sent when they run out.
    The companion's own moves are not timed."""
    seconds = state.options.hourglass
    if seconds is None or state.phase is not Phase.PLAY or state.to_move is state.options.computer:
        return None
    if state.sand.paused:
        return None
    return state.sand.countdown(seconds), TimeUp(state.to_move.seat)


def _timed_seconds(state: SagesState) -> int:
    """The seconds of a move under the hourglass; refused when no move is timed now."""
    seconds = state.options.hourglass
    if seconds is None:
        raise IllegalAction("sages_no_hourglass")
    if state.phase is not Phase.PLAY or state.to_move is state.options.computer:
        raise IllegalAction("no_hourglass_running")
    return seconds
