"""``durak bench``'s end-to-end rows: what a user's ``durak simulate`` gets, and where its time goes.

Three measurements in one sitting, alternating round by round so the shared
machine's moods touch them alike:

* ``durak simulate`` itself, a fresh process per run, as a user types it
  (``--json``): the deals per second its JSON reports (the run, from the
  cell's first chunk to its summed tables) and the deals per second of the
  whole process (interpreter start and imports included);
* the same command's run taken apart (:func:`breakdown`, a fresh process
  too): start-up (interpreter and imports), set-up (rules, line-up, engine),
  kernel load (the first call of the kernel the cell plays on: numba's
  start, the kernel loaded from its cache or compiled), play (kernel calls,
  decks included), tables (chunk sums and their sum), and the rest;
* the comparator, a minimal shedding game written straight in numba
  (``benchmarks/proto_game.py`` of a source checkout: lab apparatus of the
  project's speed studies, not installed with the package, so its rows are
  left out where it is absent; :func:`comparator`): one thread (CPU time, and
  wall time, which the ratio to the command's figure uses) and every core
  (wall time of ``cores`` times the deals).

The case: prague 4 players, random in every seat, 600,000
deals, seed 3, ``--jobs 1`` and ``--jobs`` every core.

And the fixed costs a user pays at every command (:func:`startup`): the CPU
seconds of ``durak --help``, of ``durak simulate --deals 1000`` (its kernel
cached) and of ``durak report`` of the committed quick report, drawn from
scratch and again unchanged, each in a fresh process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution import executor, lineup, totals
from analyzer.execution.experiment import single_cell
from analyzer.execution.play import play_cell
from analyzer.kernel import serve

#: the measured command (deals and jobs are added)
CASE = ("prague", 4, "random,random,random,random", 3)
LABEL = "prague 4p random"


def command(deals: int, jobs: int) -> list[str]:
    """``durak simulate`` of the case as a user runs it (the installed entry point's module)."""
    variant, players, strategies, seed = CASE
    return [sys.executable, "-m", "analyzer", "simulate", "--variant", variant, "--players", str(players),
            "--strategies", strategies, "--deals", str(deals), "--seed", str(seed), "--jobs", str(jobs), "--json"]


def _env() -> dict[str, str]:
    """The child's environment: this one, with this process's import path (an uninstalled checkout works too), and
    Python's bytecode caches on as a user's Python has them (PYTHONDONTWRITEBYTECODE dropped: the warm-up runs
    write the .pyc files, the timed ones read them; with it set, every start compiled pandas and pyarrow again,
    ~2.5 CPU-s that no user pays)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}


def run_command(deals: int, jobs: int) -> dict[str, float]:
    """One ``durak simulate`` process: its wall seconds, the JSON's deals/s, and deals/s over the whole process."""
    t = time.perf_counter()
    out = subprocess.run(command(deals, jobs), capture_output=True, text=True, env=_env(), check=True)
    wall = time.perf_counter() - t
    got = json.loads(out.stdout)
    return {"wall_s": wall, "reported": float(got["deals_per_second"]), "process": deals / wall,
            "turns": float(got["mean_turns"])}


#: the child of :func:`run_breakdown`: time the imports from its first line (what ``durak`` imports, then this
#: module), then :func:`breakdown`
_CHILD = ("import time, sys; t0 = time.perf_counter(); c0 = time.process_time(); import analyzer.cli.app; "
          "from analyzer.execution.bench_e2e import breakdown; breakdown(t0, c0, *map(int, sys.argv[1:]))")


def run_breakdown(deals: int, jobs: int) -> dict[str, float]:
    """:func:`breakdown` in a fresh process; ``start_s`` adds the interpreter's own start to its imports."""
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD, str(deals), str(jobs)], capture_output=True, text=True,
                         env=_env(), check=True)
    wall = time.perf_counter() - t
    parts = json.loads(out.stdout.strip().splitlines()[-1])
    parts["start_s"] = wall - parts.pop("inside_s")  # the interpreter's start, imports, and the exit
    return parts


