"""What is new on the table (``vision.table_change``): a reading of what lay there already,
unchanged, before the reveal is left out; a tesson turned up, or one that looks much like the
table it lies on, is kept. Frames of ``vision.synthetic.tesson_scene``, before (``before=True``:
the seats' tessons still hidden, the strays lying where they lie) and after, read by the
learned tesson reader."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vision.synthetic import tesson_scene
from vision.table_change import TableBefore
from vision.tesson_net import read_tessons_net

SEED = 4


@pytest.fixture(scope="module")
def table() -> tuple:
    after = tesson_scene(SEED, seats=6, strays=3)
    before = tesson_scene(SEED, seats=6, strays=3, before=True)
    return after, before, TableBefore.of(before.image, read_tessons_net(before.image, before.seats))


def _near(reading, items, reach: float = 20.0) -> bool:
    return any(math.hypot(reading.x - t.x, reading.y - t.y) <= reach for t in items)


def test_the_frame_before_shows_the_strays_but_not_the_seats_tessons(table) -> None:
    after, before, _ = table
    assert before.tessons == ()
    seen_before = read_tessons_net(before.image, before.seats)
    strays = [t for t in after.tessons if t.seat is None]
    in_seats = [t for t in after.tessons if t.seat is not None]
    assert len(strays) == 3 and len(in_seats) == 6
    assert all(_near(s, seen_before) for s in strays)
    assert not any(_near(t, seen_before) for t in in_seats)


def test_the_strays_are_left_out_and_every_seats_tesson_kept(table) -> None:
    after, _, baseline = table
    read = read_tessons_net(after.image, after.seats)
    new = baseline.new_on_table(read, after.image)
    in_seats = [t for t in after.tessons if t.seat is not None]
    assert all(_near(t, new) for t in in_seats)
    assert not any(_near(t, new) for t in after.tessons if t.seat is None)
    assert len(new) < len(read)


def test_a_tesson_turned_over_where_another_side_lay_is_kept(table) -> None:
    after, before, baseline = table
    stray = next(r for r in baseline.readings if _near(r, after.tessons))
    turned = replace(stray, side="black" if stray.side == "white" else "white")
    assert baseline.new_on_table([turned], before.image) == [turned]
    assert baseline.new_on_table([stray], before.image) == []


def test_a_place_that_did_not_change_but_held_no_reading_keeps_its_reading(table) -> None:
    # a white shard laid on a white table that looks much like it: kept, not taken for the table
    _, before, baseline = table
    far = next(r for r in baseline.readings if r.seat is None)
    elsewhere = replace(far, x=far.x + 200.0, y=far.y)
    assert baseline.new_on_table([elsewhere], before.image) == [elsewhere]


def test_a_camera_nudged_a_few_pixels_or_exposed_a_little_brighter_sees_the_same_table(
    table,
) -> None:
    _, before, baseline = table
    stray = [r for r in baseline.readings if r.seat is None]
    nudged = np.roll(before.image, (3, -2), axis=(0, 1))
    brighter = np.clip(before.image.astype(np.float32) * 1.15, 0, 255).astype(np.uint8)
    assert baseline.new_on_table(stray, nudged) == []
    assert baseline.new_on_table(stray, brighter) == []


def test_a_frame_of_another_size_leaves_everything_in(table) -> None:
    _, before, baseline = table
    half = before.image[::2, ::2].copy()
    assert baseline.new_on_table(list(baseline.readings), half) == list(baseline.readings)


def test_a_scene_without_before_is_the_same_frame_as_ever() -> None:
    once = tesson_scene(SEED, seats=6, strays=3)
    again = tesson_scene(SEED, seats=6, strays=3, before=False)
    assert np.array_equal(once.image, again.image)
