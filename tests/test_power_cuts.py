"""Power cuts at random moments of games of every title: each restart resumes with every
accepted action, and the state and record of an uncut run (issue 12). Two cuts per title here;
``benchmarks/power_cuts.py --kills 100`` is the long run (the rig: tests/power_cut_rig.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from power_cut_rig import TITLES, PowerCuts

pytestmark = pytest.mark.slow

CUTS_PER_TITLE = 2


def test_every_title_cut_at_random_moments_resumes_as_if_never_cut(tmp_path: Path) -> None:
    cuts = PowerCuts(tmp_path, seed=12)
    try:
        cuts.run(CUTS_PER_TITLE * len(TITLES))
    finally:
        cuts.close()
    assert cuts.problems == []
    for title, tally in cuts.tallies.items():
        assert tally.kills == CUTS_PER_TITLE, title
        assert tally.identical == tally.kills, title
    assert sum(t.in_flight for t in cuts.tallies.values()) > 0
