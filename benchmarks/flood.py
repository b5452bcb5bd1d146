"""Flood: a player's phone tries to stop the game while the host plays (issue 21).

    .venv/bin/python benchmarks/flood.py --seconds 60

A real ``companion serve`` (``tests/serving.py``) with its own ``TMPDIR``, and an attacker in a
process of its own (its threads do not share the host's interpreter lock) on ``--attackers``
loopback addresses (127.0.0.100 and up, each a device on the Wi-Fi):

* ``--streams`` (200) anonymous ``GET /api/events``, each opened again a second after it is
  refused or ended; half never read a byte of what they are sent (their receive buffer is 4 KiB);
* ``--idle`` (100) idle sockets that never send a byte, each opened again when the server
  closes it;
* two threads sending 50 MB bodies in a loop to routes that need no login, by
  ``Content-Length`` and chunked in turn, each body as far as the server lets it go.

Meanwhile the host (127.0.0.1, logged in) plays through the HTTP API without a break: Les 7
Sages with a 10 s hourglass (``--hourglass``, both sides played by the host, to one point, at
most ``SAGES_MOVES`` moves), then Résistance by presses on the virtual panel (as
``benchmarks/load.py``), and again. A TV (127.0.0.2) holds a public stream, opened again when
refused. The host's own page is a stream too, with the host's session cookie.

Printed: the host's action → event latency, p50 and p95, measured on the host's own stream (from
sending an action to receiving the event of the revision its answer carries); what the attacker
got (streams admitted and refused, connections reset at once and closed idle, bodies refused and
how much of each was sent); the server's RSS; the disk before and after: the data folder (the
journal grows by the games played, nothing else may), the server's ``TMPDIR`` and the temporary
files the server held open at any moment (waitress writes large bodies to deleted files there);
and the hourglass expiries (every one is the flood's doing: the host always moves at once).

Exit non-zero if p95 ≥ 200 ms, an hourglass ran out, the disk grew by anything but the journal,
the server held a temporary file, a host request failed, or the TV never had its stream.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
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
for folder in ("tests", "benchmarks"):
    if str(ROOT / folder) not in sys.path:
        sys.path.insert(0, str(ROOT / folder))

from load import Player, rss_kib  # noqa: E402
from serving import Server, start_server  # noqa: E402

BODY = 50 * 1000 * 1000  # bytes: the attacker's bodies
BODY_ROUTES = ("/api/act", "/host/login", "/api/press", "/api/seat/not-a-token/press", "/nowhere")
SAGES_MOVES = 60  # moves in one match at most, then Résistance
PIECE = bytes(1 << 20)  # a megabyte of the attacker's body


# -- raw HTTP on loopback, from a chosen source address (also used by tests/test_flood.py) -------


def connect(
    port: int, source: str, timeout: float = 5.0, rcvbuf: int | None = None
) -> socket.socket:
    """A TCP connection to the server from ``source`` (any 127.x.y.z address: loopback)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(timeout)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return sock


def head(
    method: str, path: str, port: int, headers: dict[str, str] | None = None, version: str = "1.1"
) -> bytes:
    """A request's head (HTTP/1.0: a stream comes unchunked, as ``benchmarks/load.py`` reads)."""
    lines = [f"{method} {path} HTTP/{version}", f"Host: 127.0.0.1:{port}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    rest: bytes  # what came after the headers so far


def read_answer(sock: socket.socket) -> Answer | None:
    """The status and headers of the server's answer; None if the connection ended first (or
    the socket's timeout passed)."""
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
    except OSError:
        return None
    top, rest = data.split(b"\r\n\r\n", 1)
    first, *lines = top.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Answer(int(first.split()[1]), headers, rest)


def read_body(sock: socket.socket, answer: Answer) -> bytes:
    """The rest of a response with a Content-Length."""
    data = answer.rest
    size = int(answer.headers.get("content-length", "0"))
    with contextlib.suppress(OSError):
        while len(data) < size:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data


def closed_by_server(sock: socket.socket, wait: float = 0.0) -> bool:
    """True once the server has closed ``sock`` (what it sent before is read and dropped)."""
    sock.settimeout(wait if wait > 0 else 0.001)
    deadline = time.monotonic() + wait
    while True:
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, BlockingIOError):
            if time.monotonic() >= deadline:
                return False
            continue
        except OSError:  # reset
            return True
        if not chunk:
            return True


