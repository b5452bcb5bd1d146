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

**Prepared ahead.** An engine that synthesizes before it plays (Piper: ``prepare(text, lang)``
gives something to ``play()``) has every line prepared by a second thread as soon as it is
queued, in order, while earlier lines play: a line with names is ready when its turn comes. A
script waits until all its lines are prepared before its first is played, so a line slow to
synthesize delays the start of a secret phase, never a pause within it. ``warm`` asks for fixed
lines to be prepared (and cached) when nothing else waits.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

from companion.narration.script import Cue, Line, Pause
from voice.speech import ConsoleSpeech, Speech

log = logging.getLogger(__name__)

_Queued = tuple[tuple[Line | Pause | Cue, ...], str, int, dict[int, Future[Any]]]
# items, language, generation, and the preparation of each line (by its index in items)
# The preparer's order: the lines to say, then (on close) stopping, else warming.
_LIVE, _STOP, _WARM = 0, 1, 2


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
        self._speech: Speech | None = None  # made by the worker thread
        self._ready = threading.Event()  # set once it is
        self._to_prepare: queue.PriorityQueue[tuple[int, int, Any]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._warming = 0
        self._warmed = threading.Condition(self._lock)
        self._thread = threading.Thread(target=self._run, name="narrator", daemon=True)
        self._thread.start()
        self._preparer = threading.Thread(target=self._prepare, name="preparer", daemon=True)
        self._preparer.start()

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

    def warm(self, lines: Iterable[tuple[str, str]]) -> None:
        """Prepare these (text, language) lines when nothing else is to be prepared, for an
        engine that caches its fixed lines (``warm(text, lang)``); for others, nothing."""
        with self._lock:
            for line in lines:
                self._warming += 1
                self._to_prepare.put((_WARM, next(self._order), line))

    def wait_warm(self, timeout: float | None = None) -> bool:
        """True once every line given to ``warm`` has been prepared (for tests and tools)."""
        with self._warmed:
            return self._warmed.wait_for(lambda: self._warming == 0, timeout)

    def close(self) -> None:
        self._queue.put(None)
        self._to_prepare.put((_STOP, next(self._order), None))
        self._thread.join(timeout=5)
        self._preparer.join(timeout=5)

    def _put(self, items: tuple[Line | Pause | Cue, ...], lang: str) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
            prepared: dict[int, Future[Any]] = {}
            for index, item in enumerate(items):
                if isinstance(item, Line):
                    prepared[index] = Future()
                    job = (item.text, lang, self._generation, prepared[index])
                    self._to_prepare.put((_LIVE, next(self._order), job))
            self._queue.put((items, lang, self._generation, prepared))

    def _prepare(self) -> None:
        """The preparer's loop: the lines queued to be said, in order, then the warming."""
        self._ready.wait()
        speech = self._speech
        prepare = getattr(speech, "prepare", None)
        warm = getattr(speech, "warm", None)
        while True:
            priority, _, job = self._to_prepare.get()
            if priority == _STOP:
                return
            if priority == _WARM:
                try:
                    if warm is not None:
                        warm(*job)
                except Exception:
                    log.exception("a line could not be prepared ahead")
                with self._warmed:
                    self._warming -= 1
                    self._warmed.notify_all()
                continue
            text, lang, generation, future = job
            if prepare is None or generation != self._generation:
                future.set_result(None)  # said directly, or not at all (hushed)
                continue
            try:
                future.set_result(prepare(text, lang))
            except Exception as exc:
                future.set_exception(exc)

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
        self._speech = speech
        self._ready.set()
        while True:
            item = self._queue.get()
            if item is None:
                return
            items, lang, generation, prepared = item
            for future in prepared.values():  # a script starts once all its lines are ready
                if generation == self._generation:
                    future.exception()
            for index, what in enumerate(items):
                if generation != self._generation:  # hushed: the rest is not said
                    break
                self._perform(speech, what, lang, prepared.get(index))
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()

    def _perform(
        self, speech: Speech, what: Line | Pause | Cue, lang: str, prepared: Future[Any] | None
    ) -> None:
        if isinstance(what, Line):
            try:
                ready = prepared.result() if prepared is not None else None
                if ready is None:
                    speech.speak(what.text, lang)
                else:
                    ready.play()
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
