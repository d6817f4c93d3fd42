"""Running totals: a run's chunk tables folded into its summed tables as the chunks finish.

A run used to keep every chunk's sums until its end and add them up then (:func:`analyzer.execution.executor.sum_tables`
over :func:`~analyzer.execution.executor.ordered_parts`): about 3 MB a million czech deals, so a billion deals needed
gigabytes.  Here each chunk is added to running totals as soon as it may be, and then dropped, so a run's memory does
not grow with its length.

The totals are bit for bit the ones :func:`sum_tables` gives for every chunk's tables at once, in (cell, chunk)
order, and so the same for any ``--jobs``, backend, finishing order or number of interruptions:

* **One arithmetic.** A group's float values are added one row after another with a compensated (Kahan) sum --
  the algorithm of pandas' own group sums -- and its integers exactly (:class:`GroupSums`).  The sum is ours, not
  ``groupby(...).sum()``: pandas 3 adds the groups of a table whose rows come sorted by group (a run's ``totals``)
  with ``np.add.reduceat`` instead, in an order set by the table's memory layout, which a running total cannot
  follow.  The ``positions`` and ``hist`` tables are the bits pandas gave; a ``totals`` float may differ from what
  pandas' sum gave in its last bit.
* **One order.** A group's rows are added in (cell, chunk) order.  Chunks finish in any order (``--jobs``,
  the backend, the machine's load), so :class:`RunTotals` folds each cell's chunks in chunk order: a chunk that
  finishes before an earlier one of its cell waits until that one is in.  The cells are independent (every group
  belongs to one cell), so a cell never waits for another.  Waiting chunks are the only ones held: a few at a time
  (the executors hand chunks out in order and keep only a few ahead of the slowest), and a run with a chunk store
  holds not even those, only their names, and reads them back from disk when their turn comes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from analyzer.stats.sums import ChunkSums, Columns, stacked_columns

if TYPE_CHECKING:  # a frame is built only when asked for (:meth:`RunTotals.tables`): ``durak simulate`` needs none
    import pandas as pd

#: Tables a run sums and the key columns of each (besides ``cell``); every other column is summed.
TABLES = ("positions", "totals", "hist")
KEYS = {"positions": ["position", "strategy"], "totals": [], "hist": ["kind", "bin"]}
#: In-order chunks of a run held in memory (``durak simulate``) gathered before they are folded in one step: one
#: table of many chunks folds in about the time of one chunk's.
BATCH = 32

Tables = dict[str, "pd.DataFrame"]
#: a table handed in: a frame, or its columns (analyzer.stats.sums.Columns)
Table = Any
#: what a chunk is handed in as: its tables, its sums, or a call that reads its tables (from the chunk store)
Chunk = Tables | ChunkSums | Callable[[], Tables]


def _dtypes(table: Table) -> dict[str, Any]:
    """Each column's dtype as the table holds it (a frame's own dtypes), in the table's order."""
    if isinstance(table, dict):
        return {c: v.dtype for c, v in table.items()}
    return dict(table.dtypes.items())


def _values(table: Table, names: list[str], dtype: type) -> np.ndarray:
    """The columns ``names`` of a table as one (rows, len(names)) array of ``dtype`` (a frame's in one step:
    column by column, a frame of ~350 columns took ten times as long)."""
    if isinstance(table, dict):
        return np.column_stack([table[c] for c in names]).astype(dtype)
    return table[names].to_numpy(dtype)


def _column(table: Table, name: str) -> list[Any]:
    return table[name].tolist()  # an array's or a frame's column alike


def _typed_key(dtype: Any) -> bool:
    """A key column rebuilt with this dtype (a frame's own, or a number's); text from columns: pandas infers it."""
    return dtype is not None and not (isinstance(dtype, np.dtype) and dtype.kind == "O")


def _rows(columns: Columns) -> int:
    return len(next(iter(columns.values()))) if columns else 0


