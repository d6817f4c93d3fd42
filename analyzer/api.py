"""A small Python API for notebooks: simulate, run, compare -> tidy pandas DataFrames.

Every function goes through the same executor, line-up and seeds as the
``durak`` commands, so ``simulate(...)`` returns the numbers ``durak simulate``
prints for the same arguments and seed.  Strategies are specs (``"greedy"``,
``"weighted?w_points=1.5,w_wild=-2"``, ``"my.py:Mine"``; a single string is a
written line-up as ``--strategies`` takes it) or ready strategy objects.

The summary frames are *tidy*: one row per (cell, position or strategy,
metric) with ``rate``, ``lo``, ``hi`` (95% interval; float64) and ``n``
(int64).  Metrics are ``win``, ``loss``, ``wild_held`` (rates) and
``mean_points`` (a mean: its ``rate`` column holds the mean points).

:func:`deals` exports single deals for custom analysis: one row per deal and
position with the winner and loser flags, points, turns, and the wilds dealt
and held.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer.core.bits import RANK_OF
from analyzer.core.cards import shuffled_decks
from analyzer.core.outcomes import END_NAMES
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.execution import lineup as lineups
from analyzer.execution.executor import play_decks
from analyzer.execution.experiment import single_cell
from analyzer.execution.play import play_cell
from analyzer.execution.rules_pair import play_pair
from analyzer.execution.runs import run_experiment
from analyzer.execution.runs.compare import run_compare
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.stats.compare import summarize_comparison
from analyzer.stats.intervals import mean_from_sums, wilson
from analyzer.stats.paired import rules_differences

__all__ = ["simulate", "run", "results", "compare", "compare_rules", "deals"]

Strategies = str | Sequence[Any]
Rules = RuleSet | Mapping[str, Any] | None

#: Columns of the tidy summary frames, in order.
TIDY = ["cell", "label", "variant", "players", "unit", "rules", "position", "strategy", "metric",
        "rate", "lo", "hi", "n"]


def _rules(variant: str, players: int | None, rules: Rules) -> RuleSet:
    if isinstance(rules, RuleSet):
        return rules
    return make_rules(variant, players, dict(rules or {}))


def _entries(strategies: Strategies) -> list[Any]:
    if isinstance(strategies, str):
        return list(lineups.parse_lineup(strategies))
    return list(strategies)


def _tidy(positions: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """Tidy rows from summed per-position sums and a cells table (cell, label, variant, ...)."""
    rows = []
    for metric, count in (("win", "wins"), ("loss", "losses"), ("wild_held", "wild_held")):
        w = wilson(positions[count].to_numpy(np.float64), positions["n"].to_numpy(np.float64))
        rows.append(positions[["cell", "position", "strategy", "n"]].assign(metric=metric, rate=w.rate, lo=w.lo,
                                                                           hi=w.hi))
    p = mean_from_sums(positions["points_sum"].to_numpy(np.float64), positions["points_sq"].to_numpy(np.float64),
                       positions["n"].to_numpy(np.float64))
    rows.append(positions[["cell", "position", "strategy", "n"]].assign(metric="mean_points", rate=p.est, lo=p.lo,
                                                                       hi=p.hi))
    out = pd.concat(rows, ignore_index=True).merge(
        cells[["cell", "label", "variant", "players", "unit", "rules"]], on="cell")
    out = out.astype({"cell": "int64", "position": "int64", "players": "int64", "n": "int64", "rate": "float64",
                      "lo": "float64", "hi": "float64", "strategy": "string", "metric": "string",
                      "label": "string", "variant": "string", "unit": "string", "rules": "string"})
    order = {"win": 0, "loss": 1, "wild_held": 2, "mean_points": 3}
    out = out.sort_values(["cell", "metric", "position"], key=lambda s: s.map(order) if s.name == "metric" else s)
    return out[TIDY].reset_index(drop=True)


def simulate(strategies: Strategies = "random", *, variant: str = "czech", players: int | None = None,
             deals: int = 100_000, matches: int | None = None, rules: Rules = None, seed: int = 0,
             jobs: int = 1) -> pd.DataFrame:
    """Play one line-up (``durak simulate``); a tidy frame of win/loss/wild-held rates and mean points.

    Args:
        strategies: specs or strategy objects by position (0 acts first), cycled to the
            player count; or one written line-up such as ``"greedy;random"``.
        variant, players: the game; ``players=None`` is the variant's default (svinya 2, else 4).
        deals: deals to play, unless ``matches`` (matches to play) is given.
        rules: option overrides by RULES.md name (``{"sevens": True}``) or a ready RuleSet.
        seed, jobs: as on the command line; the numbers depend on the seed, not on jobs.
    """
    rs = _rules(variant, players, rules)
    unit = "match" if matches else "deal"
    cell = single_cell(rs, _entries(strategies), unit=unit, n=matches or deals)
    tables, _ = play_cell(cell, seed=seed, jobs=jobs)
    return cell_frame(cell, tables)


def cell_frame(cell: Any, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The tidy frame of one played cell (its summed tables): what :func:`simulate` returns and
    ``durak simulate --csv`` writes."""
    rs = cell.rules
    cells = pd.DataFrame([{"cell": 0, "label": cell.label, "variant": rs.variant, "players": rs.players,
                           "unit": cell.unit, "rules": rs.describe()}])
    return _tidy(tables["positions"].assign(cell=0), cells)


