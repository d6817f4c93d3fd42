"""Counter-based random streams per deal, for the rule options that draw random numbers.

``reshuffle=shuffle`` (G8) and ``forget_rate`` (CZ8 last_card_call) draw from a
stream that belongs to one deal: its numbers are a hash (splitmix64) of the
deal's key and a counter, so they depend on the seed and the deal alone -- not
on the slots, the other deals, or the strategies' own draws.  The rules engine
and the batch simulator use the same functions, so they agree deal by deal
even where the rules draw random numbers (STYLE.md 10).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

_M64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1, _M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def child_seed(ss: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The child ``key`` of ``ss``, numbered as ``ss.spawn`` numbers its children, without spawning
    (``ss`` is left unchanged, so a child is the same however often it is asked for)."""
    return np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, *key))


def mix64(x: int) -> int:
    """splitmix64's finaliser: a 64-bit hash that makes neighbouring counters independent."""
    x &= _M64
    x = ((x ^ (x >> 30)) * _M1) & _M64
    x = ((x ^ (x >> 27)) * _M2) & _M64
    return x ^ (x >> 31)


def deal_key(base: int, job: int, deal_in_match: int = 0) -> int:
    """The stream key of deal ``deal_in_match`` of job ``job`` (a deal, or a match) of a run."""
    return mix64(mix64(base + _GAMMA * (job + 1)) + _GAMMA * (deal_in_match + 1))


def base_key(ss: np.random.SeedSequence) -> int:
    """A run's base key, from its own child of the seed (the play and deck streams stay as they were)."""
    return int(child_seed(ss, 2).generate_state(1, np.uint64)[0])


def uniform(key: int, counter: int) -> float:
    """The stream's number at ``counter``, uniform in [0, 1)."""
    return (mix64(key + _GAMMA * (counter + 1)) >> 11) * 2.0 ** -53


def _mix64_array(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """:func:`mix64` over a uint64 array (numpy's uint64 arithmetic wraps like the masked Python ints)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(_M1)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(_M2)
    return x ^ (x >> np.uint64(31))


def _step(counters: NDArray[np.integer]) -> NDArray[np.uint64]:
    return np.uint64(_GAMMA) * (np.asarray(counters).astype(np.uint64) + np.uint64(1))


def deal_keys(base: int, jobs: NDArray[np.integer], deals_in_match: NDArray[np.integer]) -> NDArray[np.uint64]:
    """:func:`deal_key` over arrays."""
    return _mix64_array(_mix64_array(np.uint64(base) + _step(jobs)) + _step(deals_in_match))


def uniforms(keys: NDArray[np.uint64], counters: NDArray[np.uint64]) -> NDArray[np.float64]:
    """:func:`uniform` over arrays."""
    x = _mix64_array(keys.astype(np.uint64) + _step(counters))
    return (x >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def shuffled(items: list[int], key: int, counter: int) -> tuple[list[int], int]:
    """A Fisher-Yates shuffle of ``items`` from the stream; returns it and the next counter."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = int(uniform(key, counter) * (i + 1))
        counter += 1
        out[i], out[j] = out[j], out[i]
    return out, counter


class DealStream:
    """One deal's stream as an object with a counter (the rules engine's use)."""

    __slots__ = ("key", "counter")

    def __init__(self, key: int) -> None:
        self.key, self.counter = key & _M64, 0

    def random(self) -> float:
        u = uniform(self.key, self.counter)
        self.counter += 1
        return u

    def shuffle(self, items: list[int]) -> list[int]:
        out, self.counter = shuffled(items, self.key, self.counter)
        return out
