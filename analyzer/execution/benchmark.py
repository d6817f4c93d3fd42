"""``durak bench``: deals/second of the simulator and the rules engine, measured in one run.

The machines are shared and noisy, so the figures that matter are the ratios
printed side by side (all cores / one core, fast path / simple path / engine).
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, play_deal
from analyzer.execution.play import CHUNK, play
from analyzer.sim.simulator import simulate_deals

#: Default player counts for the benchmark (issue 3: czech 4 players).
BENCH_PLAYERS = {"czech": 4, "prague": 3, "svinya": 2}


class SimpleOnly:
    """A strategy seen through its simple path only (no choose_batch)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "simple")
        self.choose = inner.choose  # type: ignore[attr-defined]  # bound once: no wrapper call per decision


def _peak_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def engine_rate(rules, n: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    strat = [get_strategy("random")] * rules.players
    decks = shuffled_decks(rules.deck_size, n, rng)
    t0 = time.perf_counter()
    for i in range(n):
        play_deal(Deal.from_deck(rules, decks[i].tolist(), rng=rng), strat, rng)
    return n / (time.perf_counter() - t0)


def simple_rate(rules, n: int, seed: int = 0) -> float:
    s = SimpleOnly(get_strategy("random"))
    t0 = time.perf_counter()
    simulate_deals(rules, [s] * rules.players, n, seed)
    return n / (time.perf_counter() - t0)


def _json_number(x: object) -> object:
    """Floats rounded to 2 places; NaN (a measurement that was skipped) becomes null."""
    if not isinstance(x, float):
        return x
    return None if x != x else round(x, 2)


def run_bench(*, deals: int, simple_deals: int, engine_deals: int, variants: list[str],
              as_json: bool = False, on_variant: Callable[[], None] | None = None) -> list[dict]:
    """Measure every variant and print the table (or JSON); ``on_variant()`` after each (a progress bar)."""
    from rich.console import Console
    from rich.table import Table

    cores = os.cpu_count() or 1
    rows = []
    table = Table(title=f"durak bench — random play, default rules; {cores} cores")
    for col in ("variant", "players", "1 core", f"{cores} cores", "speed-up", "simple path", "engine",
                "fast/engine"):
        table.add_column(col, justify="right")
    for v in variants:
        rules = make_rules(v, BENCH_PLAYERS.get(v, 2))
        specs = ["random"] * rules.players
        play(rules, specs, 20_000, seed=99, jobs=1)  # warm-up (imports, caches) ...
        play(rules, specs, 20_000, seed=99, jobs=-1, chunk=10_000)  # ... and the worker pool
        # the same job (same chunks, same seeds) on one core and on all: what `durak simulate` does;
        # chunks of CHUNK deals, so that a run long enough to matter hides the pool's fixed costs
        chunk = max(1, min(CHUNK, deals // cores))
        _, t1 = play(rules, specs, deals, seed=1, jobs=1, chunk=chunk)
        _, tn = play(rules, specs, deals, seed=1, jobs=-1, chunk=chunk)
        one, many = deals / t1, deals / tn
        simple = simple_rate(rules, simple_deals) if simple_deals else float("nan")
        eng = engine_rate(rules, engine_deals) if engine_deals else float("nan")
        rows.append({"variant": v, "players": rules.players, "deals": deals, "one_core": one, "all_cores": many,
                     "speed_up": many / one, "simple_path": simple, "engine": eng, "fast_over_engine": one / eng})
        row = rows[-1]
        table.add_row(v, str(rules.players), f"{one:,.0f}", f"{many:,.0f}", f"{row['speed_up']:.2f}x",
                      f"{simple:,.0f}", f"{eng:,.0f}", f"{row['fast_over_engine']:.0f}x")
        if on_variant is not None:
            on_variant()
    if as_json:
        import json

        print(json.dumps({"unit": "deals per second", "cores": cores, "peak_mib": round(_peak_mib(), 1),
                          "variants": [{k: _json_number(x) for k, x in r.items()} for r in rows]}, indent=1))
        return rows
    c = Console(width=max(120, Console().width))
    c.print(table)
    c.print(f"deals/second; peak memory {_peak_mib():,.0f} MiB (largest process)")
    return rows
