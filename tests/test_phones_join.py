"""Phones join in one step (issue 23): ``./scripts/serve.sh --lan`` listens on the local network;
on loopback the host page says that phones cannot open it, and why, instead of a QR code of
127.0.0.1; the addresses are readable on their dark card."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import segno
from browser import log_in, wait
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from serving import PIN, ROOT, Server, free_port, host_client, write_config

import appliance.address
from appliance import cli
from appliance.address import lan_address
from appliance.wiring import Companion, build
from companion.config import Config
from companion.narration.catalog import Catalog
from web.app import on_loopback

LOCAL_ONLY = {
    "en": "Phones cannot open this page: the companion listens on this computer only.",
    "fr": "Les téléphones ne peuvent pas ouvrir cette page\u00a0: le compagnon n'écoute que sur "
    "cet ordinateur.",
}


def companion_at(tmp_path: Path, host: str, language: str = "en") -> Companion:
    """A companion built in-process, listening (as configured) on ``host``; no .local name."""
    config = Config(
        data_dir=tmp_path / "data",
        host=host,
        port=free_port(),
        language=language,
        pin_factory="mock",
        speech="console",
        network_name="",  # nothing published: the tests never answer for each other
    )
    return build(config)


def address_json(companion: Companion) -> dict[str, Any]:
    client = host_client(companion.app, companion.lock.pin)
    answer = client.get("/api/host/address")
    assert answer.status_code == 200
    return dict(answer.get_json())


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_on_loopback_the_address_says_phones_cannot_open_it_and_how_to_let_them_in(
    tmp_path: Path, lang: str
) -> None:
    made = companion_at(tmp_path, "127.0.0.1", lang)
    try:
        shown = address_json(made)
    finally:
        made.close()
    assert shown["reachable"] is False
    assert shown["why"].startswith(LOCAL_ONLY[lang])
    assert "./scripts/serve.sh --lan" in shown["why"]
    assert shown["why_label"] == "address_local_only"
    assert shown["qr_svg"] is None and shown["url"] is None and shown["urls"] == []
    assert "127.0.0.1" not in str(shown)


def test_with_no_network_address_it_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(appliance.address, "lan_address", lambda: None)
    made = companion_at(tmp_path, "0.0.0.0")
    try:
        shown = address_json(made)  # the host page itself, opened on this computer
    finally:
        made.close()
    assert shown["reachable"] is False and shown["why_label"] == "address_no_network"
    assert shown["why"] == Catalog("en").text("ui.address_no_network")
    assert "no network address" in shown["why"]
    assert shown["qr_svg"] is None and shown["urls"] == []


def test_on_a_network_address_it_gives_the_qr_code_of_that_address(tmp_path: Path) -> None:
    made = companion_at(tmp_path, "192.0.2.10")  # TEST-NET-1: listening on one address
    try:
        shown = address_json(made)
        url = f"http://192.0.2.10:{made.config.port}/"
    finally:
        made.close()
    assert shown["reachable"] is True
    assert shown["url"] == url and shown["urls"] == [url]
    assert shown["qr_svg"] == segno.make(url, error="m").svg_inline(scale=6)
    assert "why" not in shown


def test_loopback_is_told_from_the_network() -> None:
    for url in (
        "http://127.0.0.1:5000/",
        "http://localhost/",
        "http://[::1]:80/",
        "http://127.0.1.1/",
    ):
        assert on_loopback(url), url
    for url in ("http://192.168.1.23:5000/", "http://companion.local/", "http://[fe80::1]/"):
        assert not on_loopback(url), url


def test_both_catalogs_say_why_with_french_typography() -> None:
    for key in ("ui.address_local_only", "ui.address_no_network"):
        english, french = Catalog("en").text(key), Catalog("fr").text(key)
        assert english != french
        assert "./scripts/serve.sh" in english or "Wi-Fi" in english
        assert not re.search(r"[^\u00a0\u202f][:;?!]", french.replace("./scripts", "")), french


# -- starting it on the network: companion serve --lan, ./scripts/serve.sh --lan -------------------


def test_companion_serve_lan_listens_on_every_interface(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[argparse.Namespace] = []
    monkeypatch.setattr(cli, "_serve", lambda args: seen.append(args) or 0)
    assert cli.main(["serve", "--lan", "--port", "8000"]) == 0
    assert seen[-1].host == "0.0.0.0" and seen[-1].port == 8000
    assert cli.main(["serve"]) == 0
    assert seen[-1].host is None  # the config's: 127.0.0.1 unless it says otherwise
    with pytest.raises(SystemExit):
        cli.main(["serve", "--lan", "--host", "192.0.2.10"])  # one or the other


def serve_sh(*args: str) -> str:
    done = subprocess.run(
        [str(ROOT / "scripts" / "serve.sh"), *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
        env=dict(os.environ, SERVE_DRY_RUN="1"),
    )
    return done.stdout.strip()


def test_serve_sh_lan_runs_companion_serve_lan() -> None:
    assert serve_sh("--lan") == ".venv/bin/companion serve --lan"
    assert serve_sh("--lan", "--port", "8000") == ".venv/bin/companion serve --lan --port 8000"
    assert serve_sh() == ".venv/bin/companion serve"


def test_serve_sh_says_how_to_let_phones_in() -> None:
    script = (ROOT / "scripts" / "serve.sh").read_text(encoding="utf-8")
    assert "./scripts/serve.sh --lan" in script
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "./scripts/serve.sh --lan" in readme


# -- the host page, in a real Chromium -------------------------------------------------------------


def luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: tuple[float, float, float], other: tuple[float, float, float]) -> float:
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# Each visible link's colour, and the background it is drawn on (the first opaque one up).
COLOURS = """
const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
return [...document.querySelectorAll(arguments[0])].filter((a) => a.offsetParent).map((a) => {
  let node = a, back = null;
  while (node && node.nodeType === 1) {
    const colour = rgb(getComputedStyle(node).backgroundColor);
    if (colour.length < 4 || colour[3] > 0) { back = colour.slice(0, 3); break; }
    node = node.parentElement;
  }
  return [a.textContent, rgb(getComputedStyle(a).color).slice(0, 3), back];
});
"""


def link_contrasts(driver: WebDriver, selector: str) -> list[tuple[str, float]]:
    found = driver.execute_script(COLOURS, selector)
    return [(text, contrast(tuple(ink), tuple(back))) for text, ink, back in found]


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_on_loopback_the_host_page_says_why_instead_of_a_qr_code(
    driver: WebDriver, tmp_path: Path, lang: str
) -> None:
    config = write_config(tmp_path / "server")
    config.write_text(f'language = "{lang}"\n' + config.read_text(encoding="utf-8"))
    server = Server(config, free_port()).start()
    try:
        log_in(driver, server, PIN)
        why = wait(
            driver,
            lambda d: (
                d.find_element(By.ID, "address-why").is_displayed()
                and d.find_element(By.ID, "address-why")
            ),
            "the reason phones cannot open the page",
        )
        assert why.text.startswith(LOCAL_ONLY[lang].replace("\u00a0", " "))
        assert "./scripts/serve.sh --lan" in why.text
        assert not driver.find_elements(By.CSS_SELECTOR, "#address-qr svg")  # no QR of 127.0.0.1
        assert not driver.find_elements(By.CSS_SELECTOR, "#address-links a")
        assert not driver.find_element(By.ID, "address-hint").is_displayed()  # no "Scan the code"
        # a link with no colour of its own is readable on a dark card too (not #0000EE)
        driver.execute_script(
            "const a = document.createElement('a'); a.href = '/'; a.textContent = 'plain';"
            "a.className = 'plain-link'; document.getElementById('address').append(a);"
        )
        shown = link_contrasts(driver, "#address a.plain-link")
        assert shown and all(ratio >= 4.5 for _, ratio in shown), shown
        # the console says it too, with the way to let phones in
        assert "Phones cannot open this page" in server.output()
        assert "./scripts/serve.sh --lan" in server.output()
    finally:
        server.stop()


@pytest.mark.slow
def test_on_the_network_the_host_page_shows_the_qr_code_and_readable_links(
    driver: WebDriver, lan_server: Server
) -> None:
    address = lan_address()
    assert address is not None, "this machine has no network address"
    url = f"http://{address}:{lan_server.port}/"
    log_in(driver, lan_server, PIN)
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#address-qr svg"), "the QR code")
    assert not driver.find_element(By.ID, "address-why").is_displayed()
    assert driver.find_element(By.ID, "address-hint").is_displayed()
    links = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#address-links a")]
    assert url in links
    assert f"Phones open {url}" in lan_server.output()
    shown = link_contrasts(driver, "#address-links a")
    assert shown and all(ratio >= 4.5 for _, ratio in shown), shown
    # every other link shown on the host page is readable too (the seats' links, the header's)
    others = link_contrasts(driver, "a")
    assert all(ratio >= 4.5 for _, ratio in others), others
