"""Ostrakon with real tessons read by the overhead camera (option ``votes: "camera"``).

The engine first: the tessons are laid unseen (``TessonLaid`` / ``VotesLaid``) and entered only
as the rules turn them face up (``Revealed``, one step at a time), with the same counts and moves
as votes by buttons. Then the glue (``desks.tessons.TessonDesk``) on frames from the scene
generator (``vision.synthetic.tesson_scene``): a face-down tesson is its back (a terracotta
disc painted over the generated one), a turned tesson is recoloured; and a whole game of seven
driven by those frames.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import math
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from heard import HeardNarrator

from appliance.wiring import tesson_reader
from companion.config import CameraConfig
from companion.game import Action, Event, IllegalAction, MalformedAction, action_from_json
from companion.games.ostrakon.engine import Ostrakon
from companion.games.ostrakon.path import DayRule
from companion.games.ostrakon.path import Path as OPath
from companion.games.ostrakon.state import (
    Ask,
    ClaimDisciple,
    Flip,
    Name,
    OstrakonState,
    Phase,
    Revealed,
    RevealStep,
    Tesson,
    TessonLaid,
    Vote,
    VotesLaid,
)
from companion.journal import Journal
from companion.moderator import NoGame, Table
from companion.narration import Catalog
from companion.record import public_record
from companion.seat_input import Button, Press
from desks.tessons import GeneratedTessonSource, TessonDesk, even_seat_map, tessons_of
from tests import engine_steps as steps
from vision.readings import TessonReading, seat_candidates
from vision.sources import CameraUnavailable, FrameSource, ImageFileSource
from vision.synthetic import (
    BLACK_TESSON,
    TESSON_BACK,
    WHITE_TESSON,
    Scene,
    tesson_scene,
    wild_tesson_knobs,
)
from vision.tesson_net import read_tessons_net
from vision.tessons import read_tessons

GAME = Ostrakon()
play = functools.partial(steps.play, GAME)
refused = functools.partial(steps.refused, GAME)
kinds = steps.kinds
only = steps.only
SEED = 7
W, B = True, False
NAMES = ("Calippos", "Malia", "Nausicaa", "Doreminos", "Thalia", "Lysias", "Phryne")
SAY = "ostrakon.say."
ALL_SPECIAL = {str(q): ("corruption", "oracle", "tromperie")[q % 3] for q in range(3, 17)}
# The leading pile moves on day after day: Corruption near the start, then the Oracle, then
# Tromperie, so that a game of five days meets each of them.
IN_TURN = {
    str(q): "corruption" if q <= 5 else "oracle" if q <= 8 else "tromperie" for q in range(3, 17)
}


# -- helpers --------------------------------------------------------------------------------------


def new(players: int = 8, votes: str = "camera", **options: object) -> OstrakonState:
    given = {"players": players, "pile": list(range(players)), "votes": votes, **options}
    return GAME.new(given, SEED)


def situate(
    state: OstrakonState, rule: DayRule, piles: dict[int, list[int]] | None = None, sun: int = 2
) -> OstrakonState:
    """The same game with the philosophers laid out as given (top first), the Sun on ``sun``."""
    path = OPath.empty()
    for square, pile in (piles or {2: list(range(state.players))}).items():
        path = path.placed(square, tuple(pile))
    return dataclasses.replace(state, path=path, sun=sun, day_rule=rule)


def shown(text: str, seats: Iterable[int] | None = None) -> Revealed:
    """``Revealed`` for ``seats`` (default: all, in order), W white, B black, letter by letter."""
    chosen = list(range(len(text))) if seats is None else list(seats)
    return Revealed(tuple(Tesson(s, text[i] == "W") for i, s in enumerate(chosen)))


def result(events: Iterable[Event]) -> Any:
    return only(events, "turn_result").data


# -- the option -----------------------------------------------------------------------------------


def test_votes_are_by_buttons_unless_the_table_chooses_the_camera() -> None:
    assert GAME.options_json(GAME.new({"players": 6}, 1))["votes"] == "buttons"
    state = GAME.new({"players": 6, "votes": "camera"}, 1)
    assert GAME.options_json(state)["votes"] == "camera"
    assert GAME.new(json.loads(json.dumps(GAME.options_json(state))), 1) == state
    assert GAME.public_view(state)["votes"] == "camera"


def test_an_unknown_vote_mode_is_refused() -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": 6, "votes": "phones"}, 1)
    assert caught.value.code == "unknown_option_value"
    assert caught.value.params["choices"] == ["buttons", "camera"]


def test_each_mode_refuses_the_others_actions() -> None:
    camera, _ = play(new(), Ask(0))
    refused(camera, Vote(3, W), "votes_by_camera")
    buttons, _ = play(new(votes="buttons"), Ask(0))
    refused(buttons, TessonLaid(3), "votes_by_buttons")
    refused(buttons, VotesLaid(), "votes_by_buttons")
    refused(buttons, shown("W", [3]), "votes_by_buttons")


# -- laying the tessons ---------------------------------------------------------------------------


def test_tessons_are_laid_after_the_question_and_the_table_learns_who_laid() -> None:
    state = new()
    refused(state, TessonLaid(3), "question_not_asked")
    refused(state, VotesLaid(), "question_not_asked")
    state, events = play(state, Ask(0), TessonLaid(3))
    assert [e.to_json() for e in events[1:]] == [{"kind": "vote_in", "seat": 3, "voted": 1}]
    assert GAME.public_view(state)["voted"] == [3]
    refused(state, TessonLaid(3), "tesson_already_laid")
    assert GAME.private_view(state, 3)["my_vote"] is None  # the companion does not know it


def test_the_last_tesson_laid_starts_the_reveal() -> None:
    state, _ = play(new(), Ask(0), *[TessonLaid(s) for s in range(7)])
    assert state.phase is Phase.VOTE
    state, events = play(state, TessonLaid(7))
    assert kinds(events) == ["vote_in", "all_voted", "reveal_awaited"]
    assert only(events, "reveal_awaited").data == {
        "asker": 0,
        "rule": "normal",
        "step": "all",
        "seats": list(range(8)),
    }
    assert GAME.public_view(state)["awaiting_reveal"] == list(range(8))


def test_the_host_may_say_all_the_tessons_are_down_at_once() -> None:
    state, events = play(new(), Ask(0), TessonLaid(2), VotesLaid())
    assert kinds(events)[-2:] == ["all_voted", "reveal_awaited"]
    assert state.phase is Phase.REVEAL and state.reveal is RevealStep.ALL


def test_a_disciple_may_claim_until_every_other_tesson_is_down() -> None:
    piles = {6: [0, 1], 3: [2, 3], 9: [4, 5, 6, 7]}
    state, _ = play(situate(new(), DayRule.NORMAL, piles, sun=6), Ask(0))
    state, _ = play(state, *[TessonLaid(s) for s in (1, 3, 4, 5, 6, 7)])
    assert GAME.disciple_refusal(state, 2) is None  # 2 has not laid theirs yet
    claimed, events = play(state, ClaimDisciple(2))
    assert only(events, "disciple_claimed").data["seat"] == 2
    laid, _ = play(state, TessonLaid(2))
    refused(laid, ClaimDisciple(2), "disciple_too_late")
    after, _ = play(claimed, VotesLaid())
    refused(after, ClaimDisciple(2), "disciple_too_late")


# -- the reveal, step by step ---------------------------------------------------------------------


def test_a_normal_day_every_tesson_is_read_at_once_and_counted_as_with_buttons() -> None:
    state, _ = play(new(), Ask(0), VotesLaid())
    state, events = play(state, shown("BBBBWWWW"))
    assert kinds(events)[:2] == ["votes_revealed", "turn_result"]
    buttons, by_buttons = play(new(votes="buttons"), Ask(0), *[Vote(s, s >= 4) for s in range(8)])
    assert result(events) == result(by_buttons)
    assert state.path == buttons.path and state.under_sun == buttons.under_sun


def test_a_reveal_must_give_exactly_the_tessons_of_its_step() -> None:
    state, _ = play(new(), Ask(0), VotesLaid())
    refused(state, shown("WWWWWWW"), "tesson_missing")
    refused(state, shown("WWWWWWWWW", [*range(8), 3]), "tesson_shown_twice")
    refused(state, shown("WWWWWWWWW", range(9)), "no_such_seat")
    corruption, _ = play(situate(new(), DayRule.CORRUPTION), Ask(0), VotesLaid())
    refused(corruption, shown("W", [3]), "tesson_not_expected")
    refused(corruption, shown("WW", [0, 3]), "tesson_not_expected")
    asked, _ = play(new(), Ask(0))
    refused(asked, shown("W", [0]), "no_reveal_now")


def test_corruption_step_by_step() -> None:
    """As with buttons (8 philosophers, k = 2): the asker shows white, names 1 and 2, who show
    black and become white; then the rest: 4 of the 7 others agree, the asker advances 3."""
    state, events = play(situate(new(), DayRule.CORRUPTION), Ask(0), VotesLaid())
    assert only(events, "reveal_awaited").data["seats"] == [0]
    assert only(events, "reveal_awaited").data["step"] == "asker"
    refused(state, Name(0, (1, 2)), "not_naming_now")

    state, events = play(state, shown("W", [0]))
    assert kinds(events) == ["asker_shows", "name_awaited"]
    assert only(events, "asker_shows").data == {"asker": 0, "vote": "white"}
    assert GAME.public_view(state)["tessons"] == ["white", *[None] * 7]

    state, events = play(state, Name(0, (2, 1)))
    assert kinds(events) == ["philosophers_named", "reveal_awaited"]
    assert only(events, "philosophers_named").data["tessons"] == []
    assert only(events, "reveal_awaited").data["seats"] == [1, 2]
    assert GAME.public_view(state)["corrupted"] == []  # not before their tessons are shown

    state, events = play(state, shown("BB", [1, 2]))
    named = only(events, "named_revealed").data
    assert named["tessons"] == [
        {"seat": 2, "vote": "black", "now": "white"},
        {"seat": 1, "vote": "black", "now": "white"},
    ]
    assert named["corrupted"] is True
    assert only(events, "reveal_awaited").data == {
        "asker": 0,
        "rule": "corruption",
        "step": "rest",
        "seats": [3, 4, 5, 6, 7],
    }
    assert GAME.public_view(state)["tessons"] == ["white", "white", "white", *[None] * 5]
    assert GAME.public_view(state)["corrupted"] == [2, 1]

    state, events = play(state, shown("BWBWB", [3, 4, 5, 6, 7]))
    assert only(events, "votes_revealed").data["shown_now"] == [3, 4, 5, 6, 7]
    assert (result(events)["same"], result(events)["steps"]) == (4, 3)
    assert (result(events)["white"], result(events)["black"]) == (5, 3)


@pytest.mark.parametrize(("asker_final", "moved"), [("W", "forward"), ("B", "under_sun")])
def test_oracle_the_asker_keeps_or_turns_unseen_and_the_camera_reads_what_lies(
    asker_final: str, moved: str
) -> None:
    """The companion never learns whether the asker turned their tesson: it reads it with the
    rest. (8 philosophers, k = 2: the named 1 and 2 show white.)"""
    state, events = play(situate(new(), DayRule.ORACLE), Ask(0), VotesLaid())
    assert kinds(events)[-1] == "name_awaited"
    state, events = play(state, Name(0, (1, 2)), shown("WW", [1, 2]))
    assert only(events, "named_revealed").data["corrupted"] is False
    assert events[-1].kind == "reveal_awaited"
    assert events[-1].data == {
        "asker": 0,
        "rule": "oracle",
        "step": "rest",
        "seats": [0, 3, 4, 5, 6, 7],
    }
    refused(state, Flip(0, True), "no_flip_now")
    state, events = play(state, shown(asker_final + "WWBBW", [0, 3, 4, 5, 6, 7]))
    assert "flip_decided" not in kinds(events)
    assert result(events)["moved"] == moved


@pytest.mark.parametrize("flip", [False, True])
def test_tromperie_all_are_read_then_the_asker_may_turn_in_the_open(flip: bool) -> None:
    state, _ = play(situate(new(), DayRule.TROMPERIE), Ask(0), VotesLaid())
    assert state.reveal is RevealStep.ALL
    state, events = play(state, shown("WBBBBWWW"))
    assert kinds(events) == ["votes_revealed", "flip_awaited"]
    assert only(events, "flip_awaited").data == {
        "asker": 0,
        "rule": "tromperie",
        "white": 4,
        "black": 4,
    }
    state, events = play(state, Flip(0, flip))
    assert result(events)["asker_vote"] == ("black" if flip else "white")
    assert result(events)["moved"] == ("forward" if flip else "under_sun")


def test_random_games_by_camera_move_as_the_same_games_by_buttons() -> None:
    """Whatever the day, entering the tessons as they are shown gives the same count, moves and
    outcome as laying the same final tessons with buttons."""
    for seed in range(6):
        rng = random.Random(seed)
        options = {"players": 7 + seed % 4, "symbols": ALL_SPECIAL}
        cam = GAME.new({**options, "votes": "camera"}, seed)
        but = GAME.new(options, seed)
        while cam.phase is not Phase.OVER:
            asker = cam.asker
            assert asker is not None and asker == but.asker
            final = [rng.random() < 0.5 for _ in range(cam.players)]
            named = tuple(
                rng.sample([s for s in range(cam.players) if s != asker], cam.options.named)
            )
            flip = rng.random() < 0.5
            cam, _ = play(cam, Ask(asker), VotesLaid())
            but, _ = play(but, Ask(asker), *[Vote(s, final[s]) for s in range(but.players)])
            while cam.phase in (Phase.REVEAL, Phase.NAME, Phase.FLIP):
                if cam.phase is Phase.NAME:
                    cam, _ = play(cam, Name(asker, named))
                elif cam.phase is Phase.FLIP:
                    cam, _ = play(cam, Flip(asker, flip))
                else:
                    cam, _ = play(cam, Revealed(tuple(Tesson(s, final[s]) for s in cam.expected)))
            if but.phase is Phase.NAME:
                but, _ = play(but, Name(asker, named))
            if but.phase is Phase.FLIP:  # an Oracle asker's final tesson is final[asker]
                oracle = but.day_rule is DayRule.ORACLE
                but, _ = play(but, Flip(asker, False if oracle else flip))
            assert cam.last_result == but.last_result
            assert (cam.path, cam.under_sun, cam.sun, cam.moon) == (
                but.path,
                but.under_sun,
                but.sun,
                but.moon,
            )
        assert cam.outcome == but.outcome


def test_the_table_as_a_whole_lays_and_reveals() -> None:
    state, _ = play(situate(new(), DayRule.CORRUPTION), Ask(0))
    assert list(GAME.legal_actions(state, None)) == [VotesLaid()]
    state, _ = play(state, VotesLaid())
    assert list(GAME.legal_actions(state, None)) == [shown("W", [0]), shown("B", [0])]
    state, _ = play(state, shown("W", [0]), Name(0, (1, 2)))
    assert len(list(GAME.legal_actions(state, None))) == 4
    assert list(GAME.legal_actions(new(votes="buttons"), None)) == []


def test_the_camera_actions_survive_their_json_form() -> None:
    for action in (TessonLaid(3), VotesLaid(), shown("WB", [4, 1])):
        data = json.loads(json.dumps(action.to_json()))
        assert action_from_json(GAME.actions, data) == action
    assert shown("W", [2]).to_json() == {
        "kind": "revealed",
        "tessons": [{"seat": 2, "white": True}],
    }
    assert VotesLaid().to_json() == {"kind": "votes_laid"}
    for bad in (
        {"kind": "revealed", "tessons": [{"seat": 2}]},
        {"kind": "revealed", "tessons": [{"seat": "2", "white": True}]},
        {"kind": "revealed", "tessons": [{"seat": 2, "white": 1}]},
        {"kind": "revealed", "tessons": {"seat": 2, "white": True}},
    ):
        with pytest.raises(MalformedAction):
            action_from_json(GAME.actions, bad)


def test_the_public_record_of_a_camera_game_is_the_game_itself() -> None:
    actions: list[Action] = [Ask(0), TessonLaid(4), VotesLaid(), shown("WWWBBBBW")]
    options = {"players": 8, "pile": list(range(8)), "votes": "camera"}
    record = public_record(GAME, actions, options, SEED)
    assert record == actions


# -- reading the frames ---------------------------------------------------------------------------

REACH = 38  # pixels round a generated tesson's centre that cover it whole


def face_down(scene: Scene, seats: Iterable[int], image: np.ndarray | None = None) -> np.ndarray:
    """The frame with the tessons of ``seats`` lying face down (their backs show)."""
    out = (scene.image if image is None else image).copy()
    hidden = set(seats)
    for t in scene.tessons:
        if t.seat in hidden:
            cv2.circle(out, (round(t.x), round(t.y)), REACH, TESSON_BACK, -1, cv2.LINE_AA)
    return out


def turned(scene: Scene, seat: int, image: np.ndarray) -> np.ndarray:
    """The frame with ``seat``'s tesson turned over (its top face painted the other colour)."""
    out = image.copy()
    t = next(t for t in scene.tessons if t.seat == seat)
    x, y = round(t.x), round(t.y)
    h, w = out.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    near = (yy - y) ** 2 + (xx - x) ** 2 <= REACH * REACH
    top = near & (np.abs(out.astype(int) - out[y, x].astype(int)).sum(axis=2) < 60)
    top = cv2.dilate(top.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool) & near
    out[top] = BLACK_TESSON if t.side == "white" else WHITE_TESSON
    return out


