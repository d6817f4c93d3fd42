"""The report of a rule-balance exploration (issue 28): recommendations, the Pareto chart, main effects.

Built from the stored results alone (``results/arms.parquet``,
``results/effects.parquet``, ``results/balance.json``, ``manifest.json``), so
``durak report FOLDER`` rebuilds it without playing a deal; written by the one
renderer (:mod:`analyzer.report.render`) as Markdown, HTML and on the terminal.
The recommended rule sets are named from the finalists' *fresh* measurement
(decks the selection never saw) with paired differences from the variant's
default rules on the same decks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analyzer.core.files import write_text
from analyzer.report.charts import save_figure  # its import sets the Agg backend, as for every chart
from analyzer.report.format import count, num_ci, pct_ci, pp_ci
from analyzer.report.render import Block, render_html, render_md
from analyzer.stats.balance import pareto_ranks
from analyzer.stats.tables import CAPPED_ALARM

#: Quantities of the main-effects table: column prefix -> heading.
EFFECTS = {"fpa": "first player's advantage", "skill0": "skill gap", "turns": "turns a deal",
           "jack": "decided by the Jack rule", "capped": "capped"}


def _load(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any], dict[str, Any]]:
    res = folder / "results"
    arms = pd.read_parquet(res / "arms.parquet")
    effects = pd.read_parquet(res / "effects.parquet")
    info = json.loads((res / "balance.json").read_text())
    manifest = json.loads((folder / "manifest.json").read_text())
    return arms, effects, info, manifest


def _fin(row: pd.Series, m: str) -> str:
    """A finalist's fresh estimate of quantity ``m`` with its interval, as text."""
    x, lo, hi = row[f"final_{m}"], row[f"final_{m}_lo"], row[f"final_{m}_hi"]
    if m == "turns":
        return num_ci(x, lo, hi)
    return pp_ci(x, lo, hi) if m.startswith(("fpa", "skill")) else pct_ci(x, lo, hi)


def _vs(row: pd.Series, m: str) -> str:
    x, lo, hi = row[f"vs_ref_{m}"], row[f"vs_ref_{m}_lo"], row[f"vs_ref_{m}_hi"]
    return num_ci(x, lo, hi) if m == "turns" else pp_ci(x, lo, hi)


def _differs(row: pd.Series, m: str) -> str:
    lo, hi = row[f"vs_ref_{m}_lo"], row[f"vs_ref_{m}_hi"]
    return "distinguishably" if lo > 0 or hi < 0 else "not distinguishably"


def eligible(fin: pd.DataFrame) -> pd.DataFrame:
    """Finalists that may be recommended: capped share not above the alarm (a deal cut off by the turn cap, G10,
    has no winner; its whole interval above :data:`CAPPED_ALARM` rules the set out)."""
    return fin[fin["final_capped_lo"] <= CAPPED_ALARM]


def same_play(fin: pd.DataFrame) -> pd.Series:
    """Finalists whose fair table had the default rules' winner on every fresh deck (a paired difference of
    exactly 0 with no spread): an option that changes only who is the дурак, or nothing the strong player does."""
    return (fin[["vs_ref_fpa", "vs_ref_fpa_lo", "vs_ref_fpa_hi"]] == 0).all(axis=1) & ~fin["reference"]


def recommendations(arms: pd.DataFrame) -> list[tuple[str, pd.Series]]:
    """(why, finalist row): the fairest; the most skilful; the fairest that keeps the default rules' skill
    (its paired skill difference from them does not exclude 0 from above); the fairest single change from the
    default rules; each rule set named once, every reason with it."""
    fin = eligible(arms[arms["finalist"]])
    if fin.empty:
        return []
    picks: list[tuple[str, Any]] = [("the fairest", fin["final_fpa"].abs().idxmin()),
                                    ("the most skilful", fin["final_skill0"].idxmax())]
    keeps = fin[fin["vs_ref_skill0_hi"] >= 0]
    if not keeps.empty:
        picks.append(("the fairest that keeps the default rules' skill", keeps["final_fpa"].abs().idxmin()))
    single = fin[(fin["changes"] == 1) & ~same_play(fin)]
    if not single.empty:
        picks.append(("the fairest single change", single["final_fpa"].abs().idxmin()))
    out: dict[Any, list[str]] = {}
    for why, i in picks:
        out.setdefault(i, []).append(why)
    return [(" and ".join(whys), fin.loc[i]) for i, whys in out.items()]


