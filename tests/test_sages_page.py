"""Les 7 Sages in real browsers: ``companion serve`` on loopback, headless Debian Chromium.

The match is started from the host page's form and played by clicks on the board: a sage
clicked shows where it may go and, when it can chase the fool, every square the fool may end on
with the path it takes there; a click on one of those squares sends the move. The public page,
open in another window and never reloaded, draws each move live, and the fool's path of a chase
with the sages that sent it on. The companion answers a move on its own and its sages are never
clickable; a phone moves its own side only; free placement is clicked too; a square both the sage
and the fool may reach asks which is meant; a goal ends the match with the winner on every page;
the hourglass counts down for the player timed, and a refusal is shown under the board. The
moves clicked are read from the public view's own list of legal moves, so the test does not
depend on how the engine orders them.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser import assert_not_reloaded, new_game_form, open_page, wait, wait_live
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.expected_conditions import alert_is_present
from selenium.webdriver.support.ui import Select
from serving import Server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea"]
COLUMNS = "abcdefghijklmno"
CELL, MARGIN, SIZE = 10, 9, 15  # the board's units in sages.js


# -- helpers --------------------------------------------------------------------------------------


def start_on_host(driver: WebDriver, **fields: str) -> None:
    """Fill the host page's form for Les 7 Sages (``fields``: the form's sg_* selects and
    inputs, e.g. ``sg_computer="blue"``) and press Start."""
    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "game")).select_by_value("sages")
    for name, value in fields.items():
        field = form.find_element(By.NAME, name)
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    names = form.find_element(By.NAME, "names")
    names.clear()
    names.send_keys("\n".join(NAMES))
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: d.find_element(By.ID, "sg-board").is_displayed(), "the board")


def start_by_api(server: Server, **options: Any) -> dict[str, Any]:
    status, snap = server.post("/api/games", {"game": "sages", "options": options, "names": NAMES})
    assert status == 201, snap
    return dict(snap)


def state(server: Server) -> dict[str, Any]:
    return dict(server.state()["state"])


def click(driver: WebDriver, square: str) -> None:
    """Click a square of the board (pieces and marks let clicks through to their square)."""
    selector = f'#sg-board .sg-squares [data-square="{square}"]'
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selector).click() or True, selector)


def board(driver: WebDriver, key: str) -> str:
    """One of the board's data attributes: turn, clickable, selected."""
    return str(driver.find_element(By.ID, "sg-board").get_attribute(f"data-{key}") or "")


def squares_of(driver: WebDriver, selector: str) -> list[str]:
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return sorted(str(node.get_attribute("data-square")) for node in found)


def shown_position(driver: WebDriver) -> dict[str, Any]:
    return {
        "red": squares_of(driver, "#sg-pieces .sg-sage.red"),
        "blue": squares_of(driver, "#sg-pieces .sg-sage.blue"),
        "fool": driver.find_element(By.ID, "sg-fool").get_attribute("data-square"),
    }


def position_of(view: dict[str, Any]) -> dict[str, Any]:
    position = view["position"]
    return {
        "red": sorted(position["red"]),
        "blue": sorted(position["blue"]),
        "fool": position["fool"],
    }


def points(squares: list[str]) -> str:
    """The polyline through the centres of ``squares``, as sages.js draws it (row 1 at the
    bottom, column a on the left)."""

    def centre(square: str) -> str:
        column, row = COLUMNS.index(square[0]), int(square[1:]) - 1
        x = MARGIN + column * CELL + CELL // 2
        y = MARGIN + (SIZE - 1 - row) * CELL + CELL // 2
        return f"{x},{y}"

    return " ".join(centre(square) for square in squares)


def shows(driver: WebDriver, view: dict[str, Any]) -> bool:
    """The page draws ``view``'s position and last move."""
    last = view["last_move"]
    return (
        shown_position(driver) == position_of(view)
        and squares_of(driver, "#sg-board .sg-last-to") == ([last["to"]] if last else [])
        and squares_of(driver, "#sg-board .sg-last-from") == ([last["sage"]] if last else [])
    )


