"""The ground truth of the committed Blender renders agrees with their images.

Checked with plain OpenCV, independently of the project's readers: the ArUco markers that
cv2.aruco finds sit on the JSON's corners (so the projection and the lens distortion of the
truth are the image's), each flat, visible die's top face shows a plastic's colour (the colour
of the other dice of its colour, unlike the table round it), the tessons' sides are where the
JSON says and their seats are the seat map's, the colour-check frame holds red, yellow, blue and
black dice from left to right on the printed check card, whose marker (id 4) cv2.aruco finds on
the JSON's corners in the check image. Each check is also run on a spoiled copy of the truth,
and must fail there: the checks can fail. No Blender is needed (docs/vision/renders.md).
"""

from __future__ import annotations

import functools
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "render"))

import truth  # noqa: E402

SAMPLE = ROOT / "tests" / "data" / "renders"
CHECK_MARKER = 4  # vision.calibration.CHECK_MARKER: the colour check card's marker
FILES = sorted(SAMPLE.glob("*.json"))
MARKER_TOLERANCE_PX = 1.5


@functools.cache
def _load(path: Path) -> truth.Rendered:
    return truth.load(path)


@pytest.fixture(params=[p.name for p in FILES])
def rendered(request: pytest.FixtureRequest) -> truth.Rendered:
    return _load(SAMPLE / request.param)


def _cubes() -> list[truth.Rendered]:
    return [_load(p) for p in FILES if p.name.startswith("cubes-")]


def _tessons() -> list[truth.Rendered]:
    return [_load(p) for p in FILES if p.name.startswith("tessons-")]


# --- what the checks measure -------------------------------------------------------------------


