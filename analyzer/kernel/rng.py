"""Counter-based random streams: every number depends on (seed, deal index, stream, counter) only.

A stream is splitmix64 (Steele, Lea & Flood 2014): its state is a counter
stepped by the golden-ratio constant and each output is a bijective mix of the
counter, so a stream keyed by (seed, deal, purpose) gives the same numbers on
any thread, in any chunk, in any order.  That is what makes results depend on
the seed and the deal index alone (issue 12, point 1).
"""

from __future__ import annotations

import numpy as np

from analyzer.kernel.jit import inner

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53

#: stream purpose of the kernel's own deck orders (the play streams are core.streams' deal keys)
DECK_STREAM = 1


@inner
def mix(z: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a bijection of 64-bit words with good avalanche."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@inner
def stream_key(seed: int, index: int, sub: int, purpose: int) -> np.uint64:
    """Starting counter of the stream of deal (or match) ``index``, deal ``sub`` in it, for ``purpose``."""
    k = mix(np.uint64(seed) ^ np.uint64(0x5851F42D4C957F2D))
    k = mix(k + np.uint64(index) * GOLDEN)
    k = mix(k + np.uint64(sub) * _M1)
    return mix(k + np.uint64(purpose) * _M2)


@inner
def deal_key(base: np.uint64, index: int, sub: int) -> np.uint64:
    """The play stream (strategies, forget_rate, reshuffles) of deal ``sub`` of job ``index``.

    analyzer.core.streams.deal_key, the key the numpy simulator and the rules
    engine give the same deal, so the options' draws agree deal by deal.
    """
    return mix(mix(base + GOLDEN * np.uint64(index + 1)) + GOLDEN * np.uint64(sub + 1))


@inner
def next_u64(state: np.ndarray, slot: int) -> np.uint64:
    """Step the counter kept in ``state[slot]`` and return its mixed value."""
    s = state[slot] + GOLDEN
    state[slot] = s
    return mix(s)


@inner
def next_bits53(state: np.ndarray, slot: int) -> np.int64:
    """A uniform integer on [0, 2**53)."""
    return np.int64(next_u64(state, slot) >> np.uint64(11))


@inner
def next_float(state: np.ndarray, slot: int) -> float:
    """A uniform float on [0, 1) with 53 random bits."""
    return float(np.int64(next_u64(state, slot) >> np.uint64(11))) * _INV53  # < 2**53: a signed conversion, exact


#: below 2**53 (the 53-bit draws) and 2**51 (a quarter of one)
MASK53 = np.int64((1 << 53) - 1)
MASK51 = np.int64((1 << 51) - 1)
#: a 53-bit draw times k <= 64 lies within rounding (half an ulp, <= 32) of the next multiple of 2**53
#: (or of 2**51) only above these: there the float product decides
EDGE53 = np.int64((1 << 53) - 64)
EDGE51 = np.int64((1 << 51) - 64)


@inner
def scaled(bits: np.int64, k: int) -> int:
    """``int(u * k)`` for the uniform ``u = bits * 2**-53`` of :func:`next_float` and 1 <= k <= 64, as the
    floats compute it, by one integer product.

    ``u * k`` is ``bits * k`` rounded to 53 bits (by at most 32) and scaled by
    2**-53, exactly; rounding is monotone and every multiple of 2**53 is a
    float, so its integer part is ``(bits * k) >> 53`` unless the product lies
    less than 64 below the next multiple; there (about once in 10**14 draws)
    the float product is computed as before.  Bit-identical to the float form, shorter
    in latency (no conversions on the path to the card played).
    """
    prod = bits * k
    if (prod & MASK53) > EDGE53:
        return int(float(bits) * _INV53 * k)
    return prod >> np.int64(53)  # type: ignore[return-value]  # an int64 in the kernel


@inner
def shuffle_segment(ring: np.ndarray, start: int, count: int, size: int, state: np.ndarray, slot: int) -> None:
    """Fisher-Yates over ``count`` ring entries from ``start`` (positions taken mod ``size``)."""
    s = state[slot]  # the counter in a register: next_float's steps without a store and load per card
    for i in range(count - 1, 0, -1):
        s += GOLDEN
        j = scaled(np.int64(mix(s) >> np.uint64(11)), i + 1)  # int(next_float(state, slot) * (i + 1))
        a, b = start + i, start + j
        if a >= size:  # no division: start < size and i, j < count <= size
            a -= size
        if b >= size:
            b -= size
        ring[a], ring[b] = ring[b], ring[a]
    state[slot] = s
