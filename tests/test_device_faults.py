"""Devices failing mid-game: the voice, a button stuck down, the data disk full or read-only.

Real parts throughout: the companion built by ``appliance.wiring.build`` on gpiozero's
MockFactory pins, the narrator's own worker thread, SQLite on a real 2 MB tmpfs filled by a real
file, and an ext4 disk (a loop device) that the kernel itself turns read-only under the open
journal, as it does a failing SD card (``errors=remount-ro``). A tmpfs cannot stand in for that
last one: Linux refuses ``mount -o remount,ro`` while SQLite holds files open for writing.
"""

from __future__ import annotations

import errno
import io
import logging
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from serving import PIN, free_port, host_client

from appliance import cli
from appliance.wiring import Companion, build
from companion.config import Config
from companion.games.resistance.state import Card, CastVote, PlayMissionCard, ProposeSquad
from companion.journal import Journal, JournalError, Trouble
from companion.moderator import Table
from companion.narration.catalog import Catalog
from companion.seat_input import Button, Press
from hardware.button_box import ButtonBox
from tests.timing import HandClock
from voice.narrator import Narrator
from voice.speech import ConsoleSpeech

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]
PAUSES = {"intro": 0, "close_eyes": 0, "cylons_open": 0, "cylons_close": 0}
EN, FR = Catalog("en"), Catalog("fr")


class FailingSpeech:
    """The project's console speech, whose output stops (as aplay does when the speaker is
    unplugged) while ``broken`` is set: ``speak`` then raises OSError."""

    name = "failing"

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.console = ConsoleSpeech(self.out)
        self.broken = threading.Event()

    def speak(self, text: str, lang: str) -> None:
        if self.broken.is_set():
            raise OSError(5, "aplay: pcm write failed: Input/output error")
        self.console.speak(text, lang)


def companion_at(data_dir: Path, speech: object = None, **settings: object) -> Companion:
    config = Config(
        data_dir=data_dir,
        pin_factory="mock",
        bounce_ms=0,
        speech="console",
        host_pin=PIN,
        pauses=PAUSES,
        **settings,  # type: ignore[arg-type]
    )
    return build(config, speech=speech if speech is not None else ConsoleSpeech(io.StringIO()))


def start_resistance(companion: Companion, language: str = "en") -> None:
    companion.table.new_game("resistance", {"players": 5}, NAMES, language, seed=3)
    assert companion.narrator.wait_idle(10)  # the night, said; play begins


def mid_vote(companion: Companion) -> Table:
    """A game of Résistance with a squad named and the first of five votes cast."""
    start_resistance(companion)
    companion.table.submit(ProposeSquad(0, (0, 1)))
    companion.table.submit(CastVote(0, True))
    return companion.table


def said_on_page(companion: Companion, line: str) -> int:
    assert companion.narrator.wait_idle(10)
    return companion.table.snapshot()["narration"].count(line)


# -- the voice ----------------------------------------------------------------------------------


@pytest.fixture
def speech() -> FailingSpeech:
    return FailingSpeech()


@pytest.fixture
def voiced(tmp_path: Path, speech: FailingSpeech) -> Iterator[Companion]:
    companion = companion_at(tmp_path / "data", speech)
    yield companion
    companion.close()


def test_when_the_voice_stops_the_game_goes_on_as_text_with_one_warning(
    voiced: Companion, speech: FailingSpeech
) -> None:
    start_resistance(voiced)
    table = voiced.table
    spoken = speech.out.getvalue()
    speech.broken.set()
    table.submit(ProposeSquad(0, (0, 1)))
    for seat in range(5):  # the squad, then the vote's result: two lines the voice cannot say
        table.submit(CastVote(seat, True))
    snap = table.snapshot()
    assert snap["version"] == 7 and snap["state"]["phase"] == "mission"
    assert len(table.journal.actions(snap["game_id"])) == 7
    assert said_on_page(voiced, EN.text("general.speech_failed")) == 1
    narration = table.snapshot()["narration"]
    assert any("Ada" in line and "Bea" in line for line in narration)  # the squad, as text
    assert speech.out.getvalue() == spoken  # not a word since
    assert voiced.narrator.failures >= 2  # every line failed, one warning for them all


