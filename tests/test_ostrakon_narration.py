"""What the companion says for Ostrakon, in English and French: a sentence for every public event
of the engine and of the buttons, the dealer's announcements and the special days step by step,
results as counts, and nothing that depends on a tesson still face down (twin games whose
face-down tessons differ are heard the same, line for line)."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from heard import HeardNarrator

from companion.game import Action, Audience, AudienceKind, Event, IllegalAction
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
    Revealed,
    Tesson,
    TessonLaid,
    Vote,
    VotesLaid,
)
from companion.journal import Journal
from companion.moderator import Table
from companion.narration import Catalog
from companion.narration.ostrakon import lines
from companion.seat_input import Button, Press

ROOT = Path(__file__).resolve().parents[1]
GAME = Ostrakon()
NAMES = ("Calippos", "Malia", "Nausicaa", "Doreminos", "Thalia", "Lysias", "Phryne", "Zenon")
SAY = "ostrakon.say."
A, B = Button.A, Button.B
ALL_SPECIAL = {str(q): ("corruption", "oracle", "tromperie")[q % 3] for q in range(3, 17)}
SILENT = {"vote_in"}  # shown on the page and by the LEDs, never spoken
PRIVATE = {"your_vote", "your_flip"}


def emitted_kinds() -> set[str]:
    """Every event kind the engine and the buttons of Ostrakon can emit (read from the code)."""
    kinds = {"press_ignored"}  # made by controls._ignore
    for name in ("games/ostrakon/engine.py", "games/ostrakon/controls.py"):
        text = (ROOT / "companion" / name).read_text()
        kinds |= set(re.findall(r'Event\(\s*"(\w+)"', text))
    return kinds


# -- events from real games -----------------------------------------------------------------------


def random_events(seed: int, votes: str) -> Iterator[Event]:
    """Every event of a random game with a special day on every square from 3 on."""
    rng = random.Random(seed)
    options = {"players": 5 + seed % 8, "symbols": ALL_SPECIAL, "votes": votes}
    state = GAME.new(options, seed)
    yield from GAME.opening_events(state)
    while state.phase is not Phase.OVER:
        action = choose(rng, state)
        try:
            state, events = GAME.apply(state, action)
        except IllegalAction:
            continue
        yield from events


def choose(rng: random.Random, state: OstrakonState) -> Action:
    asker = state.asker
    assert asker is not None
    n = state.players
    if state.phase is Phase.QUESTION:
        return Ask(asker)
    if state.phase is Phase.VOTE:
        contenders = GAME.disciple_contenders(state)
        if rng.random() < 0.3 and len(state.claimants) + len(contenders) >= 2 and contenders:
            return ContestDisciple(tuple(sorted((*state.claimants, rng.choice(contenders)))))
        if rng.random() < 0.15:
            return ClaimDisciple(rng.randrange(n))
        if state.options.camera:
            return TessonLaid(rng.randrange(n)) if rng.random() < 0.7 else VotesLaid()
        return Vote(rng.randrange(n), rng.random() < 0.5)
    if state.phase is Phase.NAME:
        return Name(
            asker, tuple(rng.sample([s for s in range(n) if s != asker], state.options.named))
        )
    if state.phase is Phase.FLIP:
        return Flip(asker, rng.random() < 0.5)
    return Revealed(tuple(Tesson(s, rng.random() < 0.5) for s in state.expected))


def endings() -> list[Event]:
    """The three ways a game ends."""
    base = {"seat": 2, "temple": [], "calendar_covered": True}
    return [
        Event("game_over", {**base, "winner": "2", "reason": "calendar_covered", "square": 12}),
        Event("game_over", {**base, "winner": "2", "reason": "victoire_supreme", "square": 17}),
        Event(
            "game_over",
            {
                **base,
                "winner": "2",
                "reason": "victoire_supreme",
                "square": 17,
                "calendar_covered": False,
            },
        ),
    ]


def button_feedback() -> list[Event]:
    reasons = set(re.findall(r'"(\w+)"', " ".join(_ignore_calls())))
    out = [
        Event("press_ignored", {"seat": 1, "why": why, "asker": 0, "count": 2})
        for why in sorted(reasons)
    ]
    return [
        *out,
        Event("named_in", {"seat": 3, "count": 1, "size": 2}),
        Event("named_out", {"seat": 3, "count": 0, "size": 2}),
        Event("naming_read_back", {"asker": 0, "named": [3, 5]}),
        Event("naming_cleared", {"asker": 0}),
    ]


def _ignore_calls() -> list[str]:
    text = (ROOT / "companion/games/ostrakon/controls.py").read_text()
    return re.findall(r'_ignore\(naming, seat, ("\w+")', text)


@pytest.fixture(scope="module")
def every_event() -> list[Event]:
    events: list[Event] = []
    for seed in range(16):
        for votes in ("buttons", "camera"):
            events.extend(random_events(seed, votes))
    return [*events, *endings(), *button_feedback()]


def test_the_games_meet_every_kind_of_event(every_event: list[Event]) -> None:
    kinds = {e.kind for e in every_event}
    assert emitted_kinds() == kinds
    reasons = {e.data["why"] for e in every_event if e.kind == "press_ignored"}
    assert {"question_first", "naming_full", "camera_reads", "no_such_seat"} <= reasons
    assert {"press_ignored", "named_revealed", "reveal_awaited", "disciple_claimed"} <= kinds
    steps = {e.data["step"] for e in every_event if e.kind == "reveal_awaited"}
    assert steps == {"asker", "named", "rest", "all"}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_public_event_is_said_in_full_and_private_ones_never(
    every_event: list[Event], lang: str
) -> None:
    catalog = Catalog(lang, NAMES)
    for event in every_event:
        said = lines(catalog, event)
        if event.kind in PRIVATE:
            assert event.audience.kind is AudienceKind.SEAT
            assert said == []
            continue
        if event.kind in SILENT or (
            event.kind == "votes_revealed"
            and len(event.data["shown_now"]) == len(event.data["votes"])
        ):
            assert said == [], event
            continue
        assert said, event
        for line in said:
            assert line.strip() and "{" not in line and "}" not in line, (event, line)
            assert "|" not in line and "None" not in line, (event, line)


def test_a_private_event_says_nothing_even_if_asked() -> None:
    catalog = Catalog("en", NAMES)
    for kind in PRIVATE:
        event = Event(kind, {"seat": 0, "vote": "white", "flip": True}, Audience.only(0))
        assert lines(catalog, event) == []


# -- the dealer's words ----------------------------------------------------------------------------


def turn_event(next_asker: int | None = 1) -> Event:
    return Event(
        "turn_started",
        {
            "turn": 9,
            "day": 2,
            "days": 5,
            "rule": "normal",
            "sun": 7,
            "asker": 2,
            "subject": "sea",
            "subject_text": {"en": "the sea", "fr": "la mer", "free": False},
            "next_asker": next_asker,
            "next_subject": "free-1",
            "next_subject_text": {"en": "???", "fr": "???", "free": True},
            "last_of_day": next_asker is None,
        },
    )


def test_each_turn_gives_the_calendar_the_sun_the_subject_and_what_comes_next() -> None:
    assert lines(Catalog("en", NAMES), turn_event()) == [
        "Day 2 of 5. The Sun shines on square 7. Nausicaa asks, on the sea. "
        "Next: a free subject, for Malia."
    ]
    assert lines(Catalog("fr", NAMES), turn_event()) == [
        "Jour 2 sur 5. Le Soleil brille sur la case 7. Nausicaa pose la question, sur la mer. "
        "Ensuite\xa0: un sujet libre, pour Malia."
    ]


def test_before_the_days_last_question_the_next_asker_is_not_named() -> None:
    (line,) = lines(Catalog("en", NAMES), turn_event(None))
    assert line.endswith("Next: a free subject. This is the day's last question.")


def test_the_subject_comes_from_the_engines_subject_cards_in_the_tables_language() -> None:
    state = GAME.new({"players": 5, "subjects": [{"en": "dragons", "fr": "les dragons"}, "sea"]}, 1)
    (turn,) = [e for e in GAME.opening_events(state) if e.kind == "turn_started"]
    english = lines(Catalog("en", NAMES), turn)[0]
    french = lines(Catalog("fr", NAMES), turn)[0]
    assert ("on dragons" in english) != ("on the sea" in english)
    assert ("sur les dragons" in french) != ("sur la mer" in french)


def test_a_day_end_tells_the_moon_and_the_new_day_rule() -> None:
    catalog = Catalog("en", NAMES)
    ended = Event("day_ended", {"day": 2, "moons_covered": 2, "days": 5})
    started = Event(
        "day_started", {"day": 3, "days": 5, "rule": "oracle", "sun": 9, "named_count": 2}
    )
    assert lines(catalog, ended) == ["Day 2 is over: the Moon covers 2 of 5 moons."]
    assert lines(catalog, started) == [
        "Today is a day of the Oracle. After the vote, the asker names 2 philosophers, who show "
        "their tessons; then the asker may turn their own, unseen."
    ]
    assert lines(Catalog("fr", NAMES), ended) == [
        "Le jour 2 est fini\xa0: la Lune couvre 2 lunes sur 5."
    ]


def result_event(**changes: Any) -> Event:
    data = {
        "asker": 0,
        "white": 4,
        "black": 3,
        "moved": "forward",
        "steps": 3,
        "to": 5,
        "disciple": None,
        "disciple_to": None,
        "disciple_steps": 0,
    }
    return Event("turn_result", {**data, **changes})


def test_results_are_counts_and_a_move() -> None:
    en, fr = Catalog("en", NAMES), Catalog("fr", NAMES)
    assert lines(en, result_event()) == [
        "4 white, 3 black: Calippos moves forward 3 squares, to square 5."
    ]
    assert lines(fr, result_event()) == [
        "4 blancs, 3 noirs\xa0: Calippos avance de 3 cases, jusqu'à la case 5."
    ]
    assert lines(en, result_event(moved="under_sun", white=7, black=0)) == [
        "7 white, 0 black: Calippos goes under the Sun."
    ]
    assert lines(fr, result_event(moved="under_sun", white=1, black=6)) == [
        "1 blanc, 6 noirs\xa0: Calippos passe sous le Soleil."
    ]
    assert lines(en, result_event(to=17, steps=1))[0].endswith(
        "moves forward 1 square, into the Temple of Wisdom!"
    )


def test_the_disciple_follows_or_stays() -> None:
    en = Catalog("en", NAMES)
    follows = result_event(disciple=4, disciple_to=4, disciple_steps=2)
    assert lines(en, follows)[1] == "Thalia, the disciple, follows 2 squares, to square 4."
    stays = result_event(moved="under_sun", disciple=4)
    assert lines(en, stays)[1] == "Thalia, the disciple, stays where they are."


def test_the_end_names_the_winner_and_the_victoire_supreme() -> None:
    calendar, temple, all_in = endings()
    en = Catalog("en", NAMES)
    assert lines(en, calendar) == [
        "The Calendar is covered. Nausicaa, on top of the pile on square 12, wins!"
    ]
    assert "Victoire Suprême" in lines(en, temple)[0]
    assert lines(Catalog("fr", NAMES), all_in)[0].startswith(
        "Tous les philosophes sont au Temple de la Sagesse. Nausicaa"
    )


# -- at the table: the special days step by step ---------------------------------------------------


class At:
    """A table of ``players`` (seat 0 on top of the starting pile) with the given day rule."""

    def __init__(self, tmp_path: Path, rule: DayRule, players: int = 7, lang: str = "en") -> None:
        self.voice = HeardNarrator()
        self.journal = Journal(tmp_path / f"{rule.value}-{lang}.sqlite3")
        self.table = Table(self.journal, self.voice, seats=8)
        options = {"players": players, "pile": list(range(players))}
        self.table.new_game("ostrakon", options, NAMES[:players], lang, seed=4)
        running = self.table.running
        assert running is not None
        running.state = dataclasses.replace(running.state, day_rule=rule)
        self.catalog = Catalog(lang, NAMES[:players])

    def press(self, seat: int, button: Button, long: bool = False) -> list[str]:
        before = len(self.voice.said)
        self.table.press(Press(seat, button, long))
        return self.voice.said[before:]

    def presses(self, *pairs: tuple[int, Button]) -> list[str]:
        said: list[str] = []
        for seat, button in pairs:
            said += self.press(seat, button)
        return said

    def say(self, key: str, **params: Any) -> str:
        return self.catalog.text(SAY + key, **params)


@pytest.fixture
def at(tmp_path: Path) -> Iterator[Any]:
    made: list[At] = []

    def make(rule: DayRule, players: int = 7, lang: str = "en") -> At:
        made.append(At(tmp_path, rule, players, lang))
        return made[-1]

    yield make
    for table in made:
        table.journal.close()


def votes(text: str) -> list[tuple[int, Button]]:
    return [(seat, A if letter == "W" else B) for seat, letter in enumerate(text)]


def test_corruption_is_told_step_by_step(at: Any) -> None:
    t = at(DayRule.CORRUPTION)
    assert t.press(0, A) == [t.say("vote_now", asker="Calippos")]
    said = t.presses(*votes("WBBBWBW"))
    assert said == [
        t.say("all_voted"),
        t.say("asker_shows", asker="Calippos", colour="white"),
        t.say("name_corruption", asker="Calippos", count=2),
    ]
    said = t.presses((1, A), (3, A), (0, A))
    assert said[-1].startswith("Day 1 of 5. The Sun shines on square 2. Malia asks")
    assert said[:-1] == [
        t.say("named_in", seat="Malia", count=1, size=2),
        t.say("named_in", seat="Doreminos", count=2, size=2),
        t.say("naming_read_back", asker="Calippos", named="Malia and Doreminos"),
        t.say("named", asker="Calippos", named="Malia and Doreminos"),
        t.say("named_show", tessons="Malia black and Doreminos black"),
        t.say("corrupted", count=2, colour="white"),
        t.say("rest_shown"),
        "5 white, 2 black: Calippos moves forward 2 squares, to square 4.",
    ]
    assert said[5] == "They become white."


def test_oracle_is_told_step_by_step_and_the_flip_is_not(at: Any) -> None:
    turned, kept = at(DayRule.ORACLE), at(DayRule.ORACLE)
    for t, first, decision in ((turned, "B", B), (kept, "W", A)):
        t.press(0, A)
        assert t.presses(*votes(first + "WWBBWB")) == [
            t.say("all_voted"),
            t.say("name_oracle", asker="Calippos", count=2),
        ]
        t.presses((1, A), (2, A), (0, A))
        assert t.voice.said[-1] == t.say("flip_oracle", asker="Calippos")
        assert t.voice.said[-2] == t.say("named_show", tessons="Malia white and Nausicaa white")
        said = t.press(0, decision)
        assert said[:2] == [t.say("flip_decided", asker="Calippos"), t.say("rest_shown")]
    assert turned.voice.said == kept.voice.said  # black turned to white = white kept


def test_tromperie_tells_the_count_then_the_open_flip(at: Any) -> None:
    t = at(DayRule.TROMPERIE)
    t.press(0, A)
    assert t.presses(*votes("WBBBBWW")) == [
        t.say("all_voted"),
        "3 white, 4 black. Calippos, you may turn your tesson, in the open: A to keep, B to turn.",
    ]
    assert t.press(0, B)[:2] == [
        "Calippos turns their tesson: it is now black.",
        "2 white, 5 black: Calippos moves forward 2 squares, to square 4.",
    ]


def test_a_disciple_is_accepted_or_refused_with_the_reason_aloud(at: Any) -> None:
    t = at(DayRule.NORMAL)
    running = t.table.running
    now = [0.0]
    running.rules.interpret.clock = lambda: now[0]  # the buttons' clock, for "together"
    path = OPath.empty().placed(6, (0, 1)).placed(3, (2, 3)).placed(9, (4, 6)).placed(2, (5,))
    running.state = dataclasses.replace(running.state, path=path, sun=6, moon=1)
    t.press(0, A)
    assert t.press(4, A, long=True) == ["Thalia is on square 9, not behind the asker on square 6."]
    assert t.press(2, A, long=True) == [t.say("disciple", seat="Nausicaa", asker="Calippos")]
    now[0] = 5.0  # long after the first claim: a claim alone, refused
    assert t.press(5, A, long=True) == [
        t.catalog.explain(IllegalAction("disciple_taken", seat=5, claimant=2))
    ]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_two_disciples_at_once_the_farthest_from_the_temple_wins_aloud(at: Any, lang: str) -> None:
    """ "en cas de contestation c'est le joueur qui se trouve le plus loin de l'arrivée qui
    gagne": Lysias (square 2) holds A half a second after Nausicaa (square 3), whose claim was
    accepted first; Lysias, farther from the Temple, becomes the disciple."""
    t = at(DayRule.NORMAL, lang=lang)
    running = t.table.running
    now = [10.0]
    running.rules.interpret.clock = lambda: now[0]
    path = OPath.empty().placed(6, (0, 1)).placed(3, (2, 3)).placed(9, (4, 6)).placed(2, (5,))
    running.state = dataclasses.replace(running.state, path=path, sun=6, moon=1)
    t.press(0, A)
    assert t.press(2, A, long=True) == [t.say("disciple", seat="Nausicaa", asker="Calippos")]
    now[0] = 10.5
    contested = t.press(5, A, long=True)
    seats = t.catalog.join(["Nausicaa", "Lysias"])
    assert contested == [t.say("disciple_contested", seats=seats, seat="Lysias", asker="Calippos")]
    assert running.state.disciple == 5
    assert t.table.snapshot()["state"]["olive_branches"][2] == "unused"


def test_by_camera_the_reveal_is_called_step_by_step(at: Any) -> None:
    t = at(DayRule.CORRUPTION)
    running = t.table.running
    opts = dataclasses.replace(running.state.options, votes=running.state.options.votes.CAMERA)
    running.state = dataclasses.replace(running.state, options=opts, laid=(False,) * 7)
    assert t.press(0, A) == [t.say("lay_tessons", asker="Calippos")]
    said = t.presses(*[(s, B) for s in range(7)])
    assert said == [t.say("all_voted"), t.say("show_asker", asker="Calippos")]
    t.table.submit(Revealed((Tesson(0, False),)))
    assert t.voice.said[-2:] == [
        t.say("asker_shows", asker="Calippos", colour="black"),
        t.say("name_corruption", asker="Calippos", count=2),
    ]
    t.table.submit(Name(0, (5, 6)))
    assert t.voice.said[-2:] == [
        t.say("named", asker="Calippos", named="Lysias and Phryne"),
        t.say("show_named", named="Lysias and Phryne", count=2),
    ]
    t.table.submit(Revealed((Tesson(5, True), Tesson(6, False))))
    assert t.voice.said[-3:] == [
        t.say("named_show", tessons="Lysias white and Phryne black"),
        t.say("corrupted", count=2, colour="black"),
        t.say("show_rest"),
    ]


# -- nothing said depends on a tesson face down ----------------------------------------------------


def twin_game(tmp_path: Path, seed: int, twin: bool, lang: str) -> tuple[list[str], list[Any]]:
    """A whole game pressed on the buttons. The twins make the same final choices; they differ
    only in tessons changed while face down (a first tesson of the other colour), and on an Oracle
    day in the asker's hidden decision (one lays the final colour and keeps it, the other lays the
    other colour and turns it). Returns everything said, in order, and the journal."""
    rng = random.Random(seed)
    players = 5 + seed % 8
    voice = HeardNarrator()
    journal = Journal(tmp_path / f"{seed}-{twin}-{lang}.sqlite3")
    table = Table(journal, voice, seats=12)
    options = {"players": players, "symbols": ALL_SPECIAL}
    table.new_game("ostrakon", options, NAMES[:players] if players <= 8 else (), lang, seed=seed)
    running = table.running
    assert running is not None
    try:
        while running.state.phase is not Phase.OVER:
            state = running.state
            asker = state.asker
            assert asker is not None
            table.press(Press(asker, A))
            final = [rng.random() < 0.5 for _ in range(players)]
            changers = {s for s in range(players) if rng.random() < 0.4}
            claimant = rng.randrange(players) if rng.random() < 0.2 else None
            order = list(range(players))
            rng.shuffle(order)
            oracle = state.day_rule is DayRule.ORACLE
            asker_flips = oracle and twin
            waiting = set(range(players))
            if claimant is not None:  # held A: a white tesson first, then the claim
                table.press(Press(claimant, A))
                table.press(Press(claimant, A, long=True))
                waiting.discard(claimant)
                order.remove(claimant)
                order.insert(0, claimant)  # then lays their own tesson at once
            for seat in order:
                lay = final[seat] != asker_flips if seat == asker else final[seat]
                closing = waiting <= {seat}
                if twin and seat in changers and not closing:
                    table.press(Press(seat, B if lay else A))
                table.press(Press(seat, A if lay else B))
                waiting.discard(seat)
            if running.state.phase is Phase.NAME:
                others = [s for s in range(players) if s != asker]
                for seat in sorted(rng.sample(others, state.options.named)):
                    table.press(Press(seat, A))
                table.press(Press(asker, A))
            if running.state.phase is Phase.FLIP:
                turn = asker_flips if oracle else rng.random() < 0.5
                table.press(Press(asker, B if turn else A))
        said = voice.said
        assert not any(line in said for line in out_of_turn(table, players))
        return said, journal.actions(running.entry.id)
    finally:
        journal.close()


def out_of_turn(table: Table, players: int) -> list[str]:
    """What a press out of turn would have said: the twins press only when they have a say."""
    running = table.running
    assert running is not None
    catalog = running.catalog
    return [
        catalog.text(f"ignored.{why}", seat=catalog.name(s), asker=catalog.name(a), count=2)
        for why in ("question_first", "asker_decides", "naming_full")
        for s in range(players)
        for a in range(players)
    ]


@pytest.mark.parametrize("seed", range(6))
def test_twin_games_whose_face_down_tessons_differ_are_heard_the_same(
    tmp_path: Path, seed: int
) -> None:
    lang = "fr" if seed % 2 else "en"
    heard, played = twin_game(tmp_path, seed, False, lang)
    other, twin_played = twin_game(tmp_path, seed, True, lang)
    assert played != twin_played  # the twins did lay different tessons face down
    assert heard == other
    assert any("!" in line for line in heard[-1:])
