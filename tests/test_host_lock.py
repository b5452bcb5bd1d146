"""The host page is locked (docs/SECURITY.md): a PIN, a signed session cookie, a CSRF token per
session, a same-origin check and a login rate limit. The public page and its live state stay
open and carry the same public snapshot.

The fine-grained rules run on Flask's test client over the real app (``appliance.wiring.build``
in simulation, the generated camera); the console, the journal and restarts on a real
``companion serve`` (``tests/serving.py``).
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from serving import CSRF_FIELD, CSRF_META, PIN, start_server, write_config

from appliance.wiring import Companion, build
from companion.config import CameraConfig, Config
from companion.games.night.state import StartTimer
from companion.games.ostrakon.state import Ask, VotesLaid
from companion.games.resistance.state import CastVote, Phase, ProposeSquad
from tests.timing import HandClock
from web.auth import Hush, LoginLimiter, Sessions, same_origin, session_secret, stored_pin

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve", "Fay"]
LOGIN_NEEDED = "log in on the host page with the host PIN"
WRONG_TOKEN = "security token"
OTHER_SITE = "comes from another site"


class Quiet:
    """A speech engine that remembers what it was asked to say."""

    name = "quiet"

    def __init__(self) -> None:
        self.said: list[str] = []

    def speak(self, text: str, lang: str) -> None:
        self.said.append(text)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(tmp_path: Path, **overrides: Any) -> tuple[Companion, Quiet]:
    speech = Quiet()
    settings: dict[str, Any] = {
        "data_dir": tmp_path,
        "pin_factory": "mock",
        "camera": CameraConfig(source="generated:3"),
        "host_pin": PIN,
        "pauses": dict.fromkeys(("intro", "close_eyes", "cylons_open", "cylons_close"), 0.0),
        **overrides,
    }
    return build(Config(**settings), speech=speech), speech


@pytest.fixture
def companion(tmp_path: Path) -> Iterator[Companion]:
    running, _ = make(tmp_path)
    try:
        yield running
    finally:
        running.close()


# -- a browser's worth of Flask test client -------------------------------------------------------


class Browser:
    """A test client with its own cookies and the token of the last host page it loaded."""

    def __init__(self, companion: Companion, address: str = "192.0.2.10") -> None:
        self.client = companion.app.test_client()
        self.client.environ_base["REMOTE_ADDR"] = address
        self.token = ""

    def open_host(self) -> str:
        page = str(self.client.get("/host").get_data(as_text=True))
        found = CSRF_META.search(page) or CSRF_FIELD.search(page)
        self.token = found.group(1) if found else ""
        return page

    def login(self, pin: str = PIN, token: str | None = None) -> Any:
        self.open_host()
        form = {"pin": pin, "csrf_token": self.token if token is None else token}
        answer = self.client.post("/host/login", data=form)
        if answer.status_code == 303:
            self.open_host()
        return answer

    def send(self, route: Route, token: str | None = None, **headers: str) -> Any:
        """``route`` with the CSRF token (this browser's unless ``token`` is given)."""
        sent = dict(headers)
        given = self.token if token is None else token
        if given:
            sent["X-CSRF-Token"] = given
        if route.method == "GET":
            return self.client.get(route.path, headers=sent)
        return self.client.post(route.path, json=route.body, headers=sent)


def host(companion: Companion) -> Browser:
    browser = Browser(companion)
    assert browser.login().status_code == 303
    assert browser.token
    return browser


# -- the host's routes, each with a table on which it would be accepted ---------------------------


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    body: Any
    prepare: Callable[[Companion], Any]

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


def resistance(companion: Companion) -> None:
    companion.table.new_game("resistance", {"players": 5}, NAMES[:5], seed=1)


def resistance_over(companion: Companion) -> None:
    """A game of Résistance played to its end: five squads rejected, the Cylons win."""
    resistance(companion)
    assert companion.narrator.wait_idle(10)  # the opening night, said and done
    table = companion.table
    while (running := table.running) is not None and running.state.outcome is None:
        state = running.state
        if state.phase is Phase.PROPOSE:
            size = running.game.public_view(state)["squad_size"]
            table.submit(ProposeSquad(state.commander, tuple(range(size))))
        else:
            table.submit(CastVote(state.votes.index(None), False))


def oraklos(companion: Companion) -> None:
    companion.table.new_game("oraklos", {"players": 3, "mode": "junior"}, NAMES[:3], seed=1)


def ostrakon_asked(companion: Companion, votes: str = "buttons") -> None:
    table = companion.table
    table.new_game("ostrakon", {"players": 6, "votes": votes}, NAMES, seed=1)
    running = table.running
    assert running is not None
    table.submit(Ask(running.state.asker))


def ostrakon_laid(companion: Companion) -> None:
    ostrakon_asked(companion, votes="camera")
    companion.table.submit(VotesLaid())


def game_night(companion: Companion) -> None:
    companion.table.clock = HandClock()  # no sand runs out during a test
    companion.table.new_game("night", {"players": 3}, NAMES[:3], seed=1)


def a_turn_timed(companion: Companion) -> None:
    game_night(companion)
    companion.table.submit(StartTimer(0, 60))


def a_turn_paused(companion: Companion) -> None:
    a_turn_timed(companion)
    companion.table.pause_hourglass()


HOST_ROUTES = [
    # ends the prepared game (the journal's first) on purpose: a new one over it is confirmed
    Route(
        "POST",
        "/api/games",
        {"game": "ostrakon", "options": {"players": 5}, "replace": 1},
        resistance,
    ),
    Route("POST", "/api/press", {"seat": 0, "button": "A"}, resistance),
    Route("POST", "/api/act", {"kind": "vote", "seat": 0, "white": True}, ostrakon_asked),
    Route("POST", "/api/throw/read", {}, oraklos),
    Route("POST", "/api/tessons/read", {}, ostrakon_laid),
    Route("GET", "/api/record", None, resistance),
    Route("POST", "/api/host/seats/redeal", {"confirm": True}, resistance),  # every seat's link
    Route("POST", "/api/host/seats/1/redeal", {}, resistance),  # a new link for one seat
    Route("GET", "/api/host/seats", None, resistance),  # the seats' links: each one is a seat
    Route("POST", "/api/dice/read", {}, game_night),  # the generated camera throws pip dice
    Route("POST", "/api/hourglass/pause", {}, a_turn_timed),
    Route("POST", "/api/hourglass/resume", {}, a_turn_paused),
    Route("POST", "/api/power/off", {"confirm": True}, resistance),  # the table stops playing
    Route("GET", "/api/host/address", None, resistance),
    Route("POST", "/api/games/rematch", {"game_id": 1, "request": "one-tap"}, resistance_over),
    Route("POST", "/api/host/undo", {"seq": 1}, ostrakon_asked),  # takes the question back
]
POSTS = [r for r in HOST_ROUTES if r.method == "POST"]


def prepared(companion: Companion, route: Route) -> dict[str, Any]:
    route.prepare(companion)
    assert companion.narrator.wait_idle(10)  # the opening night, said and done
    return table_now(companion)


def table_now(companion: Companion) -> dict[str, Any]:
    """What a change would change: the public snapshot and the journal's record."""
    journal = companion.table.journal
    latest = journal.latest_game()
    return {
        "snapshot": companion.table.snapshot(),
        "game": None if latest is None else latest.id,
        "actions": [] if latest is None else journal.actions(latest.id),
    }


def error(answer: Any) -> str:
    return str(answer.get_json()["error"])


# -- which routes are the host's ------------------------------------------------------------------


def test_every_post_route_is_a_host_route_or_the_login_itself(companion: Companion) -> None:
    """A POST route added later is the host's by default (the guard refuses unless listed as
    open); this list keeps the tests below complete."""
    posts = {
        rule.rule for rule in companion.app.url_map.iter_rules() if "POST" in (rule.methods or ())
    }
    routes = companion.app.url_map.bind("localhost")
    tested = {routes.match(r.path, method="POST", return_rule=True)[0].rule for r in POSTS}
    seats = {"/api/seat/<token>/press", "/api/seat/<token>/act"}  # tests/test_phone_seats.py
    reads = {"/api/eleusis/check"}  # host only, changes nothing: tests/test_eleusis_web.py
    sessions = {"/api/host/logout-others"}  # ends host sessions only: tested above
    assert posts == tested | {"/host/login", "/host/logout"} | seats | reads | sessions


# -- refused without a session, without the token, from another site ------------------------------


@pytest.mark.parametrize("route", HOST_ROUTES, ids=str)
def test_a_host_route_without_a_session_is_refused_and_changes_nothing(
    companion: Companion, route: Route
) -> None:
    before = prepared(companion, route)
    visitor = Browser(companion)
    visitor.open_host()  # a token for the login form, but no session
    answer = visitor.send(route)
    assert answer.status_code == 401
    assert LOGIN_NEEDED in error(answer)
    assert table_now(companion) == before


@pytest.mark.parametrize("route", POSTS, ids=str)
@pytest.mark.parametrize("token", ["", "not-the-token"], ids=["no token", "wrong token"])
def test_a_host_post_without_its_csrf_token_is_refused_and_changes_nothing(
    companion: Companion, route: Route, token: str
) -> None:
    before = prepared(companion, route)
    answer = host(companion).send(route, token=token)
    assert answer.status_code == 403
    assert WRONG_TOKEN in error(answer) and "reload the host page" in error(answer)
    assert table_now(companion) == before


def test_the_token_of_another_session_is_refused(companion: Companion) -> None:
    route = HOST_ROUTES[1]
    before = prepared(companion, route)
    first, second = host(companion), host(companion)
    assert first.token != second.token
    assert first.send(route, token=second.token).status_code == 403
    assert table_now(companion) == before


@pytest.mark.parametrize("route", HOST_ROUTES, ids=str)
def test_a_host_route_with_a_session_and_its_token_is_accepted(
    companion: Companion, route: Route
) -> None:
    before = prepared(companion, route)
    answer = host(companion).send(route, Origin="http://localhost")
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)
    if route.method == "POST":
        assert table_now(companion)["snapshot"]["revision"] > before["snapshot"]["revision"]
    elif route.path == "/api/record":
        assert answer.mimetype == "application/x-ndjson"


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://localhost:5001"},
        {"Origin": "null"},
        {"Referer": "http://evil.example/page"},
    ],
    ids=["other site", "other port", "null origin", "referer only"],
)
def test_a_post_from_another_origin_is_refused_even_with_session_and_token(
    companion: Companion, headers: dict[str, str]
) -> None:
    route = HOST_ROUTES[1]
    before = prepared(companion, route)
    answer = host(companion).send(route, **headers)
    assert answer.status_code == 403
    assert OTHER_SITE in error(answer)
    assert table_now(companion) == before


