"""Fixtures shared by the page tests: a real headless Chromium (tests/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import BrowserMissing, chromium
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server, start_server


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
def server(tmp_path: Path) -> Iterator[Server]:
    """A real ``companion serve`` on loopback, with the test config (tests/serving.py)."""
    running = start_server(tmp_path / "server")
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
