"""Counter-based random streams: every number depends on (seed, deal index, stream, counter) only.

A stream is splitmix64 (Steele, Lea & Flood 2014): its state is a counter
stepped by the golden-ratio constant and each output is a bijective mix of the
counter, so a stream keyed by (seed, deal, purpose) gives the same numbers on
any thread, in any chunk, in any order.  That is what makes results depend on
the seed and the deal index alone.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from analyzer.kernel.jit import inner
from analyzer.kernel.state import RING

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

    analyzer.core.streams.deal_key, the key the rules engine gives the same
    deal, so the options' draws agree deal by deal.
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


#: room for one shuffle's draws: a segment of at most RING cards, in whole vectors of 8
DRAWS = (RING + 7) & ~7


@intrinsic
def stack_words(typingctx, n):  # numba's intrinsic protocol
    """An int64 array of ``n`` (a constant) words on the calling kernel's stack: scratch that costs no
    allocation per call and no argument (its contents start undefined)."""
    if not isinstance(n, types.IntegerLiteral):
        return None
    size = n.literal_value
    arrty = types.Array(types.int64, 1, "C")

    def codegen(context, builder, signature, args):
        ary = context.make_array(arrty)(context, builder)
        data = cgutils.alloca_once(builder, ir.IntType(64), size=size)
        intp = context.get_value_type(types.intp)
        populate_array(ary, data=data, shape=[intp(size)], strides=[intp(8)], itemsize=intp(8), meminfo=None)
        return ary._getvalue()
    return arrty(n), codegen


@inner
def fisher_yates_draws(s: np.uint64, count: int, draws: np.ndarray) -> None:
    """``draws[t]``: the index ``int(next_float * (i + 1))`` of Fisher-Yates step ``i = count - 1 - t``
    (0 <= t < count - 1), the draws that follow the counter ``s``.

    The draws do not depend on each other (counter + t * GOLDEN), so they are
    computed apart from the swaps, in whole vectors (the loop runs on to a
    multiple of 8, the extra lanes unused): the swaps then never wait on a
    draw.  :func:`scaled`'s rare float case is taken for the whole shuffle
    when any draw needs it.
    """
    edge: bool | np.bool_ = False
    for t in range((count + 7) & ~7):
        prod = np.int64(mix(s + GOLDEN * np.uint64(t + 1)) >> np.uint64(11)) * (count - t)
        draws[t] = prod >> np.int64(53)
        edge |= (prod & MASK53) > EDGE53
    if edge:
        for t in range(count - 1):
            draws[t] = scaled(np.int64(mix(s + GOLDEN * np.uint64(t + 1)) >> np.uint64(11)), count - t)


@inner
def swap_steps(ring: np.ndarray, start: int, count: int, size: int, draws: np.ndarray, wrapped: bool) -> None:
    """The swaps of :func:`shuffle_segment`; ``wrapped``: the segment runs past ``size`` (positions mod ``size``).

    A constant ``wrapped`` compiles each case without the other's tests: the
    wrap tests on every swap cost the deck shuffle a third of its time.
    """
    for t in range(count - 1):  # unsigned positions: no negative-index wrap on the swaps' path
        a = np.uint64(start + count - 1 - t)
        b = np.uint64(start + draws[t])
        if wrapped:  # no division: start < size and i, j < count <= size
            if a >= size:
                a -= np.uint64(size)
            if b >= size:
                b -= np.uint64(size)
        ring[a], ring[b] = ring[b], ring[a]


@inner
def shuffle_segment(ring: np.ndarray, start: int, count: int, size: int, state: np.ndarray, slot: int) -> None:
    """Fisher-Yates over ``count`` ring entries from ``start`` (positions taken mod ``size``), drawing from the
    stream whose counter is ``state[slot]``: all draws first (:func:`fisher_yates_draws`), then the swaps."""
    if count < 2:
        return
    draws: np.ndarray = stack_words(DRAWS)  # type: ignore[call-arg]  # typingctx is numba's
    s = state[slot]
    fisher_yates_draws(s, count, draws)
    if start + count <= size:
        swap_steps(ring, start, count, size, draws, False)
    else:
        swap_steps(ring, start, count, size, draws, True)
    state[slot] = s + GOLDEN * np.uint64(count - 1)
