"""Is a rule fit for a game of Eleusis? The seed's principles (RULES.md §4), checked.

- **It must never block**: from every *reachable* line (built from accepted cards only, starting
  from the empty line) some card of the 52 must be acceptable.
- **It may depend only on the cards**: true of every rule by construction (see
  :attr:`RuleReport.depends_only_on_cards`).
- **A random card should be accepted 30-50% of the time.**
- **A rule on a series should read at most six cards.**

How. A rule reads only the last ``lookback`` cards of the line and the position modulo its
``period``, and of each card only what its words ask for (a rule about colours cannot tell the
7 of hearts from the king of diamonds). So a line is summed up by a *state*: its last
``lookback`` cards, each taken as a representative of the cards the rule cannot tell apart,
and its length modulo ``period``. When the reachable states are few enough they are all visited
(breadth first, from the empty line): the answer is then a proof, ``exhaustive`` is true, and a
blocking line found is a shortest one. Otherwise random games are played, plus "squeezing"
games that always play towards the state leaving the fewest choices; a block found is real, but
finding none is only strong evidence (``exhaustive`` false, advice ``unproven``).

``acceptance`` is the share of the 52 cards accepted after a random line, averaged over the lines
of 1 to :data:`GAME_LENGTH` cards of ``samples // GAME_LENGTH`` random games, in which each
accepted card is drawn at random among the acceptable ones; after each line the share is counted
exactly. The empty line is left out: God turns the first card, no player plays on it.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeAlias

from companion.games.eleusis.cards import DECK_SIZE, ONE_DECK, Card
from companion.games.eleusis.rule_language import (
    Attribute,
    Count,
    HasProperty,
    Rule,
    walk,
)

GAME_LENGTH = 40  # accepted cards in a sampled game
EXHAUSTIVE_BUDGET = 150_000  # judgements of one card the exhaustive search may spend
SQUEEZE_BUDGET = 30_000  # and the squeezing games, when the search is not exhaustive
SQUEEZE_CHOICES = 4  # successors a squeezing game compares at each step
TOO_EASY, TOO_HARD = 0.5, 0.3  # the seed: "entre 30% et 50% de réussite"
SERIES_LIMIT = 6  # the seed: a series rule "ne devrait pas dépasser six cartes"
NARROW = 4  # acceptable faces at or under which a line is a near-block (one rank, 4 suits)

_FEATURES: dict[str, Callable[[Card], object]] = {
    "rank": lambda c: c.rank,
    "suit": lambda c: c.suit,
    "colour": lambda c: c.red,
    "parity": lambda c: c.odd,
    "court": lambda c: c.court,
    "low": lambda c: c.low,
    "honour": lambda c: c.honour,
}
_PROPERTY_FEATURES = {
    "red": "colour",
    "black": "colour",
    "odd": "parity",
    "even": "parity",
    "court": "court",
    "low": "low",
    "honour": "honour",
    "spades": "suit",
    "hearts": "suit",
    "diamonds": "suit",
    "clubs": "suit",
}
_ATTRIBUTE_FEATURES = {"value": "rank", "colour": "colour", "suit": "suit"}

State: TypeAlias = tuple[tuple[int, ...], int]  # recent cards' classes, line length mod period
START: State = ((), 0)


@dataclass(frozen=True)
class Advice:
    """One remark on a rule; ``code`` is the catalog key ``eleusis.advice.<code>``."""

    code: str
    params: dict[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleReport:
    """What the checker found.

    ``depends_only_on_cards`` is always true: the language has words for the candidate, the
    cards before it in the main line and the candidate's place in that line, and for nothing
    else (no player, hand, refused card, clock or chance), so no rule written in it can depend
    on anything but the cards.
    """

    text: str
    blocks: bool
    blocking_line: tuple[Card, ...] | None  # a reachable line after which no card is accepted
    exhaustive: bool  # every reachable state was visited: the verdict on blocking is a proof
    states: int  # states visited
    acceptance: float  # 0..1
    first_cards: int  # how many of the 52 cards may start the line
    fewest_choices: int  # the fewest of the 52 cards acceptable after a visited line
    lookback: int
    period: int
    advice: tuple[Advice, ...]
    depends_only_on_cards: bool = True

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(a.code for a in self.advice)


def card_features(rule: Rule) -> tuple[str, ...]:
    """What the rule reads of a card: ``rank``, ``suit``, ``colour``, ``parity``..."""
    found = set()
    for node in walk(rule.tree):
        if isinstance(node, HasProperty | Count):
            found.add(_PROPERTY_FEATURES[node.prop])
        elif isinstance(node, Attribute):
            found.add(_ATTRIBUTE_FEATURES[node.name])
    return tuple(sorted(found))


def card_classes(rule: Rule) -> tuple[tuple[Card, int], ...]:
    """The 52 cards grouped by what the rule can see of them: (representative, how many)."""
    features = [_FEATURES[name] for name in card_features(rule)]
    groups: dict[tuple[object, ...], list[Card]] = {}
    for card in ONE_DECK:
        groups.setdefault(tuple(f(card) for f in features), []).append(card)
    return tuple((cards[0], len(cards)) for cards in groups.values())


class _Space:
    """The states of a rule, judged lazily and remembered."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        classes = card_classes(rule)
        self.cards = tuple(card for card, _ in classes)
        self.weights = tuple(weight for _, weight in classes)
        self.known: dict[State, tuple[int, ...]] = {}
        self.judged = 0

    def accepted(self, state: State) -> tuple[int, ...]:
        """The classes acceptable in ``state``."""
        found = self.known.get(state)
        if found is None:
            recent = [self.cards[i] for i in state[0]]
            position = state[1] + 1
            accepts = self.rule.accepts_at
            found = tuple(i for i, c in enumerate(self.cards) if accepts(recent, c, position))
            self.judged += len(self.cards)
            self.known[state] = found
        return found

    def faces(self, accepted: tuple[int, ...]) -> int:
        return sum(self.weights[i] for i in accepted)

    def after(self, state: State, i: int) -> State:
        lookback = self.rule.lookback
        recent = (*state[0], i)[-lookback:] if lookback else ()
        return recent, (state[1] + 1) % self.rule.period

    def size_bound(self) -> int:
        """At most this many states exist (whether reachable or not)."""
        total, layer = 1, 1
        for _ in range(self.rule.lookback):
            layer *= len(self.cards)
            total += layer
        return self.rule.period * total


