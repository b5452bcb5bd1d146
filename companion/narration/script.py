"""A script: sentences and fixed pauses, spoken in order by the voice."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


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
