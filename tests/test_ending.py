"""The end of a game (issue 23): who won and why, what the end reveals, a summary; the host's
"play again" with the same players, seats, options and phones; a dead seat link's page.

The ending goes through the one chokepoint (``public_snapshot``) and only once the game is over:
a digital game's identities are public then, and never before. Flask's test client over the real
app in simulation, as in tests/test_phone_seats.py.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from markupsafe import escape
from serving import PIN, host_client

from appliance.wiring import Companion
from companion.ending import ending
from companion.game import IllegalAction
from companion.games.resistance.state import (
    Card,
    CastVote,
    Phase,
    PlayMissionCard,
    ProposeSquad,
    Side,
)
from companion.moderator import Table

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
DIGITAL = {"players": 5, "identities": "digital", "isolated_cylons": True}
PHYSICAL = {"players": 5, "isolated_cylons": True}


def step(table: Table, reject: bool = False) -> None:
    """One move of a plain game: the Commandant names the first seats, everyone approves (or
    rejects), and the squad plays Success."""
    running = table.running
    assert running is not None
    state = running.state
    if state.phase is Phase.PROPOSE:
        size = running.game.public_view(state)["squad_size"]
        table.submit(ProposeSquad(state.commander, tuple(range(size))))
    elif state.phase is Phase.VOTE:
        seat = state.votes.index(None)
        table.submit(CastVote(seat, not reject))
    elif state.phase is Phase.MISSION:
        seat = next(s for s in state.squad if state.cards[s] is None)
        table.submit(PlayMissionCard(seat, Card.SUCCESS))
    else:
        raise AssertionError(f"unexpected phase {state.phase}")


def over(table: Table) -> bool:
    running = table.running
    return running is not None and running.game.outcome(running.state) is not None


def play_out(table: Table, reject: bool = False) -> None:
    while not over(table):
        step(table, reject)


def start(companion: Companion, options: dict[str, Any], lang: str = "en") -> None:
    companion.table.new_game("resistance", options, NAMES, lang)


def sides(companion: Companion) -> tuple[Side, ...]:
    running = companion.table.running
    assert running is not None and running.state.identities is not None
    return tuple(running.state.identities)


def test_at_the_end_of_a_digital_game_every_identity_is_shown(companion: Companion) -> None:
    start(companion, DIGITAL)
    dealt = sides(companion)
    play_out(companion.table)
    snap = companion.app.test_client().get("/api/state").get_json()
    end = snap["ending"]
    assert end["outcome"] == {"winner": "colons", "reason": "three_successes"}
    assert [(s["name"], s["side"]) for s in end["sides"]] == [
        (name, side.value) for name, side in zip(NAMES, dealt, strict=True)
    ]
    assert end["turn_over"] is False
    assert any("Colonials win" in line for line in end["said"])  # who won and why, in words
    # five players: squads of 2, 3 and 2, each all Success
    assert end["summary"] == [
        "Mission 1: success (2 ✔, 0 ✘)",
        "Mission 2: success (3 ✔, 0 ✘)",
        "Mission 3: success (2 ✔, 0 ✘)",
    ]
    cylons = [name for name, side in zip(NAMES, dealt, strict=True) if side is Side.CYLONS]
    assert f"The Cylons were {cylons[0]} and {cylons[1]}." in snap["narration"]  # said aloud


def test_the_ending_is_in_the_games_language(companion: Companion) -> None:
    start(companion, DIGITAL, lang="fr")
    play_out(companion.table, reject=True)  # five rejected squads: the Cylons win
    end = companion.table.snapshot()["ending"]
    assert end["outcome"] == {"winner": "cylons", "reason": "five_rejections"}
    assert {s["text"] for s in end["sides"]} == {"Colon", "Cylon"}
    assert end["summary"] == []  # no mission was played
    assert any(
        line.startswith("Les Cylons étaient ") for line in companion.table.snapshot()["narration"]
    )


def test_before_the_end_no_other_seats_identity_is_anywhere_public(companion: Companion) -> None:
    """At every change of a digital game until its end, the published snapshot (the stream's)
    carries no ending and is the same whatever the identities are; a seat's view carries its
    own identity and no other seat's."""
    published: list[dict[str, Any]] = []
    twins_differ: list[int] = []

    def listener(snap: dict[str, Any]) -> None:
        published.append(snap)
        running = companion.table.running
        if running is None or running.game.outcome(running.state) is not None:
            return
        state = running.state
        twin = dataclasses.replace(state, identities=tuple(reversed(state.identities)))
        for composed in (state, twin):
            if ending(running.game, composed, running.catalog, ()) is not None:
                twins_differ.append(snap["revision"])
        if running.game.public_view(twin) != running.game.public_view(state):
            twins_differ.append(snap["revision"])

    companion.table.subscribe(listener)
    start(companion, DIGITAL)
    dealt = sides(companion)
    client = companion.app.test_client()
    links = companion.table.phones.links.links()
    while not over(companion.table):
        assert companion.table.snapshot()["ending"] is None
        for seat, token in links.items():
            view = client.get(f"/api/seat/{token}/state").get_json()
            assert view["public"]["ending"] is None
            assert view["private"]["identity"] == dealt[seat].value
            text = json.dumps(view)
            assert "sides" not in text
        step(companion.table)
    assert not twins_differ
    before_end = [s for s in published if s["ending"] is None]
    assert len(before_end) > 10
    assert all("sides" not in json.dumps(s) for s in before_end)
    assert published[-1]["ending"]["sides"] is not None  # and at the end, everyone's


def test_a_physical_games_end_asks_to_turn_the_cards_over(companion: Companion) -> None:
    start(companion, PHYSICAL)
    play_out(companion.table)
    snap = companion.table.snapshot()
    assert snap["ending"]["turn_over"] is True
    assert snap["ending"]["sides"] is None  # the companion never knew them
    assert "Turn your identity cards over." in snap["narration"]  # the voice asks too


def test_a_physical_games_end_asks_in_french(companion: Companion) -> None:
    start(companion, PHYSICAL, lang="fr")
    play_out(companion.table)
    assert "Retournez vos cartes Identité." in companion.table.snapshot()["narration"]


def test_a_rematch_keeps_players_options_and_phones_and_deals_anew(
    companion: Companion,
) -> None:
    table = companion.table
    host = host_client(companion.app, PIN)
    options = {**DIGITAL, "first_commander": 2}
    started = host.post(
        "/api/games",
        json={"game": "resistance", "options": options, "names": NAMES, "language": "fr"},
    )
    assert started.status_code == 201
    first = table.running
    assert first is not None
    links = table.phones.links.links()
    phone = companion.app.test_client()
    assert phone.get(f"/seat/{links[2]}").status_code == 200  # seat 2's phone opens its link
    play_out(table)
    assert phone.get(f"/api/seat/{links[2]}/state").status_code == 404  # spent at the end

    answer = host.post("/api/games/rematch", json={"game_id": first.entry.id, "request": "k1"})
    assert answer.status_code == 201
    second = table.running
    assert second is not None and second.entry.id != first.entry.id
    assert second.entry.title == "resistance"
    assert second.entry.options == first.entry.options
    assert second.entry.setup == first.entry.setup  # names and language
    assert second.entry.seed != first.entry.seed  # a new deal
    assert answer.get_json()["ending"] is None and answer.get_json()["phones"] == [2]

    view = phone.get(f"/api/seat/{links[2]}/state").get_json()  # the same phone, no new scan
    assert view["seat"] == 2
    assert view["private"]["identity"] == second.state.identities[2].value
    assert "sides" not in json.dumps(view)
    assert table.phones.links.links() == links  # every seat keeps its own link, and only its own
    for seat, token in links.items():
        assert table.phones.seat_for(token) == seat
    assert table.snapshot()["language"] == "fr" and table.snapshot()["names"] == NAMES


def test_one_tap_one_rematch(companion: Companion) -> None:
    table = companion.table
    host = host_client(companion.app, PIN)
    start(companion, PHYSICAL)
    game_id = table.snapshot()["game_id"]
    early = host.post("/api/games/rematch", json={"game_id": game_id, "request": "early"})
    assert early.status_code == 409  # not over yet: nothing ends
    assert table.snapshot()["game_id"] == game_id
    play_out(table)
    body = {"game_id": game_id, "request": "tap"}
    assert host.post("/api/games/rematch", json=body).status_code == 201
    rematch = table.snapshot()["game_id"]
    again = host.post("/api/games/rematch", json=body)  # the same tap, sent again
    assert again.status_code == 200 and again.get_json()["game_id"] == rematch
    other = host.post("/api/games/rematch", json={"game_id": game_id, "request": "another"})
    assert other.status_code == 409  # the finished game is no longer the table's
    assert table.snapshot()["game_id"] == rematch


def test_a_rematch_needs_the_host(companion: Companion) -> None:
    start(companion, PHYSICAL)
    play_out(companion.table)
    game_id = companion.table.snapshot()["game_id"]
    anyone = companion.app.test_client()
    answer = anyone.post("/api/games/rematch", json={"game_id": game_id, "request": "x"})
    assert answer.status_code in (401, 403)
    assert companion.table.snapshot()["game_id"] == game_id


def test_a_rematch_of_a_hand_chosen_eleusis_rule_is_refused(companion: Companion) -> None:
    table = companion.table
    table.new_game("eleusis", {"players": 3, "rule": "card is red"}, NAMES[:3], "en")
    running = table.running
    assert running is not None
    finished = dataclasses.replace(running)  # the game is made over by its outcome alone
    with pytest.raises(IllegalAction) as refused:
        table.rematch(running.entry.id)
    assert refused.value.code == "rematch_not_over"
    running.game = _Over(running.game)  # type: ignore[assignment]
    with pytest.raises(IllegalAction) as refused:
        table.rematch(finished.entry.id)
    assert refused.value.code == "rematch_secret_choice"


class _Over:
    """A game whose every state is over (to test the rematch's refusals alone)."""

    def __init__(self, game: Any) -> None:
        self._game = game

    def outcome(self, state: Any) -> Any:
        return "over"

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def test_a_dead_link_shows_a_styled_page_with_the_result(companion: Companion) -> None:
    client = companion.app.test_client()
    unknown = client.get("/seat/no-such-token")
    page = unknown.get_data(as_text=True)
    assert unknown.status_code == 404 and unknown.mimetype == "text/html"
    assert "table.css" in page and 'id="seat-gone"' in page
    assert "This seat link does not work" in page and 'id="ending"' not in page

    start(companion, DIGITAL, lang="fr")
    dealt = sides(companion)
    token = companion.table.phones.links.links()[1]
    play_out(companion.table)
    spent = client.get(f"/seat/{token}")
    page = spent.get_data(as_text=True)
    assert spent.status_code == 404
    assert '<html lang="fr">' in page and "Ce lien de place ne fonctionne pas" in page
    assert 'id="ending"' in page
    assert escape(companion.table.snapshot()["ending"]["said"][-1]) in page  # who won and why
    for name, side in zip(NAMES, dealt, strict=True):
        assert name in page
        assert ("Cylon" if side is Side.CYLONS else "Colon") in page
    assert "Mission 1\xa0: réussie" in page
    # the JSON routes still answer JSON
    answer = client.get(f"/api/seat/{token}/state")
    assert answer.status_code == 404 and answer.is_json
    # an unknown token gets the same page as a spent one
    assert client.get("/seat/no-such-token").get_data(as_text=True) == page
