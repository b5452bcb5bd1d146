"""Oraklos, RULES.md §3: the standard game, Oraklos Junior and Antipodes.

The companion deals the wish cards (shuffled from the game's secret seed, ``companion.chance``;
an exported record names the cards dealt instead, ``public_setup``), keeps each player's cup
filling secret until the throw, receives the throw as read from the table, and referees every
claim with the geometry of ``predictions``: the table hears the reason of every verdict.

Where the rules are silent, this engine decides (and the tests hold it to it):

- *Dealing*: cards are dealt one seat at a time from the first player, up to three each.
- *The draw pile runs out* ("Si la pioche de cartes est épuisée, la partie finit
  immédiatement", Envoi des espions): the pile is exhausted when drawing empties it, whether or
  not every hand is full again (the last card needed included). The game ends there, in the
  drawing phase: the round just dealt is not played (no dice thrown, no claim), the cards in
  hand score nothing, and the totals as they stand decide ("Le joueur avec le total de points le
  plus élevé gagne la partie"). Junior is "identique au jeu de base" here. Antipodes, whose
  rules say nothing of it, ends when six shared cards can no longer be laid out (its last six
  cards are played).
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
- *Winner*: the rulebook says it twice: "le premier joueur à marquer dix points ou plus gagne la
  partie" (its overview) and, in "Tour suivant", the phases are repeated "jusqu'à ce que
  quelqu'un ait marqué dix points ou plus ou jusqu'à toutes les cartes ont été épuisées. Le
  joueur avec le total de points le plus élevé gagne la partie." The engine keeps the second:
  it is the rule itself where the first is a summary, it is the only one that decides a game
  ended by the pile (where nobody need have 10), and it judges the round as a whole, so the
  order in which the markers 3, 2, 1 are checked does not decide who wins. So: the highest
  total when the game ends.
- *Antipodes*: the companion referees a named card with ``find`` (holes are sacred): a true
  prediction found makes the namer lose 1 (the event shows it), else the namer scores 1. As the
  rulebook says ("Toutes les cartes sont défaussées et six nouvelles cartes sont piochées"),
  all six shared cards are then discarded and six new ones drawn, as they are when everyone
  agrees that all six have a prediction (the event then lists any card that in fact had none).
  The first to 5 wins at once. The first player (who throws) passes left after every throw.
- *Ties* (the rulebook is silent; option ``ties``): by default (``shared``) equal highest totals
  share the victory (``Outcome.winner`` is the winning seats joined by commas, e.g. ``"0,2"``).
  With ``play_on``, a round that ends with 10 points reached but the highest total shared is
  followed by another (``tie_plays_on``), until one player alone has it; the pile running out
  still ends the game at once, and then the tied players share the victory. Antipodes cannot
  tie at 5 (one card is named at a time); a tie when its cards run out is shared.
- *Throws and agreements* (``ThrowDice``, ``EndSearch``, ``AllFound``) belong to no seat: the
  camera or the host gives them. ``legal_actions(state, None)`` yields ``EndSearch`` and
  ``AllFound`` when they are allowed but never a throw, which is a chance outcome read from the
  table, not a choice (nor cards drawn, ``DeckEmpty`` or a correction of the reading).

Played at a real table (options ``fills``, ``deck``, ``claims``; RULES.md §3 is the same game):

- *Fills "unseen"* (standard): the players fill the cup with their own hands. There is no fill
  and no retrieval phase and no supply is tracked; after the scores the table hears who takes
  dice back first (``retrieval_order``) and the next round starts at once. A reading is checked
  against what can be known: the number of dice thrown, and for each colour no more dice than
  exist in the game.
- *Deck "drawn"*: the players draw from their own deck; each round starts with ``DRAW``, where
  the host enters each seat's new cards (any seat order) or, in Antipodes, the shared cards. The
  companion counts the cards it has seen: when the round's drawing would empty the pile (no more
  cards left than the round needs), the game ends at once as it does with a dealt deck, without
  waiting for the cards; ``DeckEmpty`` ends it when the physical deck says so first. A round in
  which nobody needs a card has no ``DRAW``.
- *Claims "card"*: a claim with no dice asks the companion whether the claimant's card has a
  true prediction in the throw (``find``); the one found is shown. Dice named are still judged
  by ``check``, as with claims "shown".
- *Readings*: a throw that does not match the cup is kept, with its differences public
  (``mismatch``); the reading can be corrected (``CorrectDie``, ``RemoveDie``, ``AddDie``) or
  replaced (``ThrowDice`` again) until the first claim of the round is judged (Antipodes: until a
  card is named). While it does not match, nothing is scored (claims, hesitations, naming,
  ``AllFound`` wait), but markers may be taken and the search ended: the search is a race at the
  table. With fills "entered" the dice on the table are the cup's, whatever the camera saw.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from companion.chance import draws, on_top
from companion.game import JSON, Action, Audience, Event, IllegalAction, Outcome
from companion.games.oraklos.deck import ANTIPODES_CARDS, WISH_CARDS, canonical, mirror
from companion.games.oraklos.dice import Die
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
    AddDie,
    AllFound,
    Claim,
    Claims,
    CorrectDie,
    DeckEmpty,
    DrawCards,
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
    RemoveDie,
    RevealCards,
    ScoreLine,
    TakeBack,
    TakeMarker,
    Termination,
    ThrowDice,
    Ties,
    dice_on_table,
)
from companion.games.oraklos.views import OraklosViews

Step = tuple[OraklosState, list[Event]]
T = TypeVar("T")


class Oraklos(OraklosViews):
    title = "oraklos"
    actions: Mapping[str, type[Action]] = ACTIONS

    # -- setting up ---------------------------------------------------------------------------

    def new(self, options: Mapping[str, Any], seed: int) -> OraklosState:
        opts = Options.from_json(options)
        n = opts.players
        cards = self._shuffled(opts, seed)
        standard = opts.mode is Mode.STANDARD
        tracked = standard and not opts.unseen_fills  # supplies and the cup, by colour
        if standard:
            base = Pool.each(LEFT_ON_TABLE) if tracked else Pool()
        else:
            base = Pool.each(THROWN_EACH_ROUND)
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
            supplies=(Pool.each(DICE_PER_COLOR[n]),) * n if tracked else (),
            cup_base=base,
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

    @staticmethod
    def _shuffled(opts: Options, seed: int) -> list[str]:
        """The companion's deck before the first deal, top first: shuffled from the game's
        secret seed, under the cards ``dealt`` names (a record replayed without its seed)."""
        if opts.drawn:
            if opts.dealt:
                raise IllegalAction("record_draws_mismatch", option="dealt", draw=opts.dealt[0])
            return []
        cards = list(_deck_of(opts))
        draws(seed, "oraklos:deck").shuffle(cards)
        return on_top(cards, [_card_named(c) for c in opts.dealt], "dealt")

    def options_json(self, state: OraklosState) -> JSON:
        return state.options.to_json()

    def opening_events(self, state: OraklosState) -> list[Event]:
        """What the table is told of a game just set up (``new`` returns no events)."""
        nobody: tuple[tuple[str, ...], ...] = ((),) * state.players
        events = [self._round_event(state)]
        if not state.options.drawn:
            events.append(self._dealt_event(state, nobody, ()))
        events.extend(self._turn_events(state))
        return events

    def situation_events(self, state: OraklosState) -> list[Event]:
        """What the table awaits now, said again after a restart or the host's undo: the round
        and its first player, the scores once any has changed, the throw as read (with what
        does not match the cup) while it is judged, the markers taken, and whose turn it is.
        Public alone: never what a seat put in the cup."""
        if state.phase is Phase.OVER:
            return []
        events = [self._round_event(state)]
        if state.ledger:
            events.append(Event("scores_so_far", {"scores": list(state.scores)}))
        if state.options.unseen_fills and state.retrieval_order:
            order = state.retrieval_order  # till the throw, the dice are taken back by hand
            count = CUP_PER_ROUND[state.players]
            events.append(
                Event("retrieval_order", {"order": list(order), "best": order[0], "count": count})
            )
        if state.phase in (Phase.SEARCH, Phase.SCORE, Phase.NAME):
            reading = {"thrower": state.first_player, **self._reading_json(state)}
            events.append(Event("dice_thrown", reading))
        events.extend(self._turn_events(state))
        if state.phase is Phase.SEARCH:
            events.extend(Event("marker_taken", m.to_json()) for m in state.markers)
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
            if claimant is not None and seat == claimant.seat and not self.mismatch(state):
                yield Hesitate(seat)
                if state.options.claims is Claims.CARD:
                    yield Claim(seat)
                for four in itertools.combinations(range(len(state.table)), 4):
                    yield Claim(seat, four)
        elif state.phase is Phase.RETRIEVE and seat is not None and seat == state.retriever:
            for pool in _pools_within(state.on_table, CUP_PER_ROUND[state.players]):
                yield TakeBack.of(seat, pool)
        elif state.phase is Phase.NAME and not self.mismatch(state):
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
        if isinstance(action, DrawCards | RevealCards):
            return self._draw(state, action)
        if isinstance(action, DeckEmpty):
            if state.phase is not Phase.DRAW:
                raise IllegalAction("no_drawing_now", phase=state.phase.value)
            events = [Event("deck_exhausted", {"round": state.round})]
            return self._finish(state, Termination.DECK_EXHAUSTED, events)
        if isinstance(action, CorrectDie | RemoveDie | AddDie):
            return self._correct(state, action)
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
            self._check_correctable(state, "no_throw_now")
            after = self._with_reading(state, action.dice)
            return after, [Event("throw_reread", self._reading_json(after))]
        next_phase = Phase.NAME if state.mode is Mode.ANTIPODES else Phase.SEARCH
        after = self._with_reading(
            dataclasses.replace(state, phase=next_phase, retrieval_order=()), action.dice
        )
        event = Event("dice_thrown", {"thrower": state.first_player, **self._reading_json(after)})
        return after, [event, *self._turn_events(after)]

    def _correct(self, state: OraklosState, action: CorrectDie | RemoveDie | AddDie) -> Step:
        """A person fixes the camera's reading: a die confirmed or added has confidence 1."""
        self._check_correctable(state, "no_correction_now")
        if isinstance(action, AddDie):
            index = len(state.table)
            die = dataclasses.replace(action.die, confidence=1.0)
            dice = (*state.table, die)
            kind = "die_added"
        else:
            index = action.index
            if not 0 <= index < len(state.table):
                raise IllegalAction("no_such_die", die=index, last=len(state.table) - 1)
            if isinstance(action, CorrectDie):
                die = dataclasses.replace(
                    state.table[index], color=action.color, hole=action.hole, confidence=1.0
                )
                dice = _replace_at(state.table, index, die)
                kind = "die_corrected"
            else:
                die = state.table[index]
                dice = (*state.table[:index], *state.table[index + 1 :])
                kind = "die_removed"
        after = self._with_reading(state, dice)
        data = {"index": index, "die": die.to_json(), **self._reading_json(after)}
        return after, [Event(kind, data)]

    def _check_correctable(self, state: OraklosState, code: str) -> None:
        """The reading may change from the throw until the first claim is judged (Antipodes:
        until a card is named, which ends the round)."""
        if state.phase is Phase.SCORE and state.scored > 0:
            raise IllegalAction("reading_already_judged", scored=state.scored)
        if not self.correctable(state):
            raise IllegalAction(code, phase=state.phase.value)

    @staticmethod
    def correctable(state: OraklosState) -> bool:
        """Whether the reading of the throw may be corrected or replaced now."""
        if state.phase is Phase.SCORE:
            return state.scored == 0
        return state.phase in (Phase.SEARCH, Phase.NAME)

    def _with_reading(self, state: OraklosState, dice: tuple[Die, ...]) -> OraklosState:
        """The state with ``dice`` as the reading of the throw. The dice on the table are the
        cup's when the companion knows what was in it, else the reading's."""
        on_table = Pool.of(d.color for d in dice) if state.options.unseen_fills else state.cup
        return dataclasses.replace(state, table=dice, on_table=on_table)

    def _reading_json(self, state: OraklosState) -> dict[str, Any]:
        dice = state.table
        return {
            "dice": [d.to_json() for d in dice],
            "counts": Pool.of(d.color for d in dice).to_json(),
            "holes": sum(d.hole for d in dice),
            "mismatch": self.mismatch(state),
        }

    def mismatch(self, state: OraklosState) -> list[dict[str, Any]]:
        """How the reading of the throw differs from what the cup held (empty when it matches,
        or before the throw).

        Each difference is ``{"color", "bound", "expected", "seen"}``: ``bound`` "exactly"
        means ``expected`` dice of that colour were in the cup; with fills "unseen" only the
        number of dice thrown is known exactly (``color`` None) and, for each colour,
        ``expected`` is the most that exist in the game (``bound`` "at_most").
        """
        if not dice_on_table(state):
            return []
        seen = Pool.of(d.color for d in state.table)
        if not state.options.unseen_fills:
            cup = state.cup
            return [
                {"color": c.value, "bound": "exactly", "expected": cup.count(c), "seen": n}
                for c, n in seen.items()
                if n != cup.count(c)
            ]
        out: list[dict[str, Any]] = []
        total = self._dice_to_throw(state)
        if seen.total != total:
            out.append({"color": None, "bound": "exactly", "expected": total, "seen": seen.total})
        most = self.total_dice(state.options) // len(COLORS)
        out.extend(
            {"color": c.value, "bound": "at_most", "expected": most, "seen": n}
            for c, n in seen.items()
            if n > most
        )
        return out

    def _check_reading(self, state: OraklosState) -> None:
        """Scores come only from a reading that matches the cup: else the host corrects it."""
        differences = self.mismatch(state)
        if not differences:
            return
        first = differences[0]
        if first["color"] is None:
            raise IllegalAction(
                "throw_count_does_not_match",
                expected=first["expected"],
                seen=first["seen"],
                differences=differences,
            )
        if first["bound"] == "at_most":
            raise IllegalAction(
                "too_many_dice_of_a_color",
                color=first["color"],
                most=first["expected"],
                seen=first["seen"],
                differences=differences,
            )
        raise IllegalAction(
            "throw_does_not_match_cup",
            color=first["color"],
            expected=first["expected"],
            seen=first["seen"],
            differences=differences,
        )

    def _dice_to_throw(self, state: OraklosState) -> int:
        if state.options.unseen_fills:
            return LEFT_ON_TABLE * len(COLORS) + state.players * CUP_PER_ROUND[state.players]
        return state.cup.total

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
                {"claims": [m.to_json() for m in state.claims]},
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
        self._check_reading(state)
        data: dict[str, Any] = {
            "seat": claimant.seat,
            "marker": claimant.marker,
            "card": claimant.card,
            "by_card": False,
        }
        if isinstance(action, Hesitate):
            valid = False
            cause = "hesitation"
            data.update(hesitated=True, dice=[], valid=False, rule=None, code="hesitation")
            data.update(params={}, prediction=None)
        elif not action.dice and state.options.claims is Claims.CARD:
            found = find(
                state.table,
                claimant.card,
                either_direction=state.options.either_direction,
                holes_allowed=state.options.holes_allowed,
            )
            valid = found is not None
            cause = "claim"
            data.update(
                hesitated=False,
                by_card=True,
                dice=[] if found is None else list(found.dice),
                valid=valid,
                rule=None,
                code="valid" if valid else "no_true_prediction",
                params={},
                prediction=None if found is None else found.to_json(),
            )
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
                prediction=None if verdict.prediction is None else verdict.prediction.to_json(),
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
        after = dataclasses.replace(after, last_judgement=_judgement(state, "claim_result", data))
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
        best = max(state.scores)
        if best >= state.options.winning_score:
            leaders = [s for s, score in enumerate(state.scores) if score == best]
            if len(leaders) == 1 or state.options.ties is Ties.SHARED:
                return self._finish(state, Termination.TARGET_REACHED, events)
            events.append(Event("tie_plays_on", {"seats": leaders, "score": best}))
        if state.mode is Mode.JUNIOR:
            return self._next_round(state, events)
        order = retrieval_order(state.round_points, state.first_player)
        events.append(
            Event(
                "retrieval_order",
                {
                    "order": list(order),
                    "best": order[0],
                    "points": list(state.round_points),
                    "count": CUP_PER_ROUND[state.players],
                    "passes_to": (state.first_player + 1) % state.players,
                },
            )
        )
        if state.options.unseen_fills:  # the dice are taken back by hand, unseen: the order
            # stays on show until the next throw
            return self._next_round(dataclasses.replace(state, retrieval_order=order), events)
        after = dataclasses.replace(state, phase=Phase.RETRIEVE, retrieval_order=order, retrieved=0)
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
        self._check_reading(state)
        prediction = find(
            state.table,
            card,
            either_direction=state.options.either_direction,
            holes_allowed=state.options.holes_allowed,
        )
        points = 1 if prediction is None else -1
        after = self._score(state, ScoreLine(state.round, seat, points, "naming", card))
        data = {
            "seat": seat,
            "card": card,
            "prediction": None if prediction is None else prediction.to_json(),
            "points": points,
            "score": after.scores[seat],
        }
        after = dataclasses.replace(after, last_judgement=_judgement(state, "card_named", data))
        event = Event("card_named", data)
        return self._end_antipodes_round(after, [event])

    def _all_found(self, state: OraklosState) -> Step:
        if state.phase is not Phase.NAME:
            raise IllegalAction("no_naming_now", phase=state.phase.value)
        self._check_reading(state)
        made = {p.card for p in predictions(state.table, holes_allowed=state.options.holes_allowed)}
        either = state.options.either_direction
        missed = [
            card
            for card in state.shared
            if card not in made and not (either and mirror(card) in made)
        ]
        data = {"cards": list(state.shared), "missed": missed}
        after = dataclasses.replace(state, last_judgement=_judgement(state, "all_found", data))
        return self._end_antipodes_round(after, [Event("all_found", {"missed": missed})])

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
        wait for the cup to be filled or the dice to be thrown. With a drawn deck, wait for the
        cards drawn instead."""
        n = state.players
        if state.options.drawn:
            return self._start_drawing(state, first, events)
        deck = list(state.deck)
        hands = [list(h) for h in state.hands]
        shared = list(state.shared)
        exhausted = False
        if state.mode is Mode.ANTIPODES:
            while len(shared) < SHARED_CARDS and deck:
                shared.append(deck.pop(0))
            exhausted = len(shared) < SHARED_CARDS
        else:  # the pile is exhausted when it is empty after the drawing
            for i in range(n):
                hand = hands[(first + i) % n]
                while len(hand) < HAND_SIZE and deck:
                    hand.append(deck.pop(0))
            exhausted = not deck
        after = dataclasses.replace(
            _new_round(state, first),
            phase=self._phase_after_cards(state),
            deck=tuple(deck),
            hands=tuple(tuple(h) for h in hands),
            shared=tuple(shared),
        )
        events.append(self._round_event(after))
        events.append(self._dealt_event(after, state.hands, state.shared))
        if exhausted:
            events.append(Event("deck_exhausted", {"round": after.round}))
            return self._finish(after, Termination.DECK_EXHAUSTED, events)
        events.extend(self._turn_events(after))
        return after, events

    def _start_drawing(self, state: OraklosState, first: int, events: list[Event]) -> Step:
        after = dataclasses.replace(_new_round(state, first), phase=Phase.DRAW)
        events.append(self._round_event(after))
        if self._pile_runs_out(after):
            events.append(Event("deck_exhausted", {"round": after.round}))
            return self._finish(after, Termination.DECK_EXHAUSTED, events)
        if not any(self._to_draw(after)):  # nobody needs a card: no drawing this round
            after = dataclasses.replace(after, phase=self._phase_after_cards(after))
        events.extend(self._turn_events(after))
        return after, events

    def _draw(self, state: OraklosState, action: DrawCards | RevealCards) -> Step:
        if state.phase is not Phase.DRAW:
            raise IllegalAction("no_drawing_now", phase=state.phase.value)
        antipodes = state.mode is Mode.ANTIPODES
        if isinstance(action, DrawCards):
            if antipodes:
                raise IllegalAction("cards_are_shared")
            seat = action.seat
            self._check_seat(state, seat)
            hand = state.hands[seat]
            if len(hand) >= HAND_SIZE:
                raise IllegalAction("hand_already_full", seat=seat)
            cards = self._check_drawn(state, action.cards, HAND_SIZE - len(hand))
            after = dataclasses.replace(
                state, hands=_replace_at(state.hands, seat, (*hand, *cards))
            )
            data: dict[str, Any] = {
                "seat": seat,
                "cards": list(cards),
                "hand": list(after.hands[seat]),
            }
            kind = "cards_drawn"
        else:
            if not antipodes:
                raise IllegalAction("no_shared_cards")
            cards = self._check_drawn(state, action.cards, SHARED_CARDS - len(state.shared))
            after = dataclasses.replace(state, shared=(*state.shared, *cards))
            data = {"cards": list(cards), "shared": list(after.shared)}
            kind = "cards_revealed"
        data["deck"] = self.cards_left(after)
        events = [Event(kind, data)]
        if not any(self._to_draw(after)):  # every hand is full, or the six shared cards are out
            after = dataclasses.replace(after, phase=self._phase_after_cards(after))
            events.extend(self._turn_events(after))
        return after, events

    def _check_drawn(
        self, state: OraklosState, named: Sequence[str], needed: int
    ) -> tuple[str, ...]:
        """The cards named, in standard form: each a card of this deck, seen for the first time
        (each card exists once)."""
        if len(named) != needed:
            raise IllegalAction("wrong_number_of_cards", given=len(named), needed=needed)
        in_play = {c for hand in state.hands for c in hand} | set(state.shared)
        deck = set(_deck_of(state.options))
        cards: list[str] = []
        for text in named:
            card = _card_named(text)
            if card not in deck:
                raise IllegalAction("not_in_this_deck", card=card)
            if card in cards:
                raise IllegalAction("card_named_twice", card=card)
            if card in in_play:
                raise IllegalAction("card_already_in_play", card=card)
            if card in state.discards:
                raise IllegalAction("card_already_discarded", card=card)
            cards.append(card)
        return tuple(cards)

    def _pile_runs_out(self, state: OraklosState) -> bool:
        """Deck "drawn": whether this round's drawing exhausts the players' pile, which ends the
        game at once (it then waits for no card). Antipodes: whether six shared cards cannot be
        laid out."""
        needed = sum(self._to_draw(state))
        if state.mode is Mode.ANTIPODES:
            return self.cards_left(state) < needed
        return self.cards_left(state) <= needed

    @staticmethod
    def _to_draw(state: OraklosState) -> list[int]:
        """How many cards each seat needs to have three (Antipodes: one count, the shared
        cards needed to have six)."""
        if state.mode is Mode.ANTIPODES:
            return [SHARED_CARDS - len(state.shared)]
        return [HAND_SIZE - len(hand) for hand in state.hands]

    def cards_left(self, state: OraklosState) -> int:
        """The cards not yet drawn: the companion's deck, or, with a drawn deck, every card of
        the game not yet seen."""
        if not state.options.drawn:
            return len(state.deck)
        seen = len(state.discards) + len(state.shared) + sum(len(h) for h in state.hands)
        return len(_deck_of(state.options)) - seen

    @staticmethod
    def _phase_after_cards(state: OraklosState) -> Phase:
        if state.mode is Mode.STANDARD and not state.options.unseen_fills:
            return Phase.FILL
        return Phase.THROW

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
        if state.phase is Phase.DRAW:
            counts = self._to_draw(state)
            antipodes = state.mode is Mode.ANTIPODES
            needed = [] if antipodes else [{"seat": s, "count": c} for s, c in enumerate(counts)]
            return [
                Event(
                    "draw_started",
                    {
                        "needed": [n for n in needed if n["count"]],
                        "shared": counts[0] if antipodes else 0,
                        "deck": self.cards_left(state),
                    },
                )
            ]
        if state.phase is Phase.FILL:
            return [
                Event("fill_turn", {"seat": state.filler, "count": CUP_PER_ROUND[state.players]})
            ]
        if state.phase is Phase.THROW:
            each = CUP_PER_ROUND[state.players] if state.options.unseen_fills else 0
            return [
                Event(
                    "throw_awaited",
                    {
                        "thrower": state.first_player,
                        "dice": self._dice_to_throw(state),
                        "fill_each": each,
                    },
                )
            ]
        if state.phase is Phase.SEARCH:
            return [Event("search_started", {"markers": list(MARKERS)})]
        if state.phase is Phase.SCORE:
            claimant = state.claimant
            assert claimant is not None
            return [Event("claim_turn", claimant.to_json())]
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

    @staticmethod
    def _turn(state: OraklosState) -> int | None:
        """The seat the table waits for, if one (None while drawing, searching or naming)."""
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


def _deck_of(options: Options) -> tuple[str, ...]:
    return ANTIPODES_CARDS if options.mode is Mode.ANTIPODES else WISH_CARDS


def _card_named(card: str) -> str:
    text = card.strip().upper()
    if len(text) != 4 or any(letter not in "RYBK" for letter in text):
        raise IllegalAction("no_such_card", card=card)
    return canonical(text)


def _judgement(state: OraklosState, kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """A judged claim or named card for the public view: the event's data, the round, and the
    dice it is about (named, or the prediction found), with their places on the table."""
    prediction = data.get("prediction")
    indices = data.get("dice") or (prediction["dice"] if prediction else [])
    return {
        "kind": kind,
        "cause": "naming" if kind == "card_named" else None,
        "round": state.round,
        **data,
        "corners": [{"index": i, **state.table[i].to_json()} for i in indices],
    }


def _new_round(state: OraklosState, first: int) -> OraklosState:
    """The next round, ``first`` to play: no fill, die, marker or score of the last one (the
    order the dice came back in is kept when fills are unseen: it is the next round's order)."""
    return dataclasses.replace(
        state,
        round=state.round + 1,
        first_player=first,
        fills=(None,) * state.players,
        table=(),
        on_table=Pool(),
        markers=(),
        scored=0,
        retrieval_order=state.retrieval_order if state.options.unseen_fills else (),
        retrieved=0,
    )


def _replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])
