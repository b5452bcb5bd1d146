"""The table page (``templates/table.html``), as the public, the host and a seat's phone get it,
with the page's words in every language."""

from __future__ import annotations

import json
from typing import Any

from flask import render_template

from companion.games.titles import GAMES
from companion.narration.catalog import LANGUAGES, Catalog

VERDICTS = ("vote_approved", "vote_rejected")
LABEL_SECTIONS = (
    ("reason_", "oraklos.reasons."),
    ("plot_", "resistance.plot.cards."),
    ("game_", "games."),
)


def labels() -> dict[str, dict[str, str]]:
    """The page's words in every language, keyed like the catalog's ``ui`` table, plus the
    vote's verdict as the narrator says it (shown under the revealed votes)."""
    out: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        keys = Catalog.keys(lang)
        words = {k[3:]: v for k, v in keys.items() if k.startswith("ui.")}
        words.update({v: keys[f"resistance.say.{v}"] for v in VERDICTS})
        # a judged claim's reason, shown under the throw; the names of the plot cards and games
        for prefix, section in LABEL_SECTIONS:
            words.update(
                {prefix + k[len(section) :]: v for k, v in keys.items() if k.startswith(section)}
            )
        out[lang] = words
    return out


def table_page(**context: Any) -> str:
    """The table page: its script reads every view from the API and the stream (``host``,
    ``simulated``, ``tv``, ``seat_token``, ``seats``, ``csrf`` say which page it is). Each game
    of ``companion/games/titles.py`` has its part of it in ``templates/games/<game>/`` (its
    board, its options) and ``static/<game>.js``."""
    english = Catalog("en")
    games = {title: english.text(f"games.{title}") for title in GAMES}
    return render_template("table.html", labels=json.dumps(labels()), games=games, **context)
