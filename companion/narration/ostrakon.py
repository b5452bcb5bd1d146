"""What the companion says for Ostrakon: the dealer's announcements, the special days step by
step, and the counts, in the table's language (``[ostrakon.say]`` of the catalogs).

Only events for everyone are spoken: a seat's own tesson (``your_vote``) and the Oracle asker's
decision (``your_flip``) never are. What is said, and when, follows the public events only: a
tesson laid or changed face down gives no word (``vote_in`` is shown on the page and by the
seat's LED, for either colour), so the lines and their order are the same whatever lies face
down. Results are told as counts of white and black.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.game import Event
from companion.narration.catalog import Catalog
from companion.narration.script import for_everyone

SAY = "ostrakon.say."
RULES = ("normal", "corruption", "oracle", "tromperie")


@for_everyone
def lines(catalog: Catalog, event: Event) -> list[str]:
    """The sentences spoken aloud for ``event`` ([] for an event not for everyone)."""
    d = event.data
    say = catalog.section(SAY)

    def name(seat: int) -> str:
        return catalog.name(seat)

    def names(seats: Sequence[int]) -> str:
        return catalog.join([catalog.name(s) for s in seats])

    def side(vote: str) -> str:
        return say(vote)

    match event.kind:
        case "game_set_up":
            return [
                say("set_up", square=d["square"], pile=names(d["pile"]), days=d["days"]),
            ]
        case "day_started":
            return [
                say(f"day_{d['rule']}", count=d["named_count"]),
            ]
        case "turn_started":
            return [_turn(catalog, d)]
        case "question_asked":
            camera = d.get("votes") == "camera"
            line = say("lay_tessons" if camera else "vote_now", asker=name(d["asker"]))
            if "voted" in d:  # said again after a restart: how many tessons, never whose
                key = "tessons_so_far" if camera else "votes_so_far"
                line = say(key, asker=name(d["asker"]), voted=d["voted"], players=d["players"])
            if d.get("disciple", True):  # said only when someone may be the disciple
                line += " " + say("disciple_by_hold" if camera else "disciple_before_voting")
            return [line]
        case "disciple_claimed":
            return [say("disciple", seat=name(d["seat"]), asker=name(d["asker"]))]
        case "disciple_contested":
            seats, winner, asker = names(d["seats"]), name(d["seat"]), name(d["asker"])
            return [say("disciple_contested", seats=seats, seat=winner, asker=asker)]
        case "all_voted":
            return [say("all_voted")]
        case "asker_shows":
            return [say("asker_shows", asker=name(d["asker"]), colour=side(d["vote"]))]
        case "name_awaited":
            key = "name_corruption" if d["rule"] == "corruption" else "name_oracle"
            return [say(key, asker=name(d["asker"]), count=d["count"])]
        case "philosophers_named":
            out = [say("named", asker=name(d["asker"]), named=names(d["named"]))]
            if d["tessons"]:
                out += _shown_named(catalog, d)
            return out
        case "named_revealed":
            return _shown_named(catalog, d)
        case "reveal_awaited":
            return [_reveal(catalog, d)]
        case "flip_awaited":
            if d["rule"] == "oracle":
                return [say("flip_oracle", asker=name(d["asker"]))]
            return [
                say("flip_tromperie", asker=name(d["asker"]), white=d["white"], black=d["black"])
            ]
        case "flip_decided":
            return [say("flip_decided", asker=name(d["asker"]))]
        case "asker_flipped":
            key = "asker_turned" if d["flip"] else "asker_kept"
            return [say(key, asker=name(d["asker"]), colour=side(d["vote"]))]
        case "votes_revealed":  # the count follows in turn_result (Tromperie: flip_awaited)
            return [say("rest_shown")] if len(d["shown_now"]) < len(d["votes"]) else []
        case "turn_result":
            return _result(catalog, d)
        case "under_sun_returned":
            return [say("under_sun_returned", square=d["square"], pile=names(d["pile"]))]
        case "sun_moved":
            key = "sun_to_leader" if d["day_end"] else "sun_back"
            return [say(key, square=d["to"])]
        case "day_ended":
            return [say("day_ended", day=d["day"], moons=d["moons_covered"], days=d["days"])]
        case "game_over":
            return [_game_over(catalog, d)]
        case "press_ignored":
            params = {k: name(v) if k == "asker" else v for k, v in d.items() if k != "why"}
            params["seat"] = name(d["seat"])
            return [catalog.text("ignored." + d["why"], **params)]
        case "named_in" | "named_out":
            return [say(event.kind, seat=name(d["seat"]), count=d["count"], size=d["size"])]
        case "naming_read_back":
            return [say("naming_read_back", asker=name(d["asker"]), named=names(d["named"]))]
        case "naming_cleared":
            return [say("naming_cleared", asker=name(d["asker"]))]
        case _:
            return []  # vote_in: shown on the page and by the LEDs, never spoken


def subject_words(catalog: Catalog, text: Mapping[str, Any]) -> str:
    """A subject card in the table's language ("a free subject" for a ??? card)."""
    if text.get("free"):
        return catalog.text(SAY + "free_subject")
    return str(text.get(catalog.lang) or text.get("en"))


