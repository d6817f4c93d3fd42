"""The report's answers as plain sentences, generated from the stats tables.

Each sentence carries its 95 % interval and sample size, and says "not
distinguishable" wherever the verdict of the table says so; nothing is
computed here that the tables do not hold, except the wording.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from analyzer.core.rules import (
    FIRST_MOVER,
    FIRST_MOVER_RULE,
    dealer_position,
    describe_options,
    first_mover_position,
    first_mover_text,
)
from analyzer.report.format import change, count, num_ci, p_value, pct, pct_ci, pp_ci
from analyzer.stats import tables
from analyzer.stats.tables import rules_text


def split_lineup(text: str) -> list[str]:
    """The specs of a stored line-up ("a,b?x=1,y=2,c"): a piece ``key=value`` without a ``?`` continues the
    previous spec's parameters (``pimc?budget=4000,worlds=64`` is one strategy, not two)."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if out and "?" in out[-1] and "=" in piece and "?" not in piece:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def seat_name(k: int, variant: str, players: int, mark_first: bool = True) -> str:
    """``position 3 (the dealer, the first mover)``: a position with who sits there (``mark_first``: and whether
    it plays the deal's first card)."""
    roles = []
    if k == dealer_position(players):
        roles.append("the dealer")
    elif k == 0:
        roles.append("the dealer's opponent" if variant == "svinya" else "left of the dealer")
    if mark_first and k == first_mover_position(variant, players):
        roles.append("the first mover")
    return f"position {k}" + (f" ({', '.join(roles)})" if roles else "")


def seats_sentence(variant: str, players: int, win: Any, win_lo: Any, win_hi: Any, durak: Any, durak_lo: Any,
                   durak_hi: Any, intro: bool = True) -> str:
    """Who goes first (``intro``), and which seat (if any) is advantaged on wins and on the дурак, every share with
    its 95 % interval (each seat's own); "no seat" where every interval holds the fair share."""
    fair = 1.0 / players
    w, wl, wh, d, dl, dh = (np.asarray(x, np.float64) for x in (win, win_lo, win_hi, durak, durak_lo, durak_hi))
    k = int(np.nanargmax(w))
    on_wins = (f"{seat_name(k, variant, players)} wins most, {pct_ci(w[k], wl[k], wh[k])} of decided deals"
               if wl[k] > fair else f"no seat wins distinguishably more than the fair {pct(fair)}")
    j = int(np.nanargmin(d))
    on_durak = (f"{seat_name(j, variant, players)} is the дурак least, {pct_ci(d[j], dl[j], dh[j])}"
                if dh[j] < fair else f"no seat is distinguishably less often the дурак than the fair {pct(fair)}")
    m = int(np.nanargmax(d))
    worst = (f"; {seat_name(m, variant, players)} is the дурак most, {pct_ci(d[m], dl[m], dh[m])}"
             if dl[m] > fair else "")
    fm = first_mover_position(variant, players)
    who = f"The first mover is {first_mover_text(variant, players)}: it" if intro else "The first mover"
    first = (f"{who} wins {pct_ci(w[fm], wl[fm], wh[fm])} and is the дурак {pct_ci(d[fm], dl[fm], dh[fm])} "
             f"(fair {pct(fair)}).")
    return f"{first} On wins {on_wins}; on the дурак {on_durak}{worst}."


def capped_clause(r: Any) -> str:
    """Where capped deals (G10, no winner) could move a rate beyond its interval: its worst-case bounds, and
    whether the verdict depends on how they are scored; else nothing."""
    if not bool(r.get("capped_matters", False)):
        return ""
    text = (f" Capped deals are left out; counted all as losses or all as wins the rate would be "
            f"{pct(r['capped_worst_lo'])} to {pct(r['capped_worst_hi'])}")
    return text + (": the verdict depends on how they are scored." if r.get("capped_verdict") else ".")


