"""The rules summary pages: ``/rules`` lists the games, ``/rules/<game>`` sums one up (issue 23).

The summaries are data, one file per game and language: ``web/rules/<lang>/<game>.md``, in a
small part of Markdown that ``render`` turns into HTML, escaping every character it does not
write itself (the files are ours, but nothing in them can put markup on the page):

- ``# Title`` once, first: the game's name;
- ``## Section title {#key}``: a section, ``key`` its id (``game``, ``round``, ``win``,
  ``companion``: every page has these four, in any language);
- ``- item`` and ``1. item`` lines: a list; any other lines: a paragraph (a blank line ends it);
- ``**strong**`` and ``*emphasis*`` inside a line.

French pages get French typography: the space before ``:``, ``;``, ``?`` and ``!`` and inside
« » is made non-breaking, so that no line starts with the punctuation. The page's own words
(its title, the links) are in ``web/rules/<lang>/page.toml``. The pages are public: the rules
hold no secret of any game.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

from flask import Blueprint, render_template, request

from companion.games.titles import GAMES as TITLES
from companion.narration.catalog import LANGUAGES, Catalog, french_spacing
from web.views import language, running_title

RULES_DIR = Path(__file__).resolve().parent / "rules"
# the order of the listing: the moderated games, then game night
GAMES = tuple(TITLES)  # each has its summary in web/rules/<lang>/<game>.md
SECTIONS = ("game", "round", "win", "companion")

_HEADING = re.compile(r"^##\s+(.+?)\s*\{#([a-z][a-z0-9_-]*)\}\s*$")
_BULLET = re.compile(r"^[-*]\s+(.*)$")
_NUMBERED = re.compile(r"^\d+[.)]\s+(.*)$")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EMPHASIS = re.compile(r"(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])")


class RulesError(ValueError):
    """A summary file that does not follow the format (a test reads every file)."""


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    html: str  # the section's body, already escaped


@dataclass(frozen=True)
class Summary:
    game: str
    lang: str
    title: str
    lead: str  # the paragraphs before the first section, as HTML
    sections: tuple[Section, ...]


def inline(text: str, lang: str) -> str:
    """One line's text as HTML: escaped, with **strong** and *emphasis*."""
    if lang == "fr":
        text = french_spacing(text)
    html = escape(text, quote=False)
    html = _STRONG.sub(r"<strong>\1</strong>", html)
    return _EMPHASIS.sub(r"<em>\1</em>", html)


def blocks(lines: list[str], lang: str) -> str:
    """Paragraphs and lists as HTML."""
    out: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    kind = ""

    def flush() -> None:
        nonlocal kind
        if paragraph:
            out.append(f"<p>{inline(' '.join(paragraph), lang)}</p>")
            paragraph.clear()
        if items:
            body = "".join(f"<li>{inline(item, lang)}</li>" for item in items)
            out.append(f"<{kind}>{body}</{kind}>")
            items.clear()
        kind = ""

    for raw in lines:
        line = raw.strip()
        bullet, numbered = _BULLET.match(line), _NUMBERED.match(line)
        if not line:
            flush()
        elif bullet or numbered:
            wanted = "ul" if bullet else "ol"
            if paragraph or kind != wanted:
                flush()
            kind = wanted
            items.append((bullet or numbered)[1])  # type: ignore[index]
        elif items and raw.startswith((" ", "\t")):  # an item's continuation line
            items[-1] += " " + line
        else:
            if items:
                flush()
            paragraph.append(line)
    flush()
    return "".join(out)


def parse(text: str, game: str, lang: str) -> Summary:
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or not lines[0].startswith("# "):
        raise RulesError(f"{lang}/{game}.md: the first line must be '# The game's name'")
    title = lines[0][2:].strip()
    lead: list[str] = []
    sections: list[tuple[str, str, list[str]]] = []
    for line in lines[1:]:
        if line.startswith("#"):
            heading = _HEADING.match(line)
            if heading is None:
                raise RulesError(f"{lang}/{game}.md: a heading must read '## Title {{#key}}'")
            sections.append((heading[2], heading[1], []))
        elif sections:
            sections[-1][2].append(line)
        else:
            lead.append(line)
    keys = [key for key, _title, _body in sections]
    if len(set(keys)) != len(keys):
        raise RulesError(f"{lang}/{game}.md: a section key twice in {keys}")
    return Summary(
        game=game,
        lang=lang,
        title=inline(title, lang),
        lead=blocks(lead, lang),
        sections=tuple(
            Section(key, inline(heading, lang), blocks(body, lang))
            for key, heading, body in sections
        ),
    )


@cache
def summary(game: str, lang: str) -> Summary:
    """The summary of ``game`` in ``lang``; KeyError for a game or language with none."""
    if game not in GAMES or lang not in LANGUAGES:
        raise KeyError(game)
    path = RULES_DIR / lang / f"{game}.md"
    return parse(path.read_text(encoding="utf-8"), game, lang)


@cache
def page_words(lang: str) -> dict[str, str]:
    """The rules pages' own words in ``lang`` (``web/rules/<lang>/page.toml``)."""
    with (RULES_DIR / lang / "page.toml").open("rb") as file:
        words = tomllib.load(file)
    if lang == "fr":
        return {key: french_spacing(str(value)) for key, value in words.items()}
    return {key: str(value) for key, value in words.items()}


blueprint = Blueprint("rules", __name__)


@blueprint.app_template_global()
def rules_link() -> str:
    """The running game's summary (or the listing), for the pages' headers."""
    running = running_title()
    return f"/rules/{running}" if running in GAMES else "/rules"


@blueprint.get("/rules")
def rules_list() -> Any:
    return page(chosen())


@blueprint.get("/rules/<game_id>")
def rules_page(game_id: str) -> Any:
    lang = chosen()
    try:
        found = summary(game_id, lang)
    except KeyError:
        text = page_words(lang)["unknown_game"].replace("{game}", game_id)
        return page(lang, 404, missing=inline(text, lang))
    return page(lang, rules=found)


def chosen() -> str:
    """``?lang=``, else the table's language (the running game's, else the table's default)."""
    asked = request.args.get("lang")
    return asked if asked in LANGUAGES else language()


def page(lang: str, status: int = 200, **context: Any) -> tuple[str, int]:
    words = page_words(lang)
    names = Catalog(lang)
    other = next(lang_ for lang_ in LANGUAGES if lang_ != lang)
    return render_template(
        "rules.html",
        lang=lang,
        words=words,
        other=other,
        other_words=page_words(other),
        games=[(g, names.text(f"games.{g}")) for g in GAMES],
        running=running_title(),
        site_title=names.text("ui.title"),
        public_page=names.text("ui.public_page"),
        **context,
    ), status
