"""``docs/findings.md``: what the committed reports say, written from their stored results.

Every number here is computed from the stored results under ``reports/`` with the
same tables (:mod:`analyzer.stats.tables`), sentence makers and formatters
(:mod:`analyzer.report.format`) the reports themselves use, so the findings page
cannot drift from the reports: ``durak findings --check`` (and a test) fails as
soon as a committed report's number and the page disagree.

Each finding names the report it comes from, gives every rate with its 95 %
interval and sample size, and says how it depends on the seed: a Monte Carlo
estimate moves within its interval with another seed; a pick (the fairest rule
set, the best strategy, a tuned preset) may change with it; an exact solution
does not depend on one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from analyzer.core.files import write_text
from analyzer.report import sentences
from analyzer.report.balance_view import balance_json
from analyzer.report.compare_view import summary_sentence
from analyzer.report.format import count, num_ci, pct, pct_ci, pp_ci
from analyzer.report.render import Block, render_md
from analyzer.report.skill_curves import raise_table, skill_table
from analyzer.report.strength_view import curve_sentence
from analyzer.stats import tables

#: Where the generated page lives, relative to the project root.
FINDINGS_PATH = Path("docs/findings.md")

#: The two-sided 95% normal quantile (the page's intervals are 95%).
Z95 = NormalDist().inv_cdf(0.975)

#: What a Monte Carlo number does under another seed.
NOISE = "another seed moves each number within its interval"


#: What the page says of a report played (in part) on the numpy simulator of earlier versions.
EARLIER_ENGINE = ("played, all or in part, on the numpy simulator of earlier versions, whose random streams were not the "
                  "kernel's: `durak run` of its file today draws other deals")


def earlier_engine(manifest: dict[str, Any]) -> bool:
    """Was the run played, in whole or in part, on the numpy simulator that earlier versions had?  A cells run's
    manifest names each cell's engine; a tournament's or a balance run's names none when it is that old (every run
    since records its engine)."""
    if "engines" in manifest:
        return "numpy" in manifest["engines"]
    return manifest.get("kind") in ("tournaments", "balance") and "engine" not in manifest


def default_engine(command: str) -> str:
    """A recorded command without the ``DURAK_ENGINE=compiled`` (or ``auto``) its run was made under: both name the
    default engine now, with the same fingerprint, so a reader runs the command as it stands."""
    for mode in ("compiled", "auto"):
        command = command.removeprefix(f"DURAK_ENGINE={mode} ")
    return command


def _where(root: Path, rel: str, seed: Any, note: str = NOISE) -> Block:
    """The line under a finding's heading: its report, how it was made, and what the seed does."""
    man = root / "reports" / rel / "manifest.json"
    manifest = json.loads(man.read_text(encoding="utf-8")) if man.exists() else {}
    command = default_engine(manifest.get("command") or "")
    made = f" (`{command}`)" if command else ""
    if earlier_engine(manifest):
        note = f"{note}; {EARLIER_ENGINE}"
    return Block("p", f"From [`reports/{rel}`](../reports/{rel}/){made}, seed {seed}: {note}.")


def _seed(root: Path, rel: str) -> Any:
    return json.loads((root / "reports" / rel / "manifest.json").read_text(encoding="utf-8")).get("seed", "–")


def _results(root: Path, rel: str) -> tables.Results:
    return tables.load_results(root / "reports" / rel)


def _ratio(x: float, lo: float, hi: float) -> str:
    return f"{num_ci(x, lo, hi, 2)}×"


# ---------------------------------------------------------------- going first

def same_verdict_again(diff: float, lo: float, hi: float, distinguishable: bool) -> float:
    """The chance that an independent run of the same size gives the same verdict, by plug-in: its estimate
    taken as normal around this one with the standard error this interval implies, and called distinguishable
    outside +-1.96 of those errors.  A verdict near the line (an interval ending close to zero) is one another
    seed may turn, and the page says how likely that is."""
    se = (hi - lo) / (2 * Z95)
    if not se > 0:
        return 1.0
    run = NormalDist(diff, se)
    outside = run.cdf(-Z95 * se) + 1.0 - run.cdf(Z95 * se)
    return outside if distinguishable else 1.0 - outside


