"""The scene generator's ground truth is exact: what it says lies on the table is drawn there."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from vision.synthetic import ALBEDO, cube_scene, tesson_scene


def _corners(d):
    half = d.size / 2
    c, s = math.cos(math.radians(d.angle)), math.sin(math.radians(d.angle))
    return np.array(
        [
            (d.x + dx * c - dy * s, d.y + dx * s + dy * c)
            for dx, dy in ((-half, -half), (half, -half), (half, half), (-half, half))
        ]
    )


def _gap(a, b) -> float:
    """Smallest distance between two convex quadrilaterals' outlines (0 when they cross)."""
    pa, pb = _corners(a), _corners(b)
    best = math.inf
    for p, q in ((pa, pb), (pb, pa)):
        for point in p:
            for i in range(4):
                u, v = q[i], q[(i + 1) % 4]
                t = np.clip(np.dot(point - u, v - u) / np.dot(v - u, v - u), 0, 1)
                best = min(best, float(np.linalg.norm(point - (u + t * (v - u)))))
    return best


def test_each_dies_centre_pixel_has_its_colour():
    scene = cube_scene(3, holes=0.0)
    for die in scene.dice:
        b, g, r = (int(v) for v in scene.image[round(die.y), round(die.x)])
        expected = ALBEDO[die.color]
        assert max(abs(b - expected[0]), abs(g - expected[1]), abs(r - expected[2])) < 40, die


def test_a_hole_is_a_dark_patch_at_the_centre_and_no_hole_is_not():
    scene = cube_scene(4, holes=0.5, colors=["yellow"] * 12)
    assert {d.hole for d in scene.dice} == {True, False}
    for die in scene.dice:
        centre = int(scene.image[round(die.y), round(die.x)].max())
        assert (centre < 90) == die.hole, die


def test_counts_and_colours_match_the_requested_mix():
    balanced = cube_scene(5, count=16)
    assert Counter(d.color for d in balanced.dice) == {c: 4 for c in ALBEDO}
    chosen = cube_scene(5, colors=["black"] * 5 + ["red"] * 2)
    assert Counter(d.color for d in chosen.dice) == {"black": 5, "red": 2}
    assert all(d.confidence == 1.0 and d.value is None for d in chosen.dice)


def test_seeded_scenes_are_reproducible_and_seeds_differ():
    a = cube_scene(11, shadows=True, noise=3.0, light="uneven")
    b = cube_scene(11, shadows=True, noise=3.0, light="uneven")
    c = cube_scene(12, shadows=True, noise=3.0, light="uneven")
    assert np.array_equal(a.image, b.image) and a.dice == b.dice
    assert not np.array_equal(a.image, c.image)
    assert a.image.shape == (720, 1280, 3) and a.image.dtype == np.uint8


def test_touching_dice_actually_touch_and_others_are_apart():
    scene = cube_scene(6, touching=True)
    gaps = [_gap(a, b) for i, a in enumerate(scene.dice) for b in scene.dice[i + 1 :]]
    assert sum(g < 1.0 for g in gaps) >= 4
    apart = cube_scene(6)
    assert min(_gap(a, b) for i, a in enumerate(apart.dice) for b in apart.dice[i + 1 :]) > 3.0


def test_tilt_produces_a_perspective():
    flat = cube_scene(8, count=24, holes=0.0)
    tilted = cube_scene(8, count=24, tilt=12.0, holes=0.0)
    sizes = [d.size for d in flat.dice]
    assert max(sizes) - min(sizes) < 0.03 * np.mean(sizes)  # straight down: all alike
    # Tilted: dice lower in the frame are further away and look smaller.
    slope = np.polyfit([d.y for d in tilted.dice], [d.size for d in tilted.dice], 1)[0]
    assert slope < -0.002
    assert all(d.y > 0 and d.x > 0 for d in tilted.dice)


def test_hard_case_knobs_do_what_they_say():
    import cv2

    def sharpness(image):
        return float(
            np.abs(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_32F)).mean()
        )

    def centre_over_corners(image):
        h, w = image.shape[:2]
        corners = [
            np.median(image[y : y + 60, x : x + 60]) for y in (0, h - 60) for x in (0, w - 60)
        ]
        return float(np.median(image[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4]) / np.mean(corners))

    plain = cube_scene(9).image
    assert sharpness(cube_scene(9, blur=2.0).image) < 0.7 * sharpness(plain)
    assert sharpness(cube_scene(9, noise=8.0).image) > 2 * sharpness(plain)
    assert centre_over_corners(plain) < 1.1
    assert centre_over_corners(cube_scene(9, light="spot").image) > 1.3
    wood = cube_scene(9, table="wood").image
    assert float(np.median(wood[..., 2])) > float(np.median(plain[..., 2])) + 60  # orange wood


def test_photo_table_uses_the_real_photos():
    scene = cube_scene(10, table="photo", count=8)
    # The tray floor of the photos is light grey.
    assert 120 < float(np.median(scene.image)) < 240
    assert len(scene.dice) == 8


def test_bad_knobs_are_refused():
    with pytest.raises(ValueError, match="table"):
        cube_scene(1, table="glass")
    with pytest.raises(ValueError, match="light"):
        cube_scene(1, light="disco")
    with pytest.raises(ValueError, match="colour"):
        cube_scene(1, colors=["green"])


def test_tessons_lie_in_their_seats_zones_with_their_side_showing():
    scene = tesson_scene(3, seats=6, strays=1)
    assert scene.seats is not None and scene.seats.seats == 6
    for t in scene.tessons:
        assert scene.seats.seat_of(t.x, t.y) == t.seat
        value = int(scene.image[round(t.y), round(t.x)].max())
        assert (value > 150) == (t.side == "white"), t
    assert [t.seat for t in scene.tessons].count(None) == 1
    assert sorted(t.seat for t in scene.tessons if t.seat is not None) == list(range(6))
