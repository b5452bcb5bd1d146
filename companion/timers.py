"""Time for the moderator and the hardware: the time now, calls made later (the hourglass, a
button held down) and work done off the table's lock (the companion thinking over its move), on
real threads; tests pass their own (``tests/timing.py``), moved by hand."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

Cancel = Callable[[], None]


class Clock(Protocol):
    """What a timer needs: the time now (seconds, only ever compared with itself) and a call
    made ``delay`` seconds from now, which the returned function cancels."""

    def now(self) -> float: ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> Cancel: ...


def call_later(delay: float, fn: Callable[[], None]) -> Cancel:
    """Run ``fn`` in ``delay`` seconds on a timer thread; the returned function cancels it."""
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()
    return timer.cancel


class RealClock:
    """The real time: ``time.monotonic`` and a ``threading.Timer`` per call."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, fn: Callable[[], None]) -> Cancel:
        return call_later(delay, fn)


REAL_CLOCK: Clock = RealClock()


def in_background(fn: Callable[[], None]) -> None:
    threading.Thread(target=fn, daemon=True, name="companion-move").start()
