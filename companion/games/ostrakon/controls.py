"""Playing Ostrakon with two buttons per seat (A, B) and no screen.

Who presses what, phase by phase:

- *Question*: the asker presses A once the question is put and the colours are said (``Ask``).
- *Vote*, votes by buttons: A lays a white tesson, B a black one (``Vote``), the asker included.
  A tesson may be changed, with the other button, until the last philosopher has voted.
- *Vote*, votes by camera: a philosopher presses either button once their real tesson lies
  face down (``TessonLaid``); when every tesson is down the reveal begins.
- *Disciple*: a **long press of A** (held for the box's ``hold`` seconds) claims to be the
  asker's disciple (``ClaimDisciple``). The button box reports the press at once, on the way
  down, and the long press only when the hold time has passed: so a long press is also a short
  press, and lays a white tesson (by camera: says the tesson is down) before the claim. The
  philosopher may change that tesson with B as usual. Hence: *hold A before voting*. A
  philosopher whose white tesson would be the last of the others' is then too late to claim (the
  engine counts the tesson just laid), and if it is the very last tesson the vote closes at
  once. A long press from the asker, or in any other phase, is the tail of a short press that
  already did its job: it is ignored without a word.
- *Disciple claimed together*: "en cas de contestation c'est le joueur qui se trouve le plus loin
  de l'arrivée qui gagne". A long press of A that comes within ``TOGETHER`` seconds of the
  turn's first accepted claim was made together with it: it becomes a contest
  (``ContestDisciple``) between everyone whose claim stands and this philosopher, won by the one
  farthest from the Temple. Later, it is a claim alone, refused since the disciple is taken.
  Measuring needs a clock: ``Buttons`` (what the moderator uses) holds one and the time of the
  turn's first claim; ``interpret`` alone, without them, sends every long press as a claim. A
  claim typed on the host page has no time here: a contest with it is settled on that page.
- *Naming* (Corruption, Oracle): the asker names *k* philosophers aloud; each named one presses
  A to step forward (B to step back). Once *k* have stepped forward the companion reads them
  back and the asker confirms with A (``Name``) or starts again with B (B clears the naming at
  any time).
- *Flip* (Oracle, Tromperie): the asker presses A to keep their tesson, B to turn it (``Flip``).
  By camera on a day of Tromperie the asker may instead turn the real tesson and have the
  camera read it again.
- *Reveal* (votes by camera): the tessons are read by the camera; buttons are not used.

Presses from seats with no say now are ignored with a spoken reason (``press_ignored``).

This module is pure: it turns a press and the tentative naming into an action for the engine
and feedback for the table. Feedback never depends on a secret: a vote gives none, and a flip
on an Oracle day gives none either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.game import Action, Event
from companion.games.ostrakon.engine import Ostrakon
from companion.games.ostrakon.state import (
    Ask,
    ClaimDisciple,
    ContestDisciple,
    Flip,
    Name,
    OstrakonState,
    Phase,
    TessonLaid,
    Vote,
)
from companion.seat_input import Button, Interpretation, Press, ignored

TOGETHER = 1.0  # seconds: long presses of A this close to the turn's first claim came with it


@dataclass(frozen=True)
class Naming:
    """The philosophers who stepped forward, before the asker confirms. Not journalled."""

    named: tuple[int, ...] = ()


@dataclass(frozen=True)
class FirstClaim:
    """The turn's first claim sent by a long press, and when it came (the ``Buttons`` clock)."""

    turn: int
    seat: int
    at: float


def claim(
    state: OstrakonState, first: FirstClaim | None, seat: int, now: float, window: float = TOGETHER
) -> tuple[Action, FirstClaim | None]:
    """A long press of A from ``seat`` at ``now``: a claim, or a contest if it came within
    ``window`` seconds of ``first``, the turn's first claim, and that claim stands. Returns the
    action and the first claim to remember."""
    with_first = (
        first is not None
        and first.turn == state.turn
        and first.seat in state.claimants
        and seat not in state.claimants
        and 0 <= now - first.at <= window
    )
    if with_first:
        return ContestDisciple(tuple(sorted((*state.claimants, seat)))), first
    if state.claimants:  # too late to be together with the claim standing: refused as taken
        return ClaimDisciple(seat), first
    return ClaimDisciple(seat), FirstClaim(state.turn, seat, now)


