"""Tuning a parametrised strategy with CMA-ES on duplicate decks (``durak tune``).

The objective is ``f(params, deck_indices) -> (len(deck_indices),)`` per-deck
scores of the strategy with ``params`` on those decks (e.g. its win share
minus the fair share against a fixed field); higher is better.  It must depend
on the parameters and the deck indices only, so two candidates evaluated on the
same indices play the same cards with the same random numbers and their
per-deck difference is a *paired* margin.

How a run goes (:func:`tune`):

* generation ``g`` draws its own fresh block of training decks
  (``g * decks_per_generation ...``); every candidate of the generation, the
  start ``x0`` and the distribution's current mean play that same block
  (common random numbers), and CMA-ES (the ``cma`` library) ranks the
  candidates by their mean score;
* the curve records, per generation, the current mean's gain over the start,
  paired over the generation's decks.  The mean was chosen from *earlier*
  generations' decks, so this estimate is fair (no winner's curse), and so is
  its 95 % interval; the best candidate's gain is shown too but is optimistic
  (it was picked on the same decks);
* the tuned point is the final distribution mean, rounded to ``digits``
  decimals (the spec that ships), checked against the start on ``holdout``
  decks that no generation played (indices from :data:`HOLDOUT_BASE` on): the
  paired interval of that margin is the number to believe.

The optimiser's random numbers come from ``np.random.default_rng(seed)``
(cma's ``randn`` option; numpy's global generator is never touched), so a run
is the same for a seed on any machine and with any ``mapper`` (the function
that evaluates the candidates, e.g. in parallel; results in order).

:func:`hero_objective` builds the objective for a registered strategy with
numeric keyword parameters (``weighted``'s weights): it plays the candidate in
every position against a field (the hero design of
:mod:`analyzer.stats.tournament`) on decks made from the deck indices.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from analyzer import __version__
from analyzer.core.cards import deck
from analyzer.core.registry import get_strategy, parse_spec
from analyzer.core.rules import RuleSet
from analyzer.execution.executor import play_decks, run_tasks
from analyzer.execution.runs.folder import RunFolder
from analyzer.report.tune_view import write_report
from analyzer.stats.intervals import paired_difference
from analyzer.stats.tournament import hero
from analyzer.stats.tuning import TuneResult

FloatArray = NDArray[np.float64]
Objective = Callable[[FloatArray, NDArray[np.int64]], ArrayLike]
Mapper = Callable[[Callable[[FloatArray], FloatArray], Sequence[FloatArray]], Iterable[FloatArray]]

#: Hold-out deck indices start here: no training generation reaches them.
HOLDOUT_BASE = 1 << 40


class TuneError(ValueError):
    """A tuning request that cannot run (bad start, bounds, budget); one line."""


def _scores(objective: Objective, indices: NDArray[np.int64], params: FloatArray) -> FloatArray:
    """One candidate's per-deck scores (a module-level function: a process pool can pickle it)."""
    return np.asarray(objective(params, indices), dtype=np.float64)


def _interval(a: FloatArray, b: FloatArray) -> tuple[float, float, float]:
    e = paired_difference(a, b)
    return float(e.est), float(e.lo), float(e.hi)


def _check(x0: ArrayLike, names: Sequence[str] | None, bounds: tuple[ArrayLike, ArrayLike] | None,
           sigma0: float, generations: int, decks: int, holdout: int) -> tuple[FloatArray, list[str]]:
    x = np.asarray(x0, dtype=np.float64)
    if x.ndim != 1 or x.size < 1 or not np.isfinite(x).all():
        raise TuneError(f"the start must be a non-empty vector of finite numbers, got {x0!r}")
    nm = list(names) if names is not None else [f"x{i}" for i in range(x.size)]
    if len(nm) != x.size:
        raise TuneError(f"{x.size} start values for {len(nm)} parameter names")
    if not (math.isfinite(sigma0) and sigma0 > 0):
        raise TuneError(f"the initial step size sigma0 must be positive, got {sigma0}")
    for what, v, least in (("generations", generations, 1), ("decks per generation", decks, 2),
                           ("hold-out decks", holdout, 2)):  # two decks at least: an interval needs a spread
        if v < least:
            raise TuneError(f"{what} must be at least {least}, got {v}")
    if bounds is not None:
        lo, hi = (np.broadcast_to(np.asarray(b, dtype=np.float64), x.shape) for b in bounds)
        if not ((lo <= x) & (x <= hi)).all():
            bad = [n for n, a, v, b in zip(nm, lo, x, hi) if not a <= v <= b]
            raise TuneError(f"start outside the bounds for {', '.join(bad)}")
    return x, nm


