"""Everything the companion says exists in French and English, with the same placeholders."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from companion.game import IllegalAction
from companion.narration.catalog import Catalog

ROOT = Path(__file__).resolve().parents[1]


def placeholders(template: str) -> set[str]:
    plain = re.sub(r"\{(\w+)\|[^{}|]*\|[^{}|]*\}", r"{\1}", template)
    return {field for _, field, _, _ in string.Formatter().parse(plain) if field}


def refusal_codes() -> set[str]:
    """Every code an engine, the moderator or a referee can refuse an action with."""
    codes = set()
    for path in (ROOT / "companion").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "IllegalAction"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                codes.add(node.args[0].value)
    return codes


def test_both_catalogs_have_the_same_sentences() -> None:
    assert set(Catalog.keys("en")) == set(Catalog.keys("fr"))


@pytest.mark.parametrize("key", sorted(Catalog.keys("en")))
def test_a_sentence_has_the_same_placeholders_in_both_languages(key: str) -> None:
    assert placeholders(Catalog.keys("en")[key]) == placeholders(Catalog.keys("fr")[key])


@pytest.mark.parametrize("code", sorted(refusal_codes()))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_refusal_can_be_explained_to_the_table(code: str, lang: str) -> None:
    assert Catalog(lang).has(f"errors.{code}"), f"errors.{code} is missing in {lang}.toml"


def test_a_refusal_is_explained_with_names_and_colour_words() -> None:
    catalog = Catalog("fr", ["Ada", "Bea"])
    refusal = IllegalAction("not_your_dice", seat=1, have=2, color="red", asked=3)
    assert catalog.explain(refusal) == "Bea a 2 dés de couleur rouge, pas 3."
    assert Catalog("en", ["Ada", "Bea"]).explain(refusal) == "Bea has 2 red dice, not 3."
