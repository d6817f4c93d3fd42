"""Compiled passes of the CFR+ solver over a flat two-player zero-sum game tree (analyzer.exact.tree).

They live with the other compiled code: the kernels' cache key covers every file here (analyzer.kernel._cache),
so a pass never runs stale, at the price of a fresh compile of every kernel when one changes.

The tree is arrays in an order where every parent comes before its children (``parent[c] < c``), children of
a node listed by ``first``/``count`` into ``kids``.  Node kinds: 0 chance, 1 decision, 2 terminal.  A decision
node's actions are the slots ``base[n] .. base[n] + count[n]`` of its information set; ``edge[c]`` is the
index of child ``c`` among its parent's children; ``prob[c]`` the chance probability of the edge into ``c``;
``util[n]`` the terminal value to player 0 (player 1 gets minus it).
"""

from __future__ import annotations

import numpy as np

from analyzer.kernel.jit import helper


@helper
def current_strategy(regret: np.ndarray, set_base: np.ndarray, set_count: np.ndarray, sigma: np.ndarray) -> None:
    """Regret matching: each set's positive regrets normalised, uniform where none is positive."""
    for s in range(set_base.shape[0]):
        b, k = set_base[s], set_count[s]
        tot = 0.0
        for a in range(k):
            if regret[b + a] > 0:
                tot += regret[b + a]
        for a in range(k):
            sigma[b + a] = (regret[b + a] / tot if regret[b + a] > 0 else 0.0) if tot > 0 else 1.0 / k


@helper
def edge_weights(parent: np.ndarray, kind: np.ndarray, base: np.ndarray, edge: np.ndarray, prob: np.ndarray,
                 sigma: np.ndarray, w: np.ndarray) -> None:
    """The probability of each edge into a node: chance's, or the acting player's strategy."""
    for c in range(1, parent.shape[0]):
        p = parent[c]
        w[c] = prob[c] if kind[p] == 0 else sigma[base[p] + edge[c]]


@helper
def reaches(parent: np.ndarray, kind: np.ndarray, actor: np.ndarray, w: np.ndarray, player: int,
            own: np.ndarray, other: np.ndarray) -> None:
    """Reach of each node by ``player``'s own actions, and by chance and the other player's."""
    own[0] = 1.0
    other[0] = 1.0
    for c in range(1, parent.shape[0]):
        p = parent[c]
        if kind[p] == 1 and actor[p] == player:
            own[c], other[c] = own[p] * w[c], other[p]
        else:
            own[c], other[c] = own[p], other[p] * w[c]


@helper
def values(parent: np.ndarray, kind: np.ndarray, util: np.ndarray, w: np.ndarray, v: np.ndarray) -> None:
    """Each node's value to player 0 when everyone plays the edge weights ``w``."""
    n = parent.shape[0]
    for i in range(n):
        v[i] = util[i] if kind[i] == 2 else 0.0
    for c in range(n - 1, 0, -1):
        v[parent[c]] += w[c] * v[c]


@helper
def cfr_plus_update(parent: np.ndarray, kind: np.ndarray, actor: np.ndarray, base: np.ndarray, edge: np.ndarray,
                    v: np.ndarray, own: np.ndarray, other: np.ndarray, sigma: np.ndarray, player: int,
                    weight: float, regret: np.ndarray, average: np.ndarray, inst: np.ndarray,
                    touched: np.ndarray) -> None:
    """One CFR+ half-iteration for ``player``: counterfactual regrets floored at 0, the weighted average."""
    sign = 1.0 if player == 0 else -1.0
    inst[:] = 0.0
    touched[:] = False
    for c in range(1, parent.shape[0]):
        p = parent[c]
        if kind[p] == 1 and actor[p] == player:
            slot = base[p] + edge[c]
            inst[slot] += other[p] * sign * (v[c] - v[p])
            average[slot] += weight * own[p] * sigma[slot]
            touched[slot] = True
    for s in range(regret.shape[0]):
        if touched[s]:
            r = regret[s] + inst[s]
            regret[s] = r if r > 0 else 0.0


@helper
def best_response_value(kind: np.ndarray, actor: np.ndarray, base: np.ndarray, first: np.ndarray,
                        count: np.ndarray, kids: np.ndarray, util: np.ndarray, w: np.ndarray, other: np.ndarray,
                        depth: np.ndarray, max_depth: int, player: int, n_slots: int, choice: np.ndarray) -> float:
    """The value to ``player`` of a best response to the edge weights ``w`` of the other player and chance;
    ``choice`` (``n_slots``, filled with -1) gets, at each of ``player``'s sets' first slot, the action chosen.

    Perfect recall: the nodes of an information set share the player's own decision depth, and its descendants'
    sets lie deeper; so sets are decided deepest first, one pass over the tree per depth.
    """
    n = kind.shape[0]
    sign = 1.0 if player == 0 else -1.0
    v = np.zeros(n)
    for d in range(max_depth, -1, -1):
        q = np.zeros(n_slots)
        for i in range(n - 1, -1, -1):
            k = kind[i]
            if k == 2:
                v[i] = sign * util[i]
            elif k == 0 or actor[i] != player:
                s = 0.0
                for j in range(count[i]):
                    c = kids[first[i] + j]
                    s += w[c] * v[c]
                v[i] = s
            elif depth[i] > d:
                v[i] = v[kids[first[i] + choice[base[i]]]]
            else:
                if depth[i] == d:
                    for j in range(count[i]):
                        q[base[i] + j] += other[i] * v[kids[first[i] + j]]
                v[i] = 0.0
        for i in range(n):
            if kind[i] == 1 and actor[i] == player and depth[i] == d and choice[base[i]] < 0:
                b = base[i]
                best = 0
                for j in range(1, count[i]):
                    if q[b + j] > q[b + best]:
                        best = j
                choice[b] = best
    for i in range(n - 1, -1, -1):
        k = kind[i]
        if k == 2:
            v[i] = sign * util[i]
        elif k == 0 or actor[i] != player:
            s = 0.0
            for j in range(count[i]):
                c = kids[first[i] + j]
                s += w[c] * v[c]
            v[i] = s
        else:
            v[i] = v[kids[first[i] + choice[base[i]]]]
    return v[0]
