"""Oraklos: the rules of RULES.md §3, one clause per test (standard, Junior, Antipodes).

Claims are judged on small layouts built by hand: four dice on the corners of a square, listed
clockwise on screen (image coordinates, y down), the rest of the cup's dice in a row far away.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence

import pytest

from companion.game import (
    AudienceKind,
    Event,
    IllegalAction,
    MalformedAction,
    action_from_json,
)
from companion.games.oraklos.deck import ANTIPODES_CARDS, WISH_CARDS, canonical, mirror
from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.engine import Oraklos, retrieval_order
from companion.games.oraklos.state import (
    ACTIONS,
    AllFound,
    Claim,
    EndSearch,
    FillCup,
    Hesitate,
    NameCard,
    OraklosState,
    Phase,
    Pool,
    ScoreLine,
    TakeBack,
    TakeMarker,
    Termination,
    ThrowDice,
    Ties,
)
from companion.games.titles import game_for
from companion.record import public_record
from tests import engine_steps as steps

GAME = Oraklos()
play = functools.partial(steps.play, GAME)
refused = functools.partial(steps.refused, GAME)
kinds = steps.kinds
only = steps.only
SEED = 11
R, Y, B, K = Color.RED, Color.YELLOW, Color.BLUE, Color.BLACK

# The table at the end of the rulebook, copied rather than imported, so that it checks the code.
PRINTED_START_DICE = {2: 16, 3: 12, 4: 12, 5: 8}
PRINTED_PER_COLOR = {2: 4, 3: 3, 4: 3, 5: 2}
PRINTED_CUP = {2: 6, 3: 5, 4: 4, 5: 3}

SIZE = 16.0
# Clockwise on screen with y down: top-left, top-right, bottom-right, bottom-left.
SQUARE = ((0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0))
RYBK = canonical("RYBK")  # red, yellow, blue, black clockwise: "BKRY"


# -- helpers --------------------------------------------------------------------------------------


def new_game(players: int = 2, mode: str = "standard", **more: object) -> OraklosState:
    return GAME.new({"players": players, "mode": mode, **more}, seed=SEED)


def square(colors: Sequence[Color], holes: Sequence[bool] = (False,) * 4) -> list[Die]:
    """Four dice on the square's corners, clockwise on screen, in the colours given."""
    return [
        Die(x, y, SIZE, color, hole)
        for (x, y), color, hole in zip(SQUARE, colors, holes, strict=True)
    ]


def layout(cup: Pool, first: Sequence[Die] = ()) -> list[Die]:
    """``first``, then the rest of the cup's dice in a tight column far below the square.

    In the column only neighbours see each other, and only its top die sees the square (through
    the gap between the square's two lower dice): it can make a prediction with three dice of the
    square, never with fewer.
    """
    rest = cup - Pool.of(d.color for d in first)
    colors = [c for c, n in rest.items() for _ in range(n)]
    column = (Die(50.0, 1000.0 + (SIZE + 1) * i, SIZE, c) for i, c in enumerate(colors))
    return [*first, *column]


def in_a_line(cup: Pool) -> list[Die]:
    """All the dice in one straight row: four dice in line are never a prediction."""
    colors = [c for c, n in cup.items() for _ in range(n)]
    return [Die(60.0 * i, 0.0, SIZE, c) for i, c in enumerate(colors)]


def give(state: OraklosState, seat: int, card: str) -> OraklosState:
    """``card`` into ``seat``'s hand, swapped with its first card wherever it was (no card is
    made or lost)."""
    card = canonical(card)
    hand = state.hands[seat]
    if card in hand:
        return state
    old = hand[0]
    hands = [list(h) for h in state.hands]
    deck = list(state.deck)
    for other in hands:
        if card in other:
            other[other.index(card)] = old
            break
    else:
        deck[deck.index(card)] = old
    hands[seat][0] = card
    return dataclasses.replace(state, hands=tuple(tuple(h) for h in hands), deck=tuple(deck))


def share(state: OraklosState, card: str) -> OraklosState:
    """Antipodes: ``card`` among the shared cards, swapped with the first one from the deck."""
    card = canonical(card)
    if card in state.shared:
        return state
    deck = list(state.deck)
    shared = list(state.shared)
    deck[deck.index(card)] = shared[0]
    shared[0] = card
    return dataclasses.replace(state, shared=tuple(shared), deck=tuple(deck))


def fill_all(state: OraklosState) -> OraklosState:
    """Every seat puts its first legal choice into the cup."""
    while state.phase is Phase.FILL:
        assert state.filler is not None
        state, _ = GAME.apply(state, next(GAME.legal_actions(state, state.filler)))
    return state


def thrown(state: OraklosState, dice: Sequence[Die]) -> OraklosState:
    state = fill_all(state)
    state, _ = GAME.apply(state, ThrowDice.of(dice))
    return state


def with_square(
    state: OraklosState, colors: Sequence[Color] = (R, Y, B, K), holes: Sequence[bool] = ()
) -> OraklosState:
    """Fill the cup and throw: dice 0-3 on the square in ``colors``, the rest far away."""
    state = fill_all(state)
    return thrown(state, layout(state.cup, square(colors, holes or (False,) * 4)))


def with_score(state: OraklosState, seat: int, points: int) -> OraklosState:
    """``seat`` starts with ``points`` (won in an earlier round, kept in the ledger)."""
    line = ScoreLine(0, seat, points, "claim", "RRRR", 3)
    scores = tuple(s + points if i == seat else s for i, s in enumerate(state.scores))
    return dataclasses.replace(state, scores=scores, ledger=(*state.ledger, line))


