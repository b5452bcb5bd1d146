"""Is the throw over? A frame-by-frame detector of a scene that has come to rest.

Each frame is shrunk to ``work_width`` pixels wide, turned grey, blurred (which averages sensor
noise away) and scaled to a fixed mean brightness (so a slow change of light or the camera's
auto-exposure is no motion). A pixel has *changed* when it differs by more than ``level`` grey
levels from the same pixel of the previous frame, or of the first frame of the current still
spell (so a die creeping a pixel per frame is caught too), after removing the frame's overall
shift. A frame is *moving* when more than ``threshold`` of the frame's pixels changed.

The scene is *settled* once ``still_frames`` consecutive frames were still after some motion
(a throw, a hand): ``update(frame)`` then returns True, and keeps returning True until the next
motion. The first frame at rest still differs from the last moving one, so settling takes
``still_frames + 1`` frames at rest. ``just_settled`` is True only on the frame where it
settled: read the throw then. No clock is involved: at 15 frames a second, ``still_frames=8``
is about half a second.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.arrays import FloatImage, Image, f32

DEFAULT_STILL_FRAMES = 8
DEFAULT_THRESHOLD = 0.0002
DEFAULT_LEVEL = 8.0
DEFAULT_WORK_WIDTH = 320


class SettleDetector:
    def __init__(
        self,
        still_frames: int = DEFAULT_STILL_FRAMES,
        threshold: float = DEFAULT_THRESHOLD,
        *,
        level: float = DEFAULT_LEVEL,
        work_width: int = DEFAULT_WORK_WIDTH,
        require_motion: bool = True,
    ) -> None:
        """``threshold``: the fraction of pixels (0-1) that must change for a frame to count as
        motion; ``level``: grey levels a pixel must change by; ``require_motion=False`` lets a
        scene that was still from the first frame settle too."""
        if still_frames < 1:
            raise ValueError("still_frames must be at least 1")
        if not 0 < threshold < 1:
            raise ValueError("threshold is a fraction of the frame, between 0 and 1")
        self.still_frames = still_frames
        self.threshold = threshold
        self.level = level
        self.work_width = work_width
        self.require_motion = require_motion
        self.reset()

    def reset(self) -> None:
        """Forget the past frames (e.g. after the camera was moved)."""
        self._previous: FloatImage | None = None
        self._anchor: FloatImage | None = None
        self.still_count = 0
        self.seen_motion = not self.require_motion
        self.settled = False
        self.just_settled = False
        self.moving = False
        self.changed = 0.0

    def update(self, frame: Image) -> bool:
        """Feed the next frame; True while the scene has been still long enough after motion."""
        current = self._prepare(frame)
        self.just_settled = False
        if self._previous is None or self._previous.shape != current.shape:
            self._previous, self._anchor = current, current
            self.still_count, self.moving, self.changed = 0, False, 0.0
            return self.settled
        assert self._anchor is not None
        self.changed = max(
            self._changed(self._previous, current), self._changed(self._anchor, current)
        )
        self._previous = current
        self.moving = self.changed > self.threshold
        if self.moving:
            self.seen_motion = True
            self.settled = False
            self.still_count = 0
            self._anchor = current
            return False
        self.still_count += 1
        if not self.settled and self.seen_motion and self.still_count >= self.still_frames:
            self.settled = self.just_settled = True
        return self.settled

    def _prepare(self, frame: Image) -> FloatImage:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        height, width = grey.shape[:2]
        if width > self.work_width:
            size = (self.work_width, max(1, round(height * self.work_width / width)))
            grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
        small = f32(cv2.GaussianBlur(grey.astype(np.float32), (5, 5), 0))
        mean = float(small.mean())
        return small * (128.0 / mean) if mean > 1.0 else small

    def _changed(self, before: FloatImage, after: FloatImage) -> float:
        difference = after - before
        difference -= float(np.median(difference))
        return float(np.count_nonzero(np.abs(difference) > self.level)) / difference.size
