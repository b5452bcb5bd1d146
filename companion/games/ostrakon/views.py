"""What each audience may see of a game of Ostrakon: the public view (the piles, the Sun and the
Moon, the tessons once shown; never a vote before the reveal, nor the subjects' order), a seat's
own (its vote), and what an exported record keeps (``companion/played.py``)."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import Any

from companion.game import JSON, Action, IllegalAction
from companion.games.ostrakon.path import DayRule
from companion.games.ostrakon.state import (
    Flip,
    Name,
    Options,
    OstrakonState,
    Phase,
    Vote,
    colour,
)
from companion.played import Held, Played


class OstrakonViews(ABC):
    """The engine's views and its record (``Ostrakon`` in engine.py has them). They ask the rules
    who asks next, who may claim to be the disciple, and the subjects' texts."""

    title: str

    @staticmethod
    @abstractmethod
    def _pile(opts: Options, seed: int) -> tuple[int, ...]:
        """The rules' (engine.py)."""

    @staticmethod
    @abstractmethod
    def _subject_text(state: OstrakonState, subject_id: str) -> dict[str, Any]:
        """The rules' (engine.py)."""

    @abstractmethod
    def disciple_contenders(self, state: OstrakonState) -> tuple[int, ...]:
        """The rules' (engine.py)."""

    @abstractmethod
    def disciple_refusal(
        self, state: OstrakonState, seat: int, *, together: bool = False
    ) -> IllegalAction | None:
        """The rules' (engine.py)."""

    @abstractmethod
    def last_of_day(self, state: OstrakonState) -> bool:
        """The rules' (engine.py)."""

    @abstractmethod
    def next_asker(self, state: OstrakonState) -> int | None:
        """The rules' (engine.py)."""

    def public_view(self, state: OstrakonState) -> JSON:
        """Everything the table can see: never a tesson still face down."""
        shown_votes = [
            colour(v) if shown and v is not None else None
            for v, shown in zip(state.votes, state.shown, strict=True)
        ]
        corruption = state.day_rule is DayRule.CORRUPTION
        return {
            "game": self.title,
            "players": state.players,
            "options": state.options.to_json(),
            "phase": state.phase.value,
            "turn": state.turn,
            "day": state.day,
            "days": state.options.days,
            "moons_covered": state.moon,
            "day_rule": state.day_rule.value,
            "named_count": state.options.named,
            "path": state.path.to_json(state.options.symbol_map),
            "sun": state.sun,
            "under_sun": list(state.under_sun),
            "asker": state.asker,
            "next_asker": self.next_asker(state),
            "last_of_day": self.last_of_day(state),
            "subject": state.subject,
            "subject_text": self._subject_text(state, state.subject),
            "next_subject": state.next_subject,
            "next_subject_text": self._subject_text(state, state.next_subject),
            "olive_branches": ["unused" if o else "used" for o in state.olive],
            "disciple": state.disciple,
            "disciple_claimants": list(state.claimants),
            "disciple_candidates": [
                s for s in range(state.players) if self.disciple_refusal(state, s) is None
            ]
            if state.phase is Phase.VOTE
            else [],
            "disciple_contenders": list(self.disciple_contenders(state)),
            "votes": state.options.votes.value,
            "voted": [s for s in range(state.players) if state.has_voted(s)],
            "reveal": None if state.reveal is None else state.reveal.value,
            "awaiting_reveal": list(state.expected),
            "tessons": shown_votes,
            "named": list(state.named),
            "corrupted": [s for s in state.named if state.shown[s]] if corruption else [],
            "last_result": None if state.last_result is None else state.last_result.to_json(),
            "outcome": None if state.outcome is None else state.outcome.to_json(),
        }

    def private_view(self, state: OstrakonState, seat: int) -> JSON:
        """A seat's own view: the public one plus its own tesson, shown or not."""
        view = self.public_view(state)
        inside = 0 <= seat < state.players
        vote = state.votes[seat] if inside else None
        view["seat"] = seat
        view["my_vote"] = None if vote is None else colour(vote)
        view["may_claim_disciple"] = inside and self.disciple_refusal(state, seat) is None
        return view

    def public_record(self, played: Played[OstrakonState]) -> list[Action]:
        """The game's actions with no secret in them, for an exported record.

        A turn's votes are kept once every tesson is face up, each seat's last vote only, in
        the order the seats first voted, followed by the asker's naming and flip. On an Oracle
        day the asker's flip was never shown: the record gives the asker's final tesson as
        their vote and a flip that keeps it. The votes of a turn still open are left out.

        With votes by camera every action is public (a tesson is entered only once shown).
        """
        if played.first.options.camera:
            return played.actions
        out: list[Action] = []
        votes, asking = Held(), Held()
        for step in played:
            action = step.action
            if isinstance(action, Vote):
                votes.hold(action, key=action.seat)
            elif isinstance(action, Name | Flip):
                asking.hold(action)
            else:
                out.append(action)
            result = step.after.last_result
            if result is None or result is step.before.last_result:
                continue
            oracle = result.rule is DayRule.ORACLE
            for vote in votes.release():
                assert isinstance(vote, Vote)
                final = oracle and vote.seat == result.asker
                out.append(Vote(vote.seat, result.votes[vote.seat]) if final else vote)
            for kept in asking.release():
                out.append(Flip(kept.seat, False) if oracle and isinstance(kept, Flip) else kept)
        return out

    def public_setup(self, played: Played[OstrakonState]) -> JSON:
        """The options an exported record's header carries, for ``public_record``: under them
        the record replays with no seed (``companion/record.py``). The starting pile (public
        from the start) is named in ``pile``, and the subjects drawn so far (each shown as the
        next subject when drawn) in ``subject_draws``; the order of the subject cards still in
        the deck is not in the record."""
        opts = Options.from_json(played.options)
        drawn = [played.first.subject, played.first.next_subject]
        for step in played:
            if len(drawn) < step.after.turn + 1:
                drawn.append(step.after.next_subject)
        assert len(drawn) == played.last.turn + 1, "one subject is drawn a turn"
        return dataclasses.replace(
            opts, pile=self._pile(opts, played.seed), subject_draws=tuple(drawn)
        ).to_json()
