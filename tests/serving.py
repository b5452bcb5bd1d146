"""``companion serve`` as a real process on loopback, and HTTP calls to it.

Used by the power-cut tests, the browser tests and ``scripts/screenshot.py``. Its output goes to
a file, never to an unread pipe (console narration would fill the pipe and stall the narrator).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WAIT = 15.0  # seconds: the most any single step may take before a test gives up

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
    directory: Path, pause: float = 0.1, cylons_open: float = 0.1, camera: str | None = None
) -> Path:
    """A config in ``directory``; ``camera`` is its ``[camera] source`` (e.g. ``"generated:3"``,
    the simulated overhead camera), none by default."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "config.toml"
    text = CONFIG.format(
        data_dir=(directory / "data").as_posix(), pause=pause, cylons_open=cylons_open
    )
    if camera is not None:
        text += f"\n[camera]\nsource = {json.dumps(camera)}\n"
    path.write_text(text, encoding="utf-8")
    return path


class Server:
    """One ``companion serve`` process. Its output goes to a file, never to an unread pipe
    (console narration would fill the pipe and stall the narrator thread)."""

    def __init__(self, config: Path, port: int) -> None:
        self.config = config
        self.port = port
        self.log = config.parent / f"server-{port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = WAIT) -> Server:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "companion.cli",
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

    def request(
        self, method: str, path: str, body: Any = None, raw: bytes | None = None
    ) -> tuple[int, Any]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
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
    directory: Path, port: int | None = None, camera: str | None = None, **pauses: float
) -> Server:
    return Server(write_config(directory, camera=camera, **pauses), port or free_port()).start()
