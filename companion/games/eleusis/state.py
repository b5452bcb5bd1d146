"""Eleusis's options, state and actions: small frozen value objects with a JSON form.

Seats are numbered clockwise from 0: the next player is seat + 1. ``players`` counts the seats
with a phone or buttons. With the companion as God every seat plays cards and the companion sits,
as it were, just before seat 0. With a human God, God sits at ``god_seat`` and plays no card.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol, TypeGuard

from companion.game import Action, IllegalAction, Outcome
from companion.games.eleusis.cards import DECK_SIZE, Card, Suit
from companion.games.eleusis.scoring import Scores

COMPANION_PLAYERS = (2, 10)  # seats, all playing cards
HUMAN_GOD_PLAYERS = (5, 10)  # seats, God's included (the seed: 5 to 10 players)
DECKS = (2, 4)
HAND_SIZE = 8
MAX_SERIES = 4
PROPHET_BEFORE_ACCEPTED = 30  # a prophet may declare while fewer cards have been accepted
PROPHET_AFTER_FALL = 30  # ... and, after a fall, if at most this many were played under the fallen
PROPHET_MIN_OTHERS = (1, 9)  # option prophet_min_others: its range
DEFAULT_LEVEL = "easy"  # the seed's advice: «Choisissez une règle simple»


def default_decks(card_players: int) -> int:
    """2 decks up to 4 card players, 3 up to 7, 4 beyond."""
    if card_players <= 4:
        return 2
    if card_players <= 7:
        return 3
    return 4


SUIT_ORDER = {suit: i for i, suit in enumerate(Suit)}


def card_key(card: Card) -> tuple[int, int]:
    """The stable order of cards in a hand: by rank, then spades, hearts, diamonds, clubs."""
    return (card.rank, SUIT_ORDER[card.suit])


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=card_key))


def cards_json(cards: Sequence[Card]) -> list[str]:
    return [c.to_json() for c in cards]


class JudgingRule(Protocol):
    """What the engine needs of God's rule: its text, and whether it accepts ``card`` after the
    main line ``line`` (accepted cards, oldest first; the candidate's position is len + 1)."""

    @property
    def text(self) -> str: ...

    def accepts(self, line: Sequence[Card], card: Card) -> bool: ...


class God(enum.Enum):
    COMPANION = "companion"  # the companion holds the rule and judges
    HUMAN = "human"  # a player is God; the companion never knows the rule


class CardMode(enum.Enum):
    """``digital``: the companion deals from its seeded shuffle, hands are private and played
    from the phones. ``physical``: real cards; the host enters each card as it is laid and the
    companion knows only the size of each hand."""

    DIGITAL = "digital"
    PHYSICAL = "physical"


class Level(enum.Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Phase(enum.Enum):
    STARTER = "starter"  # God turns cards until one is accepted
    PLAY = "play"  # the player in turn plays a series or declares no-play
    JUDGE = "judge"  # a play waits for a verdict: a human God's, or the prophet's
    REVIEW = "review"  # a prophet's verdict waits for a human God: overturn or uphold
    OVER = "over"


class Termination(enum.Enum):
    HAND_EMPTY = "hand_empty"  # a player has no cards left
    ALL_ELIMINATED = "all_eliminated"  # no player is left to play
    GOD_MISTAKE = "god_mistake"  # God admits a mistake
    BLOCKED = "blocked"  # the deck ran out before a first card was accepted


class JudgeKind(enum.Enum):
    GOD = "god"
    PROPHET = "prophet"


class GodWithoutProphet(enum.Enum):
    """God's score when no prophet stands at the end: the seed is silent."""

    HIGHEST = "highest"  # Abbott's *New Eleusis*: the highest score of the players
    ZERO = "zero"  # nothing


@dataclass(frozen=True)
class Penalties:
    """RULES.md §4's defaults, from Abbott's *New Eleusis*."""

    refused: int = 2  # penalty cards for each card of a refused series
    no_play_smaller: int = 4  # a correct no-play: the new hand is this many cards smaller
    wrong_no_play: int = 5  # penalty cards for a wrong no-play (after God plays a card of it)
    fallen_prophet: int = 4  # penalty cards for an overturned prophet, who takes back their hand


PENALTY_OPTIONS = {
    "refused_penalty": "refused",
    "no_play_smaller": "no_play_smaller",
    "wrong_no_play_penalty": "wrong_no_play",
    "fallen_prophet_penalty": "fallen_prophet",
}
MAX_PENALTY = 20
DEFAULT_SUDDEN_DEATH = 40  # Abbott's *New Eleusis*: sudden death after 40 cards played
DEFAULT_PROPHET_MIN_OTHERS = 2  # Abbott: "two or more players besides yourself and the dealer"


@dataclass(frozen=True)
class Options:
    """Game options, chosen at setup (see docs/ELEUSIS.md)."""

    players: int
    god: God = God.COMPANION
    god_seat: int | None = None  # a human God's seat; None with the companion as God
    rule: str | None = field(default=None, repr=False)  # secret: the rule the host typed
    rule_id: str | None = field(default=None, repr=False)  # secret: a library rule, by its id
    level: Level | None = None  # the companion's rule, drawn from the library at this level
    rule_withheld: bool = False  # a public record: the companion's verdicts are its actions
    cards: CardMode = CardMode.DIGITAL
    decks: int = 2
    hand_size: int = HAND_SIZE
    penalties: Penalties = field(default_factory=Penalties)
    sudden_death: int | None = DEFAULT_SUDDEN_DEATH
    god_without_prophet: GodWithoutProphet = GodWithoutProphet.HIGHEST
    prophet_once: bool = True  # Abbott: a player is prophet at most once in a game
    prophet_min_others: int = DEFAULT_PROPHET_MIN_OTHERS  # other players still playing

    @property
    def seats(self) -> tuple[int, ...]:
        """The card players, clockwise from the first player after God."""
        if self.god_seat is None:
            return tuple(range(self.players))
        return tuple((self.god_seat + i) % self.players for i in range(1, self.players))

    @property
    def digital(self) -> bool:
        return self.cards is CardMode.DIGITAL

    @property
    def total_cards(self) -> int:
        return self.decks * DECK_SIZE

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Options:
        known = {
            "players",
            "god",
            "god_seat",
            "rule",
            "rule_id",
            "level",
            "rule_withheld",
            "cards",
            "decks",
            "hand_size",
            "sudden_death",
            "god_without_prophet",
            "prophet_once",
            "prophet_min_others",
            *PENALTY_OPTIONS,
        }
        unknown = set(data) - known
        if unknown:
            raise IllegalAction("unknown_option", option=sorted(unknown)[0])
        god = God(_choice(data, "god", God, God.COMPANION.value))
        low, high = HUMAN_GOD_PLAYERS if god is God.HUMAN else COMPANION_PLAYERS
        given_players = data.get("players")
        if not _whole(given_players) or not low <= given_players <= high:
            raise IllegalAction(
                "players_out_of_range", players=given_players, low=low, high=high, god=god.value
            )
        players: int = given_players
        god_seat: int | None = None
        if god is God.HUMAN:
            given_seat = data.get("god_seat", 0)
            if not _whole(given_seat) or not 0 <= given_seat < players:
                raise IllegalAction("no_such_seat", seat=given_seat, players=players)
            god_seat = given_seat
            for name in ("rule", "rule_id", "level", "rule_withheld"):
                if data.get(name) not in (None, False):
                    raise IllegalAction("option_needs_companion_god", option=name)
        elif data.get("god_seat") is not None:
            raise IllegalAction("option_needs_human_god", option="god_seat")
        withheld = data.get("rule_withheld", False)
        if not isinstance(withheld, bool):
            raise IllegalAction("option_not_boolean", option="rule_withheld")
        given = [n for n in ("rule", "rule_id", "level") if data.get(n) is not None]
        if len(given) > 1 or (withheld and given):
            raise IllegalAction(
                "one_rule_only", options=[*given, *(["rule_withheld"] if withheld else [])]
            )
        rule = data.get("rule")
        if rule is not None and (not isinstance(rule, str) or not rule.strip()):
            raise IllegalAction("rule_not_text")
        rule_id = data.get("rule_id")
        if rule_id is not None and (not isinstance(rule_id, str) or not rule_id):
            raise IllegalAction("no_such_rule", rule_id=rule_id)
        level: Level | None = None
        if data.get("level") is not None:
            level = Level(_choice(data, "level", Level, DEFAULT_LEVEL))
        elif god is God.COMPANION and not given and not withheld:
            level = Level(DEFAULT_LEVEL)
        mode = CardMode(_choice(data, "cards", CardMode, CardMode.DIGITAL.value))
        card_players = players if god_seat is None else players - 1
        decks = data.get("decks", default_decks(card_players))
        _check_range("decks", decks, *DECKS)
        hand_size = data.get("hand_size", HAND_SIZE)
        _check_range("hand_size", hand_size, 1, 20)
        if hand_size * card_players >= decks * DECK_SIZE:
            raise IllegalAction(
                "too_few_cards",
                decks=decks,
                hand_size=hand_size,
                card_players=card_players,
            )
        values = {}
        for option, name in PENALTY_OPTIONS.items():
            value = data.get(option, getattr(Penalties(), name))
            _check_range(option, value, 0, MAX_PENALTY)
            values[name] = value
        sudden_death = data.get("sudden_death", DEFAULT_SUDDEN_DEATH)
        if sudden_death is not None:
            _check_range("sudden_death", sudden_death, 0, 10 * DECK_SIZE)
        god_without_prophet = GodWithoutProphet(
            _choice(data, "god_without_prophet", GodWithoutProphet, GodWithoutProphet.HIGHEST.value)
        )
        prophet_once = data.get("prophet_once", True)
        if not isinstance(prophet_once, bool):
            raise IllegalAction("option_not_boolean", option="prophet_once")
        prophet_min_others = data.get("prophet_min_others", DEFAULT_PROPHET_MIN_OTHERS)
        _check_range("prophet_min_others", prophet_min_others, *PROPHET_MIN_OTHERS)
        return Options(
            players=players,
            god=god,
            god_seat=god_seat,
            rule=rule.strip() if isinstance(rule, str) else None,
            rule_id=rule_id,
            level=level,
            rule_withheld=withheld,
            cards=mode,
            decks=decks,
            hand_size=hand_size,
            penalties=Penalties(**values),
            sudden_death=sudden_death,
            god_without_prophet=god_without_prophet,
            prophet_once=prophet_once,
            prophet_min_others=prophet_min_others,
        )

    def to_json(self) -> dict[str, Any]:
        """Every option, the rule's included: for the journal, which is private."""
        out = self.public_json()
        if self.rule is not None:
            out["rule"] = self.rule
        if self.rule_id is not None:
            out["rule_id"] = self.rule_id
        if self.rule_withheld:
            out["rule_withheld"] = True
        return out

    def public_json(self) -> dict[str, Any]:
        """The options anyone may know: no rule (its level, chosen by the host, is public)."""
        out: dict[str, Any] = {
            "players": self.players,
            "god": self.god.value,
            "cards": self.cards.value,
            "decks": self.decks,
            "hand_size": self.hand_size,
            "sudden_death": self.sudden_death,
            "god_without_prophet": self.god_without_prophet.value,
            "prophet_once": self.prophet_once,
            "prophet_min_others": self.prophet_min_others,
            **{o: getattr(self.penalties, n) for o, n in PENALTY_OPTIONS.items()},
        }
        if self.god_seat is not None:
            out["god_seat"] = self.god_seat
        if self.level is not None:
            out["level"] = self.level.value
        return out


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_range(option: str, value: Any, low: int, high: int) -> None:
    if not _whole(value) or not low <= value <= high:
        raise IllegalAction("option_out_of_range", option=option, value=value, low=low, high=high)


def _choice(data: Mapping[str, Any], option: str, kind: type[enum.Enum], default: str) -> str:
    value = data.get(option, default)
    choices = [m.value for m in kind]
    if value not in choices:
        raise IllegalAction("unknown_option_value", option=option, value=value, choices=choices)
    return str(value)


# -- the layout ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    """A refused series (or one refused starter card), overlapped in order below a card."""

    cards: tuple[Card, ...]
    seat: int | None  # who played it; None: a card God turned for the start

    def to_json(self) -> dict[str, Any]:
        return {"cards": cards_json(self.cards), "seat": self.seat}


@dataclass(frozen=True)
class LineCard:
    """An accepted card of the main line, with the refused series laid below it, in order."""

    card: Card
    seat: int | None  # who played it; None: the starter card
    from_no_play: bool = False  # played by God (or the prophet) out of a wrong no-play's hand
    below: tuple[Refusal, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card.to_json(),
            "seat": self.seat,
            "from_no_play": self.from_no_play,
            "below": [r.to_json() for r in self.below],
        }


@dataclass(frozen=True)
class Layout:
    """The cards on the table, as they lie. ``starter_refused``: the cards God turned and
    refused before the first accepted one (they lie before the main line, position 0).

    Its counts are of cards **laid**: every card lying on the table, the starting cards (accepted
    or refused) included. Cards **played** (``EleusisState.played``) are the players' only.
    """

    line: tuple[LineCard, ...] = ()
    starter_refused: tuple[Card, ...] = ()

    @property
    def main(self) -> tuple[Card, ...]:
        return tuple(c.card for c in self.line)

    @property
    def accepted(self) -> int:
        return len(self.line)

    @property
    def refused(self) -> int:
        below = sum(len(r.cards) for c in self.line for r in c.below)
        return len(self.starter_refused) + below

    @property
    def laid(self) -> int:
        """Every card on the table: accepted and refused, the starting cards included."""
        return self.accepted + self.refused

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card on the table."""
        out = list(self.starter_refused)
        for entry in self.line:
            out.append(entry.card)
            out.extend(card for r in entry.below for card in r.cards)
        return tuple(out)

    def accept(self, cards: Sequence[Card], seat: int | None, from_no_play: bool = False) -> Layout:
        added = tuple(LineCard(c, seat, from_no_play) for c in cards)
        return replace(self, line=(*self.line, *added))

    def refuse(self, cards: Sequence[Card], seat: int | None) -> Layout:
        if not self.line:
            return replace(self, starter_refused=(*self.starter_refused, *cards))
        last = self.line[-1]
        last = replace(last, below=(*last.below, Refusal(tuple(cards), seat)))
        return replace(self, line=(*self.line[:-1], last))

    def to_json(self) -> dict[str, Any]:
        return {
            "line": [c.to_json() for c in self.line],
            "starter_refused": cards_json(self.starter_refused),
        }


# -- the people at the table --------------------------------------------------------------------


@dataclass(frozen=True)
class Prophet:
    """A standing prophet: their marker lies on main-line card ``marker``. When it was put down,
    ``accepted_at`` and ``refused_at`` cards were laid on the table, accepted and refused, the
    starting cards included (for the scores' A and B: ``laid_at``), and ``played_at`` cards had
    been played (for the cards played under a prophet who falls)."""

    seat: int
    marker: int
    accepted_at: int
    refused_at: int
    played_at: int

    @property
    def laid_at(self) -> int:
        return self.accepted_at + self.refused_at

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "marker": self.marker,
            "accepted_at": self.accepted_at,
            "refused_at": self.refused_at,
            "laid_at": self.laid_at,
            "played_at": self.played_at,
        }


@dataclass(frozen=True)
class Pending:
    """A play on the table waiting for its verdict: a series, or a no-play with the hand shown.
    Once the prophet has judged it, their verdict waits for God's review."""

    seat: int
    cards: tuple[Card, ...]  # the series in order; for a no-play, the hand shown
    no_play: bool
    sudden_death: bool  # sudden death had begun when it was played
    prophet_accepted: bool | None = None
    prophet_card: Card | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "cards": cards_json(self.cards),
            "no_play": self.no_play,
            "prophet_accepted": self.prophet_accepted,
            "prophet_card": None if self.prophet_card is None else self.prophet_card.to_json(),
        }


@dataclass(frozen=True)
class Verdict:
    """The last play settled, as the table saw it. ``accepted``: the verdict that stands (for a
    no-play: the declaration was right); ``god_card``: the card played out of a wrong no-play."""

    seat: int
    cards: tuple[Card, ...]
    no_play: bool
    accepted: bool
    by: JudgeKind
    prophet: int | None = None
    prophet_accepted: bool | None = None
    overturned: bool = False
    god_card: Card | None = None
    penalty: int = 0
    eliminated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "cards": cards_json(self.cards),
            "no_play": self.no_play,
            "accepted": self.accepted,
            "by": self.by.value,
            "prophet": self.prophet,
            "prophet_accepted": self.prophet_accepted,
            "overturned": self.overturned,
            "god_card": None if self.god_card is None else self.god_card.to_json(),
            "penalty": self.penalty,
            "eliminated": self.eliminated,
        }


@dataclass(frozen=True)
class RuleInfo:
    """The companion's rule as it is revealed at the end: its text and, for a rule of the
    library, its id, level and the sentence that says it in English and French."""

    text: str = field(repr=False)
    id: str | None = field(default=None, repr=False)
    level: str | None = None
    description_en: str | None = field(default=None, repr=False)
    description_fr: str | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "id": self.id,
            "level": self.level,
            "description": None
            if self.description_en is None
            else {"en": self.description_en, "fr": self.description_fr},
        }


