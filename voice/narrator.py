"""The narrator: one worker thread that speaks lines and keeps pauses, in order.

Callers never wait for speech: ``say`` and ``script`` only queue, so a button pressed while the
companion talks is handled at once. A script is queued whole, so no other line can fall between
its lines. Pauses are exactly the lengths given (``sleep`` is injected so tests need not wait).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable

from companion.narration.script import Cue, Line, Pause
from voice.speech import ConsoleSpeech, Speech

log = logging.getLogger(__name__)

_Queued = tuple[tuple[Line | Pause | Cue, ...], str]


class Narrator:
    def __init__(
        self,
        make_speech: Callable[[], Speech] = ConsoleSpeech,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._make_speech = make_speech
        self._sleep = sleep
        self._queue: queue.Queue[_Queued | None] = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self.failures = 0
        self._thread = threading.Thread(target=self._run, name="narrator", daemon=True)
        self._thread.start()

    def say(self, text: str, lang: str) -> None:
        self._put(((Line(text),), lang))

    def script(
        self,
        items: Iterable[Line | Pause | Cue],
        lang: str,
        then: Callable[[], None] | None = None,
    ) -> None:
        whole = (*items, *([Cue(then)] if then is not None else []))
        self._put((whole, lang))

    def wait_idle(self, timeout: float | None = None) -> bool:
        """True once everything queued has been spoken (for tests and orderly shutdown)."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=5)

    def _put(self, item: _Queued) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put(item)

    def _run(self) -> None:
        try:
            speech = self._make_speech()  # created here: pyttsx3 engines belong to one thread
        except Exception:
            # Without this the worker would die and nothing queued would ever be said, nor any
            # ``then`` callback run (a game would stay in its night phase for ever).
            self.failures += 1
            log.exception("the speech engine does not start; narrating to the console")
            speech = ConsoleSpeech()
        while True:
            item = self._queue.get()
            if item is None:
                return
            items, lang = item
            for what in items:
                self._perform(speech, what, lang)
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()

    def _perform(self, speech: Speech, what: Line | Pause | Cue, lang: str) -> None:
        try:
            if isinstance(what, Line):
                speech.speak(what.text, lang)
            elif isinstance(what, Pause):
                self._sleep(what.seconds)
            else:
                what.callback()
        except Exception:
            self.failures += 1
            log.exception("narration failed; the game goes on")
