"""Nothing destructive by accident (issue 23): a running game ends only when the host says so,
naming it; one click starts one game; a replaced game says nothing more; re-dealing every seat's
link is confirmed first.

Flask's test client over the real app (``appliance.wiring.build`` in simulation), with the real
narrator speaking through the project's Speech protocol (tests/test_button_games.py's recorder),
as in tests/test_phone_seats.py.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import PIN, host_client
from test_button_games import RecordingSpeech

from appliance.wiring import Companion, build
from companion.config import CameraConfig, Config
from companion.narration import Catalog
from companion.narration.resistance import night_script
from companion.narration.script import Line
from voice.narrator import Narrator

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
FIVE = {"game": "resistance", "options": {"players": 5}, "names": NAMES}
NIGHT = {"intro": 0.0, "close_eyes": 0.0, "cylons_open": 0.0, "cylons_close": 0.0}


@pytest.fixture
def speech() -> RecordingSpeech:
    return RecordingSpeech()


@pytest.fixture
def companion(tmp_path: Path, speech: RecordingSpeech) -> Iterator[Companion]:
    config = Config(
        data_dir=tmp_path,
        pin_factory="mock",
        camera=CameraConfig(source="generated:3"),
        host_pin=PIN,
        pauses=NIGHT,
    )
    running = build(config, speech=speech)
    try:
        yield running
    finally:
        speech.gate.set()
        running.close()


@pytest.fixture
def host(companion: Companion) -> Any:
    return host_client(companion.app, PIN)


def start(host: Any, **extra: Any) -> Any:
    return host.post("/api/games", json={**FIVE, **extra})


def game_id(host: Any) -> int:
    return int(host.get("/api/state").get_json()["game_id"])


# -- a second start while a game runs ------------------------------------------------------------


def test_a_second_start_while_a_game_runs_is_refused_and_names_the_game(
    host: Any, companion: Companion
) -> None:
    assert start(host).status_code == 201
    assert companion.narrator.wait_idle(5)  # the night is over: nothing moves on its own
    before = host.get("/api/state").get_json()
    answer = start(host, game="oraklos", options={"players": 2}, names=[])
    assert answer.status_code == 409
    refusal = answer.get_json()
    assert refusal["error"] == Catalog("en").text("errors.game_running", game="Résistance")
    assert refusal["running"] == {"id": before["game_id"], "game": "Résistance"}
    assert host.get("/api/state").get_json() == before


def test_the_refusal_is_in_the_running_games_language(host: Any) -> None:
    assert start(host, language="fr").status_code == 201
    answer = start(host, game="oraklos", options={"players": 2}, names=[], language="en")
    assert answer.status_code == 409
    assert answer.get_json()["error"].startswith("Une partie de Résistance est en cours\u00a0:")


def test_the_host_ends_a_running_game_by_naming_it(host: Any, companion: Companion) -> None:
    assert start(host).status_code == 201
    first = game_id(host)
    answer = start(host, game="oraklos", options={"players": 2}, names=[], replace=first)
    assert answer.status_code == 201
    assert answer.get_json()["game"] == "oraklos"
    assert companion.table.journal.latest_game().id == first + 1  # type: ignore[union-attr]


def test_an_older_games_id_ends_no_newer_game(host: Any) -> None:
    """A second tab confirmed against the game it saw; another has replaced it since."""
    assert start(host).status_code == 201
    seen = game_id(host)
    assert start(host, replace=seen).status_code == 201
    newer = game_id(host)
    answer = start(host, replace=seen)
    assert answer.status_code == 409
    assert answer.get_json()["running"]["id"] == newer
    assert game_id(host) == newer


def test_a_replace_that_is_not_an_id_is_refused(host: Any) -> None:
    assert start(host).status_code == 201
    for wrong in ("1", True, 1.5, [1]):
        assert start(host, replace=wrong).status_code == 400


# -- one game per click --------------------------------------------------------------------------


def test_the_same_click_twice_starts_one_game(host: Any, companion: Companion) -> None:
    first = start(host, request="click-1")
    again = start(host, request="click-1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.get_json()["game_id"] == first.get_json()["game_id"]
    assert companion.table.journal.latest_game().id == first.get_json()["game_id"]  # type: ignore[union-attr]


def test_a_double_click_arriving_at_once_starts_one_game(companion: Companion, host: Any) -> None:
    other = host_client(companion.app, PIN)  # a second session: the two requests race
    answers: list[int] = []
    ready = threading.Barrier(2)

    def click(client: Any) -> None:
        ready.wait()
        answers.append(start(client, request="click-2").status_code)

    threads = [threading.Thread(target=click, args=(c,)) for c in (host, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(answers) == [200, 201]
    assert companion.table.journal.latest_game().id == 1  # type: ignore[union-attr]


def test_a_new_click_while_a_game_runs_asks_to_confirm(host: Any) -> None:
    assert start(host, request="click-3").status_code == 201
    assert start(host, request="click-4").status_code == 409


def test_a_refused_click_may_be_sent_again_once_confirmed(host: Any) -> None:
    """The page resends the same click's key with the running game's id."""
    assert start(host, request="a").status_code == 201
    running = start(host, request="b").get_json()["running"]["id"]
    assert start(host, request="b", replace=running).status_code == 201
    assert start(host, request="b", replace=running).status_code == 200


@pytest.mark.parametrize("key", ["", "x" * 101, 7, ["k"]])
def test_a_request_key_must_be_a_short_text(host: Any, key: Any) -> None:
    assert start(host, request=key).status_code == 400


# -- a replaced game says nothing more -----------------------------------------------------------


def test_a_replaced_game_says_nothing_more(
    host: Any, companion: Companion, speech: RecordingSpeech
) -> None:
    """Its first line is in the air when the host ends it: its night is never narrated."""
    assert companion.narrator.wait_idle(5)  # the companion has said it is ready
    speech.lines.clear()
    speech.speaking.clear()
    speech.gate.clear()  # the first line is held, like a long sentence being spoken
    assert start(host, language="fr").status_code == 201
    assert speech.speaking.wait(5)
    night = [
        item.text for item in night_script(Catalog("fr", NAMES), NIGHT) if isinstance(item, Line)
    ]
    replaced = game_id(host)
    answer = start(host, game="oraklos", options={"players": 2}, names=[], replace=replaced)
    assert answer.status_code == 201
    speech.gate.set()
    assert companion.narrator.wait_idle(5)
    assert speech.lines[0].startswith("Une partie")  # the line that was in the air
    assert not set(night) & set(speech.lines)
    assert all(line not in night for line in host.get("/api/state").get_json()["narration"])
    assert host.get("/api/state").get_json()["game"] == "oraklos"


def test_the_narrator_drops_what_is_queued_when_hushed() -> None:
    speech = RecordingSpeech()
    narrator = Narrator(lambda: speech, sleep=lambda seconds: None)
    try:
        speech.gate.clear()
        narrator.say("in the air", "en")
        assert speech.speaking.wait(5)
        after: list[str] = []
        narrator.script([Line("queued"), Line("queued too")], "en", then=lambda: after.append("!"))
        narrator.hush()
        narrator.say("said after", "en")
        speech.gate.set()
        assert narrator.wait_idle(5)
        assert speech.lines == ["in the air", "said after"]
        assert after == []
    finally:
        speech.gate.set()
        narrator.close()


# -- re-dealing every link -----------------------------------------------------------------------


def links(host: Any) -> list[str]:
    return [seat["url"] for seat in host.get("/api/host/seats").get_json()]


def test_re_dealing_every_link_needs_a_confirmation(host: Any) -> None:
    assert start(host).status_code == 201
    before = links(host)
    for body in ({}, {"confirm": "yes"}, {"confirm": 1}, []):
        answer = host.post("/api/host/seats/redeal", json=body)
        assert answer.status_code == 400
        assert answer.get_json()["error"] == Catalog("en").text("errors.redeal_unconfirmed")
    assert links(host) == before
    answer = host.post("/api/host/seats/redeal", json={"confirm": True})
    assert answer.status_code == 200
    assert not set(links(host)) & set(before)


def test_one_seats_link_is_still_re_dealt_alone(host: Any) -> None:
    assert start(host).status_code == 201
    before = links(host)
    assert host.post("/api/host/seats/2/redeal", json={}).status_code == 200
    after = links(host)
    assert [a == b for a, b in zip(before, after, strict=True)] == [
        True,
        True,
        False,
        True,
        True,
    ]
