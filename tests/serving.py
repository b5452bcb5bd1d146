"""``companion serve`` as a real process on loopback, and HTTP calls to it.

Used by the power-cut tests, the browser tests and ``scripts/screenshot.py``. Its output goes to
a file, never to an unread pipe (console narration would fill the pipe and stall the narrator).

The host page is locked (``docs/SECURITY.md``): ``Server.post`` goes through a logged-in host
session (``Server.host()``: the PIN from the test config, the session cookie, the CSRF token);
``Server.get`` and ``Server.visitor()`` are anyone on the network.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WAIT = 15.0  # seconds: the most any single step may take before a test gives up
PIN = "2468"  # the host PIN of the test configs (``pin=None``: generated, `companion pin`)
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
SHOWN_PIN = re.compile(r"^Host PIN: (\d+)", re.MULTILINE)

CONFIG = """\
# Written by tests/serving.py: console narration, short night pauses, no debounce.
data_dir = "{data_dir}"

[voice]
engine = "console"

[buttons]
bounce_ms = 0

[narration.pauses]
intro = {pause}
close_eyes = {pause}
cylons_open = {cylons_open}
cylons_close = {pause}
"""


class ServerFailed(RuntimeError):
    """``companion serve`` exited or did not answer; the message carries its output."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_config(
    directory: Path,
    pause: float = 0.1,
    cylons_open: float = 0.1,
    camera: str | None = None,
    pin: str | None = PIN,
) -> Path:
    """A config in ``directory``; ``camera`` is its ``[camera] source`` (e.g. ``"generated:3"``,
    the simulated overhead camera), none by default; ``pin`` its ``[host] pin`` (None: the
    companion generates one and shows it on the console)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "config.toml"
    text = CONFIG.format(
        data_dir=(directory / "data").as_posix(), pause=pause, cylons_open=cylons_open
    )
    if camera is not None:
        text += f"\n[camera]\nsource = {json.dumps(camera)}\n"
    if pin is not None:
        text += f"\n[host]\npin = {json.dumps(pin)}\n"
    path.write_text(text, encoding="utf-8")
    return path


class Client:
    """One browser's worth of HTTP: its own cookies, and the CSRF token of its last host page.
    Answers are (status, JSON) or, for a page, (status, HTML text)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.csrf: str | None = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        raw: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        csrf: bool = True,
    ) -> tuple[int, Any]:
        """``csrf``: send this client's token (when it has one) in ``X-CSRF-Token``."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        sent = {"Content-Type": "application/json"}
        if csrf and self.csrf is not None and method != "GET":
            sent["X-CSRF-Token"] = self.csrf
        sent.update(headers or {})
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, _decoded(response.read())
        except urllib.error.HTTPError as error:
            return error.code, _decoded(error.read())

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
        return self.request("POST", path, body, raw)

    def host_page(self) -> tuple[int, str]:
        """GET /host, keeping the token it carries (the login form's, or the host page's)."""
        status, page = self.request("GET", "/host")
        found = CSRF_META.search(page) or CSRF_FIELD.search(page)
        if found:
            self.csrf = found.group(1)
        return status, str(page)

    def login(self, pin: str) -> tuple[int, str]:
        """The host page's login form, filled with ``pin``; on success this client holds the
        session cookie and the host page's CSRF token."""
        self.host_page()
        form = urllib.parse.urlencode({"pin": pin, "csrf_token": self.csrf or ""}).encode()
        status, page = self.request(
            "POST",
            "/host/login",
            raw=form,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            csrf=False,
        )
        if status == 200 and CSRF_META.search(str(page)):  # redirected to the host page
            self.csrf = CSRF_META.search(str(page)).group(1)  # type: ignore[union-attr]
        return status, str(page)

    def cookie(self, name: str = "companion_host") -> http.cookiejar.Cookie | None:
        return next((c for c in self.cookies if c.name == name), None)


