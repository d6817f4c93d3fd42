"""``durak compare``: duplicate deals through rotated line-ups, paired differences, narrowing, CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.runs import compare as compare_run
from analyzer.report import compare_view
from analyzer.stats import compare, design
from analyzer.stats.intervals import holm

CZECH4 = make_rules("czech", 4)


# ---------------------------------------------------------------- line-ups
@pytest.mark.parametrize("k, players, expected", [
    (3, 4, [[0, 1, 2, 0], [1, 2, 0, 1], [2, 0, 1, 2]]),  # fewer strategies than seats: they repeat
    (3, 2, [[0, 1], [1, 2], [2, 0]]),  # more strategies than seats: first N of each rotation
    (2, 4, [[0, 1, 0, 1], [1, 0, 1, 0]]),
    (4, 4, [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]),
])
def test_lineups_rotate_every_strategy_through_every_position(k: int, players: int,
                                                              expected: list[list[int]]) -> None:
    ups = design.lineups(k, players)
    assert ups == expected
    for p in range(players):  # each strategy sits in each position exactly once per deck
        assert sorted(up[p] for up in ups) == list(range(k))


def test_labels_tell_a_repeated_spec_apart() -> None:
    assert design.labels(["greedy", "random", "greedy", "greedy"]) == ["greedy", "random", "greedy#2", "greedy#3"]


def test_the_engine_gets_the_rotated_lineups_on_the_same_decks(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[list[str], np.ndarray]] = []
    real = compare_run.play_decks

    def spy(rules: Any, strategies: list[Any], decks: np.ndarray, seed: Any, **kw: Any) -> Any:
        calls.append(([s.name for s in strategies], decks.copy()))
        return real(rules, strategies, decks, seed, **kw)

    monkeypatch.setattr(compare_run, "play_decks", spy)
    compare_run.run_compare(CZECH4, ["greedy", "random", "weighted"], 50, seed=3)
    assert [c[0] for c in calls] == [["greedy", "random", "weighted", "greedy"],
                                      ["random", "weighted", "greedy", "random"],
                                      ["weighted", "greedy", "random", "weighted"]]
    assert all(np.array_equal(calls[0][1], c[1]) for c in calls)  # duplicate: one set of decks


def test_scores_are_means_over_the_places_a_strategy_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake game won by the first seat of strategy A: A scores k/N per deck, the others 0."""
    real = compare_run.play_decks

    def fake(rules: Any, strategies: list[Any], decks: np.ndarray, seed: Any, **kw: Any) -> Any:
        res = real(rules, strategies, decks, seed, **kw)
        first_a = next(p for p, s in enumerate(strategies) if s.name == "wild-keeper")
        res.winner[:] = first_a
        res.loser[:] = (first_a + 1) % rules.players
        return res

    monkeypatch.setattr(compare_run, "play_decks", fake)
    cmp = compare_run.run_compare(CZECH4, ["wild-keeper", "greedy", "random"], 40, seed=1)
    assert np.allclose(cmp.scores["win"], [[3 / 4, 0, 0]])
    assert np.allclose(cmp.scores["win_rot"].sum(axis=1), cmp.scores["win"])
    assert np.allclose(cmp.scores["loss"].sum(axis=1), 3 / 4)  # one loser per game, 3 games, 4 places each
    out = compare.summarize_comparison(cmp)
    assert out["ranking"][0]["strategy"] == "wild-keeper" and out["ranking"][0]["win_rate"] == 0.75


# ---------------------------------------------------------------- known answers
@pytest.mark.parametrize("spec", ["greedy", "random"])
def test_a_strategy_against_itself_differs_by_exactly_zero_on_every_deck(spec: str) -> None:
    cmp = compare_run.run_compare(CZECH4, [spec, spec], 400, seed=5)
    for m in compare.METRICS:
        assert np.array_equal(cmp.scores[m][:, 0], cmp.scores[m][:, 1])  # common random numbers: random too
    out = compare.summarize_comparison(cmp)
    (pair,) = out["pairs"]
    assert (pair["a"], pair["b"]) == (spec, f"{spec}#2")
    assert pair["diff"] == 0 and pair["lo"] == 0 and pair["hi"] == 0 and pair["p"] == 1.0
    assert pair["verdict"] == "not distinguishable"


def test_greedy_beats_random_in_czech_4p_after_holm() -> None:
    out = compare.summarize_comparison(compare_run.run_compare(CZECH4, ["random", "greedy"], 3000, seed=11))
    (pair,) = out["pairs"]
    assert pair["verdict"] == "greedy better than random"
    assert pair["hi"] < 0 and pair["p_holm"] < 0.01
    assert [r["strategy"] for r in out["ranking"]] == ["greedy", "random"]
    g = out["ranking"][0]
    assert g["lo"] < g["win_rate"] < g["hi"] and g["n"] == 3000 * 4


