"""From events to sentences: the catalogs (French and English) and the per-game narration."""

from companion.narration.catalog import LANGUAGES, Catalog, CatalogError
from companion.narration.script import Cue, Line, Pause, Script

__all__ = ["LANGUAGES", "Catalog", "CatalogError", "Cue", "Line", "Pause", "Script"]