def retrieve_all(state: OraklosState) -> tuple[OraklosState, list[Event]]:
    events: list[Event] = []
    while state.phase is Phase.RETRIEVE:
        state, more = GAME.apply(state, next(GAME.legal_actions(state, state.retriever)))
        events.extend(more)
    return state, events


# -- setting up -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_dice_per_player_count(players: int) -> None:
    state = new_game(players)
    for seat in range(players):
        supply = GAME.private_view(state, seat)["my_supply"]
        assert sum(supply.values()) == PRINTED_START_DICE[players]
        assert set(supply.values()) == {PRINTED_PER_COLOR[players]}
    assert GAME.total_dice(state.options) == players * PRINTED_START_DICE[players] + 4


def test_cup_holds_one_die_of_each_colour_at_the_start() -> None:
    cup = GAME.public_view(new_game(3))["cup"]
    assert cup["dice"] == 4
    assert cup["base"] == {"red": 1, "yellow": 1, "blue": 1, "black": 1}


def test_options_are_checked() -> None:
    with pytest.raises(IllegalAction) as low:
        GAME.new({"players": 1}, SEED)
    assert (low.value.code, low.value.params["low"], low.value.params["high"]) == (
        "players_out_of_range",
        2,
        5,
    )
    assert GAME.new({"players": 5}, SEED).players == 5
    for bad, code in (
        ({"players": 6}, "players_out_of_range"),
        ({"players": True}, "players_out_of_range"),
        ({"players": 3, "mode": "expert"}, "unknown_mode"),
        ({"players": 3, "either_direction": "yes"}, "option_not_boolean"),
        ({"players": 3, "first_player": 3}, "no_such_seat"),
        ({"players": 3, "colour": "red"}, "unknown_option"),
        ({"players": 3, "fills": "secret"}, "unknown_option_value"),
        ({"players": 3, "deck": ["drawn"]}, "unknown_option_value"),
        ({"players": 3, "claims": None}, "unknown_option_value"),
        ({"players": 3, "ties": "replay"}, "unknown_option_value"),
    ):
        with pytest.raises(IllegalAction) as caught:
            GAME.new(bad, SEED)
        assert caught.value.code == code


def test_the_game_is_registered_and_its_options_round_trip() -> None:
    state = new_game(4, "junior", either_direction=True, first_player=2)
    assert game_for("oraklos") is not None
    again = GAME.new(GAME.options_json(state), SEED)
    assert again == state
    table = new_game(3, fills="unseen", deck="drawn", claims="card", ties="play_on")
    assert GAME.options_json(table) == {
        "players": 3,
        "mode": "standard",
        "either_direction": False,
        "first_player": 0,
        "fills": "unseen",
        "deck": "drawn",
        "claims": "card",
        "ties": "play_on",
    }
    assert GAME.new(GAME.options_json(table), SEED) == table


def test_a_tie_is_shared_unless_the_host_chooses_to_play_on() -> None:
    """The rulebook says nothing of a tie: option ``ties``, "shared" unless chosen."""
    assert GAME.options_json(new_game(2))["ties"] == "shared"
    assert new_game(2, ties="play_on").options.ties is Ties.PLAY_ON


def test_the_options_for_a_real_table_default_to_the_companion_doing_everything() -> None:
    options = GAME.options_json(new_game(2))
    assert (options["fills"], options["deck"], options["claims"]) == ("entered", "dealt", "shown")


def test_the_deck_is_shuffled_from_the_seed() -> None:
    one, two = GAME.new({"players": 2}, 1), GAME.new({"players": 2}, 2)
    assert GAME.new({"players": 2}, 1) == one
    assert one.hands != two.hands
    assert sorted((*one.deck, *(c for h in one.hands for c in h))) == sorted(WISH_CARDS)


# -- (1) the spies: wish cards ----------------------------------------------------------------


def test_each_player_draws_up_to_three_face_up_cards_from_the_first_player() -> None:
    state = new_game(3, first_player=1)
    deck = list(state.deck)
    assert [len(h) for h in state.hands] == [3, 3, 3]
    assert len(deck) == 70 - 9
    assert GAME.public_view(state)["hands"] == [list(h) for h in state.hands]
    # the top of the deck went to seat 1 first, then 2, then 0: replay the shuffle
    fresh = GAME.new({"players": 3, "first_player": 0}, SEED)
    order = [*fresh.hands[0], *fresh.hands[1], *fresh.hands[2]]
    assert [*state.hands[1], *state.hands[2], *state.hands[0]] == order
    dealt = only(GAME.opening_events(state), "cards_dealt")
    assert dealt.data["dealt"][1]["cards"] == list(state.hands[1])


def test_players_draw_back_up_to_three_after_claims() -> None:
    state = give(new_game(2), 0, RYBK)
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), EndSearch(), Claim(0, (0, 1, 2, 3)))
    state, events = retrieve_all(state)
    assert [len(h) for h in state.hands] == [3, 3]
    dealt = only(events, "cards_dealt")
    assert [len(d["cards"]) for d in dealt.data["dealt"]] == [1, 0]


# -- (2) the cup ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_player_puts_the_printed_number_of_dice_in_the_cup(players: int) -> None:
    state = new_game(players)
    k = PRINTED_CUP[players]
    too_few = refused(state, FillCup(0, red=k - 1))
    assert (too_few.code, too_few.params) == ("wrong_number_of_dice", {"given": k - 1, "needed": k})
    assert refused(state, FillCup(0, red=k + 1, blue=-1)).code == "negative_count"
    state = fill_all(state)
    assert state.phase is Phase.THROW
    assert state.cup.total == 4 + players * k
    assert GAME.public_view(state)["cup"]["dice"] == 4 + players * k


