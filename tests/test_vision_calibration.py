"""Table calibration: printed ArUco markers, pixels → millimetres, and back."""

from __future__ import annotations

import math
import re
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.calibration import (
    CORNER_IDS,
    Calibration,
    CalibrationError,
    MarkersNotFound,
    calibrate,
    detect_markers,
    marker_image,
    marker_sheet,
    marker_table_corners,
)
from vision.readings import DieReading

AREA = (600.0, 400.0)
MARKER = 40.0
PX_PER_MM = 2.0
PAD = 60  # pixels of table around the play area in the flat rendering


def flat_table(
    ids: tuple[int, ...] = CORNER_IDS,
    area: tuple[float, float] = AREA,
    swap: dict[int, int] | None = None,
) -> np.ndarray:
    """The table seen straight from above at PX_PER_MM, markers on white paper in the corners.

    A point (x, y) mm lies at pixel (PAD + x * PX_PER_MM - 0.5, ...) (pixel centres)."""
    height, width = round(area[1] * PX_PER_MM) + 2 * PAD, round(area[0] * PX_PER_MM) + 2 * PAD
    table = np.zeros((height, width, 3), np.uint8)
    table[:] = (50, 105, 45)  # green felt
    side = round(MARKER * PX_PER_MM)
    for corner in ids:
        printed = (swap or {}).get(corner, corner)
        picture = marker_image(printed, side)
        quiet = (picture.shape[0] - side) // 2
        left, top = marker_table_corners(corner, area, MARKER)[0]
        x0, y0 = round(PAD + left * PX_PER_MM) - quiet, round(PAD + top * PX_PER_MM) - quiet
        table[y0 : y0 + picture.shape[0], x0 : x0 + picture.shape[1]] = picture[..., None]
    return table


def photograph(table: np.ndarray, corners: list[list[float]]) -> tuple[np.ndarray, np.ndarray]:
    """The flat table as a tilted camera sees it: its corners land on ``corners``."""
    h, w = table.shape[:2]
    source = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    homography = cv2.getPerspectiveTransform(source, np.float32(corners))
    image = cv2.warpPerspective(
        table, homography, (1280, 720), flags=cv2.INTER_AREA, borderValue=(35, 30, 30)
    )
    return image, homography


def table_to_photo(homography: np.ndarray, x: float, y: float) -> tuple[float, float]:
    point = np.array([[[PAD + x * PX_PER_MM - 0.5, PAD + y * PX_PER_MM - 0.5]]])
    mapped = cv2.perspectiveTransform(point, homography)[0, 0]
    return float(mapped[0]), float(mapped[1])


VIEWS = {
    "tilted": [[200, 90], [1130, 60], [1200, 690], [120, 650]],
    "turned and tilted": [[300, 40], [1100, 200], [900, 700], [100, 500]],
    "small and far": [[420, 200], [860, 210], [850, 510], [430, 500]],
}


@pytest.mark.parametrize("view", VIEWS)
def test_points_of_the_table_map_back_within_half_a_millimetre(view: str) -> None:
    image, homography = photograph(flat_table(), VIEWS[view])
    calibration = calibrate(image, AREA, MARKER)
    rng = np.random.default_rng(7)
    worst = 0.0
    for x, y in rng.uniform((0, 0), AREA, size=(100, 2)):
        px, py = table_to_photo(homography, x, y)
        tx, ty = calibration.to_table(px, py)
        worst = max(worst, math.dist((tx, ty), (x, y)))
    assert worst < 0.5
    assert calibration.error_mm < 1.0
    assert calibration.image_size == (1280, 720)


def test_to_image_is_the_inverse_of_to_table() -> None:
    image, homography = photograph(flat_table(), VIEWS["tilted"])
    calibration = calibrate(image, AREA, MARKER)
    px, py = calibration.to_image(300, 200)
    assert math.dist((px, py), table_to_photo(homography, 300, 200)) < 1.0
    assert math.dist(calibration.to_table(px, py), (300, 200)) < 1e-6


def test_a_die_reading_is_converted_to_millimetres() -> None:
    image, homography = photograph(flat_table(), VIEWS["turned and tilted"])
    calibration = calibrate(image, AREA, MARKER)
    # A 16 mm die at (150, 250) mm turned by 30° on the table: its corners in the photo.
    centre, side, turn = np.array([150.0, 250.0]), 16.0, math.radians(30)
    u = np.array([math.cos(turn), math.sin(turn)]) * side / 2
    v = np.array([-u[1], u[0]])
    square = [centre - u - v, centre + u - v, centre + u + v, centre - u + v]
    corners = np.array([table_to_photo(homography, *p) for p in square], np.float32)
    cx, cy = table_to_photo(homography, *centre)
    edge = corners[1] - corners[0]
    pixel_angle = math.degrees(math.atan2(edge[1], edge[0]))
    pixel_side = math.sqrt(cv2.contourArea(corners))  # as a reader sees its top face
    reading = DieReading(cx, cy, pixel_side, pixel_angle, confidence=0.9, color="red", hole=True)
    mapped = calibration.map_reading(reading)
    assert math.dist((mapped.x, mapped.y), (150, 250)) < 0.5
    assert mapped.size == pytest.approx(16, abs=0.5)
    assert (mapped.angle - 30 + 45) % 90 - 45 == pytest.approx(0, abs=1.5)
    assert abs(mapped.angle - pixel_angle) <= 45, "the nearest equivalent angle is kept"
    assert (mapped.color, mapped.hole, mapped.confidence) == ("red", True, 0.9)


