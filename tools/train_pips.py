"""Train the pip-dice models shipped in vision/models/ (read by vision/pips.py).

NOT part of the runtime: this needs ``pip install torch onnx`` (the companion itself only needs
OpenCV). Run from the repository's root:

    python tools/train_pips.py --holdout 20191208   # train on 20191209, test on 20191208
    python tools/train_pips.py --holdout 20191209   # train on 20191208, test on 20191209
    python tools/train_pips.py --crosscheck         # both of the above, then the figures
    python tools/train_pips.py                      # all photos → vision/models/pips*.onnx

Data: ``--data DIR`` (default: ../shared/data/dice-photos beside the repository) with
``images/*.jpg`` and ``labels.csv`` (``filename,value,xmin,ymin,xmax,ymax``, one row per die).

Two models, both exported to ONNX and run by ``cv2.dnn``:

1. **Detector** ``pips.onnx`` (``PipNet``): CenterNet-style, fully convolutional, stride 4.
   Input = the image at the working scale rearranged into 4×4 cells (48 channels); output per
   cell = centre heat map (focal loss), 6 pip-count logits (cross-entropy on the 3×3 cells
   around each centre; unused at runtime), log size and centre offset (L1). Samples are
   192×192 crops of the photos at the working scale ×0.65-1.5, any rotation, flips,
   colour/brightness/contrast jitter, channel swaps, blur, noise, JPEG, and dice cut from other
   photos pasted in. 2,500 steps of 16 crops.
2. **Value network** ``pips_values.onnx`` (``ValueNet``): 7 classes (1-6 pips, not a die) from a
   32×32 crop of the die (``vision.pips.value_crop``), any rotation, flips, ±8 % size, ±7 %
   centre, the same colour jitter. "Not a die" samples: the detector's false detections on the
   training photos (threshold 0.2: the tray's holes, a box's rim) and random places of the tray.
   4,000 steps of 128 crops.

``--detector DIR`` reuses detectors already trained by this recipe (DIR/holdout-DAY/pips.onnx in
cross-check mode, DIR/pips.onnx otherwise) and trains only the value network.

Seeds are fixed (torch's CPU kernels may still differ in the last digits between runs). On 2 CPU
cores a full run takes about 20 minutes (detector ~15, values ~5); the two cross-check runs can
go in parallel with ``--threads 1`` each. After training each model is exported, loaded back
with ``cv2.dnn`` and compared with torch; then ``vision.pips.PipReader`` (the runtime code, with
its ``VALUE_VIEWS`` views of each die) is evaluated with the benchmark's matching
(benchmarks/vision_pips.py) at several detection thresholds, on the training photos and on the
held-out session. ``benchmarks/vision_pips.py --detector ... --values ... --views N`` reads the
kept models again with another number of views.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import nets  # noqa: E402
from nets import Block, cbr, space_to_depth  # noqa: E402
from vision_pips import match  # noqa: E402

from vision.pips import (  # noqa: E402
    OUTPUTS,
    STRIDE,
    VALUE_PX,
    WORK_SHORT_SIDE,
    PipReader,
    value_crop,
)

DATA = Path(__file__).resolve().parents[2] / "shared/data/dice-photos"
OUT = ROOT / "vision" / "models" / "pips.onnx"
CROP = 192
PHOTO_SIDE = 640  # the photos' short side: working scale = WORK_SHORT_SIDE / PHOTO_SIDE
DAYS = ("20191208", "20191209")

# --- model ------------------------------------------------------------------------------------


class PipNet(nn.Module):
    def __init__(self, c4: int = 32, c8: int = 80, blocks8: int = 4) -> None:
        super().__init__()
        self.stem = cbr(48, c4, 1)
        self.b4 = Block(c4, c4)
        self.down = Block(c4, c8, stride=2)
        self.b8 = nn.Sequential(*[Block(c8, c8, dilation=1 + i % 2) for i in range(blocks8)])
        self.up = cbr(c8, c4, 1)
        self.merge = Block(c4, c4)
        self.head = nn.Conv2d(c4, OUTPUTS, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.b4(self.stem(x))
        b = self.b8(self.down(a))
        y = a + F.interpolate(self.up(b), scale_factor=2.0, mode="nearest")
        return self.head(self.merge(y))


class ValueNet(nn.Module):
    """Pip count (6 logits) + "not a die" (7th) from a VALUE_PX×VALUE_PX crop centred on it:
    two 3×3 convolutions at each of 32, 16 and 8 px, one at 4 px, global average."""

    def __init__(self, w: int = 24) -> None:
        super().__init__()
        self.body = nn.Sequential(
            cbr(3, w), cbr(w, w), nn.MaxPool2d(2),
            cbr(w, 2 * w), cbr(2 * w, 2 * w), nn.MaxPool2d(2),
            cbr(2 * w, 4 * w), cbr(4 * w, 4 * w), nn.MaxPool2d(2),
            cbr(4 * w, 4 * w), nn.AdaptiveAvgPool2d(1),
        )  # fmt: skip
        self.fc = nn.Conv2d(4 * w, 7, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.body(x)).flatten(1)


# --- data -------------------------------------------------------------------------------------


def load(data: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name → (BGR image, dice array N×4: cx, cy, side, value)."""
    rows: dict[str, list[list[float]]] = defaultdict(list)
    with open(data / "labels.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            x0, y0, x1, y1 = (float(r[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
            rows[r["filename"]].append(
                [(x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0 + y1 - y0) / 2, int(r["value"])]
            )
    out = {}
    for path in sorted((data / "images").glob("*.jpg")):
        image = cv2.imread(str(path))
        out[path.name] = (image, np.array(rows.get(path.name, []), np.float32).reshape(-1, 4))
    return out


class Sampler:
    def __init__(self, photos: dict[str, tuple[np.ndarray, np.ndarray]], seed: int) -> None:
        self.photos = list(photos.values())
        self.rng = np.random.default_rng(seed)
        self.patches = [  # dice to paste: (patch, side, value)
            (
                img[int(cy - s * 0.6) : int(cy + s * 0.6), int(cx - s * 0.6) : int(cx + s * 0.6)],
                s,
                v,
            )
            for img, dice in self.photos
            for cx, cy, s, v in dice
            if s * 0.6 < cx < img.shape[1] - s * 0.6 and s * 0.6 < cy < img.shape[0] - s * 0.6
        ]

    def sample(self) -> tuple[np.ndarray, np.ndarray]:
        rng = self.rng
        image, dice = self.photos[rng.integers(len(self.photos))]
        base = WORK_SHORT_SIDE / PHOTO_SIDE
        k = base * math.exp(rng.uniform(math.log(0.65), math.log(1.5)))
        if len(dice) and rng.random() < 0.8:
            cx, cy = dice[rng.integers(len(dice)), :2] + rng.normal(0, 60, 2)
        else:
            cx, cy = rng.uniform(0, image.shape[1]), rng.uniform(0, image.shape[0])
        m = cv2.getRotationMatrix2D((float(cx), float(cy)), float(rng.uniform(0, 360)), k)
        m[:, 2] += (CROP / 2 - cx, CROP / 2 - cy)
        if rng.random() < 0.5:
            m[0] = -m[0]
            m[0, 2] += CROP - 1
        border = cv2.BORDER_REPLICATE if rng.random() < 0.5 else cv2.BORDER_REFLECT_101
        crop = cv2.warpAffine(image, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=border)
        out = []
        if len(dice):
            xy = dice[:, :2] @ m[:, :2].T + m[:, 2]
            for (x, y), (_, _, s, v) in zip(xy, dice, strict=True):
                if 0 <= x < CROP and 0 <= y < CROP:
                    out.append((x, y, s * k, v))
        if rng.random() < 0.5:
            self._paste(crop, out, k)
        return self._colour(crop), np.array(out, np.float32).reshape(-1, 4)

    def _paste(self, crop: np.ndarray, out: list, k: float) -> None:
        rng = self.rng
        for _ in range(rng.integers(1, 7)):
            patch, s, v = self.patches[rng.integers(len(self.patches))]
            kk = k * math.exp(rng.uniform(-0.15, 0.15))
            side = max(6, round(patch.shape[0] * kk))
            p = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
            p = np.rot90(p, rng.integers(4))
            if rng.random() < 0.5:
                p = p[:, ::-1]
            x0, y0 = rng.integers(0, CROP - side, 2)
            x, y, size = x0 + side / 2, y0 + side / 2, s * kk
            if any(math.hypot(x - a, y - b) < 0.6 * (size + c) for a, b, c, _ in out):
                continue
            w = np.minimum(np.arange(side) + 0.5, side - 0.5 - np.arange(side)) / (0.12 * side)
            alpha = np.clip(np.minimum.outer(w, w), 0, 1)[..., None]
            region = crop[y0 : y0 + side, x0 : x0 + side].astype(np.float32)
            crop[y0 : y0 + side, x0 : x0 + side] = (alpha * p + (1 - alpha) * region).astype(
                np.uint8
            )
            out.append((x, y, size, v))

    def _colour(self, crop: np.ndarray) -> np.ndarray:
        return self.colour(crop)

    def colour(self, crop: np.ndarray) -> np.ndarray:
        rng = self.rng
        if rng.random() < 0.5:
            crop = crop[..., rng.permutation(3)]
        x = crop.astype(np.float32)
        if rng.random() < 0.1:
            x[:] = x.mean(axis=2, keepdims=True)
        mean = x.mean()
        x = (x - mean) * rng.uniform(0.7, 1.3) + mean * rng.uniform(0.7, 1.25)
        x = x * rng.uniform(0.88, 1.12, 3) + rng.uniform(-15, 15)
        if rng.random() < 0.3:
            x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.2))
        if rng.random() < 0.5:
            x += rng.normal(0, rng.uniform(1, 8), x.shape)
        x = np.clip(x, 0, 255).astype(np.uint8)
        if rng.random() < 0.3:
            _, buf = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])
            x = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return x


