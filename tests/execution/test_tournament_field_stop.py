"""``--until-ci`` and ``--sprt`` on the field design (``durak compare``'s rotations)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.runs.compare import SEQ_DECKS, run_compare, run_compare_until
from analyzer.stats.compare import SCORES, CompareError, summarize_comparison
from analyzer.stats.sequential import Sprt, UntilCI

#: a user strategy (tests/plugin_example.py), so worker processes play on the numpy simulator (no kernel compile)
HIGHEST = "tests/plugin_example.py:HighestCard"
CZECH2 = make_rules("czech", 2, {})


@pytest.mark.parametrize("rule", [UntilCI(0.04), Sprt.better_by(0.05)], ids=["until-ci", "sprt"])
def test_field_stops_at_the_same_deck_for_any_jobs_on_the_first_chunks_of_a_straight_run(rule) -> None:
    one, st1 = run_compare_until(CZECH2, [HIGHEST, "greedy"], 4000, rule, seed=3, jobs=1, chunk=200)
    two, st2 = run_compare_until(CZECH2, [HIGHEST, "greedy"], 4000, rule, seed=3, jobs=2, chunk=200)
    assert {k: v for k, v in st1.items() if k != "discarded_decks"} == {
        k: v for k, v in st2.items() if k != "discarded_decks"}
    assert all(np.array_equal(one.scores[m], two.scores[m]) for m in SCORES)
    assert st1["stopped"] and st1["decks"] == one.n_decks == st1["chunks"] * 200 < 4000
    assert st1["deals"] == one.deals_played == st1["decks"] * 2
    straight = run_compare(CZECH2, [HIGHEST, "greedy"], st1["decks"], seed=3, jobs=1, chunk=200)
    assert all(np.array_equal(one.scores[m], straight.scores[m]) for m in SCORES)  # the same decks, dealt alike
    diff = float(summarize_comparison(one)["pairs"][0]["diff"])
    if isinstance(rule, Sprt):  # the two differ by far more than 5 pp: the SPRT names the better one
        assert abs(diff) > 0.05 and st1["verdict"] == ("H1" if diff > 0 else "H0")
        assert st1["llr"] >= st1["bounds"][1] or st1["llr"] <= st1["bounds"][0]
    else:
        assert st1["verdict"] == "precise" and st1["half_width"] <= 0.04 and st1["chunks"] > 2


def test_until_ci_watches_every_pair_of_the_field() -> None:
    cmp, st = run_compare_until(make_rules("czech", 3, {}), ["random", "greedy", "weighted"], 3000, UntilCI(0.03),
                                seed=1, jobs=1, chunk=300)
    out = summarize_comparison(cmp)
    widest = max(p["hi"] - p["lo"] for p in out["pairs"]) / 2
    assert st["verdict"] == "precise" and widest <= 0.03 + 1e-9 and len(out["pairs"]) == 3
    assert abs(widest - st["half_width"]) < 1e-9  # the rule watched the pairs the output reports


def test_the_budget_bounds_a_field_run() -> None:
    cmp, st = run_compare_until(CZECH2, ["greedy", "weighted"], 500, UntilCI(0.001), seed=0, jobs=1, chunk=200)
    assert st["verdict"] == "budget" and not st["stopped"] and cmp.n_decks == 500 and st["chunks"] == 3


def test_the_sprt_on_a_field_of_three_says_why_in_one_line() -> None:
    with pytest.raises(CompareError, match="SPRT compares two strategies; this field of 3 has 3 pairs") as e:
        run_compare_until(CZECH2, ["random", "greedy", "weighted"], 1000, Sprt.better_by(0.02), jobs=1)
    assert "\n" not in str(e.value)


def test_cli_field_until_ci_reports_the_decks_it_took() -> None:
    res = CliRunner().invoke(app, ["compare", "random", "greedy", "--until-ci", "4", "--deals", "5000",
                                   "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    st = out["stopping"]
    assert st["verdict"] == "precise" and st["half_width"] <= 0.04 and st["decks"] % SEQ_DECKS == 0
    assert st["decks"] == out["n_decks"] < 5000 and st["budget_decks"] == 5000
    text = CliRunner().invoke(app, ["compare", "random", "greedy", "--until-ci", "4", "--deals", "5000",
                                    "--jobs", "1"])
    assert text.exit_code == 0 and "Stopping rule: until the 95% interval" in " ".join(text.output.split())


def test_cli_field_sprt_with_three_strategies_is_one_line() -> None:
    res = CliRunner().invoke(app, ["compare", "random", "greedy", "weighted", "--sprt", "2", "--deals", "5000",
                                   "--jobs", "1"])
    assert res.exit_code == 2 and "use --until-ci" in res.output and len(res.output.strip().splitlines()) == 1


def test_until_ci_in_a_field_experiment_says_why_it_cannot_stop_in_one_line() -> None:
    import tomllib

    from analyzer.execution.experiment import ExperimentError, parse_experiment

    text = 'name = "f"\nvariant = "czech"\nplayers = [2]\nfield = ["random", "greedy"]\ndeals = 100\nuntil_ci = 1\n'
    with pytest.raises(ExperimentError, match="no paired margin to watch") as e:
        parse_experiment(tomllib.loads(text), source="f.toml")
    assert "\n" not in str(e.value) and "durak compare --until-ci" in str(e.value)


def test_cli_field_until_ci_out_keeps_the_rule_in_the_command_and_the_json(tmp_path) -> None:
    res = CliRunner().invoke(app, ["compare", "random", "greedy", "--players", "2", "--until-ci", "4", "--deals",
                                   "5000", "--jobs", "1", "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "c" / "compare.json").read_text())["stopping"]["verdict"] == "precise"
    assert "--until-ci 4 --out" in (tmp_path / "c" / "compare.md").read_text()
