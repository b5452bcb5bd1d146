"""``companion doctor``: every check reports what it saw and, for a problem, its fix; the exit
status says whether the table is ready.

Real parts only: gpiozero's MockFactory pins pressed when the doctor asks, real photos and image
files for the camera, real espeak-ng and aplay (playing to ALSA's ``null`` device), a real tmpfs
for the disk (the tests mount it: they run as root), real SQLite journals, a real ``companion
serve`` on the port.
"""

from __future__ import annotations

import dataclasses
import http.server
import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from gpiozero import Button as GpioButton
from gpiozero.pins.mock import MockFactory
from serving import Server, free_port
from test_record import journal_with_a_game
from test_voice_outputs import PI4

from appliance.cli import main
from appliance.doctor import (
    STOP_SERVICE,
    Finding,
    Status,
    check_buttons,
    check_camera,
    check_clock,
    check_cube_reader,
    check_disk,
    check_journal,
    check_network,
    check_port,
    check_speaker,
    check_tesson_reader,
    check_voices,
    exit_status,
)
from companion.config import CameraConfig, Config, PowerConfig
from companion.games.resistance.state import Card, PlayMissionCard
from vision.calibration import marker_image
from vision.synthetic import PHOTOS

PHOTO = PHOTOS / "images" / "IMG_20191209_095342.jpg"
SEATS = Config(
    button_pairs=((4, 17), (27, 22)),
    seat_names=("Ada", "Bea"),
    leds=(12, 25),
    power=PowerConfig(button=3),
)


def by_check(findings: list[Finding]) -> dict[str, Finding]:
    return {f.check: f for f in findings}


# --- buttons and LEDs ---------------------------------------------------------------------------


class Finger:
    """The table, as the doctor's ``say``: it hears each prompt, and when one asks for a press
    it presses the next pin of its list (None: nobody presses)."""

    def __init__(self, factory: MockFactory, pins: list[int | None]) -> None:
        self.factory = factory
        self.pins = list(pins)
        self.heard: list[tuple[str, str]] = []

    def __call__(self, text: str, lang: str) -> None:
        self.heard.append((lang, text))
        if ASKS_FOR_A_PRESS.search(text) and self.pins:
            pin = self.pins.pop(0)
            if pin is not None:
                self.factory.pin(pin).drive_low()
                self.factory.pin(pin).drive_high()


ASKS_FOR_A_PRESS = re.compile(r"(press|appuyez sur) [AB]\.$|power button|bouton d'alimentation")


def guided(
    pins: list[int | None],
    config: Config = SEATS,
    timeout: float = 2.0,
    sleep: Callable[[float], None] = lambda seconds: None,
) -> tuple[list[Finding], Finger, MockFactory]:
    factory = MockFactory()
    finger = Finger(factory, pins)
    findings = check_buttons(config, factory, finger, timeout=timeout, blink=0.25, sleep=sleep)
    return findings, finger, factory


def test_every_button_pressed_when_asked_is_ok_and_the_table_is_ready() -> None:
    findings, finger, _ = guided([4, 17, 27, 22, 3])
    assert [(f.check, f.status) for f in findings] == [
        ("buttons: seat 1", Status.OK),
        ("buttons: seat 2", Status.OK),
        ("power button", Status.OK),
        ("LED: seat 1", Status.OK),
        ("LED: seat 2", Status.OK),
    ]
    assert exit_status(findings) == 0
    assert ("en", "Seat 2 (Bea): press A.") in finger.heard
    assert ("en", "Press the power button once, briefly.") in finger.heard