def sentence(why: str, row: pd.Series, ref: pd.Series, players: int, strong: str, opponents: list[str]) -> str:
    """One recommended rule set in words, every number with its interval (paired with the default rules)."""
    is_ref = row["arm"] == ref["arm"]
    vs_fpa = "" if is_ref else (f", against {_fin(ref, 'fpa')} under the default rules ({_differs(row, 'fpa')} "
                                f"different: paired difference {_vs(row, 'fpa')})")
    vs_skill = "" if is_ref else (f" ({_differs(row, 'skill0')} different from the default rules: "
                                  f"{_vs(row, 'skill0')})")
    more = "".join(f"; it beats {o} by {_fin(row, f'skill{j}')}" for j, o in enumerate(opponents) if j)
    head = why if is_ref and why == "the default rules" else f"{why}: {row['rules']}"
    return (f"**{head[0].upper() + head[1:]}.** The first player's advantage is {_fin(row, 'fpa')} "
            f"over the fair {100 / players:.0f}% ({count(row['final_decks'])} fresh decks){vs_fpa}. {strong} beats "
            f"{opponents[0]} by {_fin(row, 'skill0')} over the fair share{vs_skill}{more}. A deal lasts "
            f"{_fin(row, 'turns')} turns; the Jack rule picks the дурак in {_fin(row, 'jack')} of decided deals; "
            f"{_fin(row, 'capped')} of deals are capped and {_fin(row, 'blocked')} blocked.")


def finalists_table(fin: pd.DataFrame, opponents: list[str]) -> pd.DataFrame:
    """The finalists (or any subset of them) as text, the Pareto front first, then by |advantage|; a skill gap
    column per opponent."""
    fin = fin.copy()
    fin["front"] = pareto_ranks(fin["final_fpa"].abs(), fin["final_skill0"]) == 0
    fin = fin.assign(_u=fin["final_fpa"].abs()).sort_values(["front", "_u"], ascending=[False, True])
    rows = list(fin.iterrows())
    gaps = {(f"skill gap vs {o}" if len(opponents) > 1 else "skill gap"): [_fin(r, f"skill{j}") for _, r in rows]
            for j, o in enumerate(opponents)}
    return pd.DataFrame({
        "rules": fin["rules"] + np.where(fin["reference"], " (the default)", ""),
        "Pareto front": np.where(fin["front"], "yes", ""),
        "first player's advantage": [_fin(r, "fpa") for _, r in rows],
        **gaps,
        "vs default: advantage": [_vs(r, "fpa") for _, r in rows],
        "vs default: skill": [_vs(r, "skill0") for _, r in rows],
        "turns": [_fin(r, "turns") for _, r in rows],
        "Jack rule decides": [_fin(r, "jack") for _, r in rows],
        "capped": [_fin(r, "capped") for _, r in rows],
        "decks": [count(x) for x in fin["final_decks"]],
        "fair table's winners": np.where(same_play(fin), "the default's on every deck", ""),
    })


def effects_table(effects: pd.DataFrame) -> pd.DataFrame:
    if effects.empty:
        return effects
    out = pd.DataFrame({"option": effects["option"], "value": effects["value"] + " (vs " + effects["reference"] + ")",
                        "arms": [f"{a:,} vs {b:,}" for a, b in zip(effects["arms"], effects["arms_reference"])]})
    for m, head in EFFECTS.items():
        if m not in effects:
            continue
        fmt = num_ci if m == "turns" else pp_ci
        out[head] = [fmt(x, lo, hi) + (" *" if d else "") for x, lo, hi, d in
                     zip(effects[m], effects[f"{m}_lo"], effects[f"{m}_hi"], effects[f"{m}_distinguishable"])]
    return out