def fairness_sentences(sf: pd.DataFrame) -> list[str]:
    """One sentence per row of :func:`analyzer.stats.tables.seat_fairness`: the largest deviation of any seat on
    wins or the дурак, with its interval (simultaneous over the seats), the seat and outcome that attain it."""
    out = []
    for _, r in sf.iterrows():
        k, o, players = int(r["fairness_seat"]), str(r["fairness_outcome"]), int(r["players"])
        share = pct_ci(r[f"{o}{k}"], r[f"{o}{k}_lo"], r[f"{o}{k}_hi"])
        verdict = "distinguishably unfair" if r["fairness_lo"] > 0 else "not distinguishable from fair"
        out.append(f"{where(r)} seat fairness is {100 * r['fairness']:.1f} pp [{100 * r['fairness_lo']:.1f}, "
                   f"{100 * r['fairness_hi']:.1f}] ({verdict}): the largest deviation is "
                   f"{seat_name(k, str(r['variant']), players)}, which "
                   f"{'wins' if o == 'win' else 'is the дурак'} {share} of decided {_plural(r['unit'])} against "
                   f"the fair {pct(1 / players)}.")
    return out


def _favoured(g: pd.DataFrame, column: str, variant: str) -> str:
    """``the first mover (2p, 3p); no seat (4p)``: the seat in ``column`` at each player count, counts grouped."""
    counts: dict[str, list[str]] = {}
    for _, r in g.iterrows():
        k, players = int(r[column]), int(r["players"])
        label = ("no seat" if k < 0 else "the first mover" if k == first_mover_position(variant, players)
                 else seat_name(k, variant, players))
        counts.setdefault(label, []).append(f"{players}p")
    return "; ".join(f"{label} ({', '.join(ps)})" for label, ps in counts.items())


def seat_lines(sf: pd.DataFrame) -> list[str]:
    """Per variant of a :func:`analyzer.stats.tables.seat_fairness` table: who the first mover is, and which seat
    is favoured on wins and on the дурак at each player count ("no seat" where no interval excludes the fair
    share)."""
    out = []
    for v, g in sf.sort_values(["variant", "players"]).groupby("variant", sort=False):
        variant = str(v)
        out.append(f"In **{variant}** the first mover is {FIRST_MOVER[variant]} ({FIRST_MOVER_RULE[variant]}). "
                   f"Favoured on wins: {_favoured(g, 'win_seat', variant)}. Least often the дурак: "
                   f"{_favoured(g, 'durak_seat', variant)} (95% intervals per seat).")
    return out


def where(row: Any) -> str:
    """'In czech with 2 players (sevens=True; lineup a, b)' — the cell as a sentence opening."""
    extra = []
    r = rules_text(str(row["rules"]))
    if r != "default rules":
        extra.append(r)
    seatings = row.get("seatings", 1)
    if isinstance(seatings, (int, float, np.integer)) and seatings > 1:
        extra.append(f"{row['strategies'].replace(', ', ' and ')} rotated over {int(seatings)} seatings")
    else:
        lineup = split_lineup(str(row.get("lineup", "")))
        if lineup and len(set(lineup)) > 1:
            extra.append("lineup " + ", ".join(lineup))
    tail = f" ({'; '.join(extra)})" if extra else ""
    return f"In {row['variant']} with {int(row['players'])} players{tail}"


_LINEUP = re.compile(r"(; |\()((?:lineup [^;()]+)|(?:[^;()]+ rotated over \d+ seatings))\)")


def name_once(lines: list[str]) -> list[str]:
    """Say a line-up shared by every sentence once, in a lead line, instead of in each.

    ``where`` ends a cell's opening with its line-up ("(sevens=on; a and b rotated over 2 seatings)");
    when every line names the same one, it is cut from each and said first.
    """
    found = [_LINEUP.search(line) for line in lines]
    if len(lines) < 2 or not all(found) or len({m.group(2) for m in found if m}) != 1:
        return lines
    lineup = found[0].group(2) if found[0] else ""
    cut = [re.sub(r" {2,}", " ", _LINEUP.sub(lambda m: ")" if m.group(1) == "; " else "", line, count=1))
           for line in lines]
    if lineup.startswith("lineup "):
        lead = f"Every cell below plays the lineup {lineup.removeprefix('lineup ')}."
    else:
        lead = f"Every cell below seats {lineup.replace(' rotated over', ', rotated over')}."
    return [lead, *cut]


def group_where(row: Any) -> str:
    r = rules_text(str(row["rules"]))
    tail = f" ({r})" if r != "default rules" else ""
    return f"In {row['variant']} with {int(row['players'])} players{tail}"



def _seated(stored: str) -> str:
    """', lineup a, b' for a stored line-up, or ', a in every seat' when every seat plays the same spec."""
    lineup = split_lineup(stored)
    if not lineup:
        return ""
    return f", {lineup[0]} in every seat" if len(set(lineup)) == 1 else ", lineup " + ", ".join(lineup)


