"""Tables on a small synthetic results folder whose right answers are known by construction.

The folder is built with the real :func:`analyzer.stats.sums.summarize` from
hand-made per-deal arrays, so these tests also pin the contract between the
result schema and the analyzer.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT, DealResults, MatchResults
from analyzer.stats import intervals as stats
from analyzer.stats import tables
from analyzer.stats.sums import summarize


def _deals(winners: list[int], losers: list[int], players: int, *, by_wild: list[bool] | None = None,
           held: list[list[bool]] | None = None, points: list[list[int]] | None = None,
           ends: list[int] | None = None, turns: list[int] | None = None) -> DealResults:
    n = len(winners)
    return DealResults(
        points=np.array(points if points is not None else [[0] * players] * n, dtype=np.int16).reshape(n, players),
        went_out=np.array(winners, dtype=np.int8),
        winner=np.array(winners, dtype=np.int8),
        loser=np.array(losers, dtype=np.int8),
        loser_by_wild=np.array(by_wild if by_wild is not None else [False] * n, dtype=bool),
        wild_held=np.array(held if held is not None else [[False] * players] * n, dtype=bool).reshape(n, players),
        end=np.array(ends if ends is not None else [END_OUT] * n, dtype=np.int8),
        turns=np.array(turns if turns is not None else [10] * n, dtype=np.int32),
        last_card=np.zeros(n, dtype=np.int8),
        turnovers=np.ones(n, dtype=np.int16),
    )


def synthetic_tables() -> dict[str, pd.DataFrame]:
    """Four cells with known answers.

    cell 0, prague 3p, 1000 deals, all 'random': position 0 wins 400, 1 and 2
      win 300 each; losers 0: 200, 1: 300, 2: 500; position 2 is the loser by
      the wild rule in 100 deals and holds a wild at the end of 150; hands of
      points 10/20/30 for positions 0/1/2 in every deal; turns 10 in 900 deals,
      100 in 90, 500 in 10 (open bin); 50 blocked deals.
    cell 1, czech 2p, 100 deals, wild-keeper vs wild-dumper, sevens on:
      keeper (pos 0) wins 50, loses 48 (30 by the wild rule); 2 deals capped.
    cell 2, czech 2p, 100 deals, wild-dumper vs wild-keeper, sevens on:
      keeper (pos 1) wins 40 and loses 60 (40 by the wild rule).
    cell 3, czech 2p, 10 matches, keeper vs dumper, default rules:
      keeper wins 4.5 (a tie), loses 5.5.
    cell 4, czech 2p, 100 deals, keeper vs dumper, default rules (sevens off):
      keeper (pos 0) wins 70, loses 30; 20 turns each; 10 blocked.
    """
    parts: dict[str, list[pd.DataFrame]] = {"positions": [], "totals": [], "hist": []}

    def add(cell: int, res: DealResults | MatchResults, strategies: list[str]) -> None:
        for k, df in summarize(res, strategies).items():
            df = df.copy()
            df.insert(0, "cell", cell)
            parts[k].append(df)

    w0 = [0] * 400 + [1] * 300 + [2] * 300
    l0 = [1] * 100 + [2] * 300 + [0] * 100 + [2] * 200 + [0] * 100 + [1] * 200
    assert l0.count(0) == 200 and l0.count(1) == 300 and l0.count(2) == 500
    assert all(win != lose for win, lose in zip(w0, l0))
    bw0 = [100 <= i < 200 for i in range(1000)]  # loser 2 in these deals
    held0 = [[False, False, 100 <= i < 250] for i in range(1000)]
    turns0 = [10] * 900 + [100] * 90 + [500] * 10
    ends0 = [END_BLOCKED] * 50 + [END_OUT] * 950
    add(0, _deals(w0, l0, 3, by_wild=bw0, held=held0, points=[[10, 20, 30]] * 1000,
                  ends=ends0, turns=turns0), ["random"] * 3)

    w1 = [0] * 50 + [1] * 48 + [-1] * 2
    l1 = [1] * 50 + [0] * 48 + [-1] * 2
    bw1 = [False] * 50 + [True] * 30 + [False] * 20
    ends1 = [END_OUT] * 98 + [END_CAPPED] * 2
    held1 = [[50 <= i < 80, False] for i in range(100)]  # the keeper ends holding the wild it lost by
    add(1, _deals(w1, l1, 2, by_wild=bw1, held=held1, ends=ends1, points=[[5, 1]] * 100),
        ["wild-keeper", "wild-dumper"])

    w2 = [1] * 40 + [0] * 60
    l2 = [0] * 40 + [1] * 60
    bw2 = [False] * 40 + [True] * 40 + [False] * 20
    held2 = [[False, 40 <= i < 80] for i in range(100)]
    add(2, _deals(w2, l2, 2, by_wild=bw2, held=held2, points=[[1, 5]] * 100), ["wild-dumper", "wild-keeper"])

    ws = np.array([[1, 0]] * 4 + [[0.5, 0.5]] + [[0, 1]] * 5, dtype=np.float32)
    match = MatchResults(totals=np.array([[100, 600]] * 10, dtype=np.int32), win_share=ws,
                         loss_share=ws[:, ::-1].copy(), loser_by_wild=np.zeros(10, dtype=bool),
                         wild_held=np.array([[i >= 5, False] for i in range(10)]), deals=np.full(10, 7, dtype=np.int32),
                         capped_deals=np.zeros(10, dtype=np.int32))
    add(3, match, ["wild-keeper", "wild-dumper"])

    w4 = [0] * 70 + [1] * 30
    l4 = [1] * 70 + [0] * 30
    add(4, _deals(w4, l4, 2, turns=[20] * 100, ends=[END_BLOCKED] * 10 + [END_OUT] * 90,
                  held=[[i >= 90, False] for i in range(100)]),
        ["wild-keeper", "wild-dumper"])

    # rules as the runner writes them (RuleSet.to_json: variant and players included)
    cells = pd.DataFrame({
        "cell": [0, 1, 2, 3, 4],
        "variant": ["prague", "czech", "czech", "czech", "czech"],
        "players": [3, 2, 2, 2, 2],
        "unit": ["deal", "deal", "deal", "match", "deal"],
        "n": [1000, 100, 100, 10, 100],
        "lineup": ["random,random,random", "wild-keeper,wild-dumper", "wild-dumper,wild-keeper",
                   "wild-keeper,wild-dumper", "wild-keeper,wild-dumper"],
        "rules": ['{"players": 3, "variant": "prague"}', '{"players": 2, "sevens": true, "variant": "czech"}',
                  '{"players": 2, "sevens": true, "variant": "czech"}', '{"players": 2, "variant": "czech"}',
                  '{"players": 2, "variant": "czech"}'],
        "label": ["prague 3p", "czech 2p sevens=True", "czech 2p sevens=True", "czech 2p matches",
                  "czech 2p sevens=False"],
        "sevens": ["False", "True", "True", "False", "False"],
    })
    out = {k: pd.concat(v, ignore_index=True) for k, v in parts.items()}
    out["cells"] = cells
    return out


MANIFEST = {
    "name": "synthetic", "description": "hand-made results with known answers", "seed": 7,
    "version": "0.1.0", "started": "2024-01-01T00:00:00", "finished": "2024-01-01T00:01:00",
    "deals_per_second": 1234.5, "command": "durak run experiments/synthetic.toml --seed 7",
    "experiment": {"name": "synthetic", "variants": ["prague", "czech"], "deals": 1000},
    "reports": [],
}


def write_results(d: Path, manifest: dict | None = None, keep_cells: list[int] | None = None) -> Path:
    """Write the synthetic folder (optionally only some cells) as the runner would."""
    t = synthetic_tables()
    (d / "results").mkdir(parents=True, exist_ok=True)
    for k, df in t.items():
        if keep_cells is not None:
            df = df[df["cell"].isin(keep_cells)]
        df.to_parquet(d / "results" / f"{k}.parquet", index=False)
    (d / "manifest.json").write_text(json.dumps(manifest if manifest is not None else MANIFEST))
    return d


@pytest.fixture(scope="module")
def res(tmp_path_factory: pytest.TempPathFactory) -> tables.Results:
    return tables.load_results(write_results(tmp_path_factory.mktemp("res")))


def test_load_results_reads_four_tables_and_manifest(res: tables.Results) -> None:
    assert list(res.cells["cell"]) == [0, 1, 2, 3, 4]
    assert "grid_n" in res.cells.columns  # the runner's per-cell count does not shadow n
    assert res.manifest["seed"] == 7
    assert set(res.hist["kind"]) == {"turns", "points", "deals"}
    assert res.units == ["deal", "match"]


def test_win_loss_by_position_rates_and_wilson_bounds(res: tables.Results) -> None:
    t = tables.win_loss_by_position(res)
    row = t[(t.cell == 0) & (t.position == 0) & (t.outcome == "win")].iloc[0]
    assert row["count"] == 400 and row["n"] == 1000 and row["rate"] == pytest.approx(0.4)
    lo, hi = stats.wilson(400, 1000)[1:3]
    assert (row["lo"], row["hi"]) == pytest.approx((float(lo), float(hi)))
    assert row["fair"] == pytest.approx(1 / 3)
    loss2 = t[(t.cell == 0) & (t.position == 2) & (t.outcome == "loss")].iloc[0]
    assert loss2["rate"] == pytest.approx(0.5)
    # matches: ties share a win, so the count is fractional
    m = t[(t.cell == 3) & (t.position == 0) & (t.outcome == "win")].iloc[0]
    assert m["unit"] == "match" and m["count"] == pytest.approx(4.5) and m["rate"] == pytest.approx(0.45)


def test_capped_deals_have_no_winner_so_rates_do_not_sum_to_one(res: tables.Results) -> None:
    t = tables.win_loss_by_position(res)
    wins = t[(t.cell == 1) & (t.outcome == "win")]["rate"].sum()
    assert wins == pytest.approx(0.98)


def test_win_loss_by_strategy_pools_seats_over_cells(res: tables.Results) -> None:
    t = tables.win_loss_by_strategy(res, pool_cells=True)
    k = t[(t.strategy == "wild-keeper") & (t.unit == "deal") & (t.outcome == "loss")].iloc[0]
    # keeper lost 48 of cell 1 and 60 of cell 2
    assert k["n"] == 200 and k["count"] == 108 and k["cells"] == 2
    per_cell = tables.win_loss_by_strategy(res)
    r = per_cell[(per_cell.cell == 0) & (per_cell.outcome == "win")].iloc[0]
    assert r["strategy"] == "random" and r["n"] == 3000 and r["count"] == 1000 and r["seats"] == 3


def test_first_mover_advantage_difference_ratio_and_fairness_pr2(res: tables.Results) -> None:
    t = tables.first_player_advantage(res).set_index("cell")
    r = t.loc[0]
    # cell 0 is prague 3p: the first mover is the dealer (PR2), position 2, who wins 300 of 1,000
    assert r["first_position"] == 2
    assert r["rate"] == pytest.approx(0.3) and r["fair"] == pytest.approx(1 / 3)
    assert r["diff"] == pytest.approx(0.3 - 1 / 3) and r["ratio"] == pytest.approx(0.9)
    assert r["diff_lo"] == pytest.approx(r["lo"] - 1 / 3) and r["ratio_hi"] == pytest.approx(r["hi"] * 3)
    assert r["p_value"] < 0.05 and r["homogeneous"]
    # cell 2: position 0 wins 60 of 100 against fair 50%: Wilson [0.502, 0.691] excludes 0.5, but the
    # Holm-adjusted p over the five cells does not agree, so the one verdict rule says not distinguishable
    assert t.loc[2, "lo"] > 0.5 and t.loc[2, "p_holm"] > 0.05
    assert not bool(t.loc[2, "distinguishable"])
    # cell 1: 50 of 100 -> exactly fair, not distinguishable
    assert not bool(t.loc[1, "distinguishable"]) and not t.loc[1, "homogeneous"]
    assert (t["p_holm"] >= t["p_value"]).all()


def test_worst_position_is_highest_loss_rate_with_multinomial_gap(res: tables.Results) -> None:
    t = tables.worst_positions(res).set_index("cell")
    r = t.loc[0]
    assert r["worst_position"] == 2 and r["loss_rate"] == pytest.approx(0.5)
    assert r["runner_up"] == 1 and r["gap"] == pytest.approx(0.2)
    se = np.sqrt((0.5 * 0.5 + 0.3 * 0.7 + 2 * 0.5 * 0.3) / 1000)
    assert r["gap_lo"] == pytest.approx(0.2 - stats.Z95 * se)
    # the worst seat and its runner-up are picked from these data: the gap carries no verdict
    assert "distinguishable" not in t.columns


def test_wild_penalty_per_position_counts_held_and_wild_decided_losses(res: tables.Results) -> None:
    t = tables.wild_by_position(res)
    p2 = t[(t.cell == 0) & (t.position == 2)].iloc[0]
    assert p2["held_rate"] == pytest.approx(0.15)
    assert p2["by_wild_rate"] == pytest.approx(0.1)
    assert p2["wild_loss_share_rate"] == pytest.approx(100 / 500)
    assert p2["points_mean"] == pytest.approx(30) and p2["points_lo"] == pytest.approx(30)


def test_wild_summary_bounds_any_holder_and_counts_wild_decided_deals(res: tables.Results) -> None:
    t = tables.wild_summary(res).set_index("cell")
    r = t.loc[0]
    assert r["held_mean"] == pytest.approx(0.05) and r["any_lo"] == pytest.approx(0.15)
    assert r["any_hi"] == pytest.approx(0.15)
    assert r["by_wild_rate"] == pytest.approx(0.1) and r["wild_loss_share_rate"] == pytest.approx(0.1)
    assert r["points_mean"] == pytest.approx(20)
    assert t.loc[1, "by_wild_rate"] == pytest.approx(0.30)


def test_keeper_vs_dumper_grouped_by_rules(res: tables.Results) -> None:
    t = tables.keeper_vs_dumper(res)
    assert len(t) == 3  # sevens on (deals), default rules (deals, matches)
    on = t[t.rules.str.contains("sevens")].iloc[0]
    assert on["keeper_n"] == 200 and on["keeper_loss_rate"] == pytest.approx(108 / 200)
    assert on["dumper_loss_rate"] == pytest.approx(90 / 200)
    assert on["loss_diff"] == pytest.approx(108 / 200 - 90 / 200)
    assert on["keeper_by_wild_rate"] == pytest.approx(70 / 200)
    assert on["points_diff"] == pytest.approx((5 * 100 + 5 * 100) / 200 - 1.0)
    off = t[~t.rules.str.contains("sevens") & (t.unit == "match")].iloc[0]
    assert off["keeper_win_rate"] == pytest.approx(0.45)
    # sevens off, deals: keeper loses 30%, dumper 70%
    assert t[~t.rules.str.contains("sevens") & (t.unit == "deal")]["loss_diff"].iloc[0] == pytest.approx(-0.4)


def test_keeper_vs_dumper_empty_when_strategies_absent(tmp_path: Path) -> None:
    res = tables.load_results(write_results(tmp_path, keep_cells=[0]))
    t = tables.keeper_vs_dumper(res)
    assert t.empty and "loss_diff" in t.columns


def test_game_length_mean_quantiles_blocked_capped(res: tables.Results) -> None:
    t = tables.game_length(res).set_index("cell")
    r = t.loc[0]
    assert r["turns_mean"] == pytest.approx((900 * 10 + 90 * 100 + 10 * 500) / 1000)
    assert r["turns_median"] == 10 and r["turns_p90"] == 10 and r["turns_p99"] == 100
    assert r["blocked"] == 50 and r["blocked_rate"] == pytest.approx(0.05)
    assert r["turnovers_mean"] == pytest.approx(1.0)
    assert not r["capped_alarm"]
    c = t.loc[1]
    assert c["capped_rate"] == pytest.approx(0.02) and c["capped_alarm"]
    m = t.loc[3]
    assert np.isnan(m["turns_mean"]) and m["deals_mean"] == pytest.approx(7) and m["deals_median"] == 7


def test_game_length_open_last_bin_marks_p99_as_lower_bound(res: tables.Results) -> None:
    h = res.hist.copy()
    sel = (h.cell == 0) & (h.kind == "turns")
    h.loc[sel & (h.bin == 10), "count"] = 0
    h.loc[sel & (h.bin == 100), "count"] = 0
    r2 = tables.Results(res.cells, res.positions, res.totals, h, res.manifest)
    assert bool(tables.game_length(r2).set_index("cell").loc[0, "turns_p99_open"])


def test_head_to_head_matrix_is_square_with_empty_diagonal(res: tables.Results) -> None:
    h = tables.head_to_head(res)
    d = h[(h.unit == "deal") & (h.strategy == "wild-keeper") & h.rules.str.contains("sevens")].iloc[0]
    # among decided deals: cell 1 has 2 capped deals with no winner (G10)
    assert d["opponent"] == "wild-dumper" and d["rate"] == pytest.approx(90 / 198) and d["n"] == 198
    assert d["diff"] == pytest.approx(90 / 198 - 0.5)
    m = tables.head_to_head_matrix(h, unit="deal", rules=d["rules"])
    assert list(m.index) == list(m.columns) == ["wild-dumper", "wild-keeper"]
    assert np.isnan(m.loc["wild-keeper", "wild-keeper"])
    assert m.loc["wild-keeper", "wild-dumper"] == pytest.approx(90 / 198 - 0.5)


def test_rules_text_and_cell_text() -> None:
    assert tables.rules_text("{}") == "default rules"
    assert tables.rules_text('{"players": 2, "variant": "czech"}') == "default rules"
    assert tables.rules_text('{"sevens": true}') == "sevens=on"  # results written before the text form
    assert tables.cell_text({"variant": "czech", "players": 4, "rules": '{"sevens": true}'}) == "czech 4p sevens=on"
    # the rules column as written now: RuleSet.describe() text, read back by parse_description
    assert tables.rules_dict("sevens=on, seven_chain=accumulate") == {"sevens": True, "seven_chain": "accumulate"}
    assert tables.rules_text("seven_chain=accumulate, sevens=on") == "sevens=on, seven_chain=accumulate"
    assert tables.rules_text("default rules") == "default rules"


def test_grid_column_named_like_a_data_column_is_renamed(tmp_path: Path) -> None:
    d = write_results(tmp_path)
    cells = pd.read_parquet(d / "results" / "cells.parquet")
    cells["strategy"] = "x"
    cells.to_parquet(d / "results" / "cells.parquet", index=False)
    res = tables.load_results(d)
    assert "grid_strategy" in res.cells.columns
    t = tables.win_loss_by_position(res)
    assert t[(t.cell == 1) & (t.position == 0)]["strategy"].iloc[0] == "wild-keeper"


def test_rule_effects_compare_a_switch_with_the_otherwise_identical_cell(res: tables.Results) -> None:
    t = tables.rule_effects(res)
    assert len(t) == 1
    r = t.iloc[0]
    assert r["switch"] == "sevens=on" and r["context"] == "default rules"
    assert (r["cell_on"], r["cell_off"]) == (1, 4)
    assert r["first_diff"] == pytest.approx(50 / 98 - 0.7)  # cell 1: 50 wins in 98 decided deals
    se = np.sqrt(50 / 98 * 48 / 98 / 98 + 0.21 / 100)
    assert r["first_lo"] == pytest.approx(50 / 98 - 0.7 - stats.Z95 * se)
    assert r["turns_diff"] == pytest.approx(-10) and bool(r["turns_distinguishable"])
    assert r["blocked_diff"] == pytest.approx(-0.1)
    assert r["capped_diff"] == pytest.approx(0.02)
    assert r["by_wild_diff"] == pytest.approx(0.3)


def test_first_mover_pooled_over_seatings_sums_its_position(res: tables.Results) -> None:
    t = tables.first_player_advantage(res, pooled=True)
    r = t[(t.variant == "czech") & (t.unit == "deal") & t.rules.str.contains("sevens")].iloc[0]
    # cell 1: position 0 wins 50 of 98 decided deals (2 capped); cell 2: 60 of 100
    assert r["seatings"] == 2 and r["n"] == 198 and r["wins"] == 110 and r["rate"] == pytest.approx(110 / 198)
    assert r["strategies"] == "wild-dumper, wild-keeper" and not r["homogeneous"]
    single = t[t.variant == "prague"].iloc[0]  # the dealer, position 2, moves first (PR2)
    assert single["seatings"] == 1 and single["rate"] == pytest.approx(0.3) and single["homogeneous"]


def test_worst_position_pooled_over_seatings(res: tables.Results) -> None:
    t = tables.worst_positions(res, pooled=True)
    r = t[(t.variant == "czech") & (t.unit == "deal") & t.rules.str.contains("sevens")].iloc[0]
    # position 1 lost 50 + 60 of 198 decided deals, position 0 lost 48 + 40
    assert r["worst_position"] == 1 and r["loss_rate"] == pytest.approx(110 / 198)
    assert r["gap"] == pytest.approx(22 / 198)


def test_wild_summary_pooled_over_seatings(res: tables.Results) -> None:
    t = tables.wild_summary(res, pooled=True)
    r = t[(t.variant == "czech") & (t.unit == "deal") & t.rules.str.contains("sevens")].iloc[0]
    # 30 + 40 wild-decided losses in 200 deals
    assert r["seatings"] == 2 and r["n"] == 200 and r["by_wild_rate"] == pytest.approx(0.35)


def test_win_loss_and_histograms_pooled_over_seatings(res: tables.Results) -> None:
    t = tables.win_loss_by_position(res, pooled=True)
    r = t[(t.variant == "czech") & (t.unit == "deal") & t.rules.str.contains("sevens")
          & (t.position == 0) & (t.outcome == "win")].iloc[0]
    assert r["n"] == 200 and r["count"] == 110 and r["strategy"] == "(all seatings)"
    h = tables.hist_table(res, "turns", pooled=True)
    g = h[(h.variant == "czech") & h.rules.str.contains("sevens")]
    assert g["count"].sum() == 200 and g.loc[g["bin"] == 10, "count"].iloc[0] == 200
    assert g["label"].iloc[0] == "czech 2p sevens=on"


def test_rule_effect_verdicts_need_the_holm_p_to_agree(res: tables.Results, tmp_path: Path) -> None:
    """One verdict rule for the rule-effect rows too: interval and Holm p agree."""
    r = tables.rule_effects(res).iloc[0]
    se = (r["first_hi"] - r["first_diff"]) / stats.Z95
    assert r["first_p_holm"] == pytest.approx(float(stats.z_test_p(r["first_diff"], se)))  # one row: Holm = p
    assert bool(r["first_distinguishable"]) == bool(r["first_hi"] < 0 and r["first_p_holm"] < 0.05)
    empty = tables.rule_effects(tables.load_results(write_results(tmp_path, keep_cells=[0])))
    assert empty.empty and {"first_p_holm", "turns_distinguishable"} <= set(empty.columns)
