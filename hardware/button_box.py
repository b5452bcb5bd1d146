"""gpiozero buttons and LEDs, with our own debounce.

gpiozero's ``bounce_time`` is not honoured by its MockPin, and behaves differently across pin
libraries, so debouncing is done here, the same way on every pin factory: a press counts only
when the button has been quiet (no edge at all) for ``bounce`` seconds before it. A contact that
chatters on press or on release therefore yields exactly one press.

**Long press.** Button A held down for ``hold`` seconds is reported a second time, as
``Press(seat, A, long=True)`` (Ostrakon's disciple claim). It uses gpiozero's own ``hold_time``
and ``when_held``: gpiozero's hold thread fires when the button has stayed down, with no edge
at all, for the hold time, so a contact that chatters is not "held" until it has settled, and a
release before the hold time reports nothing more. The ordinary press is still reported at once,
on the way down: a long press is a short press followed, if the finger stays, by the long one.
Games that have no use for long presses ignore them (``GameRules.long_presses``). A long press is
reported once per press: a contact that chatters on its way down re-arms gpiozero's hold thread,
which would otherwise fire again while the button is still held.

**Stuck button.** A button that stays down ``stuck`` seconds (10 s: ten times a long press) is
reported once, as ``on_stuck(seat, button)``, so that the table can send that seat to its phone.
The timer starts on every edge down and is cancelled by every edge up, so a chattering contact
is never "stuck", however long it chatters. A stuck button's presses are ignored until it is
truly released: until a press passes the debounce (the button was up, quiet, for ``bounce``
seconds before it); a contact that only flickers while stuck neither plays nor is reported again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from companion.seat_input import Button, Press

log = logging.getLogger(__name__)

HOLD = 1.0  # seconds button A must stay down to count as a long press
STUCK = 10.0  # seconds a button must stay down to be reported stuck


class Debouncer:
    def __init__(self, bounce: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.bounce = bounce
        self.clock = clock
        self._last_edge: dict[Any, float] = {}
        self._lock = threading.Lock()

    def edge(self, key: Any, pressed: bool) -> bool:
        """Record an edge; True when it is a press to act on."""
        now = self.clock()
        with self._lock:
            last = self._last_edge.get(key)
            self._last_edge[key] = now
        return pressed and (last is None or now - last >= self.bounce)


def on_a_raspberry_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text().lower()
    except OSError:
        return False


def make_pin_factory(kind: str) -> tuple[Any, bool]:
    """The gpiozero pin factory for ``kind`` (auto / mock / native), and whether it is simulated.

    ``auto`` uses the real pins on a Raspberry Pi and gpiozero's MockFactory anywhere else.
    """
    if kind == "native" or (kind == "auto" and on_a_raspberry_pi()):
        return None, False
    from gpiozero.pins.mock import MockFactory

    return MockFactory(), True


class ButtonBox:
    def __init__(
        self,
        pairs: Sequence[tuple[int, int]],
        leds: Sequence[int],
        on_press: Callable[[Press], object],
        bounce: float = 0.04,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
        hold: float | None = HOLD,
        stuck: float = STUCK,
        on_stuck: Callable[[int, Button], object] | None = None,
    ) -> None:
        from gpiozero import LED
        from gpiozero import Button as GpioButton

        self.pin_factory = pin_factory
        self.pairs = tuple(pairs)
        self.hold = hold
        self.stuck = stuck
        self._on_press = on_press
        self._on_stuck = on_stuck
        self._debouncer = Debouncer(bounce, clock)
        self._buttons: list[Any] = []
        self._leds: list[Any] = []
        self._lock = threading.Lock()
        self._stuck_timers: dict[Press, threading.Timer] = {}
        self._stuck_now: set[Press] = set()
        self._held_already: set[Press] = set()  # long press reported since the last press
        self._closed = False
        for seat, pins in enumerate(self.pairs):
            for button, pin in zip((Button.A, Button.B), pins, strict=True):
                device = GpioButton(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                device.when_pressed = self._handler(Press(seat, button), True)
                device.when_released = self._handler(Press(seat, button), False)
                if button is Button.A and hold is not None:
                    device.hold_time = hold
                    device.when_held = self._held(Press(seat, button, long=True))
                self._buttons.append(device)
        for pin in leds:
            self._leds.append(LED(pin, pin_factory=pin_factory))

    def _handler(self, press: Press, pressed: bool) -> Callable[[], None]:
        def handle() -> None:
            self._time_stuck(press, pressed)
            if self._debouncer.edge(press, pressed):
                with self._lock:
                    self._stuck_now.discard(press)  # it was up, quiet: released, playing again
                    self._held_already.discard(press)
                try:
                    self._on_press(press)
                except Exception:
                    log.exception("a button press could not be handled; the game goes on")

        return handle

    def _time_stuck(self, press: Press, pressed: bool) -> None:
        """Every edge down starts the stuck timer afresh; every edge up stops it."""
        with self._lock:
            timer = self._stuck_timers.pop(press, None)
            if timer is not None:
                timer.cancel()
            if pressed and not self._closed:
                timer = threading.Timer(self.stuck, self._stayed_down, (press,))
                timer.name = f"stuck seat {press.seat} {press.button.value}"
                timer.daemon = True
                self._stuck_timers[press] = timer
                timer.start()

    def _stayed_down(self, press: Press) -> None:
        with self._lock:
            if self._stuck_timers.get(press) is not threading.current_thread():
                return  # an edge came after all; its own timer decides
            del self._stuck_timers[press]
            if press in self._stuck_now or self._closed:
                return
            self._stuck_now.add(press)
        # which button is not logged: the one held down may be a secret vote
        log.warning("a button of seat %d is stuck down", press.seat + 1)
        if self._on_stuck is not None:
            try:
                self._on_stuck(press.seat, press.button)
            except Exception:
                log.exception("a stuck button could not be reported; the game goes on")

    def is_stuck(self, seat: int, button: Button) -> bool:
        with self._lock:
            return Press(seat, button) in self._stuck_now

    def _held(self, press: Press) -> Callable[[], None]:
        """Called by gpiozero's hold thread once the button has stayed down ``hold`` seconds."""

        short = Press(press.seat, press.button)

        def handle() -> None:
            with self._lock:
                # once per press: a contact chattering as it goes down re-arms gpiozero's hold
                # thread, which may then fire again while the button is still held
                if short in self._stuck_now or short in self._held_already:
                    return
                self._held_already.add(short)
            try:
                self._on_press(press)
            except Exception:
                log.exception("a long press could not be handled; the game goes on")

        return handle

    @property
    def seats(self) -> int:
        return len(self.pairs)

    def set_led(self, seat: int, lit: bool) -> None:
        if 0 <= seat < len(self._leds):
            self._leds[seat].value = lit

    def leds(self) -> list[bool | None]:
        """Each seat's LED: lit, dark, or None when the seat has none."""
        return [
            bool(self._leds[s].is_lit) if s < len(self._leds) else None for s in range(self.seats)
        ]

    def pin_of(self, press: Press) -> int:
        return self.pairs[press.seat][0 if press.button is Button.A else 1]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for timer in self._stuck_timers.values():
                timer.cancel()
            self._stuck_timers.clear()
        close_devices((*self._buttons, *self._leds))


