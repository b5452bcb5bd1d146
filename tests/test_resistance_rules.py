"""Résistance (Battlestar Galactica re-theme): the rules of RULES.md §1, one clause per test."""

from __future__ import annotations

import functools
from collections.abc import Iterable

import pytest

from companion.game import Action, AudienceKind, Event, IllegalAction
from companion.games.resistance.engine import Resistance
from companion.games.resistance.state import (
    Card,
    CastVote,
    EndNight,
    Phase,
    PlayMissionCard,
    ProposeSquad,
    ResistanceState,
    Side,
    Termination,
)
from companion.games.resistance.tables import CYLONS
from companion.narration.catalog import Catalog
from companion.record import public_record
from tests import engine_steps as steps

GAME = Resistance()
play = functools.partial(steps.play, GAME)
refused = functools.partial(steps.refused, GAME)
kinds = steps.kinds

# The printed tables, copied from RULES.md §1 rather than imported, so that they check the code.
PRINTED_SQUAD_SIZES = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}
PRINTED_CYLONS = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}


# -- helpers --------------------------------------------------------------------------------------


def options(players: int = 5, **more: object) -> dict[str, object]:
    return {"players": players, **more}


def new_game(players: int = 5, **more: object) -> ResistanceState:
    """A game past its night phase (or with none), the first Commandant about to propose."""
    state = GAME.new(options(players, **more), seed=7)
    if state.phase is Phase.NIGHT:
        state, _ = GAME.apply(state, EndNight())
    return state


def size_now(state: ResistanceState, mission: int | None = None) -> int:
    return PRINTED_SQUAD_SIZES[state.players][(mission or state.mission or 1) - 1]


def squad_of(state: ResistanceState, mission: int | None = None) -> tuple[int, ...]:
    """A squad of the right size: the Commandant and the seats on their left."""
    n = state.players
    return tuple((state.commander + i) % n for i in range(size_now(state, mission)))


def propose(
    state: ResistanceState, squad: tuple[int, ...] | None = None, mission: int | None = None
) -> tuple[ResistanceState, list[Event]]:
    squad = squad_of(state, mission) if squad is None else squad
    return play(state, ProposeSquad(state.commander, squad, mission))


def vote(state: ResistanceState, yes: Iterable[int]) -> tuple[ResistanceState, list[Event]]:
    """Every seat votes, in seat order; the seats in ``yes`` approve."""
    yes = set(yes)
    return play(state, *(CastVote(s, s in yes) for s in range(state.players)))


def reject(state: ResistanceState, mission: int | None = None) -> ResistanceState:
    state, _ = propose(state, mission=mission)
    state, _ = vote(state, yes=())
    return state


def play_mission(
    state: ResistanceState,
    fails: int = 0,
    mission: int | None = None,
    squad: tuple[int, ...] | None = None,
) -> tuple[ResistanceState, list[Event]]:
    """A whole approved mission: propose, everyone approves, the first ``fails`` members fail."""
    state, events = propose(state, squad, mission)
    state, more = vote(state, yes=range(state.players))
    events += more
    cards = [
        PlayMissionCard(s, Card.FAIL if i < fails else Card.SUCCESS)
        for i, s in enumerate(state.squad)
    ]
    state, more = play(state, *cards)
    return state, events + more


def fails_to_fail(players: int, number: int) -> int:
    """Fail cards enough to fail this mission: two on mission 4 at seven players or more."""
    return 2 if number == 4 and players >= 7 else 1


def public(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.audience.kind is AudienceKind.EVERYONE]


def recorded(
    players: int, actions: Iterable[Action], **more: object
) -> tuple[ResistanceState, list[Action]]:
    """Play the actions from a fresh game; return the final state and the public record."""
    actions = list(actions)
    state, _ = play(GAME.new(options(players, **more), seed=3), *actions)
    return state, public_record(GAME, actions, options(players, **more), 3)


# -- setting up -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(5, 11))
def test_five_to_ten_players_may_play(players: int) -> None:
    assert GAME.new(options(players), seed=1).players == players


@pytest.mark.parametrize("players", [0, 1, 4, 11, 12, True, "5", None])
def test_player_counts_outside_five_to_ten_are_refused(players: object) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new({"players": players}, seed=1)
    assert caught.value.code == "players_out_of_range"


@pytest.mark.parametrize("players", range(5, 11))
def test_the_number_of_cylons_follows_the_printed_table(players: int) -> None:
    assert CYLONS[players] == PRINTED_CYLONS[players]


