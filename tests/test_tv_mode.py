"""TV mode (/tv): the public page read from across the room, 3 m away (issue 23): at 1920×1080
the body text, what to do now and the narration are at least 32 px, and every title fits one
screen without scrolling, at its start and later on (tests/page_walk.py plays them on)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import BrowserMissing, chromium, wait
from page_walk import (
    CAMERA,
    SIZES,
    TITLES,
    Title,
    advance,
    rejected_to_the_end,
    resize,
    start_title,
)
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server, start_server

pytestmark = pytest.mark.slow

TV = next(s for s in SIZES if s.name == "tv")
MEASURE = """
const px = (el) => parseFloat(getComputedStyle(el).fontSize);
const root = document.documentElement;
return {
  body: px(document.body),
  now: px(document.getElementById('what-now')),
  narration: [...document.querySelectorAll('#narration li')]
    .filter((li) => li.offsetParent !== null).map(px),
  height: root.scrollHeight, width: root.scrollWidth, screen: innerHeight,
  board: !!document.querySelector('main > section.card:not([hidden]):not(#narration-card)'),
  ended: !!document.querySelector('#ending:not([hidden])'),
  overlaps: (() => {  // two parts of the page drawn over each other
    const parts = [...document.querySelectorAll('main > *')].filter((el) => el.offsetParent)
      .map((el) => [el.id, el.getBoundingClientRect()]);
    const out = [];
    parts.forEach(([a, r], i) => parts.slice(i + 1).forEach(([b, q]) => {
      if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1
          && q.top < r.bottom - 1) out.push(a + ' / ' + b);
    }));
    return out;
  })(),
};
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, WebDriver]]:
    tmp: Path = tmp_path_factory.mktemp("tv")
    server = start_server(tmp / "server", camera=CAMERA)
    try:
        try:
            driver = chromium(tmp / "chromium")
        except BrowserMissing as exc:
            pytest.fail(str(exc), pytrace=False)
        try:
            yield server, driver
        finally:
            driver.quit()
    finally:
        server.stop()


def seen_on_tv(server: Server, driver: WebDriver) -> dict[str, object]:
    driver.get(server.url + "/tv")
    resize(driver, TV)
    wait(driver, lambda d: d.execute_script("return document.body.dataset.live") == "yes", "live")
    wait(driver, lambda d: d.execute_script(MEASURE)["board"], "the board")
    # the page fits itself to the screen on the frame after it renders (table.js, fitTV)
    driver.execute_async_script("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))")
    return dict(driver.execute_script(MEASURE))


@pytest.mark.parametrize("title", TITLES, ids=[t.key for t in TITLES])
def test_every_title_is_read_from_across_the_room_on_one_screen(
    table: tuple[Server, WebDriver], title: Title
) -> None:
    server, driver = table
    start_title(server, title)
    moments = [seen_on_tv(server, driver)]
    if advance(server, title):
        moments.append(seen_on_tv(server, driver))
    if title.key == "resistance":  # and at its end, the ending card beside the board
        rejected_to_the_end(server, title.players)
        moments.append(seen_on_tv(server, driver))
    for seen in moments:
        assert seen["body"] >= 32 and seen["now"] >= 32, seen
        if not seen["ended"]:  # at the end the ending card says it all, in the same type
            assert seen["narration"] and min(seen["narration"]) >= 32, seen  # type: ignore[arg-type]
        assert seen["height"] <= seen["screen"], f"{title.key} scrolls on a TV: {seen}"
        assert seen["width"] <= TV.width, seen
        assert not seen["overlaps"], f"{title.key}: parts drawn over each other: {seen}"
