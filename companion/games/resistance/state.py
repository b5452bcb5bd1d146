"""Résistance's state and actions: small frozen value objects with a JSON form."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.game import Action, IllegalAction, Outcome
from companion.games.resistance.plot import (
    FULL_DECK_FROM,
    Neighbour,
    PlotCard,
    PlotState,
    StrongLeaderTiming,
    check_deck,
    default_deck,
    parse_cards,
)
from companion.games.resistance.tables import MAX_PLAYERS, MIN_PLAYERS


class Phase(enum.Enum):
    NIGHT = "night"  # the Cylons recognise each other, narrated by the companion
    PROPOSE = "propose"  # the Commandant names a squad
    VOTE = "vote"  # everyone votes on the squad, in secret
    MISSION = "mission"  # the squad plays Success or Fail, in secret
    OVER = "over"
    # Le Plan (option ``plot``):
    PLOT_HAND = "plot_hand"  # the Commandant hands out the plot cards drawn this round
    PLOT_IMMEDIATE = "plot_immediate"  # an immediate card just handed waits for its choice
    PLOT_WINDOW = "plot_window"  # holders of one-use cards play or pass, clockwise


class Identities(enum.Enum):
    """Who deals the identity cards. Physical: the players, by hand; the companion never knows
    them. Digital: the companion, from the seed; each seat sees its own on its private page."""

    PHYSICAL = "physical"
    DIGITAL = "digital"


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


class Character(enum.Enum):
    """The character cards that say who takes the Commandant card first, in the seed's order:
    "Remettez ensuite la carte Commandant au joueur incarnant dans l'ordre de présence : William
    Adama / Laura Roslin / Saul Tigh / Lee Adama / Gaius Baltar". The seed's other five character
    cards name no Commandant."""

    WILLIAM_ADAMA = "william_adama"
    LAURA_ROSLIN = "laura_roslin"
    SAUL_TIGH = "saul_tigh"
    LEE_ADAMA = "lee_adama"
    GAIUS_BALTAR = "gaius_baltar"

    @property
    def title(self) -> str:
        """The character's name, the same in every language."""
        return self.value.replace("_", " ").title()


@dataclass(frozen=True)
class Options:
    """Game options, chosen at setup. Seats are numbered clockwise from 0: left is seat + 1.

    ``characters``: the seats holding the character cards of ``Character`` (those at the table):
    the first Commandant is then the seed's, the holder of the first present in that order, and
    ``first_commander`` is that seat. Without them, ``first_commander`` is the host's choice.
    """

    players: int
    targeting: bool = False  # variant "Attaques ciblées"
    isolated_cylons: bool = False  # variant "Cylons isolés": no night phase
    first_commander: int = 0
    identities: Identities = Identities.PHYSICAL
    characters: tuple[tuple[Character, int], ...] = ()  # in the seed's order
    plot: bool = False  # expansion "Le Plan"
    plot_deck: tuple[PlotCard, ...] | None = None  # under 7 players; None: the default deck
    strong_leader: StrongLeaderTiming = StrongLeaderTiming.BEFORE_DRAW
    plot_draws: tuple[PlotCard, ...] = ()  # cards drawn in this order (replaying a record)

    @property
    def deck(self) -> tuple[PlotCard, ...]:
        return default_deck(self.players) if self.plot_deck is None else self.plot_deck

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Options:
        known = {
            "players",
            "targeting",
            "isolated_cylons",
            "first_commander",
            "identities",
            "characters",
            "plot",
            "plot_deck",
            "strong_leader",
            "plot_draws",
        }
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
        characters: tuple[tuple[Character, int], ...] = ()
        if "characters" in data:
            characters = _characters(data["characters"], players)
            holder, card = characters[0][1], characters[0][0]
            if "first_commander" in data and first != holder:
                raise IllegalAction(
                    "first_commander_by_characters", seat=holder, character=card.title
                )
            first = holder
        flags = {}
        for name in ("targeting", "isolated_cylons", "plot"):
            value = data.get(name, False)
            if not isinstance(value, bool):
                raise IllegalAction("option_not_boolean", option=name)
            flags[name] = value
        identities = data.get("identities", Identities.PHYSICAL.value)
        choices = [i.value for i in Identities]
        if identities not in choices:
            raise IllegalAction(
                "unknown_option_value", option="identities", value=identities, choices=choices
            )
        for name in ("plot_deck", "strong_leader", "plot_draws"):
            if name in data and not flags["plot"]:
                raise IllegalAction("plot_option_without_plot", option=name)
        timing = data.get("strong_leader", StrongLeaderTiming.BEFORE_DRAW.value)
        timings = [t.value for t in StrongLeaderTiming]
        if timing not in timings:
            raise IllegalAction(
                "unknown_option_value", option="strong_leader", value=timing, choices=timings
            )
        deck = None
        if "plot_deck" in data:
            deck = check_deck(players, parse_cards("plot_deck", data["plot_deck"]))
        draws = (
            parse_cards("plot_draws", data["plot_draws"], printed=False)
            if "plot_draws" in data
            else ()
        )
        return Options(
            players,
            first_commander=first,
            identities=Identities(identities),
            characters=characters,
            plot_deck=deck,
            strong_leader=StrongLeaderTiming(timing),
            plot_draws=draws,
            **flags,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": self.players,
            "targeting": self.targeting,
            "isolated_cylons": self.isolated_cylons,
            "first_commander": self.first_commander,
            "identities": self.identities.value,
            "plot": self.plot,
        }
        if self.characters:
            out["characters"] = {card.value: seat for card, seat in self.characters}
        if self.plot and self.players < FULL_DECK_FROM:
            out["plot_deck"] = [c.value for c in self.deck]
        if self.plot:
            out["strong_leader"] = self.strong_leader.value
        if self.plot_draws:
            out["plot_draws"] = [c.value for c in self.plot_draws]
        return out


