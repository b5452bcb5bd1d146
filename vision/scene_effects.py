"""What makes a generated frame look like a real table's: the wide knobs of ``cube_scene``.

The cube reader reached 100 % on the clean scenes of ``vision.synthetic`` and 66 % on photoreal
renders of tables it had never seen: pale blue under a warm bulb, black on wood taken for
shadow, pale yellow, dim rooms. So the generator is widened here, knob by knob, for a reader
tuned on it to be tuned for the world: faded plastics, glossy plastic (lamp highlights, edge
glints), the light's colour temperature and the camera's white-balance error, exposure, a
Pi camera's field of view at another height, radial lens distortion, camera shake, JPEG,
more tables (lacquer, patterned cloth, a printed game mat, white laminate, blue and red
felt), a hand or a dice cup at the frame's edge, and the four calibration markers on paper.

``vision.synthetic`` renders the geometry and calls these. Nothing here draws from a scene's
main random stream (each caller passes its own generator), so ``cube_scene`` with its default
arguments renders the same frames as before, byte for byte. ``View`` is the camera as this
module needs it (``vision.synthetic.Camera`` is one). Canvas coordinates are those of the
supersampled canvas: a frame pixel coordinate ``u`` is canvas coordinate ``scale * u``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.arrays import Colours, FloatImage, Image, Matrix, Points, f32, u8
from vision.calibration import MODULES, marker_image
from vision.color_check import (
    BOX_CENTRES,
    CARD_MM,
    CHECK_MARKER_MM,
    MARKER_AT,
    card_image,
)

PLASTICS = ("saturated", "faded", "mixed")
FINISHES = ("matte", "glossy", "mixed")
EDGE_OBJECTS = ("hand", "cup")
WIDE_TABLES = ("lacquer", "cloth", "mat", "laminate", "blue felt", "red felt")
FLOWERED = "flowered cloth"
"""A dense print of flowers about a tesson's size (pale on a dark ground, or dark on a pale
one), a table of its own: ``table_texture`` draws it, but the wild knobs draw it last
(``vision.synthetic.wild_tesson_knobs``), so the tables they drew before it stay as they were."""
STRIPED = "striped cloth"
"""A tablecloth half white: stripes of a colour and white, or a colour's gingham on white,
8-40 mm a period (as the Blender renders' cloths, where white shards on the white stripes are
missed), a table of its own that no wild knob draws yet."""
MARKER_MM = 40.0
"""Side of a calibration marker's black square on the table, mm."""
PI_HFOV = (62.0, 66.0)
"""Horizontal field of view of a Raspberry Pi camera (v2: 62.2°, v3: 66°), degrees."""

Colour = tuple[float, float, float]

FADED: dict[str, tuple[Colour, ...]] = {
    # BGR under the reference light, like ``vision.synthetic.ALBEDO``.
    "red": ((28, 82, 222), (72, 30, 162), (92, 88, 196)),  # orange-red, crimson, faded
    "yellow": ((140, 218, 232), (100, 206, 228), (38, 160, 200)),  # pale, cream, mustard
    "blue": ((196, 146, 104), (92, 44, 24), (168, 122, 84)),  # washed-out, navy, greyish
    "black": ((72, 70, 68), (40, 40, 44), (86, 84, 80)),  # grey-black, deep, charcoal
}
"""Real plastics that are not the saturated reference colours, per colour."""
FELTS: dict[str, Colour] = {"blue felt": (112, 58, 22), "red felt": (36, 30, 132)}
PALETTE: tuple[Colour, ...] = (
    (226, 228, 230),  # white
    (190, 220, 235),  # cream
    (45, 40, 188),  # red, like a die's
    (62, 30, 150),  # crimson
    (30, 110, 222),  # orange
    (44, 194, 224),  # yellow, like a die's
    (140, 214, 230),  # pale yellow
    (158, 86, 34),  # blue, like a die's
    (86, 44, 24),  # navy
    (210, 172, 112),  # sky
    (60, 130, 42),  # green
    (38, 70, 30),  # dark green
    (36, 35, 38),  # black, like a die's
    (120, 120, 122),  # grey
    (172, 150, 232),  # pink
    (40, 70, 112),  # brown
    (120, 52, 92),  # purple
)
"""Colours of printed cloths and mats: some close to the dice's on purpose."""
_PALE = tuple(PALETTE[i] for i in (0, 1, 6, 14))  # white, cream, pale yellow, pink
_DARK = tuple(c for c in PALETTE if c not in _PALE and c != (120, 120, 122))  # not grey
SKIN: tuple[Colour, ...] = (
    (150, 176, 226),
    (122, 152, 206),
    (96, 126, 182),
    (70, 96, 146),
    (46, 66, 102),
)
CUP: tuple[Colour, ...] = ((32, 30, 30), (40, 66, 108), (30, 48, 80))
"""A dice cup: black plastic, tan leather, dark leather."""


class View(Protocol):
    """The camera, as the effects need it (``vision.synthetic.Camera``)."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def focal(self) -> float: ...
    @property
    def distance(self) -> float: ...
    @property
    def position(self) -> Points: ...
    def project(self, points: Points) -> Points: ...
    def table_homography(self) -> Matrix: ...
    def to_table(self, pixels: Points) -> Points: ...


# ---------------------------------------------------------------------------------------------
# The knobs


@dataclass(frozen=True)
class Look:
    """The wide knobs of ``cube_scene``, checked (their meaning is in its docstring)."""

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
    bevel: float = 0.0

    def __post_init__(self) -> None:
        _one_of("plastic", self.plastic, PLASTICS)
        _one_of("finish", self.finish, FINISHES)
        if self.edge_object is not None:
            _one_of("edge_object", self.edge_object, EDGE_OBJECTS)
        _within("kelvin", self.kelvin, 1500.0, 12000.0)
        _within("exposure", self.exposure, 0.05, 4.0)
        _within("camera_height", self.camera_height, 200.0, 2000.0)
        _within("distortion", self.distortion, -0.5, 0.5)
        _within("motion_blur", self.motion_blur, 0.0, 60.0)
        _within("leaning", self.leaning, 0.0, 1.0)
        _within("bevel", self.bevel, 0.0, 0.25)
        if self.jpeg is not None and not 1 <= self.jpeg <= 100:
            raise ValueError(f"jpeg quality must be 1 to 100 (or None), not {self.jpeg}")
        if isinstance(self.white_balance, (int, float)):
            _within("white_balance", self.white_balance, 0.0, 0.9)
        elif len(self.white_balance) != 3 or min(self.white_balance) <= 0:
            raise ValueError("white_balance is an error amplitude or three gains (B, G, R) > 0")


def _bgr(colour: Sequence[float] | Colours) -> Colour:
    b, g, r = (float(c) for c in colour)
    return (b, g, r)


def _one_of(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


def _within(name: str, value: float | None, lo: float, hi: float) -> None:
    if value is not None and not lo <= value <= hi:
        raise ValueError(f"{name} must be within {lo:g} to {hi:g}, not {value}")


def pi_focal(rng: np.random.Generator, width: int) -> float:
    """Focal length (pixels) of a Pi camera's field of view across ``width`` pixels."""
    return width / 2 / math.tan(math.radians(rng.uniform(*PI_HFOV)) / 2)


# ---------------------------------------------------------------------------------------------
# Plastics and light


def plastic_bases(
    rng: np.random.Generator, albedo: Mapping[str, Sequence[float]]
) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """Per colour, the saturated reference and this set's faded plastic (one of ``FADED``,
    60-100 % of the way from the reference)."""
    out = {}
    for color, reference in albedo.items():
        base = np.array(reference, np.float64)
        variants = FADED[color]
        odd = np.array(variants[int(rng.integers(len(variants)))], np.float64)
        out[color] = (base, base + rng.uniform(0.6, 1.0) * (odd - base))
    return out


def die_plastic(
    rng: np.random.Generator,
    plastic: str,
    bases: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
) -> Colour:
    """One die's albedo: faded (or, for "mixed", faded or saturated) with its own jitter."""
    faded = plastic == "faded" or (plastic == "mixed" and rng.random() < 0.5)
    base = bases[1] if faded else bases[0]
    out = np.clip(base * rng.uniform(0.9, 1.08) * (1 + rng.normal(0, 0.04, 3)), 0, 255)
    return (float(out[0]), float(out[1]), float(out[2]))


