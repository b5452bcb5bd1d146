"""Piper, a neural voice that runs on a Pi's CPU, beside espeak-ng.

``PiperSpeech.prepare`` turns a line into a ``Clip`` (a WAV in memory) ready to be played;
``Clip.play`` plays it through ``aplay`` (on the card ``[voice] output`` chose). The narrator
prepares lines ahead of the one being played, and a whole script before its first line, so that
synthesis never stretches a pause of a secret phase. Lines whose words never change are kept in
a ``WavCache``, once per voice: the night plays from disk.

**Fallback.** A language with no Piper voice, a voice that does not load, or a line whose
synthesis fails is spoken by espeak-ng (``fallback``, made on first need in the thread that
plays, as pyttsx3 requires). ``on_fallback(lang, why)`` is called once per language and reason
("no_voice", "failed"), so the table is told once, not at every line.
"""

from __future__ import annotations

import io
import logging
import subprocess
import threading
import wave
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from voice.cache import WavCache
from voice.speech import Speech, SpeechUnavailable
from voice.voices import VoiceFiles, VoiceProblem, find_voice

log = logging.getLogger(__name__)

Player = Callable[[bytes], None]


class Utterance(Protocol):
    def play(self) -> None: ...


def aplay(device: str | None = None) -> Player:
    """Plays a WAV through ALSA's ``aplay`` (``device``: e.g. "null" plays to nowhere), which
    reads ``ALSA_CARD`` as espeak-ng's does. Raises with aplay's own words when it fails."""
    argv = ["aplay", "-q", *(["-D", device] if device else []), "-"]

    def play(wav: bytes) -> None:
        try:
            done = subprocess.run(argv, input=wav, capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SpeechUnavailable(f"aplay does not play: {exc}") from exc
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip()
            raise SpeechUnavailable(f"aplay failed: {said or done.returncode}")

    return play


@dataclass(frozen=True)
class Clip:
    """A synthesized line: a 16-bit mono WAV, and how to play it."""

    wav: bytes
    player: Player
    cached: bool = False  # read from the cache, not synthesized now

    @property
    def seconds(self) -> float:
        with wave.open(io.BytesIO(self.wav)) as w:
            return float(w.getnframes() / w.getframerate())

    def play(self) -> None:
        self.player(self.wav)


@dataclass(frozen=True)
class Spoken:
    """A line for the fallback engine, spoken when its turn comes."""

    speech: PiperSpeech
    text: str
    lang: str

    def play(self) -> None:
        self.speech.fallback_speech().speak(self.text, self.lang)


def synthesis_settings(length_scale: float) -> str:
    return f"piper length_scale={length_scale:.3f}"


class PiperSpeech:
    name = "piper"

    def __init__(
        self,
        voices: Mapping[str, VoiceFiles],
        fallback: Callable[[], Speech],
        player: Player | None = None,
        cache: WavCache | None = None,
        fixed: Callable[[str, str], bool] = lambda text, lang: False,
        rate: int = 165,
        on_fallback: Callable[[str, str], object] | None = None,
    ) -> None:
        """``voices``: the voice of each language that has one; ``fixed(text, lang)``: whether a
        line's words never change (only those are cached); ``rate``: words per minute, as for
        espeak-ng (165 is the voice's own pace)."""
        self.voices = dict(voices)
        self._make_fallback = fallback
        self._fallback: Speech | None = None
        self._player = player or aplay()
        self.cache = cache
        self._fixed = fixed
        self.length_scale = 165 / rate
        self._settings = synthesis_settings(self.length_scale)
        self._on_fallback = on_fallback
        self._told: set[tuple[str, str]] = set()
        self._loaded: dict[str, Any] = {}
        self._broken: set[str] = set()
        self._lock = threading.Lock()  # one synthesis at a time: onnxruntime sessions are big

    def fallback_speech(self) -> Speech:
        if self._fallback is None:
            self._fallback = self._make_fallback()
        return self._fallback

    def speak(self, text: str, lang: str) -> None:
        self.prepare(text, lang).play()

    def prepare(self, text: str, lang: str) -> Utterance:
        """A line ready to play: from the cache, synthesized, or for the fallback engine."""
        voice = self.voices.get(lang)
        if voice is None:
            self._fell_back(lang, "no_voice")
            return Spoken(self, text, lang)
        try:
            return self._clip(voice, text, lang)
        except Exception:
            log.exception("Piper could not say a line in %s; espeak-ng says it", lang)
            self._fell_back(lang, "failed")
            return Spoken(self, text, lang)

    def warm(self, text: str, lang: str) -> None:
        """Load the language's voice and synthesize a fixed line into the cache, ahead of need
        (nothing for a language with no voice: it says nothing to the table)."""
        voice = self.voices.get(lang)
        if voice is None:
            return
        self._load(voice)  # loaded now, not at the first line with names, even if all is cached
        if self.cache is not None and self._fixed(text, lang):
            self._clip(voice, text, lang)

    def synthesize(self, voice: VoiceFiles, text: str) -> bytes:
        loaded = self._load(voice)
        from piper import SynthesisConfig

        out = io.BytesIO()
        with self._lock, wave.open(out, "wb") as wav:
            loaded.synthesize_wav(text, wav, SynthesisConfig(length_scale=self.length_scale))
        return out.getvalue()

    def _clip(self, voice: VoiceFiles, text: str, lang: str) -> Clip:
        keep = self.cache is not None and self._fixed(text, lang)
        if keep:
            assert self.cache is not None
            wav = self.cache.get(voice.key, self._settings, text)
            if wav is not None:
                return Clip(wav, self._player, cached=True)
        wav = self.synthesize(voice, text)
        if keep:
            assert self.cache is not None
            self.cache.put(voice.key, self._settings, text, wav)
        return Clip(wav, self._player)

    def _load(self, voice: VoiceFiles) -> Any:
        if voice.name in self._broken:
            raise SpeechUnavailable(f"the Piper voice {voice.name} does not load")
        with self._lock:
            if voice.name not in self._loaded:
                try:
                    from piper import PiperVoice

                    self._loaded[voice.name] = PiperVoice.load(voice.model, voice.config)
                except Exception:
                    self._broken.add(voice.name)
                    raise
            return self._loaded[voice.name]

    def _fell_back(self, lang: str, why: str) -> None:
        if (lang, why) in self._told:
            return
        self._told.add((lang, why))
        log.warning("no Piper voice speaks %s (%s): espeak-ng does", lang, why)
        if self._on_fallback is not None:
            try:
                self._on_fallback(lang, why)
            except Exception:
                log.exception("the voice's fallback could not be told")


def open_piper(
    choices: Mapping[str, str],
    folder: Path,
    fallback: Callable[[], Speech],
    required: bool = False,
    **options: Any,
) -> PiperSpeech | None:
    """Piper with the voice ``[voice.piper]`` names for each language that has one installed;
    None if none is (or piper-tts is missing) and Piper is not ``required``. ``options`` go to
    ``PiperSpeech``."""
    voices: dict[str, VoiceFiles] = {}
    try:
        import piper  # noqa: F401
    except ImportError:
        log.warning("piper-tts is not installed: pip install piper-tts")
    else:
        for lang, choice in choices.items():
            try:
                found = find_voice(choice, folder, lang)
            except VoiceProblem as exc:
                log.warning("the Piper voice for %s is unusable: %s", lang, exc)
                continue
            if found is None:
                log.info("no Piper voice %s in %s (companion voices install)", choice, folder)
            else:
                voices[lang] = found
    if not voices and not required:
        return None
    return PiperSpeech(voices, fallback, **options)
