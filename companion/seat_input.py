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
    seat: int
    button: Button
