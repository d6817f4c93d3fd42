"""Statistics that are right: paired intervals for strategies sharing deals,
like-with-like wild-hand points, shares among decided deals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analyzer.core.outcomes import END_CAPPED, END_OUT, DealResults
from analyzer.stats import intervals as stats
from analyzer.stats import paired, tables
from analyzer.stats.sums import CROSS_COLUMNS, summarize


def _deals(winner: np.ndarray, loser: np.ndarray, players: int, points: np.ndarray | None = None,
           held: np.ndarray | None = None, capped: np.ndarray | None = None) -> DealResults:
    n = winner.size
    capped = np.zeros(n, bool) if capped is None else capped
    return DealResults(
        points=(np.zeros((n, players)) if points is None else points).astype(np.int16),
        went_out=winner.astype(np.int8), winner=np.where(capped, -1, winner).astype(np.int8),
        loser=np.where(capped, -1, loser).astype(np.int8), loser_by_wild=np.zeros(n, bool),
        wild_held=np.zeros((n, players), bool) if held is None else held,
        end=np.where(capped, END_CAPPED, END_OUT).astype(np.int8), turns=np.full(n, 10, np.int32),
        last_card=np.zeros(n, np.int8), turnovers=np.zeros(n, np.int16))


def _random_deals(rng: np.random.Generator, n: int, players: int, keeper_seats: list[int]) -> DealResults:
    """Deals where the keeper's seats lose more often than the others (about 0.6 vs 0.4 in 2p)."""
    w = np.ones(players)
    w[keeper_seats] = 1.5
    loser = rng.choice(players, n, p=w / w.sum())
    winner = (loser + 1 + rng.integers(0, players - 1, n)) % players
    points = rng.integers(1, 30, (n, players))
    points[np.arange(n), loser] = 40  # the loser has the most points, alone (summarize derives the дурак from them)
    points[np.arange(n), winner] = 0
    return _deals(winner, loser, players, points=points)


def _results(parts: list[tuple[DealResults, list[str]]]) -> tables.Results:
    frames: dict[str, list[pd.DataFrame]] = {"positions": [], "totals": [], "hist": []}
    for c, (res, lineup) in enumerate(parts):
        for k, df in summarize(res, lineup).items():
            frames[k].append(df.assign(cell=c))
    players = len(parts[0][1])
    cells = pd.DataFrame({"cell": range(len(parts)), "variant": "czech", "players": players, "unit": "deal",
                          "lineup": [",".join(lu) for _, lu in parts], "rules": "{}"})
    return tables.Results(cells=tables._normalize_cells(cells),
                          **{k: pd.concat(v, ignore_index=True) for k, v in frames.items()})


def _brute_se(parts: list[tuple[DealResults, list[str]]], metric: str) -> float:
    """Standard error of rate_keeper − rate_dumper straight from the per-deal outcomes."""
    xs = []
    for res, lineup in parts:
        p = len(lineup)
        x = {"losses": (res.loser[:, None] == np.arange(p)), "wins": (res.winner[:, None] == np.arange(p)),
             "points": res.points}[metric].astype(float)
        xs.append((x, np.array(lineup)))
    m_k = sum(len(x) * (lu == "wild-keeper").sum() for x, lu in xs)
    m_d = sum(len(x) * (lu == "wild-dumper").sum() for x, lu in xs)
    var = 0.0
    for x, lu in xs:
        z = x[:, lu == "wild-keeper"].sum(1) / m_k - x[:, lu == "wild-dumper"].sum(1) / m_d
        var += z.var(ddof=1) * len(z)
    return float(np.sqrt(var))


def _kvd_se(res: tables.Results, what: str = "loss") -> float:
    row = tables.keeper_vs_dumper(res).iloc[0]
    return float((row[f"{what}_diff_hi"] - row[f"{what}_diff"]) / stats.Z95)


@pytest.mark.parametrize("players, seatings, factor", [
    (2, [["wild-keeper", "wild-dumper"], ["wild-dumper", "wild-keeper"]], np.sqrt(2)),
    (4, [["wild-keeper", "wild-dumper"] * 2, ["wild-dumper", "wild-keeper"] * 2], 1.15),
])
def test_keeper_vs_dumper_loss_interval_is_paired(players: int, seatings: list[list[str]], factor: float) -> None:
    """The paired interval matches the per-deal computation and is wider than the independent one by
    about √2 (2 players: one's loss is the other's win) and about 1.15 (4 players: one loser per deal)."""
    rng = np.random.default_rng(players)
    parts = []
    for lineup in seatings:
        keeper = [i for i, s in enumerate(lineup) if s == "wild-keeper"]
        res = _random_deals(rng, 20_000, players, keeper)
        res.wild_held[:, keeper] = True  # the data, not the name, makes it the keeper
        parts.append((res, lineup))
    res = _results(parts)
    row = tables.keeper_vs_dumper(res).iloc[0]
    assert (row["keeper"], row["dumper"]) == ("wild-keeper", "wild-dumper")
    se = _kvd_se(res)
    assert se == pytest.approx(_brute_se(parts, "losses"), rel=1e-6)
    indep = stats.diff_proportions(row["keeper_loss_rate"], row["keeper_n"], row["dumper_loss_rate"], row["dumper_n"])
    assert se / float(indep.se) == pytest.approx(factor, rel=0.03)
    assert _kvd_se(res, "win") == pytest.approx(_brute_se(parts, "wins"), rel=1e-6)
    assert _kvd_se(res, "points") == pytest.approx(_brute_se(parts, "points"), rel=1e-6)


