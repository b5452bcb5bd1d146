"""Read Oraklos cubes with a small learned detector: the same readings as ``vision.cubes``, from
a network trained on thousands of random generated tables instead of hand-tuned thresholds.

The companion's cube reader (``[camera] cubes = "learned"``, the default; ``"hand-tuned"``
keeps ``vision.cubes``): on tables neither was tuned on it finds far more cubes with far fewer
false ones (docs/vision/generalization.md).

Method (OpenCV only at runtime: ``cv2.dnn`` runs the ONNX models; trained by
``tools/train_cubes.py`` and ``tools/train_cube_check.py``, see ``vision/models/README.md`` and
docs/vision/cube_net.md):

1. **Working scale.** The frame is resized (bilinear, area when shrinking a lot) so that its
   short side is ``WORK_SHORT_SIDE`` px, and padded (edge pixels repeated) to a multiple of 16.
   Like the generated scenes it was trained on, the table is expected to fill the frame: a cube
   is then about 15-35 px wide at the working scale (20-45 px in a 1280×720 frame); training
   covered about 9-55 px.
2. **Network** (``models/cubes.onnx``, about 117 k weights). The image is rearranged into 4×4
   pixel cells (space-to-depth: 48 channels at 1/4 of the size); depthwise-separable blocks at
   1/4, 1/8 and 1/16 of the size, a global context (the mean of the 1/16 features, added back
   everywhere: the light's colour, the table), and a top-down merge back to 1/4 give per cell,
   CenterNet-style: a cube-centre heat map, 4 colour logits (red, yellow, blue, black), a hole
   logit, the log of the top face's size, a sub-cell offset of its centre, and its turn as
   (cos 4θ, sin 4θ) (a square looks the same every 90°).
3. **Peaks.** Cells that are the maximum of their 3×3 neighbourhood with a heat above
   ``DETECT_AT`` are candidates; a weaker one closer than half a cube to a stronger one is
   dropped (non-maximum suppression).
4. **Reading.** Colour and hole are read from the heat-weighted mean of the logits over the 3×3
   cells round the peak (trained on those cells); size, offset and angle at the peak.
5. **Confidence** = the lowest of the heat peak (mapped so that ``SURE_AT`` is
   ``CONFIRM_BELOW``), the colour's probability and the hole's (or no-hole's) probability.
   Below ``CONFIRM_BELOW`` the cube is flagged for a person: a faint detection, a colour
   between two classes, a half-seen hole are asked, not guessed. ``DETECT_AT`` and
   ``SURE_AT`` were chosen on validation scenes (``tools/train_cubes.py --tune``).

6. **A second look** (``vision.cube_check``, ``models/cube_check.onnx``): each detection is cut
   from the full-resolution frame at a fixed size (twice its top face, 32 px) and read by a
   small classifier: the probability that it is a cube at all, its colour, its hole. Below
   ``DROP_AT`` it is dropped (a print, a shadow, a second peak on one cube); its colour is the
   normalized geometric mean of both looks' probabilities, its hole's probability their mean;
   and the detection's part of the confidence becomes the lower of the classifier's
   probability of a cube and the heat peak mapped with ``CHECKED_SURE_AT`` (0.5) instead of
   ``SURE_AT``. A detection both looks are sure of is not asked; one either doubts still is.
   Chosen on the validation seeds and validation renders (``tools/train_cube_check.py
   --tune``). ``check=False`` reads with the first look alone.

``palette`` (``vision.cubes.Palette``, a table's colour check) is accepted for a drop-in
replacement of ``read_cubes`` and ignored: the network learned the plastics and lights itself.
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.arrays import FloatImage, Image, f32, u8
from vision.cube_check import CubeCheck
from vision.cubes import check_frame
from vision.readings import CONFIRM_BELOW, DieReading

if TYPE_CHECKING:
    from vision.cubes import Palette

__all__ = ["COLORS", "CONFIRM_BELOW", "CubeNetReader", "read_cubes_net"]

COLORS = ("red", "yellow", "blue", "black")
WORK_SHORT_SIDE = 544  # the frame's short side at the working scale, px
STRIDE = 4  # the network's output cell, px of the working image
PAD = 16  # the working image's sides are multiples of this (two halvings of the cells)
OUTPUTS = 11  # heat, 4 colour logits, hole, log size, x/y offset, cos 4θ, sin 4θ
DETECT_AT = 0.4  # heat-map peak above which a cube is reported
SURE_AT = 0.7  # heat-map peak from which a detection is sure enough not to be flagged
CANDIDATE_AT = 0.2  # heat-map peak from which a weaker detection is a candidate (doubt_counts)
DROP_AT = 0.2  # the second look's probability of a cube below which a detection is dropped
CHECKED_SURE_AT = 0.5  # SURE_AT when the second look also says "a cube"


def _check(image: object) -> Image:
    """The same checks as ``vision.cubes.read_cubes``."""
    return np.ascontiguousarray(check_frame(image))


def space_to_depth(work: Image) -> FloatImage:
    """H×W×3 uint8 (H, W multiples of 4) → 1×48×H/4×W/4 float32 in 0..1, channel = (dy, dx, c)
    of the pixel in its 4×4 cell. ``tools/train_cubes.py`` does the same in torch."""
    h, w = work.shape[:2]
    cells = work.reshape(h // 4, 4, w // 4, 4, 3).transpose(1, 3, 4, 0, 2)
    return cells.reshape(1, 48, h // 4, w // 4).astype(np.float32) * np.float32(1 / 255)


def working_image(image: Image, short_side: int = WORK_SHORT_SIDE) -> tuple[Image, float]:
    """The frame at the working scale, padded to multiples of ``PAD``, and that scale."""
    h, w = image.shape[:2]
    scale = short_side / min(h, w)
    ww, wh = max(PAD, round(w * scale)), max(PAD, round(h * scale))
    interp = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
    work = u8(cv2.resize(image, (ww, wh), interpolation=interp))
    work = u8(cv2.copyMakeBorder(work, 0, -wh % PAD, 0, -ww % PAD, cv2.BORDER_REPLICATE))
    return work, scale


def detection_confidence(peak: float, sure_at: float = SURE_AT) -> float:
    """The heat-map peak mapped so that ``sure_at`` is ``CONFIRM_BELOW`` (piecewise linear,
    0 → 0 and 1 → 1): a peak below it is flagged."""
    if peak < sure_at:
        return CONFIRM_BELOW * peak / sure_at
    return CONFIRM_BELOW + (1.0 - CONFIRM_BELOW) * (peak - sure_at) / (1.0 - sure_at)


def sigmoid(x: FloatImage) -> FloatImage:
    return f32(1.0 / (1.0 + np.exp(-x)))


Centre = tuple[float, float, float, float, int, int]
"""A detection at the working scale: x, y, size (px), heat peak, and its cell's row and
column."""


def centres(out: FloatImage, heat: FloatImage, detect_at: float, size_at: int) -> list[Centre]:
    """The heat map's peaks above ``detect_at`` (maxima of their 3×3 cells), strongest first,
    each with its log size (channel ``size_at`` of ``out``) and centre offset (the next two);
    a weaker one closer than half a size to a stronger one is dropped (non-maximum
    suppression). Shared by the cube and tesson readers."""
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > detect_at)
    ys, xs = np.nonzero(peaks)
    kept: list[Centre] = []
    for i in np.argsort(-heat[ys, xs]):
        cy, cx = int(ys[i]), int(xs[i])
        size = float(np.exp(out[size_at, cy, cx])) * STRIDE
        x = (cx + float(out[size_at + 1, cy, cx])) * STRIDE
        y = (cy + float(out[size_at + 2, cy, cx])) * STRIDE
        if any(math.hypot(x - k[0], y - k[1]) < 0.5 * max(size, k[2]) for k in kept):
            continue
        kept.append((x, y, size, float(heat[cy, cx]), cy, cx))
    return kept


class CubeNetReader:
    """The reader with its model (the shipped one unless a path is given), detection threshold
    and working scale; ``read_cubes_net`` uses one shared default instance."""

    def __init__(
        self,
        model: str | Path | None = None,
        detect_at: float = DETECT_AT,
        short_side: int = WORK_SHORT_SIDE,
        check: str | Path | bool = True,
        drop_at: float = DROP_AT,
        checked_sure_at: float = CHECKED_SURE_AT,
    ) -> None:
        self.net = load_model(model)
        self.detect_at = detect_at
        self.short_side = short_side
        # the second look: the shipped classifier (True), another one (a path), or none (False)
        self.check = (
            None
            if check is False
            else CubeCheck(load_model(None if check is True else check, "cube_check.onnx"))
        )
        self.drop_at = drop_at
        self.checked_sure_at = checked_sure_at
        # of each reading of the last frame: the heat-map peak, and the lower of the colour's
        # and the hole's probabilities (for tools/train_cubes.py's choice of the thresholds)
        self.last_heat: list[float] = []
        self.last_class_confidence: list[float] = []

    def raw(self, work: Image) -> FloatImage:
        """Network output (OUTPUTS×H/4×W/4) for a working image whose sides are multiples of 16."""
        self.net.setInput(space_to_depth(work))
        out: FloatImage = np.asarray(self.net.forward())[0]
        return out

    def read(
        self,
        image: Image,
        *,
        min_size: float = 12.0,
        max_size: float = 160.0,
        candidates: bool = False,
    ) -> list[DieReading]:
        """The cubes whose heat peak reaches ``detect_at``; with ``candidates``, also those from
        ``CANDIDATE_AT``, marked ``candidate`` (``read_cubes_net``); less those the second look
        drops, the others with both looks' colour, hole and confidence (method, step 6)."""
        img = _check(image)
        work, scale = working_image(img, self.short_side)
        out = self.raw(work)
        heat = sigmoid(out[0])
        gh, gw = heat.shape
        found: list[tuple[DieReading, float, float]] = []
        floor = min(self.detect_at, CANDIDATE_AT) if candidates else self.detect_at
        peaks = []
        for xw, yw, sw, peak, cy, cx in centres(out, heat, floor, 6):
            x, y, size = (xw + 0.5) / scale - 0.5, (yw + 0.5) / scale - 0.5, sw / scale
            if not min_size <= size <= max_size:
                continue
            if not (0 <= x < img.shape[1] and 0 <= y < img.shape[0]):
                continue  # in the padding
            peaks.append((x, y, size, peak, cy, cx))
        if self.check is not None:
            second, second_hole = self.check.probabilities(img, [p[:3] for p in peaks])
        for i, (x, y, size, peak, cy, cx) in enumerate(peaks):
            y0, y1, x0, x1 = max(0, cy - 1), min(gh, cy + 2), max(0, cx - 1), min(gw, cx + 2)
            weight = heat[y0:y1, x0:x1]
            logits = (out[1:6, y0:y1, x0:x1] * weight).sum(axis=(1, 2)) / weight.sum()
            colours = np.exp(logits[:4] - logits[:4].max())
            colours /= colours.sum()
            p_hole = float(sigmoid(logits[4]))
            sure_of_cube = detection_confidence(peak)
            if self.check is not None:
                looked = self._second_look(peak, colours, p_hole, second[i], second_hole[i])
                if looked is None:
                    continue
                colours, p_hole, sure_of_cube = looked
            best = int(np.argmax(colours))
            hole = p_hole >= 0.5
            turn = math.degrees(math.atan2(float(out[10, cy, cx]), float(out[9, cy, cx]))) / 4
            sure_of_class = min(float(colours[best]), max(p_hole, 1.0 - p_hole))
            confidence = min(sure_of_cube, sure_of_class)
            reading = DieReading(
                x=float(x),
                y=float(y),
                size=float(size),
                angle=float(turn % 90.0) % 90.0,
                confidence=float(np.clip(confidence, 0.0, 1.0)),
                color=COLORS[best],
                hole=bool(hole),
                candidate=peak < self.detect_at,
                present=float(np.clip(sure_of_cube, 0.0, 1.0)),
            )
            found.append((reading, peak, sure_of_class))
        found.sort(key=lambda f: (round(f[0].y), f[0].x))
        self.last_heat = [peak for _, peak, _ in found]
        self.last_class_confidence = [sure for _, _, sure in found]
        return [reading for reading, _, _ in found]

    def _second_look(
        self, peak: float, colours: FloatImage, p_hole: float, second: FloatImage, hole: float
    ) -> tuple[FloatImage, float, float] | None:
        """Both looks at one detection (method, step 6): its colour probabilities, hole
        probability and how sure it is a cube; None where the second look drops it."""
        p_cube = 1.0 - float(second[0])
        if p_cube < self.drop_at:
            return None
        both = f32(np.sqrt(colours * second[1:] / max(p_cube, 1e-6)))
        if self.checked_sure_at > 0:  # 0: the second look alone says "a cube"
            p_cube = min(p_cube, detection_confidence(peak, self.checked_sure_at))
        return both / both.sum(), (p_hole + float(hole)) / 2, p_cube


