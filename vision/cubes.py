"""Read Oraklos cubes from an overhead frame: centre, size and angle of each top face, its colour
(red, yellow, blue, black) and whether its hole shows.

Method (docs/vision/scenes.md):

1. **The bare table** is estimated at 1/16 scale: a median filter, then the pixels that differ
   from it are painted over (``cv2.inpaint``) and the table is estimated again, so that a
   cluster of dice does not leak into it. Its brightness gives the light over the frame, and
   every pixel is divided by it (uneven light, spots).
2. **Pixels of dice**: a pixel that differs enough from the table is classed by its colour,
   light-corrected, in HSV: red, yellow and blue by hue and saturation, black by low saturation
   and a brightness well apart from the table's.
3. **Top faces**: in each connected group of one colour, the top face is the bright part
   (under an overhead light the sides are darker, the rounded edges darker still, or lighter
   for glossy black): pixels within a band round the group's top brightness. Touching dice of
   one colour are apart there, along their edges; a group still too big for one die is cut at
   the peaks of its distance transform.
4. **Each face**: centre = centroid (hole filled in), size = square root of the area, grown by
   the edge band the threshold cuts off, angle from ``cv2.minAreaRect``; the hole = a dark
   round patch at the centre. Confidence falls when the face is not square, not the size of
   the others, its colour sits near a class boundary, or its hole is half there; such dice are
   flagged (``confidence < CONFIRM_BELOW``), never silently guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from vision.arrays import FloatImage, Image, Mask, f32, u8
from vision.readings import CONFIRM_BELOW, DieReading, UnreadableFrame

if TYPE_CHECKING:
    from cv2.typing import MatLike

COLORS = ("red", "yellow", "blue", "black")
DRAW = {
    "red": (40, 40, 230),
    "yellow": (0, 220, 255),
    "blue": (230, 120, 20),
    "black": (40, 40, 40),
}


def check_frame(image: object) -> Image:
    """The frame, if a reader can read it: an 8-bit colour (BGR) image of at least 64×64;
    else ``UnreadableFrame`` saying what is wrong."""
    if not isinstance(image, np.ndarray):
        raise UnreadableFrame(f"not an image: {type(image).__name__}")
    if image.ndim != 3 or image.shape[2] != 3:
        raise UnreadableFrame(f"need a colour (BGR) frame, got an array of shape {image.shape}")
    if image.dtype != np.uint8:
        raise UnreadableFrame(f"need 8-bit pixels, got {image.dtype}")
    if image.shape[0] < 64 or image.shape[1] < 64:
        raise UnreadableFrame(f"frame too small: {image.shape[1]}x{image.shape[0]}")
    return image


def background(image: Image) -> Image:
    """The bare table under the frame's light, at 1/16 scale (uint8 BGR)."""
    h, w = image.shape[:2]
    sw, sh = max(8, w // 16), max(8, h // 16)
    small = u8(cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA))
    first = u8(cv2.medianBlur(small, 7))
    diff = cv2.absdiff(small, first).max(axis=2)
    mask = (diff > 10).astype(np.uint8) * 255
    mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    if mask.mean() < 160:
        small = u8(cv2.inpaint(small, mask, 2, cv2.INPAINT_TELEA))
        small = u8(cv2.medianBlur(small, 5))
    else:
        small = first
    return small


def _channel_max(image: Image) -> Image:
    b, g, r = cv2.split(image)
    return u8(cv2.max(cv2.max(b, g), r))


@dataclass
class _Planes:
    """Per-pixel measures for the readers (full size)."""

    hue: Image
    sat: Image
    val: FloatImage
    """Brightness corrected for the light (the table's brightness scaled to its median)."""
    diff: FloatImage
    """Largest channel difference from the table, light-corrected."""
    ratio: FloatImage
    """Brightness over the table's brightness."""
    table_sat: Image


def planes(image: Image) -> _Planes:
    h, w = image.shape[:2]
    smooth = u8(cv2.blur(image, (3, 3)))
    table_small = background(smooth)
    level_small = _channel_max(table_small).astype(np.float32) + 1.0
    median = float(np.median(level_small))
    table = cv2.resize(table_small, (w, h), interpolation=cv2.INTER_LINEAR)
    level = f32(cv2.resize(level_small, (w, h), interpolation=cv2.INTER_LINEAR))
    gain = median / level
    hue, sat, val = (u8(plane) for plane in cv2.split(cv2.cvtColor(smooth, cv2.COLOR_BGR2HSV)))
    valf = val.astype(np.float32)
    diff = _channel_max(u8(cv2.absdiff(smooth, table))).astype(np.float32)
    table_sat = cv2.resize(
        cv2.cvtColor(table_small, cv2.COLOR_BGR2HSV)[..., 1], (w, h), interpolation=cv2.INTER_LINEAR
    )
    return _Planes(
        hue=hue,
        sat=sat,
        val=f32(cv2.multiply(valf, gain)),
        diff=f32(cv2.multiply(diff, gain)),
        ratio=(valf + 1.0) / level,
        table_sat=u8(table_sat),
    )


