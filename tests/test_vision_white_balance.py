"""The paper round the calibration markers is the table's white: a warm bulb, a dim room or a
camera's white-balance error is measured on it and undone before the dice are read."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_vision_calibration import AREA, MARKER, VIEWS, flat_table, photograph
from vision.calibration import calibrate, detect_markers
from vision.white_balance import PAPER, white_from_calibration, white_from_markers

RED_PLASTIC = (40, 40, 200)  # BGR, a red cube's face under a neutral light


def lit(image: np.ndarray, light_bgr: tuple[float, float, float]) -> np.ndarray:
    """The scene under a light of that colour and strength (the paper is 255 × it)."""
    out = image.astype(np.float32) * np.array(light_bgr, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def scene() -> np.ndarray:
    table = flat_table()
    table[300:360, 500:560] = RED_PLASTIC
    image, _ = photograph(table, VIEWS["tilted"])
    return image


LIGHTS = {
    "warm bulb": (0.55, 0.75, 0.92),
    "daylight, blue camera": (0.9, 0.8, 0.7),
    "dim room": (0.22, 0.24, 0.25),
}


@pytest.mark.parametrize("light", LIGHTS)
def test_the_paper_under_any_light_comes_back_to_the_same_grey(light: str) -> None:
    image = lit(scene(), LIGHTS[light])
    white = white_from_markers(image, detect_markers(image))
    assert white is not None and white.markers == 4
    expected = 255 * np.array(LIGHTS[light])
    assert np.allclose(white.bgr, expected, rtol=0.04, atol=2)
    balanced = white.apply(image)
    neutral = lit(scene(), (PAPER / 255,) * 3)
    face = (slice(258, 280), slice(525, 555))  # inside the red patch in the photographed view
    assert np.abs(balanced[face].astype(int) - neutral[face].astype(int)).max() <= 12


def test_the_calibration_finds_the_paper_without_looking_for_the_markers_again() -> None:
    calibration = calibrate(scene(), AREA, MARKER)
    image = lit(scene(), LIGHTS["warm bulb"])
    white = white_from_calibration(image, calibration)
    assert white is not None and white.markers == 4
    assert np.allclose(white.bgr, 255 * np.array(LIGHTS["warm bulb"]), rtol=0.04, atol=2)


def test_clipped_paper_or_no_paper_gives_no_reference() -> None:
    image = scene()  # the paper is 255: clipped, its colour unknown
    assert white_from_markers(image, detect_markers(image)) is None
    calibration = calibrate(image, AREA, MARKER)
    bare = np.full_like(image, (50, 105, 45))  # the markers were taken away
    assert white_from_calibration(bare, calibration) is None
    assert white_from_markers(image, {}) is None


def test_a_calibration_whose_markers_were_taken_away_gives_no_reference() -> None:
    calibration = calibrate(scene(), AREA, MARKER)
    table = flat_table()
    table[:] = (200, 215, 225)  # a pale table where the markers lay: no black border in it
    image, _ = photograph(table, VIEWS["tilted"])
    assert white_from_calibration(lit(image, LIGHTS["warm bulb"]), calibration) is None