def send_body(
    port: int, source: str, path: str, chunked: bool, size: int = BODY
) -> tuple[int, int]:
    """A body of ``size`` bytes sent blindly after the headers (by Content-Length, or chunked
    in 1 MB chunks) for as long as the server takes it; (the status answered or 0, the bytes of
    body sent before the server stopped taking them)."""
    sent = 0
    try:
        sock = connect(port, source)
    except OSError:
        return 0, 0
    with sock:
        framing = {"Transfer-Encoding": "chunked"} if chunked else {"Content-Length": str(size)}
        try:
            sock.sendall(head("POST", path, port, {"Content-Type": "application/json", **framing}))
            while sent < size:
                if chunked:
                    sock.sendall(b"%x\r\n" % len(PIECE) + PIECE + b"\r\n")
                else:
                    sock.sendall(PIECE)
                sent += len(PIECE)
        except OSError:
            pass
        sock.settimeout(2.0)
        answer = read_answer(sock)
    return (answer.status if answer else 0), sent


def server_temp_bytes(pid: int, directory: Path) -> int:
    """Bytes of the files under ``directory`` the process ``pid`` holds open, deleted ones
    included (``tempfile.TemporaryFile`` unlinks its file at once)."""
    total = 0
    prefix = str(directory.resolve())
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            link = f"/proc/{pid}/fd/{fd}"
            with contextlib.suppress(OSError):
                if os.readlink(link).startswith(prefix):
                    total += os.stat(link).st_size
    return total


def folder_bytes(directory: Path) -> dict[str, int]:
    """Each file's size under ``directory``, by its path relative to it."""
    out = {}
    for path in directory.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file():
                out[str(path.relative_to(directory))] = path.stat().st_size
    return out


# -- the attacker ----------------------------------------------------------------------------------