def capped_warnings(length: pd.DataFrame) -> list[str]:
    """Loud lines for every cell whose capped share of deals exceeds 0.1 % (G10)."""
    out = []
    for _, r in length[length["capped_alarm"]].iterrows():
        out.append(f"**WARNING: {r['label']} ({_plural(r['unit'])}{_seated(str(r['lineup']))}): "
                   f"{pct_ci(r['capped_rate'], r['capped_lo'], r['capped_hi'])} of deals hit the turn cap "
                   f"({count(r['capped'])} of {count(r['deals_sum'])} deals), above the 0.1% limit. "
                   f"Capped deals have no winner or loser, so this cell's rates are biased.**")
    return out


def first_player_sentences(fpa: pd.DataFrame) -> list[str]:
    out = []
    for _, r in fpa.iterrows():
        who = seat_name(int(r["first_position"]), str(r["variant"]), int(r["players"]), mark_first=False)
        s = (f"{where(r)} the first mover, {who}, wins {pct_ci(r['rate'], r['lo'], r['hi'])} of "
             f"{_plural(r['unit'])}")
        s += f" against a fair {pct(r['fair'])} (n={count(r['n'])})"
        if r["distinguishable"]:
            s += f": {r['ratio']:.2f}× the fair share ({pp_ci(r['diff'], r['diff_lo'], r['diff_hi'])})."
        else:
            s += ": not distinguishable from fair."
        s += capped_clause(r)
        out.append(s)
    return out


def _plural(unit: str) -> str:
    return "matches" if unit == "match" else f"{unit}s"


def worst_sentences(worst: pd.DataFrame) -> list[str]:
    out = []
    for _, r in worst.iterrows():
        s = (f"{where(r)} position {r['worst_position']} is worst off: it is the дурак in "
             f"{pct_ci(r['loss_rate'], r['loss_lo'], r['loss_hi'])} of {_plural(r['unit'])} "
             f"(fair {pct(r['fair'])}, n={count(r['n'])})")
        if r["runner_up"] >= 0:
            # both seats are picked from these data, so the gap is shown without a verdict
            s += (f", {pp_ci(r['gap'], r['gap_lo'], r['gap_hi'])} above position {r['runner_up']} "
                  f"({pct(r['runner_up_rate'])}; the seats are ranked on these same games, so this gap "
                  "is no test).")
        else:
            s += "."
        out.append(s)
    return out


def wild_sentences(ws: pd.DataFrame) -> list[str]:
    out = []
    for _, r in ws.iterrows():
        u = _plural(r["unit"])
        if not tables.rule_acts(str(r["variant"]), str(r["rules"]), str(r["unit"])):
            s = f"{where(r)}, {_unit_words(str(r['unit']))}, {no_rule(str(r['variant']), str(r['rules']))}"
            s += f" (n={count(r['n'])})"
        else:
            s = (f"{where(r)} the wild rule, not the points, picked the loser in "
                 f"{pct_ci(r['by_wild_rate'], r['by_wild_lo'], r['by_wild_hi'])} of {u} "
                 f"({pct(r['wild_loss_share_rate'])} of all losses; n={count(r['n'])})")
        if "wild_hand_points" in r and np.isfinite(r.get("wild_hand_points", np.nan)):
            s += (f"; a wild was left in some hand at the end of {pct(r['any_lo'])} of {u}, "
                  f"and such hands averaged {r['wild_hand_points']:.1f} points against "
                  f"{r['other_hand_points']:.1f} for the other hands that did not win.")
        elif abs(r["any_hi"] - r["any_lo"]) < 1e-12:
            s += f"; a wild was left in a hand at the end of {pct(r['any_lo'])} of {u}."
        else:
            s += (f"; a wild was left in some hand at the end of between {pct(r['any_lo'])} and "
                  f"{pct(r['any_hi'])} of {u} ({pct(r['held_mean'])} per seat).")
        out.append(s)
    return out


#: Where an experiment seats no pair that isolates the wild, the report points here.
WILD_PAIR_EXPERIMENT = ("experiments/wild_penalty.toml (wild-keeper against wild-dumper, which play greedy's moves "
                        "but for when the wild goes; report in reports/wild_penalty)")


