"""The host's undo (issue 23): "the host can take back the last action when it revealed nothing and
the rules allow (a squad confirm before any vote, a score entry, a mis-entered die); journalled as
an undo, never erasing history."

One sentence of that per test, on real engines, a real SQLite journal and the real Table.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from heard import HeardNarrator, all_said
from test_oraklos_rules import RYBK, give, layout, square
from test_oraklos_table_play import SIXTEEN
from test_resume_thread import NAMES, restart, started, table_at

from companion.game import IllegalAction
from companion.games.night.dice import PipDie
from companion.games.night.state import PickStarter, ReadDice, WriteScore
from companion.games.oraklos.dice import Color
from companion.games.oraklos.state import Claim, CorrectDie, TakeMarker, ThrowDice
from companion.games.ostrakon.state import Ask, Vote
from companion.games.resistance.state import CastVote, Phase, ProposeSquad
from companion.games.sages.board import Square
from companion.games.sages.state import MoveSage
from companion.journal import Journal, JournalError
from companion.moderator import Table
from companion.seat_input import Button, Press

DAN, ADA, BEA = 3, 0, 1


def offer(table: Table) -> dict[str, Any] | None:
    undo = table.snapshot()["undo"]
    assert undo is None or set(undo) == {"seq", "what"}
    return undo


def offered(table: Table) -> str:
    """The words of what the host may take back now (something must be offered)."""
    undo = offer(table)
    assert undo is not None, "nothing is offered to take back"
    return str(undo["what"])


def take_back(table: Table) -> None:
    undo = offer(table)
    assert undo is not None, "nothing is offered to take back"
    table.undo(undo["seq"])


def refused(table: Table, seq: int, code: str) -> None:
    """``table.undo(seq)`` is refused with ``code``, and nothing changes: not the state, not the
    page, not the journal."""
    running = table.running
    assert running is not None
    state, page = running.state, table.snapshot()
    rows = table.journal.rows(running.entry.id)
    with pytest.raises(IllegalAction) as refusal:
        table.undo(seq)
    assert refusal.value.code == code
    assert running.state == state
    assert table.snapshot() == page
    assert table.journal.rows(running.entry.id) == rows


# -- Résistance: a squad confirm before any vote ---------------------------------------------------


def test_a_squad_confirmed_before_any_vote_can_be_taken_back(tmp_path: Path) -> None:
    table = started(tmp_path)
    running = table.running
    assert running is not None
    before = running.state
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    assert offer(table) == {"seq": 2, "what": "the confirmation of the squad Ada and Bea"}
    take_back(table)
    assert running.state == before
    assert running.state.phase is Phase.PROPOSE
    said = table.snapshot()["narration"]
    assert "Taken back by the host: the confirmation of the squad Ada and Bea." in said
    # and the squad is read back again, awaiting the Commandant's A (or B to start again)
    assert table.snapshot()["naming"]["members"] == [ADA, BEA]
    assert (
        said[-1]
        == "Squad for mission 1: Ada and Bea. Dan, press A to confirm, or B to start again."
    )


def test_after_the_undo_the_commandant_confirms_the_same_squad_with_one_press(
    tmp_path: Path,
) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    take_back(table)
    result = table.press(Press(DAN, Button.A))
    assert result.accepted == ProposeSquad(DAN, (ADA, BEA))


def test_once_anyone_has_voted_the_squad_stands(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    seq = offer(table)["seq"]  # type: ignore[index]
    table.submit(CastVote(4, True))
    assert offer(table) is None
    refused(table, seq, "nothing_to_undo")


def test_a_secret_vote_or_a_mission_card_is_never_offered(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    for seat in range(5):
        table.submit(CastVote(seat, True))
        assert offer(table) is None
    table.press(Press(ADA, Button.A))  # a mission card
    assert offer(table) is None


def test_the_undo_is_journalled_as_a_row_of_its_own_and_erases_nothing(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    take_back(table)
    running = table.running
    assert running is not None
    rows = table.journal.rows(running.entry.id)
    assert [seq for seq, _ in rows] == [1, 2, 3]
    assert rows[1][1]["kind"] == "propose"  # still there
    assert rows[2][1] == {"kind": "undo", "of": 2}
    assert [a["kind"] for a in table.journal.actions(running.entry.id)] == ["end_night"]


def test_one_click_takes_back_one_action_and_a_stale_page_takes_back_nothing(
    tmp_path: Path,
) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    first = offer(table)["seq"]  # type: ignore[index]
    take_back(table)
    refused(table, first, "nothing_to_undo")  # the second click of a double click
    table.press(Press(DAN, Button.A))  # confirmed again
    refused(table, first, "undo_stale")  # a page that has not seen the new confirmation


def test_after_a_restart_the_undone_squad_stays_undone_and_the_offer_comes_back(
    tmp_path: Path,
) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    take_back(table)
    table.press(Press(DAN, Button.A))
    before = table.snapshot()
    again = restart(table, tmp_path)
    assert again.running is not None and table.running is not None
    assert again.running.state == table.running.state
    assert again.running.version == 4
    assert again.snapshot()["version"] == before["version"]
    assert offer(again) == before["undo"]
    take_back(again)
    assert again.running.state.phase is Phase.PROPOSE


def test_a_journal_that_cannot_take_the_undo_leaves_the_game_as_it_was(tmp_path: Path) -> None:
    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    running = table.running
    assert running is not None
    state, seq = running.state, offer(table)["seq"]  # type: ignore[index]
    table.journal._db.execute("PRAGMA query_only = ON")  # SQLite refuses every write from now
    with pytest.raises(JournalError):
        table.undo(seq)
    assert running.state == state
    assert offer(table) == {"seq": seq, "what": "the confirmation of the squad Ada and Bea"}


def test_twin_games_whose_identities_differ_show_the_same_undo(tmp_path: Path) -> None:
    """The offer, the words and what is said after the undo depend on public facts alone."""
    pages = []
    for seed in (1, 2):
        table = table_at(tmp_path / str(seed))
        options = {"players": 5, "first_commander": 3, "identities": "digital"}
        table.new_game("resistance", options, NAMES, seed=seed)
        all_said(table)
        assert table.running is not None
        identities = table.running.state.identities
        table.submit(ProposeSquad(DAN, (ADA, BEA)))
        shown = [offer(table)]
        take_back(table)
        page = table.snapshot()
        pages.append((identities, shown, page["narration"], page["naming"], page["state"]))
    assert pages[0][0] != pages[1][0]
    assert pages[0][1:] == pages[1][1:]


def test_in_french_the_host_is_told_in_french(tmp_path: Path) -> None:
    table = started(tmp_path, language="fr")
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    assert offered(table) == "la validation de l'escadron Ada et Bea"
    take_back(table)
    assert (
        "L'hôte a annulé la validation de l'escadron Ada et Bea." in table.snapshot()["narration"]
    )


def test_nothing_is_offered_while_eyes_are_closed_or_once_the_game_is_over(tmp_path: Path) -> None:
    in_the_night, eyes_open = threading.Event(), threading.Event()

    def pause(seconds: float) -> None:  # the night's first pause lasts until the test says
        in_the_night.set()
        assert eyes_open.wait(10)

    table = table_at(tmp_path, HeardNarrator(sleep=pause))
    table.new_game("resistance", {"players": 5, "first_commander": 3}, NAMES, seed=1)
    assert in_the_night.wait(10)  # the night is being narrated
    assert offer(table) is None
    eyes_open.set()
    all_said(table)  # the night's end, by the narrator's own cue
    assert table.snapshot()["state"]["phase"] == "propose"
    assert offer(table) is None  # the end of the night is the companion's, not the host's


# -- Ostrakon: a question opened by mistake --------------------------------------------------------


def test_ostrakon_a_question_asked_before_any_tesson_is_laid_can_be_taken_back(
    tmp_path: Path,
) -> None:
    table = table_at(tmp_path)
    table.new_game("ostrakon", {"players": 5}, NAMES, seed=4)
    running = table.running
    assert running is not None
    asker = running.game.public_view(running.state)["asker"]
    before = running.state
    table.submit(Ask(asker))
    assert offered(table) == f"{NAMES[asker]}'s question"
    take_back(table)
    assert running.state == before
    table.submit(Ask(asker))
    voter = (asker + 1) % 5
    table.submit(Vote(voter, white=True))
    assert offer(table) is None


# -- Oraklos: a mis-entered die, a throw read wrong ------------------------------------------------


# the four dice of seat 0's card on a square, the rest of the sixteen far below
SQUARE_THROWN = ThrowDice.of(
    layout(SIXTEEN, square((Color.RED, Color.YELLOW, Color.BLUE, Color.BLACK)))
)


def oraklos(tmp_path: Path) -> Table:
    table = table_at(tmp_path)
    table.new_game("oraklos", {"players": 2, "fills": "unseen"}, NAMES[:2], seed=11)
    assert table.running is not None
    table.running.state = give(table.running.state, 0, RYBK)
    return table


def test_oraklos_a_die_corrected_wrongly_and_the_throw_itself_can_be_taken_back(
    tmp_path: Path,
) -> None:
    table = oraklos(tmp_path)
    running = table.running
    assert running is not None
    filled = running.state
    table.submit(SQUARE_THROWN)
    thrown = running.state
    table.submit(CorrectDie(0, Color.BLUE, False))
    assert offered(table) == "the last correction of a die"
    take_back(table)
    assert running.state == thrown
    assert offered(table) == "the throw as it was read"
    take_back(table)
    assert running.state == filled


def test_oraklos_a_marker_laid_on_the_wrong_card_can_be_taken_back(tmp_path: Path) -> None:
    table = oraklos(tmp_path)
    table.submit(SQUARE_THROWN)
    table.submit(TakeMarker(0, 3, RYBK))
    assert offered(table) == "Ada's marker"
    running = table.running
    assert running is not None
    searching = running.state
    take_back(table)
    table.submit(TakeMarker(0, 3, RYBK))
    assert running.state == searching


def test_oraklos_a_claim_is_never_taken_back(tmp_path: Path) -> None:
    from companion.games.oraklos.state import EndSearch

    table = oraklos(tmp_path)
    table.submit(SQUARE_THROWN)
    table.submit(TakeMarker(0, 3, RYBK))
    table.submit(EndSearch())
    table.submit(Claim(0, (0, 1, 2, 3)))
    assert offer(table) is None


# -- game night: a score entry, the dice read ----------------------------------------------------


def test_night_a_score_written_wrongly_and_the_dice_read_can_be_taken_back(
    tmp_path: Path,
) -> None:
    table = table_at(tmp_path)
    table.new_game("night", {"players": 3}, NAMES[:3], seed=11)
    running = table.running
    assert running is not None
    table.submit(WriteScore(1, 0, 12))
    written = running.state
    table.submit(WriteScore(1, 0, 21))
    assert offered(table) == "the last score written"
    take_back(table)
    assert running.state == written
    table.submit(ReadDice((PipDie(4), PipDie(6))))
    assert offered(table) == "the dice as they were read"
    take_back(table)
    assert running.state == written


def test_night_who_starts_is_never_drawn_again_by_an_undo(tmp_path: Path) -> None:
    table = table_at(tmp_path)
    table.new_game("night", {"players": 3}, NAMES[:3], seed=11)
    table.submit(PickStarter())
    assert offer(table) is None


# -- Les 7 Sages: a move entered wrongly ---------------------------------------------------------


def test_sages_a_players_move_can_be_taken_back_the_companions_is_not(tmp_path: Path) -> None:
    thinking: list[Callable[[], None]] = []
    table = Table(
        Journal(tmp_path / "journal.sqlite3"),
        HeardNarrator(),
        seats=2,
        background=thinking.append,
    )
    table.new_game("sages", {"computer": "blue"}, NAMES[:2], "en", seed=0)
    running = table.running
    assert running is not None
    start = running.state
    table.submit(MoveSage(0, Square.from_json("d3"), Square.from_json("d5")))
    assert offered(table) == "Ada's move"
    take_back(table)
    assert running.state == start
    thinking.clear()  # what the companion had begun to think of that move is dropped
    table.submit(MoveSage(0, Square.from_json("d3"), Square.from_json("d5")))
    thinking.pop()()  # the companion replies
    assert running.state.to_move.seat == 0
    assert offer(table) is None


# -- Eleusis: every play is judged by the secret rule ----------------------------------------------


def test_eleusis_nothing_is_ever_offered(tmp_path: Path) -> None:
    """A play's verdict tells the secret rule: taking it back would let a player try a card for
    free. Play a whole game's first turns and look at every offer."""
    table = table_at(tmp_path)
    table.new_game("eleusis", {"players": 4}, NAMES[:4], seed=5)
    running = table.running
    assert running is not None
    for _ in range(12):
        if running.game.outcome(running.state) is not None:
            break
        actions = [
            action
            for seat in range(4)
            for action in running.game.legal_actions(running.state, seat)
        ]
        if not actions:
            break
        table.submit(actions[0])
        assert offer(table) is None


def test_a_game_record_holds_the_game_as_played_without_what_was_taken_back(
    tmp_path: Path,
) -> None:
    from companion.record import export_lines, replay

    table = started(tmp_path)
    table.submit(ProposeSquad(DAN, (ADA, BEA)))
    take_back(table)
    table.submit(ProposeSquad(DAN, (ADA, 4)))
    running = table.running
    assert running is not None
    lines = list(export_lines(table.journal, running.entry))
    kinds = [json.loads(line).get("kind") for line in lines[1:]]
    assert kinds == ["end_night", "propose"]
    assert replay(lines) == running.game.public_view(running.state)
