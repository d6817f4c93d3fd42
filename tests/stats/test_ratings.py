"""Bradley–Terry ratings and paired head-to-head margins: answers known in advance."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.executor import simulate_deals
from analyzer.stats.intervals import paired_difference
from analyzer.stats.ratings import (
    ELO,
    RatingError,
    _narrowing,
    bootstrap_ratings,
    cross_table,
    fit_bradley_terry,
    paired_table,
    ratings,
    round_robin_summary,
    verdict,
    win_probability,
)
from analyzer.stats.tournament import head_to_head, round_robin


def simulate(strengths: list[float], decks: int, seed: int, *, deck_luck: float = 0.0) -> np.ndarray:
    """Per-deck head-to-head scores (D, k, k) of a round-robin with two seatings per pair.

    ``P(i beats j) = logistic(r_i - r_j)`` (logit); ``deck_luck`` shifts every game of a deck towards
    the first seat by a deck-wide amount (seat luck the duplicate design must cancel).
    """
    rng = np.random.default_rng(seed)
    r = np.asarray(strengths)
    k = len(r)
    s = np.full((decks, k, k), np.nan)
    luck = rng.normal(0.0, deck_luck, decks) if deck_luck else np.zeros(decks)
    for i in range(k):
        for j in range(i + 1, k):
            gap = r[i] - r[j]
            first = rng.random(decks) < 1 / (1 + np.exp(-(gap + luck)))  # i in seat 0
            second = rng.random(decks) < 1 / (1 + np.exp(-(gap - luck)))  # i in seat 1: luck favours j
            s[:, i, j] = (first.astype(float) + second) / 2
            s[:, j, i] = 1 - s[:, i, j]
    return s


def test_two_strategies_rating_gap_is_the_log_odds_of_their_wins() -> None:
    """Known answer: with two strategies the maximum-likelihood gap is log(w_ab / w_ba)."""
    r = fit_bradley_terry([[0, 3], [1, 0]], prior=0)
    assert r[0] - r[1] == pytest.approx(math.log(3), abs=1e-9)
    assert r.sum() == pytest.approx(0, abs=1e-12)
    s = np.zeros((4, 2, 2))
    s[:3, 0, 1] = 1
    s[3, 1, 0] = 1
    frame = ratings(s, ["a", "b"], prior=0, boot=50)
    assert frame["rating"].tolist() == pytest.approx([ELO * math.log(3) / 2, -ELO * math.log(3) / 2])
    assert frame["rating"][0] - frame["rating"][1] == pytest.approx(400 * math.log10(3))


def test_three_strategies_known_answer_satisfies_the_likelihood_equations() -> None:
    """At the maximum each strategy's expected wins equal its actual wins (the Bradley–Terry score equations)."""
    w = np.array([[0, 7, 4], [3, 0, 6], [6, 2, 0]], float)
    r = fit_bradley_terry(w, prior=0)
    p = 1 / (1 + np.exp(-(r[:, None] - r[None, :])))
    n = w + w.T
    expected = (n * p).sum(axis=1) - np.diag(n * p)
    assert expected == pytest.approx(w.sum(axis=1), abs=1e-8)


def test_known_strengths_are_recovered() -> None:
    truth = np.array([-0.6, -0.1, 0.2, 0.5])  # logit, mean 0
    s = simulate(list(truth), 3000, seed=1)
    frame = ratings(s, ["a", "b", "c", "d"], scale="logit", boot=200, seed=2).set_index("strategy")
    got = frame.loc[["a", "b", "c", "d"], "rating"].to_numpy()
    assert got == pytest.approx(truth, abs=0.06)
    assert list(frame.index) == ["d", "c", "b", "a"]  # best first
    assert (frame["lo"] < frame["rating"]).all() and (frame["rating"] < frame["hi"]).all()
    assert (frame["n_decks"] == 3000).all()


def test_symmetric_data_gives_equal_ratings() -> None:
    s = np.full((10, 3, 3), 0.5)
    s[:, [0, 1, 2], [0, 1, 2]] = np.nan
    assert ratings(s, ["a", "b", "c"], boot=20)["rating"].to_numpy() == pytest.approx(0, abs=1e-9)
    # a rock-paper-scissors cycle: everyone beats one and loses to one, so all are equal
    c = np.full((6, 3, 3), np.nan)
    for i in range(3):
        c[:, i, (i + 1) % 3], c[:, (i + 1) % 3, i] = 1.0, 0.0
    assert ratings(c, ["r", "p", "s"], boot=20, prior=0)["rating"].to_numpy() == pytest.approx(0, abs=1e-9)


