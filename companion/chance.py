"""Hidden chance: where every hidden deal and deck order of a game comes from.

The table draws each game's seed from the operating system's CSPRNG (``new_seed``: 256 bits, the
top one set, 255 random) and journals it with the game. The journal stays on the Pi: it replays
the game exactly after a power cut, and nothing else ever carries the seed before the game ends
(records and exports name the draws the table has seen instead, ``companion/record.py``).

Engines stay pure: each hidden order comes from ``draws(seed, label)``, a generator keyed by the
seed and a label naming what it deals (``"resistance:identities"``, ``"ostrakon:reshuffle:2"``).
It is HMAC-SHA256 in counter mode (a PRF keyed by the seed, as in HMAC-DRBG's output), behind
``random.Random``'s interface so that engines keep ``shuffle``, ``sample`` and ``randrange``.
Whatever the table sees of some draws (cards dealt face up, who starts) tells nothing of the
seed nor of any other draw, short of trying 2^255 seeds.

Why the old way had to go: engines drew from ``random.Random(f"...{seed}...")`` (Mersenne Twister,
not a CSPRNG) with seeds below 2^31, so six public draws singled a seed out in a search of hours
on a GPU, and with it every hidden order. *Legacy seeds* (below 2^31: journals written before
this module, possibly of a game still in progress, and the fixed seeds of tests) keep that old
generator, here and nowhere else (``_legacy_key``), so that a game started before an upgrade
resumes after it with the very orders it started with. ``new_seed`` never gives one.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from companion.game import IllegalAction

SEED_BITS = 256
# Options by which a record replayed without its seed names the draws the table saw. A game whose
# seed the table draws never takes them (``Table.new_game``): the host would choose a hidden order.
RECORD_ONLY_OPTIONS = frozenset({"plot_draws", "dealt", "subject_draws", "starters"})
LEGACY_BELOW = 2**31  # seeds drawn before this module: ``secrets.randbelow(2**31)``
_DOMAIN = b"companion/chance/v1\x00"
T = TypeVar("T")


def new_seed() -> int:
    """A new game's seed: 255 bits from the OS's CSPRNG under a set top bit (so a seed from here
    is never below ``LEGACY_BELOW``)."""
    return secrets.randbits(SEED_BITS - 1) | 1 << (SEED_BITS - 1)


def is_legacy(seed: int) -> bool:
    return 0 <= seed < LEGACY_BELOW


def draws(seed: int, label: str) -> random.Random:
    """The generator of the draws named ``label`` in the game seeded ``seed``: the same numbers
    for the same pair, every time (a game replays exactly); unrelated ones for another label."""
    if seed < 0:
        raise ValueError("a game's seed is a natural number")
    if is_legacy(seed):
        return random.Random(_legacy_key(seed, label))
    return Stream(seed, label)


def _legacy_key(seed: int, label: str) -> int | str:
    """What the engines seeded ``random.Random`` with before this module, by label:
    ``"<game>:<seed>:<rest>"`` for ``"<game>:<rest>"`` (Résistance's identities and plot deck,
    Ostrakon's pile, subjects and reshuffles, Eleusis's deal, rule and shuffles), the bare seed
    for Oraklos's deck, ``"<seed>/<n>"`` for game night's n-th "who starts"."""
    game, _, rest = label.partition(":")
    if label == "oraklos:deck":
        return seed
    if game == "night" and rest.startswith("pick:"):
        return f"{seed}/{rest.removeprefix('pick:')}"
    return f"{game}:{seed}:{rest}"


class Stream(random.Random):
    """HMAC-SHA256 in counter mode: block i is HMAC(K, i), K = HMAC(seed, label). A
    ``random.Random`` whose every method draws from ``getrandbits``; it cannot be reseeded, and
    neither its state nor its repr holds the seed."""

    def __init__(self, seed: int, label: str) -> None:
        length = max(1, (seed.bit_length() + 7) // 8)
        self._key = hmac.digest(
            seed.to_bytes(length, "big"), _DOMAIN + label.encode(), hashlib.sha256
        )
        self._blocks = 0
        self._pool = b""
        self.gauss_next = None

    def seed(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a chance stream is keyed by its game's seed and label: no reseeding")

    def getrandbits(self, k: int, /) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        size = (k + 7) // 8
        while len(self._pool) < size:
            self._pool += hmac.digest(self._key, self._blocks.to_bytes(8, "big"), hashlib.sha256)
            self._blocks += 1
        chunk, self._pool = self._pool[:size], self._pool[size:]
        return int.from_bytes(chunk, "big") >> (size * 8 - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53

    def getstate(self) -> tuple[Any, ...]:
        """Where the stream stands (blocks used, bytes left over): no key, no seed."""
        return self._blocks, self._pool

    def setstate(self, state: Any) -> None:
        self._blocks, self._pool = state


def named_draws(data: Mapping[str, Any], option: str, kind: type[T]) -> tuple[T, ...]:
    """Option ``option``: draws the table has seen, in the order drawn, as an exported record
    names them instead of its seed (``companion/record.py``); none by default."""
    value = data.get(option, [])
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, kind) and not isinstance(v, bool) for v in value
    ):
        raise IllegalAction("record_draws_not_a_list", option=option)
    return tuple(value)


def take(deck: list[T], named: Sequence[T], index: int, option: str) -> T:
    """Take the game's ``index``-th draw (from 0) off ``deck``, top first: the card ``named`` names
    for it while that list lasts, wherever it lies in the deck (a record replayed without its
    seed: the deck's contents and size are the game's, its hidden order is not), else the top."""
    if index < len(named):
        card = named[index]
        if card not in deck:
            raise IllegalAction("record_draws_mismatch", option=option, draw=str(card))
        deck.remove(card)
        return card
    return deck.pop(0)


def on_top(deck: Sequence[T], named: Sequence[T], option: str) -> list[T]:
    """``deck`` with the cards ``named`` on top in that order, for a deck never renewed: the same
    draws as ``take`` from the first one."""
    rest = list(deck)
    return [take(rest, named, i, option) for i in range(len(named))] + rest
