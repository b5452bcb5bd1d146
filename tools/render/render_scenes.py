"""Photoreal scenes of Oraklos cubes and Ostrakon tessons with exact ground truth (Blender).

A second source of scenes, independent of ``vision/synthetic.py``: Blender's Cycles renders a
real 3D table (procedural wood, felt, printed cloths, lacquer, a game mat, laminate), real
lights (bulbs, lamps with a hotspot, soft panels, window daylight) and real objects (bevelled
cubes with a hole, cards, paper ArUco markers, a hand, a dice cup; for a cubes scene's
colour-check frame, the printed colour check card with a die in each box); the camera's faults
are added after rendering (lens distortion, vignetting, auto-exposure, white-balance error,
sensor noise, motion blur, JPEG). Every scene is fully determined by (kind, seed).

    tools/render/.venv/bin/python tools/render/render_scenes.py cubes --seeds 0:8 --out renders/dev
    tools/render/.venv/bin/python tools/render/render_scenes.py cubes --seeds 0:8 \
        --out renders/dev --check-only    # only the check frames of scenes already there

Ground truth (one JSON beside each JPEG) is computed from the scene's geometry, projected
through the same camera and the same distortion, with visibility from ray casts: see
docs/vision/renders.md. Blender is a development tool: nothing at run time imports this.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")

import bpy
import cv2
import numpy as np
from mathutils import Matrix, Vector

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import truth  # noqa: E402  (also puts the repository on sys.path)

from vision.calibration import (  # noqa: E402
    CHECK_MARKER,
    CORNER_IDS,
    DEFAULT_MARKER_MM,
    MODULES,
    marker_image,
)
from vision.color_check import (  # noqa: E402
    BOX_CENTRES,
    CARD_MM,
    CHECK_MARKER_MM,
    MARKER_AT,
    card_image,
)

KINDS = truth.KINDS
COLORS = truth.COLORS
MM = 0.001
MARKER = DEFAULT_MARKER_MM * MM
QUIET = MARKER / MODULES
HOLE_RADIUS = 0.19
PAPER = 0.00012  # the thickness of the markers' and the check card's paper (m)
PAPER_SRGB = (14, 246)  # ink and paper, as printed on a laser printer's white paper
CARD_PX_PER_MM = 12  # the check card's texture

Rng = np.random.Generator


def stream(kind: str, seed: int, name: str) -> Rng:
    """An independent random stream for one aspect of a scene, so that changing how one aspect
    is drawn does not move the others."""
    return np.random.default_rng([KINDS.index(kind), seed, zlib.crc32(name.encode())])


def choose(rng: Rng, options: Sequence, weights: Sequence[float] | None = None):  # type: ignore[no-untyped-def]
    p = None if weights is None else np.asarray(weights, float) / np.sum(weights)
    return options[int(rng.choice(len(options), p=p))]


def srgb_to_linear(rgb: Sequence[float]) -> tuple[float, float, float]:
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return (float(lin[0]), float(lin[1]), float(lin[2]))


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues: rotation matrix about a unit ``axis`` by ``angle`` radians."""
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _rz(angle: float) -> np.ndarray:
    return _rotation(np.array([0.0, 0.0, 1.0]), angle)


def _overlap(a: np.ndarray, b: np.ndarray, gap: float = 0.0) -> bool:
    """Whether two convex polygons (N, 2) come closer than ``gap`` (separating axes)."""
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            norm = math.hypot(*edge)
            if norm < 1e-12:
                continue
            axis = np.array([-edge[1], edge[0]]) / norm
            pa, pb = a @ axis, b @ axis
            if pa.max() + gap <= pb.min() or pb.max() + gap <= pa.min():
                return False
    return True


def _hull(points: np.ndarray) -> np.ndarray:
    return cv2.convexHull(np.asarray(points, np.float32)).reshape(-1, 2).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# The camera


@dataclass(frozen=True)
class CameraPlan:
    """A pinhole camera above the table (world: metres, x right, y towards the top of the
    frame, z up, table top at z = 0), then a radial lens distortion ``k1``."""

    width: int
    height: int
    focal_px: float
    height_m: float
    tilt_deg: float
    azimuth_deg: float
    roll_deg: float
    k1: float

    @property
    def axes(self) -> np.ndarray:
        """Camera-to-world rotation: columns are the camera's x (right), y (up), z (back)."""
        t, a = math.radians(self.tilt_deg), math.radians(self.azimuth_deg)
        forward = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), -math.cos(t)])
        z = -forward
        hint = np.array([0.0, 1.0, 0.0])
        y = hint - (hint @ z) * z
        y /= np.linalg.norm(y)
        x = np.cross(y, z)
        r = math.radians(self.roll_deg)
        x, y = math.cos(r) * x + math.sin(r) * y, -math.sin(r) * x + math.cos(r) * y
        return np.stack([x, y, z], axis=1)

    @property
    def position(self) -> np.ndarray:
        t = math.radians(self.tilt_deg)
        return self.axes[:, 2] * self.height_m / math.cos(t)

    def undistorted(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) → pixels of the ideal (undistorted) frame, OpenCV's convention."""
        rel = (np.asarray(points, float).reshape(-1, 3) - self.position) @ self.axes
        depth = -rel[:, 2]
        u = self.width / 2 - 0.5 + self.focal_px * rel[:, 0] / depth
        v = self.height / 2 - 0.5 - self.focal_px * rel[:, 1] / depth
        return np.stack([u, v], axis=1)

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) → pixels of the final, distorted frame."""
        return truth.distort(
            self.undistorted(points), self.width, self.height, self.focal_px, self.k1
        )

    def table_point(self, pixels: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Pixels of the final frame → the points of the plane at height ``z`` they see."""
        ideal = truth.undistort(pixels, self.width, self.height, self.focal_px, self.k1)
        x = (ideal[:, 0] - (self.width / 2 - 0.5)) / self.focal_px
        y = -(ideal[:, 1] - (self.height / 2 - 0.5)) / self.focal_px
        rays = np.stack([x, y, -np.ones_like(x)], axis=1) @ self.axes.T
        c = self.position
        s = (z - c[2]) / rays[:, 2]
        return c + rays * s[:, None]

    def overscan(self) -> tuple[int, int]:
        """Margins (x, y) in pixels to render beyond the frame so that the distortion has
        pixels to pull in (barrel distortion shows more than the ideal frame)."""
        w, h = self.width, self.height
        edge = np.concatenate(
            [
                np.c_[np.linspace(0, w - 1, 64), np.zeros(64)],
                np.c_[np.linspace(0, w - 1, 64), np.full(64, h - 1)],
                np.c_[np.zeros(36), np.linspace(0, h - 1, 36)],
                np.c_[np.full(36, w - 1), np.linspace(0, h - 1, 36)],
            ]
        )
        ideal = truth.undistort(edge, w, h, self.focal_px, self.k1)
        mx = max(0.0, -ideal[:, 0].min(), ideal[:, 0].max() - (w - 1))
        my = max(0.0, -ideal[:, 1].min(), ideal[:, 1].max() - (h - 1))
        return math.ceil(mx) + 4, math.ceil(my) + 4

    def visible_region(self, inset_px: float = 0.0) -> np.ndarray:
        """The table seen by the frame (inset by ``inset_px``), a polygon (N, 2) in metres."""
        w, h, m = self.width - 1, self.height - 1, inset_px
        n = 24
        edge = np.concatenate(
            [
                np.c_[np.linspace(m, w - m, n), np.full(n, m)],
                np.c_[np.full(n, w - m), np.linspace(m, h - m, n)],
                np.c_[np.linspace(w - m, m, n), np.full(n, h - m)],
                np.c_[np.full(n, m), np.linspace(h - m, m, n)],
            ]
        )
        return self.table_point(edge)[:, :2]

    def in_frame(self, points: np.ndarray, margin: float = 0.0) -> bool:
        px = self.project(points)
        return bool(
            (px[:, 0] >= margin).all()
            and (px[:, 1] >= margin).all()
            and (px[:, 0] <= self.width - 1 - margin).all()
            and (px[:, 1] <= self.height - 1 - margin).all()
        )


def plan_camera(kind: str, seed: int, width: int, height: int) -> CameraPlan:
    rng = stream(kind, seed, "camera")
    low = 0.35 if kind == "cubes" else 0.5
    hfov = rng.uniform(64.0, 68.0) if rng.random() < 0.75 else rng.uniform(50.0, 62.0)
    return CameraPlan(
        width=width,
        height=height,
        focal_px=(width / 2) / math.tan(math.radians(hfov / 2)),
        height_m=float(rng.uniform(low, 0.8)),
        tilt_deg=float(rng.uniform(0.0, 15.0)),
        azimuth_deg=float(rng.uniform(0.0, 360.0)),
        roll_deg=float(rng.uniform(-4.0, 4.0)),
        k1=float(rng.uniform(-0.12, 0.05)),
    )


# ---------------------------------------------------------------------------------------------
# The plan of a scene (pure data, from the seed)


@dataclass(frozen=True)
class Plastic:
    color: str
    plastic: str  # saturated | faded
    finish: str  # glossy | matte
    rgb: tuple[float, float, float]  # linear
    roughness: float


PLASTICS = {
    # colour: {plastic: [sRGB shades]}
    "red": {"saturated": [(196, 24, 28), (178, 16, 30)], "faded": [(222, 84, 52), (206, 96, 84)]},
    "yellow": {
        "saturated": [(242, 196, 10), (250, 212, 30)],
        "faded": [(240, 222, 120), (232, 214, 150)],
    },
    "blue": {
        "saturated": [(20, 70, 178), (16, 40, 100)],  # royal, dark navy
        "faded": [(96, 140, 196), (120, 150, 186)],
    },
    "black": {"saturated": [(22, 22, 24), (30, 29, 32)], "faded": [(48, 48, 52), (56, 54, 56)]},
}


def plan_plastics(kind: str, seed: int) -> dict[str, Plastic]:
    """One plastic per colour for the scene (a set of dice is of one make)."""
    rng = stream(kind, seed, "plastics")
    out = {}
    for color in COLORS:
        plastic = "saturated" if rng.random() < 0.55 else "faded"
        finish = "glossy" if rng.random() < 0.55 else "matte"
        shades = PLASTICS[color][plastic]
        base = np.array(shades[int(rng.integers(len(shades)))], float)
        base = np.clip(base * rng.uniform(0.92, 1.06) * (1 + rng.normal(0, 0.025, 3)), 0, 255)
        roughness = rng.uniform(0.1, 0.24) if finish == "glossy" else rng.uniform(0.42, 0.65)
        out[color] = Plastic(color, plastic, finish, srgb_to_linear(base), float(roughness))
    return out


@dataclass
class DiePlan:
    """A die: side (m), world rotation (3×3: columns are the die's local axes; the hole runs
    along local z) and centre (m)."""

    color: str
    side: float
    rotation: np.ndarray
    centre: np.ndarray
    pose: str
    jitter: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def corners(self) -> np.ndarray:
        s = self.side / 2
        local = np.array([[x, y, z] for x in (-s, s) for y in (-s, s) for z in (-s, s)])
        return local @ self.rotation.T + self.centre

    def footprint(self) -> np.ndarray:
        return _hull(self.corners()[:, :2])

    def top_face(self) -> tuple[np.ndarray, np.ndarray, bool]:
        """The face whose normal is closest to up: its centre, its four corners (in order
        round the face) and whether the hole's axis goes through it."""
        best = max(
            ((axis, sign) for axis in range(3) for sign in (-1.0, 1.0)),
            key=lambda f: f[1] * self.rotation[2, f[0]],
        )
        axis, sign = best
        normal = self.rotation[:, axis] * sign
        u = self.rotation[:, (axis + 1) % 3]
        v = self.rotation[:, (axis + 2) % 3]
        s = self.side / 2
        centre = self.centre + normal * s
        corners = np.array(
            [centre + s * (a * u + b * v) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        )
        return centre, corners, axis == 2


@dataclass(frozen=True)
class CardPlan:
    """The printed colour check card (``vision.color_check``) lying on the table: the world
    point (m) of its top-left corner, the unit directions of its own x (right, along the
    boxes) and y (down the printed card) in the table plane, and its turn (degrees,
    anticlockwise on screen) from the frame's rows."""

    origin: np.ndarray
    right: np.ndarray
    down: np.ndarray
    turn: float

    def to_table(self, mm: np.ndarray) -> np.ndarray:
        """Card millimetres (N, 2), x right and y down as printed → table points (N, 2), m."""
        mm = np.asarray(mm, float).reshape(-1, 2) * MM
        return self.origin + mm[:, :1] * self.right + mm[:, 1:] * self.down

    def outline(self) -> np.ndarray:
        w, h = CARD_MM
        return self.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))

    def marker_corners(self) -> np.ndarray:
        """The marker's black square's corners in cv2.aruco's order (its own TL, TR, BR, BL;
        its top is the card's top), on the paper's surface."""
        x, y = MARKER_AT
        m = CHECK_MARKER_MM
        xy = self.to_table(np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]], float))
        return np.c_[xy, np.full(4, PAPER)]


@dataclass
class TessonPlan:
    side: str  # white | black: the shard's colour facing up
    printed: bool
    card: str | None
    sleeve: bool
    seat: int | None
    outline: np.ndarray  # (N, 2) metres, in the table plane
    centre: np.ndarray  # (2,)
    thickness: float
    angle: float  # radians: the card's turn
    size: tuple[float, float] = (0.0, 0.0)  # printed card: width, length (m)
    shard: np.ndarray | None = None  # printed shard outline in card units (0..1)
    albedo: float = 1.0


@dataclass
class LightPlan:
    kind: str  # area | bulb | spot | sun | window
    kelvin: float
    klass: str  # warm | neutral | daylight
    position: np.ndarray
    target: np.ndarray
    size: float  # area side, bulb radius (m), sun angle (rad)
    weight: float  # share of the irradiance at the table centre
    spot_size: float = 0.0
    spot_blend: float = 0.0


