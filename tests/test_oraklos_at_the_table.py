"""Oraklos at the table, end to end: a generated overhead picture of the throw is read by the
camera code, corrected where a person would correct it, and every claim is judged, scored and
said, through the real moderator (SQLite journal) in each mode."""

from __future__ import annotations

import logging
import math
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from heard import HeardNarrator

from companion.game import IllegalAction, action_from_json
from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.predictions import find
from companion.games.oraklos.state import (
    ACTIONS,
    AddDie,
    AllFound,
    Claim,
    CorrectDie,
    EndSearch,
    FillCup,
    Hesitate,
    NameCard,
    Phase,
    Pool,
    RemoveDie,
    TakeMarker,
)
from companion.journal import Journal
from companion.moderator import Table
from desks.throws import ThrowDesk
from tests.left_lying import lying
from vision.readings import CONFIRM_BELOW, DieReading
from vision.sources import CameraUnavailable, FrameSource
from vision.synthetic import cube_scene
from vision.throws import GeneratedThrowSource, ThrowCamera

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]


class Setup:
    def __init__(self, tmp_path: Path, options: dict[str, Any], seed: int, lang: str = "en"):
        self.journal = Journal(tmp_path / "journal.sqlite3")
        self.voice = HeardNarrator()
        self.table = Table(self.journal, self.voice, seats=5)
        self.source = GeneratedThrowSource(seed)
        self.desk = ThrowDesk(self.table, ThrowCamera(self.source, None), self.source.expect, seed)
        players = options["players"]
        self.table.new_game("oraklos", options, NAMES[:players], lang, seed=seed)

    @property
    def state(self) -> Any:
        running = self.table.running
        assert running is not None
        return running.state

    def view(self) -> dict[str, Any]:
        snap = self.table.snapshot()
        assert snap["state"] is not None
        return snap["state"]

    def read_and_correct(self) -> list[Any]:
        """Read the throw with the camera, then correct it against the scene's truth as the
        host would on the page; returns the corrections made."""
        self.desk.read_now()
        truth = list(self.source.last_truth)
        corrections = corrections_for(self.state.table, truth)
        for action in corrections:
            self.table.submit(action)
        return corrections


def corrections_for(read: tuple[Die, ...], truth: list[DieReading]) -> list[Any]:
    """The corrections that turn the reading into the truth: wrong colour or hole, a die that
    is not there, a die that was missed (removals from the last index down)."""
    out: list[Any] = []
    matched: set[int] = set()
    extra: list[int] = []
    for index, die in enumerate(read):
        near = [
            (math.dist((die.x, die.y), (t.x, t.y)), k)
            for k, t in enumerate(truth)
            if k not in matched
        ]
        if not near or min(near)[0] > 0.5 * die.size:
            extra.append(index)
            continue
        k = min(near)[1]
        matched.add(k)
        want = truth[k]
        if die.color.value != want.color or die.hole != want.hole:
            out.append(CorrectDie(index, Color(want.color), bool(want.hole)))
    out.extend(RemoveDie(index) for index in sorted(extra, reverse=True))
    for k, t in enumerate(truth):
        if k not in matched:
            die = Die(t.x, t.y, t.size, Color(t.color), bool(t.hole), t.angle)
            out.append(AddDie(die))
    return out


def assert_reading_is_the_truth(state: Any, truth: tuple[DieReading, ...]) -> None:
    read = Counter((d.color.value, d.hole) for d in state.table)
    assert read == Counter((t.color, bool(t.hole)) for t in truth)
    for t in truth:
        assert min(math.dist((d.x, d.y), (t.x, t.y)) for d in state.table) < 0.5 * t.size


def card_with_prediction(state: Any, seat: int) -> tuple[str, Any] | None:
    for card in state.hands[seat]:
        found = find(state.table, card, state.options.either_direction, state.options.holes_allowed)
        if found is not None:
            return card, found
    return None


def claim_round(setup: Setup) -> list[int]:
    """Every seat with a card that has a true prediction takes a marker on it (3, 2, 1 in seat
    order); claims are judged with the prediction's dice. Returns the expected points."""
    state = setup.state
    expected = [0] * state.players
    claims = []
    markers = [3, 2, 1]
    for seat in range(state.players):
        hit = card_with_prediction(state, seat)
        if hit is None or not markers:
            continue
        marker = markers.pop(0)
        setup.table.submit(TakeMarker(seat, marker, hit[0]))
        claims.append((marker, seat, hit[1]))
        expected[seat] += marker
    if setup.state.phase is Phase.SEARCH:
        setup.table.submit(EndSearch())
    for marker, seat, prediction in sorted(claims, key=lambda c: -c[0]):
        before = setup.view()["scores"][seat]
        setup.table.submit(Claim(seat, tuple(prediction.dice)))
        assert setup.view()["scores"][seat] == before + marker
    return expected


