"""Measure the companion's speed and print a Markdown table for docs/PERFORMANCE.md.

    .venv/bin/python benchmarks/run.py

Figures: engine actions per second, an accepted action's journal write (SQLite, WAL,
synchronous=FULL), the time from a press on the HTTP panel to the SSE event at a client on
loopback, speech synthesis per sentence (espeak-ng to WAV), start-up of `companion --help`, and
start-up of `companion serve` up to its first answer (and how that splits: imports, ``build``).
Numbers are for the machine they ran on; a Raspberry Pi 4 is roughly 5 times slower.
"""

from __future__ import annotations

import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # serving.py: the host's logged-in HTTP client

from serving import write_config  # noqa: E402

from companion.games.resistance.engine import Resistance  # noqa: E402
from companion.games.resistance.state import Card, CastVote, Phase, PlayMissionCard  # noqa: E402
from companion.journal import Journal  # noqa: E402
from companion.moderator import Table  # noqa: E402


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def random_game_actions(seed: int) -> tuple[dict, list]:
    game, rng = Resistance(), random.Random(seed)
    options = {"players": 7}
    state = game.new(options, seed)
    actions = []
    while state.outcome is None:
        if state.phase is Phase.PROPOSE:
            action = rng.choice(list(game.legal_actions(state, state.commander)))
        elif state.phase is Phase.VOTE:
            seat = state.votes.index(None)
            action = CastVote(seat, rng.random() < 0.7)
        elif state.phase is Phase.MISSION:
            seat = next(s for s in state.squad if state.cards[s] is None)
            action = PlayMissionCard(seat, Card.FAIL if rng.random() < 0.3 else Card.SUCCESS)
        else:
            action = next(game.legal_actions(state, None))
        state, _ = game.apply(state, action)
        actions.append(action)
    return options, actions


def bench_engine() -> str:
    game = Resistance()
    games = [random_game_actions(seed) for seed in range(200)]
    count, start = 0, time.perf_counter()
    for options, actions in games:
        state = game.new(options, 0)
        for action in actions:
            state, _ = game.apply(state, action)
            game.public_view(state)
            count += 1
    elapsed = time.perf_counter() - start
    return (
        f"| Résistance engine: apply + public view | {count / elapsed:,.0f} actions/s | "
        f"{count} actions of 200 random 7-player games |"
    )


class Quiet:
    def say(self, text: str, lang: str) -> None:
        pass

    def script(self, items, lang, then=None) -> None:  # type: ignore[no-untyped-def]
        if then:
            then()


def bench_journal() -> str:
    """An accepted action, and within it the thread kept for a restart (a second synchronous
    write, made when what the page shows changed)."""
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder) / "j.sqlite3")
        table = Table(journal, Quiet(), seats=7)
        options, actions = random_game_actions(1)
        table.new_game("resistance", options, seed=1)
        threads: list[float] = []
        save_thread = journal.save_thread

        def timed_save(*args: Any) -> None:
            start = time.perf_counter()
            save_thread(*args)
            threads.append((time.perf_counter() - start) * 1000)

        journal.save_thread = timed_save  # type: ignore[method-assign]
        samples = []
        for action in actions[1:]:
            start = time.perf_counter()
            table.submit(action)
            samples.append((time.perf_counter() - start) * 1000)
    median, p95 = percentiles(samples)
    thread_median, thread_p95 = percentiles(threads)
    return (
        f"| Accepted action: engine + journal write (fsync) + publish | "
        f"median {median:.2f} ms, p95 {p95:.2f} ms | {len(samples)} actions, local disk |\n"
        f"| of which the thread kept for a restart (a second write) | "
        f"median {thread_median:.2f} ms, p95 {thread_p95:.2f} ms | "
        f"{len(threads)} of the {len(samples)} actions changed what the page shows |"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


PIN = "2468"  # the host PIN of the benchmark's config: the host page is locked


def post(url: str, body: dict) -> None:
    """A POST as the host: the session cookie and the CSRF token (``tests/serving.py``)."""
    from serving import Client

    base, _, path = url.partition("/api/")
    client = HOSTS.get(base)
    if client is None:
        client = HOSTS[base] = Client(base)
        status, page = client.login(PIN)
        assert status == 200 and client.csrf, page[:300]
    status, answer = client.post("/api/" + path, body)
    assert status < 300, answer


HOSTS: dict[str, Any] = {}


def bench_sse() -> str:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "c.toml"
        config.write_text(
            f'data_dir = "{folder}/data"\n[voice]\nengine = "console"\n'
            "[buttons]\nbounce_ms = 0\n[narration.pauses]\nintro = 0\n"
            "close_eyes = 0\ncylons_open = 0\ncylons_close = 0\n"
            f'[host]\npin = "{PIN}"\n'
        )
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "appliance.cli",
                "serve",
                "--config",
                str(config),
                "--port",
                str(port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(200):
                try:
                    urllib.request.urlopen(url + "/api/state", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.05)
            post(url + "/api/games", {"options": {"players": 5, "isolated_cylons": True}})
            arrivals: dict[int, float] = {}
            got = threading.Condition()

            def listen() -> None:
                with urllib.request.urlopen(url + "/api/events", timeout=30) as stream:
                    for raw in stream:
                        line = raw.decode()
                        if line.startswith("data: "):
                            snap = json.loads(line[6:])
                            with got:
                                arrivals.setdefault(snap["version"], time.perf_counter())
                                got.notify_all()

            threading.Thread(target=listen, daemon=True).start()
            time.sleep(0.5)
            samples: list[float] = []
            while len(samples) < 100:
                snap = json.loads(urllib.request.urlopen(url + "/api/state").read())
                state, version = snap["state"], snap["version"]
                if state["outcome"] is not None:
                    post(url + "/api/games", {"options": {"players": 5, "isolated_cylons": True}})
                    continue
                if state["phase"] == "propose":
                    for seat in range(state["squad_size"]):  # name the squad: no new version
                        post(url + "/api/press", {"seat": seat, "button": "A"})
                    seat = state["commander"]  # ... and the confirmation is timed
                elif state["phase"] == "vote":
                    seat = next(s for s in range(5) if s not in state["voted"])
                else:
                    seat = next(s for s in state["squad"] if s not in state["played"])
                start = time.perf_counter()
                post(url + "/api/press", {"seat": seat, "button": "A"})
                with got:
                    got.wait_for(lambda v=version: v + 1 in arrivals, timeout=5)
                    samples.append((arrivals[version + 1] - start) * 1000)
                    arrivals.clear()
        finally:
            server.terminate()
            server.wait(10)
    median, p95 = percentiles(samples)
    return (
        f"| Button press (HTTP panel) to SSE event at a client | median {median:.1f} ms, "
        f"p95 {p95:.1f} ms | {len(samples)} accepted presses, waitress on loopback |"
    )


def bench_speech() -> str:
    from voice.wav import write_wav

    sentences = [
        ("fr", "Les Cylons ouvrent les yeux et se reconnaissent."),
        ("en", "Cylons, open your eyes and recognise each other."),
        ("fr", "La mission 2 échoue : 2 réussites, 1 échec."),
        ("en", "Ada is the Commandant. Name a squad of 3 for mission 2."),
    ]
    samples = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(3):
            for j, (lang, text) in enumerate(sentences):
                start = time.perf_counter()
                write_wav(text, lang, Path(folder) / f"{i}-{j}.wav")
                samples.append((time.perf_counter() - start) * 1000)
    median, p95 = percentiles(samples)
    return (
        f"| Speech synthesis, one sentence to WAV (espeak-ng via pyttsx3) | median "
        f"{median:.0f} ms, p95 {p95:.0f} ms | {len(samples)} sentences, fr and en |"
    )


def bench_startup() -> str:
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "appliance.cli", "--help"], check=True, capture_output=True
        )
        samples.append((time.perf_counter() - start) * 1000)
    median, _ = percentiles(samples)
    return f"| `companion --help` start-up | median {median:.0f} ms | 5 runs |"