def keeper_sentences(kvd: pd.DataFrame) -> list[str]:
    """Holding against shedding wilds: per group, the strategy that ends holding a wild most often against
    the one holding least (read off the data).  Only a pair that differs in wild handling alone
    (``isolating``) has its дурак gap read as the wild's, with its paired interval; for any other pair the
    sentence says the gap is the strategies' whole difference and names the experiment that isolates it."""
    out = []
    for _, r in kvd.iterrows():
        u = _plural(r["unit"])
        keeper, dumper = r["keeper"], r["dumper"]
        held = (f"{keeper} ends holding a wild most often ({pct(r['keeper_held_rate'])} of its seat-{u}) and "
                f"{dumper} least often ({pct(r['dumper_held_rate'])})")
        if not bool(r.get("isolating", False)):
            out.append(f"{group_where(r)} {held}; the two differ in more than wild handling, so their дурак gap "
                       f"is their whole difference in play, not the wild's (see which strategy wins); "
                       "experiments/wild_penalty.toml isolates it.")
            continue
        s = (f"{group_where(r)} {held}, and they differ in wild handling alone; {keeper} loses "
             f"{pct_ci(r['keeper_loss_rate'], r['keeper_loss_lo'], r['keeper_loss_hi'])} of {u} and {dumper} "
             f"{pct_ci(r['dumper_loss_rate'], r['dumper_loss_lo'], r['dumper_loss_hi'])} "
             f"(n={count(r['keeper_n'])} and {count(r['dumper_n'])} seat-{u}, sharing the same {u})")
        diff = pp_ci(r["loss_diff"], r["loss_diff_lo"], r["loss_diff_hi"])
        if r["distinguishable"]:
            way = "raises" if r["loss_diff"] > 0 else "lowers"
            s += (f": keeping wilds {way} the дурак rate by {diff} ({r['loss_ratio']:.2f}× {dumper}'s; "
                  f"Holm p {p_value(r['p_holm'])}).")
        else:
            s += f": the difference {diff} is not distinguishable from 0 (Holm p {p_value(r['p_holm'])})."
        out.append(s)
    return out


def strategy_sentences(ws: pd.DataFrame, pairs: pd.DataFrame) -> list[str]:
    """Which strategy wins: the ranking per variant, players, unit and rules (seats pooled).

    The top two are compared on the paired difference of their win rates
    (``pairs``: :func:`analyzer.stats.paired.strategy_pairs`, Holm over all
    pairs); only where the interval and the Holm p-value agree is a winner named.
    """
    out = []
    wins = ws[ws["outcome"] == "win"]
    look = {(*k, a, b): r for (k, a, b, r) in
            ((tuple(r[c] for c in tables.GROUP_COLUMNS), r["a"], r["b"], r) for _, r in pairs.iterrows())}
    for key, g in wins.groupby(tables.GROUP_COLUMNS, dropna=False, sort=True):
        if g["strategy"].nunique() < 2:
            continue
        g = g.sort_values("rate", ascending=False)
        r0 = g.iloc[0]
        u = _plural(str(r0["unit"]))
        ranking = ", ".join(f"{r['strategy']} {pct_ci(r['rate'], r['lo'], r['hi'])}" for _, r in g.iterrows())
        a, b = str(g.iloc[0]["strategy"]), str(g.iloc[1]["strategy"])
        pr = look[(*key, *sorted((a, b)))]
        sign = 1.0 if pr["a"] == a else -1.0  # a − b with a the leader
        lo, hi = sorted((sign * pr["lo"], sign * pr["hi"]))
        d = pp_ci(sign * pr["diff"], lo, hi)
        if pr["distinguishable"]:
            verdict = f"{a} wins most, {d} ahead of {b} (paired, Holm p {p_value(pr['p_holm'])})"
        else:
            verdict = f"{a} and {b} are not distinguishable ({d}, Holm p {p_value(pr['p_holm'])})"
        out.append(f"{group_where(r0)}: {verdict}. Win rate per seat-{r0['unit']}, seats pooled: {ranking} "
                   f"(fair {pct(r0['fair'])}; n={count(r0['n'])} seat-{u} for {r0['strategy']}).")
    return out