def plot_pareto(arms: pd.DataFrame, title: str) -> Figure:
    """Every arm at its search estimate (grey), the finalists at their fresh estimate with 95 % intervals, the
    Pareto front joined, the default rules marked."""
    fig = Figure(figsize=(8.0, 5.5))  # not pyplot's: nothing to close, as charts.py draws
    ax = fig.add_subplot()
    ax.scatter(100 * arms["search_fpa"], 100 * arms["search_skill0"], s=4, c="#bbbbbb", alpha=0.5,
               label=f"every rule set, search estimate ({len(arms):,})", rasterized=True)
    fin = arms[arms["finalist"]]
    x, y = 100 * fin["final_fpa"].to_numpy(), 100 * fin["final_skill0"].to_numpy()
    xerr = np.abs(100 * fin[["final_fpa_lo", "final_fpa_hi"]].to_numpy().T - x)
    yerr = np.abs(100 * fin[["final_skill0_lo", "final_skill0_hi"]].to_numpy().T - y)
    ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", color="#1f4e9c", ms=4, lw=1, label="finalists, fresh decks (95%)")
    front = pareto_ranks(np.abs(x), y) == 0
    order = np.argsort(np.abs(x[front]))
    ax.plot(x[front][order], y[front][order], "-", color="#d62728", lw=1.2, label="Pareto front (|advantage|, skill)")
    ref = fin[fin["reference"]]
    if len(ref):
        ax.plot(100 * ref["final_fpa"], 100 * ref["final_skill0"], "*", ms=14, color="#ff7f0e", label="default rules")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("first player's advantage over the fair share (percentage points)")
    ax.set_ylabel("skill gap: strong player's win share over the fair share (pp)")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def headline(arms: pd.DataFrame, players: int) -> str:
    """The summary's first line: the default rules' first-player advantage and the fairest rule set's."""
    ref = arms[arms["reference"]].iloc[0]
    fin = eligible(arms[arms["finalist"]])
    text = (f"Under the default rules the first player wins {_fin(ref, 'fpa')} more than the fair "
            f"{100 / players:.0f}% of deals.")
    if len(fin):
        row = fin.loc[fin["final_fpa"].abs().idxmin()]
        text += f" The fairest of the {len(arms):,} rule sets: {row['rules']}, {_fin(row, 'fpa')}."
    return text


