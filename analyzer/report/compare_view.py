"""``durak compare`` on paper and on the terminal: the summary as blocks, through the one renderer.

:func:`analyzer.stats.compare.summarize_comparison` computes the numbers;
:func:`blocks` lays them out once (title, line-ups, ranking, pairs with
verdicts, narrowing, heatmap), and the same blocks become the terminal's rich
tables (:func:`print_comparison`) and ``compare.md`` (:func:`write_outputs`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from analyzer.core.files import write_text
from analyzer.report.charts import DEFAULT_FORMATS, figure, plot_heatmap, prune, save_figure
from analyzer.report.draw import Drawer
from analyzer.report.format import bounds, half_width, p_value, pct2, times
from analyzer.report.render import Block, render_html, render_md, render_rich
from analyzer.report.stamp import Stamp
from analyzer.report.strength_view import plot_strength, strength_blocks, strength_summary

NDArrayF = NDArray[np.float64]
NDArrayB = NDArray[np.bool_]


def title(out: dict[str, Any]) -> str:
    """``czech 4p — 20,000 duplicate decks x 2 rotations = 40,000 deals, seed 0``."""
    extra = " ".join(f"{k}={v}" for k, v in out["rules"].items())
    return (f"{out['variant']} {out['players']}p{(' ' + extra) if extra else ''} — {out['n_decks']:,} duplicate "
            f"{'match deck stacks' if out['unit'] == 'match' else 'decks'} x {len(out['strategies'])} rotations "
            f"= {out['games']:,} {'matches' if out['unit'] == 'match' else 'deals'}, seed {out['seed']}")


def headline(out: dict[str, Any]) -> str:
    """One sentence on the narrowing against the fair baseline, the same line-ups on fresh decks."""
    m, ind = out["narrowing_median"], out["narrowing_independent_median"]
    if m is None:
        if ind is None:
            return "duplicate design: the strategies never differ on a deck (paired interval of width 0)"
        return (f"duplicate design: {ind:.1f}x against two independent proportions of the same sample sizes "
                "(the fresh-deck baseline needs at least two decks)")
    many = " (median over pairs)" if len(out["narrowing"]) > 1 else ""
    verb = ("narrows the interval by" if m >= 1.1 else "hardly changes the interval: ratio" if m >= 0.9
            else "widens the interval: ratio")
    other = "" if ind is None else f"; {ind:.1f}x against two independent proportions of the same sample sizes"
    return f"duplicate design {verb} {m:.1f}x{many} against the same line-ups on a fresh deck per game{other}"


def ranking_frame(out: dict[str, Any]) -> pd.DataFrame:
    unit = out["unit"]
    return pd.DataFrame([{
        "rank": i, "strategy": r["strategy"],
        f"win % per seat-{unit} [95% CI]": f"{pct2(r['win_rate'])} {bounds(r['lo'], r['hi'])}",
        "loser % [95% CI]": f"{pct2(r['loss_rate'])} {bounds(r['loss_lo'], r['loss_hi'])}",
        "mean points [95% CI]": f"{r['mean_points']:.2f} {bounds(r['points_lo'], r['points_hi'], 1.0)}",
    } for i, r in enumerate(out["ranking"], 1)])


def pairs_frame(out: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame([{
        "A": p["a"], "B": p["b"], "A − B win, pp [95% CI]": f"{100 * p['diff']:+.2f} {bounds(p['lo'], p['hi'])}",
        "p": p_value(p["p"]), "p (Holm)": p_value(p["p_holm"]), "verdict": p["verdict"],
        "loser A − B, pp [95% CI]": f"{100 * p['loss_diff']:+.2f} {bounds(p['loss_lo'], p['loss_hi'])}",
        "points A − B [95% CI]": f"{p['points_diff']:+.2f} {bounds(p['points_lo'], p['points_hi'], 1.0)}",
        "narrowing (fresh decks)": times(nw["ratio_fresh_decks"]),
    } for p, nw in zip(out["pairs"], out["narrowing"])])


def narrowing_frame(out: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame([{
        "A": n["a"], "B": n["b"], "duplicate ± pp": half_width(n["paired_half_width"]),
        "fresh decks ± pp": half_width(n["fresh_decks_half_width"]), "ratio (fresh)": times(n["ratio_fresh_decks"]),
        "independent ± pp": half_width(n["independent_half_width"]), "ratio (independent)": times(n["ratio"]),
    } for n in out["narrowing"]])


def blocks(out: dict[str, Any], command: str | None = None, chart: list[Path] | None = None) -> list[Block]:
    """The comparison as report blocks; ``chart``: the heatmap files (PNG first), if drawn."""
    unit = out["unit"]
    fair = 1 / out["players"]
    b = [Block("h1", f"Duplicate comparison: {', '.join(out['strategies'])}"), Block("p", title(out))]
    if command:
        b.append(Block("code", command))
    b += [Block("p", "Line-ups by rotation (position 0, left of the dealer, first; the deal's first card is "
                     "position 0's, in prague the dealer's, the last position): "
                + "; ".join(" ".join(up) for up in out["lineups"]) + "."),
          Block("p", "Every deck is played once per rotation, so each strategy sits in every position of every "
                     "deck exactly once: the luck of the deal and of the seat cancels in the paired differences."),
          Block("h2", "Ranking by win rate"), Block("table", ranking_frame(out)),
          Block("p", f"Win rates are per seat-{unit} (fair share {100 * fair:.1f} %), n = "
                     f"{out['seat_games_per_strategy']:,} seat-{unit}s per strategy; intervals from per-deck scores."),
          Block("h2", "Pairs"), Block("table", pairs_frame(out)),
          Block("p", "A winner is named only when the 95% interval excludes 0 and the Holm-adjusted p-value "
                     "is below 0.05."),
          Block("h2", "Interval narrowing"), Block("p", f"**{headline(out)}.**"),
          Block("p", "The 95% half-width of the paired difference of win rates against (1) the fair baseline: "
                     "the same line-ups with a fresh deck for every game, estimated from these games (the "
                     "rotations' variances without their covariances), and (2) an independent-deals design with "
                     "the same number of games, as two independent proportions each on "
                     f"{out['seat_games_per_strategy']:,} seat-{unit}s."),
          Block("table", narrowing_frame(out))]
    if chart:
        b.append(Block("chart", chart, "paired differences"))
    if out["capped"]:
        b.append(Block("warn", f"**WARNING: {out['capped']} deals hit the turn cap — they count as no win and "
                               "no loss.**"))
    return b


def print_comparison(out: dict[str, Any]) -> None:
    """The comparison on the terminal (rich tables)."""
    render_rich(blocks(out))


def markdown(out: dict[str, Any], command: str | None = None, folder: Path | None = None,
             chart: list[Path] | None = None) -> str:
    """compare.md: the terminal's tables plus the design, the command and the heatmap."""
    return render_md(blocks(out, command, chart), folder or Path("."))


