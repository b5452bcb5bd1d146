"""Resume keeps the thread in every game (issue 23): after a restart the companion says, and the
page's narration shows, what the table awaits: whose turn, which step, how many secret tessons
are laid (never whose is what), who is God and the prophet; never a face-down tesson, a cup's
filling, a hand or Eleusis' rule. ``GameRules.awaiting`` also speaks after the host's undo, so
each game's recap must make sense at any point of a game: the random games below check that."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import test_eleusis_games
import test_night_games
import test_ostrakon_narration
import test_sages_games
from heard import HeardNarrator, all_said
from test_oraklos_games import play_game
from test_oraklos_rules import in_a_line

from companion.at_table import RULES
from companion.game import Action, AudienceKind, Event, IllegalAction
from companion.games.eleusis.cards import Card
from companion.games.eleusis.engine import Eleusis
from companion.games.eleusis.rule_library import by_id
from companion.games.eleusis.state import (
    DeclareProphet,
    EleusisState,
    Judge,
    PlayCards,
    ProphetJudge,
)
from companion.games.night.dice import PipDie
from companion.games.night.engine import Night
from companion.games.night.state import (
    PassTurn,
    PickStarter,
    ReadDice,
    Screen,
    ShowScreen,
    StartTimer,
    WriteScore,
)
from companion.games.oraklos.state import EndSearch, FillCup, TakeMarker, ThrowDice
from companion.games.ostrakon.engine import Ostrakon
from companion.games.ostrakon.path import DayRule
from companion.games.ostrakon.state import Ask, Flip, Name, OstrakonState, Phase, TessonLaid, Vote
from companion.games.sages.board import Square
from companion.games.sages.engine import Sages
from companion.games.sages.state import MoveSage, Place
from companion.games.sand import PauseHourglass
from companion.journal import Journal
from companion.moderator import Table
from companion.narration.catalog import Catalog, eleusis_card_words
from companion.seat_input import Button, Press
from tests.timing import HandClock

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve", "Fay", "Gus"]
NBSP = "\xa0"


def table_at(path: Path, voice: HeardNarrator | None = None) -> Table:
    return Table(
        Journal(path / "journal.sqlite3"),
        voice or HeardNarrator(),
        seats=8,
        clock=HandClock(),  # never moved: no sand runs out while a test looks
        background=lambda think: None,  # the companion never plays a side here
    )


def started(
    path: Path, title: str, options: dict[str, Any], players: int, lang: str = "en"
) -> Table:
    table = table_at(path)
    table.new_game(title, options, NAMES[:players], lang, seed=3)
    all_said(table)  # a night, said to its end
    return table


def restart(table: Table, path: Path) -> list[str]:
    """The power is cut, the companion starts again: what it says once it has resumed (the
    "resumes" line included), checked to be what the page's narration shows after it."""
    table.stop_play()
    table.journal.close()
    voice = HeardNarrator()
    again = table_at(path, voice)
    assert again.resume()
    said = voice.said
    shown = list(again.snapshot()["narration"])
    assert said and shown[-len(said) :] == said
    assert again.snapshot()["message"] == said[-1]
    return said


def state_of(table: Table) -> Any:
    assert table.running is not None
    return table.running.state


# -- Ostrakon --------------------------------------------------------------------------------------

OSTRAKON = "The game of Ostrakon resumes where it stopped."
EVERY_DAY = {str(square): "oracle" for square in range(3, 17)}  # day 1 is normal


def ostrakon(path: Path, lang: str = "en", **options: Any) -> Table:
    """Five philosophers, Ada on top of the pile: she asks first."""
    return started(path, "ostrakon", {"players": 5, "pile": [0, 1, 2, 3, 4], **options}, 5, lang)


def test_ostrakon_says_whose_question_it_is_before_it_is_asked(tmp_path: Path) -> None:
    said = restart(ostrakon(tmp_path), tmp_path)
    assert said[:2] == [OSTRAKON, "Today is a normal day."]
    assert said[2].startswith("Day 1 of 6. The Sun shines on square 5. Ada asks, on ")
    assert len(said) == 3


