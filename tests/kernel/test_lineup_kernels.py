"""Kernels compiled for a line-up too (analyzer.kernel.driver.lineup_code): the same deals as the generic kernel.

A table whose seats all play one compiled kind gets a kernel with that kind
folded in as a constant (the other strategies' code drops out of the play
loop); a mixed table keeps the kernel compiled for the rules alone.  Either
plays exactly the generic kernel's deals, field by field, with random draws
(random, G8 reshuffle, CZ8 forget_rate) from the same streams.  The kernels are
kept apart by rules and line-up.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from analyzer.core.rules import make_rules
from analyzer.kernel.deal import BY_SEAT
from analyzer.kernel.driver import DEALS, lineup_code, simulate_deals
from analyzer.kernel.jit import Specialised
from analyzer.kernel.lineup import compile_lineup
from analyzer.kernel.params import rule_params
from analyzer.kernel.policies import GREEDY, RANDOM, WEIGHTED
from strategies import get_strategy

CASES: list[tuple[str, int, dict[str, object], str]] = [
    ("czech", 4, {}, "random"),  # the benchmark's case
    ("czech", 3, {"sevens": True, "seven_chain": "accumulate", "last_card_call": True, "forget_rate": 0.3,
                  "reshuffle": "shuffle", "jack_finish_doubles": True}, "greedy"),
]


def _equal(a, b) -> None:
    for f in fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


@pytest.mark.parametrize("variant,players,overrides,kind", CASES, ids=[f"{v}{p}-{k}" for v, p, _, k in CASES])
def test_a_kernel_for_one_kind_plays_the_generic_kernels_deals(variant, players, overrides, kind):
    rules = make_rules(variant, players, overrides)
    strats = [get_strategy(kind)] * players
    gen = simulate_deals(rules, strats, 500, seed=5, threads=1, specialise=False)
    own = simulate_deals(rules, strats, 500, seed=5, threads=2, specialise=True, check=True)
    _equal(gen, own)
    code = lineup_code(compile_lineup(strats)[0])
    assert code == {"random": RANDOM, "greedy": GREEDY}[kind]
    folded = DEALS.kernel(rule_params(rules), 0, True, code)
    assert folded is not None and folded is not DEALS.kernel(rule_params(rules), 0, True)  # the mixed tables' one


def test_lineup_code_is_the_kind_of_a_uniform_table_else_none():
    def code(*names: str) -> int:
        return lineup_code(compile_lineup([get_strategy(n) for n in names])[0])

    assert code("random", "random", "random", "random") == RANDOM
    assert code("weighted", "weighted") == WEIGHTED
    assert code("random", "greedy") is None and code("greedy", "greedy", "random") is None
    assert BY_SEAT not in (RANDOM, GREEDY, WEIGHTED, -1)  # the kernel's code for a mixed table; -1 is deal.PYTHON


def test_kernels_are_kept_apart_by_rules_and_lineup():
    made: list[tuple] = []

    def make(p, lineup=None):
        made.append((p.tobytes(), lineup))
        return ("kernel", len(made))

    spec = Specialised(make, threshold=100)
    czech, prague = rule_params(make_rules("czech", 4)), rule_params(make_rules("prague", 4))
    assert spec.kernel(czech, 60, lineup=RANDOM) is None  # 60 < 100 deals of czech
    random_k = spec.kernel(czech, 40, lineup=RANDOM)  # 100 asked for, whatever the line-ups
    assert random_k == ("kernel", 1) and made[-1] == (czech.tobytes(), RANDOM)
    greedy_k = spec.kernel(czech, 0, lineup=GREEDY)
    assert greedy_k == ("kernel", 2) and made[-1] == (czech.tobytes(), GREEDY)
    assert spec.kernel(czech, 0) == ("kernel", 3) and made[-1] == (czech.tobytes(), None)
    assert spec.kernel(czech, 5, lineup=RANDOM) == random_k and len(made) == 3  # each compiled once
    assert spec.kernel(prague, 0, True, RANDOM) == ("kernel", 4) and made[-1] == (prague.tobytes(), RANDOM)
    assert spec.kernel(prague, 0, True) == ("kernel", 5) and made[-1] == (prague.tobytes(), None)
    assert spec.kernel(prague, 0, False, RANDOM) is None
    run = spec.runner(lambda *a: ("generic", a), czech, 0, None, GREEDY)
    assert run == greedy_k
