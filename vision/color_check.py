"""The table's colour check: what red, yellow, blue and black cubes look like here.

Plastics differ from box to box (a pale yellow, a washed-out or a navy blue, an orange-red) and
a room's light is never the one the reader was made for. Once, at the start of a game, the host
lays the printed **colour check card** (``check_card``: ``companion vision check-card``) in
view of the camera, one cube of each colour in its box: red, yellow, blue, black. The camera
takes one frame: ``read_color_check`` finds the card by its ArUco marker (id ``CHECK_MARKER``),
so it knows where each box lies whatever the table looks like; in each box the cube is what is
not paper; the middle of its top face is measured. Its ``palette()`` is the
``vision.cubes.Palette`` the cube reader uses for the rest of the game: each colour's hue range
centred on the check's cube and reaching half-way to its neighbours, the least saturation and
brightness at about half of the check's.

The card's paper is white too: the frame is white-balanced by it (and by the corner markers'
paper when they are in view: ``vision.white_balance``) before it is measured, as every throw
is, so the check and the throws are measured alike.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.json_file import read_json
from vision.arrays import Image, Mask, Matrix, Points, f64, u8
from vision.calibration import (
    CHECK_MARKER,
    MODULES,
    CalibrationError,
    Sheet,
    detect_markers,
    marker_modules,
    raster,
    write_sheet,
)
from vision.cubes import Palette, check_frame
from vision.white_balance import white_from_markers

ORDER = ("red", "yellow", "blue", "black")
FORMAT = "tabletop-companion colour check"

# Where each coloured plastic's hue may lie (OpenCV 0-180, red below 0 wraps), however faded or
# lit: outside it the die in that place is not the colour the host was asked to lay there.
PLAUSIBLE = {"red": (-25.0, 14.0), "yellow": (12.0, 45.0), "blue": (80.0, 140.0)}
LEAST_SATURATION = 40.0  # a coloured die's top face is at least this saturated
MOST_BLACK_SATURATION = 70.0
HALF_WIDTH = {"red": 20.0, "yellow": 18.0, "blue": 26.0}  # widest half-range round a centre


class ColorCheckError(ValueError):
    """The frame does not show the four check dice as asked (say what to do)."""


@dataclass(frozen=True)
class Face:
    """The middle of a check die's top face: hue (OpenCV units, red below 0), saturation and
    light-corrected brightness."""

    hue: float
    sat: float
    val: float


@dataclass(frozen=True)
class ColorCheck:
    """The four check dice's faces, by colour."""

    faces: dict[str, Face]

    def palette(self) -> Palette:
        """The reader's palette for this table."""
        hue = {c: self.faces[c].hue for c in ORDER[:3]}
        red_yellow = (hue["red"] + hue["yellow"]) / 2
        yellow_blue = (hue["yellow"] + hue["blue"]) / 2
        blue_red = (hue["blue"] + hue["red"] + 180) / 2
        spans = {
            "red": (max(blue_red - 180 + 0.5, hue["red"] - HALF_WIDTH["red"]), red_yellow),
            "yellow": (
                max(red_yellow + 0.5, hue["yellow"] - HALF_WIDTH["yellow"]),
                min(yellow_blue, hue["yellow"] + HALF_WIDTH["yellow"]),
            ),
            "blue": (
                max(yellow_blue + 0.5, hue["blue"] - HALF_WIDTH["blue"]),
                min(blue_red, hue["blue"] + HALF_WIDTH["blue"]),
            ),
        }
        spans["red"] = (spans["red"][0], min(spans["red"][1], hue["red"] + HALF_WIDTH["red"]))
        least_sat = {c: float(np.clip(0.5 * self.faces[c].sat, 35, 100)) for c in spans}
        least_val = {c: float(np.clip(0.45 * self.faces[c].val, 25, 100)) for c in spans}
        black = self.faces["black"]
        return Palette(
            hues=spans,
            least_sat=least_sat,
            least_val=least_val,
            black_sat=min(min(least_sat.values()), max(40.0, black.sat + 30)),
            black_val=float(np.clip(2.2 * black.val + 20, 60, 160)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "faces": {
                c: {"hue": round(f.hue, 2), "sat": round(f.sat, 2), "val": round(f.val, 2)}
                for c, f in self.faces.items()
            },
        }

    @staticmethod
    def from_json(data: Any) -> ColorCheck:
        if isinstance(data, str):
            data = json.loads(data)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ColorCheckError(f"not a colour check: its format must be {FORMAT!r}")
        faces = data.get("faces")
        if not isinstance(faces, dict) or set(faces) != set(ORDER):
            raise ColorCheckError("a colour check needs the faces of red, yellow, blue and black")
        out = {}
        for color in ORDER:
            face = faces[color]
            try:
                out[color] = Face(float(face["hue"]), float(face["sat"]), float(face["val"]))
            except (KeyError, TypeError, ValueError) as exc:
                raise ColorCheckError(f"the {color} face needs numbers hue, sat, val") from exc
        check = ColorCheck(out)
        check.palette()  # refuses faces that make no palette
        return check

    def save(self, path: Path | str) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @staticmethod
    def load(path: Path | str) -> ColorCheck:
        return ColorCheck.from_json(read_json(Path(path), ColorCheckError))


ASK = (
    "lay the colour check card flat in view of the camera, its marker uncovered, one cube in "
    "each box: red, yellow, blue, black, then check again"
)

CARD_MM = (190.0, 60.0)
CARD_AT = (10.0, 40.0)  # the card's top-left corner on the A4 page
MARKER_AT = (8.0, 15.0)  # the marker's top-left corner on the card
CHECK_MARKER_MM = 30.0
BOX_MM = 26.0
BOX_CENTRES = tuple((62.0 + 34.0 * i, 30.0) for i in range(4))  # on the card, in ORDER
DIE_MM = 16.0
NOT_PAPER = 40  # grey levels (largest channel) from the paper's colour: not paper


def check_card(path: Path | str, dpi: int = 300) -> Path:
    """Write the colour check card on an A4 page (cut it out on the dashed line): its marker and
    four boxes, one per colour, labelled in English and French. ``.pdf`` (vector, true size)
    or ``.png`` at ``dpi``."""
    return write_sheet(_card_sheet(), path, dpi, "the colour check card")


def card_image(px_per_mm: float) -> Image:
    """The card alone as printed, grey (0 ink, 255 paper), ``px_per_mm`` pixels a millimetre;
    its pixel (x, y) covers the card's millimetres [x, x + 1) / ``px_per_mm``."""
    page = raster(_card_sheet(), px_per_mm * 25.4)
    x0, y0 = (round(v * px_per_mm) for v in CARD_AT)
    w, h = (round(v * px_per_mm) for v in CARD_MM)
    return page[y0 : y0 + h, x0 : x0 + w]


def _card_sheet() -> Sheet:
    sheet = Sheet()
    sheet.texts.append(
        (15, 14, 11, "Tabletop companion - colour check card / carte de test des couleurs")
    )
    sheet.texts.append(
        (15, 20, 9, "Print at 100 %, cut on the dashed line. Before a game, one cube of each")
    )
    sheet.texts.append((15, 25, 9, "colour in its box. / Avant chaque partie, un cube de chaque"))
    sheet.texts.append((15, 30, 9, "couleur dans sa case."))
    left, top = CARD_AT
    sheet.cuts.append((left, top, *CARD_MM))
    module = CHECK_MARKER_MM / MODULES
    bits = marker_modules(CHECK_MARKER)
    x0, y0 = left + MARKER_AT[0], top + MARKER_AT[1]
    for r in range(MODULES):
        for c in range(MODULES):
            if bits[r, c]:
                sheet.squares.append((x0 + c * module, y0 + r * module, module))
    names = {"red": "red / rouge", "yellow": "yellow / jaune", "blue": "blue / bleu"}
    names["black"] = "black / noir"
    for color, (cx, cy) in zip(ORDER, BOX_CENTRES, strict=True):
        half = BOX_MM / 2
        sheet.cuts.append((left + cx - half, top + cy - half, BOX_MM, BOX_MM))
        sheet.texts.append((left + cx - half, top + cy + half + 6, 8, names[color]))
    return sheet


def card_to_image(marker: Points) -> Matrix:
    """The homography from the card's millimetres to the frame, from its marker's corners."""
    x, y = MARKER_AT
    m = CHECK_MARKER_MM
    card = np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]], dtype=np.float32)
    return f64(cv2.getPerspectiveTransform(card, np.asarray(marker, dtype=np.float32)))