def test_the_voice_warns_again_only_after_it_spoke_and_failed_again(
    voiced: Companion, speech: FailingSpeech
) -> None:
    start_resistance(voiced)
    table = voiced.table
    warning = EN.text("general.speech_failed")
    speech.broken.set()
    table.submit(ProposeSquad(0, (0, 1)))  # the squad: not said
    assert said_on_page(voiced, warning) == 1
    speech.broken.clear()
    for seat in range(5):  # the vote's result: said, the voice is back
        table.submit(CastVote(seat, True))
    assert said_on_page(voiced, warning) == 1
    speech.broken.set()
    for seat in (0, 1):  # the mission's result: not said
        table.submit(PlayMissionCard(seat, Card.SUCCESS))
    assert said_on_page(voiced, warning) == 2


def test_the_warning_is_in_the_games_language(voiced: Companion, speech: FailingSpeech) -> None:
    start_resistance(voiced, "fr")
    speech.broken.set()
    voiced.table.submit(ProposeSquad(0, (0, 1)))
    assert said_on_page(voiced, FR.text("general.speech_failed")) == 1
    assert said_on_page(voiced, EN.text("general.speech_failed")) == 0


def test_the_warning_is_shown_never_said(voiced: Companion, speech: FailingSpeech) -> None:
    start_resistance(voiced)
    speech.broken.set()
    voiced.table.submit(ProposeSquad(0, (0, 1)))
    assert voiced.narrator.wait_idle(10)
    speech.broken.clear()
    voiced.table.submit(CastVote(0, True))
    assert voiced.narrator.wait_idle(10)
    assert "The voice has stopped" not in speech.out.getvalue()


