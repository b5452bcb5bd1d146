"""Every route of the app, walked as anyone on the network, as each seat's phone and as the host,
at random moments of random games of every game so far: Résistance (plain, and with digital
identities and Le Plan), Oraklos, Ostrakon, Eleusis (the companion as God, digital hands on the
phones) and Les 7 Sages (a short match, nothing hidden) (docs/SECURITY.md; issue 7).

``ROUTES`` says, for every rule of the app's ``url_map`` and each of its methods, the status each
audience gets: anyone (no session; on a seat's route, a link that opens nothing: guessed, revoked
or another game's), a seat (a phone with no session, holding its own link and sending it again in
``X-Seat-Token``), the host (the PIN's session, its CSRF token on every POST). A rule or method
the table does not classify fails the walk.

Who sees what: a public answer is exactly the public snapshot of that instant, with no key of a
private view and no seat link in it; a seat's answers are that snapshot and its own private view;
the record and the links are the host's. Who changes what: a refused POST changes nothing (the
snapshot, the game's state, the journal, the links); a phone acts for its own seat only; the
host's moves and the seat's own moves go through.

Flask's test client over the real app (``appliance.wiring.build`` in simulation, the generated
camera), as in tests/test_host_lock.py and tests/test_phone_seats.py.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import resistance_play
from serving import CSRF_FIELD, CSRF_META, PIN, ROOT, Quiet, host_client
from test_eleusis_games import choose as choose_eleusis
from test_night_games import choose as choose_night
from test_oraklos_games import Referee
from test_oraklos_games import choose as choose_oraklos
from test_ostrakon_games import choose as choose_ostrakon
from test_sages_games import pick as pick_sages

from appliance.wiring import build
from companion.config import CameraConfig, Config
from companion.game import Action, IllegalAction
from companion.seats_online import actor
from tests.timing import HandClock

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]
DIGITAL_PLOT = {"identities": "digital", "plot": True}
SCENARIOS: dict[str, tuple[str, dict[str, Any], tuple[int, int]]] = {
    # name: (game, options, (fewest, most) players)
    "résistance": ("resistance", {}, (5, 10)),
    "résistance, digital identities, Le Plan": ("resistance", DIGITAL_PLOT, (5, 10)),
    "oraklos": ("oraklos", {"mode": "standard"}, (2, 5)),
    "ostrakon": ("ostrakon", {}, (5, 8)),
    "eleusis": ("eleusis", {"level": "easy", "hand_size": 6}, (2, 6)),
    "les 7 sages": ("sages", {"target": 2, "hourglass": 60}, (2, 2)),
    "game night": ("night", {}, (1, 8)),
}
WALKS = 5  # walks at random moments of a game; then it is played out and walked once more
# most moves between two walks
STRIDE = {
    "resistance": 12,
    "oraklos": 60,
    "ostrakon": 70,
    "eleusis": 12,
    "sages": 30,
    "night": 20,
}
# a moment when seats hold secrets (cards face down, cups filled, tessons laid) and others are
# yet to play: the walk stops there at least twice
SECRET_MOMENT = {
    "resistance": "mission",
    "oraklos": "fill",
    "ostrakon": "vote",
    "eleusis": "play",
    "sages": "play",  # nothing is hidden: any moment of play, where the seats move
    "night": "turns",  # nothing is hidden either: turns timed, where the seats act
}
LEDS = (2, 3, 9, 10, 14, 15, 0, 1)  # the pins the buttons leave free: seats 0-7 have an LED
STATIC = ROOT / "web" / "static"
ALLOWED = 0  # the audience is let through: the route answers on the merits (checked below)


@dataclass(frozen=True)
class Access:
    """The status each audience gets from one method of a route."""

    anyone: int
    seat: int
    host: int


@dataclass(frozen=True)
class Audience:
    kind: str  # "anyone", "seat" or "host"
    seat: int | None = None
    token: str = ""  # the link in the path, on a seat's route
    header: str | None = None  # X-Seat-Token


# -- the rig: one companion, one random game, the host's client -----------------------------------


class Rig:
    def __init__(self, data_dir: Path, scenario: str) -> None:
        self.rng = random.Random(f"route walk: {scenario}")
        self.title, extra, (fewest, most) = SCENARIOS[scenario]
        self.options = {"players": self.rng.randint(fewest, most), **extra}
        config = Config(
            data_dir=data_dir,
            pin_factory="mock",
            camera=CameraConfig(source="generated:3"),
            host_pin=PIN,
            leds=LEDS,
            pauses=dict.fromkeys(("intro", "close_eyes", "cylons_open", "cylons_close"), 0.0),
        )
        self.companion = build(config, speech=Quiet())
        self.table = self.companion.table
        self.table.clock = HandClock()  # no sand runs out during a walk
        self.app = self.companion.app
        self.host = host_client(self.app, PIN)
        self.static = sorted(p.name for p in STATIC.iterdir() if p.is_file())[0]
        self.referee = Referee()
        self.tokens: dict[int, set[str]] = {}  # every link seen, by game
        self.seat_acts = self.camera_throws = self.secret_walks = self.colon_refusals = 0
        self.paused_sand = 0

    def start(self) -> None:
        """A first game, whose links are then another game's, and the game walked."""
        names = NAMES[: self.options["players"]]
        for seed in (self.rng.randrange(2**31), self.rng.randrange(2**31)):
            self.table.new_game(self.title, self.options, names, "en", seed=seed)
            self.settle()

    def settle(self) -> None:
        assert self.companion.narrator.wait_idle(10)  # an opening night, said and done
        game_id = self.table.snapshot()["game_id"]
        self.tokens.setdefault(game_id, set()).update(self.links().values())

    def close(self) -> None:
        self.companion.close()

    # -- the game -------------------------------------------------------------------------------

    @property
    def running(self) -> Any:
        running = self.table.running
        assert running is not None
        return running

    def over(self) -> bool:
        return self.running.game.outcome(self.running.state) is not None

    def links(self) -> dict[int, str]:
        return self.table.phones.links.links()

    def next_move(self) -> Action | None:
        """A random legal move of the game, or None once it is over."""
        game, state = self.running.game, self.running.state
        if self.over():
            return None
        for _ in range(500):
            if self.title == "resistance":
                move = resistance_play.choose(self.rng, state)
            elif self.title == "oraklos":
                move = choose_oraklos(self.rng, state, self.referee)
            elif self.title == "eleusis":
                move = choose_eleusis(self.rng, state)
            elif self.title == "sages":
                offered = list(game.legal_actions(state, state.to_move.seat))
                move = pick_sages(self.rng, state, offered)
            elif self.title == "night":
                move = choose_night(self.rng, state)
            else:
                move = choose_ostrakon(self.rng, state)
            try:
                game.apply(state, move)
            except IllegalAction:
                continue
            return move
        raise AssertionError(f"no legal move found in {game.public_view(state)}")

    def advance(self, moves: int, stop: bool = True) -> None:
        """Up to ``moves`` moves at the table; stopping at a secret moment (twice), and at an
        Oraklos throw until the camera has read one."""
        for _ in range(moves):
            move = self.next_move()
            if move is None:
                return
            before = self.phase()
            self.table.submit(move)
            secret = before == self.phase() == SECRET_MOMENT[self.title]
            if stop and secret and self.secret_walks < 2:
                return
            if stop and self.awaits_throw() and not self.camera_throws:
                return

    def phase(self) -> str:
        state = self.running.state
        if self.title == "night":  # no phases: the turn timer running or not
            return "turns" if state.timer is not None else "between turns"
        return str(state.phase.value)

    def awaits_throw(self) -> bool:
        return self.title == "oraklos" and self.phase() == "throw"

    def mark(self) -> tuple[Any, ...]:
        """What a change would change: the snapshot, the state, the journal and the links."""
        running = self.running
        actions = self.table.journal.actions(running.entry.id)
        return self.table.snapshot(), running.state, running.version, len(actions), self.links()

    # -- what may be seen -----------------------------------------------------------------------

    def private(self, seat: int) -> Any:
        return normal(self.running.game.private_view(self.running.state, seat))

    def secret_keys(self) -> set[str]:
        """The keys a private view adds to the public one (the seat's number aside)."""
        game, state = self.running.game, self.running.state
        public = set(game.public_view(state))
        players = int(game.public_view(state)["players"])
        return {k for s in range(players) for k in game.private_view(state, s)} - public - {"seat"}

    def assert_public(self, data: Any) -> None:
        """Exactly the public snapshot of this instant: no private key, no link."""
        snapshot = normal(self.table.snapshot())
        assert data == snapshot
        assert snapshot["state"] == normal(self.running.game.public_view(self.running.state))
        leaked = keys_in(data) & self.secret_keys()
        assert not leaked, f"private keys {leaked} in a public answer"
        self.assert_no_link(json.dumps(data))

    def assert_seat_view(self, view: Any, seat: int) -> None:
        """The public snapshot and this seat's own private view, nothing else: its identity, its
        vote, its card, what it learned... and no other seat's."""
        assert set(view) == {"seat", "name", "public", "private", "notice"}
        assert view["seat"] == seat
        assert view["name"] == NAMES[seat]
        self.assert_public(view["public"])
        assert view["private"] == self.private(seat)
        self.assert_no_link(json.dumps(view))

    def assert_no_link(self, text: str, *mine: str) -> None:
        """No seat link of any game in ``text``, but those in ``mine``."""
        seen = {t for tokens in self.tokens.values() for t in tokens if t in text}
        assert seen <= set(mine), "a seat link where it does not belong"

    def bad_links(self) -> list[tuple[str, str]]:
        """Links that open no seat: guessed, revoked (this game's, no longer live), another
        game's."""
        game_id = self.running.entry.id
        live = set(self.links().values())
        revoked = sorted(self.tokens.get(game_id, set()) - live)
        foreign = sorted(t for g, tokens in self.tokens.items() if g != game_id for t in tokens)
        out = [("guessed", secrets.token_urlsafe(24))]
        out += [("revoked", self.rng.choice(revoked))] if revoked else []
        out += [("other game's", self.rng.choice(foreign))] if foreign else []
        return out

    # -- requests -------------------------------------------------------------------------------

    def audiences(self, rule: str) -> Iterator[tuple[Audience, str]]:
        """Who walks ``rule``, and what to call it in a failure."""
        links = self.links()
        if "<token>" in rule:
            for kind, token in self.bad_links():
                yield Audience("anyone", token=token, header=token), f"anyone with a {kind} link"
            for seat, token in sorted(links.items()):
                yield Audience("seat", seat, token, token), f"seat {seat} with its own link"
            guess = secrets.token_urlsafe(24)
            yield Audience("host", token=guess, header=guess), "the host (no link)"
        else:
            yield Audience("anyone"), "anyone"
            for seat, token in sorted(links.items()):
                yield Audience("seat", seat, header=token), f"seat {seat}"
            yield Audience("host"), "the host"

    def send(self, method: str, rule: str, who: Audience) -> Any:
        path = rule.replace("<token>", who.token).replace("<path:filename>", self.static)
        path = path.replace("<int:seat>", "1").replace("<game_id>", self.title)
        assert "<" not in path, f"the walk does not know how to fill in {rule}"
        client = self.host if who.kind == "host" else self.app.test_client()  # no session
        headers = {} if who.header is None else {"X-Seat-Token": who.header}
        if method == "GET":
            return client.get(path, headers=headers, buffered=not rule.endswith("/events"))
        return client.post(path, headers=headers, **POST_BODIES[rule](self))


