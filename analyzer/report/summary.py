"""The report's first screen: three questions, each a picture and one plain sentence.

* **Going first** — the first mover's win rate (prague's dealer, else position 0) as a multiple of the fair share
  1/n, against the player count, one line per variant, with 95 % intervals
  (single deals under each variant's default rules, pooled over seatings).
* **The Jack** — only from designs that isolate the wild: a keeper
  and a dumper that differ in wild handling alone, else being dealt a wild
  against not (randomised by the shuffle), with the rule's own cost (on − off)
  and a hand left holding a wild set only against hands left with as many
  cards; where the experiment seats no isolating pair, it names the one that
  does.
* **Which strategy wins** — where several strategies play: win rate minus the
  fair share per strategy and cell, on one colour scale.

Sentences name a cell once and let the sign read naturally ("lowers the
дурак rate by 7.1 points").  Panels without data are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from analyzer.report import charts, sentences
from analyzer.report.draw import Drawer
from analyzer.report.format import change, count, pct, pct_ci
from analyzer.report.parts import Panel
from analyzer.report.render import Block
from analyzer.report.skill_curves import summary_panels
from analyzer.stats import tables
from analyzer.stats.tables import Results, rules_dict

VARIANT_STYLE = {"czech": ("#1f77b4", "o"), "prague": ("#d62728", "s"), "svinya": ("#2ca02c", "^")}


def _default_rules(df: pd.DataFrame) -> pd.DataFrame:
    """Per variant and player count, the rows of the rule set closest to the defaults."""
    d = df.copy()
    d["_changed"] = [len(rules_dict(r)) for r in d["rules"]]
    keep = d.groupby(["variant", "players"])["_changed"].transform("min") == d["_changed"]
    return d[keep].drop(columns="_changed")


def _bars(y: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Error-bar lengths below and above ``y``; an undefined bound (a cell of a few deals) draws none."""
    below = np.nan_to_num(np.asarray(y, float) - np.asarray(lo, float), nan=0.0)
    above = np.nan_to_num(np.asarray(hi, float) - np.asarray(y, float), nan=0.0)
    return np.vstack([np.clip(below, 0, None), np.clip(above, 0, None)])


def _points(x: float) -> str:
    return f"{abs(100 * x):.1f} points"


def _span(lo: float, hi: float) -> str:
    """A signed interval read as a size: [−9.0, −8.2] -> '8.2–9.0' (crossing 0: said with signs)."""
    if lo < 0 < hi:
        return f"{100 * lo:+.1f} to {100 * hi:+.1f}"
    a, b = sorted((abs(100 * lo), abs(100 * hi)))
    return f"{a:.1f}–{b:.1f}"


def first_player_panel(res: Results) -> Panel | None:
    """Going first: the first mover (who plays the deal's first card: prague's dealer, else position 0) against
    the fair share, and per variant which seat is favoured on wins and on the дурак."""
    fpa = tables.first_player_advantage(res, pooled=True)
    d = _default_rules(fpa[fpa["unit"] == "deal"])
    if d.empty:
        return None
    d = d.sort_values(["variant", "players"])
    best = d.loc[d["ratio"].idxmax()]
    worst = d.loc[d["ratio"].idxmin()]

    def who(r: pd.Series) -> str:
        return sentences.seat_name(int(r["first_position"]), str(r["variant"]), int(r["players"]), mark_first=False)

    sentence = (f"Going first is worth most in **{best['variant']} {int(best['players'])}p**: the first mover, "
                f"{who(best)}, wins {pct_ci(best['rate'], best['lo'], best['hi'])} of {count(best['n'])} deals "
                f"against a fair {pct(best['fair'])} ({best['ratio']:.2f}× the fair share)")
    if len(d) > 1 and worst["ratio"] < best["ratio"]:
        sentence += (f"; least in {worst['variant']} {int(worst['players'])}p, {who(worst)} "
                     f"({worst['ratio']:.2f}×, {pct_ci(worst['rate'], worst['lo'], worst['hi'])}).")
    else:
        sentence += "."
    sf = _default_rules(tables.seat_fairness(res, pooled=True))
    sf = sf[sf["unit"] == "deal"]
    if not sf.empty:
        sentence += " " + " ".join(sentences.seat_lines(sf))

    def draw(ax) -> None:  # noqa: ANN001 - a matplotlib Axes
        for v, g in d.groupby("variant"):
            colour, marker = VARIANT_STYLE.get(str(v), ("#555", "D"))
            y = g["ratio"].to_numpy()
            err = _bars(y, g["ratio_lo"].to_numpy(), g["ratio_hi"].to_numpy())
            ax.errorbar(g["players"], y, yerr=err, color=colour, marker=marker, capsize=3, label=str(v))
        ax.axhline(1.0, color="#888", ls="--", lw=1)
        ax.set_xticks(sorted(int(p) for p in d["players"].unique()))
        ax.set_xlabel("players")
        ax.set_ylabel("first mover's win rate ÷ fair share")
        ax.legend(fontsize=8, frameon=False)

    return Panel("Going first", sentence, draw)


