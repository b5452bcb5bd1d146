"""The colour of a pip die (vision/die_colors.py), on real photos with hand-labelled colours.

``tests/data/pip_colors.csv`` holds the colour of every die of 34 photos of
/work/shared/data/dice-photos, labelled by eye from enlarged crops. Labelling rule: the colour a
player would name at once; marbled and translucent dice by their main colour (blue marbled is
blue, teal with yellow pips is green, dark smoked dice are black, wine-red and pinkish-red
marbled are red); purple (dark or bright), gold, amber and brown are "other". Floors are a
little below the figures measured with ``python benchmarks/vision_pip_colors.py``
(docs/vision/pips.md): 284 of 291 right (0.976), 73 of 78 on the photos labelled after the
colour rules were fixed (0.936).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.die_colors import (
    DIE_COLORS,
    die_color,
    die_colors,
    name_color,
    read_pips_in_color,
)
from vision.pips import read_pips
from vision.readings import DieReading, UnreadableFrame
from vision.synthetic import PHOTOS, PIP_COLORS, pip_scene

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from vision_pip_colors import HELD_OUT, LABELS, load_colors, nearest_in_box  # noqa: E402


def photo(name: str) -> np.ndarray:
    image = cv2.imread(str(PHOTOS / "images" / name))
    assert image is not None, f"{name} not found in {PHOTOS}: the dice photos are needed"
    return image


@pytest.fixture(scope="module")
def labelled() -> list[tuple[str, str, str, float]]:
    """(photo, hand label, colour read, confidence) of every labelled die that was found."""
    rows = []
    for name, dice in sorted(load_colors(LABELS).items()):
        image = photo(name)
        readings = read_pips(image)
        names = die_colors(image, readings)
        for box, truth in dice:
            i = nearest_in_box(readings, box)
            assert i is not None, f"the pip reader lost a labelled die of {name} at {box}"
            rows.append((name, truth, *names[i]))
    return rows


def accuracy(rows: list[tuple[str, str, str, float]]) -> float:
    return sum(1 for r in rows if r[1] == r[2]) / len(rows)


# --- the labelled photos ----------------------------------------------------------------------


def test_the_labels_cover_every_colour_on_at_least_twelve_photos() -> None:
    labels = load_colors(LABELS)
    assert len(labels) >= 12
    counts = Counter(colour for dice in labels.values() for _, colour in dice)
    assert set(counts) == set(DIE_COLORS)
    assert min(counts.values()) >= 15
    assert set(labels) >= HELD_OUT


def test_the_hand_labelled_dice_are_named_right(labelled: list) -> None:
    assert len(labelled) == 291
    assert accuracy(labelled) >= 0.96  # measured 0.976


def test_the_dice_labelled_after_the_rules_were_fixed_are_named_right(labelled: list) -> None:
    held_out = [r for r in labelled if r[0] in HELD_OUT]
    assert len(held_out) == 78
    assert accuracy(held_out) >= 0.91  # measured 0.936


@pytest.mark.parametrize("colour", DIE_COLORS)
def test_each_colour_is_named_on_real_dice(labelled: list, colour: str) -> None:
    mine = [r for r in labelled if r[1] == colour]
    assert accuracy(mine) >= 0.85  # lowest measured: blue 0.875 (blue-black marbled read black)
    called = [r for r in labelled if r[2] == colour]
    assert sum(1 for r in called if r[1] == colour) / len(called) >= 0.85  # lowest: black 0.885


def test_a_wrong_name_is_less_sure_than_a_right_one(labelled: list) -> None:
    right = [r[3] for r in labelled if r[1] == r[2]]
    wrong = [r[3] for r in labelled if r[1] != r[2]]
    assert all(0.0 <= c <= 1.0 for c in right + wrong)
    assert np.mean(wrong) < np.mean(right) - 0.3
    assert max(wrong) < 0.6


# --- pips are not the colour ------------------------------------------------------------------


@pytest.mark.parametrize("colour", PIP_COLORS)
def test_the_pips_do_not_change_a_dies_colour(colour: str) -> None:
    """Black pips on white and yellow dice, white pips on the others, every value: one colour."""
    scene = pip_scene(40 + PIP_COLORS.index(colour), 6, colors=[colour] * 6, values=range(1, 7))
    assert [name for name, _ in die_colors(scene.image, scene.dice)] == [colour] * 6


def test_every_colour_name_can_be_given() -> None:
    names = {
        name_color(*lab)[0]
        for lab in [
            (80, 0, 3),
            (15, 1, 1),
            (33, 46, 31),
            (68, -14, 62),
            (42, -39, 24),
            (15, 27, -45),
            (20, 35, -25),  # purple
            (33, 8, 20),  # gold
            (45, 0, 0),  # grey
        ]
    }
    assert names == set(DIE_COLORS)


def test_a_colour_on_the_edge_of_the_hue_circle_is_named() -> None:
    assert name_color(30, 40, -1e-20)[0] == "red"
    assert name_color(80, 1e-9, -1e-20)[0] == "white"


# --- the API ----------------------------------------------------------------------------------


def test_one_die_at_a_time_names_it_as_all_at_once() -> None:
    image = photo("IMG_20191208_111642.jpg")
    readings = read_pips(image)
    assert len(readings) >= 20
    assert [die_color(image, r) for r in readings] == die_colors(image, readings)


def test_reading_in_colour_keeps_what_the_pip_reader_said() -> None:
    for name in ("IMG_20191208_111246.jpg", "IMG_20191209_100211.jpg", "IMG_20191209_100701.jpg"):
        image = photo(name)
        plain = read_pips(image)
        coloured = read_pips_in_color(image)
        assert len(coloured) == len(plain) > 0
        for p, c in zip(plain, coloured, strict=True):
            assert c.color in DIE_COLORS
            assert (c.x, c.y, c.size, c.angle, c.value, c.confidence, c.hole) == (
                p.x,
                p.y,
                p.size,
                p.angle,
                p.value,
                p.confidence,
                p.hole,
            )


def test_an_empty_tray_has_no_colours() -> None:
    tray = photo("IMG_20191209_100211.jpg")[450:600, 50:250]
    assert read_pips_in_color(tray) == []
    assert die_colors(tray, []) == []


@pytest.mark.parametrize(
    "frame",
    [
        None,
        "a photo.jpg",
        np.zeros((480, 640, 3), np.float32),
        np.zeros((10, 10, 3), np.uint8),
        np.zeros((480, 640, 2), np.uint8),
    ],
    ids=["none", "a path", "float", "tiny", "two channels"],
)
def test_an_unreadable_frame_is_refused(frame: object) -> None:
    die = DieReading(x=5, y=5, size=4, angle=0, confidence=1.0, value=1)
    with pytest.raises(UnreadableFrame):
        die_color(frame, die)  # type: ignore[arg-type]
    with pytest.raises(UnreadableFrame):
        read_pips_in_color(frame)  # type: ignore[arg-type]


def test_a_reading_off_the_frame_is_refused() -> None:
    image = photo("IMG_20191209_100211.jpg")
    off = DieReading(x=900, y=100, size=40, angle=0, confidence=1.0, value=3)
    with pytest.raises(UnreadableFrame, match="pass the readings of this frame"):
        die_color(image, off)