@dataclass
class _Search:
    complete: bool = False
    blocking: tuple[Card, ...] | None = None

    def found(self, line: tuple[Card, ...]) -> None:
        if self.blocking is None or len(line) < len(self.blocking):
            self.blocking = line


def _explore(space: _Space, search: _Search, budget: int) -> None:
    """Breadth first from the empty line, unless it would judge more than ``budget`` cards."""
    if space.size_bound() * len(space.cards) > budget:
        return
    parents: dict[State, tuple[State, int] | None] = {START: None}
    queue = deque([START])
    while queue:
        if space.judged >= budget:
            return
        state = queue.popleft()
        accepted = space.accepted(state)
        if not accepted:
            search.found(_line_to(state, parents, space))
            search.complete = True
            return
        for i in accepted:
            following = space.after(state, i)
            if following not in parents:
                parents[following] = (state, i)
                queue.append(following)
    search.complete = True


def _line_to(
    state: State, parents: dict[State, tuple[State, int] | None], space: _Space
) -> tuple[Card, ...]:
    line: list[Card] = []
    step = parents[state]
    while step is not None:
        state, i = step
        line.append(space.cards[i])
        step = parents[state]
    return tuple(reversed(line))


def _sample(space: _Space, search: _Search, rng: random.Random, games: int) -> list[float]:
    """Random games: the share of acceptable cards after each line."""
    shares: list[float] = []
    for _ in range(games):
        state, line = START, list[Card]()
        for _ in range(GAME_LENGTH + 1):
            accepted = space.accepted(state)
            if line:
                shares.append(space.faces(accepted) / DECK_SIZE)
            if not accepted:
                search.found(tuple(line))
                break
            i = rng.choices(accepted, weights=[space.weights[j] for j in accepted])[0]
            line.append(space.cards[i])
            state = space.after(state, i)
    return shares


