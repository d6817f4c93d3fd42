"""Report of one experiment run: ``DIR/report.md``, a self-contained ``DIR/report.html``
and ``DIR/charts/*.png|svg``.

The report leads with the answers as plain sentences generated from the
tables (first-player advantage, worst seat, the wild-holding penalty, keeper
versus dumper, game length), each with its 95 % interval and sample size and
"not distinguishable" wherever the interval contains the null value; a cell
whose turn-cap share exceeds 0.1 % is flagged at the very top because its
rates are then biased (G10).  Then come the tables, the charts, and how the
run was made, from the manifest, so that it can be reproduced.

``manifest["reports"]`` may restrict the sections (names are matched loosely,
e.g. "first-player", "jack", "length"); an empty or unrecognised list means all.
"""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np
import pandas as pd

from analyzer.report import charts

from analyzer.stats import intervals as stats

from analyzer.stats import tables
from analyzer.stats.tables import Results, rules_text

SECTIONS = ("first_player", "positions", "strategies", "head_to_head", "wild", "house_rules", "length")
SECTION_TITLES = {
    "first_player": "First-player advantage and the worst seat",
    "positions": "Win and loss rates by position",
    "strategies": "Win and loss rates by strategy",
    "head_to_head": "Strategy against strategy",
    "wild": "The wild-holding (Jack-holding) penalty",
    "house_rules": "What each rule option changes",
    "length": "Game length, blocked and capped games",
}
#: Report kinds (analyzer.execution.experiment.REPORT_KINDS, matched loosely) -> sections; None = all.
_ALIASES: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("all", None), ("full", None), ("everything", None),
    ("first", ("first_player",)), ("advantage", ("first_player",)), ("seat", ("first_player",)),
    ("worst", ("first_player",)),
    ("wild", ("wild",)), ("jack", ("wild",)), ("keeper", ("wild",)), ("dumper", ("wild",)),
    ("penalt", ("wild",)),
    ("house", ("house_rules",)), ("rule", ("house_rules",)), ("option", ("house_rules",)),
    ("length", ("length",)), ("turn", ("length",)), ("ends", ("length",)), ("capped", ("length",)),
    ("blocked", ("length",)),
    ("head", ("head_to_head",)), ("h2h", ("head_to_head",)), ("matrix", ("head_to_head",)),
    ("heat", ("head_to_head",)), ("versus", ("head_to_head",)),
    ("strateg", ("strategies", "head_to_head")),
    ("position", ("first_player", "positions")), ("match", ("positions",)), ("win", ("positions",)),
    ("loss", ("positions",)), ("rate", ("positions",)), ("durak", ("positions",)),
)
#: Requested kinds that name an output format rather than a section: ignored (charts are always drawn).
_FORMAT_WORDS = {"md", "markdown", "html", "charts", "chart", "png", "svg", "report", "summary", "tables"}
#: Series per win-rate chart before it is split in several.
MAX_SERIES = 8


class ReportPaths(NamedTuple):
    """What :func:`build_report` wrote."""

    markdown: Path
    html: Path
    charts: list[Path]


def requested_sections(kinds: list[str] | None) -> tuple[list[str], list[str]]:
    """Sections to write for the manifest's ``reports`` list, and the kinds not recognised.

    An empty list, "all", or a list of which nothing is recognised means every section.
    """
    if not kinds:
        return list(SECTIONS), []
    chosen: set[str] = set()
    unknown: list[str] = []
    for kind in kinds:
        k = str(kind).lower().replace("-", "_").replace(" ", "_")
        if k in _FORMAT_WORDS:
            continue
        hit = next((secs for sub, secs in _ALIASES if sub in k), ())
        if hit is None:
            return list(SECTIONS), unknown
        if not hit:
            unknown.append(str(kind))
        chosen.update(hit)
    if not chosen:
        return list(SECTIONS), unknown
    return [s for s in SECTIONS if s in chosen], unknown


# ---------------------------------------------------------------- formatting

def _dec(x: float) -> int:
    """Decimals for a percentage: enough to show a small rate (capped 0.02 %)."""
    v = abs(x) * 100
    return 1 if v == 0 or v >= 1 else (2 if v >= 0.1 else 3)


def pct(x: float, d: int | None = None) -> str:
    """``0.3612 -> '36.1%'``; NaN -> '–'."""
    if x is None or not np.isfinite(x):
        return "–"
    d = _dec(x) if d is None else d
    return f"{100 * x:.{d}f}%"


def pct_ci(x: float, lo: float, hi: float) -> str:
    """``'36.1% [35.9, 36.3]'`` (bounds in percent, same decimals as the rate)."""
    if x is None or not np.isfinite(x):
        return "–"
    d = max(_dec(x), _dec(hi) if np.isfinite(hi) else 1)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return pct(x, d)
    return f"{100 * x:.{d}f}% [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def pp_ci(x: float, lo: float, hi: float) -> str:
    """A difference of rates in percentage points: ``'+2.8 pp [+2.6, +3.0]'``."""
    if not np.isfinite(x):
        return "–"
    d = 1 if abs(x) >= 0.01 or x == 0 else 2
    return f"{100 * x:+.{d}f} pp [{100 * lo:+.{d}f}, {100 * hi:+.{d}f}]"


