"""The camera desks, for the host: read the table now (Oraklos's throw, Ostrakon's tessons, game
night's dice), and the pictures of the last readings (public: what lies face up on the table).
A table without a camera answers 409; a camera that fails, 503 (``web/views.py``)."""

from __future__ import annotations

from flask import Blueprint, Response
from flask.typing import ResponseReturnValue

from web.services import Desk, services
from web.views import carried_out, catalog, error

blueprint = Blueprint("desks", __name__)


@blueprint.post("/api/throw/read")
def read_throw() -> ResponseReturnValue:
    """Read the dice on the table now (a first reading, or a re-read)."""
    return read(services().throws)


@blueprint.post("/api/tessons/read")
def read_tessons() -> ResponseReturnValue:
    """Ostrakon by camera: read the tessons turned face up at this step of the reveal."""
    return read(services().tessons)


@blueprint.post("/api/dice/read")
def read_dice() -> ResponseReturnValue:
    """Game night: read the ordinary dice on the table now."""
    return read(services().dice)


@blueprint.get("/api/throw.jpg")
def throw_picture() -> ResponseReturnValue:
    return picture(services().throws)


@blueprint.get("/api/dice.jpg")
def dice_picture() -> ResponseReturnValue:
    return picture(services().dice)


def read(desk: Desk | None) -> ResponseReturnValue:
    if desk is None:
        return error(409, catalog().text("camera.missing"))
    return carried_out(desk.read_now)


def picture(desk: Desk | None) -> ResponseReturnValue:
    jpeg = None if desk is None else desk.jpeg
    if jpeg is None:
        return error(404, catalog().text("camera.no_picture"))
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
