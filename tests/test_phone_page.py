"""Seats on phones in real browsers: ``companion serve`` on loopback, two headless Chromiums (two
phones, each with its own cookies and stream), the public page in a third window.

Two phone seats vote alongside three button seats; the public page shows the revealed result.
"""

from __future__ import annotations

import pytest
from browser import open_page, secret, text, wait, wait_live
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from serving import Server

from companion.narration.catalog import Catalog

pytestmark = pytest.mark.slow

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]
SIDES = {"colons": "Colonial", "cylons": "Cylon"}


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
        assert SIDES[side] not in phone.find_element(By.TAG_NAME, "body").text  # not in view
        assert secret(phone, "identity") == SIDES[side]
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
    wait(phones[0], lambda d: "Your vote: yes" in secret(d, "mine"), "seat 0's own vote")
    wait(phones[1], lambda d: "Your vote: no" in secret(d, "mine"), "seat 1's own vote")
    assert "Your vote" not in secret(phones[0], "mine").replace("Your vote: yes", "")
    for seat in (2, 3, 4):
        server.press(seat, "A")

    public.switch_to.window(table)
    wait(public, lambda d: "Adama: yes" in text(d, "last-vote"), "the revealed vote")
    revealed = text(public, "last-vote")
    assert "Roslin: no" in revealed and "approved" in revealed.lower()
    assert public.find_elements(By.ID, "seat-card") == []


def plot_row(driver: WebDriver, box: str, card: str) -> WebElement:
    """The row of plot card ``card`` among the choices shown in ``box``."""
    rows = driver.find_elements(By.CSS_SELECTOR, f"#{box} .plot-row")
    return next(r for r in rows if card in r.text)


def click_choice(driver: WebDriver, box: str, card: str, label: str) -> None:
    row = wait(driver, lambda d: plot_row(d, box, card), f"the choices for {card}")
    button = next(b for b in row.find_elements(By.TAG_NAME, "button") if b.text == label)
    button.click()


def test_a_plot_card_played_on_a_phone_shows_its_effect_on_that_phone_only(
    server: Server, phones: list[WebDriver], driver: WebDriver
) -> None:
    """Adama, the Commandant, hands Overheard Conversation to Roslin from his phone; Roslin
    looks at her left neighbour, Starbuck, on hers. Only Roslin's phone tells Starbuck's side;
    the host hands the second card from the host page, and it lies face up for all to see."""
    # Under 7 players Le Plan uses ten of the fifteen cards, which the host may choose: here both
    # Overheard Conversation and eight one-use cards. The draw is the companion's secret, so the
    # game is started again until it draws one Overheard Conversation (a third of the time).
    ten = ["overheard_conversation"] * 2 + ["strong_leader"] * 2 + ["keeping_a_close_eye"] * 2
    ten += ["no_confidence"] * 3 + ["in_the_spotlight"]
    options = {
        "players": 5,
        "identities": "digital",
        "isolated_cylons": True,  # no night: the round opens with the Commandant's draw
        "plot": True,
        "plot_deck": ten,
    }
    body: dict[str, object] = {"game": "resistance", "options": options, "names": NAMES}
    for _ in range(60):
        status, _ = server.post("/api/games", body)
        assert status == 201
        drawn = server.state()["state"]["plot"]["drawn"]
        if drawn.count("overheard_conversation") == 1:
            break
        body["replace"] = server.state()["game_id"]
    else:
        pytest.fail("sixty draws without one Overheard Conversation")
    other = next(card for card in drawn if card != "overheard_conversation")
    other_name = Catalog("en").text(f"resistance.plot.cards.{other}")
    _, seats = server.host().get("/api/host/seats")
    adama, roslin = phones
    for phone, seat in ((adama, 0), (roslin, 1)):
        phone.get(seats[seat]["url"])
        wait_live(phone)
    open_page(driver, server, "/host")

    wait(adama, lambda d: d.find_element(By.ID, "seat-plot").is_displayed(), "Adama's plot cards")
    assert not roslin.find_element(By.ID, "seat-plot").is_displayed()
    click_choice(adama, "seat-plot", "Overheard Conversation", "Roslin")

    wait(roslin, lambda d: "neighbour" in text(d, "seat-plot"), "Roslin's immediate card")
    wait(
        adama, lambda d: not d.find_element(By.ID, "seat-plot").is_displayed(), "Adama's turn over"
    )
    wait(
        driver, lambda d: "For Roslin" in text(d, "plot-controls"), "the host's choices for Roslin"
    )
    click_choice(roslin, "seat-plot", "", "Left: Starbuck")

    _, starbuck = server.visitor().get(
        seats[2]["url"].replace("/seat/", "/api/seat/")[len(server.url) :] + "/state"
    )
    side = SIDES[starbuck["private"]["identity"]]
    wait(roslin, lambda d: f"Starbuck is {side}" in secret(d, "learned"), "what Roslin saw")
    wait(
        driver,
        lambda d: "Roslin sees the identity of Starbuck" in text(d, "narration"),
        "the table told",
    )
    for page in (adama, driver):
        assert "Starbuck is" not in page.find_element(By.TAG_NAME, "body").text
    secret(adama, "identity")  # his own secrets shown: still nothing learned
    assert not adama.find_element(By.ID, "learned-box").is_displayed()

    click_choice(driver, "plot-controls", other_name, "Apollo")
    wait(adama, lambda d: other_name in text(d, "seat-3"), "the card face up before Apollo")
    assert server.state()["state"]["phase"] == "propose"
    assert server.state()["state"]["plot"]["held"][3] == [other]