def num_ci(x: float, lo: float, hi: float, d: int = 1) -> str:
    if not np.isfinite(x):
        return "–"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{x:.{d}f}"
    return f"{x:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]"


def count(x: float) -> str:
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def where(row: Any) -> str:
    """'In czech with 2 players (sevens=True; lineup a, b)' — the cell as a sentence opening."""
    extra = []
    r = rules_text(str(row["rules"]))
    if r != "default rules":
        extra.append(r)
    seatings = row.get("seatings", 1)
    if isinstance(seatings, (int, float, np.integer)) and seatings > 1:
        extra.append(f"{row['strategies'].replace(', ', ' and ')} rotated over {int(seatings)} seatings")
    else:
        lineup = [s for s in str(row.get("lineup", "")).split(",") if s]
        if lineup and len(set(lineup)) > 1:
            extra.append("lineup " + ", ".join(lineup))
    tail = f" ({'; '.join(extra)})" if extra else ""
    return f"In {row['variant']} with {int(row['players'])} players{tail}"


def group_where(row: Any) -> str:
    r = rules_text(str(row["rules"]))
    tail = f" ({r})" if r != "default rules" else ""
    return f"In {row['variant']} with {int(row['players'])} players{tail}"


# ---------------------------------------------------------------- sentences

def capped_warnings(length: pd.DataFrame) -> list[str]:
    """Loud lines for every cell whose capped share of deals exceeds 0.1 % (G10)."""
    out = []
    for _, r in length[length["capped_alarm"]].iterrows():
        out.append(f"**WARNING: {r['label']} ({r['unit']}s, lineup {r['lineup']}): "
                   f"{pct_ci(r['capped_rate'], r['capped_lo'], r['capped_hi'])} of deals hit the turn cap "
                   f"({count(r['capped'])} of {count(r['deals_sum'])} deals), above the 0.1% limit. "
                   f"Capped deals have no winner or loser, so this cell's rates are biased.**")
    return out


def first_player_sentences(fpa: pd.DataFrame) -> list[str]:
    out = []
    for _, r in fpa.iterrows():
        s = f"{where(r)} the first player wins {pct_ci(r['rate'], r['lo'], r['hi'])} of {_plural(r['unit'])}"
        s += f" against a fair {pct(r['fair'])} (n={count(r['n'])})"
        if r["distinguishable"]:
            s += f": {r['ratio']:.2f}× the fair share ({pp_ci(r['diff'], r['diff_lo'], r['diff_hi'])})."
        else:
            s += ": not distinguishable from fair."
        out.append(s)
    return out


def _plural(unit: str) -> str:
    return "matches" if unit == "match" else f"{unit}s"


def worst_sentences(worst: pd.DataFrame) -> list[str]:
    out = []
    for _, r in worst.iterrows():
        s = (f"{where(r)} position {r['worst_position']} is worst off: it is the дурак in "
             f"{pct_ci(r['loss_rate'], r['loss_lo'], r['loss_hi'])} of {_plural(r['unit'])} "
             f"(fair {pct(r['fair'])}, n={count(r['n'])})")
        if r["runner_up"] >= 0:
            if r["distinguishable"]:
                s += f", a gap of {pp_ci(r['gap'], r['gap_lo'], r['gap_hi'])} over position {r['runner_up']}."
            else:
                s += f", not distinguishable from position {r['runner_up']} ({pct(r['runner_up_rate'])})."
        else:
            s += "."
        out.append(s)
    return out


def wild_sentences(ws: pd.DataFrame) -> list[str]:
    out = []
    for _, r in ws.iterrows():
        u = _plural(r["unit"])
        s = (f"{where(r)} the wild rule, not the points, picked the loser in "
             f"{pct_ci(r['by_wild_rate'], r['by_wild_lo'], r['by_wild_hi'])} of {u} "
             f"({pct(r['wild_loss_share_rate'])} of all losses; n={count(r['n'])})")
        if "wild_hand_points" in r and np.isfinite(r.get("wild_hand_points", np.nan)):
            s += (f"; a wild was left in some hand at the end of {pct(r['any_lo'])} of {u}, "
                  f"and such hands averaged {r['wild_hand_points']:.1f} points against "
                  f"{r['other_hand_points']:.1f} for the other hands.")
        elif abs(r["any_hi"] - r["any_lo"]) < 1e-12:
            s += f"; a wild was left in a hand at the end of {pct(r['any_lo'])} of {u}."
        else:
            s += (f"; a wild was left in some hand at the end of between {pct(r['any_lo'])} and "
                  f"{pct(r['any_hi'])} of {u} ({pct(r['held_mean'])} per seat).")
        out.append(s)
    return out