class TableFrames(FrameSource):
    """What lies on the table, as the test puts it there, with the frame's own seat zones."""

    description = "the test's frames"

    def __init__(self) -> None:
        self.image: np.ndarray | None = None
        self.seat_map: Any = None
        self.reads = 0

    def read(self) -> np.ndarray:
        if self.image is None:
            raise CameraUnavailable("nothing on the table")
        self.reads += 1
        return self.image


@pytest.fixture(scope="module")
def scenes() -> list[Scene]:
    """Generated tables of seven, a tesson face up before every seat (white or black at random)."""
    return [tesson_scene(seed, seats=7) for seed in range(6)]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    journal = Journal(tmp_path / "j.sqlite3")
    yield Table(journal, HeardNarrator(), seats=8)
    journal.close()


def reveal_begins(table: Table, **state: Any) -> Any:
    """A game of seven by camera, every tesson laid face down (``state`` changed first): the
    reveal begins. The running game."""
    table.new_game("ostrakon", {"players": 7, "votes": "camera"}, NAMES, seed=3)
    running = table.running
    assert running is not None
    running.state = dataclasses.replace(running.state, **state)
    table.press(Press(running.state.asker, Button.A))
    table.submit(VotesLaid())
    return running


def heard(table: Table) -> list[str]:
    voice = table.voice
    assert isinstance(voice, HeardNarrator)
    return voice.said


