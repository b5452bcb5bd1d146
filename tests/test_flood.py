"""Floods do not stop a game (issue 21): a player's phone on the Wi-Fi holding streams, idle
sockets and huge bodies leaves the host and the seats playing.

A real ``companion serve`` on loopback (``tests/serving.py``) with its own ``TMPDIR``; the
attacker's devices are other loopback addresses (127.0.0.x), the host is 127.0.0.1. Outcomes
only, never times: every request is answered (bounded by socket timeouts), bodies are refused
before they are read and write nothing, the sand never runs out while the host moves. The
figures under a 60-second attack are ``benchmarks/flood.py``'s (docs/PERFORMANCE.md). The pools
themselves are checked in-process on ``web.sse.Broadcaster``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from serving import PIN, Server, free_port, start_server
from waitress import wasyncore as asyncore

import web.server
from appliance.wiring import build
from companion.config import Config
from web.server import PER_ADDRESS
from web.sse import CLIENT_BACKLOG, Broadcaster, Pool, Refusal, StreamCaps, StreamRefused

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from flood import (  # noqa: E402
    BODY,
    Answer,
    closed_by_server,
    connect,
    folder_bytes,
    head,
    read_answer,
    read_body,
    send_body,
    server_temp_bytes,
)

CAPS = StreamCaps()
NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]
ANSWER_WITHIN = 10.0  # seconds for all the flood's answers: a hung request fails the test
BODY_ROUTES = [
    "/api/act",
    "/api/games/rematch",
    "/api/host/undo",
    "/host/login",
    "/api/seat/not-a-token/press",
    "/nowhere",
]


@dataclass
class Served:
    server: Server
    temp: Path  # the server's TMPDIR

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def pid(self) -> int:
        assert self.server.process is not None
        return self.server.process.pid


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp("flood")
    temp = directory / "tmp"
    temp.mkdir()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TMPDIR", str(temp))  # where waitress's temporary files would go
        server = start_server(directory, pause=0.0, cylons_open=0.0)
    try:
        yield Served(server, temp)
    finally:
        server.stop()


@dataclass
class Stream:
    source: str
    sock: socket.socket | None
    answer: Answer | None = None

    @property
    def status(self) -> int | None:
        return None if self.answer is None else self.answer.status


def flood(port: int, sources: list[str], count: int, sockets: contextlib.ExitStack) -> list[Stream]:
    """``count`` anonymous ``GET /api/events``, round-robin over ``sources``, all sent before any
    answer is read; each stream is left open (``sockets`` closes them)."""
    sent = []
    for i in range(count):
        source = sources[i % len(sources)]
        try:
            sock = sockets.enter_context(connect(port, source))
            sock.sendall(head("GET", "/api/events", port))
        except OSError:
            sent.append(Stream(source, None))
            continue
        sent.append(Stream(source, sock))
    deadline = time.monotonic() + ANSWER_WITHIN
    for stream in sent:
        if stream.sock is not None:
            stream.sock.settimeout(max(0.05, deadline - time.monotonic()))
            stream.answer = read_answer(stream.sock)
    return sent


def held(streams: list[Stream]) -> list[Stream]:
    """The admitted streams the server holds once those it ended (a device with fewer took
    their place) are closed: polled, for at most ``ANSWER_WITHIN``."""
    admitted = [s for s in streams if s.status == 200]
    deadline = time.monotonic() + ANSWER_WITHIN
    while True:
        admitted = [s for s in admitted if s.sock is not None and not closed_by_server(s.sock)]
        if len(admitted) <= CAPS.public or time.monotonic() > deadline:
            return admitted
        time.sleep(0.1)


def addresses(first: int, count: int) -> list[str]:
    return [f"127.0.0.{first + i}" for i in range(count)]


def start_resistance(server: Server) -> dict[str, Any]:
    """A new game; the module's one server may be running the last test's: it is ended."""
    body = {"options": {"players": 5}, "names": NAMES, "replace": server.state()["game_id"]}
    status, snap = server.post("/api/games", body)
    assert status == 201, snap
    return dict(snap)


def host_stream(served: Served, sockets: contextlib.ExitStack) -> tuple[Answer | None, Any]:
    """The host's own page: ``/api/events`` with the host's session cookie (HTTP/1.0: the
    stream comes unchunked)."""
    cookie = "; ".join(f"{c.name}={c.value}" for c in served.server.host().cookies)
    sock = sockets.enter_context(connect(served.port, "127.0.0.1"))
    sock.sendall(head("GET", "/api/events", served.port, {"Cookie": cookie}, version="1.0"))
    return read_answer(sock), sock


def events_until(sock: socket.socket, first: bytes, revision: int) -> list[int]:
    """The revisions of the ``state`` events read until one reaches ``revision``."""
    seen: list[int] = []
    buffer = first
    sock.settimeout(ANSWER_WITHIN)
    while not seen or seen[-1] < revision:
        *blocks, buffer = buffer.split(b"\n\n")
        for block in blocks:
            for line in block.split(b"\n"):
                if line.startswith(b"data: "):
                    seen.append(int(json.loads(line[6:])["revision"]))
        if seen and seen[-1] >= revision:
            break
        chunk = sock.recv(65536)
        assert chunk, f"the stream ended at revisions {seen}"
        buffer += chunk
    return seen


def disk(served: Served) -> tuple[dict[str, int], dict[str, int]]:
    """Every file of the data folder and of the server's TMPDIR, with its size."""
    return folder_bytes(served.server.config.parent / "data"), folder_bytes(served.temp)


