"""Ostrakon's state and actions: small frozen value objects with a JSON form (RULES.md §2).

A vote is a tesson: ``True`` is white, ``False`` is black (``colour`` gives the word).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.chance import named_draws
from companion.game import Action, IllegalAction, Outcome
from companion.games.ostrakon.path import DEFAULT_SYMBOLS, SYMBOLS, DayRule, Path, Pile
from companion.games.ostrakon.subjects import (
    Subject,
    SubjectDeck,
    default_subjects,
    subjects_from_option,
    subjects_to_option,
)
from companion.games.ostrakon.tables import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    SQUARES,
    days,
    named_on_special_days,
)


class Phase(enum.Enum):
    QUESTION = "question"  # the asker thinks up and puts a question on the subject
    VOTE = "vote"  # everyone votes in secret; a disciple may be claimed
    NAME = "name"  # Corruption or Oracle: the asker names k philosophers, who show their tessons
    FLIP = "flip"  # Oracle (before the rest reveal) or Tromperie (after): keep or turn a tesson
    REVEAL = "reveal"  # votes by camera: the tessons the rules show now are read
    OVER = "over"


class VoteMode(enum.Enum):
    """How the tessons reach the companion.

    ``buttons``: each philosopher lays a tesson with a press (A white, B black); the companion
    holds them, secret, and shows them as the rules say. ``camera``: the philosophers lay real
    tessons face down; the companion learns nothing until a tesson is turned face up, when the
    overhead camera reads it (``Revealed``).
    """

    BUTTONS = "buttons"
    CAMERA = "camera"


class RevealStep(enum.Enum):
    """Votes by camera: which tessons are turned face up now."""

    ASKER = "asker"  # Corruption: the asker's, before the naming
    NAMED = "named"  # Corruption and Oracle: the named philosophers'
    REST = "rest"  # after them: every tesson still face down (the Oracle asker's included)
    ALL = "all"  # a normal day and Tromperie: every tesson at once


class Termination(enum.Enum):
    CALENDAR_COVERED = "calendar_covered"  # the Moon covers the whole Calendar
    VICTOIRE_SUPREME = "victoire_supreme"  # the winner stands in the Temple of Wisdom


def colour(white: bool) -> str:
    return "white" if white else "black"


@dataclass(frozen=True)
class Options:
    """Game options. ``pile``: the starting pile, top first (None: shuffled from the game's
    secret seed); ``symbols``: the squares carrying a special-day symbol; ``subjects``: the
    game's own subject list (None: the default list of ``subjects.toml``); ``votes``: how the
    tessons reach the companion (``VoteMode``, buttons by default); ``subject_draws``: the
    subjects drawn first, in this order (an exported record's, which carries no seed)."""

    players: int
    pile: tuple[int, ...] | None = None
    symbols: tuple[tuple[int, DayRule], ...] = tuple(sorted(DEFAULT_SYMBOLS.items()))
    subjects: tuple[Subject, ...] | None = None
    votes: VoteMode = VoteMode.BUTTONS
    subject_draws: tuple[str, ...] = ()

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Options:
        known = {"players", "pile", "symbols", "subjects", "votes", "subject_draws"}
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
        pile = data.get("pile")
        if pile is not None:
            if (
                not isinstance(pile, list | tuple)
                or not all(isinstance(s, int) and not isinstance(s, bool) for s in pile)
                or sorted(pile) != list(range(players))
            ):
                raise IllegalAction("pile_not_every_philosopher", players=players)
            pile = tuple(pile)
        symbols = data.get("symbols")
        subjects = data.get("subjects")
        votes = data.get("votes", VoteMode.BUTTONS.value)
        modes = [mode.value for mode in VoteMode]
        if votes not in modes:
            raise IllegalAction("unknown_option_value", option="votes", value=votes, choices=modes)
        return Options(
            players,
            pile,
            tuple(sorted(DEFAULT_SYMBOLS.items())) if symbols is None else _symbols(symbols),
            None if subjects is None else subjects_from_option(subjects),
            VoteMode(votes),
            named_draws(data, "subject_draws", str),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": self.players,
            "pile": None if self.pile is None else list(self.pile),
            "symbols": {str(square): rule.value for square, rule in self.symbols},
            "subjects": None if self.subjects is None else subjects_to_option(self.subjects),
            "votes": self.votes.value,
        }
        if self.subject_draws:
            out["subject_draws"] = list(self.subject_draws)
        return out

    @property
    def camera(self) -> bool:
        """Votes by camera: real tessons, read when they are turned face up."""
        return self.votes is VoteMode.CAMERA

    @functools.cached_property
    def symbol_map(self) -> dict[int, DayRule]:
        return dict(self.symbols)

    @property
    def subject_cards(self) -> tuple[Subject, ...]:
        return default_subjects() if self.subjects is None else self.subjects

    @functools.cached_property
    def subject_index(self) -> dict[str, Subject]:
        return {s.id: s for s in self.subject_cards}

    @property
    def days(self) -> int:
        return days(self.players)

    @property
    def named(self) -> int:
        """*k*: philosophers named on a day of Corruption or of the Oracle."""
        return named_on_special_days(self.players)


def _symbols(value: Any) -> tuple[tuple[int, DayRule], ...]:
    """``{"4": "corruption", ...}``: the squares with a symbol, every other square plain."""
    if not isinstance(value, Mapping):
        raise IllegalAction("symbols_not_a_mapping")
    choices = [rule.value for rule in SYMBOLS]
    out: dict[int, DayRule] = {}
    for key, name in value.items():
        try:
            square = int(key)
        except (TypeError, ValueError):
            raise IllegalAction("no_such_square", square=key, last=SQUARES) from None
        if not 1 <= square <= SQUARES:
            raise IllegalAction("no_such_square", square=key, last=SQUARES)
        if name not in choices:
            raise IllegalAction(
                "unknown_option_value", option=f"symbols.{square}", value=name, choices=choices
            )
        out[square] = DayRule(name)
    return tuple(sorted(out.items()))


@dataclass(frozen=True)
class TurnResult:
    """A question's count and its consequences, public once the tessons are face up."""

    turn: int
    day: int
    rule: DayRule
    asker: int
    subject: str
    votes: tuple[bool, ...]  # every tesson as it lay at the count, True = white
    others: int
    same: int  # others who voted like the asker
    contrary: int
    advanced: bool  # else the asker went under the Sun
    origin: int  # the asker's square
    destination: int | None  # None: under the Sun
    disciple: int | None = None
    disciple_origin: int | None = None
    disciple_destination: int | None = None

    @property
    def white(self) -> int:
        return sum(self.votes)

    @property
    def black(self) -> int:
        return len(self.votes) - self.white

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "day": self.day,
            "rule": self.rule.value,
            "asker": self.asker,
            "subject": self.subject,
            "votes": [colour(v) for v in self.votes],
            "asker_vote": colour(self.votes[self.asker]),
            "white": self.white,
            "black": self.black,
            "others": self.others,
            "same": self.same,
            "contrary": self.contrary,
            "moved": "forward" if self.advanced else "under_sun",
            "steps": (self.destination - self.origin) if self.destination is not None else 0,
            "from": self.origin,
            "to": self.destination,
            "disciple": self.disciple,
            "disciple_from": self.disciple_origin,
            "disciple_to": self.disciple_destination,
            "disciple_steps": 0
            if self.disciple_origin is None or self.disciple_destination is None
            else self.disciple_destination - self.disciple_origin,
        }


