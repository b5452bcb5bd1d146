"""What the routes work with: one ``Services`` object per app, kept in
``app.extensions["companion"]`` and read with ``services()`` during a request.

Every blueprint (``web/public.py``, ``web/host.py``...) reaches the table, the SSE broadcaster,
the host lock and the devices through it, never through a closure: a blueprint is a module
that can be read, and registered on any number of apps (each test builds its own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from flask import Flask, current_app

from companion.moderator import Table
from companion.seat_input import Press
from web.auth import HostLock, Hush
from web.sse import Broadcaster

KEY = "companion"

Addresses = tuple[list[str], str | None]  # the page's addresses, and the one to scan


class Desk(Protocol):
    """A camera desk (``desks/throws.py``, ``tessons.py``, ``pip_dice.py``): reads the
    table when asked, and keeps the picture of its last reading."""

    @property
    def jpeg(self) -> bytes | None: ...

    def read_now(self) -> object: ...


class Panel(Protocol):
    """The virtual button panel of simulation (``hardware/virtual_panel.py``)."""

    def press(self, press: Press) -> None: ...


class Shutdown(Protocol):
    """``companion/power.py``: stop cleanly, then power off."""

    def request(self, by: str) -> bool: ...


def no_names() -> Iterable[str]:
    return ()


@dataclass(frozen=True)
class Services:
    """The companion's parts the web layer may use. ``panel``, ``leds`` and the desks are None
    where the table has none (no simulation, no camera); ``page_address`` None when the page's
    address is not known (then the request's own is shown)."""

    table: Table
    broadcaster: Broadcaster
    lock: HostLock
    shutdown: Shutdown
    panel: Panel | None = None
    leds: Callable[[], list[bool | None]] | None = None
    throws: Desk | None = None
    tessons: Desk | None = None
    dice: Desk | None = None
    page_address: Callable[[], Addresses] | None = None
    own_names: Callable[[], Iterable[str]] = no_names
    hush: Hush = field(default_factory=Hush)  # the app's refusal log, once a minute per kind


def install(app: Flask, parts: Services) -> None:
    app.extensions[KEY] = parts


def services() -> Services:
    """The running app's services (inside a request or an app context)."""
    parts = current_app.extensions[KEY]
    assert isinstance(parts, Services)
    return parts
