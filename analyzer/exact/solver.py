"""CFR+ on a flat game tree, exact best responses, and what our strategies lose against the equilibrium.

CFR+ (regret matching with regrets floored at zero, players updated in turn, the average strategy weighted by
the iteration number) converges to an equilibrium of a two-player zero-sum game with perfect recall.  Its
*exploitability* is what a best response wins from it, averaged over the two seats (OpenSpiel's
``exploitability``: half of NashConv); in units of the stake (a deal pays +1/-1), so 0.01 is 1% of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from analyzer.core.contract import StrategyError
from analyzer.engine.deal import checked_answer
from analyzer.exact.position import encode_action
from analyzer.exact.tree import Tree
from analyzer.kernel import cfr


@dataclass
class Solution:
    """An equilibrium found: its strategy per slot, its exploitability and value, and what it took."""

    sigma: NDArray[np.float64]
    exploitability: float
    first_mover_value: float
    iterations: int
    seconds: float
    trace: list[tuple[int, float]] = field(default_factory=list)  # (iterations, exploitability) as it fell


def uniform(tree: Tree) -> NDArray[np.float64]:
    return np.repeat(1.0 / tree.set_count, tree.set_count).astype(np.float64)


def _weights(tree: Tree, sigma: NDArray[np.float64]) -> NDArray[np.float64]:
    w = np.zeros(tree.n_nodes)
    cfr.edge_weights(tree.parent, tree.kind, tree.base, tree.edge, tree.prob, sigma, w)
    return w


def value(tree: Tree, sigma: NDArray[np.float64]) -> float:
    """Position 0's expected return when both play ``sigma``."""
    v = np.zeros(tree.n_nodes)
    cfr.values(tree.parent, tree.kind, tree.util, _weights(tree, sigma), v)
    return float(v[0])


def best_response(tree: Tree, sigma: NDArray[np.float64], player: int,
                  depth: NDArray[np.int64] | None = None) -> float:
    """What a best response of ``player`` wins against the other playing ``sigma``."""
    return best_response_play(tree, sigma, player, depth)[0]


def best_response_play(tree: Tree, sigma: NDArray[np.float64], player: int,
                       depth: NDArray[np.int64] | None = None) -> tuple[float, NDArray[np.float64]]:
    """A best response of ``player`` to the other playing ``sigma``: what it wins, and it as a behaviour
    strategy (one action per set of ``player``'s; the other player's slots 0)."""
    w = _weights(tree, sigma)
    own, other = np.zeros(tree.n_nodes), np.zeros(tree.n_nodes)
    cfr.reaches(tree.parent, tree.kind, tree.actor, w, player, own, other)
    d = tree.own_depth(player) if depth is None else depth
    slots = max(tree.n_slots, 1)
    choice = np.full(slots, -1, np.int64)
    won = float(cfr.best_response_value(tree.kind, tree.actor, tree.base, tree.first, tree.count, tree.kids,
                                        tree.util, w, other, d, int(d.max()), player, slots, choice))
    play = np.zeros(slots)
    for s in np.nonzero(tree.set_actor == player)[0]:
        b = int(tree.set_base[s])
        play[b + max(int(choice[b]), 0)] = 1.0
    return won, play


def exploitability(tree: Tree, sigma: NDArray[np.float64], depths: tuple[NDArray[np.int64], ...] | None = None
                   ) -> float:
    """Half of what best responses win against ``sigma`` in the two seats (0 at an equilibrium)."""
    d = depths or (None, None)
    return 0.5 * (best_response(tree, sigma, 0, d[0]) + best_response(tree, sigma, 1, d[1]))


