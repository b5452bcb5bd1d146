"""Oraklos is played on the page and read by the camera."""

from __future__ import annotations

import dataclasses

from companion.game_rules import GameRules, kinds, page_game_rules
from companion.games.oraklos.engine import Oraklos
from companion.games.oraklos.state import OraklosState
from companion.narration import oraklos as oraklos_narration
from companion.timers import Clock


def rules(clock: Clock) -> GameRules[OraklosState, None]:
    page = page_game_rules(oraklos_narration.lines, Oraklos().opening_events)
    # the dice as read and their corrections, and a marker laid on the wrong card: all face up.
    # Never a claim (its verdict stands), a draw (a card seen) or the cup (filled in secret)
    undoable = kinds("throw", "correct_die", "remove_die", "add_die", "take_marker")
    return dataclasses.replace(
        page,
        undoable=undoable,
        awaiting=lambda state, pending: Oraklos().situation_events(state),
    )
