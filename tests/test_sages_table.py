"""Les 7 Sages at the table: the companion plays its side, the hourglass warns and runs out,
both journaled like any move and both dropped when the table moved on first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from heard import HeardNarrator

from companion.game import Event, IllegalAction
from companion.games.sages.board import Square
from companion.games.sages.engine import Sages
from companion.games.sages.state import AgreeDraw, MoveSage, TimeUp
from companion.journal import Journal
from companion.moderator import Table
from companion.narration.catalog import Catalog
from companion.narration.sages import lines
from tests.timing import HandClock

NAMES = ["Ada", "Bea"]


class Rig:
    """A table whose hourglass runs on a clock moved by hand, and whose companion thinks only
    when the test lets it (``think``)."""

    def __init__(self, tmp_path: Path) -> None:
        self.clock = HandClock()
        self.voice = HeardNarrator()
        self.journal = Journal(tmp_path / "journal.sqlite3")
        self.waiting: list[Callable[[], None]] = []
        self.table = Table(
            self.journal,
            self.voice,
            seats=2,
            clock=self.clock,
            background=self.waiting.append,
            wall_clock=lambda: 1000.0 + self.clock.now(),
        )

    def start(self, **options: object) -> None:
        self.table.new_game("sages", options, NAMES, "en", seed=0)

    def think(self) -> None:
        waiting, self.waiting[:] = list(self.waiting), []
        for fn in waiting:
            fn()

    @property
    def state(self):  # type: ignore[no-untyped-def]
        assert self.table.running is not None
        return self.table.running.state

    def actions(self) -> list[dict[str, object]]:
        assert self.table.running is not None
        return self.journal.actions(self.table.running.entry.id)


def red_opens(rig: Rig) -> None:
    rig.table.submit(MoveSage(0, Square.from_json("d3"), Square.from_json("d5")))


def test_the_companion_answers_a_move_with_its_own_journaled_move(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start(computer="blue", strength=1)
    rig.think()  # red's turn: the companion has nothing to play
    assert rig.actions() == []
    red_opens(rig)
    assert rig.state.to_move.value == "blue"
    rig.think()
    actions = rig.actions()
    assert [a["seat"] for a in actions] == [0, 1]
    assert rig.state.to_move.value == "red"
    assert rig.voice.said[-1].startswith("Bea")  # its move is said like anyone's


def test_the_companion_s_move_is_dropped_if_the_table_moved_on(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start(computer="blue", strength=1)
    red_opens(rig)
    # before the companion answers, the host plays blue's move by hand
    rig.table.submit(MoveSage(1, Square.from_json("d13"), Square.from_json("d11")))
    rig.think()  # the companion's answer to the old position is not played
    assert [a["seat"] for a in rig.actions()] == [0, 1]
    assert rig.actions()[1]["to"] == "d11"


def test_the_hourglass_warns_then_passes_the_turn(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start(hourglass=60)
    hourglass = rig.table.snapshot()["hourglass"]
    assert hourglass == {"seat": 0, "seconds": 60, "ends_at": 1060.0}
    rig.clock.advance(29)
    assert not any("seconds left" in line for line in rig.voice.said)
    rig.clock.advance(1)
    assert rig.voice.said[-1] == "Ada, 30 seconds left."
    rig.clock.advance(20)
    assert rig.voice.said[-1] == "Ada, 10 seconds left."
    rig.clock.advance(10)
    assert rig.actions() == [{"kind": "time_up", "seat": 0}]
    assert rig.voice.said[-1] == "The sand has run out for Ada: Bea plays."
    assert rig.table.snapshot()["hourglass"]["seat"] == 1  # Bea's sand is running now


def test_a_move_in_time_stops_the_hourglass(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start(hourglass=60)
    rig.clock.advance(45)
    red_opens(rig)
    rig.clock.advance(50)  # Bea's sand has 10 seconds left; Ada's old one would have run out
    assert [a["kind"] for a in rig.actions()] == ["move"]
    assert rig.voice.said[-1] == "Bea, 10 seconds left."


def test_the_companion_s_moves_are_not_timed_and_an_ended_match_has_no_sand(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path)
    rig.start(hourglass=30, computer="red", strength=1)
    assert rig.table.snapshot()["hourglass"] is None
    rig.clock.advance(100)
    assert rig.actions() == []
    rig.think()
    assert rig.table.snapshot()["hourglass"]["seat"] == 1


def test_time_up_without_an_hourglass_is_refused(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start()
    with pytest.raises(IllegalAction) as refused:
        rig.table.submit(TimeUp(0))
    assert rig.table.explain(refused.value) == "This match has no hourglass."
    assert rig.actions() == []


def test_the_host_pauses_the_hourglass_and_it_resumes_with_the_sand_left(tmp_path: Path) -> None:
    """The same hourglass as game night's turn timer, paused the same way."""
    rig = Rig(tmp_path)
    rig.start(hourglass=60)
    rig.clock.advance(45)
    rig.table.pause_hourglass()
    assert rig.voice.said[-1] == "The sand is stopped: Ada has 15 seconds left."
    assert rig.table.snapshot()["hourglass"] is None
    rig.clock.advance(300)
    assert rig.state.to_move.value == "red"
    rig.table.resume_hourglass()
    assert rig.table.snapshot()["hourglass"]["seconds"] == 15
    rig.clock.advance(15)
    assert rig.state.to_move.value == "blue"
    assert rig.table.snapshot()["hourglass"]["seconds"] == 60  # the next move has it all