def solve(tree: Tree, *, target: float = 0.001, max_iterations: int = 100_000, check_every: int = 25,
          progress: Callable[[int, float], None] | None = None) -> Solution:
    """CFR+ until the average strategy's exploitability is below ``target`` (or the iterations run out)."""
    t0 = time.perf_counter()
    n, slots = tree.n_nodes, max(tree.n_slots, 1)
    regret, average = np.zeros(slots), np.zeros(slots)
    sigma, inst, touched = np.zeros(slots), np.zeros(slots), np.zeros(slots, np.bool_)
    w, v, own, other = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    depths = (tree.own_depth(0), tree.own_depth(1))
    trace: list[tuple[int, float]] = []
    expl = float("inf")
    it = 0
    avg = uniform(tree)
    while it < max_iterations:
        it += 1
        for player in (0, 1):
            cfr.current_strategy(regret, tree.set_base, tree.set_count, sigma)
            cfr.edge_weights(tree.parent, tree.kind, tree.base, tree.edge, tree.prob, sigma, w)
            cfr.reaches(tree.parent, tree.kind, tree.actor, w, player, own, other)
            cfr.values(tree.parent, tree.kind, tree.util, w, v)
            cfr.cfr_plus_update(tree.parent, tree.kind, tree.actor, tree.base, tree.edge, v, own, other, sigma,
                                player, float(it), regret, average, inst, touched)
        if it % check_every == 0 or it == max_iterations:
            avg = normalised(tree, average)
            expl = exploitability(tree, avg, depths)
            trace.append((it, expl))
            if progress is not None:
                progress(it, expl)
            if expl < target:
                break
    avg = normalised(tree, average)
    return Solution(avg, exploitability(tree, avg, depths), value(tree, avg), it, time.perf_counter() - t0, trace)


def normalised(tree: Tree, weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per set, the weights as probabilities (uniform where a set was never reached)."""
    sums = np.add.reduceat(weights, tree.set_base) if tree.n_sets else np.zeros(0)
    per = np.repeat(sums, tree.set_count)
    out = np.where(per > 0, weights / np.where(per > 0, per, 1.0), np.repeat(1.0 / tree.set_count, tree.set_count))
    return out.astype(np.float64)


def mixed(tree: Tree, seat0: NDArray[np.float64], seat1: NDArray[np.float64]) -> NDArray[np.float64]:
    """A profile: position 0 plays ``seat0``, position 1 ``seat1``."""
    of_slot = np.repeat(tree.set_actor, tree.set_count)
    return np.where(of_slot == 0, seat0, seat1)


def strategy_sigma(tree: Tree, strategy: object, seed: int, samples: int = 1) -> NDArray[np.float64]:
    """A strategy of ours as a behaviour strategy on the tree: at each set, its stated probabilities
    (``policy(view)``), else the share of ``samples`` answers it gave for each action (one answer is exact for
    a deterministic strategy)."""
    rng = np.random.default_rng(seed)
    name = getattr(strategy, "name", repr(strategy))
    sigma = np.zeros(max(tree.n_slots, 1))
    exact = getattr(strategy, "policy", None)
    for s, view in enumerate(tree.set_view):
        acts = tree.set_actions[s]
        b = int(tree.set_base[s])
        last = len(view.hand) == 1
        if exact is not None:  # a strategy that states its probabilities is weighed exactly
            for (action, suit), pr in exact(view).items():
                sigma[b + acts.index(encode_action(action, suit, view.rules, last_card=last))] += pr
            continue
        for _ in range(samples):
            action, suit = checked_answer(strategy.choose(view, rng), name)  # type: ignore[attr-defined]
            code = encode_action(action, suit, view.rules, last_card=last)
            if code not in acts:
                raise StrategyError(f"strategy {name!r} returned an illegal move {action}")
            sigma[b + acts.index(code)] += 1.0 / samples
    return sigma


def deterministic(tree: Tree, strategy: object, probe: int = 300) -> bool:
    """Whether ``strategy`` answered the same at the first ``probe`` sets with two different seeds."""
    sub = Tree(**{**tree.__dict__, "set_view": tree.set_view[:probe]})
    return bool(np.array_equal(strategy_sigma(sub, strategy, 1), strategy_sigma(sub, strategy, 2)))


@dataclass
class Distance:
    """How far one strategy is from perfect play: what a best response and what the equilibrium win from it."""

    exploitability: float
    loss: float
    samples: int


def distance(tree: Tree, solution: Solution, strategy: object, seed: int = 0, samples: int = 64) -> Distance:
    """``strategy``'s exploitability and its expected loss against the equilibrium, averaged over the two seats."""
    k = 1 if hasattr(strategy, "policy") or deterministic(tree, strategy) else samples
    s = strategy_sigma(tree, strategy, seed, k)
    eq = solution.sigma
    loss = 0.5 * (value(tree, mixed(tree, eq, s)) - value(tree, mixed(tree, s, eq)))
    return Distance(exploitability(tree, s), loss, k)
