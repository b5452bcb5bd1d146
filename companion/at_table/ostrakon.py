"""Ostrakon is played with the seat buttons (or real tessons read by the camera); there is
no eyes-closed phase: the game opens with the setup and the first question."""

from __future__ import annotations

from companion.game_rules import GameRules, kinds
from companion.games.ostrakon import controls as ostrakon_controls
from companion.games.ostrakon.controls import Naming
from companion.games.ostrakon.engine import Ostrakon
from companion.games.ostrakon.state import OstrakonState
from companion.narration import ostrakon as ostrakon_narration
from companion.timers import Clock


def rules(clock: Clock) -> GameRules[OstrakonState, Naming | None]:
    return GameRules(
        # on the table's clock: a long press of A soon after the first claim contests it
        interpret=ostrakon_controls.Buttons(clock.now),
        blank_input=ostrakon_controls.Naming(),
        lines=ostrakon_narration.lines,
        opening_script=None,
        in_opening=lambda state: False,
        end_opening=None,
        introduce=Ostrakon().opening_events,
        long_presses=True,  # a long press of A claims to be the disciple
        awaiting=ostrakon_controls.awaiting,
        keep_input=lambda naming: list(naming.named) if naming else None,
        restore_input=lambda named: ostrakon_controls.Naming(tuple(int(s) for s in named)),
        undoable=kinds("ask"),  # a question opened by mistake, before any tesson is laid
    )