def detect(image: np.ndarray) -> dict[int, np.ndarray]:
    """cv2.aruco's corner markers (DICT_4X4_50), corners refined to sub-pixels."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), parameters
    )
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.flatten(), strict=True)}


def marker_errors(scene: truth.Rendered | truth.CheckFrame) -> dict[int, float]:
    """Worst corner distance (px) between each true marker and the one detected (inf: none),
    in a scene or in its check frame."""
    found = detect(scene.image)
    return {
        m.id: float(np.linalg.norm(found[m.id] - m.corners, axis=1).max())
        if m.id in found
        else math.inf
        for m in scene.markers
    }


def _lab(image: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    return lab * np.array([100 / 255, 1, 1], np.float32) - np.array([0, 128, 128], np.float32)


def _ring_pixels(
    lab: np.ndarray,
    x: float,
    y: float,
    r0: float,
    r1: float,
    away: tuple[truth.RenderedDie, ...] = (),
) -> np.ndarray:
    """Pixels (N, 3) at a distance r0..r1 from (x, y), none within 1.05 sizes of ``away``."""
    x0, y0 = max(0, math.floor(x - r1)), max(0, math.floor(y - r1))
    x1, y1 = min(lab.shape[1], math.ceil(x + r1) + 1), min(lab.shape[0], math.ceil(y + r1) + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    r = np.hypot(xx - x, yy - y)
    mask = (r >= r0) & (r <= r1)
    for other in away:
        mask &= np.hypot(xx - other.x, yy - other.y) > 1.05 * other.size
    return lab[y0:y1, x0:x1][mask]


def top_patch(lab: np.ndarray, die: truth.RenderedDie) -> np.ndarray:
    """Median Lab of the die's top face round its centre (the hole's mouth left out)."""
    inner = 0.24 * die.size if die.hole else 0.0
    return np.median(_ring_pixels(lab, die.x, die.y, inner, 0.36 * die.size), axis=0)


def table_ring(
    lab: np.ndarray, die: truth.RenderedDie, dice: tuple[truth.RenderedDie, ...]
) -> np.ndarray | None:
    """Median Lab of the table in a ring round the die, other dice left out (None: no table)."""
    pixels = _ring_pixels(lab, die.x, die.y, 1.05 * die.size, 1.5 * die.size, dice)
    return np.median(pixels, axis=0) if len(pixels) > 40 else None


def dice_problems(scene: truth.Rendered, dice: tuple[truth.RenderedDie, ...]) -> list[str]:
    """Where the flat, visible dice of the truth do not look like dice of their colour.

    A die's top patch must be nearer to the median patch of the dice of its own colour than
    to that of any other colour, and unlike the table round it (Lab distance over 6; black
    dice on a charcoal cloth may be as dark as it: then darker or as dark, not lighter)."""
    lab = _lab(scene.image)
    flat = [d for d in dice if d.pose == "flat" and d.visible >= 0.99]
    patches = [top_patch(lab, d) for d in flat]
    groups: dict[str, list[np.ndarray]] = {}
    for die, patch in zip(flat, patches, strict=True):
        groups.setdefault(die.color or "", []).append(patch)
    centres = {color: np.median(np.array(p), axis=0) for color, p in groups.items()}
    problems = []
    for die, patch in zip(flat, patches, strict=True):
        where = f"{die.color} die at ({die.x:.0f}, {die.y:.0f})"
        if len(centres) > 1:
            nearest = min(centres, key=lambda c: float(np.linalg.norm(patch - centres[c])))
            if nearest != die.color:
                problems.append(f"{where} looks {nearest}")
        ring = table_ring(lab, die, dice)
        if ring is None:
            continue
        unlike = float(np.linalg.norm(patch - ring)) > 6.0
        dark_on_dark = die.color == "black" and patch[0] <= ring[0] + 2.0
        if not (unlike or dark_on_dark):
            problems.append(f"{where} looks like the table round it")
    return problems


def check_problems(check: truth.CheckFrame) -> list[str]:
    """The check frame's dice, left to right, are red (most red: a*), yellow (most yellow:
    b*), blue (least yellow) and black (darker than the red and yellow ones)."""
    lab = _lab(check.image)
    dice = sorted(check.dice, key=lambda d: d.x)
    colors = [d.color for d in dice]
    problems = [] if colors == list(truth.COLORS) else [f"left to right: {colors}"]
    patch = {d.color: top_patch(lab, d) for d in dice}
    if max(patch, key=lambda c: patch[c][1]) != "red":
        problems.append("the red die is not the reddest")
    if max(patch, key=lambda c: patch[c][2]) != "yellow":
        problems.append("the yellow die is not the yellowest")
    if min(patch, key=lambda c: patch[c][2]) != "blue":
        problems.append("the blue die is not the bluest")
    if not patch["black"][0] < min(patch["red"][0], patch["yellow"][0]):
        problems.append("the black die is not darker than the red and yellow ones")
    return problems


def tesson_problems(scene: truth.Rendered, tessons: tuple[truth.RenderedTesson, ...]) -> list[str]:
    """Each visible tesson shows its side at its centre (white cards lighter than every black
    one, by 15 L* at least) and lies in its seat's zone."""
    light = _lab(scene.image)[..., 0]
    level = {}
    problems = []
    for t in tessons:
        if t.visible < 0.99:
            continue
        x, y = round(t.x), round(t.y)
        level[t] = float(np.median(light[y - 3 : y + 4, x - 3 : x + 4]))
        if scene.seats is not None and scene.seats.seat_of(t.x, t.y) != t.seat:
            problems.append(f"tesson at ({t.x:.0f}, {t.y:.0f}) is not in seat {t.seat}'s zone")
    whites = [v for t, v in level.items() if t.side == "white"]
    blacks = [v for t, v in level.items() if t.side == "black"]
    if whites and blacks and min(whites) < max(blacks) + 15:
        problems.append(
            f"white cards (L* {min(whites):.0f}) not lighter than black ({max(blacks):.0f})"
        )
    problems += [f"a white card at L* {v:.0f}" for v in whites if v < 45]
    problems += [f"a black card at L* {v:.0f}" for v in blacks if v > 60]
    return problems


# --- the sample -----------------------------------------------------------------------------------


def test_the_sample_has_two_cube_and_two_tesson_scenes_under_1_5_mb() -> None:
    assert len(_cubes()) >= 2
    assert len(_tessons()) >= 2
    assert any(t.printed for scene in _tessons() for t in scene.tessons)
    assert all(scene.check is not None for scene in _cubes())
    size = sum(p.stat().st_size for p in SAMPLE.iterdir())
    assert size < 1.5e6


def test_sample_seeds_are_dev_seeds_never_held_out() -> None:
    assert all(_load(p).seed < 1_000_000 for p in FILES)


