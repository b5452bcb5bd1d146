"""Bad input to every JSON endpoint, as a logged-in host with a valid CSRF token, over a running
game of each kind: random JSON values, wrong types, huge numbers, deep nesting, non-JSON bodies
and wrong content types. The server never answers 500, and a refusal (4xx) leaves the public
state as it was (same revision, same game, same version).

The real app (``companion.wiring.build``, simulated pins, the generated camera) through Flask's
test client: fast enough for a few hundred requests per game.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import PIN, host_client

from companion.config import CameraConfig, Config
from companion.games import game_for
from companion.wiring import Companion, build

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay"]
SETUPS: dict[str, tuple[dict[str, Any], int]] = {
    "resistance": ({"players": 5}, 5),
    "oraklos": ({"players": 3, "mode": "junior"}, 3),
    "ostrakon": ({"players": 6}, 6),
}
OPTION_NAMES = [  # every game's options, and one no game has
    *(
        key
        for title, (options, _) in SETUPS.items()
        for key in game_for(title).options_json(game_for(title).new(options, 1))
    ),
    "seed",
]
JSON_ENDPOINTS = [
    "/api/games",
    "/api/act",
    "/api/press",
    "/api/throw/read",
    "/api/tessons/read",
    "/api/eleusis/check",
]
FUZZ = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Quiet:
    name = "quiet"

    def speak(self, text: str, lang: str) -> None:
        pass


class Rig:
    """One companion with a game of ``title`` running, and the host's logged-in client."""

    def __init__(self, title: str, data_dir: Path) -> None:
        self.title = title
        config = Config(
            data_dir=data_dir,
            pin_factory="mock",
            camera=CameraConfig(source="generated:3"),
            host_pin=PIN,
            pauses=dict.fromkeys(("intro", "close_eyes", "cylons_open", "cylons_close"), 0.0),
        )
        self.companion: Companion = build(config, speech=Quiet())
        self.client = host_client(self.companion.app, PIN)
        self.game_id: int | None = None
        self.kinds = sorted(game_for(title).actions)

    def ensure_game(self) -> None:
        """The game of this rig is running (a fuzzed /api/games may have started another)."""
        table = self.companion.table
        snap = table.snapshot()
        if snap["game"] != self.title or snap["game_id"] != self.game_id:
            options, players = SETUPS[self.title]
            table.new_game(self.title, options, NAMES[:players], seed=3)
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
TESSON = st.fixed_dictionaries({"seat": NUMBERS | VALUES, "white": st.booleans() | VALUES})
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
    the enum's own values, dice and tessons of the right shape), sometimes anything."""
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
    if hint is str:
        return st.sampled_from(["RYBK", "RRYY", "KKBB", "rybk", "R", ""]) | VALUES
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from([m.value for m in hint]) | VALUES
    if getattr(hint, "__name__", "") == "Die":
        return DIE | VALUES
    if getattr(hint, "__name__", "") == "Tesson":
        return TESSON | VALUES
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


def games(rig: Rig) -> st.SearchStrategy[Any]:
    """New games: of each kind with its own options (valid or not), or anything."""
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
    }
    names = sorted({*OPTION_NAMES, *options})
    per_game = st.fixed_dictionaries(
        {
            "game": st.sampled_from(["resistance", "oraklos", "ostrakon", "chess"]) | VALUES,
            "options": st.lists(st.sampled_from(names), unique=True, max_size=4).flatmap(
                lambda keys: st.fixed_dictionaries(
                    {
                        "players": st.integers(2, 12) | options["players"],
                        **{k: options.get(k, typed(bool) | typed(int)) for k in keys},
                    }
                )
            )
            | VALUES,
        },
        optional={
            "names": st.lists(st.text(max_size=10), max_size=12) | VALUES,
            "language": st.sampled_from(["en", "fr", "de"]) | VALUES,
        },
    )
    return per_game | VALUES


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
    "/api/throw/read": lambda rig: VALUES,
    "/api/tessons/read": lambda rig: VALUES,
    "/api/eleusis/check": lambda rig: (
        st.fixed_dictionaries(
            {"rule": st.text(max_size=80) | VALUES},
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


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@FUZZ
@given(data=st.data())
def test_random_json_never_breaks_the_server_and_a_refusal_changes_nothing(
    rig: Rig, path: str, data: st.DataObject
) -> None:
    body = data.draw(BODIES[path](rig), label="body")
    rig.send(path, encoded(body), "application/json")


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@settings(FUZZ, max_examples=15)
@given(raw=NESTED | WEIRD | st.binary(max_size=200), content_type=CONTENT_TYPES)
def test_bodies_that_are_not_json_or_too_deep_are_refused_cleanly(
    rig: Rig, path: str, raw: bytes, content_type: str | None
) -> None:
    rig.send(path, raw, content_type)


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@settings(FUZZ, max_examples=10)
@given(body=VALUES, content_type=CONTENT_TYPES)
def test_json_under_a_wrong_content_type_is_not_taken_as_json(
    rig: Rig, path: str, body: Any, content_type: str | None
) -> None:
    rig.send(path, encoded(body), content_type)


@settings(FUZZ, max_examples=30)
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
