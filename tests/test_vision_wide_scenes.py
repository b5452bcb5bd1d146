"""The generator's wide knobs do what they say, measured on the frames they render, and leave
the scenes without them exactly as they were."""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter

import cv2
import numpy as np
import pytest

from vision.calibration import detect_markers
from vision.scene_effects import (
    AMBIENT,
    FLOWERED,
    PALETTE,
    STRIPED,
    WIDE_TABLES,
    Distortion,
    paint_box,
    table_texture,
)
from vision.synthetic import (
    ALBEDO,
    COLORS,
    SIZE,
    Camera,
    Scene,
    color_check_scene,
    cube_scene,
    cube_scene_camera,
    tesson_scene,
    wild_cube_knobs,
    wild_cube_scene,
    wild_tesson_knobs,
)

# sha256 of cube_scene(11, shadows=True, noise=3.0, light="uneven").image, computed before the
# wide knobs were added (numpy 2.4.6, OpenCV 5.0.0).
BEFORE = "f8bc9530e0484bbcc83b8a5f9ed02a7b7d012424361e4fbe2bb29f8c54dd25b9"
BEFORE_HARD = "0bd7e06ec079b94f0ec27f049ad0b05853e797a14078ef287331ea4cd112662d"


def _digest(scene: Scene) -> str:
    return hashlib.sha256(scene.image.tobytes()).hexdigest()


def _table(scene: Scene) -> np.ndarray:
    """The frame's pixels away from every die (and its shadow), as rows of BGR."""
    keep = np.ones(scene.image.shape[:2], np.uint8)
    for d in scene.dice:
        cv2.circle(keep, (round(d.x), round(d.y)), round(1.6 * d.size), 0, -1)
    return scene.image[keep > 0].astype(np.float64)


def _paper(scene: Scene) -> np.ndarray:
    """The markers' white paper: points just outside the middle of each black square's sides."""
    out = []
    for corners in scene.markers.values():
        centre = corners.mean(axis=0)
        for i in range(4):
            mid = (corners[i] + corners[(i + 1) % 4]) / 2
            x, y = mid + (mid - centre) * 0.12
            out.append(scene.image[round(y), round(x)])
    return np.array(out, np.float64)


def _top(scene: Scene, die) -> np.ndarray:
    r = max(2, round(die.size * 0.3))
    x, y = round(die.x), round(die.y)
    return scene.image[y - r : y + r, x - r : x + r].reshape(-1, 3).astype(np.float64)


def _sharpness(image: np.ndarray) -> float:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return float(np.abs(cv2.Laplacian(grey, cv2.CV_32F)).mean())


def test_scenes_without_the_wide_knobs_are_the_frames_they_were():
    assert _digest(cube_scene(11, shadows=True, noise=3.0, light="uneven")) == BEFORE
    hard = cube_scene(
        5, 20, table="wood", tilt=10.0, light="spot", shadows=True, blur=1.0, noise=4.0,
        touching=True, holes=0.4,
    )  # fmt: skip
    assert _digest(hard) == BEFORE_HARD
    # The knobs at their neutral values change nothing either.
    neutral = cube_scene(
        11, shadows=True, noise=3.0, light="uneven", kelvin=6500, white_balance=0.0,
        exposure=1.0, distortion=0.0, motion_blur=0.0,
    )  # fmt: skip
    assert _digest(neutral) == BEFORE


def test_the_same_knobs_give_the_same_frame_and_truth_and_seeds_differ():
    knobs = wild_cube_knobs(4)
    assert knobs == wild_cube_knobs(4)
    a, b = cube_scene(4, **knobs), wild_cube_scene(4)
    assert np.array_equal(a.image, b.image) and a.dice == b.dice
    assert a.leaning == b.leaning and a.markers.keys() == b.markers.keys()
    assert not np.array_equal(a.image, wild_cube_scene(5).image)


def test_the_wild_generator_draws_every_knob_over_its_range():
    draws = [wild_cube_knobs(seed) for seed in range(60)]
    assert {d["table"] for d in draws} >= set(WIDE_TABLES) | {"felt", "wood", "dark"}
    assert {d["plastic"] for d in draws} == {"saturated", "faded", "mixed"}
    assert {d["finish"] for d in draws} == {"matte", "glossy", "mixed"}
    assert {d["edge_object"] for d in draws} == {None, "hand", "cup"}
    kelvins = [d["kelvin"] for d in draws]
    assert min(kelvins) < 3200 and max(kelvins) > 6000
    exposures = [d["exposure"] for d in draws]
    assert min(exposures) < 0.5 and max(exposures) > 1.1
    heights = [d["camera_height"] for d in draws if d["camera_height"] is not None]
    assert min(heights) < 450 and max(heights) > 700
    assert min(d["distortion"] for d in draws) < -0.08 < 0.02 < max(d["distortion"] for d in draws)
    assert any(d["markers"] for d in draws) and any(d["leaning"] for d in draws)
    assert any(d["pile"] for d in draws) and any(d["hot_spot"] for d in draws)
    bevels = [d["bevel"] for d in draws if d["bevel"]]
    assert 0.0 in [d["bevel"] for d in draws] and min(bevels) < 0.07 and max(bevels) > 0.13
    assert any(d["light_pool"] for d in draws) and not all(d["light_pool"] for d in draws)


