"""The strength-curve section of a tournament report (analyzer.stats.strength): chart, table, sentences.

Drawn only where a round-robin's result holds ``strength`` curves (one family at several budgets).  The x axis
is the budget as a multiple of the family's default, on a log scale, so two families with budgets in their own
units sit on one axis; the y axis is the win rate against the curve's opponent with its 95 % interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analyzer.report.charts import figure
from analyzer.report.render import Block


def _x(point: dict[str, Any]) -> float:
    return float(point["multiple"] if point.get("multiple") else point["budget"])


def _step(point: dict[str, Any]) -> str:
    m = point.get("multiple")
    if not m:
        return f"{point['budget']:,.0f}"
    return f"×{m:g}" if m >= 1 else f"×1/{1 / m:g}"


def plot_strength(out: dict[str, Any]) -> Any:
    """Win rate against each curve's opponent by budget (log axis), 95 % interval bars, 50 % dashed."""
    curves = out["strength"]
    fig = figure(figsize=(7.5, 4.4))
    ax = fig.subplots()
    for k, c in enumerate(curves):
        pts = c["points"]
        x = np.array([_x(p) for p in pts]) * (1.0 + 0.03 * (k - (len(curves) - 1) / 2))  # bars apart
        y = np.array([100 * p["rate"] for p in pts])
        lo = np.array([100 * p["lo"] for p in pts])
        hi = np.array([100 * p["hi"] for p in pts])
        ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="o-", ms=4, capsize=3, label=f"{c['family']} vs {c['against']}")
    ax.set_xscale("log", base=2)
    multiples = all(p.get("multiple") for c in curves for p in c["points"])
    steps = {_x(p): _step(p) for c in curves for p in c["points"]}
    ax.set_xticks(sorted(steps), [steps[x] for x in sorted(steps)])
    ax.minorticks_off()
    ax.set_xlabel("budget, times the family's default (log scale)" if multiples else "budget (log scale)")
    ax.set_ylabel("win % against the opponent, 95% interval")
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_title(f"{out['variant']} {out['players']}p: strength by budget ({out['n_decks']:,} duplicate decks a pair)",
                 fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def strength_table(out: dict[str, Any]) -> pd.DataFrame:
    """One row per curve point: the step, its opponent, win rate and margin, the gain over the step before."""
    rows = []
    for c in out["strength"]:
        for p in c["points"]:
            g = p.get("gain")
            rows.append({"family": c["family"], "step": _step(p), "budget": f"{p['budget']:,.0f}",
                         "against": p["opponent"],
                         "win % [95% CI]": f"{100 * p['rate']:.1f} [{100 * p['lo']:.1f}, {100 * p['hi']:.1f}]",
                         "margin, pp": f"{100 * p['margin']:+.1f}",
                         "gain over the step before, pp [95% CI]":
                             f"{100 * g['diff']:+.1f} [{100 * g['lo']:+.1f}, {100 * g['hi']:+.1f}]" if g else ""})
    return pd.DataFrame(rows)


def curve_sentence(c: dict[str, Any]) -> str:
    """Each step's paired gain, and where the curve stops rising, in words the sample supports."""
    pts = c["points"]
    first, last = pts[0], pts[-1]
    span = (f"its win rate goes from {100 * first['rate']:.1f}% [{100 * first['lo']:.1f}, {100 * first['hi']:.1f}] "
            f"at {_step(first)} to {100 * last['rate']:.1f}% [{100 * last['lo']:.1f}, {100 * last['hi']:.1f}] "
            f"at {_step(last)}")
    gains = [p for p in pts[1:] if "gain" in p]
    if not gains:
        return f"{c['family']} against {c['against']}: {span}."
    said = ", ".join(f"{_step(p)} {100 * p['gain']['diff']:+.1f} [{100 * p['gain']['lo']:+.1f}, "
                     f"{100 * p['gain']['hi']:+.1f}]" for p in gains)
    return (f"{c['family']} against {c['against']}: {span}; paired gains over the step before (pp) {said}: "
            f"{_where(c)} ({c['n_decks']:,} decks).")


def _where(c: dict[str, Any]) -> str | None:
    """Where a curve stops rising, in words its paired gains support; None for a curve without gains (its
    opponent's budget rises with it)."""
    pts = c["points"]
    if not any("gain" in p for p in pts[1:]):
        return None
    if c["stops_rising_at"] is None:
        return f"still rising at {_step(pts[-1])}"
    if c["last_gain_at"] is None:
        return f"no step past {_step(pts[0])} gained measurably"
    rose = next(p for p in pts if p["budget"] == c["last_gain_at"])
    return f"rising up to {_step(rose)}, no measurable gain past it"


def strength_summary(out: dict[str, Any]) -> str:
    """The report's first screen: every curve of a tournament in a few words (first and last step, where it
    stops rising); the section has the intervals and gains."""
    parts = [f"{c['family']} against {c['against']} {100 * c['points'][0]['rate']:.1f}% at {_step(c['points'][0])} "
             f"to {100 * c['points'][-1]['rate']:.1f}% at {_step(c['points'][-1])}"
             + (f", {where}" if (where := _where(c)) else "") for c in out["strength"]]
    return f"**{out['variant']} {out['players']}p**, strength by budget: " + "; ".join(parts) + "."


def strength_blocks(out: dict[str, Any], chart: list[Any] | None) -> list[Block]:
    """The section: how to read it, the chart, one sentence a curve, the table."""
    b = [Block("h3", "Strength by budget"),
         Block("p", "Each search family at several budgets against the same opponents on the same decks: a step's "
                    "gain is the paired difference of its win rate and the step before's against the same "
                    "opponent, deck by deck. Past the last step whose gain's 95% interval is above 0 the curve stops "
                    "rising at this sample's resolution (a plateau is not proven, only not rejected).")]
    if chart:
        b.append(Block("chart", chart, "win rate against the opponent by budget, 95% interval bars"))
    b.append(Block("list", [curve_sentence(c) for c in out["strength"]]))
    b.append(Block("table", strength_table(out), "every curve point"))
    return b
