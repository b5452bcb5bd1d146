"""Oraklos played at a real table: the players fill the cup and draw their cards with their own
hands, an overhead camera reads the throw, a person corrects its reading on the host page, and
claims may be checked on the card alone. One rule clause per test, then whole games.

Layouts are built as in ``test_oraklos_rules``: four dice on a square, listed clockwise on
screen, the rest of the throw in a column far below (or every die in one straight row, which
holds no prediction at all).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import pytest
from test_oraklos_rules import (
    GAME,
    RYBK,
    SEED,
    B,
    K,
    R,
    Y,
    give,
    in_a_line,
    kinds,
    layout,
    only,
    play,
    refused,
    square,
)

from companion.game import Action, Event, MalformedAction, action_from_json
from companion.games.oraklos.deck import ANTIPODES_CARDS, WISH_CARDS, canonical
from companion.games.oraklos.dice import BadDie, Color, Die
from companion.games.oraklos.state import (
    ACTIONS,
    AddDie,
    AllFound,
    Claim,
    CorrectDie,
    DeckEmpty,
    DrawCards,
    EndSearch,
    FillCup,
    Hesitate,
    NameCard,
    OraklosState,
    Phase,
    Pool,
    RemoveDie,
    RevealCards,
    TakeBack,
    TakeMarker,
    Termination,
    ThrowDice,
)

SIXTEEN = Pool.each(4)  # two players with fills "unseen" throw 4 + 2 x 6 dice: any colours


def table_game(players: int = 2, mode: str = "standard", **more: object) -> OraklosState:
    return GAME.new({"players": players, "mode": mode, **more}, seed=SEED)


def thrown_square(state: OraklosState, colors: Sequence[Color] = (R, Y, B, K)) -> OraklosState:
    """Fills "unseen": throw sixteen dice, the first four on the square."""
    state, _ = play(state, ThrowDice.of(layout(SIXTEEN, square(colors))))
    return state


def searching(**more: object) -> OraklosState:
    """A standard game whose cup was filled by hand, the square thrown: seat 0 holds RYBK."""
    return thrown_square(give(table_game(fills="unseen", **more), 0, RYBK))


def scoring(state: OraklosState, seat: int = 0, card: str = RYBK) -> OraklosState:
    state, _ = play(state, TakeMarker(seat, 3, card), EndSearch())
    assert state.phase is Phase.SCORE
    return state


def unseen_cards(state: OraklosState) -> list[str]:
    deck = ANTIPODES_CARDS if state.options.mode.value == "antipodes" else WISH_CARDS
    seen = {*state.discards, *state.shared, *(c for h in state.hands for c in h)}
    return [c for c in deck if c not in seen]


def draw_for_everyone(state: OraklosState, first: Sequence[str] = ()) -> OraklosState:
    """Every seat that needs cards draws them; seat 0's come from ``first`` when given."""
    wanted = [canonical(c) for c in first]
    for seat, hand in enumerate(state.hands):
        need = 3 - len(hand)
        if not need:
            continue
        mine = wanted[:need] if seat == 0 else []
        others = [c for c in unseen_cards(state) if c not in wanted and c not in mine]
        state, _ = play(state, DrawCards(seat, (*mine, *others[: need - len(mine)])))
    return state


# -- fills "unseen" -------------------------------------------------------------------------------


def test_unseen_fills_go_straight_to_the_throw() -> None:
    state = table_game(3, fills="unseen")
    assert state.phase is Phase.THROW and state.supplies == ()
    awaited = only(GAME.opening_events(state), "throw_awaited")
    assert awaited.data == {"thrower": 0, "dice": 4 + 3 * 5, "fill_each": 5}
    view = GAME.public_view(state)
    assert view["supplies"] == [] and view["cup"]["base"] is None
    assert (view["cup"]["dice"], view["cup"]["per_player"], view["cup"]["filled"]) == (19, 5, [])
    assert GAME.private_view(state, 1)["my_supply"] is None
    assert refused(state, FillCup(0, red=5)).code == "no_filling_now"


def test_unseen_fills_check_the_number_of_dice_thrown() -> None:
    state = table_game(2, fills="unseen")
    state, events = play(state, ThrowDice.of(layout(SIXTEEN)[:-1]))
    expected = [{"color": None, "bound": "exactly", "expected": 16, "seen": 15}]
    assert only(events, "dice_thrown").data["mismatch"] == expected
    assert GAME.public_view(state)["mismatch"] == expected


