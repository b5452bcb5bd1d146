"""Eleusis, RULES.md §4: God's secret rule on the sequence of accepted cards, found by induction.

God is the companion (option ``god: "companion"``: it holds the rule, typed by the host as
``rule``, picked from the library as ``rule_id``, or drawn at a ``level``, and judges every play
itself) or a player (``god: "human"``, at ``god_seat``: the companion never knows the rule and
waits for God's ``Judge``). Cards are ``digital`` (the companion deals from the game's secret
seed, ``companion.chance``; each hand is on its seat's phone) or ``physical`` (real cards: the
host enters each card laid, and the companion knows only the size of each hand).

A game goes::

    STARTER (God turns cards until one is accepted) -> PLAY (the player in turn plays a series
    or says no-play) [-> JUDGE (a human God's or the prophet's verdict) [-> REVIEW (a human God
    overturns the prophet or lets the verdict stand)]] -> settled -> PLAY (next player) ... OVER

Where the rules are silent, this engine decides (docs/ELEUSIS.md says the same for the table):

- *Seats*: ``players`` counts every seat with a phone or buttons. With the companion as God all
  play cards (2 to 10) and the companion sits just before seat 0: "the r-th player after God" is
  seat (r - 1) mod players. A human God sits at ``god_seat`` (5 to 10 seats, God's included, as
  in the seed) and plays no card: the r-th player after God counts clockwise from God's left,
  skipping nobody but God.
- *Decks*: 2 up to 4 card players, 3 up to 7, 4 beyond (option ``decks``, 2 to 4).
- *Starter*: refused starter cards lie before the main line (``starter_refused``). If the deck
  runs out before a card is accepted, the rule blocks the game: it ends (``BLOCKED``) and nobody
  scores. A typed rule that accepts no card at all on an empty line is refused at setup.
- *A series* is judged card by card against the main line plus the series cards before it; all
  must pass. A refused series lies below the last accepted card, as one overlapped group.
- *Penalties* are drawn from the deck while it lasts: when it runs short, a player draws what is
  left (``owed`` and ``drawn`` are both told). The deck is never renewed, so the cards on the
  table, in the hands and in the deck always make up the decks.
- *A correct no-play*: digital, the hand goes back into the deck, which is shuffled (from the
  seed), and a hand 4 cards smaller is dealt; physical, the player does the same with the real
  deck and the companion counts. A hand of 4 cards or fewer becomes empty: the player has no
  cards left and the game ends (as in Abbott's *New Eleusis*).
- *A wrong no-play*: God plays one correct card of the hand shown onto the main line (the
  companion takes the first acceptable one by rank, then spades, hearts, diamonds, clubs; a human
  God names it in ``Judge.card``), then the player draws 5 penalty cards.
- *Prophet*: declared by the player in turn before their play, or by the player who has just
  played, until the next player acts. The seed allows it when there is no prophet and fewer than
  30 cards are on the main line (the starter included: «moins de trente cartes ont été acceptées
  depuis le début de la partie»); once a prophet has fallen, only if at most 30 cards were played
  under the fallen prophet, from the marker to the fall, the overturned play included («Si trente
  cartes au plus ont été jouées sous le prophète déchu, un autre prophète peut se déclarer»; both
  conditions apply). Two conditions are not the seed's but Abbott's *New Eleusis*, each an
  option: a player is prophet at most once (``prophet_once``, default true), and at least
  ``prophet_min_others`` other card players (default 2, Abbott's "two or more players besides
  yourself and the dealer"; 1 to 9) must still be playing. The marker lies on the last accepted
  card. A prophet declared before playing does not play: the turn passes.
- *The prophet judges* every play (``ProphetJudge``, in the same form as ``Judge``; on a wrong
  no-play the prophet names the card). With the companion as God the prophet's verdict is checked
  at once: it is overturned when it differs from the rule's (a wrong no-play is also overturned
  when the prophet's card is not acceptable). With a human God the verdict waits in ``REVIEW``
  for ``Overturn`` or ``Uphold``. Verdicts take effect only once reviewed.
- *Overturned*: God's verdict takes effect instead, and the player draws no penalty (nor is
  eliminated); on a wrong no-play God plays the card of God's choosing. The prophet falls: they
  take back their hand (it stayed in front of them) plus 4 penalty cards and play again in turn.
- *Elimination* (for the seed's "all players are eliminated", which never says how): Abbott's
  sudden death, an option. Once ``sudden_death`` cards (default 40, Abbott's count; ``None``:
  never) have been played since the start, a player whose play is finally refused (a refused
  series, a wrong no-play) is eliminated instead of drawing penalty cards: their cards still go
  where the verdict puts them, their hand stays for the scores. The game ends when no player is
  left to play. (Abbott also restarts the count at a prophet's marker; this engine does not.)
- *Played and laid*: two counts, two words. Cards **played** (``played``: sudden death, the
  cards played under a fallen prophet, God's admitted mistake) are the cards the players laid on
  their turns and those God or the prophet played out of a wrong no-play's hand, accepted or
  refused, never the starting cards. Cards **laid** (``Layout.laid``, ``accepted`` and
  ``refused``, the scores' A and B) are every card lying on the table, the starting cards
  (accepted or refused) included.
- *Scores*: see ``scoring.py``. *A* counts the cards laid after the marker (refused double); *B*
  is twice the cards laid when the marker was put down (the starting cards included). A fallen
  prophet is an ordinary player. Without a prophet the seed is silent: God scores the highest
  score of the players, as in Abbott's *New Eleusis* (option ``god_without_prophet``:
  ``"highest"``, the default, or ``"zero"``), and so shares the victory with the best player.
  Winners: the highest score among the seats (a human God included); the companion's score
  belongs to no seat.
- *God admits a mistake* (human God, any time): a play waiting for its verdict is taken back,
  a starter card waiting for one goes back on the deck.

**Secrets.** The rule (its text, id and library description) and the deck's order are in no view
before the end; ``public_view`` shows each hand's size and ``private_view(seat)`` adds the seat's
own hand as ``my_hand``. Cards drawn are told to their seat only (``penalty_cards``,
``your_hand``); the table hears how many. A hand is public while shown for a no-play. A play of
cards that are not in the seat's hand is refused with ``private_to`` (its wording tells the hand),
and ``legal_actions(state, seat)`` is that seat's own (it lists the seat's cards). At the end the
public view reveals the rule. No ``repr`` (nor ``str``) of a state, its options or its rule
prints the rule, the seed, the deck's order or a hand: a log line or a test's message keeps them.

**Records.** A record carries no seed before the end (``companion/record.py``): it would tell the
hands, the deck and a drawn rule. ``public_setup`` turns a digital game into a physical one (the
hands are never told) and, with the companion as God and the game not over, withholds the rule
(``rule_withheld``: the companion's verdicts are written in the record as ``Judge``, ``Overturn``
and ``Uphold`` with no seat). Once the game is over the record reveals the rule (``rule`` or
``rule_id``) and the verdicts are the engine's again.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from companion.chance import draws
from companion.game import JSON, Action, Audience, Event, IllegalAction, Outcome
from companion.games.eleusis.cards import ONE_DECK, Card
from companion.games.eleusis.rule_language import RuleSyntaxError, parse_rule
from companion.games.eleusis.scoring import (
    ProphetTally,
    final_scores,
    god_mistake,
    no_score,
)
from companion.games.eleusis.state import (
    ACTIONS,
    MAX_SERIES,
    PROPHET_AFTER_FALL,
    PROPHET_BEFORE_ACCEPTED,
    AdmitMistake,
    DeclareProphet,
    EleusisState,
    God,
    GodWithoutProphet,
    Judge,
    JudgeKind,
    JudgingRule,
    Layout,
    NoPlay,
    Options,
    Overturn,
    Pending,
    Phase,
    PlayCards,
    Prophet,
    ProphetJudge,
    RuleInfo,
    Termination,
    TurnCard,
    Uphold,
    Verdict,
    card_key,
    cards_json,
    sort_cards,
)
from companion.games.eleusis.views import EleusisViews

Step = tuple[EleusisState, list[Event]]
T = TypeVar("T")


class LibraryRule(Protocol):
    """What the engine needs of a rule of the library (``rule_library.LibraryRule``)."""

    @property
    def id(self) -> str: ...

    @property
    def level(self) -> str: ...

    @property
    def text(self) -> str: ...

    def description(self, lang: str) -> str: ...


RuleParser = Callable[[str], JudgingRule]
RuleDrawer = Callable[[str, random.Random], LibraryRule]
RuleFinder = Callable[[str], LibraryRule]


def default_parse(text: str) -> JudgingRule:
    return parse_rule(text)


def default_draw(level: str, rng: random.Random) -> LibraryRule:
    from companion.games.eleusis.rule_library import draw_rule  # loads the library: on demand

    return draw_rule(level, rng)


def default_find(rule_id: str) -> LibraryRule:
    from companion.games.eleusis.rule_library import by_id

    return by_id(rule_id)


def series_accepted(rule: JudgingRule, line: Sequence[Card], cards: Sequence[Card]) -> bool:
    """A series passes if each card is accepted after the line and the series cards before it."""
    so_far = list(line)
    for card in cards:
        if not rule.accepts(tuple(so_far), card):
            return False
        so_far.append(card)
    return True


def first_playable(rule: JudgingRule, line: Sequence[Card], hand: Sequence[Card]) -> Card | None:
    """The card God plays out of a wrong no-play: the first acceptable in the stable order."""
    for card in sort_cards(hand):
        if rule.accepts(tuple(line), card):
            return card
    return None


def deal(options: Options, seed: int) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """The companion's shuffle and deal (digital cards): each seat's hand, and the deck left."""
    deck = list(ONE_DECK) * options.decks
    draws(seed, "eleusis:deal").shuffle(deck)
    hands: list[tuple[Card, ...]] = [() for _ in range(options.players)]
    for seat in options.seats:
        hands[seat] = sort_cards(deck[: options.hand_size])
        del deck[: options.hand_size]
    return tuple(hands), tuple(deck)


def _without(hand: Sequence[Card], cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """``hand`` less ``cards`` (as a multiset), or None if it does not hold them all."""
    left = Counter(hand)
    left.subtract(Counter(cards))
    if any(n < 0 for n in left.values()):
        return None
    return sort_cards(list(left.elements()))


def _replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


class Eleusis(EleusisViews):
    title = "eleusis"
    actions: Mapping[str, type[Action]] = ACTIONS

    def __init__(
        self,
        parse: RuleParser | None = None,
        draw: RuleDrawer | None = None,
        find: RuleFinder | None = None,
    ) -> None:
        """``parse``, ``draw`` and ``find`` read, draw and look up the companion's rules (by
        default the rule language and the rule library); tests give their own."""
        self._parse_text = parse or default_parse
        self._draw_rule = draw or default_draw
        self._find_rule = find or default_find

    # -- setting up ---------------------------------------------------------------------------

    def new(self, options: Mapping[str, Any], seed: int) -> EleusisState:
        opts = Options.from_json(options)
        rule, info = self._rule(opts, seed)
        if opts.digital:
            hands, deck = deal(opts, seed)
            physical_deck = 0
        else:
            hands, deck = (), ()
            physical_deck = opts.total_cards - opts.hand_size * len(opts.seats)
        sizes = tuple(opts.hand_size if s in opts.seats else 0 for s in range(opts.players))
        state = EleusisState(
            options=opts,
            seed=seed,
            phase=Phase.STARTER,
            rule=rule,
            rule_info=info,
            deck=deck,
            physical_deck=physical_deck,
            hands=hands,
            sizes=sizes,
            layout=Layout(),
            turned=None,
            turn=None,
            just_played=None,
            pending=None,
            prophet=None,
            fallen=(),
            played_under_fallen=None,
            eliminated=(),
            played=0,
            shuffles=0,
            last=None,
            scores=None,
            outcome=None,
        )
        if opts.digital:
            state, _ = self._turn_next(state, [])
        return state

    def _rule(self, opts: Options, seed: int) -> tuple[JudgingRule | None, RuleInfo | None]:
        if opts.god is God.HUMAN or opts.rule_withheld:
            return None, None
        if opts.rule is not None:
            rule = self._parse_rule(opts.rule)
            if not any(rule.accepts((), card) for card in ONE_DECK):
                raise IllegalAction("rule_accepts_no_first_card")
            return rule, RuleInfo(opts.rule)
        if opts.rule_id is not None:
            try:
                entry = self._find_rule(opts.rule_id)
            except (KeyError, LookupError):
                raise IllegalAction("no_such_rule", rule_id=opts.rule_id) from None
        else:
            assert opts.level is not None
            entry = self._draw_rule(opts.level.value, draws(seed, "eleusis:rule"))
        rule = self._parse_rule(entry.text)
        return rule, RuleInfo(
            entry.text,
            id=entry.id,
            level=entry.level,
            description_en=entry.description("en"),
            description_fr=entry.description("fr"),
        )

    def _parse_rule(self, text: str) -> JudgingRule:
        """The rule read; a syntax error is refused with its column, its code (the catalog's
        ``eleusis.rule_errors.<error>``) and that sentence's placeholders."""
        try:
            return self._parse_text(text)
        except RuleSyntaxError as exc:
            raise IllegalAction(
                "rule_syntax_error", column=exc.column, error=exc.code, **exc.params
            ) from None

    def options_json(self, state: EleusisState) -> JSON:
        """Every option, the rule included: this goes to the journal, which is private."""
        return state.options.to_json()

    def opening_events(self, state: EleusisState) -> list[Event]:
        """What the table is told of a game just set up: the deal, the starter so far (all of it
        with the companion as God and digital cards), and what is awaited."""
        opts = state.options
        events = [
            Event(
                "game_set_up",
                {
                    "players": opts.players,
                    "god": opts.god.value,
                    "god_seat": opts.god_seat,
                    "cards": opts.cards.value,
                    "decks": opts.decks,
                    "hand_size": opts.hand_size,
                    "card_seats": list(opts.seats),
                    "level": None if opts.level is None else opts.level.value,
                },
            )
        ]
        if opts.digital:
            for seat in opts.seats:
                events.append(
                    Event(
                        "your_hand",
                        {"cards": cards_json(state.hands[seat]), "count": state.sizes[seat]},
                        Audience.only(seat),
                    )
                )
        refused = state.layout.starter_refused
        events.extend(Event("starter_refused", {"card": c.to_json()}) for c in refused)
        if state.layout.line:
            events.append(self._starter_accepted_event(state))
        if state.phase is Phase.STARTER:
            events.extend(self._awaiting_starter(state))
        elif state.phase is Phase.PLAY:
            events.append(Event("turn", {"seat": state.turn}))
        elif state.outcome is not None:
            events.append(self._game_over_event(state))
        return events

    def situation_events(self, state: EleusisState) -> list[Event]:
        """What the table awaits now, said again after a restart or the host's undo: who is God
        (and the prophet, and sudden death, once they are), then whose turn it is or whose
        verdict on the play lying on the table. Never a hand nor the rule."""
        if state.phase is Phase.OVER:
            return []
        opts = state.options
        level = None if opts.level is None else opts.level.value
        events = [
            Event("god_is", {"god": opts.god.value, "god_seat": opts.god_seat, "level": level})
        ]
        if state.prophet is not None:
            events.append(Event("prophet_standing", {"seat": state.prophet.seat}))
        if state.sudden_death:
            events.append(Event("sudden_death_standing", {"played": state.played}))
        pending = state.pending
        if state.phase is Phase.STARTER:
            if state.turned is not None:
                events.append(Event("starter_turned", {"card": state.turned.to_json()}))
            events.extend(self._awaiting_starter(state))
        elif state.phase is Phase.PLAY:
            events.append(Event("turn", {"seat": state.turn}))
        elif pending is not None:
            shown = {"seat": pending.seat, "cards": cards_json(pending.cards)}
            kind = "no_play" if pending.no_play else "play_pending"
            events.append(Event(kind, {**shown, "count": len(pending.cards)}))
            prophet = state.prophet
            if state.phase is Phase.REVIEW and prophet is not None:
                accepted = bool(pending.prophet_accepted)
                card = pending.prophet_card
                events.append(
                    self._verdict_event(pending, accepted, card, JudgeKind.PROPHET, prophet.seat)
                )
                review = {"prophet": prophet.seat, "accepted": accepted, "seat": state.god_seat}
                events.append(Event("review_awaited", review))
            else:
                judge = self.judge_now(state)
                if judge is not None:
                    by, seat = judge
                    events.append(Event("verdict_awaited", {"by": by.value, "seat": seat}))
        return events

    def _starter_accepted_event(self, state: EleusisState) -> Event:
        card = state.layout.line[0].card
        return Event(
            "starter_accepted",
            {"card": card.to_json(), "rank": card.rank, "first": self.first_player(state, card)},
        )

    def _awaiting_starter(self, state: EleusisState) -> list[Event]:
        if state.turned is None:
            return [Event("starter_awaited", {"deck": state.deck_size})]
        return [
            Event("card_turned", {"card": state.turned.to_json()}),
            Event("verdict_awaited", {"by": JudgeKind.GOD.value, "seat": state.god_seat}),
        ]

    @staticmethod
    def first_player(state: EleusisState, card: Card) -> int:
        """The r-th player after God starts, r the starter's rank, wrapping round."""
        seats = state.options.seats
        return seats[(card.rank - 1) % len(seats)]

    # -- what may be done ---------------------------------------------------------------------

    def companion_judges(self, state: EleusisState) -> bool:
        return state.rule is not None

    def judge_now(self, state: EleusisState) -> tuple[JudgeKind, int | None] | None:
        """Who must give a verdict now, and from which seat (None: God with no seat)."""
        if state.phase is Phase.STARTER and state.turned is not None:
            return JudgeKind.GOD, state.god_seat
        if state.phase is Phase.JUDGE:
            if state.prophet is not None:
                return JudgeKind.PROPHET, state.prophet.seat
            return JudgeKind.GOD, state.god_seat
        if state.phase is Phase.REVIEW:
            return JudgeKind.GOD, state.god_seat
        return None

    def prophet_refusal(self, state: EleusisState, seat: int) -> IllegalAction | None:
        """Why ``seat`` may not declare themself prophet now (None: they may)."""
        if state.phase is not Phase.PLAY:
            return IllegalAction("no_play_now", phase=state.phase.value)
        if seat not in state.options.seats:
            return IllegalAction("not_a_card_player", seat=seat)
        if seat not in (state.turn, state.just_played):
            return IllegalAction("prophet_on_own_turn", seat=seat)
        if state.prophet is not None:
            return IllegalAction("already_a_prophet", prophet=state.prophet.seat)
        if state.options.prophet_once and seat in state.fallen:
            return IllegalAction("prophet_only_once", seat=seat)
        if seat in state.eliminated:
            return IllegalAction("seat_eliminated", seat=seat)
        if state.layout.accepted >= PROPHET_BEFORE_ACCEPTED:
            return IllegalAction(
                "prophet_too_late", accepted=state.layout.accepted, limit=PROPHET_BEFORE_ACCEPTED
            )
        under = state.played_under_fallen
        if under is not None and under > PROPHET_AFTER_FALL:
            return IllegalAction(
                "prophet_fell_too_late",
                played=under,
                prophet=state.fallen[-1],
                limit=PROPHET_AFTER_FALL,
            )
        others = sum(1 for s in state.options.seats if s != seat and state.active(s))
        least = state.options.prophet_min_others
        if others < least:
            return IllegalAction("prophet_needs_players", seat=seat, others=others, least=least)
        return None

    def legal_actions(self, state: EleusisState, seat: int | None) -> Iterator[Action]:
        """Actions open to ``seat`` (None: the host, or God with no seat).

        Series of 2 to 4 cards come last and lazily (there can be very many: take what you
        need). With physical cards the companion does not know the hands: every single card is
        listed, series and no-plays (which need the real cards) are not.
        """
        if state.phase is Phase.OVER:
            return
        god = state.god_seat
        judge = self.judge_now(state)
        if state.phase is Phase.STARTER:
            if seat is None and state.turned is None and not state.options.digital:
                yield from (TurnCard(card) for card in ONE_DECK)
            if judge is not None and seat == judge[1] and not self.companion_judges(state):
                yield Judge(seat, True)
                yield Judge(seat, False)
        elif state.phase is Phase.PLAY and seat is not None:
            if seat == state.turn:
                yield from self._plays(state, seat)
            if self.prophet_refusal(state, seat) is None:
                yield DeclareProphet(seat)
        elif state.phase is Phase.JUDGE and judge is not None and seat == judge[1]:
            pending = state.pending
            assert pending is not None
            if judge[0] is JudgeKind.PROPHET:
                assert seat is not None
                yield ProphetJudge(seat, True)
                if pending.no_play:
                    shown = sort_cards(set(pending.cards))
                    yield from (ProphetJudge(seat, False, c) for c in shown)
                else:
                    yield ProphetJudge(seat, False)
            elif not self.companion_judges(state):
                yield Judge(seat, True)
                if pending.no_play:
                    yield from (Judge(seat, False, c) for c in sort_cards(set(pending.cards)))
                else:
                    yield Judge(seat, False)
        elif state.phase is Phase.REVIEW and seat == god and not self.companion_judges(state):
            pending = state.pending
            assert pending is not None
            yield Uphold(seat)
            if not pending.no_play:
                yield Overturn(seat)
            else:
                if pending.prophet_accepted is False:
                    yield Overturn(seat)
                for card in sort_cards(set(pending.cards)):
                    if card != pending.prophet_card:
                        yield Overturn(seat, card)
        if seat is not None and seat == god:
            yield AdmitMistake(seat)

    def _plays(self, state: EleusisState, seat: int) -> Iterator[Action]:
        if not state.options.digital:
            if state.sizes[seat] > 0:
                yield from (PlayCards(seat, (card,)) for card in ONE_DECK)
            return
        hand = state.hands[seat]
        for card in dict.fromkeys(hand):
            yield PlayCards(seat, (card,))
        yield NoPlay(seat)
        seen: set[tuple[Card, ...]] = set()
        for length in range(2, min(MAX_SERIES, len(hand)) + 1):
            for picked in itertools.permutations(range(len(hand)), length):
                series = tuple(hand[i] for i in picked)
                if series not in seen:
                    seen.add(series)
                    yield PlayCards(seat, series)

    # -- applying -----------------------------------------------------------------------------

    def apply(self, state: EleusisState, action: Action) -> Step:
        if state.phase is Phase.OVER:
            raise IllegalAction("game_over")
        if isinstance(action, TurnCard):
            return self._turn_card(state, action)
        if isinstance(action, PlayCards):
            return self._play(state, action)
        if isinstance(action, NoPlay):
            return self._no_play(state, action)
        if isinstance(action, DeclareProphet):
            return self._declare(state, action)
        if isinstance(action, Judge):
            return self._judge(state, action)
        if isinstance(action, ProphetJudge):
            return self._prophet_judge(state, action)
        if isinstance(action, (Overturn, Uphold)):
            return self._review(state, action)
        if isinstance(action, AdmitMistake):
            return self._admit(state, action)
        raise IllegalAction("unknown_action", kind=getattr(action, "kind", type(action).__name__))

    # -- the starter ----------------------------------------------------------------------------

    def _turn_next(self, state: EleusisState, events: list[Event]) -> Step:
        """Digital cards: God turns the deck's top card; the companion judges it at once."""
        while state.phase is Phase.STARTER:
            if not state.deck:
                return self._finish(state, Termination.BLOCKED, events)
            card, deck = state.deck[0], state.deck[1:]
            state = dataclasses.replace(state, deck=deck)
            events.append(Event("card_turned", {"card": card.to_json()}))
            if state.rule is None:
                events.append(
                    Event("verdict_awaited", {"by": JudgeKind.GOD.value, "seat": state.god_seat})
                )
                return dataclasses.replace(state, turned=card), events
            state = self._starter_verdict(state, card, state.rule.accepts((), card), events)
        return state, events

    def _turn_card(self, state: EleusisState, action: TurnCard) -> Step:
        if state.options.digital:
            raise IllegalAction("cards_are_digital")
        if state.phase is not Phase.STARTER:
            raise IllegalAction("starter_done")
        if state.turned is not None:
            raise IllegalAction("verdict_awaited", eleusis_card=state.turned.to_json())
        card = action.card
        state = dataclasses.replace(state, physical_deck=state.physical_deck - 1)
        events = [Event("card_turned", {"card": card.to_json()})]
        if state.rule is None:
            events.append(
                Event("verdict_awaited", {"by": JudgeKind.GOD.value, "seat": state.god_seat})
            )
            return dataclasses.replace(state, turned=card), events
        state = self._starter_verdict(state, card, state.rule.accepts((), card), events)
        return self._after_starter_card(state, events)

    def _after_starter_card(self, state: EleusisState, events: list[Event]) -> Step:
        if state.phase is not Phase.STARTER:
            return state, events
        if state.options.digital:
            return self._turn_next(state, events)
        if state.physical_deck <= 0:
            return self._finish(state, Termination.BLOCKED, events)
        events.append(Event("starter_awaited", {"deck": state.deck_size}))
        return state, events

    def _starter_verdict(
        self, state: EleusisState, card: Card, accepted: bool, events: list[Event]
    ) -> EleusisState:
        if not accepted:
            events.append(Event("starter_refused", {"card": card.to_json()}))
            return dataclasses.replace(state, layout=state.layout.refuse((card,), None))
        state = dataclasses.replace(state, layout=state.layout.accept((card,), None))
        first = self.first_player(state, card)
        events.append(self._starter_accepted_event(state))
        events.append(Event("turn", {"seat": first}))
        return dataclasses.replace(state, phase=Phase.PLAY, turn=first)

    # -- a turn ---------------------------------------------------------------------------------

    def _check_turn(self, state: EleusisState, seat: int) -> None:
        if not 0 <= seat < state.players:
            raise IllegalAction("no_such_seat", seat=seat, players=state.players)
        if state.phase is not Phase.PLAY:
            raise IllegalAction("no_play_now", phase=state.phase.value)
        if seat != state.turn:
            raise IllegalAction("not_your_turn", seat=seat, turn=state.turn)

    def _play(self, state: EleusisState, action: PlayCards) -> Step:
        seat, cards = action.seat, action.cards
        self._check_turn(state, seat)
        if not 1 <= len(cards) <= MAX_SERIES:
            raise IllegalAction("series_length", given=len(cards), most=MAX_SERIES)
        if state.options.digital:
            left = _without(state.hands[seat], cards)
            if left is None:
                missing = (Counter(cards) - Counter(state.hands[seat])).keys()
                raise IllegalAction(
                    "card_not_in_hand",
                    seat=seat,
                    eleusis_card=min(missing, key=card_key).to_json(),
                    private_to=seat,
                )
            state = self._set_hand(state, seat, left)
        else:
            if len(cards) > state.sizes[seat]:
                raise IllegalAction(
                    "not_enough_cards", seat=seat, hand=state.sizes[seat], given=len(cards)
                )
            state = self._set_size(state, seat, state.sizes[seat] - len(cards))
        pending = Pending(seat, tuple(cards), no_play=False, sudden_death=state.sudden_death)
        state = dataclasses.replace(state, pending=pending, just_played=None)
        events = [
            Event(
                "cards_played",
                {"seat": seat, "cards": cards_json(cards), "count": len(cards)},
            )
        ]
        return self._to_judge(state, events)

    def _no_play(self, state: EleusisState, action: NoPlay) -> Step:
        seat = action.seat
        self._check_turn(state, seat)
        if state.options.digital:
            if action.cards:
                raise IllegalAction("hand_shown_by_companion")
            shown = state.hands[seat]
        else:
            if len(action.cards) != state.sizes[seat]:
                raise IllegalAction(
                    "shown_hand_size", seat=seat, hand=state.sizes[seat], given=len(action.cards)
                )
            shown = sort_cards(action.cards)
        pending = Pending(seat, shown, no_play=True, sudden_death=state.sudden_death)
        state = dataclasses.replace(state, pending=pending, just_played=None)
        events = [Event("no_play", {"seat": seat, "cards": cards_json(shown), "count": len(shown)})]
        return self._to_judge(state, events)

    def _to_judge(self, state: EleusisState, events: list[Event]) -> Step:
        """Who judges the play on the table: the prophet, the companion's rule, or God."""
        pending = state.pending
        assert pending is not None
        if state.prophet is not None:
            events.append(
                Event(
                    "verdict_awaited",
                    {"by": JudgeKind.PROPHET.value, "seat": state.prophet.seat},
                )
            )
            return dataclasses.replace(state, phase=Phase.JUDGE), events
        if state.rule is not None:
            accepted, card = self._rule_verdict(state, pending)
            events.append(self._verdict_event(pending, accepted, card, JudgeKind.GOD, None))
            return self._settle(state, accepted, card, JudgeKind.GOD, False, events)
        events.append(Event("verdict_awaited", {"by": JudgeKind.GOD.value, "seat": state.god_seat}))
        return dataclasses.replace(state, phase=Phase.JUDGE), events

    def _rule_verdict(self, state: EleusisState, pending: Pending) -> tuple[bool, Card | None]:
        """The companion's verdict: (accepted, the card it plays out of a wrong no-play)."""
        rule = state.rule
        assert rule is not None
        line = state.layout.main
        if not pending.no_play:
            return series_accepted(rule, line, pending.cards), None
        card = first_playable(rule, line, pending.cards)
        return card is None, card

    @staticmethod
    def _verdict_event(
        pending: Pending, accepted: bool, card: Card | None, by: JudgeKind, judge: int | None
    ) -> Event:
        return Event(
            "verdict",
            {
                "seat": pending.seat,
                "cards": cards_json(pending.cards),
                "no_play": pending.no_play,
                "accepted": accepted,
                "by": by.value,
                "judge": judge,
                "card": None if card is None else card.to_json(),
            },
        )

    # -- verdicts -------------------------------------------------------------------------------

    def _check_god(self, state: EleusisState, seat: int | None) -> None:
        if self.companion_judges(state):
            raise IllegalAction("companion_judges")
        if seat != state.god_seat:
            raise IllegalAction("not_god", seat=seat, god=state.god_seat)

    @staticmethod
    def _check_card(pending: Pending, accepted: bool, card: Card | None) -> None:
        """A series' verdict names no card; a wrong no-play's names one of the hand shown."""
        if not pending.no_play:
            if card is not None:
                raise IllegalAction("card_only_for_wrong_no_play")
            return
        if accepted and card is not None:
            raise IllegalAction("card_only_for_wrong_no_play")
        if not accepted and card is None:
            raise IllegalAction("name_the_playable_card", seat=pending.seat)
        if card is not None and card not in pending.cards:
            raise IllegalAction("card_not_shown", seat=pending.seat, eleusis_card=card.to_json())

    def _judge(self, state: EleusisState, action: Judge) -> Step:
        self._check_god(state, action.seat)
        if state.phase is Phase.STARTER:
            card = state.turned
            if card is None:
                raise IllegalAction("nothing_to_judge", phase=state.phase.value)
            if action.card is not None:
                raise IllegalAction("card_only_for_wrong_no_play")
            events = [
                Event(
                    "starter_verdict",
                    {"card": card.to_json(), "accepted": action.accepted, "judge": action.seat},
                )
            ]
            state = dataclasses.replace(state, turned=None)
            state = self._starter_verdict(state, card, action.accepted, events)
            return self._after_starter_card(state, events)
        if state.phase is Phase.REVIEW:
            raise IllegalAction("overturn_or_uphold")
        if state.phase is not Phase.JUDGE:
            raise IllegalAction("nothing_to_judge", phase=state.phase.value)
        if state.prophet is not None:
            raise IllegalAction("prophet_judges", prophet=state.prophet.seat)
        pending = state.pending
        assert pending is not None
        self._check_card(pending, action.accepted, action.card)
        events = [
            self._verdict_event(pending, action.accepted, action.card, JudgeKind.GOD, action.seat)
        ]
        return self._settle(state, action.accepted, action.card, JudgeKind.GOD, False, events)

    def _prophet_judge(self, state: EleusisState, action: ProphetJudge) -> Step:
        prophet = state.prophet
        if state.phase is not Phase.JUDGE or prophet is None:
            raise IllegalAction("nothing_to_judge", phase=state.phase.value)
        if action.seat != prophet.seat:
            raise IllegalAction("not_the_prophet", seat=action.seat, prophet=prophet.seat)
        pending = state.pending
        assert pending is not None
        self._check_card(pending, action.accepted, action.card)
        events = [
            self._verdict_event(
                pending, action.accepted, action.card, JudgeKind.PROPHET, action.seat
            )
        ]
        pending = dataclasses.replace(
            pending, prophet_accepted=action.accepted, prophet_card=action.card
        )
        state = dataclasses.replace(state, pending=pending)
        if state.rule is None:
            events.append(
                Event(
                    "review_awaited",
                    {"prophet": prophet.seat, "accepted": action.accepted, "seat": state.god_seat},
                )
            )
            return dataclasses.replace(state, phase=Phase.REVIEW), events
        accepted, card = self._rule_verdict(state, pending)
        wrong_card = (
            pending.no_play
            and not action.accepted
            and action.card is not None
            and not state.rule.accepts(state.layout.main, action.card)
        )
        if accepted != action.accepted or wrong_card:
            return self._overturn(state, accepted, card, None, events)
        return self._settle(state, action.accepted, action.card, JudgeKind.PROPHET, False, events)

    def _review(self, state: EleusisState, action: Overturn | Uphold) -> Step:
        self._check_god(state, action.seat)
        if state.phase is not Phase.REVIEW:
            raise IllegalAction("nothing_to_review", phase=state.phase.value)
        pending = state.pending
        prophet = state.prophet
        assert pending is not None and pending.prophet_accepted is not None and prophet
        said = pending.prophet_accepted
        if isinstance(action, Uphold):
            events = [Event("upheld", {"prophet": prophet.seat, "seat": action.seat})]
            return self._settle(state, said, pending.prophet_card, JudgeKind.PROPHET, False, events)
        if not pending.no_play:
            if action.card is not None:
                raise IllegalAction("card_only_for_wrong_no_play")
            return self._overturn(state, not said, None, action.seat, [])
        accepted = action.card is None
        self._check_card(pending, accepted, action.card)
        if (accepted and said) or (not said and action.card == pending.prophet_card):
            raise IllegalAction("overturn_changes_nothing")
        return self._overturn(state, accepted, action.card, action.seat, [])

    def _overturn(
        self,
        state: EleusisState,
        accepted: bool,
        card: Card | None,
        seat: int | None,
        events: list[Event],
    ) -> Step:
        pending, prophet = state.pending, state.prophet
        assert pending is not None and prophet is not None
        events.append(
            Event(
                "overturned",
                {
                    "prophet": prophet.seat,
                    "seat": pending.seat,
                    "no_play": pending.no_play,
                    "accepted": accepted,
                    "card": None if card is None else card.to_json(),
                    "god": seat,
                },
            )
        )
        return self._settle(state, accepted, card, JudgeKind.GOD, True, events)

    # -- settling a play ------------------------------------------------------------------------

    def _settle(
        self,
        state: EleusisState,
        accepted: bool,
        card: Card | None,
        by: JudgeKind,
        overturned: bool,
        events: list[Event],
    ) -> Step:
        """The verdict that stands takes effect: cards placed, penalties, elimination, the fall
        of an overturned prophet, the end or the next turn."""
        pending = state.pending
        assert pending is not None
        opts = state.options
        seat = pending.seat
        before = state.sudden_death
        eliminated = pending.sudden_death and not accepted and not overturned
        owed = 0
        if not pending.no_play:
            position = state.layout.accepted
            if accepted:
                layout = state.layout.accept(pending.cards, seat)
                events.append(
                    Event(
                        "accepted",
                        {"seat": seat, "cards": cards_json(pending.cards), "position": position},
                    )
                )
            else:
                layout = state.layout.refuse(pending.cards, seat)
                events.append(
                    Event(
                        "refused",
                        {"seat": seat, "cards": cards_json(pending.cards), "below": position - 1},
                    )
                )
                owed = opts.penalties.refused * len(pending.cards)
            state = dataclasses.replace(
                state, layout=layout, played=state.played + len(pending.cards)
            )
        elif accepted:
            state = self._replace_hand(state, seat, events)
        else:
            assert card is not None
            state = self._god_plays(state, seat, card, by, events)
            owed = opts.penalties.wrong_no_play
        if not accepted and overturned:
            events.append(Event("protected", {"seat": seat}))
            owed = 0
        if eliminated:
            owed = 0
            state = dataclasses.replace(state, eliminated=(*state.eliminated, seat))
            events.append(Event("eliminated", {"seat": seat}))
        drawn = 0
        if owed:
            reason = "wrong_no_play" if pending.no_play else "refused"
            state, drawn = self._draw(state, seat, owed, reason, events)
        prophet = state.prophet
        verdict = Verdict(
            seat=seat,
            cards=pending.cards,
            no_play=pending.no_play,
            accepted=accepted,
            by=by,
            prophet=None if prophet is None else prophet.seat,
            prophet_accepted=pending.prophet_accepted,
            overturned=overturned,
            god_card=card,
            penalty=drawn,
            eliminated=eliminated,
        )
        state = dataclasses.replace(state, pending=None, last=verdict)
        if overturned:
            assert prophet is not None
            state = dataclasses.replace(
                state,
                prophet=None,
                fallen=(*state.fallen, prophet.seat),
                played_under_fallen=state.played - prophet.played_at,
            )
            events.append(Event("prophet_fallen", {"seat": prophet.seat}))
            state, _ = self._draw(
                state, prophet.seat, opts.penalties.fallen_prophet, "fallen_prophet", events
            )
        if not before and state.sudden_death:
            events.append(Event("sudden_death", {"played": state.played}))
        if state.sizes[seat] == 0:
            return self._finish(state, Termination.HAND_EMPTY, events)
        following = self._next_active(state, seat)
        if following is None:
            return self._finish(state, Termination.ALL_ELIMINATED, events)
        events.append(Event("turn", {"seat": following}))
        return (
            dataclasses.replace(
                state,
                phase=Phase.PLAY,
                turn=following,
                just_played=seat if state.active(seat) else None,
            ),
            events,
        )

    def _replace_hand(self, state: EleusisState, seat: int, events: list[Event]) -> EleusisState:
        """A correct no-play: the hand goes back into the deck and a smaller one is dealt."""
        old = state.sizes[seat]
        size = max(0, old - state.options.penalties.no_play_smaller)
        if state.options.digital:
            deck = [*state.deck, *state.hands[seat]]
            draws(state.seed, f"eleusis:shuffle:{state.shuffles}").shuffle(deck)
            hand = sort_cards(deck[:size])
            state = dataclasses.replace(state, deck=tuple(deck[size:]), shuffles=state.shuffles + 1)
            state = self._set_hand(state, seat, hand)
            events.append(
                Event("your_hand", {"cards": cards_json(hand), "count": size}, Audience.only(seat))
            )
        else:
            state = dataclasses.replace(state, physical_deck=state.physical_deck + old - size)
            state = self._set_size(state, seat, size)
        events.append(Event("hand_replaced", {"seat": seat, "before": old, "size": size}))
        return state

    def _god_plays(
        self, state: EleusisState, seat: int, card: Card, by: JudgeKind, events: list[Event]
    ) -> EleusisState:
        """A wrong no-play: God (or the prophet) plays a correct card out of the hand."""
        if state.options.digital:
            left = _without(state.hands[seat], (card,))
            assert left is not None
            state = self._set_hand(state, seat, left)
        else:
            state = self._set_size(state, seat, state.sizes[seat] - 1)
        position = state.layout.accepted
        events.append(
            Event(
                "god_plays",
                {"seat": seat, "card": card.to_json(), "position": position, "by": by.value},
            )
        )
        return dataclasses.replace(
            state,
            layout=state.layout.accept((card,), seat, from_no_play=True),
            played=state.played + 1,
        )

    def _draw(
        self, state: EleusisState, seat: int, owed: int, reason: str, events: list[Event]
    ) -> tuple[EleusisState, int]:
        """Penalty cards from the deck, as many as it still holds."""
        drawn = min(owed, state.deck_size)
        if state.options.digital:
            cards, deck = state.deck[:drawn], state.deck[drawn:]
            state = dataclasses.replace(state, deck=deck)
            state = self._set_hand(state, seat, (*state.hands[seat], *cards))
            events.append(
                Event(
                    "penalty_cards",
                    {"cards": cards_json(sort_cards(cards)), "reason": reason},
                    Audience.only(seat),
                )
            )
        else:
            state = dataclasses.replace(state, physical_deck=state.physical_deck - drawn)
            state = self._set_size(state, seat, state.sizes[seat] + drawn)
        events.append(
            Event("penalty", {"seat": seat, "owed": owed, "drawn": drawn, "reason": reason})
        )
        return state, drawn

    @staticmethod
    def _set_hand(state: EleusisState, seat: int, cards: Sequence[Card]) -> EleusisState:
        return dataclasses.replace(
            state,
            hands=_replace_at(state.hands, seat, sort_cards(cards)),
            sizes=_replace_at(state.sizes, seat, len(cards)),
        )

    @staticmethod
    def _set_size(state: EleusisState, seat: int, size: int) -> EleusisState:
        return dataclasses.replace(state, sizes=_replace_at(state.sizes, seat, size))

    @staticmethod
    def _next_active(state: EleusisState, seat: int) -> int | None:
        """The next card player clockwise after ``seat`` who still plays."""
        seats = state.options.seats
        start = seats.index(seat)
        for step in range(1, len(seats) + 1):
            candidate = seats[(start + step) % len(seats)]
            if state.active(candidate):
                return candidate
        return None

    # -- the prophet, God's mistake ---------------------------------------------------------------

    def _declare(self, state: EleusisState, action: DeclareProphet) -> Step:
        seat = action.seat
        if not 0 <= seat < state.players:
            raise IllegalAction("no_such_seat", seat=seat, players=state.players)
        refusal = self.prophet_refusal(state, seat)
        if refusal is not None:
            raise refusal
        layout = state.layout
        prophet = Prophet(
            seat,
            marker=layout.accepted - 1,
            accepted_at=layout.accepted,
            refused_at=layout.refused,
            played_at=state.played,
        )
        state = dataclasses.replace(state, prophet=prophet, just_played=None)
        events = [
            Event(
                "prophet_declared",
                {
                    "seat": seat,
                    "marker": prophet.marker,
                    "card": layout.line[-1].card.to_json(),
                    "hand": state.sizes[seat],
                },
            )
        ]
        if seat == state.turn:
            following = self._next_active(state, seat)
            assert following is not None
            state = dataclasses.replace(state, turn=following)
            events.append(Event("turn", {"seat": following}))
        return state, events

    def _admit(self, state: EleusisState, action: AdmitMistake) -> Step:
        if state.options.god is not God.HUMAN:
            raise IllegalAction("companion_makes_no_mistake")
        if action.seat != state.god_seat:
            raise IllegalAction("not_god", seat=action.seat, god=state.god_seat)
        pending = state.pending
        if pending is not None and not pending.no_play:
            if state.options.digital:
                hand = (*state.hands[pending.seat], *pending.cards)
                state = self._set_hand(state, pending.seat, hand)
            else:
                size = state.sizes[pending.seat] + len(pending.cards)
                state = self._set_size(state, pending.seat, size)
        turned = state.turned
        if turned is not None:  # not judged: back on top of the deck
            if state.options.digital:
                state = dataclasses.replace(state, deck=(turned, *state.deck))
            else:
                state = dataclasses.replace(state, physical_deck=state.physical_deck + 1)
        state = dataclasses.replace(state, pending=None, turned=None)
        events = [Event("mistake_admitted", {"seat": action.seat, "played": state.played})]
        return self._finish(state, Termination.GOD_MISTAKE, events)

    # -- the end --------------------------------------------------------------------------------

    def tally(self, state: EleusisState) -> ProphetTally | None:
        prophet = state.prophet
        if prophet is None:
            return None
        layout = state.layout
        return ProphetTally(
            prophet.seat,
            laid_accepted=layout.accepted - prophet.accepted_at,
            laid_refused=layout.refused - prophet.refused_at,
            laid_to_marker=prophet.laid_at,
        )

    def _finish(self, state: EleusisState, why: Termination, events: list[Event]) -> Step:
        opts = state.options
        if why is Termination.GOD_MISTAKE:
            scores = god_mistake(opts.players, opts.god_seat, state.played)
        elif why is Termination.BLOCKED:
            scores = no_score()
        else:
            prophet = None if state.prophet is None else state.prophet.seat
            hands = {s: state.sizes[s] for s in opts.seats if s != prophet}
            scores = final_scores(
                opts.players,
                opts.god_seat,
                hands,
                self.tally(state),
                god_takes_highest=opts.god_without_prophet is GodWithoutProphet.HIGHEST,
            )
        outcome = Outcome(",".join(str(s) for s in scores.winners), why)
        state = dataclasses.replace(
            state,
            phase=Phase.OVER,
            scores=scores,
            outcome=outcome,
            turn=None,
            turned=None,
            just_played=None,
            pending=None,
        )
        events.append(self._game_over_event(state))
        return state, events

    @staticmethod
    def _game_over_event(state: EleusisState) -> Event:
        assert state.outcome is not None and state.scores is not None
        return Event(
            "game_over",
            {
                **state.outcome.to_json(),
                **state.scores.to_json(),
                "rule": None if state.rule_info is None else state.rule_info.to_json(),
            },
        )

    def outcome(self, state: EleusisState) -> Outcome | None:
        return state.outcome

    # -- what the outside world may see ---------------------------------------------------------

    # -- records --------------------------------------------------------------------------------