def _spread(diffs: pd.Series) -> str:
    """The other cells' keeper − dumper gaps in words, signs read naturally ("lowers the rate by 0.4–18.1 points")."""
    parts = []
    for verb, part in (("lowers the rate", -diffs[diffs < 0]), ("raises it", diffs[diffs > 0])):
        if len(part):
            lo, hi = 100 * part.min(), 100 * part.max()
            amount = f"{lo:.1f}" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}–{hi:.1f}"
            parts.append(f"{verb} by {amount} points in {len(part)} cell{'s' if len(part) > 1 else ''}")
    if (diffs == 0).any():
        parts.append(f"leaves it unchanged in {int((diffs == 0).sum())}")
    return " and ".join(parts)


def _verb(x: float, distinguishable: bool) -> str:
    """'lowers' / 'raises', or, where the verdict is not distinguishable, a verb that claims no effect."""
    if not distinguishable:
        return "changes, not distinguishably from 0,"
    return "lowers" if x < 0 else "raises"


def _labels(d: pd.DataFrame) -> list[str]:
    return [f"{r.variant} {int(r.players)}p{' match' if r.unit == 'match' else ''}" for r in d.itertuples()]


def _gap_bars(d: pd.DataFrame, col: str, xlabel: str) -> Callable[[object], None]:
    """Horizontal bars of the gap ``col`` per cell with its interval (green: lowers the дурак rate)."""
    labels = _labels(d)

    def draw(ax) -> None:  # noqa: ANN001 - a matplotlib Axes
        y = np.arange(len(d))
        x = 100 * d[col].to_numpy(dtype=float)
        err = 100 * _bars(d[col].to_numpy(dtype=float), d[f"{col}_lo"].to_numpy(dtype=float),
                          d[f"{col}_hi"].to_numpy(dtype=float))
        colours = ["#2ca02c" if v < 0 else "#d62728" for v in x]
        ax.barh(y, x, xerr=err, color=colours, capsize=3)
        ax.set_yticks(y, labels, fontsize=8)
        ax.axvline(0, color="#444", lw=1)
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)

    return draw


