"""A script: sentences and fixed pauses, spoken in order by the voice."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from companion.game import AudienceKind, Event
from companion.narration.catalog import Catalog


@dataclass(frozen=True)
class Line:
    text: str


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class Cue:
    """Something to do at this point of a script, in the voice's thread (e.g. show the line
    about to be spoken, or end the night once it has been spoken)."""

    callback: Callable[[], None]


Script = tuple[Line | Pause, ...]


Narrate = Callable[[Catalog, Event], list[str]]


def for_everyone(lines: Narrate) -> Narrate:
    """A game's narration speaks only what is for everyone: an event meant for one seat (or
    for nobody) is never said aloud, whatever the game's ``lines`` would say of it."""

    @functools.wraps(lines)
    def spoken(catalog: Catalog, event: Event) -> list[str]:
        if event.audience.kind is not AudienceKind.EVERYONE:
            return []
        return lines(catalog, event)

    return spoken
