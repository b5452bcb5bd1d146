"""Résistance's set-up on the host page, in a real browser (issue 24): the first Commandant by the
seed's character cards, and Le Plan's ten plot cards under 7 players and its Strong Leader timing.

``companion serve`` on loopback and headless Debian Chromium, as in tests/test_page.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser import new_game_form, open_page, wait
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.alert import Alert
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select
from serving import Server

pytestmark = pytest.mark.slow

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]


def shown(driver: WebDriver, element_id: str) -> bool:
    return bool(driver.find_element(By.ID, element_id).is_displayed())


def alert(driver: WebDriver) -> Alert | None:
    try:
        return driver.switch_to.alert
    except NoAlertPresentException:
        return None


def choose(form: WebElement, name: str, value: str) -> None:
    Select(form.find_element(By.NAME, name)).select_by_value(value)


def start(driver: WebDriver, form: WebElement) -> dict[str, Any]:
    """Start the game the form describes; its options as the public view gives them back."""
    box = form.find_element(By.NAME, "names")
    box.clear()
    box.send_keys("\n".join(NAMES))
    before = driver.execute_script("return snapshot && snapshot.game_id")
    driver.find_element(By.ID, "start").click()
    if before is not None:  # a game runs: the host confirms its end
        wait(driver, alert, "a confirmation").accept()
    wait(
        driver,
        lambda d: d.execute_script("return snapshot && snapshot.game_id") not in (None, before),
        "the game started",
    )
    return dict(driver.execute_script("return snapshot.state.options"))


def test_by_default_the_first_commandant_is_the_holder_of_william_adama(
    server: Server, driver: WebDriver
) -> None:
    """Seed: « Remettez ensuite la carte Commandant au joueur incarnant dans l'ordre de présence :
    William Adama / Laura Roslin / Saul Tigh / Lee Adama / Gaius Baltar »."""
    open_page(driver, server, "/host")
    form = new_game_form(driver)
    assert shown(driver, "characters-box") and not shown(driver, "first-commander-box")
    assert (
        Select(form.find_element(By.NAME, "character_william_adama")).first_selected_option.text
        == "1"
    )
    options = start(driver, form)
    assert options["characters"] == {"william_adama": 0} and options["first_commander"] == 0

    form = new_game_form(driver)
    choose(form, "character_william_adama", "")
    choose(form, "character_gaius_baltar", "1")
    choose(form, "character_laura_roslin", "4")
    options = start(driver, form)
    assert options["characters"] == {"laura_roslin": 3, "gaius_baltar": 0}
    assert options["first_commander"] == 3
    assert driver.execute_script("return snapshot.state.commander") == 3


def test_the_host_may_choose_the_first_commandants_seat_instead(
    server: Server, driver: WebDriver
) -> None:
    open_page(driver, server, "/host")
    form = new_game_form(driver)
    choose(form, "first_commander_by", "seat")
    assert shown(driver, "first-commander-box") and not shown(driver, "characters-box")
    seat = form.find_element(By.NAME, "first_commander")
    seat.clear()
    seat.send_keys("3")
    options = start(driver, form)
    assert options["first_commander"] == 2 and "characters" not in options


def test_le_plan_under_seven_players_uses_ten_cards_the_host_may_count_out(
    server: Server, driver: WebDriver
) -> None:
    """Seed: « Pour une partie à moins de 7 joueurs, on n'utilise que 10 des 15 cartes Complot ;
    référez-vous aux chiffres indiqués sur le côté droit des cartes pour savoir lesquelles »."""
    open_page(driver, server, "/host")
    form = new_game_form(driver)
    assert not shown(driver, "plot-deck-box") and not shown(driver, "strong-leader-box")
    form.find_element(By.NAME, "plot").click()
    assert shown(driver, "plot-deck-box") and shown(driver, "strong-leader-box")
    assert not shown(driver, "plot-cards-box")
    options = start(driver, form)
    assert len(options["plot_deck"]) == 10 and options["strong_leader"] == "before_draw"

    form = new_game_form(driver)
    choose(form, "plot_deck", "chosen")
    assert shown(driver, "plot-cards-box")
    counts = {"strong_leader": 2, "no_confidence": 3, "open_up": 1, "establish_confidence": 1}
    counts |= {"overheard_conversation": 2, "in_the_spotlight": 1}
    for card, count in counts.items():
        field = form.find_element(By.NAME, f"plot_card_{card}")
        field.clear()
        field.send_keys(str(count))
    wait(driver, lambda d: d.find_element(By.ID, "plot-cards-count").text == "10 / 10", "ten")
    choose(form, "strong_leader", "before_proposal")
    options = start(driver, form)
    assert sorted(options["plot_deck"]) == sorted(c for c, n in counts.items() for _ in range(n))
    assert options["strong_leader"] == "before_proposal"

    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "players")).select_by_visible_text("7")
    assert not shown(driver, "plot-deck-box") and shown(driver, "strong-leader-box")
