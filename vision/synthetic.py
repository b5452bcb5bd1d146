"""Synthetic overhead scenes with exact ground truth: Oraklos cubes and Ostrakon tessons.

There are no public photos of Oraklos cubes or Ostrakon tessons, so the readers are measured on
scenes rendered here, with every hard case the real table brings as a knob (docs/vision/
scenes.md). The renderer is a small 3D one: a pinhole camera at ``DISTANCE`` mm above the table
centre, optionally tilted; each cube is a real box of side ``SIZE`` mm whose visible side faces
and top face are projected and painted (far objects first), with darker rounded edges, a hole
drawn as a round dark well with its inner wall, soft cast shadows and contact shadows; then
light, blur and noise. Rendering is supersampled (``SUPERSAMPLE``) and averaged down, so edges
are anti-aliased like a camera's.

Ground truth is the projection of each top face: centre = projected centre of the top face,
size = square root of the projected face's area, angle = mean direction of its edges (degrees,
clockwise on screen, in [0, 90)), all in pixels of the returned image.

Photo-like backgrounds (``table="photo"``) are crops of the real dice photos in
``/work/shared/data/dice-photos`` (BSD 3-Clause, Nell Byler): the grey tray floor, with the
labelled dice painted out (``cv2.inpaint``), upscaled, so real texture, real light fall-off and
real JPEG/sensor noise are under the rendered cubes. Without the photos that table is refused.

Ordinary pip dice (``pip_scene``, for game night's simulated camera) are drawn the same way with
rounded edges and pips in the standard layouts, sized like the dice of those photos relative to
the frame's short side, so that the pip reader (trained on the photos only) reads them; a scene
can keep some dice of an earlier one exactly where they lay (re-rolls).
"""

from __future__ import annotations

import csv
import functools
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypedDict, Unpack

import cv2
import numpy as np

from vision import scene_effects as effects
from vision.arrays import Colours, FloatImage, Image, Matrix, Points, f32, f64, u8
from vision.calibration import CHECK_MARKER
from vision.readings import DieReading, Side, TessonReading
from vision.seats import SeatMap
from vision.synthetic_cards import (
    LIFT,
    SLEEVE,
    STOCKS,
    Card,
    Sheen,
    card_size,
    paint_card,
    share_inside,
)

COLORS = ("red", "yellow", "blue", "black")
SIZE = 16.0
"""Side of an Oraklos cube, mm."""
DISTANCE = 700.0
"""Camera to table centre, mm."""
SUPERSAMPLE = 2
HOLE_RADIUS = 0.19
"""Radius of the hole, as a share of the side."""

# Colours in display BGR (0-255) under the reference light.
ALBEDO = {
    "red": (48, 42, 196),
    "yellow": (42, 196, 222),
    "blue": (160, 88, 34),
    "black": (54, 52, 50),
}
FELT = (58, 112, 44)
DARK = (42, 39, 38)
WOOD_LIGHT = (92, 142, 188)
WOOD_DARK = (52, 92, 140)
WHITE_TESSON = (222, 226, 228)
BLACK_TESSON = (30, 30, 32)
TESSON_BACK = (70, 100, 175)  # a tesson face down: terracotta, neither white nor black

TABLES = ("felt", "wood", "dark", "photo")
CUBE_TABLES = (*TABLES, *effects.WIDE_TABLES, effects.FLOWERED, effects.STRIPED)
"""Tables of ``cube_scene``: those of every scene, and the wider world's (``scene_effects``)."""
LIGHTS = ("even", "uneven", "spot")
PHOTOS = Path(
    os.environ.get("DICE_PHOTOS", Path(__file__).resolve().parents[2] / "shared/data/dice-photos")
)


@dataclass(frozen=True)
class Scene:
    """A rendered frame and what lies on it, in pixels of the frame (confidence 1.0).

    ``markers``: the calibration markers on the table (``cube_scene(markers=True)``), id to
    the four corners of its black square (its own TL, TR, BR, BL, like
    ``vision.calibration.detect_markers``); ``leaning``: indices in ``dice`` of the dice that
    lean on another; ``partly_hidden``: indices in ``dice`` of those partly (at most half)
    hidden by a hand or a cup at the edge."""

    image: Image
    dice: tuple[DieReading, ...] = ()
    tessons: tuple[TessonReading, ...] = ()
    seats: SeatMap | None = None
    markers: dict[int, Points] = field(default_factory=dict)
    leaning: tuple[int, ...] = ()
    partly_hidden: tuple[int, ...] = ()


@dataclass(frozen=True)
class Camera:
    """A pinhole camera looking at the table centre from ``distance`` mm, tilted by ``tilt``
    degrees towards the top of the frame. World: x right, y towards the bottom of the frame,
    z up, mm, origin at the table centre."""

    width: int
    height: int
    focal: float
    distance: float
    tilt: float

    @property
    def position(self) -> Points:
        t = math.radians(self.tilt)
        return np.array([0.0, -self.distance * math.sin(t), self.distance * math.cos(t)])

    def project(self, points: Points) -> Points:
        """(N, 3) world points to (N, 2) pixels."""
        t = math.radians(self.tilt)
        forward = np.array([0.0, math.sin(t), -math.cos(t)])
        down = np.array([0.0, math.cos(t), math.sin(t)])
        rel = np.asarray(points, dtype=np.float64).reshape(-1, 3) - self.position
        depth = rel @ forward
        u = self.width / 2 + self.focal * rel[:, 0] / depth
        v = self.height / 2 + self.focal * (rel @ down) / depth
        return np.stack([u, v], axis=1)

    def table_homography(self) -> Matrix:
        """Table plane (x, y mm) to pixels."""
        src = np.array([[-100, -100], [100, -100], [100, 100], [-100, 100]], dtype=np.float64)
        dst = self.project(np.c_[src, np.zeros(4)])
        return f64(cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)))

    def to_table(self, pixels: Points) -> Points:
        inverse = np.linalg.inv(self.table_homography())
        pts = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        return f64(cv2.perspectiveTransform(pts, inverse).reshape(-1, 2))


# ---------------------------------------------------------------------------------------------
# Placement


@dataclass(frozen=True)
class _Cube:
    """A cube on the table: centre and turn, colour, hole and albedo; ``lean`` > 0 tilts it by
    that many degrees about its bottom edge away from ``lean_dir`` (the direction, degrees, in
    which its other bottom edge is lifted, propped against a neighbour); ``base`` > 0 lifts it
    that many mm (a cube lying on top of another, in a pile); ``gloss``: glossy plastic."""

    x: float
    y: float
    angle: float
    color: str
    hole: bool
    albedo: tuple[float, float, float]
    lean: float = 0.0
    lean_dir: float = 0.0
    gloss: bool = False
    base: float = 0.0

    def square(self, grow: float = 0.0) -> Points:
        half = SIZE / 2 + grow
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        return np.array(
            [
                (self.x + dx * c - dy * s, self.y + dx * s + dy * c)
                for dx, dy in ((-half, -half), (half, -half), (half, half), (-half, half))
            ]
        )

    def corners3d(self) -> Points:
        """The eight corners (mm): bottom face 0-3 then top face 4-7, in ``square``'s order."""
        square = self.square()
        bottom, top = np.full(4, self.base), np.full(4, self.base + SIZE)
        upright = np.vstack([np.c_[square, bottom], np.c_[square, top]])
        if not self.lean:
            return upright
        u = np.array([math.cos(math.radians(self.lean_dir)), math.sin(math.radians(self.lean_dir))])
        v = np.array([-u[1], u[0]])
        rel = upright[:, :2] - (self.x, self.y)
        a, w, z = rel @ u + SIZE / 2, rel @ v, upright[:, 2]
        c, s = math.cos(math.radians(self.lean)), math.sin(math.radians(self.lean))
        a, z = a * c - z * s, a * s + z * c
        flat = np.array([self.x, self.y]) + np.outer(a - SIZE / 2, u) + np.outer(w, v)
        leaning: Points = np.c_[flat, z]
        return leaning

    def footprint(self) -> Points:
        """What it covers of the table (mm): its square, or a leaning cube's outline from above."""
        if not self.lean:
            return self.square()
        return (
            cv2.convexHull(self.corners3d()[:, :2].astype(np.float32))
            .reshape(-1, 2)
            .astype(np.float64)
        )


def _overlap(a: Points, b: Points, tolerance: float = 1e-6) -> bool:
    """Whether two convex polygons overlap by more than ``tolerance`` (separating axes)."""
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            axis = np.array([-edge[1], edge[0]]) / (np.hypot(*edge) or 1.0)
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() + tolerance or pb.max() <= pa.min() + tolerance:
                return False
    return True


def _mix(rng: np.random.Generator, count: int, colors: Sequence[str] | None) -> list[str]:
    if colors is not None:
        for color in colors:
            if color not in COLORS:
                raise ValueError(f"colour {color!r} is not one of {', '.join(COLORS)}")
        return list(colors)
    mix = [COLORS[i % 4] for i in range(count)]
    rng.shuffle(mix)
    return mix


def _jitter_albedo(rng: np.random.Generator, color: str) -> tuple[float, float, float]:
    base = np.array(ALBEDO[color], dtype=np.float64)
    gain = rng.uniform(0.9, 1.08)
    tint = rng.normal(0, 0.03, 3)
    out = np.clip(base * gain * (1 + tint), 0, 255)
    return (float(out[0]), float(out[1]), float(out[2]))


def _place(
    rng: np.random.Generator,
    camera: Camera,
    colors: list[str],
    holes: float,
    touching: bool,
    angles: tuple[float, float],
    margin_px: float,
    keepout: Sequence[Points] = (),
    lens: effects.Distortion | None = None,
) -> list[_Cube]:
    """Cubes of these colours at random on the frame's part of the table, ``margin_px`` inside
    the frame (as seen through ``lens``), off the ``keepout`` polygons (mm)."""
    corners = np.array(
        [
            [margin_px, margin_px],
            [camera.width - margin_px, margin_px],
            [camera.width - margin_px, camera.height - margin_px],
            [margin_px, camera.height - margin_px],
        ]
    )
    table = camera.to_table(corners)
    lo, hi = table.min(axis=0), table.max(axis=0)
    cubes: list[_Cube] = []
    for color in colors:
        for _attempt in range(400):
            angle = float(rng.uniform(*angles)) % 90.0
            if touching and cubes and rng.random() < 0.6:
                partner = cubes[int(rng.integers(len(cubes)))]
                if rng.random() < 0.6:
                    angle = partner.angle
                face = int(rng.integers(4))
                normal_angle = math.radians(partner.angle + 90 * face)
                n = np.array([math.cos(normal_angle), math.sin(normal_angle)])
                t = np.array([-n[1], n[0]])
                delta = math.radians(angle - partner.angle)
                reach = SIZE / 2 * (abs(math.cos(delta)) + abs(math.sin(delta)))
                slide = rng.uniform(-0.55, 0.55) * SIZE
                gap = rng.uniform(0.0, 0.05)
                centre = np.array([partner.x, partner.y]) + n * (SIZE / 2 + reach + gap) + t * slide
                x, y = float(centre[0]), float(centre[1])
            else:
                x, y = float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1], hi[1]))
            cube = _Cube(x, y, angle, color, bool(rng.random() < holes), _jitter_albedo(rng, color))
            pts = camera.project(np.c_[cube.square(), np.full(4, SIZE)])
            base = camera.project(np.c_[cube.square(), np.zeros(4)])
            allp = np.vstack([pts, base])
            if lens is not None:
                allp = lens.apply(allp)
            if (
                allp[:, 0].min() < margin_px
                or allp[:, 1].min() < margin_px
                or allp[:, 0].max() > camera.width - margin_px
                or allp[:, 1].max() > camera.height - margin_px
            ):
                continue
            if any(_overlap(cube.square(), other) for other in keepout):
                continue
            # Apart (a clear gap) unless placed touching: then only no overlap.
            spacing = 0.0 if touching else SIZE * 0.25
            square = cube.square(spacing / 2)
            if any(_overlap(square, other.square(spacing / 2)) for other in cubes):
                continue
            cubes.append(cube)
            break
        else:
            raise ValueError(f"cannot place {len(colors)} dice on this table without overlap")
    return cubes