def normal(data: Any) -> Any:
    """``data`` as it reads back from JSON."""
    return json.loads(json.dumps(data))


def keys_in(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys_in(v)}
    if isinstance(data, list):
        return {k for v in data for k in keys_in(v)}
    return set()


def payload(answer: Any) -> Any:
    """The JSON of an answer; of a stream, its first event's (then the stream is closed: it
    never ends by itself)."""
    if answer.mimetype != "text/event-stream":
        return answer.get_json()
    try:
        for chunk in answer.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            for line in text.splitlines():
                if line.startswith("data: "):
                    return json.loads(line[len("data: ") :])
        raise AssertionError("the stream ended before its first event")
    finally:
        answer.close()


# -- what an allowed GET carries ------------------------------------------------------------------


def shows_public_page(rig: Rig, who: Audience, answer: Any) -> None:
    page = answer.get_data(as_text=True)
    assert CSRF_META.search(page) is None
    rig.assert_no_link(page)


def shows_rules(rig: Rig, who: Audience, answer: Any) -> None:
    """The rules summaries (web/rules.py): the same public page for everyone."""
    page = answer.get_data(as_text=True)
    assert CSRF_META.search(page) is None and CSRF_FIELD.search(page) is None
    rig.assert_no_link(page)


def shows_login_form_unless_host(rig: Rig, who: Audience, answer: Any) -> None:
    page = answer.get_data(as_text=True)
    if who.kind == "host":
        assert CSRF_META.search(page) is not None  # the host page, with its session's token
    else:
        assert CSRF_META.search(page) is None and CSRF_FIELD.search(page) is not None
    rig.assert_no_link(page)


