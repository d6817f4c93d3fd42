"""Benchmark rows of the search strategy (issue 13): ``pimc`` at its default budget, one core.

``durak bench`` includes these rows (analyzer.execution.benchmark.search_rows).
For each case, ``pimc`` plays ``weighted`` on a few duplicate decks (both
seatings), on each of its two paths:

* ``batch`` -- the numpy simulator's fast path: ``choose_batch`` searches every
  deal of the batch where pimc must choose in one compiled call (what
  experiments, compare and tournaments use);
* ``table`` -- the engine's table runner: ``choose_known``, one search per
  decision, the observer's Knowledge kept in Python.

Each path gives two rows:

* ``decisions`` -- searched decisions per second of the whole run (the
  simulator or table runner, the other players and the searches: what a
  tournament pays; 1000 / that = ms per decision, shown in the case);
* ``rollouts`` -- (world x action) deals played to their end per second inside
  the searches alone (sampling worlds, applying every action, the rollouts).

The first deals (compiling, or loading the kernels from numba's cache) are
played before the clock starts.  Times are CPU seconds of this process (one
core; the simulator and the kernel run no threads here).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.knowledge.table import simulate_observed
from analyzer.sim.simulator import simulate_deals

#: (variant, players, duplicate decks) of the rows
CASES = (("czech", 2, 100), ("svinya", 2, 40), ("czech", 4, 40))
#: pimc's two paths: the simulator's fast path (one compiled search per batch) and the engine's table runner
PATHS = ("batch", "table")


def _play(path: str, rules: RuleSet, lineup: Sequence[object], orders: np.ndarray, seed: int) -> None:
    if path == "table":
        simulate_observed(rules, lineup, orders, np.random.SeedSequence(seed))
    else:
        simulate_deals(rules, lineup, len(orders), np.random.SeedSequence(seed), decks=orders)


def measure(variant: str, players: int, decks: int, spec: str = "pimc", seed: int = 0,
            path: str = "batch") -> dict[str, float]:
    """Search decisions, rollouts, search seconds and the run's CPU seconds (``total``) of ``spec`` against
    ``weighted`` on ``decks`` decks, both seatings, on ``path`` (:data:`PATHS`)."""
    if path not in PATHS:
        raise ValueError(f"path must be one of {', '.join(PATHS)}, not {path!r}")
    rules = make_rules(variant, players)
    pimc, other = get_strategy(spec), get_strategy("weighted")
    orders = shuffled_decks(rules.deck_size, decks, np.random.default_rng(seed)).astype(np.int8)
    _play(path, rules, [pimc] + [other] * (players - 1), orders[:1], seed)  # compile / load
    pimc.decisions, pimc.rollouts, pimc.seconds = 0, 0, 0.0  # type: ignore[attr-defined]
    t0 = time.process_time()
    for lineup in ([pimc] + [other] * (players - 1), [other] * (players - 1) + [pimc]):
        _play(path, rules, lineup, orders, seed)
    total = time.process_time() - t0
    return {"decisions": pimc.decisions, "rollouts": pimc.rollouts, "seconds": pimc.seconds,  # type: ignore[attr-defined]
            "total": total}


def search_rows() -> list[dict[str, object]]:
    """Rows in :class:`analyzer.execution.benchmark.Row`'s fields: decisions/s and rollouts/s on one core."""
    rows: list[dict[str, object]] = []
    for variant, players, decks in CASES:
        for path in PATHS:
            got = measure(variant, players, decks, path=path)
            total, secs = max(got["total"], 1e-9), max(got["seconds"], 1e-9)
            ms = 1000 * total / max(got["decisions"], 1)
            case = f"{variant} {players}p pimc vs weighted, {path} ({ms:.1f} ms/decision)"
            for unit, per in (("decisions", total), ("rollouts", secs)):
                rows.append({"case": case, "engine": f"search {path}", "unit": unit, "n": int(got[unit]),
                             "one_core": got[unit] / per, "all_cores": None, "ns_per_turn": None, "turns": None})
    return rows
