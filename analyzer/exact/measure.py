"""The distance from perfect play of strategies that read the public history or answer at random.

:func:`analyzer.exact.solver.distance` asks a strategy at every information set of the tree, from the view
stored there.  That does not do for ``tracker``, ``pimc`` and ``ismcts``: they read the public history of the
deal (``uses_history``), which the tree does not keep, and a search costs milliseconds a decision.  Here the
tree is walked again from its root with the positions rebuilt, and a strategy is asked only where its own play
reaches (where it could not be, nothing it would do there changes a value): every branch of chance and of the
other seat, only the branches it takes of its own.  It is shown the view the engine's table runner shows it,
the public history restricted to the research deck (:func:`research_view`): the rules' deck is a RULES.md deck
(G1), and a card that is not in the research deck is in nobody's hand and not in the talon.

A strategy that answers at random (a search's sampled worlds) is measured by *draws*: in one draw it is asked
once at every set its play reaches, which is one realisation of its behaviour strategy, and the draw's loss
against the equilibrium and exploitability are exact on the tree.  Over independent draws:

* the loss is unbiased: the value of a profile is linear in each set's answer, and the sets' answers are drawn
  independently, so the mean loss over draws estimates the strategy's loss, with a t-interval;
* a draw's exploitability is biased *up* (a best response to the draw also exploits the draw's luck), so its
  mean is an upper estimate; the best response found against draw ``r`` and played against the next draw
  (independent of it) wins, on average, at most the strategy's exploitability: a lower estimate.  The interval
  reported runs from the lower estimate's lower end to the upper estimate's upper end.

A strategy that gave the same answers under two seeds at its first sets is taken as deterministic and measured
in one draw, exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from analyzer.core.contract import DecisionView, History, StrategyError
from analyzer.core.rules import RuleSet
from analyzer.engine.deal import checked_answer
from analyzer.exact import solver
from analyzer.exact.position import Position, encode_action
from analyzer.exact.tree import Tree, deals, settle
from analyzer.stats.intervals import t_quantile

ALL_CARDS = frozenset(range(52))


def research_view(view: DecisionView, cards: frozenset[int]) -> DecisionView:
    """``view`` with its public history knowing the research deck: cards outside ``cards`` are hidden nowhere,
    may fill no unknown card, and no hand can hold them."""
    h = view.history
    if h is None:
        return view
    f = {k: getattr(h, k) for k in History.FIELDS}
    f["hidden"] = h.hidden & cards
    f["slots"] = tuple(tuple(m & cards for m in seat) for seat in h.slots)
    f["talon_may"] = h.talon_may & cards
    f["cannot_hold"] = tuple(c | (ALL_CARDS - cards) for c in h.cannot_hold)
    return view._replace(history=History(**f))


@dataclass
class Play:
    """One draw of a strategy's play in one seat: its answers (slots of its sets, 1 where it chose) and what
    it took."""

    sigma: NDArray[np.float64]
    asked: int
    nodes: int
    differed: bool = False  # a probed set answered differently under a second seed


def walk_play(tree: Tree, rules: RuleSet, cards: tuple[int, ...], strategy: object, seat: int,
              rng: np.random.Generator, probe: int = 0, probe_rng: np.random.Generator | None = None) -> Play:
    """Ask ``strategy`` (in position ``seat``) once at every set its own play reaches, walking the tree from the
    root with the positions rebuilt (the tree's children in its order: a chance node's outcomes, a decision's
    actions).  The first ``probe`` sets are asked a second time with ``probe_rng`` to tell a random strategy."""
    name = getattr(strategy, "name", repr(strategy))
    history = bool(getattr(strategy, "uses_history", False))
    deck = frozenset(cards)
    sigma = np.zeros(max(tree.n_slots, 1))
    asked = np.zeros(tree.n_sets, np.bool_)
    out = Play(sigma, 0, 0)

    def answer(pos: Position, acts: list[int], r: np.random.Generator) -> int:
        view = pos.replayed(record=True).view(history=True) if history else pos.view()
        view = research_view(view, deck)
        action, suit = checked_answer(strategy.choose(view, r), name)  # type: ignore[attr-defined]
        code = encode_action(action, suit, rules, last_card=len(view.hand) == 1)
        if code not in acts:
            raise StrategyError(f"strategy {name!r} returned an illegal move {action}")
        return acts.index(code)

    root_kids = tree.kids[tree.first[0]: tree.first[0] + tree.count[0]]
    stack: list[tuple[int, Position]] = []
    for c, (order, _p) in zip(root_kids, deals(rules, cards)):
        pos = Position(rules, cards)
        for card in order:
            pos.apply(card)
        stack.append((int(c), settle(pos)))
    stack.reverse()
    while stack:
        i, pos = stack.pop()
        out.nodes += 1
        k = tree.kind[i]
        if k == 2:
            continue
        kids: list[int] = tree.kids[tree.first[i]: tree.first[i] + tree.count[i]].tolist()
        if k == 0:
            outcomes = pos.chance_outcomes()
            for c in kids:
                stack.append((c, settle(pos.child(outcomes[tree.edge[c]][0]))))
            continue
        s = int(np.searchsorted(tree.set_base, tree.base[i]))
        acts = tree.set_actions[s]
        b = int(tree.set_base[s])
        if tree.actor[i] == seat:
            if not asked[s]:
                asked[s] = True
                j = answer(pos, acts, rng)
                sigma[b + j] = 1.0
                if out.asked < probe and probe_rng is not None and answer(pos, acts, probe_rng) != j:
                    out.differed = True
                out.asked += 1
            kids = [c for c in kids if sigma[b + tree.edge[c]] > 0]
        for c in kids:
            stack.append((c, settle(pos.child(acts[tree.edge[c]]))))
    return out


@dataclass
class Sampled:
    """A strategy's distance from perfect play measured by draws (see the module)."""

    loss: float
    loss_interval: tuple[float, float]
    exploitability: float  # the upper estimate (mean over draws)
    exploitability_lower: float
    exploitability_interval: tuple[float, float]
    draws: int
    deterministic: bool
    asked: int  # sets asked in one draw (both seats)
    per_draw: list[dict[str, float]] = field(default_factory=list)