def _characters(value: object, players: int) -> tuple[tuple[Character, int], ...]:
    """Option ``characters``: ``{character: seat}`` for the named character cards at the table,
    in the seed's order; at least one, and one card a player."""
    names = [c.value for c in Character]
    if not isinstance(value, Mapping):
        raise IllegalAction("characters_not_a_map", characters=names)
    holders: dict[int, Character] = {}
    for name, seat in value.items():
        if name not in names:
            raise IllegalAction("unknown_character", character=name, characters=names)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise IllegalAction("no_such_seat", seat=seat, players=players)
        if seat in holders:
            raise IllegalAction(
                "one_character_a_player",
                seat=seat,
                character=holders[seat].title,
                other=Character(name).title,
            )
        holders[seat] = Character(name)
    if not holders:
        raise IllegalAction("no_named_character", characters=[c.title for c in Character])
    return tuple(
        sorted(((c, s) for s, c in holders.items()), key=lambda cs: names.index(cs[0].value))
    )


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
    seed: int = field(repr=False)  # secret: tells the identities and the plot deck's order
    phase: Phase
    commander: int
    rejections: int  # rejected proposals in the current round
    results: tuple[MissionResult, ...]
    mission: int | None  # the mission being proposed, voted or played (None: not chosen yet)
    squad: tuple[int, ...]
    votes: tuple[bool | None, ...] = field(repr=False)  # secret until the last seat has voted
    cards: tuple[Card | None, ...] = field(repr=False)  # secret for ever: only the counts shown
    last_vote: VoteResult | None
    outcome: Outcome | None
    # digital identities only: never in a public view
    identities: tuple[Side, ...] | None = field(default=None, repr=False)
    plot: PlotState | None = None  # Le Plan only

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


# -- Le Plan ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandPlot(Action):
    """The Commandant hands one of the cards drawn this round (``card_index`` in the public
    view's ``plot.drawn``) to another player."""

    kind: ClassVar[str] = "hand_plot"
    commander: int
    card_index: int
    to_seat: int


@dataclass(frozen=True)
class Overhear(Action):
    """Overheard Conversation: its receiver looks at a neighbour's identity card."""

    kind: ClassVar[str] = "overhear"
    seat: int
    neighbour: Neighbour


@dataclass(frozen=True)
class OpenUp(Action):
    """Open Up: its receiver shows their identity card to a player of their choice."""

    kind: ClassVar[str] = "open_up"
    seat: int
    to_seat: int


@dataclass(frozen=True)
class EstablishConfidence(Action):
    """Establish Confidence: the Commandant shows their identity card to a player they choose."""

    kind: ClassVar[str] = "establish_confidence"
    commander: int
    to_seat: int


@dataclass(frozen=True)
class TakeResponsibility(Action):
    """Take Responsibility: its receiver takes a plot card from another player."""

    kind: ClassVar[str] = "take_responsibility"
    seat: int
    from_seat: int
    card: PlotCard


@dataclass(frozen=True)
class PlayPlot(Action):
    """A one-use card played at its moment; ``target``: the squad member for Keeping a Close
    Eye and In the Spotlight, none for Strong Leader and No Confidence."""

    kind: ClassVar[str] = "play_plot"
    seat: int
    card: PlotCard
    target: int | None = None


@dataclass(frozen=True)
class PassPlot(Action):
    """A holder declines to play at this moment: they play no plot card until the round ends."""

    kind: ClassVar[str] = "pass_plot"
    seat: int


ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        EndNight,
        ProposeSquad,
        CastVote,
        PlayMissionCard,
        HandPlot,
        Overhear,
        OpenUp,
        EstablishConfidence,
        TakeResponsibility,
        PlayPlot,
        PassPlot,
    )
}
