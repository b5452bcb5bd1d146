"""Each game at the table: its ``GameRules`` (``companion/game_rules.py``), made with the table's
clock (only Ostrakon's presses read it), by its title. A new game adds its module here and one
line to ``RULES``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.at_table import eleusis, night, oraklos, ostrakon, resistance, sages
from companion.game_rules import GameRules
from companion.timers import Clock

RULES: dict[str, Callable[[Clock], GameRules[Any, Any]]] = {
    "resistance": resistance.rules,
    "oraklos": oraklos.rules,
    "ostrakon": ostrakon.rules,
    "eleusis": eleusis.rules,
    "sages": sages.rules,
    "night": night.rules,
}
