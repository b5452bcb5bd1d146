"""Game night in real browsers: ``companion serve`` on loopback with the simulated overhead camera
(``[camera] source = "generated:3"``), headless Debian Chromium.

The host page starts the evening from its form and uses the four tools; the public page, open in
another window and never reloaded, follows every change over the SSE stream: the throw's picture
with each die outlined where the camera saw it, the values and the total; the score pad's totals
and leader; the turn timer's countdown (worked out on the page from the hourglass's end, never a
server event per second), its passes and its pause; who starts. A phone passes its own turn with
"my turn is over". The French evening shows the French words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import assert_not_reloaded, new_game_form, open_page, revision, text, wait, wait_live
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from serving import Server, start_server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea", "Cyd"]
CAMERA = "generated:3"
DIE = "#gn-overlay .gn-die"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "server", camera=CAMERA)
    try:
        yield running
    finally:
        running.stop()


# -- helpers --------------------------------------------------------------------------------------


def start_on_host(driver: WebDriver, players: int = 3, language: str = "en", **fields: str) -> None:
    """Fill the host page's form for game night (``fields``: its gn_* inputs) and press Start."""
    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "game")).select_by_value("night")
    Select(form.find_element(By.NAME, "language")).select_by_value(language)
    Select(form.find_element(By.NAME, "gn_players")).select_by_visible_text(str(players))
    for name, value in fields.items():
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    names = form.find_element(By.NAME, "names")
    names.clear()
    names.send_keys("\n".join(NAMES[:players]))
    driver.find_element(By.ID, "start").click()
    night_shown(driver)


def start_by_api(server: Server, language: str = "en") -> dict[str, Any]:
    options = {"players": 3}
    body = {"game": "night", "language": language, "names": NAMES, "options": options}
    status, snap = server.post("/api/games", body)
    assert status == 201, snap
    return dict(snap)


def night_shown(driver: WebDriver) -> None:
    wait(driver, lambda d: d.find_element(By.ID, "night").is_displayed(), "game night on the page")


def pages(driver: WebDriver, server: Server) -> tuple[str, str]:
    """The public page, then the host page in a second window (the driver is left there)."""
    public = open_page(driver, server, "/")
    host = open_page(driver, server, "/host", new_window=True)
    return public, host


def state(server: Server) -> dict[str, Any]:
    return dict(server.state()["state"])


def press(driver: WebDriver, by: str, selector: str) -> None:
    """Find and click, again if the live page re-rendered the element in between."""
    wait(driver, lambda d: d.find_element(by, selector).click() or True, f"clicking {selector}")


def click(driver: WebDriver, element_id: str) -> None:
    press(driver, By.ID, element_id)


def tab(driver: WebDriver, screen: str) -> None:
    click(driver, f"gn-tab-{screen}")
    wait(driver, lambda d: d.find_element(By.ID, f"gn-{screen}").is_displayed(), screen)


def shown_screen(driver: WebDriver) -> str:
    return str(driver.find_element(By.ID, "night").get_attribute("data-screen"))


def font_px(driver: WebDriver, element_id: str) -> float:
    size = driver.execute_script(
        "return getComputedStyle(document.getElementById(arguments[0])).fontSize", element_id
    )
    return float(size.removesuffix("px"))


def type_score(driver: WebDriver, round_: int, seat: int, points: str) -> None:
    """The host types in a cell of the pad and presses Enter (an empty ``points`` rubs it out),
    then waits for the page to show the change (the pad is drawn anew: a cell found before that
    would be gone)."""
    cell = f"gn-cell-{round_}-{seat}"
    wait(driver, lambda d: d.find_element(By.ID, cell).is_displayed(), cell)
    before = revision(driver)

    def typed(d: WebDriver) -> bool:  # a pad drawn anew meanwhile (a line said): type again
        box = d.find_element(By.ID, cell)
        box.click()
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.DELETE)
        box.send_keys(points + Keys.ENTER)
        return True

    wait(driver, typed, f"{cell} typed in")
    wait(driver, lambda d: revision(d) > before, f"the page to show {cell} written")


