"""Secret chance (issue 21): hidden deals and orders come from a 256-bit seed drawn from the
operating system's CSPRNG and expanded by HMAC-SHA256 (``companion.chance``); the journal keeps
the seed and replays a game exactly; no record or export tells it, nor any hidden order, before
the game is over.

The attack tests are twin games: two tables with different seeds whose public draws are the same
(the twin's options name the first game's public draws) while their hidden orders differ. Their
records, taken mid-game, must be byte-identical: then nothing in a record can tell the hidden
order. Before this change each record's header carried its game's seed (from which the hidden
orders were rebuilt), so the twins' records differed.
"""

from __future__ import annotations

import hmac
import json
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from heard import HeardNarrator, all_said

from appliance.cli import main as cli_main
from companion import chance
from companion.chance import LEGACY_BELOW, draws, new_seed
from companion.game import IllegalAction
from companion.games.eleusis.cards import ONE_DECK
from companion.games.eleusis.engine import Eleusis, deal
from companion.games.eleusis.rule_library import draw_rule
from companion.games.eleusis.state import Options as EleusisOptions
from companion.games.eleusis.state import sort_cards
from companion.games.night.engine import pick
from companion.games.night.state import EndEvening, PickStarter
from companion.games.oraklos.deck import WISH_CARDS
from companion.games.ostrakon.state import Ask, Vote
from companion.games.ostrakon.state import Options as OstrakonOptions
from companion.games.ostrakon.subjects import SubjectDeck
from companion.games.ostrakon.tables import start_square
from companion.games.resistance.engine import deal_identities
from companion.games.resistance.plot import FULL_DECK, canonical, shuffled
from companion.games.resistance.state import Card, CastVote, PlayMissionCard, ProposeSquad, Side
from companion.games.resistance.tables import CYLONS
from companion.games.titles import game_for
from companion.journal import GameEntry, Journal, seed_column, seed_of
from companion.moderator import Table
from companion.record import RecordError, replay

NAMES = ["Ada", "Bea", "Cyd", "Dan", "Eve"]
SEED = 2**255 + 12345  # a seed as new_seed gives them (top bit set)
LEGACY = 1234  # a seed as the table drew them before: secrets.randbelow(2**31)


def table(path: Path | str = ":memory:") -> Table:
    """A table narrated by the real narrator: after a new game, ``all_said`` waits until its
    opening has been said (a Résistance night, ended by its cue)."""
    return Table(Journal(path), HeardNarrator(), seats=10)


def state_of(t: Table) -> Any:
    running = t.running
    assert running is not None
    return running.state


def seeds_in(text: str, *seeds: int) -> list[int]:
    """The seeds that ``text`` holds, in decimal, hexadecimal, or as the journal's text."""
    return [
        s
        for s in seeds
        if str(s) in text or f"{s:x}" in text or f"{s:X}" in text or str(seed_column(s)) in text
    ]


# -- the generator ---------------------------------------------------------------------------------