CLASS_CODES = {"red": 1, "yellow": 2, "blue": 3, "black": 4}


def _in_hues(hue: npt.NDArray[np.integer], span: tuple[float, float]) -> Mask:
    low, high = span
    if low < 0:
        return (hue <= high) | (hue >= 180 + low)
    return (hue >= low) & (hue <= high)


@dataclass(frozen=True)
class Palette:
    """What each cube colour looks like to the reader, in OpenCV HSV of a light-corrected frame.

    ``hues``: each coloured class's hue range (0-180; a range below 0 wraps round, as red's
    does); ``least_sat``/``least_val``: the least saturation and brightness of its pixels.
    ``black_sat``/``black_val``: black pixels are less saturated and darker than these. The
    default fits the usual saturated plastics under a neutral light; a colour check of the
    table (``vision.color_check``) gives one for faded plastics or a strange light.
    """

    hues: dict[str, tuple[float, float]] = field(
        default_factory=lambda: {"red": (-12, 7), "yellow": (19, 38), "blue": (95, 132)}
    )
    least_sat: dict[str, float] = field(
        default_factory=lambda: {"red": 100, "yellow": 100, "blue": 100}
    )
    least_val: dict[str, float] = field(
        default_factory=lambda: {"red": 70, "yellow": 100, "blue": 50}
    )
    black_sat: float = 100
    black_val: float = 130

    def __post_init__(self) -> None:
        hues = np.arange(180)
        covered = sum(_in_hues(hues, span).astype(int) for span in self.hues.values())
        if np.max(covered) > 1 or self.black_sat > min(self.least_sat.values()):
            raise ValueError("a palette's colour classes must not overlap")


DEFAULT_PALETTE = Palette()


def _classes(p: _Planes, palette: Palette = DEFAULT_PALETTE) -> Image:
    """Each pixel's colour class (``CLASS_CODES``), 0 for the table."""
    hue, sat, val = p.hue, p.sat, p.val
    fg = p.diff > 22
    out = np.zeros(hue.shape, np.uint8)
    for color, span in palette.hues.items():
        mine = fg & (sat >= palette.least_sat[color]) & _in_hues(hue, span)
        mine &= val >= palette.least_val[color]
        out += mine.view(np.uint8) * np.uint8(CLASS_CODES[color])
    # Black: grey and dark, and not a shadow (a shadow keeps the table's colour and darkens it
    # by a half at most); on a dark table, a little lighter than the table.
    shadow_like = (p.ratio >= 0.5) & (p.ratio <= 1.15) & (p.table_sat < 100)
    lighter = (p.ratio > 1.1) & (p.diff > 5)
    black = (sat < palette.black_sat) & (val < palette.black_val)
    black &= (fg & ~shadow_like) | lighter
    # The classes are disjoint (hue ranges apart, black less saturated than any colour):
    # codes add up.
    out += black.view(np.uint8) * np.uint8(CLASS_CODES["black"])
    return out


