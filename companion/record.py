"""Game records as JSON Lines: export from the journal, and replay to the final public state.

Line 1 is the header ``{"record": "companion", "version": 2, "game": ..., "options": ...,
"seed": ...}``; every further line is one action's JSON form. An exported record holds no
secret: each game's ``public_record`` leaves out or re-deals what the table has not seen.

The game's seed (``companion.chance``) would rebuild every hidden deal and order, so the header
never carries it while the game goes on (``"seed": null``): its options are the game's
``public_setup``, which names the draws the table has seen (plot cards, wish cards, subjects,
who starts) and turns hidden deals into physical ones, and the record replays under them with no
seed (``NO_SEED``). Once the game is over the header also carries the seed, in hex, so that
anyone can check the draws. ``public_header`` decides this for every game. Version 1 headers (an
integer seed, always present) are still read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.game import Action, IllegalAction, MalformedAction, action_from_json
from companion.games.titles import game_for
from companion.journal import GameEntry, Journal
from companion.narration.catalog import Catalog
from companion.played import Played, Recorded, replayed

FORMAT = "companion"
VERSION = 2  # 2: the seed is null before the end, hex text after; 1: always an integer
READABLE = (1, 2)
NO_SEED = 0  # a record without a seed replays under this one: its options name every draw seen
_HEX = re.compile(r"[0-9a-f]{1,64}")


class RecordError(ValueError):
    """A record line that is malformed or illegal. ``line`` is 1-based."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Header:
    game: str
    options: dict[str, Any]
    seed: int | None = None  # None: not told (a game not over)

    def to_json(self) -> dict[str, Any]:
        return {
            "record": FORMAT,
            "version": VERSION,
            "game": self.game,
            "options": self.options,
            "seed": None if self.seed is None else f"{self.seed:x}",
        }

    @property
    def replay_seed(self) -> int:
        return NO_SEED if self.seed is None else self.seed


def public_record(
    game: Recorded[Any], actions: Sequence[Action], options: Mapping[str, Any], seed: int
) -> list[Action]:
    """The actions of a game as its record keeps them: the game's ``public_record``."""
    return game.public_record(replayed(game, actions, options, seed))


def public_setup(
    game: Recorded[Any], actions: Sequence[Action], options: Mapping[str, Any], seed: int
) -> dict[str, Any]:
    """The options a game's record replays under: its ``public_setup``, or its own options for
    a game that draws nothing."""
    return _public_setup(game, replayed(game, actions, options, seed))


def _public_setup(game: Recorded[Any], played: Played[Any]) -> dict[str, Any]:
    setup = getattr(game, "public_setup", None)
    public: dict[str, Any] = dict(played.options) if setup is None else setup(played)
    return public


def public_header(title: str, played: Played[Any]) -> Header:
    """The header of the record of ``played``: the game's ``public_setup``, and its seed only
    if the game is over."""
    game = _recorded(title)
    over = game.outcome(played.last) is not None
    return Header(title, _public_setup(game, played), played.seed if over else None)


def export_lines(journal: Journal, entry: GameEntry) -> Iterator[str]:
    """The record of ``entry``, a line at a time: the game replayed once, then redacted."""
    game = _recorded(entry.title)
    actions = [action_from_json(game.actions, a) for a in journal.actions(entry.id)]
    played = replayed(game, actions, entry.options, entry.seed)
    yield json.dumps(public_header(entry.title, played).to_json())
    for action in game.public_record(played):
        yield json.dumps(action.to_json())


def _recorded(title: str) -> Recorded[Any]:
    game = game_for(title)
    assert isinstance(game, Recorded), f"{title}: an engine says what its record keeps"
    return game


def replay(lines: Iterable[str]) -> dict[str, Any]:
    """Apply every action of a record; return the final public state. Raises RecordError."""
    header: Header | None = None
    state: Any = None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise RecordError(number, f"not JSON ({exc.msg} at column {exc.colno})") from None
        if header is None:
            header = _header(number, data)
            game = _game(number, header)
            try:
                state = game.new(header.options, header.replay_seed)
            except IllegalAction as exc:
                raise RecordError(number, f"bad game options: {exc}") from None
            continue
        try:
            action: Action = action_from_json(game.actions, data)
            state, _events = game.apply(state, action)
        except MalformedAction as exc:
            raise RecordError(number, f"malformed action: {exc}") from None
        except IllegalAction as exc:
            reason = Catalog("en").explain(exc)
            raise RecordError(number, f"illegal action ({exc.code}): {reason}") from None
    if header is None:
        raise RecordError(1, "the record is empty: the first line must be its header")
    view: dict[str, Any] = game.public_view(state)
    return view


def _header(number: int, data: Any) -> Header:
    if not isinstance(data, dict) or data.get("record") != FORMAT:
        raise RecordError(number, 'the first line must be a header {"record": "companion", ...}')
    version = data.get("version")
    if version not in READABLE or isinstance(version, bool):
        raise RecordError(number, f"unsupported record version {version!r}")
    game, options, seed = data.get("game"), data.get("options"), data.get("seed")
    if not isinstance(game, str) or not isinstance(options, dict):
        raise RecordError(number, "the header needs game (text) and options (object)")
    if version == 1:
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise RecordError(number, "a version 1 header needs seed (a whole number, 0 or more)")
        return Header(game, options, seed)
    if seed is None:
        return Header(game, options)
    if not isinstance(seed, str) or not _HEX.fullmatch(seed):
        raise RecordError(number, "the header's seed is null or hexadecimal text")
    return Header(game, options, int(seed, 16))


def _game(number: int, header: Header) -> Any:
    try:
        return game_for(header.game)
    except KeyError as exc:
        raise RecordError(number, str(exc.args[0])) from None
