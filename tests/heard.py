"""The real narrator for the tests: ``voice.narrator.Narrator`` itself (its worker thread, its
scripts, their cues and their ``then``, so that a night ends as it does at the table), speaking
to a speech that notes every line; its pauses are noted, not waited (or held by the test, with
``sleep``).

``said`` is what was said so far, read once everything queued has been said. Every narrator
made here is closed after its test (``tests/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from voice.narrator import Narrator

_made: list[HeardNarrator] = []


class Ears:
    """A speech (``voice.speech.Speech``) that notes what it is given to say, in the narrator's
    thread; ``on_line`` is called with each line before it is noted."""

    name = "ears"

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.on_line: Callable[[str], object] | None = None

    def speak(self, text: str, lang: str) -> None:
        if self.on_line is not None:
            self.on_line(text)
        self.lines.append(text)


class HeardNarrator(Narrator):
    """The real Narrator, heard by ``Ears``: ``paused`` notes each pause it keeps (``sleep``,
    if given, is called too: a test may hold the narration there)."""

    def __init__(self, sleep: Callable[[float], object] | None = None) -> None:
        self.ears = Ears()
        self.paused: list[float] = []

        def pause(seconds: float) -> None:
            self.paused.append(seconds)
            if sleep is not None:
                sleep(seconds)

        super().__init__(lambda: self.ears, sleep=pause)
        _made.append(self)

    @property
    def said(self) -> list[str]:
        """Every line said so far, once all that was queued has been said."""
        assert self.wait_idle(10), "the narrator is still talking after 10 s"
        return list(self.ears.lines)


def all_said(table: object) -> None:
    """Wait until ``table``'s narrator (a HeardNarrator) has said everything queued: a night, to
    its end (its last cue ends the night, and play begins)."""
    voice = getattr(table, "voice", None)
    assert isinstance(voice, HeardNarrator), f"{table!r} is not narrated by a HeardNarrator"
    assert voice.wait_idle(10), "the narrator is still talking after 10 s"


def close_all() -> None:
    """Close every narrator made since the last call (their threads end)."""
    while _made:
        _made.pop().close()
