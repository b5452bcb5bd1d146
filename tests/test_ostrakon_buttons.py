"""Ostrakon with two buttons per seat: the pure press-to-action rules (``controls.py``), then whole
games played on gpiozero MockFactory pins through the real button box, the table, the journal
and the narrator, with a special day and a disciple claimed by a long press of A.

The box's clock (debounce, long press) is moved by hand, and so is the clock of Ostrakon's
contest window: a long press comes exactly when the test has held A for the hold time.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from button_rig import BOUNCE, LEDS, PAIRS, Clock, bouncing_press, chatter_down
from gpiozero.pins.mock import MockFactory

from companion.game import Event, IllegalAction
from companion.games.ostrakon.controls import (
    TOGETHER,
    Buttons,
    FirstClaim,
    Naming,
    claim,
    interpret,
)
from companion.games.ostrakon.engine import Ostrakon
from companion.games.ostrakon.path import DayRule
from companion.games.ostrakon.path import Path as OPath
from companion.games.ostrakon.state import (
    Ask,
    ClaimDisciple,
    ContestDisciple,
    Flip,
    Name,
    OstrakonState,
    Phase,
    TessonLaid,
    Vote,
    VotesLaid,
)
from companion.journal import Journal
from companion.moderator import Table
from companion.narration import Catalog
from companion.seat_input import Button, Press
from hardware.button_box import ButtonBox
from voice.narrator import Narrator

A, B = Button.A, Button.B
GAME = Ostrakon()
SAY = "ostrakon.say."
NAMES = ("Calippos", "Malia", "Nausicaa", "Doreminos", "Thalia", "Lysias", "Phryne")
HOLD = 1.0  # a long press, in seconds of the clock moved by hand
# Every square from 3 on carries a symbol: every day after the first is a special day.
ALL_SPECIAL = {str(q): ("corruption", "oracle", "tromperie")[q % 3] for q in range(3, 17)}


# -- the pure rules of the buttons ---------------------------------------------------------------


def new(players: int = 7, **options: object) -> OstrakonState:
    return GAME.new({"players": players, "pile": list(range(players)), **options}, 1)


def at(state: OstrakonState, **changes: Any) -> OstrakonState:
    return dataclasses.replace(state, **changes)


def voting(players: int = 7, rule: DayRule = DayRule.NORMAL, **options: object) -> OstrakonState:
    state = at(new(players, **options), day_rule=rule)
    return GAME.apply(state, Ask(0))[0]


def ignored_why(result: Any) -> tuple[str, dict[str, Any]]:
    (event,) = result.feedback
    assert event.kind == "press_ignored" and result.action is None
    return event.data["why"], dict(event.data)


def test_the_asker_opens_the_vote_with_a() -> None:
    state = new()
    assert interpret(state, Naming(), Press(0, A)).action == Ask(0)


def test_before_the_question_other_presses_are_ignored_with_a_reason() -> None:
    state = new()
    assert ignored_why(interpret(state, Naming(), Press(3, A))) == (
        "question_first",
        {"seat": 3, "why": "question_first", "asker": 0},
    )
    assert ignored_why(interpret(state, Naming(), Press(0, B)))[0] == "ask_with_a"


def test_votes_a_is_white_b_is_black_the_asker_included() -> None:
    state = voting()
    assert interpret(state, Naming(), Press(3, A)).action == Vote(3, True)
    assert interpret(state, Naming(), Press(3, B)).action == Vote(3, False)
    assert interpret(state, Naming(), Press(0, B)).action == Vote(0, False)


def test_a_vote_is_changed_by_pressing_the_other_button_until_the_last_vote() -> None:
    state = voting()
    state, _ = GAME.apply(state, interpret(state, Naming(), Press(3, A)).action)  # type: ignore[arg-type]
    state, _ = GAME.apply(state, interpret(state, Naming(), Press(3, B)).action)  # type: ignore[arg-type]
    assert state.votes[3] is False


def test_a_vote_gives_no_feedback_whatever_its_colour() -> None:
    state = voting()
    for seat in range(7):
        white, black = (interpret(state, Naming(), Press(seat, b)) for b in (A, B))
        assert white.feedback == black.feedback == ()


def test_by_camera_either_button_says_the_tesson_is_down_once() -> None:
    state = voting(votes="camera")
    assert interpret(state, Naming(), Press(2, A)).action == TessonLaid(2)
    assert interpret(state, Naming(), Press(2, B)).action == TessonLaid(2)
    state, _ = GAME.apply(state, TessonLaid(2))
    assert ignored_why(interpret(state, Naming(), Press(2, B)))[0] == "tesson_already_down"


def test_a_long_press_of_a_claims_the_disciple() -> None:
    state = voting()
    assert interpret(state, Naming(), Press(4, A, long=True)).action == ClaimDisciple(4)
    assert interpret(voting(votes="camera"), Naming(), Press(4, A, long=True)).action == (
        ClaimDisciple(4)
    )


@pytest.mark.parametrize("phase", ["question", "name", "flip", "vote_by_the_asker"])
def test_a_long_press_elsewhere_is_the_tail_of_a_short_press_and_says_nothing(phase: str) -> None:
    state = new()
    seat = 3
    if phase == "name":
        state = at(voting(rule=DayRule.ORACLE), phase=Phase.NAME)
    elif phase == "flip":
        state = at(voting(rule=DayRule.ORACLE), phase=Phase.FLIP)
        seat = 0
    elif phase == "vote_by_the_asker":
        state, seat = voting(), 0
    result = interpret(state, Naming((1,)), Press(seat, A, long=True))
    assert result.action is None and result.feedback == ()
    assert result.pending == Naming((1,))


def contest_scene() -> OstrakonState:
    """0 asks on square 6; 2 on top on square 3, 4 alone on square 2, 5 on square 9 (ahead)."""
    path = OPath.empty().placed(6, (0, 1)).placed(3, (2, 3)).placed(2, (4,)).placed(9, (5, 6))
    return GAME.apply(at(new(), path=path, sun=6, moon=1), Ask(0))[0]


def test_two_long_presses_together_contest_the_first_claim() -> None:
    """ "en cas de contestation c'est le joueur qui se trouve le plus loin de l'arrivée qui
    gagne": a long press within TOGETHER seconds of the turn's first accepted claim contests it."""
    state = contest_scene()
    action, first = claim(state, None, 2, now=100.0)
    assert (action, first) == (ClaimDisciple(2), FirstClaim(state.turn, 2, 100.0))
    state, _ = GAME.apply(state, action)
    action, still = claim(state, first, 4, now=100.0 + TOGETHER)
    assert (action, still) == (ContestDisciple((2, 4)), first)
    state, _ = GAME.apply(state, action)
    assert state.disciple == 4  # farther from the Temple