def shows_the_file(rig: Rig, who: Audience, answer: Any) -> None:
    assert answer.data == (STATIC / rig.static).read_bytes()


def shows_snapshot(rig: Rig, who: Audience, answer: Any) -> None:
    rig.assert_public(payload(answer))


def shows_lit_leds(rig: Rig, who: Audience, answer: Any) -> None:
    """A lit LED says "has voted" or "has played", never what (Eleusis's "played" is a count of
    cards: it lights nothing)."""
    state = rig.table.snapshot()["state"]
    done = {
        seat
        for key in ("voted", "played")
        if isinstance(state.get(key), list)
        for seat in state[key]
    }
    leds = answer.get_json()["leds"]
    assert leds == [s in done if s < len(LEDS) else None for s in range(len(leds))]
    assert set(answer.get_json()) == {"simulated", "leds"}


def shows_last_throw(rig: Rig, who: Audience, answer: Any) -> None:
    """The dice lie face up: anyone sees the last picture, once there is one."""
    jpeg = rig.companion.throws.jpeg
    if jpeg is None:
        assert answer.status_code == 404 and set(answer.get_json()) == {"error"}
    else:
        assert answer.status_code == 200 and answer.data == jpeg


def shows_last_dice(rig: Rig, who: Audience, answer: Any) -> None:
    """Game night's dice lie face up too."""
    jpeg = rig.companion.dice.jpeg
    if jpeg is None:
        assert answer.status_code == 404 and set(answer.get_json()) == {"error"}
    else:
        assert answer.status_code == 200 and answer.data == jpeg