def move_by_clicks(driver: WebDriver, server: Server, sage: str, to: str) -> dict[str, Any]:
    """Click the sage, check its destinations are marked, click ``to``; the new state."""
    view = state(server)
    moves = view["moves"][sage]
    assert to in moves["to"], f"{sage} to {to} is not legal here: {moves['to']}"
    click(driver, sage)
    wait(driver, lambda d: board(d, "selected") == sage, f"{sage} selected")
    assert squares_of(driver, "#sg-marks .sg-dest") == sorted(moves["to"])
    played = view["moves_played"]
    click(driver, to)
    after = server.wait_for(
        lambda s: s["state"]["moves_played"] > played or s["state"]["round"] > view["round"],
        f"{sage} to {to} played",
    )
    last = after["state"]["last_move"]
    assert (last["sage"], last["to"]) == (sage, to)
    return dict(after["state"])


def a_chase(view: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A chase of the side to move that does not score, with a reflection, whose end square is
    not also a square the chasing sage could walk to (a click there would ask which)."""
    found = [
        (sage, chase)
        for sage, moves in sorted(view["moves"].items())
        for chase in moves["chases"]
        if chase["points"] == 0 and chase["reflectors"] and chase["fool_to"] not in moves["to"]
    ]
    assert found, f"no chase to click in {view['moves']}"
    return max(found, key=lambda found: (len(found[1]["reflectors"]), found[1]["fool_to"]))


def drawn_paths(driver: WebDriver) -> dict[str, tuple[str, str]]:
    """The chases drawn for the selected sage: end square -> (squares, polyline points)."""
    return {
        str(line.get_attribute("data-end")): (
            str(line.get_attribute("data-squares")),
            str(line.get_attribute("points")),
        )
        for line in driver.find_elements(By.CSS_SELECTOR, "#sg-options .sg-chase")
    }


def hot_paths(driver: WebDriver) -> list[str]:
    lines = driver.find_elements(By.CSS_SELECTOR, "#sg-options .sg-chase.hot")
    return [str(line.get_attribute("data-end")) for line in lines]


def last_path(driver: WebDriver) -> tuple[str, str, list[str]] | None:
    found = driver.find_elements(By.ID, "sg-last-path")
    if not found:
        return None
    line = found[0]
    return (
        str(line.get_attribute("data-squares")),
        str(line.get_attribute("points")),
        squares_of(driver, "#sg-last-layer .sg-reflector"),
    )


# -- tests ----------------------------------------------------------------------------------------


def test_real_headless_chromium_plays_three_moves_by_clicks_and_sees_the_fools_path_drawn(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    host = open_page(driver, server, "/host", new_window=True)
    start_on_host(driver)
    view = state(server)
    assert view["layout"] == "standard" and view["target"] == 5 and view["to_move"] == 0
    assert view["computer"] is None and view["hourglass"] is None and view["strength"] == 3
    wait(driver, lambda d: shows(d, view), "the starting position on the host page")
    assert board(driver, "clickable").split() == sorted(view["moves"])  # red's sages that can move

    # Red, then Blue: a plain sage move each, by clicks.
    view = move_by_clicks(driver, server, "d3", "d5")
    wait(driver, lambda d: shows(d, view), "red's move on the host page")
    assert driver.find_element(By.ID, "sg-turn").get_attribute("data-seat") == "1"
    view = move_by_clicks(driver, server, "d13", "d11")
    wait(driver, lambda d: shows(d, view), "blue's move on the host page")

    # Red chases the fool: every end square it may reach is marked, with its path drawn.
    sage, chase = a_chase(view)
    chases = view["moves"][sage]["chases"]
    click(driver, sage)
    wait(driver, lambda d: len(drawn_paths(d)) == len(chases), f"the fool's paths from {sage}")
    assert drawn_paths(driver) == {
        c["fool_to"]: (" ".join(c["path"]), points(c["path"])) for c in chases
    }
    assert squares_of(driver, "#sg-marks .sg-end") == sorted(c["fool_to"] for c in chases)
    end = chase["fool_to"]
    ActionChains(driver).move_to_element(
        driver.find_element(By.CSS_SELECTOR, f'#sg-board .sg-squares [data-square="{end}"]')
    ).perform()
    wait(driver, lambda d: hot_paths(d) == [end], "the path to the hovered square drawn bold")
    click(driver, end)
    snap = server.wait_for(
        lambda s: (s["state"]["last_move"] or {}).get("fool_path") is not None, "the chase"
    )
    view = snap["state"]
    last = view["last_move"]
    assert (last["sage"], last["to"], last["fool_path"][-1]) == (sage, chase["path"][0], end)
    assert last["fool_path"] == chase["path"] and last["reflectors"] == chase["reflectors"]
    assert view["position"]["fool"] == end and sage not in view["position"]["red"]
    drawn = (" ".join(last["fool_path"]), points(last["fool_path"]), sorted(last["reflectors"]))

    # Both pages draw the position and the fool's path, with the reflecting sages ringed.
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, lambda d: shows(d, view), "the position after the chase")
        wait(driver, lambda d: last_path(d) == drawn, "the fool's path drawn")
        assert f"from {sage}" in driver.find_element(By.ID, "sg-last").text
        assert not driver.find_elements(By.CSS_SELECTOR, "#sg-options .sg-chase")
        assert_not_reloaded(driver)
    assert board(driver, "clickable") == ""  # the public page moves nobody
    assert position_of(state(server)) == position_of(view)


def test_the_companion_answers_a_clicked_move_and_its_sages_are_never_clickable(
    server: Server, driver: WebDriver
) -> None:
    open_page(driver, server, "/host")
    start_on_host(driver, sg_computer="blue", sg_strength="4", sg_target="3")
    view = state(server)
    assert (view["computer"], view["strength"], view["target"]) == (1, 4, 3)
    wait(driver, lambda d: "the companion" in d.find_element(By.ID, "sg-side-1").text, "badge")
    # every render of the board from now on: whose turn, and what may be clicked
    driver.execute_script(
        """window.__sgRenders = [];
        const part = GAMES.get("sages"), draw = part.render;  // its part of the page (games.js)
        part.render = (snap) => {
          draw(snap);
          const board = document.getElementById("sg-board");
          window.__sgRenders.push({turn: board.dataset.turn, clickable: board.dataset.clickable,
                                   hint: document.getElementById("sg-hint").textContent});
        };"""
    )
    blue = set(view["position"]["blue"])
    assert not blue & set(board(driver, "clickable").split())
    played = move_by_clicks(driver, server, "j4", "j6")
    snap = server.wait_for(
        lambda s: (s["state"]["last_move"] or {}).get("seat") == 1, "the companion's answer"
    )
    answer = snap["state"]
    assert answer["to_move"] == 0 and played["to_move"] == 1
    wait(driver, lambda d: shows(d, answer), "the companion's move on the host page")
    assert "Bea (Blue)" in driver.find_element(By.ID, "sg-last").text
    assert board(driver, "turn") == "0"
    renders = driver.execute_script("return window.__sgRenders")
    thinking = [r for r in renders if r["turn"] == "1"]
    assert thinking, f"the host page never drew blue's turn: {renders}"
    for render in thinking:
        assert render["clickable"] == "" and render["hint"] == "The companion is thinking…"
    for render in renders:
        assert not blue & set(render["clickable"].split())
    click(driver, answer["last_move"]["to"])  # a blue sage, clicked on red's turn: nothing
    assert board(driver, "selected") == ""
    assert_not_reloaded(driver)


# b8 may walk to g13 (diagonally forward), and chased from b8 the fool may end on g13 too (sent
# north by the blue sage on h8)
BOTH_WAYS = {
    "red": ["b8", "h1", "c3", "e3", "j3", "l4", "n6"],
    "blue": ["h8", "i15", "c13", "e13", "j13", "l12", "n10"],
    "fool": "d8",
}


def test_a_square_both_the_sage_and_the_fool_may_reach_asks_which(
    server: Server, driver: WebDriver
) -> None:
    start_by_api(server, layout=BOTH_WAYS)
    open_page(driver, server, "/host")
    moves = state(server)["moves"]["b8"]
    chase = next(c for c in moves["chases"] if c["fool_to"] == "g13")
    assert "g13" in moves["to"]
    click(driver, "b8")
    wait(driver, lambda d: board(d, "selected") == "b8", "b8 selected")
    click(driver, "g13")
    wait(driver, lambda d: d.find_element(By.ID, "sg-choice").is_displayed(), "the choice")
    assert driver.find_element(By.ID, "sg-choice-move").text == "Move the sage from b8 to g13"
    assert hot_paths(driver) == ["g13"]
    assert state(server)["moves_played"] == 0  # nothing is sent before the choice
    driver.find_element(By.ID, "sg-choice-chase").click()
    snap = server.wait_for(lambda s: s["state"]["moves_played"] == 1, "the chase")
    assert snap["state"]["last_move"]["fool_path"] == chase["path"]
    drawn = (" ".join(chase["path"]), points(chase["path"]), ["h8"])
    wait(driver, lambda d: last_path(d) == drawn, "the fool's path drawn")
    assert not driver.find_element(By.ID, "sg-choice").is_displayed()
    assert_not_reloaded(driver)


# h4 chases the fool on h8 straight into Blue's empty cité square h15: 2 points, the match
GOAL = {
    "red": ["h4", "c3", "e3", "j3", "l4", "n6", "b9"],
    "blue": ["f15", "c13", "e13", "j13", "l12", "n10", "b7"],
    "fool": "h8",
}


def test_a_goal_clicked_wins_the_match_and_every_page_shows_the_winner(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    start_by_api(server, layout=GOAL, target=1)
    host = open_page(driver, server, "/host", new_window=True)
    click(driver, "h4")
    wait(driver, lambda d: "h15" in squares_of(d, "#sg-marks .sg-end.goal"), "the goal marked")
    assert "+2" in [g.text for g in driver.find_elements(By.CSS_SELECTOR, "#sg-marks .sg-gain")]
    click(driver, "h15")
    view = server.wait_for(lambda s: s["state"]["winner"] is not None, "the match won")["state"]
    assert view["winner"] == 0 and view["score"] == [2, 0] and view["phase"] == "over"
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, lambda d: d.find_element(By.ID, "sg-outcome").is_displayed(), "the winner")
        assert driver.find_element(By.ID, "sg-outcome").text == (
            "Ada (Red) wins the match: red 2, blue 0."
        )
        assert driver.find_element(By.ID, "sg-score-0").text == "2"
        assert driver.find_element(By.ID, "sg-last").text.endswith("2 points!")
        assert last_path(driver) is not None and board(driver, "clickable") == ""
        assert_not_reloaded(driver)


def test_a_phone_moves_its_own_side_only(
    server: Server, phones: list[WebDriver], driver: WebDriver
) -> None:
    start_by_api(server)
    _, seats = server.host().get("/api/host/seats")
    for phone, seat in zip(phones, (0, 1), strict=True):
        phone.get(seats[seat]["url"])
        wait_live(phone)
    open_page(driver, server, "/")
    red, blue = phones
    view = state(server)
    wait(blue, lambda d: shows(d, view), "the board on blue's phone")
    assert blue.find_element(By.ID, "seat-status").text == "Your side: Blue."
    assert not blue.find_element(By.CSS_SELECTOR, ".seat-buttons").is_displayed()
    click(blue, "d3")  # red's sage, on blue's phone, on red's turn: nothing
    assert board(blue, "clickable") == "" and board(blue, "selected") == ""
    wait(red, lambda d: board(d, "clickable").split() == sorted(view["moves"]), "red's sages")
    assert red.find_element(By.ID, "seat-status").text.startswith("Your move (Red)")

    view = move_by_clicks(red, server, "d3", "d5")
    for page in (driver, red, blue):
        wait(page, lambda d: shows(d, view), "red's move on every page")
    wait(blue, lambda d: board(d, "clickable").split() == sorted(view["moves"]), "blue's sages")
    assert board(red, "clickable") == "" and board(driver, "clickable") == ""
    view = move_by_clicks(blue, server, "d13", "d11")
    wait(driver, lambda d: shows(d, view), "blue's move on the table page")
    assert_not_reloaded(driver)


def test_free_placement_is_clicked_square_by_square(server: Server, driver: WebDriver) -> None:
    start_by_api(server, layout="free")
    open_page(driver, server, "/host")
    for seat, side in enumerate(("red", "blue")):
        view = state(server)
        assert view["phase"] == "place" and view["to_move"] == seat
        allowed = sorted(view["placements"])
        wait(driver, lambda d, a=allowed: board(d, "clickable").split() == a, f"{side}'s squares")
        assert squares_of(driver, "#sg-marks .sg-place-dot") == allowed
        square = allowed[len(allowed) // 2]
        click(driver, square)
        server.wait_for(lambda s, q=square, k=side: s["state"]["position"][k] == [q], f"{square}")
        wait(driver, lambda d, q=square, k=side: squares_of(d, f".sg-sage.{k}") == [q], "placed")
    assert_not_reloaded(driver)


def test_the_hourglass_counts_down_for_the_player_timed_and_a_refusal_is_shown(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    start_by_api(server, hourglass=30)
    glass = server.state()["hourglass"]
    assert glass["seat"] == 0 and glass["seconds"] == 30

    def left(d: WebDriver) -> int:
        return int(d.find_element(By.ID, "sg-hourglass").get_attribute("data-left") or -1)

    def timed(d: WebDriver) -> str | None:
        box = d.find_element(By.ID, "sg-hourglass")
        return box.get_attribute("data-seat") if box.is_displayed() else None

    # the public page, open before the match began, is told of the sand over its stream
    wait(driver, lambda d: timed(d) == "0", "Ada's sand on the public page")
    first = left(driver)
    assert 0 < first <= 30
    assert driver.find_element(By.ID, "sg-hourglass").text == f"Hourglass: Ada (Red), {first} s"
    wait(driver, lambda d: 0 < left(d) < first, "the sand running down")

    # a move the engine refuses (a backward diagonal), sent as the page would: its reason shows
    host = open_page(driver, server, "/host", new_window=True)
    wait(driver, lambda d: timed(d) == "0", "Ada's sand on the host page")
    refused = {"kind": "move", "seat": 0, "sage": "d3", "to": "e2"}
    driver.execute_script("Sages.act(arguments[0]);", refused)
    wait(driver, lambda d: d.find_element(By.ID, "sg-error").text, "the refusal")
    assert driver.find_element(By.ID, "sg-error").text == (
        "A sage moves straight in four directions or diagonally forward: d3 cannot go to e2."
    )
    assert state(server)["moves_played"] == 0

    move_by_clicks(driver, server, "d3", "d5")
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, lambda d: timed(d) == "1", "Bea's sand")
        assert driver.find_element(By.ID, "sg-hourglass").text.startswith("Hourglass: Bea (Blue), ")
        assert 25 <= left(driver) <= 30
        assert driver.find_element(By.ID, "sg-error").text == ""
        assert_not_reloaded(driver)

    # the host pauses Bea's sand: every page shows the seconds left; resumed, it runs on
    driver.switch_to.window(host)
    driver.find_element(By.ID, "sg-sand").click()
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, lambda d: "paused" in (d.find_element(By.ID, "sg-hourglass").text), "paused")
        assert driver.find_element(By.ID, "sg-hourglass").text.startswith(
            "Hourglass paused: Bea (Blue), "
        )
    assert state(server)["hourglass_paused"] and server.state()["hourglass"] is None
    assert not public_has_sand_button(driver)
    driver.switch_to.window(host)
    driver.find_element(By.ID, "sg-sand").click()
    wait(driver, lambda d: timed(d) == "1", "Bea's sand running again")
    assert not state(server)["hourglass_paused"]


def public_has_sand_button(driver: WebDriver) -> bool:
    """The pause button is the host's: the public page (the current window) has none."""
    return bool(driver.find_elements(By.ID, "sg-sand"))


def test_the_host_form_sets_the_placement_and_the_draw_options(
    server: Server, driver: WebDriver
) -> None:
    open_page(driver, server, "/host")
    form = new_game_form(driver)
    Select(form.find_element(By.NAME, "game")).select_by_value("sages")
    box = driver.find_element(By.ID, "sg-placement-box")
    assert not box.is_displayed()  # where the sages go matters only when they are placed
    Select(form.find_element(By.NAME, "sg_layout")).select_by_value("free")
    wait(driver, lambda d: box.is_displayed(), "the placement choice")
    placement = Select(form.find_element(By.NAME, "sg_placement"))
    assert placement.first_selected_option.get_attribute("value") == "kingdom"
    placement.select_by_value("halves")
    repetition = Select(form.find_element(By.NAME, "sg_repetition"))
    assert repetition.first_selected_option.get_attribute("value") == "off"
    repetition.select_by_value("round")
    agreed = form.find_element(By.NAME, "sg_draw_by_agreement")
    assert not agreed.is_selected()
    agreed.click()
    names = form.find_element(By.NAME, "names")
    names.clear()
    names.send_keys("\n".join(NAMES))
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: d.find_element(By.ID, "sg-board").is_displayed(), "the board")
    view = state(server)
    assert (view["layout"], view["placement"]) == ("free", "halves")
    assert (view["draw_by_agreement"], view["repetition"]) == (True, "round")
    assert view["phase"] == "place" and not view["may_agree_draw"]
    assert not driver.find_element(By.ID, "sg-agree-draw").is_displayed()


