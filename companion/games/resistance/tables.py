"""The printed tables of Résistance (RULES.md §1): Cylons and squad sizes by player count."""

from __future__ import annotations

MIN_PLAYERS = 5
MAX_PLAYERS = 10
MISSIONS = 5
WINNING_SCORE = 3
MAX_REJECTIONS = 5

CYLONS = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}

SQUAD_SIZES = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}


def squad_size(players: int, mission: int) -> int:
    return SQUAD_SIZES[players][mission - 1]


def fails_needed(players: int, mission: int) -> int:
    """Mission 4 fails only with two Fail cards at seven players or more."""
    return 2 if mission == 4 and players >= 7 else 1
