"""The report's sections: one builder per report kind, in the table :data:`SECTIONS`.

A builder takes the shared :class:`Context` (the loaded results, the tables
computed once for all sections, where charts go) and returns a
:class:`Section`: the answer sentences that lead the report and the tables
and charts of its own part further down.  The report kinds are exactly
:data:`analyzer.core.report_kinds.REPORT_KINDS`, in that order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer.core.report_kinds import REPORT_KINDS
from analyzer.report import charts, display, sentences
from analyzer.report.draw import Drawer
from analyzer.report.footnotes import WILD_HELD_NOTE
from analyzer.report.format import count
from analyzer.report.parts import Section
from analyzer.report.render import Block
from analyzer.report.skill_curves import skill_section
from analyzer.stats import paired, tables
from analyzer.stats.tables import Results, rules_text

#: Series per win-rate chart before it is split in several.
MAX_SERIES = 8


@dataclass
class Context:
    """Everything the builders share; each table is computed once, when first asked for."""

    res: Results
    outdir: Path
    made: list[Path] = field(default_factory=list)
    #: where the charts are drawn, together, once the report's blocks are built (build_report); None: each
    #: chart is drawn and saved (PNG) when its block is made
    drawer: Drawer | None = None

    @cached_property
    def fpa(self) -> pd.DataFrame:
        return tables.first_player_advantage(self.res)

    @cached_property
    def fpa_pooled(self) -> pd.DataFrame:
        return tables.first_player_advantage(self.res, pooled=True)

    @cached_property
    def seats_pooled(self) -> pd.DataFrame:
        return tables.seat_fairness(self.res, pooled=True)

    @cached_property
    def worst(self) -> pd.DataFrame:
        return tables.worst_positions(self.res)

    @cached_property
    def worst_pooled(self) -> pd.DataFrame:
        return tables.worst_positions(self.res, pooled=True)

    @cached_property
    def rotated(self) -> bool:
        """Whether some cell group seats several lineups (then seat answers are pooled)."""
        return bool((self.fpa_pooled["seatings"] > 1).any())

    @cached_property
    def length(self) -> pd.DataFrame:
        return tables.game_length(self.res)

    def chart(self, name: str, draw: Callable[[], Any], caption: str) -> Block:
        """One chart (``draw`` returns its axes) and the block that shows it: drawn now, or by the drawer."""
        stem = self.outdir / _safe(name)
        if self.drawer is None:
            paths = charts.save_figure(draw().figure, stem)
        else:
            paths = self.drawer.add(lambda: draw().figure, stem)
        self.made.extend(paths)
        return Block("chart", paths, caption)


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in s)


# ---------------------------------------------------------------- builders

def first_player(ctx: Context) -> Section:
    """First-mover advantage and the worst seat (pooled over seatings where lineups rotate)."""
    s = Section()
    s.answers.append(Block("h3", "Does the first mover have an advantage?"))
    if ctx.rotated:
        s.answers.append(Block("p", "Where the experiment seats several lineups, they are pooled here, so that "
                                    "each strategy sits each position and the seat alone is measured; the "
                                    "per-lineup figures are in the tables below."))
    s.answers.append(Block("list", sentences.name_once(sentences.first_player_sentences(ctx.fpa_pooled))))
    s.answers.append(Block("h3", "Is every seat fair, on wins and on the дурак?"))
    s.answers.append(Block("list", sentences.name_once(sentences.fairness_sentences(ctx.seats_pooled))))
    s.answers.append(Block("h3", "Which seat is worst off?"))
    s.answers.append(Block("list", sentences.name_once(sentences.worst_sentences(ctx.worst_pooled))))
    if ctx.rotated:
        s.details.append(Block("table", display.show_first_player(ctx.fpa_pooled),
                               "Pooled over the lineups (seatings) of each variant, player count, unit "
                               "and rule setting."))
        s.details.append(Block("table", display.show_worst(ctx.worst_pooled), "Worst seat, pooled over the lineups."))
    hands = ("decks" in ctx.fpa and ctx.fpa["decks"].notna().any())
    s.details.append(Block("table", display.show_first_player(ctx.fpa),
                           "The first mover (who plays the deal's first card: prague's dealer, the last position, "
                           "PR2; elsewhere position 0, CZ3, SV2) against the fair share 1/players of the decided "
                           "games (a capped deal "
                           "has no winner, G10; n counts decided games); difference and ratio use the Wilson "
                           "bounds; the p-value is the score test, Holm-adjusted for the number of cells "
                           "compared; 'distinguishable' needs the interval and the Holm p to agree."
                           + (" Where the hands rotate (the decks column: every deck dealt once per rotation, "
                              "the same hands in each seat), the rate, its interval and its test are over decks "
                              "(a deck's deals share its cards), the luck of the deal cancelled."
                              if hands else "")))
    s.details.append(Block("table", display.show_worst(ctx.worst),
                           "The position with the highest дурак rate among decided games; the gap to the "
                           "runner-up accounts for both coming from the same games, but both seats are "
                           "picked from these data, so the gap carries no verdict."))
    return s


def positions(ctx: Context) -> Section:
    """Win and loss rates by position, with win-rate charts per variant and unit."""
    res = ctx.res
    wl = tables.win_loss_by_position(res)
    s = Section()
    s.details.append(Block("table", display.show_positions(wl),
                           "Capped deals have neither winner nor loser, so rates need not sum to 100% and "
                           "the fair share is 1/players of the decided games. Match wins and losses shared "
                           "by ties count fractionally."))
    wl_chart = tables.win_loss_by_position(res, pooled=True) if ctx.rotated else wl
    for (variant, unit), g in wl_chart.groupby(["variant", "unit"], sort=True):
        cells = list(dict.fromkeys(g["cell"]))
        for i, chunk in enumerate(_chunks(cells, MAX_SERIES)):
            sub = g[g["cell"].isin(chunk)]
            s.details.append(ctx.chart(
                f"win_by_position_{variant}_{unit}_{i}",
                partial(charts.plot_win_by_position, sub, variant=variant, unit=unit),
                f"Win rate by position, {variant}, per {unit}" + (" (lineups pooled)" if ctx.rotated else "")))
    return s


def strategies(ctx: Context) -> Section:
    """Which strategy wins: rates per strategy, seats and lineups pooled."""
    ws = tables.win_loss_by_strategy(ctx.res, pool_cells=True)
    s = Section()
    said = sentences.strategy_sentences(ws, paired.strategy_pairs(ctx.res, "wins"))
    if said:
        s.answers.append(Block("h3", "Which strategy wins?"))
        s.answers.append(Block("list", said))
    s.details.append(Block("table", display.show_strategies(ws),
                           "Seats of a strategy pooled over positions and over cells with the same "
                           "variant, players, unit and rules; n counts seat-games."))
    return s


def head_to_head(ctx: Context) -> Section:
    """Strategy against strategy in two-strategy cells, with one heatmap per cell group."""
    h2h = tables.head_to_head(ctx.res)
    s = Section()
    if h2h.empty:
        s.details.append(Block("p", "No cell seats exactly two strategies, so there is no head-to-head table."))
        return s
    s.details.append(Block("table", display.show_h2h(h2h),
                           "Cells with exactly two strategies, pooled over seatings: the row strategy's "
                           "win rate per decided seat-game against the fair share; Holm over the rows, "
                           "a verdict needs the interval and the Holm p to agree."))
    # one colour scale for every heat map of the report: equal colours, equal differences
    lim = max(1.0, float(np.nanmax(np.abs(100 * h2h["diff"].to_numpy(dtype=float)))))
    for key, g in h2h.groupby(tables.GROUP_COLUMNS, sort=True, dropna=False):
        variant, players, unit, rules = key
        m = tables.head_to_head_matrix(g)
        lo = tables.head_to_head_matrix(g, "lo_diff")
        hi = tables.head_to_head_matrix(g, "hi_diff")
        verdict = tables.head_to_head_matrix(g.assign(distinguishable=g["distinguishable"].astype(float)),
                                             "distinguishable")
        rt = rules_text(str(rules))
        title = f"{variant} {players}p per {unit}" + ("" if rt == "default rules" else f", {rt}")
        s.details.append(ctx.chart(
            f"head_to_head_{variant}_{players}p_{unit}_{rt}",
            partial(charts.plot_heatmap, m, lo=lo, hi=hi, title=title, n=float(g["n"].min()), lim=lim,
                    verdict=verdict),
            f"Strategy against strategy, {title} (one colour scale for all heat maps; ≈: the verdict is "
            "not distinguishable)"))
    return s


def wild_penalty(ctx: Context) -> Section:
    """The wild-holding penalty: per cell, per position, strategies compared on it, charts."""
    res = ctx.res
    kvd = tables.keeper_vs_dumper(res)
    jq_all = tables.jack_question(res, by_strategy=False)
    jq = tables.jack_question(res)
    eff = tables.jack_rule_effect(res)
    iso = tables.jack_effects(res)
    s = Section()
    if not jq_all.empty:
        s.answers.append(Block("h3", "The Jack: does being dealt a wild, or holding one at the end, make the дурак?"))
        s.answers.append(Block("list", sentences.name_once(sentences.jack_sentences(jq_all, iso))))
    if not eff.empty:
        s.answers.append(Block("h3", "What does the wild rule itself do?"))
        s.answers.append(Block("list", sentences.name_once(sentences.jack_rule_sentences(eff))))
    s.answers.append(Block("h3", "How much does holding a wild cost?"))
    s.answers.append(Block("list", sentences.name_once(sentences.wild_sentences(tables.wild_summary(res, pooled=True)))))
    if not kvd.empty:
        s.answers.append(Block("list", sentences.name_once(sentences.keeper_sentences(kvd))))
    else:
        s.answers.append(Block("p", "No cell seats two strategies, so holding versus shedding wilds is not "
                                    f"compared; {sentences.WILD_PAIR_EXPERIMENT} does."))
    if not jq.empty:
        s.details.append(Block("table", display.show_jack(jq),
                               "The Jack question per strategy: the дурак rate among decided games of a seat dealt "
                               "no wild, one, or two or more (a match counts its last deal, the one CZ7 judges); "
                               "seats of a strategy pooled over positions and seatings (Wilson, conservative)."))
        if not iso.empty:
            s.details.append(Block("table", display.show_jack_effects(iso),
                                   "The comparisons that isolate the wild, all seats: a seat dealt one or more "
                                   "wilds against one dealt none (the shuffle decides, so nothing else differs on "
                                   "average), and a hand left holding a wild at the end against hands left with "
                                   "as many cards and no wild (standardised over 1 to 7, 8+ cards left as the "
                                   "holders are spread; never with two players, where the one hand left with cards "
                                   "is the дурак). Intervals treat the seats of one game together; Holm over the "
                                   "rows; a verdict needs the interval and the Holm p to agree. Where the wild "
                                   "rule cannot decide a game (CZ7 on single deals, svinya, wild_rule=off) the "
                                   "held difference is the points alone."))
            strata = tables.jack_held_strata(res)
            if not strata.empty:
                s.details.append(Block("table", display.show_held_strata(strata),
                                       "Held at the end, per number of cards left: the дурак rate of hands "
                                       "holding a wild and of hands holding as many cards and none (Wilson)."))
        for unit in sorted(jq_all["unit"].unique()):
            s.details.append(ctx.chart(f"jack_{unit}", partial(charts.plot_jack, jq_all, iso, unit=unit),
                                       f"The Jack question per {unit}: дурак rate by wilds dealt, and a hand left holding a "
                                       "wild at the end against hands left with as many cards (all seats pooled)"))
    if not eff.empty:
        s.details.append(Block("table", display.show_jack_rule(eff),
                               "The wild rule on against off (wild_rule=off, everything else equal): the дурак "
                               "gap of the keeper (ends holding wilds more often) minus the dumper (paired; the "
                               "wild's only where the two differ in wild handling alone), its change (the two "
                               "cells play different deals, so the variances add), and the rule's own cost to the "
                               "keeper (its дурак rate on − off, the causal part); Holm over the rows."))
        if eff["rule_acts"].astype(bool).any():
            s.details.append(ctx.chart("jack_rule", partial(charts.plot_jack_rule, eff),
                                       "The wild rule on and off: keeper − dumper gaps and the rule's cost to the "
                                       "keeper"))
    s.details.append(Block("p", "From the stored sums: per position, how often a hand ends holding a wild "
                                "and how often the wild rule (CZ7/PR7) rather than the points made it the "
                                "дурак; per cell, the share of games whose loser the wild rule picked, the "
                                "share with a wild left in some hand, and the mean points of the hands left "
                                "holding a wild against the other hands that did not win (like with like: "
                                "the winner's hand, empty when it went out, is left out). svinya's lone-Queen "
                                "20 (SV6) is inside the points."))
    s.details.append(Block("table", display.show_wild_summary(tables.wild_summary(res)), "Per cell"))
    positions = display.show_wild_positions(tables.wild_by_position(res))
    s.details.append(Block("table", positions, "Per position"))
    if positions["held a wild at the end [95% CI]"].str.endswith("*").any():
        s.details.append(Block("p", WILD_HELD_NOTE))
    if not kvd.empty:
        s.details.append(Block("table", display.show_keeper(kvd),
                               "Per variant, players, unit and rule setting, the strategy whose hands end holding "
                               "a wild most often against the one holding least often (read off the data); "
                               "differences are most − least with paired intervals (both play the same games), "
                               "Holm over the rows; a verdict needs the interval and the Holm p to agree. A gap "
                               "is what keeping the wild does only where the two differ in wild handling alone "
                               "(they declare it, as wild-keeper and wild-dumper do); otherwise it is their whole "
                               "difference in play."))
    wbs = tables.wild_by_strategy(res)
    for unit in sorted(wbs["unit"].unique()):
        s.details.append(ctx.chart(f"wild_penalty_{unit}",
                                   partial(charts.plot_wild_penalty, wbs, unit=unit),
                                   f"Wild-holding penalty per variant and strategy, per {unit}"))
    return s


def house_rules(ctx: Context) -> Section:
    """What switching one rule option changes, everything else equal."""
    effects = tables.rule_effects(ctx.res)
    s = Section()
    if not effects.empty and (effects["context"] == "default rules").any():
        s.answers.append(Block("h3", "What does each rule option change?"))
        s.answers.append(Block("list", sentences.name_once(sentences.rule_sentences(effects))))
    if effects.empty:
        s.details.append(Block("p", "No two cells differ in exactly one rule option, so no option's "
                                    "effect is measured."))
        return s
    s.details.append(Block("table", display.show_rule_effects(effects),
                           "Each row compares two cells that differ only in the option switched on; "
                           "changes are on − off with independent-sample 95% intervals."))
    return s


#: Histograms drawn by the length section: stored kind, what it measures.
_HISTS = (("turns", "deal length"),
          ("points", "penalty points per hand left with cards (the winner's empty hand left out)"),
          ("deals", "match length"))


def length(ctx: Context) -> Section:
    """Game length, blocked and capped games, with histograms per variant."""
    s = Section()
    s.answers.append(Block("h3", "How long are the games?"))
    s.answers.append(Block("list", sentences.name_once(sentences.length_sentences(ctx.length))))
    for unit in sorted(ctx.length["unit"].unique()):
        s.details.append(ctx.chart(f"length_{unit}", partial(charts.plot_length, ctx.length, unit=unit),
                                   f"{'Match' if unit == 'match' else 'Deal'} length per rule set"))
    s.details.append(Block("table", display.show_length(ctx.length),
                           "Turns count every go, lost goes included (G10a); the last histogram bin is "
                           "open-ended (≥). Match cells count capped deals inside the matches."))
    for kind, what in _HISTS:
        ht = tables.hist_table(ctx.res, kind, pooled=ctx.rotated)
        ht = ht[ht.groupby("cell")["count"].transform("sum") > 0]
        for variant, g in ht.groupby("variant", sort=True):
            for i, chunk in enumerate(_chunks(list(dict.fromkeys(g["cell"])), MAX_SERIES)):
                sub = g[g["cell"].isin(chunk)]
                s.details.append(ctx.chart(f"hist_{kind}_{variant}_{i}",
                                           partial(charts.plot_hist, sub, kind),
                                           f"Distribution of {what}, {variant}"))
    return s


Builder = Callable[[Context], Section]


def skill_curves(ctx: Context) -> Section:
    """Skill curves of a ladder experiment (analyzer.report.skill_curves)."""
    return skill_section(ctx)

#: Report kind -> builder, in report order (the keys are exactly REPORT_KINDS).
SECTIONS: dict[str, Builder] = {
    "first_player": first_player,
    "positions": positions,
    "strategies": strategies,
    "head_to_head": head_to_head,
    "wild_penalty": wild_penalty,
    "house_rules": house_rules,
    "length": length,
    "skill_curves": skill_curves,
}
#: Heading of each kind's own part of the report.
TITLES: dict[str, str] = {
    "first_player": "First-mover advantage and the worst seat",
    "positions": "Win and loss rates by position",
    "strategies": "Win and loss rates by strategy",
    "head_to_head": "Strategy against strategy",
    "wild_penalty": "The wild-holding (Jack-holding) penalty",
    "house_rules": "What each rule option changes",
    "length": "Game length, blocked and capped games",
    "skill_curves": "Skill curves: the first mover and the Jack as skill rises",
}
if tuple(SECTIONS) != REPORT_KINDS or tuple(TITLES) != REPORT_KINDS:
    raise ImportError("analyzer.report.sections: SECTIONS and TITLES must list exactly REPORT_KINDS, in order")


# ---------------------------------------------------------------- how it was run

def run_blocks(res: Results) -> list[Block]:
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
        f"{count(float(rate)) if isinstance(rate := m.get('deals_per_second'), (int, float)) else '–'} "
        "deals per second",
        f"{len(res.cells)} cells; {count(deals)} deals simulated"
        + (f", {count(match_deals)} of them in {count(matches)} matches" if matches else ""),
        "Variants: " + ", ".join(sorted(res.cells["variant"].unique())) + "; player counts: "
        + ", ".join(str(p) for p in sorted(res.cells["players"].unique())),
        "Strategies: " + ", ".join(sorted({s for ln in res.cells["lineup"] for s in ln.split(",") if s})),
        "Intervals are 95% (Wilson for rates, normal for means and differences; paired where two "
        "strategies share the same games); 'distinguishable' only where the interval excludes the null "
        "value and the Holm-adjusted p-value is below 0.05.",
    ]
    if (parsed := m.get("experiment") or {}).get("cell_deals"):
        facts.insert(4, f"Deals a cell (decks, where the hands rotate): {count(float(parsed['deals']))}, but "
                     + "; ".join(f"{k} {count(float(v))}" for k, v in parsed["cell_deals"].items())
                     + " (the experiment's cell_deals)")
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
