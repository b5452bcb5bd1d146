"""Load: N live pages (SSE clients) held while games are played on loopback.

    .venv/bin/python benchmarks/load.py --clients 30 --minutes 10

A real ``companion serve`` (``tests/serving.py``), N raw SSE clients (one thread each, a socket
reading ``GET /api/events``), and the host playing games without a break through the HTTP API:
Résistance by presses on the virtual panel (``/api/press``), then a game night by score writes
(``/api/act``), then Résistance again, and so on. Every client closes its stream now and then
and opens a new one (on average every ``--reconnect`` seconds, at random).

What "no dropped update" means here (what ``web/sse.py`` promises): each client has its own
FIFO queue fed with every published snapshot, in order; the stream sends the current snapshot
first, then each queued snapshot newer than the last one sent. It never coalesces: a client too
slow to keep up (``CLIENT_BACKLOG`` snapshots behind) has its stream ended, not thinned. So:

* within one connection, the first event may have any revision not lower than the last one
  that client saw before (the snapshot on reconnect: what happened while it was away is not
  replayed), and every following event must carry exactly the previous revision + 1 (a "gap"
  otherwise);
* no stream is ended by the server while the run lasts (a stalled client dropped);
* when play stops, every client reaches the final revision of ``GET /api/state``.

Any gap, any stream ended by the server, any client short of the final revision, any host
request that failed or timed out, a Résistance that stopped making progress, or an RSS growth
of the server beyond ``--rss-bound`` MB after the warm-up (the first fifth of the run, at most a
minute) exits non-zero.

Each stream holds one of waitress's threads (``web/server.py``: 128 threads, and streams
capped per device and in all by ``web/sse.py``, so each client reads from a loopback address of
its own, 127.0.1.x: a device of its own). A stream its page closed ends within a second (before
issue 21 it kept its thread until a write to it failed: with 32 threads, 30 pages reconnecting
stalled the server within a minute). ``--waitress threads=32`` (repeatable,
any waitress setting) runs the same ``companion serve`` with that setting replaced; it is how a
change of ``web/server.py`` is tried before it is made.

Latency, action to event: for each action whose HTTP answer carries a revision newer than the
previous answer's, the time from sending the request to each client receiving an event of that
revision on a stream it already held (a first snapshot after a reconnect does not count).
Median and p95 over every (action, client) pair. Clients, players and the server share this
machine: the figure includes the clients' own parsing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))  # serving.py: a real server, the host's client

from serving import Server, start_server  # noqa: E402

RESISTANCE = {"game": "resistance", "options": {"players": 5}}
NIGHT = {"game": "night", "names": ["Ada", "Bea", "Cyd"], "options": {"players": 3}}
NIGHT_SCORES = 60  # score writes in one game night before the next Résistance


class SseClient(threading.Thread):
    """One live page: reads ``data:`` lines, parses each event's revision, checks the rule."""

    def __init__(self, port: int, reconnect: float, seed: int, source: str = "127.0.0.1") -> None:
        super().__init__(daemon=True)
        self.port = port
        self.source = source  # its own loopback address: a device of its own (web/sse.py's caps)
        self.reconnect = reconnect  # mean seconds between voluntary reconnects; 0: never
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.steady = threading.Event()  # set: no more voluntary reconnects
        self.last = -1  # the last revision seen, over all connections
        self.events = 0
        self.connections = 0
        self.server_ended = 0  # streams the server ended while the client held them
        self.gaps: list[tuple[int, int]] = []  # (previous, received) within one connection
        self.backwards: list[tuple[int, int]] = []  # a reconnect's snapshot older than seen
        self.arrivals: dict[int, float] = {}  # revision -> perf_counter, live events only
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self._connection()
            except OSError as exc:
                self.errors.append(repr(exc))
                time.sleep(0.2)

    def _connection(self) -> None:
        until = float("inf")
        if self.reconnect > 0 and not self.steady.is_set():
            until = time.monotonic() + self.rng.expovariate(1 / self.reconnect)
        with socket.create_connection(
            ("127.0.0.1", self.port), timeout=5, source_address=(self.source, 0)
        ) as sock:
            sock.sendall(
                b"GET /api/events HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
            )
            sock.settimeout(0.2)
            self.connections += 1
            buffer, headers, previous = b"", False, None
            while not self.stop.is_set():
                if time.monotonic() > until and not self.steady.is_set():
                    return  # a voluntary reconnect
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                now = time.perf_counter()
                if not chunk:
                    self.server_ended += 1
                    return
                buffer += chunk
                if not headers:
                    if b"\r\n\r\n" not in buffer:
                        continue
                    head, buffer = buffer.split(b"\r\n\r\n", 1)
                    if b" 200 " not in head.split(b"\r\n", 1)[0]:
                        raise OSError(f"events answered {head[:80]!r}")
                    headers = True
                *blocks, buffer = buffer.split(b"\n\n")
                for block in blocks:
                    for line in block.split(b"\n"):
                        if line.startswith(b"data: "):
                            revision = int(json.loads(line[6:])["revision"])
                            previous = self._seen(previous, revision, now)

    def _seen(self, previous: int | None, revision: int, now: float) -> int:
        self.events += 1
        if previous is None:  # the snapshot a connection starts with
            if revision < self.last:
                self.backwards.append((self.last, revision))
        else:
            if revision != previous + 1:
                self.gaps.append((previous, revision))
            self.arrivals.setdefault(revision, now)
        self.last = max(self.last, revision)
        return revision


