"""Table calibration: four ArUco markers at the play area's corners give pixels → millimetres.

Markers come from OpenCV's own ``cv2.aruco`` (dictionary ``DICT_4X4_50``): ids 0, 1, 2, 3 lie
in the top-left, top-right, bottom-right and bottom-left corners of the play area, upright (the
top of each marker towards the top edge of the area), each with its black square's *outer*
corner on the area's corner. The area's size is measured between those outer corners. All
sixteen marker corners feed a least-squares homography, and its residual is checked, so a
wrong size, a marker turned round or a marker in the wrong corner is refused instead of
quietly bending every reading.

Table coordinates are millimetres from the top-left corner, x right, y down (towards the
bottom markers), like the image's. Without a calibration the readers simply work in pixels.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.json_file import read_json
from vision.arrays import Image, Matrix, Points, f64, u8
from vision.readings import DieReading, TessonReading

DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_IDS = (0, 1, 2, 3)
CHECK_MARKER = 4
"""The marker of the colour check card (``vision.color_check``), on white paper too."""
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
MODULES = 6  # 4×4 data bits and a one-module black border
DEFAULT_MARKER_MM = 40.0
A4_MM = (210.0, 297.0)
MAX_ERROR_MM = 3.0
FORMAT = "tabletop-companion calibration"


class CalibrationError(ValueError):
    """A calibration that cannot be made or loaded; the message says what to fix."""


class MarkersNotFound(CalibrationError):
    """Fewer than the four corner markers are visible."""

    def __init__(self, found: Sequence[int]) -> None:
        self.found = tuple(sorted(found))
        missing = [i for i in CORNER_IDS if i not in self.found]
        seen = ", ".join(map(str, self.found)) or "none"
        where = ", ".join(f"{i} ({CORNER_NAMES[i]})" for i in missing)
        super().__init__(
            f"markers not found (found ids {seen}; missing {where}): put the four markers of "
            "`companion vision markers` at the play area's corners, in view and well lit"
        )


def dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_modules(marker_id: int) -> Image:
    """The marker as a 6×6 array of modules, 1 = black, border included."""
    if not 0 <= marker_id < 50:
        raise ValueError(f"marker id {marker_id}: DICT_4X4_50 has ids 0 to 49")
    image = cv2.aruco.generateImageMarker(dictionary(), marker_id, MODULES, borderBits=1)
    return (image < 128).astype(np.uint8)


def marker_image(marker_id: int, side_px: int, quiet_px: int | None = None) -> Image:
    """A marker as a grey image ``side_px`` wide, in a white quiet zone (default one module)."""
    if side_px < MODULES:
        raise ValueError(f"a marker needs at least {MODULES} pixels a side")
    quiet = side_px // MODULES if quiet_px is None else quiet_px
    marker = cv2.aruco.generateImageMarker(dictionary(), marker_id, side_px, borderBits=1)
    return u8(
        cv2.copyMakeBorder(marker, quiet, quiet, quiet, quiet, cv2.BORDER_CONSTANT, value=255)
    )


# --- the printable sheet ---------------------------------------------------------------------


@dataclass(frozen=True)
class Sheet:
    """The A4 sheet's drawing in millimetres from the page's top-left corner."""

    squares: list[tuple[float, float, float]] = field(default_factory=list)  # x, y, side: black
    cuts: list[tuple[float, float, float, float]] = field(default_factory=list)  # dashed boxes
    texts: list[tuple[float, float, float, str]] = field(default_factory=list)  # x, y, pt, text


def _sheet(marker_mm: float) -> Sheet:
    if not 15 <= marker_mm <= 80:
        raise ValueError(
            f"marker size {marker_mm:g} mm: four markers fit an A4 sheet from 15 to 80 mm"
        )
    margin = max(marker_mm / MODULES, 5.0)  # white quiet zone, at least one module
    box = marker_mm + 2 * margin
    gap_x = (A4_MM[0] - 2 * box) / 3
    gap_y = (A4_MM[1] - 2 * box - 30) / 3
    sheet = Sheet()
    sheet.texts.append(
        (
            15,
            14,
            11,
            f"Tabletop companion - table markers (ArUco 4x4_50), {marker_mm:g} mm: "
            "print at 100 % (no scaling)",
        )
    )
    sheet.texts.append(
        (
            15,
            20,
            9,
            "Cut on the dashed lines. Lay each marker upright in its corner of the play area, "
            "black corner on the area's corner.",
        )
    )
    module = marker_mm / MODULES
    for marker_id in CORNER_IDS:
        col, row = (0, 1, 1, 0)[marker_id], (0, 0, 1, 1)[marker_id]
        left = gap_x + col * (box + gap_x)
        top = 30 + gap_y + row * (box + gap_y)
        sheet.cuts.append((left, top, box, box))
        bits = marker_modules(marker_id)
        x0, y0 = left + margin, top + margin
        for r in range(MODULES):
            for c in range(MODULES):
                if bits[r, c]:
                    sheet.squares.append((x0 + c * module, y0 + r * module, module))
        label = f"{marker_id}: {CORNER_NAMES[marker_id]} corner - this side up"
        sheet.texts.append((left, top + box + 6, 9, label))
    return sheet


def marker_sheet(path: Path | str, marker_mm: float = DEFAULT_MARKER_MM, dpi: int = 300) -> Path:
    """Write the four corner markers on an A4 page: a vector PDF at true size (``.pdf``), or a
    PNG at ``dpi`` (``.png``: print it at that resolution for true size)."""
    return write_sheet(_sheet(marker_mm), path, dpi, "the marker sheet")


def write_sheet(sheet: Sheet, path: Path | str, dpi: int, what: str) -> Path:
    """An A4 drawing as a vector PDF (``.pdf``) or a PNG at ``dpi`` (``.png``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        path.write_bytes(_pdf(sheet))
    elif suffix == ".png":
        image = raster(sheet, dpi)
        if not cv2.imwrite(str(path), image):
            raise OSError(f"cannot write {path}")
    else:
        raise ValueError(f"{path}: {what} is written as .pdf or .png")
    return path


def raster(sheet: Sheet, dpi: float) -> Image:
    """The A4 drawing as a grey image at ``dpi`` (0 ink, 255 paper)."""
    scale = dpi / 25.4
    size = (round(A4_MM[1] * scale), round(A4_MM[0] * scale))
    page = np.full(size, 255, np.uint8)
    for x, y, side in sheet.squares:
        x0, y0 = round(x * scale), round(y * scale)
        x1, y1 = round((x + side) * scale), round((y + side) * scale)
        page[y0:y1, x0:x1] = 0
    dash = max(2, round(2 * scale))
    for x, y, w, h in sheet.cuts:
        corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
            length = math.hypot(bx - ax, by - ay) * scale
            for start in np.arange(0, length, 2 * dash):
                t0, t1 = start / length, min(start + dash, length) / length
                p0 = (round((ax + (bx - ax) * t0) * scale), round((ay + (by - ay) * t0) * scale))
                p1 = (round((ax + (bx - ax) * t1) * scale), round((ay + (by - ay) * t1) * scale))
                cv2.line(page, p0, p1, 128, max(1, round(0.3 * scale)))
    for x, y, points, text in sheet.texts:
        height_px = points * 0.3528 * scale * 0.7
        font_scale = height_px / 22.0
        cv2.putText(
            page,
            text,
            (round(x * scale), round(y * scale)),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            0,
            max(1, round(font_scale * 1.5)),
            cv2.LINE_AA,
        )
    return page


def _pdf(sheet: Sheet) -> bytes:
    """A one-page vector PDF; units are points (1/72 in), origin bottom-left."""
    pt = 72 / 25.4
    page_w, page_h = A4_MM[0] * pt, A4_MM[1] * pt
    ops = ["0 g"]
    ops += [
        f"{x * pt:.3f} {page_h - (y + s) * pt:.3f} {s * pt:.3f} {s * pt:.3f} re f"
        for x, y, s in sheet.squares
    ]
    ops.append("0.5 G 0.6 w [4 4] 0 d")
    ops += [
        f"{x * pt:.3f} {page_h - (y + h) * pt:.3f} {w * pt:.3f} {h * pt:.3f} re S"
        for x, y, w, h in sheet.cuts
    ]
    for x, y, size, text in sheet.texts:
        safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"BT /F1 {size} Tf {x * pt:.3f} {page_h - y * pt:.3f} Td ({safe}) Tj ET")
    content = zlib.compress("\n".join(ops).encode("latin-1"))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.2f} {page_h:.2f}] "
            "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
        ).encode(),
        f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode()
        + content
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


