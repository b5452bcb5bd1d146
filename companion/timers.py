"""Time for the moderator: calls made later (the hourglass) and work done off the table's lock
(the companion thinking over its move), on real threads; tests pass their own
(``tests/timing.py``)."""

from __future__ import annotations

import threading
from collections.abc import Callable

Cancel = Callable[[], None]


def call_later(delay: float, fn: Callable[[], None]) -> Cancel:
    """Run ``fn`` in ``delay`` seconds on a timer thread; the returned function cancels it."""
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()
    return timer.cancel


def in_background(fn: Callable[[], None]) -> None:
    threading.Thread(target=fn, daemon=True, name="companion-move").start()