@dataclass
class Scene:
    kind: str
    seed: int
    camera: CameraPlan
    table_family: str
    table: str
    table_params: dict
    lights: list[LightPlan]
    world_ambient: float
    exposure: str
    area: tuple[float, float, float, float]  # play area x0, y0, x1, y1 (m)
    markers: list[tuple[int, np.ndarray, float]]  # id, paper centre, turn
    plastics: dict[str, Plastic]
    dice: list[DiePlan]
    tessons: list[TessonPlan]
    zones: list[np.ndarray]  # table plane polygons (m)
    edge_object: str
    edge_params: dict
    check_dice: list[DiePlan]
    post: dict = field(default_factory=dict)
    check_card: CardPlan | None = None


# --- tables -----------------------------------------------------------------------------------

WOODS = {
    # name: (light grain sRGB, dark grain sRGB)
    "light oak": ((214, 178, 128), (176, 134, 84)),
    "oak": ((190, 146, 92), (146, 102, 58)),
    "beech": ((222, 180, 140), (192, 146, 104)),
    "cherry": ((176, 102, 66), (128, 64, 40)),
    "teak": ((162, 110, 62), (116, 72, 36)),
    "walnut": ((120, 82, 56), (74, 48, 32)),
    "dark walnut": ((84, 58, 42), (46, 32, 24)),
}
FELTS = {
    "green felt": (40, 110, 56),
    "blue felt": (40, 70, 130),
    "red felt": (140, 34, 40),
    "grey felt": (118, 120, 122),
}
CLOTHS = ("gingham", "checks", "stripes", "floral print", "dot print")
LACQUERS = {
    "black lacquer": (14, 14, 16),
    "red lacquer": (110, 18, 20),
    "green lacquer": (20, 60, 40),
    "white lacquer": (226, 224, 218),
    "lacquered walnut": (92, 60, 40),
}
LAMINATES = {"light laminate": (214, 208, 196), "white laminate": (232, 232, 228)}
CLOTH_COLORS = [
    (178, 34, 40),
    (32, 70, 140),
    (40, 110, 60),
    (220, 170, 40),
    (90, 60, 120),
    (30, 30, 34),
    (200, 120, 60),
]


def plan_table(kind: str, seed: int) -> tuple[str, str, dict]:
    rng = stream(kind, seed, "table")
    family = choose(
        rng,
        ("wood", "felt", "cloth", "lacquer", "mat", "laminate", "dark"),
        (0.24, 0.2, 0.16, 0.1, 0.1, 0.1, 0.1),
    )
    params: dict = {"seed": int(rng.integers(1 << 30))}
    if family == "wood":
        name = choose(rng, list(WOODS))
        params.update(
            period=float(rng.uniform(0.004, 0.012)),
            distortion=float(rng.uniform(2.0, 7.0)),
            sharpness=float(rng.uniform(2.0, 5.0)),
            plank=float(rng.uniform(0.09, 0.2)),
            angle=float(rng.choice([0.0, 90.0]) + rng.uniform(-4, 4)),
            roughness=float(rng.uniform(0.25, 0.6)),
            coat=float(rng.uniform(0.0, 0.6)),
        )
    elif family == "felt":
        name = choose(rng, list(FELTS))
    elif family == "cloth":
        name = choose(rng, CLOTHS)
        picks = rng.choice(len(CLOTH_COLORS), 2, replace=False)
        params.update(
            colors=[CLOTH_COLORS[int(picks[0])], CLOTH_COLORS[int(picks[1])]],
            period=float(rng.uniform(0.008, 0.04)),
            angle=float(rng.uniform(-8, 8) + rng.choice([0.0, 45.0], p=[0.8, 0.2])),
        )
    elif family == "lacquer":
        name = choose(rng, list(LACQUERS))
        params.update(roughness=float(rng.uniform(0.02, 0.12)))
    elif family == "mat":
        name = "game mat"
        params.update(angle=float(rng.uniform(-3, 3)))
    elif family == "laminate":
        name = choose(rng, list(LAMINATES))
        params.update(roughness=float(rng.uniform(0.25, 0.45)))
    else:
        name = "charcoal cloth"
    return family, name, params


# --- lights -----------------------------------------------------------------------------------


def _kelvin(rng: Rng, klass: str) -> float:
    lo, hi = {"warm": (2600, 3200), "neutral": (3600, 4600), "daylight": (5200, 6600)}[klass]
    return float(rng.uniform(lo, hi))


def plan_lights(kind: str, seed: int) -> tuple[list[LightPlan], float, str]:
    rng = stream(kind, seed, "lights")
    count = int(choose(rng, (1, 2, 3), (0.45, 0.35, 0.2)))
    key_class = choose(rng, ("warm", "neutral", "daylight"), (0.4, 0.3, 0.3))
    lights = []
    for i in range(count):
        if i == 0:
            kinds = ("area", "bulb", "spot", "sun", "window")
            lk = choose(rng, kinds, (0.28, 0.2, 0.2, 0.16, 0.16))
        else:
            lk = choose(rng, ("area", "bulb", "spot", "window"), (0.4, 0.3, 0.15, 0.15))
        if lk in ("sun", "window"):
            klass = "daylight"
        elif i == 0 or rng.random() < 0.7:
            klass = key_class if key_class != "daylight" or lk == "area" else "neutral"
        else:
            klass = choose(rng, ("warm", "neutral", "daylight"))
        azimuth = rng.uniform(0, 2 * math.pi)
        dirn = np.array([math.cos(azimuth), math.sin(azimuth), 0.0])
        target = np.r_[rng.uniform(-0.15, 0.15, 2), 0.0]
        if lk == "area":
            pos = target + dirn * rng.uniform(0.0, 0.9) + [0, 0, rng.uniform(0.9, 1.8)]
            size = float(rng.uniform(0.25, 1.2))
        elif lk == "bulb":
            pos = target + dirn * rng.uniform(0.1, 0.8) + [0, 0, rng.uniform(0.6, 1.4)]
            size = float(rng.uniform(0.008, 0.03))
        elif lk == "spot":
            pos = target + dirn * rng.uniform(0.05, 0.5) + [0, 0, rng.uniform(0.55, 1.1)]
            size = float(rng.uniform(0.01, 0.03))
        elif lk == "sun":
            elevation = rng.uniform(math.radians(25), math.radians(65))
            pos = target + np.r_[dirn[:2] * math.cos(elevation), math.sin(elevation)] * 5.0
            size = float(math.radians(rng.uniform(0.5, 3.0)))
        else:  # window: a large soft panel low to one side
            pos = target + dirn * rng.uniform(1.2, 2.2) + [0, 0, rng.uniform(0.6, 1.2)]
            size = float(rng.uniform(1.0, 2.0))
        lights.append(
            LightPlan(
                kind=lk,
                kelvin=_kelvin(rng, klass),
                klass=klass,
                position=np.asarray(pos, float),
                target=target,
                size=size,
                weight=1.0 if i == 0 else float(rng.uniform(0.15, 0.7)),
                spot_size=float(math.radians(rng.uniform(35, 70))) if lk == "spot" else 0.0,
                spot_blend=float(rng.uniform(0.15, 0.5)) if lk == "spot" else 0.0,
            )
        )
    ambient = float(rng.uniform(0.03, 0.15))
    exposure = choose(rng, ("dim", "normal", "bright"), (0.25, 0.55, 0.2))
    return lights, ambient, exposure


def light_class(lights: Sequence[LightPlan]) -> str:
    classes = {light.klass for light in lights}
    return classes.pop() if len(classes) == 1 else "mixed"


# --- the play area and the markers -----------------------------------------------------------


def _inside(polygon: np.ndarray, points: np.ndarray, margin: float = 0.0) -> bool:
    poly = polygon.astype(np.float32)
    return all(cv2.pointPolygonTest(poly, (float(x), float(y)), True) >= margin for x, y in points)


def plan_area(
    rng: Rng, camera: CameraPlan
) -> tuple[tuple[float, float, float, float], list[tuple[int, np.ndarray, float]]]:
    """The play area (a rectangle of the table, markers at its corners) and the markers."""
    region = camera.visible_region(inset_px=6)
    centre = region.mean(axis=0)
    aspect = rng.uniform(0.9, 1.1) * camera.width / camera.height
    lo, hi = 0.05, 3.0
    for _ in range(40):
        mid = (lo + hi) / 2
        w, h = mid * aspect, mid
        corners = centre + np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        if _inside(region, corners, 0.0):
            lo = mid
        else:
            hi = mid
    scale = rng.uniform(0.84, 0.97) if rng.random() < 0.88 else rng.uniform(1.02, 1.12)
    w, h = lo * aspect * scale, lo * scale
    centre = centre + rng.normal(0, 0.004, 2)
    x0, y0, x1, y1 = centre[0] - w / 2, centre[1] - h / 2, centre[0] + w / 2, centre[1] + h / 2
    markers = []
    half = MARKER / 2
    for marker_id in CORNER_IDS:
        cx = x0 + half if marker_id in (0, 3) else x1 - half
        cy = y1 - half if marker_id in (0, 1) else y0 + half
        jitter = rng.normal(0, 0.0015, 2)
        markers.append((marker_id, np.array([cx, cy]) + jitter, float(rng.normal(0, 0.03))))
    return (x0, y0, x1, y1), markers


def marker_paper(centre: np.ndarray, turn: float, grow: float = 0.0) -> np.ndarray:
    half = MARKER / 2 + QUIET + grow
    c, s = math.cos(turn), math.sin(turn)
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return local @ np.array([[c, s], [-s, c]]) + centre


# --- dice -------------------------------------------------------------------------------------


def _die_rotation(rng: Rng, yaw: float, hole_up: bool) -> np.ndarray:
    """A flat die turned by ``yaw``: the hole (local z) vertical or along a horizontal axis."""
    if hole_up:
        base = np.eye(3) if rng.random() < 0.5 else _rotation(np.array([1.0, 0, 0]), math.pi)
    else:
        # Local z lies along world x; then a quarter turn of the die about that axis.
        base = _rotation(np.array([0.0, 1, 0]), math.pi / 2)
        base = _rotation(np.array([1.0, 0, 0]), math.pi / 2 * int(rng.integers(4))) @ base
    return _rz(yaw) @ base


def _flat(rng: Rng, color: str, side: float, x: float, y: float, yaw: float, hole: bool) -> DiePlan:
    return DiePlan(
        color=color,
        side=side,
        rotation=_die_rotation(rng, yaw, hole),
        centre=np.array([x, y, side / 2]),
        pose="flat",
        jitter=tuple(float(v) for v in 1 + rng.normal(0, 0.03, 3)),
    )


def _yaw_of(die: DiePlan) -> float:
    """The die's turn about the vertical (of its vertical-ish face normals)."""
    for axis in range(3):
        column = die.rotation[:, axis]
        if abs(column[2]) < 0.5:
            return math.atan2(column[1], column[0])
    return 0.0


def _leaning(rng: Rng, partner: DiePlan, color: str, side: float, hole: bool) -> DiePlan:
    """A die with one bottom edge on the table and its top edge against ``partner``'s side
    face, tilted towards it by 50-70° (its weight on the partner's side of the edge)."""
    yaw = _yaw_of(partner) + math.pi / 2 * int(rng.integers(4))
    n = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    t = np.array([-n[1], n[0], 0.0])
    theta = math.radians(rng.uniform(50, 70))
    # The partner's face plane is at partner.centre + n * side/2; the pivot line lies at
    # distance side_b * sin(theta) from it, on the table.
    face = partner.centre[:2] + n[:2] * partner.side / 2
    slide = rng.uniform(-0.25, 0.25) * partner.side
    pivot = np.r_[face + n[:2] * side * math.sin(theta) + t[:2] * slide, 0.0]
    tilt = _rotation(t, -theta)  # turns up (z) towards -n
    if (tilt @ np.array([0, 0, 1.0])) @ n > 0:
        tilt = _rotation(t, theta)
    # Upright, the die's near face is at the pivot: its centre at pivot + n*s/2 + z*s/2.
    centre = pivot + tilt @ (n * side / 2 + np.array([0, 0, side / 2]))
    rotation = tilt @ _die_rotation(rng, yaw, hole)
    return DiePlan(color, side, rotation, centre, "leaning", tuple(1 + rng.normal(0, 0.03, 3)))


def _stacked(rng: Rng, below: DiePlan, color: str, side: float, hole: bool) -> DiePlan:
    """A die lying flat on top of ``below``, its centre over ``below``'s top face."""
    offset = rng.uniform(-0.22, 0.22, 2) * below.side
    top = below.centre[2] + below.side / 2
    die = _flat(rng, color, side, 0.0, 0.0, rng.uniform(0, math.pi / 2), hole)
    die.centre = np.array(
        [below.centre[0] + offset[0], below.centre[1] + offset[1], top + side / 2]
    )
    die.pose = "pile"
    return die


