"""``benchmarks/vision_speed.py`` runs and prints its table: every reader, with OpenCV's own
threads and with one. A smoke test: the times themselves are in docs/vision/, never checked."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_speed_benchmark_times_every_reader_with_both_thread_counts():
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "vision_speed.py"),
            "--frames",
            "1",
            "--reads",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    rows = [
        line for line in run.stdout.splitlines() if re.match(r"\| (cubes|tessons|pip dice)", line)
    ]
    assert len(rows) == 6, run.stdout
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert all(re.fullmatch(r"\d+\.\d ms", c) for c in cells[2:5]), line
        assert cells[5] in ("yes", "no")
    assert {line.split("|")[2].strip() for line in rows} >= {"1"}
