"""Ostrakon, RULES.md §2: philosophers ask two-answer questions and try to predict the majority.

The companion is the dealer: it shuffles the philosophers into the starting pile and the subject
cards (both from the game's secret seed, ``companion.chance``; an exported record names the pile
and the subjects drawn instead, ``public_setup``), moves the Sun, the Moon and the piles, and
keeps every tesson secret until the rules show it. A turn goes:

``QUESTION`` (the asker puts a question: ``Ask``) -> ``VOTE`` (everyone, the asker included,
lays a tesson: ``Vote``; a disciple may be claimed: ``ClaimDisciple``) -> the tessons are shown
as the Day Rule says -> the count moves the asker (and the disciple) -> the next turn.

- *Normal day*: when the last tesson is laid, all are shown together.
- *Corruption*: the asker's tesson is shown at once, then the asker names *k* philosophers
  (``NAME``): they show theirs, which then take the asker's colour; then the rest are shown.
- *Oracle*: the asker names *k* philosophers (``NAME``), who show their tessons; the asker keeps
  or turns their own, unseen (``FLIP``); then the rest are shown, the asker's included.
- *Tromperie*: all are shown; then the asker keeps or turns their own, in the open (``FLIP``).

Where the rules are silent, this engine decides (and the tests hold it to it):

- *Symbols*: which squares carry which special-day symbol is not in the seed; ``path.py`` holds
  this companion's default spread, and the option ``symbols`` sets a table's real path.
- *The question*: the companion cannot hear it, so the asker says when it is put (``Ask``, a
  press of the asker's button). Votes and disciple claims are refused before it.
- *Changing a vote*: a tesson may be changed as often as wanted while it lies face down, that is
  until the last philosopher has voted: the last vote shows the tessons (normal day and
  Tromperie) or starts the procedure of the day. Only the seat learns what it laid
  (``your_vote``); the table learns that it voted (``vote_in``).
- *Disciple*: "before all others have voted" means while at least one philosopher other than the
  asker has not voted. "Un joueur, et un seul (celui qui a été le premier à se définir
  « disciple » ; en cas de contestation c'est le joueur qui se trouve le plus loin de l'arrivée
  qui gagne)": the first accepted claim (``ClaimDisciple``) stands, and a later claim alone is
  refused (``disciple_taken``); claims made *together* are a contest (``ContestDisciple``, the
  claimants), won by the claimant on the lowest square, farthest from the Temple, whoever's
  claim reached the companion first. The engine has no clock, so "together" is decided outside
  it: the buttons' controls send a contest for a long press of A that comes within
  ``controls.TOGETHER`` seconds of the turn's first accepted claim, and the host names the
  claimants on the page. A contest keeps the claims standing in it (it must name one of them),
  and each new claimant must meet the three conditions; they came in time with the first claim,
  so "before all others have voted" is not asked of them again. The losers keep their olive
  branch. A philosopher under the Sun is on no square of the path and cannot be a disciple. The
  card is turned at the claim: a claim refused costs nothing. The disciple follows an advancing
  asker by the same number of squares, stopping on the Sun's square if it reaches it (on top of
  the illuminated pile: they ask next, having not asked yet this day, since they came from
  behind the Sun).
- *The Temple*: a philosopher who reaches it has left the path: the Sun only looks for piles on
  squares 1 to 16 (walking back, and at the end of a day), so those in the Temple ask no more and
  the Temple's pile only grows, first arrival at the bottom. They still vote. If everybody is in
  the Temple at the end of a day, nobody is left to ask and the game ends there.
- *Next asker*: announced as the philosopher who will be on top of the illuminated pile once the
  asker has left it: the second of the pile, or else the top of the pile the Sun will walk back
  to. When none is left, the day ends after this question and the next asker depends on its
  count: it is announced as unknown (``None``, with ``last_of_day`` true).
- *Subjects*: one card is discarded and one drawn for every question; when the deck is out, all
  the discards are shuffled together into a new deck ("mélangez à nouveau toutes ces cartes",
  ``subjects.py``).
- *Results*: the count is given as white and black tessons; once shown, a tesson is public (it
  lies face up in front of its owner), so revealed votes are shown by seat.

**Votes by camera** (option ``votes: "camera"``). The philosophers lay real tessons face down and
the companion knows nothing of them until they are turned face up, when the overhead camera reads
them (``desks/tessons.py``). The turn is the same, with the votes entered at reveal time:

``VOTE``: each philosopher says their tesson is down (``TessonLaid``, a press of either button),
or the host says so for the whole table (``VotesLaid``); a disciple may be claimed until then, on
the same condition (some philosopher other than the asker has not laid theirs). Then ``REVEAL``
steps, each entered as ``Revealed`` with exactly the tessons the rules show at that step:

- *normal day*, *Tromperie*: every tesson (then Tromperie's ``FLIP``, in the open);
- *Corruption*: the asker's; the naming (``NAME``); the named ones', which then take the
  asker's colour; the rest;
- *Oracle*: the naming (``NAME``); the named ones'; the rest, the asker's included. The asker
  keeps or turns their tesson on the table, unseen, before the rest are shown: there is no
  ``FLIP`` and the companion never learns whether it was turned, only the tesson shown.

The count and the moves are the same as with buttons. ``Vote`` is refused in this mode, and the
camera's actions in the other (``votes_by_camera`` / ``votes_by_buttons``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from companion.chance import draws
from companion.game import JSON, Action, Audience, Event, IllegalAction, Outcome
from companion.games.ostrakon.path import DayRule, Path
from companion.games.ostrakon.state import (
    ALL_ACTIONS,
    Ask,
    ClaimDisciple,
    ContestDisciple,
    Flip,
    Name,
    Options,
    OstrakonState,
    Phase,
    Revealed,
    RevealStep,
    Termination,
    Tesson,
    TessonLaid,
    TurnResult,
    Vote,
    VotesLaid,
    colour,
)
from companion.games.ostrakon.subjects import SubjectDeck
from companion.games.ostrakon.tables import TEMPLE, start_square
from companion.games.ostrakon.views import OstrakonViews

Step = tuple[OstrakonState, list[Event]]
T = TypeVar("T")


class Ostrakon(OstrakonViews):
    title = "ostrakon"
    actions: Mapping[str, type[Action]] = ALL_ACTIONS

    # -- setting up ---------------------------------------------------------------------------

    def new(self, options: Mapping[str, Any], seed: int) -> OstrakonState:
        opts = Options.from_json(options)
        n = opts.players
        square = start_square(n)
        deck = SubjectDeck.shuffled([s.id for s in opts.subject_cards], seed)
        subject, deck = deck.draw(seed, opts.subject_draws, 0)
        next_subject, deck = deck.draw(seed, opts.subject_draws, 1)
        return OstrakonState(
            options=opts,
            seed=seed,
            phase=Phase.QUESTION,
            path=Path.starting(square, self._pile(opts, seed)),
            sun=square,
            under_sun=(),
            moon=0,
            day_rule=DayRule.NORMAL,
            olive=(True,) * n,
            deck=deck,
            subject=subject,
            next_subject=next_subject,
            turn=1,
            votes=(None,) * n,
            shown=(False,) * n,
            disciple=None,
            named=(),
            last_result=None,
            outcome=None,
            laid=(False,) * n,
            reveal=None,
        )

    @staticmethod
    def _pile(opts: Options, seed: int) -> tuple[int, ...]:
        """The starting pile, top first: the option's, or shuffled from the game's seed."""
        if opts.pile is not None:
            return opts.pile
        order = list(range(opts.players))
        draws(seed, "ostrakon:pile").shuffle(order)
        return tuple(order)

    def options_json(self, state: OstrakonState) -> JSON:
        return state.options.to_json()

    def opening_events(self, state: OstrakonState) -> list[Event]:
        """What the table is told of a game just set up (``new`` returns no events)."""
        square = start_square(state.players)
        return [
            Event(
                "game_set_up",
                {
                    "square": square,
                    "pile": list(state.path.pile(square)),
                    "days": state.options.days,
                    "named_count": state.options.named,
                    "symbols": {str(q): r.value for q, r in state.options.symbols},
                },
            ),
            self._day_event(state),
            self.turn_event(state),
        ]

    # -- what may be done ---------------------------------------------------------------------

    def legal_actions(self, state: OstrakonState, seat: int | None) -> Iterator[Action]:
        """Every action the rules allow ``seat`` now. With votes by camera, the table as a whole
        (``seat`` None: the host, the camera) says the tessons are down and enters reveals."""
        if state.phase is Phase.OVER:
            return
        if seat is None:
            yield from self._table_actions(state)
            return
        if not 0 <= seat < state.players:
            return
        asker = state.asker
        if state.phase is Phase.QUESTION and seat == asker:
            yield Ask(seat)
        elif state.phase is Phase.VOTE:
            if not state.options.camera:
                yield Vote(seat, True)
                yield Vote(seat, False)
            elif not state.laid[seat]:
                yield TessonLaid(seat)
            if self.disciple_refusal(state, seat) is None:
                yield ClaimDisciple(seat)
            if state.claimants and seat in self.disciple_contenders(state):
                yield ContestDisciple(tuple(sorted((*state.claimants, seat))))
        elif state.phase is Phase.NAME and seat == asker:
            others = [s for s in range(state.players) if s != asker]
            for named in itertools.combinations(others, state.options.named):
                yield Name(seat, named)
        elif state.phase is Phase.FLIP and seat == asker:
            yield Flip(seat, False)
            yield Flip(seat, True)

    @staticmethod
    def _table_actions(state: OstrakonState) -> Iterator[Action]:
        if not state.options.camera:
            return
        if state.phase is Phase.VOTE:
            yield VotesLaid()
        elif state.phase is Phase.REVEAL:
            seats = state.expected
            for sides in itertools.product((True, False), repeat=len(seats)):
                yield Revealed(tuple(Tesson(s, w) for s, w in zip(seats, sides, strict=True)))

    def disciple_refusal(
        self, state: OstrakonState, seat: int, *, together: bool = False
    ) -> IllegalAction | None:
        """Why ``seat`` may not become the asker's disciple now, or None if it may.

        The three conditions of the rules are checked in their order: on top of one's pile, the
        olive branch still showing, behind the asker on the path. ``together``: a claim made
        together with those already standing (a contest), which came in time with them.
        """
        asker = state.asker
        if state.phase is Phase.QUESTION:
            return IllegalAction("question_not_asked", turn=asker)
        if state.phase is not Phase.VOTE:
            return IllegalAction("disciple_too_late", seat=seat)
        if not 0 <= seat < state.players:
            return IllegalAction("no_such_seat", seat=seat, players=state.players)
        if seat == asker:
            return IllegalAction("disciple_is_asker", seat=seat)
        if state.disciple is not None and not together:
            return IllegalAction("disciple_taken", seat=seat, claimant=state.disciple)
        if not together and all(state.has_voted(s) for s in range(state.players) if s != asker):
            return IllegalAction("disciple_too_late", seat=seat)
        square = state.path.square_of(seat)
        if square is None:
            return IllegalAction("disciple_under_sun", seat=seat)
        if state.path.top(square) != seat:
            return IllegalAction("disciple_not_on_top", seat=seat, square=square)
        if not state.olive[seat] and not (together and seat in state.claimants):
            return IllegalAction("disciple_used", seat=seat)
        if square >= state.sun:
            return IllegalAction(
                "disciple_not_behind", seat=seat, square=square, asker_square=state.sun
            )
        return None

    # -- applying -----------------------------------------------------------------------------

    def apply(self, state: OstrakonState, action: Action) -> Step:
        if state.phase is Phase.OVER:
            raise IllegalAction("game_over")
        if isinstance(action, Ask):
            return self._ask(state, action)
        if isinstance(action, Vote):
            return self._vote(state, action)
        if isinstance(action, ClaimDisciple):
            return self._claim(state, action)
        if isinstance(action, ContestDisciple):
            return self._contest(state, action)
        if isinstance(action, Name):
            return self._name(state, action)
        if isinstance(action, Flip):
            return self._flip(state, action)
        if isinstance(action, TessonLaid | VotesLaid):
            return self._laid(state, action)
        if isinstance(action, Revealed):
            return self._revealed(state, action)
        raise IllegalAction("unknown_action", kind=getattr(action, "kind", type(action).__name__))

    def _ask(self, state: OstrakonState, action: Ask) -> Step:
        if state.phase is not Phase.QUESTION:
            raise IllegalAction("no_question_now", phase=state.phase.value)
        self._check_asker(state, action.seat)
        after = dataclasses.replace(state, phase=Phase.VOTE)
        # whether anyone may become the disciple: told only then (the board shows it to all)
        disciple = any(self.disciple_refusal(after, s) is None for s in range(state.players))
        return after, [
            Event(
                "question_asked",
                {
                    "asker": action.seat,
                    "subject": state.subject,
                    "votes": state.options.votes.value,
                    "disciple": disciple,
                },
            ),
        ]

    def _vote(self, state: OstrakonState, action: Vote) -> Step:
        if state.phase is Phase.QUESTION:
            raise IllegalAction("question_not_asked", turn=state.asker)
        if state.phase is not Phase.VOTE:
            raise IllegalAction("no_vote_now", phase=state.phase.value)
        if state.options.camera:
            raise IllegalAction("votes_by_camera")
        seat = action.seat
        self._check_seat(state, seat)
        first_time = state.votes[seat] is None
        after = dataclasses.replace(state, votes=_replace_at(state.votes, seat, action.white))
        events = [
            Event("your_vote", {"seat": seat, "vote": colour(action.white)}, Audience.only(seat))
        ]
        if first_time:
            voted = sum(v is not None for v in after.votes)
            events.append(Event("vote_in", {"seat": seat, "voted": voted}))
        if any(v is None for v in after.votes):
            return after, events
        return self._close_vote(after, events)

    def _claim(self, state: OstrakonState, action: ClaimDisciple) -> Step:
        refusal = self.disciple_refusal(state, action.seat)
        if refusal is not None:
            raise refusal
        seat = action.seat
        after = dataclasses.replace(
            state, disciple=seat, olive=_replace_at(state.olive, seat, False), claimants=(seat,)
        )
        square = state.path.square_of(seat)
        return after, [
            Event("disciple_claimed", {"seat": seat, "asker": state.asker, "square": square})
        ]

    def disciple_contenders(self, state: OstrakonState) -> tuple[int, ...]:
        """The philosophers who may claim to be the disciple together with those whose claims
        stand (all who may claim, when none does): a ``ContestDisciple`` naming them is
        accepted."""
        if state.phase is not Phase.VOTE:
            return ()
        together = bool(state.claimants)
        return tuple(
            s
            for s in range(state.players)
            if s not in state.claimants
            and self.disciple_refusal(state, s, together=together) is None
        )

    def _contest(self, state: OstrakonState, action: ContestDisciple) -> Step:
        """Claims made together: "en cas de contestation c'est le joueur qui se trouve le plus
        loin de l'arrivée qui gagne". The claims standing stay in the contest; each new claimant
        must meet the three conditions; the one on the lowest square becomes the disciple (each
        claimant is on top of their own pile, so no two share a square). The others keep their
        olive branch."""
        seats = action.seats
        for seat in seats:
            self._check_seat(state, seat)
            if seats.count(seat) > 1:
                raise IllegalAction("philosopher_named_twice", seat=seat)
        standing = state.claimants
        new = tuple(s for s in seats if s not in standing)
        everyone = (*standing, *new)
        if len(everyone) < 2:
            raise IllegalAction("contest_needs_two", given=len(seats))
        if standing and not new:
            raise IllegalAction("contest_settled", seat=state.disciple)
        if standing and len(new) == len(seats):  # a claim after the one standing, not with it
            raise IllegalAction("disciple_taken", seat=new[0], claimant=state.disciple)
        for seat in new:
            refusal = self.disciple_refusal(state, seat, together=bool(standing))
            if refusal is not None:
                raise refusal
        squares = {s: state.path.square_of(s) for s in everyone}
        winner = min(everyone, key=lambda s: squares[s] or 0)
        olive = list(state.olive)
        for seat in everyone:
            olive[seat] = seat != winner
        after = dataclasses.replace(
            state, disciple=winner, olive=tuple(olive), claimants=tuple(sorted(everyone))
        )
        return after, [self._contested_event(after)]

    @staticmethod
    def _contested_event(state: OstrakonState) -> Event:
        disciple = state.disciple
        assert disciple is not None
        return Event(
            "disciple_contested",
            {
                "seats": list(state.claimants),
                "seat": disciple,
                "asker": state.asker,
                "square": state.path.square_of(disciple),
                "squares": [state.path.square_of(s) for s in state.claimants],
            },
        )

    def _close_vote(self, state: OstrakonState, events: list[Event]) -> Step:
        """Every tesson is laid: show them as the Day Rule says."""
        asker = state.asker
        assert asker is not None
        rule = state.day_rule
        events.append(Event("all_voted", {"asker": asker, "rule": rule.value}))
        if rule is DayRule.NORMAL:
            return self._resolve(*self._show_rest(state, events))
        if rule is DayRule.TROMPERIE:
            return self._await_tromperie_flip(*self._show_rest(state, events))
        if rule is DayRule.CORRUPTION:
            vote = state.votes[asker]
            assert vote is not None
            state = dataclasses.replace(state, shown=_replace_at(state.shown, asker, True))
            events.append(Event("asker_shows", {"asker": asker, "vote": colour(vote)}))
        after = dataclasses.replace(state, phase=Phase.NAME)
        events.append(
            Event(
                "name_awaited",
                {"asker": asker, "count": state.options.named, "rule": rule.value},
            )
        )
        return after, events

    @staticmethod
    def _await_tromperie_flip(state: OstrakonState, events: list[Event]) -> Step:
        """Every tesson is face up: the count so far is public, and the asker's to change."""
        asker = state.asker
        votes = [bool(v) for v in state.votes]
        events.append(
            Event(
                "flip_awaited",
                {
                    "asker": asker,
                    "rule": DayRule.TROMPERIE.value,
                    "white": sum(votes),
                    "black": len(votes) - sum(votes),
                },
            )
        )
        return dataclasses.replace(state, phase=Phase.FLIP), events

    def _name(self, state: OstrakonState, action: Name) -> Step:
        if state.phase is not Phase.NAME:
            raise IllegalAction("not_naming_now", phase=state.phase.value)
        asker = self._check_asker(state, action.seat)
        needed = state.options.named
        if len(action.named) != needed:
            raise IllegalAction("wrong_number_named", needed=needed, given=len(action.named))
        for seat in action.named:
            self._check_seat(state, seat)
            if seat == asker:
                raise IllegalAction("asker_names_self", seat=seat)
            if action.named.count(seat) > 1:
                raise IllegalAction("philosopher_named_twice", seat=seat)
        corruption = state.day_rule is DayRule.CORRUPTION
        if state.options.camera:  # the named tessons are read next
            after = dataclasses.replace(state, named=action.named)
            events = [
                Event(
                    "philosophers_named",
                    {
                        "asker": asker,
                        "rule": state.day_rule.value,
                        "named": list(action.named),
                        "tessons": [],
                        "corrupted": corruption,
                    },
                )
            ]
            return self._await_reveal(after, RevealStep.NAMED, events)
        votes = list(state.votes)
        shown = list(state.shown)
        tessons = []
        for seat in action.named:
            vote = votes[seat]
            assert vote is not None
            if corruption:
                votes[seat] = votes[asker]
            shown[seat] = True
            now = votes[seat]
            assert now is not None
            tessons.append({"seat": seat, "vote": colour(vote), "now": colour(now)})
        after = dataclasses.replace(
            state, votes=tuple(votes), shown=tuple(shown), named=action.named
        )
        events = [
            Event(
                "philosophers_named",
                {
                    "asker": asker,
                    "rule": state.day_rule.value,
                    "named": list(action.named),
                    "tessons": tessons,
                    "corrupted": corruption,
                },
            )
        ]
        if corruption:
            return self._resolve(*self._show_rest(after, events))
        events.append(Event("flip_awaited", {"asker": asker, "rule": state.day_rule.value}))
        return dataclasses.replace(after, phase=Phase.FLIP), events

    def _flip(self, state: OstrakonState, action: Flip) -> Step:
        if state.phase is not Phase.FLIP:
            raise IllegalAction("no_flip_now", phase=state.phase.value)
        asker = self._check_asker(state, action.seat)
        vote = state.votes[asker]
        assert vote is not None
        final = vote != action.flip
        after = dataclasses.replace(state, votes=_replace_at(state.votes, asker, final))
        data = {"seat": asker, "flip": action.flip, "vote": colour(final)}
        if state.day_rule is DayRule.ORACLE:  # the tesson is still hidden: so is the decision
            events = [
                Event("your_flip", data, Audience.only(asker)),
                Event("flip_decided", {"asker": asker}),
            ]
            return self._resolve(*self._show_rest(after, events))
        events = [
            Event("asker_flipped", {"asker": asker, "flip": action.flip, "vote": colour(final)})
        ]
        return self._resolve(after, events)

    def _show_rest(self, state: OstrakonState, events: list[Event]) -> Step:
        """Every tesson still face down is shown."""
        hidden = [s for s, shown in enumerate(state.shown) if not shown]
        after = dataclasses.replace(state, shown=(True,) * state.players)
        votes = [bool(v) for v in state.votes]
        events.append(
            Event(
                "votes_revealed",
                {
                    "votes": [colour(v) for v in votes],
                    "shown_now": hidden,
                    "white": sum(votes),
                    "black": len(votes) - sum(votes),
                },
            )
        )
        return after, events

    # -- votes by camera -------------------------------------------------------------------------

    def _laid(self, state: OstrakonState, action: TessonLaid | VotesLaid) -> Step:
        if state.phase is Phase.QUESTION:
            raise IllegalAction("question_not_asked", turn=state.asker)
        if state.phase is not Phase.VOTE:
            raise IllegalAction("no_vote_now", phase=state.phase.value)
        if not state.options.camera:
            raise IllegalAction("votes_by_buttons")
        if isinstance(action, VotesLaid):
            after = dataclasses.replace(state, laid=(True,) * state.players)
            return self._close_laying(after, [])
        seat = action.seat
        self._check_seat(state, seat)
        if state.laid[seat]:
            raise IllegalAction("tesson_already_laid", seat=seat)
        after = dataclasses.replace(state, laid=_replace_at(state.laid, seat, True))
        events = [Event("vote_in", {"seat": seat, "voted": sum(after.laid)})]
        if not all(after.laid):
            return after, events
        return self._close_laying(after, events)

    def _close_laying(self, state: OstrakonState, events: list[Event]) -> Step:
        """Every tesson lies face down: the reveal begins as the Day Rule says."""
        asker = state.asker
        assert asker is not None
        rule = state.day_rule
        events.append(Event("all_voted", {"asker": asker, "rule": rule.value}))
        if rule is DayRule.CORRUPTION:
            return self._await_reveal(state, RevealStep.ASKER, events)
        if rule is DayRule.ORACLE:
            return self._await_naming(state, events)
        return self._await_reveal(state, RevealStep.ALL, events)

    @staticmethod
    def _await_naming(state: OstrakonState, events: list[Event]) -> Step:
        events.append(
            Event(
                "name_awaited",
                {"asker": state.asker, "count": state.options.named, "rule": state.day_rule.value},
            )
        )
        return dataclasses.replace(state, phase=Phase.NAME, reveal=None), events

    @staticmethod
    def _await_reveal(state: OstrakonState, step: RevealStep, events: list[Event]) -> Step:
        after = dataclasses.replace(state, phase=Phase.REVEAL, reveal=step)
        events.append(
            Event(
                "reveal_awaited",
                {
                    "asker": state.asker,
                    "rule": state.day_rule.value,
                    "step": step.value,
                    "seats": list(after.expected),
                },
            )
        )
        return after, events

    def _revealed(self, state: OstrakonState, action: Revealed) -> Step:
        """The tessons of this step of the reveal, as read: exactly the expected ones."""
        if not state.options.camera:
            raise IllegalAction("votes_by_buttons")
        if state.phase is not Phase.REVEAL or state.reveal is None:
            raise IllegalAction("no_reveal_now", phase=state.phase.value)
        expected = state.expected
        given = [t.seat for t in action.tessons]
        for seat in given:
            self._check_seat(state, seat)
            if given.count(seat) > 1:
                raise IllegalAction("tesson_shown_twice", seat=seat)
            if seat not in expected:
                raise IllegalAction("tesson_not_expected", seat=seat)
        for seat in expected:
            if seat not in given:
                raise IllegalAction("tesson_missing", seat=seat)
        asker = state.asker
        assert asker is not None
        read = {t.seat: t.white for t in action.tessons}
        votes = list(state.votes)
        shown = list(state.shown)
        for seat in expected:
            votes[seat] = read[seat]
            shown[seat] = True
        step = state.reveal
        if step is RevealStep.ASKER:
            after = dataclasses.replace(state, votes=tuple(votes), shown=tuple(shown))
            events = [Event("asker_shows", {"asker": asker, "vote": colour(read[asker])})]
            return self._await_naming(after, events)
        if step is RevealStep.NAMED:
            corruption = state.day_rule is DayRule.CORRUPTION
            tessons = []
            for seat in state.named:
                if corruption:
                    votes[seat] = votes[asker]
                now = votes[seat]
                assert now is not None
                tessons.append({"seat": seat, "vote": colour(read[seat]), "now": colour(now)})
            after = dataclasses.replace(state, votes=tuple(votes), shown=tuple(shown))
            events = [
                Event(
                    "named_revealed",
                    {
                        "asker": asker,
                        "rule": state.day_rule.value,
                        "named": list(state.named),
                        "tessons": tessons,
                        "corrupted": corruption,
                    },
                )
            ]
            return self._await_reveal(after, RevealStep.REST, events)
        # REST or ALL: every tesson is now face up.
        before = dataclasses.replace(state, votes=tuple(votes), reveal=None)
        shown_now, events = self._show_rest(before, [])
        if state.day_rule is DayRule.TROMPERIE:
            return self._await_tromperie_flip(shown_now, events)
        return self._resolve(shown_now, events)

    # -- the count and what follows -------------------------------------------------------------

    def _resolve(self, state: OstrakonState, events: list[Event]) -> Step:
        """Count the tessons; move the asker forward or under the Sun, and the disciple."""
        asker = state.asker
        assert asker is not None
        votes = tuple(bool(v) for v in state.votes)
        others = state.players - 1
        same = sum(votes[s] == votes[asker] for s in range(state.players) if s != asker)
        contrary = others - same
        origin = state.sun
        path, under_sun = state.path, state.under_sun
        destination: int | None = None
        disciple_origin: int | None = None
        disciple_destination: int | None = None
        advanced = 2 * same >= others and contrary > 0
        if advanced:
            destination = min(origin + contrary, TEMPLE)
            path = path.landed(asker, destination)
            if state.disciple is not None:
                disciple_origin = path.square_of(state.disciple)
                assert disciple_origin is not None
                disciple_destination = min(disciple_origin + contrary, state.sun)
                path = path.landed(state.disciple, disciple_destination)
        else:
            path, under_sun = path.without(asker), (*under_sun, asker)
        result = TurnResult(
            turn=state.turn,
            day=state.day,
            rule=state.day_rule,
            asker=asker,
            subject=state.subject,
            votes=votes,
            others=others,
            same=same,
            contrary=contrary,
            advanced=advanced,
            origin=origin,
            destination=destination,
            disciple=state.disciple,
            disciple_origin=disciple_origin,
            disciple_destination=disciple_destination,
        )
        events.append(Event("turn_result", result.to_json()))
        after = dataclasses.replace(
            state,
            path=path,
            under_sun=under_sun,
            last_result=result,
            votes=(None,) * state.players,
            shown=(False,) * state.players,
            disciple=None,
            claimants=(),
            named=(),
            laid=(False,) * state.players,
            reveal=None,
        )
        return self._after_turn(after, events)

    def _after_turn(self, state: OstrakonState, events: list[Event]) -> Step:
        """The illuminated pile empty, the pile under the Sun goes back on the Sun's square and
        the Sun walks back to the next pile; finding none, the day ends."""
        if state.path.pile(state.sun):
            return self._next_turn(state, events)
        path = state.path
        if state.under_sun:
            path = path.placed(state.sun, state.under_sun)
            events.append(
                Event("under_sun_returned", {"square": state.sun, "pile": list(state.under_sun)})
            )
        state = dataclasses.replace(state, path=path, under_sun=())
        behind = path.pile_behind(state.sun)
        if behind is None:
            return self._end_day(state, events)
        events.append(Event("sun_moved", {"from": state.sun, "to": behind, "day_end": False}))
        return self._next_turn(dataclasses.replace(state, sun=behind), events)

    def _end_day(self, state: OstrakonState, events: list[Event]) -> Step:
        """1. the Sun to the leading pile; 2. the Moon covers one more moon; 3. the Day Rule."""
        leading = state.path.leading_square()
        sun = state.sun if leading is None else leading
        if sun != state.sun:
            events.append(Event("sun_moved", {"from": state.sun, "to": sun, "day_end": True}))
        day = state.day
        after = dataclasses.replace(state, sun=sun, moon=state.moon + 1)
        events.append(
            Event(
                "day_ended",
                {"day": day, "moons_covered": after.moon, "days": state.options.days},
            )
        )
        if after.moon >= state.options.days or leading is None:
            return self._finish(after, events)
        rule = state.options.symbol_map.get(sun, DayRule.NORMAL)
        after = dataclasses.replace(after, day_rule=rule)
        events.append(self._day_event(after))
        return self._next_turn(after, events)

    def _next_turn(self, state: OstrakonState, events: list[Event]) -> Step:
        """The subject just used is discarded, the next becomes current and one is drawn."""
        draw = state.turn + 1  # the game's draws so far: two at the start, one a turn since
        next_subject, deck = state.deck.discard(state.subject).draw(
            state.seed, state.options.subject_draws, draw
        )
        after = dataclasses.replace(
            state,
            phase=Phase.QUESTION,
            subject=state.next_subject,
            next_subject=next_subject,
            deck=deck,
            turn=state.turn + 1,
        )
        events.append(self.turn_event(after))
        return after, events

    def _finish(self, state: OstrakonState, events: list[Event]) -> Step:
        square = state.path.winning_square()
        assert square is not None
        winner = state.path.top(square)
        assert winner is not None
        why = Termination.VICTOIRE_SUPREME if square == TEMPLE else Termination.CALENDAR_COVERED
        outcome = Outcome(str(winner), why)
        after = dataclasses.replace(state, phase=Phase.OVER, outcome=outcome)
        events.append(
            Event(
                "game_over",
                {
                    **outcome.to_json(),
                    "seat": winner,
                    "square": square,
                    "temple": list(state.path.pile(TEMPLE)),
                    "calendar_covered": after.moon >= state.options.days,
                },
            )
        )
        return after, events

    # -- announcements ----------------------------------------------------------------------------

    def next_asker(self, state: OstrakonState) -> int | None:
        """Who asks after this question if nothing changes it (None: the day ends first)."""
        if state.phase is Phase.OVER:
            return None
        pile = state.path.pile(state.sun)
        if len(pile) > 1:
            return pile[1]
        behind = state.path.pile_behind(state.sun)
        return None if behind is None else state.path.top(behind)

    def last_of_day(self, state: OstrakonState) -> bool:
        """Whether this is the day's last question (nobody left to illuminate after it)."""
        if state.phase is Phase.OVER:
            return False
        return len(state.path.pile(state.sun)) <= 1 and state.path.pile_behind(state.sun) is None

    def turn_event(self, state: OstrakonState) -> Event:
        """The dealer's announcement: subject and asker, next subject and next asker."""
        return Event(
            "turn_started",
            {
                "turn": state.turn,
                "day": state.day,
                "days": state.options.days,
                "rule": state.day_rule.value,
                "sun": state.sun,
                "asker": state.asker,
                "subject": state.subject,
                "subject_text": self._subject_text(state, state.subject),
                "next_asker": self.next_asker(state),
                "next_subject": state.next_subject,
                "next_subject_text": self._subject_text(state, state.next_subject),
                "last_of_day": self.last_of_day(state),
            },
        )

    def situation_events(self, state: OstrakonState) -> list[Event]:
        """What the table awaits now, said again after a restart or the host's undo, in the
        turn's own events: the day, the turn, the question open (with the tessons laid, as a
        count), the disciple, the tessons the rules have shown, what the asker must do. Never a
        tesson still face down."""
        if state.phase is Phase.OVER:
            return []
        asker = state.asker
        rule = state.day_rule
        events = [self._day_event(state), self.turn_event(state)]
        if state.phase is Phase.QUESTION:
            return events
        disciple = []
        if state.disciple is not None and len(state.claimants) > 1:
            disciple.append(self._contested_event(state))
        elif state.disciple is not None:
            square = state.path.square_of(state.disciple)
            claim = {"seat": state.disciple, "asker": asker, "square": square}
            disciple.append(Event("disciple_claimed", claim))
        if state.phase is Phase.VOTE:
            may_claim = state.disciple is None and any(
                self.disciple_refusal(state, s) is None for s in range(state.players)
            )
            voted = sum(state.has_voted(s) for s in range(state.players))
            question = {
                "asker": asker,
                "subject": state.subject,
                "votes": state.options.votes.value,
            }
            laid = {"disciple": may_claim, "voted": voted, "players": state.players}
            return [*events, Event("question_asked", {**question, **laid}), *disciple]
        events += [*disciple, Event("all_voted", {"asker": asker, "rule": rule.value})]
        if asker is not None and state.shown[asker] and rule is DayRule.CORRUPTION:
            vote = state.votes[asker]
            assert vote is not None
            events.append(Event("asker_shows", {"asker": asker, "vote": colour(vote)}))
        if state.named:
            named = {"asker": asker, "rule": rule.value, "named": list(state.named)}
            # the named tessons as they lie now; on a day of Corruption they took the asker's
            # colour, and the one each was laid with is no longer known: the names alone
            tessons = []
            if rule is not DayRule.CORRUPTION and all(state.shown[s] for s in state.named):
                faces = [(s, colour(bool(state.votes[s]))) for s in state.named]
                tessons = [{"seat": s, "vote": face, "now": face} for s, face in faces]
            events.append(
                Event("philosophers_named", {**named, "tessons": tessons, "corrupted": False})
            )
        if state.phase is Phase.NAME:
            count = state.options.named
            events.append(
                Event("name_awaited", {"asker": asker, "count": count, "rule": rule.value})
            )
        elif state.phase is Phase.FLIP:
            flip: dict[str, Any] = {"asker": asker, "rule": rule.value}
            if rule is DayRule.TROMPERIE:  # every tesson lies face up: the count is public
                votes = [bool(v) for v in state.votes]
                flip.update(white=sum(votes), black=len(votes) - sum(votes))
            events.append(Event("flip_awaited", flip))
        elif state.phase is Phase.REVEAL and state.reveal is not None:
            step = {"step": state.reveal.value, "seats": list(state.expected)}
            events.append(Event("reveal_awaited", {"asker": asker, "rule": rule.value, **step}))
        return events

    def _day_event(self, state: OstrakonState) -> Event:
        return Event(
            "day_started",
            {
                "day": state.day,
                "days": state.options.days,
                "rule": state.day_rule.value,
                "sun": state.sun,
                "named_count": state.options.named,
            },
        )

    @staticmethod
    def _subject_text(state: OstrakonState, subject_id: str) -> dict[str, Any]:
        card = state.subject_card(subject_id)
        return {"en": card.en, "fr": card.fr, "free": card.free}

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _check_seat(state: OstrakonState, seat: int) -> None:
        if not 0 <= seat < state.players:
            raise IllegalAction("no_such_seat", seat=seat, players=state.players)

    def _check_asker(self, state: OstrakonState, seat: int) -> int:
        self._check_seat(state, seat)
        asker = state.asker
        assert asker is not None
        if seat != asker:
            raise IllegalAction("not_the_asker", seat=seat, turn=asker)
        return asker

    # -- what the outside world may see ---------------------------------------------------------

    def outcome(self, state: OstrakonState) -> Outcome | None:
        return state.outcome


def _replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])
