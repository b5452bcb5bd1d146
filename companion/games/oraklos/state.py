"""Oraklos's state and actions: small frozen value objects with a JSON form (RULES.md §3)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self, TypeVar

from companion.chance import named_draws
from companion.game import Action, IllegalAction, Outcome
from companion.games.oraklos.dice import Color, Die

MIN_PLAYERS = 2
MAX_PLAYERS = 5
COLORS = tuple(Color)  # red, yellow, blue, black: the order of every count in this module

# The table at the end of the rulebook, by player count.
DICE_PER_COLOR = {2: 4, 3: 3, 4: 3, 5: 2}  # each player's own dice of each colour at the start
CUP_PER_ROUND = {2: 6, 3: 5, 4: 4, 5: 3}  # dice each player puts into the cup every round
LEFT_ON_TABLE = 1  # of each colour: the cup holds one die of each colour at the start

HAND_SIZE = 3  # face-up wish cards per player (standard and Junior)
MARKERS = (3, 2, 1)  # the numbered markers, also the order in which claims are scored
SHARED_CARDS = 6  # Antipodes: cards on the table, shared by everyone
THROWN_EACH_ROUND = 4  # Junior and Antipodes: this many dice of each colour are thrown
WINNING_SCORE = 10  # standard and Junior: checked at the end of a round ("Tour suivant")
ANTIPODES_WINNING_SCORE = 5  # checked at once


class Mode(enum.Enum):
    STANDARD = "standard"
    JUNIOR = "junior"
    ANTIPODES = "antipodes"


class Fills(enum.Enum):
    """How the cup is filled in the standard game."""

    ENTERED = "entered"  # each seat enters what it puts in (in secret); supplies are tracked
    UNSEEN = "unseen"  # the players fill it with their own hands: the companion never knows


class DeckSource(enum.Enum):
    """Where the wish cards come from."""

    DEALT = "dealt"  # the companion shuffles (from the seed) and deals
    DRAWN = "drawn"  # the players draw from their own deck and enter the cards


class Claims(enum.Enum):
    """How a claim is judged."""

    SHOWN = "shown"  # the claimant names four dice, judged by ``check``
    CARD = "card"  # the companion says whether the claimant's card has a true prediction


class Ties(enum.Enum):
    """What an equal highest total does when a round ends with 10 points reached (the rulebook
    is silent): the tied players share the victory, or another round is played."""

    SHARED = "shared"  # every player with the highest total wins
    PLAY_ON = "play_on"  # rounds go on until one player alone has the highest total (the
    # draw pile running out still ends the game at once, the victory shared)


class Phase(enum.Enum):
    DRAW = "draw"  # deck "drawn": the players draw their cards and the host enters them
    FILL = "fill"  # standard: the players put dice into the cup in turn, in secret
    THROW = "throw"  # the first player throws; the camera (or the host) reads the dice
    SEARCH = "search"  # standard and Junior: players grab markers and lay them on their cards
    SCORE = "score"  # the claimants show their predictions, marker 3 first
    RETRIEVE = "retrieve"  # standard: the players take dice back from the table in turn
    NAME = "name"  # Antipodes: someone names a shared card with no true prediction
    OVER = "over"


class Termination(enum.Enum):
    TARGET_REACHED = "target_reached"  # 10 points at the end of a round (Antipodes: 5 at once)
    DECK_EXHAUSTED = "deck_exhausted"  # the draw pile ran out while drawing (Antipodes: the six
    # shared cards could not be laid out again)


@dataclass(frozen=True)
class Pool:
    """Dice counted by colour: a player's supply, the cup, what is left on the table."""

    red: int = 0
    yellow: int = 0
    blue: int = 0
    black: int = 0

    @staticmethod
    def each(count: int) -> Pool:
        return Pool(count, count, count, count)

    @staticmethod
    def of(colors: Iterable[Color]) -> Pool:
        counts = dict.fromkeys(COLORS, 0)
        for color in colors:
            counts[color] += 1
        return Pool(*(counts[c] for c in COLORS))

    def count(self, color: Color) -> int:
        value: int = getattr(self, color.value)
        return value

    def counts(self) -> tuple[int, int, int, int]:
        return (self.red, self.yellow, self.blue, self.black)

    def items(self) -> Iterator[tuple[Color, int]]:
        return zip(COLORS, self.counts(), strict=True)

    @property
    def total(self) -> int:
        return self.red + self.yellow + self.blue + self.black

    def covers(self, other: Pool) -> bool:
        """Whether every colour of ``other`` can be taken from this pool."""
        return all(self.count(c) >= other.count(c) for c in COLORS)

    def __add__(self, other: Pool) -> Pool:
        return Pool(
            self.red + other.red,
            self.yellow + other.yellow,
            self.blue + other.blue,
            self.black + other.black,
        )

    def __sub__(self, other: Pool) -> Pool:
        return Pool(
            self.red - other.red,
            self.yellow - other.yellow,
            self.blue - other.blue,
            self.black - other.black,
        )

    def to_json(self) -> dict[str, int]:
        return {"red": self.red, "yellow": self.yellow, "blue": self.blue, "black": self.black}


