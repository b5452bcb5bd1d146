"""Generated pip dice (vision/synthetic.py ``pip_scene``) and the simulated camera that throws
them (vision/generated.py ``GeneratedPipSource``).

The pip reader's models were trained on real photos only; generated dice are useful in
simulation only if it reads them right. Floors are a little below the figures measured with
``python benchmarks/vision_pip_colors.py`` (docs/vision/pips.md): on 50 default scenes every
die found and every value right.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from vision.die_colors import read_pips_in_color
from vision.pips import read_pips
from vision.readings import DieReading
from vision.sources import CameraStopped
from vision.synthetic import PIP_COLORS, pip_scene
from vision.throws import STILL_SOURCES, GeneratedPipSource, ThrowCamera


def nearest(truth: DieReading, readings: Sequence[DieReading]) -> DieReading | None:
    """The reading whose centre is nearest the true die's, if within half its side."""
    if not readings:
        return None
    best = min(readings, key=lambda r: math.dist((r.x, r.y), (truth.x, truth.y)))
    return best if math.dist((best.x, best.y), (truth.x, truth.y)) <= truth.size / 2 else None


def top_face(image: np.ndarray, die: DieReading) -> np.ndarray:
    """The pixels of the disc inside the die's top face."""
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.circle(mask, (round(die.x), round(die.y)), int(0.42 * die.size), 255, -1)
    return image[mask > 0]


# --- the scenes -------------------------------------------------------------------------------


def test_generated_dice_are_read_right_by_the_pip_reader() -> None:
    dice = found = right = colours = false = 0
    for k in range(30):
        scene = pip_scene(500 + k, 1 + k % 12)
        readings = read_pips_in_color(scene.image)
        matched = [(t, nearest(t, readings)) for t in scene.dice]
        dice += len(scene.dice)
        found += sum(1 for _, r in matched if r is not None)
        right += sum(1 for t, r in matched if r is not None and r.value == t.value)
        colours += sum(1 for t, r in matched if r is not None and r.color == t.color)
        false += len(readings) - sum(1 for _, r in matched if r is not None)
    assert dice == sum(1 + k % 12 for k in range(30))
    assert found / dice >= 0.98
    assert right / found >= 0.97
    assert colours / found >= 0.97
    assert false <= 2


def test_the_truth_is_what_was_asked_for() -> None:
    colours = ["red", "white", "blue", "green", "yellow", "black", "red"]
    values = [6, 1, 2, 3, 4, 5, 2]
    scene = pip_scene(3, 7, colors=colours, values=values)
    assert scene.image.shape == (720, 1280, 3) and scene.image.dtype == np.uint8
    assert [d.color for d in scene.dice] == colours
    assert [d.value for d in scene.dice] == values
    assert [d.color for d in scene.placed] == colours
    for die in scene.dice:
        assert 0 <= die.angle < 90 and die.confidence == 1.0 and die.hole is None
        assert 0.045 * 720 <= die.size <= 0.065 * 720, "about the photos' size"


def test_generated_dice_do_not_overlap_and_lie_inside_the_frame() -> None:
    scene = pip_scene(8, 20, width=960, height=540, touching=True)
    assert len(scene.dice) == 20
    for i, a in enumerate(scene.dice):
        assert a.size / 2 < a.x < 960 - a.size / 2 and a.size / 2 < a.y < 540 - a.size / 2
        for b in scene.dice[i + 1 :]:
            assert math.dist((a.x, a.y), (b.x, b.y)) > 0.95 * a.size


def test_a_scene_replays_from_its_seed() -> None:
    first, again = pip_scene(21, 5), pip_scene(21, 5)
    assert np.array_equal(first.image, again.image) and first.dice == again.dice
    assert not np.array_equal(first.image, pip_scene(22, 5).image)


def test_kept_dice_lie_as_they_were_over_the_same_table() -> None:
    first = pip_scene(31, 6, table_seed=7)
    kept = first.placed[:4]
    later = pip_scene(32, 2, keep=kept, table_seed=7)
    assert later.placed[:4] == kept and later.dice[:4] == first.dice[:4]
    for die in first.dice[:4]:
        assert np.array_equal(top_face(first.image, die), top_face(later.image, die))
    empty_first, empty_later = pip_scene(31, 0, table_seed=7), pip_scene(32, 0, table_seed=7)
    assert np.array_equal(empty_first.image, empty_later.image), "the same table"


