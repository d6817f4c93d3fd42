"""The report of a rule-balance exploration: recommendations, the report card, the Pareto chart, main effects.

Built from the stored results alone (``results/arms.parquet``,
``results/effects.parquet``, ``results/balance.json``, ``manifest.json``), so
``durak report FOLDER`` rebuilds it without playing a deal; written by the one
renderer (:mod:`analyzer.report.render`) as Markdown, HTML and on the terminal.

Fairness is seat fairness (:mod:`analyzer.stats.fairness`): every seat, the win
and the дурак.  The recommended rule sets are *picked* on the finalists'
selection decks and *reported* from report decks that played no part in any
choice (``report_*`` columns), with paired differences from the reference
rules on those decks; the finalists' table shows the selection decks' numbers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.core.files import write_text
from analyzer.core.rules import first_mover_text
from analyzer.report.charts import DEFAULT_FORMATS, FORMATS, figure, prune, save_figure
from analyzer.report.format import count, num_ci, pct, pct_ci, pp_ci
from analyzer.report.render import Block, render_html, render_md
from analyzer.report.sentences import seat_name, seats_sentence
from analyzer.report.stamp import Stamp
from analyzer.stats.balance import pareto_ranks, same_play
from analyzer.stats.tables import CAPPED_ALARM

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Quantities of the main-effects table: column prefix -> heading.
EFFECTS = {"fpa": "first mover's advantage", "skill0": "skill gap", "turns": "turns a deal",
           "jack": "decided by the Jack rule", "capped": "capped"}
OUTCOME_WORDS = {"win": "wins", "durak": "is the дурак"}


def _load(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any], dict[str, Any]]:
    res = folder / "results"
    arms = pd.read_parquet(res / "arms.parquet")
    effects = pd.read_parquet(res / "effects.parquet")
    info = json.loads((res / "balance.json").read_text())
    manifest = json.loads((folder / "manifest.json").read_text())
    return arms, effects, info, manifest


def _est(row: pd.Series, m: str, prefix: str = "final_") -> str:
    """An estimate of quantity ``m`` with its interval, as text (``prefix``: selection or report decks)."""
    x, lo, hi = row[f"{prefix}{m}"], row[f"{prefix}{m}_lo"], row[f"{prefix}{m}_hi"]
    if m == "turns":
        return num_ci(x, lo, hi)
    if m == "fairness":
        return f"{100 * x:.1f} pp [{100 * lo:.1f}, {100 * hi:.1f}]" if np.isfinite(x) else "–"
    return pp_ci(x, lo, hi) if m.startswith(("fpa", "skill", "trace")) else pct_ci(x, lo, hi)


def _vs(row: pd.Series, m: str, prefix: str = "vs_ref_") -> str:
    x, lo, hi = row[f"{prefix}{m}"], row[f"{prefix}{m}_lo"], row[f"{prefix}{m}_hi"]
    return num_ci(x, lo, hi) if m == "turns" else pp_ci(x, lo, hi)


def _differs(row: pd.Series, m: str, prefix: str = "rep_vs_ref_") -> str:
    lo, hi = row[f"{prefix}{m}_lo"], row[f"{prefix}{m}_hi"]
    return "distinguishably" if lo > 0 or hi < 0 else "not distinguishably"


def where_unfair(row: pd.Series, variant: str, players: int, prefix: str = "final_") -> str:
    """``position 3 (the dealer) on the дурак: 22.2% [21.6, 22.8] against the fair 25%``."""
    k, o = int(row[f"{prefix}fairness_seat"]), str(row[f"{prefix}fairness_outcome"])
    share = pct_ci(row[f"{prefix}seat{k}_{o}"], row[f"{prefix}seat{k}_{o}_lo"], row[f"{prefix}seat{k}_{o}_hi"])
    return f"{seat_name(k, variant, players)} {OUTCOME_WORDS[o]} {share} against the fair {pct(1 / players)}"


def seats_of(row: pd.Series, variant: str, players: int, prefix: str = "report_", intro: bool = False) -> str:
    """:func:`analyzer.report.sentences.seats_sentence` of one rule set's stored seat shares."""
    cols = {k: [row[f"{prefix}seat{s}_{k}"] for s in range(players)]
            for k in ("win", "win_lo", "win_hi", "durak", "durak_lo", "durak_hi")}
    return seats_sentence(variant, players, **cols, intro=intro)


