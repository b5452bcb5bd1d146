"""The steps every engine's rule tests take: play actions, expect a refusal that changes
nothing, and pick events by kind. A test module binds them to its engine:
``play = functools.partial(steps.play, GAME)``."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import pytest

from companion.game import Action, Event, Game, IllegalAction


def play(game: Game[Any], state: Any, *actions: Action) -> tuple[Any, list[Event]]:
    """Apply ``actions`` in order; the state reached and every event on the way."""
    events: list[Event] = []
    for action in actions:
        state, more = game.apply(state, action)
        events.extend(more)
    return state, events


def refused(game: Game[Any], state: Any, action: Action, code: str | None = None) -> IllegalAction:
    """Apply an action the rules refuse (with ``code``, if given); check the state is untouched
    and return the refusal."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as caught:
        game.apply(state, action)
    assert state == before
    if code is not None:
        assert caught.value.code == code, caught.value
    return caught.value


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def only(events: Iterable[Event], kind: str) -> Event:
    """The one event of ``kind`` (fails if there is none or several)."""
    found = [e for e in events if e.kind == kind]
    assert len(found) == 1, kinds(events)
    return found[0]
