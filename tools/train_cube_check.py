"""Train the cube reader's second look, shipped as vision/models/cube_check.onnx (read by
vision/cube_check.py, used by vision/cube_net.py).

NOT part of the runtime: this needs ``pip install torch onnx``. Run from the repository's root
(docs/vision/cube_net.md, "A second look", has the figures):

    python tools/train_cube_check.py --collect            # cut the crops (about 25 min)
    python tools/train_cube_check.py --seconds 1500 --threads 2 --train-renders renders/train
                                                          # train → vision/models/cube_check.onnx
    python tools/train_cube_check.py --tune               # the combination, validation seeds

Data: the generated tables of ``tools/train_cubes.py`` (scene ``seed`` is ``scene_of(seed)``),
read by the shipped detector (``vision.cube_net.CubeNetReader``) down to a heat peak of
``FLOOR``: every detection is a sample, labelled with the colour and hole of the true cube it
lies on (within half the cube's size), or "none" (a shadow, a print on a cloth, a cube's mirror
image, a second peak on one cube). Beside them, for every true cube one crop at its true box
moved and resized a little (the cubes the detector found weakly or not at all), and "none"
crops at random places and half a cube to a cube off a true one (a crop must be centred on a
cube to be one). Crops are stored ``STORE_PX`` wide at the runtime's pixel scale
(``vision.cube_check.check_crop``), so that training can turn, move and resize them before
cutting the ``CHECK_PX`` crop the network reads. Training seeds ``0 .. --scenes-1``;
validation seeds ``VAL_SEEDS`` of ``tools/train_cubes.py`` (49,800-49,999): the combination's
thresholds are chosen there (``--tune``); held-out seeds (1,000,000 on) and the held-out
Blender renders are never touched.

Model: 3×3 convolutions 3 → 16 (32²) → 32, 32 (16²) → 48, 48 (8²) → 64 (4²), global mean, a
linear layer to 5 class logits (none, red, yellow, blue, black) and a hole logit: about 113 k
weights. Cross-entropy (label smoothing 0.02) on the class, binary cross-entropy on the hole
(cubes only). Crops turned by any angle, mirrored half the time, moved by about 6 % and
resized by about 8 % of the cube's size, then the light, blur, noise and JPEG of
``train_cubes.augment``.
``--printed`` makes a share of the crops letters printed on bare table ("none", the words of a
game mat): 0.08 was tried and not shipped (docs/vision/cube_net.md); the shipped model has none.
``--train-renders renders/train`` also cuts the crops of Blender renders of training seeds
(200,000-299,999, docs/vision/renders.md; never the validation or held-out ones), read as the
throw desk reads them (white-balanced by the markers' paper), the same way as a generated table's
(a detection nearer a hidden cube than a cube in view is no sample), and draws
``--render-share`` of each batch from them.
AdamW, one-cycle learning rate to ``--lr``, for ``--seconds`` of wall clock.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "render"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import nets  # noqa: E402
from train_cubes import VAL_SEEDS, augment, desk_renders, one_cycle, scene_of  # noqa: E402

from vision.cube_check import CHECK_PX, CLASSES, check_crop  # noqa: E402
from vision.cube_net import COLORS, CubeNetReader  # noqa: E402

OUT = ROOT / "vision" / "models" / "cube_check.onnx"
DATA = ROOT / "renders" / "cube-check"  # the cut crops (git-ignored, as the renders are)
STORE_PX = 48  # stored crops: 1.5 × CHECK_PX at the same pixel scale
FLOOR = 0.12  # the detector's heat peaks from which its detections are samples
SHARD = 100  # seeds per stored file


def label_of(x: float, y: float, dice: list) -> tuple[int, float]:
    """The class (0 none, 1.. a colour) and hole (1/0; -1 for none) of a box centred at (x, y):
    the nearest true cube within half its size."""
    best, best_d = None, math.inf
    for d in dice:
        dist = math.hypot(d.x - x, d.y - y)
        if dist < best_d and dist <= d.size / 2:
            best, best_d = d, dist
    if best is None:
        return 0, -1.0
    return 1 + COLORS.index(best.color or ""), float(bool(best.hole))


def samples(seed: int, reader: CubeNetReader) -> tuple[np.ndarray, np.ndarray]:
    """The stored crops of scene ``seed`` (N×STORE_PX²×3) and their labels (N×4: class, hole,
    heat peak (-1 for a crop that is not a detection), whether it is a detection)."""
    scene = scene_of(seed)
    return samples_of(scene.image, list(scene.dice), [], reader, seed + 7_000_000)


def samples_of(
    image: np.ndarray, dice: list, hidden: list, reader: CubeNetReader, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` of one frame whose cubes in view are ``dice``; a detection nearer a
    ``hidden`` cube (under a hand, a cup, another cube) than a cube in view is no sample."""
    rng = np.random.default_rng(seed)
    found = reader.read(image)
    near = lambda r, ds: min((math.hypot(d.x - r.x, d.y - r.y) for d in ds), default=math.inf)  # noqa: E731
    boxes: list[tuple[float, float, float, float]] = [
        (r.x, r.y, r.size, h)
        for r, h in zip(found, reader.last_heat, strict=True)
        if near(r, hidden) >= near(r, dice)
    ]
    for d in dice:
        shift = rng.normal(0, 0.08 * d.size, 2)
        boxes.append((d.x + shift[0], d.y + shift[1], d.size * math.exp(rng.normal(0, 0.12)), -1))
        if rng.random() < 0.5:
            turn, far = rng.uniform(0, 2 * math.pi), rng.uniform(0.6, 1.2) * d.size
            boxes.append((d.x + far * math.cos(turn), d.y + far * math.sin(turn), d.size, -1))
    sizes = [d.size for d in dice] or [30.0]
    h, w = image.shape[:2]
    for _ in range(2):
        boxes.append((rng.uniform(0, w), rng.uniform(0, h), float(rng.choice(sizes)), -1))
    crops, labels = [], []
    for x, y, size, heat in boxes:
        cls, hole = label_of(x, y, dice)
        crops.append(check_crop(image, x, y, size, STORE_PX))
        labels.append((cls, hole, heat, float(heat >= 0)))
    return np.stack(crops), np.array(labels, np.float32).reshape(-1, 4)


