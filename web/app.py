"""The Flask application: pages and JSON API over one ``Table``.

Who may do what (``docs/SECURITY.md``): anyone may read the public page, ``GET /api/state``,
the SSE stream, the panel's LEDs and the throw's picture (all public); every change to the
table, and the export of the record, needs a host session (the host page's PIN login) and, for
a POST, the session's CSRF token and no foreign ``Origin``. The guard is one ``before_request``
hook that refuses by default: a new POST route is for the host unless listed in ``OPEN_POSTS``
or ``SEAT_POSTS``.

Seats on phones (``companion/seats_online.py``): ``/seat/<token>`` and ``/api/seat/<token>/...``
need no host session; the token in the path is the seat. Their POSTs (``SEAT_POSTS``) must come
from this site (``Origin``) and carry the token again in the ``X-Seat-Token`` header, which no
other site's form can set and no other site's script may send without a CORS preflight this app
never grants. An unknown, revoked or other game's token gets one and the same 404.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Flask,
    Response,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
)
from werkzeug.exceptions import HTTPException

from companion.game import IllegalAction, MalformedAction, action_from_json
from companion.games.resistance.plot import FULL_DECK
from companion.journal import JournalError
from companion.moderator import NoGame, Table
from companion.narration.catalog import LANGUAGES, Catalog
from companion.seat_input import Button, Press
from companion.seats_online import actor
from web.auth import (
    CSRF_FIELD,
    CSRF_HEADER,
    SESSION_HOURS,
    HostLock,
    Hush,
    new_csrf_token,
    pin_matches,
    same_origin,
    token_matches,
)
from web.rules import register as register_rules
from web.sse import Broadcaster, Pool, Refusal, Slot, StreamRefused

log = logging.getLogger(__name__)

VERDICTS = ("vote_approved", "vote_rejected")
LABEL_SECTIONS = (("reason_", "oraklos.reasons."), ("plot_", "resistance.plot.cards."))
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
OPEN_POSTS = frozenset({"login", "logout"})  # POSTs that need the CSRF token but no session
SEAT_POSTS = frozenset({"seat_press", "seat_act"})  # a phone's seat: its token, no session
SEAT_HEADER = "X-Seat-Token"
# reads for the host only: secrets, seat links, the page's address
HOST_GETS = frozenset({"record", "host_seats", "host_address"})
QR_SCALE = 4
MAX_BODY = 64 * 1024  # bytes: the largest action (a throw's dice) is a few kilobytes
STREAM_REFUSALS = {Refusal.DEVICE: "errors.streams_device", Refusal.FULL: "errors.streams_full"}
MAX_TEXT = 1000  # characters in any one text of a request (an Eleusis rule is the longest)
ALWAYS_OURS = frozenset({"localhost"})  # with any address written as numbers
SAFE_INTEGER = 2**53  # the largest integer a browser's JSON keeps exact
MAX_REQUEST_KEY = 100  # characters in a start request's key (the page sends a UUID)


def labels() -> dict[str, dict[str, str]]:
    """The page's words in every language, keyed like the catalog's ``ui`` table, plus the
    vote's verdict as the narrator says it (shown under the revealed votes)."""
    out: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        keys = Catalog.keys(lang)
        words = {k[3:]: v for k, v in keys.items() if k.startswith("ui.")}
        words.update({v: keys[f"resistance.say.{v}"] for v in VERDICTS})
        # a judged claim's reason, shown under the throw; the names of the plot cards
        for prefix, section in LABEL_SECTIONS:
            words.update(
                {prefix + k[len(section) :]: v for k, v in keys.items() if k.startswith(section)}
            )
        out[lang] = words
    return out