def heatmap(out: dict[str, Any]) -> Any:
    """Axes of the strategy x strategy paired differences of win rates (row − column)."""
    names = out["strategies"]
    idx = pd.Index(names, name="strategy")
    cols = pd.Index(names, name="opponent strategy")
    m, lo, hi = (pd.DataFrame(np.nan, index=idx, columns=cols) for _ in range(3))
    for p in out["pairs"]:
        a, b = p["a"], p["b"]
        for frame, key in ((m, "diff"), (lo, "lo"), (hi, "hi")):
            frame.loc[a, b] = np.nan if p[key] is None else p[key]
        m.loc[b, a] = -m.loc[a, b]
        lo.loc[b, a], hi.loc[b, a] = -hi.loc[a, b], -lo.loc[a, b]
    unit = "matches" if out["unit"] == "match" else "deals"
    return plot_heatmap(m, lo=lo, hi=hi, title=f"Duplicate {unit}: win rate, row − column",
                        value_label="paired difference of win rates (percentage points)",
                        n=float(out["n_decks"]))


def write_outputs(out: dict[str, Any], folder: Path, command: str | None = None) -> list[Path]:
    """Draw compare.md and compare_heatmap.png into ``folder`` (the run kind stores compare.json beside them)."""
    folder.mkdir(parents=True, exist_ok=True)
    charts = save_figure(heatmap(out).figure, folder / "compare_heatmap")
    prune(folder, charts, "compare_heatmap.*")
    write_text(folder / "compare.md", markdown(out, command, folder, charts))
    return [folder / "compare.md", *charts]