@dataclass(frozen=True)
class EleusisState:
    """The whole game, secrets included: no ``repr`` (nor ``str``) of it prints the rule, the
    deck's order or a hand (those fields are left out of it; ``Options`` and ``RuleInfo`` leave
    out the rule too), so a log line or a failing test's message tells no secret."""

    options: Options
    seed: int = field(repr=False)  # secret: tells the deal, the rule drawn and the shuffles
    phase: Phase
    rule: JudgingRule | None = field(compare=False, repr=False)  # None: God is human/withheld
    rule_info: RuleInfo | None = field(repr=False)  # never in a view before the end
    deck: tuple[Card, ...] = field(repr=False)  # digital: top first; never in a view
    physical_deck: int  # physical: how many cards are left in the real deck
    # digital: each seat's hand, sorted (each is its own seat's secret); physical: ()
    hands: tuple[tuple[Card, ...], ...] = field(repr=False)
    sizes: tuple[int, ...]  # each seat's hand size (God's seat: 0)
    layout: Layout
    turned: Card | None  # a starter card waiting for a human God's verdict
    turn: int | None  # the seat in turn (or whose play is being judged)
    just_played: int | None  # may still declare themself prophet, after playing
    pending: Pending | None
    prophet: Prophet | None
    fallen: tuple[int, ...]  # fallen prophets, in order of their fall
    played_under_fallen: int | None  # cards played while the last fallen prophet stood
    eliminated: tuple[int, ...]
    # cards played: laid by the players on their turns (and by God or the prophet out of a wrong
    # no-play's hand), accepted or refused; never the starting cards (see Layout: laid)
    played: int
    shuffles: int  # digital: how many times the deck was shuffled after the deal
    last: Verdict | None
    scores: Scores | None
    outcome: Outcome | None

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def deck_size(self) -> int:
        return len(self.deck) if self.options.digital else self.physical_deck

    @property
    def god_seat(self) -> int | None:
        return self.options.god_seat

    @property
    def sudden_death(self) -> bool:
        limit = self.options.sudden_death
        return limit is not None and self.played >= limit

    def active(self, seat: int) -> bool:
        """A card player who still plays: not God, not eliminated, not the standing prophet."""
        return (
            seat in self.options.seats
            and seat not in self.eliminated
            and (self.prophet is None or self.prophet.seat != seat)
        )


