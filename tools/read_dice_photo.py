"""Read the pip dice of a photo with the companion's reader, and print what it saw as JSON.

    python tools/read_dice_photo.py PHOTO [PHOTO ...]      one JSON object on stdout
    python tools/read_dice_photo.py --compare A.json B.json

The reader is game night's: ``vision.die_colors.read_pips_in_color`` (the pip networks
``pips.onnx`` and ``pips_values.onnx``, then each die's colour). The installed ``vision``
package is used when the Python running this has one (a Pi's venv), else the repository's.
``deploy/emulated_pi.sh`` runs it with the arm64 venv it installed and with the x86-64 one of
the repository, then ``--compare`` checks that both saw the same dice: each die of one reading
found in the other (its centre within half a die) with the same value (exit status 1 and the
differences printed otherwise). Colours that differ are printed as notes, with the largest gaps
in place and confidence: floating-point sums in another order (arm64's NEON, x86-64's AVX) move
a centre or an angle a little, and a die whose colour is borderline may change name.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import platform
import sys
import time
from pathlib import Path
from typing import Any


def _vision() -> Any:
    try:
        import vision.die_colors as die_colors
    except ImportError:  # not installed: the repository's own
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        import vision.die_colors as die_colors
    return die_colors


def read(photos: list[Path]) -> dict[str, Any]:
    import cv2
    import numpy

    die_colors = _vision()
    out: dict[str, Any] = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "opencv": cv2.__version__,
        "numpy": numpy.__version__,
        "vision": str(Path(die_colors.__file__).parent),
        "photos": [],
    }
    for photo in photos:
        image = cv2.imread(str(photo))
        if image is None:
            raise SystemExit(f"read_dice_photo: cannot read the image {photo}")
        started = time.monotonic()
        readings = die_colors.read_pips_in_color(image)
        seconds = time.monotonic() - started
        out["photos"].append(
            {
                "photo": photo.name,
                "seconds": round(seconds, 3),
                "values": [r.value for r in readings],
                "colors": [r.color for r in readings],
                "dice": [r.to_json() for r in readings],
                "labelled": labelled(photo),
            }
        )
    return out


def labelled(photo: Path) -> list[int] | None:
    """The values labelled by hand for a photo of the dice-photos set (its labels.csv beside
    the images folder), sorted; None for another photo."""
    labels = photo.parent.parent / "labels.csv"
    if not labels.is_file():
        return None
    with labels.open(newline="") as f:
        values = sorted(
            int(row["value"]) for row in csv.DictReader(f) if row["filename"] == photo.name
        )
    return values or None


def pairs(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Each die of ``a`` with the die of ``b`` nearest to it, when their centres are closer than
    half a die (the readers list dice by detection strength: two nearly equal ones may come in
    either order on two machines)."""
    found, taken = [], set()
    for i, da in enumerate(a):
        near = sorted(
            (math.hypot(da["x"] - db["x"], da["y"] - db["y"]), j)
            for j, db in enumerate(b)
            if j not in taken
        )
        if near and near[0][0] < 0.5 * max(da["size"], b[near[0][1]]["size"]):
            found.append((i, near[0][1]))
            taken.add(near[0][1])
    return found


def compared(a: dict[str, Any], b: dict[str, Any]) -> tuple[list[str], list[str], dict[str, float]]:
    """(differences: a die seen on one machine only or read with another value; notes: the
    same die with another colour; the largest gaps between the same dice: centre (px), side
    (px), confidence)."""
    different: list[str] = []
    notes: list[str] = []
    gaps = {"centre_px": 0.0, "side_px": 0.0, "confidence": 0.0}
    names_a = [p["photo"] for p in a["photos"]]
    names_b = [p["photo"] for p in b["photos"]]
    if names_a != names_b:
        return [f"not the same photos: {names_a} and {names_b}"], notes, gaps
    ma, mb = a["machine"], b["machine"]
    for pa, pb in zip(a["photos"], b["photos"], strict=True):
        name, dice_a, dice_b = pa["photo"], pa["dice"], pb["dice"]
        matched = pairs(dice_a, dice_b)
        for i, j in matched:
            da, db = dice_a[i], dice_b[j]
            where = f"{name}: the die at ({da['x']:.0f}, {da['y']:.0f})"
            if da["value"] != db["value"]:
                different.append(f"{where} reads {da['value']} on {ma}, {db['value']} on {mb}")
            if da.get("color") != db.get("color"):
                notes.append(f"{where} is {da.get('color')} on {ma}, {db.get('color')} on {mb}")
            gaps["centre_px"] = max(
                gaps["centre_px"], math.hypot(da["x"] - db["x"], da["y"] - db["y"])
            )
            gaps["side_px"] = max(gaps["side_px"], abs(da["size"] - db["size"]))
            gaps["confidence"] = max(gaps["confidence"], abs(da["confidence"] - db["confidence"]))
        for i in sorted(set(range(len(dice_a))) - {i for i, _ in matched}):
            d = dice_a[i]
            different.append(f"{name}: a {d['value']} at ({d['x']:.0f}, {d['y']:.0f}) on {ma} only")
        for j in sorted(set(range(len(dice_b))) - {j for _, j in matched}):
            d = dice_b[j]
            different.append(f"{name}: a {d['value']} at ({d['x']:.0f}, {d['y']:.0f}) on {mb} only")
    return different, notes, gaps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photos", nargs="*", type=Path, help="photos to read")
    parser.add_argument(
        "--compare", nargs=2, type=Path, metavar="JSON", help="two outputs of this tool to compare"
    )
    args = parser.parse_args(argv)
    if args.compare:
        a, b = (json.loads(p.read_text()) for p in args.compare)
        for reading in (a, b):
            print(
                f"{reading['machine']}: Python {reading['python']}, OpenCV {reading['opencv']},"
                f" numpy {reading['numpy']}"
            )
            for p in reading["photos"]:
                print(f"  {p['photo']} ({p['seconds']:.2f} s): {len(p['values'])} dice,")
                print(f"    values sorted {sorted(p['values'])}")
                if p.get("labelled"):
                    print(f"    labelled by hand {p['labelled']}")
        different, notes, gaps = compared(a, b)
        print(
            f"the same dice, at most {gaps['centre_px']:.2f} px apart (centres),"
            f" {gaps['side_px']:.2f} px (sides), {gaps['confidence']:.3f} (confidence)"
        )
        for line in notes:
            print(f"note: {line}")
        for line in different:
            print(f"DIFFERENT: {line}")
        if different:
            return 1
        print(f"every die has the same value on {a['machine']} and {b['machine']}")
        return 0
    if not args.photos:
        parser.error("give one or more photos, or --compare A.json B.json")
    json.dump(read(args.photos), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
