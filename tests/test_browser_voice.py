"""With no speaker on the companion (or on a laptop in simulation), the table page can speak the
narration with the browser's own voices (the Web Speech API, web/static/table.js,
``BrowserVoice``): off until someone turns it on, then every new line in the game's language,
and still on after a reload. Real headless Chromium; ``speechSynthesis.speak`` is recorded by a
script the browser runs before the page's own."""

from __future__ import annotations

from typing import Any

import pytest
from browser import wait, wait_live
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server

pytestmark = pytest.mark.slow

RECORD_SPEECH = """
window.spoken = [];
window.speechSynthesis.speak = (u) => { window.spoken.push([u.text, u.lang]); };
"""


def spoken(driver: WebDriver) -> list[list[str]]:
    said: Any = driver.execute_script("return window.spoken")
    return list(said)


def test_the_page_speaks_new_narration_once_turned_on_and_remembers_it(
    server: Server, driver: WebDriver
) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SPEECH})
    driver.get(server.url + "/")
    wait_live(driver)
    toggle = driver.find_element(By.ID, "speak-here")
    assert toggle.is_displayed() and toggle.get_attribute("aria-pressed") == "false"

    options = {"players": 5, "isolated_cylons": True}  # no night: nothing said on its own
    status, _ = server.post("/api/games", {"game": "resistance", "options": options})
    assert status == 201
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#narration li"), "the narration")
    assert spoken(driver) == []  # off: nothing said

    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    server.press(0, "A")  # a line about the squad being named
    wait(driver, lambda d: spoken(d), "a line spoken")
    first = driver.find_element(By.CSS_SELECTOR, "#narration li").text
    assert [first, "en-GB"] in spoken(driver)
    said_before = len(spoken(driver))

    driver.refresh()
    wait_live(driver)
    toggle = driver.find_element(By.ID, "speak-here")
    assert toggle.get_attribute("aria-pressed") == "true"  # kept across the reload
    assert spoken(driver) == []  # the backlog is not read again
    oraklos = {"game": "oraklos", "options": {"players": 3}, "language": "fr"}
    status, refused = server.post("/api/games", oraklos)
    assert status == 409  # a game runs: the host confirms its end
    status, _ = server.post("/api/games", {**oraklos, "replace": refused["running"]["id"]})
    assert status == 201
    wait(driver, lambda d: any(lang == "fr-FR" for _, lang in spoken(d)), "French spoken")
    assert said_before > 0

    driver.find_element(By.ID, "speak-here").click()
    count = len(spoken(driver))
    shown = len(driver.find_elements(By.CSS_SELECTOR, "#narration li"))
    server.press(0, "A")
    wait(
        driver,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#narration li")) > shown,
        "a new line on the page",
    )
    assert len(spoken(driver)) == count  # off again: shown, not said
