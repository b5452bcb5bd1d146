"""What the companion says for Oraklos: the referee's verdicts and every public event, in the
table's language. Only events for everyone are spoken: what a seat put in the cup never is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.game import Event
from companion.games.oraklos.dice import Color
from companion.games.oraklos.predictions import Verdict
from companion.narration.catalog import Catalog
from companion.narration.script import for_everyone

SAY = "oraklos.say."


def verdict_text(catalog: Catalog, verdict: Verdict) -> str:
    """A verdict as a sentence: ``oraklos.reasons.<code>``, dice named with their colours."""
    return catalog.text(f"oraklos.reasons.{verdict.code}", **verdict.params)


def card_words(catalog: Catalog, card: str) -> str:
    """A wish card as its colours clockwise: "BKRY" is "blue, black, red, yellow"."""
    return ", ".join(catalog.text(f"colors.{Color.from_letter(letter).value}") for letter in card)


def cards_words(catalog: Catalog, cards: Sequence[str]) -> str:
    """Several cards, one after the other (a pause between two cards)."""
    return "; ".join(card_words(catalog, card) for card in cards)


@for_everyone
def lines(catalog: Catalog, event: Event) -> list[str]:
    """The sentences spoken aloud for ``event`` ([] for an event not for everyone)."""
    d = event.data
    say = catalog.section(SAY)

    match event.kind:
        case "round_started":
            return [say("round_started", round=d["round"], seat=d["first_player"])]
        case "first_player":
            return [say("first_player")]
        case "cards_dealt":
            if "shared" in d:
                return [say("shared_cards", cards=cards_words(catalog, d["shared"]))]
            dealt = [
                say("cards_dealt", seat=given["seat"], cards=cards_words(catalog, given["cards"]))
                for given in d["dealt"]
                if given["cards"]
            ]
            return dealt or [say("hands_full")]
        case "draw_started":
            if d["shared"]:
                return [say("draw_shared", count=d["shared"])]
            return [say("draw_cards")]
        case "cards_drawn":
            return [say("cards_drawn", seat=d["seat"], cards=cards_words(catalog, d["cards"]))]
        case "cards_revealed":
            return [say("cards_revealed", cards=cards_words(catalog, d["cards"]))]
        case "fill_turn":
            return [say("fill_turn", seat=d["seat"], count=d["count"])]
        case "cup_filled":
            return [say("cup_filled", seat=d["seat"], count=d["dice_in_cup"])]
        case "throw_awaited":
            if d.get("fill_each"):
                return [say("fill_and_throw", each=d["fill_each"], seat=d["thrower"])]
            return [say("throw_awaited", seat=d["thrower"], count=d["dice"])]
        case "dice_thrown" | "throw_reread":
            heard = say(event.kind, count=len(d["dice"]), holes=d["holes"])
            return [heard, *_mismatch(catalog, d["mismatch"])]
        case "die_corrected" | "die_removed" | "die_added":
            return [_correction(catalog, event.kind, d), *_mismatch(catalog, d["mismatch"], True)]
        case "search_started":
            return [say("search_started")]
        case "marker_taken":
            return [say("marker_taken", seat=d["seat"], marker=d["marker"])]
        case "search_over":
            if not d["claims"]:
                return [say("search_over_none")]
            return [say("search_over", count=len(d["claims"]))]
        case "claim_turn":
            return [say("claim_turn", seat=d["seat"], marker=d["marker"])]
        case "claim_result":
            return _claim_result(catalog, d)
        case "round_scored" | "scores_so_far":  # the scores as they stand (a restart)
            scores = [say("seat_score", seat=s, score=score) for s, score in enumerate(d["scores"])]
            return [say("round_scored", scores=catalog.join(scores))]
        case "retrieval_order":
            return [say("retrieval_order", seat=d["best"], count=d["count"])]
        case "retrieval_turn":
            return [say("retrieval_turn", seat=d["seat"], count=d["count"])]
        case "dice_taken_back":
            return [say("dice_taken_back", seat=d["seat"], count=sum(d["dice"].values()))]
        case "cup_refilled":
            return [say("cup_refilled", count=sum(d["dice"].values()))]
        case "naming_started":
            return [say("naming_started")]
        case "card_named":
            card = card_words(catalog, d["card"])
            if d["prediction"] is None:
                return [say("named_rightly", seat=d["seat"], card=card, score=d["score"])]
            dice = _dice(catalog, d["prediction"]["dice"])
            return [say("named_wrongly", seat=d["seat"], card=card, dice=dice, score=d["score"])]
        case "all_found":
            out = [say("all_found")]
            if d["missed"]:
                out.append(say("all_found_missed", cards=cards_words(catalog, d["missed"])))
            return out
        case "cards_discarded":
            return [say("cards_discarded")]
        case "deck_exhausted":
            return [say("deck_exhausted")]
        case "tie_plays_on":
            names = catalog.join([catalog.name(s) for s in d["seats"]])
            return [say("tie_plays_on", names=names, score=d["score"])]
        case "game_over":
            winners = d["winners"]
            score = d["scores"][winners[0]]
            if len(winners) == 1:
                return [say("winner", seat=winners[0], score=score)]
            names = catalog.join([catalog.name(s) for s in winners])
            return [say("winners", names=names, score=score)]
        case _:
            return []


def _claim_result(catalog: Catalog, d: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    if d["hesitated"]:
        out.append(catalog.text(SAY + "hesitation", seat=d["seat"]))
    elif d["by_card"]:
        if d["valid"]:
            dice = _dice(catalog, d["prediction"]["dice"])
            out.append(catalog.text(SAY + "card_has_prediction", dice=dice))
        else:
            out.append(catalog.text(SAY + "card_has_none"))
    else:
        out.append(catalog.text(f"oraklos.reasons.{d['code']}", **d["params"]))
    key = "claim_won" if d["valid"] else "claim_lost"
    out.append(catalog.text(SAY + key, seat=d["seat"], points=abs(d["points"]), score=d["score"]))
    return out


def _correction(catalog: Catalog, kind: str, d: Mapping[str, Any]) -> str:
    die = d["die"]
    if kind == "die_corrected":
        key = "die_corrected_hole" if die["hole"] else "die_corrected"
        return catalog.text(SAY + key, index=d["index"], color=die["color"])
    if kind == "die_removed":
        return catalog.text(SAY + "die_removed", index=d["index"], count=len(d["dice"]))
    return catalog.text(SAY + "die_added", color=die["color"], count=len(d["dice"]))


def _mismatch(
    catalog: Catalog, differences: Sequence[Mapping[str, Any]], confirm: bool = False
) -> list[str]:
    """A warning for each way the reading differs from the cup; after a correction that makes
    it match, ``confirm`` says so."""
    if not differences:
        return [catalog.text(SAY + "reading_matches")] if confirm else []
    out = []
    for diff in differences:
        if diff["color"] is None:
            key = "mismatch_total"
        elif diff["bound"] == "at_most":
            key = "mismatch_at_most"
        else:
            key = "mismatch_color"
        out.append(
            catalog.text(
                SAY + key, expected=diff["expected"], seen=diff["seen"], color=diff["color"]
            )
        )
    return out


def _dice(catalog: Catalog, indices: Sequence[int]) -> str:
    return catalog.join([str(i) for i in indices])
