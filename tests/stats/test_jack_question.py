"""The Jack question asked directly: дурак rates by wilds dealt and by a wild held at
the end, the keeper-minus-dumper gap with the wild rule on and off and the rule's cost to the keeper."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analyzer.core.outcomes import NOT_RECORDED
from analyzer.core.rules import make_rules
from analyzer.execution.executor import simulate_deals, simulate_matches
from analyzer.stats import intervals as stats
from analyzer.stats import tables
from analyzer.stats.sums import deal_losses, summarize
from strategies import get_strategy

KD = ["wild-keeper", "wild-dumper"]


def results_of(cells: list[tuple[str, int, str, dict, list[str], object]]) -> tables.Results:
    """A Results folder in memory from (variant, players, unit, overrides, lineup, per-game results)."""
    frames: dict[str, list[pd.DataFrame]] = {"positions": [], "totals": [], "hist": []}
    rows = []
    for c, (variant, players, unit, over, lineup, res) in enumerate(cells):
        rules = make_rules(variant, players, over)
        for k, df in summarize(res, lineup, rules).items():
            frames[k].append(df.assign(cell=c))
        rows.append({"cell": c, "variant": variant, "players": players, "unit": unit,
                     "lineup": ",".join(lineup), "rules": rules.describe()})
    return tables.Results(cells=tables._normalize_cells(pd.DataFrame(rows)),
                          **{k: pd.concat(v, ignore_index=True) for k, v in frames.items()})


def _deals(variant, players, over, lineup, n, seed):
    rules = make_rules(variant, players, over)
    return simulate_deals(rules, [get_strategy(s) for s in lineup], n, seed=seed)


@pytest.fixture(scope="module")
def prague4():
    lineups = [KD * 2, KD[::-1] * 2]
    parts = [_deals("prague", 4, {}, lu, 1500, 1 + i) for i, lu in enumerate(lineups)]
    return parts, lineups, results_of([("prague", 4, "deal", {}, lu, r) for lu, r in zip(lineups, parts)])


def test_durak_rates_by_wilds_dealt_and_held_equal_a_count_over_the_deals(prague4):
    parts, lineups, res = prague4
    jq = tables.jack_question(res).set_index("strategy")
    for name in KD:
        lost, dealt, held = [], [], []
        for r, lu in zip(parts, lineups):
            loss, _ = deal_losses(r, True)
            mine = np.array(lu) == name
            ok = r.end != 2
            lost.append(loss[ok][:, mine].ravel())
            dealt.append(r.wilds_dealt[ok][:, mine].ravel())
            held.append(r.wild_held[ok][:, mine].ravel())
        lost_a, dealt_a, held_a = np.concatenate(lost), np.concatenate(dealt), np.concatenate(held)
        row = jq.loc[name]
        for k, sel in ((0, dealt_a == 0), (1, dealt_a == 1), (2, dealt_a >= 2)):
            assert row[f"dealt{k}_n"] == sel.sum() and row[f"dealt{k}_rate"] == pytest.approx(lost_a[sel].mean())
            r = stats.wilson(lost_a[sel].sum(), sel.sum())
            assert (row[f"dealt{k}_lo"], row[f"dealt{k}_hi"]) == pytest.approx((float(r.lo), float(r.hi)))
        assert row["held_rate"] == pytest.approx(lost_a[held_a].mean())
        assert row["free_rate"] == pytest.approx(lost_a[~held_a].mean())
        assert row["rule_acts"] and row["recorded"]
    # PR7: a Jack left in hand loses; holding one is far worse than not
    assert (jq["gap"] > 0.3).all() and jq["distinguishable"].all()


def test_the_holder_gap_interval_treats_the_seats_of_one_deal_together(prague4):
    """Two keepers sit in every 4-player deal: the gap's standard error equals the per-deal (cluster)
    computation, not the one that counts seats as independent."""
    parts, lineups, res = prague4
    row = tables.jack_question(res).set_index("strategy").loc["wild-keeper"]
    rh, rf = row["held_rate"], row["free_rate"]
    nh, nf = row["held_n"], row["free_n"]
    zs = []
    for r, lu in zip(parts, lineups):
        loss, _ = deal_losses(r, True)
        mine = np.array(lu) == "wild-keeper"
        d = (r.end != 2)[:, None].astype(float)
        h = r.wild_held[:, mine] * d
        f = (1 - r.wild_held[:, mine]) * d
        x = loss[:, mine]
        zs.append(((h * (x - rh)).sum(1) / nh) - ((f * (x - rf)).sum(1) / nf))
    se = float(np.sqrt((np.concatenate(zs) ** 2).sum()))
    assert (row["gap_hi"] - row["gap"]) / stats.Z95 == pytest.approx(se, rel=1e-9)
    indep = stats.diff_proportions(rh, nh, rf, nf)
    assert se != pytest.approx(float(indep.se), rel=0.01)


def test_dealt_hands_not_recorded_are_said_so_not_counted(prague4):
    parts, lineups, _ = prague4
    r = parts[0]
    r2 = type(r)(**{f: getattr(r, f) for f in r.__dataclass_fields__})
    r2.wilds_dealt = np.full_like(r.wilds_dealt, NOT_RECORDED)
    jq = tables.jack_question(results_of([("prague", 4, "deal", {}, lineups[0], r2)]))
    assert not jq["recorded"].any() and jq["dealt0_rate"].isna().all()
    assert jq["held_rate"].notna().all()  # the held-at-the-end figures need no dealt hands


def test_the_rule_on_and_off_and_its_cost_to_the_keeper():
    """CZ7 per match, PR7 per deal and no rule: where the rule acts its row carries the gap on and off,
    their change and the keeper's cost (its дурак rate on − off); czech single deals say the rule
    cannot act there (CZ7 judges a match's last deal only)."""
    cells = []
    for rule in ("deal", "match", "off"):
        over = {"wild_rule": rule}
        cells.append(("czech", 4, "deal", over, KD * 2, _deals("czech", 4, over, KD * 2, 1200, 7)))
        rules = make_rules("czech", 4, {**over, "target": 60})
        m = simulate_matches(rules, [get_strategy(s) for s in KD * 2], 150, seed=8)
        cells.append(("czech", 4, "match", {**over, "target": 60}, KD * 2, m))
    res = results_of(cells)
    eff = tables.jack_rule_effect(res)
    assert len(eff) == 4  # deal and match rule, per deal and per match
    idle = eff[~eff["rule_acts"].astype(bool)]
    assert idle[["unit", "wild_rule"]].values.tolist() == [["deal", "match"]] and idle["cost"].isna().all()
    kvd = tables.keeper_vs_dumper(res).set_index("rules")
    for _, r in eff[eff["rule_acts"].astype(bool)].iterrows():
        on, off = kvd.loc[r["rules"]], kvd.loc[r["rules_off"]]
        assert r["cost"] == pytest.approx(on["keeper_loss_rate"] - off["keeper_loss_rate"])
        assert r["change"] == pytest.approx(on["loss_diff"] - off["loss_diff"])
        assert r["cost_lo"] < r["cost"] < r["cost_hi"]
    jq = tables.jack_question(res)
    czech_deals = jq[(jq["unit"] == "deal") & (jq["wild_rule"] == "match")]
    assert len(czech_deals) == 2 and not czech_deals["rule_acts"].any()
    assert jq.loc[jq["unit"] == "match", "recorded"].all()


def test_results_without_the_jack_sums_give_an_empty_table(prague4):
    _, _, res = prague4
    old = tables.Results(cells=res.cells, positions=res.positions.drop(columns=["held_n"]), totals=res.totals,
                         hist=res.hist)
    assert tables.jack_question(old).empty


def test_where_the_rule_cannot_act_the_report_says_so_instead_of_zero():
    """czech single deals (CZ7 judges a match's last deal only) and svinya (no such rule): the sentences and
    tables say the rule does not apply; czech matches and prague deals keep their measured share."""
    from analyzer.report import display, sentences

    cells = [("czech", 4, "deal", {}, KD * 2, _deals("czech", 4, {}, KD * 2, 300, 3)),
             ("svinya", 2, "deal", {}, KD, _deals("svinya", 2, {}, KD, 300, 3)),
             ("prague", 4, "deal", {}, KD * 2, _deals("prague", 4, {}, KD * 2, 300, 3))]
    res = results_of(cells)
    said = sentences.wild_sentences(tables.wild_summary(res))
    assert "CZ7 judges only a match's last deal" in said[0] and "0.0%" not in said[0].split("(n=")[0]
    assert "svinya has no wild rule" in said[1]
    assert "picked the loser in" in said[2]
    shown = display.show_wild_summary(tables.wild_summary(res))["loser picked by the wild rule [95% CI]"].tolist()
    assert shown[:2] == [display.NOT_APPLICABLE] * 2 and shown[2].endswith("]")
    jack = sentences.jack_sentences(tables.jack_question(res, by_strategy=False), tables.jack_effects(res))
    assert "CZ7" in jack[0] and "costs only its points" in jack[0]
    assert jack[1].startswith("In prague") and "costs only" not in jack[1]


def test_without_a_keeper_and_a_dumper_the_summary_shows_the_durak_rate_by_wilds_dealt(tmp_path):
    from analyzer.report import summary

    line = ["greedy"] * 4
    res = results_of([("czech", 4, "deal", {}, line, _deals("czech", 4, {}, line, 600, 9)),
                      ("prague", 4, "deal", {}, line, _deals("prague", 4, {}, line, 600, 9))])
    panel = summary.jack_panel(res)
    assert panel is not None and panel.sentence.startswith("Being dealt a wild (one or more, against none)")
    eff = tables.jack_effects(res).set_index("variant")
    big = eff["dealt_gap"].abs().idxmax()
    assert f"{100 * eff.loc[big, 'dealt_with_rate']:.1f}%" in panel.sentence
    assert "experiments/wild_penalty.toml" in panel.sentence  # greedy alone isolates no keeping
    blocks, made = summary.summary_blocks(res, tmp_path, ["Answers"])
    assert any(p.suffix == ".png" for p in made)
