"""What the table knows of a throw flags the camera's doubtful dice (issue 22).

The companion knows how many dice of each colour went into the cup (or, when the players filled
it unseen, how many dice were thrown). A reading that disagrees is not silently trusted, nor
silently "fixed": the least sure dice of a colour read too often are flagged, so the host looks
at them, and every die of a colour the table's light shifts other dice into; nothing is
recoloured, and nothing the reader takes for a die is dropped: only a reading of a colour read
too often that the reader itself doubts is a die at all (a ghost: a die's shadow or reflection)
is left out. What the camera left out as the table's own (it lay there unchanged before the
throw) comes back where the cup's dice would be short without it."""

from __future__ import annotations

from pathlib import Path

import cv2
from heard import HeardNarrator

from companion.games.oraklos.state import Phase
from companion.journal import Journal
from companion.moderator import Table
from desks.throws import ThrowDesk
from vision.readings import CONFIRM_BELOW, DieReading, back_where_short, doubt_counts
from vision.sources import ImageFileSource
from vision.synthetic import cube_scene
from vision.throws import ThrowCamera


def die(color: str, confidence: float, x: float = 0.0) -> DieReading:
    return DieReading(x, 0.0, 40.0, 0.0, confidence, color=color, hole=False)


def test_a_reading_that_agrees_with_the_cup_is_left_as_it_is() -> None:
    read = [die("red", 0.9), die("red", 0.8), die("blue", 0.95)]
    assert doubt_counts(read, {"red": 2, "blue": 1}) == read


def test_a_colour_read_once_too_often_flags_its_least_sure_die_only() -> None:
    read = [die("red", 0.9, 0), die("red", 0.7, 1), die("red", 0.95, 2), die("blue", 0.9, 3)]
    out = doubt_counts(read, {"red": 2, "blue": 1, "yellow": 1})
    assert [r.flagged for r in out] == [False, True, False, False]
    assert [(r.x, r.color) for r in out] == [(r.x, r.color) for r in read], "nothing recoloured"


def test_two_dice_of_other_colours_read_as_one_colour_ask_every_die_of_that_colour() -> None:
    # Under a warm bulb faded reds look yellow: the cup held 4 red and 4 yellow, the camera reads
    # 2 red and 6 yellow, the misread reds as surely as the true yellows. Which two are wrong
    # cannot be told from how sure the reader is: every yellow is asked, no red, none recoloured.
    read = [die("red", 0.9, 0), die("red", 0.9, 1)]
    read += [die("yellow", c, 2 + i) for i, c in enumerate((0.97, 0.7, 0.95, 0.99, 0.8, 0.9))]
    out = doubt_counts(read, {"red": 4, "yellow": 4})
    assert [r.flagged for r in out] == [False, False] + [True] * 6
    assert [r.color for r in out] == [r.color for r in read], "nothing recoloured"


def test_one_die_of_another_colour_read_as_a_colour_asks_its_least_sure_die_only() -> None:
    read = [die("red", 0.9, 0), die("red", 0.9, 1), die("red", 0.9, 2)]
    read += [die("yellow", c, 3 + i) for i, c in enumerate((0.97, 0.7, 0.95, 0.99, 0.8))]
    out = doubt_counts(read, {"red": 4, "yellow": 4})
    assert [r.x for r in out if r.flagged] == [4], "one die wrong is chance, not the light"


def test_two_dice_too_many_of_a_colour_where_two_dice_too_many_are_read_ask_the_least_sure() -> (
    None
):
    # the two extra yellows are no red read wrong (every red is read): something else on the
    # table was taken for two dice, and the two least sure yellows are asked
    read = [die("red", 0.9, 0), die("red", 0.9, 1)]
    read += [die("yellow", c, 2 + i) for i, c in enumerate((0.97, 0.7, 0.95, 0.99, 0.8, 0.9))]
    out = doubt_counts(read, {"red": 2, "yellow": 4})
    assert [r.x for r in out if r.flagged] == [3, 6]