def test_files_load_in_the_format(rendered: truth.Rendered) -> None:
    assert rendered.image.shape == (rendered.height, rendered.width, 3)
    c = rendered.conditions
    assert c["table_family"] in truth.TABLE_FAMILIES
    assert c["light"] in truth.LIGHTS
    assert c["exposure"] in truth.EXPOSURES
    assert c["edge_object"] in truth.EDGE_OBJECTS
    assert 1 <= c["lights"] <= 3
    assert 350 <= c["camera_height_mm"] <= 800
    assert 0 <= c["tilt_deg"] <= 15
    assert -0.12 <= c["distortion_k1"] <= 0.05
    assert all(0.85 <= g <= 1.15 for g in c["white_balance"])
    assert 70 <= c["jpeg_quality"] <= 95
    assert rendered.path.name == f"{rendered.kind}-{rendered.seed:06d}.jpg"
    for die in rendered.dice:
        assert isinstance(die, truth.DieReading) and die.confidence == 1.0
        assert 0 <= die.x < rendered.width and 0 <= die.y < rendered.height
    if rendered.kind == "cubes":
        assert 10 <= len(rendered.dice) <= 20
        assert rendered.seats is None and not rendered.tessons
    else:
        assert rendered.seats is not None and 5 <= rendered.seats.seats <= 12
        assert rendered.check is None


@pytest.mark.parametrize(
    "spoil",
    [
        {"version": 2},
        {"format": "something else"},
        {"image": "missing.jpg"},
        {"kind": "dominoes"},
        {"width": 640},
    ],
)
def test_a_file_not_in_the_format_is_refused(tmp_path: Path, spoil: dict) -> None:
    source = FILES[0]
    data = {**json.loads(source.read_text()), **spoil}
    path = tmp_path / source.name
    path.write_text(json.dumps(data))
    (tmp_path / source.with_suffix(".jpg").name).write_bytes(
        source.with_suffix(".jpg").read_bytes()
    )
    with pytest.raises(truth.BadRender):
        truth.load(path)


def test_a_die_without_its_pose_is_refused(tmp_path: Path) -> None:
    source = next(p for p in FILES if p.name.startswith("cubes-"))
    data = json.loads(source.read_text())
    del data["dice"][0]["pose"]
    path = tmp_path / source.name
    path.write_text(json.dumps(data))
    (tmp_path / data["image"]).write_bytes((SAMPLE / data["image"]).read_bytes())
    with pytest.raises(truth.BadRender, match="pose"):
        truth.load(path)


def _with_sizes(tmp_path: Path, sizes: list[object]) -> Path:
    source = next(p for p in FILES if p.name.startswith("tessons-"))
    data = json.loads(source.read_text())
    for tesson, size in zip(data["tessons"], sizes, strict=False):
        tesson["size"] = size
    path = tmp_path / source.name
    path.write_text(json.dumps(data))
    (tmp_path / data["image"]).write_bytes((SAMPLE / data["image"]).read_bytes())
    return path


def test_a_tessons_size_is_read_where_the_render_gives_it(tmp_path: Path) -> None:
    tessons = truth.load(_with_sizes(tmp_path, [31.5, None])).tessons
    assert tessons[0].size == 31.5 and all(t.size is None for t in tessons[1:])


def test_a_tessons_size_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    with pytest.raises(truth.BadRender, match="size"):
        truth.load(_with_sizes(tmp_path, ["big"]))


def test_distortion_round_trips() -> None:
    points = np.array([[0.0, 0.0], [1279.0, 719.0], [640.0, 10.0], [3.0, 500.0]])
    for k1 in (-0.12, 0.0, 0.05):
        back = truth.undistort(truth.distort(points, 1280, 720, 985.0, k1), 1280, 720, 985.0, k1)
        assert np.abs(back - points).max() < 1e-6


# --- the truth against the image --------------------------------------------------------------


def test_aruco_markers_sit_on_the_true_corners(rendered: truth.Rendered) -> None:
    errors = marker_errors(rendered)
    assert errors, "no marker fully in frame"
    found = [e for e in errors.values() if math.isfinite(e)]
    assert len(errors) - len(found) <= (1 if len(errors) >= 3 else 0), errors
    assert max(found) <= MARKER_TOLERANCE_PX, errors