@pytest.mark.parametrize("seed", [3, 8])
def test_junior_a_read_throw_is_corrected_then_claims_are_judged_and_scored(
    tmp_path: Path, seed: int
) -> None:
    setup = Setup(tmp_path, {"players": 3, "mode": "junior"}, seed)
    assert setup.state.phase is Phase.THROW
    snap = setup.table.snapshot()
    assert snap["picture"] is None

    setup.read_and_correct()

    snap = setup.table.snapshot()
    assert snap["picture"]["unit"] == "px"
    assert snap["picture"]["width"] == 1280 and snap["picture"]["url"].startswith("/api/throw.jpg")
    assert setup.desk.jpeg is not None and setup.desk.jpeg[:2] == b"\xff\xd8"
    assert_reading_is_the_truth(setup.state, setup.source.last_truth)
    assert len(setup.state.table) == 16 and snap["state"]["mismatch"] == []

    expected = claim_round(setup)
    assert setup.view()["scores"] == expected
    ledger = setup.view()["ledger"]
    assert [line["points"] for line in ledger] == [line["marker"] for line in ledger]
    assert sum(expected) > 0, "this seed's throw should let someone score"
    # the reading and every correction went to the journal before anyone was told
    kinds = [a["kind"] for a in setup.journal.actions(setup.table.running.entry.id)]
    assert kinds[0] == "throw"
    assert kinds.count("claim") == len(ledger)


def test_a_claim_that_is_not_a_prediction_loses_its_marker_and_says_why(tmp_path: Path) -> None:
    setup = Setup(tmp_path, {"players": 2, "mode": "junior"}, 5)
    setup.read_and_correct()
    state = setup.state
    card = state.hands[0][0]
    setup.table.submit(TakeMarker(0, 3, card))
    setup.table.submit(EndSearch())
    dice = wrong_four(setup.state, card)
    said_before = len(setup.voice.said)
    setup.table.submit(Claim(0, dice))
    assert setup.view()["scores"][0] == -3
    spoken = " ".join(setup.voice.said[said_before:])
    assert "Ada" in spoken and "3" in spoken
    assert any(
        word in spoken for word in ("cross", "inside", "order", "line", "profane", "corners")
    ), spoken


def wrong_four(state: Any, card: str) -> tuple[int, ...]:
    from companion.games.oraklos.predictions import check

    for four in _fours(len(state.table)):
        if not check(state.table, four, card).valid:
            return four
    raise AssertionError("every four dice make this card: a very unlikely throw")


def _fours(n: int) -> list[tuple[int, ...]]:
    rng = random.Random(0)
    return [tuple(rng.sample(range(n), 4)) for _ in range(200)]


def test_standard_with_cups_filled_unseen_reads_the_whole_cup_and_goes_on_to_the_next_round(
    tmp_path: Path,
) -> None:
    setup = Setup(tmp_path, {"players": 2, "fills": "unseen"}, 4)
    assert setup.state.phase is Phase.THROW
    setup.read_and_correct()
    assert len(setup.state.table) == 4 + 2 * 6
    assert setup.view()["mismatch"] == []
    claim_round(setup)
    if setup.state.phase is not Phase.OVER:
        assert setup.state.phase is Phase.THROW and setup.state.round == 2
        said = " ".join(setup.voice.said).lower()
        assert "first" in said or "takes back" in said or "passes" in said


def test_standard_with_cups_entered_throws_what_the_cup_held(tmp_path: Path) -> None:
    setup = Setup(tmp_path, {"players": 2}, 6)
    setup.table.submit(FillCup.of(0, Pool(2, 2, 1, 1)))
    setup.table.submit(FillCup.of(1, Pool(1, 1, 2, 2)))
    assert setup.state.phase is Phase.THROW
    setup.read_and_correct()
    counts = Counter(d.color for d in setup.state.table)
    assert counts == {Color.RED: 4, Color.YELLOW: 4, Color.BLUE: 4, Color.BLACK: 4}
    assert setup.view()["mismatch"] == []