class Buttons:
    """``interpret`` with a clock, as the moderator uses it: remembers the turn's first claim by
    a long press, so that a second one within ``window`` seconds is a contest (``claim``). Called
    under the table's lock, one press at a time; nothing here is journalled (a restart forgets a
    claim made a second ago, and the next long press is a claim alone)."""

    def __init__(self, clock: Callable[[], float], window: float = TOGETHER) -> None:
        self.clock = clock
        self.window = window
        self.first: FirstClaim | None = None

    def __call__(
        self, state: OstrakonState, naming: Naming | None, press: Press
    ) -> Interpretation[Naming | None]:
        result = interpret(state, naming, press)
        if isinstance(result.action, ClaimDisciple):
            action, self.first = claim(state, self.first, press.seat, self.clock(), self.window)
            return Interpretation(result.pending, action, result.feedback)
        return result


def awaiting(state: OstrakonState, naming: Naming | None) -> list[Event]:
    """What the table awaits now, said again after a restart: the turn and its step (counts of
    the tessons laid, never whose is what), then how far the naming has gone, if it has."""
    events = Ostrakon().situation_events(state)
    named = naming.named if isinstance(naming, Naming) else ()
    if state.phase is not Phase.NAME or not named:
        return events
    asker, size = state.asker, state.options.named
    if len(named) == size:
        events.append(Event("naming_read_back", {"asker": asker, "named": list(named)}))
        return events
    for count, seat in enumerate(named, start=1):  # each step forward, as it was said
        events.append(Event("named_in", {"seat": seat, "count": count, "size": size}))
    return events


def interpret(
    state: OstrakonState, naming: Naming | None, press: Press
) -> Interpretation[Naming | None]:
    naming = naming if isinstance(naming, Naming) else Naming()
    seat, button = press.seat, press.button
    if not 0 <= seat < state.players:
        return _ignore(naming, seat, "no_such_seat")
    if state.phase is Phase.OVER:
        return _ignore(naming, seat, "game_over")
    asker = state.asker
    if press.long:
        if button is Button.A and state.phase is Phase.VOTE and seat != asker:
            return Interpretation(naming, ClaimDisciple(seat))
        return Interpretation(naming)
    if state.phase is Phase.QUESTION:
        if seat != asker:
            return _ignore(naming, seat, "question_first", asker=asker)
        if button is Button.B:
            return _ignore(naming, seat, "ask_with_a")
        return Interpretation(naming, Ask(seat))
    if state.phase is Phase.VOTE:
        if not state.options.camera:
            return Interpretation(naming, Vote(seat, button is Button.A))
        if state.laid[seat]:
            return _ignore(naming, seat, "tesson_already_down")
        return Interpretation(naming, TessonLaid(seat))
    if state.phase is Phase.NAME:
        return _name(state, naming, seat, button)
    if state.phase is Phase.FLIP:
        if seat != asker:
            return _ignore(naming, seat, "asker_decides", asker=asker)
        return Interpretation(naming, Flip(seat, button is Button.B))
    return _ignore(naming, seat, "camera_reads")  # Phase.REVEAL


def _name(
    state: OstrakonState, naming: Naming, seat: int, button: Button
) -> Interpretation[Naming | None]:
    asker = state.asker
    assert asker is not None
    size = state.options.named
    named = naming.named
    full = len(named) == size
    if seat == asker:
        if button is Button.B:
            return Interpretation(Naming(), feedback=(Event("naming_cleared", {"asker": asker}),))
        if not full:
            return _ignore(naming, seat, "asker_confirms", count=size)
        return Interpretation(Naming(), Name(asker, tuple(sorted(named))))
    if button is Button.B:
        if seat not in named:
            return _ignore(naming, seat, "not_stepped_forward")
        left = tuple(s for s in named if s != seat)
        return Interpretation(
            Naming(left),
            feedback=(Event("named_out", {"seat": seat, "count": len(left), "size": size}),),
        )
    if seat in named:
        return _ignore(naming, seat, "already_forward")
    if full:
        return _ignore(naming, seat, "naming_full", asker=asker)
    joined = tuple(sorted((*named, seat)))
    feedback = [Event("named_in", {"seat": seat, "count": len(joined), "size": size})]
    if len(joined) == size:
        feedback.append(Event("naming_read_back", {"asker": asker, "named": list(joined)}))
    return Interpretation(Naming(joined), feedback=tuple(feedback))


def _ignore(naming: Naming, seat: int, why: str, **more: object) -> Interpretation[Naming | None]:
    event = ignored(seat, why)
    if more:
        event = Event(event.kind, {**event.data, **more})
    return Interpretation(naming, feedback=(event,))