# --- finding the markers and the homography ---------------------------------------------------


def detect_markers(image: Image) -> dict[int, Points]:
    """The markers seen in a frame: id → its four corners (4×2, marker's own TL, TR, BR, BL)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary(), parameters)
    corners, ids, _rejected = detector.detectMarkers(grey)
    found: dict[int, Points] = {}
    if ids is None:
        return found
    for marker_corners, marker_id in zip(corners, ids.flatten(), strict=True):
        key = int(marker_id)
        if key in found and key in CORNER_IDS:
            raise CalibrationError(f"marker {key} is seen twice: keep one of each marker in view")
        found[key] = marker_corners.reshape(4, 2).astype(np.float64)
    return found


def marker_table_corners(marker_id: int, area_mm: tuple[float, float], marker_mm: float) -> Points:
    """Where the marker's four corners (its own TL, TR, BR, BL) lie on the table, in mm."""
    width, height = area_mm
    m = marker_mm
    left = 0.0 if marker_id in (0, 3) else width - m
    top = 0.0 if marker_id in (0, 1) else height - m
    return np.array([[left, top], [left + m, top], [left + m, top + m], [left, top + m]])


@dataclass(frozen=True)
class Calibration:
    """A homography from image pixels to table millimetres, for frames of ``image_size``."""

    homography: Matrix
    area_mm: tuple[float, float]
    marker_mm: float
    image_size: tuple[int, int]
    error_mm: float = 0.0

    @property
    def inverse(self) -> Matrix:
        return f64(np.linalg.inv(self.homography))

    def to_table(self, x: float, y: float) -> tuple[float, float]:
        """A pixel of the frame → millimetres on the table."""
        return _apply(self.homography, x, y)

    def to_image(self, x: float, y: float) -> tuple[float, float]:
        """Millimetres on the table → the pixel of the frame."""
        return _apply(self.inverse, x, y)

    def mm_per_px(self, x: float, y: float) -> float:
        """The local scale near a pixel (a tilted camera sees the far side smaller)."""
        ax, ay = self.to_table(x - 0.5, y)
        bx, by = self.to_table(x + 0.5, y)
        cx, cy = self.to_table(x, y - 0.5)
        dx, dy = self.to_table(x, y + 0.5)
        return (math.hypot(bx - ax, by - ay) + math.hypot(dx - cx, dy - cy)) / 2

    def check_frame(self, image: Image) -> None:
        """Refuse a frame of another size than the one calibrated."""
        height, width = image.shape[:2]
        if (width, height) != tuple(self.image_size):
            raise CalibrationError(
                f"the calibration is for {self.image_size[0]}×{self.image_size[1]} frames but "
                f"this one is {width}×{height}: calibrate again at this resolution"
            )

    def map_reading(self, reading: DieReading) -> DieReading:
        """The same die with centre, side and angle in table millimetres and degrees.

        The die's top face is mapped as a square (corners from its centre, side and angle);
        the side is the mean of the mapped edges, the angle that of the mapped first edge,
        taken among the angles equivalent for a square (every 90°) nearest the reader's own.
        """
        x, y = self.to_table(reading.x, reading.y)
        half = reading.size / 2
        a = math.radians(reading.angle)
        ux, uy = math.cos(a) * half, math.sin(a) * half
        vx, vy = -uy, ux
        square = [
            (reading.x - ux - vx, reading.y - uy - vy),
            (reading.x + ux - vx, reading.y + uy - vy),
            (reading.x + ux + vx, reading.y + uy + vy),
            (reading.x - ux + vx, reading.y - uy + vy),
        ]
        mapped = [self.to_table(px, py) for px, py in square]
        edges = [
            math.hypot(bx - ax, by - ay)
            for (ax, ay), (bx, by) in zip(mapped, mapped[1:] + mapped[:1], strict=True)
        ]
        (ax, ay), (bx, by) = mapped[0], mapped[1]
        angle = math.degrees(math.atan2(by - ay, bx - ax))
        angle += 90 * round((reading.angle - angle) / 90)
        return reading.moved(x, y, sum(edges) / 4, angle)

    def map_tesson(self, reading: TessonReading) -> TessonReading:
        from dataclasses import replace

        x, y = self.to_table(reading.x, reading.y)
        return replace(reading, x=x, y=y)

    # --- JSON ---

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": 1,
            "area_mm": list(self.area_mm),
            "marker_mm": self.marker_mm,
            "image_size": list(self.image_size),
            "error_mm": round(self.error_mm, 4),
            "homography": [[float(v) for v in row] for row in self.homography],
        }

    @staticmethod
    def from_json(data: Any) -> Calibration:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(
                "not a calibration file: make one with `companion vision calibrate`"
            )
        if data.get("version") != 1:
            raise CalibrationError(f"calibration version {data.get('version')!r} is not 1")
        try:
            matrix = np.array(data["homography"], dtype=np.float64)
            area = tuple(float(v) for v in data["area_mm"])
            size = tuple(int(v) for v in data["image_size"])
            marker = float(data["marker_mm"])
            error = float(data.get("error_mm", 0.0))
        except KeyError as exc:
            raise CalibrationError(f"the calibration lacks {exc.args[0]!r}") from None
        except (TypeError, ValueError):
            raise CalibrationError(
                "the calibration's numbers are damaged: calibrate again"
            ) from None
        if (
            matrix.shape != (3, 3)
            or not np.all(np.isfinite(matrix))
            or abs(np.linalg.det(matrix)) < 1e-12
        ):
            raise CalibrationError("the calibration's homography is not an invertible 3×3 matrix")
        if len(area) != 2 or len(size) != 2 or min(area) <= 0 or min(size) <= 0:
            raise CalibrationError("area_mm and image_size must each be two positive numbers")
        return Calibration(matrix, (area[0], area[1]), marker, (size[0], size[1]), error)

    def save(self, path: Path | str) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @staticmethod
    def load(path: Path | str) -> Calibration:
        path = Path(path)
        data = read_json(path, CalibrationError)
        try:
            return Calibration.from_json(data)
        except CalibrationError as exc:
            raise CalibrationError(f"{path}: {exc}") from None


