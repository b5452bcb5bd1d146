"""Train the learned cube reader shipped as vision/models/cubes.onnx (read by vision/cube_net.py).

NOT part of the runtime: this needs ``pip install torch onnx`` (the companion itself only needs
OpenCV). Run from the repository's root (docs/vision/cube_net.md has the figures):

    python tools/train_cubes.py --cache-only    # render the training and validation scenes
    python tools/train_cubes.py                 # train → vision/models/cubes.onnx (~70 min)
    python tools/train_cubes.py --tune          # DETECT_AT × SURE_AT sweep, validation seeds
    python tools/train_cubes.py --evaluate 200 --renders renders/heldout   # held-out figures

Data: generated scenes only (``vision.synthetic``): scene ``seed`` is
``cube_scene(seed, 8 + seed % 17, **wild_cube_knobs(seed))``, a random real table (table,
light, colour temperature, white balance, exposure, camera height, lens, blur, JPEG, faded or
glossy plastics, hands, cups, markers, leaning cubes) with 8-24 cubes. Training uses seeds
``0 .. --scenes-1`` (2,400 by default, 5,847 for the shipped model; all below ``VAL_SEEDS``);
``vision.cube_net.DETECT_AT`` and ``SURE_AT`` are chosen on ``VAL_SEEDS`` (49,800-49,999,
never trained on). Seeds from ``HELD_OUT`` (1,000,000) on are for the honest figures only
(``--evaluate``, beside ``vision.cubes.read_cubes``): nothing is trained or tuned on them.
Blender renders (``--renders``, ``tools/render/truth.py``) of validation and held-out seeds are
another source, never trained on. ``--train-renders renders/train`` adds renders of training
seeds (``TRAIN_RENDERS``, 200,000-299,999; any other seed is refused) to the training frames,
read as the throw desk reads them (white-balanced by the markers' paper), their cubes at least
half in view the truth, drawn ``--render-share`` of the time: run 10 is run 7 fine-tuned so on
this CPU (``--scenes 1800 --init run7.onnx --lr 1.5e-3 --seconds 1800 --render-share 0.25``, 61
renders), the shipped model (run 11) run 10 fine-tuned so on a GPU (``tools/train_on_gpu.sh``
with ``TRAIN_RENDERS`` and ``SHARES="0.5"``, 200 renders; docs/vision/cube_net.md).
The scenes are rendered once into ``--cache`` (a PNG and a JSON of the truth per seed,
about 1 MB per scene; about 1.7 s per scene on one busy core).

Model (``CubeNet``, 117 k weights): CenterNet-style, fully convolutional, stride 4. Input = the
image at the working scale (``vision.cube_net.WORK_SHORT_SIDE``) rearranged into 4×4 cells (48
channels); depthwise-separable blocks at 1/4, 1/8 and 1/16 of the image, a global context (mean
of the 1/16 features through a 1×1 convolution, added everywhere), a top-down merge back to
1/4. Output per cell: centre heat map (focal loss), 4 colour logits and a hole logit
(cross-entropy on the 3×3 cells round each centre), log size, centre offset and (cos 4θ,
sin 4θ) of the top face's turn (L1; size and offset at the centre cell, the angle on the 3×3
cells).

Samples: ``--crop``² crops (128 px) of the scenes at the working scale ×0.6-1.6 (cubes about
9-55 px), centred near a cube 60 % of the time (else anywhere; the patterned tables, cloth, mat
and lacquer, twice as often as the others), any rotation, mirror images half the time, and on
top of what the generator already varies: white-balance and colour-temperature gains,
exposure, gamma and contrast, Gaussian or motion blur, noise, JPEG. No channel swaps (the
colours are the labels). Hard negatives: at each share of the steps in ``--mine-at`` (30 %,
50 %, 70 %) the model reads ``--mine`` (300) training scenes and its strongest false detections are
kept; a quarter of the later crops are centred on them. AdamW, one-cycle learning rate to
``--lr`` (4e-3), ``--steps`` (10,000) steps of ``--batch`` (24) crops.

After training the model is exported (ONNX opset 13), loaded back with ``cv2.dnn`` and compared
with torch (< 1e-3), then the runtime reader (``vision.cube_net.CubeNetReader``) is measured on
the validation seeds for each pair of thresholds (``DETECT`` × ``SURE``) with the benchmark's
matching (``benchmarks/vision_scenes.py``, ``evaluate_cubes``).

The sampler, the training loop and the mining serve any ``Task`` (what a CenterNet reader finds:
its outputs, working scale, sizes, targets and loss); ``CUBES`` is this one's, and
``tools/train_tessons.py`` trains the tesson reader with its own.

Seeds are fixed (torch's CPU kernels may still differ in the last digits between runs).
``--threads`` (default 1) is torch's CPU threads; ``--workers`` (default 1) processes cut and
augment the crops beside the training. On this machine's 2 cores, shared with another training,
run 5 took 66 minutes of steps (plus 1.5 to load the cache and 3 to mine). ``--seconds`` trains
for that much wall clock instead of ``--steps`` (the learning rate follows the clock) and
``--device cuda`` on a GPU: ``tools/train_on_gpu.sh`` trained run 6 so, in
280 s on one H100 with 15 processes cutting crops (docs/vision/cube_net.md). ``--init`` starts
from a run's weights: the shipped model (run 7) is run 6 fine-tuned so for 290 s on an H200 on
the generator with piles and hot spots (``INIT=… LR=3e-3 bash tools/train_on_gpu.sh``).
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import math
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tools" / "render"))

import nets  # noqa: E402
from nets import Block, cbr, space_to_depth  # noqa: E402
from vision_renders import not_of_hidden  # type: ignore[import-not-found]  # noqa: E402
from vision_scenes import _match, evaluate_cubes  # type: ignore[import-not-found]  # noqa: E402

from vision.cube_net import (  # noqa: E402
    COLORS,
    OUTPUTS,
    STRIDE,
    WORK_SHORT_SIDE,
    CubeNetReader,
    detection_confidence,
    working_image,
)
from vision.readings import DieReading  # noqa: E402
from vision.synthetic import Scene, cube_scene, wild_cube_knobs, wild_cube_scene  # noqa: E402

OUT = ROOT / "vision" / "models" / "cubes.onnx"
CACHE = Path(tempfile.gettempdir()) / "cubes-cache"
VAL_SEEDS = range(49_800, 50_000)  # threshold chosen here; never trained on
HELD_OUT = 1_000_000  # seeds from here on: honest figures only, never trained or tuned on
TRAIN_RENDERS = range(200_000, 300_000)  # Blender seeds a reader may train on (renders.md)
SCALES = (0.6, 1.6)  # crop scale relative to the working scale
BUSY_TABLES = ("cloth", "flowered cloth", "mat", "lacquer")  # patterns, mirrors: sampled 2×
NEAR_A_CUBE = 0.6  # share of the crops centred near a cube (the others anywhere)
MINED_PER_SCENE = 20  # the strongest false detections of a scene kept by the mining
ON_A_MISTAKE = 0.25  # after the mining, share of the crops centred on a mined false detection

# --- model ------------------------------------------------------------------------------------


class CubeNet(nn.Module):
    """The network; ``tools/train_tessons.py`` trains the same with fewer ``outputs``."""

    def __init__(self, c4: int = 32, c8: int = 64, c16: int = 128, outputs: int = OUTPUTS) -> None:
        super().__init__()
        self.stem = cbr(48, c4, 1)
        self.b4 = Block(c4, c4)
        self.down8 = Block(c4, c8, stride=2)
        self.b8 = nn.Sequential(*[Block(c8, c8) for _ in range(3)])
        self.down16 = Block(c8, c16, stride=2)
        self.b16 = nn.Sequential(*[Block(c16, c16, dilation=1 + i % 2) for i in range(3)])
        self.context = nn.Conv2d(c16, c16, 1)
        self.up16 = cbr(c16, c8, 1)
        self.merge8 = Block(c8, c8)
        self.up8 = cbr(c8, c4, 1)
        self.merge4 = Block(c4, c4)
        self.head = nn.Conv2d(c4, outputs, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.b4(self.stem(x))
        b = self.b8(self.down8(a))
        c = self.b16(self.down16(b))
        c = c + torch.relu(self.context(F.adaptive_avg_pool2d(c, 1)))
        b = self.merge8(b + F.interpolate(self.up16(c), scale_factor=2.0, mode="nearest"))
        a = self.merge4(a + F.interpolate(self.up8(b), scale_factor=2.0, mode="nearest"))
        out: torch.Tensor = self.head(a)
        return out


# --- data -------------------------------------------------------------------------------------


def scene_of(seed: int) -> Scene:
    """Training (and validation) scene ``seed``: a random table with 8-24 cubes."""
    return cube_scene(seed, 8 + seed % 17, **wild_cube_knobs(seed))


def truth_array(dice: tuple[DieReading, ...] | list[DieReading]) -> np.ndarray:
    """N×6: x, y, size, angle, colour index, hole."""
    rows = [[d.x, d.y, d.size, d.angle, COLORS.index(d.color or ""), float(bool(d.hole))]
            for d in dice]  # fmt: skip
    return np.array(rows, np.float32).reshape(-1, 6)


def _render(args: tuple[Path, int]) -> None:
    cache, seed = args
    js = cache / f"{seed:06d}.json"
    if js.exists():
        return
    knobs = wild_cube_knobs(seed)
    scene = scene_of(seed)
    png = cache / f"{seed:06d}.{os.getpid()}.tmp.png"  # two trainers may render one seed
    cv2.imwrite(str(png), scene.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    os.replace(png, cache / f"{seed:06d}.png")
    dice = [[d.x, d.y, d.size, d.angle, COLORS.index(d.color or ""), int(bool(d.hole))]
            for d in scene.dice]  # fmt: skip
    tmp = js.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"seed": seed, "dice": dice, "knobs": knobs,
                               "leaning": list(scene.leaning),
                               "partly_hidden": list(scene.partly_hidden)}))  # fmt: skip
    os.replace(tmp, js)


def build_cache(
    cache: Path, seeds: range, workers: int, render: Callable[[tuple[Path, int]], None] = _render
) -> None:
    """Render the scenes of ``seeds`` that ``cache`` lacks (``render``: one scene's PNG and
    JSON)."""
    cache.mkdir(parents=True, exist_ok=True)
    todo = [(cache, s) for s in seeds if not (cache / f"{s:06d}.json").exists()]
    print(f"cache {cache}: {len(seeds) - len(todo)} scenes there, rendering {len(todo)}")
    t0 = time.time()
    with multiprocessing.Pool(workers) as pool:
        for i, _ in enumerate(pool.imap_unordered(render, todo, chunksize=4), 1):
            if i % 100 == 0:
                print(f"  {i}/{len(todo)} ({time.time() - t0:.0f} s)", flush=True)


Frame = tuple[np.ndarray, np.ndarray, float]  # image, truth (truth_array), sampling weight
Mistakes = list[tuple[int, float, float]]  # false detections: frame index, x, y (frame pixels)


def _read(path: Path) -> np.ndarray:
    image = cv2.imread(str(path))
    if image is None:
        raise FileNotFoundError(f"{path}: missing or unreadable (render the cache again)")
    return image


def _load(js: Path) -> Frame:
    data = json.loads(js.read_text())
    dice = np.array(data["dice"], np.float32).reshape(-1, 6)
    image = _read(js.with_suffix(".png"))
    return image, dice, 2.0 if data["knobs"]["table"] in BUSY_TABLES else 1.0


def load_cache(cache: Path, seeds: range) -> list[Frame]:
    """The cached scenes of ``seeds`` (those rendered), read by 8 threads."""
    found = [cache / f"{seed:06d}.json" for seed in seeds]
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(_load, [js for js in found if js.exists()]))


def as_the_desk_reads(folders: list[Path], kind: str = "cubes") -> list[tuple[Any, np.ndarray]]:
    """The ``kind`` renders of ``folders``, each with its frame as the desk reads it
    (white-balanced by the paper round the markers the render's truth places)."""
    from truth import load_all  # type: ignore[import-not-found]

    from vision.white_balance import white_from_markers

    out = []
    for r in (r for folder in folders for r in load_all(folder, kind)):
        white = white_from_markers(r.image, {m.id: m.corners for m in r.markers})
        out.append((r, r.image if white is None else white.apply(r.image)))
    return out


def desk_renders(folders: list[Path], kind: str = "cubes") -> list[tuple[Any, np.ndarray]]:
    """``as_the_desk_reads``, for training: only training seeds (``TRAIN_RENDERS``); a folder
    holding a validation or held-out render is refused."""
    found = as_the_desk_reads(folders, kind)
    wrong = [r.seed for r, _ in found if r.seed not in TRAIN_RENDERS]
    if wrong:
        first, last = TRAIN_RENDERS.start, TRAIN_RENDERS.stop - 1
        raise SystemExit(f"renders {wrong[:5]} are not training seeds ({first:,}-{last:,})")
    if not found:
        raise SystemExit(f"no {kind} renders in {', '.join(map(str, folders))}")
    return found


def cube_rows(render: Any) -> np.ndarray:
    """A cube render's truth rows: its cubes at least half in view."""
    return truth_array([d for d in render.dice if d.visible >= 0.5])


def training_renders(
    folders: list[Path],
    share: float,
    frames: list[Frame],
    kind: str = "cubes",
    rows: Callable[[Any], np.ndarray] = cube_rows,
) -> list[Frame]:
    """The training renders of ``folders`` (``desk_renders``) as frames beside the generated
    ``frames``, with their truth ``rows``, weighted so that they are drawn ``share`` of the
    time."""
    found = desk_renders(folders, kind)
    weight = share / (1.0 - share) * sum(w for _, _, w in frames) / len(found)
    return [(image, rows(r), weight) for r, image in found]


class Sampler:
    """Augmented crops of the frames at the ``task``'s working scale, and their labels: each
    truth row's centre and size moved with the crop (and its angle, for a turned task)."""

    def __init__(
        self,
        frames: list[Frame],
        seed: int,
        crop: int,
        mistakes: Mistakes | None = None,
        task: Task | None = None,
    ) -> None:
        self.task = task or CUBES
        self.frames = frames
        self.mistakes = mistakes or []
        weights = np.array([w for _, _, w in frames])
        self.p = weights / weights.sum()
        self.rng = np.random.default_rng(seed)
        self.crop = crop

    def sample(self) -> tuple[np.ndarray, np.ndarray]:
        rng, crop = self.rng, self.crop
        mistake = None
        if self.mistakes and rng.random() < ON_A_MISTAKE:
            mistake = self.mistakes[rng.integers(len(self.mistakes))]
            image, dice, _ = self.frames[mistake[0]]
        else:
            image, dice, _ = self.frames[rng.choice(len(self.frames), p=self.p)]
        task = self.task
        base = task.work_side / min(image.shape[:2])
        k = base * math.exp(rng.uniform(math.log(task.scales[0]), math.log(task.scales[1])))
        if len(dice):
            typical = float(np.median(dice[:, 2])) * k
            k *= min(1.0, task.sizes[1] / typical) * max(1.0, task.sizes[0] / typical)
        if mistake is not None:
            cx, cy = np.array(mistake[1:]) + rng.normal(0, 0.1 * crop / k, 2)
        elif len(dice) and rng.random() < task.near:
            cx, cy = dice[rng.integers(len(dice)), :2] + rng.normal(0, 0.2 * crop / k, 2)
        else:
            cx, cy = rng.uniform(0, image.shape[1]), rng.uniform(0, image.shape[0])
        turn = float(rng.uniform(0, 360))
        m = cv2.getRotationMatrix2D((float(cx), float(cy)), turn, k)
        m[:, 2] += (crop / 2 - cx, crop / 2 - cy)
        flip = rng.random() < 0.5
        if flip:
            m[0] = -m[0]
            m[0, 2] += crop - 1
        out = cv2.warpAffine(
            image, m, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        labels = []
        if len(dice):
            xy = dice[:, :2] @ m[:, :2].T + m[:, 2]
            for (x, y), row in zip(xy, dice.tolist(), strict=True):
                if 0 <= x < crop and 0 <= y < crop:
                    row[:3] = x, y, row[2] * k
                    if task.turned:
                        row[3] = (row[3] - turn) % 90.0
                        if flip:
                            row[3] = -row[3] % 90.0
                    labels.append(row)
        return self.colour(out), np.array(labels, np.float32).reshape(-1, dice.shape[1])

    def colour(self, crop: np.ndarray) -> np.ndarray:
        return augment(self.rng, crop)


def augment(rng: np.random.Generator, crop: np.ndarray) -> np.ndarray:
    """Light, camera and compression on top of the generator's (no channel swaps)."""
    x: np.ndarray = crop.astype(np.float32)
    warm = rng.uniform(-0.12, 0.12)
    gains = np.exp(rng.normal(0, 0.05, 3)) * (1 - warm, 1.0, 1 + warm)
    x = x * (gains * math.exp(rng.uniform(math.log(0.7), math.log(1.4)))).astype(np.float32)
    mean = float(x.mean())
    x = (x - mean) * rng.uniform(0.8, 1.2) + mean
    if rng.random() < 0.3:
        x = 255.0 * (np.clip(x, 0, 255) / 255.0) ** rng.uniform(0.8, 1.25)
    u = rng.random()
    if u < 0.25:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.2))
    elif u < 0.4:
        length = int(rng.integers(2, 6))
        kernel: np.ndarray = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1.0 / length
        rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        x = cv2.filter2D(x, -1, kernel / max(kernel.sum(), 1e-6))
    if rng.random() < 0.5:
        x += rng.normal(0, rng.uniform(1, 6), x.shape).astype(np.float32)
    x8: np.ndarray = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        _, buf = cv2.imencode(".jpg", x8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is not None:
            x8 = decoded
    return x8


def targets(dice: np.ndarray, crop: int) -> tuple[np.ndarray, ...]:
    """heat (g×g), colour class (g×g, -100 = none), hole (g×g), its mask, regression (5×g×g:
    log size, x/y offset at the centre cell), its mask, angle (2×g×g on the 3×3 cells)."""
    g = crop // STRIDE
    heat = np.zeros((g, g), np.float32)
    cls = np.full((g, g), -100, np.int64)
    hole = np.zeros((g, g), np.float32)
    near = np.zeros((g, g), np.float32)
    reg = np.zeros((3, g, g), np.float32)
    reg_mask = np.zeros((g, g), np.float32)
    turn = np.zeros((2, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, s, a, c, h in sorted(dice.tolist(), key=lambda d: -d[2]):
        gx, gy = x / STRIDE, y / STRIDE
        ix, iy = int(gx), int(gy)
        sigma = max(0.6, 0.15 * s / STRIDE)
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma * sigma)))
        box = np.s_[max(0, iy - 1) : iy + 2, max(0, ix - 1) : ix + 2]
        cls[box] = int(c)
        hole[box] = h
        near[box] = 1.0
        t = math.radians(4 * a)
        turn[0][box], turn[1][box] = math.cos(t), math.sin(t)
        reg[:, iy, ix] = (math.log(s / STRIDE), gx - ix, gy - iy)
        reg_mask[iy, ix] = 1.0
    return heat, cls, hole, near, reg, reg_mask, turn