class GroupSums:
    """Running per-group sums of one table's rows, added in the order given.

    :meth:`frame` is like ``pd.concat(rows).groupby(keys, sort=True, as_index=False).sum()`` of every row added:
    float columns by a compensated sum in the order added (a NaN is skipped; an infinite sum keeps no compensation,
    as in pandas' group sum), integer columns exactly.  Every table added must have the same columns; the value
    columns must be numbers.
    """

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = list(keys)
        self._groups: dict[tuple[Any, ...], int] = {}
        self._columns: list[str] | None = None
        self._key_dtypes: dict[str, Any] = {}
        self._ints: list[str] = []
        self._floats: list[str] = []
        self._isum = np.zeros((0, 0), np.int64)
        self._fsum = np.zeros((0, 0), np.float64)
        self._comp = np.zeros((0, 0), np.float64)

    def _start(self, dtypes: dict[str, Any]) -> None:
        self._columns = [c for c in dtypes if c not in self.keys]
        self._key_dtypes = {k: dtypes[k] for k in self.keys}
        for c in self._columns:
            kind = dtypes[c].kind if isinstance(dtypes[c], np.dtype) else "?"
            if kind in "iub":
                self._ints.append(c)
            elif kind == "f":
                self._floats.append(c)
            else:
                raise TypeError(f"column {c!r}: cannot sum a {dtypes[c]} column")
        self._isum = np.zeros((0, len(self._ints)), np.int64)
        self._fsum = np.zeros((0, len(self._floats)), np.float64)
        self._comp = np.zeros((0, len(self._floats)), np.float64)

    def _grow(self, rows: int) -> None:
        have = len(self._isum)
        if rows > have:
            more = rows - have
            self._isum = np.vstack([self._isum, np.zeros((more, self._isum.shape[1]), np.int64)])
            self._fsum = np.vstack([self._fsum, np.zeros((more, self._fsum.shape[1]), np.float64)])
            self._comp = np.vstack([self._comp, np.zeros((more, self._comp.shape[1]), np.float64)])

    def add(self, table: Table) -> None:
        """Add the rows of ``table`` (a frame or its columns; after every row added before, in their order)."""
        if self._columns is None:
            self._start(_dtypes(table))
        elif [c for c in (table if isinstance(table, dict) else table.columns) if c not in self.keys] != self._columns:
            raise ValueError("a table with other columns than the ones summed so far")
        n = _rows(table) if isinstance(table, dict) else len(table)
        if n == 0:
            return
        keys = zip(*(_column(table, k) for k in self.keys)) if self.keys else (() for _ in range(n))
        groups = np.array([self._groups.setdefault(key, len(self._groups)) for key in keys], np.intp)
        self._grow(len(self._groups))
        ints = _values(table, self._ints, np.int64) if self._ints else None
        floats = _values(table, self._floats, np.float64) if self._floats else None
        if ints is not None:
            np.add.at(self._isum, groups, ints)  # exact: any order
        if floats is None:
            return
        # the k-th row of each group in the table is the k-th step of that group: one vectorised step per k
        order = np.argsort(groups, kind="stable")
        sorted_groups = groups[order]
        first = np.r_[True, sorted_groups[1:] != sorted_groups[:-1]]
        starts = np.flatnonzero(first)
        step = np.arange(len(groups)) - np.repeat(starts, np.diff(np.r_[starts, len(groups)]))
        occurrence = np.empty(len(groups), np.intp)
        occurrence[order] = step
        for k in range(int(occurrence.max()) + 1):
            rows = np.flatnonzero(occurrence == k)
            self._kahan(groups[rows], floats[rows])

    def _kahan(self, groups: np.ndarray, values: np.ndarray) -> None:
        """One compensated step of pandas' group sum for distinct ``groups``, elementwise."""
        total, comp = self._fsum[groups], self._comp[groups]
        with np.errstate(invalid="ignore"):  # inf - inf: the NaN handled below, as pandas does
            y = values - comp
            t = total + y
            c = (t - total) - y
        c[np.isnan(c)] = 0.0  # an infinite sum: pandas keeps no compensation (it would be NaN)
        skip = np.isnan(values)  # pandas skips missing values
        self._fsum[groups] = np.where(skip, total, t)
        self._comp[groups] = np.where(skip, comp, c)

    def columns(self) -> Columns:
        """The sums, one row per group in key order: the key columns, then the summed ones in their order."""
        if self._columns is None:
            raise ValueError("nothing was added")
        seen = list(self._groups)
        order = sorted(range(len(seen)), key=seen.__getitem__)
        keys = [seen[i] for i in order]
        out: Columns = {}
        for j, k in enumerate(self.keys):
            dtype = self._key_dtypes[k]
            numeric = isinstance(dtype, np.dtype) and dtype.kind in "iubf"
            out[k] = np.array([key[j] for key in keys], dtype=dtype if numeric else object)
        ints = dict(zip(self._ints, self._isum[order].T))
        floats = dict(zip(self._floats, self._fsum[order].T))
        for c in self._columns:
            out[c] = ints[c] if c in ints else floats[c]
        return out

    def frame(self) -> pd.DataFrame:
        """:meth:`columns` as a frame, each key column of the dtype it came in (text: pandas' text column)."""
        import pandas as pd

        columns = self.columns()
        data = {c: pd.Series(v, dtype=self._key_dtypes[c]) if _typed_key(self._key_dtypes.get(c)) else pd.Series(v)
                for c, v in columns.items()}
        return pd.DataFrame(data, index=pd.RangeIndex(_rows(columns)))