def test_markers_moved_by_two_pixels_are_caught() -> None:
    scene = _load(FILES[0])
    moved = replace(
        scene,
        markers=tuple(replace(m, corners=m.corners + np.array([2.0, 0.0])) for m in scene.markers),
    )
    assert max(marker_errors(moved).values()) > MARKER_TOLERANCE_PX


def test_flat_visible_dice_show_the_colour_of_their_plastic() -> None:
    for scene in _cubes() + _tessons():
        assert dice_problems(scene, scene.dice) == [], scene.path.name


def test_dice_moved_off_their_place_are_caught() -> None:
    for scene in _cubes():
        moved = tuple(replace(d, x=d.x + 1.6 * d.size, y=d.y + 0.9 * d.size) for d in scene.dice)
        assert dice_problems(scene, moved), scene.path.name


def test_dice_of_swapped_colours_are_caught() -> None:
    for scene in _cubes():
        swap = {"red": "blue", "blue": "yellow", "yellow": "black", "black": "red"}
        wrong = tuple(replace(d, color=swap[d.color or "red"]) for d in scene.dice[:3])
        assert dice_problems(scene, wrong + scene.dice[3:]), scene.path.name


def test_colour_check_frame_holds_red_yellow_blue_black_left_to_right() -> None:
    for scene in _cubes():
        assert scene.check is not None
        assert check_problems(scene.check) == [], scene.path.name
        h, w = scene.check.image.shape[:2]
        x0, y0 = scene.check.offset
        assert x0 >= 0 and x0 + w <= scene.width and y0 >= 0 and y0 + h <= scene.height
        for die in scene.check.dice:
            assert die.pose == "flat" and 0 <= die.x < w and 0 <= die.y < h


def test_the_check_cards_marker_sits_on_the_true_corners() -> None:
    for scene in _cubes():
        assert scene.check is not None
        assert [m.id for m in scene.check.markers] == [CHECK_MARKER], scene.path.name
        errors = marker_errors(scene.check)
        assert errors[CHECK_MARKER] <= MARKER_TOLERANCE_PX, (scene.path.name, errors)


def test_a_check_cards_marker_moved_or_turned_is_caught() -> None:
    for scene in _cubes():
        assert scene.check is not None
        marker = scene.check.markers[0]
        for corners in (marker.corners + np.array([0.0, 2.0]), np.roll(marker.corners, 1, axis=0)):
            moved = replace(scene.check, markers=(replace(marker, corners=corners),))
            assert marker_errors(moved)[CHECK_MARKER] > MARKER_TOLERANCE_PX, scene.path.name


def test_a_check_without_markers_still_loads(tmp_path: Path) -> None:
    source = next(p for p in FILES if p.name.startswith("cubes-"))
    data = json.loads(source.read_text())
    del data["check"]["markers"]
    path = tmp_path / source.name
    path.write_text(json.dumps(data))
    for name in (data["image"], data["check"]["image"]):
        (tmp_path / name).write_bytes((SAMPLE / name).read_bytes())
    check = truth.load(path).check
    assert check is not None and check.markers == () and len(check.dice) == 4


def test_a_check_frame_in_the_wrong_order_is_caught() -> None:
    for scene in _cubes():
        assert scene.check is not None
        names = {"red": "black", "black": "red", "yellow": "yellow", "blue": "blue"}
        dice = tuple(replace(d, color=names[d.color or "red"]) for d in scene.check.dice)
        assert check_problems(replace(scene.check, dice=dice))


def test_tessons_show_their_side_and_lie_in_their_seat() -> None:
    for scene in _tessons():
        assert scene.seats is not None
        assert tesson_problems(scene, scene.tessons) == [], scene.path.name
        seated = [t for t in scene.tessons if t.seat is not None]
        assert seated


def test_tessons_turned_over_or_given_to_the_next_seat_are_caught() -> None:
    for scene in _tessons():
        turned = tuple(
            replace(t, side="black" if t.side == "white" else "white") for t in scene.tessons
        )
        assert tesson_problems(scene, turned), scene.path.name
        assert scene.seats is not None
        moved = tuple(replace(t, seat=(t.seat + 1) % scene.seats.seats) for t in scene.tessons)
        assert tesson_problems(scene, moved), scene.path.name
