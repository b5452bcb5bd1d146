"""Screenshots of the live pages for the docs, from a real server and headless Chromium.

Starts ``companion serve`` on loopback (the same way as tests/test_page.py), logs in on the host
page with the test config's PIN, plays a 5-player Résistance game partway by clicking the host
page's virtual button panel (mission 1 succeeds, mission 2 fails, a squad for mission 3 is
rejected, the next one has some votes in), then saves:

    docs/images/table.png        the public page, 1200x1000
    docs/images/host.png         the host page, 1200 wide, whole page (form and button panel)
    docs/images/table-phone.png  the public page on a 412x915 phone (device pixel ratio 2)

Then, on a second server with the simulated overhead camera (``[camera] source =
"generated:3"``), an Oraklos Junior round on the host page: the throw is read, markers 3 and 2
are laid, and the first claim is checked by tapping its four dice:

    docs/images/oraklos-round.png  the host page after the claim, 1200 wide, whole page

Then, on a third server, a 7-player Ostrakon game started on the host page: a few questions are
asked and voted on the virtual button panel (some askers advance, some go under the Sun), then a
new question is asked and three philosophers vote:

    docs/images/ostrakon-path.png  the public page mid-vote, 1200 wide, whole page

Usage: python scripts/screenshot.py [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import (  # noqa: E402
    Player,
    chromium,
    log_in,
    start_game_on_host,
    wait,
    wait_live,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from serving import Server, start_server  # noqa: E402

from companion.games.oraklos.dice import Die  # noqa: E402
from companion.games.oraklos.predictions import find  # noqa: E402

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]
SCREEN = {"width": 1200, "height": 1000, "deviceScaleFactor": 1, "mobile": False}
PHONE = {"width": 412, "height": 915, "deviceScaleFactor": 2, "mobile": True}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument(
        "--only",
        choices=("resistance", "oraklos", "ostrakon"),
        help="shoot one game's pages only",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="companion-shots-") as tmp:
        if args.only in (None, "resistance"):
            resistance_pages(Path(tmp), args.out)
        if args.only in (None, "oraklos"):
            oraklos_round(Path(tmp), args.out / "oraklos-round.png")
        if args.only in (None, "ostrakon"):
            ostrakon_path(Path(tmp), args.out / "ostrakon-path.png")
    return 0


def resistance_pages(tmp: Path, out: Path) -> None:
    """A Résistance game played partway: the public page, the host page, the phone page."""
    server = start_server(tmp / "server")
    driver = chromium(tmp / "chromium", width=1200, height=1000)
    try:
        log_in(driver, server)  # the host page is locked: the test config's PIN
        wait_live(driver)
        start_game_on_host(driver, NAMES, players=5)
        player = Player(driver, server)
        player.mission()  # mission 1: two successes
        player.mission(cards={2: "B"})  # mission 2: Starbuck's squad, one Fail
        player.propose()
        player.vote({0: "B", 1: "A", 2: "B", 3: "A", 4: "B"})  # rejected
        player.propose()
        player.vote({1: "A", 3: "B"})  # two votes in, three to come
        revision = server.state()["revision"]

        def shoot(path: str, name: str, metrics: dict[str, object], whole: bool = False) -> None:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
            driver.get(server.url + path)
            wait_live(driver)
            wait(
                driver,
                lambda d: (
                    d.execute_script("return Number(document.body.dataset.revision)") >= revision
                ),
                "the page to show the latest state",
            )
            wait(
                driver,
                lambda d: d.find_elements(By.CSS_SELECTOR, "#last-vote .votes"),
                "the last vote",
            )
            if whole:
                height = driver.execute_script("return document.documentElement.scrollHeight")
                driver.execute_cdp_cmd(
                    "Emulation.setDeviceMetricsOverride", {**metrics, "height": height}
                )
            target = out / name
            driver.save_screenshot(str(target))
            shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
            print(f"wrote {shown}")

        shoot("/", "table.png", SCREEN)
        shoot("/host", "host.png", SCREEN, whole=True)
        shoot("/", "table-phone.png", PHONE)
    finally:
        driver.quit()
        server.stop()


ORAKLOS_NAMES = ["Ada", "Bea", "Cy"]
DIE = "#o-overlay .die"


def oraklos_round(tmp: Path, target: Path) -> None:
    """An Oraklos Junior round on the host page, shot just after the first claim is judged."""
    server = start_server(tmp / "oraklos", camera="generated:3")
    driver = chromium(tmp / "chromium-oraklos", width=1200, height=1000)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SCREEN)
        log_in(driver, server)  # the host page is locked: the test config's PIN
        wait_live(driver)
        form = driver.find_element(By.ID, "new-game")
        Select(form.find_element(By.NAME, "game")).select_by_value("oraklos")
        Select(form.find_element(By.NAME, "oraklos_players")).select_by_visible_text("3")
        Select(form.find_element(By.NAME, "mode")).select_by_value("junior")
        form.find_element(By.NAME, "names").send_keys("\n".join(ORAKLOS_NAMES))
        driver.find_element(By.ID, "start").click()
        wait(driver, lambda d: d.find_element(By.ID, "o-read").is_displayed(), "Read the throw")
        driver.find_element(By.ID, "o-read").click()
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, DIE)) == 16, "16 dice")
        seat, card, four, other = _claims(server)
        _lay_marker(driver, seat, card)
        _lay_marker(driver, *other)
        driver.find_element(By.ID, "o-end-search").click()
        wait(driver, lambda d: d.find_element(By.ID, "o-claim-panel").is_displayed(), "claims")
        for index in four:
            driver.find_element(By.CSS_SELECTOR, f'{DIE}[data-index="{index}"]').click()
        driver.find_element(By.ID, "o-check").click()
        wait(
            driver,
            lambda d: not d.find_element(By.ID, "o-last-claim").get_attribute("hidden"),
            "the verdict",
        )
        wait(
            driver,
            lambda d: d.execute_script(
                "const i = document.getElementById('o-picture');"
                "return i.complete && i.naturalWidth > 0"
            ),
            "the throw's picture",
        )
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**SCREEN, "height": height})
        driver.save_screenshot(str(target))
        shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
        print(f"wrote {shown}")
    finally:
        driver.quit()
        server.stop()


def _claims(server: Server) -> tuple[int, str, list[int], tuple[int, str]]:
    """A seat's card with a true prediction in the throw (and its four dice), and another
    seat's card for marker 2."""
    view = server.state()["state"]
    dice = [
        Die.from_json({k: d[k] for k in ("x", "y", "size", "angle", "color", "hole")})
        for d in view["table"]
    ]
    for seat, hand in enumerate(view["hands"]):
        for card in hand:
            found = find(dice, card)
            if found is not None:
                other = (seat + 1) % view["players"]
                return seat, card, list(found.dice), (other, view["hands"][other][0])
    return 0, view["hands"][0][0], [0, 1, 2, 3], (1, view["hands"][1][0])


