"""The tabletop companion: a game moderator for a Raspberry Pi at the game table."""

__version__ = "0.1.0"
