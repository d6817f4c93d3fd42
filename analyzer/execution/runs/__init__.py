"""The run kinds, in one place: what kinds of work store results, which file is which, and the one dispatch.

A run kind is a kind of work with its own stored results in a run folder
(:class:`~analyzer.execution.runs.folder.RunFolder`: manifest, results, report), one module each:

========== ============================================ ==========================================
kind       module                                       started by
========== ============================================ ==========================================
cells      :mod:`analyzer.execution.runs.cells`         ``durak run FILE`` (an experiment of cells)
tournament :mod:`analyzer.execution.runs.tournament`    ``durak run FILE`` (``design =``), ``durak compare --design``
balance    :mod:`analyzer.execution.runs.balance`       ``durak run FILE`` (``kind = "balance"``), ``durak balance``
compare    :mod:`analyzer.execution.runs.compare`       ``durak compare`` (field design)
tune       :mod:`analyzer.execution.runs.tune`          ``durak tune``
solve      :mod:`analyzer.execution.runs.solve`         ``durak solve`` (a research size, exactly)
========== ============================================ ==========================================

This module decides a file's kind (:func:`kind_of`, :func:`read_run_file`: the only place that does), checks
the arguments the kinds share before a run makes its folder (:func:`~analyzer.execution.executor.check_backend`,
the one check of ``--backend`` and ``--scheduler``; :func:`check_jobs`), and hands the work to the kind's module
(:func:`play_experiment`, :func:`run_experiment`: cells or tournaments; :func:`explore`: a rule space).  The
kinds' modules never import this one.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.execution.balance_space import BalanceSpace, is_balance_file, load_space
from analyzer.execution.executor import check_backend, simulator_path, strategy_resolver
from analyzer.execution.experiment import Experiment, ExperimentError, load_experiment
from analyzer.execution.runs import balance, cells, compare, solve, tournament, tune
from analyzer.execution.runs.balance import BalanceRun
from analyzer.execution.runs.cells import CellsRun
from analyzer.execution.runs.folder import RunFolder

#: every run kind and its module (tests/project/test_architecture.py: each is a module of this package)
KINDS = {"cells": cells, "tournament": tournament, "balance": balance, "compare": compare, "tune": tune,
         "solve": solve}

#: Where a run writes unless told (``runs/<name>``): git ignores it, so running an experiment of the repository
#: leaves a clone clean and the committed example reports under ``reports/`` as they are.
RUNS = Path("runs")


@dataclass(frozen=True)
class Finished:
    """A finished experiment: its kind, its folder and, for cells, what the run wrote there (in memory)."""

    kind: str
    folder: Path
    cells: CellsRun | None


def check_jobs(jobs: Any) -> None:
    """``jobs`` joblib style: a non-zero integer (-1 = all cores)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0:
        raise ExperimentError(f"jobs: must be a non-zero integer (-1 = all cores), got {jobs!r}")


def kind_of(plan: Experiment | BalanceSpace) -> str:
    """The kind of a parsed run file: ``balance``, ``tournament`` (an experiment with ``design =``) or
    ``cells``."""
    if isinstance(plan, BalanceSpace):
        return "balance"
    return "tournament" if plan.tournament else "cells"


def read_run_file(file: str | Path, *, simulator: str | None = None) -> Experiment | BalanceSpace:
    """A run file parsed by its kind's parser (``kind = "balance"``: a rule space; else an experiment);
    a malformed file is one line (ExperimentError)."""
    if is_balance_file(file):
        return load_space(file)
    return load_experiment(file, resolve_strategy=strategy_resolver(simulator_path(simulator)))


def fingerprint_of(plan: Experiment | BalanceSpace, *, simulator: str | None = None) -> str:
    """The fingerprint a run of ``plan`` records in its manifest and its chunk store (its kind's): a folder whose
    manifest has another was made by other code or another file, and a rerun would not resume it."""
    if isinstance(plan, BalanceSpace):
        return balance.balance_fingerprint(plan, simulator_path(simulator))[0]
    if kind_of(plan) == "tournament":
        return tournament.tournament_fingerprint(plan, tournament.tournaments_of(plan), tournament.chunk_decks(plan))[0]
    return cells.fingerprint(plan, simulator=simulator)[0]


