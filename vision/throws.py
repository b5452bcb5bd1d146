"""The throw camera: a picture of the thrown dice for the page, and what lies where on it.

``ThrowCamera`` takes frames from a ``FrameSource``, waits for a throw to come to rest (motion,
then ``settle_frames`` still frames: ``vision.settle``), reads the cubes on that still frame and
hands back a ``ThrowPicture``: a JPEG to show and the dice in table units, placed so that a die
at table (x, y) lies at picture (x * scale, y * scale).

- With a calibration the picture is the frame rectified to the table plane (a top-down view of
  the play area, marker 0's outer corner at the top-left) and the dice are in millimetres.
- Without one the picture is the frame itself (shrunk if large) and the dice are in pixels of
  the frame.

Still sources (one image file, a folder of photos, the generated sources) never move, so
``wait_for_throw`` does not wait for motion there: it reads the next frame at once. The caller
asks once per awaited throw.

``GeneratedThrowSource`` is a simulated camera for a laptop: it shows a generated throw of the
dice it was told to expect (``expect``), the same still scene until told again.
``GeneratedPipSource`` does the same with ordinary pip dice (``throw``, with re-rolls).

One camera serves every reader: ``read_now``, ``wait_for_throw`` and ``picture`` take a
``reader`` that replaces the camera's own for that call (the Oraklos cubes by default; the
pip dice with their colours for game night).

Like every adapter this knows no rules: it reports dice; the caller decides what they mean.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration, CalibrationError
from vision.cubes import read_cubes
from vision.readings import DieReading, Units, UnreadableFrame
from vision.settle import DEFAULT_STILL_FRAMES, SettleDetector
from vision.sources import (
    DEFAULT_RESOLUTION,
    CameraStopped,
    CameraUnavailable,
    FrameSource,
    ImageFileSource,
    ImageFolderSource,
)
from vision.synthetic import COLORS, PIP_COLORS, PipScene, PlacedDie, cube_scene, pip_scene
from vision.white_balance import balanced

PICTURE_PX_PER_MM = 2.0
"""Resolution of the rectified picture of the play area (before the cap below)."""
MAX_TABLE_PICTURE = 1600
"""Longest side of the rectified picture, px."""
MAX_FRAME_PICTURE = 1280
"""Longest side of the picture of an uncalibrated frame, px (larger frames are shrunk)."""
JPEG_QUALITY = 85
BORDER = (40, 40, 40)
"""Grey for the parts of the play area the camera does not see."""

NO_SOURCE = (
    "no camera: set [camera] source in the config (a camera, or in simulation a folder of "
    'images or "generated")'
)

Reader = Callable[[np.ndarray], Sequence[DieReading]]


@dataclass(frozen=True)
class ThrowPicture:
    """What the camera saw of one throw.

    ``jpeg`` is the picture for the page, ``width`` × ``height`` px; ``dice`` are in table
    ``unit`` ("mm" with a calibration, pixels of the frame without), and a die at (x, y) lies
    at picture pixel (x * ``scale``, y * ``scale``). ``taken`` is the ``time.time()`` of the
    frame.
    """

    jpeg: bytes = field(repr=False)
    width: int
    height: int
    scale: float
    unit: Units
    dice: tuple[DieReading, ...]
    taken: float

    def placement(self, url: str) -> dict[str, Any]:
        """How a page shows it: where to fetch the JPEG, its size, and how table units map to
        its pixels."""
        return {
            "url": url,
            "width": self.width,
            "height": self.height,
            "scale": self.scale,
            "unit": self.unit,
        }

    def to_json(self) -> dict[str, Any]:
        """Everything but the JPEG itself (which is served apart, as ``image/jpeg``)."""
        return {
            "width": self.width,
            "height": self.height,
            "scale": self.scale,
            "unit": self.unit,
            "taken": self.taken,
            "dice": [die.to_json() for die in self.dice],
        }


class ThrowCamera:
    """Reads throws from one frame source, for one background watcher and the web's requests.

    A lock is held around each read of the source, so ``read_now`` (a web request) may run while
    a watcher thread is in ``wait_for_throw``; reading the dice happens outside the lock. Two
    watchers at once would each see only some of the frames: keep one.

    ``live`` says whether the source shows motion (a camera, a video); by default image files,
    image folders and ``GeneratedThrowSource`` are still and every other source is live.

    ``reopen`` opens the source afresh (``open_source`` with the config's value): once the
    source has stopped (a camera unplugged or knocked loose), every read first tries it, so the
    camera is picked up again when it returns; until then reads raise ``CameraStopped``.
    """

    def __init__(
        self,
        source: FrameSource | None,
        calibration: Calibration | None,
        settle_frames: int = DEFAULT_STILL_FRAMES,
        reader: Reader = read_cubes,
        *,
        live: bool | None = None,
        reopen: Callable[[], FrameSource] | None = None,
    ) -> None:
        if settle_frames < 1:
            raise ValueError("settle_frames must be at least 1 ([camera] settle_frames)")
        self.source = source
        self.calibration = calibration
        self.settle_frames = settle_frames
        self.reader = reader
        self.live = _is_live(source) if live is None else live
        self._reopen = reopen
        self._stopped = False  # the source stopped: open it afresh before the next read
        self._lock = threading.Lock()

    @property
    def still(self) -> bool:
        """The source never moves: ``wait_for_throw`` reads the next frame at once."""
        return not self.live

    def read_now(self, *, reader: Reader | None = None) -> ThrowPicture:
        """Read the next frame as it is, moving or not (with ``reader`` instead of the
        camera's own reader, when given).

        Raises ``CameraUnavailable`` (no source), ``CameraStopped`` (it stopped giving frames)
        or ``UnreadableFrame`` (a frame that cannot be read, or not of the calibrated size).
        """
        taken, frame = self._grab()
        return self.picture(frame, taken, reader=reader)

    def wait_for_throw(
        self,
        stop: threading.Event,
        timeout: float | None = None,
        *,
        reader: Reader | None = None,
    ) -> ThrowPicture | None:
        """The next throw once it has come to rest, or None when ``stop`` is set or ``timeout``
        seconds have passed first.

        On a live source: motion (a hand, rolling dice), then ``settle_frames`` still frames;
        the still frame is read. A table that stays still is no throw. On a still source (no
        hands in simulation) the next frame is read at once. ``reader`` replaces the camera's
        own reader for this throw (one camera, so one lock round the source, serves the
        Oraklos cubes and the pip dice). Raises as ``read_now`` does.
        """
        if self.source is None:
            raise CameraUnavailable(NO_SOURCE)
        if stop.is_set():
            return None
        if not self.live:
            return self.read_now(reader=reader)
        deadline = None if timeout is None else time.monotonic() + timeout
        detector = SettleDetector(still_frames=self.settle_frames)
        while not stop.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                return None
            taken, frame = self._grab()
            detector.update(frame)
            if detector.just_settled:
                return self.picture(frame, taken, reader=reader)
        return None

    def picture(
        self, frame: np.ndarray, taken: float | None = None, *, reader: Reader | None = None
    ) -> ThrowPicture:
        """Read one frame: its dice in table units and the picture they are placed on (with
        ``reader`` instead of the camera's own reader, when given)."""
        frame = _check_frame(frame, self._description)
        if self.calibration is not None:
            try:
                self.calibration.check_frame(frame)
            except CalibrationError as exc:
                raise UnreadableFrame(f"{self._description}: {exc}") from exc
        readings = tuple(
            (self.reader if reader is None else reader)(balanced(frame, self.calibration))
        )
        when = time.time() if taken is None else taken
        if self.calibration is None:
            image, scale = _shrink(frame, MAX_FRAME_PICTURE)
            return _picture(image, scale, "px", readings, when)
        image, scale = rectify(frame, self.calibration)
        dice = tuple(self.calibration.map_reading(die) for die in readings)
        return _picture(image, scale, "mm", dice, when)

    def close(self) -> None:
        """Release the source (a camera is free for other programs afterwards)."""
        with self._lock:
            if self.source is not None:
                self.source.close()

    def __enter__(self) -> ThrowCamera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _description(self) -> str:
        return "the camera" if self.source is None else self.source.description

    def back(self) -> bool:
        """Whether the camera gives frames (again, once it had stopped): a frame is taken."""
        try:
            self._grab()
        except UnreadableFrame:
            return True  # a frame, if a bad one: the camera is there
        except CameraUnavailable:
            return False
        return True

    def _grab(self) -> tuple[float, np.ndarray]:
        if self.source is None:
            raise CameraUnavailable(NO_SOURCE)
        with self._lock:
            if self._stopped and self._reopen is not None:
                self._open_again()
            try:
                frame = self.source.read()
            except CameraStopped as exc:
                self._stopped = True
                raise CameraStopped(f"the throw camera stopped: {exc}") from exc
            except UnreadableFrame as exc:
                raise UnreadableFrame(
                    f"{exc}: remove or replace that picture, or set [camera] source to a camera"
                ) from exc
            return time.time(), frame

    def _open_again(self) -> None:
        assert self._reopen is not None and self.source is not None
        try:
            source = self._reopen()
        except CameraUnavailable as exc:
            raise CameraStopped(f"the throw camera stopped and is not back: {exc}") from None
        self.source.close()
        self.source = source
        self._stopped = False


def rectify(frame: np.ndarray, calibration: Calibration) -> tuple[np.ndarray, float]:
    """The play area seen from straight above, and its scale (picture px per mm).

    ``PICTURE_PX_PER_MM``, or less so that the longest side is at most ``MAX_TABLE_PICTURE``;
    table (x, y) mm lies at picture pixel (x * scale, y * scale) (OpenCV's pixel centres).
    """
    width_mm, height_mm = calibration.area_mm
    scale = min(PICTURE_PX_PER_MM, MAX_TABLE_PICTURE / max(width_mm, height_mm))
    size = (max(1, round(width_mm * scale)), max(1, round(height_mm * scale)))
    to_picture = np.diag([scale, scale, 1.0]) @ calibration.homography
    picture = cv2.warpPerspective(
        frame, to_picture, size, flags=cv2.INTER_LINEAR, borderValue=BORDER
    )
    return picture, scale


def _shrink(frame: np.ndarray, longest: int) -> tuple[np.ndarray, float]:
    height, width = frame.shape[:2]
    if max(width, height) <= longest:
        return frame, 1.0
    scale = longest / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA), scale


def _picture(
    image: np.ndarray, scale: float, unit: Units, dice: tuple[DieReading, ...], taken: float
) -> ThrowPicture:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise UnreadableFrame("the picture of the throw could not be made into a JPEG")
    height, width = image.shape[:2]
    return ThrowPicture(data.tobytes(), width, height, scale, unit, dice, taken)


def _check_frame(frame: object, description: str) -> np.ndarray:
    """A frame the readers can use, or ``UnreadableFrame`` saying what to change."""
    if not isinstance(frame, np.ndarray):
        raise UnreadableFrame(
            f"{description} gave no picture ({type(frame).__name__}): check the camera, then "
            "restart the companion"
        )
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise UnreadableFrame(
            f"{description} gave a frame of shape {frame.shape} and type {frame.dtype}, not a "
            "colour picture: set the camera to colour (BGR, 8-bit) frames"
        )
    height, width = frame.shape[:2]
    if width < 64 or height < 64:
        raise UnreadableFrame(
            f"{description} gave a {width}×{height} frame, too small to read dice: set [camera] "
            "width and height higher (1280×720 is usual)"
        )
    return frame


class GeneratedThrowSource(FrameSource):
    """A simulated overhead camera over a green table: no camera and no photos needed.

    ``expect(colors)`` sets the dice of the next throw; every ``read`` until the next ``expect``
    gives the same generated scene (so it is still), and ``last_truth`` holds the exact
    readings (pixels) of the last frame read. Before any ``expect`` the table is empty. Each
    throw is a new scene drawn from ``seed`` and the throw's number, so a run replays exactly.
    The scene's camera changes from throw to throw: readings are in pixels (no calibration).
    """

    def __init__(
        self, seed: int = 0, resolution: tuple[int, int] = DEFAULT_RESOLUTION, *, noise: float = 2.0
    ) -> None:
        self.seed = seed
        self.resolution = (int(resolution[0]), int(resolution[1]))
        self.noise = noise
        self.description = f"generated:{seed}"
        self.last_truth: tuple[DieReading, ...] = ()
        self._lock = threading.Lock()
        self._throw = 0
        self._wanted: tuple[tuple[str, ...], float] = ((), 0.0)
        self._scene: tuple[np.ndarray, tuple[DieReading, ...]] | None = None
        self._closed = False

    def expect(self, colors: Sequence[str], holes: float = 0.3) -> None:
        """The next frames show a new throw of dice of these colours, each showing its hole
        with probability ``holes``; no colours is the empty table."""
        wanted = tuple(colors)
        unknown = sorted({c for c in wanted if c not in COLORS})
        if unknown:
            raise ValueError(
                f"no {', '.join(unknown)} dice in a generated throw: use {', '.join(COLORS)}"
            )
        if not 0 <= holes <= 1:
            raise ValueError(f"holes = {holes}: the share of dice showing a hole is 0 to 1")
        with self._lock:
            self._throw += 1
            self._wanted = (wanted, float(holes))
            self._scene = None

    def read(self) -> np.ndarray:
        with self._lock:
            if self._closed:
                raise CameraStopped(f"{self.description}: the source is closed")
            if self._scene is None:
                colors, holes = self._wanted
                width, height = self.resolution
                scene = cube_scene(
                    self._scene_seed(),
                    width=width,
                    height=height,
                    colors=colors,
                    holes=holes,
                    noise=self.noise,
                )
                self._scene = (scene.image, scene.dice)
            image, truth = self._scene
            self.last_truth = truth
            return image.copy()

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def _scene_seed(self) -> int:
        state = np.random.SeedSequence((self.seed, self._throw)).generate_state(1)
        return int(state[0])


MAX_PIP_DICE = 40
"""Most dice in one generated throw of pip dice."""


class GeneratedPipSource(FrameSource):
    """A simulated overhead camera over a dice tray with ordinary pip dice (for game night on a
    laptop): no camera and no photos needed.

    ``throw(count)`` throws ``count`` dice of random colours; ``throw(count, reroll)`` throws
    again only the dice at the ``reroll`` indices of the last throw (the same dice: same colours,
    new places and values), the others lie exactly where they were (their top faces the same
    pixel for pixel), so that a reader of re-rolls has something to tell apart. Every ``read``
    until the next throw gives the same scene (it is still), and ``last_truth`` holds the exact
    readings (pixels, value and colour) of the last frame read, in the order of the dice (index
    ``i`` is the same die from throw to throw until thrown again). Before any throw the tray is
    empty. The tray, camera and light are drawn from ``seed`` once; each throw from ``seed`` and
    its number: a run replays exactly. Readings are in pixels (no calibration).
    """

    def __init__(
        self, seed: int = 0, resolution: tuple[int, int] = DEFAULT_RESOLUTION, *, noise: float = 2.0
    ) -> None:
        self.seed = seed
        self.resolution = (int(resolution[0]), int(resolution[1]))
        self.noise = noise
        self.description = f"generated pip dice:{seed}"
        self.last_truth: tuple[DieReading, ...] = ()
        self._lock = threading.Lock()
        self._throw = 0
        self._table_seed = _derived_seed(seed)
        self._scene: PipScene | None = None
        self._closed = False

    def throw(self, count: int, reroll: Sequence[int] | None = None) -> None:
        """The next frames show a new throw: ``count`` dice, all thrown when ``reroll`` is None;
        otherwise only the last throw's dice at the ``reroll`` indices are thrown again (and
        new dice added if ``count`` is larger than the last throw, the last ones picked up if
        it is smaller). Raises ``ValueError`` for a count or an index that cannot be."""
        if not 0 <= count <= MAX_PIP_DICE:
            raise ValueError(f"{count} dice: a generated throw has 0 to {MAX_PIP_DICE} dice")
        with self._lock:
            previous = self._table().placed
            again = set(range(len(previous))) if reroll is None else set(reroll)
            wrong = sorted(i for i in again if not 0 <= i < len(previous))
            if reroll is not None and wrong:
                raise ValueError(
                    f"no die {', '.join(map(str, wrong))} to throw again: the last throw had "
                    f"{len(previous)} dice (indices 0 to {len(previous) - 1})"
                )
            kept = [d for i, d in enumerate(previous[:count]) if i not in again]
            thrown = [i for i in range(count) if i >= len(previous) or i in again]
            # Dice thrown again are the same dice (same colours); a new throw is new dice.
            colors = (
                [] if reroll is None else [previous[i].color for i in thrown if i < len(previous)]
            )
            self._throw += 1
            width, height = self.resolution
            extra = len(thrown) - len(colors)
            if extra:
                colors += list(_random_colors(_derived_seed(self.seed, self._throw, 1), extra))
            scene = pip_scene(
                _derived_seed(self.seed, self._throw),
                len(thrown),
                width,
                height,
                colors=colors,
                keep=kept,
                table_seed=self._table_seed,
                noise=self.noise,
            )
            # pip_scene lists the kept dice first: put every die back at its index.
            order = [i for i in range(count) if i not in thrown] + thrown
            placed: list[PlacedDie | None] = [None] * count
            truth: list[DieReading | None] = [None] * count
            for index, die, reading in zip(order, scene.placed, scene.dice, strict=True):
                placed[index], truth[index] = die, reading
            self._scene = PipScene(
                image=scene.image,
                dice=tuple(d for d in truth if d is not None),
                placed=tuple(d for d in placed if d is not None),
            )

    def read(self) -> np.ndarray:
        with self._lock:
            if self._closed:
                raise CameraStopped(f"{self.description}: the source is closed")
            scene = self._table()
            self.last_truth = scene.dice
            return scene.image.copy()

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def _table(self) -> PipScene:
        """The scene shown now (the empty tray before any throw); called under the lock."""
        if self._scene is None:
            width, height = self.resolution
            self._scene = pip_scene(
                _derived_seed(self.seed, 0),
                0,
                width,
                height,
                table_seed=self._table_seed,
                noise=self.noise,
            )
        return self._scene


def _derived_seed(*parts: int) -> int:
    return int(np.random.SeedSequence(parts).generate_state(1)[0])


def _random_colors(seed: int, count: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [PIP_COLORS[int(i)] for i in rng.integers(len(PIP_COLORS), size=count)]


STILL_SOURCES: tuple[type[FrameSource], ...] = (
    ImageFileSource,
    ImageFolderSource,
    GeneratedThrowSource,
    GeneratedPipSource,
)


def _is_live(source: FrameSource | None) -> bool:
    return source is not None and not isinstance(source, STILL_SOURCES)
