"""Whole games of Résistance played with nothing but buttons: gpiozero MockFactory pins driven low
and high (with contact chatter), through the button box, the table, the journal and the narrator.

What the table hears is recorded by a Speech that writes lines down; the narrator's pauses go to
an injected ``sleep`` that writes them down too, so nothing here waits for real time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from button_rig import BOUNCE, LEDS, PAIRS, Clock, bouncing_press
from gpiozero.pins.mock import MockFactory

from companion.journal import Journal
from companion.moderator import Table
from companion.narration import Catalog
from companion.seat_input import Button
from hardware.button_box import ButtonBox
from voice.narrator import Narrator

A, B = Button.A, Button.B
NAMES = ("Adama", "Roslin", "Tigh", "Apollo", "Baltar", "Starbuck", "Helo")
PAUSES = {"intro": 4.0, "close_eyes": 2.5, "cylons_open": 6.0, "cylons_close": 2.5}
SAY = "resistance.say."


def turn_over(rig: Any) -> str:
    """At a game's end with identity cards dealt by hand, everyone turns theirs over."""
    return str(rig.say("ending.turn_over"))


class RecordingSpeech:
    """The project's Speech protocol, writing lines down. ``gate`` can hold a line in the air,
    like a long sentence being spoken."""

    name = "recording"

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.gate = threading.Event()
        self.gate.set()
        self.speaking = threading.Event()

    def speak(self, text: str, lang: str) -> None:
        self.lines.append(text)
        self.speaking.set()
        self.gate.wait(10)


class Rig:
    def __init__(self, tmp_path: Path, players: int, lang: str = "en") -> None:
        self.players = players
        self.clock = Clock()
        self.speech = RecordingSpeech()
        self.sleeps: list[float] = []
        self.narrator = Narrator(lambda: self.speech, sleep=self.sleeps.append)
        self.journal = Journal(tmp_path / "j.sqlite3")
        self.table = Table(
            self.journal, self.narrator, default_language=lang, seats=len(PAIRS), pauses=PAUSES
        )
        self.factory = MockFactory()
        self.box = ButtonBox(
            PAIRS, LEDS, self.table.press, bounce=BOUNCE, pin_factory=self.factory, clock=self.clock
        )
        self.table.lights = self.box
        self.catalog = Catalog(lang, NAMES[:players])

    def start(self, wait: bool = True, **options: Any) -> None:
        self.table.new_game(
            "resistance", {"players": self.players, **options}, NAMES[: self.players], seed=2024
        )
        if wait:
            assert self.narrator.wait_idle(5)
            assert self.state()["phase"] == "propose"

    def press(self, seat: int, button: Button, chatter: int = 2) -> None:
        bouncing_press(self.factory.pin(PAIRS[seat][0 if button is A else 1]), self.clock, chatter)

    def state(self) -> dict[str, Any]:
        state = self.table.snapshot()["state"]
        assert isinstance(state, dict)
        return state

    def heard(self) -> list[str]:
        assert self.narrator.wait_idle(5)
        return list(self.speech.lines)

    def leds(self) -> list[bool]:
        lit = [bool(self.factory.pin(LEDS[seat]).state) for seat in range(self.players)]
        assert self.box.leds()[: self.players] == lit
        return lit

    def say(self, key: str, **params: Any) -> str:
        return self.catalog.text(key, **params)

    def close(self) -> None:
        self.speech.gate.set()
        self.narrator.close()
        self.box.close()
        self.journal.close()


@pytest.fixture
def rig_for(tmp_path: Path) -> Iterator[Any]:
    rigs: list[Rig] = []

    def make(players: int, lang: str = "en") -> Rig:
        rig = Rig(tmp_path / str(len(rigs)), players, lang)
        rigs.append(rig)
        return rig

    yield make
    for rig in rigs:
        rig.close()


# -- a round, pressed ----------------------------------------------------------------------------


