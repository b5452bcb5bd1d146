"""Résistance, the Battlestar Galactica re-theme (RULES.md §1), with the expansion *Le Plan*.

Import from its modules (``engine``, ``state``, …): this package re-exports nothing, so
importing one module never loads the whole game."""