def test_a_long_press_long_after_the_first_claim_is_a_claim_alone() -> None:
    state = contest_scene()
    action, first = claim(state, None, 2, now=100.0)
    state, _ = GAME.apply(state, action)
    assert claim(state, first, 4, now=100.0 + TOGETHER + 0.01)[0] == ClaimDisciple(4)
    refused_first = FirstClaim(state.turn, 3, 100.0)  # not the claim that stands
    assert claim(state, refused_first, 4, now=100.2)[0] == ClaimDisciple(4)
    last_turn = FirstClaim(state.turn - 1, 2, 100.0)
    assert claim(state, last_turn, 4, now=100.2)[0] == ClaimDisciple(4)


def test_the_buttons_clock_decides_together() -> None:
    now = [5.0]
    buttons = Buttons(clock=lambda: now[0])
    state = contest_scene()
    result = buttons(state, Naming(), Press(2, A, long=True))
    assert result.action == ClaimDisciple(2)
    state, _ = GAME.apply(state, ClaimDisciple(2))
    now[0] = 5.4
    assert buttons(state, Naming(), Press(4, A, long=True)).action == ContestDisciple((2, 4))
    now[0] = 7.0
    assert buttons(state, Naming(), Press(4, A, long=True)).action == ClaimDisciple(4)
    assert buttons(state, Naming(), Press(4, A)).action == Vote(4, True)  # short presses as ever


