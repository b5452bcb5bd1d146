"""The table's hourglass: at most one countdown, on the move the game awaits under it (a move of
Les 7 Sages, a turn of game night's timer).

The table says which move is awaited after each change (``follow``); the hourglass starts a
countdown, lets the one running go on (the same game and the same ``Timed.key``), or stops it.
It warns at ``WARNINGS`` seconds left and sends the awaited ``Timed.expire`` when the sand has
run out, through the table's own callbacks; each is handed a ``still()`` that the table checks
under its lock: False once that countdown was stopped or replaced, so that a late timer acts on
nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from companion.game import JSON, Action
from companion.game_rules import Timed
from companion.timers import Cancel, Clock

WARNINGS = (30, 10)  # seconds left when the voice warns the player to move

Still = Callable[[], bool]


@dataclass
class _Sand:
    """The countdown running now: its game, what it awaits, when it ends (wall clock), and how
    to stop its timers."""

    game_id: int
    timed: Timed
    ends_at: float
    cancels: list[Cancel]


class Hourglass:
    """``clock`` (read when a countdown starts: a test may swap the table's) runs the timers;
    ``wall_clock`` dates the end shown on the pages; ``warn(still, seat, seconds_left)`` and
    ``expire(still, action)`` are called from the clock's thread."""

    def __init__(
        self,
        clock: Callable[[], Clock],
        wall_clock: Callable[[], float],
        warn: Callable[[Still, int, int], None],
        expire: Callable[[Still, Action], None],
    ) -> None:
        self._clock, self._wall_clock = clock, wall_clock
        self._warn, self._expire = warn, expire
        self._sand: _Sand | None = None

    def follow(self, game_id: int, timed: Timed | None) -> None:
        """The move awaited now under the hourglass in game ``game_id`` (None: none): a new
        countdown, unless the one running is the same game's with the same key."""
        sand = self._sand
        if (
            sand is not None
            and timed is not None
            and timed.key is not None
            and (sand.game_id, sand.timed) == (game_id, timed)
        ):
            return
        self.stop()
        if timed is None:
            return
        sand = _Sand(game_id, timed, self._wall_clock() + timed.seconds, [])

        def still() -> bool:
            return self._sand is sand

        clock = self._clock()
        for left in WARNINGS:
            if left < timed.seconds:
                warn = functools.partial(self._warn, still, timed.seat, left)
                sand.cancels.append(clock.call_later(timed.seconds - left, warn))
        expire = functools.partial(self._expire, still, timed.expire)
        sand.cancels.append(clock.call_later(timed.seconds, expire))
        self._sand = sand

    def stop(self) -> None:
        if self._sand is not None:
            for cancel in self._sand.cancels:
                cancel()
        self._sand = None

    def left(self) -> float | None:
        """The seconds left of the running countdown (at least 0.1, at most its whole), or
        None when none runs."""
        sand = self._sand
        if sand is None:
            return None
        return min(sand.timed.seconds, max(0.1, sand.ends_at - self._wall_clock()))

    def view(self) -> JSON | None:
        """What the pages show of it: whose move, how long, and when it ends (wall clock)."""
        sand = self._sand
        if sand is None:
            return None
        return {"seat": sand.timed.seat, "seconds": sand.timed.seconds, "ends_at": sand.ends_at}
