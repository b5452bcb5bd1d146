"""What the companion says for Eleusis: the deal, the starting cards, each verdict as it takes
effect, the prophet, penalties as counts, the end, the scores and, last, the rule revealed, in
the table's language (``[eleusis.say]`` of the catalogs).

Only events for everyone are spoken: a seat's hand (``your_hand``) and the cards it draws
(``penalty_cards``) never are, and a hand shown for a no-play is told by its size. The rule is
said only by ``game_over``.

Each thing is said once. A play is said when its verdict stands (``accepted``, ``refused``, or
for a no-play ``hand_replaced`` and ``god_plays``), with its cards: so ``cards_played``, God's
``verdict`` (whose effects follow at once), ``starter_verdict`` and ``card_turned`` (the card is
on the table and on the page; ``starter_refused`` and ``starter_accepted`` name it) say nothing.
The prophet's verdict is said, since God may still overturn it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.game import Event
from companion.narration.catalog import Catalog, eleusis_card_words
from companion.narration.script import for_everyone

SAY = "eleusis.say."
SILENT = frozenset({"cards_played", "starter_verdict", "card_turned"})


def cards_words(catalog: Catalog, cards: Sequence[str]) -> str:
    """Cards in the order laid: "queen of hearts, 10 of spades"."""
    return ", ".join(eleusis_card_words(catalog, card) for card in cards)


@for_everyone
def lines(catalog: Catalog, event: Event) -> list[str]:
    """The sentences spoken aloud for ``event`` ([] for an event not for everyone)."""
    if event.kind in SILENT:
        return []
    d = event.data
    say = catalog.section(SAY)

    def card(code: str) -> str:
        return eleusis_card_words(catalog, code)

    match event.kind:
        case "game_set_up":
            return _set_up(catalog, d)
        case "god_is":
            return [_god(catalog, d)]
        case "prophet_standing":
            return [say("prophet_standing", seat=d["seat"])]
        case "sudden_death_standing":
            return [say("sudden_death_standing")]
        case "starter_turned":
            return [say("starter_turned", card=card(d["card"]))]
        case "play_pending":
            return [say("play_pending", seat=d["seat"], cards=cards_words(catalog, d["cards"]))]
        case "starter_awaited":
            return [say("starter_awaited")]
        case "starter_refused":
            return [say("starter_refused", card=card(d["card"]))]
        case "starter_accepted":
            return [say("starter_accepted", card=card(d["card"]), rank=d["rank"])]
        case "turn":
            return [say("turn", seat=d["seat"])]
        case "verdict":
            return [prophet_verdict(catalog, d)] if d["by"] == "prophet" else []
        case "verdict_awaited":
            if d["by"] == "prophet":
                return [say("prophet_verdict_awaited", prophet=d["seat"])]
            if d["seat"] is None:
                return [say("god_verdict_awaited_unseated")]
            return [say("god_verdict_awaited", god=d["seat"])]
        case "review_awaited":
            if d["seat"] is None:
                return [say("review_awaited_unseated")]
            return [say("review_awaited", god=d["seat"])]
        case "upheld" | "overturned":
            return [say(event.kind, prophet=d["prophet"])]
        case "accepted" | "refused":
            key = f"{event.kind}_{'one' if len(d['cards']) == 1 else 'many'}"
            return [say(key, seat=d["seat"], cards=cards_words(catalog, d["cards"]))]
        case "no_play":
            return [say("no_play", seat=d["seat"], count=d["count"])]
        case "hand_replaced":
            key = "hand_replaced" if d["size"] else "hand_emptied"
            return [say(key, seat=d["seat"], before=d["before"], size=d["size"])]
        case "god_plays":
            if d["by"] == "prophet":  # the prophet's verdict, already said, named the card
                return [say("prophet_card_played", seat=d["seat"])]
            return [say("god_plays", seat=d["seat"], card=card(d["card"]))]
        case "protected" | "eliminated" | "prophet_fallen":
            return [say(event.kind, seat=d["seat"])]
        case "penalty":
            return [_penalty(catalog, d)]
        case "prophet_declared":
            return [say("prophet_declared", seat=d["seat"], card=card(d["card"]))]
        case "sudden_death":
            return [say("sudden_death", played=d["played"])]
        case "mistake_admitted":
            return [say("mistake_admitted", god=d["seat"], played=d["played"])]
        case "game_over":
            return _game_over(catalog, d)
    return []


def prophet_verdict(catalog: Catalog, d: Mapping[str, Any]) -> str:
    """The prophet's verdict, said before God checks it."""
    prophet = d["judge"]
    if not d["no_play"]:
        key = "prophet_accepts" if d["accepted"] else "prophet_refuses"
        return catalog.text(SAY + key, prophet=prophet)
    if d["accepted"]:
        return catalog.text(SAY + "prophet_no_play_right", prophet=prophet, seat=d["seat"])
    return catalog.text(
        SAY + "prophet_no_play_wrong",
        prophet=prophet,
        seat=d["seat"],
        card=eleusis_card_words(catalog, d["card"]),
    )


