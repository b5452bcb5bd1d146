"""What the moderator needs of each game besides its engine (``GameRules``): how a seat's
presses become actions, what is said for each event, the eyes-closed script if any, the move
awaited under the hourglass, what the host may take back. Each game's own is in
``companion/at_table/<game>.py``; ``companion.at_table.RULES`` makes each title's with the
table's clock."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from companion.game import JSON, Action, Event
from companion.narration import Catalog
from companion.narration.script import Line, Pause
from companion.seat_input import Interpretation, Press, ignored


@dataclass(frozen=True)
class Timed:
    """A move awaited under the hourglass: ``seat`` has ``seconds``; then ``expire`` is sent.

    ``key`` names the countdown: after a change that leaves the same key (a score written while
    a turn runs), the sand runs on; None restarts it after every change (a move per turn)."""

    seat: int
    seconds: float
    expire: Action
    key: object = None


S = TypeVar("S")  # a game's state
P = TypeVar("P")  # its presses not yet made into an action (a squad being named), or None


@dataclass(frozen=True)
class GameRules(Generic[S, P]):
    """What the moderator needs of a title besides its engine: how presses map to actions,
    what is said for each event, and the night (or other eyes-closed) script, if any; typed by
    the game's state ``S`` and its pending input ``P``."""

    interpret: Callable[[S, P, Press], Interpretation[P]]
    blank_input: P
    lines: Callable[[Catalog, Event], list[str]]
    opening_script: Callable[[Catalog, Mapping[str, float]], tuple[Line | Pause, ...]] | None
    in_opening: Callable[[S], bool]
    end_opening: Callable[[], Action] | None
    introduce: Callable[[S], list[Event]]  # the starting situation, when there is no opening
    long_presses: bool = False  # False: a button held down (Press.long) means nothing here
    # what the table may see of the presses not yet made into an action (a squad being named,
    # which is said aloud as it is named); None: nothing
    show_input: Callable[[P], JSON | None] = lambda pending: None
    # the companion's own move when it plays a seat and it is that seat's turn, else None
    # (it may think a while: the table asks it off its lock)
    companion_move: Callable[[S], Action | None] | None = None
    # the move awaited under an hourglass now, if any
    timed_move: Callable[[S], Timed | None] = lambda state: None
    # what is awaited now (state, pending input), said again after a restart: public events
    awaiting: Callable[[S, P], list[Event]] = lambda state, pending: []
    # the pending input as JSON for the journal (public: it was said aloud), and back (from
    # what the journal holds); a restart keeps it (a squad half named). None: it is not kept
    keep_input: Callable[[P], object] = lambda pending: None
    restore_input: Callable[[Any], P] | None = None
    # the host's undo: whether ``action``, played on ``before``, may be taken back while it is
    # the last one: it revealed nothing, and the rules let it be played again. Public facts only
    # (the page offers it to the host, who is a player too)
    undoable: Callable[[S, Action], bool] = lambda before, action: False
    # the input half made again when ``action`` is taken back (the squad read back, awaiting the
    # Commandant's A); None: the blank input
    undone_input: Callable[[Action], P] | None = None


def kinds(*names: str) -> Callable[[object, Action], bool]:
    """``GameRules.undoable`` for the actions of these kinds, whatever the state."""
    return lambda before, action: action.kind in names


def _buttons_unused(state: object, pending: None, press: Press) -> Interpretation[None]:
    return Interpretation(pending, None, (ignored(press.seat, "buttons_unused"),))


def page_game_rules(
    narrate: Callable[[Catalog, Event], list[str]], introduce: Callable[[S], list[Event]]
) -> GameRules[S, None]:
    """A game played on the pages (the host's, the phones'), where a seat's buttons have no use:
    a press only tells the seat so."""

    def lines(catalog: Catalog, event: Event) -> list[str]:
        if event.kind == "press_ignored":
            return [catalog.text(f"ignored.{event.data['why']}", seat=event.data["seat"])]
        return narrate(catalog, event)

    return GameRules(
        interpret=_buttons_unused,
        blank_input=None,
        lines=lines,
        opening_script=None,
        in_opening=lambda state: False,
        end_opening=None,
        introduce=introduce,
    )
