"""The record's shared redaction: a game replayed once (``Played``), and votes held back until
they are shown (``Held``), as the rules put it: a vote may be changed until it is revealed, and
only the revealed one is ever seen."""

from __future__ import annotations

from companion.games.resistance.engine import Resistance
from companion.games.resistance.state import CastVote
from companion.played import Held, replayed

GAME = Resistance()


def test_a_seat_that_changes_its_vote_shows_only_its_last_in_the_place_it_first_voted() -> None:
    votes = Held()
    votes.hold(CastVote(2, True), key=2)
    votes.hold(CastVote(0, False), key=0)
    votes.hold(CastVote(2, False), key=2)
    votes.hold(CastVote(1, True), key=1)
    assert votes.release() == [CastVote(2, False), CastVote(0, False), CastVote(1, True)]
    assert votes.release() == [], "what was let go is held no more"


def test_a_vote_turned_face_up_early_leaves_the_others_held() -> None:
    votes = Held()
    for seat in (0, 1, 2):
        votes.hold(CastVote(seat, seat != 1), key=seat)
    assert votes.take(1) == CastVote(1, False)
    assert votes.release() == [CastVote(0, True), CastVote(2, True)]


def test_actions_held_without_a_key_are_all_kept_in_order() -> None:
    held = Held()
    held.hold(CastVote(0, True))
    held.hold(CastVote(0, True))
    assert held.release() == [CastVote(0, True), CastVote(0, True)]


def test_a_replayed_game_gives_each_step_the_states_on_either_side_of_it() -> None:
    options = {"players": 5}
    start = state = GAME.new(options, 11)
    actions = []
    for _ in range(6):  # the first action the rules allow, each time
        seats = (None, *range(state.players))
        action = next(a for seat in seats for a in GAME.legal_actions(state, seat))
        actions.append(action)
        state, _ = GAME.apply(state, action)
    played = replayed(GAME, actions, options, 11)
    assert played.first == start and played.actions == actions
    end, state = state, start
    for step, action in zip(played, actions, strict=True):
        assert step.before == state
        state, _ = GAME.apply(state, action)
        assert step.after == state
    assert played.last == state == end
    assert replayed(GAME, [], options, 11).last == start
