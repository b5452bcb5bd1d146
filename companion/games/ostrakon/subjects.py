"""The subject cards: user data, dealt by id from a deck shuffled from the game's secret seed
(``companion.chance``, RULES.md §2).

The default list is ``subjects.toml`` beside this module (id -> English and French text, and
``free = true`` for a "free subject" card); a game may bring its own list with the option
``subjects``. The engine deals ids only; the texts travel with the events for the narration.

**The reshuffle.** "Lorsqu'il n'y a plus de cartes Sujet, mélangez à nouveau toutes ces cartes et
reformez le talon": when the deck runs out, every discarded subject card is shuffled, all together
in one shuffle, into the new deck. That is every card but the one in play: the card just asked is
discarded first, and the next subject, already announced, becomes the current one. So a subject
may come back soon after a reshuffle (even the one just asked, as the next subject), as with the
printed cards. The shuffle is the game's chance like the first one (``draws``, label
``ostrakon:reshuffle:<n>``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from companion.chance import draws, take
from companion.game import IllegalAction

MIN_SUBJECTS = 2  # the current subject and the next are always on the table
_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


@dataclass(frozen=True)
class Subject:
    id: str
    en: str
    fr: str
    free: bool = False

    def text(self, lang: str) -> str:
        return self.fr if lang == "fr" else self.en

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "en": self.en, "fr": self.fr, "free": self.free}


@cache
def default_subjects() -> tuple[Subject, ...]:
    """The subjects of ``subjects.toml``, in the file's order."""
    text = resources.files("companion.games.ostrakon").joinpath("subjects.toml").read_text("utf-8")
    return tuple(_subject_from_table(key, value) for key, value in tomllib.loads(text).items())


def _subject_from_table(key: str, value: Any) -> Subject:
    if not isinstance(value, dict) or not _ID.match(key):
        raise ValueError(f"subjects.toml: [{key}] must be a table with en and fr texts")
    en, fr, free = value.get("en"), value.get("fr"), value.get("free", False)
    if not isinstance(en, str) or not isinstance(fr, str) or not isinstance(free, bool):
        raise ValueError(f"subjects.toml: [{key}] needs en and fr texts (and free = true/false)")
    return Subject(key, en, fr, free)


def subjects_from_option(value: Any) -> tuple[Subject, ...]:
    """The option ``subjects``: a list whose items are each

    - the id of a default subject (``"sea"``),
    - a subject's text, used in both languages (any other string; its id becomes
      ``custom-<position>``, counting from 1), or
    - an object ``{"id": ..., "en": ..., "fr": ..., "free": false}`` (``id`` optional, one text at
      least: a missing language takes the other's text).
    """
    if not isinstance(value, list):
        raise IllegalAction("subjects_not_a_list")
    known = {s.id: s for s in default_subjects()}
    out: list[Subject] = []
    for position, item in enumerate(value, start=1):
        if isinstance(item, str) and item in known:
            out.append(known[item])
        elif isinstance(item, str) and item.strip():
            out.append(Subject(f"custom-{position}", item.strip(), item.strip()))
        elif isinstance(item, dict):
            out.append(_custom_subject(item, position))
        else:
            raise IllegalAction("bad_subject", position=position)
    ids = [s.id for s in out]
    for subject_id in ids:
        if ids.count(subject_id) > 1:
            raise IllegalAction("subject_repeated", subject=subject_id)
    if len(out) < MIN_SUBJECTS:
        raise IllegalAction("too_few_subjects", count=len(out), least=MIN_SUBJECTS)
    return tuple(out)


def _custom_subject(item: dict[str, Any], position: int) -> Subject:
    if set(item) - {"id", "en", "fr", "free"}:
        raise IllegalAction("bad_subject", position=position)
    subject_id = item.get("id", f"custom-{position}")
    en, fr, free = item.get("en"), item.get("fr"), item.get("free", False)
    en = fr if en is None else en
    fr = en if fr is None else fr
    if (
        not isinstance(subject_id, str)
        or not _ID.match(subject_id)
        or not isinstance(en, str)
        or not isinstance(fr, str)
        or not en.strip()
        or not fr.strip()
        or not isinstance(free, bool)
    ):
        raise IllegalAction("bad_subject", position=position)
    return Subject(subject_id, en.strip(), fr.strip(), free)


def subjects_to_option(subjects: Sequence[Subject]) -> list[Any]:
    """The JSON form of a custom list: default subjects by id, others in full."""
    known = set(default_subjects())
    return [s.id if s in known else s.to_json() for s in subjects]


@dataclass(frozen=True)
class SubjectDeck:
    """The subject cards not in play: the deck (top first) and the discards (oldest first)."""

    deck: tuple[str, ...]
    discards: tuple[str, ...] = ()
    reshuffles: int = 0

    @staticmethod
    def shuffled(ids: Sequence[str], seed: int) -> SubjectDeck:
        cards = list(ids)
        draws(seed, "ostrakon:subjects").shuffle(cards)
        return SubjectDeck(tuple(cards))

    def draw(self, seed: int, named: Sequence[str] = (), index: int = 0) -> tuple[str, SubjectDeck]:
        """The top card, reshuffling the discards first if the deck is empty. The game's
        ``index``-th draw is the card ``named`` names for it, if it does (option
        ``subject_draws``: an exported record replayed without its seed)."""
        deck = self if self.deck else self.reshuffled(seed)
        cards = list(deck.deck)
        card = take(cards, named, index, "subject_draws")
        return card, SubjectDeck(tuple(cards), deck.discards, deck.reshuffles)

    def discard(self, subject: str) -> SubjectDeck:
        return SubjectDeck(self.deck, (*self.discards, subject), self.reshuffles)

    def reshuffled(self, seed: int) -> SubjectDeck:
        """All the discards, shuffled together, as the new deck."""
        cards = list(self.discards)
        draws(seed, f"ostrakon:reshuffle:{self.reshuffles + 1}").shuffle(cards)
        return SubjectDeck(tuple(cards), (), self.reshuffles + 1)
