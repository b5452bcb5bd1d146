"""Eleusis is played from the phones (each hand on its seat's page) or entered by the host."""

from __future__ import annotations

import dataclasses

from companion.game_rules import GameRules, page_game_rules
from companion.games.eleusis.engine import Eleusis
from companion.games.eleusis.state import EleusisState
from companion.narration import eleusis as eleusis_narration
from companion.timers import Clock


def rules(clock: Clock) -> GameRules[EleusisState, None]:
    page = page_game_rules(eleusis_narration.lines, Eleusis().opening_events)
    return dataclasses.replace(
        page, awaiting=lambda state, pending: Eleusis().situation_events(state)
    )
