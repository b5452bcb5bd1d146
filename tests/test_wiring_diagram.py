"""The wiring picture (tools/wiring_diagram.py, docs/images/wiring.svg and .png): it is what the
script draws for the example config, each configured pin is drawn at its physical header pin,
and the script's header table agrees with docs/WIRING.md."""

from __future__ import annotations

import importlib.util
import re
import struct
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from companion.config import Config, load, parse

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "companion.example.toml"
SVG = ROOT / "docs" / "images" / "wiring.svg"
PNG = ROOT / "docs" / "images" / "wiring.png"
WIRING_MD = ROOT / "docs" / "WIRING.md"
REGENERATE = "python tools/wiring_diagram.py --power-pin 3 --png"
POWER_PIN = 3  # the committed picture's power button: BCM 3, header pin 5


def _load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "wiring_diagram", ROOT / "tools" / "wiring_diagram.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


tool = _load_tool()


def _docs_table() -> dict[int, int]:
    """BCM → header pin, from the 'Default pins' table of docs/WIRING.md."""
    pins: dict[int, int] = {}
    for line in WIRING_MD.read_text("utf-8").splitlines():
        if re.match(r"\|\s*\d+\s*\|", line):
            for bcm, header in re.findall(r"(\d+) \((\d+)\)", line):
                assert pins.setdefault(int(bcm), int(header)) == int(header), line
    return pins


def _docs_ground_pins() -> tuple[int, ...]:
    found = re.search(r"Ground pins: ([\d, ]+)\.", WIRING_MD.read_text("utf-8"))
    assert found, "docs/WIRING.md no longer lists the ground pins"
    return tuple(int(p) for p in found.group(1).split(","))


def _expected_roles(config: Config, power: int | None) -> dict[str, int]:
    roles = {}
    for i, (a, b) in enumerate(config.button_pairs):
        roles[f"seat{i + 1}-A"] = a
        roles[f"seat{i + 1}-B"] = b
    for i, led in enumerate(config.leds):
        roles[f"seat{i + 1}-LED"] = led
    if power is not None:
        roles["power"] = power
    return roles


def _elements(svg: str, cls: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == cls]


def _check_drawing(svg: str, roles: dict[str, int]) -> None:
    """Every role's pin at the physical pin the docs give for its BCM number, its wire and
    part on that pin's row and on that pin's side, and nothing else wired."""
    table = {**_docs_table(), POWER_PIN: 5}
    pins = {int(g.get("data-header", "0")): g for g in _elements(svg, "pin")}
    assert sorted(pins) == list(range(1, 41))
    parts = {g.get("data-role"): g for g in _elements(svg, "part")}
    drawn = {
        g.get("data-role"): g for g in pins.values() if g.get("data-role") not in (None, "ground")
    }
    assert set(drawn) == set(roles) == set(parts)
    for role, bcm in roles.items():
        pin = drawn[role]
        header = int(pin.get("data-header", "0"))
        assert pin.get("data-bcm") == str(bcm), role
        assert header == table.get(bcm, tool.HEADER_PIN[bcm]), f"{role}: BCM {bcm}"
        part = parts[role]
        assert part.get("data-header") == str(header) and part.get("data-bcm") == str(bcm)
        assert part.get("data-y") == pin.get("data-y"), f"{role}: its wire is not on its row"
        x = float(pin.get("data-x", "0"))
        assert (x < tool.CX) == (header % 2 == 1), f"{role}: pin {header} in the wrong column"
    grounds = [g for g in pins.values() if g.get("data-role") == "ground"]
    assert grounds and all(g.get("data-label") == "GND" for g in grounds)


def test_committed_picture_is_what_the_script_draws() -> None:
    drawn = tool.draw(load(EXAMPLE), POWER_PIN, EXAMPLE.name)
    assert SVG.read_text("utf-8") == drawn, f"docs/images/wiring.svg is stale: run {REGENERATE}"