def test_each_led_blinks_three_times_while_its_seat_is_told_to_look() -> None:
    factory = MockFactory()
    led1, led2 = factory.pin(12), factory.pin(25)
    waits: list[tuple[float, bool, bool]] = []  # (seconds, LED 1 lit, LED 2 lit) at each wait

    def sleep(seconds: float) -> None:
        waits.append((seconds, led1.state, led2.state))

    finger = Finger(factory, [4, 17, 27, 22, 3])
    findings = check_buttons(SEATS, factory, finger, timeout=2.0, blink=0.25, sleep=sleep)
    for pin in (12, 25):
        assert [s.state for s in factory.pin(pin).states] == [False] + [True, False] * 3
    on_off = [(0.25, True), (0.25, False)] * 3
    assert waits == [(s, on, False) for s, on in on_off] + [(s, False, on) for s, on in on_off]
    assert ("en", "Seat 1 (Ada): look at your light. It blinks three times.") in finger.heard
    assert "long leg" in by_check(findings)["LED: seat 1"].fix


def test_swapped_a_and_b_wires_fail_naming_both_pins() -> None:
    findings, _, _ = guided([17, 4, 27, 22, 3])
    seat = by_check(findings)["buttons: seat 1"]
    assert seat.status is Status.FAIL
    assert "swapped" in seat.fix
    assert "BCM 4 (header pin 7)" in seat.fix and "BCM 17 (header pin 11)" in seat.fix
    assert "[17, 4]" in seat.fix
    assert by_check(findings)["buttons: seat 2"].status is Status.OK
    assert exit_status(findings) == 1


def test_a_press_on_another_seats_pin_names_that_pin_and_its_seat() -> None:
    findings, _, _ = guided([4, 27, 17, 22, 3])
    seat = by_check(findings)["buttons: seat 1"]
    assert seat.status is Status.FAIL
    assert "BCM 27 (header pin 13) (seat 2's A) answered instead of BCM 17" in seat.seen
    assert seat.seen.startswith("B: ")
    assert "B's wire is on BCM 27 (header pin 13): move it to BCM 17 (header pin 11)" in seat.fix


def test_no_press_within_the_timeout_fails_with_the_wiring_to_check() -> None:
    findings, _, _ = guided([], timeout=0.05)
    seat = by_check(findings)["buttons: seat 2"]
    assert seat.status is Status.FAIL
    assert "no press on BCM 27 (header pin 13) within 0.05 s" in seat.seen
    assert "check the wiring of BCM 27 (header pin 13)" in seat.fix
    assert by_check(findings)["power button"].status is Status.FAIL
    assert exit_status(findings) == 1


def test_pins_held_by_another_program_fail_with_stop_the_service() -> None:
    factory = MockFactory()
    service = GpioButton(27, pin_factory=factory)  # what the running companion holds
    try:
        findings = check_buttons(SEATS, factory, Finger(factory, []), timeout=0.05)
    finally:
        service.close()
    assert [(f.status, f.fix) for f in findings] == [(Status.FAIL, STOP_SERVICE)]
    assert "in use" in findings[0].seen


def test_the_prompts_are_said_in_the_tables_language() -> None:
    config = dataclasses.replace(SEATS, language="fr")
    _, finger, _ = guided([4, 17, 27, 22, 3], config)
    assert ("fr", "Place 2 (Bea)\xa0: appuyez sur B.") in finger.heard
    assert (
        "fr",
        "Place 1 (Ada)\xa0: regardez votre voyant. Il clignote trois fois.",
    ) in finger.heard
    assert all(lang == "fr" for lang, _ in finger.heard)


# --- camera ---------------------------------------------------------------------------------


def camera(source: Path | str) -> CameraConfig:
    return CameraConfig(source=str(source))


def write(path: Path, image: np.ndarray) -> Path:
    assert cv2.imwrite(str(path), image)
    return path


def with_markers(ids: tuple[int, ...] = (0, 1, 2, 3)) -> np.ndarray:
    """A real photo at 1280×960 with the corner markers laid in its corners, on their white
    cards, 60 pixels inside the frame."""
    scene = cv2.resize(cv2.imread(str(PHOTO)), (1280, 960))
    for marker in ids:
        card = cv2.cvtColor(marker_image(marker, 84, 14), cv2.COLOR_GRAY2BGR)
        side = card.shape[0]
        x = 60 if marker in (0, 3) else 1280 - 60 - side
        y = 60 if marker in (0, 1) else 960 - 60 - side
        scene[y : y + side, x : x + side] = card
    return scene