def test_warm_light_makes_the_table_and_the_markers_paper_redder_than_daylight():
    warm = cube_scene(7, kelvin=2700, markers=True)
    day = cube_scene(7, kelvin=6500, markers=True)

    def red_over_blue(pixels: np.ndarray) -> float:
        b, _, r = np.median(pixels, axis=0)
        return float(r / max(b, 1.0))

    assert red_over_blue(_paper(day)) == pytest.approx(1.0, abs=0.1)  # white paper is white
    assert red_over_blue(_paper(warm)) > 1.8  # not corrected away
    assert red_over_blue(_table(warm)) > 2 * red_over_blue(_table(day))
    # The same paper and table in the same places: only the light's colour changed.
    assert warm.markers.keys() == day.markers.keys() == {0, 1, 2, 3}


def test_white_balance_gains_scale_each_channel():
    plain = np.median(_table(cube_scene(7)), axis=0)
    gains = np.median(_table(cube_scene(7, white_balance=(0.85, 1.0, 1.15))), axis=0) / plain
    assert gains == pytest.approx([0.85, 1.0, 1.15], abs=0.04)
    drawn = np.median(_table(cube_scene(7, white_balance=0.15)), axis=0) / plain
    assert drawn[1] == pytest.approx(1.0, abs=0.02)
    assert all(0.82 <= g <= 1.18 for g in drawn) and max(abs(drawn - 1)) > 0.03


def test_a_dim_exposure_darkens_the_frame_and_makes_it_noisier():
    plain = cube_scene(7, noise=2.0).image
    dim = cube_scene(7, noise=2.0, exposure=0.35).image

    def grain(image: np.ndarray) -> float:
        f = image.astype(np.float32)
        return float((f - cv2.GaussianBlur(f, (0, 0), 2)).std())

    assert float(np.median(dim)) == pytest.approx(0.35 * float(np.median(plain)), abs=4)
    assert grain(dim) > 1.5 * grain(plain)  # darker, yet noisier in grey levels


def test_a_bright_exposure_clips_the_highlights():
    bright = cube_scene(7, table="laminate", exposure=1.3)
    assert (_table(bright) == 255).all(axis=1).mean() > 0.8
    assert (_table(cube_scene(7, table="laminate")) == 255).all(axis=1).mean() < 0.01


def test_camera_height_changes_the_dice_size_with_a_pi_cameras_view():
    low = cube_scene(7, camera_height=350)
    high = cube_scene(7, camera_height=800)
    low_size = float(np.median([d.size for d in low.dice]))
    high_size = float(np.median([d.size for d in high.dice]))
    assert 40 < low_size < 55 and 18 < high_size < 24
    assert low_size / high_size == pytest.approx(784 / 334, rel=0.03)  # top faces: 16 mm up
    camera = cube_scene_camera(7, camera_height=800)
    assert camera.distance == 800 and 950 < camera.focal < 1100


def test_distortion_moves_the_truth_with_the_image():
    scene = cube_scene(3, markers=True, distortion=-0.12, camera_height=500, holes=0.0)
    found = detect_markers(scene.image)
    assert set(found) == set(scene.markers) == {0, 1, 2, 3}
    for marker, corners in scene.markers.items():
        assert np.abs(found[marker] - corners).max() < 1.5
    # The dice are where the truth says, although the lens moved some by most of a die.
    lens = Distortion.of(-0.12, cube_scene_camera(3, camera_height=500))
    centres = np.array([(d.x, d.y) for d in scene.dice])
    moved = np.hypot(*(centres - lens.invert(centres)).T)
    assert (moved / np.array([d.size for d in scene.dice])).max() > 0.5
    for die in scene.dice:
        assert np.abs(np.median(_top(scene, die), axis=0) - ALBEDO[die.color]).max() < 45, die


def test_markers_lie_flat_at_the_views_corners_and_are_found():
    scene = cube_scene(8, markers=True, tilt=10.0, noise=2.0)
    found = detect_markers(scene.image)
    assert set(found) == {0, 1, 2, 3}
    centres = {m: c.mean(axis=0) for m, c in scene.markers.items()}
    assert centres[0][0] < 640 and centres[0][1] < 360  # top left
    assert centres[1][0] > 640 and centres[1][1] < 360
    assert centres[2][0] > 640 and centres[2][1] > 360
    assert centres[3][0] < 640 and centres[3][1] > 360
    for marker, corners in scene.markers.items():
        assert np.abs(found[marker] - corners).max() < 1.5
    assert cube_scene(8).markers == {}


def test_motion_blur_and_jpeg_degrade_the_frame():
    plain = cube_scene(9, noise=0.0).image
    assert _sharpness(cube_scene(9, motion_blur=6.0).image) < 0.7 * _sharpness(plain)
    squeezed = cube_scene(9, jpeg=30).image
    change = float(np.abs(squeezed.astype(int) - plain.astype(int)).mean())
    assert 0.3 < change < 6


