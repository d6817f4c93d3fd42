"""One research size solved end to end: the tree, CFR+, and every strategy's distance from the equilibrium.

What ``durak solve`` prints and the committed report tabulates: the equilibrium's exploitability and first
mover's value, the wild's effect under equilibrium play (position 0's expected return by the wilds it was
dealt, exact), and per strategy its exploitability and expected loss against the equilibrium.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from analyzer.core.cards import RANKS, rank_of
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RulesError
from analyzer.exact import measure, solver
from analyzer.exact.research import check_size, research_cards, research_rules
from analyzer.exact.tree import Tree, TreeTooLarge, build, estimate_nodes
from analyzer.kernel import cfr

#: The built-ins measured.  tracker, pimc and ismcts read the public history: they are asked where their own
#: play reaches, shown the history restricted to the research deck (analyzer.exact.measure); pimc and ismcts
#: answer at random (sampled worlds), so they are measured by draws, with intervals.
STRATEGIES = ("random", "greedy", "weighted", "weighted?preset={variant}-2p", "wild-keeper", "wild-dumper",
              "aggressive", "suit-keeper", "tracker", "pimc", "ismcts")
NOT_MEASURED: tuple[str, ...] = ()
#: Draws of a strategy that answers at random (analyzer.exact.measure).
DRAWS = 3


def wild_effect(tree: Tree, sigma: np.ndarray, wild_rank: int) -> dict[str, dict[str, float]]:
    """Position 0's and 1's expected return under ``sigma`` by the wilds each was dealt (exact, by deal)."""
    w = np.zeros(tree.n_nodes)
    cfr.edge_weights(tree.parent, tree.kind, tree.base, tree.edge, tree.prob, sigma, w)
    v = np.zeros(tree.n_nodes)
    cfr.values(tree.parent, tree.kind, tree.util, w, v)
    out: dict[str, dict[str, float]] = {}
    for q in (0, 1):
        mass: dict[int, float] = {}
        ret: dict[int, float] = {}
        for node, hands in tree.deal_of.items():
            k = sum(rank_of(c) == wild_rank for c in hands[q])
            mass[k] = mass.get(k, 0.0) + w[node]
            ret[k] = ret.get(k, 0.0) + w[node] * v[node] * (1 if q == 0 else -1)
        out[f"position {q}"] = {f"{k} wilds": ret[k] / mass[k] for k in sorted(mass)}
        out[f"position {q}"].update({f"share dealt {k}": mass[k] for k in sorted(mass)})
    return out


def capped_share(tree: Tree, sigma: np.ndarray) -> float:
    """The chance that a deal reaches the turn cap under ``sigma`` (two players: the only terminals paying 0)."""
    w = np.zeros(tree.n_nodes)
    cfr.edge_weights(tree.parent, tree.kind, tree.base, tree.edge, tree.prob, sigma, w)
    own, other = np.zeros(tree.n_nodes), np.zeros(tree.n_nodes)
    cfr.reaches(tree.parent, tree.kind, tree.actor, w, 0, own, other)
    end = (tree.kind == 2) & (tree.util == 0)
    return float((own * other)[end].sum())


#: the default node limit of a research size's tree (``durak solve --max-nodes``): at about
#: :data:`BYTES_A_NODE` (measured: czech 8x2's 577,978 nodes peaked at 593 MB with the solve) some 7 GiB
MAX_NODES = 10_000_000
BYTES_A_NODE = 750
#: the Python builder's pace on this machine (czech 8x2: 577,978 nodes in 55-92 s): for the refusal's hours
NODES_A_SECOND = 7_000


def measure_one(tree: Tree, sol: solver.Solution, rules: Any, cards: tuple[int, ...], spec: str, strat: object,
                *, seed: int = 0, draws: int = DRAWS, say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """One strategy's distance from perfect play: exact from the tree's views, or by walks and draws for a
    strategy that reads the public history (analyzer.exact.measure)."""
    if not getattr(strat, "uses_history", False):
        d = solver.distance(tree, sol, strat, seed=seed)
        return {"exploitability": d.exploitability, "loss": d.loss, "samples": d.samples}
    m = measure.distance_sampled(tree, sol, rules, cards, strat, draws=draws, seed=seed, say=say)
    out: dict[str, Any] = {"exploitability": m.exploitability, "loss": m.loss, "samples": 1,
                           "draws": m.draws, "sets_asked": m.asked}
    if not m.deterministic:
        out.update({"loss_interval": list(m.loss_interval), "exploitability_lower": m.exploitability_lower,
                    "exploitability_interval": list(m.exploitability_interval), "per_draw": m.per_draw})
    return out


def check_tree_size(variant: str, deck: int, hand: int, rules: Any, cards: tuple[int, ...], max_nodes: int) -> float:
    """The estimated node count (:func:`~analyzer.exact.tree.estimate_nodes`); TreeTooLarge, before anything is
    built, where even that estimate is past ``max_nodes`` (czech 12x2 reads about 1e9 nodes: the build would fill
    the memory after hours, in silence)."""
    nodes = estimate_nodes(rules, cards)
    if nodes > max_nodes:
        raise TreeTooLarge(
            f"{variant} {deck}x{hand}: its game tree has about {nodes:.1e} nodes (estimated from random walks), "
            f"past --max-nodes {max_nodes:,} (about {BYTES_A_NODE * nodes / 2**30:.2g} GiB and "
            f"{nodes / NODES_A_SECOND / 3600:.2g} hours to build); solve a smaller size or a lower turn cap")
    return nodes


def solve_size(variant: str, deck: int, hand: int, *, strategies: Sequence[str] | None = None,
               target: float = 0.001, max_iterations: int = 20_000, seed: int = 0, draws: int = DRAWS,
               overrides: dict[str, Any] | None = None, max_nodes: int = MAX_NODES,
               on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Solve one research size and measure the strategies (JSON-able dict, ``durak solve --json``);
    ``overrides``: rule options over the variant's (RULES.md names).  A tree past ``max_nodes`` is refused
    (TreeTooLarge): before the build where its estimate is past it, else when the build reaches it."""
    check_size(deck, hand)
    rules = research_rules(variant, hand, overrides)
    cards = research_cards(rules, deck)
    say = on_progress or (lambda _s: None)
    estimated = check_tree_size(variant, deck, hand, rules, cards, max_nodes)
    say(f"building the tree: about {estimated:.1e} nodes, by an estimate from random walks that often reads low")
    t0 = time.perf_counter()
    tree = build(rules, cards, max_nodes=max_nodes, progress=lambda n: say(
        f"building the tree: {n:,} nodes ({time.perf_counter() - t0:.0f} s)") if n and n % 500_000 == 0 else None)
    built = time.perf_counter() - t0
    say(f"tree: {tree.n_nodes:,} nodes, {tree.n_sets:,} information sets ({built:.0f} s)")
    sol = solver.solve(tree, target=target, max_iterations=max_iterations,
                       progress=lambda it, e: say(f"CFR+ {it} iterations: exploitability {e:.5f}"))
    specs = [s.format(variant=variant) for s in (strategies if strategies is not None else STRATEGIES)]
    measured: dict[str, dict[str, float | int]] = {}
    for spec in specs:
        try:
            strat = get_strategy(spec)
        except ValueError as exc:
            raise RulesError(str(exc)) from None
        t1 = time.perf_counter()
        measured[spec] = measure_one(tree, sol, rules, cards, spec, strat, seed=seed, draws=draws, say=say)
        measured[spec]["seconds"] = round(time.perf_counter() - t1, 1)
        say(f"{spec}: exploitability {measured[spec]['exploitability']:.4f}, loss {measured[spec]['loss']:.4f}")
    return {
        "variant": variant, "deck": deck, "hand": hand, "research_size": True, "rules": dict(overrides or {}),
        "cards": " ".join(RANKS[r - 2] for r in sorted({rank_of(c) for c in cards})),
        "turn_cap": rules.turn_cap,
        "exploitability": sol.exploitability, "first_mover_value": sol.first_mover_value,
        "iterations": sol.iterations, "nodes": tree.n_nodes, "information_sets": tree.n_sets,
        "build_seconds": round(built, 1), "solve_seconds": round(sol.seconds, 1),
        "capped_share": capped_share(tree, sol.sigma), "trace": sol.trace,
        "wild_effect": wild_effect(tree, sol.sigma, rules.wild_rank),
        "strategies": measured, "not_measured": list(NOT_MEASURED),
    }