def _t_interval(x: list[float], level: float = 0.95) -> tuple[float, float, float]:
    a = np.asarray(x, np.float64)
    m = float(a.mean())
    if len(a) < 2:
        return m, m, m
    h = float(t_quantile(0.5 + level / 2, len(a) - 1) * a.std(ddof=1) / np.sqrt(len(a)))
    return m, m - h, m + h


def distance_sampled(tree: Tree, solution: solver.Solution, rules: RuleSet, cards: tuple[int, ...],
                     strategy: object, *, draws: int = 4, seed: int = 0, probe: int = 200,
                     say: Callable[[str], None] | None = None) -> Sampled:
    """``strategy``'s loss against the equilibrium and exploitability by draws (exact in one draw when it
    answered the same under two seeds at its first ``probe`` sets)."""
    eq = solution.sigma
    depths = (tree.own_depth(0), tree.own_depth(1))
    plays: list[NDArray[np.float64]] = []
    rows: list[dict[str, float]] = []
    responses: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
    deterministic = True
    asked = 0
    r = 0
    while r < (1 if deterministic and r >= 1 else draws):
        seats = []
        for q in (0, 1):
            rng = np.random.default_rng([seed, r, q])
            p = walk_play(tree, rules, cards, strategy, q, rng, probe=probe if r == 0 else 0,
                          probe_rng=np.random.default_rng([seed, r, q, 1]))
            deterministic = deterministic and not p.differed
            seats.append(p)
        s = solver.mixed(tree, seats[0].sigma, seats[1].sigma)
        asked = seats[0].asked + seats[1].asked
        loss = 0.5 * (solver.value(tree, solver.mixed(tree, eq, s)) - solver.value(tree, solver.mixed(tree, s, eq)))
        b0, p0 = solver.best_response_play(tree, s, 0, depths[0])
        b1, p1 = solver.best_response_play(tree, s, 1, depths[1])
        plays.append(s)
        responses.append((p0, p1))
        rows.append({"loss": loss, "exploitability": 0.5 * (b0 + b1)})
        if say is not None:
            say(f"  draw {r + 1}: {asked:,} sets asked, loss {loss:+.4f}, exploitability {0.5 * (b0 + b1):.4f}")
        r += 1
    n = len(plays)
    if n > 1:  # the best response to draw r against draw r + 1 (independent of it)
        for r in range(n):
            p0, p1 = responses[r]
            nxt = plays[(r + 1) % n]
            won = 0.5 * (solver.value(tree, solver.mixed(tree, p0, nxt)) - solver.value(tree, solver.mixed(tree, nxt, p1)))
            rows[r]["response_on_next_draw"] = won
    loss_m, loss_lo, loss_hi = _t_interval([x["loss"] for x in rows])
    up_m, _up_lo, up_hi = _t_interval([x["exploitability"] for x in rows])
    if n > 1:
        lo_m, lo_lo, _lo_hi = _t_interval([x["response_on_next_draw"] for x in rows])
    else:
        lo_m = lo_lo = up_m
    return Sampled(loss_m, (loss_lo, loss_hi), up_m, lo_m, (lo_lo, up_hi), n, deterministic and n == 1, asked, rows)
