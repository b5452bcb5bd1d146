"""Every page of every title at phone, tablet and TV sizes: the walk shared by
``tests/test_accessibility.py`` (axe-core, nothing too wide, no cut text) and
``tools/page_screenshots.py`` (the screenshots in ``docs/screenshots/``).

A title is started on a real ``companion serve`` through ``POST /api/games`` (the host's
session); its pages are the public page ``/``, the host page ``/host`` (logged in), the first
seat's phone page (its link from ``GET /api/host/seats``) and the host's login page (the same
browser with its cookies cleared). The window is sized with Chromium's device metrics, so the
page's viewport is exactly the size named.

axe-core is the npm package, installed by ``scripts/test.sh`` into ``.cache/axe``
(``AXE_JS`` names another ``axe.min.js``).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from browser import log_in, wait
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import ROOT, WAIT, Server

AXE_VERSION = "4.14.1"
AXE_DEFAULT = ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
CAMERA = "generated:3"  # Oraklos reads its throws from the simulated overhead camera
NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal"]


@dataclass(frozen=True)
class Title:
    key: str  # the name in the test ids and the screenshots' file names
    game: str
    options: dict[str, Any]
    players: int


TITLES = (
    Title("resistance", "resistance", {"players": 7, "identities": "digital"}, 7),
    Title(
        "resistance-plot", "resistance", {"players": 5, "identities": "digital", "plot": True}, 5
    ),
    Title("oraklos", "oraklos", {"players": 3, "mode": "standard"}, 3),
    Title("ostrakon", "ostrakon", {"players": 5}, 5),
    Title("eleusis", "eleusis", {"players": 3, "god": "companion", "cards": "digital"}, 3),
    Title("sages", "sages", {}, 2),
    Title("night", "night", {"players": 3}, 3),
)


@dataclass(frozen=True)
class Size:
    name: str
    width: int
    height: int
    mobile: bool


SIZES = (
    Size("phone", 360, 740, True),
    Size("tablet", 1024, 768, False),
    Size("tv", 1920, 1080, False),
)
PAGES = ("public", "host", "seat", "login")


def axe_source() -> str:
    """The text of axe.min.js; a clear failure, never a skip, when it is missing."""
    path = Path(os.environ.get("AXE_JS") or AXE_DEFAULT)
    if not path.is_file():
        raise FileNotFoundError(
            f"axe-core is missing ({path}): the accessibility tests inject the npm package "
            f"axe-core. Install it with: npm install --prefix .cache/axe --no-save "
            f"axe-core@{AXE_VERSION} (scripts/test.sh does), or set AXE_JS to an axe.min.js"
        )
    return path.read_text(encoding="utf-8")


def start_title(server: Server, title: Title) -> str:
    """Start ``title`` (replacing any game running); the first seat's phone link."""
    body: dict[str, Any] = {
        "game": title.game,
        "options": title.options,
        "names": NAMES[: title.players],
    }
    running = server.state().get("game_id")
    if running is not None:
        body["replace"] = running
    status, snap = server.post("/api/games", body)
    assert status == 201, f"{title.key} did not start: {snap}"
    status, seats = server.host().get("/api/host/seats")
    assert status == 200 and seats, f"{title.key}: no seat links ({status}): {seats}"
    return str(seats[0]["url"])


def resize(driver: WebDriver, size: Size, height: int | None = None) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {
            "width": size.width,
            "height": height or size.height,
            "deviceScaleFactor": 1,
            "mobile": size.mobile,
        },
    )


def open_at(driver: WebDriver, server: Server, page: str, seat_url: str) -> None:
    """Open one page of the running title in ``driver`` and wait until it has rendered."""
    if page == "login":
        driver.delete_all_cookies()
        driver.get(server.url + "/host")
        wait(driver, lambda d: d.find_elements(By.ID, "login-form"), "the login page")
        return
    if page == "host":
        log_in(driver, server)
    driver.get({"public": server.url + "/", "host": server.url + "/host", "seat": seat_url}[page])
    # A refused stream (this browser's earlier pages' streams not yet seen closed: web/sse.py)
    # is tried again after its Retry-After: more time than one step's WAIT, and one reload.
    # Seen rarely, after many pages in one browser, and not understood yet.
    for attempt in (1, 2):
        try:
            wait(
                driver,
                lambda d: d.execute_script("return document.body.dataset.live") == "yes",
                f"the {page} page's live stream (/api/events) to open",
                timeout=2 * WAIT,
            )
            return
        except TimeoutException:
            if attempt == 2:
                raise
            driver.refresh()


def advance(server: Server, title: Title) -> bool:
    """Play ``title`` on from its start to a later moment with more on its pages (mission
    results, votes laid), through the virtual button panel; False for a title left as it is."""
    if title.key == "resistance":  # mission 1 succeeds, the squad of mission 2 is voted on
        everyone = "A" * title.players
        for votes in (everyone, "AB" * title.players):
            state = server.wait_for(
                lambda s: s["state"]["phase"] == "propose", "a squad to propose"
            )["state"]
            size, commander = state["squad_size"], state["commander"]
            for seat in [(commander + i) % title.players for i in range(size)] + [commander]:
                server.press(seat, "A")
            for seat, button in enumerate(votes[: title.players]):
                server.press(seat, button)
            if votes == everyone:
                for seat in server.wait_for(
                    lambda s: s["state"]["phase"] == "mission", "the mission"
                )["state"]["squad"]:
                    server.press(seat, "A")
        return True
    if title.game == "ostrakon":  # questions asked and voted on, askers on the path
        rng = random.Random(23)
        for _ in range(30):
            server.press(rng.randrange(title.players), rng.choice("AB"))
        return True
    return False


