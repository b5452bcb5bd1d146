"""*Le Plan*, the plot cards of Résistance (RULES.md §1): the cards, the deck and its state.

The fifteen cards, their kinds and the moments at which they are played are in ``CARDS``. The
engine (``engine.py``) runs the expansion; this module holds the values it works on and the deck,
which is pure: its one shuffle comes from ``companion.chance.draws``, keyed by the game's secret
seed, so the journal replays a game exactly; an exported record names the cards drawn instead
(option ``plot_draws``).

The deck is the seed's: "Pour une partie à moins de 7 joueurs, on n'utilise que 10 des 15 cartes
Complot [...]. À 7 joueurs ou plus, on joue avec toutes les cartes Complot." Which ten is the
host's choice (option ``plot_deck``, checked by ``check_deck``), by default ``DEFAULT_SMALL_DECK``
(docs/RESISTANCE.md says where it comes from). It lasts the game, so no discard is shuffled back.

Where the rulebook is silent, the project decides (RULES.md §1, and the engine's docstring):
the cards the Commandant draws are shown to the table at once (plot cards "are not secret and must
stay face up once in play"), and who holds which card is public.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.chance import draws
from companion.game import IllegalAction


class PlotCard(enum.Enum):
    STRONG_LEADER = "strong_leader"
    KEEPING_A_CLOSE_EYE = "keeping_a_close_eye"
    NO_CONFIDENCE = "no_confidence"
    IN_THE_SPOTLIGHT = "in_the_spotlight"
    TAKE_RESPONSIBILITY = "take_responsibility"
    OVERHEARD_CONVERSATION = "overheard_conversation"
    OPEN_UP = "open_up"
    ESTABLISH_CONFIDENCE = "establish_confidence"
    OPINION_MAKER = "opinion_maker"


class PlotKind(enum.Enum):
    IMMEDIATE = "immediate"  # played by its receiver as soon as it is handed, then discarded
    ONE_USE = "one_use"  # kept face up until played at its moment, then discarded
    PERMANENT = "permanent"  # stays in front of its holder for the rest of the game


class Moment(enum.Enum):
    """When one-use cards may be played: a window in which holders play or pass in turn."""

    BEFORE_PROPOSAL = "before_proposal"  # Strong Leader
    AFTER_APPROVAL = "after_approval"  # No Confidence, Keeping a Close Eye, In the Spotlight


class StrongLeaderTiming(enum.Enum):
    """When Strong Leader may be played (option ``strong_leader``). The seed names no plot card;
    the published rule is the default: the card is played before the Commandant does anything,
    that is, at a round's start before the draw, and after a rejection before the new proposal,
    so a Strong Leader handed this round waits for a rejection or the next round."""

    BEFORE_DRAW = "before_draw"
    # Right before each squad is named, the round's first one included (after the hand-out): a
    # Strong Leader just handed may be played at once; the new Commandant names the squad.
    BEFORE_PROPOSAL = "before_proposal"


class Neighbour(enum.Enum):
    """Seats are numbered clockwise: the left neighbour of seat s is s + 1."""

    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True)
class CardSpec:
    count: int  # copies in the full deck of fifteen
    kind: PlotKind
    moment: Moment | None = None  # for one-use cards


CARDS: dict[PlotCard, CardSpec] = {
    PlotCard.STRONG_LEADER: CardSpec(2, PlotKind.ONE_USE, Moment.BEFORE_PROPOSAL),
    PlotCard.KEEPING_A_CLOSE_EYE: CardSpec(2, PlotKind.ONE_USE, Moment.AFTER_APPROVAL),
    PlotCard.NO_CONFIDENCE: CardSpec(3, PlotKind.ONE_USE, Moment.AFTER_APPROVAL),
    PlotCard.IN_THE_SPOTLIGHT: CardSpec(1, PlotKind.ONE_USE, Moment.AFTER_APPROVAL),
    PlotCard.TAKE_RESPONSIBILITY: CardSpec(1, PlotKind.IMMEDIATE),
    PlotCard.OVERHEARD_CONVERSATION: CardSpec(2, PlotKind.IMMEDIATE),
    PlotCard.OPEN_UP: CardSpec(1, PlotKind.IMMEDIATE),
    PlotCard.ESTABLISH_CONFIDENCE: CardSpec(1, PlotKind.IMMEDIATE),
    PlotCard.OPINION_MAKER: CardSpec(2, PlotKind.PERMANENT),
}

FULL_DECK: tuple[PlotCard, ...] = tuple(
    card for card, spec in CARDS.items() for _ in range(spec.count)
)
FULL_DECK_FROM = 7  # players: "À 7 joueurs ou plus, on joue avec toutes les cartes Complot."
SMALL_DECK_SIZE = 10  # "Pour une partie à moins de 7 joueurs, on n'utilise que 10 des 15 cartes"

# The one list of plot cards for 5-6 players a publisher printed that the project could find: a
# later edition's seven (which draws one card a round there). RULES.md §1.
LATER_EDITION_SEVEN: tuple[PlotCard, ...] = (
    PlotCard.STRONG_LEADER,
    PlotCard.STRONG_LEADER,
    PlotCard.KEEPING_A_CLOSE_EYE,
    PlotCard.KEEPING_A_CLOSE_EYE,
    PlotCard.NO_CONFIDENCE,
    PlotCard.TAKE_RESPONSIBILITY,
    PlotCard.OPINION_MAKER,
)
# Which ten the seed's edition uses under 7 players is printed on the cards ("référez-vous aux
# chiffres indiqués sur le côté droit des cartes"), which the seed's text does not reproduce. The
# default (option ``plot_deck``, docs/RESISTANCE.md) is the project's choice: the later edition's
# seven; both Overheard Conversation, since the seed says the cards bring "de nouveaux moyens
# d'identifier les autres joueurs" and the seven show no identity; a second No Confidence, the
# one card whose copies keep the deck's proportion (two of three, as ten of fifteen).
DEFAULT_SMALL_DECK: tuple[PlotCard, ...] = (
    *LATER_EDITION_SEVEN,
    PlotCard.NO_CONFIDENCE,
    PlotCard.OVERHEARD_CONVERSATION,
    PlotCard.OVERHEARD_CONVERSATION,
)
ROUNDS = 5  # "N'oubliez pas qu'il n'y a que 5 manches dans une partie."


def kind_of(card: PlotCard) -> PlotKind:
    return CARDS[card].kind


def draws_per_round(players: int) -> int:
    """Two cards a round at 5 to 8 players, three at 9 or 10 (the "Le Plan" card)."""
    return 3 if players >= 9 else 2


def default_deck(players: int) -> tuple[PlotCard, ...]:
    return FULL_DECK if players >= FULL_DECK_FROM else DEFAULT_SMALL_DECK


def check_deck(players: int, cards: Sequence[PlotCard]) -> tuple[PlotCard, ...]:
    """The deck a host chose (option ``plot_deck``), if the rules allow it: under 7 players ten
    of the fifteen cards, none more often than it was printed; at 7 or more, no choice."""
    if players >= FULL_DECK_FROM:
        raise IllegalAction("plot_deck_below_seven", players=players)
    if len(cards) != SMALL_DECK_SIZE:
        raise IllegalAction("plot_deck_size", size=SMALL_DECK_SIZE, given=len(cards))
    return tuple(cards)


def parse_cards(option: str, value: object, printed: bool = True) -> tuple[PlotCard, ...]:
    """A list of card names from the options; ``printed``: each card no more often than it was
    printed (a deck, not a sequence of draws)."""
    if not isinstance(value, (list, tuple)):
        raise IllegalAction("plot_cards_not_a_list", option=option)
    cards = []
    for name in value:
        try:
            cards.append(PlotCard(name))
        except ValueError:
            raise IllegalAction(
                "unknown_plot_card", card=name, cards=[c.value for c in PlotCard]
            ) from None
    for card, count in Counter(cards).items():
        if printed and count > CARDS[card].count:
            raise IllegalAction("too_many_plot_cards", card=card.value, most=CARDS[card].count)
    return tuple(cards)


def canonical(cards: Sequence[PlotCard]) -> tuple[PlotCard, ...]:
    """Cards in the order of ``CARDS``: a shuffle's input never depends on play order."""
    order = list(PlotCard)
    return tuple(sorted(cards, key=order.index))


