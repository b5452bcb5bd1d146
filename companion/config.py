"""The companion's TOML config: defaults, validation, and errors that name the line and the fix.

Every key is documented in ``docs/CONFIG.md``; ``companion.example.toml`` is a complete sample.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# BCM pin numbers. Pins 2-3 (I2C) and 14-15 (serial console) are left free on purpose.
DEFAULT_BUTTON_PAIRS: tuple[tuple[int, int], ...] = (
    (4, 17),
    (27, 22),
    (5, 6),
    (13, 19),
    (26, 21),
    (20, 16),
    (12, 25),
    (24, 23),
    (18, 7),
    (8, 11),
)
DEFAULT_PAUSES = {"intro": 5.0, "close_eyes": 3.0, "cylons_open": 8.0, "cylons_close": 3.0}
PIN_FACTORIES = ("auto", "mock", "native")
SPEECH_ENGINES = ("auto", "piper", "pyttsx3", "console")
# The Piper voice of each language (``[voice.piper]``): pinned voices `companion voices install`
# puts in the data folder's "voices" (see voice/voices.py).
DEFAULT_PIPER_VOICES = {"fr": "fr_FR-siwis-medium", "en": "en_US-joe-medium"}
LANGUAGES = ("en", "fr")
GPIO_PINS = range(2, 28)
DEFAULT_DATA_DIR = Path("~/.local/share/tabletop-companion").expanduser()
CAMERA_KEYWORDS = ("auto", "picamera")
CUBE_READERS = ("learned", "hand-tuned")
TESSON_READERS = ("learned", "hand-tuned")
CAMERA_SIZES = range(160, 4097)
SETTLE_FRAMES = range(1, 301)
PIN_LENGTHS = range(4, 13)
NAME_LIMIT = 24  # characters in a player's name: it is on every page, at every update
HOST_NAME = re.compile(
    r"(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*"
)
PIN_KEY = ("host", "pin")
AUDIO_OUTPUTS = ("auto", "jack", "hdmi", "usb")
HOLD_SECONDS = (1.0, 30.0)

SCHEMA: dict[str, Any] = {
    "language": str,
    "data_dir": str,
    "server": {"host": str, "port": int, "names": list},
    "seats": {"names": list},
    "buttons": {"pairs": list, "leds": list, "bounce_ms": int, "pin_factory": str},
    "voice": {
        "engine": str,
        "rate": int,
        "output": str,
        "piper": {"folder": str, "fr": str, "en": str},
    },
    "narration": {"pauses": {k: float for k in DEFAULT_PAUSES}},
    "camera": {
        "source": str,
        "width": int,
        "height": int,
        "calibration": str,
        "colors": str,
        "cubes": str,
        "tessons": str,
        "settle_frames": int,
    },
    "host": {"pin": str, "secure_cookies": bool},
    "network": {"name": str},
    "power": {"button": int, "hold_seconds": float, "command": list},
}


class ConfigError(ValueError):
    """A config the companion refuses; ``str()`` names the file, the line and the fix."""

    def __init__(self, message: str, path: Path | None = None, line: int | None = None) -> None:
        where = ", ".join([str(path)] * (path is not None) + [f"line {line}"] * (line is not None))
        super().__init__(f"{where}: {message}" if where else message)
        self.line = line


@dataclass(frozen=True)
class CameraConfig:
    """``[camera]``: where frames come from, their size, the table calibration, and how many
    still frames make a settled throw. ``source`` is "auto", "picamera", "device:N",
    "generated[:SEED]" (the simulated camera) or a path (made absolute, relative to the config
    file). ``colors``: the table's cube colours from ``companion vision colors``. ``cubes``: the
    Oraklos cube reader, "learned" (``vision.cube_net``) or "hand-tuned" (``vision.cubes``, the
    one that uses ``colors``). ``tessons``: Ostrakon's tesson reader, "learned"
    (``vision.tesson_net``) or "hand-tuned" (``vision.tessons``)."""

    source: str = "auto"
    width: int = 1280
    height: int = 720
    calibration: Path | None = None
    settle_frames: int = 8
    colors: Path | None = None
    cubes: str = "learned"
    tessons: str = "learned"


@dataclass(frozen=True)
class PowerConfig:
    """``[power]``: the button that shuts the companion down when held, and what then turns the
    computer off. ``button`` None: no power button (the host page still has one). ``command``
    empty: the companion only stops (the computer stays on)."""

    button: int | None = None
    hold_seconds: float = 3.0
    command: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    language: str = "en"
    data_dir: Path = DEFAULT_DATA_DIR
    host: str = "127.0.0.1"
    port: int = 5000
    seat_names: tuple[str, ...] = ()
    button_pairs: tuple[tuple[int, int], ...] = DEFAULT_BUTTON_PAIRS
    leds: tuple[int, ...] = ()
    bounce_ms: int = 40
    pin_factory: str = "auto"
    speech: str = "auto"
    speech_rate: int = 165
    pauses: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_PAUSES))
    source: Path | None = None
    camera: CameraConfig = CameraConfig()
    host_pin: str | None = None  # ``[host] pin``; None: generated once, kept in the data folder
    # ``[server] names``: other names the companion answers to (a TLS proxy's), besides its
    # addresses, localhost and its .local names
    server_names: tuple[str, ...] = ()
    secure_cookies: bool = False  # ``[host] secure_cookies``: only over HTTPS
    network_name: str = "companion"  # ``[network] name``: the page at http://NAME.local/
    speech_output: str = "auto"  # ``[voice] output``: jack, hdmi, usb, or an ALSA card name
    # ``[voice.piper]``: the folder of Piper voices (None: the data folder's "voices"), and the
    # voice of each language, a pinned voice's name or a path to a .onnx file
    piper_folder: Path | None = None
    piper_voices: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_PIPER_VOICES))
    power: PowerConfig = PowerConfig()

    @property
    def seats(self) -> int:
        return len(self.button_pairs)

    @property
    def journal_path(self) -> Path:
        return self.data_dir / "journal.sqlite3"

    @property
    def voices_folder(self) -> Path:
        return self.piper_folder or self.data_dir / "voices"

    @property
    def voice_cache(self) -> Path:
        return self.data_dir / "voice-cache"


def load(path: Path | str | None) -> Config:
    if path is None:
        return Config()
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot read the config file ({exc.strerror}); check the path", path
        ) from None
    return parse(text, path)


def parse(text: str, path: Path | None = None) -> Config:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_from_message(str(exc))
        raise ConfigError(f"not valid TOML ({exc}); fix the syntax", path, line) from None
    where = _Locator(text, path)
    _check_keys(data, SCHEMA, (), where)

    language = data.get("language", "en")
    if language not in LANGUAGES:
        raise where.error(("language",), f'language must be "en" or "fr", not {language!r}')
    server = data.get("server", {})
    port = server.get("port", 5000)
    if not 1 <= port <= 65535:
        raise where.error(("server", "port"), f"port {port} is not a TCP port: use 1 to 65535")

    buttons = data.get("buttons", {})
    pairs = (
        tuple(_pin_pairs(buttons["pairs"], where)) if "pairs" in buttons else DEFAULT_BUTTON_PAIRS
    )
    leds = tuple(_pins(buttons.get("leds", []), ("buttons", "leds"), where))
    names = tuple(_names(data.get("seats", {}).get("names", []), where))
    if len(names) > len(pairs):
        raise where.error(
            ("seats", "names"),
            f"{len(names)} seats are named but there are only "
            f"{len(pairs)} button pairs: add a pair [A, B] to buttons.pairs for "
            "each seat, or remove names",
        )
    if len(leds) > len(pairs):
        raise where.error(
            ("buttons", "leds"),
            f"{len(leds)} LEDs for {len(pairs)} seats: give at most one LED per seat",
        )
    power = _power(data.get("power", {}), where)
    _no_pin_twice(pairs, leds, power.button, where)
    bounce = buttons.get("bounce_ms", 40)
    if not 0 <= bounce <= 1000:
        raise where.error(("buttons", "bounce_ms"), "bounce_ms must be between 0 and 1000")
    factory = buttons.get("pin_factory", "auto")
    if factory not in PIN_FACTORIES:
        raise where.error(
            ("buttons", "pin_factory"), f"pin_factory must be one of {', '.join(PIN_FACTORIES)}"
        )

    voice = data.get("voice", {})
    engine = voice.get("engine", "auto")
    if engine not in SPEECH_ENGINES:
        raise where.error(("voice", "engine"), f"engine must be one of {', '.join(SPEECH_ENGINES)}")
    output = voice.get("output", "auto")
    if output not in AUDIO_OUTPUTS and not re.fullmatch(r"[A-Za-z0-9_]{1,15}", output):
        raise where.error(
            ("voice", "output"),
            f"output must be one of {', '.join(AUDIO_OUTPUTS)}, or a sound card's name as "
            '`aplay -l` shows it (e.g. "Headphones")',
        )
    piper = voice.get("piper", {})
    piper_voices = {lang: piper.get(lang, DEFAULT_PIPER_VOICES[lang]) for lang in LANGUAGES}
    for lang, choice in piper_voices.items():
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,80}", choice) and not choice.endswith(".onnx"):
            raise where.error(
                ("voice", "piper", lang),
                f'a Piper voice is a voice\'s name (e.g. "{DEFAULT_PIPER_VOICES[lang]}") or the '
                "path of its .onnx file",
            )
    base = path.parent if path is not None else Path.cwd()
    piper_folder = base / Path(piper["folder"]).expanduser() if "folder" in piper else None
    name = data.get("network", {}).get("name", "companion")
    if name and not re.fullmatch(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?", name):
        raise where.error(
            ("network", "name"),
            "the network name is lower-case letters, digits and hyphens (not first or last), "
            'e.g. "companion" for http://companion.local/; or "" to publish none',
        )
    pauses = dict(DEFAULT_PAUSES)
    for key, value in data.get("narration", {}).get("pauses", {}).items():
        if not 0 <= value <= 120:
            raise where.error(("narration", "pauses", key), "a pause is 0 to 120 seconds")
        pauses[key] = float(value)

    host = data.get("host", {})
    pin = host.get("pin")
    if pin is not None and not (len(pin) in PIN_LENGTHS and pin.isascii() and pin.isdigit()):
        raise where.error(
            ("host", "pin"),
            "the host PIN must be 4 to 12 digits "
            + (
                f"(this one has {len(pin)})"
                if pin.isascii() and pin.isdigit()
                else "(0 to 9, with no space, letter or other sign)"
            )
            + ': e.g. pin = "4812"; or leave it out to have one generated once (companion pin)',
        )

    data_dir = Path(data.get("data_dir", str(DEFAULT_DATA_DIR))).expanduser()
    if path is not None and not data_dir.is_absolute():
        data_dir = path.parent / data_dir
    return Config(
        language=language,
        data_dir=data_dir,
        host=server.get("host", "127.0.0.1"),
        port=port,
        server_names=_server_names(server.get("names", []), where),
        seat_names=names,
        button_pairs=pairs,
        leds=leds,
        bounce_ms=bounce,
        pin_factory=factory,
        speech=engine,
        speech_rate=voice.get("rate", 165),
        pauses=pauses,
        source=path,
        camera=_camera(data.get("camera", {}), path, where),
        host_pin=pin,
        secure_cookies=host.get("secure_cookies", False),
        network_name=name,
        speech_output=output,
        piper_folder=piper_folder,
        piper_voices=piper_voices,
        power=power,
    )


def _power(table: Mapping[str, Any], where: _Locator) -> PowerConfig:
    button = table.get("button")
    if button is not None and button not in GPIO_PINS:
        raise where.error(
            ("power", "button"), f"pin {button} is not a GPIO pin: use BCM numbers 2 to 27"
        )
    hold = float(table.get("hold_seconds", 3.0))
    if not HOLD_SECONDS[0] <= hold <= HOLD_SECONDS[1]:
        raise where.error(
            ("power", "hold_seconds"),
            "hold_seconds is 1 to 30 seconds (long enough not to be pressed by accident)",
        )
    command = table.get("command", [])
    if not all(isinstance(part, str) and part for part in command):
        raise where.error(
            ("power", "command"),
            'command is a list of words, e.g. ["sudo", "-n", "/usr/bin/systemctl", "poweroff"]',
        )
    return PowerConfig(button, hold, tuple(command))


def _camera(table: Mapping[str, Any], path: Path | None, where: _Locator) -> CameraConfig:
    base = path.parent if path is not None else Path.cwd()
    source = table.get("source", "auto").strip()
    if source.startswith("device:"):
        if not source.removeprefix("device:").isdigit():
            raise where.error(
                ("camera", "source"), 'a camera device is "device:" and a number, e.g. "device:0"'
            )
    elif source.startswith("generated"):
        seed = source.removeprefix("generated").removeprefix(":")
        if source not in ("generated", f"generated:{seed}") or (seed and not seed.isdigit()):
            raise where.error(
                ("camera", "source"),
                'the simulated camera is "generated" or "generated:" and a number, e.g. '
                '"generated:3"',
            )
    elif source not in CAMERA_KEYWORDS:
        found = Path(source).expanduser()
        if not found.is_absolute():
            found = base / found
        if not source or not found.exists():
            raise where.error(
                ("camera", "source"),
                f'camera source {source!r} is no file or folder: use "auto", "picamera", '
                '"device:0", "generated", a folder of images or an image file',
            )
        source = str(found)
    sizes: dict[str, int] = {}
    for key, default in (("width", 1280), ("height", 720)):
        sizes[key] = table.get(key, default)
        if sizes[key] not in CAMERA_SIZES:
            raise where.error(("camera", key), f"{key} must be 160 to 4096 pixels")
    settle = table.get("settle_frames", 8)
    if settle not in SETTLE_FRAMES:
        raise where.error(("camera", "settle_frames"), "settle_frames must be 1 to 300 frames")
    calibration = _file_key(table, "calibration", "companion vision calibrate", base, where)
    colors = _file_key(table, "colors", "companion vision colors", base, where)
    cubes = table.get("cubes", "learned")
    if cubes not in CUBE_READERS:
        raise where.error(
            ("camera", "cubes"),
            'the cube reader is "learned" (the default) or "hand-tuned" (reads with `colors`)',
        )
    tessons = table.get("tessons", "learned")
    if tessons not in TESSON_READERS:
        raise where.error(
            ("camera", "tessons"), 'the tesson reader is "learned" (the default) or "hand-tuned"'
        )
    return CameraConfig(
        source, sizes["width"], sizes["height"], calibration, settle, colors, cubes, tessons
    )


def _file_key(
    table: Mapping[str, Any], key: str, command: str, base: Path, where: _Locator
) -> Path | None:
    """A ``[camera]`` key naming a file written by ``command`` (relative to the config file)."""
    if key not in table:
        return None
    if not table[key].strip():
        raise where.error(
            ("camera", key), f"{key} must name a file from `{command}`, or be left out"
        )
    path = Path(table[key]).expanduser()
    return path if path.is_absolute() else base / path


def _check_keys(
    data: Mapping[str, Any], schema: Mapping[str, Any], at: tuple[str, ...], where: _Locator
) -> None:
    for key, value in data.items():
        here = (*at, key)
        if key not in schema:
            known = ", ".join(sorted(schema))
            raise where.error(
                here, f"unknown key {'.'.join(here)!r}: remove it or use one of {known}"
            )
        expected = schema[key]
        if isinstance(expected, dict):
            if not isinstance(value, dict):
                raise where.error(here, f"{'.'.join(here)} must be a table [{'.'.join(here)}]")
            _check_keys(value, expected, here, where)
        elif expected is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise where.error(here, f"{'.'.join(here)} must be a number of seconds")
        elif expected is bool:
            if not isinstance(value, bool):
                raise where.error(here, f"{'.'.join(here)} must be true or false")
        elif isinstance(value, bool) or not isinstance(value, expected):
            kind = {str: "text in quotes", int: "a whole number", list: "a list [...]"}[expected]
            hint = ' (e.g. pin = "4812": in quotes, so a leading 0 is kept)' * (here == PIN_KEY)
            raise where.error(here, f"{'.'.join(here)} must be {kind}{hint}")


def _pin_pairs(value: list[Any], where: _Locator) -> list[tuple[int, int]]:
    out = []
    for i, pair in enumerate(value):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in pair)
        ):
            raise where.error(
                ("buttons", "pairs"),
                f"seat {i + 1}'s buttons must be a pair of pin numbers [A, B], e.g. [17, 27]",
                item=i,
            )
        for pin in pair:
            _check_pin(pin, ("buttons", "pairs"), where, i)
        out.append((pair[0], pair[1]))
    return out


def _pins(value: list[Any], key: tuple[str, ...], where: _Locator) -> list[int]:
    for i, pin in enumerate(value):
        if not isinstance(pin, int) or isinstance(pin, bool):
            raise where.error(key, f"item {i + 1} must be a pin number", item=i)
        _check_pin(pin, key, where, i)
    return list(value)


def _check_pin(pin: int, key: tuple[str, ...], where: _Locator, item: int) -> None:
    if pin not in GPIO_PINS:
        raise where.error(key, f"pin {pin} is not a GPIO pin: use BCM numbers 2 to 27", item=item)


def _names(value: list[Any], where: _Locator) -> list[str]:
    for i, name in enumerate(value):
        if not isinstance(name, str) or not name.strip():
            raise where.error(("seats", "names"), f"name {i + 1} must be some text", item=i)
        if len(name.strip()) > NAME_LIMIT:
            raise where.error(
                ("seats", "names"), f"name {i + 1} is over {NAME_LIMIT} characters", item=i
            )
    return [n.strip() for n in value]


def _server_names(value: list[Any], where: _Locator) -> tuple[str, ...]:
    for i, name in enumerate(value):
        if not isinstance(name, str) or not HOST_NAME.fullmatch(name.lower()):
            raise where.error(
                ("server", "names"),
                f'name {i + 1} must be a host name in quotes, e.g. "companion.example.home"',
                item=i,
            )
    return tuple(name.lower() for name in value)


def _no_pin_twice(
    pairs: tuple[tuple[int, int], ...],
    leds: tuple[int, ...],
    power_button: int | None,
    where: _Locator,
) -> None:
    seen: dict[int, str] = {}
    uses: list[tuple[int, str, tuple[str, ...], int | None]] = []
    for i, (a, b) in enumerate(pairs):
        uses += [
            (a, f"seat {i + 1}'s A button", ("buttons", "pairs"), i),
            (b, f"seat {i + 1}'s B button", ("buttons", "pairs"), i),
        ]
    uses += [(pin, f"seat {i + 1}'s LED", ("buttons", "leds"), i) for i, pin in enumerate(leds)]
    if power_button is not None:
        uses.append((power_button, "the power button", ("power", "button"), None))
    for pin, use, key, item in uses:
        if pin in seen:
            raise where.error(
                key,
                f"pin {pin} is used twice, by {seen[pin]} and by {use}: "
                "give each button and LED its own pin",
                item=item,
            )
        seen[pin] = use


def _line_from_message(message: str) -> int | None:
    match = re.search(r"line (\d+)", message)
    return int(match.group(1)) if match else None


class _Locator:
    """Finds the line of a key (and of the n-th item of an array value) in the TOML text."""

    def __init__(self, text: str, path: Path | None) -> None:
        self.lines = text.splitlines()
        self.path = path

    def error(self, key: tuple[str, ...], message: str, item: int | None = None) -> ConfigError:
        return ConfigError(message, self.path, self.line_of(key, item))

    def line_of(self, key: tuple[str, ...], item: int | None = None) -> int | None:
        table: tuple[str, ...] = ()
        for number, raw in enumerate(self.lines, start=1):
            line = raw.split("#", 1)[0].strip()
            header = re.fullmatch(r"\[\s*([\w.\s]+?)\s*\]", line)
            if header:
                table = tuple(part.strip() for part in header.group(1).split("."))
                if table == key:
                    return number
                continue
            match = re.match(r"([\w.]+)\s*=", line)
            if not match:
                continue
            full = (*table, *match.group(1).split("."))
            if full == key:
                return number if item is None else self._item_line(number, raw, item)
            if full == key[: len(full)] and len(full) < len(key):
                return number
        if len(key) > 1 and item is None:
            return self.line_of(key[:-1])
        return None

    def _item_line(self, start: int, first: str, item: int) -> int:
        """The line on which the item-th element of the array starting at line ``start`` begins."""
        depth, count, expecting, in_string = 0, -1, False, False
        texts = [first.split("=", 1)[1], *self.lines[start:]]
        for number, text in enumerate(texts, start=start):
            for ch in text:
                if in_string:
                    in_string = ch != '"'
                    continue
                if ch == "#":
                    break
                if depth == 1 and expecting and not ch.isspace() and ch != "]":
                    count, expecting = count + 1, False
                    if count == item:
                        return number
                if ch == '"':
                    in_string = True
                elif ch == "[":
                    depth += 1
                    expecting = depth == 1
                elif ch == "]":
                    depth -= 1
                    if depth == 0:
                        return start
                elif ch == "," and depth == 1:
                    expecting = True
        return start