def shows_record(rig: Rig, who: Audience, answer: Any) -> None:
    assert answer.mimetype == "application/x-ndjson"
    text = answer.get_data(as_text=True)
    assert all(json.loads(line) is not None for line in text.splitlines())
    rig.assert_no_link(text)


def shows_links(rig: Rig, who: Audience, answer: Any) -> None:
    """Every seat; a link only for a seat whose phone has not opened its own yet."""
    seats, links = answer.get_json(), rig.links()
    opened = set(rig.table.phones.links.phones())
    assert sorted(s["seat"] for s in seats) == sorted(links)
    for shown in seats:
        if shown["seat"] in opened:
            assert shown["opened"] is True and "url" not in shown and "qr_svg" not in shown
        else:
            assert shown["url"].rsplit("/seat/", 1)[1] == links[shown["seat"]]


def shows_the_address(rig: Rig, who: Audience, answer: Any) -> None:
    shown = answer.get_json()
    if shown["reachable"]:
        assert shown["url"] in shown["urls"] and "<svg" in shown["qr_svg"]
    else:  # on loopback: why phones cannot open it, never a QR code of 127.0.0.1
        assert shown["why"] and shown["qr_svg"] is None and shown["urls"] == []


def shows_own_seat_page(rig: Rig, who: Audience, answer: Any) -> None:
    page = answer.get_data(as_text=True)
    assert who.token in page
    assert CSRF_META.search(page) is None
    rig.assert_no_link(page, who.token)


def shows_own_view(rig: Rig, who: Audience, answer: Any) -> None:
    assert who.seat is not None
    rig.assert_seat_view(payload(answer), who.seat)


# -- the bodies a refused POST sends: each would change something if it were let through ----------

POST_BODIES: dict[str, Callable[[Rig], dict[str, Any]]] = {
    "/host/login": lambda rig: {"data": {"pin": PIN}},  # the right PIN, without the form's token
    "/host/logout": lambda rig: {"data": {}},
    "/api/games": lambda rig: {
        "json": {"game": rig.title, "options": rig.options, "names": NAMES[:2]}
    },
    "/api/act": lambda rig: {"json": any_move(rig)},
    "/api/press": lambda rig: {"json": {"seat": 0, "button": "A"}},
    "/api/throw/read": lambda rig: {"json": {}},
    "/api/tessons/read": lambda rig: {"json": {}},
    "/api/dice/read": lambda rig: {"json": {}},
    "/api/hourglass/pause": lambda rig: {"json": {}},
    "/api/hourglass/resume": lambda rig: {"json": {}},
    "/api/host/seats/redeal": lambda rig: {"json": {"confirm": True}},
    "/api/host/seats/<int:seat>/redeal": lambda rig: {"json": {}},
    "/api/host/logout-others": lambda rig: {"json": {}},
    "/api/power/off": lambda rig: {"json": {"confirm": True}},  # a real one, refused by the guard
    "/api/seat/<token>/press": lambda rig: {"json": {"button": "A"}},
    "/api/seat/<token>/act": lambda rig: {"json": any_move(rig)},
    "/api/eleusis/check": lambda rig: {"json": {"rule": "card is red"}},
    "/api/games/rematch": lambda rig: {"json": {"game_id": rig.table.snapshot()["game_id"]}},
    "/api/host/undo": lambda rig: {"json": {"seq": 1}},
}


def any_move(rig: Rig) -> Any:
    move = rig.next_move()
    return {"kind": "end_night"} if move is None else move.to_json()


# -- the allowed POSTs, each sent by its audience -------------------------------------------------


def host_logs_in_and_out(rig: Rig) -> None:
    client = rig.app.test_client()
    form = CSRF_FIELD.search(client.get("/host").get_data(as_text=True))
    assert form is not None
    login = client.post("/host/login", data={"pin": PIN, "csrf_token": form.group(1)})
    assert login.status_code == 303
    page = CSRF_META.search(client.get("/host").get_data(as_text=True))
    assert page is not None
    assert client.get("/api/record").status_code == 200
    assert client.post("/host/logout", data={"csrf_token": page.group(1)}).status_code == 303
    assert client.get("/api/record").status_code == 401


