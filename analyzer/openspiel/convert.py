"""Any two-player zero-sum OpenSpiel game as our flat tree, so that our CFR+ and OpenSpiel's solvers can be
held against each other on the same game (Kuhn poker, a research size of ours)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from analyzer.exact.tree import Tree


def tree_of(game: pyspiel.Game) -> Tree:
    """The whole tree of ``game`` (information sets by OpenSpiel's information-state strings)."""
    if game.num_players() != 2:
        raise ValueError("a two-player game is needed")
    cols: dict[str, list[Any]] = {k: [] for k in ("parent", "kind", "actor", "base", "edge", "prob", "util")}
    sets: dict[str, int] = {}
    set_base: list[int] = []
    set_count: list[int] = []
    set_actor: list[int] = []
    set_actions: list[list[int]] = []
    stack: list[tuple[Any, int, int, float]] = [(game.new_initial_state(), -1, 0, 1.0)]
    slots = 0
    while stack:
        state, par, e, pr = stack.pop()
        i = len(cols["parent"])
        for name, x in zip(("parent", "edge", "prob"), (par, e, pr)):
            cols[name].append(x)
        if state.is_terminal():
            cols["kind"].append(2)
            cols["actor"].append(-1)
            cols["base"].append(-1)
            cols["util"].append(state.returns()[0])
            continue
        cols["util"].append(0.0)
        if state.is_chance_node():
            children = list(state.chance_outcomes())
            cols["kind"].append(0)
            cols["actor"].append(-1)
            cols["base"].append(-1)
        else:
            q = state.current_player()
            key = state.information_state_string(q)
            acts = state.legal_actions()
            s = sets.get(key)
            if s is None:
                s = sets[key] = len(set_base)
                set_base.append(slots)
                set_count.append(len(acts))
                set_actor.append(q)
                set_actions.append(acts)
                slots += len(acts)
            cols["kind"].append(1)
            cols["actor"].append(q)
            cols["base"].append(set_base[s])
            children = [(a, 0.0) for a in acts]
        for j in range(len(children) - 1, -1, -1):
            stack.append((state.child(children[j][0]), i, j, children[j][1]))
    n = len(cols["parent"])
    parent = np.asarray(cols["parent"], np.int64)
    count = np.bincount(parent[1:], minlength=n).astype(np.int64)
    first = np.zeros(n, np.int64)
    first[1:] = np.cumsum(count)[:-1]
    kids = (np.argsort(parent[1:], kind="stable") + 1).astype(np.int64)
    return Tree(parent=parent, kind=np.asarray(cols["kind"], np.int8), actor=np.asarray(cols["actor"], np.int8),
                base=np.asarray(cols["base"], np.int64), edge=np.asarray(cols["edge"], np.int64),
                prob=np.asarray(cols["prob"], np.float64), util=np.asarray(cols["util"], np.float64),
                first=first, count=count, kids=kids, set_base=np.asarray(set_base, np.int64),
                set_count=np.asarray(set_count, np.int64), set_actor=np.asarray(set_actor, np.int8),
                set_actions=set_actions, set_view=[], deal_of={}, set_keys=list(sets))


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
