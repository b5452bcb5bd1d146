"""Simulated overhead cameras for a laptop: generated scenes instead of a camera or photos.

``GeneratedThrowSource`` shows a generated throw of the Oraklos cubes it was told to expect
(``expect``), the same still scene until told again; ``GeneratedPipSource`` does the same with
ordinary pip dice (``throw``, with re-rolls). Both are a ``GeneratedSource``: a still scene
drawn from the source's ``seed`` and the throw's number (a run replays exactly), and in
``last_truth`` the exact readings (pixels) of the last frame read. ``open_source("generated")``
(``vision.sources``) opens the first; ``vision.throws`` reads both as still sources.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Sequence
from typing import Generic, TypeVar

import numpy as np

from vision.arrays import Image
from vision.frame_source import DEFAULT_RESOLUTION, CameraStopped, FrameSource
from vision.readings import DieReading
from vision.synthetic import COLORS, PIP_COLORS, PipScene, PlacedDie, Scene, cube_scene, pip_scene

SceneT = TypeVar("SceneT", bound=Scene)

MAX_PIP_DICE = 40
"""Most dice in one generated throw of pip dice."""


class GeneratedSource(FrameSource, Generic[SceneT]):
    """A simulated camera showing one generated scene at a time: every ``read`` until the next
    throw gives the same frame (it is still), and ``last_truth`` holds the exact readings
    (pixels) of the last frame read. A subclass draws the scene to show when there is none
    (``_draw``); a throw, under ``_lock``, counts itself in ``_throw`` and replaces ``_scene``
    (None: draw it when it is first read)."""

    _kind = "generated"
    """What ``description`` says before ``:SEED``."""

    def __init__(
        self, seed: int = 0, resolution: tuple[int, int] = DEFAULT_RESOLUTION, *, noise: float = 2.0
    ) -> None:
        self.seed = seed
        self.resolution = (int(resolution[0]), int(resolution[1]))
        self.noise = noise
        self.description = f"{self._kind}:{seed}"
        self.last_truth: tuple[DieReading, ...] = ()
        self._lock = threading.Lock()
        self._throw = 0
        self._scene: SceneT | None = None
        self._closed = False

    def read(self) -> Image:
        with self._lock:
            if self._closed:
                raise CameraStopped(f"{self.description}: the source is closed")
            scene = self._shown()
            self.last_truth = scene.dice
            return scene.image.copy()

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def _shown(self) -> SceneT:
        """The scene shown now; called under the lock."""
        if self._scene is None:
            self._scene = self._draw()
        return self._scene

    @abstractmethod
    def _draw(self) -> SceneT:
        """The scene to show when none is drawn yet."""


class GeneratedThrowSource(GeneratedSource[Scene]):
    """A simulated overhead camera over a green table: no camera and no photos needed.

    ``expect(colors)`` sets the dice of the next throw; every ``read`` until the next ``expect``
    gives the same generated scene (so it is still), and ``last_truth`` holds the exact
    readings (pixels) of the last frame read. Before any ``expect`` the table is empty. Each
    throw is a new scene drawn from ``seed`` and the throw's number, so a run replays exactly.
    The scene's camera changes from throw to throw: readings are in pixels (no calibration).
    ``before()`` is the frame of the same table just before that throw.
    """

    _wanted: tuple[tuple[str, ...], float] = ((), 0.0)
    """The colours of the dice of the throw shown, and the share showing their hole."""

    def expect(self, colors: Sequence[str], holes: float = 0.3) -> None:
        """The next frames show a new throw of dice of these colours, each showing its hole
        with probability ``holes``; no colours is the empty table."""
        wanted = tuple(colors)
        unknown = sorted({c for c in wanted if c not in COLORS})
        if unknown:
            raise ValueError(
                f"no {', '.join(unknown)} dice in a generated throw: use {', '.join(COLORS)}"
            )
        if not 0 <= holes <= 1:
            raise ValueError(f"holes = {holes}: the share of dice showing a hole is 0 to 1")
        with self._lock:
            self._throw += 1
            self._wanted = (wanted, float(holes))
            self._scene = None

    def before(self) -> Image:
        """The frame of the table just before the throw shown: the same table, light and
        camera, the dice still in the cup."""
        with self._lock:
            if self._closed:
                raise CameraStopped(f"{self.description}: the source is closed")
            return self._draw(before=True).image

    def _draw(self, *, before: bool = False) -> Scene:
        colors, holes = self._wanted
        width, height = self.resolution
        return cube_scene(
            _derived_seed(self.seed, self._throw),
            width=width,
            height=height,
            colors=colors,
            holes=holes,
            noise=self.noise,
            before=before,
        )


class GeneratedPipSource(GeneratedSource[PipScene]):
    """A simulated overhead camera over a dice tray with ordinary pip dice (for game night on a
    laptop): no camera and no photos needed.

    ``throw(count)`` throws ``count`` dice of random colours; ``throw(count, reroll)`` throws
    again only the dice at the ``reroll`` indices of the last throw (the same dice: same colours,
    new places and values), the others lie exactly where they were (their top faces the same
    pixel for pixel), so that a reader of re-rolls has something to tell apart. Every ``read``
    until the next throw gives the same scene (it is still), and ``last_truth`` holds the exact
    readings (pixels, value and colour) of the last frame read, in the order of the dice (index
    ``i`` is the same die from throw to throw until thrown again). Before any throw the tray is
    empty. The tray, camera and light are drawn from ``seed`` once; each throw from ``seed`` and
    its number: a run replays exactly. Readings are in pixels (no calibration).
    """

    _kind = "generated pip dice"

    @property
    def _table_seed(self) -> int:
        """The seed of the tray, camera and light: the same for every throw."""
        return _derived_seed(self.seed)

    def throw(self, count: int, reroll: Sequence[int] | None = None) -> None:
        """The next frames show a new throw: ``count`` dice, all thrown when ``reroll`` is None;
        otherwise only the last throw's dice at the ``reroll`` indices are thrown again (and
        new dice added if ``count`` is larger than the last throw, the last ones picked up if
        it is smaller). Raises ``ValueError`` for a count or an index that cannot be."""
        if not 0 <= count <= MAX_PIP_DICE:
            raise ValueError(f"{count} dice: a generated throw has 0 to {MAX_PIP_DICE} dice")
        with self._lock:
            previous = self._shown().placed
            again = set(range(len(previous))) if reroll is None else set(reroll)
            wrong = sorted(i for i in again if not 0 <= i < len(previous))
            if reroll is not None and wrong:
                raise ValueError(
                    f"no die {', '.join(map(str, wrong))} to throw again: the last throw had "
                    f"{len(previous)} dice (indices 0 to {len(previous) - 1})"
                )
            kept = [d for i, d in enumerate(previous[:count]) if i not in again]
            thrown = [i for i in range(count) if i >= len(previous) or i in again]
            # Dice thrown again are the same dice (same colours); a new throw is new dice.
            colors = (
                [] if reroll is None else [previous[i].color for i in thrown if i < len(previous)]
            )
            self._throw += 1
            width, height = self.resolution
            extra = len(thrown) - len(colors)
            if extra:
                colors += list(_random_colors(_derived_seed(self.seed, self._throw, 1), extra))
            scene = pip_scene(
                _derived_seed(self.seed, self._throw),
                len(thrown),
                width,
                height,
                colors=colors,
                keep=kept,
                table_seed=self._table_seed,
                noise=self.noise,
            )
            # pip_scene lists the kept dice first: put every die back at its index.
            order = [i for i in range(count) if i not in thrown] + thrown
            placed: list[PlacedDie | None] = [None] * count
            truth: list[DieReading | None] = [None] * count
            for index, die, reading in zip(order, scene.placed, scene.dice, strict=True):
                placed[index], truth[index] = die, reading
            self._scene = PipScene(
                image=scene.image,
                dice=tuple(d for d in truth if d is not None),
                placed=tuple(d for d in placed if d is not None),
            )

    def _draw(self) -> PipScene:
        """The empty tray (before any throw)."""
        width, height = self.resolution
        return pip_scene(
            _derived_seed(self.seed, 0),
            0,
            width,
            height,
            table_seed=self._table_seed,
            noise=self.noise,
        )


def _derived_seed(*parts: int) -> int:
    return int(np.random.SeedSequence(parts).generate_state(1)[0])


def _random_colors(seed: int, count: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [PIP_COLORS[int(i)] for i in rng.integers(len(PIP_COLORS), size=count)]
