"""A run held in memory makes each cell's tables once, from all its chunks' sums (sums.ChunkSums,
sums.stacked_tables), where a stored run writes and sums a chunk's tables one by one: the two must give the same
tables bit for bit, or ``durak simulate`` would print other numbers than ``durak run`` of the same cell."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from analyzer.core.rules import make_rules
from analyzer.execution import executor
from analyzer.execution.experiment import single_cell
from analyzer.stats.sums import ROTATION_KIND
from tests.helpers_experiments import parse

ROTATED = """
name = "rot"
variants = ["czech"]
players = [4]
ladder = ["greedy"]
deals = 600
chunk_size = 200
seed = 4
hand_rotations = { 4 = 2 }
"""


def _cells():
    return [single_cell(make_rules("czech", 4, {"target": 60}), ["random", "greedy"], unit="match", n=900,
                        chunk_size=200),
            single_cell(make_rules("svinya", 2, {}), ["weighted", "random"], n=700, chunk_size=300),
            parse(ROTATED).cells[0]]


@pytest.mark.parametrize("cell", _cells(), ids=["czech 4p matches", "svinya deals", "rotated czech 4p"])
def test_a_cells_tables_made_at_once_are_its_chunk_tables_one_under_the_other(cell) -> None:
    chunks = [executor.run_chunk(cell, k, n, executor.cell_seed(3, cell, k), False) for k, n in cell.chunks()]
    assert len(chunks) >= 3 and len({len(c.hists) for c in chunks}) == 1
    at_once = executor.stacked_tables(chunks)
    one_by_one = [c.tables() for c in chunks]
    for name in executor.TABLES:
        pd.testing.assert_frame_equal(at_once[name], pd.concat([t[name] for t in one_by_one], ignore_index=True),
                                      check_exact=True)
    if cell.rotations > 1:
        assert ROTATION_KIND in set(at_once["hist"]["kind"])
    # the stored chunk format's dtypes (analyzer.execution.store): whole counts int64, sums float64, names text
    pos = at_once["positions"]
    assert pos["position"].dtype == pos["n"].dtype == pos["wild_held"].dtype == "int64"
    assert pos["wins"].dtype == "float64" and pd.api.types.is_string_dtype(pos["strategy"])
    assert set(map(str, at_once["totals"].dtypes)) <= {"int64", "float64"} and at_once["totals"]["n"].dtype == "int64"
    assert at_once["hist"]["bin"].dtype == at_once["hist"]["count"].dtype == "int64"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_in_memory_sums_as_a_stored_run_does(jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """simulate_cells (in memory) against the stored run's way: every chunk's tables, ordered_parts, sum_tables.

    Each chunk's wins get a fraction of its own of a magnitude of its own, so float sums taken in another order
    than the chunks' (which a stored run's sums follow) differ in their last bits."""
    real = executor.chunk_sums

    def blurred(*args, **kw):
        sums = real(*args, **kw)
        rng = np.random.default_rng(int(np.sum(sums.positions["points_sum"])) + int(sums.totals["deals_sum"]))
        p = len(sums.positions["wins"])
        sums.positions["wins"] = sums.positions["wins"] + rng.random(p) * 10.0 ** rng.integers(-9, 12, p)
        return sums

    monkeypatch.setattr(executor, "chunk_sums", blurred)
    cells = [dataclasses.replace(c, index=i) for i, c in enumerate(_cells())]  # three cells of one run
    got = executor.simulate_cells(cells, seed=3, jobs=jobs)
    done = {(c.index, k): executor.run_chunk(c, k, n, executor.cell_seed(3, c, k), False).tables()
            for c in cells for k, n in c.chunks()}
    want = executor.sum_tables(executor.ordered_parts(cells, done))
    for name in executor.TABLES:
        pd.testing.assert_frame_equal(got[name], want[name], check_exact=True)
