"""Screenshots of every page of every title at phone, tablet and TV sizes, into docs/screenshots/.

The same walk as the accessibility test (tests/page_walk.py): each title started on a real
``companion serve`` on loopback, its public, host and seat pages and the login page opened in
headless Chromium at 360x740 (phone), 1024x768 (tablet) and 1920x1080 (TV), each shot as a whole
page (JPEG), and its TV mode (``/tv``, one 1920x1080 screen: ``TITLE-tvmode.jpg``). A title
with a later moment (``page_walk.advance``: Résistance after a mission,
Ostrakon after a few questions) is shot then; the login page once, since it is the same for every
title.

Usage: .venv/bin/python tools/page_screenshots.py [--out DIR] [--only TITLE ...]
"""

from __future__ import annotations

import argparse
import base64
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import chromium, wait  # noqa: E402
from page_walk import CAMERA, SIZES, TITLES, Size, resize, settle, walk  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from serving import start_server  # noqa: E402

QUALITY = 40  # JPEG quality: legible text, small files
TALLEST = 2400  # px: a longer page is cut there


def shoot(driver: WebDriver, size: Size, target: Path) -> None:
    """The whole page at ``size``'s width, as a JPEG."""
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    resize(driver, size, height=min(max(height, size.height), TALLEST))
    settle(driver)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "jpeg", "quality": QUALITY})
    target.write_bytes(base64.b64decode(shot["data"]))
    resize(driver, size)
    print(f"wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    keys = [t.key for t in TITLES]
    parser.add_argument("--only", nargs="+", choices=keys, help="shoot these titles only")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    chosen = [t for t in TITLES if not args.only or t.key in args.only]
    with tempfile.TemporaryDirectory(prefix="companion-screens-") as tmp:
        server = start_server(Path(tmp) / "server", camera=CAMERA)
        try:
            driver = chromium(Path(tmp) / "chromium")
            try:
                login_done = False
                for title in chosen:
                    for _moment, page, size in walk(driver, server, title):
                        if page == "login":
                            if login_done:
                                continue
                            shoot(driver, size, args.out / f"login-{size.name}.jpg")
                            continue
                        # a later moment (when the title has one) overwrites the start's
                        shoot(driver, size, args.out / f"{title.key}-{page}-{size.name}.jpg")
                    login_done = True
                    driver.get(server.url + "/tv")  # at the title's last moment
                    tv = next(s for s in SIZES if s.name == "tv")
                    resize(driver, tv)
                    wait(
                        driver,
                        lambda d: d.execute_script("return document.body.dataset.live") == "yes",
                        "the TV page",
                    )
                    settle(driver)
                    shoot(driver, tv, args.out / f"{title.key}-tvmode.jpg")
            finally:
                driver.quit()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