def stopping_blocks(out: dict[str, Any]) -> list[Block]:
    """How a ``--until-ci`` or ``--sprt`` run stopped: the rule, the verdict, the decks it took."""
    st = out.get("stopping")
    if not st:
        return []
    if out.get("pairs"):
        a, b = out["pairs"][0]["a"], out["pairs"][0]["b"]
        h1, h0 = f"H1 ({a} − {b} = +δ, {a} better) over H0", f"H0 ({a} − {b} = −δ, {b} better) over H1"
    else:  # a hero alone: its win rate against the field minus the fair share
        a = out["strategies"][0]
        h1, h0 = f"H1 ({a} above the fair share by δ) over H0", f"H0 ({a} below the fair share by δ) over H1"
    what = {"precise": "the target precision was reached", "H1": f"the SPRT chose {h1}",
            "H0": f"the SPRT chose {h0}", "budget": "the budget ran out before the rule decided"}[st["verdict"]]
    text = (f"Stopping rule: {st['rule']} (points of win rate as fractions), checked every {st['chunk_decks']:,} "
            f"decks: {what} after {st['decks']:,} decks ({st['deals']:,} deals; budget {st['budget_decks']:,} "
            f"decks); largest 95% half-width {100 * st['half_width']:.2f} pp.")
    if "llr" in st:
        text += (f" Log-likelihood ratio {st['llr']:+.2f}, bounds [{st['bounds'][0]:+.2f}, {st['bounds'][1]:+.2f}] "
                 f"(alpha {st['alpha']:g}, beta {st['beta']:g}).")
    return [Block("p", text)]


def _ci(est: float, lo: float, hi: float) -> str:
    """``+1.16 [-0.17, +2.49]`` in pp, one unbreakable cell."""
    return f"{100 * est:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]"


def round_robin_blocks(out: dict[str, Any]) -> list[Block]:
    """A round-robin (``durak compare --design round-robin``): what it measures, pairs with verdicts, ratings."""
    pairs = pd.DataFrame([{"A": p["a"], "B": p["b"], "A − B, pp [95% CI]": _ci(p["margin"], p["lo"], p["hi"]),
                           "Holm p": p_value(p["p_holm"]), "verdict": p["verdict"],
                           "narrowing": times(p.get("narrowing"))} for p in out["pairs"]])
    rated = pd.DataFrame([{"strategy": r["strategy"], "rating (Elo)": f"{r['rating']:+.0f}",
                           "95% interval": f"[{r['lo']:+.0f}, {r['hi']:+.0f}]"} for r in out["ratings"]])
    adv = out["first_seat_advantage"]
    return [
        Block("h2", f"Round-robin, {out['variant']} {out['players']}p, {out['rules']}: "
                    f"{out['n_decks']:,} duplicate decks, {out['deals_played']:,} deals"),
        Block("p", f"Measures: {out['measures']}. The first seat's own edge, which the design cancels: "
                   f"{_ci(adv['diff'], adv['lo'], adv['hi'])} pp."),
        *stopping_blocks(out),
        Block("table", pairs, "head-to-head margins (win rate of the first minus the second, paired on decks); "
                              "narrowing: the interval's half-width on fresh decks for every game over this one"),
        Block("table", rated, "Bradley–Terry ratings, 95% bootstrap intervals over decks"),
    ]


