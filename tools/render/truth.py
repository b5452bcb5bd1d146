"""Ground truth of the Blender renders (``tools/render/render_scenes.py``), for benchmarks, tests.

Plain Python, numpy and OpenCV: no Blender. ``load("renders/dev/cubes-000123.json")`` gives a
``Rendered`` value: the image (as ``cv2.imread`` reads it), the dice as ``DieReading`` values
with confidence 1.0 (``RenderedDie`` adds the plastic, finish, pose and visible share), the
tessons as ``TessonReading`` values (``RenderedTesson`` adds printed, card, sleeve, visible, size),
the seat zones as a ``SeatMap``, the ArUco corner markers, the conditions and the colour-check
frame of a cubes scene. Everything is in pixels of the final (distorted) JPEG, x right, y down,
the centre of the top-left pixel at (0, 0), as OpenCV counts.

The lens model is also here (``distort``/``undistort``), because the renderer maps its ground
truth through it: a radial distortion ``r_d = r_u (1 + k1 r_u²)`` about the frame's centre, in
units of the focal length in pixels, as OpenCV's camera model with only ``k1``.

The format is described in docs/vision/renders.md.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vision.readings import DieReading, TessonReading  # noqa: E402
from vision.seats import SeatMap  # noqa: E402

FORMAT = "tabletop-companion render"
VERSION = 1
KINDS = ("cubes", "tessons")
COLORS = ("red", "yellow", "blue", "black")
POSES = ("flat", "leaning", "pile")
TABLE_FAMILIES = ("wood", "felt", "cloth", "lacquer", "mat", "laminate", "dark")
LIGHTS = ("warm", "neutral", "daylight", "mixed")
EXPOSURES = ("dim", "normal", "bright")
EDGE_OBJECTS = ("hand", "cup", "none")
CONDITIONS = (
    "table",
    "table_family",
    "light",
    "lights",
    "exposure",
    "hotspot",
    "shadows",
    "camera_height_mm",
    "tilt_deg",
    "white_balance",
    "distortion_k1",
    "noise",
    "motion_blur_px",
    "jpeg_quality",
    "edge_object",
    "samples",
)
"""Conditions every file has (it may have more, e.g. ``focal_px``)."""


class BadRender(ValueError):
    """A render's JSON that is not in this format: says which file and field."""


# --- the lens ---------------------------------------------------------------------------------


def distort(points: Any, width: int, height: int, focal_px: float, k1: float) -> np.ndarray:
    """Undistorted pixels (N, 2) of a ``width``×``height`` frame → pixels of the distorted frame."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    centre = np.array([width / 2 - 0.5, height / 2 - 0.5])
    normal = (pts - centre) / focal_px
    r2 = (normal**2).sum(axis=1, keepdims=True)
    return centre + normal * (1 + k1 * r2) * focal_px


def undistort(points: Any, width: int, height: int, focal_px: float, k1: float) -> np.ndarray:
    """The inverse of ``distort`` (Newton's method on the radius; exact to ~1e-9 px)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    centre = np.array([width / 2 - 0.5, height / 2 - 0.5])
    normal = (pts - centre) / focal_px
    rd = np.sqrt((normal**2).sum(axis=1))
    ru = rd.copy()
    for _ in range(20):
        f = ru * (1 + k1 * ru**2) - rd
        ru = ru - f / (1 + 3 * k1 * ru**2)
    scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
    return centre + normal * scale[:, None] * focal_px


# --- value objects ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedDie(DieReading):
    """A die of a render: a ``DieReading`` (confidence 1.0) and how it was made and lies."""

    plastic: str = "saturated"
    finish: str = "glossy"
    pose: str = "flat"
    visible: float = 1.0


@dataclass(frozen=True)
class RenderedTesson(TessonReading):
    """A tesson of a render: a ``TessonReading`` (confidence 1.0) and which card it is."""

    printed: bool = False
    card: str | None = None
    sleeve: bool = False
    visible: float = 1.0
    size: float | None = None  # px: a plain shard's width, a printed card's short side


@dataclass(frozen=True)
class Marker:
    """An ArUco corner marker fully in frame: its id and corners in cv2.aruco's order."""

    id: int
    corners: np.ndarray = field(compare=False)


@dataclass(frozen=True)
class CheckFrame:
    """The colour-check frame of a cubes scene: the printed colour check card
    (``vision.color_check``) with a flat die in each of its boxes (red, yellow, blue, black),
    cropped from the full frame at ``offset``; the dice and the card's marker (id 4, when
    nothing covers it) in the crop's own pixels. Files of the first check frames (four dice in
    a row on the bare table) have no card and no ``markers``: empty here."""

    path: Path
    image: np.ndarray = field(compare=False)
    offset: tuple[int, int]
    dice: tuple[RenderedDie, ...]
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True)
class Rendered:
    """One render and its ground truth."""

    path: Path
    kind: str
    seed: int
    image: np.ndarray = field(compare=False)
    width: int
    height: int
    conditions: dict[str, Any] = field(compare=False)
    markers: tuple[Marker, ...]
    dice: tuple[RenderedDie, ...]
    tessons: tuple[RenderedTesson, ...]
    seats: SeatMap | None
    check: CheckFrame | None
    before: np.ndarray | None = field(default=None, compare=False)
    """The frame of the table before the throw or the reveal (``--before``), when rendered:
    the same table, lights and camera, without the dice, tessons, hand or cup."""