def test_a_voice_missing_at_start_is_logged_and_shown_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """aplay is not installed (an empty PATH finds no program): narration goes to the console."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    caplog.set_level(logging.WARNING)
    companion = build(
        Config(
            data_dir=tmp_path / "data",
            pin_factory="mock",
            speech="auto",
            host_pin=PIN,
            pauses=PAUSES,
        )
    )
    try:
        assert companion.narrator.wait_idle(10)
        missing = EN.text("general.speech_missing")
        assert caplog.text.count(missing) == 1 and "aplay" in caplog.text
        assert companion.table.snapshot()["narration"].count(missing) == 1
        start_resistance(companion)
        companion.table.submit(ProposeSquad(0, (0, 1)))
        assert said_on_page(companion, EN.text("general.speech_failed")) == 0
    finally:
        companion.close()


def test_the_narrator_reports_a_run_of_failures_once() -> None:
    speech = FailingSpeech()
    reported: list[bool] = []
    narrator = Narrator(lambda: speech, sleep=lambda s: None, on_failure=reported.append)
    speech.broken.set()
    for line in ("one", "two", "three"):
        narrator.say(line, "en")
    assert narrator.wait_idle(5)
    assert reported == [False] and narrator.failures == 3
    speech.broken.clear()
    narrator.say("four", "en")
    assert narrator.wait_idle(5)
    speech.broken.set()
    narrator.say("five", "en")
    assert narrator.wait_idle(5)
    assert reported == [False, False]
    narrator.close()


# -- a button stuck down ------------------------------------------------------------------------

PAIRS = ((4, 17), (27, 22), (5, 6))
STUCK = 10.0  # seconds down, on the box's clock (moved by hand)


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    narrator = Narrator(lambda: ConsoleSpeech(io.StringIO()), sleep=lambda s: None)
    made = Table(Journal(tmp_path / "journal.sqlite3"), narrator, seats=len(NAMES), pauses=PAUSES)
    yield made
    narrator.close()
    made.journal.close()


class Box:
    """A box whose presses and stuck reports are recorded (the stuck ones also told the table),
    on a clock moved by hand: ``stay_down`` holds the buttons that are down for the stuck time,
    and a stuck report comes, if it does, inside it."""

    def __init__(self, factory: MockFactory, table: Table | None = None) -> None:
        self.factory = factory
        self.clock = HandClock()
        self.pressed: list[Press] = []
        self.stuck: list[tuple[int, Button]] = []

        def on_stuck(seat: int, button: Button) -> None:
            self.stuck.append((seat, button))
            if table is not None:
                table.button_stuck(seat)

        self.box = ButtonBox(
            PAIRS,
            (),
            self.pressed.append,
            bounce=0.04,
            pin_factory=factory,
            clock=self.clock,
            hold=None,  # a stuck A is a long press first: these tests are about sticking
            stuck=STUCK,
            on_stuck=on_stuck,
        )

    def pin(self, seat: int, button: Button) -> object:
        return self.factory.pin(PAIRS[seat][0 if button is Button.A else 1])

    def stay_down(self, seconds: float = STUCK) -> None:
        self.clock.advance(seconds)

    def tap(self, seat: int, button: Button) -> None:
        self.clock.advance(0.06)  # quiet for longer than the bounce window
        pin = self.pin(seat, button)
        pin.drive_low()  # type: ignore[attr-defined]
        self.clock.advance(0.06)
        pin.drive_high()  # type: ignore[attr-defined]

    def close(self) -> None:
        for pins in PAIRS:
            for number in pins:
                self.factory.pin(number).drive_high()
        self.box.close()


@pytest.fixture
def box(factory: MockFactory) -> Iterator[Box]:
    made = Box(factory)
    yield made
    made.close()


def test_a_button_held_down_past_the_stuck_time_is_reported_once(box: Box) -> None:
    box.pin(1, Button.B).drive_low()  # type: ignore[attr-defined]
    box.stay_down(STUCK - 0.001)
    assert box.stuck == [] and not box.box.is_stuck(1, Button.B)
    box.stay_down(0.001)
    assert box.stuck == [(1, Button.B)]
    box.stay_down(STUCK * 10)
    assert box.stuck == [(1, Button.B)]
    assert box.box.is_stuck(1, Button.B)
    assert box.pressed == [Press(1, Button.B)]  # the press itself, on the way down


def test_a_stuck_contact_that_flickers_plays_nothing_and_is_not_reported_again(box: Box) -> None:
    pin = box.pin(0, Button.A)
    pin.drive_low()  # type: ignore[attr-defined]
    box.stay_down()
    assert box.stuck == [(0, Button.A)]
    for _ in range(3):
        box.clock.advance(0.01)
        pin.drive_high()  # type: ignore[attr-defined]
        box.clock.advance(0.01)
        pin.drive_low()  # type: ignore[attr-defined]
    box.stay_down(STUCK * 2)
    assert box.pressed == [Press(0, Button.A)]
    assert box.stuck == [(0, Button.A)]


def test_other_buttons_play_on_while_one_is_stuck(box: Box) -> None:
    box.pin(0, Button.A).drive_low()  # type: ignore[attr-defined]
    box.stay_down()
    assert box.stuck == [(0, Button.A)]
    box.tap(0, Button.B)
    box.tap(2, Button.A)
    assert box.pressed == [Press(0, Button.A), Press(0, Button.B), Press(2, Button.A)]


def test_a_stuck_button_released_then_pressed_plays_again(box: Box) -> None:
    pin = box.pin(2, Button.A)
    pin.drive_low()  # type: ignore[attr-defined]
    box.stay_down()
    assert box.stuck == [(2, Button.A)]
    pin.drive_high()  # type: ignore[attr-defined]
    box.tap(2, Button.A)
    assert box.pressed == [Press(2, Button.A), Press(2, Button.A)]
    assert not box.box.is_stuck(2, Button.A)


def test_a_chattering_contact_is_not_stuck(box: Box) -> None:
    pin = box.pin(1, Button.A)
    for _ in range(int(STUCK * 2 / 0.012)):  # down most of the time, for twice the stuck time
        pin.drive_low()  # type: ignore[attr-defined]
        box.clock.advance(0.01)
        pin.drive_high()  # type: ignore[attr-defined]
        box.clock.advance(0.002)
    box.stay_down(STUCK * 1.5)
    assert box.stuck == []


def test_the_table_asks_the_seat_with_a_stuck_button_to_use_its_phone(
    factory: MockFactory, table: Table
) -> None:
    table.new_game("resistance", {"players": 5}, NAMES, "fr", seed=3)
    box = Box(factory, table)
    try:
        box.pin(0, Button.A).drive_low()  # type: ignore[attr-defined]
        box.stay_down()
        assert box.stuck == [(0, Button.A)]
        wanted = Catalog("fr", NAMES).text("general.button_stuck", seat=0)
        assert wanted.startswith("Ada, un de vos boutons semble coincé")
        assert table.snapshot()["narration"].count(wanted) == 1
    finally:
        box.close()


def test_a_button_stuck_during_a_secret_vote_never_tells_which_it_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Bea holds down the button of her vote, A in one game and B in its twin: what is said,
    shown and logged is the same, word for word."""
    seen = []
    for button in (Button.A, Button.B):
        factory = MockFactory()
        narrator = Narrator(lambda: ConsoleSpeech(io.StringIO()), sleep=lambda s: None)
        table = Table(
            Journal(tmp_path / f"{button.value}.sqlite3"), narrator, seats=5, pauses=PAUSES
        )
        table.new_game("resistance", {"players": 5}, NAMES, "en", seed=3)
        assert narrator.wait_idle(10)
        table.submit(ProposeSquad(0, (0, 1)))
        box = Box(factory, table)
        caplog.clear()
        try:
            box.pin(1, button).drive_low()  # type: ignore[attr-defined]
            box.stay_down()
            assert box.stuck == [(1, button)]
            snap = table.snapshot()
            seen.append((snap["narration"][-1], snap["message"], caplog.text))
        finally:
            box.close()
            narrator.close()
            table.journal.close()
    assert seen[0] == seen[1]
    said, _, logged = seen[0]
    assert said.startswith("Bea, one of your buttons seems stuck") and "stuck" in logged