def left_on(countdown: Any) -> int:
    """The whole seconds the countdown shows."""
    return int(countdown.get_attribute("data-left"))


def paused_on(countdown: Any) -> bool:
    return "paused" in str(countdown.get_attribute("class")).split()


def outlines(driver: WebDriver) -> dict[str, Any]:
    """Where the page drew each die's outline, in screen pixels, with the frame and its units."""
    return dict(
        driver.execute_script(
            """
            const frame = document.getElementById("gn-frame").getBoundingClientRect();
            const box = document.getElementById("gn-overlay").viewBox.baseVal;
            const dice = [...document.querySelectorAll(arguments[0])].map((g) => {
              const r = g.querySelector(".gn-outline").getBoundingClientRect();
              return {index: Number(g.dataset.index), width: r.width,
                      x: r.left + r.width / 2, y: r.top + r.height / 2,
                      value: g.querySelector("text").textContent,
                      classes: g.getAttribute("class")};
            });
            const img = document.getElementById("gn-picture");
            return {frame: {left: frame.left, top: frame.top,
                            width: frame.width, height: frame.height},
                    view: {x: box.x, y: box.y, width: box.width, height: box.height}, dice,
                    src: img.getAttribute("src"), loaded: img.complete ? img.naturalWidth : 0,
                    shown: !img.hidden};
            """,
            DIE,
        )
    )


def read_the_dice(driver: WebDriver, server: Server) -> dict[str, Any]:
    """Press "Read the dice" on the host page: the simulated camera throws and is read."""
    before = state(server)["dice"]["throws"]
    click(driver, "gn-read")
    # the reading is published, then its picture (the next snapshot): both must come
    snap = server.wait_for(
        lambda s: s["state"]["dice"]["throws"] > before and s["picture"] is not None,
        "the dice read, and their picture",
    )
    assert snap["picture"] is not None, "a reading by the camera comes with its picture"
    return snap


# -- tests ----------------------------------------------------------------------------------------


def test_a_throw_appears_on_the_public_page_with_each_die_outlined_where_it_lies(
    server: Server, driver: WebDriver
) -> None:
    public, host = pages(driver, server)
    start_on_host(driver)
    assert state(server)["options"] == {
        "players": 3, "turn_seconds": 60, "low_wins": False, "by_color": False,
    }  # fmt: skip
    snap = read_the_dice(driver, server)
    last = snap["state"]["dice"]["last"]
    picture = snap["picture"]
    assert last["number"] == 1 and last["dice"]

    driver.switch_to.window(public)
    count = len(last["dice"])
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, DIE)) == count, "the outlines")
    wait(driver, lambda d: text(d, "gn-total") == str(last["total"]), "the total")
    # measured once the picture has loaded: the page's layout may move until then
    wait(driver, lambda d: outlines(d)["loaded"] == picture["width"], "the picture to load")
    drawn = outlines(driver)
    scale = picture["scale"]  # the overlay's units are the picture's pixels
    frame, view = drawn["frame"], drawn["view"]
    assert drawn["shown"] and drawn["src"] == picture["url"]
    assert (view["x"], view["y"], view["width"]) == (0, 0, picture["width"])
    assert view["height"] == picture["height"]
    for shown in drawn["dice"]:
        die = last["dice"][shown["index"]]
        x = frame["left"] + (die["x"] * scale - view["x"]) / view["width"] * frame["width"]
        y = frame["top"] + (die["y"] * scale - view["y"]) / view["height"] * frame["height"]
        assert abs(shown["x"] - x) < 1.5 and abs(shown["y"] - y) < 1.5, (shown, die)
        side = die["size"] * scale / view["width"] * frame["width"]
        assert shown["width"] >= side  # drawn round the die, not inside it
        assert shown["value"] == str(die["value"]) + ("?" if die["flagged"] else "")
        assert ("flagged" in shown["classes"].split()) == die["flagged"]
    chips = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#gn-values .gn-value")]
    assert chips == [str(d["value"]) + ("?" if d["flagged"] else "") for d in last["dice"]]
    assert font_px(driver, "gn-total") >= 64  # readable across the table
    bars = driver.find_elements(By.CSS_SELECTOR, "#gn-stats .gn-bar")
    faces = snap["state"]["dice"]["stats"]["faces"]
    assert [int(b.get_attribute("data-count")) for b in bars] == faces
    assert text(driver, "gn-stats").endswith("Too few dice thrown to say whether they are fair.")

    # The host taps a die and corrects it; the public page's total follows.
    driver.switch_to.window(host)
    value = last["dice"][0]["value"]
    other = 1 if value != 1 else 2
    press(driver, By.CSS_SELECTOR, f'{DIE}[data-index="0"] .gn-hit')  # the die on the picture
    wait(driver, lambda d: d.find_element(By.ID, "gn-chooser").is_displayed(), "the chooser")
    assert text(driver, "gn-chooser-title") == f"Die 1 was read as {value}. It shows:"
    click(driver, f"gn-set-{other}")
    total = last["total"] - value + other
    server.wait_for(lambda s: s["state"]["dice"]["last"]["total"] == total, "the corrected die")
    # and types a throw by hand, for dice thrown away from the camera
    box = driver.find_element(By.ID, "gn-typed")
    box.send_keys("6 5 3 1" + Keys.ENTER)
    server.wait_for(lambda s: s["state"]["dice"]["throws"] == 2, "the typed throw")

    driver.switch_to.window(public)
    wait(driver, lambda d: text(d, "gn-total") == "15", "the typed throw's total")
    history = driver.find_elements(By.CSS_SELECTOR, "#gn-history .gn-past-total")
    assert [h.text for h in history] == ["15", str(total)]
    assert not driver.find_element(By.ID, "gn-throw").is_displayed()  # typed dice lie nowhere
    assert_not_reloaded(driver)


