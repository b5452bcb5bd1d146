"""Who may do what (``docs/SECURITY.md``): the app's hooks, around every blueprint.

Anyone may read the public page, ``GET /api/state``, the SSE stream, the panel's LEDs and the
throw's picture (all public); every change to the table, and the export of the record, needs a
host session (the host page's PIN login) and, for a POST, the session's CSRF token and no
foreign ``Origin``. The guard is one ``before_request`` hook that refuses by default: a new POST
route is for the host unless its endpoint is listed in ``OPEN_POSTS`` or ``SEAT_POSTS``.

Seats on phones (``companion/seats_online.py``): ``/seat/<token>`` and ``/api/seat/<token>/...``
need no host session; the token in the path is the seat. Their POSTs (``SEAT_POSTS``) must come
from this site (``Origin``) and carry the token again in the ``X-Seat-Token`` header, which no
other site's form can set and no other site's script may send without a CORS preflight this app
never grants. An unknown, revoked or other game's token gets one and the same 404.

Every request must also name the companion itself (an address, localhost, its own names): no
other site's name can be pointed at it (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import logging
from datetime import timedelta
from typing import Any

from flask import Flask, Response, make_response, render_template, request, session
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from web.auth import (
    CSRF_FIELD,
    CSRF_HEADER,
    SESSION_HOURS,
    HostLock,
    new_csrf_token,
    same_origin,
    token_matches,
)
from web.body import MAX_BODY, MAX_TEXT, TextTooLong
from web.services import services
from web.views import catalog, error

log = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# endpoints, as ``blueprint.view``: POSTs that need the CSRF token but no session
OPEN_POSTS = frozenset({"login.login", "login.logout"})
SEAT_POSTS = frozenset({"seat.seat_press", "seat.seat_act"})  # a phone's seat: its token
SEAT_HEADER = "X-Seat-Token"
# reads for the host only: secrets, seat links, the page's address
HOST_GETS = frozenset({"host.record", "links.host_seats", "links.host_address"})
ALWAYS_OURS = frozenset({"localhost"})  # with any address written as numbers


def install(app: Flask, lock: HostLock) -> None:
    """The session cookie (signed with ``lock``'s key), the body limit, the hooks and the error
    handlers, once every blueprint is registered (an endpoint named above that the app lacks is
    a mistake: a renamed host read would be open to anyone)."""
    app.config.update(
        SECRET_KEY=lock.secret,
        SESSION_COOKIE_NAME="companion_host",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_SECURE=lock.secure_cookies,
        PERMANENT_SESSION_LIFETIME=timedelta(hours=SESSION_HOURS),
        # the cookie is written at login and logout only: a request still under way when the
        # host logs out must not write the old session back
        SESSION_REFRESH_EACH_REQUEST=False,
        MAX_CONTENT_LENGTH=MAX_BODY,
    )
    missing = (OPEN_POSTS | SEAT_POSTS | HOST_GETS) - set(app.view_functions)
    if missing:
        raise RuntimeError(f"the guard names endpoints the app lacks: {sorted(missing)}")
    app.before_request(own_host)
    app.before_request(guard)
    app.after_request(headers)
    app.register_error_handler(TextTooLong, text_too_long)
    app.register_error_handler(HTTPException, http_error)


# -- the hooks ------------------------------------------------------------------------------------


def own_host() -> ResponseReturnValue | None:
    """Only requests naming the companion itself: an address, localhost, its own names."""
    name = host_name(request.host)
    if name in ALWAYS_OURS or name in {n.lower() for n in services().own_names()}:
        return None
    try:
        ipaddress.ip_address(name)
    except ValueError:
        warn("refused a request naming another host")
        return error(400, catalog().text("errors.unknown_host"))
    return None


def guard() -> ResponseReturnValue | None:
    if request.routing_exception is not None:
        return None  # a 404 or 405 is answered as such
    endpoint = request.endpoint
    unsafe = request.method not in SAFE_METHODS
    if unsafe and not same_origin(
        request.headers.get("Origin"), request.headers.get("Referer"), request.host
    ):
        warn(f"refused a {request.method} from another site")
        return refused(403, "errors.cross_origin")
    if unsafe and endpoint in SEAT_POSTS:
        path_token = (request.view_args or {}).get("token")
        if not token_matches(path_token, request.headers.get(SEAT_HEADER)):
            return refused(403, "errors.seat_link_header")
        return None  # the route itself checks that the token opens a seat (else 404)
    if ((unsafe and endpoint not in OPEN_POSTS) or endpoint in HOST_GETS) and not is_host():
        return refused(401, "errors.host_only")
    if unsafe:
        given = request.headers.get(CSRF_HEADER)
        if given is None and request.mimetype in (
            "application/x-www-form-urlencoded",
            "multipart/form-data",
        ):
            given = request.form.get(CSRF_FIELD)
        if not token_matches(session.get("csrf"), given):
            return refused(403, "errors.csrf")
    return None


def headers(response: Response) -> Response:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if request.path.startswith(("/seat/", "/api/seat/", "/api/host/")):
        # a seat's token is in the address (or the answer): kept out of caches, Referer
        # headers and other sites' frames
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
    if request.path.startswith("/host"):  # carries a CSRF token, has the host's controls
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
    return response


def text_too_long(exc: TextTooLong) -> ResponseReturnValue:
    return error(400, catalog().text("errors.text_too_long", field=exc.field, limit=MAX_TEXT))


def http_error(exc: HTTPException) -> ResponseReturnValue:
    """Errors of the API (a body too large, a method not allowed...) as JSON, like the
    others."""
    if not request.path.startswith("/api/"):
        return exc
    return error(exc.code or 500, exc.description or exc.name)


# -- the host's session ---------------------------------------------------------------------------


def is_host() -> bool:
    return services().lock.is_host(session.get("sid"))


def csrf_token() -> str:
    """This browser's CSRF token, made on its first visit to the host page (the login form
    posts it too)."""
    token = session.get("csrf")
    if not isinstance(token, str) or not token:
        token = session["csrf"] = new_csrf_token()
    return token


def login_page(status: int = 200, message: str = "") -> tuple[str, int]:
    words = catalog()
    return render_template(
        "login.html",
        lang=words.lang,
        text=words.text,
        csrf=csrf_token(),
        message=message,
    ), status


def refused(status: int, key: str, **params: Any) -> Response:
    """A refusal in the table's language: the login page for the host page's own forms, JSON
    for the API."""
    message = catalog().text(key, **params)
    if request.path.startswith("/host") and not request.is_json:
        return make_response(login_page(status, message))
    return make_response(error(status, message))


# -- the log --------------------------------------------------------------------------------------


def warn(what: str) -> None:
    """Log a refusal, once a minute per client address and kind at most."""
    client = request.remote_addr or "unknown"
    if services().hush.tell(f"{what}:{client}"):
        log.warning("%s, to %s, from %s (once a minute at most)", what, route_name(), client)


def route_name() -> str:
    """What a log line may say of the request: its route, never its path (a seat's token is in
    the path)."""
    return request.url_rule.rule if request.url_rule is not None else "an unknown route"


def host_name(host: str) -> str:
    """The name or address in a ``Host`` header, without its port or brackets, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return name.rstrip(".")
