"""What the training scripts share (``tools/train_pips.py``, ``tools/train_cubes.py``): the
depthwise-separable building blocks, the 4×4 space-to-depth of the runtime readers, and the
ONNX export checked against ``cv2.dnn``. Needs torch (training only; the companion never
imports this)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn


def cbr(ci: int, co: int, k: int = 3, s: int = 1, g: int = 1, d: int = 1) -> nn.Sequential:
    """Convolution, batch norm, ReLU."""
    pad = d * (k // 2)
    return nn.Sequential(
        nn.Conv2d(ci, co, k, s, pad, dilation=d, groups=g, bias=False),
        nn.BatchNorm2d(co),
        nn.ReLU(inplace=True),
    )


class Block(nn.Module):
    """Depthwise 3×3 + pointwise 1×1, residual when the shape allows."""

    def __init__(self, ci: int, co: int, stride: int = 1, dilation: int = 1) -> None:
        super().__init__()
        self.dw = cbr(ci, ci, 3, stride, ci, dilation)
        self.pw = cbr(ci, co, 1)
        self.res = stride == 1 and ci == co

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.pw(self.dw(x))
        return x + y if self.res else y


def space_to_depth(x: torch.Tensor) -> torch.Tensor:
    """N×3×H×W → N×48×H/4×W/4 with channel = (dy, dx, c), as the runtime readers' own
    ``space_to_depth`` (``vision.pips``, ``vision.cube_net``)."""
    n, c, h, w = x.shape
    x = x.view(n, c, h // 4, 4, w // 4, 4).permute(0, 3, 5, 1, 2, 4)
    return x.reshape(n, 48, h // 4, w // 4)


def export(
    model: nn.Module,
    path: Path,
    dummy: torch.Tensor,
    check: torch.Tensor,
    axes: dict[str, dict[int, str]],
) -> None:
    """Write ``model`` as ONNX (opset 13) with input "cells" and output "out" (``axes``: the
    dynamic ones), load it back with ``cv2.dnn`` and check it gives torch's output on
    ``check`` (to 1e-3)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        opset_version=13,
        dynamo=False,
        input_names=["cells"],
        output_names=["out"],
        dynamic_axes=axes,
    )
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(check.numpy())
    got = np.asarray(net.forward())
    with torch.no_grad():
        want = model(check).numpy()
    err = float(np.abs(got - want).max())
    print(f"  exported {path} ({path.stat().st_size / 1024:.0f} KiB), cv2.dnn vs torch: {err:.1e}")
    assert err < 1e-3, err
