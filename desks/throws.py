"""Oraklos throws from the overhead camera: the glue between ``vision.throws`` and the table.

When the table awaits a throw, a watcher thread waits for the dice to be thrown and to settle,
reads them and gives the reading to the table as a ``ThrowDice`` (journalled like any action).
The host can also read the table at once (``read_now``): that is how a throw is taken from a
still source (an image file or folder, the generated camera of simulation), and how a bad
reading is taken again. What lay on the table already, unchanged, before the throw (a cloth's
check, a mat's print) is left out (``ThrowCamera``'s ``new_only``), but for a colour it would
leave short of what the cup held. The picture of the last reading is kept for the page, and its
description (where to fetch it, how table units map to its pixels) goes into the table's
public snapshot: the dice lie face up, nothing in it is secret.

A camera that is missing or stops never stops the game: the table is told, the host page offers
to enter the throw by hand, and a camera that stopped is picked up again when it returns
(``desks.camera_loss``).
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any

from companion.game import IllegalAction
from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.state import (
    COLORS,
    CUP_PER_ROUND,
    DICE_PER_COLOR,
    LEFT_ON_TABLE,
    Phase,
    ThrowDice,
)
from companion.journal import JournalError
from companion.moderator import NoGame, Table
from desks.camera_loss import RETRY, until_back
from vision.readings import back_where_short, doubt_counts

log = logging.getLogger(__name__)


class ThrowDesk:
    """Watches ``table`` for awaited Oraklos throws and reads them with ``camera``
    (a ``vision.throws.ThrowCamera``, or None when there is no camera)."""

    def __init__(
        self,
        table: Table,
        camera: Any,
        expect: Callable[[Sequence[str]], None] | None = None,
        seed: int | None = None,
    ) -> None:
        self.table = table
        self.camera = camera
        self.expect = expect  # the generated camera of simulation: which dice to show
        self.retry = RETRY  # seconds between two tries of a camera that stopped
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._count = 0
        self._watched: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._unsubscribe = table.subscribe(self._on_snapshot)

    # -- the picture --------------------------------------------------------------------------

    @property
    def jpeg(self) -> bytes | None:
        """The picture of the last reading (JPEG), or None."""
        with self._lock:
            return self._jpeg

    # -- reading ------------------------------------------------------------------------------

    def read_now(self) -> ThrowDice:
        """Read the table now and give the reading to the table (a first reading, or a re-read
        that replaces it before the first claim is judged). Raises ``NoGame``,
        ``IllegalAction`` (not a time to throw), ``vision.sources.CameraUnavailable`` or
        ``vision.readings.UnreadableFrame``; in every such case nothing changed."""
        self.table.playing("oraklos", "no_throw_in_this_game")
        if self.camera is None:
            from vision.sources import CameraUnavailable

            raise CameraUnavailable(self.table.text("camera.missing"))
        return self._give(self.camera.read_now(new_only=True))

    def _give(self, picture: Any) -> ThrowDice:
        running = self.table.running
        known = {} if running is None else thrown_counts(running.state)
        dice = back_where_short(picture.dice, picture.left_out, **known)
        if len(dice) < len(picture.dice) + len(picture.left_out):
            log.info(
                "camera: %d reading(s) of the table itself left out",
                len(picture.dice) + len(picture.left_out) - len(dice),
            )
        action = ThrowDice(tuple(as_die(r) for r in doubt_counts(dice, **known)))
        self.table.submit(action)
        with self._lock:
            self._jpeg = picture.jpeg
            self._count += 1
            count = self._count
        self.table.show_picture(picture.placement(f"/api/throw.jpg?n={count}"))
        return action

    # -- watching -----------------------------------------------------------------------------

    def _on_snapshot(self, snap: dict[str, Any]) -> None:
        """Called by the table (under its lock) after every change: start watching when a new
        throw is awaited. Never blocks."""
        state = snap.get("state") or {}
        if snap.get("game") != "oraklos" or state.get("phase") != Phase.THROW.value:
            return
        key = (int(snap["game_id"]), int(state["round"]))
        if key == self._watched:
            return
        self._watched = key
        if self.camera is None:
            return
        self._prepare_generated()
        if self.camera.still:
            return  # a still source: the host reads it with "read the throw"
        self._stop.set()
        self._stop = threading.Event()
        self._watcher = threading.Thread(
            target=self._watch, args=(key, self._stop), name="throw-watcher", daemon=True
        )
        self._watcher.start()

    def _watch(self, key: tuple[int, int], stop: threading.Event) -> None:
        from vision.readings import UnreadableFrame
        from vision.sources import CameraUnavailable

        while True:
            try:
                picture = self.camera.wait_for_throw(stop, None, new_only=True)
                break
            except CameraUnavailable as exc:
                log.warning("camera: %s", exc)
                if not until_back(self.table, self.camera, stop, self.retry):
                    return
                if not self._awaits(key):
                    return  # back, but the throw was entered by hand meanwhile
            except UnreadableFrame as exc:
                log.warning("camera: %s", exc)
                self.table.notice(self.table.text("camera.unreadable"))
                return
        if picture is None or stop.is_set() or not self._awaits(key):
            return
        try:
            self._give(picture)
        except IllegalAction as exc:
            self.table.notice(self.table.explain(exc))
        except (NoGame, JournalError) as exc:
            log.error("throw not recorded: %s", exc)

    def _awaits(self, key: tuple[int, int]) -> bool:
        running = self.table.running
        if running is None or running.entry.id != key[0]:
            return False
        return running.state.phase is Phase.THROW and running.state.round == key[1]

    def _prepare_generated(self) -> None:
        """Simulation: tell the generated camera which dice the cup holds."""
        running = self.table.running
        if self.expect is None or running is None or running.entry.title != "oraklos":
            return
        self.expect([c.value for c in expected_colors(running.state, self._rng)])

    def close(self) -> None:
        self._stop.set()
        self._unsubscribe()


def thrown_counts(state: Any) -> dict[str, Any]:
    """What the table knows of the throw: how many dice of each colour (``expected``) when the
    companion filled the cup, else only how many dice (``total``); for ``doubt_counts``."""
    if not state.options.unseen_fills:
        return {"expected": {color.value: count for color, count in state.cup.items()}}
    n = state.players
    return {"total": LEFT_ON_TABLE * len(COLORS) + n * CUP_PER_ROUND[n]}


def expected_colors(state: Any, rng: random.Random) -> list[Color]:
    """The colours a throw should show: the cup's dice when the companion knows them; when the
    players filled the cup unseen, as many dice as the cup holds, of random colours (at most
    as many of a colour as the game has)."""
    if not state.options.unseen_fills:
        return [color for color, count in state.cup.items() for _ in range(count)]
    n = state.players
    total = thrown_counts(state)["total"]
    colors = [c for c in COLORS for _ in range(n * DICE_PER_COLOR[n] + LEFT_ON_TABLE)]
    rng.shuffle(colors)
    return colors[:total]


def as_die(reading: Any) -> Die:
    """The referee's die for a camera's reading (a ``vision.readings.DieReading``)."""
    return Die(
        x=round(float(reading.x), 2),
        y=round(float(reading.y), 2),
        size=round(float(reading.size), 2),
        color=Color(reading.color),
        hole=bool(reading.hole),
        angle=round(float(reading.angle), 1),
        confidence=round(float(reading.confidence), 3),
    )
