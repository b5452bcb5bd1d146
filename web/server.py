"""The companion's HTTP server: waitress, with the caps that keep a flood from stopping a game.

The attacker is a player at the table with a phone on the same Wi-Fi (issue 21). Waitress as it
comes lets one such phone stop the game: 64 live streams hold every worker thread, about a
hundred idle sockets reach its connection limit (then it accepts nobody for an hour), and a body
of any size up to 1 GiB is read into a temporary file before the application can refuse it. What
waitress 3.0 does, read in its source, and what is set or added here:

* **Bodies.** A ``Content-Length`` of ``max_request_body_size`` or more is refused by waitress's
  parser as soon as the headers end, before one byte of the body is read: 413, connection closed
  (the rest of the body is never read). A chunked body has no size up front: it is read into
  memory up to the limit, then refused the same way. Bodies below ``inbuf_overflow`` stay in
  memory, so no request ever writes a temporary file (waitress's ``tempfile.TemporaryFile``, in
  ``TMPDIR``). The limit is the application's own (``web.body.MAX_BODY``, 64 KiB), for every
  route, logged in or not.
* **Idle connections.** ``channel_timeout`` closes a connection with no request running and no
  byte received for that long (checked every ``cleanup_interval``); a running request, such as a
  live stream, is never closed by it, whether it writes heartbeats or not.
* **Connections per address.** ``connection_limit`` alone stops accepting anybody once reached.
  Here each client address holds at most ``PER_ADDRESS`` connections: a connection beyond is
  reset as soon as it is accepted, and the total limit is far above what one phone may hold.
  ``poll()`` is used rather than ``select()``, which cannot watch file descriptors past 1024,
  and every waiting connection is accepted in one turn of the loop (waitress takes one).
* **Streams.** ``web/sse.py`` admits live streams from capped pools (the host's, per seat,
  public per address and in all): at most ``StreamCaps.most`` (72) streams, far below ``threads``
  (128), so the requests that play the game always find a thread; an address's own connections
  (32) cannot take the rest either.
* **Clients that stop reading.** What a client does not read waits in memory up to
  ``outbuf_high_watermark`` (then the stream's thread waits; never a temporary file below
  ``outbuf_overflow``), and a connection that has taken no byte for ``STALL_SECONDS`` while
  output waits is closed, which frees its thread.
* **Pages that closed.** ``channel_request_lookahead=1`` keeps reading a connection while its
  request runs, so a client that closed is seen at once (``waitress.client_disconnected``): its
  stream ends within ``web.sse.POLL_SECONDS``, not at the next failed write.
* Waitress's own refusals (413, 431, 400) answer JSON ``{"error": ...}`` like the API's.

Why still waitress, with a thread per stream, rather than an asynchronous server: with these caps
the host keeps playing under the flood (``benchmarks/flood.py``, docs/PERFORMANCE.md: action to
event p95 well under 200 ms, no hourglass run out, no byte written to disk), the Flask
application and its streams stay as they are, and waitress is pure Python (nothing to build on
a Pi). What it lacked were a per-address connection cap, prompt notice of a closed page and a
way to free a thread stuck on a client that stopped reading: the two classes below.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import struct
import threading
import time
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher

from web.auth import Hush
from web.body import MAX_BODY

log = logging.getLogger(__name__)

PER_ADDRESS = 32  # connections one client address may hold: a browser opens about 6 per tab
STALL_SECONDS = 20.0  # output waiting and not one byte taken for this long: the client is gone
TOLD_EVERY = 60.0  # seconds between two log lines about the same refused address
ACCEPT_AT_ONCE = 64  # connections accepted in one turn of the server's loop, at most

SETTINGS: dict[str, Any] = {
    "threads": 128,
    "connection_limit": 512,
    "channel_timeout": 5,  # seconds idle (no request running) before a connection is closed
    "cleanup_interval": 1,
    "max_request_body_size": MAX_BODY + 1,  # waitress refuses from this size on, Flask above
    "max_request_header_size": 32 * 1024,
    "inbuf_overflow": 4 * MAX_BODY,  # more than any accepted body and one read: kept in memory
    "outbuf_high_watermark": 256 * 1024,
    "outbuf_overflow": 4 * 1024 * 1024,
    "channel_request_lookahead": 1,
    "asyncore_use_poll": True,
    "ident": "companion",
}

SENTENCES = {
    400: "This request is malformed ({detail}).",
    413: f"This request is too large: the companion accepts at most {MAX_BODY // 1024} KiB.",
    431: "This request's headers are too large.",
    501: "This request's transfer encoding is not supported.",
}


def client_address(addr: Any) -> str:
    """The client's IP address as one key (an IPv4 client of an IPv6 socket as IPv4)."""
    host = str(addr[0]) if isinstance(addr, tuple) and addr else str(addr)
    return host.removeprefix("::ffff:")