def _lay_marker(driver: WebDriver, seat: int, card: str) -> None:
    Select(driver.find_element(By.ID, "o-marker-seat")).select_by_value(str(seat))
    driver.find_element(By.CSS_SELECTOR, f'#o-marker-cards button[data-card="{card}"]').click()
    before = len(driver.find_elements(By.CSS_SELECTOR, "#o-seats .marker"))
    driver.find_element(By.ID, "o-take-marker").click()
    wait(
        driver,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#o-seats .marker")) > before,
        "the marker on its card",
    )


OSTRAKON_NAMES = ["Thales", "Hypatia", "Diogenes", "Aspasia", "Zeno", "Sappho", "Plato"]
# Each question's votes, by place in the asker's eyes: the asker first, then the others (A white,
# B black). 4 of 6 with the asker, 2 against: forward 2; all alike: under the Sun.
OSTRAKON_VOTES = ["AAAAABB", "AAAAAAA", "ABBBBAA", "AAAABBB", "AAAAAAA", "BBBBBAA"]


def ostrakon_path(tmp: Path, target: Path) -> None:
    """An Ostrakon game a few questions in, shot on the public page in the middle of a vote."""
    server = start_server(tmp / "ostrakon")
    driver = chromium(tmp / "chromium-ostrakon", width=1200, height=1000)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SCREEN)
        log_in(driver, server)  # the host page is locked: the test config's PIN
        wait_live(driver)
        form = driver.find_element(By.ID, "new-game")
        Select(form.find_element(By.NAME, "game")).select_by_value("ostrakon")
        Select(form.find_element(By.NAME, "ostrakon_players")).select_by_visible_text("7")
        form.find_element(By.NAME, "names").send_keys("\n".join(OSTRAKON_NAMES))
        driver.find_element(By.ID, "start").click()
        wait(driver, lambda d: d.find_element(By.ID, "os-ask").is_displayed(), "the question")
        for votes in OSTRAKON_VOTES:
            _ostrakon_question(server, votes)
        view = server.state()["state"]
        server.press(view["asker"], "A")  # the next question is asked
        others = [s for s in range(view["players"]) if s != view["asker"]]
        for seat, button in zip(others[:3], "ABA", strict=True):
            server.press(seat, button)
        revision = server.state()["revision"]
        driver.get(server.url + "/")
        wait_live(driver)
        wait(
            driver,
            lambda d: d.execute_script("return Number(document.body.dataset.revision)") >= revision,
            "the page to show the latest state",
        )
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**SCREEN, "height": height})
        driver.save_screenshot(str(target))
        shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
        print(f"wrote {shown}")
    finally:
        driver.quit()
        server.stop()


def _ostrakon_question(server: Server, votes: str) -> None:
    """One question: asked with the asker's A, voted as ``votes`` says (the asker first); on a
    special day the asker names the first others and keeps their tesson."""
    view = server.state()["state"]
    asker = view["asker"]
    others = [s for s in range(view["players"]) if s != asker]
    server.press(asker, "A")
    for seat, button in zip([asker, *others], votes, strict=True):
        server.press(seat, button)
    view = server.state()["state"]
    if view["phase"] == "name":
        named = others[: view["named_count"]]
        status, answer = server.post("/api/act", {"kind": "name", "seat": asker, "named": named})
        assert status == 200, answer
        view = answer["state"]
    if view["phase"] == "flip":
        server.press(asker, "A")  # keep


if __name__ == "__main__":
    sys.exit(main())
