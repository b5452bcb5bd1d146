"""What a seat can do with its hands: press A or B. Button boxes and phones both report this."""

from __future__ import annotations

import enum
from dataclasses import dataclass


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
