"""The tuner: CMA-ES on duplicate decks, a fair curve, a hold-out check; a toy objective
with a known optimum (no game), then weighted against a field on a tiny budget."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.runs.tune import HOLDOUT_BASE, TuneError, decks_for, hero_objective, spec_with, tune
from analyzer.report.tune_view import write_report
from strategies.weighted_presets import PRESETS

OPTIMUM = np.array([1.5, -2.0, 0.5])


def toy(noise: float = 0.3, seed: int = 0):
    """Per-deck score: a quadratic peak at OPTIMUM plus deck luck shared by every candidate on a deck
    (common random numbers) and a small candidate-specific noise, both seeded by the deck index."""
    def objective(params: np.ndarray, indices: np.ndarray) -> np.ndarray:
        luck = np.array([np.random.default_rng((seed, int(i))).normal(0, 1.0) for i in indices])
        key = np.frombuffer(np.asarray(params, np.float64).tobytes(), np.uint32)  # the candidate's own noise
        own = np.random.default_rng([seed, int(indices[0]), *key]).normal(0, noise, len(indices))
        return -0.5 * np.sum((params - OPTIMUM) ** 2) + luck + own
    return objective


def test_finds_the_known_optimum_of_a_toy_objective() -> None:
    res = tune(toy(), [0.0, 0.0, 0.0], names=["a", "b", "c"], sigma0=1.0, generations=40,
               decks_per_generation=40, holdout=200, seed=1)
    tuned = np.array([res.tuned[n] for n in "abc"])
    assert np.abs(tuned - OPTIMUM).max() < 0.35
    # hold-out margin of tuned over start: 0.5 |OPTIMUM|^2 = 3.25 less the miss; the deck luck cancels.  The
    # run differs between CPUs (cma's candidates differ in their last bits, and their own noise is keyed by those
    # bits), and a 95% interval misses the truth in 1 run of 20: so the margin must lie within 4 standard errors
    # of the truth (a chance miss 1 in 15,000; a biased margin, e.g. luck not cancelling, misses by far more)
    h = res.holdout
    se = (h["hi"] - h["lo"]) / (2 * 1.959964)
    assert abs(h["margin"] - (3.25 - 0.5 * np.sum((tuned - OPTIMUM) ** 2))) < 4 * se and h["lo"] > 3.0
    assert h["hi"] - h["lo"] < 0.2  # paired: the deck luck (sd 1) alone would make it 0.55 wide
    c = res.curve
    assert list(c.columns) == ["generation", "deals", "gain", "lo", "hi", "best_gain", "sigma", "mean"]
    assert len(c) == 40 and c["deals"].tolist() == [40 * (g + 1) for g in range(40)]
    assert c["gain"].iloc[0] == 0 and c["gain"].iloc[-5:].min() > 3.0  # the mean climbs to the peak
    assert (c["lo"] <= c["gain"]).all() and (c["gain"] <= c["hi"]).all()
    assert res.evaluations == 40 * (7 + 2) + 2  # cma's default population for 3 parameters is 7


def test_same_seed_same_run_for_any_mapper_and_global_random_state() -> None:
    kw = dict(names=["a", "b", "c"], generations=6, decks_per_generation=10, holdout=20, seed=3)
    first = tune(toy(), [0.0, 0.0, 0.0], **kw)
    np.random.seed(12345)  # numpy's global generator must not matter
    with ThreadPoolExecutor(2) as pool:
        second = tune(toy(), [0.0, 0.0, 0.0], mapper=pool.map, **kw)
    assert first.tuned == second.tuned and first.holdout == second.holdout
    assert first.curve.equals(second.curve)
    other = tune(toy(), [0.0, 0.0, 0.0], **{**kw, "seed": 4})
    assert other.tuned != first.tuned


def test_common_random_numbers_within_a_generation_and_fresh_decks_for_the_holdout() -> None:
    seen: list[tuple[tuple[float, ...], tuple[int, ...]]] = []

    def spy(params: np.ndarray, indices: np.ndarray) -> np.ndarray:
        seen.append((tuple(params), tuple(indices)))
        return -np.sum(params ** 2) + np.zeros(len(indices))

    res = tune(spy, [1.0, 1.0], generations=3, decks_per_generation=5, holdout=7, popsize=4)
    blocks = [idx for _, idx in seen]
    train = blocks[:-2]
    assert len(train) == 3 * (4 + 2)  # candidates, the mean and the start per generation
    for g in range(3):
        assert set(train[g * 6:(g + 1) * 6]) == {tuple(range(5 * g, 5 * g + 5))}  # one block per generation
    assert blocks[-2:] == [tuple(range(HOLDOUT_BASE, HOLDOUT_BASE + 7))] * 2  # fresh decks, tuned and start
    assert seen[-1][0] == (1.0, 1.0) and res.evaluations == len(seen)


def test_bounds_are_respected() -> None:
    res = tune(toy(), [0.0, 0.0, 0.0], names=["a", "b", "c"], bounds=([-1, -1, -1], [1, 1, 1]),
               generations=15, decks_per_generation=20, holdout=20, seed=2)
    assert all(-1 <= v <= 1 for v in res.tuned.values())
    assert res.tuned["a"] > 0.8 and res.tuned["b"] < -0.8  # pressed against the bounds nearest the optimum


@pytest.mark.parametrize(("kw", "words"), [
    ({"x0": []}, "non-empty vector"),
    ({"x0": [0.0], "names": ["a", "b"]}, "1 start values for 2 parameter names"),
    ({"x0": [0.0], "sigma0": 0.0}, "sigma0 must be positive"),
    ({"x0": [0.0], "generations": 0}, "generations must be at least 1, got 0"),
    ({"x0": [0.0], "holdout": 1}, "hold-out decks must be at least 2"),
    ({"x0": [5.0], "names": ["w"], "bounds": ([0], [1])}, "start outside the bounds for w"),
    ({"x0": [0.0], "popsize": 1}, "popsize must be at least 2"),
])
def test_bad_requests_are_one_line_errors(kw: dict, words: str) -> None:
    with pytest.raises(TuneError, match=words):
        tune(toy(), **kw)


def test_decks_are_named_by_index_alone() -> None:
    a = decks_for([3, 7, 3], 32, seed=1)
    assert (a[0] == a[2]).all() and not (a[0] == a[1]).all()
    assert (np.sort(a, axis=1) == np.sort(decks_for([0], 32, 1)[0])).all()
    assert (decks_for([7], 32, seed=1)[0] == a[1]).all() and not (decks_for([7], 32, seed=2)[0] == a[1]).all()


def test_spec_with_reads_back_as_the_same_weights() -> None:
    spec = spec_with("weighted", ["w_points", "w_wild"], [1.25, -0.1 + 0.2])
    assert get_strategy(spec).weights["w_wild"] == -0.1 + 0.2


WEIGHTS = ["w_points", "w_wild", "w_effect", "w_suit_len", "w_threat", "w_same_rank"]


def test_tunes_weighted_against_a_field_on_a_tiny_budget(tmp_path) -> None:
    rules = make_rules("czech", players=2)
    objective = hero_objective(rules, "weighted", WEIGHTS, reference="greedy", seed=5)
    start = np.array([1.0, -6.0, 2.0, 1.5, 5.0, 0.5])
    s1 = objective(start, np.arange(30))
    assert s1.shape == (30,) and set(np.unique(s1)) <= {-0.5, 0.0, 0.5}  # two positions, win share - 1/2
    assert (objective(start, np.arange(30)) == s1).all()  # deterministic in (params, decks)
    res = tune(objective, start, names=WEIGHTS, sigma0=2.0, generations=2, popsize=4, decks_per_generation=30,
               holdout=60, seed=0)
    assert set(res.tuned) == set(WEIGHTS) and res.holdout["n_decks"] == 60
    spec = spec_with("weighted", WEIGHTS, [res.tuned[w] for w in WEIGHTS])
    get_strategy(spec)  # the tuned spec builds
    paths = write_report(res, tmp_path, title="weighted, czech 2p vs greedy", spec=spec, command="durak tune ...")
    md = (tmp_path / "tune.md").read_text()
    assert spec in md and "Hold-out check" in md and md.count("\n| ") >= 2 + 6 + 2
    assert [p.name for p in paths] == ["tune.md", "tune_curve.csv", "tune.json"]
    with pytest.raises(TuneError, match="without parameters"):
        hero_objective(rules, "weighted?w_wild=1", WEIGHTS, reference="greedy")


def test_against_its_own_default_the_start_scores_the_fair_share_and_a_change_does_not() -> None:
    """Tuning weighted against default weighted: the start is a mirror (0 on every deck); a candidate is not
    seated against itself (the hero design merges a reference of the same name into the hero)."""
    rules = make_rules("czech", players=2)
    names = ["w_wild", "w_effect", "w_suit_len", "w_threat", "w_same_rank"]
    objective = hero_objective(rules, "weighted", names, reference="weighted", seed=2)
    assert (objective(np.array([-6.0, 2.0, 1.5, 5.0, 0.5]), np.arange(200)) == 0).all()
    other = objective(np.array([6.0, -2.0, 0.0, 0.0, 0.0]), np.arange(200))  # plays wilds first: a real change
    assert (other != 0).any()


def test_durak_tune_prints_the_spec_and_hold_out_margin_and_writes_the_report(tmp_path) -> None:
    res = CliRunner().invoke(app, ["tune", "weighted", "--variant", "czech", "--players", "2", "--budget", "120",
                                   "--decks", "40", "--holdout", "60", "--seed", "1", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["spec"].startswith("weighted") and out["generations"] == 3 and out["training_decks"] == 120
    h = out["holdout"]
    assert h["n_decks"] == 60 and h["lo"] <= h["margin"] <= h["hi"]
    get_strategy(out["spec"])
    md = (tmp_path / "tune.md").read_text()
    assert "![curve](tune_curve.png)" in md and (tmp_path / "tune_curve.png").stat().st_size > 0
    assert "durak tune weighted --variant czech --players 2" in md


def test_presets_build_their_weights_and_are_listed() -> None:
    assert {"czech-2p", "svinya-2p"} <= set(PRESETS)
    for name, entry in PRESETS.items():
        w = get_strategy(f"weighted?preset={name}").weights
        assert w == {**get_strategy("weighted").weights, **entry["weights"]}
        assert entry["report"].startswith("reports/tuning/") and entry["command"].startswith("durak tune weighted")
    with pytest.raises(ValueError, match="preset or weights"):
        get_strategy("weighted?preset=czech-2p,w_wild=-1")
    with pytest.raises(ValueError, match="unknown weighted preset 'moscow-2p'"):
        get_strategy("weighted?preset=moscow-2p")
    out = CliRunner().invoke(app, ["strategies"]).output
    assert all(f"weighted?preset={name}:" in out for name in PRESETS)
    assert out.count("?preset=czech-2p") == 1  # under weighted only, not repeated for strategies built on it
