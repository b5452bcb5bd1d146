"""Ostrakon (RULES.md §2): philosophers ask two-answer questions and try to predict the majority.

Import from its modules (``engine``, ``state``, …): this package re-exports nothing, so
importing one module never loads the whole game."""