def name_squad(rig: Rig, squad: Sequence[int], mission: int | None = None) -> None:
    """Named players press A to join; the Commandant confirms the full squad with A."""
    state = rig.state()
    commander, mission = state["commander"], mission or state["mission"]
    for seat in squad:
        rig.press(seat, A)
    assert rig.heard()[-1] == rig.say(
        SAY + "squad_read_back", commander=commander, squad=sorted(squad), mission=mission
    )
    rig.press(commander, A)
    state = rig.state()
    assert state["phase"] == "vote"
    assert state["squad"] == sorted(squad)
    assert rig.heard()[-1] == rig.say(
        SAY + "squad_proposed", commander=commander, squad=sorted(squad), mission=mission
    )


def vote(rig: Rig, yes: set[int]) -> list[str]:
    """Everyone votes; the first voter changes their mind once. Until the last vote is in,
    nothing is said and the LEDs only say who has voted. Returns what was said after."""
    players = rig.players
    before, revealed = rig.heard(), rig.state()["last_vote"]
    assert rig.leds() == [False] * players
    for seat in range(players):
        choice = A if seat in yes else B
        if seat == 0:
            rig.press(seat, B if choice is A else A)
            changed_from, leds = rig.state(), rig.leds()
            rig.press(seat, choice)
            assert rig.state() == changed_from  # a yes and a no look the same from outside
            assert rig.leds() == leds
        else:
            rig.press(seat, choice)
        if seat < players - 1:
            assert rig.leds() == [s <= seat for s in range(players)]
            assert rig.state()["voted"] == list(range(seat + 1))
            assert rig.state()["last_vote"] == revealed
            assert rig.heard() == before  # not a word while the vote is open
    assert rig.leds() == [False] * players  # all dark once the vote is revealed
    said = rig.heard()[len(before) :]
    approved = 2 * len(yes) > players
    assert said[0] == rig.say(
        SAY + ("vote_approved" if approved else "vote_rejected"),
        yes=len(yes),
        no=players - len(yes),
    )
    assert not any(name in said[0] for name in NAMES)
    assert rig.state()["last_vote"]["approvals"] == [s in yes for s in range(players)]
    return said


def play(rig: Rig, fails: set[int]) -> list[str]:
    """The squad plays its cards: A success, B fail; the first player changes their card once.
    Only the counts are ever said."""
    state = rig.state()
    squad, mission = state["squad"], state["mission"]
    assert state["phase"] == "mission"
    before = rig.heard()
    for n, seat in enumerate(squad):
        card = B if seat in fails else A
        if n == 0:
            rig.press(seat, A if card is B else B)
            changed_from, leds = rig.state(), rig.leds()
            rig.press(seat, card)
            assert rig.state() == changed_from  # a success and a fail look the same
            assert rig.leds() == leds
        else:
            rig.press(seat, card)
        if n < len(squad) - 1:
            assert rig.leds() == [s in squad[: n + 1] for s in range(rig.players)]
            assert rig.heard() == before
    assert rig.leds() == [False] * rig.players
    said = rig.heard()[len(before) :]
    failed = len(fails) >= state["missions"][mission - 1]["fails_needed"]
    assert said[0] == rig.say(
        SAY + ("mission_fails" if failed else "mission_succeeds"),
        mission=mission,
        successes=len(squad) - len(fails),
        fails=len(fails),
    )
    assert not any(name in said[0] for name in NAMES)
    result = rig.state()["missions"][mission - 1]
    assert result["result"] == ("fail" if failed else "success")
    assert (result["successes"], result["fails"]) == (len(squad) - len(fails), len(fails))
    return said


def press_off_squad(rig: Rig, seat: int) -> None:
    """A seat not on the squad presses during the mission: ignored, and said so."""
    state, leds, before = rig.state(), rig.leds(), rig.heard()
    assert seat not in state["squad"]

    rig.press(seat, B)

    line = rig.say("ignored.not_on_squad", seat=seat)
    assert rig.heard()[len(before) :] == [line]
    assert line in rig.table.snapshot()["narration"]
    assert rig.state() == state
    assert rig.leds() == leds


def round_of(
    rig: Rig, squad: Sequence[int], yes: set[int], fails: set[int], mission: int | None = None
) -> list[str]:
    name_squad(rig, squad, mission)
    vote(rig, yes)
    return play(rig, fails)