def hero_blocks(out: dict[str, Any]) -> list[Block]:
    """A hero design (``durak compare --design hero``): what it measures, win rates against the field, pairs."""
    fair = out["fair_share"]
    ranked = pd.DataFrame([{
        "strategy": r["strategy"], "win %, every position [95% CI]": _ci(r["win_rate"], r["lo"], r["hi"]).replace(
            "+", ""),
        "over the fair share, pp": f"{100 * r['margin']:+.2f}",
        "win % by position": " / ".join(f"{100 * v:.1f}" for v in r["by_position"]),
    } for r in out["ranking"]])
    b = [Block("h2", f"Hero design, {out['variant']} {out['players']}p, {out['rules']}: {out['n_decks']:,} duplicate "
                     f"decks, {out['deals_played']:,} deals"),
         Block("p", f"Measures: {out['measures']}. The fair share is {100 * fair:.1f} %; the win rates by position "
                    "run from position 0 (left of the dealer) on."),
         *stopping_blocks(out),
         Block("table", ranked, f"win rate against {', '.join(out['field'])}")]
    if out["pairs"]:
        pairs = pd.DataFrame([{"A": p["a"], "B": p["b"], "A − B, pp [95% CI]": _ci(p["margin"], p["lo"], p["hi"]),
                               "Holm p": p_value(p["p_holm"]), "verdict": p["verdict"]} for p in out["pairs"]])
        b.append(Block("table", pairs, "margins against the same field, paired over decks"))
    return b


def tournament_blocks(out: dict[str, Any]) -> list[Block]:
    """The blocks of a round-robin or hero result."""
    return round_robin_blocks(out) if out["design"] == "round-robin" else hero_blocks(out)


# ---------------------------------------------------------------- tournament reports (experiments with a design)
DESIGN_WORDS = {
    "round-robin": ("Round-robin (2 players): every pair of strategies head to head, each pair in both seatings on "
                    "the same decks. A cell of the cross-table is the row's win rate minus the column's in their "
                    "games against each other (paired over decks); the ratings (Bradley–Terry, Elo scale: a 100-point "
                    "gap is a 64 % head-to-head win rate) summarise all pairs, with 95 % intervals from a bootstrap "
                    "over decks."),
    "hero": ("Hero (more players): each strategy in turn sits every position against copies of one reference "
             "strategy, on the same decks. It measures each strategy's win rate against that one opposition, the seat "
             "advantage averaged out; a cell of the cross-table is the row's win rate minus the column's against the "
             "same opposition (paired over decks), not a head-to-head result."),
}


def _label(out: dict[str, Any]) -> str:
    extra = out["rules"]
    return f"{out['variant']} {out['players']}p{'' if extra in ('', 'default rules') else ' ' + extra}"


def cross_matrix(out: dict[str, Any]) -> tuple[list[str], NDArrayF, NDArrayF, NDArrayF, NDArrayB]:
    """(names, margin, lo, hi, significant) k x k matrices, row minus column; NaN on the diagonal."""
    names = list(out["strategies"])
    k = len(names)
    idx = {n: i for i, n in enumerate(names)}
    m, lo, hi = (np.full((k, k), np.nan) for _ in range(3))
    sig = np.zeros((k, k), dtype=bool)
    for p in out["pairs"]:
        i, j = idx[p["a"]], idx[p["b"]]
        m[i, j], lo[i, j], hi[i, j] = p["margin"], p["lo"], p["hi"]
        m[j, i], lo[j, i], hi[j, i] = -p["margin"], -p["hi"], -p["lo"]
        sig[i, j] = sig[j, i] = bool(p["significant"])
    return names, m, lo, hi, sig


