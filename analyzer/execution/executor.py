"""The one executor: (cell, chunk) tasks -> a chunk function -> sums, locally or on Dask.

``durak simulate``, ``durak run``, ``durak compare`` and :mod:`analyzer.api`
all come through here, so they share one way to build a line-up
(:func:`analyzer.execution.lineup.build`: one object per distinct spec), one
seed derivation (:mod:`analyzer.execution.seeds`) and one way to run chunks:

* :func:`run_tasks` runs any picklable chunk function over a list of argument
  tuples, in this process (``jobs=1``), on loky processes, or on Dask through
  joblib's dask backend, yielding results as they finish (any order);
* :func:`run_cell_chunks` is that for simulation cells (:func:`cell_job`, one chunk: the work and the worker entry);
* :class:`analyzer.execution.totals.RunTotals` folds chunk sums into running
  totals as they finish, each cell's in chunk order, so a run's memory does not
  grow with its length and float sums, and so every printed number, do not
  depend on ``--jobs``, the backend or the order chunks finish in;
  :func:`~analyzer.execution.totals.sum_tables` is the same sum of every chunk
  at once (the reference).

A stand-in simulator (``simulator=`` or ``$DURAK_SIMULATOR``, a module path such as ``tests.fake_sim`` with
``simulate_deals`` and ``simulate_matches``) replaces the project's engines for tests; the path travels with
every task so that workers import the same module as the parent.  A stand-in may define ``get_strategy`` too.

Engines: the project's are the compiled kernel and, for players who remember only through ``choose_known``, the
rules engine's table runner.  A chunk whose line-up is all built-ins with a compiled form runs on the kernel
alone (``compiled``, :mod:`analyzer.kernel.serve`); one whose line-up holds a Python strategy runs on the
kernel paused at that strategy's decisions (``compiled+python``, :mod:`analyzer.kernel.pause`), deals and
matches, the public history logged for a strategy that reads it (``uses_history = True``,
analyzer.kernel.events).  ``--check`` keeps the engine (results unchanged): the kernel checks that every deal
ends with every card exactly once, and plays a sample twice to catch a Python strategy that is not
deterministic (built-ins cannot fault and are deterministic).  Compiled chunks run in this process on threads
(the kernel releases the GIL): no worker start-up, and a run of one chunk still uses every core; chunks with
Python strategies hold the GIL, so they go to the workers.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from itertools import chain, starmap
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.random import SeedSequence
from numpy.typing import NDArray

from analyzer.core.cards import rotated_hands, shuffled_decks
from analyzer.core.faults import FaultContext
from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.public import needs_table
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet
from analyzer.core.streams import base_key, child_seed
from analyzer.execution import lineup as lineups
from analyzer.execution.cores import cores
from analyzer.execution.experiment import Cell, ExperimentError
from analyzer.execution.lifeline import guarded, watch_parent
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.execution.totals import KEYS, TABLES, RunTotals, sum_tables  # noqa: F401 (sum_tables: the reference)
from analyzer.kernel import driver, serve
from analyzer.kernel.jit import SPECIALISE_FROM
from analyzer.kernel.lineup import compile_lineup
from analyzer.kernel.params import logging_params, rule_params
from analyzer.kernel.pause import ADVANCE
from analyzer.knowledge.table import simulate_known, simulate_observed, simulate_observed_matches
from analyzer.stats.sums import ROTATION_KIND, ChunkSums, chunk_sums, rotation_counts, stacked_tables  # noqa: F401

if TYPE_CHECKING:
    import pandas as pd

#: The simulator setting of the project's own engines (no module is imported for it).  Runs record it under the
#: module path a numpy simulator had before the kernel replaced it, so that stored runs keep their fingerprints.
DEFAULT_SIMULATOR = "analyzer.sim.simulator"
SIMULATOR_ENV = "DURAK_SIMULATOR"
ENGINE_ENV = "DURAK_ENGINE"
#: ``compiled`` is ``auto``'s synonym: runs made while another engine was the default name it in their manifests
ENGINES = ("auto", "compiled")
#: the version of each engine's random streams, bumped whenever an engine gives the same seed other numbers
#: (new streams, another deck source): a run's fingerprint records it, so a chunk stored before
#: the change is never resumed into a run after it.  ``compiled+python`` 2: its matches deal the kernel's
#: decks.  ``numpy`` names a stand-in simulator's chunks.
STREAMS = {"numpy": 1, "compiled": 1, "compiled+python": 2}


def streams_of(engines: Iterable[str]) -> dict[str, int]:
    """The stream versions of ``engines`` (what a fingerprint records)."""
    return {e: STREAMS[e] for e in sorted(set(engines))}


BACKENDS = ("loky", "dask")


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """``--backend`` and ``--scheduler``, the one check (ExperimentError, one line): the run kinds' registry
    asks it before a run makes its folder, and :func:`run_tasks`, which every kind's work passes through, for a
    caller of the API."""
    if backend not in BACKENDS:
        raise ExperimentError(f"--backend must be {' or '.join(BACKENDS)}, not {backend!r}")
    if scheduler is not None and backend != "dask":  # it was silently ignored
        raise ExperimentError(f"--scheduler {scheduler!r} needs --backend dask (loky runs on this machine only)")
    if backend == "dask" and not _installed("distributed"):
        raise ExperimentError('--backend dask needs Dask, an optional extra: pip install -e ".[dask]"')


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (Dask takes seconds)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: a module set to None in sys.modules, as if absent
        return False

R = TypeVar("R")


# --------------------------------------------------------------------------- simulator and strategies


def simulator_path(simulator: str | None = None) -> str:
    """The simulator module to use: the argument, else $DURAK_SIMULATOR, else the real one."""
    return simulator or os.environ.get(SIMULATOR_ENV) or DEFAULT_SIMULATOR


def import_simulator(path: str) -> ModuleType:
    """The stand-in simulator module at ``path`` (``--simulator``: ``simulate_deals`` and ``simulate_matches``)."""
    return importlib.import_module(path)


def strategy_resolver(simulator: str | None = None) -> Callable[[str], Any]:
    """``get_strategy`` of a stand-in simulator module if it has one, else the registry's."""
    path = simulator_path(simulator)
    if path != DEFAULT_SIMULATOR:
        fn = getattr(import_simulator(path), "get_strategy", None)
        if fn is not None:
            return fn
    return get_strategy