def test_unseen_fills_check_no_colour_has_more_dice_than_the_game() -> None:
    state = table_game(2, fills="unseen")  # 2 x 4 + 1 = 9 dice of each colour exist
    nine_red = Pool(9, 7, 0, 0)
    fine, _ = play(state, ThrowDice.of(layout(nine_red)))
    assert GAME.public_view(fine)["mismatch"] == []
    ten_red = Pool(10, 6, 0, 0)
    wrong, _ = play(state, ThrowDice.of(layout(ten_red)))
    assert GAME.public_view(wrong)["mismatch"] == [
        {"color": "red", "bound": "at_most", "expected": 9, "seen": 10}
    ]
    wrong = scoring(give(wrong, 0, RYBK))
    refusal = refused(wrong, Claim(0, (0, 1, 2, 3)))
    assert refusal.code == "too_many_dice_of_a_color"
    assert (refusal.params["color"], refusal.params["most"], refusal.params["seen"]) == (
        "red",
        9,
        10,
    )


def test_unseen_fills_wrong_count_holds_the_scores() -> None:
    state = give(table_game(2, fills="unseen"), 0, RYBK)
    state, _ = play(state, ThrowDice.of(layout(SIXTEEN, square((R, Y, B, K)))[:-1]))
    state = scoring(state)
    refusal = refused(state, Hesitate(0))
    assert (refusal.code, refusal.params["expected"], refusal.params["seen"]) == (
        "throw_count_does_not_match",
        16,
        15,
    )


def test_unseen_fills_have_no_retrieval_the_next_round_starts_at_once() -> None:
    state = scoring(searching())
    state, events = play(state, Claim(0, (0, 1, 2, 3)))
    order = only(events, "retrieval_order").data
    assert (order["order"], order["best"], order["count"], order["passes_to"]) == ([0, 1], 0, 6, 1)
    assert kinds(events)[-5:] == [
        "retrieval_order",
        "first_player",
        "round_started",
        "cards_dealt",
        "throw_awaited",
    ]
    assert state.phase is Phase.THROW and state.round == 2 and state.first_player == 1
    assert refused(state, TakeBack(0, red=6)).code == "no_retrieval_now"


@pytest.mark.parametrize("mode", ["junior", "antipodes"])
def test_unseen_fills_change_nothing_in_junior_and_antipodes(mode: str) -> None:
    state = table_game(2, mode, fills="unseen")
    assert state.cup == Pool.each(4) and state.phase is Phase.THROW
    state, _ = play(state, ThrowDice.of(layout(Pool.each(4))[1:]))
    (difference,) = GAME.public_view(state)["mismatch"]
    assert difference["bound"] == "exactly" and difference["expected"] == 4


# -- deck "drawn" ---------------------------------------------------------------------------------


def test_a_drawn_deck_starts_each_round_with_the_draw() -> None:
    state = table_game(3, deck="drawn")
    assert state.phase is Phase.DRAW and state.deck == () and state.hands == ((), (), ())
    view = GAME.public_view(state)
    assert (view["deck"], view["to_draw"], view["turn"]) == (70, [3, 3, 3], None)
    events = GAME.opening_events(state)
    assert kinds(events) == ["round_started", "draw_started"]
    assert only(events, "draw_started").data["needed"] == [
        {"seat": s, "count": 3} for s in range(3)
    ]
    assert list(GAME.legal_actions(state, None)) == []  # cards drawn are read, not chosen


def test_each_seat_draws_exactly_the_cards_it_needs_in_any_order() -> None:
    state = table_game(2, deck="drawn")
    assert refused(state, DrawCards(1, ("RRRR", "RRRY"))).params == {"given": 2, "needed": 3}
    state, events = play(state, DrawCards(1, ("ybkr", "RRRR", "yrrr")))  # any rotation or case
    assert state.hands[1] == (RYBK, "RRRR", "RRRY")
    assert only(events, "cards_drawn").data["deck"] == 67
    assert state.phase is Phase.DRAW
    assert refused(state, DrawCards(1, ("KKKK",))).code == "hand_already_full"
    state, events = play(state, DrawCards(0, ("KKKK", "BBBB", "YYYY")))
    assert state.phase is Phase.FILL  # fills "entered": the cup comes next
    assert kinds(events) == ["cards_drawn", "fill_turn"]
    assert GAME.public_view(state)["deck"] == 64