def test_the_cup_is_filled_clockwise_from_the_first_player() -> None:
    state = new_game(3, first_player=2)
    wrong = refused(state, FillCup(0, red=2, yellow=3))
    assert (wrong.code, wrong.params) == ("not_your_turn_to_fill", {"seat": 0, "turn": 2})
    order = []
    while state.phase is Phase.FILL:
        order.append(state.filler)
        state = fill_all_one(state)
    assert order == [2, 0, 1]


def fill_all_one(state: OraklosState) -> OraklosState:
    assert state.filler is not None
    state, _ = GAME.apply(state, next(GAME.legal_actions(state, state.filler)))
    return state


def test_players_put_only_their_own_dice_in_the_cup() -> None:
    state = new_game(5)  # two of each colour
    refusal = refused(state, FillCup(0, red=3))
    assert (refusal.code, refusal.params) == (
        "not_your_dice",
        {"seat": 0, "color": "red", "have": 2, "asked": 3},
    )
    state, _ = play(state, FillCup(0, red=2, black=1))
    assert state.supplies[0] == Pool(0, 2, 2, 1)


def test_what_a_player_puts_in_the_cup_is_secret_until_the_throw() -> None:
    state = new_game(2)
    one, events = play(state, FillCup(0, red=4, yellow=2))
    other, _ = play(state, FillCup(0, blue=3, black=3))
    assert GAME.public_view(one) == GAME.public_view(other)
    assert GAME.private_view(one, 1) == GAME.private_view(other, 1)
    assert GAME.private_view(one, 0)["my_cup"] == {"red": 4, "yellow": 2, "blue": 0, "black": 0}
    secret = only(events, "your_cup")
    assert secret.audience.kind is AudienceKind.SEAT and secret.audience.seat == 0
    told = [e for e in events if e.audience.kind is AudienceKind.EVERYONE]
    assert "red" not in repr([e.to_json() for e in told])
    assert GAME.public_view(one)["supplies"][0] == {"red": 4, "yellow": 4, "blue": 4, "black": 4}
    cup = GAME.public_view(one)["cup"]
    assert (cup["dice"], cup["filled"], cup["per_player"]) == (10, [0], 6)


def test_a_throw_that_does_not_match_the_cup_is_kept_and_shown() -> None:
    state = fill_all(new_game(2))
    dice = layout(state.cup)
    last = dice[-1].color
    other = R if last is not R else Y
    wrong = [*dice[:-1], dataclasses.replace(dice[-1], color=other)]
    misread, events = play(state, ThrowDice.of(wrong))
    assert misread.phase is Phase.SEARCH and misread.table == tuple(wrong)
    differences = GAME.public_view(misread)["mismatch"]
    assert {(d["color"], d["seen"] - d["expected"]) for d in differences} == {
        (last.value, -1),
        (other.value, 1),
    }
    assert all(d["bound"] == "exactly" for d in differences)
    assert only(events, "dice_thrown").data["mismatch"] == differences
    assert misread.on_table == state.cup  # the cup's dice are on the table, whatever was seen
    state, events = play(state, ThrowDice.of(dice))
    assert state.phase is Phase.SEARCH
    assert len(only(events, "dice_thrown").data["dice"]) == 16
    assert GAME.public_view(state)["mismatch"] == []


def test_a_die_that_cannot_be_read_is_refused_with_its_number() -> None:
    state = fill_all(new_game(2))
    record = ThrowDice.of(layout(state.cup)).to_json()
    record["dice"][3]["color"] = "green"
    with pytest.raises(MalformedAction, match="die 3: color must be red, yellow, blue or black"):
        action_from_json(ACTIONS, record)
    assert refused(new_game(2), ThrowDice.of(layout(Pool.each(4)))).code == "no_throw_now"


def test_a_throw_is_read_back_exactly() -> None:
    dice = (Die(0.1, 2 / 3, 16.5, K, True, 12.25), Die(-3.0, 1e-7, 1.0, Y))
    assert action_from_json(
        ACTIONS, json.loads(json.dumps(ThrowDice(dice).to_json()))
    ) == ThrowDice(dice)


# -- (3) the search: markers ----------------------------------------------------------------------


def searching(players: int = 2) -> OraklosState:
    return with_square(new_game(players))


def test_a_marker_is_laid_on_one_of_ones_own_cards() -> None:
    state = searching()
    other = state.hands[1][0]
    refusal = refused(state, TakeMarker(0, 3, other))
    assert (refusal.code, refusal.params) == ("not_your_card", {"seat": 0, "card": other})
    assert refused(state, TakeMarker(0, 3, "RYBX")).code == "no_such_card"


def test_at_most_one_marker_per_card() -> None:
    state = searching()
    card = state.hands[0][0]
    state, _ = play(state, TakeMarker(0, 3, card))
    refusal = refused(state, TakeMarker(0, 2, card))
    assert (refusal.code, refusal.params) == ("card_has_marker", {"card": card, "marker": 3})


def test_each_marker_is_taken_once() -> None:
    state = searching()
    state, _ = play(state, TakeMarker(1, 2, state.hands[1][0]))
    refusal = refused(state, TakeMarker(0, 2, state.hands[0][0]))
    assert (refusal.code, refusal.params) == ("marker_already_taken", {"marker": 2, "seat": 1})
    assert refused(state, TakeMarker(0, 4, state.hands[0][0])).code == "no_such_marker"


def test_a_player_may_take_several_markers() -> None:
    state = searching()
    a, b = state.hands[0][:2]
    state, _ = play(state, TakeMarker(0, 1, a), TakeMarker(0, 3, b))
    assert [(m.marker, m.seat) for m in state.markers] == [(1, 0), (3, 0)]
    assert GAME.public_view(state)["markers_left"] == [2]


