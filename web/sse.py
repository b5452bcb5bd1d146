"""Server-sent events: every client gets each public snapshot, in order, as it is published.

Each live stream holds one of the server's threads for as long as it lasts, so streams are
admitted from three pools with caps of their own (``StreamCaps``), and the game's own requests
always find a thread (``web/server.py``: 128 threads, at most ``StreamCaps.most`` streams):

* the host's own pages (a logged-in host session): a few, the newest ending the oldest;
* each seat's phone (by its link): two per seat, the newest ending the oldest; a page that
  reloads or a phone that came back never waits for its old stream to time out;
* anonymous public pages, by network address: a few per device and a total, refused (503 with
  ``Retry-After``) beyond; when the total is full, a device takes the place of the oldest stream
  of the device holding most, if that one holds at least two more (so a flood from several
  addresses does not keep the TV out).

Only the secret (the host's session, a seat's link) can end a stream of the host's or a seat's
pool: anonymous floods fill the public pool alone. A stream ends when its client has gone
(``alive()``, checked at least every ``POLL_SECONDS``; its place is free at once), when a newer
one takes its place, when it falls ``CLIENT_BACKLOG`` snapshots behind, and at ``close()``.
"""

from __future__ import annotations

import contextlib
import enum
import json
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from companion.timers import REAL_CLOCK, Clock

HEARTBEAT_SECONDS = 15.0
CLIENT_BACKLOG = 256
POLL_SECONDS = 1.0  # how often a quiet stream checks that its client is still there


class Pool(enum.Enum):
    HOST = "host"  # the host's own pages: a logged-in session
    SEAT = "seat"  # a seat's phone: keyed by its link
    PUBLIC = "public"  # anyone: keyed by network address


class Refusal(enum.Enum):
    DEVICE = "device"  # this device (address) holds its share of public streams
    FULL = "full"  # the pool is full


class StreamRefused(Exception):
    """No stream now: answer 503 with ``Retry-After: retry_after``."""

    def __init__(self, pool: Pool, reason: Refusal, retry_after: int) -> None:
        super().__init__(f"{pool.value} streams: {reason.value}")
        self.pool = pool
        self.reason = reason
        self.retry_after = retry_after


@dataclass(frozen=True)
class StreamCaps:
    """How many live streams at once. ``draining``: per pool, streams a newer one replaced that
    have not ended yet: a page that reloaded ends its old stream in milliseconds; a client that
    stopped reading may take until the server closes it (``web/server.py``, a stalled client).
    Per pool, so that replacements among anonymous streams never hold up a seat's."""

    host: int = 4
    per_seat: int = 2
    seats: int = 24  # 12 seats (Ostrakon's most) with two pages each
    per_address: int = 4
    public: int = 32
    draining: int = 4
    retry_after: int = 5  # seconds

    @property
    def most(self) -> int:
        """The most streams, hence threads, held at once."""
        return self.host + self.seats + self.public + len(Pool) * self.draining


class Slot:
    """One admitted stream: its pool and key, the queue its snapshots are put on, and
    ``alive()``, False once its client has gone (a page closed: the server knows at once)."""

    def __init__(
        self, pool: Pool | None, key: str, alive: Callable[[], bool] | None = None
    ) -> None:
        self.pool = pool
        self.key = key
        self.alive = alive or _always
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue(CLIENT_BACKLOG)
        self.views = pool is Pool.SEAT  # a seat's own view (``stream_views``): woken privately
        self.ending = False  # told to end: replaced, too far behind, or the server closing
        self.replaced = False  # by a newer stream: counted among its pool's draining

    def end(self) -> None:
        self.ending = True
        with contextlib.suppress(queue.Full):
            self.queue.put_nowait(None)


def _always() -> bool:
    return True


def sse_message(snapshot: dict[str, Any]) -> str:
    """One SSE message. The data is the public snapshot: nothing else goes on the stream."""
    return f"id: {snapshot['revision']}\nevent: state\ndata: {json.dumps(snapshot)}\n\n"


