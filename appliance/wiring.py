"""Builds a running companion from a config: journal, voice, buttons, table and web app."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from appliance.address import PageAddress
from companion.config import Config
from companion.journal import Journal
from companion.moderator import Table
from companion.narration.catalog import LANGUAGES, Catalog
from companion.timers import REAL_CLOCK, Clock

log = logging.getLogger(__name__)


@dataclass
class Companion:
    config: Config
    table: Table
    app: Any
    narrator: Any
    buttons: Any
    simulated: bool
    throws: Any = None
    tessons: Any = None
    dice: Any = None  # desks.pip_dice.DiceDesk: game night's dice reader
    lock: Any = None  # web.auth.HostLock: the host PIN and the session cookies' key
    shutdown: Any = None  # companion.power.Shutdown: the power button's and the host page's
    power_button: Any = None  # hardware.button_box.PowerButton, when [power] button is set
    page: Any = None  # PageAddress: where phones open the page
    broadcaster: Any = None  # web.sse.Broadcaster: the live pages' streams

    def close(self) -> None:
        if self.page is not None:
            self.page.close()
        if self.power_button is not None:
            self.power_button.close()
        if self.dice is not None:
            self.dice.close()
            if self.dice.generated is not None:
                self.dice.camera.close()
        if self.tessons is not None:
            self.tessons.close()
        if self.throws is not None:
            self.throws.close()
            if self.throws.camera is not None:
                self.throws.camera.close()
        self.buttons.close()
        self.narrator.close()
        self.table.journal.close()


class VoiceTrouble:
    """Shows the table that its voice is missing (at start-up) or has stopped (mid-game), once
    per run of failures (the narrator's ``on_failure``). Shown, never said: saying it would ask
    the failing voice again. The narrator may fail before the table exists (its engine starts
    in its own thread at once): the notice then waits for ``attach``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: Table | None = None
        self._waiting: str | None = None

    def __call__(self, at_start: bool) -> None:
        self.show("general.speech_missing" if at_start else "general.speech_failed")

    def fallback(self, lang: str, why: str) -> None:
        """Piper cannot speak ``lang`` (``why``: "no_voice" or "failed"): espeak-ng does."""
        self.show(f"general.voice_{why}_{lang}")

    def show(self, key: str) -> None:
        with self._lock:
            table = self._table
            if table is None:
                self._waiting = key
                return
        table.show(table.text(key))

    def attach(self, table: Table) -> None:
        with self._lock:
            self._table = table
            key, self._waiting = self._waiting, None
        if key is not None:
            table.show(table.text(key))


def natural_voice(
    config: Config, on_fallback: Callable[[str, str], object] | None = None
) -> Callable[[Callable[[], Any], bool], Any]:
    """Opens Piper as ``[voice]`` says, for ``choose_speech``: its fixed lines are cached in
    the data folder's "voice-cache"."""
    from voice.cache import WavCache
    from voice.piper_speech import open_piper

    def natural(fallback: Callable[[], Any], required: bool) -> Any:
        return open_piper(
            config.piper_voices,
            config.voices_folder,
            fallback,
            required,
            cache=WavCache(config.voice_cache),
            fixed=lambda text, lang: text in Catalog.fixed_lines(lang),
            rate=config.speech_rate,
            on_fallback=on_fallback,
        )

    return natural


def lines_to_warm(first: str) -> list[tuple[str, str]]:
    """The fixed lines a cached voice prepares when idle: the night's first (a secret phase
    plays from the cache), the table's language before the other; the pages' own words
    (``ui``, ``errors``, ``rules``) are never spoken, nor are single words."""
    from companion.config import DEFAULT_PAUSES
    from companion.narration.resistance import night_script
    from companion.narration.script import Line

    langs = [first, *(lang for lang in LANGUAGES if lang != first)]
    night = [
        (item.text, lang)
        for lang in langs
        for item in night_script(Catalog(lang), DEFAULT_PAUSES)
        if isinstance(item, Line)
    ]
    spoken = [
        (text, lang)
        for lang in langs
        for key, text in sorted(Catalog.keys(lang).items())
        if text in Catalog.fixed_lines(lang) and key.split(".")[0] not in UNSPOKEN
    ]
    return list(dict.fromkeys(night + spoken))  # a sentence under two keys is said alike


UNSPOKEN = frozenset({"ui", "errors", "rules", "colors", "games"})  # words, not lines


def build(
    config: Config,
    speech: Any = None,
    stop: Callable[[], None] = lambda: None,
    clock: Clock = REAL_CLOCK,
) -> Companion:
    """Assemble everything. ``speech`` overrides the configured engine (tests pass one);
    ``stop`` ends the server once a shutdown has been asked for and said; ``clock`` is the time
    of the table (the hourglass, Ostrakon's contest window) and of the buttons (debounce, long
    presses, the power button's hold): tests pass one they move by hand."""
    from companion.power import Shutdown
    from hardware.button_box import ButtonBox, PowerButton, make_pin_factory
    from hardware.virtual_panel import VirtualPanel
    from voice.narrator import Narrator
    from voice.speech import choose_speech
    from web.app import create_app
    from web.auth import HostLock
    from web.sse import Broadcaster

    voice_trouble = VoiceTrouble()
    if speech is None:
        from voice.outputs import use_output

        use_output(config.speech_output)

        def make_speech() -> Any:
            engine, warning = choose_speech(
                config.speech, config.speech_rate, natural_voice(config, voice_trouble.fallback)
            )
            if warning:  # said once, at start-up: narration goes on, as text
                log.warning(
                    "%s (%s)", Catalog(config.language).text("general.speech_missing"), warning
                )
                voice_trouble(at_start=True)
            return engine

        narrator = Narrator(make_speech, on_failure=voice_trouble)
    else:
        narrator = Narrator(lambda: speech, on_failure=voice_trouble)
    journal = Journal(config.journal_path)
    table = Table(
        journal,
        narrator,
        default_language=config.language,
        seats=config.seats,
        seat_names=config.seat_names,
        pauses=config.pauses,
        clock=clock,
    )
    voice_trouble.attach(table)
    narrator.warm(lines_to_warm(config.language))
    factory, simulated = make_pin_factory(config.pin_factory)
    buttons = ButtonBox(
        config.button_pairs,
        config.leds,
        table.press,
        bounce=config.bounce_ms / 1000,
        pin_factory=factory,
        on_stuck=lambda seat, _button: table.button_stuck(seat),
        clock=clock,
    )
    table.lights = buttons
    shutdown = Shutdown(table, narrator, stop, config.power.command)
    power_button = None
    if config.power.button is not None:
        power_button = PowerButton(
            config.power.button,
            config.power.hold_seconds,
            lambda: shutdown.request("the power button"),
            pin_factory=factory,
            clock=clock,
        )
    broadcaster = Broadcaster(table.snapshot)
    table.subscribe(broadcaster.publish)
    table.phones.subscribe(broadcaster.wake_seats)
    throws = open_throws(config, table, simulated)
    tessons = open_tessons(config, table, throws)
    dice = open_dice(config, table, throws)
    lock = HostLock.from_config(config.host_pin, config.data_dir, config.secure_cookies)
    page = PageAddress.find(config)
    app = create_app(
        table,
        broadcaster,
        VirtualPanel(buttons) if simulated else None,
        leds=buttons.leds,
        throws=throws,
        tessons=tessons,
        lock=lock,
        dice=dice,
        shutdown=shutdown,
        page_address=page.urls,
        own_names=lambda: page.names_answered() | set(config.server_names),
    )
    table.resume()
    catalog = Catalog(config.language)

    def ready(name: str | None) -> None:
        # The host PIN is never said: everyone at the table would hear it (``companion pin``).
        narrator.say(page.ready_sentence(catalog, name), catalog.lang)

    page.publish(config.network_name, ready)
    return Companion(
        config,
        table,
        app,
        narrator,
        buttons,
        simulated,
        throws,
        tessons,
        dice,
        lock,
        shutdown,
        power_button,
        page,
        broadcaster,
    )


def open_throws(config: Config, table: Table, simulated: bool) -> Any:
    """The overhead camera for thrown dice. A missing camera is said once in the log and the
    companion goes on without it (the host page says so when a throw is to be read); in
    simulation, "auto" falls back to the generated camera."""
    from pathlib import Path

    from desks.throws import ThrowDesk
    from vision.calibration import Calibration, CalibrationError
    from vision.sources import CameraUnavailable, open_source, parse_source
    from vision.throws import GeneratedThrowSource, ThrowCamera

    cam = config.camera
    size = (cam.width, cam.height)
    try:
        source = open_source(cam.source, size)
    except CameraUnavailable as exc:
        if not (simulated and cam.source == "auto"):
            log.warning("camera: %s", exc)
            return ThrowDesk(table, None)
        source = open_source("generated", size)
    calibration = None
    if cam.calibration is not None and not isinstance(source, GeneratedThrowSource):
        try:
            calibration = Calibration.load(cam.calibration)
        except (OSError, CalibrationError) as exc:
            log.warning("camera calibration not used (readings in pixels): %s", exc)
    generated = isinstance(source, GeneratedThrowSource)
    # a camera (not a video or photos) that stops is opened afresh until it returns
    camera_device = not generated and not isinstance(parse_source(cam.source), Path)
    reopen = (lambda: open_source(cam.source, size)) if camera_device else None
    camera = ThrowCamera(source, calibration, cam.settle_frames, cube_reader(cam), reopen=reopen)
    expect = source.expect if isinstance(source, GeneratedThrowSource) else None
    log.info("camera: %s", source)
    return ThrowDesk(table, camera, expect)


def tesson_reader(cam: Any) -> Any:
    """Ostrakon's tesson reader: the learned one (with its candidates, which the tesson desk
    keeps only for a seat that shows none) or the hand-tuned one."""
    if cam.tessons == "learned":
        import functools

        from vision.tesson_net import read_tessons_net

        return functools.partial(read_tessons_net, candidates=True)
    from vision.tessons import read_tessons

    return read_tessons


def cube_reader(cam: Any) -> Any:
    """The Oraklos cube reader: the learned one (with its candidates, which the throw desk
    keeps only for dice it knows are missing), or the hand-tuned one, which reads with the
    table's own colours when a colour check was taken."""
    import functools

    from vision.color_check import ColorCheck, ColorCheckError
    from vision.cube_net import read_cubes_net
    from vision.cubes import read_cubes

    if cam.cubes == "learned":
        if cam.colors is not None:
            log.warning(
                "camera: colors is read by the hand-tuned cube reader only (cubes = "
                '"hand-tuned"); the learned reader learned the plastics itself'
            )
        return functools.partial(read_cubes_net, candidates=True)
    if cam.colors is None:
        return read_cubes
    try:
        palette = ColorCheck.load(cam.colors).palette()
    except ColorCheckError as exc:
        log.warning("cube colours of the colour check not used (the usual ones instead): %s", exc)
        return read_cubes
    return functools.partial(read_cubes, palette=palette)


def open_tessons(config: Config, table: Table, throws: Any) -> Any:
    """The reader of Ostrakon's revealed tessons, on the camera the dice use (one camera per
    table; the two never read at once: a game has dice or tessons). In simulation the generated
    camera shows tessons instead of dice. The seat zones come from ``seats.json`` in the data
    folder when there is one (else the frame is shared evenly round its centre)."""
    from desks.tessons import GeneratedTessonSource, TessonDesk
    from vision.seats import BadSeatMap, SeatMap
    from vision.throws import GeneratedThrowSource

    camera = getattr(throws, "camera", None)
    source = None if camera is None else camera.source
    if isinstance(source, GeneratedThrowSource):
        source = GeneratedTessonSource(0, (config.camera.width, config.camera.height))
    seat_map = None
    path = config.data_dir / "seats.json"
    if path.exists():
        try:
            seat_map = SeatMap.load(path)
        except BadSeatMap as exc:
            log.warning("seat zones not used (shared evenly instead): %s", exc)
    return TessonDesk(table, source, seat_map, tesson_reader(config.camera))


def open_dice(config: Config, table: Table, throws: Any) -> Any:
    """Game night's reader of ordinary dice, on the camera the Oraklos dice use (one camera,
    one lock round its frames: the two never read at once, a table plays one game). In
    simulation the generated camera shows pip dice instead of Oraklos cubes."""
    from desks.pip_dice import DiceDesk
    from vision.throws import GeneratedPipSource, GeneratedThrowSource, ThrowCamera

    camera = getattr(throws, "camera", None)
    if camera is not None and isinstance(camera.source, GeneratedThrowSource):
        generated = GeneratedPipSource(0, (config.camera.width, config.camera.height))
        # Seeded as the picture is: which dice a simulated player throws again is repeatable.
        return DiceDesk(
            table, ThrowCamera(generated, None), generated=generated, seed=generated.seed
        )
    return DiceDesk(table, camera)
