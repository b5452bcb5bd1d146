"""Random whole games of Oraklos in the three modes, checked after every action:

- the scores are the sums of the points announced by the claim and naming events;
- no die is made or lost (supplies + cup or table = the printed total, colour by colour), in the
  state and in the public view;
- no wish card is made or lost (deck + hands + shared + discards = 70, or 54 in Antipodes);
- a refused action leaves the state as it was;
- the public view never tells what a seat put in the cup before the throw: a twin table, whose
  seats filled the cup differently, shows the same public view and announces the same events;
- the referee agrees with itself: a prediction found by ``predictions`` is a valid claim, and a
  card is named rightly exactly when ``predictions`` has no prediction for it;
- replaying the actions (through their JSON form) from ``new`` gives the same states, and the
  public record of a finished game is the game's actions.

The same games are also played as at a real table (options ``fills``, ``deck``, ``claims`` drawn
at random): the players draw their own cards, some throws are misread by the camera and
corrected by the host before anything is scored on them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections import Counter

import pytest

from companion.game import EVERYONE, Action, Event, IllegalAction, action_from_json
from companion.games.oraklos.deck import ANTIPODES_CARDS, WISH_CARDS, mirror
from companion.games.oraklos.dice import Die
from companion.games.oraklos.engine import Oraklos
from companion.games.oraklos.predictions import Prediction, check, predictions
from companion.games.oraklos.state import (
    ACTIONS,
    COLORS,
    CUP_PER_ROUND,
    HAND_SIZE,
    SHARED_CARDS,
    AddDie,
    AllFound,
    Claim,
    Claims,
    CorrectDie,
    DeckEmpty,
    DeckSource,
    DrawCards,
    EndSearch,
    FillCup,
    Fills,
    Hesitate,
    Mode,
    NameCard,
    OraklosState,
    Phase,
    Pool,
    RemoveDie,
    RevealCards,
    TakeBack,
    TakeMarker,
    ThrowDice,
)
from companion.record import public_record

# Seeded games per mode: the referee costs some milliseconds a throw (more in Antipodes, where
# holes are sacred), and the whole file must stay fast.
GAMES_PER_MODE = {"standard": 40, "junior": 40, "antipodes": 25}
TABLE_GAMES_PER_MODE = {"standard": 30, "junior": 15, "antipodes": 12}
MAX_ACTIONS = 2000  # a safety net: every game in these seeds ends well before
GAME = Oraklos()
SIZE = 16.0
TABLES = (180.0, 260.0, 520.0)  # the dice land in a square of one of these sides


# -- chance: the throw ----------------------------------------------------------------------------


def random_throw(rng: random.Random, cup: Pool) -> list[Die]:
    """The cup's dice scattered without overlap (centres further apart than two half-diagonals),
    turned at random, a third of them showing a hole (two faces of six have one)."""
    colors = [c for c, n in cup.items() for _ in range(n)]
    rng.shuffle(colors)
    side = rng.choice(TABLES)  # dense throws have fewer predictions: some cards have none
    dice: list[Die] = []
    for color in colors:
        while True:
            x, y = rng.uniform(0, side), rng.uniform(0, side)
            if all(math.hypot(x - d.x, y - d.y) > SIZE * 1.45 for d in dice):
                break
        dice.append(Die(x, y, SIZE, color, rng.random() < 1 / 3, rng.uniform(0, 90)))
    return dice


# -- the players ----------------------------------------------------------------------------------


def misread(rng: random.Random, dice: list[Die]) -> list[Die]:
    """What a camera might see instead: a die missed, a die of the wrong colour, or a stray
    object taken for a die (with a low confidence)."""
    how = rng.randrange(3)
    i = rng.randrange(len(dice))
    if how == 0:
        return dice[:i] + dice[i + 1 :]
    if how == 1:
        wrong = rng.choice([c for c in COLORS if c is not dice[i].color])
        return [
            *dice[:i],
            dataclasses.replace(dice[i], color=wrong, confidence=0.4),
            *dice[i + 1 :],
        ]
    far = 10_000.0 + 40.0 * i
    return [*dice, Die(far, far, SIZE, rng.choice(COLORS), False, 0.0, 0.3)]


def throw_dice(rng: random.Random, state: OraklosState) -> list[Die]:
    """The dice as they land: the cup's, or with fills "unseen" what the players may have put
    in (any colours among those that exist)."""
    if not state.options.unseen_fills:
        return random_throw(rng, state.cup)
    most = GAME.total_dice(state.options) // len(COLORS)
    pool = [c for c in COLORS for _ in range(most)]
    count = 4 + state.players * CUP_PER_ROUND[state.players]
    return random_throw(rng, Pool.of(rng.sample(pool, count)))


@dataclasses.dataclass
class Referee:
    """The predictions of the current throw, computed once per throw; and, at a real table,
    the dice truly thrown (the host corrects the camera's reading to them)."""

    table: tuple[Die, ...] = ()
    found: list[Prediction] = dataclasses.field(default_factory=list)
    truth: tuple[Die, ...] = ()

    def of(self, state: OraklosState) -> list[Prediction]:
        if state.table != self.table:
            self.table = state.table
            self.found = predictions(state.table, holes_allowed=state.options.holes_allowed)
        return self.found

    def matching(self, state: OraklosState, card: str) -> list[Prediction]:
        wanted = {card, mirror(card)} if state.options.either_direction else {card}
        return [p for p in self.of(state) if p.card in wanted]


def correction(rng: random.Random, state: OraklosState, truth: tuple[Die, ...]) -> Action:
    """What the host does to make the reading the dice truly thrown."""
    table = state.table
    if rng.random() < 0.2:
        return ThrowDice(truth)  # read again
    wrong = [i for i, d in enumerate(table) if d not in truth]
    missed = [d for d in truth if d not in table]
    if len(table) > len(truth):
        return RemoveDie(wrong[0])
    if len(table) < len(truth):
        return AddDie(missed[0])
    i = wrong[0]
    die = next(d for d in missed if (d.x, d.y) == (table[i].x, table[i].y))
    return CorrectDie(i, die.color, die.hole)


def misread_now(state: OraklosState, truth: tuple[Die, ...]) -> bool:
    return Counter(state.table) != Counter(truth)


def draw(rng: random.Random, state: OraklosState) -> Action:
    """The host enters the cards a seat (or the shared row) drew from the players' deck."""
    if rng.random() < 0.003:
        return DeckEmpty()  # the physical deck is short of a card: it happens
    deck = ANTIPODES_CARDS if state.mode is Mode.ANTIPODES else WISH_CARDS
    seen = {*state.discards, *state.shared, *(c for h in state.hands for c in h)}
    left = [c for c in deck if c not in seen]
    if state.mode is Mode.ANTIPODES:
        return RevealCards(tuple(rng.sample(left, SHARED_CARDS - len(state.shared))))
    seat = rng.choice([s for s, h in enumerate(state.hands) if len(h) < HAND_SIZE])
    cards = rng.sample(left, HAND_SIZE - len(state.hands[seat]))
    return DrawCards(seat, tuple(c.lower() if rng.random() < 0.2 else c[1:] + c[0] for c in cards))


def choose(rng: random.Random, state: OraklosState, referee: Referee) -> Action:
    """A plausible action for the phase: mostly legal, and claims true about half the time."""
    if state.phase is Phase.DRAW:
        return draw(rng, state)
    if state.phase is Phase.FILL:
        return rng.choice(list(GAME.legal_actions(state, state.filler)))
    if state.phase is Phase.THROW:
        dice = throw_dice(rng, state)
        referee.truth = tuple(dice)
        if state.options.drawn and rng.random() < 0.3:  # a table with a camera
            return ThrowDice.of(misread(rng, dice))
        return ThrowDice.of(dice)
    # the host corrects the reading before any score, at some moment of the search
    if (
        misread_now(state, referee.truth)
        and GAME.correctable(state)
        and not (state.phase is Phase.SEARCH and rng.random() < 0.7)
    ):
        return correction(rng, state, referee.truth)
    if state.phase is Phase.SEARCH:
        seats = list(range(state.players))
        rng.shuffle(seats)
        takes = [a for seat in seats for a in GAME.legal_actions(state, seat)]
        seen = [a for a in takes if isinstance(a, TakeMarker) and referee.matching(state, a.card)]
        if seen and rng.random() < 0.9:
            return seen[0]  # the quickest eye at the table
        if takes and rng.random() < 0.3:
            return rng.choice(takes)  # a bluff, or a mistake
        return EndSearch()
    if state.phase is Phase.SCORE:
        claimant = state.claimant
        assert claimant is not None
        roll = rng.random()
        true = referee.matching(state, claimant.card)
        if state.options.claims is Claims.CARD and roll < 0.8:
            return Claim(claimant.seat)
        if true and roll < 0.6:
            return Claim(claimant.seat, rng.choice(true).dice)
        if roll < 0.7:
            return Hesitate(claimant.seat)
        return Claim(claimant.seat, tuple(rng.sample(range(len(state.table)), 4)))
    if state.phase is Phase.RETRIEVE:
        return rng.choice(list(GAME.legal_actions(state, state.retriever)))
    assert state.phase is Phase.NAME
    missing = [c for c in state.shared if not referee.matching(state, c)]
    roll = rng.random()
    if missing and roll < 0.85:
        sharp = 0 if rng.random() < 0.7 else rng.randrange(state.players)  # seat 0 sees best
        return NameCard(sharp, rng.choice(missing))
    if roll < 0.6:
        return AllFound()
    return NameCard(rng.randrange(state.players), rng.choice(state.shared))


def mistake(rng: random.Random, state: OraklosState) -> Action | None:
    """An action the rules refuse now, or None when none comes to mind."""
    n = state.players
    options: list[Action] = [
        FillCup(n, red=1),
        TakeMarker(0, 7, "RYBK"),
        Claim(0, (0, 0, 1, 2)),
        TakeBack(n + 1, red=1),
        NameCard(-1, "RYBK"),
    ]
    if state.phase is Phase.FILL:
        assert state.filler is not None
        options.append(FillCup((state.filler + 1) % n, red=1))
        options.append(FillCup(state.filler, red=1, yellow=-1))
    if state.phase is Phase.THROW:
        options.append(EndSearch())
    if state.phase is not Phase.THROW and not GAME.correctable(state):
        options.append(ThrowDice.of(state.table))  # no re-reading once a claim is judged
        options.append(RemoveDie(0))
        options.append(AddDie(Die(0.0, 0.0, SIZE, COLORS[0])))
    if GAME.mismatch(state):  # nothing is scored on a reading that does not match the cup
        if state.claimant is not None:
            options.append(Hesitate(state.claimant.seat))
        if state.phase is Phase.NAME:
            options.append(AllFound())
            options.append(NameCard(0, state.shared[0]))
    if state.phase is Phase.DRAW:
        seen = [*state.discards, *state.shared, *(c for h in state.hands for c in h)]
        if seen:
            options.append(DrawCards(0, (seen[0],) * 3))
            options.append(RevealCards((seen[-1],) * 6))
        options.append(DrawCards(0, ("RYBK",) * 7))
    if state.phase is Phase.SEARCH and state.markers:
        taken = state.markers[0]
        options.append(TakeMarker(taken.seat, taken.marker, state.hands[taken.seat][0]))
    if state.phase is Phase.SCORE:
        claimant = state.claimant
        assert claimant is not None
        options.append(Hesitate((claimant.seat + 1) % n))
        options.append(Claim(claimant.seat, (0, 1, 2)))
    if state.phase is Phase.RETRIEVE:
        assert state.retriever is not None
        options.append(TakeBack(state.retriever, red=state.on_table.red + 1))
    if state.phase is not Phase.NAME:
        options.append(AllFound())
    return rng.choice(options)


# -- the invariants -------------------------------------------------------------------------------


def check_dice(state: OraklosState) -> None:
    """Every die is in a supply, in the cup, or on the table (the throw's dice not taken back).

    With fills "unseen" the companion counts no dice: it shows no supply."""
    if state.options.unseen_fills:
        assert state.supplies == () and GAME.public_view(state)["supplies"] == []
        return
    per_color = dict.fromkeys(COLORS, 0)
    total = GAME.total_dice(state.options)
    in_play = state.on_table if state.table else state.cup
    for pool in (*state.supplies, in_play):
        for color, count in pool.items():
            assert count >= 0
            per_color[color] += count
    assert sum(per_color.values()) == total
    assert len(set(per_color.values())) == 1  # as many of each colour as at the start
    view = GAME.public_view(state)
    shown = sum(sum(s.values()) for s in view["supplies"])
    if state.table:
        shown += sum(view["on_table"].values())
        assert len(view["table"]) == len(state.table)
    else:
        shown += sum(view["cup"]["base"].values())  # supplies are shown as before filling
        assert view["cup"]["dice"] == state.cup.total
    assert shown == total


def check_cards(state: OraklosState) -> None:
    everything = (*state.deck, *(c for h in state.hands for c in h), *state.shared, *state.discards)
    deck = ANTIPODES_CARDS if state.mode is Mode.ANTIPODES else WISH_CARDS
    if state.options.deck is DeckSource.DRAWN:  # no hidden deck: the cards seen, each once
        assert state.deck == ()
        assert set(everything) <= set(deck) and len(set(everything)) == len(everything)
    else:
        assert Counter(everything) == Counter(deck)
    view = GAME.public_view(state)
    assert view["deck"] + len(view["discards"]) + len(view["shared"]) + sum(
        len(h) for h in view["hands"]
    ) == len(deck)


def check_scores(state: OraklosState, announced: list[int]) -> None:
    assert list(state.scores) == announced
    from_ledger = [0] * state.players
    for line in state.ledger:
        from_ledger[line.seat] += line.points
    assert from_ledger == announced


def check_refusal(state: OraklosState, action: Action) -> None:
    snapshot = dataclasses.replace(state)
    view = GAME.public_view(state)
    with pytest.raises(IllegalAction) as refusal:
        GAME.apply(state, action)
    assert refusal.value.code
    assert state == snapshot
    assert GAME.public_view(state) == view


def public(events: list[Event]) -> list[dict[str, object]]:
    return [e.to_json() for e in events if e.audience == EVERYONE]


def check_verdicts(
    state: OraklosState, action: Action, events: list[Event], referee: Referee
) -> list[tuple[int, int]]:
    """The points announced, as (seat, points), after checking each verdict against the
    referee's own list of predictions."""
    points = []
    for event in events:
        if event.kind == "claim_result":
            seat, marker, card = event.data["seat"], event.data["marker"], event.data["card"]
            assert event.data["points"] == (marker if event.data["valid"] else -marker)
            if isinstance(action, Claim) and not action.dice:
                matching = referee.matching(state, card)
                assert event.data["valid"] == bool(matching)
                assert event.data["prediction"] == (matching[0].to_json() if matching else None)
            elif isinstance(action, Claim):
                verdict = check(
                    state.table,
                    action.dice,
                    card,
                    either_direction=state.options.either_direction,
                )
                assert verdict.valid == event.data["valid"]
                assert verdict.code == event.data["code"]
                if any(set(p.dice) == set(action.dice) for p in referee.matching(state, card)):
                    assert event.data["valid"]
            else:
                assert not event.data["valid"]
            points.append((seat, event.data["points"]))
        elif event.kind == "card_named":
            has_one = bool(referee.matching(state, event.data["card"]))
            assert event.data["points"] == (-1 if has_one else 1)
            if has_one:
                shown = event.data["prediction"]
                verdict = check(
                    state.table,
                    shown["dice"],
                    event.data["card"],
                    either_direction=state.options.either_direction,
                    holes_allowed=True,
                )
                assert verdict.valid
            points.append((event.data["seat"], event.data["points"]))
        elif event.kind == "all_found":
            missed = [c for c in state.shared if not referee.matching(state, c)]
            assert event.data["missed"] == missed
    return points


def twin_fill(rng: random.Random, state: OraklosState, action: FillCup) -> FillCup:
    """Another legal filling for the same seat, when there is one."""
    others = [a for a in GAME.legal_actions(state, action.seat) if a != action]
    return rng.choice(others) if others else action


# -- one game -------------------------------------------------------------------------------------


def play_game(
    mode: str, seed: int, seen: Counter[str] | None = None, table: bool = False
) -> tuple[OraklosState, list[Action], list[OraklosState]]:
    """One seeded game, checked after every action; ``seen`` counts what happened in it.

    ``table``: played at a real table, with options ``fills``, ``deck`` and ``claims`` drawn
    at random (at least one of them not the default)."""
    seen = Counter() if seen is None else seen
    rng = random.Random(seed)
    players = rng.randint(2, 5)
    options: dict[str, object] = {
        "players": players,
        "mode": mode,
        "either_direction": rng.random() < 0.3,
        "first_player": rng.randrange(players),
    }
    if table:
        options["deck"] = rng.choice([DeckSource.DRAWN.value, DeckSource.DRAWN.value, "dealt"])
        options["fills"] = rng.choice([f.value for f in Fills])
        options["claims"] = rng.choice([c.value for c in Claims])
    state = GAME.new(options, seed)
    referee = Referee()
    announced = [0] * state.players
    actions: list[Action] = []
    states = [state]
    twin: OraklosState | None = None
    check_dice(state)
    check_cards(state)
    while state.phase is not Phase.OVER and len(actions) < MAX_ACTIONS:
        if rng.random() < 0.2:
            wrong = mistake(rng, state)
            if wrong is not None:
                check_refusal(state, wrong)
        action = choose(rng, state, referee)
        after, events = GAME.apply(state, action)
        if isinstance(action, FillCup):
            twin_before = state if twin is None else twin
            other = twin_fill(rng, twin_before, action)
            twin, twin_events = GAME.apply(twin_before, other)
            assert public(twin_events) == public(events)
            assert GAME.public_view(twin) == GAME.public_view(after)
            for seat in range(state.players):
                if after.fills[seat] is None:  # a seat yet to fill knows nothing more
                    assert GAME.private_view(twin, seat) == GAME.private_view(after, seat)
        elif twin is not None:
            assert isinstance(action, ThrowDice)
            twin = None
        for seat, points in check_verdicts(state, action, events, referee):
            announced[seat] += points
        state = after
        actions.append(action)
        states.append(state)
        check_scores(state, announced)
        check_dice(state)
        check_cards(state)
        json.dumps(GAME.public_view(state))
        for event in events:
            json.dumps(event.to_json())
            seen[_happening(event)] += 1
    return state, actions, states


def _happening(event: Event) -> str:
    if event.kind == "claim_result":
        if event.data["hesitated"]:
            return "hesitation"
        if event.data["by_card"]:
            return "card_found" if event.data["valid"] else "card_not_found"
        return "true_claim" if event.data["valid"] else "wrong_claim"
    if event.kind == "card_named":
        return "named_rightly" if event.data["prediction"] is None else "named_wrongly"
    if event.kind == "game_over":
        return str(event.data["reason"])
    return event.kind


def check_replay(actions: list[Action], states: list[OraklosState]) -> None:
    state = GAME.new(GAME.options_json(states[0]), states[0].seed)
    assert state == states[0]
    for action, expected in zip(actions, states[1:], strict=True):
        again = action_from_json(ACTIONS, action.to_json())
        assert again == action
        state, _ = GAME.apply(state, again)
        assert state == expected


def play_games(mode: str, games: int, table: bool) -> Counter[str]:
    """Seeded whole games, each played to the end and replayed; what happened in them."""
    reasons: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for seed in range(games):
        state, actions, states = play_game(mode, seed, seen, table)
        assert state.phase is Phase.OVER, f"seed {seed} did not end"
        assert state.outcome is not None
        best = max(state.scores)
        assert state.outcome.winner == ",".join(
            str(s) for s, score in enumerate(state.scores) if score == best
        )
        reasons[state.outcome.reason.value] += 1
        check_replay(actions, states)
        record = public_record(GAME, actions, GAME.options_json(states[0]), states[0].seed)
        assert record == actions
    assert sum(reasons.values()) == games
    return seen


@pytest.mark.parametrize("mode", [m.value for m in Mode])
def test_random_games(mode: str) -> None:
    seen = play_games(mode, GAMES_PER_MODE[mode], table=False)
    assert seen["target_reached"] > 0 and seen["deck_exhausted"] > 0
    if mode == Mode.ANTIPODES.value:
        assert seen["named_rightly"] and seen["named_wrongly"] and seen["all_found"]
    else:
        assert seen["true_claim"] and seen["wrong_claim"] and seen["hesitation"]


@pytest.mark.parametrize("mode", [m.value for m in Mode])
def test_random_games_at_a_real_table(mode: str) -> None:
    seen = play_games(mode, TABLE_GAMES_PER_MODE[mode], table=True)
    assert seen["target_reached"] > 0 and seen["deck_exhausted"] > 0
    for corrected in ("die_corrected", "die_removed", "die_added", "throw_reread"):
        assert seen[corrected], corrected
    if mode == Mode.ANTIPODES.value:
        assert seen["cards_revealed"] and seen["named_rightly"] and seen["named_wrongly"]
    else:
        assert seen["cards_drawn"] and seen["card_found"] and seen["card_not_found"]


def test_an_unfinished_game_drops_the_cup_not_yet_thrown_from_its_record() -> None:
    state, actions, states = play_game("standard", 3)
    for cut in range(len(actions), 0, -1):
        if states[cut].phase is Phase.FILL and states[cut].fills != (None,) * states[cut].players:
            break
    else:
        pytest.fail("no cup being filled in that game")
    kept = public_record(GAME, actions[:cut], GAME.options_json(state), state.seed)
    pending = actions[len(kept) : cut]
    assert kept == actions[: len(kept)]
    assert pending and all(isinstance(a, FillCup) for a in pending)
