"""Résistance's expansion *Le Plan* (RULES.md §1): the plot cards, one clause per test.

Most tests name the cards the Commandant draws with the option ``plot_draws`` (the cards come off
the deck in that order), so that each scenario is the one its name says.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence

import pytest
from resistance_play import random_game, ten_with

from companion.game import Action, AudienceKind, Event, IllegalAction, action_from_json
from companion.games.resistance.engine import Resistance
from companion.games.resistance.plot import (
    DEFAULT_SMALL_DECK,
    FULL_DECK,
    LATER_EDITION_SEVEN,
    Neighbour,
    PlotCard,
    StrongLeaderTiming,
)
from companion.games.resistance.state import (
    Card,
    CastVote,
    EndNight,
    EstablishConfidence,
    HandPlot,
    OpenUp,
    Overhear,
    PassPlot,
    Phase,
    PlayMissionCard,
    PlayPlot,
    ProposeSquad,
    ResistanceState,
    TakeResponsibility,
    Termination,
)
from companion.narration import resistance as narration
from companion.narration.catalog import Catalog
from companion.record import NO_SEED, public_record, public_setup
from tests import engine_steps as steps

GAME = Resistance()
play = functools.partial(steps.play, GAME)
refused = functools.partial(steps.refused, GAME)
kinds = steps.kinds
only = steps.only

SL = PlotCard.STRONG_LEADER
CE = PlotCard.KEEPING_A_CLOSE_EYE
NC = PlotCard.NO_CONFIDENCE
ITS = PlotCard.IN_THE_SPOTLIGHT
TR = PlotCard.TAKE_RESPONSIBILITY
OC = PlotCard.OVERHEARD_CONVERSATION
OU = PlotCard.OPEN_UP
EC = PlotCard.ESTABLISH_CONFIDENCE
OM = PlotCard.OPINION_MAKER

# RULES.md §1's table, copied rather than imported so that it checks the code.
PRINTED = {
    "strong_leader": (2, "one_use"),
    "keeping_a_close_eye": (2, "one_use"),
    "no_confidence": (3, "one_use"),
    "in_the_spotlight": (1, "one_use"),
    "take_responsibility": (1, "immediate"),
    "overheard_conversation": (2, "immediate"),
    "open_up": (1, "immediate"),
    "establish_confidence": (1, "immediate"),
    "opinion_maker": (2, "permanent"),
}
# A later edition's seven for 5-6 players (RULES.md §1), copied to check the code.
LATER_EDITION_SMALL_DECK = Counter(
    {"strong_leader": 2, "keeping_a_close_eye": 2, "no_confidence": 1, "take_responsibility": 1}
    | {"opinion_maker": 1}
)


# -- helpers --------------------------------------------------------------------------------------


def plot_options(
    players: int = 5,
    draws: Sequence[PlotCard] = (),
    holding: Sequence[PlotCard] | None = None,
    **more: object,
) -> dict[str, object]:
    """``holding``: cards the deck of ten (under 7 players) must hold, for a scenario that draws
    cards the default ten lack."""
    opts: dict[str, object] = {"players": players, "plot": True, **more}
    if holding is not None:
        opts["plot_deck"] = [c.value for c in ten_with(holding)]
    if draws:
        opts["plot_draws"] = [c.value for c in draws]
    return opts


def plot_game(
    players: int = 5,
    draws: Sequence[PlotCard] = (),
    holding: Sequence[PlotCard] | None = None,
    **more: object,
) -> ResistanceState:
    """A game past its night: the first Commandant has drawn and is about to hand out."""
    state = GAME.new(plot_options(players, draws, holding, **more), seed=7)
    if state.phase is Phase.NIGHT:
        state, _ = GAME.apply(state, EndNight())
    return state


def hand(state: ResistanceState, *to_seats: int) -> tuple[ResistanceState, list[Event]]:
    """The Commandant hands the first card left to each seat in turn."""
    return play(state, *(HandPlot(state.commander, 0, to) for to in to_seats))


def squad_of(state: ResistanceState) -> tuple[int, ...]:
    assert state.mission is not None
    size = GAME.public_view(state)["squad_size"]
    return tuple((state.commander + i) % state.players for i in range(size))


def propose(
    state: ResistanceState, squad: tuple[int, ...] | None = None
) -> tuple[ResistanceState, list[Event]]:
    return play(state, ProposeSquad(state.commander, squad_of(state) if squad is None else squad))


def vote(state: ResistanceState, yes: Iterable[int]) -> tuple[ResistanceState, list[Event]]:
    """Everyone votes, the opinion makers first; the seats in ``yes`` approve."""
    yes = set(yes)
    makers = GAME.opinion_makers(state)
    order = [*makers, *(s for s in range(state.players) if s not in makers)]
    return play(state, *(CastVote(s, s in yes) for s in order))


def approve(
    state: ResistanceState, squad: tuple[int, ...] | None = None
) -> tuple[ResistanceState, list[Event]]:
    state, events = propose(state, squad)
    state, more = vote(state, yes=range(state.players))
    return state, events + more


def reject(state: ResistanceState) -> tuple[ResistanceState, list[Event]]:
    state, events = propose(state)
    state, more = vote(state, yes=())
    return state, events + more


def pass_all(state: ResistanceState) -> tuple[ResistanceState, list[Event]]:
    events: list[Event] = []
    while state.phase is Phase.PLOT_WINDOW:
        assert state.plot is not None and state.plot.window is not None
        state, more = play(state, PassPlot(state.plot.window.turn))
        events += more
    return state, events


def succeed(state: ResistanceState) -> tuple[ResistanceState, list[Event]]:
    """The squad plays Success, every member."""
    return play(state, *(PlayMissionCard(s, Card.SUCCESS) for s in state.squad))


def public(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.audience.kind is AudienceKind.EVERYONE]


def turn(state: ResistanceState) -> int:
    assert state.plot is not None and state.plot.window is not None
    return state.plot.window.turn


def plot_view(state: ResistanceState) -> dict[str, object]:
    view = GAME.public_view(state)["plot"]
    assert isinstance(view, dict)
    return view


# -- the deck -------------------------------------------------------------------------------------


def test_the_deck_holds_fifteen_cards_of_the_printed_kinds_and_counts() -> None:
    from companion.games.resistance.plot import CARDS

    assert len(FULL_DECK) == 15
    assert Counter(c.value for c in FULL_DECK) == Counter({k: n for k, (n, _) in PRINTED.items()})
    assert {c.value: s.kind.value for c, s in CARDS.items()} == {
        k: kind for k, (_, kind) in PRINTED.items()
    }


@pytest.mark.parametrize("players", range(7, 11))
def test_at_seven_players_or_more_all_the_plot_cards_are_used(players: int) -> None:
    """Seed: « À 7 joueurs ou plus, on joue avec toutes les cartes Complot. »"""
    state = GAME.new(plot_options(players), seed=1)
    assert plot_view(state)["deck"] == 15
    assert "plot_deck" not in GAME.options_json(state)
    with pytest.raises(IllegalAction) as caught:
        GAME.new(plot_options(players, plot_deck=[c.value for c in FULL_DECK]), seed=1)
    assert (caught.value.code, caught.value.params) == (
        "plot_deck_below_seven",
        {"players": players},
    )


@pytest.mark.parametrize("players", [5, 6])
def test_under_seven_players_only_ten_of_the_fifteen_plot_cards_are_used(players: int) -> None:
    """Seed: « Pour une partie à moins de 7 joueurs, on n'utilise que 10 des 15 cartes Complot »."""
    state = GAME.new(plot_options(players), seed=1)
    assert plot_view(state)["deck"] == 10
    assert len(GAME.options_json(state)["plot_deck"]) == 10


