"""Eleusis over HTTP (web/app.py): the host's rule checker (``POST /api/eleusis/check``), a game
with a rule the host typed, whose text no route tells before the end, and a phone that plays a
series for its own seat only.

Flask's test client over the real app (``appliance.wiring.build`` in simulation), as in
tests/test_phone_seats.py and tests/test_host_lock.py.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any

import pytest
from serving import PIN, host_client
from test_eleusis_games import choose

from appliance.wiring import Companion
from companion.games.eleusis.cards import ONE_DECK

NAMES = ["Ada", "Bea", "Cy", "Dan"]
TYPED = "if prev is black then card.value >= 7 else card is hearts or card is clubs"
CHECKED = "count red in last 2 = 1 and card is not court or card.value mod 5 = 3"
MOST_MOVES = 600


@pytest.fixture
def host(companion: Companion) -> Any:
    return host_client(companion.app, PIN)


def check(client: Any, rule: Any, **extra: Any) -> Any:
    return client.post("/api/eleusis/check", json={"rule": rule, **extra})


def journal_bytes(companion: Companion) -> bytes:
    folder = companion.table.journal.path.parent
    return b"".join(p.read_bytes() for p in sorted(folder.glob("journal.sqlite3*")))


def first_event(client: Any, path: str) -> str:
    """The data of a stream's first event (then the stream is closed: it never ends)."""
    answer = client.get(path, buffered=False)
    try:
        for chunk in answer.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            for line in text.splitlines():
                if line.startswith("data: "):
                    return line[len("data: ") :]
        raise AssertionError("the stream ended before its first event")
    finally:
        answer.close()


def start_typed(host: Any, players: int = 4, rule: str = TYPED) -> Any:
    options = {"players": players, "rule": rule, "hand_size": 5}
    return host.post(
        "/api/games",
        json={"game": "eleusis", "options": options, "names": NAMES[:players], "language": "en"},
    )


def links(companion: Companion) -> dict[int, str]:
    return companion.table.phones.links.links()


def seat_act(companion: Companion, token: str, action: Any) -> Any:
    return companion.app.test_client().post(
        f"/api/seat/{token}/act", json=action, headers={"X-Seat-Token": token}
    )


# -- the rule checker -----------------------------------------------------------------------------


def test_the_checker_is_the_hosts_alone(companion: Companion, host: Any) -> None:
    anyone = companion.app.test_client()
    assert check(anyone, "card is red").status_code == 401
    assert start_typed(host).status_code == 201
    token = links(companion)[0]
    phone = anyone.post(
        "/api/eleusis/check", json={"rule": "card is red"}, headers={"X-Seat-Token": token}
    )
    assert phone.status_code == 401
    without_token = companion.app.test_client()
    without_token.set_cookie("companion_host", host.get_cookie("companion_host").value)
    assert check(without_token, "card is red").status_code == 403
    assert check(host, "card is red").status_code == 200


def test_a_good_rule_gets_the_checkers_report(host: Any) -> None:
    answer = check(host, "card.colour != prev.colour")
    assert answer.status_code == 200
    report = answer.get_json()
    assert report["ok"] is True and report["fit"] is True
    assert report["blocks"] is False and report["blocking_line"] is None
    assert report["exhaustive"] is True
    assert report["percent"] == 50 and report["acceptance"] == pytest.approx(0.5)
    assert report["first_cards"] == 52
    assert report["lookback"] == 1
    assert report["advice"] == []


def test_the_checkers_advice_comes_as_sentences_in_the_language_asked(host: Any) -> None:
    report = check(host, "card.value = prev.value").get_json()
    assert report["ok"] is True and report["fit"] is False
    codes = [a["code"] for a in report["advice"]]
    assert codes == ["narrow", "too_hard"]
    assert report["advice"][1]["text"] == (
        "A random card is accepted only 8% of the time: under 30%, the game will be slow."
    )
    french = check(host, "card.value = prev.value", language="fr").get_json()
    assert french["advice"][1]["text"].startswith("Une carte au hasard")
    assert check(host, "card is red", language="de").status_code == 400


def test_a_rule_that_blocks_says_after_which_line(host: Any) -> None:
    report = check(host, "card is red and card is black").get_json()
    assert report["ok"] is True and report["blocks"] is True
    assert report["first_cards"] == 0
    assert [a["code"] for a in report["advice"]] == ["first_card"]


def test_a_syntax_error_comes_with_its_column(host: Any) -> None:
    report = check(host, "card is rde").get_json()
    assert report["ok"] is False
    assert report["error"]["code"] == "unknown_word"
    assert report["error"]["column"] == 9
    assert report["error"]["text"].startswith("Column 9:")


@pytest.mark.parametrize(("lang", "column"), [("en", "Column 9:"), ("fr", "Colonne 9\xa0:")])
def test_a_syntax_error_is_said_without_the_rules_words_unless_the_rule_is_shown(
    host: Any, lang: str, column: str
) -> None:
    """``text`` is for a masked rule field: the column and the kind of error only; ``quoted``,
    for a field shown, may quote the faulty word."""
    error = check(host, "card is rde", language=lang).get_json()["error"]
    assert error["text"].startswith(column) and "rde" not in error["text"]
    assert error["quoted"].startswith(column) and "rde" in error["quoted"]


