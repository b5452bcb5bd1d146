"""Seats on phones: one unguessable link per seat, bound to one game.

When a game starts the table mints a token per seat (``secrets.token_urlsafe(24)``: 192 bits);
the phone that opens ``/seat/<token>`` is that seat, first-class and mixable with button seats.
The tokens are kept in the journal's SQLite, so a restart (``Table.resume``) keeps them valid.
They are revoked when the game ends, when a new game starts, and when the host re-deals the
links (all of them, or one seat's). A rematch of the game just ended (``Table.rematch``) takes its
links over, seat for seat (``carry``): each phone keeps its own seat and no other.

A link is shown to the host only until its seat's phone has opened it (``opened``, kept in the
journal too): the host is usually a player, and a link is the seat's identity, vote and hand.
A seat whose link was opened by the wrong phone gets a new one (``redeal``), and the table is
told so aloud: a hijack is never silent.

Looking a token up compares it with every live token in constant time, so that neither the
answer's content nor its timing tells how close a guess came.
"""

from __future__ import annotations

import hmac
import secrets
import threading

from companion.game import Action
from companion.journal import Journal

TOKEN_BYTES = 24


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


class SeatLinks:
    """The live seat tokens of the table's game (none when no game runs)."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._lock = threading.Lock()
        self._game_id: int | None = None
        self._tokens: dict[int, str] = {}
        self._opened: set[int] = set()
        # the last finished game's links, kept (in memory only) until the next game starts: a
        # rematch takes them over, so that each phone keeps its seat without scanning again
        self._spent: tuple[int, dict[int, str], frozenset[int]] | None = None

    def mint(self, game_id: int, seats: int) -> dict[int, str]:
        """New tokens for every seat of ``game_id``; every earlier token stops working. Written
        to the journal before use (raises JournalError, and then the old ones are kept)."""
        tokens = {seat: new_token() for seat in range(seats)}
        with self._lock:
            self._journal.save_seat_tokens(game_id, tokens)
            self._game_id, self._tokens, self._opened = game_id, tokens, set()
            self._spent = None
        return dict(tokens)

    def carry(self, finished: int, game_id: int, seats: int) -> bool:
        """Give ``game_id`` (a rematch) the links the game ``finished`` had when it ended, seat
        for seat, opened ones still opened: True if done; False (nothing changed) when they are
        gone (another game began since, or a restart) or the seats differ."""
        with self._lock:
            spent = self._spent
            if spent is None or spent[0] != finished or set(spent[1]) != set(range(seats)):
                return False
            _, tokens, opened = spent
            self._journal.save_seat_tokens(game_id, tokens, opened)
            self._game_id, self._tokens, self._opened = game_id, dict(tokens), set(opened)
            self._spent = None
            return True

    def redeal(self, seat: int) -> None:
        """A new link for ``seat`` alone (its old one stops working), not yet opened."""
        with self._lock:
            if self._game_id is None or seat not in self._tokens:
                raise KeyError(seat)
            tokens = {**self._tokens, seat: new_token()}
            opened = frozenset(self._opened - {seat})
            self._journal.save_seat_tokens(self._game_id, tokens, opened)
            self._tokens, self._opened = tokens, set(opened)

    def opened(self, seat: int) -> bool:
        """Mark ``seat``'s link as opened by its phone: True the first time (then kept in the
        journal), False after."""
        with self._lock:
            if self._game_id is None or seat in self._opened or seat not in self._tokens:
                return False
            opened = frozenset(self._opened | {seat})
            self._journal.save_seat_tokens(self._game_id, self._tokens, opened)
            self._opened.add(seat)
            return True

    def load(self, game_id: int) -> None:
        """The tokens kept for ``game_id`` (after a restart)."""
        tokens = self._journal.seat_tokens(game_id)
        opened = self._journal.opened_seats(game_id)
        with self._lock:
            self._game_id, self._tokens, self._opened = game_id, tokens, set(opened)
            self._spent = None

    def revoke(self) -> None:
        """The game has ended: its links open nothing now (a rematch may take them over)."""
        with self._lock:
            game_id, tokens = self._game_id, self._tokens
            if game_id is not None:
                self._spent = (game_id, tokens, frozenset(self._opened))
            self._game_id, self._tokens, self._opened = None, {}, set()
        if game_id is not None:
            self._journal.save_seat_tokens(game_id, {})

    def seat_for(self, token: object) -> int | None:
        """The seat ``token`` opens, or None (unknown, revoked, or another game's)."""
        if not isinstance(token, str):
            return None
        given = token.encode("utf-8", "replace")
        with self._lock:
            live = list(self._tokens.items())
        found: int | None = None
        for seat, expected in live:  # no early exit: every token is compared
            if hmac.compare_digest(expected.encode("ascii"), given) and found is None:
                found = seat
        return found

    def links(self) -> dict[int, str]:
        """Every live link (the companion's own use: never for a page as it is)."""
        with self._lock:
            return dict(self._tokens)

    def unopened(self) -> dict[int, str]:
        """The links the host may still see: those no phone has opened yet."""
        with self._lock:
            return {s: t for s, t in self._tokens.items() if s not in self._opened}

    def phones(self) -> list[int]:
        """The seats whose phone has opened its link."""
        with self._lock:
            return sorted(self._opened)

    @property
    def game_id(self) -> int | None:
        with self._lock:
            return self._game_id


def actor(action: Action) -> int | None:
    """The seat an action is taken by: its ``seat`` field, else its ``commander`` (a squad
    proposed, a plot card handed, Establish Confidence), else none (a table action: the
    night's end, a throw read by the camera... which no phone may send)."""
    for name in ("seat", "commander"):
        value = getattr(action, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None
