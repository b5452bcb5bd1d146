"""The virtual button panel of simulation: it drives gpiozero MockFactory pins, so a click on
the page goes through exactly the same code as a finger on a real button."""

from __future__ import annotations

from companion.seat_input import Press
from hardware.button_box import ButtonBox


class NotSimulated(RuntimeError):
    pass


class VirtualPanel:
    def __init__(self, box: ButtonBox) -> None:
        self.box = box

    def press(self, press: Press) -> None:
        factory = self.box.pin_factory
        if factory is None or not hasattr(factory.pin(self.box.pin_of(press)), "drive_low"):
            raise NotSimulated("the virtual panel only works with simulated (mock) pins")
        pin = factory.pin(self.box.pin_of(press))
        pin.drive_low()
        pin.drive_high()
        pin.clear_states()  # a MockPin keeps every state it went through: not all evening