def host_is_let_through(path: str, body: Any) -> Callable[[Rig], None]:
    """Past the guard, ``body`` is refused on its merits and changes nothing."""

    def check(rig: Rig) -> None:
        before = rig.mark()
        assert rig.host.post(path, json=body).status_code == 400
        assert rig.mark() == before

    return check


def host_undoes(rig: Rig) -> None:
    """The host takes back what the page offers, if anything; an offer never made is refused
    and changes nothing."""
    offer = rig.table.snapshot()["undo"]
    before = rig.mark()
    if offer is None:
        assert rig.host.post("/api/host/undo", json={"seq": 10**6}).status_code == 400
        assert rig.mark() == before
        return
    answer = rig.host.post("/api/host/undo", json={"seq": offer["seq"]})
    assert answer.status_code == 200, answer.get_json()
    assert rig.running.version == before[2] + 1
    rig.assert_public(answer.get_json())


def host_moves(rig: Rig) -> None:
    move = rig.next_move()
    before = rig.mark()
    if move is None:
        answer = rig.host.post("/api/act", json={"kind": "end_night"})
        assert answer.status_code == 400 and rig.mark() == before  # the game is over
        return
    answer = rig.host.post("/api/act", json=move.to_json())
    assert answer.status_code == 200, answer.get_json()
    assert rig.running.version == before[2] + 1
    rig.assert_public(answer.get_json())


def host_presses(rig: Rig) -> None:
    players = rig.options["players"]
    press = {"seat": rig.rng.randrange(players), "button": rig.rng.choice("AB")}
    answer = rig.host.post("/api/press", json=press)
    assert answer.status_code == 200
    rig.assert_public(answer.get_json())


def host_reads_the_throw(rig: Rig) -> None:
    """The camera reads the dice when a throw is awaited (or reads them again, while no claim
    is judged); at any other time, and in another game, nothing changes."""
    awaited = rig.awaits_throw()
    before = rig.mark()
    answer = rig.host.post("/api/throw/read", json={})
    if answer.status_code == 200:
        assert rig.title == "oraklos" and rig.running.version == before[2] + 1
        rig.camera_throws += 1
        rig.referee.truth = rig.running.state.table  # the dice as the camera saw them
        rig.assert_public(answer.get_json())
    else:
        assert not awaited, answer.get_json()
        assert answer.status_code in (400, 409) and rig.mark() == before


def host_reads_the_dice(rig: Rig) -> None:
    """Game night's dice reader takes a throw from the (generated) camera; in another game, or
    once the evening is over, nothing changes."""
    before = rig.mark()
    answer = rig.host.post("/api/dice/read", json={})
    if answer.status_code == 200:
        assert rig.title == "night" and rig.running.version == before[2] + 1
        rig.assert_public(answer.get_json())
    else:
        assert answer.status_code in (400, 409) and rig.mark() == before
        assert rig.title != "night" or rig.over() or "moved" in answer.get_json()["error"]


def host_pauses_and_resumes_the_sand(rig: Rig) -> None:
    """A running countdown (game night's turn, a timed Sages move) is paused then resumed; a
    paused one resumed then paused again; with none, both are refused and change nothing."""

    def post(what: str) -> Any:
        return rig.host.post(f"/api/hourglass/{what}", json={})

    running = rig.table.snapshot()["hourglass"] is not None
    first, then = ("pause", "resume") if running else ("resume", "pause")
    before = rig.mark()
    answer = post(first)
    if answer.status_code == 400:  # no countdown, running or paused
        assert first == "resume" and rig.mark() == before
        assert post("pause").status_code == 400 and rig.mark() == before
        return
    assert answer.status_code == 200, answer.get_json()
    assert (rig.table.snapshot()["hourglass"] is not None) != running
    assert post(then).status_code == 200 and rig.running.version == before[2] + 2
    assert (rig.table.snapshot()["hourglass"] is not None) == running
    rig.paused_sand += 1


def host_checks_a_rule(rig: Rig) -> None:
    """Eleusis's rule checker answers the host, whatever the game, and changes nothing."""
    before = rig.mark()
    answer = rig.host.post("/api/eleusis/check", json={"rule": "card.colour != prev.colour"})
    assert answer.status_code == 200
    assert answer.get_json()["ok"] is True and answer.get_json()["fit"] is True
    assert rig.mark() == before


