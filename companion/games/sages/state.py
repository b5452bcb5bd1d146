"""Les 7 Sages' options, state and actions: frozen value objects with a JSON form."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from companion.game import Action, IllegalAction, Outcome
from companion.games.sages import board
from companion.games.sages.board import CENTRE, Side, Square, cite
from companion.games.sages.moves import Move, Position, three_side_by_side
from companion.games.sand import PauseHourglass, ResumeHourglass, Sand

SAGES_PER_SIDE = 7
TARGET = 5  # points that win the match
TARGETS = range(1, 16)
HOURGLASS = range(10, 601)  # seconds a move may take, when the hourglass is used
STRENGTHS = range(1, 5)
DEFAULT_STRENGTH = 3

# The project's starting squares (RULES.md §5): one sage in the cité, six on marked squares of
# the kingdom off the fool's lines (no chase can score at once), Blue's the mirror of Red's
# across the centre row; the fool on h8.
STANDARD_RED = ("h1", "d3", "l3", "f4", "j4", "c6", "m6")


def _mirror(name: str) -> str:
    return f"{name[0]}{board.SIZE + 1 - int(name[1:])}"


STANDARD_BLUE = tuple(_mirror(s) for s in STANDARD_RED)


class Phase(enum.Enum):
    PLACE = "place"  # free placement: the players lay their sages in turn, Red first
    PLAY = "play"
    OVER = "over"


class Layout(enum.Enum):
    STANDARD = "standard"  # the project's marked squares
    FREE = "free"  # the players place their sages before the first round
    CUSTOM = "custom"  # squares given in the options


class Placement(enum.Enum):
    """Where free placement lays the six sages that are not in the cité."""

    KINGDOM = "kingdom"  # the seed: « les six autres à travers le royaume », anywhere in it
    HALVES = "halves"  # each side in its own half of the kingdom (rows 2-7 Red, 9-14 Blue)


class Repetition(enum.Enum):
    """What the same position coming a third time with the same player to move does (the seed
    has no end for a match that loops)."""

    OFF = "off"  # nothing: the match goes on
    ROUND = "round"  # the round is drawn: no point, replayed from the starting squares
    MATCH = "match"  # the match ends, drawn


REPEATS_TO_DRAW = 3  # the same position, the same player to move, this many times


class Reason(enum.Enum):
    TARGET_REACHED = "target_reached"
    DRAW_AGREED = "draw_agreed"  # the host entered the players' agreed draw
    REPETITION = "repetition"  # option repetition "match": the third repetition


DRAW = "draw"  # ``Outcome.winner`` of a drawn match: neither side won


@dataclass(frozen=True)
class Options:
    """``layout``: "standard", "free", or the squares themselves (``{"red": [7 squares],
    "blue": [7 squares], "fool": "h8"}``); ``target``: points that win (5); ``hourglass``:
    seconds per move, or None; ``computer``: the side the companion plays, or None;
    ``strength``: how hard the companion looks (1 to 4); ``placement``: where free placement
    puts the six sages out of the cité, "kingdom" (the seed) or "halves"; ``draw_by_agreement``:
    the host may end the match as a draw the players agree (off); ``repetition``: what a third
    repetition of a position does, "off", "round" or "match" (off)."""

    layout: Layout = Layout.STANDARD
    start: Position | None = None  # the squares, unless the players place them
    target: int = TARGET
    hourglass: int | None = None
    computer: Side | None = None
    strength: int = DEFAULT_STRENGTH
    placement: Placement = Placement.KINGDOM
    draw_by_agreement: bool = False
    repetition: Repetition = Repetition.OFF

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Options:
        known = {
            "players",
            "layout",
            "target",
            "hourglass",
            "computer",
            "strength",
            "placement",
            "draw_by_agreement",
            "repetition",
        }
        unknown = set(data) - known
        if unknown:
            raise IllegalAction("unknown_option", option=sorted(unknown)[0])
        if data.get("players", 2) != 2:
            raise IllegalAction("sages_two_players", players=data.get("players"))
        layout_data = data.get("layout", Layout.STANDARD.value)
        if isinstance(layout_data, dict):
            layout, start = Layout.CUSTOM, layout_from_json(layout_data)
        elif layout_data == Layout.STANDARD.value:
            layout, start = Layout.STANDARD, standard_start()
        elif layout_data == Layout.FREE.value:
            layout, start = Layout.FREE, None
        else:
            raise IllegalAction(
                "unknown_option_value",
                option="layout",
                value=layout_data,
                choices=["standard", "free", "{red, blue, fool}"],
            )
        computer = data.get("computer")
        if computer is not None and computer not in ("red", "blue"):
            raise IllegalAction(
                "unknown_option_value", option="computer", value=computer, choices=["red", "blue"]
            )
        agreed = data.get("draw_by_agreement", False)
        if not isinstance(agreed, bool):
            raise IllegalAction("option_not_boolean", option="draw_by_agreement")
        return Options(
            layout,
            start,
            _whole(data, "target", TARGET, TARGETS),
            None if data.get("hourglass") is None else _whole(data, "hourglass", 0, HOURGLASS),
            None if computer is None else Side(computer),
            _whole(data, "strength", DEFAULT_STRENGTH, STRENGTHS),
            _choice(data, "placement", Placement.KINGDOM),
            agreed,
            _choice(data, "repetition", Repetition.OFF),
        )

    def to_json(self) -> dict[str, Any]:
        layout: Any = self.layout.value
        if self.layout is Layout.CUSTOM:
            assert self.start is not None
            layout = position_json(self.start)
        return {
            "players": 2,
            "layout": layout,
            "target": self.target,
            "hourglass": self.hourglass,
            "computer": None if self.computer is None else self.computer.value,
            "strength": self.strength,
            "placement": self.placement.value,
            "draw_by_agreement": self.draw_by_agreement,
            "repetition": self.repetition.value,
        }


E = TypeVar("E", Placement, Repetition)


def _choice(data: Mapping[str, Any], key: str, default: E) -> E:
    """An option taking one of an enum's values, or a refusal naming the allowed ones."""
    value = data.get(key, default.value)
    for member in type(default):
        if value == member.value:
            return member
    raise IllegalAction(
        "unknown_option_value",
        option=key,
        value=value,
        choices=[m.value for m in type(default)],
    )


