"""Read revealed tessons (Ostrakon's voting cards) from an overhead frame: where each lies,
which side shows (white or black) and, with a ``SeatMap``, whose seat's zone it lies in.

Method (docs/vision/scenes.md): the bare table and the light are estimated as for the cubes
(``vision.cubes.planes``). A tesson is a grey patch far from the table's brightness: white
ones are much brighter than the table (or, on a coloured table, bright and colourless), black
ones much darker and colourless (a shadow keeps the table's colour, and is darker by a half at
most). Groups of such pixels of a tesson's size and not square (a black Oraklos cube is square)
are tessons; the centre is the centroid, the side the majority of its pixels. Confidence falls
when the side is not clear, the size is unlike the others', the shape is square-ish, or the
centre is near the edge of a seat zone (then the seat may be the neighbour's).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.cubes import _check, _ramp, planes
from vision.readings import CONFIRM_BELOW, TessonReading
from vision.seats import SeatMap

WHITE, BLACK = 1, 2


def read_tessons(
    image: np.ndarray,
    seats: SeatMap | None = None,
    *,
    min_area: float = 600.0,
    max_area: float = 12000.0,
    edge_margin: float = 6.0,
) -> list[TessonReading]:
    """Every tesson on the frame, top to bottom, with its seat when a map is given.

    ``min_area`` / ``max_area`` bound a tesson's area in pixels (the defaults suit a 1280x720
    frame of a table about 500 mm across); a tesson whose centre is within ``edge_margin``
    pixels of a zone's edge is flagged.
    """
    image = _check(image)
    p = planes(image)
    grey = p.sat < 60
    white = grey & (p.diff > 16) & ((p.ratio > 1.06) | ((p.table_sat >= 90) & (p.val >= 150)))
    black = (p.sat < 100) & (p.diff > 5) & (p.ratio < 0.88) & (p.val < 90)
    sides = np.zeros(p.sat.shape, np.uint8)
    sides[white] = WHITE
    sides[black & ~white] = BLACK
    kernel = np.ones((3, 3), np.uint8)
    mask = cv2.morphologyEx((sides > 0).astype(np.uint8), cv2.MORPH_OPEN, kernel)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    found: list[tuple[float, float, float, str, float]] = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if not min_area <= area <= max_area:
            continue
        roi = labels[y : y + h, x : x + w] == i
        patch = sides[y : y + h, x : x + w][roi]
        share_white = float((patch == WHITE).mean())
        share_black = float((patch == BLACK).mean())
        side = "white" if share_white >= share_black else "black"
        clear = max(share_white, share_black) / max(1e-6, share_white + share_black)
        contour = cv2.findContours(
            roi.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
        )[0]
        contour = max(contour, key=cv2.contourArea)
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        fill = area / max(1.0, rw * rh)
        squareness = min(rw, rh) / max(1.0, rw, rh)
        if fill > 0.93 and squareness > 0.85:
            continue  # a square: a cube or a box, not a potsherd
        if side == "black" and float(np.median(p.val[y : y + h, x : x + w][roi])) > 55:
            continue  # a black cube: its glossy top face is lighter than a matte black card
        hull = cv2.contourArea(cv2.convexHull(contour))
        solidity = area / max(1.0, hull)
        confidence = min(_ramp(clear, 0.7, 0.9), _ramp(solidity, 0.75, 0.9))
        cx, cy = centroids[i]
        found.append((float(cx), float(cy), float(area), side, confidence))
    if len(found) >= 3:
        typical = float(np.median([f[2] for f in found]))
        found = [
            (
                *f[:4],
                min(f[4], 1.0 - _ramp(abs(math.log(f[2] / typical)), 0.4, 0.7) * 0.5),
            )
            for f in found
            if abs(math.log(f[2] / typical)) < 1.2
        ]
    readings = []
    for cx, cy, _, side, confidence in found:
        seat = None
        if seats is not None:
            seat = seats.seat_of(cx, cy)
            if _edge_distance(seats, cx, cy) < edge_margin:
                confidence = min(confidence, CONFIRM_BELOW - 0.1)
        readings.append(TessonReading(cx, cy, side, confidence, seat))  # type: ignore[arg-type]
    readings.sort(key=lambda r: (round(r.y), r.x))
    return readings


def _edge_distance(seats: SeatMap, x: float, y: float) -> float:
    """Distance in pixels from (x, y) to the nearest edge of a seat zone."""
    if seats.polygons:
        return min(
            abs(cv2.pointPolygonTest(np.array(poly, np.float32), (x, y), True))
            for poly in seats.polygons
        )
    assert seats.centre is not None
    dx, dy = x - seats.centre[0], y - seats.centre[1]
    r = math.hypot(dx, dy)
    angle = math.degrees(math.atan2(dy, dx))
    best = math.inf
    for start in seats.starts:
        delta = math.radians((angle - start + 180) % 360 - 180)
        best = min(best, r * abs(math.sin(delta)) if abs(delta) < math.pi / 2 else r)
    if seats.inner:
        best = min(best, abs(r - seats.inner))
    if seats.outer is not None:
        best = min(best, abs(r - seats.outer))
    return best


def annotate_tessons(
    image: np.ndarray, readings: list[TessonReading], seats: SeatMap | None = None
) -> np.ndarray:
    """A copy of the frame with the seat zones drawn (thin cyan lines), each tesson ringed in
    its read side's colour with its seat number, flagged ones marked with a magenta '?'."""
    out = image.copy()
    if seats is not None:
        if seats.polygons:
            for i, poly in enumerate(seats.polygons):
                pts = np.round(np.array(poly) * 4).astype(np.int32)
                cv2.polylines(out, [pts], True, (255, 255, 0), 1, cv2.LINE_AA, 2)
                # On the zone's outline a quarter of the way round, drawn a little inside.
                centroid = np.mean(poly, axis=0)
                mx, my = np.array(poly[len(poly) // 4]) * 0.8 + centroid * 0.2
                _label(out, f"seat {i}", (round(mx) - 24, round(my)), (255, 255, 0))
        elif seats.centre is not None:
            cx, cy = seats.centre
            reach = seats.outer or float(max(out.shape[:2]))
            for i, start in enumerate(seats.starts):
                a = math.radians(start)
                r0 = seats.inner
                p0 = (round(cx + r0 * math.cos(a)), round(cy + r0 * math.sin(a)))
                p1 = (round(cx + reach * math.cos(a)), round(cy + reach * math.sin(a)))
                cv2.line(out, p0, p1, (255, 255, 0), 1, cv2.LINE_AA)
                nxt = seats.starts[(i + 1) % len(seats.starts)]
                mid = math.radians(start + ((nxt - start) % 360 or 360) / 2)
                rm = (r0 + min(reach, max(out.shape[:2]) / 3)) / 2 + 40
                _label(
                    out,
                    f"seat {i}",
                    (round(cx + rm * math.cos(mid)), round(cy + rm * math.sin(mid))),
                    (255, 255, 0),
                )
    for r in readings:
        centre = (round(r.x), round(r.y))
        ring = (255, 255, 255) if r.side == "white" else (0, 0, 0)
        cv2.circle(out, centre, 36, (0, 200, 0), 4, cv2.LINE_AA)
        cv2.circle(out, centre, 36, ring, 2, cv2.LINE_AA)
        cv2.drawMarker(out, centre, (0, 200, 0), cv2.MARKER_CROSS, 10, 2, cv2.LINE_AA)
        text = f"{r.side} -> {'-' if r.seat is None else r.seat}"
        _label(out, text, (centre[0] - 40, centre[1] + 54), (255, 255, 255))
        if r.flagged:
            _label(out, "?", (centre[0] + 36, centre[1] - 30), (255, 0, 255))
    return out


def _label(image: np.ndarray, text: str, origin: tuple[int, int], color: tuple[int, ...]) -> None:
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5, color, 1, cv2.LINE_AA)