def keeper_sentences(kvd: pd.DataFrame) -> list[str]:
    out = []
    for _, r in kvd.iterrows():
        u = _plural(r["unit"])
        if np.isfinite(r["loss_diff"]):
            s = (f"{group_where(r)} {tables.KEEPER} loses {pct_ci(r['keeper_loss_rate'], r['keeper_loss_lo'], r['keeper_loss_hi'])} "
                 f"of {u} and {tables.DUMPER} {pct_ci(r['dumper_loss_rate'], r['dumper_loss_lo'], r['dumper_loss_hi'])} "
                 f"(n={count(r['keeper_n'])} and {count(r['dumper_n'])} seat-{u})")
            if r["distinguishable"]:
                way = "raises" if r["loss_diff"] > 0 else "lowers"
                s += (f": keeping wilds {way} the дурак rate by "
                      f"{pp_ci(r['loss_diff'], r['loss_diff_lo'], r['loss_diff_hi'])} "
                      f"({r['loss_ratio']:.2f}× the dumper's).")
            else:
                s += f": the difference {pp_ci(r['loss_diff'], r['loss_diff_lo'], r['loss_diff_hi'])} is not distinguishable from 0."
        else:
            present = tables.KEEPER if np.isfinite(r["keeper_n"]) else tables.DUMPER
            tag = "keeper" if present == tables.KEEPER else "dumper"
            s = (f"{group_where(r)} only {present} was played: it loses "
                 f"{pct_ci(r[f'{tag}_loss_rate'], r[f'{tag}_loss_lo'], r[f'{tag}_loss_hi'])} of {u}; "
                 f"no comparison is possible.")
        out.append(s)
    return out


def strategy_sentences(ws: pd.DataFrame) -> list[str]:
    """Which strategy wins: the ranking per variant, players, unit and rules (seats pooled).

    The top two are compared with a two-proportion interval; where it contains 0
    the sentence says they are not distinguishable rather than naming a winner.
    """
    out = []
    wins = ws[ws["outcome"] == "win"]
    for _, g in wins.groupby(tables.GROUP_COLUMNS, dropna=False, sort=True):
        if g["strategy"].nunique() < 2:
            continue
        g = g.sort_values("rate", ascending=False)
        r0 = g.iloc[0]
        u = _plural(str(r0["unit"]))
        ranking = ", ".join(f"{r['strategy']} {pct_ci(r['rate'], r['lo'], r['hi'])}" for _, r in g.iterrows())
        a, b = g.iloc[0], g.iloc[1]
        d = stats.diff_proportions(a["rate"], a["n"], b["rate"], b["n"])
        if bool(stats.distinguishable(d.lo, d.hi)):
            verdict = (f"{a['strategy']} wins most, {pp_ci(float(d.est), float(d.lo), float(d.hi))} "
                       f"ahead of {b['strategy']}")
        else:
            verdict = (f"{a['strategy']} and {b['strategy']} are not distinguishable "
                       f"({pp_ci(float(d.est), float(d.lo), float(d.hi))})")
        out.append(f"{group_where(r0)}: {verdict}. Win rate per seat-{u[:-1]}, seats pooled: {ranking} "
                   f"(fair {pct(r0['fair'])}; n={count(r0['n'])} seat-{u} for {r0['strategy']}).")
    return out


def rule_sentences(eff: pd.DataFrame) -> list[str]:
    """One sentence per option switched alone (context: default rules)."""
    out = []
    for _, r in eff[eff["context"] == "default rules"].iterrows():
        lineup = [x for x in str(r["lineup"]).split(",") if x]
        who = f" (lineup {', '.join(lineup)})" if len(set(lineup)) > 1 else ""
        s = (f"In {r['variant']} with {int(r['players'])} players{who}, switching on {r['switch']} "
             f"moves the first player's win rate per {r['unit']} "
             f"from {pct(r['first_off'])} to {pct(r['first_on'])}, "
             f"{pp_ci(r['first_diff'], r['first_lo'], r['first_hi'])}"
             f"{'' if r['first_distinguishable'] else ' (not distinguishable)'}")
        if np.isfinite(r["turns_diff"]):
            s += (f", and the mean deal from {r['turns_off']:.1f} to {r['turns_on']:.1f} turns "
                  f"({r['turns_diff']:+.1f} [{r['turns_lo']:+.1f}, {r['turns_hi']:+.1f}]"
                  f"{'' if r['turns_distinguishable'] else ', not distinguishable'})")
        s += f" (n={count(r['n_on'])} and {count(r['n_off'])})."
        out.append(s)
    return out


def length_sentences(length: pd.DataFrame) -> list[str]:
    out = []
    for _, r in length.iterrows():
        if r["unit"] == "match":
            s = (f"{where(r)} a match lasts {r['deals_mean']:.1f} deals on average "
                 f"(median {r['deals_median']:.0f}, p90 {r['deals_p90']:.0f}, "
                 f"p99 {'≥' if r['deals_p99_open'] else ''}{r['deals_p99']:.0f}; n={count(r['n'])} matches).")
        else:
            s = (f"{where(r)} a deal lasts {num_ci(r['turns_mean'], r['turns_lo'], r['turns_hi'])} turns "
                 f"(median {r['turns_median']:.0f}, p90 {r['turns_p90']:.0f}, "
                 f"p99 {'≥' if r['turns_p99_open'] else ''}{r['turns_p99']:.0f}); "
                 f"{pct(r['blocked_rate'])} were blocked and {pct(r['capped_rate'])} capped (n={count(r['n'])}).")
        out.append(s)
    return out


# ---------------------------------------------------------------- display tables

def _label_cols(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"cell": df["label"].astype(str), "unit": df["unit"].astype(str),
                         "lineup": df["lineup"].astype(str).str.replace(",", ", ")}, index=df.index)


