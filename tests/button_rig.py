"""What the whole-game button tests share: the wiring of a 7-seat box on gpiozero's mock pins,
a clock the tests move by hand (the box's debounce, hold and stuck timers), and a finger that
bounces on the contact."""

from __future__ import annotations

from typing import Any

from tests.timing import HandClock

PAIRS = ((4, 17), (27, 22), (5, 6), (13, 19), (26, 21), (20, 16), (12, 25))
LEDS = (24, 23, 18, 7, 8, 11, 9)
BOUNCE = 0.04


class Clock(HandClock):
    def __init__(self) -> None:
        super().__init__(1000.0)


def chatter_down(pin: Any, clock: Clock, times: int = 3) -> None:
    """A contact pressed and chattering: down, then ``times`` quick bounces up and down again,
    3 ms apart; it stays down."""
    pin.drive_low()
    for _ in range(times):
        clock.advance(0.003)
        pin.drive_high()
        clock.advance(0.003)
        pin.drive_low()


def bouncing_press(pin: Any, clock: Clock, chatter: int = 2) -> None:
    """A finger on a real contact: it bounces on the way down and on the way up."""
    clock.advance(0.5)
    pin.drive_low()
    for _ in range(chatter):
        clock.advance(0.003)
        pin.drive_high()
        clock.advance(0.003)
        pin.drive_low()
    clock.advance(0.2)
    pin.drive_high()
    for _ in range(chatter):
        clock.advance(0.003)
        pin.drive_low()
        clock.advance(0.003)
        pin.drive_high()
