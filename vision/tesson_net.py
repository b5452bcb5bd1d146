"""Read revealed tessons with a small learned detector: the same readings as
``vision.tessons.read_tessons``, from a network trained on thousands of random generated tables
(plain shards and the box's printed cards) instead of hand-tuned thresholds.

The companion's tesson reader is chosen by ``[camera] tessons`` ("learned" or "hand-tuned",
docs/CONFIG.md); the figures of both on tables neither was tuned on are in
docs/vision/generalization.md.

Method (OpenCV only at runtime; trained by ``tools/train_tessons.py``, the cube reader's
network and recipe, ``vision/cube_net.py``):

1. **Working scale.** The frame is resized so that its short side is ``WORK_SHORT_SIDE`` px
   (a tesson is then about 10-45 px across, a printed card's short side 20-70 px) and padded to
   a multiple of 16.
2. **Network** (``models/tessons.onnx``, the cube reader's 117 k-weight network with its own
   head): per 4×4 cell a tesson-centre heat map, a side logit (black rather than white), the
   log of the tesson's size (a plain shard's width, a card's short side) and a sub-cell offset
   of its centre. With ``mirrored`` (the default) the network also reads the working image
   mirrored left to right, and the two views' outputs are averaged cell by cell (the centre's
   offset in its cell mirrored back): a pattern of the table that looks like a tesson one way
   seldom does both ways, and a side misread in one view is outvoted by a sure reading in the
   other (docs/vision/tesson_net.md, "A mirrored second view").
3. **Peaks** above ``DETECT_AT``, a weaker one closer than half a tesson to a stronger one
   dropped; the side from the heat-weighted mean of the side logit over the 3×3 cells round
   the peak.
4. **Confidence** = the lower of the heat peak (mapped so that ``SURE_AT`` is
   ``CONFIRM_BELOW``) and the side's probability; a tesson cut by the frame's edge, or whose
   centre is within a quarter of its size (or ``edge_margin``) of a seat zone's edge, is
   flagged for a person to confirm.
5. **Candidates** (``candidates=True``, the tesson desk's reader): the weaker peaks from
   ``CANDIDATE_AT`` are reported too, flagged and marked ``candidate``; the desk keeps one only
   for a seat that must show a tesson and shows none (``vision.readings.seat_candidates``).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.arrays import FloatImage, Image
from vision.cube_net import (
    STRIDE,
    centres,
    detection_confidence,
    load_model,
    sigmoid,
    space_to_depth,
    working_image,
)
from vision.cubes import check_frame
from vision.readings import CONFIRM_BELOW, DOUBT, Side, TessonReading
from vision.seats import SeatMap
from vision.tessons import edge_distance, seat_of

__all__ = ["SIDES", "TessonNetReader", "confidence", "read_tessons_net"]

SIDES: tuple[Side, Side] = ("white", "black")
WORK_SHORT_SIDE = 320  # the frame's short side at the working scale, px
OUTPUTS = 5  # heat, side logit, log size, x/y offset
DETECT_AT = 0.45  # heat-map peak above which a tesson is reported
SURE_AT = 0.56  # heat-map peak from which a detection is sure enough not to be flagged
CANDIDATE_AT = 0.15  # heat-map peak from which a weaker detection is a candidate (seat_candidates)
EDGE_SHARE = 0.25  # a centre nearer a zone's edge than this share of its size is flagged


def confidence(peak: float, sure_at: float, sure_of_side: float, cut: bool) -> float:
    """A reading's confidence: the lower of its heat peak (``sure_at`` mapped to
    ``CONFIRM_BELOW``) and its side's probability, below ``CONFIRM_BELOW`` when ``cut`` (by
    the frame's edge, or by a seat zone's)."""
    sure = min(detection_confidence(peak, sure_at), sure_of_side)
    return float(np.clip(min(sure, CONFIRM_BELOW - 0.1) if cut else sure, 0.0, 1.0))


class TessonNetReader:
    """The reader with its model (the shipped one unless a path is given), thresholds and
    working scale; ``read_tessons_net`` uses one shared default instance."""

    def __init__(
        self,
        model: str | Path | None = None,
        detect_at: float = DETECT_AT,
        sure_at: float = SURE_AT,
        short_side: int = WORK_SHORT_SIDE,
        mirrored: bool = True,
        candidate_at: float = CANDIDATE_AT,
    ) -> None:
        self.net = load_model(model, "tessons.onnx")
        self.mirrored = mirrored
        self.candidate_at = candidate_at
        self.detect_at = detect_at
        self.sure_at = sure_at
        self.short_side = short_side
        # of each reading of the last frame: the heat-map peak and the side's probability (for
        # tools/train_tessons.py's choice of the thresholds)
        self.last_heat: list[float] = []
        self.last_side_confidence: list[float] = []
        self.last_cut: list[bool] = []  # cut by the frame's edge or by a seat zone's

    def read(
        self,
        image: Image,
        seats: SeatMap | None = None,
        *,
        edge_margin: float = 6.0,
        candidates: bool = False,
    ) -> list[TessonReading]:
        """The tessons whose heat peak reaches ``detect_at``; with ``candidates``, also those
        from ``candidate_at``, flagged and marked ``candidate`` (method, step 5)."""
        img = np.ascontiguousarray(check_frame(image))
        work, scale = working_image(img, self.short_side)
        out = self._outputs(work)
        heat = sigmoid(out[0])
        gh, gw = heat.shape
        found: list[tuple[TessonReading, float, float, bool]] = []
        floor = min(self.detect_at, self.candidate_at) if candidates else self.detect_at
        for xw, yw, sw, peak, cy, cx in centres(out, heat, floor, 2):
            x, y, size = (xw + 0.5) / scale - 0.5, (yw + 0.5) / scale - 0.5, sw / scale
            if not (0 <= x < img.shape[1] and 0 <= y < img.shape[0]):
                continue  # in the padding
            y0, y1, x0, x1 = max(0, cy - 1), min(gh, cy + 2), max(0, cx - 1), min(gw, cx + 2)
            weight = heat[y0:y1, x0:x1]
            logit = (out[1, y0:y1, x0:x1] * weight).sum(keepdims=True) / weight.sum()
            p_black = float(sigmoid(logit)[0, 0])
            sure_of_side = max(p_black, 1.0 - p_black)
            half = size / 2
            cut = bool(x < half or y < half or x > img.shape[1] - half or y > img.shape[0] - half)
            seat = None
            if seats is not None:
                seat = seat_of(seats, x, y)
                cut |= edge_distance(seats, x, y) < max(edge_margin, EDGE_SHARE * size)
            side = SIDES[int(p_black >= 0.5)]
            sure = confidence(peak, self.sure_at, sure_of_side, cut)
            weak = peak <= self.detect_at
            if weak:
                sure = min(sure, DOUBT)
            reading = TessonReading(float(x), float(y), side, sure, seat, float(size), weak)
            found.append((reading, peak, sure_of_side, cut))
        found.sort(key=lambda f: (round(f[0].y), f[0].x))
        self.last_heat = [f[1] for f in found]
        self.last_side_confidence = [f[2] for f in found]
        self.last_cut = [f[3] for f in found]
        return [f[0] for f in found]

    def _outputs(self, work: Image) -> FloatImage:
        """The network's outputs on the working image; with ``mirrored``, averaged with those
        of the mirrored image, mirrored back (the working image's width is a multiple of the
        cell, so each cell falls on a cell; a centre's offset in its cell is mirrored too)."""
        self.net.setInput(space_to_depth(work))
        out: FloatImage = np.array(self.net.forward())[0]
        if self.mirrored:
            self.net.setInput(space_to_depth(np.ascontiguousarray(work[:, ::-1])))
            back = np.array(self.net.forward())[0][:, :, ::-1]
            back[3] = (STRIDE - 1) / STRIDE - back[3]  # x = (cell + offset) × STRIDE, mirrored
            out = (out + back) / 2
        return out


_SHARED = threading.Lock()
"""One shared reader, one network (a ``cv2.dnn`` network takes one input at a time)."""


@lru_cache(maxsize=1)
def _default_reader() -> TessonNetReader:
    return TessonNetReader()


def read_tessons_net(
    image: Image, seats: SeatMap | None = None, *, candidates: bool = False
) -> list[TessonReading]:
    """Every tesson on the frame, as ``vision.tessons.read_tessons`` reports them: centre in
    the frame's pixels, side, confidence 0..1 (flagged below ``CONFIRM_BELOW``) and, with a
    seat map, the seat whose zone holds the centre; sorted top to bottom, then left to right.
    ``candidates`` adds the weaker detections (heat peak from ``CANDIDATE_AT``), flagged and
    marked ``candidate``: what ``vision.readings.seat_candidates`` keeps for a seat that must
    show a tesson and shows none (the tesson desk's reader).

    Raises :class:`UnreadableFrame` for anything that is not an 8-bit BGR frame of 64×64 or more.
    """
    img = np.ascontiguousarray(check_frame(image))
    with _SHARED:
        return _default_reader().read(img, seats, candidates=candidates)