def illuminant(kelvin: float) -> npt.NDArray[np.float64]:
    """BGR gains of a light of this colour temperature relative to daylight (6500 K = 1, 1, 1),
    at the same brightness (BT.601 luma): Tanner Helland's fit of the black-body colours."""

    def rgb(k: float) -> npt.NDArray[np.float64]:
        t = k / 100
        red = 255.0 if t <= 66 else 329.699 * (t - 60) ** -0.1332
        green = 99.4708 * math.log(t) - 161.1196 if t <= 66 else 288.1222 * (t - 60) ** -0.0755
        blue = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177 * math.log(t - 10) - 305.0448)
        return np.clip(np.array([blue, green, red], np.float64), 1, 255)

    gains = rgb(kelvin) / rgb(6500.0)
    return gains / float(gains @ np.array([0.114, 0.587, 0.299]))


@dataclass(frozen=True)
class Lamp:
    """A round light above the table: centre (mm), radius (mm) and the brightness of its
    mirror image (canvas levels before the light field: above 255 clips)."""

    position: Points
    radius: float
    power: float


def lamps(rng: np.random.Generator, light_dir: tuple[float, float]) -> tuple[Lamp, ...]:
    """The lamp that casts the scene's shadows (opposite ``light_dir``) and a broad light high
    above the table (a ceiling panel, a window's sky), whose mirror images in glossy plastic
    or a glossy table fall somewhere in or near the view."""
    height = rng.uniform(1100, 2000)
    main = np.array([-light_dir[0] * height, -light_dir[1] * height, height])
    out = [Lamp(main, rng.uniform(60, 180), rng.uniform(450, 900))]
    azimuth, elevation = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(55, 88))
    h = rng.uniform(1400, 2400)
    reach = h / math.tan(elevation)
    where = np.array([math.cos(azimuth) * reach, math.sin(azimuth) * reach, h])
    out.append(Lamp(where, rng.uniform(100, 350), rng.uniform(150, 350)))
    return tuple(out)


@dataclass(frozen=True)
class Shine:
    """Glossy plastic: the room's reflection on a top face (levels) and the roughness that
    widens a lamp's glint on the rounded edges (radians)."""

    sheen: float
    roughness: float

    @staticmethod
    def draw(rng: np.random.Generator) -> Shine:
        return Shine(rng.uniform(8, 22), rng.uniform(0.02, 0.06))


def _mirror(
    eye: Points, lamp: Points, point: Points, normal: Points
) -> tuple[Points, float] | None:
    """Where the eye sees the lamp mirrored in the plane (``point``, ``normal``), and the share
    of the lamp's size its image has on the plane; None when the lamp is behind the plane."""
    d_eye, d_lamp = float((eye - point) @ normal), float((lamp - point) @ normal)
    if d_eye <= 0 or d_lamp <= 0:
        return None
    t = d_eye / (d_eye + d_lamp)
    return eye + (lamp - 2 * d_lamp * normal - eye) * t, t


def _unit(v: Points) -> Points:
    return v / (float(np.linalg.norm(v)) or 1.0)


AMBIENT = 0.45
"""The share of a die's light that comes from all round (the room, the table), not the lamp."""


def face_shade(normal: Points, light_dir: tuple[float, float]) -> float:
    """How bright a face of a die at any attitude is, against a flat top face under the same
    light: ``AMBIENT`` from all round and the rest from the lamp by the cosine of its angle to
    the face (Lambert). ``light_dir``: a shadow's run on the table per mm of height, so the lamp
    stands the other way at an elevation whose cotangent is its length. A steep face turned to
    a low lamp is brighter than the top, one turned away darker: which face of a leaning die is
    up cannot be told from which is brightest, as on a real table."""
    lamp = _unit(np.array([-light_dir[0], -light_dir[1], 1.0]))
    direct = max(0.0, float(np.asarray(normal) @ lamp)) / float(lamp[2])
    return min(1.6, AMBIENT + (1 - AMBIENT) * direct)


# ---------------------------------------------------------------------------------------------
# Painting helpers


def fill(canvas: FloatImage, pts: Points, color: Sequence[float] | Colours, scale: int) -> None:
    """A polygon (frame pixels) on the canvas, as ``vision.synthetic`` fills them."""
    fixed = np.round(np.asarray(pts) * scale * 16).astype(np.int32)
    cv2.fillPoly(canvas, [fixed], tuple(float(c) for c in color), cv2.LINE_8, 4)


def _roi(pts: Points, shape: tuple[int, ...], pad: int = 2) -> tuple[int, int, int, int] | None:
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = (
        max(int(x0), 0),
        max(int(y0), 0),
        min(int(x1), shape[1]),
        min(int(y1), shape[0]),
    )
    return None if x1 <= x0 or y1 <= y0 else (x0, y0, x1, y1)


def _mask(pts_canvas: Points, box: tuple[int, int, int, int]) -> FloatImage:
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    fixed = np.round((pts_canvas - (x0, y0)) * 16).astype(np.int32)
    cv2.fillPoly(mask, [fixed], (1.0,), cv2.LINE_8, 4)
    return mask


