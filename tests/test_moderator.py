"""The moderator: journal first, then the table is told; refusals change nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from heard import HeardNarrator

from companion.game import IllegalAction
from companion.games.resistance.state import CastVote, EndNight, ProposeSquad
from companion.journal import Journal, JournalError
from companion.moderator import Table
from companion.seat_input import Button, Press

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]


def table_at_vote(tmp_path: Path) -> tuple[Table, Journal, HeardNarrator]:
    journal = Journal(tmp_path / "journal.sqlite3")
    voice = HeardNarrator()
    table = Table(journal, voice, seats=5)
    table.new_game("resistance", {"players": 5}, NAMES, "en", seed=1)
    assert voice.wait_idle(10)  # the night, said to its end: play begins
    table.submit(ProposeSquad(0, (0, 1)))
    return table, journal, voice


def test_the_journal_uses_wal_and_full_synchronous_writes(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    db = sqlite3.connect(tmp_path / "j.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_the_night_phase_is_spoken_then_play_begins(tmp_path: Path) -> None:
    voice = HeardNarrator()
    table = Table(
        Journal(tmp_path / "j.sqlite3"),
        voice,
        seats=5,
        pauses={"intro": 4, "close_eyes": 2, "cylons_open": 7, "cylons_close": 2},
    )
    table.new_game("resistance", {"players": 5}, NAMES, "en", seed=1)
    assert voice.said[1:6] == [
        "Look at your identity card, then lay it face down. The night begins.",
        "Everyone, close your eyes.",
        "Cylons, open your eyes and recognise each other.",
        "Cylons, close your eyes. Everyone's eyes must now be closed.",
        "Everyone, open your eyes.",
    ]
    assert voice.paused == [4, 2, 7, 2]
    assert table.snapshot()["state"]["phase"] == "propose"
    assert voice.said[-1].startswith("Ada is the Commandant. Name a squad of 2")


def test_an_action_is_journalled_before_anyone_is_told(tmp_path: Path) -> None:
    table, journal, voice = table_at_vote(tmp_path)
    game_id = table.snapshot()["game_id"]
    seen: list[int] = []

    def check(_: object) -> None:
        seen.append(len(journal.actions(game_id)))

    voice.ears.on_line = check
    table.subscribe(check)
    for seat in range(5):
        table.submit(CastVote(seat, True))
    assert voice.wait_idle(10)
    # One journal row more at every announcement: the row was there before the telling.
    assert seen and all(count >= 3 for count in seen)
    assert seen[-1] == len(journal.actions(game_id)) == 7


def test_an_illegal_action_changes_nothing(tmp_path: Path) -> None:
    table, journal, _ = table_at_vote(tmp_path)
    before = table.snapshot()
    with pytest.raises(IllegalAction) as caught:
        table.submit(ProposeSquad(0, (0, 1)))
    assert caught.value.code == "no_proposal_now"
    assert table.snapshot() == before
    assert len(journal.actions(before["game_id"])) == 2
    assert table.explain(caught.value) == "A squad cannot be proposed now (phase: vote)."


def test_a_journal_that_cannot_be_written_refuses_the_action_and_changes_nothing(
    tmp_path: Path,
) -> None:
    table, journal, voice = table_at_vote(tmp_path)
    before, said = table.snapshot(), list(voice.said)
    journal._db.execute("PRAGMA query_only = ON")  # as a disk remounted read-only
    with pytest.raises(JournalError, match="cannot be written"):
        table.submit(CastVote(0, True))
    assert table.snapshot() == before
    assert voice.said == said
    result = table.press(Press(0, Button.A))
    assert result.accepted is None and "cannot be written" in result.messages[0]
    journal._db.execute("PRAGMA query_only = OFF")
    table.submit(CastVote(0, True))
    assert table.snapshot()["state"]["voted"] == [0]


def test_a_press_that_breaks_a_rule_is_answered_not_raised(tmp_path: Path) -> None:
    table, _, voice = table_at_vote(tmp_path)
    for seat in range(5):
        table.press(Press(seat, Button.A))
    result = table.press(Press(3, Button.A))  # seat 3 is not on the squad of 0 and 1
    assert result.accepted is None
    assert result.messages == ("Dan, you are not on the squad: your press is ignored.",)
    assert voice.said[-1] == result.messages[0]


def test_a_press_with_no_game_running_says_so(tmp_path: Path) -> None:
    table = Table(Journal(tmp_path / "j.sqlite3"), HeardNarrator(), seats=5)
    result = table.press(Press(0, Button.A))
    assert result.messages == ("No game is running: start one on the host page.",)


def test_more_players_than_seats_with_buttons_is_refused(tmp_path: Path) -> None:
    table = Table(Journal(tmp_path / "j.sqlite3"), HeardNarrator(), seats=5)
    with pytest.raises(IllegalAction) as caught:
        table.new_game("resistance", {"players": 6})
    assert "This table has 5 seats with buttons" in table.explain(caught.value)
    assert table.snapshot()["state"] is None


def test_a_restarted_table_resumes_the_game_from_the_journal(tmp_path: Path) -> None:
    table, journal, _ = table_at_vote(tmp_path)
    table.submit(CastVote(0, False))
    before = table.snapshot()
    journal.close()
    again = Table(Journal(tmp_path / "journal.sqlite3"), HeardNarrator(), seats=5)
    assert again.resume()
    after = again.snapshot()
    assert (after["state"], after["version"], after["names"]) == (
        before["state"],
        before["version"],
        before["names"],
    )
    assert again.phones.private(0)["my_vote"] is False


def test_a_finished_game_is_not_resumed(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    voice = HeardNarrator()
    table = Table(journal, voice, seats=5)
    table.new_game("resistance", {"players": 5}, seed=1)
    assert voice.wait_idle(10)  # the night, said to its end
    for _ in range(5):
        state = table.snapshot()["state"]
        squad = tuple(range(state["squad_size"]))
        table.submit(ProposeSquad(state["commander"], squad))
        for seat in range(5):
            table.submit(CastVote(seat, False))
    assert table.snapshot()["state"]["outcome"] == {"winner": "cylons", "reason": "five_rejections"}
    assert not Table(journal, HeardNarrator(), seats=5).resume()


def test_the_night_is_not_spoken_again_once_over(tmp_path: Path) -> None:
    _, journal, _ = table_at_vote(tmp_path)
    voice = HeardNarrator()
    again = Table(journal, voice, seats=5)
    again.resume()
    assert not any("close your eyes" in line for line in voice.said)
    with pytest.raises(IllegalAction):
        again.submit(EndNight())


def test_without_a_night_the_first_commandant_is_announced_at_once(tmp_path: Path) -> None:
    voice = HeardNarrator()
    table = Table(Journal(tmp_path / "j.sqlite3"), voice, seats=5)
    table.new_game(
        "resistance", {"players": 5, "isolated_cylons": True, "first_commander": 2}, NAMES, "en"
    )
    assert voice.said[-1] == (
        "Cyd is the Commandant. Name a squad of 2 for mission 1: named players press A."
    )
    assert not any("close your eyes" in line for line in voice.said)


def test_the_night_lines_reach_the_page_as_they_are_spoken(tmp_path: Path) -> None:
    shown: list[list[str]] = []

    voice = HeardNarrator()
    voice.ears.on_line = lambda line: shown.append(list(table.snapshot()["narration"]))
    table = Table(Journal(tmp_path / "j.sqlite3"), voice, seats=5)
    table.new_game("resistance", {"players": 5}, NAMES, "en")
    assert voice.wait_idle(10)
    # When "Cylons, open your eyes" is spoken, the page shows it, and not the lines to come.
    at_cylons = next(s for s in shown if s and s[-1].startswith("Cylons, open"))
    assert not any("Everyone, open your eyes." in line for line in at_cylons)
