"""The colour of an ordinary pip die seen from above: the body of its top face, pips ignored.

``die_color(frame, reading)`` names the colour of the die a :func:`vision.pips.read_pips`
reading points at, one of ``DIE_COLORS``, with a confidence 0..1; ``read_pips_in_color(frame)``
is ``read_pips`` with every reading's ``color`` set (its confidence stays the pip reader's).

Method (classical, no learned model):

1. **Sample.** The middle ``SAMPLE_SPAN`` of the top face (a square turned by the reading's
   angle, so the die's edges, its sides and the table stay out) is resampled to
   ``SAMPLE_PX``² pixels and turned into CIE Lab (L 0..100, a and b in Lab units).
2. **Body, not pips.** The pips are small dots of a contrasting colour covering a third of that
   square at most: two-means clustering of the pixels (started from the median and from the
   pixel farthest from it) splits body from pips, and the larger cluster's mean is the body
   colour. Its share of the pixels says how uniform the face is (marbled faces split).
3. **Name.** Lab hue angle and chroma pick the name: below a minimum chroma (higher for light
   faces, which show a tint even when white) the die is white (L ≥ ``WHITE_FROM``), black
   (L < ``BLACK_BELOW``) or, in between, grey ("other"). Otherwise the hue sector names it
   (``SECTORS``); yellow must also be light and saturated, or it is gold or olive ("other");
   orange-brown, purple and pink are "other"; dark red needs more chroma in the orange part of
   red, where dark smoked dice with red pips lie.
4. **Confidence** = the smallest margin to a boundary that would change the name (hue as an arc
   at the die's chroma, chroma, lightness; each over a scale of a few Lab units), times a factor
   for a face split by marbling or glare.

The boundaries were set on the hand-labelled dice of ``tests/data/pip_colors.csv`` (photos of
one light and one tray); docs/vision/pips.md gives the figures, held-out ones included
(``python benchmarks/vision_pip_colors.py``). Another light may shift hues: a camera's white
balance matters more here than for the pip count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.arrays import Image, f64
from vision.pips import _check, read_pips
from vision.readings import DieReading, UnreadableFrame

__all__ = [
    "DIE_COLORS",
    "die_color",
    "die_colors",
    "name_color",
    "read_pips_in_color",
    "top_face_lab",
]

DIE_COLORS = ("white", "black", "red", "yellow", "green", "blue", "other")
"""Colour names of pip dice; "other" for purple, magenta, orange, brown, gold, grey, or unsure."""

SAMPLE_PX = 12  # side of the resampled middle of the top face, px
SAMPLE_SPAN = 0.72  # side of the sampled square / side of the die
WHITE_FROM = 52.0  # lightness from which a colourless face is white
BLACK_BELOW = 40.0  # lightness below which a colourless face is black
YELLOW_LIGHT = 48.0  # a yellow face is at least this light ...
YELLOW_CHROMA = 35.0  # ... and this saturated; darker or duller yellows are gold/olive
TINT = 0.22  # minimum chroma is at least TINT × L: a white face's tint is not a colour

SECTORS: tuple[tuple[float, float, str, float], ...] = (
    # (from, to) Lab hue in degrees, name, minimum chroma
    (0.0, 22.0, "red", 12.0),
    (22.0, 48.0, "red", 28.0),  # orange-red: smoked dice with red pips are dark and dull here
    (48.0, 76.0, "other", 12.0),  # orange, brown, gold
    (76.0, 125.0, "yellow", 12.0),  # gold/olive unless light and saturated (YELLOW_*)
    (125.0, 200.0, "green", 9.0),
    (200.0, 311.0, "blue", 7.0),
    (311.0, 345.0, "other", 7.0),  # purple, magenta, pink
    (345.0, 360.0, "red", 12.0),
)

_HUE_SCALE = 5.0  # Lab units of hue arc (chroma × radians) for full confidence
_CHROMA_SCALE = 6.0
_LIGHT_SCALE = 8.0


def top_face_lab(frame: Image, readings: Sequence[DieReading]) -> npt.NDArray[np.float64]:
    """Per reading: the body colour of its top face (L, a, b) and the share of the sampled
    pixels it holds (0.5..1), as an N×4 float array. Raises ``UnreadableFrame`` for a frame the
    pip reader could not read, or a reading whose centre lies outside the frame."""
    image = _check(frame)
    if not readings:
        return np.zeros((0, 4), np.float64)
    h, w = image.shape[:2]
    patches = []
    for r in readings:
        if not (0 <= r.x < w and 0 <= r.y < h) or not r.size > 0:
            raise UnreadableFrame(
                f"no die to look at in this {w}×{h} frame at ({r.x:.0f}, {r.y:.0f}), side "
                f"{r.size:.0f}: pass the readings of this frame"
            )
        k = SAMPLE_PX / (SAMPLE_SPAN * r.size)
        m = f64(cv2.getRotationMatrix2D((r.x, r.y), r.angle, k))
        m[:, 2] += (SAMPLE_PX / 2 - r.x, SAMPLE_PX / 2 - r.y)
        patches.append(
            cv2.warpAffine(
                image,
                m,
                (SAMPLE_PX, SAMPLE_PX),
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
        )
    stacked = np.vstack(patches).astype(np.float32) * np.float32(1 / 255)
    lab = cv2.cvtColor(stacked, cv2.COLOR_BGR2LAB).reshape(len(readings), -1, 3)
    return _two_means(lab.astype(np.float64))


def _two_means(pixels: npt.NDArray[np.float64], rounds: int = 6) -> npt.NDArray[np.float64]:
    """N×P×3 Lab pixels → N×4 (L, a, b, share) of each die's larger cluster."""
    n = pixels.shape[0]
    body = np.median(pixels, axis=1)
    far = np.argmax(((pixels - body[:, None]) ** 2).sum(axis=2), axis=1)
    other = pixels[np.arange(n), far]
    near_body = np.ones(pixels.shape[:2], bool)
    for _ in range(rounds):
        d_body = ((pixels - body[:, None]) ** 2).sum(axis=2)
        d_other = ((pixels - other[:, None]) ** 2).sum(axis=2)
        near_body = d_body <= d_other
        count = near_body.sum(axis=1, keepdims=True)
        rest = pixels.shape[1] - count
        body = np.where(
            count > 0, (pixels * near_body[..., None]).sum(axis=1) / np.maximum(count, 1), body
        )
        other = np.where(
            rest > 0, (pixels * ~near_body[..., None]).sum(axis=1) / np.maximum(rest, 1), other
        )
    share = near_body.mean(axis=1)
    larger = np.where((share >= 0.5)[:, None], body, other)
    faces: npt.NDArray[np.float64] = np.c_[larger, np.maximum(share, 1 - share)]
    return faces


