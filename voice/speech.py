"""Speech engines. ``Pyttsx3Speech`` drives espeak-ng through pyttsx3; ``ConsoleSpeech`` prints;
Piper, the natural voice, is in ``voice.piper_speech`` and falls back on espeak-ng.

pyttsx3 2.99 drops utterances queued before ``runAndWait`` (its issues #402, #419, #440), so
this speaks exactly one utterance per ``runAndWait``, always from the thread that created the
engine (the narrator's worker). French or English voices are chosen by language, not by id.
"""

from __future__ import annotations

import contextlib
import io
import logging
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TextIO

log = logging.getLogger(__name__)


class SpeechUnavailable(RuntimeError):
    """No speech engine can run here (pyttsx3 or espeak-ng missing, or no voice for a language)."""


class Speech(Protocol):
    name: str

    def speak(self, text: str, lang: str) -> None: ...


class ConsoleSpeech:
    """Narration as text lines, when there is no speech engine (or in tests)."""

    name = "console"

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream

    def speak(self, text: str, lang: str) -> None:
        print(f"[{lang}] {text}", file=self.stream or sys.stdout, flush=True)


class Pyttsx3Speech:
    """espeak-ng through pyttsx3. ``pyttsx3.init()`` gives the whole process one engine: use
    this from one thread only (the narrator's worker)."""

    name = "pyttsx3"

    def __init__(self, rate: int = 165) -> None:
        try:
            import pyttsx3
        except ImportError as exc:
            raise SpeechUnavailable("pyttsx3 is not installed: pip install pyttsx3") from exc
        try:
            self._engine: Any = pyttsx3.init()
        except Exception as exc:  # pyttsx3 raises bare OSError/RuntimeError from its drivers
            raise SpeechUnavailable(
                f"the speech engine does not start ({exc}): install espeak-ng "
                "(sudo apt install espeak-ng)"
            ) from exc
        if self._engine.proxy.isBusy():
            # A new engine holds every command until its first loop; run that loop once, empty,
            # so that the voice and rate set later reach espeak-ng before an utterance starts.
            self._settle()
            self._engine.runAndWait()
        self._rate = rate
        self._voices: dict[str, str] = {}

    def voice_for(self, lang: str) -> str:
        """The id of a voice speaking ``lang`` ("fr" or "en"): an exact match first."""
        if lang not in self._voices:
            candidates = []
            for voice in self._engine.getProperty("voices"):
                for spoken in voice.languages or []:
                    code = spoken.decode("ascii", "ignore") if isinstance(spoken, bytes) else spoken
                    code = code.lstrip("\x05").lower()
                    if code == lang or code.startswith(lang + "-"):
                        rank = 0 if code in (lang, f"{lang}-fr", f"{lang}-gb") else 1
                        candidates.append((rank, voice.id))
            if not candidates:
                raise SpeechUnavailable(f"no {lang} voice is installed for espeak-ng")
            self._voices[lang] = min(candidates)[1]
        return self._voices[lang]

    def _use(self, lang: str) -> None:
        """Set voice and rate before every utterance: ``pyttsx3.init()`` hands every caller in
        the process the same engine, so another instance may have changed them since."""
        self._engine.setProperty("voice", self.voice_for(lang))
        self._engine.setProperty("rate", self._rate)
        self._settle()

    def _settle(self) -> None:
        """Wait until espeak-ng has applied what it was sent. It queues a rate change (its voice
        change is immediate), and pyttsx3 2.99's ``runAndWait`` starts by calling
        ``espeak_Cancel`` whenever espeak-ng is still busy, which drops that queued change and
        restores the previous rate: without this wait, the rate was randomly ignored."""
        espeak = getattr(getattr(self._engine.proxy, "_module", None), "_espeak", None)
        if espeak is not None:
            espeak.Synchronize()

    def speak(self, text: str, lang: str) -> None:
        self._use(lang)
        self._engine.say(text)
        self._engine.runAndWait()

    def save(self, text: str, lang: str, path: Path) -> None:
        self._use(lang)
        self._engine.save_to_file(text, str(path))
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # pyttsx3 prints "Audio saved to"
                self._engine.runAndWait()
        finally:
            self._forget_save_file()

    def _forget_save_file(self) -> None:
        """pyttsx3 2.99's espeak driver keeps the last ``save_to_file`` name for ever: every
        later ``say`` on the (shared) engine would silently overwrite that file instead of
        playing. Clear it."""
        driver = getattr(getattr(self._engine, "proxy", None), "_driver", None)
        if driver is not None and hasattr(driver, "_save_file"):
            driver._save_file = None


SOUND_CARDS = Path("/proc/asound/cards")


def has_sound_card() -> bool:
    """Whether ALSA sees any sound card (it lists "--- no soundcards ---" when it sees none)."""
    try:
        cards = SOUND_CARDS.read_text()
    except OSError:
        return False
    return bool(cards.strip()) and "no soundcards" not in cards


def espeak_or_console(rate: int = 165) -> Speech:
    """espeak-ng if it runs here, else the console (Piper's fallback)."""
    try:
        return Pyttsx3Speech(rate)
    except SpeechUnavailable as exc:
        log.warning("espeak-ng does not run (%s): lines Piper cannot say are printed", exc)
        return ConsoleSpeech()


def choose_speech(
    preference: str = "auto",
    rate: int = 165,
    natural: Callable[[Callable[[], Speech], bool], Speech | None] | None = None,
) -> tuple[Speech, str | None]:
    """The engine to narrate with, and a warning to show once if speech is not available.

    ``natural(fallback, required)`` opens Piper with the voices installed (``fallback``: the
    engine for what it cannot say); it gives None when no voice is installed and Piper is not
    ``required`` ("auto": espeak-ng then speaks everything, as before Piper)."""
    if preference == "console":
        return ConsoleSpeech(), None
    try:
        if sys.platform.startswith("linux"):
            if shutil.which("aplay") is None:
                raise SpeechUnavailable(
                    "the voice plays through aplay, which is missing: sudo apt install alsa-utils"
                )
            if not has_sound_card():
                raise SpeechUnavailable(
                    "no sound card was found: plug in a speaker (or a USB sound card) and restart"
                )
        if natural is not None and preference in ("auto", "piper"):
            engine = natural(lambda: espeak_or_console(rate), preference == "piper")
            if engine is not None:
                return engine, None
        return Pyttsx3Speech(rate), None
    except SpeechUnavailable as exc:
        if preference in ("pyttsx3", "piper"):
            raise
        return ConsoleSpeech(), str(exc)
