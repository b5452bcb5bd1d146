"""At start-up the companion says it is ready and where its page is; the page answers to its
name on the local network (multicast DNS); the host page shows a QR code of its address.

The name is resolved by another process, over the network (python-zeroconf's own resolver,
multicast on this machine's interface), never from the publisher's memory.
"""

from __future__ import annotations

import io
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from browser import log_in, wait
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import PIN, Server, free_port, host_client

from appliance.address import PageAddress, lan_address
from appliance.wiring import Companion, build
from companion.config import Config
from companion.narration.catalog import Catalog
from voice.speech import ConsoleSpeech
from voice.wav import measure, write_wav

RESOLVE = """\
import sys
from zeroconf import AddressResolverIPv4, IPVersion, Zeroconf
zeroconf = Zeroconf(interfaces=[sys.argv[2]], ip_version=IPVersion.V4Only)
resolver = AddressResolverIPv4(sys.argv[1] + ".")
found = resolver.request(zeroconf, 4000)
print(" ".join(str(a) for a in resolver.ip_addresses_by_version(IPVersion.V4Only)) if found else "")
zeroconf.close()
"""


def resolve(name: str, interface: str) -> str:
    """What another program on the network gets for ``name`` (e.g. "companion.local")."""
    done = subprocess.run(
        [sys.executable, "-c", RESOLVE, name, interface],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.strip()


def said(spoken: io.StringIO) -> list[str]:
    return [line.split("] ", 1)[1] for line in spoken.getvalue().splitlines() if "] " in line]


@pytest.fixture
def address() -> str:
    found = lan_address()
    assert found is not None and not found.startswith("127."), "this machine has no LAN address"
    return found


class OnTheNetwork:
    """A companion listening on every interface, as on the Pi, with a name of its own (so that
    tests running at once never answer for each other)."""

    def __init__(self, tmp_path: Path, name: str, language: str = "en") -> None:
        self.spoken = io.StringIO()
        self.config = Config(
            data_dir=tmp_path / "data",
            host="0.0.0.0",
            port=free_port(),
            language=language,
            pin_factory="mock",
            speech="console",
            network_name=name,
        )
        self.companion: Companion = build(self.config, speech=ConsoleSpeech(self.spoken))

    def settled(self) -> list[str]:
        assert self.companion.page.names is not None
        assert self.companion.page.names.wait(20)
        assert self.companion.narrator.wait_idle(10)
        return said(self.spoken)


@pytest.fixture
def on_the_network(tmp_path: Path) -> Iterator[OnTheNetwork]:
    made = OnTheNetwork(tmp_path, f"companion-{secrets.token_hex(3)}")
    yield made
    made.companion.close()


def test_the_ready_sentence_names_the_page_in_english_and_in_french() -> None:
    on_port_80 = PageAddress("192.168.1.23", 80, local_only=False)
    on_port_5000 = PageAddress("192.168.1.23", 5000, local_only=False)
    en, fr = Catalog("en"), Catalog("fr")
    assert on_port_80.ready_sentence(en, "companion.local") == (
        "The companion is ready. Its page is at companion.local."
    )
    assert on_port_5000.ready_sentence(fr, None) == (
        "Le compagnon est prêt. Sa page est à l'adresse 192.168.1.23, port 5000."
    )
    here = PageAddress("127.0.0.1", 5000, local_only=True)
    assert "on this computer only" in here.ready_sentence(en, None)
    offline = PageAddress(None, 80, local_only=False)
    assert "connect it to the Wi-Fi" in offline.ready_sentence(en, None)
    assert "connectez-le au Wi-Fi" in offline.ready_sentence(fr, None)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_ready_sentence_is_spoken_by_espeak_ng(tmp_path: Path, lang: str) -> None:
    sentence = PageAddress("192.168.1.23", 80, False).ready_sentence(
        Catalog(lang), "companion.local"
    )
    wav = tmp_path / f"ready-{lang}.wav"
    write_wav(sentence, lang, wav)
    loud = measure(wav)
    assert loud.seconds > 2.5 and loud.rms > 0.01


def test_on_loopback_it_says_ready_on_this_computer_and_never_the_pin(tmp_path: Path) -> None:
    spoken = io.StringIO()
    config = Config(data_dir=tmp_path / "data", pin_factory="mock", speech="console", port=5123)
    companion = build(config, speech=ConsoleSpeech(spoken))
    try:
        assert companion.narrator.wait_idle(10)
        lines = said(spoken)
        assert lines[0] == (
            "The companion is ready. Its page opens on this computer only, at 127.0.0.1, port 5123."
        )
        assert len(lines) == 1 and companion.lock.pin not in lines[0]  # the PIN: companion pin
        assert companion.page.names is None  # nothing published from loopback
    finally:
        companion.close()


def test_the_page_answers_to_its_name_on_the_network(
    on_the_network: OnTheNetwork, address: str
) -> None:
    lines = on_the_network.settled()
    name = f"{on_the_network.config.network_name}.local"
    port = on_the_network.config.port
    assert lines[0] == f"The companion is ready. Its page is at {name}, port {port}."
    assert resolve(name, address) == address
    host = host_client(on_the_network.companion.app, on_the_network.companion.lock.pin)
    shown = host.get("/api/host/address").get_json()
    assert shown["urls"] == [f"http://{name}:{port}/", f"http://{address}:{port}/"]
    assert shown["url"] == f"http://{address}:{port}/"


def test_a_name_already_answered_for_is_not_taken(tmp_path: Path, address: str) -> None:
    from zeroconf import IPVersion, ServiceInfo, Zeroconf

    wanted = f"companion-{secrets.token_hex(3)}"
    other = Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only)
    other.register_service(
        ServiceInfo(
            "_http._tcp.local.",
            f"another table ({wanted})._http._tcp.local.",  # unique: tests run at once
            addresses=[bytes([192, 0, 2, 123])],  # another machine's address
            port=80,
            server=f"{wanted}.local.",
        )
    )
    made = OnTheNetwork(tmp_path, wanted)
    try:
        lines = made.settled()
        assert made.companion.page.names.name == f"{wanted}-2.local"
        assert lines[0].startswith(f"The companion is ready. Its page is at {wanted}-2.local")
        assert resolve(f"{wanted}-2.local", address) == address
    finally:
        made.companion.close()
        other.close()