def test_ostrakon_mid_vote_says_the_question_is_asked_and_counts_the_tessons_laid(
    tmp_path: Path,
) -> None:
    table = ostrakon(tmp_path)
    table.submit(Ask(0))
    for seat, white in ((1, True), (2, False), (4, True)):
        table.submit(Vote(seat, white))
    said = restart(table, tmp_path)
    assert said[2].startswith("Day 1 of 6. The Sun shines on square 5. Ada asks, on ")
    assert said[3:] == [
        "Ada's question is asked: 3 of 5 tessons are laid. "
        "Everyone votes: A for white, B for black."
    ]


def test_ostrakon_says_what_it_awaits_in_french(tmp_path: Path) -> None:
    table = ostrakon(tmp_path, "fr")
    table.submit(Ask(0))
    table.submit(Vote(3, False))
    said = restart(table, tmp_path)
    assert said[:2] == [
        "La partie d'Ostrakon reprend là où elle s'était arrêtée.",
        "Aujourd'hui est un jour normal.",
    ]
    assert said[2].startswith("Jour 1 sur 6. Le Soleil brille sur la case 5. Ada pose la question")
    assert said[3] == (
        f"La question d'Ada est posée{NBSP}: 1 tesson sur 5 est posé. "
        f"Votez tous{NBSP}: A pour blanc, B pour noir."
    )


def test_ostrakon_by_camera_counts_the_tessons_face_down(tmp_path: Path) -> None:
    table = ostrakon(tmp_path, votes="camera")
    table.submit(Ask(0))
    table.submit(TessonLaid(2))
    table.submit(TessonLaid(4))
    assert restart(table, tmp_path)[-1] == (
        "Ada's question is asked: 2 of 5 tessons lie face down. "
        "Everyone still to lay one: lay it face down, then press a button."
    )


def test_ostrakon_twin_games_whose_tessons_differ_resume_word_for_word_the_same(
    tmp_path: Path,
) -> None:
    heard = []
    for twin, votes in enumerate(((True, True, True), (False, True, False))):
        path = tmp_path / str(twin)
        table = ostrakon(path)
        table.submit(Ask(0))
        for seat, white in zip((0, 2, 3), votes, strict=True):
            table.submit(Vote(seat, white))
        table.submit(Vote(2, not votes[1]))  # changed while face down
        heard.append(restart(table, path))
    assert heard[0] == heard[1]
    assert "3 of 5 tessons are laid" in heard[0][-1]


def ostrakon_step(state: OstrakonState, asker_white: bool) -> Action:
    """A plain turn: the question, the tessons in seat order, the first philosophers named, the
    asker's tesson kept."""
    asker = state.asker
    assert asker is not None
    if state.phase is Phase.QUESTION:
        return Ask(asker)
    if state.phase is Phase.VOTE:
        seat = next(s for s in range(state.players) if state.votes[s] is None)
        return Vote(seat, asker_white if seat == asker else seat % 3 != 0)
    if state.phase is Phase.NAME:
        others = [s for s in range(state.players) if s != asker]
        return Name(asker, tuple(others[: state.options.named]))
    return Flip(asker, False)


def ostrakon_until(
    path: Path, rule: DayRule, phase: Phase, asker_white: bool = True, lang: str = "en"
) -> Table:
    """Seven philosophers (two named on a special day), played to the first ``phase`` of a day
    of ``rule``: on day 2, Fay asks."""
    symbols = {square: rule.value for square in EVERY_DAY}
    options = {"players": 7, "pile": list(range(7)), "symbols": symbols}
    table = started(path, "ostrakon", options, 7, lang)
    while not (state_of(table).day_rule is rule and state_of(table).phase is phase):
        table.submit(ostrakon_step(state_of(table), asker_white))
    return table


