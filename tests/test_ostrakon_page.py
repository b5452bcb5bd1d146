"""Ostrakon at the table, in a real browser: ``companion serve`` on loopback, headless Debian
Chromium, the public page (/) and the host page (/host) open side by side and never reloaded.

The host page starts a 5-player game; the question is asked on the host page and every
philosopher votes on the host page's virtual button panel (A or B: two colours, whichever the
button box maps them to). The public page follows over the SSE stream: who has voted (never how),
then the tessons face up, the count, where the asker went and who asks next. What the page should
show is read from the server's public state, so the test does not depend on the shuffled pile.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import assert_not_reloaded, log_in, new_game_form, revision, text, wait, wait_live
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from serving import Server, start_server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
START = 5  # the starting square for 5 players (RULES.md §2)

# A test seam for "this page is behind the server" (a slow phone, two people acting at once): the
# page's SSE `state` messages are held while `window.__held` is true, and delivered by
# `window.__release()`.
HOLD_STREAM = """
(() => {
  const Real = window.EventSource;
  window.__held = false;
  window.__queue = [];
  window.EventSource = function (url) {
    const source = new Real(url);
    const add = source.addEventListener.bind(source);
    source.addEventListener = (type, listener, ...rest) => add(type, (event) => {
      if (type === "state" && window.__held) window.__queue.push(() => listener(event));
      else listener(event);
    }, ...rest);
    return source;
  };
  window.__release = () => {
    window.__held = false;
    const queue = window.__queue;
    window.__queue = [];
    queue.forEach((deliver) => deliver());
  };
})();
"""

# Records the body of every POST the page sends to /api/games.
RECORD_GAMES = """
window.__games = [];
const realFetch = window.fetch;
window.fetch = (url, init) => {
  if (String(url).endsWith("/api/games")) window.__games.push(JSON.parse(init.body));
  return realFetch(url, init);
};
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "server")
    try:
        yield running
    finally:
        running.stop()


# -- helpers --------------------------------------------------------------------------------------


def open_page(
    driver: WebDriver, server: Server, path: str, new_window: bool = False, script: str = ""
) -> str:
    """Open a page (in a new window if asked), with ``script`` run before the page's own."""
    if new_window:
        driver.switch_to.new_window("window")
    if path == "/host":
        log_in(driver, server)
    if script:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})
    driver.get(server.url + path)
    wait_live(driver)
    driver.execute_script("window.__noReload = 42;")
    return str(driver.current_window_handle)


def start_ostrakon(
    driver: WebDriver, players: int = 5, language: str = "en", votes: str | None = None
) -> None:
    """Fill the host page's form for Ostrakon and press Start. The names first: the player
    count follows them as they are typed, and the count chosen after them is the one sent."""
    form = new_game_form(driver)
    names = form.find_element(By.NAME, "names")
    names.clear()
    names.send_keys("\n".join(NAMES[:players]))
    Select(form.find_element(By.NAME, "game")).select_by_value("ostrakon")
    Select(form.find_element(By.NAME, "ostrakon_players")).select_by_visible_text(str(players))
    Select(form.find_element(By.NAME, "language")).select_by_value(language)
    if votes is not None:
        Select(form.find_element(By.NAME, "votes")).select_by_value(votes)
    driver.find_element(By.ID, "start").click()


def click(driver: WebDriver, element_id: str) -> None:
    """Find and click, again if the live page re-rendered the element in between."""
    wait(
        driver,
        lambda d: d.find_element(By.ID, element_id).click() or True,
        f"clicking #{element_id}",
    )


def view(server: Server) -> dict[str, Any]:
    return dict(server.state()["state"])


def pile(driver: WebDriver, square: int) -> list[str]:
    """A square's pile as the page shows it, top first (not the pile under the Sun)."""
    return [
        li.text
        for li in driver.find_elements(
            By.CSS_SELECTOR, f"#os-square-{square} > .os-pile > .os-philo"
        )
    ]


def shows_pile(square: int, names: list[str]) -> Any:
    return lambda d: pile(d, square) == names


def caught_up(server: Server) -> Any:
    """The page has rendered the server's latest snapshot."""
    latest = server.state()["revision"]
    return lambda d: revision(d) >= latest


def board_html(driver: WebDriver) -> str:
    return str(driver.execute_script("return document.getElementById('ostrakon').innerHTML"))


