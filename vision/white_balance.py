"""The table's own white: the paper round the calibration markers, as the camera sees it.

A warm bulb makes a blue cube dull and a white card cream; a dim room makes every face dark; a
camera's white balance errs by ten per cent either way. The readers' colour classes are fixed,
so the frame is first brought back to a known light: each printed ArUco corner marker
(``vision.calibration``) lies in a quiet zone of white paper at least one module wide, and that
paper is the same white on every table. Its colour in the frame is the light's colour times the
camera's gains; dividing the frame by it (per channel) and scaling the paper to ``PAPER``
undoes both, and the exposure with them.

- ``white_from_markers(frame, markers)``: the paper's colour from markers found in this frame
  (``vision.calibration.detect_markers``), sampled in a ring just outside each marker's black
  border.
- ``white_from_calibration(frame, calibration)``: the same where a calibration says the markers
  lie (the camera does not move between frames, so no detection is needed).
- ``WhiteReference.apply(frame)``: the frame as if lit by a neutral light with the paper at
  ``PAPER`` grey levels; ``balanced(frame, calibration)`` finds the paper and applies it, as
  every reading of a throw does (``vision.throws.ThrowCamera``, ``companion vision dice``).

The paper is taken only where the marker's black border is seen inside it: a calibration whose
markers were taken away gives no reference. A paper clipped in two channels or three
(overexposed: its colour is unknown), too dark to trust, or not grey enough to be paper gives
no reference: the frame is then read as it is. One clipped channel (the red of paper under a
warm bulb, say) is taken at the top of the range: a lower bound, so that channel is corrected a
little less than it should be.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.arrays import FloatImage, Image, Matrix, Points, f64, u8
from vision.calibration import (
    CHECK_MARKER,
    CORNER_IDS,
    Calibration,
    CalibrationError,
    detect_markers,
    marker_table_corners,
)

PAPER = 225.0
"""Grey level the paper is brought to (the white of the generated scenes the readers know)."""

RING = (0.04, 0.13)
"""The ring sampled round a marker, in marker sides outside its black border: the printed
quiet zone is at least one module (1/6 of the side) wide, and cutting may leave less."""

CLIPPED = 250.0
TOO_DARK = 25.0
MOST_TINT = 0.7
"""A paper whose channels differ by more than this share of the brightest is not paper."""

MOST_GAIN = 6.0


@dataclass(frozen=True)
class WhiteReference:
    """The paper's colour in the frame (B, G, R, grey levels) and how many markers showed it."""

    bgr: tuple[float, float, float]
    markers: int

    @property
    def gains(self) -> tuple[float, float, float]:
        """Per channel (B, G, R): what each is multiplied by so that the paper is ``PAPER``."""
        b, g, r = (min(MOST_GAIN, PAPER / max(1.0, v)) for v in self.bgr)
        return (b, g, r)

    def apply(self, frame: Image) -> Image:
        """The frame under a neutral light, the paper at ``PAPER`` (8-bit, clipped)."""
        gains = (*self.gains, 0.0)
        # OpenCV takes a Scalar (up to four numbers) for an operand; its stubs take arrays only.
        return u8(cv2.multiply(frame, gains, dtype=cv2.CV_8U))  # type: ignore[call-overload, unused-ignore]


def white_from_markers(frame: Image, markers: Mapping[int, Points]) -> WhiteReference | None:
    """The paper's white from markers seen in ``frame`` (id → 4×2 corners TL, TR, BR, BL): the
    corner markers and the colour check card's."""
    samples = [
        _paper(frame, corners)
        for marker, corners in markers.items()
        if marker in (*CORNER_IDS, CHECK_MARKER)
    ]
    return _reference([s for s in samples if s is not None])


def white_from_calibration(frame: Image, calibration: Calibration) -> WhiteReference | None:
    """The paper's white where ``calibration`` says the four corner markers lie."""
    samples = []
    for marker in CORNER_IDS:
        table = marker_table_corners(marker, calibration.area_mm, calibration.marker_mm)
        pixels = cv2.perspectiveTransform(
            table.reshape(-1, 1, 2).astype(np.float64), calibration.inverse
        ).reshape(4, 2)
        sample = _paper(frame, f64(pixels))
        if sample is not None:
            samples.append(sample)
    return _reference(samples)


def balanced(frame: Image, calibration: Calibration | None = None) -> Image:
    """The frame brought back to a neutral light by the markers' paper (where ``calibration``
    says they lie, else where they are found in the frame), or as it is without a reference."""
    if calibration is not None:
        white = white_from_calibration(frame, calibration)
    else:
        try:
            white = white_from_markers(frame, detect_markers(frame))
        except CalibrationError:  # a marker seen twice: no reference from this frame
            white = None
    return frame if white is None else white.apply(frame)


def _ring_points(inner: float, outer: float) -> Points:
    """Points of a square ring in the marker's unit square (0..1 is the marker), from ``inner``
    to ``outer`` marker sides outside its edge (negative: inside)."""
    steps = np.linspace(-outer, 1 + outer, 48)
    u, v = np.meshgrid(steps, steps)
    out = np.maximum(np.maximum(-u, u - 1), np.maximum(-v, v - 1))
    keep = (out >= inner) & (out <= outer)
    points: Points = np.c_[u[keep], v[keep]]
    return points


_RING = _ring_points(*RING)
_BORDER = _ring_points(-0.13, -0.04)
"""The marker's own black border (its outer module, 1/6 of the side): the marker is there."""


def _paper(frame: Image, corners: Points) -> npt.NDArray[np.float32] | None:
    """The median colour of the brighter half of the ring round one marker, or None when the
    ring leaves the frame or is not white paper."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    to_image = f64(cv2.getPerspectiveTransform(unit, np.asarray(corners, dtype=np.float32)))
    ring, border = (_sample(frame, points, to_image) for points in (_RING, _BORDER))
    if ring is None or border is None:
        return None
    level = ring.max(axis=1)
    white: npt.NDArray[np.float32] = np.median(ring[level >= np.median(level)], axis=0)
    top = float(white.max())
    clipped = int((white >= CLIPPED).sum())
    if clipped >= 2 or top < TOO_DARK or (top - float(white.min())) > MOST_TINT * top:
        return None
    if float(np.median(border.max(axis=1))) > 0.5 * top:
        return None  # no black border inside the ring: the marker is not there (any more)
    return white


def _sample(frame: Image, unit_points: Points, to_image: Matrix) -> FloatImage | None:
    """The frame's pixels at points of the marker's unit square, or None when some are out."""
    points = cv2.perspectiveTransform(unit_points.reshape(-1, 1, 2), to_image).reshape(-1, 2)
    xs, ys = np.round(points[:, 0]).astype(int), np.round(points[:, 1]).astype(int)
    h, w = frame.shape[:2]
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    if inside.mean() < 0.9:
        return None
    pixels: FloatImage = frame[ys[inside], xs[inside]].astype(np.float32)
    return pixels


def _reference(samples: list[npt.NDArray[np.float32]]) -> WhiteReference | None:
    if not samples:
        return None
    b, g, r = (float(v) for v in np.median(np.stack(samples), axis=0))
    return WhiteReference((b, g, r), len(samples))
