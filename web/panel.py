"""The virtual button panel of simulation: the host presses a seat's A or B on the page
(``hardware/virtual_panel.py``), and anyone may see the seats' LEDs."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from companion.seat_input import Button, Press
from web.body import json_body
from web.services import services
from web.views import bad_request, error, public_state

blueprint = Blueprint("panel", __name__)


@blueprint.post("/api/press")
def press() -> ResponseReturnValue:
    parts = services()
    if parts.panel is None:
        return error(409, "the virtual panel exists only in simulation; use the buttons")
    body = json_body()
    if not isinstance(body, dict):
        return bad_request('send {"seat": number, "button": "A" or "B"}')
    seat, button = body.get("seat"), body.get("button")
    seats = parts.table.seats
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
        return bad_request(f"seat must be a number from 0 to {seats - 1}")
    if button not in ("A", "B"):
        return bad_request('button must be "A" or "B"')
    parts.panel.press(Press(seat, Button(button)))
    return public_state()


@blueprint.get("/api/panel")
def panel_state() -> ResponseReturnValue:
    parts = services()
    leds = parts.leds() if parts.leds is not None else []
    return jsonify({"simulated": parts.panel is not None, "leds": leds})