def test_what_is_not_a_rule_is_refused(host: Any) -> None:
    for body in ({"rule": 3}, {"rule": None}, {}, ["card is red"]):
        answer = host.post("/api/eleusis/check", json=body)
        assert answer.status_code == 400
        assert set(answer.get_json()) == {"error"}


def test_a_checked_rule_is_never_logged_journalled_or_shown(
    companion: Companion, host: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    assert start_typed(host).status_code == 201
    before = companion.table.snapshot()
    for rule in (CHECKED, CHECKED + " ))"):
        assert check(host, rule).status_code == 200
    snapshot = companion.table.snapshot()
    assert snapshot == before  # nothing changed: not even a revision
    assert CHECKED not in caplog.text
    assert CHECKED.encode() not in journal_bytes(companion)
    assert CHECKED not in json.dumps(snapshot)
    assert CHECKED not in host.get("/api/record").get_data(as_text=True)


# -- a game with a typed rule ---------------------------------------------------------------------


def test_a_typed_rule_reaches_no_route_before_the_end_and_is_revealed_after(
    companion: Companion, host: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    answer = start_typed(host)
    assert answer.status_code == 201
    assert TYPED not in answer.get_data(as_text=True)
    tokens = links(companion)
    anyone = companion.app.test_client()
    table = companion.table
    rng = random.Random(5)
    for move in range(MOST_MOVES):
        running = table.running
        assert running is not None
        if running.game.outcome(running.state) is not None:
            break
        if move % 5 == 0:  # every route that tells the table anything
            seen = [
                anyone.get("/api/state").get_data(as_text=True),
                first_event(anyone, "/api/events"),
                host.get("/api/record").get_data(as_text=True),
                anyone.get("/").get_data(as_text=True),
                host.get("/host").get_data(as_text=True),
                caplog.text,
            ]
            for token in tokens.values():
                seen.append(anyone.get(f"/api/seat/{token}/state").get_data(as_text=True))
                seen.append(first_event(anyone, f"/api/seat/{token}/events"))
                seen.append(anyone.get(f"/seat/{token}").get_data(as_text=True))
            for text in seen:
                assert TYPED not in text, text[:300]
        action = choose(rng, running.state).to_json()
        assert host.post("/api/act", json=action).status_code == 200
    else:
        pytest.fail(f"the game did not end in {MOST_MOVES} moves")
    over = anyone.get("/api/state").get_json()["state"]
    assert over["phase"] == "over"
    assert over["rule"] == {"text": TYPED, "id": None, "level": None, "description": None}
    header = json.loads(host.get("/api/record").get_data(as_text=True).splitlines()[0])
    assert TYPED in json.dumps(header)


def test_a_rule_that_cannot_be_read_starts_no_game(companion: Companion, host: Any) -> None:
    answer = start_typed(host, rule="card is rde")
    assert answer.status_code == 400
    assert set(answer.get_json()) == {"error"}
    assert companion.table.running is None


def test_a_game_refused_for_its_rule_says_where_without_quoting_it(host: Any) -> None:
    """The refusal is shown on the host page whether the rule field is masked or not."""
    error = start_typed(host, rule="card is rde").get_json()["error"]
    assert "Column 9" in error and "rde" not in error


# -- a phone plays its own series -----------------------------------------------------------------


def test_a_phone_plays_a_series_for_its_own_seat_only(companion: Companion, host: Any) -> None:
    assert start_typed(host, rule="card is red").status_code == 201
    tokens = links(companion)
    state = companion.table.snapshot()["state"]
    turn = state["turn"]
    other = next(seat for seat in tokens if seat != turn)
    view = companion.app.test_client().get(f"/api/seat/{tokens[turn]}/state").get_json()
    hand = view["private"]["my_hand"]
    series = hand[:2]
    play = {"kind": "play", "seat": turn, "cards": series}
    companion.app.test_client().get(f"/api/seat/{tokens[other]}/state")  # that phone opens it

    before = companion.table.snapshot()
    crossed = seat_act(companion, tokens[other], play)
    assert crossed.status_code == 403
    assert companion.table.snapshot() == before
    not_mine = seat_act(companion, tokens[other], {**play, "seat": other})
    assert not_mine.status_code == 400 and not_mine.get_json()["private"] is False
    missing = next(card.to_json() for card in ONE_DECK if card.to_json() not in hand)
    wrong = seat_act(companion, tokens[turn], {**play, "cards": [missing]})
    assert wrong.status_code == 400 and wrong.get_json()["private"] is True
    assert companion.table.snapshot()["state"] == before["state"]

    answer = seat_act(companion, tokens[turn], play)
    assert answer.status_code == 200
    mine = answer.get_json()
    verdict = mine["public"]["state"]["last_verdict"]
    assert verdict["seat"] == turn and verdict["cards"] == series
    red = all(card[-1] in "HD" for card in series)
    assert verdict["accepted"] is red
    line = mine["public"]["state"]["line"]
    if red:
        assert [entry["card"] for entry in line[-2:]] == series
    else:
        assert line[-1]["below"][-1] == {"cards": series, "seat": turn}
    assert mine["seat"] == turn
    penalty = 0 if red else 2 * len(series)
    assert len(mine["private"]["my_hand"]) == len(hand) - len(series) + penalty