def test_a_colour_not_in_the_cup_at_all_is_flagged_wherever_it_is_read() -> None:
    read = [die("black", 0.99, 0), die("yellow", 0.9, 1), die("black", 0.98, 2)]
    out = doubt_counts(read, {"yellow": 3})
    assert [r.flagged for r in out] == [True, False, True]


def test_too_few_dice_flag_nothing_the_missing_die_is_not_on_the_picture() -> None:
    read = [die("red", 0.9), die("blue", 0.9), die("blue", 0.8), die("blue", 0.7)]
    assert not any(r.flagged for r in doubt_counts(read, {"red": 2, "blue": 4}))
    assert not any(r.flagged for r in doubt_counts(read, total=5))


def test_with_unseen_fills_more_dice_than_were_thrown_flags_the_least_sure() -> None:
    read = [die("red", 0.9), die("blue", 0.65), die("black", 0.8), die("red", 0.99)]
    out = doubt_counts(read, total=3)
    assert [r.flagged for r in out] == [False, True, False, False]
    assert out[1].confidence < CONFIRM_BELOW


def test_a_throw_read_with_a_die_too_many_of_a_colour_reaches_the_table_flagged(
    tmp_path: Path,
) -> None:
    # Junior: 16 dice, 4 of each colour, are thrown every round; the companion knows it. The
    # table shows a fifth red die where a yellow one should be (a die from another box).
    colors = ["red"] * 5 + ["yellow"] * 3 + ["blue"] * 4 + ["black"] * 4
    scene = cube_scene(5, colors=colors, noise=2.0)
    photo = tmp_path / "throw.png"
    assert cv2.imwrite(str(photo), scene.image)
    table = Table(Journal(tmp_path / "journal.sqlite3"), HeardNarrator(), seats=5)
    desk = ThrowDesk(table, ThrowCamera(ImageFileSource(photo), None))
    table.new_game("oraklos", {"players": 2, "mode": "junior"}, ["Ada", "Bea"], "en", seed=3)
    desk.read_now()
    running = table.running
    assert running is not None and running.state.phase is Phase.SEARCH
    dice = running.state.table
    assert sum(d.color.value == "red" for d in dice) == 5, "the reading is kept as read"
    assert [d.color.value for d in dice if d.flagged] == ["red"]
    shown = table.snapshot()["state"]
    assert sorted(shown["mismatch"], key=lambda m: m["color"]) == [
        {"color": "red", "bound": "exactly", "expected": 4, "seen": 5},
        {"color": "yellow", "bound": "exactly", "expected": 4, "seen": 3},
    ]
    desk.close()


def doubted(color: str, confidence: float, present: float, x: float = 0.0) -> DieReading:
    """A reading whose reader is ``present`` sure that a die lies there at all."""
    return DieReading(x, 0.0, 40.0, 0.0, confidence, color=color, hole=False, present=present)


def test_a_colour_read_too_often_loses_the_reading_its_reader_doubts_is_a_die_at_all() -> None:
    # The cup held two reds; the camera reads three, one of them a red die's reflection on the
    # lacquer, that the reader itself is 0.2 sure is a die. The cup did not hold it: it is left
    # out, and the two red dice are not asked about.
    read = [doubted("red", 0.9, 0.95, 0), doubted("red", 0.2, 0.2, 1), doubted("red", 0.8, 0.9, 2)]
    out = doubt_counts(read, {"red": 2, "blue": 1})
    assert [r.x for r in out] == [0, 2]
    assert not any(r.flagged for r in out)


def test_a_doubted_reading_of_a_colour_not_read_too_often_is_asked_not_left_out() -> None:
    read = [doubted("red", 0.9, 0.95, 0), doubted("red", 0.2, 0.2, 1), doubted("red", 0.8, 0.9, 2)]
    out = doubt_counts(read, {"red": 3})
    assert [(r.x, r.flagged) for r in out] == [(0, False), (1, True), (2, False)]


