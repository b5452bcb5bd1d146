"""Evaluate the pip-dice reader (vision/pips.py) on the real dice photos.

    python benchmarks/vision_pips.py [--data DIR] [--day 20191208] [--worst N] [--annotate DIR]
                                     [--no-speed] [--no-1280] [--every K --fold F]
                                     [--detector ONNX] [--values ONNX] [--views N]

Prints recall (labelled dice found), precision (detections that are dice), value accuracy
(right pip count among found dice), overall and per photo session (day), the counts of misses,
false detections and wrong values, then the median time per frame of `read_pips` for the
640×640 photos and for 1280×720 frames. ``--detector``/``--values`` read with other models (e.g.
the cross-check's, trained without the photos read), ``--views`` with another number of views
of each die for the value network (``vision.pips.VALUE_VIEWS``); ``--every K --fold F`` reads
only every K-th photo in name order from the F-th (the held-out photos of
``tools/train_pips.py --every K --fold F``).

Matching: a detection matches a labelled die when its centre lies inside the label's box;
one-to-one, greedily by distance between the detection and the box centre.

1280×720 frames: each photo is resized to 720×720 (×1.125) and pasted in the middle of a
1280×720 canvas whose sides repeat the photo's own left and right columns (the tray continues),
labels scaled alike; so the figure also checks a second scale. Timing runs one frame at a time
in this process (OpenCV may use both cores inside a call).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.pips import VALUE_VIEWS, PipReader, annotate_pips, read_pips  # noqa: E402
from vision.synthetic import PHOTOS  # noqa: E402

DATA = PHOTOS

Box = tuple[float, float, float, float]
READ = read_pips  # the reader measured; main() replaces it for --detector, --values, --views


def load_labels(data: Path) -> dict[str, list[tuple[int, Box]]]:
    labels: dict[str, list[tuple[int, Box]]] = defaultdict(list)
    with open(data / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            box = (float(row["xmin"]), float(row["ymin"]), float(row["xmax"]), float(row["ymax"]))
            labels[row["filename"]].append((int(row["value"]), box))
    return dict(labels)


def day_of(name: str) -> str:
    return name.split("_")[1]


def to_1280x720(image: np.ndarray, boxes: list[Box]) -> tuple[np.ndarray, list[Box]]:
    """Photo resized to 720×720 and centred on a 1280×720 canvas extending the tray."""
    k = 720 / image.shape[0]
    photo = cv2.resize(image, (round(image.shape[1] * k), 720), interpolation=cv2.INTER_LINEAR)
    pad = (1280 - photo.shape[1]) // 2
    frame = cv2.copyMakeBorder(photo, 0, 0, pad, 1280 - photo.shape[1] - pad, cv2.BORDER_REPLICATE)
    return frame, [(x0 * k + pad, y0 * k, x1 * k + pad, y1 * k) for x0, y0, x1, y1 in boxes]


def match(readings: list, labels: list[tuple[int, Box]]) -> tuple[list, list, list]:
    """Return (pairs (reading, label)), unmatched labels, unmatched readings."""
    options = []
    for i, r in enumerate(readings):
        for j, (_, (x0, y0, x1, y1)) in enumerate(labels):
            if x0 <= r.x <= x1 and y0 <= r.y <= y1:
                options.append((np.hypot(r.x - (x0 + x1) / 2, r.y - (y0 + y1) / 2), i, j))
    options.sort()
    used_r, used_l, pairs = set(), set(), []
    for _, i, j in options:
        if i in used_r or j in used_l:
            continue
        used_r.add(i)
        used_l.add(j)
        pairs.append((readings[i], labels[j]))
    misses = [lab for j, lab in enumerate(labels) if j not in used_l]
    false = [r for i, r in enumerate(readings) if i not in used_r]
    return pairs, misses, false


def evaluate(data: Path, names: list[str], labels, annotate: Path | None, frame1280: bool = False):
    per_photo = {}
    for name in names:
        image = cv2.imread(str(data / "images" / name))
        labs = labels.get(name, [])
        if frame1280:
            image, boxes = to_1280x720(image, [b for _, b in labs])
            labs = [(v, b) for (v, _), b in zip(labs, boxes, strict=True)]
        readings = READ(image)
        pairs, misses, false = match(readings, labs)
        wrong = [(r, lab) for r, lab in pairs if r.value != lab[0]]
        unflagged = [(r, lab) for r, lab in pairs if not r.flagged]
        ok = sum(1 for r, lab in unflagged if r.value == lab[0])
        per_photo[name] = (
            len(labs),
            len(pairs),
            misses,
            false,
            wrong,
            readings,
            (ok, len(unflagged)),
        )
        if annotate is not None and (misses or false or wrong):
            out = annotate_pips(image, readings)
            for _, (x0, y0, x1, y1) in misses:
                cv2.rectangle(out, (int(x0), int(y0)), (int(x1), int(y1)), (255, 0, 255), 1)
            for r, lab in wrong:
                cv2.putText(
                    out,
                    f"={lab[0]}",
                    (int(r.x), int(r.y + r.size)),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.5,
                    (255, 0, 255),
                    2,
                )
            annotate.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(annotate / (Path(name).stem + ".png")), out)
    return per_photo


def summary(per_photo: dict, title: str) -> None:
    groups: dict[str, list] = defaultdict(list)
    for name, row in per_photo.items():
        groups["all"].append(row)
        groups[day_of(name)].append(row)
    print(f"\n{title}")
    cols = [
        "set", "photos", "dice", "found", "recall", "detections", "false", "precision",
        "values right", "value accuracy", "flagged", "accuracy unflagged", "wrong unflagged",
    ]  # fmt: skip
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for key in sorted(groups, key=lambda k: (k != "all", k)):
        rows = groups[key]
        dice = sum(r[0] for r in rows)
        found = sum(r[1] for r in rows)
        false = sum(len(r[3]) for r in rows)
        wrong = sum(len(r[4]) for r in rows)
        dets = sum(len(r[5]) for r in rows)
        flagged = sum(sum(1 for x in r[5] if x.flagged) for r in rows)
        ok_unfl = sum(r[6][0] for r in rows)
        n_unfl = sum(r[6][1] for r in rows)
        print(
            f"| {key} | {len(rows)} | {dice} | {found} | {found / max(dice, 1):.3f} | {dets} | "
            f"{false} | {(dets - false) / max(dets, 1):.3f} | {found - wrong} | "
            f"{(found - wrong) / max(found, 1):.3f} | {flagged} | {ok_unfl / max(n_unfl, 1):.3f} | "
            f"{n_unfl - ok_unfl} |"
        )


def speed(data: Path, names: list[str], frame1280: bool) -> float:
    times = []
    for name in names:
        image = cv2.imread(str(data / "images" / name))
        if frame1280:
            image, _ = to_1280x720(image, [])
        READ(image)  # warm
        t0 = time.perf_counter()
        READ(image)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--day", help="only photos of this session, e.g. 20191208")
    ap.add_argument("--worst", type=int, default=0, help="list the N worst photos")
    ap.add_argument("--annotate", type=Path, help="write annotated images of imperfect photos here")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--no-1280", action="store_true", help="skip the 1280×720 accuracy pass")
    ap.add_argument("--every", type=int, metavar="K", help="only every K-th photo in name order")
    ap.add_argument("--fold", type=int, default=0, help="with --every: the first photo read")
    ap.add_argument("--detector", type=Path, help="detector model (default: the shipped one)")
    ap.add_argument("--values", type=Path, help="value model (default: the shipped one)")
    ap.add_argument("--views", type=int, default=VALUE_VIEWS, help="views of each die's crop")
    args = ap.parse_args(argv)
    global READ
    if args.detector or args.values or args.views != VALUE_VIEWS:
        READ = PipReader(args.detector, args.values, value_views=args.views).read
    labels = load_labels(args.data)
    names = sorted(p.name for p in (args.data / "images").glob("*.jpg"))
    if args.day:
        names = [n for n in names if day_of(n) == args.day]
    if args.every:
        names = [n for i, n in enumerate(names) if i % args.every == args.fold % args.every]
    per = evaluate(args.data, names, labels, args.annotate)
    summary(per, "640×640 photos")
    if not args.no_1280:
        per1280 = evaluate(args.data, names, labels, None, frame1280=True)
        summary(per1280, "1280×720 frames (photo ×1.125 on a wider tray)")
    if args.worst:
        print(f"\nworst {args.worst} photos (misses + false + wrong values):")
        ranked = sorted(
            per.items(), key=lambda kv: -(len(kv[1][2]) + len(kv[1][3]) + len(kv[1][4]))
        )
        for name, (n, _, misses, false, wrong, _, _) in ranked[: args.worst]:
            wr = ", ".join(f"{r.value} for {lab[0]}" for r, lab in wrong)
            print(
                f"  {name}: {n} dice, {len(misses)} missed, {len(false)} false, "
                f"{len(wrong)} wrong [{wr}]"
            )
    if not args.no_speed:
        print(f"\nmedian ms per frame, 640×640: {speed(args.data, names, False):.1f}")
        print(f"median ms per frame, 1280×720: {speed(args.data, names, True):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