def _collect(args: tuple[Path, int]) -> str:
    folder, start = args
    path = folder / f"{start:06d}.npz"
    if path.exists():
        return f"{path.name} there"
    cv2.setNumThreads(1)
    reader = CubeNetReader(detect_at=FLOOR, check=False)
    parts = [samples(seed, reader) for seed in range(start, start + SHARD)]
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, crops=np.concatenate([c for c, _ in parts]),
             labels=np.concatenate([lab for _, lab in parts]))  # fmt: skip
    tmp.replace(path)
    return path.name


def collect(folder: Path, seeds: range, workers: int) -> None:
    """Cut the crops of ``seeds`` (whole shards of ``SHARD``) that ``folder`` lacks."""
    folder.mkdir(parents=True, exist_ok=True)
    todo = [(folder, s) for s in range(seeds.start, seeds.stop, SHARD)]
    t0 = time.time()
    with multiprocessing.Pool(workers) as pool:
        for name in pool.imap_unordered(_collect, todo):
            print(f"  {name} ({time.time() - t0:.0f} s)", flush=True)


def collect_renders(folders: list[Path], path: Path, detector: Path | None = None) -> None:
    """The crops of the Blender renders in ``folders`` (training seeds only, never validation
    or held-out ones), white-balanced by the markers' paper as the throw desk reads, to
    ``path``; the detections of ``detector`` (None: the shipped one)."""
    reader = CubeNetReader(detector, detect_at=FLOOR, check=False)
    parts = []
    for r, image in desk_renders(folders):
        dice = [d for d in r.dice if d.visible >= 0.5]
        hidden = [d for d in r.dice if d.visible < 0.5]
        parts.append(samples_of(image, dice, hidden, reader, r.seed + 8_000_000))
    np.savez(path, crops=np.concatenate([c for c, _ in parts]),
             labels=np.concatenate([lab for _, lab in parts]))  # fmt: skip
    print(f"  {path.name}: {sum(len(c) for c, _ in parts)} crops of {len(parts)} renders")