# ---------------------------------------------------------------------------------------------
# Painting


def _fill(canvas: FloatImage, pts: Points, color: Sequence[float] | Colours) -> None:
    fixed = np.round(pts * SUPERSAMPLE * 16).astype(np.int32)
    cv2.fillPoly(canvas, [fixed], tuple(float(c) for c in color), cv2.LINE_8, 4)


def _outline(
    canvas: FloatImage, pts: Points, color: Sequence[float] | Colours, thickness: float
) -> None:
    fixed = np.round(pts * SUPERSAMPLE * 16).astype(np.int32)
    cv2.polylines(
        canvas,
        [fixed],
        True,
        tuple(float(c) for c in color),
        max(1, round(thickness * SUPERSAMPLE)),
        cv2.LINE_8,
        4,
    )


def _circle3d(cx: float, cy: float, z: float, radius: float, n: int = 40) -> Points:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    circle: Points = np.c_[cx + radius * np.cos(t), cy + radius * np.sin(t), np.full(n, z)]
    return circle


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> FloatImage:
    """Smooth random field, zero mean, unit-ish amplitude, features about ``scale`` pixels."""
    small = (max(2, int(shape[0] / scale) + 2), max(2, int(shape[1] / scale) + 2))
    field = rng.normal(0, 1, small).astype(np.float32)
    out = f32(cv2.resize(field, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC))
    noise: FloatImage = out / (out.std() + 1e-6)
    return noise


@functools.lru_cache(maxsize=8)
def _photo_floor(index: int) -> Image:
    """A grey tray floor from one real photo, the labelled dice painted out."""
    images = sorted((PHOTOS / "images").glob("*.jpg"))
    if not images:
        raise ValueError(f"table 'photo' needs the dice photos in {PHOTOS}")
    path = images[index % len(images)]
    image = cv2.imread(str(path))
    if image is None:
        raise ValueError(f"cannot read {path}")
    mask = np.zeros(image.shape[:2], np.uint8)
    with (PHOTOS / "labels.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["filename"] == path.name:
                x0, y0 = float(row["xmin"]) - 6, float(row["ymin"]) - 6
                x1, y1 = float(row["xmax"]) + 6, float(row["ymax"]) + 6
                cv2.rectangle(mask, (int(x0), int(y0)), (int(x1) + 1, int(y1) + 1), 255, -1)
    clean = cv2.inpaint(image, mask, 5, cv2.INPAINT_TELEA)
    # The tray floor, inside its walls, in the frame's 16:9 shape.
    return u8(clean[175:435, 100:540].copy())


def _table_texture(
    rng: np.random.Generator, camera: Camera, table: str, shape: tuple[int, int]
) -> FloatImage:
    """The bare table in the (supersampled) frame, perspective included."""
    h, w = shape
    if table == "photo":
        floor = _photo_floor(int(rng.integers(1 << 30))).astype(np.float32)
        if rng.random() < 0.5:
            floor = floor[:, ::-1]
        # The photo's floor covers the table plane seen by the camera.
        corners = camera.to_table(
            np.array(
                [[0, 0], [camera.width, 0], [camera.width, camera.height], [0, camera.height]],
                dtype=np.float64,
            )
        )
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        fh, fw = floor.shape[:2]
        to_floor = np.array(
            [
                [fw / (hi[0] - lo[0]), 0, -lo[0] * fw / (hi[0] - lo[0])],
                [0, fh / (hi[1] - lo[1]), -lo[1] * fh / (hi[1] - lo[1])],
                [0, 0, 1],
            ]
        )
        scale = np.diag([SUPERSAMPLE, SUPERSAMPLE, 1.0])
        to_image = scale @ camera.table_homography() @ np.linalg.inv(to_floor)
        return f32(
            cv2.warpPerspective(
                floor, to_image, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT
            )
        )
    if table == "wood":
        # Grain in the table plane (mm), warped into the frame.
        corners = camera.to_table(
            np.array(
                [[0, 0], [camera.width, 0], [camera.width, camera.height], [0, camera.height]],
                dtype=np.float64,
            )
        )
        lo, hi = corners.min(axis=0) - 5, corners.max(axis=0) + 5
        k = 2.0  # texture pixels per mm
        tw, th = int((hi[0] - lo[0]) * k), int((hi[1] - lo[1]) * k)
        yy, xx = np.mgrid[0:th, 0:tw].astype(np.float32)
        warp = _smooth_noise(rng, (th, tw), 80) * 9 + _smooth_noise(rng, (th, tw), 20) * 2
        period = rng.uniform(6, 11) * k
        grain = 0.5 + 0.5 * np.sin(2 * np.pi * (yy + warp) / period)
        grain = grain**3 * 0.7 + 0.3 * (0.5 + 0.25 * _smooth_noise(rng, (th, tw), 40))
        fine = cv2.GaussianBlur(rng.normal(0, 1, (th, tw)).astype(np.float32), (0, 0), 0.7)
        grain = np.clip(grain + 0.08 * fine * (1 + 0 * xx), 0, 1)
        light = np.array(WOOD_LIGHT, np.float32) * rng.uniform(0.9, 1.05)
        dark = np.array(WOOD_DARK, np.float32) * rng.uniform(0.9, 1.05)
        texture = light * (1 - grain[..., None]) + dark * grain[..., None]
        plank = rng.uniform(90, 140) * k
        offset = rng.uniform(0, plank)
        for y0 in np.arange(offset, th, plank):
            cv2.line(texture, (0, int(y0)), (tw, int(y0)), (30, 50, 75), max(1, int(k)))
        to_tex = np.array([[k, 0, -lo[0] * k], [0, k, -lo[1] * k], [0, 0, 1]])
        scale = np.diag([SUPERSAMPLE, SUPERSAMPLE, 1.0])
        to_image = scale @ camera.table_homography() @ np.linalg.inv(to_tex)
        return f32(
            cv2.warpPerspective(
                texture, to_image, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
            )
        )
    base = np.array(FELT if table == "felt" else DARK, np.float32) * rng.uniform(0.92, 1.06)
    out = np.empty((h, w, 3), np.float32)
    out[:] = base
    # Cloth: fine fuzz and slow blotches.
    fuzz = cv2.GaussianBlur(rng.normal(0, 1, (h // 2, w // 2)).astype(np.float32), (0, 0), 0.6)
    fuzz = cv2.resize(fuzz, (w, h), interpolation=cv2.INTER_LINEAR)
    blotch = _smooth_noise(rng, (h, w), 150)
    out *= (1 + 0.05 * fuzz + 0.03 * blotch)[..., None]
    return out


def _light_field(
    rng: np.random.Generator, light: str, shape: tuple[int, int]
) -> tuple[FloatImage, FloatImage]:
    """Multiplicative light over the frame and its colour tint."""
    full_h, full_w = shape
    h, w = max(2, full_h // 8), max(2, full_w // 8)  # smooth: computed small, then enlarged
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx /= w
    yy /= h
    gain = rng.uniform(0.95, 1.05)
    tint = np.ones(3, np.float32)
    if light == "even":
        field = np.full((h, w), gain, np.float32)
    elif light == "uneven":
        direction = rng.uniform(0, 2 * math.pi)
        ramp = (xx - 0.5) * math.cos(direction) + (yy - 0.5) * math.sin(direction)
        field = gain * (0.88 + 0.55 * ramp + 0.06 * _smooth_noise(rng, (h, w), 300))
        tint = (1 + rng.uniform(-0.05, 0.05, 3)).astype(np.float32)
    elif light == "spot":
        sx, sy = rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7)
        sigma = rng.uniform(0.35, 0.5)
        r2 = ((xx - sx) * w / h) ** 2 + (yy - sy) ** 2
        field = gain * (0.5 + 0.65 * np.exp(-r2 / (2 * sigma**2)))
        tint = (1 + rng.uniform(-0.05, 0.05, 3)).astype(np.float32)
    else:
        raise ValueError(f"light must be one of {', '.join(LIGHTS)}, not {light!r}")
    size = (full_w, full_h)
    return f32(cv2.resize(field.astype(np.float32), size, interpolation=cv2.INTER_LINEAR)), tint


def _finish(
    rng: np.random.Generator,
    canvas: FloatImage,
    camera: Camera,
    light: str,
    blur: float,
    noise: float,
    jpeg: bool,
    post: effects.Post | None = None,
    grain: np.random.Generator | None = None,
) -> Image:
    """Light, then the camera: ``post`` (the wide knobs: light colour, white balance, exposure,
    lens, shake, dim-frame noise, JPEG quality) or, when None, the camera as it always was;
    ``grain``: where the sensor noise is drawn from (``rng``'s next numbers when None)."""
    field, tint = _light_field(rng, light, canvas.shape[:2])
    canvas *= field[..., None]
    canvas *= tint
    image = f32(cv2.resize(canvas, (camera.width, camera.height), interpolation=cv2.INTER_AREA))
    if post is not None:  # a frame pixel i averages canvas pixels 2i, 2i + 1: coordinate i + 1/4
        image = post.optics(image, (SUPERSAMPLE - 1) / (2 * SUPERSAMPLE))
    if blur > 0:
        image = f32(cv2.GaussianBlur(image, (0, 0), blur))
    if post is not None:
        image = post.blur(image)
    if noise > 0:
        image += (grain or rng).normal(0, noise, image.shape).astype(np.float32)
    if post is not None:
        image = post.noise(image)
    out: Image = np.clip(image + 0.5, 0, 255).astype(np.uint8)
    quality = post.jpeg if post is not None and post.jpeg is not None else None
    if quality is not None:
        out = effects.jpeg(out, quality)
    elif jpeg:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 80])
        assert ok
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        assert decoded is not None
        out = u8(decoded)
    return out


def _camera(rng: np.random.Generator, width: int, height: int, tilt: float) -> Camera:
    if width < 64 or height < 64:
        raise ValueError("the frame must be at least 64 x 64 pixels")
    px_per_mm = rng.uniform(2.2, 2.8) * width / 1280
    return Camera(width, height, px_per_mm * DISTANCE, DISTANCE, tilt)


def cube_scene_camera(
    seed: int,
    width: int = 1280,
    height: int = 720,
    *,
    tilt: float = 0.0,
    camera_height: float | None = None,
) -> Camera:
    """The camera that ``cube_scene(seed, width=..., height=..., tilt=..., camera_height=...)``
    renders through (its first draw from the seed), e.g. to make the exact table calibration of
    a generated scene (without lens distortion: that is applied to the image)."""
    camera = _camera(np.random.default_rng(seed), width, height, tilt)
    if camera_height is None:
        return camera
    focal = effects.pi_focal(_stream(seed, 0), width)
    return Camera(width, height, focal, camera_height, tilt)


def _stream(seed: int, part: int) -> np.random.Generator:
    """A generator of its own for one part of the wide knobs, never the scene's main one (so
    defaults render as before, and one knob does not move another's draws)."""
    return np.random.default_rng([seed, 7, part])


def _shadows(
    rng: np.random.Generator,
    camera: Camera,
    shape: tuple[int, int],
    footprints: list[Points],
    height: float,
    cast: bool,
    light_dir: tuple[float, float],
    strength: float,
) -> FloatImage:
    """Darkening of the table: contact shadows always, cast shadows when ``cast``."""
    contact = np.zeros(shape, np.float32)
    shadow = np.zeros(shape, np.float32)
    dx, dy = light_dir
    for square in footprints:
        grown = square.mean(axis=0) + (square - square.mean(axis=0)) * 1.12
        _fill(contact, camera.project(np.c_[grown, np.zeros(len(grown))]), (1.0,))
        if cast:
            far = square + np.array([dx, dy]) * height
            hull = cv2.convexHull(np.vstack([square, far]).astype(np.float32)).reshape(-1, 2)
            _fill(shadow, camera.project(np.c_[hull, np.zeros(len(hull))]), (1.0,))
    px = camera.focal / camera.distance * SUPERSAMPLE
    out = 0.35 * _soft(contact, 0.12 * height * px)
    if cast:
        out = np.maximum(out, strength * _soft(shadow, 0.1 * height * px))
    return out


def _soft(mask: FloatImage, sigma: float) -> FloatImage:
    """Gaussian blur of a mask, done at a quarter size (the result is smooth anyway)."""
    h, w = mask.shape
    small = cv2.resize(mask, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), max(0.5, sigma / 4))
    return f32(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR))


