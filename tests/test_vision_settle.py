"""The settled-throw detector, fed synthetic frames: dice tumbling, coming to rest, a hand."""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np
import pytest

from vision.settle import SettleDetector

RNG = np.random.default_rng(3)
FELT = np.clip(
    np.full((720, 1280, 3), (50, 110, 50), np.int16) + RNG.integers(0, 20, (720, 1280, 3)), 0, 255
).astype(np.uint8)

NOISE = [RNG.standard_normal((720, 1280, 3), dtype=np.float32) for _ in range(12)]
Die = tuple[float, float, float]  # x, y, angle (degrees)


def scene(
    dice: Iterable[Die],
    *,
    noise: float = 4.0,
    gain: float = 1.0,
    hand: tuple[int, int] | None = None,
) -> np.ndarray:
    """The table at 1280×720 with 30-pixel white dice, sensor noise and optionally a hand."""
    image = FELT.copy()
    for x, y, angle in dice:
        box = cv2.boxPoints(((x, y), (30, 30), angle)).astype(np.int32)
        cv2.fillPoly(image, [box], (230, 230, 230))
    if hand is not None:
        cv2.ellipse(image, hand, (160, 90), 20, 0, 360, (120, 150, 200), -1)
    grain = NOISE[int(RNG.integers(len(NOISE)))]  # a fresh draw per frame, made cheaply
    noisy = image.astype(np.float32) * gain + grain * noise
    return np.clip(noisy, 0, 255).astype(np.uint8)


REST = [(400.0, 300.0, 10.0), (700.0, 420.0, 35.0), (900.0, 250.0, 70.0)]


def tumbling(frames: int) -> list[np.ndarray]:
    """Dice thrown in from the left, tumbling towards where they come to rest."""
    out = []
    for i in range(frames):
        left = frames - i
        out.append(scene([(x - 25 * left, y + 9 * left, a + 17 * left) for x, y, a in REST]))
    return out


def feed(detector: SettleDetector, frames: Iterable[np.ndarray]) -> list[bool]:
    return [detector.update(frame) for frame in frames]


def test_a_throw_settles_after_the_given_number_of_still_frames() -> None:
    detector = SettleDetector(still_frames=5)
    assert not any(feed(detector, tumbling(6)))
    # The first frame at rest still differs from the last tumbling one; five still ones follow.
    assert feed(detector, (scene(REST) for _ in range(8))) == [False] * 5 + [True] * 3


def test_it_settles_once_per_throw() -> None:
    detector = SettleDetector(still_frames=3)
    feed(detector, tumbling(4))
    events = []
    for _ in range(6):
        detector.update(scene(REST))
        events.append(detector.just_settled)
    assert events == [False, False, False, True, False, False]


def test_sensor_noise_alone_is_no_motion() -> None:
    detector = SettleDetector(still_frames=3)
    feed(detector, (scene(REST, noise=10.0) for _ in range(30)))
    assert not detector.settled, "nothing was thrown"
    assert detector.changed == 0.0


def test_a_still_table_from_the_start_settles_when_no_motion_is_required() -> None:
    detector = SettleDetector(still_frames=4, require_motion=False)
    assert feed(detector, (scene(REST, noise=8.0) for _ in range(6))) == [False] * 4 + [True] * 2


def test_a_slow_change_of_light_is_no_motion() -> None:
    detector = SettleDetector(still_frames=5)
    feed(detector, tumbling(3))
    gains = [1 + 0.004 * i for i in range(25)]  # 10 % brighter over 25 frames
    assert feed(detector, (scene(REST, gain=g) for g in gains))[-1]
    assert detector.still_count == 24, "every frame after the first at rest was still"


@pytest.mark.parametrize(
    ("label", "step"),
    [("rolling a pixel a frame", (1.0, 0.0, 0.0)), ("spinning 4° a frame", (0.0, 0.0, 4.0))],
)
def test_a_die_still_moving_a_little_is_not_settled(label: str, step: Die) -> None:
    detector = SettleDetector(still_frames=4)
    feed(detector, tumbling(3))
    dx, dy, da = step
    frames = []
    for i in range(12):
        last = (REST[2][0] + dx * i, REST[2][1] + dy * i, REST[2][2] + da * i)
        frames.append(scene([*REST[:2], last]))
    assert not any(feed(detector, frames)), label


def test_a_die_creeping_slower_than_a_frame_can_show_is_caught_against_the_still_start() -> None:
    detector = SettleDetector(still_frames=6)
    feed(detector, tumbling(3))
    frames = [scene([*REST[:2], (900.0 + 0.3 * i, 250.0, 70.0)]) for i in range(20)]
    assert not any(feed(detector, frames))


def test_a_hand_passing_resets_it() -> None:
    detector = SettleDetector(still_frames=4)
    feed(detector, tumbling(4))
    assert feed(detector, (scene(REST) for _ in range(5)))[-1]
    hand = [scene(REST, hand=(100 + 150 * i, 360)) for i in range(6)]
    assert not any(feed(detector, hand))
    after = feed(detector, (scene(REST) for _ in range(6)))
    assert after == [False] * 4 + [True] * 2


def test_frames_of_any_size_and_grey_frames_work() -> None:
    detector = SettleDetector(still_frames=2)
    small = [cv2.cvtColor(cv2.resize(f, (320, 180)), cv2.COLOR_BGR2GRAY) for f in tumbling(3)]
    still = cv2.cvtColor(cv2.resize(scene(REST), (320, 180)), cv2.COLOR_BGR2GRAY)
    assert feed(detector, [*small, still, still, still]) == [False] * 5 + [True]


def test_nonsense_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SettleDetector(still_frames=0)
    with pytest.raises(ValueError, match="fraction"):
        SettleDetector(threshold=5)
