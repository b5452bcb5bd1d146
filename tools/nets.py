"""What the training scripts share (``tools/train_pips.py``, ``tools/train_cubes.py``): the
depthwise-separable building blocks, the 4×4 space-to-depth of the runtime readers, and the
ONNX export checked against ``cv2.dnn``. Needs torch (training only; the companion never
imports this)."""

from __future__ import annotations

import itertools
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


def from_onnx(model: nn.Module, path: Path, calibrate: torch.Tensor) -> None:
    """Load a model that ``export`` wrote back into ``model`` (the same network), to fine-tune
    a shipped model whose torch weights were not kept. Needs the ``onnx`` package.

    The export folded each batch norm into the convolution before it, so each convolution takes
    the folded weights, and its batch norm is set to add the folded bias once the statistics of
    its input on ``calibrate`` (a batch like the training's) are taken out and put back: exactly
    the ONNX model in eval mode (checked here against ``cv2.dnn`` on ``calibrate``, to 1e-3), and
    near it in training mode, whose batch statistics are close to those."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    stored = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    nodes = [n for n in graph.node if n.op_type == "Conv"]
    convs = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    if len(nodes) != len(convs):
        raise ValueError(f"{path} has {len(nodes)} convolutions, the network {len(convs)}")
    norm_of: dict[nn.Module, nn.BatchNorm2d] = {}
    for seq in model.modules():
        if isinstance(seq, nn.Sequential):
            for a, b in itertools.pairwise(seq):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    norm_of[a] = b
    model.eval()
    with torch.no_grad():
        for node, conv in zip(nodes, convs, strict=True):
            weight = torch.from_numpy(stored[node.input[1]].copy())
            if weight.shape != conv.weight.shape:
                raise ValueError(
                    f"{node.name}: {tuple(weight.shape)}, not {tuple(conv.weight.shape)}"
                )
            bias = torch.from_numpy(stored[node.input[2]].copy()) if len(node.input) > 2 else None
            conv.weight.copy_(weight)
            norm = norm_of.get(conv)
            if norm is None:
                assert conv.bias is not None and bias is not None, node.name
                conv.bias.copy_(bias)
                continue
            norm.weight.fill_(1.0)
            norm.bias.copy_(bias if bias is not None else torch.zeros_like(norm.bias))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)  # eval: x + bias, exactly
        # Each norm's input statistics on the batch, taken out and put back: eval unchanged.
        seen: dict[nn.BatchNorm2d, tuple[torch.Tensor, torch.Tensor]] = {}
        hooks = [
            norm.register_forward_pre_hook(
                lambda m, x: seen.__setitem__(m, (x[0].mean((0, 2, 3)), x[0].var((0, 2, 3))))
            )
            for norm in norm_of.values()
        ]
        model(calibrate)
        for hook in hooks:
            hook.remove()
        for norm, (mean, var) in seen.items():
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.add_(mean)
        want = model(calibrate).numpy()
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(calibrate.numpy())
    err = float(np.abs(np.asarray(net.forward()) - want).max())
    print(f"  loaded {path} into the network, torch vs cv2.dnn: {err:.1e}")
    if err >= 1e-3:
        raise ValueError(f"{path} does not load into this network (error {err:.1e})")
