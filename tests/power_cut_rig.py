"""Power cuts at random moments of random games of every title (issue 12), against a real
``companion serve`` (tests/serving.py): the shared rig of ``benchmarks/power_cuts.py`` (100 cuts)
and ``tests/test_power_cuts.py`` (a few per title, in CI). Not a test module itself.

The rig plays random legal moves through ``POST /api/act`` as the host, and beside the server
keeps the *uncut run*: the same accepted actions applied in-process to the engine, from the
game's options and seed as journalled. Every so many moves (a random number) it cuts the power
(SIGKILL), either between two requests or while one is in flight (a POST fired from a thread,
the kill 0-20 ms later), restarts the server and checks:

- the journal holds exactly the accepted actions, in order: every action whose answer came back
  2xx, the engine's own (Résistance's end of the night), and the one in flight at most once,
  or not at all if no answer came back;
- the resumed public state (``GET /api/state``) is the uncut run's public view, and the exported
  record (``GET /api/record``) is the uncut run's, line for line, and replays
  (``companion.record.replay``) to the same state. (A record leaves out what is still secret,
  such as the votes of a turn still open, so its replay is the public state only at moments
  when nothing is hidden.)

A move the companion would make by itself would be a move the rig did not send: the hourglasses
stay off (Les 7 Sages without one, game night's turn timer at an hour or more, never paused
under half an hour) and nobody plays against the companion.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import resistance_play
from serving import Server, start_server
from test_eleusis_games import choose as choose_eleusis
from test_night_games import choose as choose_night
from test_oraklos_games import Referee
from test_oraklos_games import choose as choose_oraklos
from test_ostrakon_games import choose as choose_ostrakon
from test_sages_games import pick as pick_sages

from companion.game import Action, IllegalAction
from companion.games.night.state import StartTimer
from companion.games.resistance.state import EndNight
from companion.games.sand import PauseHourglass
from companion.games.titles import GAMES, game_for
from companion.journal import Journal, seed_of
from companion.record import export_lines, replay

TITLES = ("resistance", "oraklos", "ostrakon", "eleusis", "sages", "night")
NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]
# each title's choice of options, and its (fewest, most) players
SETUPS: dict[str, tuple[list[dict[str, Any]], tuple[int, int]]] = {
    "resistance": ([{}, {"identities": "digital", "plot": True}], (5, 10)),
    "oraklos": ([{"mode": "standard"}, {"mode": "junior"}], (2, 5)),
    "ostrakon": ([{}], (5, 8)),
    "eleusis": ([{"level": "easy", "hand_size": 6}], (2, 6)),
    "sages": ([{"target": 2}], (2, 2)),
    "night": ([{}], (1, 8)),
}
MOST_BETWEEN = 15  # the most moves between two cuts
IN_FLIGHT = 0.5  # the share of cuts that land while a request is in flight
LATEST_KILL = 0.020  # seconds: an in-flight request is killed 0 to this long after it is sent
LONG_SAND = 3600  # game night's turn timer: never runs out during a run
SHORTEST_PAUSE = 1800.0  # nor once paused and resumed


def normal(data: Any) -> Any:
    """``data`` as it reads back from JSON."""
    return json.loads(json.dumps(data))


@dataclass
class Tally:
    """One title's figures."""

    games: int = 0
    kills: int = 0
    in_flight: int = 0
    in_flight_answered: int = 0  # of those, the ones answered before the cut
    in_flight_applied: int = 0  # the ones the journal kept
    actions: int = 0  # accepted actions, the engine's own included
    identical: int = 0  # resumes identical to the uncut run


@dataclass
class Game:
    """The game on the server, and its uncut run in-process."""

    title: str
    id: int
    engine: Any
    options: dict[str, Any]  # as journalled
    seed: int
    state: Any
    actions: list[dict[str, Any]] = field(default_factory=list)  # accepted, in order
    referee: Referee = field(default_factory=Referee)

    def accept(self, action: Action) -> None:
        self.state, _ = self.engine.apply(self.state, action)
        self.actions.append(normal(action.to_json()))

    @property
    def over(self) -> bool:
        return self.engine.outcome(self.state) is not None

    def public(self) -> Any:
        return normal(self.engine.public_view(self.state))

    def record(self) -> list[str]:
        """The record the uncut run exports (``companion.record``: the public actions only)."""
        journal = Journal(":memory:")
        try:
            entry = journal.start_game(self.title, self.options, self.seed, {})
            for seq, action in enumerate(self.actions, start=1):
                journal.append(entry.id, seq, action)
            return list(export_lines(journal, entry))
        finally:
            journal.close()


