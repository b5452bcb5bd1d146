"""Where frames come from: the Pi camera, a V4L2/OpenCV device, a video file or image files.

Chosen by the config's ``[camera] source`` (see ``open_source``):

- ``"auto"``: picamera2 when it is installed and sees a camera, else ``cv2.VideoCapture(0)`` when
  it opens, else ``CameraUnavailable`` saying what to do;
- ``"picamera"``: picamera2 only (installed with apt on Raspberry Pi OS, never from PyPI);
- ``"device:N"``: ``cv2.VideoCapture(N)``, e.g. a USB webcam;
- ``"generated"`` or ``"generated:SEED"``: a simulated camera over a green table, no camera or
  photo needed (``vision.generated.GeneratedThrowSource``: it shows the dice it is told to
  expect);
- a path: a folder of images (cycled in name order, for simulation: e.g. photos of real throws,
  one per throw), one image file (the same still frame again and again) or a video file (played
  once).

Every source gives BGR ``uint8`` arrays of shape (height, width, 3) from ``read()`` and from the
``frames()`` iterator, and is closed with ``close()`` (or used as a context manager). Image and
video files keep their own size; cameras are asked for ``resolution`` (default 1280×720).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import cv2
import numpy as np

from vision.arrays import Image
from vision.frame_source import (
    DEFAULT_RESOLUTION,
    CameraStopped,
    CameraUnavailable,
    FrameSource,
    PicameraUnavailable,
)
from vision.readings import UnreadableFrame

if TYPE_CHECKING:
    from cv2.typing import MatLike

__all__ = [
    "DEFAULT_RESOLUTION",
    "IMAGE_SUFFIXES",
    "NO_CAMERA_HELP",
    "VIDEO_SUFFIXES",
    "CameraStopped",
    "CameraUnavailable",
    "FrameSource",
    "ImageFileSource",
    "ImageFolderSource",
    "PicameraSource",
    "PicameraUnavailable",
    "VideoCaptureSource",
    "open_source",
    "parse_generated",
    "parse_source",
    "read_image",
]

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
VIDEO_SUFFIXES = frozenset({".avi", ".mp4", ".mkv", ".mov", ".webm", ".mjpeg", ".mjpg"})

NO_CAMERA_HELP = (
    "plug in the camera, check it with `rpicam-hello` (`libcamera-hello` on older Pi OS) "
    "or `v4l2-ctl --list-devices`, or set [camera] source to a folder of images"
)


def read_image(path: Path | str) -> Image:
    """An image file as BGR uint8, or ``UnreadableFrame`` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise UnreadableFrame(f"{path}: no such image file")
    data = np.fromfile(path, dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UnreadableFrame(f"{path}: not an image OpenCV can read (PNG, JPEG, BMP, TIFF, WebP)")
    return _bgr(image)


def _bgr(frame: MatLike) -> Image:
    """A camera's or a file's frame as BGR uint8 (grey and BGRA converted, other depths scaled)."""
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.dtype != np.uint8:
        frame = cv2.convertScaleAbs(frame, alpha=255.0 / max(float(frame.max()), 1.0))
    return np.ascontiguousarray(frame)


class ImageFileSource(FrameSource):
    """One photograph: every read gives (a copy of) the same frame."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.description = str(self.path)
        self._frame: Image | None = read_image(self.path)

    def read(self) -> Image:
        if self._frame is None:
            raise CameraStopped(f"{self.path}: the source is closed")
        return self._frame.copy()

    def close(self) -> None:
        self._frame = None


def _natural_key(path: Path) -> tuple[tuple[int, int, str], ...]:
    """``frame2.png`` before ``frame10.png``."""
    parts = re.split(r"(\d+)", path.name.lower())
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


class ImageFolderSource(FrameSource):
    """The images of a folder, in name order (numbers compared as numbers), cycled forever."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self.description = f"{self.folder}/"
        self.paths = sorted(
            (p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
            key=_natural_key,
        )
        if not self.paths:
            raise CameraUnavailable(
                f"{self.folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))}): "
                "put the frames to replay there, or set [camera] source to a camera"
            )
        self._next = 0
        self._closed = False

    def read(self) -> Image:
        if self._closed:
            raise CameraStopped(f"{self.folder}: the source is closed")
        path = self.paths[self._next]
        self._next = (self._next + 1) % len(self.paths)
        return read_image(path)

    def close(self) -> None:
        self._closed = True


class VideoCaptureSource(FrameSource):
    """``cv2.VideoCapture`` on a device index (a webcam) or on a video file."""

    def __init__(
        self, target: int | Path | str, resolution: tuple[int, int] = DEFAULT_RESOLUTION
    ) -> None:
        self.is_file = not isinstance(target, int)
        self.description = f"video file {target}" if self.is_file else f"device:{target}"
        if not isinstance(target, int) and not Path(target).is_file():
            raise CameraUnavailable(f"{target}: no such video file")
        with _quiet_opencv():
            capture = cv2.VideoCapture(int(target) if isinstance(target, int) else str(target))
            opened = capture.isOpened()
        if not opened:
            capture.release()
            if self.is_file:
                raise UnreadableFrame(f"{target}: not a video OpenCV can read")
            raise CameraUnavailable(f"no camera at device:{target}: {NO_CAMERA_HELP}")
        if not self.is_file:
            width, height = resolution
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._capture: cv2.VideoCapture | None = capture

    @property
    def resolution(self) -> tuple[int, int]:
        """The size OpenCV reports (a camera may not give the size asked for)."""
        if self._capture is None:
            return (0, 0)
        return (
            int(self._capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(self._capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )

    def read(self) -> Image:
        if self._capture is None:
            raise CameraStopped(f"{self.description}: the source is closed")
        ok, frame = self._capture.read()
        if not ok or frame is None:
            if self.is_file:
                raise CameraStopped(f"{self.description}: no more frames (end of the video)")
            raise CameraStopped(
                f"{self.description} stopped sending frames: check its cable, then restart"
            )
        return _bgr(frame)

    def frames(self) -> Iterator[Image]:
        while True:
            try:
                frame = self.read()
            except CameraStopped:
                if self.is_file and self._capture is not None:
                    return
                raise
            yield frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class _Picamera2(Protocol):
    """What ``PicameraSource`` uses of a ``picamera2.Picamera2`` (which has no type stubs)."""

    def capture_array(self, name: str) -> Image: ...
    def stop(self) -> None: ...
    def close(self) -> None: ...


class PicameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (``sudo apt install python3-picamera2``).

    Imported lazily: picamera2 comes from Raspberry Pi OS's apt, never from PyPI, so elsewhere
    its absence is the ordinary "not available" path.
    """

    description = "picamera"

    def __init__(self, resolution: tuple[int, int] = DEFAULT_RESOLUTION) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise PicameraUnavailable(
                "picamera2 is not installed: on Raspberry Pi OS run "
                "`sudo apt install python3-picamera2` and make the venv with "
                "--system-site-packages; elsewhere set [camera] source to "
                '"device:0" or a folder of images'
            ) from None
        except Exception as exc:  # e.g. apt's simplejpeg built for numpy 1, the venv's numpy 2
            raise PicameraUnavailable(
                f"picamera2 is installed but does not load ({exc}): in the venv run "
                "`pip install --force-reinstall simplejpeg` or `pip install 'numpy<2'`"
            ) from None
        try:
            cameras = Picamera2.global_camera_info()
        except Exception as exc:
            raise PicameraUnavailable(f"libcamera cannot list cameras ({exc})") from None
        if not cameras:
            raise PicameraUnavailable(f"picamera2 finds no camera: {NO_CAMERA_HELP}")
        try:
            camera = Picamera2()
            # "RGB888" is picamera2's name for pixels stored B, G, R: what OpenCV expects.
            config = camera.create_video_configuration(
                main={"size": tuple(resolution), "format": "RGB888"}
            )
            camera.configure(config)
            camera.start()
        except Exception as exc:
            raise PicameraUnavailable(
                f"the Pi camera would not start ({exc}): is another program using it?"
            ) from None
        self._camera: _Picamera2 | None = camera

    def read(self) -> Image:
        if self._camera is None:
            raise CameraStopped("picamera: the source is closed")
        try:
            frame = self._camera.capture_array("main")
        except Exception as exc:
            raise CameraStopped(f"the Pi camera stopped ({exc}): check its ribbon cable") from None
        return _bgr(np.asarray(frame))

    def close(self) -> None:
        if self._camera is not None:
            with contextlib.suppress(Exception):
                self._camera.stop()
            with contextlib.suppress(Exception):
                self._camera.close()
            self._camera = None


def parse_source(spec: str) -> str | int | Path:
    """``"auto"``, ``"picamera"``, a device index, or a path; ``ValueError`` for a bad one."""
    text = spec.strip()
    if text in ("auto", "picamera"):
        return text
    if text.startswith("device:"):
        index = text.removeprefix("device:")
        if not index.isdigit():
            raise ValueError(f'camera source {spec!r}: write "device:" and a number, e.g. device:0')
        return int(index)
    if not text:
        raise ValueError('camera source is empty: use "auto", "picamera", "device:0" or a path')
    return Path(text).expanduser()


def parse_generated(spec: str) -> int | None:
    """The seed of a ``"generated"`` / ``"generated:SEED"`` source (0 by default), or None for
    any other source; ``ValueError`` for a bad seed."""
    text = spec.strip()
    if text == "generated":
        return 0
    if not text.startswith("generated:"):
        return None
    seed = text.removeprefix("generated:")
    if not seed.isdigit():
        raise ValueError(
            f'camera source {spec!r}: write "generated:" and a whole number, e.g. generated:7'
        )
    return int(seed)


def open_source(
    spec: str = "auto", resolution: tuple[int, int] = DEFAULT_RESOLUTION
) -> FrameSource:
    """The frame source a ``[camera] source`` value names (see the module's docstring)."""
    seed = parse_generated(spec)
    if seed is not None:
        from vision.generated import GeneratedThrowSource  # it renders scenes: only when asked for

        return GeneratedThrowSource(seed, resolution)
    target = parse_source(spec)
    if target == "picamera":
        return PicameraSource(resolution)
    if target == "auto":
        try:
            return PicameraSource(resolution)
        except PicameraUnavailable as pi:
            try:
                return VideoCaptureSource(0, resolution)
            except CameraUnavailable:
                raise CameraUnavailable(
                    f"no camera found ({pi}; no device:0 either): {NO_CAMERA_HELP}"
                ) from None
    if isinstance(target, int):
        return VideoCaptureSource(target, resolution)
    assert isinstance(target, Path)
    if target.is_dir():
        return ImageFolderSource(target)
    if target.is_file():
        if target.suffix.lower() in VIDEO_SUFFIXES:
            return VideoCaptureSource(target)
        return ImageFileSource(target)
    raise CameraUnavailable(
        f"camera source {spec!r}: no such file or folder; use "
        '"auto", "picamera", "device:0", a folder of images or an image file'
    )


LOG_LEVEL_ERROR = 2  # OpenCV's cv::utils::logging::LOG_LEVEL_ERROR


@contextlib.contextmanager
def _quiet_opencv() -> Iterator[None]:
    """OpenCV logs a warning for every device it fails to open; our error says it better.
    OpenCV 5 has ``cv2.utils.logging``; 4.x (4.11 on a Pi, held to the system's numpy 1) has
    ``cv2.getLogLevel``/``setLogLevel`` only. Level 2 is ERROR in both."""
    logging = getattr(cv2.utils, "logging", cv2)
    level = logging.getLogLevel()
    logging.setLogLevel(LOG_LEVEL_ERROR)
    try:
        yield
    finally:
        logging.setLogLevel(level)
