"""Seats on phones (companion/seats_online.py, the /seat and /api/seat routes of web/app.py).

A phone holds one seat's link: an unguessable token bound to one game, revoked when the game
ends, when a new game starts, or when the host re-deals the links, and kept across a restart. A
phone sees its own seat's private view and never another's; its A and B go through the same
input port as the button box. Run on Flask's test client over the real app in simulation.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from serving import PIN, quiet_companion

from appliance.wiring import Companion
from companion.games.resistance.engine import deal_identities
from companion.games.resistance.state import Side
from companion.seat_input import Button, Press
from companion.seats_online import SeatLinks, actor

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
DIGITAL = {"players": 5, "identities": "digital", "isolated_cylons": True}
INVALID = "This seat link does not work"


def make(tmp_path: Path) -> Companion:
    return quiet_companion(tmp_path)  # type: ignore[no-any-return]


def start(companion: Companion, options: dict[str, Any] | None = None, seed: int = 11) -> None:
    companion.table.new_game("resistance", options or DIGITAL, NAMES, "en", seed=seed)


def links(companion: Companion) -> dict[int, str]:
    return companion.table.phones.links.links()


def press(client: Any, token: str, button: str) -> Any:
    return client.post(
        f"/api/seat/{token}/press", json={"button": button}, headers={"X-Seat-Token": token}
    )


def to_vote(companion: Companion) -> None:
    """Seats 0 and 1 name themselves onto the first squad; the Commandant (seat 0) confirms."""
    for seat in (0, 1, 0):
        companion.table.press(Press(seat, Button.A))
    assert companion.table.snapshot()["state"]["phase"] == "vote"


def identities(companion: Companion) -> tuple[Side, ...]:
    running = companion.table.running
    assert running is not None and running.state.identities is not None
    return tuple(running.state.identities)


# -- the links -----------------------------------------------------------------------------------


def test_a_new_game_deals_one_unguessable_link_per_seat(companion: Companion) -> None:
    start(companion)
    tokens = links(companion)
    assert sorted(tokens) == [0, 1, 2, 3, 4]
    assert len(set(tokens.values())) == 5
    assert all(len(token) >= 32 for token in tokens.values())


def test_guessed_tokens_open_no_seat(companion: Companion) -> None:
    start(companion)
    client = companion.app.test_client()
    real = links(companion)[0]
    guesses = [secrets.token_urlsafe(24) for _ in range(20)] + [real[:-1], real + "x", "", "0"]
    for guess in guesses:
        if not guess:
            continue
        assert client.get(f"/api/seat/{guess}/state").status_code == 404
        assert client.get(f"/seat/{guess}").status_code == 404
        assert press(client, guess, "A").status_code == 404
        assert companion.table.phones.seat_for(guess) is None


def test_every_refused_token_gets_the_same_answer(companion: Companion) -> None:
    start(companion)
    client = companion.app.test_client()
    old = links(companion)[2]
    companion.table.phones.redeal_all()
    revoked = client.get(f"/api/seat/{old}/state")
    guessed = client.get(f"/api/seat/{secrets.token_urlsafe(24)}/state")
    assert revoked.status_code == guessed.status_code == 404
    assert revoked.get_json() == guessed.get_json()
    assert INVALID in revoked.get_json()["error"]


def test_a_link_is_refused_once_a_new_game_starts(companion: Companion) -> None:
    start(companion)
    client = companion.app.test_client()
    old = links(companion)
    start(companion, seed=12)
    new = links(companion)
    for seat, token in old.items():
        assert client.get(f"/api/seat/{token}/state").status_code == 404
        assert new[seat] != token
        assert client.get(f"/api/seat/{new[seat]}/state").status_code == 200


def test_a_link_is_refused_once_the_host_re_deals_them(companion: Companion) -> None:
    start(companion)
    client = companion.app.test_client()
    old = links(companion)[1]
    companion.table.phones.redeal_all()
    assert client.get(f"/api/seat/{old}/state").status_code == 404
    assert client.get(f"/api/seat/{links(companion)[1]}/state").get_json()["seat"] == 1


def three_failed_missions(companion: Companion) -> None:
    """With physical identities any card is accepted: three failed missions, the Cylons win."""
    for _ in range(3):
        state = companion.table.snapshot()["state"]
        squad = state["commander"]
        size = state["missions"][state["mission"] - 1]["size"]
        members = [(squad + i) % 5 for i in range(size)]
        for seat in members:
            companion.table.press(Press(seat, Button.A))
        companion.table.press(Press(squad, Button.A))
        for seat in range(5):
            companion.table.press(Press(seat, Button.A))
        for seat in members:
            companion.table.press(Press(seat, Button.B))
    assert companion.table.snapshot()["state"]["outcome"] is not None


def test_a_link_is_refused_once_the_game_ends(companion: Companion) -> None:
    start(companion, {"players": 5, "isolated_cylons": True})
    client = companion.app.test_client()
    token = links(companion)[3]
    three_failed_missions(companion)
    assert links(companion) == {}
    assert client.get(f"/api/seat/{token}/state").status_code == 404


def test_the_links_of_a_game_over_cannot_be_re_dealt(companion: Companion) -> None:
    start(companion, {"players": 5, "isolated_cylons": True})
    three_failed_missions(companion)
    client = host(companion)
    answer = client.post(
        "/api/host/seats/redeal", json={"confirm": True}, headers={"X-CSRF-Token": client.csrf}
    )
    assert answer.status_code == 409
    assert "The game is over" in answer.get_json()["error"]
    assert links(companion) == {}
    assert client.get("/api/host/seats").get_json() == []


def test_another_games_token_opens_no_seat(tmp_path: Path) -> None:
    first, second = make(tmp_path / "one"), make(tmp_path / "two")
    try:
        start(first)
        start(second)
        client = second.app.test_client()
        for token in links(first).values():
            assert client.get(f"/api/seat/{token}/state").status_code == 404
    finally:
        first.close()
        second.close()


def test_an_older_games_token_kept_in_memory_is_refused(companion: Companion) -> None:
    """``SeatLinks`` answers for the game it was minted for only."""
    start(companion)
    running = companion.table.running
    assert running is not None
    stale = SeatLinks(companion.table.journal)
    stale.load(running.entry.id)
    token = stale.links()[0]
    start(companion, seed=13)
    assert companion.table.phones.seat_for(token) is None
    assert companion.table.journal.seat_tokens(running.entry.id) == {}


def test_tokens_survive_a_restart_and_the_phone_resumes_its_seat(tmp_path: Path) -> None:
    first = make(tmp_path)
    start(first)
    to_vote(first)
    tokens = links(first)
    press(first.app.test_client(), tokens[2], "B")
    first.close()
    again = make(tmp_path)  # build() resumes the journal's game
    try:
        assert links(again) == tokens
        view = again.app.test_client().get(f"/api/seat/{tokens[2]}/state").get_json()
        assert view["seat"] == 2
        assert view["private"]["my_vote"] is False
    finally:
        again.close()


# -- what a phone sees ---------------------------------------------------------------------------


def test_a_seats_state_holds_its_own_identity_and_no_other(companion: Companion) -> None:
    start(companion)
    client = companion.app.test_client()
    sides = identities(companion)
    for seat, token in links(companion).items():
        view = client.get(f"/api/seat/{token}/state").get_json()
        assert view["seat"] == seat
        assert view["name"] == NAMES[seat]
        assert view["public"] == companion.table.snapshot()
        assert view["private"]["identity"] == sides[seat].value
        assert view["private"] == companion.table.phones.private(seat)
        assert set(view) == {"seat", "name", "public", "private", "notice"}


def read_events(response: Any, count: int) -> list[dict[str, Any]]:
    """The next ``count`` seat messages of an SSE response, as JSON."""
    out: list[dict[str, Any]] = []
    chunks = iter(response.response)
    while len(out) < count:
        chunk = next(chunks)
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        for block in text.split("\n\n"):
            data = [line[6:] for line in block.split("\n") if line.startswith("data: ")]
            if "event: seat" in block and data:
                out.append(json.loads(data[0]))
    return out


def test_a_seats_stream_never_carries_another_seats_identity() -> None:
    """Seed chosen so seats 0 and 1 differ; the stream of seat 0 follows the whole vote."""
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        companion = make(Path(directory))
        try:
            for seed in range(1, 50):
                start(companion, seed=seed)
                if identities(companion)[0] is not identities(companion)[1]:
                    break
            sides = identities(companion)
            token = links(companion)[0]
            client = companion.app.test_client()
            response = client.get(f"/api/seat/{token}/events", buffered=False)
            assert response.status_code == 200
            first = read_events(response, 1)[0]
            to_vote(companion)
            for seat in range(5):
                companion.table.press(Press(seat, Button.A))
            later = read_events(response, 1)
            response.close()
            for view in [first, *later]:
                assert view["seat"] == 0
                assert view["private"]["identity"] == sides[0].value
                text = json.dumps(view)
                assert f'"identity": "{sides[1].value}"' not in text
                assert '"seat": 1' not in text
        finally:
            companion.close()


def test_a_revoked_links_stream_is_told_and_ends(companion: Companion) -> None:
    start(companion)
    token = links(companion)[0]
    response = companion.app.test_client().get(f"/api/seat/{token}/events", buffered=False)
    chunks = iter(response.response)
    next(chunks)
    companion.table.phones.redeal_all()
    rest = b"".join(c if isinstance(c, bytes) else c.encode() for c in chunks)
    assert b"event: gone" in rest
    assert companion.app.test_client().get(f"/api/seat/{token}/events").status_code == 404


# -- what a phone does ---------------------------------------------------------------------------


def test_a_phone_press_is_journalled_exactly_like_a_button_press(tmp_path: Path) -> None:
    by_phone, by_button = make(tmp_path / "phone"), make(tmp_path / "button")
    try:
        for companion in (by_phone, by_button):
            start(companion, seed=5)
            to_vote(companion)
        client = by_phone.app.test_client()
        tokens = links(by_phone)
        for seat, button in ((2, "A"), (3, "B")):
            answer = press(client, tokens[seat], button)
            assert answer.status_code == 200, answer.get_json()
            assert answer.get_json()["accepted"] is True
            by_button.table.press(Press(seat, Button(button)))
        phone_running, button_running = by_phone.table.running, by_button.table.running
        assert phone_running is not None and button_running is not None
        phone = by_phone.table.journal.actions(phone_running.entry.id)
        button = by_button.table.journal.actions(button_running.entry.id)
        assert phone == button
        assert phone[-1] == {"kind": "vote", "seat": 3, "approve": False}
    finally:
        by_phone.close()
        by_button.close()


def test_a_phones_press_needs_its_token_in_the_header(companion: Companion) -> None:
    start(companion)
    to_vote(companion)
    client = companion.app.test_client()
    token = links(companion)[2]
    bare = client.post(f"/api/seat/{token}/press", json={"button": "A"})
    assert bare.status_code == 403
    other = links(companion)[3]
    crossed = client.post(
        f"/api/seat/{token}/press", json={"button": "A"}, headers={"X-Seat-Token": other}
    )
    assert crossed.status_code == 403
    foreign = client.post(
        f"/api/seat/{token}/press",
        json={"button": "A"},
        headers={"X-Seat-Token": token, "Origin": "http://evil.example"},
    )
    assert foreign.status_code == 403
    assert companion.table.phones.private(2)["my_vote"] is None


def test_a_phone_acts_for_its_own_seat_only(companion: Companion) -> None:
    start(companion)
    to_vote(companion)
    client = companion.app.test_client()
    token = links(companion)[2]
    vote = {"kind": "vote", "seat": 3, "approve": True}
    refused = client.post(f"/api/seat/{token}/act", json=vote, headers={"X-Seat-Token": token})
    assert refused.status_code == 403
    assert companion.table.phones.private(3)["my_vote"] is None
    own = {"kind": "vote", "seat": 2, "approve": True}
    done = client.post(f"/api/seat/{token}/act", json=own, headers={"X-Seat-Token": token})
    assert done.status_code == 200
    assert done.get_json()["private"]["my_vote"] is True


def test_a_refusal_meant_for_a_seat_alone_is_shown_on_its_phone_only(
    companion: Companion,
) -> None:
    # the first seed whose deal puts a Colon on the first squad (seats 0 and 1, ``to_vote``)
    seed = next(s for s in range(1, 100) if Side.COLONS in deal_identities(5, s)[:2])
    start(companion, seed=seed)
    sides = identities(companion)
    assert sides == deal_identities(5, seed)
    colon = next(s for s in (0, 1) if sides[s] is Side.COLONS)
    to_vote(companion)
    for seat in range(5):
        companion.table.press(Press(seat, Button.A))
    token = links(companion)[colon]
    fail = {"kind": "mission_card", "seat": colon, "card": "fail"}
    said_before = list(companion.table.snapshot()["narration"])
    answer = companion.app.test_client().post(
        f"/api/seat/{token}/act", json=fail, headers={"X-Seat-Token": token}
    )
    assert answer.status_code == 400
    assert answer.get_json()["private"] is True
    assert companion.table.snapshot()["narration"] == said_before


def test_the_acting_seat_of_an_action() -> None:
    from companion.games.resistance.state import CastVote, EndNight, ProposeSquad

    assert actor(CastVote(3, True)) == 3
    assert actor(ProposeSquad(1, (1, 2))) == 1
    assert actor(EndNight()) is None


# -- the host's QR codes --------------------------------------------------------------------------


def host(companion: Companion) -> Any:
    client = companion.app.test_client()
    client.get("/host")
    with client.session_transaction() as session:
        csrf = session["csrf"]
    client.post("/host/login", data={"pin": PIN, "csrf_token": csrf})
    with client.session_transaction() as session:
        client.csrf = session["csrf"]  # type: ignore[attr-defined]
    return client


def test_the_seat_links_are_for_the_host_only(companion: Companion) -> None:
    start(companion)
    anyone = companion.app.test_client()
    assert anyone.get("/api/host/seats").status_code == 401
    assert anyone.post("/api/host/seats/redeal", json={}).status_code == 401
    client = host(companion)
    # the page was loaded from http://localhost/: the links name the companion's own address
    seats = client.get("/api/host/seats").get_json()
    assert [s["seat"] for s in seats] == [0, 1, 2, 3, 4]
    assert [s["name"] for s in seats] == NAMES
    token = links(companion)[0]
    assert seats[0]["url"] == f"http://127.0.0.1:5000/seat/{token}"  # the page's own address
    assert seats[0]["qr_svg"].startswith("<svg")


def test_the_host_re_deals_the_links(companion: Companion) -> None:
    start(companion)
    old = links(companion)
    client = host(companion)
    answer = client.post(
        "/api/host/seats/redeal",
        json={"confirm": True},
        headers={"X-CSRF-Token": client.csrf},
    )
    assert answer.status_code == 200
    new = links(companion)
    assert all(new[s] != old[s] for s in old)
    assert [s["url"].rsplit("/", 1)[1] for s in answer.get_json()] == [new[s] for s in sorted(new)]


def test_the_seat_page_carries_its_token_and_no_host_controls(companion: Companion) -> None:
    start(companion)
    token = links(companion)[4]
    page = companion.app.test_client().get(f"/seat/{token}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "seat.js" in text and 'id="seat-A"' in text
    assert "csrf-token" not in text and 'id="new-game"' not in text
    assert page.headers["Cache-Control"] == "no-store"
    assert page.headers["Referrer-Policy"] == "no-referrer"


def test_a_phone_press_during_the_night_is_ignored_like_a_button_press(tmp_path: Path) -> None:
    """With a night phase, a phone's press during it is ignored like a button's."""
    night = {"intro": 0.0, "close_eyes": 0.0, "cylons_open": 30.0, "cylons_close": 0.0}
    companion = quiet_companion(tmp_path, pauses=night)
    try:
        companion.table.new_game("resistance", {"players": 5}, NAMES, "en", seed=3)
        assert companion.table.snapshot()["state"]["phase"] == "night"
        version = companion.table.snapshot()["version"]
        answer = press(companion.app.test_client(), links(companion)[0], "A")
        assert answer.status_code == 200
        assert answer.get_json()["accepted"] is False
        assert companion.table.snapshot()["state"]["phase"] == "night"
        assert companion.table.snapshot()["version"] == version
    finally:
        companion.close()


def test_the_squad_being_named_is_public_as_it_is_said_aloud(companion: Companion) -> None:
    """A phone labels its A and B from it: join, step out, confirm; with "Attaques ciblées" the
    Commandant's mission offered first."""
    start(companion, {**DIGITAL, "targeting": True})

    def naming() -> Any:
        return companion.table.snapshot()["naming"]

    assert naming() == {"offered": None, "mission": None, "members": []}
    companion.table.press(Press(0, Button.A))
    assert naming() == {"offered": 1, "mission": None, "members": []}
    companion.table.press(Press(0, Button.B))
    companion.table.press(Press(3, Button.A))
    assert naming() == {"offered": None, "mission": 1, "members": [3]}
    seat_view = companion.app.test_client().get(f"/api/seat/{links(companion)[2]}/state")
    assert seat_view.get_json()["public"]["naming"] == naming()