def test_the_score_pad_updates_live_on_the_public_page(server: Server, driver: WebDriver) -> None:
    public, host = pages(driver, server)
    start_by_api(server)
    night_shown(driver)
    tab(driver, "scores")
    server.wait_for(lambda s: s["state"]["screen"] == "scores", "the table turned to scores")
    type_score(driver, 0, 0, "12")
    type_score(driver, 0, 1, "8")
    server.wait_for(lambda s: s["state"]["scores"]["totals"] == [12, 8, 0], "two scores written")

    driver.switch_to.window(public)
    wait(driver, lambda d: shown_screen(d) == "scores", "the public page to follow the host")
    wait(driver, lambda d: text(d, "gn-sum-0") == "12" and text(d, "gn-sum-1") == "8", "the totals")
    assert text(driver, "gn-leader") == "Ada leads with 12"
    assert "gn-lead" in str(driver.find_element(By.ID, "gn-sum-0").get_attribute("class"))

    driver.switch_to.window(host)
    type_score(driver, 1, 1, "10")  # the extra row opens round 2
    driver.switch_to.window(public)
    wait(driver, lambda d: text(d, "gn-sum-1") == "18", "Bea's new total")
    wait(driver, lambda d: text(d, "gn-leader") == "Bea leads with 18", "Bea leading")
    assert text(driver, "gn-cell-1-1") == "10"

    driver.switch_to.window(host)
    type_score(driver, 1, 1, "")  # a blank rubs the cell out
    server.wait_for(lambda s: s["state"]["scores"]["rounds"] == [[12, 8, None]], "rubbed out")
    driver.switch_to.window(public)
    wait(driver, lambda d: text(d, "gn-sum-1") == "8", "Bea's total without round 2")
    assert text(driver, "gn-leader") == "Ada leads with 12"

    driver.switch_to.window(host)
    click(driver, "gn-new-sheet")
    driver.switch_to.window(public)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#gn-sheets li"), "the sheet put away")
    sheet = driver.find_element(By.CSS_SELECTOR, "#gn-sheets li")
    assert sheet.get_attribute("data-totals") == "12 8 0"
    assert "Ada 12" in sheet.text
    assert [text(driver, f"gn-sum-{seat}") for seat in range(3)] == ["0", "0", "0"]
    assert text(driver, "gn-leader") == "No scores written yet."
    assert_not_reloaded(driver)


