"""The host page asks before anything destructive (issue 23), in a real browser: starting over a
running game names the game that ends, re-dealing every seat's link is confirmed, and the
language chosen for new games is kept across reloads.

``companion serve`` on loopback and headless Debian Chromium, as in tests/test_page.py.
"""

from __future__ import annotations

import pytest
from browser import alert, new_game_form, open_page, start_game_on_host, text, wait
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from serving import Server

from companion.narration import Catalog

pytestmark = pytest.mark.slow

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]


def game_id(driver: WebDriver) -> object:
    return driver.execute_script("return snapshot && snapshot.game_id")


def heading(driver: WebDriver) -> str:
    """The set-up card's title as written (its style may show it in capitals)."""
    return str(driver.find_element(By.CSS_SELECTOR, "#setup h2").get_attribute("textContent"))


def links(driver: WebDriver) -> list[str]:
    return [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "#seat-qr a")]


def test_starting_over_a_running_game_asks_first_naming_it(
    server: Server, driver: WebDriver
) -> None:
    open_page(driver, server, "/host")
    start_game_on_host(driver, NAMES)
    wait(driver, lambda d: game_id(d) is not None, "the first game on the page")
    first = game_id(driver)

    start_game_on_host(driver, NAMES)
    asked = alert(driver)
    words = Catalog("en")
    assert words.text("errors.game_running", game="Résistance") in asked.text
    assert words.text("ui.replace_confirm", game="Résistance") in asked.text
    asked.dismiss()
    wait(driver, lambda d: d.find_element(By.ID, "start").is_enabled(), "Start usable again")
    assert game_id(driver) == first and text(driver, "setup-error") == ""

    start_game_on_host(driver, NAMES)
    alert(driver).accept()
    wait(driver, lambda d: game_id(d) not in (None, first), "the new game on the page")


def test_re_dealing_every_link_asks_first(server: Server, driver: WebDriver) -> None:
    open_page(driver, server, "/host")
    start_game_on_host(driver, NAMES)
    wait(driver, lambda d: len(links(d)) == 5, "five seat links")
    before = links(driver)
    driver.find_element(By.ID, "redeal").click()
    asked = alert(driver)
    assert asked.text == Catalog("en").text("ui.redeal_confirm")
    asked.dismiss()
    assert links(driver) == before
    driver.find_element(By.ID, "redeal").click()
    alert(driver).accept()
    wait(driver, lambda d: len(links(d)) == 5 and not set(links(d)) & set(before), "new links")


def test_the_chosen_language_is_kept_across_reloads(server: Server, driver: WebDriver) -> None:
    open_page(driver, server, "/host")
    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "language")).select_by_value("fr")
    wait(
        driver,
        lambda d: heading(d) == "Nouvelle partie",
        "the set-up form in French",
    )
    open_page(driver, server, "/host")  # reloaded
    wait(
        driver,
        lambda d: heading(d) == "Nouvelle partie",
        "the set-up form still in French",
    )
    chosen = Select(driver.find_element(By.NAME, "language")).first_selected_option
    assert chosen.get_attribute("value") == "fr"
    assert text(driver, "start") == "Lancer"
