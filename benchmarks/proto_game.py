"""A comparator for ``durak bench``: a minimal four-player shedding game, written straight in numba.

What a user's command should approach: a plain numba kernel of a simpler game,
with no rules as data, no strategies, no chunks and no tables.  It answers
"how fast can a shedding game run here, now", so the end-to-end rows of the
bench (``durak simulate`` as a user runs it) are read against it in the same
sitting (:mod:`analyzer.execution.bench_e2e`, which loads this file from a source checkout:
it is the project's own speed-study apparatus, not part of the installed package).

The game (not one of ours): 32 cards (4 suits x 8 ranks), five to each of four
players, one face up.  A player plays a card of the top card's suit or rank,
chosen uniformly among those he holds; with none he draws one (the pile,
but its top, is turned over when the talon is empty) and the turn passes.  The
first to empty his hand wins; the one holding the most rank points loses (a
tie: the earliest seat).  Deals end at 400 turns (capped, counted apart).
Hands are 64-bit masks with the kernel's bit helpers (one ``pdep`` picks a card); every deal has its own splitmix64 stream keyed by
(seed, deal), so results do not depend on threads.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from analyzer.kernel import _cache  # noqa: F401 — sets numba's cache folder before numba compiles anything
from analyzer.kernel.bitops import lowest, nth, popcount
from analyzer.kernel.driver import run_blocks

PLAYERS = 4
HAND = 5
CARDS = 32
CAP = 400
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(s: np.ndarray, k: int) -> int:
    """A uniform integer on [0, k) from the stream counter ``s[0]`` (multiply-shift of 32 random bits)."""
    s[0] += _GOLDEN
    return int(((_mix(s[0]) >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@njit(cache=True, nogil=True)
def play_block(seed: np.uint64, lo: int, hi: int, winner: np.ndarray, loser: np.ndarray, turns: np.ndarray) -> None:
    """Deals ``lo .. hi - 1``: each one's winner (-1 if capped), loser and turns."""
    s = np.zeros(1, np.uint64)
    talon = np.empty(CARDS, np.int64)
    pile = np.empty(CARDS, np.int64)
    one = np.uint64(1)
    hands = np.zeros(PLAYERS, np.uint64)
    suit_mask = np.empty(4, np.uint64)
    rank_mask = np.empty(8, np.uint64)
    for q in range(4):
        suit_mask[q] = np.uint64(0xFF) << np.uint64(8 * q)
    for r in range(8):
        m = np.uint64(0)
        for q in range(4):
            m |= one << np.uint64(8 * q + r)
        rank_mask[r] = m
    for i in range(lo, hi):
        s[0] = _mix(_mix(seed) + np.uint64(i) * _GOLDEN)
        for c in range(CARDS):
            talon[c] = c
        for c in range(CARDS - 1, 0, -1):  # Fisher-Yates
            j = _below(s, c + 1)
            talon[c], talon[j] = talon[j], talon[c]
        for p in range(PLAYERS):
            m = np.uint64(0)
            for k in range(HAND):
                m |= one << np.uint64(talon[CARDS - 1 - p * HAND - k])
            hands[p] = m
        n_talon = CARDS - PLAYERS * HAND - 1
        top = talon[n_talon]
        n_pile = 0
        p = 0
        t = 0
        won = -1
        while t < CAP:
            t += 1
            legal = hands[p] & (suit_mask[top >> 3] | rank_mask[top & 7])
            if legal:
                c = nth(legal, _below(s, popcount(legal)))
                hands[p] &= ~(one << np.uint64(c))
                pile[n_pile] = top
                n_pile += 1
                top = c
                if hands[p] == 0:
                    won = p
                    break
            else:
                if n_talon == 0 and n_pile > 0:  # turn the pile over, shuffled
                    for c in range(n_pile):
                        talon[c] = pile[c]
                    n_talon, n_pile = n_pile, 0
                    for c in range(n_talon - 1, 0, -1):
                        j = _below(s, c + 1)
                        talon[c], talon[j] = talon[j], talon[c]
                if n_talon > 0:
                    n_talon -= 1
                    hands[p] |= one << np.uint64(talon[n_talon])
            p = p + 1 if p + 1 < PLAYERS else 0
        most, lose = -1, 0
        for q in range(PLAYERS):
            pts = 0
            m = hands[q]
            while m:
                pts += (lowest(m) & 7) + 1
                m &= m - one
            if pts > most:
                most, lose = pts, q
        winner[i], loser[i], turns[i] = won, lose, t


def play(n: int, seed: int = 1, threads: int = 1) -> dict[str, np.ndarray | int]:
    """``n`` deals on ``threads`` threads, summed: wins and losses per seat, capped deals, turns."""
    winner = np.empty(n, np.int8)
    loser = np.empty(n, np.int8)
    turns = np.empty(n, np.int32)
    key = np.uint64(seed & ((1 << 64) - 1))
    run_blocks(lambda a, b: play_block(key, a, b, winner, loser, turns), 0, n, threads)
    return {"wins": np.bincount(winner[winner >= 0], minlength=PLAYERS), "losses": np.bincount(loser, minlength=PLAYERS),
            "capped": int((winner < 0).sum()), "turns": int(turns.sum(dtype=np.int64))}


def turns_per_deal(n: int) -> float:
    """The comparator's mean turns a deal (its deals are shorter than the analyzer's games: a per-turn ratio)."""
    return int(play(n, seed=1)["turns"]) / n


def rates(n: int, threads: int, repeats: int) -> tuple[list[float], list[float], list[float]]:
    """Deals per second of ``repeats`` runs on one thread (CPU time, and wall time as a command's figure is) and on
    ``threads`` (wall time of ``threads * n`` deals, a run as long as the one-thread run), alternating; the first
    call (compile or load) apart."""
    play(100, seed=0)
    one, one_wall, every = [], [], []
    for _ in range(repeats):
        c, t = time.process_time(), time.perf_counter()
        play(n, seed=1, threads=1)
        one.append(n / (time.process_time() - c))
        one_wall.append(n / (time.perf_counter() - t))
        t = time.perf_counter()
        play(threads * n, seed=2, threads=threads)
        every.append(threads * n / (time.perf_counter() - t))
    return one, one_wall, every
