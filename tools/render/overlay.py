"""Draw a render's ground truth on its image, to check by eye that it sits on the objects.

    python tools/render/overlay.py renders/dev/cubes-000003.json [--out overlay.png]

Dice: the true top face as a turned square (centre, size, angle) in the die's colour with a
white halo, a ring for a hole on top, a cross otherwise, and its pose (f, l, p) and visible
share; markers: the four corners in cv2.aruco's order (the first one dotted) and the id;
tessons: a ring in the side's colour, "side -> seat"; seats: the zones' polygons in cyan.
A cubes scene's colour-check frame is drawn beside it (``-check`` in the output's name, at
twice the size): its dice, and the check card's marker (id 4) as the corner markers are.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import truth

BGR = {
    "red": (40, 40, 230),
    "yellow": (30, 220, 240),
    "blue": (230, 120, 20),
    "black": (20, 20, 20),
    "white": (250, 250, 250),
}


def _square(x: float, y: float, size: float, angle: float) -> np.ndarray:
    half = size / 2
    a = math.radians(angle)
    u = np.array([math.cos(a), math.sin(a)]) * half
    v = np.array([-u[1], u[0]])
    c = np.array([x, y])
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def draw_dice(image: np.ndarray, dice: tuple[truth.RenderedDie, ...], scale: float) -> None:
    for die in dice:
        pts = _square(die.x, die.y, die.size, die.angle) * scale
        poly = [np.round(pts * 16).astype(np.int32)]
        cv2.polylines(image, poly, True, (255, 255, 255), 3, cv2.LINE_AA, 4)
        cv2.polylines(image, poly, True, BGR[die.color or "white"], 1, cv2.LINE_AA, 4)
        c = (round(die.x * scale), round(die.y * scale))
        r = max(2, round(die.size * scale * 0.19))
        if die.hole:
            cv2.circle(image, c, r, (255, 255, 255), 1, cv2.LINE_AA)
        else:
            cv2.drawMarker(image, c, (255, 255, 255), cv2.MARKER_CROSS, r * 2, 1, cv2.LINE_AA)
        label = die.pose[0] + (f"{die.visible:.2f}" if die.visible < 1 else "")
        corner = (int(pts[:, 0].max()) + 2, int(pts[:, 1].min()) + 4)
        cv2.putText(image, label, corner, cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 3)
        cv2.putText(image, label, corner, cv2.FONT_HERSHEY_SIMPLEX, 0.35, (255, 255, 255), 1)


def draw_markers(image: np.ndarray, markers: tuple[truth.Marker, ...], scale: float) -> None:
    for marker in markers:
        pts = marker.corners * scale
        cv2.polylines(
            image, [np.round(pts * 16).astype(np.int32)], True, (255, 0, 255), 1, cv2.LINE_AA, 4
        )
        cv2.circle(image, (round(pts[0, 0]), round(pts[0, 1])), 3, (255, 0, 255), -1)
        cv2.putText(
            image,
            str(marker.id),
            (round(pts[:, 0].mean()) - 4, round(pts[:, 1].mean()) + 4),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5,
            (255, 0, 255),
            2,
        )


def draw(rendered: truth.Rendered, scale: float = 1.0) -> np.ndarray:
    image = rendered.image.copy()
    if scale != 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    if rendered.seats is not None:
        for polygon in rendered.seats.polygons:
            pts = np.round(np.array(polygon) * scale * 16).astype(np.int32)
            cv2.polylines(image, [pts], True, (255, 255, 0), 1, cv2.LINE_AA, 4)
    draw_markers(image, rendered.markers, scale)
    draw_dice(image, rendered.dice, scale)
    for tesson in rendered.tessons:
        c = (round(tesson.x * scale), round(tesson.y * scale))
        cv2.circle(image, c, 9, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.circle(image, c, 9, BGR[tesson.side], 1, cv2.LINE_AA)
        seat = "-" if tesson.seat is None else str(tesson.seat)
        label = f"{tesson.side[0]}{'p' if tesson.printed else ''}->{seat}"
        cv2.putText(image, label, (c[0] + 11, c[1]), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3)
        cv2.putText(
            image, label, (c[0] + 11, c[1]), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1
        )
    return image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", type=Path)
    parser.add_argument("--out", type=Path, help="default: <name>-overlay.png beside the JSON")
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args(argv)
    rendered = truth.load(args.json)
    out = args.out or args.json.with_name(args.json.stem + "-overlay.png")
    cv2.imwrite(str(out), draw(rendered, args.scale))
    print(out)
    if rendered.check is not None:
        check = rendered.check.image.copy()
        scale = max(1.0, 2 * args.scale)
        check = cv2.resize(check, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        draw_markers(check, rendered.check.markers, scale)
        draw_dice(check, rendered.check.dice, scale)
        check_out = out.with_name(out.stem + "-check.png")
        cv2.imwrite(str(check_out), check)
        print(check_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