def _whole(data: Mapping[str, Any], key: str, default: int, allowed: range) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value not in allowed:
        raise IllegalAction(
            "sages_number_range", option=key, value=value, low=allowed[0], high=allowed[-1]
        )
    return value


def standard_start() -> Position:
    return Position(
        frozenset(board.parse(s) for s in STANDARD_RED),
        frozenset(board.parse(s) for s in STANDARD_BLUE),
        CENTRE,
    )


def position_json(position: Position) -> dict[str, Any]:
    return {
        "red": [board.name(s) for s in sorted(position.red)],
        "blue": [board.name(s) for s in sorted(position.blue)],
        "fool": board.name(position.fool),
    }


def layout_from_json(data: Mapping[str, Any]) -> Position:
    """Starting squares given in the options, checked as a game would need them."""
    if set(data) - {"red", "blue", "fool"}:
        raise IllegalAction("unknown_option", option=sorted(set(data) - {"red", "blue", "fool"})[0])
    squares: dict[Side, frozenset[int]] = {}
    taken: set[int] = set()
    for side in Side:
        names = data.get(side.value)
        if not isinstance(names, list) or len(names) != SAGES_PER_SIDE:
            raise IllegalAction("sages_layout_count", side=side.value, count=SAGES_PER_SIDE)
        parsed = [_square(n) for n in names]
        for square in parsed:
            if square in taken:
                raise IllegalAction("sages_square_taken", square=board.name(square))
            taken.add(square)
        squares[side] = frozenset(parsed)
    fool = _square(data.get("fool", board.name(CENTRE)))
    if fool in taken or not board.in_kingdom(fool):
        raise IllegalAction("sages_fool_start", square=board.name(fool))
    position = Position(squares[Side.RED], squares[Side.BLUE], fool)
    for side in Side:
        check_standing(position, side)
    return position