def recommendations(arms: pd.DataFrame) -> list[tuple[str, pd.Series]]:
    """(why, row) of the recommended rule sets, as the search picked them on their selection decks (the rows
    carry their report decks' numbers, ``report_*``)."""
    picked = arms[arms["picked"].fillna("") != ""]
    return [(str(r["picked"]), r) for _, r in picked.iterrows()]


def sentence(why: str, row: pd.Series, ref: pd.Series, sp: dict[str, Any], ref_name: str) -> str:
    """One rule set in words from its report decks, every number with its interval (paired with the reference)."""
    players, variant, strong, opponents = sp["players"], sp["variant"], sp["strong"], list(sp["opponents"])
    is_ref = row["arm"] == ref["arm"]
    r = "report_"
    vs_fair = "" if is_ref else (f", against {_est(ref, 'fairness', r)} under {ref_name}")
    vs_fpa = "" if is_ref else (f" ({_differs(row, 'fpa')} different from {ref_name}: paired difference "
                                f"{_vs(row, 'fpa', 'rep_vs_ref_')})")
    vs_skill = "" if is_ref else (f" ({_differs(row, 'skill0')} different from {ref_name}: "
                                  f"{_vs(row, 'skill0', 'rep_vs_ref_')})")
    more = "".join(f"; it beats {o} by {_est(row, f'skill{j}', r)}" for j, o in enumerate(opponents) if j)
    head = why if is_ref and why == ref_name else f"{why}: {row['rules']}"
    capped = float(row["report_capped"])
    hw = float(row["report_fairness_hw"])
    caveat = (f" Capped deals ({pct(capped)}, G10) are left out of every seat's share; scored all as wins or all "
              f"as losses they could move a share by up to {100 * capped:.2f} points"
              + (", more than its interval's half-width: the verdict depends on how they are scored."
                 if capped > hw else ", within its interval.") if capped > 0 else "")
    return (f"**{head[0].upper() + head[1:]}.** Seat fairness {_est(row, 'fairness', r)} (the largest deviation "
            f"from the fair share: {where_unfair(row, variant, players, r)}){vs_fair}; "
            f"{count(row['report_decks'])} report decks. {seats_of(row, variant, players)} Its advantage over the "
            f"fair share is {_est(row, 'fpa', r)}{vs_fpa}. {strong} beats {opponents[0]} by {_est(row, 'skill0', r)} "
            f"over the fair share{vs_skill}{more}. A deal lasts {_est(row, 'turns', r)} turns; the Jack rule picks "
            f"the дурак in {_est(row, 'jack', r)} of decided deals; {_est(row, 'capped', r)} of deals are capped "
            f"and {_est(row, 'blocked', r)} blocked.{caveat}")


def finalists_table(fin: pd.DataFrame, opponents: list[str], variant: str, players: int, ref_name: str,
                    kind: str) -> pd.DataFrame:
    """The finalists (or any subset of them) on their selection decks, the Pareto front first, then by the
    unfairness the search ranks on; a skill gap column per opponent."""
    fin = fin.copy()
    fin["front"] = pareto_ranks(fin["final_cost"], fin["final_skill0"]) == 0
    fin = fin.sort_values(["front", "final_cost"], ascending=[False, True])
    rows = list(fin.iterrows())
    gaps = {(f"skill gap vs {o}" if len(opponents) > 1 else "skill gap"): [_est(r, f"skill{j}") for _, r in rows]
            for j, o in enumerate(opponents)}
    return pd.DataFrame({
        "rules": fin["rules"] + np.where(fin["reference"], " (reference)", ""),
        "Pareto front": np.where(fin["front"], "yes", ""),
        "seat fairness": [_est(r, "fairness") for _, r in rows],
        "least fair seat": [f"position {int(r['final_fairness_seat'])} {OUTCOME_WORDS[str(r['final_fairness_outcome'])]}"
                            for _, r in rows],
        "first mover's advantage": [_est(r, "fpa") for _, r in rows],
        **gaps,
        "vs reference: first mover": [_vs(r, "fpa") for _, r in rows],
        "vs reference: skill": [_vs(r, "skill0") for _, r in rows],
        "decks": [count(x) for x in fin["final_decks"]],
        "fair table's outcomes": np.where(same_play(fin), "the reference's on every deck", ""),
        "picked as": fin["picked"].fillna(""),
    })