def tune(objective: Objective, x0: ArrayLike, *, names: Sequence[str] | None = None, sigma0: float = 1.0,
         bounds: tuple[ArrayLike, ArrayLike] | None = None, generations: int = 20, popsize: int | None = None,
         decks_per_generation: int = 200, holdout: int = 2000, digits: int = 3, seed: int = 0,
         mapper: Mapper | None = None, scales: ArrayLike | None = None,
         on_generation: Callable[[int], None] | None = None) -> TuneResult:
    """Maximise the mean per-deck score of ``objective`` with CMA-ES, then check on hold-out decks (module doc).

    ``scales``: a step size per parameter (cma's ``CMA_stds``: the search moves parameter ``i`` by about
    ``sigma0 * scales[i]``), for parameters of different magnitudes.  ``on_generation(g)`` is called after
    each generation (a progress bar).
    """
    x, nm = _check(x0, names, bounds, sigma0, generations, decks_per_generation, holdout)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    opts: dict[str, Any] = {"randn": lambda lam, n: rng.standard_normal((lam, n)), "seed": np.nan,
                            "verbose": -9, "verb_log": 0, "verb_disp": 0, "tolfun": 0, "tolx": 0,
                            "tolflatfitness": generations + 1, "tolstagnation": generations + 1}
    if popsize is not None:
        if popsize < 2:
            raise TuneError(f"popsize must be at least 2, got {popsize}")
        opts["popsize"] = popsize
    if scales is not None:
        sc = np.broadcast_to(np.asarray(scales, dtype=np.float64), x.shape)
        if not (np.isfinite(sc).all() and (sc > 0).all()):
            raise TuneError(f"parameter scales must be positive numbers, got {scales!r}")
        opts["CMA_stds"] = sc.tolist()
    if bounds is not None:
        opts["bounds"] = [list(np.broadcast_to(np.asarray(b, dtype=np.float64), x.shape)) for b in bounds]
    import cma  # here, not at the top: it imports matplotlib.pyplot, which a command that does not tune never needs

    es = cma.CMAEvolutionStrategy(x.tolist(), sigma0, opts)
    run = mapper or (lambda f, xs: map(f, xs))
    calls = 0
    rows = []
    for g in range(generations):
        idx = np.arange(g * decks_per_generation, (g + 1) * decks_per_generation, dtype=np.int64)
        cands = [np.asarray(c, dtype=np.float64) for c in es.ask()]
        mean = np.asarray(es.result.xfavorite if g else x, dtype=np.float64)
        points = [*cands, mean, x]
        scores = list(run(partial(_scores, objective, idx), points))
        calls += len(points)
        for s in scores:
            if s.shape != idx.shape:
                raise TuneError(f"the objective returned {s.shape} scores for {idx.size} decks")
        es.tell(cands, [-float(s.mean()) for s in scores[:-2]])
        gain, lo, hi = _interval(scores[-2], scores[-1])
        best = int(np.argmax([s.mean() for s in scores[:-2]]))
        rows.append({"generation": g, "deals": int(idx[-1] + 1), "gain": gain, "lo": lo, "hi": hi,
                     "best_gain": float(scores[best].mean() - scores[-1].mean()), "sigma": float(es.sigma),
                     "mean": [round(float(v), 6) for v in mean]})
        if on_generation is not None:
            on_generation(g)
    tuned = np.asarray(np.round(np.asarray(es.result.xfavorite, dtype=np.float64), digits), dtype=np.float64)
    if bounds is not None:
        lo_b, hi_b = (np.broadcast_to(np.asarray(b, dtype=np.float64), x.shape) for b in bounds)
        tuned = np.clip(tuned, lo_b, hi_b)
    hold = np.arange(HOLDOUT_BASE, HOLDOUT_BASE + holdout, dtype=np.int64)
    a, b = run(partial(_scores, objective, hold), [tuned, x])
    margin, lo, hi = _interval(a, b)
    return TuneResult(names=nm, start=dict(zip(nm, x.tolist())), tuned=dict(zip(nm, tuned.tolist())),
                      holdout={"margin": margin, "lo": lo, "hi": hi, "n_decks": holdout},
                      curve=pd.DataFrame(rows), evaluations=calls + 2)


# ---------------------------------------------------------------- playing a strategy against a field
def decks_for(indices: ArrayLike, deck_size: int, seed: int) -> NDArray[np.int8]:
    """(len(indices), deck_size) deck orders: deck ``i`` is a shuffle seeded by ``(seed, i)`` alone.

    So a deck index names the same cards in every generation, candidate and
    hold-out check (common random numbers across the whole run).
    """
    base = np.asarray(deck(deck_size), dtype=np.int8)
    out = np.empty((len(np.atleast_1d(indices)), deck_size), np.int8)
    for row, i in enumerate(np.atleast_1d(np.asarray(indices, dtype=np.int64))):
        out[row] = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(i),))).permutation(base)
    return out