# -- bodies: refused at the server, before they are read, for every route -------------------------


@pytest.mark.slow
@pytest.mark.parametrize("path", BODY_ROUTES)
def test_a_body_declared_over_64_kib_is_refused_before_a_byte_of_it_is_sent(
    served: Served, path: str
) -> None:
    with connect(served.port, "127.0.0.50", timeout=ANSWER_WITHIN) as sock:
        sock.sendall(
            head("POST", path, served.port, {"Content-Length": str(BODY), "Content-Type": "a/b"})
        )
        answer = read_answer(sock)  # not one byte of the body sent
        assert answer is not None, "no answer before the body: the server waits to read it"
        assert answer.status == 413
        assert "too large" in json.loads(read_body(sock, answer))["error"]
        assert closed_by_server(sock, wait=ANSWER_WITHIN)


@pytest.mark.slow
def test_a_chunked_body_over_64_kib_is_refused_once_64_kib_have_come(served: Served) -> None:
    chunk = b"%x\r\n" % 8192 + bytes(8192) + b"\r\n"
    with connect(served.port, "127.0.0.50", timeout=ANSWER_WITHIN) as sock:
        sock.sendall(head("POST", "/api/act", served.port, {"Transfer-Encoding": "chunked"}))
        with contextlib.suppress(OSError):  # the server may close while the last ones go
            for _ in range(16):  # 128 KiB
                sock.sendall(chunk)
        answer = read_answer(sock)
        assert answer is not None and answer.status == 413
        assert closed_by_server(sock, wait=ANSWER_WITHIN)


@pytest.mark.slow
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_50_mb_body_sent_anyway_is_cut_short_and_writes_nothing(
    served: Served, chunked: bool
) -> None:
    before = disk(served)
    outcome: list[tuple[int, int]] = []
    sender = threading.Thread(
        target=lambda: outcome.append(send_body(served.port, "127.0.0.51", "/api/act", chunked))
    )
    held = 0
    sender.start()
    while sender.is_alive():
        held = max(held, server_temp_bytes(served.pid, served.temp))
        sender.join(timeout=0.005)
    status, sent = outcome[0]
    assert sent < BODY, "the server read the whole body"
    assert status in (413, 0)  # 0: reset before the answer could be read
    assert held == 0, f"the server held {held} bytes of temporary files"
    assert disk(served) == before


