"""Tessons: the reader finds each revealed card, its side and its seat; the seat map by angles
and by polygons says whose zone a point is in, and survives JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from vision.readings import UnreadableFrame
from vision.seats import BadSeatMap, SeatMap
from vision.synthetic import tesson_scene
from vision.tessons import annotate_tessons, read_tessons


def _match(truth, read, radius=20.0):
    pairs, used = [], set()
    for t in truth:
        best = min(
            (j for j in range(len(read)) if j not in used),
            key=lambda j: math.hypot(read[j].x - t.x, read[j].y - t.y),
            default=None,
        )
        if best is not None and math.hypot(read[best].x - t.x, read[best].y - t.y) <= radius:
            used.add(best)
            pairs.append((t, read[best]))
    return pairs


@pytest.mark.parametrize(
    "knobs",
    [
        {"noise": 2.0},
        {"light": "uneven", "shadows": True, "noise": 2.0},
        {"tilt": 10.0, "noise": 2.0},
        {"blur": 1.5, "noise": 6.0},
        {"table": "wood", "shadows": True, "dice": 4, "noise": 2.0},
        {"table": "photo", "shadows": True},
    ],
    ids=["felt", "uneven+shadows", "tilt", "blur+noise", "wood+cubes", "photo"],
)
def test_sides_and_seats_are_read_right_on_seeded_scenes(knobs):
    for seed in (2000, 2001, 2002):
        scene = tesson_scene(seed, 6, **knobs)
        read = read_tessons(scene.image, scene.seats)
        pairs = _match(scene.tessons, read)
        assert len(pairs) == len(scene.tessons) == len(read), seed
        for truth, got in pairs:
            assert got.side == truth.side and got.seat == truth.seat
            assert not got.flagged
            assert math.hypot(got.x - truth.x, got.y - truth.y) < 3.0


def test_on_a_dark_table_at_most_one_black_card_in_three_scenes_is_missed():
    missed = wrong = 0
    for seed in (2000, 2001, 2002):
        scene = tesson_scene(seed, 6, table="dark", shadows=True, noise=3.0)
        read = read_tessons(scene.image, scene.seats)
        pairs = _match(scene.tessons, read)
        missed += len(scene.tessons) - len(pairs)
        wrong += sum(t.side != r.side or t.seat != r.seat for t, r in pairs)
        assert len(read) == len(pairs)
    assert missed <= 1 and wrong == 0


def test_twelve_seats_and_stray_cards_in_the_middle():
    scene = tesson_scene(2005, 12, strays=2)
    read = read_tessons(scene.image, scene.seats)
    pairs = _match(scene.tessons, read)
    assert len(pairs) == len(scene.tessons) == len(read)
    assert [r.seat for _, r in pairs].count(None) == 2
    assert all(t.seat == r.seat and t.side == r.side for t, r in pairs)


def test_without_a_map_no_seat_is_given():
    scene = tesson_scene(2006, 5)
    read = read_tessons(scene.image)
    assert len(read) == 5 and all(r.seat is None for r in read)


def test_an_empty_table_has_no_tessons_and_bad_frames_are_refused():
    scene = tesson_scene(2007, 6, empty=1.0, table="wood", light="uneven")
    assert scene.tessons == () and read_tessons(scene.image, scene.seats) == []
    with pytest.raises(UnreadableFrame):
        read_tessons(np.zeros((100, 100), np.uint8))


def test_a_seat_map_by_angles_turns_clockwise_on_screen():
    # Four seats: 0 from the right (0°) clockwise to the bottom (90°), and so on.
    seats = SeatMap.by_angles((100.0, 100.0), [0, 90, 180, 270], inner=10, outer=90)
    assert seats.seat_of(150, 120) == 0  # right and below
    assert seats.seat_of(80, 150) == 1  # below and left
    assert seats.seat_of(50, 80) == 2  # left and above
    assert seats.seat_of(120, 50) == 3  # above and right
    assert seats.seat_of(102, 101) is None  # the middle of the table
    assert seats.seat_of(195, 100) is None  # beyond the table's edge


def test_angles_wrap_round_and_need_clockwise_order():
    seats = SeatMap.by_angles((0.0, 0.0), [300, 30, 150])
    assert seats.seat_of(10, 0) == 0  # 0°: between 300° and 30°
    assert seats.seat_of(0, 10) == 1  # 90°
    assert seats.seat_of(0, -10) == 2  # 270°: between 150° and 300°
    with pytest.raises(BadSeatMap, match="clockwise"):
        SeatMap.by_angles((0.0, 0.0), [0, 200, 100])


def test_a_seat_map_by_polygons_and_a_card_outside_every_zone():
    seats = SeatMap.by_polygons(
        [[(0, 0), (100, 0), (100, 50), (0, 50)], [(0, 60), (100, 60), (50, 120)]]
    )
    assert seats.seat_of(50, 25) == 0
    assert seats.seat_of(100, 25) == 0  # on the edge counts as inside
    assert seats.seat_of(50, 80) == 1
    assert seats.seat_of(50, 55) is None  # between the zones
    assert seats.seat_of(95, 110) is None  # beside the triangle


def test_the_generated_map_puts_a_card_in_the_middle_in_no_seat():
    scene = tesson_scene(2008, 6)
    h, w = scene.image.shape[:2]
    assert scene.seats is not None and scene.seats.seat_of(w / 2, h / 2) is None


def test_json_round_trip(tmp_path):
    for seats in (
        SeatMap.by_angles((640.0, 360.0), [10, 70, 130, 190, 250, 310], inner=80, outer=400),
        SeatMap.by_angles((1.0, 2.0), [45]),
        SeatMap.by_polygons([[(0, 0), (10, 0), (10, 10)], [(20, 20), (30, 20), (30, 30)]]),
    ):
        assert SeatMap.from_json(seats.to_json()) == seats
        assert SeatMap.from_json(json.dumps(seats.to_json())) == seats
        path = tmp_path / "seats.json"
        seats.save(path)
        assert SeatMap.load(path) == seats


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{", "not JSON"),
        ([1, 2], "must be an object"),
        ({}, "needs centre and starts"),
        ({"centre": [0, 0]}, "needs centre and starts"),
        ({"centre": [0], "starts": [0]}, "centre must be a point"),
        ({"centre": [0, 0], "starts": []}, "one angle per seat"),
        ({"centre": [0, 0], "starts": ["north"]}, "start of seat 0 must be a number"),
        ({"centre": [0, 0], "starts": [0, 90], "outer": -5}, "outer must be more"),
        ({"centre": [0, 0], "starts": [0], "colour": "red"}, "unknown field 'colour'"),
        ({"polygons": []}, "list of polygons"),
        ({"polygons": [[[0, 0], [1, 1]]]}, "polygon of seat 0 needs at least 3 points"),
        ({"polygons": [[[0, 0], [1, 1], [2, True]]]}, "seat 0, point 2 y must be a number"),
        ({"polygons": [[[0, 0], [1, 1], [2, 0]]], "centre": [0, 0]}, "not both"),
    ],
)
def test_json_errors_say_what_is_wrong(data, message):
    with pytest.raises(BadSeatMap, match=message):
        SeatMap.from_json(data)


def test_loading_a_missing_file_names_it(tmp_path):
    with pytest.raises(BadSeatMap, match=r"nowhere\.json"):
        SeatMap.load(tmp_path / "nowhere.json")


def test_annotation_draws_zones_and_cards_on_a_copy():
    scene = tesson_scene(2009, 6)
    before = scene.image.copy()
    read = read_tessons(scene.image, scene.seats)
    out = annotate_tessons(scene.image, read, scene.seats)
    assert np.array_equal(scene.image, before) and out.shape == before.shape
    assert np.abs(out.astype(int) - before.astype(int)).sum(axis=2).astype(bool).mean() > 0.005
    angles = SeatMap.by_angles((640.0, 360.0), [0, 120, 240], inner=100)
    assert annotate_tessons(scene.image, read, angles).shape == before.shape