@pytest.mark.parametrize("players", [5, 6])
def test_under_seven_players_the_default_ten_are_the_later_editions_seven_and_three(
    players: int,
) -> None:
    """The seed points to the numbers printed on the cards, which its text does not reproduce
    (« référez-vous aux chiffres indiqués sur le côté droit des cartes pour savoir lesquelles »):
    the default is the project's (docs/RESISTANCE.md), the later edition's seven for 5-6 players,
    both Overheard Conversation (« de nouveaux moyens d'identifier les autres joueurs ») and a
    second No Confidence."""
    assert Counter(c.value for c in LATER_EDITION_SEVEN) == LATER_EDITION_SMALL_DECK
    ten = LATER_EDITION_SMALL_DECK + Counter({"overheard_conversation": 2, "no_confidence": 1})
    assert Counter(c.value for c in DEFAULT_SMALL_DECK) == ten
    state = GAME.new(plot_options(players), seed=1)
    assert Counter(GAME.options_json(state)["plot_deck"]) == ten
    assert Counter(state.plot.deck) == Counter(DEFAULT_SMALL_DECK)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "ten",
    [
        [SL, SL, CE, CE, NC, NC, ITS, TR, OC, OM],
        [NC, NC, NC, OC, OC, OU, EC, OM, OM, ITS],
        [*LATER_EDITION_SEVEN, OU, EC, ITS],
    ],
)
def test_the_host_chooses_which_ten_plot_cards_are_used(ten: list[PlotCard]) -> None:
    """The seed leaves the ten to the marks on the cards: any ten, as printed, may be chosen."""
    state = GAME.new(plot_options(6, plot_deck=[c.value for c in ten]), seed=1)
    assert plot_view(state)["deck"] == 10
    assert GAME.options_json(state)["plot_deck"] == [c.value for c in ten]
    assert Counter(state.plot.deck) == Counter(ten)  # type: ignore[union-attr]
    again = GAME.new(GAME.options_json(state), seed=1)
    assert again == state