def balance_blocks(arms: pd.DataFrame, effects: pd.DataFrame, info: dict[str, Any], manifest: dict[str, Any],
                   chart: list[Path]) -> list[Block]:
    """The report: a summary (headline, the Pareto chart, the recommendations in sentences), the finalists, each
    option alone, the main effects, the search, and how it was measured."""
    sp = info["space"]
    players, strong, opp = sp["players"], sp["strong"], list(sp["opponents"])
    ref = arms[arms["reference"]].iloc[0]
    fin = arms[arms["finalist"]]
    single = fin[fin["changes"] == 1]
    note = "fresh decks; differences paired with the default rules on the same decks; 95% intervals"
    sections = ["Finalists", *(["Each option alone"] if len(single) else []), "Main effects", "The search",
                "How it was measured"]
    blocks = [Block("h1", f"Rule balance: {sp['variant']} {players}p"), Block("h2", "Summary"),
              Block("p", headline(arms, players)),
              Block("chart", chart, f"Fairness against skill, {sp['variant']} {players}p"),
              Block("h3", "Recommended rule sets"),
              Block("list", [sentence(why, row, ref, players, strong, opp) for why, row in recommendations(arms)]
                    + [sentence("the default rules", ref, ref, players, strong, opp)]),
              Block("toc", sections)]
    blocks.append(Block("h2", "Finalists"))
    best = fin[~fin["anchor"] | fin["reference"]]
    blocks.append(Block("table", finalists_table(best, opp), f"the best of the search; {note}"))
    flagged = fin[fin["final_capped_lo"] > CAPPED_ALARM]
    if len(flagged):
        blocks.append(Block("warn", f"{len(flagged)} finalist(s) have more than {100 * CAPPED_ALARM:.1f}% of deals "
                                    "capped (no winner): never recommended."))
    if len(single):
        blocks.append(Block("h2", "Each option alone"))
        blocks.append(Block("table", finalists_table(pd.concat([single, fin[fin["reference"]]]), opp),
                            f"every single change from the default rules; {note}"))
    blocks.append(Block("h2", "Main effects"))
    blocks.append(Block("p", (
        f"Each option's value against the default's, averaged over every other option of the space, deck by deck "
        f"on the first round's {sp['first_decks']:,} decks (every rule set played them): a paired interval over "
        "decks. * = distinguishable (interval and Holm-adjusted p agree).")))
    blocks.append(Block("table", effects_table(effects)))
    blocks.append(Block("h2", "The search"))
    rounds = pd.DataFrame(info["rounds"])
    blocks.append(Block("table", pd.DataFrame({
        "round": rounds["round"], "stage": rounds["stage"], "rule sets": [count(x) for x in rounds["arms"]],
        "decks per rule set (at most)": [count(x) for x in rounds["decks_per_arm"]],
        "deals so far": [count(x) for x in rounds["deals_so_far"]]})))
    blocks.append(Block("p", (
        f"{info['deals']:,} deals in all; measuring every rule set to ±{sp['target_pp']:g} pp (a full grid, each "
        f"rule set's decks from its first-round spread) would take about {info['full_grid_deals']:,} deals: "
        f"{info['deals'] / max(info['full_grid_deals'], 1):.3f} of it. Wall time {manifest.get('seconds', 0):,.0f} s "
        f"(load average {manifest.get('load_average_at_start', ['?'])[0]} at the start, "
        f"{manifest.get('load_average_at_end', ['?'])[0]} at the end; {manifest.get('deals_this_run', 0):,} deals "
        "played by the last invocation).")))
    blocks.append(Block("h2", "How it was measured"))
    if manifest.get("description"):
        blocks.append(Block("p", manifest["description"]))
    blocks.append(Block("p", (
        f"{len(arms):,} rule sets (every combination of {', '.join(sp['space'])}), each played on shared decks at "
        f"the fair table ({strong} in every seat: the first player's advantage, deal length, the Jack rule, "
        f"capped and blocked deals) and at {info['tables_per_deck'] - 1} skill tables ({strong} in each seat "
        f"against {players - 1} × {', '.join(sp['opponents'])}: the skill gap). Successive halving kept 1/{sp['eta']} "
        f"of the rule sets a round by Pareto rank (rule sets with too many capped deals, and those that played "
        f"every deck as a simpler one, not ranked); the {len(info['finalists'])} finalists (the default rules and "
        f"every single change from them among them) were measured again on fresh decks until both intervals were "
        f"within ±{sp['target_pp']:g} pp.")))
    if sp.get("left_out"):
        blocks.append(Block("p", "Options not explored:"))
        blocks.append(Block("list", [f"{k}: {v}" for k, v in sp["left_out"].items()]))
    blocks.append(Block("p", "Reproduce:"))
    blocks.append(Block("code", manifest.get("command") or f"durak balance --variant {sp['variant']} "
                                                           f"--players {players}"))
    return blocks


def write_balance_report(folder: Path) -> list[Path]:
    """report.md, report.html and charts/pareto.{png,svg} of a balance folder, from its stored results."""
    arms, effects, info, manifest = _load(folder)
    sp = info["space"]
    fig = plot_pareto(arms, f"Rule balance, {sp['variant']} {sp['players']}p")
    chart = save_figure(fig, folder / "charts" / "pareto")
    blocks = balance_blocks(arms, effects, info, manifest, chart)
    write_text(folder / "report.md", render_md(blocks, folder))
    write_text(folder / "report.html", render_html(blocks, f"Rule balance: {sp['name']}"))
    return [folder / "report.md", folder / "report.html", *chart]


def is_balance_folder(folder: Path) -> bool:
    """True if ``folder`` holds a balance exploration's results (``durak report`` rebuilds it with this module)."""
    return (folder / "results" / "balance.json").is_file()
