"""Draw the button box's wiring diagram from a companion config, so it never disagrees with it.

Run from the repository's root:

    python tools/wiring_diagram.py --power-pin 3 --png     # docs/images/wiring.svg and .png

The picture shows the Raspberry Pi's 40-pin header as the real 2×20 grid (physical pin numbers
in the grey circles, odd pins in the left column, even pins in the right one, each with its
label: 3V3, 5V, GND or the BCM GPIO number), and for each seat its A and B buttons (GPIO →
button → GND) and its LED if it has one (GPIO → 330 Ω → LED → GND), one colour per seat. Pins
of the left column are wired to the left, pins of the right column to the right, each on its
own row, to a ground bus on each side joined to one of the header's GND pins: no wire crosses
another. The power button (``[power] button`` or ``--power-pin``) is drawn when there is one.

The SVG is plain text written here (no dependency); ``--png`` renders it with headless Chromium
(``/usr/bin/chromium``, or ``--chromium PATH``) at twice its size. Every pin element carries
``data-header`` (physical pin), ``data-bcm`` (GPIO number) and, when wired, ``data-role``
(``seat3-A``, ``seat3-B``, ``seat3-LED``, ``power``, ``ground``): tests/test_wiring_diagram.py
checks them against the config and against docs/WIRING.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make the companion package importable
    sys.path.insert(0, str(ROOT))

from companion.config import Config, ConfigError, load  # noqa: E402

DEFAULT_CONFIG = ROOT / "companion.example.toml"
DEFAULT_OUT = ROOT / "docs" / "images" / "wiring.svg"
CHROMIUM = Path("/usr/bin/chromium")

# The Raspberry Pi 40-pin header (every model since the B+), by physical pin number: the label,
# and the BCM GPIO number (None for power and ground). Odd pins are the row nearer the middle
# of the board, even pins the row at its edge; pin 1 is at the end nearer the micro-SD card.
HEADER: dict[int, tuple[str, int | None]] = {
    1: ("3V3", None),
    2: ("5V", None),
    3: ("GPIO 2", 2),
    4: ("5V", None),
    5: ("GPIO 3", 3),
    6: ("GND", None),
    7: ("GPIO 4", 4),
    8: ("GPIO 14", 14),
    9: ("GND", None),
    10: ("GPIO 15", 15),
    11: ("GPIO 17", 17),
    12: ("GPIO 18", 18),
    13: ("GPIO 27", 27),
    14: ("GND", None),
    15: ("GPIO 22", 22),
    16: ("GPIO 23", 23),
    17: ("3V3", None),
    18: ("GPIO 24", 24),
    19: ("GPIO 10", 10),
    20: ("GND", None),
    21: ("GPIO 9", 9),
    22: ("GPIO 25", 25),
    23: ("GPIO 11", 11),
    24: ("GPIO 8", 8),
    25: ("GND", None),
    26: ("GPIO 7", 7),
    27: ("ID_SD", 0),  # GPIO 0, reserved for the HAT EEPROM
    28: ("ID_SC", 1),  # GPIO 1, reserved for the HAT EEPROM
    29: ("GPIO 5", 5),
    30: ("GND", None),
    31: ("GPIO 6", 6),
    32: ("GPIO 12", 12),
    33: ("GPIO 13", 13),
    34: ("GND", None),
    35: ("GPIO 19", 19),
    36: ("GPIO 16", 16),
    37: ("GPIO 26", 26),
    38: ("GPIO 20", 20),
    39: ("GND", None),
    40: ("GPIO 21", 21),
}
HEADER_PIN: dict[int, int] = {bcm: pin for pin, (_, bcm) in HEADER.items() if bcm is not None}
GROUND_PINS = tuple(pin for pin, (label, _) in HEADER.items() if label == "GND")

# One colour per seat (white text must stay readable on it), then the power button's.
SEAT_COLOURS = (
    "#d62728",
    "#1f66b4",
    "#2e8b2e",
    "#d35400",
    "#7b3fb0",
    "#00838f",
    "#8c564b",
    "#c2185b",
    "#303f9f",
    "#7c7c00",
)
POWER_COLOUR = "#222222"
GROUND_COLOUR = "#6b6b6b"
RAIL_COLOURS = {"5V": "#c62828", "3V3": "#e65100", "GND": "#222222"}
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

# Geometry (SVG pixels). Row r of the header (pins 2r+1 and 2r+2) is at y = TOP + r*PITCH + PITCH/2.
PITCH = 30
TOP = 96
CX = 430  # middle of the header
PIN_DX = 16  # pin centres at CX ∓ PIN_DX
BOARD_HALF = 120  # the board's edges at CX ∓ BOARD_HALF: wires leave there
BUS_D = 250  # the ground buses, this far out from the board's edges
TAG_D, TAG_W = 62, 92  # the "Seat 1 · A" tag's centre (from the board's edge) and width
WIDTH = 2 * (BOARD_HALF + BUS_D + 60)


@dataclass(frozen=True)
class Use:
    """One wired GPIO pin: what is on it and how it is drawn."""

    role: str  # "seat3-A", "seat3-B", "seat3-LED", "power"
    kind: str  # "button", "led"
    bcm: int
    tag: str
    colour: str

    @property
    def header(self) -> int:
        return HEADER_PIN[self.bcm]


def uses_of(config: Config, power_pin: int | None = None) -> list[Use]:
    """Every wired pin of ``config`` (``power_pin`` overrides ``[power] button``), refusing a
    pin that is not on the header or that two things share."""
    uses: list[Use] = []
    for i, (a, b) in enumerate(config.button_pairs):
        colour = SEAT_COLOURS[i % len(SEAT_COLOURS)]
        uses.append(Use(f"seat{i + 1}-A", "button", a, f"Seat {i + 1} · A", colour))
        uses.append(Use(f"seat{i + 1}-B", "button", b, f"Seat {i + 1} · B", colour))
        if i < len(config.leds):
            led = config.leds[i]
            uses.append(Use(f"seat{i + 1}-LED", "led", led, f"Seat {i + 1} · LED", colour))
    power = config.power.button if power_pin is None else power_pin
    if power is not None:
        uses.append(Use("power", "button", power, "Power", POWER_COLOUR))
    seen: dict[int, str] = {}
    for use in uses:
        if use.bcm not in HEADER_PIN or HEADER[HEADER_PIN[use.bcm]][0].startswith("ID_"):
            raise ValueError(f"{use.role}: BCM {use.bcm} is not a usable GPIO pin of the header")
        if use.bcm in seen:
            raise ValueError(f"BCM {use.bcm} is used twice, by {seen[use.bcm]} and {use.role}")
        seen[use.bcm] = use.role
    return uses


def row_y(pin: int) -> int:
    return TOP + (pin - 1) // 2 * PITCH + PITCH // 2


def side_of(pin: int) -> int:
    """-1: the odd (left) column, wired to the left; +1: the even (right) column."""
    return -1 if pin % 2 else 1


def ground_pin(side: int, rows: Iterable[int]) -> int:
    """The GND pin of that column nearest the middle of its wired rows (lower pin on a tie)."""
    pins = [p for p in GROUND_PINS if side_of(p) == side]
    ys = list(rows)
    middle = (min(ys) + max(ys)) / 2
    return min(pins, key=lambda p: (abs(row_y(p) - middle), p))


def _fmt(value: float) -> str:
    return f"{value:g}"


def _hold(seconds: float) -> str:
    return f"{seconds:g} s"


class Svg:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, text: str) -> None:
        self.parts.append(text)

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str, width: float) -> None:
        self.add(
            f'<line x1="{_fmt(x1)}" y1="{_fmt(y1)}" x2="{_fmt(x2)}" y2="{_fmt(y2)}" '
            f'stroke="{colour}" stroke-width="{_fmt(width)}" stroke-linecap="round"/>'
        )

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 12,
        anchor: str = "middle",
        colour: str = "#222",
        weight: str = "normal",
    ) -> None:
        bold = ' font-weight="bold"' * (weight == "bold")
        self.add(
            f'<text x="{_fmt(x)}" y="{_fmt(y)}" font-size="{_fmt(size)}" '
            f'text-anchor="{anchor}" fill="{colour}"{bold}>{escape(text)}</text>'
        )

    def chip(
        self, x: float, y: float, width: float, text: str, colour: str, size: float = 12
    ) -> None:
        """A rounded label centred on (x, y), white bold text on ``colour``."""
        self.add(
            f'<rect x="{_fmt(x - width / 2)}" y="{_fmt(y - 10)}" width="{_fmt(width)}" '
            f'height="20" rx="10" fill="{colour}"/>'
        )
        self.text(x, y + size * 0.36, text, size, colour="#fff", weight="bold")


def draw(config: Config, power_pin: int | None = None, name: str = "") -> str:
    """The SVG text of the wiring diagram of ``config``."""
    uses = uses_of(config, power_pin)
    wired_pins = {use.header: (use.role, use.colour) for use in uses}
    power = next((u for u in uses if u.role == "power"), None)
    leds = sum(u.kind == "led" for u in uses)
    legend = _legend(config, power)
    height = TOP + 20 * PITCH + 40 + 22 * len(legend) + 16

    svg = Svg()
    svg.add(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family={quoteattr(FONT)}>'
    )
    seats = len(config.button_pairs)
    title = (
        f"Button box wiring: {seats} seat{'s' * (seats != 1)}"
        + (f", {leds} LED{'s' * (leds != 1)}" if leds else ", no LEDs")
        + (f", power button on BCM {power.bcm}" if power else "")
    )
    svg.add(f"<title>{escape(title)}</title>")
    svg.add(f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>')
    svg.text(WIDTH / 2, 30, title, 19, weight="bold")
    if name:
        svg.text(WIDTH / 2, 52, f"drawn from {name} by tools/wiring_diagram.py", 12, colour="#666")

    # the board and the connector
    top, bottom = TOP - 22, TOP + 20 * PITCH + 8
    svg.add(
        f'<rect x="{CX - BOARD_HALF}" y="{top}" width="{2 * BOARD_HALF}" '
        f'height="{bottom - top}" rx="8" fill="#e6f2e6" stroke="#2e7d32" stroke-width="2"/>'
    )
    svg.text(CX, top + 14, "Raspberry Pi header", 11, colour="#2e7d32", weight="bold")
    svg.add(
        f'<rect x="{CX - 2 * PIN_DX}" y="{TOP - 2}" width="{4 * PIN_DX}" '
        f'height="{20 * PITCH + 4}" rx="4" fill="#1a1a1a"/>'
    )

    # the wires and parts, drawn first so that the pins' labels sit on top of the wires
    for side in (-1, 1):
        side_uses = [u for u in uses if side_of(u.header) == side]
        if not side_uses:
            continue
        gnd = ground_pin(side, [row_y(u.header) for u in side_uses])
        edge = CX + side * BOARD_HALF
        bus = edge + side * BUS_D
        ys = [row_y(u.header) for u in side_uses] + [row_y(gnd)]
        svg.add(f'<g data-role="ground-bus" data-side="{"left" if side < 0 else "right"}">')
        svg.line(bus, min(ys) - 14, bus, max(ys) + 14, GROUND_COLOUR, 4)
        svg.text(bus, min(ys) - 22, "GND", 13, colour=GROUND_COLOUR, weight="bold")
        svg.text(bus, max(ys) + 30, "ground bus", 11, colour=GROUND_COLOUR)
        y = row_y(gnd)
        svg.line(CX + side * PIN_DX, y, bus, y, GROUND_COLOUR, 3)
        svg.add(f'<circle cx="{bus}" cy="{y}" r="5" fill="{GROUND_COLOUR}"/>')
        svg.chip(edge + side * TAG_D, y, TAG_W, "to GND", GROUND_COLOUR)
        svg.add("</g>")
        wired_pins[gnd] = ("ground", GROUND_COLOUR)
        for use in side_uses:
            _part(svg, use, side, edge, bus)

    # the pins: grey circles with the physical number, the label beside
    for pin in range(1, 41):
        label, bcm = HEADER[pin]
        side = side_of(pin)
        x, y = CX + side * PIN_DX, row_y(pin)
        wired = wired_pins.get(pin)
        attrs = f'data-header="{pin}" data-label={quoteattr(label)}'
        if bcm is not None:
            attrs += f' data-bcm="{bcm}"'
        if wired is not None:
            attrs += f' data-role="{wired[0]}"'
        svg.add(f'<g class="pin" {attrs} data-x="{x}" data-y="{y}">')
        ring = wired[1] if wired is not None else "#8a8a8a"
        ring_width = 3 if wired is not None else 1.5
        if pin == 1:  # pin 1 is the square pad
            svg.add(
                f'<rect x="{x - 11}" y="{y - 11}" width="22" height="22" rx="2" fill="#d9d9d9" '
                f'stroke="{ring}" stroke-width="{ring_width}"/>'
            )
        else:
            svg.add(
                f'<circle cx="{x}" cy="{y}" r="11" fill="#d9d9d9" stroke="{ring}" '
                f'stroke-width="{ring_width}"/>'
            )
        svg.text(x, y + 3.6, str(pin), 10, colour="#111", weight="bold")
        lx = x + side * 54
        if wired is not None:
            svg.chip(lx, y, 64, label, wired[1], 11.5)
        elif label in RAIL_COLOURS:
            svg.text(lx, y + 4.2, label, 12, colour=RAIL_COLOURS[label], weight="bold")
        else:
            svg.text(lx, y + 4.2, label, 12, colour="#5a5a5a")
        svg.add("</g>")

    # the legend
    y = TOP + 20 * PITCH + 40
    for line in legend:
        y += 22
        svg.text(40, y, line, 13.5, anchor="start")
    svg.add("</svg>")
    return "\n".join(svg.parts) + "\n"


def _legend(config: Config, power: Use | None) -> list[str]:
    lines = ["Buttons: GPIO → button → GND (internal pull-up, no resistor)."]
    if config.leds:
        lines.append("LED: GPIO → 330 Ω → LED (long leg, +) → LED (short leg, −) → GND.")
    lines += [
        "Numbers are BCM GPIO numbers; header pin numbers in the grey circles.",
        "Pin 1 is the square one, at the header's end nearer the micro-SD card.",
    ]
    if power is not None:
        lines.append(
            f"Power: BCM {power.bcm} (pin {power.header}) → button → GND; held "
            f"{_hold(config.power.hold_seconds)} it shuts down cleanly"
            + (" (a press wakes a halted Pi 4)." if power.bcm == 3 else ".")
        )
    return lines


def _part(svg: Svg, use: Use, side: int, edge: float, bus: float) -> None:
    """One row: the wire from the pin, the seat's tag, the button or resistor and LED, and the
    wire on to the ground bus."""
    y = row_y(use.header)
    c = use.colour

    def at(d: float) -> float:
        return edge + side * d

    svg.add(
        f'<g class="part" data-role="{use.role}" data-bcm="{use.bcm}" '
        f'data-header="{use.header}" data-y="{y}">'
    )
    svg.line(CX + side * PIN_DX, y, at(120), y, c, 3)  # pin → tag → part
    if use.kind == "button":
        a, b = at(140), at(184)
        svg.line(b, y, bus, y, GROUND_COLOUR, 2)
        for x in (a, b):
            svg.add(
                f'<circle cx="{_fmt(x)}" cy="{y}" r="3.5" fill="#fff" stroke="{c}" '
                'stroke-width="2.5"/>'
            )
        svg.line(at(120), y, a - side * 3.5, y, c, 3)
        left, right = sorted((a, b))
        svg.line(left - 2, y - 8, right + 2, y - 8, c, 3)  # the push bar
        svg.line((a + b) / 2, y - 8, (a + b) / 2, y - 14, c, 2.5)
        svg.line((a + b) / 2 - 6, y - 14, (a + b) / 2 + 6, y - 14, c, 2.5)
    else:
        r0, r1 = sorted((at(118), at(156)))
        svg.add(
            f'<rect x="{_fmt(r0)}" y="{y - 6}" width="{_fmt(r1 - r0)}" height="12" rx="2" '
            f'fill="#fff" stroke="{c}" stroke-width="2.5"/>'
        )
        svg.text((r0 + r1) / 2, y - 9, "330 Ω", 10, colour=c, weight="bold")
        anode, cathode = at(182), at(202)
        svg.line(at(156), y, anode, y, c, 3)
        svg.line(cathode, y, bus, y, GROUND_COLOUR, 2)
        svg.add(
            f'<polygon points="{_fmt(anode)},{y - 8} {_fmt(anode)},{y + 8} '
            f'{_fmt(cathode)},{y}" fill="{c}"/>'
        )
        svg.line(cathode, y - 8, cathode, y + 8, c, 3)
        svg.text(anode - side * 5, y + 13, "+", 11, colour=c, weight="bold")
        svg.text(cathode + side * 6, y + 13, "−", 11, colour=c, weight="bold")
        for dx in (0, 8):  # light going out
            x0 = (anode + cathode) / 2 + side * (dx - 4)
            x1 = x0 + side * 6
            svg.line(x0, y - 9, x1, y - 15, c, 1.5)
            svg.add(
                f'<polygon points="{_fmt(x1)},{y - 15} {_fmt(x1 - side * 4)},{y - 14} '
                f'{_fmt(x1 - side * 1)},{y - 11}" fill="{c}"/>'
            )
    svg.add(f'<circle cx="{_fmt(bus)}" cy="{y}" r="3.5" fill="{GROUND_COLOUR}"/>')
    svg.chip(at(TAG_D), y, TAG_W, use.tag, c)
    svg.add("</g>")


def render_png(svg_path: Path, png_path: Path, chromium: Path = CHROMIUM, scale: int = 2) -> None:
    """Screenshot the SVG with headless Chromium, ``scale`` device pixels per SVG pixel."""
    text = svg_path.read_text("utf-8")
    width = int(text.split('width="', 1)[1].split('"', 1)[0])
    height = int(text.split('height="', 1)[1].split('"', 1)[0])
    if not os.access(chromium, os.X_OK):
        raise SystemExit(f"{chromium} not found: install it with: sudo apt install chromium")
    with tempfile.TemporaryDirectory(prefix="wiring-chromium-") as profile:
        out = Path(profile) / "shot.png"
        command = [
            str(chromium),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            f"--force-device-scale-factor={scale}",
            f"--user-data-dir={profile}",
            f"--screenshot={out}",
            f"--window-size={width},{height}",
            svg_path.resolve().as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
        png_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, png_path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "--config", type=Path, default=DEFAULT_CONFIG, help="default: companion.example.toml"
    )
    parser.add_argument(
        "--power-pin",
        type=int,
        metavar="BCM",
        help="draw the power button on this BCM pin (default: the config's [power] button)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the SVG (default: docs/images/wiring.svg)"
    )
    parser.add_argument(
        "--png",
        nargs="?",
        type=Path,
        const=True,
        default=None,
        metavar="PATH",
        help="also render a PNG with headless Chromium (default path: the SVG's, .png)",
    )
    parser.add_argument("--chromium", type=Path, default=CHROMIUM)
    args = parser.parse_args(argv)
    try:
        config = load(args.config)
        svg = draw(config, args.power_pin, args.config.name)
    except (ConfigError, ValueError) as exc:
        parser.exit(2, f"{exc}\n")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(svg, "utf-8")
    print(f"wrote {args.out}")
    if args.png is not None:
        png = args.out.with_suffix(".png") if args.png is True else args.png
        render_png(args.out, png, args.chromium)
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
