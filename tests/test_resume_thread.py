"""A restart keeps the thread (issue 23): the narration the page showed comes back from the
journal, a squad half named is kept, and the companion says again what it awaits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from heard import HeardNarrator, all_said
from serving import start_server

from companion.at_table import RULES
from companion.games.ostrakon.controls import Naming
from companion.games.resistance.state import Card, CastVote, PlayMissionCard, ProposeSquad
from companion.journal import Journal
from companion.moderator import Table
from companion.said import NARRATION_KEPT
from companion.seat_input import Button, Press
from tests.timing import HandClock

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]
RESUMED = "The game of Résistance resumes where it stopped."


def table_at(path: Path, voice: HeardNarrator | None = None) -> Table:
    """A table of five seats, narrated by the real narrator (tests/heard.py)."""
    return Table(Journal(path / "journal.sqlite3"), voice or HeardNarrator(), seats=5)


def started(path: Path, language: str = "en", **options: object) -> Table:
    """A game of five with Dan (seat 3) as first Commandant: a squad of 2 for mission 1."""
    table = table_at(path)
    table.new_game(
        "resistance", {"players": 5, "first_commander": 3, **options}, NAMES, language, seed=1
    )
    all_said(table)
    return table


def restart(table: Table, path: Path, voice: HeardNarrator | None = None) -> Table:
    """The power is cut (nothing more is written), then the companion starts again."""
    table.stop_play()
    table.journal.close()
    again = table_at(path, voice)
    assert again.resume()
    return again


def narration(table: Table) -> list[str]:
    return list(table.snapshot()["narration"])


def test_after_a_restart_the_narration_shows_the_lines_said_before_it(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(3, (0, 1)))
    table.submit(CastVote(0, True))
    before = narration(table)
    assert before[-1].startswith("Dan proposes Ada and Bea for mission 1.")
    again = restart(table, tmp_path)
    after = narration(again)
    assert after[: len(before)] == before
    assert after[len(before)] == RESUMED


def test_a_squad_half_named_survives_a_restart(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.press(Press(1, Button.A))  # Bea steps in: 1 of 2
    assert table.snapshot()["naming"]["members"] == [1]
    voice = HeardNarrator()
    again = restart(table, tmp_path, voice)
    assert again.snapshot()["naming"]["members"] == [1]
    assert "Squad named so far: Bea, 1 of 2." in voice.said
    again.press(Press(4, Button.A))  # Eve completes the squad, Dan confirms it
    again.press(Press(3, Button.A))
    assert again.snapshot()["state"]["squad"] == [1, 4]


def test_a_squad_half_named_before_a_move_was_made_is_not_brought_back_after_it(
    tmp_path: Path,
) -> None:
    """The thread journalled is tied to the moves made: one kept before the last move (the
    power cut between the move and its thread) names no squad for the next round."""
    table = started(tmp_path)
    table.press(Press(1, Button.A))
    game_id = table.snapshot()["game_id"]
    kept = table.journal.thread(game_id)
    assert kept is not None and kept.pending["members"] == [1]
    assert table.running is not None
    seq = table.running.version + 1
    table.journal.append(game_id, seq, ProposeSquad(3, (0, 1)).to_json())  # cut before telling
    again = restart(table, tmp_path)
    assert again.snapshot()["naming"]["members"] == []
    assert again.snapshot()["state"]["phase"] == "vote"


def test_after_a_restart_the_companion_says_whose_move_it_is(tmp_path: Path) -> None:
    voice = HeardNarrator()
    again = restart(started(tmp_path), tmp_path, voice)
    awaited = "Dan is the Commandant. Name a squad of 2 for mission 1: named players press A."
    assert voice.said == [RESUMED, awaited]
    assert narration(again)[-2:] == [RESUMED, awaited]
    assert again.snapshot()["message"] == awaited


def test_after_a_restart_mid_vote_the_companion_counts_the_votes_and_tells_no_one_s(
    tmp_path: Path,
) -> None:
    said = []
    for yes in (True, False):  # twin games: the votes differ, never what is said
        path = tmp_path / str(yes)
        table = started(path)
        table.submit(ProposeSquad(3, (0, 1)))
        for seat in (0, 2, 4):
            table.submit(CastVote(seat, yes))
        voice = HeardNarrator()
        again = restart(table, path, voice)
        said.append((voice.said, narration(again)))
    assert said[0] == said[1]
    assert said[0][0][-1] == (
        "Vote on Ada and Bea for mission 1: 3 of 5 have voted. A for yes, B for no."
    )


def test_after_a_restart_mid_mission_the_companion_counts_the_cards(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(3, (0, 1)))
    for seat in range(5):
        table.submit(CastVote(seat, True))
    table.submit(PlayMissionCard(1, Card.SUCCESS))
    voice = HeardNarrator()
    restart(table, tmp_path, voice)
    assert voice.said[-1] == (
        "Mission 1: 1 of 2 mission cards are in. Squad, A for success, B for fail."
    )


def test_the_companion_says_what_it_awaits_in_the_table_s_language(tmp_path: Path) -> None:
    table = started(tmp_path, "fr")
    table.press(Press(0, Button.A))
    voice = HeardNarrator()
    restart(table, tmp_path, voice)
    assert voice.said == [
        "La partie de Résistance reprend là où elle s'était arrêtée.",
        "Dan est Commandant. Désignez un escadron de 2 pour la mission 1\xa0: "
        "les joueurs désignés appuient sur A.",
        "Escadron désigné jusqu'ici\xa0: Ada, 1 sur 2.",
    ]


def test_a_full_squad_awaiting_confirmation_is_read_back_after_a_restart(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.press(Press(0, Button.A))
    table.press(Press(2, Button.A))
    voice = HeardNarrator()
    again = restart(table, tmp_path, voice)
    assert voice.said[-1] == (
        "Squad for mission 1: Ada and Cyd. Dan, press A to confirm, or B to start again."
    )
    again.press(Press(3, Button.A))
    assert again.snapshot()["state"]["squad"] == [0, 2]


def test_no_private_line_comes_back(tmp_path: Path) -> None:
    """With digital identities each seat sees its own on its page: twin games whose identities
    differ show, before and after the restart, the same narration word for word."""
    shown, identities = [], []
    for seed in (1, 2):
        path = tmp_path / str(seed)
        table = table_at(path)
        options = {"players": 5, "first_commander": 3, "identities": "digital"}
        table.new_game("resistance", options, NAMES, "en", seed=seed)
        all_said(table)
        table.submit(ProposeSquad(3, (0, 1)))
        for seat in range(5):
            table.submit(CastVote(seat, True))
        table.submit(PlayMissionCard(0, Card.SUCCESS))
        before = narration(table)
        again = restart(table, path)
        identities.append([str(again.phones.private(s)) for s in range(5)])
        shown.append(narration(again))
        assert shown[-1][: len(before)] == before  # exactly what the page showed, no more
        assert shown[-1][len(before) :] == [
            RESUMED,
            "Mission 1: 1 of 2 mission cards are in. Squad, A for success, B for fail.",
        ]
    assert identities[0] != identities[1]
    assert shown[0] == shown[1]


def test_a_game_with_no_thread_kept_still_resumes_and_says_what_it_awaits(
    tmp_path: Path,
) -> None:
    """A journal from before threads were kept (or one that could not keep them)."""
    table = started(tmp_path)
    game_id = table.snapshot()["game_id"]
    table.journal._db.execute("DELETE FROM threads WHERE game_id = ?", (game_id,))
    voice = HeardNarrator()
    again = restart(table, tmp_path, voice)
    assert narration(again)[0] == RESUMED
    assert voice.said[-1].startswith("Dan is the Commandant.")


@pytest.mark.slow
def test_a_companion_killed_mid_naming_picks_up_the_thread_on_its_page(tmp_path: Path) -> None:
    """``companion serve`` killed with SIGKILL, as a power cut, while a squad is half named."""
    server = start_server(tmp_path, pause=0.05, cylons_open=0.05)
    try:
        options = {"players": 5, "first_commander": 3}
        status, _ = server.post("/api/games", {"options": options, "names": NAMES})
        assert status == 201
        server.wait_for(lambda snap: (snap["state"] or {}).get("phase") == "propose")
        server.press(1, "A")
        before = server.state()
        assert before["narration"][-1] == "Bea is in: 1 of 2."
        server.kill()
        server.start()
        after = server.state()
        assert after["naming"]["members"] == [1]
        said_again = [
            RESUMED,
            "Dan is the Commandant. Name a squad of 2 for mission 1: named players press A.",
            "Squad named so far: Bea, 1 of 2.",
        ]
        assert after["narration"] == (before["narration"] + said_again)[-NARRATION_KEPT:]
        server.press(4, "A")
        server.press(3, "A")
        assert server.state()["state"]["squad"] == [1, 4]
    finally:
        server.stop()


def test_the_philosophers_stepped_forward_in_ostrakon_are_kept_as_the_squad_is() -> None:
    rules = RULES["ostrakon"](HandClock())
    assert rules.restore_input is not None
    naming = Naming((1, 4))
    assert rules.restore_input(json.loads(json.dumps(rules.keep_input(naming)))) == naming


def test_a_vote_changed_before_the_reveal_keeps_no_thread_and_publishes_nothing(
    tmp_path: Path,
) -> None:
    """The thread is written only when the page changes: a seat changing its secret vote
    changes neither the page nor the journal's thread (no write whose timing could tell)."""
    table = started(tmp_path)
    table.submit(ProposeSquad(3, (0, 1)))
    table.submit(CastVote(0, True))
    running = table.running
    assert running is not None
    kept, revision = table.journal.thread(running.entry.id), table.snapshot()["revision"]
    table.submit(CastVote(0, False))  # Ada changes her mind: nobody may see it
    assert table.journal.thread(running.entry.id) == kept
    assert table.snapshot()["revision"] == revision


