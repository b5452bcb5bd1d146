"""A phone vibrates when its seat comes to have to act (web/static/seat.js, ``turnCue``): the
Commandant when a squad is to be named, every seat when the vote opens, the squad's members when
their Mission cards are due; never a seat that may act but need not, and never twice for the
same call. Real headless Chromium; ``navigator.vibrate`` is recorded by a script the browser
runs before the page's own."""

from __future__ import annotations

import pytest
from browser import wait, wait_live
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server

pytestmark = pytest.mark.slow

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]
RECORD_VIBRATIONS = """
window.vibrations = [];
navigator.vibrate = (pattern) => { window.vibrations.push(pattern); return true; };
"""


def vibrations(phone: WebDriver) -> int:
    return int(phone.execute_script("return window.vibrations.length"))


def open_seat(phone: WebDriver, url: str) -> None:
    phone.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_VIBRATIONS})
    phone.get(url)
    wait_live(phone)


def test_a_phone_vibrates_once_each_time_its_seat_must_act(
    server: Server, phones: list[WebDriver]
) -> None:
    options = {"players": 5, "identities": "digital", "isolated_cylons": True}
    status, _ = server.post(
        "/api/games", {"game": "resistance", "options": options, "names": NAMES}
    )
    assert status == 201
    commander = server.state()["state"]["commander"]
    member = (commander + 1) % 5  # named to the squad of 2 with the Commandant
    bystander = (commander + 2) % 5  # neither Commandant nor named
    _, seats = server.host().get("/api/host/seats")
    leader, other = phones
    open_seat(leader, seats[commander]["url"])
    open_seat(other, seats[bystander]["url"])

    wait(leader, lambda d: vibrations(d) == 1, "the Commandant called to name a squad")
    assert vibrations(other) == 0  # it may join the squad, but need not

    server.press(member, "A")
    server.press(commander, "A")  # the Commandant joins: the squad is full
    wait(leader, lambda d: "Confirm the squad" in d.find_element(By.ID, "seat-A").text, "full")
    assert vibrations(leader) == 1  # the same call: no second cue
    server.press(commander, "A")
    server.wait_for(lambda s: s["state"]["phase"] == "vote", "the vote")
    wait(other, lambda d: vibrations(d) == 1, "the bystander called to vote")
    wait(leader, lambda d: vibrations(d) == 2, "the Commandant called to vote")

    other.find_element(By.ID, "seat-A").click()
    wait(other, lambda d: d.find_element(By.ID, "seat-A").is_enabled(), "its vote taken")
    for seat in range(5):
        if seat != bystander:
            server.press(seat, "A")
    server.wait_for(lambda s: s["state"]["phase"] == "mission", "the mission")
    wait(leader, lambda d: vibrations(d) == 3, "the Commandant, on the squad, called to play")
    assert vibrations(other) == 1  # not on the squad: nothing to do