class Attack:
    """The attacker's threads, in a process of their own; ``counts`` are sent back at the end."""

    def __init__(self, port: int, sources: list[str], streams: int, idle: int, bodies: int) -> None:
        self.port = port
        self.sources = sources
        self.streams = streams
        self.idle = idle
        self.senders = bodies
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.counts: dict[str, int] = dict.fromkeys(
            (
                "stream_requests",
                "streams_admitted",
                "streams_refused_503",
                "streams_ended_by_server",
                "streams_other",
                "connections_unanswered",
                "idle_opened",
                "idle_closed_by_server",
                "bodies_sent",
                "bodies_refused_413",
                "bodies_other",
                "body_mb_sent",
                "body_most_mb_sent",
            ),
            0,
        )

    def count(self, key: str, value: int = 1) -> None:
        with self.lock:
            self.counts[key] += value

    def run(self) -> dict[str, int]:
        threads = [
            threading.Thread(target=self.stream, args=(i,), daemon=True)
            for i in range(self.streams)
        ]
        threads += [
            threading.Thread(target=self.idle_socket, args=(i,), daemon=True)
            for i in range(self.idle)
        ]
        threads += [
            threading.Thread(target=self.bodies, args=(i,), daemon=True)
            for i in range(self.senders)
        ]
        for thread in threads:
            thread.start()
        return self.counts

    def source(self, i: int) -> str:
        return self.sources[i % len(self.sources)]

    def stream(self, i: int) -> None:
        reads = i % 2 == 0
        while not self.stop.is_set():
            self.count("stream_requests")
            try:
                sock = connect(self.port, self.source(i), rcvbuf=None if reads else 4096)
            except OSError:
                self.count("connections_unanswered")
                self.stop.wait(1.0)
                continue
            with sock:
                try:
                    sock.sendall(head("GET", "/api/events", self.port))
                except OSError:
                    self.count("connections_unanswered")
                    self.stop.wait(1.0)
                    continue
                answer = read_answer(sock)
                if answer is None:
                    self.count("connections_unanswered")
                elif answer.status == 503:
                    self.count("streams_refused_503")
                elif answer.status == 200:
                    self.count("streams_admitted")
                    if self.hold(sock, reads):
                        self.count("streams_ended_by_server")
                else:
                    self.count("streams_other")
            self.stop.wait(1.0)

    def hold(self, sock: socket.socket, reads: bool) -> bool:
        """Hold an admitted stream until the run ends; True if the server ended it first."""
        if not reads:
            self.stop.wait()
            return False
        sock.settimeout(0.5)
        while not self.stop.is_set():
            try:
                if not sock.recv(65536):
                    return True
            except TimeoutError:
                continue
            except OSError:
                return True
        return False

    def idle_socket(self, i: int) -> None:
        while not self.stop.is_set():
            try:
                sock = connect(self.port, self.source(i + 1))
            except OSError:
                self.count("connections_unanswered")
                self.stop.wait(0.5)
                continue
            self.count("idle_opened")
            with sock:
                sock.settimeout(0.5)
                started = time.monotonic()
                while not self.stop.is_set():
                    try:
                        if not sock.recv(1):
                            break
                    except TimeoutError:
                        continue
                    except OSError:
                        break
                else:
                    return
                if time.monotonic() - started < 0.5:
                    self.count("connections_unanswered")
                else:
                    self.count("idle_closed_by_server")
            self.stop.wait(0.5)

    def bodies(self, i: int) -> None:
        rng = random.Random(i)
        n = 0
        while not self.stop.is_set():
            path = rng.choice(BODY_ROUTES)
            status, sent = send_body(self.port, self.source(i + 2), path, chunked=n % 2 == 1)
            n += 1
            self.count("bodies_sent")
            self.count("body_mb_sent", sent // len(PIECE))
            with self.lock:
                self.counts["body_most_mb_sent"] = max(
                    self.counts["body_most_mb_sent"], sent // len(PIECE)
                )
            if status == 413:
                self.count("bodies_refused_413")
            elif status == 0 and sent < BODY:
                self.count("connections_unanswered")
            else:
                self.count("bodies_other")


def _attack(port: int, sources: list[str], streams: int, idle: int, bodies: int, pipe: Any) -> None:
    attack = Attack(port, sources, streams, idle, bodies)
    counts = attack.run()
    pipe.recv()  # the signal to stop
    attack.stop.set()
    time.sleep(1.5)
    with attack.lock:
        pipe.send(dict(counts))


# -- the host --------------------------------------------------------------------------------------


class HostStream(threading.Thread):
    """The host's own page: a stream with the host's session cookie; the arrival of each
    revision."""

    def __init__(self, port: int, cookie: str, source: str = "127.0.0.1") -> None:
        super().__init__(daemon=True)
        self.port = port
        self.cookie = cookie
        self.source = source
        self.stop = threading.Event()
        self.arrivals: dict[int, float] = {}
        self.connections = 0
        self.refused = 0
        self.events = 0
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.connection()
            except OSError as exc:
                self.errors.append(repr(exc))
            self.stop.wait(1.0)

    def connection(self) -> None:
        headers = {"Accept": "text/event-stream"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        with connect(self.port, self.source) as sock:
            sock.sendall(head("GET", "/api/events", self.port, headers, version="1.0"))
            answer = read_answer(sock)
            if answer is None or answer.status != 200:
                self.refused += 1
                return
            self.connections += 1
            buffer = answer.rest
            sock.settimeout(0.2)
            while not self.stop.is_set():
                blocks = buffer.split(b"\n\n")
                buffer = blocks.pop()
                now = time.perf_counter()
                for block in blocks:
                    for line in block.split(b"\n"):
                        if line.startswith(b"data: "):
                            self.events += 1
                            self.arrivals.setdefault(int(json.loads(line[6:])["revision"]), now)
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    return
                buffer += chunk


class Host(Player):
    """``load.Player`` (Résistance by presses), and Les 7 Sages under the hourglass."""

    def __init__(self, server: Server, hourglass: int, seed: int) -> None:
        super().__init__(server, pace=0.02, seed=seed)
        self.hourglass = hourglass
        self.games["sages"] = 0
        self.finished["sages"] = 0
        self.expiries = 0
        self.sages_moves = 0
        self.doing = ""  # the request under way, for an error's report

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.sages()
                if not self.stop.is_set():
                    self.resistance()
        except Exception as exc:  # reported: the run fails on it
            self.errors.append(f"host: {exc!r} during {self.doing}")

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        self.doing = f"POST {path}"
        return super().post(path, body)

    def sages(self) -> None:
        body = {
            "game": "sages",
            "options": {"hourglass": self.hourglass, "target": 1},
            "names": ["Ada", "Bea"],
        }
        snap = self.post("/api/games", body)
        if snap is None:
            return
        self.games["sages"] += 1
        for _ in range(SAGES_MOVES):
            if self.stop.is_set():
                break
            view = snap["state"]
            if view["phase"] == "over":
                self.finished["sages"] += 1
                break
            moves = [
                {"sage": sage, "to": to}
                for sage, where in sorted(view.get("moves", {}).items())
                for to in where["to"]
            ]
            if not moves:
                snap = self.server.state()
                continue
            answer = self.post(
                "/api/act", {"kind": "move", "seat": view["to_move"], **self.rng.choice(moves)}
            )
            if answer is None:
                snap = self.server.state()
                continue
            self.sages_moves += 1
            self.actions += 1
            snap = answer
        self.doing = "GET /api/record"
        status, record = self.server.host().request("GET", "/api/record")
        if status != 200:
            self.errors.append(f"host: the Sages record answered {status}")
            return
        lines = [json.loads(line) for line in str(record).splitlines() if line.strip()]
        self.expiries += sum(1 for line in lines if line.get("kind") == "time_up")


# -- the run ---------------------------------------------------------------------------------------


@dataclass
class Result:
    seconds: float
    latencies: list[float]  # ms
    attack: dict[str, int]
    games: dict[str, int]
    finished: dict[str, int]
    actions: int
    sages_moves: int
    expiries: int
    refused: int  # host requests answered with an error
    host_stream: dict[str, int]
    tv: dict[str, int]
    rss: list[int]  # KiB
    data_before: dict[str, int]
    data_after: dict[str, int]
    temp_before: int
    temp_after: int
    temp_held_most: int
    log_growth: int
    warnings: list[str] = field(default_factory=list)  # the server's, during the run
    errors: list[str] = field(default_factory=list)

    def latency(self) -> tuple[float, float]:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan"), float("nan")
        return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]

    def journal_growth(self) -> int:
        return sum(self.data_after.get(k, 0) - self.data_before.get(k, 0) for k in _journal(self))

    def other_growth(self) -> int:
        keys = (set(self.data_before) | set(self.data_after)) - _journal(self)
        return sum(self.data_after.get(k, 0) - self.data_before.get(k, 0) for k in keys)

    def report(self) -> str:
        p50, p95 = self.latency()
        a = self.attack
        mb = 1024 * 1024
        return "\n".join(
            [
                f"{self.seconds:.0f} s under attack: games started {self.games}, finished "
                f"{self.finished}, {self.actions} game actions, {self.sages_moves} Sages moves, "
                f"{self.refused} host requests refused",
                f"host action -> event on the host's own stream: p50 {p50:.1f} ms, p95 "
                f"{p95:.1f} ms ({len(self.latencies)} actions); host stream: {self.host_stream}",
                f"hourglass expiries: {self.expiries}",
                f"attacker streams: {a['stream_requests']} requests, {a['streams_admitted']} "
                f"admitted, {a['streams_refused_503']} refused (503), "
                f"{a['streams_ended_by_server']} ended by the server, {a['streams_other']} other",
                f"attacker connections: {a['connections_unanswered']} unanswered (reset at once "
                f"over the address's share, or no answer in 5 s), {a['idle_opened']} idle sockets "
                "opened, "
                f"{a['idle_closed_by_server']} closed idle by the server",
                f"attacker bodies of {BODY // 1000 // 1000} MB: {a['bodies_sent']} sent, "
                f"{a['bodies_refused_413']} refused (413), {a['bodies_other']} other; "
                f"{a['body_mb_sent']} MB written in all, at most {a['body_most_mb_sent']} MB of "
                "one before the server closed it",
                f"TV (public stream from its own address): {self.tv}",
                f"server RSS: start {self.rss[0] / 1024:.1f} MB, end {self.rss[-1] / 1024:.1f} "
                f"MB, max {max(self.rss) / 1024:.1f} MB; every 10 s (MB): "
                + " ".join(f"{kib / 1024:.0f}" for kib in self.rss[::5]),
                f"disk: data folder {sum(self.data_before.values()) / mb:.2f} MB -> "
                f"{sum(self.data_after.values()) / mb:.2f} MB (journal {self.journal_growth():+d} "
                f"bytes, everything else {self.other_growth():+d} bytes); temp folder "
                f"{self.temp_before} -> {self.temp_after} bytes; temporary files held by the "
                f"server: at most {self.temp_held_most} bytes; console log {self.log_growth:+d} "
                "bytes",
                *(f"server: {line}" for line in self.warnings[:10]),
                *(f"error: {e}" for e in self.errors[:10]),
            ]
        )

    def failures(self) -> list[str]:
        out = []
        p95 = self.latency()[1]
        if not p95 < 200:
            out.append(f"p95 {p95:.1f} ms is not under 200 ms")
        if self.expiries:
            out.append(f"{self.expiries} hourglass expiries")
        if self.other_growth() > 0 or self.temp_after > self.temp_before:
            out.append("the disk grew by more than the journal")
        if self.temp_held_most:
            out.append(f"the server held {self.temp_held_most} bytes of temporary files")
        if self.refused or self.errors:
            out.append(f"{self.refused} host requests refused, {len(self.errors)} errors")
        if not self.tv["connections"]:
            out.append("the TV never had its stream")
        if not self.finished["resistance"] or not self.sages_moves:
            out.append("the host did not play both games")
        return out


def _journal(result: Result) -> set[str]:
    keys = set(result.data_before) | set(result.data_after)
    return {k for k in keys if k.startswith("journal.sqlite3")}


def run(
    seconds: float = 60.0,
    streams: int = 200,
    idle: int = 100,
    bodies: int = 2,
    attackers: int = 8,
    hourglass: int = 10,
    seed: int = 1,
    directory: Path | None = None,
) -> Result:
    with tempfile.TemporaryDirectory() as scratch:
        base = directory or Path(scratch)
        temp = base / "tmp"
        temp.mkdir(parents=True, exist_ok=True)
        saved = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = str(temp)  # the server's (tempfile.gettempdir() there)
        try:
            server = start_server(base, pause=0.0, cylons_open=0.0)
        finally:
            if saved is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = saved
        try:
            return _run(
                server, base, temp, seconds, streams, idle, bodies, attackers, hourglass, seed
            )
        finally:
            server.stop()


def _run(
    server: Server,
    base: Path,
    temp: Path,
    seconds: float,
    streams: int,
    idle: int,
    bodies: int,
    attackers: int,
    hourglass: int,
    seed: int,
) -> Result:
    assert server.process is not None
    pid = server.process.pid
    data = base / "data"
    host = server.host()
    cookie = "; ".join(f"{c.name}={c.value}" for c in host.cookies)
    data_before, temp_before = folder_bytes(data), sum(folder_bytes(temp).values())
    log_before = server.log.stat().st_size
    rss = [rss_kib(pid)]
    held_most = 0

    sources = [f"127.0.0.{100 + i}" for i in range(attackers)]
    ours, theirs = multiprocessing.Pipe()
    attacker = multiprocessing.Process(
        target=_attack, args=(server.port, sources, streams, idle, bodies, theirs), daemon=True
    )
    attacker.start()
    time.sleep(2.0)  # the flood is on before the host starts
    own, tv = HostStream(server.port, cookie), HostStream(server.port, "", source="127.0.0.2")
    own.start()
    tv.start()
    player = Host(server, hourglass, seed)
    player.start()
    started = time.monotonic()
    next_rss = started
    while time.monotonic() - started < seconds:
        held_most = max(held_most, server_temp_bytes(pid, temp))
        if time.monotonic() >= next_rss:
            rss.append(rss_kib(pid))
            next_rss += 2.0
        time.sleep(0.1)
    player.stop.set()
    player.join(timeout=30)
    time.sleep(1.0)  # the last events reach the host's stream
    own.stop.set()
    tv.stop.set()
    ours.send("stop")
    attack = ours.recv() if ours.poll(30) else {}
    attacker.join(timeout=10)
    if attacker.is_alive():
        attacker.kill()
    rss.append(rss_kib(pid))
    held_most = max(held_most, server_temp_bytes(pid, temp))
    latencies = [
        (own.arrivals[revision] - sent) * 1000
        for sent, revision in player.samples
        if revision in own.arrivals
    ]
    missing = sum(1 for _, revision in player.samples if revision not in own.arrivals)
    errors = list(player.errors) + own.errors[:3]
    if missing:
        errors.append(f"{missing} host actions never reached the host's stream")
    return Result(
        seconds=time.monotonic() - started,
        latencies=latencies,
        attack=attack,
        games=dict(player.games),
        finished=dict(player.finished),
        actions=player.actions,
        sages_moves=player.sages_moves,
        expiries=player.expiries,
        refused=player.refused,
        host_stream={"connections": own.connections, "refused": own.refused, "events": own.events},
        tv={"connections": tv.connections, "refused": tv.refused, "events": tv.events},
        rss=rss,
        data_before=data_before,
        data_after=folder_bytes(data),
        temp_before=temp_before,
        temp_after=sum(folder_bytes(temp).values()),
        temp_held_most=held_most,
        log_growth=server.log.stat().st_size - log_before,
        warnings=_warnings(server.log, log_before),
        errors=errors,
    )


def _warnings(log: Path, start: int) -> list[str]:
    """The server's warnings and errors logged since ``start`` (a byte offset), each once."""
    with log.open("rb") as text:
        text.seek(start)
        lines = text.read().decode("utf-8", "replace").splitlines()
    return list(dict.fromkeys(line for line in lines if line.startswith(("WARNING", "ERROR"))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--idle", type=int, default=100)
    parser.add_argument("--bodies", type=int, default=2, help="threads sending 50 MB bodies")
    parser.add_argument("--attackers", type=int, default=8, help="attacker addresses")
    parser.add_argument("--hourglass", type=int, default=10, help="seconds per Sages move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = run(
        args.seconds,
        args.streams,
        args.idle,
        args.bodies,
        args.attackers,
        args.hourglass,
        args.seed,
    )
    print(result.report())
    failures = result.failures()
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
