"""``durak bench``: one benchmark of every engine, measured in one run.

Rows (a case on an engine), each on one core and on every core:

* ``compiled`` — the compiled kernel through the executor (what ``durak simulate`` does, chunk sums included);
* ``kernel`` — the kernel alone (no chunk sums): the engine's own speed; its
  one-core figure is CPU time (one thread in this process), so that the
  shared machine's load does not count; ``kernel, fixed rules``: the same on
  the kernel compiled for the case's rules (the same deals; its compile time
  is printed apart); its every-core figure is a run of ``cores`` times the
  deals, as long as the one-core run; its ``machine`` column is this
  machine's own two-thread speed-up of pure arithmetic measured beside the
  row's every-core runs and the same way (analyzer.kernel.probe), the most
  two threads could gain at that moment;
* ``simple path`` / ``python fast path`` — ``random`` as a user's Python
  strategy (``choose`` per decision; ``choose_batch``), the README's simple
  strategy (``simple path, README's strategy``) and ``tracker`` in every seat
  (``history reader``: the kernel logs the public events, Python reads them),
  ``…, paused kernel``: on the kernel paused at its decisions (what a
  line-up with a Python strategy runs on; the pause kernel compiled for the
  case's rules), in CPU time (one core);
* ``rules engine`` — the rules engine (one core);
* ``rollouts`` — czech 2p positions played out by the compiled ``greedy``
  policy (what search spends its time on);
* rows of :mod:`analyzer.execution.bench_search` (search: decisions and
  rollouts per second of pimc);
* end to end (:mod:`analyzer.execution.bench_e2e`): ``durak simulate``
  of prague 4p random as a user runs it, a fresh process per run (the deals
  per second its JSON reports, and over the whole process), its time taken
  apart (start-up, kernel load, play, tables), beside a comparator written
  straight in numba (``benchmarks/proto_game.py`` of a source checkout);
* start-up and reports (:func:`analyzer.execution.bench_e2e.startup`): the CPU
  seconds of ``durak --help``, of ``durak simulate --deals 1000`` and of
  ``durak report`` of the committed quick report (drawn, and unchanged), each
  a fresh process, with the load average beside them.

Each row also gives nanoseconds per turn on one core; prague's and svinya's
cost per turn over czech's is the median of rounds that run the three back to
back (:func:`per_turn_rounds`).  The first calls of the
kernels (compiling, or loading them from the cache) are timed apart.  The
machines are shared and noisy: compare ratios measured in one run.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.core.cards import DRAW, TAKE, shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.engine.deal import Deal, forced_action, play_deal
from analyzer.execution import bench_e2e, bench_search
from analyzer.execution.play import play
from analyzer.execution.store import atomic_write
from analyzer.kernel import _cache, apart, serve
from analyzer.kernel.driver import DEALS, deals_kernel, simulate_deals
from analyzer.kernel.jit import Specialised
from analyzer.kernel.matches import matches_kernel, simulate_matches
from analyzer.kernel.params import rule_params
from analyzer.kernel.policies import GREEDY
from analyzer.kernel.positions import POSITIONS, Positions, encode_deal, play_from_positions, positions_kernel
from analyzer.kernel.probe import two_thread_scaling

#: (label, variant, players, strategies by position): the deal cases
CASES = [
    ("czech 4p random", "czech", 4, ["random"]),
    ("czech 4p greedy", "czech", 4, ["greedy"]),
    ("czech 4p weighted", "czech", 4, ["weighted"]),
    ("prague 4p random", "prague", 4, ["random"]),
    ("svinya 2p random", "svinya", 2, ["random"]),
    ("svinya 2p greedy vs greedy", "svinya", 2, ["greedy"]),
]
#: repeats of the kernel and Python-strategy rows (the CLI's --repeats default too): the shared machine moves
#: a single timing by 1.5x, and the best of more repeats is likelier to catch a moment when nothing else ran
#: (the median is printed beside it)
REPEATS = 5
#: chunk of the executor rows: large, so that a run hides the pool's fixed costs
CHUNK = 100_000


@dataclass
class Row:
    case: str
    engine: str
    unit: str  # deals, matches, rollouts, decisions
    n: int
    one_core: float  # per second
    all_cores: float | None  # per second on every core (None: not measured)
    ns_per_turn: float | None  # one core
    turns: float | None  # mean turns per unit (matches: deals per match)
    one_core_median: float | None = None  # median of the repeats (one_core is the best of them)
    repeats: int = 1
    ceiling: float | None = None  # kernel rows: the machine's two-thread speed-up of pure arithmetic beside them
    all_cores_median: float | None = None  # median of the every-core repeats (all_cores is the best), where repeated


class SimpleOnly:
    """A strategy seen through its simple path only (no choose_batch)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "simple")
        self.choose = inner.choose  # type: ignore[attr-defined]  # bound once: no wrapper call per decision


