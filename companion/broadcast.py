"""What the pages are told: the public snapshots, numbered, and a wake-up for the seats' pages.

``Broadcast`` publishes a public snapshot only when it differs from the last one published, so
that neither the stream nor its timing tells the table that something happened (a vote changed
before the reveal, a seat's own refusal); those changes wake the seats' own pages instead, to
look at their private view. It knows no game: ``Table`` composes the snapshots.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from companion.game import JSON

log = logging.getLogger(__name__)

Listener = Callable[[JSON], None]
Wake = Callable[[], None]
L = TypeVar("L", Listener, Wake)


class Broadcast:
    """The public listeners (``subscribe``), the private ones (``subscribe_private``) and the
    revision of the last public snapshot published. ``lock`` is the table's: listeners are
    added and removed under it, and ``publish`` is called under it."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._listeners: list[Listener] = []
        self._private: list[Wake] = []
        self._published: JSON | None = None  # the last snapshot published, less its revision
        self.revision = 0

    def subscribe(self, listener: Listener) -> Wake:
        """``listener(snapshot)`` is called with each public snapshot published; the returned
        function unsubscribes it."""
        return self._listen(self._listeners, listener)

    def subscribe_private(self, listener: Wake) -> Wake:
        """``listener()`` is called when something only a seat's own page shows may have
        changed (the public snapshot did not)."""
        return self._listen(self._private, listener)

    def publish(self, snapshot: JSON, before: Wake) -> None:
        """Tell the pages of ``snapshot`` (its "revision" is set here) if it changed: ``before()``
        first (what must be kept before anyone is told), then the next revision to every public
        listener. Unchanged, it only wakes the seats' pages."""
        unchanged = {k: v for k, v in snapshot.items() if k != "revision"}
        if unchanged == self._published:
            self.wake_private()
            return
        self._published = unchanged
        before()
        self.revision += 1
        snapshot["revision"] = self.revision
        for listener in list(self._listeners):
            try:
                listener(snapshot)
            except Exception:
                log.exception("a listener failed")

    def wake_private(self) -> None:
        for listener in list(self._private):
            try:
                listener()
            except Exception:
                log.exception("a listener failed")

    def _listen(self, listeners: list[L], listener: L) -> Wake:
        with self._lock:
            listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in listeners:
                    listeners.remove(listener)

        return unsubscribe