def test_the_game_opens_with_the_night_phase() -> None:
    state = GAME.new(options(5), seed=1)
    assert state.phase is Phase.NIGHT
    assert GAME.public_view(state)["phase"] == "night"


def test_the_night_phase_must_end_before_proposing() -> None:
    state = GAME.new(options(5), seed=1)
    assert refused(state, ProposeSquad(0, (0, 1))).code == "no_proposal_now"
    assert refused(state, CastVote(0, True)).code == "no_vote_now"
    state, events = play(state, EndNight())
    assert state.phase is Phase.PROPOSE
    assert kinds(events) == ["night_over", "commander"]
    state, _ = propose(state, (0, 1))
    assert state.phase is Phase.VOTE


def test_the_night_phase_ends_only_once() -> None:
    assert refused(new_game(5), EndNight()).code == "night_is_over"


def test_isolated_cylons_variant_starts_with_no_night_phase() -> None:
    state = GAME.new(options(5, isolated_cylons=True), seed=1)
    assert state.phase is Phase.PROPOSE
    assert refused(state, EndNight()).code == "night_is_over"
    state, _ = propose(state, (0, 1))
    assert state.phase is Phase.VOTE


def test_the_seat_chosen_at_setup_is_the_first_commandant() -> None:
    state = new_game(6, first_commander=4)
    assert state.commander == 4
    assert refused(state, ProposeSquad(0, (0, 1))).code == "not_commander"
    state, _ = propose(state, (4, 5))
    assert state.phase is Phase.VOTE


@pytest.mark.parametrize("seat", [-1, 5, True])
def test_a_first_commandant_not_at_the_table_is_refused(seat: object) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new(options(5, first_commander=seat), seed=1)
    assert caught.value.code == "no_such_seat"


# The seed's set-up: « Remettez ensuite la carte Commandant au joueur incarnant dans l'ordre de
# présence : William Adama / Laura Roslin / Saul Tigh / Lee Adama / Gaius Baltar ».
ORDER_OF_PRESENCE = ["william_adama", "laura_roslin", "saul_tigh", "lee_adama", "gaius_baltar"]


@pytest.mark.parametrize("first", range(5))
def test_the_commandant_card_goes_to_the_first_character_present_in_the_seeds_order(
    first: int,
) -> None:
    """The characters before ``first`` are not at the table; those after it are, on other seats."""
    present = ORDER_OF_PRESENCE[first:]
    seats = {name: (2 * i + 3) % 10 for i, name in enumerate(reversed(present))}
    state = new_game(10, characters=seats)
    assert state.commander == seats[ORDER_OF_PRESENCE[first]]
    assert GAME.options_json(state)["first_commander"] == state.commander
    assert GAME.options_json(state)["characters"] == {name: seats[name] for name in present}


def test_william_adama_commands_first_wherever_he_sits() -> None:
    state = new_game(6, characters={"gaius_baltar": 0, "laura_roslin": 1, "william_adama": 5})
    assert state.commander == 5
    assert refused(state, ProposeSquad(1, (1, 2))).code == "not_commander"


def test_the_character_cards_and_the_first_commandant_they_name_replay_from_the_options() -> None:
    state = new_game(7, characters={"saul_tigh": 4, "lee_adama": 2})
    again = GAME.new(GAME.options_json(state), seed=7)
    assert again.commander == 4 and GAME.options_json(again) == GAME.options_json(state)


def test_without_the_character_cards_the_host_chooses_the_first_commandant() -> None:
    """The seed's FAQ lets the table choose: « Il est toutefois conseillé de ne pas désigner un
    joueur débutant comme premier Commandant »."""
    state = new_game(5, first_commander=3)
    assert state.commander == 3 and "characters" not in GAME.options_json(state)


@pytest.mark.parametrize(
    ("characters", "first", "code", "params"),
    [
        ({"william_adama": 1}, 2, "first_commander_by_characters", {"seat": 1}),
        ({}, None, "no_named_character", {}),
        ({"starbuck": 1}, None, "unknown_character", {"character": "starbuck"}),
        ({"william_adama": 5}, None, "no_such_seat", {"seat": 5, "players": 5}),
        ({"william_adama": True}, None, "no_such_seat", {"seat": True, "players": 5}),
        ({"william_adama": 1, "lee_adama": 1}, None, "one_character_a_player", {"seat": 1}),
        (["william_adama"], None, "characters_not_a_map", {}),
    ],
)
def test_character_cards_that_name_no_first_commandant_are_refused(
    characters: object, first: int | None, code: str, params: dict[str, object]
) -> None:
    """One character card a player (« l'avatar incarné par le joueur »), among the five that
    name the Commandant, at the table, and no other first Commandant than theirs."""
    more: dict[str, object] = {"characters": characters}
    if first is not None:
        more["first_commander"] = first
    with pytest.raises(IllegalAction) as caught:
        GAME.new(options(5, **more), seed=1)
    assert caught.value.code == code
    assert params.items() <= caught.value.params.items()
    for lang in ("en", "fr"):
        assert Catalog(lang, ["Ada", "Bea", "Cy", "Dan", "Eve"]).explain(caught.value)


