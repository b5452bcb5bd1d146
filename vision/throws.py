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
``GeneratedPipSource`` does the same with ordinary pip dice (``throw``, with re-rolls). Both are
in ``vision.generated``, and named here too.

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

from companion.timers import REAL_CLOCK, Clock
from vision.arrays import Image, u8
from vision.calibration import Calibration, CalibrationError
from vision.cubes import read_cubes
from vision.frame_source import CameraStopped, CameraUnavailable, FrameSource
from vision.generated import MAX_PIP_DICE, GeneratedPipSource, GeneratedThrowSource
from vision.readings import DieReading, Units, UnreadableFrame
from vision.settle import DEFAULT_STILL_FRAMES, SettleDetector
from vision.sources import ImageFileSource, ImageFolderSource
from vision.table_change import TableBefore
from vision.white_balance import balanced

__all__ = [
    "BORDER",
    "JPEG_QUALITY",
    "MAX_FRAME_PICTURE",
    "MAX_PIP_DICE",
    "MAX_TABLE_PICTURE",
    "NO_SOURCE",
    "PICTURE_PX_PER_MM",
    "STILL_SOURCES",
    "GeneratedPipSource",
    "GeneratedThrowSource",
    "Reader",
    "ThrowCamera",
    "ThrowPicture",
    "rectify",
]

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

