"""No state prints a secret: ``repr()`` and ``str()`` of a game's state (in a log line, a failed
assertion, a traceback) never show what the table may not know. Each secret field is left out of
the repr (``dataclasses.field(repr=False)``), and tested the same way for every game: at many
moments of a random game, a twin state whose secrets differ (and hold markers that would stand
out) prints exactly the same.

The secrets, game by game: Résistance's seed, identities, Mission cards and votes before they
are shown, the plot deck's order and what a plot card showed one player; Ostrakon's face-down
tessons and the subject deck's order; Oraklos's deck order, what each player put in the cup and
so the supplies left in front of them (until the throw); game night's seed (who starts next).
Les 7 Sages has no hidden information. Eleusis is tested with its engine.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest

from companion.games.oraklos.dice import Die
from companion.games.oraklos.state import OraklosState, Pool, ThrowDice
from companion.games.oraklos.state import Phase as OraklosPhase
from companion.games.ostrakon.state import OstrakonState
from companion.games.ostrakon.subjects import SubjectDeck
from companion.games.resistance.state import ResistanceState, Side
from companion.games.sages.state import SagesState
from companion.games.titles import game_for

MARK = 987_654_321_987  # a number no state holds: seen in a repr, it is a secret leaking
MARK_TEXT = "SECRET-MARK"


def walk(title: str, options: dict[str, Any], seed: int, steps: int = 400) -> Iterator[Any]:
    """The states of a random game: any legal action of any seat (or the table) at each step."""
    game = game_for(title)
    state = game.new(options, seed)
    rng = random.Random(seed)
    players = options.get("players", 2)
    yield state
    for _ in range(steps):
        if game.outcome(state) is not None:
            return
        actions = []
        for seat in [None, *range(players)]:
            actions += list(itertools.islice(game.legal_actions(state, seat), 50))
        if isinstance(state, OraklosState) and state.phase is OraklosPhase.THROW:
            actions = [throw(state)]
        if not actions:
            return
        state, _ = game.apply(state, rng.choice(actions))
        yield state


def throw(state: OraklosState) -> Any:
    """The cup's dice in a row, well apart (Oraklos has no legal action to list a throw)."""
    colors = [color for color, count in state.cup.items() for _ in range(count)]
    return ThrowDice(tuple(Die(40.0 * i, 0.0, 16.0, color) for i, color in enumerate(colors)))


def same_print(state: Any, twin: Any) -> None:
    assert twin != state or twin is state
    assert repr(twin) == repr(state)
    assert str(twin) == str(state)
    assert str(MARK) not in repr(twin) and MARK_TEXT not in repr(twin)


def secret_fields(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls) if not f.repr}


# -- Résistance ------------------------------------------------------------------------------------


def resistance_twin(state: ResistanceState) -> ResistanceState:
    other = {Side.COLONS: Side.CYLONS, Side.CYLONS: Side.COLONS}
    identities = state.identities and tuple(other[s] for s in state.identities)
    plot = state.plot
    if plot is not None:
        plot = dataclasses.replace(plot, deck=tuple(reversed(plot.deck)), knowledge=())
    return dataclasses.replace(
        state,
        seed=MARK,
        votes=tuple(None if v is None else not v for v in state.votes),
        cards=tuple(reversed(state.cards)),
        identities=identities,
        plot=plot,
    )


@pytest.mark.parametrize("options", [{"players": 6}, {"players": 7, "plot": True}])
def test_a_resistance_state_prints_no_identity_card_vote_or_plot_secret(
    options: dict[str, Any],
) -> None:
    assert {"seed", "votes", "cards", "identities"} <= secret_fields(ResistanceState)
    plot_state = type(game_for("resistance").new({**options, "plot": True}, 1).plot)
    assert {"deck", "knowledge"} <= secret_fields(plot_state)
    for seed in range(4):
        for state in walk("resistance", {**options, "identities": "digital"}, seed):
            same_print(state, resistance_twin(state))
            assert "Side." not in repr(state)


# -- Ostrakon --------------------------------------------------------------------------------------


def ostrakon_twin(state: OstrakonState) -> OstrakonState:
    votes = tuple(
        v if v is None or shown else not v
        for v, shown in zip(state.votes, state.shown, strict=True)
    )
    deck = SubjectDeck((MARK_TEXT, *reversed(state.deck.deck)), state.deck.discards)
    return dataclasses.replace(state, seed=MARK, votes=votes, deck=deck)


def test_an_ostrakon_state_prints_no_face_down_tesson_nor_the_subject_deck() -> None:
    assert {"seed", "votes", "deck"} <= secret_fields(OstrakonState)
    for seed in range(4):
        for state in walk("ostrakon", {"players": 5 + seed}, seed):
            same_print(state, ostrakon_twin(state))


# -- Oraklos ---------------------------------------------------------------------------------------


def oraklos_twin(state: OraklosState) -> OraklosState:
    mark = Pool(MARK, MARK, MARK, MARK)
    return dataclasses.replace(
        state,
        seed=MARK,
        deck=(MARK_TEXT, *reversed(state.deck)),
        fills=tuple(None if f is None else mark for f in state.fills),
        supplies=tuple(mark for _ in state.supplies),
    )


@pytest.mark.parametrize("mode", ["standard", "junior", "antipodes"])
def test_an_oraklos_state_prints_no_deck_order_nor_what_went_into_the_cup(mode: str) -> None:
    assert {"seed", "deck", "fills", "supplies"} <= secret_fields(OraklosState)
    filled = dealt = 0
    for seed in range(3):
        for state in walk("oraklos", {"players": 3, "mode": mode}, seed, 120):
            same_print(state, oraklos_twin(state))
            filled += any(f is not None for f in state.fills)
            dealt += bool(state.deck)
    assert dealt and (filled or mode != "standard")


# -- game night and Les 7 Sages --------------------------------------------------------------------


def test_a_game_night_state_prints_no_seed() -> None:
    for state in walk("night", {"players": 3}, 5):
        same_print(state, dataclasses.replace(state, seed=MARK))
    assert "seed" in secret_fields(type(state))


def test_les_7_sages_have_no_secret_so_their_state_prints_whole() -> None:
    """Perfect information: both players see the whole board; nothing is left out."""
    assert secret_fields(SagesState) == set()
    state = next(iter(walk("sages", {}, 1)))
    assert repr(state).startswith("SagesState(options=")