def _ground_truth(
    camera: Camera, cube: _Cube, lens: effects.Distortion | None = None
) -> DieReading:
    """The cube's top face as seen (through ``lens``): a leaning cube's tilted face too."""
    if cube.lean or cube.base:
        top3 = cube.corners3d()[4:]
        top, centre = camera.project(top3), camera.project(top3.mean(axis=0)[None])[0]
    else:
        top = camera.project(np.c_[cube.square(), np.full(4, SIZE)])
        centre = camera.project(np.array([[cube.x, cube.y, SIZE]]))[0]
    if lens is not None:
        top, centre = lens.apply(top), lens.apply(centre[None])[0]
    area = 0.5 * abs(
        float(np.dot(top[:, 0], np.roll(top[:, 1], -1)) - np.dot(top[:, 1], np.roll(top[:, 0], -1)))
    )
    edges = np.roll(top, -1, axis=0) - top
    theta = np.arctan2(edges[:, 1], edges[:, 0]) * 4
    angle = math.degrees(math.atan2(np.sin(theta).mean(), np.cos(theta).mean())) / 4 % 90.0
    return DieReading(
        x=float(centre[0]),
        y=float(centre[1]),
        size=math.sqrt(area),
        angle=angle,
        confidence=1.0,
        color=cube.color,
        hole=cube.hole,
    )


def _paint_cube(
    canvas: FloatImage,
    camera: Camera,
    cube: _Cube,
    light_dir: tuple[float, float],
    rounded: float = 0.0,
    sideways: int | None = None,
) -> None:
    """An upright cube: the sides the camera sees, the top face with its rim (or rounded edges)
    and the hole, through the top or, ``sideways`` 0 or 1, through the side faces i with
    i % 2 == ``sideways`` (side face i joins bottom corners i and i + 1)."""
    albedo = np.array(cube.albedo)
    bottom = cube.square()
    top3 = np.c_[bottom, np.full(4, SIZE)]
    bottom3 = np.c_[bottom, np.zeros(4)]
    eye = camera.position
    centre = np.array([cube.x, cube.y])
    rim = albedo * (1.3 if cube.color == "black" else 0.72)
    for i in range(4):
        j = (i + 1) % 4
        mid = (bottom[i] + bottom[j]) / 2
        normal = (mid - centre) / np.linalg.norm(mid - centre)
        face_point = np.array([mid[0], mid[1], SIZE / 2])
        if np.dot(eye - face_point, np.array([normal[0], normal[1], 0.0])) <= 0:
            continue
        lit = max(0.0, -float(normal @ np.array(light_dir)) / (np.hypot(*light_dir) or 1))
        shade = 0.5 + 0.25 * lit
        face3 = np.array([bottom3[i], bottom3[j], top3[j], top3[i]])
        _fill(canvas, camera.project(face3), albedo * shade)
        if sideways is not None and i % 2 == sideways:
            out = np.array([normal[0], normal[1], 0.0])
            effects.paint_hole(canvas, camera, face3, out, albedo * shade, SUPERSAMPLE)
    top = camera.project(top3)
    _fill(canvas, top, albedo)
    if rounded:
        black = cube.color == "black"
        effects.bevel(canvas, camera, top3, albedo, black, light_dir, rounded, SUPERSAMPLE)
    else:
        _outline(canvas, top, rim, 0.045 * camera.focal / camera.distance * SIZE)
    if cube.hole:
        radius = HOLE_RADIUS * SIZE
        mouth = camera.project(_circle3d(cube.x, cube.y, SIZE, radius))
        _fill(canvas, mouth, albedo * 0.32 + 4)
        # The well: the part of the mouth through which the dark depth shows.
        deep = camera.project(_circle3d(cube.x, cube.y, SIZE * 0.35, radius))
        x0, y0 = np.floor(np.vstack([mouth, deep]).min(axis=0) * SUPERSAMPLE).astype(int) - 2
        x1, y1 = np.ceil(np.vstack([mouth, deep]).max(axis=0) * SUPERSAMPLE).astype(int) + 2
        x0, y0 = max(x0, 0), max(y0, 0)
        a = np.zeros((y1 - y0, x1 - x0), np.float32)
        b = np.zeros_like(a)
        _fill(a, mouth - np.array([x0, y0]) / SUPERSAMPLE, (1.0,))
        _fill(b, deep - np.array([x0, y0]) / SUPERSAMPLE, (1.0,))
        well = (a * b) > 0
        roi = canvas[y0:y1, x0:x1]
        roi[well[: roi.shape[0], : roi.shape[1]]] = albedo * 0.1 + 6


def cube_scene(
    seed: int,
    count: int = 16,
    width: int = 1280,
    height: int = 720,
    *,
    table: str = "felt",
    tilt: float = 0.0,
    light: str = "even",
    shadows: bool = False,
    blur: float = 0.0,
    noise: float = 0.0,
    touching: bool = False,
    holes: float = 0.33,
    angles: tuple[float, float] = (0.0, 90.0),
    colors: Sequence[str] | None = None,
    plastic: str = "saturated",
    finish: str = "matte",
    kelvin: float | None = None,
    white_balance: float | tuple[float, float, float] = 0.0,
    exposure: float = 1.0,
    camera_height: float | None = None,
    distortion: float = 0.0,
    motion_blur: float = 0.0,
    jpeg: int | None = None,
    edge_object: str | None = None,
    markers: bool = False,
    leaning: float = 0.0,
    pile: float = 0.0,
    hot_spot: bool = False,
    bevel: float = 0.0,
    light_pool: bool = False,
    side_holes: bool = False,
    check_frame: bool = False,
    before: bool = False,
) -> Scene:
    """A throw of Oraklos cubes seen from above, and the truth about each cube.

    ``count`` cubes in a balanced colour mix (or exactly ``colors``), each showing its hole with
    probability ``holes``, turned by an angle drawn from ``angles`` (degrees); ``touching`` puts
    most cubes in contact with another (face to face or corner to face). ``tilt`` tilts the
    camera (perspective); ``light`` is even, uneven (a ramp and a tint) or a spot; ``shadows``
    casts soft shadows; ``blur`` is a Gaussian sigma in pixels; ``noise`` a sensor noise sigma
    in grey levels. ``table`` is green felt, wood, a dark cloth or a real photo's floor, or one
    of the wider world's (``scene_effects.WIDE_TABLES``): dark glossy "lacquer" (lamp
    reflections, streaks, the dice mirrored), a patterned "cloth" (checks, stripes or a print,
    colours close to the dice's among them), a printed game "mat" (panels, a numbered track,
    text), white "laminate", "blue felt", "red felt".

    The wide knobs (all off by default; docs/vision/scenes.md has their ranges) draw from
    generators of their own, so a scene without them is the same frame as before, byte for
    byte: ``plastic`` "saturated", "faded" (one odd plastic per colour for the scene: orange-red
    or crimson, pale yellow, washed-out or navy blue, grey-black; per-die jitter) or "mixed"
    (each die either); ``finish`` "matte", "glossy" (the room's sheen, the lamps' mirror images
    and edge glints, clipping white) or "mixed"; ``kelvin`` the light's colour temperature
    (2700 a warm bulb ... 6500 daylight, None as before), applied to everything and not
    corrected away; ``white_balance`` the camera's gain error, an amplitude (gains of blue and
    red drawn within ±it) or three gains (B, G, R); ``exposure`` a brightness factor (0.35 dim,
    with more noise, ... 1.3 bright, clipping); ``camera_height`` (mm, 350-800) puts a Pi
    camera's field of view (62-66°) at that height, cubes about 20-45 px wide; ``distortion``
    a radial k1 (-0.12 barrel ... 0.05 pincushion) of the image and of the truth;
    ``motion_blur`` a linear blur this many pixels long; ``jpeg`` a quality; ``edge_object``
    "hand" or "cup" at a frame edge: a die more than half hidden is dropped from the truth, one
    partly hidden is listed in ``Scene.partly_hidden``; ``markers`` lays calibration markers
    0-3 on paper at the view's corners (``Scene.markers``); ``leaning`` the share of dice that
    lean on another, top face tilted 20-40° (``Scene.leaning``; their truth is the tilted top
    face as seen); ``pile`` the share of dice (at least one) lying on top of another (a die
    whose top face is more than half hidden by one is left out of the truth); ``hot_spot`` a
    lamp's hot spot near a die: its mirror image on the table, clipping white, in a pool of
    brighter light; ``bevel`` the dice's rounded edges, a share of the side (0.05-0.15 for real
    dice; 0 draws sharp edges with a rim); ``light_pool`` an area light (a lamp's panel, a
    window) mirrored in the table round the throw: a large soft-edged bright patch clipping at
    its heart, the dice in it lit brighter; ``side_holes`` shows the hole of a die whose hole
    is not up where it comes out, in two opposite side faces (the camera sees it in the sides
    it sees, and, for a leaning die, in the face turned up). ``check_frame``: the same table,
    light and camera with only the colour check's four dice instead of the throw
    (``color_check_scene``).

    ``before=True`` is the frame the camera saw of the same table just before the throw: the
    dice still in the cup, no hand or cup in view, the same table, light (its hot spot and pool
    too) and camera, a sensor noise of its own; its truth is empty. A scene without it is the
    same frame as before, byte for byte.
    """
    if before and check_frame:
        raise ValueError("before and check_frame are two other frames: ask for one")
    if table not in CUBE_TABLES:
        raise ValueError(f"table must be one of {', '.join(CUBE_TABLES)}, not {table!r}")
    if light not in LIGHTS:
        raise ValueError(f"light must be one of {', '.join(LIGHTS)}, not {light!r}")
    if not 0.0 <= pile <= 1.0:
        raise ValueError(f"pile must be a share between 0 and 1, not {pile}")
    look = effects.Look(
        plastic, finish, kelvin, white_balance, exposure, camera_height, distortion,
        motion_blur, jpeg, edge_object, markers, leaning, bevel,
    )  # fmt: skip
    rng = np.random.default_rng(seed)
    camera = _camera(rng, width, height, tilt)
    if camera_height is not None:
        camera = cube_scene_camera(seed, width, height, tilt=tilt, camera_height=camera_height)
    lens = effects.Distortion.of(distortion, camera) if distortion else None
    papers = effects.place_papers(_stream(seed, 4), camera, lens, SUPERSAMPLE) if markers else []
    cup = effects.place_cup(_stream(seed, 5), camera) if edge_object == "cup" else None
    keepout = [p.outline() for p in papers] + ([cup.keepout()] if cup else [])
    mix = _mix(rng, count, colors)
    cubes = _place(rng, camera, mix, holes, touching, angles, 6.0, keepout, lens)
    cubes = _dress(seed, cubes, look)
    card = effects.place_check_card(_stream(seed, 14)) if check_frame else None
    if card is not None:
        cubes = _check_row(seed, cubes, look, holes, card)
    elif leaning:
        cubes = _lean(_stream(seed, 8), camera, cubes, leaning, keepout, lens)
    if pile and card is None:
        cubes = _pile(_stream(seed, 15), camera, cubes, pile, lens)
    shape = (height * SUPERSAMPLE, width * SUPERSAMPLE)
    if table in TABLES:
        canvas = _table_texture(rng, camera, table, shape)
    else:
        canvas = effects.table_texture(_stream(seed, 6), table, camera, shape, SUPERSAMPLE)
    effects.paint_papers(canvas, camera, papers, SUPERSAMPLE)
    if card is not None:
        effects.paint_check_card(canvas, camera, card, SUPERSAMPLE)
    azimuth = rng.uniform(0, 2 * math.pi)
    reach = 1 / math.tan(math.radians(rng.uniform(40, 65)))
    light_dir = (math.cos(azimuth) * reach, math.sin(azimuth) * reach)
    strength = rng.uniform(0.3, 0.45)
    darkening = _shadows(
        rng, camera, shape, [c.footprint() for c in cubes], SIZE, shadows, light_dir, strength
    )
    if not before:
        canvas *= (1 - darkening)[..., None]
    spots: list[_HotSpot | _LightPool] = []
    if hot_spot:
        spots.append(_HotSpot.draw(_stream(seed, 16), camera, cubes))
    if light_pool:
        spots.append(_LightPool.draw(_stream(seed, 17), camera, cubes))
    for spot in spots:
        spot.glare(canvas)
    if not before:
        _paint_cubes(seed, canvas, camera, cubes, table, light_dir, bevel, side_holes)
    for spot in spots:
        spot.pool(canvas)
    occluder = None  # before the throw, the cup is still in a hand above the table
    if cup is not None and not before:
        occluder = cup.occluder(_stream(seed, 13), camera, shape, SUPERSAMPLE, light_dir)
    elif edge_object == "hand" and not (check_frame or before):
        reach_for = [(float(c.x), float(c.y)) for c in cubes]
        targets = [tuple(p) for p in camera.project(np.c_[reach_for, np.full(len(cubes), SIZE)])]
        occluder = effects.hand(_stream(seed, 5), camera, shape, SUPERSAMPLE, light_dir, targets)
    if occluder is not None:
        occluder.paint(canvas)
    post = effects.Post.of(look, _stream(seed, 3), lens)
    grain = None
    if before:  # another frame: the same light and camera, the sensor's noise drawn anew
        grain = _stream(seed, 18)
        post = None if post is None else replace(post, rng=_stream(seed, 19))
    image = _finish(
        rng, canvas, camera, light, blur, noise, jpeg=table == "photo", post=post, grain=grain
    )
    return _cube_truth(image, camera, [] if before else cubes, lens, occluder, papers, card)


