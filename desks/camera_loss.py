"""A camera that stops in the middle of a game (unplugged, knocked loose, its cable failing).

The desks that watch throws (Oraklos, game night) hand the table over to ``until_back``: the
table says once that the camera stopped, and its pages offer to enter by hand what the camera
would have read (``camera_lost`` in the snapshot). The camera is tried every ``RETRY`` seconds of
the table's clock (``ThrowCamera.back`` opens it afresh); once it gives frames again the table
says so and the desk watches again. Nothing waits on it meanwhile: the game goes on by hand.
"""

from __future__ import annotations

import threading
from typing import Any

from companion.moderator import Table
from companion.timers import Clock

RETRY = 2.0  # seconds between two tries of a camera that stopped
HEED_STOP = 0.05  # seconds of the watcher's wait between two looks at its stop and its timer


def until_back(table: Table, camera: Any, stop: threading.Event, retry: float = RETRY) -> bool:
    """Tell ``table`` its camera stopped, then try ``camera`` every ``retry`` seconds of the
    table's clock until it gives frames again (True: the table is told it is back) or ``stop``
    is set (False)."""
    table.camera_lost(True)
    while True:
        if not _after(table.clock, retry, stop):
            return False
        if camera.back():
            table.camera_lost(False)
            return True


def _after(clock: Clock, seconds: float, stop: threading.Event) -> bool:
    """Wait until ``clock`` has run ``seconds`` (True) or ``stop`` is set (False)."""
    due = threading.Event()
    cancel = clock.call_later(seconds, due.set)
    while not due.is_set():
        if stop.wait(HEED_STOP):
            cancel()
            return False
    return True