def _hand(seed: int) -> tuple[Scene, Scene, np.ndarray]:
    """The scene without and with the hand, and where the hand is: pixels much changed, and not
    merely darkened alike in every channel (the hand's shadow)."""
    plain = cube_scene(seed, shadows=True)
    with_hand = cube_scene(seed, shadows=True, edge_object="hand")
    before, after = plain.image.astype(float), with_hand.image.astype(float)
    ratio = (after + 1) / (before + 1)
    shade = (ratio.max(axis=2) < 1.05) & (np.ptp(ratio, axis=2) < 0.25)
    hand = (np.abs(after - before).max(axis=2) > 40) & ~shade
    return plain, with_hand, hand


def _covered(hand: np.ndarray, die) -> float:
    r = round(die.size / 2)
    return float(
        hand[round(die.y) - r : round(die.y) + r, round(die.x) - r : round(die.x) + r].mean()
    )


def test_a_hand_comes_in_from_one_edge_and_a_die_it_mostly_hides_leaves_the_truth():
    plain, with_hand, hand = _hand(4)
    assert hand.mean() > 0.01
    ys, xs = np.nonzero(hand)
    assert min(xs.min(), ys.min(), 1279 - xs.max(), 719 - ys.max()) == 0  # it comes from outside
    assert min(xs.mean(), ys.mean(), 1280 - xs.mean(), 720 - ys.mean()) < 150  # by one edge
    skin = cv2.cvtColor(with_hand.image, cv2.COLOR_BGR2HSV)[hand]
    hue = float(np.median(skin[:, 0]))
    assert hue < 25 or hue > 170  # skin: reddish-orange
    gone = [
        d for d in plain.dice if all(abs(d.x - e.x) + abs(d.y - e.y) > 1 for e in with_hand.dice)
    ]
    assert len(gone) == 2 and len(with_hand.dice) == len(plain.dice) - 2
    assert all(_covered(hand, die) > 0.4 for die in gone)  # > 0.5 of the top: dark skin on black
    assert all(_covered(hand, die) < 0.05 for die in with_hand.dice)


def test_a_die_the_hand_partly_hides_stays_in_the_truth_and_is_listed():
    _, with_hand, hand = _hand(11)
    assert with_hand.partly_hidden == (7, 10)
    for i, die in enumerate(with_hand.dice):
        share = _covered(hand, die)
        assert (0.02 < share < 0.6) if i in with_hand.partly_hidden else share < 0.05, (i, share)


def test_a_dice_cup_stands_at_an_edge_and_no_die_is_under_it():
    plain = cube_scene(5)
    cup = cube_scene(5, edge_object="cup")
    changed = np.abs(cup.image.astype(int) - plain.image.astype(int)).max(axis=2) > 30
    edges = [
        changed[:, :4].mean(),
        changed[:4, :].mean(),
        changed[:, -4:].mean(),
        changed[-4:, :].mean(),
    ]
    assert max(edges) > 0.1 and sorted(edges)[-2] < 0.05
    grey = cv2.cvtColor(cup.image, cv2.COLOR_BGR2GRAY)[changed]
    assert float(np.median(grey)) < 90  # dark plastic or leather
    for die in cup.dice:
        assert np.abs(np.median(_top(cup, die), axis=0) - ALBEDO[die.color]).max() < 60, die


def test_faded_plastics_are_off_the_reference_colours_and_mixed_has_both():
    def distances(scene: Scene) -> list[float]:
        return sorted(
            float(np.abs(np.median(_top(scene, d), axis=0) - ALBEDO[d.color]).max())
            for d in scene.dice
        )

    saturated = distances(cube_scene(7, holes=0.0))
    faded = distances(cube_scene(7, holes=0.0, plastic="faded"))
    mixed = distances(cube_scene(7, holes=0.0, plastic="mixed"))
    assert np.median(saturated) < 15 and np.median(faded) > 25
    assert mixed[0] < 15 and mixed[-1] > 35


def test_glossy_plastic_adds_colourless_highlights():
    matte = cube_scene(5, finish="matte", light="uneven")
    glossy = cube_scene(5, finish="glossy", light="uneven")
    diff = glossy.image.astype(int) - matte.image.astype(int)
    lit = diff.min(axis=2) > 30  # brighter in every channel: white light
    assert lit.sum() > 200
    sat = cv2.cvtColor(glossy.image, cv2.COLOR_BGR2HSV)[..., 1]
    sat_matte = cv2.cvtColor(matte.image, cv2.COLOR_BGR2HSV)[..., 1]
    assert float(np.median(sat[lit])) < float(np.median(sat_matte[lit])) - 30
    # Only on the dice: the table is the same.
    assert np.array_equal(_table(glossy), _table(matte))


