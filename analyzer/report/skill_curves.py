"""The ``skill_curves`` report section: the same questions asked of ever stronger tables.

An experiment with a ``ladder`` (analyzer.execution.experiment) plays one cell
per ladder step with that strategy in every seat.  Per variant, player count
and rules this section follows, step by step:

* the first mover's advantage: the first mover's win rate (prague's dealer, else position 0) minus the fair share
  (:func:`analyzer.stats.tables.first_player_advantage`, Wilson bounds);
* the dealt Jack: the дурак rate of a seat dealt no wild, one, two or more
  (:func:`analyzer.stats.tables.jack_question`), and dealt one or more against
  none with its interval (randomised by the shuffle);
* the held Jack, like with like: a hand left holding a wild at the
  end against hands left with as many cards and none, never with two players,
  where the one hand left with cards is the дурак whatever it holds (both from
  :func:`analyzer.stats.tables.jack_effects`, per cell);
* the Jack rule's cost: the share of deals whose дурак the wild rule, not the
  points, picked (:func:`analyzer.stats.tables.wild_summary`; PR7 — czech's
  CZ7 acts on a match's last deal only, svinya has no such rule).

It consumes those tables and computes no rate of its own.  Whether skill
raises the first mover's advantage is read off the strongest steps
(:func:`strongest_steps`: each search family at its full budget) against the weakest (``random``) and against the
tuned preset: two cells on decks of
their own, so the difference is of independent proportions, with the one
verdict rule.  One chart per question, a panel per variant and player count,
every point with its 95 % interval.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.report.charts import figure
from analyzer.report.format import count, pct, pct_ci, pp_ci
from analyzer.report.parts import Panel, Section
from analyzer.report.render import Block
from analyzer.stats import intervals as stats
from analyzer.stats import tables
from analyzer.stats.tables import GROUP_COLUMNS, Results

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")
MARKERS = ("o", "s", "^", "D", "v")


def step_label(spec: str) -> str:
    """A ladder step's short name: ``weighted?preset=..`` is the tuned preset, pimc by its worlds, ismcts by
    its iterations, others by their spec."""
    name, _, params = spec.partition("?")
    kv = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
    if name == "weighted" and "preset" in kv:
        return "tuned preset"
    if name == "pimc":
        return f"pimc {kv.get('worlds', '1024')}"
    if name == "ismcts":
        return f"ismcts {kv['iterations']}" if "iterations" in kv else "ismcts"
    return spec


def _group_name(row: dict[str, Any]) -> str:
    rules = tables.rules_text(row["rules"])
    extra = "" if rules == "default rules" else f", {rules}"
    return f"{row['variant']} {int(row['players'])}p" + (" matches" if row["unit"] == "match" else "") + extra


def _ladder_step(ladder: list[str], only: dict[str, list[int]], players: int, k: int) -> int:
    """The ladder index of a group's ``k``-th cell at ``players``: the steps played there, in ladder order."""
    present = [i for i, s in enumerate(ladder) if players in only.get(s, [players])]
    return present[k] if k < len(present) else k


