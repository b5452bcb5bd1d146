"""Reading a JSON file a person wrote, with errors that say what is wrong and where."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json(path: Path, error: type[Exception]) -> Any:
    """The parsed contents of ``path``; ``error`` (with a sentence) when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error(f"{path} is not a text file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"{path} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