class PowerCuts:
    """One ``companion serve`` in ``directory``, cut at random moments chosen from ``seed``.
    ``problems`` lists every mismatch seen; ``tallies`` the figures by title."""

    def __init__(self, directory: Path, seed: int) -> None:
        self.rng = random.Random(f"power cuts {seed}")
        self.server: Server = start_server(directory, pause=0.01, cylons_open=0.01)
        self.journal_path = directory / "data" / "journal.sqlite3"
        self.tallies = {title: Tally() for title in TITLES}
        self.problems: list[str] = []
        self.game: Game | None = None

    def close(self) -> None:
        self.server.stop()

    # -- the run ----------------------------------------------------------------------------

    def run(self, kills: int, titles: tuple[str, ...] = TITLES) -> None:
        """``kills`` power cuts in all, shared out over the titles, one title after the other:
        its games played on from cut to cut (a new one when one ends)."""
        assert set(titles) <= set(GAMES), f"unknown titles: {set(titles) - set(GAMES)}"
        for n, title in enumerate(titles):
            for _ in range(kills // len(titles) + (n < kills % len(titles))):
                self.cut_once(title)

    def cut_once(self, title: str) -> None:
        """Some moves of a game of ``title`` (a new one if none runs), then a power cut, the
        restart and the checks."""
        if self.game is None or self.game.title != title or self.game.over:
            self.start(title)
        game = self.game
        assert game is not None
        tally = self.tallies[title]
        for _ in range(self.rng.randint(0, MOST_BETWEEN)):
            if game.over:
                self.start(title)
                game = self.game
                assert game is not None
            move = self.next_move(game)
            status, answer = self.server.post("/api/act", move.to_json())
            if status != 200:
                self.problem(title, f"a legal move {move.to_json()} was refused: {answer}")
                return self.start(title)
            game.accept(move)
            tally.actions += 1
        tally.kills += 1
        if not game.over and self.rng.random() < IN_FLIGHT:
            self.kill_in_flight(game, tally)
        else:
            self.server.kill()
            self.server.start()
            self.check(game, tally)

    def kill_in_flight(self, game: Game, tally: Tally) -> None:
        tally.in_flight += 1
        move = self.next_move(game)
        answered: list[int] = []

        def send() -> None:
            try:
                status, _ = self.server.post("/api/act", move.to_json())
                answered.append(status)
            except Exception:  # the connection died with the server: no answer
                pass

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        time.sleep(LATEST_KILL * self.rng.random() ** 2)  # most often early
        self.server.kill()
        sender.join(timeout=30)
        tally.in_flight_answered += bool(answered)
        self.server.start()
        journalled = self.journal()[0]
        done = len(game.actions)
        if len(journalled) == done + 1 and journalled[-1] == normal(move.to_json()):
            if answered and not 200 <= answered[0] < 300:
                self.problem(game.title, f"{move.to_json()} was refused ({answered[0]}), then kept")
            game.accept(move)
            tally.actions += 1
            tally.in_flight_applied += 1
        elif answered and 200 <= answered[0] < 300:
            self.problem(game.title, f"{move.to_json()} was answered {answered[0]}, then lost")
        self.check(game, tally)

    # -- the game ---------------------------------------------------------------------------

    def start(self, title: str) -> None:
        """A new game of ``title``; the uncut run starts from its journalled options and seed,
        with Résistance's night said and over."""
        setups, (fewest, most) = SETUPS[title]
        players = self.rng.randint(fewest, most)
        options = {**self.rng.choice(setups), "players": players}
        body = {"game": title, "options": options, "names": NAMES[:players]}
        body["replace"] = self.server.state()["game_id"]  # the last title's game, if unfinished
        status, snap = self.server.post("/api/games", body)
        assert status == 201, snap
        game_id = int(snap["game_id"])
        if title == "resistance":
            self.server.wait_for(
                lambda s: s["state"] is not None and s["state"]["phase"] != "night",
                "the end of the night",
            )
        actions, options_json, seed, _ = self.journal()
        engine = game_for(title)
        state = engine.new(options_json, seed)
        self.game = Game(title, game_id, engine, options_json, seed, state)
        if title == "resistance":
            self.game.accept(EndNight())
            self.tallies[title].actions += 1
        if actions != self.game.actions:
            self.problem(title, f"a new game journalled {actions}")
        self.tallies[title].games += 1

    def next_move(self, game: Game) -> Action:
        """A random legal move of the uncut run (the tests' own random players)."""
        engine, state = game.engine, game.state
        for _ in range(500):
            move = self.choose(game)
            try:
                engine.apply(state, move)
            except IllegalAction:
                continue
            return move
        raise AssertionError(f"no legal move found in {engine.public_view(state)}")

    def choose(self, game: Game) -> Action:
        rng, state = self.rng, game.state
        if game.title == "resistance":
            return resistance_play.choose(rng, state)
        if game.title == "oraklos":
            return choose_oraklos(rng, state, game.referee)
        if game.title == "ostrakon":
            return choose_ostrakon(rng, state)
        if game.title == "eleusis":
            return choose_eleusis(rng, state)
        if game.title == "sages":
            return pick_sages(
                rng, state, list(game.engine.legal_actions(state, state.to_move.seat))
            )
        move = choose_night(rng, state)
        if isinstance(move, StartTimer):
            return StartTimer(move.first, LONG_SAND)
        if isinstance(move, PauseHourglass) and move.left < SHORTEST_PAUSE:
            return self.choose(game)
        return move

    # -- the checks -------------------------------------------------------------------------

    def journal(self) -> tuple[list[dict[str, Any]], dict[str, Any], int, bool]:
        """The latest game's actions, options, seed and whether it is over, read from the
        journal itself (read-only, beside the running server)."""
        db = sqlite3.connect(f"file:{self.journal_path}?mode=ro", uri=True)
        try:
            game_id, options, seed, finished = db.execute(
                "SELECT id, options, seed, finished FROM games ORDER BY id DESC LIMIT 1"
            ).fetchone()
            rows = db.execute(
                "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        finally:
            db.close()
        return [json.loads(r[0]) for r in rows], json.loads(options), seed_of(seed), bool(finished)

    def check(self, game: Game, tally: Tally) -> None:
        """After a restart: the journal, the resumed state and the record's replay against the
        uncut run."""
        before = len(self.problems)
        actions, _, _, finished = self.journal()
        if actions != game.actions:
            self.problem(
                game.title,
                f"the journal holds {len(actions)} actions, {len(game.actions)} were accepted; "
                f"first difference at {first_difference(actions, game.actions)}",
            )
        snap = self.server.state()
        if finished:  # a game over is not resumed: the table waits for a new one
            if not game.over or snap["state"] is not None:
                self.problem(game.title, "the journal says over, the uncut run does not")
        else:
            # (the snapshot's version counts public changes only: the journal's actions,
            # checked above, are the count of accepted actions)
            if snap["game_id"] != game.id:
                self.problem(game.title, f"resumed game {snap['game_id']}, not {game.id}")
            if snap["state"] != game.public():
                self.problem(game.title, "the resumed state differs from the uncut run")
            status, record = self.server.host().get("/api/record")
            lines = [json.dumps(record)] if isinstance(record, dict) else str(record).splitlines()
            uncut = game.record()
            if status != 200 or lines != uncut or replay(lines) != replay(uncut):
                self.problem(game.title, "the exported record differs from the uncut run's")
        if len(self.problems) == before:
            tally.identical += 1
        else:
            self.game = None  # the uncut run is lost: carry on with a new game

    def problem(self, title: str, text: str) -> None:
        self.problems.append(f"{title}: {text}")

    # -- the figures ------------------------------------------------------------------------

    def summary(self, seed: int, seconds: float, say: Callable[[str], None] = print) -> None:
        say(f"Power cuts (SIGKILL) of companion serve, seed {seed}")
        say("")
        say("| title | games | kills | in flight: answered, kept | actions | resumes identical |")
        say("|---|---|---|---|---|---|")
        total = Tally()
        for title, t in self.tallies.items():
            say(
                f"| {title} | {t.games} | {t.kills} | {t.in_flight}: {t.in_flight_answered}, "
                f"{t.in_flight_applied} | "
                f"{t.actions} | {t.identical}/{t.kills} |"
            )
            for name in vars(total):
                setattr(total, name, getattr(total, name) + getattr(t, name))
        say(
            f"| all | {total.games} | {total.kills} | {total.in_flight}: "
            f"{total.in_flight_answered}, {total.in_flight_applied} | {total.actions} | "
            f"{total.identical}/{total.kills} |"
        )
        say("")
        say(f"resumes identical: {total.identical}/{total.kills}; wall time {seconds:.1f} s")
        for text in self.problems:
            say(f"MISMATCH {text}")


def first_difference(a: list[Any], b: list[Any]) -> int:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
