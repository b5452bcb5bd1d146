"""The SQLite journal survives a torn write (issue 12): WAL mode, ``synchronous=FULL``, real SQLite.

A child process appends a game's actions through ``Journal`` and is killed with SIGKILL. Its
database and ``-wal`` files are copied, and the copy of the WAL is torn the ways a power cut
tears the write in flight: cut short at every 512-byte sector and at the awkward places of
every frame, its tail overwritten with garbage, one sector of it lost. Each torn copy must open
through ``Journal``, pass ``PRAGMA integrity_check``, hold exactly the actions of the
transactions whose frames all reached the disk (a prefix of what was appended: nothing
invented, reordered or half kept) and take the next action.

Which transactions reached the disk is worked out here from the WAL format itself, not from
SQLite (https://www.sqlite.org/fileformat2.html#walformat): a 32-byte header, then frames of a
24-byte header and a page; a frame counts if it carries the header's salts and the running
checksum, recovery stops at the first that does not, and a transaction counts only with its
commit frame (the one whose "database size after commit" is not zero). With
``synchronous=FULL`` each append returns only after its commit frame is synced, so a torn
write can only lose the append still in flight; the cuts here go further (anywhere in the
WAL, earlier transactions too), and the rule checked is the one SQLite keeps at all of them.

The database file torn during a checkpoint: SQLite copies into it only frames already synced to
the WAL and restarts the WAL only once the database is synced, so pages torn there are read
and copied again from the WAL, which is checked below. A disk that acknowledges an fsync it has
not done can break any of this; no test can model that, and none tries.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.journal import Journal

ROOT = Path(__file__).resolve().parent.parent
NAME = "journal.sqlite3"
ACTIONS = 24
SECTOR = 512
WAL_HEADER = 32
FRAME_HEADER = 24

Action = dict[str, Any]

CHILD = """
import json, os, signal, sys
from companion.journal import Journal

path, actions = sys.argv[1], json.load(sys.stdin)
journal = Journal(path)
game = journal.start_game("resistance", {"players": 5}, 12, {"names": ["Ada", "Bea"]})
journal.close()
journal = Journal(path)
print(game.id, flush=True)
for seq, action in enumerate(actions):
    journal.append(game.id, seq, action)
os.kill(os.getpid(), signal.SIGKILL)
"""

RUNNER = """
import os, sys
from companion.journal import Journal

journal = Journal(sys.argv[1])
game = journal.start_game("resistance", {"players": 5}, 12, {})
seq = 0
while True:
    journal.append(game.id, seq, {"seat": seq % 5, "pad": "x" * (seq * 97 % 6000)})
    os.write(1, b"%d\\n" % seq)
    seq += 1