@pytest.mark.parametrize("size", [0, 1, 7, 9, 11, 15])
def test_under_seven_players_a_plot_deck_of_other_than_ten_cards_is_refused(size: int) -> None:
    """Seed: « on n'utilise que 10 des 15 cartes Complot »: not the later edition's seven, not
    all fifteen."""
    cards = [c.value for c in FULL_DECK[:size]]
    with pytest.raises(IllegalAction) as caught:
        GAME.new(plot_options(5, plot_deck=cards), seed=1)
    assert (caught.value.code, caught.value.params) == (
        "plot_deck_size",
        {"size": 10, "given": size},
    )
    for lang in ("en", "fr"):
        assert Catalog(lang).explain(caught.value) != str(caught.value)
    assert "10 des 15 cartes Complot" in Catalog("fr").explain(caught.value)


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"players": 7, "plot": True, "plot_deck": ["open_up"]}, "plot_deck_below_seven"),
        ({"players": 5, "plot": True, "plot_deck": ["open_up"] * 2}, "too_many_plot_cards"),
        ({"players": 5, "plot": True, "plot_deck": ["open_up"] * 10}, "too_many_plot_cards"),
        ({"players": 5, "plot": True, "plot_deck": ["joker"]}, "unknown_plot_card"),
        ({"players": 5, "plot": True, "plot_deck": "open_up"}, "plot_cards_not_a_list"),
        ({"players": 5, "plot": True, "plot_deck": []}, "plot_deck_size"),
        ({"players": 5, "plot_deck": ["open_up"]}, "plot_option_without_plot"),
        ({"players": 5, "plot": "yes"}, "option_not_boolean"),
        ({"players": 5, "plot": True, "strong_leader": "whenever"}, "unknown_option_value"),
        ({"players": 5, "strong_leader": "before_draw"}, "plot_option_without_plot"),
    ],
)
def test_bad_plot_options_are_refused(options: dict[str, object], code: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new(options, seed=1)
    assert caught.value.code == code


def test_without_the_expansion_there_are_no_plot_cards() -> None:
    state = GAME.new({"players": 5}, seed=1)
    assert state.plot is None and GAME.public_view(state)["plot"] is None
    state, _ = play(state, EndNight())
    assert state.phase is Phase.PROPOSE
    assert refused(state, PassPlot(0)).code == "no_plot_in_this_game"


def test_the_deck_is_shuffled_from_the_seed() -> None:
    def deck(seed: int) -> tuple[PlotCard, ...]:
        plot = GAME.new(plot_options(8), seed=seed).plot
        assert plot is not None
        return plot.deck

    assert deck(3) == deck(3)
    assert len({deck(seed) for seed in range(10)}) > 1


@pytest.mark.parametrize(("players", "drawn"), [(5, 2), (6, 2), (7, 2), (8, 2), (9, 3), (10, 3)])
def test_the_commandant_draws_two_cards_or_three_at_nine_and_ten(players: int, drawn: int) -> None:
    """Seed: « le Commandant pioche des cartes Complot (2 dans une partie de 5 à 8 joueurs, 3 pour
    9 ou 10 joueurs [...]) »."""
    state = GAME.new(plot_options(players), seed=2)
    state, events = play(state, EndNight())
    assert state.phase is Phase.PLOT_HAND
    assert len(state.plot.drawn) == drawn  # type: ignore[union-attr]
    event = only(events, "plot_drawn")
    assert event.data["commander"] == 0 and event.data["count"] == drawn
    assert plot_view(state)["drawn"] == event.data["cards"]  # drawn cards are face up
    assert plot_view(state)["deck"] == (15 if players >= 7 else 10) - drawn


def hand_out(state: ResistanceState) -> tuple[ResistanceState, list[Event]]:
    """The Commandant hands each card drawn to the next seat on their left that is not theirs;
    an immediate card is played at once (its first choice)."""
    events: list[Event] = []
    to = state.commander
    while state.phase in (Phase.PLOT_HAND, Phase.PLOT_IMMEDIATE):
        if state.phase is Phase.PLOT_HAND:
            to = (to + 1) % state.players
            if to == state.commander:
                to = (to + 1) % state.players
            state, more = play(state, HandPlot(state.commander, 0, to))
        else:
            assert state.plot is not None and state.plot.pending is not None
            state, more = play(state, next(GAME.legal_actions(state, state.plot.pending.actor)))
        events += more
    return state, events


@pytest.mark.parametrize("players", range(5, 11))
def test_the_deck_lasts_the_five_rounds_so_no_discard_is_shuffled_back(players: int) -> None:
    """Seed: « N'oubliez pas qu'il n'y a que 5 manches dans une partie. » Ten cards at two a round
    (5-6 players), fifteen at two (7-8) or three (9-10): five rounds never empty the deck, and the
    seed has no reshuffle. A game of five rounds draws its full count each round."""
    state = GAME.new(plot_options(players), seed=players)
    state, events = play(state, EndNight())
    for fails in (True, False, True, False, True):
        for step in (pass_all, hand_out, approve, pass_all):
            state, more = step(state)
            events += more
        cards = [Card.FAIL if fails and s == state.squad[0] else Card.SUCCESS for s in state.squad]
        state, more = play(
            state, *(PlayMissionCard(s, c) for s, c in zip(state.squad, cards, strict=True))
        )
        events += more
    assert state.outcome is not None and len(state.results) == 5
    per_round = 3 if players >= 9 else 2
    assert [e.data["count"] for e in events if e.kind == "plot_drawn"] == [per_round] * 5
    size = 15 if players >= 7 else 10
    assert plot_view(state)["deck"] == size - 5 * per_round
    assert len(state.plot.drawn_log) == 5 * per_round  # type: ignore[union-attr]


# -- handing out ----------------------------------------------------------------------------------


def test_the_commandant_hands_each_card_to_another_player() -> None:
    state = plot_game(5, draws=[SL, CE])
    error = refused(state, HandPlot(0, 0, 0))
    assert (error.code, error.params) == ("plot_to_self", {"seat": 0})
    assert refused(state, HandPlot(1, 0, 2)).code == "not_commander"
    assert refused(state, HandPlot(0, 2, 1)).code == "no_such_drawn_card"
    assert refused(state, HandPlot(0, 0, 5)).code == "no_such_seat"
    state, events = play(state, HandPlot(0, 1, 3))
    assert only(events, "plot_handed").data == {
        "commander": 0,
        "seat": 3,
        "card": "keeping_a_close_eye",
    }
    assert plot_view(state)["drawn"] == ["strong_leader"]
    assert state.phase is Phase.PLOT_HAND


def test_a_player_may_receive_several_cards_which_lie_face_up() -> None:
    state = plot_game(5, draws=[SL, CE])
    state, _ = hand(state, 2, 2)
    assert plot_view(state)["held"] == [[], [], ["strong_leader", "keeping_a_close_eye"], [], []]


def test_the_squad_is_proposed_once_every_card_is_handed() -> None:
    state = plot_game(5, draws=[SL, CE])
    assert refused(state, ProposeSquad(0, (0, 1))).code == "no_proposal_now"
    state, _ = hand(state, 1)
    assert refused(state, ProposeSquad(0, (0, 1))).code == "no_proposal_now"
    state, events = hand(state, 2)
    assert state.phase is Phase.PROPOSE
    assert kinds(events)[-1] == "commander"


def test_no_card_is_drawn_again_after_a_rejection_in_the_same_round() -> None:
    state = plot_game(5, draws=[CE, CE])
    state, _ = hand(state, 1, 2)
    state, events = reject(state)
    assert "plot_drawn" not in kinds(events)
    assert state.phase is Phase.PROPOSE and state.commander == 1


def test_each_new_round_begins_with_a_draw_by_its_commandant() -> None:
    state = plot_game(5, holding=[OM, OM, NC, SL], draws=[OM, OM, NC, SL])
    state, _ = hand(state, 1, 2)
    state, _ = approve(state)
    state, events = succeed(state)
    assert only(events, "plot_drawn").data["commander"] == 1
    assert only(events, "plot_drawn").data["cards"] == ["no_confidence", "strong_leader"]


def test_handing_is_refused_outside_the_hand_out() -> None:
    state = plot_game(5, draws=[CE, CE])
    state, _ = hand(state, 1, 2)
    assert refused(state, HandPlot(0, 0, 1)).code == "no_handing_now"


# -- immediate cards ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("receiver", "side", "seen"), [(2, Neighbour.LEFT, 3), (2, Neighbour.RIGHT, 1), (4, "left", 0)]
)
def test_overheard_conversation_looks_at_a_neighbours_identity(
    receiver: int, side: Neighbour | str, seen: int
) -> None:
    neighbour = Neighbour(side)
    state = plot_game(5, holding=[OC, OU], draws=[OC, OU])
    state, events = play(state, HandPlot(0, 0, receiver))
    assert state.phase is Phase.PLOT_IMMEDIATE
    assert only(events, "plot_immediate").data == {
        "seat": receiver,
        "card": "overheard_conversation",
    }
    assert plot_view(state)["pending"] == {
        "card": "overheard_conversation",
        "seat": receiver,
        "actor": receiver,
    }
    state, events = play(state, Overhear(receiver, neighbour))
    assert only(events, "identity_shown").data == {
        "seat": seen,
        "viewer": receiver,
        "via": "overheard_conversation",
        "digital": False,
    }
    assert all(e.audience.kind is AudienceKind.EVERYONE for e in events)  # physical: by hand
    assert plot_view(state)["discards"] == ["overheard_conversation"]
    assert plot_view(state)["held"][receiver] == []
    assert state.phase is Phase.PLOT_HAND