# --------------------------------------------------------------------------- engines


def engine_mode() -> str:
    """The engine mode a run records: ``$DURAK_ENGINE`` checked (``auto``, or its synonym ``compiled``), else ``auto``.
    Every mode plays on the kernel; a run's entry asks it once, in the parent (a reused worker holds the
    environment of the run that started it)."""
    mode = os.environ.get(ENGINE_ENV) or "auto"
    if mode == "numpy":
        raise ExperimentError("engine: the numpy simulator is retired; every line-up plays on the compiled kernel"
                              f" (unset ${ENGINE_ENV})")
    if mode not in ENGINES:
        raise ExperimentError(f"engine: must be one of {', '.join(ENGINES)}, got {mode!r} (from ${ENGINE_ENV})")
    return mode


def choose_engine(strategies: Sequence[object], *, simulator: str | None = None, unit: str = "deal") -> str:
    """``compiled`` or ``compiled+python`` for a line-up playing ``unit``s (see the module notes); ``numpy``
    names a stand-in simulator (``simulator``), called with the functions of the numpy simulator it replaced."""
    if simulator_path(simulator) != DEFAULT_SIMULATOR:
        return "numpy"
    return "compiled" if serve.not_compiled(strategies) is None else "compiled+python"


def decks_engine(strategies: Sequence[object]) -> str:
    """The engine :func:`play_decks` plays a line-up on (``table``, ``compiled``, ``compiled+python``; run
    fingerprints record it: engines draw differently)."""
    if needs_table(strategies):
        return "table"
    return choose_engine(strategies)


