"""A single deal's дурак is counted as a match's is (CZ7/PR7, docs/rules.md).

A points tie for the дурак is shared, and "the wild rule decided the loser" has one definition for
deals and matches: the rule acted and its losers differ from the ones the points alone give.  The
engine names one loser per deal (ties to the earliest seat in play order); the stats derive the
shares from the deal's points, winner and wild holders (analyzer.stats.sums.deal_losses).
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.outcomes import END_OUT, DealResults
from analyzer.core.rules import make_rules
from analyzer.engine.match import match_outcome
from analyzer.execution.executor import simulate_deals
from analyzer.stats.sums import deal_losses, summarize
from strategies import get_strategy


def _one(points: list[int], loser: int, held: list[bool], by_wild: bool = False) -> DealResults:
    return DealResults(points=np.array([points], np.int16), went_out=np.array([0], np.int8),
                       winner=np.array([0], np.int8), loser=np.array([loser], np.int8),
                       loser_by_wild=np.array([by_wild]), wild_held=np.array([held]),
                       end=np.array([END_OUT], np.int8), turns=np.array([30], np.int32),
                       last_card=np.array([3], np.int8), turnovers=np.zeros(1, np.int16))


def test_a_points_tie_for_the_durak_is_shared():
    """czech 4p deal (CZ7 acts on matches only): positions 1 and 2 tie on 15 points; the engine named 1."""
    res = _one([0, 15, 15, 3], loser=1, held=[False, False, False, True])
    pos = summarize(res, ["a", "b", "c", "d"], make_rules("czech", 4))["positions"]
    assert pos["losses"].tolist() == [0.0, 0.5, 0.5, 0.0]
    assert pos["losses_by_wild"].tolist() == [0.0] * 4  # czech single deals: the rule does not act


def test_the_wild_rule_decided_when_its_loser_differs_from_the_points_tie():
    """prague 4p (PR7): position 1 holds the Jack and ties position 2 on points.  The engine's points pick
    was position 1 too, so it said "not by the wild rule"; a match says the rule decided (the points alone
    would have shared the loss)."""
    res = _one([0, 20, 20, 8], loser=1, held=[False, True, False, False])
    pos = summarize(res, ["a", "b", "c", "d"], make_rules("prague", 4))["positions"]
    assert pos["losses"].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert pos["losses_by_wild"].tolist() == [0.0, 1.0, 0.0, 0.0]
    rules = make_rules("prague", 4, {"target": 100})
    _, loss, bw = match_outcome(rules, res.points.astype(np.int64), res.wild_held)
    assert loss[0].tolist() == [0.0, 1.0, 0.0, 0.0] and bool(bw[0])


@pytest.mark.parametrize("variant,players,overrides", [
    ("prague", 4, {}), ("prague", 3, {}), ("czech", 4, {}), ("czech", 4, {"wild_rule": "deal"}),
    ("czech", 3, {"hand_size": 3}),
])
def test_deals_are_decided_exactly_as_match_outcome_decides_a_match(variant, players, overrides):
    """Every simulated deal someone went out of: the stats' shares and wild verdict equal match_outcome's
    over the deal's points (the winner's 0 is never the most) with the rule as it acts on single deals."""
    rules = make_rules(variant, players, overrides)
    line = [get_strategy(s) for s in ("wild-keeper", "wild-dumper", "greedy", "suit-keeper")[:players]]
    res = simulate_deals(rules, line, 1500, seed=4)
    loss, by_wild = deal_losses(res, rules.wild_rule == "deal")
    out = res.went_out >= 0
    as_match = make_rules(variant, players, {**overrides, "target": 100,
                                              "wild_rule": "deal" if rules.wild_rule == "deal" else "off"})
    _, m_loss, m_bw = match_outcome(as_match, res.points[out].astype(np.int64), res.wild_held[out])
    assert np.allclose(loss[out], m_loss) and np.array_equal(by_wild[out], m_bw)
    ties = (loss[out] > 0).sum(axis=1) > 1
    assert ties.any()  # the shared ties happen in these deals (else the test would prove nothing)
    one = ~ties
    assert np.array_equal(loss[out][one].argmax(axis=1), res.loser[out][one])  # otherwise the engine's loser
