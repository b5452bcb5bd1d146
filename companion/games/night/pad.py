"""The score pad: one column per player, one row per round, and the totals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

POINTS_LIMIT = 1_000_000  # points in one cell, either sign


@dataclass(frozen=True)
class ScorePad:
    """``rounds[r][seat]`` is what ``seat`` scored in round ``r`` (None: not written yet).
    ``low_wins``: the lowest total leads (golf, Hearts...)."""

    players: int
    rounds: tuple[tuple[int | None, ...], ...] = ()
    low_wins: bool = False

    def write(self, seat: int, round_: int, points: int | None) -> ScorePad:
        """The pad with one cell written; writing in the row after the last opens a round."""
        rows = [list(row) for row in self.rounds]
        if round_ == len(rows):
            rows.append([None] * self.players)
        rows[round_][seat] = points
        while rows and all(p is None for p in rows[-1]):
            rows.pop()  # a round emptied at the end is no round
        return ScorePad(self.players, tuple(tuple(row) for row in rows), self.low_wins)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(row[seat] or 0 for row in self.rounds) for seat in range(self.players))

    @property
    def written(self) -> bool:
        return any(p is not None for row in self.rounds for p in row)

    def leaders(self) -> tuple[int, ...]:
        """The seats with the best total (several when tied); none before any score."""
        if not self.written:
            return ()
        totals = self.totals
        best = min(totals) if self.low_wins else max(totals)
        return tuple(seat for seat, total in enumerate(totals) if total == best)

    def view(self) -> dict[str, Any]:
        return {
            "rounds": [list(row) for row in self.rounds],
            "totals": list(self.totals),
            "leaders": list(self.leaders()),
            "low_wins": self.low_wins,
        }