def plot_cross_table(out: dict[str, Any], lim: float) -> Any:
    """The cross-table as a chart: only significant cells are shaded, on the report's one scale ``±lim`` pp."""
    names, m, lo, hi, sig = cross_matrix(out)
    k = len(names)
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    fig = figure(figsize=(1.15 * k + 3.0, 0.8 * k + 2.2))
    ax = fig.subplots()
    cmap = colormaps["PuOr"]
    norm = Normalize(vmin=-lim, vmax=lim)
    shade = np.where(sig, 100 * m, np.nan)
    im = ax.imshow(np.ma.masked_invalid(shade), cmap=cmap, norm=norm)
    for i in range(k):
        for j in range(k):
            if i == j:
                ax.text(j, i, "—", ha="center", va="center", color="grey")
                continue
            dark = bool(sig[i, j]) and abs(100 * m[i, j]) > 0.6 * lim
            ax.text(j, i, f"{100 * m[i, j]:+.1f}\n[{100 * lo[i, j]:+.1f}, {100 * hi[i, j]:+.1f}]", ha="center",
                    va="center", fontsize=6.5, color="white" if dark else "black" if sig[i, j] else "grey")
    ax.set_xticks(range(k), names, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(k), names, fontsize=8)
    ax.set_xlabel("column")
    ax.set_ylabel("row (measured)")
    what = "head to head" if out["design"] == "round-robin" else f"against {out['field'][0]} copies"
    ax.set_title(f"{_label(out)}: row − column win rate, pp [95%], {what}\n"
                 "shaded only where significant (interval excludes 0, Holm p < 0.05)", fontsize=9)
    fig.colorbar(im, ax=ax, label="row − column (pp)", shrink=0.8)
    fig.tight_layout()
    return fig


def ranking_points(out: dict[str, Any]) -> pd.DataFrame:
    """strategy, value, lo, hi (ratings in Elo, or win rate in %), best first."""
    if out["design"] == "round-robin":
        return pd.DataFrame([{"strategy": r["strategy"], "value": r["rating"], "lo": r["lo"], "hi": r["hi"]}
                             for r in out["ratings"]])
    return pd.DataFrame([{"strategy": r["strategy"], "value": 100 * r["win_rate"], "lo": 100 * r["lo"],
                          "hi": 100 * r["hi"]} for r in out["ranking"]])


