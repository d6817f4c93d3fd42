"""``ismcts``: single-observer information-set Monte Carlo tree search.

The second search family beside ``pimc``.  Where pimc scores each of its
actions by rollouts in worlds it samples (and so assumes it will know the
hidden cards from the next move on), ``ismcts`` grows one tree over the
public moves of every seat, shared by all its sampled worlds: each iteration
draws a world with the same exact sampler (:mod:`analyzer.kernel.search`),
walks the tree choosing among the moves legal in that world by UCB
(availability counts), adds one node, finishes the deal with the ``rollout``
policy on the compiled kernel and backs up every seat's reward
(:mod:`analyzer.kernel.ismcts`).  It plays the root action visited most.

``ismcts?iterations=5000,budget=20000,c=0.7,rollout=weighted,objective=auto,depth=0``:
``iterations`` worlds (and rollouts) per decision, or fewer: ``budget`` > 0
stops once the iterations have played that many turns (at least 32
iterations; pimc's budget counts the same turns, so equal budgets are about
equal time), ``depth`` > 0 stops the tree that many moves deep (1: flat
Monte Carlo over the root moves, with UCB); ``c`` the UCB exploration
constant (rewards are in [0, 1]), ``objective`` as pimc's (``auto``:
``loser`` at two players, ``both`` at more; ``win``; every seat in the tree
plays for the same objective).  Like pimc it reads the public history
(``uses_history``): ``choose_batch`` searches every deal of a batch where it
must choose in one compiled call; ``choose`` searches its decision as a
one-row batch, so both paths play the same move for the same key.

The default budget (20,000 turns, half pimc's) is pimc's time per decision
at its default budget: the tree walk stops and resumes the kernel at every
real decision, so a turn of ismcts costs about twice a turn of pimc's
rollouts (CPU time per searched decision, load 8 on two cores: czech 2p 2.4
ms against pimc's 2.1, svinya 2p 2.2 against 2.4, prague 2p 2.4 against
2.3, czech 4p 4.0 against 3.1, prague 4p 3.0 against 3.1).
"""

from __future__ import annotations

import numpy as np

from analyzer.core.registry import Param, check_params, register
from analyzer.knowledge.ismcts import ismcts_view
from analyzer.knowledge.search import ViewSearch
from strategies.pimc import BUDGET, BatchSearch

OBJECTIVES = ("auto", "loser", "win", "both")


@register("ismcts")
class Ismcts(BatchSearch):
    """Single-observer information-set MCTS with rollouts on the compiled kernel (needs the public history)."""

    name = "ismcts"
    family = "ismcts"
    objectives = OBJECTIVES
    uses_history = True  # the fast path reads the views' public history (choose_batch)
    description = ("information-set Monte Carlo tree search: `iterations` sampled worlds per decision walk one "
                   "tree of public moves (UCB constant `c`), rollouts with `rollout`, the most visited move")

    #: the numeric parameters and what the compiled search takes of each (checked here; ``durak tune``'s bounds)
    params = {"iterations": Param(True, 1, 200_000), "c": Param(False, 0, 100),
              "depth": Param(True, 0, 1_000_000, " of tree levels (0 = no limit)"), "budget": BUDGET}

    def __init__(self, *, iterations: int = 5000, c: float = 0.7, rollout: str = "weighted",
                 objective: str = "auto", depth: int = 0, budget: int = 20_000) -> None:
        v = check_params(self.params, {"iterations": iterations, "c": c, "depth": depth, "budget": budget})
        super().__init__(rollout=rollout, objective=objective)
        self.iterations, self.c, self.depth, self.budget = v["iterations"], v["c"], v["depth"], v["budget"]

    def _search(self, p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, vs: ViewSearch, objective: int,
                keys: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """One tree per searched row walked by sampled worlds: the candidates' visit counts, rollouts played."""
        visits, used, _turns = ismcts_view(p, kinds, weights, vs, objective, keys, self.iterations, self.c,
                                           self.depth, self.budget)
        return visits, int(used.sum())
