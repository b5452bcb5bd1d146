"""``companion serve`` killed with SIGKILL at any moment resumes the game exactly, nothing lost.

Every press whose HTTP answer came back was journalled before the answer was sent, so it must
be there after the restart, including votes not yet revealed (they show when the vote ends).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import Server, start_server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = start_server(tmp_path, pause=0.05, cylons_open=0.05)
    yield server
    server.stop()


def in_phase(phase: str):
    return lambda snap: snap["state"] is not None and snap["state"]["phase"] == phase


def restart(server: Server) -> dict:
    before = server.state()
    server.kill()
    server.start()
    after = server.state()
    assert after["game_id"] == before["game_id"]
    assert after["version"] == before["version"]
    assert after["state"] == before["state"]
    return after


def name_squad(server: Server, squad: list[int]) -> None:
    commander = server.state()["state"]["commander"]
    for seat in squad:
        server.press(seat, "A")
    server.press(commander, "A")


def test_a_game_killed_mid_vote_resumes_with_the_votes_already_cast(server: Server) -> None:
    status, _ = server.post("/api/games", {"options": {"players": 5}, "names": NAMES})
    assert status == 201
    server.wait_for(in_phase("propose"))
    name_squad(server, [0, 1])
    server.press(0, "A")
    server.press(1, "B")
    server.press(2, "B")
    snap = restart(server)
    assert snap["state"]["voted"] == [0, 1, 2]
    server.press(3, "B")
    server.press(4, "A")
    result = server.state()["state"]["last_vote"]
    assert result["approvals"] == [True, False, False, False, True]
    assert result["approved"] is False


def test_a_game_killed_at_random_moments_loses_no_accepted_action(server: Server) -> None:
    rng = random.Random(7)
    server.post("/api/games", {"options": {"players": 5}, "names": NAMES, "language": "fr"})
    server.wait_for(in_phase("propose"))
    kills = 0
    while server.state()["state"]["outcome"] is None:
        state = server.state()["state"]
        if state["phase"] == "propose":
            squad = sorted(rng.sample(range(5), state["squad_size"]))
            name_squad(server, squad)
        elif state["phase"] == "vote":
            seat = next(s for s in range(5) if s not in state["voted"])
            server.press(seat, "A" if rng.random() < 0.7 else "B")
        elif state["phase"] == "mission":
            seat = next(s for s in state["squad"] if s not in state["played"])
            server.press(seat, "B" if rng.random() < 0.3 else "A")
        if rng.random() < 0.2:
            restart(server)
            kills += 1
    assert kills >= 3
    assert server.state()["state"]["outcome"]["winner"] in ("colons", "cylons")


def test_a_game_killed_during_the_night_speaks_the_night_again(tmp_path: Path) -> None:
    server = start_server(tmp_path, pause=0.05, cylons_open=60)
    try:
        server.post("/api/games", {"options": {"players": 6}, "names": [*NAMES, "Fox"]})
        server.wait_for(lambda s: any("Cylons, open" in line for line in s["narration"]))
        snap = restart(server)
        assert snap["state"]["phase"] == "night"
        server.wait_for(lambda s: any("Cylons, open" in line for line in s["narration"]))
    finally:
        server.stop()