def plot_ranking(out: dict[str, Any]) -> Any:
    """The ranking chart: each strategy's rating (or win rate) as a point with its 95 % interval bar."""
    r = ranking_points(out).iloc[::-1]
    fig = figure(figsize=(7.5, 0.38 * len(r) + 1.6))
    ax = fig.subplots()
    y = np.arange(len(r))
    ax.errorbar(r["value"], y, xerr=[r["value"] - r["lo"], r["hi"] - r["value"]], fmt="o", capsize=3, color="black")
    ax.set_yticks(y, r["strategy"], fontsize=8)
    if out["design"] == "round-robin":
        ax.set_xlabel("Bradley–Terry rating (Elo scale, mean 0), 95% bootstrap interval over decks")
    else:
        ax.axvline(100 * out["fair_share"], color="grey", lw=0.8, ls="--")
        ax.set_xlabel(f"win % against {out['field'][0]} copies, every position, 95% interval (dashed: fair share)")
    ax.set_title(f"{_label(out)}: ranking ({out['design']}, {out['n_decks']:,} duplicate decks)", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _pairs_table(out: dict[str, Any]) -> pd.DataFrame:
    rows = [{"A": p["a"], "B": p["b"], "A − B, pp [95% CI]": _ci(p["margin"], p["lo"], p["hi"]),
             "Holm p": p_value(p["p_holm"]), "verdict": p["verdict"]} for p in out["pairs"]]
    if out["design"] == "round-robin":  # the duplicate design's gain over a fresh deck for every game
        for row, p in zip(rows, out["pairs"]):
            row["narrowing (fresh decks)"] = times(p.get("narrowing"))
    return pd.DataFrame(rows)


def _ranking_table(out: dict[str, Any]) -> pd.DataFrame:
    if out["design"] == "round-robin":
        return pd.DataFrame([{"rank": i, "strategy": r["strategy"], "rating (Elo) [95% CI]":
                              f"{r['rating']:+.0f} [{r['lo']:+.0f}, {r['hi']:+.0f}]"}
                             for i, r in enumerate(out["ratings"], 1)])
    return pd.DataFrame([{"rank": i, "strategy": r["strategy"], "win % [95% CI]":
                          f"{100 * r['win_rate']:.2f} [{100 * r['lo']:.2f}, {100 * r['hi']:.2f}]",
                          "over the fair share, pp": f"{100 * r['margin']:+.2f}",
                          "win % by position": " / ".join(f"{100 * v:.1f}" for v in r["by_position"])}
                         for i, r in enumerate(out["ranking"], 1)])


def color_limit(results: list[dict[str, Any]]) -> float:
    """The report's one colour scale: the largest significant |margin| of any table, in pp (at least 1)."""
    vals = [abs(100 * p["margin"]) for out in results for p in out["pairs"] if p["significant"]]
    return max([1.0, *vals])


def summary_sentence(out: dict[str, Any]) -> str:
    """One line per tournament: who leads, by how much, and how many pairs are decided."""
    sig = sum(p["significant"] for p in out["pairs"])
    if out["design"] == "round-robin":
        top = out["ratings"][0]
        lead = (f"{top['strategy']} rates highest ({top['rating']:+.0f} Elo [{top['lo']:+.0f}, {top['hi']:+.0f}])")
    else:
        ref = out["field"][0]
        others = [r for r in out["ranking"] if r["strategy"] != ref] or out["ranking"]
        top = others[0]
        lead = (f"{top['strategy']} wins most against {ref} ({100 * top['win_rate']:.2f} % "
                f"[{100 * top['lo']:.2f}, {100 * top['hi']:.2f}], fair share {100 * out['fair_share']:.0f} %)")
        if len(others) < len(out["ranking"]):
            lead += f"; {ref} itself scores the fair share against its own copies"
    return f"**{_label(out)}** ({out['design']}): {lead}; {sig} of {len(out['pairs'])} pairs decided."


def plot_overview(results: list[dict[str, Any]]) -> Any:
    """Every tournament's ranking side by side (points with 95 % interval bars): the summary chart."""
    k = len(results)
    cols = min(k, 3)
    rows = -(-k // cols)
    size = max(len(o["strategies"]) for o in results)
    axes = figure(figsize=(4.4 * cols, 0.3 * size * rows + 1.3 * rows)).subplots(rows, cols, squeeze=False)
    fig = axes[0, 0].figure
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    for ax, out in zip(axes.flat, results):
        r = ranking_points(out).iloc[::-1]
        y = np.arange(len(r))
        ax.errorbar(r["value"], y, xerr=[r["value"] - r["lo"], r["hi"] - r["value"]], fmt="o", ms=3, capsize=2,
                    color="black")
        ax.set_yticks(y, r["strategy"], fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        if out["design"] == "hero":
            ax.axvline(100 * out["fair_share"], color="grey", lw=0.8, ls="--")
        unit = "Elo" if out["design"] == "round-robin" else f"win % vs {out['field'][0]}"
        ax.set_title(f"{_label(out)}, {out['design']} ({unit})", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def tournament_report_blocks(results: list[dict[str, Any]], *, name: str, description: str, command: str,
                             charts: dict[int, dict[str, list[Path]]],
                             overview: list[Path] | None = None) -> list[Block]:
    """An experiment of tournaments: a summary (one line and the ranking of each tournament), what each design
    measures, then per tournament the ranking chart and table, the cross-table chart (one colour scale for the
    report) and the pairs with Holm verdicts."""
    b = [Block("h1", f"Experiment: {name}"), Block("h2", "Summary"),
         Block("list", [summary_sentence(o) for o in results]
                        + [strength_summary(o) for o in results if o.get("strength")])]
    if overview:
        b.append(Block("chart", overview, "ranking of every tournament: points with 95% interval bars"))
    if description:
        b.append(Block("p", description))
    b.append(Block("code", command))
    b.append(Block("toc", ["What the designs measure", *(f"{_label(o)}: {o['design']}" for o in results)]))
    designs = list(dict.fromkeys(out["design"] for out in results))
    b.append(Block("h2", "What the designs measure"))
    b += [Block("p", DESIGN_WORDS[d]) for d in designs]
    b.append(Block("p", "Every line-up of a tournament plays the same decks with the same random numbers (duplicate "
                        "deals, common random numbers), so every interval between two strategies is paired over decks, "
                        "never computed as from independent samples. A winner is named only when the 95% interval "
                        "excludes 0 and the Holm-adjusted p-value (over the pairs of that tournament) is below 0.05. "
                        f"All cross-tables share one colour scale (±{color_limit(results):.1f} pp)."))
    for t, out in enumerate(results):
        b.append(Block("h2", f"{_label(out)}: {out['design']}"))
        b.append(Block("p", f"Measures: {out['measures']}. {out['n_decks']:,} duplicate decks, "
                            f"{out['deals_played']:,} deals, seed {out['seed']}."))
        b += stopping_blocks(out)
        if out["design"] == "round-robin":
            adv = out["first_seat_advantage"]
            b.append(Block("p", f"The first seat's own edge, which the design cancels: "
                                f"{_ci(adv['diff'], adv['lo'], adv['hi'])} pp."))
        c = charts.get(t, {})
        if "ranking" in c:
            b.append(Block("chart", c["ranking"], "ranking: points with 95% interval bars"))
        b.append(Block("table", _ranking_table(out), "ranking"))
        if "cross" in c:
            b.append(Block("chart", c["cross"], "cross-table: row − column, only significant cells shaded"))
        sig = sum(p["significant"] for p in out["pairs"])
        b.append(Block("table", _pairs_table(out), f"all {len(out['pairs'])} pairs ({sig} significant), paired over decks"))
        if out.get("strength"):
            b += strength_blocks(out, c.get("strength"))
    return b


def write_tournament_report(results: list[dict[str, Any]], folder: Path, *, name: str, description: str,
                            command: str, formats: Sequence[str] = DEFAULT_FORMATS, workers: int | None = None,
                            redraw: bool = False) -> list[Path]:
    """report.md, report.html and charts/ (ranking and cross-table per tournament, an overview) for an experiment
    of tournaments; the charts drawn together (analyzer.report.draw), kept if the folder's last build drew them
    from the same results (analyzer.report.stamp), chart files no longer part of the report deleted."""
    stamp = Stamp(folder, formats=list(formats))
    if not redraw and (kept := stamp.current()) is not None:
        return kept
    lim = color_limit(results)
    drawer = Drawer(formats, workers)
    charts: dict[int, dict[str, list[Path]]] = {}
    for t, out in enumerate(results):
        stem = f"{out['variant']}_{out['players']}p_{t}"
        charts[t] = {"ranking": drawer.add(partial(plot_ranking, out), folder / "charts" / f"ranking_{stem}"),
                     "cross": drawer.add(partial(plot_cross_table, out, lim), folder / "charts" / f"cross_{stem}")}
        if out.get("strength"):
            charts[t]["strength"] = drawer.add(partial(plot_strength, out), folder / "charts" / f"strength_{stem}")
    overview = drawer.add(partial(plot_overview, results), folder / "charts" / "overview")
    made = [*overview, *(p for c in charts.values() for ps in c.values() for p in ps)]
    if redraw or not stamp.charts_current(made):
        drawer.draw()
    prune(folder / "charts", made)
    blocks = tournament_report_blocks(results, name=name, description=description, command=command, charts=charts,
                                      overview=overview)
    texts = [folder / "report.md", folder / "report.html"]
    write_text(texts[0], render_md(blocks, folder))
    write_text(texts[1], render_html(blocks, f"Experiment: {name}"))
    stamp.save(texts, made)
    return [*texts, *made]


def rebuild_tournament_report(folder: Path, *, formats: Sequence[str] = DEFAULT_FORMATS, workers: int | None = None,
                              redraw: bool = False) -> list[Path]:
    """``durak report FOLDER`` for an experiment of tournaments: the report again from results/tournaments.json."""
    manifest = json.loads((folder / "manifest.json").read_text())
    results = json.loads((folder / "results" / "tournaments.json").read_text())
    return write_tournament_report(results, folder, name=manifest["name"], description=manifest.get("description", ""),
                                   command=manifest.get("command", ""), formats=formats, workers=workers,
                                   redraw=redraw)