def test_a_sharp_photo_is_a_frame_in_focus_well_exposed_without_markers() -> None:
    found = by_check(check_camera(camera(PHOTO)))
    assert found["camera"].status is Status.OK
    assert "640×640" in found["camera"].seen
    assert found["camera focus"].status is Status.OK
    assert found["camera exposure"].status is Status.OK
    assert found["camera markers"].status is Status.WARN
    assert "companion vision markers" in found["camera markers"].fix


def test_the_four_markers_in_view_are_ok(tmp_path: Path) -> None:
    findings = check_camera(camera(write(tmp_path / "table.png", with_markers())))
    assert [f.status for f in findings] == [Status.OK] * 4
    assert by_check(findings)["camera markers"].seen == "the four corner markers (0 to 3) are seen"


def test_a_missing_marker_is_named_with_the_corner_it_goes_in(tmp_path: Path) -> None:
    found = by_check(check_camera(camera(write(tmp_path / "t.png", with_markers((0, 1, 3))))))
    markers = found["camera markers"]
    assert markers.status is Status.WARN
    assert markers.seen == "marker 2 (bottom-right) not seen"
    assert "marker 2 in the bottom-right corner" in markers.fix


def test_a_blurred_photo_asks_for_the_focus(tmp_path: Path) -> None:
    blurred = cv2.GaussianBlur(cv2.imread(str(PHOTO)), (5, 5), 0)
    focus = by_check(check_camera(camera(write(tmp_path / "blurred.png", blurred))))["camera focus"]
    assert focus.status is Status.WARN
    assert "lens ring" in focus.fix


def test_a_nearly_black_frame_asks_for_light(tmp_path: Path) -> None:
    dark = (cv2.imread(str(PHOTO)) * 0.05).astype(np.uint8)
    found = by_check(check_camera(camera(write(tmp_path / "dark.png", dark))))
    assert found["camera exposure"].status is Status.WARN
    assert found["camera exposure"].seen.startswith("too dark")
    assert "lamp" in found["camera exposure"].fix


@pytest.mark.parametrize("source", ["/nonexistent/frame.png", "device:9"])
def test_no_camera_fails_with_how_to_connect_one(source: str) -> None:
    findings = check_camera(camera(source))
    assert [(f.check, f.status) for f in findings] == [("camera", Status.FAIL)]
    assert "rpicam-hello --list-cameras" in findings[0].fix


def test_a_file_that_is_no_image_fails_saying_so(tmp_path: Path) -> None:
    text = tmp_path / "frame.png"
    text.write_text("not a picture")
    findings = check_camera(camera(text))
    assert [f.status for f in findings] == [Status.FAIL]
    assert "not an image OpenCV can read" in findings[0].seen


def test_the_cube_reader_loads_and_says_how_long_a_frame_takes() -> None:
    ticks = iter([10.0, 10.0385])
    found = check_cube_reader(CameraConfig(width=640, height=480), clock=lambda: next(ticks))
    assert (found.check, found.status) == ("cube reader", Status.OK)
    assert found.seen == "learned: a 640×480 frame in 39 ms"
    hand = check_cube_reader(CameraConfig(cubes="hand-tuned"), clock=lambda: 0.0)
    assert hand.status is Status.OK and hand.seen.startswith("hand-tuned: a 1280×720 frame")


