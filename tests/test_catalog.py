"""Everything the companion says exists in French and English, with the same placeholders; the
params that are not said as they are (seats, colours, Eleusis cards, an Eleusis rule's error)."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from companion.game import IllegalAction
from companion.games.eleusis.rule_language import QUOTING_PARAMS
from companion.narration.catalog import LANGUAGES, RULE_ERRORS, RULE_ERRORS_MASKED, Catalog

ROOT = Path(__file__).resolve().parents[1]


def placeholders(template: str) -> set[str]:
    plain = re.sub(r"\{(\w+)\|[^{}|]*\|[^{}|]*\}", r"{\1}", template)
    return {field for _, field, _, _ in string.Formatter().parse(plain) if field}


def refusals(folder: Path) -> list[ast.Call]:
    """Every ``IllegalAction(code, ...)`` in the modules under ``folder``."""
    return [
        node
        for path in folder.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "IllegalAction"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]


def refusal_codes() -> set[str]:
    """Every code an engine, the moderator, a referee or a camera desk can refuse an action
    with (a desk's through ``Table.playing(title, refusal)``)."""
    packages = [ROOT / package for package in ("companion", "desks", "appliance")]
    desks = {
        node.args[1].value
        for path in (ROOT / "desks").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", None) == "playing"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Constant)
    }
    return desks | {
        node.args[0].value  # type: ignore[attr-defined]
        for folder in packages
        for node in refusals(folder)
    }


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


@pytest.mark.parametrize(("lang", "queen"), [("en", "the queen of hearts"), ("fr", "dame de cœur")])
def test_an_eleusis_card_is_said_in_words_and_other_games_cards_as_they_are_written(
    lang: str, queen: str
) -> None:
    catalog = Catalog(lang, ["Adama", "Bea"])
    eleusis = catalog.explain(IllegalAction("card_not_in_hand", seat=0, eleusis_card="QH"))
    assert queen in eleusis and "QH" not in eleusis
    assert "Adama" in eleusis
    assert "RYBX" in catalog.explain(IllegalAction("no_such_card", card="RYBX"))  # Oraklos
    plot = catalog.explain(IllegalAction("unknown_plot_card", card="QH", cards=["a", "b"]))
    assert "QH" in plot  # a Résistance plot card's code is not an Eleusis card


def test_an_eleusis_refusal_names_its_cards_as_eleusis_cards() -> None:
    """An Eleusis engine's refusal gives a card as ``eleusis_card`` (said in words), never as
    ``card`` or ``cards``, the codes other games' sentences show as they are."""
    eleusis = refusals(ROOT / "companion" / "games" / "eleusis")
    assert eleusis
    for node in eleusis:
        code = node.args[0].value  # type: ignore[attr-defined]
        assert {k.arg for k in node.keywords} & {"card", "cards"} == set(), code
        for lang in LANGUAGES:
            sentence = Catalog.keys(lang)[f"errors.{code}"]
            assert placeholders(sentence) & {"card", "cards"} == set(), (lang, code)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_rule_error_that_quotes_the_rule_can_be_said_without_quoting_it(lang: str) -> None:
    """Every sentence of an Eleusis rule's error that quotes the rule has a masked one that does
    not, with no placeholder of its own."""
    keys = Catalog.keys(lang)
    plain = {
        k.removeprefix(f"{RULE_ERRORS}."): v
        for k, v in keys.items()
        if k.startswith(f"{RULE_ERRORS}.")
    }
    masked = {
        k.removeprefix(f"{RULE_ERRORS_MASKED}."): v
        for k, v in keys.items()
        if k.startswith(f"{RULE_ERRORS_MASKED}.")
    }
    assert set(masked) == {
        code for code, text in plain.items() if placeholders(text) & QUOTING_PARAMS
    }
    for code, text in masked.items():
        assert placeholders(text) & QUOTING_PARAMS == set(), code
        assert "column" in placeholders(text)
        assert placeholders(text) <= placeholders(plain[code]), code


def test_a_refused_rule_is_explained_without_quoting_it() -> None:
    refusal = IllegalAction("rule_syntax_error", column=9, error="unknown_word", found="rde")
    assert Catalog("en").explain(refusal) == (
        "The rule cannot be read. Column 9: this word is not a word of the rule language."
    )
    assert "rde" not in Catalog("fr").explain(refusal)
    assert "Colonne 9" in Catalog("fr").explain(refusal)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_one_use_plot_card_says_on_the_page_what_playing_it_does(lang: str) -> None:
    """A Le Plan card kept for later is played from the page with a name to choose: the line
    under it says what the choice does (web/static/plot.js), in the table's language."""
    from companion.games.resistance.plot import CARDS, PlotKind

    keys = Catalog.keys(lang)
    for card, spec in CARDS.items():
        if spec.kind is PlotKind.ONE_USE:
            assert keys.get(f"ui.plot_use_{card.value}"), (lang, card)


def test_french_elides_de_and_que_before_a_name_that_starts_with_a_vowel() -> None:
    """« la carte Mission d'Ada », never « de Ada »; « de Ben » and « de Hugo » stay."""
    names = ["Ada", "Ben", "Ève", "Hugo"]
    french = Catalog("fr", names)
    said = [french.text("resistance.plot.identity_on_page", viewer="Ben", seat=s) for s in range(4)]
    assert [s.split("identité ")[1].split(" sur")[0] for s in said] == [
        "d'Ada",
        "de Ben",
        "d'Ève",
        "de Hugo",
    ]
    english = Catalog("en", names)
    assert "of Ada" in english.text("resistance.plot.identity_on_page", viewer="Ben", seat=0)
