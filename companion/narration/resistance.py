"""What the companion says for Résistance's events. Only events for everyone are spoken."""

from __future__ import annotations

from collections.abc import Mapping

from companion.game import Event
from companion.narration.catalog import Catalog
from companion.narration.script import Line, Pause, Script, for_everyone

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


def card_name(catalog: Catalog, card: str) -> str:
    return catalog.text(f"resistance.plot.cards.{card}")


def plot_lines(catalog: Catalog, event: Event) -> list[str] | None:
    """Le Plan's events; ``None`` for an event of the base game. Seats that are not ``seat`` or
    ``commander`` are named here, since the catalog names only those."""
    d = event.data
    plot = "resistance.plot."
    name = catalog.name
    match event.kind:
        case "plot_drawn":
            cards = catalog.join([card_name(catalog, c) for c in d["cards"]])
            return [
                catalog.text(
                    plot + "drawn", commander=d["commander"], count=d["count"], cards=cards
                )
            ]
        case "plot_handed":
            return [
                catalog.text(
                    plot + "handed",
                    commander=d["commander"],
                    seat=d["seat"],
                    card=card_name(catalog, d["card"]),
                )
            ]
        case "plot_immediate":
            return [catalog.text(plot + "now." + d["card"], seat=d["seat"])]
        case "responsibility_void":
            return [catalog.text(plot + "responsibility_void", seat=d["seat"])]
        case "responsibility_taken":
            return [
                catalog.text(
                    plot + "responsibility_taken",
                    seat=d["seat"],
                    owner=name(d["from_seat"]),
                    card=card_name(catalog, d["card"]),
                )
            ]
        case "identity_shown":
            key = "identity_on_page" if d["digital"] else "identity_by_hand"
            return [catalog.text(plot + key, seat=d["seat"], viewer=name(d["viewer"]))]
        case "plot_turn":
            names = [card_name(catalog, c) for c in d["cards"]]
            either = f" {catalog.text(plot + 'list_or')} "
            cards = either.join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]
            return [catalog.text(plot + "turn." + d["moment"], seat=d["seat"], cards=cards)]
        case "plot_passed":
            return [catalog.text(plot + "passed", seat=d["seat"])]
        case "strong_leader":
            return [catalog.text(plot + "strong_leader", seat=d["seat"])]
        case "no_confidence":
            return [catalog.text(plot + "no_confidence", seat=d["seat"])]
        case "close_eye":
            return [catalog.text(plot + "close_eye", seat=d["seat"], target=name(d["target"]))]
        case "spotlight":
            return [catalog.text(plot + "spotlight", seat=d["seat"], target=name(d["target"]))]
        case "spotlight_card":
            return [catalog.text(plot + "face_up." + d["card"], seat=d["seat"])]
        case "opinion_first":
            return [
                catalog.text(
                    plot + "opinion_first", makers=catalog.join([name(s) for s in d["seats"]])
                )
            ]
        case "opinion_votes":
            return [
                catalog.text(
                    plot + ("opinion_yes" if v["approve"] else "opinion_no"), seat=v["seat"]
                )
                for v in d["votes"]
            ]
    return None


@for_everyone
def lines(catalog: Catalog, event: Event) -> list[str]:
    plotted = plot_lines(catalog, event)
    if plotted is not None:
        return plotted
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
            | "squad_so_far"  # the situation said again after a restart
            | "vote_awaited"
            | "mission_awaited"
        ):
            return [catalog.text(say + event.kind, **d)]
        case _:
            return []  # vote_in, card_in, night_over: shown on the page, not spoken
