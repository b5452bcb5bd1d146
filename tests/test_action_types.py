"""An action built in Python passes the same type checks as one read from JSON
(``companion/game.py``, ``Action.__post_init__``): for every action class of every game, a field
of the wrong type is refused both ways, with the same reason. ``Vote(0, None)`` used to be
accepted in Python and refused from JSON.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any

import pytest

from companion.game import Action, MalformedAction, action_from_json
from companion.games.ostrakon.state import ClaimDisciple, Name, Revealed, Tesson, Vote
from companion.games.resistance.state import Card, PlayMissionCard
from companion.games.titles import GAMES

# A valid JSON value of each value-object type a field may have.
VALID_JSON: dict[str, Any] = {
    "Square": "h8",
    "Card": "QH",
    "Die": {"x": 10, "y": 10, "size": 16, "color": "red"},
    "PipDie": {"value": 3},
    "Tesson": {"seat": 0, "white": True},
}
# A value of the wrong type for each kind of field: wrong in Python and in JSON alike.
WRONG: dict[Any, Any] = {int: "seven", bool: "yes", float: "soon", str: 7}


def every_action_class() -> list[type[Action]]:
    classes = {cls for game in GAMES.values() for cls in game.actions.values()}
    return sorted(classes, key=lambda cls: (cls.__module__, cls.__name__))


def valid_json(hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return None
    if origin is tuple:
        return []
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return next(iter(hint)).value
    if isinstance(hint, type) and hasattr(hint, "from_json"):
        return VALID_JSON[hint.__name__]
    return {int: 0, bool: True, float: 1.0, str: "x"}[hint]


def wrong_value(hint: Any) -> Any:
    """A value wrong for ``hint`` in both worlds (for ``X | None``, wrong for ``X``)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return wrong_value(next(o for o in typing.get_args(hint) if o is not type(None)))
    if origin is tuple:
        return 7  # neither a list nor a tuple
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return "no-such-value"
    if isinstance(hint, type) and hasattr(hint, "from_json"):
        return 7
    return WRONG[hint]


def fields_of_every_action() -> list[tuple[type[Action], str]]:
    return [
        (cls, f.name)
        for cls in every_action_class()
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
    ]


def test_every_game_has_actions_with_fields_to_check() -> None:
    titles = {cls.__module__.split(".")[2] for cls, _ in fields_of_every_action()}
    assert {"resistance", "oraklos", "ostrakon", "eleusis", "sages", "night"} <= titles


@pytest.mark.parametrize(
    ("cls", "name"), fields_of_every_action(), ids=lambda v: getattr(v, "__name__", v)
)
def test_a_wrongly_typed_field_is_refused_from_python_and_from_json_alike(
    cls: type[Action], name: str
) -> None:
    hints = typing.get_type_hints(cls)
    data = {f.name: valid_json(hints[f.name]) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    kinds = {cls.kind: cls}
    valid = action_from_json(kinds, {"kind": cls.kind, **data})
    wrong = wrong_value(hints[name])
    with pytest.raises(MalformedAction) as from_json:
        action_from_json(kinds, {"kind": cls.kind, **data, name: wrong})
    with pytest.raises(MalformedAction) as from_python:
        dataclasses.replace(valid, **{name: wrong})
    assert str(from_python.value) == str(from_json.value)
    assert str(from_json.value).startswith(f"{cls.kind}: {name}")


def tuple_fields() -> list[tuple[type[Action], str]]:
    return [
        (cls, name)
        for cls, name in fields_of_every_action()
        if typing.get_origin(typing.get_type_hints(cls)[name]) is tuple
    ]


@pytest.mark.parametrize(("cls", "name"), tuple_fields(), ids=lambda v: getattr(v, "__name__", v))
def test_a_wrongly_typed_item_of_a_list_is_refused_alike(cls: type[Action], name: str) -> None:
    hints = typing.get_type_hints(cls)
    data = {f.name: valid_json(hints[f.name]) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    kinds = {cls.kind: cls}
    valid = action_from_json(kinds, {"kind": cls.kind, **data})
    (item, _) = typing.get_args(hints[name])
    good = action_from_json(kinds, {"kind": cls.kind, **data, name: [valid_json(item)]})
    wrong = wrong_value(item)
    with pytest.raises(MalformedAction) as from_json:
        action_from_json(kinds, {"kind": cls.kind, **data, name: [valid_json(item), wrong]})
    with pytest.raises(MalformedAction) as from_python:
        dataclasses.replace(valid, **{name: (getattr(good, name)[0], wrong)})
    assert str(from_python.value) == str(from_json.value)


def test_vote_with_no_colour_is_refused_from_python_as_from_json() -> None:
    with pytest.raises(MalformedAction, match="vote: white must be true or false"):
        Vote(0, None)  # type: ignore[arg-type]
    with pytest.raises(MalformedAction, match="vote: white must be true or false"):
        action_from_json({"vote": Vote}, {"kind": "vote", "seat": 0, "white": None})


def test_a_bool_is_not_a_seat_in_python_either() -> None:
    with pytest.raises(MalformedAction, match="claim_disciple: seat must be a whole number"):
        ClaimDisciple(True)


def test_the_python_forms_are_asked_for_in_python() -> None:
    """Where JSON has a list, Python has a tuple; an enum member, not its value; a value object,
    not its JSON form."""
    with pytest.raises(MalformedAction, match=r"name: named must be a tuple \(a list in JSON\)"):
        Name(0, [1, 2])  # type: ignore[arg-type]
    with pytest.raises(MalformedAction, match="mission_card: card must be a Card, not its JSON"):
        PlayMissionCard(0, "fail")  # type: ignore[arg-type]
    with pytest.raises(MalformedAction, match="revealed: tessons must be a Tesson, not its JSON"):
        Revealed(({"seat": 0, "white": True},))  # type: ignore[arg-type]
    assert PlayMissionCard(0, Card.FAIL).card is Card.FAIL
    assert Revealed((Tesson(0, True),)).tessons == (Tesson(0, True),)


def test_an_action_of_the_right_types_is_built_as_before() -> None:
    assert Vote(2, False).to_json() == {"kind": "vote", "seat": 2, "white": False}
    assert action_from_json({"vote": Vote}, Vote(2, False).to_json()) == Vote(2, False)
