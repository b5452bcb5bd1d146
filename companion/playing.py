"""Turn-taking and journalling: the game being played at the table, each action applied, then
written to the journal, and only then kept; the host's undo; a game picked up from its journal.

``Running`` holds no voice, page or lock: the ``Table`` (``companion/moderator.py``) calls it
under its lock, and announces what it returns. Every method that changes something raises
``IllegalAction`` or ``JournalError`` with nothing changed: the engine decides first, the
journal is written next, and the game moves on only once both have accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from companion.game import Action, Event, Game, IllegalAction, action_from_json
from companion.game_rules import GameRules
from companion.games.titles import game_for
from companion.journal import GameEntry, Journal, standing
from companion.narration import Catalog

UNDO_KEPT = 32  # the last actions the host may take back one after the other

S = TypeVar("S")  # the game's state
P = TypeVar("P")  # its presses not yet made into an action (a squad being named), or None


@dataclass(frozen=True)
class Step(Generic[S]):
    """An action as the table applied it, with what taking it back needs."""

    seq: int  # its row in the journal
    before: S  # the state it was played on
    action: Action
    seen: bool  # it changed the public view: an action seen by nobody is never offered


@dataclass
class Running(Generic[S, P]):
    """The game being played: its journal entry, engine and rules at the table, its state, and
    the count of what happened (the journal's sequence, the changes the table saw)."""

    entry: GameEntry
    game: Game[S]
    rules: GameRules[S, P]
    state: S
    catalog: Catalog
    pending_input: P
    version: int = 0  # actions applied (the journal's sequence)
    # actions that changed the public view: the snapshot's "version", which an action seen by
    # nobody (a vote changed before the reveal) must not move
    public_version: int = 0
    # what the narrator said as the game ended (who won and why): the ending shows it
    ending_said: tuple[str, ...] = ()
    # the last actions standing, newest last (the host's undo takes back the newest)
    steps: list[Step[S]] = field(default_factory=list)

    @classmethod
    def resumed(
        cls, journal: Journal, entry: GameEntry, rules: GameRules[Any, Any], catalog: Catalog
    ) -> Running[Any, Any]:
        """The game of ``entry`` as its journal left it: every action standing (not taken
        back) played again. Raises ``IllegalAction`` or ``MalformedAction`` when this version
        cannot replay it (its options, or an action, refused by rules that changed since)."""
        game = game_for(entry.title)
        rows = journal.rows(entry.id)
        steps: list[Step[Any]] = []
        public_version = len(rows) - len(standing(rows))  # each undo changed the view back
        state = game.new(entry.options, entry.seed)
        for seq, data in standing(rows):
            action = action_from_json(game.actions, data)
            before, seen = state, game.public_view(state)
            state, _ = game.apply(state, action)
            changed = game.public_view(state) != seen
            public_version += changed
            steps.append(Step(seq, before, action, changed))
        return cls(
            entry,
            game,
            rules,
            state,
            catalog,
            rules.blank_input,
            version=len(rows),
            public_version=public_version,
            steps=steps[-UNDO_KEPT:],
        )

    @property
    def over(self) -> bool:
        return self.game.outcome(self.state) is not None

    def play(self, action: Action, journal: Journal) -> list[Event]:
        """Apply ``action``, journal it, then keep it (and end the journal's game if it is
        over); the events the engine returned, for the table to announce. The input half made
        (a squad being named) starts afresh."""
        state, events = self.game.apply(self.state, action)
        journal.append(self.entry.id, self.version + 1, action.to_json())
        seen = self.game.public_view(state) != self.game.public_view(self.state)
        self._keep(Step(self.version + 1, self.state, action, seen))
        self.state = state
        self.version += 1
        self.public_version += seen
        self.pending_input = self.rules.blank_input
        if self.over:
            journal.finish(self.entry.id)
        return events

    def take_back(self, seq: int, journal: Journal) -> Step[S]:
        """The host's undo of journal row ``seq``: refused unless it is the action offered now
        (``undo_offer``), so that a second click, or a page that has not seen a newer action,
        takes back nothing. Journalled as an undo row (the action stays in the journal); the
        input half made comes back as the rules say. Returns the step taken back."""
        step = self.undo_offer()
        if step is None:
            raise IllegalAction("nothing_to_undo")
        if step.seq != seq:
            raise IllegalAction("undo_stale", what=self.undo_words(step))
        journal.append_undo(self.entry.id, self.version + 1, step.seq)
        self.steps.pop()
        self.state = step.before
        self.version += 1
        self.public_version += 1
        undone = self.rules.undone_input
        self.pending_input = self.rules.blank_input if undone is None else undone(step.action)
        return step

    def undo_offer(self) -> Step[S] | None:
        """The action the host may take back now: the last one standing, if it changed what the
        table sees, the rules allow it, the game is not over and no eyes are closed."""
        step = self.steps[-1] if self.steps else None
        if (
            step is None
            or not step.seen
            or self.over
            or self.rules.in_opening(self.state)
            or not self.rules.undoable(step.before, step.action)
        ):
            return None
        return step

    def undo_words(self, step: Step[S]) -> str:
        """What taking ``step`` back takes back, in words ("the squad Ada and Ben")."""
        params = {k: v for k, v in step.action.to_json().items() if k != "kind"}
        return self.catalog.text(f"undo.{self.entry.title}.{step.action.kind}", **params)

    def _keep(self, step: Step[S]) -> None:
        self.steps.append(step)
        del self.steps[:-UNDO_KEPT]