def test_a_marker_card_may_be_named_by_any_rotation() -> None:
    state = give(searching(), 0, RYBK)
    state, events = play(state, TakeMarker(0, 3, "ybkr"))
    assert only(events, "marker_taken").data == {"seat": 0, "marker": 3, "card": RYBK}


def test_the_search_ends_when_the_last_marker_is_taken() -> None:
    state = searching()
    state, events = play(
        state,
        TakeMarker(0, 1, state.hands[0][0]),
        TakeMarker(1, 2, state.hands[1][0]),
        TakeMarker(0, 3, state.hands[0][1]),
    )
    assert state.phase is Phase.SCORE
    assert "search_over" in kinds(events)


def test_the_search_ends_when_everybody_agrees_none_is_left() -> None:
    state = searching()
    assert list(GAME.legal_actions(state, None)) == [EndSearch()]
    one, _ = play(state, TakeMarker(1, 2, state.hands[1][0]), EndSearch())
    assert one.phase is Phase.SCORE
    none, events = play(state, EndSearch())
    assert none.phase is Phase.RETRIEVE  # nothing to score
    assert only(events, "search_over").data["claims"] == []


# -- (4) scoring ----------------------------------------------------------------------------------


def test_claims_are_scored_in_the_order_3_2_1() -> None:
    state = searching()
    a, b = state.hands[0][:2]
    c = state.hands[1][0]
    state, events = play(state, TakeMarker(0, 1, a), TakeMarker(1, 3, c), TakeMarker(0, 2, b))
    turns = []
    while state.phase is Phase.SCORE:
        claimant = state.claimant
        assert claimant is not None
        turns.append((claimant.marker, claimant.seat, claimant.card))
        state, more = play(state, Hesitate(claimant.seat))
        events += more
    assert turns == [(3, 1, c), (2, 0, b), (1, 0, a)]
    assert [e.data["marker"] for e in events if e.kind == "claim_turn"] == [3, 2, 1]


def test_only_the_claimant_shows_the_prediction() -> None:
    state = searching()
    state, _ = play(state, TakeMarker(1, 3, state.hands[1][0]), EndSearch())
    refusal = refused(state, Claim(0, (0, 1, 2, 3)))
    assert (refusal.code, refusal.params) == (
        "not_your_claim",
        {"seat": 0, "claimant": 1, "marker": 3},
    )
    assert refused(state, Hesitate(0)).code == "not_your_claim"


def test_a_claim_names_four_different_dice_of_the_throw() -> None:
    state = searching()
    state, _ = play(state, TakeMarker(0, 3, state.hands[0][0]), EndSearch())
    assert refused(state, Claim(0, (0, 1, 2))).code == "not_four_dice"
    assert refused(state, Claim(0, (0, 1, 2, 16))).params == {"die": 16, "last": 15}
    assert refused(state, Claim(0, (0, 1, 2, 2))).code == "die_repeated"


def test_a_true_prediction_scores_the_marker_points() -> None:
    state = with_square(give(new_game(2), 1, RYBK))
    state, _ = play(state, TakeMarker(1, 2, RYBK), EndSearch())
    state, events = play(state, Claim(1, (2, 0, 3, 1)))  # any order: the referee goes round
    result = only(events, "claim_result")
    assert result.data["valid"] is True
    assert (result.data["points"], result.data["score"], result.data["code"]) == (2, 2, "valid")
    assert state.scores == (0, 2)


def test_a_wrong_prediction_loses_the_marker_points_and_says_why() -> None:
    state = with_square(give(new_game(2), 0, RYBK), colors=(R, Y, B, B))  # no black at all
    state, _ = play(state, TakeMarker(0, 3, RYBK), EndSearch())
    state, events = play(state, Claim(0, (0, 1, 2, 3)))
    result = only(events, "claim_result")
    assert result.audience.kind is AudienceKind.EVERYONE
    assert (result.data["valid"], result.data["points"], result.data["score"]) == (False, -3, -3)
    assert (result.data["rule"], result.data["code"]) == ("card_order", "wrong_order")
    assert result.data["params"]["card"] == RYBK
    assert state.scores == (-3, 0)


def test_a_hesitation_loses_the_marker_points() -> None:
    state = searching()
    card = state.hands[1][0]
    state, _ = play(state, TakeMarker(1, 1, card), EndSearch())
    state, events = play(state, Hesitate(1))
    result = only(events, "claim_result")
    assert (result.data["hesitated"], result.data["points"], result.data["code"]) == (
        True,
        -1,
        "hesitation",
    )
    assert state.scores == (0, -1)
    assert state.ledger[-1] == ScoreLine(1, 1, -1, "hesitation", card, 1)


def test_holes_are_profane_in_the_standard_game() -> None:
    state = give(new_game(2), 0, RYBK)
    state = with_square(state, holes=(False, True, False, False))
    state, _ = play(state, TakeMarker(0, 3, RYBK), EndSearch())
    state, events = play(state, Claim(0, (0, 1, 2, 3)))
    result = only(events, "claim_result")
    assert (result.data["valid"], result.data["code"], result.data["params"]["die"]) == (
        False,
        "hole_on_top",
        1,
    )


def test_either_direction_option_accepts_the_mirror_card() -> None:
    mirrored = mirror(RYBK)
    assert mirrored != RYBK
    results = []
    for either in (False, True):
        state = give(new_game(2, either_direction=either), 0, mirrored)
        state = with_square(state)
        state, _ = play(state, TakeMarker(0, 3, mirrored), EndSearch())
        state, events = play(state, Claim(0, (0, 1, 2, 3)))
        results.append(only(events, "claim_result").data["valid"])
    assert results == [False, True]


