"""What the companion says aloud during Oraklos: a short sentence for every public event, in
English and French, and never a seat's secret (what it put in the cup)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_oraklos_games import play_game
from test_oraklos_rules import GAME, RYBK, B, K, R, Y, give, in_a_line, layout, play, square

from companion.game import Audience, AudienceKind, Event
from companion.games.oraklos.state import (
    AddDie,
    Claim,
    EndSearch,
    FillCup,
    Hesitate,
    Mode,
    Pool,
    TakeMarker,
    ThrowDice,
)
from companion.narration.catalog import LANGUAGES, Catalog
from companion.narration.oraklos import card_words, lines

NAMES = ("Ada", "Bea", "Cy", "Dan", "Eve")
PUBLIC_KINDS = {
    "round_started",
    "first_player",
    "cards_dealt",
    "draw_started",
    "cards_drawn",
    "cards_revealed",
    "fill_turn",
    "cup_filled",
    "throw_awaited",
    "dice_thrown",
    "throw_reread",
    "die_corrected",
    "die_removed",
    "die_added",
    "search_started",
    "marker_taken",
    "search_over",
    "claim_turn",
    "claim_result",
    "round_scored",
    "retrieval_order",
    "retrieval_turn",
    "dice_taken_back",
    "cup_refilled",
    "naming_started",
    "card_named",
    "all_found",
    "cards_discarded",
    "deck_exhausted",
    "game_over",
}


def game_events(mode: str, seed: int, table: bool) -> Iterator[Event]:
    """Every event of a seeded random game (see ``test_oraklos_games``), from its opening."""
    _, actions, states = play_game(mode, seed, table=table)
    state = states[0]
    yield from GAME.opening_events(state)
    for action in actions:
        state, events = GAME.apply(state, action)
        yield from events


def say(lang: str, event: Event) -> list[str]:
    return lines(Catalog(lang, NAMES), event)


def test_every_public_event_of_random_games_is_said_in_both_languages() -> None:
    heard: set[str] = set()
    for mode in Mode:
        for seed in range(3):
            for table in (False, True):
                for event in game_events(mode.value, seed, table):
                    if event.audience.kind is not AudienceKind.EVERYONE:
                        continue
                    heard.add(event.kind)
                    for lang in LANGUAGES:
                        said = say(lang, event)
                        assert said and all(line.strip() for line in said), (lang, event)
                        for line in said:
                            assert "{" not in line and "}" not in line and "None" not in line
    assert heard == PUBLIC_KINDS


@pytest.mark.parametrize("lang", LANGUAGES)
def test_what_a_seat_put_in_the_cup_is_never_said(lang: str) -> None:
    state = GAME.new({"players": 2}, 11)
    _, events = play(state, FillCup(0, red=4, yellow=2))
    secret = next(e for e in events if e.kind == "your_cup")
    assert say(lang, secret) == []
    told = " ".join(line for e in events for line in say(lang, e))
    assert "4" not in told and ("red" not in told and "rouge" not in told)
    hidden = Event("cup_filled", {"seat": 0, "dice_in_cup": 10}, Audience.only(0))
    assert say(lang, hidden) == []


def test_a_card_is_said_as_its_colours_clockwise() -> None:
    assert card_words(Catalog("en"), RYBK) == "blue, black, red, yellow"
    assert card_words(Catalog("fr"), "RRYK") == "rouge, rouge, jaune, noir"
    state = GAME.new({"players": 2, "mode": "antipodes"}, 11)
    dealt = next(e for e in GAME.opening_events(state) if e.kind == "cards_dealt")
    (line,) = say("en", dealt)
    assert line.startswith("The shared cards: ") and line.count(";") == 5


def test_a_claim_checked_on_the_card_says_which_dice() -> None:
    state = give(GAME.new({"players": 2, "fills": "unseen", "claims": "card"}, 11), 0, RYBK)
    state, _ = play(state, ThrowDice.of(layout(Pool.each(4), square((R, Y, B, K)))))
    _, events = play(state, TakeMarker(0, 3, RYBK), EndSearch(), Claim(0))
    result = next(e for e in events if e.kind == "claim_result")
    assert say("en", result) == [
        "This card has a true prediction: dice 0, 1, 2 and 3.",
        "Ada wins 3 points: score 3.",
    ]
    assert say("fr", result)[1] == "Ada gagne 3 points\xa0: score 3."
    lined, _ = play(
        give(GAME.new({"players": 2, "fills": "unseen", "claims": "card"}, 11), 0, RYBK),
        ThrowDice.of(in_a_line(Pool.each(4))),
    )
    _, events = play(lined, TakeMarker(0, 2, RYBK), EndSearch(), Claim(0))
    result = next(e for e in events if e.kind == "claim_result")
    assert say("en", result) == [
        "This card has no true prediction.",
        "Ada loses 2 points: score -2.",
    ]


def test_a_wrong_claim_says_the_rule_broken() -> None:
    state = give(GAME.new({"players": 2, "fills": "unseen"}, 11), 1, RYBK)
    state, _ = play(state, ThrowDice.of(layout(Pool.each(4), square((R, Y, B, K), (True,) * 4))))
    _, events = play(state, TakeMarker(1, 1, RYBK), EndSearch(), Claim(1, (0, 1, 2, 3)))
    result = next(e for e in events if e.kind == "claim_result")
    assert say("en", result) == [
        "Holes are profane: the red die 0 shows its hole.",
        "Bea loses 1 point: score -1.",
    ]
    _, events = play(state, TakeMarker(1, 1, RYBK), EndSearch(), Hesitate(1))
    assert say("en", next(e for e in events if e.kind == "claim_result"))[0] == "Bea hesitates."


def test_a_misread_throw_is_said_with_what_to_check() -> None:
    state = GAME.new({"players": 2, "mode": "junior"}, 11)
    dice = layout(Pool.each(4))
    state, events = play(state, ThrowDice.of(dice[1:]))
    thrown = next(e for e in events if e.kind == "dice_thrown")
    assert say("en", thrown) == [
        "15 dice on the table, 0 holes up.",
        "Check the reading: 4 red dice expected, 3 seen.",
    ]
    assert say("fr", thrown)[1] == (
        "Vérifiez la lecture\xa0: 4 dés de couleur rouge attendus, 3 vus."
    )
    _, events = play(state, AddDie(dice[0]))
    assert say("en", events[0]) == [
        "A red die added: 16 dice now.",
        "The reading now matches the cup.",
    ]


def test_unseen_fills_are_said_as_one_instruction() -> None:
    state = GAME.new({"players": 3, "fills": "unseen", "first_player": 2}, 11)
    awaited = next(e for e in GAME.opening_events(state) if e.kind == "throw_awaited")
    assert say("en", awaited) == ["Everyone, put 5 dice in the cup. Then Cy throws."]
    assert say("fr", awaited) == ["Chacun met 5 dés dans le gobelet. Puis Cy lance."]


def test_the_winners_are_named() -> None:
    one = Event("game_over", {"winners": [1], "scores": [3, 11], "winner": "1"})
    two = Event("game_over", {"winners": [0, 2], "scores": [10, 3, 10], "winner": "0,2"})
    assert say("en", one) == ["Bea wins with 11 points!"]
    assert say("en", two) == ["Ada and Cy share the victory with 10 points!"]
    assert say("fr", two) == ["Ada et Cy partagent la victoire avec 10 points\xa0!"]


def test_a_tie_that_plays_on_is_said_with_the_tied_players() -> None:
    tie = Event("tie_plays_on", {"seats": [0, 2], "score": 10})
    assert say("en", tie) == ["Ada and Cy are tied with 10 points: another round is played."]
    assert say("fr", tie) == [
        "Ada et Cy sont à égalité avec 10 points\xa0: on joue une manche de plus."
    ]


def test_the_pile_running_out_is_said_in_the_rulebooks_words() -> None:
    over = Event("deck_exhausted", {"round": 9})
    assert say("fr", over) == ["La pioche est épuisée\xa0: la partie finit immédiatement."]
    assert say("en", over) == ["The deck has run out: the game ends."]
