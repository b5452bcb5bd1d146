"""``companion vision``: the overhead camera from the command line.

    companion vision dice IMAGE --kind pips|cubes [--calibration FILE]
                                [--reader learned|hand-tuned] [--colors FILE]
                                [--annotate OUT.png] [--json | --for-referee]
    companion vision check-card OUT.pdf|OUT.png
    companion vision colors IMAGE -o colors.json
    companion vision tessons IMAGE [--seats FILE] [--reader learned|hand-tuned]
                                [--annotate OUT.png] [--json]
    companion vision markers OUT.pdf|OUT.png [--size-mm 40]
    companion vision calibrate IMAGE --area-mm W H [--marker-mm 40] -o calibration.json
                                [--annotate OUT.png]
    companion vision snap OUT.png [--config FILE] [--source SPEC] [--settled] [--max-frames N]

``dice --json`` prints ``{"units": "px"|"mm", "dice": [...]}`` with every field of a reading
(confidence and flagged included). ``dice --kind cubes --for-referee`` prints exactly what
``companion oraklos predictions`` reads: ``{"dice": [{x, y, size, angle, color, hole}]}``,
and names on stderr any die a person should confirm. Cubes are read by the learned reader
(``vision.cube_net``) unless ``--reader hand-tuned`` (``vision.cubes``), tessons by
``vision.tesson_net`` unless ``--reader hand-tuned`` (``vision.tessons``). Frames are
white-balanced by the markers' paper first (``vision.white_balance``); ``colors`` learns the
table's cube colours from the printed colour check card (``check-card``) with a cube in each box
(``vision.color_check``), and ``dice --reader hand-tuned --colors`` reads with them. A file that
cannot be used, markers not found or a damaged JSON file exit with status 2 and say why on
stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vision.arrays import Image
from vision.readings import DieReading, TessonReading, UnreadableFrame
from vision.seats import BadSeatMap, SeatMap

if TYPE_CHECKING:
    from vision.calibration import Calibration

DieReader = Callable[[Image], Sequence[DieReading]]
TessonReader = Callable[[Image, SeatMap | None], Sequence[TessonReading]]

REFEREE_FIELDS = ("x", "y", "size", "angle", "color", "hole")


class CommandError(Exception):
    """Something the command cannot use; the message says what to fix (exit status 2)."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``vision`` command to the ``companion`` command's subparsers."""
    vision = sub.add_parser("vision", help="the overhead camera: read dice, tessons, calibrate")
    commands = vision.add_subparsers(dest="vision_command", metavar="COMMAND", required=True)

    dice = commands.add_parser("dice", help="read the dice in a photograph of the table")
    dice.add_argument("image", metavar="IMAGE", type=Path)
    dice.add_argument(
        "--kind",
        choices=("pips", "cubes"),
        required=True,
        help="pips: ordinary dice (value); cubes: Oraklos cubes (color, hole)",
    )
    dice.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="a calibration.json: positions and sizes in mm instead of pixels",
    )
    dice.add_argument(
        "--annotate",
        type=Path,
        metavar="OUT.png",
        help="also write the photograph with the readings drawn on it",
    )
    dice.add_argument(
        "--colors",
        type=Path,
        metavar="FILE",
        help="cubes, hand-tuned reader only: a colors.json from `companion vision colors` "
        "(this table's plastics)",
    )
    dice.add_argument(
        "--reader",
        choices=("learned", "hand-tuned"),
        default="learned",
        help="cubes only: the learned reader (the default, as the companion reads) or the "
        "hand-tuned one",
    )
    output = dice.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON instead of a listing")
    output.add_argument(
        "--for-referee",
        action="store_true",
        help="cubes only: print the DICE.json `companion oraklos` reads",
    )

    tessons = commands.add_parser("tessons", help="read the revealed tessons in a photograph")
    tessons.add_argument("image", metavar="IMAGE", type=Path)
    tessons.add_argument(
        "--seats",
        type=Path,
        metavar="FILE",
        help="a seat map JSON: say in whose zone each tesson lies",
    )
    tessons.add_argument(
        "--expect",
        type=_seats,
        metavar="SEATS",
        help="with --seats: the seats revealing now, e.g. 0,2,5; one that shows none gets the "
        "learned reader's faintest detection in its zone, flagged to confirm (as the companion "
        "reads)",
    )
    tessons.add_argument("--annotate", type=Path, metavar="OUT.png")
    tessons.add_argument(
        "--reader",
        choices=("learned", "hand-tuned"),
        default="learned",
        help="the learned reader (the default, as the companion reads) or the hand-tuned one",
    )
    tessons.add_argument("--json", action="store_true", help="print JSON instead of a listing")

    colors = commands.add_parser(
        "colors",
        help="learn this table's cube colours from a photo of the colour check card, a cube "
        "in each box",
    )
    colors.add_argument("image", metavar="IMAGE", type=Path)
    colors.add_argument("-o", "--output", type=Path, required=True, metavar="colors.json")

    card = commands.add_parser("check-card", help="write the colour check card to print")
    card.add_argument("output", metavar="OUT.pdf|OUT.png", type=Path)

    markers = commands.add_parser("markers", help="write the four table markers to print")
    markers.add_argument("output", metavar="OUT.pdf|OUT.png", type=Path)
    markers.add_argument(
        "--size-mm",
        type=float,
        default=40.0,
        help="side of each marker's black square (default 40)",
    )

    calibrate = commands.add_parser("calibrate", help="pixels → mm from a photo of the markers")
    calibrate.add_argument("image", metavar="IMAGE", type=Path)
    calibrate.add_argument(
        "--area-mm",
        type=float,
        nargs=2,
        metavar=("W", "H"),
        required=True,
        help="the play area between the markers' outer corners, in mm",
    )
    calibrate.add_argument(
        "--marker-mm",
        type=float,
        default=40.0,
        help="side of the markers' black squares (default 40)",
    )
    calibrate.add_argument("-o", "--output", type=Path, required=True, metavar="calibration.json")
    calibrate.add_argument(
        "--annotate",
        type=Path,
        metavar="OUT.png",
        help="also write the photo with the play area and a 10 cm grid",
    )

    snap = commands.add_parser("snap", help="save one frame from the camera")
    snap.add_argument("output", metavar="OUT.png", type=Path)
    snap.add_argument("--config", type=Path, help="TOML config ([camera] source and size)")
    snap.add_argument("--source", help='override [camera] source: "auto", "device:0", a path…')
    snap.add_argument(
        "--settled",
        action="store_true",
        help="wait until the scene has been still for [camera] settle_frames",
    )
    snap.add_argument(
        "--max-frames",
        type=int,
        default=300,
        help="give up waiting for a still scene after this many frames",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``companion vision ...``; returns the exit status."""
    handler: Callable[[argparse.Namespace], int] = {
        "dice": _dice,
        "tessons": _tessons,
        "markers": _markers,
        "calibrate": _calibrate,
        "colors": _colors,
        "check-card": _check_card,
        "snap": _snap,
    }[args.vision_command]
    from vision.calibration import CalibrationError
    from vision.color_check import ColorCheckError

    refused = (CommandError, UnreadableFrame, CalibrationError, ColorCheckError, BadSeatMap)
    try:
        return handler(args)
    except (*refused, OSError) as exc:
        print(f"companion vision {args.vision_command}: {_message(exc)}", file=sys.stderr)
        return 2


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"cannot use {exc.filename}: {exc.strerror or exc}"
    return str(exc)


def _image(path: Path) -> Image:
    from vision.sources import read_image

    return read_image(path)


@contextlib.contextmanager
def _installed(module: str, name: str) -> Iterator[None]:
    """Around the import of a reader's function (imported only when a command needs it): a
    ``CommandError`` when ``vision.<module>`` or the function is not in this companion."""
    try:
        yield
    except ModuleNotFoundError as exc:
        if exc.name == f"vision.{module}":
            raise CommandError(f"vision.{module} is not installed with this companion") from None
        raise
    except ImportError as exc:
        if exc.name == f"vision.{module}":
            raise CommandError(f"vision.{module}.{name} is missing from this companion") from None
        raise


def _die_reader(kind: str, learned: bool, colors: Path | None = None) -> DieReader:
    """``dice``'s reader: the learned cube reader, or ``vision.<kind>.read_<kind>``; the
    hand-tuned cube reader with the palette of the colour check in ``colors``, when given."""
    if learned:
        with _installed("cube_net", "read_cubes_net"):
            from vision.cube_net import read_cubes_net
        return read_cubes_net
    if kind == "pips":
        with _installed("pips", "read_pips"):
            from vision.pips import read_pips
        return read_pips
    with _installed("cubes", "read_cubes"):
        from vision.cubes import read_cubes
    if colors is None:
        return read_cubes
    from vision.color_check import ColorCheck

    return functools.partial(read_cubes, palette=ColorCheck.load(colors).palette())


def _tesson_reader(learned: bool, candidates: bool = False) -> TessonReader:
    """``tessons``'s reader: the learned one (with its ``candidates``, when asked), or the
    hand-tuned ``vision.tessons``'s."""
    if learned:
        with _installed("tesson_net", "read_tessons_net"):
            from vision.tesson_net import read_tessons_net
        return (
            functools.partial(read_tessons_net, candidates=True) if candidates else read_tessons_net
        )
    with _installed("tessons", "read_tessons"):
        from vision.tessons import read_tessons
    return read_tessons


def _annotated_dice(kind: str, image: Image, readings: list[DieReading]) -> Image:
    """A copy of the photograph with the dice drawn (``vision.<kind>.annotate_<kind>``)."""
    if kind == "pips":
        with _installed("pips", "annotate_pips"):
            from vision.pips import annotate_pips
        return annotate_pips(image.copy(), readings)
    with _installed("cubes", "annotate_cubes"):
        from vision.cubes import annotate_cubes
    return annotate_cubes(image.copy(), readings)


def _write_picture(path: Path, picture: Image) -> None:
    import cv2

    if not cv2.imwrite(str(path), picture):
        raise CommandError(f"cannot write {path}: use a .png or .jpg name in a folder that exists")


def _dice(args: argparse.Namespace) -> int:
    if args.for_referee and args.kind != "cubes":
        raise CommandError("--for-referee is for --kind cubes (Oraklos's cubes)")
    if args.colors is not None and args.kind != "cubes":
        raise CommandError("--colors is for --kind cubes (Oraklos's cubes)")
    if args.colors is not None and args.reader != "hand-tuned":
        raise CommandError(
            "--colors is read by the hand-tuned cube reader: add --reader hand-tuned "
            "(the learned reader learned the plastics itself)"
        )
    calibration = _calibration(args.calibration)
    image = _image(args.image)
    if calibration is not None:
        calibration.check_frame(image)
    learned = args.kind == "cubes" and args.reader == "learned"
    read = _die_reader(args.kind, learned, args.colors)
    from vision.white_balance import balanced

    readings: list[DieReading] = list(read(balanced(image, calibration)))
    if args.annotate is not None:
        _write_picture(args.annotate, _annotated_dice(args.kind, image, readings))
    units = "px"
    if calibration is not None:
        readings = [calibration.map_reading(r) for r in readings]
        units = "mm"
    if args.for_referee:
        print(json.dumps({"dice": [referee_die(r) for r in readings]}))
        for i, r in enumerate(readings):
            if r.flagged:
                print(
                    f"companion vision dice: die {i} at ({r.x:.0f}, {r.y:.0f}) is uncertain "
                    f"(confidence {r.confidence:.2f}): check it on the table",
                    file=sys.stderr,
                )
        return 0
    if args.json:
        print(json.dumps({"units": units, "dice": [r.to_json() for r in readings]}))
        return 0
    plural = "die" if len(readings) == 1 else "dice"
    print(f"{len(readings)} {plural} (positions in {'mm' if units == 'mm' else 'pixels'})")
    for i, r in enumerate(readings):
        shows = (
            f"value {r.value}"
            if r.value is not None
            else f"{r.color}{', hole up' if r.hole else ''}"
        )
        flag = "  CONFIRM" if r.flagged else ""
        print(
            f"  {i}: {shows} at ({r.x:.1f}, {r.y:.1f}), size {r.size:.1f}, "
            f"angle {r.angle:.0f}°, confidence {r.confidence:.2f}{flag}"
        )
    return 0


def _calibration(path: Path | None) -> Calibration | None:
    if path is None:
        return None
    from vision.calibration import Calibration

    return Calibration.load(path)


def _check_card(args: argparse.Namespace) -> int:
    from vision.color_check import check_card

    try:
        check_card(args.output)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    print(f"wrote {args.output}: print it at 100 %, cut it out, lay a cube in each box")
    return 0


def _colors(args: argparse.Namespace) -> int:
    from vision.color_check import read_color_check

    check = read_color_check(_image(args.image))
    check.save(args.output)
    faces = ", ".join(
        f"{color} (hue {face.hue:.0f}, saturation {face.sat:.0f}, brightness {face.val:.0f})"
        for color, face in check.faces.items()
    )
    print(f"found the four cubes: {faces}; wrote {args.output}")
    return 0


def referee_die(reading: DieReading) -> dict[str, Any]:
    """A cube reading in the shape ``companion oraklos`` reads (no confidence, no flag)."""
    if reading.color is None:
        raise CommandError("a die without a colour cannot go to the Oraklos referee")
    return {
        "x": round(reading.x, 2),
        "y": round(reading.y, 2),
        "size": round(reading.size, 2),
        "angle": round(reading.angle, 1),
        "color": reading.color,
        "hole": bool(reading.hole),
    }


def _seats(text: str) -> tuple[int, ...]:
    """``--expect``'s seats: numbers from 0, separated by commas."""
    parts = text.split(",")
    if not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"seats are numbers from 0 with commas, not {text!r}")
    return tuple(int(part) for part in parts)


