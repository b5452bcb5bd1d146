"""The throw camera: a picture of the throw and its dice in table units, read once it settles."""

from __future__ import annotations

import functools
import math
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.left_lying import lying
from tests.timing import HandClock
from vision.calibration import Calibration
from vision.cubes import read_cubes
from vision.readings import DieReading, UnreadableFrame
from vision.sources import (
    CameraStopped,
    CameraUnavailable,
    FrameSource,
    ImageFileSource,
    open_source,
)
from vision.synthetic import ALBEDO, FELT, Scene, cube_scene, cube_scene_camera
from vision.throws import BORDER, GeneratedThrowSource, ThrowCamera, ThrowPicture

MIX = ("red", "yellow", "blue", "black", "red", "blue", "black", "yellow")


class Frames(FrameSource):
    """Frames from a list, then a stopped camera; counts what was read."""

    description = "test frames"

    def __init__(self, frames: Sequence[np.ndarray]) -> None:
        self.frames_left = list(frames)
        self.reads = 0

    def read(self) -> np.ndarray:
        if not self.frames_left:
            raise CameraStopped("test frames: no more frames")
        self.reads += 1
        return self.frames_left.pop(0)


class Forever(FrameSource):
    """The given frames in turn, for ever; with a ``clock``, one frame every ``period`` seconds
    of it (a camera's pace), the clock moved on by each read."""

    description = "test loop"

    def __init__(
        self, *frames: np.ndarray, clock: HandClock | None = None, period: float = 0.1
    ) -> None:
        self.loop = frames
        self.reads = 0
        self.clock, self.period = clock, period

    def read(self) -> np.ndarray:
        self.reads += 1
        if self.clock is not None:
            self.clock.advance(self.period)
        return self.loop[self.reads % len(self.loop)].copy()


@functools.cache
def scene(seed: int, tilt: float = 0.0, holes: float = 0.3, colors: Sequence[str] = MIX) -> Scene:
    return cube_scene(seed, colors=colors, holes=holes, tilt=tilt, noise=2.0)


def scene_calibration(seed: int, tilt: float) -> Calibration:
    """The exact calibration of a generated scene: its play area is what the frame sees."""
    camera = cube_scene_camera(seed, tilt=tilt)
    frame = np.array([[0, 0], [1280, 0], [1280, 720], [0, 720]], np.float64)
    seen = camera.to_table(frame)
    lo, hi = seen.min(axis=0), seen.max(axis=0)
    to_corner = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]])
    homography = to_corner @ np.linalg.inv(camera.table_homography())
    area = (float(hi[0] - lo[0]), float(hi[1] - lo[1]))
    return Calibration(homography, area, 40.0, (1280, 720))


def pairs(truth: Sequence[DieReading], read: Sequence[DieReading]) -> list[tuple[DieReading, ...]]:
    """Each true die with the nearest reading within half its size."""
    out = []
    for t in truth:
        near = min(read, key=lambda r: math.dist((r.x, r.y), (t.x, t.y)))
        if math.dist((near.x, near.y), (t.x, t.y)) <= t.size / 2:
            out.append((t, near))
    return out


