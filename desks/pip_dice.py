"""Game night's dice reader: the glue between the overhead camera's pip reader and the table.

While game night runs, a watcher thread waits for each throw of ordinary dice to come to rest
under a live camera, reads the dice (value and colour) and gives the reading to the table as a
``ReadDice`` (journalled like any action, then said and shown). A reading in which no die moved
(a hand passing over the tray) or with no dice (the tray emptied) is refused by the engine and
passes unsaid. The host can also read the table at once (``read_now``): that is how a still
source (photos, the generated camera of simulation) is read, and how a bad reading is taken
again. In simulation the generated camera throws new dice before each reading: five dice
first, then some of them thrown again, so the re-roll detection has work to do.

The picture of the last reading is kept for the page (``jpeg``); its description, with the
number of the throw it shows, goes into the table's public snapshot. A camera that is missing or
stops never stops the evening: the table is told once, the dice can be typed on the page, and
a camera that stopped is picked up again when it returns (``desks.camera_loss``).
"""

from __future__ import annotations

import logging
import random
import threading
from typing import Any

from companion.game import IllegalAction
from companion.games.night.dice import PipDie
from companion.games.night.state import ReadDice
from companion.journal import JournalError
from companion.moderator import NoGame, Table
from desks.camera_loss import RETRY, until_back

log = logging.getLogger(__name__)

FIRST_THROW = 5  # dice in simulation's first throw
QUIET_REFUSALS = frozenset({"night_dice_unchanged", "night_no_dice"})


class DiceDesk:
    """Reads ordinary dice for ``table``'s game night with ``camera`` (a
    ``vision.throws.ThrowCamera``, or None), through ``reader`` (the pip reader with colours
    unless given); ``generated``: simulation's ``GeneratedPipSource``, thrown before each read."""

    def __init__(
        self,
        table: Table,
        camera: Any,
        reader: Any = None,
        generated: Any = None,
        seed: int | None = None,
    ) -> None:
        if reader is None:
            from vision.die_colors import read_pips_in_color

            reader = read_pips_in_color
        self.table = table
        self.camera = camera
        self.reader = reader
        self.generated = generated
        self.retry = RETRY  # seconds between two tries of a camera that stopped
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._count = 0
        self._watched: int | None = None  # the game a watcher runs (or ran) for
        self._stop = threading.Event()
        self._unsubscribe = table.subscribe(self._on_snapshot)

    @property
    def jpeg(self) -> bytes | None:
        """The picture of the last reading (JPEG), or None."""
        with self._lock:
            return self._jpeg

    # -- reading ------------------------------------------------------------------------------

    def read_now(self) -> ReadDice:
        """Read the dice on the table now and give them to the table. Raises ``NoGame``,
        ``IllegalAction`` (not game night, or no die moved), ``CameraUnavailable`` or
        ``UnreadableFrame``; in every such case nothing changed."""
        self.table.playing("night", "no_throw_in_this_game")
        if self.camera is None:
            from vision.sources import CameraUnavailable

            raise CameraUnavailable(self.table.text("camera.missing"))
        if self.generated is not None:
            self._throw_generated()
        return self.give(self.camera.read_now(reader=self.reader))

    def give(self, picture: Any) -> ReadDice:
        """Give a reading (a ``vision.throws.ThrowPicture``) to the table, and show it."""
        action = ReadDice(tuple(_die(r) for r in picture.dice))
        self.table.submit(action)
        running = self.table.running
        number = len(running.state.throws) if running is not None else 0
        with self._lock:
            self._jpeg = picture.jpeg
            self._count += 1
            count = self._count
        shown = picture.placement(f"/api/dice.jpg?n={count}")
        self.table.show_picture({**shown, "throw": number})  # the throw it shows
        return action

    def _throw_generated(self) -> None:
        """Simulation: a first throw of five dice, then a random part of the camera's last
        throw thrown again (all of it, now and then)."""
        last = len(self.generated.last_truth)
        if not last or self._rng.random() < 0.25:
            self.generated.throw(last or FIRST_THROW)
            return
        again = self._rng.sample(range(last), self._rng.randint(1, last))
        self.generated.throw(last, sorted(again))

    # -- watching -----------------------------------------------------------------------------

    def _on_snapshot(self, snap: dict[str, Any]) -> None:
        """Called by the table (under its lock) after every change: start a watcher when game
        night starts (or resumes) under a live camera. Never blocks."""
        if snap.get("game") != "night" or (snap.get("state") or {}).get("closed"):
            self._stop.set()
            return
        game_id = int(snap["game_id"])
        if game_id == self._watched or self.camera is None or self.camera.still:
            return
        self._watched = game_id
        self._stop.set()
        self._stop = threading.Event()
        threading.Thread(
            target=self._watch, args=(game_id, self._stop), name="dice-watcher", daemon=True
        ).start()

    def _watch(self, game_id: int, stop: threading.Event) -> None:
        from vision.readings import UnreadableFrame
        from vision.sources import CameraUnavailable

        while not stop.is_set() and self._on(game_id):
            try:
                # stopped (``stop``) when the table turns to another game or the evening ends
                picture = self.camera.wait_for_throw(stop, None, reader=self.reader)
            except CameraUnavailable as exc:
                log.warning("camera: %s", exc)
                if until_back(self.table, self.camera, stop, self.retry):
                    continue
                return
            except UnreadableFrame as exc:
                log.warning("camera: %s", exc)
                self.table.notice(self.table.text("camera.unreadable"))
                return  # said once; the host's "read the dice" tries again
            if picture is None or stop.is_set() or not self._on(game_id):
                continue
            try:
                self.give(picture)
            except IllegalAction as exc:
                if exc.code not in QUIET_REFUSALS:
                    self.table.notice(self.table.explain(exc))
            except (NoGame, JournalError) as exc:
                log.error("dice not recorded: %s", exc)

    def _on(self, game_id: int) -> bool:
        running = self.table.running
        return (
            running is not None
            and running.entry.id == game_id
            and running.game.outcome(running.state) is None
        )

    def close(self) -> None:
        self._stop.set()
        self._unsubscribe()


def _die(reading: Any) -> PipDie:
    return PipDie(
        value=int(reading.value),
        color=reading.color,
        x=round(float(reading.x), 2),
        y=round(float(reading.y), 2),
        size=round(float(reading.size), 2),
        angle=round(float(reading.angle), 1),
        confidence=round(float(reading.confidence), 3),
    )
