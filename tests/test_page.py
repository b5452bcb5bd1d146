"""The live page in a real browser: ``companion serve`` on loopback, headless Debian Chromium.

The public page (/) and the host page (/host) are opened once and never reloaded: everything
they show after that arrives over the SSE stream. A page proves it was not reloaded by keeping
a marker (``window.__noReload = 42``) set on it before the game moved on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import (
    Player,
    assert_not_reloaded,
    log_in,
    open_page,
    revision,
    start_game_on_host,
    text,
    wait,
    wait_live,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server, start_server

pytestmark = pytest.mark.slow

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]
NIGHT, PROPOSE, VOTE = "Night: eyes closed", "The Commandant names a squad", "Vote on the squad"

# Records every phase the page renders, so a phase shown for a fraction of a second is seen.
RECORD_PHASES = """
window.__phases = [];
const phase = document.getElementById("phase");
new MutationObserver(() => window.__phases.push(phase.textContent))
  .observe(phase, {childList: true, characterData: true, subtree: true});
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "server")
    try:
        yield running
    finally:
        running.stop()


# -- helpers --------------------------------------------------------------------------------------


def voted_badges(driver: WebDriver) -> list[str]:
    return [
        li.get_attribute("id")
        for li in driver.find_elements(By.CSS_SELECTOR, "li.seat")
        if li.find_elements(By.CSS_SELECTOR, ".badge.voted")
    ]


def revealed_votes(driver: WebDriver) -> list[tuple[str, str]]:
    return [
        (li.get_attribute("class"), li.text)
        for li in driver.find_elements(By.CSS_SELECTOR, "#last-vote .votes li")
    ]


def start_on_host(driver: WebDriver, server: Server, language: str = "en") -> tuple[str, str]:
    """The public page open first, then the host page in a second window starting a game."""
    public = open_page(driver, server, "/")
    host = open_page(driver, server, "/host", new_window=True)
    start_game_on_host(driver, NAMES, players=5, language=language)
    return public, host


# -- tests ----------------------------------------------------------------------------------------