def add(canvas: FloatImage, pts: Points, value: float | Colours, scale: int) -> None:
    """Add light (a level, or BGR levels) inside a polygon (frame pixels)."""
    px = np.asarray(pts) * scale
    box = _roi(px, canvas.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    mask = _mask(px, box)
    canvas[y0:y1, x0:x1] += mask[..., None] * np.broadcast_to(np.asarray(value, np.float32), (3,))


def rotation(degrees: float) -> Matrix:
    """The 2×2 matrix turning points (as columns) by ``degrees``."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, -s], [s, c]])


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> FloatImage:
    """Smooth random field, zero mean, unit-ish amplitude, features about ``scale`` pixels."""
    small = (max(2, int(shape[0] / scale) + 2), max(2, int(shape[1] / scale) + 2))
    field = rng.normal(0, 1, small).astype(np.float32)
    out = f32(cv2.resize(field, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC))
    noise: FloatImage = out / (out.std() + 1e-6)
    return noise


# ---------------------------------------------------------------------------------------------
# A die leaning on another, and glossy plastic


def paint_box(
    canvas: FloatImage,
    view: View,
    corners: Points,
    albedo: Sequence[float],
    black: bool,
    hole: bool,
    light_dir: tuple[float, float],
    scale: int,
    rounded: float = 0.0,
    sideways: int | None = None,
) -> None:
    """A cube at any attitude (``corners``: bottom 0-3 then top 4-7, mm): each face that faces
    the camera, lit by its angle to the lamp (``face_shade``), with its rim (or its rounded
    edges, ``rounded`` a share of the side: ``bevel``) and, where the hole goes through it, the
    hole. The hole goes through the top (and the bottom) when ``hole``; otherwise through side
    faces ``sideways`` and ``sideways + 2`` (side face i joins bottom corners i and i + 1), or
    through none when ``sideways`` is None."""
    colour = np.asarray(albedo, np.float64)
    centre = corners.mean(axis=0)
    eye = view.position
    faces = [(i, (i + 1) % 4, (i + 1) % 4 + 4, i + 4) for i in range(4)] + [(4, 5, 6, 7)]
    holed = {4} if hole else set()
    if not hole and sideways is not None:
        holed = {sideways % 4, (sideways + 2) % 4}
    for index, face in enumerate(faces):
        pts = corners[list(face)]
        mid = pts.mean(axis=0)
        normal = _unit(mid - centre)
        if normal @ (eye - mid) <= 0:
            continue
        painted = colour * face_shade(normal, light_dir)
        fill(canvas, view.project(pts), painted, scale)
        if rounded:
            bevel(canvas, view, pts, painted, black, light_dir, rounded, scale)
        else:
            rim = painted * (1.3 if black else 0.72)
            thickness = max(1, round(0.045 * view.focal / view.distance * _side(pts) * scale))
            fixed = np.round(view.project(pts) * scale * 16).astype(np.int32)
            rgb = tuple(float(c) for c in rim)
            cv2.polylines(canvas, [fixed], True, rgb, thickness, cv2.LINE_8, 4)
        if index in holed:
            paint_hole(canvas, view, pts, normal, painted, scale)


def bevel(
    canvas: FloatImage,
    view: View,
    top: Points,
    face: Sequence[float] | npt.NDArray[np.float64],
    black: bool,
    light_dir: tuple[float, float],
    share: float,
    scale: int,
) -> None:
    """The rounded edges of a top face (``top``: its four corners, mm; ``face``: its painted
    colour): a band ``share`` of the side wide along each edge, in two steps that turn from the
    top towards the side, lighter on the edges facing the light and darker on the others. Black
    plastic's edges catch the room's light at a grazing angle, so they are lighter all round."""
    colour = np.asarray(face, np.float64)
    centre = top.mean(axis=0)
    towards = -np.asarray(light_dir, np.float64) / (float(np.hypot(*light_dir)) or 1.0)
    for i in range(4):
        j = (i + 1) % 4
        outward = _unit((top[i] + top[j]) / 2 - centre)[:2]
        facing = float(outward @ towards) / (float(np.hypot(*outward)) or 1.0)
        edge = (1.35 + 0.25 * facing) if black else (0.72 + 0.3 * facing)
        for k, shade in ((0, edge), (1, (1 + edge) / 2)):
            outer = top + (centre - top) * (2 * share * k / 2)
            inner = top + (centre - top) * (2 * share * (k + 1) / 2)
            band = np.array([outer[i], outer[j], inner[j], inner[i]])
            fill(canvas, view.project(band), colour * shade, scale)


def _side(top: Points) -> float:
    return float(np.linalg.norm(top[1] - top[0]))


def paint_hole(
    canvas: FloatImage,
    view: View,
    face: Points,
    normal: Points,
    colour: npt.NDArray[np.float64],
    scale: int,
    radius_share: float = 0.19,
) -> None:
    """The hole through a face (``face``: its four corners in order round it, mm; ``normal``:
    its outward unit normal; ``colour``: its painted colour): a shaded mouth ``radius_share``
    of the side wide, and the dark depth seen through it."""
    side = _side(face)
    e1, e2 = _unit(face[1] - face[0]), _unit(face[3] - face[0])
    t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
    ring = np.outer(np.cos(t), e1) + np.outer(np.sin(t), e2)
    mouth3 = face.mean(axis=0) + radius_share * side * ring
    mouth = view.project(mouth3)
    deep = view.project(mouth3 - 0.65 * side * normal)
    fill(canvas, mouth, colour * 0.32 + 4, scale)
    box = _roi(np.vstack([mouth, deep]) * scale, canvas.shape)
    if box is None:
        return
    well = (_mask(mouth * scale, box) * _mask(deep * scale, box)) > 0
    x0, y0, x1, y1 = box
    canvas[y0:y1, x0:x1][well] = colour * 0.1 + 6


def gloss(
    canvas: FloatImage,
    view: View,
    corners: Points,
    lights: Sequence[Lamp],
    shine: Shine,
    scale: int,
) -> None:
    """Glossy plastic on a painted cube: the room's sheen and each lamp's mirror image on the
    top face (a bright, colourless blob where the lamp's reflection falls), and glints along
    the rounded top edges that face the lamps. Light is added before the light field and the
    illuminant, so it takes the lamp's colour and clips like a real highlight."""
    top = corners[4:]
    centre = top.mean(axis=0)
    normal = _unit(centre - corners.mean(axis=0))
    _top_sheen(canvas, view, top, normal, lights, shine, scale)
    eye = view.position
    box_centre = corners.mean(axis=0)
    for i in range(4):
        j = (i + 1) % 4
        outward = _unit(corners[[i, j, j + 4, i + 4]].mean(axis=0) - box_centre)
        mid = (top[i] + top[j]) / 2
        to_eye = _unit(eye - mid)
        value = 1.5 * shine.sheen
        for lamp in lights:
            half = _unit(_unit(lamp.position - mid) + to_eye)
            a, b = float(half @ normal), max(0.0, float(half @ outward))
            best = min(1.0, math.hypot(a, b)) if a > 0 else b
            spread = 0.5 * lamp.radius / float(np.linalg.norm(lamp.position - mid))
            spread += shine.roughness
            value += 0.8 * lamp.power * math.exp(-0.5 * (math.acos(best) / spread) ** 2)
        inner = top[[j, i]] + (centre - top[[j, i]]) * 0.08  # the rounded edge's width
        band = np.vstack([top[[i, j]], inner])
        add(canvas, view.project(band), value, scale)


def _top_sheen(
    canvas: FloatImage,
    view: View,
    top: Points,
    normal: Points,
    lights: Sequence[Lamp],
    shine: Shine,
    scale: int,
) -> None:
    px = view.project(top) * scale
    box = _roi(px, canvas.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    mask = _mask(px, box)
    side = _side(top)
    e1, e2 = _unit(top[1] - top[0]), _unit(top[3] - top[0])
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    to_face = np.linalg.inv(cv2.getPerspectiveTransform(square, (px - (x0, y0)).astype(np.float32)))
    yy, xx = np.mgrid[0 : y1 - y0, 0 : x1 - x0].astype(np.float32)
    ab = cv2.perspectiveTransform(np.dstack([xx, yy]).reshape(-1, 1, 2), to_face)
    a, b = ab[:, 0, 0].reshape(xx.shape) - side / 2, ab[:, 0, 1].reshape(xx.shape) - side / 2
    # The room's reflection, brighter on the side towards the main lamp.
    towards = lights[0].position - top.mean(axis=0)
    da, db = float(towards @ e1), float(towards @ e2)
    norm = math.hypot(da, db) or 1.0
    value = shine.sheen * (0.55 + 0.45 * np.clip(0.5 + (a * da + b * db) / (norm * side), 0, 1))
    eye = view.position
    for lamp in lights:
        seen = _mirror(eye, lamp.position, top.mean(axis=0), normal)
        if seen is None:
            continue
        point, share = seen
        r = lamp.radius * share
        pa, pb = float((point - top[0]) @ e1) - side / 2, float((point - top[0]) @ e2) - side / 2
        if math.hypot(pa, pb) > 3 * r + side:
            continue
        d = np.hypot(a - pa, b - pb)
        disc = np.clip((r - d) / (0.35 * r) + 0.5, 0, 1)
        value = value + lamp.power * (disc + 0.2 * np.exp(-((d / (2 * r)) ** 2)))
    canvas[y0:y1, x0:x1] += (mask * value)[..., None]


def glare(
    canvas: FloatImage,
    view: View,
    lights: Sequence[Lamp],
    strength: float,
    rng: np.random.Generator,
    scale: int,
) -> None:
    """A glossy table's reflections: each lamp's soft mirror image on the table plane and a
    few long soft streaks (a window, a shelf's edge), ``strength`` times a full mirror's."""
    h, w = canvas.shape[:2]
    step = 8
    sh, sw = max(2, h // step), max(2, w // step)
    gy, gx = np.mgrid[0:sh, 0:sw].astype(np.float64)
    pixels = np.c_[
        ((gx.ravel() + 0.5) * step - 0.5) / scale, ((gy.ravel() + 0.5) * step - 0.5) / scale
    ]
    table = view.to_table(pixels)
    x, y = table[:, 0].reshape(sh, sw), table[:, 1].reshape(sh, sw)
    value = np.zeros((sh, sw), np.float64)
    eye = view.position
    for lamp in lights:
        seen = _mirror(eye, lamp.position, np.zeros(3), np.array([0.0, 0.0, 1.0]))
        if seen is None:
            continue
        point, share = seen
        r = lamp.radius * share
        d = np.hypot(x - point[0], y - point[1])
        value += lamp.power * (
            0.8 * np.clip((r - d) / (0.4 * r) + 0.5, 0, 1) + 0.25 * np.exp(-((d / (2.5 * r)) ** 2))
        )
    for _ in range(int(rng.integers(1, 4))):
        cx, cy = rng.uniform(x.min(), x.max()), rng.uniform(y.min(), y.max())
        turn = rng.uniform(0, math.pi)
        width = rng.uniform(30, 100)
        across = (x - cx) * -math.sin(turn) + (y - cy) * math.cos(turn)
        value += rng.uniform(15, 45) * np.exp(-((across / width) ** 4))
    up = cv2.resize((value * strength).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    canvas += up[..., None]


def mirror_images(
    canvas: FloatImage,
    view: View,
    boxes: Sequence[tuple[Points, Sequence[float]]],
    strength: float,
    scale: int,
) -> None:
    """Each cube's dim reflection in a glossy table (drawn before the cubes, which hide most)."""
    for corners, albedo in boxes:
        mirrored = corners * np.array([1.0, 1.0, -1.0])
        hull = cv2.convexHull(view.project(mirrored).astype(np.float32)).reshape(-1, 2)
        add(canvas, hull.astype(np.float64), np.asarray(albedo) * 0.45 * strength, scale)


# ---------------------------------------------------------------------------------------------
# Tables


def table_texture(
    rng: np.random.Generator, table: str, view: View, shape: tuple[int, int], scale: int
) -> FloatImage:
    """One of ``WIDE_TABLES`` drawn in the table plane and warped into the canvas."""
    corners = view.to_table(
        np.array([[0, 0], [view.width, 0], [view.width, view.height], [0, view.height]], float)
    )
    lo, hi = corners.min(axis=0) - 5, corners.max(axis=0) + 5
    k = view.focal / view.distance  # texture pixels per mm: about the frame's
    size = (int((hi[1] - lo[1]) * k) + 1, int((hi[0] - lo[0]) * k) + 1)
    if table in FELTS:
        texture = _felt(rng, FELTS[table], size)
    elif table == "cloth":
        texture = _cloth(rng, size, k)
    elif table == FLOWERED:
        texture = _flowers(rng, size, k)
    elif table == STRIPED:
        texture = _striped(rng, size, k)
    elif table == "mat":
        texture = _mat(rng, size, k)
    elif table == "laminate":
        texture = _laminate(rng, size, k)
    elif table == "lacquer":
        texture = _lacquer(rng, size, k)
    else:
        tables = ", ".join((*WIDE_TABLES, FLOWERED, STRIPED))
        raise ValueError(f"table must be one of {tables}, not {table!r}")
    to_tex = np.array([[k, 0, -lo[0] * k], [0, k, -lo[1] * k], [0, 0, 1]])
    to_canvas = np.diag([scale, scale, 1.0]) @ view.table_homography() @ np.linalg.inv(to_tex)
    return f32(
        cv2.warpPerspective(
            texture,
            to_canvas,
            (shape[1], shape[0]),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REFLECT,
        )
    )


def _plain(colour: Sequence[float] | Colours, size: tuple[int, int]) -> FloatImage:
    out = np.empty((*size, 3), np.float32)
    out[:] = np.asarray(colour, np.float32)
    return out


def _fuzz(rng: np.random.Generator, size: tuple[int, int], sigma: float = 0.6) -> FloatImage:
    return f32(cv2.GaussianBlur(rng.normal(0, 1, size).astype(np.float32), (0, 0), sigma))


def _felt(rng: np.random.Generator, colour: Colour, size: tuple[int, int]) -> FloatImage:
    out = _plain(np.asarray(colour) * rng.uniform(0.88, 1.1) * (1 + rng.normal(0, 0.04, 3)), size)
    out *= (1 + 0.05 * _fuzz(rng, size) + 0.03 * smooth_noise(rng, size, 75))[..., None]
    return out


def _palette(rng: np.random.Generator, count: int) -> list[npt.NDArray[np.float32]]:
    picks = rng.choice(len(PALETTE), size=count, replace=False)
    return [np.array(PALETTE[int(i)], np.float32) * rng.uniform(0.9, 1.05) for i in picks]


def _woven(rng: np.random.Generator, out: FloatImage, k: float) -> FloatImage:
    """A cloth's weave fuzz and soft folds over ``out`` (``k`` texture pixels per mm)."""
    size = out.shape[:2]
    out *= (1 + 0.04 * _fuzz(rng, size) + 0.05 * smooth_noise(rng, size, 40 * k))[..., None]
    return out


def _turned(
    size: tuple[int, int], k: float, turn: float
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The texture's pixels in mm along a weave turned by ``turn`` (radians) and across it."""
    yy, xx = np.mgrid[0 : size[0], 0 : size[1]].astype(np.float32) / k
    u = xx * math.cos(turn) + yy * math.sin(turn)
    v = -xx * math.sin(turn) + yy * math.cos(turn)
    return u, v


def _cloth(rng: np.random.Generator, size: tuple[int, int], k: float) -> FloatImage:
    """Gingham checks, stripes or a print of small motifs, with weave fuzz and soft folds."""
    colours = _palette(rng, 4)
    u, v = _turned(size, k, rng.uniform(0, math.pi))
    kind = int(rng.integers(3))
    if kind == 0:
        period = rng.uniform(8, 36)
        bu = ((u / period) % 1 < 0.5)[..., None]
        bv = ((v / period) % 1 < 0.5)[..., None]
        out = np.where(
            bu & bv, colours[1], np.where(bu | bv, (colours[0] + colours[1]) / 2, colours[0])
        )
        if rng.random() < 0.5:  # a tartan's thin line
            line = ((u / period) % 1 < 0.06)[..., None] | ((v / period) % 1 < 0.06)[..., None]
            out = np.where(line, colours[2], out)
        out = out.astype(np.float32)
    elif kind == 1:
        widths = rng.uniform(3, 25, int(rng.integers(3, 8)))
        edges = np.cumsum(widths)
        which = np.searchsorted(edges, u % edges[-1], side="right") % len(widths)
        table = np.array([colours[i % 4] for i in range(len(widths))], np.float32)
        out = table[which]
    else:
        out = _plain(colours[0], size)
        spacing = rng.uniform(12, 40)
        count = int(size[0] * size[1] / (spacing * k) ** 2)
        for _ in range(count):
            _motif(rng, out, colours[1 + int(rng.integers(3))], k)
    return _woven(rng, out, k)


def _striped(rng: np.random.Generator, size: tuple[int, int], k: float) -> FloatImage:
    """Half the cloth white: stripes of a colour and white with a thin line of a second colour
    in the white, or a gingham (white, the colour, and their mix where bands cross)."""
    a = np.array(_DARK[int(rng.integers(len(_DARK)))], np.float32)  # not pale, not grey
    b = np.array(PALETTE[int(rng.integers(1, len(PALETTE)))], np.float32)  # not white
    white = np.array(PALETTE[0], np.float32) * rng.uniform(0.95, 1.05)
    u, v = _turned(size, k, rng.uniform(0, math.pi))
    u, v = u / rng.uniform(8, 40), v / rng.uniform(8, 40)  # in periods
    if rng.random() < 0.5:
        band = (u % 1)[..., None]
        out = np.where(band < 0.5, a, white)
        out = np.where((band > 0.62) & (band < 0.7), b, out).astype(np.float32)
    else:
        mix = ((np.floor(2 * u) % 2 + np.floor(2 * v) % 2) / 2)[..., None]
        out = (white * (1 - mix) + a * mix).astype(np.float32)
    return _woven(rng, out, k)


def _motif(rng: np.random.Generator, out: FloatImage, colour: Colours, k: float) -> None:
    h, w = out.shape[:2]
    x, y = rng.uniform(0, w), rng.uniform(0, h)
    r = rng.uniform(2.5, 9) * k
    c = tuple(float(v) for v in colour)
    kind = int(rng.integers(3))
    if kind == 0:  # a dot
        cv2.circle(out, (int(x), int(y)), max(1, int(r)), c, -1, cv2.LINE_AA)
    elif kind == 1:  # a flower: five petals round a heart
        for p in range(5):
            a = 2 * math.pi * p / 5
            centre = (int(x + 0.6 * r * math.cos(a)), int(y + 0.6 * r * math.sin(a)))
            cv2.circle(out, centre, max(1, int(0.45 * r)), c, -1, cv2.LINE_AA)
    else:  # a leaf
        axes = (max(1, int(r)), max(1, int(0.4 * r)))
        cv2.ellipse(out, (int(x), int(y)), axes, rng.uniform(0, 180), 0, 360, c, -1, cv2.LINE_AA)


def _flowers(rng: np.random.Generator, size: tuple[int, int], k: float) -> FloatImage:
    """Flowers 8-30 mm across, close together on a plain ground, in rows or scattered: petals
    pale on a dark or saturated ground (3 prints in 4) or dark on a pale one, with hearts of a
    third colour. Pale petals and dark grounds are what a white or black shard lies among."""
    petals_pale = rng.random() < 0.75
    grounds, petals = (_DARK, _PALE) if petals_pale else (_PALE, _DARK)
    ground = np.array(grounds[int(rng.integers(len(grounds)))], np.float32)
    ground *= rng.uniform(0.85, 1.05)
    petal = np.array(petals[int(rng.integers(len(petals)))], np.float32)
    heart = np.array(PALETTE[int(rng.integers(len(PALETTE)))], np.float32)
    out = _plain(ground, size)
    across = rng.uniform(8, 30)  # mm
    spacing = across * rng.uniform(1.15, 2.0)
    h, w = size
    if rng.random() < 0.6:  # rows, every other one shifted by half a flower
        turn = math.degrees(rng.uniform(0, math.pi))
        span = math.hypot(w, h) / (spacing * k) / 2 + 2
        steps = np.arange(-span, span + 1)
        grid = np.array([(c + (r % 2) / 2, r * 0.87) for r in steps for c in steps])
        grid += rng.uniform(-0.12, 0.12, grid.shape)
        centres = grid @ rotation(turn).T * spacing * k + (w / 2, h / 2)
    else:
        count = int(w * h / (spacing * k) ** 2)
        centres = np.c_[rng.uniform(0, w, count), rng.uniform(0, h, count)]
    centres = centres[
        (centres[:, 0] > -across * k) & (centres[:, 0] < w + across * k)
        & (centres[:, 1] > -across * k) & (centres[:, 1] < h + across * k)
    ]  # fmt: skip
    n_petals = int(rng.integers(4, 9))
    for x, y in centres:
        r = across / 2 * k * rng.uniform(0.85, 1.15)
        colour = tuple(float(v) for v in petal * rng.uniform(0.92, 1.05))
        start = rng.uniform(0, 2 * math.pi)
        for p in range(n_petals):
            a = start + 2 * math.pi * p / n_petals
            centre = (int(x + 0.55 * r * math.cos(a)), int(y + 0.55 * r * math.sin(a)))
            axes = (max(1, int(0.45 * r)), max(1, int(0.28 * r * 5 / n_petals + 0.06 * r)))
            cv2.ellipse(out, centre, axes, math.degrees(a), 0, 360, colour, -1, cv2.LINE_AA)
        core = tuple(float(v) for v in heart)
        cv2.circle(out, (int(x), int(y)), max(1, int(0.22 * r)), core, -1, cv2.LINE_AA)
    return _woven(rng, out, k)


def _mat(rng: np.random.Generator, size: tuple[int, int], k: float) -> FloatImage:
    """A printed game mat: a ground colour, big coloured panels and discs with outlines, a
    numbered track, and words of small text (drawn 8-bit, as ``cv2.putText`` needs)."""
    grounds = ((200, 212, 218), (92, 62, 32), (62, 102, 52), (72, 72, 76), (150, 190, 216))
    ground = np.array(grounds[int(rng.integers(len(grounds)))]) * rng.uniform(0.9, 1.05)
    out = np.empty((*size, 3), np.uint8)
    out[:] = np.clip(ground, 0, 255).astype(np.uint8)
    colours = [_ints(c) for c in _palette(rng, 6)]
    ink = (30, 30, 34) if ground.mean() > 120 else (225, 225, 225)
    _mat_panels(rng, out, colours, ink, k)
    _mat_track(rng, out, colours, ink, k)
    _mat_text(rng, out, colours, ink, k)
    return out.astype(np.float32) * (1 + 0.02 * _fuzz(rng, size))[..., None]


def _ints(colour: Sequence[float] | Colours) -> tuple[int, int, int]:
    b, g, r = (int(np.clip(v, 0, 255)) for v in colour)
    return (b, g, r)


def _mat_panels(
    rng: np.random.Generator,
    out: Image,
    colours: list[tuple[int, int, int]],
    ink: tuple[int, int, int],
    k: float,
) -> None:
    """3-7 outlined panels (discs, boxes), then 2-7 bare shapes of print, a third of them as
    white or black as a shard: discs, rings, turned boxes and polygons whose corners could pass
    for a shard's edge, 30-190 mm across (a board game's art)."""
    h, w = out.shape[:2]
    line = max(1, int(1.2 * k))
    for _ in range(int(rng.integers(3, 8))):
        c = colours[int(rng.integers(len(colours)))]
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        r = int(rng.uniform(20, 110) * k)
        if rng.random() < 0.5:
            cv2.circle(out, (x, y), r, c, -1, cv2.LINE_AA)
            cv2.circle(out, (x, y), r, ink, line, cv2.LINE_AA)
        else:
            corner = (x + int(r * rng.uniform(0.8, 2.5)), y + r)
            cv2.rectangle(out, (x, y), corner, c, -1, cv2.LINE_AA)
            cv2.rectangle(out, (x, y), corner, ink, line, cv2.LINE_AA)
    bare = ((236, 232, 226), (222, 226, 230), (34, 30, 30), (40, 40, 44))
    for _ in range(int(rng.integers(2, 8))):
        if rng.random() < 0.35:
            c = _ints(np.array(bare[int(rng.integers(len(bare)))]) * rng.uniform(0.92, 1.05))
        else:
            c = colours[int(rng.integers(len(colours)))]
        centre = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        at = (int(centre[0]), int(centre[1]))
        reach = rng.uniform(15, 95) * k
        kind = int(rng.integers(4))
        if kind == 0:
            cv2.circle(out, at, int(reach), c, -1, cv2.LINE_AA)
        elif kind == 1:
            width = max(2, int(rng.uniform(4, 14) * k))
            cv2.circle(out, at, int(reach), c, width, cv2.LINE_AA)
        elif kind == 2:
            sides = (float(reach * rng.uniform(0.6, 2)), float(reach * rng.uniform(0.6, 2)))
            box = cv2.boxPoints((at, sides, rng.uniform(0, 90)))
            cv2.fillPoly(out, [box.astype(np.int32)], c, cv2.LINE_AA)
        else:
            points = rng.uniform(-1, 1, (int(rng.integers(3, 7)), 2)) * reach + centre
            cv2.fillPoly(out, [cv2.convexHull(points.astype(np.int32))], c, cv2.LINE_AA)


def _mat_track(
    rng: np.random.Generator,
    out: Image,
    colours: list[tuple[int, int, int]],
    ink: tuple[int, int, int],
    k: float,
) -> None:
    h, w = out.shape[:2]
    cell = rng.uniform(12, 20) * k
    row = rng.uniform(0.1, 0.9) * h
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in range(int(w / cell)):
        p0, p1 = (int(i * cell), int(row)), (int((i + 1) * cell) - 1, int(row + cell))
        cv2.rectangle(out, p0, p1, colours[i % 3], -1)
        cv2.rectangle(out, p0, p1, ink, 1)
        cv2.putText(out, str(i + 1), (p0[0] + 2, p1[1] - 3), font, cell / 60, ink, 1, cv2.LINE_AA)


def _mat_text(
    rng: np.random.Generator,
    out: Image,
    colours: list[tuple[int, int, int]],
    ink: tuple[int, int, int],
    k: float,
) -> None:
    h, w = out.shape[:2]
    letters = "ABCDEFGHIJKLMNOPRSTUVWXYZ"
    for _ in range(int(rng.integers(25, 60))):
        picks = rng.integers(len(letters), size=int(rng.integers(3, 10)))
        word = "".join(letters[int(i)] for i in picks)
        scale = rng.uniform(3, 7) * k / 22  # letters 3-7 mm high
        at = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        colour = ink if rng.random() < 0.7 else colours[int(rng.integers(len(colours)))]
        weight = max(1, int(scale * 2))
        cv2.putText(out, word, at, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, weight, cv2.LINE_AA)


def _grain(rng: np.random.Generator, size: tuple[int, int], k: float) -> FloatImage:
    """Long faint streaks along x (a laminate's or a lacquer's grain), unit amplitude."""
    small = (max(2, int(size[0] / (4 * k))), max(2, int(size[1] / (80 * k))))
    field = f32(
        cv2.resize(
            rng.normal(0, 1, small).astype(np.float32),
            (size[1], size[0]),
            interpolation=cv2.INTER_CUBIC,
        )
    )
    grain: FloatImage = field / (field.std() + 1e-6)
    return grain


def _laminate(rng: np.random.Generator, size: tuple[int, int], k: float) -> FloatImage:
    """Light, nearly white laminate: a faint grain and a few specks."""
    colour = np.array([226, 232, 236]) * rng.uniform(0.96, 1.04) * (1 + rng.normal(0, 0.015, 3))
    out = _plain(colour, size)
    out *= (1 + 0.007 * _grain(rng, size, k) + 0.008 * _fuzz(rng, size))[..., None]
    for _ in range(int(size[0] * size[1] / (30 * k) ** 2)):
        at = (int(rng.uniform(0, size[1])), int(rng.uniform(0, size[0])))
        cv2.circle(out, at, max(1, int(0.3 * k)), tuple(float(v) * 0.9 for v in colour), -1)
    return out


def _lacquer(rng: np.random.Generator, size: tuple[int, int], k: float) -> FloatImage:
    """Dark glossy lacquer (its reflections are added later by ``glare``)."""
    bases = ((20, 22, 26), (18, 28, 50), (32, 26, 22))
    out = _plain(np.array(bases[int(rng.integers(3))]) * rng.uniform(0.85, 1.2), size)
    out *= (1 + 0.06 * _grain(rng, size, k) + 0.02 * _fuzz(rng, size))[..., None]
    return out


# ---------------------------------------------------------------------------------------------
# The lens and the camera's processing


@dataclass(frozen=True)
class Distortion:
    """Radial lens distortion ``k1`` in focal-normalised coordinates round the frame's centre.
    With barrel distortion (k1 < 0) the image is magnified so that the frame's corners stay its
    corners (a wide lens's crop), so every frame pixel sees the rendered view."""

    k1: float
    focal: float
    centre: tuple[float, float]
    gain: float

    @staticmethod
    def of(k1: float, view: View) -> Distortion:
        corner = math.hypot(view.width / 2, view.height / 2) / view.focal
        gain = 1.0 / (1.0 + min(k1, 0.0) * corner**2)
        return Distortion(k1, view.focal, (view.width / 2, view.height / 2), gain)

    def apply(self, pixels: Points) -> Points:
        """Where undistorted frame pixels (N, 2) appear through the lens."""
        rel = (np.asarray(pixels, np.float64) - self.centre) / self.focal
        r2 = (rel**2).sum(axis=1, keepdims=True)
        seen: Points = self.centre + rel * (1 + self.k1 * r2) * self.gain * self.focal
        return seen

    def invert(self, pixels: Points) -> Points:
        """The undistorted pixels that the lens shows at these (N, 2) frame pixels."""
        rel = (np.asarray(pixels, np.float64) - self.centre) / (self.focal * self.gain)
        out = rel.copy()
        for _ in range(8):
            out = rel / (1 + self.k1 * (out**2).sum(axis=1, keepdims=True))
        return self.centre + out * self.focal

    def remap(self, image: FloatImage, offset: float = 0.0) -> FloatImage:
        """The frame seen through the lens; pixel ``i`` of ``image`` shows frame coordinate
        ``i + offset``. The map is computed on a coarse grid (it is smooth) and enlarged."""
        h, w = image.shape[:2]
        step = 4
        sh, sw = h // step, w // step
        gy, gx = np.mgrid[0:sh, 0:sw].astype(np.float64)
        cx, cy = (gx + 0.5) * step - 0.5, (gy + 0.5) * step - 0.5
        src = self.invert(np.c_[cx.ravel(), cy.ravel()] + offset) - offset
        dx = (src[:, 0] - cx.ravel()).reshape(sh, sw).astype(np.float32)
        dy = (src[:, 1] - cy.ravel()).reshape(sh, sw).astype(np.float32)
        grid_x, grid_y = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        map_x = grid_x + cv2.resize(dx, (w, h), interpolation=cv2.INTER_LINEAR)
        map_y = grid_y + cv2.resize(dy, (w, h), interpolation=cv2.INTER_LINEAR)
        return f32(cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT))


@dataclass(frozen=True)
class Post:
    """The camera's side of a frame: the light's colour, the white-balance gains and the
    exposure (one per-channel gain), the lens, camera shake, the extra sensor noise of a dim
    frame, and JPEG."""

    gains: npt.NDArray[np.float64]
    lens: Distortion | None
    shake: float
    shake_angle: float
    grain: float
    rng: np.random.Generator
    jpeg: int | None

    @staticmethod
    def of(look: Look, rng: np.random.Generator, lens: Distortion | None) -> Post | None:
        gains = illuminant(look.kelvin) if look.kelvin is not None else np.ones(3)
        if isinstance(look.white_balance, (int, float)):
            error = look.white_balance
            gains = gains * np.array(
                [1 + rng.uniform(-error, error), 1.0, 1 + rng.uniform(-error, error)]
            )
        else:
            gains = gains * np.asarray(look.white_balance, np.float64)
        gains = gains * look.exposure
        grain = 3.0 * (1 / look.exposure - 1) if look.exposure < 1 else 0.0
        angle = rng.uniform(0, 180)
        neutral = np.allclose(gains, 1.0, rtol=0, atol=1e-12)
        if neutral and lens is None and not look.motion_blur and not grain and look.jpeg is None:
            return None
        return Post(gains, lens, look.motion_blur, angle, grain, rng, look.jpeg)

    def optics(self, image: FloatImage, offset: float) -> FloatImage:
        """The light's colour, white balance and exposure, then the lens (on the float frame,
        whose pixel ``i`` shows coordinate ``i + offset``: nothing clips before the sensor)."""
        if not np.allclose(self.gains, 1.0, rtol=0, atol=1e-12):
            image *= self.gains.astype(np.float32)
        return image if self.lens is None else self.lens.remap(image, offset)

    def blur(self, image: FloatImage) -> FloatImage:
        """A linear motion blur ``shake`` pixels long, centred (no shift)."""
        if self.shake <= 0:
            return image
        size = 2 * math.ceil(self.shake / 2) + 3
        fine = 8
        kernel = np.zeros((size * fine, size * fine), np.float32)
        c = (size * fine - 1) / 2  # the middle pixel's centre: no shift
        dx = math.cos(math.radians(self.shake_angle)) * self.shake * fine / 2
        dy = math.sin(math.radians(self.shake_angle)) * self.shake * fine / 2
        p0, p1 = (
            (round((c - dx) * 16), round((c - dy) * 16)),
            (round((c + dx) * 16), round((c + dy) * 16)),
        )
        cv2.line(kernel, p0, p1, (1.0,), fine, cv2.LINE_AA, 4)
        small = cv2.resize(kernel, (size, size), interpolation=cv2.INTER_AREA)
        return f32(cv2.filter2D(image, -1, small / small.sum(), borderType=cv2.BORDER_REFLECT))

    def noise(self, image: FloatImage) -> FloatImage:
        if self.grain <= 0:
            return image
        return image + self.rng.normal(0, self.grain, image.shape).astype(np.float32)


def jpeg(image: Image, quality: int) -> Image:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    out = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    assert out is not None
    return u8(out)


# ---------------------------------------------------------------------------------------------
# Calibration markers on paper


@dataclass(frozen=True)
class Paper:
    """A printed marker lying on the table: its id, the paper's top-left corner (mm), its turn
    (degrees), the quiet zone's width (mm) and the paper's and ink's colours."""

    marker: int
    origin: tuple[float, float]
    turn: float
    quiet: float
    white: Colour
    ink: Colour

    @property
    def side(self) -> float:
        return MARKER_MM + 2 * self.quiet

    def _to_table(self, local: Points) -> Points:
        c, s = math.cos(math.radians(self.turn)), math.sin(math.radians(self.turn))
        table: Points = local @ np.array([[c, s], [-s, c]]) + self.origin
        return table

    def outline(self) -> Points:
        p = self.side
        return self._to_table(np.array([[0, 0], [p, 0], [p, p], [0, p]], np.float64))

    def ink_corners(self) -> Points:
        """The black square's corners (its own TL, TR, BR, BL, like ``detect_markers``), mm."""
        q, m = self.quiet, self.quiet + MARKER_MM
        return self._to_table(np.array([[q, q], [m, q], [m, m], [q, m]], np.float64))


def _texture_mm(view: View, scale: int) -> tuple[int, float]:
    """Side of a printed marker's texture (pixels, a whole number of modules) and the mm
    one of its pixels covers: about the canvas's own density."""
    density = scale * view.focal / view.distance
    side_px = MODULES * max(2, round(MARKER_MM * density / MODULES))
    return side_px, MARKER_MM / side_px


def place_papers(
    rng: np.random.Generator, view: View, lens: Distortion | None, scale: int
) -> list[Paper]:
    """Markers 0-3 at the top-left, top-right, bottom-right and bottom-left of the frame's
    view of the table, upright give or take a few degrees, a little inside the frame; the
    quiet zone (6-12 mm) is a whole number of the printed texture's pixels."""
    _, mm = _texture_mm(view, scale)
    frame = np.array([[0, 0], [view.width, 0], [view.width, view.height], [0, view.height]], float)
    inwards = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], float)
    papers = []
    for marker in range(4):
        quiet = round(rng.uniform(6, 12) / mm) * mm
        white = _bgr(np.array([232, 236, 238]) * rng.uniform(0.93, 1.03))
        ink = _bgr(np.full(3, rng.uniform(18, 34)))
        turn = rng.uniform(-4, 4)
        for attempt in range(12):
            inset = rng.uniform(30, 60) * view.width / 1280 + 6 * attempt
            target = frame[marker] + inwards[marker] * inset
            straight = lens.invert(target[None]) if lens else target[None]
            anchor = view.to_table(straight)[0]
            probe = Paper(marker, (0.0, 0.0), turn, quiet, white, ink)
            offset = probe.outline()[marker]
            origin = anchor - offset
            paper = Paper(marker, (float(origin[0]), float(origin[1])), turn, quiet, white, ink)
            seen = view.project(np.c_[paper.outline(), np.zeros(4)])
            seen = lens.apply(seen) if lens else seen
            if (
                seen[:, 0].min() >= 2
                and seen[:, 1].min() >= 2
                and seen[:, 0].max() <= view.width - 2
                and seen[:, 1].max() <= view.height - 2
            ):
                break
            turn = 0.0
        papers.append(paper)
    return papers


def paint_papers(canvas: FloatImage, view: View, papers: Sequence[Paper], scale: int) -> None:
    """The papers, printed sharp, warped onto the table in the canvas."""
    side_px, mm = _texture_mm(view, scale)
    for paper in papers:
        quiet_px = max(1, round(paper.quiet / mm))
        grey = marker_image(paper.marker, side_px, quiet_px)
        _paint_print(canvas, view, grey, mm, paper, paper.outline(), scale)


class _Printed(Protocol):
    """A printed sheet lying on the table (``Paper``, ``CheckCard``)."""

    @property
    def origin(self) -> tuple[float, float]: ...
    @property
    def turn(self) -> float: ...
    @property
    def white(self) -> Colour: ...
    @property
    def ink(self) -> Colour: ...


def _paint_print(
    canvas: FloatImage,
    view: View,
    grey: Image,
    mm: float,
    sheet: _Printed,
    outline: Points,
    scale: int,
) -> None:
    """A printed grey image (0 ink, 255 paper; a pixel ``mm`` millimetres wide) lying flat at
    ``sheet``'s origin and turn, in its paper's and ink's colours, warped into the canvas."""
    shade = grey.astype(np.float32) / 255
    ink, white = np.array(sheet.ink, np.float32), np.array(sheet.white, np.float32)
    texture = ink + (white - ink) * shade[..., None]
    c, s = math.cos(math.radians(sheet.turn)), math.sin(math.radians(sheet.turn))
    o = sheet.origin
    to_table = np.array(
        [
            [c * mm, -s * mm, o[0] + (c - s) * 0.5 * mm],
            [s * mm, c * mm, o[1] + (s + c) * 0.5 * mm],
            [0, 0, 1],
        ]
    )
    box = _roi(view.project(np.c_[outline, np.zeros(4)]) * scale, canvas.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    to_roi = shift @ np.diag([scale, scale, 1.0]) @ view.table_homography() @ to_table
    size = (x1 - x0, y1 - y0)
    flags, border = cv2.INTER_LINEAR, cv2.BORDER_CONSTANT
    warped = cv2.warpPerspective(texture, to_roi, size, flags=flags, borderMode=border)
    cover = cv2.warpPerspective(
        np.ones(shade.shape, np.float32), to_roi, size, flags=flags, borderMode=border
    )
    roi = canvas[y0:y1, x0:x1]
    roi *= (1 - cover)[..., None]
    roi += warped


# ---------------------------------------------------------------------------------------------
# Something at the frame's edge: a hand, a dice cup


@dataclass(frozen=True)
class Occluder:
    """Something standing or hovering over the table at the frame's edge, in a box of the
    canvas (x0, y0, x1, y1): how much it covers each pixel (``alpha``, 0-1), its colour there
    already multiplied by ``alpha``, and the darkening of its soft shadow on the table and
    dice."""

    box: tuple[int, int, int, int]
    alpha: FloatImage
    colour: FloatImage
    shadow: FloatImage

    def paint(self, canvas: FloatImage) -> None:
        x0, y0, x1, y1 = self.box
        roi = canvas[y0:y1, x0:x1]
        roi *= ((1 - self.alpha) * (1 - self.shadow * (1 - self.alpha)))[..., None]
        roi += self.colour

    def covers(self, pts: Points, scale: int, shape: tuple[int, ...]) -> float:
        """The share of a polygon (frame pixels) that the object hides."""
        px = np.asarray(pts) * scale
        box = _roi(px, shape, pad=1)
        if box is None:
            return 0.0
        mask = _mask(px, box)
        total = float(mask.sum())
        bx0, by0, _, _ = box
        x0, y0, x1, y1 = self.box
        ix0, iy0 = max(box[0], x0), max(box[1], y0)
        ix1, iy1 = min(box[2], x1), min(box[3], y1)
        if ix1 <= ix0 or iy1 <= iy0 or total == 0:
            return 0.0
        part = mask[iy0 - by0 : iy1 - by0, ix0 - bx0 : ix1 - bx0]
        part = part * self.alpha[iy0 - y0 : iy1 - y0, ix0 - x0 : ix1 - x0]
        return float(part.sum()) / total


def _capsule(a: Points, b: Points, radius: float, n: int = 10) -> npt.NDArray[np.float32]:
    t = np.linspace(0, 2 * math.pi, 2 * n, endpoint=False)
    ring = np.c_[np.cos(t), np.sin(t)] * radius
    hull = cv2.convexHull(np.vstack([a + ring, b + ring]).astype(np.float32))
    return f32(hull.reshape(-1, 2))


def _hand_parts(
    rng: np.random.Generator,
) -> tuple[list[Points | npt.NDArray[np.float32]], float]:
    """A hand and forearm in mm, the wrist at the origin and the fingers towards +x, and its
    reach (wrist to the farthest fingertip)."""
    wrist = rng.uniform(26, 32)
    palm = wrist + 14
    side = 1 if rng.random() < 0.5 else -1
    parts = [
        np.array([[-600, -1.3 * wrist], [0, -wrist], [0, wrist], [-600, 1.3 * wrist]]),
        np.c_[
            48 + 50 * np.cos(np.linspace(0, 2 * math.pi, 40)),
            palm * np.sin(np.linspace(0, 2 * math.pi, 40)),
        ],
    ]
    reach = 98.0
    for across, length, radius in ((-27, 68, 8.5), (-9, 76, 9.0), (9, 70, 8.7), (26, 56, 7.6)):
        y = across * palm / 44 * side
        curl = rng.uniform(0.45, 1.0)
        turn = math.radians(y * 0.25 + rng.normal(0, 4))
        tip = np.array(
            [
                88 + length * curl * rng.uniform(0.92, 1.08) * math.cos(turn),
                y + length * curl * math.sin(turn),
            ]
        )
        parts.append(_capsule(np.array([80.0, y]), tip, radius))
        reach = max(reach, float(tip[0]) + radius)
    turn = side * rng.uniform(0.6, 1.1)
    base = np.array([35.0, side * (wrist + 6)])
    thumb = rng.uniform(48, 62) * rng.uniform(0.6, 1.0)
    parts.append(_capsule(base, base + thumb * np.array([math.cos(turn), math.sin(turn)]), 10.0))
    return parts, reach


def hand(
    rng: np.random.Generator,
    view: View,
    shape: tuple[int, int],
    scale: int,
    light_dir: tuple[float, float],
    targets: Sequence[tuple[float, float]],
) -> Occluder:
    """A player's hand and forearm reaching in from one edge of the frame, 100-250 mm above
    the table (so a little larger than the table's scale), skin of one of five tones, rounded
    by shading, slightly out of focus, with its soft shadow. Most of the time it reaches for a
    die near that edge (``targets``: dice centres, frame pixels), and may cover part of it."""
    w, h = view.width, view.height
    edge = int(rng.integers(4))  # left, top, right, bottom
    inward = np.array([(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][edge])
    start = np.array([(0.0, 0.0), (0.0, 0.0), (w, 0.0), (0.0, h)][edge])
    along = np.abs(inward[::-1])
    span = h if edge in (0, 2) else w
    parts, reach = _hand_parts(rng)
    height = rng.uniform(100, 250)
    table_px = view.focal / view.distance
    px = table_px * view.distance / (view.distance - height)
    near = [np.array(t) for t in targets if float((np.array(t) - start) @ inward) < 0.4 * min(w, h)]
    if near and rng.random() < 0.7:
        goal = near[int(rng.integers(len(near)))]
        depth = float((goal - start) @ inward) + rng.uniform(-0.4, 1.2) * 16 * table_px
        where = float(goal @ along)
    else:
        depth = rng.uniform(80, 400) * w / 1280
        where = rng.uniform(0.15, 0.85) * span
    heading = math.atan2(inward[1], inward[0]) + rng.uniform(-0.45, 0.45)
    direction = np.array([math.cos(heading), math.sin(heading)])
    tip = start + along * where + inward * depth
    wrist = tip - direction * reach * px
    turn = np.array([[direction[0], -direction[1]], [direction[1], direction[0]]])
    canvas_parts = [(wrist + p @ turn.T * px) * scale for p in parts]
    shift = np.asarray(light_dir) * height * table_px * scale
    every = np.vstack(canvas_parts)
    blur = (6 + 0.08 * height) * table_px * scale
    box = _roi(np.vstack([every, every + shift]), (*shape, 3), pad=int(3 * blur) + 4)
    assert box is not None
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for p in canvas_parts:
        cv2.fillPoly(mask, [np.round((p - (x0, y0)) * 16).astype(np.int32)], (255,), cv2.LINE_8, 4)
    alpha = f32(cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 1.0 * scale))
    finger = 9 * px * scale
    depth_in = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
    shade = 0.72 + 0.36 * (1 - np.exp(-depth_in / (0.6 * finger)))
    skin = np.array(SKIN[int(rng.integers(len(SKIN)))]) * rng.uniform(0.92, 1.06)
    skin = skin * (1 + rng.normal(0, 0.03, 3))
    texture = 1 + 0.025 * smooth_noise(rng, mask.shape, 3 * scale)
    colour = (shade * texture * alpha)[..., None] * skin.astype(np.float32)
    shadow = rng.uniform(0.3, 0.45) * _blur_small(
        mask.astype(np.float32) / np.float32(255), blur, shift
    )
    return Occluder(box, alpha, colour.astype(np.float32), shadow.astype(np.float32))


def _blur_small(mask: FloatImage, sigma: float, shift: Points | None = None) -> FloatImage:
    """A mask blurred (and moved by ``shift`` pixels), done at a quarter size: it is soft."""
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    if shift is not None:
        move = np.array([[1, 0, shift[0] / 4], [0, 1, shift[1] / 4]], np.float32)
        small = cv2.warpAffine(small, move, (small.shape[1], small.shape[0]))
    small = cv2.GaussianBlur(small, (0, 0), max(0.5, sigma / 4))
    return f32(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR))


@dataclass(frozen=True)
class Cup:
    """A dice cup standing at the frame's edge: centre (mm, table plane), radius and height
    (mm) and colour."""

    x: float
    y: float
    radius: float
    height: float
    colour: Colour

    def ring(self, z: float, radius: float, n: int = 48) -> Points:
        t = np.linspace(0, 2 * math.pi, n, endpoint=False)
        ring: Points = np.c_[
            self.x + radius * np.cos(t), self.y + radius * np.sin(t), np.full(n, z)
        ]
        return ring

    def keepout(self) -> Points:
        """Its footprint and a 5 mm margin (mm), where no die lies."""
        return self.ring(0.0, self.radius + 5, 24)[:, :2]

    def occluder(
        self,
        rng: np.random.Generator,
        view: View,
        shape: tuple[int, int],
        scale: int,
        light_dir: tuple[float, float],
    ) -> Occluder:
        """The cup as seen: its wall, its lighter rim, its dark inside, and its cast shadow."""
        bottom, top = (
            view.project(self.ring(0, self.radius)),
            view.project(self.ring(self.height, self.radius)),
        )
        inner = view.project(self.ring(self.height, self.radius - 3))
        floor = view.project(self.ring(8, self.radius - 3))
        foot = self.ring(0, self.radius)[:, :2]
        far = foot + np.asarray(light_dir) * self.height
        cast = cv2.convexHull(np.vstack([foot, far]).astype(np.float32)).reshape(-1, 2)
        cast_px = view.project(np.c_[cast, np.zeros(len(cast))]) * scale
        wall = f32(cv2.convexHull(np.vstack([bottom, top]).astype(np.float32))).reshape(-1, 2)
        wall = wall * scale
        blur = 0.1 * self.height * view.focal / view.distance * scale
        box = _roi(np.vstack([wall, cast_px]), (*shape, 3), pad=int(3 * blur) + 4)
        assert box is not None
        x0, y0, x1, y1 = box
        alpha = _mask(wall, box)
        colour = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
        base = np.array(self.colour, np.float32)
        bands = 8  # the wall, from its foot (darker: the table's shade) to its lip
        for i in range(bands):
            low = view.project(self.ring(self.height * i / bands, self.radius))
            high = view.project(self.ring(self.height * (i + 1) / bands, self.radius))
            band = f32(cv2.convexHull(np.vstack([low, high]).astype(np.float32))).reshape(-1, 2)
            colour[_mask(band * scale, box) > 0] = base * (0.55 + 0.4 * (i + 1) / bands)
        for pts, share in ((top * scale, 1.3), (inner * scale, 0.4)):
            colour[_mask(pts, box) > 0] = base * share
        well = (_mask(inner * scale, box) * _mask(floor * scale, box)) > 0
        colour[well] = base * 0.22
        colour *= (1 + 0.04 * smooth_noise(rng, alpha.shape, 4 * scale))[..., None]
        alpha = f32(cv2.GaussianBlur(alpha, (0, 0), 0.8 * scale))
        shadow = 0.4 * _blur_small(_mask(cast_px, box), blur)
        return Occluder(box, alpha, colour * alpha[..., None], shadow.astype(np.float32))


def place_cup(rng: np.random.Generator, view: View) -> Cup:
    """A cup at a random edge, its foot's centre from 0.7 of its radius inside the frame to
    0.3 outside."""
    w, h = view.width, view.height
    edge = int(rng.integers(4))
    where = rng.uniform(0.2, 0.8)
    point = np.array([(0, where * h), (where * w, 0), (w, where * h), (where * w, h)][edge], float)
    outward = np.array([(-1.0, 0.0), (0.0, -1.0), (1.0, 0.0), (0.0, 1.0)][edge])
    radius = rng.uniform(38, 48)
    centre = view.to_table(point[None])[0] + outward * radius * rng.uniform(-0.7, 0.3)
    colour = np.array(CUP[int(rng.integers(len(CUP)))]) * rng.uniform(0.9, 1.1)
    return Cup(float(centre[0]), float(centre[1]), radius, rng.uniform(80, 110), _bgr(colour))


# ---------------------------------------------------------------------------------------------
# The colour check card (vision.color_check) lying on the table


@dataclass(frozen=True)
class CheckCard:
    """The printed colour check card on the table: its top-left corner (mm), its turn (degrees)
    and the paper's and ink's colours."""

    origin: tuple[float, float]
    turn: float
    white: Colour
    ink: Colour

    def to_table(self, local: Points) -> Points:
        """Millimetres on the card → millimetres on the table."""
        c, s = math.cos(math.radians(self.turn)), math.sin(math.radians(self.turn))
        table: Points = np.asarray(local, np.float64) @ np.array([[c, s], [-s, c]]) + self.origin
        return table

    def outline(self) -> Points:
        w, h = CARD_MM
        return self.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))

    def boxes(self) -> Points:
        """The boxes' centres on the table (red, yellow, blue, black)."""
        return self.to_table(np.array(BOX_CENTRES, np.float64))

    def ink_corners(self) -> Points:
        """The marker's black square's corners (TL, TR, BR, BL, like ``detect_markers``)."""
        x, y = MARKER_AT
        m = CHECK_MARKER_MM
        return self.to_table(np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]]))


def place_check_card(rng: np.random.Generator) -> CheckCard:
    """The card near the table's centre, turned a little, on ordinary printing paper."""
    w, h = CARD_MM
    turn = rng.uniform(-8, 8)
    centre = np.array([rng.uniform(-15, 15), rng.uniform(-10, 10)])
    probe = CheckCard((0.0, 0.0), turn, (0, 0, 0), (0, 0, 0))
    origin = centre - probe.to_table(np.array([[w / 2, h / 2]]))[0]
    white = _bgr(np.array([232, 236, 238]) * rng.uniform(0.93, 1.03))
    ink = _bgr(np.full(3, rng.uniform(18, 34)))
    return CheckCard((float(origin[0]), float(origin[1])), turn, white, ink)


def paint_check_card(canvas: FloatImage, view: View, card: CheckCard, scale: int) -> None:
    """The card, printed sharp, warped onto the table in the canvas."""
    _, mm = _texture_mm(view, scale)
    _paint_print(canvas, view, card_image(1 / mm), mm, card, card.outline(), scale)
