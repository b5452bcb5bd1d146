"""How the render benchmark scores a reading near a hidden die (issue 22); the trainer's
held-out figures use the same rule.

A die more than half hidden (under a hand, a cup, or another die) is left out of the truth, and
a reading of it counts neither way. A die lying on top of another hides the one below it, and
their centres are close: the reading of the die on top must be scored as that die, not thrown
away with the hidden one."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tools" / "render"))

from vision_renders import (  # type: ignore[import-not-found]  # noqa: E402
    not_of_hidden,
    row,
    save_picture,
    score,
)

from vision.readings import DieReading  # noqa: E402


def die(x: float, y: float, size: float = 30.0) -> DieReading:
    return DieReading(x, y, size, 0.0, 1.0, color="red", hole=False)


def half(d: DieReading) -> float:
    return d.size / 2


def test_a_reading_of_the_die_on_top_of_a_pile_is_not_taken_for_the_hidden_one() -> None:
    on_top, below = die(100, 100), die(106, 104)
    reading = die(101, 100)
    assert not_of_hidden([reading], [below], [on_top], half) == [reading]


def test_the_die_on_top_is_found_even_when_its_reading_lies_nearer_the_hidden_one() -> None:
    """The centre of the hidden die's top face lies a few pixels from the top die's: the reader
    that reads the die it sees is not scored as reading the hidden one."""
    on_top, below = die(100, 100), die(103, 100)
    reading = die(102.5, 100)
    assert not_of_hidden([reading], [below], [on_top], half) == [reading]


def test_a_reading_of_a_hidden_die_counts_neither_way() -> None:
    on_top, below = die(100, 100), die(112, 100)
    top_read, below_read = die(100, 100), die(111, 100)
    assert not_of_hidden([top_read, below_read], [below], [on_top], half) == [top_read]
    assert not_of_hidden([die(200, 100)], [die(205, 100)], [], half) == [], "under a hand"
    far = die(300, 100)
    assert not_of_hidden([far], [below], [on_top], half) == [far], "far from both: a reading"


def test_a_picture_goes_where_it_is_asked_or_says_it_cannot(tmp_path: Path) -> None:
    """``--pictures DIR`` makes the folder; a picture that cannot be written is an error, not
    a "wrote" line for a file that is not there."""
    import numpy as np
    import pytest

    picture = np.full((20, 30, 3), 200, np.uint8)
    name = tmp_path / "new" / "folder" / "render-cubes-1.jpg"
    save_picture(picture, name)
    assert name.stat().st_size > 0
    taken = tmp_path / "render-cubes-2.jpg"
    taken.mkdir()  # a folder where the picture should go
    with pytest.raises(OSError, match="could not be written"):
        save_picture(picture, taken)


def test_read_right_unflagged_counts_only_the_true_dice_the_table_takes_without_asking() -> None:
    """Of three true dice: one read right and sure, one read right but asked, one misread and
    sure (a silent error); and a false reading. Only the first is taken without asking: 1/3."""
    from truth import load  # type: ignore[import-not-found]

    truth = [die(100, 100), die(200, 100), die(300, 100)]
    read = [
        die(101, 100),
        DieReading(200, 100, 30.0, 0.0, 0.3, color="red", hole=False),
        DieReading(300, 101, 30.0, 0.0, 1.0, color="blue", hole=False),
        die(400, 300),
    ]
    scene = load(ROOT / "tests" / "data" / "renders" / "cubes-000000.json")  # its conditions
    outcomes = score(scene, truth, read, half)
    cells = [c.strip() for c in row("t", outcomes, cubes=True).strip("|").split("|")]
    recall, precision, silent, right_unflagged = cells[2], cells[3], cells[7], cells[8]
    assert (recall, precision, silent, right_unflagged) == ("100.0%", "75.0%", "2", "33.3%")
