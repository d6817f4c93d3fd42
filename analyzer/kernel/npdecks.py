"""numpy's deck shuffles, compiled: the decks ``analyzer.core.cards.shuffled_decks`` draws, bit for bit.

Deal ``j`` of a chunk is dealt the ``j``-th row of
``rng.permuted(tile(deck), axis=1)`` (a Fisher-Yates per row, numpy's
``random_interval``: masked rejection on 32-bit draws of PCG64), the decks
``shuffled_decks`` gives the rules engine and the tests from the same
generator.  ``rng.permuted`` costs ~1 µs a deck; this port of PCG64
(O'Neill 2014, XSL-RR output, numpy's 128-bit multiplier and 32-bit buffer)
~0.1 µs, and it leaves ``rng`` in the state numpy would.  :func:`next_deck`
draws one deck; the pause path (analyzer.kernel.pause) calls it as each deal
starts, so no window of decks is stored and read back.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.kernel.jit import inner, outer

_MUL_HI = np.uint64(0x2360ED051FC65DA4)  # numpy's PCG_DEFAULT_MULTIPLIER_128
_MUL_LO = np.uint64(0x4385DF649FCCF645)
_M32 = np.uint64(0xFFFFFFFF)
_U64 = (1 << 64) - 1
# slots of the state array
S_HI, S_LO, INC_HI, INC_LO, HAS32, UINT32 = range(6)


@inner
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product a * b."""
    a_lo, a_hi = a & _M32, a >> np.uint64(32)
    b_lo, b_hi = b & _M32, b >> np.uint64(32)
    lo_lo = a_lo * b_lo
    mid1 = a_hi * b_lo
    mid2 = a_lo * b_hi
    carry = ((lo_lo >> np.uint64(32)) + (mid1 & _M32) + (mid2 & _M32)) >> np.uint64(32)
    return a_hi * b_hi + (mid1 >> np.uint64(32)) + (mid2 >> np.uint64(32)) + carry


@inner
def smear(hi: int) -> np.uint64:
    """The smallest mask 2**k - 1 >= hi (numpy's random_interval)."""
    mask = np.uint64(hi)
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    return mask


@inner
def next_deck(s: np.ndarray, base: np.ndarray, out: np.ndarray) -> None:
    """``out`` (D,): the next row ``permuted(axis=1)`` draws from the generator whose state is ``s`` (advanced);
    the state lives in locals (registers) while the deck is shuffled."""
    d = base.shape[0]
    hi, lo, inc_hi, inc_lo, has32, buf = s[S_HI], s[S_LO], s[INC_HI], s[INC_LO], s[HAS32], s[UINT32]
    zero, one = np.uint64(0), np.uint64(1)
    for c in range(d):
        out[c] = base[c]
    for i in range(d - 1, 0, -1):  # numpy's _shuffle_raw: i from the last down to 1
        mask = smear(i)
        while True:  # random_interval(i): masked rejection on next_uint32
            if has32 != zero:
                has32 = zero
                v = buf
            else:  # PCG64: state = state * mul + inc (mod 2**128); XSL-RR output of the new state
                new_lo = lo * _MUL_LO
                new_hi = _mulhi(lo, _MUL_LO) + hi * _MUL_LO + lo * _MUL_HI
                lo = new_lo + inc_lo
                hi = new_hi + inc_hi + (one if lo < new_lo else zero)
                x = hi ^ lo
                rot = hi >> np.uint64(58)
                word = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
                has32 = one
                buf = word >> np.uint64(32)
                v = word & _M32
            v &= mask
            if v <= np.uint64(i):
                break
        j = np.int64(v)
        out[i], out[j] = out[j], out[i]
    s[S_HI], s[S_LO], s[HAS32], s[UINT32] = hi, lo, has32, buf


@outer
def _decks(s: np.ndarray, base: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` row by row as ``permuted(axis=1)`` does."""
    for r in range(out.shape[0]):
        next_deck(s, base, out[r])


def pcg_state(rng: np.random.Generator) -> NDArray[np.uint64]:
    """The state of ``rng``'s PCG64 as :func:`next_deck` takes it (a copy: write it back with :func:`set_pcg_state`)."""
    st = rng.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"numpy_decks reproduces PCG64 only, not {st['bit_generator']}")
    x, inc = st["state"]["state"], st["state"]["inc"]
    return np.array([x >> 64, x & _U64, inc >> 64, inc & _U64, st["has_uint32"], st["uinteger"]], np.uint64)


def set_pcg_state(rng: np.random.Generator, s: NDArray[np.uint64]) -> None:
    """Leave ``rng`` in the state ``s`` (after :func:`next_deck` drew from it), as numpy's draws would."""
    inc = (int(s[INC_HI]) << 64) | int(s[INC_LO])
    rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": (int(s[S_HI]) << 64) | int(s[S_LO]),
                                                                     "inc": inc},
                               "has_uint32": int(s[HAS32]), "uinteger": int(s[UINT32])}


def numpy_decks(base: NDArray[np.int64], n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """(n, D) the rows of ``shuffled_decks(D, n, rng)`` (as int64), advancing ``rng`` as numpy would."""
    s = pcg_state(rng)
    out = np.empty((n, base.shape[0]), np.int64)
    _decks(s, base, out)
    set_pcg_state(rng, s)
    return out