def test_claimed_cards_are_discarded_either_way() -> None:
    state = give(give(new_game(2), 0, RYBK), 1, "RRRR")
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), TakeMarker(1, 2, "RRRR"), EndSearch())
    state, events = play(state, Claim(0, (0, 1, 2, 3)), Claim(1, (0, 1, 2, 3)))
    assert [e.data["valid"] for e in events if e.kind == "claim_result"] == [True, False]
    assert state.discards == (RYBK, "RRRR")
    assert RYBK not in state.hands[0] and "RRRR" not in state.hands[1]
    assert [len(h) for h in state.hands] == [2, 2]


# -- (5) retrieval --------------------------------------------------------------------------------


def test_retrieval_starts_with_the_rounds_best_scorer_then_clockwise() -> None:
    state = give(new_game(3), 2, RYBK)
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 1, state.hands[0][0]), TakeMarker(2, 3, RYBK), EndSearch())
    state, events = play(state, Claim(2, (0, 1, 2, 3)), Hesitate(0))
    assert state.round_points == (-1, 0, 3)
    assert only(events, "retrieval_order").data["order"] == [2, 0, 1]
    taken = []
    while state.phase is Phase.RETRIEVE:
        seat = state.retriever
        assert seat is not None
        taken.append(seat)
        other = (seat + 1) % 3
        assert refused(state, TakeBack(other, red=5)).code == "not_your_turn_to_take_back"
        state, _ = play(state, next(GAME.legal_actions(state, seat)))
    assert taken == [2, 0, 1]


def test_retrieval_ties_go_to_the_seat_nearest_the_first_player_clockwise() -> None:
    assert retrieval_order((2, 0, 2), first_player=1) == (2, 0, 1)
    assert retrieval_order((3, 1, 3), first_player=0) == (0, 1, 2)  # the first player included
    assert retrieval_order((0, 0, 0, 0), first_player=3) == (3, 0, 1, 2)
    state = with_square(new_game(3, first_player=1))
    state, events = play(state, EndSearch())  # nobody scored: the first player starts
    assert only(events, "retrieval_order").data["order"] == [1, 2, 0]


def test_each_takes_back_as_many_dice_as_put_in_of_any_colours() -> None:
    state = new_game(2)
    state, _ = play(state, FillCup(0, red=4, yellow=2), FillCup(1, blue=4, black=2))
    state = thrown(state, layout(state.cup))
    state, _ = play(state, EndSearch())
    assert state.retriever == 0
    assert refused(state, TakeBack(0, blue=5)).code == "wrong_number_of_dice"
    state, _ = play(state, TakeBack(0, blue=5, black=1))  # not what seat 0 put in
    assert state.supplies[0] == Pool(0, 2, 9, 5)
    refusal = refused(state, TakeBack(1, red=6))
    assert (refusal.code, refusal.params) == (
        "not_on_table",
        {"color": "red", "left": 5, "asked": 6},
    )


def test_the_four_dice_left_go_back_into_the_cup() -> None:
    state = new_game(2)
    state, _ = play(state, FillCup(0, red=4, yellow=2), FillCup(1, blue=4, black=2))
    state = thrown(state, layout(state.cup))
    state, _ = play(state, EndSearch(), TakeBack(0, red=5, yellow=1))
    state, events = play(state, TakeBack(1, yellow=2, blue=4))
    assert only(events, "cup_refilled").data["dice"] == {
        "red": 0,
        "yellow": 0,
        "blue": 1,
        "black": 3,
    }
    assert state.cup_base == Pool(0, 0, 1, 3)
    assert GAME.public_view(state)["cup"]["dice"] == 4
    state = fill_all(state)
    assert state.cup.total == 4 + 2 * 6


def test_the_first_player_passes_left() -> None:
    state = with_square(new_game(3, first_player=2))
    state, _ = play(state, EndSearch())
    state, events = retrieve_all(state)
    assert state.first_player == 0
    assert only(events, "first_player").data == {"seat": 0}
    assert only(events, "fill_turn").data["seat"] == 0
    assert state.round == 2 and state.phase is Phase.FILL


# -- the end --------------------------------------------------------------------------------------


# The rulebook's words for the end, quoted by the tests below:
PIOCHE_EPUISEE = "Si la pioche de cartes est épuisée, la partie finit immédiatement."
TOUR_SUIVANT = (
    "Toutes les phases sont répétées jusqu'à ce que quelqu'un ait marqué dix points ou plus ou "
    "jusqu'à toutes les cartes ont été épuisées. Le joueur avec le total de points le plus élevé "
    "gagne la partie."
)


def test_the_game_ends_at_the_end_of_the_round_in_which_someone_reaches_10() -> None:
    """« Toutes les phases sont répétées jusqu'à ce que quelqu'un ait marqué dix points ou
    plus »: the round in which 10 is reached is scored to its end, then the game ends."""
    state = give(with_score(new_game(2), 0, 8), 0, RYBK)
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), TakeMarker(1, 2, state.hands[1][0]), EndSearch())
    state, _ = play(state, Claim(0, (0, 1, 2, 3)))
    assert state.scores == (11, 0)
    assert state.phase is Phase.SCORE and state.outcome is None  # the round goes on
    state, events = play(state, Hesitate(1))
    assert state.phase is Phase.OVER
    assert GAME.outcome(state) is not None
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("0", Termination.TARGET_REACHED)
    assert only(events, "game_over").data["winners"] == [0]
    assert "retrieval_order" not in kinds(events)
    assert refused(state, TakeBack(0, red=6)).code == "game_over"