def test_the_same_origin_is_judged_by_host_and_port() -> None:
    assert same_origin("http://192.168.1.20:5000", None, "192.168.1.20:5000")
    assert same_origin(None, "http://192.168.1.20:5000/host", "192.168.1.20:5000")
    assert same_origin(None, None, "192.168.1.20:5000")  # curl: the token still guards
    assert not same_origin("http://192.168.1.20:5001", None, "192.168.1.20:5000")
    assert not same_origin("http://evil.example", "http://192.168.1.20:5000/", "192.168.1.20:5000")
    assert not same_origin("", None, "192.168.1.20:5000")
    assert not same_origin("http://[::1", None, "[::1]:5000")


# -- logging in and out ---------------------------------------------------------------------------


def test_the_host_page_without_a_session_shows_the_login_form_only(companion: Companion) -> None:
    resistance(companion)
    page = Browser(companion).open_host()
    assert 'id="login-form"' in page and 'name="pin"' in page
    for control in ("new-game", "panel", "o-controls", "os-controls", "press-0-A", "csrf-token"):
        assert f'"{control}"' not in page, control
    assert "<script" not in page


def test_a_link_from_another_site_reloads_the_host_page_and_keeps_the_session(
    companion: Companion,
) -> None:
    """The SameSite=Strict cookie is not sent on a cross-site navigation: the page loads itself
    again (then it is), and answers without a cookie that would replace the host's."""
    resistance(companion)
    browser = host(companion)
    client = companion.app.test_client()  # as the browser sends it: without the cookie
    answer = client.get("/host", headers={"Sec-Fetch-Site": "cross-site"})
    assert answer.status_code == 200
    assert 'http-equiv="refresh" content="0; url=/host"' in answer.get_data(as_text=True)
    assert answer.headers.getlist("Set-Cookie") == []
    assert 'id="new-game"' in browser.client.get("/host").get_data(as_text=True)