def decoded(picture: ThrowPicture) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(picture.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def colour_at(image: np.ndarray, x: float, y: float) -> str:
    """The die colour (or table) nearest to the pixels round a point."""
    patch = image[round(y) - 2 : round(y) + 3, round(x) - 2 : round(x) + 3].reshape(-1, 3)
    seen = np.median(patch, axis=0)
    palette = {**ALBEDO, "table": FELT, "border": BORDER}
    return min(palette, key=lambda name: float(np.linalg.norm(seen - palette[name])))


def write(path: Path, image: np.ndarray) -> Path:
    assert cv2.imwrite(str(path), image)
    return path


# --- the picture and its units ---------------------------------------------------------------


def test_without_a_calibration_dice_are_in_pixels_of_the_frame_and_the_picture_is_the_frame(
    tmp_path: Path,
) -> None:
    shot = scene(11)
    camera = ThrowCamera(ImageFileSource(write(tmp_path / "throw.png", shot.image)), None, 8)
    picture = camera.read_now()
    assert (picture.unit, picture.scale, picture.width, picture.height) == ("px", 1.0, 1280, 720)
    assert decoded(picture).shape == (720, 1280, 3)
    matched = pairs(shot.dice, picture.dice)
    assert len(matched) == len(shot.dice) == len(picture.dice)
    for truth, read in matched:
        assert math.dist((truth.x, truth.y), (read.x, read.y)) < 2.0
        assert read.color == truth.color


def test_a_large_frame_is_shrunk_and_the_scale_places_the_dice_on_it() -> None:
    shot = scene(11, holes=0.0)
    big = cv2.resize(shot.image, (1920, 1080), interpolation=cv2.INTER_CUBIC)
    picture = ThrowCamera(Frames([big]), None, 8).read_now()
    assert (picture.width, picture.height) == (1280, 720)
    assert picture.scale == pytest.approx(2 / 3)
    image = decoded(picture)
    for truth, read in pairs(
        [t.moved(t.x * 1.5, t.y * 1.5, t.size * 1.5, t.angle) for t in shot.dice], picture.dice
    ):
        assert math.dist((truth.x, truth.y), (read.x, read.y)) < 3.0, "pixels of the frame"
        assert colour_at(image, read.x * picture.scale, read.y * picture.scale) == truth.color


def test_with_a_calibration_dice_are_in_millimetres_on_a_top_down_picture_of_the_area() -> None:
    shot = scene(12, tilt=8.0, holes=0.0)
    calibration = scene_calibration(12, tilt=8.0)
    picture = ThrowCamera(Frames([shot.image]), calibration, 8).read_now()
    assert (picture.unit, picture.scale) == ("mm", 2.0)
    width_mm, height_mm = calibration.area_mm
    assert (picture.width, picture.height) == (round(width_mm * 2), round(height_mm * 2))
    image = decoded(picture)
    truth_mm = [calibration.map_reading(t) for t in shot.dice]
    matched = pairs(truth_mm, picture.dice)
    assert len(matched) == len(shot.dice) == len(picture.dice)
    for truth, read in matched:
        assert math.dist((truth.x, truth.y), (read.x, read.y)) < 2.0
        assert read.size == pytest.approx(16.4, abs=1.5)
        assert colour_at(image, read.x * picture.scale, read.y * picture.scale) == truth.color


def test_a_wide_play_area_is_capped_in_size() -> None:
    calibration = scene_calibration(12, tilt=0.0)
    wide = Calibration(calibration.homography, (1000.0, 500.0), 40.0, (1280, 720))
    picture = ThrowCamera(Frames([scene(12, holes=0.0).image]), wide, 8).read_now()
    assert (picture.width, picture.height, picture.scale) == (1600, 800, 1.6)


def test_a_frame_of_another_size_than_calibrated_asks_to_calibrate_again() -> None:
    small = cv2.resize(scene(12).image, (640, 360))
    camera = ThrowCamera(Frames([small]), scene_calibration(12, tilt=0.0), 8)
    with pytest.raises(UnreadableFrame, match="calibrate again at this resolution"):
        camera.read_now()


def test_the_json_form_has_everything_but_the_picture() -> None:
    picture = ThrowCamera(Frames([scene(11).image]), None, 8).read_now()
    data = picture.to_json()
    assert set(data) == {"width", "height", "scale", "unit", "taken", "dice"}
    assert len(data["dice"]) == len(picture.dice)
    assert "jpeg" not in repr(picture)


# --- what goes wrong --------------------------------------------------------------------------


def test_without_a_source_it_says_to_set_the_camera_source() -> None:
    camera = ThrowCamera(None, None, 8)
    with pytest.raises(CameraUnavailable, match=r"no camera: set \[camera\] source"):
        camera.read_now()
    with pytest.raises(CameraUnavailable, match="folder of"):
        camera.wait_for_throw(threading.Event(), timeout=1)


def test_a_frame_that_is_no_colour_picture_is_unreadable() -> None:
    grey = np.zeros((480, 640), np.uint8)
    with pytest.raises(UnreadableFrame, match="set the camera to colour"):
        ThrowCamera(Frames([grey]), None, 8).read_now()


def test_a_damaged_photo_in_the_folder_is_unreadable_and_named(tmp_path: Path) -> None:
    (tmp_path / "throw1.jpg").write_bytes(b"not a jpeg")
    camera = ThrowCamera(open_source(str(tmp_path)), None, 8)
    with pytest.raises(UnreadableFrame, match=r"throw1\.jpg.*remove or replace"):
        camera.read_now()


def test_a_camera_that_stops_says_so() -> None:
    camera = ThrowCamera(Frames([]), None, 8)
    with pytest.raises(CameraStopped, match="the throw camera stopped"):
        camera.read_now()
    with pytest.raises(CameraStopped):
        camera.wait_for_throw(threading.Event())


# --- waiting for a throw ----------------------------------------------------------------------


def shifted(image: np.ndarray, dx: float) -> np.ndarray:
    move = np.float32([[1, 0, dx], [0, 1, 0]])
    return cv2.warpAffine(image, move, image.shape[1::-1], borderMode=cv2.BORDER_REFLECT)


def test_a_throw_is_read_once_it_has_been_still_for_the_settle_frames() -> None:
    shot = scene(13)
    empty = cube_scene(13, colors=[], noise=2.0).image
    moving = [shifted(shot.image, dx) for dx in (24, 18, 12, 6)]
    still = [shot.image] * 4
    source = Frames([empty] * 3 + moving + still + [empty] * 3)
    picture = ThrowCamera(source, None, 3).wait_for_throw(threading.Event(), timeout=30)
    assert picture is not None
    assert source.reads == 3 + 4 + 4, "the first still frame still differs from the last moving"
    matched = pairs(shot.dice, picture.dice)
    assert len(matched) == len(shot.dice) == len(picture.dice)
    assert all(math.dist((t.x, t.y), (r.x, r.y)) < 2.0 for t, r in matched)


def test_a_table_that_stays_still_is_no_throw_and_the_wait_times_out() -> None:
    clock = HandClock()
    table = np.full((240, 320, 3), FELT, np.uint8)
    source = Forever(table, clock=clock, period=0.1)
    camera = ThrowCamera(source, None, 3, clock=clock)
    assert camera.wait_for_throw(threading.Event(), timeout=2.0) is None
    assert source.reads == 20, "a frame every 0.1 s of the camera's clock, for 2 s"
    assert clock.now() == pytest.approx(2.0)


def test_the_wait_ends_with_none_when_stopped() -> None:
    a = np.full((240, 320, 3), FELT, np.uint8)
    b = a.copy()
    cv2.rectangle(b, (100, 100), (140, 140), ALBEDO["red"], -1)
    camera = ThrowCamera(Forever(a, b), None, 3)
    stop = threading.Event()
    result: list[ThrowPicture | None] = []
    watcher = threading.Thread(target=lambda: result.append(camera.wait_for_throw(stop)))
    watcher.start()
    for _ in range(3):  # the web may read while the watcher waits
        assert camera.read_now().unit == "px"
    stop.set()
    watcher.join(timeout=5)
    assert not watcher.is_alive() and result == [None]
    assert camera.wait_for_throw(stop) is None, "already stopped"


def test_a_folder_of_photos_gives_one_throw_per_photo_without_waiting(tmp_path: Path) -> None:
    for number, seed in ((1, 11), (2, 13)):
        write(tmp_path / f"throw{number}.png", scene(seed).image)
    camera = ThrowCamera(open_source(str(tmp_path)), None, 8)
    assert camera.still and not camera.live
    for seed in (11, 13, 11):
        picture = camera.wait_for_throw(threading.Event(), timeout=0)
        assert picture is not None
        assert len(pairs(scene(seed).dice, picture.dice)) == len(scene(seed).dice)


# --- the simulated camera ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_generated_throw_shows_exactly_the_expected_dice(seed: int) -> None:
    source = GeneratedThrowSource(seed)
    expected = ["red", "red", "yellow", "blue", "black", "black", "blue"][: 4 + seed]
    source.expect(expected)
    frame = source.read()
    assert frame.shape == (720, 1280, 3)
    assert Counter(d.color for d in source.last_truth) == Counter(expected)
    assert Counter(d.color for d in read_cubes(frame)) == Counter(expected)


def test_a_generated_throw_is_still_until_the_next_is_expected() -> None:
    source = GeneratedThrowSource(5)
    table = source.read()
    assert source.last_truth == () and read_cubes(table) == []
    source.expect(["red", "blue"], holes=1.0)
    first = source.read()
    assert np.array_equal(first, source.read())
    assert all(d.hole for d in source.last_truth)
    source.expect(["red", "blue"])
    assert not np.array_equal(first, source.read())


def test_a_generated_camera_is_a_still_source_read_at_once() -> None:
    source = GeneratedThrowSource(4)
    source.expect(["yellow", "black", "red"])
    camera = ThrowCamera(source, None, 8)
    picture = camera.wait_for_throw(threading.Event(), timeout=0)
    assert picture is not None
    assert Counter(d.color for d in picture.dice) == Counter(["yellow", "black", "red"])


def test_a_generated_throw_refuses_colours_it_has_not() -> None:
    with pytest.raises(ValueError, match="no green dice"):
        GeneratedThrowSource(0).expect(["red", "green"])


def test_generated_is_a_camera_source() -> None:
    source = open_source("generated:7", resolution=(640, 360))
    assert isinstance(source, GeneratedThrowSource)
    assert (source.seed, source.read().shape) == (7, (360, 640, 3))
    assert open_source("generated").seed == 0  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="generated:7"):
        open_source("generated:seven")
    source.close()
    with pytest.raises(CameraStopped):
        source.read()