class Crops(torch.utils.data.IterableDataset):  # type: ignore[type-arg]
    """Endless batches of augmented crops and their targets (one sampler per worker)."""

    def __init__(
        self, frames: list[Frame], seed: int, batch: int, crop: int, mistakes: Mistakes, task: Task
    ) -> None:
        self.frames, self.seed, self.batch, self.crop = frames, seed, batch, crop
        self.mistakes, self.task = mistakes, task

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        info = torch.utils.data.get_worker_info()
        seed = self.seed + 1000 * (info.id if info else 0)
        sampler = Sampler(self.frames, seed, self.crop, self.mistakes, self.task)
        cv2.setNumThreads(1)
        while True:
            images, parts = [], []
            for _ in range(self.batch):
                img, dice = sampler.sample()
                images.append(img)
                parts.append(self.task.targets(dice, self.crop))
            yield (torch.from_numpy(np.stack(images)),
                   *(torch.from_numpy(np.stack(p)) for p in zip(*parts, strict=True)))  # fmt: skip


def cells(crops: torch.Tensor) -> torch.Tensor:
    """A batch of uint8 crops (N×H×W×3, BGR) as the network's input (N×48×H/4×W/4)."""
    return space_to_depth(crops.permute(0, 3, 1, 2).float().div(255.0).contiguous())