def spec_with(name: str, names: Sequence[str], params: ArrayLike, whole: Iterable[str] = ()) -> str:
    """``name?k=v,...`` for the parameters (shortest text that reads back as the same float); the parameters
    named in ``whole`` take whole numbers, so CMA-ES's decimals are rounded to the nearest."""
    whole = set(whole)
    values = ",".join(f"{k}={round(float(v))}" if k in whole else f"{k}={float(v)!r}"
                      for k, v in zip(names, np.asarray(params, dtype=np.float64)))
    return f"{name}?{values}"


def hero_objective(rules: RuleSet, strategy: str, names: Sequence[str], *, reference: str | None = None,
                   background: Sequence[str] | None = None, seed: int = 0, whole: Iterable[str] = ()) -> Objective:
    """The per-deck score of ``strategy?names=params`` in every position against a field (deals, G9).

    Score on a deck: the candidate's win share averaged over its ``players``
    positions (the hero design: the other positions hold ``reference`` copies
    or ``background`` in order), minus the fair share ``1 / players``.  The
    decks come from :func:`decks_for` and the strategies' random numbers from
    ``(seed, first deck index, deck count)``, so a candidate's score depends
    on its parameters and the deck indices only.  Parameters left out of
    ``names`` keep the strategy's defaults; those in ``whole`` are rounded (:func:`spec_with`).  ``weighted`` plays the best score,
    so multiplying all its weights by one positive factor changes no play:
    leave one weight out (e.g. ``w_points`` at 1) so the optimum is a point,
    not a ray.  Measured (czech 2p against greedy, 10-12 generations of 200-500
    decks): the mean's gain stays within about ±1 pp of the start, the step
    size grows on the flat, noisy landscape, and the hold-out check finds no
    gain (-0.05 pp [-0.70, +0.60] on 5,000 decks) while the best candidates of
    single generations looked up to +1.6 pp better: the winner's curse the
    hold-out check is there for.  Finding real gains needs thousands of decks
    per generation.
    """
    target, fixed = parse_spec(strategy)
    if fixed:
        raise TuneError(f"give the strategy to tune without parameters ({target!r}), not {strategy!r}")
    hero([target], rules.players, reference=reference, background=background)  # checks the field (one line)
    # The opposition is built apart from the candidate: the hero design merges a reference equal to the
    # hero's name into one entrant, which would seat the candidate against itself (tuning against the
    # default of the same strategy, ``reference="weighted"``, must play the default).
    back = list(background) if background is not None else [str(reference)] * (rules.players - 1)
    field_objs = [get_strategy(s.strip()) for s in back]
    whole = tuple(whole)
    lines = [(p, [None if q == p else field_objs[q - (q > p)] for q in range(rules.players)])
             for p in range(rules.players)]

    def objective(params: FloatArray, indices: NDArray[np.int64]) -> FloatArray:
        cand = get_strategy(spec_with(target, names, params, whole))
        decks = decks_for(indices, rules.deck_size, seed)
        ss = np.random.SeedSequence(seed, spawn_key=(int(indices[0]) if len(indices) else 0, len(indices)))
        score = np.zeros(len(indices))
        for p, line in lines:
            res = play_decks(rules, [cand if s is None else s for s in line], decks, ss)
            score += (res.winner == p) / rules.players
        return score - 1.0 / rules.players

    return objective


# ---------------------------------------------------------------- the tuning report
# ---------------------------------------------------------------- durak tune
#: Parameters held at their default because the strategy's play is unchanged when all its parameters are
#: multiplied by one positive factor (``weighted`` plays the best score): the optimum is then a point, not a ray.
HELD = {"weighted": ("w_points",)}


def tunable(strategy: str) -> dict[str, float]:
    """The numeric keyword parameters of a registered strategy with their defaults, less :data:`HELD`
    (what each accepts: :func:`param_bounds`)."""
    target, fixed = parse_spec(strategy)
    if fixed:
        raise TuneError(f"give the strategy to tune without parameters ({target!r}), not {strategy!r}")
    obj = get_strategy(target)
    try:
        sig = inspect.signature(type(obj))
    except (TypeError, ValueError):
        sig = None
    out = {p.name: float(p.default) for p in (sig.parameters.values() if sig else [])
           if p.kind == p.KEYWORD_ONLY and isinstance(p.default, (int, float)) and not isinstance(p.default, bool)
           and p.name not in HELD.get(target, ()) and p.name != "seed"}  # a seed is no parameter to tune
    if not out:
        raise TuneError(f"strategy {target!r} has no numeric parameters to tune")
    return out