def jack_panel(res: Results) -> Panel | None:
    """The Jack headline, drawn only from designs that isolate the wild, in this order:

    1. a keeper and a dumper that differ in wild handling alone (``keeper_vs_dumper``'s ``isolating``);
    2. being dealt a wild against not (the shuffle randomises it), with a pointer to the experiment that
       compares keeping with shedding when this one seats no such pair;
    3. otherwise how often a wild is left in hand, and the pointer.
    Where the experiment also plays the rule off, the rule's own cost (on − off) is added; a hand left
    holding a wild is compared only with hands left with as many cards (never in two-player deals).
    """
    kvd = tables.keeper_vs_dumper(res)
    iso = kvd[kvd["isolating"].astype(bool)] if not kvd.empty else kvd
    if not iso.empty:
        d = _default_rules(iso).reset_index(drop=True)  # the variants' own rules (a rule grid is in the details)
        big = d.loc[d["loss_diff"].abs().idxmax()]
        verb = _verb(big["loss_diff"], bool(big["distinguishable"]))
        where = f"{big['variant']} {int(big['players'])}p {'matches' if big['unit'] == 'match' else 'deals'}"
        sentence = (f"Keeping the wild ({big['keeper']}) instead of shedding it ({big['dumper']}), two strategies "
                    f"that differ in nothing else, {verb} the дурак rate by "
                    f"**{_points(big['loss_diff'])}** (95% interval {_span(big['loss_diff_lo'], big['loss_diff_hi'])})"
                    f" in {where}")
        other = d[d.index != big.name]
        sentence += f"; in the other cells it {_spread(other['loss_diff'])}." if len(other) else "."
        sentence += _held_sentence(tables.jack_effects(res)) + _rule_cost_sentence(res)
        return Panel("Keeping the Jack", sentence,
                     _gap_bars(d, "loss_diff", "дурак rate: keeps − sheds the wild (points)"))
    pointer = (" Keeping against shedding a wild is not measured here (no two strategies of this experiment "
               f"differ in wild handling alone): {sentences.WILD_PAIR_EXPERIMENT} answers it.")
    dealt = _dealt_panel(res, tables.jack_effects(res), pointer)
    if dealt is not None:
        return dealt
    ws = tables.wild_summary(res, pooled=True)
    if ws.empty:
        return None
    d = _default_rules(ws).sort_values(["variant", "players", "unit"]).reset_index(drop=True)
    if d.empty:
        return None
    labels = _labels(d)
    held = (d["wild_any"] / d["n"]).to_numpy()  # share of deals (matches) ending with a wild in some hand
    top = int(np.argmax(held))
    sentence = (f"A wild is still in someone's hand at the end of **{pct(held[top])}** of "
                f"{labels[top]}{'es' if d.loc[top, 'unit'] == 'match' else ' deals'}")
    decided = d[d["by_wild_rate"] > 0]
    if len(decided):
        r = decided.loc[decided["by_wild_rate"].idxmax()]
        sentence += (f"; the wild rule, not the points, names the дурак in {pct(r['by_wild_rate'])} "
                     f"of {r['variant']} {int(r['players'])}p {'matches' if r['unit'] == 'match' else 'deals'}.")
    else:
        sentence += "."
    sentence += pointer

    def draw_held(ax) -> None:  # noqa: ANN001
        y = np.arange(len(d))
        ax.barh(y, 100 * held, color="#9467bd")
        ax.set_yticks(y, labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("ends with a wild in hand (%)")

    return Panel("The Jack", sentence, draw_held)


def _held_sentence(eff: pd.DataFrame) -> str:
    """' A hand left holding a wild … is the дурак X points more often than hands left with as many cards'
    for the cell (default rules) where that gap is largest; nothing where no cell can tell (two-player
    deals only, or results stored before the cards left were)."""
    if eff.empty:
        return ""
    d = _default_rules(eff[eff["held_informative"].astype(bool) & eff["held_gap"].notna()])
    if d.empty:
        return ""
    r = d.loc[d["held_gap"].abs().idxmax()]
    units = "matches" if r["unit"] == "match" else "deals"
    verdict = "" if r["held_distinguishable"] else ", not distinguishable"
    s = (f" In {r['variant']} {int(r['players'])}p {units} a hand left holding a wild at the end is the дурак in "
         f"{pct(r['held_rate'])} of them against {pct(r['held_matched_rate'])} for hands left with as many other "
         f"cards ({_signed_points(r['held_gap'], r['held_gap_lo'], r['held_gap_hi'])}{verdict})")
    return s + ("." if r["rule_acts"] else f"; {sentences.no_rule(str(r['variant']), str(r['rules']))}.")


def _signed_points(x: float, lo: float, hi: float) -> str:
    return f"{100 * x:+.1f} points, 95% interval {100 * lo:+.1f} to {100 * hi:+.1f}"


def _rule_cost_sentence(res: Results) -> str:
    """' The wild rule itself raises the keeper's дурак rate by …' where the experiment also plays it off."""
    eff = tables.jack_rule_effect(res)
    eff = eff[eff["rule_acts"].astype(bool)] if not eff.empty else eff
    if eff.empty:
        return ""
    r = eff.loc[eff["cost"].abs().idxmax()]
    rule = {"deal": "per deal (PR7)", "match": "per match (CZ7)"}.get(str(r["wild_rule"]), str(r["wild_rule"]))
    units = "matches" if r["unit"] == "match" else "deals"
    who = "the keeper’s" if bool(r["isolating"]) else f"{r['keeper']}’s"
    return (f" The wild rule {rule} itself {change(r['cost'], r['cost_lo'], r['cost_hi'], what=who + ' дурак rate')}"
            f" in {r['variant']} {int(r['players'])}p {units} (rule on − off; the section below has every case).")


def _dealt_panel(res: Results, eff: pd.DataFrame, pointer: str) -> Panel | None:
    """Being dealt a wild against not (single deals under default rules): the shuffle decides who gets one,
    so the gap is the wild's own effect with these strategies."""
    if eff.empty:
        return None
    d = _default_rules(eff[(eff["unit"] == "deal") & eff["dealt_gap"].notna()]).sort_values(["variant", "players"])
    d = d.reset_index(drop=True)
    if d.empty:
        return None
    big = d.loc[d["dealt_gap"].abs().idxmax()]
    verb = _verb(big["dealt_gap"], bool(big["dealt_distinguishable"]))
    sentence = (f"Being dealt a wild (one or more, against none) {verb} a player's дурак rate by "
                f"**{_points(big['dealt_gap'])}** (95% interval {_span(big['dealt_gap_lo'], big['dealt_gap_hi'])}) "
                f"in {big['variant']} {int(big['players'])}p deals: {pct(big['dealt_with_rate'])} against "
                f"{pct(big['dealt_none_rate'])}, n={count(big['n'])} deals. The shuffle decides who is dealt one, "
                f"so nothing else differs on average")
    other = d[d.index != big.name]
    sentence += f"; in the other cells it {_spread(other['dealt_gap'])}." if len(other) else "."
    sentence += _held_sentence(eff) + _rule_cost_sentence(res) + pointer
    return Panel("The Jack", sentence, _gap_bars(d, "dealt_gap", "дурак rate: dealt a wild − none (points)"))


def strategy_panel(res: Results) -> Panel | None:
    ws = tables.win_loss_by_strategy(res, pool_cells=True)
    ws = ws[(ws["outcome"] == "win") & (ws["unit"] == "deal")]
    if ws.empty or ws["strategy"].nunique() < 2:
        return None
    ws = _default_rules(ws)
    ws = ws.assign(group=[f"{v} {int(p)}p" for v, p in zip(ws["variant"], ws["players"])],
                   edge=ws["rate"] - ws["fair"])
    grid = ws.pivot_table(index="strategy", columns="group", values="edge", aggfunc="mean")
    order = grid.mean(axis=1).sort_values(ascending=False).index
    grid = grid.loc[order]
    best = grid.mean(axis=1).idxmax()
    wins = int((grid.idxmax(axis=0) == best).sum())
    sentence = (f"**{best}** wins most often in {wins} of {grid.shape[1]} table sizes "
                f"(win rate minus the fair share, single deals, strategies seated as the experiment seats them; "
                f"see the strategy sections for intervals and paired tests).")

    def draw(ax) -> None:  # noqa: ANN001
        vals = 100 * grid.to_numpy(dtype=float)
        lim = max(1.0, float(np.nanmax(np.abs(vals))))
        im = ax.imshow(vals, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
        ax.set_xticks(range(grid.shape[1]), grid.columns, fontsize=8, rotation=30, ha="right")
        ax.set_yticks(range(grid.shape[0]), grid.index, fontsize=8)
        for (i, j), v in np.ndenumerate(vals):
            if np.isfinite(v):
                ax.text(j, i, f"{v:+.1f}", ha="center", va="center", fontsize=7,
                        color="white" if abs(v) > 0.6 * lim else "black")
        ax.figure.colorbar(im, ax=ax, shrink=0.8, label="win rate − fair (points)")

    return Panel("Which strategy wins", sentence, draw)


def _panels(res: Results) -> list[Panel]:
    """The headlines that apply; a ladder experiment (one strategy in every seat of each cell) gets the skill
    curves' own (analyzer.report.skill_curves): its cells do not compete, so "which strategy wins" is moot."""
    if (res.manifest.get("experiment") or {}).get("ladder"):
        return summary_panels(res)
    return [p for p in (first_player_panel(res), jack_panel(res), strategy_panel(res)) if p is not None]


def summary_blocks(res: Results, outdir, toc: list[str], drawer: Drawer | None = None  # noqa: ANN001
                   ) -> tuple[list[Block], list]:
    """The summary (sentences and one row of headline charts) and the table of contents; the headline charts
    are drawn by ``drawer`` with the report's others (None: now)."""
    panels = _panels(res)
    blocks = [Block("h2", "Summary")]
    made = []
    if panels:
        def make():  # noqa: ANN202 -- a matplotlib Figure
            fig = charts.figure(figsize=(3.9 * len(panels), 2.9), layout="constrained")
            axes = fig.subplots(1, len(panels), squeeze=False)[0]
            for ax, p in zip(axes, panels):
                ax.set_title(p.title, fontsize=10)
                p.draw(ax)
            return fig

        stem = outdir / "summary"
        paths = charts.save_figure(make(), stem, dpi=100) if drawer is None else drawer.add(make, stem, dpi=100)
        made += paths
        blocks.append(Block("chart", paths, " · ".join(p.title for p in panels)))
        blocks.append(Block("list", [f"**{p.title}.** {p.sentence}" for p in panels]))
    else:
        blocks.append(Block("p", "No headline applies to this experiment's cells."))
    blocks.append(Block("toc", toc))
    return blocks, made


def headlines(folder: Path) -> list[str]:
    """The summary's sentences as plain text lines (``durak run`` prints them when it ends), or none for a
    folder without a cells table (an experiment of tournaments)."""
    if not (folder / "results" / "cells.parquet").exists():
        return []
    res = tables.load_results(folder)
    panels = _panels(res)
    return [f"{p.title}: {p.sentence.replace('**', '')}" for p in panels]
