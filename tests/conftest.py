"""Fixtures shared by the page tests: a real headless Chromium (tests/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import BrowserMissing, chromium
from selenium.webdriver.remote.webdriver import WebDriver


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