def test_the_highest_total_wins_not_the_first_to_reach_10() -> None:
    """« Le joueur avec le total de points le plus élevé gagne la partie » (Tour suivant) is
    kept over the overview's « le premier joueur à marquer dix points ou plus gagne la partie »:
    seat 0 reaches 10 first, with marker 3; seat 1 passes it with marker 2 in the same round.
    (Both cards match the one square: option ``either_direction`` accepts the mirror card.)"""
    state = with_score(with_score(new_game(2, either_direction=True), 0, 7), 1, 9)
    state = give(give(state, 0, RYBK), 1, mirror(RYBK))
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), TakeMarker(1, 2, mirror(RYBK)), EndSearch())
    state, _ = play(state, Claim(0, (0, 1, 2, 3)))
    assert state.scores == (10, 9) and state.outcome is None  # 10 reached first, by seat 0
    state, events = play(state, Claim(1, (0, 1, 2, 3)))
    assert state.scores == (10, 11)
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("1", Termination.TARGET_REACHED)
    assert only(events, "game_over").data["winners"] == [1]


def test_equal_highest_scores_share_the_victory() -> None:
    """The rulebook names no tie-break: « Le joueur avec le total de points le plus élevé gagne
    la partie ». By default (option ``ties`` "shared") every player with that total wins."""
    state = give(give(with_score(with_score(new_game(3), 0, 7), 1, 9), 0, RYBK), 1, "RRRR")
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), TakeMarker(1, 1, "RRRR"), EndSearch())
    state, _ = play(state, Claim(0, (0, 1, 2, 3)), Hesitate(1))
    assert state.scores == (10, 8, 0)
    assert state.outcome is not None and state.outcome.winner == "0"
    tied = give(with_score(with_score(new_game(2), 0, 8), 1, 10), 0, RYBK)
    assert tied.options.ties is Ties.SHARED
    tied = with_square(tied)
    tied, events = play(tied, TakeMarker(0, 2, RYBK), EndSearch(), Claim(0, (0, 1, 2, 3)))
    assert tied.outcome is not None and tied.outcome.winner == "0,1"
    assert only(events, "game_over").data["winners"] == [0, 1]


def test_with_ties_play_on_a_tie_at_10_plays_another_round() -> None:
    """Option ``ties`` "play_on" (the rulebook is silent on a tie): while the highest total is
    shared, « Toutes les phases sont répétées », until one player alone has it."""
    tied = new_game(2, ties="play_on", either_direction=True)
    tied = give(give(with_score(with_score(tied, 0, 8), 1, 10), 0, RYBK), 1, mirror(RYBK))
    tied = with_square(tied)
    tied, events = play(tied, TakeMarker(0, 2, RYBK), EndSearch(), Claim(0, (0, 1, 2, 3)))
    assert tied.scores == (10, 10)
    assert tied.outcome is None and tied.phase is Phase.RETRIEVE
    assert only(events, "tie_plays_on").data == {"seats": [0, 1], "score": 10}
    assert "game_over" not in kinds(events)
    tied, _ = retrieve_all(tied)
    assert tied.round == 2 and tied.phase is Phase.FILL
    tied = with_square(tied)
    tied, events = play(tied, TakeMarker(1, 1, mirror(RYBK)), EndSearch())
    tied, events = play(tied, Claim(1, (0, 1, 2, 3)))
    assert tied.scores == (10, 11)
    assert tied.outcome is not None
    assert (tied.outcome.winner, tied.outcome.reason) == ("1", Termination.TARGET_REACHED)


def test_with_ties_play_on_the_pile_running_out_still_ends_the_game_shared() -> None:
    """« Si la pioche de cartes est épuisée, la partie finit immédiatement. »: no round is left
    to break a tie, so the tied players share the victory even with ``ties`` "play_on"."""
    state = give(new_game(2, ties="play_on"), 0, RYBK)
    state = with_score(with_score(state, 0, 4), 1, 7)
    state = dataclasses.replace(state, deck=state.deck[:1])
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), EndSearch(), Claim(0, (0, 1, 2, 3)))
    state, events = retrieve_all(state)
    assert "tie_plays_on" not in kinds(events)
    assert state.scores == (7, 7) and state.deck == ()
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("0,1", Termination.DECK_EXHAUSTED)


def test_the_game_ends_immediately_when_the_pile_is_exhausted_while_drawing() -> None:
    """« Si la pioche de cartes est épuisée, la partie finit immédiatement. »: seat 1, now first,
    draws the last card; the pile is empty, seat 0 cannot draw, and the game is over."""
    state = give(give(new_game(2), 0, RYBK), 1, "RRRR")
    state = dataclasses.replace(state, deck=state.deck[:1])
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), TakeMarker(1, 2, "RRRR"), EndSearch())
    state, _ = play(state, Claim(0, (0, 1, 2, 3)), Hesitate(1))
    state, events = retrieve_all(state)
    assert kinds(events)[-3:] == ["cards_dealt", "deck_exhausted", "game_over"]
    assert state.phase is Phase.OVER and state.deck == ()
    assert [len(h) for h in state.hands] == [2, 3]
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("0", Termination.DECK_EXHAUSTED)


def test_a_pile_emptied_by_the_last_card_needed_is_exhausted_and_the_game_ends() -> None:
    """« Si la pioche de cartes est épuisée, la partie finit immédiatement. »: the pile is
    exhausted as soon as drawing empties it, even when that last card fills the last hand; the
    round just dealt is not played."""
    state = give(new_game(2), 0, RYBK)
    state = dataclasses.replace(state, deck=state.deck[:1])
    state = with_square(state)
    state, _ = play(state, TakeMarker(0, 3, RYBK), EndSearch(), Claim(0, (0, 1, 2, 3)))
    state, events = retrieve_all(state)
    assert [len(h) for h in state.hands] == [3, 3] and state.deck == ()
    assert kinds(events)[-3:] == ["cards_dealt", "deck_exhausted", "game_over"]
    assert "fill_turn" not in kinds(events)
    assert state.phase is Phase.OVER
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("0", Termination.DECK_EXHAUSTED)
    refused(state, FillCup(1, red=4, yellow=2), "game_over")