def read_color_check(image: Image) -> ColorCheck:
    """The colour check in one frame (white-balanced first, as the throws are); raises
    ``ColorCheckError`` saying what to do when the card or a cube is not seen, or a cube is not
    of its box's colour."""
    image = check_frame(image)
    try:
        markers = detect_markers(image)
    except CalibrationError as exc:
        raise ColorCheckError(f"{exc}: {ASK}") from exc
    if CHECK_MARKER not in markers:
        raise ColorCheckError(f"the colour check card is not seen: {ASK}")
    to_image = card_to_image(markers[CHECK_MARKER])
    white = white_from_markers(image, markers)
    if white is not None:
        image = white.apply(image)
    paper = _paper_colour(image, to_image)
    hsv = u8(cv2.cvtColor(image, cv2.COLOR_BGR2HSV))
    least_area = 0.3 * (DIE_MM * _px_per_mm(to_image)) ** 2
    faces = {}
    for color, centre in zip(ORDER, BOX_CENTRES, strict=True):
        mask = _box_mask(image.shape[:2], to_image, centre)
        differs = cv2.absdiff(image, np.full_like(image, paper)).max(axis=2) > NOT_PAPER
        cube = _largest(mask & differs)
        place = f"the {color} box"
        if cube is None or int(cube.sum()) < least_area:
            raise ColorCheckError(f"no cube is seen in {place}: {ASK}")
        face = _middle(cube, hsv)
        _plausible(color, face, place)
        faces[color] = face
    return ColorCheck(faces)


