"""A group that has never seen the companion reads, under the board, one line saying what the
table does now and how (web/static/table.js, ``whatNow``): whose move, which button, in the
table's language; none once the game is over."""

from __future__ import annotations

import pytest
from browser import text, wait, wait_live
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Ben", "Cléo", "Dan", "Eve"]


def test_the_table_page_says_what_to_do_now_phase_by_phase(
    server: Server, driver: WebDriver
) -> None:
    options = {"players": 5, "isolated_cylons": True}
    game = {"game": "resistance", "options": options, "names": NAMES}
    assert server.post("/api/games", game)[0] == 201
    commander = NAMES[server.state()["state"]["commander"]]
    driver.get(server.url + "/")
    wait_live(driver)
    line = wait(driver, lambda d: text(d, "what-now"), "the line")
    assert line.startswith(f"{commander} names the squad aloud") and "presses A" in line

    seat = server.state()["state"]["commander"]
    server.press((seat + 1) % 5, "A")
    server.press(seat, "A")
    server.press(seat, "A")
    server.wait_for(lambda s: s["state"]["phase"] == "vote", "the vote")
    wait(driver, lambda d: text(d, "what-now").startswith("Everyone votes"), "the vote's line")
    assert "A for yes, B for no" in text(driver, "what-now")


def test_the_line_is_in_the_tables_language(server: Server, driver: WebDriver) -> None:
    game = {"game": "oraklos", "options": {"players": 3}, "names": NAMES[:3], "language": "fr"}
    assert server.post("/api/games", game)[0] == 201
    driver.get(server.url + "/")
    wait_live(driver)
    line = wait(driver, lambda d: text(d, "what-now"), "the line")
    phase = server.state()["state"]["phase"]
    assert phase in ("draw", "fill", "throw")
    assert any(word in line for word in ("pioche", "gobelet", "lance")), line