def test_an_immediate_card_is_played_before_the_next_is_handed() -> None:
    state = plot_game(5, holding=[OC, OU], draws=[OC, OU])
    state, _ = play(state, HandPlot(0, 0, 2))
    assert refused(state, HandPlot(0, 0, 3)).code == "no_handing_now"
    error = refused(state, Overhear(3, Neighbour.LEFT))
    assert (error.code, error.params) == ("not_plot_player", {"seat": 3, "turn": 2})
    assert refused(state, OpenUp(2, 3)).code == "play_pending_card_first"
    assert refused(state, PassPlot(2)).code == "no_window_now"


def test_open_up_shows_the_receivers_identity_to_a_player_of_their_choice() -> None:
    state = plot_game(5, holding=[OU, OC], draws=[OU, OC])
    state, _ = play(state, HandPlot(0, 0, 3))
    assert refused(state, OpenUp(3, 3)).code == "show_to_self"
    assert refused(state, Overhear(3, Neighbour.LEFT)).code == "play_pending_card_first"
    state, events = play(state, OpenUp(3, 0))
    assert only(events, "identity_shown").data == {
        "seat": 3,
        "viewer": 0,
        "via": "open_up",
        "digital": False,
    }


def test_establish_confidence_the_commandant_shows_their_identity_to_a_player_they_choose() -> None:
    state = plot_game(5, holding=[EC, OU], draws=[EC, OU], first_commander=1)
    state, events = play(state, HandPlot(1, 0, 3))
    assert only(events, "plot_immediate").data == {"seat": 1, "card": "establish_confidence"}
    assert refused(state, EstablishConfidence(3, 4)).code == "not_plot_player"
    assert refused(state, EstablishConfidence(1, 1)).code == "show_to_self"
    state, events = play(state, EstablishConfidence(1, 4))
    assert only(events, "identity_shown").data == {
        "seat": 1,
        "viewer": 4,
        "via": "establish_confidence",
        "digital": False,
    }


def test_take_responsibility_takes_a_plot_card_from_another_player() -> None:
    state = plot_game(5, holding=[NC, TR], draws=[NC, TR])
    state, _ = hand(state, 1)
    state, _ = hand(state, 2)
    assert state.phase is Phase.PLOT_IMMEDIATE
    assert refused(state, TakeResponsibility(2, 2, NC)).code == "take_from_self"
    assert refused(state, TakeResponsibility(2, 3, NC)).code == "plot_card_not_held"
    assert refused(state, TakeResponsibility(2, 1, SL)).code == "plot_card_not_held"
    state, events = play(state, TakeResponsibility(2, 1, NC))
    assert only(events, "responsibility_taken").data == {
        "seat": 2,
        "from_seat": 1,
        "card": "no_confidence",
    }
    assert plot_view(state)["held"] == [[], [], ["no_confidence"], [], []]
    assert plot_view(state)["discards"] == ["take_responsibility"]


