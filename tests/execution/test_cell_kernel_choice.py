"""Which kernel a cell's deals play on: a big cell, or one whose kernel compiled for its rules is in the
cache already, gets that kernel from its first chunk; the numbers are the same either way."""

from __future__ import annotations

import pandas as pd

from analyzer.core.rules import make_rules
from analyzer.execution import executor, lineup
from analyzer.execution.experiment import single_cell
from analyzer.execution.play import play_cell
from analyzer.kernel import serve
from analyzer.kernel.driver import simulate_deals
from strategies import get_strategy

#: tests/kernel/test_rules_specialised_kernels.py's svinya rules and a mixed table: the kernel compiled for them is shared
SVINYA = ("svinya", 2, {"lone_wild_points": 35, "serve_last_effect": True, "turn_cap": 60})


class _Lowest:
    """A Python strategy: its cell's deals play on the pause kernel."""

    name = "lowest"

    def choose(self, view, rng):
        return min(view.legal), None


def test_a_big_cell_asks_for_the_kernel_of_its_rules_from_its_first_chunk_with_the_same_numbers(monkeypatch):
    rules = make_rules(*SVINYA)
    cell = single_cell(rules, ["random", "greedy"], n=3000, chunk_size=1000)
    strats = lineup.build(cell.lineup, get_strategy)
    monkeypatch.setattr(executor, "special_in_cache", lambda *a: False)
    monkeypatch.setattr(executor, "BIG_CELL", 10**9)
    assert executor.cell_specialise(cell, strats) is None  # small, not in the cache: the kernel's own rule
    asked: list[object] = []
    real = serve.simulate_chunk
    monkeypatch.setattr(serve, "simulate_chunk", lambda *a, **k: asked.append(k["specialise"]) or real(*a, **k))
    small, _ = play_cell(cell, seed=5)
    monkeypatch.setattr(executor, "BIG_CELL", 3000)
    assert executor.cell_specialise(cell, strats) is True
    big, _ = play_cell(cell, seed=5)
    assert asked == [None] * 3 + [True] * 3
    for name in small:
        pd.testing.assert_frame_equal(small[name], big[name])
    matches = single_cell(make_rules("czech", 2, {"target": 50}), ["random"], unit="match", n=10**9)
    assert executor.cell_specialise(matches, strats) is None  # matches: the kernel's own rule


def test_the_kernel_compiled_for_a_rule_set_is_found_in_the_cache_without_loading_it(monkeypatch):
    from analyzer.kernel import driver
    from analyzer.kernel.pause import ADVANCE

    for table in (driver.DEALS, ADVANCE):  # what this process has looked up already, forgotten
        monkeypatch.setattr(table, "_cached", {})
    rules = make_rules(*SVINYA)
    strats = [get_strategy("random"), get_strategy("greedy")]
    simulate_deals(rules, strats, 10, 1, threads=1, specialise=True)  # compiled or loaded: in the cache now
    assert executor.special_in_cache(rules, strats)
    cell = single_cell(rules, ["random", "greedy"], n=100)
    assert executor.cell_specialise(cell, strats) is True  # a small cell too: loading it costs what the generic does
    never = make_rules("czech", 5, {"turn_cap": 77})  # no test compiles a kernel for these rules
    assert not executor.special_in_cache(never, [get_strategy("greedy")] * 5)
    assert not executor.special_in_cache(never, [_Lowest()] + [get_strategy("greedy")] * 4)  # the pause kernel's
    assert executor.cell_specialise(single_cell(never, ["greedy"], n=100), [get_strategy("greedy")] * 5) is None


def test_duplicate_decks_play_on_the_kernel_compiled_for_the_rules_when_it_is_in_the_cache(monkeypatch):
    """durak compare's decks (executor.play_decks): the same deals on either kernel."""
    import numpy as np

    from analyzer.core.cards import shuffled_decks
    from analyzer.kernel import driver

    rules = make_rules(*SVINYA)
    strats = [get_strategy("random"), get_strategy("greedy")]
    decks = shuffled_decks(rules.deck_size, 200, np.random.default_rng(3))
    ss = np.random.SeedSequence(8)
    asked: list[object] = []
    real = driver.simulate_deals
    monkeypatch.setattr(driver, "simulate_deals", lambda *a, **k: asked.append(k.get("specialise")) or real(*a, **k))
    for ready in (False, True):
        monkeypatch.setattr(executor, "special_in_cache", lambda *a, ready=ready: ready)
        got = executor.play_decks(rules, strats, decks, ss)
        if not ready:
            plain = got
    assert asked == [True]  # not ready: serve's own call of the kernel for any rules
    for name in ("points", "winner", "loser", "turns", "wild_held", "end"):
        assert np.array_equal(getattr(plain, name), getattr(got, name)), name