def test_the_timer_shows_whose_turn_and_a_countdown_that_passes_and_pauses(
    server: Server, driver: WebDriver
) -> None:
    public, host = pages(driver, server)
    start_by_api(server)
    night_shown(driver)
    tab(driver, "timer")
    seconds = driver.find_element(By.ID, "gn-seconds")
    seconds.clear()
    seconds.send_keys("30")
    Select(driver.find_element(By.ID, "gn-first")).select_by_visible_text("Bea")
    click(driver, "gn-start")
    server.wait_for(lambda s: (s["state"]["timer"] or {}).get("turn") == 1, "the timer started")

    driver.switch_to.window(public)
    wait(driver, lambda d: text(d, "gn-turn") == "Bea", "Bea's turn")
    assert shown_screen(driver) == "timer"
    assert font_px(driver, "gn-turn") >= 64
    countdown = driver.find_element(By.ID, "gn-countdown")
    first = left_on(countdown)
    assert 27 <= first <= 30
    seen = revision(driver)
    wait(driver, lambda d: left_on(countdown) < first, "the countdown to tick")
    assert revision(driver) == seen  # counted down by the page, with no news from the server
    assert countdown.text.startswith("0:")
    assert text(driver, "gn-timer-state") == "Next: Cyd"

    driver.switch_to.window(host)
    click(driver, "gn-pass")
    driver.switch_to.window(public)
    wait(driver, lambda d: text(d, "gn-turn") == "Cyd", "Cyd's turn")
    current = driver.find_element(By.CSS_SELECTOR, "#gn-order .current")
    upcoming = driver.find_element(By.CSS_SELECTOR, "#gn-order .next")
    assert (current.get_attribute("data-seat"), upcoming.get_attribute("data-seat")) == ("2", "0")

    driver.switch_to.window(host)
    click(driver, "gn-pause")
    paused = server.wait_for(lambda s: s["state"]["timer"]["paused"], "the timer paused")
    left = paused["state"]["timer"]["left"]
    driver.switch_to.window(public)
    wait(driver, lambda d: paused_on(countdown), "the paused countdown")
    expected = max(1, round(left))  # the seconds said aloud
    assert text(driver, "gn-timer-state") == f"Paused: {expected} s left"
    assert countdown.get_attribute("data-left") == str(expected)
    assert countdown.text == f"0:{expected:02d}"

    driver.switch_to.window(host)
    wait(driver, lambda d: d.find_element(By.ID, "gn-resume").is_displayed(), "Resume")
    click(driver, "gn-resume")
    driver.switch_to.window(public)
    wait(driver, lambda d: not paused_on(countdown), "the countdown running again")
    resumed = left_on(countdown)
    wait(driver, lambda d: left_on(countdown) < resumed, "the countdown to tick again")
    assert text(driver, "gn-turn") == "Cyd"
    assert_not_reloaded(driver)


def test_news_does_not_refill_the_turn_length_the_host_is_typing(
    server: Server, driver: WebDriver
) -> None:
    """The host empties the turn length to type another; a score written from another page meanwhile
    (news over the stream, the page drawn anew, the pad shown then the timer again) leaves the field
    as the host left it, so that "30" is 30 s."""
    open_page(driver, server, "/host")
    start_by_api(server)
    night_shown(driver)
    tab(driver, "timer")
    seconds = driver.find_element(By.ID, "gn-seconds")
    wait(driver, lambda d: seconds.get_attribute("value") == "60", "the evening's turn length")
    seconds.clear()
    seen = revision(driver)
    for news in (
        {"kind": "write_score", "player": 0, "round": 0, "points": 3},
        {"kind": "show_screen", "screen": "timer"},
    ):
        status, _ = server.post("/api/act", news)
        assert status == 200
    wait(driver, lambda d: revision(d) >= seen + 2, "the news drawn on the host page")
    wait(driver, lambda d: seconds.is_displayed(), "the timer shown again")
    assert seconds.get_attribute("value") == ""
    seconds.send_keys("30")
    click(driver, "gn-start")
    started = server.wait_for(lambda s: s["state"]["timer"] is not None, "the timer started")
    assert started["state"]["timer"]["seconds"] == 30


