"""Ordinary pip dice read from above: where each die lies and how many pips show on top.

``read_pips(image)`` takes a BGR frame of the tray (any size) and returns one
:class:`~vision.readings.DieReading` per die found: centre, side and angle of the die as seen
from above, the value 1-6 and a confidence (0..1; below ``CONFIRM_BELOW`` the reading is
flagged for a person to confirm). ``annotate_pips`` draws them.

Method (two small learned models run by OpenCV's ``cv2.dnn``; no other runtime dependency;
trained by ``tools/train_pips.py``, see ``vision/models/README.md``):

1. **Working scale.** The frame is resized (bilinear) so that its short side is
   ``WORK_SHORT_SIDE`` px and padded to a multiple of 8. Like the photos the models were trained
   on, the tray is expected to fill about the frame's short side, so dice are roughly 15-45 px
   there; training covered ×0.65-1.5 around that.
2. **Detector** (``models/pips.onnx``, 39 k weights). The image is rearranged into 4×4 pixel
   cells (space-to-depth: 48 channels at 1/4 of the size); a small fully convolutional network
   (1×1 stem, depthwise-separable blocks at 1/4 and 1/8, a top-down merge back to 1/4) gives per
   cell, CenterNet-style, a die-centre heat map, the log of the die's size and a sub-cell offset.
   Cells that are the maximum of their 3×3 neighbourhood with a heat above ``DETECT_AT`` are
   candidates; a weaker one closer than half a die to a stronger one is dropped.
3. **Angle** (classical): the die's patch is thresholded against its own border colour (Otsu on
   the Lab distance) and the minimum-area rectangle of the blob at the centre gives the angle
   (0 when the blob is not a clear square, e.g. merged with a neighbour).
4. **Value** (``models/pips_values.onnx``, 246 k weights): each candidate is cut from the
   full-resolution frame as a ``VALUE_PX``² crop (1.15 × its size, turned by its angle) and
   classified into 1-6 pips or "not a die". The pips on top do not change when the die is
   turned, so each crop is read as it is and turned by 180° (``VALUE_VIEWS`` = 2; 4 and 8
   views are possible, see ``views``) and the probabilities of the views are averaged; all
   views of all crops of a frame go in one batch. A candidate with P(not a die) >
   ``REJECT_AT``, or more likely "not a die" than any value, is dropped (the tray's holes, a
   box's rim).
5. **Confidence** = √(heat) × (P(value) − ½ P(runner-up value)) with the averaged
   probabilities, halved for a die cut by the frame's border.
6. **Size.** The detector's size is the side of the die's upright bounding box (as labelled);
   the reported side is that ÷ (|cos a| + |sin a|).

Limits: the scale assumption (tray about the frame's short side); dice smaller than about 10 px
or larger than about 70 px at the working scale are outside the training range. See
docs/vision/pips.md for the measured figures (``python benchmarks/vision_pips.py``).
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from vision.arrays import FloatImage, Image, f32, f64, u8
from vision.readings import CONFIRM_BELOW, DieReading, UnreadableFrame

__all__ = ["CONFIRM_BELOW", "PipReader", "annotate_pips", "read_pips"]

WORK_SHORT_SIDE = 448  # the frame's short side at the working scale, px
STRIDE = 4  # the network's output cell, px of the working image
DETECT_AT = 0.4  # heat-map peak above which a die is reported (chosen by the cross-check)
OUTPUTS = 10  # heat, 6 value logits, log size, x/y offset
REJECT_AT = 0.5  # probability of "not a die" above which the value network drops a detection
VALUE_PX = 32  # side of the die crop read by the value network
VALUE_SPAN = 1.15  # crop side / die size
VALUE_VIEWS = 2  # views of each crop whose probabilities are averaged (1, 2, 4 or 8; see views)

_WARN = (0, 140, 255)
_OK = (40, 200, 40)


def _check(image: object) -> Image:
    if not isinstance(image, np.ndarray):
        raise UnreadableFrame(f"not an image array: {type(image).__name__}")
    if image.dtype != np.uint8:
        raise UnreadableFrame(f"image must be 8-bit BGR (uint8), got dtype {image.dtype}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise UnreadableFrame(f"image must be an H×W×3 BGR array, got shape {image.shape}")
    if min(image.shape[:2]) < 32:
        raise UnreadableFrame(
            f"image too small to read dice: {image.shape[1]}×{image.shape[0]} px (need 32×32)"
        )
    if image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(image)


def space_to_depth(work: Image) -> FloatImage:
    """H×W×3 uint8 (H, W multiples of 4) → 1×48×H/4×W/4 float32 in 0..1, channel = (dy, dx, c)
    of the pixel in its 4×4 cell. ``tools/train_pips.py`` does the same in torch."""
    h, w = work.shape[:2]
    cells = work.reshape(h // 4, 4, w // 4, 4, 3).transpose(1, 3, 4, 0, 2)
    return cells.reshape(1, 48, h // 4, w // 4).astype(np.float32) * np.float32(1 / 255)


def value_crop(image: Image, x: float, y: float, size: float, angle: float = 0.0) -> Image:
    """VALUE_PX×VALUE_PX crop of the die at (x, y) of side ``size`` (frame pixels), turned by
    ``angle``; what the value network reads (``tools/train_pips.py`` cuts its samples alike)."""
    k = VALUE_PX / (VALUE_SPAN * size)
    m = f64(cv2.getRotationMatrix2D((x, y), angle, k))
    m[:, 2] += (VALUE_PX / 2 - x, VALUE_PX / 2 - y)
    return u8(
        cv2.warpAffine(
            image, m, (VALUE_PX, VALUE_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    )


def views(crops: Image, count: int = VALUE_VIEWS) -> Image:
    """N×H×W×3 crops → N×count×H×W×3: each crop as it is, turned by 180° (count 2), by 90°, 180°
    and 270° (4), and the mirror images of these 4 (8). The pips on a die's top face are as many
    in every one of them."""
    if count not in (1, 2, 4, 8):
        raise ValueError(f"views must be 1, 2, 4 or 8, not {count}")
    turns = [0, 2] if count == 2 else list(range(min(count, 4)))
    out = [np.rot90(crops, k, axes=(1, 2)) for k in turns]
    if count == 8:
        out += [v[:, :, ::-1] for v in out]
    return np.stack(out, axis=1)


def _sigmoid(x: FloatImage) -> FloatImage:
    return f32(1.0 / (1.0 + np.exp(-x)))


def _angle(image: Image, x: float, y: float, size: float) -> float:
    """Rotation (0..90°) of the die's outline around (x, y); 0 when unclear."""
    half = int(0.75 * size) + 2
    x0, y0 = int(x) - half, int(y) - half
    if x0 < 0 or y0 < 0 or x0 + 2 * half >= image.shape[1] or y0 + 2 * half >= image.shape[0]:
        return 0.0
    patch = image[y0 : y0 + 2 * half, x0 : x0 + 2 * half]
    k = 32.0 / (2 * half)
    interpolation = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    patch = u8(cv2.resize(patch, (32, 32), interpolation=interpolation))
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    ring = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    d = np.sqrt(((lab - np.median(ring, axis=0)) ** 2 * (1.0, 2.0, 2.0)).sum(axis=2))
    # OpenCV makes the result when dst is None; its stubs want a dst array.
    d8 = cv2.normalize(d, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)  # type: ignore[call-overload, unused-ignore]
    _, mask = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, lbl = cv2.connectedComponents(mask, connectivity=4)
    if n < 2 or lbl[16, 16] == 0:
        return 0.0
    blob = (lbl == lbl[16, 16]).astype(np.uint8)
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    c = max(contours, key=cv2.contourArea)
    (_, _), (w, h), angle = cv2.minAreaRect(c)
    side = size * k
    if min(w, h) < 0.5 * side or max(w, h) > 1.5 * side or max(w, h) > 1.35 * min(w, h):
        return 0.0  # merged with a neighbour, or not a clear square
    return float(angle % 90.0)


