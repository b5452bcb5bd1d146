"""Train the learned tesson reader shipped as vision/models/tessons.onnx (read by
vision/tesson_net.py).

NOT part of the runtime: this needs ``pip install torch onnx``. Run from the repository's root
(docs/vision/generalization.md has the figures):

    python tools/train_tessons.py --cache-only    # render the training and validation scenes
    python tools/train_tessons.py                 # train → vision/models/tessons.onnx
    python tools/train_tessons.py --scenes 1200 --init vision/models/tessons.onnx --lr 1.5e-3 \
        --seconds 1500 --threads 1 --workers 0 --train-renders renders/train --render-share 0.5
    python tools/train_tessons.py --tune --renders renders/dev      # thresholds, validation
    python tools/train_tessons.py --evaluate --renders renders/heldout   # held-out figures

The cube reader's network and recipe (``tools/train_cubes.py``: its sampler, augmentations,
hard-negative mining and loop), with a head of its own: per 4×4 cell a tesson-centre heat map
(focal loss), a side logit (black rather than white; cross-entropy on the 3×3 cells round each
centre), the log of the tesson's size and its centre's offset (L1 at the centre cell).

Data: generated scenes, and with ``--train-renders renders/train`` Blender renders of training
seeds (``train_cubes.TRAIN_RENDERS``; each tesson's size from the render's truth) drawn for
``--render-share`` of the crops: v3 is v2 (generated scenes only) fine-tuned so, v4 is v3
fine-tuned again once the generator drew a lamp's hot spots, v5 is v4 fine-tuned again once it
drew a flowered cloth, v6 is v5 fine-tuned with all 60 renders, v7 is v6 fine-tuned with 100
once it drew a sleeve's sheen, v9 is v7 fine-tuned for an hour once it overexposed dark
tables, and the shipped v10 is v9 fine-tuned for 55 minutes once it drew hands, game mats'
bare shapes, dark-room lacquers and a striped cloth (docs/vision/tesson_net.md). Scene ``seed``
is ``tesson_scene(seed, 5 + seed % 8, **wild_tesson_knobs(seed))``: a random real table (table,
light, tilt, colour temperature, white balance, exposure, JPEG) with 5-12 seats' revealed
tessons, plain or the box's printed cards, some in sleeves (some mirroring a broad light),
strays, cubes about, hot spots, flowered and striped cloths, overexposed dark tables and a
player's hand. A tesson's size
is a plain shard's width (24 mm) or a printed card's short side, in pixels. Training uses seeds
``0 .. --scenes-1``; ``vision.tesson_net.DETECT_AT`` and ``SURE_AT`` are chosen on ``VAL_SEEDS`` and
on the validation renders (``renders/dev``); the held-out renders (seeds ≥ 1,000,000) only
report.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import train_cubes  # noqa: E402
from train_cubes import STRIDE, CubeNet, Frame, Task, build_cache, focal  # noqa: E402
from vision_scenes import evaluate_tessons  # type: ignore[import-not-found]  # noqa: E402

from vision.readings import TessonReading  # noqa: E402
from vision.seats import SeatMap  # noqa: E402
from vision.synthetic import TESSON_BACK, TessonScene, tesson_scene, wild_tesson_knobs  # noqa: E402
from vision.synthetic_cards import card_size  # noqa: E402
from vision.tesson_net import (  # noqa: E402
    OUTPUTS,
    SIDES,
    WORK_SHORT_SIDE,
    TessonNetReader,
    confidence,
)
from vision.tessons import off_the_markers, read_tessons  # noqa: E402

OUT = ROOT / "vision" / "models" / "tessons.onnx"
CACHE = Path(tempfile.gettempdir()) / "tessons-cache"
VAL_SEEDS = range(49_800, 50_000)  # thresholds chosen here; never trained on
PLAIN_WIDTH = 24.0  # mm, a plain shard's width (``tesson_scene``: 12 mm from its centre)


def scene_of(seed: int) -> TessonScene:
    """Training (and validation) scene ``seed``: a random table with 5-12 seats."""
    return tesson_scene(seed, 5 + seed % 8, **wild_tesson_knobs(seed))


def _render(args: tuple[Path, int]) -> None:
    cache, seed = args
    js = cache / f"{seed:06d}.json"
    if js.exists():
        return
    scene = scene_of(seed)
    per_mm = scene.card_width / card_size(np.random.default_rng([seed, 11]))[0]
    rows = [
        [t.x, t.y, scene.card_width if printed else PLAIN_WIDTH * per_mm, SIDES.index(t.side)]
        for t, printed in zip(scene.tessons, scene.printed, strict=True)
    ]
    png = cache / f"{seed:06d}.{os.getpid()}.tmp.png"  # two trainers may render one seed
    cv2.imwrite(str(png), scene.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    os.replace(png, cache / f"{seed:06d}.png")
    tmp = js.with_suffix(f".{os.getpid()}.tmp")
    assert scene.seats is not None
    data = {
        "seed": seed,
        "tessons": rows,
        "printed": list(scene.printed),
        "seats": [t.seat for t in scene.tessons],
        "seat_map": scene.seats.to_json(),
        "knobs": wild_tesson_knobs(seed),
    }
    tmp.write_text(json.dumps(data))
    os.replace(tmp, js)


SKIN = (120, 150, 205)  # a hand hiding a tesson (BGR)


def hide_some(
    seed: int, image: np.ndarray, rows: np.ndarray, printed: list[bool]
) -> tuple[np.ndarray, np.ndarray, list[bool]]:
    """The scene with some of its tessons hidden, as they are before the reveal: face down (a
    terracotta back over it) or under a hand (the seed: "en le cachant avec leur main"), and
    the truth without them. Half the scenes hide none; the others hide a share drawn from
    ``[seed, 29]``: the reader must never read a hidden tesson."""
    rng = np.random.default_rng([seed, 29])
    if rng.random() < 0.5 or not len(rows):
        return image, rows, printed
    share = rng.uniform(0.2, 0.7)
    out, keep = image.copy(), []
    for i, (x, y, size) in enumerate(rows[:, :3].tolist()):
        if rng.random() >= share:
            keep.append(i)
            continue
        hand = rng.random() < 0.3
        reach = size * (0.9 if printed[i] else 0.65) * rng.uniform(1.0, 1.2)
        if hand:
            axes = (reach * rng.uniform(1.3, 1.8), reach * rng.uniform(1.0, 1.2))
        else:
            axes = (reach, reach * rng.uniform(1.0, 1.15))
        colour = np.array(SKIN if hand else TESSON_BACK, np.float64) * rng.uniform(0.55, 1.25)
        colour *= np.exp(rng.normal(0, 0.08, 3))
        centre = (round(x + rng.normal(0, 0.05 * size)), round(y + rng.normal(0, 0.05 * size)))
        size_px = (max(1, round(axes[0])), max(1, round(axes[1])))
        cv2.ellipse(out, centre, size_px, float(rng.uniform(0, 180)), 0, 360,
                    tuple(float(c) for c in np.clip(colour, 0, 255)), -1, cv2.LINE_AA)  # fmt: skip
    kept = rows[keep].reshape(-1, rows.shape[1])
    return out, kept, [printed[i] for i in keep]


def load_cache(cache: Path, seeds: range) -> list[Frame]:
    frames = []
    for seed in seeds:
        js = cache / f"{seed:06d}.json"
        if js.exists():
            data = json.loads(js.read_text())
            rows = np.array(data["tessons"], np.float32).reshape(-1, 4)
            image = train_cubes._read(cache / f"{seed:06d}.png")
            image, rows, _ = hide_some(seed, image, rows, data["printed"])
            weight = 2.0 if data["knobs"]["table"] in train_cubes.BUSY_TABLES else 1.0
            frames.append((image, rows, weight))
    return frames


def targets(tessons: np.ndarray, crop: int) -> tuple[np.ndarray, ...]:
    """heat (g×g), side (g×g), its mask (the 3×3 cells round each centre), regression (3×g×g:
    log size, x/y offset at the centre cell), its mask."""
    g = crop // STRIDE
    heat = np.zeros((g, g), np.float32)
    side = np.zeros((g, g), np.float32)
    near = np.zeros((g, g), np.float32)
    reg = np.zeros((3, g, g), np.float32)
    reg_mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, s, black in sorted(tessons.tolist(), key=lambda t: -t[2]):
        gx, gy = x / STRIDE, y / STRIDE
        ix, iy = int(gx), int(gy)
        sigma = max(0.6, 0.15 * s / STRIDE)
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma * sigma)))
        box = np.s_[max(0, iy - 1) : iy + 2, max(0, ix - 1) : ix + 2]
        side[box] = black
        near[box] = 1.0
        reg[:, iy, ix] = (math.log(s / STRIDE), gx - ix, gy - iy)
        reg_mask[iy, ix] = 1.0
    return heat, side, near, reg, reg_mask


def loss_fn(
    out: torch.Tensor,
    heat: torch.Tensor,
    side: torch.Tensor,
    near: torch.Tensor,
    reg: torch.Tensor,
    reg_mask: torch.Tensor,
) -> torch.Tensor:
    n_near = near.sum().clamp(min=1)
    sides = (F.binary_cross_entropy_with_logits(out[:, 1], side, reduction="none") * near).sum()
    size_off = (F.l1_loss(out[:, 2:5], reg, reduction="none").sum(1) * reg_mask).sum()
    total: torch.Tensor = (
        focal(out[:, 0], heat) + sides / n_near + size_off / reg_mask.sum().clamp(min=1)
    )
    return total


TESSONS = Task(OUTPUTS, WORK_SHORT_SIDE, (10.0, 60.0), False, targets, loss_fn, (3, 4),
               scales=(0.5, 1.6))  # fmt: skip


# --- thresholds and figures ------------------------------------------------------------------

DETECT = (0.3, 0.35, 0.4, 0.45, 0.5)
SURE = (0.5, 0.6, 0.7, 0.8)
Scored = list[tuple[TessonScene, dict[int, np.ndarray]]]  # a scene and its markers


def validation(cache: Path, seeds: range) -> Scored:
    out: Scored = []
    for seed in seeds:
        data = json.loads((cache / f"{seed:06d}.json").read_text())
        rows = np.array([[*r[:3], seat if seat is not None else -1, r[3]]
                         for r, seat in zip(data["tessons"], data["seats"], strict=True)],
                        np.float32).reshape(-1, 5)  # fmt: skip
        image = train_cubes._read(cache / f"{seed:06d}.png")
        image, rows, printed = hide_some(seed, image, rows, data["printed"])
        truth = tuple(
            TessonReading(x, y, SIDES[int(b)], 1.0, None if seat < 0 else int(seat))  # type: ignore[arg-type]
            for x, y, _, seat, b in rows.tolist()
        )
        scene = TessonScene(
            image=image,
            tessons=truth,
            seats=SeatMap.from_json(data["seat_map"]),
            printed=tuple(printed),
        )
        out.append((scene, {}))
    return out


def renders(folders: list[Path]) -> Scored:
    """Blender tesson renders, white-balanced by the markers' paper as the companion reads, with
    their tessons ``in_view``."""
    out: Scored = []
    for r, image in train_cubes.as_the_desk_reads(folders, "tessons"):
        shown = in_view(r)
        printed = tuple(bool(t.printed) for t in shown)
        scene = TessonScene(image=image, tessons=shown, seats=r.seats, printed=printed)
        out.append((scene, {m.id: m.corners for m in r.markers}))
    return out


def in_view(render: Any) -> tuple[Any, ...]:
    """A tesson render's truth: its tessons at least half in view."""
    return tuple(t for t in render.tessons if t.visible >= 0.5)


