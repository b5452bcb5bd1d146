"""``companion doctor``: is the table ready? Each check reports what it saw and, for a problem,
the fix a person can carry out.

Every check takes what it looks at as arguments (a pin factory, a camera source, the sound
cards file, a ``PATH`` for espeak-ng / aplay / timedatectl, the clock), so the tests hand in
gpiozero's MockFactory, image files, a tmpfs or a damaged SQLite file. ``run_checks`` runs them
all for a config. A failure means the table cannot play as configured; a warning means it can,
less well (a blurred camera, no marker, an unsynchronised clock).

Camera thresholds, measured on the 200 sharp photos of /work/shared/data/dice-photos and on
the same photos blurred with ``cv2.GaussianBlur`` (frames are first reduced to 640 pixels on
their long side, the size of those photos):

- focus: the variance of the Laplacian divided by that of the frame blurred again (σ 1.5). A
  sharp frame loses most of its fine detail when blurred, a blurred one little. Sharp photos
  score 19.6 to 56 (median 37); blurred with a 3×3 kernel 6.8 to 13.7, 5×5 4.6 to 10.5, 9×9 3 to
  13.5. Below ``SHARP`` = 16 the frame is called blurred. (The plain variance of the Laplacian
  depends on what the frame shows: 6 to 393 sharp, up to 64 blurred 3×3, so no threshold
  separates them.)
- exposure: the photos' mean grey level is 163 to 183 of 255, with at most 0.2 % of pixels at
  or below 10 and none at or above 250. Darker than a mean of ``DARK_MEAN`` = 50, or more than
  25 % black, is too dark; a mean above ``BRIGHT_MEAN`` = 220 or more than 5 % of the pixels
  white (glare) is too bright.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from appliance.address import LOOPBACK, WILDCARD, lan_address, page_url
from companion.config import CameraConfig, Config
from companion.journal import GameEntry, Journal
from companion.narration.catalog import Catalog
from voice.outputs import CARDS, NO_CARD_FIX, OutputNotFound, read_cards, resolve_output, use_output

Say = Callable[[str, str], None]  # (text, language): print and speak a prompt

BUILD_DATE = date(2026, 1, 1)  # no clock is right before this companion was made
MB = 1024 * 1024
MIN_FREE = 50 * MB  # below: fail (a night's journal and logs need room)
LOW_FREE = 500 * MB  # below: warn
SHARP = 16.0
DARK_MEAN, BRIGHT_MEAN = 50.0, 220.0
BLACK_SHARE, WHITE_SHARE = 0.25, 0.05
ANALYSIS_SIDE = 640
WARM_UP_FRAMES = 10  # a camera's first frames are dark while its exposure settles
BLINKS = 3
SERVICE = "tabletop-companion"
STOP_SERVICE = f"stop the service first: sudo systemctl stop {SERVICE}"

# BCM number → physical pin on the 40-pin header (docs/WIRING.md).
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33, 14: 8,
    15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22,
    26: 37, 27: 13,
}  # fmt: skip


class Status(Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class Finding:
    """One check's result: what was seen and, unless all is well, what to do. An ok finding may
    carry a fix too, for what the doctor cannot see itself (an LED, the sound)."""

    check: str
    status: Status
    seen: str
    fix: str = ""


def ok(check: str, seen: str, fix: str = "") -> Finding:
    return Finding(check, Status.OK, seen, fix)


def warn(check: str, seen: str, fix: str) -> Finding:
    return Finding(check, Status.WARN, seen, fix)


def fail(check: str, seen: str, fix: str) -> Finding:
    return Finding(check, Status.FAIL, seen, fix)


def pin_name(bcm: int) -> str:
    header = HEADER_PIN.get(bcm)
    return f"BCM {bcm}" + (f" (header pin {header})" if header else "")


def print_prompt(text: str, lang: str) -> None:
    print(f"  » {text}", flush=True)


def table_voice(config: Config, sound: bool = True) -> Say:
    """How a real run asks the table: print the prompt, and speak it through the configured
    speech engine on the configured output (unless ``sound`` is off or speech is not available:
    the check of the speaker says why)."""
    from voice.speech import ConsoleSpeech, SpeechUnavailable, choose_speech

    speech = None
    if sound and config.speech != "console":
        use_output(config.speech_output)  # as the companion does, for espeak-ng's aplay
        try:
            from appliance.wiring import natural_voice

            engine, _warning = choose_speech(
                config.speech, config.speech_rate, natural_voice(config)
            )
            speech = None if isinstance(engine, ConsoleSpeech) else engine
        except SpeechUnavailable:
            speech = None

    def say(text: str, lang: str) -> None:
        print_prompt(text, lang)
        if speech is not None:
            speech.speak(text, lang)

    return say


@dataclass
class Machine:
    """What the checks look at, for a real run or a test."""

    pin_factory: Any = None  # a gpiozero pin factory; None: the config's (simulated: not tested)
    say: Say = print_prompt
    path: str | None = None  # the PATH to find espeak-ng, aplay, timedatectl (None: this one's)
    cards: Path = CARDS
    audio_device: str | None = None  # aplay -D DEVICE; None: the default, on the chosen card
    now: Callable[[], datetime] = lambda: datetime.now().astimezone()
    find_address: Callable[[], str | None] = lan_address
    blink: float = 0.25  # seconds an LED is on, then off


def run_checks(
    config: Config,
    machine: Machine | None = None,
    *,
    buttons: bool = True,
    sound: bool = True,
    timeout: float = 15.0,
    report: Callable[[Finding], object] = lambda finding: None,
) -> list[Finding]:
    """Every check, in the order a person fixes things: sound first (the button test speaks),
    the camera, the disk and the journal, the clock, the network, then the guided button test.
    ``report`` is called with each finding as soon as it is known."""
    machine = machine or Machine()
    findings: list[Finding] = []
    for finding in _all_checks(config, machine, buttons, sound, timeout):
        findings.append(finding)
        report(finding)
    return findings


def _all_checks(
    config: Config, machine: Machine, buttons: bool, sound: bool, timeout: float
) -> Iterator[Finding]:
    if config.speech == "console":
        yield ok("speech", 'off ([voice] engine = "console"): narration is printed and shown')
    else:
        yield check_voices(machine.path)
        yield check_natural_voices(config)
        yield check_speaker(config, machine.cards, machine.path, machine.audio_device, sound)
    yield from check_camera(config.camera)
    yield check_cube_reader(config.camera)
    yield check_tesson_reader(config.camera)
    yield check_disk(config.data_dir)
    yield check_journal(config.journal_path)
    yield check_clock(machine.now(), machine.path)
    yield from check_network(config, machine.find_address)
    if not buttons:
        yield ok("buttons", "not tested (--no-buttons)")
        return
    factory = machine.pin_factory
    if factory is None:
        from hardware.button_box import make_pin_factory

        factory, simulated = make_pin_factory(config.pin_factory)
        if simulated:
            yield ok("buttons", "simulated, no GPIO pins: the host page's virtual panel stands in")
            return
    yield from check_buttons(config, factory, machine.say, timeout, machine.blink)


def exit_status(findings: Sequence[Finding]) -> int:
    """0: the table is ready (warnings allowed); 1: a check failed."""
    return int(any(f.status is Status.FAIL for f in findings))


def summary(findings: Sequence[Finding]) -> str:
    failed = sum(f.status is Status.FAIL for f in findings)
    warned = sum(f.status is Status.WARN for f in findings)
    warnings = f" ({warned} warning{'s' * (warned != 1)})" if warned else ""
    if failed:
        return f"Not ready: {failed} problem{'s' * (failed != 1)}{warnings}."
    return f"The table is ready{warnings}."


def format_finding(finding: Finding) -> str:
    mark = {Status.OK: " ok ", Status.WARN: "warn", Status.FAIL: "FAIL"}[finding.status]
    text = f"[{mark}] {finding.check}: {finding.seen}"
    if finding.fix:
        label = "if not" if finding.status is Status.OK else "fix"
        text += f"\n       {label}: {finding.fix}"
    return text


# --- buttons and LEDs ---------------------------------------------------------------------------


def check_buttons(
    config: Config,
    pin_factory: Any,
    say: Say,
    timeout: float = 15.0,
    blink: float = 0.25,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Finding]:
    """The guided test: each seat is asked aloud to press A, then B (then the power button, if
    there is one); each press must come, debounced, from exactly that pin within ``timeout``
    seconds. Then each LED blinks three times while its seat is asked to look at it, ``blink``
    seconds on and off (``sleep`` waits them)."""
    from hardware.button_box import close_devices

    presses: queue.Queue[int] = queue.Queue()  # the pins pressed, debounced
    try:
        devices = _open_pins(config, pin_factory, presses.put)
    except Exception as exc:  # gpiozero's GPIOPinInUse; lgpio's "GPIO busy"; no pin library
        if type(exc).__name__ == "GPIOPinInUse" or "busy" in str(exc).lower():
            return [fail("buttons", f"the GPIO pins are in use ({exc})", STOP_SERVICE)]
        return [
            fail(
                "buttons",
                f"the GPIO pins cannot be opened ({type(exc).__name__}: {exc})",
                'set [buttons] pin_factory = "auto"; on a Pi, the user needs the gpio group '
                "(sudo adduser companion gpio), and on a Pi 5 python3-lgpio "
                "(sudo apt install python3-lgpio, a venv made with --system-site-packages)",
            )
        ]
    box, pairs = devices[0], config.button_pairs
    catalog = Catalog(config.language)
    lang = config.language
    owners = {
        pin: f"seat {s + 1}'s {b}"
        for s, pair in enumerate(pairs)
        for b, pin in zip("AB", pair, strict=True)
    }
    if config.power.button is not None:
        owners[config.power.button] = "the power button"

    def ask(prompt: str) -> int | None:
        while not presses.empty():  # a press before the question does not answer it
            presses.get_nowait()
        say(prompt, lang)
        try:
            return presses.get(timeout=timeout)
        except queue.Empty:
            return None

    findings = []
    try:
        say(catalog.text("doctor.buttons_intro"), lang)
        for seat, pair in enumerate(pairs):
            who = _who(catalog, config, seat)
            answers = [ask(catalog.text("doctor.press", who=who, button=b)) for b in "AB"]
            findings.append(
                _seat_finding(f"buttons: seat {seat + 1}", pair, answers, owners, timeout)
            )
        if config.power.button is not None:
            pin = config.power.button
            answer = ask(catalog.text("doctor.press_power"))
            findings.append(_button_finding("power button", pin, answer, owners, timeout))
        for seat, pin in enumerate(config.leds):
            say(catalog.text("doctor.look_led", who=_who(catalog, config, seat)), lang)
            for _ in range(BLINKS):
                box.set_led(seat, True)
                sleep(blink)
                box.set_led(seat, False)
                sleep(blink)
            findings.append(
                ok(
                    f"LED: seat {seat + 1}",
                    f"blinked {BLINKS} times on {pin_name(pin)}",
                    "the LED is the right way round (long leg towards the resistor and the pin) "
                    "and its short leg is wired to ground (GND)",
                )
            )
        say(catalog.text("doctor.buttons_done"), lang)
    finally:
        close_devices(devices)
    return findings


def _open_pins(config: Config, pin_factory: Any, put: Callable[[int], object]) -> list[Any]:
    """The seats' button box (with their LEDs), then the power button if there is one; each
    debounced press is ``put`` as its BCM pin."""
    from gpiozero import Button as GpioButton

    from hardware.button_box import ButtonBox, Debouncer, close_devices

    bounce = config.bounce_ms / 1000
    devices: list[Any] = []
    try:
        box = ButtonBox(
            config.button_pairs,
            config.leds,
            lambda press: put(box.pin_of(press)),
            bounce=bounce,
            pin_factory=pin_factory,
            hold=None,
        )
        devices.append(box)
        pin = config.power.button
        if pin is not None:
            debouncer = Debouncer(bounce)
            power = GpioButton(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
            power.when_pressed = lambda: debouncer.edge(pin, True) and put(pin)
            power.when_released = lambda: debouncer.edge(pin, False)
            devices.append(power)
    except Exception:
        close_devices(devices)
        raise
    return devices


def _who(catalog: Catalog, config: Config, seat: int) -> str:
    if seat < len(config.seat_names):
        return catalog.text("doctor.seat_named", number=seat + 1, name=config.seat_names[seat])
    return catalog.text("doctor.seat", number=seat + 1)


def _seat_finding(
    check: str,
    pair: tuple[int, int],
    answers: Sequence[int | None],
    owners: dict[int, str],
    timeout: float,
) -> Finding:
    a, b = pair
    if list(answers) == [a, b]:
        return ok(check, f"A answered on {pin_name(a)}, B on {pin_name(b)}")
    if list(answers) == [b, a]:
        return fail(
            check,
            f"pressing A answered on {pin_name(b)} (B's pin) and B on {pin_name(a)} (A's pin)",
            f"the A and B wires are swapped: swap the wires on {pin_name(a)} and {pin_name(b)}, "
            f"or write this seat's pair as [{b}, {a}] in [buttons] pairs",
        )
    findings = [
        _button_finding(letter, pin, answer, owners, timeout)
        for letter, pin, answer in zip("AB", pair, answers, strict=True)
    ]
    problems = [f for f in findings if f.status is not Status.OK]
    return fail(
        check,
        "; ".join(f"{f.check}: {f.seen}" for f in problems),
        "; ".join(f.fix for f in problems),
    )


def _button_finding(
    check: str, pin: int, answer: int | None, owners: dict[int, str], timeout: float
) -> Finding:
    if answer == pin:
        return ok(check, f"answered on {pin_name(pin)}")
    if answer is None:
        return fail(
            check,
            f"no press on {pin_name(pin)} within {timeout:g} s",
            f"check the wiring of {pin_name(pin)} through the button to ground (GND); "
            "or press sooner (--timeout SECONDS)",
        )
    return fail(
        check,
        f"{pin_name(answer)} ({owners.get(answer, 'another pin')}) answered instead of "
        f"{pin_name(pin)}",
        f"{check}'s wire is on {pin_name(answer)}: move it to {pin_name(pin)} (or swap the "
        "two wires), unless another button was pressed by mistake",
    )


# --- camera ---------------------------------------------------------------------------------


def check_camera(camera: CameraConfig) -> list[Finding]:
    """A frame from the configured source, then its focus, its exposure and the markers."""
    from vision.readings import UnreadableFrame
    from vision.sources import CameraUnavailable, open_source

    live = camera.source in ("auto", "picamera") or camera.source.startswith("device:")
    try:
        source = open_source(camera.source, (camera.width, camera.height))
    except CameraUnavailable as exc:
        return [
            fail(
                "camera",
                str(exc),
                "connect the camera (the ribbon cable fully in, the Pi off while you do it), "
                "check it with `rpicam-hello --list-cameras`, or set [camera] source to the "
                'camera to use ("device:0" for a USB webcam) or to a folder of images',
            )
        ]
    except (UnreadableFrame, ValueError) as exc:
        return [fail("camera", str(exc), "set [camera] source to a camera or to image files")]
    try:
        with source:
            for _ in range(WARM_UP_FRAMES if live else 1):
                frame = source.read()
    except (CameraUnavailable, UnreadableFrame) as exc:
        return [
            fail(
                "camera",
                f"no frame could be read: {exc}",
                "check the camera's cable; if the service runs, stop it first: "
                f"sudo systemctl stop {SERVICE}",
            )
        ]
    height, width = frame.shape[:2]
    return [
        ok("camera", f"a {width}×{height} frame from {source.description}"),
        *frame_findings(frame),
    ]


def check_cube_reader(
    camera: CameraConfig, clock: Callable[[], float] = time.perf_counter
) -> Finding:
    """The Oraklos cube reader of ``[camera] cubes`` loads (the learned one's model) and reads a
    frame of the camera's size; how long a frame takes on this computer."""
    from appliance.wiring import cube_reader

    return _check_reader("cube", "cubes", camera.cubes, lambda: cube_reader(camera), camera, clock)


def check_tesson_reader(
    camera: CameraConfig, clock: Callable[[], float] = time.perf_counter
) -> Finding:
    """Ostrakon's tesson reader of ``[camera] tessons``, as ``check_cube_reader``."""
    from appliance.wiring import tesson_reader

    return _check_reader(
        "tesson", "tessons", camera.tessons, lambda: tesson_reader(camera), camera, clock
    )


MODELS = {
    "cubes": "its models vision/models/cubes.onnx and vision/models/cube_check.onnx are",
    "tessons": "its model vision/models/tessons.onnx is",
}
"""The learned readers' model files, as the doctor names them when one cannot read."""


def _check_reader(
    kind: str,
    setting: str,
    choice: str,
    reader: Callable[[], Callable[..., Any]],
    camera: CameraConfig,
    clock: Callable[[], float],
) -> Finding:
    frame = np.full((camera.height, camera.width, 3), 128, np.uint8)
    try:
        read = reader()
        read(frame)  # the first read loads the model
        start = clock()
        read(frame)
        ms = 1000 * (clock() - start)
    except Exception as exc:  # whatever stops it, the doctor says it
        return fail(
            f"{kind} reader",
            f"the {choice} reader cannot read a frame: {exc}",
            f"install the companion again (./scripts/serve.sh) so that {MODELS[setting]} "
            f'complete, or set [camera] {setting} = "hand-tuned"',
        )
    return ok(f"{kind} reader", f"{choice}: a {camera.width}×{camera.height} frame in {ms:.0f} ms")


def frame_findings(frame: np.ndarray) -> list[Finding]:
    """Exposure, focus (when the exposure lets it be judged) and the four corner markers."""
    import cv2

    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    scale = ANALYSIS_SIDE / max(grey.shape)
    if scale < 1:
        size = (round(grey.shape[1] * scale), round(grey.shape[0] * scale))
        grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    exposure = _exposure(grey)
    findings = [exposure]
    if exposure.status is Status.OK:
        findings.append(_focus(grey))
    else:
        findings.append(
            warn("camera focus", "not judged: the exposure is off", "fix the light, then run again")
        )
    findings.append(_markers(frame))
    return findings


def sharpness(grey: np.ndarray) -> float:
    """How much of the frame's fine detail blurring it again removes (see the module's doc)."""
    import cv2

    plain = grey.astype(np.float64)
    detail = float(cv2.Laplacian(plain, cv2.CV_64F).var())
    reblurred = float(cv2.Laplacian(cv2.GaussianBlur(plain, (0, 0), 1.5), cv2.CV_64F).var())
    return detail / max(reblurred, 1e-9)


def _focus(grey: np.ndarray) -> Finding:
    score = sharpness(grey)
    if score >= SHARP:
        return ok("camera focus", f"sharp (sharpness {score:.1f}; blurred below {SHARP:g})")
    return warn(
        "camera focus",
        f"the picture is blurred (sharpness {score:.1f}; sharp is {SHARP:g} or more)",
        "turn the lens ring until the edges of a die are crisp (a Camera Module 3 focuses "
        "itself: check its height instead, about 60 cm, docs/vision/camera.md), and wipe the lens",
    )


def _exposure(grey: np.ndarray) -> Finding:
    mean = float(grey.mean())
    black = float((grey <= 10).mean())
    white = float((grey >= 250).mean())
    seen = f"mean brightness {mean:.0f} of 255, {black:.0%} black, {white:.0%} white"
    if mean < DARK_MEAN or black > BLACK_SHARE:
        return warn(
            "camera exposure",
            f"too dark ({seen})",
            "light the table: a lamp above the play area, not behind the camera; check that "
            "nothing covers the lens",
        )
    if mean > BRIGHT_MEAN or white > WHITE_SHARE:
        return warn(
            "camera exposure",
            f"too bright or glare ({seen})",
            "move or shade the lamp so it does not shine into the lens or off the table (a "
            "lampshade, a sheet of paper, light from the side), or turn it down",
        )
    return ok("camera exposure", seen)


def _markers(frame: np.ndarray) -> Finding:
    from vision.calibration import CORNER_IDS, CORNER_NAMES, CalibrationError, detect_markers

    try:
        found = detect_markers(frame)
    except CalibrationError as exc:
        return warn("camera markers", str(exc), "keep one of each marker in view")
    missing = [i for i in CORNER_IDS if i not in found]
    if not missing:
        return ok("camera markers", "the four corner markers (0 to 3) are seen")
    if len(missing) == len(CORNER_IDS):
        return warn(
            "camera markers",
            "no corner marker is seen (without them the camera reads in pixels, not mm)",
            "print them with `companion vision markers markers.pdf` and lay them upright at "
            "the play area's corners (docs/vision/camera.md, The markers), then run "
            "`companion vision calibrate`",
        )
    names = ", ".join(f"{i} ({CORNER_NAMES[i]})" for i in missing)
    places = ", ".join(f"marker {i} in the {CORNER_NAMES[i]} corner" for i in missing)
    return warn(
        "camera markers",
        f"marker{'s' * (len(missing) > 1)} {names} not seen",
        f"put {places} of the play area, upright, in full view and uncovered "
        "(docs/vision/camera.md, The markers)",
    )


# --- speaker and voices ------------------------------------------------------------------------


def check_voices(path: str | None = None) -> Finding:
    """espeak-ng has a French and an English voice (mbrola voices need more: not counted)."""
    espeak = shutil.which("espeak-ng", path=path)
    if espeak is None:
        return fail("voices", "espeak-ng is not installed", "sudo apt install espeak-ng")
    found, missing = [], []
    for lang, language in (("fr", "French"), ("en", "English")):
        listing = subprocess.run(
            [espeak, f"--voices={lang}"], capture_output=True, text=True, timeout=30
        ).stdout
        voices = [
            parts[3]
            for parts in (line.split() for line in listing.splitlines()[1:])
            if len(parts) >= 5
            and (parts[1] == lang or parts[1].startswith(f"{lang}-"))
            and not parts[4].startswith("mb/")
        ]
        if voices:
            found.append(f"{language} ({voices[0]})")
        else:
            missing.append(language)
    if missing:
        return fail(
            "voices",
            f"espeak-ng has no {' and no '.join(missing)} voice",
            "sudo apt install --reinstall espeak-ng-data",
        )
    return ok("voices", ", ".join(found))


LANGUAGE_NAMES = {"fr": "French", "en": "English"}


def check_natural_voices(config: Config) -> Finding:
    """Piper has the voice ``[voice.piper]`` names for each language (else espeak-ng speaks it)."""
    from voice.voices import PINNED, VoiceProblem, find_voice

    if config.speech == "pyttsx3":
        return ok("natural voices", 'not used ([voice] engine = "pyttsx3": espeak-ng speaks)')
    try:
        import piper  # noqa: F401
    except ImportError:
        return warn(
            "natural voices",
            "piper-tts is not installed: espeak-ng speaks every language",
            "upgrade the companion: git pull && sudo ./deploy/install.sh",
        )
    found, missing = [], []
    for lang, choice in config.piper_voices.items():
        language = LANGUAGE_NAMES[lang]
        try:
            voice = find_voice(choice, config.voices_folder, lang)
        except VoiceProblem as exc:
            missing.append(f"{language} ({exc})")
            continue
        if voice is None:
            missing.append(f"{language} ({choice} is not in {config.voices_folder})")
        elif choice in PINNED and voice.model.stat().st_size != PINNED[choice].size:
            missing.append(f"{language} ({voice.model} is cut or damaged)")
        else:
            found.append(f"{language}: {voice.name}")
    if missing:
        add = "companion voices install"
        config_arg = f" --config {config.source}" if config.source else ""
        return warn(
            "natural voices",
            "; ".join([*found, "espeak-ng speaks " + ", ".join(missing)]),
            f"sudo {add}{config_arg} (or, without internet: sudo {add}{config_arg} --from "
            "FOLDER, a folder holding NAME.onnx and NAME.onnx.json)",
        )
    return ok("natural voices", "Piper: " + ", ".join(found))


def check_speaker(
    config: Config,
    cards_path: Path = CARDS,
    path: str | None = None,
    device: str | None = None,
    play: bool = True,
) -> Finding:
    """The configured output among the sound cards, and the test sentence synthesised in the
    config's language by the voice the companion speaks it with (Piper, else espeak-ng) and
    played with aplay (on ``device``, else the default on that card)."""
    from appliance.voices import say_to_wav
    from voice.speech import SpeechUnavailable
    from voice.wav import measure

    cards = read_cards(cards_path)
    if not cards:
        return fail("speaker", "no sound card", NO_CARD_FIX)
    try:
        card = resolve_output(config.speech_output, cards)
    except OutputNotFound as exc:
        return fail("speaker", exc.seen, exc.fix)
    where = next(str(c) for c in cards if c.id == card) if card else "the default output"
    aplay = shutil.which("aplay", path=path)
    if aplay is None:
        return fail("speaker", "aplay is not installed", "sudo apt install alsa-utils")
    sentence = Catalog(config.language).text("doctor.test_sentence")
    with tempfile.TemporaryDirectory(prefix="companion-doctor-") as folder:
        wav = Path(folder) / "test.wav"
        try:
            engine = say_to_wav(config, sentence, config.language, wav)
            loud = measure(wav)
        except SpeechUnavailable as exc:
            return fail("speaker", f"no test sentence: {exc}", "sudo apt install espeak-ng")
        if loud.rms <= 0:
            return fail(
                "speaker",
                f"{engine} made a silent test sentence",
                "sudo apt install --reinstall espeak-ng espeak-ng-data"
                if engine == "espeak-ng"
                else "install the voice again: sudo companion voices install",
            )
        if not play:
            return ok("speaker", f"{where}; test sentence made ({loud.seconds:.1f} s), not played")
        env = dict(os.environ, **({"PATH": path} if path is not None else {}))
        if card:
            env["ALSA_CARD"] = card
        command = [aplay, "-q", *(["-D", device] if device else []), str(wav)]
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=loud.seconds + 15
        )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        error = next((line for line in lines if "cannot find card" in line), lines[-1])
        busy = "busy" in done.stderr.lower()
        return fail(
            "speaker",
            f"aplay could not play on {where}: {error}",
            STOP_SERVICE
            if busy
            else "check that the speaker is plugged in and on; `aplay -l` lists the cards: "
            "choose one with [voice] output (jack, hdmi, usb or a card's name)",
        )
    return ok(
        "speaker",
        f"the test sentence played on {where} ({loud.seconds:.1f} s)",
        "turn the speaker on and up (alsamixer sets the card's volume), or choose another "
        "output with [voice] output",
    )