def test_a_wrong_pin_is_refused_and_gives_no_session(companion: Companion) -> None:
    browser = Browser(companion)
    answer = browser.login("1357")
    assert answer.status_code == 401
    assert "Wrong PIN" in answer.get_data(as_text=True)
    assert browser.send(HOST_ROUTES[1]).status_code == 401


def test_the_login_form_needs_its_csrf_token(companion: Companion) -> None:
    browser = Browser(companion)
    answer = browser.login(PIN, token="forged")
    assert answer.status_code == 403
    assert browser.send(HOST_ROUTES[1]).status_code == 401


def test_the_pin_may_be_typed_with_spaces_and_by_an_api_client(companion: Companion) -> None:
    assert Browser(companion).login(" ".join(PIN)).status_code == 303
    browser = Browser(companion)
    browser.open_host()
    answer = browser.client.post(
        "/host/login", json={"pin": PIN}, headers={"X-CSRF-Token": browser.token}
    )
    assert answer.status_code == 200 and answer.get_json()["host"] is True
    browser.token = answer.get_json()["csrf"]
    resistance(companion)
    assert browser.send(HOST_ROUTES[1]).status_code == 200


def test_a_login_gives_a_new_token(companion: Companion) -> None:
    browser = Browser(companion)
    browser.open_host()
    before = browser.token
    assert browser.login().status_code == 303
    assert browser.token and browser.token != before