def render_rows(render: Any) -> np.ndarray:
    """A tesson render's truth rows (x, y, size, black) for training."""
    shown = in_view(render)
    if any(t.size is None for t in shown):
        raise SystemExit(f"tessons render {render.seed} has no tesson sizes: render it again")
    rows = [[t.x, t.y, t.size, SIDES.index(t.side)] for t in shown]
    return np.array(rows, np.float32).reshape(-1, 4)


def row(name: str, scenes: Scored, found: list[list[TessonReading]]) -> str:
    tally = evaluate_tessons([s for s, _ in scenes], found)
    m = max(1, tally.matched)
    return (
        f"| {name} | {tally.truth} | {100 * tally.matched / max(1, tally.truth):.1f}% "
        f"| {100 * tally.matched / max(1, tally.found):.1f}% | {100 * tally.right_kind / m:.1f}% "
        f"| {100 * tally.right_seat / m:.1f}% | {100 * tally.flagged / max(1, tally.found):.1f}% "
        f"| {tally.silent} |"
    )


HEADER = (
    "| reader | tessons | recall | precision | side | seat | flagged | silent errors |\n"
    "|---|---|---|---|---|---|---|---|"
)


def sweep(model: Path, scenes: Scored, title: str) -> None:
    reader = TessonNetReader(model, detect_at=min(DETECT))
    everything = []
    for scene, markers in scenes:
        read = reader.read(scene.image, scene.seats)
        kept = off_the_markers(read, markers)
        facts = zip(
            read, reader.last_heat, reader.last_side_confidence, reader.last_cut, strict=True
        )
        everything.append([fact for fact in facts if fact[0] in kept])
    print(f"\n{title}\n{HEADER}")
    for detect_at, sure_at in itertools.product(DETECT, SURE):
        found = [
            [
                replace(r, confidence=confidence(h, sure_at, side, cut))
                for r, h, side, cut in scene
                if h > detect_at
            ]
            for scene in everything
        ]
        print(row(f"detect at {detect_at}, sure at {sure_at}", scenes, found), flush=True)