def report_card(fin: pd.DataFrame, variant: str, players: int, trace: str, ref_name: str) -> pd.DataFrame:
    """Every finalist's report card: seat fairness, first-mover advantage, skill gap and skill trace, deal
    length and spread, real choices, capped and blocked shares, the Jack rule's share of the дурак."""
    fin = fin.sort_values("final_cost")
    rows = list(fin.iterrows())

    def card(r: pd.Series, m: str, fmt: Any) -> str:
        c = f"card_{m}"
        return fmt(r[c], r[f"{c}_lo"], r[f"{c}_hi"]) if c in r and pd.notna(r[c]) else "–"

    out = {
        "rules": fin["rules"] + np.where(fin["reference"], " (reference)", ""),
        "seat fairness": [_est(r, "fairness") for _, r in rows],
        "first mover's advantage": [_est(r, "fpa") for _, r in rows],
        "skill gap": [_est(r, "skill0") for _, r in rows],
    }
    if trace:
        out[f"skill trace: {trace} vs the strong player"] = [card(r, "trace", pp_ci) for _, r in rows]
    out.update({
        "turns (mean ± sd)": [f"{r['final_turns']:.1f} ± {r['final_turns_sd']:.1f}" for _, r in rows],
        "decisions with a real choice": [card(r, "choice", pct_ci) for _, r in rows],
        "capped": [_est(r, "capped") for _, r in rows],
        "blocked": [_est(r, "blocked") for _, r in rows],
        "дурак by the Jack rule": [_est(r, "jack") for _, r in rows],
    })
    return pd.DataFrame(out)


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


def plot_pareto(arms: pd.DataFrame, title: str, kind: str, ref_name: str) -> Figure:
    """Every arm at its search estimate (grey), the finalists at their selection estimate with 95 % intervals,
    the Pareto front joined, the reference rules marked."""
    fig = figure(figsize=(8.0, 5.5))  # not pyplot's: nothing to close, as charts.py draws
    ax = fig.add_subplot()
    every = kind == "every-seat"
    x_all = arms["search_fairness"] if every else arms["search_fpa"]
    ax.scatter(100 * x_all, 100 * arms["search_skill0"], s=4, c="#bbbbbb", alpha=0.5,
               label=f"every rule set, search estimate ({len(arms):,})", rasterized=True)
    fin = arms[arms["finalist"]]
    m = "final_fairness" if every else "final_fpa"
    x, y = 100 * fin[m].to_numpy(), 100 * fin["final_skill0"].to_numpy()
    xerr = np.abs(100 * fin[[f"{m}_lo", f"{m}_hi"]].to_numpy().T - x)
    yerr = np.abs(100 * fin[["final_skill0_lo", "final_skill0_hi"]].to_numpy().T - y)
    ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", color="#1f4e9c", ms=4, lw=1,
                label="finalists, selection decks (95%)")
    front = pareto_ranks(np.abs(x), y) == 0
    order = np.argsort(np.abs(x[front]))
    ax.plot(x[front][order], y[front][order], "-", color="#d62728", lw=1.2, label="Pareto front (unfairness, skill)")
    ref = fin[fin["reference"]]
    if len(ref):
        ax.plot(100 * ref[m], 100 * ref["final_skill0"], "*", ms=14, color="#ff7f0e", label=ref_name)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("seat fairness: the largest seat's deviation, wins or дурак (pp)" if every
                  else "first mover's advantage over the fair share (percentage points)")
    ax.set_ylabel("skill gap: strong player's win share over the fair share (pp)")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def headline(arms: pd.DataFrame, sp: dict[str, Any], ref_name: str) -> list[str]:
    """The summary's first lines: who goes first, the reference rules' seat fairness and which seat is favoured
    on wins and on the дурак, and the fairest rule set's, all from report decks."""
    variant, players = sp["variant"], sp["players"]
    ref = arms[arms["reference"]].iloc[0]
    verdict = ("distinguishably unfair" if ref["report_fairness_lo"] > 0 else "not distinguishable from fair")
    dealer = "" if variant == "prague" else f"; the dealer is position {players - 1}"
    out = [f"In {variant} the first mover -- who plays the deal's first card -- is "
           f"{first_mover_text(variant, players)}{dealer}.",
           f"Under {ref_name} seat fairness is {_est(ref, 'fairness', 'report_')} ({verdict}; the largest deviation "
           f"from the fair share: {where_unfair(ref, variant, players, 'report_')}). {seats_of(ref, variant, players)}"]
    recs = recommendations(arms)
    fairest = [r for why, r in recs if "the fairest" in why.split(" and ")]
    if fairest:
        row = fairest[0]
        out.append(f"The fairest of the {len(arms):,} rule sets (picked on selection decks, measured again on "
                   f"{count(row['report_decks'])} report decks that played no part in the choice): {row['rules']}, "
                   f"seat fairness {_est(row, 'fairness', 'report_')} "
                   f"({where_unfair(row, variant, players, 'report_')}).")
    return out


