"""Clocks the tests move by hand, for the timers of ``companion/timers.py``: ``ManualClock`` for
the moderator's ``later``, ``HandClock`` where a whole ``Clock`` is taken (the button box)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Cancel = Callable[[], None]


@dataclass
class ManualClock:
    """A clock moved by hand, for tests: ``call_later`` registers, ``advance`` runs what falls
    due, in order of time."""

    now: float = 0.0
    _due: list[tuple[float, int, Callable[[], None]]] = field(default_factory=list)
    _count: int = 0

    def call_later(self, delay: float, fn: Callable[[], None]) -> Cancel:
        self._count += 1
        entry = (self.now + delay, self._count, fn)
        self._due.append(entry)

        def cancel() -> None:
            if entry in self._due:
                self._due.remove(entry)

        return cancel

    def advance(self, seconds: float) -> None:
        until = self.now + seconds
        while True:
            ready = sorted(e for e in self._due if e[0] <= until)
            if not ready:
                break
            when, _, fn = ready[0]
            self._due.remove(ready[0])
            self.now = when
            fn()
        self.now = until

    @property
    def pending(self) -> int:
        return len(self._due)


class HandClock:
    """A ``companion.timers.Clock`` moved by hand (a ManualClock underneath): ``now()`` reads
    it, ``call_later`` registers, ``advance`` runs what falls due, in the caller's thread."""

    def __init__(self, start: float = 0.0) -> None:
        self._manual = ManualClock(now=start)

    def now(self) -> float:
        return self._manual.now

    def call_later(self, delay: float, fn: Callable[[], None]) -> Cancel:
        return self._manual.call_later(delay, fn)

    def advance(self, seconds: float) -> None:
        self._manual.advance(seconds)

    @property
    def pending(self) -> int:
        return self._manual.pending
