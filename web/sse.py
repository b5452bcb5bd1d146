"""Server-sent events: every client gets each public snapshot, in order, as it is published."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

HEARTBEAT_SECONDS = 15.0
CLIENT_BACKLOG = 256


def sse_message(snapshot: dict[str, Any]) -> str:
    """One SSE message. The data is the public snapshot: nothing else goes on the stream."""
    return f"id: {snapshot['revision']}\nevent: state\ndata: {json.dumps(snapshot)}\n\n"


class Broadcaster:
    def __init__(
        self, current: Callable[[], dict[str, Any]], heartbeat: float = HEARTBEAT_SECONDS
    ) -> None:
        self._current = current
        self._heartbeat = heartbeat
        self._clients: set[queue.Queue[dict[str, Any] | None]] = set()
        self._lock = threading.Lock()

    def publish(self, snapshot: dict[str, Any]) -> None:
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            try:
                client.put_nowait(snapshot)
            except queue.Full:  # a stalled client: drop it, its browser reconnects
                self._drop(client)

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def _drop(self, client: queue.Queue[dict[str, Any] | None]) -> None:
        with self._lock:
            self._clients.discard(client)
        with contextlib.suppress(queue.Full):
            client.put_nowait(None)

    def close(self) -> None:
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            self._drop(client)

    def stream_views(self, view: Callable[[], dict[str, Any] | None]) -> Iterator[str]:
        """A stream of one seat's own view: on each published change, ``view()`` composes it
        afresh (the public snapshot under ``public``, the seat's private view under ``private``);
        the published public snapshot only wakes the stream and never goes on it. When
        ``view()`` answers None (the link was revoked: game over, new game, links re-dealt), a
        ``gone`` event is sent and the stream ends."""
        client: queue.Queue[dict[str, Any] | None] = queue.Queue(CLIENT_BACKLOG)
        with self._lock:
            self._clients.add(client)
        try:
            current = view()
            if current is None:
                yield "event: gone\ndata: {}\n\n"
                return
            last = current["public"]["revision"]
            yield "retry: 1000\n\n" + _view_message(current)
            while True:
                try:
                    woken = client.get(timeout=self._heartbeat)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if woken is None:
                    return
                current = view()
                if current is None:
                    yield "event: gone\ndata: {}\n\n"
                    return
                if current["public"]["revision"] > last:
                    last = current["public"]["revision"]
                    yield _view_message(current)
        finally:
            with self._lock:
                self._clients.discard(client)

    def stream(self) -> Iterator[str]:
        client: queue.Queue[dict[str, Any] | None] = queue.Queue(CLIENT_BACKLOG)
        with self._lock:
            self._clients.add(client)
        try:
            last = self._current()
            yield "retry: 1000\n\n" + sse_message(last)
            while True:
                try:
                    snapshot = client.get(timeout=self._heartbeat)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if snapshot is None:
                    return
                if snapshot["revision"] > last["revision"]:
                    last = snapshot
                    yield sse_message(snapshot)
        finally:
            with self._lock:
                self._clients.discard(client)


def _view_message(view: dict[str, Any]) -> str:
    return f"id: {view['public']['revision']}\nevent: seat\ndata: {json.dumps(view)}\n\n"