def rule_sentences(eff: pd.DataFrame) -> list[str]:
    """One sentence per option switched alone (context: default rules)."""
    out = []
    for _, r in eff[eff["context"] == "default rules"].iterrows():
        lineup = split_lineup(str(r["lineup"]))
        who = f" (lineup {', '.join(lineup)})" if len(set(lineup)) > 1 else ""
        s = (f"In {r['variant']} with {int(r['players'])} players{who}, switching on {r['switch']} "
             f"moves the first mover's win rate per {r['unit']} "
             f"from {pct(r['first_off'])} to {pct(r['first_on'])}, "
             f"{pp_ci(r['first_diff'], r['first_lo'], r['first_hi'])}"
             f"{'' if r['first_distinguishable'] else ' (not distinguishable)'}")
        if np.isfinite(r["turns_diff"]):
            s += (f", and the mean deal from {r['turns_off']:.1f} to {r['turns_on']:.1f} turns "
                  f"({r['turns_diff']:+.1f} [{r['turns_lo']:+.1f}, {r['turns_hi']:+.1f}]"
                  f"{'' if r['turns_distinguishable'] else ', not distinguishable'})")
        s += f" (n={count(r['n_on'])} and {count(r['n_off'])})."
        out.append(s)
    return out


def length_sentences(length: pd.DataFrame) -> list[str]:
    out = []
    for _, r in length.iterrows():
        if r["unit"] == "match":
            s = (f"{where(r)} a match lasts {r['deals_mean']:.1f} deals on average "
                 f"(median {r['deals_median']:.0f}, p90 {r['deals_p90']:.0f}, "
                 f"p99 {'≥' if r['deals_p99_open'] else ''}{r['deals_p99']:.0f}; n={count(r['n'])} matches).")
        else:
            s = (f"{where(r)} a deal lasts {num_ci(r['turns_mean'], r['turns_lo'], r['turns_hi'])} turns "
                 f"(median {r['turns_median']:.0f}, p90 {r['turns_p90']:.0f}, "
                 f"p99 {'≥' if r['turns_p99_open'] else ''}{r['turns_p99']:.0f}); "
                 f"{pct(r['blocked_rate'])} were blocked and {pct(r['capped_rate'])} capped (n={count(r['n'])}).")
        out.append(s)
    return out


#: What the report says where the wild rule cannot decide a game, instead of a 0 %.
NO_RULE = "the wild rule cannot decide a single deal here (CZ7 judges only a match's last deal)"


def no_rule(variant: str, rules: str) -> str:
    """Why no loser here is picked by the wild rule: CZ7 on single deals, no rule in svinya, or switched off."""
    if tables.wild_rule_of(variant, rules) == "match":
        return NO_RULE
    if variant == "svinya":
        return "svinya has no wild rule for the loser (SV6 scores a lone Queen 20 instead)"
    return "the wild rule is switched off here (wild_rule=off)"


def _unit_words(unit: str) -> str:
    return "per match" if unit == "match" else "in single deals"


def jack_sentences(jq: pd.DataFrame, eff: pd.DataFrame) -> list[str]:
    """The Jack question, one sentence per variant, players, unit and rules (all seats pooled).

    ``jq`` (:func:`analyzer.stats.tables.jack_question`): the дурак rate by wilds dealt.  ``eff``
    (:func:`analyzer.stats.tables.jack_effects`): dealt one or more against none with its interval (the
    shuffle randomises it), and a hand left holding a wild against hands left with as many cards and none.
    Held-at-the-end is never set against a hand that went out: in two-player deals, where any hand left
    with cards is the дурак, the sentence says so instead of giving a number."""
    keys = tables.GROUP_COLUMNS
    look = {tuple(r[k] for k in keys): r for _, r in eff.iterrows()} if not eff.empty else {}
    out = []
    for _, r in jq.iterrows():
        u = _plural(str(r["unit"]))
        e = look.get(tuple(r[k] for k in keys))
        s = f"{group_where(r)}, {_unit_words(str(r['unit']))}: "
        if r["recorded"]:
            parts = [f"{tables.DEALT_NAMES[k]} {pct_ci(r[f'dealt{k}_rate'], r[f'dealt{k}_lo'], r[f'dealt{k}_hi'])}"
                     for k in (0, 1, 2) if r[f"dealt{k}_n"] > 0]
            what = "dealt" if r["unit"] == "deal" else "dealt (in the last deal)"
            s += f"the дурак rate of a player {what} " + ", ".join(parts)
            if e is not None and np.isfinite(e["dealt_gap"]):
                verdict = "" if e["dealt_distinguishable"] else ", not distinguishable"
                s += (f"; being dealt a wild (one or more, against none; the shuffle decides who gets one) "
                      f"{change(e['dealt_gap'], e['dealt_gap_lo'], e['dealt_gap_hi'])}{verdict}")
            s += "; "
        else:
            s += "(the dealt hands were not recorded by this run's simulator) "
        s += _held_words(e, u, int(r["players"])) + f" (n={count(r['n'])} seat-{u})"
        if r["rule_acts"]:
            s += "."
        else:
            s += f"; {no_rule(str(r['variant']), str(r['rules']))}, so a wild left in hand costs only its points."
        out.append(s)
    return out