def test_ostrakon_on_a_day_of_corruption_says_the_asker_s_tesson_and_the_naming_awaited(
    tmp_path: Path,
) -> None:
    said = restart(ostrakon_until(tmp_path, DayRule.CORRUPTION, Phase.NAME), tmp_path)
    assert said[1].startswith("Today is a day of Corruption.")
    assert said[2].startswith("Day 2 of 5.")
    assert said[3:] == [
        "All the tessons are down.",
        "Fay shows a white tesson.",
        "Fay, name 2 philosophers: their tessons will take your colour. "
        "Named philosophers press A to step forward.",
    ]


def test_ostrakon_keeps_the_philosophers_stepped_forward_and_says_them_again(
    tmp_path: Path,
) -> None:
    table = ostrakon_until(tmp_path, DayRule.ORACLE, Phase.NAME)
    table.press(Press(4, Button.A))  # Eve steps forward: 1 of 2
    said = restart(table, tmp_path)
    assert said[-2:] == [
        "Fay, name 2 philosophers, who will show their tessons. "
        "Named philosophers press A to step forward.",
        "Eve steps forward: 1 of 2.",
    ]


def test_ostrakon_on_an_oracle_day_tells_the_tessons_shown_never_the_asker_s_hidden_one(
    tmp_path: Path,
) -> None:
    heard = []
    for white in (True, False):  # the asker's tesson, still face down at the flip
        path = tmp_path / str(white)
        heard.append(restart(ostrakon_until(path, DayRule.ORACLE, Phase.FLIP, white), path))
    assert heard[0] == heard[1]
    assert heard[0][3:] == [
        "All the tessons are down.",
        "Fay names Ada and Bea.",
        "Shown: Ada black and Bea white.",
        "Fay, keep or turn your tesson, unseen: A to keep, B to turn.",
    ]


def test_ostrakon_on_a_day_of_tromperie_gives_the_count_shown(tmp_path: Path) -> None:
    said = restart(ostrakon_until(tmp_path, DayRule.TROMPERIE, Phase.FLIP), tmp_path)
    assert said[-1] == (
        "4 white, 3 black. Fay, you may turn your tesson, in the open: A to keep, B to turn."
    )


# -- Oraklos ---------------------------------------------------------------------------------------

ORAKLOS = "The game of Oraklos resumes where it stopped."


def oraklos(path: Path, players: int = 2, **options: Any) -> Table:
    return started(path, "oraklos", {"players": players, **options}, players)


def test_oraklos_says_who_throws(tmp_path: Path) -> None:
    said = restart(oraklos(tmp_path, mode="junior"), tmp_path)
    assert said == [ORAKLOS, "Round 1. First player: Ada.", "Ada, throw the 16 dice."]


def test_oraklos_mid_search_says_the_throw_and_the_markers_taken(tmp_path: Path) -> None:
    table = oraklos(tmp_path, mode="junior")
    table.submit(ThrowDice.of(in_a_line(state_of(table).cup)))
    table.submit(TakeMarker(1, 3, state_of(table).hands[1][0]))
    assert restart(table, tmp_path) == [
        ORAKLOS,
        "Round 1. First player: Ada.",
        "16 dice on the table, 0 holes up.",
        "Look for predictions! Take a marker when you see one.",
        "Bea takes marker 3.",
    ]


def test_oraklos_while_claims_are_checked_says_whose_prediction_is_awaited(
    tmp_path: Path,
) -> None:
    table = oraklos(tmp_path, mode="junior")
    table.submit(ThrowDice.of(in_a_line(state_of(table).cup)))
    table.submit(TakeMarker(1, 3, state_of(table).hands[1][0]))
    table.submit(EndSearch())
    assert restart(table, tmp_path)[-1] == "Bea, show your prediction for marker 3."


