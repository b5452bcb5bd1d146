"""The button box: two buttons (A, B) and an optional LED per seat, through gpiozero.

It knows no rules: it reports "seat 3 pressed B" and lights the LEDs it is told to.
"""

from hardware.button_box import ButtonBox, Debouncer, make_pin_factory

__all__ = ["ButtonBox", "Debouncer", "make_pin_factory"]
