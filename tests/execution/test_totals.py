"""Running totals (analyzer.execution.totals): chunks folded in as they finish give the tables of summing every
chunk at the end in (cell, chunk) order (totals.sum_tables), bit for bit, whatever order they finish in."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analyzer.execution import executor
from analyzer.execution.totals import GroupSums, RunTotals
from tests.helpers_experiments import parse

TWO_CELLS = """
name = "fold"
variants = ["czech"]
players = [3, 4]
lineup = ["random"]
deals = 2_000
chunk_size = 100
seed = 2
"""


def _blurred_chunks(cells):
    """Every chunk's tables (the fake simulator), each chunk's wins given a fraction of a magnitude of its own, so
    float sums taken in another order than the chunks' differ in their last bits."""
    out = {}
    rng = np.random.default_rng(7)
    for c in cells:
        for k, n in c.chunks():
            tables = executor.run_chunk(c, k, n, executor.cell_seed(2, c, k), False, simulator="tests.fake_sim").tables()
            p = len(tables["positions"])
            tables["positions"]["wins"] += rng.random(p) * 10.0 ** rng.integers(-9, 12, p)
            out[(c.index, k)] = tables
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_chunks_finishing_in_any_order_fold_to_the_sum_of_every_chunk_in_order(seed: int) -> None:
    cells = parse(TWO_CELLS).cells
    chunks = _blurred_chunks(cells)
    want = executor.sum_tables(executor.ordered_parts(cells, chunks))
    arrival = list(chunks)
    np.random.default_rng(seed).shuffle(arrival)
    read: list[tuple[int, int]] = []

    def reader(key):
        def read_back():
            read.append(key)
            return chunks[key]
        return read_back

    totals = RunTotals(cells)
    waited = 0
    for key in arrival:
        totals.add(key[0], key[1], reader(key))
        waited = max(waited, totals.waiting)
    got = totals.tables()
    for name in executor.TABLES:
        pd.testing.assert_frame_equal(got[name], want[name], check_exact=True)
    for cell in cells:  # each cell's chunks were read (folded) in chunk order
        assert [k for c, k in read if c == cell.index] == [k for k, _ in cell.chunks()]
    assert waited > 0 and totals.waiting == 0
    # the order matters: the same chunks summed in the order they arrived give other bits
    shuffled = {name: [chunks[key][name].assign(cell=key[0]) for key in arrival] for name in executor.TABLES}
    assert not executor.sum_tables(shuffled)["positions"]["wins"].equals(want["positions"]["wins"])


def _kahan_by_group(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The reference: each group's float columns summed row after row with Kahan's compensation (NaN skipped; an
    infinite sum keeps no compensation), its integer columns exactly, groups in key order."""
    out = []
    for key, rows in df.groupby(keys, sort=True):
        row = dict(zip(keys, key))
        for col in df.columns.drop(keys):
            if df[col].dtype.kind == "f":
                total = comp = 0.0
                for x in rows[col]:
                    if x != x:
                        continue
                    y = x - comp
                    t = total + y
                    comp = (t - total) - y
                    comp = 0.0 if comp != comp else comp
                    total = t
                row[col] = total
            else:
                row[col] = int(rows[col].sum())
        out.append(row)
    return pd.DataFrame(out).astype({c: df[c].dtype for c in df.columns})


def test_group_sums_are_compensated_sums_in_the_order_added() -> None:
    """Compensated float sums, NaN skipped, an infinite sum, exact integers, repeated keys in one table."""
    rng = np.random.default_rng(3)
    parts = []
    for _ in range(60):
        n = int(rng.integers(1, 6))
        parts.append(pd.DataFrame({
            "cell": rng.integers(0, 3, n), "position": rng.integers(0, 4, n),
            "strategy": pd.Series(rng.choice(["a", "bb"], n), dtype="str"),
            "x": rng.random(n) * 10.0 ** rng.integers(-9, 17, n) * rng.choice([-1, 1], n),
            "i": rng.integers(-10**12, 10**12, n), "y": rng.random(n)}))
    parts[5].loc[0, "y"] = np.nan
    parts[9].loc[0, "x"] = np.inf
    keys = ["cell", "position", "strategy"]
    want = _kahan_by_group(pd.concat(parts, ignore_index=True), keys)
    sums = GroupSums(keys)
    for i in range(0, len(parts), 3):  # several parts a table: repeated keys
        sums.add(pd.concat(parts[i:i + 3], ignore_index=True))
    pd.testing.assert_frame_equal(sums.frame(), want, check_exact=True)
    plain = GroupSums(["cell"])  # a plain running sum would lose the two 1.0s
    for v in (1e16, 1.0, 1.0, -1e16):
        plain.add(pd.DataFrame({"cell": [0], "v": [v]}))
    assert plain.frame()["v"].iloc[0] == 2.0


def test_a_chunk_added_twice_or_missing_is_an_error() -> None:
    cells = parse(TWO_CELLS).cells
    chunks = _blurred_chunks(cells[:1])
    totals = RunTotals(cells[:1])
    totals.add(0, 0, chunks[(0, 0)])
    with pytest.raises(ValueError, match="added twice"):
        totals.add(0, 0, chunks[(0, 0)])
    with pytest.raises(RuntimeError, match="chunk 1 of cell 0 was never added"):
        totals.tables()


def test_sums_folded_as_columns_give_the_frames_of_their_tables_and_the_same_columns() -> None:
    """``durak simulate`` folds chunk sums as columns and never builds a frame (RunTotals.columns): the frames of
    the same chunks handed in as tables are the same bit for bit, text columns included, and so are the columns."""
    cells = parse(TWO_CELLS).cells
    sums = {(c.index, k): executor.run_chunk(c, k, n, executor.cell_seed(2, c, k), False, simulator="tests.fake_sim")
            for c in cells for k, n in c.chunks()}
    as_sums, as_tables = RunTotals(cells), RunTotals(cells)
    for (ci, k), s in sums.items():
        as_sums.add(ci, k, s)
        as_tables.add(ci, k, s.tables())
    columns, frames = as_sums.columns(), as_tables.tables()
    want = executor.sum_tables(executor.ordered_parts(cells, {key: s.tables() for key, s in sums.items()}))
    for name in executor.TABLES:
        pd.testing.assert_frame_equal(frames[name], want[name], check_exact=True)
        assert list(columns[name]) == list(want[name].columns)
        for c in want[name].columns:
            assert np.array_equal(columns[name][c], want[name][c].to_numpy()), (name, c)
    folded = RunTotals(cells)
    for (ci, k), s in sums.items():
        folded.add(ci, k, s)
    for name, frame in folded.tables().items():  # sums in, frames out: the same frames as tables in
        pd.testing.assert_frame_equal(frame, want[name], check_exact=True)