def test_only_as_many_doubted_readings_as_are_too_many_are_left_out_the_least_likely() -> None:
    read = [
        doubted("blue", 0.9, 0.95, 0),
        doubted("blue", 0.25, 0.25, 1),
        doubted("blue", 0.1, 0.1, 2),
    ]
    out = doubt_counts(read, {"blue": 2})
    assert [(r.x, r.flagged) for r in out] == [(0, False), (1, True)]


def test_with_unseen_fills_a_die_too_many_that_its_reader_doubts_is_left_out() -> None:
    read = [doubted("red", 0.9, 0.95, 0), doubted("blue", 0.2, 0.2, 1), doubted("red", 0.8, 0.9, 2)]
    assert [r.x for r in doubt_counts(read, total=2)] == [0, 2]
    assert [r.x for r in doubt_counts(read, total=3)] == [0, 1, 2]


def test_a_reading_its_reader_is_sure_is_a_die_is_never_left_out_only_asked() -> None:
    read = [doubted("black", 0.9, 0.95, 0), doubted("black", 0.5, 0.8, 1)]
    out = doubt_counts(read, {"black": 1})
    assert [(r.x, r.flagged) for r in out] == [(0, False), (1, True)]
    unmeasured = [die("black", 0.9, 0), die("black", 0.2, 1)]
    assert [r.flagged for r in doubt_counts(unmeasured, {"black": 1})] == [False, True]


def test_a_ghost_does_not_stand_in_for_a_die_of_another_colour() -> None:
    # A yellow die the camera did not see is not "found" as the red die's reflection.
    read = [doubted("red", 0.9, 0.95, 0), doubted("red", 0.2, 0.15, 1)]
    assert [r.x for r in doubt_counts(read, {"red": 1, "yellow": 1})] == [0]


def candidate(color: str, confidence: float, x: float = 0.0) -> DieReading:
    return DieReading(x, 0.0, 40.0, 0.0, confidence, color=color, hole=False, candidate=True)


def test_a_candidate_stands_for_a_die_the_cup_held_that_was_not_read_and_is_asked() -> None:
    read = [die("red", 0.9, 0), candidate("blue", 0.3, 1), die("blue", 0.9, 2)]
    out = doubt_counts(read, {"red": 1, "blue": 2})
    assert [(r.x, r.color) for r in out] == [(0, "red"), (1, "blue"), (2, "blue")]
    assert [r.flagged for r in out] == [False, True, False], "the candidate is asked"
    assert not any(r.candidate for r in out)


def test_candidates_fill_in_only_as_many_dice_as_are_missing_a_short_colour_first() -> None:
    read = [
        die("red", 0.9, 0),
        candidate("red", 0.45, 1),
        candidate("yellow", 0.3, 2),
        candidate("black", 0.25, 3),
    ]
    out = doubt_counts(read, {"red": 1, "yellow": 1, "black": 1})
    assert [r.color for r in out] == ["red", "yellow", "black"], "no second red: red is not short"
    assert [r.flagged for r in out] == [False, True, True]
    with_total = doubt_counts(read, total=2)
    assert [(r.x, r.color) for r in with_total] == [(0, "red"), (1, "red")], "the likeliest"


def test_candidates_are_dropped_when_no_die_is_missing_or_the_table_knows_nothing() -> None:
    read = [die("red", 0.9, 0), candidate("blue", 0.5, 1), die("blue", 0.9, 2)]
    assert doubt_counts(read, {"red": 1, "blue": 1}) == [read[0], read[2]]
    assert doubt_counts(read, total=2) == [read[0], read[2]]
    assert doubt_counts(read) == [read[0], read[2]]


# --- a low sun's shadows -----------------------------------------------------------------------


def at(color: str, confidence: float, x: float, y: float) -> DieReading:
    return DieReading(x, y, 40.0, 0.0, confidence, color=color, hole=False)