def on_loopback(url: str) -> bool:
    """Whether ``url`` names this computer alone (127.0.0.1, localhost, ::1): no phone opens it."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: the network's to resolve
        return False


def create_app(
    table: Table,
    broadcaster: Broadcaster,
    panel: Any = None,
    leds: Any = None,
    throws: Any = None,
    tessons: Any = None,
    lock: HostLock | None = None,
    dice: Any = None,
    *,
    shutdown: Any,
    page_address: Any = None,
    own_names: Callable[[], Iterable[str]] = lambda: (),
) -> Flask:
    """``lock`` holds the host PIN and the cookie key; without one, a PIN is generated (and
    the host page stays locked to whoever does not know it). ``own_names`` gives the names the
    companion answers to besides its addresses and localhost (its ``.local`` names): a request
    naming any other host is refused, so that no other site's name can be pointed at it (DNS
    rebinding)."""
    lock = lock if lock is not None else HostLock()
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.jinja_env.globals["plot_full_deck"] = [card.value for card in FULL_DECK]
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

    def catalog() -> Catalog:
        """The table's language (without building a snapshot: refusals come in floods)."""
        running = table.running
        return Catalog(running.catalog.lang if running else table.default_language)

    def error(status: int, message: str) -> tuple[Response, int]:
        return jsonify({"error": message}), status

    def bad_request(detail: str) -> tuple[Response, int]:
        return error(400, catalog().text("errors.malformed", detail=detail))

    def json_body() -> Any:
        """The request's JSON, or None when it is not JSON (of any depth: a nesting too deep
        for the parser is refused like bad JSON, never a 500). NaN and Infinity, which are not
        JSON, are refused too, and so are numbers no page could send (beyond ±2^53, the
        integers JavaScript counts exactly): no rule ever needs them, and an engine need not
        guard against a 400-digit seat number."""
        if not request.is_json:
            return None
        try:
            body = json.loads(
                request.get_data(),
                parse_constant=_no_constant,
                parse_int=_safe_int,
                parse_float=_finite_float,
            )
        except (ValueError, RecursionError):
            return None
        too_long = _long_text(body)
        if too_long is not None:
            raise TextTooLong(too_long)
        return body

    @app.errorhandler(TextTooLong)
    def text_too_long(exc: TextTooLong) -> Any:
        return error(400, catalog().text("errors.text_too_long", field=exc.field, limit=MAX_TEXT))

    def is_host() -> bool:
        return lock.is_host(session.get("sid"))

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
        """A refusal in the table's language: the login page for the host page's own forms,
        JSON for the API."""
        message = catalog().text(key, **params)
        if request.path.startswith("/host") and not request.is_json:
            return make_response(login_page(status, message))
        return make_response(error(status, message))

    hush = Hush()

    def warn(what: str) -> None:
        """Log a refusal, once a minute per client address and kind at most."""
        client = request.remote_addr or "unknown"
        if hush.tell(f"{what}:{client}"):
            log.warning("%s, to %s, from %s (once a minute at most)", what, route_name(), client)

    def route_name() -> str:
        """What a log line may say of the request: its route, never its path (a seat's token
        is in the path)."""
        return request.url_rule.rule if request.url_rule is not None else "an unknown route"

    @app.before_request
    def own_host() -> Any:
        """Only requests naming the companion itself: an address, localhost, its own names."""
        name = host_name(request.host)
        if name in ALWAYS_OURS or name in {n.lower() for n in own_names()}:
            return None
        try:
            ipaddress.ip_address(name)
        except ValueError:
            warn("refused a request naming another host")
            return error(400, catalog().text("errors.unknown_host"))
        return None

    @app.before_request
    def guard() -> Any:
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

    @app.after_request
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

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        """Errors of the API (a body too large, a method not allowed...) as JSON, like the
        others."""
        if not request.path.startswith("/api/"):
            return exc
        return error(exc.code or 500, exc.description or exc.name)

    def running_title() -> str | None:
        running = table.running
        return None if running is None else running.entry.title

    # the rules summaries (web/rules.py): public, in the table's language or ?lang=
    register_rules(app, language=lambda: catalog().lang, game=running_title)

    @app.get("/")
    @app.get("/tv")  # the same, for a screen across the room: large type, one screen
    def public_page() -> str:
        tv = request.path == "/tv"
        return render_template(
            "table.html",
            labels=json.dumps(labels()),
            host=False,
            simulated=panel is not None and not tv,
            tv=tv,
        )

    @app.get("/host")
    def host_page() -> Any:
        if not is_host() and request.headers.get("Sec-Fetch-Site") == "cross-site":
            # Followed from another site's link: the browser kept the SameSite=Strict cookie
            # back. Load again from here (then it sends it), and do not answer with a new
            # session cookie, which would replace a logged-in host's.
            return render_template("reload.html"), 200
        if not is_host():
            return login_page()
        return render_template(
            "table.html",
            labels=json.dumps(labels()),
            host=True,
            simulated=panel is not None,
            seats=table.seats,
            csrf=csrf_token(),
        )

    @app.post("/host/login")
    def login() -> Any:
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

    @app.post("/host/logout")
    def logout() -> Any:
        lock.sessions.end(session.get("sid"))  # a copy of the cookie opens nothing now
        session.clear()
        if request.is_json:
            return jsonify({"host": False})
        return redirect("/host", 303)

    @app.post("/api/host/logout-others")
    def logout_others() -> Any:
        """End every host session but this one (a phone that logged in and was left about)."""
        ended = lock.sessions.end_others(session.get("sid"))
        log.info("the host logged out %d other device(s)", ended)
        return jsonify({"ended": ended, "text": catalog().text("ui.others_logged_out")})

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(table.snapshot())

    @app.get("/api/events")
    def events() -> Response:
        """The public snapshots, live: the host's pages from the host's pool, anyone else's
        from the public pool of their address (web/sse.py)."""
        if is_host():
            return live_stream(Pool.HOST, "host", broadcaster.stream)
        return live_stream(Pool.PUBLIC, request.remote_addr or "unknown", broadcaster.stream)

    def live_stream(pool: Pool, key: str, opened: Callable[[Slot], Iterable[str]]) -> Response:
        """An SSE answer from ``pool``'s place for ``key``, or at once 503 with ``Retry-After``
        when the pool refuses one: a refused stream never holds a thread."""
        gone = request.environ.get("waitress.client_disconnected")  # the server's, if waitress

        def alive() -> bool:
            return gone is None or not gone()

        try:
            slot = broadcaster.admit(pool, key, alive)
        except StreamRefused as refused:
            words = catalog().text(STREAM_REFUSALS[refused.reason], seconds=refused.retry_after)
            response = make_response(error(503, words))
            response.headers["Retry-After"] = str(refused.retry_after)
            return response
        response = Response(
            opened(slot),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        response.call_on_close(lambda: broadcaster.release(slot))  # even if never iterated
        return response

    @app.post("/api/games")
    def new_game() -> Any:
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
        # one key per click: the same key again starts nothing more
        key = body.get("request")
        if key is not None and not (isinstance(key, str) and 0 < len(key) <= MAX_REQUEST_KEY):
            return bad_request(f"request must be a text of 1 to {MAX_REQUEST_KEY} characters")
        try:
            started = table.new_game(title, options, names, language, replace=replace, request=key)
        except KeyError:
            return error(400, catalog().text("errors.unknown_game", game=str(title)))
        except IllegalAction as exc:
            if exc.code == "game_running":  # in the table's language, naming its game
                running = {"id": exc.params["id"], "game": exc.params["game"]}
                return jsonify({"error": table.refusal_for(exc), "running": running}), 409
            # the set-up's own mistakes, in the language chosen for the new game
            words = Catalog(language) if language is not None else None
            return error(400, words.explain(exc) if words else table.refusal_for(exc))
        except JournalError as exc:
            return error(503, table.refusal(exc))
        return jsonify(table.snapshot()), 201 if started else 200

    @app.post("/api/games/rematch")
    def rematch() -> Any:
        """The host's "play again": the finished game ``game_id`` again, with its players, seats,
        options, language and phones, and a new deal. ``request`` as for ``/api/games``: one
        rematch per key (201 when started, 200 when the key had started one already)."""
        body = json_body()
        game_id = body.get("game_id") if isinstance(body, dict) else None
        if not isinstance(game_id, int) or isinstance(game_id, bool):
            return bad_request('send {"game_id": the finished game\'s id, "request": a key}')
        key = body.get("request")
        if key is not None and not (isinstance(key, str) and 0 < len(key) <= MAX_REQUEST_KEY):
            return bad_request(f"request must be a text of 1 to {MAX_REQUEST_KEY} characters")
        try:
            started = table.rematch(game_id, request=key)
        except IllegalAction as exc:
            return error(409, table.refusal_for(exc))
        except JournalError as exc:
            return error(503, table.refusal(exc))
        return jsonify(table.snapshot()), 201 if started else 200

    @app.post("/api/press")
    def press() -> Any:
        if panel is None:
            return error(409, "the virtual panel exists only in simulation; use the buttons")
        body = json_body()
        if not isinstance(body, dict):
            return bad_request('send {"seat": number, "button": "A" or "B"}')
        seat, button = body.get("seat"), body.get("button")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < table.seats:
            return bad_request(f"seat must be a number from 0 to {table.seats - 1}")
        if button not in ("A", "B"):
            return bad_request('button must be "A" or "B"')
        panel.press(Press(seat, Button(button)))
        return jsonify(table.snapshot())

    @app.get("/api/panel")
    def panel_state() -> Any:
        return jsonify({"simulated": panel is not None, "leds": leds() if leds is not None else []})

    @app.post("/api/act")
    def act() -> Any:
        """An action typed on the host page: a marker taken, a claim, a correction..."""
        running = table.running
        if running is None:
            return error(409, catalog().text("errors.no_game"))
        try:
            action = action_from_json(running.game.actions, json_body())
        except MalformedAction as exc:
            return bad_request(str(exc))
        return submitted(lambda: table.submit(action))

    @app.post("/api/host/undo")
    def undo() -> Any:
        """The host takes back the last action: ``{"seq": n}``, the ``undo.seq`` of the snapshot
        the page showed, so that a second click or a stale page takes back nothing more."""
        body = json_body()
        seq = body.get("seq") if isinstance(body, dict) else None
        if not isinstance(seq, int) or isinstance(seq, bool):
            return bad_request('send {"seq": the undo offered by the state\'s "undo"}')
        return submitted(lambda: table.undo(seq))

    # -- seats on phones -------------------------------------------------------------------

    def no_seat() -> tuple[Response, int]:
        """The one answer to every token that opens no seat: unknown, revoked, another game's."""
        return error(404, catalog().text("errors.seat_link_invalid"))

    def base_url() -> str:
        """The page's own address, never one taken from the request's ``Host``."""
        _urls, scan = page_address() if page_address is not None else ([], None)
        return scan or request.host_url

    def seat_links() -> list[dict[str, Any]]:
        """Every seat of the running game; a link and its QR code only for the seats whose
        phone has not opened theirs yet (the host is a player too: an opened link is that
        player's alone)."""
        import segno

        running = table.running
        if running is None:
            return []
        base = base_url()
        shown = table.seat_links.unopened()
        out = []
        for seat in sorted(table.seat_links.links()):
            link: dict[str, Any] = {"seat": seat, "name": running.catalog.name(seat)}
            token = shown.get(seat)
            if token is None:
                link["opened"] = True
            else:
                url = f"{base}seat/{token}"
                qr = segno.make(url, error="m").svg_inline(scale=QR_SCALE)
                link.update(opened=False, url=url, qr_svg=qr)
            out.append(link)
        return out

    @app.get("/api/host/address")
    def host_address() -> Any:
        """Where phones open the page: by name (mDNS) and by address, and a QR code of the
        address (every phone reaches an address; not every one resolves a .local name)."""
        import segno

        urls, scan = page_address() if page_address is not None else ([], None)
        no_network = page_address is not None and not urls  # every interface, but no address
        if not urls:  # no network address known: the one this page was loaded from
            urls, scan = [base_url()], base_url()
        if on_loopback(scan):  # phones cannot reach it: say why, never a QR code of 127.0.0.1
            why = "address_no_network" if no_network else "address_local_only"
            return jsonify(
                {
                    "reachable": False,
                    "why": catalog().text(f"ui.{why}"),
                    "why_label": why,  # the page's label: it follows the table's language
                    "urls": [],
                    "url": None,
                    "qr_svg": None,
                }
            )
        qr = segno.make(scan, error="m").svg_inline(scale=6)
        return jsonify({"reachable": True, "urls": urls, "url": scan, "qr_svg": qr})

    @app.post("/api/power/off")
    def power_off() -> Any:
        """Stop the companion cleanly and power the computer off (the host's alone). The game is
        in the journal: the next start resumes it. The body must say ``{"confirm": true}``:
        no stray POST turns the table off."""
        body = json_body()
        if not (isinstance(body, dict) and body.get("confirm") is True):
            return bad_request('to shut down, send {"confirm": true}')
        shutdown.request("the host page")
        return jsonify(table.snapshot())

    @app.get("/api/host/seats")
    def host_seats() -> Any:
        return jsonify(seat_links())

    @app.post("/api/host/seats/redeal")
    def redeal_seats() -> Any:
        """New links for every seat: every phone is cut off, so the body must say
        ``{"confirm": true}`` (the page asks the host first)."""
        body = json_body()
        if not (isinstance(body, dict) and body.get("confirm") is True):
            return error(400, catalog().text("errors.redeal_unconfirmed"))
        return redealt(table.redeal_links)

    @app.post("/api/host/seats/<int:seat>/redeal")
    def redeal_seat(seat: int) -> Any:
        """A new link for one seat (said aloud to the table)."""
        return redealt(lambda: table.redeal_link(seat))

    def redealt(redeal: Callable[[], object]) -> Any:
        try:
            redeal()
        except NoGame:
            return error(409, catalog().text("errors.no_game"))
        except IllegalAction as exc:
            return error(409, table.refusal_for(exc))
        except JournalError as exc:
            return error(503, table.refusal(exc))
        return jsonify(seat_links())

    def opened_view(token: str) -> dict[str, Any] | None:
        """The seat's own view, for the phone holding ``token``: its link is now opened (no
        longer shown to the host). None for a token that opens no seat."""
        return table.seat_view(token) if table.open_seat(token) is not None else None

    @app.get("/seat/<token>")
    def seat_page(token: str) -> Any:
        view = opened_view(token)
        if view is None:
            return seat_gone_page()
        return render_template(
            "table.html",
            labels=json.dumps(labels()),
            host=False,
            simulated=False,
            seat_token=token,
        )

    def seat_gone_page() -> Response:
        """One and the same page for every token that opens no seat (unknown, revoked, a
        finished game's): styled, in the table's language, with the public end of the table's
        game if it is over (which anyone may see on the public page), and status 404. It
        reloads itself when a new game starts: a rematch's link is the same."""
        snap = table.snapshot()
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

    @app.get("/api/seat/<token>/state")
    def seat_state(token: str) -> Any:
        view = opened_view(token)
        return no_seat() if view is None else jsonify(view)

    @app.get("/api/seat/<token>/events")
    def seat_events(token: str) -> Any:
        if table.open_seat(token) is None:
            return no_seat()

        def opened(slot: Slot) -> Iterable[str]:
            return broadcaster.stream_views(lambda: table.seat_view(token), slot)

        return live_stream(Pool.SEAT, token, opened)

    @app.post("/api/seat/<token>/press")
    def seat_press(token: str) -> Any:
        """A phone's A or B: the same input port as the button box."""
        seat = table.seat_for(token)
        if seat is None:
            return no_seat()
        body = json_body()
        button = body.get("button") if isinstance(body, dict) else None
        if button not in ("A", "B"):
            return bad_request('send {"button": "A" or "B"}')
        result = table.press(Press(seat, Button(button)))
        return jsonify({"accepted": result.accepted is not None, **after_seat_move(token, seat)})

    @app.post("/api/seat/<token>/act")
    def seat_act(token: str) -> Any:
        """A seat's own action (a Le Plan card, an Oraklos claim): only for the token's seat. A
        refusal meant for this seat alone (``private_to``) is answered here and nowhere else."""
        seat = table.seat_for(token)
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
            table.seat_submit(seat, action)
        except IllegalAction as exc:
            private = exc.params.get("private_to") == seat
            if private:  # what only this seat may read: its link is now opened
                table.open_seat(token)
            return jsonify({"error": table.refusal_for(exc, seat), "private": private}), 400
        except NoGame:
            return no_seat()
        except JournalError as exc:
            return error(503, table.refusal(exc))
        return jsonify(after_seat_move(token, seat))

    def after_seat_move(token: str, seat: int) -> dict[str, Any]:
        """The seat's view after its move; a move that ended the game spent the link: then the
        public snapshot only, and ``gone``. The seat's link is now opened."""
        view = opened_view(token)
        if view is None:
            return {"seat": seat, "public": table.snapshot(), "private": None, "gone": True}
        return view

    @app.post("/api/throw/read")
    def read_throw() -> Any:
        """Read the dice on the table now (a first reading, or a re-read)."""
        if throws is None:
            return error(409, catalog().text("camera.missing"))
        return submitted(throws.read_now)

    @app.post("/api/tessons/read")
    def read_tessons() -> Any:
        """Ostrakon by camera: read the tessons turned face up at this step of the reveal."""
        if tessons is None:
            return error(409, catalog().text("camera.missing"))
        return submitted(tessons.read_now)

    @app.post("/api/dice/read")
    def read_dice() -> Any:
        """Game night: read the ordinary dice on the table now."""
        if dice is None:
            return error(409, catalog().text("camera.missing"))
        return submitted(dice.read_now)

    @app.post("/api/hourglass/pause")
    def pause_hourglass() -> Any:
        return submitted(table.pause_hourglass)

    @app.post("/api/hourglass/resume")
    def resume_hourglass() -> Any:
        return submitted(table.resume_hourglass)

    @app.get("/api/throw.jpg")
    def throw_picture() -> Any:
        return picture(None if throws is None else throws.jpeg)

    @app.get("/api/dice.jpg")
    def dice_picture() -> Any:
        return picture(None if dice is None else dice.jpeg)

    def picture(jpeg: bytes | None) -> Any:
        if jpeg is None:
            return error(404, catalog().text("camera.no_picture"))
        return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    def submitted(do: Any) -> Any:
        from vision.readings import UnreadableFrame
        from vision.sources import CameraUnavailable

        try:
            do()
        except IllegalAction as exc:
            return error(400, table.refusal_for(exc))
        except NoGame:
            return error(409, catalog().text("errors.no_game"))
        except (CameraUnavailable, UnreadableFrame) as exc:
            return error(503, str(exc))
        except JournalError as exc:
            return error(503, table.refusal(exc))
        return jsonify(table.snapshot())

    @app.post("/api/eleusis/check")
    def check_eleusis_rule() -> Any:
        """Eleusis: the rule checker's report on a rule the host (or a human God) typed, in the
        table's language (or ``language``). The host's alone, like every POST; it changes
        nothing, and the rule is a secret: it is never logged, journalled or kept."""
        body = json_body()
        rule = body.get("rule") if isinstance(body, dict) else None
        if not isinstance(rule, str):
            return bad_request('send {"rule": "the rule, as text"}')
        language = body.get("language")
        if language is None:
            language = table.snapshot()["language"]
        elif language not in LANGUAGES:
            return bad_request(f"language must be one of {', '.join(LANGUAGES)}")
        return jsonify(eleusis_report(rule, Catalog(language)))

    @app.get("/api/record")
    def record() -> Any:
        try:
            lines = table.export()
        except NoGame as exc:
            return error(404, str(exc))
        return Response(
            "\n".join(lines) + "\n",
            mimetype="application/x-ndjson",
            headers={"Content-Disposition": "attachment; filename=game.jsonl"},
        )

    return app


def eleusis_report(text: str, words: Catalog) -> dict[str, Any]:
    """The checker's report on ``text`` as the host page shows it: ``ok`` false with ``error``
    (its code, 1-based column, ``text``: the sentence saying where and what kind of error, for
    a masked rule field, and ``quoted``: the sentence that may quote the rule, for a field shown)
    when the rule cannot be read; else ``ok`` true, the checker's findings, and its advice as
    sentences (``fit``: no advice at all)."""
    from companion.games.eleusis.rule_check import check_rule
    from companion.games.eleusis.rule_language import RuleSyntaxError, parse_rule

    try:
        rule = parse_rule(text)
    except RuleSyntaxError as exc:
        params = {"column": exc.column, **exc.params}
        return {
            "ok": False,
            "error": {
                "code": exc.code,
                "column": exc.column,
                "text": words.rule_error(exc.code, params),
                "quoted": words.rule_error(exc.code, params, quoted=True),
            },
        }
    report = check_rule(rule)
    advice = []
    for item in report.advice:
        key = f"eleusis.advice.{item.code}"
        sentence = words.text(key, **item.params) if words.has(key) else item.code
        advice.append({"code": item.code, "params": item.params, "text": sentence})
    blocking = report.blocking_line
    return {
        "ok": True,
        "fit": not advice,
        "blocks": report.blocks,
        "blocking_line": None if blocking is None else [c.to_json() for c in blocking],
        "exhaustive": report.exhaustive,
        "acceptance": report.acceptance,
        "percent": round(100 * report.acceptance),
        "first_cards": report.first_cards,
        "fewest_choices": report.fewest_choices,
        "lookback": report.lookback,
        "period": report.period,
        "advice": advice,
    }


class TextTooLong(ValueError):
    """A text in a request beyond ``MAX_TEXT`` characters; ``field`` says where."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def _long_text(value: Any, where: str = "") -> str | None:
    """Where the first text longer than ``MAX_TEXT`` is in a JSON value, or None."""
    if isinstance(value, str):
        return (where or "text") if len(value) > MAX_TEXT else None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        if isinstance(key, str) and len(key) > MAX_TEXT:
            return where or "a key"
        found = _long_text(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def host_name(host: str) -> str:
    """The name or address in a ``Host`` header, without its port or brackets, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return name.rstrip(".")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _safe_int(text: str) -> int:
    value = int(text)
    if abs(value) > SAFE_INTEGER:
        raise ValueError("a number too large")
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > SAFE_INTEGER:
        raise ValueError("a number too large")
    return value
