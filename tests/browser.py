"""Real-browser helpers: headless Chromium, the host's login, and a player who presses the host
page's virtual buttons (the server itself comes from ``serving.py``).

Used by ``tests/test_page.py`` and by ``scripts/screenshot.py``. Nothing here is mocked: the
server is the installed ``companion`` command, the browser is Debian's ``chromium``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import (
    NoAlertPresentException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.alert import Alert
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait
from serving import WAIT, Server

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class BrowserMissing(RuntimeError):
    """Chromium or chromedriver is not installed where the tests expect it."""


def chromium(profile: Path | None = None, width: int = 1200, height: int = 1000) -> WebDriver:
    """Headless Debian Chromium through chromedriver: never Selenium Manager, never a download."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        raise BrowserMissing(
            f"{' and '.join(missing)} not found: the page tests need a real "
            "browser; install it with: sudo apt install chromium chromium-driver"
        )
    profile = profile or Path(tempfile.mkdtemp(prefix="chromium-"))
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    service = Service(str(CHROMEDRIVER), log_output=str(profile.parent / f"{profile.name}.log"))
    return webdriver.Chrome(service=service, options=options)


def wait(
    driver: WebDriver, condition: Callable[[WebDriver], Any], what: str, timeout: float = WAIT
) -> Any:
    """``condition``'s first true value, polled for at most ``timeout`` seconds; on a timeout the
    message adds what the page's alerts say (a refusal, a request that failed on the way)."""
    try:
        return WebDriverWait(
            driver,
            timeout,
            poll_frequency=0.05,
            ignored_exceptions=(StaleElementReferenceException,),  # a live page re-renders
        ).until(condition, f"timed out waiting for {what}")
    except TimeoutException as timed_out:
        alerts = page_alerts(driver)
        if not alerts:
            raise
        raise TimeoutException(f"{timed_out.msg}; the page says: {alerts}") from timed_out


def page_alerts(driver: WebDriver) -> list[str]:
    """The text of the page's alerts (its ``role="alert"`` boxes: refusals and failed
    requests), the empty ones left out."""
    try:
        texts = driver.execute_script(
            "return [...document.querySelectorAll('[role=alert]')].map((e) => e.textContent)"
        )
    except WebDriverException:
        return []
    return [t.strip() for t in texts if isinstance(t, str) and t.strip()]


def revision(driver: WebDriver) -> int:
    """The revision of the snapshot the page last rendered (``-1`` before the first)."""
    value = driver.execute_script("return document.body.dataset.revision")
    return -1 if value in (None, "") else int(value)


def wait_live(driver: WebDriver) -> None:
    """Wait until the page has rendered and its SSE stream is open."""
    wait(
        driver,
        lambda d: d.execute_script("return document.body.dataset.live") == "yes",
        "the page's live stream (/api/events) to open",
    )


def log_in(driver: WebDriver, server: Server, pin: str | None = None) -> None:
    """Open the host page and, if it asks, log in with the PIN (the test config's, or the one
    the companion printed), as the host would. The session cookie then serves every window
    of this browser; the driver is left on the host page."""
    driver.get(server.url + "/host")
    if not driver.find_elements(By.ID, "login-form"):
        return
    box = driver.find_element(By.ID, "pin")
    box.clear()
    box.send_keys(pin if pin is not None else server.pin)
    driver.find_element(By.ID, "log-in").click()
    wait(
        driver,
        lambda d: d.find_elements(By.ID, "new-game") or d.find_element(By.ID, "login-error").text,
        "the host page after logging in",
    )
    refused = driver.find_elements(By.ID, "login-error")
    assert not refused, f"the host could not log in: {refused[0].text}"


def _redrawn(error: WebDriverException) -> bool:
    """Whether ``error`` says the element was drawn anew between finding and reading it:
    Chrome says so as a stale element, or, when the node goes between the two calls of one
    read, as an inspector error ("Node with given id does not belong to the document")."""
    return isinstance(error, StaleElementReferenceException) or (
        "does not belong to the document" in (error.msg or "")
    )


def text(driver: WebDriver, element_id: str) -> str:
    """The element's text as shown, read again if the live page drew it anew meanwhile."""
    for _ in range(4):
        try:
            return str(driver.find_element(By.ID, element_id).text)
        except WebDriverException as error:
            if not _redrawn(error):
                raise
    return str(driver.find_element(By.ID, element_id).text)


def secret(driver: WebDriver, element_id: str) -> str:
    """The text of a part of a seat's secrets (its identity, vote, card, what it learned), as
    its player sees it after showing them with "Hold to see your secrets" (seat.js, Secrets):
    shown only when hidden, since a second press hides them. Shown with Enter, which toggles
    them whatever the time between key down and key up: a tap is told from a hold by that time
    (``HOLD_MS``), and on a loaded machine a WebDriver tap can last long enough to be taken for
    a hold, which hides the secrets again when it ends (test_seat_secrets.py checks the tap
    and the hold themselves)."""
    if not driver.find_element(By.ID, "secret").is_displayed():
        driver.find_element(By.ID, "reveal").send_keys(Keys.ENTER)
    return text(driver, element_id)