def truth(scene: Scene) -> dict[int, bool]:
    return {t.seat: t.side == "white" for t in scene.tessons if t.seat is not None}


READERS = pytest.mark.parametrize(
    "reader", [read_tessons, read_tessons_net], ids=["hand-tuned", "learned"]
)


@READERS
def test_the_desk_enters_the_expected_seats_tessons_and_ignores_the_others(
    table: Table, scenes: list[Scene], reader: Any
) -> None:
    scene, frames = scenes[0], TableFrames()
    frames.seat_map = scene.seats
    desk = TessonDesk(table, frames, reader=reader)
    options = {"players": 7, "votes": "camera", "symbols": {"2": "corruption"}}
    table.new_game("ostrakon", options, NAMES, seed=2)
    running = table.running
    assert running is not None
    running.state = dataclasses.replace(running.state, day_rule=DayRule.CORRUPTION)
    asker = running.state.asker
    table.press(Press(asker, Button.A))
    table.submit(VotesLaid())

    frames.image = face_down(scene, [s for s in range(7) if s != asker])
    action = desk.read_now()

    assert action == Revealed((Tesson(asker, truth(scene)[asker]),))
    assert running.state.phase is Phase.NAME
    assert heard(table)[-2].startswith(NAMES[asker] + " shows a ")
    assert desk.jpeg is not None and desk.jpeg[:2] == b"\xff\xd8"
    assert [r.seat for r in desk.readings] == [asker]