def shuffled(cards: Sequence[PlotCard], seed: int, shuffles: int) -> tuple[PlotCard, ...]:
    deck = list(canonical(cards))
    draws(seed, f"resistance:plot:{shuffles}").shuffle(deck)
    return tuple(deck)


@dataclass(frozen=True)
class Pending:
    """An immediate card just handed, waiting for its effect to be chosen by ``actor`` (the
    receiver; the Commandant for Establish Confidence)."""

    card: PlotCard
    receiver: int
    actor: int


@dataclass(frozen=True)
class Window:
    """A moment at which one-use cards may be played: holders, clockwise from the Commandant,
    play or pass in turn. ``done``: seats that have had their turn in this window."""

    moment: Moment
    turn: int
    done: tuple[int, ...] = ()


@dataclass(frozen=True)
class Knowledge:
    """Something one seat alone learned through a plot card: never in a public view."""

    viewer: int
    about: int
    via: PlotCard
    side: str | None = None  # an identity ("colons" / "cylons"), with digital identities
    mission: int | None = None  # a Mission card seen with Keeping a Close Eye
    card: str | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"seat": self.about, "via": self.via.value}
        if self.side is not None:
            out["identity"] = self.side
        if self.mission is not None:
            out["mission"] = self.mission
            out["card"] = self.card
        return out