def play_decks(rules: RuleSet, strategies: Sequence[object], decks: NDArray[np.integer], ss: SeedSequence) -> DealResults:
    """The one way to play deals on given decks (line-up by position), for every command and API call.

    The engine is :func:`decks_engine`'s: players who remember only through ``choose_known`` on the engine's
    table runner; every other line-up on the compiled kernel (paused at a Python strategy's decisions), its
    streams keyed by :func:`~analyzer.core.streams.base_key` of ``ss``, so a deterministic line-up gives the
    same deals whether its strategies are built-ins or Python, and every command the same numbers.
    """
    mode = decks_engine(strategies)
    if mode == "table":
        return simulate_observed(rules, list(strategies), np.asarray(decks), ss)
    key = base_key(ss)
    if mode == "compiled" and _special_ready(rules, strategies):  # the same deals, faster
        return driver.simulate_deals(rules, strategies, len(decks), key, decks=decks, threads=1, specialise=True)
    out = serve.simulate_chunk(rules, strategies, len(decks), ss, matches=False, decks=decks, key=key)
    assert isinstance(out, DealResults)
    return out


def cell_engines(cells: Iterable[Cell], *, simulator: str | None = None) -> list[str]:
    """The engine of each cell (a run's manifest records them)."""
    resolve = strategy_resolver(simulator)
    return [choose_engine(lineups.build(c.lineup, resolve), simulator=simulator, unit=c.unit)
            for c in cells]


# --------------------------------------------------------------------------- the kernel a cell plays on


#: a cell of at least this many deals plays on the kernel compiled for its rules from its first chunk (the kernel's
#: own rule switches a process only once it has asked for that many deals of the rules: a run of 2M deals played
#: its first million on the generic kernel, then loaded the other)
BIG_CELL = SPECIALISE_FROM


def cell_specialise(cell: Cell, strategies: Sequence[object]) -> bool | None:
    """True: the cell's deals play on the kernel compiled for its rules (and line-up) from the first chunk -- a big
    cell (:data:`BIG_CELL`), or one whose kernel is compiled on this machine already (loading it costs what loading
    the generic one does, and it plays faster); None: the kernel's own rule.  Matches: None.  Same results.
    """
    if cell.unit != "deal":
        return None
    if cell.n >= BIG_CELL:
        return True
    return True if _special_ready(cell.rules, strategies) else None


def _special_ready(rules: RuleSet, strategies: Sequence[object]) -> bool:
    """:func:`special_in_cache`, False where the cache cannot tell."""
    try:
        return special_in_cache(rules, strategies)
    except Exception:  # a cache index that cannot be read, a stand-in strategy
        return False


def special_in_cache(rules: RuleSet, strategies: Sequence[object]) -> bool:
    """Whether numba's cache holds the kernel compiled for these rules and this line-up (deals; with a Python
    strategy, the pause kernel for the rules): what a chunk would load, found without loading it
    (analyzer.kernel.jit.Specialised.in_cache)."""
    p = np.array(rule_params(rules), np.int64)
    if serve.not_compiled(strategies) is None:
        return driver.DEALS.in_cache(p, driver.lineup_code(compile_lineup(strategies)[0]))
    if serve.reads_history(strategies) is not None:  # the pause kernel with the public-event log on
        p = np.array(logging_params(p), np.int64)
    return ADVANCE.in_cache(p)


# --------------------------------------------------------------------------- one chunk of a cell


def cell_seed(seed: int, cell: Cell, chunk: int) -> SeedSequence:
    """Chunk ``chunk`` of ``cell``: keyed on the cell's content, never its index (seeds module); a cell whose hands
    rotate is another content (a cell without rotations keeps the key it always had)."""
    names = [lineups.entry_text(e) for e in cell.lineup]
    content = content_text(cell.rules, names, cell.unit)
    return chunk_seed(seed, "cell", content + (f"|hands rotated {cell.rotations}" if cell.rotations > 1 else ""), chunk)