def _tessons(args: argparse.Namespace) -> int:
    seats = None
    if args.seats is not None:
        seats = SeatMap.load(args.seats)
    if args.expect is not None and seats is None:
        raise CommandError("--expect needs --seats: the zones say whose tesson is where")
    image = _image(args.image)
    read = _tesson_reader(args.reader == "learned", candidates=args.expect is not None)
    from vision.calibration import CalibrationError, detect_markers
    from vision.readings import seat_candidates
    from vision.tessons import off_the_markers
    from vision.white_balance import balanced

    readings = list(read(balanced(image), seats))  # as the tesson desk reads
    with contextlib.suppress(CalibrationError):  # a marker seen twice: nothing left out
        readings = off_the_markers(readings, detect_markers(image))
    readings = seat_candidates(readings, args.expect)
    if args.annotate is not None:
        with _installed("tessons", "annotate_tessons"):
            from vision.tessons import annotate_tessons
        _write_picture(args.annotate, annotate_tessons(image.copy(), list(readings)))
    if args.json:
        print(json.dumps({"units": "px", "tessons": [r.to_json() for r in readings]}))
        return 0
    plural = "tesson" if len(readings) == 1 else "tessons"
    print(f"{len(readings)} {plural} (positions in pixels)")
    for i, r in enumerate(readings):
        seat = f"seat {r.seat}" if r.seat is not None else "no seat's zone"
        flag = "  CONFIRM" if r.flagged else ""
        print(
            f"  {i}: {r.side} at ({r.x:.1f}, {r.y:.1f}) in {seat}, "
            f"confidence {r.confidence:.2f}{flag}"
        )
    return 0


