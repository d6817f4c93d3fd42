"""A chunk file holds its tables column by column (parquet cost as much as the play) and reads back bit
for bit, dtypes included; a table it cannot hold so is stored as parquet; a damaged or older file is recomputed."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from analyzer.core.rules import make_rules
from analyzer.execution.executor import cell_seed, run_chunk
from analyzer.execution.experiment import single_cell
from analyzer.execution.store import CHUNK_FORMAT, TABLES, ChunkStore, read_table, table_members

FP = "f" * 64


def _chunk(unit: str) -> dict[str, pd.DataFrame]:
    rules = make_rules("czech", 3, {"target": 60} if unit == "match" else {})
    cell = single_cell(rules, ["random", "greedy", "weighted"], unit=unit, n=300, chunk_size=300)
    return run_chunk(cell, 0, 300, cell_seed(4, cell, 0), False).tables()


def _same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> None:
    for name in TABLES:
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True)
        assert list(a[name].dtypes) == list(b[name].dtypes) and a[name].index.equals(b[name].index)


def test_deal_and_match_chunks_read_back_bit_for_bit_without_parquet(tmp_path: Path) -> None:
    store = ChunkStore(tmp_path, FP)
    for k, unit in enumerate(("deal", "match")):
        tables = _chunk(unit)
        tables["positions"]["wins"] += 1 / 3  # floats that no decimal text holds exactly
        store.write(0, k, 300, tables)
        with zipfile.ZipFile(store.path(0, k)) as zf:
            assert not [m for m in zf.namelist() if m.endswith(".parquet")], zf.namelist()
        _same(store.read(0, k, 300), tables)
        assert store.read(0, k, 301) is None and store.read(1, k, 300) is None  # another chunk's file


def test_a_table_of_other_columns_is_stored_as_parquet_and_reads_back() -> None:
    odd = {"positions": pd.DataFrame({"a": pd.Categorical(["x", "y"]), "b": [1.5, 2.5]}),
           "totals": pd.DataFrame({"n": [2], "name": pd.array(["p", None], dtype="object")[:1]}),
           "hist": pd.DataFrame({3: [1, 2]})}  # a label that is not a string
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in TABLES:
            members = table_members(name, odd[name])
            assert list(members) == [f"{name}.parquet"] or name == "totals"
            for m, data in members.items():
                zf.writestr(m, data)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        for name in TABLES:
            pd.testing.assert_frame_equal(read_table(zf, name), odd[name].rename(columns=str) if name == "hist"
                                          else odd[name], check_exact=True)


def test_a_damaged_column_or_an_older_format_is_recomputed(tmp_path: Path) -> None:
    store = ChunkStore(tmp_path, FP)
    tables = _chunk("deal")
    store.write(0, 0, 300, tables)
    with zipfile.ZipFile(store.path(0, 0)) as zf:
        members = {m: zf.read(m) for m in zf.namelist()}
    bad = io.BytesIO()
    np.save(bad, np.zeros((3, 5)), allow_pickle=False)  # float columns of the wrong length
    for name, swap in (("positions.float64.npy", bad.getvalue()),
                       ("meta.json", members["meta.json"].replace(f'"format": {CHUNK_FORMAT}'.encode(),
                                                                  f'"format": {CHUNK_FORMAT - 1}'.encode()))):
        with zipfile.ZipFile(store.path(0, 0), "w") as zf:
            for m, data in members.items():
                zf.writestr(m, swap if m == name else data)
        assert store.read(0, 0, 300) is None, name
