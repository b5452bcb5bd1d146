"""Accessible and phone-sized (issue 23): every page of every title (public, host, seat, login)
at phone (360x740), tablet (1024x768) and TV (1920x1080) sizes has no serious or critical
axe-core violation (WCAG 2 A and AA), nothing wider than the window, and no button or select
whose text is cut.

axe-core is the npm package (``scripts/test.sh`` installs it into ``.cache/axe``; ``AXE_JS``
names another ``axe.min.js``), injected into each page of a real ``companion serve`` in headless
Chromium. Without it the test fails and says how to install it. The walk itself is
``tests/page_walk.py``, shared with ``tools/page_screenshots.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import BrowserMissing, chromium
from page_walk import (
    CAMERA,
    TITLES,
    Title,
    axe_source,
    axe_violations,
    describe,
    layout,
    serious,
    walk,
)
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server, start_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def axe() -> str:
    try:
        return axe_source()
    except FileNotFoundError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, WebDriver]]:
    """One server and one browser for every title: each title replaces the one before."""
    tmp: Path = tmp_path_factory.mktemp("accessibility")
    running = start_server(tmp / "server", camera=CAMERA)
    try:
        browser = chromium(tmp / "chromium")
    except BrowserMissing as exc:
        running.stop()
        pytest.fail(str(exc), pytrace=False)
    try:
        yield running, browser
    finally:
        browser.quit()
        running.stop()


@pytest.mark.parametrize("title", TITLES, ids=[t.key for t in TITLES])
def test_every_page_is_accessible_and_fits_at_every_size(
    title: Title, axe: str, shared: tuple[Server, WebDriver]
) -> None:
    server, driver = shared
    problems: list[str] = []
    for moment, page, size in walk(driver, server, title):
        where = f"{title.key} {page} page ({moment}) at {size.name} {size.width}x{size.height}"
        problems += [describe(v, where) for v in serious(axe_violations(driver, axe))]
        shape = layout(driver)
        if shape["wide"] > shape["inner"]:
            problems.append(
                f"{where}: the page is {shape['wide']} px wide in a {shape['inner']} px window; "
                f"sticking out: {', '.join(shape['over']) or '?'}"
            )
        problems += [f"{where}: text cut in {cut}" for cut in shape["cut"]]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
