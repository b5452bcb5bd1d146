"""Set-up checked (issue 23): the players' names match the number of players, none twice, none
too long, or the start is refused with a sentence that says what to fix, in the language chosen
for the game, and nothing changes. No names at all means the seats' own names.

Flask's test client over the real app (``appliance.wiring.build`` in simulation), as in
tests/test_phone_seats.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from serving import PIN, host_client

from appliance.wiring import Companion
from companion.config import NAME_LIMIT
from companion.narration import Catalog

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Flo", "Gus"]


@pytest.fixture
def host(companion: Companion) -> Any:
    return host_client(companion.app, PIN)


def start(host: Any, names: list[str], **extra: Any) -> Any:
    # no night: nothing is said on its own between two looks at the table
    options = {"players": 5, "isolated_cylons": True}
    body = {"game": "resistance", "options": options, "names": names, **extra}
    return host.post("/api/games", json=body)


def refused_unchanged(host: Any, names: list[str], **extra: Any) -> str:
    """Start with ``names``: refused (400), the table as it was; the sentence why."""
    before = host.get("/api/state").get_json()
    answer = start(host, names, **extra)
    assert answer.status_code == 400, answer.get_json()
    assert host.get("/api/state").get_json() == before
    return str(answer.get_json()["error"])


def say(key: str, lang: str = "en", **params: Any) -> str:
    return Catalog(lang).text(key, **params)


def test_three_names_for_five_seats_are_refused(host: Any) -> None:
    said = refused_unchanged(host, NAMES[:3])
    assert said == say("errors.names_count", given=3, players=5)
    assert said.startswith("3 names for 5 players: give one name per player")


def test_seven_names_for_five_seats_are_refused(host: Any) -> None:
    assert refused_unchanged(host, NAMES) == say("errors.names_count", given=7, players=5)


def test_one_name_for_five_seats_is_counted_in_the_singular(host: Any) -> None:
    assert refused_unchanged(host, ["Ada"]).startswith("1 name for 5 players")


def test_a_name_given_twice_is_refused(host: Any) -> None:
    said = refused_unchanged(host, ["Ada", "Bea", "Cy", "Bea", "Eve"])
    assert said == say("errors.names_twice", name="Bea", first=2, number=4)


def test_names_differing_only_in_case_or_spaces_are_the_same_name(host: Any) -> None:
    said = refused_unchanged(host, ["Ada", "Bea", "Cy", "  aDA ", "Eve"])
    assert said == say("errors.names_twice", name="aDA", first=1, number=4)


def test_a_name_too_long_is_refused(host: Any) -> None:
    said = refused_unchanged(host, ["A" * (NAME_LIMIT + 1), *NAMES[1:5]])
    assert said == say("errors.name_too_long", limit=NAME_LIMIT, number=1)


def test_blank_lines_are_not_names(host: Any) -> None:
    """The form's empty lines: five names among blanks are five names."""
    answer = start(host, ["", "Ada", " ", "Bea", "Cy", "Dan", "Eve", ""])
    assert answer.status_code == 201
    assert answer.get_json()["names"] == NAMES[:5]


def test_five_names_for_five_seats_are_taken_as_given(host: Any) -> None:
    answer = start(host, [" Ada", "Bea ", "Cy", "Dan", "Eve"])
    assert answer.status_code == 201
    assert answer.get_json()["names"] == NAMES[:5]


def test_no_names_means_the_seats_own_names(host: Any) -> None:
    answer = start(host, [])
    assert answer.status_code == 201
    assert answer.get_json()["names"] == ["Seat 1", "Seat 2", "Seat 3", "Seat 4", "Seat 5"]


def test_a_set_up_refusal_is_in_the_language_chosen_for_the_game(host: Any) -> None:
    said = refused_unchanged(host, NAMES[:3], language="fr")
    assert said == say("errors.names_count", "fr", given=3, players=5)
    assert said.startswith("3 noms pour 5 joueurs\u00a0: donnez un nom par joueur")
    twice = refused_unchanged(host, ["Ada", "Bea", "Cy", "Bea", "Eve"], language="fr")
    assert twice.startswith("Bea est donné deux fois (noms 2 et 4)\u00a0:")


def test_a_mistaken_set_up_is_refused_before_the_running_game_is_ended(host: Any) -> None:
    """Even with the host's confirmation: the running game goes on."""
    assert start(host, NAMES[:5]).status_code == 201
    running = host.get("/api/state").get_json()["game_id"]
    refused_unchanged(host, NAMES[:3], replace=running)
    assert host.get("/api/state").get_json()["game_id"] == running


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_set_up_refusal_reads_in_both_languages(lang: str) -> None:
    for key in ("names_count", "names_twice", "game_running", "redeal_unconfirmed"):
        assert Catalog(lang).has(f"errors.{key}")
    for key in ("redeal_confirm", "replace_confirm"):
        assert Catalog(lang).has(f"ui.{key}")


def test_french_set_up_sentences_keep_french_typography() -> None:
    keys = ("errors.names_count", "errors.names_twice", "errors.game_running")
    keys += ("errors.redeal_unconfirmed", "ui.redeal_confirm", "ui.replace_confirm")
    for key in keys:
        sentence = Catalog.keys("fr")[key]
        for mark in ":?!":
            assert f" {mark}" not in sentence, key
        assert "\u00a0:" in sentence or "\u00a0?" in sentence, key