def _peak_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _row(case: str, engine: str, n: int, t1: float, tn: float | None, turns: float | None,
         unit: str = "deals") -> Row:
    ns = None if turns is None else 1e9 * t1 / (n * turns)
    return Row(case, engine, unit, n, n / t1, None if tn is None else n / tn, ns, turns)


def _turns(tables: dict[str, Any]) -> float:
    tot = tables["totals"].iloc[0]
    return float(tot["turns_sum"] / tot["n"])


def executor_rows(case: str, rules: RuleSet, specs: list[str], n: int) -> list[Row]:
    """The case through the executor, on one core and on all (same job, same seeds)."""
    cores = os.cpu_count() or 1
    chunk = max(1, min(CHUNK, n // cores))
    warm = min(n, 20_000)
    # warm-up (the worker pool, caches): a chunk per core, so the pool starts here, not in the timed run
    play(rules, specs, warm, seed=99, jobs=-1, chunk=max(1, min(10_000, warm // cores)))
    tables, t1 = play(rules, specs, n, seed=1, jobs=1, chunk=chunk)
    _, tn = play(rules, specs, n, seed=1, jobs=-1, chunk=chunk)
    return [_row(case, "compiled", n, t1, tn, _turns(tables))]


#: the match rows play this many times ``n`` matches: 10,000 compiled matches are 0.1 s, a run whose fixed costs
#: (the cell's set-up, the tables' sum) weigh as much as a few chunks on two cores
COMPILED_MATCHES = 10


def match_rows(n: int, repeats: int = REPEATS) -> list[Row]:
    """czech 4p random matches to 100 through the executor, default match chunks: :data:`COMPILED_MATCHES` times
    ``n`` on the kernel (threads over chunks, and over blocks of matches for the last).

    The warm-up plays as many matches as a timed run: a run of 100,000 matches or more switches to the kernel
    compiled for its rules (analyzer.kernel.jit.Specialised), and that switch (a load from the cache, or a
    compile) fell in the first timed run -- the one-core one -- and made two cores look faster than they are
    (a one-core run at 36k matches/s where the next ones ran at 142-164k).  ``repeats`` rounds of one core then
    every core: the best and the median of each."""
    rules = make_rules("czech", 4, {"target": 100})
    count = COMPILED_MATCHES * n
    play(rules, ["random"], count, seed=99, jobs=-1, matches=True)  # warm-up, as big as a run
    one, every = [], []
    for _ in range(repeats):
        tables, t1 = play(rules, ["random"], count, seed=1, jobs=1, matches=True)
        _, tn = play(rules, ["random"], count, seed=1, jobs=-1, matches=True)
        one.append(t1)
        every.append(tn)
    tot = tables["totals"].iloc[0]
    row = _repeated("czech 4p random matches to 100", "compiled", count, one, min(every), None)
    row.unit, row.turns = "matches", float(tot["deals_sum"] / tot["n"])  # deals per match
    row.all_cores_median = count / float(np.median(every))
    return [row]


#: the engine of the kernel rows compiled for the case's rules (analyzer.kernel.jit.Specialised)
FIXED = "kernel, fixed rules"


def kernel_rows(case: str, rules: RuleSet, specs: list[str], n: int, repeats: int = REPEATS) -> list[Row]:
    """The kernel alone: deals with their own deck streams, no chunk sums; on the kernel for any rules, and
    on the kernel compiled for these rules (analyzer.kernel.jit.Specialised: same deals, rules as constants).

    ``repeats`` rounds, the two kernels alternating in each: one core is the best (and median) CPU time of
    one thread in this process, so the shared machine's load counts as little as it can; every core is the
    best wall time of ``cores * n`` deals, a run about as long as the one-core one, so that what a run costs
    once (its result arrays, the threads' start, the last pieces, where a thread may wait for the other) weighs
    alike in both figures (a run of ``n`` on two threads lasts half as long: those costs weighed twice as much).
    Beside each every-core run the machine's own two-thread speed-up of pure arithmetic, measured the same
    way (analyzer.kernel.probe), is taken: the row's ``ceiling`` is their median, what the machine gave two
    threads that share nothing while the kernel's figure was taken.
    """
    lineup = [get_strategy(specs[p % len(specs)]) for p in range(rules.players)]
    engines = (("kernel", False), (FIXED, True))
    every = n * (os.cpu_count() or 1)
    cpu: dict[str, list[float]] = {e: [] for e, _ in engines}
    wall: dict[str, list[float]] = {e: [] for e, _ in engines}
    ceiling: dict[str, list[float]] = {e: [] for e, _ in engines}
    turns: dict[str, float] = {}
    for _, special in engines:
        simulate_deals(rules, lineup, 10, seed=1, threads=1, specialise=special)  # compiled (or loaded) apart
    for _ in range(repeats):
        for engine, special in engines:
            t = time.process_time()
            res = simulate_deals(rules, lineup, n, seed=1, threads=1, specialise=special)
            cpu[engine].append(time.process_time() - t)
            turns[engine] = float(res.turns.mean())
            t = time.perf_counter()
            simulate_deals(rules, lineup, every, seed=1, specialise=special)  # every core
            wall[engine].append(time.perf_counter() - t)
            ceiling[engine].append(two_thread_scaling())
    rows = [_repeated(case, e, n, cpu[e], None, turns[e]) for e, _ in engines]
    for r in rows:
        r.all_cores = every / min(wall[r.engine])
        r.ceiling = float(np.median(ceiling[r.engine]))
    return rows


def _repeated(case: str, engine: str, n: int, times: list[float], tn: float | None, turns: float | None,
              ) -> Row:
    """A row from repeated one-core times: the best, and the median beside it."""
    row = _row(case, engine, n, min(times), tn, turns)
    row.one_core_median, row.repeats = n / float(np.median(times)), len(times)
    return row


class PythonForm:
    """A built-in seen as a user's Python strategy: its ``choose`` and ``choose_batch``, no compiled form."""

    def __init__(self, inner: object) -> None:
        self.name = getattr(inner, "name", "python")
        self.choose = inner.choose  # type: ignore[attr-defined]
        self.choose_batch = inner.choose_batch  # type: ignore[attr-defined]


class HighestCard:
    """The README's simple strategy ("Writing a strategy"): the highest legal card, never a suit."""

    name = "highest-card"

    def choose(self, view: Any, rng: np.random.Generator) -> tuple[int, None]:
        cards = [a for a in view.legal if a < DRAW]
        if cards:
            return max(cards), None
        return (TAKE if TAKE in view.legal else DRAW), None


def python_rows(case: str, rules: RuleSet, n_simple: int, n_fast: int, repeats: int = REPEATS) -> list[Row]:
    """random as a Python strategy, simple path and fast path, the README's simple strategy and tracker (which
    reads the public history), on the kernel paused at their decisions (``repeats`` times each)."""
    rows = []
    for label, strat, n in (("simple path", SimpleOnly(get_strategy("random")), n_simple),
                            ("simple path, README's strategy", HighestCard(), n_simple),
                            ("python fast path", PythonForm(get_strategy("random")), n_fast)):
        rows += _paused(case, label, rules, [strat] * rules.players, n, repeats)
    # a strategy that reads the public history: the kernel logs the deals' events, Python reads them into the
    # public record (analyzer.kernel.history); the generic pause kernel (no compile of its own)
    rows += _paused(case, "history reader (tracker)", rules, [get_strategy("tracker")] * rules.players,
                              n_fast, repeats, specialise=False)
    return rows


def _paused(case: str, label: str, rules: RuleSet, lineup: list[object], n: int, repeats: int,
            specialise: bool = True) -> list[Row]:
    """The line-up on the kernel paused at its decisions, on one core (CPU time), ``repeats`` times.
    ``specialise``: the pause kernel compiled for these rules, as a process uses after 1M deals of them."""
    def paused() -> Any:
        return serve.simulate_chunk(rules, lineup, n, np.random.SeedSequence(0), matches=False,
                                    specialise=specialise)

    serve.simulate_chunk(rules, lineup, min(n, 500), np.random.SeedSequence(9), matches=False,
                         specialise=specialise)  # warm-up: compiled (or loaded) apart
    t_k = []
    for _ in range(repeats):
        t, res = _cpu_timed(paused)
        t_k.append(t)
    return [_repeated(case, f"{label}, paused kernel", n, t_k, None, float(res.turns.mean()))]


def _cpu_timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU time of this process (these rows run on one thread)."""
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def engine_row(case: str, rules: RuleSet, n: int, seed: int = 0) -> Row:
    """random on the rules engine (analyzer.engine.deal), one deal at a time."""
    rng = np.random.default_rng(seed)
    strat = [get_strategy("random")] * rules.players
    decks = shuffled_decks(rules.deck_size, n, rng)
    t0 = time.perf_counter()
    turns = sum(play_deal(Deal.from_deck(rules, decks[i].tolist(), rng=rng), strat, rng).turns for i in range(n))
    return _row(case, "rules engine", n, time.perf_counter() - t0, None, turns / n)


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


def rollout_row(n: int) -> Row:
    """Rollouts from czech 2p positions with the compiled greedy policy (search's inner loop)."""
    rules = make_rules("czech", 2)
    greedy = [get_strategy("greedy")] * 2
    pos = rollout_positions()
    pos = pos.repeat(-(-n // len(pos)))
    play_from_positions(rules, greedy, rollout_positions(1), threads=1, specialise=True)  # compiled (or loaded) apart
    t1, res = _timed(lambda: play_from_positions(rules, greedy, pos, threads=1, specialise=True))
    tn, _ = _timed(lambda: play_from_positions(rules, greedy, pos, specialise=True))
    return _row("czech 2p greedy from positions", "kernel", len(pos), t1, tn, float(res.turns.mean()), "rollouts")


def compile_seconds(variants: list[str], rollouts: bool) -> dict[str, float | int]:
    """Seconds of the first (compiling or cache-loading) call of each kernel; how many came from the cache;
    the same for the kernels compiled for the rule sets of ``variants`` (and of the rollouts)."""
    rules = make_rules("czech", 2, {"target": 30})
    greedy = [get_strategy("greedy")] * 2
    out: dict[str, float | int] = {}
    out["deals_s"] = round(_timed(lambda: simulate_deals(rules, greedy, 1, threads=1))[0], 3)
    out["matches_s"] = round(_timed(lambda: simulate_matches(rules, greedy, 1, threads=1))[0], 3)
    pos = rollout_positions(1)
    out["positions_s"] = round(_timed(lambda: play_from_positions(rules, greedy, pos, threads=1))[0], 3)
    out["cache_hits"] = sum(len(k.stats.cache_hits) for k in (deals_kernel, matches_kernel, positions_kernel))
    # the kernels compiled for the benchmark's rule sets (a few seconds each when not in the cache)
    t = time.perf_counter()
    made = []
    for variant, players in sorted({(v, p) for _, v, p, _ in CASES if v in variants}):
        rules = make_rules(variant, players)
        simulate_deals(rules, [get_strategy("greedy")] * players, 1, threads=1, specialise=True)
        made.append(_from_cache(DEALS, rules, GREEDY))  # the kernel for the rules and an all-greedy table
    if rollouts:
        play_from_positions(make_rules("czech", 2), greedy, pos, threads=1, specialise=True)
        made.append(_from_cache(POSITIONS, make_rules("czech", 2)))
    out["rules_s"] = round(time.perf_counter() - t, 3)
    out["rules_kernels"] = len(made)
    out["rules_cached"] = sum(made)
    return out


def _from_cache(kernels: Specialised, rules: RuleSet, lineup: int | None = None) -> bool:
    """Whether the kernel compiled for ``rules`` (and ``lineup``, analyzer.kernel.driver.lineup_code; called once
    already) came from the cache."""
    return bool(kernels.kernel(rule_params(rules), 0, True, lineup).stats.cache_hits)  # type: ignore[union-attr]  # not None


def search_rows() -> list[Row]:
    """Rows of analyzer.execution.bench_search: pimc's searched decisions and rollouts per second."""
    return [Row(**r) for r in bench_search.search_rows()]  # type: ignore[arg-type]  # dicts in Row's fields


#: rounds of the end-to-end rows at most (each round starts four processes)
E2E_ROUNDS = 3


def end_to_end_rows(end: dict[str, Any]) -> list[Row]:
    """The rows of :func:`analyzer.execution.bench_e2e.measure`'s figures: the command's JSON figure, the whole
    process, and the comparator."""
    case, n, reps = end["case"], end["deals"], end["repeats"]
    one, every = end["one_core"], end["all_cores"]
    rows = [Row(case, "durak simulate --json (its deals/s)", "deals", n, one["reported"], every["reported"], None,
                None, one["reported_median"], reps),
            Row(case, "durak simulate, whole process", "deals", n, one["process"], every["process"], None, None,
                one["process_median"], reps)]
    proto = end.get("prototype")
    if proto is not None:  # the comparator of a source checkout (analyzer.execution.bench_e2e.comparator)
        rows.append(Row("4p shedding prototype", "prototype kernel (benchmarks/proto_game.py)", "deals", n,
                        proto["one_core"], proto["all_cores"], None, None, proto["one_core_median"], reps))
    return rows


def measure(*, deals: int, simple_deals: int, engine_deals: int, rollouts: int, variants: list[str],
            search: bool = True, repeats: int = REPEATS, on_row: Callable[[], None] | None = None,
            e2e_deals: int = 0, startup_repeats: int = 0) -> dict[str, Any]:
    """Every row of the benchmark for ``variants``, the compile times, the peak memory and the machine's
    load average before and after (what else was running); ``e2e_deals``: the end-to-end rows (prague among
    ``variants``) with that many deals a run (0: none); ``startup_repeats``: rounds of the start-up and report
    rows (analyzer.execution.bench_e2e.startup; 0: none)."""
    load_before = os.getloadavg()
    comp = compile_seconds(variants, rollouts > 0)
    rows: list[Row] = []
    tick = on_row or (lambda: None)
    for case, variant, players, specs in CASES:
        if variant not in variants:
            continue
        rules = make_rules(variant, players)
        rows += executor_rows(case, rules, specs, deals)
        rows += kernel_rows(case, rules, specs, deals, repeats)
        if specs == ["random"]:
            if simple_deals:
                rows += python_rows(case, rules, simple_deals, min(deals, 10 * simple_deals), repeats)
            if engine_deals:
                rows.append(engine_row(case, rules, engine_deals))
        tick()
    if "czech" in variants:
        rows += match_rows(max(100, deals // 20), repeats)
    if rollouts:
        rows.append(rollout_row(rollouts))
    if search:
        rows += search_rows()
    end = None
    if e2e_deals and "prague" in variants:
        end = bench_e2e.measure(e2e_deals, min(repeats, E2E_ROUNDS))
        rows += end_to_end_rows(end)
    rounds = per_turn_rounds(variants, deals, max(repeats, PER_TURN_ROUNDS))
    start = bench_e2e.startup(startup_repeats) if startup_repeats else None
    tick()
    return {"cores": os.cpu_count() or 1, "compile": comp, "rows": [asdict(r) for r in rows], "end_to_end": end,
            "startup": start,
            "peak_mib": round(_peak_mib(), 1), "compiled_apart": apart.compile_summary(), "repeats": repeats,
            "load": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]},
            "per_turn_vs_czech": per_turn_vs_czech(rounds),
            "per_turn_rounds": {case: [round(x, 3) for x in v] for case, v in rounds.items()},
            "kernel_cache": None if _cache.FOLDER is None else str(_cache.FOLDER)}


#: rounds of the per-turn comparison at least (it is cheap: one run of each random case a round)
PER_TURN_ROUNDS = 5


def per_turn_rounds(variants: list[str], n: int, rounds: int) -> dict[str, list[float]]:
    """Each random case's ns/turn over czech 4p random's on the kernel compiled for its rules, one ratio a round.

    In a round the random cases run back to back (one thread, CPU time), in an
    order rotated from round to round, so a change of the shared machine's
    speed between rows of the table touches both sides of a ratio alike
    (prague and svinya at czech's cost per turn, within 25%).
    """
    cases = [(case, make_rules(v, p)) for case, v, p, specs in CASES if specs == ["random"] and v in variants]
    if not cases or cases[0][0] != "czech 4p random" or len(cases) < 2:
        return {}
    lineups = {case: [get_strategy("random")] * rules.players for case, rules in cases}
    for case, rules in cases:
        simulate_deals(rules, lineups[case], 10, seed=1, threads=1, specialise=True)  # compiled (or loaded) apart
    out: dict[str, list[float]] = {case: [] for case, _ in cases[1:]}
    for r in range(rounds):
        ns: dict[str, float] = {}
        for case, rules in cases[r % len(cases):] + cases[:r % len(cases)]:
            t = time.process_time()
            res = simulate_deals(rules, lineups[case], n, seed=1, threads=1, specialise=True)
            ns[case] = (time.process_time() - t) / (n * float(res.turns.mean()))
        for case in out:
            out[case].append(ns[case] / ns["czech 4p random"])
    return out


def per_turn_vs_czech(rounds: dict[str, list[float]]) -> dict[str, float]:
    """The median of each case's per-round ratios (:func:`per_turn_rounds`)."""
    return {case: round(float(np.median(x)), 3) for case, x in rounds.items()}


def _json_number(x: object) -> object:
    """Floats rounded to 2 places; NaN becomes null."""
    if not isinstance(x, float):
        return x
    return None if x != x else round(x, 2)


def run_bench(*, deals: int, simple_deals: int, engine_deals: int, variants: list[str], rollouts: int = 200_000,
              search: bool = True, repeats: int = REPEATS, as_json: bool = False,
              on_row: Callable[[], None] | None = None, e2e_deals: int = 0, startup_repeats: int = 0,
              doc: Path | None = None, command: str = "durak bench") -> dict[str, Any]:
    """Measure (:func:`measure`) and print the table (or JSON); ``doc``: also keep it in that page (:func:`write_doc`)."""
    result = measure(deals=deals, simple_deals=simple_deals, engine_deals=engine_deals, rollouts=rollouts,
                     variants=variants, search=search, repeats=repeats, on_row=on_row, e2e_deals=e2e_deals,
                     startup_repeats=startup_repeats)
    if doc is not None:
        write_doc(doc, result, command)
    if as_json:
        import json

        print(json.dumps({**result, "unit": "per second",
                          "rows": [{k: _json_number(x) for k, x in r.items()} for r in result["rows"]]}, indent=1))
        return result
    from rich.console import Console
    from rich.table import Table

    cores = result["cores"]
    table = Table(title=f"durak bench — default rules; {cores} cores; per second; best (median) of "
                        f"{result['repeats']} repeats where given")
    for col in ("case", "engine", "unit", "1 core", "median", f"{cores} cores", "speed-up", "machine", "ns/turn",
                "turns"):
        table.add_column(col, justify="left" if col in ("case", "engine", "unit") else "right")
    fmt = lambda x, f: "" if x is None else format(x, f)  # noqa: E731
    for r in result["rows"]:
        up = None if r["all_cores"] is None else r["all_cores"] / r["one_core"]
        table.add_row(r["case"], r["engine"], r["unit"], f"{r['one_core']:,.0f}", fmt(r["one_core_median"], ",.0f"),
                      _every(r), fmt(up, ".2f"), fmt(r["ceiling"], ".2f"),
                      fmt(r["ns_per_turn"], ",.0f"), fmt(r["turns"], ".1f"))
    c = Console(width=max(170, Console().width))
    c.print(table)
    for line in bench_lines(result):
        c.print(line, markup=False)
    c.print(cache_line())
    return result


def bench_lines(result: dict[str, Any]) -> list[str]:
    """What a run prints under its table (compile, memory, per turn, end to end, start-up, load): said once, for the
    terminal and for the page :func:`write_doc` keeps."""
    comp, cores = result["compile"], result["cores"]
    out = [f"first calls (compile, or load from the cache): deals {comp['deals_s']} s, matches {comp['matches_s']} s, "
           f"positions {comp['positions_s']} s ({comp['cache_hits']} from the cache); the {comp['rules_kernels']} "
           f"kernels compiled for the rules above {comp['rules_s']} s ({comp['rules_cached']} from the cache); "
           f"peak memory {result['peak_mib']:,.0f} MiB (largest process)"]
    ca = result["compiled_apart"]
    if ca["kernels"]:
        out.append(f"compiled apart (a child process per cold kernel, analyzer.kernel.apart): {ca['kernels']} kernels, "
                   f"{ca['seconds']:.1f} s ({ca['cpu_seconds']:.1f} CPU-s), the largest child's peak "
                   f"{ca['peak_mib']:,.0f} MiB")
    if result["per_turn_vs_czech"]:
        out.append("per turn, rules compiled in, over czech 4p random's (median of rounds run back to back; range): "
                   + ", ".join(f"{case} {x:.2f} ({min(result['per_turn_rounds'][case]):.2f}–"
                               f"{max(result['per_turn_rounds'][case]):.2f})"
                               for case, x in result["per_turn_vs_czech"].items()))
    if cores > 1 and any(r["ceiling"] for r in result["rows"]):
        out.append("machine: two threads of pure arithmetic (no memory, nothing shared) over one, measured beside each "
                   "kernel row's every-core runs and as they are (one thread: CPU time; two: wall time; median): the "
                   "most two threads can gain on this machine at that moment")
    if result["end_to_end"]:
        out += end_to_end_lines(result["end_to_end"])
    if result.get("startup"):
        out += bench_e2e.startup_lines(result["startup"])
    load = result["load"]
    out.append(f"load average (1, 5, 15 min) before {load['before']}, after {load['after']}: other work on the machine")
    return out


#: the markers around the part of a page that ``durak bench --doc PAGE`` rewrites
DOC_BEGIN, DOC_END = "<!-- durak bench: begin -->", "<!-- durak bench: end -->"


def bench_markdown(result: dict[str, Any], command: str) -> str:
    """The run as a Markdown section: the command, the table (best and median of the repeats), the lines under it."""
    cores = result["cores"]
    head = ["case", "engine", "unit", "1 core, best", "1 core, median", f"{cores} cores", "speed-up", "machine",
            "ns/turn", "turns"]
    fmt = lambda x, f: "" if x is None else format(x, f)  # noqa: E731
    rows = []
    for r in result["rows"]:
        up = None if r["all_cores"] is None else r["all_cores"] / r["one_core"]
        rows.append([r["case"], r["engine"], r["unit"], f"{r['one_core']:,.0f}", fmt(r["one_core_median"], ",.0f"),
                     _every(r), fmt(up, ".2f"), fmt(r["ceiling"], ".2f"),
                     fmt(r["ns_per_turn"], ",.0f"), fmt(r["turns"], ".1f")])
    table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join([
        "## The latest `durak bench`", "",
        f"Written by `{command}` (default rules, {cores} cores, per second; best and median of "
        f"{result['repeats']} repeats where given). The other sections of this page are curated from several runs.",
        "", *table, "", *(f"- {line}" for line in bench_lines(result)), ""])


def write_doc(page: Path, result: dict[str, Any], command: str) -> None:
    """Put the run's section into ``page`` between :data:`DOC_BEGIN` and :data:`DOC_END` (appended the first
    time); the rest of the page is left as it is."""
    text = page.read_text(encoding="utf-8") if page.is_file() else "# Performance\n"
    section = f"{DOC_BEGIN}\n{bench_markdown(result, command)}{DOC_END}\n"
    if DOC_BEGIN in text and DOC_END in text:
        before, rest = text.split(DOC_BEGIN, 1)
        text = before + section + rest.split(DOC_END, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    atomic_write(page, text.encode())


def cache_line() -> str:
    """Where compiled kernels are kept and how to move them (analyzer.kernel._cache chose the folder)."""
    if _cache.FOLDER is None:
        return "compiled kernels: not kept (no writable folder); set NUMBA_CACHE_DIR to a writable folder"
    return (f"compiled kernels: {_cache.FOLDER} (set NUMBA_CACHE_DIR to keep them elsewhere; deleting the folder "
            "only makes the next run compile them again)")


def _every(r: dict[str, Any]) -> str:
    """The every-core cell: the best, and the median of the repeats in brackets where there were several."""
    if r["all_cores"] is None:
        return ""
    med = r.get("all_cores_median")
    return f"{r['all_cores']:,.0f}" + ("" if med is None else f" ({med:,.0f})")


def end_to_end_lines(end: dict[str, Any]) -> list[str]:
    """The end-to-end rows taken apart (medians of the rounds, seconds) and their ratio to the comparator."""
    cores = end["cores"]
    out = [f"end to end: durak simulate {end['case']}, {end['deals']:,} deals, --json, a fresh process a run (median "
           f"of {end['repeats']} rounds, seconds; CPU seconds in brackets):"]
    for label, jobs in (("one_core", 1), ("all_cores", cores)):
        b = end[label]["breakdown"]
        other = b["run_s"] - b["play_s"] - b["tables_s"] if jobs == 1 else None
        overlap = "" if jobs == 1 else " (on threads: play and tables overlap)"
        out.append(f"  --jobs {jobs}: start-up {b['start_s']:.2f} (imports {b['start_cpu_s']:.2f}), set-up "
                   f"{b['setup_s']:.2f}, kernel load or compile {b['load_s']:.2f} ({b['load_cpu_s']:.2f}), run "
                   f"{b['run_s']:.2f} ({b['run_cpu_s']:.2f}): play {b['play_s']:.2f}, tables {b['tables_s']:.2f}"
                   + (f", other {other:.2f}" if other is not None else overlap))
    if "vs_prototype" not in end:
        out.append("  no comparator: benchmarks/proto_game.py is in a source checkout, not in the installed package")
        return out
    v = end["vs_prototype"]
    out.append(f"  the JSON's deals/s over the prototype's (medians, wall time both): one core {v['one_core']:.2f}, "
               f"{cores} cores {v['all_cores']:.2f}")
    if "vs_prototype_per_turn" in end:
        t, w = end["turns_per_deal"], end["vs_prototype_per_turn"]
        out.append(f"  per turn played ({end['case']} deals last {t['case']:.1f} turns, the prototype's "
                   f"{t['prototype']:.1f}): one core {w['one_core']:.2f}, {cores} cores {w['all_cores']:.2f}")
    return out