def test_oraklos_twin_games_whose_cups_differ_resume_word_for_word_the_same(
    tmp_path: Path,
) -> None:
    """What Ada put in the cup is hers alone until the throw: the table hears it is Bea's turn
    to fill, whatever she put in."""
    heard = []
    for twin in (0, -1):
        path = tmp_path / str(twin)
        table = oraklos(path, players=3)
        fills = [a for a in legal(table, 0) if isinstance(a, FillCup)]
        table.submit(fills[twin])
        heard.append(restart(table, path))
    assert heard[0] == heard[1]
    assert heard[0][-1] == "Bea, put 5 dice in the cup, in secret."


def legal(table: Table, seat: int) -> list[Action]:
    assert table.running is not None
    return list(table.running.game.legal_actions(table.running.state, seat))


# -- Eleusis ---------------------------------------------------------------------------------------

ELEUSIS = "The game of Eleusis resumes where it stopped."


def hand(table: Table, seat: int) -> list[Card]:
    return [Card.from_json(c) for c in table.phones.private(seat)["my_hand"]]


def rule_words(state: EleusisState) -> list[str]:
    """Every way the rule could be given away: its text, library id and descriptions."""
    info = state.rule_info
    assert info is not None
    if info.id is None:
        return [info.text]
    rule = by_id(info.id)
    return [info.text, info.id, rule.description("en"), rule.description("fr")]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_eleusis_says_who_is_god_and_whose_turn_it_is_never_the_rule(
    tmp_path: Path, lang: str
) -> None:
    table = started(tmp_path, "eleusis", {"players": 4, "level": "easy"}, 4, lang)
    first = state_of(table).turn
    table.submit(PlayCards(first, (hand(table, first)[0],)))
    state = state_of(table)
    secret = rule_words(state)
    said = restart(table, tmp_path)
    catalog = Catalog(lang, NAMES[:4])
    assert said[1:] == [
        catalog.text(
            "eleusis.say.companion_god_level", level=catalog.text("eleusis.say.levels.easy")
        ),
        catalog.text("eleusis.say.turn", seat=state.turn),
    ]
    if lang == "en":
        assert said[1] == (
            "The companion is God: it holds a secret rule, drawn at the easy level, "
            "on the sequence of accepted cards."
        )
    for line in said:
        assert not any(word in line for word in secret), line
        for seat in range(4):  # nor a card of any hand
            assert not any(
                eleusis_card_words(catalog, c.to_json()) in line for c in hand(table, seat)
            )


def human_god(path: Path, lang: str = "en") -> Table:
    """Five players, Ada is God: she has accepted the starting card."""
    table = started(path, "eleusis", {"players": 5, "god": "human", "god_seat": 0}, 5, lang)
    table.submit(Judge(0, True))
    return table


def test_eleusis_with_a_player_as_god_says_the_starting_card_awaiting_her_verdict(
    tmp_path: Path,
) -> None:
    table = started(tmp_path, "eleusis", {"players": 5, "god": "human", "god_seat": 0}, 5)
    turned = state_of(table).turned
    assert turned is not None
    card = eleusis_card_words(Catalog("en"), turned.to_json())
    assert restart(table, tmp_path) == [
        ELEUSIS,
        "Ada is God and has invented a secret rule on the sequence of accepted cards.",
        f"Starting card turned: {card}.",
        "Ada, as God: your verdict.",
    ]


def test_eleusis_says_the_play_awaiting_god_s_verdict(tmp_path: Path) -> None:
    table = human_god(tmp_path)
    seat = state_of(table).turn
    card = hand(table, seat)[0]
    table.submit(PlayCards(seat, (card,)))
    words = eleusis_card_words(Catalog("en"), card.to_json())
    assert restart(table, tmp_path)[-2:] == [
        f"{NAMES[seat]} has played: {words}.",
        "Ada, as God: your verdict.",
    ]