def run_command(exp: Experiment, deals: int | None, out: Path | None) -> str:
    """The ``durak run`` command that reproduces an experiment's folder (its manifest records it)."""
    argv = ["durak", "run", exp.source]
    if deals is not None:
        argv += ["--deals", str(deals)]
    if out is not None:
        argv += ["--out", str(out)]
    return shlex.join(argv)


def run_experiment(experiment: str | Path | Experiment, **kw: Any) -> Path:
    """:func:`play_experiment`'s folder (the API's and the tests' way to run an experiment)."""
    return play_experiment(experiment, **kw).folder


def play_experiment(
    experiment: str | Path | Experiment, *, out: str | Path | None = None, deals: int | None = None,
    jobs: int = -1, backend: str = "loky", scheduler: str | None = None, resume: bool = True,
    fresh: bool = False, quiet: bool = False, check: bool = False, simulator: str | None = None,
    report: bool = True,
) -> Finished:
    """Run an experiment -- its cells, or its tournaments (``design =``) -- and write ``runs/<name>/`` (or
    ``out``); return what it wrote (:class:`Finished`).

    Args:
        experiment: an experiment file or a parsed :class:`Experiment`.
        out: output directory; default ``runs/<name>`` (:data:`RUNS`).
        deals: deals (matches, for match cells) per cell, overriding the file.
        jobs: parallel jobs, joblib style (-1 = all cores / all dask workers).
        backend: ``"loky"`` (local processes) or ``"dask"`` (a distributed Client at ``scheduler``; without
            one, a loopback LocalCluster).
        resume: reuse finished chunks in ``out/chunks`` (False behaves as ``fresh``).
        fresh: wipe stored chunks first.
        quiet: no progress on stderr (a bar on a terminal, elsewhere a line every ~10 s).
        check: ask the simulator to check invariants (slower; results unchanged).
        simulator: module path of a stand-in simulator (tests; default: the project's engines).
        report: draw the report afterwards (analyzer/report/).

    Raises:
        ExperimentError: a malformed experiment or bad argument (one line), or
            ResumeError when stored chunks belong to a different experiment.
    """
    check_backend(backend, scheduler)
    check_jobs(jobs)
    if isinstance(experiment, Experiment):
        exp = experiment
    else:
        exp = load_experiment(experiment, resolve_strategy=strategy_resolver(simulator_path(simulator)))
    if deals is not None:
        exp = exp.with_count(deals)
    folder = RunFolder(Path(out) if out is not None else RUNS / exp.name)
    if problem := folder.problem():
        raise ExperimentError(f"--out {folder.root}: {problem}")
    command = run_command(exp, deals, Path(out) if out is not None else None)
    if kind_of(exp) == "tournament":  # every line-up of a tournament on the same decks
        root = tournament.run_tournaments(exp, folder.root, jobs=jobs, quiet=quiet, report=report,
                                          fresh=fresh or not resume, command=command)
        return Finished("tournament", root, None)
    done = cells.run_cells(exp, folder, command=command, jobs=jobs, backend=backend, scheduler=scheduler,
                           fresh=fresh or not resume, quiet=quiet, check=check, simulator=simulator, report=report)
    return Finished("cells", done.folder, done)


def explore(space: BalanceSpace, out: Path, *, jobs: int = -1, backend: str = "loky", scheduler: str | None = None,
            **kw: Any) -> BalanceRun:
    """Run a rule space (``durak balance``, ``durak run`` of a ``kind = "balance"`` file) into ``out``: the
    balance kind's :func:`~analyzer.execution.runs.balance.explore_balance`, its arguments checked first."""
    check_backend(backend, scheduler)
    check_jobs(jobs)
    return balance.explore_balance(space, out, jobs=jobs, backend=backend, scheduler=scheduler, **kw)