def _square(text: Any) -> int:
    if not isinstance(text, str):
        raise IllegalAction("sages_no_such_square", square=str(text))
    try:
        return board.parse(text)
    except ValueError:
        raise IllegalAction("sages_no_such_square", square=text) from None


def check_standing(position: Position, side: Side) -> None:
    """Refuse a layout where ``side``'s sages stand where no move could have put them."""
    sages = position.sages(side)
    for square in sorted(sages):
        if square in cite(side.other):
            raise IllegalAction("sages_no_stop_in_their_cite", square=board.name(square))
        if three_side_by_side(sages, square):
            raise IllegalAction("sages_three_side_by_side", square=board.name(square))
    if len(sages & cite(side)) > 1:
        raise IllegalAction("sages_cite_taken", side=side.value)


# -- actions -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place(Action):
    """Free placement: ``seat`` lays a sage on ``square``."""

    kind: ClassVar[str] = "place"
    seat: int
    square: Square


@dataclass(frozen=True)
class MoveSage(Action):
    """``seat`` moves the sage on ``sage`` to ``to``. To chase the fool, ``to`` is the fool's
    square and ``fool_to`` where the fool ends (a cité square for a goal)."""

    kind: ClassVar[str] = "move"
    seat: int
    sage: Square
    to: Square
    fool_to: Square | None = None


@dataclass(frozen=True)
class TimeUp(Action):
    """The hourglass ran out on ``seat``'s move: the turn passes."""

    kind: ClassVar[str] = "time_up"
    seat: int


@dataclass(frozen=True)
class AgreeDraw(Action):
    """Option ``draw_by_agreement``: both players agree to a draw and the host enters it; the
    match ends drawn. It belongs to no seat: only the host page sends it."""

    kind: ClassVar[str] = "agree_draw"


ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls for cls in (Place, MoveSage, TimeUp, AgreeDraw, PauseHourglass, ResumeHourglass)
}


@dataclass(frozen=True)
class LastMove:
    """The move just played, as the page shows it."""

    side: Side
    move: Move
    points: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": self.side.seat,
            "side": self.side.value,
            "sage": board.name(self.move.frm),
            "to": board.name(self.move.to),
            "points": self.points,
        }
        if self.move.flight is not None:
            out["fool_path"] = [board.name(s) for s in self.move.flight.path]
            out["reflectors"] = [board.name(s) for s in self.move.flight.reflectors]
        return out


@dataclass(frozen=True)
class SagesState:
    options: Options
    phase: Phase
    position: Position
    start: Position | None  # where the pieces go back after a point (None: not yet placed)
    to_move: Side
    first: Side = Side.RED  # who started this round
    score: tuple[int, int] = (0, 0)  # Red's, Blue's
    round: int = 1
    moves: int = 0  # moves played in this round
    last: LastMove | None = None
    outcome: Outcome | None = None
    sand: Sand = field(default_factory=Sand)  # the hourglass's pause on this move, if any
    # option repetition: each position of this round with the player to move then, in order,
    # from the round's start (empty when the option is off)
    seen: tuple[tuple[Position, Side], ...] = ()

    @property
    def repeats(self) -> int:
        """How many times this round has had the position now on the board with this player to
        move (the present included); 0 when repetitions are not counted."""
        return self.seen.count((self.position, self.to_move))

    @property
    def drawn(self) -> bool:
        return self.outcome is not None and self.outcome.winner == DRAW

    def points(self, side: Side) -> int:
        return self.score[side.seat]

    def with_points(self, side: Side, gained: int) -> tuple[int, int]:
        red, blue = self.score
        return (red + gained, blue) if side is Side.RED else (red, blue + gained)


def squares_json(squares: Sequence[int]) -> list[str]:
    return [board.name(s) for s in squares]
