"""The host lock: a PIN, a signed session cookie, a CSRF token per session, a login rate limit.

Only the host page changes the table. The public page, ``GET /api/state`` and the SSE stream
stay open: they only ever carry the public snapshot. See ``docs/SECURITY.md`` for the threat
model and the choices made here.
"""

from __future__ import annotations

import hmac
import logging
import math
import os
import secrets
import stat
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

PIN_DIGITS = 6  # a generated PIN
SECRET_FILE = "session.key"
SECRET_BYTES = 32
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def new_pin(digits: int = PIN_DIGITS) -> str:
    """A PIN of ``digits`` random digits (leading zeros kept), from ``secrets``."""
    return "".join(str(secrets.randbelow(10)) for _ in range(digits))


def spoken_digits(pin: str) -> str:
    """``"481302"`` -> ``"4 8 1 3 0 2"``: a speech engine then reads the digits one by one."""
    return " ".join(pin)


def pin_matches(pin: str, given: object) -> bool:
    """Constant-time comparison (for PINs of the same length: only the length can leak)."""
    if not isinstance(given, str):
        return False
    typed = "".join(given.split())  # "481 302", as read on the screen or heard, is fine
    return hmac.compare_digest(pin.encode("utf-8"), typed.encode("utf-8", "replace"))


def session_secret(data_dir: Path) -> bytes:
    """The key that signs the session cookies: made once, kept in ``data_dir/session.key``
    (mode 0600), so that a host stays logged in across restarts. Delete the file to log every
    host out."""
    path = data_dir / SECRET_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            log.warning("%s was readable by others (mode %o): made 0600", path, mode)
            path.chmod(0o600)
        key = bytes.fromhex(path.read_text("ascii").strip())
        if len(key) >= 16:
            return key
        log.warning("%s holds no usable key: a new one is made (hosts log in again)", path)
        path.unlink()
        return session_secret(data_dir)
    key = secrets.token_bytes(SECRET_BYTES)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key.hex() + "\n")
    return key


def new_csrf_token() -> str:
    return secrets.token_urlsafe(32)


def token_matches(expected: object, given: object) -> bool:
    if not isinstance(expected, str) or not isinstance(given, str) or not expected:
        return False
    return hmac.compare_digest(
        expected.encode("ascii", "replace"), given.encode("utf-8", "replace")
    )


def same_origin(origin: str | None, referer: str | None, host: str) -> bool:
    """Whether a request comes from this site's own pages, judged by ``Origin`` (else
    ``Referer``) against the ``Host`` the request was sent to. A request with neither (curl,
    the tests' HTTP client) passes: the CSRF token and the cookie still guard it, and no
    browser sends a cross-site POST without ``Origin``."""
    claimed = origin if origin is not None else referer
    if not claimed:
        return origin is None  # an empty Origin header is no origin anyone can vouch for
    if claimed.strip().lower() == "null":  # sandboxed frames, file:// pages, some redirects
        return False
    try:
        netloc = urlsplit(claimed.strip()).netloc
    except ValueError:
        return False
    return bool(netloc) and netloc.lower() == host.strip().lower()


class LoginLimiter:
    """At most ``failures`` wrong PINs per client address in any ``window`` seconds; then the
    client waits until the oldest of them is ``window`` seconds old. In memory (a restart
    forgets), bounded (the least recently failing addresses are forgotten first), and with an
    injectable clock for the tests."""

    def __init__(
        self,
        failures: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        clients: int = 4096,
    ) -> None:
        self.failures = failures
        self.window = window
        self.clock = clock
        self.clients = clients
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def wait(self, client: str) -> int:
        """Seconds ``client`` must wait before trying again (0: it may try now)."""
        with self._lock:
            times = self._recent(client)
            if len(times) < self.failures:
                return 0
            return max(1, math.ceil(times[0] + self.window - self.clock()))

    def failed(self, client: str) -> None:
        with self._lock:
            times = self._recent(client)
            times.append(self.clock())
            while len(times) > self.failures:
                times.popleft()
            self._seen[client] = times
            self._seen.move_to_end(client)
            while len(self._seen) > self.clients:
                self._seen.popitem(last=False)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._seen.pop(client, None)

    def _recent(self, client: str) -> deque[float]:
        times = self._seen.get(client, deque())
        now = self.clock()
        while times and times[0] + self.window <= now:
            times.popleft()
        if not times:
            self._seen.pop(client, None)
        return times


@dataclass
class HostLock:
    """What the web app needs to lock the host page: the PIN (from the config, or generated at
    start-up), the key that signs session cookies, whether cookies are HTTPS-only, and the
    login limiter."""

    pin: str = field(default_factory=new_pin, repr=False)
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(SECRET_BYTES), repr=False)
    generated: bool = True
    secure_cookies: bool = False
    limiter: LoginLimiter = field(default_factory=LoginLimiter)

    @classmethod
    def from_config(cls, pin: str | None, data_dir: Path, secure_cookies: bool) -> HostLock:
        return cls(
            pin=pin if pin is not None else new_pin(),
            secret=session_secret(data_dir),
            generated=pin is None,
            secure_cookies=secure_cookies,
        )
