"""A seat's phone, with its link (``companion/seats_online.py``): the seat's page, its own view
and the live stream of it, its A and B, and its own actions. No host session: the token in the
path is the seat, and a POST carries it again in ``X-Seat-Token`` (``web/security.py``). Every
token that opens no seat (unknown, revoked, another game's) gets one and the same 404."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template
from flask.typing import ResponseReturnValue

from companion.game import IllegalAction, MalformedAction, action_from_json
from companion.journal import JournalError
from companion.moderator import NoGame
from companion.narration.catalog import Catalog
from companion.seat_input import Button, Press
from companion.seats_online import actor
from web.body import json_body
from web.pages import table_page
from web.services import services
from web.views import (
    after_seat_move,
    bad_request,
    error,
    journal_refused,
    no_seat,
    seat_refused,
    seat_stream,
    seat_view,
    snapshot,
)

blueprint = Blueprint("seat", __name__)


@blueprint.get("/seat/<token>")
def seat_page(token: str) -> ResponseReturnValue:
    if seat_view(token) is None:
        return seat_gone_page()
    return table_page(host=False, simulated=False, seat_token=token)


def seat_gone_page() -> Response:
    """One and the same page for every token that opens no seat (unknown, revoked, a finished
    game's): styled, in the table's language, with the public end of the table's game if it is
    over (which anyone may see on the public page), and status 404. It reloads itself when a
    new game starts: a rematch's link is the same."""
    snap = snapshot()
    words = Catalog(snap["language"])
    page = render_template(
        "seat_gone.html",
        lang=words.lang,
        text=words.text,
        message=words.text("errors.seat_link_invalid"),
        end=snap["ending"],
        game_id=snap["game_id"],
    )
    return Response(page, status=404, mimetype="text/html")


@blueprint.get("/api/seat/<token>/state")
def seat_state(token: str) -> ResponseReturnValue:
    view = seat_view(token)
    return no_seat() if view is None else jsonify(view)


@blueprint.get("/api/seat/<token>/events")
def seat_events(token: str) -> ResponseReturnValue:
    return seat_stream(token)


@blueprint.post("/api/seat/<token>/press")
def seat_press(token: str) -> ResponseReturnValue:
    """A phone's A or B: the same input port as the button box."""
    table = services().table
    seat = table.phones.seat_for(token)
    if seat is None:
        return no_seat()
    body = json_body()
    button = body.get("button") if isinstance(body, dict) else None
    if button not in ("A", "B"):
        return bad_request('send {"button": "A" or "B"}')
    result = table.press(Press(seat, Button(button)))
    return jsonify({"accepted": result.accepted is not None, **after_seat_move(token, seat)})


@blueprint.post("/api/seat/<token>/act")
def seat_act(token: str) -> ResponseReturnValue:
    """A seat's own action (a Le Plan card, an Oraklos claim): only for the token's seat."""
    table = services().table
    seat = table.phones.seat_for(token)
    running = table.running
    if seat is None or running is None:
        return no_seat()
    try:
        action = action_from_json(running.game.actions, json_body())
    except MalformedAction as exc:
        return bad_request(str(exc))
    if actor(action) != seat:
        return error(403, running.catalog.text("errors.not_your_seat", seat=seat))
    try:
        table.phones.submit(seat, action)
    except IllegalAction as exc:
        return seat_refused(exc, token, seat)
    except NoGame:
        return no_seat()
    except JournalError as exc:
        return journal_refused(exc)
    return jsonify(after_seat_move(token, seat))