def run(experiment: str | Path, *, out: str | Path | None = None, deals: int | None = None, jobs: int = 1,
        fresh: bool = False) -> pd.DataFrame:
    """Run an experiment file (``durak run``, no report); a tidy frame with one block per cell.

    ``out`` defaults to ``runs/<name>``; finished chunks there are reused unless ``fresh``.
    """
    folder = run_experiment(experiment, out=out, deals=deals, jobs=jobs, fresh=fresh, quiet=True, report=False)
    return results(folder)


def results(folder: str | Path) -> pd.DataFrame:
    """The tidy frame of a finished run folder (``durak run``'s output), read from its stored tables without
    playing: what :func:`run` returns and ``durak export FOLDER --csv`` writes."""
    res = Path(folder) / "results"
    return _tidy(pd.read_parquet(res / "positions.parquet"), pd.read_parquet(res / "cells.parquet"))


def compare(strategies: Strategies, *, variant: str = "czech", players: int | None = None, deals: int = 20_000,
            matches: int | None = None, rules: Rules = None, seed: int = 0, jobs: int = 1) -> pd.DataFrame:
    """Duplicate-deal comparison (``durak compare``); a tidy frame with one row per strategy and metric.

    ``rate, lo, hi`` are the per-deck mean score and its 95% interval (win and loss
    shares, mean points); ``n`` the seat-games per strategy.  The pairwise paired
    differences with Holm-corrected verdicts are in ``frame.attrs["pairs"]`` (a DataFrame).
    """
    rs = _rules(variant, players, rules)
    result = summarize_comparison(run_compare(rs, _entries(strategies), matches or deals, seed=seed,
                                              matches=bool(matches), jobs=jobs))
    return compare_frame(result, rs)


def compare_frame(result: Mapping[str, Any], rs: RuleSet) -> pd.DataFrame:
    """The tidy frame of a summarised comparison (:func:`compare`; ``durak compare --csv`` writes it), the pairs
    in ``frame.attrs["pairs"]``."""
    rows = []
    for r in result["ranking"]:
        for metric, est, lo, hi in (("win", "win_rate", "lo", "hi"), ("loss", "loss_rate", "loss_lo", "loss_hi"),
                                    ("mean_points", "mean_points", "points_lo", "points_hi")):
            rows.append({"strategy": r["strategy"], "metric": metric, "rate": r[est], "lo": r[lo], "hi": r[hi],
                         "n": r["n"]})
    frame = pd.DataFrame(rows).astype({"strategy": "string", "metric": "string", "rate": "float64",
                                       "lo": "float64", "hi": "float64", "n": "int64"})
    frame.insert(0, "unit", result["unit"])
    frame.insert(0, "rules", rs.describe())
    frame.insert(0, "players", rs.players)
    frame.insert(0, "variant", rs.variant)
    frame.attrs["pairs"] = pd.DataFrame(result["pairs"])
    return frame


