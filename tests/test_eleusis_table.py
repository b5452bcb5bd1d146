"""Eleusis at the table (companion/moderator.py with the real journal and narrator): whole random
games with the companion as God, where the secret rule must reach no one before the end.

Everything the outside world gets is collected: each snapshot published (what the public page
and its stream carry), each seat's view, every line spoken, every log line, and the exported
record at every step. The rule's text, library id and descriptions appear in none of them until
the game is over; then the table is told the rule, and the record reveals it.
"""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Any

import pytest
from serving import PIN, Quiet
from test_eleusis_games import choose

from appliance.wiring import Companion, build
from companion.config import CameraConfig, Config
from companion.games.eleusis.rule_library import by_id

NAMES = ["Ada", "Bea", "Cy", "Dan"]
TYPED = "if prev is red then card.value > 6 else card is even"
MOST_MOVES = 600


class Said(Quiet):
    def __init__(self) -> None:
        self.said: list[str] = []

    def speak(self, text: str, lang: str) -> None:
        self.said.append(text)


def make(tmp_path: Path) -> tuple[Companion, Said]:
    speech = Said()
    config = Config(
        data_dir=tmp_path,
        pin_factory="mock",
        camera=CameraConfig(source="generated:3"),
        host_pin=PIN,
    )
    return build(config, speech=speech), speech


def secrets_of(companion: Companion, lang: str) -> tuple[list[str], str]:
    """The words that would give the rule away (its text, and its library id and descriptions),
    and the words that tell it to the table at the end (the description in the table's language,
    or the text as typed)."""
    running = companion.table.running
    assert running is not None
    info = running.state.rule_info
    assert info is not None
    if info.id is None:
        return [info.text], info.text
    rule = by_id(info.id)
    return [info.text, info.id, rule.description("en"), rule.description("fr")], rule.description(
        lang
    )


@pytest.mark.parametrize(
    ("options", "lang", "seed"),
    [
        ({"players": 4, "rule": TYPED}, "en", 1),
        ({"players": 3, "level": "medium"}, "fr", 2),
        ({"players": 4, "level": "hard", "cards": "physical"}, "en", 3),
    ],
)
def test_the_rule_reaches_no_page_stream_voice_log_or_record_before_the_end(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, options: dict[str, Any], lang: str, seed: int
) -> None:
    caplog.set_level(logging.DEBUG)
    companion, speech = make(tmp_path)
    try:
        table = companion.table
        published: list[str] = []
        table.subscribe(lambda snap: published.append(json.dumps(snap, ensure_ascii=False)))
        table.new_game("eleusis", options, NAMES[: options["players"]], lang, seed=seed)
        secret, told = secrets_of(companion, lang)
        client = companion.app.test_client()
        tokens = table.phones.links.links()
        rng = random.Random(seed)
        for _ in range(MOST_MOVES):
            running = table.running
            assert running is not None
            if running.game.outcome(running.state) is not None:
                break
            assert companion.narrator.wait_idle(10)
            seen = published + speech.said + [r.getMessage() for r in caplog.records]
            seen += [json.dumps(table.snapshot(), ensure_ascii=False), *table.export()]
            seen += [
                client.get(f"/api/seat/{t}/state").get_data(as_text=True) for t in tokens.values()
            ]
            for text in seen:
                assert not any(s in text for s in secret), text[:300]
            published.clear()
            table.submit(choose(rng, running.state))
        else:
            pytest.fail(f"the game did not end in {MOST_MOVES} moves")
        assert companion.narrator.wait_idle(10)
        over = table.snapshot()["state"]
        assert over["rule"]["text"] == secret[0]
        assert any(told in line for line in speech.said[-5:]), speech.said[-5:]
        record = "".join(table.export())
        assert secret[0] in record or (over["rule"]["id"] or "?") in record
    finally:
        companion.close()
