"""What the moderator needs of each game besides its engine (``GameRules``): how a seat's
presses become actions, what is said for each event, the eyes-closed script if any, the move
awaited under the hourglass, what the host may take back. ``RULES`` makes each title's, with
the table's clock."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from companion.game import JSON, Action, Event
from companion.games.resistance import controls as resistance_controls
from companion.narration import Catalog
from companion.narration import resistance as resistance_narration
from companion.narration.script import Line, Pause
from companion.seat_input import Interpretation, Press, ignored
from companion.timers import Clock

if TYPE_CHECKING:
    from companion.games.eleusis.state import EleusisState
    from companion.games.night.state import NightState
    from companion.games.oraklos.state import OraklosState
    from companion.games.ostrakon.controls import Naming
    from companion.games.ostrakon.state import OstrakonState
    from companion.games.resistance.controls import Nomination
    from companion.games.resistance.state import ResistanceState
    from companion.games.sages.state import SagesState


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


def _resistance_rules(clock: Clock) -> GameRules[ResistanceState, Nomination]:
    from companion.games.resistance.engine import Resistance
    from companion.games.resistance.state import EndNight, Phase

    return GameRules(
        interpret=resistance_controls.interpret,
        blank_input=resistance_controls.Nomination(),
        lines=resistance_narration.lines,
        opening_script=resistance_narration.night_script,
        in_opening=lambda state: state.phase is Phase.NIGHT,
        end_opening=EndNight,
        introduce=Resistance().opening_events,
        show_input=resistance_controls.Nomination.to_json,
        awaiting=resistance_controls.awaiting,
        keep_input=resistance_controls.Nomination.to_json,
        restore_input=resistance_controls.Nomination.from_json,
        # a squad confirmed by mistake, before anyone votes: read back again, awaiting A or B
        undoable=kinds("propose"),
        undone_input=resistance_controls.Nomination.confirming,
    )


def _buttons_unused(state: object, pending: None, press: Press) -> Interpretation[None]:
    return Interpretation(pending, None, (ignored(press.seat, "buttons_unused"),))


def _page_game_rules(
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


def _oraklos_rules(clock: Clock) -> GameRules[OraklosState, None]:
    """Oraklos is played on the page and read by the camera."""
    from companion.games.oraklos.engine import Oraklos
    from companion.narration import oraklos as oraklos_narration

    page = _page_game_rules(oraklos_narration.lines, Oraklos().opening_events)
    # the dice as read and their corrections, and a marker laid on the wrong card: all face up.
    # Never a claim (its verdict stands), a draw (a card seen) or the cup (filled in secret)
    undoable = kinds("throw", "correct_die", "remove_die", "add_die", "take_marker")
    return dataclasses.replace(
        page,
        undoable=undoable,
        awaiting=lambda state, pending: Oraklos().situation_events(state),
    )


def _eleusis_rules(clock: Clock) -> GameRules[EleusisState, None]:
    """Eleusis is played from the phones (each hand on its seat's page) or entered by the host."""
    from companion.games.eleusis.engine import Eleusis
    from companion.narration import eleusis as eleusis_narration

    page = _page_game_rules(eleusis_narration.lines, Eleusis().opening_events)
    return dataclasses.replace(
        page, awaiting=lambda state, pending: Eleusis().situation_events(state)
    )


def _sages_rules(clock: Clock) -> GameRules[SagesState, None]:
    """Les 7 Sages is played on the page (beside the real board, or on it alone); the companion
    may play one side, and an hourglass may time each move."""
    from companion.games.sages import opponent
    from companion.games.sages.engine import Sages, hourglass
    from companion.games.sages.state import MoveSage, Place
    from companion.narration import sages as sages_narration

    def timed(state: SagesState) -> Timed | None:
        awaited = hourglass(state)
        if awaited is None:
            return None
        seconds, expire = awaited
        return Timed(expire.seat, seconds, expire)

    def undoable(before: SagesState, action: Action) -> bool:
        """A sage placed or moved by a player (never the companion's own move, which it would
        only play again): everything is in sight on the board."""
        computer = before.options.computer
        return isinstance(action, Place | MoveSage) and (
            computer is None or action.seat != computer.seat
        )

    page = _page_game_rules(sages_narration.lines, Sages().opening_events)
    return dataclasses.replace(
        page,
        companion_move=opponent.companion_move,
        timed_move=timed,
        awaiting=lambda state, pending: Sages().situation_events(state),
        undoable=undoable,
    )


def _night_rules(clock: Clock) -> GameRules[NightState, None]:
    """Game night: the tools are used on the pages; A on any seat passes the turn timer's
    turn, which runs on the moderator's hourglass like Les 7 Sages' moves."""
    from companion.games.night.controls import interpret
    from companion.games.night.engine import Night, timed
    from companion.narration import night as night_narration

    def turn(state: NightState) -> Timed | None:
        running = timed(state)
        if running is None:
            return None
        run, seconds, expire = running
        return Timed(expire.seat, seconds, expire, key=run)

    return GameRules(
        interpret=interpret,
        blank_input=None,
        lines=night_narration.lines,
        opening_script=None,
        in_opening=lambda state: False,
        end_opening=None,
        introduce=Night().opening_events,
        timed_move=turn,
        awaiting=lambda state, pending: Night().situation_events(state),
        # the dice and the score pad, as entered: never who starts (a draw the host could redo)
        # nor the turn timer's turns
        undoable=kinds("read_dice", "correct_die", "count_by_color", "write_score", "new_sheet"),
    )


def _ostrakon_rules(clock: Clock) -> GameRules[OstrakonState, Naming | None]:
    """Ostrakon is played with the seat buttons (or real tessons read by the camera); there is
    no eyes-closed phase: the game opens with the setup and the first question."""
    from companion.games.ostrakon import controls as ostrakon_controls
    from companion.games.ostrakon.engine import Ostrakon
    from companion.narration import ostrakon as ostrakon_narration

    return GameRules(
        # on the table's clock: a long press of A soon after the first claim contests it
        interpret=ostrakon_controls.Buttons(clock.now),
        blank_input=ostrakon_controls.Naming(),
        lines=ostrakon_narration.lines,
        opening_script=None,
        in_opening=lambda state: False,
        end_opening=None,
        introduce=Ostrakon().opening_events,
        long_presses=True,  # a long press of A claims to be the disciple
        awaiting=ostrakon_controls.awaiting,
        keep_input=lambda naming: list(naming.named) if naming else None,
        restore_input=lambda named: ostrakon_controls.Naming(tuple(int(s) for s in named)),
        undoable=kinds("ask"),  # a question opened by mistake, before any tesson is laid
    )


RULES: dict[str, Callable[[Clock], GameRules[Any, Any]]] = {
    # each game's rules, made with the table's clock (only Ostrakon's presses read it)
    "resistance": _resistance_rules,
    "oraklos": _oraklos_rules,
    "ostrakon": _ostrakon_rules,
    "eleusis": _eleusis_rules,
    "sages": _sages_rules,
    "night": _night_rules,
}
