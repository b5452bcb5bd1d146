"""The overhead camera stops in the middle of a game, and comes back (issue 12).

The camera is OpenCV's own ``VideoCapture`` reading a video of real photos of thrown dice: a
video that ends is exactly what a camera pulled out of its socket looks like to the companion
(``read`` gives no frame). While it is away, opening it afresh fails (the file is not there);
it "returns" when the file appears. Game night's dice desk watches throughout, as at a table.
"""

from __future__ import annotations

import io
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest
from heard import HeardNarrator
from serving import PIN, ROOT, host_client
from timing import HandClock

from appliance.wiring import Companion, build
from companion.config import CameraConfig, Config
from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.state import ThrowDice
from companion.journal import Journal
from companion.moderator import Table
from companion.narration.catalog import Catalog
from desks.camera_loss import RETRY, until_back
from desks.pip_dice import DiceDesk
from desks.throws import ThrowDesk
from vision.die_colors import read_pips_in_color
from vision.sources import (
    CameraStopped,
    FrameSource,
    VideoCaptureSource,
    open_source,
    read_image,
)
from vision.synthetic import PHOTOS
from vision.throws import ThrowCamera
from voice.speech import ConsoleSpeech

sys.path.insert(0, str(ROOT / "benchmarks"))
from vision_pips import load_labels

# photos the pip reader reads entirely right (as in tests/test_night_dice.py)
FIRST, SECOND = "IMG_20191209_095342.jpg", "IMG_20191209_100131.jpg"
SIZE = (960, 720)
SETTLE = 3
EN = Catalog("en")
STOPPED, BACK = EN.text("camera.stopped"), EN.text("camera.back")