def read_cubes(
    image: Image,
    *,
    min_size: float = 12.0,
    max_size: float = 160.0,
    palette: Palette = DEFAULT_PALETTE,
) -> list[DieReading]:
    """Every cube on the frame, sorted top to bottom then left to right (pixels), its colour
    one of ``palette``'s (the usual plastics, or those of the table's colour check)."""
    image = check_frame(image)
    p = planes(image)
    classes = _classes(p, palette)
    kernel = np.ones((3, 3), np.uint8)
    fg = cv2.morphologyEx((classes > 0).astype(np.uint8), cv2.MORPH_OPEN, kernel)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    readings: list[DieReading] = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < min_size * min_size * 0.35:
            continue
        roi = labels[y : y + h, x : x + w] == i
        cls = classes[y : y + h, x : x + w]
        v = p.val[y : y + h, x : x + w]
        counts = np.bincount(cls[roi], minlength=len(CLASS_CODES) + 1)
        for color, code in CLASS_CODES.items():
            if counts[code] < min_size * min_size * 0.35:
                continue
            mine = roi & (cls == code)
            values = v[mine]
            ref = float(np.percentile(values, 80 if color != "black" else 60))
            tint = _color_confidence(
                color,
                p.hue[y : y + h, x : x + w][mine],
                p.sat[y : y + h, x : x + w][mine],
                palette,
            )
            if color == "black":
                # Glossy black: the top face sits between dark sides and light rounded edges.
                top = mine & (v > 0.8 * ref) & (v < 1.12 * ref)
            else:
                top = mine & (v > 0.82 * ref)
            top8 = cv2.morphologyEx(top.astype(np.uint8) * 255, cv2.MORPH_OPEN, kernel)
            contours, _ = cv2.findContours(top8, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            for contour in contours:
                c_area = cv2.contourArea(contour)
                if c_area < min_size * min_size * 0.4 or c_area > max_size * max_size * 4:
                    continue
                for part in _split(contour, top8.shape):
                    reading = _face(part, color, (x, y), p.val, ref, min_size, max_size, tint)
                    if reading is not None:
                        readings.append(reading)
    readings = _consistent(readings)
    readings.sort(key=lambda r: (round(r.y), r.x))
    return readings


def _split(contour: MatLike, shape: tuple[int, ...]) -> list[MatLike]:
    """The contour, or its pieces when it holds several faces (cut at distance peaks)."""
    area = cv2.contourArea(contour)
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    hull = cv2.contourArea(cv2.convexHull(contour))
    if max(w, h) <= 1.35 * min(w, h) and area >= 0.8 * hull:
        return [contour]
    # A face bitten into from its edge (a dark hole wall reaching the rim): its hull is square.
    outline = cv2.convexHull(contour)
    (_, _), (hw, hh), _ = cv2.minAreaRect(outline)
    if max(hw, hh) <= 1.2 * min(hw, hh) and hull >= 0.88 * hw * hh and area >= 0.55 * hull:
        return [outline]
    mask = np.zeros(shape[:2], np.uint8)
    cv2.drawContours(mask, [contour], -1, 255, -1)
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    peak = float(dist.max())
    if peak < 3:
        return [contour]
    seeds = (dist > 0.7 * peak).astype(np.uint8)
    n, markers = cv2.connectedComponents(seeds)
    if n <= 2:
        seeds = (dist > 0.85 * peak).astype(np.uint8)
        n, markers = cv2.connectedComponents(seeds)
    if n <= 2:
        return [contour]
    markers = markers.astype(np.int32) + 1
    markers[(mask > 0) & (seeds == 0)] = 0
    canvas = cv2.merge([mask, mask, mask])
    cv2.watershed(canvas, markers)
    parts = []
    for label in range(2, n + 1):
        piece = (markers == label).astype(np.uint8) * 255
        found, _ = cv2.findContours(piece, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if found:
            parts.append(max(found, key=cv2.contourArea))
    return parts or [contour]


def _face(
    contour: MatLike,
    color: str,
    origin: tuple[int, int],
    val: FloatImage,
    ref: float,
    min_size: float,
    max_size: float,
    tint: float,
) -> DieReading | None:
    area = cv2.contourArea(contour)
    m = cv2.moments(contour)
    if m["m00"] <= 0:
        return None
    cx, cy = m["m10"] / m["m00"] + origin[0], m["m01"] / m["m00"] + origin[1]
    (_, _), (w, h), angle = cv2.minAreaRect(contour)
    if min(w, h) <= 0:
        return None
    # The threshold drops the rounded edge band (about a pixel each side).
    size = math.sqrt(area) + (EDGE_BLACK if color == "black" else EDGE)
    if not min_size <= size <= max_size:
        return None
    squareness = min(w, h) / max(w, h)
    fill = area / (w * h)
    hole, hole_conf = _hole(val, cx, cy, size, angle, ref)
    confidence = min(
        1.0,
        _ramp(squareness, 0.7, 0.9),
        _ramp(fill, 0.7, 0.88),
        hole_conf,
        tint,
    )
    return DieReading(
        x=float(cx),
        y=float(cy),
        size=float(size),
        angle=float(angle % 90.0),
        confidence=float(confidence),
        color=color,
        hole=hole,
    )


EDGE = 2.75
"""Pixels of rounded edge left out of the face by the brightness threshold (both sides)."""
EDGE_BLACK = 3.75
"""The same for black cubes, whose light (glossy) edges are left out with a little more."""


def _color_confidence(
    color: str, hue: Image, sat: Image, palette: Palette = DEFAULT_PALETTE
) -> float:
    """How clearly the face's pixels are of their class (1 = clearly, 0 = on a boundary): a
    face whose median hue is within a few units of its range's end sits between two classes,
    one whose saturation is near the least of its class may be grey."""
    if hue.size == 0:
        return 0.0
    median_sat = float(np.median(sat))
    if color == "black":
        return _ramp(palette.black_sat - median_sat, 5, 25)
    h = hue.astype(np.float32)
    low, high = palette.hues[color]
    if low < 0:
        h = np.where(h >= 90, h - 180, h)
    median_hue = float(np.median(h))
    margin = min(median_hue - low, high - median_hue)
    return min(_ramp(margin, 1.0, 3.5), _ramp(median_sat - palette.least_sat[color], 5, 30))


def _ramp(value: float, low: float, high: float) -> float:
    """0 at ``low`` or below, 1 at ``high`` or above, straight between."""
    return float(min(1.0, max(0.0, (value - low) / (high - low))))


def _hole(
    val: FloatImage, cx: float, cy: float, size: float, angle: float, ref: float
) -> tuple[bool, float]:
    """Whether a dark round hole shows at the face's centre, and how sure."""
    r = max(2, round(0.13 * size))
    x, y = round(cx), round(cy)
    h, w = val.shape
    if not (r <= x < w - r and r <= y < h - r):
        return False, 0.5
    patch = val[y - r : y + r + 1, x - r : x + r + 1].astype(np.float32)
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    disc = xx * xx + yy * yy <= r * r
    dark = float((patch[disc] < 0.55 * ref).mean())
    # 1 when the whole centre is dark, 0 when none of it; between is a partial hole.
    hole = dark >= 0.5
    confidence = _ramp(abs(dark - 0.5) * 2, 0.3, 0.7)
    return hole, confidence


def _consistent(readings: list[DieReading]) -> list[DieReading]:
    """Drop a patch inside a bigger face (a lit wall inside a hole), and lower the confidence of
    faces whose size differs from the typical die's."""
    readings = [
        r
        for r in readings
        if not any(
            o.size > 1.5 * r.size and math.hypot(o.x - r.x, o.y - r.y) < o.size / 2
            for o in readings
        )
    ]
    if len(readings) < 3:
        return readings
    # The typical die: the median of the sure readings (fragments of texture or of a die are
    # rarely square and full enough to be sure).
    sure = [r.size for r in readings if not r.flagged] or [r.size for r in readings]
    typical = float(np.median(sure))
    out = []
    for r in readings:
        off = abs(r.size - typical) / typical
        if off > 0.45:
            continue  # not a die: a fragment of texture or a merged group
        confidence = min(r.confidence, 1.0 - _ramp(off, 0.15, 0.3) * (1.0 - CONFIRM_BELOW + 0.1))
        out.append(DieReading(r.x, r.y, r.size, r.angle, confidence, r.value, r.color, r.hole))
    return out


def annotate_cubes(image: Image, readings: list[DieReading]) -> Image:
    """A copy of the frame with each die outlined in its read colour (a turned square), its hole
    marked with a ring, and flagged dice marked with a magenta '?'."""
    out = image.copy()
    for r in readings:
        half = r.size / 2
        c, s = math.cos(math.radians(r.angle)), math.sin(math.radians(r.angle))
        corners = np.array(
            [
                (r.x + dx * c - dy * s, r.y + dx * s + dy * c)
                for dx, dy in ((-half, -half), (half, -half), (half, half), (-half, half))
            ]
        )
        color = DRAW.get(r.color or "", (255, 255, 255))
        pts = np.round(corners * 4).astype(np.int32)
        cv2.polylines(out, [pts], True, (255, 255, 255), 4, cv2.LINE_AA, 2)
        cv2.polylines(out, [pts], True, color, 2, cv2.LINE_AA, 2)
        centre = (round(r.x), round(r.y))
        if r.hole:
            cv2.circle(out, centre, max(3, round(0.22 * r.size)), (255, 255, 255), 2, cv2.LINE_AA)
        else:
            cv2.drawMarker(out, centre, (255, 255, 255), cv2.MARKER_CROSS, 6, 1, cv2.LINE_AA)
        if r.flagged:
            cv2.putText(
                out,
                "?",
                (round(r.x + half + 2), round(r.y - half)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.7,
                (255, 0, 255),
                2,
                cv2.LINE_AA,
            )
    return out
