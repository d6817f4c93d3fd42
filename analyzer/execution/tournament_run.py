"""The execution of a tournament (``durak compare --design round-robin|hero``, issue 14).

Every table of the design (:mod:`analyzer.stats.tournament`) plays the same
decks: chunk ``c`` draws its decks from the ``"tournament"`` purpose of
:mod:`analyzer.execution.seeds` keyed on the rules only, and every table of
the chunk plays those decks with the same strategy seed (common random
numbers).  Chunks run on the one executor, so the numbers depend on the seed
alone, never on ``--jobs``.  The statistics (paired margins with Holm, ratings
with bootstrap intervals over decks) are
:func:`analyzer.stats.ratings.round_robin_summary` and
:func:`analyzer.stats.ratings.hero_summary`.

Stopping when the answer is known (``--until-ci``, ``--sprt``): chunks of
:data:`SEQ_CHUNK` decks are played in batches of ``jobs`` and the rule of
:mod:`analyzer.stats.sequential` is checked at every chunk boundary in index
order (:func:`analyzer.stats.sequential.run_sequential`), on the per-deck
quantities the report headlines (:func:`watched`): so where it stops depends on
the seed alone, never on ``--jobs``; the chunks played past the stop in the
last batch are discarded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import analyzer.sim.simulator as simulator
from analyzer import __version__
from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet
from analyzer.execution import lineup as lineups
from analyzer.execution.executor import run_tasks
from analyzer.execution.experiment import Experiment, ExperimentError, fill_spec
from analyzer.execution.progress import RunProgress
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.kernel.driver import simulate_deals as kernel_deals
from analyzer.kernel.lineup import policy_code
from analyzer.knowledge.table import KnowingStrategy, simulate_observed
from analyzer.report.compare_view import write_tournament_report
from analyzer.stats.ratings import hero_summary, round_robin_summary
from analyzer.stats.sequential import Rule, SequentialResult, Sprt, UntilCI, run_sequential
from analyzer.stats.tournament import Design, TournamentError, head_to_head, hero_scores, make_design, round_robin

CHUNK_DECKS = 10_000
#: Decks per chunk when a stopping rule runs (the rule is checked at every chunk boundary).
SEQ_CHUNK = 1_000

FloatArray = NDArray[np.float64]


def tournament_chunk(rules: RuleSet, design: Design, n: int, seed: int, c: int) -> list[FloatArray]:
    """Chunk ``c``: ``n`` decks through every table; per table, (n, players) win shares by position."""
    deck_ss, sim_ss = chunk_seed(seed, "tournament", content_text(rules, [], "deal"), c).spawn(2)
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng(deck_ss))
    entrants = lineups.build(list(design.entrants), get_strategy)  # one object per distinct spec
    seats = np.arange(rules.players)
    wins = []
    for table in design.tables:
        res = play_deals(rules, [entrants[e] for e in table.seats], decks, sim_ss)
        wins.append((res.winner[:, None] == seats).astype(np.float64))
    return wins


def play_deals(rules: RuleSet, lineup: Sequence[object], decks: NDArray[np.int8], ss: np.random.SeedSequence) -> Any:
    """The deals of ``decks`` with ``lineup`` by position, on the fastest engine that plays it.

    The compiled kernel (:mod:`analyzer.kernel.driver`) when every strategy has a
    compiled form (it plays the deterministic built-ins move for move as the numpy
    simulator does, and svinya some 80 times faster), the engine's table runner
    for players who remember, else the numpy simulator.  Every table of a chunk
    passes the same ``ss``, so random players draw alike at every table (common
    random numbers) on whichever engine.
    """
    n = len(decks)
    if all(policy_code(s) is not None for s in lineup):
        return kernel_deals(rules, lineup, n, seed=int(ss.generate_state(1, np.uint32)[0]), decks=decks, threads=1)
    if any(isinstance(s, KnowingStrategy) for s in lineup):
        return simulate_observed(rules, list(lineup), decks, ss)
    return simulator.simulate_deals(rules, lineup, n, ss, decks=decks)


def _job(rules: RuleSet, design: Design, n: int, seed: int, c: int) -> tuple[int, list[FloatArray]]:
    return c, tournament_chunk(rules, design, n, seed, c)


def watched(design: Design, wins: Sequence[FloatArray], sprt: bool = False) -> FloatArray:
    """The per-deck quantities a stopping rule watches, (decks, columns), win shares as fractions.

    round-robin: every pair's margin (i's win share against j minus j's against i);
    hero: each strategy's win share against the field minus the fair share ``1 / players`` and, with
    two or more strategies, every pair's paired margin.  For the SPRT (``sprt``) exactly one column:
    the one pair (round-robin of two, hero of two) or the one hero's margin over the fair share.
    """
    if design.name == "round-robin":
        s = head_to_head(design, wins)
        cols = [s[:, i, j] - s[:, j, i] for i, j in design.pairs]
    elif design.name == "hero":
        h = hero_scores(design, wins)
        k = h.shape[1]
        pairs = [h[:, i] - h[:, j] for i in range(k) for j in range(i + 1, k)]
        cols = pairs if (sprt and k == 2) else [*(h[:, i] - 1.0 / design.players for i in range(k)), *pairs]
    else:
        raise TournamentError(f"stopping rules run on the round-robin and hero designs, not {design.name}")
    if sprt and len(cols) != 1:
        raise TournamentError(f"the SPRT compares two strategies (or one hero against its field); "
                              f"this {design.name} has {len(cols)} comparisons: use --until-ci")
    return np.stack(cols, axis=1)


def _batch(jobs: int) -> int:
    return max(1, os.cpu_count() or 1) if jobs < 0 else max(1, jobs)


def run_design(rules: RuleSet, design: Design, n: int, *, seed: int = 0, jobs: int = 1, chunk: int = CHUNK_DECKS,
               boot: int = 1000, rule: Rule | None = None, on_chunk: Callable[[int], None] | None = None,
               seq_chunk: int = SEQ_CHUNK) -> dict[str, Any]:
    """Play ``n`` duplicate decks through every table of ``design`` (or, with ``rule``, chunks of
    ``seq_chunk`` decks until the rule stops, ``n`` decks at most); the JSON-ready summary."""
    lineups.build(list(design.entrants), get_strategy)  # an unknown strategy fails before any work
    t0 = time.perf_counter()
    seq: SequentialResult | None = None
    if rule is None:
        sizes = [min(chunk, n - i) for i in range(0, n, chunk)]
        parts: dict[int, list[FloatArray]] = {}
        for c, wins in run_tasks(_job, [(rules, design, m, seed, c) for c, m in enumerate(sizes)], jobs=jobs):
            parts[c] = wins
            if on_chunk is not None:
                on_chunk(sizes[c])
        used = len(sizes)
    else:
        size = min(seq_chunk, n)
        sizes = [min(size, n - i) for i in range(0, n, size)]
        parts = {}
        is_sprt = isinstance(rule, Sprt)
        watched(design, [np.zeros((1, rules.players))] * len(design.tables), is_sprt)  # a one-line error now

        def mapper(_f: Callable[[int], Any], idx: Sequence[int]) -> list[FloatArray]:
            for c, wins in run_tasks(_job, [(rules, design, sizes[c], seed, c) for c in idx], jobs=jobs):
                parts[c] = wins
                if on_chunk is not None:
                    on_chunk(sizes[c])
            return [watched(design, parts[c], is_sprt) for c in idx]

        seq = run_sequential(lambda c: watched(design, parts[c], is_sprt), rule, max_chunks=len(sizes),
                             min_deals=min(2 * size, n), batch=_batch(jobs), mapper=mapper)
        used = seq.chunks
    per_table = [np.concatenate([parts[c][t] for c in range(used)]) for t in range(len(design.tables))]
    summary = round_robin_summary if design.name == "round-robin" else hero_summary
    out = summary(design, per_table, boot=boot, seed=seed)
    decks = int(per_table[0].shape[0])
    out.update(variant=rules.variant, rules=rules.describe(), seed=seed, deals_played=decks * len(design.tables),
               seconds=round(time.perf_counter() - t0, 2))
    if seq is not None:
        out["stopping"] = {"rule": seq.rule, "verdict": seq.verdict, "stopped": seq.stopped, "decks": seq.deals,
                           "deals": seq.deals * len(design.tables), "chunks": seq.chunks, "chunk_decks": sizes[0],
                           "budget_decks": n, "discarded_decks": seq.discarded,
                           "half_width": float(seq.history["half_width"].iloc[-1])}
        if isinstance(rule, Sprt):
            out["stopping"].update(llr=float(seq.history["llr"].iloc[-1]), bounds=list(rule.bounds),
                                   alpha=rule.alpha, beta=rule.beta, mu0=rule.mu0, mu1=rule.mu1)
    return out


def run_round_robin(rules: RuleSet, specs: Sequence[str], n: int, *, seed: int = 0, jobs: int = 1,
                    chunk: int = CHUNK_DECKS, boot: int = 1000, rule: Rule | None = None,
                    on_chunk: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play ``n`` duplicate decks through every seating of every pair; the JSON-ready summary."""
    design = round_robin(list(specs), rules.players)
    return run_design(rules, design, n, seed=seed, jobs=jobs, chunk=chunk, boot=boot, rule=rule, on_chunk=on_chunk)


