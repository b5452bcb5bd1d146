"""For anyone: the table's page (and its TV form), the public state and its live stream. Nothing
here needs a session; everything is the public snapshot (``web/views.py``). The rules summaries,
public too, are ``web/rules.py``."""

from __future__ import annotations

from flask import Blueprint, Response, request
from flask.typing import ResponseReturnValue

from web.pages import table_page
from web.security import is_host
from web.services import services
from web.sse import Pool
from web.views import public_state, public_stream

blueprint = Blueprint("public", __name__)


@blueprint.get("/")
@blueprint.get("/tv")  # the same, for a screen across the room: large type, one screen
def public_page() -> str:
    tv = request.path == "/tv"
    return table_page(host=False, simulated=services().panel is not None and not tv, tv=tv)


@blueprint.get("/api/state")
def state() -> ResponseReturnValue:
    return public_state()


@blueprint.get("/api/events")
def events() -> Response:
    """The public snapshots, live: the host's pages from the host's pool, anyone else's from
    the public pool of their address (web/sse.py)."""
    if is_host():
        return public_stream(Pool.HOST, "host")
    return public_stream(Pool.PUBLIC, request.remote_addr or "unknown")
