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
from browser import BrowserMissing, chromium, log_in, wait
from page_walk import (
    CAMERA,
    SIZES,
    TITLES,
    Title,
    axe_source,
    axe_violations,
    describe,
    layout,
    rejected_to_the_end,
    resize,
    serious,
    settle,
    start_title,
    walk,
)
from selenium.webdriver.common.by import By
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


def test_the_ending_the_dead_link_and_the_tv_page_are_accessible_too(
    axe: str, shared: tuple[Server, WebDriver]
) -> None:
    """A Résistance game played to its end (five squads rejected: the Cylons win): the ending
    card on the public and host pages and on TV, and a spent seat link's page."""
    server, driver = shared
    title = Title("ending", "resistance", {"players": 5, "identities": "digital"}, 5)
    seat_url = start_title(server, title)
    rejected_to_the_end(server, title.players)
    problems: list[str] = []
    for page, path in (("public", "/"), ("host", "/host"), ("tv", "/tv"), ("dead link", None)):
        if page == "host":
            log_in(driver, server)
        driver.get(seat_url if path is None else server.url + path)
        wait(driver, lambda d: d.find_element(By.ID, "ending").is_displayed(), f"{page}: the end")
        if page == "dead link":
            assert driver.find_elements(By.ID, "seat-gone")  # the styled page, not the seat's
        for size in SIZES:
            resize(driver, size)
            settle(driver)
            where = f"{page} page at the end, {size.name}"
            problems += [describe(v, where) for v in serious(axe_violations(driver, axe))]
            shape = layout(driver)
            if shape["wide"] > shape["inner"]:
                problems.append(f"{where}: {shape['wide']} px wide in {shape['inner']} px")
            problems += [f"{where}: text cut in {cut}" for cut in shape["cut"]]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
