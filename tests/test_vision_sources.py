"""Frame sources: image files and folders for simulation, OpenCV's VideoCapture, picamera2."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision import sources
from vision.readings import UnreadableFrame
from vision.sources import (
    CameraStopped,
    CameraUnavailable,
    ImageFileSource,
    ImageFolderSource,
    PicameraUnavailable,
    VideoCaptureSource,
    open_source,
    parse_source,
    read_image,
)

NO_SUCH_DEVICE = 9999  # /dev/video9999


def frame(shade: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    image = np.zeros((size[1], size[0], 3), np.uint8)
    image[:] = (shade, 255 - shade, 7)
    return image


def write(path: Path, image: np.ndarray) -> Path:
    assert cv2.imwrite(str(path), image)
    return path


def shade(image: np.ndarray) -> int:
    return int(image[0, 0, 0])


def test_a_folder_is_played_in_name_order_with_numbers_compared_as_numbers(tmp_path: Path) -> None:
    for number, value in ((10, 30), (2, 20), (1, 10)):
        write(tmp_path / f"frame{number}.png", frame(value))
    (tmp_path / "notes.txt").write_text("not a frame")
    with open_source(str(tmp_path)) as source:
        assert isinstance(source, ImageFolderSource)
        assert [shade(source.read()) for _ in range(3)] == [10, 20, 30]


def test_a_folder_is_cycled_for_ever(tmp_path: Path) -> None:
    write(tmp_path / "a.png", frame(10))
    write(tmp_path / "b.png", frame(20))
    source = open_source(str(tmp_path))
    frames = source.frames()
    assert [shade(next(frames)) for _ in range(5)] == [10, 20, 10, 20, 10]


def test_frames_are_bgr_uint8_even_from_a_grey_image(tmp_path: Path) -> None:
    grey = np.full((30, 40), 99, np.uint8)
    image = read_image(write(tmp_path / "grey.png", grey))
    assert image.shape == (30, 40, 3)
    assert image.dtype == np.uint8
    assert int(image[5, 5, 1]) == 99


def test_a_single_image_is_a_still_scene(tmp_path: Path) -> None:
    source = open_source(str(write(tmp_path / "table.jpg", frame(100))))
    assert isinstance(source, ImageFileSource)
    first, second = source.read(), source.read()
    assert np.array_equal(first, second)
    first[:] = 0
    assert source.read().any(), "each read is a copy the caller may draw on"


def test_an_unreadable_image_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG but not really")
    with pytest.raises(UnreadableFrame, match=r"broken\.png"):
        open_source(str(bad))


def test_an_unreadable_image_in_a_folder_is_named_when_its_turn_comes(tmp_path: Path) -> None:
    write(tmp_path / "1.png", frame(10))
    (tmp_path / "2.png").write_bytes(b"")
    source = open_source(str(tmp_path))
    source.read()
    with pytest.raises(UnreadableFrame, match=r"2\.png"):
        source.read()


def test_an_empty_folder_is_no_camera(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="holds no images"):
        open_source(str(tmp_path))


def test_a_missing_path_says_what_a_source_can_be(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="no such file or folder") as caught:
        open_source(str(tmp_path / "nowhere"))
    assert "device:0" in str(caught.value)


def test_a_closed_source_gives_no_more_frames(tmp_path: Path) -> None:
    source = open_source(str(write(tmp_path / "t.png", frame(1))))
    source.close()
    with pytest.raises(CameraStopped):
        source.read()


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for value in (0, 60, 120, 180, 240):
        writer.write(frame(value))
    writer.release()
    return path


def test_videocapture_plays_a_video_file_to_its_end(video: Path) -> None:
    with open_source(str(video)) as source:
        assert isinstance(source, VideoCaptureSource)
        frames = list(source.frames())
    assert len(frames) == 5
    assert all(f.shape == (48, 64, 3) and f.dtype == np.uint8 for f in frames)
    blues = [shade(f) for f in frames]
    assert blues == sorted(blues)
    assert abs(blues[0] - 0) < 12 and abs(blues[-1] - 240) < 12


def test_reading_past_the_end_of_a_video_says_so(video: Path) -> None:
    source = VideoCaptureSource(video)
    for _ in range(5):
        source.read()
    with pytest.raises(CameraStopped, match="end of the video"):
        source.read()
    source.close()


def test_a_camera_device_that_does_not_exist_fails_cleanly() -> None:
    with pytest.raises(CameraUnavailable, match="no camera at device:9") as caught:
        open_source("device:9")
    assert "set [camera] source to a folder of images" in str(caught.value)


def test_a_device_needs_a_number() -> None:
    with pytest.raises(ValueError, match="device:0"):
        parse_source("device:usb")
    assert parse_source("device:3") == 3
    assert parse_source("auto") == "auto"


def without_picamera2(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without picamera2, even where it is installed: its import fails."""
    monkeypatch.setitem(sys.modules, "picamera2", None)


def without_device_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without /dev/video0, even where there is one: the probe of device 0
    opens a device that no machine has (OpenCV's own VideoCapture, failing for real)."""
    real = sources.VideoCaptureSource

    def probe(target: int | Path | str, *args: Any) -> sources.VideoCaptureSource:
        return real(NO_SUCH_DEVICE if target == 0 else target, *args)

    monkeypatch.setattr(sources, "VideoCaptureSource", probe)


def test_picamera_without_picamera2_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_picamera2(monkeypatch)
    with pytest.raises(PicameraUnavailable) as caught:
        open_source("picamera")
    message = str(caught.value)
    assert "sudo apt install python3-picamera2" in message
    assert "--system-site-packages" in message


def test_auto_without_any_camera_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    without_picamera2(monkeypatch)
    without_device_0(monkeypatch)
    with pytest.raises(CameraUnavailable, match="no camera found") as caught:
        open_source("auto")
    assert "plug in the camera" in str(caught.value)
    assert "folder of images" in str(caught.value)


def test_a_picamera2_that_fails_to_load_is_no_camera_with_the_known_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pi OS's apt simplejpeg is built for numpy 1; a venv with numpy 2 breaks its import."""
    package = tmp_path / "picamera2"
    package.mkdir()
    (package / "__init__.py").write_text(
        'raise ValueError("numpy.dtype size changed, may indicate binary incompatibility")\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    with pytest.raises(PicameraUnavailable, match="does not load") as caught:
        open_source("picamera")
    assert "pip install --force-reinstall simplejpeg" in str(caught.value)


def test_a_picamera2_that_sees_no_camera_falls_through_to_the_next_source_in_auto(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stand-in for picamera2 on a Pi with the ribbon cable out: no camera listed."""

    class Picamera2:
        @staticmethod
        def global_camera_info() -> list[dict[str, object]]:
            return []

    stand_in = types.ModuleType("picamera2")
    stand_in.Picamera2 = Picamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", stand_in)
    with pytest.raises(PicameraUnavailable, match="picamera2 finds no camera"):
        open_source("picamera")
    if not Path("/dev/video0").exists():
        with pytest.raises(CameraUnavailable, match="no camera found") as caught:
            open_source("auto")
        assert "picamera2 finds no camera" in str(caught.value)