def plan_dice(
    rng: Rng,
    camera: CameraPlan,
    colors: Sequence[str],
    inside: np.ndarray,
    obstacles: list[np.ndarray],
    touching: float,
    lean: int,
    pile: int,
    holes: float = 1 / 3,
    spread: np.ndarray | None = None,
) -> list[DiePlan]:
    """Dice of these colours in the polygon ``inside`` (m), clear of ``obstacles``: most
    touching another (face to face or corner to face) with probability ``touching``; ``lean``
    of them leaning on another, ``pile`` on top of another. ``spread``: a smaller polygon
    where the free dice land (a throw)."""
    dice: list[DiePlan] = []
    lo, hi = (
        (spread if spread is not None else inside).min(0),
        (spread if spread is not None else inside).max(0),
    )
    specials = ["lean"] * lean + ["pile"] * pile
    order = list(colors)
    kinds = ["flat"] * (len(order) - len(specials)) + specials

    def fits(die: DiePlan, gap: float) -> bool:
        foot = die.footprint()
        if not _inside(inside, foot, 0.0) or not camera.in_frame(die.corners(), 8.0):
            return False
        if any(_overlap(foot, o, 0.002) for o in obstacles):
            return False
        return not any(_overlap(foot, d.footprint(), gap) for d in dice if d.pose != "pile")

    for color, how in zip(order, kinds, strict=True):
        side = float(rng.uniform(0.015, 0.017))
        hole = bool(rng.random() < holes)
        for _attempt in range(300):
            flat = [d for d in dice if d.pose == "flat"]
            if how == "lean" and flat:
                die = _leaning(rng, flat[int(rng.integers(len(flat)))], color, side, hole)
                gap = -0.0003
            elif how == "pile" and flat:
                below = flat[int(rng.integers(len(flat)))]
                if any(
                    _overlap(below.footprint(), d.footprint(), -0.001)
                    for d in dice
                    if d.pose == "leaning"
                ):
                    continue
                if any(
                    d.pose == "pile" and np.allclose(d.centre[:2], below.centre[:2], atol=0.012)
                    for d in dice
                ):
                    continue
                die = _stacked(rng, below, color, side, hole)
                top = below.centre[2] + below.side / 2
                if any(
                    d is not below
                    and d.corners()[:, 2].max() > top - 0.0002
                    and _overlap(die.footprint(), d.footprint(), 0.0005)
                    for d in dice
                ):
                    continue
                dice.append(die)
                break
            elif flat and rng.random() < touching:
                partner = flat[int(rng.integers(len(flat)))]
                yaw = _yaw_of(partner) if rng.random() < 0.6 else rng.uniform(0, math.pi / 2)
                k = int(rng.integers(4))
                normal = _yaw_of(partner) + math.pi / 2 * k
                n = np.array([math.cos(normal), math.sin(normal)])
                t = np.array([-n[1], n[0]])
                delta = yaw - _yaw_of(partner)
                reach = side / 2 * (abs(math.cos(delta)) + abs(math.sin(delta)))
                slide = rng.uniform(-0.55, 0.55) * partner.side
                gap = rng.uniform(0.0, 0.0003)
                xy = partner.centre[:2] + n * (partner.side / 2 + reach + gap) + t * slide
                die = _flat(rng, color, side, xy[0], xy[1], yaw, hole)
                gap = -0.0002
            else:
                xy = rng.uniform(lo, hi)
                die = _flat(rng, color, side, xy[0], xy[1], rng.uniform(0, math.pi / 2), hole)
                gap = 0.004
            if fits(die, gap):
                dice.append(die)
                break
    return dice


# --- tessons ----------------------------------------------------------------------------------

CARD_STOCKS = {
    "terracotta": (190, 96, 62),
    "ochre": (204, 150, 56),
    "cream": (236, 226, 198),
    "sand": (214, 192, 150),
    "slate blue": (92, 112, 142),
    "olive": (118, 120, 64),
    "brick": (150, 62, 46),
    "teal": (56, 112, 112),
}
CARD_SIZES = ((0.044, 0.063), (0.056, 0.087), (0.059, 0.092), (0.063, 0.088), (0.054, 0.054))


def shard_outline(rng: Rng, n: int | None = None) -> np.ndarray:
    """An irregular potsherd round (0, 0), radius about 1: mostly convex, a few chips."""
    n = int(rng.integers(8, 13)) if n is None else n
    t = np.linspace(0, 2 * math.pi, n, endpoint=False) + rng.uniform(-0.18, 0.18, n)
    t.sort()
    r = rng.uniform(0.78, 1.0, n)
    pts = np.c_[r * np.cos(t), r * np.sin(t) * rng.uniform(0.75, 1.0)]
    return pts


def _rounded_rect(w: float, h: float, r: float, per: int = 6) -> np.ndarray:
    pts = []
    for cx, cy, start in (
        (w / 2 - r, h / 2 - r, 0),
        (-w / 2 + r, h / 2 - r, 90),
        (-w / 2 + r, -h / 2 + r, 180),
        (w / 2 - r, -h / 2 + r, 270),
    ):
        for a in np.radians(np.linspace(start, start + 90, per)):
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


def plan_tessons(
    rng: Rng, camera: CameraPlan, obstacles: list[np.ndarray]
) -> tuple[list[TessonPlan], list[np.ndarray], np.ndarray]:
    """Seats round the table centre, their zones (annular sectors in the table plane, from
    45 % to 100 % of the visible half-extents, as vision.synthetic.tesson_scene), a card in
    most zones. Angles run clockwise on screen (the table's y is up, the screen's down)."""
    region = camera.visible_region(inset_px=4)
    centre = camera.table_point(np.array([[camera.width / 2 - 0.5, camera.height / 2 - 0.5]]))[
        0, :2
    ]
    rel = region - centre
    half = (
        np.array([min(-rel[:, 0].min(), rel[:, 0].max()), min(-rel[:, 1].min(), rel[:, 1].max())])
        * 0.92
    )
    seats = int(rng.integers(5, 13))
    first = rng.uniform(0, 360)
    step = 360.0 / seats

    def zone(s: int, inner: float = 0.45, outer: float = 1.0) -> np.ndarray:
        arc = np.radians(np.linspace(first + s * step, first + (s + 1) * step, 16))
        ring = [np.c_[np.cos(arc), -np.sin(arc)] * half * rho for rho in (outer, inner)]
        return centre + np.vstack([ring[0], ring[1][::-1]])

    for _ in range(20):
        zones = [zone(s) for s in range(seats)]
        pts = np.vstack(zones)
        if camera.in_frame(np.c_[pts, np.zeros(len(pts))], 2.0):
            break
        half *= 0.96
    placed: list[TessonPlan] = []
    taken = list(obstacles)
    empty = rng.uniform(0.0, 0.35)
    printed_share = rng.choice([0.0, 0.5, 1.0], p=[0.25, 0.35, 0.4])
    sleeve_share = rng.uniform(0.0, 0.8)
    stock = list(CARD_STOCKS)
    scene_stock = stock[int(rng.integers(len(stock)))]
    for s in range(seats):
        if rng.random() < empty:
            continue
        poly = zone(s)
        printed = bool(rng.random() < printed_share)
        side = "white" if rng.random() < 0.5 else "black"
        options = []
        if printed:
            sizes = [CARD_SIZES[int(i)] for i in rng.permutation(len(CARD_SIZES))]
            options += [("printed", size) for size in sizes]
        options.append(("plain", None))
        for how, size in options:
            done = False
            for _ in range(120):
                a = math.radians(first + (s + rng.uniform(0.2, 0.8)) * step)
                rho = rng.uniform(0.55, 0.85)
                xy = centre + np.array([math.cos(a), -math.sin(a)]) * half * rho
                turn = -a + math.pi / 2 + math.radians(rng.uniform(-25, 25))
                c, sn = math.cos(turn), math.sin(turn)
                rot = np.array([[c, sn], [-sn, c]])
                if how == "printed":
                    w, h = size
                    outline = _rounded_rect(w, h, 0.0035) @ rot + xy
                    shard = shard_outline(rng)
                    plan = TessonPlan(
                        side=side,
                        printed=True,
                        card=scene_stock
                        if rng.random() < 0.7
                        else stock[int(rng.integers(len(stock)))],
                        sleeve=bool(rng.random() < sleeve_share),
                        seat=s,
                        outline=outline,
                        centre=xy,
                        thickness=0.0004,
                        angle=turn,
                        size=(w, h),
                        shard=shard,
                    )
                else:
                    radius = rng.uniform(0.012, 0.02)
                    outline = shard_outline(rng) * radius @ rot + xy
                    plan = TessonPlan(
                        side=side,
                        printed=False,
                        card=None,
                        sleeve=False,
                        seat=s,
                        outline=outline,
                        centre=xy,
                        thickness=float(rng.uniform(0.0015, 0.0025)),
                        angle=turn,
                        albedo=float(rng.uniform(0.9, 1.05)),
                    )
                hull = _hull(outline)
                if not _inside(poly, hull, 0.004):
                    continue
                if any(_overlap(hull, o, 0.003) for o in taken):
                    continue
                if not camera.in_frame(np.c_[hull, np.zeros(len(hull))], 4):
                    continue
                placed.append(plan)
                taken.append(hull)
                done = True
                break
            if done:
                break
    return placed, [zone(s) for s in range(seats)], centre


# --- edge objects: a hand or the dice cup -----------------------------------------------------


def plan_edge(rng: Rng, camera: CameraPlan, kind: str) -> tuple[str, dict]:
    what = choose(rng, ("hand", "cup", "none"), (0.25, 0.15 if kind == "cubes" else 0.05, 0.6))
    if what == "none":
        return "none", {}
    region = camera.visible_region(inset_px=0)
    n = len(region) // 4
    edge = int(rng.integers(4))
    along = rng.uniform(0.3, 0.7)
    point = region[edge * n + int(along * (n - 1))]
    centre = region.mean(axis=0)
    inward = centre - point
    inward /= np.linalg.norm(inward)
    params: dict = {"edge": point, "inward": inward}
    if what == "hand":
        params.update(
            reach=float(rng.uniform(0.03, 0.09)),
            height=float(rng.uniform(0.02, 0.08)) if rng.random() < 0.7 else 0.0,
            turn=float(rng.uniform(-0.5, 0.5)),
            skin=choose(
                rng,
                [(232, 190, 160), (224, 172, 138), (198, 140, 100), (160, 106, 72), (110, 72, 50)],
            ),
            spread=float(rng.uniform(0.0, 0.25)),
        )
    else:
        params.update(
            radius=float(rng.uniform(0.032, 0.042)),
            tall=float(rng.uniform(0.07, 0.1)),
            lying=bool(rng.random() < 0.5),
            color=choose(rng, [(70, 40, 24), (24, 24, 26), (110, 24, 28), (40, 60, 100)]),
            depth=float(rng.uniform(0.3, 0.7)),
        )
    return what, params


def edge_footprint(what: str, params: dict) -> list[np.ndarray]:
    """Where a cup stands or a low hand lies (dice keep clear of them); under a hand that
    hovers high, dice may lie."""
    if what == "hand":
        if params["height"] > 0.045:
            return []
        pts = []
        for centre, radii, rotation in hand_parts(params):
            for sx in (-1, 1):
                for sy in (-1, 1):
                    pts.append(centre + rotation @ np.array([sx * radii[0], sy * radii[1], 0.0]))
        return [_hull(np.array(pts)[:, :2])]
    if what != "cup":
        return []
    c = cup_centre(params)
    r = params["radius"] + 0.004
    if params["lying"]:
        d = params["inward"]
        t = np.array([-d[1], d[0]])
        ends = [c[:2] - d * params["tall"] / 2, c[:2] + d * params["tall"] / 2]
        return [_hull(np.array([e + t * r * k for e in ends for k in (-1, 1)]))]
    a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    return [c[:2] + np.c_[np.cos(a), np.sin(a)] * r]


def cup_centre(params: dict) -> np.ndarray:
    depth = params["depth"]
    span = params["tall"] if params["lying"] else 2 * params["radius"]
    xy = params["edge"] + params["inward"] * (span * (depth - 0.5))
    z = params["radius"] if params["lying"] else params["tall"] / 2
    return np.r_[xy, z]


# --- the whole plan ---------------------------------------------------------------------------


def plan_scene(kind: str, seed: int, width: int, height: int) -> Scene:
    camera = plan_camera(kind, seed, width, height)
    family, table, table_params = plan_table(kind, seed)
    lights, ambient, exposure = plan_lights(kind, seed)
    rng = stream(kind, seed, "layout")
    area, markers = plan_area(rng, camera)
    plastics = plan_plastics(kind, seed)
    edge, edge_params = plan_edge(stream(kind, seed, "edge"), camera, kind)
    papers = [marker_paper(c, t, 0.004) for _, c, t in markers]
    obstacles = papers + edge_footprint(edge, edge_params)
    x0, y0, x1, y1 = area
    inside = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    dice_rng = stream(kind, seed, "dice")
    tessons: list[TessonPlan] = []
    zones: list[np.ndarray] = []
    if kind == "cubes":
        count = int(dice_rng.integers(10, 21))
        colors = [COLORS[i % 4] for i in range(count)]
        dice_rng.shuffle(colors)
        lean = int(choose(dice_rng, (0, 1, 2, 3), (0.35, 0.35, 0.2, 0.1)))
        pile = int(choose(dice_rng, (0, 1, 2), (0.5, 0.35, 0.15)))
        centre = inside.mean(axis=0)
        spread = centre + (inside - centre) * dice_rng.uniform(0.45, 0.9)
        dice = plan_dice(
            dice_rng,
            camera,
            colors,
            inside,
            obstacles,
            float(dice_rng.uniform(0.3, 0.8)),
            lean,
            pile,
            spread=spread,
        )
    else:
        tessons, zones, centre = plan_tessons(stream(kind, seed, "tessons"), camera, obstacles)
        count = int(dice_rng.integers(0, 6))
        colors = [COLORS[int(i)] for i in dice_rng.integers(4, size=count)]
        cards = [_hull(t.outline) for t in tessons]
        middle = centre + (inside - inside.mean(axis=0)) * 0.6
        dice = plan_dice(
            dice_rng, camera, colors, inside, obstacles + cards, 0.2, 0, 0, holes=0.3, spread=middle
        )
    check: list[DiePlan] = []
    card = None
    if kind == "cubes":
        card, check = plan_check(stream(kind, seed, "check"), camera)
    post = plan_post(stream(kind, seed, "post"), exposure)
    return Scene(
        kind=kind,
        seed=seed,
        camera=camera,
        table_family=family,
        table=table,
        table_params=table_params,
        lights=lights,
        world_ambient=ambient,
        exposure=exposure,
        area=area,
        markers=markers,
        plastics=plastics,
        dice=dice,
        tessons=tessons,
        zones=zones,
        edge_object=edge,
        edge_params=edge_params,
        check_dice=check,
        post=post,
        check_card=card,
    )


