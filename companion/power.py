"""Safe shutdown: a held power button or the host page stops the companion cleanly, then the
configured command powers the computer off.

The order matters. First the table refuses every new action and says that it is shutting
down (what was accepted is in the journal already). Once that sentence has been said, the
server is told to stop (``stop``); it closes the journal, the camera and the pins; only then
does ``power_off`` run the command, so that nothing is still being written when the power
goes. On the next start the game resumes from the journal, exactly where it stopped.
"""

from __future__ import annotations

import logging
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

log = logging.getLogger(__name__)

SAID_WITHIN = 20.0  # seconds allowed for the goodbye sentence before the server stops anyway
COMMAND_TIMEOUT = 30.0


class Quiet(Protocol):
    def wait_idle(self, timeout: float | None = None) -> bool: ...


class StopsPlay(Protocol):
    def stop_play(self) -> None: ...

    def text(self, key: str, **params: object) -> str: ...

    def notice(self, text: str) -> None: ...


class Shutdown:
    """``request`` may come from any thread (the power button's timer, a web request), any number
    of times: only the first counts. ``stop`` ends the server (in ``companion serve``: a
    SIGTERM to itself, whose handler closes everything); ``power_off`` is called after that."""

    def __init__(
        self,
        table: StopsPlay,
        voice: Quiet,
        stop: Callable[[], None],
        command: Sequence[str] = (),
        run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
    ) -> None:
        self._table = table
        self._voice = voice
        self._stop = stop
        self.command = tuple(command)
        self._run = run
        self._lock = threading.Lock()
        self.requested_by: str | None = None

    @property
    def requested(self) -> bool:
        return self.requested_by is not None

    def request(self, by: str) -> bool:
        """Begin the shutdown (``by`` names who asked, for the log). False if already begun."""
        with self._lock:
            if self.requested_by is not None:
                return False
            self.requested_by = by
        log.info("shutting down (asked by %s)", by)
        self._table.stop_play()
        self._table.notice(self._table.text("general.shutting_down"))
        threading.Thread(target=self._stop_when_said, name="shutdown", daemon=True).start()
        return True

    def _stop_when_said(self) -> None:
        if not self._voice.wait_idle(SAID_WITHIN):
            log.warning("the goodbye sentence took over %.0f s; stopping anyway", SAID_WITHIN)
        self._stop()

    def power_off(self) -> bool:
        """Run the power-off command, if a shutdown was requested and a command is set. True
        when it ran and succeeded. Call it once everything is closed."""
        if not self.requested or not self.command:
            return False
        try:
            done = self._run(
                list(self.command), capture_output=True, text=True, timeout=COMMAND_TIMEOUT
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.error("the power-off command %s could not run: %s", " ".join(self.command), exc)
            return False
        if done.returncode != 0:
            log.error(
                "the power-off command %s failed (exit %d): %s; the companion has stopped, "
                "the computer is still on",
                " ".join(self.command),
                done.returncode,
                done.stderr.strip(),
            )
            return False
        return True