def test_a_first_commandant_matching_the_character_cards_is_accepted() -> None:
    state = new_game(5, characters={"laura_roslin": 2}, first_commander=2)
    assert state.commander == 2


def test_a_refusal_names_the_character_and_the_seat_in_both_languages() -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.new(options(5, characters={"laura_roslin": 2}, first_commander=0), seed=1)
    names = ["Ada", "Bea", "Cy", "Dan", "Eve"]
    assert Catalog("en", names).explain(caught.value) == (
        "With the character cards, the first Commandant is Cy, who holds Laura Roslin."
    )
    assert Catalog("fr", names).explain(caught.value) == (
        "Avec les cartes Personnage, le premier Commandant est Cy, qui incarne Laura Roslin."
    )


# -- the squad ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "number"), [(p, m) for p in range(5, 11) for m in range(1, 6)])
def test_the_squad_size_follows_the_printed_table(players: int, number: int) -> None:
    state = new_game(players)
    for done in range(1, number):  # success, fail, success, fail: the game goes on to mission 5
        state, _ = play_mission(state, fails=0 if done % 2 else fails_to_fail(players, done))
    assert state.mission == number
    size = PRINTED_SQUAD_SIZES[players][number - 1]
    assert GAME.public_view(state)["squad_size"] == size
    too_small = tuple(range(size - 1))
    assert refused(state, ProposeSquad(state.commander, too_small)).code == "wrong_squad_size"
    too_big = tuple(range(size + 1))
    assert refused(state, ProposeSquad(state.commander, too_big)).code == "wrong_squad_size"
    state, _ = propose(state, tuple(range(size)))
    assert state.phase is Phase.VOTE


def test_the_commandant_may_include_themself() -> None:
    state = new_game(5, first_commander=2)
    state, events = propose(state, (2, 3))
    assert state.squad == (2, 3)
    assert public(events)[0].data == {"commander": 2, "mission": 1, "squad": [2, 3]}


def test_the_commandant_may_leave_themself_out() -> None:
    state, _ = propose(new_game(5, first_commander=2), (0, 4))
    assert state.squad == (0, 4)


def test_only_the_commandant_proposes_a_squad() -> None:
    state = new_game(5)
    error = refused(state, ProposeSquad(1, (0, 1)))
    assert (error.code, error.params) == ("not_commander", {"seat": 1, "commander": 0})


def test_a_squad_naming_a_player_twice_is_refused() -> None:
    assert refused(new_game(5), ProposeSquad(0, (1, 1))).code == "seat_named_twice"


def test_a_squad_of_the_wrong_size_is_refused() -> None:
    state = new_game(5)  # mission 1 at five players: two members
    error = refused(state, ProposeSquad(0, (0, 1, 2)))
    assert (error.code, error.params) == ("wrong_squad_size", {"mission": 1, "size": 2, "given": 3})
    assert refused(state, ProposeSquad(0, (0,))).code == "wrong_squad_size"


def test_a_squad_naming_a_seat_not_at_the_table_is_refused() -> None:
    assert refused(new_game(5), ProposeSquad(0, (0, 5))).code == "no_such_seat"
    assert refused(new_game(5), ProposeSquad(0, (-1, 0))).code == "no_such_seat"


def test_only_one_squad_is_proposed_at_a_time() -> None:
    state, _ = propose(new_game(5))
    assert refused(state, ProposeSquad(0, (0, 1))).code == "no_proposal_now"


def test_without_targeting_the_missions_are_played_in_order() -> None:
    state = new_game(5)
    assert refused(state, ProposeSquad(0, (0, 1, 2), mission=2)).code == "missions_in_order"
    state, _ = propose(state, (0, 1), mission=1)
    assert state.mission == 1


# -- the vote -------------------------------------------------------------------------------------


