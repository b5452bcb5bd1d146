"""``companion vision``: dice, tessons, markers, calibrate and snap from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from test_vision_calibration import AREA, MARKER, VIEWS, flat_table, photograph

from appliance.cli import main
from vision.calibration import Calibration
from vision.readings import DieReading
from vision.synthetic import tesson_scene, wild_tesson_knobs


def run_vision(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main(["vision", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def cubes_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vision.synthetic import cube_scene

    path = tmp_path_factory.mktemp("cubes") / "throw.png"
    assert cv2.imwrite(str(path), cube_scene(5, count=8).image)
    return path


@pytest.fixture(scope="module")
def markers_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("markers") / "table.png"
    assert cv2.imwrite(str(path), photograph(flat_table(), VIEWS["tilted"])[0])
    return path


def half_mm_calibration(path: Path) -> Path:
    """A calibration where every pixel is half a millimetre, offset by (10, 20) mm."""
    homography = np.array([[0.5, 0, 10], [0, 0.5, 20], [0, 0, 1]], dtype=np.float64)
    Calibration(homography, (640.0, 360.0), 40.0, (1280, 720)).save(path)
    return path


# --- dice ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reader", "module", "function"),
    [("learned", "cube_net", "read_cubes_net"), ("hand-tuned", "cubes", "read_cubes")],
)
def test_dice_json_lists_every_reading_in_pixels(
    capsys: pytest.CaptureFixture[str], cubes_photo: Path, reader: str, module: str, function: str
) -> None:
    import importlib

    read = getattr(importlib.import_module(f"vision.{module}"), function)
    args = ("dice", cubes_photo, "--kind", "cubes", "--json")
    status, out, _ = run_vision(
        capsys, *args, *(["--reader", reader] if reader != "learned" else [])
    )
    assert status == 0
    data = json.loads(out)
    expected = [r.to_json() for r in read(cv2.imread(str(cubes_photo)))]
    assert data == {"units": "px", "dice": expected}
    assert len(expected) == 8, "the synthetic throw shows 8 cubes"
    assert set(data["dice"][0]) >= {"x", "y", "size", "angle", "color", "hole", "confidence"}


def test_the_colour_check_is_for_the_hand_tuned_reader(
    capsys: pytest.CaptureFixture[str], cubes_photo: Path, tmp_path: Path
) -> None:
    args = ("dice", cubes_photo, "--kind", "cubes", "--colors", tmp_path / "colors.json")
    status, out, err = run_vision(capsys, *args)
    assert status == 2 and out == ""
    assert "add --reader hand-tuned" in err


def test_dice_with_a_calibration_are_in_millimetres(
    capsys: pytest.CaptureFixture[str], cubes_photo: Path, tmp_path: Path
) -> None:
    calibration = half_mm_calibration(tmp_path / "calibration.json")
    _, pixels, _ = run_vision(capsys, "dice", cubes_photo, "--kind", "cubes", "--json")
    status, mm, _ = run_vision(
        capsys, "dice", cubes_photo, "--kind", "cubes", "--json", "--calibration", calibration
    )
    assert status == 0
    data = json.loads(mm)
    assert data["units"] == "mm"
    for p, m in zip(json.loads(pixels)["dice"], data["dice"], strict=True):
        assert m["x"] == pytest.approx(p["x"] / 2 + 10, abs=0.02)
        assert m["y"] == pytest.approx(p["y"] / 2 + 20, abs=0.02)
        assert m["size"] == pytest.approx(p["size"] / 2, abs=0.02)
        assert m["color"] == p["color"]


def test_cubes_for_the_referee_feed_companion_oraklos_predictions(
    capsys: pytest.CaptureFixture[str], cubes_photo: Path, tmp_path: Path
) -> None:
    status, out, _ = run_vision(capsys, "dice", cubes_photo, "--kind", "cubes", "--for-referee")
    assert status == 0
    dice = json.loads(out)
    assert set(dice) == {"dice"}
    assert all(set(d) == {"x", "y", "size", "angle", "color", "hole"} for d in dice["dice"])
    throw = tmp_path / "throw.json"
    throw.write_text(out, encoding="utf-8")
    referee = subprocess.run(
        [sys.executable, "-m", "appliance.cli", "oraklos", "predictions", str(throw), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert referee.returncode == 0, referee.stderr
    assert isinstance(json.loads(referee.stdout)["predictions"], list)


def test_the_full_json_is_refused_by_the_referee_which_is_why_for_referee_exists(
    capsys: pytest.CaptureFixture[str], cubes_photo: Path, tmp_path: Path
) -> None:
    _, out, _ = run_vision(capsys, "dice", cubes_photo, "--kind", "cubes", "--json")
    throw = tmp_path / "full.json"
    throw.write_text(out, encoding="utf-8")
    status, _, err = vision_oraklos(capsys, "predictions", throw)
    assert status == 2
    assert "unknown field 'flagged'" in err


def vision_oraklos(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main(["oraklos", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_for_referee_names_the_dice_to_confirm_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import vision.cube_net

    unsure = [
        DieReading(10, 20, 30, 0, confidence=0.95, color="red", hole=False),
        DieReading(50, 60, 30, 10, confidence=0.3, color="blue", hole=True),
    ]
    monkeypatch.setattr(vision.cube_net, "read_cubes_net", lambda image: unsure)
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), np.zeros((100, 100, 3), np.uint8))
    status, out, err = run_vision(capsys, "dice", photo, "--kind", "cubes", "--for-referee")
    assert status == 0
    assert len(json.loads(out)["dice"]) == 2
    assert "die 1 at (50, 60) is uncertain (confidence 0.30)" in err
    assert "die 0" not in err


def test_the_listing_shows_what_each_die_shows_and_which_to_confirm(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import vision.pips

    readings = [
        DieReading(10, 20, 30, 5, confidence=0.9, value=4),
        DieReading(80, 20, 30, 5, confidence=0.2, value=6),
    ]
    monkeypatch.setattr(vision.pips, "read_pips", lambda image: readings, raising=False)
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), np.zeros((100, 100, 3), np.uint8))
    status, out, _ = run_vision(capsys, "dice", photo, "--kind", "pips")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "2 dice (positions in pixels)"
    assert "value 4 at (10.0, 20.0)" in lines[1] and "CONFIRM" not in lines[1]
    assert "value 6" in lines[2] and lines[2].endswith("CONFIRM")


def pip_dice_photo(path: Path) -> Path:
    """Six flat white dice showing 1 to 6 on green felt."""
    image = np.full((720, 1280, 3), (45, 100, 45), np.uint8)
    spots = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    }
    for value, dots in spots.items():
        x, y = 50 + 150 * value, 360
        cv2.rectangle(image, (x - 30, y - 30), (x + 30, y + 30), (235, 235, 235), -1)
        for dx, dy in dots:
            cv2.circle(image, (x + 15 * dx, y + 15 * dy), 6, (20, 20, 20), -1, cv2.LINE_AA)
    assert cv2.imwrite(str(path), image)
    return path


def test_pips_are_read_by_vision_pips(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from vision.pips import annotate_pips, read_pips

    photo = pip_dice_photo(tmp_path / "pips.png")
    drawn = tmp_path / "drawn.png"
    status, out, err = run_vision(
        capsys, "dice", photo, "--kind", "pips", "--json", "--annotate", drawn
    )
    assert status == 0, err
    readings = read_pips(cv2.imread(str(photo)))
    assert readings, "the reader sees the dice"
    assert json.loads(out) == {"units": "px", "dice": [r.to_json() for r in readings]}
    assert all("value" in d for d in json.loads(out)["dice"])
    expected = annotate_pips(cv2.imread(str(photo)), readings)
    assert np.array_equal(cv2.imread(str(drawn)), expected)


def test_annotate_writes_the_picture(
    capsys: pytest.CaptureFixture[str], cubes_photo: Path, tmp_path: Path
) -> None:
    out_png = tmp_path / "annotated.png"
    status, _, _ = run_vision(capsys, "dice", cubes_photo, "--kind", "cubes", "--annotate", out_png)
    assert status == 0
    annotated, original = cv2.imread(str(out_png)), cv2.imread(str(cubes_photo))
    assert annotated.shape == original.shape
    assert not np.array_equal(annotated, original), "the readings are drawn on it"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["dice", "{missing}", "--kind", "cubes"], "no such image file"),
        (["dice", "{text}", "--kind", "cubes"], "not an image OpenCV can read"),
        (["dice", "{photo}", "--kind", "cubes", "--calibration", "{text}"], "is not JSON"),
        (["dice", "{photo}", "--kind", "cubes", "--calibration", "{missing}"], "cannot read"),
        (["dice", "{photo}", "--kind", "pips", "--for-referee"], "--for-referee is for --kind"),
        (
            ["dice", "{photo}", "--kind", "cubes", "--calibration", "{calibration}"],
            "calibrate again at this resolution",
        ),
        (["tessons", "{photo}", "--seats", "{text}"], "not JSON"),
        (["tessons", "{missing}"], "no such image file"),
        (["tessons", "{photo}", "--expect", "0,2"], "--expect needs --seats"),
        (["calibrate", "{photo}", "--area-mm", "600", "400", "-o", "{out}"], "markers not found"),
        (["markers", "{out}", "--size-mm", "200"], "from 15 to 80 mm"),
        (["markers", "{dir}/m.svg"], ".pdf or .png"),
        (["snap", "{out}", "--source", "device:9"], "no camera at device:9"),
        (["snap", "{out}", "--source", "{missing}"], "no such file or folder"),
    ],
)
def test_what_cannot_be_used_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    names: dict[str, Any] = {
        "missing": tmp_path / "nowhere.png",
        "text": tmp_path / "notes.txt",
        "photo": tmp_path / "small.png",
        "calibration": half_mm_calibration(tmp_path / "calibration.json"),
        "out": tmp_path / "out.png",
        "dir": tmp_path,
    }
    names["text"].write_text("{ this is not an image, nor JSON")
    cv2.imwrite(str(names["photo"]), np.full((240, 320, 3), 128, np.uint8))
    status, out, err = run_vision(capsys, *[a.format(**names) for a in args])
    assert status == 2
    assert out == ""
    assert err.startswith(f"companion vision {args[0]}: ")
    assert message in err
    assert "Traceback" not in err


def test_tessons_json_goes_through_vision_tessons(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    seats = tmp_path / "seats.json"
    seats.write_text(json.dumps({"centre": [640, 360], "starts": [0, 120, 240]}))
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((720, 1280, 3), (40, 90, 40), np.uint8))
    status, out, err = run_vision(capsys, "tessons", photo, "--seats", seats, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["units"] == "px"
    assert isinstance(data["tessons"], list)


@pytest.mark.parametrize("reader", [[], ["--reader", "hand-tuned"]], ids=["learned", "hand-tuned"])
def test_tessons_are_read_with_their_seats_by_either_reader(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reader: list[str]
) -> None:
    scene = tesson_scene(5, seats=6)
    assert scene.seats is not None
    seats, photo = tmp_path / "seats.json", tmp_path / "votes.png"
    scene.seats.save(seats)
    cv2.imwrite(str(photo), scene.image)
    status, out, err = run_vision(capsys, "tessons", photo, "--seats", seats, "--json", *reader)
    assert status == 0, err
    read = {(t["seat"], t["side"]) for t in json.loads(out)["tessons"] if not t["flagged"]}
    assert read == {(t.seat, t.side) for t in scene.tessons}


def test_a_seat_expected_to_reveal_gets_its_faint_tesson_flagged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a generated validation table where seat 0's shard is too faint for the reader to be sure
    scene = tesson_scene(49_938, 7, **wild_tesson_knobs(49_938))
    assert scene.seats is not None
    seats, photo = tmp_path / "seats.json", tmp_path / "votes.png"
    scene.seats.save(seats)
    cv2.imwrite(str(photo), scene.image)
    args = ("tessons", photo, "--seats", seats, "--json")

    def seat_0(*more: str) -> list[dict[str, Any]]:
        status, out, err = run_vision(capsys, *args, *more)
        assert status == 0, err
        return [t for t in json.loads(out)["tessons"] if t["seat"] == 0]

    assert seat_0() == []
    assert seat_0("--expect", "1,2") == []
    (faint,) = seat_0("--expect", "0,1,2,3,4,5,6")
    assert faint["flagged"] and faint["side"] == "black"


# --- markers and calibration -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["markers.pdf", "markers.png"])
def test_markers_writes_the_sheet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    status, out, _ = run_vision(capsys, "markers", tmp_path / name, "--size-mm", "50")
    assert status == 0
    assert (tmp_path / name).stat().st_size > 1000
    assert "50 mm" in out and "print at 100 %" in out


def test_calibrate_writes_a_calibration_the_dice_command_reads(
    capsys: pytest.CaptureFixture[str], markers_photo: Path, tmp_path: Path
) -> None:
    output, drawn = tmp_path / "calibration.json", tmp_path / "grid.png"
    status, out, err = run_vision(
        capsys,
        "calibrate",
        markers_photo,
        "--area-mm",
        str(AREA[0]),
        str(AREA[1]),
        "--marker-mm",
        str(MARKER),
        "-o",
        output,
        "--annotate",
        drawn,
    )
    assert status == 0, err
    assert "found the 4 markers: 600×400 mm play area" in out
    calibration = Calibration.load(output)
    assert calibration.area_mm == AREA
    x, y = calibration.to_table(*calibration.to_image(123.0, 321.0))
    assert (x, y) == pytest.approx((123.0, 321.0), abs=1e-6)
    assert cv2.imread(str(drawn)).shape == (720, 1280, 3)


# --- snap ------------------------------------------------------------------------------------


def test_snap_saves_a_frame_from_the_configured_source(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "1.png"), np.full((90, 160, 3), 77, np.uint8))
    config = tmp_path / "c.toml"
    config.write_text('[camera]\nsource = "frames"\nsettle_frames = 3\n')
    out_png = tmp_path / "snap.png"
    status, out, err = run_vision(capsys, "snap", out_png, "--config", config, "--settled")
    assert status == 0, err
    assert int(cv2.imread(str(out_png))[0, 0, 0]) == 77
    assert "160×90" in out


def test_snap_gives_up_when_the_scene_never_keeps_still(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for i in range(4):
        image = np.zeros((90, 160, 3), np.uint8)
        cv2.circle(image, (20 + 35 * i, 45), 15, (255, 255, 255), -1)
        cv2.imwrite(str(tmp_path / f"{i}.png"), image)
    status, _, err = run_vision(
        capsys, "snap", tmp_path / "o.png", "--source", tmp_path, "--settled", "--max-frames", "20"
    )
    assert status == 2
    assert "never kept still" in err


def test_companion_help_lists_vision_without_importing_opencv() -> None:
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import contextlib, io, sys\n"
            "import appliance.cli\n"
            "o = io.StringIO()\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(o):\n"
            "    appliance.cli.main(['--help'])\n"
            "print('vision' in o.getvalue(), 'cv2' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.stdout.split() == ["True", "False"], probe.stderr
