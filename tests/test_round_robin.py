"""``durak compare --design round-robin`` (issue 14): every pair in both seatings on the same decks, ratings."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.tournament_run import run_round_robin, tournament_chunk
from analyzer.stats.tournament import round_robin

#: plays exactly like weighted (its score is an argmax, so scaling every weight changes nothing)
TWIN = "weighted?w_points=2,w_wild=-12,w_effect=4,w_suit_len=3,w_threat=10,w_same_rank=1"


def test_both_seatings_play_the_same_decks() -> None:
    """Two specs that play alike: both seatings give the same wins by position, deck by deck."""
    rules = make_rules("czech", 2, {})
    design = round_robin(["weighted", TWIN], 2)
    assert [design.lineup(t) for t in range(2)] == [("weighted", TWIN), (TWIN, "weighted")]
    first, second = tournament_chunk(rules, design, 300, 3, 0)
    assert np.array_equal(first, second)
    assert 0 < first[:, 0].mean() < 1


def test_cli_json_reports_every_pair_in_both_seatings_with_holm_verdicts_and_ratings() -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "round-robin", "--variant", "czech", "--players", "2",
                                   "random", "greedy", "weighted", "--deals", "600", "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    seatings = {tuple(s["seats"]) for s in out["seatings"]}
    assert seatings == {(a, b) for a in ("random", "greedy", "weighted") for b in ("random", "greedy", "weighted")
                        if a != b}
    assert {(p["a"], p["b"]) for p in out["pairs"]} == {("random", "greedy"), ("random", "weighted"),
                                                        ("greedy", "weighted")}
    assert all("p_holm" in p and "verdict" in p and p["lo"] <= p["margin"] <= p["hi"] for p in out["pairs"])
    assert {r["strategy"] for r in out["ratings"]} == {"random", "greedy", "weighted"}
    assert out["n_decks"] == 600 and out["deals_played"] == 600 * 6


def test_same_numbers_for_any_jobs() -> None:
    rules = make_rules("svinya", 2, {})
    one = run_round_robin(rules, ["random", "greedy"], 500, seed=4, jobs=1, chunk=100, boot=50)
    two = run_round_robin(rules, ["random", "greedy"], 500, seed=4, jobs=2, chunk=100, boot=50)
    assert one["pairs"] == two["pairs"] and one["ratings"] == two["ratings"]


def test_round_robin_is_for_two_players_only() -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "round-robin", "--players", "3", "greedy", "weighted",
                                   "--deals", "10"])
    assert res.exit_code == 2
    assert len(res.output.strip().splitlines()) == 1 and "player" in res.output