def test_antipodes_naming_a_card_is_judged_from_the_read_throw(tmp_path: Path) -> None:
    setup = Setup(tmp_path, {"players": 3, "mode": "antipodes"}, 9)
    setup.read_and_correct()
    state = setup.state
    assert state.phase is Phase.NAME and len(state.shared) == 6
    card = state.shared[0]
    has = find(state.table, card, holes_allowed=True) is not None
    setup.table.submit(NameCard(1, card))
    assert setup.view()["scores"][1] == (-1 if has else 1)
    judged = setup.view()["last_judgement"]
    assert judged["kind"] == "card_named" and judged["card"] == card
    if has:  # the page draws the prediction that was found, where its dice lay
        assert [c["index"] for c in judged["corners"]] == judged["prediction"]["dice"]

    setup.read_and_correct()
    assert setup.state.phase is Phase.NAME
    shared, table = setup.state.shared, setup.state.table
    setup.table.submit(AllFound())
    judged = setup.view()["last_judgement"]
    assert judged["cards"] == list(shared)
    assert judged["missed"] == [c for c in shared if find(table, c, holes_allowed=True) is None]
    assert "Bea" in " ".join(setup.voice.said)


def test_a_misread_throw_blocks_scoring_until_it_is_corrected(tmp_path: Path) -> None:
    setup = Setup(tmp_path, {"players": 2, "mode": "junior"}, 12)
    setup.read_and_correct()
    extra = Die(5.0, 5.0, 30.0, Color.BLUE)
    setup.table.submit(AddDie(extra))  # a die seen that is not there
    assert setup.view()["mismatch"] != []
    setup.table.submit(TakeMarker(0, 3, setup.state.hands[0][0]))
    setup.table.submit(EndSearch())
    version = setup.table.snapshot()["version"]
    with pytest.raises(IllegalAction):
        setup.table.submit(Hesitate(0))
    assert setup.table.snapshot()["version"] == version  # refused: nothing changed
    setup.table.submit(RemoveDie(len(setup.state.table) - 1))
    setup.table.submit(Hesitate(0))
    assert setup.view()["scores"][0] == -3
    with pytest.raises(IllegalAction):  # a judged reading is no longer corrected
        setup.table.submit(RemoveDie(0))


def test_a_re_read_replaces_the_reading_before_the_first_claim(tmp_path: Path) -> None:
    setup = Setup(tmp_path, {"players": 2, "mode": "junior"}, 2)
    setup.desk.read_now()
    first = setup.state.table
    setup.table.submit(RemoveDie(0))
    setup.desk.read_now()  # the same still throw, read again
    assert setup.state.table == first
    assert setup.table.snapshot()["picture"]["url"].endswith("n=2")


def test_corrections_round_trip_through_the_journal_and_a_restart(tmp_path: Path) -> None:
    setup = Setup(tmp_path, {"players": 2, "mode": "junior"}, 7)
    corrections = setup.read_and_correct()
    state = setup.state
    again = Table(Journal(tmp_path / "journal.sqlite3"), HeardNarrator(), seats=5)
    assert again.resume()
    assert again.running is not None and again.running.state == state
    for action in corrections:
        assert action_from_json(ACTIONS, action.to_json()) == action


def test_without_a_camera_reading_the_throw_says_how_to_fix_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    table = Table(journal, HeardNarrator(), seats=5)
    desk = ThrowDesk(table, None)
    table.new_game("oraklos", {"players": 2, "mode": "junior"}, NAMES[:2], "fr", seed=1)
    with pytest.raises(CameraUnavailable, match="caméra"):
        desk.read_now()
    assert table.running is not None and table.running.state.table == ()


def test_before_the_throw_the_snapshot_tells_nothing_of_what_each_seat_put_in(
    tmp_path: Path,
) -> None:
    snaps = []
    for fill in (Pool(2, 2, 1, 1), Pool(0, 0, 3, 3)):
        directory = tmp_path / f"{fill.red}"
        directory.mkdir()
        setup = Setup(directory, {"players": 2}, 6)
        setup.table.submit(FillCup.of(0, fill))
        snap = setup.table.snapshot()
        snaps.append((snap["state"], snap["narration"], snap["picture"], setup.voice.said))
    assert snaps[0] == snaps[1]  # what is shown and what is said are the same either way


class LiveTable(FrameSource):
    """A camera over the table: the empty table, a hand throwing (moving frames), then the dice
    at rest for as long as anyone looks."""

    def __init__(self, frames: list[Any]) -> None:
        self.frames = frames
        self.reads = 0

    def read(self) -> Any:
        self.reads += 1
        time.sleep(0.005)  # a camera gives frames at its own pace
        return self.frames[min(self.reads, len(self.frames)) - 1].copy()