def breakdown(t0: float, c0: float, deals: int, jobs: int) -> None:
    """In a fresh process: ``durak simulate``'s path (analyzer.cli.app.simulate) with its phases timed; prints
    one JSON line of seconds (wall; ``*_cpu`` CPU of the process)."""
    clock = {"start": time.perf_counter() - t0}
    cpu = {"start": time.process_time() - c0}
    t, c = time.perf_counter(), time.process_time()
    variant, players, strategies, _ = CASE
    rules = make_rules(variant, players)
    specs = tuple(strategies.split(","))
    cell = single_cell(rules, specs, unit="deal", n=deals)
    executor.cell_engines([cell])
    clock["setup"], cpu["setup"] = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    strats = lineup.build(cell.lineup, get_strategy)  # the kernel the first chunk plays on, called on one deal
    serve.simulate_chunk(rules, strats, 1, np.random.SeedSequence(0), matches=False, threads=1,
                         specialise=executor.cell_specialise(cell, strats))
    clock["load"], cpu["load"] = time.perf_counter() - t, time.process_time() - c
    spent = {"play": 0.0, "tables": 0.0}
    # a chunk's sums, their tables folded into the running totals, the totals' tables
    tables_fns = ((executor, "chunk_sums"), (totals.RunTotals, "_fold"), (totals.GroupSums, "frame"))
    real_chunk, real_tables = serve.simulate_chunk, {(owner, name): getattr(owner, name) for owner, name in tables_fns}

    def timed(fn: Any, part: str) -> Any:
        def call(*a: Any, **k: Any) -> Any:
            s = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[part] += time.perf_counter() - s
        return call

    serve.simulate_chunk = timed(real_chunk, "play")
    for (owner, name), fn in real_tables.items():
        setattr(owner, name, timed(fn, "tables"))
    t, c = time.perf_counter(), time.process_time()
    try:
        _, elapsed = play_cell(cell, seed=CASE[3], jobs=jobs)
    finally:
        serve.simulate_chunk = real_chunk
        for (owner, name), fn in real_tables.items():
            setattr(owner, name, fn)
    run, run_cpu = time.perf_counter() - t, time.process_time() - c
    out = {"setup_s": clock["setup"], "load_s": clock["load"], "play_s": spent["play"], "tables_s": spent["tables"],
           "run_s": run, "run_cpu_s": run_cpu, "elapsed_s": elapsed, "start_cpu_s": cpu["start"],
           "load_cpu_s": cpu["load"], "inside_s": time.perf_counter() - t0 - clock["start"]}
    print(json.dumps(out), flush=True)


#: where a source checkout keeps the comparator game (beside the package, not in it)
COMPARATOR = Path(__file__).resolve().parents[2] / "benchmarks" / "proto_game.py"


