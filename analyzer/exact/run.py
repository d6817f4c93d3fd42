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
from analyzer.exact.tree import Tree, build
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


def solve_size(variant: str, deck: int, hand: int, *, strategies: Sequence[str] | None = None,
               target: float = 0.001, max_iterations: int = 20_000, seed: int = 0, draws: int = DRAWS,
               overrides: dict[str, Any] | None = None,
               on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Solve one research size and measure the strategies (JSON-able dict, ``durak solve --json``);
    ``overrides``: rule options over the variant's (RULES.md names)."""
    check_size(deck, hand)
    rules = research_rules(variant, hand, overrides)
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
              "it; both averaged over the two seats, in units of the stake.  Exact for a deterministic strategy "
              "(and random, weighed by its stated probabilities); a strategy that answers at random (pimc, "
              "ismcts) is measured by draws of its play (analyzer.exact.measure): the loss's 95% t-interval, and "
              "the exploitability between a lower estimate (a best response to one draw played against the "
              "next) and an upper one (a best response to each draw), with the interval from the lower's lower "
              "end to the upper's upper end.", "",
              "| strategy | exploitability | loss against the equilibrium | how |", "|---|---|---|---|"]
    for spec, d in out["strategies"].items():
        lines.append(f"| `{spec}` | {cell(d, 'exploitability')} | {cell(d, 'loss')} | {how(d)} |")
    if out.get("not_measured"):
        lines += ["", "Not measured: " + ", ".join(f"`{s}`" for s in out["not_measured"]) + "."]
    rules = "".join(f" --rule {k}={v}" for k, v in (out.get("rules") or {}).items())
    lines += ["", f"Reproduce: `durak solve --variant {out['variant']} --deck {out['deck']} --hand {out['hand']}"
              f"{rules} --json`", ""]
    return "\n".join(lines)


def cell(d: dict[str, Any], key: str) -> str:
    """A measure with its interval where it was sampled."""
    if key == "loss":
        text = f"{d['loss']:+.4f}"
        iv = d.get("loss_interval")
        return text + (f" [{iv[0]:+.4f}, {iv[1]:+.4f}]" if iv else "")
    iv = d.get("exploitability_interval")
    if not iv:
        return f"{d['exploitability']:.4f}"
    return f"{max(d['exploitability_lower'], 0.0):.4f} to {d['exploitability']:.4f} [{max(iv[0], 0.0):.4f}, {iv[1]:.4f}]"


def how(d: dict[str, Any]) -> str:
    """How a strategy was measured."""
    if d.get("exploitability_interval"):
        return f"{d['draws']} draws, {d.get('sets_asked', 0):,} sets asked a draw"
    if d.get("sets_asked"):
        return f"exact, {d['sets_asked']:,} sets asked"
    return "exact" if d.get("samples", 1) == 1 else f"{d['samples']} answers a set"


def size_label(out: dict[str, Any]) -> str:
    rules = ", ".join(f"{k}={v}" for k, v in (out.get("rules") or {}).items())
    return f"{out['variant']} {out['deck']}x{out['hand']}" + (f" ({rules})" if rules else "")


def summary(results: Sequence[dict[str, Any]]) -> str:
    """Every solved size on one page: the equilibria, the wild under equilibrium play, every strategy's
    distance from perfect play (``durak solve --summary``)."""
    lines = ["# Distance from perfect play on solved research sizes", "",
             "Research sizes, not RULES.md games: two players, a short deck (the wild first, then the ranks with "
             "an effect, then the highest, four suits each), a turn cap after which a deal pays 0.  Each size's "
             "own page (its folder's solve.md) says how it was measured.  Stake 1: +1 for the winner, -1 for the "
             "дурак.", "",
             "## The equilibria", "",
             "| size | ranks | nodes | information sets | CFR+ iterations | build + solve | exploitability "
             "| first mover's value | capped share |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {size_label(r)} | {r['cards']} | {r['nodes']:,} | {r['information_sets']:,} | "
                     f"{r['iterations']} | {r['build_seconds']} s + {r['solve_seconds']} s | "
                     f"{r['exploitability']:.5f} | {r['first_mover_value']:+.4f} | {r['capped_share']:.4f} |")
    lines += ["", "## The wild under equilibrium play", "",
              "Expected return of each position by the wilds it was dealt (share of deals in brackets).", "",
              "| size | position | 0 wilds | 1 wild | 2 wilds | 3 wilds |", "|---|---|---|---|---|---|"]
    for r in results:
        for pos, row in r["wild_effect"].items():
            cells = [f"{row[f'{k} wilds']:+.3f} ({row[f'share dealt {k}']:.3f})" if f"{k} wilds" in row else ""
                     for k in range(4)]
            lines.append(f"| {size_label(r)} | {pos} | " + " | ".join(cells) + " |")
    specs = list(dict.fromkeys(s.replace(f"{r['variant']}-2p", "VARIANT-2p") for r in results
                               for s in r["strategies"]))
    lines += ["", "## Every strategy's distance from perfect play", "",
              "exploitability / loss against the equilibrium; sampled strategies with their intervals "
              "(exploitability: lower to upper estimate [interval]; loss [95% interval]); blank: not measured "
              "on that size.", "",
              "| strategy | " + " | ".join(size_label(r) for r in results) + " |",
              "|---|" + "---|" * len(results)]
    for spec in specs:
        row = []
        for r in results:
            d = r["strategies"].get(spec.replace("VARIANT-2p", f"{r['variant']}-2p"))
            row.append("" if d is None else f"{cell(d, 'exploitability')} / {cell(d, 'loss')}")
        lines.append(f"| `{spec}` | " + " | ".join(row) + " |")
    lines += ["", "Rebuild: `durak solve --summary reports/perfect` (reads every */solve.json there).", ""]
    return "\n".join(lines)