class PipReader:
    """The reader with its two models (the shipped ones unless paths are given) and detection
    threshold; ``read_pips`` uses one shared default instance."""

    def __init__(
        self,
        model: str | Path | None = None,
        values: str | Path | None = None,
        detect_at: float = DETECT_AT,
        value_views: int = VALUE_VIEWS,
    ) -> None:
        self.net = _load(model, "pips.onnx")
        self.values = _load(values, "pips_values.onnx")
        self.detect_at = detect_at
        views(np.zeros((1, 2, 2, 3), np.uint8), value_views)  # refuse a wrong count now
        self.value_views = value_views
        self.last_heat: list[float] = []  # heat-map peak of each reading of the last frame

    def raw(self, work: Image) -> FloatImage:
        """Network output (10×H/4×W/4) for a working image whose sides are multiples of 8."""
        self.net.setInput(space_to_depth(work))
        out: FloatImage = np.asarray(self.net.forward())[0]
        return out

    def value_probs(self, crops: list[Image]) -> FloatImage:
        """N×7 probabilities (1-6 pips, not a die) of VALUE_PX² crops (``value_crop``): the mean
        of the value network's softmax over ``value_views`` views of each crop (``views``), all
        views of all crops in one forward pass."""
        n, k = len(crops), self.value_views
        batch = views(np.stack(crops), k).reshape(n * k, VALUE_PX, VALUE_PX, 3)
        blob = np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32)
        self.values.setInput(blob * np.float32(1 / 255))
        logits = np.asarray(self.values.forward()).reshape(n, k, 7)
        p = np.exp(logits - logits.max(axis=2, keepdims=True))
        p /= p.sum(axis=2, keepdims=True)
        probabilities: FloatImage = p.mean(axis=1)
        return probabilities

    def detect(self, image: Image) -> tuple[Image, float, list[tuple[float, ...]]]:
        """(working image, its scale, candidates (x, y, size, heat peak) at the working scale)."""
        h, w = image.shape[:2]
        scale = WORK_SHORT_SIDE / min(h, w)
        ww, wh = max(8, round(w * scale)), max(8, round(h * scale))
        interp = cv2.INTER_AREA if scale < 0.35 else cv2.INTER_LINEAR
        work = u8(cv2.resize(image, (ww, wh), interpolation=interp))
        work = u8(cv2.copyMakeBorder(work, 0, -wh % 8, 0, -ww % 8, cv2.BORDER_REPLICATE))
        out = self.raw(work)
        heat = _sigmoid(out[0])
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > self.detect_at)
        ys, xs = np.nonzero(peaks)
        kept: list[tuple[float, ...]] = []
        for i in np.argsort(-heat[ys, xs]):
            cy, cx = int(ys[i]), int(xs[i])
            size = float(np.exp(out[7, cy, cx])) * STRIDE
            x = (cx + float(out[8, cy, cx])) * STRIDE
            y = (cy + float(out[9, cy, cx])) * STRIDE
            if any(math.hypot(x - k[0], y - k[1]) < 0.5 * max(size, k[2]) for k in kept):
                continue
            kept.append((x, y, size, float(heat[cy, cx])))
        return work, scale, kept

    def read(self, image: Image) -> list[DieReading]:
        img = _check(image)
        h, w = img.shape[:2]
        work, scale, kept = self.detect(img)
        self.last_heat = []
        if not kept:
            return []
        crops, found = [], []
        for xw, yw, sw, peak in kept:
            x, y, size = (xw + 0.5) / scale - 0.5, (yw + 0.5) / scale - 0.5, sw / scale
            angle = _angle(img, x, y, size)
            found.append((x, y, size, angle, peak))
            if size > 2.5 * VALUE_PX:  # far larger than trained: cut from the working image
                crops.append(value_crop(work, xw, yw, sw, angle))
            else:
                crops.append(value_crop(img, x, y, size, angle))
        p = self.value_probs(crops)
        readings = []
        for (x, y, size, angle, peak), probs in zip(found, p, strict=True):
            if probs[6] > REJECT_AT or probs[6] >= probs[:6].max():
                continue  # the second look says: not a die (a hole, a rim, a shadow)
            top = np.argsort(-probs[:6])
            confidence = math.sqrt(peak) * (float(probs[top[0]]) - 0.5 * float(probs[top[1]]))
            if min(x, y, w - 1 - x, h - 1 - y) < 0.3 * size:
                confidence *= 0.5  # cut by the frame's border
            self.last_heat.append(peak)
            turn = math.radians(angle)  # the model's size is the side of the upright box
            side = size / (abs(math.cos(turn)) + abs(math.sin(turn)))
            readings.append(
                DieReading(
                    x=float(x),
                    y=float(y),
                    size=float(side),
                    angle=angle,
                    confidence=float(np.clip(confidence, 0.0, 1.0)),
                    value=int(top[0]) + 1,
                )
            )
        return readings