# --- disk and journal -------------------------------------------------------------------------


def check_disk(data_dir: Path) -> Finding:
    """The data folder exists (or can be made), is writable, and its disk has room."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(data_dir).free
    except OSError as exc:
        return _disk_error(data_dir, exc)
    room = f"{free / MB:.0f} MB free"
    fix_room = (
        "make room: sudo apt clean, sudo journalctl --vacuum-size=50M, delete old files; or "
        "move data_dir to a bigger disk"
    )
    if free < MIN_FREE:
        return fail("disk", f"only {room} at {data_dir}", fix_room)
    try:
        with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".doctor-") as probe:
            probe.write(b"\0" * 4096)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return _disk_error(data_dir, exc)
    if free < LOW_FREE:
        return warn("disk", f"{room} at {data_dir}, little room left", fix_room)
    return ok("disk", f"{data_dir} is writable, {room}")


def _disk_error(data_dir: Path, exc: OSError) -> Finding:
    if exc.errno == errno.EROFS:
        return fail(
            "disk",
            f"{data_dir} is on a read-only disk",
            "restart the Pi (it checks the card as it starts); if the disk stays read-only the "
            "SD card is failing: copy the journal off it (companion export) and use a new card",
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return fail(
            "disk",
            f"{data_dir} cannot be written by this user ({exc.strerror})",
            f"give it to the companion's user: sudo install -d -o companion {data_dir} "
            "(or run the doctor as that user: sudo -u companion ...)",
        )
    if exc.errno == errno.ENOSPC:
        return fail("disk", f"the disk holding {data_dir} is full", "delete old files")
    return fail("disk", f"{data_dir}: {exc.strerror or exc}", "set data_dir to a writable folder")


def check_journal(path: Path) -> Finding:
    """SQLite's integrity check on a read-only connection, then every game replayed from its
    actions as a resume would (a game that does not replay cannot be resumed or exported)."""
    if not path.exists():
        return ok("journal", f"none yet at {path}: a new journal will be made")
    aside = (
        f"move it aside (sudo mv {path} {path}.damaged): the companion then starts a new "
        "journal; send the old one for repair"
    )
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        ) as db:
            problems = [row[0] for row in db.execute("PRAGMA integrity_check").fetchall()]
    except sqlite3.Error as exc:
        return fail("journal", f"{path} is damaged: {exc}", aside)
    if problems != ["ok"]:
        more = f" (and {len(problems) - 1} more)" * (len(problems) > 1)
        return fail("journal", f"{path} is damaged: {problems[0]}{more}", aside)
    try:
        journal = Journal(path)
    except sqlite3.Error as exc:
        return fail("journal", f"{path} cannot be opened: {exc}", aside)
    try:
        latest = journal.latest_game()
        broken = [
            (entry, reason)
            for number in range(1, (latest.id if latest else 0) + 1)
            if (entry := journal.game(number)) is not None
            and (reason := _replay_error(journal, entry)) is not None
        ]
    finally:
        journal.close()
    games = f"{latest.id if latest else 0} game{'s' * ((latest.id if latest else 0) != 1)}"
    if not broken:
        return ok("journal", f"{path}: sound, {games}, every one replays")
    seen = "; ".join(f"game {entry.id} ({entry.title}) does not replay: {r}" for entry, r in broken)
    if latest is not None and not latest.finished and broken[-1][0].id == latest.id:
        return fail("journal", f"{seen}: the unfinished game cannot be resumed", aside)
    return warn(
        "journal",
        seen,
        "it cannot be exported; the next games are not affected (send the journal for repair)",
    )


def _replay_error(journal: Journal, entry: GameEntry) -> str | None:
    from companion.game import action_from_json
    from companion.games.titles import game_for

    try:
        game = game_for(entry.title)
        state = game.new(entry.options, entry.seed)
        for data in journal.actions(entry.id):
            state, _ = game.apply(state, action_from_json(game.actions, data))
    except Exception as exc:  # an unknown game, a malformed or illegal action: all one to us
        return f"{type(exc).__name__}: {exc}"
    return None


# --- clock and network ------------------------------------------------------------------------


def check_clock(now: datetime, path: str | None = None) -> Finding:
    """Not before the companion was made (the Pi has no battery clock), and synchronised."""
    shown = now.strftime("%Y-%m-%d %H:%M")
    if now.date() < BUILD_DATE:
        return fail(
            "clock",
            f"it says {shown}, before this companion was made ({BUILD_DATE})",
            "the Pi has no battery clock: connect it to the network so it sets the time "
            "(sudo nmtui), or set it by hand: sudo date -s 'YYYY-MM-DD HH:MM'",
        )
    timedatectl = shutil.which("timedatectl", path=path)
    if timedatectl is None:
        return ok("clock", f"{shown} (no timedatectl to ask whether it is synchronised)")
    asked = subprocess.run(
        [timedatectl, "show", "-p", "NTPSynchronized", "--value"],
        capture_output=True,
        text=True,
        timeout=15,
    )
    answer = asked.stdout.strip()
    if asked.returncode != 0 or not answer:
        reason = (asked.stderr.strip().splitlines() or ["no answer"])[0]
        return ok("clock", f"{shown} (whether it is synchronised is unknown: {reason})")
    if answer != "yes":
        return warn(
            "clock",
            f"{shown}, not synchronised with the network",
            "connect to the network so the clock is set; until then the logs' times are wrong",
        )
    return ok("clock", f"{shown}, synchronised with the network")


def check_network(
    config: Config, find_address: Callable[[], str | None] = lan_address
) -> list[Finding]:
    """The address phones will use, and the port: free, or already the companion's."""
    port = check_port(config.host, config.port)
    if config.host in LOOPBACK:
        return [
            warn(
                "network",
                f"the page listens on {config.host} only: phones cannot reach it",
                'set [server] host = "0.0.0.0" in the config',
            ),
            port,
        ]
    address = find_address() if config.host in WILDCARD else config.host
    if address is None:
        return [
            fail(
                "network",
                "no network address: the Pi is not connected",
                "connect the Pi to the Wi-Fi (sudo nmtui) or plug in a network cable",
            ),
            port,
        ]
    seen = f"phones open {page_url(address, config.port)}"
    if config.network_name:
        seen += f" (or {page_url(config.network_name + '.local', config.port)})"
    return [ok("network", seen), port]


def check_port(host: str, port: int) -> Finding:
    """Free (nobody answers and it can be bound), or served by a companion already."""
    target = "127.0.0.1" if host in LOOPBACK or host in WILDCARD else host
    check = f"port {port}"
    try:
        with socket.create_connection((target, port), timeout=2):
            pass
    except OSError:
        pass  # nobody listens there: see whether it can be taken
    else:
        if _companion_answers(target, port):
            return ok(check, "already served by a companion (the service is running)")
        return fail(
            check,
            f"taken by another program (it does not answer as the companion at {target})",
            f"stop that program (sudo ss -ltnp 'sport = :{port}' names it) or set [server] port",
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EACCES:
                return ok(
                    check,
                    "free (only a program given the right may listen below 1024: the "
                    "installed service is)",
                )
            if exc.errno == errno.EADDRINUSE:
                return fail(check, f"taken on {host}", "stop that program or set [server] port")
            return fail(
                check,
                f"cannot listen on {host}: {exc.strerror}",
                'set [server] host to "0.0.0.0" (every address of this computer)',
            )
    return ok(check, "free")


def _companion_answers(host: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/api/state", timeout=3) as answer:
            return isinstance(json.load(answer), dict)
    except (OSError, ValueError, urllib.error.URLError):
        return False
