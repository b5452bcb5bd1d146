"""What leaves the web layer, for the table or for one seat: the one place every blueprint
answers through.

A view of the game comes from the table and from nowhere else: the public snapshot
(``Table.snapshot``) for anyone, a seat's own view (``Phones.view``: that snapshot and the
seat's private view, composed at one instant) for the phone holding its link, and the SSE
streams of the same. A refusal is worded here too: the table words an illegal action for whoever
may read it (``Table.refusal_for``: a refusal meant for one seat is worded for that seat's own
page alone), a journal that cannot write (``Table.refusal``), and the catalog's errors, in the
table's language. No blueprint builds a view, or words a refusal of the game, itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Response, jsonify, make_response, request
from flask.typing import ResponseReturnValue

from companion.game import IllegalAction
from companion.journal import JournalError
from companion.moderator import NoGame
from companion.narration.catalog import Catalog
from web.services import services
from web.sse import Pool, Refusal, Slot, StreamRefused

JSON = dict[str, Any]
Answer = tuple[Response, int]

STREAM_REFUSALS = {Refusal.DEVICE: "errors.streams_device", Refusal.FULL: "errors.streams_full"}


# -- words and errors -----------------------------------------------------------------------------


def catalog() -> Catalog:
    """The table's language (without building a snapshot: refusals come in floods)."""
    table = services().table
    running = table.running
    return Catalog(running.catalog.lang if running else table.default_language)


def language() -> str:
    return catalog().lang


def running_title() -> str | None:
    """The running game's title (``resistance``...), or None: public, like the page's."""
    running = services().table.running
    return None if running is None else running.entry.title


def error(status: int, message: str) -> Answer:
    return jsonify({"error": message}), status


def bad_request(detail: str) -> Answer:
    return error(400, catalog().text("errors.malformed", detail=detail))


def no_game() -> Answer:
    return error(409, catalog().text("errors.no_game"))


def no_seat() -> Answer:
    """The one answer to every token that opens no seat: unknown, revoked, another game's."""
    return error(404, catalog().text("errors.seat_link_invalid"))


def illegal(exc: IllegalAction, status: int) -> Answer:
    """An action refused, worded for the host page and the table (never a seat's secret)."""
    return error(status, services().table.refusal_for(exc))


def journal_refused(exc: JournalError) -> Answer:
    """The journal could not take it (a full or read-only disk): said in the table's words."""
    return error(503, services().table.refusal(exc))


def start_refused(exc: IllegalAction, language: str | None) -> Answer:
    """A new game refused: a running one (409, in the table's language, naming its game), or
    the set-up's own mistakes, in the language chosen for the new game."""
    table = services().table
    if exc.code == "game_running":
        running = {"id": exc.params["id"], "game": exc.params["game"]}
        return jsonify({"error": table.refusal_for(exc), "running": running}), 409
    words = Catalog(language) if language is not None else None
    return error(400, words.explain(exc) if words else table.refusal_for(exc))


def seat_refused(exc: IllegalAction, token: str, seat: int) -> Answer:
    """A seat's own action refused. A refusal meant for this seat alone (``private_to``) is
    answered here and nowhere else, and the seat's link is then opened (what only this seat may
    read went to the phone holding it)."""
    table = services().table
    private = exc.params.get("private_to") == seat
    if private:
        table.phones.open(token)
    return jsonify({"error": table.refusal_for(exc, seat), "private": private}), 400


def carried_out(do: Callable[[], object]) -> Answer:
    """Do a change of the table's, and answer with the public snapshot after it, or with why it
    was refused."""
    # vision (and OpenCV) is loaded with the first reading answered, not with the web app
    from vision.readings import UnreadableFrame
    from vision.sources import CameraUnavailable

    try:
        do()
    except IllegalAction as exc:
        return illegal(exc, 400)
    except NoGame:
        return no_game()
    except (CameraUnavailable, UnreadableFrame) as exc:
        return error(503, str(exc))
    except JournalError as exc:
        return journal_refused(exc)
    return public_state()


# -- views ----------------------------------------------------------------------------------------


def snapshot() -> JSON:
    """The public snapshot: what anyone may see."""
    return services().table.snapshot()


def public_state(status: int = 200) -> Answer:
    return jsonify(snapshot()), status


def seat_view(token: str) -> JSON | None:
    """The seat's own view, for the phone holding ``token``: its link is now opened (no longer
    shown to the host). None for a token that opens no seat."""
    table = services().table
    return table.phones.view(token) if table.phones.open(token) is not None else None


def after_seat_move(token: str, seat: int) -> JSON:
    """The seat's view after its move; a move that ended the game spent the link: then the
    public snapshot only, and ``gone``. The seat's link is now opened."""
    view = seat_view(token)
    if view is None:
        return {"seat": seat, "public": snapshot(), "private": None, "gone": True}
    return view


# -- live streams ---------------------------------------------------------------------------------


def public_stream(pool: Pool, key: str) -> Response:
    """The public snapshots, live, from ``pool``'s place for ``key``."""
    return _live_stream(pool, key, services().broadcaster.stream)


def seat_stream(token: str) -> ResponseReturnValue:
    """The seat's own views, live (the seat's pool, keyed by its link); its link is now opened.
    ``no_seat()`` for a token that opens no seat."""
    parts = services()
    if parts.table.phones.open(token) is None:
        return no_seat()

    def opened(slot: Slot) -> Iterable[str]:
        return parts.broadcaster.stream_views(lambda: parts.table.phones.view(token), slot)

    return _live_stream(Pool.SEAT, token, opened)


def _live_stream(pool: Pool, key: str, opened: Callable[[Slot], Iterable[str]]) -> Response:
    """An SSE answer from ``pool``'s place for ``key``, or at once 503 with ``Retry-After``
    when the pool refuses one: a refused stream never holds a thread."""
    broadcaster = services().broadcaster
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
