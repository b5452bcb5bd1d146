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
from collections.abc import Callable, Iterator, Mapping
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

    An action built in Python passes the same checks on construction (``__post_init__``): a
    field of the wrong type raises ``MalformedAction`` with the reason ``action_from_json``
    gives for the same value (``Vote(0, None)``: "vote: white must be true or false"). The only
    differences are the Python forms themselves: a tuple field takes a tuple (not a list), an
    enum field a member (not its JSON value), a value-object field the object (not its JSON).
    """

    kind: ClassVar[str]

    def __post_init__(self) -> None:
        """The first action of each class compiles that class's own check (``_compile``), which
        then replaces this method for the class."""
        _compile(type(self))(self)

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
            raise _wrong(kind, name, hint)
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
            raise _wrong(kind, name, hint) from None
    if hint in _SCALARS:
        if not _SCALARS[hint](value):
            raise _wrong(kind, name, hint)
        return float(value) if hint is float else value
    raise TypeError(f"unsupported field type {hint!r} in {kind}.{name}")


# The scalar types a field may have, and which values are of that type: a bool is no number.
_SCALARS: dict[Any, Callable[[Any], bool]] = {
    bool: lambda value: isinstance(value, bool),
    int: lambda value: isinstance(value, int) and not isinstance(value, bool),
    float: lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    str: lambda value: isinstance(value, str),
}
_SCALAR_WORDS = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
}


def _wrong(kind: str, name: str, hint: Any) -> MalformedAction:
    """The reason a value is not of type ``hint``, the same from JSON and from Python."""
    if typing.get_origin(hint) is tuple:
        return MalformedAction(f"{kind}: {name} must be a list")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        allowed = ", ".join(str(m.value) for m in hint)
        return MalformedAction(f"{kind}: {name} must be one of {allowed}")
    return MalformedAction(f"{kind}: {name} must be {_SCALAR_WORDS[hint]}")


# -- the same checks on an action built in Python ------------------------------------------------

Check = Callable[[Any, int], None]  # (value, position in its tuple) -> None or MalformedAction


def _compile(cls: type) -> Callable[[Any], None]:
    """The ``__post_init__`` of action class ``cls``, set on the class: for each field, a value of
    the type right values nearly always have (``_usual``) passes at the cost of one comparison;
    any other goes to the field's full check, which accepts it or says why not. Generated as
    source, like dataclasses' own ``__init__``, to keep the cost of building an action low (legal
    actions are built by the thousand)."""
    kind = getattr(cls, "kind", cls.__name__)
    hints = typing.get_type_hints(cls)
    scope: dict[str, Any] = {"cls": cls, "generic": Action.__post_init__}
    lines = ["def __post_init__(self):", "    if type(self) is not cls: return generic(self)"]
    for i, f in enumerate(dataclasses.fields(cls)):
        hint = hints[f.name]
        scope[f"check{i}"] = _check_for(kind, f.name, hint)
        lines.append(f"    v = self.{f.name}")
        if typing.get_origin(hint) is tuple:
            scope[f"item{i}"] = _usual(typing.get_args(hint)[0])
            lines += [
                f"    if type(v) is not tuple: check{i}(v, 0)",
                "    else:",
                "        for x in v:",
                f"            if type(x) is not item{i}:",
                f"                check{i}(v, 0)",
                "                break",
            ]
        else:
            scope[f"usual{i}"] = _usual(hint)
            lines.append(f"    if type(v) is not usual{i}: check{i}(v, 0)")
    exec("\n".join(lines), scope)  # names of fields and of this scope only
    compiled: Callable[[Any], None] = scope["__post_init__"]
    cls.__post_init__ = compiled  # type: ignore[attr-defined]
    return compiled


def _usual(hint: Any) -> type | None:
    """The exact type of a right value of type ``hint``, in the common case (``X | None``: X's;
    a tuple: None, its items are to be checked)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _usual(next(o for o in typing.get_args(hint) if o is not type(None)))
    if origin is tuple:
        return None
    return hint if isinstance(hint, type) else None


def _check_for(kind: str, name: str, hint: Any) -> Check:
    """A check of a Python value against ``hint``: the type rules of ``_coerce``, with the reason
    it gives for the same value."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        inner = _check_for(kind, name, next(o for o in options if o is not type(None)))
        if type(None) not in options:
            return inner

        def optional(value: Any, index: int) -> None:
            if value is not None:
                inner(value, 0)

        return optional
    if origin is tuple:
        (item, _ellipsis) = typing.get_args(hint)
        each = _check_for(kind, name, item)
        usual = _usual(item)

        def sequence(value: Any, index: int) -> None:
            if type(value) is tuple:
                for v in value:
                    if type(v) is not usual:
                        break
                else:
                    return  # every item of the usual type
            if not isinstance(value, tuple):
                if isinstance(value, list):
                    raise MalformedAction(f"{kind}: {name} must be a tuple (a list in JSON)")
                raise _wrong(kind, name, hint)
            for i, v in enumerate(value):
                each(v, i)

        return sequence
    if isinstance(hint, type) and hasattr(hint, "from_json"):

        def value_object(value: Any, index: int) -> None:
            if isinstance(value, hint):
                return
            try:
                hint.from_json(value, index)
            except ValueError as exc:
                raise MalformedAction(f"{kind}: {name}: {exc}") from None
            raise MalformedAction(f"{kind}: {name} must be a {hint.__name__}, not its JSON form")

        return value_object
    if isinstance(hint, type) and issubclass(hint, enum.Enum):

        def member(value: Any, index: int) -> None:
            if isinstance(value, hint):
                return
            try:
                hint(value)
            except ValueError:
                raise _wrong(kind, name, hint) from None
            raise MalformedAction(f"{kind}: {name} must be a {hint.__name__}, not its JSON value")

        return member
    if hint in _SCALARS:
        test = _SCALARS[hint]

        def scalar(value: Any, index: int) -> None:
            if type(value) is not hint and not test(value):  # the exact type: the common case
                raise _wrong(kind, name, hint)

        return scalar
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
    """The interface the moderator, the journal and the web layer rely on (and a record's
    export, ``companion/played.py``'s ``Recorded``)."""

    title: str
    actions: Mapping[str, type[Action]]

    def new(self, options: Mapping[str, Any], seed: int) -> S: ...

    def legal_actions(self, state: S, seat: int | None) -> Iterator[Action]: ...

    def apply(self, state: S, action: Action) -> tuple[S, list[Event]]: ...

    def public_view(self, state: S) -> JSON: ...

    def private_view(self, state: S, seat: int) -> JSON: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def options_json(self, state: S) -> JSON: ...
