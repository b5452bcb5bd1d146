"""What a seat can do with its hands: press A or B. Button boxes and phones both report this."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Generic, TypeVar

from companion.game import Action, Event


class Button(enum.Enum):
    """A = yes / success / white; B = no / fail / black."""

    A = "A"
    B = "B"


@dataclass(frozen=True)
class Press:
    """A seat pressed a button. ``long``: the button has now been held for the box's hold time
    (reported after the ordinary press, which came on the way down)."""

    seat: int
    button: Button
    long: bool = False


P = TypeVar("P")


@dataclass(frozen=True)
class Interpretation(Generic[P]):
    """What a press means to a game's controls: the tentative input after it (a squad being
    named...; not journalled), and an action and words, if any."""

    pending: P
    action: Action | None = None
    feedback: tuple[Event, ...] = ()


def ignored(seat: int, why: str) -> Event:
    """A press that does nothing, and the catalog's ``ignored.<why>`` sentence saying why."""
    return Event("press_ignored", {"seat": seat, "why": why})