def _markers(args: argparse.Namespace) -> int:
    from vision.calibration import marker_sheet

    try:
        marker_sheet(args.output, args.size_mm)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    print(
        f"wrote {args.output}: markers 0-3, {args.size_mm:g} mm, on A4; print at 100 % "
        "(no scaling) and check one marker with a ruler"
    )
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import annotate_calibration, calibrate

    image = _image(args.image)
    width, height = args.area_mm
    calibration = calibrate(image, (width, height), args.marker_mm)
    calibration.save(args.output)
    centre = calibration.to_image(width / 2, height / 2)
    px_per_mm = 1 / calibration.mm_per_px(*centre)
    print(
        f"found the 4 markers: {width:g}×{height:g} mm play area, fit within "
        f"{calibration.error_mm:.2f} mm, {px_per_mm:.2f} px/mm at its centre; "
        f"wrote {args.output}"
    )
    if args.annotate is not None:
        import cv2

        if not cv2.imwrite(str(args.annotate), annotate_calibration(image, calibration)):
            raise CommandError(f"cannot write {args.annotate}")
    return 0


def _snap(args: argparse.Namespace) -> int:
    import cv2

    from companion.config import ConfigError, load
    from vision.settle import SettleDetector
    from vision.sources import CameraUnavailable, open_source

    try:
        camera = load(args.config).camera
    except ConfigError as exc:
        raise CommandError(f"config error: {exc}") from None
    spec = args.source if args.source is not None else camera.source
    try:
        with open_source(spec, (camera.width, camera.height)) as source:
            frame = source.read()
            if args.settled:
                detector = SettleDetector(camera.settle_frames, require_motion=False)
                detector.update(frame)
                count = 1
                while not detector.settled:
                    if count >= args.max_frames:
                        raise CommandError(
                            f"the scene never kept still for {camera.settle_frames} frames in "
                            f"{args.max_frames} frames: keep hands off the table"
                        )
                    frame = source.read()
                    detector.update(frame)
                    count += 1
    except (CameraUnavailable, ValueError) as exc:
        raise CommandError(str(exc)) from None
    if not cv2.imwrite(str(args.output), frame):
        raise CommandError(f"cannot write {args.output}: use a .png or .jpg name")
    height, width = frame.shape[:2]
    print(f"wrote {args.output}: {width}×{height} from {spec}")
    return 0
