"""What the companion says aloud during Eleusis: every public event in English and French, each
verdict with its cards, the prophet, penalties as counts, the end with the scores and, only then,
the rule; never a hand, never the rule before the end."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from typing import Any

import pytest
from test_eleusis_games import GAME, choose, options_for

from companion.game import Action, Audience, AudienceKind, Event, IllegalAction
from companion.games.eleusis.cards import Card
from companion.games.eleusis.state import (
    AdmitMistake,
    DeclareProphet,
    EleusisState,
    Judge,
    NoPlay,
    Phase,
    PlayCards,
    ProphetJudge,
    TurnCard,
)
from companion.narration.catalog import LANGUAGES, Catalog, eleusis_card_words
from companion.narration.eleusis import cards_words, lines
from tests import engine_steps as steps

NAMES = ("Ada", "Bea", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo")
MODES = [(god, cards) for god in ("companion", "human") for cards in ("digital", "physical")]
SEEDS = range(12)
SEAT_ONLY = {"your_hand", "penalty_cards"}
SILENT = {"cards_played", "card_turned", "starter_verdict"}  # said by the events that follow
SPOKEN = {
    "game_set_up",
    "starter_awaited",
    "starter_refused",
    "starter_accepted",
    "turn",
    "verdict_awaited",
    "review_awaited",
    "upheld",
    "overturned",
    "accepted",
    "refused",
    "no_play",
    "hand_replaced",
    "god_plays",
    "protected",
    "eliminated",
    "penalty",
    "prophet_declared",
    "prophet_fallen",
    "sudden_death",
    "mistake_admitted",
    "game_over",
}

play = functools.partial(steps.play, GAME)


def say(lang: str, event: Event) -> list[str]:
    return lines(Catalog(lang, NAMES), event)


def random_game(god: str, cards: str, seed: int) -> Iterator[Event]:
    """Every event of a seeded random game (the players of ``test_eleusis_games``)."""
    rng = random.Random(seed)
    state = GAME.new(options_for(god, cards, rng), seed)
    yield from GAME.opening_events(state)
    for _ in range(400):
        if state.phase is Phase.OVER:
            return
        state, events = GAME.apply(state, choose(rng, state))
        yield from events


def heard(lang: str, events: list[Event]) -> list[str]:
    return [line for event in events for line in say(lang, event)]


def physical(players: int, hand_size: int = 8, **options: Any) -> EleusisState:
    """A physical game with the companion as God and the rule "card is red"; the host has turned
    the queen of hearts, so the 12th player after God starts."""
    opts = {"players": players, "cards": "physical", "hand_size": hand_size, **options}
    state = GAME.new({"rule": "card is red", **opts}, 3)
    state, _ = GAME.apply(state, TurnCard(Card.from_json("QH")))
    return state


def cards(*codes: str) -> tuple[Card, ...]:
    return tuple(Card.from_json(code) for code in codes)


# -- every event, both languages -------------------------------------------------------------


def test_every_public_event_of_random_games_is_said_in_full_in_both_languages() -> None:
    kinds: set[str] = set()
    for god, mode in MODES:
        for seed in SEEDS:
            for event in random_game(god, mode, 1000 * seed + 7):
                if event.audience.kind is not AudienceKind.EVERYONE:
                    assert event.kind in SEAT_ONLY
                    continue
                kinds.add(event.kind)
                for lang in LANGUAGES:
                    said = say(lang, event)
                    if event.kind in SILENT or (
                        event.kind == "verdict" and event.data["by"] == "god"
                    ):
                        assert said == [], (lang, event)
                        continue
                    assert said and all(line.strip() for line in said), (lang, event)
                    for line in said:
                        assert "{" not in line and "}" not in line and "None" not in line
                        assert "|" not in line, line
    assert kinds == SPOKEN | SILENT | {"verdict"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_hand_is_never_said(lang: str) -> None:
    for god, mode in MODES:
        for event in random_game(god, mode, 7):
            if event.kind in SEAT_ONLY:
                assert say(lang, event) == []
    state = GAME.new({"players": 3, "rule": "card is red"}, 5)
    deal = [e for e in GAME.opening_events(state) if e.kind == "your_hand"]
    assert len(deal) == 3 and all(say(lang, e) == [] for e in deal)
    turn = state.turn
    assert turn is not None
    _, events = play(state, NoPlay(turn))
    shown = next(e for e in events if e.kind == "no_play")
    (line,) = say(lang, shown)
    assert NAMES[turn] in line and str(len(state.hands[turn])) in line
    for code in shown.data["cards"]:
        assert eleusis_card_words(Catalog(lang), code) not in line
    assert [e.kind for e in events if e.audience.kind is not AudienceKind.EVERYONE]


def test_a_seat_only_event_says_nothing_even_if_it_could() -> None:
    for lang in LANGUAGES:
        assert say(lang, Event("turn", {"seat": 1}, Audience.only(1))) == []
        assert say(lang, Event("penalty_cards", {"cards": ["QH"]}, Audience.only(0))) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rule_is_said_only_at_the_end(lang: str) -> None:
    revealed = 0
    for seed in SEEDS:
        events = list(random_game("companion", "digital", 1000 * seed + 7))
        if events[-1].kind != "game_over":
            continue  # a game that outlasted the random players
        over = len(events) - 1
        rule = events[over].data["rule"]
        secrets = {rule["text"], rule["description"]["en"], rule["description"]["fr"]}
        before = " ".join(heard(lang, events[:over]))
        assert not any(secret in before for secret in secrets)
        assert say(lang, events[over])[-1].endswith(rule["description"][lang])
        revealed += 1
    assert revealed >= len(SEEDS) - 1


# -- cards --------------------------------------------------------------------------------------


def test_a_card_is_said_by_its_rank_and_suit() -> None:
    en, fr = Catalog("en"), Catalog("fr")
    assert eleusis_card_words(en, "QH") == "queen of hearts"
    assert eleusis_card_words(fr, "QH") == "dame de cœur"
    assert eleusis_card_words(en, "10S") == "10 of spades"
    assert eleusis_card_words(fr, "AD") == "as de carreau"
    assert eleusis_card_words(fr, "JC") == "valet de trèfle"
    assert cards_words(en, ["KC", "2D"]) == "king of clubs, 2 of diamonds"


def refusal(state: EleusisState, action: Action) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, action)
    return caught.value


@pytest.mark.parametrize(("lang", "queen"), [("en", "queen of hearts"), ("fr", "dame de cœur")])
def test_a_refusal_names_its_card_in_words(lang: str, queen: str) -> None:
    """A card not in the hand, a turned card still to be judged, a card not in the hand shown:
    the sentence says the card as the narration does, never its code."""
    catalog = Catalog(lang, NAMES)
    digital = GAME.new({"players": 4, "rule": "card is red"}, 3)
    seat = digital.turn
    assert seat is not None and Card.from_json("QH") not in digital.hands[seat]
    human = GAME.new({"players": 5, "god": "human", "god_seat": 0, "cards": "physical"}, 3)
    turned, _ = play(human, TurnCard(Card.from_json("QH")))
    started, _ = play(human, TurnCard(Card.from_json("5H")), Judge(0, True))
    assert started.turn is not None
    hand = cards("2S", "3S", "4C", "5C", "6S", "7S", "8C", "9C")
    shown, _ = play(started, NoPlay(started.turn, hand))
    refusals = [
        refusal(digital, PlayCards(seat, cards("QH"))),
        refusal(turned, TurnCard(Card.from_json("2S"))),
        refusal(shown, Judge(0, False, Card.from_json("QH"))),
    ]
    assert [r.code for r in refusals] == ["card_not_in_hand", "verdict_awaited", "card_not_shown"]
    for sentence in map(catalog.explain, refusals):
        assert queen in sentence and "QH" not in sentence, sentence


# -- the starting card, a verdict ----------------------------------------------------------------


def test_the_set_up_says_who_is_god_and_how_the_cards_are_dealt() -> None:
    state = GAME.new({"players": 4, "level": "medium"}, 1)
    opening = GAME.opening_events(state)
    assert heard("en", opening[:1]) == [
        "The companion is God: it holds a secret rule, drawn at the medium level, on the sequence"
        " of accepted cards.",
        "The companion mixes 2 decks and deals 8 cards to each player: each hand is on its"
        " player's phone.",
    ]
    human = GAME.new({"players": 5, "god": "human", "god_seat": 2, "cards": "physical"}, 1)
    assert heard("fr", GAME.opening_events(human)) == [
        "Cy est Dieu et a inventé une règle secrète sur la suite des cartes acceptées.",
        "Mélangez 2 paquets et distribuez 8 cartes à chaque joueur sauf Dieu.",
        "Retournez la carte du dessus du paquet pour commencer la ligne, et saisissez-la sur la"
        " page de l'hôte.",
    ]


def test_starting_cards_are_said_once_with_their_verdict() -> None:
    state = GAME.new({"players": 3, "cards": "physical", "rule": "card is red"}, 3)
    state, events = play(state, TurnCard(Card.from_json("2S")), TurnCard(Card.from_json("QH")))
    assert heard("en", events) == [
        "Starting card 2 of spades: refused.",
        "Turn the top card of the deck to start the line, and enter it on the host page.",
        "Starting card queen of hearts: accepted. It opens the main line, and its rank, 12, names"
        " the first player.",
        "Cy, your turn.",
    ]
    assert heard("fr", events)[0] == "Carte de départ, 2 de pique\xa0: refusée."


def test_a_series_is_said_with_its_cards_once_its_verdict_stands() -> None:
    state = physical(3)
    assert state.turn == 2
    state, events = play(state, PlayCards(2, cards("QH", "10S")))
    assert heard("en", events) == [
        "Cy: queen of hearts, 10 of spades — refused.",
        "Cy draws 4 penalty cards.",
        "Ada, your turn.",
    ]
    assert heard("fr", events)[:2] == [
        "Cy\xa0: dame de cœur, 10 de pique — refusées.",
        "Cy pioche 4 cartes de pénalité.",
    ]
    _, events = play(state, PlayCards(0, cards("AH")))
    assert heard("en", events)[0] == "Ada: ace of hearts — accepted."
    assert heard("fr", events)[0] == "Ada\xa0: as de cœur — acceptée."


def test_a_human_gods_verdict_is_awaited_then_said_by_its_effect() -> None:
    state = GAME.new({"players": 5, "god": "human", "god_seat": 0, "cards": "physical"}, 1)
    state, events = play(state, TurnCard(Card.from_json("2H")))
    assert heard("en", events) == ["Ada, as God: your verdict."]
    state, events = play(state, *[a for a in GAME.legal_actions(state, 0) if a.kind == "judge"][:1])
    assert heard("en", events)[0].startswith("Starting card 2 of hearts: accepted.")
    turn = state.turn
    assert turn is not None
    state, events = play(state, PlayCards(turn, cards("5C")))
    assert heard("en", events) == ["Ada, as God: your verdict."]
    judge = next(a for a in GAME.legal_actions(state, 0) if a.kind == "judge")
    _, events = play(state, judge)
    assert heard("en", events)[0] == f"{NAMES[turn]}: 5 of clubs — accepted."


def test_no_play_says_whether_the_player_could_play() -> None:
    state = physical(3)
    _, events = play(state, NoPlay(2, cards("2S", "3S", "4C", "5C", "6S", "7S", "8C", "9H")))
    assert heard("en", events)[:3] == [
        "Cy says no-play and shows 8 cards.",
        "Cy could play: God takes the 9 of hearts from that hand and lays it on the line.",
        "Cy draws 5 penalty cards.",
    ]
    _, events = play(state, NoPlay(2, cards("2S", "3S", "4C", "5C", "6S", "7S", "8C", "9C")))
    assert heard("en", events)[1] == (
        "Cy could not play: the 8 cards shown go back into the deck, and Cy gets a new hand of 4."
    )
    assert heard("fr", events)[1] == (
        "Cy ne pouvait pas jouer\xa0: les 8 cartes étalées retournent dans le paquet, et Cy reçoit"
        " une nouvelle main de 4."
    )


# -- the prophet -----------------------------------------------------------------------------------


def test_the_prophet_rises_judges_and_falls_aloud() -> None:
    state = physical(3)
    state, _ = play(state, PlayCards(2, cards("2H")))
    state, events = play(state, DeclareProphet(2))
    assert heard("en", events) == [
        "Cy declares themself prophet! The marker goes on the last accepted card, the 2 of hearts."
        " From now on Cy judges every play, and God only overturns."
    ]
    state, events = play(state, PlayCards(0, cards("3S")))
    assert heard("en", events) == ["Cy, as prophet: your verdict."]
    _, events = play(state, ProphetJudge(2, True))
    assert heard("en", events) == [
        "Cy, the prophet, accepts this play.",
        "God overturns Cy's verdict!",
        "Ada: 3 of spades — refused.",
        "Ada draws no penalty: the prophet was wrong.",
        "Cy falls from prophet, takes back their hand and plays again in turn.",
        "Cy draws 4 penalty cards.",
        "Bea, your turn.",
    ]
    assert heard("fr", events)[1] == "Dieu infirme le verdict du prophète, Cy\xa0!"


def test_penalties_are_counts_even_when_the_deck_runs_short() -> None:
    short = Event("penalty", {"seat": 1, "owed": 4, "drawn": 1, "reason": "refused"})
    empty = Event("penalty", {"seat": 1, "owed": 5, "drawn": 0, "reason": "wrong_no_play"})
    assert say("en", short) == ["Bea owes 4 penalty cards, but only 1 is left in the deck."]
    assert say("fr", short) == [
        "Bea doit 4 cartes de pénalité, mais il n'en reste que 1 dans le paquet."
    ]
    assert say("en", empty) == ["Bea owes 5 penalty cards, but the deck is empty."]


# -- the end -------------------------------------------------------------------------------------


def test_the_end_says_why_the_scores_the_winner_and_then_the_rule() -> None:
    state = physical(2, hand_size=1)
    assert state.turn == 1
    _, events = play(state, PlayCards(1, cards("2H")))
    assert heard("en", events) == [
        "Bea: 2 of hearts — accepted.",
        "A player has no cards left: the game is over.",
        "Scores: Ada 0 and Bea 1.",
        "With no prophet standing, God scores as much as the best player: 1.",
        "Bea wins!",
        "The rule was: card is red.",
    ]
    assert heard("fr", events)[1:] == [
        "Un joueur n'a plus de cartes\xa0: la partie est terminée.",
        "Scores\xa0: Ada 0 et Bea 1.",
        "Sans prophète debout, Dieu marque autant que le meilleur joueur\xa0: 1.",
        "Bea gagne\xa0!",
        "La règle était\xa0: card is red.",
    ]


def test_god_scoring_nothing_without_a_prophet_goes_unsaid() -> None:
    state = physical(2, hand_size=1, god_without_prophet="zero")
    _, events = play(state, PlayCards(1, cards("2H")))
    assert not any("God" in line for line in heard("en", events))


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [("en", "The rule was: Only red cards are accepted."), ("fr", "Seules les rouges sont")],
)
def test_a_library_rule_is_revealed_in_the_tables_language(lang: str, sentence: str) -> None:
    state = GAME.new({"players": 2, "cards": "physical", "hand_size": 1, "rule_id": "only-red"}, 3)
    state, _ = play(state, TurnCard(Card.from_json("QH")))
    _, events = play(state, PlayCards(1, cards("2H")))
    assert sentence in heard(lang, events)[-1]
    assert "card is red" not in " ".join(heard(lang, events))


def test_a_standing_prophet_and_god_score_aloud() -> None:
    state = physical(3, hand_size=2)
    state, _ = play(state, PlayCards(2, cards("2H")), DeclareProphet(2))
    state, _ = play(state, PlayCards(0, cards("3H", "4H")))
    _, events = play(state, ProphetJudge(2, True))
    said = heard("en", events)
    assert said[said.index("A player has no cards left: the game is over.") + 1 :] == [
        "Scores: Ada 2, Bea 0 and Cy 2.",
        "Cy, the prophet, scores 2: the cards laid after the marker, refused ones double. God"
        " scores the smaller of 2 and 4: 2.",
        "Ada and Cy share the victory!",
        "The rule was: card is red.",
    ]


def test_an_early_mistake_of_god_changes_god_and_the_rule_is_gods_to_tell() -> None:
    state = GAME.new({"players": 5, "god": "human", "god_seat": 4, "cards": "physical"}, 1)
    _, events = play(state, AdmitMistake(4))
    assert heard("en", events) == [
        "Eve, as God, admits a mistake, after 0 cards played.",
        "God has admitted a mistake: the game is over.",
        "Too few cards were played: God is changed, and nobody scores.",
        "God, reveal your rule to the table!",
    ]
    assert heard("fr", events)[0] == "Eve, qui est Dieu, avoue s'être trompé, après 0 carte jouée."
