"""Where the voice comes out: the ALSA sound cards, and the one ``[voice] output`` names.

The cards are read from ``/proc/asound/cards``, whose two lines per card look like::

     0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones
                          bcm2835 Headphones
     1 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                          vc4-hdmi-0
     2 [Device         ]: USB-Audio - USB Audio Device
                          C-Media Electronics Inc. USB Audio Device at usb-0000:01:00.0-1.2

(index, ``[id]``, driver, " - ", name; the second line is the long name). With no card at all,
the file says "--- no soundcards ---". The companion plays on the card it resolves by setting
ALSA's ``ALSA_CARD`` to its id (``None``: the system's default output).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

CARDS = Path("/proc/asound/cards")
_CARD = re.compile(r"^\s*(\d+)\s+\[(\S+)\s*\]:\s+(\S+)\s+-\s+(.*?)\s*$")
JACK_DRIVERS = ("bcm2835_headpho", "bcm2835_alsa")  # today's kernels; older ones (jack + HDMI)
NO_CARD_FIX = (
    "plug in a speaker (or a USB sound card), or choose the jack or HDMI audio: "
    "sudo raspi-config → System Options → Audio"
)


@dataclass(frozen=True)
class SoundCard:
    index: int
    id: str  # what ALSA_CARD and ``aplay -D plughw:CARD=...`` take, e.g. "Headphones"
    driver: str  # e.g. "bcm2835_headpho", "vc4-hdmi", "USB-Audio"
    name: str  # e.g. "bcm2835 Headphones"

    def __str__(self) -> str:
        return f"{self.id} ({self.name})"


class OutputNotFound(ValueError):
    """The configured output is not among the cards: ``seen`` says what is there, ``fix`` what
    to do; ``str()`` is both."""

    def __init__(self, seen: str, fix: str) -> None:
        super().__init__(f"{seen}: {fix}")
        self.seen = seen
        self.fix = fix


def read_cards(path: Path = CARDS) -> list[SoundCard]:
    """The sound cards ALSA sees, in index order; none when the file is missing (no ALSA)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    cards = []
    for line in text.splitlines():
        match = _CARD.match(line)
        if match:
            index, card_id, driver, name = match.groups()
            cards.append(SoundCard(int(index), card_id, driver, name))
    return cards


def resolve_output(choice: str, cards: Sequence[SoundCard]) -> str | None:
    """The id of the card ``[voice] output`` names, or None for "auto" (the system's default).

    "jack": the Pi's headphone jack (id Headphones, or a bcm2835 jack driver); "hdmi": the first
    HDMI card; "usb": the first USB card; anything else: a card id (any case). Raises
    ``OutputNotFound`` naming the cards present and the fix.
    """
    if choice == "auto":
        return None
    lowered = choice.lower()
    kinds: dict[str, Callable[[SoundCard], bool]] = {
        "jack": lambda c: c.id == "Headphones" or c.driver.startswith(JACK_DRIVERS),
        "hdmi": lambda c: c.id.lower().startswith("vc4hdmi") or "hdmi" in c.driver.lower(),
        "usb": lambda c: c.driver == "USB-Audio",
    }

    def named(card: SoundCard) -> bool:
        return card.id.lower() == lowered

    matches = kinds.get(lowered, named)
    for card in cards:
        if matches(card):
            return card.id
    if not cards:
        raise OutputNotFound("no sound card at all", NO_CARD_FIX)
    present = ", ".join(map(str, cards))
    what = {
        "jack": "no headphone jack (a Pi 5 has none)",
        "hdmi": "no HDMI sound output",
        "usb": "no USB sound card",
    }.get(lowered, f"no sound card called {choice!r}")
    plug = {"usb": "plug in the USB speaker, or ", "hdmi": "plug in the screen or TV, or "}
    fix = (
        f"{plug.get(lowered, '')}set [voice] output in the config to one of the cards present "
        f'(e.g. output = "{cards[0].id}"), or to "auto"'
    )
    raise OutputNotFound(f"{what}; the cards present are {present}", fix)


def use_output(choice: str, cards: Path = CARDS) -> str | None:
    """Send this process's voice to the card ``[voice] output`` names, by setting ALSA's
    ``ALSA_CARD`` (aplay, through which pyttsx3's espeak-ng driver plays, reads it); its id, or
    None. A card that is not there is said in the log, and the default output is kept."""
    try:
        card = resolve_output(choice, read_cards(cards))
    except OutputNotFound as exc:
        log.warning("voice output %r: %s; the default output is used", choice, exc)
        return None
    if card is not None:
        os.environ["ALSA_CARD"] = card
    return card
