"""The colour check: before a game the host lays the printed card with one cube of each colour in
its box; the camera learns what this table's red, yellow, blue and black look like, and the cube
reader uses that for the game. Measured on generated check frames (``color_check_scene``: the
same table, light and camera as the throw ``cube_scene`` makes with the same seed and knobs)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_vision_cli import run_vision

from appliance.wiring import cube_reader
from benchmarks.vision_scenes import evaluate_cubes
from companion.config import CameraConfig
from vision import synthetic
from vision.calibration import CHECK_MARKER, detect_markers
from vision.color_check import ColorCheck, ColorCheckError, check_card, read_color_check
from vision.cube_net import read_cubes_net
from vision.cubes import DEFAULT_PALETTE, read_cubes
from vision.synthetic import color_check_scene, cube_scene
from vision.white_balance import white_from_markers

WARM_FADED = {
    "kelvin": 2700,
    "plastic": "faded",
    "light": "uneven",
    "shadows": True,
    "noise": 2.0,
    "markers": True,
}
TABLES = {
    "warm bulb, faded plastics": WARM_FADED,
    "daylight, glossy, white-balance error": {
        "kelvin": 6500,
        "white_balance": 0.15,
        "finish": "glossy",
        "noise": 2.0,
    },
    "dim room, wood": {"table": "wood", "exposure": 0.45, "noise": 2.0},
    "game mat, camera at 0.8 m": {"table": "mat", "camera_height": 800, "noise": 2.0},
}


def test_the_printed_card_carries_its_marker_and_four_labelled_boxes(tmp_path: Path) -> None:
    png = check_card(tmp_path / "card.png", dpi=150)
    page = cv2.imread(str(png))
    assert set(detect_markers(page)) == {CHECK_MARKER}
    pdf = check_card(tmp_path / "card.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    with pytest.raises(ValueError, match=r"\.pdf or \.png"):
        check_card(tmp_path / "card.svg")


@pytest.mark.parametrize("table", TABLES)
def test_the_check_finds_each_colour_in_its_box_on_any_table(table: str) -> None:
    check = read_color_check(color_check_scene(3, **TABLES[table]).image)
    faces = check.faces
    assert faces["red"].hue < faces["yellow"].hue < faces["blue"].hue
    assert faces["black"].sat < min(faces[c].sat for c in ("red", "yellow", "blue"))
    palette = check.palette()  # its classes never overlap (Palette refuses that)
    for color in ("red", "yellow", "blue"):
        low, high = palette.hues[color]
        assert low <= faces[color].hue <= high


def test_faded_plastics_under_a_warm_bulb_are_read_right_once_the_table_is_checked() -> None:
    scenes, as_seen, checked = [], [], []
    for seed in range(40, 44):
        scene = cube_scene(seed, **WARM_FADED)
        scenes.append(scene)
        white = white_from_markers(scene.image, scene.markers)
        assert white is not None, "the markers' paper is seen"
        palette = read_color_check(color_check_scene(seed, **WARM_FADED).image)
        as_seen.append(read_cubes(scene.image))
        checked.append(read_cubes(white.apply(scene.image), palette=palette.palette()))
    before, after = evaluate_cubes(scenes, as_seen), evaluate_cubes(scenes, checked)
    assert before.right_kind / before.matched < 0.8, "the usual colours fail here"
    assert after.matched / after.truth >= 0.93
    assert after.right_kind == after.matched, "every die found has its colour right"
    assert after.silent == 0


def test_a_frame_without_the_card_says_to_lay_it() -> None:
    with pytest.raises(ColorCheckError, match="colour check card is not seen"):
        read_color_check(cube_scene(3, markers=True).image)


def test_cubes_in_the_wrong_boxes_are_refused_naming_the_box(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(synthetic, "COLORS", ("blue", "yellow", "red", "black"))
    frame = color_check_scene(5, noise=2.0).image
    with pytest.raises(ColorCheckError, match="the cube in the red box does not look red"):
        read_color_check(frame)


def test_an_empty_box_is_named() -> None:
    scene = color_check_scene(5, noise=2.0)
    frame = scene.image.copy()
    yellow, blue = scene.dice[1], scene.dice[2]
    gap = (round((yellow.x + blue.x) / 2), round((yellow.y + blue.y) / 2))  # paper between boxes
    paper = frame[gap[1], gap[0]].copy()
    half = round(1.4 * blue.size)
    x, y = round(blue.x), round(blue.y)
    frame[y - half : y + half, x - half : x + half] = paper  # the blue cube taken away
    with pytest.raises(ColorCheckError, match="no cube is seen in the blue box"):
        read_color_check(frame)


def test_a_check_is_saved_and_loaded_and_a_damaged_one_says_what_is_wrong(
    tmp_path: Path,
) -> None:
    check = read_color_check(color_check_scene(3, noise=2.0).image)
    path = tmp_path / "colors.json"
    check.save(path)
    again = ColorCheck.load(path)
    assert again.palette() == ColorCheck.from_json(check.to_json()).palette()
    data = json.loads(path.read_text())
    del data["faces"]["blue"]
    path.write_text(json.dumps(data))
    with pytest.raises(ColorCheckError, match="red, yellow, blue and black"):
        ColorCheck.load(path)
    path.write_text("{")
    with pytest.raises(ColorCheckError, match="is not JSON"):
        ColorCheck.load(path)


def test_the_companion_reads_with_the_checked_colours_or_the_usual_ones(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "colors.json"
    read_color_check(color_check_scene(40, **WARM_FADED).image).save(path)
    reader = cube_reader(CameraConfig(colors=path, cubes="hand-tuned"))
    assert reader.keywords["palette"] != DEFAULT_PALETTE  # type: ignore[attr-defined]
    assert cube_reader(CameraConfig(cubes="hand-tuned")) is read_cubes
    path.write_text("not a check")
    assert cube_reader(CameraConfig(colors=path, cubes="hand-tuned")) is read_cubes  # logged
    learned = cube_reader(CameraConfig())  # the learned reader by default, with its candidates
    assert learned.func is read_cubes_net  # type: ignore[attr-defined]
    assert learned.keywords == {"candidates": True}  # type: ignore[attr-defined]
    assert cube_reader(CameraConfig(colors=path)).func is read_cubes_net  # type: ignore[attr-defined]
    assert "colors is read by the hand-tuned cube reader only" in caplog.text


def test_the_command_line_prints_the_card_learns_the_colours_and_reads_with_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = run_vision(capsys, "check-card", tmp_path / "card.pdf")
    assert status == 0 and "cut it out" in out
    check_photo = tmp_path / "check.png"
    assert cv2.imwrite(str(check_photo), color_check_scene(41, **WARM_FADED).image)
    status, out, _ = run_vision(capsys, "colors", check_photo, "-o", tmp_path / "colors.json")
    assert status == 0 and "found the four cubes" in out
    throw = tmp_path / "throw.png"
    scene = cube_scene(41, **WARM_FADED)
    assert cv2.imwrite(str(throw), scene.image)
    args = ("dice", throw, "--kind", "cubes", "--json", "--reader", "hand-tuned")
    status, out, _ = run_vision(capsys, *args, "--colors", tmp_path / "colors.json")
    assert status == 0
    read = json.loads(out)["dice"]
    truth = {(round(d.x), round(d.y)): d.color for d in scene.dice}
    right = sum(
        1
        for r in read
        for (x, y), color in truth.items()
        if np.hypot(r["x"] - x, r["y"] - y) < 10 and r["color"] == color
    )
    assert right >= 0.9 * len(truth)
    status, _, err = run_vision(capsys, "colors", throw, "-o", tmp_path / "again.json")
    assert status == 2 and "colour check card is not seen" in err
