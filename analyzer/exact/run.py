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
from analyzer.exact import passes as cfr
from analyzer.exact import solver
from analyzer.exact.research import check_size, research_cards, research_rules
from analyzer.exact.tree import Tree, build

#: The built-ins measured: those that play from the view alone.  tracker, pimc and ismcts read the public
#: history and assume the RULES.md deck (G1), so on a research deck they would reason about cards that are not
#: in it; they are listed as not measured.
STRATEGIES = ("random", "greedy", "weighted", "weighted?preset={variant}-2p", "wild-keeper", "wild-dumper",
              "aggressive", "suit-keeper")
NOT_MEASURED = ("tracker", "pimc", "ismcts")


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


def solve_size(variant: str, deck: int, hand: int, *, strategies: Sequence[str] | None = None,
               target: float = 0.001, max_iterations: int = 20_000, seed: int = 0,
               on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Solve one research size and measure the strategies (JSON-able dict, ``durak solve --json``)."""
    check_size(deck, hand)
    rules = research_rules(variant, hand)
    cards = research_cards(rules, deck)
    say = on_progress or (lambda _s: None)
    t0 = time.perf_counter()
    tree = build(rules, cards)
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
        d = solver.distance(tree, sol, strat, seed=seed)
        measured[spec] = {"exploitability": d.exploitability, "loss": d.loss, "samples": d.samples}
        say(f"{spec}: exploitability {d.exploitability:.4f}, loss {d.loss:.4f}")
    return {
        "variant": variant, "deck": deck, "hand": hand, "research_size": True,
        "cards": " ".join(RANKS[r - 2] for r in sorted({rank_of(c) for c in cards})),
        "turn_cap": rules.turn_cap,
        "exploitability": sol.exploitability, "first_mover_value": sol.first_mover_value,
        "iterations": sol.iterations, "nodes": tree.n_nodes, "information_sets": tree.n_sets,
        "build_seconds": round(built, 1), "solve_seconds": round(sol.seconds, 1),
        "capped_share": capped_share(tree, sol.sigma), "trace": sol.trace,
        "wild_effect": wild_effect(tree, sol.sigma, rules.wild_rank),
        "strategies": measured, "not_measured": list(NOT_MEASURED),
    }


def markdown(out: dict[str, Any]) -> str:
    """One solved size as a report page: the equilibrium, the wild's effect, every strategy's distance."""
    lines = [f"# {out['variant']} 2p solved exactly: research deck of {out['deck']}, hands of {out['hand']}", "",
             f"A research size, not a RULES.md game: the deck is the ranks {out['cards']} of four suits (the wild "
             f"first, then the ranks with an effect, then the highest), a deal is capped at {out['turn_cap']} turns "
             "(G10) and a capped deal pays 0.  Exact numbers (no sampling): the whole game tree "
             f"({out['nodes']:,} nodes, {out['information_sets']:,} information sets) solved by CFR+.", "",
             "| measure | value |", "|---|---|",
             f"| exploitability of the equilibrium found (stake 1) | {out['exploitability']:.5f} |",
             f"| first mover's (position 0's) expected return | {out['first_mover_value']:+.4f} |",
             f"| share of deals reaching the cap under equilibrium play | {out['capped_share']:.4f} |",
             f"| CFR+ iterations, tree build, solve | {out['iterations']}, {out['build_seconds']} s, "
             f"{out['solve_seconds']} s |", "",
             "## The wild under equilibrium play", "",
             "Expected return (+1 win, -1 дурак) by the wilds each position was dealt:", "",
             "| position | " + " | ".join(k for k in out["wild_effect"]["position 0"] if "wilds" in k) + " |",
             "|---|" + "---|" * sum("wilds" in k for k in out["wild_effect"]["position 0"])]
    for pos, row in out["wild_effect"].items():
        lines.append(f"| {pos} | " + " | ".join(f"{v:+.4f} (dealt {row['share dealt ' + k.split()[0]]:.3f})"
                                                for k, v in row.items() if "wilds" in k) + " |")
    lines += ["", "## Every strategy's distance from perfect play", "",
              "Exploitability: what a best response wins from the strategy; loss: what the equilibrium wins from "
              "it; both averaged over the two seats, exact (random weighed by its stated probabilities).", "",
              "| strategy | exploitability | loss against the equilibrium |", "|---|---|---|"]
    for spec, d in out["strategies"].items():
        lines.append(f"| `{spec}` | {d['exploitability']:.4f} | {d['loss']:+.4f} |")
    lines += ["", "Not measured: " + ", ".join(f"`{s}`" for s in out["not_measured"]) + " (they read the public "
              "history and assume a RULES.md deck, so on a research deck they would reason about absent cards).", "",
              f"Reproduce: `durak solve --variant {out['variant']} --deck {out['deck']} --hand {out['hand']} --json`", ""]
    return "\n".join(lines)
