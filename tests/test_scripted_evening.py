"""A scripted evening in the browser (issue 23): one companion in simulation, one host page in
headless Chromium, four games in a row, and every touch of the host counted.

1. Résistance for five: the names typed on the host page, Start, then the whole game played by
   the players on the virtual button panel (the night is narrated with the test's short pauses).
2. "Play again": the same five, a new deal.
3. Oraklos for the same five: one round (the simulated overhead camera, a marker laid, the
   search over, a claim checked).
4. Ostrakon for the same five: one question (the asker opens the vote with A, everyone votes on
   the panel, the companion reveals and counts).

The host's touches (``Host``: a click, a tap, a choice in a list, a text typed, a dialog
confirmed) and the players' presses (``Hands``: the virtual buttons, which stand in for the
real button box) are counted apart. Each game's touches must be exactly ``EXPECTED``: a touch the
page comes to need, or one it stops needing, fails the test until ``docs/evening.md`` says why.
Typing counts as one touch per field (the names, the PIN), however many keys; choosing in a list
counts as one (on a tablet it is two taps: open, pick).

Nothing is sent to the API by the script: the players' moves are decided from
``GET /api/state`` (the public state, open to anyone: what the players see on the table), and
every move is a click on the host page. Run with ``-s`` to see the table of touches;
``EVENING_JSON=path`` also writes it as JSON.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser import Player, revision, wait, wait_live
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.alert import Alert
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select
from serving import Server, start_server

from companion.games.oraklos.dice import Die
from companion.games.oraklos.predictions import check, find

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
CAMERA = "generated:3"  # the simulated overhead camera, one fixed scene per throw (Oraklos)
OSTRAKON_START = 5  # the starting square for 5 players (RULES.md §2)
DIE = "#o-overlay .die"

# What a touch is for. "setup" and "rules" are the goal (Start, and what the rules ask of the
# host); the others are findings, explained in docs/evening.md.
SETUP = "setup"  # who plays, which game, Start
RULES = "rules"  # something only the table knows and the rules need: who, which, when
CONFIRM = "confirm"  # the last tap of an entry of several choices, which sends it
SIMULATION = "simulation"  # needed only with the simulated (still) camera
LEAVE = "leave"  # ending a game left unfinished (the script's choice, not the rules')
SECURITY = "security"  # the host's login, once a session
FRICTION = "friction"  # asked by the page, not by the rules

DICE = [(f"claim: die {n} of the four shown", RULES) for n in range(1, 5)]
EXPECTED: dict[str, list[tuple[str, str]]] = {
    "login": [("PIN typed", SECURITY), ("Log in", SECURITY)],
    "resistance": [("names typed", SETUP), ("Start", SETUP)],
    "rematch": [("Play again", SETUP)],
    "oraklos": [
        ("new-game form unfolded", LEAVE),
        ("game: Oraklos", SETUP),
        ("Start", SETUP),
        ("confirm: end the unfinished rematch", LEAVE),
        ("Read the throw", SIMULATION),
        ("marker: on which card", RULES),
        ("Lay the marker", CONFIRM),
        ("Search over", RULES),
        *DICE,
        ("Check", CONFIRM),
    ],
    "ostrakon": [
        ("new-game form unfolded", LEAVE),
        ("game: Ostrakon", SETUP),
        ("Start", SETUP),
        ("confirm: end the unfinished Oraklos game", LEAVE),
    ],
}
# The players' presses on the virtual panel: Résistance three missions of 2, 3 and 2 (the named
# members, the Commandant's confirmation, five votes, the cards); Ostrakon the asker's A and five
# tessons.
PRESSES = {"login": 0, "resistance": 10 + 12 + 10, "rematch": 0, "oraklos": 0, "ostrakon": 1 + 5}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """The test config (conftest's server) with the simulated camera on a fixed seed, as
    tests/test_oraklos_page.py has it: the same throw scene on every run."""
    running = start_server(tmp_path / "server", camera=CAMERA)
    try:
        yield running
    finally:
        running.stop()


# -- the host's hands and the players' -------------------------------------------------------------


@dataclass(frozen=True)
class Touch:
    game: str
    label: str


class Host:
    """The host's touches on the host page, each counted with what it is for."""

    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver
        self.game = "login"
        self.touches: list[Touch] = []

    def _count(self, label: str) -> None:
        self.touches.append(Touch(self.game, label))

    def labels(self, game: str) -> list[str]:
        return [t.label for t in self.touches if t.game == game]

    def tap(self, label: str, by: str, selector: str) -> None:
        """One click; found again if the live page re-rendered it in between (a click that
        raised did not happen, so it is not counted twice)."""

        def clicked(d: WebDriver) -> bool:
            d.find_element(by, selector).click()
            return True

        wait(self.driver, clicked, f"the host tapping {label} ({selector})")
        self._count(label)

    def choose(self, label: str, by: str, selector: str, value: str) -> None:
        """One choice in a list (``value``: the option's value, its text when it has none);
        only a choice that changes something: a default that fits costs the host nothing."""
        box = Select(self.driver.find_element(by, selector))
        assert attr(box.first_selected_option, "value") != value, (
            f"{label}: {value} is already chosen, no touch needed"
        )
        for option in box.options:
            if attr(option, "value") == value:
                box.select_by_index(int(attr(option, "index")))
                break
        else:
            raise AssertionError(f"{label}: no option {value!r} in {selector}")
        self._count(label)

    def type(self, label: str, by: str, selector: str, words: str) -> None:
        field = self.driver.find_element(by, selector)
        field.clear()
        field.send_keys(words)
        self._count(label)

    def confirm(self, label: str, naming: str) -> None:
        """The page's confirmation dialog, which must name ``naming``, accepted."""

        def shown(d: WebDriver) -> Alert | None:
            try:
                return d.switch_to.alert
            except NoAlertPresentException:
                return None

        dialog: Alert = wait(self.driver, shown, f"the dialog asking to {label}")
        assert naming in dialog.text, dialog.text
        dialog.accept()
        self._count(label)


class Hands(Player):
    """The players: presses on the host page's virtual button panel (the real button box at a
    table), counted per game, apart from the host's touches."""

    def __init__(self, driver: WebDriver, server: Server) -> None:
        super().__init__(driver, server)
        self.game = "login"
        self.presses: Counter[str] = Counter()

    def press(self, seat: int, button: str) -> None:
        super().press(seat, button)
        self.presses[self.game] += 1


def attr(element: WebElement, name: str) -> str:
    value = element.get_attribute(name)
    assert value is not None, f"no {name} on {element.tag_name}"
    return str(value)


def shown(driver: WebDriver, element_id: str) -> bool:
    found = driver.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def form_open(driver: WebDriver) -> bool:
    return driver.find_element(By.ID, "setup-box").get_attribute("open") is not None


def page_game(driver: WebDriver) -> Any:
    return driver.execute_script("return snapshot && snapshot.game_id")


def started(server: Server, game: str, after: Any) -> dict[str, Any]:
    return server.wait_for(
        lambda s: s["game"] == game and s["game_id"] != after and s["state"] is not None,
        f"the {game} game to start",
    )


# -- Oraklos: the claim the table makes ----------------------------------------------------------


def die_of(reading: dict[str, Any]) -> Die:
    return Die.from_json({k: reading[k] for k in ("x", "y", "size", "angle", "color", "hole")})


def a_claim(view: dict[str, Any], not_seat: int) -> tuple[int, str, list[int]]:
    """Who grabs the marker 3, on which card, and the four dice they will show: a player other
    than the one the page offers first, with a true prediction if the throw holds one for
    such a player's card, else the next player's first card and four dice (a wrong claim)."""
    dice = [die_of(d) for d in view["table"]]
    either = view["options"]["either_direction"]
    for seat, hand in enumerate(view["hands"]):
        if seat == not_seat:
            continue
        for card in hand:
            found = find(dice, card, either_direction=either)
            if found is not None:
                return seat, card, list(found.dice)
    seat = (not_seat + 1) % view["players"]
    return seat, view["hands"][seat][0], [0, 1, 2, 3]


def points(view: dict[str, Any], card: str, four: list[int], marker: int = 3) -> int:
    dice = [die_of(d) for d in view["table"]]
    verdict = check(dice, four, card, either_direction=view["options"]["either_direction"])
    return marker if verdict.valid else -marker


# -- the report ----------------------------------------------------------------------------------


def report(host: Host, hands: Hands, claim: str) -> dict[str, Any]:
    games = {}
    for game, expected in EXPECTED.items():
        kinds = dict(expected)
        measured = host.labels(game)
        games[game] = {
            "host_touches": len(measured),
            "touches": [{"touch": t, "kind": kinds.get(t, "unexpected")} for t in measured],
            "by_kind": dict(Counter(kinds.get(t, "unexpected") for t in measured)),
            "player_presses": hands.presses[game],
        }
    return {"games": games, "host_touches": len(host.touches), "oraklos_claim": claim}


def print_report(found: dict[str, Any]) -> None:
    print("\nThe scripted evening: the host's touches per game")
    print(f"{'game':<11} {'touch':<45} kind")
    for game, seen in found["games"].items():
        for touch in seen["touches"]:
            print(f"{game:<11} {touch['touch']:<45} {touch['kind']}")
        print(
            f"{game:<11} = {seen['host_touches']} host touches {seen['by_kind']}, "
            f"{seen['player_presses']} player presses"
        )
    print(f"in all: {found['host_touches']} host touches; Oraklos: {found['oraklos_claim']}")
    if os.environ.get("EVENING_JSON"):
        Path(os.environ["EVENING_JSON"]).write_text(json.dumps(found, indent=2) + "\n")


# -- the evening ---------------------------------------------------------------------------------


def test_an_evening_of_resistance_a_rematch_oraklos_and_ostrakon_asks_the_host_only_the_rules(
    server: Server, driver: WebDriver
) -> None:
    host, hands = Host(driver), Hands(driver, server)

    # The host opens the host page on the table's tablet and logs in with the PIN, once.
    driver.get(server.url + "/host")
    host.type("PIN typed", By.ID, "pin", server.pin)
    host.tap("Log in", By.ID, "log-in")
    wait(driver, lambda d: d.find_elements(By.ID, "new-game"), "the host page after the login")
    wait_live(driver)
    hands.window = driver.current_window_handle

    # 1. Résistance for five. The form is open with no game running; the game, its player
    # count (5) and the language are already the right ones: the names and Start.
    host.game = hands.game = "resistance"
    wait(driver, lambda d: d.find_element(By.ID, "start").is_displayed(), "the unfolded form")
    host.type("names typed", By.NAME, "names", "\n".join(NAMES))
    host.tap("Start", By.ID, "start")
    first = started(server, "resistance", None)
    assert first["names"] == NAMES and first["state"]["players"] == 5
    wait(driver, lambda d: page_game(d) == first["game_id"], "the game on the host page")
    for _ in range(3):  # the night narrates itself; then every squad approved, all Success
        hands.mission()
    wait(driver, lambda d: shown(d, "play-again"), "the end and Play again on the host page")
    assert server.state()["state"]["outcome"]["winner"] == "colons"
    assert "Colonials win" in driver.find_element(By.ID, "ending-said").text
    assert form_open(driver), "a game over unfolds the form by itself: no touch to unfold it"

    # 2. The rematch: one tap, the same players and options, a new game.
    host.game = hands.game = "rematch"
    host.tap("Play again", By.ID, "play-again")
    second = started(server, "resistance", first["game_id"])
    assert second["names"] == NAMES
    assert second["state"]["options"] == first["state"]["options"]
    wait(
        driver,
        lambda d: page_game(d) == second["game_id"] and not shown(d, "ending"),
        "the rematch on the host page",
    )

    # 3. Oraklos for the same five, over the rematch (left unfinished by the script). The
    # names stay in the form; the mode (standard) and the cup filled unseen are the defaults.
    host.game = hands.game = "oraklos"
    assert not form_open(driver), "the form stays folded while the rematch runs"
    host.tap("new-game form unfolded", By.CSS_SELECTOR, "#setup-box > summary")
    host.choose("game: Oraklos", By.NAME, "game", "oraklos")
    assert Select(driver.find_element(By.NAME, "oraklos_players")).first_selected_option.text == "5"
    names = attr(driver.find_element(By.NAME, "names"), "value")
    assert names.split("\n") == NAMES, "the names typed for Résistance are kept"
    host.tap("Start", By.ID, "start")
    host.confirm("confirm: end the unfinished rematch", "Résistance")
    third = started(server, "oraklos", second["game_id"])
    assert third["names"] == NAMES and third["state"]["players"] == 5

    host.tap("Read the throw", By.ID, "o-read")
    view = server.wait_for(
        lambda s: s["state"]["phase"] == "search", "the throw read, the search on"
    )["state"]
    assert view["mismatch"] == [], f"the simulated camera misread the throw: {view['mismatch']}"
    dice = len(view["table"])
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, DIE)) == dice, "the dice drawn")

    offered = Select(driver.find_element(By.ID, "o-marker-seat")).first_selected_option
    seat, card, four = a_claim(view, not_seat=int(attr(offered, "value")))
    host.tap(
        "marker: on which card", By.CSS_SELECTOR, f'#o-marker-cards button[data-card="{card}"]'
    )
    # the card lies before one player: the tap named them too (a player the page did not offer)
    taker = Select(driver.find_element(By.ID, "o-marker-seat")).first_selected_option
    assert attr(taker, "value") == str(seat)
    host.tap("Lay the marker", By.ID, "o-take-marker")
    server.wait_for(lambda s: len(s["state"]["markers"]) == 1, "the marker laid")
    host.tap("Search over", By.ID, "o-end-search")
    wait(driver, lambda d: shown(d, "o-claim-panel"), "the claim to check")
    for (label, _), die in zip(DICE, four, strict=True):
        host.tap(label, By.CSS_SELECTOR, f'{DIE}[data-index="{die}"]')
    picked = f"{DIE}.picked"
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, picked)) == 4, "4 dice picked")
    chosen = {int(attr(g, "data-index")) for g in driver.find_elements(By.CSS_SELECTOR, picked)}
    assert chosen == set(four), f"tapped {four}, the page picked {sorted(chosen)}"
    expected = points(view, card, four)
    host.tap("Check", By.ID, "o-check")
    after = server.wait_for(
        lambda s: s["state"]["round"] == 2 and s["state"]["phase"] == "throw",
        "the round scored and the next throw awaited",
    )["state"]
    assert after["scores"] == [expected if s == seat else 0 for s in range(5)]
    assert after["outcome"] is None

    # 4. Ostrakon for the same five, over the Oraklos game (left unfinished). Its player count
    # followed the names; the form folded away when Oraklos started over the rematch.
    host.game = hands.game = "ostrakon"
    assert not form_open(driver), "the form stays folded while Oraklos runs"
    host.tap("new-game form unfolded", By.CSS_SELECTOR, "#setup-box > summary")
    host.choose("game: Ostrakon", By.NAME, "game", "ostrakon")
    host.tap("Start", By.ID, "start")
    host.confirm("confirm: end the unfinished Oraklos game", "Oraklos")
    fourth = started(server, "ostrakon", third["game_id"])
    assert fourth["names"] == NAMES
    wait(driver, lambda d: page_game(d) == fourth["game_id"], "Ostrakon on the host page")
    state = fourth["state"]
    asker = state["asker"]
    assert state["phase"] == "question" and state["sun"] == OSTRAKON_START

    hands.press(asker, "A")  # the question is put: the asker opens the vote, not the host
    assert hands.phase() == "vote"
    others = [s for s in range(5) if s != asker]
    votes = {asker: "A", others[0]: "A", others[1]: "A", others[2]: "B", others[3]: "B"}
    for voter, button in votes.items():
        hands.press(voter, button)
    result = server.wait_for(
        lambda s: s["state"]["last_result"] is not None, "the tessons revealed and counted"
    )["state"]["last_result"]
    assert (result["turn"], result["asker"], result["same"], result["contrary"]) == (1, asker, 2, 2)
    assert (result["moved"], result["to"]) == ("forward", OSTRAKON_START + 2)
    latest = server.state()["revision"]
    wait(driver, lambda d: revision(d) >= latest and shown(d, "os-result"), "the count shown")

    claim = f"{NAMES[seat]} showed {card} with the marker 3: {expected:+d}"
    found = report(host, hands, claim)
    print_report(found)
    for game, expected_touches in EXPECTED.items():
        assert host.labels(game) == [label for label, _ in expected_touches], game
    assert dict(hands.presses) == {g: n for g, n in PRESSES.items() if n}
