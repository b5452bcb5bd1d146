"""Les 7 Sages (RULES.md §5): seven sages a side chase one fool into the opponent's cité.

Import from its modules (``engine``, ``state``, …): this package re-exports nothing, so
importing one module never loads the whole game."""