class Player(threading.Thread):
    """The host at the table: games one after another, as fast as ``pace`` allows.

    Progress is judged by the game's ``version`` (accepted actions), not by the revision: every
    press publishes (an ignored press is said aloud and shown), so a revision that moves proves
    nothing. A Résistance that makes no progress for ``STUCK`` rounds of presses is abandoned
    and counted (the run fails on it)."""

    STUCK = 100

    def __init__(self, server: Server, pace: float, seed: int) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.pace = pace
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.samples: list[tuple[float, int]] = []  # (sent at, revision of the answer)
        self.revision = -1
        self.games: dict[str, int] = {"resistance": 0, "night": 0}  # started
        self.finished: dict[str, int] = {"resistance": 0, "night": 0}  # played to the end
        self.actions = 0  # accepted game actions (the journal's versions)
        self.presses = 0
        self.abandoned = 0
        self.refused = 0
        self.errors: list[str] = []

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        start = time.perf_counter()
        status, answer = self.server.post(path, body)
        if status >= 300 or not isinstance(answer, dict):
            self.refused += 1
            return None
        if answer["revision"] > self.revision:
            self.revision = answer["revision"]
            if path != "/api/games":
                self.samples.append((start, self.revision))
        if self.pace:
            time.sleep(self.pace)
        return answer

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.resistance()
                if not self.stop.is_set():
                    self.night()
        except Exception as exc:  # reported: the run fails on it
            self.errors.append(f"player: {exc!r}")

    def new_game(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """A new game over the one running, confirmed as the host page does (with its id)."""
        return self.post("/api/games", {**body, "replace": self.server.state()["game_id"]})

    def resistance(self) -> None:
        snap = self.new_game(RESISTANCE)
        if snap is None:
            return
        self.games["resistance"] += 1
        idle = 0
        while not self.stop.is_set():
            state = snap["state"]
            if state["outcome"] is not None:
                self.finished["resistance"] += 1
                return
            if idle >= self.STUCK:
                self.abandoned += 1
                self.errors.append(f"player: Résistance stuck in phase {state['phase']!r}")
                return
            phase, version = state["phase"], snap["version"]
            if phase == "propose":  # the named players press A, then the Commandant confirms
                presses = [(seat, "A") for seat in range(state["squad_size"])]
                presses.append((state["commander"], "A"))
            elif phase == "vote":
                waiting = [s for s in range(state["players"]) if s not in state["voted"]]
                presses = [(self.rng.choice(waiting or [0]), self.rng.choice("AAB"))]
            elif phase == "mission":
                waiting = [s for s in state["squad"] if s not in state["played"]]
                presses = [(self.rng.choice(waiting or [0]), self.rng.choice("AAAB"))]
            else:  # the night, spoken: wait for it
                time.sleep(0.05)
                snap, idle = self.server.state(), idle + 1
                continue
            for seat, button in presses:
                if self.post("/api/press", {"seat": seat, "button": button}) is not None:
                    self.presses += 1
            snap = self.server.state()
            moved = snap["version"] - version if snap["game_id"] is not None else 0
            self.actions += max(0, moved)
            idle = 0 if moved > 0 else idle + 1

    def night(self) -> None:
        if self.new_game(NIGHT) is None:
            return
        self.games["night"] += 1
        for i in range(NIGHT_SCORES):
            if self.stop.is_set():
                return
            body = {"kind": "write_score", "player": i % 3, "round": i // 3, "points": i % 11}
            if self.post("/api/act", body) is not None:
                self.actions += 1
        self.finished["night"] += 1


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (x, y)."""
    if len(points) < 2:
        return 0.0
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


@dataclass
class Result:
    clients: int
    seconds: float
    revisions: int  # published during the run
    final: int
    games: dict[str, int]  # started
    finished: dict[str, int]  # played to the end
    game_actions: int  # accepted by the games (journalled)
    presses: int
    refused: int  # host requests answered with an error
    actions: int  # host requests timed (their answer carried a new revision)
    latencies: list[float]  # ms, one per (action, client) pair
    gaps: int
    backwards: int
    server_ended: int
    short: int  # clients that did not reach the final revision
    connections: int
    events: int
    rss: list[tuple[float, int]] = field(default_factory=list)  # (seconds, KiB)
    warmup: float = 0.0
    errors: list[str] = field(default_factory=list)

    def latency(self) -> tuple[float, float]:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan"), float("nan")
        return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]

    def rss_figures(self) -> dict[str, float]:
        """MB: start, after warm-up, end, max; growth after warm-up; slope in MB per minute."""
        mb = [(t, kib / 1024) for t, kib in self.rss]
        after = [(t, m) for t, m in mb if t >= self.warmup] or mb
        return {
            "start": mb[0][1],
            "warm": after[0][1],
            "end": mb[-1][1],
            "max": max(m for _, m in mb),
            "growth": mb[-1][1] - after[0][1],
            "slope": slope([(t / 60, m) for t, m in after]),
        }

    def rss_by_minute(self) -> str:
        """The first sample of each minute, and the last."""
        marks: dict[int, float] = {}
        for t, kib in self.rss:
            marks.setdefault(int(t // 60), kib / 1024)
        minutes = [f"{minute} min {mb:.1f}" for minute, mb in sorted(marks.items())]
        end, kib = self.rss[-1]
        return ", ".join([*minutes, f"end ({end:.0f} s) {kib / 1024:.1f}"])

    def report(self) -> str:
        median, p95 = self.latency()
        r = self.rss_figures()
        return "\n".join(
            [
                f"{self.clients} SSE clients for {self.seconds:.0f} s: {self.revisions} revisions "
                f"published (final {self.final}), {self.connections} connections "
                f"({self.connections - self.clients} reconnects), {self.events} events received",
                f"played: games started {self.games}, finished {self.finished}, "
                f"{self.game_actions} game actions accepted, {self.presses} presses, "
                f"{self.refused} host requests refused",
                f"action -> event: median {median:.1f} ms, p95 {p95:.1f} ms "
                f"({self.actions} actions x clients = {len(self.latencies)} pairs)",
                f"gaps {self.gaps}, snapshots older than seen {self.backwards}, streams ended by "
                f"the server {self.server_ended}, clients short of the final revision "
                f"{self.short}",
                f"server RSS: start {r['start']:.1f} MB, after warm-up ({self.warmup:.0f} s) "
                f"{r['warm']:.1f} MB, end {r['end']:.1f} MB, max {r['max']:.1f} MB, growth "
                f"after warm-up {r['growth']:+.1f} MB, slope {r['slope']:+.2f} MB/min",
                "server RSS by minute (MB): " + self.rss_by_minute(),
                *(f"error: {e}" for e in self.errors[:10]),
            ]
        )

    def failures(self, rss_bound: float | None) -> list[str]:
        out = []
        if self.gaps or self.backwards:
            out.append(f"{self.gaps} gaps, {self.backwards} snapshots older than seen")
        if self.server_ended:
            out.append(f"{self.server_ended} streams ended by the server")
        if self.short:
            out.append(f"{self.short} clients short of the final revision {self.final}")
        if self.errors:
            out.append(f"{len(self.errors)} errors")
        if self.refused:
            out.append(f"{self.refused} host requests refused")
        if not self.finished["resistance"]:
            out.append("no Résistance played to the end")
        if not self.latencies:
            out.append("no action timed")
        if rss_bound is not None and self.rss_figures()["growth"] > rss_bound:
            out.append(f"RSS grew beyond {rss_bound} MB after the warm-up")
        return out


WAITRESS_OVERRIDE = """\
# Written by benchmarks/load.py --waitress: the companion's waitress with other settings.
from waitress.adjustments import Adjustments

_init = Adjustments.__init__


def __init__(self, **settings):
    settings.update({overrides!r})
    _init(self, **settings)


Adjustments.__init__ = __init__
"""


def _start(directory: Path, waitress: dict[str, int] | None) -> Server:
    """``companion serve`` as it is, or (``waitress``) with some of ``waitress.serve``'s
    settings replaced, through a ``sitecustomize`` seen by the server process only."""
    if not waitress:
        return start_server(directory, pause=0.0, cylons_open=0.0)
    site = directory / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(WAITRESS_OVERRIDE.format(overrides=waitress))
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), saved) if p)
    try:
        return start_server(directory, pause=0.0, cylons_open=0.0)
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved


def run(
    clients: int = 30,
    seconds: float = 600.0,
    reconnect: float = 20.0,
    pace: float = 0.02,
    seed: int = 1,
    sample_every: float = 2.0,
    directory: Path | None = None,
    waitress: dict[str, int] | None = None,
) -> Result:
    """Start a server, hold ``clients`` streams and play for ``seconds``; the figures."""
    with tempfile.TemporaryDirectory() as scratch:
        server = _start(directory or Path(scratch), waitress)
        try:
            return _run(server, clients, seconds, reconnect, pace, seed, sample_every)
        finally:
            server.stop()


def _run(
    server: Server,
    clients: int,
    seconds: float,
    reconnect: float,
    pace: float,
    seed: int,
    sample_every: float,
) -> Result:
    assert server.process is not None
    pid = server.process.pid
    server.host()  # log in before the clock starts
    first = server.state()["revision"]
    readers = [
        SseClient(server.port, reconnect, seed * 1000 + i, source=f"127.0.1.{1 + i % 250}")
        for i in range(clients)
    ]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + 15
    while any(r.last < first for r in readers) and time.monotonic() < deadline:
        time.sleep(0.05)
    player = Player(server, pace, seed)
    start = time.monotonic()
    rss = [(0.0, rss_kib(pid))]
    player.start()
    while time.monotonic() - start < seconds and player.is_alive():
        time.sleep(min(sample_every, max(0.0, seconds - (time.monotonic() - start))))
        rss.append((time.monotonic() - start, rss_kib(pid)))
    player.stop.set()
    player.join(15)
    for reader in readers:
        reader.steady.set()
    errors: list[str] = []
    if player.is_alive():
        errors.append("player: still waiting for an answer 15 s after the end")
    try:
        final = server.state()["revision"]
    except OSError as exc:  # the server no longer answers: reported, the run fails
        errors.append(f"GET /api/state at the end: {exc!r}")
        final = max(r.last for r in readers)
    deadline = time.monotonic() + 15
    while any(r.last < final for r in readers) and time.monotonic() < deadline:
        time.sleep(0.05)
    elapsed = time.monotonic() - start
    rss.append((elapsed, rss_kib(pid)))
    for reader in readers:
        reader.stop.set()
    for reader in readers:
        reader.join(5)
    latencies = [
        (reader.arrivals[revision] - sent) * 1000
        for sent, revision in player.samples
        for reader in readers
        if revision in reader.arrivals
    ]
    return Result(
        clients=clients,
        seconds=elapsed,
        revisions=final - first,
        final=final,
        games=dict(player.games),
        finished=dict(player.finished),
        game_actions=player.actions,
        presses=player.presses,
        refused=player.refused,
        actions=len(player.samples),
        latencies=latencies,
        gaps=sum(len(r.gaps) for r in readers),
        backwards=sum(len(r.backwards) for r in readers),
        server_ended=sum(r.server_ended for r in readers),
        short=sum(r.last < final for r in readers),
        connections=sum(r.connections for r in readers),
        events=sum(r.events for r in readers),
        rss=rss,
        warmup=min(60.0, elapsed / 5),
        errors=errors + player.errors + [e for r in readers for e in r.errors],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--reconnect", type=float, default=20.0, help="mean s between reconnects")
    parser.add_argument("--pace", type=float, default=0.02, help="s between the host's actions")
    parser.add_argument("--rss-bound", type=float, default=20.0, help="MB after the warm-up")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--waitress",
        action="append",
        default=[],
        metavar="SETTING=N",
        help="replace one of companion serve's waitress settings (e.g. threads=64); repeatable",
    )
    args = parser.parse_args()
    waitress = {k: int(v) for k, v in (item.split("=", 1) for item in args.waitress)}
    if waitress:
        print(f"companion serve with waitress settings replaced: {waitress}")
    result = run(
        args.clients, args.minutes * 60, args.reconnect, args.pace, args.seed, waitress=waitress
    )
    print(result.report())
    failures = result.failures(args.rss_bound)
    for failure in failures:
        print("FAIL:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