def test_logout_ends_the_session(companion: Companion) -> None:
    resistance(companion)
    browser = host(companion)
    token = browser.token
    assert browser.client.post("/host/logout", data={"csrf_token": token}).status_code == 303
    assert 'id="login-form"' in browser.open_host()
    answer = browser.send(HOST_ROUTES[1], token=token)
    assert answer.status_code == 401


def test_logout_needs_the_csrf_token(companion: Companion) -> None:
    resistance(companion)
    browser = host(companion)
    assert browser.client.post("/host/logout").status_code == 403
    assert browser.send(HOST_ROUTES[1]).status_code == 200  # still logged in


def test_the_host_page_is_never_cached_nor_framed(companion: Companion) -> None:
    for browser in (Browser(companion), host(companion)):
        answer = browser.client.get("/host")
        assert answer.headers["Cache-Control"] == "no-store"
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]


# -- the rate limit -------------------------------------------------------------------------------


def test_five_wrong_pins_a_minute_then_the_client_waits(companion: Companion) -> None:
    clock = Clock()
    companion.lock.limiter.clock = clock
    browser = Browser(companion, "192.0.2.66")
    for _ in range(5):
        assert browser.login("0000").status_code == 401
        clock.now += 5
    answer = browser.login(PIN)  # even the right PIN waits
    assert answer.status_code == 429
    assert answer.headers["Retry-After"] == "35"
    assert "wait 35 seconds, then try again" in answer.get_data(as_text=True)
    assert browser.send(HOST_ROUTES[1]).status_code == 401

    other = Browser(companion, "192.0.2.67")  # another device is not held up
    assert other.login(PIN).status_code == 303

    clock.now += 35  # the first failure is a minute old
    assert browser.login(PIN).status_code == 303


def test_the_limit_counts_failures_in_a_sliding_minute() -> None:
    clock = Clock()
    limiter = LoginLimiter(failures=5, window=60, clock=clock)
    for _ in range(4):
        limiter.failed("a")
    assert limiter.wait("a") == 0
    clock.now += 59
    limiter.failed("a")
    assert limiter.wait("a") == 1
    clock.now += 1
    assert limiter.wait("a") == 0  # the first four have left the window
    limiter.failed("a")
    assert limiter.wait("a") == 0
    limiter.succeeded("a")
    assert limiter.wait("a") == 0