def test_the_host_ends_the_match_by_an_agreed_draw_and_every_page_shows_it(
    server: Server, driver: WebDriver
) -> None:
    public = open_page(driver, server, "/")
    start_by_api(server, draw_by_agreement=True)
    assert not driver.find_elements(By.ID, "sg-agree-draw")  # the public page has no button
    host = open_page(driver, server, "/host", new_window=True)
    button = driver.find_element(By.ID, "sg-agree-draw")
    wait(driver, lambda d: button.is_displayed(), "the agreed draw button")
    assert button.text == "Agreed draw"
    button.click()
    wait(driver, alert_is_present(), "the confirmation asked").accept()
    view = server.wait_for(lambda s: s["state"]["drawn"] is not None, "the draw")["state"]
    assert view["drawn"] == "draw_agreed" and view["winner"] is None and view["phase"] == "over"
    for window in (host, public):
        driver.switch_to.window(window)
        wait(driver, lambda d: d.find_element(By.ID, "sg-outcome").is_displayed(), "the draw")
        assert driver.find_element(By.ID, "sg-outcome").text == (
            "The match is drawn by agreement: red 0, blue 0."
        )
        assert_not_reloaded(driver)
    driver.switch_to.window(host)
    assert not driver.find_element(By.ID, "sg-agree-draw").is_displayed()
