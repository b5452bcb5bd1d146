"""Oraklos at the table, in a real browser: ``companion serve`` with the simulated overhead camera
(``[camera] source = "generated:3"``), headless Debian Chromium.

The host page starts an Oraklos Junior game (16 dice thrown every round), reads the throw, corrects
a die by tapping it, lays a marker and checks a claim by tapping four dice; the public page, open
in a second window and never reloaded, follows every step over the SSE stream. The dice of the
claim come from the server's state and the engine's own referee, so the test does not depend on
which cards were dealt or where the generated dice fell.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from browser import assert_not_reloaded, new_game_form, open_page, revision, text, wait
from oraklos_referee import reference_claim
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from serving import Server, start_server

from companion.games.oraklos.dice import Die
from companion.games.oraklos.predictions import find

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea", "Cy"]
CAMERA = "generated:3"
DIE = "#o-overlay .die"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "server", camera=CAMERA)
    try:
        yield running
    finally:
        running.stop()


# -- helpers --------------------------------------------------------------------------------------


def start_oraklos(driver: WebDriver, players: int = 3, mode: str = "junior") -> None:
    """Fill the host page's form for Oraklos and press Start."""
    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "game")).select_by_value("oraklos")
    Select(form.find_element(By.NAME, "oraklos_players")).select_by_visible_text(str(players))
    Select(form.find_element(By.NAME, "mode")).select_by_value(mode)
    names = form.find_element(By.NAME, "names")
    names.clear()
    names.send_keys("\n".join(NAMES[:players]))
    driver.find_element(By.ID, "start").click()


def dice_shown(driver: WebDriver) -> list[tuple[int, str]]:
    """(number, colour) of every die outlined over the throw's picture."""
    return [
        (int(g.get_attribute("data-index")), g.get_attribute("data-color"))
        for g in driver.find_elements(By.CSS_SELECTOR, DIE)
    ]


def tap_die(driver: WebDriver, index: int) -> None:
    press(driver, By.CSS_SELECTOR, f'{DIE}[data-index="{index}"]')


def press(driver: WebDriver, by: str, selector: str) -> None:
    """Find and click, again if the live page re-rendered the element in between."""
    wait(driver, lambda d: d.find_element(by, selector).click() or True, f"clicking {selector}")


def click(driver: WebDriver, element_id: str) -> None:
    press(driver, By.ID, element_id)


def die_of(reading: dict[str, Any]) -> Die:
    return Die.from_json({k: reading[k] for k in ("x", "y", "size", "angle", "color", "hole")})


def state(server: Server) -> dict[str, Any]:
    return dict(server.state()["state"])


def a_claim(view: dict[str, Any]) -> tuple[int, str, list[int]]:
    """A seat, one of its cards and four dice: a true prediction of that card when the throw
    has one for some seat's card, else the first card and the first four dice (a wrong claim)."""
    dice = [die_of(d) for d in view["table"]]
    for seat, hand in enumerate(view["hands"]):
        for card in hand:
            found = find(dice, card, either_direction=view["options"]["either_direction"])
            if found is not None:
                return seat, card, list(found.dice)
    return 0, view["hands"][0][0], [0, 1, 2, 3]


def points_for(view: dict[str, Any], card: str, four: list[int], marker: int) -> int:
    """What the claim should score, judged by the brute-force referee, not the engine."""
    dice = [die_of(d) for d in view["table"]]
    valid = reference_claim(dice, four, card, view["options"]["either_direction"])
    return marker if valid else -marker


def read_the_throw(driver: WebDriver, server: Server) -> dict[str, Any]:
    """Press "Read the throw" on the host page; wait for the outlines; fix any misreading so the
    dice match the cup (the generated camera's reading is usually right)."""
    wait(driver, lambda d: d.find_element(By.ID, "o-read").is_displayed(), "Read the throw")
    click(driver, "o-read")
    wait(driver, lambda d: len(dice_shown(d)) == 16, "16 dice outlined on the host page")
    return state(server)


# -- tests ----------------------------------------------------------------------------------------