def compare_rules(rules_a: Rules, rules_b: Rules, strategies: Strategies = "random", *, variant: str = "czech",
                  players: int | None = None, deals: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """Two rule sets on the same decks with the same players (``durak compare-rules``): one row per quantity
    (``win`` and ``loss`` per ``seat``, ``turns``, ``jack``) with its level under A and B and the paired
    difference A − B, each with a 95% interval (``a, a_lo, a_hi, b, b_lo, b_hi, diff, lo, hi, n``)."""
    ra, rb = _rules(variant, players, rules_a), _rules(variant, players, rules_b)
    specs = [lineups.entry_text(e) for e in _entries(strategies)]
    a, b = play_pair(ra, rb, specs, deals, seed=seed)
    return rules_differences(a, b, ra.players)


def wilds_dealt(decks: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Wild cards dealt to each position (N, P), as deal_hands deals (G10a, PR2, SV2).

    Card i of a deck goes to seat ``(i + 1) % P`` (the dealer, seat 0, last), and
    position p (p = 0 acts first) is seat ``(p + 1) % P``, so card i goes to
    position ``i % P``.  Prague's dealer leads his last card (PR2): it is not held.
    """
    n, h = rules.players, rules.hand_size
    dealt = decks[:, : n * h]
    wild = RANK_OF[dealt] == rules.wild_rank
    if rules.starter_kind == "dealer_lead":
        wild[:, n * h - 1] = False
    return wild.reshape(len(decks), h, n).sum(axis=1)


def deals(strategies: Strategies = "random", *, variant: str = "czech", players: int | None = None,
          n: int = 10_000, rules: Rules = None, seed: int = 0) -> pd.DataFrame:
    """Single deals for custom analysis: one row per (deal, position).

    Columns: ``deal``, ``position`` (0 acts first), ``strategy``, ``winner`` and
    ``loser`` (bool), ``points`` (at the end of the deal), ``wilds_dealt``,
    ``wild_held`` (bool: held a wild at the end), ``cards_left`` (in the hand at the end; compare holders
    with hands of as many cards), ``turns`` (of the deal), ``end``
    (out, blocked, capped).  Decks come from their own stream (seed purpose
    "deals"), so these are not the deals behind :func:`simulate`'s numbers.
    """
    rs = _rules(variant, players, rules)
    entries = lineups.cycle(tuple(_entries(strategies)), rs.players)
    strats = lineups.build(entries, get_strategy)
    names = lineups.display_names(entries, strats)
    deck_ss, play_ss = chunk_seed(seed, "deals", content_text(rs, [lineups.entry_text(e) for e in entries],
                                                              "deal"), 0).spawn(2)
    decks = shuffled_decks(rs.deck_size, n, np.random.default_rng(deck_ss))
    res = play_decks(rs, strats, decks, play_ss)  # the compiled kernel when every strategy has a compiled form
    p = rs.players
    pos = np.tile(np.arange(p), n)
    return pd.DataFrame({
        "deal": np.repeat(np.arange(n), p), "position": pos, "strategy": pd.array(np.array(names)[pos], "string"),
        "winner": np.repeat(res.winner, p) == pos, "loser": np.repeat(res.loser, p) == pos,
        "points": res.points.ravel().astype(np.int64), "wilds_dealt": wilds_dealt(decks, rs).ravel().astype(np.int64),
        "wild_held": res.wild_held.ravel(), "cards_left": res.cards_left.ravel().astype(np.int64),
        "turns": np.repeat(res.turns, p).astype(np.int64),
        "end": pd.Categorical(np.repeat(np.array(END_NAMES)[res.end], p), categories=list(END_NAMES)),
    })