def _verdict(flag: Any) -> str:
    return "distinguishable" if bool(flag) else "not distinguishable"


def show_positions(wl: pd.DataFrame) -> pd.DataFrame:
    w = wl[wl["outcome"] == "win"].reset_index(drop=True)
    lo = wl[wl["outcome"] == "loss"].reset_index(drop=True)
    d = _label_cols(w).drop(columns="lineup")
    d["position"] = w["position"].astype(int)
    d["strategy"] = w["strategy"]
    d["win rate [95% CI]"] = [pct_ci(a, b, c) for a, b, c in zip(w["rate"], w["lo"], w["hi"])]
    d["дурак (loss) rate [95% CI]"] = [pct_ci(a, b, c) for a, b, c in zip(lo["rate"], lo["lo"], lo["hi"])]
    d["fair"] = [pct(x) for x in w["fair"]]
    d["n"] = [count(x) for x in w["n"]]
    return d


def show_strategies(ws: pd.DataFrame) -> pd.DataFrame:
    keys = ["variant", "players", "unit", "rules", "strategy"]
    w = ws[ws["outcome"] == "win"].set_index(keys)
    lo = ws[ws["outcome"] == "loss"].set_index(keys).reindex(w.index)
    d = w.reset_index()[keys].copy()
    d["rules"] = d["rules"].map(rules_text)
    d["seats"] = w["seats"].to_numpy()
    d["cells"] = w["cells"].to_numpy()
    d["win rate [95% CI]"] = [pct_ci(a, b, c) for a, b, c in zip(w["rate"], w["lo"], w["hi"])]
    d["дурак rate [95% CI]"] = [pct_ci(a, b, c) for a, b, c in zip(lo["rate"], lo["lo"], lo["hi"])]
    d["fair"] = [pct(x) for x in w["fair"]]
    d["n (seat-games)"] = [count(x) for x in w["n"]]
    return d