def param_bounds(strategy: str, names: Sequence[str]) -> tuple[tuple[list[float], list[float]] | None, set[str]]:
    """The search bounds of ``names`` and the names that take whole numbers, from the strategy's declared
    parameters (``params``: analyzer.core.registry.Param) or, without them, from the defaults' types (an int
    default takes whole numbers).  Bounds only when every name declares them."""
    obj = get_strategy(parse_spec(strategy)[0])
    declared = getattr(type(obj), "params", None) or {}
    try:
        defaults = {p.name: p.default for p in inspect.signature(type(obj)).parameters.values()}
    except (TypeError, ValueError):
        defaults = {}
    whole = {n for n in names if (declared[n].whole if n in declared else
                                  isinstance(defaults.get(n), int) and not isinstance(defaults.get(n), bool))}
    if not names or any(n not in declared for n in names):
        return None, whole
    lo = [declared[n].lo + (_above(declared[n].lo) if declared[n].above else 0.0) for n in names]
    return (lo, [float(declared[n].hi) for n in names]), whole


def _above(x: float) -> float:
    """A step above an excluded lower bound, small against the bound's scale."""
    return max(abs(x), 1.0) * 1e-6


def _parallel_mapper(jobs: int) -> Mapper:
    """Evaluate candidates on the one executor; results in the order asked (the run is the same for any jobs)."""
    def mapper(f: Callable[[FloatArray], FloatArray], xs: Sequence[FloatArray]) -> list[FloatArray]:
        out: dict[int, FloatArray] = {}
        for i, r in run_tasks(_indexed, [(f, i, x) for i, x in enumerate(xs)], jobs=jobs):
            out[i] = r
        return [out[i] for i in range(len(xs))]
    return mapper


def _indexed(f: Callable[[FloatArray], FloatArray], i: int, x: FloatArray) -> tuple[int, FloatArray]:
    return i, f(x)


def tune_strategy(rules: RuleSet, strategy: str, *, reference: str | None = None, budget: int = 40_000,
                  decks_per_generation: int = 2_000, holdout: int = 20_000, sigma0: float = 0.5,
                  seed: int = 0, jobs: int = 1, on_generation: Callable[[int], None] | None = None,
                  ) -> tuple[TuneResult, str]:
    """Tune ``strategy``'s numeric parameters against ``players - 1`` copies of ``reference`` (default: the
    strategy with its defaults), ``budget`` training decks in generations of ``decks_per_generation``.

    Each parameter moves by about ``sigma0`` times its default's size (at least 1).  Returns the result and
    the tuned spec (parameters that did not move by at least 0.001 are left out).
    """
    start = tunable(strategy)
    target = parse_spec(strategy)[0]
    if budget < decks_per_generation:
        raise TuneError(f"the budget ({budget:,} decks) must hold at least one generation of "
                        f"{decks_per_generation:,} decks")
    names = list(start)
    x0 = np.array([start[n] for n in names])
    bounds, whole = param_bounds(target, names)
    objective = hero_objective(rules, target, names, reference=reference or target, seed=seed, whole=whole)
    res = tune(objective, x0, names=names, sigma0=sigma0, scales=np.maximum(np.abs(x0), 1.0), bounds=bounds,
               generations=budget // decks_per_generation, decks_per_generation=decks_per_generation,
               holdout=holdout, seed=seed, mapper=_parallel_mapper(jobs) if jobs != 1 else None,
               on_generation=on_generation)
    res.tuned = {n: float(round(v)) if n in whole else v for n, v in res.tuned.items()}  # as the hold-out played
    moved = {n: v for n, v in res.tuned.items() if abs(v - res.start[n]) >= 1e-3}
    spec = target if not moved else f"{target}?" + ",".join(f"{n}={int(v)}" if n in whole else f"{n}={v:g}"
                                                          for n, v in moved.items())
    return res, spec


def run_tune(rules: RuleSet, strategy: str, *, out: Path, command: str, reference: str | None = None,
             budget: int = 40_000, decks_per_generation: int = 2_000, holdout: int = 20_000, sigma0: float = 0.5,
             seed: int = 0, jobs: int = 1, on_generation: Callable[[int], None] | None = None
             ) -> tuple[TuneResult, str, RunFolder]:
    """``durak tune``: :func:`tune_strategy`, then its report in ``out`` (tune.md, drawn by
    analyzer.report.tune_view); the result, the tuned spec and the folder."""
    res, spec = tune_strategy(rules, strategy, reference=reference, budget=budget,
                              decks_per_generation=decks_per_generation, holdout=holdout, sigma0=sigma0, seed=seed,
                              jobs=jobs, on_generation=on_generation)
    target = parse_spec(strategy)[0]
    title = f"{target}, {rules.label()}, against {rules.players - 1} x {reference or target}"
    folder = RunFolder(out)
    write_report(res, folder.root, title=title, spec=spec, command=command, chart=True)
    folder.write_manifest({"name": f"tune {target}", "kind": "tune", "command": command, "seed": seed,
                           "version": __version__, "variant": rules.variant, "players": rules.players,
                           "spec": spec})
    return res, spec, folder
