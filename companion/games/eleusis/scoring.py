"""Eleusis scores, from the seed's «La marque» (RULES.md §4): pure functions of counts.

- God admits a mistake: with at most 3 cards played, God is changed and nobody scores; with 4 or
  more, God scores -20 and everybody else 0.
- Otherwise each ordinary player (neither God nor the prophet) scores the largest hand among the
  ordinary players minus their own hand: the player with the most cards scores 0.
- With a prophet standing at the end: *A* is the number of cards laid after the prophet's marker,
  a refused card counting double; *B* is twice the number of cards laid up to the marker (the
  seed's «cartes jouées jusqu'à sa marque»; this project counts every card lying on the table
  then, the starting cards included). The prophet scores *A*; God scores the smaller of *A* and
  *B*.
- Without a prophet the seed is silent. Abbott's *New Eleusis* gives God the highest score of the
  players (option ``god_without_prophet: "highest"``, the default); ``"zero"`` gives God nothing.

*Laid* counts every card lying on the table; *played* (God's admitted mistake) only the cards the
players played, never the starting cards. With the companion as God, God's score is reported but
belongs to no seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

GOD_MISTAKE_POINTS = -20
CHANGE_GOD_AT_MOST = 3  # cards played: an admitted mistake this early changes God, no score


@dataclass(frozen=True)
class ProphetTally:
    """What the prophet's score is made of. ``laid_accepted``, ``laid_refused``: cards laid on
    the table after the marker was put down; ``laid_to_marker``: cards lying on the table when it
    was, the starting cards included."""

    seat: int
    laid_accepted: int
    laid_refused: int
    laid_to_marker: int

    @property
    def a(self) -> int:
        return prophet_total_a(self.laid_accepted, self.laid_refused)

    @property
    def b(self) -> int:
        return prophet_total_b(self.laid_to_marker)


@dataclass(frozen=True)
class Scores:
    """Every seat's points (God's seat, with a human God, holds God's points) and God's points.

    ``change_god``: God admitted a mistake early; nobody scores (``points`` is empty).
    """

    points: tuple[int, ...]
    god: int | None
    change_god: bool = False
    prophet: ProphetTally | None = None

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the highest score (none when nobody scores)."""
        if not self.points:
            return ()
        best = max(self.points)
        return tuple(seat for seat, p in enumerate(self.points) if p == best)

    def to_json(self) -> dict[str, object]:
        return {
            "points": list(self.points),
            "god": self.god,
            "change_god": self.change_god,
            "winners": list(self.winners),
            "prophet": None
            if self.prophet is None
            else {
                "seat": self.prophet.seat,
                "a": self.prophet.a,
                "b": self.prophet.b,
                "laid_accepted": self.prophet.laid_accepted,
                "laid_refused": self.prophet.laid_refused,
                "laid_to_marker": self.prophet.laid_to_marker,
            },
        }


def ordinary_scores(hands: Mapping[int, int]) -> dict[int, int]:
    """Each ordinary player's points: the largest hand among them minus their own."""
    if not hands:
        return {}
    largest = max(hands.values())
    return {seat: largest - size for seat, size in hands.items()}


def prophet_total_a(laid_accepted: int, laid_refused: int) -> int:
    """*A*: the cards laid after the marker, a refused card counting double."""
    return laid_accepted + 2 * laid_refused


def prophet_total_b(laid_to_marker: int) -> int:
    """*B*: twice the cards laid up to the marker."""
    return 2 * laid_to_marker


def god_with_prophet(a: int, b: int) -> int:
    """God's points when a prophet stands at the end: the smaller of *A* and *B*."""
    return min(a, b)


def god_mistake(players: int, god_seat: int | None, cards_played: int) -> Scores:
    """God admits a mistake: no score at all early on, else God -20 and the others 0."""
    if cards_played <= CHANGE_GOD_AT_MOST:
        return Scores(points=(), god=None, change_god=True)
    points = tuple(GOD_MISTAKE_POINTS if seat == god_seat else 0 for seat in range(players))
    return Scores(points=points, god=GOD_MISTAKE_POINTS)


def no_score() -> Scores:
    """A game that could not start (no card was ever accepted): nobody scores."""
    return Scores(points=(), god=None, change_god=True)


def god_without_prophet(ordinary: Mapping[int, int], highest: bool = True) -> int:
    """God's points when no prophet stands at the end (the seed is silent): with ``highest``
    (Abbott's *New Eleusis*), the highest score of the players; else 0."""
    if not highest:
        return 0
    return max(ordinary.values(), default=0)


def final_scores(
    players: int,
    god_seat: int | None,
    ordinary_hands: Mapping[int, int],
    prophet: ProphetTally | None = None,
    god_takes_highest: bool = True,
) -> Scores:
    """The scores of a game ended by an empty hand or by eliminations.

    ``ordinary_hands``: the hand sizes of the players who are neither God nor the prophet.
    ``god_takes_highest``: without a prophet, God scores the highest score of the players
    (Abbott's rule) rather than 0.
    """
    ordinary = ordinary_scores(ordinary_hands)
    if prophet is None:
        god = god_without_prophet(ordinary, god_takes_highest)
    else:
        god = god_with_prophet(prophet.a, prophet.b)
    points = []
    for seat in range(players):
        if seat == god_seat:
            points.append(god)
        elif prophet is not None and seat == prophet.seat:
            points.append(prophet.a)
        else:
            points.append(ordinary.get(seat, 0))
    return Scores(points=tuple(points), god=god, prophet=prophet)
