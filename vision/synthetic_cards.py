"""Printed tesson cards for the synthetic scenes (``tesson_scene(..., printed=...)``).

The box's tessons are cards: "une carte tesson qui montre un tesson blanc sur une face, un noir
sur l'autre". A card here is a rounded rectangle of coloured card stock (one size per scene,
44x63 to 63x88 mm) with a white or black potsherd printed on the face that shows, covering
55-70 % of it, sometimes with a thin printed outline and a crackle of fine lines. A card may be
in a glossy sleeve: a clear border a little wider than the card, slightly lighter than the table
under it, and often a bright, colourless glare streak where the light's reflection falls; or a
``Sheen``: the sleeve mirrors a broad light (a window, a big lamp) and a pale veil lies over the
whole card, so that a black shard looks a pale grey or lilac a little darker than its card.

A card is drawn flat in its own plane (``PX_PER_MM``) as three layers (colour, opacity, added
glare) and warped into the supersampled canvas by the camera's homography, so perspective,
light, blur and noise act on it as on everything else in the scene.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.arrays import FloatImage, Points, f32
from vision.readings import Side

STOCKS: dict[str, tuple[float, float, float]] = {
    "terracotta": (70, 100, 175),
    "ochre": (52, 138, 196),
    "cream": (188, 218, 234),
    "sand": (138, 178, 204),
    "slate blue": (140, 112, 88),
    "olive": (52, 112, 106),
    "pale grey": (184, 187, 190),
}
"""Card stocks (display BGR under the reference light); both faces of a card are the same."""
WHITE_INK = (228, 232, 234)
BLACK_INK = (32, 31, 33)
GREY_INK = (110, 110, 112)  # black ink at its palest: worn, or seen through a sleeve's sheen
CORNER = 3.0
"""Radius of a card's rounded corners, mm."""
SLEEVE = 1.5
"""How far a sleeve reaches past the card, mm."""
LIFT = 0.4
"""Height of a card's face above the table, mm."""
PX_PER_MM = 6.0


@dataclass(frozen=True)
class Sheen:
    """A sleeve mirroring a broad light: a veil of the light's colour (BGR) over the whole card,
    covering ``strength`` (0-1) of it at the card's centre and growing by up to a third towards
    ``turn`` (degrees, in the card's plane)."""

    strength: float
    turn: float
    tint: tuple[float, float, float]

    @classmethod
    def drawn(cls, rng: np.random.Generator) -> Sheen:
        """A sheen at random: from a faint veil to one that leaves the shard barely darker."""
        b, g, r = (float(v) for v in 235.0 * (1 + rng.normal(0, 0.04, 3)))
        return cls(float(rng.uniform(0.3, 0.8)), float(rng.uniform(0, 360)), (b, g, r))

    def veil(self, colour: FloatImage) -> FloatImage:
        """``colour`` (a card's layer, its centre at the middle) seen through the sheen."""
        h, w = colour.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        turn = math.radians(self.turn)
        ramp = ((xx - w / 2) * math.cos(turn) + (yy - h / 2) * math.sin(turn)) / max(w, h)
        v = np.clip(self.strength * (1 + 0.66 * ramp), 0.0, 0.9)[..., None]
        out: FloatImage = colour * (1 - v) + np.array(self.tint, np.float32) * v
        return out


@dataclass(frozen=True)
class Card:
    """A printed tesson card lying on the table: centre (mm, table plane), turn (degrees), size
    (mm, width the short side), the shard's colour, and whether it is sleeved."""

    x: float
    y: float
    angle: float
    width: float
    height: float
    side: Side
    sleeve: bool

    def outline(self, grow: float = 0.0) -> Points:
        """The card's rounded rectangle (grown by ``grow`` mm) in the table plane, convex."""
        local = rounded_rectangle(self.width + 2 * grow, self.height + 2 * grow, CORNER + grow)
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        turned: Points = local @ np.array([[c, s], [-s, c]]) + (self.x, self.y)
        return turned


def rounded_rectangle(width: float, height: float, corner: float, steps: int = 5) -> Points:
    """A rectangle centred on (0, 0) with round corners, as a convex polygon."""
    corner = min(corner, width / 2, height / 2)
    points = []
    for cx, cy, start in (
        (width / 2 - corner, height / 2 - corner, 0),
        (-width / 2 + corner, height / 2 - corner, 90),
        (-width / 2 + corner, -height / 2 + corner, 180),
        (width / 2 - corner, -height / 2 + corner, 270),
    ):
        for t in np.radians(np.linspace(start, start + 90, steps)):
            points.append((cx + corner * math.cos(t), cy + corner * math.sin(t)))
    return np.array(points)


def card_size(rng: np.random.Generator) -> tuple[float, float]:
    """One card size for a scene: 44x63 to 63x88 mm, in the proportions of playing cards."""
    width = float(rng.uniform(44.0, 63.0))
    return width, width * float(rng.uniform(1.38, 1.43))


