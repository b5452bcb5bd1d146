"""The sentence catalogs: ``companion/catalog/<lang>.toml``, one key per sentence.

Placeholders: ``{name}`` is replaced by the parameter's text; ``{n|one|many}`` picks a word by
the count ``n`` (one for 0 and 1 in French, for exactly 1 in English). Seats and lists of seats
are turned into names, and colours (``color``, ``*_color``, lists of colours) into the
language's words, before they reach a template (see ``Catalog._word``).
"""

from __future__ import annotations

import re
import string
import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from companion.game import IllegalAction

LANGUAGES = ("en", "fr")
SEAT_PARAMS = frozenset({"seat", "commander", "turn", "claimant", "prophet", "god"})
# A refusal whose reason is a sentence of its own: code -> (the param naming that sentence, the
# table it is in). Its placeholders are the refusal's params (Eleusis: a rule's syntax error).
NESTED_REASONS = {"rule_syntax_error": ("error", "eleusis.rule_errors")}
COLOR_LIST_PARAMS = frozenset({"order", "card_colors", "colors"})
SEAT_LIST_PARAMS = frozenset({"squad"})
_PLURAL = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")


class CatalogError(KeyError):
    pass


@cache
def _load(lang: str) -> dict[str, str]:
    text = resources.files("companion").joinpath(f"catalog/{lang}.toml").read_text("utf-8")
    flat: dict[str, str] = {}

    def walk(prefix: str, table: Mapping[str, Any]) -> None:
        for key, value in table.items():
            if isinstance(value, Mapping):
                walk(f"{prefix}{key}.", value)
            else:
                flat[f"{prefix}{key}"] = str(value)

    walk("", tomllib.loads(text))
    return flat


class Catalog:
    """Renders catalog sentences in one language, with the table's seat names."""

    def __init__(self, lang: str, names: Sequence[str] = ()) -> None:
        if lang not in LANGUAGES:
            raise CatalogError(f"unknown language {lang!r}: choose one of {', '.join(LANGUAGES)}")
        self.lang = lang
        self.names = tuple(names)

    @staticmethod
    def keys(lang: str) -> dict[str, str]:
        return dict(_load(lang))

    def has(self, key: str) -> bool:
        return key in _load(self.lang)

    def name(self, seat: int) -> str:
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return self.text("general.seat_fallback", number=seat + 1)

    def join(self, items: Sequence[str]) -> str:
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.text('general.list_and')} {items[-1]}"

    def text(self, key: str, **params: Any) -> str:
        try:
            template = _load(self.lang)[key]
        except KeyError:
            raise CatalogError(f"no sentence {key!r} in the {self.lang} catalog") from None
        words = {k: self._word(k, v) for k, v in params.items()}

        def plural(match: re.Match[str]) -> str:
            count = params.get(match.group(1), 0)
            one = count in (0, 1) if self.lang == "fr" else count == 1
            return match.group(2) if one else match.group(3)

        return string.Formatter().vformat(_PLURAL.sub(plural, template), (), words)

    def explain(self, refusal: IllegalAction) -> str:
        """A refused action's reason, as a sentence for the table."""
        key = f"errors.{refusal.code}"
        if not self.has(key):
            return str(refusal)
        params = dict(refusal.params)
        nested = NESTED_REASONS.get(refusal.code)
        if nested is not None and self.has(f"{nested[1]}.{params.get(nested[0])}"):
            params[nested[0]] = self.text(f"{nested[1]}.{params[nested[0]]}", **params)
        return self.text(key, **params)

    def _word(self, key: str, value: Any) -> str:
        if key in SEAT_PARAMS and isinstance(value, int):
            return self.name(value)
        if (key == "color" or key.endswith("_color")) and self.has(f"colors.{value}"):
            return self.text(f"colors.{value}")
        if key in COLOR_LIST_PARAMS and isinstance(value, (list, tuple)):
            return self.join([self._word("color", v) for v in value])
        if key in SEAT_LIST_PARAMS and isinstance(value, (list, tuple)):
            return self.join([self.name(s) for s in value])
        if isinstance(value, (list, tuple)):
            return self.join([str(v) for v in value])
        return str(value)