def _turn(catalog: Catalog, d: Mapping[str, Any]) -> str:
    """ "Day 2 of 5. The Sun shines on square 7. Nausicaa asks, on the sea. Next: …"."""
    subject = subject_words(catalog, d["subject_text"])
    upcoming = subject_words(catalog, d["next_subject_text"])
    if d["next_asker"] is None:
        nxt = catalog.text(SAY + "next_last", subject=upcoming)
    else:
        nxt = catalog.text(SAY + "next", subject=upcoming, seat=catalog.name(d["next_asker"]))
    return catalog.text(
        SAY + "turn",
        day=d["day"],
        days=d["days"],
        square=d["sun"],
        asker=catalog.name(d["asker"]),
        subject=subject,
        next=nxt,
    )


def _shown_named(catalog: Catalog, d: Mapping[str, Any]) -> list[str]:
    shown = catalog.join(
        [
            catalog.text(
                SAY + "seat_tesson",
                seat=catalog.name(t["seat"]),
                colour=catalog.text(SAY + t["vote"]),
            )
            for t in d["tessons"]
        ]
    )
    out = [catalog.text(SAY + "named_show", tessons=shown)]
    if d["corrupted"]:
        colour = catalog.text(SAY + d["tessons"][0]["now"])
        out.append(catalog.text(SAY + "corrupted", count=len(d["tessons"]), colour=colour))
    return out


def _reveal(catalog: Catalog, d: Mapping[str, Any]) -> str:
    step, asker = d["step"], catalog.name(d["asker"])
    if step == "asker":
        return catalog.text(SAY + "show_asker", asker=asker)
    if step == "named":
        seats = d["seats"]
        return catalog.text(
            SAY + "show_named",
            named=catalog.join([catalog.name(s) for s in seats]),
            count=len(seats),
        )
    if step == "rest" and d["rule"] == "oracle":
        return catalog.text(SAY + "show_rest_oracle", asker=asker)
    if step == "rest":
        return catalog.text(SAY + "show_rest")
    return catalog.text(SAY + "show_all")


def _result(catalog: Catalog, d: Mapping[str, Any]) -> list[str]:
    asker = catalog.name(d["asker"])
    counts = {"white": d["white"], "black": d["black"]}
    if d["moved"] == "under_sun":
        out = [catalog.text(SAY + "under_sun", asker=asker, **counts)]
    elif d["to"] == 17:
        out = [catalog.text(SAY + "to_temple", asker=asker, steps=d["steps"], **counts)]
    else:
        out = [
            catalog.text(SAY + "forward", asker=asker, steps=d["steps"], square=d["to"], **counts)
        ]
    disciple = d.get("disciple")
    if disciple is not None:
        who = catalog.name(disciple)
        if d["moved"] == "forward" and d["disciple_steps"]:
            out.append(
                catalog.text(
                    SAY + "disciple_follows",
                    seat=who,
                    steps=d["disciple_steps"],
                    square=d["disciple_to"],
                )
            )
        else:
            out.append(catalog.text(SAY + "disciple_stays", seat=who))
    return out


def _game_over(catalog: Catalog, d: Mapping[str, Any]) -> str:
    seat = catalog.name(d["seat"])
    if d["reason"] == "victoire_supreme":
        key = "victoire_supreme" if d["calendar_covered"] else "all_in_temple"
        return catalog.text(SAY + key, seat=seat)
    return catalog.text(SAY + "winner", seat=seat, square=d["square"])
