"""A request's JSON body, read the one way every route reads it, and its limits."""

from __future__ import annotations

import json
import math
from typing import Any

from flask import request

MAX_BODY = 64 * 1024  # bytes: the largest action (a throw's dice) is a few kilobytes
MAX_TEXT = 1000  # characters in any one text of a request (an Eleusis rule is the longest)
SAFE_INTEGER = 2**53  # the largest integer a browser's JSON keeps exact


class TextTooLong(ValueError):
    """A text in a request beyond ``MAX_TEXT`` characters; ``field`` says where."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def json_body() -> Any:
    """The request's JSON, or None when it is not JSON (of any depth: a nesting too deep for
    the parser is refused like bad JSON, never a 500). NaN and Infinity, which are not JSON, are
    refused too, and so are numbers no page could send (beyond ±2^53, the integers JavaScript
    counts exactly): no rule ever needs them, and an engine need not guard against a 400-digit
    seat number. A text longer than ``MAX_TEXT`` raises ``TextTooLong`` (answered 400 by the
    app's handler, ``web/security.py``)."""
    if not request.is_json:
        return None
    try:
        body = json.loads(
            request.get_data(),
            parse_constant=_no_constant,
            parse_int=_safe_int,
            parse_float=_finite_float,
        )
    except (ValueError, RecursionError):
        return None
    too_long = _long_text(body)
    if too_long is not None:
        raise TextTooLong(too_long)
    return body


def _long_text(value: Any, where: str = "") -> str | None:
    """Where the first text longer than ``MAX_TEXT`` is in a JSON value, or None."""
    if isinstance(value, str):
        return (where or "text") if len(value) > MAX_TEXT else None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        if isinstance(key, str) and len(key) > MAX_TEXT:
            return where or "a key"
        found = _long_text(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _safe_int(text: str) -> int:
    value = int(text)
    if abs(value) > SAFE_INTEGER:
        raise ValueError("a number too large")
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > SAFE_INTEGER:
        raise ValueError("a number too large")
    return value
