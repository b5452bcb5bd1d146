"""gpiozero buttons and LEDs, with our own debounce.

gpiozero's ``bounce_time`` is not honoured by its MockPin, and behaves differently across pin
libraries, so debouncing is done here, the same way on every pin factory: a press counts only
when the button has been quiet (no edge at all) for ``bounce`` seconds before it. A contact that
chatters on press or on release therefore yields exactly one press.

**Long press.** Button A held down for ``hold`` seconds is reported a second time, as
``Press(seat, A, long=True)`` (Ostrakon's disciple claim). The hold timer works as gpiozero's
``hold_time`` would, but on the box's own clock: it starts afresh on every edge down and is
cancelled by every edge up, so a contact that chatters is not "held" until it has settled, and a
release before the hold time reports nothing more. The ordinary press is still reported at once,
on the way down: a long press is a short press followed, if the finger stays, by the long one.
Games that have no use for long presses ignore them (``GameRules.long_presses``). A long press is
reported once per press: a contact that flickers while held re-arms the timer, which would
otherwise fire again while the button is still held.

**Stuck button.** A button that stays down ``stuck`` seconds (10 s: ten times a long press) is
reported once, as ``on_stuck(seat, button)``, so that the table can send that seat to its phone.
The timer starts on every edge down and is cancelled by every edge up, so a chattering contact
is never "stuck", however long it chatters. A stuck button's presses are ignored until it is
truly released: until a press passes the debounce (the button was up, quiet, for ``bounce``
seconds before it); a contact that only flickers while stuck neither plays nor is reported again.

**Time.** The debounce, the hold and the stuck timers all read one ``companion.timers.Clock``
(the real one by default): tests pass a clock they move by hand, so that no test depends on how
fast the machine runs it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from companion.seat_input import Button, Press
from companion.timers import REAL_CLOCK, Cancel, Clock

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
        clock: Clock = REAL_CLOCK,
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
        self._clock = clock
        self._debouncer = Debouncer(bounce, clock.now)
        self._buttons: list[Any] = []
        self._leds: list[Any] = []
        self._lock = threading.Lock()
        # the live timers ("stuck", "held") of each button: a token (which call is the live
        # one) and the function that cancels it
        self._timers: dict[tuple[str, Press], tuple[object, Cancel]] = {}
        self._stuck_now: set[Press] = set()
        self._held_already: set[Press] = set()  # long press reported since the last press
        self._closed = False
        for seat, pins in enumerate(self.pairs):
            for button, pin in zip((Button.A, Button.B), pins, strict=True):
                device = GpioButton(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                device.when_pressed = self._handler(Press(seat, button), True)
                device.when_released = self._handler(Press(seat, button), False)
                self._buttons.append(device)
        for pin in leds:
            self._leds.append(LED(pin, pin_factory=pin_factory))

    def _handler(self, press: Press, pressed: bool) -> Callable[[], None]:
        def handle() -> None:
            self._time(press, pressed)
            if self._debouncer.edge(press, pressed):
                with self._lock:
                    self._stuck_now.discard(press)  # it was up, quiet: released, playing again
                    self._held_already.discard(press)
                try:
                    self._on_press(press)
                except Exception:
                    log.exception("a button press could not be handled; the game goes on")

        return handle

    def _time(self, press: Press, pressed: bool) -> None:
        """Every edge down starts the button's timers afresh (stuck; held, for A); every edge up
        stops them."""
        with self._lock:
            for kind in ("stuck", "held"):
                live = self._timers.pop((kind, press), None)
                if live is not None:
                    live[1]()
            if not pressed or self._closed:
                return
            self._start("stuck", press, self.stuck, self._stayed_down)
            if press.button is Button.A and self.hold is not None:
                self._start("held", press, self.hold, self._held)

    def _start(
        self, kind: str, press: Press, delay: float, due: Callable[[Press, object], None]
    ) -> None:
        """Under the lock: call ``due(press, token)`` in ``delay`` seconds."""
        token = object()
        cancel = self._clock.call_later(delay, lambda: due(press, token))
        self._timers[(kind, press)] = (token, cancel)

    def _still_live(self, kind: str, press: Press, token: object) -> bool:
        """Under the lock: whether the timer ``token`` is still the button's live one (no edge
        came since it started: its own timer decides otherwise), forgetting it if so."""
        live = self._timers.get((kind, press))
        if self._closed or live is None or live[0] is not token:
            return False
        del self._timers[(kind, press)]
        return True

    def _stayed_down(self, press: Press, token: object) -> None:
        with self._lock:
            if not self._still_live("stuck", press, token) or press in self._stuck_now:
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

    def _held(self, press: Press, token: object) -> None:
        """A stays down ``hold`` seconds with no edge at all: a long press, once per press."""
        with self._lock:
            if not self._still_live("held", press, token):
                return
            if press in self._stuck_now or press in self._held_already:
                return
            self._held_already.add(press)
        try:
            self._on_press(Press(press.seat, press.button, long=True))
        except Exception:
            log.exception("a long press could not be handled; the game goes on")

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
            for _, cancel in self._timers.values():
                cancel()
            self._timers.clear()
        close_devices((*self._buttons, *self._leds))


class PowerButton:
    """A button that shuts the companion down when held ``hold`` seconds: its timer starts on
    every edge down and is cancelled by every edge up, on ``clock`` (the real one by default),
    so a chattering contact is not "held" until it has settled, and a shorter press does
    nothing. Wired like a seat's button: pin to ground, the internal pull-up on."""

    def __init__(
        self,
        pin: int,
        hold: float,
        on_held: Callable[[], object],
        pin_factory: Any = None,
        clock: Clock = REAL_CLOCK,
    ) -> None:
        from gpiozero import Button as GpioButton

        self.pin = pin
        self.hold = hold
        self._on_held = on_held
        self._clock = clock
        self._lock = threading.Lock()
        self._timer: tuple[object, Cancel] | None = None
        self._closed = False
        self._button = GpioButton(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._button.when_pressed = lambda: self._edge(True)
        self._button.when_released = lambda: self._edge(False)

    def _edge(self, pressed: bool) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer[1]()
                self._timer = None
            if pressed and not self._closed:
                token = object()
                self._timer = (token, self._clock.call_later(self.hold, lambda: self._held(token)))

    def _held(self, token: object) -> None:
        with self._lock:
            if self._closed or self._timer is None or self._timer[0] is not token:
                return  # an edge came after all
            self._timer = None
        try:
            self._on_held()
        except Exception:
            log.exception("the power button's long press could not be handled")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer[1]()
                self._timer = None
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
