"""The ismcts search of R decisions read off a batch view (:func:`ismcts_view`): the compiled tree search is
:mod:`analyzer.kernel.ismcts`."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.kernel.ismcts import ROWS, ismcts_rows
from analyzer.kernel.search import folded
from analyzer.knowledge.search import ViewSearch


def ismcts_view(p: NDArray[np.int64], kinds: NDArray[np.int64], weights: NDArray[np.float64], vs: ViewSearch,
                objective: int, keys: NDArray[np.int64], iterations: int, c_explore: float,
                max_depth: int = 0, budget: int = 0, specialise: bool | None = None
                ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """(root visits (R, A), iterations run (R,), rollout turns (R,)) of every row of ``vs``
    (:func:`~analyzer.knowledge.search.view_search`) in one compiled call.  ``specialise``: on the kernel
    compiled for the rules (:data:`ROWS`; the same visits)."""
    kernel = folded(ROWS, ismcts_rows, p, len(vs.me), specialise)
    return kernel(kinds, weights, vs.st0, vs.m0, vs.ring0, vs.fits, vs.n_pool, vs.n_cls, vs.size, vs.owner, vs.pool,
                  vs.fixed, vs.talon_known, vs.n_known, vs.talon_size, vs.actions, vs.suits, vs.n_actions, vs.me,
                  objective, keys, iterations, float(c_explore), max_depth, budget, vs.totals, vs.in_match)


__all__ = ["ismcts_view"]
