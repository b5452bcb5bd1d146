"""The journal: every accepted action, in order, in SQLite, written before anyone is told.

WAL mode with ``synchronous=FULL``: once ``append`` returns, the action survives a power cut.
Resuming a game is replaying its actions from the start.

Nothing is ever erased: the host's undo is a row of its own (``{"kind": "undo", "of": seq}``)
that takes back the action of sequence number ``seq``. ``actions`` gives the game as it stands,
undone actions left out; ``rows`` gives every row, undos included.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import json
import os
import sqlite3
import stat
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    setup TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS seat_tokens (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    token TEXT NOT NULL,
    opened INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS threads (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    version INTEGER NOT NULL,
    narration TEXT NOT NULL,
    pending TEXT NOT NULL
);
"""
UNDO = "undo"  # the kind of a row taking back an earlier one (no game has an action of that kind)
PRIVATE = 0o600  # the journal holds seeds, votes and seat links: for the companion's user alone
SIDE_FILES = ("-wal", "-shm", "-journal")


class Trouble(enum.Enum):
    """Why the journal cannot be written, for a sentence the table understands
    (``errors.journal_<value>`` in the catalogs)."""

    FULL = "full"
    READ_ONLY = "read_only"
    FAILED = "failed"


class JournalError(RuntimeError):
    """The journal cannot be written: the game must refuse new actions rather than lose them.
    ``reason`` says why, for the table's sentence; the text is for the log."""

    def __init__(self, message: str, reason: Trouble = Trouble.FAILED) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def key(self) -> str:
        return f"errors.journal_{self.reason.value}"


_SQLITE_READONLY = 8  # sqlite3's primary result codes (Python has them as constants from 3.11
_SQLITE_FULL = 13  # on, but not as names mypy knows on every version)


def trouble(path: Path, exc: sqlite3.Error) -> Trouble:
    """Why writing ``path`` failed. A full disk is SQLITE_FULL and a disk read-only at open time
    SQLITE_READONLY; but a disk that turned read-only under an open journal (the kernel giving
    up on a failing SD card, ``errors=remount-ro``) fails SQLite's writes with EROFS, which it
    reports as a plain I/O error, and recent kernels mark such a disk ``emergency_ro`` without
    the read-only flag ``statvfs`` shows. So the file system is asked by a write of its own."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code == _SQLITE_READONLY:
        return Trouble.READ_ONLY
    if code == _SQLITE_FULL:
        return Trouble.FULL
    try:
        with tempfile.TemporaryFile(dir=path.parent) as probe:
            probe.write(b"\0")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as error:
        if error.errno == errno.EROFS:
            return Trouble.READ_ONLY
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            return Trouble.FULL
    return Trouble.FAILED


@dataclass(frozen=True)
class GameEntry:
    id: int
    title: str
    options: dict[str, Any]
    seed: int = field(repr=False)  # secret: it tells every hidden deal (companion.chance)
    setup: dict[str, Any]  # the table around the game: names, language
    finished: bool


@dataclass(frozen=True)
class Thread:
    """Where a game's table stood, for a restart to pick the thread up: the public narration
    lines last shown, and the button input not yet made into an action (a squad half named),
    as it stood after ``version`` actions. Public alone: the page showed all of it."""

    version: int
    narration: tuple[str, ...]
    pending: Any  # the rules' own JSON of the pending input; None: none


class Journal:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        if str(path) not in (":memory:", ""):  # "": SQLite's temporary journal
            try:
                keep_private(self.path)
            except OSError as exc:
                reason = {errno.EROFS: Trouble.READ_ONLY, errno.ENOSPC: Trouble.FULL}
                raise JournalError(
                    f"the journal at {self.path} cannot be opened: {exc.strerror}",
                    reason.get(exc.errno or 0, Trouble.FAILED),
                ) from exc
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(seat_tokens)")}
            if "opened" not in columns:  # a journal from before phones were marked as opened
                self._db.execute(
                    "ALTER TABLE seat_tokens ADD COLUMN opened INTEGER NOT NULL DEFAULT 0"
                )
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        if mode != "wal" and str(path) != ":memory:":
            self._db.close()
            raise JournalError(
                f"the journal at {self.path} cannot use SQLite's WAL mode (it is in {mode} "
                "mode), so a power cut could lose an action: put data_dir on a local disk"
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: tuple[Any, ...]) -> sqlite3.Cursor:
        with self._lock:
            try:
                return self._db.execute(sql, args)
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    def _error(self, exc: sqlite3.Error) -> JournalError:
        return JournalError(
            f"the journal at {self.path} cannot be written: {exc}", trouble(self.path, exc)
        )

    def start_game(
        self, title: str, options: dict[str, Any], seed: int, setup: dict[str, Any]
    ) -> GameEntry:
        cur = self._write(
            "INSERT INTO games (title, options, seed, setup) VALUES (?, ?, ?, ?)",
            (title, json.dumps(options), seed_column(seed), json.dumps(setup)),
        )
        assert cur.lastrowid is not None
        return GameEntry(cur.lastrowid, title, options, seed, setup, False)

    def append(self, game_id: int, seq: int, action: dict[str, Any]) -> None:
        self._write(
            "INSERT INTO actions (game_id, seq, action) VALUES (?, ?, ?)",
            (game_id, seq, json.dumps(action, sort_keys=True)),
        )

    def append_undo(self, game_id: int, seq: int, of: int) -> None:
        """Journal, as row ``seq``, that the action of row ``of`` was taken back."""
        self.append(game_id, seq, {"kind": UNDO, "of": of})

    def finish(self, game_id: int) -> None:
        self._write("UPDATE games SET finished = 1 WHERE id = ?", (game_id,))

    def save_seat_tokens(
        self, game_id: int, tokens: dict[int, str], opened: frozenset[int] = frozenset()
    ) -> None:
        """Replace every seat link of every game by ``tokens``, ``opened`` naming the seats whose
        phone has opened its link (one game runs at a time: the links of an older game are
        dropped with it). In one transaction: a crash keeps either the old links or the new
        ones."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("DELETE FROM seat_tokens")
                self._db.executemany(
                    "INSERT INTO seat_tokens (game_id, seat, token, opened) VALUES (?, ?, ?, ?)",
                    [
                        (game_id, seat, token, int(seat in opened))
                        for seat, token in sorted(tokens.items())
                    ],
                )
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):  # a read-only disk may refuse it too
                        self._db.execute("ROLLBACK")
                raise self._error(exc) from exc

    def save_thread(self, game_id: int, thread: Thread) -> None:
        """Keep ``thread`` as the game's thread, replacing the one kept before."""
        self._write(
            "INSERT OR REPLACE INTO threads (game_id, version, narration, pending) "
            "VALUES (?, ?, ?, ?)",
            (
                game_id,
                thread.version,
                json.dumps(list(thread.narration), ensure_ascii=False),
                json.dumps(thread.pending, sort_keys=True),
            ),
        )

    def thread(self, game_id: int) -> Thread | None:
        """The thread last kept for ``game_id``, or None (none kept, or unreadable)."""
        with self._lock:
            row = self._db.execute(
                "SELECT version, narration, pending FROM threads WHERE game_id = ?", (game_id,)
            ).fetchone()
        if row is None:
            return None
        try:
            lines, pending = json.loads(row[1]), json.loads(row[2])
        except (TypeError, ValueError):
            return None
        if not isinstance(lines, list):
            return None
        return Thread(int(row[0]), tuple(str(line) for line in lines), pending)

    def seat_tokens(self, game_id: int) -> dict[int, str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seat, token FROM seat_tokens WHERE game_id = ? ORDER BY seat", (game_id,)
            ).fetchall()
        return {int(seat): str(token) for seat, token in rows}

    def opened_seats(self, game_id: int) -> frozenset[int]:
        """The seats of ``game_id`` whose phone has opened its link."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seat FROM seat_tokens WHERE game_id = ? AND opened", (game_id,)
            ).fetchall()
        return frozenset(int(seat) for (seat,) in rows)

    def game(self, game_id: int) -> GameEntry | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, title, options, seed, setup, finished FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
        return None if row is None else _entry(row)

    def latest_game(self) -> GameEntry | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, title, options, seed, setup, finished FROM games "
                "ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return None if row is None else _entry(row)

    def rows(self, game_id: int) -> list[tuple[int, dict[str, Any]]]:
        """Every row of ``game_id``, undos included, as (sequence number, JSON), in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [(int(seq), json.loads(action)) for seq, action in rows]

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        """The actions of ``game_id`` that stand: those taken back are left out."""
        return [action for _seq, action in standing(self.rows(game_id))]


