"""A game as it was played, replayed once from its actions: what every game's record is redacted
from (``companion/record.py``).

An engine says what its record may show with two methods that read a ``Played`` and replay
nothing: ``public_record(played)``, the actions with no secret in them, and ``public_setup(played)``
(if it has one), the options the record's header carries. ``Held`` keeps actions back until the
table sees them (votes until they are revealed, a cup's filling until it is thrown).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from companion.game import Action, Game

S = TypeVar("S")


@runtime_checkable
class Recorded(Game[S], Protocol[S]):
    """What a record's export needs of an engine (every engine has it)."""

    def public_record(self, played: Played[S]) -> list[Action]:
        """The actions of ``played`` as they may be shown to anyone: secrets re-dealt or left
        out. An engine may also have ``public_setup(played)``: the options the record replays
        under, in its header."""
        ...


@dataclass(frozen=True)
class Step(Generic[S]):
    """One action as it was played: the state before it and the state after."""

    before: S
    action: Action
    after: S


@dataclass(frozen=True)
class Played(Generic[S]):
    """A game started with ``options`` and ``seed``: its first state and every step since."""

    options: Mapping[str, Any]
    seed: int
    first: S
    steps: tuple[Step[S], ...]

    @property
    def last(self) -> S:
        return self.steps[-1].after if self.steps else self.first

    @property
    def actions(self) -> list[Action]:
        return [step.action for step in self.steps]

    def __iter__(self) -> Iterator[Step[S]]:
        return iter(self.steps)


def replayed(
    game: Game[S], actions: Sequence[Action], options: Mapping[str, Any], seed: int
) -> Played[S]:
    """Play ``actions`` again from the start: each was accepted when it was played."""
    first = state = game.new(options, seed)
    steps = []
    for action in actions:
        after, _ = game.apply(state, action)
        steps.append(Step(state, action, after))
        state = after
    return Played(options, seed, first, tuple(steps))


class Held:
    """Actions kept back from a record until the table sees them, then let go in one go.

    An action held under a ``key`` (a seat) replaces the one held under that key before, and
    keeps its place: a seat that changed its vote before the reveal shows only its last vote, in
    the order the seats first voted, as the cards lie face up.
    """

    def __init__(self) -> None:
        self._held: dict[Hashable, Action] = {}

    def hold(self, action: Action, key: Hashable | None = None) -> None:
        self._held[object() if key is None else key] = action

    def take(self, key: Hashable) -> Action:
        """Let one held action go, ahead of the others (a vote turned face up early)."""
        return self._held.pop(key)

    def release(self) -> list[Action]:
        """Every held action, in order; none is held afterwards."""
        out = list(self._held.values())
        self._held.clear()
        return out
