"""The seats on phones, as the table serves them: the seats' part of ``Table``.

A phone holds its seat's link (``SeatLinks``, in ``companion.seats_online``); ``Phones`` answers
it: the seat its token opens, what that seat may see (the public snapshot, its own private view
and a refusal meant for it alone), the actions it sends (for itself alone), and the host's
re-deals of the links. It reaches the game through the table (``AtTable``), under the table's
lock, so that what a phone is shown is composed at one instant.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from companion.broadcast import Broadcast
from companion.game import JSON, Action, Event, IllegalAction
from companion.journal import Journal
from companion.playing import Running
from companion.seats_online import SeatLinks, actor


class AtTable(Protocol):
    """What the phones need of the table."""

    @property
    def running(self) -> Running[Any, Any] | None: ...

    def require(self) -> Running[Any, Any]: ...

    def live(self) -> Running[Any, Any]: ...

    def snapshot(self) -> JSON: ...

    def submit(self, action: Action) -> list[Event]: ...

    def notice(self, text: str) -> None: ...

    def publish(self) -> None: ...


class Phones:
    def __init__(
        self, table: AtTable, lock: threading.RLock, journal: Journal, pages: Broadcast
    ) -> None:
        self._table = table
        self._lock = lock
        self._pages = pages
        self.links = SeatLinks(journal)
        self._notes: dict[int, str] = {}  # a refusal for one seat's own page alone

    def seat_for(self, token: object) -> int | None:
        """The seat a phone's token opens in the running game, or None."""
        with self._lock:
            running = self._table.running
            if running is None or self.links.game_id != running.entry.id:
                return None
            return self.links.seat_for(token)

    def open(self, token: object) -> int | None:
        """The seat ``token`` opens, marked as opened by its phone: from now on its link is no
        longer shown to the host. None for a token that opens no seat."""
        with self._lock:
            seat = self.seat_for(token)
            if seat is not None and self.links.opened(seat):
                self._table.publish()  # the host's list of links, and the phones joined, change
            return seat

    def view(self, token: object) -> JSON | None:
        """What the phone holding ``token`` may see, composed at one instant: the public
        snapshot and that seat's own private view. None for a token that opens no seat."""
        with self._lock:
            seat = self.seat_for(token)
            running = self._table.running
            if seat is None or running is None:
                return None
            return {
                "seat": seat,
                "name": running.catalog.name(seat),
                "public": self._table.snapshot(),
                "private": self.private(seat),
                "notice": self._notes.get(seat),
            }

    def private(self, seat: int) -> JSON:
        """``seat``'s own view of the running game (raises NoGame without one)."""
        with self._lock:
            running = self._table.require()
            return running.game.private_view(running.state, seat)

    def submit(self, seat: int, action: Action) -> list[Event]:
        """An action sent from ``seat``'s phone: refused unless the seat it acts for is
        ``seat`` (``IllegalAction("not_your_seat")``). Then exactly as ``Table.submit``."""
        if actor(action) != seat:
            raise IllegalAction("not_your_seat", seat=seat)
        return self._table.submit(action)

    def tell(self, seat: int, text: str) -> None:
        """Show ``text`` on ``seat``'s own page alone (never said, never on a public page)."""
        with self._lock:
            self._notes[seat] = text
            self._pages.wake_private()

    def forget_notes(self) -> None:
        """The game moved on: the refusals told to the seats are stale."""
        self._notes.clear()

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """``listener()`` is called when something only a seat's own page shows may have
        changed (the public snapshot did not)."""
        return self._pages.subscribe_private(listener)

    def redeal_all(self) -> dict[int, str]:
        """New links for every seat of the running game (the host's "re-deal links"): the old
        ones stop working at once, and their pages are told so."""
        with self._lock:
            running = self._ongoing()
            players = int(running.game.public_view(running.state).get("players", 0))
            tokens = self.links.mint(running.entry.id, players)
            self._table.notice(running.catalog.text("general.links_redealt"))
            return tokens

    def redeal(self, seat: int) -> None:
        """A new link for ``seat`` alone (the host's "new link" for a seat whose link was lost
        or opened by the wrong phone): its old link stops working, and the table is told aloud
        and on the page, so that taking a seat over is never silent."""
        with self._lock:
            running = self._ongoing()
            if seat not in self.links.links():
                raise IllegalAction("no_seat_link", number=seat + 1)
            self.links.redeal(seat)
            self._table.notice(running.catalog.text("general.link_redealt", seat=seat))

    def _ongoing(self) -> Running[Any, Any]:
        running = self._table.live()
        if running.over:
            raise IllegalAction("game_over")  # its links were spent when it ended
        return running
