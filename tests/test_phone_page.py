"""Seats on phones in real browsers: ``companion serve`` on loopback, two headless Chromiums (two
phones, each with its own cookies and stream), the public page in a third window.

Two phone seats vote alongside three button seats; the public page shows the revealed result.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import BrowserMissing, chromium, text, wait, wait_live
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server, start_server

pytestmark = pytest.mark.slow

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]
SIDES = {"colons": "Colonial", "cylons": "Cylon"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "server")
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def phones(tmp_path: Path) -> Iterator[list[WebDriver]]:
    drivers: list[WebDriver] = []
    try:
        for n in range(2):
            drivers.append(chromium(tmp_path / f"phone-{n}", width=400, height=850))
    except BrowserMissing as exc:
        for driver in drivers:
            driver.quit()
        pytest.fail(str(exc), pytrace=False)
    try:
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()


def content(driver: WebDriver, element_id: str) -> str:
    """An element's text as written (``.text`` is as rendered: a heading may be upper-cased)."""
    return str(driver.execute_script(f"return document.getElementById('{element_id}').textContent"))


def button_label(driver: WebDriver, button: str) -> str:
    return str(driver.find_element(By.ID, f"seat-{button}").text)


def test_two_phone_seats_vote_and_the_table_shows_the_result(
    server: Server, phones: list[WebDriver]
) -> None:
    options = {"players": 5, "identities": "digital", "isolated_cylons": True}
    game = {"game": "resistance", "options": options, "names": NAMES}
    status, _ = server.post("/api/games", game)
    assert status == 201
    status, seats = server.host().get("/api/host/seats")
    assert status == 200 and [s["seat"] for s in seats] == [0, 1, 2, 3, 4]
    status, _ = server.visitor().get("/api/host/seats")
    assert status == 401

    for phone, seat in zip(phones, (0, 1), strict=True):
        phone.get(seats[seat]["url"])
        wait_live(phone)
        wait(phone, lambda d, s=seat: content(d, "seat-name") == NAMES[s], "the seat's name")
        api = seats[seat]["url"].replace("/seat/", "/api/seat/") + "/state"
        status, view = server.visitor().get(api[len(server.url) :])
        assert status == 200
        side = view["private"]["identity"]
        assert text(phone, "identity") == SIDES[side]
    public = phones[1]
    public.switch_to.new_window("window")
    public.get(server.url + "/")
    wait_live(public)
    table = public.current_window_handle
    public.switch_to.window(public.window_handles[0])

    for seat in (0, 1, 0):  # the squad is named with the buttons (the virtual panel)
        server.press(seat, "A")
    server.wait_for(lambda s: s["state"]["phase"] == "vote", "the vote")
    for phone in phones:
        wait(phone, lambda d: button_label(d, "A") == "Vote Yes", "the vote's buttons")
        assert button_label(phone, "B") == "Vote No"

    phones[0].find_element(By.ID, "seat-A").click()
    phones[1].find_element(By.ID, "seat-B").click()
    wait(phones[0], lambda d: "Your vote: yes" in text(d, "mine"), "seat 0's own vote")
    wait(phones[1], lambda d: "Your vote: no" in text(d, "mine"), "seat 1's own vote")
    assert "Your vote" not in text(phones[0], "mine").replace("Your vote: yes", "")
    for seat in (2, 3, 4):
        server.press(seat, "A")

    public.switch_to.window(table)
    wait(public, lambda d: "Adama: yes" in text(d, "last-vote"), "the revealed vote")
    revealed = text(public, "last-vote")
    assert "Roslin: no" in revealed and "approved" in revealed.lower()
    assert public.find_elements(By.ID, "seat-card") == []