def test_with_a_live_camera_the_throw_is_read_by_itself_once_the_dice_are_still(
    tmp_path: Path,
) -> None:
    colors = [c for c in ("red", "yellow", "blue", "black") for _ in range(4)]
    shot = cube_scene(21, colors=colors, noise=2.0)
    empty = cube_scene(21, colors=[], noise=2.0).image
    moving = [np.roll(shot.image, dx, axis=1) for dx in (30, 20, 10)]
    source = LiveTable([empty] * 5 + moving + [shot.image])
    journal = Journal(tmp_path / "journal.sqlite3")
    table = Table(journal, HeardNarrator(), seats=5)
    desk = ThrowDesk(table, ThrowCamera(source, None, 3, live=True))
    table.new_game("oraklos", {"players": 2, "mode": "junior"}, NAMES[:2], "en", seed=1)
    deadline = time.monotonic() + 60
    while table.running is not None and table.running.state.phase is Phase.THROW:
        assert time.monotonic() < deadline, "the watcher never read the throw"
        time.sleep(0.05)
    # The watcher submits the throw, then shows its picture: on a busy machine (tests run in
    # parallel) this thread can look between the two.
    while table.snapshot()["picture"] is None:
        assert time.monotonic() < deadline, "the watcher never showed the throw's picture"
        time.sleep(0.05)
    desk.close()
    assert table.running is not None and table.running.state.phase is Phase.SEARCH
    assert source.reads >= 5 + 3 + 3, "read only after motion, then still frames"
    assert len(table.running.state.table) == 16
    assert table.snapshot()["picture"] is not None
    assert [a["kind"] for a in journal.actions(table.running.entry.id)] == ["throw"]


def throw_read_live(tmp_path: Path, before: np.ndarray, shot: Any) -> Any:
    """A Junior game (16 dice, 4 of each colour, from the cup) whose throw a live camera reads:
    the table at rest, a hand throwing, the dice at rest. The throw the table took."""
    moving = [np.roll(shot.image, dx, axis=1) for dx in (30, 20, 10)]
    journal = Journal(tmp_path / "journal.sqlite3")
    table = Table(journal, HeardNarrator(), seats=5)
    desk = ThrowDesk(table, ThrowCamera(LiveTable([before] * 5 + moving + [shot.image]), None, 3))
    table.new_game("oraklos", {"players": 2, "mode": "junior"}, NAMES[:2], "en", seed=1)
    deadline = time.monotonic() + 60
    while table.running is not None and table.running.state.phase is Phase.THROW:
        assert time.monotonic() < deadline, "the watcher never read the throw"
        time.sleep(0.05)
    desk.close()
    assert table.running is not None
    return table.running.state


COLORS16 = [c for c in ("red", "yellow", "blue", "black") for _ in range(4)]


def test_a_die_from_the_box_lying_on_the_table_before_the_throw_is_not_taken_for_a_thrown_one(
    tmp_path: Path,
) -> None:
    # sixteen dice thrown, and a fifth red one that lay there, untouched, all along
    shot = cube_scene(21, colors=[*COLORS16, "red"], noise=2.0)
    extra = next(d for d in shot.dice if d.color == "red")
    table = cube_scene(21, colors=[*COLORS16, "red"], noise=2.0, before=True).image
    state = throw_read_live(tmp_path, lying(table, shot, extra), shot)
    assert len(state.table) == 16
    assert Counter(d.color.value for d in state.table) == Counter(COLORS16)
    assert not any(math.dist((d.x, d.y), (extra.x, extra.y)) < extra.size / 2 for d in state.table)
    assert all(d.confidence >= CONFIRM_BELOW for d in state.table), "nothing to ask"


def test_a_die_of_the_cup_no_one_picked_up_still_counts_in_the_throw(tmp_path: Path) -> None:
    # a yellow die lay there before and was not thrown: it is on the table all the same
    shot = cube_scene(22, colors=COLORS16, noise=2.0)
    left = next(d for d in shot.dice if d.color == "yellow")
    table = cube_scene(22, colors=COLORS16, noise=2.0, before=True).image
    state = throw_read_live(tmp_path, lying(table, shot, left), shot)
    assert len(state.table) == 16
    assert any(math.dist((d.x, d.y), (left.x, left.y)) < left.size / 2 for d in state.table)