def test_duplicate_design_narrows_the_interval_for_deterministic_strategies() -> None:
    out = compare.summarize_comparison(compare_run.run_compare(CZECH4, ["greedy", "weighted"], 4000, seed=2))
    (nw,) = out["narrowing"]
    assert nw["ratio"] > 1.3 and nw["ratio_fresh_decks"] > 1.3
    assert nw["paired_half_width"] < nw["independent_half_width"]
    assert out["narrowing_median"] == nw["ratio_fresh_decks"]
    assert "narrows the interval by" in compare_view.headline(out)


def test_holm_verdicts_over_all_pairs() -> None:
    out = compare.summarize_comparison(compare_run.run_compare(CZECH4, ["greedy", "random", "weighted"], 600, seed=4))
    pairs = out["pairs"]
    assert [(p["a"], p["b"]) for p in pairs] == [("greedy", "random"), ("greedy", "weighted"), ("random", "weighted")]
    assert np.allclose([p["p_holm"] for p in pairs], holm([p["p"] for p in pairs]), rtol=1e-12, atol=0)
    for p in pairs:  # a winner is named only when the interval excludes 0
        if p["lo"] <= 0 <= p["hi"]:
            assert p["verdict"] == "not distinguishable"


def test_results_depend_on_the_seed_not_on_jobs() -> None:
    a = compare_run.run_compare(CZECH4, ["greedy", "random"], 300, seed=9, jobs=1, chunk=100)
    b = compare_run.run_compare(CZECH4, ["greedy", "random"], 300, seed=9, jobs=2, chunk=100)
    assert all(np.array_equal(a.scores[m], b.scores[m]) for m in compare.SCORES)


def test_matches_use_win_share_and_replay_with_more_decks_when_short() -> None:
    rules = make_rules("czech", 2, {"target": "60"})
    part = compare_run.compare_chunk(rules, ["greedy", "weighted"], 30, 0, 0, True, match_decks=2)  # 2 decks: must grow
    win = part["scores"]["win"]
    assert win.shape == (30, 2) and np.allclose(win.sum(axis=1), 1.0)  # two players share every match
    assert part["deals"] > 2 * 2 * 30
    cmp = compare_run.run_compare(make_rules("czech", 3, {"target": "100"}), ["greedy", "weighted"], 40, seed=1,
                              matches=True)
    out = compare.summarize_comparison(cmp)
    assert out["unit"] == "match" and out["games"] == 80 and out["deals_played"] > 80
    assert np.allclose(cmp.scores["win"].sum(axis=1), 2 / 3)  # 2 games, one win shared among 3 places each