@pytest.mark.parametrize("model", ["cubes.onnx", "cube_check.onnx"])
def test_a_damaged_cube_model_fails_saying_what_to_do(
    model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The detector's model or its second look's: either one damaged stops the reader."""
    import vision.cube_net

    damaged = tmp_path / model
    damaged.write_bytes(b"\x08\x07 half a model")
    paths = {"model": damaged} if model == "cubes.onnx" else {"check": damaged}
    monkeypatch.setattr(
        vision.cube_net,
        "read_cubes_net",
        lambda frame, **how: vision.cube_net.CubeNetReader(**paths).read(frame, **how),
    )
    found = check_cube_reader(CameraConfig())
    assert found.status is Status.FAIL
    assert found.seen.startswith("the learned reader cannot read a frame: ")
    assert f"vision/models/{model}" in found.fix and 'cubes = "hand-tuned"' in found.fix


def test_the_tesson_reader_loads_and_says_how_long_a_frame_takes() -> None:
    ticks = iter([3.0, 3.012])
    found = check_tesson_reader(CameraConfig(), clock=lambda: next(ticks))
    assert (found.check, found.status) == ("tesson reader", Status.OK)
    assert found.seen == "learned: a 1280×720 frame in 12 ms"
    hand = check_tesson_reader(CameraConfig(tessons="hand-tuned"), clock=lambda: 0.0)
    assert hand.status is Status.OK and hand.seen.startswith("hand-tuned: a 1280×720 frame")


def test_a_damaged_tesson_model_fails_saying_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.tesson_net

    damaged = tmp_path / "tessons.onnx"
    damaged.write_bytes(b"\x08\x07 half a model")
    monkeypatch.setattr(
        vision.tesson_net,
        "read_tessons_net",
        lambda frame, seats=None: vision.tesson_net.TessonNetReader(damaged).read(frame, seats),
    )
    found = check_tesson_reader(CameraConfig())
    assert found.status is Status.FAIL
    assert found.seen.startswith("the learned reader cannot read a frame: ")
    assert "vision/models/tessons.onnx" in found.fix and 'tessons = "hand-tuned"' in found.fix


# --- speaker and voices ------------------------------------------------------------------------


@pytest.fixture
def pi4_cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards"
    path.write_text(PI4)
    return path


@pytest.fixture
def empty_path(tmp_path: Path) -> str:
    folder = tmp_path / "empty-bin"
    folder.mkdir()
    return str(folder)


JACK = Config(speech_output="jack")


def test_the_test_sentence_plays_on_the_chosen_card(pi4_cards: Path) -> None:
    speaker = check_speaker(JACK, pi4_cards, device="null")
    assert speaker.status is Status.OK
    assert speaker.seen.startswith("the test sentence played on Headphones (bcm2835 Headphones)")


def test_the_sentence_goes_to_the_configured_card(pi4_cards: Path) -> None:
    """On ALSA's default device, through ALSA_CARD: here, where that card is missing, aplay
    itself says which card it was sent to."""
    speaker = check_speaker(JACK, pi4_cards)
    assert speaker.status is Status.FAIL
    assert "cannot find card 'Headphones'" in speaker.seen


def test_without_a_sound_card_the_fix_is_a_speaker_or_the_audio_setting(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.write_text("--- no soundcards ---\n")
    speaker = check_speaker(JACK, cards, device="null")
    assert (speaker.status, speaker.seen) == (Status.FAIL, "no sound card")
    assert "sudo raspi-config" in speaker.fix


def test_an_output_not_plugged_in_names_the_cards_present(pi4_cards: Path) -> None:
    speaker = check_speaker(Config(speech_output="usb"), pi4_cards, device="null")
    assert speaker.status is Status.FAIL
    assert "Headphones (bcm2835 Headphones)" in speaker.seen
    assert "[voice] output" in speaker.fix


def test_without_aplay_the_fix_installs_it(pi4_cards: Path, empty_path: str) -> None:
    speaker = check_speaker(JACK, pi4_cards, path=empty_path, device="null")
    assert (speaker.status, speaker.fix) == (Status.FAIL, "sudo apt install alsa-utils")


def test_aplay_failing_is_reported_with_its_error(pi4_cards: Path) -> None:
    speaker = check_speaker(JACK, pi4_cards, device="nosuchdevice")
    assert speaker.status is Status.FAIL
    assert "audio open error" in speaker.seen
    assert "aplay -l" in speaker.fix


def test_without_sound_the_sentence_is_made_but_not_played(pi4_cards: Path) -> None:
    speaker = check_speaker(Config(speech_output="jack", language="fr"), pi4_cards, play=False)
    assert speaker.status is Status.OK
    assert "not played" in speaker.seen


def test_french_and_english_voices_are_found() -> None:
    voices = check_voices()
    assert voices.status is Status.OK
    assert voices.seen.startswith("French (") and "English (" in voices.seen


def test_without_espeak_ng_the_fix_installs_it(empty_path: str) -> None:
    voices = check_voices(empty_path)
    assert (voices.status, voices.fix) == (Status.FAIL, "sudo apt install espeak-ng")


# --- disk and journal -------------------------------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts a real tmpfs of a given size (unmounted afterwards)."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        where = tmp_path / f"tmpfs-{len(mounted)}"
        where.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"these tests mount a tmpfs: run them as root ({done.stderr})"
        mounted.append(where)
        return where

    yield mount
    for where in reversed(mounted):
        subprocess.run(["umount", str(where)], check=True)


@pytest.mark.parametrize(("size", "status"), [("1g", Status.OK), ("100m", Status.WARN)])
def test_free_space_is_ok_above_500_mb_and_a_warning_below(
    tmpfs: Callable[[str], Path], size: str, status: Status
) -> None:
    disk = check_disk(tmpfs(size) / "data")
    assert disk.status is status


def test_a_full_disk_fails_with_how_to_make_room(tmpfs: Callable[[str], Path]) -> None:
    disk = tmpfs("64m")
    with (disk / "filler").open("wb") as filler:
        filler.write(b"\0" * 60 * 1024 * 1024)
    found = check_disk(disk / "data")
    assert found.status is Status.FAIL
    assert found.seen.startswith("only 4 MB free")
    assert "journalctl --vacuum-size" in found.fix


def test_a_read_only_disk_fails_with_what_to_do(tmpfs: Callable[[str], Path]) -> None:
    disk = tmpfs("1g")
    (disk / "data").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    found = check_disk(disk / "data")
    assert found.status is Status.FAIL
    assert "read-only" in found.seen
    assert "restart the Pi" in found.fix


def test_no_journal_yet_is_ok(tmp_path: Path) -> None:
    journal = check_journal(tmp_path / "journal.sqlite3")
    assert journal.status is Status.OK
    assert "a new journal will be made" in journal.seen


def test_a_journal_whose_games_replay_is_ok(tmp_path: Path) -> None:
    journal_with_a_game(tmp_path / "journal.sqlite3").close()
    journal = check_journal(tmp_path / "journal.sqlite3")
    assert journal.status is Status.OK
    assert "sound, 1 game, every one replays" in journal.seen


@pytest.mark.parametrize("damage", ["a page overwritten", "garbage"])
def test_a_damaged_journal_fails_with_move_it_aside(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "journal.sqlite3"
    journal_with_a_game(path).close()
    data = bytearray(path.read_bytes())
    if damage == "garbage":
        data[:] = os.urandom(len(data))
    else:
        data[4096:8192] = os.urandom(4096)
    path.write_bytes(bytes(data))
    journal = check_journal(path)
    assert journal.status is Status.FAIL
    assert "is damaged" in journal.seen
    assert f"sudo mv {path} {path}.damaged" in journal.fix


def test_an_unfinished_game_that_does_not_replay_fails(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    journal = journal_with_a_game(path)
    journal.append(1, 99, PlayMissionCard(0, Card.SUCCESS).to_json())  # during a vote
    journal.close()
    found = check_journal(path)
    assert found.status is Status.FAIL
    assert "game 1 (resistance) does not replay" in found.seen
    assert "cannot be resumed" in found.seen


# --- clock and network ------------------------------------------------------------------------


def test_a_clock_before_the_companion_was_made_fails(empty_path: str) -> None:
    clock = check_clock(datetime(2020, 1, 1, 0, 5), empty_path)
    assert clock.status is Status.FAIL
    assert "sudo date -s" in clock.fix


def test_a_clock_after_it_is_ok(empty_path: str) -> None:
    clock = check_clock(datetime(2026, 11, 21, 20, 0), empty_path)
    assert (clock.status, clock.seen) == (
        Status.OK,
        "2026-11-21 20:00 (no timedatectl to ask whether it is synchronised)",
    )


def test_a_page_on_loopback_warns_that_phones_cannot_reach_it() -> None:
    network = check_network(Config(host="127.0.0.1", port=free_port()))
    assert [f.status for f in network] == [Status.WARN, Status.OK]
    assert network[0].fix == 'set [server] host = "0.0.0.0" in the config'


def test_the_address_phones_open_is_said() -> None:
    port = free_port()
    network = check_network(Config(host="0.0.0.0", port=port), lambda: "192.168.1.20")
    assert network[0].status is Status.OK
    assert network[0].seen == (
        f"phones open http://192.168.1.20:{port}/ (or http://companion.local:{port}/)"
    )


def test_no_network_address_fails_with_how_to_join_the_wifi() -> None:
    network = check_network(Config(host="0.0.0.0", port=free_port()), lambda: None)
    assert network[0].status is Status.FAIL
    assert "sudo nmtui" in network[0].fix


def test_a_port_taken_by_another_program_fails() -> None:
    other = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        port = check_port("127.0.0.1", other.server_address[1])
    finally:
        other.shutdown()
        other.server_close()
    assert port.status is Status.FAIL
    assert "taken by another program" in port.seen
    assert "[server] port" in port.fix


def test_a_port_served_by_a_running_companion_is_ok(server: Server) -> None:
    port = check_port("127.0.0.1", server.port)
    assert (port.status, port.seen) == (
        Status.OK,
        "already served by a companion (the service is running)",
    )


# --- the command ------------------------------------------------------------------------------


def config_file(tmp_path: Path, camera_source: str, extra: str = "") -> Path:
    path = tmp_path / "companion.toml"
    path.write_text(
        f'data_dir = "{tmp_path / "data"}"\n'
        f'[server]\nhost = "127.0.0.1"\nport = {free_port()}\n'
        '[voice]\nengine = "console"\n'
        '[buttons]\npin_factory = "mock"\n'
        f'[camera]\nsource = "{camera_source}"\n' + extra
    )
    return path


def run(capsys: pytest.CaptureFixture[str], *args: Any) -> tuple[int, str]:
    status = main(["doctor", *map(str, args)])
    return status, capsys.readouterr().out


def test_a_ready_simulated_table_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = write(tmp_path / "table.png", with_markers())
    status, out = run(capsys, "--config", config_file(tmp_path, str(scene)))
    assert status == 0, out
    assert "[ ok ] camera markers: the four corner markers (0 to 3) are seen" in out
    assert "[ ok ] buttons: simulated, no GPIO pins" in out
    assert out.rstrip().splitlines()[-1].startswith("The table is ready")


def test_a_failure_exits_1_and_the_report_shows_its_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(capsys, "--config", config_file(tmp_path, "device:9"), "--no-buttons")
    assert status == 1
    assert "[FAIL] camera: no camera at device:9" in out
    assert "\n       fix: connect the camera" in out
    assert "[ ok ] buttons: not tested (--no-buttons)" in out
    assert out.rstrip().splitlines()[-1].startswith("Not ready: 1 problem")


def test_a_bad_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "companion.toml"
    path.write_text('language = "de"\n')
    with pytest.raises(SystemExit) as exited:
        main(["doctor", "--config", str(path)])
    assert exited.value.code == 2
    assert 'language must be "en" or "fr"' in capsys.readouterr().err
