"""What each audience may see of a game of Eleusis: the public view (the layout, hand sizes and
verdicts; never a hand, the deck's order nor, before the end, the rule), a seat's own (its hand),
and what an exported record keeps (``companion/played.py``)."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod

from companion.game import JSON, Action, IllegalAction
from companion.games.eleusis.state import (
    CardMode,
    EleusisState,
    God,
    Judge,
    JudgeKind,
    NoPlay,
    Options,
    Overturn,
    Phase,
    PlayCards,
    ProphetJudge,
    TurnCard,
    Uphold,
    cards_json,
)
from companion.played import Played


class EleusisViews(ABC):
    """The engine's views and its record (``Eleusis`` in engine.py has them). They ask the rules
    whose verdict is awaited and whether a seat may declare itself prophet."""

    title: str

    @abstractmethod
    def judge_now(self, state: EleusisState) -> tuple[JudgeKind, int | None] | None:
        """The rules' (engine.py)."""

    @abstractmethod
    def prophet_refusal(self, state: EleusisState, seat: int) -> IllegalAction | None:
        """The rules' (engine.py)."""

    def public_view(self, state: EleusisState) -> JSON:
        """Everything the table may know: the layout, hand sizes, verdicts; never a hand, the
        deck's order or (before the end) the rule."""
        opts = state.options
        over = state.phase is Phase.OVER
        judge = self.judge_now(state)
        prophet = state.prophet
        may_declare = (
            [s for s in opts.seats if self.prophet_refusal(state, s) is None]
            if state.phase is Phase.PLAY
            else []
        )
        return {
            "game": self.title,
            "players": opts.players,
            "options": opts.public_json(),
            "god": opts.god.value,
            "god_seat": opts.god_seat,
            "card_seats": list(opts.seats),
            "phase": state.phase.value,
            "turn": state.turn,
            "judge": None if judge is None else {"by": judge[0].value, "seat": judge[1]},
            "turned": None if state.turned is None else state.turned.to_json(),
            "pending": None if state.pending is None else state.pending.to_json(),
            "line": [c.to_json() for c in state.layout.line],
            "starter_refused": cards_json(state.layout.starter_refused),
            "prophet": None if prophet is None else prophet.to_json(),
            "fallen_prophets": list(state.fallen),
            "may_declare_prophet": may_declare,
            "hand_sizes": [None if s == opts.god_seat else n for s, n in enumerate(state.sizes)],
            "deck": state.deck_size,
            "accepted": state.layout.accepted,
            "refused": state.layout.refused,
            "laid": state.layout.laid,
            "played": state.played,
            "played_under_fallen": state.played_under_fallen,
            "sudden_death": state.sudden_death,
            "eliminated": list(state.eliminated),
            "last_verdict": None if state.last is None else state.last.to_json(),
            "rule": None if not over or state.rule_info is None else state.rule_info.to_json(),
            "scores": None if state.scores is None else state.scores.to_json(),
            "outcome": None if state.outcome is None else state.outcome.to_json(),
        }

    def private_view(self, state: EleusisState, seat: int) -> JSON:
        """A seat's own view: the public one plus its own hand (digital cards)."""
        view = self.public_view(state)
        view["seat"] = seat
        digital = state.options.digital and seat in state.options.seats
        view["my_hand"] = cards_json(state.hands[seat]) if digital else None
        return view

    def public_setup(self, played: Played[EleusisState]) -> JSON:
        """The options an exported record's header carries, for ``public_record``: under them
        the record replays with no seed (``companion/record.py``).

        Digital cards become physical (the hands are never told). With the companion as God, the
        rule is withheld until the game is over (``rule_withheld``: the record then holds the
        companion's verdicts), and revealed after (``rule`` as typed, or the library's
        ``rule_id``). A human God's game with physical cards hides nothing.
        """
        opts = Options.from_json(played.options)
        public = opts
        if opts.digital:
            public = dataclasses.replace(public, cards=CardMode.PHYSICAL)
        if opts.god is God.COMPANION and not opts.rule_withheld:
            end = played.last
            info = end.rule_info
            if end.phase is Phase.OVER and info is not None:
                public = dataclasses.replace(
                    public,
                    rule=info.text if info.id is None else None,
                    rule_id=info.id,
                    level=None,
                )
            else:
                public = dataclasses.replace(
                    public, rule=None, rule_id=None, level=None, rule_withheld=True
                )
        if public == opts:
            return dict(played.options)
        return public.to_json()

    def public_record(self, played: Played[EleusisState]) -> list[Action]:
        """The game's actions with no secret in them, to replay under ``public_setup``.

        Digital cards: the starter cards the companion turned become ``TurnCard`` actions, and a
        no-play names the hand shown (it was shown to the table). Penalty cards and new hands are
        in no action. With the companion's rule withheld (a game not over), each verdict the
        companion gave is written as the action a God with no seat would take: ``Judge`` after
        a starter card or a play, ``Overturn`` or ``Uphold`` after the prophet's verdict.
        """
        first = played.first
        withhold = (
            first.options.god is God.COMPANION
            and first.rule is not None
            and played.last.phase is not Phase.OVER
        )
        out = self._record_starter(first, withhold)
        for step in played:
            out.extend(self._record(step.action, step.before, step.after, withhold))
        return out

    @staticmethod
    def _record_starter(state: EleusisState, withhold: bool) -> list[Action]:
        """Digital cards: the starter cards turned at setup (all of them, with the companion's
        verdicts when withheld; or the first, waiting for God's verdict)."""
        if not state.options.digital:
            return []
        out: list[Action] = []
        for card in state.layout.starter_refused:
            out.append(TurnCard(card))
            if withhold:
                out.append(Judge(None, False))
        if state.layout.line:
            out.append(TurnCard(state.layout.line[0].card))
            if withhold:
                out.append(Judge(None, True))
        if state.turned is not None:
            out.append(TurnCard(state.turned))
        return out

    def _record(
        self, action: Action, before: EleusisState, after: EleusisState, withhold: bool
    ) -> list[Action]:
        if isinstance(action, Judge) and before.phase is Phase.STARTER:
            return [action, *self._record_starter_after_judge(before, after)]
        if isinstance(action, TurnCard):
            out: list[Action] = [action]
            if withhold:
                out.append(Judge(None, bool(after.layout.line) and not before.layout.line))
            return out
        if isinstance(action, (PlayCards, NoPlay)):
            public = action
            if isinstance(action, NoPlay) and before.options.digital:
                public = NoPlay(action.seat, before.hands[action.seat])
            out = [public]
            if withhold and before.prophet is None:
                verdict = after.last
                assert verdict is not None
                out.append(Judge(None, verdict.accepted, verdict.god_card))
            return out
        if isinstance(action, ProphetJudge) and withhold:
            verdict = after.last
            assert verdict is not None
            if verdict.overturned:
                return [action, Overturn(None, verdict.god_card)]
            return [action, Uphold(None)]
        return [action]

    def _record_starter_after_judge(
        self, before: EleusisState, after: EleusisState
    ) -> list[Action]:
        """After a human God's verdict on a starter card, digital: the next card turned."""
        if before.options.digital and after.turned is not None:
            return [TurnCard(after.turned)]
        return []
