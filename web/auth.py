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
PIN_FILE = "host.pin"
SESSION_HOURS = 12  # a game evening, from the login
SECRET_FILE = "session.key"
SECRET_BYTES = 32
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def new_pin(digits: int = PIN_DIGITS) -> str:
    """A PIN of ``digits`` random digits (leading zeros kept), from ``secrets``."""
    return "".join(str(secrets.randbelow(10)) for _ in range(digits))


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


class Sessions:
    """The host sessions the server has opened, in memory: a login opens one (a random id that
    the signed cookie carries), logout ends it, "log out every other device" ends the rest, and a
    new PIN or a restart ends them all. A cookie copied before its session ended opens nothing:
    the server, not the browser, decides. A session lasts ``hours`` from its login."""

    def __init__(
        self, hours: float = SESSION_HOURS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = hours * 3600
        self.clock = clock
        self._lock = threading.Lock()
        self._opened: dict[str, float] = {}

    def open(self) -> str:
        sid = secrets.token_urlsafe(32)
        with self._lock:
            self._expire()
            self._opened[sid] = self.clock()
        return sid

    def live(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        with self._lock:
            self._expire()
            return any(hmac.compare_digest(sid, known) for known in self._opened)

    def end(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str):
                self._opened.pop(sid, None)

    def end_others(self, sid: object) -> int:
        """End every session but ``sid``; how many were ended."""
        with self._lock:
            others = [known for known in self._opened if known != sid]
            for known in others:
                del self._opened[known]
            return len(others)

    def end_all(self) -> None:
        with self._lock:
            self._opened.clear()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._opened)

    def _expire(self) -> None:
        now = self.clock()
        for sid in [s for s, at in self._opened.items() if at + self.seconds <= now]:
            del self._opened[sid]


def stored_pin(data_dir: Path, renew: bool = False) -> str:
    """The host PIN generated for this companion, kept in ``data_dir/host.pin`` (mode 0600):
    made at the first start (or by ``companion pin``), the same at every restart, new with
    ``renew`` (``companion pin --new``). Never said, shown on a page or logged: the host reads
    it with ``companion pin`` on the Pi itself, or from the installer's last lines. A file
    made by root (the installer) is given to the data folder's owner, the service's user."""
    path = data_dir / PIN_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    if not renew:
        try:
            pin = path.read_text("ascii").strip()
        except FileNotFoundError:
            pin = ""
        if pin.isdigit() and 4 <= len(pin) <= 12:
            _private(path)
            return pin
    pin = new_pin()
    fresh = path.with_name(f".{PIN_FILE}.{secrets.token_hex(4)}")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(pin + "\n")
    owner = data_dir.stat()
    if os.geteuid() == 0 and owner.st_uid != 0:
        os.chown(fresh, owner.st_uid, owner.st_gid)
    os.replace(fresh, path)
    return pin


def _private(path: Path) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o): made 0600", path.name, mode)
        path.chmod(0o600)


class Hush:
    """Whether a refusal may be logged now: once per ``every`` seconds per key (a client's
    address), so that a flood of refused requests cannot fill the log and the disk. Bounded:
    the keys told longest ago are forgotten first."""

    def __init__(
        self, every: float = 60.0, clock: Callable[[], float] = time.monotonic, keys: int = 4096
    ) -> None:
        self.every = every
        self.clock = clock
        self.keys = keys
        self._told: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def tell(self, key: str) -> bool:
        with self._lock:
            now = self.clock()
            told = self._told.get(key)
            if told is not None and now - told < self.every:
                return False
            self._told[key] = now
            self._told.move_to_end(key)
            while len(self._told) > self.keys:
                self._told.popitem(last=False)
            return True


@dataclass
class HostLock:
    """What the web app needs to lock the host page: the PIN (from the config, or the one kept
    in the data folder), the key that signs session cookies, whether cookies are HTTPS-only,
    the host sessions and the login limiter.

    A kept PIN is read again when its file changes (``companion pin --new`` while the companion
    runs): every session then ends."""

    pin_text: str = field(default_factory=new_pin, repr=False)
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(SECRET_BYTES), repr=False)
    generated: bool = True
    secure_cookies: bool = False
    limiter: LoginLimiter = field(default_factory=LoginLimiter)
    sessions: Sessions = field(default_factory=Sessions)
    pin_file: Path | None = None
    _seen: tuple[int, int] | None = field(default=None, repr=False)

    @classmethod
    def from_config(cls, pin: str | None, data_dir: Path, secure_cookies: bool) -> HostLock:
        lock = cls(
            pin_text=pin if pin is not None else stored_pin(data_dir),
            secret=session_secret(data_dir),
            generated=pin is None,
            secure_cookies=secure_cookies,
            pin_file=None if pin is not None else data_dir / PIN_FILE,
        )
        lock._seen = lock._stamp()
        return lock

    @property
    def pin(self) -> str:
        return self.current_pin()

    def current_pin(self) -> str:
        """The PIN now: a kept one that changed on disk ends every session."""
        if self.pin_file is not None:
            stamp = self._stamp()
            if stamp != self._seen and stamp is not None:
                try:
                    pin = self.pin_file.read_text("ascii").strip()
                except OSError:
                    pin = ""
                if pin.isdigit() and pin != self.pin_text:
                    self.pin_text = pin
                    self.sessions.end_all()
                    log.info("the host PIN was changed: every host session ended")
                self._seen = stamp
        return self.pin_text

    def _stamp(self) -> tuple[int, int] | None:
        if self.pin_file is None:
            return None
        try:
            st = self.pin_file.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_ino

    def is_host(self, sid: object) -> bool:
        self.current_pin()  # a PIN changed on disk ends the sessions first
        return self.sessions.live(sid)