class PowerButton:
    """A button that shuts the companion down when held ``hold`` seconds (gpiozero's hold
    thread: a chattering contact is not "held" until it has settled, and a shorter press does
    nothing). Wired like a seat's button: pin to ground, the internal pull-up on."""

    def __init__(
        self, pin: int, hold: float, on_held: Callable[[], object], pin_factory: Any = None
    ) -> None:
        from gpiozero import Button as GpioButton

        self.pin = pin
        self._on_held = on_held
        self._button = GpioButton(
            pin, pull_up=True, bounce_time=None, hold_time=hold, pin_factory=pin_factory
        )
        self._button.when_held = self._held

    def _held(self) -> None:
        try:
            self._on_held()
        except Exception:
            log.exception("the power button's long press could not be handled")

    def close(self) -> None:
        close_devices((self._button,))


def close_devices(devices: Sequence[Any]) -> None:
    """Release the pins. gpiozero stops each button's hold thread in turn and waits for it to
    notice (up to 0.1 s each, and up to the hold time for a held button): a whole box took
    seconds to close. Telling every thread to stop and waking it first, as gpiozero's own
    shutdown does for the stopping part, makes closing immediate."""
    for device in devices:
        thread = getattr(device, "_hold_thread", None)
        if thread is not None:
            thread.stopping.set()
            getattr(thread, "holding", threading.Event()).set()
    for device in devices:
        device.close()