def host_redeals_the_links(rig: Rig) -> None:
    """New links for a running game; a finished game's links stay revoked."""
    old = rig.links()
    answer = rig.host.post("/api/host/seats/redeal", json={"confirm": True})
    if rig.over():
        assert answer.status_code == 409 and rig.links() == old == {}
        return
    assert answer.status_code == 200
    new = rig.links()
    assert sorted(new) == sorted(old) and not set(new.values()) & set(old.values())
    shows_links(rig, Audience("host"), answer)
    rig.settle()
    for token in old.values():  # a revoked link opens nothing
        assert rig.app.test_client().get(f"/api/seat/{token}/state").status_code == 404


def host_redeals_one_link(rig: Rig) -> None:
    """A new link for one seat, said aloud; the other seats keep theirs."""
    old = rig.links()
    answer = rig.host.post("/api/host/seats/1/redeal", json={})
    if rig.over():
        assert answer.status_code == 409 and rig.links() == old == {}
        return
    assert answer.status_code == 200
    new = rig.links()
    assert new[1] != old[1] and {s: t for s, t in new.items() if s != 1} == {
        s: t for s, t in old.items() if s != 1
    }
    assert rig.table.snapshot()["message"] == rig.running.catalog.text(
        "general.link_redealt", seat=1
    )
    shows_links(rig, Audience("host"), answer)
    rig.settle()
    assert rig.app.test_client().get(f"/api/seat/{old[1]}/state").status_code == 404


def host_logs_out_other_devices(rig: Rig) -> None:
    """Another host device is logged out; this one stays."""
    other = host_client(rig.app, PIN)
    assert other.get("/api/record").status_code == 200
    answer = rig.host.post("/api/host/logout-others", json={})
    assert answer.status_code == 200 and answer.get_json()["ended"] >= 1
    assert other.get("/api/record").status_code == 401
    assert rig.host.get("/api/record").status_code == 200


def seat_presses(rig: Rig) -> None:
    links = rig.links()
    if not links:
        return
    seat = rig.rng.choice(sorted(links))
    token = links[seat]
    answer = rig.app.test_client().post(
        f"/api/seat/{token}/press",
        json={"button": rig.rng.choice("AB")},
        headers={"X-Seat-Token": token},
    )
    assert answer.status_code == 200
    view = answer.get_json()
    assert isinstance(view.pop("accepted"), bool)
    check_answer_to_seat(rig, view, seat)


def seat_acts_for_itself_only(rig: Rig) -> None:
    """A phone's move for another seat is refused and changes nothing; its own goes through."""
    links, move = rig.links(), rig.next_move()
    if not links or move is None:
        return
    mover = actor(move)
    others = sorted(s for s in links if s != mover)
    before = rig.mark()
    if others:
        other = links[rig.rng.choice(others)]
        crossed = post_act(rig, other, move.to_json())
        assert crossed.status_code == 403
        assert rig.mark() == before
    if mover in links:
        answer = post_act(rig, links[mover], move.to_json())
        assert answer.status_code == 200, answer.get_json()
        assert rig.running.version == before[2] + 1
        rig.seat_acts += 1
        check_answer_to_seat(rig, answer.get_json(), mover)


def post_act(rig: Rig, token: str, body: Any) -> Any:
    return rig.app.test_client().post(
        f"/api/seat/{token}/act", json=body, headers={"X-Seat-Token": token}
    )


def a_colons_fail_is_answered_to_its_phone_alone(rig: Rig) -> None:
    """Digital identities: the refusal says who is a Colon; it changes nothing, not even what
    was said."""
    state, links = rig.running.state, rig.links()
    if rig.title != "resistance" or state.identities is None or rig.phase() != "mission":
        return
    for seat in [s for s in state.squad if state.identities[s].value == "colons" and s in links]:
        before = rig.mark()
        fail = {"kind": "mission_card", "seat": seat, "card": "fail"}
        answer = post_act(rig, links[seat], fail)
        assert answer.status_code == 400 and answer.get_json()["private"] is True
        assert rig.mark() == before
        rig.colon_refusals += 1


def check_answer_to_seat(rig: Rig, view: Any, seat: int) -> None:
    """The seat's view after its move; a move that ended the game answers the public snapshot
    only."""
    if view.get("gone"):
        assert view["private"] is None and view["seat"] == seat
        rig.assert_public(view["public"])
    else:
        rig.assert_seat_view(view, seat)


# -- who may use what -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    get: Access | None = None
    post: Access | None = None
    shows: Callable[[Rig, Audience, Any], None] | None = None  # what an allowed GET carries
    accept: Callable[[Rig], None] | None = None  # the allowed POST, sent by its audience