def test_take_responsibility_with_no_card_to_take_is_discarded() -> None:
    state = plot_game(5, holding=[NC, TR], draws=[TR, NC])
    state, events = hand(state, 2)
    assert only(events, "responsibility_void").data == {"seat": 2}
    assert state.phase is Phase.PLOT_HAND


def test_take_responsibility_ignores_the_receivers_own_cards() -> None:
    state = plot_game(5, holding=[NC, TR], draws=[NC, TR])
    state, events = hand(state, 2, 2)
    assert "responsibility_void" in kinds(events)
    assert plot_view(state)["held"][2] == ["no_confidence"]


# -- one-use cards: the moments -------------------------------------------------------------------


def test_strong_leader_by_default_waits_for_the_commandants_next_first_act() -> None:
    """The seed names no plot card (RULES.md §1: "before a squad is proposed"). The published
    timing, the default (option ``strong_leader``: ``"before_draw"``): before the Commandant does
    anything, so a Strong Leader handed after the draw waits for a rejection; it then takes the
    command before the new squad is named."""
    state = plot_game(5, draws=[SL, CE])
    assert state.options.strong_leader is StrongLeaderTiming.BEFORE_DRAW
    state, events = hand(state, 3, 1)
    assert state.phase is Phase.PROPOSE  # a Strong Leader handed this round waits
    state, events = reject(state)
    assert state.phase is Phase.PLOT_WINDOW and state.commander == 1
    assert only(events, "plot_turn").data == {
        "seat": 3,
        "moment": "before_proposal",
        "cards": ["strong_leader"],
    }
    assert refused(state, ProposeSquad(1, (1, 2, 3))).code == "no_proposal_now"
    state, events = play(state, PlayPlot(3, SL))
    assert kinds(events) == ["strong_leader", "commander"]
    assert state.commander == 3 and state.phase is Phase.PROPOSE and state.rejections == 1
    assert plot_view(state)["discards"] == ["strong_leader"]
    state, _ = reject(state)
    assert state.commander == 4  # the command goes on to the left of the Strong Leader


def test_strong_leader_by_default_at_a_rounds_start_is_played_before_the_draw() -> None:
    """Published: before the Commandant's first act of a round, the draw; the new Commandant
    draws and hands out the round's cards."""
    state = plot_game(5, draws=[SL, OM, CE, CE])
    state, _ = hand(state, 3, 1)
    state, _ = approve(state)
    state, events = succeed(state)
    assert state.phase is Phase.PLOT_WINDOW and turn(state) == 3
    assert "plot_drawn" not in kinds(events)
    state, events = play(state, PlayPlot(3, SL))
    assert kinds(events) == ["strong_leader", "plot_drawn"]
    assert only(events, "plot_drawn").data["commander"] == 3
    assert state.phase is Phase.PLOT_HAND and state.commander == 3


def test_strong_leader_before_the_proposal_takes_command_before_the_rounds_first_squad() -> None:
    """Option ``strong_leader: "before_proposal"`` (RULES.md's "before a squad is proposed", read
    to the letter): a Strong Leader just handed may be played before the round's first squad is
    named; the new Commandant names it, with the cards already drawn and handed."""
    state = plot_game(5, draws=[SL, CE], strong_leader="before_proposal")
    state, events = hand(state, 3, 1)
    assert state.phase is Phase.PLOT_WINDOW and turn(state) == 3
    assert only(events, "plot_turn").data == {
        "seat": 3,
        "moment": "before_proposal",
        "cards": ["strong_leader"],
    }
    assert refused(state, ProposeSquad(0, (0, 1))).code == "no_proposal_now"
    state, events = play(state, PlayPlot(3, SL))
    assert kinds(events) == ["strong_leader", "commander"]
    assert state.commander == 3 and state.phase is Phase.PROPOSE and state.rejections == 0
    assert plot_view(state)["drawn"] == [] and plot_view(state)["deck"] == 8  # no new draw
    state, _ = reject(state)
    assert state.commander == 4  # the command goes on to the left of the Strong Leader


def test_strong_leader_before_the_proposal_leaves_the_draw_to_the_rounds_commandant() -> None:
    """With ``"before_proposal"`` no moment stands before the draw: a Strong Leader held from an
    earlier round is played after the hand-out, before the squad is named."""
    state = plot_game(5, draws=[SL, OM, CE, CE], strong_leader="before_proposal")
    state, _ = hand(state, 3, 1)
    state, _ = pass_all(state)  # seat 3 keeps Strong Leader for a later round
    state, _ = approve(state)
    state, events = succeed(state)
    assert state.phase is Phase.PLOT_HAND and state.commander == 1
    assert only(events, "plot_drawn").data["commander"] == 1
    assert "plot_turn" not in kinds(events)
    state, events = hand(state, 2, 4)
    assert state.phase is Phase.PLOT_WINDOW and turn(state) == 3
    state, events = play(state, PlayPlot(3, SL))
    assert state.commander == 3 and state.phase is Phase.PROPOSE


def test_the_strong_leader_timing_is_an_option_of_le_plan() -> None:
    for timing in StrongLeaderTiming:
        state = GAME.new(plot_options(5, strong_leader=timing.value), seed=1)
        assert GAME.options_json(state)["strong_leader"] == timing.value
        again = GAME.new(GAME.options_json(state), seed=1)
        assert GAME.options_json(again) == GAME.options_json(state) and again.plot == state.plot
    assert "strong_leader" not in GAME.options_json(GAME.new({"players": 5}, seed=1))


