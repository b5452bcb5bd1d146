"""Eleusis scores: the seed's «La marque», one sentence per test (``scoring.py``)."""

from __future__ import annotations

from companion.games.eleusis.scoring import (
    ProphetTally,
    Scores,
    final_scores,
    god_mistake,
    god_with_prophet,
    no_score,
    ordinary_scores,
    prophet_total_a,
    prophet_total_b,
)

# -- «Lorsque la partie se termine sur l'aveu d'une erreur de Dieu» ------------------------------


def test_god_admitting_a_mistake_with_at_most_three_cards_played_changes_god_without_score() -> (
    None
):
    for played in (0, 1, 2, 3):
        scores = god_mistake(players=6, god_seat=2, cards_played=played)
        assert scores.change_god
        assert scores.points == ()
        assert scores.god is None
        assert scores.winners == ()


def test_god_admitting_a_mistake_with_four_cards_played_scores_minus_twenty() -> None:
    scores = god_mistake(players=6, god_seat=2, cards_played=4)
    assert not scores.change_god
    assert scores.god == -20
    assert scores.points[2] == -20


def test_the_others_score_nothing_when_god_admits_a_late_mistake() -> None:
    scores = god_mistake(players=6, god_seat=2, cards_played=57)
    assert [p for seat, p in enumerate(scores.points) if seat != 2] == [0, 0, 0, 0, 0]
    assert scores.winners == (0, 1, 3, 4, 5)


# -- «Les joueurs ordinaires ... marquent la différence ... avec celui qui en possède le plus» ----


def test_ordinary_players_score_the_largest_hand_minus_their_own() -> None:
    assert ordinary_scores({0: 3, 1: 10, 2: 7}) == {0: 7, 1: 0, 2: 3}


def test_the_player_with_the_most_cards_scores_zero() -> None:
    scores = ordinary_scores({0: 12, 1: 12, 2: 4})
    assert scores[0] == scores[1] == 0


def test_the_player_with_no_cards_left_scores_the_largest_hand() -> None:
    assert ordinary_scores({0: 0, 1: 9, 2: 5})[0] == 9


def test_god_and_the_prophet_are_not_ordinary_players() -> None:
    tally = ProphetTally(seat=3, laid_accepted=0, laid_refused=0, laid_to_marker=5)
    scores = final_scores(players=5, god_seat=0, ordinary_hands={1: 4, 2: 6, 4: 1}, prophet=tally)
    assert scores.points[1] == 2  # 6 - 4: the prophet's hand (aside) is not the largest
    assert scores.points[4] == 5


# -- «S'il existait un prophète» ----------------------------------------------------------------


def test_total_a_counts_the_cards_after_the_marker_refused_ones_double() -> None:
    assert prophet_total_a(laid_accepted=7, laid_refused=4) == 15


def test_total_b_is_twice_the_cards_laid_up_to_the_marker() -> None:
    """«On compte également le nombre de cartes jouées jusqu'à sa marque, que l'on multiplie par
    deux. Cela constitue le total B.» (Counted as the cards laid: the starting cards included.)"""
    assert prophet_total_b(laid_to_marker=9) == 18


def test_the_prophet_scores_a() -> None:
    tally = ProphetTally(seat=1, laid_accepted=7, laid_refused=4, laid_to_marker=9)
    scores = final_scores(
        players=4, god_seat=None, ordinary_hands={0: 3, 2: 5, 3: 8}, prophet=tally
    )
    assert scores.points[1] == 15


def test_god_scores_the_smaller_of_a_and_b() -> None:
    assert god_with_prophet(15, 18) == 15
    assert god_with_prophet(15, 10) == 10


def test_a_human_gods_seat_holds_gods_score() -> None:
    tally = ProphetTally(seat=1, laid_accepted=20, laid_refused=5, laid_to_marker=6)
    scores = final_scores(players=5, god_seat=0, ordinary_hands={2: 3, 3: 5, 4: 8}, prophet=tally)
    assert scores.god == 12
    assert scores.points[0] == 12
    assert scores.points[1] == 30


# -- without a prophet: the seed is silent ------------------------------------------------------


def test_without_a_prophet_god_scores_the_highest_score_of_the_players() -> None:
    """The seed gives God's score only «S'il existait un prophète»; Abbott's *New Eleusis* gives
    the dealer the highest score of the players (option ``god_without_prophet``, default)."""
    scores = final_scores(players=5, god_seat=0, ordinary_hands={1: 3, 2: 5, 3: 8, 4: 0})
    assert scores.god == 8
    assert scores.points == (8, 5, 3, 0, 8)
    assert scores.winners == (0, 4)  # God shares the victory with the best player


def test_without_a_prophet_god_may_score_nothing_as_an_option() -> None:
    scores = final_scores(
        players=5, god_seat=0, ordinary_hands={1: 3, 2: 5, 3: 8, 4: 0}, god_takes_highest=False
    )
    assert scores.god == 0
    assert scores.points == (0, 5, 3, 0, 8)


def test_god_scores_the_seeds_min_a_b_when_a_prophet_stands_whatever_the_option() -> None:
    """«Le prophète marque le total A, Dieu marque le plus petit des totaux A ou B.»"""
    tally = ProphetTally(seat=1, laid_accepted=2, laid_refused=0, laid_to_marker=6)
    for highest in (True, False):
        scores = final_scores(
            players=5,
            god_seat=0,
            ordinary_hands={2: 9, 3: 5, 4: 0},
            prophet=tally,
            god_takes_highest=highest,
        )
        assert scores.god == 2


def test_the_companions_score_belongs_to_no_seat() -> None:
    tally = ProphetTally(seat=1, laid_accepted=3, laid_refused=0, laid_to_marker=20)
    scores = final_scores(players=3, god_seat=None, ordinary_hands={0: 3, 2: 5}, prophet=tally)
    assert scores.god == 3
    assert scores.points == (2, 3, 0)


def test_the_winners_are_the_highest_scores() -> None:
    assert Scores(points=(4, 9, 9, 0), god=0).winners == (1, 2)


def test_a_game_that_never_started_scores_nothing() -> None:
    assert no_score().winners == ()
    assert no_score().change_god
