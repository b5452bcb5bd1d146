"""A script: sentences and fixed pauses, spoken in order by the voice."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    text: str


@dataclass(frozen=True)
class Pause:
    seconds: float


Script = tuple[Line | Pause, ...]