def balance_blocks(arms: pd.DataFrame, effects: pd.DataFrame, info: dict[str, Any], manifest: dict[str, Any],
                   chart: list[Path]) -> list[Block]:
    """The report: a summary (who goes first, headline, the Pareto chart, the recommendations in sentences), the
    report card, the finalists, each option alone, the main effects, the search, and how it was measured."""
    sp = info["space"]
    variant, players, strong, opp = sp["variant"], sp["players"], sp["strong"], list(sp["opponents"])
    kind = sp.get("fairness", "every-seat")
    ref_name = info.get("reference_name", "the default rules")
    ref = arms[arms["reference"]].iloc[0]
    fin = arms[arms["finalist"]]
    single = fin[fin["changes"] == 1]
    note = (f"selection decks (after every deck the halving saw; they chose the recommendations); differences "
            f"paired with {ref_name} on the same decks; 95% intervals")
    sections = ["Report card", "Finalists", *(["Each option alone"] if len(single) else []), "Main effects",
                "The search", "How it was measured"]
    recs = recommendations(arms)
    blocks = [Block("h1", f"Rule balance: {variant} {players}p"), Block("h2", "Summary"),
              *[Block("p", t) for t in headline(arms, sp, ref_name)],
              Block("chart", chart, f"Fairness against skill, {variant} {players}p"),
              Block("h3", "Recommended rule sets"),
              Block("p", "Picked on the finalists' selection decks; every number below is from report decks that "
                         "played no part in any choice (no winner's curse)."),
              Block("list", [sentence(why, row, ref, sp, ref_name) for why, row in recs]
                    + [sentence(ref_name, ref, ref, sp, ref_name)]),
              Block("toc", sections)]
    blocks.append(Block("h2", "Report card"))
    blocks.append(Block("table", report_card(fin, variant, players, sp.get("trace", ""), ref_name),
                        f"every finalist on its selection decks; skill trace and real choices on "
                        f"{count(sp.get('trace_decks', 0))} report decks; 95% intervals"))
    blocks.append(Block("h2", "Finalists"))
    best = fin[~fin["anchor"] | fin["reference"]]
    blocks.append(Block("table", finalists_table(best, opp, variant, players, ref_name, kind),
                        f"the best of the search; {note}"))
    flagged = fin[fin["final_capped_lo"] > CAPPED_ALARM]
    if len(flagged):
        blocks.append(Block("warn", f"{len(flagged)} finalist(s) have more than {100 * CAPPED_ALARM:.1f}% of deals "
                                    "capped (no winner): never recommended."))
    if len(single):
        blocks.append(Block("h2", "Each option alone"))
        blocks.append(Block("table", finalists_table(pd.concat([single, fin[fin["reference"]]]), opp, variant,
                                                     players, ref_name, kind),
                            f"every single change from {ref_name}; {note}"))
    blocks.append(Block("h2", "Main effects"))
    blocks.append(Block("p", (
        f"Each option's value against {ref_name}' value, averaged over every other option of the space, deck by "
        f"deck on the first round's {sp['first_decks']:,} decks (every rule set played them): a paired interval "
        "over decks. * = distinguishable (interval and Holm-adjusted p agree).")))
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
    ranked_on = ("seat fairness: the largest deviation of any seat's win share or дурак share from the fair share, "
                 "its interval simultaneous over the seats (analyzer.stats.fairness)" if kind == "every-seat"
                 else "the first mover's |advantage| (--fairness first-mover)")
    blocks.append(Block("p", (
        f"{len(arms):,} rule sets (every combination of {', '.join(sp['space'])}), each played on shared decks at "
        f"the fair table ({strong} in every seat: seat fairness, the first mover's advantage, deal length, the Jack "
        f"rule, capped and blocked deals) and at {info['tables_per_deck'] - 1} skill tables ({strong} in each seat "
        f"against {players - 1} × {', '.join(sp['opponents'])}: the skill gap). Unfairness is {ranked_on}. "
        f"Successive halving kept 1/{sp['eta']} of the rule sets a round by Pareto rank (rule sets with too many "
        f"capped deals, and those that played every deck as a simpler one, not ranked); the "
        f"{len(info['finalists'])} finalists ({ref_name} and every single change from them among them) were "
        f"measured again on selection decks until every seat's deviation, the first mover's advantage and the "
        f"skill gap were within ±{sp['target_pp']:g} pp; the recommendations were picked there and measured once "
        f"more, to the same target, on report decks.")))
    if sp.get("left_out"):
        blocks.append(Block("p", "Options not explored:"))
        blocks.append(Block("list", [f"{k}: {v}" for k, v in sp["left_out"].items()]))
    blocks.append(Block("p", "Reproduce:"))
    blocks.append(Block("code", manifest.get("command") or f"durak balance --variant {variant} "
                                                           f"--players {players}"))
    return blocks


