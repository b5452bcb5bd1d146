"""What the end of a game may tell everyone: who won and why, what the game kept secret that the
end reveals (a Résistance game's digital identities), and a short summary of the game.

This is part of the one chokepoint (``companion.moderator.public_snapshot``): it is composed from
the engine's public view, its outcome, and the engine's own ``revealed(state)`` (the rules say
what the end reveals; an engine without one reveals nothing), and only once the engine's
outcome is set. Before the end it is None: nothing here is ever shown while a game runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.game import JSON, Game
from companion.narration import Catalog


def ending(game: Game[Any], state: Any, catalog: Catalog, said: Sequence[str]) -> JSON | None:
    """The end of the game as everyone may see it, in the game's language; None while it runs.

    ``outcome``: the engine's (winner and reason); ``said``: what the narrator said as it ended
    (who won and why, in words); ``sides``: with digital identities, each seat in order with its
    side (``{"name", "side", "text"}``), else None; ``turn_over``: the players hold the
    identity cards (physical identities) and are asked to turn them over; ``summary``: a few
    lines on the game (each mission's result, the final scores)."""
    outcome = game.outcome(state)
    if outcome is None:
        return None
    reveal = getattr(game, "revealed", None)
    shown = reveal(state) if callable(reveal) else None
    shown = shown if isinstance(shown, dict) else {}
    sides = shown.get("sides")
    return {
        "outcome": outcome.to_json(),
        "said": list(said),
        "sides": None
        if sides is None
        else [
            {"name": catalog.name(seat), "side": side, "text": catalog.text(f"ending.{side}")}
            for seat, side in enumerate(sides)
        ],
        "turn_over": bool(shown.get("turn_over")),
        "summary": summary(game.title, game.public_view(state), catalog),
    }


def spoken(end: JSON, catalog: Catalog) -> list[str]:
    """What the voice adds once the game has ended: the Cylons named (digital identities), or
    the players asked to turn their identity cards over (physical ones)."""
    lines = []
    sides = end.get("sides")
    if sides:
        cylons = [s["name"] for s in sides if s["side"] == "cylons"]
        lines.append(catalog.text("ending.cylons_were", names=catalog.join(cylons)))
    if end.get("turn_over"):
        lines.append(catalog.text("ending.turn_over"))
    return lines


def summary(title: str, view: JSON, catalog: Catalog) -> list[str]:
    """A few lines on a finished game, from its public view alone."""
    if title == "resistance":
        return [
            catalog.text(
                "ending.mission",
                number=m["number"],
                result=catalog.text(f"ending.mission_{m['result']}"),
                successes=m["successes"],
                fails=m["fails"],
            )
            for m in view.get("missions", [])
            if m.get("result") is not None
        ]
    points = _points(title, view)
    return [
        catalog.text("ending.points", name=catalog.name(seat), points=score)
        for seat, score in enumerate(points)
    ]


def _points(title: str, view: JSON) -> list[Any]:
    """Each seat's final score, where the public view has one."""
    scores = view.get("scores")
    if title == "sages":
        scores = view.get("score")
    elif isinstance(scores, dict):  # Eleusis's points, game night's totals
        scores = scores.get("points", scores.get("totals"))
    if not isinstance(scores, list) or not all(isinstance(s, int | float) for s in scores):
        return []
    return list(scores)