def test_a_tesson_not_seen_is_said_and_nothing_is_entered(
    table: Table, scenes: list[Scene]
) -> None:
    scene, frames = scenes[1], TableFrames()
    frames.seat_map = scene.seats
    desk = TessonDesk(table, frames)
    running = reveal_begins(table)
    version, state = running.version, running.state
    frames.image = face_down(scene, [4])  # Thalia has not turned hers over

    with pytest.raises(IllegalAction) as caught:
        desk.read_now()

    assert caught.value.code == "tesson_not_seen" and caught.value.params == {"seat": 4}
    said = Catalog("en", NAMES).explain(caught.value)
    assert heard(table)[-1] == said
    assert said.startswith("Thalia's tesson is not seen") and "Nothing was entered" in said
    assert (running.version, running.state) == (version, state)
    assert table.snapshot()["message"] == said

    frames.image = scene.image
    desk.read_now()
    assert running.state.last_result is not None
    assert running.state.last_result.votes == tuple(truth(scene)[s] for s in range(7))


def test_a_faint_tesson_is_shown_to_confirm_never_entered(table: Table) -> None:
    # a generated validation table of seven: Calippos's black shard is too faint for the reader
    # to be sure it is there; the companion's reader points at it, flagged, instead of saying
    # it is not there, and enters nothing
    scene, frames = tesson_scene(49_938, 7, **wild_tesson_knobs(49_938)), TableFrames()
    frames.seat_map, frames.image = scene.seats, scene.image
    running = reveal_begins(table)
    version, state = running.version, running.state
    refusals = {}
    for name, reader in [("without", read_tessons_net), ("with", tesson_reader(CameraConfig()))]:
        desk = TessonDesk(table, frames, reader=reader)
        with pytest.raises(IllegalAction) as caught:
            desk.read_now()
        refusals[name] = (caught.value.code, caught.value.params)
        desk.close()

    assert refusals == {
        "without": ("tesson_not_seen", {"seat": 0}),
        "with": ("tesson_unsure", {"seat": 0}),
    }
    (faint,) = [r for r in desk.readings if r.seat == 0]
    assert faint.flagged and faint.side == "black"
    assert (running.version, running.state) == (version, state)
    assert heard(table)[-1].startswith("Calippos's tesson cannot be read for sure")


