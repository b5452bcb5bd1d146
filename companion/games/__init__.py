"""The game engines, by title. Each is pure: see ``companion.game``."""

from __future__ import annotations

from typing import Any

from companion.game import Game
from companion.games.eleusis import Eleusis
from companion.games.night import Night
from companion.games.oraklos.engine import Oraklos
from companion.games.ostrakon import Ostrakon
from companion.games.resistance import Resistance
from companion.games.sages import Sages

GAMES: dict[str, Game[Any]] = {
    Resistance.title: Resistance(),
    Oraklos.title: Oraklos(),
    Ostrakon.title: Ostrakon(),
    Eleusis.title: Eleusis(),
    Sages.title: Sages(),
    Night.title: Night(),
}


def game_for(title: str) -> Game[Any]:
    try:
        return GAMES[title]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise KeyError(f"no game called {title!r}; this companion knows: {known}") from None
