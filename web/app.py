"""The Flask application: pages and JSON API over one ``Table``, one blueprint per audience
and desk, assembled by ``create_app``.

- ``web/public.py``: anyone: the table's page, the public state and its stream;
- ``web/rules.py``: anyone: the rules summaries;
- ``web/login.py``: the host page and the host's sessions (PIN login, logout);
- ``web/host.py``: the host's controls of the game (start, rematch, act, undo, the hourglass,
  the record, shutting down);
- ``web/links.py``: the host's links for phones (each seat's, the page's address);
- ``web/seat.py``: a seat's phone, by its link;
- ``web/desks.py``: the camera desks (read the table now; the pictures);
- ``web/panel.py``: the virtual button panel of simulation;
- ``web/eleusis.py``: the Eleusis rule checker.

They reach the table and the devices through one ``Services`` object (``web/services.py``),
answer through ``web/views.py`` (the only place that decides what leaves for the table or for
one seat, and words a refusal), and are guarded by ``web/security.py`` (who may do what:
``docs/SECURITY.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from flask import Blueprint, Flask

from companion.games.resistance.plot import FULL_DECK
from companion.moderator import Table
from web import desks, eleusis, host, links, login, panel, public, rules, seat, security
from web.auth import HostLock
from web.body import MAX_BODY, MAX_TEXT, TextTooLong, json_body
from web.eleusis import eleusis_report
from web.links import on_loopback
from web.pages import labels
from web.security import host_name
from web.services import Addresses, Desk, Panel, Services, Shutdown, install, no_names
from web.sse import Broadcaster

__all__ = [
    "BLUEPRINTS",
    "MAX_BODY",
    "MAX_TEXT",
    "TextTooLong",
    "create_app",
    "eleusis_report",
    "host_name",
    "json_body",
    "labels",
    "on_loopback",
]

BLUEPRINTS: tuple[Blueprint, ...] = (
    public.blueprint,
    rules.blueprint,
    login.blueprint,
    host.blueprint,
    links.blueprint,
    seat.blueprint,
    desks.blueprint,
    panel.blueprint,
    eleusis.blueprint,
)


def create_app(
    table: Table,
    broadcaster: Broadcaster,
    panel: Panel | None = None,
    leds: Callable[[], list[bool | None]] | None = None,
    throws: Desk | None = None,
    tessons: Desk | None = None,
    lock: HostLock | None = None,
    dice: Desk | None = None,
    *,
    shutdown: Shutdown,
    page_address: Callable[[], Addresses] | None = None,
    own_names: Callable[[], Iterable[str]] = no_names,
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
    install(
        app,
        Services(
            table=table,
            broadcaster=broadcaster,
            lock=lock,
            shutdown=shutdown,
            panel=panel,
            leds=leds,
            throws=throws,
            tessons=tessons,
            dice=dice,
            page_address=page_address,
            own_names=own_names,
        ),
    )
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    security.install(app, lock)
    return app
