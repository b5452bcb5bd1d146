"""Game night: the tools are used on the pages; A on any seat passes the turn timer's
turn, which runs on the moderator's hourglass like Les 7 Sages' moves."""

from __future__ import annotations

from companion.game_rules import GameRules, Timed, kinds
from companion.games.night.controls import interpret
from companion.games.night.engine import Night, timed
from companion.games.night.state import NightState
from companion.narration import night as night_narration
from companion.timers import Clock


def rules(clock: Clock) -> GameRules[NightState, None]:
    def turn(state: NightState) -> Timed | None:
        running = timed(state)
        if running is None:
            return None
        run, seconds, expire = running
        return Timed(expire.seat, seconds, expire, key=run)

    return GameRules(
        interpret=interpret,
        blank_input=None,
        lines=night_narration.lines,
        opening_script=None,
        in_opening=lambda state: False,
        end_opening=None,
        introduce=Night().opening_events,
        timed_move=turn,
        awaiting=lambda state, pending: Night().situation_events(state),
        # the dice and the score pad, as entered: never who starts (a draw the host could redo)
        # nor the turn timer's turns
        undoable=kinds("read_dice", "correct_die", "count_by_color", "write_score", "new_sheet"),
    )