# --- one camera, two readers ------------------------------------------------------------------


class Recording:
    """A reader that reports one fixed die and counts the frames it was given."""

    def __init__(self) -> None:
        self.frames = 0

    def __call__(self, frame: np.ndarray) -> list[DieReading]:
        self.frames += 1
        return [DieReading(x=10.0, y=20.0, size=30.0, angle=0.0, confidence=0.9, value=4)]


def test_a_reader_given_to_one_call_replaces_the_cameras_own_for_that_call_only() -> None:
    shot = scene(11)
    other = Recording()
    camera = ThrowCamera(Forever(shot.image), None, 3)
    picture = camera.read_now(reader=other)
    assert other.frames == 1 and [d.value for d in picture.dice] == [4]
    assert camera.picture(shot.image, reader=other).dice == picture.dice
    assert other.frames == 2
    cubes = camera.read_now()
    assert other.frames == 2, "the camera's own reader again"
    assert Counter(d.color for d in cubes.dice) == Counter(d.color for d in shot.dice)


def test_a_reader_given_to_the_wait_reads_the_settled_throw() -> None:
    shot = scene(13)
    empty = cube_scene(13, colors=[], noise=2.0).image
    moving = [shifted(shot.image, dx) for dx in (24, 18, 12, 6)]
    source = Frames([empty] * 3 + moving + [shot.image] * 4)
    other = Recording()
    camera = ThrowCamera(source, None, 3)
    picture = camera.wait_for_throw(threading.Event(), timeout=30, reader=other)
    assert picture is not None and [d.value for d in picture.dice] == [4]
    assert other.frames == 1, "only the settled frame is read"
    still = ThrowCamera(Frames([shot.image]), None, 3, live=False)
    assert still.wait_for_throw(threading.Event(), reader=other) is not None
    assert other.frames == 2


