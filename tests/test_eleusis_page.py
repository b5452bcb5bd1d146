"""Eleusis in real browsers: ``companion serve`` on loopback, two headless Chromiums as the phones
of the two players, and the public table page in a third.

The companion is God, with a rule the host typed; hands are dealt to the phones. A player taps
two cards of their hand in order and plays them; the table page shows the series where it lies,
live: on the main line if accepted, below the card it followed if refused. The rule is on no page.
On the host page, the rule checker marks a mistake's column without showing the rule, and the rule
leaves the page once the game has started.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser import (
    assert_not_reloaded,
    open_page,
    wait,
    wait_live,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from serving import Server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea"]
RULE = "card.colour = red"  # typed by the host: only red cards are accepted
MOST_TURNS = 8


def red(card: str) -> bool:
    return card[-1] in "HD"


def hand_on(phone: WebDriver) -> list[str]:
    """The hand as the phone shows it, in order."""
    cards = phone.find_elements(By.CSS_SELECTOR, "#el-hand .el-hand-card")
    return [str(c.get_attribute("data-card")) for c in cards]


def tap_and_play(phone: WebDriver, picks: list[int]) -> list[str]:
    """Tap the cards at ``picks`` of the hand in order, check the series shown, then Play."""
    hand = hand_on(phone)
    for index in picks:
        phone.find_element(By.ID, f"el-hand-{index}").click()
    series = [hand[i] for i in picks]
    shown = lambda d: [  # noqa: E731
        str(c.get_attribute("data-card"))
        for c in d.find_elements(By.CSS_SELECTOR, "#el-series .pc")
    ]
    wait(phone, lambda d: shown(d) == series, f"the series {series} on the phone")
    phone.find_element(By.ID, "el-play").click()
    return series


def column(driver: WebDriver, position: int) -> Any:
    """The main line's card at ``position`` (1 for the starter) and the series below it."""
    col = driver.find_element(By.CSS_SELECTOR, f'#el-line .el-col[data-position="{position}"]')
    main = col.find_element(By.CSS_SELECTOR, ".el-main").get_attribute("data-card")
    below = [
        [str(c.get_attribute("data-card")) for c in group.find_elements(By.CSS_SELECTOR, ".pc")]
        for group in col.find_elements(By.CSS_SELECTOR, ".el-below .el-fan")
    ]
    return main, below


def main_line(driver: WebDriver) -> list[str]:
    cards = driver.find_elements(By.CSS_SELECTOR, "#el-line .el-main")
    return [str(c.get_attribute("data-card")) for c in cards]


def no_rule_on(page: WebDriver) -> None:
    assert RULE not in page.page_source
    assert RULE not in page.find_element(By.TAG_NAME, "body").text