def plan_check(rng: Rng, camera: CameraPlan) -> tuple[CardPlan, list[DiePlan]]:
    """The colour check as the host lays it: the printed card flat near the table's centre
    (where the optical axis meets it, ±15 mm along the card, ±10 mm across), its boxes left to
    right on screen turned by ±8°, and a flat die in each box (red, yellow, blue, black), moved
    up to 2.5 mm in its box, at any turn, its hole up a third of the time."""
    c = np.array([[camera.width / 2 - 0.5, camera.height / 2 - 0.5]])
    middle = camera.table_point(c)[0, :2]
    along = camera.table_point(c + np.array([100.0, 0.0]))[0, :2] - middle
    screen = math.atan2(along[1], along[0])
    turn = float(rng.uniform(-8.0, 8.0))
    a = screen + math.radians(turn)
    right = np.array([math.cos(a), math.sin(a)])
    down = np.array([right[1], -right[0]])
    w, h = CARD_MM
    shift = np.array([rng.uniform(-15, 15), rng.uniform(-10, 10)])
    for _ in range(20):
        centre = middle + (shift[0] * right + shift[1] * down) * MM
        card = CardPlan(centre - (w / 2 * right + h / 2 * down) * MM, right, down, turn)
        if camera.in_frame(np.c_[card.outline(), np.full(4, PAPER)], 24.0):
            break
        shift *= 0.5
    dice = []
    for color, box in zip(COLORS, BOX_CENTRES, strict=True):
        xy = card.to_table(np.asarray(box) + rng.uniform(-2.5, 2.5, 2))[0]
        side = float(rng.uniform(0.015, 0.017))
        hole = bool(rng.random() < 1 / 3)
        die = _flat(rng, color, side, xy[0], xy[1], float(rng.uniform(0, 2 * math.pi)), hole)
        die.centre[2] += PAPER
        dice.append(die)
    return card, dice


def plan_post(rng: Rng, exposure: str) -> dict:
    noise = float(rng.uniform(1.0, 3.5))
    if exposure == "dim":
        noise *= rng.uniform(1.4, 2.0)
    return {
        "exposure_bias": float(
            {
                "dim": rng.uniform(0.4, 0.6),
                "normal": rng.uniform(0.85, 1.15),
                "bright": rng.uniform(1.35, 1.8),
            }[exposure]
        ),
        "metering": float(rng.uniform(0.3, 0.7)),
        "awb_strength": float(rng.uniform(0.75, 0.97)),
        "white_balance": [float(v) for v in rng.uniform(0.85, 1.15, 3)],
        "noise": noise,
        "motion_blur_px": float(rng.uniform(1.0, 3.0)) if rng.random() < 0.15 else 0.0,
        "motion_angle": float(rng.uniform(0, 180)),
        "vignette": float(rng.uniform(0.0, 0.3)),
        "saturation": float(rng.uniform(0.95, 1.25)),
        "sharpen": float(rng.uniform(0.0, 0.6)),
        "jpeg_quality": int(rng.integers(70, 96)),
        "noise_seed": int(rng.integers(1 << 30)),
    }


# ---------------------------------------------------------------------------------------------
# Textures made with numpy (cloth prints, the game mat, printed cards, markers)


def _noise(rng: Rng, shape: tuple[int, int], scale: float) -> np.ndarray:
    small = (max(2, int(shape[0] / scale) + 2), max(2, int(shape[1] / scale) + 2))
    field_ = rng.normal(0, 1, small).astype(np.float32)
    out = cv2.resize(field_, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return out / (out.std() + 1e-6)


def cloth_texture(name: str, params: dict, px: int = 1024) -> tuple[np.ndarray, float]:
    """A tile of printed cloth (sRGB uint8, RGB) and the metres it covers."""
    rng = np.random.default_rng(params["seed"])
    period = params["period"]
    a, b = (np.array(c, np.float32) for c in params["colors"])
    white = np.array((236, 232, 224), np.float32)
    repeats = 8
    span = period * repeats
    yy, xx = (np.mgrid[0:px, 0:px].astype(np.float32) + 0.5) / px * repeats
    if name == "gingham":
        sx = (np.floor(xx * 2) % 2).astype(np.float32)
        sy = (np.floor(yy * 2) % 2).astype(np.float32)
        mix = (sx + sy) / 2
        img = white * (1 - mix[..., None]) + a * mix[..., None]
    elif name == "checks":
        sx = (np.floor(xx) % 2).astype(np.float32)
        sy = (np.floor(yy) % 2).astype(np.float32)
        mix = np.abs(sx - sy)
        img = a * (1 - mix[..., None]) + b * mix[..., None]
        thin = ((xx * 4 % 4) < 0.12) | ((yy * 4 % 4) < 0.12)
        img[thin] = img[thin] * 0.6 + white * 0.4
    elif name == "stripes":
        band = (xx % 1.0)[..., None]
        img = np.where(band < 0.5, a, white)
        img = np.where((band > 0.62) & (band < 0.7), b, img)
    else:  # floral print, dot print: motifs on a ground
        img = np.empty((px, px, 3), np.float32)
        img[:] = a
        canvas = img
        cell = px / repeats
        for i in range(repeats):
            for j in range(repeats):
                cx = (j + 0.5 + rng.uniform(-0.25, 0.25) + (0.5 if i % 2 else 0)) * cell
                cy = (i + 0.5 + rng.uniform(-0.25, 0.25)) * cell
                if name == "dot print":
                    r = cell * rng.uniform(0.14, 0.22)
                    for dx in (-px, 0, px):
                        cv2.circle(
                            canvas,
                            (int(cx + dx), int(cy)),
                            int(r),
                            tuple(float(v) for v in white),
                            -1,
                            cv2.LINE_AA,
                        )
                else:
                    petals = int(rng.integers(5, 8))
                    r = cell * rng.uniform(0.18, 0.28)
                    for k in range(petals):
                        ang = 2 * math.pi * k / petals + rng.uniform(0, 0.3)
                        px_, py_ = cx + math.cos(ang) * r * 0.7, cy + math.sin(ang) * r * 0.7
                        for dx in (-px, 0, px):
                            cv2.ellipse(
                                canvas,
                                (int(px_ + dx), int(py_)),
                                (int(r * 0.55), int(r * 0.3)),
                                math.degrees(ang),
                                0,
                                360,
                                tuple(float(v) for v in white),
                                -1,
                                cv2.LINE_AA,
                            )
                    for dx in (-px, 0, px):
                        cv2.circle(
                            canvas,
                            (int(cx + dx), int(cy)),
                            int(r * 0.3),
                            tuple(float(v) for v in b),
                            -1,
                            cv2.LINE_AA,
                        )
        img = canvas
    weave = 1 + 0.06 * np.sin(xx * px / repeats * 1.3) * np.sin(yy * px / repeats * 1.3)
    img = img * weave[..., None] * (1 + 0.03 * _noise(rng, (px, px), 40))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8), span