def test_each_card_exists_once() -> None:
    state, _ = play(table_game(2, deck="drawn"), DrawCards(0, ("RRRR", "RRRY", RYBK)))
    assert refused(state, DrawCards(1, ("KRRR", "RRRR", "KKKK"))).params == {"card": "RRRR"}
    assert refused(state, DrawCards(1, ("KKKK", "kkkk", "BBBB"))).code == "card_named_twice"
    assert refused(state, DrawCards(1, ("KKKK", "RYBX", "BBBB"))).code == "no_such_card"
    gone = dataclasses.replace(state, discards=("KKKK",))
    refusal = refused(gone, DrawCards(1, ("KKKK", "YYYY", "BBBB")))
    assert (refusal.code, refusal.params) == ("card_already_discarded", {"card": "KKKK"})
    assert refused(state, DrawCards(1, ("KKKK", "RRRR", "BBBB"))).code == "card_already_in_play"


def test_antipodes_reveals_the_shared_cards_from_the_drawn_deck() -> None:
    state = table_game(3, "antipodes", deck="drawn")
    assert GAME.public_view(state)["shared_to_draw"] == 6
    assert refused(state, DrawCards(0, ("RYBK",) * 3)).code == "cards_are_shared"
    six = ANTIPODES_CARDS[:6]
    refusal = refused(state, RevealCards(("RRRY", *six[1:])))
    assert (refusal.code, refusal.params) == ("not_in_this_deck", {"card": "RRRY"})
    state, events = play(state, RevealCards(six))
    assert state.shared == six and state.phase is Phase.THROW
    assert only(events, "cards_revealed").data["deck"] == 54 - 6
    assert refused(table_game(2, deck="drawn"), RevealCards(six)).code == "no_shared_cards"


def test_an_empty_deck_ends_the_game_while_drawing() -> None:
    state = table_game(2, deck="drawn")
    assert refused(table_game(2), DeckEmpty()).code == "no_drawing_now"
    state, events = play(state, DrawCards(0, ("RRRR", "RRRY", RYBK)), DeckEmpty())
    assert kinds(events)[-2:] == ["deck_exhausted", "game_over"]
    assert state.outcome is not None and state.outcome.reason is Termination.DECK_EXHAUSTED


def round_with_a_drawn_pile_of(left: int) -> tuple[OraklosState, list[Event]]:
    """A round of a drawn deck with ``left`` cards unseen in the pile, in which seat 0 spends its
    three cards (one claim, two hesitations): it needs three new ones."""
    state = draw_for_everyone(table_game(2, fills="unseen", deck="drawn"), (RYBK, "RRRR", "KKKK"))
    in_hands = {c for h in state.hands for c in h}
    others = tuple(c for c in WISH_CARDS if c not in in_hands)
    state = dataclasses.replace(state, discards=others[:-left])
    assert GAME.public_view(state)["deck"] == left
    state = thrown_square(state)
    state, _ = play(
        state, TakeMarker(0, 3, RYBK), TakeMarker(0, 2, "RRRR"), TakeMarker(0, 1, "KKKK")
    )
    return play(state, Claim(0, (0, 1, 2, 3)), Hesitate(0), Hesitate(0))


def test_the_game_ends_when_fewer_cards_are_left_than_the_round_needs() -> None:
    state, events = round_with_a_drawn_pile_of(2)
    assert kinds(events)[-4:] == ["first_player", "round_started", "deck_exhausted", "game_over"]
    assert state.outcome is not None and state.outcome.reason is Termination.DECK_EXHAUSTED


def test_a_drawn_pile_emptied_by_the_cards_needed_is_exhausted_and_the_game_ends() -> None:
    """« Si la pioche de cartes est épuisée, la partie finit immédiatement. »: with exactly the
    cards the round needs left, drawing them exhausts the pile; the companion ends the game at
    once, without asking for the cards."""
    state, events = round_with_a_drawn_pile_of(3)
    assert kinds(events)[-4:] == ["first_player", "round_started", "deck_exhausted", "game_over"]
    assert "draw_started" not in kinds(events)
    assert state.outcome is not None and state.outcome.reason is Termination.DECK_EXHAUSTED
    refused(state, DrawCards(0, tuple(unseen_cards(state))), "game_over")