"""


def planned_actions(count: int) -> list[Action]:
    """Presses of various sizes; every fifth carries a note longer than two pages, so its
    transaction spans several frames and can be cut between them."""
    return [
        {
            "seat": seq % 5,
            "button": "AB"[seq % 2],
            "note": f"{seq}." * (3000 if seq % 5 == 3 else seq),
        }
        for seq in range(count)
    ]


@dataclass(frozen=True)
class Frame:
    end: int  # offset just past the frame in the WAL
    page: int
    commit: bool


def wal_checksum(order: str, data: bytes, sums: tuple[int, int]) -> tuple[int, int]:
    s1, s2 = sums
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for x0, x1 in zip(words[::2], words[1::2], strict=True):
        s1 = (s1 + x0 + s2) & 0xFFFFFFFF
        s2 = (s2 + x1 + s1) & 0xFFFFFFFF
    return s1, s2


def page_size_of(wal: bytes) -> int:
    return int(struct.unpack(">I", wal[8:12])[0])


def valid_frames(wal: bytes) -> list[Frame]:
    """The frames recovery accepts, in order: those with the header's salts and the right
    running checksum, up to the first that has not."""
    if len(wal) < WAL_HEADER:
        return []
    magic, version, page_size, _, salt1, salt2, c1, c2 = struct.unpack(">8I", wal[:WAL_HEADER])
    assert magic & ~1 == 0x377F0682 and version == 3007000
    order = ">" if magic & 1 else "<"
    sums = wal_checksum(order, wal[:24], (0, 0))
    if sums != (c1, c2):
        return []
    frames: list[Frame] = []
    start, size = WAL_HEADER, FRAME_HEADER + page_size
    while start + size <= len(wal):
        head, page = wal[start : start + FRAME_HEADER], wal[start + FRAME_HEADER : start + size]
        number, db_size, s1, s2, f1, f2 = struct.unpack(">6I", head)
        sums = wal_checksum(order, head[:8] + page, sums)
        if (s1, s2) != (salt1, salt2) or sums != (f1, f2):
            break
        frames.append(Frame(start + size, number, db_size != 0))
        start += size
    return frames


def transaction_sizes(frames: list[Frame]) -> list[int]:
    """How many frames each transaction wrote, its commit frame included."""
    sizes, count = [], 0
    for frame in frames:
        count += 1
        if frame.commit:
            sizes.append(count)
            count = 0
    return sizes


@dataclass(frozen=True)
class Killed:
    """What a journal killed after its appends left on disk, and what had been appended."""

    db: bytes
    wal: bytes
    shm: bytes
    game_id: int
    actions: list[Action]
    frames: list[Frame]

    @property
    def page_size(self) -> int:
        return page_size_of(self.wal)

    def committed_before(self, offset: int) -> int:
        """How many transactions have every frame, commit frame included, before ``offset``."""
        return sum(1 for frame in self.frames if frame.commit and frame.end <= offset)

    def cut_points(self) -> list[int]:
        """Every sector boundary of the WAL, and in every frame: inside its header, right after
        its header, in the middle of its page, one byte short of its end."""
        size = FRAME_HEADER + self.page_size
        points = set(range(0, len(self.wal), SECTOR)) | {16, WAL_HEADER}
        for frame in self.frames:
            start = frame.end - size
            points |= {start + 8, start + FRAME_HEADER, frame.end - self.page_size // 2}
            points |= {frame.end - 1, frame.end}
        return sorted(points)


def kill_after_appending(where: Path, actions: list[Action]) -> Killed:
    where.mkdir()
    path = where / NAME
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        input=json.dumps(actions),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    wal = Path(f"{path}-wal").read_bytes()
    shm = Path(f"{path}-shm").read_bytes()
    return Killed(path.read_bytes(), wal, shm, int(done.stdout), actions, valid_frames(wal))


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Killed:
    return kill_after_appending(
        tmp_path_factory.mktemp("killed") / "journal", planned_actions(ACTIONS)
    )


@pytest.fixture
def copies(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "copy"
    yield where
    shutil.rmtree(where, ignore_errors=True)


def lay_down(where: Path, db: bytes, wal: bytes, shm: bytes | None = None) -> Path:
    """A fresh copy of the journal's files, as a restart after the cut would find them."""
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir()
    path = where / NAME
    path.write_bytes(db)
    Path(f"{path}-wal").write_bytes(wal)
    if shm is not None:
        Path(f"{path}-shm").write_bytes(shm)
    return path


