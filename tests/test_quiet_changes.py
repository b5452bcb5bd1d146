"""An action that changes nothing public publishes nothing public (issue 21).

A player at the table watches the public page and its stream: a vote changed before the reveal
must not move the revision, the version or the stream, or the table learns that a seat changed
its mind. Each test plays twin tables: one where a seat changes its secret choice, one where it
made that choice at once; everything public (snapshots, what was published and when, what was
said) must be identical.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from heard import HeardNarrator, all_said

from companion.game import IllegalAction
from companion.games.ostrakon.state import Ask
from companion.games.ostrakon.state import Vote as Tesson
from companion.games.resistance.state import Card, CastVote, PlayMissionCard, ProposeSquad
from companion.journal import Journal
from companion.moderator import Table
from companion.seat_input import Button, Press

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve", "Fay"]


class Twin:
    """A table and everything public it gave out: each published snapshot, each wake of the
    seats' own pages, what was said."""

    def __init__(self, tmp_path: Path, name: str) -> None:
        self.voice = HeardNarrator()
        self.table = Table(Journal(tmp_path / f"{name}.sqlite3"), self.voice, seats=6)
        self.published: list[dict[str, Any]] = []
        self.private_wakes = 0
        self.table.subscribe(self.published.append)
        self.table.phones.subscribe(self._woken)

    def _woken(self) -> None:
        self.private_wakes += 1

    def public(self) -> tuple[Any, ...]:
        return self.table.snapshot(), self.published, self.voice.said


def test_a_changed_vote_moves_no_revision_no_version_and_no_event(tmp_path: Path) -> None:
    changed, straight = Twin(tmp_path, "changed"), Twin(tmp_path, "straight")
    for twin in (changed, straight):
        twin.table.new_game("resistance", {"players": 5}, NAMES[:5], "en", seed=1)
        all_said(twin.table)  # the night, said to its end
        twin.table.submit(ProposeSquad(0, (0, 1)))
    changed.table.submit(CastVote(1, True))
    changed.table.submit(CastVote(1, False))  # changed before the last seat voted
    straight.table.submit(CastVote(1, False))
    assert changed.public() == straight.public()
    assert changed.private_wakes == straight.private_wakes + 1  # seat 1's own page is told
    assert changed.table.phones.private(1) == straight.table.phones.private(1)


def test_the_revealed_votes_of_twin_tables_are_the_same(tmp_path: Path) -> None:
    changed, straight = Twin(tmp_path, "changed"), Twin(tmp_path, "straight")
    for twin in (changed, straight):
        twin.table.new_game("resistance", {"players": 5}, NAMES[:5], "en", seed=1)
        all_said(twin.table)  # the night, said to its end
        twin.table.submit(ProposeSquad(0, (0, 1)))
    for seat in range(5):
        changed.table.submit(CastVote(seat, False))
        if seat < 4:
            changed.table.submit(CastVote(seat, True))
        straight.table.submit(CastVote(seat, seat < 4))
    assert changed.public() == straight.public()
    assert changed.table.snapshot()["state"]["phase"] == "mission"


def test_a_changed_tesson_publishes_nothing(tmp_path: Path) -> None:
    changed, straight = Twin(tmp_path, "changed"), Twin(tmp_path, "straight")
    for twin in (changed, straight):
        twin.table.new_game("ostrakon", {"players": 6}, NAMES, "en", seed=1)
        running = twin.table.running
        assert running is not None
        twin.table.submit(Ask(running.state.asker))
    voter = next(s for s in range(6) if s != changed.table.running.state.asker)  # type: ignore[union-attr]
    changed.table.submit(Tesson(voter, True))
    changed.table.submit(Tesson(voter, False))
    straight.table.submit(Tesson(voter, False))
    assert changed.public() == straight.public()


def test_a_changed_vote_on_the_buttons_says_and_lights_nothing_new(tmp_path: Path) -> None:
    changed, straight = Twin(tmp_path, "changed"), Twin(tmp_path, "straight")
    for twin in (changed, straight):
        twin.table.new_game("resistance", {"players": 5}, NAMES[:5], "en", seed=1)
        all_said(twin.table)  # the night, said to its end
        twin.table.submit(ProposeSquad(0, (0, 1)))
    changed.table.press(Press(2, Button.A))
    changed.table.press(Press(2, Button.B))
    straight.table.press(Press(2, Button.B))
    assert changed.public() == straight.public()