def test_a_dominant_strategy_is_rated_first_and_apart() -> None:
    s = simulate([0.0, 0.3, 0.1], 400, seed=3)
    s[:, 0, 1:] = 1.0  # 'top' wins every game against both
    s[:, 1:, 0] = 0.0
    frame = ratings(s, ["top", "b", "c"], boot=200).set_index("strategy")
    assert frame.index[0] == "top"
    assert np.isfinite(frame.to_numpy(dtype=float)).all()  # the prior keeps it finite
    assert frame.loc["top", "lo"] > frame.drop("top")["hi"].max()
    # known answer with the prior: 4 wins to none plus half a virtual win each way is a gap of log(4.5 / 0.5)
    r = fit_bradley_terry([[0, 4], [0, 0]])
    assert r[0] - r[1] == pytest.approx(math.log(9))
    with pytest.raises(RatingError, match=r"ratings are infinite \(top never lost\)"):
        ratings(s, ["top", "b", "c"], prior=0)


def test_anchor_and_scale() -> None:
    s = simulate([0.0, 0.4, -0.4], 300, seed=4)
    elo = ratings(s, ["a", "b", "c"], boot=50, anchor="a").set_index("strategy")
    logit = ratings(s, ["a", "b", "c"], boot=50, anchor="a", scale="logit").set_index("strategy")
    assert elo.loc["a", ["rating", "lo", "hi"]].tolist() == [0, 0, 0]
    assert elo["rating"].to_numpy() == pytest.approx(logit["rating"].to_numpy() * ELO)
    gap = elo.loc["b", "rating"] - elo.loc["c", "rating"]
    assert 0.5 < float(win_probability(gap)) < 1
    assert float(win_probability(100.0)) == pytest.approx(1 / (1 + 10 ** (-100 / 400)))


def test_bootstrap_is_deterministic_for_a_seed_and_resamples_decks() -> None:
    s = simulate([0.0, 0.2, 0.5], 200, seed=5)
    a = bootstrap_ratings(s, boot=30, seed=7)
    assert (a == bootstrap_ratings(s, boot=30, seed=7)).all()
    assert not (a == bootstrap_ratings(s, boot=30, seed=8)).all()
    assert a.shape == (30, 3) and np.allclose(a.mean(axis=1), 0)


def pseudo_truth(strengths: list[float], deck_luck: float) -> np.ndarray:
    """The ratings an infinite tournament of :func:`simulate` would give (logit, mean 0).

    Seat luck averages each pair's win rate towards 1/2, so the Bradley–Terry answer is not the generating
    strengths: fit the expected wins, integrated over the luck by Gauss–Hermite quadrature.
    """
    x, wq = np.polynomial.hermite_e.hermegauss(60)
    wq = wq / wq.sum()
    r = np.asarray(strengths)
    gap = r[:, None] - r[None, :]
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    e = sum(wk * (sig(gap + deck_luck * xk) + sig(gap - deck_luck * xk)) / 2 for xk, wk in zip(x, wq))
    np.fill_diagonal(e, 0.0)
    return fit_bradley_terry(e, prior=0)


def test_intervals_cover_the_truth_at_about_the_nominal_rate() -> None:
    """A small simulation: 95 % intervals of 3 strategies over 80 tournaments of 150 decks with seat luck."""
    strengths = [-0.3, 0.1, 0.2]
    truth = pseudo_truth(strengths, 1.0)
    assert abs(truth[0]) < abs(strengths[0])  # the luck does shrink the answer
    hits, total = 0, 0
    for rep in range(80):
        s = simulate(strengths, 150, seed=100 + rep, deck_luck=1.0)
        f = ratings(s, ["a", "b", "c"], boot=200, seed=rep, scale="logit").set_index("strategy")
        inside = (f.loc[["a", "b", "c"], "lo"].to_numpy() <= truth) & (truth <= f.loc[["a", "b", "c"], "hi"])
        hits += int(inside.sum())
        total += 3
    assert 0.89 <= hits / total <= 0.99