def integrity(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return "; ".join(str(row[0]) for row in db.execute("PRAGMA integrity_check"))
    finally:
        db.close()


NEXT: Action = {"seat": 0, "button": "A", "after": "the cut"}


def reopen(path: Path, game_id: int, then_append: bool) -> tuple[list[Action], str]:
    """Open the copy through ``Journal`` as a restart would: the game's actions and the
    verdict of ``PRAGMA integrity_check``; the next action appended if asked."""
    journal = Journal(path)
    try:
        verdict = integrity(path)
        found = journal.actions(game_id) if journal.game(game_id) is not None else []
        if then_append:
            journal.append(game_id, len(found), NEXT)
    finally:
        journal.close()
    return found, verdict


def what_is_wrong(killed: Killed, path: Path, whole: int, go_on: bool = False) -> str | None:
    """What, if anything, breaks the rule in the copy at ``path``: it opens, is sound, and holds
    the first ``whole`` actions appended; with ``go_on``, it takes the next and keeps it."""
    try:
        found, verdict = reopen(path, killed.game_id, then_append=go_on)
        if verdict != "ok":
            return f"integrity_check says {verdict}"
        if found != killed.actions[: len(found)]:
            return f"its {len(found)} actions are not the first ones appended"
        if len(found) != whole:
            return f"{len(found)} actions where {whole} transactions were whole"
        if go_on:
            after, _ = reopen(path, killed.game_id, then_append=False)
            if after != [*found, NEXT]:
                return f"the action appended after the cut reads back as {after[whole:]}"
    except sqlite3.Error as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def check_all(
    killed: Killed,
    where: Path,
    torn: Callable[[int], bytes],
    offsets: list[int],
    go_on: bool,
    shm: bytes | None = None,
) -> None:
    """Tear the WAL at each offset (``torn`` makes the torn WAL) and check each copy."""
    wrong = []
    for offset in offsets:
        path = lay_down(where, killed.db, torn(offset), shm)
        problem = what_is_wrong(killed, path, killed.committed_before(offset), go_on)
        if problem is not None:
            wrong.append(f"torn at byte {offset}: {problem}")
    assert not wrong, f"{len(wrong)} of {len(offsets)} torn copies: {wrong[:5]}"


def test_the_journal_is_in_wal_mode_with_full_synchronous_writes(tmp_path: Path) -> None:
    journal = Journal(tmp_path / NAME)
    try:
        assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        journal.close()
    header = (tmp_path / NAME).read_bytes()[:100]
    assert header[18:20] == b"\x02\x02"  # WAL recorded in the file: a restart reopens in WAL mode


def test_each_append_is_one_transaction_committed_in_the_wal(killed: Killed) -> None:
    frames_per_append = transaction_sizes(killed.frames)
    assert len(frames_per_append) == len(killed.actions)
    assert sum(frames_per_append) == len(killed.frames)  # nothing after the last commit
    assert killed.frames[-1].end == len(killed.wal)  # and every frame in the file valid
    for seq, frames in enumerate(frames_per_append):
        if len(killed.actions[seq]["note"]) > 2 * killed.page_size:
            assert frames >= 3, seq  # the long notes: cut between their frames below


def test_the_killed_journal_keeps_every_append_that_returned(killed: Killed, copies: Path) -> None:
    path = lay_down(copies, killed.db, killed.wal, killed.shm)
    assert what_is_wrong(killed, path, len(killed.actions), go_on=True) is None


def test_a_wal_cut_short_anywhere_keeps_exactly_the_whole_transactions(
    killed: Killed, copies: Path
) -> None:
    offsets = killed.cut_points()
    assert {killed.committed_before(at) for at in offsets} == set(range(ACTIONS + 1))
    check_all(killed, copies, lambda at: killed.wal[:at], offsets, go_on=False)


def test_a_wal_whose_tail_is_garbage_keeps_exactly_the_whole_transactions(
    killed: Killed, copies: Path
) -> None:
    noise = random.Random(12).randbytes(len(killed.wal))

    def garble(at: int) -> bytes:
        return killed.wal[:at] + noise[at:]

    check_all(killed, copies, garble, killed.cut_points(), go_on=False)


def test_a_lost_sector_drops_the_transaction_it_falls_in_and_those_after(
    killed: Killed, copies: Path
) -> None:
    def lose(at: int) -> bytes:
        lost = bytes(b ^ 0xFF for b in killed.wal[at : at + SECTOR])
        return killed.wal[:at] + lost + killed.wal[at + SECTOR :]

    check_all(killed, copies, lose, list(range(0, len(killed.wal), SECTOR)), go_on=False)


def test_the_game_goes_on_after_a_torn_write(killed: Killed, copies: Path) -> None:
    offsets = [frame.end - killed.page_size // 2 for frame in killed.frames]
    check_all(killed, copies, lambda at: killed.wal[:at], offsets, go_on=True)


def test_the_index_left_by_the_killed_process_is_not_trusted(killed: Killed, copies: Path) -> None:
    """The ``-shm`` file the killed process left says every frame is there; a restart after a
    power cut must rebuild it from the WAL that reached the disk, not believe it."""
    offsets = [frame.end - killed.page_size // 2 for frame in killed.frames]
    check_all(killed, copies, lambda at: killed.wal[:at], offsets, go_on=True, shm=killed.shm)


def checkpoint_torn_at(killed: Killed, page: int) -> bytes:
    """The database file as a checkpoint cut by a power cut would leave it: the WAL's last
    image of every page before ``page`` copied in (a checkpoint goes in page order), ``page``
    itself half written (the other half garbage), the rest as before."""
    size = killed.page_size
    pages = {n + 1: killed.db[n * size : (n + 1) * size] for n in range(len(killed.db) // size)}
    images = {frame.page: killed.wal[frame.end - size : frame.end] for frame in killed.frames}
    pages |= {n: image for n, image in images.items() if n < page}
    pages[page] = images[page][: size // 2] + random.Random(page).randbytes(size - size // 2)
    return b"".join(pages.get(n, bytes(size)) for n in range(1, max(pages) + 1))


def test_database_pages_torn_by_a_checkpoint_are_read_again_from_the_wal(
    killed: Killed, copies: Path
) -> None:
    pages = sorted({frame.page for frame in killed.frames})
    wrong = []
    for page in pages:
        path = lay_down(copies, checkpoint_torn_at(killed, page), killed.wal)
        problem = what_is_wrong(killed, path, len(killed.actions), go_on=True)
        if problem is not None:
            wrong.append(f"checkpoint torn at page {page}: {problem}")
    assert not wrong, f"{len(wrong)} of {len(pages)} torn checkpoints: {wrong[:5]}"


def test_an_append_killed_in_flight_is_kept_whole_or_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / NAME
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(path)], stdout=subprocess.PIPE, cwd=ROOT
    )
    assert runner.stdout is not None
    for _ in range(25):
        assert runner.stdout.readline()
    os.kill(runner.pid, signal.SIGKILL)
    returned = len(runner.stdout.read().split()) + 25
    runner.wait(timeout=10)
    runner.stdout.close()
    journal = Journal(path)
    try:
        game = journal.latest_game()
        assert game is not None
        found = journal.actions(game.id)
    finally:
        journal.close()
    assert integrity(path) == "ok"
    assert len(found) in (returned, returned + 1)
    assert found == [{"seat": seq % 5, "pad": "x" * (seq * 97 % 6000)} for seq in range(len(found))]