def test_a_refusal_for_one_seat_alone_is_never_said_from_a_button(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The button mapping turns a Colonial's B into a success; were it ever to send the fail,
    the engine's refusal names the seat's side: the table shows it on that seat's page alone."""
    from companion.games.resistance import controls

    twin = Twin(tmp_path, "table")
    options = {"players": 5, "identities": "digital"}
    twin.table.new_game("resistance", options, NAMES[:5], "en", seed=1)
    all_said(twin.table)  # the night, said to its end
    running = twin.table.running
    assert running is not None
    colonial = next(s for s, side in enumerate(running.state.identities) if side.value == "colons")
    squad = (colonial, next(s for s in range(5) if s != colonial))
    twin.table.submit(ProposeSquad(running.state.commander, squad))
    for seat in range(5):
        twin.table.submit(CastVote(seat, True))
    assert twin.table.snapshot()["state"]["phase"] == "mission"
    real = controls.interpret

    def mapped_to_fail(state: Any, pending: Any, press: Press) -> Any:
        result = real(state, pending, press)
        if press.seat == colonial and press.button is Button.B:
            return type(result)(result.pending, PlayMissionCard(colonial, Card.FAIL), ())
        return result

    monkeypatch.setattr(
        running, "rules", dataclasses.replace(running.rules, interpret=mapped_to_fail)
    )
    before = twin.public()
    said = len(twin.voice.said)
    answer = twin.table.press(Press(colonial, Button.B))
    assert answer.accepted is None and answer.messages == ()
    assert twin.voice.said[said:] == [] and twin.table.snapshot() == before[0]
    token = twin.table.phones.links.links()[colonial]
    view = twin.table.phones.view(token)
    assert view is not None and view["notice"] == twin.table.explain(
        IllegalAction("colons_cannot_fail", seat=colonial, private_to=colonial)
    )
    others = [t for s, t in twin.table.phones.links.links().items() if s != colonial]
    assert all(twin.table.phones.view(t)["notice"] is None for t in others)  # type: ignore[index]


def test_the_host_page_is_told_only_that_a_private_refusal_happened(tmp_path: Path) -> None:
    twin = Twin(tmp_path, "table")
    twin.table.new_game("resistance", {"players": 5}, NAMES[:5], "en", seed=1)
    all_said(twin.table)  # the night, said to its end
    refusal = IllegalAction("colons_cannot_fail", seat=3, private_to=3)
    neutral = twin.table.text("errors.private_refusal")
    assert twin.table.refusal_for(refusal) == neutral  # the host page, the table
    assert twin.table.refusal_for(refusal, seat=2) == neutral  # another seat's phone
    assert twin.table.refusal_for(refusal, seat=3) == twin.table.explain(refusal)
    public = IllegalAction("not_on_squad", seat=3)
    assert twin.table.refusal_for(public) == twin.table.explain(public)


def test_a_changed_vote_reaches_its_seats_own_stream_and_no_public_one(tmp_path: Path) -> None:
    from web.sse import Broadcaster, Pool

    twin = Twin(tmp_path, "table")
    broadcaster = Broadcaster(twin.table.snapshot)
    twin.table.subscribe(broadcaster.publish)
    twin.table.phones.subscribe(broadcaster.wake_seats)
    twin.table.new_game("resistance", {"players": 5}, NAMES[:5], "en", seed=1)
    all_said(twin.table)  # the night, said to its end
    twin.table.submit(ProposeSquad(0, (0, 1)))
    twin.table.submit(CastVote(1, True))
    token = twin.table.phones.links.links()[1]
    public = broadcaster.admit(Pool.PUBLIC, "192.0.2.5")
    seat = broadcaster.admit(Pool.SEAT, token)
    phone = broadcaster.stream_views(lambda: twin.table.phones.view(token), seat)
    first = json.loads(next(phone).split("data: ", 1)[1])
    assert first["private"] == twin.table.phones.private(1)

    twin.table.submit(CastVote(1, False))
    assert public.queue.empty()  # the table's pages are not even woken
    changed = json.loads(next(phone).split("data: ", 1)[1])
    assert changed["public"] == first["public"]
    assert changed["private"] != first["private"]
    assert changed["private"] == twin.table.phones.private(1)
    phone.close()
    broadcaster.release(public)
