"""``companion oraklos``: listing true predictions and judging a claim from a dice file."""

from __future__ import annotations

import json
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.games.oraklos.dice import Color, Die
from companion.games.oraklos.predictions import CODES, check
from companion.narration.catalog import Catalog
from companion.narration.oraklos import verdict_text

# Red top-left, yellow top-right, blue bottom-right, black bottom-left (y down): clockwise on
# screen R, Y, B, K, the card BKRY. Die 4, far off, shows its hole.
SQUARE = [
    {"x": 0, "y": 0, "size": 2, "angle": 0, "color": "red", "hole": False},
    {"x": 20, "y": 0, "size": 2, "angle": 0, "color": "yellow", "hole": False},
    {"x": 20, "y": 20, "size": 2, "angle": 0, "color": "blue", "hole": False},
    {"x": 0, "y": 20, "size": 2, "angle": 0, "color": "black", "hole": False},
    {"x": 60, "y": 10, "size": 2, "angle": 30, "color": "blue", "hole": True},
]
# The same square with a blue die in its middle instead.
CROWDED = [*SQUARE[:4], {"x": 10, "y": 10, "size": 2, "color": "blue"}]


def companion(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "appliance.cli", "oraklos", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def write(tmp_path: Path, content: Any, name: str = "throw.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


@pytest.fixture
def square(tmp_path: Path) -> Path:
    return write(tmp_path, {"dice": SQUARE}, "square.json")


@pytest.fixture
def crowded(tmp_path: Path) -> Path:
    return write(tmp_path, {"dice": CROWDED}, "crowded.json")


def listed(*args: str | Path) -> list[dict[str, Any]]:
    result = companion("predictions", *args, "--json")
    assert result.returncode == 0, result.stderr
    predictions: list[dict[str, Any]] = json.loads(result.stdout)["predictions"]
    return predictions


def test_predictions_json_lists_each_prediction_clockwise_with_its_card(square: Path) -> None:
    result = companion("predictions", square, "--json")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"predictions": [{"dice": [0, 1, 2, 3], "card": "BKRY"}]}


def test_predictions_card_keeps_only_those_matching_the_card(square: Path) -> None:
    assert listed(square, "--card", "RYBK") == [{"dice": [0, 1, 2, 3], "card": "BKRY"}]
    assert listed(square, "--card", "RKBY") == []
    assert listed(square, "--card", "RRRR") == []


def test_predictions_either_direction_also_keeps_the_mirror_card(square: Path) -> None:
    assert listed(square, "--card", "RKBY", "--either-direction") == [
        {"dice": [0, 1, 2, 3], "card": "BKRY"}
    ]


def test_predictions_holes_allowed_lets_a_die_showing_its_hole_be_a_corner(square: Path) -> None:
    sacred = listed(square, "--holes-allowed")

    assert {"dice": [0, 1, 2, 3], "card": "BKRY"} in sacred
    assert any(4 in p["dice"] for p in sacred)


def test_predictions_without_json_is_a_readable_listing(square: Path) -> None:
    result = companion("predictions", square)

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "1 true prediction among 5 dice",
        "  BKRY  clockwise: red 0, yellow 1, blue 2, black 3",
    ]


def test_check_says_a_true_prediction_is_true_and_exits_0(square: Path) -> None:
    result = companion("check", square, "3", "1", "2", "0", "--card", "ybkr")

    assert (result.returncode, result.stdout) == (0, "A true prediction.\n")


def test_check_gives_the_reason_and_exits_1_in_english(crowded: Path) -> None:
    result = companion("check", crowded, "0", "1", "2", "3", "--card", "RYBK")

    assert result.returncode == 1
    assert result.stdout == "The heart is not pure: the blue die 4 lies inside.\n"


def test_check_gives_the_reason_in_french(crowded: Path) -> None:
    result = companion("check", crowded, "0", "1", "2", "3", "--lang", "fr")

    assert result.returncode == 1
    assert result.stdout == "Le cœur n'est pas pur\xa0: le dé bleu 4 est à l'intérieur.\n"


def test_check_names_a_die_showing_its_hole(square: Path) -> None:
    english = companion("check", square, "0", "1", "2", "4")
    french = companion("check", square, "0", "1", "2", "4", "--lang", "fr")

    assert (english.returncode, french.returncode) == (1, 1)
    assert english.stdout == "Holes are profane: the blue die 4 shows its hole.\n"
    assert french.stdout == "Les trous sont profanes\xa0: le dé bleu 4 montre son trou.\n"


