"""One line-up, many deals: ``durak simulate`` and ``durak bench`` as a one-cell experiment.

There is no private execution here: :func:`play` makes the cell
(:func:`analyzer.execution.experiment.single_cell`) and hands it to the
executor, so ``durak simulate`` prints the numbers ``durak run`` of an
experiment holding that cell (same seed) writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from analyzer.core.rules import RuleSet
from analyzer.execution.executor import simulate_cells
from analyzer.execution.experiment import DEFAULT_CHUNK, Cell, Experiment, single_cell
from analyzer.report.footnotes import wild_held_notes
from analyzer.stats.intervals import mean_from_sums, wilson

if TYPE_CHECKING:
    import pandas as pd

#: Chunk size of ``durak bench`` (the experiments' default chunk is used by simulate).
CHUNK = 100_000
#: a ``durak simulate`` of at least this many deals (matches) keeps its finished chunks (:mod:`analyzer.execution.kept`)
#: until it ends, so that the same command, stopped, resumes: 400 chunks, a minute or more of play;
#: ``$DURAK_SIMULATE_KEEP`` overrides it for either unit (tests)
KEEP_FROM = {"deal": 20_000_000, "match": 800_000}


def keeps_chunks(cell: Cell) -> bool:
    """Is ``cell`` long enough that ``durak simulate`` keeps its finished chunks (:data:`KEEP_FROM`)?"""
    given = os.environ.get("DURAK_SIMULATE_KEEP")
    return cell.n >= (int(given) if given else KEEP_FROM[cell.unit])


def cell_tables(tables: dict[str, Any], cell: int = 0) -> dict[str, Any]:
    """One cell's rows of summed tables (``cell`` column dropped, positions in order): frames, or columns
    (executor.simulate_cells' ``columns``) as columns."""
    out: dict[str, Any] = {}
    for name, table in tables.items():
        if isinstance(table, dict):
            mine = table["cell"] == cell
            out[name] = {c: v[mine] for c, v in table.items() if c != "cell"}
        else:
            out[name] = table[table["cell"] == cell].drop(columns="cell").reset_index(drop=True)
    return out


def play_cell(cell: Cell, *, seed: int = 0, jobs: int = 1, check: bool = False, backend: str = "loky",
              scheduler: str | None = None, on_chunk: Callable[[int, int], None] | None = None
              ) -> tuple[dict[str, pd.DataFrame], float]:
    """Run one cell through the executor; its summed tables and the seconds taken."""
    t0 = time.perf_counter()
    tables = simulate_cells([cell], seed=seed, check=check, jobs=jobs, backend=backend, scheduler=scheduler,
                            on_chunk=on_chunk)
    return cell_tables(tables, cell.index), time.perf_counter() - t0


def one_cell_experiment(cell: Cell, seed: int) -> Experiment:
    """The experiment of one cell (``durak simulate --out``, a long simulate kept resumable): run by the
    cells run kind with its chunk store, it gives the numbers :func:`play_cell` gives (the same cell, the same seed)."""
    unit = cell.unit
    return Experiment(name="simulate", description=f"durak simulate: {cell.label}", variants=(cell.variant,),
                      players=(cell.players,), lineup=tuple(str(s) for s in cell.lineup), field=None,
                      rules=cell.rules.changed(), variant_rules={}, grid={}, counts={unit: cell.n}, seed=seed,
                      chunk_size=cell.chunk_size if unit == "deal" else DEFAULT_CHUNK["deal"],
                      match_chunk_size=cell.chunk_size if unit == "match" else DEFAULT_CHUNK["match"],
                      reports=(), source="durak simulate", _cells=(cell,))


def play(rules: RuleSet, specs: Sequence[Any], n: int, *, seed: int = 0, jobs: int = 1,
         matches: bool = False, check: bool = False, chunk: int | None = None,
         on_chunk: Callable[[int, int], None] | None = None
         ) -> tuple[dict[str, pd.DataFrame], float]:
    """Play ``n`` deals (or matches) of one line-up; return summed tables and seconds taken."""
    cell = single_cell(rules, list(specs), unit="match" if matches else "deal", n=n, chunk_size=chunk)
    return play_cell(cell, seed=seed, jobs=jobs, check=check, on_chunk=on_chunk)


def summary_json(rules: RuleSet, tables: dict[str, Any], elapsed: float, *,
                 seed: int, matches: bool) -> dict[str, Any]:
    """The ``--json`` object of ``durak simulate``: every rate with its 95% Wilson interval (``tables``: one
    cell's, frames or columns)."""
    positions = tables["positions"]
    pos = {c: np.asarray(positions[c]) for c in positions}  # a frame iterates over its column names too
    tot = {c: np.asarray(tables["totals"][c])[0] for c in tables["totals"]}
    n = int(tot["n"])
    win = wilson(pos["wins"], n)
    loss = wilson(pos["losses"], n)
    wild = wilson(pos["wild_held"], n)
    pts = mean_from_sums(pos["points_sum"], pos["points_sq"], n)
    r2 = lambda a: [round(float(x), 6) for x in a]  # noqa: E731
    out: dict[str, Any] = {
        "variant": rules.variant, "players": rules.players, "rules": rules.describe(),
        "strategies": [str(s) for s in pos["strategy"]], "unit": "match" if matches else "deal",
        "seed": seed, "deals": int(tot["deals_sum"]),
        "win_rate": r2(win.rate), "win_ci": [r2(x) for x in zip(win.lo, win.hi)],
        "loser_rate": r2(loss.rate), "loser_ci": [r2(x) for x in zip(loss.lo, loss.hi)],
        "mean_points": r2(pts.est), "mean_points_ci": [r2(x) for x in zip(pts.lo, pts.hi)],
        "wild_held_rate": r2(wild.rate), "wild_held_ci": [r2(x) for x in zip(wild.lo, wild.hi)],
        "loser_by_wild_rate": r2(pos["losses_by_wild"] / n),
        "blocked": int(tot["blocked"]), "capped": int(tot["capped"]),
        "deals_per_second": round(float(tot["deals_sum"]) / elapsed, 1) if elapsed > 0 else None,
        "notes": wild_held_notes(rules, "match" if matches else "deal"),  # why a rate is 0 by the rules
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