# -- the data disk full or read-only -----------------------------------------------------------


def run(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk))
    try:
        yield disk
    finally:
        run("umount", "-l", str(disk))


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_refuses_the_action_with_a_clear_message_and_loses_nothing(
    small_disk: Path,
) -> None:
    companion = companion_at(small_disk / "data")
    table = mid_vote(companion)
    host = host_client(companion.app, PIN)
    filler = fill(small_disk)
    before = table.snapshot()
    full = EN.text("errors.journal_full")

    with pytest.raises(JournalError) as refused:
        table.submit(CastVote(1, True))
    assert refused.value.reason is Trouble.FULL and table.refusal(refused.value) == full
    answer = host.post("/api/act", json=CastVote(1, True).to_json())
    assert answer.status_code == 503 and answer.get_json() == {"error": full}
    result = table.press(Press(1, Button.A))
    assert result.accepted is None and result.messages == (full,)
    assert table.snapshot()["message"] == full
    after = table.snapshot()
    assert (after["version"], after["state"]) == (before["version"], before["state"])

    filler.unlink()
    answer = host.post("/api/act", json=CastVote(1, True).to_json())
    assert answer.status_code == 200 and answer.get_json()["state"]["voted"] == [0, 1]
    game_id = after["game_id"]
    companion.close()

    again = companion_at(small_disk / "data")
    try:
        assert again.table.snapshot()["state"]["voted"] == [0, 1]
        assert len(again.table.journal.actions(game_id)) == 4  # night, squad, two votes
    finally:
        again.close()


def test_a_full_disk_is_explained_in_french_in_a_french_game(small_disk: Path) -> None:
    companion = companion_at(small_disk / "data")
    try:
        start_resistance(companion, "fr")
        companion.table.submit(ProposeSquad(0, (0, 1)))
        fill(small_disk)
        result = companion.table.press(Press(0, Button.A))
        assert result.messages == (FR.text("errors.journal_full"),)
        assert result.messages[0].startswith("Le disque du compagnon est plein")
    finally:
        companion.close()