def test_a_long_press_of_b_means_nothing() -> None:
    result = interpret(voting(), Naming(), Press(4, B, long=True))
    assert result.action is None and result.feedback == ()


def naming_state(rule: DayRule = DayRule.CORRUPTION) -> OstrakonState:
    state = voting(rule=rule)
    for seat in range(7):
        state, _ = GAME.apply(state, Vote(seat, seat % 2 == 0))
    assert state.phase is Phase.NAME
    return state


def test_named_philosophers_step_forward_with_a_and_the_asker_confirms() -> None:
    state = naming_state()
    first = interpret(state, Naming(), Press(5, A))
    assert first.pending == Naming((5,))
    assert [(e.kind, e.data) for e in first.feedback] == [
        ("named_in", {"seat": 5, "count": 1, "size": 2})
    ]
    second = interpret(state, first.pending, Press(2, A))
    assert second.pending == Naming((2, 5))
    assert [e.kind for e in second.feedback] == ["named_in", "naming_read_back"]
    assert second.feedback[1].data == {"asker": 0, "named": [2, 5]}
    done = interpret(state, second.pending, Press(0, A))
    assert done.action == Name(0, (2, 5))


def test_a_named_philosopher_steps_back_with_b_and_the_asker_clears_with_b() -> None:
    state = naming_state()
    back = interpret(state, Naming((2, 5)), Press(5, B))
    assert back.pending == Naming((2,))
    assert back.feedback[0] == Event("named_out", {"seat": 5, "count": 1, "size": 2})
    cleared = interpret(state, Naming((2,)), Press(0, B))
    assert cleared.pending == Naming()
    assert cleared.feedback[0] == Event("naming_cleared", {"asker": 0})


def test_naming_presses_out_of_turn_are_ignored_with_a_reason() -> None:
    state = naming_state()
    assert ignored_why(interpret(state, Naming((2,)), Press(0, A))) == (
        "asker_confirms",
        {"seat": 0, "why": "asker_confirms", "count": 2},
    )
    assert ignored_why(interpret(state, Naming((2,)), Press(3, B)))[0] == "not_stepped_forward"
    assert ignored_why(interpret(state, Naming((2,)), Press(2, A)))[0] == "already_forward"
    assert ignored_why(interpret(state, Naming((2, 5)), Press(3, A)))[0] == "naming_full"


@pytest.mark.parametrize("rule", [DayRule.ORACLE, DayRule.TROMPERIE])
def test_the_asker_keeps_with_a_and_turns_with_b(rule: DayRule) -> None:
    state = at(voting(rule=rule), phase=Phase.FLIP)
    assert interpret(state, Naming(), Press(0, A)).action == Flip(0, False)
    assert interpret(state, Naming(), Press(0, B)).action == Flip(0, True)
    assert ignored_why(interpret(state, Naming(), Press(4, A)))[0] == "asker_decides"


def test_the_oracle_flip_gives_no_feedback_whatever_the_decision() -> None:
    state = at(voting(rule=DayRule.ORACLE), phase=Phase.FLIP)
    keep, turn = (interpret(state, Naming(), Press(0, b)) for b in (A, B))
    assert keep.feedback == turn.feedback == ()


def test_while_the_camera_reads_the_buttons_are_not_used() -> None:
    state = voting(votes="camera")
    state, _ = GAME.apply(state, VotesLaid())
    assert state.phase is Phase.REVEAL
    assert ignored_why(interpret(state, Naming(), Press(3, A)))[0] == "camera_reads"


