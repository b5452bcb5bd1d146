"""What every frame source is: ``FrameSource``, the errors a camera raises, the default size.

The sources themselves are in ``vision.sources`` (cameras, video and image files) and
``vision.generated`` (simulated cameras); both build on this module, and ``vision.throws``
reads from any of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator

from vision.arrays import Image

DEFAULT_RESOLUTION = (1280, 720)


class CameraUnavailable(RuntimeError):
    """No frames can be had from this source; the message says what to do."""


class PicameraUnavailable(CameraUnavailable):
    """picamera2 is not installed, or it sees no camera."""


class CameraStopped(CameraUnavailable):
    """A source that was working stopped giving frames (unplugged, or the end of a video)."""


class FrameSource(ABC):
    """A camera or a stand-in for one."""

    description: str = "frame source"

    @abstractmethod
    def read(self) -> Image:
        """The next frame, BGR uint8 (height, width, 3)."""

    def frames(self) -> Iterator[Image]:
        """Frames until the source ends (a video file) or forever (cameras, images)."""
        while True:
            yield self.read()

    def close(self) -> None:  # noqa: B027 - sources that hold nothing need no closing
        """Release the camera; reading afterwards raises ``CameraStopped``."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description}>"
