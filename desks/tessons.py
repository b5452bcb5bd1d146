"""Ostrakon's votes by camera: the glue between the tesson readers and the table.

With the option ``votes: "camera"`` the philosophers lay real tessons face down and the
companion knows nothing of them until they are turned face up. At each step of the reveal the
engine names the seats whose tessons are shown now (``state.expected``: the asker's on a day of
Corruption, then the named ones', then the rest; or all at once). ``TessonDesk.read_now`` reads
one frame from the overhead camera, finds the face-up tessons and the seat zone each lies in
(the reader of ``[camera] tessons``, ``vision.tesson_net.read_tessons_net`` or
``vision.tessons.read_tessons``, with a ``vision.seats.SeatMap``), and enters those seats'
tessons as one ``Revealed`` action. Tessons of other seats on the frame (those shown at an
earlier step, still lying face up) are not looked at. On a day of Tromperie, once all are shown,
reading again enters the asker's decision: a tesson read in the other colour is a ``Flip``.

What lay on the table before is left out (``vision.table_change``): when a game by camera enters
the reveal (every tesson down, hidden), the desk takes one frame of a live camera, reads it the
same way and keeps it for the turn; each read of that turn (every step of the reveal, the
Tromperie flip) drops the readings of what lay there then, unchanged (a game mat's print, a
cloth's check, a stray tesson). Should that leave an expected seat with nothing where its zone
showed a tesson (one laid face up before the reveal began), that seat's readings are kept as
read. A still source (an image file) has no before: the same frame twice would leave out
everything. Simulation's generated camera gives the same table with the seats' tessons hidden.

Nothing is entered unless every expected seat shows exactly one tesson read with confidence: a
tesson missing, doubled or unsure is said aloud and shown (``table.notice``), and the host reads
again once it is put right. Where an expected seat shows none, the learned reader's faintest
detection in its zone, a candidate (``vision.readings.seat_candidates``), stands for it: shown
on the picture and said unsure, never entered. A missing camera never stops the game: the
tessons can be entered on the host page, as the table reads them out.

Seat zones: a source that knows its own zones (the generated camera of simulation, a test's
frames) gives them as ``seat_map``; otherwise the map given to the desk (``seats.json`` in the
data folder, drawn at calibration); otherwise the frame is shared evenly round its centre, seat 0
facing the right-hand edge (3 o'clock) and the others clockwise on the picture, the middle of the
table (a quarter of the frame's height round its centre) belonging to nobody.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from companion.game import Action, IllegalAction
from companion.games.ostrakon.path import DayRule
from companion.games.ostrakon.state import Flip, OstrakonState, Phase, Revealed, Tesson
from companion.moderator import Table
from vision.readings import seat_candidates

log = logging.getLogger(__name__)

BEFORE_WAIT = 5.0
"""Seconds a read waits for the frame of the table before the reveal still being taken."""


def even_seat_map(players: int, width: int, height: int) -> Any:
    """Zones shared evenly round the frame's centre: seat 0's faces the right-hand edge (3
    o'clock), the others follow clockwise on the picture; the middle of the table is in none."""
    from vision.seats import SeatMap

    step = 360.0 / players
    starts = [(i * step - step / 2) % 360.0 for i in range(players)]
    return SeatMap.by_angles((width / 2, height / 2), starts, inner=height / 4)


class TessonDesk:
    """Reads revealed tessons for ``table`` from ``source`` (a ``vision.sources.FrameSource``,
    or None without a camera) with ``reader`` (``vision.tessons.read_tessons`` unless another
    is given: frame and seat map in, ``TessonReading`` values out)."""

    def __init__(self, table: Table, source: Any, seat_map: Any = None, reader: Any = None) -> None:
        self.table = table
        self.source = source
        self.seat_map = seat_map
        self.reader = reader
        self._lock = threading.Lock()
        self._source_lock = threading.Lock()  # the reveal's reads and the before frame's
        self._jpeg: bytes | None = None
        self._readings: list[Any] = []
        self._turn: tuple[int, int] | None = None  # the turn whose reveal began last
        self._before: tuple[tuple[int, int], Any] | None = None  # that turn's TableBefore
        self._taking: threading.Thread | None = None
        self._unsubscribe = table.subscribe(self._on_snapshot)

    @property
    def jpeg(self) -> bytes | None:
        """The last frame read, annotated with the zones and the tessons seen (JPEG), or None."""
        with self._lock:
            return self._jpeg

    @property
    def readings(self) -> list[Any]:
        """The tessons seen on the last frame read (``vision.readings.TessonReading``)."""
        with self._lock:
            return list(self._readings)

    # -- reading ------------------------------------------------------------------------------

    def read_now(self) -> Action:
        """Read the table now and enter what this step of the reveal shows.

        Raises ``NoGame``, ``IllegalAction`` (not an Ostrakon game by camera, not a time to
        read, a tesson missing, doubled or unsure), ``vision.sources.CameraUnavailable`` or
        ``vision.readings.UnreadableFrame``; in every such case nothing was entered.
        """
        state = self._state()
        seats = self._seats_to_read(state)
        if self.source is None:
            from vision.sources import CameraUnavailable

            raise CameraUnavailable(self.table.text("camera.tessons_missing"))
        self._wait_for_before()
        with self._source_lock:
            frame = self._frame(state)
        zones = self._zones(state.players, frame)
        readings = self._read(frame, zones)
        readings = seat_candidates(self._new_on_table(state, frame, readings, seats), seats)
        self._keep(frame, readings, zones)
        try:
            sides = tessons_of(readings, seats)
        except IllegalAction as refusal:
            self.table.notice(self.table.explain(refusal))
            raise
        action = self._action(state, sides)
        self.table.submit(action)
        return action

    def _read(self, frame: np.ndarray, zones: Any) -> list[Any]:
        from vision.calibration import CalibrationError, detect_markers
        from vision.tessons import off_the_markers, read_tessons
        from vision.white_balance import balanced

        readings = list((self.reader or read_tessons)(balanced(frame), zones))
        with contextlib.suppress(CalibrationError):  # a marker seen twice: nothing left out
            readings = off_the_markers(readings, detect_markers(frame))
        return readings

    # -- the table before the reveal --------------------------------------------------------

    def _on_snapshot(self, snap: dict[str, Any]) -> None:
        """Called by the table (under its lock) after every change: when a turn's reveal
        begins, take the table before it, in a thread of its own. Never blocks."""
        state = snap.get("state") or {}
        if snap.get("game") != "ostrakon" or state.get("phase") != Phase.REVEAL.value:
            return
        turn = (int(snap["game_id"]), int(state["turn"]))
        if turn == self._turn:
            return  # a later step of the same reveal: the before frame is the turn's first
        self._turn = turn
        from vision.throws import STILL_SOURCES

        generated = callable(getattr(self.source, "before", None))
        if self.source is None or (isinstance(self.source, STILL_SOURCES) and not generated):
            return  # no camera, or a still one: the same frame twice is no before
        self._taking = threading.Thread(
            target=self._take_before, args=(turn,), name="tessons-before", daemon=True
        )
        self._taking.start()

    def _take_before(self, turn: tuple[int, int]) -> None:
        from vision.readings import UnreadableFrame
        from vision.sources import CameraUnavailable
        from vision.table_change import TableBefore

        try:
            running = self.table.running
            if running is None or running.entry.id != turn[0]:
                return
            players = running.state.players
            with self._source_lock:
                before = getattr(self.source, "before", None)  # the generated camera's
                frame = before(players, turn) if callable(before) else self.source.read()
            readings = self._read(frame, self._zones(players, frame))
        except (CameraUnavailable, UnreadableFrame, OSError, ValueError) as exc:
            log.warning("tessons: no frame of the table before the reveal: %s", exc)
            return
        self._before = (turn, TableBefore.of(frame, readings))

    def _wait_for_before(self) -> None:
        taking = self._taking
        if taking is not None and taking is not threading.current_thread():
            taking.join(BEFORE_WAIT)

    def _new_on_table(
        self, state: OstrakonState, frame: np.ndarray, readings: list[Any], seats: Sequence[int]
    ) -> list[Any]:
        """``readings`` without what lay on the table before this turn's reveal (the module's
        docstring), an expected seat that would be left with nothing keeping its own."""
        running = self.table.running
        before = self._before
        if before is None or running is None or before[0] != (running.entry.id, state.turn):
            return readings
        new = before[1].new_on_table(readings, frame)
        sure = [r for r in readings if not r.candidate]  # a faint one left out stays out
        emptied = {r.seat for r in sure if r.seat in seats} - {r.seat for r in new}
        kept = [r for r in readings if r in new or (r in sure and r.seat in emptied)]
        if len(kept) < len(readings):
            log.info(
                "tessons: %d reading(s) of the table itself left out", len(readings) - len(kept)
            )
        return kept

    def _state(self) -> OstrakonState:
        state = self.table.playing("ostrakon", "no_tessons_in_this_game").state
        assert isinstance(state, OstrakonState)
        if not state.options.camera:
            raise IllegalAction("votes_by_buttons")
        return state

    @staticmethod
    def _seats_to_read(state: OstrakonState) -> tuple[int, ...]:
        if state.phase is Phase.REVEAL:
            return state.expected
        if state.phase is Phase.FLIP and state.day_rule is DayRule.TROMPERIE:
            assert state.asker is not None
            return (state.asker,)
        raise IllegalAction("no_reveal_now", phase=state.phase.value)

    @staticmethod
    def _action(state: OstrakonState, sides: Mapping[int, bool]) -> Action:
        if state.phase is Phase.FLIP:
            asker = state.asker
            assert asker is not None
            return Flip(asker, sides[asker] != state.votes[asker])
        return Revealed(tuple(Tesson(seat, white) for seat, white in sorted(sides.items())))

    def _frame(self, state: OstrakonState) -> np.ndarray:
        show = getattr(self.source, "show", None)
        running = self.table.running
        if callable(show) and running is not None:  # the generated camera: one scene a turn
            show(state.players, (running.entry.id, state.turn))
        frame = self.source.read()
        assert isinstance(frame, np.ndarray)
        return frame

    def _zones(self, players: int, frame: np.ndarray) -> Any:
        own = getattr(self.source, "seat_map", None)
        if own is not None:
            return own
        if self.seat_map is not None:
            return self.seat_map
        height, width = frame.shape[:2]
        return even_seat_map(players, width, height)

    def _keep(self, frame: np.ndarray, readings: list[Any], zones: Any) -> None:
        import cv2

        from vision.tessons import annotate_tessons

        ok, data = cv2.imencode(".jpg", annotate_tessons(frame, readings, zones))
        with self._lock:
            self._readings = list(readings)
            self._jpeg = bytes(data) if ok else None

    def close(self) -> None:
        """Stop listening to the table. The source is the camera's owner's to close (it may be
        shared with the dice)."""
        self._unsubscribe()


def tessons_of(readings: Sequence[Any], seats: Sequence[int]) -> dict[int, bool]:
    """Each expected seat's tesson (True: white) from a frame's readings, or a refusal naming
    the first seat whose tesson is missing, doubled or unsure. Other seats are not looked at."""
    out: dict[int, bool] = {}
    for seat in seats:
        mine = [r for r in readings if r.seat == seat]
        if not mine:
            raise IllegalAction("tesson_not_seen", seat=seat)
        if len(mine) > 1:
            raise IllegalAction("tessons_doubled", seat=seat, count=len(mine))
        if mine[0].flagged:
            raise IllegalAction("tesson_unsure", seat=seat)
        out[seat] = mine[0].side == "white"
    return out


class GeneratedTessonSource:
    """Simulation's camera for Ostrakon: a generated frame of the table (``vision.synthetic.
    tesson_scene``) with a tesson face up in front of every seat, white or black at random, one
    scene a turn (the same scene for every step of a turn, as shown tessons stay face up). It
    knows its own seat zones (``seat_map``)."""

    def __init__(self, seed: int = 0, resolution: tuple[int, int] = (1280, 720)) -> None:
        self.seed = seed
        self.resolution = resolution
        self._key: tuple[int, Any] | None = None
        self._scene: Any = None
        self.description = f"generated tessons (seed {seed})"

    def show(self, players: int, key: Any) -> None:
        if self._key == (players, key):
            return
        from vision.synthetic import tesson_scene

        width, height = self.resolution
        self._scene = tesson_scene(
            self._seed(players, key), seats=players, width=width, height=height
        )
        self._key = (players, key)

    def before(self, players: int, key: Any) -> np.ndarray:
        """The frame of the table of turn ``key`` before its reveal: the same table, every
        seat's tesson still hidden."""
        from vision.synthetic import tesson_scene

        self.show(players, key)  # its seat zones are the turn's
        width, height = self.resolution
        seed = self._seed(players, key)
        image = tesson_scene(seed, seats=players, width=width, height=height, before=True).image
        assert isinstance(image, np.ndarray)
        return image

    def _seed(self, players: int, key: Any) -> int:
        return hash((self.seed, players, key)) % 2**31

    @property
    def seat_map(self) -> Any:
        return None if self._scene is None else self._scene.seats

    @property
    def last_truth(self) -> Any:
        return None if self._scene is None else self._scene.tessons

    def read(self) -> np.ndarray:
        if self._scene is None:
            self.show(5, None)
        image = self._scene.image
        assert isinstance(image, np.ndarray)
        return image

    def close(self) -> None:
        self._scene = None