@pytest.mark.parametrize("table", WIDE_TABLES)
def test_each_new_table_has_its_look(table: str):
    scene = cube_scene(6, table=table, noise=2.0)
    pixels = _table(scene)
    b, g, r = np.median(pixels, axis=0)
    if table == "lacquer":
        assert max(b, g, r) < 70
    elif table == "laminate":
        assert min(b, g, r) > 190
    elif table == "blue felt":
        assert b > r + 40
    elif table == "red felt":
        assert r > b + 40
    else:  # cloth and mat: many colours, not one
        hue = cv2.cvtColor(pixels.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV)
        assert float(np.std(pixels, axis=0).mean()) > 20 or float(hue[..., 0].std()) > 20
    assert len(scene.dice) == 16


def test_leaning_dice_are_marked_and_their_tilted_top_is_where_the_truth_says():
    scene = cube_scene(3, leaning=0.3, holes=0.0, camera_height=400)
    assert 2 <= len(scene.leaning) <= 5
    sizes = np.array([d.size for d in scene.dice])
    flat = np.median(np.delete(sizes, scene.leaning))
    for i in scene.leaning:
        die = scene.dice[i]
        # the die's own colour there, in the light that face gets (lit more or less than a flat
        # top, as it faces the lamp or not)
        seen, albedo = np.median(_top(scene, die), axis=0), np.array(ALBEDO[die.color], float)
        light = float(seen @ albedo / (albedo @ albedo))
        assert 0.45 <= light <= 1.6 and np.abs(seen - light * albedo).max() < 30, die
        assert abs(die.size / flat - 1) > 0.01  # the tilted face is not a flat one's
    assert cube_scene(3).leaning == ()


_FACES = [(i, (i + 1) % 4, (i + 1) % 4 + 4, i + 4) for i in range(4)] + [(4, 5, 6, 7)]
_LOOK = Camera(640, 480, 900.0, 300.0, 0.0)  # a camera close above, to see the faces large
_GREY = (200.0, 200.0, 200.0)


def _tilted_box(tilt: float) -> np.ndarray:
    """A cube's corners (bottom 0-3, then top 4-7) leaning ``tilt`` degrees about its bottom
    edge 2-3, so that side face 0 (corners 0, 1, 5, 4) turns up towards the camera."""
    h = SIZE / 2
    square = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    corners = np.r_[np.c_[square, np.zeros(4)], np.c_[square, np.full(4, SIZE)]]
    t = -math.radians(tilt)  # the bottom edge 0-1 rises
    turn = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    hinge = np.array([0.0, h, 0.0])
    return (corners - hinge) @ turn.T + hinge + np.array([30.0, -20.0, 0.0])


def _seen_faces(corners: np.ndarray) -> list[int]:
    centre = corners.mean(axis=0)
    seen = []
    for index, face in enumerate(_FACES):
        mid = corners[list(face)].mean(axis=0)
        if (mid - centre) @ (_LOOK.position - mid) > 0:
            seen.append(index)
    return seen


def _painted_box(
    corners: np.ndarray,
    hole: bool,
    sideways: int | None,
    light_dir: tuple[float, float] = (0.3, 0.4),
) -> np.ndarray:
    canvas = np.zeros((_LOOK.height * 4, _LOOK.width * 4, 3), np.float32)
    paint_box(canvas, _LOOK, corners, _GREY, False, hole, light_dir, 4, 0.0, sideways)
    return canvas


def _at(canvas: np.ndarray, point: np.ndarray) -> float:
    u, v = _LOOK.project(point[None])[0] * 4
    return float(canvas[round(v), round(u)].mean())


def test_every_face_a_leaning_die_shows_has_its_rim():
    corners = _tilted_box(30.0)
    canvas = _painted_box(corners, hole=False, sideways=None)
    big = 0
    for index in _seen_faces(corners):
        pts = corners[list(_FACES[index])]
        area = cv2.contourArea(_LOOK.project(pts).astype(np.float32))
        if area < 500:
            continue
        big += 1
        middle = pts.mean(axis=0)
        for i in range(4):
            edge = (pts[i] + pts[(i + 1) % 4]) / 2
            inside = edge + (middle - edge) * 0.02
            assert _at(canvas, inside) < 0.85 * _at(canvas, middle), (index, i)
    assert big >= 2, "the tilted die shows its top and the side turned up"


def test_a_hole_shows_exactly_on_the_faces_it_goes_through():
    corners = _tilted_box(35.0)
    seen = _seen_faces(corners)
    assert {0, 4} <= set(seen) and 2 not in seen
    for hole, sideways, holed in ((True, None, {4}), (False, 0, {0, 2}), (False, 1, {1, 3})):
        canvas = _painted_box(corners, hole, sideways)
        for index in seen:
            middle = corners[list(_FACES[index])].mean(axis=0)
            assert (_at(canvas, middle) < 80) == (index in holed), (hole, sideways, index)
    plain = _painted_box(corners, False, None)
    assert all(_at(plain, corners[list(_FACES[i])].mean(axis=0)) > 80 for i in seen)