def test_a_scene_refuses_what_it_cannot_draw() -> None:
    with pytest.raises(ValueError, match="no purple pip dice"):
        pip_scene(1, 2, colors=["red", "purple"])
    with pytest.raises(ValueError, match="one colour per die"):
        pip_scene(1, 2, colors=["red"])
    with pytest.raises(ValueError, match="each 1 to 6"):
        pip_scene(1, 2, values=[3, 7])
    with pytest.raises(ValueError, match="table must be one of"):
        pip_scene(1, 2, table="marble")


# --- the simulated camera ---------------------------------------------------------------------


def test_the_tray_is_empty_before_the_first_throw() -> None:
    source = GeneratedPipSource(2)
    frame = source.read()
    assert frame.shape == (720, 1280, 3)
    assert source.last_truth == () and read_pips(frame) == []


def test_a_throw_shows_its_dice_until_the_next() -> None:
    source = GeneratedPipSource(4)
    source.throw(5)
    first = source.read()
    truth = source.last_truth
    assert len(truth) == 5 and all(d.color in PIP_COLORS for d in truth)
    assert np.array_equal(first, source.read()), "still"
    read = read_pips_in_color(first)
    assert Counter((d.value, d.color) for d in read) == Counter((d.value, d.color) for d in truth)
    source.throw(5)
    assert not np.array_equal(first, source.read())


def test_a_reroll_throws_only_the_dice_asked_and_the_others_stay_exactly() -> None:
    source = GeneratedPipSource(9)
    source.throw(8)
    before = source.read()
    first = source.last_truth
    source.throw(8, [1, 4, 6])
    after = source.read()
    now = source.last_truth
    assert len(now) == 8
    for i in (0, 2, 3, 5, 7):
        assert now[i] == first[i]
        assert np.array_equal(top_face(before, first[i]), top_face(after, first[i]))
    for i in (1, 4, 6):
        assert now[i].color == first[i].color, "the same die, thrown again"
        assert math.dist((now[i].x, now[i].y), (first[i].x, first[i].y)) > 1.0
    read = read_pips(after)
    for die in now:
        found = nearest(die, read)
        assert found is not None and found.value == die.value


def test_a_reroll_of_more_or_fewer_dice_adds_or_picks_up_the_last_ones() -> None:
    source = GeneratedPipSource(10)
    source.throw(4)
    source.read()
    first = source.last_truth
    source.throw(6, [0])
    source.read()
    six = source.last_truth
    assert len(six) == 6 and six[1:4] == first[1:4] and six[0].color == first[0].color
    source.throw(2, [])
    source.read()
    assert source.last_truth == six[:2]


def test_a_reroll_of_no_die_changes_nothing() -> None:
    source = GeneratedPipSource(12)
    source.throw(3)
    before = source.read()
    truth = source.last_truth
    source.throw(3, [])
    assert np.array_equal(before, source.read()) and source.last_truth == truth


def test_the_simulated_camera_replays_from_its_seed() -> None:
    def run(seed: int) -> list[np.ndarray]:
        source = GeneratedPipSource(seed, (640, 360))
        frames = [source.read()]
        for count, reroll in ((5, None), (5, [0, 2]), (3, None), (3, [1])):
            source.throw(count, reroll)
            frames.append(source.read())
        return frames

    first, again, other = run(6), run(6), run(7)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert first[0].shape == (360, 640, 3)
    assert not np.array_equal(first[1], other[1])


def test_the_simulated_camera_refuses_throws_that_cannot_be() -> None:
    source = GeneratedPipSource(1)
    with pytest.raises(ValueError, match="0 to 40"):
        source.throw(41)
    source.throw(3)
    with pytest.raises(ValueError, match=r"no die 3 to throw again.*indices 0 to 2"):
        source.throw(3, [0, 3])


def test_the_simulated_pip_camera_is_a_still_source_read_at_once() -> None:
    assert GeneratedPipSource in STILL_SOURCES
    source = GeneratedPipSource(5)
    camera = ThrowCamera(source, None)
    assert camera.still
    source.throw(4)
    picture = camera.wait_for_throw(threading.Event(), timeout=0, reader=read_pips_in_color)
    assert picture is not None and picture.unit == "px"
    assert Counter((d.value, d.color) for d in picture.dice) == Counter(
        (d.value, d.color) for d in source.last_truth
    )
    camera.close()
    with pytest.raises(CameraStopped):
        source.read()