def test_a_round_in_which_nobody_needs_a_card_has_no_draw() -> None:
    state = draw_for_everyone(table_game(2, fills="unseen", deck="drawn"))
    state = thrown_square(state)
    state, events = play(state, EndSearch())
    assert state.phase is Phase.THROW and state.round == 2
    assert "draw_started" not in kinds(events)


# -- claims "card" --------------------------------------------------------------------------------


def test_a_card_claim_shows_a_true_prediction_of_the_card() -> None:
    state = scoring(searching(claims="card"))
    assert Claim(0) in list(GAME.legal_actions(state, 0))
    state, events = play(state, Claim(0))
    result = only(events, "claim_result").data
    assert (result["valid"], result["by_card"], result["points"], result["code"]) == (
        True,
        True,
        3,
        "valid",
    )
    assert result["prediction"]["card"] == RYBK
    assert sorted(result["prediction"]["dice"]) == [0, 1, 2, 3] == sorted(result["dice"])
    assert state.scores == (3, 0)


def test_a_card_claim_without_a_true_prediction_loses_the_marker_points() -> None:
    state = give(table_game(claims="card", fills="unseen"), 0, RYBK)
    state, _ = play(state, ThrowDice.of(in_a_line(SIXTEEN)))
    state, events = play(scoring(state), Claim(0))
    result = only(events, "claim_result").data
    assert (result["valid"], result["prediction"], result["code"]) == (
        False,
        None,
        "no_true_prediction",
    )
    assert state.scores == (-3, 0)


def test_a_card_claim_may_still_name_dice_and_hesitate() -> None:
    _, events = play(scoring(searching(claims="card")), Claim(0, (0, 1, 2, 3)))
    result = only(events, "claim_result").data
    assert (result["valid"], result["by_card"]) == (True, False)
    _, events = play(scoring(searching(claims="card")), Hesitate(0))
    assert only(events, "claim_result").data["points"] == -3


def test_shown_claims_need_four_dice() -> None:
    state = scoring(searching())
    assert refused(state, Claim(0)).params == {"count": 0}
    assert Claim(0) not in list(GAME.legal_actions(state, 0))


# -- correcting the reading -----------------------------------------------------------------------


def test_a_misread_die_is_corrected_and_confirmed() -> None:
    state = searching()
    state = dataclasses.replace(
        state, table=(dataclasses.replace(state.table[0], confidence=0.3), *state.table[1:])
    )
    assert GAME.public_view(state)["table"][0]["flagged"] is True
    state, events = play(state, CorrectDie(0, B, True))
    die = state.table[0]
    assert (die.color, die.hole, die.confidence, die.x, die.y) == (B, True, 1.0, 0.0, 0.0)
    corrected = only(events, "die_corrected").data
    assert corrected["index"] == 0 and corrected["die"]["color"] == "blue"
    assert len(corrected["dice"]) == 16 and corrected["dice"][0]["hole"] is True
    assert GAME.public_view(state)["table"][0]["flagged"] is False


def test_a_die_is_removed_or_added() -> None:
    state = searching()
    state, events = play(state, RemoveDie(3))
    removed = only(events, "die_removed").data
    assert removed["index"] == 3 and removed["die"]["color"] == "black"
    assert len(state.table) == 15 and len(removed["dice"]) == 15
    missed = Die(0.0, 100.0, 16.0, K, confidence=0.2)
    state, events = play(state, AddDie(missed))
    assert state.table[-1] == dataclasses.replace(missed, confidence=1.0)
    assert only(events, "die_added").data["index"] == 15
    assert refused(state, RemoveDie(16)).params == {"die": 16, "last": 15}
    assert refused(state, CorrectDie(-1, R, False)).code == "no_such_die"


def test_the_whole_throw_may_be_read_again() -> None:
    state = searching()
    again = layout(SIXTEEN, square((Y, R, B, K)))
    state, events = play(state, ThrowDice.of(again))
    assert state.table == tuple(again) and state.phase is Phase.SEARCH
    assert only(events, "throw_reread").data["dice"] == [d.to_json() for d in again]