# What ``companion serve`` does before it answers, split in two, in a fresh interpreter: the
# imports of the command and its wiring, then ``build`` (the journal, the pins, the camera, the
# Flask app, and what they import on the way: Flask, OpenCV...), then waitress's import.
SERVE_PARTS = """\
import json, sys, time
start = time.perf_counter()
from appliance.cli import _load_config
from appliance.wiring import build
imported = time.perf_counter()
companion = build(_load_config(sys.argv[1]), stop=lambda: None)
built = time.perf_counter()
from waitress import serve
done = time.perf_counter()
companion.close()
parts = {"import": imported - start, "build": built - imported, "waitress": done - built}
print("PARTS", json.dumps(parts), flush=True)
"""


def serve_once(config: Path) -> float:
    """Seconds from launching ``companion serve`` to the first 200 answer of /api/state."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/api/state"
    command = ["-m", "appliance.cli", "serve", "--config", str(config), "--port", str(port)]
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while time.perf_counter() - start < 60:
            if server.poll() is not None:
                raise RuntimeError(f"companion serve exited with {server.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=5) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - start
            except OSError:
                time.sleep(0.01)
        raise RuntimeError("companion serve did not answer within 60 s")
    finally:
        server.terminate()
        server.wait(10)


def bench_serve_startup(runs: int = 5) -> list[str]:
    rows = []
    for camera in ("generated", "auto"):
        with tempfile.TemporaryDirectory() as folder:
            config = write_config(Path(folder), camera=camera)  # the tests' config
            serve_once(config)  # the journal created, the bytecode cached: not a first run
            totals = sorted(serve_once(config) * 1000 for _ in range(runs))
            parts: list[dict[str, float]] = []
            for _ in range(runs):
                done = subprocess.run(
                    [sys.executable, "-c", SERVE_PARTS, str(config)],
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                    text=True,
                )
                found = [x for x in done.stdout.splitlines() if x.startswith("PARTS ")]
                parts.append(json.loads(found[-1][6:]))
        part = {k: statistics.median(p[k] * 1000 for p in parts) for k in parts[0]}
        rows.append(
            f"| `companion serve` start-up to the first 200 of `/api/state` (camera "
            f'`"{camera}"`) | median {statistics.median(totals):.0f} ms '
            f"(min {totals[0]:.0f}, max {totals[-1]:.0f}) | {runs} runs; console speech, "
            f"mock pins; in-process: imports {part['import']:.0f} ms, build "
            f"{part['build']:.0f} ms, waitress import {part['waitress']:.0f} ms |"
        )
    return rows


def bench_interpreter() -> str:
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        samples.append((time.perf_counter() - start) * 1000)
    median = statistics.median(samples)
    return f"| Python interpreter start-up (`python -c pass`) | median {median:.0f} ms | 5 runs |"


def main() -> None:
    cpu = platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text().splitlines()
            if line.startswith(("model name", "Model"))
        ]
        cpu = models[0] if models else cpu
    print(
        f"Machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}\n"
    )
    print("| what | figure | conditions |\n|---|---|---|")
    for bench in (bench_engine, bench_journal, bench_sse, bench_speech, bench_startup):
        print(bench(), flush=True)
    print(bench_interpreter(), flush=True)
    for row in bench_serve_startup():
        print(row, flush=True)


if __name__ == "__main__":
    main()