def test_a_game_this_version_cannot_replay_is_set_aside_and_the_companion_starts(
    tmp_path: Path,
) -> None:
    """An update that changed a rule (here: Le Plan under 7 players uses 10 cards, not the 7 an
    older version dealt) must not keep the companion from starting: the game stays in the
    journal, the table is told to start a new one, and a new one starts."""
    journal = Journal(tmp_path / "journal.sqlite3")
    old = {"players": 5, "plot": True, "plot_deck": ["strong_leader"] * 2 + ["no_confidence"] * 5}
    entry = journal.start_game("resistance", old, 7, {"names": NAMES, "language": "fr"})
    journal.append(entry.id, 1, {"kind": "end_night"})
    journal.close()
    voice = HeardNarrator()
    table = table_at(tmp_path, voice)
    assert table.resume() is False
    assert table.running is None
    told = voice.said[-1]
    assert told.startswith("La partie de Résistance en cours ne peut pas reprendre")
    assert table.snapshot()["narration"][-1] == told
    assert table.journal.actions(entry.id) == [{"kind": "end_night"}]  # nothing erased
    table.new_game("resistance", {"players": 5}, NAMES, seed=1)
    assert table.running is not None


def test_a_game_set_aside_is_logged_by_its_reason_code_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The log line says why by the refusal's code: its details (the options as journalled, which
    may hold an Eleusis rule typed by its God) never reach the log."""
    journal = Journal(tmp_path / "journal.sqlite3")
    # a rule this version cannot read: its refusal names the word it stumbled on
    entry = journal.start_game("eleusis", {"players": 4, "rule": "hushword"}, 7, {})
    journal.close()
    with caplog.at_level("ERROR"):
        assert table_at(tmp_path).resume() is False
    assert f"game {entry.id} cannot be resumed by this version: rule_syntax_error" in caplog.text
    assert "hushword" not in caplog.text
