"""Game night: dice reader, turn timer, score pad and who starts, for any game.

Import from its modules (``engine``, ``state``, …): this package re-exports nothing, so
importing one module never loads the whole game."""