def comparator(path: Path = COMPARATOR) -> ModuleType | None:
    """The comparator game's module, loaded from a source checkout; None where it is not there (an installed
    package): the bench then measures the product alone."""
    if not path.is_file():
        return None
    loaded = sys.modules.get("durak_bench_comparator")
    if loaded is not None and Path(loaded.__file__ or "") == path:  # once a process: executing it again redoes its set-up
        return loaded
    spec = importlib.util.spec_from_file_location("durak_bench_comparator", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache and pickling find it by this name
    spec.loader.exec_module(module)
    return module


def measure(deals: int, repeats: int) -> dict[str, Any]:
    """``repeats`` rounds of: the command on one core and on every core, its breakdown on each, the comparator.

    Returns the rows' figures (best and median per second) and the breakdown's medians (seconds).
    """
    cores = os.cpu_count() or 1
    runs: dict[int, list[dict[str, float]]] = {1: [], cores: []}
    parts: dict[int, list[dict[str, float]]] = {1: [], cores: []}
    proto_one: list[float] = []
    proto_wall: list[float] = []
    proto_every: list[float] = []
    proto = comparator()
    run_command(1000, 1)  # the first run of a kernel in the cache after an edit compiles it: not counted
    for _ in range(repeats):
        for jobs in runs:
            runs[jobs].append(run_command(deals, jobs))
            parts[jobs].append(run_breakdown(deals, jobs))
        if proto is not None:
            one, wall, every = proto.rates(deals, cores, 1)
            proto_one += one
            proto_wall += wall
            proto_every += every
    med = lambda xs: float(np.median(xs))  # noqa: E731
    out: dict[str, Any] = {"case": LABEL, "deals": deals, "cores": cores, "repeats": repeats}
    for jobs, label in ((1, "one_core"), (cores, "all_cores")):
        rs = runs[jobs]
        out[label] = {"reported": max(r["reported"] for r in rs), "reported_median": med([r["reported"] for r in rs]),
                      "process": max(r["process"] for r in rs), "process_median": med([r["process"] for r in rs]),
                      "breakdown": {k: round(med([p[k] for p in parts[jobs]]), 3) for k in parts[jobs][0]}}
    if proto is None:
        return out
    out["prototype"] = {"one_core": max(proto_one), "one_core_median": med(proto_one),
                        "one_core_wall_median": med(proto_wall), "all_cores": max(proto_every),
                        "all_cores_median": med(proto_every)}
    p = out["prototype"]
    # wall against wall: the command's figure is wall time, so the comparator's one-thread figure here is too
    out["vs_prototype"] = {"one_core": out["one_core"]["reported_median"] / p["one_core_wall_median"],
                           "all_cores": out["all_cores"]["reported_median"] / p["all_cores_median"]}
    # the games differ in length: the same ratio per turn played (a deal of the case against one of the comparator)
    turns = {"case": runs[1][0]["turns"], "prototype": proto.turns_per_deal(deals)}
    scale = turns["case"] / turns["prototype"]
    out["turns_per_deal"] = turns
    out["vs_prototype_per_turn"] = {k: v * scale for k, v in out["vs_prototype"].items()}
    return out


# ------------------------------------------------------------------ start-up and reports: CPU seconds of a command

#: the fixed-cost commands ``durak bench`` times as a user runs them, a fresh process each: (row, arguments)
STARTUP = (("durak --help", ["--help"]),
           ("durak simulate --deals 1000", ["simulate", "--deals", "1000", "--quiet"]))
#: the committed example report rebuilt by the report rows (from its stored results, in a temporary copy)
QUICK = Path(__file__).resolve().parents[2] / "reports" / "quick"


def cpu_of(argv: list[str]) -> float:
    """CPU seconds (user + system) of ``durak ARGV`` in a fresh process, its children (forked chart drawers)
    included; the command must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "analyzer", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   env=_env(), check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup(repeats: int, report: Path | None = QUICK) -> dict[str, Any]:
    """``repeats`` rounds of every :data:`STARTUP` command and, where ``report`` holds stored results, ``durak
    report`` of a copy of it: drawn from scratch, then again unchanged (nothing to draw).  Per row the best and
    the median CPU seconds; the load average before and after (what else ran).  Every command runs once untimed
    first: the kernel from the cache (compiled first if not there) and the bytecode caches written (:func:`_env`)."""
    load_before = os.getloadavg()
    for _, argv in STARTUP:
        cpu_of(argv)
    rows: dict[str, list[float]] = {label: [] for label, _ in STARTUP}
    has_results = report is not None and (report / "results").is_dir() and (report / "manifest.json").is_file()
    with tempfile.TemporaryDirectory(prefix="durak-bench-") as tmp:
        copy = Path(tmp) / "report"
        if has_results:
            assert report is not None
            shutil.copytree(report / "results", copy / "results")
            shutil.copy2(report / "manifest.json", copy / "manifest.json")
            rows[f"durak report {report.name}, drawn"] = []
            rows[f"durak report {report.name}, unchanged"] = []
            cpu_of(["report", str(copy), "-q", "--redraw"])  # untimed: what drawing imports, its bytecode written
        for _ in range(repeats):
            for label, argv in STARTUP:
                rows[label].append(cpu_of(argv))
            if has_results:
                assert report is not None
                rows[f"durak report {report.name}, drawn"].append(cpu_of(["report", str(copy), "-q", "--redraw"]))
                rows[f"durak report {report.name}, unchanged"].append(cpu_of(["report", str(copy), "-q"]))
    return {"repeats": repeats, "rows": {k: {"best": min(v), "median": float(np.median(v))} for k, v in rows.items()},
            "load": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}}


def startup_lines(st: dict[str, Any]) -> list[str]:
    """The start-up rows as text: each command's CPU seconds, best (median), and the load beside them."""
    out = [f"start-up and reports: CPU seconds of a fresh process (children included), best (median) of "
           f"{st['repeats']}; load average before {st['load']['before']}, after {st['load']['after']}"]
    out += [f"  {label}: {r['best']:.2f} ({r['median']:.2f})" for label, r in st["rows"].items()]
    return out
