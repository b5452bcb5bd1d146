"""Speech written to a WAV file, and a measure of what is in it (duration, loudness)."""

from __future__ import annotations

import array
import math
import wave
from dataclasses import dataclass
from pathlib import Path

from voice.speech import Pyttsx3Speech


@dataclass(frozen=True)
class Loudness:
    seconds: float
    rms: float  # root mean square of the samples, 0..1 of full scale
    voiced_share: float  # share of 20 ms windows louder than -40 dBFS


def write_wav(text: str, lang: str, path: Path, rate: int = 165) -> Loudness:
    path.parent.mkdir(parents=True, exist_ok=True)
    Pyttsx3Speech(rate).save(text, lang, path)
    return measure(path)


def measure(path: Path) -> Loudness:
    with wave.open(str(path), "rb") as wav:
        if wav.getsampwidth() != 2:
            raise ValueError(f"{path}: expected 16-bit samples")
        frames = wav.readframes(wav.getnframes())
        rate, channels = wav.getframerate(), wav.getnchannels()
    samples = array.array("h", frames)
    if not samples:
        return Loudness(0.0, 0.0, 0.0)
    full = 32768.0
    rms = math.sqrt(sum(s * s for s in samples) / len(samples)) / full
    window = max(1, rate * channels // 50)
    threshold = full * 10 ** (-40 / 20)
    windows = [samples[i : i + window] for i in range(0, len(samples), window)]
    loud = sum(1 for w in windows if math.sqrt(sum(s * s for s in w) / len(w)) > threshold)
    return Loudness(len(samples) / channels / rate, rms, loud / len(windows))