def test_a_throw_is_read_corrected_and_a_claim_scored_live_on_both_pages(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    host = open_page(driver, server, "/host", new_window=True)
    start_oraklos(driver)
    wait(driver, lambda d: text(d, "o-phase") == "The throw", "the throw phase on the host page")
    assert text(driver, "o-turn") == "Ada"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#o-seats .wish-card")) == 9

    view = read_the_throw(driver, server)
    assert view["mismatch"] == [], f"the generated camera misread the throw: {view['mismatch']}"
    picture = driver.find_element(By.ID, "o-picture")
    wait(
        driver,
        lambda d: d.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth", picture
        ),
        "the throw's picture to load",
    )
    assert dice_shown(driver) == [(d["index"], d["color"]) for d in view["table"]]

    driver.switch_to.window(public)
    wait(driver, lambda d: len(dice_shown(d)) == 16, "16 dice outlined on the public page")
    assert text(driver, "o-phase") == "Looking for predictions"

    # A die tapped on the host page: its menu; a colour chosen: the public page shows it at once.
    index, was = 5, view["table"][5]["color"]
    new = next(c for c in ("red", "yellow", "blue", "black") if c != was)
    driver.switch_to.window(host)
    tap_die(driver, index)
    wait(driver, lambda d: d.find_element(By.ID, "o-menu").is_displayed(), "the die's menu")
    assert text(driver, "o-menu-title").startswith(f"Die {index}, {was}")
    press(driver, By.CSS_SELECTOR, f'#o-menu-colors button[data-color="{new}"]')
    wait(driver, lambda d: not d.find_element(By.ID, "o-menu").is_displayed(), "the menu to close")
    assert state(server)["table"][index]["color"] == new
    driver.switch_to.window(public)
    wait(driver, lambda d: (index, new) in dice_shown(d), "the corrected colour on the public page")
    wait(
        driver, lambda d: d.find_element(By.ID, "o-mismatch").is_displayed(), "the mismatch warning"
    )
    assert "does not match the cup" in text(driver, "o-mismatch")
    assert_not_reloaded(driver)

    # Put back: the warning goes.
    driver.switch_to.window(host)
    tap_die(driver, index)
    press(driver, By.CSS_SELECTOR, f'#o-menu-colors button[data-color="{was}"]')
    driver.switch_to.window(public)
    wait(driver, lambda d: (index, was) in dice_shown(d), "the colour put back on the public page")
    wait(driver, lambda d: not d.find_element(By.ID, "o-mismatch").is_displayed(), "no warning")

    # A marker laid on the host page, seen on the public page.
    view = state(server)
    seat, card, four = a_claim(view)
    driver.switch_to.window(host)
    Select(driver.find_element(By.ID, "o-marker-seat")).select_by_value(str(seat))
    driver.find_element(By.CSS_SELECTOR, '#o-marker-choices button[aria-pressed="true"]')
    press(driver, By.CSS_SELECTOR, f'#o-marker-cards button[data-card="{card}"]')
    click(driver, "o-take-marker")
    driver.switch_to.window(public)
    badge = f'#o-seat-{seat} .wish-card[data-card="{card}"] .marker'
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, badge), "the marker on the card")
    assert driver.find_element(By.CSS_SELECTOR, badge).text == "3"

    # The search ends; the claimant taps four dice and checks them.
    driver.switch_to.window(host)
    click(driver, "o-end-search")
    wait(driver, lambda d: d.find_element(By.ID, "o-claim-panel").is_displayed(), "the claim panel")
    assert text(driver, "o-claimant").startswith(f"{NAMES[seat]} shows marker 3")
    assert not driver.find_element(By.ID, "o-check").is_enabled()
    for die in four:
        tap_die(driver, die)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, f"{DIE}.picked")) == 4, "4 picked")
    assert text(driver, "o-claim-picked") == "4 of 4 dice chosen on the picture."
    expected = points_for(view, card, four, 3)
    click(driver, "o-check")

    driver.switch_to.window(public)
    wait(
        driver,
        lambda d: text(d, f"o-score-{seat}") == str(expected),
        f"{NAMES[seat]}'s score of {expected} on the public page",
    )
    verdict = "right" if expected > 0 else "wrong"
    wait(driver, lambda d: verdict in text(d, "o-last-claim"), "the claim's verdict")
    assert NAMES[seat] in text(driver, "o-last-claim")
    assert driver.find_element(By.CSS_SELECTOR, f'#o-last-claim .wish-card[data-card="{card}"]')
    assert state(server)["scores"][seat] == expected
    assert_not_reloaded(driver)


def test_a_refused_action_shows_its_reason_and_changes_nothing(
    server: Server, driver: WebDriver
) -> None:
    open_page(driver, server, "/host")
    start_oraklos(driver)
    read_the_throw(driver, server)
    view = state(server)
    seat, card, four = a_claim(view)
    Select(driver.find_element(By.ID, "o-marker-seat")).select_by_value(str(seat))
    press(driver, By.CSS_SELECTOR, f'#o-marker-cards button[data-card="{card}"]')
    click(driver, "o-take-marker")
    click(driver, "o-end-search")
    wait(driver, lambda d: d.find_element(By.ID, "o-claim-panel").is_displayed(), "the claim panel")

    # A die misread on purpose: the reading no longer matches the cup, so no claim is judged.
    click(driver, "o-mode")
    tap_die(driver, four[0])
    wrong = next(
        c for c in ("red", "yellow", "blue", "black") if c != view["table"][four[0]]["color"]
    )
    press(driver, By.CSS_SELECTOR, f'#o-menu-colors button[data-color="{wrong}"]')
    wait(
        driver, lambda d: d.find_element(By.ID, "o-mismatch").is_displayed(), "the mismatch warning"
    )
    click(driver, "o-mode")
    for die in four:
        tap_die(driver, die)
    before = server.state()
    wait(driver, lambda d: revision(d) == before["revision"], "the page to show the table as is")
    click(driver, "o-check")
    wait(driver, lambda d: text(d, "o-claim-error") != "", "the refusal next to Check")
    after = server.state()
    status, answer = server.post("/api/act", {"kind": "claim", "seat": seat, "dice": four})
    assert status == 400 and text(driver, "o-claim-error") == answer["error"]
    assert answer["error"].startswith("The cup held 4 ")  # its first differing colour
    assert after["revision"] == before["revision"]
    assert after["state"] == before["state"]
    assert revision(driver) == before["revision"]
    assert text(driver, f"o-score-{seat}") == "0"
    assert len(driver.find_elements(By.CSS_SELECTOR, f"{DIE}.picked")) == 4  # the choice is kept