def _decoded(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")


class Server:
    """One ``companion serve`` process. Its output goes to a file, never to an unread pipe
    (console narration would fill the pipe and stall the narrator thread)."""

    def __init__(self, config: Path, port: int) -> None:
        self.config = config
        self.port = port
        self.log = config.parent / f"server-{port}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._host: Client | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = WAIT) -> Server:
        self._host = None  # a restart ends every host session: the host logs in again
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "appliance.cli",
                    "serve",
                    "--config",
                    str(self.config),
                    "--port",
                    str(self.port),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                env=env,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise ServerFailed(
                    f"companion serve exited with {self.process.returncode}:\n{self.output()}"
                )
            try:
                status, _ = self.get("/api/state")
                if status == 200:
                    return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise ServerFailed(
                    f"companion serve did not answer GET /api/state within "
                    f"{timeout} s:\n{self.output()}"
                )
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as a power cut."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def output(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-4000:]
        except OSError:
            return "(no output)"

    @property
    def pin(self) -> str:
        """The host PIN: the config's, else the one ``companion pin`` shows, as the host on the
        companion's computer would read it."""
        config = tomllib.loads(self.config.read_text(encoding="utf-8"))
        if "pin" in config.get("host", {}):
            return str(config["host"]["pin"])
        shown = subprocess.run(
            [sys.executable, "-m", "appliance.cli", "pin", "--config", str(self.config)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=WAIT,
            check=False,
        )
        found = SHOWN_PIN.findall(shown.stdout)
        if not found:
            raise ServerFailed(f"companion pin showed no PIN:\n{shown.stdout}{shown.stderr}")
        return str(found[-1])

    def visitor(self) -> Client:
        """A new client with no session: anyone on the network."""
        return Client(self.url)

    def host(self) -> Client:
        """The host's client, logged in on first use (and again after a restart, which ends
        every host session)."""
        if self._host is None:
            client = Client(self.url)
            status, page = client.login(self.pin)
            if status != 200 or client.csrf is None or client.cookie() is None:
                raise AssertionError(f"the host could not log in ({status}): {page[:500]}")
            self._host = client
        return self._host

    def request(
        self, method: str, path: str, body: Any = None, raw: bytes | None = None
    ) -> tuple[int, Any]:
        """A GET as anyone; anything else as the logged-in host."""
        client = self.visitor() if method == "GET" else self.host()
        return client.request(method, path, body, raw)

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
        """A POST by the logged-in host, with the CSRF token."""
        return self.request("POST", path, body, raw)

    def state(self) -> dict[str, Any]:
        status, snap = self.get("/api/state")
        assert status == 200, snap
        return dict(snap)

    def press(self, seat: int, button: str) -> dict[str, Any]:
        """A press on the virtual panel; the answer comes once the press has been handled."""
        status, snap = self.post("/api/press", {"seat": seat, "button": button})
        assert status == 200, snap
        return dict(snap)

    def wait_for(
        self,
        predicate: Callable[[dict[str, Any]], bool],
        what: str = "the state",
        timeout: float = WAIT,
    ) -> dict[str, Any]:
        """Poll GET /api/state until ``predicate`` holds; fail naming ``what`` otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            snap = self.state()
            if predicate(snap):
                return snap
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; last state: {snap}")
            time.sleep(0.05)


def start_server(
    directory: Path,
    port: int | None = None,
    camera: str | None = None,
    pin: str | None = PIN,
    **pauses: float,
) -> Server:
    config = write_config(directory, camera=camera, pin=pin, **pauses)
    return Server(config, port or free_port()).start()


class Quiet:
    """A speech engine that says nothing aloud (the narration still reaches the pages)."""

    name = "quiet"

    def speak(self, text: str, lang: str) -> None:
        pass


NO_NIGHT_PAUSES = dict.fromkeys(("intro", "close_eyes", "cylons_open", "cylons_close"), 0.0)


def quiet_companion(data_dir: Path, speech: Any = None, **overrides: Any) -> Any:
    """A companion built in-process (``appliance.wiring.build``, for Flask's test client): mock
    pins, the generated camera, the test PIN, no pause in the night, quiet speech unless
    ``speech`` is given. ``overrides`` replace any of these settings. Close it when done."""
    from appliance.wiring import build
    from companion.config import CameraConfig, Config

    settings: dict[str, Any] = {
        "data_dir": data_dir,
        "pin_factory": "mock",
        "camera": CameraConfig(source="generated:3"),
        "host_pin": PIN,
        "pauses": NO_NIGHT_PAUSES,
        **overrides,
    }
    return build(Config(**settings), speech=Quiet() if speech is None else speech)


def host_client(app: Any, pin: str) -> Any:
    """A Flask test client of ``app`` logged in as the host, sending the CSRF token with every
    POST (for tests that build the app in-process with ``appliance.wiring.build``)."""
    client = app.test_client()
    page = client.get("/host").get_data(as_text=True)
    token = CSRF_FIELD.search(page)
    assert token is not None, page[:500]
    answer = client.post("/host/login", data={"pin": pin, "csrf_token": token.group(1)})
    assert answer.status_code == 303, answer.get_data(as_text=True)[:500]
    found = CSRF_META.search(client.get("/host").get_data(as_text=True))
    assert found is not None
    client.environ_base["HTTP_X_CSRF_TOKEN"] = found.group(1)
    return client