def mine_negatives(detector: Path, photos: dict) -> list[tuple[np.ndarray, float, float, float]]:
    """Detections of the detector (at a low threshold) on the training photos that match no
    labelled die: holes of the tray, pieces of a box's rim, shadows."""
    reader = PipReader(detector, detect_at=0.2)
    out = []
    for image, lab in photos.values():
        _, scale, kept = reader.detect(image)
        for xw, yw, sw, _ in kept:
            x, y, s = (xw + 0.5) / scale - 0.5, (yw + 0.5) / scale - 0.5, sw / scale
            if all(abs(x - cx) > 0.5 * cs or abs(y - cy) > 0.5 * cs for cx, cy, cs, _ in lab):
                out.append((image, x, y, s))
    print(f"  {len(out)} false detections mined as negatives for the value network")
    return out


def value_crops(
    photos: dict, negatives: list, rng: np.random.Generator, n: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """n augmented crops as the runtime cuts them (vision.pips.value_crop) + classes: pips 0..5,
    6 = not a die (mined false detections, random places of the tray)."""
    dice = [(img, d) for img, ds in photos.values() for d in ds]
    images = [img for img, _ in photos.values()]
    crops, values = [], []
    for _ in range(n):
        u = rng.random()
        if u < 0.15 and negatives:
            img, cx, cy, s = negatives[rng.integers(len(negatives))]
            v = 7
        elif u < 0.22:
            img = images[rng.integers(len(images))]
            cx, cy = rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0])
            s = dice[rng.integers(len(dice))][1][2]
            lab = next(ds for im, ds in photos.values() if im is img)
            near = [
                abs(cx - a) < 0.6 * (s + c) and abs(cy - b) < 0.6 * (s + c) for a, b, c, _ in lab
            ]
            if any(near):
                continue
            v = 7
        else:
            img, (cx, cy, s, v) = dice[rng.integers(len(dice))]
        s *= math.exp(rng.normal(0, 0.08))
        cx, cy = np.array([cx, cy]) + rng.normal(0, 0.07 * s, 2)
        crop = value_crop(img, float(cx), float(cy), float(s), float(rng.uniform(0, 360)))
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        crops.append(AUG.colour(crop))
        values.append(int(v) - 1)
    x = torch.from_numpy(np.stack(crops)).permute(0, 3, 1, 2).float() / 255.0
    return x.contiguous(), torch.tensor(values)


