"""The host page shows the moment first (issue 23): during a game, the game's board and, in
simulation, the button panel come first and fit a 1024×768 tablet without scrolling; the
new-game form is folded away (one stray click never starts a game); with no game running the
form comes first, unfolded."""

from __future__ import annotations

import pytest
from browser import open_page, wait
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]


def viewport(driver: WebDriver, width: int, height: int) -> None:
    """The page's own area (not the window's) at width × height."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [innerWidth, innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])


def bottom(driver: WebDriver, element_id: str) -> float:
    return float(
        driver.execute_script(
            f"return document.getElementById('{element_id}').getBoundingClientRect().bottom"
        )
    )


def test_during_a_game_of_ten_the_board_and_the_panel_fit_a_tablet_and_the_form_is_folded(
    server: Server, driver: WebDriver
) -> None:
    options = {"players": 10, "isolated_cylons": True}
    game = {"game": "resistance", "options": options, "names": NAMES}
    assert server.post("/api/games", game)[0] == 201
    open_page(driver, server, "/host")
    viewport(driver, 1024, 768)
    wait(driver, lambda d: d.find_element(By.ID, "game").is_displayed(), "the board")
    assert driver.execute_script("return innerHeight") == 768
    assert bottom(driver, "game") <= 768 and bottom(driver, "panel") <= 768
    assert driver.find_element(By.ID, "setup-box").get_attribute("open") is None
    assert not driver.find_element(By.ID, "start").is_displayed()
    assert driver.execute_script("return scrollY") == 0


def test_with_no_game_the_form_comes_first_unfolded(server: Server, driver: WebDriver) -> None:
    open_page(driver, server, "/host")
    viewport(driver, 1024, 768)
    start = wait(driver, lambda d: d.find_element(By.ID, "start"), "the start button")
    wait(driver, lambda d: start.is_displayed(), "the form unfolded")
    top = driver.execute_script(
        "return document.getElementById('setup').getBoundingClientRect().top"
    )
    for other in ("narration-card", "seat-links", "address", "panel", "power"):
        assert (
            top
            < driver.execute_script(
                f"return document.getElementById('{other}').getBoundingClientRect().top"
            )
            + 1
        ), other
