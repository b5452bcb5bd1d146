"""Every game engine, by its title."""

from __future__ import annotations

from typing import Any

from companion.game import Game
from companion.games.eleusis.engine import Eleusis
from companion.games.night.engine import Night
from companion.games.oraklos.engine import Oraklos
from companion.games.ostrakon.engine import Ostrakon
from companion.games.resistance.engine import Resistance
from companion.games.sages.engine import Sages

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