def _set_up(catalog: Catalog, d: Mapping[str, Any]) -> list[str]:
    whom = catalog.text(SAY + ("deal_to_others" if d["god"] == "human" else "deal_to_all"))
    deal = "deal_digital" if d["cards"] == "digital" else "deal_physical"
    return [
        _god(catalog, d),
        catalog.text(SAY + deal, decks=d["decks"], hand_size=d["hand_size"], whom=whom),
    ]


def _god(catalog: Catalog, d: Mapping[str, Any]) -> str:
    """Who is God: a player, or the companion (with the level its rule was drawn at)."""
    if d["god"] == "human":
        return catalog.text(SAY + "human_god", god=d["god_seat"])
    if d["level"] is not None:
        level = catalog.text(f"{SAY}levels.{d['level']}")
        return catalog.text(SAY + "companion_god_level", level=level)
    return catalog.text(SAY + "companion_god")


def _penalty(catalog: Catalog, d: Mapping[str, Any]) -> str:
    owed, drawn = d["owed"], d["drawn"]
    if drawn == owed:
        return catalog.text(SAY + "penalty", seat=d["seat"], drawn=drawn)
    key = "penalty_short" if drawn else "penalty_none_left"
    return catalog.text(SAY + key, seat=d["seat"], owed=owed, drawn=drawn)


def _game_over(catalog: Catalog, d: Mapping[str, Any]) -> list[str]:
    """Why it ended, the scores (the prophet's explained), the winners, then the rule."""
    out = [catalog.text(f"{SAY}ended.{d['reason']}")]
    points: Sequence[int] = d["points"]
    if not points:
        key = "change_god" if d["change_god"] and d["reason"] == "god_mistake" else "no_score"
        out.append(catalog.text(SAY + key))
    else:
        scores = catalog.join(
            [catalog.text(SAY + "seat_score", seat=s, points=p) for s, p in enumerate(points)]
        )
        out.append(catalog.text(SAY + "scores", scores=scores))
        prophet = d.get("prophet")
        if prophet is not None:
            out.append(
                catalog.text(
                    SAY + "prophet_score",
                    prophet=prophet["seat"],
                    a=prophet["a"],
                    b=prophet["b"],
                    god_points=d["god"],
                )
            )
        elif d.get("god"):  # no prophet: Abbott's rule gave God the highest score (not "zero")
            out.append(catalog.text(SAY + "god_highest_score", god_points=d["god"]))
        winners: Sequence[int] = d["winners"]
        if winners:
            key = "winner" if len(winners) == 1 else "winners"
            names = catalog.join([catalog.name(s) for s in winners])
            out.append(catalog.text(SAY + key, names=names))
    out.append(rule_words(catalog, d.get("rule")))
    return out


def rule_words(catalog: Catalog, rule: Mapping[str, Any] | None) -> str:
    """The rule revealed: the library's sentence in the table's language, else the rule as
    typed; a human God's rule is God's to tell."""
    if rule is None:
        return catalog.text(SAY + "rule_from_god")
    description = rule.get("description")
    if description:
        text = description.get(catalog.lang) or description.get("en")
        return catalog.text(SAY + "rule_described", rule=text)
    return catalog.text(SAY + "rule_text", rule=rule["text"])