def test_a_missing_marker_is_named() -> None:
    image, _ = photograph(flat_table(ids=(0, 1, 3)), VIEWS["tilted"])
    with pytest.raises(MarkersNotFound) as caught:
        calibrate(image, AREA, MARKER)
    assert caught.value.found == (0, 1, 3)
    assert "markers not found (found ids 0, 1, 3; missing 2 (bottom-right)" in str(caught.value)


def test_a_photo_without_markers_says_none_were_found() -> None:
    empty = np.full((720, 1280, 3), 90, np.uint8)
    with pytest.raises(MarkersNotFound, match="found ids none"):
        calibrate(empty, AREA, MARKER)


def test_markers_in_the_wrong_corners_are_refused() -> None:
    table = flat_table(swap={1: 2, 2: 1})
    image, _ = photograph(table, VIEWS["tilted"])
    with pytest.raises(CalibrationError, match="upright in its own corner"):
        calibrate(image, AREA, MARKER)


def test_a_wrong_area_size_is_refused() -> None:
    image, _ = photograph(flat_table(), VIEWS["tilted"])
    with pytest.raises(CalibrationError, match="do not line up with a 500×400 mm area"):
        calibrate(image, (500, 400), MARKER)


def test_json_round_trip(tmp_path: Path) -> None:
    image, _ = photograph(flat_table(), VIEWS["tilted"])
    calibration = calibrate(image, AREA, MARKER)
    path = tmp_path / "calibration.json"
    calibration.save(path)
    loaded = Calibration.load(path)
    assert np.allclose(loaded.homography, calibration.homography)
    assert (loaded.area_mm, loaded.marker_mm, loaded.image_size) == (AREA, MARKER, (1280, 720))
    assert loaded.to_table(640, 360) == pytest.approx(calibration.to_table(640, 360))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not JSON (line 1, column 2"),
        ('{"dice": []}', "not a calibration file: make one with `companion vision calibrate`"),
        (
            '{"format": "tabletop-companion calibration", "version": 1, "area_mm": [1, 1], '
            '"marker_mm": 1, "image_size": [1, 1], "homography": [[1, 0], [0, 1]]}',
            "not an invertible 3×3 matrix",
        ),
        (
            '{"format": "tabletop-companion calibration", "version": 1}',
            "the calibration lacks 'homography'",
        ),
    ],
)
def test_a_damaged_calibration_file_says_what_is_wrong(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(CalibrationError) as caught:
        Calibration.load(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_frame_of_another_size_is_refused() -> None:
    image, _ = photograph(flat_table(), VIEWS["tilted"])
    calibration = calibrate(image, AREA, MARKER)
    with pytest.raises(CalibrationError, match="calibrate again at this resolution"):
        calibration.check_frame(np.zeros((480, 640, 3), np.uint8))


def test_the_png_sheet_holds_the_four_markers_at_true_size_for_its_dpi(tmp_path: Path) -> None:
    path = marker_sheet(tmp_path / "markers.png", 40, dpi=300)
    page = cv2.imread(str(path))
    assert page.shape[:2] == (round(297 / 25.4 * 300), round(210 / 25.4 * 300))
    found = detect_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    side_px = np.linalg.norm(found[0][1] - found[0][0])
    assert side_px / 300 * 25.4 == pytest.approx(40, abs=0.3)


def pdf_rectangles(data: bytes) -> tuple[list[float], list[tuple[float, ...]], list[str]]:
    """MediaBox, the filled rectangles and the other operators of our one-page PDF."""
    media = [float(v) for v in re.search(rb"/MediaBox \[([\d. ]+)\]", data).group(1).split()]  # type: ignore[union-attr]
    stream = re.search(rb"stream\n(.*)\nendstream", data, re.S).group(1)  # type: ignore[union-attr]
    ops = zlib.decompress(stream).decode("latin-1").splitlines()
    filled = [tuple(float(v) for v in op.split()[:4]) for op in ops if op.endswith("re f")]
    return media, filled, ops


def test_the_pdf_sheet_is_a4_with_markers_at_true_size(tmp_path: Path) -> None:
    data = marker_sheet(tmp_path / "markers.pdf", 40).read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref = int(data.rsplit(b"startxref\n", 1)[1].split()[0])
    assert data[xref:].startswith(b"xref\n0 6\n")
    offsets = [int(row[:10]) for row in data[xref:].split(b"\n")[3:8]]
    for number, offset in enumerate(offsets, start=1):
        assert data[offset:].startswith(f"{number} 0 obj".encode()), "readers seek objects here"
    media, filled, ops = pdf_rectangles(data)
    assert media[2] == pytest.approx(210 / 25.4 * 72, abs=0.01)
    assert media[3] == pytest.approx(297 / 25.4 * 72, abs=0.01)
    assert any("re S" in op for op in ops), "dashed cut lines"
    # Draw the filled rectangles (2 px a point) and let OpenCV find the markers in them.
    scale = 2
    page = np.full((round(media[3] * scale), round(media[2] * scale)), 255, np.uint8)
    for x, y, w, h in filled:
        top = media[3] - y - h
        page[
            round(top * scale) : round((top + h) * scale), round(x * scale) : round((x + w) * scale)
        ] = 0
    found = detect_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    side_mm = np.linalg.norm(found[2][1] - found[2][0]) / scale / 72 * 25.4
    assert side_mm == pytest.approx(40, abs=0.3)


def test_a_marker_too_big_for_a4_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="from 15 to 80 mm"):
        marker_sheet(tmp_path / "m.pdf", 120)


def test_the_sheet_is_written_as_pdf_or_png_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.pdf or \.png"):
        marker_sheet(tmp_path / "m.svg")
