"""Ready-made secret rules for when the companion plays God: ``rules.toml`` beside this module.

Each rule has an id, a level (easy, medium, hard), its text in the rule language
(docs/ELEUSIS_RULES.md) and the sentence said when it is revealed, in English and French.
Every rule of the library passes the checker (tests/test_eleusis_rule_library.py): it never
blocks, some first card is acceptable, and a random card is accepted in the band of its level.
"""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from companion.games.eleusis.rule_language import Rule, parse_rule

LEVELS = ("easy", "medium", "hard")
_ID = re.compile(r"^[a-z0-9-]{1,40}$")


@dataclass(frozen=True)
class LibraryRule:
    id: str
    level: str
    rule: Rule
    en: str
    fr: str

    @property
    def text(self) -> str:
        return self.rule.text

    def description(self, lang: str) -> str:
        return self.fr if lang == "fr" else self.en


def _entry(key: str, table: Any) -> LibraryRule:
    if not _ID.match(key) or not isinstance(table, dict):
        raise ValueError(f"rules.toml: [{key}] must be a table named in a-z, 0-9 and -")
    level, text, en, fr = (table.get(k) for k in ("level", "rule", "en", "fr"))
    if level not in LEVELS:
        raise ValueError(f"rules.toml: [{key}] level must be one of {', '.join(LEVELS)}")
    if not (isinstance(text, str) and isinstance(en, str) and isinstance(fr, str)):
        raise ValueError(f"rules.toml: [{key}] needs rule, en and fr texts")
    return LibraryRule(key, level, parse_rule(text), en.strip(), fr.strip())


def _load() -> tuple[LibraryRule, ...]:
    text = resources.files("companion.games.eleusis").joinpath("rules.toml").read_text("utf-8")
    return tuple(_entry(key, table) for key, table in tomllib.loads(text).items())


LIBRARY: tuple[LibraryRule, ...] = _load()
_BY_ID = {entry.id: entry for entry in LIBRARY}


def by_id(rule_id: str) -> LibraryRule:
    try:
        return _BY_ID[rule_id]
    except KeyError:
        raise KeyError(f"no rule {rule_id!r} in the Eleusis library") from None


def draw_rule(level: str, rng: random.Random) -> LibraryRule:
    """A rule of ``level`` drawn with ``rng`` (the game's seeded generator)."""
    if level not in LEVELS:
        raise ValueError(f"a rule's level is one of {', '.join(LEVELS)}, not {level!r}")
    return rng.choice([entry for entry in LIBRARY if entry.level == level])
