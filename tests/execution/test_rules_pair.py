"""Two rule sets side by side (durak compare-rules): shared decks, paired differences, calibrated intervals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.rules_pair import play_pair
from analyzer.stats.paired import rules_differences
from tests import planted_sim


def test_the_interval_covers_a_planted_difference() -> None:
    """tests.planted_sim: seat 0 wins 1/4 + 0.08 under the default rules and 1/4 with sevens and eight_stop
    on; deals last exactly 5 turns longer with sevens.  The paired 95% interval of A − B covers −0.08 about
    95% of the time, and the length difference is exact (the same stream under both rule sets)."""
    a = make_rules("czech", 4, planted_sim.PLANTED)
    b = make_rules("czech", 4)
    covered, runs = 0, 80
    for seed in range(runs):
        ca, cb = play_pair(a, b, ["random"], 800, seed=seed, simulator="tests.planted_sim")
        t = rules_differences(ca, cb, 4).set_index(["quantity", "seat"], drop=False)
        win0 = t.loc[("win", 0)]
        covered += bool(win0["lo"] <= -planted_sim.EDGE <= win0["hi"])
        turns = t[t["quantity"] == "turns"].iloc[0]
        assert turns["diff"] == pytest.approx(5) and turns["hi"] - turns["lo"] == pytest.approx(0)
    assert 0.88 <= covered / runs <= 1.0, covered


def test_the_same_decks_and_streams_under_both_rule_sets() -> None:
    """A rule that never acts in these deals (a turn cap no random czech 2p deal reaches) leaves every deck's
    outcome as it was: every difference is exactly 0, with no width -- the decks and streams are shared."""
    a, b = make_rules("czech", 2), make_rules("czech", 2, {"turn_cap": 5000})
    ca, cb = play_pair(a, b, ["random"], 3000, seed=5)
    assert all(np.array_equal(ca[k], cb[k]) for k in ca)
    t = rules_differences(ca, cb, 2)
    assert (t["diff"] == 0).all() and (t["hi"] - t["lo"] == 0).all() and (t["n"] == 3000).all()
    assert (t["a_hi"] > t["a_lo"]).sum() >= 5  # the levels themselves have intervals


def test_compare_rules_prints_every_seat_and_quantity() -> None:
    res = CliRunner().invoke(app, ["compare-rules", "-a", "sevens=on", "-b", "sevens=off", "--players", "3",
                                   "--deals", "500", "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert (out["a"], out["b"], out["decks"]) == ("sevens=on", "default rules", 500)
    assert [(r["quantity"], r["seat"]) for r in out["rows"]] == [
        ("win", 0), ("win", 1), ("win", 2), ("loss", 0), ("loss", 1), ("loss", 2), ("turns", None), ("jack", None)]
    assert out["jack_note"].startswith("The Jack's share is 0 by the rules")
    table = CliRunner().invoke(app, ["compare-rules", "-a", "sevens=on", "--players", "3", "--deals", "300", "-q"])
    assert table.exit_code == 0 and "A − B [95% CI] (paired)" in table.stdout and "дурак rate" in table.stdout


@pytest.mark.parametrize("args, culprit", [
    (["-a", "deck_size=36"], "deck_size differs (36 and 32 cards)"),
    (["-a", "sevens=off"], "give the same rules"),
    (["-a", "seven_chain=accumulate"], "changes nothing without sevens=on"),
    (["--deals", "1"], "at least 2"),
])
def test_compare_rules_refuses_in_one_line(args: list[str], culprit: str) -> None:
    res = CliRunner().invoke(app, ["compare-rules", *args, "-b", "sevens=off"] if "-b" not in args else args)
    assert res.exit_code == 2 and culprit in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.output
