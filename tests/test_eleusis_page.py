"""Eleusis in real browsers: ``companion serve`` on loopback, two headless Chromiums as the phones
of the two players, and the public table page in a third.

The companion is God, with a rule the host typed; hands are dealt to the phones. A player taps
two cards of their hand in order and plays them; the table page shows the series where it lies,
live: on the main line if accepted, below the card it followed if refused. The rule is on no page.
On the host page, the rule checker marks a mistake's column without showing the rule, and the rule
leaves the page once the game has started.

With a human God (five seats, God at the first): God types the rule in the checker only, and
judges on a phone or on the host page. Digital cards: the starter cards and the plays God judges
lie live where the verdict puts them, and a wrong no-play costs the hand the card God names. Real
cards, entered by the host: a prophet declared on a phone judges, God lets one verdict stand and
overturns the next (the marker goes, the prophet falls), then admits a mistake: the play waiting
is taken back and the game ends. God's rule is on no page, before the end or after.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from browser import (
    assert_not_reloaded,
    new_game_form,
    open_page,
    revision,
    wait,
    wait_live,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.expected_conditions import alert_is_present
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
    """The main line's card at ``position`` (1 for the starter) and the series below it, read
    again if the live page draws the line anew meanwhile."""

    def read(d: WebDriver) -> tuple[str | None, list[list[str]]]:
        col = d.find_element(By.CSS_SELECTOR, f'#el-line .el-col[data-position="{position}"]')
        main = col.find_element(By.CSS_SELECTOR, ".el-main").get_attribute("data-card")
        below = [
            [str(c.get_attribute("data-card")) for c in fan.find_elements(By.CSS_SELECTOR, ".pc")]
            for fan in col.find_elements(By.CSS_SELECTOR, ".el-below .el-fan")
        ]
        return main, below

    return wait(driver, read, f"the line's column {position}")


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
    form = new_game_form(driver)
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
    reason = driver.find_element(By.CSS_SELECTOR, ".el-check-error").text
    assert "15" in reason and "rde" not in reason  # where, and what kind: never the rule's words
    driver.find_element(By.ID, "el-rule-show").click()  # the host shows the field: now it quotes
    wait(
        driver,
        lambda d: "rde" in d.find_element(By.CSS_SELECTOR, ".el-check-error").text,
        "the faulty word quoted once the field is shown",
    )
    driver.find_element(By.ID, "el-rule-show").click()
    wait(
        driver,
        lambda d: "rde" not in d.find_element(By.CSS_SELECTOR, ".el-check-error").text,
        "the faulty word hidden again with the field",
    )

    box.clear()
    box.send_keys(RULE)
    driver.find_element(By.ID, "el-check").click()
    wait(
        driver,
        lambda d: "good" in str(d.find_element(By.ID, "el-check-report").get_attribute("class")),
        "a fit rule",
    )
    # the rules the seed lacks, away from Abbott's defaults
    form.find_element(By.CSS_SELECTOR, ".el-advanced summary").click()
    form.find_element(By.NAME, "el_prophet_once").click()
    others = form.find_element(By.NAME, "el_prophet_min_others")
    others.clear()
    others.send_keys("1")
    Select(form.find_element(By.NAME, "el_god_without_prophet")).select_by_value("zero")
    form.find_element(By.NAME, "names").send_keys("\n".join(NAMES))
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: d.find_element(By.ID, "eleusis").is_displayed(), "the game")
    assert server.state()["game"] == "eleusis"
    options = server.state()["state"]["options"]
    assert (options["prophet_once"], options["prophet_min_others"]) == (False, 1)
    assert options["god_without_prophet"] == "zero"
    assert driver.find_element(By.ID, "el-rule").get_attribute("value") == ""
    assert not driver.find_element(By.ID, "el-check-report").is_displayed()
    assert_not_reloaded(driver)
    no_rule_on(driver)


# -- a human God ----------------------------------------------------------------------------------

GOD_TABLE = ["Ada", "Bea", "Cid", "Dot", "Eve"]  # Ada, at the first seat, is God
MOST_STARTERS = 30  # starter cards God may refuse (all black) before one is red: never in practice
OK, KO = ".el-choice.ok", ".el-choice.ko"  # accept, uphold / refuse, overturn


def label(page: WebDriver, key: str, **params: Any) -> str:
    """A sentence of the page's catalog, in the page's language (table.js's ``t``)."""
    return str(page.execute_script("return t(arguments[0], arguments[1])", key, params))


def cards_in(page: WebDriver, css: str) -> list[str]:
    return [str(c.get_attribute("data-card")) for c in page.find_elements(By.CSS_SELECTOR, css)]


def pending_on_table(driver: WebDriver) -> list[str]:
    """The cards waiting for a verdict, as the table shows them ([] when none)."""
    if not driver.find_element(By.ID, "el-pending").is_displayed():
        return []
    return cards_in(driver, "#el-pending > .el-fan .pc, #el-pending > .pc")  # judged(), spread


def judged_on(page: WebDriver, where: str = "#el-seat-actions") -> list[str]:
    """The cards a judge is asked about: on a judge's phone, or (``#el-decide``) the host page."""
    return cards_in(page, f"{where} .el-judged .el-fan .pc, {where} .el-judged > .pc")


def under_review(host: WebDriver) -> list[str]:
    """The cards the host page asks God to review (the prophet's word said), else []. Until
    then it offers the prophet's own verdicts, for a prophet without a phone."""
    if not host.find_elements(By.CSS_SELECTOR, "#el-decide .el-judged .el-said"):
        return []
    return judged_on(host, "#el-decide")


def hand_size_on(driver: WebDriver, seat: int) -> int:
    """The size of ``seat``'s hand as the table page writes it ("12 cards")."""
    found = re.search(r"\d+", driver.find_element(By.ID, f"el-hand-size-{seat}").text)
    return -1 if found is None else int(found.group())


def choose(page: WebDriver, css: str, what: str) -> None:
    """Click the first element at ``css`` once it is there: a live page redraws its buttons at
    each snapshot, so a click on a button just replaced is tried again on the new one."""

    def clicked(d: WebDriver) -> bool:
        found = d.find_elements(By.CSS_SELECTOR, css)
        if not found or not (found[0].is_displayed() and found[0].is_enabled()):
            return False
        found[0].click()
        return True

    wait(page, clicked, what)


def confirm(page: WebDriver) -> None:
    """Say yes to the page's ``window.confirm``."""
    wait(page, alert_is_present(), "the confirmation asked").accept()


def open_seat(phone: WebDriver, url: str) -> None:
    phone.get(url)
    wait_live(phone)


def token_of(url: str) -> str:
    return url.rsplit("/", 1)[-1]


def hand_of(server: Server, url: str) -> list[str]:
    """A seat's own hand, as its phone is told it."""
    status, view = server.visitor().get(f"/api/seat/{token_of(url)}/state")
    assert status == 200, view
    return list(view["private"]["my_hand"])


def seat_act(server: Server, url: str, action: dict[str, Any]) -> None:
    """An action sent from a seat's phone, as seat.js sends it."""
    token = token_of(url)
    client = server.visitor()
    status, answer = client.request(
        "POST", f"/api/seat/{token}/act", action, headers={"X-Seat-Token": token}
    )
    assert status == 200, answer


def caught_up(page: WebDriver, server: Server) -> None:
    """Wait until ``page`` has drawn the server's latest snapshot."""
    now = int(server.state()["revision"])
    wait(page, lambda d: revision(d) >= now, f"the page to draw revision {now}")


def enter_cards(host: WebDriver, server: Server, cards: str) -> None:
    """The host types the cards laid (or the one God turned) and sends them."""
    caught_up(host, server)  # the entry is cleared when the moment it is for has passed
    box = host.find_element(By.ID, "el-entry")
    box.clear()
    box.send_keys(cards)
    wait(host, lambda d: d.find_element(By.ID, "el-entry-play").is_enabled(), f"{cards} read")
    host.find_element(By.ID, "el-entry-play").click()
    wait(host, lambda d: d.find_element(By.ID, "el-entry").get_attribute("value") == "", "sent")
    assert host.find_element(By.ID, "el-entry-error").text == ""


def play_for_god(
    server: Server, driver: WebDriver, god: WebDriver, urls: list[str], red_wanted: bool
) -> None:
    """The player in turn sends a card of the colour wanted (if the hand has one) from their
    phone; God judges it on the phone by the rule; the table shows it where the verdict puts it:
    on the main line, or below the card it followed (2 penalty cards)."""
    state = server.state()["state"]
    seat, line = state["turn"], [entry["card"] for entry in state["line"]]
    hand = hand_of(server, urls[seat])
    card = next((c for c in hand if red(c) is red_wanted), hand[0])
    below = column(driver, len(line))[1]
    seat_act(server, urls[seat], {"kind": "play", "seat": seat, "cards": [card]})
    wait(driver, lambda d: pending_on_table(d) == [card], f"{card} played, waiting")
    wait(god, lambda d: judged_on(d) == [card], f"{card} on God's phone")
    accepted = red(card)
    choose(god, f"#el-seat-actions {OK if accepted else KO}", f"God's verdict on {card}")
    if accepted:
        wait(driver, lambda d: main_line(d) == [*line, card], f"{card} on the main line")
        assert column(driver, len(line))[1] == below
    else:
        wait(
            driver,
            lambda d: column(d, len(line)) == (line[-1], [*below, [card]]),
            f"{card} below {line[-1]}",
        )
        assert main_line(driver) == line
        assert cards_in(driver, "#el-line .el-refused.fresh .pc") == [card]
    verdict = driver.find_element(By.ID, "el-verdict")
    assert verdict.get_attribute("data-accepted") == str(accepted).lower()
    assert (
        label(driver, "el_v_by_god", god=label(driver, "el_god_named", seat="Ada")) in verdict.text
    )
    size = len(hand) - 1 + (0 if accepted else 2)
    wait(driver, lambda d: hand_size_on(d, seat) == size, f"{size} cards for seat {seat}")
    assert pending_on_table(driver) == []


def start_with_human_god(driver: WebDriver, server: Server, cards: str) -> dict[str, Any]:
    """The host's form: five seats, God at the first, ``cards``. God types the rule in the checker
    (it is fit), which reads it and forgets it: the game starts without it."""
    open_page(driver, server, "/host")
    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "game")).select_by_value("eleusis")
    Select(form.find_element(By.NAME, "el_players")).select_by_visible_text("5")
    Select(form.find_element(By.NAME, "el_god")).select_by_value("human")
    Select(form.find_element(By.NAME, "el_cards")).select_by_value(cards)
    assert form.find_element(By.NAME, "el_god_seat").get_attribute("value") == "1"
    box = driver.find_element(By.ID, "el-rule")
    assert box.is_displayed() and box.get_attribute("type") == "password"
    box.send_keys(RULE)
    driver.find_element(By.ID, "el-check").click()
    wait(
        driver,
        lambda d: "good" in str(d.find_element(By.ID, "el-check-report").get_attribute("class")),
        "God's rule checked and fit",
    )
    form.find_element(By.NAME, "names").send_keys("\n".join(GOD_TABLE))
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: d.find_element(By.ID, "eleusis").is_displayed(), "the game")
    snap = server.state()
    state = snap["state"]
    assert (state["game"], state["god"], state["god_seat"]) == ("eleusis", "human", 0)
    assert state["options"]["cards"] == cards and state["card_seats"] == [1, 2, 3, 4]
    assert snap["names"] == GOD_TABLE
    assert RULE not in json.dumps(snap)  # never sent with the game
    assert driver.find_element(By.ID, "el-rule").get_attribute("value") == ""
    no_rule_on(driver)
    return dict(state)