def test_presses_after_the_game_or_from_no_seat_are_ignored() -> None:
    assert ignored_why(interpret(at(new(), phase=Phase.OVER), Naming(), Press(1, A)))[0] == (
        "game_over"
    )
    assert ignored_why(interpret(new(), Naming(), Press(9, A)))[0] == "no_such_seat"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_reason_to_ignore_a_press_can_be_said(lang: str) -> None:
    from companion.narration.ostrakon import lines

    reasons = [
        "question_first",
        "ask_with_a",
        "tesson_already_down",
        "asker_decides",
        "camera_reads",
        "asker_confirms",
        "not_stepped_forward",
        "already_forward",
        "naming_full",
        "no_such_seat",
        "game_over",
    ]
    catalog = Catalog(lang, NAMES)
    for why in reasons:
        event = Event("press_ignored", {"seat": 2, "why": why, "asker": 0, "count": 2})
        (line,) = lines(catalog, event)
        assert "{" not in line and "}" not in line
        assert "Nausicaa" in line or why in ("game_over",)


# -- whole games on gpiozero's mock pins ----------------------------------------------------------


class RecordingSpeech:
    name = "recording"

    def __init__(self) -> None:
        self.lines: list[str] = []

    def speak(self, text: str, lang: str) -> None:
        self.lines.append(text)


class Rig:
    def __init__(self, tmp_path: Path, players: int = 7, lang: str = "en") -> None:
        self.players = players
        self.clock = Clock()
        self.speech = RecordingSpeech()
        self.narrator = Narrator(lambda: self.speech, sleep=lambda seconds: None)
        self.journal = Journal(tmp_path / "j.sqlite3")
        self.table = Table(
            self.journal,
            self.narrator,
            default_language=lang,
            seats=len(PAIRS),
            clock=self.clock,  # the box's debounce and long press, and the contest window
        )
        self.factory = MockFactory()
        self.presses: list[Press] = []
        self.box = ButtonBox(
            PAIRS,
            LEDS,
            self._pressed,
            bounce=BOUNCE,
            pin_factory=self.factory,
            clock=self.clock,
            hold=HOLD,
        )
        self.table.lights = self.box
        self.catalog = Catalog(lang, NAMES[:players])
        self._lock = threading.Lock()

    def _pressed(self, press: Press) -> None:
        with self._lock:
            self.presses.append(press)
        self.table.press(press)

    def start(self, **options: Any) -> None:
        self.table.new_game(
            "ostrakon", {"players": self.players, **options}, NAMES[: self.players], seed=11
        )

    def pin(self, seat: int, button: Button) -> Any:
        return self.factory.pin(PAIRS[seat][0 if button is A else 1])

    def press(self, seat: int, button: Button, chatter: int = 2) -> None:
        bouncing_press(self.pin(seat, button), self.clock, chatter)

    def hold_together(self, seats: list[int], then: Callable[[], bool]) -> None:
        """Hold A down on several seats at once for the hold time: a long press each, in the
        order given; ``then`` is true once the table has answered (and said so)."""
        pins = [self.pin(seat, A) for seat in seats]
        self.clock.advance(0.5)
        for pin in pins:
            pin.drive_low()
        self.clock.advance(HOLD)
        assert [p for p in self.presses if p.long][-len(seats) :] == [
            Press(seat, A, long=True) for seat in seats
        ]
        assert self.narrator.wait_idle(5)
        assert then()
        self.clock.advance(0.5)
        for pin in pins:
            pin.drive_high()

    def hold(self, seat: int, then: Callable[[], bool]) -> None:
        """Hold A down for the hold time: a long press (and the table has answered)."""
        self.hold_together([seat], then)

    def state(self) -> dict[str, Any]:
        state = self.table.snapshot()["state"]
        assert isinstance(state, dict)
        return state

    def heard(self) -> list[str]:
        assert self.narrator.wait_idle(5)
        return list(self.speech.lines)

    def say(self, key: str, **params: Any) -> str:
        return self.catalog.text(key, **params)

    def leds(self) -> list[bool]:
        return [bool(self.factory.pin(LEDS[seat]).state) for seat in range(self.players)]

    def close(self) -> None:
        for pins in PAIRS:
            for pin in pins:
                self.factory.pin(pin).drive_high()
        self.narrator.close()
        self.box.close()
        self.journal.close()