def load_model(path: str | Path | None, shipped: str = "cubes.onnx") -> cv2.dnn.Net:
    """The network at ``path``, or the shipped model ``vision/models/<shipped>``."""
    if path is not None:
        return cv2.dnn.readNetFromONNX(str(path))
    with resources.as_file(resources.files("vision") / "models" / shipped) as p:
        return cv2.dnn.readNetFromONNX(str(p))


_SHARED = threading.Lock()
"""One shared reader, one network: the camera's watcher and the host's "read the throw" may read
at once, and a ``cv2.dnn`` network takes one input at a time."""


@lru_cache(maxsize=1)
def _default_reader() -> CubeNetReader:
    return CubeNetReader()


def read_cubes_net(
    image: Image,
    *,
    palette: Palette | None = None,
    min_size: float = 12.0,
    max_size: float = 160.0,
    candidates: bool = False,
) -> list[DieReading]:
    """Every cube on the frame, as ``vision.cubes.read_cubes`` reports them: centre, size and
    angle (0..90°) of the top face in the frame's pixels, ``color`` red/yellow/blue/black,
    ``hole`` whether it shows, confidence 0..1 (flagged below ``CONFIRM_BELOW``); sorted top to
    bottom, then left to right. ``palette`` is ignored (the network learned the plastics).
    ``candidates`` adds the weaker detections (heat peak from ``CANDIDATE_AT``), marked
    ``candidate``: what ``vision.readings.doubt_counts`` keeps for dice the table knows are
    missing (the throw desk's reader).

    Raises :class:`UnreadableFrame` for anything that is not an 8-bit BGR frame of 64×64 or more.
    """
    del palette
    img = _check(image)
    with _SHARED:
        return _default_reader().read(
            img, min_size=min_size, max_size=max_size, candidates=candidates
        )