class CubeKnobs(TypedDict, total=False):
    """The knobs of ``cube_scene``: its keyword arguments but ``check_frame`` and ``before`` (what
    ``color_check_scene`` passes on)."""

    table: str
    tilt: float
    light: str
    shadows: bool
    blur: float
    noise: float
    touching: bool
    holes: float
    angles: tuple[float, float]
    colors: Sequence[str] | None
    plastic: str
    finish: str
    kelvin: float | None
    white_balance: float | tuple[float, float, float]
    exposure: float
    camera_height: float | None
    distortion: float
    motion_blur: float
    jpeg: int | None
    edge_object: str | None
    markers: bool
    leaning: float
    pile: float
    hot_spot: bool
    bevel: float
    light_pool: bool
    side_holes: bool


class _TableKnobs(TypedDict):
    """A random table under a random light, seen by a random camera (``_wild_table``)."""

    table: str
    light: str
    tilt: float
    shadows: bool
    blur: float
    noise: float


class _LightKnobs(TypedDict):
    """The light's colour temperature, the camera's white-balance error and exposure."""

    kelvin: float
    white_balance: float
    exposure: float


class WildCubeKnobs(_TableKnobs, _LightKnobs):
    """The knobs of ``cube_scene`` that ``wild_cube_knobs`` draws."""

    touching: bool
    holes: float
    plastic: str
    finish: str
    camera_height: float | None
    distortion: float
    motion_blur: float
    jpeg: int | None
    edge_object: str | None
    markers: bool
    leaning: float
    pile: float
    hot_spot: bool
    bevel: float
    light_pool: bool
    side_holes: bool


class WildTessonKnobs(_TableKnobs, _LightKnobs):
    """The knobs of ``tesson_scene`` that ``wild_tesson_knobs`` draws."""

    empty: float
    strays: int
    dice: int
    printed: float
    sleeves: float
    jpeg: int | None
    grey_ink: float
    hot_spots: int
    sheen: float
    table_shade: float
    hand: bool


def color_check_scene(
    seed: int, count: int = 16, width: int = 1280, height: int = 720, **knobs: Unpack[CubeKnobs]
) -> Scene:
    """The colour check frame of ``cube_scene(seed, count, width, height, **knobs)``: the same
    camera, table, light, white balance, exposure, lens and post-processing (and markers, and a
    cup), with only the printed colour check card near the centre (``Scene.markers`` holds its
    marker, ``vision.calibration.CHECK_MARKER``) and a flat cube in each of its boxes, red,
    yellow, blue, black, of that scene's plastics (and finish), and no hand. What the host lays
    out at the start of a game so the reader learns this table's colours
    (``vision.color_check``). The truth lists them in that order."""
    return cube_scene(seed, count, width, height, check_frame=True, **knobs)


def _wild_table(rng: np.random.Generator) -> _TableKnobs:
    """A random table under a random light, seen by a random camera (the knobs cube and tesson
    scenes share), drawn in this order from ``rng``. The flowered cloth is not among these
    tables: ``wild_tesson_knobs`` draws it after every other knob."""
    tables = [
        t for t in (*TABLES, *effects.WIDE_TABLES) if t != "photo" or (PHOTOS / "images").is_dir()
    ]
    return {
        "table": tables[int(rng.integers(len(tables)))],
        "light": LIGHTS[int(rng.integers(len(LIGHTS)))],
        "tilt": float(rng.uniform(0, 12)) if rng.random() < 0.5 else 0.0,
        "shadows": bool(rng.random() < 0.7),
        "blur": float(rng.uniform(0, 1.2)),
        "noise": float(rng.uniform(1, 5)),
    }


def _wild_light(rng: np.random.Generator) -> _LightKnobs:
    """The light's colour temperature, the camera's white-balance error and exposure."""
    return {
        "kelvin": float(rng.uniform(2700, 6500)),
        "white_balance": float(rng.uniform(0, 0.15)),
        "exposure": float(math.exp(rng.uniform(math.log(0.35), math.log(1.3)))),
    }


def wild_cube_knobs(seed: int) -> WildCubeKnobs:
    """Every knob of ``cube_scene`` drawn at random over its whole range from ``seed`` (a
    generator of its own): a random real table. ``photo`` is among the tables only where the
    photos are."""
    rng = np.random.default_rng([seed, 9])
    return {
        **_wild_table(rng),
        "touching": bool(rng.random() < 0.4),
        "holes": float(rng.uniform(0.2, 0.5)),
        "plastic": effects.PLASTICS[int(rng.integers(len(effects.PLASTICS)))],
        "finish": effects.FINISHES[int(rng.integers(len(effects.FINISHES)))],
        **_wild_light(rng),
        "camera_height": float(rng.uniform(350, 800)) if rng.random() < 0.6 else None,
        "distortion": float(rng.uniform(-0.12, 0.05)),
        "motion_blur": float(rng.uniform(1, 6)) if rng.random() < 0.4 else 0.0,
        "jpeg": int(rng.integers(50, 96)) if rng.random() < 0.7 else None,
        "edge_object": (None, "hand", "cup")[int(rng.choice(3, p=[0.5, 0.3, 0.2]))],
        "markers": bool(rng.random() < 0.5),
        "leaning": float(rng.uniform(0.05, 0.25)) if rng.random() < 0.4 else 0.0,
        "pile": float(rng.uniform(0.0, 0.15)) if rng.random() < 0.4 else 0.0,
        "hot_spot": bool(rng.random() < 0.3),
        "bevel": float(rng.uniform(0.05, 0.15)) if rng.random() < 0.6 else 0.0,
        "light_pool": bool(rng.random() < 0.25),
        "side_holes": bool(rng.random() < 0.9),
    }


def wild_cube_scene(seed: int, count: int = 16, width: int = 1280, height: int = 720) -> Scene:
    """``cube_scene`` with every knob at random (``wild_cube_knobs(seed)``): the generator to
    tune a reader on; ``color_check_scene(seed, **wild_cube_knobs(seed))`` is its check frame."""
    return cube_scene(seed, count, width, height, **wild_cube_knobs(seed))


def _dress(seed: int, cubes: list[_Cube], look: effects.Look) -> list[_Cube]:
    """The dice's plastics and finish (unchanged for saturated, matte dice)."""
    if look.plastic == "saturated" and look.finish == "matte":
        return cubes
    bases = effects.plastic_bases(_stream(seed, 1), ALBEDO)
    rng = _stream(seed, 2)
    out = []
    for cube in cubes:
        albedo = cube.albedo
        if look.plastic != "saturated":
            albedo = effects.die_plastic(rng, look.plastic, bases[cube.color])
        gloss = look.finish == "glossy" or (look.finish == "mixed" and rng.random() < 0.5)
        out.append(replace(cube, albedo=albedo, gloss=gloss))
    return out


def _check_row(
    seed: int, cubes: list[_Cube], look: effects.Look, holes: float, card: effects.CheckCard
) -> list[_Cube]:
    """The colour check: a red, a yellow, a blue and a black cube in the card's boxes, flat,
    each the plastic of the scene's first die of its colour (or of the scene's plastic for
    that colour when it has none)."""
    rng = _stream(seed, 9)
    bases = effects.plastic_bases(_stream(seed, 1), ALBEDO)
    row = []
    for i, color in enumerate(COLORS):
        like = next((c for c in cubes if c.color == color), None)
        if like is not None:
            albedo, gloss = like.albedo, like.gloss
        else:
            albedo = (
                _jitter_albedo(rng, color)
                if look.plastic == "saturated"
                else effects.die_plastic(rng, look.plastic, bases[color])
            )
            gloss = look.finish == "glossy" or (look.finish == "mixed" and rng.random() < 0.5)
        x, y = card.boxes()[i] + rng.uniform(-3, 3, 2)
        hole = bool(rng.random() < holes)
        row.append(_Cube(x, y, float(rng.uniform(0, 90)), color, hole, albedo, gloss=gloss))
    return row