def test_paired_fallback_without_stored_products_is_exact_for_deal_outcomes() -> None:
    rng = np.random.default_rng(5)
    parts = [(_random_deals(rng, 3000, 3, [0]), ["wild-keeper", "wild-dumper", "greedy"]),
             (_random_deals(rng, 3000, 3, [1]), ["greedy", "wild-keeper", "wild-dumper"])]
    res = _results(parts)
    full = paired.strategy_pairs(res, "losses").set_index(["a", "b"])
    old = tables.Results(res.cells, res.positions.drop(columns=list(CROSS_COLUMNS)), res.totals, res.hist)
    bare = paired.strategy_pairs(old, "losses").set_index(["a", "b"])
    assert np.allclose(full["se"], bare["se"], rtol=1e-9)
    assert paired.strategy_pairs(old, "points")["se"].isna().all()  # points need the stored products


def test_strategy_pairs_rates_and_holm() -> None:
    rng = np.random.default_rng(7)
    parts = [(_random_deals(rng, 4000, 2, [0]), ["wild-keeper", "wild-dumper"]),
             (_random_deals(rng, 4000, 2, [1]), ["wild-dumper", "wild-keeper"])]
    t = paired.strategy_pairs(_results(parts), "wins")
    (r,) = t.itertuples()
    assert (r.a, r.b) == ("wild-dumper", "wild-keeper") and r.diff == pytest.approx(r.rate_a - r.rate_b)
    assert r.se == pytest.approx(_brute_se(parts, "wins"), rel=1e-6)
    assert r.distinguishable and r.p_holm == pytest.approx(r.p)


def test_wild_hand_points_compare_like_with_like() -> None:
    """Wild-holding hands against the other hands that did not win, not against the winner's empty hand."""
    n = 10
    points = np.tile([0, 10, 30], (n, 1))  # seat 0 went out (empty hand), seat 2 keeps the wild
    held = np.tile([False, False, True], (n, 1))
    res = _results([(_deals(np.zeros(n, int), np.full(n, 2), 3, points=points, held=held),
                     ["greedy", "greedy", "wild-keeper"])])
    ws = tables.wild_summary(res).iloc[0]
    assert ws["wild_hand_points"] == pytest.approx(30.0)
    assert ws["other_hand_points"] == pytest.approx(10.0)  # the old comparison said (0 + 10) / 2 = 5


def test_fair_share_and_first_player_among_decided_deals() -> None:
    """A capped deal has no winner (G10): the first player's rate and the fair share count decided deals."""
    n = 1000
    capped = np.arange(n) < 100  # 10% capped
    winner = np.where(np.arange(n) % 2 == 0, 0, 1)  # among decided deals, seat 0 wins exactly half
    res = _results([(_deals(winner, 1 - winner, 2, capped=capped), ["greedy", "greedy"])])
    fpa = tables.first_player_advantage(res).iloc[0]
    assert fpa["n"] == 900 and fpa["rate"] == pytest.approx(0.5) and not fpa["distinguishable"]
    wl = tables.win_loss_by_position(res)
    assert wl["fair"].to_numpy() == pytest.approx(0.45)  # 1/2 of the 90% decided, carried explicitly
    worst = tables.worst_positions(res).iloc[0]
    assert worst["n"] == 900 and worst["loss_rate"] == pytest.approx(0.5)


def test_a_shared_points_tie_for_the_durak_counts_like_a_match() -> None:
    """One definition for deals and matches: a deal reporting loss shares (a tie for the дурак shared,
    CZ7) is summed by share, its wild-decided losses too; a single loser counts whole."""
    from dataclasses import dataclass

    @dataclass
    class SharedDeals(DealResults):
        loss_share: np.ndarray = None  # type: ignore[assignment]

    base = _deals(np.array([0, 0]), np.array([1, 2]), 3, points=np.array([[0, 20, 20], [0, 5, 20]]))
    base.loser_by_wild[:] = [True, False]
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
    shared = SharedDeals(**fields, loss_share=np.array([[0, 0.5, 0.5], [0, 0, 1.0]]))
    pos = summarize(shared, ["a", "b", "c"])["positions"]
    assert pos["losses"].tolist() == [0.0, 0.5, 1.5]
    assert pos["losses_by_wild"].tolist() == [0.0, 0.5, 0.5]
    assert pos["losses_x2"].tolist() == [0.0, 0.25, 1.25]
    # without shares, the deal's points give them (tests/stats/test_deal_ties.py): the tie of deal 0 shared
    whole = summarize(base, ["a", "b", "c"])["positions"]
    assert whole["losses"].tolist() == [0.0, 0.5, 1.5] and whole["losses_by_wild"].tolist() == [0.0, 0.5, 0.5]