SEAT_ONLY = Access(anyone=404, seat=200, host=404)  # a link that opens no seat: 404, host or not
HOST_ONLY = Access(anyone=401, seat=401, host=200)
HOST_POST = Access(anyone=401, seat=401, host=ALLOWED)
PUBLIC = Access(200, 200, 200)
# The allowed POSTs are sent in this order, each once a walk: the camera reads an awaited throw
# before the host's own move could type it in.
ROUTES: dict[str, Row] = {
    "/": Row(get=PUBLIC, shows=shows_public_page),
    "/tv": Row(get=PUBLIC, shows=shows_public_page),  # the same page, for a screen afar
    "/static/<path:filename>": Row(get=PUBLIC, shows=shows_the_file),
    "/host": Row(get=PUBLIC, shows=shows_login_form_unless_host),
    # without the login form's CSRF token, which comes with a visit to /host
    "/host/login": Row(post=Access(403, 403, ALLOWED), accept=host_logs_in_and_out),
    "/host/logout": Row(post=Access(403, 403, ALLOWED), accept=host_logs_in_and_out),
    "/rules": Row(get=PUBLIC, shows=shows_rules),
    "/rules/<game_id>": Row(get=PUBLIC, shows=shows_rules),
    "/api/state": Row(get=PUBLIC, shows=shows_snapshot),
    "/api/events": Row(get=PUBLIC, shows=shows_snapshot),
    "/api/panel": Row(get=PUBLIC, shows=shows_lit_leds),
    "/api/throw.jpg": Row(get=Access(ALLOWED, ALLOWED, ALLOWED), shows=shows_last_throw),
    "/api/throw/read": Row(post=HOST_POST, accept=host_reads_the_throw),
    "/api/dice.jpg": Row(get=Access(ALLOWED, ALLOWED, ALLOWED), shows=shows_last_dice),
    "/api/dice/read": Row(post=HOST_POST, accept=host_reads_the_dice),
    "/api/hourglass/pause": Row(post=HOST_POST, accept=host_pauses_and_resumes_the_sand),
    "/api/hourglass/resume": Row(post=HOST_POST, accept=host_pauses_and_resumes_the_sand),
    # no game here lays its tessons for the camera
    "/api/tessons/read": Row(post=HOST_POST, accept=host_is_let_through("/api/tessons/read", {})),
    # a game the companion does not have (one is started for good at the end of the walk)
    "/api/games": Row(post=HOST_POST, accept=host_is_let_through("/api/games", {"game": "-"})),
    # a body without the game's id (tests/test_ending.py plays again for good)
    "/api/games/rematch": Row(
        post=HOST_POST, accept=host_is_let_through("/api/games/rematch", {"game_id": "-"})
    ),
    "/api/host/undo": Row(post=HOST_POST, accept=host_undoes),
    "/api/press": Row(post=HOST_POST, accept=host_presses),
    "/api/act": Row(post=HOST_POST, accept=host_moves),
    "/api/record": Row(get=HOST_ONLY, shows=shows_record),
    "/api/host/seats": Row(get=HOST_ONLY, shows=shows_links),
    "/api/host/seats/redeal": Row(post=HOST_POST, accept=host_redeals_the_links),
    "/api/host/seats/<int:seat>/redeal": Row(post=HOST_POST, accept=host_redeals_one_link),
    "/api/host/logout-others": Row(post=HOST_POST, accept=host_logs_out_other_devices),
    "/api/host/address": Row(get=HOST_ONLY, shows=shows_the_address),
    # without {"confirm": true}: the walk goes on (tests/test_shutdown.py shuts down for good)
    "/api/power/off": Row(post=HOST_POST, accept=host_is_let_through("/api/power/off", {})),
    "/api/eleusis/check": Row(post=HOST_POST, accept=host_checks_a_rule),
    "/seat/<token>": Row(get=SEAT_ONLY, shows=shows_own_seat_page),
    "/api/seat/<token>/state": Row(get=SEAT_ONLY, shows=shows_own_view),
    "/api/seat/<token>/events": Row(get=SEAT_ONLY, shows=shows_own_view),
    "/api/seat/<token>/press": Row(post=Access(404, ALLOWED, 404), accept=seat_presses),
    "/api/seat/<token>/act": Row(post=Access(404, ALLOWED, 404), accept=seat_acts_for_itself_only),
}
SEAT_HEADER_REFUSED = 403  # a seat's POST without its link in X-Seat-Token, or with another's


def methods(app: Any) -> list[tuple[str, str]]:
    return [
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
    ]


def access(rule: str, method: str) -> Access:
    row = ROUTES.get(rule)
    found = None if row is None else {"GET": row.get, "POST": row.post}.get(method)
    assert found is not None, f"{method} {rule} is not in ROUTES: say who may use it"
    return found


# -- the walk -------------------------------------------------------------------------------------


