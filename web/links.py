"""The host's links for phones: each seat's link with its QR code (until the seat's phone
opens it), new links, and the page's own address for phones to open. All the host's alone:
a link is a seat (``web/security.py``: ``HOST_GETS``)."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Blueprint, jsonify, request
from flask.typing import ResponseReturnValue

from companion.game import IllegalAction
from companion.journal import JournalError
from companion.moderator import NoGame
from web.body import json_body
from web.services import services
from web.views import catalog, error, illegal, journal_refused, no_game

QR_SCALE = 4  # a seat's QR code, several on the host's screen
ADDRESS_QR_SCALE = 6  # the page's, alone

blueprint = Blueprint("links", __name__)


@blueprint.get("/api/host/seats")
def host_seats() -> ResponseReturnValue:
    return jsonify(seat_links())


@blueprint.post("/api/host/seats/redeal")
def redeal_seats() -> ResponseReturnValue:
    """New links for every seat: every phone is cut off, so the body must say
    ``{"confirm": true}`` (the page asks the host first)."""
    body = json_body()
    if not (isinstance(body, dict) and body.get("confirm") is True):
        return error(400, catalog().text("errors.redeal_unconfirmed"))
    return redealt(services().table.phones.redeal_all)


@blueprint.post("/api/host/seats/<int:seat>/redeal")
def redeal_seat(seat: int) -> ResponseReturnValue:
    """A new link for one seat (said aloud to the table)."""
    return redealt(lambda: services().table.phones.redeal(seat))


@blueprint.get("/api/host/address")
def host_address() -> ResponseReturnValue:
    """Where phones open the page: by name (mDNS) and by address, and a QR code of the address
    (every phone reaches an address; not every one resolves a .local name)."""
    page_address = services().page_address
    urls, scan = page_address() if page_address is not None else ([], None)
    no_network = page_address is not None and not urls  # every interface, but no address
    if not urls or scan is None:  # no network address known: the one this page was loaded from
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
    qr = segno.make(scan, error="m").svg_inline(scale=ADDRESS_QR_SCALE)
    return jsonify({"reachable": True, "urls": urls, "url": scan, "qr_svg": qr})


def redealt(redeal: Callable[[], object]) -> ResponseReturnValue:
    try:
        redeal()
    except NoGame:
        return no_game()
    except IllegalAction as exc:
        return illegal(exc, 409)
    except JournalError as exc:
        return journal_refused(exc)
    return jsonify(seat_links())


def seat_links() -> list[dict[str, Any]]:
    """Every seat of the running game; a link and its QR code only for the seats whose phone
    has not opened theirs yet (the host is a player too: an opened link is that player's
    alone)."""
    table = services().table
    running = table.running
    if running is None:
        return []
    base = base_url()
    shown = table.phones.links.unopened()
    out = []
    for seat in sorted(table.phones.links.links()):
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


def base_url() -> str:
    """The page's own address, never one taken from the request's ``Host``."""
    page_address = services().page_address
    _urls, scan = page_address() if page_address is not None else ([], None)
    return scan or request.host_url


def on_loopback(url: str) -> bool:
    """Whether ``url`` names this computer alone (127.0.0.1, localhost, ::1): no phone opens it."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: the network's to resolve
        return False