@dataclass(frozen=True)
class Options:
    """Game options, chosen at setup. Seats are numbered clockwise from 0: left is seat + 1."""

    players: int
    mode: Mode = Mode.STANDARD
    either_direction: bool = False  # a card also matches its colours met anticlockwise
    first_player: int = 0
    fills: Fills = Fills.ENTERED
    deck: DeckSource = DeckSource.DEALT
    claims: Claims = Claims.SHOWN
    ties: Ties = Ties.SHARED
    dealt: tuple[str, ...] = ()  # cards dealt first, in this order (a record, with no seed)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Options:
        known = {
            "players",
            "mode",
            "either_direction",
            "first_player",
            "fills",
            "deck",
            "claims",
            "ties",
            "dealt",
        }
        unknown = set(data) - known
        if unknown:
            raise IllegalAction("unknown_option", option=sorted(unknown)[0])
        players = data.get("players")
        if (
            not isinstance(players, int)
            or isinstance(players, bool)
            or not MIN_PLAYERS <= players <= MAX_PLAYERS
        ):
            raise IllegalAction(
                "players_out_of_range", players=players, low=MIN_PLAYERS, high=MAX_PLAYERS
            )
        mode_name = data.get("mode", Mode.STANDARD.value)
        try:
            mode = Mode(mode_name)
        except ValueError:
            raise IllegalAction(
                "unknown_mode", mode=mode_name, modes=[m.value for m in Mode]
            ) from None
        either = data.get("either_direction", False)
        if not isinstance(either, bool):
            raise IllegalAction("option_not_boolean", option="either_direction")
        first = data.get("first_player", 0)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
            raise IllegalAction("no_such_seat", seat=first, players=players)
        return Options(
            players,
            mode,
            either,
            first,
            _choice(data, "fills", Fills.ENTERED),
            _choice(data, "deck", DeckSource.DEALT),
            _choice(data, "claims", Claims.SHOWN),
            _choice(data, "ties", Ties.SHARED),
            named_draws(data, "dealt", str),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": self.players,
            "mode": self.mode.value,
            "either_direction": self.either_direction,
            "first_player": self.first_player,
            "fills": self.fills.value,
            "deck": self.deck.value,
            "claims": self.claims.value,
            "ties": self.ties.value,
        }
        if self.dealt:
            out["dealt"] = list(self.dealt)
        return out

    @property
    def unseen_fills(self) -> bool:
        """The standard game with the cup filled by hand: no supplies, no fill, no retrieval."""
        return self.mode is Mode.STANDARD and self.fills is Fills.UNSEEN

    @property
    def drawn(self) -> bool:
        return self.deck is DeckSource.DRAWN

    @property
    def holes_allowed(self) -> bool:
        """Holes are profane, except in Antipodes where they are sacred."""
        return self.mode is Mode.ANTIPODES

    @property
    def winning_score(self) -> int:
        return ANTIPODES_WINNING_SCORE if self.mode is Mode.ANTIPODES else WINNING_SCORE


E = TypeVar("E", bound=enum.Enum)


def _choice(data: Mapping[str, Any], option: str, default: E) -> E:
    """An option taking one of an enum's values, or a refusal naming the allowed ones."""
    kind = type(default)
    value = data.get(option, default.value)
    try:
        return kind(value)
    except ValueError:
        raise IllegalAction(
            "unknown_option_value",
            option=option,
            value=value,
            choices=[m.value for m in kind],
        ) from None


