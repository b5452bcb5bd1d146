"""Game night: the companion's table tools for any game (dice reader, turn timer, score pad,
who starts), kept in the journal like a game so that a power cut loses nothing.

Nothing here is secret: every view is public. The only randomness is "who starts", drawn from
the evening's secret seed and the pick's number (``pick``). The seed would tell who starts next:
a record of an evening still going names the seats drawn instead (``public_setup``); once the
evening is over the record carries the seed too, so anyone holding it can check every draw.
Where the issue leaves it open, this engine decides (docs/GAME_NIGHT.md says the same):

- *Re-rolls*: a die lying where a die of the last throw lay, with the same value, was kept; it
  is not said again as thrown and not counted again in the statistics (``dice.mark_rolled``).
- A reading in which no die moved, or no die at all, is refused (a hand over the tray, the tray
  emptied): the statistics count only dice that were thrown.
- *Turns* go clockwise (seat order) from the first player; A on any seat's buttons passes the
  turn, and so does the sand running out.
- *Scores* are whole numbers, either sign; the host writes them, and may rub one out.
- *Who starts* is a uniform draw among the players chosen (all by default).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from companion.chance import draws
from companion.game import JSON, Action, Event, IllegalAction, Outcome
from companion.games.night.dice import FACES, MAX_DICE, PipDie, Throw, rolled
from companion.games.night.pad import POINTS_LIMIT, ScorePad
from companion.games.night.state import (
    ACTIONS,
    CorrectDie,
    CountByColor,
    EndEvening,
    NewSheet,
    NightState,
    Options,
    PassTurn,
    Pick,
    PickStarter,
    ReadDice,
    Reason,
    SayLeader,
    Screen,
    ShowScreen,
    StartTimer,
    StopTimer,
    WriteScore,
)
from companion.games.night.turns import SECONDS, TurnTimer
from companion.games.night.views import NightViews
from companion.games.sand import PauseHourglass, ResumeHourglass

Step = tuple[NightState, list[Event]]


class Night(NightViews):
    title = "night"
    actions: Mapping[str, type[Action]] = ACTIONS

    def new(self, options: Mapping[str, Any], seed: int) -> NightState:
        opts = Options.from_json(options)
        return NightState(
            opts, seed, ScorePad(opts.players, low_wins=opts.low_wins), by_color=opts.by_color
        )

    def options_json(self, state: NightState) -> JSON:
        return state.options.to_json()

    def opening_events(self, state: NightState) -> list[Event]:
        return [Event("night_set_up", {"players": state.players})]

    def situation_events(self, state: NightState) -> list[Event]:
        """What the table awaits now, said again after a restart or the host's undo: the tool
        on the page and what it shows (the last throw, the leader, the last draw), and whose
        turn it is on the turn timer, or its sand paused."""
        if state.closed:
            return []
        events = [Event("on_screen", {"screen": state.screen.value})]
        timer = state.timer
        if state.screen is Screen.DICE and state.throws:
            events.append(Event("last_throw", _throw_said(state.throws[-1], state.by_color)))
        elif state.screen is Screen.SCORES:
            events.append(_leader_event(state.pad))
        elif state.screen is Screen.STARTER and state.picks:
            last = state.picks[-1]
            drawn = {"seat": last.seat, "number": last.number, "among": list(last.among)}
            events.append(Event("starter_picked", drawn))
        elif state.screen is Screen.TIMER and timer is None:
            events.append(Event("timer_stopped"))
        if timer is not None and timer.sand.paused:
            left = timer.sand.left
            said = max(1, round(timer.seconds if left is None else left))
            events.append(Event("hourglass_paused", {"seat": timer.turn, "left": said}))
        elif timer is not None:
            events.append(Event("turn_now", {"seat": timer.turn}))
        return events

    def legal_actions(self, state: NightState, seat: int | None) -> Iterator[Action]:
        """A sample of what may be done (dice and scores have too many values to list)."""
        if state.closed:
            return
        if seat is not None:
            timer = state.timer
            if timer is not None and not timer.sand.paused and seat == timer.turn:
                yield PassTurn(seat)
            return
        for screen in Screen:
            if screen is not state.screen:
                yield ShowScreen(screen)
        yield ReadDice((PipDie(6), PipDie(1)))
        if state.throws:
            yield CorrectDie(0, 1 + state.throws[-1].dice[0].value % 6)
        yield CountByColor(not state.by_color)
        timer = state.timer
        if timer is None:
            yield StartTimer(0, state.options.turn_seconds)
        else:
            yield ResumeHourglass() if timer.sand.paused else PauseHourglass(timer.countdown / 2)
            yield StopTimer()
            if not timer.sand.paused:
                yield PassTurn(timer.turn, timed_out=True)
        yield WriteScore(0, len(state.pad.rounds), 10)
        yield SayLeader()
        if state.pad.written:
            yield NewSheet()
        yield PickStarter()
        yield EndEvening()

    def apply(self, state: NightState, action: Action) -> Step:
        if state.closed:
            raise IllegalAction("game_over")
        match action:
            case ShowScreen(screen=screen):
                return dataclasses.replace(state, screen=screen), []
            case ReadDice(dice=dice):
                return self._read(state, dice)
            case CorrectDie(index=index, value=value):
                return self._correct(state, index, value)
            case CountByColor(on=on):
                return dataclasses.replace(state, by_color=on), [Event("by_color", {"on": on})]
            case StartTimer(first=first, seconds=seconds):
                return self._start(state, first, seconds)
            case PassTurn(seat=seat, timed_out=timed_out):
                return self._pass(state, seat, timed_out)
            case PauseHourglass(left=left):
                timer, event = _timer(state).paused_at(left)
                return _timed(state, timer), [event]
            case ResumeHourglass():
                timer, event = _timer(state).resumed()
                return _timed(state, timer), [event]
            case StopTimer():
                _timer(state)
                return dataclasses.replace(state, timer=None), [Event("timer_stopped")]
            case WriteScore(player=player, round=round_, points=points):
                return self._write(state, player, round_, points)
            case SayLeader():
                return _on(state, Screen.SCORES), [_leader_event(state.pad)]
            case NewSheet():
                return self._new_sheet(state)
            case PickStarter(among=among):
                return self._pick(state, among)
            case EndEvening():
                closed = dataclasses.replace(state, closed=True)
                totals = list(state.pad.totals) if state.pad.written else []
                leaders = list(state.pad.leaders())
                return closed, [Event("evening_ended", {"totals": totals, "leaders": leaders})]
        raise IllegalAction("unknown_action", kind=action.kind)

    # -- dice -----------------------------------------------------------------------------------

    def _read(self, state: NightState, dice: Sequence[PipDie]) -> Step:
        if not dice:
            raise IllegalAction("night_no_dice")
        if len(dice) > MAX_DICE:
            raise IllegalAction("night_too_many_dice", count=len(dice), limit=MAX_DICE)
        before = state.throws[-1].dice if state.throws else ()
        thrown = rolled(before, dice)
        if not any(thrown):
            raise IllegalAction("night_dice_unchanged")
        throw = Throw(len(state.throws) + 1, tuple(dice), thrown)
        after = _on(dataclasses.replace(state, throws=(*state.throws, throw)), Screen.DICE)
        return after, [Event("dice_read", _throw_said(throw, after.by_color))]

    def _correct(self, state: NightState, index: int, value: int) -> Step:
        if not state.throws:
            raise IllegalAction("night_no_throw_yet")
        last = state.throws[-1]
        if not 0 <= index < len(last.dice):
            raise IllegalAction("night_no_such_die", die=index + 1, count=len(last.dice))
        if value not in FACES:
            raise IllegalAction("night_die_value", value=value)
        dice = list(last.dice)
        dice[index] = dataclasses.replace(dice[index], value=value, confidence=1.0)
        throw = dataclasses.replace(last, dice=tuple(dice))
        after = dataclasses.replace(state, throws=(*state.throws[:-1], throw))
        event = Event("die_corrected", {"die": index + 1, "value": value, "total": throw.total})
        return _on(after, Screen.DICE), [event]

    # -- the turn timer -------------------------------------------------------------------------

    def _start(self, state: NightState, first: int, seconds: int) -> Step:
        _check_seat(state, first)
        if seconds not in SECONDS:
            raise IllegalAction(
                "night_number_range", option="seconds", value=seconds, low=SECONDS[0],
                high=SECONDS[-1],
            )  # fmt: skip
        run = 0 if state.timer is None else state.timer.run + 1
        timer = TurnTimer(seconds, state.players, first, run=run)
        event = Event("timer_started", {"seat": first, "seconds": seconds})
        return _timed(state, timer), [event]

    def _pass(self, state: NightState, seat: int, timed_out: bool) -> Step:
        timer = _timer(state)
        if timer.sand.paused:
            raise IllegalAction("hourglass_paused")
        if seat != timer.turn:
            raise IllegalAction("night_not_their_turn", seat=seat, turn=timer.turn)
        passed = timer.passed()
        event = Event("turn_passed", {"seat": seat, "next": passed.turn, "timed_out": timed_out})
        return _timed(state, passed), [event]

    # -- scores ---------------------------------------------------------------------------------

    def _write(self, state: NightState, player: int, round_: int, points: int | None) -> Step:
        _check_seat(state, player)
        rounds = len(state.pad.rounds)
        if not 0 <= round_ <= rounds:
            raise IllegalAction("night_no_such_round", round=round_ + 1, rounds=rounds + 1)
        if points is not None and abs(points) > POINTS_LIMIT:
            raise IllegalAction("night_points_range", points=points, limit=POINTS_LIMIT)
        pad = state.pad.write(player, round_, points)
        event = Event(
            "score_written",
            {"seat": player, "round": round_ + 1, "points": points, "total": pad.totals[player]},
        )
        return _on(dataclasses.replace(state, pad=pad), Screen.SCORES), [event]

    def _new_sheet(self, state: NightState) -> Step:
        if not state.pad.written:
            raise IllegalAction("night_sheet_empty")
        after = dataclasses.replace(
            state,
            pad=ScorePad(state.players, low_wins=state.pad.low_wins),
            sheets=(*state.sheets, state.pad.totals),
        )
        return _on(after, Screen.SCORES), [Event("sheet_started", {"sheet": len(after.sheets) + 1})]

    # -- who starts -----------------------------------------------------------------------------

    def _pick(self, state: NightState, among: Sequence[int]) -> Step:
        for seat in among:
            _check_seat(state, seat)
        if len(set(among)) != len(among):
            raise IllegalAction("night_pick_twice")
        candidates = tuple(sorted(among)) if among else tuple(range(state.players))
        number = len(state.picks) + 1
        starters = state.options.starters
        if number <= len(starters):  # a record replayed without its seed names the seat drawn
            seat = starters[number - 1]
            if seat not in candidates:
                raise IllegalAction("record_draws_mismatch", option="starters", draw=str(seat))
        else:
            seat = pick(state.seed, number, candidates)
        chosen = Pick(number, candidates, seat)
        after = _on(dataclasses.replace(state, picks=(*state.picks, chosen)), Screen.STARTER)
        event = Event(
            "starter_picked",
            {"seat": chosen.seat, "number": number, "among": list(candidates)},
        )
        return after, [event]

    # -- views ----------------------------------------------------------------------------------

    def outcome(self, state: NightState) -> Outcome | None:
        if not state.closed:
            return None
        leaders = state.pad.leaders()
        return Outcome(",".join(str(s) for s in leaders) or "none", Reason.CLOSED)


def pick(seed: int, number: int, among: Sequence[int]) -> int:
    """The ``number``-th "who starts" of an evening seeded ``seed``: a uniform draw among
    ``among`` from ``companion.chance.draws(seed, "night:pick:<number>")``, the same in every
    run, so that once the evening is over its record (which then carries the seed) can be
    checked."""
    return among[draws(seed, f"night:pick:{number}").randrange(len(among))]


def timed(state: NightState) -> tuple[int, float, PassTurn] | None:
    """The turn running under the timer, if one runs: its countdown's number (a new one for
    each start, pass and resume), its seconds, and what is sent when the sand runs out."""
    timer = state.timer
    if timer is None or timer.sand.paused or state.closed:
        return None
    return timer.run, timer.countdown, PassTurn(timer.turn, timed_out=True)


def _throw_said(throw: Throw, by_color: bool) -> dict[str, Any]:
    return {
        "number": throw.number,
        "values": sorted((d.value for d in throw.dice), reverse=True),
        "rolled": sorted((d.value for d in throw.thrown), reverse=True),
        "kept": len(throw.dice) - len(throw.thrown),
        "total": throw.total,
        "by_color": [
            {"color": c, "values": v, "total": sum(v)} for c, v in throw.by_color()
        ] if by_color else None,
        "unsure": sum(d.flagged for d in throw.dice),
    }  # fmt: skip


def _leader_event(pad: ScorePad) -> Event:
    leaders = pad.leaders()
    total = pad.totals[leaders[0]] if leaders else 0
    return Event("leader", {"seats": list(leaders), "total": total, "low_wins": pad.low_wins})


def _on(state: NightState, screen: Screen) -> NightState:
    return state if state.screen is screen else dataclasses.replace(state, screen=screen)


def _timed(state: NightState, timer: TurnTimer) -> NightState:
    return _on(dataclasses.replace(state, timer=timer), Screen.TIMER)


def _timer(state: NightState) -> TurnTimer:
    if state.timer is None:
        raise IllegalAction("night_no_timer")
    return state.timer


def _check_seat(state: NightState, seat: int) -> None:
    if not 0 <= seat < state.players:
        raise IllegalAction("night_no_such_player", number=seat + 1, players=state.players)