def _load(path: str | Path | None, shipped: str) -> cv2.dnn.Net:
    if path is not None:
        return cv2.dnn.readNetFromONNX(str(path))
    with resources.as_file(resources.files("vision") / "models" / shipped) as p:
        return cv2.dnn.readNetFromONNX(str(p))


_SHARED = threading.Lock()
"""One shared reader, one pair of networks, which take one input at a time: reads from several
threads wait for each other."""


@lru_cache(maxsize=1)
def _default_reader() -> PipReader:
    return PipReader()


def read_pips(image: Image) -> list[DieReading]:
    """Every pip die seen in a BGR frame (any size): centre, side and angle (0..90°) of the die
    from above, in the frame's pixels; value 1-6; confidence 0..1 (flagged below
    ``CONFIRM_BELOW``: an unsure pip count or a weak detection, a die cut by the border).

    Raises :class:`UnreadableFrame` for anything that is not an 8-bit colour image.
    """
    img = _check(image)
    with _SHARED:
        return _default_reader().read(img)


def annotate_pips(image: Image, readings: list[DieReading]) -> Image:
    """A copy of the frame with each die outlined (rotated square) and its value written;
    flagged readings (confidence below ``CONFIRM_BELOW``) in orange with a question mark."""
    out = _check(image).copy()
    thick = max(1, round(min(out.shape[:2]) / 400))
    for r in readings:
        colour = _WARN if r.flagged else _OK
        box = cv2.boxPoints(((r.x, r.y), (r.size, r.size), r.angle)).astype(np.int32)
        cv2.polylines(out, [box], True, colour, thick, cv2.LINE_AA)
        text = f"{r.value}?" if r.flagged else str(r.value)
        font = max(0.4, r.size / 60)
        org = (int(r.x - r.size / 2), int(r.y - r.size / 2 - 3))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, font, (255, 255, 255), thick + 2)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, font, colour, thick)
    return out