def test_eleusis_says_the_prophet_and_the_verdict_awaiting_god_s_review(tmp_path: Path) -> None:
    table = human_god(tmp_path, "fr")
    prophet = state_of(table).turn
    table.submit(DeclareProphet(prophet))
    player = state_of(table).turn
    card = hand(table, player)[0]
    table.submit(PlayCards(player, (card,)))
    table.submit(ProphetJudge(prophet, False))
    words = eleusis_card_words(Catalog("fr"), card.to_json())
    p, s = NAMES[prophet], NAMES[player]
    assert restart(table, tmp_path)[1:] == [
        "Ada est Dieu et a inventé une règle secrète sur la suite des cartes acceptées.",
        f"{p} est prophète{NBSP}: {p} juge chaque coup, et Dieu ne fait qu'infirmer.",
        f"{s} a joué{NBSP}: {words}.",
        f"{p}, le prophète, refuse ce coup.",
        f"Ada, qui êtes Dieu{NBSP}: infirmez le verdict du prophète, ou confirmez-le.",
    ]


# -- Les 7 Sages -----------------------------------------------------------------------------------

SAGES = "The game of Les 7 Sages resumes where it stopped."


def test_sages_says_the_score_and_whose_move_it_is(tmp_path: Path) -> None:
    table = started(tmp_path, "sages", {}, 2)
    table.submit(MoveSage(0, Square.from_json("d3"), Square.from_json("d5")))
    assert restart(table, tmp_path) == [
        SAGES,
        "Round 1, in a match to 5 points. Score: red 0, blue 0.",
        "Bea (blue) to move.",
    ]


def test_sages_in_free_placement_says_who_places_and_how_many_are_down(tmp_path: Path) -> None:
    table = started(tmp_path, "sages", {"layout": "free"}, 2)
    table.submit(Place(0, Square.from_json("h5")))
    assert restart(table, tmp_path) == [
        SAGES,
        "Free placement: Bea (blue) to place a sage; 1 of 14 is on the board.",
    ]


def test_sages_says_the_hourglass_is_paused_and_the_seconds_left(tmp_path: Path) -> None:
    table = started(tmp_path, "sages", {"hourglass": 60}, 2, "fr")
    table.submit(PauseHourglass(21.6))
    assert restart(table, tmp_path)[1:] == [
        f"Manche 1, dans une partie en 5 points. Score{NBSP}: rouges 0, bleus 0.",
        "À Ada (rouges) de jouer.",
        f"Le sablier est arrêté{NBSP}: il reste 22 secondes à Ada.",
    ]


# -- game night ------------------------------------------------------------------------------------

NIGHT = "The game of Game night resumes where it stopped."


def night(path: Path) -> Table:
    return started(path, "night", {"players": 3}, 3)


def test_night_says_the_turn_timer_is_on_the_page_and_whose_turn_it_is(tmp_path: Path) -> None:
    table = night(tmp_path)
    table.submit(StartTimer(0, 60))
    table.submit(PassTurn(0))
    assert restart(table, tmp_path) == [NIGHT, "On the page: the turn timer.", "Bea, your turn."]


def test_night_says_the_last_throw_on_the_dice_reader(tmp_path: Path) -> None:
    table = night(tmp_path)
    table.submit(ReadDice((PipDie(3), PipDie(6))))
    assert restart(table, tmp_path) == [
        NIGHT,
        "On the page: the dice reader.",
        "Last throw: 6 and 3. Total 9.",
    ]


def test_night_says_the_leader_on_the_score_pad_and_the_timer_s_turn_beside(
    tmp_path: Path,
) -> None:
    table = night(tmp_path)
    table.submit(StartTimer(2, 30))
    table.submit(WriteScore(1, 0, 12))
    assert restart(table, tmp_path) == [
        NIGHT,
        "On the page: the score pad.",
        "Bea leads with 12 points.",
        "Cyd, your turn.",
    ]


def test_night_says_who_was_drawn_to_start(tmp_path: Path) -> None:
    table = night(tmp_path)
    table.submit(PickStarter())
    table.submit(ShowScreen(Screen.STARTER))
    said = restart(table, tmp_path)
    assert said[1] == "On the page: who starts."
    assert said[2].startswith("Draw number 1: ") and said[2].endswith(" starts.")
    assert len(said) == 3