def body_text(driver: WebDriver) -> str:
    return str(driver.find_element(By.TAG_NAME, "body").text)


def press_on_panel(driver: WebDriver, seat: int, button: str) -> None:
    """A press on the host page's virtual button panel; waits for the page to show its result."""
    before = revision(driver)
    click(driver, f"press-{seat}-{button}")
    wait(driver, lambda d: revision(d) > before, f"the result of seat {seat} pressing {button}")


def press_answered(driver: WebDriver, seat: int, button: str) -> None:
    """A press on the virtual panel whose result nobody sees (a vote changed face down): waits
    for the server's answer to reach the page (the browser's record of its requests)."""
    count = "return performance.getEntriesByType('resource')" + (
        ".filter(e => e.name.endsWith('/api/press') && e.responseEnd > 0).length"
    )
    before = int(driver.execute_script(count))
    click(driver, f"press-{seat}-{button}")
    wait(
        driver, lambda d: int(d.execute_script(count)) > before, f"seat {seat}'s {button} answered"
    )


def names_of(seats: list[int]) -> list[str]:
    return [NAMES[s] for s in seats]


def act(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    status, answer = server.post("/api/act", body)
    assert status == 200, answer
    return dict(answer["state"])


def vote_all(server: Server, buttons: dict[int, str]) -> None:
    for seat, button in buttons.items():
        server.press(seat, button)


# -- tests ----------------------------------------------------------------------------------------


def test_a_whole_turn_is_played_and_the_public_page_follows_it_live(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    host = open_page(driver, server, "/host", new_window=True)
    start_ostrakon(driver)
    wait(driver, lambda d: d.find_element(By.ID, "ostrakon").is_displayed(), "the Ostrakon board")
    start = view(server)
    order = start["path"][START - 1]["pile"]
    asker, second = order[0], order[1]
    assert sorted(order) == list(range(5)) and start["sun"] == START

    # The path: the shuffled pile on square 5, top first, with the Sun; the asker highlighted.
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, shows_pile(START, names_of(order)), "the starting pile on square 5")
        square = driver.find_element(By.ID, f"os-square-{START}")
        assert "sun" in square.get_attribute("class").split()
        assert square.find_element(By.ID, "os-sun").is_displayed()
        assert len(driver.find_elements(By.CSS_SELECTOR, "#os-path > .os-square")) == 17
        assert driver.find_element(By.CSS_SELECTOR, "#os-path .os-philo.asker").text == NAMES[asker]
        assert text(driver, "os-day") == "1 of 6"
        assert text(driver, "os-rule") == "Normal day"
        subject = text(driver, "os-subject")
        assert start["subject_text"]["en"] in subject and f"asked by {NAMES[asker]}" in subject
        upcoming = text(driver, "os-next")
        assert start["next_subject_text"]["en"] in upcoming
        assert f"next asker: {NAMES[second]}" in upcoming
        assert len(driver.find_elements(By.CSS_SELECTOR, "#os-calendar .os-moon")) == 6
        assert driver.find_elements(By.CSS_SELECTOR, "#os-calendar .os-moon.covered") == []
        for seat in range(5):
            assert text(driver, f"os-olive-{seat}") == "olive branch"

    # The question is asked on the host page.
    driver.switch_to.window(host)
    assert text(driver, "os-ask") == f"{NAMES[asker]} has asked: open the vote"
    click(driver, "os-ask")
    wait(driver, lambda d: d.find_element(By.ID, "os-vote-panel").is_displayed(), "the vote")
    assert not driver.find_element(By.ID, "os-ask-panel").is_displayed()
    assert view(server)["phase"] == "vote"

    # The votes, on the virtual panel: two others like the asker, two against, so the asker
    # advances 2 squares. `changer` first votes like the asker, then changes its mind.
    others = [s for s in order if s != asker]
    like, changer, against = others[:2], others[2], others[3]
    for seat in like:
        press_on_panel(driver, seat, "A")
    press_on_panel(driver, changer, "A")
    press_on_panel(driver, against, "B")

    driver.switch_to.window(public)
    wait(driver, caught_up(server), "the public page to show the votes so far")
    assert text(driver, "os-phase") == "Secret vote: 4 of 5 have voted"
    for seat in range(5):
        voted = seat != asker
        assert text(driver, f"os-voted-{seat}") == ("has voted" if voted else "not voted yet")
    assert driver.find_elements(By.CSS_SELECTOR, "#ostrakon .os-tesson") == []
    before_html, before_text = board_html(driver), body_text(driver)

    driver.switch_to.window(host)
    unchanged = server.state()["revision"]
    press_answered(driver, changer, "B")  # a tesson changed face down: nothing public changes
    assert server.state()["revision"] == unchanged, "a changed vote moved the public revision"
    driver.switch_to.window(public)
    wait(driver, caught_up(server), "the public page to render the changed vote")
    assert board_html(driver) == before_html, "a changed vote shows on the public board"
    assert body_text(driver) == before_text, "a changed vote shows on the public page"

    driver.switch_to.window(host)
    press_on_panel(driver, asker, "A")  # the last tesson: all are shown, the count moves the asker

    after = view(server)
    result = after["last_result"]
    assert result["turn"] == 1 and result["asker"] == asker
    assert (result["same"], result["contrary"], result["moved"]) == (2, 2, "forward")
    assert result["to"] == START + 2

    driver.switch_to.window(public)
    wait(driver, lambda d: d.find_elements(By.ID, "os-result-votes"), "the revealed tessons")
    wait(driver, caught_up(server), "the public page to show the count")
    shown = {
        li.find_element(By.CLASS_NAME, "os-vote-name").text: li.find_element(
            By.CLASS_NAME, "os-tesson"
        ).get_attribute("data-colour")
        for li in driver.find_elements(By.CSS_SELECTOR, "#os-result-votes li")
    }
    assert shown == {NAMES[seat]: colour for seat, colour in enumerate(result["votes"])}
    assert shown[NAMES[changer]] == shown[NAMES[against]] != shown[NAMES[asker]]
    assert text(driver, "os-counts") == (
        f"{result['white']} white, {result['black']} black. "
        f"2 of the 4 others voted like {NAMES[asker]}, 2 against."
    )
    assert text(driver, "os-moves") == (
        f"{NAMES[asker]} moves forward 2 squares: square 5 → square 7."
    )
    assert pile(driver, START + 2) == [NAMES[asker]]
    assert pile(driver, START) == names_of(order[1:])
    assert driver.find_element(By.CSS_SELECTOR, "#os-path .os-philo.asker").text == NAMES[second]
    subject = text(driver, "os-subject")
    assert start["next_subject_text"]["en"] in subject and f"asked by {NAMES[second]}" in subject
    assert after["next_subject_text"]["en"] in text(driver, "os-next")
    assert text(driver, "os-phase") == f"{NAMES[second]} puts a question"
    assert text(driver, "os-turn") == "2"
    assert_not_reloaded(driver)
    driver.switch_to.window(host)
    assert_not_reloaded(driver)
    wait(
        driver, lambda d: d.find_element(By.ID, "os-ask-panel").is_displayed(), "the next question"
    )


def test_a_disciple_is_claimed_on_the_host_page_and_a_late_claim_is_refused(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    host = open_page(driver, server, "/host", new_window=True, script=HOLD_STREAM)
    start_ostrakon(driver)
    wait(driver, lambda d: d.find_element(By.ID, "ostrakon").is_displayed(), "the Ostrakon board")

    # Day 1: the first asker advances 2 squares (to 7), the four others go under the Sun in turn
    # (a unanimous vote); the day ends and the Sun moves on to square 7, ahead of the others.
    order = view(server)["path"][START - 1]["pile"]
    leader = order[0]
    act(server, {"kind": "ask", "seat": leader})
    others = order[1:]
    vote_all(server, {others[0]: "A", others[1]: "A", others[2]: "B", others[3]: "B"})
    vote_all(server, {leader: "A"})
    for asker in others:
        act(server, {"kind": "ask", "seat": asker})
        vote_all(server, dict.fromkeys(order, "A"))
    state = view(server)
    assert (state["day"], state["sun"], state["asker"]) == (2, START + 2, leader)
    behind = state["path"][START - 1]["pile"][0]  # on top of the pile behind the asker

    act(server, {"kind": "ask", "seat": leader})
    wait(driver, caught_up(server), "the host page to show day 2's vote")
    buttons = driver.find_elements(By.CSS_SELECTOR, "#os-disciples button")
    assert [b.get_attribute("id") for b in buttons] == [f"os-claim-{behind}"]
    assert buttons[0].text == f"{NAMES[behind]} becomes the disciple"

    # Someone else's claim reaches the companion first while this page is behind: the page's
    # claim is refused, and the refusal is shown next to the button.
    driver.execute_script("window.__held = true;")
    act(server, {"kind": "claim_disciple", "seat": behind})
    settled = server.state()
    click(driver, f"os-claim-{behind}")
    wait(driver, lambda d: text(d, "os-disciple-error") != "", "the refusal next to the claim")
    status, answer = server.post("/api/act", {"kind": "claim_disciple", "seat": behind})
    assert status == 400 and text(driver, "os-disciple-error") == answer["error"]
    assert (
        answer["error"]
        == f"{NAMES[behind]}, {NAMES[behind]} is already the disciple for this question."
    )
    assert server.state()["revision"] == settled["revision"]
    driver.execute_script("window.__release();")

    wait(
        driver,
        lambda d: not d.find_elements(By.CSS_SELECTOR, "#os-disciples button"),
        "no claim left",
    )
    expected = f"{NAMES[behind]} is {NAMES[leader]}'s disciple."
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, lambda d: text(d, "os-special") == expected, "the disciple on the board")
        assert text(driver, f"os-olive-{behind}") == "olive branch used"
        assert driver.find_element(By.CSS_SELECTOR, f"#os-seat-{behind} .os-disciple-badge")


def test_two_disciples_at_once_are_settled_on_the_host_page(
    server: Server, driver: WebDriver
) -> None:
    """ "en cas de contestation c'est le joueur qui se trouve le plus loin de l'arrivée qui
    gagne": the host accepts one claim, then says another was made together with it; the one
    farthest from the Temple becomes the disciple."""
    public = open_page(driver, server, "/")
    host = open_page(driver, server, "/host", new_window=True)
    start_ostrakon(driver)
    wait(driver, lambda d: d.find_element(By.ID, "ostrakon").is_displayed(), "the Ostrakon board")

    # Day 1: the first asker advances 2 squares (to 7), the second 1 (to 6), the three others
    # go under the Sun and back on square 5. Day 2: two piles behind the asker, on 6 and on 5.
    order = view(server)["path"][START - 1]["pile"]
    leader, near, far = order[0], order[1], order[2]
    act(server, {"kind": "ask", "seat": leader})
    vote_all(server, {order[1]: "A", order[2]: "A", order[3]: "B", order[4]: "B", leader: "A"})
    act(server, {"kind": "ask", "seat": near})
    vote_all(server, {order[2]: "A", order[3]: "A", order[4]: "A", leader: "B", near: "A"})
    for asker in order[2:]:
        act(server, {"kind": "ask", "seat": asker})
        vote_all(server, dict.fromkeys(order, "A"))
    state = view(server)
    assert (state["day"], state["sun"], state["asker"]) == (2, START + 2, leader)
    assert (state["path"][START]["pile"][0], state["path"][START - 1]["pile"][0]) == (near, far)

    act(server, {"kind": "ask", "seat": leader})
    wait(driver, caught_up(server), "the host page to show day 2's vote")
    assert text(driver, "os-contest-hint") == (
        "Claimed together? Pick the philosophers who claimed at the same moment: the one "
        "farthest from the Temple becomes the disciple."
    )
    click(driver, f"os-claim-{near}")
    wait(driver, lambda d: view(server)["disciple"] == near, "the first claim accepted")
    wait(driver, caught_up(server), "the host page to show the claim")
    wait(
        driver,
        lambda d: text(d, "os-contest-hint").startswith(f"Claimed together with {NAMES[near]}?"),
        "the contest offered",
    )
    choices = driver.find_elements(By.CSS_SELECTOR, "#os-contest-choices button")
    assert [b.get_attribute("id") for b in choices] == [f"os-contest-{far}"]
    assert not driver.find_element(By.ID, "os-contest-send").is_enabled()
    click(driver, f"os-contest-{far}")
    wait(driver, lambda d: d.find_element(By.ID, "os-contest-send").is_enabled(), "send enabled")
    click(driver, "os-contest-send")
    wait(driver, lambda d: view(server)["disciple"] == far, "the contest settled")
    assert view(server)["disciple_claimants"] == sorted([near, far])
    assert view(server)["olive_branches"][near] == "unused"
    first, second = sorted([near, far])
    expected = (
        f"{NAMES[first]} and {NAMES[second]} claimed together: {NAMES[far]}, the farthest from "
        f"the Temple, is {NAMES[leader]}'s disciple."
    )
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, lambda d: text(d, "os-special") == expected, "the disciple on the board")
        assert text(driver, f"os-olive-{far}") == "olive branch used"
        assert text(driver, f"os-olive-{near}") == "olive branch"
    driver.switch_to.window(host)
    wait(driver, lambda d: not d.find_element(By.ID, "os-contest").is_displayed(), "no contest")


