"""``durak compare --design round-robin``: every pair in both seatings on the same decks, ratings."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.executor import play_decks
from analyzer.execution.runs.tournament import run_round_robin, tournament_chunk
from analyzer.execution.seeds import chunk_seed, content_text
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


def test_swapped_hands_play_every_deck_four_ways_each_strategy_each_hand_in_each_seat() -> None:
    rules = make_rules("czech", 2, {})
    design = round_robin(["greedy", "weighted", "suit-keeper"], 2, swap_hands=True)
    assert len(design.tables) == 3 * 4 and "both hands of every deck" in design.measures
    for g in range(3):
        mine = [t for t in design.tables if t.group == g]
        i, j = design.pairs[g]
        # (strategy, seat, canonical hand): every strategy of the pair plays each hand in each seat once
        assert {(t.seats[p], p, t.hands[p]) for t in mine for p in range(2)} == {
            (s, p, h) for s in (i, j) for p in range(2) for h in range(2)}
    wins = tournament_chunk(rules, design, 300, 3, 0)
    # the swapped tables play the decks with the two hands exchanged (card i of a hand goes to the other player)
    deck_ss, sim_ss = chunk_seed(3, "tournament", content_text(rules, [], "deal"), 0).spawn(2)  # the chunk's decks
    dk = shuffled_decks(rules.deck_size, 300, np.random.default_rng(deck_ss))
    swapped = dk.copy()
    h2 = 2 * rules.hand_size
    swapped[:, 0:h2:2], swapped[:, 1:h2:2] = dk[:, 1:h2:2], dk[:, 0:h2:2]
    res = play_decks(rules, [get_strategy("greedy"), get_strategy("weighted")], swapped, sim_ss)
    assert np.array_equal(wins[2][:, 0], (res.winner == 0).astype(float))  # table 2: greedy first, hands swapped
    assert not np.array_equal(wins[2], wins[0])


def test_cli_swap_hands_reports_narrowing_per_game_and_per_deck() -> None:
    res = CliRunner().invoke(app, ["compare", "--design", "round-robin", "--players", "2", "--swap-hands", "greedy", "weighted",
                                   "--deals", "400", "--jobs", "1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["deals_played"] == 400 * 4 and len(out["seatings"]) == 4
    assert [s.get("hands", [0, 1]) for s in out["seatings"]] == [[0, 1], [0, 1], [1, 0], [1, 0]]
    p = out["pairs"][0]
    assert p["games_per_deck"] == 4 and p["narrowing_per_deck"] > p["narrowing"] > 1
    two = json.loads(CliRunner().invoke(app, ["compare", "--design", "round-robin", "--players", "2", "greedy", "weighted",
                                              "--deals", "400", "--jobs", "1", "--json"]).output)["pairs"][0]
    assert two["games_per_deck"] == 2 and two["narrowing_per_deck"] == two["narrowing"]
