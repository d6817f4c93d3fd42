"""Simulate deals or matches: the simulator's entry points (``simulate_deals``, ``simulate_matches``).

The work is done by :class:`analyzer.sim.batch.BatchSim`; this module seeds it,
and turns a strategy fault into a one-line error with a scenario file that
replays the faulty deal to the faulty decision.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.rules import RuleSet
from analyzer.engine.faults import write_fault_scenario, write_trace_scenario
from analyzer.sim.batch import BatchSim
from analyzer.sim.errors import SimulationError, StrategyFault, fault_dir
from analyzer.sim.state import PHASE_NAMES

__all__ = ["BatchSim", "DEFAULT_SLOTS", "PHASE_NAMES", "SimulationError", "StrategyFault", "fault_dir",
           "simulate_deals", "simulate_matches"]

DEFAULT_SLOTS = 16384


def _reproduce(fault: StrategyFault, rules: RuleSet, strategies: Sequence[object], n: int,
               ss: np.random.SeedSequence, decks, slots: int, matches: bool) -> str:
    """Play the same run again, tracing the faulty deal, and write it as a scenario file.

    The run is deterministic given its seed, so the fault recurs at the same
    decision; the tokens recorded up to it replay the deal to that point.  A
    strategy that is not deterministic may not fault again: then the deal is
    reproduced in the rules engine instead (faults.write_fault_scenario).
    """
    unit = "match" if matches else "deal"
    label = f"{rules.variant}-{unit}{fault.job}"
    play_rng, deck_rng = _streams(ss)
    again = BatchSim(rules, strategies, slots=slots, rng=play_rng, matches=matches, deck_rng=deck_rng,
                     trace_jobs={fault.job})
    try:
        again.run(n, decks)
    except StrategyFault as second:
        if second.job == fault.job and str(second) == str(fault):
            try:
                path = write_trace_scenario(rules, second.seat_strategies, second.deck,
                                            again.histories.get(fault.job, []), again.lead_suits.get(fault.job),
                                            fault_dir(), label)
            except OSError as exc:
                return f"could not write the fault scenario: {exc}"
            return f"scenario {path} replays to the faulty decision: durak replay {path}"
    except Exception:  # noqa: BLE001 — a strategy that misbehaves differently the second time
        pass
    try:
        path, met = write_fault_scenario(rules, fault.seat_strategies, fault.deck, fault_dir(), label)
    except OSError as exc:
        return f"could not write the fault scenario: {exc}"
    how = "replays to the faulty decision" if met else "holds the deal (the strategy did not fault the same way again)"
    return f"scenario {path} {how}: durak replay {path}"


def _streams(seed: int | np.random.SeedSequence | None) -> tuple[np.random.Generator, np.random.Generator]:
    """Two independent generators from one seed: play (strategies, options) and decks."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    child = [np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (k,)) for k in (0, 1)]
    return np.random.default_rng(child[0]), np.random.default_rng(child[1])


def simulate_deals(rules: RuleSet, strategies: Sequence[object], n: int,
                   seed: int | np.random.SeedSequence | None = None, *, decks: NDArray[np.int8] | None = None,
                   check: bool = False, slots: int = DEFAULT_SLOTS) -> DealResults:
    """Play ``n`` deals; ``strategies[p]`` plays position p (p = 0 acts first, G2).

    Deals come from seeded shuffles (``seed``) or from ``decks`` (N, D).
    """
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} players")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    play_rng, deck_rng = _streams(ss)
    # a slot count that does not depend on n would make results depend only on the seed;
    # fewer slots than deals is pointless, so clamp (results then depend on the seed and n)
    sim = BatchSim(rules, strategies, slots=max(1, min(slots, n)), rng=play_rng, check=check, deck_rng=deck_rng)
    try:
        return sim.run(n, decks)  # type: ignore[return-value]
    except StrategyFault as fault:
        raise SimulationError(f"{fault}; {_reproduce(fault, rules, strategies, n, ss, decks, sim.b, False)}") from None


def simulate_matches(rules: RuleSet, strategies: Sequence[object], n: int,
                     seed: int | np.random.SeedSequence | None = None, *, decks: NDArray[np.int8] | None = None,
                     check: bool = False, slots: int = 2048) -> MatchResults:
    """Play ``n`` matches to ``rules.target`` (G11); ``strategies[i]`` is player i (0 leads deal 1)."""
    if rules.target is None:
        raise ValueError(f"{rules.variant} has no match target; set the rule target=POINTS")
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} players")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    play_rng, deck_rng = _streams(ss)
    sim = BatchSim(rules, strategies, slots=max(1, min(slots, n)), rng=play_rng, matches=True, check=check,
                   deck_rng=deck_rng)
    try:
        return sim.run(n, decks)  # type: ignore[return-value]
    except StrategyFault as fault:
        raise SimulationError(f"{fault}; {_reproduce(fault, rules, strategies, n, ss, decks, sim.b, True)}") from None