def test_corrections_are_allowed_until_the_first_claim_is_judged() -> None:
    state, _ = play(searching(), TakeMarker(1, 2, searching().hands[1][0]))
    state = scoring(state)  # markers 3 (seat 0) and 2 (seat 1): SCORE, nothing judged yet
    corrected, _ = play(state, CorrectDie(5, R, False), ThrowDice.of(state.table))
    assert corrected.phase is Phase.SCORE
    state, _ = play(state, Claim(0, (0, 1, 2, 3)))
    for action in (CorrectDie(5, R, False), RemoveDie(0), AddDie(state.table[0])):
        refusal = refused(state, action)
        assert (refusal.code, refusal.params) == ("reading_already_judged", {"scored": 1})
    assert refused(state, ThrowDice.of(state.table)).code == "reading_already_judged"


def test_corrections_wait_for_the_throw() -> None:
    before = table_game(2)
    assert refused(before, RemoveDie(0)).params == {"phase": "fill"}
    assert refused(before, ThrowDice.of(layout(Pool.each(4)))).code == "no_throw_now"
    filled = fill_all_cups(table_game(2))
    retrieving, _ = play(filled, ThrowDice.of(layout(filled.cup)), EndSearch())
    assert retrieving.phase is Phase.RETRIEVE
    assert refused(retrieving, RemoveDie(0)).code == "no_correction_now"
    drawing = table_game(2, deck="drawn")
    assert refused(drawing, AddDie(Die(0.0, 0.0, 16.0, R))).code == "no_correction_now"


def test_antipodes_corrections_are_allowed_until_a_card_is_named() -> None:
    state = table_game(3, "antipodes")
    state, _ = play(state, ThrowDice.of(in_a_line(state.cup)))
    assert GAME.public_view(state)["correctable"] is True
    state, events = play(state, CorrectDie(0, Y, True))
    assert state.phase is Phase.NAME and "die_corrected" in kinds(events)
    named, _ = play(state, CorrectDie(0, R, False), NameCard(0, state.shared[0]))
    assert named.phase is Phase.THROW
    assert refused(named, CorrectDie(0, R, False)).code == "no_correction_now"


def test_junior_corrections_follow_the_standard_game() -> None:
    state = table_game(2, "junior")
    state, _ = play(state, ThrowDice.of(layout(Pool.each(4))))
    state, events = play(state, RemoveDie(0), AddDie(Die(0.0, 0.0, 16.0, R)))
    assert kinds(events) == ["die_removed", "die_added"]


# -- a reading that does not match the cup ------------------------------------------------------


def test_a_mismatched_reading_holds_the_scores_until_corrected() -> None:
    state = give(table_game(2), 0, RYBK)
    state = fill_all_cups(state)
    dice = layout(state.cup, square((R, Y, B, K)))
    state, events = play(state, ThrowDice.of(dice[:-1]))  # the camera missed the last die
    missing = dice[-1]
    expected = state.cup.count(missing.color)
    assert only(events, "dice_thrown").data["mismatch"] == [
        {
            "color": missing.color.value,
            "bound": "exactly",
            "expected": expected,
            "seen": expected - 1,
        }
    ]
    state, _ = play(state, TakeMarker(0, 3, RYBK), EndSearch())  # the race goes on
    assert list(GAME.legal_actions(state, 0)) == []
    refusal = refused(state, Claim(0, (0, 1, 2, 3)))
    assert refusal.code == "throw_does_not_match_cup"
    assert (refusal.params["color"], refusal.params["expected"], refusal.params["seen"]) == (
        missing.color.value,
        expected,
        expected - 1,
    )
    assert refusal.params["differences"] == GAME.public_view(state)["mismatch"]
    assert refused(state, Hesitate(0)).code == "throw_does_not_match_cup"
    state, events = play(state, AddDie(missing))
    assert only(events, "die_added").data["mismatch"] == []
    state, events = play(state, Claim(0, (0, 1, 2, 3)))
    assert only(events, "claim_result").data["valid"] is True


