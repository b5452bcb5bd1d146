"""``[voice] output`` sends the companion's voice to that sound card: ALSA_CARD, which aplay
(pyttsx3's espeak-ng driver plays through it) reads. This machine has no sound card, so a real
aplay names the card it was sent to when it cannot open it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from voice.outputs import use_output
from voice.wav import write_wav

PI4_WITH_USB = """\
 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones
                      bcm2835 Headphones
 1 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
 2 [Device         ]: USB-Audio - USB Audio Device
                      C-Media Electronics Inc. USB Audio Device at usb-0000:01:00.0-1.2, full speed
"""


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards"
    path.write_text(PI4_WITH_USB, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def alsa_card() -> Iterator[None]:
    before = os.environ.pop("ALSA_CARD", None)
    yield
    os.environ.pop("ALSA_CARD", None)
    if before is not None:
        os.environ["ALSA_CARD"] = before


@pytest.mark.parametrize(
    ("choice", "card"), [("jack", "Headphones"), ("hdmi", "vc4hdmi0"), ("usb", "Device")]
)
def test_each_output_names_its_card_for_aplay(cards: Path, choice: str, card: str) -> None:
    assert use_output(choice, cards) == card
    assert os.environ["ALSA_CARD"] == card


def test_aplay_plays_on_the_card_chosen(cards: Path, tmp_path: Path) -> None:
    use_output("usb", cards)
    wav = tmp_path / "line.wav"
    write_wav("Seat 2, press A.", "en", wav)
    played = subprocess.run(["aplay", "-q", str(wav)], capture_output=True, text=True, timeout=30)
    assert "cannot find card 'Device'" in played.stderr  # sent there; no such card here


def test_auto_leaves_the_systems_default(cards: Path) -> None:
    assert use_output("auto", cards) is None
    assert "ALSA_CARD" not in os.environ


def test_a_card_that_is_not_there_is_logged_and_the_default_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    no_cards = tmp_path / "cards"
    no_cards.write_text("--- no soundcards ---\n", encoding="utf-8")
    assert use_output("usb", no_cards) is None
    assert "ALSA_CARD" not in os.environ
    assert "voice output 'usb'" in caplog.text and "plug in a speaker" in caplog.text