def test_side_holes_show_in_the_sides_only_and_not_when_the_hole_is_up():
    knobs = {"camera_height": 380.0, "tilt": 8.0, "shadows": False, "noise": 0.0}
    plain = cube_scene(6, holes=0.3, **knobs)
    sides = cube_scene(6, holes=0.3, side_holes=True, **knobs)
    assert plain.dice == sides.dice
    changed = np.abs(plain.image.astype(int) - sides.image.astype(int)).max(axis=2) > 30
    assert changed.sum() > 200, "some side faces show their hole"
    tops = np.zeros(changed.shape, np.uint8)
    for die in plain.dice:
        r = max(2, round(die.size * 0.35))
        cv2.circle(tops, (round(die.x), round(die.y)), r, 1, -1)
    assert not (changed & (tops > 0)).any(), "a top face's pixels change"
    up = cube_scene(6, holes=1.0, **knobs)
    assert np.array_equal(up.image, cube_scene(6, holes=1.0, side_holes=True, **knobs).image)
    drawn = sum(wild_cube_knobs(seed)["side_holes"] for seed in range(100))
    assert 70 <= drawn < 100


def test_a_leaning_dies_face_turned_to_a_low_lamp_is_brighter_than_the_face_that_is_up():
    # Under a lamp 40° high, a die leaning 30° shows its face most nearly up (its top) and a
    # steep side face. Lit from the steep face's side, the lamp's rays meet that face 10° from
    # square on and the top 80° from it: by Lambert's cosine the steep face is about twice as
    # bright, not the top (which the camera would then take for the side). Lit from the other
    # side, the lamp does not reach the steep face: it gets the room's light only.
    corners = _tilted_box(30.0)
    centre = corners.mean(axis=0)
    top, steep = corners[4:].mean(axis=0), corners[[0, 1, 5, 4]].mean(axis=0)
    out = (steep - centre)[:2] / np.hypot(*(steep - centre)[:2])
    run = 1 / math.tan(math.radians(40))  # a shadow's run per mm of height

    def painted(lamp_side: np.ndarray) -> np.ndarray:
        light_dir = (float(-lamp_side[0] * run), float(-lamp_side[1] * run))
        return _painted_box(corners, hole=False, sideways=None, light_dir=light_dir)

    towards = painted(out)
    assert 1.8 < _at(towards, steep) / _at(towards, top) < 2.5
    away = painted(-out)
    assert _at(away, top) > 2 * _at(away, steep)
    assert _at(away, steep) == pytest.approx(AMBIENT * _GREY[0], rel=0.03)


def test_a_die_lying_on_another_shows_on_top_and_the_one_it_hides_leaves_the_truth():
    knobs = {"table": "wood", "camera_height": 420.0, "holes": 0.0}
    flat = cube_scene(7, **knobs)
    piled = cube_scene(7, pile=0.2, **knobs)
    assert len(flat.dice) == 16
    assert 13 <= len(piled.dice) < 16, "a die more than half hidden by the one on it is left out"
    for die in piled.dice:
        assert np.abs(np.median(_top(piled, die), axis=0) - ALBEDO[die.color]).max() < 60, die
    flat_sizes = sorted(d.size for d in flat.dice)
    on_top = [d for d in piled.dice if d.size > flat_sizes[-1] * 1.02]
    assert on_top, "a die on another is nearer the camera: its top face looks bigger"


def test_a_lamps_hot_spot_clips_white_near_a_die_and_brightens_round_it():
    knobs = {"table": "dark", "shadows": False, "noise": 0.0}
    plain = cube_scene(5, **knobs).image.astype(np.float64)
    spot = cube_scene(5, hot_spot=True, **knobs).image.astype(np.float64)
    brighter = spot.sum(axis=2) - plain.sum(axis=2)
    assert (spot.min(axis=2) >= 250).sum() > 50, "its heart clips white"
    y, x = np.unravel_index(int(np.argmax(brighter)), brighter.shape)
    scene = cube_scene(5, **knobs)
    nearest = min(math.hypot(d.x - x, d.y - y) / d.size for d in scene.dice)
    assert nearest < 6, "near a die"
    assert (brighter > 30).mean() < 0.25, "a spot, not the whole table"


def _edge_bands(scene: Scene, die) -> list[tuple[float, float, float]]:
    """Each top edge of a flat die: its outward normal in the frame (x, y) and the mean
    brightness of the band just inside it."""
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY).astype(np.float64)
    h = die.size / 2
    c, s = math.cos(math.radians(die.angle)), math.sin(math.radians(die.angle))
    bands = []
    for nx, ny in ((c, s), (-s, c), (-c, -s), (s, -c)):
        along = [
            grey[round(die.y + ny * 0.88 * h + nx * t), round(die.x + nx * 0.88 * h - ny * t)]
            for t in np.linspace(-0.5, 0.5, 7) * h
        ]
        bands.append((nx, ny, float(np.mean(along))))
    return bands