def test_when_the_pile_is_exhausted_the_totals_as_they_stand_decide() -> None:
    """« Si la pioche de cartes est épuisée, la partie finit immédiatement. » and « Le joueur
    avec le total de points le plus élevé gagne la partie. »: nothing more is scored (the cards
    just drawn count for nothing), and the highest total wins, though nobody has 10."""
    state = give(new_game(3), 2, RYBK)
    state = with_score(with_score(state, 0, 2), 1, 5)
    state = dataclasses.replace(state, deck=state.deck[:1])
    state = with_square(state)
    state, _ = play(state, TakeMarker(2, 1, RYBK), EndSearch(), Claim(2, (0, 1, 2, 3)))
    before = state.scores
    state, events = retrieve_all(state)
    assert state.scores == before == (2, 5, 1)
    assert [line.round for line in state.ledger] == [0, 0, 1]
    over = only(events, "game_over").data
    assert (over["winners"], over["scores"]) == ([1], [2, 5, 1])
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("1", Termination.DECK_EXHAUSTED)


def test_a_round_in_which_nobody_draws_goes_on_while_cards_are_left() -> None:
    """The pile is exhausted only when it is empty: a round in which nobody needs a card leaves
    it as it was, and the round is played."""
    state = new_game(2)
    state = dataclasses.replace(state, deck=state.deck[:2])
    state = with_square(state)
    state, _ = play(state, EndSearch())
    state, events = retrieve_all(state)
    assert "deck_exhausted" not in kinds(events)
    assert len(state.deck) == 2 and state.phase is Phase.FILL and state.round == 2


def test_junior_also_ends_immediately_when_the_pile_is_exhausted() -> None:
    """« Pour le reste, ORAKLOS JUNIOR est identique au jeu de base »: « Si la pioche de cartes
    est épuisée, la partie finit immédiatement. »"""
    state = give(new_game(2, "junior"), 0, RYBK)
    state = dataclasses.replace(state, deck=state.deck[:1])
    state, _ = play(state, ThrowDice.of(layout(state.cup, square((R, Y, B, K)))))
    state, events = play(state, TakeMarker(0, 3, RYBK), EndSearch(), Claim(0, (0, 1, 2, 3)))
    assert state.deck == () and state.phase is Phase.OVER
    assert kinds(events)[-2:] == ["deck_exhausted", "game_over"]
    assert state.outcome is not None and state.outcome.reason is Termination.DECK_EXHAUSTED


# -- Oraklos Junior -------------------------------------------------------------------------------


def test_junior_throws_sixteen_dice_every_round_without_filling_a_cup() -> None:
    state = new_game(3, "junior")
    assert state.phase is Phase.THROW
    assert state.cup == Pool.each(4)
    assert list(GAME.legal_actions(state, 0)) == []
    assert refused(state, FillCup(0, red=5)).code == "no_filling_now"
    assert "supplies" in GAME.public_view(state) and GAME.public_view(state)["supplies"] == []
    state, _ = play(state, ThrowDice.of(layout(Pool.each(4))))
    assert state.phase is Phase.SEARCH


def test_junior_has_no_retrieval_phase() -> None:
    state = give(new_game(2, "junior"), 0, RYBK)
    state, _ = play(state, ThrowDice.of(layout(state.cup, square((R, Y, B, K)))))
    state, events = play(state, TakeMarker(0, 3, RYBK), EndSearch(), Claim(0, (0, 1, 2, 3)))
    assert "retrieval_order" not in kinds(events)
    assert state.phase is Phase.THROW and state.round == 2 and state.first_player == 1
    assert state.cup == Pool.each(4)
    assert state.scores == (3, 0)


# -- Antipodes ------------------------------------------------------------------------------------


def antipodes(players: int = 3, **more: object) -> OraklosState:
    return new_game(players, "antipodes", **more)


def test_antipodes_plays_without_the_cards_with_three_corners_of_one_colour() -> None:
    state = antipodes()
    cards = (*state.deck, *state.shared)
    assert len(cards) == 54 == len(WISH_CARDS) - 16
    assert sorted(cards) == sorted(ANTIPODES_CARDS)
    assert all(max(card.count(letter) for letter in card) < 3 for card in cards)


def test_antipodes_has_six_shared_cards_and_throws_sixteen_dice() -> None:
    state = antipodes()
    assert len(state.shared) == 6 and state.hands == ((), (), ())
    assert state.phase is Phase.THROW and state.cup == Pool.each(4)
    state, _ = play(state, ThrowDice.of(in_a_line(state.cup)))
    assert state.phase is Phase.NAME
    assert len(list(GAME.legal_actions(state, 1))) == 6
    assert list(GAME.legal_actions(state, None)) == [AllFound()]


def test_antipodes_naming_a_card_with_no_true_prediction_scores_1() -> None:
    state = antipodes()
    state, _ = play(state, ThrowDice.of(in_a_line(state.cup)))
    card = state.shared[2]
    refusal = refused(state, NameCard(0, next(c for c in ANTIPODES_CARDS if c not in state.shared)))
    assert refusal.code == "not_a_shared_card"
    state, events = play(state, NameCard(1, card))
    named = only(events, "card_named")
    assert named.data == {"seat": 1, "card": card, "prediction": None, "points": 1, "score": 1}
    assert state.scores == (0, 1, 0)


