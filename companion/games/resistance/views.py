"""What each audience may see of a game of Résistance: the public view (never a pending vote,
who played which card, an identity, nor what a plot card showed to one player), a seat's own,
what the end reveals, and what an exported record keeps (``companion/played.py``)."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod

from companion.game import JSON, Action
from companion.games.resistance.plot import (
    PlotCard,
    draws_per_round,
)
from companion.games.resistance.state import (
    Card,
    CastVote,
    Identities,
    Options,
    Phase,
    PlayMissionCard,
    ResistanceState,
    Side,
)
from companion.games.resistance.tables import (
    MISSIONS,
    fails_needed,
    squad_size,
)
from companion.played import Held, Played


class ResistanceViews(ABC):
    """The engine's views and its record (``Resistance`` in engine.py has them). They ask the
    rules what they show: the missions open, the opinion makers, the plot cards playable."""

    title: str

    @abstractmethod
    def available_missions(self, state: ResistanceState) -> tuple[int, ...]:
        """The rules' (engine.py)."""

    @abstractmethod
    def opinion_makers(self, state: ResistanceState) -> tuple[int, ...]:
        """The rules' (engine.py)."""

    @abstractmethod
    def opinion_open(self, state: ResistanceState) -> bool:
        """The rules' (engine.py)."""

    @abstractmethod
    def playable(self, state: ResistanceState, seat: int) -> tuple[PlotCard, ...]:
        """The rules' (engine.py)."""

    def public_view(self, state: ResistanceState) -> JSON:
        """Everything the table may know: never a pending vote, never who played which card,
        never an identity, never what a plot card showed to one player."""
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
            "plot": self._public_plot(state),
        }

    def _public_plot(self, state: ResistanceState) -> JSON | None:
        plot = state.plot
        if plot is None:
            return None
        window = plot.window
        spotlight = plot.spotlight
        spot_card = None if spotlight is None else state.cards[spotlight]
        makers = self.opinion_makers(state)
        return {
            "draws_per_round": draws_per_round(state.players),
            "deck": len(plot.deck),
            "discards": [c.value for c in plot.discards],
            "drawn": [c.value for c in plot.drawn],
            "held": [[c.value for c in cards] for cards in plot.held],
            "pending": None
            if plot.pending is None
            else {
                "card": plot.pending.card.value,
                "seat": plot.pending.receiver,
                "actor": plot.pending.actor,
            },
            "window": None
            if window is None
            else {
                "moment": window.moment.value,
                "turn": window.turn,
                "cards": [c.value for c in self.playable(state, window.turn)],
            },
            "passed": list(plot.passed),
            "watches": [{"seat": w, "member": m} for w, m in plot.watches],
            "spotlight": None
            if spotlight is None
            else {"seat": spotlight, "card": None if spot_card is None else spot_card.value},
            "opinion_makers": list(makers),
            "opinion_votes": [{"seat": m, "approve": state.votes[m]} for m in makers]
            if self.opinion_open(state)
            else [],
        }

    def revealed(self, state: ResistanceState) -> JSON | None:
        """What the end of the game tells the table that the game kept secret: with digital
        identities, every seat's side by seat (``sides``); with physical ones, nothing the
        companion knows, and the players turn their cards over (``turn_over``). None while the
        game runs: no identity is public before the end."""
        if state.outcome is None:
            return None
        if state.identities is None:
            return {"sides": None, "turn_over": True}
        return {"sides": [side.value for side in state.identities], "turn_over": False}

    def private_view(self, state: ResistanceState, seat: int) -> JSON:
        """A seat's own view: the public one plus its own pending vote or card, its identity and
        fellow Cylons (digital identities), and what plot cards showed it alone (``learned``)."""
        view = self.public_view(state)
        here = 0 <= seat < state.players
        vote = state.votes[seat] if here else None
        card = state.cards[seat] if here else None
        view["seat"] = seat
        view["my_vote"] = vote
        view["my_card"] = None if card is None else card.value
        identities = state.identities
        if identities is None or not here:
            view["identity"] = None
            view["fellow_cylons"] = None
        else:
            view["identity"] = identities[seat].value
            cylon = identities[seat] is Side.CYLONS and not state.options.isolated_cylons
            view["fellow_cylons"] = (
                [s for s, side in enumerate(identities) if side is Side.CYLONS and s != seat]
                if cylon
                else []
            )
        knowledge = () if state.plot is None else state.plot.knowledge
        view["learned"] = [k.to_json() for k in knowledge if k.viewer == seat]
        return view

    def public_setup(self, played: Played[ResistanceState]) -> JSON:
        """The options an exported record's header carries, for ``public_record``: under them
        the record replays with no seed (``companion/record.py``).

        Without Le Plan and with physical identities, the game's own. Otherwise the record
        replays as a game with physical identities (the seed's deal is never told) and the cards
        drawn so far named in ``plot_draws`` (the deck's contents and size are the game's; its
        hidden order is not in the record).
        """
        opts = Options.from_json(played.options)
        if not opts.plot and opts.identities is Identities.PHYSICAL:
            return dict(played.options)
        public = dataclasses.replace(opts, identities=Identities.PHYSICAL)
        plot = played.last.plot
        if plot is not None:
            public = dataclasses.replace(public, plot_draws=plot.drawn_log)
        return public.to_json()

    def public_record(self, played: Played[ResistanceState]) -> list[Action]:
        """The game's actions with no secret in them, for an exported record.

        Votes are kept once revealed (vote cards are shown face up at the table), each seat's
        final vote only, in the order the seats first voted (a vote changed before the reveal was
        never shown); the votes of a vote still open are left out, but for the opinion makers'
        once face up. A mission's cards are re-dealt in seat order, successes first, once the
        mission is resolved, so the record keeps the counts but not who played what; the cards of
        a mission still being played are left out, but for a card played face up (In the
        Spotlight), kept as played. Plot card plays are public and kept; what they showed to one
        player is in no action. Replay it under ``public_setup``'s options.
        """
        out: list[Action] = []
        votes = Held()
        for before, action, state in ((s.before, s.action, s.after) for s in played):
            if isinstance(action, CastVote):
                votes.hold(action, key=action.seat)
                if state.last_vote is not before.last_vote:
                    out.extend(votes.release())
                elif self.opinion_open(state) and not self.opinion_open(before):
                    out.extend(votes.take(maker) for maker in self.opinion_makers(state))
            elif isinstance(action, PlayMissionCard):
                out.extend(self._public_cards(before, state, action))
            else:
                out.append(action)
        return out

    def _public_cards(
        self, before: ResistanceState, after: ResistanceState, action: PlayMissionCard
    ) -> list[Action]:
        plot = before.plot
        spotlit = None if plot is None else plot.spotlight
        face_up = action.seat == spotlit and before.cards[action.seat] is None
        if len(after.results) == len(before.results):
            return [action] if face_up else []
        result = after.results[-1]
        successes, fails = result.successes, result.fails
        shown: Card | None = None
        if spotlit is not None:
            shown = action.card if face_up else before.cards[spotlit]
            if shown is Card.FAIL:
                fails -= 1
            else:
                successes -= 1
        others = [s for s in result.squad if s != spotlit]
        cards = [Card.SUCCESS] * successes + [Card.FAIL] * fails
        out: list[Action] = [PlayMissionCard(s, c) for s, c in zip(others, cards, strict=True)]
        if face_up and shown is not None:
            out.append(PlayMissionCard(action.seat, shown))
        return out
