"""The kernel's integer forms of its float draws are bit-identical to the floats (issue 12: streams unchanged).

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
from analyzer.kernel.rng import scaled

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

