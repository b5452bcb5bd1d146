"""Synthesized lines kept on disk, so that a line whose words never change is synthesized once
per voice: ``<folder>/<voice key>/<sha256 of the settings and the text>.wav``.

Only fixed lines are kept (the caller decides which): what the companion says is public, but a
line with names in it is of one evening only. A cache that cannot be written (a full or
read-only disk) costs time, never a line: the line is played from memory and the failure is
logged once.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


class WavCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._write_failed = False

    def path(self, voice: str, settings: str, text: str) -> Path:
        name = hashlib.sha256(f"{settings}\n{text}".encode()).hexdigest()
        return self.folder / voice / f"{name}.wav"

    def get(self, voice: str, settings: str, text: str) -> bytes | None:
        try:
            return self.path(voice, settings, text).read_bytes()
        except OSError:
            return None

    def put(self, voice: str, settings: str, text: str, wav: bytes) -> None:
        """Written whole or not at all: a power cut never leaves half a line to be played."""
        path = self.path(voice, settings, text)
        part = path.with_name(f".{path.name}.{os.getpid()}.part")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            part.write_bytes(wav)
            part.replace(path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                part.unlink(missing_ok=True)
            if not self._write_failed:
                self._write_failed = True
                log.warning(
                    "the voice cache %s cannot be written (%s): lines are synthesized each time",
                    self.folder,
                    exc,
                )

    def count(self) -> int:
        return sum(1 for _ in self.folder.glob("*/*.wav"))