def _px_per_mm(to_image: Matrix) -> float:
    """Pixels per millimetre round the card's marker."""
    x, y = MARKER_AT
    pts = np.array([[[x, y]], [[x + CHECK_MARKER_MM, y]], [[x, y + CHECK_MARKER_MM]]], np.float32)
    a, b, c = cv2.perspectiveTransform(pts, to_image).reshape(3, 2)
    return float((np.linalg.norm(b - a) + np.linalg.norm(c - a)) / (2 * CHECK_MARKER_MM))


def _paper_colour(image: Image, to_image: Matrix) -> tuple[int, int, int]:
    """The card's blank paper (the strip between the boxes and the card's top edge)."""
    xs = np.linspace(MARKER_AT[0] + CHECK_MARKER_MM + 8, CARD_MM[0] - 6, 40)
    ys = np.linspace(4, BOX_CENTRES[0][1] - BOX_MM / 2 - 3, 4)
    grid = np.array([[x, y] for x in xs for y in ys], np.float32).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(grid, to_image).reshape(-1, 2).round().astype(int)
    h, w = image.shape[:2]
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    if inside.mean() < 0.5:
        raise ColorCheckError(f"the colour check card is partly out of view: {ASK}")
    b, g, r = np.median(image[pts[inside, 1], pts[inside, 0]], axis=0)
    return int(b), int(g), int(r)


def _box_mask(shape: tuple[int, ...], to_image: Matrix, centre: tuple[float, float]) -> Mask:
    """A box of the card, grown a little (a cube's top face is seen shifted by perspective)."""
    half = BOX_MM / 2 + 3
    cx, cy = centre
    corners = np.array(
        [
            [cx - half, cy - half],
            [cx + half, cy - half],
            [cx + half, cy + half],
            [cx - half, cy + half],
        ],
        np.float32,
    ).reshape(-1, 1, 2)
    polygon = cv2.perspectiveTransform(corners, to_image).reshape(-1, 2).round().astype(np.int32)
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [polygon], 1)
    return mask.astype(bool)


def _largest(mask: Mask) -> Mask | None:
    opened = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    if n <= 1:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    largest: Mask = labels == biggest
    return largest


def _middle(cube: Mask, hsv: Image) -> Face:
    """The middle of the brighter part of a cube (its top face; the hole left out)."""
    hue, sat, val = (hsv[..., i].astype(np.float32) for i in range(3))
    dist = cv2.distanceTransform(cube.astype(np.uint8), cv2.DIST_L2, 3)
    inner = dist >= 0.35 * float(dist.max())
    level = float(np.median(val[inner]))
    top = inner & (val >= 0.6 * level)
    angles = hue[top] * (math.pi / 90)  # OpenCV hue is half degrees
    mean = math.atan2(float(np.sin(angles).mean()), float(np.cos(angles).mean()))
    centre = (mean * 90 / math.pi) % 180
    if centre > 135:
        centre -= 180
    return Face(centre, float(np.median(sat[top])), float(np.median(val[top])))


def _plausible(color: str, face: Face, place: str) -> None:
    if color == "black":
        if face.sat > MOST_BLACK_SATURATION:
            raise ColorCheckError(f"the cube in {place} does not look black: {ASK}")
        return
    low, high = PLAUSIBLE[color]
    if face.sat < LEAST_SATURATION or not low <= face.hue <= high:
        raise ColorCheckError(f"the cube in {place} does not look {color}: {ASK}")