def name_color(lightness: float, a: float, b: float, share: float = 1.0) -> tuple[str, float]:
    """The name (one of ``DIE_COLORS``) and confidence 0..1 of a face whose body colour is
    (L, a, b) in CIE Lab; ``share``: the part of the face that colour covers (0.5..1)."""
    chroma = math.hypot(a, b)
    hue = math.degrees(math.atan2(b, a)) % 360.0
    if hue >= 360.0:  # a tiny negative angle rounds up to 360
        hue = 0.0
    index = next(i for i, s in enumerate(SECTORS) if s[0] <= hue < s[1])
    _, _, name, least = SECTORS[index]
    least = max(least, TINT * lightness)
    margins: list[float] = []
    if chroma < least:
        margins.append((least - chroma) / _CHROMA_SCALE)
        margins.append(_coloured_nearby(hue, chroma, lightness))
        if lightness >= WHITE_FROM:
            name = "white"
            margins.append((lightness - WHITE_FROM) / _LIGHT_SCALE)
        elif lightness < BLACK_BELOW:
            name = "black"
            margins.append((BLACK_BELOW - lightness) / _LIGHT_SCALE)
        else:
            name = "other"  # grey
            margins.append(min(lightness - BLACK_BELOW, WHITE_FROM - lightness) / _LIGHT_SCALE)
    else:
        margins.append((chroma - least) / _CHROMA_SCALE)
        margins.append(_hue_margin(hue, chroma, index, name))
        if name == "yellow":
            bright = min(lightness - YELLOW_LIGHT, chroma - YELLOW_CHROMA) / _LIGHT_SCALE
            if bright < 0:
                name = "other"  # gold, olive, mustard
            margins.append(abs(bright))
    whole = float(np.clip((share - 0.5) / 0.3, 0.0, 1.0))
    confidence = float(np.clip(min(margins), 0.0, 1.0)) * (0.6 + 0.4 * whole)
    return name, round(confidence, 3)


def _hue_margin(hue: float, chroma: float, index: int, name: str) -> float:
    """Hue arc (Lab units at this chroma) to the nearest sector edge across which the name
    changes, over ``_HUE_SCALE``."""
    best = math.inf
    for step in (-1, 1):
        i = index
        while True:
            i = (i + step) % len(SECTORS)
            if SECTORS[i][2] != name:
                break
            if i == index:
                return 1.0
        edge = SECTORS[i][1] if step < 0 else SECTORS[i][0]
        gap = abs((hue - edge + 180.0) % 360.0 - 180.0)
        best = min(best, gap)
    return math.radians(best) * chroma / _HUE_SCALE


def _coloured_nearby(hue: float, chroma: float, lightness: float) -> float:
    """For a face too dull to name by hue: the hue arc (over ``_HUE_SCALE``) to the nearest
    sector where that chroma would be enough for a colour (dull dark red beside the orange-red
    sector, say)."""
    best = math.inf
    for start, end, _, least in SECTORS:
        if chroma >= max(least, TINT * lightness):
            gap = min(abs((hue - edge + 180.0) % 360.0 - 180.0) for edge in (start, end))
            best = min(best, gap)
    return math.radians(best) * max(chroma, 1.0) / _HUE_SCALE if best < math.inf else 1.0


def die_colors(frame: Image, readings: Sequence[DieReading]) -> list[tuple[str, float]]:
    """``die_color`` for every reading of one frame, at once (faster for many dice)."""
    return [name_color(*row) for row in top_face_lab(frame, readings).tolist()]


def die_color(frame: Image, reading: DieReading) -> tuple[str, float]:
    """The body colour of the die's top face (one of ``DIE_COLORS``; its pips are ignored) and
    a confidence 0..1. ``reading`` is a reading of this frame (pixels), e.g. from ``read_pips``.

    Raises ``UnreadableFrame`` for anything that is not an 8-bit colour image, or a reading
    whose centre lies outside the frame."""
    return die_colors(frame, [reading])[0]


def read_pips_in_color(frame: Image) -> list[DieReading]:
    """``read_pips`` with each reading's ``color`` set (one of ``DIE_COLORS``); values,
    places and confidences are the pip reader's. Raises ``UnreadableFrame`` as it does."""
    image = _check(frame)
    readings = read_pips(image)
    names = die_colors(image, readings)
    return [replace(r, color=name) for r, (name, _) in zip(readings, names, strict=True)]
