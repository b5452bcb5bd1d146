"""What the companion says for Les 7 Sages (``[sages.say]`` of the catalogs): the set-up, each
move with its squares, the fool's flight, points and the score, the hourglass, the match's end
(won, or drawn by agreement or by repetition) and a round drawn by repetition.

Squares are said as written on the board's edges ("h8"). Nothing is secret in this game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.game import Event
from companion.narration.catalog import Catalog
from companion.narration.script import for_everyone

SAY = "sages.say."


@for_everyone
def lines(catalog: Catalog, event: Event) -> list[str]:
    """The sentences spoken aloud for ``event``."""
    d = event.data
    say = catalog.section(SAY)

    match event.kind:
        case "sages_set_up":
            return _set_up(catalog, d)
        case "placed":
            return [say("placed", seat=d["seat"], square=d["square"])]
        case "moved":
            return [say("moved", seat=d["seat"], sage=d["sage"], to=d["to"])]
        case "chased":
            return [_chase(catalog, d)]
        case "point":
            red, blue = d["score"]
            key = "point_own" if d["points"] == 2 else "point_other"
            return [say(key, seat=d["seat"], n=d["points"]), say("score", red=red, blue=blue)]
        case "round_started":
            return [say("round_started", round=d["round"], seat=d["first"])]
        case "placing":
            side = say(f"sides.{d['side']}")
            return [say("placing", seat=d["seat"], side=side, placed=d["placed"], total=d["total"])]
        case "match_standing":
            red, blue = d["score"]
            return [say("standing", round=d["round"], target=d["target"], red=red, blue=blue)]
        case "to_move":
            return [say("to_move", seat=d["seat"], side=say(f"sides.{d['side']}"))]
        case "no_move":
            return [say("no_move", seat=d["seat"])]
        case "round_replayed":
            return [say("round_replayed", seat=d["first"])]
        case "hourglass_paused" | "hourglass_resumed":
            return [catalog.text(f"general.{event.kind}", seat=d["seat"], left=d["left"])]
        case "time_up":
            return [say("time_up", seat=d["seat"], turn=d["turn"])]
        case "match_won":
            red, blue = d["score"]
            return [say("match_won", seat=d["seat"], red=red, blue=blue)]
        case "match_drawn":
            red, blue = d["score"]
            key = "match_drawn_agreed" if d["reason"] == "draw_agreed" else "match_drawn_repetition"
            return [say(key, red=red, blue=blue)]
        case "round_drawn":
            return [say("round_drawn", seat=d["first"])]
    return []


def _set_up(catalog: Catalog, d: Mapping[str, Any]) -> list[str]:
    layout = d["layout"]
    if layout == "free" and d.get("placement") == "halves":
        layout = "free_halves"
    out = [
        catalog.text(SAY + "set_up", target=d["target"], seat=d["first"]),
        catalog.text(SAY + f"layout.{layout}"),
    ]
    if d.get("draw_by_agreement"):
        out.append(catalog.text(SAY + "draw_by_agreement"))
    if d.get("repetition") in ("round", "match"):
        out.append(catalog.text(SAY + f"repetition_{d['repetition']}"))
    if d["computer"] is not None:
        side = catalog.text(SAY + ("sides.red" if d["computer"] == 0 else "sides.blue"))
        out.append(catalog.text(SAY + "companion_plays", side=side))
    if d["hourglass"] is not None:
        out.append(catalog.text(SAY + "hourglass", seconds=d["hourglass"]))
    return out


def _chase(catalog: Catalog, d: Mapping[str, Any]) -> str:
    path = d["fool_path"]
    bounces = len(d["reflectors"])
    if d["points"]:
        return catalog.text(SAY + "chased_in", seat=d["seat"], sage=d["sage"], n=bounces)
    return catalog.text(SAY + "chased", seat=d["seat"], sage=d["sage"], square=path[-1], n=bounces)