def balance_json(folder: Path) -> dict[str, Any]:
    """``durak balance --json``: every measured rule set's seat fairness, first-mover advantage, skill gap, deal
    length and per-seat rates (fractions, 95 % intervals), from its report decks where it has them (the picks
    and the reference), else its selection decks (the finalists), else the search's decks (there the seat
    fairness's interval takes Šidák's simultaneous value, a little wider than the simulated one)."""
    arms, _, info, _ = _load(folder)
    sp = info["space"]
    out = []
    for _, r in arms.iterrows():
        pre = ("report_" if pd.notna(r.get("report_fairness")) else
               "final_" if pd.notna(r.get("final_fairness")) else "search_")
        item: dict[str, Any] = {
            "rules": r["rules"], "reference": bool(r["reference"]), "picked": str(r["picked"] or ""),
            "decks": {"report_": "report", "final_": "selection", "search_": "search"}[pre],
            "n_decks": int(r[f"{pre}decks"])}
        for k in ("fairness", "fairness_lo", "fairness_hi"):
            item[k] = float(r[f"{pre}{k}"])
        item["fairness_seat"] = int(r[f"{pre}fairness_seat"])
        item["fairness_outcome"] = str(r[f"{pre}fairness_outcome"])
        for k, m in (("first_mover", "fpa"), ("skill", "skill0")):
            item[k], item[f"{k}_lo"], item[f"{k}_hi"] = (float(r[f"{pre}{m}{s}"]) for s in ("", "_lo", "_hi"))
        item["turns"] = float(r[f"{pre}turns"])
        item["seats"] = [{k: float(r[f"{pre}seat{s}_{k}"]) for k in ("win", "win_lo", "win_hi", "durak",
                                                                       "durak_lo", "durak_hi")}
                         for s in range(sp["players"])]
        out.append(item)
    return {"variant": sp["variant"], "players": sp["players"], "dealer_position": info["dealer_position"],
            "first_mover_position": info["first_mover_position"], "fairness": sp.get("fairness", "every-seat"),
            "rule_sets": out}


def write_balance_report(folder: Path, *, formats: Sequence[str] = DEFAULT_FORMATS, redraw: bool = False) -> list[Path]:
    """report.md, report.html and charts/pareto.png of a balance folder, from its stored results (kept as they
    are if its last build was made from the same results and code: analyzer.report.stamp)."""
    stamp = Stamp(folder, formats=list(formats))
    if not redraw and (kept := stamp.current()) is not None:
        return kept
    arms, effects, info, manifest = _load(folder)
    sp = info["space"]
    ref_name = info.get("reference_name", "the default rules")
    stem = folder / "charts" / "pareto"
    chart = [stem.with_suffix(f".{f}") for f in FORMATS if f in formats]
    if redraw or not stamp.charts_current(chart):
        fig = plot_pareto(arms, f"Rule balance, {sp['variant']} {sp['players']}p", sp.get("fairness", "every-seat"),
                          ref_name)
        chart = save_figure(fig, stem, formats=formats)
    prune(folder / "charts", chart)
    blocks = balance_blocks(arms, effects, info, manifest, chart)
    texts = [folder / "report.md", folder / "report.html"]
    write_text(texts[0], render_md(blocks, folder))
    write_text(texts[1], render_html(blocks, f"Rule balance: {sp['name']}"))
    stamp.save(texts, chart)
    return [*texts, *chart]