def test_the_commandant_cannot_play_strong_leader() -> None:
    state = plot_game(5, draws=[SL, OM, CE, CE])
    state, _ = hand(state, 1, 2)  # seat 1 will command the next round
    state, _ = approve(state)
    state, events = succeed(state)
    assert "plot_turn" not in kinds(events)
    assert state.phase is Phase.PLOT_HAND and state.commander == 1


def test_no_confidence_cancels_an_approved_squad_as_a_rejection() -> None:
    state = plot_game(5, draws=[NC, OM])
    state, _ = hand(state, 2, 4)
    state, events = approve(state)
    assert state.phase is Phase.PLOT_WINDOW
    assert "mission_begins" not in kinds(events)
    assert only(events, "plot_turn").data == {
        "seat": 2,
        "moment": "after_approval",
        "cards": ["no_confidence"],
    }
    assert refused(state, PlayMissionCard(0, Card.SUCCESS)).code == "no_mission_now"
    state, events = play(state, PlayPlot(2, NC))
    assert kinds(events) == ["no_confidence", "commander"]
    assert state.phase is Phase.PROPOSE and state.commander == 1 and state.rejections == 1
    assert only(events, "commander").data["rejections"] == 1
    assert state.results == () and state.squad == ()
    assert GAME.public_view(state)["last_vote"]["approved"] is True


def test_no_confidence_as_the_fifth_rejection_gives_the_cylons_the_game() -> None:
    state = plot_game(5, holding=[NC, NC, NC], draws=[NC, NC])
    state, _ = hand(state, 2, 3)
    for _ in range(4):
        state, _ = reject(state)
    assert state.rejections == 4 and state.commander == 4
    state, _ = approve(state)
    assert turn(state) == 2  # clockwise from Commandant 4: 0, 1, then 2
    state, events = play(state, PlayPlot(2, NC))
    assert state.phase is Phase.OVER
    assert state.outcome is not None and state.outcome.reason is Termination.FIVE_REJECTIONS
    assert kinds(events) == ["no_confidence", "game_over"]


def test_keeping_a_close_eye_shows_one_members_final_card_to_the_watcher_alone() -> None:
    state = plot_game(5, draws=[CE, CE])
    state, _ = hand(state, 3, 4)
    state, _ = approve(state, (0, 1))
    assert turn(state) == 3
    assert refused(state, PlayPlot(4, CE, 1)).code == "not_your_plot_turn"
    assert refused(state, PlayPlot(3, CE)).code == "plot_needs_target"
    assert refused(state, PlayPlot(3, CE, 2)).code == "not_on_squad"
    state, events = play(state, PlayPlot(3, CE, 0))
    assert only(events, "close_eye").data == {"seat": 3, "target": 0}
    assert turn(state) == 4
    assert refused(state, PlayPlot(4, CE, 0)).code == "already_watched"
    state, events = play(state, PlayPlot(4, CE, 1))
    assert state.phase is Phase.MISSION and kinds(events)[-1] == "mission_begins"
    assert plot_view(state)["watches"] == [{"seat": 3, "member": 0}, {"seat": 4, "member": 1}]
    state, events = play(
        state,
        PlayMissionCard(0, Card.SUCCESS),
        PlayMissionCard(0, Card.FAIL),  # changed before the last card: the final one is seen
        PlayMissionCard(1, Card.SUCCESS),
    )
    seen = [e for e in events if e.kind == "mission_card_seen"]
    assert [(e.audience.seat, dict(e.data)) for e in seen] == [
        (3, {"seat": 0, "mission": 1, "card": "fail"}),
        (4, {"seat": 1, "mission": 1, "card": "success"}),
    ]
    assert all(e.audience.kind is AudienceKind.SEAT for e in seen)
    learned = {
        "seat": 0,
        "via": "keeping_a_close_eye",
        "mission": 1,
        "card": "fail",
    }
    assert GAME.private_view(state, 3)["learned"] == [learned]
    assert GAME.private_view(state, 0)["learned"] == []
    assert "learned" not in GAME.public_view(state)
    assert "fail" not in str(GAME.public_view(state)["plot"])


def test_keeping_a_close_eye_on_oneself_is_refused() -> None:
    state = plot_game(5, draws=[CE, OM])
    state, _ = hand(state, 1, 2)
    state, _ = approve(state, (0, 1))
    error = refused(state, PlayPlot(1, CE, 1))
    assert (error.code, error.params) == ("watch_self", {"seat": 1})


def test_in_the_spotlight_one_member_plays_face_up() -> None:
    deck = [ITS, OM, CE]
    state = plot_game(5, holding=deck, draws=[ITS, OM])
    state, _ = hand(state, 2, 4)
    state, _ = propose(state, (0, 1))
    state, _ = vote(state, yes=range(5))
    assert refused(state, PlayPlot(2, ITS, 3)).code == "not_on_squad"
    state, events = play(state, PlayPlot(2, ITS, 1))
    assert only(events, "spotlight").data == {"seat": 2, "target": 1}
    assert plot_view(state)["spotlight"] == {"seat": 1, "card": None}
    state, events = play(state, PlayMissionCard(1, Card.FAIL))
    assert only(events, "spotlight_card").data == {"seat": 1, "card": "fail"}
    assert only(events, "spotlight_card").audience.kind is AudienceKind.EVERYONE
    assert plot_view(state)["spotlight"] == {"seat": 1, "card": "fail"}
    assert refused(state, PlayMissionCard(1, Card.SUCCESS)).code == "spotlight_card_down"
    # the other member's card stays secret
    a, events_a = play(state, PlayMissionCard(0, Card.SUCCESS))
    b, events_b = play(state, PlayMissionCard(0, Card.FAIL))
    assert public(events_a)[:1] == public(events_b)[:1]  # card_in, then the counts
    assert a.results[-1].fails == 1 and b.results[-1].fails == 2