def _lean(
    rng: np.random.Generator,
    camera: Camera,
    cubes: list[_Cube],
    share: float,
    keepout: Sequence[Points],
    lens: effects.Distortion | None,
) -> list[_Cube]:
    """Move ``share`` of the cubes to lean on another: tilted 20-40° about their far bottom
    edge, the near bottom edge propped against the other's side (a die that came to rest
    against another). A cube that finds no free place stays where it was."""
    out = list(cubes)
    chosen = [int(i) for i in rng.choice(len(out), size=round(share * len(out)), replace=False)]
    props: set[int] = set()
    for b in chosen:
        if b in props:
            continue
        for _ in range(40):
            a = int(rng.integers(len(out)))
            partner = out[a]
            if a == b or partner.lean:
                continue
            face = partner.angle + 90 * int(rng.integers(4))
            n = np.array([math.cos(math.radians(face)), math.sin(math.radians(face))])
            tilt = float(rng.uniform(20, 40))
            slide = rng.uniform(-0.35, 0.35) * SIZE
            centre = np.array([partner.x, partner.y]) + n * SIZE * math.cos(math.radians(tilt))
            centre += np.array([-n[1], n[0]]) * slide
            cube = replace(
                out[b], x=float(centre[0]), y=float(centre[1]), angle=partner.angle,
                lean=tilt, lean_dir=(face + 180) % 360,
            )  # fmt: skip
            seen = camera.project(cube.corners3d())
            seen = lens.apply(seen) if lens is not None else seen
            inside = (seen.min(axis=0) >= 6).all() and (
                seen.max(axis=0) <= (camera.width - 6, camera.height - 6)
            ).all()
            area = cube.footprint()
            if not inside or any(_overlap(area, k) for k in keepout):
                continue
            if any(
                _overlap(area, other.footprint(), 0.05 if j == a else 1e-6)
                for j, other in enumerate(out)
                if j != b
            ):
                continue
            out[b] = cube
            props.add(a)
            break
    return out


def _pile(
    rng: np.random.Generator,
    camera: Camera,
    cubes: list[_Cube],
    share: float,
    lens: effects.Distortion | None,
) -> list[_Cube]:
    """Move ``share`` of the cubes (at least one) onto another lying flat: each rests on a
    flat cube's top face, its centre within a fifth of a side of the lower one's, turned at
    random (a die that landed on another). A cube that finds no free place stays where it
    was."""
    out = list(cubes)
    chosen = rng.choice(len(out), size=max(1, round(share * len(out))), replace=False)
    below: set[int] = set()
    for b in (int(i) for i in chosen):
        if b in below:
            continue
        for _ in range(40):
            a = int(rng.integers(len(out)))
            partner = out[a]
            if a == b or a in below or partner.lean or partner.base:
                continue
            x, y = np.array([partner.x, partner.y]) + rng.uniform(-0.22, 0.22, 2) * SIZE
            cube = replace(
                out[b], x=float(x), y=float(y), angle=float(rng.uniform(0, 90)), base=SIZE
            )
            seen = camera.project(cube.corners3d())
            seen = lens.apply(seen) if lens is not None else seen
            inside = (seen.min(axis=0) >= 6).all() and (
                seen.max(axis=0) <= (camera.width - 6, camera.height - 6)
            ).all()
            if not inside or any(
                _overlap(cube.square(), other.footprint())
                for j, other in enumerate(out)
                if j not in (a, b)
            ):
                continue
            out[b] = cube
            below.add(a)
            break
    return out


def _covered_by_piles(camera: Camera, cube: _Cube, cubes: list[_Cube]) -> float:
    """The share of ``cube``'s top face, as seen, hidden by the cubes lying on top of others."""
    top = camera.project(cube.corners3d()[4:]).astype(np.float32)
    area = cv2.contourArea(top)
    covered = 0.0
    for other in cubes:
        if other.base <= cube.base or other is cube:
            continue
        hull = cv2.convexHull(camera.project(other.corners3d()).astype(np.float32))
        overlap, _ = cv2.intersectConvexConvex(top, hull.reshape(-1, 2))
        covered += overlap
    return min(1.0, covered / area) if area > 0 else 1.0


@dataclass(frozen=True)
class _HotSpot:
    """A lamp's hot spot: its mirror image on the table (``glare``, under the dice), clipping
    white at its heart, and the pool of brighter light round it (``pool``, over everything)."""

    x: float
    y: float
    radius: float  # px of the canvas
    peak: float
    gain: float
    tint: tuple[float, float, float]

    @classmethod
    def draw(cls, rng: np.random.Generator, camera: Camera, cubes: list[_Cube]) -> _HotSpot:
        near = cubes[int(rng.integers(len(cubes)))] if cubes else None
        return cls.near(rng, camera, (near.x, near.y) if near else (0.0, 0.0))

    @classmethod
    def near(cls, rng: np.random.Generator, camera: Camera, point: tuple[float, float]) -> _HotSpot:
        """A hot spot within about a cube and a half of ``point`` (mm on the table)."""
        at = rng.normal(0, 1.5 * SIZE, 2) + point
        x, y = camera.project(np.array([[at[0], at[1], 0.0]]))[0] * SUPERSAMPLE
        px = camera.focal / camera.distance * SUPERSAMPLE
        warm = float(rng.uniform(0, 0.35))
        return cls(
            float(x), float(y), float(rng.uniform(0.6, 2.0) * SIZE * px),
            float(rng.uniform(150, 450)), float(rng.uniform(0.2, 0.6)),
            (1 - warm, 1 - warm / 3, 1.0),
        )  # fmt: skip

    def _falloff(self, shape: tuple[int, ...], radius: float) -> FloatImage:
        yy, xx = np.ogrid[0 : shape[0], 0 : shape[1]]
        r2 = ((xx - self.x) ** 2 + (yy - self.y) ** 2).astype(np.float32)
        return f32(np.exp(-r2 / (2 * radius * radius)))

    def glare(self, canvas: FloatImage) -> None:
        glow = self._falloff(canvas.shape, self.radius) * self.peak
        canvas += glow[..., None] * np.array(self.tint, np.float32)

    def pool(self, canvas: FloatImage) -> None:
        canvas *= (1 + self.gain * self._falloff(canvas.shape, 3 * self.radius))[..., None]


