"""The Oraklos cube reader on seeded synthetic scenes: it finds the cubes, reads colour and hole,
measures them well enough for the referee, and flags what it is unsure of."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.predictions import predictions
from desks.throws import as_die
from vision import synthetic
from vision.cubes import annotate_cubes, read_cubes
from vision.readings import UnreadableFrame
from vision.synthetic import cube_scene


def _match(truth, read):
    """Pairs (true, read): each true die with the nearest reading within half its size."""
    pairs, used = [], set()
    for t in truth:
        best = min(
            (j for j in range(len(read)) if j not in used),
            key=lambda j: math.hypot(read[j].x - t.x, read[j].y - t.y),
            default=None,
        )
        if best is not None and math.hypot(read[best].x - t.x, read[best].y - t.y) <= t.size / 2:
            used.add(best)
            pairs.append((t, read[best]))
    return pairs


def _angle_error(a: float, b: float) -> float:
    d = (a - b) % 90.0
    return min(d, 90.0 - d)


# Knobs, and the floor for recall. Measured on these two seeds (32 dice; 28 for black-dark):
# every family reads every die right. The floors let one die in 32 go wrong (two in the three
# hardest families for recall); the benchmark has the figures over 40 scenes per family.
FAMILIES = {
    "even": ({"noise": 2.0}, 0.96),
    "uneven+shadows": ({"light": "uneven", "shadows": True, "noise": 2.0}, 0.96),
    "spot+shadows": ({"light": "spot", "shadows": True, "noise": 2.0}, 0.96),
    "tilt": ({"tilt": 10.0, "shadows": True, "noise": 2.0}, 0.96),
    "blur+noise": ({"blur": 1.5, "noise": 6.0}, 0.96),
    "touching": ({"touching": True, "noise": 2.0}, 0.93),
    "rotated": ({"angles": (30.0, 60.0), "touching": True, "noise": 2.0}, 0.93),
    "black-dark": (
        {
            "table": "dark",
            "holes": 0.5,
            "colors": ["black"] * 8 + ["red", "yellow", "blue"] * 2,
            "shadows": True,
            "noise": 3.0,
        },
        0.92,
    ),
    "wood": ({"table": "wood", "light": "uneven", "shadows": True, "noise": 2.0}, 0.96),
    "photo": ({"table": "photo", "shadows": True}, 0.96),
}
OTHER_FLOOR = 0.96
"""Precision, colour and hole accuracy, every family."""


@pytest.mark.parametrize("family", list(FAMILIES))
def test_regression_floors_per_family(family):
    knobs, recall = FAMILIES[family]
    truth = found = matched = right_colour = right_hole = 0
    shares = []
    for seed in (1000, 1001):
        scene = cube_scene(seed, **knobs)
        read = read_cubes(scene.image)
        pairs = _match(scene.dice, read)
        truth += len(scene.dice)
        found += len(read)
        matched += len(pairs)
        right_colour += sum(t.color == r.color for t, r in pairs)
        right_hole += sum(t.hole == r.hole for t, r in pairs)
        shares += [math.hypot(t.x - r.x, t.y - r.y) / t.size for t, r in pairs]
    assert matched / truth >= recall
    assert matched / found >= OTHER_FLOOR
    assert right_colour / matched >= OTHER_FLOOR
    assert right_hole / matched >= OTHER_FLOOR
    assert float(np.median(shares)) < 0.03  # centre within 3% of the die's size


def test_every_reading_is_a_cube_reading():
    scene = cube_scene(21, shadows=True)
    for r in read_cubes(scene.image):
        assert r.color in {"red", "yellow", "blue", "black"}
        assert isinstance(r.hole, bool) and r.value is None
        assert 0.0 <= r.confidence <= 1.0 and 0.0 <= r.angle < 90.0


def test_black_cubes_with_their_hole_on_a_dark_table_are_found_with_the_hole():
    scene = cube_scene(31, count=6, table="dark", colors=["black"] * 6, holes=1.0, noise=2.0)
    read = read_cubes(scene.image)
    pairs = _match(scene.dice, read)
    assert len(pairs) >= 5 and len(read) == len(pairs)
    assert all(r.color == "black" and r.hole for _, r in pairs)


def test_touching_cubes_of_one_colour_are_read_apart():
    scene = cube_scene(41, count=10, touching=True, colors=["red"] * 10, holes=0.0)
    gaps_touch = sum(
        math.hypot(a.x - b.x, a.y - b.y) < 1.2 * a.size
        for i, a in enumerate(scene.dice)
        for b in scene.dice[i + 1 :]
    )
    assert gaps_touch >= 3  # the scene really has cubes side by side
    read = read_cubes(scene.image)
    assert len(_match(scene.dice, read)) >= 9
    assert len(read) <= 10


def test_a_turned_cube_has_its_angle_within_two_degrees():
    for angle in (12.0, 33.0, 45.0, 71.0):
        scene = cube_scene(51, count=4, angles=(angle, angle), noise=2.0)
        pairs = _match(scene.dice, read_cubes(scene.image))
        assert len(pairs) == 4
        for t, r in pairs:
            assert _angle_error(t.angle, angle) < 0.5  # the truth is turned as asked
            assert _angle_error(r.angle, t.angle) < 2.0


@pytest.mark.parametrize("table", ["felt", "wood", "dark", "photo"])
def test_an_empty_table_yields_nothing(table):
    scene = cube_scene(61, table=table, colors=[], light="uneven", noise=3.0)
    assert scene.dice == ()
    assert read_cubes(scene.image) == []


@pytest.mark.parametrize(
    "frame",
    [
        None,
        "frame.jpg",
        np.zeros((720, 1280), np.uint8),
        np.zeros((720, 1280, 3), np.float32),
        np.zeros((20, 20, 3), np.uint8),
        np.zeros((720, 1280, 4), np.uint8),
    ],
)
def test_an_unreadable_input_raises_unreadable_frame(frame):
    with pytest.raises(UnreadableFrame):
        read_cubes(frame)


def test_readings_convert_directly_to_the_referees_dice():
    scene = cube_scene(71, count=8)
    dice = [as_die(r) for r in read_cubes(scene.image)]
    assert len(dice) == 8 and all(isinstance(d.color, Color) for d in dice)


def test_the_referee_sees_the_same_predictions_on_read_dice_as_on_the_truth():
    """Clean scenes (camera straight down, even light): the read throw makes the same true
    predictions. Where a line of fate passes within a pixel or so of a die, the verdict hangs
    on less than the camera can measure; such scenes must agree most of the time, the others
    every time."""
    robust = agree = 0
    seeds = range(100, 108)
    for seed in seeds:
        scene = cube_scene(seed, count=12, noise=1.0)
        truth = [as_die(t) for t in scene.dice]
        pairs = _match(scene.dice, read_cubes(scene.image))
        assert len(pairs) == len(truth)
        expected = predictions(truth)
        got = predictions([as_die(r) for _, r in pairs])
        steady = all(
            predictions([Die(d.x, d.y, d.size + grow, d.color, d.hole, d.angle) for d in truth])
            == expected
            for grow in (-2.0, 2.0)
        )
        robust += steady
        agree += got == expected
        if steady:
            assert got == expected, seed
    assert robust >= 4
    assert agree >= 6


def test_a_colour_between_two_classes_is_flagged_not_guessed(monkeypatch):
    # Red-orange plastic, at the edge of the red class: never read silently as a colour.
    monkeypatch.setitem(synthetic.ALBEDO, "red", (40, 80, 215))
    scene = cube_scene(81, count=6, colors=["red"] * 6, holes=0.0)
    read = read_cubes(scene.image)
    assert read  # seen
    assert all(r.flagged for r in read)


def test_a_half_visible_hole_is_flagged():
    frame = np.full((360, 480, 3), (58, 112, 44), np.uint8)
    for i, cx in enumerate((100, 200, 300, 400)):
        cv2.rectangle(frame, (cx - 20, 160), (cx + 20, 200), (40, 195, 225), -1)
        if i == 1:  # a full hole
            cv2.circle(frame, (cx, 180), 8, (10, 20, 25), -1)
        if i == 2:  # half a hole: the well seen from the side
            cv2.ellipse(frame, (cx, 181), (8, 8), 0, 0, 180, (10, 20, 25), -1)
    read = sorted(read_cubes(frame), key=lambda r: r.x)
    assert [r.color for r in read] == ["yellow"] * 4
    assert [r.hole for r in read][:2] == [False, True] and read[3].hole is False
    assert read[2].flagged and not read[0].flagged and not read[1].flagged


def test_annotation_outlines_every_die_and_leaves_the_frame_alone():
    scene = cube_scene(91, count=6, holes=0.5)
    before = scene.image.copy()
    read = read_cubes(scene.image)
    out = annotate_cubes(scene.image, read)
    assert np.array_equal(scene.image, before)
    assert out.shape == before.shape
    for r in read:
        # The outline passes through the middle of each side.
        a = math.radians(r.angle)
        x = r.x + r.size / 2 * math.cos(a)
        y = r.y + r.size / 2 * math.sin(a)
        assert not np.array_equal(out[round(y), round(x)], before[round(y), round(x)])