@dataclass(frozen=True)
class MarkerOnCard:
    """A marker laid on a wish card during the search (public: it lies face up on the table)."""

    marker: int
    seat: int
    card: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "marker": self.marker, "card": self.card}


@dataclass(frozen=True)
class ScoreLine:
    """One change of score, kept for the whole game: the scores are the sums of these lines.

    ``cause`` is "claim" (a prediction shown, right or wrong), "hesitation", or, in Antipodes,
    "naming" (a card named as having no true prediction).
    """

    round: int
    seat: int
    points: int
    cause: str
    card: str
    marker: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "seat": self.seat,
            "points": self.points,
            "cause": self.cause,
            "card": self.card,
            "marker": self.marker,
        }


@dataclass(frozen=True)
class OraklosState:
    options: Options
    seed: int = field(repr=False)  # secret: tells the wish-card deck's order
    phase: Phase
    round: int
    first_player: int
    # face down, top card first (empty with a drawn deck: none is kept); its order is secret
    deck: tuple[str, ...] = field(repr=False)
    hands: tuple[tuple[str, ...], ...]  # standard and Junior: each seat's face-up wish cards
    shared: tuple[str, ...]  # Antipodes: the cards on the table
    discards: tuple[str, ...]
    scores: tuple[int, ...]
    ledger: tuple[ScoreLine, ...]
    # standard: the dice in front of each player (fills taken out, so secret until the throw);
    # empty with fills "unseen", and in Junior and Antipodes
    supplies: tuple[Pool, ...] = field(repr=False)
    cup_base: Pool  # the dice in the cup before the players fill it: public (unknown if unseen)
    # standard: what each seat put in the cup; secret until thrown
    fills: tuple[Pool | None, ...] = field(repr=False)
    table: tuple[Die, ...]  # the dice as read after the throw (empty before it), as corrected
    on_table: Pool  # the dice still lying on the table (retrieval takes them away)
    markers: tuple[MarkerOnCard, ...]  # in the order they were taken
    scored: int  # how many of the round's claims are settled (in the order 3, 2, 1)
    retrieval_order: tuple[int, ...]
    retrieved: int  # how many seats have taken their dice back
    outcome: Outcome | None
    # the last judged claim or named card, as its event told it, with the dice it named (their
    # places: the next round may have cleared the table): shown until the next judgement
    last_judgement: Mapping[str, Any] | None = None

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def mode(self) -> Mode:
        return self.options.mode

    @property
    def cup(self) -> Pool:
        """Everything in the cup: the base and every fill so far (a secret as a whole)."""
        total = self.cup_base
        for fill in self.fills:
            if fill is not None:
                total = total + fill
        return total

    @property
    def claims(self) -> tuple[MarkerOnCard, ...]:
        """The round's markers in scoring order: 3, then 2, then 1."""
        return tuple(sorted(self.markers, key=lambda m: -m.marker))

    @property
    def claimant(self) -> MarkerOnCard | None:
        """The marker whose prediction is to be shown now, during scoring."""
        if self.phase is not Phase.SCORE:
            return None
        return self.claims[self.scored]

    @property
    def filler(self) -> int | None:
        """The seat whose turn it is to put dice into the cup (clockwise from the first)."""
        if self.phase is not Phase.FILL:
            return None
        for i in range(self.players):
            seat = (self.first_player + i) % self.players
            if self.fills[seat] is None:
                return seat
        return None

    @property
    def retriever(self) -> int | None:
        if self.phase is not Phase.RETRIEVE:
            return None
        return self.retrieval_order[self.retrieved]

    @property
    def round_points(self) -> tuple[int, ...]:
        points = [0] * self.players
        for line in self.ledger:
            if line.round == self.round:
                points[line.seat] += line.points
        return tuple(points)


# -- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _SeatDice(Action):
    """A seat's dice, counted by colour."""

    seat: int
    red: int = 0
    yellow: int = 0
    blue: int = 0
    black: int = 0

    @property
    def pool(self) -> Pool:
        return Pool(self.red, self.yellow, self.blue, self.black)

    @classmethod
    def of(cls, seat: int, pool: Pool) -> Self:
        return cls(seat, *pool.counts())