def test_one_use_cards_cannot_be_played_out_of_their_moment() -> None:
    state = plot_game(5, draws=[SL, NC])
    state, _ = hand(state, 3, 3)
    state, _ = reject(state)
    assert turn(state) == 3
    assert plot_view(state)["window"] == {
        "moment": "before_proposal",
        "turn": 3,
        "cards": ["strong_leader"],
    }
    assert refused(state, PlayPlot(3, NC)).code == "plot_card_not_now"
    assert refused(state, PlayPlot(3, CE, 0)).code == "plot_card_not_held"
    assert refused(state, PlayPlot(3, SL, 0)).code == "plot_takes_no_target"


@pytest.mark.parametrize(("commander", "order"), [(0, [2, 5]), (3, [5, 2]), (6, [2, 5])])
def test_plays_at_one_moment_go_clockwise_from_the_commandant(
    commander: int, order: list[int]
) -> None:
    state = plot_game(7, draws=[NC, NC], first_commander=commander)
    state, _ = hand(state, 5, 2)
    state, events = approve(state)
    turns = [only(events, "plot_turn").data["seat"]]
    state, events = play(state, PassPlot(turns[0]))
    turns.append(only(events, "plot_turn").data["seat"])
    assert turns == order
    state, events = play(state, PassPlot(turns[1]))
    assert state.phase is Phase.MISSION


def test_a_player_keeps_the_turn_while_they_can_play_another_card() -> None:
    state = plot_game(5, holding=[CE, ITS], draws=[CE, ITS])
    state, _ = hand(state, 3, 3)
    state, _ = approve(state, (0, 1))
    state, events = play(state, PlayPlot(3, CE, 0))
    assert only(events, "plot_turn").data == {
        "seat": 3,
        "moment": "after_approval",
        "cards": ["in_the_spotlight"],
    }
    state, events = play(state, PlayPlot(3, ITS, 0))
    assert state.phase is Phase.MISSION


def test_a_player_who_passes_plays_no_plot_card_until_the_round_ends() -> None:
    state = plot_game(5, draws=[SL, NC, CE, CE])
    state, _ = hand(state, 2, 2)
    state, _ = reject(state)  # round 1 goes on under Commandant 1
    state, events = play(state, PassPlot(2))
    assert kinds(events) == ["plot_passed", "commander"]
    assert plot_view(state)["passed"] == [2]
    state, events = approve(state)  # No Confidence would be playable: not for seat 2 now
    assert state.phase is Phase.MISSION and "plot_turn" not in kinds(events)
    state, _ = succeed(state)
    assert plot_view(state)["passed"] == []  # a new round: seat 2, now Commandant, may play
    state, _ = hand(state, 0, 1)
    state, _ = approve(state)
    assert turn(state) == 2 and plot_view(state)["window"]["cards"] == ["no_confidence"]


def test_passing_at_one_moment_bars_the_next_moment_of_the_same_round() -> None:
    state = plot_game(5, draws=[SL, NC])
    state, _ = hand(state, 3, 4)
    state, _ = reject(state)
    state, _ = play(state, PassPlot(3))
    state, _ = approve(state)
    assert turn(state) == 4  # seat 4 has not passed
    assert refused(state, PassPlot(3)).code == "not_your_plot_turn"


# -- Opinion Maker --------------------------------------------------------------------------------


def test_an_opinion_maker_votes_first_and_face_up() -> None:
    state = plot_game(5, draws=[OM, CE])
    state, _ = hand(state, 3, 1)
    state, events = propose(state)
    assert only(events, "opinion_first").data == {"seats": [3]}
    error = refused(state, CastVote(0, True))
    assert (error.code, error.params) == ("opinion_makers_first", {"seat": 0})
    state, events = play(state, CastVote(3, False))
    assert only(events, "opinion_votes").data == {"votes": [{"seat": 3, "approve": False}]}
    assert only(events, "opinion_votes").audience.kind is AudienceKind.EVERYONE
    assert plot_view(state)["opinion_votes"] == [{"seat": 3, "approve": False}]
    assert refused(state, CastVote(3, True)).code == "opinion_vote_open"
    state, events = play(state, *(CastVote(s, True) for s in (0, 1, 2, 4)))
    assert only(events, "vote_result").data["approvals"] == [True, True, True, False, True]


def test_two_opinion_makers_reveal_their_votes_together() -> None:
    state = plot_game(5, holding=[OM, OM], draws=[OM, OM])
    state, _ = hand(state, 1, 3)
    state, _ = propose(state)
    voted, events = play(state, CastVote(3, True))
    other, _ = play(state, CastVote(3, False))
    assert "opinion_votes" not in kinds(events)
    assert GAME.public_view(voted) == GAME.public_view(other)
    assert refused(voted, CastVote(0, True)).code == "opinion_makers_first"
    voted, _ = play(voted, CastVote(3, False))  # not yet face up: it may still change
    voted, events = play(voted, CastVote(1, True))
    assert only(events, "opinion_votes").data == {
        "votes": [{"seat": 1, "approve": True}, {"seat": 3, "approve": False}]
    }