class StillFrame(FrameSource):
    """A camera over dice that lie still: the same frame every time."""

    def __init__(self, frame: Any) -> None:
        self.frame = frame

    def read(self) -> Any:
        return self.frame.copy()


def test_a_reading_that_disagrees_with_the_cup_tells_nothing_of_who_put_which_dice(
    tmp_path: Path,
) -> None:
    """The camera sees five red dice where the cup held four: the reading is flagged against the
    cup's colours, which the throw makes public, never against what each seat put in. Twin
    games whose seats filled the cup differently (the same dice in all) show and say the same
    throw, the same doubts and the same mismatch; only the supplies differ, as the rules make
    them public at the throw."""
    colors = ["red"] * 5 + ["yellow"] * 3 + ["blue"] * 4 + ["black"] * 4
    frame = cube_scene(5, colors=colors, noise=2.0).image
    shown = []
    twins = {"a": (Pool(2, 2, 1, 1), Pool(1, 1, 2, 2)), "b": (Pool(1, 1, 2, 2), Pool(2, 2, 1, 1))}
    for name, fills in twins.items():
        journal = Journal(tmp_path / f"{name}.sqlite3")
        voice = HeardNarrator()
        table = Table(journal, voice, seats=5)
        published: list[dict[str, Any]] = []
        desk = ThrowDesk(table, ThrowCamera(StillFrame(frame), None, live=False))
        table.new_game("oraklos", {"players": 2}, NAMES[:2], "en", seed=6)
        table.subscribe(published.append)
        for seat, fill in enumerate(fills):
            table.submit(FillCup.of(seat, fill))
        desk.read_now()
        desk.close()
        snaps = [*published, table.snapshot()]
        for snap in snaps:
            if snap["state"] is not None:
                snap["state"].pop("supplies")
        shown.append((snaps, voice.said))
    assert shown[0] == shown[1]
    state = shown[0][0][-1]["state"]
    assert state["mismatch"] != [], "the reading disagrees with the cup"
    assert any(die["flagged"] for die in state["table"] if die["color"] == "red")


def test_what_the_table_before_the_throw_leaves_out_tells_nothing_of_who_put_which_dice(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A seventeenth die lay on the table before the throw. Twin games whose seats filled the
    cup differently (the same dice in all) leave it out alike: the same snapshots, the same
    words said, the same log line, which names no seat, player or colour."""
    shot = cube_scene(21, colors=[*COLORS16, "red"], noise=2.0)
    extra = next(d for d in shot.dice if d.color == "red")
    before = lying(
        cube_scene(21, colors=[*COLORS16, "red"], noise=2.0, before=True).image, shot, extra
    )
    moving = [np.roll(shot.image, dx, axis=1) for dx in (30, 20, 10)]
    twins = {"a": (Pool(2, 2, 1, 1), Pool(1, 1, 2, 2)), "b": (Pool(1, 1, 2, 2), Pool(2, 2, 1, 1))}
    shown = []
    for name, fills in twins.items():
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="desks.throws"):
            table = Table(
                Journal(tmp_path / f"{name}.sqlite3"), (voice := HeardNarrator()), seats=5
            )
            camera = ThrowCamera(LiveTable([before] * 5 + moving + [shot.image]), None, 3)
            desk = ThrowDesk(table, camera)
            table.new_game("oraklos", {"players": 2}, NAMES[:2], "en", seed=6)
            published: list[dict[str, Any]] = []
            table.subscribe(published.append)
            for seat, fill in enumerate(fills):
                table.submit(FillCup.of(seat, fill))
            deadline = time.monotonic() + 60
            while table.snapshot()["picture"] is None:
                assert time.monotonic() < deadline, "the watcher never read the throw"
                time.sleep(0.05)
            desk.close()
        logged = [r.getMessage() for r in caplog.records if r.name == "desks.throws"]
        snaps = [*published, table.snapshot()]
        for snap in snaps:
            if snap["state"] is not None:
                snap["state"].pop("supplies")  # public at the throw, by the rules
        shown.append((snaps, voice.said, logged))
    assert shown[0] == shown[1]
    state = shown[0][0][-1]["state"]
    assert len(state["table"]) == 16, "the die lying there before is left out"
    logged = shown[0][2]
    assert any("left out" in line for line in logged), logged
    words = [*NAMES, "seat", "red", "yellow", "blue", "black"]
    assert not any(w.lower() in line.lower() for line in logged for w in words), logged
