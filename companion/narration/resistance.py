"""What the companion says for Résistance's events. Only events for everyone are spoken."""

from __future__ import annotations

from collections.abc import Mapping

from companion.game import AudienceKind, Event
from companion.narration.catalog import Catalog
from companion.narration.script import Line, Pause, Script

NIGHT_STEPS = ("close_eyes", "cylons_open", "cylons_close", "open_eyes")


def night_script(catalog: Catalog, pauses: Mapping[str, float]) -> Script:
    """The identification phase. Every pause is a fixed, configured length: nothing in the
    script depends on who the Cylons are (the companion does not even know)."""
    out: list[Line | Pause] = [Line(catalog.text("resistance.night.intro")), Pause(pauses["intro"])]
    for step in NIGHT_STEPS:
        out.append(Line(catalog.text(f"resistance.night.{step}")))
        if step != "open_eyes":
            out.append(Pause(pauses[step]))
    return tuple(out)


def lines(catalog: Catalog, event: Event) -> list[str]:
    if event.audience.kind is not AudienceKind.EVERYONE:
        return []
    d = event.data
    say = "resistance.say."
    match event.kind:
        case "commander":
            out = []
            if d["rejections"]:
                out.append(catalog.text(say + "rejections", rejections=d["rejections"]))
            if d["targeting"]:
                out.append(
                    catalog.text(
                        say + "commander_targeting",
                        commander=d["commander"],
                        missions=d["missions"],
                    )
                )
            else:
                out.append(
                    catalog.text(
                        say + "commander",
                        commander=d["commander"],
                        mission=d["missions"][0],
                        size=d["sizes"][0],
                    )
                )
            return out
        case "vote_result":
            key = "vote_approved" if d["approved"] else "vote_rejected"
            return [catalog.text(say + key, yes=d["yes"], no=d["no"])]
        case "mission_begins":
            out = [catalog.text(say + "mission_begins")]
            if d["fails_needed"] == 2:
                out.append(catalog.text(say + "two_fails_needed"))
            return out
        case "mission_result":
            key = "mission_fails" if d["failed"] else "mission_succeeds"
            return [
                catalog.text(
                    say + key, mission=d["mission"], successes=d["successes"], fails=d["fails"]
                )
            ]
        case "game_over":
            endings = {
                "colons": "colons_win",
                "three_failures": "cylons_win_missions",
                "five_rejections": "cylons_win_rejections",
            }
            winner = d["winner"] if d["winner"] == "colons" else d["reason"]
            return [catalog.text(say + endings[winner])]
        case "press_ignored":
            return [catalog.text("ignored." + d["why"], seat=d["seat"])]
        case (
            "squad_proposed"
            | "squad_member_in"
            | "squad_member_out"
            | "squad_read_back"
            | "squad_cleared"
            | "mission_offered"
            | "mission_chosen"
        ):
            return [catalog.text(say + event.kind, **d)]
        case _:
            return []  # vote_in, card_in, night_over: shown on the page, not spoken
