"""The hourglass's pause, shared by every game that times its turns (game night's turn timer,
Les 7 Sages' moves): one countdown, run by the moderator's clock, paused and resumed the same way.

Engines hold no clock. The moderator measures the seconds left when the host pauses and sends
``PauseHourglass(left)``, journalled like any action, so that a restart resumes a paused turn
as it was; ``ResumeHourglass`` starts a countdown from those seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from companion.game import Action, Event, IllegalAction


@dataclass(frozen=True)
class Sand:
    """The sand of the turn now timed: ``left`` seconds when it was paused (None: the whole
    turn), and whether it is paused now."""

    left: float | None = None
    paused: bool = False

    def countdown(self, seconds: float) -> float:
        """The seconds a countdown of a ``seconds`` turn starts from now."""
        return seconds if self.left is None else self.left

    def pause(self, seconds: float, left: float, seat: int) -> tuple[Sand, Event]:
        """Paused with ``left`` seconds of ``seat``'s ``seconds`` turn, and the event saying so."""
        if self.paused:
            raise IllegalAction("hourglass_paused")
        if not 0 < left <= self.countdown(seconds):
            raise IllegalAction("hourglass_pause_left", left=left, seconds=self.countdown(seconds))
        return Sand(left, True), Event("hourglass_paused", {"seat": seat, "left": _said(left)})

    def resume(self, seconds: float, seat: int) -> tuple[Sand, Event]:
        if not self.paused:
            raise IllegalAction("hourglass_running")
        left = _said(self.countdown(seconds))
        return Sand(self.left, False), Event("hourglass_resumed", {"seat": seat, "left": left})


def _said(seconds: float) -> int:
    return max(1, round(seconds))


@dataclass(frozen=True)
class PauseHourglass(Action):
    """The turn's sand stops with ``left`` seconds (measured by the moderator's clock)."""

    kind: ClassVar[str] = "pause_hourglass"
    left: float


@dataclass(frozen=True)
class ResumeHourglass(Action):
    kind: ClassVar[str] = "resume_hourglass"