def test_check_reads_out_the_colours_of_a_wrong_card_order(square: Path) -> None:
    english = companion("check", square, "0", "1", "2", "3", "--card", "RKBY")
    french = companion("check", square, "0", "1", "2", "3", "--card", "RKBY", "--lang", "fr")

    assert (english.returncode, french.returncode) == (1, 1)
    assert english.stdout == (
        "Not this card's order: clockwise, these dice read red, yellow, blue and black; "
        "the card reads red, black, blue and yellow.\n"
    )
    assert french.stdout == (
        "Ce n'est pas l'ordre de la carte\xa0: dans le sens des aiguilles d'une montre, ces dés "
        "donnent rouge, jaune, bleu et noir\xa0; la carte donne rouge, noir, bleu et jaune.\n"
    )


def test_check_json_gives_the_verdict_with_its_rule_and_sentence(crowded: Path) -> None:
    result = companion("check", crowded, "0", "1", "2", "3", "--json", "--lang", "fr")

    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "valid": False,
        "rule": "pure_heart",
        "code": "die_inside",
        "params": {"die": 4, "die_color": "blue"},
        "prediction": None,
        "text": "Le cœur n'est pas pur\xa0: le dé bleu 4 est à l'intérieur.",
    }


def test_check_json_of_a_true_prediction_gives_it(square: Path) -> None:
    result = companion("check", square, "0", "1", "2", "3", "--json")

    assert result.returncode == 0
    verdict = json.loads(result.stdout)
    assert (verdict["valid"], verdict["rule"], verdict["code"]) == (True, None, "valid")
    assert verdict["prediction"] == {"dice": [0, 1, 2, 3], "card": "BKRY"}


def test_check_of_a_die_that_is_not_on_the_table_is_a_bad_claim(square: Path) -> None:
    result = companion("check", square, "0", "1", "2", "9")

    assert result.returncode == 1
    assert result.stdout == "There is no die 9: the dice are numbered 0 to 4.\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ([1, 2], 'expected an object {"dice": [...]}'),
        ({"dice": [{"x": 0, "y": 0, "size": 2, "color": "green"}]}, "die 0: color must be"),
        ({"dice": [{"x": 0, "y": "0", "size": 2, "color": "red"}]}, "die 0: y must be a number"),
        ({"dice": [{"x": 0, "y": 0, "size": 0, "color": "red"}]}, "die 0: size must be more"),
    ],
)
def test_a_bad_dice_file_is_refused_with_exit_2(tmp_path: Path, content: Any, message: str) -> None:
    path = write(tmp_path, content)
    for command in (["predictions", path], ["check", path, "0", "1", "2", "3"]):
        result = companion(*command)
        assert result.returncode == 2
        assert message in result.stderr
        assert result.stdout == ""


def test_a_missing_dice_file_is_refused_with_exit_2(tmp_path: Path) -> None:
    result = companion("predictions", tmp_path / "nowhere.json")

    assert result.returncode == 2
    assert "cannot read" in result.stderr and "nowhere.json" in result.stderr


def test_a_card_with_bad_letters_is_refused_with_exit_2(square: Path) -> None:
    result = companion("check", square, "0", "1", "2", "3", "--card", "RYGB")

    assert result.returncode == 2
    assert "--card" in result.stderr and "four colour letters" in result.stderr


def placeholders(sentence: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(sentence) if name}


def test_every_reason_is_a_sentence_in_english_and_french_with_the_same_placeholders() -> None:
    english, french = Catalog.keys("en"), Catalog.keys("fr")
    for code in CODES:
        key = f"oraklos.reasons.{code}"
        assert placeholders(english[key]) == placeholders(french[key]), code
    assert {k for k in english if k.startswith("oraklos.")} == {
        k for k in french if k.startswith("oraklos.")
    }


def test_every_reason_renders_with_the_params_the_referee_gives() -> None:
    square = [Die.from_json(d, i) for i, d in enumerate(SQUARE)]
    crowded = [Die.from_json(d, i) for i, d in enumerate(CROWDED)]
    edge = [*square[:4], Die(10, 0, 2, Color.RED)]
    in_line = [*square[:3], Die(10, 0.5, 2, Color.BLACK)]
    verdicts = [
        check(square, [0, 1, 2, 3]),
        check(square, [0, 1, 2]),
        check(square, [0, 1, 2, 7]),
        check(square, [0, 1, 2, 2]),
        check(square, [0, 1, 2, 4]),
        check(square, [0, 1, 2, 3], "RBYK"),
        check(edge, [0, 1, 2, 3]),
        check(in_line, [0, 1, 2, 3]),
        check(crowded, [0, 1, 2, 3]),
        check(square, [0, 1, 2, 3], "RKBY"),
    ]

    assert [v.code for v in verdicts] == list(CODES)
    for lang in ("en", "fr"):
        for verdict in verdicts:
            text = verdict_text(Catalog(lang), verdict)
            assert "{" not in text and text.endswith(".")
            assert set(map(str, (v for k, v in verdict.params.items() if len(k) == 1))) <= set(
                text.replace(",", " ").replace(".", " ").split()
            )