def run_chunk(cell: Cell, chunk_index: int, n: int, seed: SeedSequence, check: bool, *,
              simulator: str | None = None, threads: int = 1) -> ChunkSums:
    """Simulate ``n`` deals (or matches) of one cell from the chunk's seed and return their sums (tables:
    ``.tables()``): :func:`cell_job` with the SeedSequence given."""
    return cell_job(cell, chunk_index, n, 0, check, simulator_path(simulator), threads, ss=seed)[3]


def cell_job(cell: Cell, k: int, n: int, seed: int, check: bool, simulator: str, threads: int = 1, *,
             ss: SeedSequence | None = None) -> tuple[int, int, int, ChunkSums]:
    """Chunk ``k`` of ``cell``, ``n`` deals (or matches) from the run's ``seed`` (:func:`cell_seed`; ``ss``: that
    seed given), and its identity (results arrive unordered): (cell index, k, n, sums).  The worker entry, and
    the one frame between the executor's loop and an engine: ``durak simulate`` reaches the kernel in six calls.

    Strategies are built afresh per chunk, one per distinct spec, so a stateful
    strategy cannot carry anything from one chunk to the next (that would make
    results depend on which chunks a worker happened to run).  ``threads``:
    the compiled kernel's threads (results do not depend on them).  A cell whose hands rotate plays
    ``n / rotations`` decks of the chunk's deck stream, each dealt ``rotations`` times with its hands passed one
    seat on each time (analyzer.core.cards.rotated_hands), on the same engine; its Jack comparisons' same-game sums
    are taken per deck (sums.summarize's ``cluster``) and the first seat's wins and decided deals per deck are kept
    (sums.rotation_counts).
    """
    ss = cell_seed(seed, cell, k) if ss is None else ss
    strategies = lineups.build(cell.lineup, strategy_resolver(simulator))
    names = lineups.display_names(cell.lineup, strategies)
    rules, rot = cell.rules, cell.rotations
    decks = None if rot == 1 else rotated_hands(shuffled_decks(rules.deck_size, n // rot, serve.deck_generator(ss)),
                                                rules.players, rules.hand_size, rot)
    # faults and broken invariants name the cell, the chunk and the global deal number, for any --jobs
    where = FaultContext(cell_label=cell.label, cell=cell.index, chunk=k, first=k * cell.chunk_size)
    res: DealResults | MatchResults
    if needs_table(strategies):  # a plugin that remembers only through choose_known; tracker and pimc read the views
        res = (simulate_known(rules, strategies, n, ss, cell.unit) if decks is None
               else simulate_observed(rules, strategies, decks, child_seed(ss, 1)))
    elif choose_engine(strategies, simulator=simulator, unit=cell.unit) != "numpy":
        res = serve.simulate_chunk(rules, strategies, n, ss, matches=cell.unit == "match", threads=threads,
                                   check=check, where=where, specialise=cell_specialise(cell, strategies), decks=decks)
    else:
        mod = import_simulator(simulator_path(simulator))
        simulate = mod.simulate_matches if cell.unit == "match" else mod.simulate_deals
        kw: dict[str, Any] = {"check": check}
        if "where" in inspect.signature(simulate).parameters:  # a stand-in simulator may not name faults
            kw["where"] = where
        if decks is not None:
            kw["decks"] = decks
        res = simulate(rules, strategies, n, ss, **kw)
        if len(res) != n:
            raise RuntimeError(f"simulator returned {len(res)} results for chunk {k} "
                               f"of cell {cell.index}, expected {n}")
    if decks is None:
        return cell.index, k, n, chunk_sums(res, names, rules)
    assert isinstance(res, DealResults)  # single deals: matches never rotate (experiment.py refuses them)
    return cell.index, k, n, chunk_sums(res, names, rules, cluster=rot).with_hist(ROTATION_KIND,
                                                                                 rotation_counts(res, rot))


# --------------------------------------------------------------------------- running tasks


#: Seconds an idle loky worker waits for work before it exits (its parent may be gone; loky's own
#: default is 300 s).  ``$DURAK_IDLE_WORKER_SECONDS`` overrides it (tests).
IDLE_WORKER_SECONDS = float(os.environ.get("DURAK_IDLE_WORKER_SECONDS", "10"))
#: loky's warning when an idle worker times out just as a new run submits its first tasks to the reusable pool (one
#: process running several runs: the API, tests): loky starts a new worker and no task is lost, so it is noise
WORKER_RESTART = "A worker stopped while some jobs were given to the executor"


#: Chunks queued per thread beyond the running ones (compiled chunks on threads): enough that a thread finding its
#: next chunk never waits for the consumer, few enough that finished chunks are not held.
AHEAD = 1


def run_tasks(fn: Callable[..., R], calls: Sequence[tuple[Any, ...]], *, jobs: int = 1, backend: str = "loky",
              scheduler: str | None = None) -> Iterator[R]:
    """``fn(*args)`` for every args tuple, as an iterator of each result as soon as it is finished (any order).

    ``jobs == 1`` (or a single task on loky) runs in this process, so objects
    that do not pickle and test doubles work (``itertools.starmap``: no frame of
    ours between the consumer and ``fn``); otherwise joblib's loky processes
    or, with ``backend="dask"``, a distributed Client at ``scheduler`` (without
    one, a loopback LocalCluster with ``jobs`` workers).
    """
    check_backend(backend, scheduler)
    if backend == "loky" and (jobs == 1 or len(calls) <= 1):
        return starmap(fn, calls)
    return _run_parallel(fn, calls, jobs=jobs, backend=backend, scheduler=scheduler)


def _run_parallel(fn: Callable[..., R], calls: Sequence[tuple[Any, ...]], *, jobs: int, backend: str,
                  scheduler: str | None) -> Iterator[R]:
    """:func:`run_tasks` on loky processes or Dask."""
    from joblib import Parallel, delayed, parallel_config

    delayed_calls = (delayed(guarded)(os.getpid(), fn, *args) for args in calls)  # workers end with us
    if backend == "loky":
        warnings.filterwarnings("ignore", message=WORKER_RESTART, category=UserWarning)  # once: duplicates are dropped
        # an idle worker outlives a killed main process only this long (loky's default is 300 s)
        with parallel_config(backend="loky", idle_worker_timeout=IDLE_WORKER_SECONDS,
                             initializer=watch_parent, initargs=(os.getpid(),)):
            yield from Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)(delayed_calls)
        return
    # Tasks are submitted to the cluster directly (analyzer/execution/cluster.py): joblib's dask
    # backend ran them in this process on a one-thread cluster, and never noticed a lost cluster.
    from analyzer.execution.cluster import dask_results  # lazy like joblib: distributed is slow to import

    yield from dask_results(fn, calls, jobs=jobs, scheduler=scheduler)