def test_the_public_page_shows_the_board_and_no_host_control(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    open_page(driver, server, "/host", new_window=True)
    start_oraklos(driver)
    read_the_throw(driver, server)
    driver.switch_to.window(public)
    wait(driver, lambda d: len(dice_shown(d)) == 16, "16 dice on the public page")
    for control in (
        "o-controls",
        "o-menu",
        "o-read",
        "o-marker-panel",
        "o-claim-panel",
        "new-game",
        "panel",
    ):
        assert driver.find_elements(By.ID, control) == [], f"#{control} on the public page"
    assert (
        driver.find_elements(By.CSS_SELECTOR, "#oraklos button, #oraklos input, #oraklos select")
        == []
    )
    assert driver.find_elements(By.CSS_SELECTOR, f'{DIE}[tabindex], {DIE}[role="button"]') == []
    tap_die(driver, 0)  # tapping a die does nothing here
    assert state(server)["table"][0]["color"] == dice_shown(driver)[0][1]
    assert [
        li.find_element(By.CLASS_NAME, "o-name").text
        for li in driver.find_elements(By.CSS_SELECTOR, "#o-seats .o-seat")
    ] == NAMES
    assert text(driver, "o-round") == "1"


def test_an_oraklos_game_in_french_shows_french_words(server: Server, driver: WebDriver) -> None:
    open_page(driver, server, "/host")
    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "language")).select_by_value("fr")
    start_oraklos(driver)
    wait(driver, lambda d: text(d, "o-phase") == "Le lancer", "the French throw phase")
    assert text(driver, "o-read") == "Lire le lancer"
    card = driver.find_element(By.CSS_SELECTOR, "#o-seats .wish-card")
    assert card.get_attribute("title").startswith("carte souhait\xa0: ")


def test_when_the_camera_stops_the_host_enters_the_throw_by_hand(
    tmp_path: Path, driver: WebDriver
) -> None:
    """The camera (a video of an empty tray that ends: a camera pulled out) stops as the throw is
    awaited: the host page opens the entry by hand by itself; dice laid there make the throw."""
    video = tmp_path / "tray.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for _ in range(3):
        writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    server = start_server(tmp_path / "server", camera=str(video))
    try:
        open_page(driver, server, "/host")
        start_oraklos(driver)
        wait(driver, lambda d: d.find_element(By.ID, "o-hand-panel").is_displayed(), "by hand")
        assert server.state()["camera_lost"] is True
        area = driver.find_element(By.ID, "o-hand-table")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", area)
        width, height = area.size["width"], area.size["height"]

        def lay(color: str, fx: float, fy: float) -> None:
            press(driver, By.CSS_SELECTOR, f"#o-hand-colors button.color.{color}")
            ActionChains(driver).move_to_element_with_offset(
                area, int((fx - 0.5) * width), int((fy - 0.5) * height)
            ).click().perform()

        lay("blue", 0.25, 0.5)
        lay("red", 0.5, 0.25)
        lay("black", 0.75, 0.75)
        hand = "#o-hand-table .die"
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, hand)) == 3, "3 dice laid")
        press(driver, By.CSS_SELECTOR, f'{hand}[data-index="1"]')  # the red one, taken away
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, hand)) == 2, "2 dice laid")
        assert text(driver, "o-hand-send") == "Enter the throw (2 dice)"
        click(driver, "o-hand-send")
        wait(driver, lambda d: len(dice_shown(d)) == 2, "the 2 dice on the board")
        table = state(server)["table"]
        assert [d["color"] for d in table] == ["blue", "black"]
        assert abs(table[0]["x"] - 150) < 15 and abs(table[0]["y"] - 200) < 15
        assert abs(table[1]["x"] - 450) < 15 and abs(table[1]["y"] - 300) < 15
        assert not driver.find_element(By.ID, "o-hand-panel").is_displayed()
    finally:
        server.stop()