@dataclass(frozen=True)
class OstrakonState:
    options: Options
    seed: int = field(repr=False)  # secret: tells the subject deck's order
    phase: Phase
    path: Path
    sun: int  # the square the Sun stands beside
    under_sun: Pile  # the philosophers under the Sun card, top first
    moon: int  # moons covered on the Calendar: the days already over
    day_rule: DayRule
    olive: tuple[bool, ...]  # True: the card still shows the olive branch (disciple unused)
    deck: SubjectDeck = field(repr=False)  # secret: the order of the subjects still to come
    subject: str  # the subject of the question (the last of the three cards)
    next_subject: str
    turn: int  # questions put so far in the game, this one included
    votes: tuple[bool | None, ...] = field(repr=False)  # True = white; secret until shown
    shown: tuple[bool, ...]  # whose tessons lie face up
    disciple: int | None
    named: tuple[int, ...]  # Corruption / Oracle: the philosophers the asker named
    last_result: TurnResult | None
    outcome: Outcome | None
    laid: tuple[bool, ...] = ()  # votes by camera: whose tesson lies face down (unseen)
    reveal: RevealStep | None = None  # votes by camera, phase REVEAL: the tessons shown now
    # the claims to be the disciple made together in this question (the disciple among them):
    # one seat for a claim alone, several once contested (``ContestDisciple``)
    claimants: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def day(self) -> int:
        """The current day, from 1 (after the game: the last day)."""
        return min(self.moon + 1, self.options.days)

    @property
    def asker(self) -> int | None:
        """The philosopher on top of the pile the Sun illuminates."""
        if self.phase is Phase.OVER:
            return None
        return self.path.top(self.sun)

    def subject_card(self, subject_id: str) -> Subject:
        return self.options.subject_index[subject_id]

    def has_voted(self, seat: int) -> bool:
        """Whether ``seat``'s tesson is down: known by the companion (buttons) or laid, unseen,
        on the table (camera)."""
        if self.options.camera:
            return bool(self.laid) and self.laid[seat]
        return self.votes[seat] is not None

    @property
    def expected(self) -> tuple[int, ...]:
        """Votes by camera, phase REVEAL: the seats whose tessons are to be turned face up."""
        asker = self.asker
        if self.phase is not Phase.REVEAL or self.reveal is None or asker is None:
            return ()
        if self.reveal is RevealStep.ASKER:
            return (asker,)
        if self.reveal is RevealStep.NAMED:
            return tuple(sorted(self.named))
        if self.reveal is RevealStep.REST:
            return tuple(s for s, shown in enumerate(self.shown) if not shown)
        return tuple(range(self.players))


