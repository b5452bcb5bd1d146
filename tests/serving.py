"""Start ``companion serve`` as a real process on loopback, and talk to it over HTTP."""

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CONFIG = """\
data_dir = "{data_dir}"

[voice]
engine = "console"

[buttons]
bounce_ms = 0

[narration.pauses]
intro = 0.05
close_eyes = 0.05
cylons_open = 0.05
cylons_close = 0.05
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_config(folder: Path) -> Path:
    path = folder / "companion.toml"
    path.write_text(CONFIG.format(data_dir=(folder / "data").as_posix()), encoding="utf-8")
    return path


@dataclass
class Server:
    config: Path
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> Server:
        log = self.log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--config", str(self.config),
             "--port", str(self.port)],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"companion serve exited: {self.log.read_text()}")
            try:
                self.get("/api/state")
                return self
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        raise TimeoutError(f"companion serve did not answer in {timeout} s: {self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no clean-up, as a power cut."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def press(self, seat: int, button: str) -> Any:
        status, body = self.post("/api/press", {"seat": seat, "button": button})
        assert status == 200, body
        return body

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            snap = self.get("/api/state")
            if predicate(snap):
                return snap
            if time.monotonic() > deadline:
                raise TimeoutError(f"state never matched; last: {snap}")
            time.sleep(0.05)


def new_server(folder: Path) -> Server:
    return Server(write_config(folder), free_port(), folder / "server.log")
