"""The ismcts search of R decisions read off a batch view (:func:`ismcts_view`): the compiled tree search is
:mod:`analyzer.kernel.ismcts`; a row too large for its sampler gets worlds drawn here by the Python one."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.kernel.ismcts import PRE_WORLDS, ROWS, ismcts_rows
from analyzer.kernel.search import folded
from analyzer.knowledge.search import ViewSearch, class_worlds


def ismcts_view(p: NDArray[np.int64], kinds: NDArray[np.int64], weights: NDArray[np.float64], vs: ViewSearch,
                objective: int, keys: NDArray[np.int64], iterations: int, c_explore: float,
                rng: np.random.Generator, max_depth: int = 0, budget: int = 0, specialise: bool | None = None
                ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """(root visits (R, A), iterations run (R,), rollout turns (R,)) of every row of ``vs``
    (:func:`~analyzer.knowledge.search.view_search`)
    in one compiled call; a row whose counting table is too large (``vs.big``) gets up to
    :data:`PRE_WORLDS` worlds drawn first by the Python sampler from ``rng`` (as pimc's search of such a row
    draws its ``worlds``), its iterations taking them in turn.  ``specialise``: on the kernel compiled for the
    rules (:data:`ROWS`; the same visits)."""
    rows = len(vs.me)
    pre_at = np.full(rows, -1, np.int64)
    big = np.nonzero(vs.big)[0].tolist()
    n = vs.fixed.shape[1]
    t_max = max(int(vs.talon_size.max()) if rows else 1, 1)
    n_pre = min(iterations, PRE_WORLDS)
    pre_hands = np.zeros((max(len(big), 1) * n_pre, n), np.uint64)
    pre_talons = np.zeros((max(len(big), 1) * n_pre, t_max), np.int64)
    for j, i in enumerate(big):
        c, k = int(vs.n_pool[i]), int(vs.n_cls[i])
        hands, talons = class_worlds(vs.classes[i], vs.fits[i, :c, :k], vs.fixed[i],
                                     vs.talon_known[i, :vs.n_known[i]], int(vs.talon_size[i]), n_pre,
                                     int(keys[i]), rng)
        pre_at[i] = j * n_pre
        pre_hands[j * n_pre:(j + 1) * n_pre] = hands
        pre_talons[j * n_pre:(j + 1) * n_pre, :talons.shape[1]] = talons
    kernel = folded(ROWS, ismcts_rows, p, rows, specialise)
    return kernel(kinds, weights, vs.st0, vs.m0, vs.ring0, vs.fits, vs.n_pool, vs.n_cls, vs.size, vs.owner, vs.pool,
                  vs.fixed, vs.talon_known, vs.n_known, vs.talon_size, vs.actions, vs.suits, vs.n_actions, vs.me,
                  objective, keys, iterations, float(c_explore), max_depth, budget, vs.totals, vs.in_match, pre_at,
                  pre_hands, pre_talons, n_pre)


__all__ = ["ismcts_view"]
