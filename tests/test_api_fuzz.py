"""Bad input to every JSON endpoint, as a logged-in host with a valid CSRF token, over a running
game of each kind: random JSON values, wrong types, huge numbers, deep nesting, non-JSON bodies
and wrong content types. The server never answers 500, and a refusal (4xx) leaves the public
state as it was (same revision, same game, same version).

The real app (``appliance.wiring.build``, simulated pins, the generated camera) through Flask's
test client: fast enough for a few hundred requests per game. ``FUZZ_SCALE=20`` multiplies every
example count, for a longer run by hand.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import PIN, host_client

from appliance.wiring import Companion, build
from companion.config import CameraConfig, Config
from companion.games.titles import game_for
from tests.timing import HandClock

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay"]
# A running game to fuzz: its title, options and number of players. Eleusis twice: the companion
# judges what the host enters (a typed rule), or the host enters a human God's verdicts.
SETUPS: dict[str, tuple[str, dict[str, Any], int]] = {
    "resistance": ("resistance", {"players": 5}, 5),
    "oraklos": ("oraklos", {"players": 3, "mode": "junior"}, 3),
    "ostrakon": ("ostrakon", {"players": 6}, 6),
    "eleusis": ("eleusis", {"players": 4, "cards": "physical", "rule": "card is red"}, 4),
    "eleusis-human-god": (
        "eleusis",
        {"players": 5, "god": "human", "god_seat": 1, "cards": "physical"},
        5,
    ),
    "night": ("night", {"players": 4, "turn_seconds": 30}, 4),
}
TITLES = sorted({title for title, _, _ in SETUPS.values()})
OPTION_NAMES = [  # every game's options, and one no game has
    *(
        key
        for title, options, _ in SETUPS.values()
        for key in game_for(title).options_json(game_for(title).new(options, 1))
    ),
    "seed",
]
JSON_ENDPOINTS = [
    "/api/games",
    "/api/games/rematch",
    "/api/host/undo",
    "/api/act",
    "/api/press",
    "/api/throw/read",
    "/api/tessons/read",
    "/api/dice/read",
    "/api/hourglass/pause",
    "/api/hourglass/resume",
    "/api/eleusis/check",
]
SCALE = float(os.environ.get("FUZZ_SCALE", "1"))


def examples(n: int) -> int:
    return max(1, round(n * SCALE))


FUZZ = settings(
    max_examples=examples(100),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Quiet:
    name = "quiet"

    def speak(self, text: str, lang: str) -> None:
        pass


class Rig:
    """One companion with the game of ``SETUPS[setup]`` running, and the host's logged-in
    client."""

    def __init__(self, setup: str, data_dir: Path) -> None:
        self.title, self.options, self.players = SETUPS[setup]
        config = Config(
            data_dir=data_dir,
            pin_factory="mock",
            camera=CameraConfig(source="generated:3"),
            host_pin=PIN,
            pauses=dict.fromkeys(("intro", "close_eyes", "cylons_open", "cylons_close"), 0.0),
        )
        self.companion: Companion = build(config, speech=Quiet())
        self.companion.table.clock = HandClock()  # no sand runs out mid-request
        self.client = host_client(self.companion.app, PIN)
        self.game_id: int | None = None
        self.kinds = sorted(game_for(self.title).actions)

    def ensure_game(self) -> None:
        """The game of this rig is running (a fuzzed /api/games may have started another)."""
        table = self.companion.table
        snap = table.snapshot()
        if snap["game"] != self.title or snap["game_id"] != self.game_id:
            table.new_game(self.title, self.options, NAMES[: self.players], seed=3)
            self.game_id = table.snapshot()["game_id"]
        assert self.companion.narrator.wait_idle(10)

    def mark(self) -> tuple[Any, ...]:
        snap = self.companion.table.snapshot()
        return snap["revision"], snap["game_id"], snap["version"], snap["state"]

    def send(self, path: str, data: bytes, content_type: str | None) -> None:
        self.ensure_game()
        before = self.mark()
        headers = {} if content_type is None else {"Content-Type": content_type}
        answer = self.client.post(path, data=data, headers=headers)
        status = answer.status_code
        shown = answer.get_data(as_text=True)[:300]
        assert status < 500 or status == 503, f"{status} for {path} {data[:200]!r}: {shown}"
        assert answer.is_json and isinstance(answer.get_json(), dict), shown
        if 400 <= status < 500:
            assert "error" in answer.get_json(), shown
            self.companion.narrator.wait_idle(10)
            assert self.mark() == before, f"{status} for {path} {data[:200]!r} changed the table"

    def close(self) -> None:
        self.companion.close()


@pytest.fixture(scope="module", params=sorted(SETUPS))
def rig(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    made = Rig(request.param, tmp_path_factory.mktemp(request.param))
    try:
        yield made
    finally:
        made.close()


# -- what is thrown at the API --------------------------------------------------------------------

HUGE = st.sampled_from([2**31, 2**63, -(2**63) - 1, 10**30, -(10**100), 10**4000])
NUMBERS = st.integers(-3, 20) | st.integers() | HUGE | st.floats(allow_nan=True)
SCALARS = st.none() | st.booleans() | NUMBERS | st.text(max_size=12)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=16,
)
DIE = st.fixed_dictionaries(
    {
        "x": NUMBERS,
        "y": NUMBERS,
        "size": NUMBERS,
        "angle": NUMBERS,
        "color": st.sampled_from(["red", "yellow", "blue", "black", "pink"]) | VALUES,
        "hole": st.booleans() | VALUES,
    }
)
PIP_DIE = st.fixed_dictionaries(  # game night's ordinary die: its value, and where it lies
    {"value": st.integers(0, 7) | VALUES},
    optional={
        "x": NUMBERS,
        "y": NUMBERS,
        "size": NUMBERS,
        "angle": NUMBERS,
        "confidence": NUMBERS,
        "color": st.sampled_from(["red", "white", "other", "pink"]) | VALUES,
    },
)
TESSON = st.fixed_dictionaries({"seat": NUMBERS | VALUES, "white": st.booleans() | VALUES})
CARD = st.builds(  # an Eleusis card: its rank and suit, "QH", "10S"; or nearly one
    "{}{}".format,
    st.sampled_from(["A", "2", "5", "9", "10", "J", "Q", "K"]),
    st.sampled_from("SHDC"),
) | st.sampled_from(["ah", " 7c ", "1S", "11H", "0D", "QX", "10", "QHH", "♥Q", "RYBK", ""])
PLAUSIBLE = (
    st.integers(-2, 12)
    | st.booleans()
    | st.lists(st.integers(-2, 12), max_size=8)
    | st.sampled_from(["A", "B", "RYBK", "red", "white", "", "standard", "camera"])
    | st.lists(DIE, max_size=5)
    | st.lists(TESSON, max_size=7)
    | VALUES
)


def typed(hint: Any) -> st.SearchStrategy[Any]:
    """Values for a field of type ``hint``: mostly of that type (small numbers near the seats,
    the enum's own values, dice, tessons and cards of the right shape), sometimes anything."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(typed(h) for h in typing.get_args(hint)))
    if origin is tuple:
        return st.lists(typed(typing.get_args(hint)[0]), max_size=17) | VALUES
    if hint is type(None):
        return st.none()
    if hint is bool:
        return st.booleans() | VALUES
    if hint is int:
        return st.integers(-2, 12) | st.integers(-2, 12) | NUMBERS | VALUES
    if hint is float:
        return st.floats(-5, 100) | NUMBERS | VALUES
    if hint is str:
        return st.sampled_from(["RYBK", "RRYY", "KKBB", "rybk", "R", ""]) | VALUES
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from([m.value for m in hint]) | VALUES
    if getattr(hint, "__name__", "") == "Die":
        return DIE | VALUES
    if getattr(hint, "__name__", "") == "PipDie":
        return PIP_DIE | VALUES
    if getattr(hint, "__name__", "") == "Tesson":
        return TESSON | VALUES
    if getattr(hint, "__name__", "") == "Card":
        return CARD | VALUES
    return PLAUSIBLE


def actions(rig: Rig) -> st.SearchStrategy[Any]:
    """Actions of the rig's game with every field, of the right type or not; loose objects
    with known kinds and field names; anything else."""
    kinds = game_for(rig.title).actions
    whole = [
        st.fixed_dictionaries(
            {
                "kind": st.just(kind),
                **{
                    f.name: typed(typing.get_type_hints(cls)[f.name])
                    for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                },
            }
        )
        for kind, cls in sorted(kinds.items())
    ]
    names = sorted(
        {f.name for cls in kinds.values() for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    )
    loose = st.builds(
        lambda k, f: {"kind": k, **f},
        st.sampled_from([*kinds, "no_such_kind"]) | VALUES,
        st.dictionaries(st.sampled_from(names), PLAUSIBLE, max_size=4),
    )
    return st.one_of(*whole) | loose | VALUES


RULES = st.sampled_from(  # Eleusis rules as the host types them: good, blocking, unreadable
    [
        "card is red",
        "card.colour != prev.colour",
        "if position mod 3 = 1 then card is even else card is odd",
        "count red in last 3 >= 2 and card is hearts",
        "carte est rouge ou carte est habillée",
        "card is red and card is black",
        "card is rde",
        "card.colour = ",
        "((card is red)",
        "card is red ))",
        "card.value = " + "9" * 40,
        "(" * 300 + "card is red" + ")" * 300,
        "not " * 120 + "card is red",
        "card is red or " * 40 + "card is red",
        "x" * 501,
        "card is \x00red",
        "   ",
    ]
) | st.text(max_size=80)
PENALTY = st.integers(0, 20)
ELEUSIS_GOOD = {  # Eleusis options each as the host page sends them (a rule may not be readable)
    "god": st.sampled_from(["companion", "human"]),
    "god_seat": st.integers(0, 9),
    "rule": RULES,
    "rule_id": st.sampled_from(["red-black", "three-suits", "no-such-rule"]),
    "level": st.sampled_from(["easy", "medium", "hard"]),
    "rule_withheld": st.booleans(),
    "cards": st.sampled_from(["digital", "physical"]),
    "decks": st.integers(2, 4),
    "hand_size": st.integers(1, 20),
    "refused_penalty": PENALTY,
    "no_play_smaller": PENALTY,
    "wrong_no_play_penalty": PENALTY,
    "fallen_prophet_penalty": PENALTY,
    "sudden_death": st.none() | st.integers(0, 520),
    "prophet_once": st.booleans(),
    "prophet_min_others": st.integers(1, 9),
    "god_without_prophet": st.sampled_from(["highest", "zero"]),
}
ELEUSIS_OPTIONS = {  # ... or not
    "god": st.sampled_from(["God", "", "HUMAN"]) | VALUES,
    "god_seat": st.integers(-2, 12) | NUMBERS | VALUES,
    "rule": VALUES,
    "rule_id": st.sampled_from(["RED-BLACK", "", "../rules"]) | VALUES,
    "level": st.sampled_from(["expert", "Easy", ""]) | VALUES,
    "rule_withheld": VALUES,
    "cards": st.sampled_from(["paper", "DIGITAL", ""]) | VALUES,
    "decks": st.integers(-1, 6) | NUMBERS | VALUES,
    "hand_size": st.integers(-1, 30) | NUMBERS | VALUES,
    "refused_penalty": NUMBERS | VALUES,
    "no_play_smaller": NUMBERS | VALUES,
    "wrong_no_play_penalty": NUMBERS | VALUES,
    "fallen_prophet_penalty": NUMBERS | VALUES,
    "sudden_death": NUMBERS | VALUES,
    "prophet_once": st.sampled_from(["true", 1, None]) | VALUES,
    "prophet_min_others": st.integers(-1, 12) | NUMBERS | VALUES,
    "god_without_prophet": st.sampled_from(["HIGHEST", "", "best"]) | VALUES,
}
ELEUSIS_PLAUSIBLE = st.fixed_dictionaries(
    {"players": st.integers(2, 10)}, optional=ELEUSIS_GOOD
)  # mostly refused only for options that do not go together (a rule twice, too few cards...)
ELEUSIS_SPOILED = st.builds(  # ... and the same with one bad option
    lambda options, bad: {**options, bad[0]: bad[1]},
    ELEUSIS_PLAUSIBLE,
    st.sampled_from(sorted(ELEUSIS_OPTIONS)).flatmap(
        lambda key: st.tuples(st.just(key), ELEUSIS_OPTIONS[key])
    ),
)

SQUARE = st.builds(  # a square of Les 7 Sages, "h8"; or nearly one
    "{}{}".format, st.sampled_from("abhno"), st.integers(0, 16)
) | st.sampled_from(["h8", "H8", " h1", "z9", "", "a", "15h", "h08"])
SAGES_GOOD = {  # Les 7 Sages options each as the host page sends them (or a layout given)
    "layout": st.sampled_from(["standard", "free"])
    | st.fixed_dictionaries(
        {"red": st.lists(SQUARE, min_size=7, max_size=7)},
        optional={"blue": st.lists(SQUARE, min_size=7, max_size=7), "fool": SQUARE},
    ),
    "target": st.integers(1, 15),
    "hourglass": st.none() | st.integers(10, 600),
    "computer": st.sampled_from([None, "red", "blue"]),
    "strength": st.integers(1, 4),
}
SAGES_OPTIONS = {  # ... or not
    "layout": st.sampled_from(["Standard", "random", ""])
    | st.dictionaries(
        st.sampled_from(["red", "blue", "fool", "x"]),
        st.lists(SQUARE, max_size=9) | SQUARE | VALUES,
        max_size=4,
    )
    | VALUES,
    "target": st.integers(-1, 20) | NUMBERS | VALUES,
    "hourglass": st.integers(-1, 700) | NUMBERS | VALUES,
    "computer": st.sampled_from(["RED", "green", "", "both"]) | VALUES,
    "strength": st.integers(-1, 6) | NUMBERS | VALUES,
}
SAGES_PLAUSIBLE = st.fixed_dictionaries({}, optional={"players": st.just(2), **SAGES_GOOD})
SAGES_SPOILED = st.builds(
    lambda options, bad: {**options, bad[0]: bad[1]},
    SAGES_PLAUSIBLE,
    st.sampled_from(sorted(SAGES_OPTIONS)).flatmap(
        lambda key: st.tuples(st.just(key), SAGES_OPTIONS[key])
    ),
)


NIGHT_PLAUSIBLE = st.fixed_dictionaries(
    {},
    optional={
        "players": st.integers(0, 21) | VALUES,
        "turn_seconds": st.integers(0, 4000) | VALUES,
        "low_wins": st.booleans() | VALUES,
        "by_color": st.booleans() | VALUES,
    },
)


def games(rig: Rig) -> st.SearchStrategy[Any]:
    """New games: of each kind with its own options (valid or not), or anything; Eleusis and
    Les 7 Sages also with many of their own options at once, plausible or with one of them
    wrong."""
    options = {
        "players": NUMBERS | VALUES,
        "mode": st.sampled_from(["standard", "junior", "antipodes", "expert"]) | VALUES,
        "votes": st.sampled_from(["buttons", "camera", "phones"]) | VALUES,
        "identities": st.sampled_from(["physical", "spoken", "none"]) | VALUES,
        "pile": st.lists(st.integers(-1, 12), max_size=12) | VALUES,
        "symbols": st.dictionaries(
            st.sampled_from(["1", "4", "6", "99", "x"]),
            st.sampled_from(["corruption", "oracle", "tromperie", "x"]),
            max_size=3,
        )
        | VALUES,
        "subjects": st.lists(st.text(max_size=6) | VALUES, max_size=5) | VALUES,
        **{k: ELEUSIS_GOOD[k] | ELEUSIS_OPTIONS[k] for k in ELEUSIS_GOOD},
        **{k: SAGES_GOOD[k] | SAGES_OPTIONS[k] for k in SAGES_GOOD},
    }
    names = sorted({*OPTION_NAMES, *options})

    def game(
        title: st.SearchStrategy[Any], chosen: st.SearchStrategy[Any]
    ) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {"game": title, "options": chosen | VALUES},
            optional={
                "names": st.lists(st.text(max_size=10), max_size=12) | VALUES,
                "language": st.sampled_from(["en", "fr", "de"]) | VALUES,
            },
        )

    any_options = st.lists(st.sampled_from(names), unique=True, max_size=4).flatmap(
        lambda keys: st.fixed_dictionaries(
            {
                "players": st.integers(2, 12) | options["players"],
                **{k: options.get(k, typed(bool) | typed(int)) for k in keys},
            }
        )
    )
    per_game = game(st.sampled_from([*TITLES, "sages", "chess"]) | VALUES, any_options)
    night = game(st.just("night"), NIGHT_PLAUSIBLE | any_options)
    eleusis = game(st.just("eleusis"), ELEUSIS_PLAUSIBLE | ELEUSIS_SPOILED | any_options)
    sages = game(st.just("sages"), SAGES_PLAUSIBLE | SAGES_SPOILED | any_options)
    return st.one_of(per_game, eleusis, sages, night, VALUES)


PRESSES = (
    st.fixed_dictionaries(
        {"seat": NUMBERS | VALUES, "button": st.sampled_from(["A", "B", "C", "a", ""]) | VALUES}
    )
    | VALUES
)
BODIES: dict[str, Callable[[Rig], st.SearchStrategy[Any]]] = {
    "/api/games": games,
    "/api/act": actions,
    "/api/press": lambda rig: PRESSES,
    # the finished game's id and a request key, or anything at all (the game runs: a refusal)
    "/api/games/rematch": lambda rig: (
        st.fixed_dictionaries(
            {"game_id": NUMBERS | VALUES, "request": st.text(max_size=120) | VALUES}
        )
        | VALUES
    ),
    # the offer's number, or anything at all (an offer taken, a stale one: refused)
    "/api/host/undo": lambda rig: st.fixed_dictionaries({"seq": NUMBERS | VALUES}) | VALUES,
    "/api/throw/read": lambda rig: VALUES,
    "/api/tessons/read": lambda rig: VALUES,
    "/api/dice/read": lambda rig: VALUES,
    "/api/hourglass/pause": lambda rig: VALUES,
    "/api/hourglass/resume": lambda rig: VALUES,
    "/api/eleusis/check": lambda rig: (
        st.fixed_dictionaries(
            {"rule": RULES | VALUES},
            optional={"language": st.sampled_from(["en", "fr", "de"]) | VALUES},
        )
        | VALUES
    ),
}
CONTENT_TYPES = st.sampled_from(
    [
        None,
        "application/json",
        "application/json; charset=utf-8",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "application/xml",
    ]
)
NESTED = st.integers(1, 30_000).map(lambda n: ("[" * n + "]" * n).encode()) | st.integers(
    1, 5_000
).map(lambda n: ('{"a":' * n + "1" + "}" * n).encode())
WEIRD = st.sampled_from(
    [
        b"",
        b"null",
        b"NaN",
        b'{"seat": NaN, "button": "A"}',
        b'{"seat": Infinity}',
        b"1e999999",
        b"9" * 5000,
        b'{"seat": ' + b"9" * 4400 + b', "button": "A"}',
        b"\xff\xfe\x00garbage",
        b'{"kind": "vote", "seat": 0',
        b"seat=1&button=A",
        b"x" * (70 * 1024),  # more than the largest body accepted
    ]
)


def encoded(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


# -- the properties -------------------------------------------------------------------------------


READS = ["/api/throw/read", "/api/tessons/read", "/api/dice/read"]
"""Endpoints that take no body: any JSON is as good as none, and each accepted one reads the
(generated) camera, about half a second: fewer examples do."""


def random_json(rig: Rig, path: str, data: st.DataObject) -> None:
    body = data.draw(BODIES[path](rig), label="body")
    rig.send(path, encoded(body), "application/json")


@pytest.mark.parametrize("path", [p for p in JSON_ENDPOINTS if p not in READS])
@FUZZ
@given(data=st.data())
def test_random_json_never_breaks_the_server_and_a_refusal_changes_nothing(
    rig: Rig, path: str, data: st.DataObject
) -> None:
    random_json(rig, path, data)


@pytest.mark.parametrize("path", READS)
@settings(FUZZ, max_examples=examples(20))
@given(data=st.data())
def test_random_json_to_a_read_never_breaks_the_server_nor_changes_a_thing_when_refused(
    rig: Rig, path: str, data: st.DataObject
) -> None:
    random_json(rig, path, data)


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@settings(FUZZ, max_examples=examples(15))
@given(raw=NESTED | WEIRD | st.binary(max_size=200), content_type=CONTENT_TYPES)
def test_bodies_that_are_not_json_or_too_deep_are_refused_cleanly(
    rig: Rig, path: str, raw: bytes, content_type: str | None
) -> None:
    rig.send(path, raw, content_type)


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@settings(FUZZ, max_examples=examples(10))
@given(body=VALUES, content_type=CONTENT_TYPES)
def test_json_under_a_wrong_content_type_is_not_taken_as_json(
    rig: Rig, path: str, body: Any, content_type: str | None
) -> None:
    rig.send(path, encoded(body), content_type)


@settings(FUZZ, max_examples=examples(30))
@given(body=st.fixed_dictionaries({"pin": VALUES}) | VALUES)
def test_random_logins_never_break_the_server_nor_log_in(rig: Rig, body: Any) -> None:
    """Wrong PINs of any type, from a visitor with the login form's token (the rate limit soon
    answers 429: still a clean refusal)."""
    visitor = rig.companion.app.test_client()
    page = visitor.get("/host").get_data(as_text=True)
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    answer = visitor.post("/host/login", json=body, headers={"X-CSRF-Token": token})
    assert answer.status_code in (400, 401, 429), answer.get_data(as_text=True)[:300]
    assert visitor.post("/api/press", json={"seat": 0, "button": "A"}).status_code == 401
