"""The host's controls of the game (a host session and its CSRF token: ``web/security.py``):
start a game or its rematch, an action typed on the host page, take one back, the hourglass,
the record, and shutting down."""

from __future__ import annotations

from flask import Blueprint, Response
from flask.typing import ResponseReturnValue

from companion.game import IllegalAction, MalformedAction, action_from_json
from companion.journal import JournalError
from companion.moderator import NoGame
from companion.narration.catalog import LANGUAGES
from web.body import json_body
from web.services import services
from web.views import (
    bad_request,
    carried_out,
    catalog,
    error,
    illegal,
    journal_refused,
    no_game,
    public_state,
    start_refused,
)

MAX_REQUEST_KEY = 100  # characters in a start request's key (the page sends a UUID)
KEY_WRONG = f"request must be a text of 1 to {MAX_REQUEST_KEY} characters"

blueprint = Blueprint("host", __name__)


def malformed_key(key: object) -> bool:
    """Whether a click's ``request`` key is malformed (one key per click: the same key again
    starts nothing more; none: every request starts)."""
    return key is not None and not (isinstance(key, str) and 0 < len(key) <= MAX_REQUEST_KEY)


@blueprint.post("/api/games")
def new_game() -> ResponseReturnValue:
    body = json_body()
    if not isinstance(body, dict):
        return bad_request("send a JSON object with game, options, names and language")
    title = body.get("game", "resistance")
    options = body.get("options", {})
    names = body.get("names", [])
    language = body.get("language")
    if not isinstance(title, str):
        return bad_request("game must be the name of a game, in quotes")
    if (
        not isinstance(options, dict)
        or not isinstance(names, list)
        or not all(isinstance(n, str) for n in names)
    ):
        return bad_request("options must be an object and names a list of texts")
    if language is not None and language not in LANGUAGES:
        return bad_request(f"language must be one of {', '.join(LANGUAGES)}")
    # the running game's journal id, to end it (the page asked the host first)
    replace = body.get("replace")
    if replace is not None and (not isinstance(replace, int) or isinstance(replace, bool)):
        return bad_request("replace must be the running game's id, a number")
    key = body.get("request")
    if malformed_key(key):
        return bad_request(KEY_WRONG)
    table = services().table
    try:
        started = table.new_game(title, options, names, language, replace=replace, request=key)
    except KeyError:
        return error(400, catalog().text("errors.unknown_game", game=str(title)))
    except IllegalAction as exc:
        return start_refused(exc, language)
    except JournalError as exc:
        return journal_refused(exc)
    return public_state(201 if started else 200)


@blueprint.post("/api/games/rematch")
def rematch() -> ResponseReturnValue:
    """The host's "play again": the finished game ``game_id`` again, with its players, seats,
    options, language and phones, and a new deal. ``request`` as for ``/api/games``: one rematch
    per key (201 when started, 200 when the key had started one already)."""
    body = json_body()
    game_id = body.get("game_id") if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(game_id, int) or isinstance(game_id, bool):
        return bad_request('send {"game_id": the finished game\'s id, "request": a key}')
    key = body.get("request")
    if malformed_key(key):
        return bad_request(KEY_WRONG)
    try:
        started = services().table.rematch(game_id, request=key)
    except IllegalAction as exc:
        return illegal(exc, 409)
    except JournalError as exc:
        return journal_refused(exc)
    return public_state(201 if started else 200)


@blueprint.post("/api/act")
def act() -> ResponseReturnValue:
    """An action typed on the host page: a marker taken, a claim, a correction..."""
    table = services().table
    running = table.running
    if running is None:
        return no_game()
    try:
        action = action_from_json(running.game.actions, json_body())
    except MalformedAction as exc:
        return bad_request(str(exc))
    return carried_out(lambda: table.submit(action))


@blueprint.post("/api/host/undo")
def undo() -> ResponseReturnValue:
    """The host takes back the last action: ``{"seq": n}``, the ``undo.seq`` of the snapshot the
    page showed, so that a second click or a stale page takes back nothing more."""
    body = json_body()
    seq = body.get("seq") if isinstance(body, dict) else None
    if not isinstance(seq, int) or isinstance(seq, bool):
        return bad_request('send {"seq": the undo offered by the state\'s "undo"}')
    return carried_out(lambda: services().table.undo(seq))


@blueprint.post("/api/hourglass/pause")
def pause_hourglass() -> ResponseReturnValue:
    return carried_out(services().table.pause_hourglass)


@blueprint.post("/api/hourglass/resume")
def resume_hourglass() -> ResponseReturnValue:
    return carried_out(services().table.resume_hourglass)


@blueprint.post("/api/power/off")
def power_off() -> ResponseReturnValue:
    """Stop the companion cleanly and power the computer off (the host's alone). The game is in
    the journal: the next start resumes it. The body must say ``{"confirm": true}``: no stray
    POST turns the table off."""
    body = json_body()
    if not (isinstance(body, dict) and body.get("confirm") is True):
        return bad_request('to shut down, send {"confirm": true}')
    services().shutdown.request("the host page")
    return public_state()


@blueprint.get("/api/record")
def record() -> ResponseReturnValue:
    """The running game's record, as JSON Lines (it holds the game's secrets: host only)."""
    try:
        lines = services().table.export()
    except NoGame as exc:
        return error(404, str(exc))
    return Response(
        "\n".join(lines) + "\n",
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": "attachment; filename=game.jsonl"},
    )