def test_the_limiter_forgets_the_oldest_clients_first() -> None:
    limiter = LoginLimiter(failures=1, window=60, clients=3, clock=Clock())
    for client in "abcd":
        limiter.failed(client)
    assert [limiter.wait(c) > 0 for c in "abcd"] == [False, True, True, True]


# -- the cookie -----------------------------------------------------------------------------------


def session_cookie(answer: Any) -> str:
    cookies = [c for c in answer.headers.getlist("Set-Cookie") if c.startswith("companion_host=")]
    assert len(cookies) == 1, cookies
    return str(cookies[0])


def test_the_session_cookie_is_httponly_and_samesite_strict(companion: Companion) -> None:
    cookie = session_cookie(Browser(companion).login())
    flags = {part.strip().split("=")[0].lower(): part for part in cookie.split(";")}
    assert "httponly" in flags
    assert flags["samesite"].strip() == "SameSite=Strict"
    assert "secure" not in flags  # plain HTTP on the local network by default
    assert "expires" in flags  # kept for the evening when the browser closes


def test_the_session_cookie_is_secure_when_configured(tmp_path: Path) -> None:
    running, _ = make(tmp_path, secure_cookies=True)
    try:
        browser = Browser(running)
        browser.client.environ_base["wsgi.url_scheme"] = "https"  # behind a TLS proxy
        cookie = session_cookie(browser.login())
        assert "Secure" in [part.strip() for part in cookie.split(";")]
    finally:
        running.close()


