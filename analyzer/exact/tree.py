"""A two-player deal's whole game tree as flat arrays (what the CFR+ passes of analyzer.kernel.cfr walk).

Built once from :class:`analyzer.exact.position.Position`, so the tree plays the engine's rules and no others.
Two reductions keep it small, neither changing a value: a decision with one legal action and a chance node
with one outcome are followed without a node; and the deal is one chance node over the *sets* of cards dealt
(each hand in sorted order), with the starter's (czech) or lead's (prague) suit fixed to spades -- no rule
depends on a suit, and the starter is public, so the deals under each starter suit are the same game with the
suits renamed, and so is their equilibrium.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import suit_of
from analyzer.core.contract import DecisionView
from analyzer.core.rules import RulesError, RuleSet
from analyzer.exact.position import CHANCE, Position


@dataclass
class Tree:
    """The arrays (parents before children) and the information sets.

    ``kind``: 0 chance, 1 decision, 2 terminal; ``actor``: the position deciding; ``base``: the first slot of
    the node's information set; ``sets``: per set its key, position, first slot and actions; ``deal_of``: for
    each child of the root, the cards dealt (position 0's hand, position 1's hand).
    """

    parent: NDArray[np.int64]
    kind: NDArray[np.int8]
    actor: NDArray[np.int8]
    base: NDArray[np.int64]
    edge: NDArray[np.int64]
    prob: NDArray[np.float64]
    util: NDArray[np.float64]
    first: NDArray[np.int64]
    count: NDArray[np.int64]
    kids: NDArray[np.int64]
    set_base: NDArray[np.int64]
    set_count: NDArray[np.int64]
    set_actor: NDArray[np.int8]
    set_actions: list[list[int]]
    set_view: list[DecisionView]  # the engine's view at each set (what a strategy is asked there)
    deal_of: dict[int, tuple[tuple[int, ...], tuple[int, ...]]]
    set_keys: list[object] = field(default_factory=list)  # the sets' keys where they are needed (OpenSpiel's)

    @property
    def n_nodes(self) -> int:
        return int(self.parent.shape[0])

    @property
    def n_sets(self) -> int:
        return int(self.set_base.shape[0])

    @property
    def n_slots(self) -> int:
        return int(self.set_base[-1] + self.set_count[-1]) if self.n_sets else 0

    def own_depth(self, player: int) -> NDArray[np.int64]:
        """For each node, how many decisions of ``player`` lie above it."""
        d = np.zeros(self.n_nodes, np.int64)
        for c in range(1, self.n_nodes):
            p = self.parent[c]
            d[c] = d[p] + (1 if self.kind[p] == 1 and self.actor[p] == player else 0)
        return d


def deals(rules: RuleSet, cards: tuple[int, ...], symmetric: bool = True) -> Iterator[tuple[list[int], float]]:
    """The deals up to suit renaming (``symmetric``; else every starter): (cards in dealing order, probability);
    hands sorted (see the module)."""
    h = rules.hand_size
    kind = rules.starter_kind
    starters: list[int | None] = [None]
    if kind != "none":
        starters = [c for c in cards if suit_of(c) == 0 or not symmetric]
    for s in starters:
        rest = [c for c in cards if c != s]
        n0 = h
        n1 = h - 1 if kind == "dealer_lead" else h
        total = len(starters) * comb(len(rest), n0) * comb(len(rest) - n0, n1)
        for h0 in itertools.combinations(rest, n0):
            rest1 = [c for c in rest if c not in h0]
            for h1 in itertools.combinations(rest1, n1):
                hand1 = [*h1, s] if kind == "dealer_lead" else list(h1)
                order = [c for pair in zip(h0, hand1) for c in pair]
                if kind == "turned":
                    order.append(s)
                yield [int(c) for c in order if c is not None], 1.0 / total


class TreeTooLarge(RulesError):
    """A research size whose tree is past the node limit (one line: the size, the count, what to do)."""


def estimate_nodes(rules: RuleSet, cards: tuple[int, ...], walks: int = 300, seed: int = 0) -> float:
    """The tree's node count as Knuth's estimator reads it from ``walks`` random walks from the root: each walk
    adds, depth by depth, the product of the branching factors it met (unbiased; about 0.8 CPU-s for 300 walks).

    Its spread is wide and skewed where a few long deals hold most of the tree: the mean of few walks then
    reads low (czech 8x2, 6,000 walks: 1.9e5 against 577,978 nodes; capped at 4 turns, 3,000 walks: 100,400
    +- 3,900 against 104,794).  So it refuses a size only when even that reading is past the limit, and the
    build still stops at the limit."""
    rnd = random.Random(seed)
    dealt = list(deals(rules, cards))
    total = 0.0
    for _ in range(walks):
        order, _p = dealt[rnd.randrange(len(dealt))]
        pos = Position(rules, cards)
        for c in order:
            pos.apply(c)
        width = float(len(dealt))
        walk = 1.0 + width
        while not settle(pos).is_terminal():
            acts = [a for a, _q in pos.chance_outcomes()] if pos.is_chance_node() else pos.legal_actions()
            width *= len(acts)
            walk += width
            pos = pos.child(acts[rnd.randrange(len(acts))])
        total += walk
    return total / walks


def build(rules: RuleSet, cards: tuple[int, ...], progress: Callable[[int], None] | None = None,
          symmetric: bool = True, max_nodes: int | None = None) -> Tree:
    """The tree of one research size (two players), from the engine through :class:`Position` (``symmetric``:
    the starter's suit fixed, see the module); :class:`TreeTooLarge` once it passes ``max_nodes``."""
    if rules.players != 2:
        raise ValueError("the solver plays two-player deals")
    roots = []
    for order, p in deals(rules, cards, symmetric):
        pos = Position(rules, cards)
        for c in order:
            pos.apply(c)
        roots.append((pos, p))
    return grow(roots, key=lambda pos, q: pos.info_key(q), settle=settle, view=lambda pos: pos.view(),
                dealt=_dealt, max_nodes=max_nodes, progress=progress)


def grow(roots: Sequence[tuple[Any, float]], *, key: Callable[[Any, int], Hashable],
         settle: Callable[[Any], Any] | None = None, view: Callable[[Any], DecisionView] | None = None,
         dealt: Callable[[Any], tuple[tuple[int, ...], tuple[int, ...]]] | None = None, keep_keys: bool = False,
         max_nodes: int | None = None, progress: Callable[[int], None] | None = None) -> Tree:
    """The whole tree below ``roots`` as flat arrays: any two-player zero-sum game whose states speak
    OpenSpiel's names (``is_terminal``, ``returns``, ``is_chance_node``, ``chance_outcomes``, ``current_player``,
    ``legal_actions``, ``child``); our research sizes (:func:`build`) and any OpenSpiel game
    (analyzer.openspiel.convert) are built by this one walk.

    ``key(state, player)`` names a decision's information set; ``settle`` moves a state in place to where a node
    goes (forced moves followed); ``view`` is kept per set (what a strategy is asked there).  With ``dealt`` the
    roots (state, probability) hang under a chance root, node 0, and ``deal_of`` holds ``dealt(state)`` of each;
    without it there is one root, itself node 0.  ``keep_keys``: the sets' keys in ``set_keys``.
    """
    parent: list[int] = []
    kind: list[int] = []
    actor: list[int] = []
    base: list[int] = []
    edge: list[int] = []
    prob: list[float] = []
    util: list[float] = []
    sets: dict[Hashable, int] = {}
    set_base: list[int] = []
    set_count: list[int] = []
    set_actor: list[int] = []
    set_actions: list[list[int]] = []
    set_view: list[DecisionView] = []
    deal_of: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    top = -1
    if dealt is not None:  # node 0: chance over the deals
        parent, kind, actor, base, edge, prob, util = [-1], [0], [-1], [-1], [0], [1.0], [0.0]
        top = 0
    stack: list[tuple[Any, int, int, float]] = [(state, top, j, p) for j, (state, p) in enumerate(roots)][::-1]
    slots = 0
    while stack:
        state, par, e, pr = stack.pop()
        if settle is not None:
            settle(state)
        i = len(parent)
        if max_nodes is not None and i >= max_nodes:
            raise TreeTooLarge(f"the tree passed {max_nodes:,} nodes while being built (--max-nodes); "
                               "solve a smaller size or raise the limit")
        parent.append(par)
        edge.append(e)
        prob.append(pr)
        if progress is not None and i % 100_000 == 0:
            progress(i)
        if dealt is not None and par == 0:
            deal_of[i] = dealt(state)
        if state.is_terminal():
            kind.append(2)
            actor.append(-1)
            base.append(-1)
            util.append(state.returns()[0])
            continue
        util.append(0.0)
        if state.is_chance_node():
            kind.append(0)
            actor.append(-1)
            base.append(-1)
            children = list(state.chance_outcomes())
        else:
            q = state.current_player()
            kind.append(1)
            actor.append(q)
            k = key(state, q)
            acts = state.legal_actions()
            s = sets.get(k)
            if s is None:
                s = sets[k] = len(set_base)
                set_base.append(slots)
                set_count.append(len(acts))
                set_actor.append(q)
                set_actions.append(acts)
                if view is not None:
                    set_view.append(view(state))
                slots += len(acts)
            base.append(set_base[s])
            children = [(a, 0.0) for a in acts]
        for j in range(len(children) - 1, -1, -1):
            stack.append((state.child(children[j][0]), i, j, children[j][1]))
    n = len(parent)
    par_a = np.asarray(parent, np.int64)
    kids = np.argsort(par_a[1:], kind="stable") + 1
    count = np.bincount(par_a[1:], minlength=n).astype(np.int64)
    first = np.zeros(n, np.int64)
    first[1:] = np.cumsum(count)[:-1]
    # within a parent the children are in creation order, which is edge order
    return Tree(parent=par_a, kind=np.asarray(kind, np.int8), actor=np.asarray(actor, np.int8),
                base=np.asarray(base, np.int64), edge=np.asarray(edge, np.int64), prob=np.asarray(prob, np.float64),
                util=np.asarray(util, np.float64), first=first, count=count, kids=kids.astype(np.int64),
                set_base=np.asarray(set_base, np.int64), set_count=np.asarray(set_count, np.int64),
                set_actor=np.asarray(set_actor, np.int8), set_actions=set_actions, set_view=set_view,
                deal_of=deal_of, set_keys=list(sets) if keep_keys else [])


def settle(pos: Position) -> Position:
    """Follow forced moves and single chance outcomes (in place): where the tree puts a node."""
    while not pos.is_terminal():
        if pos.current_player() == CHANCE:
            out = pos.chance_outcomes()
            if len(out) != 1:
                break
            pos.apply(out[0][0])
        else:
            acts = pos.legal_actions()
            if len(acts) != 1:
                break
            pos.apply(acts[0])
    return pos


def _dealt(pos: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The hands as dealt (before any move), read off the dealing order."""
    h0 = tuple(sorted(c for i, c in enumerate(pos.dealt) if pos._dealt_to(i) == 0))
    h1 = tuple(sorted(c for i, c in enumerate(pos.dealt) if pos._dealt_to(i) == 1))
    return h0, h1
