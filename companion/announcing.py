"""What the table says aloud and shows as it is said: the voice's part of ``Table``.

``tell_move`` is the one place that turns a move (its events, and at the end what the end
reveals) into what the table is told; the secrecy tests call it for a twin game, so that what
they compare is what the table would really say. ``Announcer`` adds the voice: the game's
language, the opening script paced line by line, and the hush when a game is replaced.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from companion.ending import ending, spoken
from companion.game import AudienceKind, Event
from companion.narration.script import Cue, Line, Pause
from companion.playing import Running
from companion.said import Said


class Voice(Protocol):
    def say(self, text: str, lang: str) -> None: ...

    def script(
        self,
        items: Sequence[Line | Pause | Cue],
        lang: str,
        then: Callable[[], None] | None = None,
    ) -> None: ...


@runtime_checkable
class Hushable(Protocol):
    """A voice that can drop what it has queued (the narrator): a replaced game says no more."""

    def hush(self) -> None: ...


def tell(said: Said, running: Running[Any, Any], events: Sequence[Event]) -> list[str]:
    """Tell the table what ``events`` say (the public ones alone), in ``running``'s language.
    A refused press during the eyes-closed opening is shown on the page, never spoken. Returns
    the events' lines, as told."""
    told: list[str] = []
    for event in events:
        if event.audience.kind is not AudienceKind.EVERYONE:
            continue
        lines = running.rules.lines(running.catalog, event)
        if event.kind == "press_ignored" and running.rules.in_opening(running.state):
            said.hold(" ".join(lines))
        else:
            said.speak(lines, running.catalog.lang)
        told += lines
    return told


def tell_move(said: Said, running: Running[Any, Any], events: Sequence[Event]) -> None:
    """Tell the table what a move's ``events`` say and, when the move ended the game, what
    its end reveals (kept in ``running.ending_said`` for the page's ending)."""
    told = tell(said, running, events)
    if running.over:
        running.ending_said = tuple(told)
        end = ending(running.game, running.state, running.catalog, told)
        said.speak(spoken(end, running.catalog) if end is not None else [], running.catalog.lang)


class Announcer:
    """The table's voice, and the lines the pages show (``said``)."""

    def __init__(self, voice: Voice, default_language: str) -> None:
        self.voice = voice
        self.default_language = default_language
        self.said = Said(lambda line, lang: self.voice.say(line, lang))

    def speak(self, running: Running[Any, Any] | None, lines: Sequence[str]) -> None:
        """Say ``lines`` in the running game's language (the table's own without one)."""
        self.said.speak(lines, running.catalog.lang if running else self.default_language)

    def tell(self, running: Running[Any, Any], events: Sequence[Event]) -> list[str]:
        return tell(self.said, running, events)

    def tell_move(self, running: Running[Any, Any], events: Sequence[Event]) -> None:
        tell_move(self.said, running, events)

    def hush(self) -> None:
        """The game is replaced: what its narration had queued is dropped at once."""
        if isinstance(self.voice, Hushable):
            self.voice.hush()

    def opening(
        self,
        running: Running[Any, Any],
        pauses: Mapping[str, float],
        shown: Callable[[str], None],
        then: Callable[[], None],
    ) -> None:
        """Say the game's opening script, if it is in its opening: each line is handed to
        ``shown`` as it is spoken, not before; ``then`` when the script is over."""
        rules = running.rules
        if rules.opening_script is None or not rules.in_opening(running.state):
            return
        paced: list[Line | Pause | Cue] = []
        for item in rules.opening_script(running.catalog, pauses):
            if isinstance(item, Line):
                paced.append(Cue(functools.partial(shown, item.text)))
            paced.append(item)
        self.voice.script(paced, running.catalog.lang, then=then)
