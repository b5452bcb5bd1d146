"""A phone lies on the table between neighbours: what its seat alone may see (its identity, its
fellow Cylons, its own vote and Mission card, what it learned) stays hidden until its player
holds or taps "Hold to see your secrets" (web/static/seat.js, ``Secrets``). A Colonial is told,
in those secrets only, why its Fail button plays Success (RULES.md §1: with digital identities
the companion refuses a Colon's Fail; with buttons no refusal is possible without leaking, so
both buttons play Success)."""

from __future__ import annotations

import pytest
from browser import secret, wait, wait_live
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server

pytestmark = pytest.mark.slow

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]
SIDES = {"colons": "Colonial", "cylons": "Cylon"}


def shown(phone: WebDriver) -> bool:
    return phone.find_element(By.ID, "secret").is_displayed()


def on_screen(phone: WebDriver) -> str:
    return str(phone.find_element(By.TAG_NAME, "body").text)


def deal(server: Server) -> tuple[list[dict[str, object]], list[str]]:
    """A digital game of five; every seat's link and side."""
    options = {"players": 5, "identities": "digital", "isolated_cylons": True}
    status, _ = server.post(
        "/api/games", {"game": "resistance", "options": options, "names": NAMES}
    )
    assert status == 201
    _, seats = server.host().get("/api/host/seats")
    sides = []
    for seat in seats:
        path = str(seat["url"]).replace("/seat/", "/api/seat/")[len(server.url) :] + "/state"
        _, view = server.visitor().get(path)
        sides.append(view["private"]["identity"])
    return seats, sides


def test_the_identity_is_hidden_until_tapped_and_a_second_tap_hides_it(
    server: Server, driver: WebDriver
) -> None:
    seats, sides = deal(server)
    driver.get(str(seats[0]["url"]))
    wait_live(driver)
    wait(driver, lambda d: d.find_element(By.ID, "reveal").is_displayed(), "the reveal button")
    assert not shown(driver)
    assert SIDES[sides[0]] not in on_screen(driver)

    driver.find_element(By.ID, "reveal").click()
    wait(driver, shown, "the secrets shown by a tap")
    assert driver.find_element(By.ID, "identity").text == SIDES[sides[0]]
    assert driver.find_element(By.ID, "reveal").get_attribute("aria-expanded") == "true"

    driver.find_element(By.ID, "reveal").click()
    wait(driver, lambda d: not shown(d), "the secrets hidden by a second tap")
    assert SIDES[sides[0]] not in on_screen(driver)


def test_held_the_secrets_show_and_released_they_hide_again(
    server: Server, driver: WebDriver
) -> None:
    seats, sides = deal(server)
    driver.get(str(seats[1]["url"]))
    wait_live(driver)
    button = wait(driver, lambda d: d.find_element(By.ID, "reveal"), "the reveal button")
    wait(driver, lambda d: button.is_displayed(), "the reveal button shown")
    hold = ActionChains(driver).click_and_hold(button).pause(0.7)
    hold.perform()
    assert shown(driver) and SIDES[sides[1]] in on_screen(driver)
    ActionChains(driver).release(button).perform()
    wait(driver, lambda d: not shown(d), "the secrets hidden on release")


def test_the_keyboard_shows_and_hides_the_secrets(server: Server, driver: WebDriver) -> None:
    seats, _ = deal(server)
    driver.get(str(seats[2]["url"]))
    wait_live(driver)
    button = wait(driver, lambda d: d.find_element(By.ID, "reveal"), "the reveal button")
    wait(driver, lambda d: button.is_displayed(), "the reveal button shown")
    button.send_keys(Keys.ENTER)
    wait(driver, shown, "the secrets shown by Enter")
    button.send_keys(Keys.ENTER)
    wait(driver, lambda d: not shown(d), "the secrets hidden by Enter again")


def test_a_colonial_alone_is_told_why_fail_plays_success_and_its_card_stays_secret(
    server: Server, driver: WebDriver
) -> None:
    seats, sides = deal(server)
    colonial = sides.index("colons")
    cylon = sides.index("cylons")
    driver.get(str(seats[cylon]["url"]))
    wait_live(driver)
    secret(driver, "identity")
    assert not driver.find_element(By.ID, "colon-hint").is_displayed()

    driver.get(str(seats[colonial]["url"]))
    wait_live(driver)
    assert not driver.find_element(By.ID, "colon-hint").is_displayed()  # not before a tap
    secret(driver, "identity")
    hint = driver.find_element(By.ID, "colon-hint")
    assert hint.is_displayed() and "both of your buttons play Success" in hint.text

    # the Commandant names the Colonial and one other, the squad is approved
    commander = server.state()["state"]["commander"]
    other = next(s for s in range(5) if s not in (colonial, commander))
    for seat in sorted({colonial, other} - {commander}):
        server.press(seat, "A")
    if commander in (colonial, other):
        server.press(commander, "A")
    server.press(commander, "A")
    server.wait_for(lambda s: s["state"]["phase"] == "vote", "the vote")
    for seat in range(5):
        server.press(seat, "A")
    server.wait_for(lambda s: s["state"]["phase"] == "mission", "the mission")

    wait(driver, lambda d: d.find_element(By.ID, "seat-B").text == "Play Fail", "Play Fail")
    if shown(driver):
        driver.find_element(By.ID, "reveal").click()
    wait(driver, lambda d: not shown(d), "the secrets hidden")
    driver.find_element(By.ID, "seat-B").click()
    wait(driver, lambda d: "Success" in secret(d, "mine"), "the card played, in the secrets")
    driver.find_element(By.ID, "reveal").click()
    wait(driver, lambda d: not shown(d), "the secrets hidden again")
    assert "Your mission card" not in on_screen(driver)
