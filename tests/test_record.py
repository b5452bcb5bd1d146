"""Game records: exported as JSON Lines from the journal, replayed by ``companion replay``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.games.resistance.state import Card, CastVote, EndNight, PlayMissionCard, ProposeSquad
from companion.journal import Journal
from companion.record import RecordError, export_lines, replay

OPTIONS = {"players": 5, "targeting": False, "isolated_cylons": False, "first_commander": 0}


def journal_with_a_game(path: Path) -> Journal:
    journal = Journal(path)
    entry = journal.start_game("resistance", OPTIONS, 3, {"names": [], "language": "en"})
    actions = [
        EndNight(),
        ProposeSquad(0, (0, 1)),
        *[CastVote(s, True) for s in range(5)],
        PlayMissionCard(1, Card.FAIL),
        PlayMissionCard(0, Card.SUCCESS),
        ProposeSquad(1, (1, 2, 3)),
        CastVote(0, False),
        CastVote(2, True),
    ]
    for seq, action in enumerate(actions, start=1):
        journal.append(entry.id, seq, action.to_json())
    return journal


def run_replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "appliance.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_exported_record_replays_to_the_public_state(tmp_path: Path) -> None:
    journal = journal_with_a_game(tmp_path / "j.sqlite3")
    entry = journal.latest_game()
    assert entry is not None
    record = tmp_path / "game.jsonl"
    record.write_text("\n".join(export_lines(journal, entry)) + "\n")
    result = run_replay(record)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["missions"][0]["result"] == "fail"
    assert state["phase"] == "vote"
    assert state["voted"] == []  # the open vote's two ballots are not in the record


def test_an_exported_record_does_not_say_who_played_the_fail(tmp_path: Path) -> None:
    journal = journal_with_a_game(tmp_path / "j.sqlite3")
    entry = journal.latest_game()
    assert entry is not None
    cards = [json.loads(line) for line in export_lines(journal, entry) if '"mission_card"' in line]
    assert cards == [
        {"kind": "mission_card", "seat": 0, "card": "success"},
        {"kind": "mission_card", "seat": 1, "card": "fail"},
    ]
    # Seat 1 did play the fail here; the record would say so for any author: seat order,
    # successes first. Swap the authors and the record is the same.
    other = Journal(tmp_path / "k.sqlite3")
    e2 = other.start_game("resistance", OPTIONS, 3, {})
    swapped = [
        EndNight(),
        ProposeSquad(0, (0, 1)),
        *[CastVote(s, True) for s in range(5)],
        PlayMissionCard(0, Card.FAIL),
        PlayMissionCard(1, Card.SUCCESS),
    ]
    for seq, action in enumerate(swapped, start=1):
        other.append(e2.id, seq, action.to_json())
    assert [line for line in export_lines(other, e2) if "mission_card" in line] == [
        json.dumps(c) for c in cards
    ]


def header() -> str:
    return json.dumps(
        {"record": "companion", "version": 1, "game": "resistance", "options": OPTIONS, "seed": 0}
    )


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"kind": "end_night"', "not JSON"),
        ('{"kind": "fly"}', "unknown action kind"),
        ('{"kind": "propose", "commander": 0}', "missing field 'squad'"),
        ('{"kind": "propose", "commander": "zero", "squad": [0, 1]}', "must be a whole number"),
        (
            '{"kind": "propose", "commander": 0, "squad": [0, 1]}',
            "illegal action (no_proposal_now): A squad cannot be proposed now",
        ),
    ],
)
def test_a_bad_line_exits_with_status_2_naming_the_line_and_reason(
    tmp_path: Path, line: str, reason: str
) -> None:
    record = tmp_path / "bad.jsonl"
    record.write_text(f"{header()}\n{line}\n")
    result = run_replay(record)
    assert result.returncode == 2
    assert "line 2" in result.stderr
    assert reason in result.stderr


def test_an_illegal_line_after_legal_ones_is_named_by_its_number() -> None:
    lines = [header(), '{"kind": "end_night"}', '{"kind": "end_night"}']
    with pytest.raises(RecordError) as caught:
        replay(lines)
    assert caught.value.line == 3
    assert "night_is_over" in caught.value.reason


def test_a_record_without_header_is_refused() -> None:
    with pytest.raises(RecordError) as caught:
        replay(['{"kind": "end_night"}'])
    assert caught.value.line == 1


def test_a_missing_record_file_exits_with_status_2(tmp_path: Path) -> None:
    result = run_replay(tmp_path / "nowhere.jsonl")
    assert result.returncode == 2
    assert "cannot read" in result.stderr


def test_export_command_writes_the_latest_game(tmp_path: Path) -> None:
    journal_with_a_game(tmp_path / "data" / "journal.sqlite3").close()
    config = tmp_path / "c.toml"
    config.write_text('data_dir = "data"\n')
    out = tmp_path / "out.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "appliance.cli", "export", "--config", str(config), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    first = json.loads(out.read_text().splitlines()[0])
    assert first["game"] == "resistance"
    assert run_replay(out).returncode == 0