def test_the_session_key_is_kept_private_and_reused(tmp_path: Path) -> None:
    key = session_secret(tmp_path)
    path = tmp_path / "session.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)
    assert session_secret(tmp_path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_restart_ends_every_host_session(tmp_path: Path) -> None:
    first, _ = make(tmp_path)
    browser = host(first)
    cookie = browser.client.get_cookie("companion_host")
    assert cookie is not None
    first.close()
    second, _ = make(tmp_path)
    try:
        resistance(second)
        again = Browser(second)
        again.client.set_cookie("companion_host", cookie.value)
        again.token = browser.token
        assert again.send(HOST_ROUTES[1]).status_code == 401
        assert again.login().status_code == 303  # the same PIN opens a new session
        assert again.send(HOST_ROUTES[1]).status_code == 200
    finally:
        second.close()


def test_a_cookie_kept_from_before_a_logout_opens_nothing(companion: Companion) -> None:
    resistance(companion)
    browser = host(companion)
    cookie = browser.client.get_cookie("companion_host")
    assert cookie is not None
    thief = Browser(companion, "192.0.2.77")
    thief.client.set_cookie("companion_host", cookie.value)
    thief.token = browser.token
    assert thief.send(HOST_ROUTES[1]).status_code == 200  # a copy works while the session lives
    assert (
        browser.client.post("/host/logout", data={"csrf_token": browser.token}).status_code == 303
    )
    assert thief.send(HOST_ROUTES[1]).status_code == 401
    assert 'id="login-form"' in thief.open_host()


def test_log_out_every_other_device_keeps_this_one(companion: Companion) -> None:
    resistance(companion)
    tablet, phone, laptop = host(companion), host(companion), host(companion)
    answer = tablet.client.post(
        "/api/host/logout-others", json={}, headers={"X-CSRF-Token": tablet.token}
    )
    assert answer.status_code == 200 and answer.get_json()["ended"] == 2
    assert tablet.send(HOST_ROUTES[1]).status_code == 200
    assert phone.send(HOST_ROUTES[1]).status_code == 401
    assert laptop.send(HOST_ROUTES[1]).status_code == 401


def test_log_out_every_other_device_is_the_hosts_alone(companion: Companion) -> None:
    browser = Browser(companion)
    browser.open_host()
    answer = browser.client.post(
        "/api/host/logout-others", json={}, headers={"X-CSRF-Token": browser.token}
    )
    assert answer.status_code == 401


def test_a_session_ends_twelve_hours_after_its_login() -> None:
    clock = Clock()
    sessions = Sessions(hours=12, clock=clock)
    sid = sessions.open()
    clock.now += 12 * 3600 - 1
    assert sessions.live(sid)
    clock.now += 1
    assert not sessions.live(sid) and len(sessions) == 0


def test_a_made_up_session_id_opens_nothing() -> None:
    sessions = Sessions()
    sessions.open()
    assert not sessions.live("made-up") and not sessions.live(None) and not sessions.live(7)


# -- the public side ------------------------------------------------------------------------------


def test_the_public_routes_stay_open_and_carry_the_same_public_snapshot(
    companion: Companion,
) -> None:
    oraklos(companion)
    companion.narrator.wait_idle(10)
    host_browser = host(companion)
    assert host_browser.send(HOST_ROUTES[3]).status_code == 200  # a throw read: a picture
    visitor = companion.app.test_client()
    page = visitor.get("/")
    assert page.status_code == 200
    assert "csrf" not in page.get_data(as_text=True)
    assert visitor.get("/api/throw.jpg").mimetype == "image/jpeg"
    assert visitor.get("/api/panel").status_code == 200
    seen = visitor.get("/api/state")
    assert seen.status_code == 200
    assert seen.get_json() == host_browser.client.get("/api/state").get_json()
    assert seen.get_json() == companion.table.snapshot()
    stream = visitor.get("/api/events", buffered=False)
    try:
        assert stream.status_code == 200
        first = next(part for part in stream.response if b"data:" in part)
    finally:
        stream.close()
    data = first.decode().split("data:", 1)[1].strip()
    assert json.loads(data) == companion.table.snapshot()


# -- the PIN --------------------------------------------------------------------------------------


def _digits_said(pin: str, said: list[str]) -> bool:
    """Whether the PIN's digits are in anything said, as one number or digit by digit."""
    plain = ["".join(ch for ch in line if ch.isdigit()) for line in said]
    return any(pin in digits for digits in plain)


def test_a_generated_pin_is_six_digits_kept_in_the_data_folder_and_never_said(
    tmp_path: Path,
) -> None:
    running, speech = make(tmp_path, host_pin=None)
    try:
        running.narrator.wait_idle(10)
        pin = running.lock.pin
        assert re.fullmatch(r"\d{6}", pin) and running.lock.generated
        assert len(speech.said) == 1 and speech.said[0].startswith("The companion is ready.")
        assert not _digits_said(pin, speech.said) and "PIN" not in speech.said[0]
        assert (tmp_path / "host.pin").read_text().strip() == pin
        assert stat.S_IMODE((tmp_path / "host.pin").stat().st_mode) == 0o600
        assert Browser(running).login(pin).status_code == 303
        assert pin not in json.dumps(running.table.snapshot())
        assert "PIN" not in json.dumps(running.table.snapshot())
    finally:
        running.close()
    again, _ = make(tmp_path, host_pin=None)  # the same PIN at the next start
    try:
        assert again.lock.pin == pin
    finally:
        again.close()


def test_a_pin_from_the_config_is_never_said(tmp_path: Path) -> None:
    running, speech = make(tmp_path, host_pin="97531")
    try:
        running.narrator.wait_idle(10)
        assert not running.lock.generated
        assert len(speech.said) == 1 and not _digits_said("97531", speech.said)
        assert Browser(running).login("97531").status_code == 303
    finally:
        running.close()


def test_a_new_pin_ends_every_host_session_at_once(tmp_path: Path) -> None:
    running, _ = make(tmp_path, host_pin=None)
    try:
        resistance(running)
        old = running.lock.pin
        browser = host_with(running, old)
        assert browser.send(HOST_ROUTES[1]).status_code == 200
        new = stored_pin(tmp_path, renew=True)  # what `companion pin --new` does
        assert new != old or re.fullmatch(r"\d{6}", new)
        assert browser.send(HOST_ROUTES[1]).status_code == 401
        assert Browser(running).login(old).status_code == (401 if new != old else 303)
        assert host_with(running, new).send(HOST_ROUTES[1]).status_code == 200
    finally:
        running.close()


def test_companion_pin_shows_the_kept_pin_and_new_makes_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from appliance.cli import main

    config = write_config(tmp_path, pin=None)
    assert main(["pin", "--config", str(config)]) == 0
    first = re.search(r"Host PIN: (\d{6})", capsys.readouterr().out)
    assert first is not None
    assert main(["pin", "--config", str(config)]) == 0
    assert f"Host PIN: {first.group(1)}" in capsys.readouterr().out
    assert main(["pin", "--new", "--config", str(config)]) == 0
    assert "every host is logged out" in capsys.readouterr().out
    assert (tmp_path / "data" / "host.pin").read_text().strip().isdigit()
    assert stat.S_IMODE((tmp_path / "data" / "host.pin").stat().st_mode) == 0o600


def test_companion_pin_with_the_pin_in_the_config_shows_it_and_will_not_renew(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from appliance.cli import main

    config = write_config(tmp_path, pin="97531")
    assert main(["pin", "--config", str(config)]) == 0
    assert "Host PIN: 97531 (set in the config)" in capsys.readouterr().out
    assert main(["pin", "--new", "--config", str(config)]) == 2
    assert not (tmp_path / "data" / "host.pin").exists()


def host_with(running: Companion, pin: str) -> Browser:
    browser = Browser(running)
    assert browser.login(pin).status_code == 303
    return browser


def test_the_errors_are_in_the_tables_language(companion: Companion) -> None:
    companion.table.new_game("resistance", {"players": 5}, NAMES[:5], language="fr", seed=1)
    answer = Browser(companion).send(HOST_ROUTES[1])
    assert answer.status_code == 401
    assert "connectez-vous sur la page de l'hôte avec le code de l'hôte" in error(answer)


@pytest.mark.slow
def test_a_generated_pin_is_in_no_log_page_journal_or_record_and_companion_pin_shows_it(
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path / "server", pin=None)
    try:
        pin = server.pin  # from `companion pin`, as the host on the Pi reads it
        assert re.fullmatch(r"\d{6}", pin)
        assert "Host PIN: run `companion pin` on this computer" in server.output()
        visitor = server.visitor()
        assert visitor.post("/api/games", {"options": {"players": 5}})[0] == 401
        status, _ = server.post("/api/games", {"options": {"players": 5}, "names": NAMES[:5]})
        assert status == 201
        server.wait_for(lambda s: s["state"]["phase"] == "propose", "the propose phase")
        snapshot = json.dumps(server.state())
        status, record = server.host().get("/api/record")
        assert status == 200
        status, login_page = visitor.host_page()
        data = tmp_path / "server" / "data"
        journal = b"".join(p.read_bytes() for p in data.glob("journal.sqlite3*"))
        for text in (snapshot, journal.decode("latin-1"), str(record), server.output(), login_page):
            assert pin not in text
            assert " ".join(pin) not in text
        assert stat.S_IMODE((data / "session.key").stat().st_mode) == 0o600
        assert stat.S_IMODE((data / "host.pin").stat().st_mode) == 0o600

        kept = server.host()
        server.stop()  # a restart: the same PIN, but every session has ended
        server.start()
        assert server.pin == pin
        assert kept.post("/api/press", {"seat": 0, "button": "A"})[0] == 401
        assert server.press(0, "A")["revision"] > 0  # the host logs in again
    finally:
        server.stop()


@pytest.mark.slow
def test_a_pin_from_the_config_is_not_printed(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server")
    try:
        assert "Host PIN: the one set in the config" in server.output()
        assert PIN not in server.output()
        assert server.post("/api/games", {"options": {"players": 5}})[0] == 201
    finally:
        server.stop()


def test_a_refusal_is_logged_once_a_minute_per_address_at_most() -> None:
    clock = Clock()
    hush = Hush(every=60, clock=clock)
    assert hush.tell("cross-site:192.0.2.9")
    assert not hush.tell("cross-site:192.0.2.9")
    assert hush.tell("cross-site:192.0.2.10")  # another address is told
    clock.now += 60
    assert hush.tell("cross-site:192.0.2.9")


def test_a_flood_of_cross_site_posts_writes_one_log_line(
    companion: Companion, caplog: pytest.LogCaptureFixture
) -> None:
    browser = host(companion)
    for _ in range(50):
        assert browser.send(HOST_ROUTES[1], Origin="http://evil.example").status_code == 403
    lines = [r for r in caplog.records if "from another site" in r.getMessage()]
    assert len(lines) == 1 and "/api/press" in lines[0].getMessage()
