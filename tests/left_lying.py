"""A die left lying on the table since before the throw, for the tests of what is new on it."""

from __future__ import annotations

import numpy as np

from vision.readings import DieReading
from vision.synthetic import Scene


def lying(table: np.ndarray, shot: Scene, die: DieReading) -> np.ndarray:
    """The table with ``die`` of ``shot`` already lying there, exactly as it lies on the shot."""
    r = round(die.size)
    x, y = round(die.x), round(die.y)
    out = table.copy()
    out[y - r : y + r + 1, x - r : x + r + 1] = shot.image[y - r : y + r + 1, x - r : x + r + 1]
    return out