#: one chunk's call of :func:`cell_job`: (cell, chunk index, size, seed, check, simulator)
ChunkCall = tuple[Cell, int, int, int, bool, str]


def run_cell_chunks(tasks: Sequence[tuple[Cell, int, int]], *, seed: int, check: bool = False,
                    simulator: str | None = None, jobs: int = 1, backend: str = "loky",
                    scheduler: str | None = None) -> Iterator[tuple[int, int, int, ChunkSums]]:
    """Run (cell, chunk index, size) tasks: an iterator of (cell index, chunk, size, sums) as they finish.

    On loky, compiled chunks run here on ``jobs`` threads (:func:`_run_threaded`),
    then the rest on the worker processes, handed out last cell first (:func:`last_cell_first`).
    Nothing runs until the iterator is read; dropping it (or closing a threaded one) cancels queued chunks.
    """
    sim = simulator_path(simulator)
    calls = [(cell, k, n, seed, check, sim) for cell, k, n in tasks]
    here: list[ChunkCall] = []
    if backend == "loky":
        cells = list({c.index: c for c, _, _ in tasks}.values())
        engines = dict(zip([c.index for c in cells], cell_engines(cells, simulator=sim)))
        here = [c for c in calls if engines[c[0].index] == "compiled"]
        calls = [c for c in calls if engines[c[0].index] != "compiled"]
    parts = [_run_threaded(here, cores(jobs))] if here else []
    if calls or not here:
        parts.append(run_tasks(cell_job, last_cell_first(calls), jobs=jobs, backend=backend, scheduler=scheduler))
    return parts[0] if len(parts) == 1 else chain(*parts)


