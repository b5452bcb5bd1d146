"""Eleusis on the host page: the rule checker's report on a rule the host (or a human God)
typed. The host's alone, like every POST; it changes nothing, and the rule is a secret: it is
never logged, journalled or kept."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from companion.games.eleusis.rule_check import check_rule
from companion.games.eleusis.rule_language import RuleSyntaxError, parse_rule
from companion.narration.catalog import LANGUAGES, Catalog
from web.body import json_body
from web.views import bad_request, snapshot

blueprint = Blueprint("eleusis", __name__)


@blueprint.post("/api/eleusis/check")
def check_eleusis_rule() -> ResponseReturnValue:
    """The report, in the table's language (or ``language``)."""
    body = json_body()
    rule = body.get("rule") if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(rule, str):
        return bad_request('send {"rule": "the rule, as text"}')
    language = body.get("language")
    if language is None:
        language = snapshot()["language"]
    elif language not in LANGUAGES:
        return bad_request(f"language must be one of {', '.join(LANGUAGES)}")
    return jsonify(eleusis_report(rule, Catalog(language)))


def eleusis_report(text: str, words: Catalog) -> dict[str, Any]:
    """The checker's report on ``text`` as the host page shows it: ``ok`` false with ``error``
    (its code, 1-based column, ``text``: the sentence saying where and what kind of error, for
    a masked rule field, and ``quoted``: the sentence that may quote the rule, for a field shown)
    when the rule cannot be read; else ``ok`` true, the checker's findings, and its advice as
    sentences (``fit``: no advice at all)."""
    try:
        rule = parse_rule(text)
    except RuleSyntaxError as exc:
        params = {"column": exc.column, **exc.params}
        return {
            "ok": False,
            "error": {
                "code": exc.code,
                "column": exc.column,
                "text": words.rule_error(exc.code, params),
                "quoted": words.rule_error(exc.code, params, quoted=True),
            },
        }
    report = check_rule(rule)
    advice = []
    for item in report.advice:
        key = f"eleusis.advice.{item.code}"
        sentence = words.text(key, **item.params) if words.has(key) else item.code
        advice.append({"code": item.code, "params": item.params, "text": sentence})
    blocking = report.blocking_line
    return {
        "ok": True,
        "fit": not advice,
        "blocks": report.blocks,
        "blocking_line": None if blocking is None else [c.to_json() for c in blocking],
        "exhaustive": report.exhaustive,
        "acceptance": report.acceptance,
        "percent": round(100 * report.acceptance),
        "first_cards": report.first_cards,
        "fewest_choices": report.fewest_choices,
        "lookback": report.lookback,
        "period": report.period,
        "advice": advice,
    }
