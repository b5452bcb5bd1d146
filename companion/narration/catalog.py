"""The sentence catalogs: ``companion/catalog/<lang>.toml``, one key per sentence.

Placeholders: ``{name}`` is replaced by the parameter's text; ``{n|one|many}`` picks a word by
the count ``n`` (one for 0 and 1 in French, for exactly 1 in English). Seats and lists of seats
are turned into names, colours (``color``, ``*_color``, lists of colours) and Eleusis cards
(``eleusis_card``: "QH" is "queen of hearts") into the language's words, before they reach a
template (see ``Catalog._word``). Other games' ``card`` params (Résistance's plot cards,
Oraklos' wish cards) are codes the players read as they are.
"""

from __future__ import annotations

import functools
import re
import string
import tomllib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from companion.game import IllegalAction
from companion.games.eleusis.cards import RANK_NAMES, Card
from companion.games.eleusis.rule_language import QUOTING_PARAMS

LANGUAGES = ("en", "fr")
SEAT_PARAMS = frozenset({"seat", "commander", "turn", "claimant", "prophet", "god"})
ELEUSIS_CARD_PARAMS = frozenset({"eleusis_card"})
# An Eleusis rule's syntax error (``RuleSyntaxError.code``): the sentence quoting the rule as
# written, and the one saying only where and what kind of error (for codes whose sentence quotes).
RULE_ERRORS = "eleusis.rule_errors"
RULE_ERRORS_MASKED = "eleusis.rule_errors_masked"
COLOR_LIST_PARAMS = frozenset({"order", "card_colors", "colors"})
SEAT_LIST_PARAMS = frozenset({"squad", "leaders"})
_PLURAL = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")
# French elides "de" and "que" before a vowel: "la carte Mission d'Ada", "plus qu'Ève". Only
# before a placeholder (the fixed words are written elided); an "h" is left alone (aspiré or not).
_ELIDABLE = re.compile(r"\b(de|que) \{(\w+)\}")
_VOWELS = frozenset("aeiouyàâäéèêëîïôöùûüÿæœ")


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
                flat[f"{prefix}{key}"] = french_spacing(str(value)) if lang == "fr" else str(value)

    walk("", tomllib.loads(text))
    return flat


@cache
def _fixed(lang: str) -> frozenset[str]:
    return frozenset(text for text in _load(lang).values() if "{" not in text)


_BEFORE_PUNCTUATION = re.compile(r"[ \u202f]+([:;?!»])")


def french_spacing(text: str) -> str:
    """French typography: a non-breaking space before « : ; ? ! » and inside « », so that a line
    never starts with a colon on a phone. The catalog is written with plain spaces."""
    text = _BEFORE_PUNCTUATION.sub("\u00a0\\1", text)
    return re.sub(r"«[ \u202f]*", "«\u00a0", text)


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

    @staticmethod
    def fixed_lines(lang: str) -> frozenset[str]:
        """Every sentence of the language whose words never change (no placeholder)."""
        return _fixed(lang)

    def section(self, prefix: str) -> Callable[..., str]:
        """The sentences under one prefix: ``say = catalog.section("oraklos.say.")``, then
        ``say("round_started", round=2, seat=0)``."""
        return functools.partial(self._under, prefix)

    def _under(self, prefix: str, key: str, **params: Any) -> str:
        return self.text(prefix + key, **params)

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

        def elided(match: re.Match[str]) -> str:
            word = words.get(match.group(2), "")
            if word[:1].lower() in _VOWELS:
                return f"{match.group(1)[:-1]}'{{{match.group(2)}}}"
            return match.group(0)

        if self.lang == "fr":
            template = _ELIDABLE.sub(elided, template)
        return string.Formatter().vformat(_PLURAL.sub(plural, template), (), words)

    def explain(self, refusal: IllegalAction) -> str:
        """A refused action's reason, as a sentence for the table. A rule's syntax error
        (``rule_syntax_error``, its sentence's code as ``error``) never quotes the rule."""
        key = f"errors.{refusal.code}"
        if not self.has(key):
            return str(refusal)
        params = dict(refusal.params)
        if refusal.code == "rule_syntax_error":
            params["error"] = self.rule_error(str(params.get("error")), params)
        return self.text(key, **params)

    def rule_error(self, code: str, params: Mapping[str, Any], *, quoted: bool = False) -> str:
        """An Eleusis rule's syntax error (``RuleSyntaxError``: its ``code``; its ``params`` and
        ``column`` in ``params``). The rule is secret: the sentence says where and what kind of
        error only, unless ``quoted`` (for a host who sees the rule typed), when it may quote the
        rule's faulty words. An unknown code is returned as it is."""
        words = dict(params)
        keys = [f"{RULE_ERRORS}.{code}"]
        if not quoted:  # and should a masked sentence be missing, the quotes say "…"
            words = {k: "…" if k in QUOTING_PARAMS else v for k, v in params.items()}
            keys.insert(0, f"{RULE_ERRORS_MASKED}.{code}")
        for key in keys:
            if self.has(key):
                return self.text(key, **words)
        return code

    def _word(self, key: str, value: Any) -> str:
        if key in SEAT_PARAMS and isinstance(value, int):
            return self.name(value)
        if key in ELEUSIS_CARD_PARAMS and isinstance(value, str):
            return eleusis_card_words(self, value)
        if (key == "color" or key.endswith("_color")) and self.has(f"colors.{value}"):
            return self.text(f"colors.{value}")
        if key in COLOR_LIST_PARAMS and isinstance(value, (list, tuple)):
            return self.join([self._word("color", v) for v in value])
        if key in SEAT_LIST_PARAMS and isinstance(value, (list, tuple)):
            return self.join([self.name(s) for s in value])
        if isinstance(value, (list, tuple)):
            return self.join([str(v) for v in value])
        return str(value)


def eleusis_card_words(catalog: Catalog, card: str) -> str:
    """An Eleusis card as the table says it: "QH" is "queen of hearts", « dame de cœur »
    (anything but a card's code is left as it is)."""
    try:
        parsed = Card.from_json(card)
    except ValueError:
        return card
    letter = RANK_NAMES.get(parsed.rank)
    rank = str(parsed.rank) if letter is None else catalog.text(f"eleusis.say.ranks.{letter}")
    suit = catalog.text(f"eleusis.say.suits.{parsed.suit.value}")
    return catalog.text("eleusis.say.card", rank=rank, suit=suit)
