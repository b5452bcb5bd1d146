"""Résistance's state and actions: small frozen value objects with a JSON form."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.game import Action, IllegalAction, Outcome
from companion.games.resistance.tables import MAX_PLAYERS, MIN_PLAYERS


class Phase(enum.Enum):
    NIGHT = "night"  # the Cylons recognise each other, narrated by the companion
    PROPOSE = "propose"  # the Commandant names a squad
    VOTE = "vote"  # everyone votes on the squad, in secret
    MISSION = "mission"  # the squad plays Success or Fail, in secret
    OVER = "over"


class Card(enum.Enum):
    SUCCESS = "success"
    FAIL = "fail"


class Side(enum.Enum):
    COLONS = "colons"
    CYLONS = "cylons"


class Termination(enum.Enum):
    THREE_SUCCESSES = "three_successes"
    THREE_FAILURES = "three_failures"
    FIVE_REJECTIONS = "five_rejections"


@dataclass(frozen=True)
class Options:
    """Game options, chosen at setup. Seats are numbered clockwise from 0: left is seat + 1."""

    players: int
    targeting: bool = False  # variant "Attaques ciblées"
    isolated_cylons: bool = False  # variant "Cylons isolés": no night phase
    first_commander: int = 0

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Options:
        known = {"players", "targeting", "isolated_cylons", "first_commander"}
        unknown = set(data) - known
        if unknown:
            raise IllegalAction("unknown_option", option=sorted(unknown)[0])
        players = data.get("players")
        if not isinstance(players, int) or isinstance(players, bool):
            raise IllegalAction(
                "players_out_of_range", players=players, low=MIN_PLAYERS, high=MAX_PLAYERS
            )
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction(
                "players_out_of_range", players=players, low=MIN_PLAYERS, high=MAX_PLAYERS
            )
        first = data.get("first_commander", 0)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
            raise IllegalAction("no_such_seat", seat=first, players=players)
        flags = {}
        for name in ("targeting", "isolated_cylons"):
            value = data.get(name, False)
            if not isinstance(value, bool):
                raise IllegalAction("option_not_boolean", option=name)
            flags[name] = value
        return Options(players, first_commander=first, **flags)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "targeting": self.targeting,
            "isolated_cylons": self.isolated_cylons,
            "first_commander": self.first_commander,
        }


@dataclass(frozen=True)
class MissionResult:
    mission: int
    squad: tuple[int, ...]
    fails: int
    failed: bool

    @property
    def successes(self) -> int:
        return len(self.squad) - self.fails


@dataclass(frozen=True)
class VoteResult:
    """A revealed vote: public, like the face-up vote cards at the table."""

    mission: int
    commander: int
    squad: tuple[int, ...]
    approvals: tuple[bool, ...]

    @property
    def yes(self) -> int:
        return sum(self.approvals)

    @property
    def approved(self) -> bool:
        """A strict majority of Yes approves; a tie rejects."""
        return 2 * self.yes > len(self.approvals)


@dataclass(frozen=True)
class ResistanceState:
    options: Options
    seed: int
    phase: Phase
    commander: int
    rejections: int  # rejected proposals in the current round
    results: tuple[MissionResult, ...]
    mission: int | None  # the mission being proposed, voted or played (None: not chosen yet)
    squad: tuple[int, ...]
    votes: tuple[bool | None, ...]  # secret until the last seat has voted
    cards: tuple[Card | None, ...]  # secret for ever: only the counts are revealed
    last_vote: VoteResult | None
    outcome: Outcome | None

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def successes(self) -> int:
        return sum(not r.failed for r in self.results)

    @property
    def failures(self) -> int:
        return sum(r.failed for r in self.results)


@dataclass(frozen=True)
class EndNight(Action):
    """The identification phase has been narrated; play begins."""

    kind: ClassVar[str] = "end_night"


@dataclass(frozen=True)
class ProposeSquad(Action):
    kind: ClassVar[str] = "propose"
    commander: int
    squad: tuple[int, ...]
    mission: int | None = None  # required with "Attaques ciblées", else the next mission


@dataclass(frozen=True)
class CastVote(Action):
    kind: ClassVar[str] = "vote"
    seat: int
    approve: bool


@dataclass(frozen=True)
class PlayMissionCard(Action):
    kind: ClassVar[str] = "mission_card"
    seat: int
    card: Card


ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls for cls in (EndNight, ProposeSquad, CastVote, PlayMissionCard)
}
