"""The turn timer: whose turn it is, clockwise from the first player, and the sand left.

The engine holds no clock. The moderator runs the countdown (the same hourglass as Les 7 Sages'
moves, paused the same way: ``companion.games.sand``) and sends ``PassTurn(seat,
timed_out=True)`` when it runs out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from companion.game import Event
from companion.games.sand import Sand

SECONDS = range(5, 3601)  # seconds a turn may last


@dataclass(frozen=True)
class TurnTimer:
    seconds: int  # per turn
    players: int
    turn: int  # the seat whose turn it is
    turns: int = 0  # turns passed since the timer started
    sand: Sand = field(default_factory=Sand)  # the turn's pause, if any
    run: int = 0  # counts the countdowns started (each start, pass and resume starts one)

    @property
    def next_seat(self) -> int:
        return (self.turn + 1) % self.players

    @property
    def countdown(self) -> float:
        """The seconds the turn's countdown starts from."""
        return self.sand.countdown(self.seconds)

    def passed(self) -> TurnTimer:
        return replace(
            self, turn=self.next_seat, turns=self.turns + 1, sand=Sand(), run=self.run + 1
        )

    def paused_at(self, left: float) -> tuple[TurnTimer, Event]:
        sand, event = self.sand.pause(self.seconds, left, self.turn)
        return replace(self, sand=sand), event

    def resumed(self) -> tuple[TurnTimer, Event]:
        sand, event = self.sand.resume(self.seconds, self.turn)
        return replace(self, sand=sand, run=self.run + 1), event

    def view(self) -> dict[str, Any]:
        return {
            "seconds": self.seconds,
            "turn": self.turn,
            "next": self.next_seat,
            "turns": self.turns,
            "paused": self.sand.paused,
            "left": None if self.sand.left is None else round(self.sand.left, 1),
        }
