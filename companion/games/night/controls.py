"""Game night with the seat buttons: A on any seat passes the turn while the turn timer runs.

The turn belongs to one player, but the table is shared: whoever is nearest presses (the player
who finished, or a neighbour for them). B has no use; a press with no timer running is
answered with a word, never an action. Pure: a press and the state give an action or feedback.
"""

from __future__ import annotations

from companion.games.night.state import NightState, PassTurn
from companion.seat_input import Button, Interpretation, Press, ignored


def interpret(state: NightState, pending: None, press: Press) -> Interpretation[None]:
    seat = press.seat
    if not 0 <= seat < state.players:
        return Interpretation(pending, feedback=(ignored(seat, "no_such_seat"),))
    if state.closed:
        return Interpretation(pending, feedback=(ignored(seat, "game_over"),))
    if press.button is Button.B:
        return Interpretation(pending, feedback=(ignored(seat, "night_a_passes"),))
    timer = state.timer
    if timer is None:
        return Interpretation(pending, feedback=(ignored(seat, "night_no_timer"),))
    if timer.sand.paused:
        return Interpretation(pending, feedback=(ignored(seat, "night_timer_paused"),))
    return Interpretation(pending, PassTurn(timer.turn))