# --- loading ----------------------------------------------------------------------------------


def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise BadRender(f"{where}: lacks {key!r}")
    value = data[key]
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise BadRender(f"{where}: {key!r} must be a number, not {value!r}")
    if not isinstance(value, kind):
        raise BadRender(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _die(data: Any, where: str) -> RenderedDie:
    if not isinstance(data, dict):
        raise BadRender(f"{where}: a die must be an object")
    number = (int, float)
    color = _need(data, "color", str, where)
    if color not in COLORS:
        raise BadRender(f"{where}: colour {color!r} is not one of {', '.join(COLORS)}")
    pose = _need(data, "pose", str, where)
    if pose not in POSES:
        raise BadRender(f"{where}: pose {pose!r} is not one of {', '.join(POSES)}")
    visible = float(_need(data, "visible", number, where))
    if not 0.0 <= visible <= 1.0:
        raise BadRender(f"{where}: visible {visible} is not a share between 0 and 1")
    angle = float(_need(data, "angle", number, where))
    if not 0.0 <= angle < 90.0:
        raise BadRender(f"{where}: angle {angle} is not in [0, 90)")
    return RenderedDie(
        x=float(_need(data, "x", number, where)),
        y=float(_need(data, "y", number, where)),
        size=float(_need(data, "size", number, where)),
        angle=angle,
        confidence=1.0,
        color=color,
        hole=bool(_need(data, "hole", bool, where)),
        plastic=_need(data, "plastic", str, where),
        finish=_need(data, "finish", str, where),
        pose=pose,
        visible=visible,
    )


def _tesson(data: Any, where: str) -> RenderedTesson:
    if not isinstance(data, dict):
        raise BadRender(f"{where}: a tesson must be an object")
    number = (int, float)
    side = _need(data, "side", str, where)
    if side not in ("white", "black"):
        raise BadRender(f"{where}: side {side!r} is not white or black")
    seat = data.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
        raise BadRender(f"{where}: seat must be a number or null")
    card = data.get("card")
    if card is not None and not isinstance(card, str):
        raise BadRender(f"{where}: card must be a name or null")
    return RenderedTesson(
        x=float(_need(data, "x", number, where)),
        y=float(_need(data, "y", number, where)),
        side=side,
        confidence=1.0,
        seat=seat,
        printed=bool(_need(data, "printed", bool, where)),
        card=card,
        sleeve=bool(_need(data, "sleeve", bool, where)),
        visible=float(_need(data, "visible", number, where)),
        size=None if data.get("size") is None else float(_need(data, "size", number, where)),
    )


def _image(path: Path, width: int | None = None, height: int | None = None) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise BadRender(f"{path}: cannot read the image")
    if width is not None and image.shape[:2] != (height, width):
        raise BadRender(
            f"{path}: the image is {image.shape[1]}×{image.shape[0]}, the JSON says "
            f"{width}×{height}"
        )
    return image


def _markers(data: Any, where: str) -> tuple[Marker, ...]:
    if not isinstance(data, list):
        raise BadRender(f"{where}: markers must be a list")
    out = []
    for i, marker in enumerate(data):
        if not isinstance(marker, dict) or isinstance(marker.get("id"), bool):
            raise BadRender(f"{where}: marker {i} must be an object with an id")
        if not isinstance(marker.get("id"), int):
            raise BadRender(f"{where}: marker {i} needs a number id")
        corners = np.array(marker.get("corners"), dtype=np.float64)
        if corners.shape != (4, 2):
            raise BadRender(f"{where}: marker {i} needs four corners [x, y]")
        out.append(Marker(marker["id"], corners))
    return tuple(out)


def parse(data: Any, json_path: Path) -> Rendered:
    """A render's ground truth from its parsed JSON (images read beside ``json_path``)."""
    where = str(json_path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadRender(f"{where}: not a {FORMAT!r} file")
    if data.get("version") != VERSION:
        raise BadRender(f"{where}: version {data.get('version')!r} is not {VERSION}")
    kind = _need(data, "kind", str, where)
    if kind not in KINDS:
        raise BadRender(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    width = _need(data, "width", int, where)
    height = _need(data, "height", int, where)
    conditions = _need(data, "conditions", dict, where)
    missing = [key for key in CONDITIONS if key not in conditions]
    if missing:
        raise BadRender(f"{where}: conditions lack {', '.join(missing)}")
    folder = json_path.parent
    image = _image(folder / _need(data, "image", str, where), width, height)
    markers = _markers(_need(data, "markers", list, where), where)
    dice = tuple(
        _die(d, f"{where}: die {i}") for i, d in enumerate(_need(data, "dice", list, where))
    )
    tessons = tuple(
        _tesson(t, f"{where}: tesson {i}")
        for i, t in enumerate(_need(data, "tessons", list, where))
    )
    seats = SeatMap.from_json(data["seats"]) if data.get("seats") else None
    check = None
    if data.get("check"):
        block = data["check"]
        offset = block.get("offset")
        if not isinstance(offset, list) or len(offset) != 2:
            raise BadRender(f"{where}: check offset must be [x0, y0]")
        check = CheckFrame(
            path=folder / block["image"],
            image=_image(folder / block["image"]),
            offset=(int(offset[0]), int(offset[1])),
            dice=tuple(
                _die(d, f"{where}: check die {i}") for i, d in enumerate(block.get("dice", []))
            ),
            markers=_markers(block.get("markers", []), f"{where}: check"),
        )
    return Rendered(
        path=folder / data["image"],
        kind=kind,
        seed=int(_need(data, "seed", int, where)),
        image=image,
        width=width,
        height=height,
        conditions=conditions,
        markers=markers,
        dice=dice,
        tessons=tessons,
        seats=seats,
        check=check,
        before=(
            _image(folder / data["before"]["image"], width, height) if data.get("before") else None
        ),
    )


def load(json_path: str | Path) -> Rendered:
    """A render and its ground truth, from its JSON file (the image lies beside it)."""
    path = Path(json_path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BadRender(f"{path}: cannot read: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise BadRender(f"{path}: not JSON ({error})") from None
    return parse(data, path)


def load_all(folder: str | Path, kind: str | None = None) -> list[Rendered]:
    """Every render in a folder (``kind``: only cubes or tessons), sorted by kind and seed."""
    out = []
    for path in sorted(Path(folder).glob("*.json")):
        if kind is not None and not path.name.startswith(f"{kind}-"):
            continue
        out.append(load(path))
    return sorted(out, key=lambda r: (r.kind, r.seed))
