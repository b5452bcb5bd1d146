"""Every game has each of its parts, in the places docs/ARCHITECTURE.md names ("Where a new game
goes"): a game registered in ``companion/games/titles.py`` and missing one fails here, naming the
file to add; and no part is left behind for a game that is not registered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.at_table import RULES
from companion.games.titles import GAMES
from companion.narration.catalog import LANGUAGES, Catalog

ROOT = Path(__file__).resolve().parents[1]
REGISTERED = re.compile(r'registerGame\("([a-z_]+)"')


@pytest.mark.parametrize("title", list(GAMES))
def test_each_game_has_its_rules_at_the_table_and_its_name(title: str) -> None:
    assert title in RULES, f"add companion/at_table/{title}.py and its line in RULES"
    for lang in LANGUAGES:
        assert Catalog(lang).text(f"games.{title}"), f"[games] {title} in the {lang} catalog"


@pytest.mark.parametrize("title", list(GAMES))
def test_each_game_has_its_parts_of_the_pages(title: str) -> None:
    web = ROOT / "web"
    for lang in LANGUAGES:
        assert (web / "rules" / lang / f"{title}.md").is_file(), f"web/rules/{lang}/{title}.md"
    for part in ("board.html", "options.html"):
        assert (web / "templates" / "games" / title / part).is_file(), f"games/{title}/{part}"
    options = (web / "templates" / "games" / title / "options.html").read_text("utf-8")
    assert f'id="{title}-options"' in options, "the options' fieldset is named for its game"
    script = web / "static" / f"{title}.js"
    assert REGISTERED.findall(script.read_text("utf-8")) == [title], f"registerGame in {script}"


def test_no_part_is_left_for_a_game_that_is_not_registered() -> None:
    web = ROOT / "web"
    folders = {p.name for p in (web / "templates" / "games").iterdir() if p.is_dir()}
    registered = {
        title
        for path in (web / "static").glob("*.js")
        for title in REGISTERED.findall(path.read_text("utf-8"))
    }
    assert folders == registered == set(GAMES) == set(RULES)
