"""Playing Résistance with two buttons per seat and no screen.

- Night: presses are ignored (everyone's eyes are closed).
- Squad: the Commandant names the squad aloud; each named player presses A to join (B to step
  back out). With "Attaques ciblées" the Commandant first picks the mission: A offers the next
  available one, B takes the mission offered. When the squad is complete the companion reads it
  back and the Commandant confirms with A, or starts again with B.
- Vote: A = yes, B = no. A seat may change its vote until the last seat has voted.
- Mission: a squad member plays A = Success or B = Fail (changeable until the last card is in).

With digital identities, a Colon's B is played as Success. Refusing it would leak: a refusal is
spoken, and a press left unanswered leaves the seat's LED dark for all to see. Played as Success,
it lights the LED and says nothing, exactly as a Cylon's Fail does; the seat's private page, if it
has one, shows the card it played.

With *Le Plan* (option ``plot``) the buttons still vote and play Mission cards (opinion makers
first: other presses wait for them), but plot cards are handed and played on the host page or the
players' phones: a press while a plot card is being handed or played is ignored with a word
(``plot_on_page``). A table with buttons only plays without the expansion.

This module is pure: it turns a press and the tentative squad into an action for the engine and
feedback for the table. Feedback never depends on a secret: a vote or a mission card gives none.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from companion.game import Action, Event
from companion.games.resistance.engine import Resistance
from companion.games.resistance.state import (
    Card,
    CastVote,
    Phase,
    PlayMissionCard,
    ProposeSquad,
    ResistanceState,
    Side,
)
from companion.games.resistance.tables import squad_size
from companion.seat_input import Button, Interpretation, Press, ignored


@dataclass(frozen=True)
class Nomination:
    """The squad being named, before the Commandant confirms it. Tentative: not journalled."""

    offered: int | None = None  # "Attaques ciblées": the mission last offered to the Commandant
    mission: int | None = None  # the mission chosen (or the only one, without the variant)
    members: tuple[int, ...] = ()

    def to_json(self) -> dict[str, object]:
        """For the page: public, since every step of the naming is said aloud."""
        return {"offered": self.offered, "mission": self.mission, "members": list(self.members)}

    @classmethod
    def confirming(cls, proposal: Action) -> Nomination:
        """The squad of ``proposal`` (a ProposeSquad) named again in full, as it was just before
        the Commandant confirmed it: the host's undo of a confirmation."""
        assert isinstance(proposal, ProposeSquad)
        return cls(proposal.mission, proposal.mission, proposal.squad)

    @classmethod
    def from_json(cls, data: object) -> Nomination:
        """A squad half named, as ``to_json`` wrote it to the journal (a restart keeps it)."""
        if not isinstance(data, dict):
            return cls()
        offered, mission, members = data.get("offered"), data.get("mission"), data.get("members")
        return cls(
            offered if isinstance(offered, int) else None,
            mission if isinstance(mission, int) else None,
            tuple(m for m in members if isinstance(m, int)) if isinstance(members, list) else (),
        )


def awaiting(state: ResistanceState, nomination: Nomination) -> list[Event]:
    """What the table awaits now, said again after a restart: the game's situation (counts of
    the secret votes and cards, never whose is what) and how far the squad has been named."""
    events = Resistance().situation_events(state)
    if state.phase is not Phase.PROPOSE or nomination == Nomination():
        return events
    mission = nomination.mission if state.options.targeting else state.mission
    if mission is None:  # "Attaques ciblées": a mission offered, not yet chosen
        if nomination.offered is not None:
            size = squad_size(state.players, nomination.offered)
            events.append(Event("mission_offered", {"mission": nomination.offered, "size": size}))
        return events
    size = squad_size(state.players, mission)
    if state.options.targeting:
        events.append(
            Event(
                "mission_chosen", {"commander": state.commander, "mission": mission, "size": size}
            )
        )
    members = list(nomination.members)
    if len(members) == size:
        events.append(
            Event(
                "squad_read_back",
                {"commander": state.commander, "squad": members, "mission": mission},
            )
        )
    elif members:
        events.append(
            Event("squad_so_far", {"squad": members, "count": len(members), "size": size})
        )
    return events