def test_cross_table_margins_are_paired_over_decks_with_holm() -> None:
    s = simulate([0.0, 0.0, 1.0], 500, seed=6, deck_luck=2.0)
    t = cross_table(s, ["a", "b", "c"])
    assert len(t) == 6
    ab = t[(t.a == "a") & (t.b == "b")].iloc[0]
    e = paired_difference(s[:, 0, 1] - s[:, 1, 0], np.zeros(500))
    assert (ab.margin, ab.lo, ab.hi) == pytest.approx((float(e.est), float(e.lo), float(e.hi)))
    ba = t[(t.a == "b") & (t.b == "a")].iloc[0]
    assert (ba.margin, ba.lo, ba.hi) == pytest.approx((-ab.margin, -ab.hi, -ab.lo))
    ca = t[(t.a == "c") & (t.b == "a")].iloc[0]
    assert ca.significant and ca.margin > 0.2 and ca.p_holm >= ca.p
    assert not ab.significant  # equal strengths
    assert set(t.columns) >= {"a", "b", "margin", "lo", "hi", "p", "p_holm", "significant", "n_decks"}


def test_cross_table_holm_can_overrule_a_raw_p_value() -> None:
    """Three pairs each with p just under 0.05: significant alone, not after Holm."""
    d = 400
    rng = np.random.default_rng(0)
    s = np.full((d, 3, 3), np.nan)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        x = rng.permutation(np.r_[np.ones(221), np.zeros(179)])
        s[:, i, j], s[:, j, i] = x, 1 - x
    t = cross_table(s, ["a", "b", "c"])
    assert (t.p < 0.05).all() and ((t.lo > 0) | (t.hi < 0)).all()  # each interval alone excludes 0
    assert (t.p_holm > 0.05).all() and not t.significant.any()


def test_bad_input_is_one_line() -> None:
    with pytest.raises(RatingError, match=r"scores must be \(decks, k, k\)"):
        ratings(np.zeros((3, 2)), ["a", "b"])
    with pytest.raises(RatingError, match="3 strategies in the scores, 2 names"):
        ratings(np.zeros((3, 3, 3)), ["a", "b"])
    s = np.full((2, 3, 3), np.nan)
    s[:, 0, 1], s[:, 1, 0] = 1, 0
    with pytest.raises(RatingError, match="no decided games link c to a"):
        ratings(s, ["a", "b", "c"])
    with pytest.raises(RatingError, match="anchor 'z' is not among"):
        ratings(simulate([0, 0], 5, 1), ["a", "b"], anchor="z", boot=5)
    with pytest.raises(RatingError, match="unknown rating scale 'glicko'"):
        ratings(simulate([0, 0], 5, 1), ["a", "b"], scale="glicko")


def test_ratings_frame_is_tidy() -> None:
    f = ratings(simulate([0, 0.1], 20, 1), ["a", "b"], boot=10)
    assert list(f.columns) == ["strategy", "rating", "lo", "hi", "n_decks"]
    assert isinstance(f, pd.DataFrame) and f["n_decks"].dtype.kind == "i"


def test_round_robin_of_two_names_for_one_strategy_is_a_dead_heat_on_every_deck() -> None:
    """End to end through the kernel: the duplicate design cancels the deal and the seat exactly, so two
    specs that play alike (weighted with its default w_points spelled out) differ by 0 on every deck."""
    rules = make_rules("czech", players=2)
    specs = ["weighted", "weighted?w_points=1.0", "random"]
    design = round_robin(specs)
    decks = shuffled_decks(rules.deck_size, 150, np.random.default_rng(9))
    wins = []
    for t in range(len(design.tables)):
        line = [get_strategy(s) for s in design.lineup(t)]
        res = simulate_deals(rules, line, 150, 4, decks=decks)
        wins.append((res.winner[:, None] == np.arange(2)).astype(float))
    s = head_to_head(design, wins)
    assert (s[:, 0, 1] == 0.5).all() and (s[:, 1, 0] == 0.5).all()
    t = cross_table(s, specs).set_index(["a", "b"])
    assert t.loc[("weighted", "weighted?w_points=1.0"), ["margin", "lo", "hi"]].tolist() == [0, 0, 0]
    f = ratings(s, specs, boot=100).set_index("strategy")
    assert f.loc["weighted", "rating"] == pytest.approx(f.loc["weighted?w_points=1.0", "rating"], abs=1e-9)