def test_a_human_god_judges_on_the_phone_and_a_wrong_no_play_costs_the_card_god_names(
    server: Server, phones: list[WebDriver], driver: WebDriver
) -> None:
    """Digital cards. God (Ada's phone) judges each starter card the companion turns, a no-play
    declared on a player's phone, then two plays; God's rule (red cards) is in God's head only.
    The table page shows each verdict live: refused starter cards before the line, the accepted
    one first on it; the card God names out of a wrong no-play on the main line, the player's
    hand one card smaller plus 5 penalty cards; a refused card below the card it followed, with
    2 penalty cards; an accepted one on the main line."""
    start_with_human_god(driver, server, "digital")
    _, links = server.host().get("/api/host/seats")
    urls = [link["url"] for link in links]
    god, player = phones
    open_seat(god, urls[0])
    open_page(driver, server, "/")  # the table, in the host's window
    wait(god, lambda d: d.find_element(By.ID, "el-role").text == label(d, "el_role_god"), "God")

    # The starter: the companion turns the deck's top card; God judges it on the phone.
    refused: list[str] = []
    for _ in range(MOST_STARTERS):
        turned = server.state()["state"]["turned"]
        assert turned is not None
        wait(driver, lambda d, c=turned: pending_on_table(d) == [c], f"{turned} turned, waiting")
        wait(god, lambda d, c=turned: judged_on(d) == [c], f"{turned} on God's phone")
        choose(god, f"#el-seat-actions {OK if red(turned) else KO}", f"God's verdict on {turned}")
        if red(turned):
            break
        refused.append(turned)
        wait(
            driver,
            lambda d: cards_in(d, "#el-start .el-refused .pc") == refused,
            f"{turned} refused, before the line",
        )
        server.wait_for(lambda s: len(s["state"]["starter_refused"]) == len(refused), "refusal")
    else:
        pytest.fail(f"God refused {MOST_STARTERS} black starter cards in a row")
    starter = turned
    wait(driver, lambda d: main_line(d) == [starter], f"{starter} starts the main line")
    assert cards_in(driver, "#el-start .el-refused .pc") == refused
    assert pending_on_table(driver) == []
    state = server.state()["state"]
    assert state["phase"] == "play" and state["turned"] is None

    # The player in turn says no-play on their phone; the table sees the hand shown.
    seat = state["turn"]
    open_seat(player, urls[seat])
    wait(player, lambda d: d.find_element(By.ID, "el-no-play").is_displayed(), "the player's turn")
    hand = hand_on(player)
    assert hand == hand_of(server, urls[seat]) and len(hand) == 8
    choose(player, "#el-no-play", "the no-play button")
    confirm(player)
    wait(driver, lambda d: pending_on_table(d) == hand, "the hand shown on the table")
    wait(god, lambda d: judged_on(d) == hand, "the hand shown on God's phone")
    for page in (driver, player, god):
        no_rule_on(page)

    playable = [card for card in hand if red(card)]
    if playable:  # wrong: God names a red card of the hand and plays it onto the main line
        card = playable[0]
        choose(god, f'#el-seat-actions .el-choice .pc[data-card="{card}"]', f"God names {card}")
        wait(driver, lambda d: main_line(d) == [starter, card], f"{card} on the main line")
        laid = driver.find_element(By.CSS_SELECTOR, '#el-line .el-col[data-position="2"] .el-main')
        assert {"from-no-play", "fresh"} <= set(str(laid.get_attribute("class")).split())
        verdict = driver.find_element(By.ID, "el-verdict")
        assert verdict.get_attribute("data-accepted") == "false"
        assert cards_in(driver, "#el-verdict .el-verdict-more .pc") == [card]
        assert label(driver, "el_v_wrong_why") in verdict.text
        size = len(hand) - 1 + 5
    else:  # a hand of blacks only: the no-play is right, and the hand 4 cards smaller
        choose(god, f"#el-seat-actions {OK}", "God says the no-play is right")
        wait(
            driver,
            lambda d: d.find_element(By.ID, "el-verdict").get_attribute("data-accepted") == "true",
            "the right no-play",
        )
        assert main_line(driver) == [starter]
        size = len(hand) - 4
    wait(driver, lambda d: hand_size_on(d, seat) == size, f"{size} cards in front of the player")
    wait(player, lambda d: len(hand_on(d)) == size, f"{size} cards on the player's phone")
    kept = Counter(hand) - Counter([card] if playable else hand)  # penalty cards come on top
    assert not kept - Counter(hand_on(player)) and hand_on(player) == hand_of(server, urls[seat])
    assert pending_on_table(driver) == []

    # Two plays sent from phones: a black card God refuses, then a red one God accepts (or
    # whatever the hand holds). Each lies where God's verdict puts it.
    for wanted in (False, True):
        play_for_god(server, driver, god, urls, wanted)
    assert_not_reloaded(driver)
    for page in (driver, player, god):
        no_rule_on(page)