def last_cell_first(calls: Sequence[ChunkCall]) -> list[ChunkCall]:
    """The worker processes' chunks, the last cell's first (a cell's own in order).

    What runs on the processes is Python play -- searching strategies, plugins -- whose chunks can cost
    a thousand times one another, and a ladder's steps rise in cost: handed out in cell order, the
    costliest cell (the skill ladder's last, svinya's ismcts, ~100 s a chunk) started last and one
    worker sat idle behind its final chunk (57 s of a 32-minute run).  Started first, the cheaper chunks
    fill the end.  The order of results does not matter: they are stored and summed by (cell, chunk).
    """
    return sorted(calls, key=lambda c: (-c[0].index, c[1]))


def _run_threaded(calls: Sequence[ChunkCall], threads: int) -> Iterator[tuple[int, int, int, ChunkSums]]:
    """Compiled chunks in this process: ``threads`` chunks at a time, each on one kernel thread but the last
    ``threads - 1``, whose blocks go to every thread.

    So the last chunk (or the only one: a small match run) still uses every
    core, and while others wait no chunk splits into blocks for threads that
    are busy anyway (a block's return takes the GIL back: a 2,000-match chunk
    on two kernel threads is ~14 calls instead of 4); while one chunk's sums
    are taken (Python, the GIL), the kernels of the others run on.  Chunks are
    handed to the pool in order, at most :data:`AHEAD` per thread beyond the
    ones running: a finished chunk is dropped once it is yielded, so a run's
    memory does not grow with its number of chunks.
    """
    if threads == 1 or len(calls) == 1:  # in this process, no frame of ours between the consumer and the chunk
        return starmap(cell_job, [(*c, threads) for c in calls])
    return _run_pool(calls, threads)


def _run_pool(calls: Sequence[ChunkCall], threads: int) -> Iterator[tuple[int, int, int, ChunkSums]]:
    """:func:`_run_threaded` on a pool of ``threads`` threads."""
    pool = ThreadPoolExecutor(threads)
    tail = len(calls) - (threads - 1)  # chunks from here on start when no other chunk is waiting
    todo = iter(enumerate(calls))
    pending: set[Future[tuple[int, int, int, ChunkSums]]] = set()

    def submit(count: int) -> None:
        for i, (cell, k, n, seed, check, sim) in todo:
            pending.add(pool.submit(cell_job, cell, k, n, seed, check, sim, threads if i >= tail else 1))
            count -= 1
            if count == 0:
                return

    try:
        submit(threads * (1 + AHEAD))
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            pending.difference_update(done)
            submit(len(done))  # before the results are taken: the threads stay busy
            for f in done:
                yield f.result()
    finally:  # Ctrl-C, a failed chunk or a consumer that stops: no queued chunk starts (running ones finish)
        pool.shutdown(wait=True, cancel_futures=True)


# --------------------------------------------------------------------------- sums


def ordered_parts(cells: Iterable[Cell], done: dict[tuple[int, int], dict[str, pd.DataFrame]]
                  ) -> dict[str, list[pd.DataFrame]]:
    """Every chunk's tables with a ``cell`` column, in (cell, chunk) order: what sum_tables takes."""
    parts: dict[str, list[pd.DataFrame]] = {name: [] for name in TABLES}
    for cell in cells:
        for k, _ in cell.chunks():
            for name in TABLES:
                parts[name].append(done[(cell.index, k)][name].assign(cell=cell.index))
    return parts


