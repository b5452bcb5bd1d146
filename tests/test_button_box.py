"""The button box on gpiozero's own MockFactory pins: presses, debounce, LEDs, the virtual panel.

MockPin ignores ``bounce_time`` and its callbacks run at once in the thread that drives the pin,
so every edge here is synchronous; the box's clock (debounce, hold and stuck timers) is injected
and advanced by hand, so that no test depends on how fast the machine runs it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from button_rig import chatter_down
from gpiozero.pins.mock import MockFactory

from companion.seat_input import Button, Press
from hardware.button_box import ButtonBox, Debouncer, make_pin_factory
from hardware.virtual_panel import NotSimulated, VirtualPanel
from tests.timing import HandClock

PAIRS = ((4, 17), (27, 22), (5, 6))
LEDS = (24, 23)  # the third seat has no LED
BOUNCE = 0.04
A, B = Button.A, Button.B


HOLD = 1.0


class Clock(HandClock):
    def __init__(self) -> None:
        super().__init__(100.0)


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
    debouncer = Debouncer(0.04, clock.now)

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


# -- long presses ---------------------------------------------------------------------------------


def test_a_held_a_is_a_long_press_exactly_at_the_hold_time(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    factory.pin(27).drive_low()
    assert pressed == [Press(1, A)]  # on the way down, as always

    clock.advance(HOLD - 0.001)
    assert pressed == [Press(1, A)]
    clock.advance(0.001)
    assert pressed == [Press(1, A), Press(1, A, long=True)]


def test_a_released_before_the_hold_time_is_no_long_press(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    factory.pin(4).drive_low()
    clock.advance(HOLD - 0.001)
    factory.pin(4).drive_high()
    clock.advance(HOLD * 10)

    assert pressed == [Press(0, A)]
    assert clock.pending == 0  # no timer left running either


def test_b_held_is_never_a_long_press(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    factory.pin(17).drive_low()
    clock.advance(HOLD * 5)

    assert pressed == [Press(0, B)]


def test_a_box_without_a_hold_time_gives_no_long_press(
    factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    box = ButtonBox(PAIRS, (), pressed.append, pin_factory=factory, clock=clock, hold=None)
    try:
        factory.pin(4).drive_low()
        clock.advance(HOLD * 5)
        factory.pin(4).drive_high()
    finally:
        box.close()

    assert pressed == [Press(0, A)]


def test_a_contact_chattering_on_its_way_down_gives_one_long_press_however_long_it_is_held(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    """Each edge of the chatter starts the hold afresh: the long press comes the hold time after
    the contact settled, once, however long the button then stays down."""
    pin = factory.pin(4)
    chatter_down(pin, clock)
    settled = clock.now()

    clock.advance(HOLD - 0.001)  # a hold time after the first edge: not yet settled that long
    assert pressed == [Press(0, A)]
    clock.advance(settled + HOLD - clock.now())
    assert pressed == [Press(0, A), Press(0, A, long=True)]
    clock.advance(HOLD * 5)
    pin.drive_high()

    assert pressed == [Press(0, A), Press(0, A, long=True)]


def test_a_contact_flickering_while_held_gives_no_second_long_press(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    pin = factory.pin(4)
    pin.drive_low()
    clock.advance(HOLD)
    for _ in range(3):  # the finger moves on the button: quicker than the bounce window
        clock.advance(0.01)
        pin.drive_high()
        clock.advance(0.01)
        pin.drive_low()
    clock.advance(HOLD * 3)

    assert pressed == [Press(0, A), Press(0, A, long=True)]


def test_each_press_held_gives_its_own_long_press(
    box: ButtonBox, factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    for _ in range(2):
        clock.advance(1.0)
        factory.pin(4).drive_low()
        clock.advance(HOLD)
        factory.pin(4).drive_high()

    assert pressed == [Press(0, A), Press(0, A, long=True)] * 2


# -- a button stuck down --------------------------------------------------------------------------


def test_a_button_down_for_the_stuck_time_is_stuck_exactly_then(
    factory: MockFactory, clock: Clock
) -> None:
    stuck: list[tuple[int, Button]] = []
    box = ButtonBox(
        PAIRS,
        (),
        lambda press: None,
        pin_factory=factory,
        clock=clock,
        stuck=10.0,
        on_stuck=lambda seat, button: stuck.append((seat, button)),
    )
    try:
        factory.pin(22).drive_low()
        clock.advance(10.0 - 0.001)
        assert stuck == [] and not box.is_stuck(1, B)
        clock.advance(0.001)
        assert stuck == [(1, B)] and box.is_stuck(1, B)
    finally:
        factory.pin(22).drive_high()
        box.close()


def test_closing_the_box_stops_its_timers(
    factory: MockFactory, clock: Clock, pressed: list[Press]
) -> None:
    stuck: list[tuple[int, Button]] = []
    box = ButtonBox(
        PAIRS,
        (),
        pressed.append,
        pin_factory=factory,
        clock=clock,
        on_stuck=lambda seat, button: stuck.append((seat, button)),
    )
    factory.pin(4).drive_low()
    box.close()
    clock.advance(60.0)

    assert pressed == [Press(0, A)] and stuck == []
    assert clock.pending == 0
