"""Résistance (Battlestar Galactica re-theme), RULES.md §1, with the expansion *Le Plan*.

**Identities** (option ``identities``). ``"physical"`` (the default): identity cards are dealt by
hand and the companion never knows who is a Cylon; it holds no identity at all, checks no vote or
Mission card against one, and a Fail from anyone is accepted. ``"digital"``: the companion deals
the identities from the game's secret seed (``companion.chance``); ``private_view(seat)`` shows
the seat's own identity and, unless *Cylons isolés*, its fellow Cylons. A Colon's Fail card is
refused with
``IllegalAction("colons_cannot_fail", seat=s, private_to=s)``: **a refusal whose ``params`` hold
``private_to`` may be shown only on that seat's own page, never spoken or shown on the host or
table page** (its very wording says the seat is a Colon). ``legal_actions(state, seat)`` is in
the same way that seat's own: with digital identities a Colon's list has no Fail. With buttons,
no refusal is possible without leaking: ``controls.py`` plays a Colon's B as Success (the LED
lights as for any card, and nothing is said). The night phase is narrated in both modes with the
same fixed pauses.

The companion keeps the squad votes secret until the last seat has voted and never shows who
played which Mission card, only the counts.

**The first Commandant** (option ``characters``): the seed gives the Commandant card "au joueur
incarnant dans l'ordre de présence : William Adama / Laura Roslin / Saul Tigh / Lee Adama / Gaius
Baltar". The host says which seat holds which of these five character cards (those at the table)
and the companion gives the command to the first present; the host page asks for them by default.
Without them (the host's other choice, and any game started without the option), the first
Commandant is the seat ``first_commander`` names: the FAQ's "ne pas désigner un joueur débutant
comme premier Commandant" shows the table may choose.

**Le Plan** (option ``plot``). The deck is the seed's: under 7 players "on n'utilise que 10 des
15 cartes Complot", which ten being the host's choice (``plot_deck``; by default
``plot.DEFAULT_SMALL_DECK``, docs/RESISTANCE.md); at 7 or more, all fifteen. A round goes::

    [PLOT_WINDOW before_proposal] -> draw -> PLOT_HAND (-> PLOT_IMMEDIATE)* -> PROPOSE -> VOTE
        -> [PLOT_WINDOW after_approval] -> MISSION -> next round
    (a rejected or No-Confidence'd squad: [PLOT_WINDOW before_proposal] -> PROPOSE, no draw)

With ``strong_leader: "before_proposal"`` a round's first window stands after the hand-out
instead: draw -> PLOT_HAND (-> PLOT_IMMEDIATE)* -> [PLOT_WINDOW before_proposal] -> PROPOSE.

- *Drawing*: at the start of each round the Commandant draws 2 cards (3 at 9-10 players). The
  deck always lasts: 10 cards or 15 at two a round, 15 at three, for at most five rounds ("il
  n'y a que 5 manches dans une partie"), so no discard ever goes back into it.
  The cards drawn are shown to the table at once, and handed cards lie face up in front of their
  holder: the rulebook says plot cards "are not secret and must stay face up once in play", so
  the project treats a drawn card as in play. ``HandPlot`` gives each to another player.
- *Immediate cards* are played by their receiver as soon as they are handed, before the next card
  is handed: Overheard Conversation (``Overhear``: left or right neighbour), Open Up (``OpenUp``),
  Establish Confidence (``EstablishConfidence``: the Commandant chooses whom to show their
  identity to, as RULES.md reads "a player of their choice"), Take Responsibility
  (``TakeResponsibility``: a card held by another player; discarded with no effect when nobody
  else holds one). Then discarded.
- *Moments* for one-use cards are explicit windows (``PLOT_WINDOW``). Strong Leader (the seed names
  no plot card: option ``strong_leader``, ``plot.StrongLeaderTiming``): by default the published
  timing (docs/RESISTANCE.md), before the Commandant does anything, that is, at the start of a
  round before the draw, and again before each new proposal in the round (so a Strong Leader handed
  this round is first usable after a rejection); with ``"before_proposal"``, right before each
  proposal, the round's first included. The Commandant cannot play it. No Confidence, Keeping a
  Close Eye, In the Spotlight: once a squad is approved, before the Mission. A window opens only if
  someone holds a card playable then; holders get their turn clockwise from the Commandant (after a
  Strong Leader, from the new Commandant, who is the player who just played it). On their turn a
  holder plays one card (``PlayPlot``; they keep the turn while they hold another card playable
  now) or passes (``PassPlot``). The window closes when no one with a playable card is left to ask.
  A player who passes plays no plot card until the round ends (RULES.md: "until the round ends",
  the seed's "jusqu'à la fin de la manche").
- *No Confidence* cancels the approval: it counts as a rejection (five in a round: Cylons win) and
  the command passes left; cards played before it in the same window are spent for nothing.
- *Keeping a Close Eye*: the holder names a squad member other than themself; each member can be
  watched by only one player per mission (published FAQ). The member's final card is shown to
  the watcher alone when the last card is in (``mission_card_seen``, to that seat only), in both
  identity modes: the companion knows Mission cards either way.
- *In the Spotlight*: the named member's Mission card is played face up: public as soon as it is
  played (``spotlight_card``) and not changeable afterwards; the others stay secret.
- *Opinion Maker* (permanent): its holders vote first and face up, before anyone else may vote;
  with two holders their votes are shown together when both are in (each may change theirs until
  then, like any secret vote); a face-up vote cannot be changed.
- *Identity looks*: who looks at whose identity card is public (``identity_shown``). With
  physical identities the players do it by hand; with digital ones the identity goes to the
  viewer's private view and an event for that seat only (``identity_seen``).

Exported records: the seed would tell a digital game's identities and a plot game's hidden deck
order, so a record carries none before the end (``companion/record.py``): ``public_setup`` gives
the header's options instead (physical identities, the cards drawn so far as ``plot_draws``),
under which ``public_record`` replays with no seed.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from companion.chance import draws
from companion.game import JSON, Action, Audience, Event, IllegalAction, Outcome
from companion.games.resistance.plot import (
    CARDS,
    Knowledge,
    Moment,
    Neighbour,
    Pending,
    PlotCard,
    PlotKind,
    PlotState,
    StrongLeaderTiming,
    Window,
    draw,
    draws_per_round,
    give,
    kind_of,
    new_plot,
    take,
)
from companion.games.resistance.state import (
    ACTIONS,
    Card,
    CastVote,
    EndNight,
    EstablishConfidence,
    HandPlot,
    Identities,
    MissionResult,
    OpenUp,
    Options,
    Overhear,
    PassPlot,
    Phase,
    PlayMissionCard,
    PlayPlot,
    ProposeSquad,
    ResistanceState,
    Side,
    TakeResponsibility,
    Termination,
    VoteResult,
)
from companion.games.resistance.tables import (
    CYLONS,
    MAX_REJECTIONS,
    MISSIONS,
    WINNING_SCORE,
    fails_needed,
    squad_size,
)
from companion.games.resistance.views import ResistanceViews

PLOT_PHASES = (Phase.PLOT_HAND, Phase.PLOT_IMMEDIATE, Phase.PLOT_WINDOW)


def deal_identities(players: int, seed: int) -> tuple[Side, ...]:
    """The companion's deal of the identity cards (digital identities only)."""
    cylons = set(draws(seed, "resistance:identities").sample(range(players), CYLONS[players]))
    return tuple(Side.CYLONS if s in cylons else Side.COLONS for s in range(players))