def test_phones_label_the_squad_naming_and_keep_the_result_once_their_links_are_spent(
    server: Server, phones: list[WebDriver], driver: WebDriver
) -> None:
    """With "Attaques ciblées" the Commandant's phone first offers and takes a mission, then
    the squad is named; when the game ends the phones keep its result, and the host's list of
    links says they are spent."""
    options = {"players": 5, "isolated_cylons": True, "targeting": True}
    status, _ = server.post(
        "/api/games", {"game": "resistance", "options": options, "names": NAMES}
    )
    assert status == 201
    _, seats = server.host().get("/api/host/seats")
    adama, roslin = phones
    for phone, seat in ((adama, 0), (roslin, 1)):
        phone.get(seats[seat]["url"])
        wait_live(phone)
    open_page(driver, server, "/host")
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#seat-qr li")) == 5, "5 links")

    wait(adama, lambda d: button_label(d, "A") == "Next mission", "the Commandant's offer")
    assert not adama.find_element(By.ID, "seat-B").is_enabled()
    assert not roslin.find_element(By.ID, "seat-A").is_enabled()
    assert text(roslin, "seat-status") == "Nothing to decide for now."
    adama.find_element(By.ID, "seat-A").click()
    wait(adama, lambda d: button_label(d, "B") == "Take this mission", "a mission offered")
    adama.find_element(By.ID, "seat-B").click()
    wait(roslin, lambda d: button_label(d, "A") == "Join the squad", "the squad being named")
    assert button_label(adama, "B") == "Start again"
    roslin.find_element(By.ID, "seat-A").click()
    wait(roslin, lambda d: button_label(d, "B") == "Step out", "Roslin named")
    assert not roslin.find_element(By.ID, "seat-A").is_enabled()
    wait(driver, lambda d: text(d, "squad") == "Roslin", "the host page shows the naming")

    for mission in (1, 2, 3):  # three failed missions (physical identities: any card goes)
        commander = server.state()["state"]["commander"]
        size = server.state()["state"]["missions"][mission - 1]["size"]
        squad = sorted((commander + i) % 5 for i in range(size))
        acts = [{"kind": "propose", "commander": commander, "squad": squad, "mission": mission}]
        acts += [{"kind": "vote", "seat": s, "approve": True} for s in range(5)]
        acts += [{"kind": "mission_card", "seat": s, "card": "fail"} for s in squad]
        for act in acts:
            status, answer = server.post("/api/act", act)
            assert status == 200, answer

    for phone in phones:
        wait(phone, lambda d: "spent" in text(d, "seat-status"), "the link spent")
        assert text(phone, "outcome") == "The Cylons win"
        assert not phone.find_element(By.ID, "seat-A").is_enabled()
    wait(driver, lambda d: d.find_element(By.ID, "seat-links-spent").is_displayed(), "spent links")
    assert driver.find_elements(By.CSS_SELECTOR, "#seat-qr li") == []
    assert not driver.find_element(By.ID, "redeal").is_displayed()


def test_the_commandants_b_says_what_it_does_step_out_while_named_start_again_when_full(
    server: Server, driver: WebDriver
) -> None:
    """controls.py: a named player's B steps out, the Commandant's too while the squad is not
    full; with a full squad the Commandant's B starts again. The phone's label says which."""
    options = {"players": 5, "isolated_cylons": True}  # mission 1: a squad of 2
    status, _ = server.post("/api/games", {"game": "resistance", "options": options})
    assert status == 201
    commander = server.state()["state"]["commander"]
    _, seats = server.host().get("/api/host/seats")
    driver.get(seats[commander]["url"])
    wait_live(driver)
    wait(driver, lambda d: button_label(d, "B") == "Start again", "nobody named yet")
    server.press(commander, "A")
    wait(driver, lambda d: button_label(d, "B") == "Step out", "named, not full")
    server.press((commander + 1) % 5, "A")
    wait(driver, lambda d: button_label(d, "A") == "Confirm the squad", "the squad full")
    assert button_label(driver, "B") == "Start again"
    server.press(commander, "B")
    wait(driver, lambda d: button_label(d, "A") == "Join the squad", "the squad cleared")
    assert server.state()["naming"]["members"] == []