def walk(rig: Rig) -> None:
    """Every route, as every audience: first what each may read and each refused change, then
    each allowed change by its audience (in the table's order: a change moves the game on)."""
    rig.settle()
    rig.secret_walks += rig.phase() == SECRET_MOMENT[rig.title]
    for rule, method in methods(rig.app):
        allowed = access(rule, method)
        for who, name in rig.audiences(rule):
            expected = getattr(allowed, who.kind)
            if method == "GET":
                read(rig, rule, who, name, expected)
            elif expected != ALLOWED:
                refused(rig, rule, who, name, expected)
        if method == "POST" and "<token>" in rule:
            seat_posts_need_their_link_in_the_header(rig, rule)
    a_colons_fail_is_answered_to_its_phone_alone(rig)
    for accept in dict.fromkeys(row.accept for row in ROUTES.values() if row.accept):
        accept(rig)
        rig.settle()


def read(rig: Rig, rule: str, who: Audience, name: str, expected: int) -> None:
    answer = rig.send("GET", rule, who)
    try:
        if expected != ALLOWED:  # else the route's own answer, checked by what it shows
            assert answer.status_code == expected, f"{name}: GET {rule} gave {answer.status_code}"
        if expected in (200, ALLOWED):
            shows = ROUTES[rule].shows
            assert shows is not None, f"GET {rule}: say what it shows"
            shows(rig, who, answer)
        else:
            refusal_tells_nothing(rig, rule, answer)
    finally:
        answer.close()


def refused(rig: Rig, rule: str, who: Audience, name: str, expected: int) -> None:
    before = rig.mark()
    answer = rig.send("POST", rule, who)
    assert answer.status_code == expected, f"{name}: POST {rule} gave {answer.status_code}"
    refusal_tells_nothing(rig, rule, answer)
    assert rig.mark() == before, f"{name}: a refused POST {rule} changed the table"


def refusal_tells_nothing(rig: Rig, rule: str, answer: Any) -> None:
    if rule.startswith("/api/"):
        assert set(answer.get_json()) == {"error"}
    else:
        rig.assert_no_link(answer.get_data(as_text=True))


def seat_posts_need_their_link_in_the_header(rig: Rig, rule: str) -> None:
    """Another site's form cannot set the header, nor another site's script send it."""
    links = sorted(rig.links().items())
    if not links:
        return
    seat, token = rig.rng.choice(links)
    others = [t for s, t in links if s != seat]
    headers: list[str | None] = [None, *others[:1]]
    for header in headers:
        who = Audience("anyone", seat, token, header)
        refused(rig, rule, who, "a bad header", SEAT_HEADER_REFUSED)
    before = rig.mark()
    answer = rig.app.test_client().post(
        rule.replace("<token>", token),
        headers={"X-Seat-Token": token, "Origin": "http://evil.example"},
        **POST_BODIES[rule](rig),
    )
    assert answer.status_code == SEAT_HEADER_REFUSED
    assert rig.mark() == before


# -- the tests ------------------------------------------------------------------------------------


@pytest.fixture
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path, request.param)
    try:
        yield made
    finally:
        made.close()


@pytest.mark.parametrize("rig", ["résistance"], indirect=True)
def test_every_route_of_the_app_says_who_may_use_it(rig: Rig) -> None:
    """A route added later fails the walk until ROUTES says who may use it; a row for a route
    that is gone fails too."""
    routes = methods(rig.app)
    for rule, method in routes:
        access(rule, method)
    assert {rule for rule, _ in routes} == set(ROUTES)
    for row in ROUTES.values():  # what an allowed GET shows; how an allowed POST is sent
        assert (row.get is None) == (row.shows is None)
        assert (row.post is None) == (row.accept is None)


@pytest.mark.parametrize("rig", sorted(SCENARIOS), indirect=True)
def test_anyone_each_seat_and_the_host_see_and_change_only_what_they_may(rig: Rig) -> None:
    rig.start()
    for _ in range(WALKS):
        walk(rig)
        if rig.over():
            break
        rig.advance(rig.rng.randint(1, STRIDE[rig.title]))
    rig.advance(10_000, stop=False)  # to the end: every link is revoked
    assert rig.over() and rig.links() == {}
    walk(rig)
    answer = rig.host.post(
        "/api/games",
        json={"game": rig.title, "options": rig.options, "names": NAMES[: rig.options["players"]]},
    )
    assert answer.status_code == 201
    rig.settle()
    walk(rig)  # the last game's links are another game's now
    assert rig.seat_acts > 0 and rig.secret_walks >= 2
    assert rig.camera_throws > 0 or rig.title != "oraklos"
    assert rig.paused_sand > 0 or rig.title not in ("sages", "night")
    assert rig.colon_refusals > 0 or rig.options.get("identities") != "digital"
