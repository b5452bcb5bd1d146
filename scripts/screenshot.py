"""Screenshots of the live pages for the docs, from a real server and headless Chromium.

Starts ``companion serve`` on loopback (the same way as tests/test_page.py), plays a 5-player
Résistance game partway by clicking the host page's virtual button panel (mission 1 succeeds,
mission 2 fails, a squad for mission 3 is rejected, the next one has some votes in), then saves:

    docs/images/table.png        the public page, 1200x1000
    docs/images/host.png         the host page, 1200 wide, whole page (form and button panel)
    docs/images/table-phone.png  the public page on a 412x915 phone (device pixel ratio 2)

Usage: python scripts/screenshot.py [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import (  # noqa: E402
    Player,
    chromium,
    start_game_on_host,
    wait,
    wait_live,
)
from selenium.webdriver.common.by import By  # noqa: E402
from serving import start_server  # noqa: E402

NAMES = ["Adama", "Roslin", "Starbuck", "Apollo", "Boomer"]
SCREEN = {"width": 1200, "height": 1000, "deviceScaleFactor": 1, "mobile": False}
PHONE = {"width": 412, "height": 915, "deviceScaleFactor": 2, "mobile": True}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="companion-shots-") as tmp:
        server = start_server(Path(tmp) / "server")
        driver = chromium(Path(tmp) / "chromium", width=1200, height=1000)
        try:
            driver.get(server.url + "/host")
            wait_live(driver)
            start_game_on_host(driver, NAMES, players=5)
            player = Player(driver, server)
            player.mission()  # mission 1: two successes
            player.mission(cards={2: "B"})  # mission 2: Starbuck's squad, one Fail
            player.propose()
            player.vote({0: "B", 1: "A", 2: "B", 3: "A", 4: "B"})  # rejected
            player.propose()
            player.vote({1: "A", 3: "B"})  # two votes in, three to come
            revision = server.state()["revision"]

            def shoot(
                path: str, name: str, metrics: dict[str, object], whole: bool = False
            ) -> None:
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
                driver.get(server.url + path)
                wait_live(driver)
                wait(
                    driver,
                    lambda d: (
                        d.execute_script("return Number(document.body.dataset.revision)")
                        >= revision
                    ),
                    "the page to show the latest state",
                )
                wait(
                    driver,
                    lambda d: d.find_elements(By.CSS_SELECTOR, "#last-vote .votes"),
                    "the last vote",
                )
                if whole:
                    height = driver.execute_script("return document.documentElement.scrollHeight")
                    driver.execute_cdp_cmd(
                        "Emulation.setDeviceMetricsOverride", {**metrics, "height": height}
                    )
                target = args.out / name
                driver.save_screenshot(str(target))
                shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
                print(f"wrote {shown}")

            shoot("/", "table.png", SCREEN)
            shoot("/host", "host.png", SCREEN, whole=True)
            shoot("/", "table-phone.png", PHONE)
        finally:
            driver.quit()
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
