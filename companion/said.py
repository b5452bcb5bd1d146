"""What the table has been told: the lines said aloud or shown, and the page's message.

The page shows the last ``NARRATION_KEPT`` lines (``lines``) and the message of the moment
(``message``); a restart picks the lines up from the journal (``pick_up``). ``Said`` knows no game:
``Table`` decides what is said, in which language, and when the pages are told.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

NARRATION_KEPT = 12

Say = Callable[[str, str], None]
"""The voice: say ``line`` in ``lang``."""


class Said:
    def __init__(self, say: Say) -> None:
        self._say = say
        self.lines: deque[str] = deque(maxlen=NARRATION_KEPT)
        self.message: str | None = None

    def speak(self, lines: Iterable[str], lang: str) -> None:
        """Say each line aloud, in order, and show it."""
        for line in lines:
            self.show(line)
            self._say(line, lang)

    def show(self, line: str) -> None:
        """Show a line without saying it (a line of a script the voice is saying itself, or
        what a voice that stopped cannot say)."""
        self.lines.append(line)
        self.message = line

    def hold(self, message: str) -> None:
        """The page's message alone, neither said nor kept in the narration (eyes closed)."""
        self.message = message

    def clear(self) -> None:
        """Nothing said yet (a new game)."""
        self.lines.clear()
        self.message = None

    def pick_up(self, lines: Iterable[str]) -> None:
        """The narration a restart picks up from the journal."""
        self.lines.clear()
        self.lines.extend(lines)