class Guard:
    """Connections held per client address, shared by every listening socket."""

    def __init__(self, per_address: int = PER_ADDRESS) -> None:
        self.per_address = per_address
        self.refused = 0  # connections reset at once, in all
        self.stalled = 0  # connections closed for taking no output
        self._held: dict[str, int] = {}
        self._hush = Hush(TOLD_EVERY)
        self._lock = threading.Lock()

    def open(self, address: str) -> bool:
        """One more connection from ``address``, or False when it holds its share."""
        with self._lock:
            held = self._held.get(address, 0)
            if held >= self.per_address:
                self.refused += 1
                if self._hush.tell(address):
                    log.warning(
                        "%s holds %d connections: more are refused (told once a minute)",
                        address,
                        held,
                    )
                return False
            self._held[address] = held + 1
            return True

    def closed(self, address: str) -> None:
        with self._lock:
            held = self._held.get(address, 0) - 1
            if held > 0:
                self._held[address] = held
            else:
                self._held.pop(address, None)

    def held(self, address: str) -> int:
        with self._lock:
            return self._held.get(address, 0)


class JsonErrorTask(ErrorTask):  # type: ignore[misc]
    """Waitress's own refusals as the API's: ``{"error": sentence}``; the connection closes."""

    def execute(self) -> None:
        error = self.request.error
        sentence = SENTENCES.get(error.code, f"{error.reason}.")
        body = json.dumps({"error": sentence.format(detail=error.body)}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection counted against its address, that knows when it last sent a byte."""

    error_task_class = JsonErrorTask

    def __init__(self, server: GuardedServer, sock: Any, addr: Any, adj: Any, map: Any) -> None:
        self.address = client_address(addr)
        self.last_sent = time.time()
        self.counted = True
        self.aborted = False  # shut down for taking no output: closing
        super().__init__(server, sock, addr, adj, map=map)

    def _flush_some(self, do_close: bool = True) -> bool:
        sent = bool(super()._flush_some(do_close=do_close))
        if sent:
            self.last_sent = time.time()
        return sent

    def del_channel(self, map: Any = None) -> None:
        super().del_channel(map)
        if self.counted:
            self.counted = False
            self.server.guard.closed(self.address)


class GuardedServer(TcpWSGIServer):  # type: ignore[misc]
    """Waitress's TCP server with connections capped per address, and stalled clients closed."""

    channel_class = GuardedChannel

    def __init__(self, application: Any, guard: Guard, **kw: Any) -> None:
        self.guard = guard
        super().__init__(application, **kw)

    def handle_accept(self) -> None:
        """Every connection waiting, up to ``ACCEPT_AT_ONCE`` (waitress takes one per turn of
        its loop: under a flood of connections the host's would wait its turn in the backlog);
        each beyond its address's share reset at once."""
        for _ in range(ACCEPT_AT_ONCE):
            try:
                accepted = self.accept()
            except OSError:
                return
            if accepted is None:  # none waiting
                return
            conn, addr = accepted
            address = client_address(addr)
            if not self.guard.open(address):
                _reset(conn)
                continue
            try:
                self.set_socket_options(conn)
                self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)
            except OSError:  # the client went away before it could be served
                self.guard.closed(address)
                _reset(conn)
            if len(self._map) >= self.adj.connection_limit:
                return

    def maintenance(self, now: float) -> None:
        """Waitress's (idle connections), then clients that stopped reading.

        A stalled connection is shut down here, not closed: this runs while the loop lists the
        sockets to poll, and a file number closed now could be handed to a connection accepted
        in the same turn, which the stale entry would then close. Shut down, the socket hangs
        up, and the loop closes its channel in its own turn (which tells the thread waiting to
        write to it at once)."""
        super().maintenance(now)
        cutoff = now - STALL_SECONDS
        for channel in list(self.active_channels.values()):
            stalled = channel.requests and channel.total_outbufs_len
            if stalled and not channel.aborted and channel.last_sent < cutoff:
                channel.aborted = True
                self.guard.stalled += 1
                log.info("closed a connection from %s that took no output", channel.address)
                with contextlib.suppress(OSError):
                    channel.socket.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )  # what waits unsent is dropped at the close: a reset
                    channel.socket.shutdown(socket.SHUT_RDWR)


def _reset(conn: socket.socket) -> None:
    """Close with a reset: nothing kept in TIME_WAIT for a connection that was never served."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


class _QuietDisconnects(logging.Filter):
    """A client that closed its page during a stream is routine, not news (and a flood of
    them would fill the log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Client disconnected while serving")


def create(app: Any, host: str, port: int, **settings: Any) -> Any:
    """The server (not yet running) for ``app`` on ``host``:``port``: ``SETTINGS`` with
    ``settings`` replacing some (benchmarks/load.py tries others that way)."""
    adj = Adjustments(**{**SETTINGS, **settings, "host": host, "port": port})
    guard = Guard()
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    sockets: dict[int, Any] = {}
    servers = [
        GuardedServer(app, guard, map=sockets, dispatcher=dispatcher, adj=adj, sockinfo=info)
        for info in adj.listen
    ]
    if len(servers) == 1:
        return servers[0]
    listening = [(server.effective_host, server.effective_port) for server in servers]
    return MultiSocketServer(sockets, adj, listening, dispatcher, servers[-1].log_info)


def serve(app: Any, host: str, port: int, **settings: Any) -> None:
    """Serve until SIGTERM (a ``SystemExit`` raised in the loop) or Ctrl-C."""
    logging.getLogger("waitress").addFilter(_QuietDisconnects())
    server = create(app, host, port, **settings)
    server.print_listen("Serving on http://{}:{}")
    server.run()
