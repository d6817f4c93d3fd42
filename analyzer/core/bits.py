"""uint64 card-mask helpers for the batch simulator and fast strategies.

Bit ``c`` of a mask stands for card id ``c`` (analyzer.core.cards).  These are pure
functions over arrays; they keep the hot path free of Python loops over deals.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import N_CARDS

U64 = np.uint64
BIT = np.array([1 << c for c in range(N_CARDS)], dtype=np.uint64)
SUIT_MASK = np.array([sum(1 << c for c in range(N_CARDS) if c % 4 == s) for s in range(4)], dtype=np.uint64)
#: RANK_MASK[r] for rank values 0..14 (0, 1 are empty).
RANK_MASK = np.array([sum(1 << c for c in range(N_CARDS) if c // 4 + 2 == r) for r in range(15)],
                     dtype=np.uint64)
#: Card ids 0..51 and, for -1, nothing: RANK_OF[c] / SUIT_OF[c] lookups.
RANK_OF = np.array([c // 4 + 2 for c in range(N_CARDS)], dtype=np.int8)
SUIT_OF = np.array([c % 4 for c in range(N_CARDS)], dtype=np.int8)


def popcount(m: NDArray[np.uint64]) -> NDArray[np.uint8]:
    return np.bitwise_count(m)


def lowest_card(m: NDArray[np.uint64]) -> NDArray[np.int8]:
    """Id of the lowest set bit of each mask; -1 for an empty mask."""
    return np.where(m == 0, -1, single_card(m & (~m + U64(1)))).astype(np.int8)


def single_card(m: NDArray[np.uint64]) -> NDArray[np.int64]:
    """Id of the card of each one-card mask (meaningless for other masks).

    A one-card mask is 2**k, exact as a float64, whose exponent field is k + 1023.
    """
    return (m.astype(np.float64).view(np.int64) >> 52) - 1023


def highest_card(m: NDArray[np.uint64]) -> NDArray[np.int8]:
    """Id of the highest set bit of each mask; -1 for an empty mask.

    float64 rounding could carry the top bit up for masks with many low bits,
    so the estimate is corrected by one step where it overshoots.
    """
    _, e = np.frexp(m.astype(np.float64))
    h = (e - 1).astype(np.int64)
    h = np.clip(h, 0, 63)
    over = (m >> h.astype(np.uint64)) == 0
    h = np.where(over, h - 1, h)
    return np.where(m == 0, -1, h).astype(np.int8)


def chunk_table(values: NDArray[np.integer]) -> NDArray[np.int16]:
    """(4, 8192) sums of ``values`` (one per card id) over every 13-bit chunk of a mask.

    With it, the sum of a per-card value over a mask is four look-ups
    (:func:`mask_points`) whatever the number of distinct values.
    """
    v = np.zeros(4 * _CHUNK, np.int64)
    v[: len(values)] = values
    sub = np.arange(1 << _CHUNK)
    bits = (sub[:, None] >> np.arange(_CHUNK)) & 1  # (8192, 13)
    return np.stack([bits @ v[k * _CHUNK:(k + 1) * _CHUNK] for k in range(4)]).astype(np.int16)


def mask_points(m: NDArray[np.uint64], table: NDArray[np.int16]) -> NDArray[np.int32]:
    """Sum of a per-card value over each mask, from a :func:`chunk_table`."""
    low = U64((1 << _CHUNK) - 1)
    out = table[0][(m & low).astype(np.intp)].astype(np.int32)
    for k in (1, 2, 3):
        out += table[k][((m >> U64(k * _CHUNK)) & low).astype(np.intp)]
    return out


def nth_set_card(m: NDArray[np.uint64], k: NDArray[np.integer]) -> NDArray[np.int64]:
    """Id of the k-th (0-based, from the lowest) set bit of each mask (1-D arrays); -1 where there is none (k < 0
    or k >= the mask's cards).

    Clears the lowest bit k times (at most 64), round ``r`` only on the rows still to clear (k >= r: legal-move
    masks hold few cards and most k are 0 or 1, so the rounds shrink fast and the work is about sum(k) elements, not
    max(k) full passes), then reads the id of the lowest card left from its bit alone with :func:`single_card`; a row
    with no card left reads -1023 there, and the guard is a maximum with -1.
    """
    m = np.asarray(m, dtype=np.uint64)
    k = np.asarray(k, dtype=np.int64)
    kk = k.view(np.uint64)  # a negative k reads as more than any mask's cards: its row clears until it is empty
    cur = m.copy()
    rows = np.flatnonzero(k)
    done = 0
    while rows.size and done < 64:  # 64 rounds empty any mask
        c = cur[rows]
        cur[rows] = c & (c - U64(1))
        done += 1
        rows = rows[kk[rows] > done]
    ids = single_card(cur & (~cur + U64(1)))  # the lowest card's bit alone; an empty row reads -1023
    return np.maximum(ids, -1, out=ids)


_CHUNK = 13


def _chunk_ids(k: int) -> tuple[tuple[int, ...], ...]:
    """The card ids of every 13-bit value at bits 13k..13k+12: each value's are those of the value without its
    highest bit, then that bit's id (so ascending); built once at import, a fifth of the time of testing 13 bits
    of each value."""
    out: list[tuple[int, ...]] = [()] * (1 << _CHUNK)
    for v in range(1, 1 << _CHUNK):
        top = v.bit_length() - 1
        out[v] = out[v ^ (1 << top)] + (top + k * _CHUNK,)
    return tuple(out)


#: CHUNK_TABLES[k][v]: the card ids (a tuple) of the 13-bit value v at bits 13k..13k+12.
CHUNK_TABLES = tuple(_chunk_ids(k) for k in range(4))
_T0, _T1, _T2, _T3 = CHUNK_TABLES


def cards_tuple(m: int) -> tuple[int, ...]:
    """The card ids of one mask (a Python int), lowest first: four 13-bit table look-ups."""
    return _T0[m & 0x1FFF] + _T1[(m >> 13) & 0x1FFF] + _T2[(m >> 26) & 0x1FFF] + _T3[m >> 39]