def _apply(matrix: Matrix, x: float, y: float) -> tuple[float, float]:
    point = cv2.perspectiveTransform(np.array([[[x, y]]], dtype=np.float64), matrix)
    return float(point[0, 0, 0]), float(point[0, 0, 1])


def calibrate(
    image: Image,
    area_mm: tuple[float, float],
    marker_mm: float = DEFAULT_MARKER_MM,
) -> Calibration:
    """Find the four corner markers and fit the image → table homography."""
    width, height = area_mm
    if width <= 0 or height <= 0:
        raise CalibrationError("the play area's width and height must be more than 0 mm")
    if not 0 < 2 * marker_mm < min(width, height):
        raise CalibrationError(
            f"{marker_mm:g} mm markers do not fit twice across a {width:g}×{height:g} mm area"
        )
    found = detect_markers(image)
    if not all(i in found for i in CORNER_IDS):
        raise MarkersNotFound(list(found))
    pixels = np.concatenate([found[i] for i in CORNER_IDS])
    table = np.concatenate([marker_table_corners(i, area_mm, marker_mm) for i in CORNER_IDS])
    homography, _mask = cv2.findHomography(pixels, table, 0)
    if homography is None:
        raise CalibrationError("the markers' corners give no homography: are they flat?")
    mapped = cv2.perspectiveTransform(pixels.reshape(-1, 1, 2), homography).reshape(-1, 2)
    residual = np.linalg.norm(mapped - table, axis=1)
    error = float(np.sqrt(np.mean(residual**2)))
    if error > MAX_ERROR_MM:
        raise CalibrationError(
            f"the markers do not line up with a {width:g}×{height:g} mm area of {marker_mm:g} mm "
            f"markers (off by {error:.1f} mm): check the area's size (between the markers' outer "
            "corners), the marker size, and that each marker lies upright in its own corner"
        )
    img_h, img_w = image.shape[:2]
    area = (float(width), float(height))
    return Calibration(f64(homography), area, marker_mm, (img_w, img_h), error)


def annotate_calibration(image: Image, calibration: Calibration, step_mm: float = 100) -> Image:
    """A copy of the frame with the play area's outline and a grid every ``step_mm``."""
    out = image.copy() if image.ndim == 3 else u8(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    width, height = calibration.area_mm

    def line(a: tuple[float, float], b: tuple[float, float], colour: tuple[int, int, int]) -> None:
        pa = calibration.to_image(*a)
        pb = calibration.to_image(*b)
        cv2.line(
            out, (round(pa[0]), round(pa[1])), (round(pb[0]), round(pb[1])), colour, 1, cv2.LINE_AA
        )

    for x in np.arange(step_mm, width, step_mm):
        line((x, 0), (x, height), (0, 200, 255))
    for y in np.arange(step_mm, height, step_mm):
        line((0, y), (width, y), (0, 200, 255))
    corners = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
    for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
        line(a, b, (0, 255, 0))
    return out
