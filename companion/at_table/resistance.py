"""Résistance is played with the seat buttons: the night spoken while eyes are closed, the squad
named with the buttons (said aloud as it is named), votes and mission cards pressed in secret."""

from __future__ import annotations

from companion.game_rules import GameRules, kinds
from companion.games.resistance import controls as resistance_controls
from companion.games.resistance.controls import Nomination
from companion.games.resistance.engine import Resistance
from companion.games.resistance.state import EndNight, Phase, ResistanceState
from companion.narration import resistance as resistance_narration
from companion.timers import Clock


def rules(clock: Clock) -> GameRules[ResistanceState, Nomination]:
    return GameRules(
        interpret=resistance_controls.interpret,
        blank_input=resistance_controls.Nomination(),
        lines=resistance_narration.lines,
        opening_script=resistance_narration.night_script,
        in_opening=lambda state: state.phase is Phase.NIGHT,
        end_opening=EndNight,
        introduce=Resistance().opening_events,
        show_input=resistance_controls.Nomination.to_json,
        awaiting=resistance_controls.awaiting,
        keep_input=resistance_controls.Nomination.to_json,
        restore_input=resistance_controls.Nomination.from_json,
        # a squad confirmed by mistake, before anyone votes: read back again, awaiting A or B
        undoable=kinds("propose"),
        undone_input=resistance_controls.Nomination.confirming,
    )