def test_who_starts_is_shown_by_name(server: Server, driver: WebDriver) -> None:
    public, host = pages(driver, server)
    start_by_api(server)
    night_shown(driver)
    tab(driver, "starter")
    click(driver, "gn-among-0")  # Ada is left out of the draw
    click(driver, "gn-pick")
    snap = server.wait_for(lambda s: len(s["state"]["picks"]) == 1, "the first draw")
    pick = snap["state"]["picks"][-1]
    assert pick["among"] == [1, 2]
    click(driver, "gn-pick")
    snap = server.wait_for(lambda s: len(s["state"]["picks"]) == 2, "the second draw")
    pick = snap["state"]["picks"][-1]

    driver.switch_to.window(public)
    name = snap["names"][pick["seat"]]
    wait(driver, lambda d: text(d, "gn-starter-name") == name, "the name drawn")
    assert shown_screen(driver) == "starter"
    assert text(driver, "gn-starter-line") == "Draw 2, among 2 players."
    earlier = driver.find_elements(By.CSS_SELECTOR, "#gn-picks .gn-pick")
    first = snap["state"]["picks"][0]["seat"]
    assert [e.get_attribute("data-seat") for e in earlier] == [str(first)]
    click(driver, "gn-tab-scores")  # a tab on the public page turns this page only
    assert shown_screen(driver) == "scores" and state(server)["screen"] == "starter"
    assert_not_reloaded(driver)

    driver.switch_to.window(host)  # the timer's first player is the one drawn
    tab(driver, "timer")
    assert driver.find_element(By.ID, "gn-first").get_attribute("value") == str(pick["seat"])


def test_the_evening_in_french_shows_the_french_words(server: Server, driver: WebDriver) -> None:
    public, _ = pages(driver, server)
    start_on_host(driver, language="fr")
    driver.switch_to.window(public)
    wait(driver, lambda d: d.find_element(By.ID, "night").is_displayed(), "game night in French")
    tabs = [text(driver, f"gn-tab-{s}") for s in ("dice", "timer", "scores", "starter")]
    assert tabs == ["Dés", "Sablier", "Scores", "Qui commence"]
    assert text(driver, "gn-throw-line") == "Aucun dé lancé pour l'instant."
    assert text(driver, "gn-stats").endswith(
        "Trop peu de dés lancés pour dire s'ils sont équilibrés."
    )
    cyd_scores = {"kind": "write_score", "player": 2, "round": 0, "points": 7}
    status, _ = server.post("/api/act", cyd_scores)
    assert status == 200
    wait(driver, lambda d: text(d, "gn-leader") == "Cyd mène avec 7", "the leader in French")
    assert driver.find_element(By.CSS_SELECTOR, "#gn-pad-head .gn-round-head").text == "Manche"
    assert_not_reloaded(driver)


def test_a_phone_says_its_turn_is_over(server: Server, phones: list[WebDriver]) -> None:
    start_by_api(server)
    status, _ = server.post("/api/act", {"kind": "start_timer", "first": 0, "seconds": 60})
    assert status == 200
    _, seats = server.host().get("/api/host/seats")
    ada, bea = phones
    for phone, seat in ((ada, 0), (bea, 1)):
        phone.get(seats[seat]["url"])
        wait_live(phone)
    wait(ada, lambda d: d.find_element(By.ID, "gn-turn-over").is_displayed(), "Ada's button")
    assert text(ada, "seat-status") == "Your turn! Press the button when you are done."
    assert not bea.find_element(By.ID, "gn-turn-over").is_displayed()
    assert text(bea, "seat-status") == "Ada's turn."
    click(ada, "gn-turn-over")
    server.wait_for(lambda s: s["state"]["timer"]["turn"] == 1, "the turn passed to Bea")
    wait(bea, lambda d: d.find_element(By.ID, "gn-turn-over").is_displayed(), "Bea's button")
    wait(ada, lambda d: not d.find_element(By.ID, "gn-turn-over").is_displayed(), "Ada's gone")
