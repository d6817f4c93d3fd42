"""``durak compare --design hero`` and stopping rules on tournaments."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.experiment import ExperimentError
from analyzer.execution.runs import run_experiment
from analyzer.execution.runs.tournament import SEQ_CHUNK, run_design, tournament_chunk, watched
from analyzer.stats.sequential import Sprt, UntilCI
from analyzer.stats.tournament import TournamentError, hero, round_robin
from strategies.weighted_presets import PRESETS
from tests.helpers_experiments import design_experiment, parse

#: a user strategy (tests/plugin_example.py): plays the highest legal card
HIGHEST = "tests/plugin_example.py:HighestCard"
#: plays exactly like weighted (its score is an argmax, so scaling every weight changes nothing)
TWIN = "weighted?w_points=2,w_wild=-12,w_effect=4,w_suit_len=3,w_threat=10,w_same_rank=1"


def test_hero_tables_play_the_same_decks_so_a_twin_of_the_reference_scores_the_fair_share_on_every_deck() -> None:
    rules = make_rules("czech", 3, {})
    design = hero([TWIN, "random"], 3, reference="weighted")
    wins = tournament_chunk(rules, design, 200, 1, 0)
    assert len(wins) == 6 and all(w.shape == (200, 3) for w in wins)
    twin = sum(wins[t][:, t] for t in range(3)) / 3  # the twin at position t of table t
    assert np.allclose(twin, 1 / 3)  # every deck, seat luck and card luck cancel exactly
    rnd = np.mean([wins[3 + t][:, t] for t in range(3)], axis=0)
    assert rnd.mean() < 0.3


def test_cli_hero_reports_every_position_against_the_reference_and_paired_margins() -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "hero", "--reference", "greedy", "--players", "4",
                                   "random", "weighted", "--deals", "300", "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["design"] == "hero" and out["field"] == ["greedy"] * 3 and "3 copies of greedy" in out["measures"]
    assert [tuple(s["seats"]) for s in out["seatings"][:4]] == [
        ("random", "greedy", "greedy", "greedy"), ("greedy", "random", "greedy", "greedy"),
        ("greedy", "greedy", "random", "greedy"), ("greedy", "greedy", "greedy", "random")]
    assert {r["strategy"] for r in out["ranking"]} == {"random", "weighted"}
    assert all(len(r["by_position"]) == 4 and r["lo"] <= r["win_rate"] <= r["hi"] for r in out["ranking"])
    assert len(out["pairs"]) == 1 and "verdict" in out["pairs"][0] and out["deals_played"] == 300 * 8


def test_cli_hero_text_says_what_it_measures() -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "hero", "--players", "2", "greedy", "--deals", "200",
                                   "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert "Measures: each strategy's win rate against 1 copy of weighted" in " ".join(res.output.split())


@pytest.mark.parametrize("rule", [UntilCI(0.04), Sprt.better_by(0.05)], ids=["until-ci", "sprt"])
def test_stopping_is_the_same_for_any_jobs_and_reports_the_decks_taken(rule) -> None:
    rules = make_rules("czech", 2, {})
    # a plugin has no compiled form: the numpy simulator, so two fresh worker processes need no kernel
    design = round_robin([HIGHEST, "greedy"], 2)
    one = run_design(rules, design, 4000, seed=3, jobs=1, rule=rule, boot=20, seq_chunk=200)
    two = run_design(rules, design, 4000, seed=3, jobs=2, rule=rule, boot=20, seq_chunk=200)
    # everything but the decks played past the stop in the last batch (work done, not used) is the same
    same = {k: v for k, v in one["stopping"].items() if k != "discarded_decks"}
    assert same == {k: v for k, v in two["stopping"].items() if k != "discarded_decks"} and one["pairs"] == two["pairs"]
    st = one["stopping"]
    assert st["stopped"] and st["decks"] == one["n_decks"] == st["chunks"] * 200 < 4000
    assert st["deals"] == one["deals_played"] == st["decks"] * 2
    if isinstance(rule, Sprt):  # the two differ by far more than 5 pp: the SPRT names the better one
        margin = one["pairs"][0]["margin"]
        assert abs(margin) > 0.05
        assert (st["verdict"], st["llr"] >= st["bounds"][1]) == (("H1", True) if margin > 0 else ("H0", False))
        assert st["llr"] >= st["bounds"][1] or st["llr"] <= st["bounds"][0]
    else:
        assert st["verdict"] == "precise" and st["half_width"] <= 0.04 and st["chunks"] > 2


def test_a_hero_tournament_stops_at_the_same_deck_for_any_jobs() -> None:
    """The hero design stops where it stops whatever --jobs (the rule is checked in chunk order)."""
    rules = make_rules("czech", 3, {})
    design = hero([HIGHEST, "random"], 3, reference=HIGHEST)  # every table holds the plugin: the numpy simulator
    one = run_design(rules, design, 3000, seed=5, jobs=1, rule=UntilCI(0.05), boot=20, seq_chunk=200)
    two = run_design(rules, design, 3000, seed=5, jobs=2, rule=UntilCI(0.05), boot=20, seq_chunk=200)
    same = {k: v for k, v in one["stopping"].items() if k != "discarded_decks"}
    assert same == {k: v for k, v in two["stopping"].items() if k != "discarded_decks"}
    assert one["stopping"]["stopped"] and 1 < one["stopping"]["chunks"] < 15
    rest = [json.dumps({k: v for k, v in r.items() if k not in ("seconds", "stopping")}, sort_keys=True, default=str)
            for r in (one, two)]
    assert rest[0] == rest[1]  # every number of the result, not only the stop


def test_until_ci_watches_every_pair_and_the_budget_bounds_it() -> None:
    rules = make_rules("czech", 2, {})
    design = round_robin(["weighted", TWIN, "greedy"], 2)
    out = run_design(rules, design, 2 * SEQ_CHUNK, seed=0, jobs=1, rule=UntilCI(0.0001), boot=20)
    assert out["stopping"]["verdict"] == "budget" and out["n_decks"] == 2 * SEQ_CHUNK


def test_watched_columns_and_the_sprt_needs_one_comparison() -> None:
    rr = round_robin(["a", "b", "c"], 2)
    wins = [np.array([[1.0, 0.0]])] * len(rr.tables)
    assert watched(rr, wins).shape == (1, 3)
    with pytest.raises(TournamentError, match="SPRT"):
        watched(rr, wins, sprt=True)
    h = hero(["a"], 3, reference="b")
    cols = watched(h, [np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]), np.array([[0.0, 0.0, 0.0]])],
                   sprt=True)
    assert cols.shape == (1, 1) and cols[0, 0] == pytest.approx(2 / 3 - 1 / 3)


# ---------------------------------------------------------------- experiments with a design
DESIGN_EXP = design_experiment(field=["random", "greedy", "weighted?preset={variant}-{players}p"])


def test_design_experiment_runs_a_tournament_per_rule_set_and_reports_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(PRESETS, "czech-2p", {"weights": {"w_wild": -5.0}})
    monkeypatch.setitem(PRESETS, "czech-3p", {"weights": {"w_wild": -4.0}})
    exp = parse(DESIGN_EXP)
    assert exp.tournament and exp.design_for(2) == "round-robin" and exp.design_for(3) == "hero"
    folder = run_experiment(exp, out=tmp_path / "tx", jobs=1, quiet=True)
    res = json.loads((folder / "results" / "tournaments.json").read_text())
    assert [(r["players"], r["design"]) for r in res] == [(2, "round-robin"), (3, "hero")]
    assert res[0]["strategies"][2] == "weighted?preset=czech-2p" and res[1]["strategies"][2] == "weighted?preset=czech-3p"
    assert res[1]["field"] == ["greedy", "greedy"] and res[0]["n_decks"] == res[1]["n_decks"] == 60
    assert {tuple(s["seats"]) for s in res[0]["seatings"]} >= {("random", "greedy"), ("greedy", "random")}
    md = (folder / "report.md").read_text()
    assert "What the designs measure" in md and "one colour scale" in md
    assert md.index("## Summary") < md.index("charts/overview.png") < md.index("## What the designs measure")
    assert "**czech 2p** (round-robin)" in md and "**czech 3p** (hero)" in md
    for t, r in enumerate(res):
        for kind in ("ranking", "cross"):
            assert f"charts/{kind}_czech_{r['players']}p_{t}.png" in md
    (folder / "report.md").unlink()
    again = CliRunner().invoke(app, ["report", str(folder)])  # durak report rebuilds it from tournaments.json
    assert again.exit_code == 0, again.output
    assert (folder / "report.md").read_text() == md


@pytest.mark.parametrize("extra, words", [
    ('design = "round-robin"', "round-robin is for 2 players"),
    ('design = {2 = "round-robin", 3 = "field"}', "separate experiments"),
    ('design = "swiss"', "must be one of"),
    ('design = {1 = "hero"}', "player count"),
])
def test_design_mistakes_are_one_line_errors(extra: str, words: str) -> None:
    text = design_experiment().replace('design = {2 = "round-robin", 3 = "hero"}', extra)
    if "hero" not in extra:
        text = text.replace('reference = "greedy"\n', "")
    with pytest.raises(ExperimentError, match=words) as e:
        parse(text)
    assert "\n" not in str(e.value)


def test_a_design_experiment_can_stop_each_tournament_at_a_target_precision(tmp_path) -> None:
    text = design_experiment(players=[2], deals=6000, until_ci=4)
    exp = parse(text)
    assert exp.until_ci == 4.0 and exp.to_dict()["until_ci"] == 4.0
    folder = run_experiment(exp, out=tmp_path / "tx", jobs=1, quiet=True)
    res = json.loads((folder / "results" / "tournaments.json").read_text())
    st = res[0]["stopping"]
    assert st["verdict"] == "precise" and st["half_width"] <= 0.04 and res[0]["n_decks"] == st["decks"] < 6000
    assert "Stopping rule: until the 95% interval is within ±0.04" in (folder / "report.md").read_text()
    with pytest.raises(ExperimentError, match="until_ci"):
        parse(text.replace("until_ci = 4", "until_ci = 0"))


def test_tournaments_play_single_deals_only() -> None:
    text = design_experiment().replace("deals = 60", "matches = 5")
    with pytest.raises(ExperimentError, match="single deals"):
        parse(text)


def test_cli_until_ci_reports_the_decks_it_took() -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "hero", "--players", "2", "random", "--reference", "greedy",
                                   "--until-ci", "4", "--deals", "5000", "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    st = json.loads(res.output)["stopping"]
    assert st["verdict"] == "precise" and st["half_width"] <= 0.04 and st["decks"] % SEQ_CHUNK == 0
    assert st["budget_decks"] == 5000 and st["rule"].startswith("until the 95% interval")


@pytest.mark.parametrize("args, words", [
    (["--background", "greedy"], "names 2 strategies, got 1"),
    (["--background", "greedy,weighted", "--reference", "greedy"], "--reference or --background"),
])
def test_cli_hero_background_mistakes_are_one_line(args: list[str], words: str) -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "hero", "--players", "3", "random", *args, "--deals", "50",
                                   "--jobs", "1"])
    assert res.exit_code == 2 and words in res.output and len(res.output.strip().splitlines()) == 1


def test_cli_hero_background_fills_the_other_positions_in_order() -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "hero", "--players", "3", "random", "--background",
                                   "greedy,weighted", "--deals", "50", "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [s["seats"] for s in out["seatings"]] == [["random", "greedy", "weighted"], ["greedy", "random", "weighted"],
                                                     ["greedy", "weighted", "random"]]