@dataclass(frozen=True)
class _LightPool:
    """An area light (a lamp's panel, a window) mirrored in a glossy table round the throw: a
    large soft-edged patch of brighter light (``pool``, over the dice too: the table's texture
    shows through) and the lamp's own glare in it (``glare``, under the dice), clipping at its
    heart."""

    corners: Points  # the patch, px of the canvas
    soften: float  # the blur of its edge, px of the canvas
    peak: float
    gain: float
    tint: tuple[float, float, float]

    @classmethod
    def draw(cls, rng: np.random.Generator, camera: Camera, cubes: list[_Cube]) -> _LightPool:
        middle = np.mean([(c.x, c.y) for c in cubes], axis=0) if cubes else np.zeros(2)
        at = middle + rng.normal(0, 3 * SIZE, 2)
        long = rng.uniform(6, 16) * SIZE
        short = long * rng.uniform(0.4, 0.8)
        turn = rng.uniform(0, math.pi)
        u, v = (
            np.array([math.cos(turn), math.sin(turn)]),
            np.array([-math.sin(turn), math.cos(turn)]),
        )
        square = [
            at + (a * long * u + b * short * v) / 2 for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
        corners = camera.project(np.c_[square, np.zeros(4)]) * SUPERSAMPLE
        px = camera.focal / camera.distance * SUPERSAMPLE
        warm = float(rng.uniform(0, 0.35))
        return cls(
            corners, float(rng.uniform(0.12, 0.35) * short * px), float(rng.uniform(40, 200)),
            float(rng.uniform(0.4, 1.2)), (1 - warm, 1 - warm / 3, 1.0),
        )  # fmt: skip

    def _mask(self, shape: tuple[int, ...], soften: float) -> FloatImage:
        """The patch blurred by ``soften`` px, drawn at an eighth of the size (it is smooth)."""
        small = np.zeros((shape[0] // 8 + 1, shape[1] // 8 + 1), np.float32)
        cv2.fillPoly(
            small, [np.round(self.corners / 8 * 16).astype(np.int32)], (1.0,), cv2.LINE_8, 4
        )
        small = f32(cv2.GaussianBlur(small, (0, 0), max(0.5, soften / 8)))
        return f32(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR))

    def glare(self, canvas: FloatImage) -> None:
        glow = self._mask(canvas.shape, self.soften) * self.peak
        canvas += glow[..., None] * np.array(self.tint, np.float32)

    def pool(self, canvas: FloatImage) -> None:
        canvas *= (1 + self.gain * self._mask(canvas.shape, 2 * self.soften))[..., None]


def _paint_cubes(
    seed: int,
    canvas: FloatImage,
    camera: Camera,
    cubes: list[_Cube],
    table: str,
    light_dir: tuple[float, float],
    rounded: float = 0.0,
    side_holes: bool = False,
) -> None:
    """The cubes, farthest first, with what a glossy table and glossy plastic reflect;
    ``rounded``: their edges' bevel (a share of the side); ``side_holes``: a die whose hole is
    not up shows it in a pair of opposite side faces, which pair drawn for each die."""
    glossy_table = table in ("lacquer", "laminate")
    lights: tuple[effects.Lamp, ...] = ()
    if glossy_table or any(c.gloss for c in cubes):
        lights = effects.lamps(_stream(seed, 10), light_dir)
    if glossy_table:
        mirror = 1.0 if table == "lacquer" else 0.12
        effects.glare(canvas, camera, lights, mirror, _stream(seed, 11), SUPERSAMPLE)
    if table == "lacquer":
        boxes = [(c.corners3d(), c.albedo) for c in cubes]
        effects.mirror_images(canvas, camera, boxes, 0.25, SUPERSAMPLE)
    shine = effects.Shine.draw(_stream(seed, 12))
    eye = camera.position

    def farness(cube: _Cube) -> float:
        middle = np.array([cube.x, cube.y, SIZE / 2])
        if cube.lean or cube.base:
            middle = cube.corners3d().mean(axis=0)
        return -float(np.linalg.norm(middle - eye))

    turns = _stream(seed, 20)
    for cube in sorted(cubes, key=farness):
        turn = int(turns.integers(2))
        sideways = turn if side_holes and not cube.hole else None
        if cube.lean or cube.base:
            black = cube.color == "black"
            corners = cube.corners3d()
            effects.paint_box(
                canvas, camera, corners, cube.albedo, black, cube.hole, light_dir, SUPERSAMPLE,
                rounded, sideways,
            )  # fmt: skip
        else:
            _paint_cube(canvas, camera, cube, light_dir, rounded, sideways)
        if cube.gloss:
            effects.gloss(canvas, camera, cube.corners3d(), lights, shine, SUPERSAMPLE)


def _cube_truth(
    image: Image,
    camera: Camera,
    cubes: list[_Cube],
    lens: effects.Distortion | None,
    occluder: effects.Occluder | None,
    papers: Sequence[effects.Paper],
    card: effects.CheckCard | None = None,
) -> Scene:
    """The scene: each die's top face as seen, but a die more than half hidden by the hand, the
    cup or a die lying on it is left out (a reader cannot be asked for it) and one partly
    hidden is listed."""
    dice: list[DieReading] = []
    leaning: list[int] = []
    partly: list[int] = []
    shape = (camera.height * SUPERSAMPLE, camera.width * SUPERSAMPLE)
    for cube in cubes:
        hidden = _covered_by_piles(camera, cube, cubes)
        if occluder is not None:
            top = camera.project(cube.corners3d()[4:])
            hidden += occluder.covers(top, SUPERSAMPLE, shape)
        if hidden > 0.5:
            continue
        if hidden > 0.02:
            partly.append(len(dice))
        if cube.lean:
            leaning.append(len(dice))
        dice.append(_ground_truth(camera, cube, lens))
    corners = {}
    for paper in papers:
        seen = camera.project(np.c_[paper.ink_corners(), np.zeros(4)])
        corners[paper.marker] = lens.apply(seen) if lens is not None else seen
    if card is not None:
        seen = camera.project(np.c_[card.ink_corners(), np.zeros(4)])
        corners[CHECK_MARKER] = lens.apply(seen) if lens is not None else seen
    return Scene(
        image=image,
        dice=tuple(dice),
        markers=corners,
        leaning=tuple(leaning),
        partly_hidden=tuple(partly),
    )


# ---------------------------------------------------------------------------------------------
# Tessons


def _shard(rng: np.random.Generator, radius: float) -> Points:
    """An irregular potsherd outline round (0, 0), mm."""
    n = int(rng.integers(7, 11))
    t = np.sort(rng.uniform(0, 2 * math.pi, n))
    t += np.linspace(0, 2 * math.pi, n, endpoint=False) - t + rng.uniform(-0.25, 0.25, n)
    r = radius * rng.uniform(0.78, 1.0, n)
    pts = np.c_[r * np.cos(t), r * np.sin(t)]
    hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    return f64(hull.astype(np.float64))


def _zone_polygon(
    centre: Points, axes: Points, start: float, end: float, inner: float, outer: float
) -> Points:
    """An annular sector in the table plane (angles in degrees, clockwise on screen)."""
    arc = np.radians(np.linspace(start, end, 16))
    ring: list[Points] = [np.c_[np.cos(arc), np.sin(arc)] * axes * rho for rho in (outer, inner)]
    return centre + np.vstack([ring[0], ring[1][::-1]])


def wild_tesson_knobs(seed: int) -> WildTessonKnobs:
    """Every knob of ``tesson_scene`` drawn at random over its whole range from ``seed`` (a
    generator of its own): a random real table of revealed tessons, plain or the box's printed
    cards. ``tesson_scene`` has no camera height, lens or motion blur yet (the Blender
    renders have them: docs/vision/renders.md). About one table in eight is a flowered cloth
    (``scene_effects.FLOWERED``), a sleeve's sheen is drawn for about one table in three, and
    two dark tables (dark cloth, lacquer) in five lit evenly (no lamp's pool) are overexposed
    as a camera metering them would (exposure 1.8-3.5). Of those, three lacquers in five mirror
    a dark room, darker than a matte black shard on them (``table_shade`` 0.35-0.9, exposure
    2.5-4.0), about one table in sixteen is a striped cloth
    (``scene_effects.STRIPED``), and a player's hand reaches in from an edge over three tables
    in ten. These are drawn last, so the other knobs are those drawn before them."""
    rng = np.random.default_rng([seed, 19])
    knobs: WildTessonKnobs = {
        **_wild_table(rng),
        "empty": float(rng.uniform(0, 0.2)),
        "strays": int(rng.integers(0, 3)),
        "dice": int(rng.integers(0, 5)),
        "printed": float(rng.choice([0.0, 0.5, 1.0])),
        "sleeves": float(rng.uniform(0, 0.6)),
        **_wild_light(rng),
        "jpeg": int(rng.integers(50, 96)) if rng.random() < 0.7 else None,
        "grey_ink": float(rng.uniform(0, 1)) if rng.random() < 0.5 else 0.0,
        "hot_spots": int(rng.integers(1, 3)) if rng.random() < 0.3 else 0,
        "sheen": 0.0,
        "table_shade": 1.0,
        "hand": False,
    }
    if rng.random() < 0.12:
        knobs["table"] = effects.FLOWERED
    knobs["sheen"] = float(rng.uniform(0.3, 1.0)) if rng.random() < 0.35 else 0.0
    lamp = knobs["light"] == "spot" or knobs["hot_spots"] > 0
    metered = knobs["table"] in ("dark", "lacquer") and not lamp and rng.random() < 0.4
    if metered:
        # A camera metering a dark table: white shards and the markers' paper clip, black
        # shards show a mid grey, brighter than the table round them. Not under a lamp: its
        # pool of light is metered too (overexposed by 3, a black shard in it clips to white).
        knobs["exposure"] = float(rng.uniform(1.8, 3.5))
    if metered and knobs["table"] == "lacquer" and rng.random() < 0.6:
        # A black lacquer mirroring a dark room is darker than the shard's matte black paint:
        # overexposed, the black shards show 80-150 on a table of 40-100 (the Blender renders).
        knobs["table_shade"] = float(rng.uniform(0.35, 0.9))
        knobs["exposure"] = float(rng.uniform(2.5, 4.0))
    elif not metered and knobs["table"] != effects.FLOWERED and rng.random() < 0.08:
        knobs["table"] = effects.STRIPED
    knobs["hand"] = bool(rng.random() < 0.3)
    return knobs


def tesson_scene(
    seed: int,
    seats: int = 6,
    width: int = 1280,
    height: int = 720,
    *,
    table: str = "felt",
    tilt: float = 0.0,
    light: str = "even",
    shadows: bool = False,
    blur: float = 0.0,
    noise: float = 0.0,
    empty: float = 0.0,
    strays: int = 0,
    dice: int = 0,
    printed: float = 0.0,
    sleeves: float = 0.0,
    stock: str | None = None,
    kelvin: float | None = None,
    white_balance: float | tuple[float, float, float] = 0.0,
    exposure: float = 1.0,
    jpeg: int | None = None,
    grey_ink: float = 0.0,
    hot_spots: int = 0,
    sheen: float = 0.0,
    table_shade: float = 1.0,
    hand: bool = False,
    before: bool = False,
) -> TessonScene:
    """Revealed tessons in front of ``seats`` seats round the table, and the seat map.

    Each seat's zone is an annular sector round the table centre (in the table plane, so it
    follows the perspective); a seat leaves its zone empty with probability ``empty``; each
    tesson lies well inside its zone, turned at random, white or black side up. ``strays``
    tessons lie in the middle of the table (seat None); ``dice`` Oraklos cubes lie about as
    distractors. Other knobs as for ``cube_scene``. The returned map is by polygons (the zones
    projected into the frame).

    ``printed`` is the share of tessons that are the box's printed cards
    (``vision.synthetic_cards``: one size per scene, of one card ``stock`` per scene, a name of
    ``STOCKS`` or at random, each at least 90 % inside its zone, centre well inside);
    ``sleeves`` the share of printed cards in glossy sleeves (glare). ``table`` may also be one
    of the wider world's (``scene_effects.WIDE_TABLES``), and ``kelvin``, ``white_balance``,
    ``exposure`` and ``jpeg`` are ``cube_scene``'s; ``grey_ink`` (0-1) prints the black shards
    of printed cards paler, towards a dark grey (worn ink, a sleeve's sheen, as the Blender
    renders show them); ``hot_spots`` lamps mirrored in the table (``cube_scene``'s
    ``hot_spot``: a round glare clipping white at its heart, under the tessons, and a pool of
    brighter light round it), most in a seat's zone, where a glare could pass for a white shard;
    ``sheen`` the share of sleeved cards whose sleeve mirrors a broad light, a pale veil over the
    whole card (``synthetic_cards.Sheen``); ``table_shade`` (0.2-1) darkens the table's own
    surface (a glossy black that mirrors a dark room, darker than a black shard); ``hand`` a
    player's hand and forearm reaching in from an edge (``cube_scene``'s), most often for a
    tesson near that edge: one it hides more than half of leaves the truth. Every number these
    knobs draw comes from generators of their own (``default_rng([seed, 11])``, ``[seed, 12]``,
    ``[seed, 13]``, ``[seed, 14]``, ``[seed, 15]``, ``[seed, 16]``), so a scene without them is
    the same frame as before, byte for byte.

    ``before=True`` is the frame the camera saw of the same table before the reveal: the seats'
    tessons still in the players' hands, no hand reaching in, the strays and cubes lying where
    they lie, the same light and camera, a sensor noise of its own; its truth is empty.
    """
    if table not in CUBE_TABLES:
        raise ValueError(f"table must be one of {', '.join(CUBE_TABLES)}, not {table!r}")
    if seats < 1:
        raise ValueError("seats must be 1 or more")
    if stock is not None and stock not in STOCKS:
        raise ValueError(f"stock must be one of {', '.join(STOCKS)}, not {stock!r}")
    if not (0.0 <= printed <= 1.0 and 0.0 <= sleeves <= 1.0 and 0.0 <= sheen <= 1.0):
        raise ValueError("printed, sleeves and sheen are shares, from 0 to 1")
    if not 0.2 <= table_shade <= 1.0:
        raise ValueError(f"table_shade must be from 0.2 to 1, not {table_shade}")
    look = effects.Look(
        "saturated", "matte", kelvin, white_balance, exposure, None, 0.0, 0.0, jpeg, None, False, 0
    )  # fmt: skip
    rng = np.random.default_rng(seed)
    extra = np.random.default_rng([seed, 11])
    size = card_size(extra)
    card_stock = STOCKS[stock or sorted(STOCKS)[int(extra.integers(len(STOCKS)))]]
    cards: dict[int, Card] = {}
    camera = _camera(rng, width, height, tilt)
    corners = camera.to_table(
        np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    )
    half = (
        np.array(
            [
                min(-corners[:, 0].min(), corners[:, 0].max()),
                min(-corners[:, 1].min(), corners[:, 1].max()),
            ]
        )
        * 0.92
    )
    centre = np.zeros(2)
    first = rng.uniform(0, 360)
    step = 360.0 / seats
    polygons = []
    homography = camera.table_homography()
    for s in range(seats):
        zone = _zone_polygon(centre, half, first + s * step, first + (s + 1) * step, 0.45, 1.0)
        polygons.append(cv2.perspectiveTransform(zone.reshape(-1, 1, 2), homography).reshape(-1, 2))
    seat_map = SeatMap.by_polygons([[tuple(p) for p in poly] for poly in polygons])
    radius = 12.0  # mm, a tesson's reach from its centre
    placed: list[tuple[Points, Side, int | None]] = []

    def free(points: Points) -> bool:
        return not any(_overlap(points, other, -1.5) for other, _, _ in placed)

    zones = [
        _zone_polygon(centre, half, first + s * step, first + (s + 1) * step, 0.45, 1)
        for s in range(seats)
    ]
    view = corners * 0.97
    for s in range(seats):
        if rng.random() < empty:
            continue
        if extra.random() < printed:
            sector = (first + s * step, step)
            card = _printed_card(extra, size, sleeves, half, sector, [zones[s]], view, free)
            if card is not None:
                cards[len(placed)] = card
                placed.append((card.outline(SLEEVE if card.sleeve else 0.0), card.side, s))
            continue
        for _ in range(200):
            a = math.radians(first + (s + rng.uniform(0.2, 0.8)) * step)
            rho = rng.uniform(0.6, 0.82)
            x, y = np.cos(a) * half[0] * rho, np.sin(a) * half[1] * rho
            outline = _shard(rng, radius) @ effects.rotation(rng.uniform(0, 360)).T + (x, y)
            zone = _zone_polygon(centre, half, first + s * step, first + (s + 1) * step, 0.45, 1)
            if all(
                cv2.pointPolygonTest(zone.astype(np.float32), tuple(map(float, p)), True) > 2
                for p in outline
            ) and free(outline):
                placed.append((outline, "white" if rng.random() < 0.5 else "black", s))
                break
    for _ in range(strays):
        if extra.random() < printed:
            card = _printed_card(extra, size, sleeves, half, None, zones, view, free)
            if card is not None:
                cards[len(placed)] = card
                placed.append((card.outline(SLEEVE if card.sleeve else 0.0), card.side, None))
            continue
        for _ in range(200):
            a = rng.uniform(0, 2 * math.pi)
            rho = rng.uniform(0.0, 0.3)
            x, y = np.cos(a) * half[0] * rho, np.sin(a) * half[1] * rho
            outline = _shard(rng, radius) @ effects.rotation(rng.uniform(0, 360)).T + (x, y)
            if free(outline):
                placed.append((outline, "white" if rng.random() < 0.5 else "black", None))
                break
    shape = (height * SUPERSAMPLE, width * SUPERSAMPLE)
    if table in TABLES:
        canvas = _table_texture(rng, camera, table, shape)
    else:
        wide = np.random.default_rng([seed, 12])
        canvas = effects.table_texture(wide, table, camera, shape, SUPERSAMPLE)
    if table_shade != 1.0:
        canvas *= table_shade
    azimuth = rng.uniform(0, 2 * math.pi)
    reach = 1 / math.tan(math.radians(rng.uniform(40, 65)))
    light_dir = (math.cos(azimuth) * reach, math.sin(azimuth) * reach)
    thickness = 2.5
    cubes: list[_Cube] = []
    if dice:
        for _ in range(dice):
            for _ in range(200):
                a = rng.uniform(0, 2 * math.pi)
                rho = rng.uniform(0.0, 0.4)
                cube = _Cube(
                    float(np.cos(a) * half[0] * rho),
                    float(np.sin(a) * half[1] * rho),
                    float(rng.uniform(0, 90)),
                    COLORS[int(rng.integers(4))],
                    bool(rng.random() < 0.3),
                    (0.0, 0.0, 0.0),
                )
                cube = _Cube(
                    cube.x,
                    cube.y,
                    cube.angle,
                    cube.color,
                    cube.hole,
                    _jitter_albedo(rng, cube.color),
                )
                if free(cube.square(2)) and not any(
                    _overlap(cube.square(2), c.square()) for c in cubes
                ):
                    cubes.append(cube)
                    break
    footprints = [p for p, _, _ in placed] + [c.square() for c in cubes]
    darkening = np.zeros(shape, np.float32)
    if shadows or cubes:
        darkening = _shadows(
            rng,
            camera,
            shape,
            [c.square() for c in cubes],
            SIZE,
            shadows,
            light_dir,
            rng.uniform(0.3, 0.45),
        )
    if shadows:
        flat = _shadows(
            rng,
            camera,
            shape,
            [  # flat cards cast none; before the reveal, only the strays lie there
                p
                for i, (p, _, seat) in enumerate(placed)
                if i not in cards and not (before and seat is not None)
            ],
            thickness,
            True,
            light_dir,
            rng.uniform(0.3, 0.45),
        )
        darkening = np.maximum(darkening, flat)
    del footprints
    canvas *= (1 - darkening)[..., None]
    spots = _tesson_hot_spots(
        np.random.default_rng([seed, 14]), camera, hot_spots, half, first, seats
    )
    for spot in spots:
        spot.glare(canvas)
    truth = []
    broad = np.random.default_rng([seed, 15])
    table_only = canvas.copy() if before else canvas
    for i, (outline, side, seat) in enumerate(placed):
        # before the reveal, a seat's tesson is painted where no one sees it (the same draws)
        paint = canvas if seat is None or not before else table_only
        if i in cards:
            card = cards[i]
            mirrored = card.sleeve and sheen > 0 and broad.random() < sheen

            def to_canvas(points: Points) -> Points:
                return camera.project(points) * SUPERSAMPLE

            paint_card(
                extra, paint, card, card_stock, to_canvas, grey_ink,
                Sheen.drawn(broad) if mirrored else None,
            )  # fmt: skip
            cx, cy = camera.project(np.array([[card.x, card.y, LIFT]]))[0]
            truth.append(TessonReading(float(cx), float(cy), side, 1.0, seat))
            continue
        base = np.array(WHITE_TESSON if side == "white" else BLACK_TESSON, np.float64)
        base = base * rng.uniform(0.9, 1.05) * (1 + rng.normal(0, 0.02, 3))
        rim = camera.project(np.c_[outline, np.zeros(len(outline))])
        top = camera.project(np.c_[outline, np.full(len(outline), thickness)])
        _fill(paint, rim, base * 0.6)
        _fill(paint, top, base)
        _outline(paint, top, base * (0.8 if side == "white" else 1.3), 1.0)
        m = cv2.moments(top.astype(np.float32))
        cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        truth.append(TessonReading(float(cx), float(cy), side, 1.0, seat))
    eye = camera.position
    for cube in sorted(cubes, key=lambda c: -np.linalg.norm(np.array([c.x, c.y, SIZE / 2]) - eye)):
        _paint_cube(canvas, camera, cube, light_dir)
    for spot in spots:
        spot.pool(canvas)
    shown = list(range(len(placed)))
    if before:
        shown = []
    elif hand:
        targets = [(t.x, t.y) for t in truth]
        reaching = np.random.default_rng([seed, 16])
        arm = effects.hand(reaching, camera, shape, SUPERSAMPLE, light_dir, targets)
        arm.paint(canvas)
        seen = [camera.project(np.c_[outline, np.zeros(len(outline))]) for outline, _, _ in placed]
        shown = [i for i in shown if arm.covers(seen[i], SUPERSAMPLE, shape) <= 0.5]
    post = effects.Post.of(look, np.random.default_rng([seed, 13]), None)
    grain = None
    if before:  # another frame: the same light and camera, the sensor's noise drawn anew
        grain = np.random.default_rng([seed, 17])
        post = None if post is None else replace(post, rng=np.random.default_rng([seed, 18]))
    image = _finish(
        rng, canvas, camera, light, blur, noise, jpeg=table == "photo", post=post, grain=grain
    )
    return TessonScene(
        image=image,
        dice=tuple(_ground_truth(camera, c) for c in cubes),
        tessons=tuple(truth[i] for i in shown),
        seats=seat_map,
        printed=tuple(i in cards for i in shown),
        card_width=size[0] * camera.focal / camera.distance,
    )


def _tesson_hot_spots(
    rng: np.random.Generator, camera: Camera, count: int, half: Points, first: float, seats: int
) -> list[_HotSpot]:
    """``count`` lamps' hot spots on a tesson table: seven in ten in one of the ``seats`` zones
    (they start at ``first`` degrees and reach out to ``half``), the others anywhere in view."""
    step = 360.0 / seats
    spots = []
    for _ in range(count):
        if rng.random() < 0.7:
            a = math.radians(first + (int(rng.integers(seats)) + rng.uniform(0.1, 0.9)) * step)
            rho = rng.uniform(0.5, 0.92)
        else:
            a, rho = rng.uniform(0, 2 * math.pi), rng.uniform(0.0, 0.92)
        point = (math.cos(a) * half[0] * rho, math.sin(a) * half[1] * rho)
        spots.append(_HotSpot.near(rng, camera, point))
    return spots


@dataclass(frozen=True)
class TessonScene(Scene):
    """A rendered frame of tessons: ``printed`` says, for each of ``tessons`` (same order),
    whether it is a printed card (``vision.synthetic_cards``) rather than a plain tesson;
    ``card_width`` is the short side of the scene's printed cards in pixels at the table's
    centre (whether or not any card lies on the table)."""

    printed: tuple[bool, ...] = ()
    card_width: float = 0.0


def _printed_card(
    rng: np.random.Generator,
    size: tuple[float, float],
    sleeves: float,
    half: Points,
    sector: tuple[float, float] | None,
    zones: list[Points],
    view: Points,
    free: Callable[[Points], bool],
) -> Card | None:
    """A printed card in the seat zone ``zones[0]`` whose angles start at ``sector[0]`` and
    span ``sector[1]`` degrees (at least 90 % of the card inside it), or, for ``sector`` None,
    a stray in the middle of the table (at most 10 % of it in any of ``zones``); wholly in the
    camera's ``view``, clear of what ``free`` guards. None when no place is found. Turned at
    random, or, when that finds no place, facing the table's centre give or take 15 degrees."""
    side: Side = "white" if rng.random() < 0.5 else "black"
    sleeve = bool(rng.random() < sleeves)
    for attempt in range(300):
        if sector is None:
            a, rho = rng.uniform(0, 2 * math.pi), rng.uniform(0.0, 0.3)
        else:
            a = math.radians(sector[0] + rng.uniform(0.15, 0.85) * sector[1])
            rho = rng.uniform(0.55, 0.85)
        x, y = math.cos(a) * half[0] * rho, math.sin(a) * half[1] * rho
        turn = rng.uniform(0, 360) if attempt < 150 else math.degrees(a) + rng.uniform(-15, 15)
        card = Card(x, y, turn, size[0], size[1], side, sleeve)
        outline = card.outline(SLEEVE if sleeve else 0.0)
        if not free(card.outline((SLEEVE if sleeve else 0.0) + 0.75)):
            continue
        if share_inside(outline, [view]) < 0.999:
            continue
        inside = share_inside(outline, zones)
        if (sector is None and inside <= 0.1) or (sector is not None and inside >= 0.9):
            return card
    return None


# ---------------------------------------------------------------------------------------------
# Ordinary pip dice

PIP_COLORS = ("white", "black", "red", "yellow", "green", "blue")
"""Body colours of generated pip dice (names of ``vision.die_colors.DIE_COLORS``)."""
PIP_ALBEDO = {
    "white": (212, 216, 218),
    "black": (38, 37, 40),
    "red": (40, 44, 172),
    "yellow": (42, 186, 196),
    "green": (64, 130, 30),
    "blue": (122, 36, 30),
}
PIP_INK = {"white": (34, 33, 36), "yellow": (34, 33, 36)}
"""Colour of the pips where they are not white."""
WHITE_PIPS = (226, 229, 231)
TRAY = (196, 198, 201)
"""The light grey plastic of a dice tray, as in the real photos."""
PIP_TABLES = ("tray", *TABLES)
PIP_LAYOUT = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
"""Pip centres of each value on the face, in steps of ``PIP_STEP`` sides from its centre."""
PIP_STEP = 0.24
PIP_RADIUS = 0.095
"""Radius of a pip, as a share of the side."""
PIP_ROUND = 0.2
"""Radius of the top face's rounded corners, as a share of the side."""


@dataclass(frozen=True)
class PlacedDie:
    """A pip die lying on the table of a generated scene: centre (mm, table plane), turn of
    the die (degrees), value on top, colour name and its exact (jittered) BGR albedo, and the
    quarter turn of the pip layout on the top face (2, 3 and 6 show which)."""

    x: float
    y: float
    angle: float
    value: int
    color: str
    albedo: tuple[float, float, float]
    layout_turn: int = 0

    def square(self, grow: float = 0.0) -> Points:
        return _Cube(self.x, self.y, self.angle, self.color, False, self.albedo).square(grow)


@dataclass(frozen=True)
class PipScene(Scene):
    """A rendered frame of pip dice: ``dice`` are the readings (pixels, value and colour), and
    ``placed`` the same dice on the table (same order), to keep some of them in a later scene
    over the same table (``pip_scene(..., keep=...)``)."""

    placed: tuple[PlacedDie, ...] = ()


def _pip_camera(rng: np.random.Generator, width: int, height: int, tilt: float) -> Camera:
    """Dice of 16 mm about 5-6 % of the frame's short side, as in the real photos (what the
    pip reader's scale assumes)."""
    if width < 64 or height < 64:
        raise ValueError("the frame must be at least 64 x 64 pixels")
    px_per_mm = rng.uniform(2.15, 2.65) * min(width, height) / 720
    return Camera(width, height, px_per_mm * DISTANCE, DISTANCE, tilt)


def _tray_texture(rng: np.random.Generator, shape: tuple[int, int]) -> FloatImage:
    """Light grey matt plastic: slow shading and a fine grain."""
    h, w = shape
    out = np.empty((h, w, 3), np.float32)
    out[:] = np.array(TRAY, np.float32) * rng.uniform(0.94, 1.03)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h // 2, w // 2)).astype(np.float32), (0, 0), 0.8)
    grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR)
    out *= (1 + 0.015 * grain + 0.012 * _smooth_noise(rng, (h, w), 400))[..., None]
    return out


def _pip_mix(rng: np.random.Generator, count: int, colors: Sequence[str] | None) -> list[str]:
    if colors is None:
        return [PIP_COLORS[int(i)] for i in rng.integers(len(PIP_COLORS), size=count)]
    unknown = sorted({c for c in colors if c not in PIP_ALBEDO})
    if unknown:
        raise ValueError(f"no {', '.join(unknown)} pip dice: colours are {', '.join(PIP_COLORS)}")
    if len(colors) != count:
        raise ValueError(f"{len(colors)} colours for {count} dice: give one colour per die")
    return list(colors)


def _pip_albedo(rng: np.random.Generator, color: str) -> tuple[float, float, float]:
    base = np.array(PIP_ALBEDO[color], dtype=np.float64)
    out = np.clip(base * rng.uniform(0.92, 1.06) * (1 + rng.normal(0, 0.03, 3)), 0, 255)
    return (float(out[0]), float(out[1]), float(out[2]))


def _place_pips(
    rng: np.random.Generator,
    camera: Camera,
    kept: Sequence[PlacedDie],
    colors: Sequence[str],
    values: Sequence[int],
    touching: bool,
    margin_px: float,
) -> list[PlacedDie]:
    """New dice of these colours and values, at random on the frame's part of the table,
    clear of each other and of the ``kept`` dice (touching some other die when ``touching``)."""
    corners = np.array(
        [
            [margin_px, margin_px],
            [camera.width - margin_px, margin_px],
            [camera.width - margin_px, camera.height - margin_px],
            [margin_px, camera.height - margin_px],
        ]
    )
    table = camera.to_table(corners)
    lo, hi = table.min(axis=0), table.max(axis=0)
    lying: list[PlacedDie] = list(kept)
    new: list[PlacedDie] = []
    spacing = 0.0 if touching else SIZE * 0.3
    for color, value in zip(colors, values, strict=True):
        for _attempt in range(400):
            angle = float(rng.uniform(0.0, 90.0))
            if touching and lying and rng.random() < 0.5:
                partner = lying[int(rng.integers(len(lying)))]
                angle = partner.angle if rng.random() < 0.6 else angle
                normal = math.radians(partner.angle + 90 * int(rng.integers(4)))
                n = np.array([math.cos(normal), math.sin(normal)])
                t = np.array([-n[1], n[0]])
                delta = math.radians(angle - partner.angle)
                reach = SIZE / 2 * (abs(math.cos(delta)) + abs(math.sin(delta)))
                centre = (
                    np.array([partner.x, partner.y])
                    + n * (SIZE / 2 + reach + rng.uniform(0.0, 0.6))
                    + t * rng.uniform(-0.5, 0.5) * SIZE
                )
                x, y = float(centre[0]), float(centre[1])
            else:
                x, y = float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1], hi[1]))
            die = PlacedDie(
                x, y, angle, int(value), color, _pip_albedo(rng, color), int(rng.integers(2))
            )
            seen = np.vstack(
                [
                    camera.project(np.c_[die.square(), np.full(4, SIZE)]),
                    camera.project(np.c_[die.square(), np.zeros(4)]),
                ]
            )
            if (
                seen[:, 0].min() < margin_px
                or seen[:, 1].min() < margin_px
                or seen[:, 0].max() > camera.width - margin_px
                or seen[:, 1].max() > camera.height - margin_px
            ):
                continue
            square = die.square(spacing / 2)
            if any(_overlap(square, other.square(spacing / 2)) for other in lying):
                continue
            lying.append(die)
            new.append(die)
            break
        else:
            raise ValueError(
                f"cannot place {len(kept) + len(colors)} dice on this table without overlap"
            )
    return new


