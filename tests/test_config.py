"""The TOML config: documented defaults, and refusals that name the line and the fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.config import DEFAULT_BUTTON_PAIRS, DEFAULT_PAUSES, ConfigError, load, parse

ROOT = Path(__file__).resolve().parents[1]


def refusal(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse(text, Path("table.toml"))
    return caught.value


def test_no_config_gives_the_documented_defaults() -> None:
    config = load(None)
    assert (config.language, config.host, config.port) == ("en", "127.0.0.1", 5000)
    assert config.button_pairs == DEFAULT_BUTTON_PAIRS
    assert config.seats == 10
    assert dict(config.pauses) == DEFAULT_PAUSES


def test_the_sample_config_in_the_repository_is_valid() -> None:
    config = load(ROOT / "companion.example.toml")
    assert config.seats == len(config.seat_names) == len(config.leds) == 6
    assert config.data_dir == ROOT / "companion-data"


def test_the_same_pin_twice_is_refused_at_its_line() -> None:
    error = refusal("[buttons]\npairs = [\n  [4, 17],\n  [27, 4],\n]\n")
    assert error.line == 4
    assert "pin 4 is used twice" in str(error)
    assert "give each button and LED its own pin" in str(error)
    assert str(error).startswith("table.toml, line 4:")


def test_an_led_on_a_button_pin_is_refused() -> None:
    error = refusal("[buttons]\npairs = [[4, 17], [27, 22]]\nleds = [5,\n  22]\n")
    assert error.line == 4
    assert "seat 2's LED" in str(error)


def test_more_seats_than_buttons_is_refused() -> None:
    error = refusal(
        '[seats]\nnames = ["Ada", "Bea", "Cyd"]\n\n[buttons]\npairs = [[4, 17], [27, 22]]\n'
    )
    assert error.line == 2
    assert "add a pair [A, B] to buttons.pairs" in str(error)


@pytest.mark.parametrize(
    ("text", "line", "hint"),
    [
        ('language = "en"\ncolour = "red"\n', 2, "unknown key 'colour'"),
        ('[server]\nhost = "x"\nprot = 5000\n', 3, "unknown key 'server.prot'"),
        ("[narration.pauses]\nintro = 1\nmidnight = 3\n", 3, "use one of close_eyes"),
        ("[sound]\nvolume = 3\n", 1, "unknown key 'sound'"),
    ],
)
def test_an_unknown_key_is_refused_at_its_line(text: str, line: int, hint: str) -> None:
    error = refusal(text)
    assert error.line == line
    assert hint in str(error)


@pytest.mark.parametrize(
    ("text", "line", "hint"),
    [
        ('language = "de"\n', 1, 'language must be "en" or "fr"'),
        ("[server]\nport = 99999\n", 2, "use 1 to 65535"),
        ('[server]\nport = "80"\n', 2, "must be a whole number"),
        ("[buttons]\npairs = [[4, 17], [40, 22]]\n", 2, "BCM numbers 2 to 27"),
        ("[buttons]\npairs = [[4, 17], [22]]\n", 2, "a pair of pin numbers [A, B]"),
        ('[buttons]\npin_factory = "magic"\n', 2, "auto, mock, native"),
        ('[voice]\nengine = "loud"\n', 2, "auto, piper, pyttsx3, console"),
        ("[narration.pauses]\nintro = -1\n", 2, "0 to 120 seconds"),
        ('[narration.pauses]\nintro = "long"\n', 2, "a number of seconds"),
        ("language = \n", 1, "not valid TOML"),
    ],
)
def test_a_wrong_value_is_refused_with_the_fix(text: str, line: int, hint: str) -> None:
    error = refusal(text)
    assert error.line == line
    assert hint in str(error)


def test_a_relative_data_dir_is_relative_to_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('data_dir = "games"\n')
    assert load(path).journal_path == tmp_path / "games" / "journal.sqlite3"


def test_serve_with_a_wrong_config_stops_with_the_message_and_status_2(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[buttons]\npairs = [[4, 17], [17, 22]]\n")
    result = subprocess.run(
        [sys.executable, "-m", "appliance.cli", "serve", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{path}, line 2: pin 17 is used twice" in result.stderr


# --- [camera] ---------------------------------------------------------------------------------


def test_the_camera_defaults_are_documented() -> None:
    camera = load(None).camera
    assert (camera.source, camera.width, camera.height) == ("auto", 1280, 720)
    assert camera.calibration is None and camera.colors is None
    assert camera.settle_frames == 8
    assert camera.cubes == "learned"
    assert camera.tessons == "learned"


def test_camera_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "frames").mkdir()
    path = tmp_path / "c.toml"
    path.write_text(
        '[camera]\nsource = "frames"\ncalibration = "calibration.json"\nsettle_frames = 12\n'
        'colors = "check/colors.json"\ncubes = "hand-tuned"\ntessons = "hand-tuned"\n'
    )
    camera = load(path).camera
    assert camera.source == str(tmp_path / "frames")
    assert camera.calibration == tmp_path / "calibration.json"
    assert camera.colors == tmp_path / "check" / "colors.json"
    assert camera.settle_frames == 12
    assert camera.cubes == "hand-tuned"
    assert camera.tessons == "hand-tuned"


@pytest.mark.parametrize("source", ["auto", "picamera", "device:0", "device:12"])
def test_camera_sources_that_need_no_file(source: str) -> None:
    assert parse(f'[camera]\nsource = "{source}"\n').camera.source == source


@pytest.mark.parametrize(
    ("text", "line", "hint"),
    [
        ('[camera]\nwidth = 1280\nsource = "picamra"\n', 3, "'picamra' is no file or folder"),
        ('[camera]\nsource = "device:usb"\n', 2, 'e.g. "device:0"'),
        ("[camera]\nwidth = 100\n", 2, "width must be 160 to 4096 pixels"),
        ('\n[camera]\nheight = "720"\n', 3, "camera.height must be a whole number"),
        ("[camera]\nsettle_frames = 0\n", 2, "settle_frames must be 1 to 300 frames"),
        ('[camera]\ncubes = "neural"\n', 2, 'cube reader is "learned" (the default) or'),
        ('[camera]\n\ntessons = "net"\n', 3, 'tesson reader is "learned" (the default) or'),
        ('[camera]\ncalibration = " "\n', 2, "calibration must name a file"),
        ('[camera]\n\ncolors = ""\n', 3, "colors must name a file from `companion vision colors`"),
        ("[camera]\nfps = 30\n", 2, "unknown key 'camera.fps'"),
        ('camera = "auto"\n', 1, "camera must be a table [camera]"),
    ],
)
def test_a_wrong_camera_value_is_refused_with_the_fix(text: str, line: int, hint: str) -> None:
    error = refusal(text)
    assert error.line == line
    assert hint in str(error)


def test_check_config_shows_the_camera() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "appliance.cli",
            "check-config",
            str(ROOT / "companion.example.toml"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "camera: auto, 1280×720; calibration: none (readings in pixels)" in result.stdout
    assert "cube colours: the usual ones (no colour check)" in result.stdout
    assert "host PIN: generated once (companion pin); session cookies: plain HTTP" in (
        result.stdout
    )


# --- [host] -----------------------------------------------------------------------------------


def test_without_a_host_pin_one_is_generated_and_cookies_go_over_plain_http() -> None:
    config = load(None)
    assert config.host_pin is None
    assert config.secure_cookies is False


@pytest.mark.parametrize("pin", ["0482", "4812", "123456789012"])
def test_a_host_pin_is_4_to_12_digits_in_quotes(pin: str) -> None:
    config = parse(f'[host]\npin = "{pin}"\nsecure_cookies = true\n')
    assert config.host_pin == pin  # a leading 0 is kept
    assert config.secure_cookies is True


@pytest.mark.parametrize(
    ("text", "line", "hint"),
    [
        ("[host]\npin = 4812\n", 2, 'host.pin must be text in quotes (e.g. pin = "4812"'),
        ('\n[host]\npin = "123"\n', 3, "4 to 12 digits (this one has 3)"),
        ('[host]\npin = "1234567890123"\n', 2, "4 to 12 digits (this one has 13)"),
        ('[host]\npin = "48 12"\n', 2, "with no space, letter or other sign"),
        ('[host]\npin = "４８１２"\n', 2, "with no space, letter or other sign"),
        ('[host]\nsecure_cookies = "yes"\n', 2, "host.secure_cookies must be true or false"),
        ("[host]\nsecure_cookies = 1\n", 2, "host.secure_cookies must be true or false"),
        ('[host]\npassword = "x"\n', 2, "unknown key 'host.password'"),
        ('[server]\nhost = "0.0.0.0"\n\n[host]\npin = ""\n', 5, "4 to 12 digits"),
    ],
)
def test_a_wrong_host_setting_is_refused_at_its_line(text: str, line: int, hint: str) -> None:
    error = refusal(text)
    assert error.line == line
    assert hint in str(error)


def test_a_refused_pin_is_not_repeated_in_the_message() -> None:
    error = refusal('[host]\npin = "98765432101234"\n')
    assert "98765432101234" not in str(error)


# -- the appliance: the page's name, the voice's output, the power button ---------------------


def test_the_appliance_keys_have_safe_defaults() -> None:
    config = parse("")
    assert config.network_name == "companion"
    assert config.speech_output == "auto"
    assert config.power.button is None  # no power button unless one is wired
    assert config.power.command == ()  # the companion only stops: a laptop stays on


def test_the_power_button_the_hold_and_the_command_are_read() -> None:
    config = parse(
        '[power]\nbutton = 3\nhold_seconds = 5\ncommand = ["sudo", "-n", "/usr/bin/systemctl", '
        '"poweroff"]\n[voice]\noutput = "usb"\n[network]\nname = "jeux-2"\n'
    )
    assert (config.power.button, config.power.hold_seconds) == (3, 5.0)
    assert config.power.command == ("sudo", "-n", "/usr/bin/systemctl", "poweroff")
    assert (config.speech_output, config.network_name) == ("usb", "jeux-2")
    assert parse('[network]\nname = ""\n').network_name == ""


def test_the_power_button_cannot_share_a_seat_pin() -> None:
    error = refusal("[buttons]\npairs = [[4, 17]]\n[power]\nbutton = 17\n")
    assert error.line == 4
    assert "pin 17 is used twice, by seat 1's B button and by the power button" in str(error)


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("[power]\nbutton = 1\n", 2, "pin 1 is not a GPIO pin"),
        ("[power]\nhold_seconds = 0.2\n", 2, "hold_seconds is 1 to 30 seconds"),
        ('[power]\ncommand = ["sudo", ""]\n', 2, "command is a list of words"),
        ('[power]\ncommand = "poweroff"\n', 2, "power.command must be a list"),
        ('[network]\nname = "Companion.local"\n', 2, "lower-case letters, digits and hyphens"),
        ('[network]\nname = "-companion"\n', 2, "not first or last"),
        ('[voice]\noutput = "the speaker"\n', 2, "as `aplay -l` shows it"),
    ],
)
def test_a_bad_appliance_key_is_refused_at_its_line_with_the_fix(
    text: str, line: int, says: str
) -> None:
    error = refusal(text)
    assert error.line == line
    assert says in str(error)


def test_a_seat_name_is_24_characters_at_most() -> None:
    with pytest.raises(ConfigError, match="name 2 is over 24 characters"):
        parse('[seats]\nnames = ["Ada", "Maximilienne-Antoinette-Ro"]\n')


def test_other_names_the_companion_answers_to_are_host_names() -> None:
    assert parse('[server]\nnames = ["Companion.Example.Home"]\n').server_names == (
        "companion.example.home",
    )
    with pytest.raises(ConfigError, match="must be a host name in quotes"):
        parse('[server]\nnames = ["http://evil/"]\n')