def _first_mover_table(res: tables.Results, with_fairness: bool) -> pd.DataFrame:
    fpa = tables.first_player_advantage(res, pooled=True)
    rows = []
    fair = tables.seat_fairness(res, pooled=True).set_index("label") if with_fairness else None
    for _, r in fpa.iterrows():
        row = {"variant": r["variant"], "players": int(r["players"]),
               "the first mover": sentences.seat_name(int(r["first_position"]), r["variant"], int(r["players"]),
                                                      mark_first=False),
               "wins [95% CI]": pct_ci(r["rate"], r["lo"], r["hi"]), "fair share": pct(r["fair"]),
               "× fair share": _ratio(r["ratio"], r["ratio_lo"], r["ratio_hi"]),
               "advantage": pp_ci(r["diff"], r["diff_lo"], r["diff_hi"]),
               "verdict": "distinguishable" if r["distinguishable"] else "not distinguishable",
               "same verdict on another seed": pct(same_verdict_again(r["diff"], r["diff_lo"], r["diff_hi"],
                                                                      bool(r["distinguishable"])))}
        if fair is not None:
            f = fair.loc[r["label"]]
            row["seat fairness (every seat, wins and дурак)"] = (
                f"{100 * f['fairness']:.1f} pp [{100 * f['fairness_lo']:.1f}, {100 * f['fairness_hi']:.1f}]")
        row["deals"] = count(float(r["n"]))
        rows.append(row)
    return pd.DataFrame(rows)


def going_first(root: Path) -> list[Block]:
    res = _results(root, "first_player")
    strong = _results(root, "skill/strong")
    return [
        Block("h2", "Going first"),
        Block("p", "The first mover plays the deal's first card: position 0 (left of the dealer) in czech (CZ3), "
                   "the dealer's opponent in svinya (SV2), and **the dealer** in prague (PR2). Seat fairness is the "
                   "largest deviation of any seat's win or дурак share from the fair share 1/players "
                   "(`analyzer/stats/fairness.py`)."),
        Block("p", "A verdict near the line can turn with the seed: \"same verdict on another seed\" is, by "
                   "plug-in, the chance that an independent run of the same size reaches the same verdict."),
        Block("h3", "Under random play"),
        _where(root, "first_player", _seed(root, "first_player")),
        Block("table", _first_mover_table(res, with_fairness=True)),
        Block("h3", "Under strong play (pimc in every seat)"),
        _where(root, "skill/strong", _seed(root, "skill/strong")),
        Block("table", _first_mover_table(strong, with_fairness=False)),
    ]


def skill_and_going_first(root: Path) -> list[Block]:
    res = _results(root, "skill_curves")
    st = skill_table(res)
    rt = raise_table(st)
    steps = list(dict.fromkeys(st["label"]))
    rows = []
    for group, g in st.groupby("group", sort=False):
        by = g.set_index("label")
        row: dict[str, str] = {"table": str(group)}
        for step in steps:  # a step the file plays at other player counts only (ladder_players): a dash
            if step in by.index:
                s = by.loc[step]
                row[step] = pp_ci(s["diff"], s["diff_lo"], s["diff_hi"])
            else:
                row[step] = "–"
        row["decided deals a step"] = count(float(g["first_n"].min()))
        rows.append(row)
    raises = []
    for _, r in rt[rt["against_kind"] == "weakest"].iterrows():
        verdict = "distinguishable" if r["distinguishable"] else "not distinguishable"
        raises.append({"table": r["group"], "step": r["top"], "change from random play":
                       pp_ci(r["change"], r["change_lo"], r["change_hi"]),
                       "Holm p": f"{r['p_holm']:.2g}", "verdict": verdict})
    return [
        Block("h3", "As skill rises (the same strategy in every seat)"),
        _where(root, "skill_curves", _seed(root, "skill_curves")),
        Block("p", "The first mover's win rate over the fair share at each step of the ladder; every deck is dealt "
                   "once per seat rotation, so the luck of the deal cancels and the interval is over decks."),
        Block("table", pd.DataFrame(rows)),
        Block("p", "Does skill raise the edge? The strongest steps against random play (Holm over the table):"),
        Block("table", pd.DataFrame(raises)),
        Block("p", "The Jack as skill rises: a seat dealt one or more wilds against one dealt none (its дурак rate, "
                   "dealt − none), and a hand left holding a wild against hands left with as many other cards "
                   "(not at two players):"),
        Block("table", _jack_steps(st, [steps[0], *steps[-2:]])),
    ]