def test_everyone_votes_the_commandant_included() -> None:
    state, _ = propose(new_game(5))
    state, _ = play(state, *(CastVote(s, True) for s in range(1, 5)))
    assert state.phase is Phase.VOTE
    state, _ = play(state, CastVote(0, True))
    assert state.phase is Phase.MISSION


def test_votes_can_be_changed_until_the_last_seat_votes() -> None:
    state, _ = propose(new_game(5))
    state, _ = play(state, CastVote(0, False), CastVote(1, False), CastVote(2, False))
    state, _ = play(state, CastVote(0, True), CastVote(1, True), CastVote(2, True))
    state, events = play(state, CastVote(3, False), CastVote(4, False))
    result = next(e for e in events if e.kind == "vote_result")
    assert result.data["approvals"] == [True, True, True, False, False]
    assert result.data["approved"] is True


def test_a_vote_cannot_be_changed_once_revealed() -> None:
    state, _ = propose(new_game(5))
    state, _ = vote(state, yes=range(5))
    assert refused(state, CastVote(4, False)).code == "no_vote_now"


def test_a_vote_from_a_seat_not_at_the_table_is_refused() -> None:
    state, _ = propose(new_game(5))
    assert refused(state, CastVote(5, True)).code == "no_such_seat"


def test_votes_are_revealed_only_when_all_have_voted() -> None:
    proposed, _ = propose(new_game(5))
    state, events = play(proposed, *(CastVote(s, s % 2 == 0) for s in range(4)))
    other, _ = play(proposed, *(CastVote(s, s % 2 == 1) for s in range(4)))
    assert GAME.public_view(state) == GAME.public_view(other)  # nothing tells yes from no
    view = GAME.public_view(state)
    assert (view["voted"], view["last_vote"]) == ([0, 1, 2, 3], None)
    assert kinds(public(events)) == ["vote_in"] * 4
    assert all(set(e.data) == {"seat"} for e in public(events))
    mine = [e for e in events if e.kind == "your_vote"]
    assert [e.audience.seat for e in mine] == [0, 1, 2, 3]
    assert GAME.private_view(state, 1)["my_vote"] is False

    state, events = play(state, CastVote(4, True))
    view = GAME.public_view(state)
    assert view["voted"] == []
    assert view["last_vote"]["approvals"] == [True, False, True, False, True]
    assert (view["last_vote"]["yes"], view["last_vote"]["no"]) == (3, 2)
    result = next(e for e in public(events) if e.kind == "vote_result")
    assert result.data["approvals"] == [True, False, True, False, True]


