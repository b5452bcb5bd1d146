"""What is new on the table: a reading of something that lay there already, looking the same,
before the throw or the reveal is the table's own (a cloth's check, a game mat's print, a die
or a tesson left lying), not what was thrown or turned up.

The camera sees the table before (``TableBefore``: a frame taken when the cup is still full, or
when every vote is down and no tesson shows yet) and after. A reading is kept unless

1. the place it lies at has not changed: within ``RADIUS_SHARE`` of its size round its centre,
   fewer than ``STILL_SHARE`` of the pixels differ by more than the frames' noise allows (both
   frames shrunk to ``WORK_WIDTH``, blurred, the before frame shifted as the whole picture moved
   and scaled per colour channel to the after frame's exposure and white balance), **and**
2. the same reader read the same thing there on the before frame (a reading of the same
   ``kind``: side or colour, within half its size).

Both must hold, so a real die that lands on a check read as a die, or a white shard laid face
up on a white table that looks much like it, is kept. Readers know no rules: which frame is
"before" is the desk's to say.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import cv2
import numpy as np

from vision.arrays import FloatImage, Image, f32

WORK_WIDTH = 640
"""Both frames are compared at this width (px)."""
RADIUS_SHARE = 0.6
"""The place a reading is compared on: a disc of this share of its size round its centre."""
STILL_SHARE = 0.15
"""Below this share of changed pixels in that disc, the place has not changed."""
NOISE_FACTOR = 5.0
"""A pixel has changed where it differs by more than this many times the frames' typical
difference (most of the table does not change)..."""
MIN_LEVEL = 10.0
"""...and by at least this many grey levels."""
SAME_PLACE = 0.5
"""A reading on the before frame is at the same place within this share of the size."""
DEFAULT_SIZE = 24.0
"""The size of a reading that has none (px of the frame): a small tesson's."""


class Reading(Protocol):
    @property
    def x(self) -> float: ...
    @property
    def y(self) -> float: ...


R = TypeVar("R", bound=Reading)


def kind_of(reading: Any) -> Any:
    """What a reading says it is: a tesson's side, a cube's colour and hole."""
    if hasattr(reading, "side"):
        return reading.side
    return (getattr(reading, "color", None), getattr(reading, "hole", None))


def size_of(reading: Any) -> float:
    size = getattr(reading, "size", None)
    return float(size) if size else DEFAULT_SIZE


@dataclass(frozen=True)
class TableBefore:
    """The table as the camera saw it before, and what the reader read on it."""

    small: FloatImage = field(repr=False)
    scale: float  # working pixels per frame pixel
    shape: tuple[int, int]  # the frame's height and width
    readings: tuple[Any, ...]

    @staticmethod
    def of(frame: Image, readings: Sequence[Any]) -> TableBefore:
        small, scale = _working(frame)
        return TableBefore(small, scale, (frame.shape[0], frame.shape[1]), tuple(readings))

    def changed(self, after: Image) -> FloatImage:
        """Where the after frame differs from this one, at the working scale: 1.0 where a pixel
        changed, else 0.0."""
        now, _ = _working(after)
        before = self.small
        if before.shape != now.shape:
            return np.ones(now.shape[:2], np.float32)  # another camera: nothing is the same
        grey_before = cv2.cvtColor(before, cv2.COLOR_BGR2GRAY)
        grey_now = cv2.cvtColor(now, cv2.COLOR_BGR2GRAY)
        (dx, dy), _ = cv2.phaseCorrelate(grey_before, grey_now)
        if math.hypot(dx, dy) > 0.25:
            move = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
            height, width = now.shape[:2]
            before = f32(
                cv2.warpAffine(  # type: ignore[call-overload, unused-ignore]
                    before, move, (width, height), borderMode=cv2.BORDER_REPLICATE
                )
            )
        gains = _typical(now) / np.maximum(_typical(before), 1.0)
        scaled = cv2.multiply(before, (*gains.tolist(), 0.0))
        apart = cv2.absdiff(now, scaled)
        difference = np.maximum(np.maximum(apart[..., 0], apart[..., 1]), apart[..., 2])
        level = max(MIN_LEVEL, NOISE_FACTOR * float(np.median(difference[::2, ::2])))
        return f32((difference > level).astype(np.float32))

    def new_on_table(self, readings: Sequence[R], after: Image) -> list[R]:
        """The readings of the after frame that are not the table's own (module docstring)."""
        if (after.shape[0], after.shape[1]) != self.shape:
            return list(readings)
        changed = self.changed(after)
        return [r for r in readings if not self._there_before(r, changed)]

    def _there_before(self, reading: Any, changed: FloatImage) -> bool:
        size = size_of(reading)
        near = SAME_PLACE * size
        kind = kind_of(reading)
        if not any(
            kind_of(b) == kind and math.hypot(b.x - reading.x, b.y - reading.y) <= near
            for b in self.readings
        ):
            return False
        return changed_share(changed, self.scale, reading.x, reading.y, RADIUS_SHARE * size) < (
            STILL_SHARE
        )


def changed_share(changed: FloatImage, scale: float, x: float, y: float, radius: float) -> float:
    """The share of changed pixels in the disc of ``radius`` (frame px) round (x, y)."""
    cx, cy, r = (x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5, max(1.5, radius * scale)
    height, width = changed.shape
    x0, x1 = max(0, math.floor(cx - r)), min(width, math.ceil(cx + r) + 1)
    y0, y1 = max(0, math.floor(cy - r)), min(height, math.ceil(cy + r) + 1)
    if x0 >= x1 or y0 >= y1:
        return 1.0
    yy, xx = np.mgrid[y0:y1, x0:x1]
    disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
    if not disc.any():
        return 1.0
    return float(changed[y0:y1, x0:x1][disc].mean())


def _typical(frame: FloatImage) -> np.ndarray:
    """The median colour of a frame (of every fourth pixel each way: the median is the same)."""
    return np.asarray(np.median(frame[::4, ::4].reshape(-1, 3), axis=0), np.float64)


def _working(frame: Image) -> tuple[FloatImage, float]:
    height, width = frame.shape[:2]
    scale = min(1.0, WORK_WIDTH / width)
    small = frame.astype(np.float32)
    if scale < 1.0:
        size = (round(width * scale), max(1, round(height * scale)))
        small = f32(cv2.resize(small, size, interpolation=cv2.INTER_AREA))
    return f32(cv2.GaussianBlur(small, (0, 0), 1.0)), scale
