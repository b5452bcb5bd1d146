"""Eleusis (RULES.md §4): God's secret rule on the sequence of cards, found by induction.

Import from its modules (``engine``, ``state``, …): this package re-exports nothing, so
importing one module never loads the whole game."""