def test_antipodes_naming_a_card_that_has_a_prediction_loses_1_and_shows_it() -> None:
    card = canonical("RYBK")
    state = share(antipodes(), card)
    state, _ = play(state, ThrowDice.of(layout(state.cup, square((R, Y, B, K)))))
    state, events = play(state, NameCard(2, card))
    named = only(events, "card_named")
    assert named.data["points"] == -1 and state.scores == (0, 0, -1)
    assert named.data["prediction"] is not None
    assert sorted(named.data["prediction"]["dice"]) == [0, 1, 2, 3]


def test_antipodes_holes_are_sacred() -> None:
    card = canonical("RYBK")
    state = share(antipodes(), card)
    dice = layout(state.cup, square((R, Y, B, K), holes=(True, True, False, True)))
    state, _ = play(state, ThrowDice.of(dice))
    state, events = play(state, NameCard(0, card))
    assert only(events, "card_named").data["points"] == -1  # the holed square is a prediction


def test_antipodes_all_six_cards_are_replaced_after_a_naming() -> None:
    state = antipodes()
    before = state.shared
    state, _ = play(state, ThrowDice.of(in_a_line(state.cup)))
    state, events = play(state, NameCard(0, before[0]))
    assert state.discards == before
    assert len(state.shared) == 6 and not set(state.shared) & set(before)
    assert len(state.deck) == 54 - 12
    assert state.phase is Phase.THROW and state.first_player == 1  # re-throw
    assert only(events, "cards_discarded").data["cards"] == list(before)


def test_antipodes_all_six_are_replaced_when_everyone_agrees_all_exist() -> None:
    card = canonical("RYBK")
    state = share(antipodes(), card)
    before = state.shared
    state, _ = play(state, ThrowDice.of(layout(state.cup, square((R, Y, B, K)))))
    state, events = play(state, AllFound())
    missed = only(events, "all_found").data["missed"]
    assert card not in missed and set(missed) <= set(before)
    assert state.scores == (0, 0, 0)
    assert state.discards == before and len(state.shared) == 6
    assert not set(state.shared) & set(before)


def test_antipodes_the_first_to_5_wins_at_once() -> None:
    state = with_score(antipodes(), 2, 4)
    state, _ = play(state, ThrowDice.of(in_a_line(state.cup)))
    state, events = play(state, NameCard(2, state.shared[0]))
    assert state.phase is Phase.OVER
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("2", Termination.TARGET_REACHED)
    assert "cards_discarded" not in kinds(events)


def test_antipodes_ends_when_the_deck_runs_out() -> None:
    state = dataclasses.replace(antipodes(), deck=())
    state = with_score(state, 1, 2)
    state, _ = play(state, ThrowDice.of(in_a_line(state.cup)))
    state, events = play(state, AllFound())
    assert kinds(events)[-2:] == ["deck_exhausted", "game_over"]
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("1", Termination.DECK_EXHAUSTED)


def test_antipodes_either_direction_option() -> None:
    found = []
    for either in (False, True):
        card = mirror(canonical("RYBK"))
        state = share(antipodes(either_direction=either), card)
        state, _ = play(state, ThrowDice.of(layout(state.cup, square((R, Y, B, K)))))
        state, events = play(state, NameCard(0, card))
        found.append(only(events, "card_named").data["points"])
    assert found == [1, -1]


# -- the record -----------------------------------------------------------------------------------


def test_every_action_has_a_json_form() -> None:
    dice = layout(Pool.each(4))
    for action in (
        FillCup(1, red=2, yellow=1, blue=0, black=3),
        ThrowDice.of(dice),
        TakeMarker(0, 3, RYBK),
        EndSearch(),
        Claim(2, (0, 4, 5, 1)),
        Hesitate(1),
        TakeBack(0, blue=6),
        NameCard(1, RYBK),
        AllFound(),
    ):
        assert action_from_json(ACTIONS, action.to_json()) == action
    assert set(ACTIONS) == {
        "fill_cup",
        "throw",
        "take_marker",
        "end_search",
        "claim",
        "hesitate",
        "take_back",
        "name_card",
        "all_found",
        # at a real table (tests/test_oraklos_table_play.py)
        "draw_cards",
        "reveal_cards",
        "deck_empty",
        "correct_die",
        "remove_die",
        "add_die",
    }


def test_the_public_record_keeps_thrown_fills_and_drops_a_cup_not_yet_thrown() -> None:
    opts = {"players": 2}
    state = GAME.new(opts, SEED)
    fills = [FillCup(0, red=4, yellow=2), FillCup(1, blue=4, black=2)]
    state, _ = play(state, *fills)
    throw = ThrowDice.of(layout(state.cup))
    back = [TakeBack(0, red=5, yellow=1), TakeBack(1, blue=5, black=1)]
    state, _ = play(state, throw, EndSearch(), *back)
    pending = FillCup(1, red=4, yellow=2)
    actions = [*fills, throw, EndSearch(), *back]
    assert state.filler == 1
    record = public_record(GAME, [*actions, pending], opts, SEED)
    assert record == actions


def test_legal_actions_are_accepted() -> None:
    state = new_game(2)
    for action in GAME.legal_actions(state, 0):
        GAME.apply(state, action)
    assert list(GAME.legal_actions(state, 1)) == []
    state = fill_all(state)
    assert list(GAME.legal_actions(state, None)) == []  # the throw is read, not chosen
    state = thrown(state, layout(state.cup, square((R, Y, B, K))))
    takes = list(GAME.legal_actions(state, 0))
    assert len(takes) == 9  # three markers on three cards
    state, _ = play(state, takes[0], EndSearch())
    claims = list(GAME.legal_actions(state, 0))
    assert claims[0] == Hesitate(0) and len(claims) == 1 + 1820  # C(16, 4)