def _squeeze(space: _Space, search: _Search, rng: random.Random) -> None:
    """Games that play, among a few acceptable cards, the one leaving the fewest choices."""
    budget = space.judged + SQUEEZE_BUDGET
    while space.judged < budget:
        state, line = START, list[Card]()
        for _ in range(GAME_LENGTH):
            accepted = space.accepted(state)
            if not accepted:
                search.found(tuple(line))
                return
            tried = rng.sample(accepted, min(SQUEEZE_CHOICES, len(accepted)))
            i = min(tried, key=lambda j: space.faces(space.accepted(space.after(state, j))))
            line.append(space.cards[i])
            state = space.after(state, i)
            if space.judged >= budget:
                return


def check_rule(
    rule: Rule, samples: int = 800, seed: int = 0, budget: int = EXHAUSTIVE_BUDGET
) -> RuleReport:
    """Check ``rule`` against the seed's principles. ``samples`` random lines measure its
    acceptance (and look for a block when the states are too many to visit them all);
    ``budget``: how many single-card judgements the exhaustive search may spend (about a
    microsecond each on the machine of docs/ELEUSIS_RULES.md, some five on a Raspberry Pi 4)."""
    space = _Space(rule)
    rng = random.Random(seed)
    search = _Search()
    _explore(space, search, budget)
    games = max(1, samples // GAME_LENGTH)
    shares = _sample(space, search, rng, games)
    if not search.complete and search.blocking is None:
        _squeeze(space, search, rng)
    first = space.faces(space.accepted(START))
    fewest = min(space.faces(accepted) for accepted in space.known.values())
    acceptance = sum(shares) / len(shares) if shares else 0.0
    report = RuleReport(
        text=rule.text,
        blocks=search.blocking is not None,
        blocking_line=search.blocking,
        exhaustive=search.complete,
        states=len(space.known),
        acceptance=acceptance,
        first_cards=first,
        fewest_choices=fewest,
        lookback=rule.lookback,
        period=rule.period,
        advice=(),
    )
    return replace(report, advice=_advise(report, games * GAME_LENGTH))


def _advise(report: RuleReport, lines: int) -> tuple[Advice, ...]:
    advice: list[Advice] = []
    if report.first_cards == 0:
        advice.append(Advice("first_card"))
    elif report.blocking_line is not None:
        cards = " ".join(card.to_json() for card in report.blocking_line)
        advice.append(Advice("blocks", {"line": cards, "length": len(report.blocking_line)}))
    if not report.blocks and not report.exhaustive:
        advice.append(Advice("unproven", {"lines": lines}))
    if 0 < report.fewest_choices <= NARROW:
        advice.append(Advice("narrow", {"cards": report.fewest_choices}))
    percent = round(100 * report.acceptance)
    if report.first_cards == 0:
        pass  # no game starts: its acceptance means nothing
    elif report.acceptance > TOO_EASY:
        advice.append(Advice("too_easy", {"percent": percent, "limit": round(100 * TOO_EASY)}))
    elif report.acceptance < TOO_HARD:
        advice.append(Advice("too_hard", {"percent": percent, "limit": round(100 * TOO_HARD)}))
    if report.lookback > SERIES_LIMIT:
        advice.append(Advice("long_series", {"lookback": report.lookback, "limit": SERIES_LIMIT}))
    return tuple(advice)