@pytest.mark.parametrize("players", range(5, 11))
def test_a_strict_majority_of_yes_approves_the_squad(players: int) -> None:
    state, _ = propose(new_game(players))
    state, events = vote(state, yes=range(players // 2 + 1))
    assert state.phase is Phase.MISSION
    assert "mission_begins" in kinds(events)


@pytest.mark.parametrize("players", [6, 8, 10])
def test_a_tie_rejects_the_squad(players: int) -> None:
    state, _ = propose(new_game(players))
    state, events = vote(state, yes=range(players // 2))
    assert state.phase is Phase.PROPOSE
    assert state.rejections == 1
    assert next(e for e in events if e.kind == "vote_result").data["approved"] is False


@pytest.mark.parametrize("players", [5, 7, 9])
def test_a_majority_of_no_rejects_the_squad(players: int) -> None:
    state, _ = propose(new_game(players))
    state, _ = vote(state, yes=range(players // 2))
    assert (state.phase, state.rejections) == (Phase.PROPOSE, 1)


def test_command_passes_left_after_a_rejection() -> None:
    state = reject(new_game(5, first_commander=3))
    assert state.commander == 4
    state = reject(state)
    assert state.commander == 0  # seat 4's left is seat 0: the table is round
    assert state.mission == 1  # still the same mission: a new proposal starts


def test_a_new_proposal_starts_after_a_rejection() -> None:
    state = reject(new_game(5))
    assert (state.phase, state.squad) == (Phase.PROPOSE, ())
    state, _ = propose(state, (1, 2))
    assert state.squad == (1, 2)


def test_four_rejected_squads_do_not_end_the_game() -> None:
    state = new_game(5)
    for _ in range(4):
        state = reject(state)
    assert (state.phase, state.rejections, state.outcome) == (Phase.PROPOSE, 4, None)


def test_five_rejected_squads_in_one_round_give_the_cylons_the_game() -> None:
    state = new_game(5)
    for _ in range(4):
        state = reject(state)
    state, _ = propose(state)
    state, events = vote(state, yes=(0, 1))
    assert state.phase is Phase.OVER
    assert GAME.outcome(state) is not None
    assert (GAME.outcome(state).winner, GAME.outcome(state).reason) == (
        Side.CYLONS.value,
        Termination.FIVE_REJECTIONS,
    )
    assert events[-1] == Event("game_over", {"winner": "cylons", "reason": "five_rejections"})


def test_rejections_reset_after_a_mission() -> None:
    state = new_game(5)
    for _ in range(4):
        state = reject(state)
    state, _ = play_mission(state)
    assert state.rejections == 0
    for _ in range(4):
        state = reject(state)
    assert (state.phase, state.rejections, state.outcome) == (Phase.PROPOSE, 4, None)


# -- the mission ----------------------------------------------------------------------------------


def test_only_squad_members_play_mission_cards() -> None:
    state, _ = propose(new_game(5), (1, 3))
    state, _ = vote(state, yes=range(5))
    for seat in (0, 2, 4):
        error = refused(state, PlayMissionCard(seat, Card.SUCCESS))
        assert (error.code, error.params) == ("not_on_squad", {"seat": seat})
    assert refused(state, PlayMissionCard(5, Card.SUCCESS)).code == "no_such_seat"


def test_mission_cards_are_played_only_during_a_mission() -> None:
    state, _ = propose(new_game(5), (0, 1))
    assert refused(state, PlayMissionCard(0, Card.SUCCESS)).code == "no_mission_now"


def test_mission_cards_can_be_changed_until_the_last_card() -> None:
    state, _ = propose(new_game(5), (0, 1))
    state, _ = vote(state, yes=range(5))
    state, _ = play(state, PlayMissionCard(0, Card.FAIL), PlayMissionCard(0, Card.SUCCESS))
    state, events = play(state, PlayMissionCard(1, Card.SUCCESS))
    assert next(e for e in events if e.kind == "mission_result").data["fails"] == 0
    assert state.successes == 1
    assert refused(state, PlayMissionCard(1, Card.FAIL)).code == "no_mission_now"


def test_only_the_counts_of_mission_cards_are_revealed() -> None:
    approved, _ = propose(new_game(5), (0, 1))
    approved, _ = vote(approved, yes=range(5))
    state, events = play(approved, PlayMissionCard(1, Card.FAIL))
    other, _ = play(approved, PlayMissionCard(1, Card.SUCCESS))
    assert GAME.public_view(state) == GAME.public_view(other)  # a card in, but which?
    assert GAME.public_view(state)["played"] == [1]
    assert GAME.private_view(state, 1)["my_card"] == "fail"
    assert GAME.private_view(state, 0)["my_card"] is None

    state, more = play(state, PlayMissionCard(0, Card.SUCCESS))
    other, _ = play(approved, PlayMissionCard(1, Card.SUCCESS), PlayMissionCard(0, Card.FAIL))
    events += more
    assert GAME.public_view(state) == GAME.public_view(other)  # seats 0 and 1 swapped cards
    assert all("card" not in e.data for e in public(events))
    assert [e.audience.seat for e in events if e.kind == "your_card"] == [1, 0]
    result = next(e for e in events if e.kind == "mission_result")
    assert result.data == {"mission": 1, "successes": 1, "fails": 1, "failed": True}
    assert GAME.public_view(state)["missions"][0] == {
        "number": 1,
        "size": 2,
        "fails_needed": 1,
        "result": "fail",
        "fails": 1,
        "successes": 1,
    }


def test_a_mission_succeeds_when_every_card_is_a_success() -> None:
    state, _ = play_mission(new_game(5), fails=0)
    assert (state.successes, state.failures) == (1, 0)


def test_one_fail_card_fails_a_mission() -> None:
    state, _ = play_mission(new_game(5), fails=1)
    assert (state.successes, state.failures) == (0, 1)


@pytest.mark.parametrize("players", [7, 8, 9, 10])
def test_mission_four_needs_two_fails_at_seven_players(players: int) -> None:
    state = new_game(players)
    state, _ = play_mission(state, fails=0)
    state, _ = play_mission(state, fails=1)
    state, _ = play_mission(state, fails=1)
    assert state.mission == 4
    assert GAME.public_view(state)["missions"][3]["fails_needed"] == 2
    one_fail, events = play_mission(state, fails=1)
    assert [r.failed for r in one_fail.results] == [False, True, True, False]
    assert next(e for e in events if e.kind == "mission_begins").data["fails_needed"] == 2
    two_fails, _ = play_mission(state, fails=2)
    assert two_fails.phase is Phase.OVER
    assert GAME.outcome(two_fails).reason is Termination.THREE_FAILURES


@pytest.mark.parametrize("players", [5, 6])
def test_mission_four_fails_with_one_fail_below_seven_players(players: int) -> None:
    state = new_game(players)
    for fails in (0, 1, 0):
        state, _ = play_mission(state, fails=fails)
    assert state.mission == 4
    state, _ = play_mission(state, fails=1)
    assert state.results[-1].failed is True


@pytest.mark.parametrize("number", [1, 2, 3, 5])
def test_other_missions_fail_with_one_fail_at_seven_players(number: int) -> None:
    state = new_game(7)
    for done, fails in zip(range(1, number), (0, 1, 0, 2), strict=False):
        state, _ = play_mission(state, fails=fails)
        assert state.results[-1].mission == done
    state, _ = play_mission(state, fails=1)
    assert (state.results[-1].mission, state.results[-1].failed) == (number, True)


def test_command_passes_left_after_a_mission() -> None:
    state, events = play_mission(new_game(5, first_commander=4))
    assert state.commander == 0
    assert (state.phase, state.mission) == (Phase.PROPOSE, 2)
    assert events[-1].kind == "commander" and events[-1].data["commander"] == 0
    state, _ = play_mission(state, fails=1)
    assert state.commander == 1


def test_command_passes_left_after_an_approved_squad_even_after_rejections() -> None:
    state = reject(reject(new_game(5)))  # seats 0 and 1 were refused; seat 2 commands
    state, _ = play_mission(state)
    assert state.commander == 3


def test_three_successes_win_for_the_colons() -> None:
    state = new_game(5)
    for fails in (0, 1, 0):
        state, _ = play_mission(state, fails=fails)
    assert state.outcome is None
    state, events = play_mission(state, fails=0)
    assert state.phase is Phase.OVER
    assert (state.outcome.winner, state.outcome.reason) == ("colons", Termination.THREE_SUCCESSES)
    assert events[-1] == Event("game_over", {"winner": "colons", "reason": "three_successes"})
    assert GAME.public_view(state)["score"] == {"successes": 3, "failures": 1}


def test_three_failures_win_for_the_cylons() -> None:
    state = new_game(5)
    for fails in (1, 0, 1, 0):
        state, _ = play_mission(state, fails=fails)
    assert state.outcome is None and state.mission == 5
    state, events = play_mission(state, fails=2)
    assert (state.outcome.winner, state.outcome.reason) == ("cylons", Termination.THREE_FAILURES)
    assert events[-1] == Event("game_over", {"winner": "cylons", "reason": "three_failures"})


@pytest.mark.parametrize(
    "action",
    [
        EndNight(),
        ProposeSquad(1, (1, 2)),
        ProposeSquad(0, (0, 1)),
        CastVote(0, True),
        PlayMissionCard(0, Card.SUCCESS),
    ],
    ids=lambda a: a.kind,
)
def test_any_action_after_the_game_is_over_is_refused(action: Action) -> None:
    state = new_game(5)
    for _ in range(3):
        state, _ = play_mission(state, fails=0)
    assert state.phase is Phase.OVER
    assert refused(state, action).code == "game_over"


# -- variant "Attaques ciblées" (targeting) -------------------------------------------------------


def test_targeting_the_commandant_must_choose_the_mission() -> None:
    state = new_game(5, targeting=True)
    assert state.mission is None
    assert GAME.public_view(state)["available_missions"] == [1, 2, 3, 4]
    error = refused(state, ProposeSquad(0, (0, 1)))
    assert (error.code, error.params) == ("choose_mission", {"missions": [1, 2, 3, 4]})
    state, _ = propose(state, (0, 1, 2), mission=2)
    assert state.mission == 2


@pytest.mark.parametrize("players", range(5, 11))
def test_targeting_the_squad_size_follows_the_chosen_mission(players: int) -> None:
    state = new_game(players, targeting=True)
    for number in (1, 2, 3, 4):
        size = PRINTED_SQUAD_SIZES[players][number - 1]
        wrong = tuple(range(size + 1))
        error = refused(state, ProposeSquad(0, wrong, number))
        assert (error.code, error.params["size"]) == ("wrong_squad_size", size)
        after, _ = propose(state, tuple(range(size)), mission=number)
        assert after.squad == tuple(range(size))


def test_targeting_each_mission_is_attempted_once() -> None:
    state, _ = play_mission(new_game(5, targeting=True), fails=0, mission=3)
    assert GAME.public_view(state)["available_missions"] == [1, 2, 4]
    error = refused(state, ProposeSquad(state.commander, squad_of(state, 3), 3))
    assert (error.code, error.params) == ("mission_already_attempted", {"mission": 3})
    state, _ = play_mission(state, fails=1, mission=1)
    assert refused(state, ProposeSquad(state.commander, squad_of(state, 1), 1)).code == (
        "mission_already_attempted"
    )


def test_targeting_a_rejected_proposal_is_not_an_attempt() -> None:
    state = reject(new_game(5, targeting=True), mission=4)
    assert state.mission is None
    assert GAME.public_view(state)["available_missions"] == [1, 2, 3, 4]
    state, _ = play_mission(state, fails=0, mission=4)
    assert state.results[-1].mission == 4


def test_targeting_mission_five_only_after_two_successes() -> None:
    state = new_game(5, targeting=True)
    assert refused(state, ProposeSquad(0, (0, 1, 2), 5)).code == "mission_five_locked"
    state, _ = play_mission(state, fails=1, mission=1)
    state, _ = play_mission(state, fails=1, mission=2)
    state, _ = play_mission(state, fails=0, mission=3)
    assert (state.successes, state.failures) == (1, 2)
    assert GAME.public_view(state)["available_missions"] == [4]
    assert refused(state, ProposeSquad(state.commander, squad_of(state, 5), 5)).code == (
        "mission_five_locked"
    )

    state = new_game(5, targeting=True)
    state, _ = play_mission(state, fails=0, mission=2)
    state, _ = play_mission(state, fails=0, mission=4)
    assert GAME.public_view(state)["available_missions"] == [1, 3, 5]
    state, _ = propose(state, mission=5)
    assert (state.mission, len(state.squad)) == (5, 3)


def test_targeting_a_mission_that_does_not_exist_is_refused() -> None:
    state = new_game(5, targeting=True)
    assert refused(state, ProposeSquad(0, (0, 1), 6)).code == "no_such_mission"
    assert refused(state, ProposeSquad(0, (0, 1), 0)).code == "no_such_mission"


def test_targeting_the_mission_four_two_fail_rule_applies_to_mission_four_in_any_order() -> None:
    state = new_game(7, targeting=True)
    one_fail, events = play_mission(state, fails=1, mission=4)
    assert one_fail.results[-1].failed is False
    assert next(e for e in events if e.kind == "mission_begins").data["fails_needed"] == 2
    two_fails, _ = play_mission(state, fails=2, mission=4)
    assert two_fails.results[-1].failed is True
    # ... while the fourth mission played, when it is not mission 4, fails on one card.
    for number, fails in ((1, 0), (3, 0), (5, 1)):
        state, _ = play_mission(state, fails=fails, mission=number)
    state, _ = play_mission(state, fails=1, mission=2)
    assert [(r.mission, r.failed) for r in state.results] == [
        (1, False),
        (3, False),
        (5, True),
        (2, True),
    ]
    assert state.outcome is None


# -- the public record (exports) ------------------------------------------------------------------


def everyone_approves(players: int = 5) -> list[Action]:
    return [CastVote(s, True) for s in range(players)]


def test_public_record_keeps_revealed_votes() -> None:
    votes = [CastVote(s, s < 2) for s in (4, 0, 3, 1, 2)]
    actions = [EndNight(), ProposeSquad(0, (0, 1)), *votes]
    state, record = recorded(5, actions)
    assert state.last_vote is not None
    assert record == actions


def test_public_record_drops_the_votes_of_a_vote_still_open() -> None:
    actions = [EndNight(), ProposeSquad(0, (0, 1)), CastVote(0, True), CastVote(3, False)]
    _, record = recorded(5, actions)
    assert record == actions[:2]


def test_public_record_keeps_no_vote_changed_before_the_reveal() -> None:
    """A changed vote was never shown to the table: the record keeps only the final votes."""
    votes = [
        CastVote(0, False),
        CastVote(1, True),
        CastVote(0, True),
        CastVote(2, True),
        CastVote(3, True),
        CastVote(4, True),
    ]
    _, record = recorded(5, [EndNight(), ProposeSquad(0, (0, 1)), *votes])
    assert [a for a in record if isinstance(a, CastVote)] == everyone_approves()


def test_public_record_redeals_mission_cards_in_seat_order_successes_first() -> None:
    played = [
        PlayMissionCard(3, Card.SUCCESS),
        PlayMissionCard(1, Card.FAIL),
        PlayMissionCard(2, Card.SUCCESS),
    ]
    actions = [
        EndNight(),
        ProposeSquad(0, (0, 1)),
        *everyone_approves(),
        PlayMissionCard(0, Card.SUCCESS),
        PlayMissionCard(1, Card.SUCCESS),
        ProposeSquad(1, (1, 2, 3)),
        *everyone_approves(),
        *played,
    ]
    _, record = recorded(5, actions)
    cards = [a for a in record if isinstance(a, PlayMissionCard)]
    assert cards[2:] == [
        PlayMissionCard(1, Card.SUCCESS),
        PlayMissionCard(2, Card.SUCCESS),
        PlayMissionCard(3, Card.FAIL),
    ]


def test_public_record_never_tells_who_played_which_card() -> None:
    def game(failing: int, changed: bool) -> list[Action]:
        cards = {s: Card.FAIL if s == failing else Card.SUCCESS for s in (1, 2, 3)}
        actions = [
            EndNight(),
            ProposeSquad(0, (0, 1)),
            *everyone_approves(),
            PlayMissionCard(0, Card.SUCCESS),
            PlayMissionCard(1, Card.SUCCESS),
            ProposeSquad(1, (1, 2, 3)),
            *everyone_approves(),
        ]
        if changed:  # the Cylon hesitates: Success first, then Fail, before the others play
            actions += [PlayMissionCard(failing, Card.SUCCESS), PlayMissionCard(failing, Card.FAIL)]
        return actions + [
            PlayMissionCard(s, cards[s]) for s in (3, 2, 1) if not (changed and s == failing)
        ]

    records = [
        recorded(5, game(failing, changed))[1] for failing in (1, 2, 3) for changed in (False, True)
    ]
    assert all(r == records[0] for r in records)


def test_public_record_drops_the_cards_of_a_mission_still_being_played() -> None:
    actions = [
        EndNight(),
        ProposeSquad(0, (0, 1)),
        *everyone_approves(),
        PlayMissionCard(1, Card.FAIL),
    ]
    _, record = recorded(5, actions)
    assert record == actions[:-1]


@pytest.mark.parametrize("targeting", [False, True])
def test_replaying_the_public_record_gives_the_same_public_view(targeting: bool) -> None:
    """A whole game, with a rejection, changed votes and changed cards, replayed from its record."""
    start = GAME.new(options(6, targeting=targeting, first_commander=2), seed=3)

    def squad(commander: int, members: tuple[int, ...], number: int) -> ProposeSquad:
        return ProposeSquad(commander, members, number if targeting else None)

    rejected = [
        squad(2, (0, 1), 1),
        CastVote(0, True),
        CastVote(0, False),
        *(CastVote(s, s == 5) for s in range(1, 6)),
    ]
    failed = [
        squad(3, (3, 4), 1),
        *everyone_approves(6),
        PlayMissionCard(4, Card.FAIL),
        PlayMissionCard(3, Card.SUCCESS),
    ]
    succeeded = [
        squad(4, (0, 4, 5), 2),
        *everyone_approves(6),
        PlayMissionCard(0, Card.FAIL),
        PlayMissionCard(4, Card.SUCCESS),
        PlayMissionCard(0, Card.SUCCESS),
        PlayMissionCard(5, Card.SUCCESS),
    ]
    succeeded_again = [
        squad(5, (1, 2, 3, 4), 3),
        CastVote(3, False),
        *everyone_approves(6),
        *(PlayMissionCard(s, Card.SUCCESS) for s in (4, 3, 2, 1)),
    ]
    won = [
        squad(0, (0, 1, 2), 4),
        *everyone_approves(6),
        *(PlayMissionCard(s, Card.SUCCESS) for s in (2, 1, 0)),
    ]

    actions: list[Action] = [EndNight()]
    for stage in (rejected, failed, succeeded, succeeded_again, won):
        actions += stage
        state, _ = play(start, *actions)
        record = public_record(GAME, actions, GAME.options_json(state), state.seed)
        replayed, _ = play(start, *record)
        assert GAME.public_view(replayed) == GAME.public_view(state)
    assert GAME.outcome(state) is not None
    assert GAME.outcome(replayed) == GAME.outcome(state)


def test_a_finished_mission_clears_the_rounds_rejections_even_when_it_ends_the_game() -> None:
    state = new_game()
    for _ in range(2):
        state, _ = play_mission(state, fails=0)
    state = reject(state)
    assert state.rejections == 1
    state, _ = play_mission(state, fails=0)
    assert state.outcome is not None and state.outcome.winner == "colons"
    assert state.rejections == 0
