"""The narrator: one worker thread that speaks lines and keeps pauses, in order.

Callers never wait for speech: ``say`` and ``script`` only queue, so a button pressed while the
companion talks is handled at once. A script is queued whole, so no other line can fall between
its lines. Pauses are exactly the lengths given (``sleep`` is injected so tests need not wait).

**When the voice fails.** A line that cannot be spoken (espeak-ng removed, aplay failing, the
engine raising) is skipped, and the narration goes on: every line is on the page already. The
narrator calls ``on_failure(at_start)`` once for a run of such failures (``at_start``: the engine
did not even start), not once per line; a line spoken fine ends the run, so a later failure is
reported again.

**When a game is abandoned.** ``hush()`` drops everything queued and not yet said, and stops a
script after the line being spoken (a line already in the air ends: speech engines cannot be cut
mid-word everywhere); what is queued after ``hush()`` is said as usual.
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

_Queued = tuple[tuple[Line | Pause | Cue, ...], str, int]  # items, language, generation


class Narrator:
    def __init__(
        self,
        make_speech: Callable[[], Speech] = ConsoleSpeech,
        sleep: Callable[[float], None] = time.sleep,
        on_failure: Callable[[bool], object] | None = None,
    ) -> None:
        self._make_speech = make_speech
        self._sleep = sleep
        self._on_failure = on_failure
        self._failing = False  # in a run of lines that could not be spoken
        self._queue: queue.Queue[_Queued | None] = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._generation = 0  # moved on by hush(): what was queued before is not said
        self._lock = threading.Lock()
        self.failures = 0
        self._thread = threading.Thread(target=self._run, name="narrator", daemon=True)
        self._thread.start()

    def say(self, text: str, lang: str) -> None:
        self._put((Line(text),), lang)

    def script(
        self,
        items: Iterable[Line | Pause | Cue],
        lang: str,
        then: Callable[[], None] | None = None,
    ) -> None:
        whole = (*items, *([Cue(then)] if then is not None else []))
        self._put(whole, lang)

    def hush(self) -> None:
        """Say nothing more of what is queued now (a game replaced by another): the lines and
        pauses not yet begun are dropped, and so are their scripts' ``then`` callbacks."""
        with self._lock:
            self._generation += 1

    def wait_idle(self, timeout: float | None = None) -> bool:
        """True once everything queued has been spoken (for tests and orderly shutdown)."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=5)

    def _put(self, items: tuple[Line | Pause | Cue, ...], lang: str) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
            self._queue.put((items, lang, self._generation))

    def _run(self) -> None:
        try:
            speech = self._make_speech()  # created here: pyttsx3 engines belong to one thread
        except Exception:
            # Without this the worker would die and nothing queued would ever be said, nor any
            # ``then`` callback run (a game would stay in its night phase for ever).
            self.failures += 1
            log.exception("the speech engine does not start; narrating to the console")
            speech = ConsoleSpeech()
            self._voice_failed(at_start=True)
        while True:
            item = self._queue.get()
            if item is None:
                return
            items, lang, generation = item
            for what in items:
                if generation != self._generation:  # hushed: the rest is not said
                    break
                self._perform(speech, what, lang)
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()

    def _perform(self, speech: Speech, what: Line | Pause | Cue, lang: str) -> None:
        if isinstance(what, Line):
            try:
                speech.speak(what.text, lang)
            except Exception:
                self.failures += 1
                log.exception("narration failed: a line was not spoken; it goes on as text")
                self._voice_failed(at_start=False)
            else:
                self._failing = False
            return
        try:
            if isinstance(what, Pause):
                self._sleep(what.seconds)
            else:
                what.callback()
        except Exception:
            self.failures += 1
            log.exception("narration failed; the game goes on")

    def _voice_failed(self, at_start: bool) -> None:
        if self._failing:
            return
        self._failing = True
        if self._on_failure is not None:
            try:
                self._on_failure(at_start)
            except Exception:
                log.exception("the voice's failure could not be reported")
