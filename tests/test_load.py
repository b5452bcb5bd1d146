"""Thirty live pages held while games are played on loopback, each page closing its stream now
and then and opening a new one: no page misses an update (issue 12). The CI version of
``benchmarks/load.py``: 20 s here, 10 minutes there. No timing and no memory figure is checked
here; the benchmark measures them (docs/PERFORMANCE.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from load import Result, run  # noqa: E402

pytestmark = pytest.mark.slow

CLIENTS = 30
SECONDS = 20.0
RECONNECT = 4.0  # mean seconds between a page's reconnects: about 150 in the run


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return run(
        clients=CLIENTS,
        seconds=SECONDS,
        reconnect=RECONNECT,
        seed=12,
        sample_every=1.0,
        directory=tmp_path_factory.mktemp("load"),
    )


def test_games_are_played_and_pages_reconnect_during_the_run(result: Result) -> None:
    assert result.errors == [], result.report()
    assert result.refused == 0, result.report()
    assert result.finished["resistance"] >= 1, result.report()
    assert result.games["night"] >= 1, result.report()
    assert result.game_actions > 100, result.report()
    assert result.connections - CLIENTS > CLIENTS, result.report()  # more reconnects than pages


def test_within_one_stream_every_revision_follows_the_last_without_a_gap(result: Result) -> None:
    assert result.events > CLIENTS * result.revisions // 2, result.report()
    assert result.gaps == 0, result.report()


def test_a_reconnected_page_never_starts_from_a_snapshot_older_than_it_has_seen(
    result: Result,
) -> None:
    assert result.backwards == 0, result.report()


def test_the_server_ends_no_stream_while_the_pages_keep_up(result: Result) -> None:
    assert result.server_ended == 0, result.report()


def test_every_page_reaches_the_final_revision_once_play_stops(result: Result) -> None:
    assert result.revisions > 0, result.report()
    assert result.short == 0, result.report()