def _jack_steps(st: pd.DataFrame, steps: list[str]) -> pd.DataFrame:
    rows = []
    for group, g in st.groupby("group", sort=False):
        by = g.set_index("label")
        for step in steps:
            if step not in by.index:
                continue
            s = by.loc[step]
            held = (pp_ci(s["held_gap"], s["held_gap_lo"], s["held_gap_hi"])
                    if s["held_informative"] and np.isfinite(s["held_gap"]) else "–")
            rows.append({"table": str(group), "players in every seat": step,
                         "dealt a wild − none": pp_ci(s["dealt_gap"], s["dealt_gap_lo"], s["dealt_gap_hi"]),
                         "left holding one − as many other cards": held,
                         "seat-deals": count(float(s["dealt0_n"] + s["dealt1_n"] + s["dealt2_n"]))})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- the Jack

def _dealt_table(iso: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame([{
        "variant": r["variant"], "players": int(r["players"]), "unit": r["unit"],
        "дурак rate, dealt none": pct(r["dealt_none_rate"]), "dealt one or more": pct(r["dealt_with_rate"]),
        "difference [95% CI]": pp_ci(r["dealt_gap"], r["dealt_gap_lo"], r["dealt_gap_hi"]),
        "seat-games": count(float(r["n"]))} for _, r in iso.iterrows()])


def _held_table(iso: pd.DataFrame) -> pd.DataFrame:
    held = iso[iso["held_informative"].astype(bool) & np.isfinite(iso["held_gap"].astype(float))]
    return pd.DataFrame([{
        "variant": r["variant"], "players": int(r["players"]), "unit": r["unit"], "rules": r["rules"],
        "left holding a wild: дурак": pct(r["held_rate"]), "as many other cards": pct(r["held_matched_rate"]),
        "difference [95% CI]": pp_ci(r["held_gap"], r["held_gap_lo"], r["held_gap_hi"]),
        "holders": count(float(r["held_n"]))} for _, r in held.iterrows()])


def the_jack(root: Path) -> list[Block]:
    res = _results(root, "first_player")
    strong = _results(root, "skill/strong")
    iso, iso_strong = tables.jack_effects(res), tables.jack_effects(strong)
    return [
        Block("h2", "The Jack (the wild)"),
        Block("h3", "Being dealt one"),
        Block("p", "A seat dealt one or more wilds against one dealt none: the shuffle decides who gets one, so "
                   "nothing else differs on average."),
        _where(root, "first_player", _seed(root, "first_player")),
        Block("table", _dealt_table(iso)),
        _where(root, "skill/strong", _seed(root, "skill/strong")),
        Block("table", _dealt_table(iso_strong)),
        Block("h3", "Left holding one at the end, like with like"),
        Block("p", "A hand left holding a wild against hands left with as many other cards. A description, not a "
                   "cause (who ends holding one is not random); never at two players, where the one hand left with "
                   "cards is the дурак whatever it holds. In czech single deals CZ7 cannot act, so a held Jack "
                   "costs only its points."),
        _where(root, "first_player", _seed(root, "first_player")),
        Block("table", _held_table(iso)),
        *keeping(root),
        *jack_rule(root),
    ]


def keeping(root: Path) -> list[Block]:
    kvd = tables.keeper_vs_dumper(_results(root, "wild_penalty"))
    kvd = kvd[kvd["isolating"].astype(bool)]
    rows = [{"variant": r["variant"], "players": int(r["players"]), "unit": r["unit"],
             "keeper's дурак rate": pct_ci(r["keeper_loss_rate"], r["keeper_loss_lo"], r["keeper_loss_hi"]),
             "shedder's": pct_ci(r["dumper_loss_rate"], r["dumper_loss_lo"], r["dumper_loss_hi"]),
             "keeping − shedding (paired)": pp_ci(r["loss_diff"], r["loss_diff_lo"], r["loss_diff_hi"]),
             "games": count(float(r["keeper_n"]))} for _, r in kvd.iterrows()]
    return [
        Block("h3", "Keeping it against shedding it"),
        Block("p", "`wild-keeper` against `wild-dumper`, which play `greedy`'s moves but for when the wild goes, on "
                   "the same deals (paired)."),
        _where(root, "wild_penalty", _seed(root, "wild_penalty")),
        Block("table", pd.DataFrame(rows)),
    ]


def _rule_table(eff: pd.DataFrame) -> pd.DataFrame:
    eff = eff[eff["rule_acts"].astype(bool)]
    return pd.DataFrame([{
        "variant": r["variant"], "players": int(r["players"]), "unit": r["unit"], "wild rule": r["wild_rule"],
        "keeping − shedding, rule on": pp_ci(r["gap_on"], r["gap_on_lo"], r["gap_on_hi"]),
        "rule off": pp_ci(r["gap_off"], r["gap_off_lo"], r["gap_off_hi"]),
        "the rule's cost to the keeper": pp_ci(r["cost"], r["cost_lo"], r["cost_hi"]),
        "games on / off": f"{count(float(r['n_on']))} / {count(float(r['n_off']))}"} for _, r in eff.iterrows()])


def _picked_table(root: Path, rels: list[str]) -> pd.DataFrame:
    rows = []
    for rel in rels:
        for _, r in skill_table(_results(root, rel)).iterrows():
            if not r["rule_acts"]:
                continue
            rows.append({"report": f"reports/{rel}", "table": r["group"], "players in every seat": r["label"],
                         "the rule picked the дурак": pct_ci(r["by_wild_rate"], r["by_wild_lo"], r["by_wild_hi"]),
                         "games": count(float(r["first_n"]))})
    return pd.DataFrame(rows)


def jack_rule(root: Path) -> list[Block]:
    eff = tables.jack_rule_effect(_results(root, "wild_rule"))
    strong = ["skill/jack_rule", "skill/jack_rule_matches"]
    iso = pd.concat([tables.jack_effects(_results(root, rel)) for rel in strong], ignore_index=True)
    return [
        Block("h3", "What the Jack rule costs"),
        Block("p", "The same two strategies with the wild rule (PR7 every deal, CZ7 a match's last deal) on and "
                   "off; the rule's cost is the keeper's дурак rate on − off, the causal part."),
        _where(root, "wild_rule", _seed(root, "wild_rule")),
        Block("table", _rule_table(eff)),
        Block("p", "Among searching players (pimc in every seat), how often the rule picks the дурак, and the "
                   "held Jack like with like with the rule on and off:"),
        _where(root, "skill/jack_rule", _seed(root, "skill/jack_rule")),
        _where(root, "skill/jack_rule_matches", _seed(root, "skill/jack_rule_matches")),
        Block("table", _picked_table(root, strong)),
        Block("table", _held_table(iso)),
    ]


# ---------------------------------------------------------------- strategies

def _tournaments(root: Path, rel: str) -> list[dict[str, Any]]:
    return list(json.loads((root / "reports" / rel / "results" / "tournaments.json").read_text(encoding="utf-8")))


def strategies(root: Path) -> list[Block]:
    won = _tournaments(root, "strategies")
    skill = _tournaments(root, "skill")
    pick = "which strategy ranks first may change with the seed where two are within each other's intervals"
    return [
        Block("h2", "Which strategy wins"),
        Block("p", "Round-robin at two players (Bradley–Terry ratings on the Elo scale, bootstrap intervals over "
                   "decks), hero at four (each strategy in every seat against three copies of `weighted`); "
                   "duplicate decks, both seatings."),
        Block("h3", "The built-ins and the tuned presets"),
        _where(root, "strategies", won[0]["seed"], f"{NOISE}; {pick}"),
        Block("list", [f"{summary_sentence(t)} {count(float(t['n_decks']))} decks." for t in won]),
        Block("h3", "How much skill matters: card counting and search"),
        _where(root, "skill", skill[0]["seed"], f"{NOISE}; {pick}"),
        Block("list", [f"{summary_sentence(t)} {count(float(t['n_decks']))} decks; the order: "
                       + ", ".join(_order(t)) + "." for t in skill]),
    ]


def _order(t: dict[str, Any]) -> list[str]:
    if t["design"] == "round-robin":
        return [f"{r['strategy']} {r['rating']:+.0f}" for r in t["ratings"]]
    return [f"{r['strategy']} {pct(r['win_rate'])}" for r in t["ranking"]]


def tuned(root: Path) -> list[Block]:
    rows = []
    for d in sorted((root / "reports" / "tuning").iterdir()) if (root / "reports" / "tuning").is_dir() else []:
        t = json.loads((d / "tune.json").read_text(encoding="utf-8"))
        h = json.loads(t["holdout"]) if isinstance(t["holdout"], str) else t["holdout"]
        rows.append({"report": f"[`reports/tuning/{d.name}`](../reports/tuning/{d.name}/)", "tuned": t["title"],
                     "margin over the start, hold-out decks": pp_ci(h["margin"], h["lo"], h["hi"]),
                     "hold-out decks": count(float(h["n_decks"])), "made by": f"`{t['command']}`" if t.get("command") else "–"})
    return [
        Block("h3", "The tuned presets"),
        Block("p", "`durak tune` (CMA-ES on duplicate decks), each checked against its starting weights on fresh "
                   "hold-out decks, so no winner's curse. The weights found depend on the seed (the command's "
                   "`--seed`); the hold-out margin is a Monte Carlo estimate of what they gain."),
        Block("table", pd.DataFrame(rows)),
    ]


# ---------------------------------------------------------------- rule balance

def _fair(x: float, lo: float, hi: float) -> str:
    return f"{100 * x:.1f} pp [{100 * lo:.1f}, {100 * hi:.1f}]"


def balance(root: Path) -> list[Block]:
    out: list[Block] = [
        Block("h2", "Rule balance: the fairest and the most skilful house rules"),
        Block("p", "`durak balance`: at the fair table (the strong player in every seat), seat fairness is the "
                   "largest deviation of any seat's win or дурак share from 1/players; the skill gap is the strong "
                   "player against `random`. The picks are measured again on report decks that played no part in "
                   "choosing them."),
    ]
    for d in sorted(f.parents[1] for f in (root / "reports").glob("balance_*/results/balance.json")):  # finished runs
        j = balance_json(d)
        info = json.loads((d / "results" / "balance.json").read_text(encoding="utf-8"))
        rows = []
        for r in j["rule_sets"]:
            if not (r["reference"] or r["picked"]):
                continue
            rows.append({"rules": r["rules"], "why": "the reference" if r["reference"] else r["picked"],
                         "seat fairness": _fair(r["fairness"], r["fairness_lo"], r["fairness_hi"]),
                         "first mover": pp_ci(r["first_mover"], r["first_mover_lo"], r["first_mover_hi"]),
                         "skill gap": pp_ci(r["skill"], r["skill_lo"], r["skill_hi"]),
                         "turns a deal": f"{r['turns']:.0f}", "report decks": count(float(r["n_decks"]))})
        rows.sort(key=lambda x: x["why"] != "the reference")
        out += [Block("h3", f"{j['variant']} {j['players']}p"),
                _where(root, d.name, info["space"].get("seed", "–"),
                       f"{NOISE}; which rule sets are picked can change with the seed where their intervals overlap; "
                       f"{count(float(info['deals']))} deals played"),
                Block("table", pd.DataFrame(rows))]
    return out


# ---------------------------------------------------------------- perfect play

def perfect(root: Path) -> list[Block]:
    rows = []
    base = root / "reports" / "perfect"
    for d in sorted(f.parent for f in base.glob("*/solve.json")):  # one folder a solved size (and their index page)
        s = json.loads((d / "solve.json").read_text(encoding="utf-8"))
        strategies = s["strategies"]
        # exact (one pass, deterministic or exactly known) and sampled (draws of pimc, ismcts: a loss with its
        # interval) apart: the least of noisy estimates is not picked against exact values
        exact = {k: v["loss"] for k, v in strategies.items() if "loss_interval" not in v}
        sampled = {k: v["loss"] for k, v in strategies.items() if "loss_interval" in v}
        best = min(exact, key=lambda k: exact[k])
        rows.append({"report": f"[`reports/perfect/{d.name}`](../reports/perfect/{d.name}/)",
                     "game": f"{s['variant']}, {s['deck']} cards ({s['cards']}), hands of {s['hand']}, "
                             f"{s.get('turn_cap', 12)}-turn cap",
                     "first mover's value": num_ci(s["first_mover_value"], np.nan, np.nan, 3),
                     "exploitability of the solution": num_ci(s["exploitability"], np.nan, np.nan, 4),
                     "least loss, measured exactly": f"{best} {num_ci(exact[best], np.nan, np.nan, 3)}",
                     "search players' loss, sampled": ", ".join(
                         f"{k} {num_ci(v, strategies[k]['loss_interval'][0], strategies[k]['loss_interval'][1], 3)}"
                         for k, v in sampled.items()) or "—",
                     "random's loss": num_ci(exact.get("random", np.nan), np.nan, np.nan, 3)})
    return [
        Block("h2", "Perfect play on small games"),
        Block("p", "`durak solve` solves a research size (a short deck of whole ranks, two players, a turn cap; "
                   "not a RULES.md game) exactly with CFR+. Values are in stakes a deal (+1 a win, −1 a loss) for "
                   "the first mover; a strategy's loss is what it gives up a deal against the equilibrium. Exact: "
                   "no seed is involved. More in [perfect_play.md](perfect_play.md)."),
        Block("table", pd.DataFrame(rows)),
    ]


# ---------------------------------------------------------------- strength by budget

def strength(root: Path) -> list[Block]:
    """The search players' strength curves (reports/strength), where that report is committed."""
    if not (root / "reports" / "strength" / "results" / "tournaments.json").is_file():
        return []
    runs = _tournaments(root, "strength")
    said = [f"**{t['variant']} {t['players']}p** ({count(float(t['n_decks']))} decks a pair): {curve_sentence(c)}"
            for t in runs for c in t.get("strength", [])]
    return [
        Block("h2", "How strength grows with the search budget"),
        Block("p", "pimc and ismcts at a quarter, one, four and sixteen times their default budget, each against the "
                   "tuned preset and against the other family at the same step, on the same duplicate decks (a "
                   "step's gain over the one before is paired deck by deck). More in "
                   "[perfect_play.md](perfect_play.md)."),
        _where(root, "strength", runs[0]["seed"]),
        Block("list", said),
    ]


# ---------------------------------------------------------------- capped deals

def capped(root: Path) -> list[Block]:
    said = []
    for rel in ("first_player", "skill_curves", "skill/strong", "wild_penalty", "wild_rule"):
        for w in sentences.capped_warnings(tables.game_length(_results(root, rel))):
            said.append(f"`reports/{rel}`: {w.strip('*')}")
    return [Block("h2", "Deals that hit the turn cap"),
            Block("p", "A deal stopped by the turn cap (G10) has no winner or loser; a cell where more than 0.1% "
                       "of deals were capped is flagged, its rates biased:"),
            Block("list", said or ["none of the reports listed here has such a cell."])]


#: The page's sections, in order.
PARTS: tuple[Callable[[Path], list[Block]], ...] = (
    going_first, skill_and_going_first, the_jack, strategies, tuned, balance, perfect, strength, capped)


def findings_blocks(root: Path) -> list[Block]:
    """Every block of the page, from the reports under ``root / 'reports'``."""
    blocks = [Block("h1", "What the committed reports say"),
              Block("p", "Generated by `durak findings` from the stored results under `reports/`; do not edit by "
                         "hand (`durak findings --check` fails when this page and the reports disagree). Every rate "
                         "has its 95% interval and its sample size; differences are in percentage points (pp).")]
    for part in PARTS:
        blocks += part(root)
    return blocks


def findings_markdown(root: str | Path = ".") -> str:
    """The text of ``docs/findings.md`` for the project at ``root``."""
    r = Path(root)
    return render_md(findings_blocks(r), r / "docs")


def write_findings(root: str | Path = ".", out: str | Path | None = None) -> Path:
    """Write the page (``root/docs/findings.md`` unless ``out``); returns where."""
    r = Path(root)
    path = Path(out) if out is not None else r / FINDINGS_PATH
    write_text(path, findings_markdown(r))
    return path


def check_findings(root: str | Path = ".", path: str | Path | None = None) -> bool:
    """Whether the committed page equals what the reports give now."""
    r = Path(root)
    p = Path(path) if path is not None else r / FINDINGS_PATH
    return p.exists() and p.read_text(encoding="utf-8") == findings_markdown(r)