def open_page(driver: WebDriver, server: Server, path: str, new_window: bool = False) -> str:
    """Open a page (in a new window if asked), wait for its live stream, mark it, return it."""
    if new_window:
        driver.switch_to.new_window("window")
    if path == "/host":
        log_in(driver, server)
    driver.get(server.url + path)
    wait_live(driver)
    driver.execute_script("window.__noReload = 42;")
    return str(driver.current_window_handle)


def assert_not_reloaded(driver: WebDriver) -> None:
    """The page marked by ``open_page`` was updated live, never reloaded."""
    assert driver.execute_script("return window.__noReload") == 42, "the page was reloaded"


class Player:
    """Plays Résistance by clicking the host page's virtual button panel, as the table would
    press the real buttons (see ``companion/games/resistance/controls.py``).

    Decisions (who is Commandant, how big the squad is) are read from the server's public
    state; every action is a click on the host page. Each click waits until the host page has
    rendered a newer revision: every press, even an ignored one, publishes one.
    """

    def __init__(self, driver: WebDriver, server: Server, window: str | None = None) -> None:
        self.driver = driver
        self.server = server
        self.window = window or driver.current_window_handle

    def press(self, seat: int, button: str) -> None:
        if self.driver.current_window_handle != self.window:
            self.driver.switch_to.window(self.window)
        before = revision(self.driver)
        self.driver.find_element(By.ID, f"press-{seat}-{button}").click()
        wait(
            self.driver,
            lambda d: revision(d) > before,
            f"the host page to show the result of seat {seat} pressing {button}",
        )

    def phase(self) -> str | None:
        state = self.server.state()["state"]
        return None if state is None else str(state["phase"])

    def wait_phase(self, phase: str) -> dict[str, Any]:
        snap = self.server.wait_for(
            lambda s: s["state"] is not None and s["state"]["phase"] == phase, f"phase {phase}"
        )
        return dict(snap["state"])

    def propose(self, squad: Iterable[int] | None = None) -> list[int]:
        """The named players press A, then the Commandant confirms with A."""
        state = self.wait_phase("propose")
        size, commander = state["squad_size"], state["commander"]
        members = (
            sorted(squad)
            if squad is not None
            else [(commander + i) % state["players"] for i in range(size)]
        )
        assert len(members) == size, f"mission {state['mission']} needs {size} members"
        for seat in members:
            self.press(seat, "A")
        self.press(commander, "A")
        self.wait_phase("vote")
        return members

    def vote(self, votes: Mapping[int, str]) -> None:
        for seat, button in votes.items():
            self.press(seat, button)

    def vote_all(self, button: str = "A") -> None:
        state = self.wait_phase("vote")
        self.vote({seat: button for seat in range(state["players"])})

    def play(self, cards: Mapping[int, str] | None = None) -> None:
        """Squad members play their cards: A = Success, B = Fail (Success unless given)."""
        state = self.wait_phase("mission")
        cards = cards or {}
        for seat in state["squad"]:
            self.press(seat, cards.get(seat, "A"))

    def mission(self, cards: Mapping[int, str] | None = None) -> None:
        """One mission: a squad is proposed, approved by all, and plays its cards."""
        self.propose()
        self.vote_all("A")
        self.play(cards)


def new_game_form(driver: WebDriver) -> WebElement:
    """The host page's ``#new-game`` form, unfolded as a host does (it folds away during a
    game: the page shows the moment first)."""
    box = driver.find_element(By.ID, "setup-box")
    if box.get_attribute("open") is None:
        box.find_element(By.TAG_NAME, "summary").click()
    return driver.find_element(By.ID, "new-game")


def start_game_on_host(
    driver: WebDriver, names: Iterable[str], players: int = 5, language: str = "en"
) -> None:
    """Fill and submit the host page's ``#new-game`` form."""
    from selenium.webdriver.support.ui import Select

    form = new_game_form(driver)
    box = form.find_element(By.NAME, "names")  # first: the player count follows the names
    box.clear()
    box.send_keys("\n".join(names))
    Select(form.find_element(By.NAME, "players")).select_by_visible_text(str(players))
    Select(form.find_element(By.NAME, "language")).select_by_value(language)
    driver.find_element(By.ID, "start").click()


def alert(driver: WebDriver) -> Alert:
    """The confirmation dialog the page opened (window.confirm), once it is up."""

    def shown(d: WebDriver) -> Alert | None:
        try:
            return d.switch_to.alert
        except NoAlertPresentException:
            return None

    return wait(driver, shown, "a confirmation dialog")  # type: ignore[no-any-return]
