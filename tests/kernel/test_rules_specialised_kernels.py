"""Kernels compiled for one rule set (analyzer.kernel.jit.Specialised) play exactly the generic kernel's deals.

The rules folded in as constants change the machine code, never a result:
every field of every deal is equal, for deterministic and random line-ups
(random draws from the same streams), with options that draw random numbers
(CZ8 forget_rate, G8 reshuffle) and on both deck sources.  A process switches
a rule set to its own kernel only once it has asked for enough deals of it.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal
from analyzer.kernel.driver import DEALS, simulate_deals
from analyzer.kernel.jit import Specialised
from analyzer.kernel.matches import simulate_matches
from analyzer.kernel.params import rule_params
from analyzer.kernel.positions import encode_deal, play_from_positions
from strategies import get_strategy

SETS: list[tuple[str, int, dict[str, object]]] = [
    ("czech", 4, {}),  # the benchmark's rules
    ("czech", 3, {"sevens": True, "seven_chain": "accumulate", "last_card_call": True, "forget_rate": 0.3,
                  "reshuffle": "shuffle", "voluntary_draw": True, "jack_finish_doubles": True}),
    ("svinya", 2, {"lone_wild_points": 35, "serve_last_effect": True, "turn_cap": 60}),
]
LINEUP = ["random", "greedy", "weighted", "aggressive", "suit-keeper", "wild-keeper", "wild-dumper"]


def _equal(a, b) -> None:
    for f in fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


@pytest.mark.parametrize("variant,players,overrides", SETS, ids=[f"{v}{p}-{len(o)}" for v, p, o in SETS])
def test_specialised_kernel_plays_the_generic_kernels_deals(variant, players, overrides):
    rules = make_rules(variant, players, overrides)
    for start in (0, 3):
        strats = [get_strategy(LINEUP[(start + q) % len(LINEUP)]) for q in range(players)]
        for kw in ({}, {"deck_rng": "numpy"}):
            args = {"deck_rng": np.random.default_rng(7)} if kw else {}
            gen = simulate_deals(rules, strats, 600, seed=11, threads=1, specialise=False, **args)
            args = {"deck_rng": np.random.default_rng(7)} if kw else {}
            spec = simulate_deals(rules, strats, 600, seed=11, threads=2, specialise=True, check=True, **args)
            _equal(gen, spec)
    assert DEALS.kernel(rule_params(rules), 0, None) is not None  # compiled once, kept for the process


def test_a_rule_set_switches_once_enough_deals_were_asked_for():
    made = []
    spec = Specialised(lambda p: made.append(p.copy()) or "kernel", threshold=100)
    czech, prague = rule_params(make_rules("czech", 4)), rule_params(make_rules("prague", 4))
    assert spec.kernel(czech, 60) is None and spec.kernel(prague, 60) is None  # 60 < 100 each
    assert spec.kernel(czech, 0, specialise=False) is None
    assert spec.kernel(czech, 40) == "kernel" and len(made) == 1 and np.array_equal(made[0], czech)
    assert spec.kernel(czech, 1) == "kernel" and len(made) == 1  # built once
    assert spec.kernel(prague, 0, specialise=True) == "kernel" and len(made) == 2
    assert spec.kernel(prague, 10**9, specialise=False) is None


def test_runner_calls_the_generic_kernel_with_the_rules_first_until_the_rule_set_has_its_own():
    spec = Specialised(lambda p: lambda *args: ("own", args), threshold=100)
    generic = lambda *args: ("generic", args)  # noqa: E731
    czech = rule_params(make_rules("czech", 4))
    run = spec.runner(generic, czech, 60)
    assert run(1, 2)[0] == "generic" and run(1, 2)[1][0] is czech and run(1, 2)[1][1:] == (1, 2)
    assert spec.runner(generic, czech, 40)(1, 2) == ("own", (1, 2))  # 100 asked for: its own kernel, no rules
    assert spec.runner(generic, czech, 0, specialise=False)(3)[0] == "generic"


def test_specialised_matches_and_rollouts_equal_the_generic_ones():
    """G11 matches (CZ2 rotation, CZ7 outcome) and rollouts from mid-deal positions, field by field."""
    rules = make_rules("czech", 3, {"target": 120, "sevens": True, "last_card_call": True, "forget_rate": 0.2})
    strats = [get_strategy(s) for s in ("random", "weighted", "greedy")]
    gen = simulate_matches(rules, strats, 60, seed=3, threads=1, specialise=False)
    spec = simulate_matches(rules, strats, 60, seed=3, threads=2, specialise=True, check=True)
    _equal(gen, spec)
    rules = make_rules("czech", 2)
    pos = encode_deal(Deal.from_deck(rules, shuffled_decks(32, 1, np.random.default_rng(3))[0].tolist())).repeat(500)
    for lineup in (["random"] * 2, ["greedy", "aggressive"]):
        strats = [get_strategy(s) for s in lineup]
        _equal(play_from_positions(rules, strats, pos, seed=4, specialise=False),
               play_from_positions(rules, strats, pos, seed=4, specialise=True))