def _rounded_square(die: PlacedDie, z: float, inset: float, corner: float) -> Points:
    """The die's square at height ``z`` (mm), ``inset`` mm inside its outline, with corners
    rounded to ``corner`` mm, as 3D points."""
    half = SIZE / 2 - inset
    r = min(max(corner, 0.0), half)
    pts = []
    for cx, cy, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        for t in np.radians(np.linspace(start, start + 90, 7)):
            pts.append(((half - r) * cx + r * math.cos(t), (half - r) * cy + r * math.sin(t)))
    local = np.array(pts) @ effects.rotation(die.angle).T + (die.x, die.y)
    square: Points = np.c_[local, np.full(len(local), z)]
    return square


def _paint_pip_die(canvas: FloatImage, camera: Camera, die: PlacedDie) -> None:
    albedo = np.array(die.albedo)
    dark = die.color == "black"
    # The sides the camera sees, as one silhouette, then the top face: a darker rounded rim
    # (the rounded edge turning away from the light) round a flat face.
    side = albedo * (1.35 if dark else 0.62)
    rim = albedo * (1.5 if dark else 0.8)
    top = camera.project(_rounded_square(die, SIZE, 0.0, PIP_ROUND * SIZE))
    bottom = camera.project(_rounded_square(die, 0.0, 0.0, PIP_ROUND * SIZE))
    hull = cv2.convexHull(np.vstack([top, bottom]).astype(np.float32)).reshape(-1, 2)
    _fill(canvas, hull.astype(np.float64), side)
    _fill(canvas, top, rim)
    face = camera.project(_rounded_square(die, SIZE, 0.07 * SIZE, 0.14 * SIZE))
    _fill(canvas, face, albedo)
    ink = np.array(PIP_INK.get(die.color, WHITE_PIPS), np.float64)
    turn = effects.rotation(die.angle + 90.0 * die.layout_turn)
    radius = PIP_RADIUS * SIZE
    for u, v in PIP_LAYOUT[die.value]:
        cx, cy = turn @ np.array([u, v]) * PIP_STEP * SIZE + (die.x, die.y)
        # A dimple: a shaded rim, the pip's own colour inside.
        _fill(canvas, camera.project(_circle3d(cx, cy, SIZE, radius, 24)), ink * 0.7 + albedo * 0.2)
        _fill(canvas, camera.project(_circle3d(cx, cy, SIZE, radius * 0.82, 24)), ink)


