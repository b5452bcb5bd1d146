"""The sound cards, read as ``/proc/asound/cards`` lists them, and the one ``[voice] output``
names."""

from __future__ import annotations

from pathlib import Path

import pytest

from voice.outputs import NO_CARD_FIX, OutputNotFound, SoundCard, read_cards, resolve_output

PI4 = """\
 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones
                      bcm2835 Headphones
 1 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
 2 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1
                      vc4-hdmi-1
"""
USB = """\
 3 [Device         ]: USB-Audio - USB Audio Device
                      C-Media Electronics Inc. USB Audio Device at usb-0000:01:00.0-1.2, full speed
"""
PI5 = """\
 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
 1 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1
                      vc4-hdmi-1
"""


def cards(tmp_path: Path, text: str) -> list[SoundCard]:
    path = tmp_path / "cards"
    path.write_text(text)
    return read_cards(path)


def test_each_card_is_read_with_its_index_id_driver_and_name(tmp_path: Path) -> None:
    assert cards(tmp_path, PI4 + USB) == [
        SoundCard(0, "Headphones", "bcm2835_headpho", "bcm2835 Headphones"),
        SoundCard(1, "vc4hdmi0", "vc4-hdmi", "vc4-hdmi-0"),
        SoundCard(2, "vc4hdmi1", "vc4-hdmi", "vc4-hdmi-1"),
        SoundCard(3, "Device", "USB-Audio", "USB Audio Device"),
    ]


def test_no_soundcards_and_no_file_are_no_cards(tmp_path: Path) -> None:
    assert cards(tmp_path, "--- no soundcards ---\n") == []
    assert read_cards(tmp_path / "missing") == []


@pytest.mark.parametrize(
    ("choice", "card"),
    [("auto", None), ("jack", "Headphones"), ("hdmi", "vc4hdmi0"), ("usb", "Device")],
)
def test_a_kind_of_output_is_its_first_card(tmp_path: Path, choice: str, card: str | None) -> None:
    assert resolve_output(choice, cards(tmp_path, PI4 + USB)) == card


def test_a_card_is_named_by_its_id_in_any_case(tmp_path: Path) -> None:
    assert resolve_output("device", cards(tmp_path, PI4 + USB)) == "Device"


def test_a_missing_usb_card_names_the_cards_present_and_the_setting(tmp_path: Path) -> None:
    with pytest.raises(OutputNotFound) as raised:
        resolve_output("usb", cards(tmp_path, PI4))
    assert "no USB sound card" in raised.value.seen
    assert "Headphones (bcm2835 Headphones), vc4hdmi0 (vc4-hdmi-0)" in raised.value.seen
    assert "plug in the USB speaker" in raised.value.fix
    assert 'output = "Headphones"' in raised.value.fix


def test_a_pi_5_has_no_jack(tmp_path: Path) -> None:
    with pytest.raises(OutputNotFound, match="a Pi 5 has none"):
        resolve_output("jack", cards(tmp_path, PI5))


def test_with_no_card_at_all_the_fix_is_a_speaker_or_the_audio_setting() -> None:
    with pytest.raises(OutputNotFound) as raised:
        resolve_output("jack", [])
    assert raised.value.fix == NO_CARD_FIX
    assert "raspi-config" in str(raised.value)
