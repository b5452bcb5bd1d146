"""Time an Oraklos throw from the frame where the dice came to rest to the scored reading on the
page: the whole path the companion runs, on real parts.

    python benchmarks/throw_to_page.py [--throws 20] [--players 2]

A real ``Table`` (SQLite journal in a temporary folder) runs an Oraklos game; a
``ThrowCamera`` on a live frame source sees the table at rest (``--settle`` + 1 frames), the dice
tumble (three moving frames), then ``--settle`` still frames; the ``ThrowDesk``'s watcher
reads the frame where the dice came to rest. What is timed, per throw, from the moment the
last still frame is handed to the camera:

1. *settle → read*: the settle detector says "still", the frame is white-balanced by the
   markers' paper and the cubes are read (the companion's reader, ``appliance.wiring
   .cube_reader``: the learned one unless ``--hand-tuned``), so is the table at rest before
   the throw, and what lay there unchanged is left out (``vision.table_change``); the picture
   for the page encoded;
2. *read → page*: the reading checked against the cup (``doubt_counts``), journalled, the
   engine's step, and the public snapshot published to the page's listeners;
3. *predictions*: every prediction of every card in play found on the read dice (what the
   referee judges claims with, and what the host page can show).

The scenes are ``vision.synthetic.cube_scene`` frames of the cup's dice, 1280×720. The wait for
still frames itself (``settle_frames`` frames, about half a second at 15 fps) is the camera's
pace and is not counted; it is printed beside. Prints median and 95th percentile per step and
in total, in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from appliance.wiring import cube_reader  # noqa: E402
from companion.config import CameraConfig  # noqa: E402
from companion.games.oraklos.predictions import find  # noqa: E402
from companion.games.oraklos.state import Phase  # noqa: E402
from companion.journal import Journal  # noqa: E402
from companion.moderator import Table  # noqa: E402
from desks.throws import ThrowDesk, expected_colors  # noqa: E402
from vision.sources import FrameSource  # noqa: E402
from vision.synthetic import cube_scene  # noqa: E402
from vision.throws import ThrowCamera  # noqa: E402

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]


class Quiet:
    def say(self, text: str, lang: str) -> None:
        pass

    def script(self, items: Any, lang: str, then: Any = None) -> None:
        pass


class Tumble(FrameSource):
    """The table at rest, moving frames, then still ones; notes when the last still frame was
    handed out."""

    def __init__(self, before: np.ndarray, still: np.ndarray, settle: int) -> None:
        moving = [np.roll(still, dx, axis=1) for dx in (40, 25, 10)]
        self.frames = [before] * (settle + 1) + moving + [still] * settle
        self.given = 0
        self.last_handed = 0.0

    def read(self) -> np.ndarray:
        frame = self.frames[min(self.given, len(self.frames) - 1)]
        self.given += 1
        if self.given >= len(self.frames):
            self.last_handed = time.perf_counter()
        return frame

    def close(self) -> None:
        pass


def one_throw(
    seed: int, players: int, settle: int, folder: Path, reader: Any
) -> tuple[float, float, float]:
    journal = Journal(folder / f"journal-{seed}.sqlite3")
    table = Table(journal, Quiet(), seats=5)
    table.new_game("oraklos", {"players": players, "mode": "junior"}, NAMES[:players], "en", seed)
    running = table.running
    assert running is not None
    colors = [c.value for c in expected_colors(running.state, random.Random(seed))]
    before = cube_scene(seed, colors=colors, noise=2.0, before=True).image
    source = Tumble(before, cube_scene(seed, colors=colors, noise=2.0).image, settle)
    published = threading.Event()
    marks: dict[str, float] = {}

    def listen(snap: dict[str, Any]) -> None:
        if (snap.get("state") or {}).get("phase") == Phase.SEARCH.value:
            marks["page"] = time.perf_counter()
            published.set()

    table.subscribe(listen)
    camera = ThrowCamera(source, None, settle, live=True, reader=reader)
    original = camera.picture

    def timed_picture(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        marks["read"] = time.perf_counter()
        return out

    camera.picture = timed_picture  # type: ignore[method-assign]
    desk = ThrowDesk(table, camera)
    desk._on_snapshot(table.snapshot())  # start watching the awaited throw
    if not published.wait(60):
        raise RuntimeError("the throw was never read")
    desk.close()
    state = table.running.state if table.running else None
    assert state is not None
    start = time.perf_counter()
    cards = list(state.shared) + [c for hand in state.hands for c in hand]
    for card in cards:
        find(state.table, card, holes_allowed=True)
    predictions = time.perf_counter() - start
    journal.close()
    read = marks["read"] - source.last_handed
    page = marks["page"] - marks["read"]
    return read * 1000, page * 1000, predictions * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--settle", type=int, default=8, help="still frames that make a throw")
    parser.add_argument("--hand-tuned", action="store_true", help="read with vision.cubes")
    args = parser.parse_args(argv)
    reader = cube_reader(CameraConfig(cubes="hand-tuned" if args.hand_tuned else "learned"))
    rows: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.throws):
            rows.append(one_throw(100 + seed, args.players, args.settle, Path(folder), reader))
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; {args.throws} throws of "
        f"16 dice (Oraklos Junior, {args.players} players), 1280x720, "
        f"settled after {args.settle} still frames ({args.settle / 15 * 1000:.0f} ms at 15 fps, "
        "not counted)\n"
    )
    print("| step | median | p95 |\n|---|---|---|")
    names = ("settle → read (white balance, cubes, picture)", "read → page", "predictions")
    for i, name in enumerate(names):
        values = sorted(r[i] for r in rows)
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"| {name} | {statistics.median(values):.1f} ms | {p95:.1f} ms |")
    totals = sorted(sum(r) for r in rows)
    p95 = totals[min(len(totals) - 1, int(0.95 * len(totals)))]
    print(f"| **total** | **{statistics.median(totals):.1f} ms** | **{p95:.1f} ms** |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