def test_committed_picture_has_every_pin_of_the_example_config() -> None:
    config = load(EXAMPLE)
    roles = _expected_roles(config, POWER_PIN)
    assert len(roles) == 2 * 6 + 6 + 1
    _check_drawing(SVG.read_text("utf-8"), roles)
    # a few by hand, straight from the header's layout
    pins = {g.get("data-role"): g.get("data-header") for g in _elements(SVG.read_text(), "pin")}
    assert pins["seat1-A"] == "7" and pins["seat1-B"] == "11"
    assert pins["seat5-B"] == "40" and pins["seat1-LED"] == "32"
    assert pins["power"] == "5"


def test_committed_png_is_the_svg_at_twice_its_size() -> None:
    head = PNG.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "docs/images/wiring.png is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    root = ET.fromstring(SVG.read_text("utf-8"))
    assert (width, height) == (2 * int(root.get("width", 0)), 2 * int(root.get("height", 0))), (
        f"docs/images/wiring.png does not match the SVG: run {REGENERATE}"
    )


def test_header_table_agrees_with_the_docs() -> None:
    table = _docs_table()
    assert len(table) == 20  # the ten default seats' pins
    assert {bcm: tool.HEADER_PIN[bcm] for bcm in table} == table
    assert _docs_ground_pins() == tool.GROUND_PINS
    assert [p for p, (label, _) in tool.HEADER.items() if label == "3V3"] == [1, 17]
    assert [p for p, (label, _) in tool.HEADER.items() if label == "5V"] == [2, 4]
    assert sorted(tool.HEADER_PIN) == list(range(28))  # GPIO 0-27, each on one pin
    assert tool.HEADER_PIN[3] == 5  # the power button's pin (wakes a halted Pi)
    assert {bcm: tool.HEADER[pin][0] for bcm, pin in tool.HEADER_PIN.items() if bcm < 2} == {
        0: "ID_SD",
        1: "ID_SC",
    }


def test_no_two_uses_share_a_pin() -> None:
    for config, power in ((load(EXAMPLE), POWER_PIN), (Config(), None)):
        roles = _expected_roles(config, power)
        assert len(set(roles.values())) == len(roles)
        svg = tool.draw(config, power)
        headers = [g.get("data-header") for g in _elements(svg, "pin") if g.get("data-role")]
        assert len(set(headers)) == len(headers)
    with pytest.raises(ValueError, match="used twice"):
        tool.uses_of(load(EXAMPLE), 4)  # seat 1's A button
    with pytest.raises(ValueError, match="not a usable GPIO"):
        tool.uses_of(load(EXAMPLE), 1)


def test_default_config_draws_ten_seats_without_leds() -> None:
    config = Config()
    svg = tool.draw(config)
    _check_drawing(svg, _expected_roles(config, None))
    title = ET.fromstring(svg).findtext("{http://www.w3.org/2000/svg}title", "")
    assert title == "Button box wiring: 10 seats, no LEDs"
    assert "330 Ω" not in svg


def test_power_button_comes_from_the_config() -> None:
    config = parse("[power]\nbutton = 3\nhold_seconds = 5\n")
    svg = tool.draw(config)
    _check_drawing(svg, _expected_roles(config, 3))
    assert "held 5 s" in svg
    assert "power" not in {g.get("data-role") for g in _elements(tool.draw(Config()), "pin")}


def test_command_line_writes_the_committed_svg(tmp_path: Path) -> None:
    out = tmp_path / "wiring.svg"
    assert tool.main(["--power-pin", str(POWER_PIN), "--out", str(out)]) == 0
    assert out.read_text("utf-8") == SVG.read_text("utf-8")


def test_docs_show_the_picture_and_how_to_redraw_it() -> None:
    text = WIRING_MD.read_text("utf-8")
    assert "](images/wiring.png)" in text
    assert REGENERATE in text