def share_inside(outline: Points, zones: Sequence[Points], per_mm: float = 2.0) -> float:
    """The share of a convex outline's area (table plane, mm) inside the union of ``zones``."""
    lo = np.floor(outline.min(axis=0)) - 1
    size = np.ceil((outline.max(axis=0) - lo + 1) * per_mm).astype(int)
    card = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillPoly(card, [np.round((outline - lo) * per_mm * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    inside = np.zeros_like(card)
    for zone in zones:
        cv2.fillPoly(inside, [np.round((zone - lo) * per_mm * 16).astype(np.int32)], 1, 8, 4)
    return float((card & inside).sum()) / max(1.0, float(card.sum()))


def _shard(rng: np.random.Generator, width: float, height: float) -> Points:
    """A potsherd printed on a card (card coordinates, mm): an irregular convex polygon a
    little off centre, covering 55-70 % of the card and clear of its edge by 2 mm or more."""
    target = rng.uniform(0.55, 0.70) * width * height
    n = int(rng.integers(7, 11))
    t = np.linspace(0, 2 * math.pi, n, endpoint=False) + rng.uniform(0, 2 * math.pi)
    t += rng.uniform(-0.22, 0.22, n)
    r = rng.uniform(0.8, 1.0, n)
    shape = np.c_[np.cos(t) * r * width / 2, np.sin(t) * r * height / 2].astype(np.float32)
    shape = cv2.convexHull(shape).reshape(-1, 2)
    shift = rng.uniform(-1.5, 1.5, 2)
    frame = rounded_rectangle(width - 4.0, height - 4.0, CORNER).astype(np.float32)
    best: npt.NDArray[np.float32] = frame
    for scale in np.linspace(1.5, 0.6, 46):
        poly = (shape * scale + shift).astype(np.float32)
        area, clipped = cv2.intersectConvexConvex(poly, frame)
        if clipped is None or area <= 0:
            continue
        best = f32(clipped.reshape(-1, 2))
        if area <= target:
            break
    return best.astype(np.float64)


def _noise(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> FloatImage:
    small = (max(2, int(shape[0] / scale) + 2), max(2, int(shape[1] / scale) + 2))
    field = np.asarray(
        cv2.resize(rng.normal(0, 1, small).astype(np.float32), (shape[1], shape[0])),
        np.float32,
    )
    out: FloatImage = field / (field.std() + 1e-6)
    return out


def _poly(canvas: FloatImage, pts: Points, value: float) -> None:
    fixed = np.round(pts * 16).astype(np.int32)
    cv2.fillPoly(canvas, [fixed], value, cv2.LINE_AA, 4)


def _layers(
    rng: np.random.Generator, card: Card, stock: Sequence[float], grey: float = 0.0
) -> tuple[FloatImage, FloatImage, FloatImage]:
    """Colour (BGR), opacity and added glare of a card in its own plane, ``PX_PER_MM``, with
    room for a sleeve round it; (0, 0) of the card is the layers' centre. ``grey`` (0-1) takes
    black ink that share of the way to ``GREY_INK``."""
    k = PX_PER_MM
    margin = SLEEVE + 1.0
    w, h = card.width + 2 * margin, card.height + 2 * margin
    shape = (round(h * k), round(w * k))
    origin = np.array([w / 2, h / 2])

    def px(points: Points) -> Points:
        out: Points = (points + origin) * k
        return out

    paper = np.array(stock, np.float32) * rng.uniform(0.95, 1.04) * (1 + rng.normal(0, 0.015, 3))
    texture = 1 + 0.015 * _noise(rng, shape, 2.0) + 0.015 * _noise(rng, shape, 40.0)
    colour = paper[None, None, :] * texture[..., None].astype(np.float32)
    face = np.zeros(shape, np.float32)
    _poly(face, px(rounded_rectangle(card.width, card.height, CORNER)), 1.0)

    shard = _shard(rng, card.width, card.height)
    ink = np.array(WHITE_INK if card.side == "white" else BLACK_INK, np.float32)
    ink = ink * (rng.uniform(0.93, 1.02) if card.side == "white" else rng.uniform(0.85, 1.2))
    if card.side == "black" and grey:
        ink = ink + grey * (np.array(GREY_INK, np.float32) - ink)
    opacity = rng.uniform(0.88, 0.96)
    printed = np.zeros(shape, np.float32)
    _poly(printed, px(shard), 1.0)
    mottle = 1 + 0.025 * _noise(rng, shape, 6.0)
    painted = (ink * opacity + paper * (1 - opacity))[None, None, :] * mottle[..., None]
    if rng.random() < 0.5:  # crackle: fine lines across the shard
        cracks = np.zeros(shape, np.float32)
        for _ in range(int(rng.integers(3, 8))):
            p = rng.uniform(-0.4, 0.4, 2) * (card.width, card.height)
            heading = rng.uniform(0, 2 * math.pi)
            walk = [p]
            for _ in range(int(rng.integers(3, 7))):
                heading += rng.uniform(-0.8, 0.8)
                p = p + rng.uniform(3, 8) * np.array([math.cos(heading), math.sin(heading)])
                walk.append(p)
            cv2.polylines(
                cracks,
                [np.round(px(np.array(walk)) * 16).astype(np.int32)],
                False,
                1.0,
                max(1, round(rng.uniform(0.25, 0.4) * k)),
                cv2.LINE_AA,
                4,
            )
        crack = ink * (0.72 if card.side == "white" else 1.0) + (0 if card.side == "white" else 30)
        painted = painted * (1 - cracks[..., None]) + crack * cracks[..., None]
    colour = colour * (1 - printed[..., None]) + painted * printed[..., None]
    if rng.random() < 0.6:  # a thin printed outline round the shard
        line = np.zeros(shape, np.float32)
        cv2.polylines(
            line,
            [np.round(px(shard) * 16).astype(np.int32)],
            True,
            1.0,
            max(1, round(rng.uniform(0.4, 0.9) * k)),
            cv2.LINE_AA,
            4,
        )
        sepia = np.array((38, 46, 62), np.float32) * rng.uniform(0.8, 1.3)
        colour = colour * (1 - line[..., None]) + sepia * line[..., None]

    alpha = face.copy()
    glare = np.zeros(shape, np.float32)
    if card.sleeve:
        sleeve = np.zeros(shape, np.float32)
        _poly(sleeve, px(rounded_rectangle(w - 2.0, h - 2.0, CORNER + SLEEVE)), 1.0)
        clear = rng.uniform(0.10, 0.2)
        alpha = np.maximum(face, sleeve * clear)
        plastic = np.float32(245.0)
        colour = np.where(face[..., None] > 0, colour * 0.96 + 0.04 * plastic, plastic)
        if rng.random() < 0.85:
            yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float32) / k
            xx -= w / 2
            yy -= h / 2
            theta = rng.uniform(0, math.pi)
            across = xx * math.cos(theta) + yy * math.sin(theta)
            along = -xx * math.sin(theta) + yy * math.cos(theta)
            offset = rng.uniform(-0.4, 0.4) * min(card.width, card.height)
            sigma = rng.uniform(1.5, 4.5)
            peak = rng.uniform(0.35, 1.0) * 230.0
            d = across - offset
            band = np.exp(-(d**2) / (2 * sigma**2)) + 0.1 * np.exp(-(d**2) / (32 * sigma**2))
            fade = 0.65 + 0.35 * np.cos(
                along / max(card.height, 1.0) * math.pi * rng.uniform(0.5, 1)
            )
            glare = (peak * band * fade * sleeve).astype(np.float32)
    return colour.astype(np.float32), alpha, glare


def paint_card(
    rng: np.random.Generator,
    canvas: FloatImage,
    card: Card,
    stock: Sequence[float],
    to_canvas: Callable[[Points], Points],
    grey: float = 0.0,
    sheen: Sheen | None = None,
) -> None:
    """Paint ``card`` onto the (supersampled, float BGR) canvas; ``to_canvas`` maps (N, 3)
    world points (mm) to canvas pixels; ``grey``: how pale its black ink prints (``_layers``);
    ``sheen``: the broad light its sleeve mirrors, if any."""
    colour, alpha, glare = _layers(rng, card, stock, grey)
    if sheen is not None:
        colour = sheen.veil(colour)
    k = PX_PER_MM
    th, tw = alpha.shape
    corners_px = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64)
    local = corners_px / k - (tw / k / 2, th / k / 2)
    c, s = math.cos(math.radians(card.angle)), math.sin(math.radians(card.angle))
    world = local @ np.array([[c, s], [-s, c]]) + (card.x, card.y)
    target = to_canvas(np.c_[world, np.full(4, LIFT)])
    x0, y0 = np.floor(target.min(axis=0)).astype(int)
    x1, y1 = np.ceil(target.max(axis=0)).astype(int) + 1
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(canvas.shape[1], x1), min(canvas.shape[0], y1)
    if x1 <= x0 or y1 <= y0:
        return
    warp = cv2.getPerspectiveTransform(
        corners_px.astype(np.float32), (target - (x0, y0)).astype(np.float32)
    )
    size = (int(x1 - x0), int(y1 - y0))
    a = cv2.warpPerspective(alpha, warp, size, flags=cv2.INTER_LINEAR)[..., None]
    col = cv2.warpPerspective(colour, warp, size, flags=cv2.INTER_LINEAR)
    g = cv2.warpPerspective(glare, warp, size, flags=cv2.INTER_LINEAR)[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + col * a + g
