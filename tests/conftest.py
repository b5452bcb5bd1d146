"""Fixtures shared by the page tests: a real headless Chromium (tests/browser.py); and for every
test, the narrators of tests/heard.py closed after it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import heard
import pytest
from browser import BrowserMissing, chromium
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server, free_port, quiet_companion, start_server, write_config


@pytest.fixture(autouse=True)
def _close_heard_narrators() -> Iterator[None]:
    yield
    heard.close_all()


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[WebDriver]:
    try:
        browser = chromium(tmp_path / "chromium")
    except BrowserMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture
def companion(tmp_path: Path) -> Iterator[Any]:
    """A quiet companion built in-process (tests/serving.py, quiet_companion), closed after."""
    running = quiet_companion(tmp_path)
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A real ``companion serve`` on loopback, with the test config (tests/serving.py)."""
    running = start_server(tmp_path / "server")
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def lan_server(tmp_path: Path) -> Iterator[Server]:
    """A real ``companion serve`` on every interface ([server] host = "0.0.0.0"), as with
    ``./scripts/serve.sh --lan``: phones reach it. A .local name of its own, so that tests running
    at once never answer for each other."""
    config = write_config(tmp_path / "server")
    name = f"companion-{secrets.token_hex(3)}"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f'\n[server]\nhost = "0.0.0.0"\n\n[network]\nname = "{name}"\n',
        encoding="utf-8",
    )
    running = Server(config, free_port()).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def phones(tmp_path: Path) -> Iterator[list[WebDriver]]:
    """Two phones: two headless Chromiums, each with its own cookies and streams."""
    drivers: list[WebDriver] = []
    try:
        for n in range(2):
            drivers.append(chromium(tmp_path / f"phone-{n}", width=400, height=900))
    except BrowserMissing as exc:
        for driver in drivers:
            driver.quit()
        pytest.fail(str(exc), pytrace=False)
    try:
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()