def test_tracker_and_pimc_play_on_the_batch_views_in_deals_and_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tracker and pimc read the batch views' history (no table runner), in deals and in matches (G11):
    pimc's matches play on the paused kernel, every rotation on the same decks, hands dealt by player under SV2."""
    def refuse(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("tracker and pimc must not need the table runner")

    from analyzer.execution import executor

    monkeypatch.setattr(executor, "simulate_observed", refuse)  # play_decks' table runner
    monkeypatch.setattr(compare_run, "simulate_observed_matches", refuse)
    part = compare_run.compare_chunk(make_rules("czech", 2), ["tracker", "weighted"], 20, 0, 0, False)
    assert np.allclose(part["scores"]["win"].sum(axis=1), 1.0)
    seen: list[Any] = []
    real = compare_run.simulate_chunk

    def spy(rules: Any, strategies: list[Any], n: int, seed: Any, **kw: Any) -> Any:
        seen.append((kw["decks"].copy(), kw.get("hands")))
        return real(rules, strategies, n, seed, **kw)

    monkeypatch.setattr(compare_run, "simulate_chunk", spy)
    rules = make_rules("svinya", 2, {"target": "30"})
    part = compare_run.compare_chunk(rules, ["pimc?budget=300,worlds=8", "greedy"], 2, 0, 0, True)
    assert len(seen) == 2 and np.array_equal(seen[0][0], seen[1][0])  # both seatings, the same decks
    assert seen[0][1] is not None  # svinya: hands by player
    assert np.allclose(part["scores"]["win"].sum(axis=1), 1.0)


# ---------------------------------------------------------------- CLI
runner = CliRunner()


def test_cli_json_has_the_fields() -> None:
    r = runner.invoke(app, ["compare", "--variant", "czech", "--players", "4", "greedy", "random", "weighted",
                            "--deals", "200", "--seed", "1", "--jobs", "1", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["n_decks"] == 200 and out["games"] == 600 and out["unit"] == "deal"
    assert {"strategy", "win_rate", "lo", "hi"} <= set(out["ranking"][0])
    assert len(out["pairs"]) == 3 and len(out["narrowing"]) == 3
    assert {"a", "b", "diff", "lo", "hi", "p", "p_holm", "verdict"} <= set(out["pairs"][0])
    assert {"a", "b", "paired_half_width", "independent_half_width", "ratio"} <= set(out["narrowing"][0])
    assert out["lineups"][1] == ["random", "weighted", "greedy", "random"]


def test_cli_human_output_and_out_folder(tmp_path: Path) -> None:
    folder = tmp_path / "cmp"
    r = runner.invoke(app, ["compare", "--players", "3", "greedy", "random", "--deals", "300", "--jobs", "1",
                            "--out", str(folder)])
    assert r.exit_code == 0, r.output
    assert "duplicate design" in r.stdout
    md = (folder / "compare.md").read_text()
    assert "| greedy better than random |" in md
    assert "durak compare --variant czech --players 3 greedy random --deals 300" in md and "narrow" in md
    assert json.loads((folder / "compare.json").read_text())["n_decks"] == 300
    assert (folder / "compare_heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, culprit", [
    (["greedy", "nope"], "nope"),
    (["--variant", "bridge", "greedy", "random"], "bridge"),
    (["--rule", "sevens", "greedy", "random"], "sevens"),
    (["--rule", "color=red", "greedy", "random"], "color"),
    (["--deals", "0", "greedy", "random"], "--deals"),
    (["--deals", "-5", "greedy", "random"], "--deals"),
    (["--matches", "0", "greedy", "random"], "--matches"),
    (["greedy"], "two strategies"),
    (["--deals", "10", "--matches", "10", "greedy", "random"], "not both"),
    (["--variant", "prague", "--players", "3", "--matches", "5", "greedy", "random"], "target"),
    (["--variant", "svinya", "--players", "5", "greedy", "random"], "svinya"),
])
def test_cli_user_errors_are_one_line_and_exit_2(args: list[str], culprit: str) -> None:
    r = runner.invoke(app, ["compare", *args])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("durak: error:") and culprit in lines[0]


# ---------------------------------------------------------------- statistics that are right
def _fake_comparison(diff_per_deck: np.ndarray) -> compare.Comparison:
    """Two strategies whose per-deck win scores differ by ``diff_per_deck`` (deals, 2 players)."""
    d = diff_per_deck.size
    a = 0.5 + diff_per_deck / 2
    win = np.stack([a, 1 - a], axis=1)
    return compare.Comparison(rules=make_rules("czech", 2), specs=["x", "y"], names=["x", "y"], matches=False,
                              seed=0, scores={"win": win, "loss": 1 - win, "points": win * 0,
                                              "win_rot": np.stack([win / 2, win / 2], axis=1)},
                              capped=0, deals_played=2 * d, seconds=0.0)


def test_json_keeps_tiny_p_values_and_the_table_shows_them() -> None:
    """A p-value of about 1e-8 is neither rounded to 0 in the JSON nor shown as <1e-15."""
    rng = np.random.default_rng(0)
    diff = rng.normal(0.0, 1.0, 400)
    diff = (diff - diff.mean()) / diff.std(ddof=1) * 0.1 + 0.1 * 5.73 / np.sqrt(400)  # z = 5.73: p ≈ 1e-8
    out = compare.summarize_comparison(_fake_comparison(diff))
    (pair,) = out["pairs"]
    assert 5e-9 < pair["p"] < 2e-8
    assert json.loads(json.dumps(out))["pairs"][0]["p"] == pair["p"]
    md = compare_view.markdown(out)
    assert f"| {pair['p']:.2g} |" in md and "<1e-15" not in md


def test_a_verdict_needs_both_the_interval_and_the_holm_p_value() -> None:
    """One verdict rule: an interval that excludes 0 with a Holm p above 0.05 is not a winner."""
    from analyzer.stats.intervals import agreed_distinguishable

    assert not agreed_distinguishable(0.001, 0.02, 0.13)  # interval excludes 0, Holm p = 0.13
    assert not agreed_distinguishable(-0.001, 0.02, 0.01)
    assert agreed_distinguishable(0.001, 0.02, 0.01)
    assert not agreed_distinguishable(np.nan, 0.02, 0.01)


def test_narrowing_is_headlined_against_fresh_decks() -> None:
    out = compare.summarize_comparison(_fake_comparison(np.linspace(-0.2, 0.4, 50)))
    (nw,) = out["narrowing"]
    assert out["narrowing_median"] == nw["ratio_fresh_decks"]
    assert out["narrowing_independent_median"] == nw["ratio"]
    assert "against the same line-ups on a fresh deck per game" in compare_view.headline(out)