Held = tuple[tuple[PlotCard, ...], ...]


@dataclass(frozen=True)
class PlotState:
    deck: tuple[PlotCard, ...] = field(repr=False)  # top first; order hidden, size public
    discards: tuple[PlotCard, ...]  # face up
    drawn_log: tuple[PlotCard, ...]  # every card drawn in this game, in order (public)
    drawn: tuple[PlotCard, ...]  # drawn by the Commandant this round, not handed yet
    held: Held  # per seat, face up in front of them
    dealt: bool  # this round's cards have been drawn
    passed: tuple[int, ...]  # seats that passed this round: they play no more until it ends
    pending: Pending | None = None
    window: Window | None = None
    watches: tuple[tuple[int, int], ...] = ()  # (watcher, member) for the approved squad
    spotlight: int | None = None  # the member who plays face up on this mission
    knowledge: tuple[Knowledge, ...] = field(default=(), repr=False)  # each for its viewer only

    def holders(self, card: PlotCard) -> tuple[int, ...]:
        return tuple(seat for seat, cards in enumerate(self.held) if card in cards)


def new_plot(deck: Sequence[PlotCard], players: int, seed: int) -> PlotState:
    return PlotState(
        deck=shuffled(deck, seed, 0),
        discards=(),
        drawn_log=(),
        drawn=(),
        held=((),) * players,
        dealt=False,
        passed=(),
    )


def draw(
    plot: PlotState, count: int, forced: Sequence[PlotCard] = ()
) -> tuple[PlotState, tuple[PlotCard, ...]]:
    """Draw ``count`` cards off the top of the deck.

    The deck the rules give always lasts the game: ten cards at 5-6 players and fifteen at 7-8,
    two a round; fifteen at 9-10, three a round; and at most five rounds. So no discard is ever
    shuffled back (the seed has no such rule). ``forced`` (option ``plot_draws``, for replaying
    an exported record without its seed) names the cards that come off the deck, in order, for
    as long as it lasts: the deck's size and contents stay those of the game, only its hidden
    order differs.
    """
    assert count <= len(plot.deck), "the rules' deck lasts the five rounds"
    deck = list(plot.deck)
    log = list(plot.drawn_log)
    drawn: list[PlotCard] = []
    for _ in range(count):
        if len(log) < len(forced):
            card = forced[len(log)]
            if card not in deck:
                raise IllegalAction("plot_draws_mismatch", card=card.value)
            deck.remove(card)
        else:
            card = deck.pop(0)
        drawn.append(card)
        log.append(card)
    after = dataclasses.replace(
        plot, deck=tuple(deck), drawn_log=tuple(log), drawn=tuple(drawn), dealt=True
    )
    return after, tuple(drawn)


def give(held: Held, seat: int, card: PlotCard) -> Held:
    return tuple((*cards, card) if s == seat else cards for s, cards in enumerate(held))


def take(held: Held, seat: int, card: PlotCard) -> Held:
    def without(cards: tuple[PlotCard, ...]) -> tuple[PlotCard, ...]:
        i = cards.index(card)
        return (*cards[:i], *cards[i + 1 :])

    return tuple(without(cards) if s == seat else cards for s, cards in enumerate(held))
