"""Game night at the table: the turn timer on the moderator's hourglass (a clock moved by hand,
no test sleeps), A on the seat buttons passing the turn (gpiozero's MockFactory pins, with
contact chatter), the host's pause and resume, and a power cut that loses nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from button_rig import BOUNCE, LEDS, PAIRS, Clock, bouncing_press
from gpiozero.pins.mock import MockFactory
from heard import HeardNarrator

from companion.game import IllegalAction
from companion.games.night.dice import PipDie
from companion.games.night.state import (
    PickStarter,
    ReadDice,
    SayLeader,
    StartTimer,
    StopTimer,
    WriteScore,
)
from companion.journal import Journal
from companion.moderator import Table
from companion.seat_input import Button, Press
from hardware.button_box import ButtonBox
from tests.timing import HandClock

NAMES = ["Ada", "Bea", "Cyd"]


class Rig:
    def __init__(self, path: Path, lang: str = "en") -> None:
        self.clock = HandClock()
        self.voice = HeardNarrator()
        self.journal = Journal(path)
        self.table = Table(
            self.journal,
            self.voice,
            default_language=lang,
            seats=len(PAIRS),
            clock=self.clock,
            wall_clock=lambda: 5000.0 + self.clock.now(),
        )

    def start(self, **options: object) -> None:
        self.table.new_game("night", {"players": 3, **options}, NAMES, seed=11)

    @property
    def timer(self) -> dict:
        return self.table.snapshot()["state"]["timer"]

    def heard_since(self, mark: int) -> list[str]:
        return self.voice.said[mark:]


@pytest.fixture
def rig(tmp_path: Path):
    made = Rig(tmp_path / "journal.sqlite3")
    yield made
    made.journal.close()


def test_the_voice_warns_at_thirty_and_ten_seconds_then_the_turn_passes(rig):
    rig.start()
    rig.table.submit(StartTimer(0, 45))
    mark = len(rig.voice.said)
    rig.clock.advance(14.9)
    assert rig.heard_since(mark) == []
    rig.clock.advance(0.2)
    assert rig.heard_since(mark) == ["Ada, 30 seconds left."]
    rig.clock.advance(20)
    assert rig.heard_since(mark)[-1] == "Ada, 10 seconds left."
    rig.clock.advance(10)
    assert rig.heard_since(mark)[-2:] == ["Time is up, Ada.", "Bea, your turn."]
    assert rig.timer["turn"] == 1
    assert rig.journal.actions(rig.table.running.entry.id)[-1] == {
        "kind": "pass_turn",
        "seat": 0,
        "timed_out": True,
    }


def test_the_countdown_is_on_the_page_with_its_end(rig):
    rig.start()
    rig.table.submit(StartTimer(2, 60))
    assert rig.table.snapshot()["hourglass"] == {"seat": 2, "seconds": 60, "ends_at": 5060.0}


def test_scores_and_dice_while_a_turn_runs_do_not_restart_its_sand(rig):
    rig.start()
    rig.table.submit(StartTimer(0, 60))
    rig.clock.advance(40)
    rig.table.submit(WriteScore(1, 0, 12))
    rig.table.submit(ReadDice((PipDie(4),)))
    rig.table.submit(PickStarter())
    assert rig.table.snapshot()["hourglass"]["ends_at"] == 5060.0
    rig.clock.advance(20)
    assert rig.timer["turn"] == 1  # the turn ran out at 60 s, as it would have untouched


def test_a_turn_passed_early_starts_a_full_countdown_for_the_next(rig):
    rig.start()
    rig.table.submit(StartTimer(0, 60))
    rig.clock.advance(50)
    rig.table.press(Press(2, Button.A))
    assert rig.table.snapshot()["hourglass"] == {"seat": 1, "seconds": 60, "ends_at": 5110.0}
    rig.clock.advance(59)
    assert rig.timer["turn"] == 1


def test_the_host_pauses_with_the_seconds_the_clock_had_left_and_resumes_from_them(rig):
    rig.start()
    rig.table.submit(StartTimer(0, 60))
    rig.clock.advance(22.5)
    rig.table.pause_hourglass()
    assert rig.voice.said[-1] == "The sand is stopped: Ada has 38 seconds left."
    assert rig.table.snapshot()["hourglass"] is None
    assert rig.timer["paused"] and rig.timer["left"] == 37.5
    rig.clock.advance(600)  # a long pause: no sand runs
    assert rig.timer["turn"] == 0
    rig.table.resume_hourglass()
    assert rig.table.snapshot()["hourglass"]["seconds"] == 37.5
    rig.clock.advance(37.4)
    assert rig.timer["turn"] == 0
    rig.clock.advance(0.2)
    assert rig.timer["turn"] == 1


def test_pausing_with_no_countdown_running_is_refused_and_changes_nothing(rig):
    rig.start()
    with pytest.raises(IllegalAction) as caught:
        rig.table.pause_hourglass()
    assert caught.value.code == "no_hourglass_running"
    assert rig.table.running.version == 0


def test_a_stopped_timer_runs_no_sand(rig):
    rig.start()
    rig.table.submit(StartTimer(0, 60))
    rig.table.submit(StopTimer())
    assert rig.clock.pending == 0 and rig.table.snapshot()["hourglass"] is None


def test_a_paused_turn_is_still_paused_after_a_power_cut(tmp_path):
    path = tmp_path / "journal.sqlite3"
    first = Rig(path)
    first.start()
    first.table.submit(StartTimer(1, 90))
    first.clock.advance(30)
    first.table.pause_hourglass()
    first.table.submit(WriteScore(0, 0, 7))
    first.journal.close()  # the power goes

    second = Rig(path)
    assert second.table.resume()
    view = second.table.snapshot()["state"]
    assert (view["timer"]["turn"], view["timer"]["paused"], view["timer"]["left"]) == (1, True, 60)
    assert view["scores"]["totals"] == [7, 0, 0]
    second.table.resume_hourglass()
    second.clock.advance(60)
    assert second.timer["turn"] == 2
    second.journal.close()


def test_a_running_turn_restarts_whole_after_a_power_cut(tmp_path):
    path = tmp_path / "journal.sqlite3"
    first = Rig(path)
    first.start()
    first.table.submit(StartTimer(0, 60))
    first.journal.close()
    second = Rig(path)
    second.table.resume()
    assert second.table.snapshot()["hourglass"]["seconds"] == 60
    second.journal.close()


def test_the_leader_is_read_aloud_on_request(rig):
    rig.start()
    rig.table.submit(WriteScore(0, 0, 3))
    rig.table.submit(WriteScore(2, 0, 8))
    assert rig.voice.said[-1] != "Cyd leads with 8 points."  # a score is shown, not said
    rig.table.submit(SayLeader())
    assert rig.voice.said[-1] == "Cyd leads with 8 points."


def test_who_starts_is_said_aloud_and_journalled(rig):
    rig.start()
    rig.table.submit(PickStarter())
    picked = rig.table.snapshot()["state"]["picks"][-1]["seat"]
    assert rig.voice.said[-1] == f"Draw number 1: {NAMES[picked]} starts."
    assert rig.journal.actions(rig.table.running.entry.id) == [
        {"kind": "pick_starter", "among": []}
    ]


def test_in_french_the_turns_are_said_in_french(tmp_path):
    rig = Rig(tmp_path / "fr.sqlite3", lang="fr")
    rig.start()
    rig.table.submit(StartTimer(0, 20))
    rig.clock.advance(20)
    assert rig.voice.said[-3:] == [
        "Ada, plus que 10 secondes.",
        "Le temps est écoulé, Ada.",
        "Bea, à vous.",
    ]
    rig.journal.close()


# -- the seat buttons ----------------------------------------------------------------------------


class ButtonRig(Rig):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.debounce = Clock()
        self.factory = MockFactory()
        self.box = ButtonBox(
            PAIRS,
            LEDS,
            self.table.press,
            bounce=BOUNCE,
            pin_factory=self.factory,
            clock=self.debounce,
        )

    def press(self, seat: int, button: Button) -> None:
        pin = self.factory.pin(PAIRS[seat][0 if button is Button.A else 1])
        bouncing_press(pin, self.debounce, chatter=3)


@pytest.fixture
def buttons(tmp_path: Path):
    made = ButtonRig(tmp_path / "journal.sqlite3")
    yield made
    made.box.close()
    made.journal.close()


def test_a_bouncing_press_of_any_seats_a_passes_the_turn_once(buttons):
    buttons.start()
    buttons.table.submit(StartTimer(0, 60))
    buttons.press(2, Button.A)  # Cyd presses for Ada, who is busy
    assert buttons.timer["turn"] == 1
    buttons.press(1, Button.A)
    assert (buttons.timer["turn"], buttons.timer["turns"]) == (2, 2)


def test_b_passes_nothing_and_says_what_a_does(buttons):
    buttons.start()
    buttons.table.submit(StartTimer(0, 60))
    buttons.press(0, Button.B)
    assert buttons.timer["turn"] == 0
    assert buttons.voice.said[-1] == "Ada, at game night A passes the turn; B does nothing."


def test_a_without_a_timer_tells_the_seat_to_start_one(buttons):
    buttons.start()
    buttons.press(1, Button.A)
    assert buttons.voice.said[-1] == "Bea, no turn timer is running: start it on the page."
    assert buttons.table.running.version == 0


def test_a_while_paused_passes_nothing(buttons):
    buttons.start()
    buttons.table.submit(StartTimer(0, 60))
    buttons.clock.advance(5)
    buttons.table.pause_hourglass()
    buttons.press(0, Button.A)
    assert buttons.timer["turn"] == 0 and buttons.timer["paused"]


def test_once_the_evening_is_over_anyone_holding_the_record_can_check_every_draw(rig):
    import json

    from companion.games.night.engine import pick
    from companion.games.night.state import EndEvening

    rig.start()
    rig.table.submit(PickStarter())
    rig.table.submit(PickStarter((0, 2)))
    shown = rig.table.snapshot()["state"]["picks"]
    rig.table.submit(EndEvening())
    lines = [json.loads(line) for line in rig.table.export()]
    seed = int(lines[0]["seed"], 16)
    draws = [line for line in lines[1:] if line["kind"] == "pick_starter"]
    for number, (draw, said) in enumerate(zip(draws, shown, strict=True), start=1):
        among = draw["among"] or list(range(3))
        assert pick(seed, number, among) == said["seat"]


def test_the_seed_that_decides_the_next_draws_is_never_shown(rig, caplog):
    """The draws are checked afterwards from the record (the host's); a page or the stream that
    showed the seed would let a player foresee who starts next."""
    import json
    import logging

    caplog.set_level(logging.DEBUG)
    seed = 918273645
    rig.table.new_game("night", {"players": 3}, NAMES, seed=seed)
    seen: list[str] = []
    rig.table.subscribe(lambda snap: seen.append(json.dumps(snap)))  # what SSE sends
    rig.table.submit(PickStarter())
    rig.table.submit(StartTimer(0, 30))
    rig.clock.advance(30)
    assert seen and all(str(seed) not in snap for snap in seen)
    assert str(seed) not in json.dumps(rig.table.snapshot())
    assert str(seed) not in " ".join(rig.voice.said) + caplog.text
    record = rig.table.export()  # the evening goes on: its record names the draws, not the seed
    assert json.loads(record[0])["seed"] is None
    assert json.loads(record[0])["options"]["starters"] == [
        p["seat"] for p in rig.table.snapshot()["state"]["picks"]
    ]
    assert str(seed) not in "".join(record) and f"{seed:x}" not in "".join(record)
