"""What the companion says at game night (``[night.say]`` of the catalogs): each throw's values
and total (thrown again, by colour, unsure dice), the turns, the leader, who starts.

A score written on the pad is not said (the page shows it at once); the leader is said when
asked. Nothing is secret at game night.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.game import Event
from companion.narration.catalog import Catalog
from companion.narration.script import for_everyone

SAY = "night.say."


@for_everyone
def lines(catalog: Catalog, event: Event) -> list[str]:
    """The sentences spoken aloud for ``event``."""
    d = event.data
    say = catalog.section(SAY)

    match event.kind:
        case "press_ignored":
            return [catalog.text(f"ignored.{d['why']}", seat=d["seat"])]
        case "night_set_up":
            return [say("set_up")]
        case "dice_read":
            return throw_lines(catalog, d)
        case "on_screen":
            return [say("on_screen", tool=say(f"tools.{d['screen']}"))]
        case "last_throw":
            return [say("last_throw", values=d["values"], total=d["total"])]
        case "turn_now":
            return [say("your_turn", turn=d["seat"])]
        case "die_corrected":
            return [say("corrected", die=d["die"], value=d["value"], total=d["total"])]
        case "by_color":
            return [say("by_color_on" if d["on"] else "by_color_off")]
        case "timer_started":
            return [say("timer_started", seconds=d["seconds"], seat=d["seat"])]
        case "turn_passed":
            out = [say("time_up", seat=d["seat"])] if d["timed_out"] else []
            return [*out, say("your_turn", turn=d["next"])]
        case "hourglass_paused" | "hourglass_resumed":
            return [catalog.text(f"general.{event.kind}", seat=d["seat"], left=d["left"])]
        case "timer_stopped":
            return [say("stopped")]
        case "leader":
            return [_leader(catalog, d["seats"], d["total"])]
        case "sheet_started":
            return [say("sheet_started", sheet=d["sheet"])]
        case "starter_picked":
            return [say("starter", number=d["number"], seat=d["seat"])]
        case "evening_ended":
            leader = [_leader(catalog, d["leaders"], max(d["totals"]))] if d["leaders"] else []
            return [*leader, say("ended")]
    return []


def throw_lines(catalog: Catalog, d: Mapping[str, Any]) -> list[str]:
    """A throw said aloud: "6, 5, 3 and 1. Total 15." (values from high to low); the dice
    thrown again when some were kept; by colour when asked; unsure dice to check."""
    values: list[int] = d["values"]
    if d["by_color"]:
        out = [
            _capital(
                catalog.text(SAY + "color_one", color=g["color"], value=g["values"][0])
                if len(g["values"]) == 1
                else catalog.text(
                    SAY + "color_group", color=g["color"], values=g["values"], total=g["total"]
                )
            )
            for g in d["by_color"]
        ]
        out.append(catalog.text(SAY + "color_total", total=d["total"]))
    elif len(values) == 1:
        out = [catalog.text(SAY + "one_die", value=values[0])]
    elif d["kept"]:
        out = [catalog.text(SAY + "rerolled", rolled=d["rolled"], values=values, total=d["total"])]
    else:
        out = [catalog.text(SAY + "throw", values=values, total=d["total"])]
    if d["unsure"]:
        out.append(catalog.text(SAY + "unsure", unsure=d["unsure"]))
    return out


def _capital(line: str) -> str:
    return line[:1].upper() + line[1:]


def _leader(catalog: Catalog, seats: list[int], total: int) -> str:
    if not seats:
        return catalog.text(SAY + "no_scores")
    key = "leader" if len(seats) == 1 else "leaders"
    return catalog.text(SAY + key, leaders=seats, total=total)