def skill_table(res: Results) -> pd.DataFrame:
    """One row per cell: its group (variant, players, unit, rules), ladder ``step`` and ``label``, the first
    player's advantage, the Jack question's rates and the wild rule's share of losers, with intervals."""
    fpa = tables.first_player_advantage(res)
    fpa = fpa.sort_values("cell").reset_index(drop=True)
    exp = res.manifest.get("experiment") or {}
    ladder, only = exp.get("ladder") or [], exp.get("ladder_players") or {}
    # a group's k-th cell plays the k-th ladder step played at its player count (ladder_players leaves some out)
    fpa["step"] = [_ladder_step(ladder, only, int(p), k)
                   for p, k in zip(fpa["players"], fpa.groupby(GROUP_COLUMNS, dropna=False).cumcount())]
    fpa["label"] = [step_label(ladder[s]) if s < len(ladder) else step_label(str(f))
                    for s, f in zip(fpa["step"], fpa["first_strategy"])]
    fpa["group"] = [_group_name(r) for r in fpa.to_dict("records")]
    keep = [*GROUP_COLUMNS, "cell", "step", "label", "group", "first_strategy", "homogeneous", "n", "decks", "rate",
            "se", "lo", "hi", "fair", "diff", "diff_lo", "diff_hi", "capped_worst_lo", "capped_worst_hi",
            "capped_matters", "capped_verdict"]
    out = fpa[keep].rename(columns={"rate": "first_rate", "se": "first_se", "lo": "first_lo", "hi": "first_hi",
                                    "n": "first_n", "decks": "first_decks"})
    jq = tables.jack_question(res, by_strategy=True)
    if not jq.empty:
        jcols = [c for c in jq.columns if c.startswith("dealt") or c in ("rule_acts",)]
        jq = jq[[*GROUP_COLUMNS, "strategy", *jcols]].rename(columns={"strategy": "first_strategy"})
        out = out.merge(jq, on=[*GROUP_COLUMNS, "first_strategy"], how="left")
    else:
        out["rule_acts"] = [tables.rule_acts(v, r, u) for v, r, u in zip(out["variant"], out["rules"], out["unit"])]
    eff = tables.jack_effects(res, by_cell=True)
    ecols = ["dealt_gap", "dealt_gap_lo", "dealt_gap_hi", "held_informative", "held_n", "held_rate",
             "held_matched_rate", "held_gap", "held_gap_lo", "held_gap_hi"]
    if not eff.empty:
        out = out.merge(eff[["cell", *ecols]], on="cell", how="left")
    else:  # results stored before the cards left were: no like-with-like comparison
        for c in ecols:
            out[c] = np.nan
        out["held_informative"] = [tables.held_informative(int(p)) for p in out["players"]]
    ws = tables.wild_summary(res)[["cell", "by_wild_rate", "by_wild_lo", "by_wild_hi"]]
    out = out.merge(ws, on="cell", how="left")
    return out.sort_values(["variant", "players", "unit", "rules", "step"]).reset_index(drop=True)


def _compare(a: pd.Series, b: pd.Series) -> tuple[float, float, float, float]:
    """First mover's rate in cell ``a`` minus cell ``b`` (decks of their own): (diff, lo, hi, p), from each rate's
    own standard error (a proportion's, or over decks where the hands rotate)."""
    d = float(a["first_rate"]) - float(b["first_rate"])
    se = float(np.hypot(float(a["first_se"]), float(b["first_se"])))
    return d, d - stats.Z95 * se, d + stats.Z95 * se, float(stats.z_test_p(d, se))


def strongest_steps(g: pd.DataFrame) -> pd.DataFrame:
    """A group's strongest steps: past the tuned preset, the last (largest) step of each strategy -- in
    experiments/skill_curves.toml pimc at 1,024 worlds, ismcts and expert, each search family at its full budget.
    A ladder without a tuned preset: the last step of each strategy past the weakest; one that ends at the preset:
    its last two steps."""
    g = g.sort_values("step")
    preset = g.index[g["label"] == "tuned preset"]
    start = g.index.get_loc(preset[0]) + 1 if len(preset) else 1
    if start >= len(g):
        return g.iloc[max(1, len(g) - 2):]
    later = g.iloc[start:]
    family = later["first_strategy"].astype(str).str.split("?").str[0]
    return later[~family.duplicated(keep="last")]


def raise_table(st: pd.DataFrame) -> pd.DataFrame:
    """Per group: the first-mover rate of each of the strongest steps (:func:`strongest_steps`) against the
    weakest step's and the tuned preset's (independent proportions: every cell plays decks of its own), Holm
    over every comparison, the one verdict rule."""
    rows = []
    for group, g in st.groupby("group", sort=False):
        g = g.sort_values("step")
        for _, top in strongest_steps(g).iterrows():
            for name, base in (("weakest", g.iloc[0]), ("tuned preset", g[g["label"] == "tuned preset"])):
                if isinstance(base, pd.DataFrame):
                    if base.empty:
                        continue
                    base = base.iloc[0]
                if base["step"] >= top["step"]:
                    continue
                rows.append(_row(group, top, base, name))
    out = pd.DataFrame(rows, columns=["group", "top", "against", "against_kind", "top_diff", "base_diff", "change",
                                      "change_lo", "change_hi", "p"])
    if not out.empty:
        out["p_holm"] = stats.holm(out["p"].to_numpy())
        out["distinguishable"] = stats.agreed_distinguishable(out["change_lo"].to_numpy(),
                                                              out["change_hi"].to_numpy(), out["p_holm"].to_numpy())
    else:
        out["p_holm"], out["distinguishable"] = [], []
    return out