def test_the_public_page_follows_a_game_started_on_the_host_page(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    assert text(driver, "waiting") == "Waiting for the host to start a game."
    assert not driver.find_element(By.ID, "game").is_displayed()
    driver.execute_script(RECORD_PHASES)

    open_page(driver, server, "/host", new_window=True)
    start_game_on_host(driver, NAMES, players=5)

    driver.switch_to.window(public)
    wait(driver, lambda d: text(d, "phase") == PROPOSE, "the propose phase on the public page")
    phases = driver.execute_script("return window.__phases")
    seen = [p for i, p in enumerate(phases) if i == 0 or p != phases[i - 1]]
    assert seen == [NIGHT, PROPOSE]
    assert not driver.find_element(By.ID, "waiting").is_displayed()
    assert [
        li.text.split("\n")[0] for li in driver.find_elements(By.CSS_SELECTOR, "li.seat")
    ] == NAMES
    assert text(driver, "commander") == "Adama"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#missions li.mission")) == 5
    assert_not_reloaded(driver)


def test_a_vote_shows_who_has_voted_and_nothing_more_until_every_seat_has_voted(
    server: Server, driver: WebDriver
) -> None:
    public, host = start_on_host(driver, server)
    player = Player(driver, server, host)
    assert player.propose() == [0, 1]

    driver.switch_to.window(public)
    wait(driver, lambda d: text(d, "phase") == VOTE, "the vote phase on the public page")
    assert voted_badges(driver) == []
    assert text(driver, "squad") == "Adama, Roslin"

    player.press(2, "B")
    driver.switch_to.window(public)
    wait(driver, lambda d: voted_badges(d) == ["seat-2"], "Starbuck's voted badge")
    assert driver.find_elements(By.CSS_SELECTOR, ".votes, .votes .yes, .votes .no") == []
    assert "no" not in driver.find_element(By.ID, "seat-2").text.lower().split()
    assert_not_reloaded(driver)

    player.vote({0: "A", 1: "A", 3: "B", 4: "B"})
    driver.switch_to.window(public)
    wait(driver, lambda d: len(revealed_votes(d)) == 5, "the revealed votes")
    assert revealed_votes(driver) == [
        ("yes", "Adama: yes"),
        ("yes", "Roslin: yes"),
        ("no", "Starbuck: no"),
        ("no", "Apollo: no"),
        ("no", "Boomer: no"),
    ]
    assert text(driver, "last-vote").startswith("LAST VOTE — MISSION 1")
    verdict = driver.find_element(By.CSS_SELECTOR, "#last-vote .verdict")
    assert verdict.text == "The squad is rejected: 2 yes, 3 no."
    assert "rejected" in verdict.get_attribute("class").split()
    assert len(driver.find_elements(By.CSS_SELECTOR, "#rejections .token.used")) == 1
    assert text(driver, "phase") == PROPOSE
    assert text(driver, "commander") == "Roslin"
    assert voted_badges(driver) == []
    assert_not_reloaded(driver)

    # The next squad's vote: Starbuck now votes yes; the page shows only that she has voted,
    # and the list on show is still the previous vote's, where she said no.
    player.propose()
    player.press(2, "A")
    driver.switch_to.window(public)
    wait(driver, lambda d: voted_badges(d) == ["seat-2"], "Starbuck's voted badge, second vote")
    assert ("no", "Starbuck: no") in revealed_votes(driver)
    assert len(revealed_votes(driver)) == 5

    player.vote({0: "A", 1: "A", 3: "A", 4: "B"})
    driver.switch_to.window(public)
    wait(driver, lambda d: ("yes", "Starbuck: yes") in revealed_votes(d), "the second reveal")
    assert (
        driver.find_element(By.CSS_SELECTOR, "#last-vote .verdict").text
        == "The squad is approved: 4 yes, 1 no."
    )
    assert text(driver, "phase") == "Mission under way"
    assert_not_reloaded(driver)


def test_a_whole_game_played_on_the_virtual_panel_ends_with_the_outcome_banner(
    server: Server, driver: WebDriver
) -> None:
    host = open_page(driver, server, "/host")
    start_game_on_host(driver, NAMES, players=5)
    player = Player(driver, server, host)
    wait(
        driver,
        lambda d: not d.find_element(By.ID, "panel-5").is_displayed(),
        "the panel to show only the five seats in the game",
    )
    assert driver.find_element(By.ID, "panel-4").is_displayed()
    for _ in range(3):
        player.mission()

    wait(driver, lambda d: d.find_element(By.ID, "outcome").is_displayed(), "the outcome banner")
    assert text(driver, "outcome") == "The Colonials win"
    assert "colons" in driver.find_element(By.ID, "outcome").get_attribute("class").split()
    track = driver.find_elements(By.CSS_SELECTOR, "#missions li.mission")
    assert [li.get_attribute("class") for li in track] == ["mission success"] * 3 + ["mission "] * 2
    assert "✔ 2 ✘ 0" in track[0].text and "✔ 3 ✘ 0" in track[1].text
    assert text(driver, "phase") == "Game over"
    assert_not_reloaded(driver)

    open_page(driver, server, "/", new_window=True)
    assert text(driver, "outcome") == "The Colonials win"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#missions li.mission.success")) == 3


def test_a_game_in_french_shows_french_words(server: Server, driver: WebDriver) -> None:
    public, _ = start_on_host(driver, server, language="fr")
    driver.switch_to.window(public)
    wait(
        driver,
        lambda d: text(d, "phase") == "Le Commandant désigne un escadron",
        "the French propose phase",
    )
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
    assert driver.title == "Compagnon de table"
    assert (
        driver.find_element(By.CSS_SELECTOR, "[data-label=rejections]").text
        == "Escadrons rejetés dans la manche"
    )
    assert "escadron de 2" in driver.find_element(By.ID, "missions").text
    assert_not_reloaded(driver)


def test_a_malformed_press_is_refused_with_a_reason_and_changes_nothing(
    server: Server, driver: WebDriver
) -> None:
    host = open_page(driver, server, "/host")
    start_game_on_host(driver, NAMES, players=5)
    player = Player(driver, server, host)
    player.wait_phase("propose")
    before = server.state()
    wait(driver, lambda d: revision(d) == before["revision"], "the page to show the table as is")

    malformed = [
        ({"seat": 99, "button": "A"}, "seat must be a number from 0 to 9"),
        ({"seat": 1, "button": "C"}, 'button must be "A" or "B"'),
        ({"seat": "1", "button": "A"}, "seat must be a number"),
        ({"seat": True, "button": "A"}, "seat must be a number"),
        ({"button": "A"}, "seat must be a number"),
        ([1, "A"], '"seat": number, "button"'),
    ]
    for body, reason in malformed:
        status, answer = server.post("/api/press", body)
        assert status == 400, body
        assert set(answer) == {"error"} and reason in answer["error"], (body, answer)
        assert answer["error"].startswith("This request is not understood")
    status, answer = server.post("/api/press", raw=b"seat=1&button=A")
    assert status == 400 and "send {" in answer["error"]

    assert server.state() == before
    assert revision(driver) == before["revision"]
    player.press(0, "A")  # a well-formed press does change the table: the comparison is live
    assert server.state()["revision"] > before["revision"]


def test_an_open_page_follows_the_game_after_the_server_restarts(
    server: Server, driver: WebDriver
) -> None:
    """A resumed game counts revisions from zero again: the page must not ignore them."""
    public, host = start_on_host(driver, server)
    player = Player(driver, server, host)
    player.propose()
    player.vote({0: "A", 1: "A", 2: "A"})
    revision_before = server.state()["revision"]

    server.stop()
    driver.switch_to.window(public)
    wait(
        driver,
        lambda d: d.execute_script("return document.body.dataset.live") == "no",
        "the page to notice the server is gone",
    )
    banner = driver.find_element(By.ID, "connection")
    assert banner.is_displayed() and "reconnecting" in banner.text  # said at once, not only dimmed
    server.start()
    wait(
        driver,
        lambda d: d.execute_script("return document.body.dataset.live") == "yes",
        "the page to reconnect",
    )
    assert not banner.is_displayed()
    assert server.state()["revision"] < revision_before
    server.post("/api/press", {"seat": 3, "button": "B"})
    wait(
        driver,
        lambda d: voted_badges(d) == ["seat-0", "seat-1", "seat-2", "seat-3"],
        "the vote after the restart on the public page",
    )
    assert_not_reloaded(driver)


def test_the_host_page_asks_for_the_pin_and_logs_out(server: Server, driver: WebDriver) -> None:
    driver.get(server.url + "/host")
    assert driver.find_elements(By.ID, "new-game") == []  # no setup, no controls
    assert driver.find_elements(By.ID, "panel") == []
    assert text(driver, "login-error") == ""
    box = driver.find_element(By.ID, "pin")
    assert box.get_attribute("type") == "password"
    box.send_keys("1357")
    driver.find_element(By.ID, "log-in").click()
    wait(driver, lambda d: text(d, "login-error").startswith("Wrong PIN"), "the wrong PIN refused")
    assert driver.find_elements(By.ID, "new-game") == []

    log_in(driver, server)
    wait_live(driver)
    start_game_on_host(driver, NAMES, players=5)
    server.wait_for(lambda s: s["state"] is not None, "the game started from the host page")

    wait(driver, lambda d: d.find_element(By.ID, "log-out").click() or True, "logging out")
    wait(driver, lambda d: d.find_elements(By.ID, "login-form"), "the login form after logging out")
    status, answer = server.visitor().post("/api/press", {"seat": 0, "button": "A"})
    assert status == 401 and "log in on the host page" in answer["error"]
