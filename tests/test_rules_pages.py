"""The rules summary pages (issue 23): ``/rules`` and ``/rules/<game>`` (web/rules.py), one
summary per game and language in ``web/rules/<lang>/<game>.md``.

Every game has its page in English and French, naming the game, with its four sections; a French
page keeps no English section title and has French typography; the page follows ``?lang=``, else
the running game's language; an unknown game is a styled 404 with a way back; the public and seat
pages link to the running game's summary; in Chromium, no page is wider than a 360 px phone. Where
it is cheap, the summaries are checked against the rules as the engines play them (RULES.md).
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from browser import open_page, wait
from page_walk import SIZES, Size, axe_source, axe_violations, describe, layout, resize, serious
from selenium.webdriver.common.by import By
from serving import PIN, ROOT, Server, host_client

from appliance.wiring import Companion
from companion.games.oraklos.state import WINNING_SCORE as ORAKLOS_TARGET
from companion.games.resistance.tables import CYLONS
from companion.narration.catalog import LANGUAGES, Catalog, french_spacing
from web import rules
from web.rules import GAMES, SECTIONS, RulesError, parse, summary

PAGES = [(game, lang) for game in GAMES for lang in LANGUAGES]
TAG = re.compile(r"<[^>]+>")
NBSP, NNBSP = "\u00a0", "\u202f"


def section(game: str, lang: str, key: str) -> str:
    """The words of one section of a summary."""
    found = [s.html for s in summary(game, lang).sections if s.key == key]
    assert found, f"{lang}/{game}.md has no section {key}"
    return text_of(found[0])


def text_of(html: str) -> str:
    """A page's words, without its markup, spaces made plain."""
    words = unescape(TAG.sub(" ", html)).replace(NBSP, " ").replace(NNBSP, " ")
    return " ".join(words.split())


def get(companion: Companion, path: str) -> tuple[int, str]:
    answer = companion.app.test_client().get(path)
    return answer.status_code, answer.get_data(as_text=True)


def start(companion: Companion, game: str, language: str, players: int) -> None:
    host = host_client(companion.app, PIN)
    names = [f"P{n}" for n in range(players)]
    body = {"game": game, "options": {"players": players}, "names": names, "language": language}
    answer = host.post("/api/games", json=body)
    assert answer.status_code == 201, answer.get_data(as_text=True)


# -- the summaries as data ------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "lang"), PAGES)
def test_every_game_has_a_summary_with_its_sections_in_both_languages(game: str, lang: str) -> None:
    found = summary(game, lang)
    assert found.game == game and found.lang == lang and found.title
    keys = [section.key for section in found.sections]
    assert set(SECTIONS) <= set(keys), f"{lang}/{game}.md lacks {set(SECTIONS) - set(keys)}"
    assert [k for k in keys if k in SECTIONS] == list(SECTIONS), "sections out of order"
    assert found.lead, f"{lang}/{game}.md: say in one sentence what the game is"
    for section in found.sections:
        assert section.title and section.html, f"{lang}/{game}.md: {section.key} is empty"


@pytest.mark.parametrize("game", GAMES)
def test_both_languages_have_the_same_sections(game: str) -> None:
    english, french_ = summary(game, "en"), summary(game, "fr")
    assert [s.key for s in english.sections] == [s.key for s in french_.sections]