def compare(model: Path | None, scenes: Scored, title: str) -> None:
    reader = TessonNetReader(model)
    learned = [off_the_markers(reader.read(s.image, s.seats), m) for s, m in scenes]
    tuned = [off_the_markers(read_tessons(s.image, s.seats), m) for s, m in scenes]
    print(f"\n{title}\n{HEADER}")
    print(row("read_tessons_net", scenes, learned))
    print(row("read_tessons", scenes, tuned), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = train_cubes.training_arguments(
        __doc__.split("\n")[0], CACHE, OUT, 2000, 8000, [0.4, 0.7], 100
    )
    ap.add_argument("--renders", type=Path, nargs="*", help="render folders (tune or evaluate)")
    ap.add_argument("--tune", action="store_true", help="only: the threshold sweep")
    ap.add_argument("--evaluate", action="store_true", help="only: both readers on --renders")
    ap.add_argument("--model", type=Path, help="with --evaluate or --tune: this model")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    assert args.scenes <= VAL_SEEDS.start

    val = range(VAL_SEEDS.start, VAL_SEEDS.start + args.val)
    if args.evaluate:
        for folder in args.renders or []:
            compare(args.model, renders([folder]), f"Blender renders in {folder}")
        return 0
    if args.tune:
        if args.renders:
            scenes = renders(args.renders)
            sweep(args.model or OUT, scenes, f"validation renders ({len(scenes)}; tuning only)")
            return 0
        build_cache(args.cache, val, args.workers + 1, _render)
        sweep(args.model or OUT, validation(args.cache, val), "validation seeds (tuning only)")
        return 0
    build_cache(args.cache, range(args.scenes), args.workers + 1, _render)
    build_cache(args.cache, val, args.workers + 1, _render)
    if args.cache_only:
        return 0
    t0 = time.time()
    frames = load_cache(args.cache, range(args.scenes))
    print(f"{len(frames)} training scenes, {sum(len(t) for _, t, _ in frames)} tessons "
          f"({time.time() - t0:.0f} s to load)")  # fmt: skip
    generated = len(frames)
    if args.train_renders:
        rendered = train_cubes.training_renders(
            args.train_renders, args.render_share, frames, "tessons", render_rows
        )
        print(f"{len(rendered)} training renders, {sum(len(t) for _, t, _ in rendered)} tessons, "
              f"drawn {args.render_share:.0%} of the time")  # fmt: skip
        frames += rendered
    model: CubeNet = train_cubes.train(frames, args, TESSONS, renders_from=generated)
    if args.weights:
        torch.save(model.state_dict(), args.weights)
    train_cubes.export(model, args.out)
    sweep(args.out, validation(args.cache, val), "validation seeds (tuning only)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