# --- what lay on the table before the throw ---------------------------------------------------


def near(die: DieReading, readings: Sequence[DieReading]) -> bool:
    return any(math.dist((die.x, die.y), (r.x, r.y)) < die.size / 2 for r in readings)


def test_a_die_lying_unchanged_since_before_the_throw_is_left_out_on_a_live_camera() -> None:
    shot = scene(13)
    old = shot.dice[0]
    rest = lying(cube_scene(13, colors=MIX, holes=0.3, noise=2.0, before=True).image, shot, old)
    moving = [shifted(shot.image, dx) for dx in (24, 18, 12, 6)]
    frames = [rest] * 5 + moving + [shot.image] * 5
    camera = ThrowCamera(Frames(frames), None, 3)
    picture = camera.wait_for_throw(threading.Event(), timeout=30, new_only=True)
    assert picture is not None
    assert near(old, picture.left_out) and not near(old, picture.dice)
    assert len(picture.left_out) == 1
    assert all(near(die, picture.dice) for die in shot.dice[1:])
    again = camera.read_now(new_only=True)
    assert [(d.x, d.y) for d in again.left_out] == [(d.x, d.y) for d in picture.left_out]
    whole = ThrowCamera(Frames(frames), None, 3).wait_for_throw(threading.Event(), timeout=30)
    assert whole is not None and whole.left_out == ()
    assert all(near(die, whole.dice) for die in shot.dice), "read whole: a die left lying counts"


