"""Game records as JSON Lines: export from the journal, and replay to the final public state.

Line 1 is the header ``{"record": "companion", "version": 1, "game": ..., "options": ...,
"seed": ...}``; every further line is one action's JSON form. An exported record holds no
secret (see each game's ``public_record``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from companion.game import Action, IllegalAction, MalformedAction, action_from_json
from companion.games import game_for
from companion.journal import GameEntry, Journal
from companion.narration.catalog import Catalog

FORMAT = "companion"
VERSION = 1


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
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {
            "record": FORMAT,
            "version": VERSION,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
        }


def export_lines(journal: Journal, entry: GameEntry) -> Iterator[str]:
    game = game_for(entry.title)
    actions = [action_from_json(game.actions, a) for a in journal.actions(entry.id)]
    kept = game.public_record(actions, entry.options, entry.seed)
    options, seed = entry.options, entry.seed
    public_setup = getattr(game, "public_setup", None)
    if public_setup is not None:  # the seed would tell what the record leaves out
        options, seed = public_setup(actions, entry.options, entry.seed)
    yield json.dumps(Header(entry.title, options, seed).to_json())
    for action in kept:
        yield json.dumps(action.to_json())


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
                state = game.new(header.options, header.seed)
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
    if data.get("version") != VERSION:
        raise RecordError(number, f"unsupported record version {data.get('version')!r}")
    game, options, seed = data.get("game"), data.get("options"), data.get("seed")
    if not isinstance(game, str) or not isinstance(options, dict) or not isinstance(seed, int):
        raise RecordError(number, "the header needs game (text), options (object), seed (number)")
    return Header(game, options, seed)


def _game(number: int, header: Header) -> Any:
    try:
        return game_for(header.game)
    except KeyError as exc:
        raise RecordError(number, str(exc.args[0])) from None