# -- streams: capped per address and in all, the game's requests always find a thread -------------


@pytest.mark.slow
def test_two_hundred_anonymous_streams_leave_the_state_the_host_and_a_seat_answered(
    served: Served,
) -> None:
    server = served.server
    with contextlib.ExitStack() as sockets:
        streams = flood(served.port, addresses(10, 10), 200, sockets)
        assert all(s.answer is not None for s in streams), "a stream request hung"
        refused = [s.answer for s in streams if s.answer and s.answer.status == 503]
        assert len(refused) + sum(s.status == 200 for s in streams) == 200
        assert all(answer.headers.get("retry-after") for answer in refused)
        assert all(answer.headers["content-type"] == "application/json" for answer in refused)
        kept = [s.source for s in held(streams)]
        assert len(kept) <= CAPS.public
        assert max(kept.count(source) for source in set(kept)) <= CAPS.per_address

        assert server.get("/api/state")[0] == 200
        snap = start_resistance(server)
        status, seats = server.host().request("GET", "/api/host/seats")
        assert status == 200, seats
        token = seats[0]["url"].rsplit("/", 1)[1]
        seat = sockets.enter_context(connect(served.port, "127.0.0.1"))
        seat.sendall(head("GET", f"/api/seat/{token}/events", served.port))
        seat.settimeout(ANSWER_WITHIN)
        answer = read_answer(seat)
        assert answer is not None and answer.status == 200
        first = answer.rest
        while b"\n\n" not in first:
            first += seat.recv(65536)
        assert b"event: seat" in first

        answer, own = host_stream(served, sockets)
        assert answer is not None and answer.status == 200
        snap = server.wait_for(lambda s: s["state"]["phase"] == "propose", "the squad to name")
        pressed = server.press(snap["state"]["commander"], "A")
        assert events_until(own, answer.rest, pressed["revision"])[-1] >= pressed["revision"]


@pytest.mark.slow
def test_a_hundred_and_fifty_idle_sockets_leave_the_host_a_connection(served: Served) -> None:
    with contextlib.ExitStack() as sockets:
        idle = []
        for _ in range(150):
            with contextlib.suppress(OSError):
                idle.append(sockets.enter_context(connect(served.port, "127.0.0.30")))
        assert served.server.get("/api/state")[0] == 200
        start_resistance(served.server)
        reset = [sock for sock in idle if closed_by_server(sock, wait=0.05)]
        assert len(idle) - len(reset) <= PER_ADDRESS  # beyond its share: closed at once
        kept = [sock for sock in idle if sock not in reset]
        assert all(closed_by_server(sock, wait=ANSWER_WITHIN) for sock in kept)  # then, idle


@pytest.mark.slow
def test_a_page_that_closed_gives_its_place_back(served: Served) -> None:
    """A device's share of streams, closed and opened again: each closed stream's place comes
    back (seen when the page closes, not at the next heartbeat)."""
    source = "127.0.0.70"
    for _ in range(3):
        deadline = time.monotonic() + ANSWER_WITHIN
        while True:
            with contextlib.ExitStack() as sockets:
                streams = flood(served.port, [source], CAPS.per_address, sockets)
                if all(s.status == 200 for s in streams):
                    break
            assert time.monotonic() < deadline, [s.status for s in streams]
            time.sleep(0.2)


