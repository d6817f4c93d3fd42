"""Tidy tables answering the report's questions from a stored results folder.

A results folder holds, per *cell* of an experiment (one variant, player count,
unit, lineup and rule setting), the summed sufficient statistics of
:func:`analyzer.stats.sums.summarize`.  Every function here takes the loaded
:class:`Results` and returns a plain DataFrame with one row per observation and
the cell's descriptive columns attached, so the same numbers feed the report,
the charts and interactive use.  Every rate comes as ``rate, lo, hi, n``
(Wilson 95 %, :mod:`analyzer.stats.intervals`).

Layout read by :func:`load_results`::

    DIR/manifest.json
    DIR/results/cells.parquet       one row per cell
    DIR/results/positions.parquet   summarize()['positions'] summed, + cell
    DIR/results/totals.parquet      summarize()['totals'] summed, + cell
    DIR/results/hist.parquet        summarize()['hist'] summed, + cell
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer.core.inputs import read_user_text
from analyzer.core.registry import wild_twins
from analyzer.core.rules import OPTIONS, RulesError, describe_options, first_mover_position, parse_description
from analyzer.stats import fairness, paired
from analyzer.stats import intervals as stats
from analyzer.stats.schema import manifest_problem, results_problem
from analyzer.stats.sums import (
    CROSS_COLUMNS,
    DEALT_CLASSES,
    DEALT_MOMENTS,
    HELD_DIM,
    HELD_MOMENTS,
    HV_COLUMNS,
    JACK_COLUMNS,
    LEFT_CLASSES,
    LEFT_COLUMNS,
    POSITION_COLUMNS,
    ROTATION_BASE,
    ROTATION_KIND,
    TOTAL_COLUMNS,
    moment_names,
)

#: Columns that describe a cell; every table carries them.
CELL_COLUMNS = ("cell", "label", "variant", "players", "unit", "lineup", "rules")
#: Keys that make cells comparable when pooling over lineups.
GROUP_COLUMNS = ["variant", "players", "unit", "rules"]
#: A cell whose capped share of deals exceeds this is flagged loudly (G10).
CAPPED_ALARM = 0.001


@dataclass
class Results:
    """The four stored tables of one experiment run, plus its manifest."""

    cells: pd.DataFrame
    positions: pd.DataFrame
    totals: pd.DataFrame
    hist: pd.DataFrame
    manifest: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def units(self) -> list[str]:
        return sorted(self.cells["unit"].unique().tolist())


#: Names the tables compute or read from the data; a grid column of the same name is renamed grid_<name>.
_RESERVED = set(POSITION_COLUMNS) | set(TOTAL_COLUMNS) | {
    "kind", "bin", "count", "outcome", "rate", "lo", "hi", "fair", "seats", "cells", "opponent"}


def _normalize_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """Fill optional descriptive columns so downstream code need not guess."""
    c = cells.copy()
    clash = [k for k in c.columns if k in _RESERVED]
    c = c.rename(columns={k: f"grid_{k}" for k in clash})
    if "unit" not in c:
        c["unit"] = "deal"
    if "rules" not in c:
        c["rules"] = "{}"
    c["rules"] = c["rules"].fillna("{}").astype(str)
    if "lineup" not in c:
        c["lineup"] = ""
    c["lineup"] = c["lineup"].fillna("").astype(str)
    c["players"] = c["players"].astype(int)
    c["cell"] = c["cell"].astype(int)
    if "label" not in c:
        c["label"] = [cell_text(r) for r in c.to_dict("records")]
    c["label"] = c["label"].fillna("").astype(str)
    return c.sort_values("cell").reset_index(drop=True)


class ResultsError(ValueError):
    """Stored results that cannot be read; the message (one line) names the file."""


def _read_table(path: Path) -> pd.DataFrame:
    import pyarrow

    try:
        return pd.read_parquet(path)
    except FileNotFoundError:
        raise ResultsError(f"{path}: missing; run the experiment again") from None
    except (OSError, pyarrow.lib.ArrowException) as exc:
        raise ResultsError(f"{path}: not a readable results table ({' '.join(str(exc).split())})") from None


def load_results(path: str | Path) -> Results:
    """Read ``DIR/results/*.parquet`` and ``DIR/manifest.json`` (missing manifest -> {})."""
    d = Path(path)
    r = d / "results"
    if problem := results_problem(r):  # wrong columns or types: one line, not a KeyError later
        raise ResultsError(problem)
    cells = _normalize_cells(_read_table(r / "cells.parquet"))
    positions = _read_table(r / "positions.parquet")
    totals = _read_table(r / "totals.parquet")
    hist = _read_table(r / "hist.parquet")
    mpath = d / "manifest.json"
    try:
        manifest = json.loads(read_user_text(mpath)) if mpath.exists() else {}  # bounded read
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ResultsError(f"{mpath}: not valid JSON ({' '.join(str(exc).split()) or 'nested too deeply'})") from None
    except OSError as exc:
        raise ResultsError(f"{mpath}: cannot read: {exc.strerror or exc}") from None
    if problem := manifest_problem(manifest, mpath):
        raise ResultsError(problem)
    return Results(cells=cells, positions=positions, totals=totals, hist=hist,
                   manifest=manifest, path=d)


def rules_dict(rules: str) -> dict[str, Any]:
    """The options changed from the variant default, parsed from the ``rules`` column.

    The column holds :meth:`RuleSet.describe` text (older results: RuleSet.to_json);
    both are read by :func:`analyzer.core.rules.parse_description`, the one reader of
    rules text.  An unparsable value is kept as ``{"rules": text}``.
    """
    try:
        return parse_description(str(rules or ""))
    except RulesError:
        return {"rules": rules}


def rules_text(rules: str) -> str:
    """``sevens=on, eight_stop=on`` or ``default rules`` (:func:`analyzer.core.rules.describe_options`)."""
    d = rules_dict(rules)
    if set(d) == {"rules"}:
        return str(d["rules"])
    return describe_options(d)


def cell_text(row: dict[str, Any]) -> str:
    """Human text of a cell: ``czech 4p sevens=on``."""
    d = rules_dict(str(row.get("rules", "{}")))
    extra = rules_text(str(row.get("rules", "{}"))) if d else ""
    return f"{row['variant']} {int(row['players'])}p" + (f" {extra}" if extra else "")


def _attach(df: pd.DataFrame, res: Results) -> pd.DataFrame:
    """Prefix the cell's descriptive columns (and any grid columns) to a per-cell table."""
    # a grid column that happens to share a name with a data column loses to the data
    info = res.cells.drop(columns=[c for c in res.cells.columns if c in df.columns and c != "cell"])
    return info.merge(df, on="cell", how="inner")


def _positions(res: Results) -> pd.DataFrame:
    """Per-position sums with the cell's columns (the same-game products stay in res.positions)."""
    p = res.positions.drop(columns=[c for c in (*CROSS_COLUMNS, *JACK_COLUMNS, *HV_COLUMNS, *LEFT_COLUMNS)
                                    if c in res.positions.columns])
    for c in ("n", "wins", "losses", "losses_by_wild", "wild_held", "went_out", "points_sum", "points_sq"):
        p[c] = p[c].astype(np.float64)
    p["position"] = p["position"].astype(int)
    # decided games: a capped deal has no winner and no loser (G10), so fair shares are taken among
    # the others; a match is always decided (its capped deals are inside it)
    t = res.totals[["cell", "capped"]].astype({"capped": np.float64})
    p = p.merge(t, on="cell", how="left")
    unit = p["cell"].map(res.cells.set_index("cell")["unit"])
    p["decided"] = np.where(unit == "match", p["n"], p["n"] - p["capped"].fillna(0.0))
    p = p.drop(columns="capped")
    return _attach(p, res).sort_values(["cell", "position"]).reset_index(drop=True)


_SUMS = ("n", "decided", "wins", "losses", "losses_by_wild", "wild_held", "went_out", "points_sum", "points_sq")


def _pooled_positions(res: Results) -> pd.DataFrame:
    """Positions summed over the cells of one variant, players, unit and rules (all seatings).

    When an experiment rotates a field of strategies through the seats, the
    per-cell position effect is confounded with who sits there; summed over
    the seatings, each strategy sits each position equally often and the
    position effect stands alone.  ``seatings`` counts the lineups pooled,
    ``strategies`` names them; ``cell`` is the first pooled cell.
    """
    p = _positions(res)
    g = p.groupby(GROUP_COLUMNS + ["position"], dropna=False, sort=True)
    out = g.agg(**{c: (c, "sum") for c in _SUMS}, cell=("cell", "min"),
                seatings=("lineup", "nunique")).reset_index()
    strat = p.groupby(GROUP_COLUMNS, dropna=False)["strategy"].agg(lambda s: ", ".join(sorted(set(s))))
    lineups = p.groupby(GROUP_COLUMNS, dropna=False)["lineup"].agg(lambda s: " | ".join(dict.fromkeys(s)))
    out = out.merge(strat.rename("strategies").reset_index(), on=GROUP_COLUMNS)
    out = out.merge(lineups.rename("lineup").reset_index(), on=GROUP_COLUMNS)
    out["strategy"] = np.where(out["seatings"] > 1, "(all seatings)", "")
    single = out["seatings"] == 1
    out.loc[single, "strategy"] = [ln.split(",")[pos] if pos < len(ln.split(",")) else ""
                                   for ln, pos in zip(out.loc[single, "lineup"], out.loc[single, "position"])]
    out["label"] = [cell_text(r) + (f" ({k} seatings pooled)" if k > 1 else "")
                    for r, k in zip(out.to_dict("records"), out["seatings"])]
    return out.sort_values(["cell", "position"]).reset_index(drop=True)


def _add_rate(df: pd.DataFrame, count: str, n: str, prefix: str) -> pd.DataFrame:
    r = stats.wilson(df[count].to_numpy(), df[n].to_numpy())
    df[f"{prefix}rate"], df[f"{prefix}lo"], df[f"{prefix}hi"] = r.rate, r.lo, r.hi
    return df


def _long_outcomes(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Stack wins and losses into ``outcome, count, rate, lo, hi, n`` rows."""
    parts = []
    for outcome, col in (("win", "wins"), ("loss", "losses")):
        part = df[keys + ["n", "decided", col]].rename(columns={col: "count"})
        part.insert(len(keys), "outcome", outcome)
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    out = _add_rate(out, "count", "n", "")
    # the fair share of all games: 1/players of the decided ones (capped deals are nobody's, G10)
    out["fair"] = out["decided"] / out["n"].where(out["n"] > 0) / out["players"]
    out = out.drop(columns="decided")
    return out.sort_values(keys + ["outcome"], kind="stable").reset_index(drop=True)


def win_loss_by_position(res: Results, pooled: bool = False) -> pd.DataFrame:
    """Win and loss (дурак) rate of every position of every cell, per deal or match (``unit``).

    One row per cell, position and outcome; ``fair`` is 1/players.  Capped deals
    have neither winner nor loser, so their share is missing from both rates.
    ``pooled=True``: per variant, players, unit and rules over all seatings.
    """
    if not pooled:
        p = _positions(res)
        keys = [c for c in res.cells.columns] + ["position", "strategy"]
    else:
        p = _pooled_positions(res)
        keys = [c for c in p.columns if c not in _SUMS and c not in ("position", "strategy")]
        keys += ["position", "strategy"]
    return _long_outcomes(p, keys)


def win_loss_by_strategy(res: Results, pool_cells: bool = False) -> pd.DataFrame:
    """Win and loss rate per strategy: per seat and deal (or match), seats of a strategy pooled.

    ``pool_cells=False``: per cell.  ``True``: pooled over all cells with the same
    variant, players, unit and rules (different lineups and seatings), which
    averages out seat effects when the experiment rotates seats.  ``n`` counts
    seat-deals; ``seats`` counts the positions pooled.  Seats in one deal are
    treated as independent, which is conservative for wins (they exclude each other).
    """
    p = _positions(res)
    keys = (["cell"] + [c for c in res.cells.columns if c != "cell"] if not pool_cells
            else list(GROUP_COLUMNS)) + ["strategy"]
    agg = (p.groupby(keys, dropna=False, sort=True)
             .agg(n=("n", "sum"), decided=("decided", "sum"), wins=("wins", "sum"), losses=("losses", "sum"),
                  seats=("position", "size"), cells=("cell", "nunique"))
             .reset_index())
    out = _long_outcomes(agg, keys + ["seats", "cells"])
    return out


def first_player_advantage(res: Results, pooled: bool = False) -> pd.DataFrame:
    """Position 0's win rate against the fair share 1/players, one row per cell.

    ``pooled=True``: one row per variant, players, unit and rules, summed over
    all seatings (:func:`_pooled_positions`) — the seat effect without the
    strategy mix, when the experiment rotates the lineup.

    The rate is taken among decided games (``n``): a capped deal has no winner
    (G10), so counting it would pull every seat below the fair share.
    ``diff`` = rate - fair and ``ratio`` = rate / fair carry the Wilson bounds
    (the fair share is a constant), so they agree with ``distinguishable``; the
    p-value is the score test (null standard error), Holm-adjusted over all
    cells in ``p_holm``; ``distinguishable`` only where the interval excludes the
    fair share and ``p_holm`` < 0.05 (the one verdict rule).  ``homogeneous`` says whether every seat plays the same
    strategy (otherwise the strategy mix, not just the seat, is measured).
    """
    p = _pooled_positions(res) if pooled else _positions(res)
    mover = np.array([first_mover_position(v, int(n)) for v, n in zip(p["variant"], p["players"])], dtype=int)
    first = p[p["position"].to_numpy() == mover].copy()
    fair = 1.0 / first["players"].to_numpy(dtype=float)
    r = stats.wilson(first["wins"].to_numpy(), first["decided"].to_numpy())
    rate, lo, hi = r.rate, r.lo, r.hi
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(rate * (1 - rate) / first["decided"].to_numpy())
        null_se = np.sqrt(fair * (1 - fair) / first["decided"].to_numpy())
    decks = np.full(len(first), np.nan)
    rot = pd.DataFrame() if pooled else rotated_first(res)
    if not rot.empty:  # cells whose hands rotate: the rate over decks, its interval over decks (the luck cancels)
        # the rotation sums count position 0; where the first mover sits elsewhere (prague's dealer) the rate stays
        # the deals' own, with its Wilson interval
        at = (first["cell"].map(rot.set_index("cell")["decks"]).notna() & (first["position"] == 0)).to_numpy()
        e = rot.set_index("cell").loc[first["cell"][at]]
        rate, lo, hi, se, null_se = (np.array(x, dtype=float) for x in (rate, lo, hi, se, null_se))
        rate[at], lo[at], hi[at], se[at] = e["rate"], e["lo"], e["hi"], e["se"]
        null_se[at] = se[at]  # the design's own error: a score test would take the deals as independent
        decks[at] = e["decks"]
    info = [c for c in p.columns if c not in _SUMS and c not in ("position", "strategy")]
    out = first[info + ["strategy"]].rename(columns={"strategy": "first_strategy"})
    out["n"] = first["decided"].to_numpy()
    out["games"] = first["n"].to_numpy()
    out["wins"] = first["wins"].to_numpy()
    out["decks"] = decks
    out["rate"], out["lo"], out["hi"], out["se"], out["fair"] = rate, lo, hi, se, fair
    out["diff"], out["diff_lo"], out["diff_hi"] = rate - fair, lo - fair, hi - fair
    out["ratio"], out["ratio_lo"], out["ratio_hi"] = rate / fair, lo / fair, hi / fair
    out["p_value"] = stats.z_test_p(rate, null_se, fair)
    out["p_holm"] = stats.holm(out["p_value"].to_numpy())
    out["distinguishable"] = stats.agreed_distinguishable(lo, hi, out["p_holm"].to_numpy(), fair)
    out["homogeneous"] = [len(set(s.replace("|", ",").replace(" ", "").split(","))) <= 1 for s in out["lineup"]]
    out["first_position"] = first["position"].to_numpy()
    out = capped_bounds(out, "wins", "n", "games")
    out["capped_verdict"] = out["capped_matters"] & (out["capped_worst_lo"] <= out["fair"]) & (
        out["fair"] <= out["capped_worst_hi"]) & out["distinguishable"]
    return out.reset_index(drop=True)


def capped_bounds(df: pd.DataFrame, wins: str, decided: str, games: str) -> pd.DataFrame:
    """Worst-case bounds of a rate taken among decided games (a capped deal, G10, has no winner): every capped
    deal counted as a loss (``capped_worst_lo``), then as a win (``capped_worst_hi``); ``capped_matters`` where
    they reach outside the rate's interval (``lo``, ``hi``), so how capped deals are scored could move it."""
    w, d, g = (df[c].to_numpy(dtype=float) for c in (wins, decided, games))
    capped = np.maximum(g - d, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["capped_worst_lo"] = np.where(g > 0, w / g, np.nan)
        df["capped_worst_hi"] = np.where(g > 0, (w + capped) / g, np.nan)
    df["capped_matters"] = (capped > 0) & ((df["capped_worst_lo"] < df["lo"]) | (df["capped_worst_hi"] > df["hi"]))
    return df


def seat_fairness(res: Results, pooled: bool = False) -> pd.DataFrame:
    """Every seat on both outcomes, one row per cell (``pooled``: per variant, players, unit and rules over all
    seatings): the seat fairness of :func:`analyzer.stats.fairness.from_counts` (``fairness``, ``fairness_lo``,
    ``fairness_hi``, ``fairness_seat``, ``fairness_outcome``), the first mover's position, and the seats favoured
    on wins (``win_seat``) and on the
    дурак (``durak_seat``, the least often дурак), -1 where no seat's 95 % interval excludes the fair share.
    Per-seat shares are in ``win{k}``/``durak{k}`` with ``_lo``/``_hi``."""
    p = _pooled_positions(res) if pooled else _positions(res)
    keys = [c for c in p.columns if c not in _SUMS and c not in ("position", "strategy")]
    rows = []
    for _, g in p.groupby("cell", sort=True):
        g = g.sort_values("position")
        r0 = g.iloc[0]
        players = int(r0["players"])
        f = fairness.from_counts(g["wins"].to_numpy(), g["losses"].to_numpy(), float(r0["decided"]), players,
                                 float(r0["n"]))
        row = {k: r0[k] for k in keys}
        favoured = {o: f.advantaged(o) for o in fairness.OUTCOMES}
        row.update({"first_position": first_mover_position(str(r0["variant"]), players), **f.summary(),
                    **{f"{o}_seat": -1 if k is None else k for o, k in favoured.items()}, "decided": f.decided})
        for k, seat in enumerate(f.seats()):
            for key, v in seat.items():  # win -> win0, win_lo -> win0_lo
                base, _, tail = key.partition("_")
                row[f"{base}{k}" + (f"_{tail}" if tail else "")] = v
        rows.append(row)
    return pd.DataFrame(rows)


def rotated_first(res: Results) -> pd.DataFrame:
    """Per cell whose hands rotate (experiment key ``hand_rotations``): the first seat's win rate among decided
    deals over its decks -- every deck dealt once per rotation, the same hands in every seat -- with the
    interval over decks (:func:`analyzer.stats.intervals.ratio_over_clusters`: a deck's deals share its cards,
    so they are not independent draws).  Columns cell, decks, rate, se, lo, hi; empty when no cell rotates."""
    h = res.hist[res.hist["kind"] == ROTATION_KIND]
    if h.empty:
        return pd.DataFrame(columns=["cell", "decks", "rate", "se", "lo", "hi"])
    c = h["count"].to_numpy(dtype=float)
    w = (h["bin"].to_numpy() // ROTATION_BASE).astype(float)
    d = (h["bin"].to_numpy() % ROTATION_BASE).astype(float)
    parts = pd.DataFrame({"cell": h["cell"].to_numpy(), "m": c, "w": c * w, "d": c * d, "ww": c * w * w,
                          "wd": c * w * d, "dd": c * d * d}).groupby("cell", sort=True).sum()
    e = stats.ratio_over_clusters(parts["m"], parts["w"], parts["d"], parts["ww"], parts["wd"], parts["dd"])
    return pd.DataFrame({"cell": parts.index.to_numpy(), "decks": parts["m"].to_numpy(), "rate": e.est, "se": e.se,
                         "lo": e.lo, "hi": e.hi})


def worst_positions(res: Results, pooled: bool = False) -> pd.DataFrame:
    """Per cell, the position with the highest loss rate and its gap to the runner-up.

    ``pooled=True``: per variant, players, unit and rules over all seatings.

    Rates are among decided games (``n``; a capped deal has no loser, G10).
    The gap's interval accounts for both positions coming from the same deals
    (one loser per deal: multinomial covariance), but the worst seat and its
    runner-up are *picked from these same data*, so the interval is not a test
    of "this seat is worse": the table carries no verdict for the gap.
    """
    p = _pooled_positions(res) if pooled else _positions(res)
    p["loss_rate"] = p["losses"] / p["decided"].where(p["decided"] > 0)
    rows = []
    for cell, g in p.groupby("cell", sort=True):
        g = g.sort_values(["loss_rate", "position"], ascending=[False, True], kind="stable")
        w = g.iloc[0]
        r = stats.wilson(w["losses"], w["decided"])
        row: dict[str, Any] = {"cell": cell, "worst_position": int(w["position"]),
                               "worst_strategy": w["strategy"], "n": w["decided"],
                               "loss_rate": float(r.rate), "loss_lo": float(r.lo), "loss_hi": float(r.hi),
                               "fair": 1.0 / w["players"]}
        if len(g) > 1:
            s = g.iloc[1]
            d = stats.diff_multinomial(w["loss_rate"], s["loss_rate"], w["decided"])
            row.update(runner_up=int(s["position"]), runner_up_rate=float(s["loss_rate"]),
                       gap=float(d.est), gap_lo=float(d.lo), gap_hi=float(d.hi))
        else:
            row.update(runner_up=-1, runner_up_rate=np.nan, gap=np.nan, gap_lo=np.nan, gap_hi=np.nan)
        rows.append(row)
    cols = ["cell", "worst_position", "worst_strategy", "n", "loss_rate", "loss_lo", "loss_hi", "fair",
            "runner_up", "runner_up_rate", "gap", "gap_lo", "gap_hi"]
    out = pd.DataFrame(rows, columns=cols)
    if not pooled:
        return _attach(out, res)
    info = p[p["position"] == 0][[c for c in p.columns if c not in _SUMS and c not in
                                  ("position", "strategy", "loss_rate")]]
    return info.merge(out, on="cell").reset_index(drop=True)


def wild_by_position(res: Results) -> pd.DataFrame:
    """Wild-holding penalty per cell and position.

    ``held_*``: share of deals (matches) that ended with this position holding a
    wild.  ``by_wild_*``: share in which the wild rule, not the points, made this
    position the loser (CZ7/PR7).  ``wild_loss_share_*``: of this position's
    losses, the share the wild rule decided.  ``points_*``: mean penalty points
    of the position's hand (match: match total) with a normal interval.
    """
    p = _positions(res)
    p = _add_rate(p, "wild_held", "n", "held_")
    p = _add_rate(p, "losses_by_wild", "n", "by_wild_")
    p = _add_rate(p, "losses_by_wild", "losses", "wild_loss_share_")
    p = _add_rate(p, "losses", "n", "loss_")
    m = stats.mean_from_sums(p["points_sum"].to_numpy(), p["points_sq"].to_numpy(), p["n"].to_numpy())
    p["points_mean"], p["points_lo"], p["points_hi"] = m.est, m.lo, m.hi
    return p.drop(columns=["points_sq"]).reset_index(drop=True)


def wild_summary(res: Results, pooled: bool = False) -> pd.DataFrame:
    """Wild-holding penalty per cell (all positions together); ``pooled``: over seatings.

    Measurable from per-position counts: the mean held rate over positions, the
    expected number of wild holders per deal (their sum) and bounds on the share
    of deals in which *anyone* holds a wild (``any_lo`` = max over positions,
    ``any_hi`` = min(1, sum)); the exact share is not stored.  Exact: the share of
    deals whose loser was picked by the wild rule (one loser per deal, so the
    per-position counts add up), and that rule's share of all losses.  Where
    stored, ``wild_hand_points`` against ``other_hand_points`` compares like with
    like: hands left holding a wild against the other hands that did not win.
    """
    p = _pooled_positions(res) if pooled else _positions(res)
    p["held_rate"] = p["wild_held"] / p["n"].where(p["n"] > 0)
    g = p.groupby("cell", sort=True)
    out = g.agg(n=("n", "max"), seats=("position", "size"), held_mean=("held_rate", "mean"),
                any_lo=("held_rate", "max"), holders_per=("held_rate", "sum"),
                losses=("losses", "sum"), losses_by_wild=("losses_by_wild", "sum"),
                points_sum=("points_sum", "sum"), points_sq=("points_sq", "sum")).reset_index()
    out["any_hi"] = np.minimum(1.0, out["holders_per"])
    exact = _wild_totals(res, pooled)
    if exact is not None:  # results that store them give the exact share and the wild hands' points
        out = out.merge(exact, on="cell", how="left")
        out["any_lo"] = out["any_hi"] = out["wild_any"] / out["n"].where(out["n"] > 0)
        # like with like: wild-holding hands against the other hands that did not win (the winner's
        # hand is empty when it went out); results without the rest_* sums get no comparison
        if "rest_hands" in out:
            other = out["rest_hands"] - out["wild_rest_hands"]
            out["wild_hand_points"] = (out["wild_rest_points_sum"]
                                       / out["wild_rest_hands"].where(out["wild_rest_hands"] > 0))
            out["other_hand_points"] = ((out["rest_points_sum"] - out["wild_rest_points_sum"])
                                        / other.where(other > 0))
        else:
            out["wild_hand_points"] = out["other_hand_points"] = np.nan
    out = _add_rate(out, "losses_by_wild", "n", "by_wild_")
    out = _add_rate(out, "losses_by_wild", "losses", "wild_loss_share_")
    m = stats.mean_from_sums(out["points_sum"], out["points_sq"], out["n"] * out["seats"])
    out["points_mean"], out["points_lo"], out["points_hi"] = m.est, m.lo, m.hi
    out = out.drop(columns=["points_sq"])
    if pooled:
        info = p[p["position"] == 0][[c for c in p.columns if c not in _SUMS and c not in
                                      ("position", "strategy", "held_rate")]]
        return info.merge(out, on="cell").reset_index(drop=True)
    return _attach(out, res)


def _wild_totals(res: Results, pooled: bool) -> pd.DataFrame | None:
    """Per cell (or pooled group, keyed by its first cell) exact wild counts, if stored."""
    cols = ["wild_any", "wild_hands", "wild_points_sum"]
    if not set(cols) <= set(res.totals.columns):
        return None
    rest = ["rest_hands", "rest_points_sum", "wild_rest_hands", "wild_rest_points_sum"]
    if set(rest) <= set(res.totals.columns):
        cols += rest
    t = res.totals[["cell"] + cols].astype({c: np.float64 for c in cols})
    if pooled:
        t = t.merge(res.cells[["cell"] + GROUP_COLUMNS], on="cell")
        t = t.groupby(GROUP_COLUMNS, dropna=False).agg(cell=("cell", "min"), **{c: (c, "sum") for c in cols})
        t = t.reset_index()[["cell"] + cols]
    return t


def wild_by_strategy(res: Results) -> pd.DataFrame:
    """Wild-holding penalty per variant, player count, unit, rules and strategy (cells pooled)."""
    p = _positions(res)
    keys = GROUP_COLUMNS + ["strategy"]
    g = (p.groupby(keys, dropna=False, sort=True)
          .agg(n=("n", "sum"), wild_held=("wild_held", "sum"), losses=("losses", "sum"),
               losses_by_wild=("losses_by_wild", "sum"), wins=("wins", "sum"),
               points_sum=("points_sum", "sum"), points_sq=("points_sq", "sum"))
          .reset_index())
    g = _add_rate(g, "wild_held", "n", "held_")
    g = _add_rate(g, "losses_by_wild", "n", "by_wild_")
    g = _add_rate(g, "losses", "n", "loss_")
    g = _add_rate(g, "wins", "n", "win_")
    m = stats.mean_from_sums(g["points_sum"], g["points_sq"], g["n"])
    g["points_mean"], g["points_se"], g["points_lo"], g["points_hi"] = m.est, m.se, m.lo, m.hi
    return g.drop(columns=["points_sq"])


def keeper_vs_dumper(res: Results) -> pd.DataFrame:
    """Holding versus shedding wilds, read off the data: one row per variant, players, unit and rules.

    No strategy is named in advance: in every group of cells with two or more
    strategies, the one whose hands end holding a wild most often (per seat,
    ``keeper``) is set against the one holding least often (``dumper``); the
    names are in the ``keeper`` and ``dumper`` columns, so a wild-keeper and a
    wild-dumper are found as such, and a field without them still answers the
    wild question.  Seats of each are pooled over the group's cells.

    Strategies seated in the same deals share them, so every difference
    (``loss_diff`` = keeper − dumper, ``win_diff``, ``points_diff``) and the
    log ratio ``loss_ratio`` get *paired* intervals (:mod:`analyzer.stats.paired`),
    not independent ones.  ``p_holm`` is Holm over the rows' loss differences;
    ``distinguishable`` is the one verdict rule (interval and Holm p agree).
    Empty (with columns) when no group holds two strategies.

    ``isolating``: the two strategies differ in wild handling alone (they declare it:
    :func:`analyzer.core.registry.wild_twins`, e.g. wild-keeper and wild-dumper), so the gap is the
    wild's.  Otherwise it is the two strategies' whole difference (greedy against random differs in far
    more than wilds), and no report sentence may read it as the cost of keeping the wild.
    """
    ws = wild_by_strategy(res)
    stats_cols = ("n", "win_rate", "win_lo", "win_hi", "loss_rate", "loss_lo", "loss_hi",
                  "held_rate", "by_wild_rate", "points_mean")
    cols = GROUP_COLUMNS + ["keeper", "dumper"] + [f"{s}_{m}" for s in ("keeper", "dumper") for m in stats_cols] + [
        "loss_diff", "loss_diff_lo", "loss_diff_hi", "loss_ratio", "loss_ratio_lo", "loss_ratio_hi",
        "win_diff", "win_diff_lo", "win_diff_hi", "points_diff", "points_diff_lo", "points_diff_hi",
        "p", "p_holm", "distinguishable", "isolating"]
    groups = paired.group_cells(res)
    rows = []
    for key, g in ws.groupby(GROUP_COLUMNS, dropna=False, sort=True):
        if g["strategy"].nunique() < 2:
            continue
        g = g.sort_values(["held_rate", "strategy"], ascending=[False, True], kind="stable")
        k, d = g.iloc[0], g.iloc[-1]
        row: dict[str, Any] = {**dict(zip(GROUP_COLUMNS, key)), "keeper": k["strategy"], "dumper": d["strategy"],
                               "isolating": wild_twins(str(k["strategy"]), str(d["strategy"]))}
        for tag, r in (("keeper", k), ("dumper", d)):
            row.update({f"{tag}_{m}": float(r[m]) for m in stats_cols})
        cells = groups[tuple(key)]
        for name, metric in (("loss", "losses"), ("win", "wins"), ("points", "points")):
            e = paired.paired_diff(cells, k["strategy"], d["strategy"], metric)
            row.update({f"{name}_diff": float(e.est), f"{name}_diff_lo": float(e.lo),
                        f"{name}_diff_hi": float(e.hi)})
        se_log = paired.paired_log_ratio_se(cells, k["strategy"], d["strategy"], "losses",
                                            k["loss_rate"], d["loss_rate"])
        ratio = k["loss_rate"] / d["loss_rate"] if d["loss_rate"] > 0 else np.nan
        row.update(loss_ratio=ratio, loss_ratio_lo=ratio * np.exp(-stats.Z95 * se_log),
                   loss_ratio_hi=ratio * np.exp(stats.Z95 * se_log),
                   p=float(stats.z_test_p(row["loss_diff"], (row["loss_diff_hi"] - row["loss_diff"]) / stats.Z95)))
        rows.append(row)
    out = pd.DataFrame(rows, columns=cols)
    if out.empty:
        return out
    out["p_holm"] = stats.holm(out["p"].to_numpy())
    out["distinguishable"] = stats.agreed_distinguishable(out["loss_diff_lo"], out["loss_diff_hi"], out["p_holm"])
    return out


def game_length(res: Results) -> pd.DataFrame:
    """Length of deals (turns, G10a) or matches (deals), blocked and capped counts, per cell.

    Deal cells: mean turns with a normal interval from ``turns_sum/turns_sq``;
    median, p90, p99 from the turns histogram (``*_open`` = the quantile fell in
    the last, open-ended bin, so it is a lower bound); mean pile turn-overs (G8;
    no interval, only the sum is stored).  Match cells: mean deals per match and
    its quantiles from the deals histogram.  ``capped_rate`` is capped deals over
    all deals played (for matches: deals inside matches) — ``capped_alarm`` when
    above 0.1 %.
    """
    t = res.totals.copy()
    for c in ("n", "blocked", "capped", "turns_sum", "turns_sq", "turnovers_sum", "deals_sum"):
        t[c] = t[c].astype(np.float64)
    t = _attach(t, res).sort_values("cell").reset_index(drop=True)
    is_match = (t["unit"] == "match").to_numpy()
    m = stats.mean_from_sums(t["turns_sum"], t["turns_sq"], t["n"])
    t["turns_mean"] = np.where(is_match, np.nan, m.est)
    t["turns_lo"] = np.where(is_match, np.nan, m.lo)
    t["turns_hi"] = np.where(is_match, np.nan, m.hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        t["turnovers_mean"] = np.where(is_match, np.nan, t["turnovers_sum"] / t["n"])
        t["deals_mean"] = t["deals_sum"] / t["n"].where(t["n"] > 0)
    qcols: dict[str, list[Any]] = {f"{k}_{q}": [] for k in ("turns", "deals")
                                   for q in ("median", "p90", "p99", "p99_open")}
    hist = res.hist
    for cell, match in zip(t["cell"], is_match):
        kind = "deals" if match else "turns"
        other = "turns" if match else "deals"
        h = hist[(hist["cell"] == cell) & (hist["kind"] == kind)]
        qs = stats.quantiles_from_hist(h["bin"], h["count"], [0.5, 0.9, 0.99])
        top = float(h["bin"].max()) if len(h) else np.nan
        for name, v in zip(("median", "p90", "p99"), qs):
            qcols[f"{kind}_{name}"].append(float(v))
            qcols[f"{other}_{name}"].append(np.nan)
        qcols[f"{kind}_p99_open"].append(bool(len(h) and qs[-1] >= top))
        qcols[f"{other}_p99_open"].append(False)
    for k, v in qcols.items():
        t[k] = v
    t = _add_rate(t, "blocked", "n", "blocked_")
    t = _add_rate(t, "capped", "deals_sum", "capped_")
    t["capped_alarm"] = t["capped_rate"] > CAPPED_ALARM
    return t


def hist_table(res: Results, kind: str, pooled: bool = False) -> pd.DataFrame:
    """The stored histogram of ``kind`` ('turns' | 'points' | 'deals') with cell columns.

    ``pooled=True`` sums the cells of one variant, players, unit and rules (all
    seatings); ``cell`` is then the first pooled cell and ``label`` names the group.
    """
    h = res.hist[res.hist["kind"] == kind][["cell", "bin", "count"]]
    h = _attach(h, res)
    if pooled:
        g = h.groupby(GROUP_COLUMNS + ["bin"], dropna=False, sort=True)
        h = g.agg(count=("count", "sum"), cell=("cell", "min"), seatings=("lineup", "nunique")).reset_index()
        h["lineup"] = ""
        # one text per group, not per bin (thousands of rows)
        keys = list(zip(h["variant"], h["players"], h["rules"]))
        text = {k: cell_text({"variant": k[0], "players": k[1], "rules": k[2]}) for k in set(keys)}
        h["label"] = [text[k] for k in keys]
    return h.sort_values(["cell", "bin"]).reset_index(drop=True)


def head_to_head(res: Results) -> pd.DataFrame:
    """Strategy A against strategy B: A's win rate per seat minus the fair share.

    Uses the cells whose lineup holds exactly two distinct strategies, pooled
    per variant, players, unit and rules over seatings (so a rotated-seat
    experiment cancels the first-player advantage).  One row per (strategy,
    opponent) with ``diff, lo, hi`` (Wilson bounds minus fair) and ``n``
    (decided seat-games: a capped deal has no winner, G10).  ``p_holm``: the
    score test against the fair share, Holm over the table; ``distinguishable``
    is the one verdict rule (interval and Holm p agree).
    """
    p = _positions(res)
    lineups = p.groupby("cell")["strategy"].agg(lambda s: tuple(sorted(set(s))))
    two = lineups[lineups.map(len) == 2]
    cols = GROUP_COLUMNS + ["strategy", "opponent", "n", "wins", "rate", "lo", "hi", "fair",
                            "diff", "lo_diff", "hi_diff", "p", "p_holm", "distinguishable"]
    if two.empty:
        return pd.DataFrame(columns=cols)
    p = p[p["cell"].isin(two.index)].copy()
    pair = p["cell"].map(two)
    p["opponent"] = [a[1] if s == a[0] else a[0] for s, a in zip(p["strategy"], pair)]
    g = (p.groupby(GROUP_COLUMNS + ["strategy", "opponent"], dropna=False, sort=True)
          .agg(n=("decided", "sum"), wins=("wins", "sum")).reset_index())
    g = _add_rate(g, "wins", "n", "")
    g["fair"] = 1.0 / g["players"]
    g["diff"], g["lo_diff"], g["hi_diff"] = g["rate"] - g["fair"], g["lo"] - g["fair"], g["hi"] - g["fair"]
    with np.errstate(divide="ignore", invalid="ignore"):
        null_se = np.sqrt(g["fair"] * (1 - g["fair"]) / g["n"])
    g["p"] = stats.z_test_p(g["rate"].to_numpy(), null_se.to_numpy(), g["fair"].to_numpy())
    g["p_holm"] = stats.holm(g["p"].to_numpy())
    g["distinguishable"] = stats.agreed_distinguishable(g["lo"], g["hi"], g["p_holm"], g["fair"])
    return g[cols]


def head_to_head_matrix(h2h: pd.DataFrame, value: str = "diff", **where: Any) -> pd.DataFrame:
    """Square strategy x opponent matrix of ``value`` (rows: the strategy measured).

    ``where`` filters on columns first (e.g. ``variant="czech", players=2``);
    if several groups remain they are averaged.  The diagonal is NaN.
    """
    h = h2h
    for k, v in where.items():
        h = h[h[k] == v]
    names = sorted(set(h["strategy"]) | set(h["opponent"]))
    index, columns = pd.Index(names, name="strategy"), pd.Index(names, name="opponent")
    if not h.duplicated(["strategy", "opponent"]).any():
        # one value per square: put in place (a report asks four of each group: pivot_table took 30 times as long)
        at = {name: i for i, name in enumerate(names)}
        square = np.full((len(names), len(names)), np.nan)
        square[[at[x] for x in h["strategy"]], [at[x] for x in h["opponent"]]] = h[value].to_numpy(dtype=np.float64)
        return pd.DataFrame(square, index=index, columns=columns)
    m = h.pivot_table(index="strategy", columns="opponent", values=value, aggfunc="mean").reindex(index=names,
                                                                                                 columns=names)
    m.index.name, m.columns.name = "strategy", "opponent"
    return m.astype(float)


def rule_effects(res: Results) -> pd.DataFrame:
    """What switching one rule option does, everything else held equal.

    For every cell and every option it changes from the default, the cell that
    is identical (variant, players, unit, lineup, other options) but for that
    option is the baseline; one row per such pair with the change (on - off) in
    the first player's win rate, mean deal length, blocked and capped shares and
    the share of losers picked by the wild rule, each with a normal interval
    for independent samples (two cells never share deals).  The first
    player's and the turns' changes carry Holm p-values over the rows and a
    verdict only where interval and Holm p agree.  ``context`` names the other options ("default
    rules" for a switch alone).  Empty (with columns) when no pair exists.
    """
    fpa = first_player_advantage(res).set_index("cell")
    length = game_length(res).set_index("cell")
    wild = wild_summary(res).set_index("cell")
    cols = ["variant", "players", "unit", "lineup", "switch", "context", "cell_on", "cell_off",
            "n_on", "n_off", "first_on", "first_off", "first_diff", "first_lo", "first_hi",
            "turns_on", "turns_off", "turns_diff", "turns_lo", "turns_hi",
            "blocked_diff", "blocked_lo", "blocked_hi", "capped_diff", "capped_lo", "capped_hi",
            "by_wild_diff", "by_wild_lo", "by_wild_hi", "first_p_holm", "turns_p_holm",
            "first_distinguishable", "turns_distinguishable"]
    c = res.cells
    canon = {int(r["cell"]): json.dumps(rules_dict(r["rules"]), sort_keys=True) for _, r in c.iterrows()}
    index = {(r["variant"], int(r["players"]), r["unit"], r["lineup"], canon[int(r["cell"])]): int(r["cell"])
             for _, r in c.iterrows()}
    rows = []
    for _, r in c.iterrows():
        on = int(r["cell"])
        opts = rules_dict(r["rules"])
        for k, v in sorted(opts.items()):
            rest = {a: b for a, b in opts.items() if a != k}
            off = index.get((r["variant"], int(r["players"]), r["unit"], r["lineup"],
                             json.dumps(rest, sort_keys=True)))
            if off is None or on not in fpa.index or off not in fpa.index:
                continue
            a, b = fpa.loc[on], fpa.loc[off]
            fd = stats.diff_proportions(a["rate"], a["n"], b["rate"], b["n"])
            la, lb = length.loc[on], length.loc[off]
            se_t = np.hypot((la["turns_hi"] - la["turns_mean"]) / stats.Z95,
                            (lb["turns_hi"] - lb["turns_mean"]) / stats.Z95)
            td = la["turns_mean"] - lb["turns_mean"]
            bd = stats.diff_proportions(la["blocked_rate"], la["n"], lb["blocked_rate"], lb["n"])
            cd = stats.diff_proportions(la["capped_rate"], la["deals_sum"], lb["capped_rate"], lb["deals_sum"])
            wa, wb = wild.loc[on], wild.loc[off]
            wd = stats.diff_proportions(wa["by_wild_rate"], wa["n"], wb["by_wild_rate"], wb["n"])
            rows.append({
                "variant": r["variant"], "players": int(r["players"]), "unit": r["unit"], "lineup": r["lineup"],
                "switch": describe_options({k: v}), "context": rules_text(json.dumps(rest)),
                "cell_on": on, "cell_off": off,
                "n_on": a["n"], "n_off": b["n"], "first_on": a["rate"], "first_off": b["rate"],
                "first_diff": float(fd.est), "first_lo": float(fd.lo), "first_hi": float(fd.hi),
                "turns_on": la["turns_mean"], "turns_off": lb["turns_mean"], "turns_diff": float(td),
                "turns_lo": float(td - stats.Z95 * se_t), "turns_hi": float(td + stats.Z95 * se_t),
                "blocked_diff": float(bd.est), "blocked_lo": float(bd.lo), "blocked_hi": float(bd.hi),
                "capped_diff": float(cd.est), "capped_lo": float(cd.lo), "capped_hi": float(cd.hi),
                "by_wild_diff": float(wd.est), "by_wild_lo": float(wd.lo), "by_wild_hi": float(wd.hi),
                "first_p": float(stats.z_test_p(fd.est, fd.se)), "turns_p": float(stats.z_test_p(td, se_t)),
            })
    out = pd.DataFrame(rows, columns=[*cols, "first_p", "turns_p"])
    # the one verdict rule: the interval excludes 0 and the Holm p (over the rows) agrees
    for m in ("first", "turns"):
        out[f"{m}_p_holm"] = stats.holm(out[f"{m}_p"].to_numpy(dtype=float))
        out[f"{m}_distinguishable"] = stats.agreed_distinguishable(out[f"{m}_lo"], out[f"{m}_hi"],
                                                                   out[f"{m}_p_holm"])
    return out[cols]


# ---------------------------------------------------------------- the Jack question

#: Words for the wilds-dealt classes of :data:`analyzer.stats.sums.DEALT_CLASSES`.
DEALT_NAMES = {0: "no wild", 1: "one wild", 2: "two or more wilds"}


def wild_rule_of(variant: str, rules: str) -> str:
    """The cell's wild rule: ``deal`` (PR7), ``match`` (CZ7: a match's last deal only) or ``off``."""
    d = rules_dict(rules)
    return str(d.get("wild_rule", OPTIONS["wild_rule"][2].get(variant, "off")))


def rule_acts(variant: str, rules: str, unit: str) -> bool:
    """Whether the "caught with a wild loses" rule can decide a game of this unit: PR7 acts on every deal,
    CZ7 only on a match's last deal, so a czech single deal is never lost by it (svinya has no such rule)."""
    w = wild_rule_of(variant, rules)
    return w == "deal" or (w == "match" and unit == "match")


def jack_question(res: Results, by_strategy: bool = True) -> pd.DataFrame:
    """The Jack question asked directly, per variant, players, unit, rules (and strategy).

    Among decided games (a capped deal has no loser, G10; a match is judged on its last deal):
    the дурак rate of a seat *dealt* no wild, one wild, or two or more (``dealt{k}_rate, _lo, _hi,
    _n``; NaN where the simulator did not record the dealt hands: ``recorded`` False), and of a seat
    *holding* a wild at the end against one that does not (``held_*``, ``free_*``).  Seats of a
    strategy (or, ``by_strategy=False``, all seats) are pooled over positions and over the group's
    cells; Wilson intervals count seats as independent, which is conservative for дурак rates (seats
    of one game exclude each other).  ``gap`` = held − free: per strategy its interval accounts for
    the seats of one game (same-game sums ``hv_*``, :mod:`analyzer.stats.sums`), with the z-test
    ``p``, Holm over the rows and the one verdict rule; pooled over all strategies it carries no
    interval.  ``rule_acts``: whether the wild rule can decide a game here (czech single deals: no).
    Results written before these sums were stored give an empty table.
    """
    cols = [*GROUP_COLUMNS, "strategy", "wild_rule", "rule_acts", "recorded", "n",
            *(f"dealt{k}_{m}" for k in DEALT_CLASSES for m in ("rate", "lo", "hi", "n")),
            "held_rate", "held_lo", "held_hi", "held_n", "free_rate", "free_lo", "free_hi", "free_n",
            "gap", "gap_lo", "gap_hi", "p", "p_holm", "distinguishable"]
    if not set(JACK_COLUMNS) <= set(res.positions.columns):
        return pd.DataFrame(columns=cols)
    pos = res.positions.merge(res.cells[["cell", *GROUP_COLUMNS]], on="cell")
    t = res.totals[["cell", "capped"]]
    pos = pos.merge(t, on="cell", how="left")
    pos["decided"] = np.where(pos["unit"] == "match", pos["n"], pos["n"] - pos["capped"].fillna(0.0))
    have_hv = set(HV_COLUMNS) <= set(pos.columns)
    sums = ["decided", "losses", *JACK_COLUMNS, *(HV_COLUMNS if have_hv else ())]
    pos[sums] = pos[sums].astype(np.float64)
    keys = GROUP_COLUMNS + (["strategy"] if by_strategy else [])
    g = pos.groupby(keys, dropna=False, sort=True)[sums].sum().reset_index()
    if not by_strategy:
        g["strategy"] = "all"
    out = g[keys + (["strategy"] if not by_strategy else [])].copy()
    out["wild_rule"] = [wild_rule_of(v, r) for v, r in zip(g["variant"], g["rules"])]
    out["rule_acts"] = [rule_acts(v, r, u) for v, r, u in zip(g["variant"], g["rules"], g["unit"])]
    known = sum(g[f"dealt{k}_n"] for k in DEALT_CLASSES)
    out["recorded"] = known > 0
    out["n"] = g["decided"]
    for k in DEALT_CLASSES:
        r = stats.wilson(g[f"dealt{k}_losses"], g[f"dealt{k}_n"])
        out[f"dealt{k}_rate"], out[f"dealt{k}_lo"], out[f"dealt{k}_hi"] = r.rate, r.lo, r.hi
        out[f"dealt{k}_n"] = g[f"dealt{k}_n"]
    free_n = g["decided"] - g["held_n"]
    free_losses = g["losses"] - g["held_losses"]
    for tag, k, m in (("held", g["held_losses"], g["held_n"]), ("free", free_losses, free_n)):
        r = stats.wilson(k, m)
        out[f"{tag}_rate"], out[f"{tag}_lo"], out[f"{tag}_hi"], out[f"{tag}_n"] = r.rate, r.lo, r.hi, m
    out["gap"] = out["held_rate"] - out["free_rate"]
    if by_strategy and have_hv:
        rh, rf = out["held_rate"].fillna(0.0), out["free_rate"].fillna(0.0)
        nh, nf = g["held_n"], free_n
        h = {c[3:]: g[c] for c in HV_COLUMNS}
        # Σ over games of z², z = (A − rh B)/nh − (C − rf E)/nf (the ratio estimator linearised, games as clusters)
        s_h = h["aa"] - 2 * rh * h["ab"] + rh ** 2 * h["bb"]
        s_f = h["cc"] - 2 * rf * h["ce"] + rf ** 2 * h["ee"]
        s_hf = h["ac"] - rf * h["ae"] - rh * h["bc"] + rh * rf * h["be"]
        with np.errstate(divide="ignore", invalid="ignore"):
            var = s_h / nh ** 2 + s_f / nf ** 2 - 2 * s_hf / (nh * nf)
            se = np.sqrt(np.clip(var, 0.0, None)).where((nh > 0) & (nf > 0))
        out["gap_lo"], out["gap_hi"] = out["gap"] - stats.Z95 * se, out["gap"] + stats.Z95 * se
        out["p"] = stats.z_test_p(out["gap"].to_numpy(), se.to_numpy())
        out["p_holm"] = stats.holm(out["p"].to_numpy())
        out["distinguishable"] = stats.agreed_distinguishable(out["gap_lo"], out["gap_hi"], out["p_holm"])
    else:
        out["gap_lo"] = out["gap_hi"] = out["p"] = out["p_holm"] = np.nan
        out["distinguishable"] = False
    return out[cols].reset_index(drop=True)


def jack_rule_effect(res: Results) -> pd.DataFrame:
    """The wild rule on against off, for the strategies holding wilds most and least (:func:`keeper_vs_dumper`).

    One row per group whose rules differ from a ``wild_rule = off`` group only in the wild rule
    (same variant, players, unit and other options): the keeper-minus-dumper дурак gap with the rule
    (read as the wild's only where the pair is ``isolating``, :func:`keeper_vs_dumper`)
    (``gap_on``, paired interval) and without (``gap_off``), its change (on − off; the two groups
    play different deals, so the variances add), and the rule's own cost to the keeper: its дурак
    rate with the rule on minus off (``cost``, independent samples).  Where the rule cannot act
    (``rule_acts`` False: CZ7 on single deals) the row says so and carries no numbers.  Holm over the
    rows that act, for the change and for the cost, with the one verdict rule.
    """
    cols = ["variant", "players", "unit", "rules", "rules_off", "wild_rule", "rule_acts", "keeper", "dumper", "isolating",
            "gap_on", "gap_on_lo", "gap_on_hi", "gap_off", "gap_off_lo", "gap_off_hi",
            "change", "change_lo", "change_hi", "change_p_holm", "change_distinguishable",
            "keeper_on", "keeper_off", "n_on", "n_off", "cost", "cost_lo", "cost_hi", "cost_p_holm",
            "cost_distinguishable"]
    kvd = keeper_vs_dumper(res)
    if kvd.empty:
        return pd.DataFrame(columns=cols)

    def rest(rules: str) -> str:
        d = {k: v for k, v in rules_dict(rules).items() if k != "wild_rule"}
        return json.dumps(d, sort_keys=True, default=str)

    kvd = kvd.assign(_rest=[rest(r) for r in kvd["rules"]],
                     _rule=[wild_rule_of(v, r) for v, r in zip(kvd["variant"], kvd["rules"])])
    off = {(r["variant"], int(r["players"]), r["unit"], r["_rest"]): r for _, r in kvd[kvd["_rule"] == "off"].iterrows()}
    rows = []
    for _, on in kvd[kvd["_rule"] != "off"].iterrows():
        base = off.get((on["variant"], int(on["players"]), on["unit"], on["_rest"]))
        if base is None:
            continue
        acts = rule_acts(on["variant"], on["rules"], on["unit"])
        row: dict[str, Any] = {"variant": on["variant"], "players": int(on["players"]), "unit": on["unit"],
                               "rules": on["rules"], "rules_off": base["rules"], "wild_rule": on["_rule"],
                               "rule_acts": acts, "keeper": on["keeper"], "dumper": on["dumper"],
                               "isolating": bool(on["isolating"]) and bool(base["isolating"])}
        if acts:
            se_on = (on["loss_diff_hi"] - on["loss_diff"]) / stats.Z95
            se_off = (base["loss_diff_hi"] - base["loss_diff"]) / stats.Z95
            ch, se = on["loss_diff"] - base["loss_diff"], float(np.hypot(se_on, se_off))
            cost = stats.diff_proportions(on["keeper_loss_rate"], on["keeper_n"],
                                          base["keeper_loss_rate"], base["keeper_n"])
            row.update(gap_on=on["loss_diff"], gap_on_lo=on["loss_diff_lo"], gap_on_hi=on["loss_diff_hi"],
                       gap_off=base["loss_diff"], gap_off_lo=base["loss_diff_lo"], gap_off_hi=base["loss_diff_hi"],
                       change=ch, change_lo=ch - stats.Z95 * se, change_hi=ch + stats.Z95 * se,
                       _change_p=float(stats.z_test_p(ch, se)),
                       keeper_on=on["keeper_loss_rate"], keeper_off=base["keeper_loss_rate"],
                       n_on=on["keeper_n"], n_off=base["keeper_n"],
                       cost=float(cost.est), cost_lo=float(cost.lo), cost_hi=float(cost.hi),
                       _cost_p=float(stats.z_test_p(cost.est, cost.se)))
        rows.append(row)
    out = pd.DataFrame(rows, columns=[*cols, "_change_p", "_cost_p"])
    for m in ("change", "cost"):
        _holm_rows(out, out["rule_acts"].astype(bool).to_numpy(), m, f"{m}_lo", f"{m}_hi")
    return out[cols].reset_index(drop=True)


def _holm_rows(out: pd.DataFrame, rows: np.ndarray, m: str, lo: str, hi: str) -> None:
    """``{m}_p_holm`` (Holm over ``rows`` of the raw ``_{m}_p``) and ``{m}_distinguishable`` (the one verdict
    rule on ``lo``/``hi``) in place; other rows get NaN and False."""
    out[f"{m}_p_holm"] = np.nan
    out[f"{m}_distinguishable"] = False
    if rows.any():
        ph = stats.holm(out.loc[rows, f"_{m}_p"].to_numpy(dtype=float))
        out.loc[rows, f"{m}_p_holm"] = ph
        out.loc[rows, f"{m}_distinguishable"] = stats.agreed_distinguishable(
            out.loc[rows, lo].to_numpy(dtype=float), out.loc[rows, hi].to_numpy(dtype=float), ph)


# ---------------------------------------------------------------- the Jack, isolated

#: Words for the cards-left strata of :data:`analyzer.stats.sums.LEFT_CLASSES` (the last open-ended).
LEFT_NAMES = {k: (f"{k} card{'s' if k > 1 else ''}" if k < LEFT_CLASSES[-1] else f"{k}+ cards") for k in LEFT_CLASSES}


#: Fewer hands than this left holding a wild give no like-with-like gap: a delta-method interval around a
#: handful of holders (4 that all lost: 100%, no spread) would claim a precision it does not have.
MIN_HOLDERS = 30


def held_informative(players: int) -> bool:
    """Whether "held a wild at the end" can tell anything about the wild: not with two players, where only
    one hand is left with cards at the end (the other went out), so it is the дурак of the deal whatever it
    holds, and, in czech and prague, of the match too (the last deal's points end the match on it)."""
    return int(players) > 2


def _moment_matrix(row: pd.Series, prefix: str, dim: int) -> np.ndarray:
    """The symmetric moment matrix from its stored upper triangle (:func:`analyzer.stats.sums.moment_names`)."""
    m = np.zeros((dim, dim))
    m[np.triu_indices(dim)] = row[list(moment_names(prefix, dim))].to_numpy(dtype=np.float64)
    return m + np.triu(m, 1).T


def _held_gap(row: pd.Series) -> tuple[float, float, float, float, float]:
    """(gap, se, held rate, matched free rate, holders) of the held-at-end comparison standardised over cards
    left.

    D = (A − Σ_k B_k r_k) / B, r_k = C_k / E_k: the holders' дурак rate minus the rate hands without a wild
    but with the same number of cards left show, weighted as the holders are spread over the strata.  Its
    variance by the delta method with games as clusters: Σ_games (g·v)² / B² with g = ∂(B·D)/∂(A, B_k, C_k,
    E_k) (the game vectors' moments ``lm_i_j``).  Gap, se and matched rate NaN where fewer than MIN_HOLDERS
    hands held a wild, or a stratum with holders has no hand without a wild to compare with.
    """
    k = len(LEFT_CLASSES)
    m = _moment_matrix(row, "lm", HELD_DIM)
    b = np.array([row[f"held{c}_n"] for c in LEFT_CLASSES], float)
    a = float(sum(row[f"held{c}_losses"] for c in LEFT_CLASSES))
    c_ = np.array([row[f"free{c}_losses"] for c in LEFT_CLASSES], float)
    e = np.array([row[f"free{c}_n"] for c in LEFT_CLASSES], float)
    big_b = b.sum()
    if big_b < MIN_HOLDERS or np.any((b > 0) & (e <= 0)):
        return (np.nan, np.nan, a / big_b if big_b > 0 else np.nan, np.nan, big_b)
    r = np.divide(c_, e, out=np.zeros(k), where=e > 0)
    matched = float((b * r).sum() / big_b)
    d = a / big_b - matched
    g = np.zeros(HELD_DIM)
    g[0] = 1.0
    g[1:1 + k] = -(d + r)
    g[1 + k:1 + 2 * k] = np.divide(-b, e, out=np.zeros(k), where=e > 0)
    g[1 + 2 * k:] = np.divide(b * r, e, out=np.zeros(k), where=e > 0)
    var = float(g @ m @ g) / big_b ** 2
    return d, float(np.sqrt(max(var, 0.0))), a / big_b, matched, big_b


def _dealt_gap(row: pd.Series) -> tuple[float, float, float, float, float, float]:
    """(gap, se, rate with, n with, rate without, n without): seats dealt one or more wilds against seats
    dealt none, games as clusters (moments ``dm_i_j`` of (A, B, C, E))."""
    m = _moment_matrix(row, "dm", 4)
    a, b = float(row["dealt_with_losses"]), float(row["dealt_with_n"])
    c, e = float(row["dealt0_losses"]), float(row["dealt0_n"])
    if b <= 0 or e <= 0:
        return (np.nan, np.nan, a / b if b > 0 else np.nan, b, c / e if e > 0 else np.nan, e)
    rw, r0 = a / b, c / e
    g = np.array([1 / b, -rw / b, -1 / e, r0 / e])
    var = float(g @ m @ g)
    return rw - r0, float(np.sqrt(max(var, 0.0))), rw, b, r0, e


def jack_effects(res: Results, by_cell: bool = False) -> pd.DataFrame:
    """The Jack questions that isolate the wild, one row per variant, players, unit and rules (all seats,
    all cells of the group pooled; ``by_cell``: one row per cell, with its ``cell``, for line-ups that must
    not pool, such as a skill ladder's steps).

    * ``dealt_*``: the дурак rate of a seat dealt one or more wilds against one dealt none, among decided
      games (a match: its last deal).  The shuffle decides who is dealt a wild, so nothing else differs on
      average: the gap is what being dealt a wild does, for the strategies at the table.
    * ``held_*``: a hand left holding a wild at the end against hands left with the *same number of cards*
      and no wild (strata 1 to 7, 8+ cards, weighted as the holders are spread); ``held_informative`` is
      False with two players, where the one hand left with cards has no like to compare with.  This is still an
      observational comparison (who ends holding a wild is not randomised); the rule's cost (on − off,
      :func:`jack_rule_effect`) is the causal one.
    Intervals treat a game's seats together (:mod:`analyzer.stats.sums`); Holm over the rows of each gap
    with the one verdict rule.  Results stored before these sums give an empty table.
    """
    keys = ["cell", *GROUP_COLUMNS] if by_cell else list(GROUP_COLUMNS)
    cols = [*keys, "wild_rule", "rule_acts", "n",
            "dealt_with_rate", "dealt_with_n", "dealt_none_rate", "dealt_none_n",
            "dealt_gap", "dealt_gap_lo", "dealt_gap_hi", "dealt_p_holm", "dealt_distinguishable",
            "held_informative", "held_n", "held_rate", "held_matched_rate",
            "held_gap", "held_gap_lo", "held_gap_hi", "held_p_holm", "held_distinguishable"]
    if not (set(LEFT_COLUMNS) <= set(res.positions.columns) and set(HELD_MOMENTS) <= set(res.totals.columns)):
        return pd.DataFrame(columns=cols)
    pos = res.positions[["cell", "dealt0_n", "dealt0_losses", *LEFT_COLUMNS]].astype(
        {c: np.float64 for c in ("dealt0_n", "dealt0_losses", *LEFT_COLUMNS)})
    with_n = sum(res.positions[f"dealt{k}_n"].astype(np.float64) for k in DEALT_CLASSES if k > 0)
    with_l = sum(res.positions[f"dealt{k}_losses"].astype(np.float64) for k in DEALT_CLASSES if k > 0)
    pos = pd.concat([pos, pd.DataFrame({"dealt_with_n": with_n, "dealt_with_losses": with_l})], axis=1)
    pos = pos.merge(res.cells[["cell", *GROUP_COLUMNS]], on="cell")
    psums = ["dealt_with_n", "dealt_with_losses", "dealt0_n", "dealt0_losses", *LEFT_COLUMNS]
    gp = pos.groupby(keys, dropna=False, sort=True)[psums].sum()
    gp = gp.rename(columns={f"left{c}_{g}_{m}": f"{g}{c}_{m}" for c in LEFT_CLASSES for g in ("held", "free")
                            for m in ("n", "losses")})
    tsums = ["n", "capped", *HELD_MOMENTS, *DEALT_MOMENTS]
    tot = res.totals[["cell", *tsums]].astype({c: np.float64 for c in tsums})
    tot = tot.merge(res.cells[["cell", *GROUP_COLUMNS]], on="cell")
    decided = np.where(tot["unit"] == "match", tot["n"], tot["n"] - tot["capped"])
    tot = pd.concat([tot, pd.Series(decided, index=tot.index, name="decided")], axis=1)
    gt = tot.groupby(keys, dropna=False, sort=True)[["decided", *HELD_MOMENTS, *DEALT_MOMENTS]].sum()
    g = pd.concat([gp, gt], axis=1).copy().reset_index()  # one block: hundreds of moment columns
    rows = []
    for _, r in g.iterrows():
        dg, dse, rw, nw, r0, n0 = _dealt_gap(r)
        hg, hse, hr, hm, holders = _held_gap(r)
        info = held_informative(int(r["players"]))
        if not info:
            hg = hse = hm = np.nan
        rows.append({**{c: r[c] for c in keys},
                     "wild_rule": wild_rule_of(str(r["variant"]), str(r["rules"])),
                     "rule_acts": rule_acts(str(r["variant"]), str(r["rules"]), str(r["unit"])), "n": r["decided"],
                     "dealt_with_rate": rw, "dealt_with_n": nw, "dealt_none_rate": r0, "dealt_none_n": n0,
                     "dealt_gap": dg, "dealt_gap_lo": dg - stats.Z95 * dse, "dealt_gap_hi": dg + stats.Z95 * dse,
                     "_dealt_p": float(stats.z_test_p(dg, dse)) if np.isfinite(dse) and dse > 0 else np.nan,
                     "held_informative": info,
                     "held_n": float(holders), "held_rate": hr,
                     "held_matched_rate": hm, "held_gap": hg, "held_gap_lo": hg - stats.Z95 * hse,
                     "held_gap_hi": hg + stats.Z95 * hse,
                     "_held_p": float(stats.z_test_p(hg, hse)) if np.isfinite(hse) and hse > 0 else np.nan})
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=cols)
    for m in ("dealt", "held"):
        _holm_rows(out, out[f"_{m}_p"].notna().to_numpy(), m, f"{m}_gap_lo", f"{m}_gap_hi")
    return out[cols].reset_index(drop=True)


def jack_held_strata(res: Results) -> pd.DataFrame:
    """Per group and cards-left stratum: the дурак rate of hands left holding a wild and of hands left with
    as many cards and no wild (Wilson, seats counted as independent: for display; the gap's interval is
    :func:`jack_effects`').  Two-player cells are left out (one hand left with cards: no like to compare)."""
    cols = [*GROUP_COLUMNS, "left", "held_rate", "held_lo", "held_hi", "held_n",
            "free_rate", "free_lo", "free_hi", "free_n"]
    if not set(LEFT_COLUMNS) <= set(res.positions.columns):
        return pd.DataFrame(columns=cols)
    pos = res.positions[["cell", *LEFT_COLUMNS]].astype({c: np.float64 for c in LEFT_COLUMNS})
    pos = pos.merge(res.cells[["cell", *GROUP_COLUMNS]], on="cell")
    g = pos.groupby(GROUP_COLUMNS, dropna=False, sort=True)[list(LEFT_COLUMNS)].sum().reset_index()
    rows = []
    for _, r in g.iterrows():
        if not held_informative(int(r["players"])):
            continue
        for c in LEFT_CLASSES:
            row: dict[str, Any] = {**{k: r[k] for k in GROUP_COLUMNS}, "left": LEFT_NAMES[c]}
            for tag in ("held", "free"):
                w = stats.wilson(r[f"left{c}_{tag}_losses"], r[f"left{c}_{tag}_n"])
                row.update({f"{tag}_rate": float(w.rate), f"{tag}_lo": float(w.lo), f"{tag}_hi": float(w.hi),
                            f"{tag}_n": float(r[f"left{c}_{tag}_n"])})
            if row["held_n"] > 0 or row["free_n"] > 0:
                rows.append(row)
    return pd.DataFrame(rows, columns=cols)