def test_a_faint_detection_in_a_seat_not_revealing_is_neither_kept_nor_said(
    tmp_path: Path,
) -> None:
    # a day of Corruption: only the asker reveals. Calippos's seat shows a faint detection; it
    # is not his time to reveal, so the companion's reader keeps nothing of it: twin tables, one
    # read without candidates, say, publish and keep the same
    scene, frames = tesson_scene(49_938, 7, **wild_tesson_knobs(49_938)), TableFrames()
    frames.seat_map = scene.seats
    seen = []
    for i, reader in enumerate([read_tessons_net, tesson_reader(CameraConfig())]):
        journal = Journal(tmp_path / f"j{i}.sqlite3")
        table = Table(journal, HeardNarrator(), seats=8)
        running = reveal_begins(table, day_rule=DayRule.CORRUPTION)
        asker = running.state.asker
        assert asker != 0 and running.state.expected == (asker,)
        frames.image = face_down(scene, [s for s in range(1, 7) if s != asker])
        desk = TessonDesk(table, frames, reader=reader)
        action = desk.read_now()
        snapshot = {k: v for k, v in table.snapshot().items() if k not in ("version", "time")}
        seen.append((action, heard(table), snapshot, desk.readings))
        assert 0 not in [r.seat for r in desk.readings]
        desk.close()
        journal.close()

    assert seen[0][0] == Revealed((Tesson(asker, truth(scene)[asker]),))
    assert seen[0] == seen[1]


def left_lying(image: np.ndarray, scene: Scene, seat: int, r: int = 30) -> np.ndarray:
    """The frame with an old tesson left lying face up in ``seat``'s zone, beside the tesson
    laid this turn (a copy of that one's look, 80 px farther round the table)."""
    t = next(t for t in scene.tessons if t.seat == seat)
    turn = math.atan2(t.y - 360, t.x - 640) + 0.3
    x, y = round(t.x + 80 * math.cos(turn)), round(t.y + 80 * math.sin(turn))
    tx, ty = round(t.x), round(t.y)
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    disc = xx**2 + yy**2 <= r * r
    out = image.copy()
    out[y - r : y + r + 1, x - r : x + r + 1][disc] = scene.image[
        ty - r : ty + r + 1, tx - r : tx + r + 1
    ][disc]
    return out


def test_what_lay_in_a_seat_before_the_reveal_is_not_taken_for_its_tesson(
    table: Table, scenes: list[Scene]
) -> None:
    # an old tesson left in Malia's zone: the camera saw it there, unchanged, when every tesson
    # was down, so the one she turned up is hers (without that frame: two tessons, refused)
    scene, frames = scenes[0], TableFrames()
    frames.seat_map = scene.seats
    hidden = tesson_scene(0, seats=7, before=True).image
    desk = TessonDesk(table, frames, reader=read_tessons_net)
    table.new_game("ostrakon", {"players": 7, "votes": "camera"}, NAMES, seed=3)
    running = table.running
    assert running is not None
    table.press(Press(running.state.asker, Button.A))
    frames.image = left_lying(hidden, scene, 1)
    table.submit(VotesLaid())  # the reveal begins: the desk takes the table as it lies
    frames.image = left_lying(scene.image, scene, 1)
    assert len([r for r in read_tessons_net(frames.image, scene.seats) if r.seat == 1]) == 2

    action = desk.read_now()

    assert isinstance(action, Revealed)
    assert {t.seat: t.white for t in action.tessons} == truth(scene)
    assert [r.seat for r in desk.readings].count(1) == 1
    desk.close()


