"""``companion oraklos``: the referee's geometry from the command line.

    companion oraklos predictions DICE.json [--card RYBK] [--either-direction] [--holes-allowed]
                                            [--json]
    companion oraklos check DICE.json i j k l [--card RYBK] [--either-direction]
                                              [--holes-allowed] [--lang en|fr] [--json]

DICE.json is ``{"dice": [{"x": 10.0, "y": 4.5, "size": 1.6, "angle": 0, "color": "red",
"hole": false}, ...]}``; dice are numbered from 0 in the order of that list. ``check`` exits
with 0 for a true prediction, 1 for a refused one; a file or card that cannot be used exits
with 2 and says why on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.games.oraklos import deck
from companion.games.oraklos.dice import BadDie, Die
from companion.games.oraklos.predictions import check, predictions
from companion.json_file import read_json
from companion.narration.catalog import LANGUAGES, Catalog
from companion.narration.oraklos import verdict_text


class BadInput(Exception):
    """A dice file or a card the command cannot use; the message says what to fix."""


def add_parser(sub: Any) -> None:
    """Add the ``oraklos`` command to the ``companion`` command's subparsers."""
    oraklos = sub.add_parser("oraklos", help="Oraklos referee: true predictions in a throw")
    commands = oraklos.add_subparsers(dest="oraklos_command", metavar="COMMAND", required=True)

    listing = commands.add_parser("predictions", help="list every true prediction of a throw")
    listing.add_argument("dice_file", metavar="DICE.json", type=Path)
    _options(listing)
    listing.add_argument("--json", action="store_true", help="print JSON instead of a listing")

    judge = commands.add_parser("check", help="judge a claimed prediction (exit 0 if true)")
    judge.add_argument("dice_file", metavar="DICE.json", type=Path)
    judge.add_argument("indices", metavar="DIE", type=int, nargs=4, help="four die numbers")
    _options(judge)
    judge.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the reason")
    judge.add_argument("--json", action="store_true", help="print the verdict as JSON")


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--card", help="only predictions matching this card, e.g. RYBK")
    parser.add_argument(
        "--either-direction",
        action="store_true",
        help="a card also matches its colours read anticlockwise",
    )
    parser.add_argument(
        "--holes-allowed", action="store_true", help="dice showing their hole may be used"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``companion oraklos ...``; returns the exit status."""
    try:
        dice = load_dice(args.dice_file)
        card = _card(args.card)
    except BadInput as exc:
        print(f"companion oraklos: {exc}", file=sys.stderr)
        return 2
    if args.oraklos_command == "predictions":
        return _predictions(args, dice, card)
    return _check(args, dice, card)


def load_dice(path: Path) -> list[Die]:
    """The dice of a DICE.json file, or ``BadInput`` saying what is wrong with it."""
    data = read_json(path, BadInput)
    if not isinstance(data, dict) or not isinstance(data.get("dice"), list):
        raise BadInput(f'{path}: expected an object {{"dice": [...]}} with a list of dice')
    try:
        return [Die.from_json(item, index) for index, item in enumerate(data["dice"])]
    except BadDie as exc:
        raise BadInput(f"{path}: {exc}") from None


def _card(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return deck.canonical(text)
    except ValueError as exc:
        raise BadInput(f"--card: {exc}") from None


def _predictions(args: argparse.Namespace, dice: Sequence[Die], card: str | None) -> int:
    found = predictions(dice, holes_allowed=args.holes_allowed)
    if card is not None:
        wanted = {card, deck.mirror(card)} if args.either_direction else {card}
        found = [p for p in found if p.card in wanted]
    if args.json:
        print(json.dumps({"predictions": [p.to_json() for p in found]}))
        return 0
    what = f" matching {card}" if card is not None else ""
    print(
        f"{len(found)} true prediction{'s' if len(found) != 1 else ''}{what} among {len(dice)} dice"
    )
    for p in found:
        corners = ", ".join(f"{dice[i].color.value} {i}" for i in p.dice)
        print(f"  {p.card}  clockwise: {corners}")
    return 0


def _check(args: argparse.Namespace, dice: Sequence[Die], card: str | None) -> int:
    verdict = check(
        dice,
        args.indices,
        card,
        either_direction=args.either_direction,
        holes_allowed=args.holes_allowed,
    )
    text = verdict_text(Catalog(args.lang), verdict)
    if args.json:
        out = {
            "valid": verdict.valid,
            "rule": verdict.rule.value if verdict.rule is not None else None,
            "code": verdict.code,
            "params": dict(verdict.params),
            "prediction": verdict.prediction.to_json() if verdict.prediction else None,
            "text": text,
        }
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(text)
    return 0 if verdict.valid else 1
