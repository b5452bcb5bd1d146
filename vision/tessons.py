"""Read revealed tessons (Ostrakon's voting cards) from an overhead frame: where each lies,
which side shows (white or black) and, with a ``SeatMap``, whose seat's zone it lies in.

Two kinds are read: the box's **printed cards** (a card of coloured stock with a white or a
black potsherd printed on it: the side is the shard's colour) and **plain tessons** (a white
or a black shard-shaped card).

Method (docs/vision/scenes.md), on the frame at half size:

1. **The bare table**: big cards can cover half of any window a median would take, so the
   table is found by its colour (the frame's most common chromaticity) and the smoothness of
   light (a robust polynomial surface over the pixels of that colour, its texture added back).
   Every pixel is compared with the table under it, channel by channel, so the light's
   strength and colour cancel; the light's colour itself (a warm bulb makes white orange) is
   taken from the brightest things much lighter than the table.
2. **Tesson-like pixels**: *white* ones brighter than the table and of the light's colour,
   *black* ones darker and of it or colourless (a shadow keeps the table's colour and darkens
   every channel alike). **Objects**: what differs from the table, or is white or black;
   pieces of one card that a glare streak cut apart are joined, touching cards parted.
3. **A big object** is a printed card, or its shard alone: the stock is sampled in the
   corners of its rectangle (a convex shard leaves them free), and each pixel of the card is
   compared with it channel by channel: white ink is no darker and clearly lighter where the
   stock's colour is weakest (also on a cream stock), black ink much darker. The side is the
   ink that covers the card; glare only adds light, so it can hide black ink but never makes
   it. The centre is the card's centroid.
4. **A small object** is a plain tesson: its side is the majority of its pixels, its centre
   their centroid; squares (cubes), glossy black tops and streaks are dropped.

Confidence falls when the side is not clear (mixed white and black, a black shard half in
glare, too little ink, a card washed out by the light), the shape is ragged, the size is
unlike the others' of its kind, or the tesson is cut by the frame's edge or by the edge of a
seat zone (less than ``ZONE_SHARE`` of it in the zone of its centre, or its centre within
``edge_margin`` of the edge): below ``CONFIRM_BELOW`` a reading is flagged for a person to
confirm, never silently trusted.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from vision.arrays import FloatImage, Image, Labels, Mask, Points, f32, f64, i32, u8
from vision.cubes import check_frame
from vision.readings import CONFIRM_BELOW, Side, TessonReading
from vision.seats import SeatMap

if TYPE_CHECKING:
    from cv2.typing import MatLike, RotatedRect

WHITE, BLACK = 1, 2
ZONE_SHARE = 0.8
"""A card with less than this share of its area in the zone of its centre is flagged."""


def read_tessons(
    image: Image,
    seats: SeatMap | None = None,
    *,
    min_area: float = 600.0,
    max_area: float = 70000.0,
    card_area: float = 5500.0,
    edge_margin: float = 6.0,
) -> list[TessonReading]:
    """Every tesson on the frame, top to bottom, with its seat when a map is given.

    Areas are in pixels of the frame and suit a 1280x720 frame of a table about 500 mm across
    (2.2-2.8 px per mm): ``min_area`` / ``max_area`` bound a tesson's visible group, and a group
    of ``card_area`` or more is read as a printed card (a 44x63 mm card is about 13,000 px, a
    63x88 one up to 45,000; a plain tesson about 3,000). A tesson whose centre is within
    ``edge_margin`` pixels of a zone's edge, or with less than ``ZONE_SHARE`` of its area in
    the zone of its centre, is flagged.
    """
    image = check_frame(image)
    scale = 2 if min(image.shape[:2]) >= 360 else 1
    p = _planes(image, scale)
    kernel = np.ones((3, 3), np.uint8)
    px = scale * scale
    claimed = np.zeros(p.sides.shape, np.uint8)
    found: list[_Found] = []
    # Specks and one-pixel lines out (an opening by 2 x 2 keeps the thin stock between a
    # shard and the card's edge), what they took from the edges of the rest put back.
    seen = (p.fg | (p.sides > 0)).astype(np.uint8)
    opened = cv2.morphologyEx(seen, cv2.MORPH_OPEN, kernel[:2, :2])
    objects = cv2.bitwise_and(cv2.dilate(opened, kernel), seen)
    n, found_labels, found_stats, _ = cv2.connectedComponentsWithStats(objects, connectivity=8)
    labels, stats = i32(found_labels), i32(found_stats)
    for group in _groups(p, labels, stats, min_area / px, card_area / px):
        x0, y0 = stats[group, 0].min(), stats[group, 1].min()
        x1 = (stats[group, 0] + stats[group, 2]).max()
        y1 = (stats[group, 1] + stats[group, 3]).max()
        area = float(stats[group, cv2.CC_STAT_AREA].sum()) * px
        if area < card_area:
            continue
        whole = _members(labels[y0:y1, x0:x1], group)
        outlines = cv2.findContours(whole, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
        cv2.drawContours(whole, outlines, -1, 1, -1)  # a card's stock round a shard like the table
        for mask, x, y in _touching(whole, int(x0), int(y0), area > 1.5 * card_area):
            if not card_area <= float(np.count_nonzero(mask)) * px <= max_area:
                continue
            card, cardlike = _card(p, mask, x, y, 1.8 * card_area / px)
            if card is not None:
                found.append(card)
            if cardlike or card is not None:
                claimed[y : y + mask.shape[0], x : x + mask.shape[1]] |= mask
    mask = u8(cv2.morphologyEx((p.sides > 0).astype(np.uint8), cv2.MORPH_OPEN, kernel))
    mask = u8(cv2.bitwise_and(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel), 1 - claimed))
    n, found_labels, found_stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    labels, stats = i32(found_labels), i32(found_stats)
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if min_area <= area * px < card_area:
            roi = labels[y : y + h, x : x + w] == i
            found += _plain(p, roi, x, y, min_area / px)
    found = _sizes_agree([f for f in found if f.card]) + _sizes_agree(
        [f for f in found if not f.card]
    )
    readings = []
    for f in found:
        fx, fy = (f.x + 0.5) * scale - 0.5, (f.y + 0.5) * scale - 0.5
        seat = None
        confidence = f.confidence
        h, w = f.region.shape
        if f.x0 <= 0 or f.y0 <= 0 or f.x0 + w >= p.sides.shape[1] or f.y0 + h >= p.sides.shape[0]:
            confidence = min(confidence, CONFIRM_BELOW - 0.1)  # cut by the frame's edge
        if seats is not None:
            seat = seat_of(seats, fx, fy)
            share = _zone_share(seats, seat, f, scale, p.sides.shape)
            if edge_distance(seats, fx, fy) < edge_margin or share < ZONE_SHARE:
                confidence = min(confidence, CONFIRM_BELOW - 0.1)
        readings.append(TessonReading(fx, fy, f.side, confidence, seat))
    readings.sort(key=lambda r: (round(r.y), r.x))
    return readings


# ---------------------------------------------------------------------------------------------
# Planes


@dataclass
class _Planes:
    """The frame at the working scale and per-pixel measures against the bare table."""

    image: Image
    """BGR, uint8, at the working scale."""
    table: FloatImage
    """The bare table under the light, BGR float32."""
    sides: Image
    """WHITE, BLACK or 0 per pixel, against the table."""
    val: FloatImage
    """Brightness corrected for the light (the table's brightness scaled to its median)."""
    fg: Mask
    """What differs from the table in colour or brightness, shadows left out (bool)."""
    white_level: float
    """The light-corrected brightness of the frame's whitest things (99th percentile)."""


def off_the_markers(
    readings: list[TessonReading], markers: Mapping[int, Points]
) -> list[TessonReading]:
    """The readings that do not lie on a printed marker's paper: the paper round an ArUco
    marker (``vision.calibration.detect_markers``: id → its black square's corners) is white
    card too, and is no tesson."""
    papers = []
    for corners in markers.values():
        centre = corners.mean(axis=0)
        papers.append((centre + (corners - centre) * PAPER_GROWTH).astype(np.float32))
    return [
        r
        for r in readings
        if all(cv2.pointPolygonTest(paper, (r.x, r.y), False) < 0 for paper in papers)
    ]


PAPER_GROWTH = 1.6
"""A marker's paper round its black square, as a factor of the square: the quiet zone is at
least a module (1/6 of the square) on each side, and cutting leaves a little more."""


def _table(image: Image) -> Image:
    """The bare table under the frame's light, at 1/8 of ``image``'s size (uint8 BGR).

    Big cards can cover half of any window a median would take, so the table is found by its
    colour and by the smoothness of light instead: the most common chromaticity of the frame
    is the table's; over the pixels of that colour a smooth surface (a polynomial of degree 4
    in the log of brightness, per channel) is fitted robustly (what lies off it by more than
    three times the table's own spread weighs nothing: cards, shards, a white card on a light
    floor); what is left of the table's texture is added back by a weighted blur."""
    h, w = image.shape[:2]
    sw, sh = max(8, w // 8), max(8, h // 8)
    small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
    total = small.sum(axis=2)
    chroma = small[..., :2] / total[..., None]
    bins = np.floor(chroma.reshape(-1, 2) / 0.03).astype(np.int64)
    codes = bins[:, 0] * 64 + bins[:, 1]
    values, counts = np.unique(codes, return_counts=True)
    mode = values[int(np.argmax(counts))]
    near = np.all(np.abs(bins - (mode // 64, mode % 64)) <= 1, axis=1).reshape(sh, sw)
    centre = np.median(chroma[near], axis=0)
    hue = np.all(np.abs(chroma - centre) < 0.04, axis=2).reshape(-1)
    if np.count_nonzero(hue) < 30:
        hue[:] = True
    basis, fine, sub = _basis(sh, sw)
    level = np.log(total).reshape(-1)
    # The fit is made on every other pixel (enough for a smooth surface, and four times
    # quicker): a start that leaves out the brightest and darkest of the table's colour, then
    # Tukey's biweight, a few rounds of weighted least squares.
    low, high = np.percentile(level[hue], [20, 70])
    weight = (hue & (level >= low) & (level <= high)).astype(np.float64)
    for _ in range(4):
        residual = level - basis @ _fit(fine, level[sub], weight[sub])
        spread = max(0.02, 1.4826 * float(np.median(np.abs(residual[hue]))))
        u = residual / (3.0 * spread)
        weight = np.where(hue & (np.abs(u) < 1), (1 - u * u) ** 2, 0.0)
    logs = np.log(small).reshape(-1, 3)
    smooth = np.stack([basis @ _fit(fine, logs[sub, c], weight[sub]) for c in range(3)], axis=-1)
    # a pixel's value lies in 1..256: so does the table's (a degree-4 surface fitted on part of
    # the frame can run far out of that range where the weights are thin, then exp() overflows)
    smooth = np.clip(smooth, 0.0, np.log(256.0))
    table = np.exp(smooth).reshape(sh, sw, 3).astype(np.float32)
    keep = (weight > 0).reshape(sh, sw).astype(np.float32)
    table = table * _spread(small / table, keep, max(sw, sh) / 40, np.ones_like(table))
    out: Image = np.clip(table - 1.0 + 0.5, 0, 255).astype(np.uint8)
    return out


@functools.lru_cache(maxsize=4)
def _basis(height: int, width: int) -> tuple[Points, Points, Mask]:
    """Polynomials of degree 4 or less in x and y over a height x width grid (rows: pixels),
    the same on every other pixel of every other row, and which pixels those are."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    y = ((yy + 0.5) / height - 0.5).reshape(-1) * 2
    x = ((xx + 0.5) / width - 0.5).reshape(-1) * 2
    basis = np.stack([x**i * y**j for i in range(5) for j in range(5 - i)], axis=1)
    grid = np.zeros((height, width), bool)
    grid[::2, ::2] = True
    sub = grid.reshape(-1)
    return basis, np.ascontiguousarray(basis[sub]), sub


def _fit(basis: Points, values: Points, weight: Points) -> Points:
    """Weighted least squares (with a touch of ridge, for frames where little is table).
    OpenCV's small matrix products: NumPy's threaded BLAS is slower on such sizes."""
    root = np.sqrt(weight)[:, None]
    scaled = basis * root
    ridge = 1e-6 * np.eye(basis.shape[1])
    normal = cv2.gemm(scaled, scaled, 1.0, ridge, 1.0, flags=cv2.GEMM_1_T)
    rhs = cv2.gemm(scaled, values[:, None] * root, 1.0, ridge[:, :1], 0.0, flags=cv2.GEMM_1_T)
    return f64(cv2.solve(normal, rhs, flags=cv2.DECOMP_CHOLESKY)[1].reshape(-1))


def _spread(
    image: FloatImage, weight: FloatImage, sigma: float, fallback: FloatImage | None = None
) -> FloatImage:
    """A weighted Gaussian blur of ``image``: where the weights are too thin, ``fallback`` (or
    the weighted mean of the whole image)."""
    mass = cv2.GaussianBlur(weight, (0, 0), sigma)
    out = (
        cv2.GaussianBlur(image * weight[..., None], (0, 0), sigma)
        / np.maximum(mass, 1e-6)[..., None]
    )
    if fallback is None:
        fallback = np.broadcast_to(
            (image * weight[..., None]).sum(axis=(0, 1)) / max(1e-6, float(weight.sum())),
            image.shape,
        )
    thin = (mass < 0.05)[..., None]
    return np.where(thin, fallback, out).astype(np.float32)


def _max3(image: Image) -> Image:
    b, g, r = cv2.split(image)
    return u8(cv2.max(cv2.max(b, g), r))


def _min3(image: Image) -> Image:
    b, g, r = cv2.split(image)
    return u8(cv2.min(cv2.min(b, g), r))


def _planes(image: Image, scale: int) -> _Planes:
    h, w = image.shape[:2]
    if scale > 1:
        work = u8(cv2.resize(image, (w // scale, h // scale), interpolation=cv2.INTER_AREA))
    else:
        work = u8(cv2.blur(image, (3, 3)))
    wh, ww = work.shape[:2]
    table_small = _table(work)
    level_small = _max3(table_small).astype(np.float32) + 1.0
    median = float(np.median(level_small))
    table = u8(cv2.resize(table_small, (ww, wh), interpolation=cv2.INTER_LINEAR))
    level = f32(cv2.resize(level_small, (ww, wh), interpolation=cv2.INTER_LINEAR))
    table_sat = cv2.resize(
        cv2.cvtColor(table_small, cv2.COLOR_BGR2HSV)[..., 1],
        (ww, wh),
        interpolation=cv2.INTER_LINEAR,
    )
    gain = median / level
    hsv = u8(cv2.cvtColor(work, cv2.COLOR_BGR2HSV))
    sat = hsv[..., 1]
    v = hsv[..., 2].astype(np.float32)
    val = v * gain
    diff = _max3(u8(cv2.absdiff(work, table))).astype(np.float32) * gain
    ratio = (v + 1.0) / level
    chroma = cv2.subtract(hsv[..., 2], _min3(work))
    # Each channel over the table's, in 128ths (fast, in bytes: 2 is as far as it needs).
    ratios = u8(cv2.divide(work, table, scale=128))
    hi, lo = _max3(ratios), _min3(ratios)
    workf = work.astype(np.float32) + 1.0
    # Neutral is the light's colour (a warm bulb makes white orange): how far each pixel's
    # chromaticity (its blue and green shares) is from it, as a share of its brightness.
    lb, lg = _light(workf[::2, ::2], lo[::2, ::2], sat[::2, ::2])
    mix = np.array([[1 - lb, -lb, -lb], [-lg, 1 - lg, -lg], [1, 1, 1]], np.float32)
    d1, d2, total = cv2.split(cv2.transform(workf, mix))
    off = cv2.max(np.abs(d1), np.abs(d2))
    white = (off < 0.06 * total) & (diff > 16)
    white &= (ratio > 1.06) | ((table_sat >= 90) & (val >= 150))
    black = ((off < 0.1 * total) | (chroma < 16)) & (diff > 5) & (ratio < 0.88) & (val < 90)
    sides = np.zeros((wh, ww), np.uint8)
    sides[white] = WHITE
    sides[black & ~white] = BLACK
    # A shadow darkens every channel alike, by a half at most.
    shadow = (hi <= 117) & (lo >= 45) & (hi.astype(np.int16) * 4 <= lo.astype(np.int16) * 5)
    fg = ((hi > 173) | (lo < 95)) & ~shadow
    tablef = table.astype(np.float32)
    white_level = float(np.percentile(val[::4, ::4], 99))
    return _Planes(work, tablef, sides, val, fg, white_level)


def _light(pixels: FloatImage, lighter: Image, sat: Image) -> tuple[float, float]:
    """The light's chromaticity (blue and green shares): that of the brightest of the things
    much lighter than the table in every channel (white tessons, glare; ``lighter`` is the
    least channel's ratio to the table's, in 128ths), when it is a light's colour (from a warm
    bulb to a cloudy sky: green near a third); else neutral."""
    candidates = (lighter > 147) & (sat < 170)
    if np.count_nonzero(candidates) < 50:
        return (1 / 3, 1 / 3)
    seen = pixels[candidates]
    total = seen.sum(axis=1)
    brightest = total >= np.percentile(total, 70)
    b = float(np.median(seen[brightest, 0] / total[brightest]))
    g = float(np.median(seen[brightest, 1] / total[brightest]))
    if 0.12 < b < 0.42 and 0.29 < g < 0.38:
        return (b, g)
    return (1 / 3, 1 / 3)


# ---------------------------------------------------------------------------------------------
# Candidates


@dataclass
class _Found:
    x: float
    y: float
    """Centre, working scale."""
    side: Side
    confidence: float
    area: float
    card: bool
    region: Image
    """The tesson's pixels (uint8 0/1) in its box at (x0, y0), working scale."""
    x0: int
    y0: int


def _ramp(value: float, low: float, high: float) -> float:
    """0 at ``low`` or below, 1 at ``high`` or above, straight between."""
    return float(min(1.0, max(0.0, (value - low) / (high - low))))


def _plain(p: _Planes, roi: Mask, x: int, y: int, smallest: float) -> list[_Found]:
    """Plain tessons in a group (``roi``, bool, its box at x, y): a white or a black
    shard-shaped group, not a cube. A group half white and half black is two tessons lying
    close together: each side is read on its own (groups of ``smallest`` pixels or more)."""
    area = int(roi.sum())
    patch = p.sides[y : y + roi.shape[0], x : x + roi.shape[1]]
    share_white = float(np.count_nonzero(patch[roi] == WHITE)) / area
    share_black = float(np.count_nonzero(patch[roi] == BLACK)) / area
    if min(share_white, share_black) >= 0.25:
        out = []
        for code in (WHITE, BLACK):
            part = ((patch == code) & roi).astype(np.uint8)
            part = cv2.morphologyEx(part, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            n, labels, stats, _ = cv2.connectedComponentsWithStats(part, connectivity=8)
            for j in range(1, n):
                if stats[j, cv2.CC_STAT_AREA] >= smallest:
                    out += _plain(p, labels == j, x, y, smallest)
        return out
    side: Side = "white" if share_white >= share_black else "black"
    clear = max(share_white, share_black) / max(1e-6, share_white + share_black)
    mask = roi.astype(np.uint8)
    contours = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
    contour = max(contours, key=cv2.contourArea)
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    fill = cv2.contourArea(contour) / max(1.0, rw * rh)
    squareness = min(rw, rh) / max(1.0, rw, rh)
    if squareness < 0.4:
        return []  # a streak (glare across a card), not a potsherd
    if fill > (0.885 if side == "black" else 0.9) and squareness > 0.85:
        return []  # a square: a black cube or a box, not a potsherd (a 7- to 10-gon fills < 0.87)
    val = float(np.median(p.val[y : y + roi.shape[0], x : x + roi.shape[1]][roi]))
    if side == "black" and val > 55:
        return []  # a black cube: its glossy top face is lighter than a matte black card
    if side == "white" and val < 0.5 * p.white_level:
        return []  # lighter than a dark table but far from white: a black cube's glossy top
    hull = cv2.contourArea(cv2.convexHull(contour))
    solidity = area / max(1.0, hull)
    confidence = min(_ramp(clear, 0.7, 0.9), _ramp(solidity, 0.75, 0.9))
    m = cv2.moments(mask, binaryImage=True)
    cx, cy = m["m10"] / m["m00"] + x, m["m01"] / m["m00"] + y
    return [_Found(cx, cy, side, confidence, float(area), False, mask, x, y)]


def _bare(p: _Planes, union: Image, x: int, y: int) -> bool:
    """Whether the gap between the pieces of ``union`` (box at x, y) is the bare table."""
    hull = np.zeros_like(union)
    cv2.drawContours(hull, [_hull(union)], -1, 1, -1)
    gap = (hull > 0) & (union == 0)
    if not gap.any():
        return False
    h, w = union.shape
    seen = p.image[y : y + h, x : x + w][gap].astype(np.float32) + 1.0
    bare = p.table[y : y + h, x : x + w][gap] + 1.0
    a, b = seen.sum(axis=1), bare.sum(axis=1)
    shift = np.abs(seen[:, :2] / a[:, None] - bare[:, :2] / b[:, None]).max(axis=1)
    table = (shift < 0.03) & (a > 0.7 * b) & (a < 1.4 * b)
    return float(table.mean()) > 0.5


def _groups(
    p: _Planes, labels: Labels, stats: Labels, smallest: float, card: float
) -> list[list[int]]:
    """The objects of the frame, biggest first, as lists of labels. Pieces of one card (or of
    one shard) that a glare streak cut apart are one object: a big piece and another close by
    whose union is convex, with no bare table between them, or two big pieces that are not
    cards by themselves, cut straight (their union is a card, or nearly fills its hull)."""
    n = len(stats)
    order = sorted(range(1, n), key=lambda i: -int(stats[i, cv2.CC_STAT_AREA]))
    pieces = [i for i in order if stats[i, cv2.CC_STAT_AREA] >= smallest]
    owner = {i: i for i in range(1, n)}
    members = {i: [i] for i in pieces}
    cards: dict[int, bool] = {}

    def whole(i: int) -> bool:  # a card by itself
        if i not in cards:
            cards[i] = _shape(_piece(labels, stats, i))[1]
        return cards[i]

    for a in pieces:
        if stats[a, cv2.CC_STAT_AREA] < 0.8 * card or owner[a] != a:
            continue
        ax, ay, aw, ah, _ = stats[a]
        for b in pieces:
            if b == a or owner[b] != b:
                continue
            bx, by, bw, bh, _ = stats[b]
            if bx > ax + aw + 4 or ax > bx + bw + 4 or by > ay + ah + 4 or ay > by + bh + 4:
                continue
            if len(members[a]) == 1 and whole(a) and whole(b):
                continue  # two cards side by side
            x0, y0 = min(ax, bx), min(ay, by)
            x1, y1 = max(ax + aw, bx + bw), max(ay + ah, by + bh)
            union = _members(labels[y0:y1, x0:x1], members[a] + [b])
            solid, cardlike, fill = _shape(union)
            if solid <= 0.85 or not (cardlike or fill > 0.7):
                continue
            cut = (
                (solid > 0.9 or cardlike)
                and min(stats[a, cv2.CC_STAT_AREA], stats[b, cv2.CC_STAT_AREA]) >= 0.4 * card
                and not (whole(a) or whole(b))
            )
            if cut or not _bare(p, union, x0, y0):
                owner[b] = a
                members[a].append(b)
                ax, ay, aw, ah = x0, y0, x1 - x0, y1 - y0
    groups: dict[int, list[int]] = {}
    for i in order:
        groups.setdefault(owner[i], []).append(i)
    return [groups[i] for i in order if i in groups]


def _members(labels: Labels, ids: list[int]) -> Image:
    """The pixels (uint8 0/1) whose label is one of ``ids``."""
    out: Image = (labels == ids[0]).view(np.uint8)
    for i in ids[1:]:
        out = out | (labels == i).view(np.uint8)
    return out


def _hull(mask: Image) -> MatLike:
    """The convex hull of a mask's pixels (from its outlines: far fewer points)."""
    outlines = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
    return cv2.convexHull(np.vstack(outlines))


def _piece(labels: Labels, stats: Labels, i: int) -> Image:
    x, y, w, h, _ = stats[i]
    piece: Image = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
    return piece


def _shape(mask: Image) -> tuple[float, bool, float]:
    """How much of its convex hull a mask fills, whether the hull is a card's rounded
    rectangle, and how much of its best rectangle the hull fills."""
    hull = _hull(mask)
    area = cv2.contourArea(hull)
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    fill = area / max(1.0, rw * rh)
    aspect = max(rw, rh) / max(1.0, min(rw, rh))
    return float(np.count_nonzero(mask)) / max(1.0, area), fill > 0.9 and 1.15 < aspect < 1.7, fill


def _touching(mask: Image, x: int, y: int, big: bool) -> list[tuple[Image, int, int]]:
    """An object, or, when it is ``big`` and not one rounded rectangle, the cards touching
    each other in it: the peaks of its distance transform are their middles, and each pixel
    goes to the nearest middle."""
    if not big:
        return [(mask, x, y)]
    contour = max(cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0], key=len)
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    if np.count_nonzero(mask) > 0.9 * rw * rh and 1.15 < max(rw, rh) / max(1.0, min(rw, rh)) < 1.7:
        return [(mask, x, y)]
    distance = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    seeds = (distance > 0.6 * float(distance.max())).astype(np.uint8)
    n, _ = cv2.connectedComponents(seeds)
    if n <= 2:
        return [(mask, x, y)]
    _, nearest = cv2.distanceTransformWithLabels(
        1 - seeds, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_CCOMP
    )
    out = []
    for k in np.unique(nearest[seeds > 0]):
        part = (mask > 0) & (nearest == k)
        ys, xs = np.nonzero(part)
        box = part[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.uint8)
        out.append((box, x + int(xs.min()), y + int(ys.min())))
    return out


def _card(p: _Planes, group: Image, x: int, y: int, pair: float) -> tuple[_Found | None, bool]:
    """A printed card (or its shard alone) in a big object (``group``, uint8, its box at x,
    y), read against its own stock; and whether the object looks like a card (then nothing
    else is read inside it). An object of less than ``pair`` pixels, white and black side by
    side, may be two plain tessons."""
    h, w = group.shape
    region, rect, cardlike = _outline(group)
    if not cardlike:
        # Something dark or light beside the card (a dim corner, a shadow) may have joined
        # it: the card is then what differs from the table in colour, if that is a card.
        core = u8(
            cv2.morphologyEx(
                cv2.bitwise_and(group, p.fg[y : y + h, x : x + w].astype(np.uint8)),
                cv2.MORPH_OPEN,
                np.ones((3, 3), np.uint8),
            )
        )
        if np.count_nonzero(core) > 0.4 * np.count_nonzero(group):
            core_region, core_rect, core_cardlike = _outline(core)
            if core_cardlike:
                region, rect, cardlike = core_region, core_rect, True
    total = float(np.count_nonzero(region))
    smooth = cv2.blur(p.image[y : y + h, x : x + w], (5, 5)).astype(np.float32)
    stock = _stock(smooth, p.table[y : y + h, x : x + w], f32(cv2.boxPoints(rect))) + 1.0
    channels = cv2.split(smooth * (1.0 / stock).astype(np.float32))
    b, g, r = channels
    low, high = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
    bright = (b + g + r) * np.float32(1 / 3)
    # White ink is no darker than the stock and clearly lighter where the stock's colour is
    # weakest (on a cream stock, in blue); black ink is much darker in every channel. Ink
    # covers an area: thin lines (a printed outline, a crackle) are opened away.
    weakest = channels[int(np.argmin(stock))]
    kernel = np.ones((3, 3), np.uint8)
    dark = ((bright <= 0.82) & (high <= 0.92)).view(np.uint8) & region
    light = ((weakest >= 1.08) & (bright >= 0.97) & (low >= 0.85)).view(np.uint8) & region
    k = cv2.countNonZero(cv2.morphologyEx(dark, cv2.MORPH_OPEN, kernel)) / total
    wh = cv2.countNonZero(cv2.morphologyEx(light, cv2.MORPH_OPEN, kernel)) / total
    if cardlike and k < 0.3 and wh < 0.12 and np.count_nonzero(stock >= 236) >= 2:
        # A card washed out to white by the light: little or no black ink shows, so the shard
        # is likely white, but it cannot be seen; a person should look.
        return _centre(region, x, y, "white", CONFIRM_BELOW - 0.2, total), True
    if max(k, wh) < 0.12:
        return None, cardlike  # no ink: a card's back, a box, a patch of glare
    if not cardlike and min(k, wh) > 0.15 and total < pair:
        return None, False  # white and black side by side, not on a card: plain tessons
    # Black ink is never made by glare; white-looking pixels on a black card are glare, a
    # streak across it that runs on over the card's edge. More glare than ink showing is
    # doubtful; white that stays off the edge is white ink: both sides at once, doubtful.
    side: Side
    if k >= 0.12:
        side = "black"
        confidence = min(_ramp(k, 0.12, 0.25), 1.0 - _ramp(wh / (k + wh), 0.45, 0.55))
        if wh >= 0.12:
            rim = region - u8(cv2.erode(region, np.ones((7, 7), np.uint8)))
            glare = cv2.countNonZero(light & rim) / max(1, cv2.countNonZero(rim))
            confidence = min(confidence, _ramp(glare, 0.01, 0.04))
    else:
        side = "white"
        confidence = min(_ramp(wh, 0.18, 0.32), 1.0 - _ramp(k, 0.1, 0.2))
    return _centre(region, x, y, side, confidence, total), True


def _outline(group: Image) -> tuple[Image, RotatedRect, bool]:
    """An object filled (pieces of one card: their hull), its best rectangle, and whether it
    is a card's rounded rectangle."""
    contours = cv2.findContours(group, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
    contour = cv2.convexHull(np.vstack(contours)) if len(contours) > 1 else contours[0]
    region = np.zeros_like(group)
    cv2.drawContours(region, [contour], -1, 1, -1)
    rect = cv2.minAreaRect(contour)
    rw, rh = rect[1]
    fill = np.count_nonzero(region) / max(1.0, rw * rh)
    aspect = max(rw, rh) / max(1.0, min(rw, rh))
    return region, rect, bool(fill > 0.9 and 1.15 < aspect < 1.7)


def _stock(smooth: FloatImage, table: FloatImage, box: FloatImage) -> npt.NDArray[np.float64]:
    """The card's stock: the colour in the corners of the object's rectangle (a convex shard
    leaves them free), those that are not the bare table; the table's colour when they all
    are (the stock is the table's colour, or the object is a shard alone). ``smooth`` is the
    object's box blurred 5 x 5."""
    h, w = smooth.shape[:2]
    middle = box.mean(axis=0)
    card: list[list[float]] = []
    bare: list[list[float]] = []
    for reach in (0.9, 0.8):
        for cx, cy in (middle + reach * (box - middle)).tolist():
            qx, qy = min(max(round(cx), 2), w - 3), min(max(round(cy), 2), h - 3)
            seen = smooth[qy, qx].tolist()
            under = table[qy, qx].tolist()
            pairs = zip(seen, under, strict=True)
            near = all(abs((s + 1.0) / (u + 1.0) - 1.0) < 0.12 for s, u in pairs)
            (bare if near else card).append(seen)
    chosen = card if len(card) >= 2 else bare
    out: npt.NDArray[np.float64] = np.median(np.array(chosen), axis=0)
    return out


def _centre(region: Image, x: int, y: int, side: Side, confidence: float, area: float) -> _Found:
    m = cv2.moments(region, binaryImage=True)
    cx, cy = m["m10"] / m["m00"] + x, m["m01"] / m["m00"] + y
    return _Found(cx, cy, side, confidence, area, True, region, x, y)


def _sizes_agree(found: list[_Found]) -> list[_Found]:
    """Drop what is far from the typical size of its kind, lower the confidence of what is off."""
    if len(found) < 3:
        return found
    typical = float(np.median([f.area for f in found]))
    out = []
    for f in found:
        off = abs(math.log(f.area / typical))
        if off < 1.2:
            f.confidence = min(f.confidence, 1.0 - _ramp(off, 0.4, 0.7) * 0.5)
            out.append(f)
    return out


# ---------------------------------------------------------------------------------------------
# Seat zones


_MAPS: dict[tuple[int, int, int, int], tuple[SeatMap, Image]] = {}


def _zone_map(seats: SeatMap, height: int, width: int, scale: int) -> Image:
    """Each pixel's seat (+1; 0 in no zone) at the working scale, kept for the next frames
    with the same map (by identity: hashing a big map costs more than a frame's reading)."""
    key = (id(seats), height, width, scale)
    kept = _MAPS.get(key)
    if kept is not None and kept[0] is seats:
        return kept[1]
    if len(_MAPS) >= 8:
        _MAPS.clear()
    out = _draw_zones(seats, height, width, scale)
    _MAPS[key] = (seats, out)
    return out


def _draw_zones(seats: SeatMap, height: int, width: int, scale: int) -> Image:
    out = np.zeros((height, width), np.uint8)
    if seats.polygons:
        for i in reversed(range(len(seats.polygons))):  # the first polygon wins
            pts = (np.array(seats.polygons[i], np.float64) + 0.5) / scale - 0.5
            cv2.fillPoly(out, [np.round(pts * 16).astype(np.int32)], i + 1, cv2.LINE_8, 4)
        return out
    assert seats.centre is not None
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    dx = (xx + 0.5) * scale - 0.5 - seats.centre[0]
    dy = (yy + 0.5) * scale - 0.5 - seats.centre[1]
    distance = np.hypot(dx, dy)
    turned = (np.degrees(np.arctan2(dy, dx)) - seats.starts[0]) % 360.0
    for i, start in enumerate(seats.starts):
        out[turned >= (start - seats.starts[0]) % 360.0] = i + 1
    out[distance < seats.inner] = 0
    if seats.outer is not None:
        out[distance > seats.outer] = 0
    return out


def _zone_share(
    seats: SeatMap, seat: int | None, f: _Found, scale: int, shape: tuple[int, ...]
) -> float:
    """The share of a tesson's pixels in the zone of its centre (or in none, for None)."""
    zones = _zone_map(seats, shape[0], shape[1], scale)
    h, w = f.region.shape
    under = zones[f.y0 : f.y0 + h, f.x0 : f.x0 + w][f.region > 0]
    if under.size == 0:
        return 1.0
    return float((under == (0 if seat is None else seat + 1)).mean())


_POLYGONS: dict[int, tuple[SeatMap, list[npt.NDArray[np.float32]]]] = {}


def _polygons(seats: SeatMap) -> list[npt.NDArray[np.float32]]:
    kept = _POLYGONS.get(id(seats))
    if kept is not None and kept[0] is seats:
        return kept[1]
    if len(_POLYGONS) >= 8:
        _POLYGONS.clear()
    out = [np.array(poly, np.float32) for poly in seats.polygons]
    _POLYGONS[id(seats)] = (seats, out)
    return out


def seat_of(seats: SeatMap, x: float, y: float) -> int | None:
    """``seats.seat_of``, faster for maps by polygons (on the edge counts as inside)."""
    if not seats.polygons:
        return seats.seat_of(x, y)
    for i, poly in enumerate(_polygons(seats)):
        if cv2.pointPolygonTest(poly, (x, y), False) >= 0:
            return i
    return None


def edge_distance(seats: SeatMap, x: float, y: float) -> float:
    """Distance in pixels from (x, y) to the nearest edge of a seat zone."""
    if seats.polygons:
        return min(abs(cv2.pointPolygonTest(poly, (x, y), True)) for poly in _polygons(seats))
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


# ---------------------------------------------------------------------------------------------
# Picture


def annotate_tessons(
    image: Image, readings: list[TessonReading], seats: SeatMap | None = None
) -> Image:
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


def _label(image: Image, text: str, origin: tuple[int, int], color: tuple[int, ...]) -> None:
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.5, color, 1, cv2.LINE_AA)
