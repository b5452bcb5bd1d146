"""Game night's dice reader end to end, in simulation: real photos of thrown dice given to the
companion as its camera (a folder of image files), read by the pip reader, journalled, shown on
the page's picture and said aloud by espeak-ng into WAV files that are measured; the statistics
over a recorded series of throws; re-rolls seen on the generated camera."""

from __future__ import annotations

import collections
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import PIN, ROOT, host_client

from appliance.wiring import build
from companion.config import CameraConfig, Config
from companion.games.night.dice import DiceStats
from vision.synthetic import PHOTOS
from voice.speech import Pyttsx3Speech
from voice.wav import measure

sys.path.insert(0, str(ROOT / "benchmarks"))
from vision_pips import load_labels

# photos the pip reader reads entirely right (tests/test_vision_pips.py), thrown in this order
THROWS = ["IMG_20191209_095342.jpg", "IMG_20191209_095545.jpg", "IMG_20191209_100131.jpg"]
NAMES = ["Ada", "Bea", "Cyd"]


class WavSpeech:
    """espeak-ng (through pyttsx3), each line written to its own WAV file instead of played."""

    name = "wav"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.engine: Pyttsx3Speech | None = None  # made on the narrator's thread, which speaks
        self.spoken: list[tuple[str, Path]] = []

    def speak(self, text: str, lang: str) -> None:
        if self.engine is None:
            self.engine = Pyttsx3Speech()
        path = self.folder / f"{len(self.spoken):03d}.wav"
        self.engine.save(text, lang, path)
        self.spoken.append((text, path))


def companion_with(tmp_path: Path, source: str, speech: Any) -> Any:
    config = Config(
        data_dir=tmp_path / "data",
        pin_factory="mock",
        camera=CameraConfig(source=source),
        host_pin=PIN,
    )
    return build(config, speech=speech)


@pytest.fixture(scope="module")
def labels() -> dict[str, list[tuple[int, float, float]]]:
    return load_labels(PHOTOS)


def label_values(labels: dict[str, Any], name: str) -> list[int]:
    return sorted((die[0] for die in labels[name]), reverse=True)


@pytest.fixture
def photo_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "camera"
    folder.mkdir()
    for n, name in enumerate(THROWS):
        shutil.copy(PHOTOS / "images" / name, folder / f"{n}.jpg")
    return folder


@pytest.fixture
def at_the_table(tmp_path: Path, photo_folder: Path) -> Iterator[tuple[Any, WavSpeech, Any]]:
    wavs = tmp_path / "wavs"
    wavs.mkdir()
    speech = WavSpeech(wavs)
    companion = companion_with(tmp_path, str(photo_folder), speech)
    host = host_client(companion.app, PIN)
    start = {"game": "night", "options": {"players": 3}, "names": NAMES}
    assert host.post("/api/games", json=start).status_code == 201
    yield companion, speech, host
    companion.close()


def test_a_photo_of_thrown_dice_is_read_said_and_shown(at_the_table, labels) -> None:
    companion, speech, host = at_the_table
    answer = host.post("/api/dice/read", json={})
    assert answer.status_code == 200, answer.get_json()
    snap = host.get("/api/state").get_json()
    last = snap["state"]["dice"]["last"]
    expected = label_values(labels, THROWS[0])
    assert sorted(last["values"], reverse=True) == expected
    assert last["total"] == sum(expected)

    # shown: the picture, and every die placed on it
    picture = snap["picture"]
    jpeg = host.get(picture["url"])
    assert jpeg.status_code == 200 and jpeg.mimetype == "image/jpeg"
    assert picture["throw"] == last["number"] == 1
    for die in last["dice"]:
        assert 0 <= die["x"] * picture["scale"] <= picture["width"]
        assert 0 <= die["y"] * picture["scale"] <= picture["height"]

    # said: the values from high to low and the total, each line a real WAV of speech
    assert companion.narrator.wait_idle(60)
    spoken = dict(speech.spoken)
    said = ", ".join(str(v) for v in expected[:-1]) + f" and {expected[-1]}. Total {sum(expected)}."
    assert said in spoken
    loud = measure(spoken[said])
    assert loud.seconds > 1.5 and loud.rms > 0.01 and loud.voiced_share > 0.3
    assert loud.seconds < 2 + 0.15 * len(said)


