"""``companion voices``: which Piper voice speaks each language, installing the pinned ones, and
warming the cache of fixed lines; and ``companion say`` with the configured voice."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from appliance.wiring import natural_voice
from companion.config import Config
from voice.cache import WavCache
from voice.speech import Pyttsx3Speech, Speech, choose_speech, espeak_or_console
from voice.voices import PINNED, VoiceProblem, download, find_voice, install_voice

log = logging.getLogger(__name__)
Print = Callable[[str], None]
HOW_TO_ADD = (
    "add them with: companion voices install (from the internet), or "
    "companion voices install --from FOLDER (NAME.onnx and NAME.onnx.json on a USB stick)"
)


def describe(config: Config, out: Print) -> int:
    """Each language's voice, found or not; 0 when both are installed, 1 otherwise."""
    missing = 0
    for lang, choice in config.piper_voices.items():
        try:
            found = find_voice(choice, config.voices_folder, lang)
        except VoiceProblem as exc:
            out(f"{lang}: {choice}: unusable: {exc}")
            missing += 1
            continue
        if found is None:
            out(f"{lang}: {choice}: not installed (espeak-ng speaks {lang})")
            missing += 1
        else:
            out(f"{lang}: {choice}: {found.model}")
    cached = WavCache(config.voice_cache).count()
    out(f"voices folder: {config.voices_folder}")
    out(f"{cached} fixed lines cached in {config.voice_cache}")
    if missing:
        out(HOW_TO_ADD)
    return 1 if missing else 0


def install(
    config: Config,
    out: Print,
    names: Sequence[str] = (),
    source: Path | None = None,
    offline: bool = False,
) -> int:
    """Install the named pinned voices (default: those ``[voice.piper]`` names); 0 if all are
    there afterwards. A voice given as a path is the owner's own: nothing to install."""
    wanted = list(names) or [v for v in config.piper_voices.values() if v in PINNED]
    failed = 0
    for name in wanted:
        try:
            done = install_voice(name, config.voices_folder, source, None if offline else download)
        except VoiceProblem as exc:
            out(f"{name}: NOT INSTALLED: {exc}")
            failed += 1
        else:
            out(f"{name}: {done.how} ({done.voice.model})")
    return 1 if failed else 0


def open_voice(config: Config) -> Speech:
    """The configured engine, as the companion opens it (Piper only where a voice is)."""
    return choose_speech(config.speech, config.speech_rate, natural_voice(config))[0]


def warm(config: Config, out: Print, lines: Sequence[tuple[str, str]]) -> int:
    """Synthesize the fixed lines into the cache now (the companion otherwise does it when
    idle); prints how many and how long."""
    piper = natural_voice(config)(lambda: espeak_or_console(config.speech_rate), False)
    if piper is None:
        out(f"no Piper voice is installed: nothing to warm; {HOW_TO_ADD}")
        return 1
    started = time.perf_counter()
    before = WavCache(config.voice_cache).count()
    for text, lang in lines:
        piper.warm(text, lang)
    made = WavCache(config.voice_cache).count() - before
    langs = ", ".join(sorted(piper.voices))
    out(
        f"{made} lines synthesized into {config.voice_cache} in "
        f"{time.perf_counter() - started:.1f} s (voices for: {langs})"
    )
    return 0


def say_to_wav(config: Config, text: str, lang: str, path: Path) -> str:
    """Write ``text`` as the companion would say it to ``path`` (no sound card needed): with
    its Piper voice for ``lang`` if one is installed and the engine allows, else espeak-ng.
    Gives the engine used."""
    path.parent.mkdir(parents=True, exist_ok=True)
    piper = None
    if config.speech in ("auto", "piper"):
        piper = natural_voice(config)(lambda: espeak_or_console(config.speech_rate), False)
    if piper is not None and lang in piper.voices:
        try:
            path.write_bytes(piper.synthesize(piper.voices[lang], text))
            return f"piper ({piper.voices[lang].name})"
        except Exception:  # a voice that does not load: as the companion, espeak-ng says it
            log.exception("Piper could not say it; espeak-ng does")
    Pyttsx3Speech(config.speech_rate).save(text, lang, path)
    return "espeak-ng"
