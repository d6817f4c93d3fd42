"""Speed of the compiled kernel (issue 12's targets; a benchmark, not a test).

:func:`run_bench` measures deals/s and turns/s on one core and on every core
for czech 4p random/greedy/weighted, prague 4p and svinya 2p, and rollouts/s
from mid-deal positions for czech 2p with the compiled greedy policy.  The time
to compile (or load from the cache) the kernels is measured apart, on the
first call.  The lead wires this into ``durak bench``.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, forced_action
from analyzer.kernel.driver import deals_kernel, simulate_deals
from analyzer.kernel.positions import Positions, encode_deal, play_from_positions, positions_kernel

#: (label, variant, players, strategy)
DEAL_CASES = [
    ("czech 4p random", "czech", 4, "random"),
    ("czech 4p greedy", "czech", 4, "greedy"),
    ("czech 4p weighted", "czech", 4, "weighted"),
    ("prague 4p random", "prague", 4, "random"),
    ("svinya 2p random", "svinya", 2, "random"),
]


@dataclass
class BenchRow:
    label: str
    per_second_1: float  # deals (or rollouts) per second on one thread
    per_second_all: float  # on every core
    turns_per_second_1: float
    mean_turns: float


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def rollout_positions(k: int = 500, seed: int = 0) -> Positions:
    """``k`` czech 2p positions a few greedy decisions into engine deals (rollout starting points)."""
    rules = make_rules("czech", 2)
    greedy = get_strategy("greedy")
    rng = np.random.default_rng(seed)
    parts = []
    for deck in shuffled_decks(32, k * 2, rng).tolist():
        deal = Deal.from_deck(rules, deck)
        for _ in range(int(rng.integers(2, 8))):
            if deal.done:
                break
            a = forced_action(deal)
            if a is None:
                a, s = greedy.choose(deal.view(), rng)
                deal.apply(a, s)
            else:
                deal.apply(a)
        if not deal.done:
            parts.append(encode_deal(deal))
        if len(parts) == k:
            break
    return Positions.concat(parts)


def compile_seconds() -> dict[str, float | int]:
    """Seconds for the first (compiling or cache-loading) calls, and how many kernels came from the cache."""
    rules = make_rules("czech", 2)
    greedy = [get_strategy("greedy")] * 2
    t_deals, _ = _timed(lambda: simulate_deals(rules, greedy, 1, threads=1))
    pos = rollout_positions(1)
    t_pos, _ = _timed(lambda: play_from_positions(rules, greedy, pos, threads=1))
    hits = sum(len(k.stats.cache_hits) for k in (deals_kernel, positions_kernel))
    return {"deals_kernel_s": round(t_deals, 3), "positions_kernel_s": round(t_pos, 3), "cache_hits": hits}


def run_bench(deals: int = 200_000, rollouts: int = 200_000, threads: int | None = None) -> dict[str, object]:
    """Measure every case; returns compile times, rows and peak memory (MiB)."""
    comp = compile_seconds()
    rows = []
    for label, variant, players, strat in DEAL_CASES:
        rules = make_rules(variant, players)
        lineup = [get_strategy(strat)] * players
        t1, res = _timed(partial(simulate_deals, rules, lineup, deals, seed=1, threads=1))
        tn, _ = _timed(partial(simulate_deals, rules, lineup, deals, seed=1, threads=threads))
        turns = float(res.turns.mean())  # type: ignore[attr-defined]
        rows.append(BenchRow(label, deals / t1, deals / tn, deals * turns / t1, turns))
    rules = make_rules("czech", 2)
    greedy = [get_strategy("greedy")] * 2
    pos = rollout_positions()
    pos = pos.repeat(-(-rollouts // len(pos)))
    t1, res = _timed(lambda: play_from_positions(rules, greedy, pos, threads=1))
    tn, _ = _timed(lambda: play_from_positions(rules, greedy, pos, threads=threads))
    turns = float(res.turns.mean())  # type: ignore[attr-defined]
    rows.append(BenchRow("czech 2p greedy rollouts", len(pos) / t1, len(pos) / tn, len(pos) * turns / t1, turns))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"compile": comp, "cores": os.cpu_count(), "rows": [asdict(r) for r in rows], "peak_mib": round(peak)}


def format_bench(result: dict[str, object]) -> str:
    """A plain table of :func:`run_bench`'s result."""
    lines = [f"compile/load: {result['compile']}", f"{'case':28} {'1 core/s':>12} {'all cores/s':>12} "
             f"{'turns/s (1)':>12} {'turns':>6}"]
    rows: list[dict[str, object]] = result["rows"]  # type: ignore[assignment]
    for r in rows:
        lines.append(f"{r['label']:28} {r['per_second_1']:12,.0f} {r['per_second_all']:12,.0f} "
                     f"{r['turns_per_second_1']:12,.0f} {r['mean_turns']:6.1f}")
    lines.append(f"peak memory {result['peak_mib']} MiB on {result['cores']} cores")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m analyzer.kernel.bench [deals]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    print(format_bench(run_bench(n, n)))