# -- at any point of a game: said in full, public, in both languages -------------------------------


def check_said(title: str, state: Any, *, pending: Any = None) -> list[str]:
    """What the game awaits in ``state``: public events, said in full in both languages (with a
    word at least while the game runs). Returns the English lines."""
    rules = RULES[title](HandClock())
    events: list[Event] = rules.awaiting(state, rules.blank_input if pending is None else pending)
    assert all(e.audience.kind is AudienceKind.EVERYONE for e in events), events
    english: list[str] = []
    for lang in ("en", "fr"):
        catalog = Catalog(lang, NAMES)
        lines = [line for event in events for line in rules.lines(catalog, event)]
        for line in lines:
            assert line.strip() and "{" not in line and "}" not in line, (events, line)
            assert "|" not in line and "None" not in line, (events, line)
        english = english or lines
    return english


def random_states(
    game: Any, options: dict[str, Any], seed: int, choose: Callable[[random.Random, Any], Action]
) -> Iterator[Any]:
    rng = random.Random(seed)
    state = game.new(options, seed)
    for _ in range(400):
        yield state
        if game.outcome(state) is not None:
            return
        try:
            state, _ = game.apply(state, choose(rng, state))
        except IllegalAction:
            continue


@pytest.mark.parametrize("votes", ["buttons", "camera"])
def test_ostrakon_s_recap_never_depends_on_a_face_down_tesson(votes: str) -> None:
    """At every point of random games with special days: the tessons still face down turned
    the other way change nothing of what is said."""
    game = Ostrakon()
    for seed in range(4):
        options = {"players": 5 + seed, "symbols": test_ostrakon_narration.ALL_SPECIAL}
        options["votes"] = votes
        states = random_states(game, options, seed, test_ostrakon_narration.choose)
        for state in states:
            said = check_said("ostrakon", state)
            assert said or state.phase is Phase.OVER
            hidden = [
                None if v is None or shown else not v
                for v, shown in zip(state.votes, state.shown, strict=True)
            ]
            flipped = tuple(v if h is None else h for v, h in zip(state.votes, hidden, strict=True))
            assert check_said("ostrakon", dataclasses.replace(state, votes=flipped)) == said


@pytest.mark.parametrize("mode", ["standard", "junior", "antipodes"])
def test_oraklos_s_recap_is_said_in_full_at_every_point(mode: str) -> None:
    for seed, table in ((1, False), (2, True)):
        _, _, states = play_game(mode, seed, table=table)
        for state in states:
            assert check_said("oraklos", state) or state.outcome is not None


@pytest.mark.parametrize("god", ["companion", "human"])
def test_eleusis_s_recap_never_tells_the_rule(god: str) -> None:
    game = Eleusis()
    for seed in range(3):
        rng = random.Random(seed)
        options = test_eleusis_games.options_for(god, rng.choice(["digital", "physical"]), rng)
        for state in random_states(game, options, seed, test_eleusis_games.choose):
            said = check_said("eleusis", state)
            assert said or state.outcome is not None
            if state.rule_info is not None:
                assert not any(w in line for w in rule_words(state) for line in said)


def test_sages_s_recap_is_said_in_full_at_every_point() -> None:
    game = Sages()

    def choose(rng: random.Random, state: Any) -> Action:
        offered = list(game.legal_actions(state, state.to_move.seat))
        if state.options.hourglass is not None and rng.random() < 0.05:
            return PauseHourglass(rng.uniform(1, 20)) if not state.sand.paused else offered[0]
        return test_sages_games.pick(rng, state, offered)

    for seed, options in enumerate(({}, {"layout": "free", "hourglass": 30})):
        for state in random_states(game, options, seed, choose):
            assert check_said("sages", state) or state.outcome is not None


def test_night_s_recap_is_said_in_full_at_every_point() -> None:
    for seed in range(3):
        for state in random_states(Night(), {"players": 4}, seed, test_night_games.choose):
            assert check_said("night", state) or state.closed