def test_without_the_table_before_the_old_tesson_doubles_the_seat(
    table: Table, scenes: list[Scene]
) -> None:
    scene, frames = scenes[0], TableFrames()
    frames.seat_map = scene.seats
    desk = TessonDesk(table, frames, reader=read_tessons_net)
    table.new_game("ostrakon", {"players": 7, "votes": "camera"}, NAMES, seed=3)
    running = table.running
    assert running is not None
    table.press(Press(running.state.asker, Button.A))
    table.submit(VotesLaid())  # no frame yet: nothing to compare with
    frames.image = left_lying(scene.image, scene, 1)
    with pytest.raises(IllegalAction) as caught:
        desk.read_now()
    assert caught.value.code == "tessons_doubled" and caught.value.params["seat"] == 1
    desk.close()


def test_a_tesson_already_face_up_when_the_reveal_began_is_still_read(
    table: Table, scenes: list[Scene]
) -> None:
    # every tesson up too early: the frame before shows them all, and no seat is left empty
    scene, frames = scenes[2], TableFrames()
    frames.seat_map, frames.image = scene.seats, scene.image
    desk = TessonDesk(table, frames, reader=read_tessons)
    reveal_begins(table)
    reads = frames.reads
    action = desk.read_now()
    assert frames.reads == reads + 1 and reads >= 1  # the frame before was taken
    assert isinstance(action, Revealed)
    assert {t.seat: t.white for t in action.tessons} == truth(scene)
    desk.close()


def test_a_photograph_gives_no_frame_before(
    table: Table, scenes: list[Scene], tmp_path: Path
) -> None:
    # the same frame twice would be "unchanged" everywhere: a still source is only read
    scene = scenes[0]
    cv2.imwrite(str(tmp_path / "table.png"), scene.image)

    class CountedPhoto(ImageFileSource):
        reads = 0

        def read(self) -> np.ndarray:
            self.reads += 1
            return super().read()

    photo = CountedPhoto(tmp_path / "table.png")
    desk = TessonDesk(table, photo, scene.seats, reader=read_tessons)
    reveal_begins(table)
    action = desk.read_now()
    assert photo.reads == 1  # only the reveal's own read
    assert isinstance(action, Revealed)
    assert {t.seat: t.white for t in action.tessons} == truth(scene)
    desk.close()


def test_the_frame_before_the_reveal_leaves_nothing_a_player_could_learn_from(
    tmp_path: Path, scenes: list[Scene], caplog: pytest.LogCaptureFixture
) -> None:
    # the asker shows first on a day of Corruption, the others' tessons lie face down: with the
    # frame before or without it, the table's public state is the same, and the desk's log says
    # no seat, name or colour
    def first_step(with_before: bool) -> tuple[Any, list[str]]:
        journal = Journal(tmp_path / f"{with_before}.sqlite3")
        table = Table(journal, HeardNarrator(), seats=8)
        scene, frames = scenes[0], TableFrames()
        frames.seat_map = scene.seats
        desk = TessonDesk(table, frames, reader=read_tessons_net)
        options = {"players": 7, "votes": "camera", "symbols": {"2": "corruption"}}
        table.new_game("ostrakon", options, NAMES, seed=2)
        running = table.running
        assert running is not None
        running.state = dataclasses.replace(running.state, day_rule=DayRule.CORRUPTION)
        asker = running.state.asker
        table.press(Press(asker, Button.A))
        others = [s for s in range(7) if s != asker]
        if with_before:
            frames.image = left_lying(face_down(scene, range(7)), scene, 1)
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="desks.tessons"):
            table.submit(VotesLaid())
            frames.image = left_lying(face_down(scene, others), scene, 1)
            desk.read_now()
        said = [r.getMessage() for r in caplog.records]
        snapshot = {k: v for k, v in table.snapshot().items() if k != "revision"}
        desk.close()
        journal.close()
        return snapshot, said

    plain, _ = first_step(False)
    filtered, said = first_step(True)
    assert filtered == plain
    assert said and not any(
        word in line.lower() for line in said for word in ("white", "black", "seat")
    )
    assert not any(name in line for line in said for name in NAMES)


def test_a_doubled_or_unsure_tesson_is_refused() -> None:
    def reading(seat: int | None, side: str = "white", confidence: float = 0.9) -> Any:
        return TessonReading(100.0, 100.0, side, confidence, seat)  # type: ignore[arg-type]

    assert tessons_of([reading(1), reading(2, "black"), reading(None)], [1, 2]) == {1: W, 2: B}
    for readings, code in (
        ([reading(1), reading(1, "black")], "tessons_doubled"),
        ([reading(1, confidence=0.3)], "tesson_unsure"),
        ([reading(2)], "tesson_not_seen"),
    ):
        with pytest.raises(IllegalAction) as caught:
            tessons_of(readings, [1])
        assert caught.value.code == code
        assert caught.value.params["seat"] == 1


