"""Game night's options, state and actions: frozen value objects with a JSON form."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.chance import named_draws
from companion.game import Action, IllegalAction
from companion.games.night.dice import PipDie, Throw
from companion.games.night.pad import ScorePad
from companion.games.night.turns import SECONDS, TurnTimer
from companion.games.sand import PauseHourglass, ResumeHourglass

PLAYERS = range(1, 21)
TURN_SECONDS = 60
HISTORY_SHOWN = 20  # throws listed on the page (the statistics count them all)


class Screen(enum.Enum):
    """The tool the table's page shows."""

    DICE = "dice"
    TIMER = "timer"
    SCORES = "scores"
    STARTER = "starter"


class Reason(enum.Enum):
    CLOSED = "closed"  # the host ended the evening


@dataclass(frozen=True)
class Options:
    """``players`` at the table (1 to 20), ``turn_seconds`` for the turn timer (5 to 3600),
    ``low_wins`` (the lowest score leads), ``by_color`` (dice said and counted by colour),
    ``starters``: the seats the first "who starts" draws gave, in order (an exported record's,
    which carries no seed before the evening ends)."""

    players: int = 4
    turn_seconds: int = TURN_SECONDS
    low_wins: bool = False
    by_color: bool = False
    starters: tuple[int, ...] = ()

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Options:
        known = {"players", "turn_seconds", "low_wins", "by_color", "starters"}
        unknown = set(data) - known
        if unknown:
            raise IllegalAction("unknown_option", option=sorted(unknown)[0])
        return Options(
            _whole(data, "players", 4, PLAYERS),
            _whole(data, "turn_seconds", TURN_SECONDS, SECONDS),
            _flag(data, "low_wins"),
            _flag(data, "by_color"),
            named_draws(data, "starters", int),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": self.players,
            "turn_seconds": self.turn_seconds,
            "low_wins": self.low_wins,
            "by_color": self.by_color,
        }
        if self.starters:
            out["starters"] = list(self.starters)
        return out


def _whole(data: Mapping[str, Any], key: str, default: int, allowed: range) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value not in allowed:
        raise IllegalAction(
            "night_number_range", option=key, value=value, low=allowed[0], high=allowed[-1]
        )
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise IllegalAction("option_not_boolean", option=key)
    return value


@dataclass(frozen=True)
class Pick:
    """The ``number``-th "who starts" of the evening: ``seat`` drawn among ``among``."""

    number: int
    among: tuple[int, ...]
    seat: int

    def view(self) -> dict[str, Any]:
        return {"number": self.number, "among": list(self.among), "seat": self.seat}


@dataclass(frozen=True)
class NightState:
    options: Options
    seed: int = field(repr=False)  # secret until the evening ends: tells who starts next
    pad: ScorePad
    screen: Screen = Screen.DICE
    by_color: bool = False
    throws: tuple[Throw, ...] = ()
    timer: TurnTimer | None = None
    sheets: tuple[tuple[int, ...], ...] = ()  # the totals of the pads put away
    picks: tuple[Pick, ...] = ()
    closed: bool = False

    @property
    def players(self) -> int:
        return self.options.players


# -- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShowScreen(Action):
    """The host turns the table's page to another tool."""

    kind: ClassVar[str] = "show_screen"
    screen: Screen


@dataclass(frozen=True)
class ReadDice(Action):
    """The dice the camera saw (or the host typed: no places)."""

    kind: ClassVar[str] = "read_dice"
    dice: tuple[PipDie, ...]


@dataclass(frozen=True)
class CorrectDie(Action):
    """The host corrects die ``index`` of the last throw (a misread value)."""

    kind: ClassVar[str] = "correct_die"
    index: int
    value: int


@dataclass(frozen=True)
class CountByColor(Action):
    kind: ClassVar[str] = "count_by_color"
    on: bool


@dataclass(frozen=True)
class StartTimer(Action):
    """Turns of ``seconds`` each, clockwise from ``first``."""

    kind: ClassVar[str] = "start_timer"
    first: int
    seconds: int


@dataclass(frozen=True)
class PassTurn(Action):
    """``seat`` ends their turn (a press of A, their phone, the host), or their sand ran out."""

    kind: ClassVar[str] = "pass_turn"
    seat: int
    timed_out: bool = False


@dataclass(frozen=True)
class StopTimer(Action):
    kind: ClassVar[str] = "stop_timer"


@dataclass(frozen=True)
class WriteScore(Action):
    """``points`` for ``player`` in ``round`` (0 is the first; the row after the last opens a
    round); None rubs the cell out. ``player``, not ``seat``: scores are the host's to write."""

    kind: ClassVar[str] = "write_score"
    player: int
    round: int
    points: int | None


@dataclass(frozen=True)
class SayLeader(Action):
    kind: ClassVar[str] = "say_leader"


@dataclass(frozen=True)
class NewSheet(Action):
    """Put the pad away (its totals are kept) and start a clean one."""

    kind: ClassVar[str] = "new_sheet"


@dataclass(frozen=True)
class PickStarter(Action):
    """Draw who starts among ``among`` (every player when empty)."""

    kind: ClassVar[str] = "pick_starter"
    among: tuple[int, ...] = ()


@dataclass(frozen=True)
class EndEvening(Action):
    kind: ClassVar[str] = "end_evening"


ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        ShowScreen,
        ReadDice,
        CorrectDie,
        CountByColor,
        StartTimer,
        PassTurn,
        PauseHourglass,
        ResumeHourglass,
        StopTimer,
        WriteScore,
        SayLeader,
        NewSheet,
        PickStarter,
        EndEvening,
    )
}