Reader = Callable[[Image], Sequence[DieReading]]


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
    left_out: tuple[DieReading, ...] = ()
    """Readings left out as the table's own (``vision.table_change``), in the same units."""

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

    ``new_only`` (the Oraklos throws) leaves out what lay on the table already, unchanged,
    before the throw (``vision.table_change``: a cloth's check, a mat's print, a die no one
    picked up), in ``ThrowPicture.left_out``. The table before is, on a live source, its last
    frame at rest before the motion of the throw (``wait_for_throw`` keeps it for a ``read_now``
    of the same throw), and on a generated source its frame of the table before the throw
    (``before``); a still source (an image file or folder) has none. The pip dice of game night
    are read whole: a die not thrown again lies there unchanged and counts.

    ``live`` says whether the source shows motion (a camera, a video); by default image files,
    image folders and ``GeneratedThrowSource`` are still and every other source is live.

    ``reopen`` opens the source afresh (``open_source`` with the config's value): once the
    source has stopped (a camera unplugged or knocked loose), every read first tries it, so the
    camera is picked up again when it returns; until then reads raise ``CameraStopped``.

    ``clock`` times ``wait_for_throw``'s ``timeout`` (the real time by default; tests move one
    by hand).
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
        clock: Clock = REAL_CLOCK,
    ) -> None:
        if settle_frames < 1:
            raise ValueError("settle_frames must be at least 1 ([camera] settle_frames)")
        self.source = source
        self.calibration = calibration
        self.settle_frames = settle_frames
        self.reader = reader
        self.live = _is_live(source) if live is None else live
        self._reopen = reopen
        self._clock = clock
        self._stopped = False  # the source stopped: open it afresh before the next read
        self._rest: TableBefore | None = None  # the table before the last throw waited for
        self._lock = threading.Lock()

    @property
    def still(self) -> bool:
        """The source never moves: ``wait_for_throw`` reads the next frame at once."""
        return not self.live

    def read_now(self, *, reader: Reader | None = None, new_only: bool = False) -> ThrowPicture:
        """Read the next frame as it is, moving or not (with ``reader`` instead of the
        camera's own reader, when given; with ``new_only``, without the table's own readings).

        Raises ``CameraUnavailable`` (no source), ``CameraStopped`` (it stopped giving frames)
        or ``UnreadableFrame`` (a frame that cannot be read, or not of the calibrated size).
        """
        taken, frame = self._grab()
        before = self._before(reader) if new_only else None
        return self.picture(frame, taken, reader=reader, before=before)

    def wait_for_throw(
        self,
        stop: threading.Event,
        timeout: float | None = None,
        *,
        reader: Reader | None = None,
        new_only: bool = False,
    ) -> ThrowPicture | None:
        """The next throw once it has come to rest, or None when ``stop`` is set or ``timeout``
        seconds have passed first.

        On a live source: motion (a hand, rolling dice), then ``settle_frames`` still frames;
        the still frame is read. A table that stays still is no throw. On a still source (no
        hands in simulation) the next frame is read at once. ``reader`` replaces the camera's
        own reader for this throw (one camera, so one lock round the source, serves the
        Oraklos cubes and the pip dice). With ``new_only`` the table's last frame at rest
        before the motion (``settle_frames`` still frames or more) is the table before the
        throw (the class's docstring), read while the dice tumble so that reading the throw
        once it settles takes no longer. Raises as ``read_now`` does.
        """
        if self.source is None:
            raise CameraUnavailable(NO_SOURCE)
        if stop.is_set():
            return None
        if not self.live:
            return self.read_now(reader=reader, new_only=new_only)
        deadline = None if timeout is None else self._clock.now() + timeout
        detector = SettleDetector(still_frames=self.settle_frames)
        rest: Image | None = None  # the last frame of the table at rest, before any motion
        before: TableBefore | None = None
        if new_only:
            self._rest = None
        while not stop.is_set():
            if deadline is not None and self._clock.now() >= deadline:
                return None
            taken, frame = self._grab()
            detector.update(frame)
            if detector.just_settled:
                if new_only:
                    self._rest = before
                return self.picture(frame, taken, reader=reader, before=before)
            if not new_only or detector.seen_motion:
                if rest is not None and before is None:  # the throw began: read the table
                    before = self.table_before(rest, reader=reader)
                continue
            if not detector.moving and detector.still_count >= self.settle_frames:
                rest = frame
        return None

    def picture(
        self,
        frame: Image,
        taken: float | None = None,
        *,
        reader: Reader | None = None,
        before: TableBefore | None = None,
    ) -> ThrowPicture:
        """Read one frame: its dice in table units and the picture they are placed on (with
        ``reader`` instead of the camera's own reader, when given); with ``before``, the table
        before the throw (``table_before``), without what lay there already, unchanged."""
        frame = self._checked(frame)
        read = self.reader if reader is None else reader
        readings = tuple(read(balanced(frame, self.calibration)))
        left_out: tuple[DieReading, ...] = ()
        if before is not None:
            new = {id(r) for r in before.new_on_table(readings, frame)}
            left_out = tuple(r for r in readings if id(r) not in new)
            readings = tuple(r for r in readings if id(r) in new)
        when = time.time() if taken is None else taken
        if self.calibration is None:
            image, scale = _shrink(frame, MAX_FRAME_PICTURE)
            return _picture(image, scale, "px", readings, when, left_out)
        image, scale = rectify(frame, self.calibration)
        dice = tuple(self.calibration.map_reading(die) for die in readings)
        table = tuple(self.calibration.map_reading(die) for die in left_out)
        return _picture(image, scale, "mm", dice, when, table)

    def _checked(self, frame: object) -> Image:
        image = _check_frame(frame, self._description)
        if self.calibration is not None:
            try:
                self.calibration.check_frame(image)
            except CalibrationError as exc:
                raise UnreadableFrame(f"{self._description}: {exc}") from exc
        return image

    def table_before(self, frame: Image, *, reader: Reader | None = None) -> TableBefore | None:
        """The table before a throw, as ``frame`` shows it, read (with ``reader`` instead of
        the camera's own, when given); None for a frame that cannot be read."""
        try:
            frame = self._checked(frame)
        except UnreadableFrame:
            return None  # a bad frame of the table before: nothing will be left out
        read = self.reader if reader is None else reader
        return TableBefore.of(frame, read(balanced(frame, self.calibration)))

    def _before(self, reader: Reader | None) -> TableBefore | None:
        """The table before the throw for ``read_now``: the generated source's frame of it, or
        a live source's table at rest before the throw waited for."""
        before = getattr(self.source, "before", None)
        if callable(before):
            with self._lock:
                frame = before()
            return self.table_before(frame, reader=reader)
        return self._rest if self.live else None

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

    def _grab(self) -> tuple[float, Image]:
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


def rectify(frame: Image, calibration: Calibration) -> tuple[Image, float]:
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
    return u8(picture), scale


def _shrink(frame: Image, longest: int) -> tuple[Image, float]:
    height, width = frame.shape[:2]
    if max(width, height) <= longest:
        return frame, 1.0
    scale = longest / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return u8(cv2.resize(frame, size, interpolation=cv2.INTER_AREA)), scale


def _picture(
    image: Image,
    scale: float,
    unit: Units,
    dice: tuple[DieReading, ...],
    taken: float,
    left_out: tuple[DieReading, ...] = (),
) -> ThrowPicture:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise UnreadableFrame("the picture of the throw could not be made into a JPEG")
    height, width = image.shape[:2]
    return ThrowPicture(data.tobytes(), width, height, scale, unit, dice, taken, left_out)


def _check_frame(frame: object, description: str) -> Image:
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


STILL_SOURCES: tuple[type[FrameSource], ...] = (
    ImageFileSource,
    ImageFolderSource,
    GeneratedThrowSource,
    GeneratedPipSource,
)


def _is_live(source: FrameSource | None) -> bool:
    return source is not None and not isinstance(source, STILL_SOURCES)