def test_opinion_maker_is_permanent() -> None:
    state = plot_game(5, draws=[OM, CE, NC, SL])
    state, _ = hand(state, 3, 1)
    state, _ = approve(state)
    state, _ = pass_all(state)
    state, _ = succeed(state)
    state, _ = hand(state, 2, 4)
    state, events = propose(state)
    assert only(events, "opinion_first").data == {"seats": [3]}
    assert plot_view(state)["held"][3] == ["opinion_maker"]
    assert "opinion_maker" not in plot_view(state)["discards"]


# -- narration ------------------------------------------------------------------------------------

SILENT = {"vote_in", "card_in", "night_over"}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_public_plot_event_is_spoken_and_no_private_one(lang: str) -> None:
    catalog = Catalog(lang, ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"])
    spoken: set[str] = set()
    for seed in range(60):
        for event in random_game(6 + seed % 5, seed, digital=seed % 2 == 0)[1]:
            said = narration.lines(catalog, event)
            if event.audience.kind is not AudienceKind.EVERYONE:
                assert said == [], event
            elif event.kind not in SILENT:
                assert said and all(line.strip() for line in said), event
                assert not any("{" in line for line in said), said
                spoken.add(event.kind)
    assert {
        "plot_drawn",
        "plot_handed",
        "plot_immediate",
        "identity_shown",
        "plot_turn",
        "plot_passed",
        "strong_leader",
        "no_confidence",
        "close_eye",
        "spotlight",
        "spotlight_card",
        "opinion_first",
        "opinion_votes",
        "responsibility_taken",
    } <= spoken


def test_narration_names_the_players_and_the_cards() -> None:
    catalog = Catalog("en", ["Ada", "Bea", "Cy", "Dan", "Eve"])
    state = plot_game(5, holding=[OC, NC], draws=[OC, NC])
    state, events = hand(state, 2)
    state, more = play(state, Overhear(2, Neighbour.LEFT))
    said = [line for e in events + more for line in narration.lines(catalog, e)]
    assert said == [
        "Ada hands Overheard Conversation to Cy.",
        "Cy, look at a neighbour's identity card: choose left or right.",
        "Dan, show your identity card to Cy, and to no one else.",
    ]


# -- records --------------------------------------------------------------------------------------


def test_every_plot_action_round_trips_through_json() -> None:
    actions: list[Action] = [
        HandPlot(0, 1, 3),
        Overhear(2, Neighbour.LEFT),
        Overhear(2, Neighbour.RIGHT),
        OpenUp(1, 4),
        EstablishConfidence(0, 2),
        TakeResponsibility(3, 1, PlotCard.OPINION_MAKER),
        PlayPlot(2, SL),
        PlayPlot(2, CE, 4),
        PassPlot(3),
    ]
    for action in actions:
        data = action.to_json()
        assert action_from_json(GAME.actions, data) == action
    for seed in range(20):
        for action in random_game(5 + seed % 6, seed)[2]:
            assert action_from_json(GAME.actions, action.to_json()) == action


def comparable(view: dict[str, object]) -> dict[str, object]:
    """A public view less its options (the record's are public ones) and the seats whose vote or
    card is in (the record leaves out the ballots of a vote, and cards of a mission, still open)."""
    return {k: v for k, v in view.items() if k not in ("options", "voted", "played")}


@pytest.mark.parametrize("players", [5, 7, 10])
def test_the_public_record_replays_to_the_same_public_view_at_every_step(players: int) -> None:
    for seed in range(3):
        states, _, actions, options = random_game(players, seed * 10 + players, digital=True)
        for stop in range(0, len(actions) + 1, 3):
            done = actions[:stop]
            header = public_setup(GAME, done, options, seed * 10 + players)
            replayed = GAME.new(header, NO_SEED)
            for action in public_record(GAME, done, options, seed * 10 + players):
                replayed, _ = GAME.apply(replayed, action)
            assert comparable(GAME.public_view(replayed)) == comparable(
                GAME.public_view(states[stop])
            ), f"step {stop} of seed {seed}"


def test_the_public_setup_hides_the_identities_and_names_the_draws() -> None:
    states, _, actions, options = random_game(8, 4, digital=True)
    header = public_setup(GAME, actions, options, 4)
    assert header["identities"] == "physical"
    plot = states[-1].plot
    assert plot is not None
    assert header["plot_draws"] == [c.value for c in plot.drawn_log]
    plain = {"players": 5, "targeting": False}
    assert public_setup(GAME, [], plain, 9) == plain  # the base game keeps its own


def test_the_public_record_keeps_no_private_information() -> None:
    for seed in range(10):
        states, _, actions, options = random_game(6 + seed % 5, seed, digital=True)
        record = public_record(GAME, actions, options, seed)
        text = str([a.to_json() for a in record])
        assert "identity" not in text and "learned" not in text
        # every resolved mission's cards are re-dealt: successes first, but for the face-up one
        cards = [a for a in record if isinstance(a, PlayMissionCard)]
        assert len(cards) <= sum(len(r.squad) for r in states[-1].results) + 1


def test_a_game_without_night_opens_with_the_first_draw() -> None:
    state = GAME.new(plot_options(5, draws=[SL, CE], isolated_cylons=True), seed=1)
    assert state.phase is Phase.PLOT_HAND
    assert [e.data for e in GAME.opening_events(state)] == [
        {"commander": 0, "cards": ["strong_leader", "keeping_a_close_eye"], "count": 2}
    ]