def _held_words(e: Any, u: str, players: int) -> str:
    """Held a wild at the end, like with like, or why it is not compared here."""
    if not tables.held_informative(players):
        return ("holding a wild at the end is not compared: with two players only one hand is left with cards "
                "at the end, the дурак whatever it holds, so there is no hand like it to set it against")
    if e is None:
        return ("a hand left holding a wild is not compared here: this run did not record the cards left at the "
                "end, which the comparison needs (rerun the experiment)")
    if not e["held_n"] > 0:
        return "no hand ended holding a wild"
    if e["held_n"] < tables.MIN_HOLDERS:
        return (f"only {count(e['held_n'])} hands ended holding a wild, too few to set against hands with as many "
                "cards")
    if not np.isfinite(e["held_gap"]):
        return (f"hands left holding a wild are the дурак in {pct(e['held_rate'])} of {u} (no hand left with as "
                "many cards and no wild to compare)")
    verdict = "" if e["held_distinguishable"] else ", not distinguishable"
    return (f"a hand left holding a wild at the end is the дурак in {pct(e['held_rate'])} of {u} against "
            f"{pct(e['held_matched_rate'])} for hands left with as many cards and no wild "
            f"({pp_ci(e['held_gap'], e['held_gap_lo'], e['held_gap_hi'])}{verdict}; "
            f"{count(e['held_n'])} holders; a description, not a cause: who ends holding one is not random)")


def jack_rule_sentences(eff: pd.DataFrame) -> list[str]:
    """The wild rule on against off: the keeper-minus-dumper gap and the rule's own cost to the keeper."""
    out = []
    for _, r in eff.iterrows():
        other = {k: v for k, v in tables.rules_dict(str(r["rules_off"])).items() if k != "wild_rule"}
        head = f"In {r['variant']} with {int(r['players'])} players" + (f" ({describe_options(other)})" if other else "")
        rule = {"deal": "per deal (PR7)", "match": "per match (CZ7)"}.get(str(r["wild_rule"]), str(r["wild_rule"]))
        if not r["rule_acts"]:
            out.append(f"{head}, in single deals, the wild rule {rule} never applies: {NO_RULE}.")
            continue
        u = _plural(str(r["unit"]))
        s = f"{head}, {_unit_words(str(r['unit']))}, with the wild rule {rule}: "
        if bool(r.get("isolating", False)):
            s += (f"keeping wilds ({r['keeper']}) instead of shedding them ({r['dumper']}) "
                  f"{change(r['gap_on'], r['gap_on_lo'], r['gap_on_hi'])}, "
                  f"against {change(r['gap_off'], r['gap_off_lo'], r['gap_off_hi'], what='it')} with the rule off")
            verdict = "" if r["change_distinguishable"] else ", not distinguishable"
            s += (f" (the rule moves the gap by {pp_ci(r['change'], r['change_lo'], r['change_hi'])}"
                  f"{verdict}; Holm p {p_value(r['change_p_holm'])}). The rule itself ")
            who = "the keeper’s дурак rate"
        else:  # the pair differs in more than wilds: only the rule's own cost (on − off) isolates anything
            s += "the rule itself "
            who = f"{r['keeper']}’s дурак rate"
        verdict = "" if r["cost_distinguishable"] else ", not distinguishable"
        s += (f"{change(r['cost'], r['cost_lo'], r['cost_hi'], what=who)}: "
              f"{pct(r['keeper_on'])} of {u} with it, {pct(r['keeper_off'])} without "
              f"(n={count(r['n_on'])} and {count(r['n_off'])} seat-{u}{verdict}; Holm p {p_value(r['cost_p_holm'])}).")
        out.append(s)
    return out