def test_a_new_seed_has_256_bits_from_the_operating_systems_csprng(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []

    def randbits(k: int) -> int:
        asked.append(k)
        return 0b1011

    monkeypatch.setattr(chance.secrets, "randbits", randbits)
    assert new_seed() == 2**255 + 0b1011
    assert asked == [255]


def test_a_new_seed_is_never_taken_for_a_legacy_one() -> None:
    seeds = {new_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(2**255 <= s < 2**256 and not chance.is_legacy(s) for s in seeds)


def test_a_new_game_at_the_table_takes_its_seed_from_the_csprng(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(chance.secrets, "randbits", lambda k: 7 << (k - 8))
    t = table(tmp_path / "journal.sqlite3")
    t.new_game("night", {"players": 3}, NAMES[:3])
    all_said(t)
    entry = t.journal.latest_game()
    assert entry is not None and entry.seed == 2**255 + (7 << 247)


def test_a_table_deals_from_a_seed_beyond_any_search(tmp_path: Path) -> None:
    """The issue's attack: seeds below 2^31 were singled out by a few public draws in a search
    of hours. A table's seed now has 255 random bits above a set top bit."""
    t = table(tmp_path / "journal.sqlite3")
    for _ in range(20):
        t.new_game("resistance", {"players": 5, "identities": "digital"}, NAMES)
        all_said(t)
        entry = t.journal.latest_game()
        assert entry is not None and entry.seed >= 2**255 and not chance.is_legacy(entry.seed)


def test_the_draws_are_the_same_for_the_same_seed_and_label() -> None:
    first, again = draws(SEED, "resistance:identities"), draws(SEED, "resistance:identities")
    assert [first.getrandbits(64) for _ in range(20)] == [again.getrandbits(64) for _ in range(20)]


def test_another_label_or_another_seed_draws_otherwise() -> None:
    def numbers(seed: int, label: str) -> list[int]:
        rng = draws(seed, label)
        return [rng.getrandbits(32) for _ in range(8)]

    assert numbers(SEED, "ostrakon:subjects") != numbers(SEED, "ostrakon:pile")
    assert numbers(SEED, "ostrakon:reshuffle:1") != numbers(SEED, "ostrakon:reshuffle:2")
    assert numbers(SEED, "ostrakon:subjects") != numbers(SEED + 1, "ostrakon:subjects")


def test_the_draws_are_hmac_sha256_in_counter_mode_keyed_by_the_seed_and_label() -> None:
    key = hmac.digest(SEED.to_bytes(32, "big"), b"companion/chance/v1\x00night:pick:1", "sha256")
    blocks = b"".join(hmac.digest(key, i.to_bytes(8, "big"), "sha256") for i in range(3))
    rng = draws(SEED, "night:pick:1")
    assert rng.getrandbits(256) == int.from_bytes(blocks[:32], "big")
    assert rng.getrandbits(12) == int.from_bytes(blocks[32:34], "big") >> 4
    assert rng.getrandbits(8 * 62) == int.from_bytes(blocks[34:96], "big")


def test_the_draws_serve_every_method_the_engines_use() -> None:
    rng = draws(SEED, "eleusis:deal")
    cards = list(range(52))
    rng.shuffle(cards)
    assert sorted(cards) == list(range(52)) and cards != list(range(52))
    assert len(set(rng.sample(range(10), 4))) == 4
    assert all(0 <= rng.randrange(7) < 7 for _ in range(100))
    assert all(0.0 <= rng.random() < 1.0 for _ in range(100))
    state = rng.getstate()
    ahead = [rng.randrange(1000) for _ in range(5)]
    rng.setstate(state)
    assert [rng.randrange(1000) for _ in range(5)] == ahead


def test_the_draws_cannot_be_reseeded_and_do_not_show_their_seed() -> None:
    rng = draws(SEED, "oraklos:deck")
    with pytest.raises(TypeError):
        rng.seed(1)
    assert not seeds_in(repr(rng) + repr(rng.getstate()), SEED)


# -- legacy seeds: a game journalled before the change resumes with its old orders -----------------


def test_a_legacy_seed_deals_the_resistance_identities_and_plot_deck_as_before() -> None:
    for players in range(5, 11):
        cylons = random.Random(f"resistance:{LEGACY}:identities").sample(
            range(players), CYLONS[players]
        )
        expected = tuple(Side.CYLONS if s in cylons else Side.COLONS for s in range(players))
        assert deal_identities(players, LEGACY) == expected
    for shuffles in range(3):
        deck = list(canonical(FULL_DECK))
        random.Random(f"resistance:{LEGACY}:plot:{shuffles}").shuffle(deck)
        assert shuffled(FULL_DECK, LEGACY, shuffles) == tuple(deck)


def test_a_legacy_seed_deals_the_oraklos_wish_cards_as_before() -> None:
    deck = list(WISH_CARDS)
    random.Random(LEGACY).shuffle(deck)
    state = game_for("oraklos").new({"players": 3}, LEGACY)
    assert state.hands == (tuple(deck[0:3]), tuple(deck[3:6]), tuple(deck[6:9]))
    assert state.deck == tuple(deck[9:])


def test_a_legacy_seed_deals_the_ostrakon_pile_and_subjects_as_before() -> None:
    order = list(range(5))
    random.Random(f"ostrakon:{LEGACY}:pile").shuffle(order)
    ids = [s.id for s in OstrakonOptions.from_json({"players": 5}).subject_cards]
    random.Random(f"ostrakon:{LEGACY}:subjects").shuffle(ids)
    state = game_for("ostrakon").new({"players": 5}, LEGACY)
    assert state.path.pile(start_square(5)) == tuple(order)
    assert (state.subject, state.next_subject, state.deck.deck) == (ids[0], ids[1], tuple(ids[2:]))
    discards = ["a", "b", "c", "d", "e"]  # all shuffled together (RULES.md §2, the seed)
    random.Random(f"ostrakon:{LEGACY}:reshuffle:1").shuffle(discards)
    again = SubjectDeck((), ("a", "b", "c", "d", "e")).reshuffled(LEGACY)
    assert again.deck == tuple(discards)


def test_a_legacy_seed_deals_the_eleusis_cards_and_rule_as_before() -> None:
    options = EleusisOptions.from_json({"players": 4})
    deck = list(ONE_DECK) * options.decks
    random.Random(f"eleusis:{LEGACY}:deal").shuffle(deck)
    hands, rest = deal(options, LEGACY)
    size = options.hand_size
    for i, seat in enumerate(options.seats):
        assert hands[seat] == sort_cards(deck[i * size : (i + 1) * size])
    assert rest == tuple(deck[len(options.seats) * size :])
    rule = draw_rule("easy", random.Random(f"eleusis:{LEGACY}:rule"))
    state = Eleusis().new({"players": 4, "level": "easy"}, LEGACY)
    assert state.rule_info is not None and state.rule_info.id == rule.id
    for shuffles in range(3):
        old = random.Random(f"eleusis:{LEGACY}:shuffle:{shuffles}")
        assert draws(LEGACY, f"eleusis:shuffle:{shuffles}").random() == old.random()


def test_a_legacy_seed_picks_who_starts_as_before() -> None:
    among = (0, 1, 2, 3, 4)
    for number in range(1, 6):
        old = among[random.Random(f"{LEGACY}/{number}").randrange(len(among))]
        assert pick(LEGACY, number, among) == old


def test_a_game_journalled_with_a_legacy_seed_resumes_with_its_old_orders(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    before = Journal(path)
    entry = before.start_game("oraklos", {"players": 3}, LEGACY, {"names": NAMES[:3]})
    before.close()
    db = sqlite3.connect(path)  # as written before the change: an INTEGER
    assert db.execute("SELECT typeof(seed) FROM games").fetchone()[0] == "integer"
    db.close()
    t = table(path)
    assert t.resume()
    deck = list(WISH_CARDS)
    random.Random(LEGACY).shuffle(deck)
    assert state_of(t).deck == tuple(deck[9:])
    assert t.journal.game(entry.id) == entry


# -- the journal -----------------------------------------------------------------------------------


def test_the_journal_keeps_a_256_bit_seed_as_text_and_reads_it_back(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    seed = new_seed()
    entry = journal.start_game("night", {"players": 3}, seed, {})
    assert journal.latest_game() == entry and entry.seed == seed
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    kind, text = db.execute("SELECT typeof(seed), seed FROM games").fetchone()
    db.close()
    assert (kind, text) == ("text", f"k:{seed:x}")


@pytest.mark.parametrize("seed", [0, LEGACY, LEGACY_BELOW - 1, 2**63 - 1, 2**63, 2**256 - 1])
def test_the_journal_round_trips_every_seed(seed: int) -> None:
    journal = Journal(":memory:")
    entry = journal.start_game("sages", {}, seed, {})
    found = journal.game(entry.id)
    assert found is not None and found.seed == seed
    assert seed_of(seed_column(seed)) == seed


def test_a_journal_entry_does_not_show_its_seed() -> None:
    entry = GameEntry(1, "night", {}, SEED, {}, False)
    assert not seeds_in(repr(entry), SEED)


# -- no state shows its seed -----------------------------------------------------------------------

OPTIONS = {
    "resistance": {"players": 5, "identities": "digital", "plot": True},
    "oraklos": {"players": 3},
    "ostrakon": {"players": 5},
    "eleusis": {"players": 4, "level": "easy"},
    "sages": {},
    "night": {"players": 3},
}


@pytest.mark.parametrize("title", sorted(OPTIONS))
def test_no_game_state_shows_its_seed(title: str) -> None:
    game = game_for(title)
    state = game.new(OPTIONS[title], SEED)
    text = repr(state) + json.dumps(game.public_view(state))
    text += "".join(json.dumps(game.private_view(state, seat)) for seat in range(3))
    assert not seeds_in(text, SEED)


# -- twin games: the records of games not over hold no seed, nor any hidden order ------------------


@dataclass
class Twin:
    """A title's twin games: ``options``, the moves both play, the options that make the twin
    draw in public what the first game drew (``named``, from the first game's states at the
    start and after the moves), and the hidden order the two must not share (``hidden``)."""

    options: dict[str, Any]
    moves: Callable[[Table], None]
    named: Callable[[Any, Any], dict[str, Any]]
    hidden: Callable[[Any], Any]


def _resistance_mission(t: Table) -> None:
    t.submit(ProposeSquad(0, (0, 1)))
    for seat in range(5):
        t.submit(CastVote(seat, True))
    t.submit(PlayMissionCard(0, Card.SUCCESS))  # a Success: legal for a Cylon and a Colon
    t.submit(PlayMissionCard(1, Card.SUCCESS))
    t.submit(ProposeSquad(1, (1, 2, 3)))


def _ostrakon_turn(t: Table) -> None:
    view = t.snapshot()["state"]
    t.submit(Ask(view["asker"]))
    for seat in range(5):
        t.submit(Vote(seat, seat % 2 == 0))


def _sages_moves(t: Table) -> None:
    game = game_for("sages")
    for _ in range(4):
        state = state_of(t)
        seat = game.public_view(state)["to_move"]
        t.submit(sorted(game.legal_actions(state, seat), key=lambda a: json.dumps(a.to_json()))[0])


def _night_picks(t: Table) -> None:
    t.submit(PickStarter())
    t.submit(PickStarter((0, 2)))


def _ostrakon_draws(state: Any) -> list[str]:
    return [*state.deck.discards, state.subject, state.next_subject]


TWINS: dict[str, Twin] = {
    "resistance": Twin(
        {"players": 5, "identities": "digital"},
        _resistance_mission,
        lambda start, state: {},
        lambda state: state.identities,
    ),
    "resistance-plot": Twin(
        {"players": 5, "plot": True},
        lambda t: None,  # the night is over, the first two plot cards drawn, face up
        lambda start, state: {"plot_draws": [c.value for c in state.plot.drawn_log]},
        lambda state: state.plot.deck,
    ),
    "oraklos": Twin(
        {"players": 3},
        lambda t: None,  # three wish cards dealt to each seat, face up
        lambda start, state: {"dealt": [c for hand in state.hands for c in hand]},
        lambda state: state.deck,
    ),
    "ostrakon": Twin(
        {"players": 5},
        _ostrakon_turn,
        lambda start, state: {
            "pile": list(start.path.pile(start_square(5))),
            "subject_draws": _ostrakon_draws(state),
        },
        lambda state: state.deck.deck,
    ),
    "eleusis": Twin(
        {"players": 5, "god": "human", "god_seat": 0, "hand_size": 4},
        lambda t: None,  # the hands dealt (secret), a starter card turned (public)
        lambda start, state: {},
        lambda state: (state.hands, state.deck),
    ),
    "sages": Twin({}, _sages_moves, lambda start, state: {}, lambda state: None),
    "night": Twin(
        {"players": 3},
        _night_picks,
        lambda start, state: {"starters": [p.seat for p in state.picks]},
        lambda state: pick(state.seed, len(state.picks) + 1, (0, 1, 2)),
    ),
}


def _title(name: str) -> str:
    return name.split("-")[0]


def _same_public_start(name: str, first: Table, seed: int) -> bool:
    """Eleusis draws its starter card in public from the secret deck: the twin is a seed that
    turns the same starter (found by trying seeds in turn)."""
    if name != "eleusis":
        return True
    options = TWINS[name].options
    return Eleusis().new(options, seed).turned == state_of(first).turned


def play_twins(name: str, path: Path | None = None) -> tuple[Table, Table, int, int]:
    """The first game with ``SEED``, then its twin with the first seed after it that passes
    ``_same_public_start`` and whose hidden order differs."""
    twin = TWINS[name]
    title = _title(name)
    first = table(":memory:" if path is None else path / "a" / "journal.sqlite3")
    names = NAMES[: twin.options.get("players", 2)]  # one name per player (Les 7 Sages: two)
    first.new_game(title, twin.options, names, seed=SEED)
    all_said(first)
    start = state_of(first)
    twin.moves(first)
    named = {**twin.options, **twin.named(start, state_of(first))}
    for other in range(SEED + 1, SEED + 2000):
        if not _same_public_start(name, first, other):
            continue
        second = table(":memory:" if path is None else path / f"b{other}" / "journal.sqlite3")
        second.new_game(title, named, names, seed=other)
        all_said(second)
        twin.moves(second)
        hidden = twin.hidden(state_of(first))
        if hidden is None or hidden != twin.hidden(state_of(second)):
            return first, second, SEED, other
    raise AssertionError(f"no twin found for {name}")


@pytest.mark.parametrize("name", sorted(TWINS))
def test_a_record_taken_mid_game_is_the_same_whatever_the_hidden_orders(name: str) -> None:
    first, second, seed, other = play_twins(name)
    game = game_for(_title(name))
    assert game.outcome(state_of(first)) is None
    record = first.export()
    assert record == second.export()
    assert json.loads(record[0])["seed"] is None
    assert not seeds_in("\n".join(record), seed, other)


@pytest.mark.parametrize("name", sorted(TWINS))
def test_a_record_taken_mid_game_replays_to_the_public_state(name: str) -> None:
    first, _, _, _ = play_twins(name)
    game = game_for(_title(name))
    mine = replay(first.export())
    theirs = game.public_view(state_of(first))
    assert {k: v for k, v in mine.items() if k != "options"} == {
        k: v for k, v in theirs.items() if k != "options"
    }


@pytest.mark.parametrize("name", sorted(TWINS))
def test_companion_export_of_a_journal_mid_game_holds_no_seed(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second, seed, other = play_twins(name, tmp_path)
    outputs = []
    for t in (first, second):
        folder = t.journal.path.parent
        (folder / "c.toml").write_text(f'data_dir = "{folder}"\n')
        out = folder / "record.jsonl"
        assert cli_main(["export", "--config", str(folder / "c.toml"), "-o", str(out)]) == 0
        outputs.append(out.read_bytes())
    assert json.loads(outputs[0].decode().splitlines()[0])["seed"] is None
    assert outputs[0] == outputs[1]
    assert not seeds_in(outputs[0].decode(), seed, other)
    assert not seeds_in(capsys.readouterr().out, seed, other)


# -- a finished game's record tells its seed; an old record still replays --------------------------


def test_the_record_of_a_finished_evening_tells_its_seed_so_every_draw_can_be_checked() -> None:
    t = table()
    t.new_game("night", {"players": 3}, NAMES[:3], seed=SEED)
    all_said(t)
    _night_picks(t)
    t.submit(EndEvening())
    record = t.export()
    header = json.loads(record[0])
    assert int(header["seed"], 16) == SEED
    drawn = [json.loads(line) for line in record[1:] if '"pick_starter"' in line]
    for number, (line, shown) in enumerate(zip(drawn, state_of(t).picks, strict=True), start=1):
        among = tuple(line["among"]) or (0, 1, 2)
        assert pick(int(header["seed"], 16), number, among) == shown.seat
    mine, theirs = replay(record), game_for("night").public_view(state_of(t))
    assert {k: v for k, v in mine.items() if k != "options"} == {
        k: v for k, v in theirs.items() if k != "options"
    }


def test_the_record_of_a_finished_resistance_game_tells_the_seed_of_its_identities() -> None:
    t = table()
    t.new_game("resistance", {"players": 5, "identities": "digital"}, NAMES, seed=SEED)
    all_said(t)
    for commander, squad in enumerate([(0, 1), (1, 2, 3), (2, 3)]):
        t.submit(ProposeSquad(commander, squad))
        for seat in range(5):
            t.submit(CastVote(seat, True))
        for seat in squad:
            t.submit(PlayMissionCard(seat, Card.SUCCESS))
    game = game_for("resistance")
    assert game.outcome(state_of(t)) is not None
    record = t.export()
    seed = int(json.loads(record[0])["seed"], 16)
    assert deal_identities(5, seed) == state_of(t).identities
    mine, theirs = replay(record), game.public_view(state_of(t))
    assert {k: v for k, v in mine.items() if k != "options"} == {
        k: v for k, v in theirs.items() if k != "options"
    }


def test_an_old_record_with_its_seed_still_replays() -> None:
    game = game_for("oraklos")
    header = {"record": "companion", "version": 1, "game": "oraklos", "options": {"players": 3}}
    lines = [json.dumps({**header, "seed": LEGACY})]
    assert replay(lines) == game.public_view(game.new({"players": 3}, LEGACY))
    night = {"record": "companion", "version": 1, "game": "night", "options": {"players": 3}}
    picks = [json.dumps(PickStarter().to_json()) for _ in range(3)]
    state = game_for("night").new({"players": 3}, LEGACY)
    for _ in range(3):
        state, _ = game_for("night").apply(state, PickStarter())
    assert replay([json.dumps({**night, "seed": LEGACY}), *picks])["picks"] == [
        p.view() for p in state.picks
    ]


@pytest.mark.parametrize(
    ("version", "seed"), [(2, 1234), (2, "0x12"), (2, "XYZ"), (1, None), (1, "4d2"), (3, None)]
)
def test_a_header_with_a_seed_of_the_wrong_form_is_refused(version: int, seed: object) -> None:
    header = {"record": "companion", "version": version, "game": "night", "options": {}}
    with pytest.raises(RecordError) as caught:
        replay([json.dumps({**header, "seed": seed})])
    assert caught.value.line == 1


def test_a_record_naming_a_draw_the_game_cannot_make_is_refused() -> None:
    header = {"record": "companion", "version": 2, "game": "oraklos", "seed": None}
    with pytest.raises(RecordError) as caught:
        twice = [WISH_CARDS[0], WISH_CARDS[0]]  # each wish card exists once
        replay([json.dumps({**header, "options": {"players": 3, "dealt": twice}})])
    assert "bad game options" in caught.value.reason
    with pytest.raises(IllegalAction) as refused:
        game_for("night").new({"players": 3, "starters": "0"}, SEED)
    assert refused.value.code == "record_draws_not_a_list"


@pytest.mark.parametrize(
    ("title", "options"),
    [
        ("resistance", {"players": 5, "plot": True, "plot_draws": ["establish_confidence"]}),
        ("oraklos", {"players": 2, "dealt": ["RYBK"]}),
        ("ostrakon", {"players": 5, "subject_draws": ["1"]}),
        ("night", {"players": 3, "starters": [0]}),
    ],
    ids=["plot_draws", "dealt", "subject_draws", "starters"],
)
def test_a_game_at_the_table_never_takes_the_draws_a_record_names(
    title: str, options: dict[str, Any]
) -> None:
    """Only a record replayed without its seed names its draws: a host who named them for a
    game at the table would choose a hidden order."""
    table = Table(Journal(":memory:"), HeardNarrator(), seats=10)
    with pytest.raises(IllegalAction) as refused:
        table.new_game(title, options, [])
    assert refused.value.code == "record_only_option"
    assert table.running is None
