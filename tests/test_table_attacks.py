"""A player at the table, with ears and a phone on the same Wi-Fi, attacks ``companion serve``.

Each test is one row of issue 21's table, tried against a real ``companion serve`` on loopback
(``tests/serving.py``). The floods (streams, idle sockets, huge bodies) are in
``tests/test_flood.py``; the seeds and records in ``tests/test_secret_chance.py``.
"""

from __future__ import annotations

import http.client
import json
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import Client, Server, start_server

pytestmark = pytest.mark.slow

NAMES = ["Ada", "Bea", "Cy", "Dan", "Eve"]
DIGITAL = {"players": 5, "identities": "digital"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "server", pin=None)
    try:
        yield running
    finally:
        running.stop()


def start(server: Server, options: dict[str, Any] = DIGITAL) -> None:
    status, answer = server.post("/api/games", {"options": options, "names": NAMES})
    assert status == 201, answer
    server.wait_for(lambda s: s["state"]["phase"] == "propose", "the propose phase")


def raw(server: Server, method: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """A request with headers urllib would not let through as they are (``Host``)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, answer.read().decode("utf-8", "replace")
    finally:
        connection.close()


def test_listening_at_start_up_gives_no_pin(server: Server) -> None:
    pin = server.pin
    said = server.output()
    assert "The companion is ready." in said
    digits = re.sub(r"\D", "", said)
    assert pin not in digits and " ".join(pin) not in said


def test_a_host_sees_no_link_once_its_phone_opened_it_and_a_new_one_is_said_aloud(
    server: Server,
) -> None:
    start(server)
    host = server.host()
    status, seats = host.get("/api/host/seats")
    assert status == 200 and all("url" in seat for seat in seats)
    tokens = {seat["seat"]: seat["url"].rsplit("/seat/", 1)[1] for seat in seats}
    for token in tokens.values():  # every player scans their code
        assert Client(server.url).get(f"/seat/{token}")[0] == 200
    status, seats = host.get("/api/host/seats")
    assert status == 200 and all(seat["opened"] and "url" not in seat for seat in seats)
    for path in ("/host", "/api/host/seats", "/api/host/address", "/api/record", "/api/state"):
        status, body = host.get(path)
        text = body if isinstance(body, str) else json.dumps(body)
        assert status == 200 and not any(token in text for token in tokens.values()), path
        assert not re.search(r'"identity":\s*"(cylons|colons)"', text), path

    status, seats = host.post("/api/host/seats/2/redeal", {})  # a hijack: never silent
    assert status == 200
    assert server.state()["message"] == "Cy's seat link was re-dealt: only the new one works now."
    assert Client(server.url).get(f"/api/seat/{tokens[2]}/state")[0] == 404
    fresh = next(seat for seat in seats if seat["seat"] == 2)
    assert fresh["opened"] is False and fresh["url"].startswith(server.url + "/seat/")
    assert all(seat["opened"] for seat in seats if seat["seat"] != 2)


def test_a_kept_cookie_opens_nothing_after_a_logout_or_a_restart(server: Server) -> None:
    host = Client(server.url)
    assert host.login(server.pin)[0] == 200
    cookie = host.cookie()
    assert cookie is not None
    thief = Client(server.url)
    thief.cookies.set_cookie(cookie)
    thief.csrf = host.csrf
    assert thief.post("/api/press", {"seat": 0, "button": "A"})[0] == 200  # a live session
    assert host.request("POST", "/host/logout", {})[0] == 200
    assert thief.post("/api/press", {"seat": 0, "button": "A"})[0] == 401

    again = Client(server.url)
    assert again.login(server.pin)[0] == 200
    kept = again.cookie()
    assert kept is not None
    server.stop()
    server.start()
    copy = Client(server.url)
    copy.cookies.set_cookie(kept)
    copy.csrf = again.csrf
    assert copy.post("/api/press", {"seat": 0, "button": "A"})[0] == 401


def test_a_refused_post_from_another_site_logs_no_seat_token(server: Server) -> None:
    start(server)
    status, seats = server.host().get("/api/host/seats")
    token = seats[0]["url"].rsplit("/seat/", 1)[1]
    status, _ = Client(server.url).request(
        "POST",
        f"/api/seat/{token}/press",
        {"button": "A"},
        headers={"Origin": "http://evil.example", "X-Seat-Token": token},
    )
    assert status == 403
    assert "from another site" in server.output()
    assert token not in server.output()


@pytest.mark.parametrize("name", ["attacker.example", "attacker.example:5000", "evil.local"])
def test_a_request_naming_another_host_is_refused(server: Server, name: str) -> None:
    for path in ("/api/state", "/host", "/api/host/seats", "/"):
        status, body = raw(server, "GET", path, {"Host": name})
        assert status == 400 and "answers only at its own addresses" in body, path


def test_the_companions_own_names_are_answered(server: Server) -> None:
    for name in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", f"[::1]:{server.port}"):
        assert raw(server, "GET", "/api/state", {"Host": name})[0] == 200, name


def test_seat_links_are_built_from_the_companions_own_address(server: Server) -> None:
    start(server)
    host = Client(f"http://localhost:{server.port}")  # the page loaded by another of its names
    assert host.login(server.pin)[0] == 200
    status, seats = host.get("/api/host/seats")
    assert status == 200
    assert all(seat["url"].startswith(f"http://127.0.0.1:{server.port}/seat/") for seat in seats)


def test_the_journal_and_its_side_files_are_for_the_companions_user_alone(
    server: Server,
) -> None:
    start(server)
    server.press(0, "A")
    data = server.config.parent / "data"
    files = sorted(data.glob("journal.sqlite3*"))
    assert {f.name for f in files} >= {"journal.sqlite3", "journal.sqlite3-wal"}
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


def test_a_journal_left_readable_by_an_older_version_is_made_private(tmp_path: Path) -> None:
    data = tmp_path / "server" / "data"
    data.mkdir(parents=True)
    journal = data / "journal.sqlite3"
    journal.touch(mode=0o644)
    journal.chmod(0o644)
    running = start_server(tmp_path / "server", pin=None)
    try:
        assert stat.S_IMODE(journal.stat().st_mode) == 0o600
    finally:
        running.stop()


@pytest.mark.parametrize(
    ("names", "said"),
    [
        (["x" * 30_000, *NAMES[1:]], "is too long: at most 1000 characters"),
        (["Maximilienne-Antoinette-Ro", *NAMES[1:]], "at most 24 characters: shorten name 1"),
    ],
    ids=["30,000 characters", "25 characters"],
)
def test_a_long_player_name_is_refused_with_a_clear_sentence(
    server: Server, names: list[str], said: str
) -> None:
    before = server.state()
    status, answer = server.post("/api/games", {"options": {"players": 5}, "names": names})
    assert status == 400 and said in answer["error"]
    assert server.state() == before


def test_a_name_of_24_characters_is_accepted(server: Server) -> None:
    names = ["Maximilienne-Antoinette-", *NAMES[1:]]
    status, answer = server.post("/api/games", {"options": {"players": 5}, "names": names})
    assert status == 201 and answer["names"][0] == names[0]