def standing(rows: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """The rows whose action stands: each undo takes back the last action still standing, which
    it names by its sequence number (an undo naming any other is ignored: it took back
    nothing)."""
    kept: list[tuple[int, dict[str, Any]]] = []
    for seq, action in rows:
        if action.get("kind") != UNDO:
            kept.append((seq, action))
        elif kept and kept[-1][0] == action.get("of"):
            kept.pop()
    return kept


def keep_private(path: Path) -> None:
    """Make the journal file (before SQLite opens it: its -wal and -shm files take the same
    mode) and any side file left by an older version readable by this user alone."""
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE))
    for each in (path, *(path.with_name(path.name + end) for end in SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            mode = each.stat().st_mode
            if stat.S_ISREG(mode) and mode & 0o077:
                each.chmod(PRIVATE)


def _entry(row: tuple[Any, ...]) -> GameEntry:
    return GameEntry(
        row[0], row[1], json.loads(row[2]), seed_of(row[3]), json.loads(row[4]), bool(row[5])
    )


SEED_TEXT = "k:"  # a seed beyond SQLite's integers, as hex text after this prefix


def seed_column(seed: int) -> int | str:
    """A game's seed as the ``games.seed`` column holds it. SQLite's integers stop at 2^63 and
    the table's seeds have 256 bits (``companion.chance``): those are stored as text, "k:" and
    hex (a column of INTEGER affinity would turn a text of digits alone into a lossy REAL).
    Seeds written before (below 2^31) stay integers."""
    if 0 <= seed < 2**63:
        return seed
    if seed < 0:
        raise ValueError("a game's seed is a natural number")
    return f"{SEED_TEXT}{seed:x}"


def seed_of(value: int | str) -> int:
    """The seed a ``games.seed`` column holds (``seed_column``'s inverse)."""
    if isinstance(value, str) and value.startswith(SEED_TEXT):
        return int(value.removeprefix(SEED_TEXT), 16)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise JournalError(f"a game's seed in the journal is unreadable: {type(value).__name__}")