def _pip_truth(camera: Camera, die: PlacedDie) -> DieReading:
    cube = _Cube(die.x, die.y, die.angle, die.color, False, die.albedo)
    truth = _ground_truth(camera, cube)
    return replace(truth, value=die.value, hole=None)


def pip_scene(
    seed: int,
    count: int = 6,
    width: int = 1280,
    height: int = 720,
    *,
    colors: Sequence[str] | None = None,
    values: Sequence[int] | None = None,
    keep: Sequence[PlacedDie] = (),
    table_seed: int | None = None,
    table: str = "tray",
    tilt: float = 0.0,
    light: str = "even",
    shadows: bool = True,
    blur: float = 0.5,
    noise: float = 2.0,
    touching: bool = False,
) -> PipScene:
    """A throw of ordinary six-sided pip dice seen from above, and the truth about each die.

    ``count`` new dice in random colours (or exactly ``colors``, from ``PIP_COLORS``) showing
    random values (or ``values``), at random places and turns; ``keep``: dice of an earlier
    scene (its ``placed``) that lie exactly as they were, drawn first in the truth. The camera,
    table, light and sensor noise come from ``table_seed`` (``seed`` when None) and the new dice
    from ``seed``, so scenes with one ``table_seed`` differ only by their dice: a kept die's top
    face is the same pixel for pixel (the table round it may take a new die's shadow). Dice are
    16 mm cubes with rounded edges, about 5-6 % of the frame's short side (like the photos the
    pip reader was trained on); pips in the standard layouts, black on white and yellow dice,
    white on the others. Other knobs as for ``cube_scene``; ``table`` may also be "tray" (light
    grey plastic, like the photos' tray: the default, and where the pip reader is surest).
    """
    if table not in PIP_TABLES:
        raise ValueError(f"table must be one of {', '.join(PIP_TABLES)}, not {table!r}")
    if light not in LIGHTS:
        raise ValueError(f"light must be one of {', '.join(LIGHTS)}, not {light!r}")
    if count < 0:
        raise ValueError("count must be 0 or more")
    setting = np.random.default_rng(seed if table_seed is None else table_seed)
    camera = _pip_camera(setting, width, height, tilt)
    shape = (height * SUPERSAMPLE, width * SUPERSAMPLE)
    if table == "tray":
        canvas = _tray_texture(setting, shape)
    else:
        canvas = _table_texture(setting, camera, table, shape)
    azimuth = setting.uniform(0, 2 * math.pi)
    reach = 1 / math.tan(math.radians(setting.uniform(60, 80)))  # a lamp high above the tray
    light_dir = (math.cos(azimuth) * reach, math.sin(azimuth) * reach)
    strength = setting.uniform(0.15, 0.3)
    rng = np.random.default_rng([seed, 1])
    mix = _pip_mix(rng, count, colors)
    if values is None:
        faces = [int(v) for v in rng.integers(1, 7, size=count)]
    else:
        faces = [int(v) for v in values]
        if len(faces) != count or any(not 1 <= v <= 6 for v in faces):
            raise ValueError(f"values {list(values)}: give {count} values, each 1 to 6")
    dice = list(keep) + _place_pips(rng, camera, keep, mix, faces, touching, margin_px=6.0)
    darkening = _shadows(
        setting, camera, shape, [d.square() for d in dice], SIZE, shadows, light_dir, strength
    )
    canvas *= (1 - darkening)[..., None]
    eye = camera.position
    for die in sorted(dice, key=lambda d: -np.linalg.norm(np.array([d.x, d.y, SIZE / 2]) - eye)):
        _paint_pip_die(canvas, camera, die)
    image = _finish(setting, canvas, camera, light, blur, noise, jpeg=table == "photo")
    return PipScene(
        image=image, dice=tuple(_pip_truth(camera, d) for d in dice), placed=tuple(dice)
    )
