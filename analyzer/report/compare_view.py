"""``durak compare`` on paper and on the terminal: the summary as blocks, through the one renderer.

:func:`analyzer.stats.compare.summarize_comparison` computes the numbers;
:func:`blocks` lays them out once (title, line-ups, ranking, pairs with
verdicts, narrowing, heatmap), and the same blocks become the terminal's rich
tables (:func:`print_comparison`) and ``compare.md`` (:func:`write_outputs`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer.report.charts import plot_heatmap, save_figure
from analyzer.report.format import bounds, half_width, p_value, pct2, times
from analyzer.report.render import Block, render_md, render_rich


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
    b += [Block("p", "Line-ups by rotation (position 0 acts first): "
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
    """Write compare.md, compare.json (full precision) and compare_heatmap.png/.svg into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "compare.json").write_text(json.dumps(out, indent=1) + "\n")
    charts = save_figure(heatmap(out).figure, folder / "compare_heatmap")
    (folder / "compare.md").write_text(markdown(out, command, folder, charts))
    return [folder / "compare.md", folder / "compare.json", *charts]


def stopping_blocks(out: dict[str, Any]) -> list[Block]:
    """How a ``--until-ci`` or ``--sprt`` run stopped: the rule, the verdict, the decks it took."""
    st = out.get("stopping")
    if not st:
        return []
    what = {"precise": "the target precision was reached", "H1": "H1 accepted: the first is better by the margin",
            "H0": "H0 accepted: the second is better by the margin",
            "budget": "the budget ran out before the rule decided"}[st["verdict"]]
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
                           "Holm p": p_value(p["p_holm"]), "verdict": p["verdict"]} for p in out["pairs"]])
    rated = pd.DataFrame([{"strategy": r["strategy"], "rating (Elo)": f"{r['rating']:+.0f}",
                           "95% interval": f"[{r['lo']:+.0f}, {r['hi']:+.0f}]"} for r in out["ratings"]])
    adv = out["first_seat_advantage"]
    return [
        Block("h2", f"Round-robin, {out['variant']} {out['players']}p, {out['rules']}: "
                    f"{out['n_decks']:,} duplicate decks, {out['deals_played']:,} deals"),
        Block("p", f"Measures: {out['measures']}. The first seat's own edge, which the design cancels: "
                   f"{_ci(adv['diff'], adv['lo'], adv['hi'])} pp."),
        *stopping_blocks(out),
        Block("table", pairs, "head-to-head margins (win rate of the first minus the second, paired on decks)"),
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
                    "run from position 0 (acts first) on."),
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
