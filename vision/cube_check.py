"""A second look at each cube the learned detector found: a small classifier that reads the
full-resolution frame round the detection and says whether it is a cube at all, its colour and
whether its hole shows (``models/cube_check.onnx``, trained by ``tools/train_cube_check.py``).

The detector (``vision.cube_net``) reads the whole frame shrunk to its working scale through
4×4 cells; this looks again at each of its detections alone, at a fixed size: the crop spans
``CHECK_SPAN`` times the detected top face and is ``CHECK_PX`` pixels wide, whatever the cube's
size in the frame. How ``vision.cube_net.CubeNetReader`` combines the two looks is told there.

OpenCV only at runtime: ``cv2.dnn`` runs the ONNX model on all the crops of a frame at once.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.arrays import FloatImage, Image, f64, u8

__all__ = ["CHECK_PX", "CHECK_SPAN", "CLASSES", "CubeCheck", "check_crop"]

CHECK_PX = 32  # side of the crop the classifier reads
CHECK_SPAN = 2.0  # crop side / the detected top face's size: the face, its sides and shadow
CLASSES = ("none", "red", "yellow", "blue", "black")  # "none": not a cube


def check_crop(image: Image, x: float, y: float, size: float, px: int = CHECK_PX) -> Image:
    """``px``×``px`` crop centred on (x, y) spanning ``CHECK_SPAN`` × ``size`` frame pixels
    (edges repeated past the frame); ``tools/train_cube_check.py`` cuts its samples alike."""
    k = CHECK_PX / (CHECK_SPAN * max(size, 1.0))
    m = f64(cv2.getRotationMatrix2D((x, y), 0.0, k))
    m[:, 2] += (px / 2 - x, px / 2 - y)
    interp = cv2.INTER_AREA if k < 0.5 else cv2.INTER_LINEAR
    return u8(cv2.warpAffine(image, m, (px, px), flags=interp, borderMode=cv2.BORDER_REPLICATE))


class CubeCheck:
    """The classifier, given its network (``vision.cube_net.load_model``)."""

    def __init__(self, net: cv2.dnn.Net) -> None:
        self.net = net

    def probabilities(
        self, image: Image, boxes: list[tuple[float, float, float]]
    ) -> tuple[FloatImage, FloatImage]:
        """For each (x, y, size) of ``boxes``: the probabilities of ``CLASSES`` (N×5) and of the
        hole showing (N)."""
        if not boxes:
            return np.zeros((0, len(CLASSES)), np.float32), np.zeros(0, np.float32)
        crops = np.stack([check_crop(image, x, y, s) for x, y, s in boxes])
        blob = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32) * np.float32(1 / 255)
        self.net.setInput(blob)
        out = np.asarray(self.net.forward()).reshape(len(boxes), len(CLASSES) + 1)
        logits = out[:, : len(CLASSES)]
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        hole = 1.0 / (1.0 + np.exp(-out[:, len(CLASSES)]))
        return p.astype(np.float32), hole.astype(np.float32)
