"""Any two-player zero-sum OpenSpiel game as our flat tree, so that our CFR+ and OpenSpiel's solvers can be
held against each other on the same game (Kuhn poker, a research size of ours)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from analyzer.exact.tree import Tree, grow


def tree_of(game: pyspiel.Game) -> Tree:
    """The whole tree of ``game`` (information sets by OpenSpiel's information-state strings)."""
    if game.num_players() != 2:
        raise ValueError("a two-player game is needed")
    return grow([(game.new_initial_state(), 1.0)], key=lambda state, q: state.information_state_string(q),
                keep_keys=True)


def policy_of(game: pyspiel.Game, tree: Tree, sigma: np.ndarray) -> Any:
    """``sigma`` on ``tree_of(game)`` as an OpenSpiel TabularPolicy (for OpenSpiel's exploitability)."""
    from open_spiel.python import policy as os_policy  # lazy: only this function needs OpenSpiel's Python side

    pol = os_policy.TabularPolicy(game)
    for s, key in enumerate(tree.set_keys):
        b = int(tree.set_base[s])
        row = pol.policy_for_key(key)
        row[:] = 0.0
        for j, a in enumerate(tree.set_actions[s]):
            row[a] = sigma[b + j]
    return pol