def simulate_cells(cells: Sequence[Cell], *, seed: int, check: bool = False, simulator: str | None = None,
                   jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
                   on_chunk: Callable[[int, int], None] | None = None, columns: bool = False) -> dict[str, Any]:
    """Every chunk of ``cells`` run and summed per cell (no chunk store: ``simulate``, the API): frames, or with
    ``columns`` each table as its columns (analyzer.stats.sums.Columns; no pandas imported).

    ``on_chunk(cell index, units)`` is called as each chunk finishes (a progress bar).
    """
    engine_mode()  # $DURAK_ENGINE checked once, here in the parent (a run of cells checks it in run_cells)
    tasks = [(c, k, n) for c in cells for k, n in c.chunks()]
    totals = RunTotals(cells)  # each chunk folded in as it may be (its cell's earlier ones in), then dropped
    for ci, k, n, sums in run_cell_chunks(tasks, seed=seed, check=check, simulator=simulator, jobs=jobs,
                                          backend=backend, scheduler=scheduler):
        totals.add(ci, k, sums)
        if on_chunk is not None:
            on_chunk(ci, n)
    return totals.columns() if columns else totals.tables()


def simulate_deals(rules: RuleSet, strategies: Sequence[object], n: int,
                   seed: int | SeedSequence | None = None, *, decks: NDArray[np.integer] | None = None,
                   check: bool = False, where: FaultContext | None = None) -> DealResults:
    """``n`` deals of a line-up by position (``strategies[p]`` plays position p) on the kernel: the engine every
    line-up that the engine's table runner does not serve plays on when forced (``compiled``), Python strategies
    paused at their decisions and the public history logged for those that read it.  Deals come from the seed's
    shuffles or from ``decks`` (N, D).  For scripts and tests that want deals, not a run's sums."""
    ss = seed if isinstance(seed, SeedSequence) else SeedSequence(seed)
    if needs_table(strategies):
        known = (simulate_known(rules, list(strategies), n, ss, "deal") if decks is None
                 else simulate_observed(rules, list(strategies), np.asarray(decks)[:n], ss))
        assert isinstance(known, DealResults)
        return known
    out = serve.simulate_chunk(rules, list(strategies), n, ss, matches=False, check=check, where=where,
                               decks=None if decks is None else np.asarray(decks)[:n])
    assert isinstance(out, DealResults)
    return out


def simulate_matches(rules: RuleSet, strategies: Sequence[object], n: int,
                     seed: int | SeedSequence | None = None, *, decks: NDArray[np.integer] | None = None,
                     hands: Sequence[int] | None = None, check: bool = False,
                     where: FaultContext | None = None) -> MatchResults:
    """``n`` matches to ``rules.target`` (G11; ``strategies[i]`` is player i, who leads deal 1) on the kernel, as
    :func:`simulate_deals` plays deals; ``decks`` (n, K, D): the first K decks of each match, ``hands``: dealt by
    player (analyzer.kernel.matches)."""
    if rules.target is None:
        raise ValueError(f"{rules.variant} has no match target; set the rule target=POINTS")
    ss = seed if isinstance(seed, SeedSequence) else SeedSequence(seed)
    if needs_table(strategies):
        known = (simulate_known(rules, list(strategies), n, ss, "match") if decks is None and hands is None
                 else simulate_observed_matches(rules, list(strategies), np.asarray(decks), ss, hands=hands))
        assert isinstance(known, MatchResults)
        return known
    out = serve.simulate_chunk(rules, list(strategies), n, ss, matches=True, check=check, where=where,
                               decks=None if decks is None else np.asarray(decks), hands=hands)
    assert isinstance(out, MatchResults)
    return out