def test_a_die_thrown_where_the_table_was_bare_is_new() -> None:
    shot = scene(13)
    rest = cube_scene(13, colors=MIX, holes=0.3, noise=2.0, before=True).image
    moving = [shifted(shot.image, dx) for dx in (24, 18, 12, 6)]
    camera = ThrowCamera(Frames([rest] * 5 + moving + [shot.image] * 5), None, 3)
    picture = camera.wait_for_throw(threading.Event(), timeout=30, new_only=True)
    assert picture is not None and picture.left_out == ()
    assert all(near(die, picture.dice) for die in shot.dice)


def test_without_a_still_table_before_the_motion_nothing_is_left_out() -> None:
    shot = scene(13)
    table = cube_scene(13, colors=MIX, holes=0.3, noise=2.0, before=True).image
    rest = lying(table, shot, shot.dice[0])
    moving = [shifted(shot.image, dx) for dx in (24, 18, 12, 6)]
    # the camera's first frames are already the throw's motion: no table at rest to compare
    camera = ThrowCamera(Frames([rest, *moving, *[shot.image] * 5]), None, 3)
    picture = camera.wait_for_throw(threading.Event(), timeout=30, new_only=True)
    assert picture is not None and picture.left_out == ()
    assert len(pairs(shot.dice, picture.dice)) == len(shot.dice)


def test_a_photo_has_no_table_before_and_leaves_nothing_out(tmp_path: Path) -> None:
    shot = scene(11)
    camera = ThrowCamera(ImageFileSource(write(tmp_path / "throw.png", shot.image)), None, 8)
    picture = camera.read_now(new_only=True)
    assert picture.left_out == () and len(pairs(shot.dice, picture.dice)) == len(shot.dice)


def test_the_generated_camera_shows_the_table_before_the_throw_with_the_dice_still_in_the_cup() -> (
    None
):
    source = GeneratedThrowSource(4)
    source.expect(list(MIX))
    before = source.before()
    assert read_cubes(before) == []
    thrown = source.read()
    assert np.median(np.abs(thrown.astype(int) - before.astype(int))) <= 3, "the same table"
    picture = ThrowCamera(source, None, 8).read_now(new_only=True)
    assert picture.left_out == ()
    assert Counter(d.color for d in picture.dice) == Counter(MIX)


def test_the_frame_before_the_throw_is_the_same_table_light_and_camera_without_the_dice() -> None:
    knobs = {"table": "cloth", "edge_object": "cup", "kelvin": 3000.0, "markers": True}
    after = cube_scene(8, colors=MIX, **knobs)  # type: ignore[arg-type]
    before = cube_scene(8, colors=MIX, before=True, **knobs)  # type: ignore[arg-type]
    assert before.dice == () and after.dice != ()
    assert before.markers.keys() == after.markers.keys()
    assert all(np.array_equal(before.markers[k], after.markers[k]) for k in after.markers)
    changed = np.abs(after.image.astype(int) - before.image.astype(int)).max(axis=2) > 40
    assert 0 < changed.mean() < 0.15, "only where the dice, their shadows and the cup are"
    with pytest.raises(ValueError, match="ask for one"):
        cube_scene(8, before=True, check_frame=True)