@pytest.fixture
def rig_for(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    rigs: list[Rig] = []

    def make(players: int = 7, lang: str = "en") -> Rig:
        rig = Rig(tmp_path / str(len(rigs)), players, lang)
        rigs.append(rig)
        return rig

    yield make
    for rig in rigs:
        rig.close()


def names(rig: Rig, seats: list[int]) -> str:
    return rig.catalog.join([NAMES[s] for s in seats])


def play_turn(
    rig: Rig, rng: random.Random, seen: dict[str, int], claim: bool = False
) -> int | None:
    """One question, pressed: the asker asks, someone may hold A to become the disciple (before
    voting), everyone votes (some change their mind), the day's procedure is followed with the
    buttons. Checks what is said on the way; returns the disciple, if one was claimed."""
    state = rig.state()
    asker, rule, turn = state["asker"], state["day_rule"], state["turn"]
    rig.press(asker, A)
    assert rig.state()["phase"] == "vote"
    willing = [s for s in range(rig.players) if rig.table.phones.private(s)["may_claim_disciple"]]
    # the way to be the disciple is said when someone may be one, and only then
    hint = " " + rig.say(SAY + "disciple_before_voting") if willing else ""
    assert rig.heard()[-1] == rig.say(SAY + "vote_now", asker=NAMES[asker]) + hint
    seen["disciple hint"] = seen.get("disciple hint", 0) + bool(willing)
    seen["no disciple hint"] = seen.get("no disciple hint", 0) + (not willing)
    disciple = None
    if claim and willing:
        disciple = willing[0]
        rig.hold(disciple, then=lambda: rig.state()["disciple"] == disciple)
        assert rig.heard()[-1] == rig.say(
            SAY + "disciple", seat=NAMES[disciple], asker=NAMES[asker]
        )
        assert rig.state()["olive_branches"][disciple] == "used"
    before = rig.heard()
    voted = set(rig.state()["voted"])
    order = list(range(rig.players))
    rng.shuffle(order)
    for seat in order:
        white = rng.random() < 0.5
        last = len(voted | {seat}) == rig.players
        if not last and rng.random() < 0.3:  # a change of mind, unheard (the last tesson shows all)
            rig.press(seat, B if white else A)
        rig.press(seat, A if white else B)
        voted.add(seat)
        if len(voted) < rig.players:
            assert rig.heard() == before  # not a word while tessons are laid
            assert rig.leds() == [s in voted for s in range(rig.players)]
    state = rig.state()
    if state["phase"] == "name":
        seen[rule] += 1
        others = [s for s in range(rig.players) if s != asker]
        named = sorted(rng.sample(others, state["named_count"]))
        for seat in named:
            rig.press(seat, A)
        assert rig.heard()[-1] == rig.say(
            SAY + "naming_read_back", asker=NAMES[asker], named=names(rig, named)
        )
        rig.press(asker, A)
        assert rig.say(SAY + "named", asker=NAMES[asker], named=names(rig, named)) in rig.heard()
        state = rig.state()
    if state["phase"] == "flip":
        seen[rule] += 1
        rig.press(asker, B if rng.random() < 0.5 else A)
    after = rig.state()
    assert after["turn"] == turn + 1 or after["phase"] == "over"
    return disciple


def test_a_whole_game_of_seven_with_buttons_special_days_and_a_long_press_disciple(
    rig_for: Callable[..., Rig],
) -> None:
    rig = rig_for(7)
    rig.start(symbols=ALL_SPECIAL)
    assert rig.heard()[0] == rig.say("general.game_started", game="Ostrakon", players=7)
    rng = random.Random(3)
    seen = {"corruption": 0, "oracle": 0, "tromperie": 0}

    # Turn 1: everyone is in the asker's pile; the second of the pile holds A to claim: refused,
    # with the reason said (only the top of a pile may be a disciple).
    state = rig.state()
    asker, second = state["asker"], state["path"][1]["pile"][1]
    rig.press(asker, A)
    heard = len(rig.heard())
    reason = rig.table.explain(IllegalAction("disciple_not_on_top", seat=second, square=2))
    rig.hold(second, then=lambda: reason in rig.speech.lines)
    assert rig.heard()[heard:] == [reason]
    assert rig.state()["disciple"] is None
    assert rig.state()["voted"] == [second]  # the press on the way down laid a white tesson
    for seat in range(7):
        rig.press(seat, A if seat % 2 else B)

    disciples = []
    while rig.state()["phase"] != "over":
        assert rig.state()["turn"] < 80
        disciple = play_turn(rig, rng, seen, claim=not disciples)
        if disciple is not None:
            disciples.append(disciple)

    assert disciples  # claimed by a long press, accepted
    assert all(seen.values()), seen  # each kind of day, and turns with and without a disciple
    final = rig.state()
    heard = rig.heard()
    assert final["outcome"] is not None
    winner = NAMES[int(final["outcome"]["winner"])]
    assert winner in heard[-1] and "!" in heard[-1]
    assert sum(line.startswith("Day ") and "is over" in line for line in heard) == 5
    entry = rig.journal.latest_game()
    assert entry is not None and entry.finished
    assert not any("{" in line for line in heard)
    assert [p for p in rig.presses if p.long] == [
        Press(second, A, True),
        Press(disciples[0], A, True),
    ]


@pytest.mark.parametrize("first", [2, 4])
def test_two_philosophers_hold_a_together_the_one_farthest_from_the_temple_is_the_disciple(
    rig_for: Callable[..., Rig], first: int
) -> None:
    """ "en cas de contestation c'est le joueur qui se trouve le plus loin de l'arrivée qui
    gagne": whichever long press reaches the companion first, the other comes within TOGETHER
    seconds and contests it."""
    rig = rig_for(7)
    rig.start(pile=list(range(7)))
    running = rig.table.running
    assert running is not None
    path = OPath.empty().placed(6, (0, 1)).placed(3, (2, 3)).placed(2, (4,)).placed(9, (5, 6))
    running.state = at(running.state, path=path, sun=6, moon=1)
    rig.press(0, A)
    rig.hold_together([first, 6 - first], then=lambda: len(rig.state()["disciple_claimants"]) == 2)
    state = rig.state()
    assert (state["disciple"], state["disciple_claimants"]) == (4, [2, 4])
    assert state["olive_branches"][2:5] == ["unused", "unused", "used"]
    contested = rig.say(
        SAY + "disciple_contested", seats=names(rig, [2, 4]), seat=NAMES[4], asker=NAMES[0]
    )
    assert contested in rig.heard()


def test_a_french_table_hears_the_turn_in_french(rig_for: Callable[..., Rig]) -> None:
    rig = rig_for(7, "fr")
    rig.start()
    heard = rig.heard()
    assert heard[0] == rig.say("general.game_started", game="Ostrakon", players=7)
    assert heard[-1].startswith("Jour 1 sur 5. Le Soleil brille sur la case 2.")
    asker = rig.state()["asker"]
    rig.press(asker, A)
    assert rig.heard()[-1].startswith(f"La question de {NAMES[asker]} est posée.")


def test_the_leds_say_who_has_laid_a_tesson_by_camera(rig_for: Callable[..., Rig]) -> None:
    rig = rig_for(7)
    rig.start(votes="camera")
    asker = rig.state()["asker"]
    rig.press(asker, A)
    before = rig.heard()
    for seat in (3, 1):
        rig.press(seat, B)
    rig.press(3, A)  # twice: said to be already down
    assert rig.leds() == [s in (1, 3) for s in range(7)]
    assert rig.heard()[len(before) :] == [rig.say("ignored.tesson_already_down", seat=3)]
    for seat in (0, 2, 4, 5, 6):
        rig.press(seat, A)
    assert rig.state()["phase"] == "reveal"
    assert rig.heard()[-1] == rig.say(SAY + "show_all")


# -- the long press, at the button box ------------------------------------------------------------


Made = tuple[ButtonBox, MockFactory, list[Press], Clock]


@pytest.fixture
def box_for() -> Iterator[Callable[..., Made]]:
    made: list[tuple[ButtonBox, MockFactory]] = []

    def make(hold: float | None = HOLD) -> Made:
        factory, pressed, clock = MockFactory(), [], Clock()
        box = ButtonBox(
            PAIRS[:2],
            (),
            pressed.append,
            bounce=BOUNCE,
            pin_factory=factory,
            clock=clock,
            hold=hold,
        )
        made.append((box, factory))
        return box, factory, pressed, clock

    yield make
    for box, factory in made:
        for pins in PAIRS[:2]:
            for pin in pins:
                factory.pin(pin).drive_high()
        box.close()


def test_holding_a_reports_the_press_at_once_then_the_long_press(box_for: Any) -> None:
    _, factory, pressed, clock = box_for()
    factory.pin(27).drive_low()
    assert pressed == [Press(1, A)]  # on the way down, as always

    clock.advance(HOLD)
    factory.pin(27).drive_high()

    assert pressed == [Press(1, A), Press(1, A, long=True)]


def test_a_quick_press_is_no_long_press(box_for: Any) -> None:
    _, factory, pressed, clock = box_for()
    factory.pin(4).drive_low()
    clock.advance(HOLD - 0.01)
    factory.pin(4).drive_high()
    clock.advance(HOLD * 5)  # the hold time, long past: the release stopped it

    assert pressed == [Press(0, A)]


def test_a_chattering_contact_held_down_gives_one_press_and_one_long_press(box_for: Any) -> None:
    _, factory, pressed, clock = box_for()
    pin = factory.pin(4)
    chatter_down(pin, clock)

    clock.advance(HOLD)
    assert pressed == [Press(0, A), Press(0, A, long=True)]
    clock.advance(HOLD * 5)  # held on: no second long press
    pin.drive_high()

    assert pressed == [Press(0, A), Press(0, A, long=True)]


def test_holding_b_or_a_box_without_hold_gives_no_long_press(box_for: Any) -> None:
    _, factory, pressed, clock = box_for()
    _, other_factory, other_pressed, other_clock = box_for(hold=None)
    factory.pin(17).drive_low()
    other_factory.pin(4).drive_low()
    clock.advance(HOLD * 5)
    other_clock.advance(HOLD * 5)

    assert pressed == [Press(0, B)]
    assert other_pressed == [Press(0, A)]


def test_a_game_without_long_presses_ignores_them(tmp_path: Path) -> None:
    """Résistance knows nothing of long presses: a held A must not count as a second A."""
    speech = RecordingSpeech()
    narrator = Narrator(lambda: speech, sleep=lambda seconds: None)
    journal = Journal(tmp_path / "j.sqlite3")
    table = Table(journal, narrator, seats=7)
    try:
        table.new_game("resistance", {"players": 5, "isolated_cylons": True}, NAMES[:5])
        state = table.snapshot()
        result = table.press(Press(0, A, long=True))
        assert result.accepted is None and result.messages == ()
        assert table.snapshot()["state"] == state["state"]
    finally:
        narrator.close()
        journal.close()
