"""The host's undo on the pages (issue 23, "no undo anywhere: a wrong confirm cannot be taken
back"), in Chromium: the host page offers to take back a squad confirmed by mistake, names it,
asks first, and takes back that one action; the public page never shows the offer."""

from __future__ import annotations

from browser import Player, alert, open_page, wait
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import Server

from companion.narration.catalog import Catalog

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
EN = Catalog("en", NAMES)


def undo_shown(driver: WebDriver) -> bool:
    found = driver.find_elements(By.ID, "undo-box")
    return bool(found) and found[0].is_displayed()


def test_a_squad_confirmed_by_mistake_is_taken_back_from_the_host_page(
    driver: WebDriver, server: Server, phones: list[WebDriver]
) -> None:
    status, _ = server.post(
        "/api/games",
        {"game": "resistance", "options": {"players": 5}, "names": NAMES, "language": "en"},
    )
    assert status == 201
    open_page(driver, server, "/host")
    visitor = phones[0]
    open_page(visitor, server, "/")
    player = Player(driver, server)
    squad = player.propose()
    what = EN.text("undo.resistance.propose", squad=squad)
    wait(driver, undo_shown, "the host's undo")
    assert driver.find_element(By.ID, "undo").text == EN.text("ui.undo", what=what)
    assert not visitor.find_elements(By.ID, "undo-box")  # the table's page has no such thing

    driver.find_element(By.ID, "undo").click()
    asked = alert(driver)
    assert asked.text == EN.text("ui.undo_confirm", what=what)
    asked.dismiss()  # the host changes their mind: nothing is taken back
    assert player.phase() == "vote" and undo_shown(driver)

    driver.find_element(By.ID, "undo").click()
    alert(driver).accept()
    state = player.wait_phase("propose")
    wait(driver, lambda d: not undo_shown(d), "the offer gone once used")
    said = EN.text("undo.taken_back", what=what)
    wait(visitor, lambda d: said in d.find_element(By.ID, "narration").text, "the table told")
    # the squad is read back: the Commandant's A confirms it again, and the vote opens
    player.press(state["commander"], "A")
    assert player.wait_phase("vote")["squad"] == squad


def test_the_undo_button_fits_a_phone(driver: WebDriver, server: Server) -> None:
    status, _ = server.post(
        "/api/games",
        {"game": "resistance", "options": {"players": 10}, "names": [], "language": "fr"},
    )
    assert status == 201
    driver.set_window_size(360, 740)
    open_page(driver, server, "/host")
    Player(driver, server).propose()
    wait(driver, undo_shown, "the host's undo")
    fits = driver.execute_script(
        "const b = document.getElementById('undo'); const r = b.getBoundingClientRect();"
        "return [b.scrollWidth <= b.clientWidth, r.right <= document.documentElement.clientWidth,"
        " b.textContent];"
    )
    assert fits[0] and fits[1], fits
    assert fits[2].startswith("Annuler\u00a0: la validation de l'escadron")