def as_frames(tables: dict[str, Table]) -> Tables:
    """Tables as frames: columns (:meth:`RunTotals.columns`) become frames as :meth:`GroupSums.frame` builds them
    (text: pandas' text column), frames stay as they are."""
    import pandas as pd

    return {name: pd.DataFrame(t) if isinstance(t, dict) else t for name, t in tables.items()}


def sum_tables(parts: dict[str, list[pd.DataFrame]]) -> Tables:
    """Every chunk's tables (with a ``cell`` column), summed per cell at once: what :class:`RunTotals` gives when
    the tables come in (cell, chunk) order (the order :func:`~analyzer.execution.executor.ordered_parts` lists
    them in)."""
    import pandas as pd

    out = {}
    for name in TABLES:
        sums = GroupSums(["cell", *KEYS[name]])
        sums.add(pd.concat(parts[name], ignore_index=True))
        out[name] = sums.frame()
    return out


class RunTotals:
    """The summed tables of a run's ``cells``, chunks folded in as they finish.

    :meth:`add` takes a chunk as it finishes (any order); it is folded once every earlier chunk of its cell is,
    so :meth:`tables` equals :func:`sum_tables` of every chunk in (cell, chunk) order bit for bit (module notes).
    """

    def __init__(self, cells: Iterable[Any]) -> None:
        self._count = {c.index: len(c.chunks()) for c in cells}
        self._next = dict.fromkeys(self._count, 0)
        self._early: dict[tuple[int, int], Chunk] = {}
        self._ready: list[tuple[int, Tables | ChunkSums]] = []  # in order, not yet folded (BATCH at a time)
        self._sums = {name: GroupSums(["cell", *KEYS[name]]) for name in TABLES}

    @property
    def waiting(self) -> int:
        """Chunks that finished before an earlier chunk of their cell (held, or named if on disk)."""
        return len(self._early)

    def due(self, cell: int, k: int) -> bool:
        """Whether chunk ``k`` is its cell's next to fold (added now, it is folded at once)."""
        return self._next.get(cell) == k

    def add(self, cell: int, k: int, chunk: Chunk) -> None:
        """Chunk ``k`` of cell ``cell``: its tables, its sums, or a call that reads its tables when they are due."""
        if cell not in self._count or not 0 <= k < self._count[cell] or k < self._next[cell] \
                or (cell, k) in self._early:
            raise ValueError(f"chunk {k} of cell {cell}: not a chunk of this run, or added twice")
        if k != self._next[cell]:
            self._early[(cell, k)] = chunk
            return
        self._take(cell, chunk)
        while (cell, self._next[cell]) in self._early:
            self._take(cell, self._early.pop((cell, self._next[cell])))

    def _take(self, cell: int, chunk: Chunk) -> None:
        self._next[cell] += 1
        self._ready.append((cell, chunk() if callable(chunk) else chunk))
        if len(self._ready) >= BATCH:
            self._fold()

    def _fold(self) -> None:
        """Fold the in-order chunks gathered: a run of one cell's sums as one stacked table, tables one by one."""
        ready, self._ready = self._ready, []
        i = 0
        while i < len(ready):
            cell, first = ready[i]
            j = i + 1
            if isinstance(first, ChunkSums):
                while j < len(ready) and ready[j][0] == cell and isinstance(ready[j][1], ChunkSums):
                    j += 1
                stacked = stacked_columns([s for _, s in ready[i:j]])  # type: ignore[misc]
                for name in TABLES:
                    columns = stacked[name]
                    self._sums[name].add({**columns, "cell": np.full(_rows(columns), cell, np.int64)})
            else:
                for name in TABLES:
                    self._sums[name].add(first[name].assign(cell=cell))
            i = j

    def _complete(self) -> None:
        self._fold()
        missing = [(c, self._next[c]) for c in self._count if self._next[c] < self._count[c]]
        if missing:
            cell, k = missing[0]
            raise RuntimeError(f"chunk {k} of cell {cell} was never added ({len(missing)} cells incomplete)")

    def tables(self) -> Tables:
        """Every cell's summed tables (``cell`` column first); every chunk must be in."""
        self._complete()
        return {name: self._sums[name].frame() for name in TABLES}

    def columns(self) -> dict[str, Columns]:
        """:meth:`tables` as columns, without pandas (``durak simulate``)."""
        self._complete()
        return {name: self._sums[name].columns() for name in TABLES}
