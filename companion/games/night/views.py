"""What each audience may see of game night: everything but the draw of who starts next, and the
record that names the draws made (``companion/played.py``)."""

from __future__ import annotations

import dataclasses

from companion.game import JSON, Action
from companion.games.night.dice import DiceStats
from companion.games.night.state import (
    HISTORY_SHOWN,
    NightState,
)
from companion.played import Played


class NightViews:
    """The engine's views and its record (``Night`` in engine.py has them): nothing is secret at
    game night but who starts next."""

    def public_view(self, state: NightState) -> JSON:
        colors = sorted({d.color for t in state.throws for d in t.dice if d.color})
        last = state.throws[-1] if state.throws else None
        return {
            "players": state.players,
            "screen": state.screen.value,
            "closed": state.closed,
            "options": state.options.to_json(),
            "dice": {
                "by_color": state.by_color,
                "throws": len(state.throws),
                "last": None if last is None else last.view(),
                "history": [
                    {"number": t.number, "values": [d.value for d in t.dice], "total": t.total}
                    for t in state.throws[-HISTORY_SHOWN:]
                ],
                "stats": DiceStats.of(state.throws).view(),
                "stats_by_color": {c: DiceStats.of(state.throws, c).view() for c in colors},
            },
            "timer": None if state.timer is None else state.timer.view(),
            "scores": {**state.pad.view(), "sheets": [list(s) for s in state.sheets]},
            "picks": [p.view() for p in state.picks[-HISTORY_SHOWN:]],
        }

    def private_view(self, state: NightState, seat: int) -> JSON:
        return {}  # nothing is secret at game night

    def public_record(self, played: Played[NightState]) -> list[Action]:
        return played.actions  # every draw and throw is made before the table

    def public_setup(self, played: Played[NightState]) -> JSON:
        """The options an exported record's header carries, for ``public_record``: under them
        the record replays with no seed (``companion/record.py``), the seats drawn so far named
        in ``starters``. The seed would tell who starts next."""
        starters = tuple(p.seat for p in played.last.picks)
        return dataclasses.replace(played.last.options, starters=starters).to_json()
