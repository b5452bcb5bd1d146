"""What every game engine shares: actions, events and their audience, outcomes, refusals.

An engine is pure: it never reads a clock, prints, or touches a device. It turns a state and an
action into a new state and a list of events, or refuses the action with an ``IllegalAction``
and leaves the state as it was (states are immutable, so "as it was" costs nothing).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

JSON = dict[str, Any]


class IllegalAction(Exception):
    """An action the rules refuse. ``code`` names a catalog sentence; ``params`` fill it in.

    Engines hold no sentences (they live in ``companion/catalog``): the moderator renders the
    reason in the table's language, and ``str()`` gives the code and its parameters for logs.
    """

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        if not self.params:
            return self.code
        details = ", ".join(f"{key}={value!r}" for key, value in sorted(self.params.items()))
        return f"{self.code} ({details})"


class MalformedAction(ValueError):
    """A JSON action that does not even name a known action with the right fields."""


class AudienceKind(enum.Enum):
    EVERYONE = "everyone"
    SEAT = "seat"
    NOBODY = "nobody"


@dataclass(frozen=True)
class Audience:
    """Who may learn of an event: the whole table, one seat, or nobody (kept for the record)."""

    kind: AudienceKind
    seat: int | None = None

    @staticmethod
    def only(seat: int) -> Audience:
        return Audience(AudienceKind.SEAT, seat)

    def includes(self, seat: int | None) -> bool:
        if self.kind is AudienceKind.EVERYONE:
            return True
        return self.kind is AudienceKind.SEAT and seat == self.seat


EVERYONE = Audience(AudienceKind.EVERYONE)
NOBODY = Audience(AudienceKind.NOBODY)


@dataclass(frozen=True)
class Event:
    """Something that happened, for narration and the page. ``data`` holds only JSON values."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    audience: Audience = EVERYONE

    def to_json(self) -> JSON:
        return {"kind": self.kind, **self.data}


class Action:
    """Base of every action: a frozen dataclass with a ``kind`` and a JSON form.

    Subclasses are ``@dataclass(frozen=True)`` with fields of type int, float, bool, str, an
    enum, a value object with ``to_json()`` and a static ``from_json(data, index)`` (raising
    ValueError), ``X | None`` or ``tuple[X, ...]``; ``action_from_json`` checks each field so
    that a malformed record line is refused with a reason instead of failing later.
    """

    kind: ClassVar[str]

    def to_json(self) -> JSON:
        out: JSON = {"kind": self.kind}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            out[f.name] = _to_json(getattr(self, f.name))
        return out


def _to_json(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    if hasattr(value, "to_json"):
        return value.to_json()
    return value


A = TypeVar("A", bound=Action)


def action_from_json(kinds: Mapping[str, type[Action]], data: Any) -> Action:
    """Build an action from its JSON form, checking the kind, the fields and their types."""
    if not isinstance(data, dict):
        raise MalformedAction("an action must be a JSON object")
    kind = data.get("kind")
    cls = kinds.get(kind) if isinstance(kind, str) else None
    if cls is None or not isinstance(kind, str):
        raise MalformedAction(f"unknown action kind {kind!r}; known: {', '.join(sorted(kinds))}")
    hints = typing.get_type_hints(cls)
    expected = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    given = set(data) - {"kind"}
    if given - expected:
        raise MalformedAction(f"{kind}: unexpected field(s) {', '.join(sorted(given - expected))}")
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            if f.default is dataclasses.MISSING:
                raise MalformedAction(f"{kind}: missing field {f.name!r}")
            continue
        values[f.name] = _coerce(kind, f.name, hints[f.name], data[f.name])
    return cls(**values)


def _coerce(kind: str, name: str, hint: Any, value: Any, index: int = 0) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        inner = [o for o in options if o is not type(None)]
        return _coerce(kind, name, inner[0], value)
    if origin is tuple:
        (item, _ellipsis) = typing.get_args(hint)
        if not isinstance(value, list):
            raise MalformedAction(f"{kind}: {name} must be a list")
        return tuple(_coerce(kind, name, item, v, i) for i, v in enumerate(value))
    if isinstance(hint, type) and hasattr(hint, "from_json"):
        try:
            return hint.from_json(value, index)
        except ValueError as exc:
            raise MalformedAction(f"{kind}: {name}: {exc}") from None
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            allowed = ", ".join(str(m.value) for m in hint)
            raise MalformedAction(f"{kind}: {name} must be one of {allowed}") from None
    if hint is bool:
        if not isinstance(value, bool):
            raise MalformedAction(f"{kind}: {name} must be true or false")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise MalformedAction(f"{kind}: {name} must be a whole number")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise MalformedAction(f"{kind}: {name} must be a number")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise MalformedAction(f"{kind}: {name} must be a string")
        return value
    raise TypeError(f"unsupported field type {hint!r} in {kind}.{name}")


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winning side or seats, and why (a game-specific enum)."""

    winner: str
    reason: enum.Enum

    def to_json(self) -> JSON:
        return {"winner": self.winner, "reason": self.reason.value}


S = TypeVar("S")


class Game(Protocol, Generic[S]):
    """The interface the moderator, the journal and the web layer rely on."""

    title: str
    actions: Mapping[str, type[Action]]

    def new(self, options: Mapping[str, Any], seed: int) -> S: ...

    def legal_actions(self, state: S, seat: int | None) -> Iterator[Action]: ...

    def apply(self, state: S, action: Action) -> tuple[S, list[Event]]: ...

    def public_view(self, state: S) -> JSON: ...

    def private_view(self, state: S, seat: int) -> JSON: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def options_json(self, state: S) -> JSON: ...

    def public_record(
        self, actions: Sequence[Action], options: Mapping[str, Any], seed: int
    ) -> list[Action]:
        """The actions as they may be shown to anyone: secrets re-dealt or left out."""
        ...