def test_antipodes_naming_waits_for_a_matching_reading() -> None:
    state = table_game(3, "antipodes")
    dice = in_a_line(state.cup)
    wrong = [dataclasses.replace(dice[0], color=K if dice[0].color is not K else R), *dice[1:]]
    state, _ = play(state, ThrowDice.of(wrong))
    assert list(GAME.legal_actions(state, None)) == [] == list(GAME.legal_actions(state, 0))
    assert refused(state, NameCard(0, state.shared[0])).code == "throw_does_not_match_cup"
    assert refused(state, AllFound()).code == "throw_does_not_match_cup"
    state, _ = play(state, CorrectDie(0, dice[0].color, dice[0].hole))
    state, events = play(state, NameCard(0, state.shared[0]))
    assert only(events, "card_named").data["points"] == 1


def fill_all_cups(state: OraklosState) -> OraklosState:
    while state.phase is Phase.FILL:
        assert state.filler is not None
        state, _ = play(state, next(GAME.legal_actions(state, state.filler)))
    return state


# -- the camera's confidence ----------------------------------------------------------------------


def test_a_die_read_with_little_confidence_is_flagged() -> None:
    state = table_game(2, "junior")
    dice = layout(Pool.each(4))
    dice[0] = dataclasses.replace(dice[0], confidence=0.59)
    dice[1] = dataclasses.replace(dice[1], confidence=0.6)
    state, _ = play(state, ThrowDice.of(dice))
    table = GAME.public_view(state)["table"]
    assert [(t["confidence"], t["flagged"]) for t in table[:3]] == [
        (0.59, True),
        (0.6, False),
        (1.0, False),
    ]


def test_confidence_is_optional_in_a_die_and_checked() -> None:
    plain = {"x": 1, "y": 2, "size": 16, "color": "red"}
    assert Die.from_json(plain).confidence == 1.0
    assert Die.from_json({**plain, "confidence": 0.25}).confidence == 0.25
    for bad in (1.5, -0.1, "high", True):
        with pytest.raises(BadDie, match="die 0: confidence"):
            Die.from_json({**plain, "confidence": bad})
    die = Die(1.0, 2.0, 16.0, R, confidence=0.4)
    assert Die.from_json(json.loads(json.dumps(die.to_json()))) == die


# -- the record -----------------------------------------------------------------------------------


def test_every_new_action_has_a_json_form() -> None:
    actions: list[Action] = [
        DrawCards(1, ("RYBK", "rrrr", "KYBR")),
        RevealCards(tuple(ANTIPODES_CARDS[:6])),
        DeckEmpty(),
        CorrectDie(4, Color.BLUE, True),
        RemoveDie(7),
        AddDie(Die(10.5, 20.25, 16.0, Color.YELLOW, False, 12.0, 0.75)),
        Claim(0),
        ThrowDice((Die(0.0, 0.0, 16.0, R, confidence=0.5),)),
    ]
    for action in actions:
        again = action_from_json(ACTIONS, json.loads(json.dumps(action.to_json())))
        assert again == action
    assert Claim(2).to_json() == {"kind": "claim", "seat": 2, "dice": []}
    assert action_from_json(ACTIONS, {"kind": "claim", "seat": 2}) == Claim(2)
    assert CorrectDie(1, R, False).to_json() == {
        "kind": "correct_die",
        "index": 1,
        "color": "red",
        "hole": False,
    }
    with pytest.raises(MalformedAction, match="color must be one of"):
        action_from_json(ACTIONS, {"kind": "correct_die", "index": 1, "color": "pink", "hole": 0})
    with pytest.raises(MalformedAction, match="cards must be a list"):
        action_from_json(ACTIONS, {"kind": "draw_cards", "seat": 0, "cards": "RYBK"})


# -- whole games ----------------------------------------------------------------------------------

ROUND_CARDS = (RYBK, canonical("RYKB"), canonical("RBYK"), canonical("RBKY"))


def square_of(card: str) -> list[Color]:
    return [Color.from_letter(letter) for letter in card]