def test_the_name_is_withdrawn_when_the_companion_stops(tmp_path: Path, address: str) -> None:
    made = OnTheNetwork(tmp_path, f"companion-{secrets.token_hex(3)}")
    made.settled()
    name = made.companion.page.names.name
    assert resolve(name, address) == address  # answered while it runs: the resolver hears it
    made.companion.close()  # returns once the name is withdrawn and no longer answered for
    assert resolve(name, address) == ""


def test_the_french_table_is_told_in_french(tmp_path: Path) -> None:
    made = OnTheNetwork(tmp_path, f"compagnon-{secrets.token_hex(3)}", language="fr")
    try:
        lines = made.settled()
        assert lines[0].startswith("Le compagnon est prêt. Sa page est à l'adresse compagnon-")
    finally:
        made.companion.close()


def qr_in(png: bytes) -> str:
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return str(text)


@pytest.mark.slow
def test_the_host_page_shows_a_qr_code_of_the_page_that_a_phone_can_read(
    driver: WebDriver, lan_server: Server, address: str
) -> None:
    # on the network (serve.sh --lan): on loopback the page says why phones cannot open it
    # instead (tests/test_phones_join.py)
    url = f"http://{address}:{lan_server.port}/"
    log_in(driver, lan_server, PIN)
    code = wait(
        driver,
        lambda d: d.find_element(By.CSS_SELECTOR, "#address-qr svg"),
        "the QR code of the page's address",
    )
    links = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#address-links a")]
    assert url in links  # after its .local name, once published
    assert qr_in(code.screenshot_as_png) == url
