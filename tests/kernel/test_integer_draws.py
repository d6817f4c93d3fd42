"""The kernel's integer forms of its float draws are bit-identical to the floats (streams unchanged).

random's card and wild suit (strategies/random_legal.py: floor(u k), then
floor(4 frac)) and the Fisher-Yates index floor(u (i + 1)) are computed from
the 53-bit integer draw times k; the float product differs only where its
rounding crosses a boundary, and there the kernel falls back to the floats.
Checked on random draws and on draws placed right at every boundary.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.rules import make_rules
from analyzer.kernel.params import rule_params
from analyzer.kernel.policies import random_card
from analyzer.kernel.rng import scaled, shuffle_segment

TWO53 = 1 << 53
INV53 = 1.0 / TWO53


def _float_index(bits: int, k: int) -> int:
    return int(float(bits) * INV53 * k)


def _float_card(bits: int, legal: int, wild_rank: int) -> tuple[int, int]:
    x = float(bits) * INV53 * bin(legal).count("1")
    i = int(x)
    card = [c for c in range(64) if legal >> c & 1][i]
    return card, (int((x - i) * 4) if card // 4 + 2 == wild_rank else -1)


def _edge_draws(k: int) -> list[int]:
    """Draws whose product with k lies just below (or on) a multiple of 2**51 (a quarter) or 2**53."""
    out = []
    for q in range(1, 4 * k + 1):
        for t in range(0, 200):
            prod = q * (1 << 51) - t
            if prod % k == 0 and 0 <= prod // k < TWO53:
                out.append(prod // k)
    return out


def test_scaled_is_the_float_index():
    rng = np.random.default_rng(1)
    fallbacks = 0
    for k in range(1, 65):
        draws = [int(b) for b in rng.integers(0, TWO53, 300)] + _edge_draws(k) + [0, TWO53 - 1]
        for b in draws:
            assert scaled(np.int64(b), k) == _float_index(b, k), (b, k)
            fallbacks += (b * k) % TWO53 > TWO53 - 64
    assert fallbacks > 50  # the edge cases reach the float fallback


def test_random_card_is_the_float_choice():
    rules = make_rules("czech", 4)
    p = rule_params(rules)
    rng = np.random.default_rng(2)
    masks = [int(x) for x in rng.integers(1, 1 << 32, 200, dtype=np.int64)] + [(1 << 32) - 1, 1 << 36, 0xF << 36]
    for legal in masks:
        k = bin(legal).count("1")
        for b in [int(x) for x in rng.integers(0, TWO53, 40)] + _edge_draws(k):
            got = random_card(np.int64(b), np.uint64(legal), p)
            assert tuple(got) == _float_card(b, legal, rules.wild_rank), (b, legal)



GOLDEN = 0x9E3779B97F4A7C15
M1, M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
U64 = (1 << 64) - 1


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * M1) & U64
    z = ((z ^ (z >> 27)) * M2) & U64
    return z ^ (z >> 31)


def _unshift(z: int, k: int) -> int:
    """The inverse of z ^ (z >> k) on 64 bits."""
    out, y = z, z
    while y:
        y >>= k
        out ^= y
    return out


def _unmix(z: int) -> int:
    z = _unshift(z, 31)
    z = _unshift((z * pow(M2, -1, 1 << 64)) & U64, 27)
    return _unshift((z * pow(M1, -1, 1 << 64)) & U64, 30)


def _float_fisher_yates(ring: list[int], start: int, count: int, size: int, counter: int) -> int:
    """Fisher-Yates as the floats define it: step i swaps i with int(next_float * (i + 1))."""
    for i in range(count - 1, 0, -1):
        counter = (counter + GOLDEN) & U64
        j = _float_index(_mix(counter) >> 11, i + 1)
        a, b = (start + i) % size, (start + j) % size
        ring[a], ring[b] = ring[b], ring[a]
    return counter


def test_shuffle_segment_is_the_float_fisher_yates():
    """rng.shuffle_segment (all draws first, then the swaps; a segment may wrap round the ring) shuffles as
    the per-step float definition, counter included; also where a draw needs the float case (its integer
    product within 64 of a multiple of 2**53), which the test places at a chosen step."""
    assert _unmix(_mix(12345)) == 12345
    rng = np.random.default_rng(4)
    cases = []
    for _ in range(400):
        size = int(rng.integers(2, 53))
        cases.append((size, int(rng.integers(0, size + 1)), int(rng.integers(0, size)),
                      int(rng.integers(0, 1 << 63))))
    differ = 0
    for count in (32, 36, 52, 5):
        for t in (0, 1, count // 2, count - 2):
            k = count - t
            edge = [b for b in _edge_draws(k) if (b * k) % TWO53 > TWO53 - 64]
            bits = ([b for b in edge if _float_index(b, k) != (b * k) >> 53] or edge)[0]
            differ += _float_index(bits, k) != (bits * k) >> 53
            counter = (_unmix((bits << 11) | 0x5A5) - GOLDEN * (t + 1)) & U64
            cases.append((52, count, 52 - count // 2, counter))
    for size, count, start, counter in cases:
        ring = rng.permutation(52).astype(np.int64)
        want = [int(c) for c in ring]
        want_counter = _float_fisher_yates(want, start, count, size, counter)
        state = np.array([0, counter], np.uint64)
        shuffle_segment(ring, start, count, size, state, 1)
        assert ring.tolist() == want and int(state[1]) == want_counter, (size, count, start)
    assert differ >= 8  # draws where the integer product alone would give the wrong index