def _row(group: str, top: pd.Series, base: pd.Series, kind: str) -> dict[str, Any]:
    d, lo, hi, p = _compare(top, base)
    return {"group": group, "top": top["label"], "against": base["label"], "against_kind": kind,
            "top_diff": top["diff"], "base_diff": base["diff"], "change": d, "change_lo": lo, "change_hi": hi,
            "p": p}


# ------------------------------------------------------------------ charts: one per question
def _panels(st: pd.DataFrame) -> tuple[Figure, list[Any], list[str]]:
    groups = list(dict.fromkeys(st["group"]))
    cols = min(3, len(groups)) or 1
    rows = -(-len(groups) // cols) or 1
    fig = figure(figsize=(4.6 * cols, 3.6 * rows + 0.6), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    for ax in axes[len(groups):]:
        ax.set_visible(False)
    return fig, axes, groups


def _series(ax: Any, g: pd.DataFrame, y: str, lo: str, hi: str, k: int, label: str, scale: float = 100.0,
            shift: float = 0.0) -> None:
    x = g["step"].to_numpy(dtype=float) + shift
    v, a, b = (g[c].to_numpy(dtype=float) * scale for c in (y, lo, hi))
    err = np.clip(np.nan_to_num(np.vstack([v - a, b - v]), nan=0.0), 0.0, None)
    ax.errorbar(x, v, yerr=err, color=COLOURS[k % len(COLOURS)], marker=MARKERS[k % len(MARKERS)], ms=4,
                capsize=3, lw=1.2, label=label)


def _steps_axis(ax: Any, g: pd.DataFrame) -> None:
    ax.set_xticks(g["step"].to_numpy())
    ax.set_xticklabels(g["label"].tolist(), rotation=40, ha="right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def plot_first_player(st: pd.DataFrame) -> Any:
    """Position 0's win rate minus the fair share (pp) per ladder step, a panel per group."""
    fig, axes, groups = _panels(st)
    for ax, group in zip(axes, groups):
        g = st[st["group"] == group]
        ax.axhline(0.0, color="0.5", lw=0.8)
        _series(ax, g, "diff", "diff_lo", "diff_hi", 0, "first mover − fair")
        _steps_axis(ax, g)
        ax.set_title(group, fontsize=10)
        ax.set_ylabel("pp above the fair share")
    fig.suptitle("Does skill raise the first mover's advantage? (95% intervals)")
    return axes[0]


def plot_jack_dealt(st: pd.DataFrame) -> Any:
    """The дурак rate of a seat dealt no wild, one, two or more, per ladder step."""
    fig, axes, groups = _panels(st)
    for ax, group in zip(axes, groups):
        g = st[st["group"] == group]
        ax.axhline(100.0 * float(g["fair"].iloc[0]), color="0.5", lw=0.8)
        for k, (c, name) in enumerate((("dealt0", "dealt none"), ("dealt1", "dealt one"), ("dealt2", "two or more"))):
            if f"{c}_rate" in g:
                _series(ax, g, f"{c}_rate", f"{c}_lo", f"{c}_hi", k, name, shift=(k - 1) * 0.12)
        _steps_axis(ax, g)
        ax.set_title(group, fontsize=10)
        ax.set_ylabel("дурак rate, %")
    axes[0].legend(fontsize=8)
    fig.suptitle("The dealt Jack: дурак rate by wilds dealt, as skill rises (95% intervals; line: fair share)")
    return axes[0]


def plot_jack_held(st: pd.DataFrame) -> Any:
    """A hand left holding a wild at the end minus hands left with as many cards and none (points), per ladder
    step; two-player groups say why they have none."""
    fig, axes, groups = _panels(st)
    for ax, group in zip(axes, groups):
        g = st[st["group"] == group]
        _steps_axis(ax, g)
        ax.set_title(group, fontsize=10)
        if not bool(g["held_informative"].fillna(False).astype(bool).any()):
            ax.text(0.5, 0.5, "not compared: with two players\nthe one hand left with cards\nis the дурак",
                    ha="center", va="center", transform=ax.transAxes, fontsize=9, color="0.4")
            continue
        ax.axhline(0.0, color="0.5", lw=0.8)
        _series(ax, g, "held_gap", "held_gap_lo", "held_gap_hi", 0, "holding a wild − as many other cards")
        ax.set_ylabel("дурак rate, points")
    fig.suptitle("The held Jack, like with like: holding a wild at the end against as many other cards (95% intervals)")
    return axes[0]


def plot_jack_rule(st: pd.DataFrame) -> Any:
    """The share of deals whose дурак the wild rule picked, per ladder step (groups where it can act)."""
    fig, axes, groups = _panels(st)
    for ax, group in zip(axes, groups):
        g = st[st["group"] == group]
        _steps_axis(ax, g)
        ax.set_title(group, fontsize=10)
        if not bool(g["rule_acts"].fillna(False).astype(bool).any()):
            ax.text(0.5, 0.5, "the wild rule cannot decide\na single deal here", ha="center", va="center",
                    transform=ax.transAxes, fontsize=9, color="0.4")
            continue
        _series(ax, g, "by_wild_rate", "by_wild_lo", "by_wild_hi", 1, "loser picked by the wild rule")
        ax.set_ylabel("% of deals")
    fig.suptitle("The Jack rule's cost: deals whose дурак the rule, not the points, picked (95% intervals)")
    return axes[0]


# ------------------------------------------------------------------ the section
def _verdict(row: pd.Series) -> str:
    if not bool(row["distinguishable"]):
        return "no distinguishable change"
    return "skill raises it" if row["change"] > 0 else "skill lowers it"


def answers(st: pd.DataFrame, rt: pd.DataFrame) -> list[str]:
    """One sentence per group: the first mover's edge from the weakest to the strongest step, and whether
    the strongest step's edge differs from the weakest's and the tuned preset's."""
    out = []
    for group, g in st.groupby("group", sort=False):
        g = g.sort_values("step")
        top = g.iloc[-1]
        steps = "; ".join(f"{r['label']} {pp_ci(r['diff'], r['diff_lo'], r['diff_hi'])}" for _, r in g.iterrows())
        text = (f"In **{group}** the first mover's edge over the fair share runs {steps} "
                f"(n = {count(int(top['first_n']))} decided deals at the top step).")
        for _, r in rt[rt["group"] == group].iterrows():
            text += (f" {r['top']} against {r['against']}: {pp_ci(r['change'], r['change_lo'], r['change_hi'])}"
                     f" ({_verdict(r)}).")
        for _, r in g[g["capped_matters"].fillna(False).astype(bool)].iterrows():  # G10: no winner, left out
            text += (f" At {r['label']} capped deals (left out) could move the first mover's rate to "
                     f"{pct(r['capped_worst_lo'])}-{pct(r['capped_worst_hi'])} (all lost / all won)"
                     + (": the verdict depends on how they are scored." if r["capped_verdict"] else "."))
        out.append(text)
    return out


def jack_answers(st: pd.DataFrame) -> list[str]:
    """One sentence per group: the Jack at the weakest and strongest steps."""
    out = []
    for group, g in st.groupby("group", sort=False):
        g = g.sort_values("step")
        parts = []
        for r in ([g.iloc[0], g.iloc[-1]] if len(g) > 1 else [g.iloc[0]]):
            if np.isfinite(float(r.get("dealt0_rate", np.nan))):
                parts.append(f"{r['label']}: dealt none {pct_ci(r['dealt0_rate'], r['dealt0_lo'], r['dealt0_hi'])}, "
                             f"two or more {pct_ci(r['dealt2_rate'], r['dealt2_lo'], r['dealt2_hi'])} дурак; "
                             + _held_words(r)
                             + (f"; the rule picked the дурак in "
                                f"{pct_ci(r['by_wild_rate'], r['by_wild_lo'], r['by_wild_hi'])} of deals"
                                if bool(r.get("rule_acts", False)) else ""))
        if parts:
            out.append(f"In **{group}**: " + " — ".join(parts) + ".")
    return out


def _held_words(r: pd.Series) -> str:
    """Held at the end, like with like, or why not (two players; no holder; not recorded)."""
    if not bool(r["held_informative"]):
        return "holding one at the end not compared (two players)"
    if np.isfinite(float(r["held_gap"])):
        return (f"left holding one at the end {pct(r['held_rate'])} against {pct(r['held_matched_rate'])} for as "
                f"many other cards ({pp_ci(r['held_gap'], r['held_gap_lo'], r['held_gap_hi'])})")
    if np.isfinite(float(r["held_n"])) and float(r["held_n"]) == 0:
        return "no seat held one at the end"
    if np.isfinite(float(r["held_n"])) and float(r["held_n"]) < tables.MIN_HOLDERS:
        return f"only {count(float(r['held_n']))} seats held one at the end: too few to compare"
    return "holding one at the end not compared (cards left not recorded)"


def _show(st: pd.DataFrame) -> pd.DataFrame:
    d = pd.DataFrame({"group": st["group"], "step": st["label"],
                      "first mover wins": [pct_ci(a, b, c) for a, b, c in zip(st["first_rate"], st["first_lo"],
                                                                               st["first_hi"])],
                      "fair": [f"{100 * f:.1f}%" for f in st["fair"]],
                      "edge": [pp_ci(a, b, c) for a, b, c in zip(st["diff"], st["diff_lo"], st["diff_hi"])]})
    for c, name in (("dealt0", "дурак, dealt none"), ("dealt1", "dealt one"), ("dealt2", "two or more")):
        if f"{c}_rate" in st:
            d[name] = [pct_ci(a, b, e) for a, b, e in zip(st[f"{c}_rate"], st[f"{c}_lo"], st[f"{c}_hi"])]
    d["dealt a wild − none"] = [pp_ci(a, b, e) for a, b, e in zip(st["dealt_gap"], st["dealt_gap_lo"],
                                                                  st["dealt_gap_hi"])]
    d["held a wild − as many other cards"] = [
        pp_ci(a, b, e) if info and np.isfinite(a) else ("not compared (2 players)" if not info else "–")
        for a, b, e, info in zip(st["held_gap"], st["held_gap_lo"], st["held_gap_hi"], st["held_informative"])]
    d["loser picked by the wild rule"] = [pct_ci(a, b, e) if bool(ok) else "rule cannot act"
                                          for a, b, e, ok in zip(st["by_wild_rate"], st["by_wild_lo"],
                                                                 st["by_wild_hi"], st["rule_acts"].fillna(False))]
    if st["capped_matters"].fillna(False).any():  # capped deals (G10) could move the first mover's rate
        d["capped scored as losses / wins"] = [
            (f"{pct(a)} / {pct(b)}" + (" (verdict depends)" if v else "")) if m else ""
            for a, b, m, v in zip(st["capped_worst_lo"], st["capped_worst_hi"], st["capped_matters"].fillna(False),
                                  st["capped_verdict"].fillna(False))]
    d["n (deals)"] = [count(int(x)) for x in st["first_n"]]
    if st["first_decks"].notna().any():  # hands rotated: the first mover's rate and interval are over decks
        d["decks (hands rotated)"] = [count(int(x)) if np.isfinite(x) else "–" for x in st["first_decks"]]
    return d


def _show_raise(rt: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"group": rt["group"], "strongest step": rt["top"], "against": rt["against"],
                         "change of the first mover's rate": [pp_ci(a, b, c) for a, b, c in
                                                              zip(rt["change"], rt["change_lo"], rt["change_hi"])],
                         "p (Holm)": [f"{p:.2g}" for p in rt.get("p_holm", [])],
                         "verdict": [_verdict(r) for _, r in rt.iterrows()]})


def skill_section(ctx: Any) -> Any:
    """The section (a :class:`analyzer.report.parts.Section`): answers first, then charts and tables."""
    s = Section()
    st = skill_table(ctx.res)
    if st.empty or not bool(st["homogeneous"].all()):
        s.answers.append(Block("p", "Skill curves need a ladder: one strategy in every seat of each cell."))
        return s
    rt = raise_table(st)
    s.answers.append(Block("h3", "Does skill raise the first mover's advantage?"))
    s.answers.append(Block("list", answers(st, rt)))
    s.answers.append(Block("h3", "The Jack as skill rises"))
    s.answers.append(Block("list", jack_answers(st)))
    rotated = bool(st["first_decks"].notna().any())
    how = ("95% intervals: over decks where the hands rotate (every deck dealt once per rotation, the same hands "
           "in each seat, so the luck of the deal cancels out of the first mover's rate), Wilson elsewhere"
           if rotated else "95% Wilson intervals")
    s.details.append(ctx.chart("skill_first_player", partial(plot_first_player, st),
                               "Position 0's win rate minus the fair share, per ladder step (the same strategy in "
                               f"every seat), {how}"))
    s.details.append(Block("table", _show_raise(rt),
                           "The strongest steps' first-mover rate against the weakest's and the tuned preset's: "
                           "cells on decks of their own, so independent estimates (each with its own standard "
                           "error); Holm over the rows, a verdict needs the interval and the Holm p to agree."))
    s.details.append(ctx.chart("skill_jack_dealt", partial(plot_jack_dealt, st),
                               "The дурак rate of a seat dealt no wild, one, two or more (seats pooled over "
                               "positions, Wilson, conservative)"))
    s.details.append(ctx.chart("skill_jack_held", partial(plot_jack_held, st),
                               "A hand left holding a wild at the end against hands left with as many cards and "
                               "none (points; never with two players)"))
    s.details.append(ctx.chart("skill_jack_rule", partial(plot_jack_rule, st),
                               "Deals whose дурак the wild rule picked (PR7; czech's CZ7 judges only a match's last "
                               "deal, svinya has no such rule)"))
    s.details.append(Block("table", _show(st), "Every step of every group, with 95% intervals."))
    return s


def skill_sentence(st: pd.DataFrame, rt: pd.DataFrame) -> str:
    """Per group, the strongest steps' first-mover rate against random's (Holm over the raise table): the groups
    where one of them distinguishably raises or lowers it, with that step and its change, and the rest."""
    weak = rt[rt["against_kind"] == "weakest"]
    ups: list[str] = []
    downs: list[str] = []
    same: list[str] = []
    for group, g in weak.groupby("group", sort=False):
        moved = g[g["distinguishable"]]
        for bucket, rows in ((ups, moved[moved["change"] > 0]), (downs, moved[moved["change"] < 0])):
            if len(rows):
                bucket.append(f"**{group}** (" + "; ".join(
                    f"{r.top}: {pp_ci(r.change, r.change_lo, r.change_hi)}" for r in rows.itertuples()) + ")")
        if not len(moved):
            same.append(f"**{group}**")
    parts = []
    for what, gs in (("raises the first mover's edge", ups), ("lowers it", downs),
                     ("changes it by no distinguishable amount", same)):
        if gs:
            parts.append(f"{what} in {', '.join(gs)}")
    tops = list(dict.fromkeys(weak["top"]))
    steps = " and ".join(tops) if tops else str(st.sort_values("step")["label"].iloc[-1])
    return (f"From random play to {steps} in every seat, skill " + "; ".join(parts)
            + " (each of those steps' first-mover win rate against random's, 95% intervals, Holm).")


def summary_panels(res: Results) -> list[Any]:
    """The report's first screen for a ladder: the first mover's edge per step, a line per group, and one
    sentence counting the groups where skill raises, lowers or leaves it: every one of the strongest steps against
    random (the raise table's rows), so a step that moved the edge is named even when the very last did not."""
    st = skill_table(res)
    if st.empty:
        return []
    sentence = skill_sentence(st, raise_table(st))
    def draw(ax: Any) -> None:
        for k, (group, g) in enumerate(st.groupby("group", sort=False)):
            _series(ax, g.sort_values("step"), "diff", "diff_lo", "diff_hi", k, group, shift=(k - 2) * 0.06)
        g0 = st[st["group"] == st["group"].iloc[0]].sort_values("step")
        ax.axhline(0.0, color="0.5", lw=0.8)
        _steps_axis(ax, g0)
        ax.set_ylabel("first mover, pp above fair", fontsize=8)
        ax.legend(fontsize=6)

    return [Panel("Going first as skill rises", sentence, draw)]


__all__ = ["raise_table", "summary_panels", "skill_section", "skill_table", "step_label"]
