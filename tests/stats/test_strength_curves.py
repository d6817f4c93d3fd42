"""Strength curves: a round-robin of chosen pairs, and one family at several budgets on the same decks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from analyzer.core.rules import make_rules
from analyzer.execution.experiment import ExperimentError
from analyzer.execution.runs import run_experiment
from analyzer.execution.runs.tournament import run_design
from analyzer.stats.ratings import round_robin_summary
from analyzer.stats.strength import families, family_of, strength_curves
from analyzer.stats.tournament import TournamentError, head_to_head, make_design, round_robin

FIELD = ["ref", "pimc?budget=100", "pimc?budget=400", "pimc?budget=1600", "ismcts?budget=50", "ismcts?budget=200",
         "ismcts?budget=800"]
PAIRS = [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 4), (2, 5), (3, 6)]


def test_chosen_pairs_play_only_those_pairs_each_in_both_seatings_on_one_deck_stream() -> None:
    d = round_robin(FIELD, 2, pairs=[list(p) for p in PAIRS])
    assert d.pairs == PAIRS and len(d.tables) == 2 * len(PAIRS)
    assert {t.deck_stream for t in d.tables} == {0}
    for g, (i, j) in enumerate(PAIRS):
        assert sorted(t.seats for t in d.tables if t.group == g) == [(i, j), (j, i)]
    assert "9 chosen pairs of 7 strategies" in d.measures
    by_spec = round_robin(FIELD[:3], 2, pairs=[["pimc?budget=400", "ref"], [2, 1]])
    assert by_spec.pairs == [(0, 2), (1, 2)]  # specs or indices, each pair in index order


@pytest.mark.parametrize(("pairs", "words"), [
    ([[0, 9]], "not an index"), ([[0, "greedy"]], "neither an index nor one of"), ([[1, 1]], "one strategy twice"),
    ([[0, 1], [1, 0]], "given twice"), ([[0]], "names two strategies"), ([], "pairs is empty"),
    ([[0, 1], [2, 3], [0, 4], [0, 5], [0, 6]], "leave 'pimc\\?budget=400', 'pimc\\?budget=1600' unlinked")])
def test_chosen_pair_mistakes_are_one_line_errors(pairs: list[list[object]], words: str) -> None:
    with pytest.raises(TournamentError, match=words):
        round_robin(FIELD, 2, pairs=pairs)


def test_chosen_pairs_belong_to_the_round_robin() -> None:
    with pytest.raises(TournamentError, match="round-robin"):
        make_design("hero", FIELD[:2], 2, reference="greedy", pairs=[[0, 1]])


def test_a_budget_family_is_the_spec_without_its_budget() -> None:
    assert family_of("pimc?worlds=4096,budget=10000") == ("pimc?worlds=4096", 10000.0)
    assert family_of("pimc?budget=10") == ("pimc", 10.0)
    assert family_of("weighted?preset=czech-2p") is None
    fams = families(FIELD)
    assert fams == {"pimc": [(100.0, 1), (400.0, 2), (1600.0, 3)], "ismcts": [(50.0, 4), (200.0, 5), (800.0, 6)]}


def _scores(rates: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
    d = len(next(iter(rates.values())))
    s = np.full((d, len(FIELD), len(FIELD)), np.nan)
    for (i, j), x in rates.items():
        s[:, i, j], s[:, j, i] = x, 1.0 - x
    return s


def test_a_curve_rises_where_the_paired_gain_is_above_zero_and_stops_where_it_is_not() -> None:
    rng = np.random.default_rng(0)
    luck = rng.random(2000)  # the decks' own difficulty, shared by every pair: pairing removes it
    def wins(p: float) -> np.ndarray:
        return (luck < p).astype(float)
    other = (rng.random(2000) < 0.55).astype(float)  # as strong as step 400, on its own luck: no gain
    s = _scores({(1, 0): wins(0.40), (2, 0): wins(0.55), (3, 0): other, (4, 0): wins(0.5), (5, 0): wins(0.5),
                 (6, 0): wins(0.5), (1, 4): wins(0.5), (2, 5): wins(0.5), (3, 6): wins(0.5)})
    d = round_robin(FIELD, 2, pairs=[list(p) for p in PAIRS])
    curves = strength_curves(d, s, defaults={"pimc": 400.0})
    pimc = next(c for c in curves if c["family"] == "pimc" and c["against"] == "ref")
    assert [p["multiple"] for p in pimc["points"]] == [0.25, 1.0, 4.0]
    assert pimc["points"][1]["gain"]["lo"] > 0.1  # +15 pp, paired: +-1.6 pp
    assert pimc["last_gain_at"] == 400.0 and pimc["stops_rising_at"] == 1600.0
    assert all(p["lo"] <= p["rate"] <= p["hi"] for p in pimc["points"])
    ism = next(c for c in curves if c["family"] == "ismcts")
    assert ism["stops_rising_at"] == 200.0 and ism["last_gain_at"] is None and ism["points"][0]["multiple"] is None
    cross = next(c for c in curves if c["against"] == "ismcts at the same step")
    assert [p["opponent"] for p in cross["points"]] == FIELD[4:] and all("gain" not in p for p in cross["points"])


def test_a_curve_that_gains_again_after_a_flat_step_is_still_rising() -> None:
    rng = np.random.default_rng(2)
    luck = rng.random(3000)
    flat = (rng.random(3000) < 0.45).astype(float)  # as strong as the first step, on its own luck
    s = _scores({(1, 0): (luck < 0.45).astype(float), (2, 0): flat, (3, 0): (luck < 0.65).astype(float),
                 (4, 0): np.ones(3000), (5, 0): np.ones(3000), (6, 0): np.ones(3000),
                 (1, 4): np.ones(3000), (2, 5): np.ones(3000), (3, 6): np.ones(3000)})
    (pimc, *_) = strength_curves(round_robin(FIELD, 2, pairs=[list(p) for p in PAIRS]), s)
    assert pimc["points"][1]["gain"]["lo"] < 0 < pimc["points"][2]["gain"]["lo"]
    assert pimc["last_gain_at"] == 1600.0 and pimc["stops_rising_at"] is None  # still rising at the top


def test_no_curve_without_a_pair_at_every_step() -> None:
    d = round_robin(FIELD, 2, pairs=[[0, 1], [0, 2], [1, 4], [1, 3], [4, 5], [4, 6]])
    s = _scores({(1, 0): np.ones(10), (2, 0): np.ones(10), (1, 4): np.ones(10)})
    curves = strength_curves(d, s)
    assert [(c["family"], c["against"]) for c in curves] == [("pimc", "ref")]
    assert [p["budget"] for p in curves[0]["points"]] == [100.0, 400.0]  # the unplayed step 1600 is not a point


def test_the_summary_of_chosen_pairs_lists_them_and_rates_through_the_reference() -> None:
    d = round_robin(FIELD[:3], 2, pairs=[[0, 1], [0, 2]])
    rng = np.random.default_rng(1)
    wins = [np.column_stack([x := (rng.random(300) < 0.6).astype(float), 1 - x]) for _ in d.tables]
    out = round_robin_summary(d, wins, boot=50)
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [("ref", "pimc?budget=100"), ("ref", "pimc?budget=400")]
    assert {r["strategy"] for r in out["ratings"]} == set(FIELD[:3])  # linked through ref, never met each other
    s = head_to_head(d, wins)
    assert np.isnan(s[:, 1, 2]).all() and not np.isnan(s[:, 0, 1]).any()


def test_an_experiment_of_chosen_pairs_reports_its_strength_curve(tmp_path: Path) -> None:
    exp = tmp_path / "s.toml"
    exp.write_text('name = "s"\nvariants = ["czech"]\nplayers = [2]\ndesign = "round-robin"\n'
                   'field = ["greedy", "pimc?worlds=32,budget=200", "pimc?worlds=32,budget=800"]\n'
                   'pairs = [["greedy", "pimc?worlds=32,budget=200"], [0, 2]]\n'
                   'deals = 30\nchunk_size = 15\nreports = ["head_to_head"]\n')
    folder = run_experiment(exp, out=tmp_path / "out", jobs=1, quiet=True)
    (res,) = json.loads((folder / "results" / "tournaments.json").read_text())
    assert len(res["pairs"]) == 2 and res["deals_played"] == 30 * 4
    (curve,) = res["strength"]
    assert curve["against"] == "greedy" and [p["multiple"] for p in curve["points"]] == [0.005, 0.02]
    report = (folder / "report.md").read_text()
    assert "Strength by budget" in report and (folder / "charts" / "strength_czech_2p_0.png").is_file()
    summary = report.split("## Summary", 1)[1].split("\n## ", 1)[0]  # the first screen names the curve too
    assert "- **czech 2p**, strength by budget: pimc?worlds=32 against greedy " in summary, summary


def test_pairs_in_an_experiment_need_the_round_robin(tmp_path: Path) -> None:
    exp = tmp_path / "s.toml"
    exp.write_text('name = "s"\nvariants = ["czech"]\nplayers = [2]\nfield = ["greedy", "random"]\n'
                   'pairs = [[0, 1]]\ndeals = 30\n')
    with pytest.raises(ExperimentError, match="'pairs'.*round-robin"):
        run_experiment(exp, out=tmp_path / "out", jobs=1, quiet=True)
    exp.write_text('name = "s"\nvariants = ["czech"]\nplayers = [2]\nfield = ["greedy", "random"]\n'
                   'design = "round-robin"\npairs = [[0, 5]]\ndeals = 30\n')
    with pytest.raises(ExperimentError, match="'pairs'.*not an index"):
        run_experiment(exp, out=tmp_path / "out", jobs=1, quiet=True)


def test_run_design_of_chosen_pairs_plays_only_those_tables() -> None:
    rules = make_rules("czech", 2, {})
    d = round_robin(["greedy", "random", "weighted"], 2, pairs=[[0, 1], [0, 2]])
    out = run_design(rules, d, 40, seed=1, jobs=1, boot=20)
    assert out["deals_played"] == 160 and len(out["pairs"]) == 2 and "strength" not in out