def test_paired_table_for_strategies_scored_on_the_same_decks() -> None:
    rng = np.random.default_rng(11)
    luck = rng.normal(0, 1, 300)  # shared by every strategy on a deck: cancels in the pairing
    scores = np.column_stack([luck, luck + 0.05 + rng.normal(0, 0.01, 300), luck + rng.normal(0, 0.01, 300)])
    t = paired_table(scores, ["a", "b", "c"]).set_index(["a", "b"])
    ba = t.loc[("b", "a")]
    assert ba.margin == pytest.approx(0.05, abs=0.003) and ba.significant and ba.hi - ba.lo < 0.01
    assert not t.loc[("a", "c")].significant
    assert verdict(t.loc[("a", "b")].to_dict() | {"a": "a", "b": "b"}) == "b better than a"
    assert verdict(t.loc[("a", "c")].to_dict() | {"a": "a", "b": "c"}) == "not distinguishable"
    with pytest.raises(RatingError, match=r"scores must be \(decks, 3\)"):
        paired_table(scores[:, :2], ["a", "b", "c"])


def test_round_robin_summary_shows_every_seating_margins_verdicts_and_ratings() -> None:
    design = round_robin(["A", "B", "C"])
    strength = {"A": 0.6, "B": 0.0, "C": 0.0}
    rng = np.random.default_rng(13)  # (seed 12 happens to find B and C apart at p_holm 0.045)
    wins = []
    for t in range(len(design.tables)):
        x, y = design.lineup(t)
        first = rng.random(400) < 1 / (1 + np.exp(-(strength[x] - strength[y] + 0.3)))  # seat 0 is worth 0.3
        wins.append(np.column_stack([first, ~first]).astype(float))
    out = round_robin_summary(design, wins, boot=100, seed=1)
    json.dumps(out)  # JSON-ready: plain numbers and strings
    assert [s["seats"] for s in out["seatings"]] == [["A", "B"], ["B", "A"], ["A", "C"], ["C", "A"], ["B", "C"],
                                                     ["C", "B"]]
    assert all(len(s["win_rates"]) == 2 for s in out["seatings"])
    adv = out["first_seat_advantage"]
    assert adv["lo"] > 0.05  # the seat's worth shows here and cancels in the margins
    verdicts = {(p["a"], p["b"]): p["verdict"] for p in out["pairs"]}
    assert verdicts == {("A", "B"): "A better than B", ("A", "C"): "A better than C",
                        ("B", "C"): "not distinguishable"}
    assert all("p_holm" in p and p["lo"] <= p["margin"] <= p["hi"] for p in out["pairs"])
    assert [r["strategy"] for r in out["ratings"]][0] == "A" and out["n_decks"] == 400
    assert out["design"] == "round-robin" and "both seatings" in out["measures"]


def _seatings(first: np.ndarray, second: np.ndarray) -> list[np.ndarray]:
    """i's win share minus j's per deck, in seating (i, j) and in seating (j, i)."""
    return [first[:, 0] - first[:, 1], second[:, 1] - second[:, 0]]


def test_narrowing_against_fresh_decks_is_the_ratio_of_the_variances_without_the_covariance() -> None:
    rng = np.random.default_rng(0)
    w = rng.integers(0, 2, 4000).astype(float)
    first = np.stack([w, 1 - w], axis=1)  # i wins exactly where it won seated first ...
    same_seat_luck = np.stack([w, 1 - w], axis=1)  # ... and j seated first wins on those decks: the deck's luck
    cancel = _narrowing(_seatings(first, same_seat_luck))  # the seatings' differences cancel deck by deck: no spread at all
    assert cancel["paired_half_width"] == 0 and cancel["narrowing"] is None
    repeat = _narrowing(_seatings(first, same_seat_luck[:, ::-1]))  # i wins both seatings of the same decks: luck adds up
    assert repeat["narrowing"] == pytest.approx(math.sqrt(0.5), rel=1e-6)
    other = rng.integers(0, 2, 4000).astype(float)
    indep = _narrowing(_seatings(first, np.stack([other, 1 - other], axis=1)))
    assert 0.9 < indep["narrowing"] < 1.1
    assert indep["narrowing_per_deck"] == indep["narrowing"] and indep["games_per_deck"] == 2


def test_narrowing_of_four_tables_a_deck_per_game_and_per_deck() -> None:
    """Four independent games a deck: no narrowing per game played, sqrt(2) per deck (twice the games);
    four tables that repeat one game: worse than fresh decks by 2 per game."""
    rng = np.random.default_rng(1)
    four = [rng.integers(0, 2, 20000).astype(float) * 2 - 1 for _ in range(4)]
    out = _narrowing(four)
    assert out["games_per_deck"] == 4 and 0.97 < out["narrowing"] < 1.03
    assert out["narrowing_per_deck"] == pytest.approx(math.sqrt(2) * out["narrowing"], rel=1e-5)
    same = _narrowing([four[0]] * 4)
    assert same["narrowing"] == pytest.approx(0.5, rel=1e-6)