# ---------------------------------------------------------------- experiments with a design (durak run)
def tournaments_of(exp: Experiment) -> list[tuple[RuleSet, Design]]:
    """One tournament per rule set of the experiment's cells (variant x players x grid), in cell order."""
    seen: dict[str, tuple[RuleSet, Design]] = {}
    for cell in exp.cells:
        rules = cell.rules
        if rules.label() in seen:
            continue
        name = exp.design_for(rules.players)
        specs = [fill_spec(s, rules.variant, rules.players) for s in exp.field or ()]
        try:
            design = make_design(name, specs, rules.players, reference=exp.reference if name == "hero" else None)
        except TournamentError as exc:
            raise ExperimentError(f"{exp.source}: key 'design': {rules.label()}: {exc}") from None
        seen[rules.label()] = (rules, design)
    return list(seen.values())


def run_tournaments(exp: Experiment, out_dir: Path, *, jobs: int = -1, quiet: bool = False,
                    command: str = "", report: bool = True) -> Path:
    """Play every tournament of a design experiment; write results/tournaments.json, manifest.json and the report.

    Not resumable chunk by chunk (the whole of each tournament is kept in memory
    for the paired statistics); the seed fixes every number.  With the
    experiment's ``until_ci`` each tournament stops at the first chunk boundary
    where every watched interval is that narrow (:func:`watched`), its deals
    the budget.
    """
    n = exp.counts["deal"]
    plan = tournaments_of(exp)
    t0 = time.perf_counter()
    results = []
    with RunProgress(total_units=n * len(plan), total_cells=len(plan), unit="decks", enabled=not quiet) as bar:
        for rules, design in plan:
            rule = UntilCI(exp.until_ci / 100) if exp.until_ci is not None else None
            out = run_design(rules, design, n, seed=exp.seed, jobs=jobs, chunk=min(exp.chunk_size, CHUNK_DECKS),
                             rule=rule, on_chunk=lambda m: bar.advance(m))
            out["label"] = rules.label()
            results.append(out)
            bar.advance(0, cell_done=True)
    res_dir = out_dir / "results"
    res_dir.mkdir(parents=True, exist_ok=True)
    (res_dir / "tournaments.json").write_text(json.dumps(results, indent=1) + "\n")
    seconds = time.perf_counter() - t0
    deals = sum(o["deals_played"] for o in results)
    manifest = {"name": exp.name, "description": exp.description, "experiment": exp.to_dict(), "seed": exp.seed,
                "version": __version__, "kind": "tournaments", "tournaments": len(results), "total_deals": deals,
                "deals_per_second": round(deals / seconds, 1) if seconds > 0 else None, "seconds": round(seconds, 3),
                "command": command, "jobs": jobs}
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if report:
        write_tournament_report(results, out_dir, name=exp.name, description=exp.description, command=command)
    return out_dir