def test_a_series_tapped_on_a_phone_lies_on_the_table_live_and_the_rule_on_no_page(
    server: Server, phones: list[WebDriver], driver: WebDriver
) -> None:
    options = {"players": 2, "god": "companion", "cards": "digital", "rule": RULE}
    status, _ = server.post("/api/games", {"game": "eleusis", "options": options, "names": NAMES})
    assert status == 201
    _, seats = server.host().get("/api/host/seats")
    for phone, seat in zip(phones, (0, 1), strict=True):
        phone.get(seats[seat]["url"])
        wait_live(phone)
    open_page(driver, server, "/")
    state = server.state()["state"]
    wait(driver, lambda d: main_line(d) == [e["card"] for e in state["line"]], "the starter")

    # A first series of two cards, tapped in order on the phone of the player in turn.
    turn = state["turn"]
    mine, other = phones[turn], phones[1 - turn]
    wait(mine, lambda d: d.find_element(By.ID, "el-play").is_displayed(), "the player's turn")
    hand = hand_on(mine)
    reds = [i for i, card in enumerate(hand) if red(card)]
    picks = reds[:2] if len(reds) >= 2 else [0, 1]
    series = tap_and_play(mine, picks)
    verdict = server.wait_for(lambda s: s["state"]["last_verdict"] is not None, "the verdict")
    accepted = verdict["state"]["last_verdict"]["accepted"]
    assert accepted is all(red(card) for card in series)
    if accepted:
        wait(driver, lambda d: main_line(d)[-2:] == series, "the series on the main line")
    else:
        wait(driver, lambda d: column(d, 1)[1] == [series], "the series below the starter")
    assert (
        driver.find_element(By.ID, "el-verdict").get_attribute("data-accepted")
        == str(accepted).lower()
    )
    assert_not_reloaded(driver)
    for page in (driver, other, mine):
        no_rule_on(page)

    # A refused series, played from whichever phone is in turn: it lies below the card it
    # followed, the last one accepted, and the main line does not change.
    for _ in range(MOST_TURNS):
        state = server.state()["state"]
        phone = phones[state["turn"]]
        wait(phone, lambda d: d.find_element(By.ID, "el-play").is_displayed(), "a player's turn")
        hand = hand_on(phone)
        blacks = [i for i, card in enumerate(hand) if not red(card)]
        if blacks:
            break
        tap_and_play(phone, [0])  # a hand of reds only: one is accepted, and the turn passes
        accepted = state["accepted"]
        server.wait_for(lambda s, a=accepted: s["state"]["accepted"] > a, "the red card accepted")
    else:
        pytest.fail("no hand held a black card")
    line = [entry["card"] for entry in state["line"]]
    wait(driver, lambda d: main_line(d) == line, "the table up to date")
    before = column(driver, len(line))[1]
    picks = [blacks[0], next(i for i in range(len(hand)) if i != blacks[0])]
    series = tap_and_play(phone, picks)
    server.wait_for(lambda s: s["state"]["last_verdict"]["cards"] == series, "the refusal")
    wait(
        driver,
        lambda d: column(d, len(line)) == (line[-1], [*before, series]),
        "the refused series below the last accepted card",
    )
    assert main_line(driver) == line
    assert driver.find_element(By.ID, "el-verdict").get_attribute("data-accepted") == "false"
    fresh = driver.find_elements(By.CSS_SELECTOR, "#el-line .el-refused.fresh .pc")
    assert [c.get_attribute("data-card") for c in fresh] == series
    assert_not_reloaded(driver)
    for page in (driver, *phones):
        no_rule_on(page)


def test_the_host_checks_a_typed_rule_sees_its_faulty_column_and_the_page_forgets_it(
    server: Server, driver: WebDriver
) -> None:
    """The rule is typed in a password field: the checker marks the column of a mistake without
    showing the text; once the game has started, the field is empty and the rule on no page."""
    open_page(driver, server, "/host")
    form = driver.find_element(By.ID, "new-game")
    Select(form.find_element(By.NAME, "game")).select_by_value("eleusis")
    Select(form.find_element(By.NAME, "el_players")).select_by_visible_text("2")
    Select(form.find_element(By.NAME, "el_rule_source")).select_by_value("typed")
    box = driver.find_element(By.ID, "el-rule")
    assert box.get_attribute("type") == "password"
    box.send_keys("card.colour = rde")
    driver.find_element(By.ID, "el-check").click()
    mark = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#el-check-mark mark"), "mark")
    assert mark[0].get_attribute("data-column") == "15"
    assert driver.find_element(By.ID, "el-check-mark").text == "•" * len("card.colour = rde")
    assert "rde" in driver.find_element(By.CSS_SELECTOR, ".el-check-error").text  # the reason

    box.clear()
    box.send_keys(RULE)
    driver.find_element(By.ID, "el-check").click()
    wait(
        driver,
        lambda d: "good" in str(d.find_element(By.ID, "el-check-report").get_attribute("class")),
        "a fit rule",
    )
    form.find_element(By.NAME, "names").send_keys("\n".join(NAMES))
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: d.find_element(By.ID, "eleusis").is_displayed(), "the game")
    assert server.state()["game"] == "eleusis"
    assert driver.find_element(By.ID, "el-rule").get_attribute("value") == ""
    assert not driver.find_element(By.ID, "el-check-report").is_displayed()
    assert_not_reloaded(driver)
    no_rule_on(driver)