def train_values(photos: dict, negatives: list, steps: int, seed: int) -> ValueNet:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 1)
    AUG.rng = rng
    model = ValueNet()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.1)
    model.train()
    t0, running = time.time(), 0.0
    for step in range(1, steps + 1):
        x, y = value_crops(photos, negatives, rng, 128)
        loss = F.cross_entropy(model(x), y, label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 200 == 0 or step == steps:
            print(f"  values {step}/{steps} loss {running:.3f} ({time.time() - t0:.0f} s)")
    return model.eval()


class _Aug(Sampler):
    """Only the colour augmentation of Sampler, for the value crops."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)


AUG = _Aug()


def targets(dice: np.ndarray) -> tuple[np.ndarray, ...]:
    g = CROP // STRIDE
    heat = np.zeros((g, g), np.float32)
    cls = np.full((g, g), -100, np.int64)
    reg = np.zeros((3, g, g), np.float32)
    reg_mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, s, v in sorted(dice.tolist(), key=lambda d: -d[2]):
        gx, gy = x / STRIDE, y / STRIDE
        ix, iy = int(gx), int(gy)
        sigma = max(0.7, 0.16 * s / STRIDE)
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma * sigma)))
        cls[max(0, iy - 1) : iy + 2, max(0, ix - 1) : ix + 2] = int(v) - 1
        reg[:, iy, ix] = (math.log(s / STRIDE), gx - ix, gy - iy)
        reg_mask[iy, ix] = 1.0
    return heat, cls, reg, reg_mask


def batch(sampler: Sampler, n: int) -> tuple[torch.Tensor, ...]:
    images, heats, clss, regs, masks = [], [], [], [], []
    for _ in range(n):
        img, dice = sampler.sample()
        h, c, r, m = targets(dice)
        images.append(img)
        heats.append(h)
        clss.append(c)
        regs.append(r)
        masks.append(m)
    x = torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2).float() / 255.0
    return (
        space_to_depth(x.contiguous()),
        torch.from_numpy(np.stack(heats)),
        torch.from_numpy(np.stack(clss)),
        torch.from_numpy(np.stack(regs)),
        torch.from_numpy(np.stack(masks)),
    )


def loss_fn(out: torch.Tensor, heat, cls, reg, mask) -> torch.Tensor:
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    focal = -(
        pos * (1 - p) ** 2 * torch.log(p) + (1 - pos) * (1 - heat) ** 4 * p**2 * torch.log(1 - p)
    ).sum() / pos.sum().clamp(min=1)
    ce = F.cross_entropy(out[:, 1:7], cls, ignore_index=-100) if (cls >= 0).any() else 0.0 * p.sum()
    l1 = (F.l1_loss(out[:, 7:10], reg, reduction="none").sum(1) * mask).sum() / mask.sum().clamp(
        min=1
    )
    return focal + ce + l1


# --- training, export, evaluation --------------------------------------------------------------


def train(photos: dict, steps: int, batch_size: int, lr: float, seed: int) -> PipNet:
    torch.manual_seed(seed)
    random.seed(seed)
    model = PipNet()
    sampler = Sampler(photos, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps, pct_start=0.1)
    model.train()
    t0, running = time.time(), 0.0
    for step in range(1, steps + 1):
        x, *tg = batch(sampler, batch_size)
        loss = loss_fn(model(x), *tg)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 200 == 0 or step == steps:
            print(
                f"  step {step}/{steps} loss {running:.3f} ({time.time() - t0:.0f} s)", flush=True
            )
    return model.eval()


def export(model: nn.Module, path: Path) -> None:
    if isinstance(model, PipNet):
        dummy, x = torch.zeros(1, 48, 64, 64), torch.rand(1, 48, 112, 200)
        axes = {"cells": {2: "h", 3: "w"}, "out": {2: "h", 3: "w"}}
    else:
        dummy, x = torch.zeros(1, 3, VALUE_PX, VALUE_PX), torch.rand(5, 3, VALUE_PX, VALUE_PX)
        axes = {"cells": {0: "n"}, "out": {0: "n"}}
    nets.export(model, path, dummy, x, axes)


THRESHOLDS = (0.3, 0.4, 0.5, 0.6)


def evaluate(models: tuple[Path, Path], photos: dict, title: str) -> dict[float, dict]:
    """Figures of the runtime reader with each detection threshold in THRESHOLDS."""
    reader = PipReader(*models, detect_at=min(THRESHOLDS))
    counts = {t: [0, 0, 0, 0] for t in THRESHOLDS}  # dice, found, detections, right
    for image, lab in photos.values():
        everything = reader.read(image)
        labels = [(int(v), (x - s / 2, y - s / 2, x + s / 2, y + s / 2)) for x, y, s, v in lab]
        for t in THRESHOLDS:
            readings = [r for r, h in zip(everything, reader.last_heat, strict=True) if h > t]
            pairs, _, _ = match(readings, labels)
            c = counts[t]
            c[0] += len(labels)
            c[1] += len(pairs)
            c[2] += len(readings)
            c[3] += sum(1 for r, (v, _) in pairs if r.value == v)
    out = {}
    for t, (dice, found, dets, right) in counts.items():
        f = {
            "dice": dice,
            "recall": found / max(dice, 1),
            "precision": found / max(dets, 1),
            "values": right / max(found, 1),
        }
        out[t] = f
        print(
            f"  {title}, detect at {t}: {dice} dice, recall {f['recall']:.3f}, "
            f"precision {f['precision']:.3f}, value accuracy {f['values']:.3f}",
            flush=True,
        )
    return out


def train_both(photos: dict, args: argparse.Namespace, dest: Path) -> tuple[Path, Path]:
    paths = dest, dest.with_name(dest.stem + "_values.onnx")
    if args.detector:  # reuse a detector trained by this recipe (same data), train values only
        paths = args.detector / dest.parent.name / dest.name, paths[1]
        if not paths[0].exists():
            paths = args.detector / dest.name, paths[1]
        print(f"  detector: {paths[0]}")
    else:
        model = train(photos, args.steps, args.batch, args.lr, args.seed)
        export(model, paths[0])
    negatives = mine_negatives(paths[0], photos)
    values = train_values(photos, negatives, args.value_steps, args.seed)
    export(values, paths[1])
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--holdout", choices=DAYS, help="train on the other day, test on this one")
    ap.add_argument("--crosscheck", action="store_true", help="both holdouts, one after the other")
    ap.add_argument(
        "--every",
        type=int,
        metavar="K",
        help="hold out every K-th photo (in name order, from --fold) instead of a day",
    )
    ap.add_argument("--fold", type=int, default=0, help="with --every: the first held-out photo")
    ap.add_argument("--out", type=Path, default=OUT, help="where the full model is written")
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "pips-crosscheck",
                    help="where the cross-check models are kept")  # fmt: skip
    ap.add_argument("--steps", type=int, default=2500)
    ap.add_argument("--value-steps", type=int, default=4000)
    ap.add_argument("--detector", type=Path, help="reuse the detector(s) found in this folder")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    photos = load(args.data)
    print(f"{len(photos)} photos, {sum(len(d) for _, d in photos.values())} dice")

    if args.every:  # a random-like split of the shoot, as the project's evaluation split is
        names = sorted(photos)
        held = {n for i, n in enumerate(names) if i % args.every == args.fold % args.every}
        train_set = {n: p for n, p in photos.items() if n not in held}
        test_set = {n: p for n, p in photos.items() if n in held}
        print(f"train on {len(train_set)} photos, test on every {args.every}th ({len(test_set)}):")
        dest = args.keep / f"every{args.every}-fold{args.fold}" / "pips.onnx"
        paths = train_both(train_set, args, dest)
        evaluate(paths, train_set, "training photos (seen)")
        evaluate(paths, test_set, "held-out photos")
        return 0
    holdouts = list(DAYS) if args.crosscheck else [args.holdout] if args.holdout else []
    results = {}
    for day in holdouts:
        train_set = {n: p for n, p in photos.items() if day not in n}
        test_set = {n: p for n, p in photos.items() if day in n}
        print(f"train on {len(train_set)} photos of the other day, test on {day}:")
        paths = train_both(train_set, args, args.keep / f"holdout-{day}" / "pips.onnx")
        evaluate(paths, train_set, "training day (seen)")
        results[day] = evaluate(paths, test_set, f"held-out day {day}")
    if not holdouts:
        print(f"train on all {len(photos)} photos:")
        paths = train_both(photos, args, args.out)
        evaluate(paths, photos, "all photos (seen in training: not an honest figure)")
    if results:
        print("\ncross-check (train on one day, test on the other):")
        for day, by_t in results.items():
            other = next(d for d in DAYS if d != day)
            for t, f in by_t.items():
                print(
                    f"  {other} → {day}, detect at {t}: recall {f['recall']:.3f}, "
                    f"precision {f['precision']:.3f}, value accuracy {f['values']:.3f} "
                    f"({f['dice']} dice)"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
