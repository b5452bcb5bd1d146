"""Power cuts: SIGKILL ``companion serve`` at random moments of games of every title, and check
each restart resumes with every accepted action and the state of an uncut run (issue 12).

    .venv/bin/python benchmarks/power_cuts.py --kills 100 --seed 1

The games go in turn (Résistance, Oraklos, Ostrakon, Eleusis, Les 7 Sages, game night), each
cut after a random number of moves, about half the time while a move is in flight (killed 0-20
ms after it is sent). The rig and its checks are ``tests/power_cut_rig.py``; CI runs a few cuts
per title (``tests/test_power_cuts.py``). Prints a Markdown table and the wall time; exits 1 on
any mismatch.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # the rig, the server and the tests' random players

from power_cut_rig import PowerCuts  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100, help="power cuts in all (100)")
    parser.add_argument("--seed", type=int, default=1, help="the random moments' seed (1)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="power-cuts-") as directory:
        cuts = PowerCuts(Path(directory), args.seed)
        try:
            cuts.run(args.kills)
        finally:
            cuts.close()
        cuts.summary(args.seed, time.monotonic() - started)
    return 1 if cuts.problems else 0


if __name__ == "__main__":
    sys.exit(main())