def video(path: Path, *photos: str) -> Path:
    """A video of hands over the tray (dark frames), then each photo held still."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, SIZE)
    assert writer.isOpened()
    for name in photos:
        still = cv2.resize(read_image(PHOTOS / "images" / name), SIZE)
        for _ in range(2):
            writer.write(np.zeros_like(still))
        for _ in range(SETTLE + 2):
            writer.write(still)
    writer.release()
    return path


def pip_values(photo: str) -> list[int]:
    return sorted(die[0] for die in load_labels(PHOTOS)[photo])


def eventually(check: Callable[[], bool], what: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def without_a_camera(tmp_path: Path) -> Companion:
    """A companion whose own camera is missing: the tests give a desk their camera."""
    return build(
        Config(
            data_dir=tmp_path / "data",
            pin_factory="mock",
            speech="console",
            host_pin=PIN,
            camera=CameraConfig(source=str(tmp_path / "no-camera")),
        ),
        speech=ConsoleSpeech(io.StringIO()),
    )


@pytest.fixture
def table_with_camera(tmp_path: Path) -> Iterator[tuple[Companion, DiceDesk, Path, list[Path]]]:
    """A companion without a camera of its own, given game night's desk on the video camera;
    ``replugged``: the file the camera reopens, absent at first; ``tries``: one entry each time
    the camera was opened afresh."""
    companion = without_a_camera(tmp_path)
    replugged = tmp_path / "replugged.avi"
    tries: list[Path] = []

    def reopen() -> FrameSource:
        tries.append(replugged)
        return open_source(str(replugged))

    camera = ThrowCamera(
        VideoCaptureSource(video(tmp_path / "first.avi", FIRST)),
        None,
        SETTLE,
        live=True,
        reopen=reopen,
    )
    desk = DiceDesk(companion.table, camera)
    desk.retry = 0.05
    yield companion, desk, replugged, tries
    desk.close()
    camera.close()
    companion.close()


def throws(companion: Companion) -> list[list[int]]:
    state = companion.table.snapshot()["state"]
    return [sorted(t["values"]) for t in state["dice"]["history"]]


def narration(companion: Companion) -> list[str]:
    return list(companion.table.snapshot()["narration"])


def test_a_camera_that_stops_is_said_once_entered_by_hand_and_picked_up_when_back(
    table_with_camera: tuple[Companion, DiceDesk, Path, list[Path]],
) -> None:
    companion, _, replugged, tries = table_with_camera
    host = host_client(companion.app, PIN)
    start = {"game": "night", "options": {"players": 2}, "names": ["Ada", "Bea"]}
    assert host.post("/api/games", json=start).status_code == 201
    eventually(lambda: len(throws(companion)) == 1, "the first throw read")

    # the camera stops: said once, however many times it is tried meanwhile
    eventually(lambda: companion.table.snapshot()["camera_lost"], "the camera seen lost")
    eventually(lambda: len(tries) >= 10, "ten tries of the camera, every one failing")
    assert narration(companion).count(STOPPED) == 1

    # the game goes on by hand
    typed = {"kind": "read_dice", "dice": [{"value": 6}, {"value": 2}]}
    assert host.post("/api/act", json=typed).status_code == 200
    assert throws(companion)[-1] == [2, 6]

    # the camera returns: said, and the next throw is read by it again
    video(replugged.with_suffix(".tmp.avi"), SECOND).rename(replugged)
    eventually(lambda: BACK in narration(companion), "the camera said back")
    eventually(lambda: len(throws(companion)) == 3, "a throw read by the camera that returned")
    assert narration(companion).count(BACK) == 1
    assert throws(companion) == [pip_values(FIRST), [2, 6], pip_values(SECOND)]
    snap = companion.table.snapshot()
    assert snap["picture"]["throw"] == 3


def test_a_stopped_camera_is_opened_afresh_on_every_read_until_it_returns(
    tmp_path: Path,
) -> None:
    replugged = tmp_path / "replugged.avi"
    with ThrowCamera(
        VideoCaptureSource(video(tmp_path / "first.avi", FIRST)),
        None,
        SETTLE,
        live=True,
        reopen=lambda: open_source(str(replugged)),
    ) as camera:
        for _ in range(2 + SETTLE + 2):
            assert camera.back()
        with pytest.raises(CameraStopped, match="stopped"):
            camera.read_now()
        with pytest.raises(CameraStopped, match="not back"):
            camera.read_now()
        assert not camera.back()
        video(replugged, SECOND)
        assert camera.back() and camera.back()  # reopened: the two dark frames
        picture = camera.read_now(reader=read_pips_in_color)
        assert sorted(d.value for d in picture.dice) == pip_values(SECOND)


def test_without_a_way_to_reopen_it_a_stopped_source_stays_stopped(tmp_path: Path) -> None:
    with ThrowCamera(
        VideoCaptureSource(video(tmp_path / "first.avi", FIRST)), None, SETTLE, live=True
    ) as camera:
        for _ in range(2 + SETTLE + 2):
            camera.back()
        assert not camera.back()
        assert not camera.back()


def test_the_camera_sentences_exist_in_french() -> None:
    fr = Catalog("fr")
    assert fr.text("camera.stopped").startswith("La caméra s'est arrêtée")
    assert fr.text("camera.back").startswith("La caméra est revenue")


def test_an_oraklos_throw_entered_by_hand_is_not_read_again_when_the_camera_returns(
    tmp_path: Path,
) -> None:
    companion = without_a_camera(tmp_path)
    dark = tmp_path / "dark.avi"
    writer = cv2.VideoWriter(str(dark), cv2.VideoWriter_fourcc(*"MJPG"), 10, SIZE)
    for _ in range(3):
        writer.write(np.zeros((SIZE[1], SIZE[0], 3), np.uint8))
    writer.release()
    replugged = tmp_path / "replugged.avi"
    camera = ThrowCamera(
        VideoCaptureSource(dark), None, SETTLE, live=True,
        reopen=lambda: open_source(str(replugged)),
    )  # fmt: skip
    desk = ThrowDesk(companion.table, camera)
    desk.retry = 0.05
    try:
        companion.table.new_game("oraklos", {"players": 3, "mode": "junior"}, seed=4)
        eventually(lambda: companion.table.snapshot()["camera_lost"], "the camera seen lost")
        by_hand = ThrowDice((Die(100, 100, 16, Color.RED), Die(200, 150, 16, Color.BLUE)))
        companion.table.submit(by_hand)
        version = companion.table.snapshot()["version"]

        video(replugged.with_suffix(".tmp.avi"), FIRST).rename(replugged)
        eventually(lambda: BACK in narration(companion), "the camera said back")
        # the desk's watcher has decided once it has ended: had it watched the returned camera,
        # it would have read the video's throw (or still be waiting for one)
        watcher = desk._watcher
        assert watcher is not None
        watcher.join(20)
        assert not watcher.is_alive(), "the desk still watches for the throw entered by hand"
        snap = companion.table.snapshot()
        assert snap["version"] == version and len(snap["state"]["table"]) == 2
    finally:
        desk.close()
        camera.close()
        companion.close()


class Replugged:
    """A camera that stopped: what ``until_back`` asks of a ``ThrowCamera`` (``back``), giving
    frames again from its ``returns_at``-th try."""

    def __init__(self, returns_at: int) -> None:
        self.returns_at = returns_at
        self.tries = 0

    def back(self) -> bool:
        self.tries += 1
        return self.tries >= self.returns_at


@dataclass
class LostCamera:
    """A game night whose camera stopped, its watcher waiting in ``until_back`` on a thread of
    its own (as a desk's runs it) on a clock moved by hand; ``answer`` gets what it returns."""

    clock: HandClock
    table: Table
    camera: Replugged
    stop: threading.Event
    answer: list[bool]


def lost_camera(returns_at: int) -> LostCamera:
    """The camera comes back at its ``returns_at``-th try; returned once the first try is set
    for later."""
    clock = HandClock()
    table = Table(Journal(":memory:"), HeardNarrator(), clock=clock)
    table.new_game("night", {"players": 2}, ["Ada", "Bea"], "en")
    lost = LostCamera(clock, table, Replugged(returns_at), threading.Event(), [])
    threading.Thread(
        target=lambda: lost.answer.append(until_back(table, lost.camera, lost.stop)), daemon=True
    ).start()
    eventually(lambda: clock.pending == 1, "the first try set for later")
    return lost


def test_a_stopped_camera_is_tried_again_each_time_the_tables_clock_has_run_the_retry() -> None:
    lost = lost_camera(returns_at=2)
    clock, camera = lost.clock, lost.camera
    assert lost.table.snapshot()["camera_lost"]
    clock.advance(RETRY - 0.01)
    assert camera.tries == 0, "not tried before its time, however long the test takes"
    clock.advance(0.01)
    eventually(lambda: camera.tries == 1 and clock.pending == 1, "tried, and the next try set")
    clock.advance(RETRY)
    eventually(lambda: lost.answer == [True], "back at the second try")
    assert camera.tries == 2 and clock.pending == 0
    assert not lost.table.snapshot()["camera_lost"]


def test_a_desk_that_stops_watching_leaves_no_try_behind() -> None:
    lost = lost_camera(returns_at=1)
    lost.stop.set()
    eventually(lambda: lost.answer == [False], "the watcher gives up")
    assert lost.clock.pending == 0 and lost.camera.tries == 0
    assert lost.table.snapshot()["camera_lost"], "still lost: nobody saw it come back"