# -- the games ------------------------------------------------------------------------------------


def test_the_colonials_win_with_three_successes(rig_for: Any) -> None:
    rig = rig_for(5)
    rig.speech.gate.clear()  # the first sentence is still being spoken...
    rig.start(wait=False)
    assert rig.speech.speaking.wait(5)

    rig.press(0, A)  # ...and a button pressed meanwhile is answered at once
    assert rig.state()["phase"] == "night"
    assert rig.table.snapshot()["message"] == rig.say("ignored.night")
    assert rig.speech.lines == [rig.say("general.game_started", game="Résistance", players=5)]

    rig.speech.gate.set()
    night = [
        rig.say(f"resistance.night.{step}")
        for step in ("intro", "close_eyes", "cylons_open", "cylons_close", "open_eyes")
    ]
    heard = rig.heard()
    assert heard[1:6] == night
    assert rig.sleeps == [4.0, 2.5, 6.0, 2.5]
    assert rig.say("ignored.night") not in heard  # eyes closed: shown, never spoken
    assert heard[6] == rig.say(SAY + "commander", commander=0, mission=1, size=2)
    assert rig.state()["phase"] == "propose"

    rig.press(3, A)  # Apollo joins, then steps back out: B
    rig.press(3, B)
    assert rig.heard()[-1] == rig.say(SAY + "squad_member_out", seat=3, count=0, size=2)
    name_squad(rig, [0, 1])
    said = vote(rig, yes={0, 1, 2})
    assert said[1] == rig.say(SAY + "mission_begins")
    press_off_squad(rig, 4)
    said = play(rig, fails=set())
    assert said[1] == rig.say(SAY + "commander", commander=1, mission=2, size=3)

    name_squad(rig, [1, 2, 3])
    said = vote(rig, yes={1, 2})  # rejected: the command passes to the left
    assert said[1:] == [
        rig.say(SAY + "rejections", rejections=1),
        rig.say(SAY + "commander", commander=2, mission=2, size=3),
    ]
    name_squad(rig, [2, 3, 4])
    vote(rig, yes={0, 2, 3, 4})
    play(rig, fails=set())

    assert rig.state()["commander"] == 3
    said = round_of(rig, [3, 4], yes={0, 1, 2, 3, 4}, fails=set())

    assert said[1:] == [rig.say(SAY + "colons_win"), turn_over(rig)]
    final = rig.state()
    assert final["phase"] == "over"
    assert final["outcome"] == {"winner": "colons", "reason": "three_successes"}
    assert final["score"] == {"successes": 3, "failures": 0}
    entry = rig.journal.latest_game()
    assert entry is not None and entry.finished

    rig.press(2, A)
    assert rig.heard()[-1] == rig.say("ignored.game_over")
    assert rig.state() == final


def test_the_cylons_win_with_three_failures_at_seven(rig_for: Any) -> None:
    rig = rig_for(7, "fr")
    rig.start()

    said = round_of(rig, [0, 1], yes={0, 1, 2, 3}, fails={1})
    assert said[0] == "La mission 1 échoue\xa0: 1 réussite, 1 échec."
    round_of(rig, [1, 2, 3], yes={0, 1, 2, 3, 4, 5, 6}, fails={2})

    for seat in (2, 3, 4):  # the Commandant starts again with B once the squad is full
        rig.press(seat, A)
    rig.press(2, B)
    assert rig.heard()[-1] == rig.say(SAY + "squad_cleared", commander=2)
    round_of(rig, [2, 3, 4], yes={2, 3, 4, 5}, fails=set())

    name_squad(rig, [3, 4, 5, 6])  # mission 4 at seven players: two fail cards to fail it
    said = vote(rig, yes={3, 4, 5, 6})
    assert said[1:3] == [rig.say(SAY + "mission_begins"), rig.say(SAY + "two_fails_needed")]
    press_off_squad(rig, 0)
    said = play(rig, fails={5})
    assert said[0] == "La mission 4 est réussie\xa0: 3 réussites, 1 échec."
    assert rig.state()["score"] == {"successes": 2, "failures": 2}

    said = round_of(rig, [0, 4, 5, 6], yes={0, 4, 5, 6, 1}, fails={5, 6})

    assert said[0] == "La mission 5 échoue\xa0: 2 réussites, 2 échecs."
    assert said[1:] == [rig.say(SAY + "cylons_win_missions"), turn_over(rig)]
    final = rig.state()
    assert final["outcome"] == {"winner": "cylons", "reason": "three_failures"}
    assert final["score"] == {"successes": 2, "failures": 3}
    assert [m["result"] for m in final["missions"]] == [
        "fail",
        "fail",
        "success",
        "success",
        "fail",
    ]