def test_the_desk_reads_only_when_a_reveal_is_awaited(table: Table) -> None:
    frames = TableFrames()
    desk = TessonDesk(table, frames)
    with pytest.raises(NoGame):
        desk.read_now()
    table.new_game("resistance", {"players": 5}, NAMES[:5])
    with pytest.raises(IllegalAction) as caught:
        desk.read_now()
    assert caught.value.code == "no_tessons_in_this_game"
    table.new_game("ostrakon", {"players": 7}, NAMES)
    with pytest.raises(IllegalAction) as caught:
        desk.read_now()
    assert caught.value.code == "votes_by_buttons"
    table.new_game("ostrakon", {"players": 7, "votes": "camera"}, NAMES)
    with pytest.raises(IllegalAction) as caught:
        desk.read_now()
    assert caught.value.code == "no_reveal_now"
    table.submit(Ask(table.running.state.asker))  # type: ignore[union-attr]
    table.submit(VotesLaid())
    with pytest.raises(CameraUnavailable, match="No camera"):
        TessonDesk(table, None).read_now()
    assert frames.reads == 0


def test_without_a_seat_map_the_frame_is_shared_evenly_round_its_centre() -> None:
    zones = even_seat_map(4, 1280, 720)
    assert zones.seat_of(1200, 400) == 0  # right of the centre
    assert zones.seat_of(1200, 300) == 0
    assert zones.seat_of(660, 700) == 1  # below (clockwise on the picture)
    assert zones.seat_of(80, 340) == 2
    assert zones.seat_of(620, 20) == 3
    assert zones.seat_of(640, 360) is None  # the middle of the table is nobody's


def test_the_learned_reader_never_reads_a_hidden_tesson_and_asks_rather_than_guesses(
    scenes: list[Scene],
) -> None:
    """Every step of a reveal, on the generated tables of seven: a tesson still face down is
    never a reading, not even a flagged one; a face-up one is read with its seat and side, or
    asked (flagged), never silently wrong; and on these plain felt tables at most one in twenty
    is asked (issue 22: at most 5 % flagged on a normal table)."""
    shown = asked = 0
    for scene in scenes:
        lying = truth(scene)
        for hidden in ([], [0, 2, 4, 6], [1, 3, 5], [s for s in range(7) if s != 3]):
            found = read_tessons_net(face_down(scene, hidden), scene.seats)
            for t in scene.tessons:
                near = [r for r in found if math.hypot(r.x - t.x, r.y - t.y) < REACH]
                if t.seat in hidden:
                    assert near == []
                    continue
                assert len(near) == 1
                shown += 1
                asked += near[0].flagged
                if not near[0].flagged:
                    assert (near[0].seat, near[0].side == "white") == (t.seat, lying[t.seat])
    assert shown == 6 * (7 + 3 + 4 + 1)
    assert asked / shown <= 0.05, f"{asked} of {shown} asked"


def test_the_companions_reader_keeps_nothing_of_a_tesson_still_face_down(
    scenes: list[Scene],
) -> None:
    """As the desk keeps them (its reader with both views and its faint candidates, then
    ``seat_candidates`` for the seats revealing now): a tesson still face down in a seat that is
    not revealing is never kept, not even flagged; and each seat revealing keeps its own."""
    reader = tesson_reader(CameraConfig())
    for i, scene in enumerate(scenes):
        for revealing in ([3], [0, 2, 4, 6], [1, 3, 5], list(range(7))):
            hidden = [s for s in range(7) if s not in revealing]
            kept = seat_candidates(reader(face_down(scene, hidden), scene.seats), revealing)
            for t in scene.tessons:
                near = [r for r in kept if math.hypot(r.x - t.x, r.y - t.y) < REACH]
                assert len(near) == (t.seat in revealing), (i, t.seat, revealing)


def test_on_a_flowered_cloth_a_tesson_face_down_is_never_a_reading() -> None:
    """The reader learnt to find shards among printed flowers of their size (v5, v6): a tesson
    still face down among them stays unread, as on felt."""
    hidden_count = 0
    for seed in range(6):
        scene = tesson_scene(seed, seats=7, table="flowered cloth", shadows=True, noise=2.0)
        hidden = [s for s in range(7) if s % 2 == seed % 2]
        found = read_tessons_net(face_down(scene, hidden), scene.seats)
        for t in scene.tessons:
            if t.seat in hidden:
                hidden_count += 1
                assert not [r for r in found if math.hypot(r.x - t.x, r.y - t.y) < REACH], seed
    assert hidden_count >= 18


def test_the_generated_camera_shows_one_table_a_turn(table: Table) -> None:
    source = GeneratedTessonSource(4)
    desk = TessonDesk(table, source)
    table.new_game("ostrakon", {"players": 5, "votes": "camera"}, NAMES[:5], seed=2)
    running = table.running
    assert running is not None
    table.submit(Ask(running.state.asker))
    table.submit(VotesLaid())
    turn = (running.entry.id, running.state.turn)
    action = desk.read_now()
    assert isinstance(action, Revealed)
    lying = {t.seat: t.side == "white" for t in source.last_truth}
    assert {t.seat: t.white for t in action.tessons} == lying
    hidden = source.before(5, turn)  # what the desk took when the reveal began
    assert not [r for r in read_tessons(hidden, source.seat_map) if r.seat is not None]
    desk.close()


# -- a whole game of seven, read from generated frames --------------------------------------------