def load(folder: Path, seeds: range) -> tuple[np.ndarray, np.ndarray]:
    parts = [np.load(folder / f"{s:06d}.npz") for s in range(seeds.start, seeds.stop, SHARD)]
    return (np.concatenate([p["crops"] for p in parts]),
            np.concatenate([p["labels"] for p in parts]))  # fmt: skip


# --- model ------------------------------------------------------------------------------------


class CheckNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nets.cbr(3, 16),
            nets.cbr(16, 32, s=2),
            nets.cbr(32, 32),
            nets.cbr(32, 48, s=2),
            nets.cbr(48, 48),
            nets.cbr(48, 64, s=2),
            nets.cbr(64, 64),
        )
        self.head = nn.Linear(64, len(CLASSES) + 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(self.body(x).mean(dim=(2, 3)))
        return out


# --- training ---------------------------------------------------------------------------------


def cut(stored: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A CHECK_PX crop from a stored one: turned, mirrored, moved and resized, then the light,
    blur, noise and JPEG of ``train_cubes.augment``."""
    c = STORE_PX / 2
    m = cv2.getRotationMatrix2D((c, c), float(rng.uniform(0, 360)), math.exp(rng.normal(0, 0.08)))
    m[:, 2] += CHECK_PX / 2 - c + rng.normal(0, 0.06 * CHECK_PX / 2, 2)
    if rng.random() < 0.5:
        m[0] = -m[0]
        m[0, 2] += CHECK_PX - 1
    out = cv2.warpAffine(stored, m, (CHECK_PX, CHECK_PX), borderMode=cv2.BORDER_REPLICATE)
    return augment(rng, out)


FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
INKS = ((40, 40, 200), (40, 200, 230), (200, 90, 30), (25, 25, 25), (235, 235, 235),
        (60, 160, 60), (150, 60, 150))  # fmt: skip
GLYPHS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def printed(background: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A stored crop of bare table with letters printed across its centre, about a cube's size:
    the words and numbers of a game mat or a patterned cloth ("none")."""
    out = background.copy()
    text = "".join(rng.choice(list(GLYPHS), size=int(rng.integers(1, 4))))
    font = int(rng.choice(FONTS))
    face = STORE_PX / 3
    height = cv2.getTextSize("A", font, 1.0, 1)[0][1]
    scale = float(rng.uniform(0.6, 1.5)) * face / height
    thick = int(rng.integers(1, 4))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    at = (
        int(STORE_PX / 2 - rng.uniform(0.2, 0.8) * w),
        int(STORE_PX / 2 + rng.uniform(0.2, 0.8) * h),
    )
    ink = np.array(INKS[rng.integers(len(INKS))]) * rng.uniform(0.6, 1.2)
    cv2.putText(out, text, at, font, scale, tuple(float(c) for c in np.clip(ink, 0, 255)),
                thick, cv2.LINE_AA)  # fmt: skip
    return out


Crops = tuple[np.ndarray, np.ndarray]
"""Stored crops (N×STORE_PX²×3) and their labels (N×4)."""


class Batches(torch.utils.data.IterableDataset):  # type: ignore[type-arg]
    def __init__(
        self,
        crops: np.ndarray,
        labels: np.ndarray,
        batch: int,
        seed: int,
        printed: float,
        rendered: Crops | None = None,
        render_share: float = 0.0,
    ) -> None:
        self.crops, self.labels, self.batch, self.seed = crops, labels, batch, seed
        self.printed = printed  # share of the crops that are letters printed on a bare table
        self.bare = np.flatnonzero(labels[:, 0] == 0)
        # the crops of Blender renders, and the share of each batch drawn from them
        self.rendered, self.render_share = rendered, render_share if rendered else 0.0

    def __iter__(self):  # type: ignore[no-untyped-def]
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng(self.seed + 1000 * (info.id if info else 0))
        cv2.setNumThreads(1)
        none = np.array([0, -1, -1, 0], np.float32)
        while True:
            pick = rng.integers(len(self.crops), size=self.batch)
            x, y = [], []
            for i in pick:
                if self.rendered is not None and rng.random() < self.render_share:
                    j = rng.integers(len(self.rendered[0]))
                    x.append(cut(self.rendered[0][j], rng))
                    y.append(self.rendered[1][j])
                elif rng.random() < self.printed:
                    x.append(cut(printed(self.crops[rng.choice(self.bare)], rng), rng))
                    y.append(none)
                else:
                    x.append(cut(self.crops[i], rng))
                    y.append(self.labels[i])
            yield torch.from_numpy(np.stack(x)), torch.from_numpy(np.stack(y))


def as_input(x: torch.Tensor) -> torch.Tensor:
    """uint8 N×H×W×3 BGR → the network's N×3×H×W float input in 0..1 (as ``CubeCheck``)."""
    return x.permute(0, 3, 1, 2).float().div(255.0).contiguous()


def loss_fn(out: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    cls = labels[:, 0].long()
    loss = F.cross_entropy(out[:, : len(CLASSES)], cls, label_smoothing=0.02)
    cube = cls > 0
    if cube.any():
        hole = F.binary_cross_entropy_with_logits(out[cube, len(CLASSES)], labels[cube, 1])
        loss = loss + hole
    return loss


def train(
    crops: np.ndarray, labels: np.ndarray, args: argparse.Namespace, rendered: Crops | None = None
) -> CheckNet:
    torch.manual_seed(args.seed)
    model = CheckNet()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    data = torch.utils.data.DataLoader(
        Batches(crops, labels, args.batch, args.seed, args.printed, rendered, args.render_share),
        batch_size=None,
        num_workers=args.workers,
        persistent_workers=args.workers > 0,
    )
    t0, step, avg = time.time(), 0, None
    for x, y in data:
        share = (time.time() - t0) / args.seconds
        if share >= 1:
            break
        for group in opt.param_groups:
            group["lr"] = one_cycle(share, args.lr)
        loss = loss_fn(model(as_input(x)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        value = loss.item()
        avg = value if avg is None else 0.98 * avg + 0.02 * value
        step += 1
        if step % 200 == 0:
            print(f"  step {step} ({time.time() - t0:.0f} s): loss {avg:.3f}", flush=True)
    print(f"{step} steps of {args.batch} crops in {time.time() - t0:.0f} s")
    return model.eval()


def accuracy(model: CheckNet, crops: np.ndarray, labels: np.ndarray) -> None:
    """The classifier alone on the validation crops (centre cut, no augmentation)."""
    lo = (STORE_PX - CHECK_PX) // 2
    x = torch.from_numpy(np.ascontiguousarray(crops[:, lo : lo + CHECK_PX, lo : lo + CHECK_PX]))
    with torch.no_grad():
        out = torch.cat([model(as_input(b)) for b in x.split(512)]).numpy()
    cls, hole = labels[:, 0].astype(int), labels[:, 1]
    pred = out[:, : len(CLASSES)].argmax(1)
    det = labels[:, 3] > 0
    cube = cls > 0
    print(f"validation crops: {len(cls)} ({int(det.sum())} detections, {int(cube.sum())} cubes)")
    print(
        f"  class right {np.mean(pred == cls):.4f}; on detections {np.mean((pred == cls)[det]):.4f}"
    )
    none_right, cube_none = np.mean(pred[~cube] == 0), np.mean(pred[cube] == 0)
    print(f"  'none' right {none_right:.4f}, cube called none {cube_none:.4f}")
    print(
        f"  hole right on cubes {np.mean((out[cube, len(CLASSES)] > 0) == (hole[cube] > 0.5)):.4f}"
    )


def export(model: CheckNet, path: Path) -> None:
    nets.export(
        model,
        path,
        torch.zeros(1, 3, CHECK_PX, CHECK_PX),
        torch.rand(4, 3, CHECK_PX, CHECK_PX),
        {"cells": {0: "n"}, "out": {0: "n"}},
    )


# --- choosing how the two looks combine (validation only) -------------------------------------

COMBOS = [(0.0, 0.0, False)] + [
    (drop_at, sure_at, True) for drop_at in (0.0, 0.1, 0.2, 0.35) for sure_at in (0.0, 0.5, 0.6)
]
"""(``drop_at``, ``checked_sure_at`` (0: the heat peak not used), second look used) of
``CubeNetReader``: the first is the reader without a second look."""


def tune(model: Path, renders: list[Path], detector: Path | None = None) -> None:
    """The reader with each combination of ``COMBOS`` on the validation seeds (read alone, and
    with candidates and the cup's counts as the throw desk reads) and on validation renders
    (white-balanced by the markers' paper, as the desk reads); with ``detector``'s first look
    (None: the shipped one)."""
    from collections import Counter

    from train_cubes import HEADER, as_the_desk_reads, figures, row
    from vision_renders import row as render_row  # type: ignore[import-not-found]
    from vision_renders import score  # type: ignore[import-not-found]

    from vision.readings import doubt_counts

    val = [scene_of(seed) for seed in VAL_SEEDS]
    rendered = as_the_desk_reads(renders)
    truths = [list(s.dice) for s in val]
    print(f"{len(val)} validation seeds, {len(rendered)} validation renders")
    head, rule = HEADER.splitlines()
    for drop_at, sure_at, second in COMBOS:
        reader = CubeNetReader(
            detector, check=model if second else False, drop_at=drop_at, checked_sure_at=sure_at
        )
        name = f"drop < {drop_at}, sure at {sure_at}" if second else "first look only"
        alone = [reader.read(s.image) for s in val]
        desk = [doubt_counts(reader.read(s.image, candidates=True),
                             expected=Counter(d.color for d in s.dice)) for s in val]  # fmt: skip
        outcomes = []
        radius = lambda t: t.size / 2  # noqa: E731
        for r, image in rendered:
            cup = Counter(d.color for d in r.dice)
            read = doubt_counts(reader.read(image, candidates=True), expected=cup)
            outcomes += score(r, list(r.dice), read, radius)
        print(f"\n{name}\n{head}\n{rule}")
        print(row("validation seeds", figures(truths, alone)))
        print(row("validation seeds, as the desk", figures(truths, desk)))
        print(render_row("validation renders, as the desk", outcomes, cubes=True), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="where the cut crops are kept")
    ap.add_argument("--scenes", type=int, default=3000, help="training seeds 0..N-1")
    ap.add_argument("--collect", action="store_true", help="cut the crops, then stop")
    ap.add_argument("--tune", action="store_true", help="only: the combinations on validation")
    ap.add_argument("--renders", type=Path, nargs="*", default=[ROOT / "renders" / "dev"],
                    help="with --tune: validation renders (never the held-out ones)")  # fmt: skip
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--seconds", type=float, default=1200.0, help="training time (wall clock)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--printed", type=float, default=0.0, help="share of printed letters (0.08: not shipped)"
    )
    ap.add_argument("--train-renders", type=Path, nargs="*", default=[],
                    help="also train on these Blender renders (training seeds only)")  # fmt: skip
    ap.add_argument("--render-share", type=float, default=0.2,
                    help="with --train-renders: the share of each batch cut from them")  # fmt: skip
    ap.add_argument("--threads", type=int, default=1, help="torch's CPU threads")
    ap.add_argument("--workers", type=int, default=1, help="processes cutting the crops")
    ap.add_argument("--detector", type=Path,
                    help="the first look (an ONNX; default: the shipped one) for --tune and the "
                    "renders' crops")  # fmt: skip
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    assert args.scenes <= VAL_SEEDS.start and args.scenes % SHARD == 0
    if args.tune:
        tune(args.out, args.renders, args.detector)
        return 0
    if args.collect:
        collect(args.data / "val", VAL_SEEDS, args.workers)
        collect(args.data / "train", range(args.scenes), args.workers)
        return 0
    crops, labels = load(args.data / "train", range(args.scenes))
    counts = np.bincount(labels[:, 0].astype(int), minlength=len(CLASSES))
    print(
        f"{len(crops)} training crops: "
        + ", ".join(f"{c} {n}" for c, n in zip(CLASSES, counts, strict=True))
    )
    rendered = None
    if args.train_renders:
        collect_renders(args.train_renders, args.data / "renders.npz", args.detector)
        with np.load(args.data / "renders.npz") as stored:
            rendered = (stored["crops"], stored["labels"])
    model = train(crops, labels, args, rendered)
    export(model, args.out)
    accuracy(model, *load(args.data / "val", VAL_SEEDS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