def interpret(
    state: ResistanceState, nomination: Nomination, press: Press
) -> Interpretation[Nomination]:
    seat, button = press.seat, press.button
    if not 0 <= seat < state.players:
        return Interpretation(nomination, feedback=(ignored(seat, "no_such_seat"),))
    if state.phase is Phase.NIGHT:
        return Interpretation(nomination, feedback=(ignored(seat, "night"),))
    if state.phase is Phase.OVER:
        return Interpretation(nomination, feedback=(ignored(seat, "game_over"),))
    if state.phase in (Phase.PLOT_HAND, Phase.PLOT_IMMEDIATE, Phase.PLOT_WINDOW):
        return Interpretation(nomination, feedback=(ignored(seat, "plot_on_page"),))
    if state.phase is Phase.VOTE:
        game = Resistance()
        makers = game.opinion_makers(state)
        if makers and seat not in makers and not game.opinion_open(state):
            return Interpretation(nomination, feedback=(ignored(seat, "opinion_makers_first"),))
        return Interpretation(nomination, CastVote(seat, button is Button.A))
    if state.phase is Phase.MISSION:
        if seat not in state.squad:
            return Interpretation(nomination, feedback=(ignored(seat, "not_on_squad"),))
        colon = state.identities is not None and state.identities[seat] is Side.COLONS
        card = Card.SUCCESS if button is Button.A or colon else Card.FAIL
        return Interpretation(nomination, PlayMissionCard(seat, card))
    return _nominate(state, nomination, seat, button)


def _nominate(
    state: ResistanceState, nomination: Nomination, seat: int, button: Button
) -> Interpretation[Nomination]:
    commander = seat == state.commander
    mission = nomination.mission if state.options.targeting else state.mission
    if mission is None:
        return _choose_mission(state, nomination, seat, button)
    size = squad_size(state.players, mission)
    members = nomination.members
    member = seat in members
    full = len(members) == size

    if commander and full:
        if button is Button.A:
            chosen = mission if state.options.targeting else None
            return Interpretation(Nomination(), ProposeSquad(seat, tuple(sorted(members)), chosen))
        return Interpretation(Nomination(), feedback=(Event("squad_cleared", {"commander": seat}),))
    if button is Button.B and member:
        left = tuple(s for s in members if s != seat)
        return Interpretation(
            dataclasses.replace(nomination, mission=mission, members=left),
            feedback=(Event("squad_member_out", {"seat": seat, "count": len(left), "size": size}),),
        )
    if button is Button.B:
        if commander:
            return Interpretation(
                Nomination(), feedback=(Event("squad_cleared", {"commander": seat}),)
            )
        return Interpretation(nomination, feedback=(ignored(seat, "not_named"),))
    if full:
        return Interpretation(nomination, feedback=(ignored(seat, "squad_full"),))
    if member:
        return Interpretation(nomination, feedback=(ignored(seat, "already_named"),))
    joined = tuple(sorted((*members, seat)))
    feedback = [Event("squad_member_in", {"seat": seat, "count": len(joined), "size": size})]
    if len(joined) == size:
        feedback.append(
            Event(
                "squad_read_back",
                {
                    "commander": state.commander,
                    "squad": list(joined),
                    "mission": mission,
                },
            )
        )
    return Interpretation(
        dataclasses.replace(nomination, mission=mission, members=joined), feedback=tuple(feedback)
    )


def _choose_mission(
    state: ResistanceState, nomination: Nomination, seat: int, button: Button
) -> Interpretation[Nomination]:
    if seat != state.commander:
        return Interpretation(nomination, feedback=(ignored(seat, "commander_chooses_mission"),))
    missions = Resistance().available_missions(state)
    if button is Button.A:
        if nomination.offered in missions:
            offered = missions[(missions.index(nomination.offered) + 1) % len(missions)]
        else:
            offered = missions[0]
        return Interpretation(
            Nomination(offered=offered),
            feedback=(
                Event(
                    "mission_offered",
                    {
                        "mission": offered,
                        "size": squad_size(state.players, offered),
                    },
                ),
            ),
        )
    if nomination.offered is None:
        return Interpretation(nomination, feedback=(ignored(seat, "offer_first"),))
    chosen = nomination.offered
    return Interpretation(
        Nomination(mission=chosen),
        feedback=(
            Event(
                "mission_chosen",
                {
                    "commander": seat,
                    "mission": chosen,
                    "size": squad_size(state.players, chosen),
                },
            ),
        ),
    )