@pytest.mark.slow
def test_the_sand_never_runs_out_while_the_host_moves_during_a_flood(served: Served) -> None:
    server = served.server
    body = {"game": "sages", "options": {"hourglass": 10}, "names": ["Ada", "Bea"]}
    body["replace"] = server.state()["game_id"]  # the last test's game ends
    status, snap = server.post("/api/games", body)
    assert status == 201, snap
    with contextlib.ExitStack() as sockets:
        flood(served.port, addresses(60, 10), 200, sockets)
        for _ in range(12):
            view = snap["state"]
            sage, where = sorted(view["moves"].items())[0]
            move = {"kind": "move", "seat": view["to_move"], "sage": sage, "to": where["to"][0]}
            status, snap = server.post("/api/act", move)
            assert status == 200, snap
            assert snap["hourglass"]["seat"] == snap["state"]["to_move"]  # the next move's sand
    status, record = server.host().request("GET", "/api/record")
    assert status == 200
    kinds = [json.loads(line)["kind"] for line in str(record).splitlines()[1:]]
    assert kinds.count("move") == 12
    assert "time_up" not in kinds


class Quiet:
    name = "quiet"

    def speak(self, text: str, lang: str) -> None:
        pass


@pytest.mark.slow
def test_a_client_that_stops_reading_is_closed_and_its_thread_freed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process, with the stall time cut to a second: a stream whose client reads nothing
    fills its buffers, then the server closes it and its place (its thread) comes back."""
    monkeypatch.setattr(web.server, "STALL_SECONDS", 1.0)
    config = Config(data_dir=tmp_path, pin_factory="mock", host_pin=PIN)
    companion = build(config, speech=Quiet())
    port = free_port()
    server = web.server.create(companion.app, "127.0.0.1", port)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        with connect(port, "127.0.0.80", rcvbuf=4096) as reader:  # reads nothing
            reader.sendall(head("GET", "/api/events", port))
            hub = companion.broadcaster
            deadline = time.monotonic() + 2 * ANSWER_WITHIN
            revision = 1_000_000
            while hub.held(Pool.PUBLIC) == 0:  # admitted
                assert time.monotonic() < deadline, "the stream was never admitted"
                time.sleep(0.01)
            while hub.held(Pool.PUBLIC):
                assert time.monotonic() < deadline, "the stalled stream kept its place"
                revision += 1
                hub.publish({"revision": revision, "pad": "x" * 65536})
                time.sleep(0.01)
            assert closed_by_server(reader, wait=ANSWER_WITHIN)
    finally:
        server.task_dispatcher.shutdown(timeout=1)
        asyncore.close_all(server._map)
        companion.close()


# -- the pools, in-process ------------------------------------------------------------------------


def broadcaster(**caps: int) -> Broadcaster:
    return Broadcaster(lambda: {"revision": 0}, caps=StreamCaps(**caps), poll=0.01)


class Ticking:
    """A clock that moves one second each time it is read: a stream that waits on it reads it
    over and over, so its heartbeat comes after as many readings, at once in real time."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def now(self) -> float:
        self.seconds += 1.0
        return self.seconds

    def call_later(self, delay: float, fn: Callable[[], None]) -> Callable[[], None]:
        raise AssertionError("the stream schedules nothing")


def test_a_quiet_stream_sends_a_keep_alive_once_the_heartbeat_has_passed() -> None:
    clock = Ticking()
    hub = Broadcaster(lambda: {"revision": 0}, heartbeat=15.0, poll=0.001, clock=clock)
    stream = hub.stream()
    assert next(stream).startswith("retry: 1000\n\nid: 0\n")
    started = clock.seconds
    assert next(stream) == ": keep-alive\n\n"
    assert clock.seconds - started >= 15.0, "not before the heartbeat, on the stream's clock"
    hub.publish({"revision": 1})
    assert next(stream).startswith("id: 1\nevent: state\n"), "a snapshot goes before any keep-alive"


def test_a_device_holds_its_share_of_public_streams_and_no_more() -> None:
    hub = broadcaster(per_address=2)
    hub.admit(Pool.PUBLIC, "10.0.0.9")
    hub.admit(Pool.PUBLIC, "10.0.0.9")
    with pytest.raises(StreamRefused) as refused:
        hub.admit(Pool.PUBLIC, "10.0.0.9")
    assert refused.value.reason is Refusal.DEVICE
    assert refused.value.retry_after > 0
    hub.admit(Pool.PUBLIC, "10.0.0.8")