class Broadcaster:
    def __init__(
        self,
        current: Callable[[], dict[str, Any]],
        heartbeat: float = HEARTBEAT_SECONDS,
        caps: StreamCaps | None = None,
        poll: float = POLL_SECONDS,
        clock: Clock = REAL_CLOCK,
    ) -> None:
        self._current = current
        self._heartbeat = heartbeat  # seconds of ``clock`` without a snapshot: a keep-alive
        self._poll = poll
        self._clock = clock
        self.caps = caps if caps is not None else StreamCaps()
        self._clients: list[Slot] = []  # in the order admitted
        self._lock = threading.Lock()
        self._closed = False

    def publish(self, snapshot: dict[str, Any]) -> None:
        with self._lock:
            clients = [client for client in self._clients if not client.ending]
        self._put(clients, snapshot)

    def wake_seats(self) -> None:
        """Something only a seat's own page shows may have changed (its vote, a refusal for it
        alone), while the public snapshot did not: each seat's stream looks at its view again
        and sends it only if it changed. Public streams are not woken: they would have nothing
        to send, and their timing is public."""
        with self._lock:
            clients = [client for client in self._clients if client.views and not client.ending]
        self._put(clients, WAKE)

    @staticmethod
    def _put(clients: list[Slot], item: dict[str, Any]) -> None:
        for client in clients:
            try:
                client.queue.put_nowait(item)
            except queue.Full:  # a stalled client: drop it, its browser reconnects
                client.end()

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def held(self, pool: Pool) -> int:
        """Streams of ``pool`` not yet ended (those told to end included)."""
        with self._lock:
            return sum(1 for client in self._clients if client.pool is pool)

    def admit(self, pool: Pool, key: str, alive: Callable[[], bool] | None = None) -> Slot:
        """A place for one more stream of ``pool`` from ``key`` (the host, a seat's link, an
        address), or ``StreamRefused``. Decided at once: a refused request never waits.

        A stream holds its place until it has ended or its client has gone (a closed page's
        place is taken back at once), even once told to end: one whose client stopped reading
        keeps its thread, waiting to write, until the server closes it. One that a newer
        stream replaced counts among its pool's ``draining`` instead."""
        caps = self.caps
        per_key, total = {
            Pool.HOST: (caps.host, caps.host),
            Pool.SEAT: (caps.per_seat, caps.seats),
            Pool.PUBLIC: (caps.per_address, caps.public),
        }[pool]
        with self._lock:
            present = []
            for client in self._clients:
                if not client.alive():
                    client.end()  # its stream sees it within POLL_SECONDS
                elif client.pool is pool:
                    present.append(client)
            live = [c for c in present if not c.replaced]
            mine = [c for c in live if c.key == key]
            replaced: Slot | None = None
            if len(mine) >= per_key:
                if pool is Pool.PUBLIC:
                    raise StreamRefused(pool, Refusal.DEVICE, caps.retry_after)
                replaced = mine[0]  # the holder of the secret opened a newer page
            elif len(live) >= total:
                replaced = _fair_share(live, len(mine)) if pool is Pool.PUBLIC else None
                if replaced is None:
                    raise StreamRefused(pool, Refusal.FULL, caps.retry_after)
            if replaced is not None:
                if len(present) - len(live) >= caps.draining:
                    raise StreamRefused(pool, Refusal.FULL, caps.retry_after)
                replaced.replaced = True
                replaced.end()
            slot = Slot(pool, key, alive)
            self._clients.append(slot)
            return slot

    def release(self, slot: Slot) -> None:
        """The stream of ``slot`` is over (its generator ended, or its response was closed
        before it began): its place is free. Idempotent."""
        with self._lock, contextlib.suppress(ValueError):
            self._clients.remove(slot)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            clients = list(self._clients)
        for client in clients:
            client.end()

    def _unpooled(self) -> Slot:
        slot = Slot(None, "")
        with self._lock:
            self._clients.append(slot)
        return slot

    def _next(self, client: Slot) -> dict[str, Any] | None:
        """The next snapshot put on ``client``'s queue; ``QUIET`` when none came within the
        heartbeat; None when the stream is to end (its client gone, told to end, closing)."""
        deadline = self._clock.now() + self._heartbeat
        while not (client.ending or self._closed) and client.alive():
            left = deadline - self._clock.now()
            if left <= 0:
                return QUIET
            try:
                snapshot = client.queue.get(timeout=min(left, self._poll))
            except queue.Empty:
                continue
            if snapshot is not None:
                return snapshot
        return None

    def stream_views(
        self,
        view: Callable[[], dict[str, Any] | None],
        slot: Slot | None = None,
    ) -> Iterator[str]:
        """A stream of one seat's own view: on each published change, and on each change only
        the seats' pages show (``wake_seats``), ``view()`` composes it afresh (the public
        snapshot under ``public``, the seat's private view under ``private``) and it is sent if
        it differs from the last one sent; the published public snapshot only wakes the stream
        and never goes on it. When
        ``view()`` answers None (the link was revoked: game over, new game, links re-dealt), a
        ``gone`` event is sent and the stream ends. ``slot``: its place from ``admit`` (none:
        one outside the caps)."""
        client = slot if slot is not None else self._unpooled()
        client.views = True
        try:
            current = view()
            if current is None:
                yield "event: gone\ndata: {}\n\n"
                return
            last = current
            yield "retry: 1000\n\n" + _view_message(current)
            while True:
                woken = self._next(client)
                if woken is QUIET:
                    yield ": keep-alive\n\n"
                    continue
                if woken is None:
                    return
                current = view()
                if current is None:
                    yield "event: gone\ndata: {}\n\n"
                    return
                if current != last:  # a public change, or this seat's own
                    last = current
                    yield _view_message(current)
        finally:
            self.release(client)

    def stream(self, slot: Slot | None = None) -> Iterator[str]:
        """The public snapshots, each once, in order; ``slot`` as for ``stream_views``."""
        client = slot if slot is not None else self._unpooled()
        try:
            last = self._current()
            yield "retry: 1000\n\n" + sse_message(last)
            while True:
                snapshot = self._next(client)
                if snapshot is QUIET:
                    yield ": keep-alive\n\n"
                    continue
                if snapshot is None:
                    return
                if snapshot["revision"] > last["revision"]:
                    last = snapshot
                    yield sse_message(snapshot)
        finally:
            self.release(client)


QUIET: dict[str, Any] = {}  # ``_next``: no snapshot within the heartbeat
WAKE: dict[str, Any] = {"wake": True}  # put on the seats' streams alone: look at the view again


def _fair_share(live: list[Slot], mine: int) -> Slot | None:
    """The public pool is full: the oldest stream of the device holding most, if it holds at
    least two more than the device asking (which then holds no more than it)."""
    counts: dict[str, int] = {}
    for client in live:
        counts[client.key] = counts.get(client.key, 0) + 1
    key, most = max(counts.items(), key=lambda item: item[1])
    if most < mine + 2:
        return None
    return next(client for client in live if client.key == key)


def _view_message(view: dict[str, Any]) -> str:
    return f"id: {view['public']['revision']}\nevent: seat\ndata: {json.dumps(view)}\n\n"
