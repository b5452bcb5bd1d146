"""Résistance (Battlestar Galactica re-theme), RULES.md §1, with physical identities.

The companion never knows who is a Cylon here: identity cards are dealt by hand. It keeps the
squad votes secret until the last seat has voted and never knows more than the counts of a
mission's cards once they are revealed.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from companion.game import JSON, Action, Audience, Event, IllegalAction, Outcome
from companion.games.resistance.state import (
    ACTIONS,
    Card,
    CastVote,
    EndNight,
    MissionResult,
    Options,
    Phase,
    PlayMissionCard,
    ProposeSquad,
    ResistanceState,
    Side,
    Termination,
    VoteResult,
)
from companion.games.resistance.tables import (
    MAX_REJECTIONS,
    MISSIONS,
    WINNING_SCORE,
    fails_needed,
    squad_size,
)


class Resistance:
    title = "resistance"
    actions: Mapping[str, type[Action]] = ACTIONS

    # -- setting up ---------------------------------------------------------------------------

    def new(self, options: Mapping[str, Any], seed: int) -> ResistanceState:
        opts = Options.from_json(options)
        n = opts.players
        state = ResistanceState(
            options=opts,
            seed=seed,
            phase=Phase.NIGHT,
            commander=opts.first_commander,
            rejections=0,
            results=(),
            mission=None,
            squad=(),
            votes=(None,) * n,
            cards=(None,) * n,
            last_vote=None,
            outcome=None,
        )
        if opts.isolated_cylons:
            return self._next_command(state, opts.first_commander, rejections=0)
        return state

    def options_json(self, state: ResistanceState) -> JSON:
        return state.options.to_json()

    # -- what may be done ---------------------------------------------------------------------

    def available_missions(self, state: ResistanceState) -> tuple[int, ...]:
        """Missions the Commandant may take on. Without "Attaques ciblées": just the next one."""
        done = {r.mission for r in state.results}
        if not state.options.targeting:
            return (len(state.results) + 1,) if len(done) < MISSIONS else ()
        return tuple(
            m
            for m in range(1, MISSIONS + 1)
            if m not in done and (m != MISSIONS or state.successes >= 2)
        )

    def legal_actions(self, state: ResistanceState, seat: int | None) -> Iterator[Action]:
        if state.phase is Phase.NIGHT and seat is None:
            yield EndNight()
        elif state.phase is Phase.PROPOSE and seat == state.commander:
            for mission in self.available_missions(state):
                size = squad_size(state.players, mission)
                chosen = mission if state.options.targeting else None
                for squad in itertools.combinations(range(state.players), size):
                    yield ProposeSquad(state.commander, squad, chosen)
        elif state.phase is Phase.VOTE and seat is not None:
            yield CastVote(seat, True)
            yield CastVote(seat, False)
        elif state.phase is Phase.MISSION and seat in state.squad:
            yield PlayMissionCard(seat, Card.SUCCESS)
            yield PlayMissionCard(seat, Card.FAIL)

    # -- applying -----------------------------------------------------------------------------

    def apply(self, state: ResistanceState, action: Action) -> tuple[ResistanceState, list[Event]]:
        if state.phase is Phase.OVER:
            raise IllegalAction("game_over")
        if isinstance(action, EndNight):
            return self._end_night(state)
        if isinstance(action, ProposeSquad):
            return self._propose(state, action)
        if isinstance(action, CastVote):
            return self._vote(state, action)
        if isinstance(action, PlayMissionCard):
            return self._play_card(state, action)
        raise IllegalAction("unknown_action", kind=getattr(action, "kind", type(action).__name__))

    def _end_night(self, state: ResistanceState) -> tuple[ResistanceState, list[Event]]:
        if state.phase is not Phase.NIGHT:
            raise IllegalAction("night_is_over")
        after = self._next_command(state, state.commander, rejections=0)
        return after, [Event("night_over"), self.command_event(after)]

    def _propose(
        self, state: ResistanceState, action: ProposeSquad
    ) -> tuple[ResistanceState, list[Event]]:
        if state.phase is not Phase.PROPOSE:
            raise IllegalAction("no_proposal_now", phase=state.phase.value)
        if action.commander != state.commander:
            raise IllegalAction("not_commander", seat=action.commander, commander=state.commander)
        mission = self._mission_for(state, action.mission)
        size = squad_size(state.players, mission)
        for seat in action.squad:
            self._check_seat(state, seat)
        if len(set(action.squad)) != len(action.squad):
            raise IllegalAction("seat_named_twice")
        if len(action.squad) != size:
            raise IllegalAction(
                "wrong_squad_size", mission=mission, size=size, given=len(action.squad)
            )
        squad = tuple(sorted(action.squad))
        after = dataclasses.replace(
            state, phase=Phase.VOTE, mission=mission, squad=squad, votes=(None,) * state.players
        )
        return after, [
            Event(
                "squad_proposed",
                {
                    "commander": state.commander,
                    "mission": mission,
                    "squad": list(squad),
                },
            )
        ]

    def _mission_for(self, state: ResistanceState, asked: int | None) -> int:
        available = self.available_missions(state)
        if not state.options.targeting:
            if asked is not None and asked != available[0]:
                raise IllegalAction("missions_in_order", mission=available[0])
            return available[0]
        if asked is None:
            raise IllegalAction("choose_mission", missions=list(available))
        if asked in {r.mission for r in state.results}:
            raise IllegalAction("mission_already_attempted", mission=asked)
        if not 1 <= asked <= MISSIONS:
            raise IllegalAction("no_such_mission", mission=asked)
        if asked not in available:
            raise IllegalAction("mission_five_locked")
        return asked

    def _vote(
        self, state: ResistanceState, action: CastVote
    ) -> tuple[ResistanceState, list[Event]]:
        if state.phase is not Phase.VOTE:
            raise IllegalAction("no_vote_now", phase=state.phase.value)
        self._check_seat(state, action.seat)
        first_time = state.votes[action.seat] is None
        votes = _replace_at(state.votes, action.seat, action.approve)
        events = [Event("your_vote", {"approve": action.approve}, Audience.only(action.seat))]
        if first_time:
            events.append(Event("vote_in", {"seat": action.seat}))
        if any(v is None for v in votes):
            return dataclasses.replace(state, votes=votes), events
        assert state.mission is not None
        result = VoteResult(
            state.mission, state.commander, state.squad, tuple(bool(v) for v in votes)
        )
        events.append(
            Event(
                "vote_result",
                {
                    "approvals": list(result.approvals),
                    "yes": result.yes,
                    "no": len(votes) - result.yes,
                    "approved": result.approved,
                },
            )
        )
        cleared = dataclasses.replace(state, votes=(None,) * state.players, last_vote=result)
        if result.approved:
            after = dataclasses.replace(cleared, phase=Phase.MISSION, cards=(None,) * state.players)
            events.append(
                Event(
                    "mission_begins",
                    {
                        "mission": state.mission,
                        "squad": list(state.squad),
                        "fails_needed": fails_needed(state.players, state.mission),
                    },
                )
            )
            return after, events
        rejections = state.rejections + 1
        if rejections >= MAX_REJECTIONS:
            return self._finish(
                cleared, Side.CYLONS, Termination.FIVE_REJECTIONS, events, rejections=rejections
            )
        after = self._next_command(cleared, self._left_of(state, state.commander), rejections)
        events.append(self.command_event(after))
        return after, events

    def _play_card(
        self, state: ResistanceState, action: PlayMissionCard
    ) -> tuple[ResistanceState, list[Event]]:
        if state.phase is not Phase.MISSION:
            raise IllegalAction("no_mission_now", phase=state.phase.value)
        self._check_seat(state, action.seat)
        if action.seat not in state.squad:
            raise IllegalAction("not_on_squad", seat=action.seat)
        first_time = state.cards[action.seat] is None
        cards = _replace_at(state.cards, action.seat, action.card)
        events = [Event("your_card", {"card": action.card.value}, Audience.only(action.seat))]
        if first_time:
            events.append(Event("card_in", {"seat": action.seat}))
        played = [cards[s] for s in state.squad]
        if any(c is None for c in played):
            return dataclasses.replace(state, cards=cards), events
        assert state.mission is not None
        fails = sum(c is Card.FAIL for c in played)
        result = MissionResult(
            state.mission, state.squad, fails, fails >= fails_needed(state.players, state.mission)
        )
        events.append(
            Event(
                "mission_result",
                {
                    "mission": result.mission,
                    "successes": result.successes,
                    "fails": result.fails,
                    "failed": result.failed,
                },
            )
        )
        after = dataclasses.replace(  # the round is over: its rejections no longer count
            state,
            results=(*state.results, result),
            cards=(None,) * state.players,
            squad=(),
            rejections=0,
        )
        if after.successes >= WINNING_SCORE:
            return self._finish(after, Side.COLONS, Termination.THREE_SUCCESSES, events)
        if after.failures >= WINNING_SCORE:
            return self._finish(after, Side.CYLONS, Termination.THREE_FAILURES, events)
        after = self._next_command(after, self._left_of(state, state.commander), rejections=0)
        events.append(self.command_event(after))
        return after, events

    # -- helpers ------------------------------------------------------------------------------

    def _check_seat(self, state: ResistanceState, seat: int) -> None:
        if not 0 <= seat < state.players:
            raise IllegalAction("no_such_seat", seat=seat, players=state.players)

    @staticmethod
    def _left_of(state: ResistanceState, seat: int) -> int:
        return (seat + 1) % state.players

    def _next_command(
        self, state: ResistanceState, commander: int, rejections: int
    ) -> ResistanceState:
        available = self.available_missions(state)
        mission = None if state.options.targeting else available[0]
        return dataclasses.replace(
            state,
            phase=Phase.PROPOSE,
            commander=commander,
            rejections=rejections,
            mission=mission,
            squad=(),
        )

    def command_event(self, state: ResistanceState) -> Event:
        """Who commands, and for which mission(s): said at each new proposal."""
        missions = self.available_missions(state)
        return Event(
            "commander",
            {
                "commander": state.commander,
                "missions": list(missions),
                "sizes": [squad_size(state.players, m) for m in missions],
                "rejections": state.rejections,
                "targeting": state.options.targeting,
            },
        )

    def _finish(
        self,
        state: ResistanceState,
        side: Side,
        why: Termination,
        events: list[Event],
        rejections: int | None = None,
    ) -> tuple[ResistanceState, list[Event]]:
        outcome = Outcome(side.value, why)
        after = dataclasses.replace(
            state,
            phase=Phase.OVER,
            outcome=outcome,
            squad=(),
            mission=None,
            rejections=state.rejections if rejections is None else rejections,
        )
        events.append(Event("game_over", outcome.to_json()))
        return after, events

    # -- what the outside world may see ---------------------------------------------------------

    def outcome(self, state: ResistanceState) -> Outcome | None:
        return state.outcome

    def public_view(self, state: ResistanceState) -> JSON:
        """Everything the table may know: never a pending vote, never who played which card."""
        done = {r.mission: r for r in state.results}
        missions = []
        for m in range(1, MISSIONS + 1):
            result = done.get(m)
            missions.append(
                {
                    "number": m,
                    "size": squad_size(state.players, m),
                    "fails_needed": fails_needed(state.players, m),
                    "result": None if result is None else ("fail" if result.failed else "success"),
                    "fails": None if result is None else result.fails,
                    "successes": None if result is None else result.successes,
                }
            )
        last_vote = state.last_vote
        return {
            "game": self.title,
            "players": state.players,
            "options": state.options.to_json(),
            "phase": state.phase.value,
            "commander": state.commander,
            "mission": state.mission,
            "squad_size": None
            if state.mission is None
            else squad_size(state.players, state.mission),
            "available_missions": list(self.available_missions(state))
            if state.phase is Phase.PROPOSE
            else [],
            "rejections": state.rejections,
            "missions": missions,
            "order": [r.mission for r in state.results],
            "score": {"successes": state.successes, "failures": state.failures},
            "squad": list(state.squad),
            "voted": [s for s, v in enumerate(state.votes) if v is not None],
            "played": [s for s, c in enumerate(state.cards) if c is not None],
            "last_vote": None
            if last_vote is None
            else {
                "mission": last_vote.mission,
                "commander": last_vote.commander,
                "squad": list(last_vote.squad),
                "approvals": list(last_vote.approvals),
                "yes": last_vote.yes,
                "no": len(last_vote.approvals) - last_vote.yes,
                "approved": last_vote.approved,
            },
            "outcome": None if state.outcome is None else state.outcome.to_json(),
        }

    def private_view(self, state: ResistanceState, seat: int) -> JSON:
        """A seat's own view: the public one plus its own pending vote or card."""
        view = self.public_view(state)
        vote = state.votes[seat] if 0 <= seat < state.players else None
        card = state.cards[seat] if 0 <= seat < state.players else None
        view["seat"] = seat
        view["my_vote"] = vote
        view["my_card"] = None if card is None else card.value
        return view

    def public_record(
        self, actions: Sequence[Action], options: Mapping[str, Any], seed: int
    ) -> list[Action]:
        """The game's actions with no secret in them, for an exported record.

        Votes are kept once revealed (vote cards are shown face up at the table), each seat's
        final vote only, in the order the seats first voted (a vote changed before the reveal was
        never shown); the votes of a vote still open are left out. A mission's cards are re-dealt
        in seat order, successes first, once the mission is resolved, so the record keeps the
        counts but not who played what; the cards of a mission still being played are left out.
        """
        state = self.new(options, seed)
        out: list[Action] = []
        pending: dict[int, bool] = {}  # seat -> latest vote; a dict keeps first-vote order
        for action in actions:
            before = state
            state, _ = self.apply(state, action)
            if isinstance(action, CastVote):
                pending[action.seat] = action.approve
                if state.last_vote is not before.last_vote:
                    out.extend(CastVote(s, a) for s, a in pending.items())
                    pending = {}
            elif isinstance(action, PlayMissionCard):
                if len(state.results) == len(before.results):
                    continue
                result = state.results[-1]
                cards = [Card.SUCCESS] * result.successes + [Card.FAIL] * result.fails
                out.extend(PlayMissionCard(s, c) for s, c in zip(result.squad, cards, strict=True))
            else:
                out.append(action)
        return out


T = TypeVar("T")


def _replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])