def test_a_whole_standard_game_with_hands_a_drawn_deck_and_cards_checked() -> None:
    """Fills "unseen", deck "drawn", claims "card": each round seat 0 draws the card the throw
    will make, claims it with marker 3 and wins 3 points; seat 1 claims a card that the throw
    does not make and loses 2. The second throw is misread and corrected before the claims."""
    state = table_game(2, fills="unseen", deck="drawn", claims="card")
    hand_of_1 = ("RRRR", "YYYY", "BBBB")
    state, _ = play(state, DrawCards(1, hand_of_1))
    rounds = 0
    while state.phase is not Phase.OVER:
        rounds += 1
        card = ROUND_CARDS[rounds - 1]
        assert state.phase is Phase.DRAW
        state = draw_for_everyone(state, (card,))
        assert state.phase is Phase.THROW
        dice = layout(SIXTEEN, square(square_of(card)))
        if rounds == 2:
            state, events = play(state, ThrowDice.of([dice[0], dice[2], *dice[3:]]))
            assert only(events, "dice_thrown").data["mismatch"][0]["color"] is None
            state, _ = play(state, AddDie(dice[1]))
        else:
            state, _ = play(state, ThrowDice.of(dice))
        losing = state.hands[1][0]
        state, events = play(state, TakeMarker(1, 2, losing), TakeMarker(0, 3, card))
        assert "search_over" not in kinds(events)
        state, events = play(state, EndSearch(), Claim(0), Claim(1))
        results = [e.data for e in events if e.kind == "claim_result"]
        assert [(r["seat"], r["valid"], r["points"]) for r in results] == [
            (0, True, 3),
            (1, False, -2),
        ]
        assert ("retrieval_order" in kinds(events)) is (state.phase is not Phase.OVER)
    assert rounds == 4 and state.scores == (12, -8)
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == ("0", Termination.TARGET_REACHED)
    assert len(state.discards) == 8 and GAME.public_view(state)["deck"] == 70 - 8 - 4


def test_a_whole_junior_game_at_a_table() -> None:
    """Deck "drawn", claims "card": seat 1 wins 3 points a round with the card the throw makes,
    seat 0 hesitates; no cup is filled and no dice are taken back."""
    state = table_game(2, "junior", deck="drawn", claims="card", first_player=1)
    rounds = 0
    while state.phase is not Phase.OVER:
        rounds += 1
        card = ROUND_CARDS[rounds - 1]
        for seat in (1, 0):
            need = 3 - len(state.hands[seat])
            if need:
                pool = [c for c in unseen_cards(state) if c not in ROUND_CARDS]
                mine = [card, *pool[: need - 1]] if seat == 1 else pool[:need]
                state, _ = play(state, DrawCards(seat, tuple(mine)))
        assert state.phase is Phase.THROW
        state, _ = play(state, ThrowDice.of(layout(Pool.each(4), square(square_of(card)))))
        state, _ = play(
            state, TakeMarker(1, 3, card), TakeMarker(0, 1, state.hands[0][0]), EndSearch()
        )
        state, events = play(state, Claim(1), Hesitate(0))
        assert "retrieval_order" not in kinds(events)
    assert rounds == 4 and state.scores == (-4, 12)
    assert state.outcome is not None and state.outcome.winner == "1"


def test_a_whole_antipodes_game_at_a_table() -> None:
    """Deck "drawn": six cards turned up each round. Seat 2 names a card with no prediction in
    six rounds and a card that has one in another; one round everyone agrees all exist; the
    first to 5 wins at once."""
    state = table_game(3, "antipodes", deck="drawn")
    plan = ["right", "wrong", "all", "right", "right", "right", "right", "right"]
    for step in plan:
        assert state.phase is Phase.DRAW
        others = [c for c in unseen_cards(state) if c != RYBK]
        six = (RYBK, *others[:5]) if step == "wrong" else tuple(others[:6])
        state, _ = play(state, RevealCards(six))
        line = step != "wrong"  # no prediction at all; else RYBK has one
        dice = in_a_line(state.cup) if line else layout(state.cup, square((R, Y, B, K)))
        state, _ = play(state, ThrowDice.of(dice))
        if step == "all":
            state, events = play(state, AllFound())
            assert len(only(events, "all_found").data["missed"]) == 6
        else:
            card = RYBK if step == "wrong" else state.shared[-1]
            state, events = play(state, NameCard(2, card))
        if state.phase is Phase.OVER:
            break
    assert state.scores == (0, 0, 5)
    assert state.outcome is not None and state.outcome.winner == "2"
    assert "cards_discarded" not in kinds(events)
