"""What the companion says for Oraklos: the referee's verdicts, in the table's language."""

from __future__ import annotations

from companion.games.oraklos.predictions import Verdict
from companion.narration.catalog import Catalog


def verdict_text(catalog: Catalog, verdict: Verdict) -> str:
    """A verdict as a sentence: ``oraklos.reasons.<code>``, dice named with their colours."""
    return catalog.text(f"oraklos.reasons.{verdict.code}", **verdict.params)