def test_the_public_page_shows_the_board_and_no_host_control(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    open_page(driver, server, "/host", new_window=True)
    start_ostrakon(driver)
    wait(driver, lambda d: d.find_element(By.ID, "os-ask").is_displayed(), "the ask button")
    driver.switch_to.window(public)
    wait(driver, lambda d: d.find_element(By.ID, "ostrakon").is_displayed(), "the public board")
    wait(driver, lambda d: len(pile(d, START)) == 5, "the starting pile")
    for control in (
        "os-controls",
        "os-ask",
        "os-vote-panel",
        "os-name-panel",
        "os-flip-panel",
        "new-game",
        "panel",
    ):
        assert driver.find_elements(By.ID, control) == [], f"#{control} on the public page"
    assert (
        driver.find_elements(By.CSS_SELECTOR, "#ostrakon button, #ostrakon input, #ostrakon select")
        == []
    )
    assert [
        li.find_element(By.CLASS_NAME, "os-name").text
        for li in driver.find_elements(By.CSS_SELECTOR, "#os-seats .os-seat")
    ] == NAMES
    assert not driver.find_element(By.ID, "game").is_displayed()  # Résistance's board
    assert not driver.find_element(By.ID, "oraklos").is_displayed()


def test_an_ostrakon_game_in_french_shows_french_words(server: Server, driver: WebDriver) -> None:
    open_page(driver, server, "/host")
    start_ostrakon(driver, language="fr")
    wait(driver, lambda d: text(d, "os-day") == "1 sur 6", "the French calendar")
    state = view(server)
    asker = NAMES[state["asker"]]
    assert text(driver, "os-rule") == "Journée normale"
    assert text(driver, "os-phase") == f"{asker} pose une question"
    assert text(driver, "os-ask") == f"{asker} a posé sa question : ouvrir le vote"
    assert state["subject_text"]["fr"] in text(driver, "os-subject")
    of = "d'" if asker[0].lower() in "aeiouy" else "de "  # French elides: « question d'Eve »
    assert f"question {of}{asker}" in text(driver, "os-subject")
    assert text(driver, "os-olive-0") == "rameaux d'olivier"
    assert driver.find_element(By.CSS_SELECTOR, "#ostrakon h2").text == "LE PARCOURS"
    where = driver.find_element(By.CSS_SELECTOR, f"#os-seat-{state['asker']} .os-where")
    assert where.text == "case 5, en haut de la pile"


def test_the_setup_sends_the_camera_option_only_when_chosen_and_shows_a_refusal(
    server: Server, driver: WebDriver
) -> None:
    open_page(driver, server, "/host", script=RECORD_GAMES)
    start_ostrakon(driver, players=5)
    wait(driver, lambda d: d.find_element(By.ID, "ostrakon").is_displayed(), "the Ostrakon board")
    sent = driver.execute_script("return window.__games")
    assert sent[-1]["game"] == "ostrakon" and sent[-1]["options"] == {"players": 5}
    assert sent[-1]["names"] == NAMES and sent[-1]["language"] == "en"

    game = server.state()["game_id"]
    start_ostrakon(driver, players=6, votes="camera")
    wait(
        driver,
        lambda d: text(d, "setup-error") != "" or server.state()["game_id"] != game,
        "the server's answer to a game with the camera reading the votes",
    )
    body = driver.execute_script("return window.__games")[-1]
    assert body["options"] == {"players": 6, "votes": "camera"}
    if server.state()["game_id"] != game:  # the engine takes the option
        wait(driver, lambda d: text(d, "os-day") == "1 of 6", "the camera game on the page")
        assert view(server)["players"] == 6
    else:  # the page shows the server's refusal word for word, and the game goes on
        status, answer = server.post("/api/games", body)
        assert status == 400 and text(driver, "setup-error") == answer["error"]
        assert server.state()["game_id"] == game