@dataclass(frozen=True)
class FillCup(_SeatDice):
    """Standard: a seat's dice, by colour, put into the cup in secret."""

    kind: ClassVar[str] = "fill_cup"


@dataclass(frozen=True)
class ThrowDice(Action):
    """The dice as read from the table after the throw (by the camera, or typed by the host)."""

    kind: ClassVar[str] = "throw"
    dice: tuple[Die, ...]

    @staticmethod
    def of(dice: Iterable[Die]) -> ThrowDice:
        return ThrowDice(tuple(dice))


@dataclass(frozen=True)
class TakeMarker(Action):
    """A seat grabs a marker and lays it on one of its own face-up cards."""

    kind: ClassVar[str] = "take_marker"
    seat: int
    marker: int
    card: str


@dataclass(frozen=True)
class EndSearch(Action):
    """Everybody agrees there is no prediction left to find (the search also ends by itself
    when the last marker is taken)."""

    kind: ClassVar[str] = "end_search"


@dataclass(frozen=True)
class Claim(Action):
    """The claimant shows four dice (indices into the throw, in any order: the referee tries
    every way round them). With claims "card", no dice: the companion looks for a true
    prediction of the claimant's card itself."""

    kind: ClassVar[str] = "claim"
    seat: int
    dice: tuple[int, ...] = ()


@dataclass(frozen=True)
class Hesitate(Action):
    """The claimant hesitates (or gives up): it counts as a miss."""

    kind: ClassVar[str] = "hesitate"
    seat: int


@dataclass(frozen=True)
class TakeBack(_SeatDice):
    """Standard: a seat takes back from the table as many dice as it put in, any colours."""

    kind: ClassVar[str] = "take_back"


@dataclass(frozen=True)
class NameCard(Action):
    """Antipodes: the first seat to name a shared card that has no true prediction."""

    kind: ClassVar[str] = "name_card"
    seat: int
    card: str


@dataclass(frozen=True)
class AllFound(Action):
    """Antipodes: everyone agrees that each of the six shared cards has a true prediction."""

    kind: ClassVar[str] = "all_found"


@dataclass(frozen=True)
class DrawCards(Action):
    """Deck "drawn": the cards a seat drew from the players' deck, exactly as many as it needs
    to have three again (read from the table or typed by the host)."""

    kind: ClassVar[str] = "draw_cards"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class RevealCards(Action):
    """Deck "drawn", Antipodes: the cards turned face up to make six shared cards again."""

    kind: ClassVar[str] = "reveal_cards"
    cards: tuple[str, ...]


@dataclass(frozen=True)
class DeckEmpty(Action):
    """Deck "drawn": the players' deck has run out while drawing; the game ends."""

    kind: ClassVar[str] = "deck_empty"


@dataclass(frozen=True)
class CorrectDie(Action):
    """A person corrects a die misread by the camera: its colour and whether its hole shows."""

    kind: ClassVar[str] = "correct_die"
    index: int
    color: Color
    hole: bool


@dataclass(frozen=True)
class RemoveDie(Action):
    """Something read as a die that is not one (the dice after it are numbered one less)."""

    kind: ClassVar[str] = "remove_die"
    index: int


@dataclass(frozen=True)
class AddDie(Action):
    """A die the camera missed, placed by a person (it becomes the last die)."""

    kind: ClassVar[str] = "add_die"
    die: Die


ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        FillCup,
        ThrowDice,
        TakeMarker,
        EndSearch,
        Claim,
        Hesitate,
        TakeBack,
        NameCard,
        AllFound,
        DrawCards,
        RevealCards,
        DeckEmpty,
        CorrectDie,
        RemoveDie,
        AddDie,
    )
}


# -- dice as text -------------------------------------------------------------------------------


THROWN = frozenset({Phase.SEARCH, Phase.SCORE, Phase.RETRIEVE, Phase.NAME})  # dice on the table


def dice_on_table(state: OraklosState) -> bool:
    """Whether the round's dice lie on the table (a game over keeps its last throw)."""
    return state.phase in THROWN or (state.phase is Phase.OVER and bool(state.table))