def test_public_streams_from_many_devices_never_take_the_hosts_or_a_seats_place() -> None:
    hub = broadcaster(public=6, per_address=2)
    for n in range(20):
        with contextlib.suppress(StreamRefused):
            hub.admit(Pool.PUBLIC, f"10.0.0.{n % 10}")
    assert hub.held(Pool.PUBLIC) == 6
    hub.admit(Pool.HOST, "host")
    for token in ("seat-a", "seat-b", "seat-c"):
        hub.admit(Pool.SEAT, token)
    assert (hub.held(Pool.HOST), hub.held(Pool.SEAT)) == (1, 3)


def test_a_device_with_no_stream_takes_the_place_of_the_device_holding_most() -> None:
    hub = broadcaster(public=4, per_address=4)
    flooder = [hub.admit(Pool.PUBLIC, "10.0.0.66") for _ in range(4)]
    hub.admit(Pool.PUBLIC, "10.0.0.2")  # the TV
    assert flooder[0].ending and not any(slot.ending for slot in flooder[1:])
    hub.release(flooder[0])  # its stream saw it had to end
    for device in ("10.0.0.3", "10.0.0.4"):
        hub.admit(Pool.PUBLIC, device)
    assert [slot.ending for slot in flooder] == [True, True, True, False]
    for device in ("10.0.0.66", "10.0.0.5"):  # one each: no place to take
        with pytest.raises(StreamRefused) as refused:
            hub.admit(Pool.PUBLIC, device)
        assert refused.value.reason is Refusal.FULL


def test_a_seats_newest_page_ends_its_oldest_stream() -> None:
    hub = broadcaster(per_seat=2)
    first, second = hub.admit(Pool.SEAT, "token"), hub.admit(Pool.SEAT, "token")
    third = hub.admit(Pool.SEAT, "token")
    assert first.ending and not second.ending and not third.ending
    stream = hub.stream_views(lambda: {"public": {"revision": 0}}, first)
    assert next(stream).startswith("retry:")
    assert list(stream) == []  # ended
    assert hub.held(Pool.SEAT) == 2


def test_a_stream_whose_client_has_gone_gives_its_place_back_at_once_then_ends() -> None:
    hub = broadcaster(per_address=1)
    gone = threading.Event()
    stream = hub.stream(hub.admit(Pool.PUBLIC, "10.0.0.9", alive=lambda: not gone.is_set()))
    assert next(stream).startswith("retry:")
    gone.set()  # the page closed: the server knows at once
    hub.admit(Pool.PUBLIC, "10.0.0.9")  # its place, before its stream has seen it
    assert list(stream) == []


def test_a_client_that_stopped_reading_keeps_its_place_until_its_stream_has_ended() -> None:
    """Dropped for falling behind, its thread may still be waiting to write to it: its place is
    not given to another stream before that thread is free."""
    hub = broadcaster(per_address=1)
    stream = hub.stream(hub.admit(Pool.PUBLIC, "10.0.0.9"))
    assert next(stream).startswith("retry:")
    for revision in range(1, CLIENT_BACKLOG + 2):
        hub.publish({"revision": revision})
    with pytest.raises(StreamRefused):
        hub.admit(Pool.PUBLIC, "10.0.0.9")
    stream.close()  # its thread is free
    hub.admit(Pool.PUBLIC, "10.0.0.9")


def test_closing_ends_every_stream_of_every_pool() -> None:
    hub = broadcaster()
    streams = [
        hub.stream(hub.admit(Pool.HOST, "host")),
        hub.stream(hub.admit(Pool.PUBLIC, "10.0.0.9")),
        hub.stream_views(lambda: {"public": {"revision": 0}}, hub.admit(Pool.SEAT, "t")),
    ]
    for stream in streams:
        next(stream)
    hub.close()
    assert all(list(stream) == [] for stream in streams)
    assert hub.clients == 0