class Resistance(ResistanceViews):
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
            identities=deal_identities(n, seed) if opts.identities is Identities.DIGITAL else None,
            plot=new_plot(opts.deck, n, seed) if opts.plot else None,
        )
        if opts.isolated_cylons:
            return self._start_round(state, opts.first_commander, [])
        return state

    def options_json(self, state: ResistanceState) -> JSON:
        return state.options.to_json()

    def opening_events(self, state: ResistanceState) -> list[Event]:
        """What is said of the starting situation of a game with no night phase."""
        if state.phase is Phase.PROPOSE:
            return [self.command_event(state)]
        if state.phase is Phase.PLOT_HAND and state.plot is not None:
            return [self._drawn_event(state, state.plot.drawn)]
        return []

    def situation_events(self, state: ResistanceState) -> list[Event]:
        """What is awaited now, for a table that lost the thread (the companion restarted):
        public events alone, and only counts of the secret votes and cards, never whose is
        what. Empty at night (its script is spoken again) and once the game is over."""
        plot = state.plot
        match state.phase:
            case Phase.PROPOSE:
                return [self.command_event(state)]
            case Phase.VOTE:
                voted = sum(v is not None for v in state.votes)
                data = {"squad": list(state.squad), "mission": state.mission}
                return [Event("vote_awaited", {**data, "count": voted, "size": state.players})]
            case Phase.MISSION:
                played = sum(c is not None for c in state.cards)
                return [
                    Event(
                        "mission_awaited",
                        {"mission": state.mission, "count": played, "size": len(state.squad)},
                    )
                ]
            case Phase.PLOT_HAND if plot is not None:
                return [self._drawn_event(state, plot.drawn)]
            case Phase.PLOT_IMMEDIATE if plot is not None and plot.pending is not None:
                pending = plot.pending
                return [
                    Event("plot_immediate", {"seat": pending.actor, "card": pending.card.value})
                ]
            case Phase.PLOT_WINDOW if plot is not None and plot.window is not None:
                return [self._turn_event(state)]
        return []

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

    def opinion_makers(self, state: ResistanceState) -> tuple[int, ...]:
        """Holders of Opinion Maker: they vote first, face up."""
        return () if state.plot is None else state.plot.holders(PlotCard.OPINION_MAKER)

    def opinion_open(self, state: ResistanceState) -> bool:
        """The opinion makers' votes of the current vote are face up."""
        makers = self.opinion_makers(state)
        return (
            state.phase is Phase.VOTE
            and bool(makers)
            and all(state.votes[m] is not None for m in makers)
        )

    def playable(self, state: ResistanceState, seat: int) -> tuple[PlotCard, ...]:
        """The one-use cards ``seat`` may play in the open window, in card order."""
        plot = state.plot
        if plot is None or plot.window is None or seat in plot.passed:
            return ()
        return self._playable(state, plot, seat, plot.window.moment)

    def _playable(
        self, state: ResistanceState, plot: PlotState, seat: int, moment: Moment
    ) -> tuple[PlotCard, ...]:
        if seat in plot.passed:
            return ()
        out = []
        for card in CARDS:
            if card not in plot.held[seat] or CARDS[card].moment is not moment:
                continue
            if card is PlotCard.STRONG_LEADER and seat == state.commander:
                continue
            if card is PlotCard.KEEPING_A_CLOSE_EYE and not self._watchable(state, plot, seat):
                continue
            if card is PlotCard.IN_THE_SPOTLIGHT and plot.spotlight is not None:
                continue
            out.append(card)
        return tuple(out)

    @staticmethod
    def _watchable(state: ResistanceState, plot: PlotState, seat: int) -> tuple[int, ...]:
        watched = {member for _, member in plot.watches}
        return tuple(m for m in state.squad if m != seat and m not in watched)

    def legal_actions(self, state: ResistanceState, seat: int | None) -> Iterator[Action]:
        """Actions open to ``seat`` (``None``: to the companion itself). With digital identities
        a seat's list is its own: a Colon's has no Fail card."""
        plot = state.plot
        if state.phase is Phase.NIGHT and seat is None:
            yield EndNight()
        elif state.phase is Phase.PROPOSE and seat == state.commander:
            for mission in self.available_missions(state):
                size = squad_size(state.players, mission)
                chosen = mission if state.options.targeting else None
                for squad in itertools.combinations(range(state.players), size):
                    yield ProposeSquad(state.commander, squad, chosen)
        elif state.phase is Phase.VOTE and seat is not None:
            makers = self.opinion_makers(state)
            opened = self.opinion_open(state)
            if (seat in makers and not opened) or (seat not in makers and (opened or not makers)):
                yield CastVote(seat, True)
                yield CastVote(seat, False)
        elif state.phase is Phase.MISSION and seat in state.squad:
            if plot is not None and plot.spotlight == seat and state.cards[seat] is not None:
                return
            yield PlayMissionCard(seat, Card.SUCCESS)
            if state.identities is None or state.identities[seat] is Side.CYLONS:
                yield PlayMissionCard(seat, Card.FAIL)
        elif state.phase is Phase.PLOT_HAND and plot is not None and seat == state.commander:
            for index in range(len(plot.drawn)):
                for to in range(state.players):
                    if to != seat:
                        yield HandPlot(seat, index, to)
        elif state.phase is Phase.PLOT_IMMEDIATE and plot is not None and plot.pending:
            yield from self._immediate_choices(state, plot, plot.pending, seat)
        elif state.phase is Phase.PLOT_WINDOW and plot is not None and plot.window:
            if seat != plot.window.turn:
                return
            for card in self.playable(state, seat):
                if card is PlotCard.KEEPING_A_CLOSE_EYE:
                    for member in self._watchable(state, plot, seat):
                        yield PlayPlot(seat, card, member)
                elif card is PlotCard.IN_THE_SPOTLIGHT:
                    for member in state.squad:
                        yield PlayPlot(seat, card, member)
                else:
                    yield PlayPlot(seat, card)
            yield PassPlot(seat)

    def _immediate_choices(
        self, state: ResistanceState, plot: PlotState, pending: Pending, seat: int | None
    ) -> Iterator[Action]:
        if seat != pending.actor:
            return
        others = [s for s in range(state.players) if s != seat]
        if pending.card is PlotCard.OVERHEARD_CONVERSATION:
            yield Overhear(seat, Neighbour.LEFT)
            yield Overhear(seat, Neighbour.RIGHT)
        elif pending.card is PlotCard.OPEN_UP:
            yield from (OpenUp(seat, to) for to in others)
        elif pending.card is PlotCard.ESTABLISH_CONFIDENCE:
            yield from (EstablishConfidence(seat, to) for to in others)
        elif pending.card is PlotCard.TAKE_RESPONSIBILITY:
            for other in others:
                for card in dict.fromkeys(plot.held[other]):
                    yield TakeResponsibility(seat, other, card)

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
        if isinstance(action, HandPlot):
            return self._hand(state, action)
        if isinstance(action, (Overhear, OpenUp, EstablishConfidence, TakeResponsibility)):
            return self._immediate(state, action)
        if isinstance(action, PlayPlot):
            return self._play_plot(state, action)
        if isinstance(action, PassPlot):
            return self._pass_plot(state, action)
        raise IllegalAction("unknown_action", kind=getattr(action, "kind", type(action).__name__))

    def _end_night(self, state: ResistanceState) -> tuple[ResistanceState, list[Event]]:
        if state.phase is not Phase.NIGHT:
            raise IllegalAction("night_is_over")
        events = [Event("night_over")]
        after = self._start_round(state, state.commander, events)
        return after, events

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
        events = [
            Event(
                "squad_proposed",
                {
                    "commander": state.commander,
                    "mission": mission,
                    "squad": list(squad),
                },
            )
        ]
        makers = self.opinion_makers(state)
        if makers:
            events.append(Event("opinion_first", {"seats": list(makers)}))
        return after, events

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
        makers = self.opinion_makers(state)
        opened = self.opinion_open(state)
        if makers and not opened and action.seat not in makers:
            raise IllegalAction("opinion_makers_first", seat=action.seat)
        if action.seat in makers and opened:
            raise IllegalAction("opinion_vote_open", seat=action.seat)
        first_time = state.votes[action.seat] is None
        votes = _replace_at(state.votes, action.seat, action.approve)
        events = [Event("your_vote", {"approve": action.approve}, Audience.only(action.seat))]
        if first_time:
            events.append(Event("vote_in", {"seat": action.seat}))
        if action.seat in makers and all(votes[m] is not None for m in makers):
            events.append(
                Event(
                    "opinion_votes", {"votes": [{"seat": m, "approve": votes[m]} for m in makers]}
                )
            )
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
            if cleared.plot is not None:
                return self._open_window(cleared, Moment.AFTER_APPROVAL, events), events
            return self._begin_mission(cleared, events), events
        return self._rejected(cleared, events)

    def _rejected(
        self, state: ResistanceState, events: list[Event]
    ) -> tuple[ResistanceState, list[Event]]:
        """A squad rejected by vote or cancelled by No Confidence: the command passes left."""
        rejections = state.rejections + 1
        if rejections >= MAX_REJECTIONS:
            return self._finish(
                state, Side.CYLONS, Termination.FIVE_REJECTIONS, events, rejections=rejections
            )
        after = self._prepare(state, self._left_of(state, state.commander), rejections)
        if after.plot is not None:
            return self._before_proposal(after, events), events
        return self._propose_now(after, events), events

    def _begin_mission(self, state: ResistanceState, events: list[Event]) -> ResistanceState:
        assert state.mission is not None
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
        plot = state.plot
        if plot is not None:
            plot = dataclasses.replace(plot, window=None)
        return dataclasses.replace(
            state, phase=Phase.MISSION, cards=(None,) * state.players, plot=plot
        )

    def _play_card(
        self, state: ResistanceState, action: PlayMissionCard
    ) -> tuple[ResistanceState, list[Event]]:
        if state.phase is not Phase.MISSION:
            raise IllegalAction("no_mission_now", phase=state.phase.value)
        self._check_seat(state, action.seat)
        if action.seat not in state.squad:
            raise IllegalAction("not_on_squad", seat=action.seat)
        plot = state.plot
        spotlit = plot is not None and plot.spotlight == action.seat
        if spotlit and state.cards[action.seat] is not None:
            raise IllegalAction("spotlight_card_down", seat=action.seat)
        identities = state.identities
        if (
            identities is not None
            and identities[action.seat] is Side.COLONS
            and action.card is Card.FAIL
        ):
            raise IllegalAction("colons_cannot_fail", seat=action.seat, private_to=action.seat)
        first_time = state.cards[action.seat] is None
        cards = _replace_at(state.cards, action.seat, action.card)
        events = [Event("your_card", {"card": action.card.value}, Audience.only(action.seat))]
        if first_time:
            events.append(Event("card_in", {"seat": action.seat}))
        if spotlit:
            events.append(Event("spotlight_card", {"seat": action.seat, "card": action.card.value}))
        played = [cards[s] for s in state.squad]
        if any(c is None for c in played):
            return dataclasses.replace(state, cards=cards), events
        assert state.mission is not None
        if plot is not None and plot.watches:
            seen = []
            for watcher, member in plot.watches:
                card = cards[member]
                assert card is not None
                seen.append(
                    Knowledge(
                        watcher,
                        member,
                        PlotCard.KEEPING_A_CLOSE_EYE,
                        mission=state.mission,
                        card=card.value,
                    )
                )
                events.append(
                    Event(
                        "mission_card_seen",
                        {"seat": member, "mission": state.mission, "card": card.value},
                        Audience.only(watcher),
                    )
                )
            plot = dataclasses.replace(plot, knowledge=(*plot.knowledge, *seen))
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
            plot=plot,
        )
        if after.successes >= WINNING_SCORE:
            return self._finish(after, Side.COLONS, Termination.THREE_SUCCESSES, events)
        if after.failures >= WINNING_SCORE:
            return self._finish(after, Side.CYLONS, Termination.THREE_FAILURES, events)
        after = self._start_round(after, self._left_of(state, state.commander), events)
        return after, events

    # -- Le Plan: handing out ---------------------------------------------------------------

    def _require_plot(self, state: ResistanceState) -> PlotState:
        if state.plot is None:
            raise IllegalAction("no_plot_in_this_game")
        return state.plot

    def _hand(
        self, state: ResistanceState, action: HandPlot
    ) -> tuple[ResistanceState, list[Event]]:
        plot = self._require_plot(state)
        if state.phase is not Phase.PLOT_HAND:
            raise IllegalAction("no_handing_now", phase=state.phase.value)
        if action.commander != state.commander:
            raise IllegalAction("not_commander", seat=action.commander, commander=state.commander)
        if not 0 <= action.card_index < len(plot.drawn):
            raise IllegalAction(
                "no_such_drawn_card", index=action.card_index, count=len(plot.drawn)
            )
        self._check_seat(state, action.to_seat)
        if action.to_seat == state.commander:
            raise IllegalAction("plot_to_self", seat=state.commander)
        card, to = plot.drawn[action.card_index], action.to_seat
        drawn = (*plot.drawn[: action.card_index], *plot.drawn[action.card_index + 1 :])
        events = [
            Event("plot_handed", {"commander": state.commander, "seat": to, "card": card.value})
        ]
        plot = dataclasses.replace(plot, drawn=drawn)
        if kind_of(card) is not PlotKind.IMMEDIATE:
            plot = dataclasses.replace(plot, held=give(plot.held, to, card))
            return self._after_handing(dataclasses.replace(state, plot=plot), events), events
        if card is PlotCard.TAKE_RESPONSIBILITY and not any(
            cards for s, cards in enumerate(plot.held) if s != to
        ):
            events.append(Event("responsibility_void", {"seat": to}))
            plot = dataclasses.replace(plot, discards=(*plot.discards, card))
            return self._after_handing(dataclasses.replace(state, plot=plot), events), events
        actor = state.commander if card is PlotCard.ESTABLISH_CONFIDENCE else to
        plot = dataclasses.replace(plot, pending=Pending(card, to, actor))
        events.append(Event("plot_immediate", {"seat": actor, "card": card.value}))
        return dataclasses.replace(state, phase=Phase.PLOT_IMMEDIATE, plot=plot), events

    def _after_handing(self, state: ResistanceState, events: list[Event]) -> ResistanceState:
        plot = state.plot
        assert plot is not None
        if plot.drawn:
            return dataclasses.replace(state, phase=Phase.PLOT_HAND)
        if state.options.strong_leader is StrongLeaderTiming.BEFORE_PROPOSAL:
            return self._before_proposal(state, events)
        return self._propose_now(state, events)

    def _immediate(
        self,
        state: ResistanceState,
        action: Overhear | OpenUp | EstablishConfidence | TakeResponsibility,
    ) -> tuple[ResistanceState, list[Event]]:
        plot = self._require_plot(state)
        pending = plot.pending
        if state.phase is not Phase.PLOT_IMMEDIATE or pending is None:
            raise IllegalAction("no_immediate_now", phase=state.phase.value)
        wanted = {
            Overhear: PlotCard.OVERHEARD_CONVERSATION,
            OpenUp: PlotCard.OPEN_UP,
            EstablishConfidence: PlotCard.ESTABLISH_CONFIDENCE,
            TakeResponsibility: PlotCard.TAKE_RESPONSIBILITY,
        }[type(action)]
        if pending.card is not wanted:
            raise IllegalAction("play_pending_card_first", seat=pending.actor)
        actor = action.commander if isinstance(action, EstablishConfidence) else action.seat
        if actor != pending.actor:
            raise IllegalAction("not_plot_player", seat=actor, turn=pending.actor)
        events: list[Event] = []
        knowledge = plot.knowledge
        held = plot.held
        if isinstance(action, TakeResponsibility):
            self._check_seat(state, action.from_seat)
            if action.from_seat == actor:
                raise IllegalAction("take_from_self", seat=actor)
            if action.card not in held[action.from_seat]:
                raise IllegalAction("plot_card_not_held", seat=action.from_seat)
            held = give(take(held, action.from_seat, action.card), actor, action.card)
            events.append(
                Event(
                    "responsibility_taken",
                    {"seat": actor, "from_seat": action.from_seat, "card": action.card.value},
                )
            )
        else:
            if isinstance(action, Overhear):
                step = 1 if action.neighbour is Neighbour.LEFT else -1
                viewer, shown = actor, (actor + step) % state.players
            else:
                self._check_seat(state, action.to_seat)
                if action.to_seat == actor:
                    raise IllegalAction("show_to_self", seat=actor)
                viewer, shown = action.to_seat, actor
            digital = state.identities is not None
            events.append(
                Event(
                    "identity_shown",
                    {
                        "seat": shown,
                        "viewer": viewer,
                        "via": pending.card.value,
                        "digital": digital,
                    },
                )
            )
            if state.identities is not None:
                side = state.identities[shown].value
                knowledge = (*knowledge, Knowledge(viewer, shown, pending.card, side=side))
                events.append(
                    Event(
                        "identity_seen",
                        {"seat": shown, "identity": side, "via": pending.card.value},
                        Audience.only(viewer),
                    )
                )
        plot = dataclasses.replace(
            plot,
            pending=None,
            held=held,
            knowledge=knowledge,
            discards=(*plot.discards, pending.card),
        )
        return self._after_handing(dataclasses.replace(state, plot=plot), events), events

    # -- Le Plan: the moments of one-use cards ------------------------------------------------

    def _open_window(
        self, state: ResistanceState, moment: Moment, events: list[Event]
    ) -> ResistanceState:
        """Open a moment for one-use cards, or go straight on when nobody can play."""
        plot = state.plot
        assert plot is not None
        window = Window(moment, state.commander)
        turn = self._next_turn(state, plot, window, state.commander, include_first=True)
        if turn is None:
            return self._close_window(state, moment, events)
        window = dataclasses.replace(window, turn=turn)
        after = dataclasses.replace(
            state, phase=Phase.PLOT_WINDOW, plot=dataclasses.replace(plot, window=window)
        )
        events.append(self._turn_event(after))
        return after

    def _next_turn(
        self,
        state: ResistanceState,
        plot: PlotState,
        window: Window,
        start: int,
        include_first: bool,
    ) -> int | None:
        n = state.players
        offsets = range(n) if include_first else range(1, n + 1)
        for offset in offsets:
            seat = (start + offset) % n
            if seat not in window.done and self._playable(state, plot, seat, window.moment):
                return seat
        return None

    def _turn_event(self, state: ResistanceState) -> Event:
        plot = state.plot
        assert plot is not None and plot.window is not None
        turn = plot.window.turn
        return Event(
            "plot_turn",
            {
                "seat": turn,
                "moment": plot.window.moment.value,
                "cards": [c.value for c in self.playable(state, turn)],
            },
        )

    def _close_window(
        self, state: ResistanceState, moment: Moment, events: list[Event]
    ) -> ResistanceState:
        plot = state.plot
        assert plot is not None
        state = dataclasses.replace(state, plot=dataclasses.replace(plot, window=None))
        if moment is Moment.AFTER_APPROVAL:
            return self._begin_mission(state, events)
        if not plot.dealt:
            return self._deal(state, events)
        return self._propose_now(state, events)

    def _continue_window(
        self, state: ResistanceState, seat: int, passed: bool, events: list[Event]
    ) -> ResistanceState:
        """After ``seat`` played or passed: they keep the turn while they can play again (having
        not passed), else the next holder clockwise has it; nobody left: the window closes."""
        plot = state.plot
        assert plot is not None and plot.window is not None
        window = plot.window
        if not passed and self._playable(state, plot, seat, window.moment):
            turn: int | None = seat
        else:
            window = dataclasses.replace(window, done=(*window.done, seat))
            turn = self._next_turn(state, plot, window, seat, include_first=False)
        if turn is None:
            return self._close_window(state, window.moment, events)
        window = dataclasses.replace(window, turn=turn)
        after = dataclasses.replace(state, plot=dataclasses.replace(plot, window=window))
        events.append(self._turn_event(after))
        return after

    def _check_turn(self, state: ResistanceState, seat: int) -> tuple[PlotState, Window]:
        plot = self._require_plot(state)
        if state.phase is not Phase.PLOT_WINDOW or plot.window is None:
            raise IllegalAction("no_window_now", phase=state.phase.value)
        self._check_seat(state, seat)
        if seat != plot.window.turn:
            raise IllegalAction("not_your_plot_turn", seat=seat, turn=plot.window.turn)
        return plot, plot.window

    def _pass_plot(
        self, state: ResistanceState, action: PassPlot
    ) -> tuple[ResistanceState, list[Event]]:
        plot, _ = self._check_turn(state, action.seat)
        events = [Event("plot_passed", {"seat": action.seat})]
        plot = dataclasses.replace(plot, passed=tuple(sorted((*plot.passed, action.seat))))
        after = dataclasses.replace(state, plot=plot)
        return self._continue_window(after, action.seat, True, events), events

    def _play_plot(
        self, state: ResistanceState, action: PlayPlot
    ) -> tuple[ResistanceState, list[Event]]:
        plot, window = self._check_turn(state, action.seat)
        seat, card, target = action.seat, action.card, action.target
        if card not in plot.held[seat]:
            raise IllegalAction("plot_card_not_held", seat=seat)
        if card not in self._playable(state, plot, seat, window.moment):
            raise IllegalAction("plot_card_not_now", seat=seat)
        targeted = card in (PlotCard.KEEPING_A_CLOSE_EYE, PlotCard.IN_THE_SPOTLIGHT)
        if not targeted and target is not None:
            raise IllegalAction("plot_takes_no_target")
        if targeted:
            if target is None:
                raise IllegalAction("plot_needs_target")
            self._check_seat(state, target)
            if target not in state.squad:
                raise IllegalAction("not_on_squad", seat=target)
            if card is PlotCard.KEEPING_A_CLOSE_EYE:
                if target == seat:
                    raise IllegalAction("watch_self", seat=seat)
                if target in {member for _, member in plot.watches}:
                    raise IllegalAction("already_watched", seat=target)
        plot = dataclasses.replace(
            plot, held=take(plot.held, seat, card), discards=(*plot.discards, card)
        )
        state = dataclasses.replace(state, plot=plot)
        events: list[Event] = []
        if card is PlotCard.NO_CONFIDENCE:
            events.append(Event("no_confidence", {"seat": seat}))
            plot = dataclasses.replace(plot, window=None, watches=(), spotlight=None)
            return self._rejected(dataclasses.replace(state, plot=plot), events)
        if card is PlotCard.STRONG_LEADER:
            events.append(Event("strong_leader", {"seat": seat, "commander": state.commander}))
            state = dataclasses.replace(state, commander=seat)
        elif card is PlotCard.KEEPING_A_CLOSE_EYE:
            assert target is not None
            events.append(Event("close_eye", {"seat": seat, "target": target}))
            plot = dataclasses.replace(plot, watches=(*plot.watches, (seat, target)))
            state = dataclasses.replace(state, plot=plot)
        else:
            events.append(Event("spotlight", {"seat": seat, "target": target}))
            state = dataclasses.replace(state, plot=dataclasses.replace(plot, spotlight=target))
        return self._continue_window(state, seat, False, events), events

    # -- rounds ---------------------------------------------------------------------------------

    def _start_round(
        self, state: ResistanceState, commander: int, events: list[Event]
    ) -> ResistanceState:
        """A new round under ``commander``; with Le Plan: passes lapse, and the Commandant draws
        (after the moment for Strong Leader, unless it stands before the proposal)."""
        state = self._prepare(state, commander, rejections=0)
        if state.plot is None:
            return self._propose_now(state, events)
        plot = dataclasses.replace(
            state.plot,
            passed=(),
            dealt=False,
            drawn=(),
            pending=None,
            window=None,
            watches=(),
            spotlight=None,
        )
        state = dataclasses.replace(state, plot=plot)
        if state.options.strong_leader is StrongLeaderTiming.BEFORE_PROPOSAL:
            return self._deal(state, events)
        return self._before_proposal(state, events)

    def _before_proposal(self, state: ResistanceState, events: list[Event]) -> ResistanceState:
        plot = state.plot
        assert plot is not None
        plot = dataclasses.replace(plot, watches=(), spotlight=None)
        return self._open_window(
            dataclasses.replace(state, plot=plot), Moment.BEFORE_PROPOSAL, events
        )

    def _deal(self, state: ResistanceState, events: list[Event]) -> ResistanceState:
        plot = state.plot
        assert plot is not None
        plot, drawn = draw(plot, draws_per_round(state.players), state.options.plot_draws)
        state = dataclasses.replace(state, plot=plot)
        events.append(self._drawn_event(state, drawn))
        return dataclasses.replace(state, phase=Phase.PLOT_HAND)

    @staticmethod
    def _drawn_event(state: ResistanceState, drawn: Sequence[PlotCard]) -> Event:
        return Event(
            "plot_drawn",
            {
                "commander": state.commander,
                "cards": [c.value for c in drawn],
                "count": len(drawn),
            },
        )

    def _propose_now(self, state: ResistanceState, events: list[Event]) -> ResistanceState:
        after = dataclasses.replace(state, phase=Phase.PROPOSE)
        events.append(self.command_event(after))
        return after

    # -- helpers ------------------------------------------------------------------------------

    def _check_seat(self, state: ResistanceState, seat: int) -> None:
        if not 0 <= seat < state.players:
            raise IllegalAction("no_such_seat", seat=seat, players=state.players)

    @staticmethod
    def _left_of(state: ResistanceState, seat: int) -> int:
        return (seat + 1) % state.players

    def _prepare(self, state: ResistanceState, commander: int, rejections: int) -> ResistanceState:
        available = self.available_missions(state)
        mission = None if state.options.targeting else available[0]
        return dataclasses.replace(
            state,
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
        plot = state.plot
        if plot is not None:
            plot = dataclasses.replace(plot, window=None, pending=None)
        after = dataclasses.replace(
            state,
            phase=Phase.OVER,
            outcome=outcome,
            squad=(),
            mission=None,
            rejections=state.rejections if rejections is None else rejections,
            plot=plot,
        )
        events.append(Event("game_over", outcome.to_json()))
        return after, events

    # -- what the outside world may see ---------------------------------------------------------

    def outcome(self, state: ResistanceState) -> Outcome | None:
        return state.outcome


T = TypeVar("T")


def _replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])