# -- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnCard(Action):
    """Physical cards: the host enters the card God has just turned for the start."""

    kind: ClassVar[str] = "turn_card"
    card: Card


@dataclass(frozen=True)
class PlayCards(Action):
    """The player in turn lays a series of 1 to 4 cards, in order (announced together)."""

    kind: ClassVar[str] = "play"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class NoPlay(Action):
    """The player in turn says they cannot play and shows their hand. Physical cards: ``cards``
    is the hand shown, as many cards as the hand holds; digital: empty (the companion shows it).
    """

    kind: ClassVar[str] = "no_play"
    seat: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class DeclareProphet(Action):
    kind: ClassVar[str] = "declare_prophet"
    seat: int


@dataclass(frozen=True)
class Judge(Action):
    """God's verdict (a human God's, from God's seat; ``seat`` None: a God with no seat, as in a
    public record of the companion's game). On a series or a starter card: accepted or not. On a
    no-play: ``accepted`` says the declaration is right; if not, ``card`` is the correct card
    God plays out of the hand shown."""

    kind: ClassVar[str] = "judge"
    seat: int | None
    accepted: bool
    card: Card | None = None


@dataclass(frozen=True)
class ProphetJudge(Action):
    """The prophet's verdict, in the same form as God's."""

    kind: ClassVar[str] = "prophet_judge"
    seat: int
    accepted: bool
    card: Card | None = None


@dataclass(frozen=True)
class Overturn(Action):
    """God overturns the prophet's verdict. On a no-play God judged wrong, ``card`` is the
    correct card God plays out of the hand; on a no-play God judged right, none."""

    kind: ClassVar[str] = "overturn"
    seat: int | None
    card: Card | None = None


@dataclass(frozen=True)
class Uphold(Action):
    """God lets the prophet's verdict stand."""

    kind: ClassVar[str] = "uphold"
    seat: int | None


@dataclass(frozen=True)
class AdmitMistake(Action):
    """A human God admits a mistake: the game ends."""

    kind: ClassVar[str] = "admit_mistake"
    seat: int


ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        TurnCard,
        PlayCards,
        NoPlay,
        DeclareProphet,
        Judge,
        ProphetJudge,
        Overturn,
        Uphold,
        AdmitMistake,
    )
}