def test_a_prophet_judges_god_upholds_then_overturns_then_god_admits_a_mistake(
    server: Server, phones: list[WebDriver], driver: WebDriver
) -> None:
    """Real cards, entered on the host page. Bea declares herself prophet on her phone: the
    marker lies on the starter. She accepts Cid's 3♦ and God, on the host page, lets it stand;
    she accepts Dot's 5♠ and God overturns her: the card goes below, Dot draws nothing, the
    marker goes and Bea falls with 4 penalty cards. Eve lays 9♥; God admits a mistake on Ada's
    phone: the card is taken back, the game ends with God changed, and no page shows the rule."""
    start_with_human_god(driver, server, "physical")
    host = driver.current_window_handle
    _, links = server.host().get("/api/host/seats")
    urls = [link["url"] for link in links]
    god, prophet = phones
    open_seat(god, urls[0])
    open_seat(prophet, urls[1])
    table = open_page(driver, server, "/", new_window=True)

    # God turns the ace of hearts; the host enters it and God accepts it on the host page.
    driver.switch_to.window(host)
    enter_cards(driver, server, "AH")
    wait(driver, lambda d: judged_on(d, "#el-decide") == ["AH"], "the ace to judge, host page")
    choose(driver, f"#el-decide {OK}", "God accepts the ace")
    driver.switch_to.window(table)
    wait(driver, lambda d: main_line(d) == ["AH"], "the ace starts the main line")
    assert server.state()["state"]["turn"] == 1  # the first player after God: rank 1

    # Bea declares herself prophet on her phone, before playing: the marker lies on the ace.
    choose(prophet, "#el-declare", "Bea's declaration")
    confirm(prophet)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#el-pos-0 #el-marker"), "the marker")
    assert driver.find_elements(By.CSS_SELECTOR, "#el-seat-1 .el-prophet-badge")
    assert driver.find_element(By.ID, "el-prophet-line").text == label(
        driver, "el_prophet_is", seat="Bea"
    )
    wait(
        prophet,
        lambda d: d.find_element(By.ID, "el-role").text == label(d, "el_role_prophet"),
        "Bea's phone: the prophet",
    )
    assert server.state()["state"]["turn"] == 2  # a prophet declared before playing: no play

    # Cid lays the 3 of diamonds: the prophet accepts it; God lets it stand.
    driver.switch_to.window(host)
    enter_cards(driver, server, "3D")
    wait(prophet, lambda d: judged_on(d) == ["3D"], "the 3 to judge, Bea's phone")
    caught_up(god, server)
    assert not judged_on(god) and not god.find_elements(By.CSS_SELECTOR, OK)  # the prophet judges
    choose(prophet, f"#el-seat-actions {OK}", "Bea accepts the 3")
    wait(driver, lambda d: under_review(d) == ["3D"], "the 3 to review, host page")
    driver.switch_to.window(table)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#el-pending .el-said"), "Bea's word")
    assert pending_on_table(driver) == ["3D"] and main_line(driver) == ["AH"]
    driver.switch_to.window(host)
    choose(driver, f"#el-decide {OK}", "God upholds")
    driver.switch_to.window(table)
    wait(driver, lambda d: main_line(d) == ["AH", "3D"], "the 3 on the main line")
    verdict = driver.find_element(By.ID, "el-verdict")
    assert verdict.get_attribute("data-accepted") == "true"
    assert label(driver, "el_v_by_prophet", prophet="Bea") in verdict.text
    assert driver.find_elements(By.CSS_SELECTOR, "#el-pos-0 #el-marker")  # still on the ace
    assert hand_size_on(driver, 2) == 7
    for page in (driver, prophet):
        no_rule_on(page)

    # Dot lays the 5 of spades: the prophet accepts it, wrongly; God overturns her.
    driver.switch_to.window(host)
    enter_cards(driver, server, "5S")
    wait(prophet, lambda d: judged_on(d) == ["5S"], "the 5 to judge, Bea's phone")
    choose(prophet, f"#el-seat-actions {OK}", "Bea accepts the 5")
    wait(driver, lambda d: under_review(d) == ["5S"], "the 5 to review, host page")
    choose(driver, f"#el-decide {KO}", "God overturns")
    driver.switch_to.window(table)
    wait(driver, lambda d: column(d, 2) == ("3D", [["5S"]]), "the 5 below the 3")
    assert main_line(driver) == ["AH", "3D"]
    assert not driver.find_elements(By.ID, "el-marker")
    assert driver.find_elements(By.CSS_SELECTOR, "#el-seat-1 .el-fallen-badge")
    assert not driver.find_elements(By.CSS_SELECTOR, "#el-seat-1 .el-prophet-badge")
    verdict = driver.find_element(By.ID, "el-verdict")
    assert verdict.get_attribute("data-accepted") == "false"
    assert label(driver, "el_v_overturned", prophet="Bea") in verdict.text
    assert label(driver, "el_v_protected", seat="Dot") in verdict.text
    assert (hand_size_on(driver, 1), hand_size_on(driver, 3)) == (8 + 4, 8 - 1)
    wait(
        prophet,
        lambda d: d.find_element(By.ID, "el-role").text == label(d, "el_role_physical", count=12),
        "Bea's phone: a player again, with 12 cards",
    )
    for page in (driver, prophet):
        no_rule_on(page)

    # Eve lays the 9 of hearts; before judging it, God admits a mistake on her phone.
    driver.switch_to.window(host)
    enter_cards(driver, server, "9H")
    driver.switch_to.window(table)
    wait(driver, lambda d: pending_on_table(d) == ["9H"], "the 9 waiting for God")
    assert hand_size_on(driver, 4) == 7
    wait(god, lambda d: judged_on(d) == ["9H"], "the 9 on God's phone")
    choose(god, "#el-seat-actions .el-admit", "God admits a mistake")
    confirm(god)
    wait(driver, lambda d: d.find_element(By.ID, "el-end").is_displayed(), "the end")
    assert pending_on_table(driver) == []
    assert main_line(driver) == ["AH", "3D"] and column(driver, 2)[1] == [["5S"]]
    assert "9H" not in cards_in(driver, "#el-line .pc")
    assert hand_size_on(driver, 4) == 8  # the 9 taken back
    end = driver.find_element(By.ID, "el-end").text
    assert label(driver, "el_end_god_mistake") in end
    assert label(driver, "el_rule_human") in end
    assert label(driver, "el_change_god") in end  # 2 cards played: God changes, nobody scores
    state = server.state()["state"]
    assert state["outcome"]["reason"] == "god_mistake" and state["scores"]["change_god"]
    assert_not_reloaded(driver)
    for page in (driver, prophet, god):
        no_rule_on(page)