def test_rounded_edges_are_lighter_on_the_side_of_the_light_the_same_side_for_every_die():
    knobs = {"table": "felt", "camera_height": 350.0, "holes": 0.0, "colors": ["red"] * 6}
    sharp = cube_scene(4, 6, **knobs)
    rounded = cube_scene(4, 6, bevel=0.15, **knobs)
    assert [d.x for d in sharp.dice] == [d.x for d in rounded.dice], "the same throw"
    changed = np.abs(sharp.image.astype(int) - rounded.image.astype(int)).max(axis=2) > 20
    lit_sides = []
    for die in rounded.dice:
        r, x, y = round(die.size * 0.2), round(die.x), round(die.y)
        assert not changed[y - r : y + r, x - r : x + r].any(), "the middle of the top is as before"
        bands = _edge_bands(rounded, die)
        levels = [b[2] for b in bands]
        assert max(levels) - min(levels) > 15, "one side lighter than the other"
        side = np.sum([np.array(b[:2]) * (b[2] - np.mean(levels)) for b in bands], axis=0)
        lit_sides.append(side / np.linalg.norm(side))
        sharp_levels = [b[2] for b in _edge_bands(sharp, die)]
        assert max(sharp_levels) - min(sharp_levels) < max(levels) - min(levels)
    agreement = float(np.linalg.norm(np.mean(lit_sides, axis=0)))
    assert agreement > 0.8, "one lamp: every die's lit edges face the same way"


def test_an_area_lights_mirror_image_is_a_large_soft_patch_round_the_throw():
    knobs = {"table": "dark", "shadows": False, "noise": 0.0}
    plain = cube_scene(5, **knobs).image.astype(np.float64)
    pooled = cube_scene(5, light_pool=True, **knobs)
    brighter = pooled.image.astype(np.float64).sum(axis=2) - plain.sum(axis=2)
    lit = brighter > 30
    assert 0.03 < lit.mean() < 0.6, "a patch of the table, not a spot and not all of it"
    ys, xs = np.nonzero(lit)
    assert min(math.hypot(d.x - xs.mean(), d.y - ys.mean()) / d.size for d in pooled.dice) < 8
    ramp = brighter[lit].max() - np.percentile(brighter[lit], 10)
    assert ramp > 60, "soft-edged: it fades out rather than stopping"
    assert len(pooled.dice) == 16, "every die is still there"


def test_the_colour_check_frame_shows_four_dice_in_order_on_the_same_table():
    knobs = {"table": "wood", "kelvin": 3000, "plastic": "faded", "shadows": True, "noise": 2.0}
    scene = cube_scene(12, **knobs)
    check = color_check_scene(12, **knobs)
    assert [d.color for d in check.dice] == list(COLORS)  # red, yellow, blue, black
    xs = [d.x for d in check.dice]
    assert xs == sorted(xs) and all(b - a > 25 for a, b in itertools.pairwise(xs))
    assert all(abs(d.y - 360) < 80 and abs(d.x - 640) < 160 for d in check.dice)
    # Away from both frames' dice, every pixel is the same: one table, light and camera.
    keep = np.ones((720, 1280), np.uint8)
    for d in (*scene.dice, *check.dice):
        cv2.circle(keep, (round(d.x), round(d.y)), round(3 * d.size), 0, -1)
    assert keep.mean() > 0.3
    assert np.array_equal(scene.image[keep > 0], check.image[keep > 0])
    # Same plastics: each check die is the first die of its colour in the scene.
    for die in check.dice:
        like = next(d for d in scene.dice if d.color == die.color)
        got, want = np.median(_top(check, die), axis=0), np.median(_top(scene, like), axis=0)
        assert np.abs(got - want).max() < 25 or die.color == "black" or die.hole or like.hole


def test_wild_tessons_draw_every_table_and_kind_of_card_and_render():
    draws = [wild_tesson_knobs(seed) for seed in range(60)]
    assert {d["table"] for d in draws} >= set(WIDE_TABLES) | {"felt", "wood", "dark"}
    assert {d["printed"] for d in draws} == {0.0, 0.5, 1.0}
    assert min(d["kelvin"] for d in draws) < 3200 and max(d["kelvin"] for d in draws) > 6000
    assert draws == [wild_tesson_knobs(seed) for seed in range(60)]  # the seed is the scene
    scene = tesson_scene(3, 7, **draws[3])
    assert scene.image.shape == (720, 1280, 3) and len(scene.tessons) > 0
    spots = [d["hot_spots"] for d in draws]
    assert set(spots) == {0, 1, 2} and spots.count(0) > len(spots) / 2


def test_a_lamps_hot_spots_on_a_tesson_table_clip_white_in_the_seats_and_move_nothing():
    knobs = {"table": "wood", "shadows": False, "noise": 0.0}
    plain = tesson_scene(4, 8, **knobs)
    lit = tesson_scene(4, 8, hot_spots=2, **knobs)
    assert lit.tessons == plain.tessons and lit.seats == plain.seats, "the same table, lit"
    assert np.array_equal(tesson_scene(4, 8, hot_spots=0, **knobs).image, plain.image)
    shine = lit.image.astype(np.float64).sum(axis=2) - plain.image.astype(np.float64).sum(axis=2)
    clipped = (lit.image.min(axis=2) >= 250) & (plain.image.min(axis=2) < 250)
    assert clipped.sum() > 50, "a hot spot's heart clips white where the table was not"
    assert (shine > 150).mean() < 0.25, "spots and their pools of light, not the whole table"
    in_a_seat = 0
    for seed in range(20):
        scene = tesson_scene(seed, 8, hot_spots=1, **knobs)
        base = tesson_scene(seed, 8, **knobs).image.astype(np.float64).sum(axis=2)
        lit_up = scene.image.astype(np.float64).sum(axis=2) - base
        y, x = np.unravel_index(int(np.argmax(lit_up)), base.shape)
        in_a_seat += scene.seats.seat_of(float(x), float(y)) is not None
    assert in_a_seat >= 10, "most in a seat's zone, where a glare could pass for a shard"


