"""The compiled kernel as an engine of the executor: one chunk of a cell, seeded as the numpy simulator is.

A chunk's SeedSequence ``ss`` gives the numpy simulator (analyzer.sim.simulator)
a deck generator (its child 1) and a base key for the per-deal streams of the
rule options (core.streams.base_key).  The kernel takes the same two: deal
``j`` of the chunk gets the ``j``-th deck that generator draws and the play
stream ``deal_key(base, j)``.  So a deterministic line-up gives the numpy
simulator's results deal by deal, even under reshuffle=shuffle or forget_rate;
``random`` draws from the deal's play stream (numpy's from one generator per
chunk), so it agrees statistically.  Matches draw their decks from the
kernel's own streams keyed by (base, match, deal): the numpy simulator deals
them in an order that depends on its slots, which no other engine can follow.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.rules import RuleSet
from analyzer.core.streams import base_key, child_seed
from analyzer.kernel._cache import announce_if_cold
from analyzer.kernel.driver import Broken, simulate_deals
from analyzer.kernel.lineup import policy_code
from analyzer.kernel.matches import simulate_matches
from analyzer.sim.errors import FaultContext, SimulationError


def not_compiled(strategies: Sequence[object]) -> object | None:
    """The first strategy without a compiled form (a Python strategy), or None if all have one."""
    return next((s for s in strategies if policy_code(s) is None), None)


def deck_generator(ss: np.random.SeedSequence) -> np.random.Generator:
    """The numpy simulator's deck generator of a chunk seeded ``ss`` (its child 1)."""
    return np.random.default_rng(child_seed(ss, 1))


def simulate_on_decks(rules: RuleSet, strategies: Sequence[object], decks: np.ndarray, ss: np.random.SeedSequence
                      ) -> DealResults:
    """Deals on given decks (duplicate designs), with the play streams the numpy simulator gives ``ss``."""
    announce_if_cold("driver.deals_kernel")
    return simulate_deals(rules, strategies, len(decks), base_key(ss), decks=decks, threads=1)


def simulate_chunk(rules: RuleSet, strategies: Sequence[object], n: int, ss: np.random.SeedSequence, *,
                   matches: bool, threads: int = 1, check: bool = False, where: FaultContext | None = None
                   ) -> DealResults | MatchResults:
    """``n`` deals (or matches) of one chunk on the kernel, on ``threads`` threads (results do not depend on it).

    ``check`` (--check): every deal must end with every card exactly once in hands, talon and pile; a
    deal that does not is a SimulationError naming it as the numpy simulator's check does (results
    unchanged).  The compiled strategies are the built-ins, deterministic given their streams, so the
    numpy simulator's replay of a sample (a strategy that is not deterministic) has nothing to find here.
    """
    where = where or FaultContext()
    announce_if_cold("matches.matches_kernel" if matches else "driver.deals_kernel")  # a cold cache: one line first
    try:
        if matches:
            return simulate_matches(rules, strategies, n, base_key(ss), threads=threads, check=check)
        return simulate_deals(rules, strategies, n, base_key(ss), deck_rng=deck_generator(ss), threads=threads,
                              check=check)
    except Broken as exc:
        unit = "match" if matches else "deal"
        raise SimulationError(f"invariant broken: cards not conserved in {rules.variant} {unit} "
                              f"{where.first + exc.index}{where.describe()} (compiled kernel)") from None