def sunlit(colors: list[str], shadow: float = 0.65) -> list[DieReading]:
    """Dice far apart, each with its hard shadow a little more than a side to its lower right
    read as a black cube."""
    dice = [at(c, 0.9, 200.0 * i, 100.0) for i, c in enumerate(colors)]
    cast = [at("black", shadow, 200.0 * i + 40, 130.0) for i in range(len(colors))]
    return dice + cast


def test_a_low_sun_s_shadows_read_as_black_cubes_all_one_way_are_left_out() -> None:
    read = sunlit(["red", "yellow", "blue", "red"])
    out = doubt_counts(read, {"red": 2, "yellow": 1, "blue": 1})
    assert out == read[:4], "the four dice, none of their shadows"
    assert doubt_counts(read, total=4) == read[:4]


def test_a_black_die_lying_the_way_the_shadows_fall_comes_back_where_the_cup_holds_it() -> None:
    read = sunlit(["red", "yellow", "blue", "red"])
    read += [at("blue", 0.9, 1000, 400), at("black", 0.85, 1040, 425)]  # a black die, touching
    out = doubt_counts(read, {"red": 2, "yellow": 1, "blue": 2, "black": 1})
    blacks = [r for r in out if r.color == "black"]
    assert [(r.x, r.y, r.flagged) for r in blacks] == [(1040, 425, True)], "the surest, asked"


def test_black_dice_touching_others_every_which_way_are_dice_not_shadows() -> None:
    dice = [at(c, 0.9, 300.0 * i, 100.0) for i, c in enumerate(["red", "yellow", "blue", "red"])]
    ways = [(45, 0), (0, 45), (-45, 0), (0, -45)]
    blacks = [at("black", 0.8, d.x + dx, d.y + dy) for d, (dx, dy) in zip(dice, ways, strict=True)]
    out = doubt_counts(dice + blacks, {"red": 2, "yellow": 1, "blue": 1, "black": 4})
    assert sorted((r.x, r.y) for r in out) == sorted((r.x, r.y) for r in dice + blacks)
    assert not any(r.flagged for r in out)


def test_three_dark_readings_one_way_are_not_yet_a_light_s_shadows() -> None:
    read = sunlit(["red", "yellow", "blue"])
    out = doubt_counts(read, {"red": 1, "yellow": 1, "blue": 1})
    assert len(out) == 6, "kept, and asked: black is not in the cup"
    assert all(r.flagged for r in out if r.color == "black")


def test_shadows_are_left_as_they_are_where_the_table_knows_nothing() -> None:
    read = sunlit(["red", "yellow", "blue", "red"])
    assert doubt_counts(read) == read


# --- what lay there before the throw ----------------------------------------------------------


def test_a_reading_of_the_table_itself_stays_out_when_the_cup_s_dice_are_all_read() -> None:
    kept = [die("red", 0.9, 0), die("blue", 0.9, 2)]
    table_own = [die("red", 0.8, 1)]  # a red square of the cloth, unchanged since before
    assert back_where_short(kept, table_own, {"red": 1, "blue": 1}) == kept
    assert back_where_short(kept, table_own, total=2) == kept
    assert back_where_short(kept, table_own) == kept, "the table knows nothing: no way back"


def test_a_die_no_one_picked_up_counts_where_its_colour_would_be_short() -> None:
    # a yellow die of the cup lay there, unmoved, through the throw: it is on the table
    kept = [die("red", 0.9, 0), die("yellow", 0.9, 3)]
    lying = [die("yellow", 0.85, 1), die("red", 0.8, 2)]
    out = back_where_short(kept, lying, {"red": 1, "yellow": 2})
    assert [(r.x, r.color) for r in out] == [(0, "red"), (1, "yellow"), (3, "yellow")]
    with_total = back_where_short(kept, lying, total=3)
    assert [r.x for r in with_total] == [0, 1, 2, 3], "short of the total: all of them back"


def test_a_weak_detection_of_the_table_itself_never_comes_back() -> None:
    kept = [die("red", 0.9, 0)]
    assert back_where_short(kept, [candidate("blue", 0.4, 1)], {"red": 1, "blue": 1}) == kept