# -- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ask(Action):
    """The asker has put the question and said which answer is white and which black: the
    vote opens."""

    kind: ClassVar[str] = "ask"
    seat: int


@dataclass(frozen=True)
class Vote(Action):
    """A tesson laid face down: white or black. It may be changed until it is shown."""

    kind: ClassVar[str] = "vote"
    seat: int
    white: bool


@dataclass(frozen=True)
class ClaimDisciple(Action):
    """A philosopher declares themself the asker's disciple."""

    kind: ClassVar[str] = "claim_disciple"
    seat: int


@dataclass(frozen=True)
class ContestDisciple(Action):
    """Philosophers claimed to be the disciple together ("en cas de contestation"): the one
    farthest from the Temple becomes the disciple. ``seats`` are the claimants; once a claim was
    accepted, it must name at least one claimant already standing (those it does not name stay
    in the contest)."""

    kind: ClassVar[str] = "contest_disciple"
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Name(Action):
    """Corruption or Oracle: the asker names k philosophers, who show their tessons."""

    kind: ClassVar[str] = "name"
    seat: int
    named: tuple[int, ...]


@dataclass(frozen=True)
class Flip(Action):
    """Oracle or Tromperie: the asker keeps (``flip`` false) or turns their tesson."""

    kind: ClassVar[str] = "flip"
    seat: int
    flip: bool


ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls for cls in (Ask, Vote, ClaimDisciple, ContestDisciple, Name, Flip)
}


# -- actions of votes by camera (option ``votes: "camera"``) ------------------------------------


@dataclass(frozen=True)
class TessonLaid(Action):
    """Votes by camera: ``seat`` has laid a tesson face down (which one, nobody knows)."""

    kind: ClassVar[str] = "tesson_laid"
    seat: int


@dataclass(frozen=True)
class VotesLaid(Action):
    """Votes by camera: every tesson lies face down (said by the host for the whole table)."""

    kind: ClassVar[str] = "votes_laid"


@dataclass(frozen=True)
class Tesson:
    """A tesson turned face up: whose, and which side shows."""

    seat: int
    white: bool

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "white": self.white}

    @staticmethod
    def from_json(data: Any, index: int = 0) -> Tesson:
        if not isinstance(data, Mapping) or set(data) != {"seat", "white"}:
            raise ValueError(f"tesson {index}: must be an object with seat and white")
        seat, white = data["seat"], data["white"]
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ValueError(f"tesson {index}: seat must be a whole number")
        if not isinstance(white, bool):
            raise ValueError(f"tesson {index}: white must be true or false")
        return Tesson(seat, white)


@dataclass(frozen=True)
class Revealed(Action):
    """Votes by camera: the tessons turned face up at this step of the reveal, as read."""

    kind: ClassVar[str] = "revealed"
    tessons: tuple[Tesson, ...]


CAMERA_ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls for cls in (TessonLaid, VotesLaid, Revealed)
}
ALL_ACTIONS: dict[str, type[Action]] = {**ACTIONS, **CAMERA_ACTIONS}