def show_first_player(fpa: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(fpa)
    d["first player wins [95% CI]"] = [pct_ci(a, b, c) for a, b, c in zip(fpa["rate"], fpa["lo"], fpa["hi"])]
    d["fair"] = [pct(x) for x in fpa["fair"]]
    d["difference"] = [pp_ci(a, b, c) for a, b, c in zip(fpa["diff"], fpa["diff_lo"], fpa["diff_hi"])]
    d["ratio"] = [num_ci(a, b, c, 3) for a, b, c in zip(fpa["ratio"], fpa["ratio_lo"], fpa["ratio_hi"])]
    d["p (Holm)"] = [f"{p:.2g}" if np.isfinite(p) else "–" for p in fpa["p_holm"]]
    d["verdict"] = [_verdict(x) for x in fpa["distinguishable"]]
    d["n"] = [count(x) for x in fpa["n"]]
    return d


def show_worst(worst: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(worst)
    d["worst position"] = worst["worst_position"].astype(int)
    d["its strategy"] = worst["worst_strategy"]
    d["дурак rate [95% CI]"] = [pct_ci(a, b, c) for a, b, c in
                                zip(worst["loss_rate"], worst["loss_lo"], worst["loss_hi"])]
    d["fair"] = [pct(x) for x in worst["fair"]]
    d["runner-up"] = worst["runner_up"].astype(int)
    d["gap to runner-up"] = [pp_ci(a, b, c) for a, b, c in zip(worst["gap"], worst["gap_lo"], worst["gap_hi"])]
    d["verdict"] = [_verdict(x) for x in worst["distinguishable"]]
    d["n"] = [count(x) for x in worst["n"]]
    return d


def show_wild_summary(ws: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(ws)
    d["held a wild, per seat (mean)"] = [pct(x) for x in ws["held_mean"]]
    d["anyone held a wild (bounds)"] = [f"{pct(a)} – {pct(b)}" for a, b in zip(ws["any_lo"], ws["any_hi"])]
    d["loser picked by the wild rule [95% CI]"] = [pct_ci(a, b, c) for a, b, c in
                                                   zip(ws["by_wild_rate"], ws["by_wild_lo"], ws["by_wild_hi"])]
    d["share of losses decided by the wild"] = [pct_ci(a, b, c) for a, b, c in
                                                zip(ws["wild_loss_share_rate"], ws["wild_loss_share_lo"],
                                                    ws["wild_loss_share_hi"])]
    d["mean points per hand [95% CI]"] = [num_ci(a, b, c) for a, b, c in
                                          zip(ws["points_mean"], ws["points_lo"], ws["points_hi"])]
    d["n"] = [count(x) for x in ws["n"]]
    return d


def show_wild_positions(wp: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(wp).drop(columns="lineup")
    d["position"] = wp["position"].astype(int)
    d["strategy"] = wp["strategy"]
    d["held a wild at the end [95% CI]"] = [pct_ci(a, b, c) for a, b, c in
                                            zip(wp["held_rate"], wp["held_lo"], wp["held_hi"])]
    d["lost by the wild rule [95% CI]"] = [pct_ci(a, b, c) for a, b, c in
                                           zip(wp["by_wild_rate"], wp["by_wild_lo"], wp["by_wild_hi"])]
    d["mean points [95% CI]"] = [num_ci(a, b, c) for a, b, c in zip(wp["points_mean"], wp["points_lo"], wp["points_hi"])]
    d["n"] = [count(x) for x in wp["n"]]
    return d


def show_keeper(kvd: pd.DataFrame) -> pd.DataFrame:
    d = pd.DataFrame({"variant": kvd["variant"], "players": kvd["players"], "unit": kvd["unit"],
                      "rules": kvd["rules"].map(rules_text)})
    for tag, name in (("keeper", tables.KEEPER), ("dumper", tables.DUMPER)):
        d[f"{name} дурак rate"] = [pct_ci(a, b, c) for a, b, c in
                                   zip(kvd[f"{tag}_loss_rate"], kvd[f"{tag}_loss_lo"], kvd[f"{tag}_loss_hi"])]
        d[f"{name} lost by wild"] = [pct(x) for x in kvd[f"{tag}_by_wild_rate"]]
        d[f"{name} n"] = [count(x) for x in kvd[f"{tag}_n"]]
    d["loss difference (keeper − dumper)"] = [pp_ci(a, b, c) for a, b, c in
                                              zip(kvd["loss_diff"], kvd["loss_diff_lo"], kvd["loss_diff_hi"])]
    d["loss ratio"] = [num_ci(a, b, c, 3) for a, b, c in
                       zip(kvd["loss_ratio"], kvd["loss_ratio_lo"], kvd["loss_ratio_hi"])]
    d["points difference"] = [num_ci(a, b, c, 2) for a, b, c in
                              zip(kvd["points_diff"], kvd["points_diff_lo"], kvd["points_diff_hi"])]
    d["verdict"] = [_verdict(x) if np.isfinite(v) else "–" for x, v in zip(kvd["distinguishable"], kvd["loss_diff"])]
    return d


def show_length(length: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(length)
    match = length["unit"] == "match"
    d["n"] = [count(x) for x in length["n"]]
    d["mean turns per deal [95% CI]"] = [num_ci(a, b, c) for a, b, c in
                                         zip(length["turns_mean"], length["turns_lo"], length["turns_hi"])]

    def q(kind: str) -> list[str]:
        return ["–" if not np.isfinite(m) else
                f"{m:.0f} / {p:.0f} / {'≥' if o else ''}{t:.0f}"
                for m, p, t, o in zip(length[f"{kind}_median"], length[f"{kind}_p90"],
                                      length[f"{kind}_p99"], length[f"{kind}_p99_open"])]
    d["turns median / p90 / p99"] = q("turns")
    d["deals per match (mean)"] = ["–" if not m else f"{x:.2f}" for x, m in zip(length["deals_mean"], match)]
    d["deals median / p90 / p99"] = q("deals")
    d["blocked [95% CI]"] = [("–" if m else f"{count(k)} = {pct_ci(a, b, c)}") for k, a, b, c, m in
                             zip(length["blocked"], length["blocked_rate"], length["blocked_lo"],
                                 length["blocked_hi"], match)]
    d["capped deals [95% CI]"] = [f"{count(k)} = {pct_ci(a, b, c)}" + (" ⚠" if al else "") for k, a, b, c, al in
                                  zip(length["capped"], length["capped_rate"], length["capped_lo"],
                                      length["capped_hi"], length["capped_alarm"])]
    d["pile turn-overs per deal"] = [f"{x:.2f}" if np.isfinite(x) else "–" for x in length["turnovers_mean"]]
    return d


def show_rule_effects(eff: pd.DataFrame) -> pd.DataFrame:
    d = pd.DataFrame({"variant": eff["variant"], "players": eff["players"], "unit": eff["unit"],
                      "lineup": eff["lineup"].str.replace(",", ", "), "switched on": eff["switch"],
                      "other options": eff["context"]})
    d["first player wins: off → on"] = [f"{pct(a)} → {pct(b)}" for a, b in zip(eff["first_off"], eff["first_on"])]
    d["change"] = [pp_ci(a, b, c) for a, b, c in zip(eff["first_diff"], eff["first_lo"], eff["first_hi"])]
    d["mean turns change"] = [num_ci(a, b, c) for a, b, c in zip(eff["turns_diff"], eff["turns_lo"], eff["turns_hi"])]
    d["blocked change"] = [pp_ci(a, b, c) for a, b, c in zip(eff["blocked_diff"], eff["blocked_lo"], eff["blocked_hi"])]
    d["capped change"] = [pp_ci(a, b, c) for a, b, c in zip(eff["capped_diff"], eff["capped_lo"], eff["capped_hi"])]
    d["loser by wild change"] = [pp_ci(a, b, c) for a, b, c in
                                 zip(eff["by_wild_diff"], eff["by_wild_lo"], eff["by_wild_hi"])]
    d["n on / off"] = [f"{count(a)} / {count(b)}" for a, b in zip(eff["n_on"], eff["n_off"])]
    return d


def show_h2h(h: pd.DataFrame) -> pd.DataFrame:
    d = pd.DataFrame({"variant": h["variant"], "players": h["players"], "unit": h["unit"],
                      "rules": h["rules"].map(rules_text), "strategy": h["strategy"], "opponent": h["opponent"]})
    d["win rate per seat [95% CI]"] = [pct_ci(a, b, c) for a, b, c in zip(h["rate"], h["lo"], h["hi"])]
    d["fair"] = [pct(x) for x in h["fair"]]
    d["difference"] = [pp_ci(a, b, c) for a, b, c in zip(h["diff"], h["lo_diff"], h["hi_diff"])]
    d["verdict"] = [_verdict(x) for x in h["distinguishable"]]
    d["n (seat-games)"] = [count(x) for x in h["n"]]
    return d


# ---------------------------------------------------------------- document model

@dataclass
class Block:
    """One piece of the report, rendered to both Markdown and HTML."""

    kind: str  # "h1" | "h2" | "h3" | "p" | "warn" | "list" | "table" | "chart" | "code"
    content: Any
    caption: str = ""


def _md_cell(x: Any) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def md_table(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no tabulate dependency)."""
    if df.empty:
        return "_(no rows)_"
    head = "| " + " | ".join(_md_cell(c) for c in df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    rows = ["| " + " | ".join(_md_cell(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, sep, *rows])


def render_md(blocks: list[Block], base: Path) -> str:
    out: list[str] = []
    for b in blocks:
        if b.kind in ("h1", "h2", "h3"):
            out.append("#" * int(b.kind[1]) + " " + b.content)
        elif b.kind in ("p", "warn"):
            out.append(b.content)
        elif b.kind == "list":
            out.append("\n".join(f"- {x}" for x in b.content))
        elif b.kind == "table":
            out.append((f"_{b.caption}_\n\n" if b.caption else "") + md_table(b.content))
        elif b.kind == "chart":
            png = Path(b.content[0]).relative_to(base).as_posix()
            out.append(f"![{b.caption}]({png})")
        elif b.kind == "code":
            out.append(f"```\n{b.content}\n```")
    return "\n\n".join(out) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#111;line-height:1.45}
table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0 1.5em}
th,td{border:1px solid #999;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#eee} .warn{border:3px solid #000;background:#ffe9e9;padding:0.6em;font-weight:bold}
figure{margin:1em 0} figcaption{font-style:italic;font-size:0.9em} img{max-width:100%}
pre{background:#f4f4f4;padding:0.8em;overflow-x:auto} .caption{font-style:italic}
"""


def _inline(text: str) -> str:
    """Escape, then turn the Markdown **bold** we emit into <strong>."""
    t = html.escape(text)
    parts = t.split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


def render_html(blocks: list[Block], title: str) -> str:
    out = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
           f"<style>{_CSS}</style></head><body>"]
    for b in blocks:
        if b.kind in ("h1", "h2", "h3"):
            out.append(f"<{b.kind}>{html.escape(b.content)}</{b.kind}>")
        elif b.kind == "p":
            out.append(f"<p>{_inline(b.content)}</p>")
        elif b.kind == "warn":
            out.append(f"<p class='warn'>{_inline(b.content)}</p>")
        elif b.kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in b.content) + "</ul>")
        elif b.kind == "table":
            cap = f"<p class='caption'>{html.escape(b.caption)}</p>" if b.caption else ""
            out.append(cap + (b.content.to_html(index=False, escape=True, border=0) if not b.content.empty
                              else "<p><em>(no rows)</em></p>"))
        elif b.kind == "chart":
            data = base64.b64encode(Path(b.content[0]).read_bytes()).decode("ascii")
            out.append(f"<figure><img alt='{html.escape(b.caption)}' src='data:image/png;base64,{data}'>"
                       f"<figcaption>{html.escape(b.caption)}</figcaption></figure>")
        elif b.kind == "code":
            out.append(f"<pre>{html.escape(b.content)}</pre>")
    out.append("</body></html>")
    return "\n".join(out)


# ---------------------------------------------------------------- charts

def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def _chart(outdir: Path, name: str, draw: Callable[[], Any], caption: str,
           made: list[Path], blocks: list[Block]) -> None:
    ax = draw()
    paths = charts.save_figure(ax.figure, outdir / name)
    made.extend(paths)
    blocks.append(Block("chart", paths, caption))


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in s)


# ---------------------------------------------------------------- the report

def _run_blocks(res: Results) -> list[Block]:
    """How the run was made: manifest facts, cells, and the command to reproduce it."""
    m = res.manifest
    b: list[Block] = [Block("h2", "How this was run")]
    t = res.totals.merge(res.cells[["cell", "unit"]], on="cell")
    deals = float(t["deals_sum"].sum())
    matches = float(t.loc[t["unit"] == "match", "n"].sum())
    match_deals = float(t.loc[t["unit"] == "match", "deals_sum"].sum())
    facts = [
        f"Experiment: {m.get('name', '–')} — {m.get('description', '') or 'no description'}",
        f"Seed: {m.get('seed', '–')}; analyzer version: {m.get('version', '–')}",
        f"Started {m.get('started', '–')}, finished {m.get('finished', '–')}; "
        f"{count(float(m['deals_per_second'])) if isinstance(m.get('deals_per_second'), (int, float)) else '–'} deals per second",
        f"{len(res.cells)} cells; {count(deals)} deals simulated"
        + (f", {count(match_deals)} of them in {count(matches)} matches" if matches else ""),
        "Variants: " + ", ".join(sorted(res.cells["variant"].unique())) + "; player counts: "
        + ", ".join(str(p) for p in sorted(res.cells["players"].unique())),
        "Strategies: " + ", ".join(sorted({s for ln in res.cells["lineup"] for s in ln.split(",") if s})),
        "Intervals are 95% (Wilson for rates, normal for means and differences); "
        "'not distinguishable' means the interval contains the null value.",
    ]
    b.append(Block("list", facts))
    b.append(Block("p", "To reproduce:"))
    b.append(Block("code", str(m.get("command", "(the manifest records no command)"))))
    cells = pd.DataFrame({"cell": res.cells["cell"], "label": res.cells["label"], "unit": res.cells["unit"],
                          "lineup (position 0 first)": res.cells["lineup"].str.replace(",", ", "),
                          "rules changed from the variant default": res.cells["rules"].map(rules_text)})
    n = res.totals.set_index("cell")["n"]
    cells["n"] = [count(float(n.get(c, np.nan))) for c in res.cells["cell"]]
    b.append(Block("table", cells, "Cells of the experiment"))
    if m.get("experiment"):
        b.append(Block("p", "The experiment as parsed:"))
        b.append(Block("code", json.dumps(m["experiment"], indent=2, sort_keys=True, default=str)))
    return b


def build_report(path: str | Path) -> ReportPaths:
    """Write ``DIR/report.md``, ``DIR/report.html`` and ``DIR/charts/*`` for a results folder."""
    d = Path(path)
    res = tables.load_results(d)
    outdir = d / "charts"
    outdir.mkdir(parents=True, exist_ok=True)
    sections, unknown = requested_sections(res.manifest.get("reports"))
    made: list[Path] = []

    fpa = tables.first_player_advantage(res)
    worst = tables.worst_positions(res)
    fpa_pooled = tables.first_player_advantage(res, pooled=True)
    worst_pooled = tables.worst_positions(res, pooled=True)
    rotated = bool((fpa_pooled["seatings"] > 1).any())
    wsum = tables.wild_summary(res)
    kvd = tables.keeper_vs_dumper(res)
    length = tables.game_length(res)
    h2h = tables.head_to_head(res)

    name = str(res.manifest.get("name") or d.name)
    blocks: list[Block] = [Block("h1", f"Durak experiment report: {name}")]
    for w in capped_warnings(length):
        blocks.append(Block("warn", w))
    if unknown:
        blocks.append(Block("p", "Requested report kinds not recognised (all sections shown instead where none "
                                 "was recognised): " + ", ".join(unknown)))

    # --- the answers first
    blocks.append(Block("h2", "Answers"))
    if "first_player" in sections:
        blocks.append(Block("h3", "Does the first player have an advantage?"))
        if rotated:
            blocks.append(Block("p", "Where the experiment seats several lineups, they are pooled here, so that "
                                     "each strategy sits each position and the seat alone is measured; the "
                                     "per-lineup figures are in the tables below."))
        blocks.append(Block("list", first_player_sentences(fpa_pooled)))
        blocks.append(Block("h3", "Which seat is worst off?"))
        blocks.append(Block("list", worst_sentences(worst_pooled)))
    if "strategies" in sections:
        said = strategy_sentences(tables.win_loss_by_strategy(res, pool_cells=True))
        if said:
            blocks.append(Block("h3", "Which strategy wins?"))
            blocks.append(Block("list", said))
    if "wild" in sections:
        blocks.append(Block("h3", "How much does holding a wild cost?"))
        blocks.append(Block("list", wild_sentences(tables.wild_summary(res, pooled=True))))
        if not kvd.empty:
            blocks.append(Block("list", keeper_sentences(kvd)))
        else:
            blocks.append(Block("p", f"No cell seats {tables.KEEPER} or {tables.DUMPER}, so holding versus "
                                     "dumping wilds is not compared."))
    effects = tables.rule_effects(res) if "house_rules" in sections else pd.DataFrame()
    if "house_rules" in sections and not effects.empty and (effects["context"] == "default rules").any():
        blocks.append(Block("h3", "What does each rule option change?"))
        blocks.append(Block("list", rule_sentences(effects)))
    if "length" in sections:
        blocks.append(Block("h3", "How long are the games?"))
        blocks.append(Block("list", length_sentences(length)))

    # --- tables and charts
    wl = tables.win_loss_by_position(res)
    for sec in sections:
        blocks.append(Block("h2", SECTION_TITLES[sec]))
        if sec == "first_player":
            if rotated:
                blocks.append(Block("table", show_first_player(fpa_pooled),
                                    "Pooled over the lineups (seatings) of each variant, player count, unit "
                                    "and rule setting."))
                blocks.append(Block("table", show_worst(worst_pooled), "Worst seat, pooled over the lineups."))
            blocks.append(Block("table", show_first_player(fpa),
                                "Position 0 against the fair share 1/players; difference and ratio use the "
                                "Wilson bounds; the verdict is per cell (does the 95% interval contain the fair share?); "
                                "the p-value is the score test, Holm-adjusted for the number of cells compared."))
            blocks.append(Block("table", show_worst(worst),
                                "The position with the highest дурак rate; the gap to the runner-up accounts "
                                "for both coming from the same games."))
        elif sec == "positions":
            blocks.append(Block("table", show_positions(wl),
                                "Capped deals have neither winner nor loser, so rates need not sum to 100%. "
                                "Match wins and losses shared by ties count fractionally."))
            wl_chart = tables.win_loss_by_position(res, pooled=True) if rotated else wl
            for (variant, unit), g in wl_chart.groupby(["variant", "unit"], sort=True):
                cells = list(dict.fromkeys(g["cell"]))
                for i, chunk in enumerate(_chunks(cells, MAX_SERIES)):
                    sub = g[g["cell"].isin(chunk)]
                    _chart(outdir, _safe(f"win_by_position_{variant}_{unit}_{i}"),
                           lambda sub=sub, variant=variant, unit=unit:
                           charts.plot_win_by_position(sub, variant=variant, unit=unit),
                           f"Win rate by position, {variant}, per {unit}"
                           + (" (lineups pooled)" if rotated else ""), made, blocks)
        elif sec == "strategies":
            blocks.append(Block("table", show_strategies(tables.win_loss_by_strategy(res, pool_cells=True)),
                                "Seats of a strategy pooled over positions and over cells with the same "
                                "variant, players, unit and rules; n counts seat-games."))
        elif sec == "wild":
            blocks.append(Block("p", "What is measurable from the stored sums: per position, how often a hand "
                                     "ends holding a wild and how often the wild rule (CZ7/PR7) rather than the "
                                     "points made it the дурак; per cell, the exact share of games whose loser "
                                     "the wild rule picked. Not measurable: the share of games in which anyone "
                                     "holds a wild (only bounds: the largest per-seat rate and the sum), and "
                                     "the points of wild-holding hands apart from the others (only the mean "
                                     "points of all hands). svinya's lone-Queen 20 (SV6) is inside the points."))
            blocks.append(Block("table", show_wild_summary(wsum), "Per cell"))
            blocks.append(Block("table", show_wild_positions(tables.wild_by_position(res)), "Per position"))
            if not kvd.empty:
                blocks.append(Block("table", show_keeper(kvd),
                                    f"{tables.KEEPER} against {tables.DUMPER}, one row per rule setting; "
                                    "differences are keeper − dumper with independent-sample intervals."))
            wbs = tables.wild_by_strategy(res)
            for unit in sorted(wbs["unit"].unique()):
                _chart(outdir, _safe(f"wild_penalty_{unit}"),
                       lambda unit=unit: charts.plot_wild_penalty(wbs, unit=unit),
                       f"Wild-holding penalty per variant and strategy, per {unit}", made, blocks)
        elif sec == "house_rules":
            if effects.empty:
                blocks.append(Block("p", "No two cells differ in exactly one rule option, so no option's "
                                         "effect is measured."))
                continue
            blocks.append(Block("table", show_rule_effects(effects),
                                "Each row compares two cells that differ only in the option switched on; "
                                "changes are on − off with independent-sample 95% intervals."))
        elif sec == "length":
            blocks.append(Block("table", show_length(length),
                                "Turns count every go, lost goes included (G10a); the last histogram bin is "
                                "open-ended (≥). Match cells count capped deals inside the matches."))
            for kind, what in (("turns", "deal length"), ("points", "penalty points per hand (all hands, the winner's 0 included)"),
                              ("deals", "match length")):
                ht = tables.hist_table(res, kind, pooled=rotated)
                ht = ht[ht.groupby("cell")["count"].transform("sum") > 0]
                for variant, g in ht.groupby("variant", sort=True):
                    for i, chunk in enumerate(_chunks(list(dict.fromkeys(g["cell"])), MAX_SERIES)):
                        sub = g[g["cell"].isin(chunk)]
                        _chart(outdir, _safe(f"hist_{kind}_{variant}_{i}"),
                               lambda sub=sub, kind=kind: charts.plot_hist(sub, kind),
                               f"Distribution of {what}, {variant}", made, blocks)
        elif sec == "head_to_head":
            if h2h.empty:
                blocks.append(Block("p", "No cell seats exactly two strategies, so there is no head-to-head table."))
                continue
            blocks.append(Block("table", show_h2h(h2h),
                                "Cells with exactly two strategies, pooled over seatings: the row strategy's "
                                "win rate per seat against the fair share."))
            for key, g in h2h.groupby(tables.GROUP_COLUMNS, sort=True, dropna=False):
                variant, players, unit, rules = key
                m = tables.head_to_head_matrix(g)
                lo = tables.head_to_head_matrix(g, "lo_diff")
                hi = tables.head_to_head_matrix(g, "hi_diff")
                rt = rules_text(str(rules))
                title = f"{variant} {players}p per {unit}" + ("" if rt == "default rules" else f", {rt}")
                _chart(outdir, _safe(f"head_to_head_{variant}_{players}p_{unit}_{rt}"),
                       lambda m=m, lo=lo, hi=hi, title=title, g=g:
                       charts.plot_heatmap(m, lo=lo, hi=hi, title=title, n=float(g["n"].min())),
                       f"Strategy against strategy, {title}", made, blocks)

    blocks.extend(_run_blocks(res))
    md_path = d / "report.md"
    html_path = d / "report.html"
    md_path.write_text(render_md(blocks, d), encoding="utf-8")
    html_path.write_text(render_html(blocks, f"Durak report: {name}"), encoding="utf-8")
    return ReportPaths(md_path, html_path, made)
