"""Les 7 Sages (RULES.md §5): seven sages a side chase one fool into the opponent's cité."""

from companion.games.sages.board import Side, Square
from companion.games.sages.engine import Sages
from companion.games.sages.state import (
    ACTIONS,
    AgreeDraw,
    MoveSage,
    Options,
    Phase,
    Place,
    SagesState,
    TimeUp,
)

__all__ = [
    "ACTIONS",
    "AgreeDraw",
    "MoveSage",
    "Options",
    "Phase",
    "Place",
    "Sages",
    "SagesState",
    "Side",
    "Square",
    "TimeUp",
]