def test_a_flowered_cloth_prints_flowers_about_a_shards_size_close_together():
    camera = cube_scene_camera(5)
    per_mm = camera.focal / camera.distance
    widths, cover = [], []
    for seed in range(6):
        cloth = table_texture(np.random.default_rng(seed), FLOWERED, camera, (720, 1280), 1)
        ground = np.median(cloth.reshape(-1, 3), axis=0)  # the flowers are the smaller share
        flowers = (np.abs(cloth - ground).max(axis=2) > 40).astype(np.uint8)
        flowers = cv2.morphologyEx(flowers, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        _, _, stats, _ = cv2.connectedComponentsWithStats(flowers)
        whole = stats[1:][stats[1:, 4] > 20]  # flowers and clumps of them, not specks
        widths.append(float(np.median(whole[:, 2])) / per_mm)
        cover.append(float(flowers.mean()))
    assert min(widths) > 6 and max(widths) < 40, widths  # a plain shard is 24 mm across
    assert max(widths) / min(widths) > 1.5, "small and large prints"
    assert all(0.1 < c <= 0.5 for c in cover), cover


def test_a_striped_cloth_is_a_quarter_to_a_half_white_in_bands():
    """As the Blender renders' stripes and ginghams: a white shard may lie on the white."""
    camera = cube_scene_camera(5)
    for seed in range(8):
        cloth = table_texture(np.random.default_rng(seed), STRIPED, camera, (720, 1280), 1)
        white = (np.abs(cloth - np.array(PALETTE[0])).max(axis=2) < 40).astype(np.uint8)
        assert 0.15 < white.mean() < 0.6, (seed, white.mean())
        bands, _ = cv2.connectedComponents(white)
        assert bands > 6, "bands or checks, not one white patch"
    knobs = {"printed": 0.5, "noise": 0.0}
    striped, plain = tesson_scene(8, 7, table=STRIPED, **knobs), tesson_scene(8, 7, **knobs)
    assert striped.tessons == plain.tessons and striped.seats == plain.seats, "only the table"


def test_a_game_mat_prints_shapes_as_white_or_black_as_a_shard_larger_than_one():
    """As a board's art (and the Blender renders' mats): bare discs, rings, boxes and polygons,
    some of them a shard's white or black; most mats show two such shapes or more."""
    camera = cube_scene_camera(5)
    per_mm = camera.focal / camera.distance
    shard, quarter = math.pi * (12 * per_mm) ** 2, 720 * 1280 / 4
    busy = 0
    for seed in range(20):
        mat = table_texture(np.random.default_rng(seed), "mat", camera, (720, 1280), 1)
        shapes = 0
        for like in (mat.min(axis=2) > 200, mat.max(axis=2) < 60):
            areas = cv2.connectedComponentsWithStats(like.astype(np.uint8))[2][1:, 4]
            shapes += int(((areas > shard) & (areas < quarter)).sum())
        busy += shapes >= 2
    assert busy >= 14, busy


def test_wild_tessons_lie_on_a_flowered_cloth_on_about_one_table_in_eight_cubes_never():
    tables = [wild_tesson_knobs(seed)["table"] for seed in range(400)]
    assert 30 <= tables.count(FLOWERED) <= 70
    assert all(wild_cube_knobs(seed)["table"] != FLOWERED for seed in range(400))
    knobs = {"shadows": False, "noise": 0.0}
    flowered, plain = tesson_scene(8, 7, table=FLOWERED, **knobs), tesson_scene(8, 7, **knobs)
    assert flowered.tessons == plain.tessons and flowered.seats == plain.seats, "only the table"
    assert not np.array_equal(flowered.image, plain.image)


def test_wild_tesson_tables_mirror_a_broad_light_in_their_sleeves_about_one_in_three():
    sheens = [wild_tesson_knobs(seed)["sheen"] for seed in range(400)]
    assert 100 <= sum(s > 0 for s in sheens) <= 180
    assert all(s == 0 or 0.3 <= s <= 1 for s in sheens)


def test_wild_dark_tables_lit_evenly_are_sometimes_overexposed_as_a_camera_metering_them():
    draws = [wild_tesson_knobs(seed) for seed in range(600)]
    dark = [d for d in draws if d["table"] in ("dark", "lacquer")]
    even = [d for d in dark if d["light"] != "spot" and d["hot_spots"] == 0]
    bright = [d for d in dark if d["exposure"] >= 1.8]
    assert 0.25 * len(even) <= len(bright) <= 0.55 * len(even)
    assert all(1.8 <= d["exposure"] <= 4.0 for d in bright)
    assert all(d in even for d in bright)  # a lamp's pool is metered too
    assert all(d["exposure"] <= 1.3 for d in draws if d not in bright)
    shaded = [d for d in draws if d["table_shade"] < 1]
    assert shaded and all(d in bright and d["table"] == "lacquer" for d in shaded)
    assert all(0.35 <= d["table_shade"] <= 0.9 and d["exposure"] >= 2.5 for d in shaded)


def test_a_lacquer_darker_than_a_matte_black_shard_shows_the_shards_brighter_than_it():
    """As a black lacquer mirroring a dark room in the Blender renders: overexposed, its black
    shards show 80-150, about twice the table round them; only the table is darker."""
    knobs = {"table": "lacquer", "exposure": 3.5, "noise": 0.0}
    plain, shaded = tesson_scene(2001, 8, **knobs), tesson_scene(2001, 8, table_shade=0.5, **knobs)
    assert shaded.tessons == plain.tessons
    assert np.median(shaded.image) < 0.65 * np.median(plain.image)
    table = float(np.median(shaded.image.reshape(-1, 3), axis=0).mean())
    blacks = [_middle(shaded, t) for t in shaded.tessons if t.side == "black"]
    assert blacks and all(1.6 * table < m < 160 for m in blacks), (table, blacks)
    with pytest.raises(ValueError, match="table_shade"):
        tesson_scene(1, table_shade=0.1)


def test_wild_tessons_lie_on_a_striped_cloth_on_about_one_table_in_sixteen_cubes_never():
    draws = [wild_tesson_knobs(seed) for seed in range(600)]
    striped = [d for d in draws if d["table"] == STRIPED]
    assert 20 <= len(striped) <= 75
    assert all(d["exposure"] <= 1.3 for d in striped)
    assert all(wild_cube_knobs(seed)["table"] != STRIPED for seed in range(400))


def test_a_hand_reaching_over_a_tesson_table_hides_what_it_covers_from_the_truth_only():
    knobs = {"printed": 0.5, "noise": 0.0}
    hidden = 0
    for seed in range(12):
        plain, reaching = tesson_scene(seed, 8, **knobs), tesson_scene(seed, 8, hand=True, **knobs)
        assert set(reaching.tessons) <= set(plain.tessons) and reaching.seats == plain.seats
        kept = [plain.tessons.index(t) for t in reaching.tessons]
        assert reaching.printed == tuple(plain.printed[i] for i in kept)
        hidden += len(plain.tessons) - len(reaching.tessons)
        skin = np.abs(reaching.image.astype(int) - plain.image.astype(int)).max(axis=2) > 40
        assert 0.01 < skin.mean() < 0.4, "an arm from one edge, not the whole table"
        assert np.array_equal(tesson_scene(seed, 8, hand=False, **knobs).image, plain.image)
    assert 1 <= hidden <= 12, "it reaches for a tesson near its edge, now and then over it"
    hands = [wild_tesson_knobs(seed)["hand"] for seed in range(400)]
    assert 80 <= sum(hands) <= 160


def _middle(scene, tesson) -> float:
    y, x = round(tesson.y), round(tesson.x)
    return float(scene.image[y - 2 : y + 3, x - 2 : x + 3].mean())


def test_an_overexposed_lacquer_shows_black_shards_grey_brighter_than_the_table_whites_clipped():
    scene = tesson_scene(2001, 8, table="lacquer", exposure=3.0, shadows=True, noise=0.0)
    table = float(np.median(scene.image.reshape(-1, 3), axis=0).mean())
    for t in scene.tessons:
        middle = _middle(scene, t)
        if t.side == "white":
            assert middle > 250, "a white shard clips"
        else:
            assert table + 15 < middle < 160, (
                "a black shard is a mid grey, lighter than the lacquer"
            )


def test_wild_check_frames_show_the_four_colours_left_to_right():
    for seed in (1, 2):
        check = color_check_scene(seed, **wild_cube_knobs(seed))
        assert [d.color for d in check.dice] == list(COLORS)
        assert [d.x for d in check.dice] == sorted(d.x for d in check.dice)


def test_bad_wide_knobs_are_refused():
    for knobs, word in (
        ({"plastic": "neon"}, "plastic"),
        ({"finish": "satin"}, "finish"),
        ({"kelvin": 100.0}, "kelvin"),
        ({"exposure": 0.0}, "exposure"),
        ({"camera_height": 50.0}, "camera_height"),
        ({"jpeg": 0}, "jpeg"),
        ({"edge_object": "cat"}, "edge_object"),
        ({"leaning": 2.0}, "leaning"),
        ({"pile": -0.1}, "pile"),
        ({"white_balance": (1.0, 0.0, 1.0)}, "white_balance"),
        ({"table": "glass"}, "table"),
    ):
        with pytest.raises(ValueError, match=word):
            cube_scene(1, **knobs)
    assert Counter(d.color for d in cube_scene(1, plastic="mixed").dice) == {c: 4 for c in COLORS}
