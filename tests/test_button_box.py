"""The button box on gpiozero's own MockFactory pins: presses, debounce, LEDs, the virtual panel.

MockPin ignores ``bounce_time`` and its callbacks run at once in the thread that drives the pin,
so every edge here is synchronous, and the debounce clock is injected and advanced by hand.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from companion.seat_input import Button, Press
from hardware.button_box import ButtonBox, Debouncer, make_pin_factory
from hardware.virtual_panel import NotSimulated, VirtualPanel

PAIRS = ((4, 17), (27, 22), (5, 6))
LEDS = (24, 23)  # the third seat has no LED
BOUNCE = 0.04
A, B = Button.A, Button.B


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def pressed() -> list[Press]:
    return []


@pytest.fixture
def box(factory: MockFactory, clock: Clock, pressed: list[Press]) -> Iterator[ButtonBox]:
    box = ButtonBox(PAIRS, LEDS, pressed.append, bounce=BOUNCE, pin_factory=factory, clock=clock)
    yield box
    for pins in PAIRS:  # a button still held would keep its gpiozero hold thread waiting
        for pin in pins:
            factory.pin(pin).drive_high()
    box.close()


def tap(factory: MockFactory, clock: Clock, pin: int) -> None:
    """A clean press and release, after the button has been quiet for a while."""
    clock.advance(1.0)
    factory.pin(pin).drive_low()
    clock.advance(0.15)
    factory.pin(pin).drive_high()


# -- presses --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", range(len(PAIRS)))
@pytest.mark.parametrize(("button", "side"), [(A, 0), (B, 1)])
def test_each_seat_reports_its_own_button(
    box: ButtonBox,
    factory: MockFactory,
    clock: Clock,
    pressed: list[Press],
    seat: int,
    button: Button,
    side: int,
) -> None:
    tap(factory, clock, PAIRS[seat][side])

    assert pressed == [Press(seat, button)]


def test_every_button_of_the_box_in_turn(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    for pins in PAIRS:
        for pin in pins:
            tap(factory, clock, pin)

    assert pressed == [Press(s, b) for s in range(len(PAIRS)) for b in (A, B)]


def test_a_press_is_reported_on_the_way_down_and_the_release_reports_nothing(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    factory.pin(22).drive_low()
    assert pressed == [Press(1, B)]

    clock.advance(2.0)
    factory.pin(22).drive_high()
    assert pressed == [Press(1, B)]


def test_the_box_knows_its_seats_and_pins(box: ButtonBox) -> None:
    assert box.seats == 3
    assert box.pin_of(Press(2, A)) == 5
    assert box.pin_of(Press(2, B)) == 6


# -- debounce -------------------------------------------------------------------------------------


def test_a_chattering_press_counts_once(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    pin = factory.pin(17)
    pin.drive_low()
    for _ in range(4):  # the contact bounces for 24 ms, well inside the 40 ms window
        clock.advance(0.003)
        pin.drive_high()
        clock.advance(0.003)
        pin.drive_low()

    assert pressed == [Press(0, B)]


def test_a_chattering_release_counts_nothing(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    pin = factory.pin(27)
    pin.drive_low()
    clock.advance(0.3)
    pin.drive_high()
    for _ in range(4):
        clock.advance(0.004)
        pin.drive_low()
        clock.advance(0.004)
        pin.drive_high()

    assert pressed == [Press(1, A)]


def test_two_presses_further_apart_than_the_bounce_window_count_twice(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    pin = factory.pin(4)
    pin.drive_low()
    clock.advance(0.05)
    pin.drive_high()
    clock.advance(BOUNCE + 0.001)
    pin.drive_low()

    assert pressed == [Press(0, A), Press(0, A)]


def test_a_second_press_inside_the_bounce_window_is_chatter(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    pin = factory.pin(4)
    pin.drive_low()
    clock.advance(0.05)
    pin.drive_high()
    clock.advance(BOUNCE - 0.001)
    pin.drive_low()

    assert pressed == [Press(0, A)]


def test_two_buttons_pressed_together_both_count(
    box: ButtonBox, factory: MockFactory, pressed: list[Press]
) -> None:
    factory.pin(4).drive_low()
    factory.pin(17).drive_low()  # same instant: each button debounces on its own
    factory.pin(5).drive_low()

    assert pressed == [Press(0, A), Press(0, B), Press(2, A)]


def test_the_debouncer_needs_a_quiet_window_before_a_press(clock: Clock) -> None:
    debouncer = Debouncer(0.04, clock)

    assert debouncer.edge("x", True)
    clock.advance(0.01)
    assert not debouncer.edge("x", False)  # releases never count
    clock.advance(0.039)
    assert not debouncer.edge("x", True)  # only 39 ms since the last edge
    clock.advance(0.04)
    assert not debouncer.edge("x", False)
    clock.advance(0.04)
    assert debouncer.edge("x", True)
    assert debouncer.edge("y", True)  # another key has its own window


# -- LEDs -----------------------------------------------------------------------------------------


def test_set_led_lights_the_seats_pin(box: ButtonBox, factory: MockFactory) -> None:
    assert [factory.pin(n).state for n in LEDS] == [False, False]

    box.set_led(1, True)

    assert [factory.pin(n).state for n in LEDS] == [False, True]
    assert box.leds() == [False, True, None]

    box.set_led(1, False)
    box.set_led(0, True)

    assert [factory.pin(n).state for n in LEDS] == [True, False]
    assert box.leds() == [True, False, None]


def test_a_seat_without_an_led_is_left_alone(box: ButtonBox, factory: MockFactory) -> None:
    box.set_led(2, True)
    box.set_led(7, True)

    assert box.leds() == [False, False, None]
    assert [factory.pin(n).state for n in LEDS] == [False, False]


# -- the virtual panel ----------------------------------------------------------------------------


def test_the_virtual_panel_presses_through_the_gpiozero_pins(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    panel = VirtualPanel(box)

    panel.press(Press(1, B))
    clock.advance(1.0)
    panel.press(Press(2, A))

    assert pressed == [Press(1, B), Press(2, A)]
    assert factory.pin(22).state and factory.pin(5).state  # released again: pulled up
    # down and up (the presses above came through), then forgotten: a long evening of
    # simulation keeps no history of its presses in memory
    assert [state.state for state in factory.pin(22).states] == [True]


def test_the_virtual_panel_goes_through_the_debounce(
    box: ButtonBox, clock: Clock, pressed: list[Press]
) -> None:
    panel = VirtualPanel(box)

    panel.press(Press(0, A))
    clock.advance(0.01)
    panel.press(Press(0, A))  # a double click faster than the bounce window

    assert pressed == [Press(0, A)]


def test_the_virtual_panel_refuses_real_pins(box: ButtonBox, pressed: list[Press]) -> None:
    panel = VirtualPanel(box)
    box.pin_factory = None  # what the box holds on a Pi: gpiozero's default, real pins

    with pytest.raises(NotSimulated, match="simulated"):
        panel.press(Press(0, A))
    assert pressed == []


def test_mock_pins_are_used_away_from_a_raspberry_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hardware.button_box.on_a_raspberry_pi", lambda: False)

    mock, simulated = make_pin_factory("auto")
    assert isinstance(mock, MockFactory) and simulated
    assert make_pin_factory("native") == (None, False)

    monkeypatch.setattr("hardware.button_box.on_a_raspberry_pi", lambda: True)
    assert make_pin_factory("auto") == (None, False)
    forced, simulated = make_pin_factory("mock")
    assert isinstance(forced, MockFactory) and simulated


# -- robustness -----------------------------------------------------------------------------------


def test_a_failing_handler_does_not_reach_gpiozero(
    factory: MockFactory, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    handled: list[Press] = []

    def handler(press: Press) -> None:
        if not handled:
            handled.append(press)
            raise RuntimeError("the table fell over")
        handled.append(press)

    box = ButtonBox(PAIRS, LEDS, handler, bounce=BOUNCE, pin_factory=factory, clock=clock)
    with caplog.at_level(logging.ERROR, logger="hardware.button_box"):
        tap(factory, clock, 4)  # raises inside the callback: must not come out of drive_low
        tap(factory, clock, 6)

    assert handled == [Press(0, A), Press(2, B)]
    assert "could not be handled" in caplog.text
    assert any(record.exc_info for record in caplog.records)
    box.close()


def test_closing_the_box_frees_its_pins(
    factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    first = ButtonBox(PAIRS, LEDS, lambda press: None, pin_factory=factory, clock=clock)
    first.close()

    again = ButtonBox(PAIRS, LEDS, pressed.append, pin_factory=factory, clock=clock)
    tap(factory, clock, 5)

    assert pressed == [Press(2, A)]
    again.close()


def test_a_contact_chattering_on_its_way_down_gives_one_long_press_however_long_it_is_held() -> (
    None
):
    """The chatter re-arms gpiozero's hold thread, which then fires a second time while the
    button is still held (it did in 9 of 15 tries before the box reported once per press)."""
    for _ in range(4):
        factory, pressed = MockFactory(), []
        box = ButtonBox(((4, 17),), (), pressed.append, bounce=0.04, pin_factory=factory, hold=0.3)
        try:
            pin = factory.pin(4)
            pin.drive_low()
            for _ in range(3):
                pin.drive_high()
                pin.drive_low()
            time.sleep(0.3 * 2 + 0.2)  # two hold times and gpiozero's polling
            pin.drive_high()
        finally:
            box.close()
        assert pressed == [Press(0, Button.A), Press(0, Button.A, long=True)]
