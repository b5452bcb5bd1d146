"""The host page and the host's sessions: the PIN login (rate-limited), logging out, and
logging out every other device. ``/host/login`` and ``/host/logout`` need the CSRF token but no
session (``web/security.py``: ``OPEN_POSTS``)."""

from __future__ import annotations

import logging

from flask import Blueprint, jsonify, redirect, render_template, request, session
from flask.typing import ResponseReturnValue

from web.auth import new_csrf_token, pin_matches
from web.body import json_body
from web.pages import table_page
from web.security import csrf_token, is_host, login_page, refused
from web.services import services
from web.views import catalog

log = logging.getLogger(__name__)

blueprint = Blueprint("login", __name__)


@blueprint.get("/host")
def host_page() -> ResponseReturnValue:
    if not is_host() and request.headers.get("Sec-Fetch-Site") == "cross-site":
        # Followed from another site's link: the browser kept the SameSite=Strict cookie back.
        # Load again from here (then it sends it), and do not answer with a new session
        # cookie, which would replace a logged-in host's.
        return render_template("reload.html"), 200
    if not is_host():
        return login_page()
    parts = services()
    return table_page(
        host=True, simulated=parts.panel is not None, seats=parts.table.seats, csrf=csrf_token()
    )


@blueprint.post("/host/login")
def login() -> ResponseReturnValue:
    lock = services().lock
    client = request.remote_addr or "unknown"
    wait = lock.limiter.wait(client)
    if wait:
        response = refused(429, "errors.too_many_pins", seconds=wait)
        response.headers["Retry-After"] = str(wait)
        return response
    if request.is_json:
        body = json_body()
        given = body.get("pin") if isinstance(body, dict) else None
    else:
        given = request.form.get("pin")
    if not pin_matches(lock.pin, given):
        lock.limiter.failed(client)
        log.warning("a wrong host PIN from %s", client)
        return refused(401, "errors.wrong_pin")
    lock.limiter.succeeded(client)
    lock.sessions.end(session.get("sid"))
    session.clear()  # a new session, and a new token for it
    session["sid"] = lock.sessions.open()
    session["csrf"] = new_csrf_token()
    session.permanent = True  # kept when the browser closes, for SESSION_HOURS
    log.info("host logged in from %s", client)
    if request.is_json:
        return jsonify({"host": True, "csrf": session["csrf"]})
    return redirect("/host", 303)


@blueprint.post("/host/logout")
def logout() -> ResponseReturnValue:
    services().lock.sessions.end(session.get("sid"))  # a copy of the cookie opens nothing now
    session.clear()
    if request.is_json:
        return jsonify({"host": False})
    return redirect("/host", 303)


@blueprint.post("/api/host/logout-others")
def logout_others() -> ResponseReturnValue:
    """End every host session but this one (a phone that logged in and was left about)."""
    ended = services().lock.sessions.end_others(session.get("sid"))
    log.info("the host logged out %d other device(s)", ended)
    return jsonify({"ended": ended, "text": catalog().text("ui.others_logged_out")})
