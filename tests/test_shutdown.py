"""Safe shutdown: a held power button, or the host page, stops the companion cleanly and runs the
power-off command; the next start resumes the game from the journal.

The power-off command is a real program standing in for ``systemctl poweroff``: it writes down
its arguments and whether the journal was still open (SQLite's ``-wal`` file) when it ran. The
power button's hold time runs on a clock moved by hand.
"""

from __future__ import annotations

import io
import json
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import log_in, wait
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import PIN, Server, free_port, host_client, write_config

from appliance.wiring import Companion, build
from companion.config import Config, PowerConfig
from companion.game import IllegalAction
from companion.games.resistance.state import CastVote, ProposeSquad
from tests.timing import HandClock
from voice.speech import ConsoleSpeech

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]
POWER_PIN = 3
HOLD = 1.0  # the power button's hold time, in seconds of the clock moved by hand
# The stand-in for `sudo systemctl poweroff`: its arguments, and whether the journal was closed.
POWER_OFF = """\
import json, sys
from pathlib import Path
marker, wal = Path(sys.argv[1]), Path(sys.argv[2] + "-wal")
marker.write_text(json.dumps({"argv": sys.argv[3:], "wal_left": wal.exists()}))
"""


def power_off_command(tmp_path: Path, journal: Path) -> tuple[tuple[str, ...], Path]:
    script = tmp_path / "poweroff.py"
    script.write_text(POWER_OFF, encoding="utf-8")
    marker = tmp_path / "powered-off.json"
    return (sys.executable, str(script), str(marker), str(journal), "poweroff"), marker


class Built:
    """An in-process companion on MockFactory pins, on a clock moved by hand (its power button's
    hold among them: ``appliance.wiring.build(clock=...)``), and a recorded voice."""

    def __init__(self, tmp_path: Path, command: tuple[str, ...] = ()) -> None:
        self.stopped = threading.Event()
        self.spoken = io.StringIO()
        self.clock = HandClock()
        self.config = Config(
            data_dir=tmp_path / "data",
            pin_factory="mock",
            bounce_ms=0,
            speech="console",
            host_pin=PIN,
            pauses={"intro": 0, "close_eyes": 0, "cylons_open": 0, "cylons_close": 0},
            power=PowerConfig(button=POWER_PIN, hold_seconds=HOLD, command=command),
        )
        self.companion: Companion = build(
            self.config, speech=ConsoleSpeech(self.spoken), stop=self.stopped.set, clock=self.clock
        )

    @property
    def power_pin(self):  # gpiozero's MockPin under the power button
        return self.companion.buttons.pin_factory.pin(POWER_PIN)

    def start_resistance(self) -> None:
        self.companion.table.new_game("resistance", {"players": 5}, NAMES)
        assert self.companion.narrator.wait_idle(10)  # the night, said; play begins

    def hold_power_button(self, seconds: float) -> None:
        self.power_pin.drive_low()
        self.clock.advance(seconds)
        self.power_pin.drive_high()


@pytest.fixture
def built(tmp_path: Path) -> Iterator[Built]:
    made = Built(tmp_path)
    yield made
    made.companion.close()


def test_holding_the_power_button_says_goodbye_refuses_play_and_stops_the_server(
    built: Built,
) -> None:
    built.start_resistance()
    table = built.companion.table
    version = table.snapshot()["version"]
    built.power_pin.drive_low()
    built.clock.advance(HOLD - 0.001)
    assert not built.companion.shutdown.requested
    built.clock.advance(0.001)
    assert built.companion.shutdown.requested
    built.power_pin.drive_high()
    assert built.stopped.wait(5), "the server was not told to stop"
    assert built.companion.shutdown.requested_by == "the power button"
    assert "Shutting down. The game is saved" in built.spoken.getvalue()
    assert table.snapshot()["message"].startswith("Shutting down.")
    with pytest.raises(IllegalAction) as refused:
        table.submit(CastVote(0, True))
    assert table.explain(refused.value).startswith("The companion is shutting down")
    assert table.snapshot()["version"] == version  # nothing changed


def test_a_press_shorter_than_the_hold_time_does_not_shut_down(built: Built) -> None:
    built.start_resistance()
    built.hold_power_button(HOLD - 0.001)
    built.clock.advance(HOLD * 10)  # long past the hold time: the release stopped it
    assert not built.companion.shutdown.requested
    assert not built.stopped.is_set()
    assert built.clock.pending == 0  # no timer left to fire later either


def test_after_a_shutdown_the_host_page_and_the_buttons_change_nothing(built: Built) -> None:
    built.start_resistance()
    host = host_client(built.companion.app, PIN)
    assert host.post("/api/power/off", json={"confirm": True}).status_code == 200
    assert built.stopped.wait(5)
    before = built.companion.table.snapshot()
    answer = host.post("/api/games", json={"game": "resistance", "options": {"players": 5}})
    assert answer.status_code == 400
    assert answer.get_json()["error"].startswith("The companion is shutting down")
    built.companion.buttons.pin_factory.pin(4).drive_low()  # seat 1's A
    built.companion.buttons.pin_factory.pin(4).drive_high()
    assert built.companion.table.snapshot()["version"] == before["version"]
    # asked twice (button held after the page's request): one shutdown
    assert not built.companion.shutdown.request("the power button")
    assert built.companion.shutdown.requested_by == "the host page"


def test_the_host_page_must_confirm_a_shutdown(built: Built) -> None:
    host = host_client(built.companion.app, PIN)
    for body in ({}, {"confirm": "yes"}, None):
        answer = host.post("/api/power/off", json=body)
        assert answer.status_code == 400
        assert "confirm" in answer.get_json()["error"]
    assert not built.companion.shutdown.requested
    visitor = built.companion.app.test_client()
    assert visitor.post("/api/power/off", json={"confirm": True}).status_code in (401, 403)
    assert not built.companion.shutdown.requested


