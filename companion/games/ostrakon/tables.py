"""Ostrakon's printed numbers by player count (RULES.md §2), and the path's length."""

from __future__ import annotations

MIN_PLAYERS = 5
MAX_PLAYERS = 12

SQUARES = 16  # the numbered squares of the path
TEMPLE = SQUARES + 1  # the Temple of Wisdom counts as the square after 16; nobody goes further

# The square beside which the shuffled pile of philosophers starts.
START_SQUARE = {5: 5, 6: 5, 7: 2, 8: 2, 9: 1, 10: 1, 11: 2, 12: 2}

# Moons the Moon leaves visible on the Calendar at the start: the number of days.
DAYS = {5: 6, 6: 6, 7: 5, 8: 5, 9: 4, 10: 4, 11: 3, 12: 3}

# Philosophers the asker names on a day of Corruption or of the Oracle.
NAMED_ON_SPECIAL_DAYS = {5: 1, 6: 1, 7: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3}


def start_square(players: int) -> int:
    return START_SQUARE[players]


def days(players: int) -> int:
    return DAYS[players]


def named_on_special_days(players: int) -> int:
    """*k*: how many philosophers the asker names on a Corruption or Oracle day."""
    return NAMED_ON_SPECIAL_DAYS[players]
