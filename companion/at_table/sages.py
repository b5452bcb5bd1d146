"""Les 7 Sages is played on the page (beside the real board, or on it alone); the companion
may play one side, and an hourglass may time each move."""

from __future__ import annotations

import dataclasses

from companion.game import Action
from companion.game_rules import GameRules, Timed, page_game_rules
from companion.games.sages import opponent
from companion.games.sages.engine import Sages, hourglass
from companion.games.sages.state import MoveSage, Place, SagesState
from companion.narration import sages as sages_narration
from companion.timers import Clock


def rules(clock: Clock) -> GameRules[SagesState, None]:
    def timed(state: SagesState) -> Timed | None:
        awaited = hourglass(state)
        if awaited is None:
            return None
        seconds, expire = awaited
        return Timed(expire.seat, seconds, expire)

    def undoable(before: SagesState, action: Action) -> bool:
        """A sage placed or moved by a player (never the companion's own move, which it would
        only play again): everything is in sight on the board."""
        computer = before.options.computer
        return isinstance(action, Place | MoveSage) and (
            computer is None or action.seat != computer.seat
        )

    page = page_game_rules(sages_narration.lines, Sages().opening_events)
    return dataclasses.replace(
        page,
        companion_move=opponent.companion_move,
        timed_move=timed,
        awaiting=lambda state, pending: Sages().situation_events(state),
        undoable=undoable,
    )