def test_a_whole_game_of_seven_driven_by_generated_tesson_frames(
    table: Table, scenes: list[Scene]
) -> None:
    """The desk's whole flow, read by the hand-tuned reader, which reads every tesson of these
    plain tables for sure; the learned reader asks about one in twenty or so of them (each step
    of a reveal, read by it: ``test_the_learned_reader_never_reads_a_hidden_tesson_...``)."""
    frames = TableFrames()
    desk = TessonDesk(table, frames, reader=read_tessons)
    options = {"players": 7, "votes": "camera", "symbols": IN_TURN}
    table.new_game("ostrakon", options, NAMES, seed=2)
    running = table.running
    assert running is not None
    rng = random.Random(2)
    catalog = Catalog("en", NAMES)
    rules_seen: set[str] = set()
    missing_said = False
    while running.state.phase is not Phase.OVER:
        state = running.state
        assert state.turn < 80
        asker = state.asker
        assert asker is not None
        rule = state.day_rule
        scene = scenes[state.turn % len(scenes)]
        lying = truth(scene)
        frames.seat_map = scene.seats
        table.press(Press(asker, Button.A))
        for seat in rng.sample(range(7), 3):  # some say so with a button, then the host
            table.press(Press(seat, Button.B))
        table.submit(VotesLaid())
        face_up: set[int] = set()
        image = face_down(scene, range(7))
        expected_final = dict(lying)
        named: tuple[int, ...] = ()
        while running.state.turn == state.turn and running.state.phase is not Phase.OVER:
            now = running.state
            if now.phase is Phase.NAME:
                named = tuple(rng.sample([s for s in range(7) if s != asker], now.options.named))
                table.submit(Name(asker, named))
            elif now.phase is Phase.FLIP:
                flip = rng.random() < 0.5
                if flip:
                    image = turned(scene, asker, image)
                    expected_final[asker] = not lying[asker]
                frames.image = image
                assert desk.read_now() == Flip(asker, flip)
            else:
                seats = now.expected
                if not missing_said and len(seats) > 1:  # one of them has not turned theirs
                    late = seats[-1]
                    frames.image = face_down(
                        scene, [s for s in range(7) if s not in face_up | set(seats[:-1])]
                    )
                    with pytest.raises(IllegalAction):
                        desk.read_now()
                    assert heard(table)[-1] == catalog.text(
                        "errors.tesson_not_seen", seat=NAMES[late]
                    )
                    assert running.state == now
                    missing_said = True
                face_up |= set(seats)
                image = face_down(scene, [s for s in range(7) if s not in face_up])
                frames.image = image
                action = desk.read_now()
                assert action == Revealed(tuple(Tesson(s, lying[s]) for s in seats))
        rules_seen.add(rule.value)
        if rule is DayRule.CORRUPTION:
            for seat in named:
                expected_final[seat] = lying[asker]
        result_now = running.state.last_result
        assert result_now is not None and result_now.turn == state.turn
        assert result_now.votes == tuple(expected_final[s] for s in range(7))

    assert rules_seen == {"normal", "corruption", "oracle", "tromperie"}
    said = heard(table)
    assert said[-1].endswith("!")
    assert any(line == catalog.text(SAY + "show_all") for line in said)
    assert any(line.endswith("show your tesson.") for line in said)
    assert missing_said
    entry = table.journal.latest_game()
    assert entry is not None and entry.finished
    replayed = GAME.new(entry.options, entry.seed)
    for data in table.journal.actions(entry.id):
        replayed, _ = GAME.apply(replayed, action_from_json(GAME.actions, data))
    assert replayed == running.state


def test_the_companion_reads_tessons_with_the_simulated_camera(tmp_path: Path) -> None:
    """``companion serve`` in simulation: the generated overhead camera shows tessons to the
    tesson desk, which shares the dice's camera; the host page reads through
    ``POST /api/tessons/read``."""
    from serving import host_client

    from appliance.wiring import build
    from companion.config import CameraConfig, Config

    class Quiet:
        name = "quiet"

        def speak(self, text: str, lang: str) -> None:
            pass

    config = Config(
        data_dir=tmp_path,
        pin_factory="mock",
        camera=CameraConfig(source="generated:3"),
        host_pin="2468",
    )
    companion = build(config, speech=Quiet())
    try:
        desk = companion.tessons
        assert isinstance(desk.source, GeneratedTessonSource)
        assert desk.reader.func is read_tessons_net  # [camera] tessons = "learned", the default
        table = companion.table
        table.new_game("ostrakon", {"players": 6, "votes": "camera"}, NAMES[:6], seed=1)
        running = table.running
        assert running is not None
        table.submit(Ask(running.state.asker))
        client = host_client(companion.app, "2468")  # the host page is locked: log in
        early = client.post("/api/tessons/read")
        assert early.status_code == 400 and early.get_json()["error"]  # nothing laid yet
        table.submit(VotesLaid())
        answer = client.post("/api/tessons/read")
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["state"]["last_result"] is not None
        assert running.state.last_result is not None
    finally:
        companion.close()


def test_the_hand_tuned_reader_is_there_when_the_config_asks_for_it() -> None:
    learned = tesson_reader(CameraConfig())
    assert learned.func is read_tessons_net
    assert learned.keywords == {"candidates": True}
    assert tesson_reader(CameraConfig(tessons="hand-tuned")) is read_tessons