def mat_texture(seed: int, size_m: tuple[float, float], px_per_m: float = 1400) -> np.ndarray:
    """A printed game mat: a coloured ground, big shapes, tracks of boxes, text-like marks."""
    rng = np.random.default_rng(seed)
    w, h = int(size_m[0] * px_per_m), int(size_m[1] * px_per_m)
    grounds = [(34, 60, 96), (200, 186, 150), (60, 92, 60), (120, 40, 40), (226, 220, 204)]
    ground = np.array(grounds[int(rng.integers(len(grounds)))], np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = ground
    img *= (1 + 0.08 * _noise(rng, (h, w), 300))[..., None]
    palette = [
        (220, 180, 60),
        (200, 70, 50),
        (60, 120, 180),
        (240, 236, 220),
        (30, 30, 36),
        (90, 150, 80),
    ]

    def color() -> tuple[float, ...]:
        return tuple(float(v) for v in palette[int(rng.integers(len(palette)))])

    for _ in range(int(rng.integers(6, 14))):
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        shape = rng.integers(3)
        if shape == 0:
            cv2.circle(
                img,
                c,
                int(rng.uniform(40, 260)),
                color(),
                int(rng.choice([-1, 6, 14])),
                cv2.LINE_AA,
            )
        elif shape == 1:
            sz = rng.uniform(60, 300, 2)
            box = cv2.boxPoints(((c[0], c[1]), (sz[0], sz[1]), rng.uniform(0, 90)))
            cv2.fillPoly(img, [box.astype(np.int32)], color(), cv2.LINE_AA)
        else:
            pts = (
                rng.uniform(-1, 1, (int(rng.integers(3, 7)), 2)) * rng.uniform(60, 250) + c
            ).astype(np.int32)
            cv2.fillPoly(img, [cv2.convexHull(pts)], color(), cv2.LINE_AA)
    # A track of boxes round the border, with numbers.
    step = int(rng.uniform(70, 110))
    margin = int(rng.uniform(20, 60))
    ink = color()
    for x in range(margin, w - margin - step, step):
        for y in (margin, h - margin - step):
            cv2.rectangle(img, (x, y), (x + step - 6, y + step - 6), ink, 3, cv2.LINE_AA)
            cv2.putText(
                img,
                str(int(rng.integers(1, 60))),
                (x + 12, y + step // 2 + 10),
                cv2.FONT_HERSHEY_SIMPLEX,
                step / 90,
                ink,
                2,
                cv2.LINE_AA,
            )
    # Lines of text-like marks.
    for _ in range(int(rng.integers(3, 8))):
        x, y = int(rng.uniform(0, w * 0.7)), int(rng.uniform(0, h))
        words = " ".join(
            "".join(chr(int(rng.integers(97, 123))) for _ in range(int(rng.integers(2, 9))))
            for _ in range(int(rng.integers(2, 7)))
        )
        font = int(
            rng.choice(
                [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX]
            )
        )
        cv2.putText(
            img,
            words.upper() if rng.random() < 0.5 else words,
            (x, y),
            font,
            rng.uniform(0.8, 2.2),
            color(),
            int(rng.integers(2, 5)),
            cv2.LINE_AA,
        )
    return np.clip(img, 0, 255).astype(np.uint8)


def card_texture(plan: TessonPlan, seed: int, px_per_m: float = 6000) -> np.ndarray:
    """The printed face of a tesson card: card stock, a thin frame, the shard printed on it
    covering 55-70 % of the face."""
    rng = np.random.default_rng(seed)
    w_m, h_m = plan.size
    w, h = int(w_m * px_per_m), int(h_m * px_per_m)
    base = np.array(CARD_STOCKS[plan.card or "cream"], np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img *= (1 + 0.04 * _noise(rng, (h, w), 30) + 0.015 * rng.normal(0, 1, (h, w)))[..., None]
    inset = int(0.05 * min(w, h))
    frame = base * 0.72
    cv2.rectangle(
        img,
        (inset, inset),
        (w - inset, h - inset),
        tuple(float(v) for v in frame),
        max(2, w // 90),
        cv2.LINE_AA,
    )
    assert plan.shard is not None
    target = rng.uniform(0.55, 0.7) * w * h
    shard = plan.shard.copy()
    shard *= np.array([w, h]) / 2 * 0.95
    area = cv2.contourArea(shard.astype(np.float32))
    shard *= math.sqrt(target / area)
    # Keep it on the card: shrink if it overflows.
    span = np.abs(shard).max(axis=0)
    shrink = min(1.0, (w / 2 - inset * 0.6) / span[0], (h / 2 - inset * 0.6) / span[1])
    shard = shard * shrink + np.array([w, h]) / 2
    color = np.array((238, 234, 224) if plan.side == "white" else (28, 27, 30), np.float32)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(shard * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    m = (mask.astype(np.float32) / 255)[..., None]
    texture = color * (1 + 0.05 * _noise(rng, (h, w), 25))[..., None]
    img = img * (1 - m) + texture * m
    # A few cracks and the edge of the sherd drawn in a darker line, like the printed art.
    line = tuple(float(v) for v in (color * (0.6 if plan.side == "white" else 1.8)))
    cv2.polylines(
        img, [np.round(shard).astype(np.int32)], True, line, max(1, w // 160), cv2.LINE_AA
    )
    for _ in range(int(rng.integers(1, 4))):
        p = shard[int(rng.integers(len(shard)))]
        q = np.array([w, h]) / 2 + rng.normal(0, w / 10, 2)
        cv2.line(
            img,
            tuple(int(v) for v in p),
            tuple(int(v) for v in q),
            line,
            max(1, w // 260),
            cv2.LINE_AA,
        )
    return np.clip(img, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# Building the Blender scene


def _image(name: str, rgb: np.ndarray, colorspace: str = "sRGB") -> bpy.types.Image:
    """A Blender image from an sRGB uint8 (H, W, 3) RGB array whose row 0 is the top."""
    h, w = rgb.shape[:2]
    image = bpy.data.images.new(name, w, h, alpha=True)
    image.colorspace_settings.name = colorspace  # first: setting it regenerates the pixels
    rgba = np.ones((h, w, 4), np.float32)
    rgba[..., :3] = rgb[::-1].astype(np.float32) / 255.0
    image.pixels.foreach_set(rgba.ravel())
    image.pack()
    return image


def _material(name: str) -> tuple[bpy.types.Material, bpy.types.NodeTree, bpy.types.Node]:
    mat = bpy.data.materials.new(name)
    with contextlib.suppress(AttributeError):
        mat.use_nodes = True
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    return mat, tree, bsdf


def _rgba(rgb: Sequence[float]) -> tuple[float, float, float, float]:
    return (float(rgb[0]), float(rgb[1]), float(rgb[2]), 1.0)


def _link(tree: bpy.types.NodeTree, a: bpy.types.NodeSocket, b: bpy.types.NodeSocket) -> None:
    tree.links.new(a, b)


def table_material(scene: Scene) -> bpy.types.Material:
    mat, tree, bsdf = _material("table")
    nodes = tree.nodes
    p = scene.table_params
    coord = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    _link(tree, coord.outputs["Object"], mapping.inputs["Vector"])
    mapping.inputs["Rotation"].default_value = (0, 0, math.radians(p.get("angle", 0.0)))
    rng = np.random.default_rng(p["seed"])
    mapping.inputs["Location"].default_value = (*rng.uniform(-50, 50, 2), 0)
    bsdf.inputs["Specular IOR Level"].default_value = 0.5
    family = scene.table_family
    if family == "wood":
        light, dark = (srgb_to_linear(c) for c in WOODS[scene.table])
        # Growth rings: thin dark lines (a sine band to a power), wavering along the board.
        wave = nodes.new("ShaderNodeTexWave")
        wave.wave_type = "BANDS"
        wave.bands_direction = "Y"
        wave.inputs["Scale"].default_value = 0.314 / p["period"]
        wave.inputs["Distortion"].default_value = p["distortion"]
        wave.inputs["Detail"].default_value = 2.0
        wave.inputs["Detail Scale"].default_value = 1.0
        stretch = nodes.new("ShaderNodeMapping")
        stretch.inputs["Scale"].default_value = (0.08, 1.0, 1.0)
        _link(tree, mapping.outputs["Vector"], stretch.inputs["Vector"])
        _link(tree, stretch.outputs["Vector"], wave.inputs["Vector"])
        rings = nodes.new("ShaderNodeMath")
        rings.operation = "POWER"
        rings.inputs[1].default_value = p["sharpness"]
        _link(tree, wave.outputs["Fac"], rings.inputs[0])
        # Fine streaks of the fibres: noise stretched along the board.
        fibres = nodes.new("ShaderNodeTexNoise")
        fibres.inputs["Scale"].default_value = 1.0
        fibres.inputs["Detail"].default_value = 2.0
        fmap = nodes.new("ShaderNodeMapping")
        fmap.inputs["Scale"].default_value = (25.0, 700.0, 1.0)
        _link(tree, mapping.outputs["Vector"], fmap.inputs["Vector"])
        _link(tree, fmap.outputs["Vector"], fibres.inputs["Vector"])
        combine = nodes.new("ShaderNodeMath")
        combine.operation = "MULTIPLY_ADD"
        combine.inputs[1].default_value = 0.6
        _link(tree, rings.outputs[0], combine.inputs[0])
        fibre_part = nodes.new("ShaderNodeMath")
        fibre_part.operation = "MULTIPLY"
        fibre_part.inputs[1].default_value = 0.55
        _link(tree, fibres.outputs["Fac"], fibre_part.inputs[0])
        _link(tree, fibre_part.outputs[0], combine.inputs[2])
        planks = nodes.new("ShaderNodeTexBrick")
        planks.inputs["Scale"].default_value = 1.0
        planks.inputs["Brick Width"].default_value = 1.2
        planks.inputs["Row Height"].default_value = p["plank"]
        planks.inputs["Mortar Size"].default_value = 0.0007
        planks.inputs["Mortar Smooth"].default_value = 0.3
        planks.offset = 0.5
        planks.inputs["Color1"].default_value = (0.88, 0.88, 0.88, 1)
        planks.inputs["Color2"].default_value = (1.08, 1.08, 1.08, 1)
        planks.inputs["Mortar"].default_value = (0.3, 0.3, 0.3, 1)
        _link(tree, mapping.outputs["Vector"], planks.inputs["Vector"])
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = _rgba(light)
        ramp.color_ramp.elements[1].color = _rgba(dark)
        ramp.color_ramp.elements[0].position = 0.25
        ramp.color_ramp.elements[1].position = 0.85
        _link(tree, combine.outputs[0], ramp.inputs["Fac"])
        mix2 = nodes.new("ShaderNodeMix")
        mix2.data_type = "RGBA"
        mix2.blend_type = "MULTIPLY"
        mix2.inputs["Factor"].default_value = 1.0
        _link(tree, ramp.outputs["Color"], mix2.inputs[6])
        _link(tree, planks.outputs["Color"], mix2.inputs[7])
        _link(tree, mix2.outputs[2], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = p["roughness"]
        bsdf.inputs["Coat Weight"].default_value = p["coat"]
        bsdf.inputs["Coat Roughness"].default_value = 0.08
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.15
        bump.inputs["Distance"].default_value = 0.0003
        _link(tree, planks.outputs["Fac"], bump.inputs["Height"])
        _link(tree, bump.outputs["Normal"], bsdf.inputs["Normal"])
    elif family in ("felt", "dark"):
        color = srgb_to_linear(FELTS.get(scene.table, (44, 42, 44)))
        color = tuple(c * v for c, v in zip(color, 1 + rng.normal(0, 0.04, 3), strict=True))
        fuzz = nodes.new("ShaderNodeTexNoise")
        fuzz.inputs["Scale"].default_value = 900.0
        fuzz.inputs["Detail"].default_value = 3.0
        _link(tree, mapping.outputs["Vector"], fuzz.inputs["Vector"])
        blotch = nodes.new("ShaderNodeTexNoise")
        blotch.inputs["Scale"].default_value = 9.0
        blotch.inputs["Detail"].default_value = 3.0
        _link(tree, mapping.outputs["Vector"], blotch.inputs["Vector"])
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = _rgba([c * 0.8 for c in color])
        ramp.color_ramp.elements[1].color = _rgba([c * 1.2 for c in color])
        add = nodes.new("ShaderNodeMath")
        add.operation = "MULTIPLY_ADD"
        add.inputs[1].default_value = 0.6
        _link(tree, fuzz.outputs["Fac"], add.inputs[0])
        _link(tree, blotch.outputs["Fac"], add.inputs[2])
        scale = nodes.new("ShaderNodeMath")
        scale.operation = "MULTIPLY"
        scale.inputs[1].default_value = 0.62
        _link(tree, add.outputs[0], scale.inputs[0])
        _link(tree, scale.outputs[0], ramp.inputs["Fac"])
        _link(tree, ramp.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 1.0
        bsdf.inputs["Specular IOR Level"].default_value = 0.2
        bsdf.inputs["Sheen Weight"].default_value = 0.6
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.3
        bump.inputs["Distance"].default_value = 0.0002
        _link(tree, fuzz.outputs["Fac"], bump.inputs["Height"])
        _link(tree, bump.outputs["Normal"], bsdf.inputs["Normal"])
    elif family in ("cloth", "mat"):
        tex = nodes.new("ShaderNodeTexImage")
        if family == "cloth":
            rgb, span = cloth_texture(scene.table, p)
            tex.image = _image("cloth", rgb)
            tex.extension = "REPEAT"
            scale_map = nodes.new("ShaderNodeMapping")
            scale_map.inputs["Scale"].default_value = (1 / span, 1 / span, 1)
            _link(tree, mapping.outputs["Vector"], scale_map.inputs["Vector"])
            _link(tree, scale_map.outputs["Vector"], tex.inputs["Vector"])
            bsdf.inputs["Roughness"].default_value = 0.95
            bsdf.inputs["Sheen Weight"].default_value = 0.4
            bsdf.inputs["Specular IOR Level"].default_value = 0.25
        else:
            x0, y0, x1, y1 = scene.area
            size = (x1 - x0 + 0.3, y1 - y0 + 0.3)
            tex.image = _image("mat", mat_texture(p["seed"], size))
            tex.extension = "EXTEND"
            m2 = nodes.new("ShaderNodeMapping")
            m2.vector_type = "POINT"
            m2.inputs["Location"].default_value = (0.5, 0.5, 0)
            m2.inputs["Scale"].default_value = (1 / size[0], 1 / size[1], 1)
            centre = nodes.new("ShaderNodeMapping")
            centre.inputs["Location"].default_value = (-(x0 + x1) / 2, -(y0 + y1) / 2, 0)
            _link(tree, coord.outputs["Object"], centre.inputs["Vector"])
            _link(tree, centre.outputs["Vector"], m2.inputs["Vector"])
            _link(tree, m2.outputs["Vector"], tex.inputs["Vector"])
            bsdf.inputs["Roughness"].default_value = 0.55
        _link(tree, tex.outputs["Color"], bsdf.inputs["Base Color"])
    elif family == "lacquer":
        color = srgb_to_linear(LACQUERS[scene.table])
        bsdf.inputs["Base Color"].default_value = _rgba(color)
        bsdf.inputs["Roughness"].default_value = 0.3
        bsdf.inputs["Coat Weight"].default_value = 1.0
        bsdf.inputs["Coat Roughness"].default_value = p["roughness"]
        if "walnut" in scene.table:
            wave = nodes.new("ShaderNodeTexWave")
            wave.inputs["Scale"].default_value = 12.0
            wave.inputs["Distortion"].default_value = 6.0
            _link(tree, mapping.outputs["Vector"], wave.inputs["Vector"])
            ramp = nodes.new("ShaderNodeValToRGB")
            ramp.color_ramp.elements[0].color = _rgba([c * 1.25 for c in color])
            ramp.color_ramp.elements[1].color = _rgba([c * 0.6 for c in color])
            _link(tree, wave.outputs["Fac"], ramp.inputs["Fac"])
            _link(tree, ramp.outputs["Color"], bsdf.inputs["Base Color"])
    else:  # laminate
        color = srgb_to_linear(LAMINATES[scene.table])
        speck = nodes.new("ShaderNodeTexNoise")
        speck.inputs["Scale"].default_value = 1500.0
        _link(tree, mapping.outputs["Vector"], speck.inputs["Vector"])
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = _rgba([c * 0.9 for c in color])
        ramp.color_ramp.elements[1].color = _rgba([c * 1.05 for c in color])
        _link(tree, speck.outputs["Fac"], ramp.inputs["Fac"])
        _link(tree, ramp.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = p["roughness"]
    return mat


def _object(name: str, mesh: bpy.types.Mesh) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _mesh_from(
    name: str, verts: np.ndarray, faces: list[Sequence[int]], uvs: np.ndarray | None = None
) -> bpy.types.Mesh:
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(map(float, v)) for v in verts], [], [tuple(f) for f in faces])
    if uvs is not None:
        layer = mesh.uv_layers.new(name="UVMap")
        for poly in mesh.polygons:
            for li in poly.loop_indices:
                layer.data[li].uv = tuple(uvs[mesh.loops[li].vertex_index])
    mesh.update()
    return mesh


def prism(
    name: str, outline: np.ndarray, z0: float, z1: float, uvs: np.ndarray | None = None
) -> bpy.types.Mesh:
    """A flat prism over a convex-ish outline (N, 2): bottom, top and side faces."""
    n = len(outline)
    verts = np.r_[np.c_[outline, np.full(n, z0)], np.c_[outline, np.full(n, z1)]]
    faces: list[Sequence[int]] = [list(range(n - 1, -1, -1)), list(range(n, 2 * n))]
    faces += [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    full_uv = None if uvs is None else np.r_[uvs, uvs]
    return _mesh_from(name, verts, faces, full_uv)


def die_mesh() -> bpy.types.Mesh:
    """A unit cube with a round hole along z (radius 0.19) and bevelled edges."""
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    cube = bpy.context.active_object
    bpy.ops.mesh.primitive_cylinder_add(vertices=40, radius=HOLE_RADIUS, depth=1.5)
    hole = bpy.context.active_object
    boolean = cube.modifiers.new("hole", "BOOLEAN")
    boolean.operation = "DIFFERENCE"
    boolean.object = hole
    boolean.solver = "EXACT"
    bevel = cube.modifiers.new("bevel", "BEVEL")
    bevel.width = 0.055
    bevel.segments = 3
    bevel.limit_method = "ANGLE"
    bevel.harden_normals = True
    depsgraph = bpy.context.evaluated_depsgraph_get()
    mesh = bpy.data.meshes.new_from_object(cube.evaluated_get(depsgraph))
    mesh.name = "die"
    for poly in mesh.polygons:
        poly.use_smooth = True
    bpy.data.objects.remove(hole)
    bpy.data.objects.remove(cube)
    return mesh


def plastic_material(plastic: Plastic, jitter: Sequence[float], name: str) -> bpy.types.Material:
    mat, _tree, bsdf = _material(name)
    rgb = [min(1.0, c * j) for c, j in zip(plastic.rgb, jitter, strict=True)]
    bsdf.inputs["Base Color"].default_value = _rgba(rgb)
    bsdf.inputs["Roughness"].default_value = plastic.roughness
    bsdf.inputs["Specular IOR Level"].default_value = 0.5
    return mat


def _place(
    obj: bpy.types.Object, rotation: np.ndarray, centre: np.ndarray, scale: float = 1.0
) -> None:
    m = np.eye(4)
    m[:3, :3] = rotation * scale
    m[:3, 3] = centre
    obj.matrix_world = Matrix([list(map(float, row)) for row in m])


def add_die(
    die: DiePlan, plastics: dict[str, Plastic], mesh: bpy.types.Mesh, name: str
) -> bpy.types.Object:
    obj = _object(name, mesh)
    obj.data = mesh
    mat = plastic_material(plastics[die.color], die.jitter, f"{name}-plastic")
    obj.material_slots  # noqa: B018  (slots exist only once the object has data)
    if not obj.data.materials:
        obj.data.materials.append(None)
    obj.material_slots[0].link = "OBJECT"
    obj.material_slots[0].material = mat
    _place(obj, die.rotation, die.centre, die.side)
    return obj


def add_marker(marker_id: int, centre: np.ndarray, turn: float) -> bpy.types.Object:
    side = MARKER + 2 * QUIET
    px = 360
    quiet = round(px * QUIET / side)
    img = marker_image(marker_id, px - 2 * quiet, quiet)
    rgb = np.repeat(img[..., None], 3, axis=2)
    rgb = np.where(rgb > 128, PAPER_SRGB[1], PAPER_SRGB[0]).astype(np.uint8)
    paper = marker_paper(centre, turn)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    mesh = prism(f"marker{marker_id}", paper, 0.0, PAPER, uv)
    obj = _object(f"marker{marker_id}", mesh)
    mat, tree, bsdf = _material(f"marker{marker_id}")
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = _image(f"marker{marker_id}", rgb)
    tex.interpolation = "Closest"
    _link(tree, tex.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.7
    mesh.materials.append(mat)
    return obj


def add_check_card(card: CardPlan) -> bpy.types.Object:
    """The printed colour check card: ``vision.color_check.card_image`` (the marker, the dashed
    boxes and their labels, the cut line at its edge) in ink on the markers' white paper."""
    grey = card_image(CARD_PX_PER_MM).astype(np.float32) / 255.0
    ink, white = PAPER_SRGB
    rgb = np.repeat((ink + (white - ink) * grey)[..., None], 3, axis=2)
    # UV (0, 0) is the texture's bottom-left: the card's bottom-left corner.
    uv = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], float)
    mesh = prism("check-card", card.outline(), 0.0, PAPER, uv)
    obj = _object("check-card", mesh)
    mat, tree, bsdf = _material("check-card")
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = _image("check-card", np.round(rgb).astype(np.uint8))
    tex.extension = "EXTEND"
    _link(tree, tex.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.7
    mesh.materials.append(mat)
    return obj


def marker_corners(centre: np.ndarray, turn: float) -> np.ndarray:
    """The black square's corners in cv2.aruco's order (the marker's own TL, TR, BR, BL;
    the marker's top is towards +y, the top of the play area), at paper height."""
    half = MARKER / 2
    c, s = math.cos(turn), math.sin(turn)
    local = np.array([[-half, half], [half, half], [half, -half], [-half, -half]])
    xy = local @ np.array([[c, s], [-s, c]]) + centre
    return np.c_[xy, np.full(4, PAPER)]


def add_tesson(plan: TessonPlan, name: str, seed: int) -> bpy.types.Object:
    outline = plan.outline
    if plan.printed:
        # UV: the card's own axes.
        c, s = math.cos(plan.angle), math.sin(plan.angle)
        rot = np.array([[c, s], [-s, c]])
        local = (outline - plan.centre) @ rot.T
        w, h = plan.size
        uv = np.c_[local[:, 0] / w + 0.5, local[:, 1] / h + 0.5]
        mesh = prism(name, outline, 0.0, plan.thickness, uv)
        mat, tree, bsdf = _material(name)
        tex = tree.nodes.new("ShaderNodeTexImage")
        tex.image = _image(name, card_texture(plan, seed))
        _link(tree, tex.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 0.55
        if plan.sleeve:
            bsdf.inputs["Coat Weight"].default_value = 1.0
            bsdf.inputs["Coat Roughness"].default_value = 0.04
            bsdf.inputs["Coat IOR"].default_value = 1.55
    else:
        mesh = prism(name, outline, 0.0, plan.thickness)
        mat, tree, bsdf = _material(name)
        base = (226, 224, 218) if plan.side == "white" else (28, 28, 30)
        rgb = srgb_to_linear([min(255.0, v * plan.albedo) for v in base])
        bsdf.inputs["Base Color"].default_value = _rgba(rgb)
        bsdf.inputs["Roughness"].default_value = 0.6 if plan.side == "white" else 0.85
    mesh.materials.append(mat)
    return _object(name, mesh)


def _skin(rgb: Sequence[float]) -> bpy.types.Material:
    mat, _tree, bsdf = _material("skin")
    color = srgb_to_linear(rgb)
    bsdf.inputs["Base Color"].default_value = _rgba(color)
    bsdf.inputs["Roughness"].default_value = 0.5
    bsdf.inputs["Subsurface Weight"].default_value = 0.3
    bsdf.inputs["Subsurface Radius"].default_value = (1.0, 0.35, 0.2)
    bsdf.inputs["Subsurface Scale"].default_value = 0.004
    return mat


def _ellipsoid(
    name: str,
    centre: np.ndarray,
    radii: Sequence[float],
    rotation: np.ndarray,
    mat: bpy.types.Material,
    capsule: bool = False,
) -> bpy.types.Object:
    """An ellipsoid; ``capsule``: a rounded rod along x instead (a finger), of length
    2 * radii[0] and cross-section radii[1:]."""
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=1.0)
    obj = bpy.context.active_object
    obj.name = name
    if capsule:
        half = radii[0] / radii[1] - 1.0
        for v in obj.data.vertices:
            if abs(v.co.x) > 1e-6:
                v.co.x += half if v.co.x > 0 else -half
        radii = (radii[1], radii[1], radii[2])
    for poly in obj.data.polygons:
        poly.use_smooth = True
    obj.data.materials.append(mat)
    m = np.eye(4)
    m[:3, :3] = rotation @ np.diag(radii)
    m[:3, 3] = centre
    obj.matrix_world = Matrix([list(map(float, row)) for row in m])
    return obj


def hand_parts(params: dict) -> list[tuple[np.ndarray, tuple[float, float, float], np.ndarray]]:
    """A simple hand coming in from the frame's edge, palm down: (centre, radii, rotation) of
    the ellipsoids of its palm, four fingers and thumb. ``height``: the fingertips' height
    above the table (0: resting on it)."""
    up = np.array([0, 0, 1.0])
    d = _rz(params["turn"]) @ np.r_[params["inward"], 0.0]
    t = np.cross(up, d)
    tip_z = params["height"] + 0.0075
    tips = np.r_[params["edge"], 0.0] + d * params["reach"]
    palm = tips - d * 0.115
    palm[2] = tip_z + 0.03
    parts = [(palm, (0.05, 0.045, 0.016), np.stack([d, t, up], axis=1))]
    for i, length in enumerate((0.062, 0.072, 0.068, 0.054)):
        fd = _rz((i - 1.5) * params["spread"] * 0.25) @ d
        base = palm + d * 0.042 + t * (i - 1.5) * 0.0195
        base[2] = tip_z + 0.018
        tip = base + fd * length
        tip[2] = tip_z + 0.004 * (i in (0, 3))
        axis = (tip - base) / np.linalg.norm(tip - base)
        side = np.cross(up, axis)
        side /= np.linalg.norm(side)
        frame = np.stack([axis, side, np.cross(axis, side)], axis=1)
        half = float(np.linalg.norm(tip - base)) / 2 + 0.004
        parts.append(((base + tip) / 2, (half, 0.0085, 0.0078), frame))
    thumb_d = _rz(0.9) @ d
    thumb = palm - t * 0.04 + thumb_d * 0.03
    thumb[2] = tip_z + 0.012
    parts.append(
        (thumb, (0.034, 0.011, 0.0095), np.stack([thumb_d, np.cross(up, thumb_d), up], axis=1))
    )
    return parts


def add_hand(params: dict) -> list[bpy.types.Object]:
    mat = _skin(params["skin"])
    return [
        _ellipsoid(f"hand{i}", centre, radii, rotation, mat, capsule=i > 0)
        for i, (centre, radii, rotation) in enumerate(hand_parts(params))
    ]


def add_cup(params: dict) -> bpy.types.Object:
    r, tall = params["radius"], params["tall"]
    bpy.ops.mesh.primitive_cylinder_add(vertices=48, radius=r, depth=tall)
    cup = bpy.context.active_object
    cup.name = "cup"
    # An open top: delete the top cap, then give the wall a thickness.
    mesh = cup.data
    import bmesh

    bm = bmesh.new()
    bm.from_mesh(mesh)
    top = [f for f in bm.faces if f.normal.z > 0.9]
    bmesh.ops.delete(bm, geom=top, context="FACES")
    bm.to_mesh(mesh)
    bm.free()
    for poly in mesh.polygons:
        poly.use_smooth = True
    solid = cup.modifiers.new("wall", "SOLIDIFY")
    solid.thickness = 0.003
    mat, _tree, bsdf = _material("cup")
    bsdf.inputs["Base Color"].default_value = _rgba(srgb_to_linear(params["color"]))
    bsdf.inputs["Roughness"].default_value = 0.6
    mesh.materials.append(mat)
    centre = cup_centre(params)
    if params["lying"]:
        d = np.r_[params["inward"], 0.0]
        axis = np.cross(np.array([0, 0, 1.0]), d)
        rot = _rotation(axis, math.pi / 2)  # z (the mouth) towards the frame's inside
    else:
        rot = np.eye(3)
    _place(cup, rot, centre)
    return cup


def add_lights(scene: Scene) -> float:
    """The lights, with powers such that their irradiances at the table centre are in the
    plan's proportions (auto-exposure sets the level). Returns the total irradiance."""
    total = 0.0
    for i, light in enumerate(scene.lights):
        target = light.target
        to = target - light.position
        dist = float(np.linalg.norm(to))
        cos_recv = max(0.05, -to[2] / dist)
        if light.kind in ("area", "window"):
            data = bpy.data.lights.new(f"light{i}", "AREA")
            data.shape = "RECTANGLE"
            data.size = light.size
            data.size_y = light.size * (0.6 if light.kind == "area" else 1.2)
            intensity = 1.0 / math.pi  # per watt, along the normal (a Lambertian panel)
            irradiance_per_w = intensity * cos_recv / dist**2
        elif light.kind in ("bulb", "spot"):
            data = bpy.data.lights.new(f"light{i}", "SPOT" if light.kind == "spot" else "POINT")
            data.shadow_soft_size = light.size
            if light.kind == "spot":
                data.spot_size = light.spot_size
                data.spot_blend = light.spot_blend
            irradiance_per_w = cos_recv / (4 * math.pi * dist**2)
        else:
            data = bpy.data.lights.new(f"light{i}", "SUN")
            data.angle = light.size
            irradiance_per_w = cos_recv
        data.use_temperature = True
        data.temperature = light.kelvin
        power = light.weight / irradiance_per_w
        data.energy = power
        obj = bpy.data.objects.new(f"light{i}", data)
        bpy.context.scene.collection.objects.link(obj)
        # Point the light's -z at its target.
        z = -to / dist
        hint = np.array([0.0, 0.0, 1.0]) if abs(z[2]) < 0.99 else np.array([0.0, 1.0, 0.0])
        x = np.cross(hint, z)
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        _place(obj, np.stack([x, y, z], axis=1), light.position)
        total += light.weight
    return total


def light_color(lights: Sequence[LightPlan]) -> np.ndarray:
    """The mix of the lights' colours at the table centre (linear RGB, green = 1)."""
    mix = np.zeros(3)
    for light in lights:
        data = bpy.data.lights.new("probe", "POINT")
        data.temperature = light.kelvin
        mix += np.array(data.temperature_color[:3]) * light.weight
        bpy.data.lights.remove(data)
    return mix / mix[1]


def show(obj: bpy.types.Object, shown: bool) -> None:
    """In or out of the render and of the ray casts (which see the viewport's objects)."""
    obj.hide_render = not shown
    obj.hide_viewport = not shown


def build(scene: Scene) -> dict[str, list[bpy.types.Object]]:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bscene = bpy.context.scene
    groups: dict[str, list[bpy.types.Object]] = {
        "dice": [],
        "check": [],
        "card": [],
        "tessons": [],
        "edge": [],
        "markers": [],
    }
    # The table.
    bpy.ops.mesh.primitive_plane_add(size=4.0)
    table = bpy.context.active_object
    table.name = "table"
    table.data.materials.append(table_material(scene))
    # The world: a dim ambient light of the room, tinted like the lights.
    world = bpy.data.worlds.new("room")
    bscene.world = world
    world.use_nodes = True
    background = world.node_tree.nodes["Background"]
    tint = light_color(scene.lights)
    background.inputs["Color"].default_value = _rgba(tint / tint.max())
    total = add_lights(scene)
    scene.post["irradiance"] = total * (1 + scene.world_ambient)
    background.inputs["Strength"].default_value = scene.world_ambient * total / math.pi
    for marker_id, centre, turn in scene.markers:
        groups["markers"].append(add_marker(marker_id, centre, turn))
    mesh = die_mesh()
    for i, die in enumerate(scene.dice):
        groups["dice"].append(add_die(die, scene.plastics, mesh, f"die{i}"))
    for i, die in enumerate(scene.check_dice):
        obj = add_die(die, scene.plastics, mesh, f"check{i}")
        show(obj, False)
        groups["check"].append(obj)
    if scene.check_card is not None:
        obj = add_check_card(scene.check_card)
        show(obj, False)
        groups["card"].append(obj)
    for i, tesson in enumerate(scene.tessons):
        groups["tessons"].append(add_tesson(tesson, f"tesson{i}", scene.seed * 100 + i))
    if scene.edge_object == "hand":
        groups["edge"] += add_hand(scene.edge_params)
    elif scene.edge_object == "cup":
        groups["edge"].append(add_cup(scene.edge_params))
    # The camera.
    cam = bpy.data.cameras.new("camera")
    cam.sensor_fit = "HORIZONTAL"
    cam.sensor_width = 36.0
    cam.clip_start = 0.01
    cam.clip_end = 20.0
    cam_obj = bpy.data.objects.new("camera", cam)
    bscene.collection.objects.link(cam_obj)
    _place(cam_obj, scene.camera.axes, scene.camera.position)
    bscene.camera = cam_obj
    return groups


def configure(scene: Scene, samples: int, threads: int, overscan: tuple[int, int]) -> None:
    bscene = bpy.context.scene
    render = bscene.render
    render.engine = "CYCLES"
    cycles = bscene.cycles
    cycles.device = "CPU"
    cycles.samples = samples
    cycles.use_adaptive_sampling = True
    cycles.adaptive_threshold = 0.02
    cycles.use_denoising = True
    cycles.denoiser = "OPENIMAGEDENOISE"
    cycles.denoising_input_passes = "RGB_ALBEDO_NORMAL"
    cycles.denoising_prefilter = "FAST"
    cycles.max_bounces = 4
    cycles.diffuse_bounces = 2
    cycles.glossy_bounces = 2
    cycles.transmission_bounces = 2
    cycles.transparent_max_bounces = 4
    cycles.volume_bounces = 0
    cycles.caustics_reflective = False
    cycles.caustics_refractive = False
    cycles.blur_glossy = 1.0
    cycles.seed = scene.seed % (1 << 31)
    render.threads_mode = "FIXED"
    render.threads = threads
    mx, my = overscan
    cam = bscene.camera.data
    render.resolution_x = scene.camera.width + 2 * mx
    render.resolution_y = scene.camera.height + 2 * my
    render.resolution_percentage = 100
    render.pixel_aspect_x = render.pixel_aspect_y = 1.0
    cam.lens = scene.camera.focal_px * cam.sensor_width / render.resolution_x
    render.use_border = False
    render.use_crop_to_border = False
    render.film_transparent = False
    settings = render.image_settings
    settings.file_format = "OPEN_EXR"
    settings.color_depth = "32"
    settings.exr_codec = "NONE"
    settings.color_mode = "RGB"
    bscene.view_settings.view_transform = "Standard"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Blender's render log goes to /dev/null (our own progress lines stay)."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(devnull)
        os.close(saved)


def render_exr(path: Path, border: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Render to a linear float image (H, W, 3) BGR; ``border`` = (x0, y0, x1, y1) in pixels
    of the full (overscanned) render, cropped to it."""
    bscene = bpy.context.scene
    render = bscene.render
    if border is not None:
        x0, y0, x1, y1 = border
        rw, rh = render.resolution_x, render.resolution_y
        render.use_border = True
        render.use_crop_to_border = True
        render.border_min_x = (x0 + 0.25) / rw
        render.border_max_x = (x1 + 0.25) / rw
        render.border_min_y = (rh - y1 + 0.25) / rh
        render.border_max_y = (rh - y0 + 0.25) / rh
    render.filepath = str(path)
    with quiet():
        bpy.ops.render.render(write_still=True)
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise RuntimeError(f"Blender wrote no image at {path}")
    if border is not None and image.shape[:2] != (border[3] - border[1], border[2] - border[0]):
        raise RuntimeError(f"the crop is {image.shape[1]}×{image.shape[0]}, not the border asked")
    return image[..., :3].astype(np.float32)


# ---------------------------------------------------------------------------------------------
# Ground truth


def _ray_visible(points: np.ndarray, own: set[str], origin: np.ndarray) -> float:
    """Share of ``points`` seen from ``origin`` (no other object in between)."""
    bscene = bpy.context.scene
    depsgraph = bpy.context.evaluated_depsgraph_get()
    seen = 0
    o = Vector(tuple(origin))
    for p in points:
        direction = Vector(tuple(p)) - o
        distance = direction.length - 0.0002
        direction.normalize()
        hit, _loc, _normal, _index, obj, _m = bscene.ray_cast(
            depsgraph, o, direction, distance=distance
        )
        if not hit or obj.name in own:
            seen += 1
    return seen / len(points)


def die_truth(
    die: DiePlan, plastic: Plastic, camera: CameraPlan, name: str, offset: tuple[int, int] = (0, 0)
) -> dict:
    centre, corners, hole = die.top_face()
    top = camera.project(corners) - offset
    c = camera.project(centre[None])[0] - offset
    area = 0.5 * abs(
        float(np.dot(top[:, 0], np.roll(top[:, 1], -1)) - np.dot(top[:, 1], np.roll(top[:, 0], -1)))
    )
    edges = np.roll(top, -1, axis=0) - top
    theta = np.arctan2(edges[:, 1], edges[:, 0]) * 4
    angle = math.degrees(math.atan2(np.sin(theta).mean(), np.cos(theta).mean())) / 4 % 90.0
    if angle >= 90.0:
        angle = 0.0
    # Visibility of the top face: a 6×6 grid of points over it (just above it).
    g = (np.arange(6) + 0.5) / 6 * 2 - 1
    u = (corners[1] - corners[0]) / 2
    v = (corners[3] - corners[0]) / 2
    up = np.cross(u, v)
    up = up / np.linalg.norm(up) * (1 if up[2] > 0 else -1)
    grid = np.array([centre + a * u * 0.94 + b * v * 0.94 + up * 0.0001 for a in g for b in g])
    visible = _ray_visible(grid, {name}, camera.position)
    return {
        "x": round(float(c[0]), 3),
        "y": round(float(c[1]), 3),
        "size": round(math.sqrt(area), 3),
        "angle": round(angle, 2) % 90.0,
        "color": die.color,
        "plastic": plastic.plastic,
        "finish": plastic.finish,
        "hole": bool(hole),
        "pose": die.pose,
        "visible": round(visible, 3),
        "side_mm": round(die.side * 1000, 2),
    }


def tesson_truth(plan: TessonPlan, camera: CameraPlan, name: str) -> dict:
    top = np.r_[plan.centre, plan.thickness][None]
    c = camera.project(top)[0]
    hull = _hull(plan.outline)
    lo, hi = hull.min(0), hull.max(0)
    g = np.stack(
        np.meshgrid(np.linspace(lo[0], hi[0], 9), np.linspace(lo[1], hi[1], 9)), -1
    ).reshape(-1, 2)
    inside = [
        p
        for p in g
        if cv2.pointPolygonTest(hull.astype(np.float32), (float(p[0]), float(p[1])), True) > 0.001
    ]
    pts = np.c_[np.array(inside), np.full(len(inside), plan.thickness + 0.0001)]
    visible = _ray_visible(pts, {name}, camera.position) if len(pts) else 1.0
    outline = camera.project(np.c_[hull, np.full(len(hull), plan.thickness)])
    (_, (w, h), _) = cv2.minAreaRect(outline.astype(np.float32))
    return {
        "x": round(float(c[0]), 3),
        "y": round(float(c[1]), 3),
        "size": round(float(min(w, h)), 2),
        "side": plan.side,
        "printed": plan.printed,
        "card": plan.card,
        "sleeve": plan.sleeve,
        "seat": plan.seat,
        "visible": round(visible, 3),
    }


def marker_truth(scene: Scene, groups: dict[str, list[bpy.types.Object]]) -> list[dict]:
    """The markers a detector can see whole: the black square and half its quiet zone in
    frame, with nothing over them (a 9×9 grid of rays)."""
    out = []
    camera = scene.camera
    for (marker_id, centre, turn), obj in zip(scene.markers, groups["markers"], strict=True):
        corners3 = marker_corners(centre, turn)
        border = np.c_[marker_paper(centre, turn, grow=-QUIET / 2), np.full(4, PAPER)]
        if not camera.in_frame(border, 1.0):
            continue
        g = np.linspace(0.0, 1.0, 9)
        u, v = border[1] - border[0], border[3] - border[0]
        pts = np.array([border[0] + a * u + b * v for a in g for b in g])
        pts[:, 2] += 0.0001
        if _ray_visible(pts, {obj.name}, camera.position) < 1.0:
            continue
        px = camera.project(corners3)
        out.append(
            {"id": marker_id, "corners": [[round(float(x), 3), round(float(y), 3)] for x, y in px]}
        )
    return out


# ---------------------------------------------------------------------------------------------
# The camera's faults, after rendering


def post_process(
    linear: np.ndarray,
    scene: Scene,
    overscan: tuple[int, int],
    region: tuple[int, int, int, int],
    source_origin: tuple[int, int],
    gain: float | None,
    illuminant: np.ndarray,
) -> tuple[np.ndarray, float]:
    """Linear BGR render → the camera's 8-bit BGR frame (before JPEG) for the output pixels
    ``region`` = (x0, y0, x1, y1) of the final frame; ``linear``'s pixel (0, 0) is pixel
    ``source_origin`` of the overscanned render. ``gain``: the exposure (None: measure it)."""
    camera = scene.camera
    post = scene.post
    rng = np.random.default_rng([post["noise_seed"], region[0], region[1]])
    image = linear.copy()
    if post["motion_blur_px"] > 0:
        length = post["motion_blur_px"]
        size = math.ceil(length) * 2 + 1
        kernel = np.zeros((size, size), np.float32)
        a = math.radians(post["motion_angle"])
        for s in np.linspace(-length / 2, length / 2, 4 * size):
            kernel[round(size // 2 + s * math.sin(a)), round(size // 2 + s * math.cos(a))] += 1
        image = cv2.filter2D(image, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REFLECT)
    # Lens: each output pixel takes the ideal image at its undistorted position.
    x0, y0, x1, y1 = region
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float64)
    ideal = truth.undistort(
        np.c_[xx.ravel(), yy.ravel()], camera.width, camera.height, camera.focal_px, camera.k1
    )
    mx, my = overscan
    map_x = (ideal[:, 0] + mx - source_origin[0]).reshape(xx.shape).astype(np.float32)
    map_y = (ideal[:, 1] + my - source_origin[1]).reshape(xx.shape).astype(np.float32)
    image = cv2.remap(image, map_x, map_y, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
    image = np.maximum(image, 0)
    # Vignetting.
    cx, cy = camera.width / 2 - 0.5, camera.height / 2 - 0.5
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (cx**2 + cy**2)
    image *= (1 - post["vignette"] * r2).astype(np.float32)[..., None]
    # Auto white balance (partial) then the white-balance error, in BGR order.
    awb = (1 / illuminant) ** post["awb_strength"]
    wb = np.array(post["white_balance"])
    gains = (awb * wb)[::-1].astype(np.float32)
    image *= gains
    if gain is None:
        # Auto-exposure, part way between metering the light (white paper at 0.8) and
        # metering the frame (a mean grey of 0.18): a dark cloth stays darker than a light one.
        lum = image @ np.array([0.0722, 0.7152, 0.2126], np.float32)
        level = 0.5 * (float(np.mean(np.minimum(lum, 1.5))) + float(np.median(lum)))
        frame = 0.18 / max(level, 1e-6)
        incident = 0.8 * math.pi / (0.92 * post["irradiance"])
        w = post["metering"]
        gain = post["exposure_bias"] * frame**w * incident ** (1 - w)
    image *= gain
    # Tone: a soft shoulder, the sRGB curve, the camera's saturation.
    knee = 0.75
    image = np.where(image < knee, image, knee + (1 - knee) * np.tanh((image - knee) / (1 - knee)))
    image = np.clip(image, 0, 1)
    display = np.where(image <= 0.0031308, image * 12.92, 1.055 * np.power(image, 1 / 2.4) - 0.055)
    grey = display.mean(axis=2, keepdims=True)
    display = grey + (display - grey) * post["saturation"]
    display = display * 255.0
    # Sensor noise (signal-dependent, a little correlated by demosaicing) and sharpening.
    sigma = post["noise"] * np.sqrt((display.mean(axis=2, keepdims=True) / 255.0 + 0.08) / 0.58)
    noise = rng.normal(0, 1, display.shape).astype(np.float32)
    noise = cv2.GaussianBlur(noise, (0, 0), 0.6) * 1.9
    display = display + noise * sigma
    if post["sharpen"] > 0:
        soft = cv2.GaussianBlur(display.astype(np.float32), (0, 0), 1.2)
        display = display + post["sharpen"] * (display - soft)
    return np.clip(display + 0.5, 0, 255).astype(np.uint8), gain


def write_jpeg(path: Path, image: np.ndarray, quality: int) -> None:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError(f"cannot encode {path}")
    path.write_bytes(data.tobytes())


# ---------------------------------------------------------------------------------------------
# One scene


def render_scene(
    kind: str,
    seed: int,
    out: Path,
    samples: int,
    width: int,
    height: int,
    threads: int,
    with_before: bool = False,
) -> dict:
    scene = plan_scene(kind, seed, width, height)
    camera = scene.camera
    stem = f"{kind}-{seed:06d}"
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="render-") as tmp:
        work = Path(tmp)
        groups = build(scene)
        overscan = camera.overscan()
        configure(scene, samples, threads, overscan)
        illuminant = light_color(scene.lights)
        # Ground truth from the scene as it will be rendered.
        dice = [
            die_truth(d, scene.plastics[d.color], camera, obj.name)
            for d, obj in zip(scene.dice, groups["dice"], strict=True)
        ]
        tessons = [
            tesson_truth(t, camera, obj.name)
            for t, obj in zip(scene.tessons, groups["tessons"], strict=True)
        ]
        markers = marker_truth(scene, groups)
        linear = render_exr(work / "scene.exr")
        image, gain = post_process(
            linear, scene, overscan, (0, 0, width, height), (0, 0), None, illuminant
        )
        write_jpeg(out / f"{stem}.jpg", image, scene.post["jpeg_quality"])
        scene_s = time.perf_counter() - started
        before = None
        before_s = 0.0
        if with_before:
            started = time.perf_counter()
            before = render_before(scene, groups, work, overscan, illuminant, out, stem)
            before_s = time.perf_counter() - started
        check = None
        check_s = 0.0
        if scene.check_dice:
            started = time.perf_counter()
            check = render_check(scene, groups, work, overscan, gain, illuminant, out, stem)
            check.update(gain=round(gain, 6), metered="scene")
            check_s = time.perf_counter() - started
    light = light_class(scene.lights)
    key = scene.lights[0]
    hard = key.kind in ("bulb", "spot") or (key.kind == "sun" and key.size < math.radians(2.0))
    record = {
        "format": truth.FORMAT,
        "version": truth.VERSION,
        "kind": kind,
        "seed": seed,
        "image": f"{stem}.jpg",
        "width": width,
        "height": height,
        "conditions": {
            "table": scene.table,
            "table_family": scene.table_family,
            "light": light,
            "lights": len(scene.lights),
            "light_kinds": [light_.kind for light_ in scene.lights],
            "kelvin": [round(light_.kelvin) for light_ in scene.lights],
            "exposure": scene.exposure,
            "hotspot": any(light_.kind == "spot" for light_ in scene.lights),
            "shadows": "hard" if hard else "soft",
            "camera_height_mm": round(camera.height_m * 1000, 1),
            "tilt_deg": round(camera.tilt_deg, 2),
            "roll_deg": round(camera.roll_deg, 2),
            "focal_px": round(camera.focal_px, 3),
            "hfov_deg": round(2 * math.degrees(math.atan(width / 2 / camera.focal_px)), 2),
            "white_balance": [round(v, 4) for v in scene.post["white_balance"]],
            "distortion_k1": round(camera.k1, 5),
            "vignette": round(scene.post["vignette"], 3),
            "noise": round(scene.post["noise"], 2),
            "motion_blur_px": round(scene.post["motion_blur_px"], 2),
            "jpeg_quality": scene.post["jpeg_quality"],
            "edge_object": scene.edge_object,
            "samples": samples,
        },
        "markers": markers,
        "dice": dice,
        "tessons": tessons,
        "seats": {
            "polygons": [
                [
                    [round(float(x), 2), round(float(y), 2)]
                    for x, y in camera.project(np.c_[z, np.zeros(len(z))])
                ]
                for z in scene.zones
            ]
        }
        if scene.zones
        else None,
        "check": check,
        "render_s": {"scene": round(scene_s, 1), "check": round(check_s, 1), "threads": threads},
    }
    if before is not None:
        record["before"] = before
        record["render_s"]["before"] = round(before_s, 1)
    (out / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def render_before(
    scene: Scene,
    groups: dict[str, list[bpy.types.Object]],
    work: Path,
    overscan: tuple[int, int],
    illuminant: np.ndarray,
    out: Path,
    stem: str,
) -> dict:
    """The frame the camera saw before: the same table, lights and camera, the scene's dice
    (still in the cup), tessons (still in the players' hands) and hand or cup taken away, the
    table alone. The camera meters it anew and its sensor noise and Cycles' sampling are drawn
    afresh, as two real frames a minute apart would be. The objects are shown again after."""
    hidden = [obj for name in ("dice", "tessons", "edge") for obj in groups[name]]
    for obj in hidden:
        show(obj, False)
    bscene = bpy.context.scene
    seed, noise_seed = bscene.cycles.seed, scene.post["noise_seed"]
    bscene.cycles.seed = (seed + 1) % (1 << 31)
    scene.post["noise_seed"] = noise_seed + 1
    try:
        linear = render_exr(work / "before.exr")
        w, h = scene.camera.width, scene.camera.height
        image, gain = post_process(linear, scene, overscan, (0, 0, w, h), (0, 0), None, illuminant)
    finally:
        bscene.cycles.seed, scene.post["noise_seed"] = seed, noise_seed
        for obj in hidden:
            show(obj, True)
    write_jpeg(out / f"{stem}-before.jpg", image, scene.post["jpeg_quality"])
    return {"image": f"{stem}-before.jpg", "gain": round(gain, 6)}


def rerender_before(kind: str, seed: int, out: Path, threads: int) -> dict:
    """Render only the before frame of a scene already in ``out`` and add it to its JSON (the
    scene's image and truth stay as they are). The scene is planned again from (kind, seed)
    and must agree with the JSON."""
    stem = f"{kind}-{seed:06d}"
    path = out / f"{stem}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    scene = plan_scene(kind, seed, record["width"], record["height"])
    _same_plan(scene, record, path)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="render-") as tmp:
        work = Path(tmp)
        groups = build(scene)
        overscan = scene.camera.overscan()
        configure(scene, int(record["conditions"]["samples"]), threads, overscan)
        illuminant = light_color(scene.lights)
        record["before"] = render_before(scene, groups, work, overscan, illuminant, out, stem)
    record.setdefault("render_s", {})["before"] = round(time.perf_counter() - started, 1)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def _same_plan(scene: Scene, record: dict, path: Path) -> None:
    """Stop unless the scene planned now has the dice and tessons that ``record`` holds."""
    camera = scene.camera
    planned = sorted(
        (d.color, *np.round(camera.project(d.top_face()[0][None])[0], 2)) for d in scene.dice
    ) + sorted(
        (t.side, *np.round(camera.project(np.r_[t.centre, t.thickness][None])[0], 2))
        for t in scene.tessons
    )
    recorded = sorted((d["color"], round(d["x"], 2), round(d["y"], 2)) for d in record["dice"])
    recorded += sorted((t["side"], round(t["x"], 2), round(t["y"], 2)) for t in record["tessons"])
    if len(planned) != len(recorded) or any(
        a[0] != b[0] or abs(a[1] - b[1]) > 0.02 or abs(a[2] - b[2]) > 0.02
        for a, b in zip(planned, recorded, strict=True)
    ):
        raise SystemExit(f"{path}: its dice or tessons are not those of {scene.kind} {scene.seed}")


def render_check(
    scene: Scene,
    groups: dict[str, list[bpy.types.Object]],
    work: Path,
    overscan: tuple[int, int],
    gain: float,
    illuminant: np.ndarray,
    out: Path,
    stem: str,
) -> dict:
    """The colour-check frame: the same table, lights, camera and camera faults (the scene's
    exposure ``gain``), the scene's dice, tessons and hand or cup taken away, the printed check
    card laid with its four dice; rendered with a border round the card and cropped."""
    camera = scene.camera
    card = scene.check_card
    assert card is not None
    for name in ("dice", "tessons", "edge"):
        for obj in groups[name]:
            show(obj, False)
    for obj in groups["check"] + groups["card"]:
        show(obj, True)
    outline = card.outline()
    for (_, centre, turn), obj in zip(scene.markers, groups["markers"], strict=True):
        if _overlap(marker_paper(centre, turn), outline, 0.001):
            show(obj, False)  # the host moved it to lay the card
    # The card's edges (curved by the lens) and the dice, in the final frame.
    t = np.linspace(0.0, 1.0, 24)[:, None]
    edges = np.vstack([outline[i] + t * (outline[(i + 1) % 4] - outline[i]) for i in range(4)])
    px = camera.project(
        np.vstack(
            [np.c_[edges, np.full(len(edges), PAPER)]] + [d.corners() for d in scene.check_dice]
        )
    )
    pad = 1.2 * float(np.ptp(px[:, 0])) / 8
    x0 = max(0, math.floor(px[:, 0].min() - pad))
    y0 = max(0, math.floor(px[:, 1].min() - pad))
    x1 = min(camera.width, math.ceil(px[:, 0].max() + pad))
    y1 = min(camera.height, math.ceil(px[:, 1].max() + pad))
    # The ideal pixels that the crop's distorted pixels need, plus a margin for the filters.
    edge = np.array(
        [[x, y] for x in np.linspace(x0, x1, 20) for y in (y0, y1)]
        + [[x, y] for y in np.linspace(y0, y1, 20) for x in (x0, x1)]
    )
    ideal = truth.undistort(edge, camera.width, camera.height, camera.focal_px, camera.k1)
    mx, my = overscan
    bx0 = max(0, math.floor(ideal[:, 0].min()) + mx - 6)
    by0 = max(0, math.floor(ideal[:, 1].min()) + my - 6)
    bx1 = min(camera.width + 2 * mx, math.ceil(ideal[:, 0].max()) + mx + 7)
    by1 = min(camera.height + 2 * my, math.ceil(ideal[:, 1].max()) + my + 7)
    linear = render_exr(work / "check.exr", (bx0, by0, bx1, by1))
    image, _ = post_process(linear, scene, overscan, (x0, y0, x1, y1), (bx0, by0), gain, illuminant)
    write_jpeg(out / f"{stem}-check.jpg", image, scene.post["jpeg_quality"])
    dice = [
        die_truth(d, scene.plastics[d.color], camera, obj.name, (x0, y0))
        for d, obj in zip(scene.check_dice, groups["check"], strict=True)
    ]
    return {
        "image": f"{stem}-check.jpg",
        "offset": [x0, y0],
        "card_turn_deg": round(card.turn, 2),
        "markers": card_marker_truth(card, camera, groups["card"][0].name, (x0, y0)),
        "dice": dice,
    }


def card_marker_truth(
    card: CardPlan, camera: CameraPlan, name: str, offset: tuple[int, int]
) -> list[dict]:
    """The check card's marker in the check image's pixels, when nothing is over it or over
    half a module of paper round it (a 9×9 grid of rays); else none."""
    m, q = CHECK_MARKER_MM, CHECK_MARKER_MM / MODULES / 2
    x, y = MARKER_AT
    g = np.linspace(0.0, 1.0, 9)
    mm = np.array([[x - q + a * (m + 2 * q), y - q + b * (m + 2 * q)] for a in g for b in g])
    pts = np.c_[card.to_table(mm), np.full(len(mm), PAPER + 0.0001)]
    if _ray_visible(pts, {name}, camera.position) < 1.0:
        print("  the check card's marker is covered: no marker in the check's truth", flush=True)
        return []
    px = camera.project(card.marker_corners()) - np.asarray(offset, float)
    return [
        {"id": CHECK_MARKER, "corners": [[round(float(u), 3), round(float(v), 3)] for u, v in px]}
    ]


def meter_preview(
    scene: Scene, work: Path, overscan: tuple[int, int], illuminant: np.ndarray, scale: int
) -> float:
    """The scene's auto-exposure, metered on a render at 1/``scale`` of the size, brought back
    to full size (for a check frame re-rendered without the scene's own exposure)."""
    render = bpy.context.scene.render
    full = (render.resolution_x, render.resolution_y)
    render.resolution_percentage = round(100 / scale)
    try:
        small = render_exr(work / "preview.exr")
    finally:
        render.resolution_percentage = 100
    linear = cv2.resize(small, full, interpolation=cv2.INTER_LINEAR)
    w, h = scene.camera.width, scene.camera.height
    _, gain = post_process(linear, scene, overscan, (0, 0, w, h), (0, 0), None, illuminant)
    return gain


def rerender_check(kind: str, seed: int, out: Path, threads: int, preview: int) -> dict | None:
    """Render again only the check frame of a scene already in ``out`` and rewrite its JSON's
    ``check`` (the scene's image and its truth stay as they are). The scene is planned again
    from (kind, seed) and must agree with the JSON; the exposure is the one the JSON's check
    records, else metered on a preview render (``preview``: 1/preview of the size)."""
    stem = f"{kind}-{seed:06d}"
    path = out / f"{stem}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    scene = plan_scene(kind, seed, record["width"], record["height"])
    if not scene.check_dice:
        return None
    camera = scene.camera
    _same_plan(scene, record, path)
    previous = record.get("check") or {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="render-") as tmp:
        work = Path(tmp)
        groups = build(scene)
        overscan = camera.overscan()
        configure(scene, int(record["conditions"]["samples"]), threads, overscan)
        illuminant = light_color(scene.lights)
        if previous.get("gain") is not None:
            gain, metered = float(previous["gain"]), previous.get("metered", "scene")
        else:
            gain, metered = meter_preview(scene, work, overscan, illuminant, preview), "preview"
        check = render_check(scene, groups, work, overscan, gain, illuminant, out, stem)
        check.update(gain=round(gain, 6), metered=metered)
    record["check"] = check
    record.setdefault("render_s", {})["check"] = round(time.perf_counter() - started, 1)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


# ---------------------------------------------------------------------------------------------


def seeds(text: str) -> list[int]:
    """``0:8`` (0 to 7), ``5``, or ``1,4,9``."""
    out: list[int] = []
    for part in text.split(","):
        if ":" in part:
            a, b = part.split(":", 1)
            out += range(int(a), int(b))
        else:
            out.append(int(part))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--seeds", type=seeds, required=True, help="0:8, 5 or 1,4,9")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--force", action="store_true", help="render again scenes already there")
    parser.add_argument(
        "--check-only",
        action="store_true",
        help="render again only the colour-check frames of scenes already in --out",
    )
    parser.add_argument(
        "--before",
        action="store_true",
        help="also the frame of the table before the throw or the reveal (STEM-before.jpg); "
        "for scenes already in --out, only that frame",
    )
    parser.add_argument(
        "--preview",
        type=int,
        default=4,
        help="--check-only: meter the exposure at 1/N size when the JSON does not record it",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in args.seeds:
        stem = f"{args.kind}-{seed:06d}"
        if args.check_only:
            if not (args.out / f"{stem}.json").exists():
                print(f"{stem}: not rendered in {args.out}", flush=True)
                continue
            record = rerender_check(args.kind, seed, args.out, args.threads, args.preview)
            if record is None:
                print(f"{stem}: no check frame", flush=True)
                continue
            check = record["check"]
            print(
                f"{stem}: check frame {record['render_s']['check']} s, exposure "
                f"{check['gain']:.4f} ({check['metered']}), {len(check['markers'])} marker",
                flush=True,
            )
            continue
        if not args.force and (args.out / f"{stem}.json").exists():
            if args.before and not (args.out / f"{stem}-before.jpg").exists():
                record = rerender_before(args.kind, seed, args.out, args.threads)
                print(f"{stem}: before frame {record['render_s']['before']} s", flush=True)
            else:
                print(f"{stem}: already there", flush=True)
            continue
        record = render_scene(
            args.kind,
            seed,
            args.out,
            args.samples,
            args.width,
            args.height,
            args.threads,
            args.before,
        )
        c = record["conditions"]
        print(
            f"{stem}: {record['render_s']['scene']} s (+{record['render_s']['check']} s check, "
            f"+{record['render_s'].get('before', 0)} s before), "
            f"{c['table']}, {c['light']} x{c['lights']}, {c['exposure']}, "
            f"{len(record['dice'])} dice, {len(record['tessons'])} tessons, "
            f"{len(record['markers'])} markers",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
