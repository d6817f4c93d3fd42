"""One line-up, many deals: the work behind ``durak simulate`` and ``durak bench``.

Deals are cut into chunks seeded from (seed, chunk index) alone and summed as
sufficient statistics (analyzer.stats.sums.summarize), so the numbers do not
depend on ``--jobs`` and memory stays flat however many deals are asked for.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from analyzer.stats.sums import summarize
from analyzer.execution.runner import chunk_seed
from analyzer.core.rules import RuleSet
from analyzer.stats.intervals import mean_from_sums, wilson

CHUNK = 100_000


def _chunk(rules: RuleSet, specs: Sequence[str], n: int, seed: int, k: int, matches: bool,
           check: bool) -> dict[str, pd.DataFrame]:
    from strategies import get_strategy

    from analyzer.sim.simulator import simulate_deals, simulate_matches

    cache: dict[str, Any] = {}
    strats = [cache.setdefault(s, get_strategy(s)) for s in specs]  # one object per distinct spec
    ss = chunk_seed(seed, 0, k)  # the runner's scheme: a one-cell experiment
    sim = simulate_matches if matches else simulate_deals
    return summarize(sim(rules, strats, n, ss, check=check), list(specs))


def play(rules: RuleSet, specs: Sequence[str], n: int, *, seed: int = 0, jobs: int = 1,
         matches: bool = False, check: bool = False, chunk: int = CHUNK) -> tuple[dict[str, pd.DataFrame], float]:
    """Play ``n`` deals (or matches) of one line-up; return summed tables and seconds taken."""
    sizes = [min(chunk, n - i) for i in range(0, n, chunk)]
    t0 = time.perf_counter()
    if jobs == 1 or len(sizes) == 1:
        parts = [_chunk(rules, specs, m, seed, k, matches, check) for k, m in enumerate(sizes)]
    else:
        parts = Parallel(n_jobs=jobs)(delayed(_chunk)(rules, specs, m, seed, k, matches, check)
                                      for k, m in enumerate(sizes))
    elapsed = time.perf_counter() - t0
    pos = pd.concat([p["positions"] for p in parts]).groupby(["position", "strategy"], sort=False,
                                                              as_index=False).sum(numeric_only=True)
    pos["n"] = n
    tot = pd.concat([p["totals"] for p in parts]).sum(numeric_only=True).to_frame().T
    hist = pd.concat([p["hist"] for p in parts]).groupby(["kind", "bin"], as_index=False)["count"].sum()
    return {"positions": pos.sort_values("position", ignore_index=True), "totals": tot, "hist": hist}, elapsed


def summary_json(rules: RuleSet, tables: dict[str, pd.DataFrame], elapsed: float, *,
                 seed: int, matches: bool) -> dict[str, Any]:
    """The ``--json`` object of ``durak simulate``: every rate with its 95% Wilson interval."""
    pos, tot = tables["positions"], tables["totals"].iloc[0]
    n = int(tot["n"])
    win = wilson(pos["wins"].to_numpy(), n)
    loss = wilson(pos["losses"].to_numpy(), n)
    wild = wilson(pos["wild_held"].to_numpy(), n)
    pts = mean_from_sums(pos["points_sum"].to_numpy(), pos["points_sq"].to_numpy(), n)
    r2 = lambda a: [round(float(x), 6) for x in a]  # noqa: E731
    out: dict[str, Any] = {
        "variant": rules.variant, "players": rules.players, "rules": rules.changed(),
        "strategies": pos["strategy"].tolist(), "unit": "match" if matches else "deal",
        "seed": seed, "deals": int(tot["deals_sum"]),
        "win_rate": r2(win.rate), "win_ci": [r2(x) for x in zip(win.lo, win.hi)],
        "loser_rate": r2(loss.rate), "loser_ci": [r2(x) for x in zip(loss.lo, loss.hi)],
        "mean_points": r2(pts.est), "mean_points_ci": [r2(x) for x in zip(pts.lo, pts.hi)],
        "wild_held_rate": r2(wild.rate), "wild_held_ci": [r2(x) for x in zip(wild.lo, wild.hi)],
        "loser_by_wild_rate": r2(pos["losses_by_wild"].to_numpy() / n),
        "blocked": int(tot["blocked"]), "capped": int(tot["capped"]),
        "deals_per_second": round(float(tot["deals_sum"]) / elapsed, 1) if elapsed > 0 else None,
    }
    if matches:
        out["matches"] = n
        out["mean_deals_per_match"] = round(float(tot["deals_sum"]) / n, 4)
    else:
        t = mean_from_sums(tot["turns_sum"], tot["turns_sq"], n)
        out["mean_turns"] = round(float(t.est), 4)
        out["mean_turns_ci"] = [round(float(t.lo), 4), round(float(t.hi), 4)]
        out["mean_turnovers"] = round(float(tot["turnovers_sum"]) / n, 4)
    return out