def test_the_summaries_are_package_data() -> None:
    """An installed companion has them: pyproject.toml ships web/rules/<lang>/*.md and page.toml."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^web = \[.*"rules/\*/\*\.md".*"rules/\*/\*\.toml"', text, re.MULTILINE)
    on_disk = {p.relative_to(rules.RULES_DIR).as_posix() for p in rules.RULES_DIR.rglob("*.*")}
    wanted = {f"{lang}/{game}.md" for game, lang in PAGES}
    wanted |= {f"{lang}/page.toml" for lang in LANGUAGES}
    assert on_disk == wanted


def test_the_renderer_escapes_everything_it_does_not_write() -> None:
    page = parse(
        "# A <b>game</b>\n\nLead & **strong** *em*.\n\n## T <i>x</i> {#game}\n\n"
        "- one <script>alert(1)</script>\n- two\n\n1. first\n2. second\n\nplain 2*3*4\n",
        "x",
        "en",
    )
    assert page.title == "A &lt;b&gt;game&lt;/b&gt;"
    assert page.lead == "<p>Lead &amp; <strong>strong</strong> <em>em</em>.</p>"
    section = page.sections[0]
    assert section.key == "game" and section.title == "T &lt;i&gt;x&lt;/i&gt;"
    assert section.html == (
        "<ul><li>one &lt;script&gt;alert(1)&lt;/script&gt;</li><li>two</li></ul>"
        "<ol><li>first</li><li>second</li></ol><p>plain 2*3*4</p>"
    )
    with pytest.raises(RulesError):
        parse("no title\n", "x", "en")
    with pytest.raises(RulesError):
        parse("# T\n## no key\n", "x", "en")


def test_french_typography_makes_the_spaces_before_punctuation_unbreakable() -> None:
    """The rules pages space French as every other page does (the catalog's french_spacing)."""
    assert french_spacing("Règles : oui ; non ? Si ! « Dieu »") == (
        f"Règles{NBSP}: oui{NBSP}; non{NBSP}? Si{NBSP}! «{NBSP}Dieu{NBSP}»"
    )
    assert french_spacing("As = 1, 15 × 15") == "As = 1, 15 × 15"
    page = summary("eleusis", "fr")
    assert " :" not in page.lead and " ?" not in page.lead


# -- the pages ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "lang"), PAGES)
def test_each_page_names_its_game_and_has_its_sections(
    companion: Companion, game: str, lang: str
) -> None:
    status, html = get(companion, f"/rules/{game}?lang={lang}")
    assert status == 200
    assert f'<html lang="{lang}">' in html
    assert "table.css" in html and "rules.css" in html  # the site's look
    name = Catalog(lang).text(f"games.{game}")
    assert name in text_of(re.search(r'id="game-name">(.*?)</h2>', html, re.S)[1])  # type: ignore[index]
    for key in SECTIONS:
        assert f'<section id="{key}"' in html
    assert 'href="/"' in html  # back to the table


@pytest.mark.parametrize("game", GAMES)
def test_french_pages_keep_no_english_section_title_and_write_french(
    companion: Companion, game: str
) -> None:
    _, html = get(companion, f"/rules/{game}?lang=fr")
    words = text_of(html)
    english = [s.title for s in summary(game, "en").sections] + list(
        rules.page_words("en").values()
    )
    english = [unescape(TAG.sub("", e)) for e in english if e not in ("English",)]
    leftovers = [e for e in english if e in words and e not in summary(game, "fr").title]
    assert not leftovers, f"English in the French page of {game}: {leftovers}"
    # French typography: never a plain (breakable) space before : ; ? !
    assert not re.search(r" [:;?!]", unescape(TAG.sub("", html))), (
        "a breakable space before : ; ? !"
    )


def test_the_language_is_the_running_games_unless_asked(companion: Companion) -> None:
    _, html = get(companion, "/rules/resistance")
    assert '<html lang="en">' in html  # no game: the table's default
    start(companion, "resistance", "fr", 5)
    _, html = get(companion, "/rules/resistance")
    assert '<html lang="fr">' in html and "Pour gagner" in html
    _, html = get(companion, "/rules/resistance?lang=en")
    assert '<html lang="en">' in html and "How it is won" in html
    _, html = get(companion, "/rules/resistance?lang=xx")  # a language we do not have: the table's
    assert '<html lang="fr">' in html
    # the other language is one link away, on the same page
    assert 'href="/rules/resistance?lang=en" id="other-language"' in html


def test_the_listing_names_every_game_and_marks_the_running_one(companion: Companion) -> None:
    start(companion, "oraklos", "en", 3)
    status, html = get(companion, "/rules")
    assert status == 200
    for game in GAMES:
        assert f'href="/rules/{game}?lang=en"' in html
        assert Catalog("en").text(f"games.{game}") in unescape(html)
    assert re.search(r'id="rules-oraklos" aria-current="true"', html)
    assert html.count('aria-current="true"') == 1


@pytest.mark.parametrize("path", ["/rules/chess", "/rules/<script>", "/rules/Resistance"])
def test_an_unknown_game_is_a_styled_404_with_a_way_back(companion: Companion, path: str) -> None:
    status, html = get(companion, path)
    assert status == 404
    assert "table.css" in html and 'id="not-found"' in html
    assert 'href="/rules?lang=en"' in html and 'href="/"' in html
    assert "<script>" not in html  # the name asked for is shown escaped
    status, html = get(companion, f"{path}?lang=fr")
    assert status == 404 and "Jeu inconnu" in html


def test_the_rules_pages_are_public(companion: Companion) -> None:
    """No session, no secret: anyone reads them, and they never carry the host's token."""
    start(companion, "resistance", "en", 5)
    for path in ("/rules", "/rules/resistance"):
        answer = companion.app.test_client().get(path)
        assert answer.status_code == 200
        assert "csrf" not in answer.get_data(as_text=True).lower()
        assert "Set-Cookie" not in answer.headers


def test_the_public_and_seat_pages_link_to_the_running_games_rules(companion: Companion) -> None:
    _, html = get(companion, "/")
    assert 'href="/rules" id="nav-rules"' in html
    start(companion, "resistance", "en", 5)
    _, html = get(companion, "/")
    assert 'href="/rules/resistance" id="nav-rules"' in html
    token = next(iter(companion.table.phones.links.links().values()))
    _, html = get(companion, f"/seat/{token}")
    assert 'href="/rules/resistance" id="nav-rules"' in html


# -- the content, against the rules as played -----------------------------------------------------


def test_resistance_says_when_a_mission_fails() -> None:
    """One Fail card fails a mission, except the fourth at 7+ players: two (tables.fails_needed)."""
    english = section("resistance", "en", "round")
    assert "fails with a single Fail card" in english
    assert "fourth mission at 7 players or more" in english
    assert "fails only with two Fail cards" in english
    french_ = section("resistance", "fr", "round")
    assert "Une seule carte Mission Échouée fait échouer la mission" in french_
    assert "quatrième mission à 7 joueurs ou plus" in french_
    assert "deux cartes Mission Échouée" in french_


@pytest.mark.parametrize("lang", LANGUAGES)
def test_resistance_counts_its_cylons_and_its_ends_as_the_engine(lang: str) -> None:
    words = section("resistance", lang, "game")
    counts = re.findall(r"(\d+) (?:Cylons )?(?:at|à|de) (\d+)", words)
    assert (str(CYLONS[5]), "5") in counts and (str(CYLONS[10]), "10") in counts
    win = section("resistance", lang, "win").lower()
    for needed in {"en": ("three", "five"), "fr": ("trois", "cinq")}[lang]:
        assert needed in win


def test_the_french_resistance_speaks_like_the_catalog() -> None:
    """One word per concept, the seed's and fr.toml's: escadron, Commandant, cartes Complot."""
    words = text_of(TAG.sub(" ", "".join(s.html for s in summary("resistance", "fr").sections)))
    assert "escadron" in words and "Commandant" in words and "cartes Complot" in words
    for stray in ("escouade", "équipe", "commandant ", "cartes Plan", "Succès", "Échec "):
        assert stray not in words, stray


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_other_games_targets_are_the_engines(lang: str) -> None:
    oraklos = section("oraklos", lang, "win")
    assert f"{ORAKLOS_TARGET} points" in oraklos
    sages = section("sages", lang, "win")
    assert "5 points" in sages
    ostrakon = section("ostrakon", lang, "win")
    assert "Victoire Suprême" in ostrakon


# -- in Chromium ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=[size.name for size in SIZES])
def test_no_rules_page_is_wider_than_the_screen(driver: Any, server: Server, size: Size) -> None:
    """At phone (360 px), tablet and TV sizes, as tests/test_accessibility.py measures pages."""
    resize(driver, size)
    problems = []
    for path in ["/rules", "/rules/nothing"] + [f"/rules/{g}?lang={lang}" for g, lang in PAGES]:
        driver.get(server.url + path)
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "main.rules"), f"{path} to load")
        shape = layout(driver)
        assert shape["inner"] == size.width
        if shape["wide"] > shape["inner"] or shape["cut"]:
            problems.append(f"{path}: {shape}")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_the_rules_pages_are_accessible(driver: Any, server: Server) -> None:
    """axe-core (WCAG 2 A and AA) finds nothing serious, as on the other pages."""
    try:
        axe = axe_source()
    except FileNotFoundError as exc:
        pytest.fail(str(exc), pytrace=False)
    problems: list[str] = []
    for size in (SIZES[0], SIZES[-1]):
        resize(driver, size)
        for path in ("/rules", "/rules/nothing?lang=fr", "/rules/resistance?lang=fr"):
            driver.get(server.url + path)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "main.rules"), path)
            where = f"{path} at {size.name}"
            problems += [describe(v, where) for v in serious(axe_violations(driver, axe))]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_the_public_pages_link_leads_to_the_running_games_rules(
    driver: Any, server: Server
) -> None:
    status, _ = server.post(
        "/api/games",
        {"game": "oraklos", "options": {"players": 3}, "names": ["A", "B", "C"], "language": "fr"},
    )
    assert status == 201
    open_page(driver, server, "/")
    link = driver.find_element(By.ID, "nav-rules")
    wait(driver, lambda d: link.text == "Règles", "the link in the game's language")
    assert link.get_attribute("href").endswith("/rules/oraklos?lang=fr")
    link.click()
    wait(driver, lambda d: d.find_elements(By.ID, "rules"), "the rules page")
    assert driver.find_element(By.ID, "rules").get_attribute("data-game") == "oraklos"
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
    assert "Oraklos" in driver.find_element(By.ID, "game-name").text
