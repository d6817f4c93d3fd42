"""Display frames: the stats tables with their numbers written as text columns.

One function per report table; each takes a frame from
:mod:`analyzer.stats.tables` and returns the frame the renderer prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from analyzer.report.footnotes import wild_held_by_rule
from analyzer.report.format import count, num_ci, p_value, pct, pct_ci, pp_ci
from analyzer.stats.tables import DEALT_NAMES, rule_acts, rules_text

#: In a "lost by the wild rule" column where the rule cannot decide a game (CZ7 on single deals, svinya, off).
NOT_APPLICABLE = "rule does not apply"


def _by_wild(df: pd.DataFrame, rate: str, lo: str | None = None, hi: str | None = None) -> list[str]:
    """A wild-decided share per row, or :data:`NOT_APPLICABLE` where the rule cannot act (never a 0 %)."""
    acts = [rule_acts(str(v), str(r), str(u)) for v, r, u in zip(df["variant"], df["rules"], df["unit"])]
    return [(pct_ci(a, b, c) if lo else pct(a)) if ok else NOT_APPLICABLE
            for ok, a, b, c in zip(acts, df[rate], df[lo or rate], df[hi or rate])]


def _label_cols(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"cell": df["label"].astype(str), "unit": df["unit"].astype(str),
                         "lineup": df["lineup"].astype(str).str.replace(",", ", ")}, index=df.index)


def _verdict(flag: Any) -> str:
    return "distinguishable" if bool(flag) else "not distinguishable"


def _ci(fmt: Callable[[float, float, float], str], df: pd.DataFrame, value: str, lo: str, hi: str) -> list[str]:
    """A column of ``fmt(value, lo, hi)`` texts, one per row of ``df`` (a rate or difference with its interval)."""
    return [fmt(a, b, c) for a, b, c in zip(df[value], df[lo], df[hi])]


def show_positions(wl: pd.DataFrame) -> pd.DataFrame:
    w = wl[wl["outcome"] == "win"].reset_index(drop=True)
    lo = wl[wl["outcome"] == "loss"].reset_index(drop=True)
    d = _label_cols(w).drop(columns="lineup")
    d["position"] = w["position"].astype(int)
    d["strategy"] = w["strategy"]
    d["win rate [95% CI]"] = _ci(pct_ci, w, "rate", "lo", "hi")
    d["дурак (loss) rate [95% CI]"] = _ci(pct_ci, lo, "rate", "lo", "hi")
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
    d["win rate [95% CI]"] = _ci(pct_ci, w, "rate", "lo", "hi")
    d["дурак rate [95% CI]"] = _ci(pct_ci, lo, "rate", "lo", "hi")
    d["fair"] = [pct(x) for x in w["fair"]]
    d["n (seat-games)"] = [count(x) for x in w["n"]]
    return d


def show_first_player(fpa: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(fpa)
    if "first_position" in fpa:
        d["first mover"] = [f"position {int(k)}" for k in fpa["first_position"]]
    d["first mover wins [95% CI]"] = _ci(pct_ci, fpa, "rate", "lo", "hi")
    d["fair"] = [pct(x) for x in fpa["fair"]]
    d["difference"] = _ci(pp_ci, fpa, "diff", "diff_lo", "diff_hi")
    d["ratio"] = [num_ci(a, b, c, 3) for a, b, c in zip(fpa["ratio"], fpa["ratio_lo"], fpa["ratio_hi"])]
    d["p (Holm)"] = [p_value(p) for p in fpa["p_holm"]]
    d["verdict"] = [_verdict(x) for x in fpa["distinguishable"]]
    d["n"] = [count(x) for x in fpa["n"]]
    if "capped_matters" in fpa and fpa["capped_matters"].any():  # capped deals could move the rate (G10)
        d["capped scored as losses / wins"] = [f"{pct(a)} / {pct(b)}" + (" (verdict depends)" if v else "")
                                               if m else "" for a, b, m, v in
                                               zip(fpa["capped_worst_lo"], fpa["capped_worst_hi"],
                                                   fpa["capped_matters"], fpa["capped_verdict"])]
    if "decks" in fpa and fpa["decks"].notna().any():  # hands rotated: the rate and its interval are over decks
        d["decks (hands rotated)"] = [count(x) if np.isfinite(x) else "–" for x in fpa["decks"]]
    return d


def show_worst(worst: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(worst)
    d["worst position"] = worst["worst_position"].astype(int)
    d["its strategy"] = worst["worst_strategy"]
    d["дурак rate [95% CI]"] = _ci(pct_ci, worst, "loss_rate", "loss_lo", "loss_hi")
    d["fair"] = [pct(x) for x in worst["fair"]]
    d["runner-up"] = worst["runner_up"].astype(int)
    d["gap to runner-up (no verdict)"] = _ci(pp_ci, worst, "gap", "gap_lo", "gap_hi")
    d["n"] = [count(x) for x in worst["n"]]
    return d


def show_wild_summary(ws: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(ws)
    d["held a wild, per seat (mean)"] = [pct(x) for x in ws["held_mean"]]
    d["anyone held a wild (bounds)"] = [f"{pct(a)} – {pct(b)}" for a, b in zip(ws["any_lo"], ws["any_hi"])]
    d["loser picked by the wild rule [95% CI]"] = _by_wild(ws, "by_wild_rate", "by_wild_lo", "by_wild_hi")
    d["share of losses decided by the wild"] = _by_wild(ws, "wild_loss_share_rate", "wild_loss_share_lo",
                                                        "wild_loss_share_hi")
    d["mean points per hand [95% CI]"] = _ci(num_ci, ws, "points_mean", "points_lo", "points_hi")
    if "wild_hand_points" in ws:
        d["points: wild hands / other non-winning hands"] = [
            "–" if not np.isfinite(w) else f"{w:.1f} / {o:.1f}"
            for w, o in zip(ws["wild_hand_points"], ws["other_hand_points"])]
    d["n"] = [count(x) for x in ws["n"]]
    return d


def show_wild_positions(wp: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(wp).drop(columns="lineup")
    d["position"] = wp["position"].astype(int)
    d["strategy"] = wp["strategy"]
    marks = ["*" if wild_held_by_rule(v, p, r, u, q) else "" for v, p, r, u, q in
             zip(wp["variant"], wp["players"], wp["rules"], wp["unit"], wp["position"])]
    d["held a wild at the end [95% CI]"] = [x + m for x, m in
                                            zip(_ci(pct_ci, wp, "held_rate", "held_lo", "held_hi"), marks)]
    d["lost by the wild rule [95% CI]"] = _by_wild(wp, "by_wild_rate", "by_wild_lo", "by_wild_hi")
    d["mean points [95% CI]"] = _ci(num_ci, wp, "points_mean", "points_lo", "points_hi")
    d["n"] = [count(x) for x in wp["n"]]
    return d


def show_keeper(kvd: pd.DataFrame) -> pd.DataFrame:
    """The strategy holding wilds most against the one holding least, per group (paired intervals)."""
    d = pd.DataFrame({"variant": kvd["variant"], "players": kvd["players"], "unit": kvd["unit"],
                      "rules": kvd["rules"].map(rules_text)})
    for tag, what in (("keeper", "holds most"), ("dumper", "holds least")):
        d[what] = kvd[tag]
        d[f"{what}: held a wild"] = [pct(x) for x in kvd[f"{tag}_held_rate"]]
        d[f"{what}: дурак rate"] = [pct_ci(a, b, c) for a, b, c in
                                    zip(kvd[f"{tag}_loss_rate"], kvd[f"{tag}_loss_lo"], kvd[f"{tag}_loss_hi"])]
        d[f"{what}: lost by wild"] = _by_wild(kvd, f"{tag}_by_wild_rate")
        d[f"{what}: n"] = [count(x) for x in kvd[f"{tag}_n"]]
    d["loss difference (most − least)"] = _ci(pp_ci, kvd, "loss_diff", "loss_diff_lo", "loss_diff_hi")
    d["loss ratio"] = [num_ci(a, b, c, 3) for a, b, c in
                       zip(kvd["loss_ratio"], kvd["loss_ratio_lo"], kvd["loss_ratio_hi"])]
    d["points difference"] = [num_ci(a, b, c, 2) for a, b, c in
                              zip(kvd["points_diff"], kvd["points_diff_lo"], kvd["points_diff_hi"])]
    d["p (Holm)"] = [p_value(p) for p in kvd["p_holm"]]
    d["verdict"] = [_verdict(x) for x in kvd["distinguishable"]]
    d["the gap is the wild's?"] = [ISOLATES if x else NOT_ISOLATING for x in kvd["isolating"]]
    return d


#: Whether a keeper-minus-dumper gap isolates the wild, in the tables' words.
ISOLATES = "yes: they differ in wild handling alone"
NOT_ISOLATING = "no: they differ in more than wilds"


def show_length(length: pd.DataFrame) -> pd.DataFrame:
    d = _label_cols(length)
    match = length["unit"] == "match"
    d["n"] = [count(x) for x in length["n"]]
    d["mean turns per deal [95% CI]"] = _ci(num_ci, length, "turns_mean", "turns_lo", "turns_hi")

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
    d["first mover wins: off → on"] = [f"{pct(a)} → {pct(b)}" for a, b in zip(eff["first_off"], eff["first_on"])]
    d["change"] = _ci(pp_ci, eff, "first_diff", "first_lo", "first_hi")
    d["mean turns change"] = _ci(num_ci, eff, "turns_diff", "turns_lo", "turns_hi")
    d["blocked change"] = _ci(pp_ci, eff, "blocked_diff", "blocked_lo", "blocked_hi")
    d["capped change"] = _ci(pp_ci, eff, "capped_diff", "capped_lo", "capped_hi")
    d["loser by wild change"] = _ci(pp_ci, eff, "by_wild_diff", "by_wild_lo", "by_wild_hi")
    d["n on / off"] = [f"{count(a)} / {count(b)}" for a, b in zip(eff["n_on"], eff["n_off"])]
    return d


def show_h2h(h: pd.DataFrame) -> pd.DataFrame:
    d = pd.DataFrame({"variant": h["variant"], "players": h["players"], "unit": h["unit"],
                      "rules": h["rules"].map(rules_text), "strategy": h["strategy"], "opponent": h["opponent"]})
    d["win rate per seat [95% CI]"] = _ci(pct_ci, h, "rate", "lo", "hi")
    d["fair"] = [pct(x) for x in h["fair"]]
    d["difference"] = _ci(pp_ci, h, "diff", "lo_diff", "hi_diff")
    d["verdict"] = [_verdict(x) for x in h["distinguishable"]]
    d["n (seat-games)"] = [count(x) for x in h["n"]]
    return d



def show_jack(jq: pd.DataFrame) -> pd.DataFrame:
    """The Jack question per group and strategy: дурак rates by wilds dealt and by a wild held at the end."""
    d = pd.DataFrame({"variant": jq["variant"], "players": jq["players"], "unit": jq["unit"],
                      "rules": jq["rules"].map(rules_text), "strategy": jq["strategy"]})
    for k, name in DEALT_NAMES.items():
        d[f"дурак rate, dealt {name} [95% CI]"] = [
            pct_ci(a, b, c) if rec else "not recorded" for a, b, c, rec in
            zip(jq[f"dealt{k}_rate"], jq[f"dealt{k}_lo"], jq[f"dealt{k}_hi"], jq["recorded"])]
    d["wild rule"] = ["acts" if a else NOT_APPLICABLE for a in jq["rule_acts"]]
    d["n (seat-games)"] = [count(x) for x in jq["n"]]
    return d


def show_jack_effects(eff: pd.DataFrame) -> pd.DataFrame:
    """The Jack comparisons that isolate the wild, per group (all seats): dealt a wild against none, and a
    hand left holding a wild against hands left with as many cards (two-player cells: not compared)."""
    d = pd.DataFrame({"variant": eff["variant"], "players": eff["players"], "unit": eff["unit"],
                      "rules": eff["rules"].map(rules_text)})
    d["дурак rate, dealt a wild / none"] = [f"{pct(a)} / {pct(b)}" for a, b in
                                           zip(eff["dealt_with_rate"], eff["dealt_none_rate"])]
    d["dealt a wild − none [95% CI]"] = [pp_ci(a, b, c) for a, b, c in
                                         zip(eff["dealt_gap"], eff["dealt_gap_lo"], eff["dealt_gap_hi"])]
    d["verdict (dealt)"] = [_verdict(x) if np.isfinite(p) else "–"
                            for x, p in zip(eff["dealt_distinguishable"], eff["dealt_p_holm"])]
    d["дурак rate, held a wild / as many other cards"] = [
        f"{pct(a)} / {pct(b)}" if info and np.isfinite(b) else ("not compared (2 players)" if not info else "–")
        for a, b, info in zip(eff["held_rate"], eff["held_matched_rate"], eff["held_informative"])]
    d["held − as many other cards [95% CI]"] = [
        pp_ci(a, b, c) if info and np.isfinite(a) else "–"
        for a, b, c, info in zip(eff["held_gap"], eff["held_gap_lo"], eff["held_gap_hi"], eff["held_informative"])]
    d["verdict (held)"] = [_verdict(x) if np.isfinite(p) else "–"
                           for x, p in zip(eff["held_distinguishable"], eff["held_p_holm"])]
    d["holders"] = [count(x) for x in eff["held_n"]]
    d["wild rule"] = ["acts" if a else NOT_APPLICABLE for a in eff["rule_acts"]]
    d["n (games)"] = [count(x) for x in eff["n"]]
    return d


def show_held_strata(st: pd.DataFrame) -> pd.DataFrame:
    """Per group and cards left at the end: the дурак rate of hands holding a wild and of hands without one."""
    return pd.DataFrame({"variant": st["variant"], "players": st["players"], "unit": st["unit"],
                         "rules": st["rules"].map(rules_text), "cards left": st["left"],
                         "holding a wild [95% CI]": _ci(pct_ci, st, "held_rate", "held_lo", "held_hi"),
                         "holders": [count(x) for x in st["held_n"]],
                         "no wild [95% CI]": _ci(pct_ci, st, "free_rate", "free_lo", "free_hi"),
                         "hands": [count(x) for x in st["free_n"]]})


def show_jack_rule(eff: pd.DataFrame) -> pd.DataFrame:
    """The wild rule on against off: keeper-minus-dumper gaps, their change, the rule's cost to the keeper."""
    d = pd.DataFrame({"variant": eff["variant"], "players": eff["players"], "unit": eff["unit"],
                      "wild rule": eff["wild_rule"], "other options": eff["rules_off"].map(rules_text),
                      "keeper / dumper": [f"{a} / {b}" for a, b in zip(eff["keeper"], eff["dumper"])],
                      "the gap is the wild's?": [ISOLATES if x else NOT_ISOLATING for x in eff["isolating"]]})
    na = ~eff["rule_acts"].astype(bool)

    def col(m: str, verdict: str | None = None) -> list[str]:
        return [NOT_APPLICABLE if skip else pp_ci(a, b, c) + ("" if verdict is None else
                                                              ("" if v else " (not distinguishable)"))
                for skip, a, b, c, v in zip(na, eff[m], eff[f"{m}_lo"], eff[f"{m}_hi"],
                                            eff[verdict] if verdict else na)]
    d["дурак gap, rule on"] = col("gap_on")
    d["дурак gap, rule off"] = col("gap_off")
    d["change of the gap (on − off)"] = col("change", "change_distinguishable")
    d["keeper's дурак rate: on → off"] = ["–" if skip else f"{pct(a)} → {pct(b)}"
                                         for skip, a, b in zip(na, eff["keeper_on"], eff["keeper_off"])]
    d["the rule's cost to the keeper (on − off)"] = col("cost", "cost_distinguishable")
    d["p (Holm): change / cost"] = ["–" if skip else f"{p_value(a)} / {p_value(b)}"
                                    for skip, a, b in zip(na, eff["change_p_holm"], eff["cost_p_holm"])]
    return d