def rejected_to_the_end(server: Server, players: int) -> None:
    """The running Résistance game (no plot cards) played to its end on the virtual panel: a
    mission under way is played out, then every squad is named and rejected by all, five times:
    the Cylons win."""
    server.wait_for(lambda s: s["state"]["phase"] != "night", "the night's end")
    while (state := server.state()["state"])["outcome"] is None:
        if state["phase"] == "mission":
            for seat in state["squad"]:
                server.press(seat, "A")
        elif state["phase"] == "propose":
            commander = state["commander"]
            named = [(commander + i) % players for i in range(state["squad_size"])]
            for seat in [*named, commander]:
                server.press(seat, "A")
        else:
            for seat in range(players):
                server.press(seat, "B")


def walk(
    driver: WebDriver, server: Server, title: Title, later: bool = True
) -> Iterator[tuple[str, str, Size]]:
    """Start ``title`` and open each of its pages at each size, page by page (the page is
    loaded once, then resized): yields (moment, page, size) with the driver showing it; the
    moment is "start", then "later" (``advance``) where the title has one and ``later``."""
    seat_url = start_title(server, title)
    moments = ["start", "later"] if later else ["start"]
    for moment in moments:
        if moment == "later" and not advance(server, title):
            break
        for page in PAGES:
            if moment == "later" and page == "login":
                continue  # the same page whatever the moment
            open_at(driver, server, page, seat_url)
            for size in SIZES:
                resize(driver, size)
                if page == "seat":  # its secrets shown, as its player holds the button
                    driver.execute_script(SHOW_SECRETS)
                settle(driver)
                yield moment, page, size
            if page == "login":
                log_in(driver, server)  # the login page cleared the host's session


SHOW_SECRETS = """
const reveal = document.getElementById('reveal');
if (reveal && !reveal.hidden && typeof Secrets !== 'undefined') Secrets.show(true);
"""


def settle(driver: WebDriver) -> None:
    """Two animation frames: the page has laid itself out at its new size."""
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "requestAnimationFrame(() => requestAnimationFrame(() => done(true)));"
    )


RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']},
                   resultTypes: ['violations']})
  .then(r => done(JSON.stringify(r.violations.map(v => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map(n => ({target: n.target, summary: n.failureSummary, impact: n.impact}))
  })))))
  .catch(e => done(JSON.stringify({error: String(e)})));
"""


def axe_violations(driver: WebDriver, source: str) -> list[dict[str, Any]]:
    """axe-core's WCAG 2 A and AA violations on the page the driver shows."""
    if not driver.execute_script("return typeof window.axe !== 'undefined'"):
        driver.execute_script(source)
    found = json.loads(driver.execute_async_script(RUN_AXE))
    if isinstance(found, dict):
        raise AssertionError(f"axe.run failed: {found['error']}")
    return list(found)


def serious(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in violations if v["impact"] in ("serious", "critical")]


LAYOUT = """
const wide = document.documentElement.scrollWidth;
const cut = [];
for (const el of document.querySelectorAll('button, select')) {
  if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') continue;  // not shown
  if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
    const name = el.id ? '#' + el.id : el.tagName.toLowerCase() +
      (el.className ? '.' + String(el.className).trim().split(/\\s+/).join('.') : '');
    cut.push(name + ' "' + (el.innerText || el.value || '').trim().slice(0, 40) + '" ' +
             el.scrollWidth + 'x' + el.scrollHeight + ' in ' + el.clientWidth + 'x' +
             el.clientHeight);
  }
}
const over = [];
if (wide > innerWidth) {
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > innerWidth + 1 && el.offsetParent !== null) {
      const name = el.id ? '#' + el.id : el.tagName.toLowerCase() +
        (el.className && typeof el.className === 'string' ?
          '.' + el.className.trim().split(/\\s+/).join('.') : '');
      over.push(name + ' (right ' + Math.round(box.right) + ')');
      if (over.length >= 6) break;
    }
  }
}
return {wide: wide, inner: innerWidth, cut: cut, over: over};
"""


def layout(driver: WebDriver) -> dict[str, Any]:
    """The page's width against the viewport's (and what sticks out), and every shown button or
    select whose text does not fit in it."""
    return dict(driver.execute_script(LAYOUT))


def describe(violation: dict[str, Any], where: str) -> str:
    nodes = violation["nodes"]
    lines = [f"{where}: {violation['id']} ({violation['impact']}, {len(nodes)} nodes): "]
    lines[0] += violation["help"]
    for node in nodes[:3]:
        summary = " ".join(str(node["summary"] or "").split())
        lines.append(f"    {' '.join(map(str, node['target']))}: {summary[:300]}")
    return "\n".join(lines)
