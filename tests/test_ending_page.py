"""The end of a game on the pages (issue 23), in Chromium: the host page, the public page and a
seat's phone show who won and why and the identities a digital game reveals; the host plays
again in one tap, and the phone is its own seat again without scanning anything; a dead seat
link is a styled page with the result."""

from __future__ import annotations

from typing import Any

from browser import open_page, wait
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
DIGITAL = {"players": 5, "identities": "digital", "isolated_cylons": True}


def play_out(server: Server) -> dict[str, Any]:
    """Every squad approved, every card Success, until the game ends (the host's moves)."""
    while True:
        snap = server.state()
        s = snap["state"]
        if s["outcome"] is not None:
            return snap
        if s["phase"] == "propose":
            move = {"kind": "propose", "commander": s["commander"]}
            move["squad"] = list(range(s["squad_size"]))
        elif s["phase"] == "vote":
            seat = next(n for n in range(s["players"]) if n not in s["voted"])
            move = {"kind": "vote", "seat": seat, "approve": True}
        else:
            seat = next(n for n in s["squad"] if n not in s["played"])
            move = {"kind": "mission_card", "seat": seat, "card": "success"}
        status, answer = server.post("/api/act", move)
        assert status == 200, answer


def shown(driver: WebDriver, element_id: str) -> bool:
    found = driver.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def side_names(driver: WebDriver) -> list[str]:
    return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#ending-sides li")]


def test_the_end_shows_everyone_who_was_who_and_play_again_keeps_the_phone(
    driver: WebDriver, server: Server, phones: list[WebDriver]
) -> None:
    status, _ = server.post(
        "/api/games", {"game": "resistance", "options": DIGITAL, "names": NAMES, "language": "en"}
    )
    assert status == 201
    _, seats = server.host().get("/api/host/seats")
    token = seats[2]["url"].rsplit("/", 1)[1]
    phone, visitor = phones
    phone.get(f"{server.url}/seat/{token}")
    wait(phone, lambda d: d.execute_script("return document.body.dataset.seat") == "2", "seat 2")
    open_page(driver, server, "/host")
    open_page(visitor, server, "/")
    assert not shown(driver, "ending") and not shown(phone, "ending")

    first = play_out(server)
    for page, who in ((driver, "the host"), (visitor, "the public page"), (phone, "the phone")):
        wait(page, lambda d: shown(d, "ending") and len(side_names(d)) == 5, f"{who}'s ending")
        sides = side_names(page)
        assert all(name in line for name, line in zip(NAMES, sides, strict=True))
        assert sum("Cylon" in line for line in sides) == 2
        assert "Colonials win" in page.find_element(By.ID, "ending-said").text
    assert shown(driver, "play-again") and not shown(visitor, "play-again")
    assert not shown(phone, "play-again")

    driver.find_element(By.ID, "play-again").click()  # one tap
    second = server.wait_for(lambda s: s["game_id"] != first["game_id"], "the rematch")
    assert second["names"] == NAMES and second["state"]["options"] == first["state"]["options"]
    wait(driver, lambda d: not shown(d, "ending"), "the host page's new game")
    wait(
        phone,
        lambda d: (
            d.execute_script("return document.body.dataset.seat") == "2" and not shown(d, "ending")
        ),
        "the phone to be seat 2 again, with no new scan",
    )
    _, view = server.visitor().get(f"/api/seat/{token}/state")
    assert view["seat"] == 2 and view["public"]["game_id"] == second["game_id"]


def test_a_dead_link_is_a_styled_page_with_the_result(
    server: Server, phones: list[WebDriver]
) -> None:
    phone, _ = phones
    phone.get(f"{server.url}/seat/not-a-seat")
    wait(phone, lambda d: shown(d, "seat-gone"), "the dead link's page")
    ground = phone.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert ground not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)")  # the site's own CSS
    assert not shown(phone, "ending")

    status, _ = server.post(
        "/api/games", {"game": "resistance", "options": DIGITAL, "names": NAMES, "language": "fr"}
    )
    assert status == 201
    _, seats = server.host().get("/api/host/seats")
    token = seats[0]["url"].rsplit("/", 1)[1]
    play_out(server)
    phone.get(f"{server.url}/seat/{token}")
    wait(phone, lambda d: shown(d, "ending"), "the result on the dead link's page")
    assert phone.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
    assert len(phone.find_elements(By.CSS_SELECTOR, ".ending-sides li")) == 5
    assert "Mission 1 : réussie" in phone.find_element(By.ID, "ending").text
