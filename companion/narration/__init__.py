"""From events to sentences: the catalogs (French and English) and the per-game narration."""

from companion.narration.catalog import LANGUAGES, Catalog, CatalogError
from companion.narration.script import Line, Pause, Script

__all__ = ["LANGUAGES", "Catalog", "CatalogError", "Line", "Pause", "Script"]