def focal(logits: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    """CenterNet's focal loss of the heat map, per true centre."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    loss: torch.Tensor = -(
        pos * (1 - p) ** 2 * torch.log(p) + (1 - pos) * (1 - heat) ** 4 * p**2 * torch.log(1 - p)
    ).sum() / pos.sum().clamp(min=1)
    return loss


def loss_fn(
    out: torch.Tensor,
    heat: torch.Tensor,
    cls: torch.Tensor,
    hole: torch.Tensor,
    near: torch.Tensor,
    reg: torch.Tensor,
    reg_mask: torch.Tensor,
    turn: torch.Tensor,
) -> torch.Tensor:
    n_near = near.sum().clamp(min=1)
    colour = F.cross_entropy(out[:, 1:5], cls, ignore_index=-100, label_smoothing=0.02,
                             reduction="sum") / n_near  # fmt: skip
    holes = (F.binary_cross_entropy_with_logits(out[:, 5], hole, reduction="none") * near).sum()
    size_off = (F.l1_loss(out[:, 6:9], reg, reduction="none").sum(1) * reg_mask).sum()
    angle = (F.l1_loss(out[:, 9:11], turn, reduction="none").sum(1) * near).sum()
    total: torch.Tensor = (
        focal(out[:, 0], heat)
        + colour
        + holes / n_near
        + size_off / reg_mask.sum().clamp(min=1)
        + 0.5 * angle / n_near
    )
    return total


@dataclass(frozen=True)
class Task:
    """What a CenterNet reader is trained to find: its network's outputs, working scale, the
    sizes its crops show (px at the working scale), whether a truth row's angle (column 3)
    turns with the crop, its targets and loss, and the output channels of the centre offset."""

    outputs: int
    work_side: int
    sizes: tuple[float, float]
    turned: bool
    targets: Callable[[np.ndarray, int], tuple[np.ndarray, ...]]
    loss: Callable[..., torch.Tensor]
    offset: tuple[int, int]
    scales: tuple[float, float] = SCALES
    near: float = NEAR_A_CUBE


CUBES = Task(OUTPUTS, WORK_SHORT_SIDE, (9.0, 55.0), True, targets, loss_fn, (7, 8))


# --- training, export, evaluation --------------------------------------------------------------


def one_cycle(share: float, peak: float) -> float:
    """The learning rate at ``share`` of the run: torch's ``OneCycleLR`` (cosine, 5 % warm-up
    from ``peak`` / 25, down to ``peak`` / 250,000)."""
    low, last = peak / 25, peak / 25 / 1e4
    if share < 0.05:
        return peak + (low - peak) / 2 * (1 + math.cos(math.pi * share / 0.05))
    share = min(1.0, (share - 0.05) / 0.95)
    return last + (peak - last) / 2 * (1 + math.cos(math.pi * share))


class Progress:
    """How far the run is: ``--steps`` steps, or with ``--seconds``, that many seconds of
    wall clock (the mining included) however many steps they hold."""

    def __init__(self, steps: int, seconds: float | None) -> None:
        self.steps, self.seconds = steps, seconds
        self.step, self.t0 = 0, time.time()

    def share(self) -> float:
        if self.seconds:
            return (time.time() - self.t0) / self.seconds
        return self.step / self.steps

    def __str__(self) -> str:
        total = "" if self.seconds else f"/{self.steps}"
        return f"step {self.step}{total} ({time.time() - self.t0:.0f} s)"


def train(
    frames: list[Frame],
    args: argparse.Namespace,
    task: Task = CUBES,
    renders_from: int | None = None,
) -> CubeNet:
    """``--steps`` steps (or ``--seconds``); at each share of the run in ``--mine-at``, the
    model's false detections on ``--mine`` training scenes are mined and a share of the later
    crops is centred on them (patterned cloth, mirror images on a glossy table, a marker's
    squares, shadows). ``frames[renders_from:]`` are training renders: every one of them is
    mined each time, besides the generated scenes (a game mat's squares, a path-traced shadow).
    On ``--device`` (cpu, or cuda where there is a GPU)."""
    torch.manual_seed(args.seed)
    model = CubeNet(outputs=task.outputs)
    if args.init and args.init.suffix == ".onnx":  # a shipped model: its batch norms folded
        crops = next(iter(Crops(frames, args.seed, 64, args.crop, [], task)))[0]
        nets.from_onnx(model, args.init, cells(crops))
        print(f"starting from {args.init}")
    elif args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
        print(f"starting from {args.init}")
    model = model.to(args.device)
    print(f"CubeNet: {sum(p.numel() for p in model.parameters()):,} weights, on {args.device}")
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    bounds = [0.0, *(args.mine_at if args.mine else []), 1.0]
    mistakes: Mistakes = []
    progress = Progress(args.steps, args.seconds)
    for round_, until in enumerate(bounds[1:]):
        if round_:
            mistakes += mine(model, frames, args.mine, round_ - 1, task, args.device,
                             renders_from)  # fmt: skip
        _fit(model, opt, frames, mistakes, args, progress, until, task)
    print(f"  trained: {progress}", flush=True)
    return model.cpu().eval()


def _fit(
    model: CubeNet,
    opt: torch.optim.Optimizer,
    frames: list[Frame],
    mistakes: Mistakes,
    args: argparse.Namespace,
    progress: Progress,
    until: float,
    task: Task,
) -> None:
    """Steps until ``progress`` reaches the share ``until`` of the run."""
    data = torch.utils.data.DataLoader(
        Crops(frames, args.seed + progress.step, args.batch, args.crop, mistakes, task),
        batch_size=None,
        num_workers=args.workers,
        prefetch_factor=4 if args.workers else None,
        pin_memory=args.device != "cpu",
    )
    model.train()
    running = 0.0
    for first, (crops, *tg) in enumerate(data):
        share = progress.share()
        if share >= until:
            break
        for group in opt.param_groups:
            group["lr"] = one_cycle(share, args.lr)
        x = cells(crops.to(args.device, non_blocking=True))
        loss = task.loss(model(x), *(t.to(args.device, non_blocking=True) for t in tg))
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        progress.step += 1
        running = 0.98 * running + 0.02 * loss.item() if first else loss.item()
        if progress.step % 200 == 0:
            print(f"  {progress} loss {running:.3f}", flush=True)


def mine(
    model: CubeNet,
    frames: list[Frame],
    count: int,
    offset: int = 0,
    task: Task = CUBES,
    device: str = "cpu",
    renders_from: int | None = None,
) -> Mistakes:
    """The model's detections (heat peak > 0.3, decoded as ``vision.cube_net`` does) on
    ``count`` generated training scenes, evenly spread (from the ``offset``-th), and on every
    training render (``frames[renders_from:]``), that are not within half a cube of a true
    one: the strongest ``MINED_PER_SCENE`` of each scene."""
    model.eval()
    out: Mistakes = []
    t0 = time.time()
    generated = len(frames) if renders_from is None else renders_from
    every = max(1, generated // count)
    chosen = [*range(offset % every, generated, every)[:count], *range(generated, len(frames))]
    for index in chosen:
        image, dice, _ = frames[index]
        work, scale = working_image(image, task.work_side)
        x = torch.from_numpy(work).permute(2, 0, 1)[None].float() / 255.0
        with torch.no_grad():
            res = model(space_to_depth(x.contiguous()).to(device))[0].cpu().numpy()
        heat = 1.0 / (1.0 + np.exp(-res[0]))
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > 0.3)
        ys, xs = np.nonzero(peaks)
        order = np.argsort(-heat[ys, xs])
        found = 0
        for cy, cx in zip(ys[order], xs[order], strict=True):
            if found == MINED_PER_SCENE:
                break
            xf = (cx + res[task.offset[0], cy, cx]) * STRIDE
            yf = (cy + res[task.offset[1], cy, cx]) * STRIDE
            xf, yf = (xf + 0.5) / scale - 0.5, (yf + 0.5) / scale - 0.5
            if not (0 <= xf < image.shape[1] and 0 <= yf < image.shape[0]):
                continue
            if any(math.hypot(xf - d[0], yf - d[1]) < d[2] / 2 for d in dice):
                continue
            out.append((int(index), float(xf), float(yf)))
            found += 1
    print(f"  mined {len(out)} false detections on {len(chosen)} training scenes "
          f"({time.time() - t0:.0f} s)", flush=True)  # fmt: skip
    model.train()
    return out


def export(model: CubeNet, path: Path) -> None:
    cells = {"cells": {2: "h", 3: "w"}, "out": {2: "h", 3: "w"}}
    # checked on a 960×544 working image
    nets.export(model, path, torch.zeros(1, 48, 64, 64), torch.rand(1, 48, 136, 240), cells)


DETECT = (0.3, 0.35, 0.4, 0.45)  # detection thresholds tried by the sweep
SURE = (0.5, 0.6, 0.65, 0.7, 0.75)  # heat-map peaks from which a detection is not flagged


def figures(truths: list[list[DieReading]], found: list[list[DieReading]]) -> dict[str, float]:
    """The benchmark's figures (``evaluate_cubes``) plus size errors, for one reader."""
    scenes = [Scene(image=np.zeros((1, 1, 3), np.uint8), dice=tuple(t)) for t in truths]
    tally = evaluate_cubes(scenes, found)
    sizes = [
        abs(r.size - t.size) / t.size
        for truth, read in zip(truths, found, strict=True)
        for t, r, _ in _match(truth, read, lambda t: t.size / 2)
    ]
    m = max(1, tally.matched)
    errors = sorted(tally.errors) or [0.0]
    sizes = sorted(sizes) or [0.0]
    return {
        "dice": tally.truth,
        "recall": tally.matched / max(1, tally.truth),
        "precision": tally.matched / max(1, tally.found),
        "colour": tally.right_kind / m,
        "hole": tally.right_hole / m,
        "flagged": tally.flagged / max(1, tally.found),
        "silent": tally.silent,
        "centre_median": statistics.median(errors),
        "centre_p95": errors[int(0.95 * (len(errors) - 1))],
        "size_median": statistics.median(sizes),
        "size_p95": sizes[int(0.95 * (len(sizes) - 1))],
        "angle_median": statistics.median(tally.angle_errors or [0.0]),
        # cubes read right and not flagged: what the table takes without asking anyone
        "sure_right": (tally.found - tally.flagged - tally.silent) / max(1, tally.truth),
    }


HEADER = (
    "| reader | dice | recall | precision | colour | hole | flagged | silent errors "
    "| read right, unflagged | centre err median / p95 | size err median / p95 "
    "| angle err median |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def row(name: str, f: dict[str, float]) -> str:
    return (
        f"| {name} | {f['dice']} | {100 * f['recall']:.1f}% | {100 * f['precision']:.1f}% "
        f"| {100 * f['colour']:.1f}% | {100 * f['hole']:.1f}% | {100 * f['flagged']:.1f}% "
        f"| {f['silent']} | {100 * f['sure_right']:.1f}% "
        f"| {f['centre_median']:.2f} / {f['centre_p95']:.2f} px "
        f"| {100 * f['size_median']:.1f}% / {100 * f['size_p95']:.1f}% "
        f"| {f['angle_median']:.1f}° |"
    )


Scored = list[tuple[np.ndarray, list[DieReading], list[DieReading]]]
"""Frames to score a reader on: the image, its true dice and the dice too hidden to count (a
reading of one counts neither way, as in ``benchmarks/vision_renders.py``)."""


def seen(
    found: list[DieReading], hidden: Sequence[DieReading], shown: Sequence[DieReading] = ()
) -> list[DieReading]:
    """The readings that are not of a hidden die: those matching no shown die but within half
    a hidden one's size are left out, as ``benchmarks/vision_renders.py`` scores (a die lying on
    a hidden one is read, not left out with it)."""
    return not_of_hidden(found, list(hidden), list(shown), lambda d: d.size / 2)


def sweep(model: Path, frames: Scored, title: str) -> None:
    """The runtime reader with each detection threshold in DETECT and each ``SURE_AT`` in SURE:
    how the shipped ``DETECT_AT`` and ``SURE_AT`` were chosen (on the validation seeds)."""
    reader = CubeNetReader(model, detect_at=min(DETECT), check=False)  # the first look's
    everything = []
    for image, truth, hidden in frames:
        readings = reader.read(image)
        read = zip(readings, reader.last_heat, reader.last_class_confidence, strict=True)
        kept = {id(r) for r in seen(readings, hidden, truth)}
        everything.append([(r, h, c) for r, h, c in read if id(r) in kept])
    print(f"\n{title}\n{HEADER}")
    truths = [t for _, t, _ in frames]
    for detect_at, sure_at in itertools.product(DETECT, SURE):
        found = [
            [
                replace(r, confidence=min(detection_confidence(h, sure_at), c))
                for r, h, c in scene
                if h > detect_at
            ]
            for scene in everything
        ]
        name = f"detect at {detect_at}, sure at {sure_at}"
        print(row(name, figures(truths, found)), flush=True)


def timed(read: Any, images: list[np.ndarray]) -> tuple[list[list[DieReading]], float]:
    found, times = [], []
    for image in images:
        start = time.perf_counter()
        found.append(read(image))
        times.append(1000 * (time.perf_counter() - start))
    return found, statistics.median(times)


def compare(model: Path | None, frames: Scored, title: str) -> None:
    """The learned reader and the hand-tuned one (``vision.cubes.read_cubes``) on the same
    frames: figures and median time per frame."""
    from vision.cubes import read_cubes

    reader = CubeNetReader(model)
    images = [image for image, _, _ in frames]
    truths = [t for _, t, _ in frames]
    reader.read(images[0])
    net_found, net_ms = timed(reader.read, images)
    cubes_found, cubes_ms = timed(read_cubes, images)
    net_found = [seen(f, h, t) for f, (_, t, h) in zip(net_found, frames, strict=True)]
    cubes_found = [seen(f, h, t) for f, (_, t, h) in zip(cubes_found, frames, strict=True)]
    head, rule = HEADER.splitlines()
    print(f"\n{title}\n{head} median per frame |\n{rule}---|")
    print(row("read_cubes_net", figures(truths, net_found)) + f" {net_ms:.1f} ms |")
    print(row("read_cubes", figures(truths, cubes_found)) + f" {cubes_ms:.1f} ms |", flush=True)


def validation(cache: Path, seeds: range) -> Scored:
    out = []
    for seed in seeds:
        dice = json.loads((cache / f"{seed:06d}.json").read_text())["dice"]
        truth = [DieReading(x, y, s, a, 1.0, color=COLORS[int(c)], hole=bool(h))
                 for x, y, s, a, c, h in dice]  # fmt: skip
        out.append((_read(cache / f"{seed:06d}.png"), truth, []))
    return out


def held_out(n: int) -> Scored:
    out: Scored = []
    for seed in range(HELD_OUT, HELD_OUT + n):
        scene = wild_cube_scene(seed)
        out.append((scene.image, list(scene.dice), []))
    return out


def renders(folders: list[Path], paper: bool = False) -> Scored:
    """Blender renders with their truth (``tools/render/truth.py``), cubes scenes only; with
    ``paper``, white-balanced by the markers' paper as the companion reads them."""
    from truth import load  # type: ignore[import-not-found]

    from vision.white_balance import balanced

    out: Scored = []
    for folder in folders:
        for path in sorted(glob.glob(str(folder / "**" / "*.json"), recursive=True)):
            try:
                rendered = load(path)
            except Exception as exc:  # not a render's truth (or a tessons one): say and skip
                print(f"  skipped {path}: {exc}")
                continue
            if rendered.kind == "cubes" and rendered.image is not None:
                image = balanced(rendered.image, None) if paper else rendered.image
                shown = [d for d in rendered.dice if d.visible >= 0.5]
                hidden = [d for d in rendered.dice if d.visible < 0.5]
                out.append((image, shown, hidden))
    return out


def training_arguments(
    description: str,
    cache: Path,
    out: Path,
    scenes: int,
    steps: int,
    mine_at: list[float],
    val: int,
) -> argparse.ArgumentParser:
    """The arguments of a CenterNet training (this one's and ``tools/train_tessons.py``'s)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--cache", type=Path, default=cache, help="rendered training scenes")
    ap.add_argument("--scenes", type=int, default=scenes, help="training seeds 0..N-1")
    ap.add_argument("--cache-only", action="store_true", help="render the cache, then stop")
    ap.add_argument("--out", type=Path, default=out)
    ap.add_argument("--weights", type=Path, help="also save torch's weights (state_dict) here")
    ap.add_argument(
        "--init", type=Path, help="start from these weights (--weights of a run, or its .onnx)"
    )
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--crop", type=int, default=128)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mine", type=int, default=300, help="scenes mined for false detections")
    ap.add_argument("--mine-at", type=float, nargs="*", default=mine_at,
                    help="when to mine, as shares of the steps")  # fmt: skip
    ap.add_argument("--seconds", type=float, help="train this long (wall clock), not --steps")
    ap.add_argument("--device", default="cpu", help="torch's device: cpu, or cuda on a GPU")
    ap.add_argument("--threads", type=int, default=1, help="torch's CPU threads")
    ap.add_argument("--workers", type=int, default=1, help="processes cutting the crops")
    ap.add_argument("--val", type=int, default=val, help="validation scenes for the sweep")
    ap.add_argument("--train-renders", type=Path, nargs="*", default=[],
                    help="also train on these Blender renders (training seeds only)")  # fmt: skip
    ap.add_argument("--render-share", type=float, default=0.25,
                    help="with --train-renders: the share of crops cut from them")  # fmt: skip
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = training_arguments(__doc__.split("\n")[0], CACHE, OUT, 2400, 10_000, [0.3, 0.5, 0.7], 200)
    ap.add_argument("--evaluate", type=int, metavar="N", help="only: N held-out wild scenes")
    ap.add_argument(
        "--renders", type=Path, nargs="*", help="with --evaluate or --tune: render folders"
    )
    ap.add_argument("--paper", action="store_true", help="renders white-balanced by the markers")
    ap.add_argument(
        "--tune", action="store_true", help="only: the threshold sweep on --val (or --renders)"
    )
    ap.add_argument("--model", type=Path, help="with --evaluate or --tune: this model")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    assert args.scenes <= VAL_SEEDS.start

    if args.evaluate is not None:
        if args.evaluate:
            wild = held_out(args.evaluate)
            compare(args.model, wild, f"held-out wild scenes: seeds {HELD_OUT:,}+ ({len(wild)})")
        if args.renders:
            rendered = renders(args.renders, args.paper)
            if rendered:
                paper = ", white-balanced by the markers" if args.paper else ""
                compare(args.model, rendered, f"Blender renders ({len(rendered)}{paper})")
            else:
                print("no cube renders found in", *args.renders)
        return 0

    val = range(VAL_SEEDS.start, VAL_SEEDS.start + args.val)
    if args.tune and args.renders:
        rendered = renders(args.renders, args.paper)
        sweep(args.model or OUT, rendered, f"validation renders ({len(rendered)}; tuning only)")
        return 0
    if args.tune:
        build_cache(args.cache, val, args.workers + 1)
        title = f"validation seeds {val.start:,}-{val.stop - 1:,} (tuning only)"
        sweep(args.model or OUT, validation(args.cache, val), title)
        return 0
    build_cache(args.cache, range(args.scenes), args.workers + 1)
    build_cache(args.cache, val, args.workers + 1)
    if args.cache_only:
        return 0
    t0 = time.time()
    frames = load_cache(args.cache, range(args.scenes))
    print(f"{len(frames)} training scenes, {sum(len(d) for _, d, _ in frames)} cubes "
          f"({time.time() - t0:.0f} s to load)")  # fmt: skip
    generated = len(frames)
    if args.train_renders:
        rendered = training_renders(args.train_renders, args.render_share, frames)
        print(f"{len(rendered)} training renders, {sum(len(d) for _, d, _ in rendered)} cubes, "
              f"drawn {args.render_share:.0%} of the time")  # fmt: skip
        frames += rendered
    model = train(frames, args, renders_from=generated)
    if args.weights:
        torch.save(model.state_dict(), args.weights)
    export(model, args.out)
    del frames
    title = f"validation seeds {val.start:,}-{val.stop - 1:,} (tuning only)"
    sweep(args.out, validation(args.cache, val), title)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
