"""Résistance, the Battlestar Galactica re-theme (RULES.md §1)."""

from companion.games.resistance.engine import Resistance
from companion.games.resistance.state import (
    Card,
    CastVote,
    EndNight,
    Options,
    Phase,
    PlayMissionCard,
    ProposeSquad,
    ResistanceState,
    Side,
    Termination,
)

__all__ = [
    "Card",
    "CastVote",
    "EndNight",
    "Options",
    "Phase",
    "PlayMissionCard",
    "ProposeSquad",
    "Resistance",
    "ResistanceState",
    "Side",
    "Termination",
]
