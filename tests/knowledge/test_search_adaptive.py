"""pimc's adaptive search (analyzer.kernel.search.prune): an action that cannot beat the leader by the
tolerance stops costing rollouts, and a decision ends when one action is left -- fewer rollouts, the same
decision on every path, the full search at ``tolerance=0``."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import StrategySpecError, get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.executor import simulate_deals
from analyzer.kernel.search import prune, tally


def _searched(worlds: np.ndarray, tolerance: float = 0.005, z: float = 2.5) -> tuple[np.ndarray, int]:
    """Feed per-world outcomes (W, A) through tally/prune as the search does: (alive, actions left)."""
    n_actions = worlds.shape[1]
    out, pair_sq = np.zeros(n_actions), np.zeros((n_actions, n_actions))
    alive = np.ones(n_actions, np.bool_)
    for w in range(worlds.shape[0]):
        tally(worlds[w], alive, n_actions, out, pair_sq)
    left = prune(out, pair_sq, alive, n_actions, worlds.shape[0], tolerance, z)
    return alive, left


def test_an_action_worse_in_every_world_drops_and_the_search_ends() -> None:
    worlds = np.zeros((32, 2))
    worlds[:, 1] = -1.0  # the second action loses in every world where the first does not
    alive, left = _searched(worlds)
    assert alive.tolist() == [True, False] and left == 1


def test_actions_that_score_alike_in_every_world_leave_the_first() -> None:
    """Two equivalent low cards: equal outcomes in every world (common random numbers); the first in legal
    order is the leader on the tie, the action played."""
    rng = np.random.default_rng(0)
    col = -(rng.random(32) < 0.4).astype(float)
    alive, left = _searched(np.stack([col, col, col], axis=1))
    assert alive.tolist() == [True, False, False] and left == 1


def test_a_close_call_keeps_both_actions() -> None:
    """Outcomes that differ in a fifth of the worlds, each way alike: the difference is not known to within
    the tolerance after 32 worlds, so both stay (and the search goes on to the budget)."""
    rng = np.random.default_rng(1)
    a = -(rng.random(32) < 0.5).astype(float)
    b = a.copy()
    flip = rng.random(32) < 0.2
    b[flip] = -1.0 - a[flip]  # the other outcome where they differ
    alive, left = _searched(np.stack([a, b], axis=1))
    assert alive.tolist() == [True, True] and left == 2


def test_a_wider_tolerance_drops_the_close_call() -> None:
    rng = np.random.default_rng(1)
    a = -(rng.random(400) < 0.5).astype(float)
    b = a.copy()
    flip = rng.random(400) < 0.05
    b[flip] = -1.0 - a[flip]
    assert _searched(np.stack([a, b], axis=1), tolerance=0.005)[1] == 2
    assert _searched(np.stack([a, b], axis=1), tolerance=0.1)[1] == 1


def _rollouts(spec: str, decks: np.ndarray) -> tuple[int, int, np.ndarray]:
    rules = make_rules("czech", 2)
    pimc = get_strategy(spec)
    res = simulate_deals(rules, [pimc, get_strategy("weighted")], len(decks), np.random.SeedSequence(3), decks=decks)
    return pimc.decisions, pimc.rollouts, res.loser  # type: ignore[attr-defined]


def test_the_adaptive_search_plays_far_fewer_rollouts_than_the_full_search() -> None:
    """The same decisions asked (the first search of each deal is on the same position) with at most half the
    rollouts; ``tolerance=0`` is the full search: every action in every world until the budget."""
    decks = shuffled_decks(32, 12, np.random.default_rng(5)).astype(np.int8)
    d_full, r_full, _ = _rollouts("pimc?tolerance=0", decks)
    d_adapt, r_adapt, _ = _rollouts("pimc", decks)
    assert d_full > 30 and d_adapt > 30
    assert r_adapt / d_adapt < 0.5 * r_full / d_full


@pytest.mark.parametrize("spec", ["pimc?tolerance=-0.1", "pimc?z=0", "pimc?tolerance=abc"])
def test_a_bad_tolerance_or_z_is_refused_by_name(spec: str) -> None:
    with pytest.raises((ValueError, StrategySpecError), match="tolerance|z"):
        get_strategy(spec)