def test_a_move_made_while_paused_ends_the_pause(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start(hourglass=60)
    rig.clock.advance(10)
    rig.table.pause_hourglass()
    red_opens(rig)
    assert rig.table.snapshot()["hourglass"] == {"seat": 1, "seconds": 60, "ends_at": 1070.0}


def test_a_paused_hourglass_is_paused_still_after_a_restart(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start(hourglass=60)
    rig.clock.advance(20)
    rig.table.pause_hourglass()
    rig.journal.close()
    again = Rig(tmp_path)
    assert again.table.resume()
    assert again.table.snapshot()["hourglass"] is None
    assert again.table.snapshot()["state"]["hourglass_left"] == 40
    again.journal.close()


def test_pausing_a_match_without_an_hourglass_is_refused(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start()
    with pytest.raises(IllegalAction) as caught:
        rig.table.pause_hourglass()
    assert caught.value.code == "no_hourglass_running"


def test_an_agreed_draw_entered_by_the_host_ends_the_match_and_is_said(tmp_path: Path) -> None:
    """Option ``draw_by_agreement``: journaled like any action, said aloud, and shown as a
    draw at the end (no winner; the summary keeps the score)."""
    rig = Rig(tmp_path)
    rig.start(draw_by_agreement=True, repetition="round")
    red_opens(rig)
    rig.table.submit(AgreeDraw())
    assert rig.actions()[-1] == {"kind": "agree_draw"}
    said = "The players agree to a draw: the match ends with no winner, red 0, blue 0."
    assert rig.voice.said[-1] == said
    snap = rig.table.snapshot()
    assert snap["state"]["winner"] is None and snap["state"]["drawn"] == "draw_agreed"
    assert snap["ending"]["outcome"] == {"winner": "draw", "reason": "draw_agreed"}
    assert snap["ending"]["said"] == [said]
    assert snap["ending"]["summary"] == ["Ada: 0 points", "Bea: 0 points"]


def test_a_phone_cannot_agree_a_draw_for_the_table(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start(draw_by_agreement=True)
    for seat in (0, 1):
        with pytest.raises(IllegalAction) as caught:
            rig.table.phones.submit(seat, AgreeDraw())
        assert caught.value.code == "not_your_seat"
    assert rig.actions() == [] and rig.state.outcome is None


def test_without_the_option_the_agreed_draw_is_refused_in_words(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.start()
    with pytest.raises(IllegalAction) as caught:
        rig.table.submit(AgreeDraw())
    assert rig.table.explain(caught.value) == (
        "This match has no agreed draw: it was not chosen when the match was set up."
    )
    assert rig.actions() == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_placement_and_the_draw_options_are_said_at_the_start(lang: str) -> None:
    game = Sages()
    catalog = Catalog(lang, NAMES)
    for options, expected in (
        ({"layout": "free"}, {"en": "the six others anywhere in the kingdom", "fr": "à travers"}),
        ({"layout": "free", "placement": "halves"}, {"en": "your half", "fr": "votre moitié"}),
        ({"draw_by_agreement": True}, {"en": "agree to a draw", "fr": "partie nulle"}),
        ({"repetition": "round"}, {"en": "draws the round", "fr": "rend la manche nulle"}),
        ({"repetition": "match"}, {"en": "draws the match", "fr": "rend la partie nulle"}),
    ):
        (event,) = game.opening_events(game.new(options, 0))
        heard = " ".join(lines(catalog, event))
        assert expected[lang] in heard, (options, heard)
        assert "{" not in heard


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_draw_by_repetition_is_said(lang: str) -> None:
    catalog = Catalog(lang, NAMES)
    drawn = Event("match_drawn", {"reason": "repetition", "round": 2, "score": [1, 3]})
    replay = Event("round_drawn", {"round": 2, "first": 1})
    (match,) = lines(catalog, drawn)
    (round_,) = lines(catalog, replay)
    assert "3" in match and ("third" in match or "troisième" in match)
    assert "Bea" in round_ and ("no point" in round_ or "sans point" in round_)
