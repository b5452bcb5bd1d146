"""What each audience may see of a game of Oraklos: the public view (the table, the cards, the
scores; never what a cup holds before it is thrown, nor the deck's order), a seat's own, and what
an exported record keeps (``companion/played.py``)."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import Any

from companion.game import JSON, Action
from companion.games.oraklos.state import (
    CUP_PER_ROUND,
    MARKERS,
    FillCup,
    Mode,
    Options,
    OraklosState,
    Phase,
    ThrowDice,
    dice_on_table,
)
from companion.played import Held, Played


class OraklosViews(ABC):
    """The engine's views and its record (``Oraklos`` in engine.py has them). They ask the rules
    whose turn it is, what the cup holds and what the throw's reading lacks."""

    title: str

    @abstractmethod
    def _dice_to_throw(self, state: OraklosState) -> int:
        """The rules' (engine.py)."""

    @staticmethod
    @abstractmethod
    def _shuffled(opts: Options, seed: int) -> list[str]:
        """The rules' (engine.py)."""

    @staticmethod
    @abstractmethod
    def _to_draw(state: OraklosState) -> list[int]:
        """The rules' (engine.py)."""

    @staticmethod
    @abstractmethod
    def _turn(state: OraklosState) -> int | None:
        """The rules' (engine.py)."""

    @abstractmethod
    def cards_left(self, state: OraklosState) -> int:
        """The rules' (engine.py)."""

    @staticmethod
    @abstractmethod
    def correctable(state: OraklosState) -> bool:
        """The rules' (engine.py)."""

    @abstractmethod
    def mismatch(self, state: OraklosState) -> list[dict[str, Any]]:
        """The rules' (engine.py)."""

    def public_view(self, state: OraklosState) -> JSON:
        """Everything the table can see. Never what a seat put in the cup before the throw:
        until then each seat's supply is shown as it was before filling."""
        thrown = dice_on_table(state)
        supplies = [
            (supply if thrown or fill is None else supply + fill).to_json()
            for supply, fill in zip(state.supplies, state.fills, strict=False)
        ]
        taken = {m.marker for m in state.markers}
        claimant = state.claimant
        unseen = state.options.unseen_fills
        return {
            "game": self.title,
            "players": state.players,
            "options": state.options.to_json(),
            "mode": state.mode.value,
            "phase": state.phase.value,
            "round": state.round,
            "first_player": state.first_player,
            "turn": self._turn(state),
            "scores": list(state.scores),
            "round_points": list(state.round_points),
            "winning_score": state.options.winning_score,
            "hands": [list(h) for h in state.hands] if state.mode is not Mode.ANTIPODES else [],
            "shared": list(state.shared),
            "deck": self.cards_left(state),
            "to_draw": self._to_draw(state)
            if state.phase is Phase.DRAW and state.mode is not Mode.ANTIPODES
            else [],
            "shared_to_draw": self._to_draw(state)[0]
            if state.phase is Phase.DRAW and state.mode is Mode.ANTIPODES
            else 0,
            "discards": list(state.discards),
            "supplies": supplies,
            "cup": {
                "dice": 0 if thrown else self._dice_to_throw(state),
                "base": None if thrown or unseen else state.cup_base.to_json(),
                "filled": [s for s, f in enumerate(state.fills) if f is not None]
                if state.mode is Mode.STANDARD
                else [],
                "per_player": CUP_PER_ROUND[state.players] if state.mode is Mode.STANDARD else 0,
            },
            "table": [
                {"index": i, **d.to_json(), "flagged": d.flagged} for i, d in enumerate(state.table)
            ],
            "mismatch": self.mismatch(state),
            "correctable": self.correctable(state),
            "on_table": state.on_table.to_json(),
            "markers": [m.to_json() for m in state.markers],
            "markers_left": [m for m in MARKERS if m not in taken]
            if state.phase is Phase.SEARCH
            else [],
            "claimant": None if claimant is None else claimant.to_json(),
            "retrieval_order": list(state.retrieval_order),
            "last_judgement": state.last_judgement,
            "ledger": [line.to_json() for line in state.ledger],
            "outcome": None if state.outcome is None else state.outcome.to_json(),
        }

    def private_view(self, state: OraklosState, seat: int) -> JSON:
        """A seat's own view: the public one plus what it put in the cup and its real supply."""
        view = self.public_view(state)
        view["seat"] = seat
        inside = 0 <= seat < state.players
        fill = state.fills[seat] if inside else None
        view["my_cup"] = None if fill is None else fill.to_json()
        has_supply = inside and bool(state.supplies)
        view["my_supply"] = state.supplies[seat].to_json() if has_supply else None
        return view

    def public_record(self, played: Played[OraklosState]) -> list[Action]:
        """The game's actions with no secret in them, for an exported record.

        A seat's cup filling is kept once the dice are thrown (every supply is then in front of
        its owner again, so the table can count what each put in), just before the throw; the
        fillings of a cup not yet thrown are left out.
        """
        out: list[Action] = []
        fillings = Held()
        for step in played:
            if isinstance(step.action, FillCup):
                fillings.hold(step.action)
                continue
            if isinstance(step.action, ThrowDice) and step.before.phase is Phase.THROW:
                out.extend(fillings.release())
            out.append(step.action)
        return out

    def public_setup(self, played: Played[OraklosState]) -> JSON:
        """The options an exported record's header carries, for ``public_record``: under them
        the record replays with no seed (``companion/record.py``). With a dealt deck, the wish
        cards dealt so far are named in ``dealt``, in the order dealt (every card dealt lies face
        up); the order of the cards still in the deck is not in the record."""
        opts = Options.from_json(played.options)
        if opts.drawn:
            return dict(played.options)
        deck = self._shuffled(opts, played.seed)
        dealt = tuple(deck[: len(deck) - len(played.last.deck)])
        return dataclasses.replace(opts, dealt=dealt).to_json()
