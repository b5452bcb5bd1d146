"""Oraklos, RULES.md §3: the standard game, Oraklos Junior and Antipodes.

The companion deals the wish cards (shuffled from the seed), keeps each player's cup filling
secret until the throw, receives the throw as read from the table, and referees every claim
with the geometry of ``predictions``: the table hears the reason of every verdict.

Where the rules are silent, this engine decides (and the tests hold it to it):

- *Dealing*: cards are dealt one seat at a time from the first player, up to three each. The game
  ends at once when a card must be drawn from an empty deck (a deck that runs out exactly on the
  last card needed lets the round be played). Antipodes likewise ends when a shared card cannot be
  replaced.
- *Filling the cup*: seats fill in turn, clockwise from the first player. What a seat put in is
  told to that seat only; the table sees who has filled and each supply as it was before filling.
  At the throw the cup's dice are on the table and every supply is in front of its owner again,
  so what each seat put in is public from then on (the public record keeps those fills).
- *Markers*: any marker still free may be taken, in any order; the search ends by itself when the
  third is taken, or when everyone agrees (``EndSearch``). Claims are scored 3, then 2, then 1.
- *Claims*: a claim naming other than four different dice of the throw is refused as a mistake
  of input (the state is untouched); a claim that names four dice is judged by ``check``: its
  verdict's code and parameters go into the event. Scores may go below zero.
- *End of a round*: the game ends after the round's last claim if anyone has 10 points or more;
  the dice are then not taken back. The best scorer of a round is the one with the most points
  won (net) in that round; ties go to the seat nearest the first player clockwise, the first
  player included.
- *Antipodes*: the companion referees a named card with ``find`` (holes are sacred): a true
  prediction found makes the namer lose 1 (the event shows it), else the namer scores 1. As the
  rulebook says ("Toutes les cartes sont défaussées et six nouvelles cartes sont piochées"),
  all six shared cards are then discarded and six new ones drawn, as they are when everyone
  agrees that all six have a prediction (the event then lists any card that in fact had none).
  The first to 5 wins at once. The first player (who throws) passes left after every throw.
- *Winner*: the highest score; equal highest scores share the victory (``Outcome.winner`` is the
  winning seats joined by commas, e.g. ``"0,2"``).
- *Throws and agreements* (``ThrowDice``, ``EndSearch``, ``AllFound``) belong to no seat: the
  camera or the host gives them. ``legal_actions(state, None)`` yields ``EndSearch`` and
  ``AllFound`` when they are allowed but never a throw, which is a chance outcome read from the
  table, not a choice.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from companion.game import JSON, Action, Audience, Event, IllegalAction, Outcome
from companion.games.oraklos.deck import ANTIPODES_CARDS, WISH_CARDS, canonical, mirror
from companion.games.oraklos.predictions import check, find, predictions
from companion.games.oraklos.state import (
    ACTIONS,
    COLORS,
    CUP_PER_ROUND,
    DICE_PER_COLOR,
    HAND_SIZE,
    LEFT_ON_TABLE,
    MARKERS,
    SHARED_CARDS,
    THROWN_EACH_ROUND,
    AllFound,
    Claim,
    EndSearch,
    FillCup,
    Hesitate,
    MarkerOnCard,
    Mode,
    NameCard,
    Options,
    OraklosState,
    Phase,
    Pool,
    ScoreLine,
    TakeBack,
    TakeMarker,
    Termination,
    ThrowDice,
)

Step = tuple[OraklosState, list[Event]]
T = TypeVar("T")


class Oraklos:
    title = "oraklos"
    actions: Mapping[str, type[Action]] = ACTIONS

    # -- setting up ---------------------------------------------------------------------------

    def new(self, options: Mapping[str, Any], seed: int) -> OraklosState:
        opts = Options.from_json(options)
        n = opts.players
        cards = list(ANTIPODES_CARDS if opts.mode is Mode.ANTIPODES else WISH_CARDS)
        random.Random(seed).shuffle(cards)
        standard = opts.mode is Mode.STANDARD
        state = OraklosState(
            options=opts,
            seed=seed,
            phase=Phase.THROW,
            round=0,
            first_player=opts.first_player,
            deck=tuple(cards),
            hands=((),) * n,
            shared=(),
            discards=(),
            scores=(0,) * n,
            ledger=(),
            supplies=(Pool.each(DICE_PER_COLOR[n]),) * n if standard else (),
            cup_base=Pool.each(LEFT_ON_TABLE if standard else THROWN_EACH_ROUND),
            fills=(None,) * n,
            table=(),
            on_table=Pool(),
            markers=(),
            scored=0,
            retrieval_order=(),
            retrieved=0,
            outcome=None,
        )
        state, _ = self._start_round(state, opts.first_player, [])
        return state

    def options_json(self, state: OraklosState) -> JSON:
        return state.options.to_json()

    def opening_events(self, state: OraklosState) -> list[Event]:
        """What the table is told of a game just set up (``new`` returns no events)."""
        nobody: tuple[tuple[str, ...], ...] = ((),) * state.players
        events = [self._round_event(state), self._dealt_event(state, nobody, ())]
        events.extend(self._turn_events(state))
        return events

    def total_dice(self, options: Options) -> int:
        """Every die in play: the players' own dice and the cup's (16 in Junior and Antipodes)."""
        if options.mode is not Mode.STANDARD:
            return THROWN_EACH_ROUND * len(COLORS)
        per_player = DICE_PER_COLOR[options.players] * len(COLORS)
        return options.players * per_player + LEFT_ON_TABLE * len(COLORS)

    # -- what may be done ---------------------------------------------------------------------

    def legal_actions(self, state: OraklosState, seat: int | None) -> Iterator[Action]:
        """Every action the rules allow ``seat`` now (``None``: the table as a whole).

        The throw is a chance outcome read from the table, so it is never listed.
        """
        if state.phase is Phase.FILL and seat is not None and seat == state.filler:
            k = CUP_PER_ROUND[state.players]
            for pool in _pools_within(state.supplies[seat], k):
                yield FillCup.of(seat, pool)
        elif state.phase is Phase.SEARCH:
            if seat is None:
                yield EndSearch()
            elif 0 <= seat < state.players:
                taken = {m.marker for m in state.markers}
                marked = {m.card for m in state.markers}
                for marker in MARKERS:
                    if marker in taken:
                        continue
                    for card in state.hands[seat]:
                        if card not in marked:
                            yield TakeMarker(seat, marker, card)
        elif state.phase is Phase.SCORE:
            claimant = state.claimant
            if claimant is not None and seat == claimant.seat:
                yield Hesitate(seat)
                for four in itertools.combinations(range(len(state.table)), 4):
                    yield Claim(seat, four)
        elif state.phase is Phase.RETRIEVE and seat is not None and seat == state.retriever:
            for pool in _pools_within(state.on_table, CUP_PER_ROUND[state.players]):
                yield TakeBack.of(seat, pool)
        elif state.phase is Phase.NAME:
            if seat is None:
                yield AllFound()
            elif 0 <= seat < state.players:
                for card in state.shared:
                    yield NameCard(seat, card)

    # -- applying -----------------------------------------------------------------------------

    def apply(self, state: OraklosState, action: Action) -> Step:
        if state.phase is Phase.OVER:
            raise IllegalAction("game_over")
        if isinstance(action, FillCup):
            return self._fill(state, action)
        if isinstance(action, ThrowDice):
            return self._throw(state, action)
        if isinstance(action, TakeMarker):
            return self._take_marker(state, action)
        if isinstance(action, EndSearch):
            if state.phase is not Phase.SEARCH:
                raise IllegalAction("no_search_now", phase=state.phase.value)
            return self._end_search(state, [])
        if isinstance(action, Claim | Hesitate):
            return self._claim(state, action)
        if isinstance(action, TakeBack):
            return self._take_back(state, action)
        if isinstance(action, NameCard):
            return self._name_card(state, action)
        if isinstance(action, AllFound):
            return self._all_found(state)
        raise IllegalAction("unknown_action", kind=getattr(action, "kind", type(action).__name__))

    def _fill(self, state: OraklosState, action: FillCup) -> Step:
        if state.phase is not Phase.FILL:
            raise IllegalAction("no_filling_now", phase=state.phase.value)
        seat = action.seat
        self._check_seat(state, seat)
        if seat != state.filler:
            raise IllegalAction("not_your_turn_to_fill", seat=seat, turn=state.filler)
        pool = action.pool
        needed = CUP_PER_ROUND[state.players]
        self._check_counts(pool, needed)
        supply = state.supplies[seat]
        for color, count in pool.items():
            if count > supply.count(color):
                raise IllegalAction(
                    "not_your_dice",
                    seat=seat,
                    color=color.value,
                    have=supply.count(color),
                    asked=count,
                )
        after = dataclasses.replace(
            state,
            supplies=_replace_at(state.supplies, seat, supply - pool),
            fills=_replace_at(state.fills, seat, pool),
        )
        events = [
            Event("your_cup", {"seat": seat, "dice": pool.to_json()}, Audience.only(seat)),
            Event("cup_filled", {"seat": seat, "dice_in_cup": after.cup.total}),
        ]
        if after.filler is None:
            after = dataclasses.replace(after, phase=Phase.THROW)
        events.extend(self._turn_events(after))
        return after, events

    def _throw(self, state: OraklosState, action: ThrowDice) -> Step:
        if state.phase is not Phase.THROW:
            raise IllegalAction("no_throw_now", phase=state.phase.value)
        dice = action.dice
        seen = Pool.of(d.color for d in dice)
        cup = state.cup
        if seen != cup:
            differences = [
                {"color": c.value, "expected": cup.count(c), "seen": seen.count(c)}
                for c in COLORS
                if cup.count(c) != seen.count(c)
            ]
            first = differences[0]
            raise IllegalAction(
                "throw_does_not_match_cup",
                color=first["color"],
                expected=first["expected"],
                seen=first["seen"],
                differences=differences,
            )
        next_phase = Phase.NAME if state.mode is Mode.ANTIPODES else Phase.SEARCH
        after = dataclasses.replace(state, phase=next_phase, table=dice, on_table=seen)
        event = Event(
            "dice_thrown",
            {
                "thrower": state.first_player,
                "dice": [d.to_json() for d in dice],
                "counts": seen.to_json(),
                "holes": sum(d.hole for d in dice),
            },
        )
        return after, [event, *self._turn_events(after)]

    def _take_marker(self, state: OraklosState, action: TakeMarker) -> Step:
        if state.phase is not Phase.SEARCH:
            raise IllegalAction("no_search_now", phase=state.phase.value)
        seat = action.seat
        self._check_seat(state, seat)
        if action.marker not in MARKERS:
            raise IllegalAction("no_such_marker", marker=action.marker, markers=list(MARKERS))
        holder = next((m for m in state.markers if m.marker == action.marker), None)
        if holder is not None:
            raise IllegalAction("marker_already_taken", marker=action.marker, seat=holder.seat)
        card = _card_named(action.card)
        if card not in state.hands[seat]:
            raise IllegalAction("not_your_card", seat=seat, card=card)
        on_card = next((m for m in state.markers if m.card == card), None)
        if on_card is not None:
            raise IllegalAction("card_has_marker", card=card, marker=on_card.marker)
        taken = MarkerOnCard(action.marker, seat, card)
        after = dataclasses.replace(state, markers=(*state.markers, taken))
        events = [Event("marker_taken", {"seat": seat, "marker": action.marker, "card": card})]
        if len(after.markers) == len(MARKERS):
            return self._end_search(after, events)
        return after, events

    def _end_search(self, state: OraklosState, events: list[Event]) -> Step:
        events.append(
            Event(
                "search_over",
                {"claims": [_marker_json(m) for m in state.claims]},
            )
        )
        if not state.markers:
            return self._end_scoring(state, events)
        after = dataclasses.replace(state, phase=Phase.SCORE, scored=0)
        events.extend(self._turn_events(after))
        return after, events

    def _claim(self, state: OraklosState, action: Claim | Hesitate) -> Step:
        if state.phase is not Phase.SCORE:
            raise IllegalAction("no_claim_now", phase=state.phase.value)
        claimant = state.claimant
        assert claimant is not None
        self._check_seat(state, action.seat)
        if action.seat != claimant.seat:
            raise IllegalAction(
                "not_your_claim", seat=action.seat, claimant=claimant.seat, marker=claimant.marker
            )
        data: dict[str, Any] = {
            "seat": claimant.seat,
            "marker": claimant.marker,
            "card": claimant.card,
        }
        if isinstance(action, Hesitate):
            valid = False
            cause = "hesitation"
            data.update(hesitated=True, dice=[], valid=False, rule=None, code="hesitation")
            data["params"] = {}
        else:
            indices = self._check_four(state, action.dice)
            verdict = check(
                state.table,
                indices,
                claimant.card,
                either_direction=state.options.either_direction,
                holes_allowed=state.options.holes_allowed,
            )
            valid = bool(verdict.valid)
            cause = "claim"
            data.update(
                hesitated=False,
                dice=list(indices),
                valid=valid,
                rule=None if verdict.rule is None else verdict.rule.value,
                code=verdict.code,
                params=dict(verdict.params),  # JSON values, says ``Verdict``
            )
        points = claimant.marker if valid else -claimant.marker
        line = ScoreLine(state.round, claimant.seat, points, cause, claimant.card, claimant.marker)
        after = self._score(state, line)
        hand = tuple(c for c in state.hands[claimant.seat] if c != claimant.card)
        after = dataclasses.replace(
            after,
            hands=_replace_at(after.hands, claimant.seat, hand),
            discards=(*after.discards, claimant.card),
            scored=state.scored + 1,
        )
        data.update(points=points, score=after.scores[claimant.seat], discarded=claimant.card)
        events = [Event("claim_result", data)]
        if after.scored == len(after.markers):
            return self._end_scoring(after, events)
        events.extend(self._turn_events(after))
        return after, events

    def _end_scoring(self, state: OraklosState, events: list[Event]) -> Step:
        events.append(
            Event(
                "round_scored",
                {
                    "round": state.round,
                    "points": list(state.round_points),
                    "scores": list(state.scores),
                },
            )
        )
        if max(state.scores) >= state.options.winning_score:
            return self._finish(state, Termination.TARGET_REACHED, events)
        if state.mode is Mode.JUNIOR:
            return self._next_round(state, events)
        order = retrieval_order(state.round_points, state.first_player)
        after = dataclasses.replace(state, phase=Phase.RETRIEVE, retrieval_order=order, retrieved=0)
        events.append(
            Event(
                "retrieval_order",
                {"order": list(order), "best": order[0], "points": list(state.round_points)},
            )
        )
        events.extend(self._turn_events(after))
        return after, events

    def _take_back(self, state: OraklosState, action: TakeBack) -> Step:
        if state.phase is not Phase.RETRIEVE:
            raise IllegalAction("no_retrieval_now", phase=state.phase.value)
        seat = action.seat
        self._check_seat(state, seat)
        if seat != state.retriever:
            raise IllegalAction("not_your_turn_to_take_back", seat=seat, turn=state.retriever)
        pool = action.pool
        self._check_counts(pool, CUP_PER_ROUND[state.players])
        for color, count in pool.items():
            if count > state.on_table.count(color):
                raise IllegalAction(
                    "not_on_table", color=color.value, left=state.on_table.count(color), asked=count
                )
        after = dataclasses.replace(
            state,
            supplies=_replace_at(state.supplies, seat, state.supplies[seat] + pool),
            on_table=state.on_table - pool,
            retrieved=state.retrieved + 1,
        )
        events = [Event("dice_taken_back", {"seat": seat, "dice": pool.to_json()})]
        if after.retrieved < state.players:
            events.extend(self._turn_events(after))
            return after, events
        left = after.on_table
        after = dataclasses.replace(after, cup_base=left, on_table=Pool(), table=())
        events.append(Event("cup_refilled", {"dice": left.to_json()}))
        return self._next_round(after, events)

    def _name_card(self, state: OraklosState, action: NameCard) -> Step:
        if state.phase is not Phase.NAME:
            raise IllegalAction("no_naming_now", phase=state.phase.value)
        seat = action.seat
        self._check_seat(state, seat)
        card = _card_named(action.card)
        if card not in state.shared:
            raise IllegalAction("not_a_shared_card", card=card, shared=list(state.shared))
        prediction = find(
            state.table,
            card,
            either_direction=state.options.either_direction,
            holes_allowed=state.options.holes_allowed,
        )
        points = 1 if prediction is None else -1
        after = self._score(state, ScoreLine(state.round, seat, points, "naming", card))
        event = Event(
            "card_named",
            {
                "seat": seat,
                "card": card,
                "prediction": None if prediction is None else prediction.to_json(),
                "points": points,
                "score": after.scores[seat],
            },
        )
        return self._end_antipodes_round(after, [event])

    def _all_found(self, state: OraklosState) -> Step:
        if state.phase is not Phase.NAME:
            raise IllegalAction("no_naming_now", phase=state.phase.value)
        made = {p.card for p in predictions(state.table, holes_allowed=state.options.holes_allowed)}
        either = state.options.either_direction
        missed = [
            card
            for card in state.shared
            if card not in made and not (either and mirror(card) in made)
        ]
        return self._end_antipodes_round(state, [Event("all_found", {"missed": missed})])

    def _end_antipodes_round(self, state: OraklosState, events: list[Event]) -> Step:
        if max(state.scores) >= state.options.winning_score:
            return self._finish(state, Termination.TARGET_REACHED, events)
        events.append(Event("cards_discarded", {"cards": list(state.shared)}))
        after = dataclasses.replace(
            state, shared=(), discards=(*state.discards, *state.shared), table=(), on_table=Pool()
        )
        return self._next_round(after, events)

    # -- rounds -------------------------------------------------------------------------------

    def _next_round(self, state: OraklosState, events: list[Event]) -> Step:
        first = (state.first_player + 1) % state.players
        events.append(Event("first_player", {"seat": first}))
        return self._start_round(state, first, events)

    def _start_round(self, state: OraklosState, first: int, events: list[Event]) -> Step:
        """Deal (each seat up to three cards from the first player, or six shared cards), then
        wait for the cup to be filled or the dice to be thrown."""
        n = state.players
        deck = list(state.deck)
        hands = [list(h) for h in state.hands]
        shared = list(state.shared)
        exhausted = False
        if state.mode is Mode.ANTIPODES:
            while len(shared) < SHARED_CARDS and deck:
                shared.append(deck.pop(0))
            exhausted = len(shared) < SHARED_CARDS
        else:
            for i in range(n):
                hand = hands[(first + i) % n]
                while len(hand) < HAND_SIZE and deck:
                    hand.append(deck.pop(0))
                if len(hand) < HAND_SIZE:
                    exhausted = True
                    break
        standard = state.mode is Mode.STANDARD
        after = dataclasses.replace(
            state,
            phase=Phase.FILL if standard else Phase.THROW,
            round=state.round + 1,
            first_player=first,
            deck=tuple(deck),
            hands=tuple(tuple(h) for h in hands),
            shared=tuple(shared),
            fills=(None,) * n,
            table=(),
            on_table=Pool(),
            markers=(),
            scored=0,
            retrieval_order=(),
            retrieved=0,
        )
        events.append(self._round_event(after))
        events.append(self._dealt_event(after, state.hands, state.shared))
        if exhausted:
            events.append(Event("deck_exhausted", {"round": after.round}))
            return self._finish(after, Termination.DECK_EXHAUSTED, events)
        events.extend(self._turn_events(after))
        return after, events

    def _round_event(self, state: OraklosState) -> Event:
        return Event("round_started", {"round": state.round, "first_player": state.first_player})

    def _dealt_event(
        self,
        state: OraklosState,
        hands_before: Sequence[Sequence[str]],
        shared_before: Sequence[str],
    ) -> Event:
        if state.mode is Mode.ANTIPODES:
            new = [c for c in state.shared if c not in shared_before]
            return Event(
                "cards_dealt", {"shared": list(state.shared), "new": new, "deck": len(state.deck)}
            )
        dealt = [
            {"seat": seat, "cards": [c for c in hand if c not in hands_before[seat]]}
            for seat, hand in enumerate(state.hands)
        ]
        return Event(
            "cards_dealt",
            {"hands": [list(h) for h in state.hands], "dealt": dealt, "deck": len(state.deck)},
        )

    def _turn_events(self, state: OraklosState) -> list[Event]:
        """Whose turn it is, said when it changes."""
        if state.phase is Phase.FILL:
            return [
                Event("fill_turn", {"seat": state.filler, "count": CUP_PER_ROUND[state.players]})
            ]
        if state.phase is Phase.THROW:
            return [
                Event("throw_awaited", {"thrower": state.first_player, "dice": state.cup.total})
            ]
        if state.phase is Phase.SEARCH:
            return [Event("search_started", {"markers": list(MARKERS)})]
        if state.phase is Phase.SCORE:
            claimant = state.claimant
            assert claimant is not None
            return [Event("claim_turn", _marker_json(claimant))]
        if state.phase is Phase.RETRIEVE:
            return [
                Event(
                    "retrieval_turn",
                    {"seat": state.retriever, "count": CUP_PER_ROUND[state.players]},
                )
            ]
        if state.phase is Phase.NAME:
            return [Event("naming_started", {"shared": list(state.shared)})]
        return []

    def _finish(self, state: OraklosState, why: Termination, events: list[Event]) -> Step:
        best = max(state.scores)
        winners = [s for s, score in enumerate(state.scores) if score == best]
        outcome = Outcome(",".join(str(s) for s in winners), why)
        after = dataclasses.replace(state, phase=Phase.OVER, outcome=outcome)
        events.append(
            Event(
                "game_over", {**outcome.to_json(), "winners": winners, "scores": list(state.scores)}
            )
        )
        return after, events

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _score(state: OraklosState, line: ScoreLine) -> OraklosState:
        scores = _replace_at(state.scores, line.seat, state.scores[line.seat] + line.points)
        return dataclasses.replace(state, scores=scores, ledger=(*state.ledger, line))

    @staticmethod
    def _check_seat(state: OraklosState, seat: int) -> None:
        if not 0 <= seat < state.players:
            raise IllegalAction("no_such_seat", seat=seat, players=state.players)

    @staticmethod
    def _check_counts(pool: Pool, needed: int) -> None:
        for color, count in pool.items():
            if count < 0:
                raise IllegalAction("negative_count", color=color.value, count=count)
        if pool.total != needed:
            raise IllegalAction("wrong_number_of_dice", given=pool.total, needed=needed)

    @staticmethod
    def _check_four(state: OraklosState, indices: tuple[int, ...]) -> tuple[int, ...]:
        if len(indices) != 4:
            raise IllegalAction("not_four_dice", count=len(indices))
        for index in indices:
            if not 0 <= index < len(state.table):
                raise IllegalAction("no_such_die", die=index, last=len(state.table) - 1)
        if len(set(indices)) != 4:
            raise IllegalAction(
                "die_repeated", die=next(i for i in indices if indices.count(i) > 1)
            )
        return indices

    # -- what the outside world may see ---------------------------------------------------------

    def outcome(self, state: OraklosState) -> Outcome | None:
        return state.outcome

    def public_view(self, state: OraklosState) -> JSON:
        """Everything the table can see. Never what a seat put in the cup before the throw:
        until then each seat's supply is shown as it was before filling."""
        thrown = bool(state.table)
        supplies = [
            (supply if thrown or fill is None else supply + fill).to_json()
            for supply, fill in zip(state.supplies, state.fills, strict=False)
        ]
        taken = {m.marker for m in state.markers}
        claimant = state.claimant
        return {
            "game": self.title,
            "players": state.players,
            "options": state.options.to_json(),
            "mode": state.mode.value,
            "phase": state.phase.value,
            "round": state.round,
            "first_player": state.first_player,
            "turn": self._turn(state),
            "scores": list(state.scores),
            "round_points": list(state.round_points),
            "winning_score": state.options.winning_score,
            "hands": [list(h) for h in state.hands] if state.mode is not Mode.ANTIPODES else [],
            "shared": list(state.shared),
            "deck": len(state.deck),
            "discards": list(state.discards),
            "supplies": supplies,
            "cup": {
                "dice": 0 if thrown else state.cup.total,
                "base": None if thrown else state.cup_base.to_json(),
                "filled": [s for s, f in enumerate(state.fills) if f is not None]
                if state.mode is Mode.STANDARD
                else [],
                "per_player": CUP_PER_ROUND[state.players] if state.mode is Mode.STANDARD else 0,
            },
            "table": [{"index": i, **d.to_json()} for i, d in enumerate(state.table)],
            "on_table": state.on_table.to_json(),
            "markers": [_marker_json(m) for m in state.markers],
            "markers_left": [m for m in MARKERS if m not in taken]
            if state.phase is Phase.SEARCH
            else [],
            "claimant": None if claimant is None else _marker_json(claimant),
            "retrieval_order": list(state.retrieval_order),
            "ledger": [line.to_json() for line in state.ledger],
            "outcome": None if state.outcome is None else state.outcome.to_json(),
        }

    def private_view(self, state: OraklosState, seat: int) -> JSON:
        """A seat's own view: the public one plus what it put in the cup and its real supply."""
        view = self.public_view(state)
        view["seat"] = seat
        inside = 0 <= seat < state.players
        fill = state.fills[seat] if inside else None
        view["my_cup"] = None if fill is None else fill.to_json()
        has_supply = inside and state.mode is Mode.STANDARD
        view["my_supply"] = state.supplies[seat].to_json() if has_supply else None
        return view

    def public_record(
        self, actions: Sequence[Action], options: Mapping[str, Any], seed: int
    ) -> list[Action]:
        """The game's actions with no secret in them, for an exported record.

        A seat's cup filling is kept once the dice are thrown (every supply is then in front of
        its owner again, so the table can count what each put in), just before the throw; the
        fillings of a cup not yet thrown are left out.
        """
        state = self.new(options, seed)
        out: list[Action] = []
        pending: list[Action] = []
        for action in actions:
            before = state
            state, _ = self.apply(state, action)
            if isinstance(action, FillCup):
                pending.append(action)
                continue
            if isinstance(action, ThrowDice) and before.phase is Phase.THROW:
                out.extend(pending)
                pending = []
            out.append(action)
        return out

    @staticmethod
    def _turn(state: OraklosState) -> int | None:
        if state.phase is Phase.FILL:
            return state.filler
        if state.phase is Phase.THROW:
            return state.first_player
        if state.phase is Phase.SCORE:
            claimant = state.claimant
            return None if claimant is None else claimant.seat
        if state.phase is Phase.RETRIEVE:
            return state.retriever
        return None


def retrieval_order(points: Sequence[int], first_player: int) -> tuple[int, ...]:
    """The round's best scorer first, then clockwise; ties go to the seat nearest the first
    player clockwise, the first player included."""
    n = len(points)
    best = max(range(n), key=lambda s: (points[s], -((s - first_player) % n)))
    return tuple((best + i) % n for i in range(n))


def _pools_within(available: Pool, total: int) -> Iterator[Pool]:
    """Every way to take ``total`` dice from ``available``, by colour."""
    r, y, b, k = available.counts()
    for red in range(min(r, total) + 1):
        for yellow in range(min(y, total - red) + 1):
            for blue in range(min(b, total - red - yellow) + 1):
                black = total - red - yellow - blue
                if black <= k:
                    yield Pool(red, yellow, blue, black)


def _card_named(card: str) -> str:
    text = card.strip().upper()
    if len(text) != 4 or any(letter not in "RYBK" for letter in text):
        raise IllegalAction("no_such_card", card=card)
    return canonical(text)


def _marker_json(marker: MarkerOnCard) -> dict[str, Any]:
    return {"seat": marker.seat, "marker": marker.marker, "card": marker.card}


def _replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])