def test_the_statistics_count_every_die_of_a_recorded_series_of_throws(at_the_table, labels):
    companion, _, host = at_the_table
    for _ in THROWS:
        assert host.post("/api/dice/read", json={}).status_code == 200
    stats = host.get("/api/state").get_json()["state"]["dice"]["stats"]
    truth = collections.Counter(v for name in THROWS for v in label_values(labels, name))
    assert stats["faces"] == [truth[face] for face in range(1, 7)]
    assert stats["dice"] == sum(truth.values())
    expected = DiceStats(tuple(truth[face] for face in range(1, 7)))
    assert stats["chi2"] == round(expected.chi2, 3)
    # the journal holds the series: replayed after a restart, the statistics are the same
    journal = companion.table.journal
    assert [a["kind"] for a in journal.actions(companion.table.running.entry.id)] == [
        "read_dice"
    ] * len(THROWS)


def test_a_reading_where_no_die_moved_is_taken_once(tmp_path: Path) -> None:
    """The same photo twice: the second reading changes nothing, and the host is told why."""
    folder = tmp_path / "one"
    folder.mkdir()
    shutil.copy(PHOTOS / "images" / THROWS[0], folder / "0.jpg")
    companion = companion_with(tmp_path, str(folder), Quiet())
    try:
        host = host_client(companion.app, PIN)
        host.post("/api/games", json={"game": "night", "options": {"players": 2}})
        assert host.post("/api/dice/read", json={}).status_code == 200
        again = host.post("/api/dice/read", json={})
        assert again.status_code == 400
        assert again.get_json()["error"] == "No die has moved since the last throw."
        assert companion.table.running.version == 1
    finally:
        companion.close()


def test_dice_thrown_again_are_told_from_dice_kept_on_the_generated_camera(tmp_path: Path):
    """Five dice, then the second and fourth thrown again: the reading tells those two from
    the three left where they lay, and the histogram counts the two only."""
    companion = companion_with(tmp_path, "generated:5", Quiet())
    try:
        desk = companion.dice
        host_client(companion.app, PIN).post(
            "/api/games", json={"game": "night", "options": {"players": 2}}
        )
        desk.generated.throw(5)
        desk.give(desk.camera.read_now(reader=desk.reader))
        desk.generated.throw(5, [1, 3])
        desk.give(desk.camera.read_now(reader=desk.reader))
        dice = companion.table.snapshot()["state"]["dice"]
        truth = desk.generated.last_truth
        for die in dice["last"]["dice"]:
            nearest = min(
                range(5), key=lambda i: (truth[i].x - die["x"]) ** 2 + (truth[i].y - die["y"]) ** 2
            )
            assert die["value"] == truth[nearest].value
            assert die["rolled"] == (nearest in (1, 3)), (nearest, die)
        assert dice["last"]["rolled"] == 2 and dice["stats"]["dice"] == 5 + 2
    finally:
        companion.close()


def test_the_host_reads_the_dice_in_simulation_and_some_are_thrown_again(tmp_path: Path):
    companion = companion_with(tmp_path, "generated:5", Quiet())
    try:
        host = host_client(companion.app, PIN)
        host.post("/api/games", json={"game": "night", "options": {"players": 2}})
        for _ in range(6):
            answer = host.post("/api/dice/read", json={})
            assert answer.status_code in (200, 400), answer.get_json()
        dice = companion.table.snapshot()["state"]["dice"]
        assert dice["throws"] >= 5
        assert dice["stats"]["dice"] < 5 * dice["throws"]  # kept dice are not counted again
    finally:
        companion.close()


class Quiet:
    name = "quiet"

    def speak(self, text: str, lang: str) -> None:
        pass
