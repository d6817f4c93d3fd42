"""Kernel digests: the compiled kernel's seeded deals, pinned (speed work keeps the kernel bit-identical).

tests/engine/test_golden_digests.py pins the rules engine's game; these pin the kernel's own
random streams on top of it: the deck shuffle (own stream per deal), random's
draws, the options that draw (CZ8 forget_rate, G8 reshuffle) and matches
(G11).  Every field of every deal is hashed.  A change that is *meant* to
change the kernel's numbers (new streams) replaces these strings in the same
commit, saying why; any other change that moves one is a regression.
"""

from __future__ import annotations

import hashlib
from dataclasses import fields

import numpy as np
import pytest

from analyzer.core.rules import make_rules
from analyzer.kernel.driver import simulate_deals
from analyzer.kernel.matches import simulate_matches
from strategies import get_strategy

CASES: dict[str, tuple[str, int, dict[str, object], tuple[str, ...]]] = {
    "czech4-random": ("czech", 4, {}, ("random",) * 4),
    "czech4-mixed": ("czech", 4, {}, ("greedy", "weighted", "random", "aggressive")),
    "prague4-random": ("prague", 4, {}, ("random",) * 4),
    "svinya2-random": ("svinya", 2, {}, ("random", "wild-dumper")),
    "czech3-options": ("czech", 3, {"sevens": True, "seven_chain": "accumulate", "last_card_call": True,
                                    "forget_rate": 0.3, "reshuffle": "shuffle", "voluntary_draw": True},
                       ("random", "suit-keeper", "wild-keeper")),
}
DIGESTS = {
    "czech4-random": "6d2eafdc89faceaf",
    "czech4-mixed": "fe8014a487d3e808",
    "prague4-random": "06b97397bce4c9be",
    "svinya2-random": "b4cba12f685d300d",
    "czech3-options": "93e2ea1907141027",
}


def kernel_digest(variant: str, players: int, options: dict[str, object], lineup: tuple[str, ...]) -> str:
    rules = make_rules(variant, players, options)
    strats = [get_strategy(s) for s in lineup]
    h = hashlib.sha256()
    deals = simulate_deals(rules, strats, 3000, seed=123, first=5, threads=1, specialise=False)
    matches = simulate_matches(make_rules(variant, players, {**options, "target": 100}), strats, 100, seed=9,
                               threads=1, specialise=False)
    for res in (deals, matches):
        for f in fields(res):
            if f.name == "cards_left":  # added after these were pinned; the equivalence tests hold it
                continue
            h.update(np.ascontiguousarray(getattr(res, f.name)).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("name", list(CASES))
def test_kernel_digest(name: str) -> None:
    got = kernel_digest(*CASES[name])
    assert got == DIGESTS[name], f"the kernel's deals changed: digest {got} (expected {DIGESTS[name]})"