def test_the_power_off_command_runs_after_everything_is_closed_and_the_game_resumes(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "data" / "journal.sqlite3"
    command, marker = power_off_command(tmp_path, journal)
    first = Built(tmp_path, command)
    first.start_resistance()
    table = first.companion.table
    commander = table.snapshot()["state"]["commander"]
    table.submit(ProposeSquad(commander, (0, 1)))
    table.submit(CastVote(2, False))  # a vote not yet revealed: journalled, kept secret
    state = table.snapshot()
    first.hold_power_button(HOLD)
    assert first.stopped.wait(5)
    first.companion.close()
    assert first.companion.shutdown.power_off()
    ran = json.loads(marker.read_text())
    assert ran == {"argv": ["poweroff"], "wal_left": False}

    second = Built(tmp_path, command)
    try:
        assert where(second.companion.table.snapshot()) == where(state)
        assert not second.companion.shutdown.requested  # a new start: play goes on
    finally:
        second.companion.close()


def test_a_failing_power_off_command_is_logged_and_the_companion_still_stops(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for command, said in (
        ((sys.executable, "-c", "import sys; sys.exit('no permission')"), "exit 1"),
        ((str(tmp_path / "no-such-program"),), "could not run"),
    ):
        made = Built(tmp_path / said.replace(" ", "-"), command)
        made.companion.shutdown.request("the host page")
        assert made.stopped.wait(5)
        made.companion.close()
        assert not made.companion.shutdown.power_off()
        assert said in caplog.text


def test_without_a_shutdown_asked_no_power_off_command_runs(tmp_path: Path) -> None:
    command, marker = power_off_command(tmp_path, tmp_path / "journal")
    made = Built(tmp_path, command)
    made.companion.close()
    assert not made.companion.shutdown.power_off()
    assert not marker.exists()


def serving_with_power_off(tmp_path: Path) -> tuple[Server, Path]:
    """A real ``companion serve`` whose power-off command is the stand-in; and its marker."""
    config = write_config(tmp_path)
    command, marker = power_off_command(tmp_path, tmp_path / "data" / "journal.sqlite3")
    with config.open("a", encoding="utf-8") as out:
        out.write(f"\n[power]\ncommand = {json.dumps(list(command))}\n")
    return Server(config, free_port()).start(), marker


def where(snapshot: dict) -> tuple[object, ...]:
    """A game's place: which game, how far, and its state."""
    return snapshot["game_id"], snapshot["version"], snapshot["state"]


@pytest.mark.slow
def test_companion_serve_shut_down_from_the_host_page_powers_off_and_resumes(
    tmp_path: Path,
) -> None:
    server, marker = serving_with_power_off(tmp_path)
    try:
        status, _ = server.post("/api/games", {"options": {"players": 5}, "names": NAMES})
        assert status == 201
        server.wait_for(lambda snap: snap["state"]["phase"] == "propose")
        before = server.state()
        status, _ = server.post("/api/power/off", {"confirm": True})
        assert status == 200
        assert server.process is not None
        assert server.process.wait(timeout=30) == 0  # a clean exit: systemd does not restart it
        assert json.loads(marker.read_text()) == {"argv": ["poweroff"], "wal_left": False}
        assert "Shutting down." in server.output()
        server.start()
        assert where(server.state()) == where(before)
    finally:
        server.stop()


@pytest.mark.slow
def test_a_service_stop_closes_cleanly_without_powering_off(tmp_path: Path) -> None:
    server, marker = serving_with_power_off(tmp_path)
    try:
        assert server.post("/api/games", {"options": {"players": 5}, "names": NAMES})[0] == 201
        assert server.process is not None
        with urllib.request.urlopen(server.url + "/api/events", timeout=10) as page:
            assert page.readline().startswith(b"retry:")  # a live page is open
            server.process.terminate()  # SIGTERM, as `systemctl stop` sends
            assert server.process.wait(timeout=15) == 0
    finally:
        server.stop()
    # its stream was ended, not waited for (waitress gives up on a thread after 5 s)
    assert "still running" not in server.output()
    assert not marker.exists()
    assert not (tmp_path / "data" / "journal.sqlite3-wal").exists()  # closed, not cut


@pytest.mark.slow
def test_the_host_page_button_asks_first_then_shuts_down(driver: WebDriver, server: Server) -> None:
    log_in(driver, server, PIN)
    button = wait(driver, lambda d: d.find_element(By.ID, "power-off"), "the Shut down button")
    assert button.text == "Shut the companion down"
    # every request the page makes is noted (and made): the click handler asks, then posts or
    # not, in one go, so what it posted is known as soon as the question is answered
    driver.execute_script(
        "window.posted = []; const fetch = window.fetch;"
        "window.fetch = (url, ...rest) => { window.posted.push(String(url));"
        " return fetch(url, ...rest); };"
    )
    button.click()
    driver.switch_to.alert.dismiss()  # "Shut the companion down now?" - no
    assert "/api/power/off" not in driver.execute_script("return window.posted")
    assert server.process is not None and server.process.poll() is None
    button.click()
    alert = driver.switch_to.alert
    assert "The game is saved" in alert.text
    alert.accept()
    assert "/api/power/off" in driver.execute_script("return window.posted")
    wait(
        driver,
        lambda d: d.find_element(By.ID, "power-status").text == "Shutting down… The game is saved.",
        "the page to say it is shutting down",
    )
    assert server.process.wait(timeout=30) == 0  # no command set: the companion only stops