def test_a_secret_vote_refused_by_a_full_disk_does_not_tell_which_way_it_went(
    small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Bea votes with A in one game and B in its twin, on a full disk: the refusal said, the page
    and the log are the same, word for word (the journal's path aside)."""
    seen = []
    for button in (Button.A, Button.B):
        data = small_disk / button.value
        companion = companion_at(data)
        try:
            table = mid_vote(companion)
            filler = fill(small_disk)
            caplog.clear()
            result = table.press(Press(1, button))
            snap = table.snapshot()
            logged = caplog.text.replace(str(data), "DATA")
            seen.append(
                (result.messages, snap["narration"], snap["message"], snap["state"], logged)
            )
            filler.unlink()
        finally:
            companion.close()
    assert seen[0] == seen[1]
    assert seen[0][0] == (EN.text("errors.journal_full"),) and "cannot be written" in seen[0][4]


@pytest.fixture
def failing_card(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """An ext4 disk on a loop device, mounted as Raspberry Pi OS mounts its root
    (``errors=remount-ro``): an error makes the kernel turn it read-only, files open or not."""
    image, disk = tmp_path / "card.img", tmp_path / "card"
    disk.mkdir()
    with image.open("wb") as out:
        out.truncate(16 * 1024 * 1024)
    run("mkfs.ext4", "-q", str(image))
    run("mount", "-o", "loop,errors=remount-ro", str(image), str(disk))
    try:
        yield image, disk
    finally:
        run("umount", "-l", str(disk))


def turn_read_only(disk: Path) -> None:
    """An ext4 error, as a failing card makes; the kernel then refuses every write on the disk
    (recent kernels mark it ``emergency_ro``, which ``statvfs`` does not show: a write tells)."""
    device = subprocess.run(
        ["findmnt", "-n", "-o", "SOURCE", str(disk)], check=True, capture_output=True, text=True
    ).stdout.strip()
    Path(f"/sys/fs/ext4/{os.path.basename(device)}/trigger_fs_error").write_text("test\n")
    deadline = time.monotonic() + 5
    while True:
        try:
            (disk / "probe").write_bytes(b"x")
        except OSError as error:
            assert error.errno == errno.EROFS, error
            return
        assert time.monotonic() < deadline, "the kernel did not turn the disk read-only"
        time.sleep(0.02)


def test_a_disk_turned_read_only_refuses_the_action_and_loses_nothing(
    failing_card: tuple[Path, Path],
) -> None:
    image, disk = failing_card
    companion = companion_at(disk / "data")
    table = mid_vote(companion)
    host = host_client(companion.app, PIN)
    turn_read_only(disk)
    before = table.snapshot()
    read_only = EN.text("errors.journal_read_only")

    with pytest.raises(JournalError) as refused:
        table.submit(CastVote(1, True))
    assert refused.value.reason is Trouble.READ_ONLY
    answer = host.post("/api/act", json=CastVote(2, True).to_json())
    assert answer.status_code == 503 and answer.get_json() == {"error": read_only}
    assert table.press(Press(3, Button.A)).messages == (read_only,)
    after = table.snapshot()
    assert (after["version"], after["state"]) == (before["version"], before["state"])
    companion.close()

    run("umount", str(disk))  # the host restarts it on a repaired disk
    run("mount", "-o", "loop", str(image), str(disk))
    again = companion_at(disk / "data")
    try:
        assert again.table.snapshot()["state"]["voted"] == [0]
        assert len(again.table.journal.actions(after["game_id"])) == 3
    finally:
        again.close()


def test_a_read_only_disk_at_start_stops_serve_with_the_reason(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = small_disk / "data"
    companion_at(data).close()  # a journal from an earlier evening
    run("mount", "-o", "remount,ro", str(small_disk))
    with pytest.raises(JournalError) as refused:
        Journal(data / "journal.sqlite3")
    assert refused.value.reason is Trouble.READ_ONLY
    config = small_disk.parent / "config.toml"
    config.write_text(f'data_dir = "{data}"\n[voice]\nengine = "console"\n')
    assert cli.main(["serve", "--config", str(config), "--port", str(free_port())]) == 1
    error = capsys.readouterr().err
    assert error.startswith("companion: the journal at ") and "disk is read-only" in error


def test_a_journal_sqlite_cannot_put_in_wal_mode_is_refused() -> None:
    """SQLite keeps some journals out of WAL mode (a temporary one here; some network disks):
    rather than run without the promise that an answered action survives a power cut, the
    companion says why and where to put its data."""
    with pytest.raises(JournalError, match=r"cannot use SQLite's WAL mode.*data_dir"):
        Journal("")