def test_the_cylons_win_with_five_rejected_squads(rig_for: Any) -> None:
    rig = rig_for(6)
    rig.start(first_commander=2)
    proposals = [
        ([2, 3], {2, 3}),
        ([3, 4], {3, 4, 0}),
        ([4, 5], {4}),  # 3 of 6 is a tie
        ([0, 5], set()),
        ([0, 1], {0, 1}),
    ]

    for number, (squad, yes) in enumerate(proposals, start=1):
        commander = rig.state()["commander"]
        assert commander == (2 + number - 1) % 6
        assert rig.state()["rejections"] == number - 1
        name_squad(rig, squad)
        said = vote(rig, yes)
        if number < 5:
            assert said[1:] == [
                rig.say(SAY + "rejections", rejections=number),
                rig.say(SAY + "commander", commander=(commander + 1) % 6, mission=1, size=2),
            ]

    assert said[1:] == [rig.say(SAY + "cylons_win_rejections"), turn_over(rig)]
    final = rig.state()
    assert final["phase"] == "over"
    assert final["outcome"] == {"winner": "cylons", "reason": "five_rejections"}
    assert final["rejections"] == 5
    assert [m["result"] for m in final["missions"]] == [None] * 5


def test_the_commandant_picks_the_missions_with_a_and_b(rig_for: Any) -> None:
    rig = rig_for(5)
    rig.start(targeting=True)
    assert rig.heard()[-1] == rig.say(
        SAY + "commander_targeting", commander=0, missions=[1, 2, 3, 4]
    )

    rig.press(0, B)  # nothing offered yet
    assert rig.heard()[-1] == rig.say("ignored.offer_first")
    rig.press(3, A)  # not the Commandant
    assert rig.heard()[-1] == rig.say("ignored.commander_chooses_mission", seat=3)
    choose(rig, offers=[1, 2], size=3)
    round_of(rig, [0, 1, 2], yes={0, 1, 2}, fails=set(), mission=2)

    assert rig.state()["available_missions"] == [1, 3, 4]  # 5 opens after two successes
    choose(rig, offers=[1, 3, 4, 1], size=2)
    round_of(rig, [1, 2], yes={1, 2, 3}, fails=set(), mission=1)

    assert rig.state()["available_missions"] == [3, 4, 5]
    choose(rig, offers=[3, 4, 5], size=3)
    said = round_of(rig, [2, 3, 4], yes={2, 3, 4}, fails=set(), mission=5)

    assert said[1:] == [rig.say(SAY + "colons_win"), turn_over(rig)]
    final = rig.state()
    assert final["order"] == [2, 1, 5]
    assert final["outcome"] == {"winner": "colons", "reason": "three_successes"}


def choose(rig: Rig, offers: list[int], size: int) -> None:
    """The Commandant hears the missions offered with A, one by one, and takes the last with B."""
    commander = rig.state()["commander"]
    for mission in offers:
        rig.press(commander, A)
        assert rig.heard()[-1] == rig.say(
            SAY + "mission_offered",
            mission=mission,
            size=rig.state()["missions"][mission - 1]["size"],
        )
    rig.press(commander, B)
    assert rig.heard()[-1] == rig.say(
        SAY + "mission_chosen", commander=commander, mission=offers[-1], size=size
    )
    assert rig.state()["phase"] == "propose"
