"""Simulate deals or matches: the simulator's entry points (``simulate_deals``, ``simulate_matches``).

The work is done by :class:`analyzer.sim.batch.BatchSim`; this module seeds it,
and turns a strategy fault into a one-line error with a scenario file that
replays the faulty deal to the faulty decision.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from analyzer.core.faults import FaultContext, SimulationError, StrategyFault, fault_dir
from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.rules import RuleSet
from analyzer.core.streams import base_key, child_seed
from analyzer.engine.faults import write_fault_scenario, write_trace_scenario
from analyzer.sim.batch import BatchSim
from analyzer.sim.determinism import check_determinism
from analyzer.sim.state import PHASE_NAMES

__all__ = ["BatchSim", "DEFAULT_SLOTS", "FaultContext", "PHASE_NAMES", "SimulationError", "StrategyFault", "fault_dir",
           "simulate_deals", "simulate_matches"]

DEFAULT_SLOTS = 16384


def _reproduce(fault: StrategyFault, rules: RuleSet, strategies: Sequence[object], n: int,
               ss: np.random.SeedSequence, decks, slots: int, matches: bool, where: FaultContext) -> str:
    """Play the same run again, tracing the faulty deal, and write it as a scenario file.

    The run is deterministic given its seed, so the fault recurs at the same
    decision; the tokens recorded up to it replay the deal to that point.  A
    strategy that is not deterministic may not fault again: then the deal is
    reproduced in the rules engine instead (faults.write_fault_scenario).  The
    file is named by variant, cell, chunk and global deal number, and never
    overwrites another (a second fault in the same deal gets ``-2``).
    """
    unit = "match" if matches else "deal"
    label = f"{rules.variant}-{where.file_part()}{unit}{where.first + fault.job}"
    play_rng, deck_rng = _streams(ss)
    again = BatchSim(rules, strategies, slots=slots, rng=play_rng, matches=matches, deck_rng=deck_rng,
                     trace_jobs={fault.job}, where=where, stream_base=base_key(ss))
    try:
        again.run(n, decks)
    except StrategyFault as second:
        if second.job == fault.job and str(second) == str(fault):
            try:
                path = write_trace_scenario(rules, second.seat_strategies, second.deck,
                                            again.histories.get(fault.job, []), again.lead_suits.get(fault.job),
                                            fault_dir(), label, fault.stream_key, str(fault))
            except OSError as exc:
                return f"could not write the fault scenario: {exc}"
            return f"scenario {path} replays to the faulty decision: durak replay {path}"
    except Exception:  # noqa: BLE001 — a strategy that misbehaves differently the second time
        pass
    try:
        path, met = write_fault_scenario(rules, fault.seat_strategies, fault.deck, fault_dir(), label,
                                         fault.stream_key, str(fault))
    except OSError as exc:
        return f"could not write the fault scenario: {exc}"
    how = "replays to the faulty decision" if met else "holds the deal (the strategy did not fault the same way again)"
    return f"scenario {path} {how}: durak replay {path}"


def _streams(seed: int | np.random.SeedSequence | None) -> tuple[np.random.Generator, np.random.Generator]:
    """Two independent generators from one seed: play (strategies) and decks; the rule options
    draw from per-deal streams keyed by a third child (core.streams.base_key)."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return np.random.default_rng(child_seed(ss, 0)), np.random.default_rng(child_seed(ss, 1))


def _run(rules: RuleSet, strategies: Sequence[object], n: int, seed, decks, check: bool, slots: int,
         matches: bool, where: FaultContext | None, hands: Sequence[int] | None = None):
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} players")
    where = where or FaultContext()
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    play_rng, deck_rng = _streams(ss)
    # a slot count that does not depend on n would make results depend only on the seed;
    # fewer slots than deals is pointless, so clamp (results then depend on the seed and n)
    sim = BatchSim(rules, strategies, slots=max(1, min(slots, n)), rng=play_rng, matches=matches, check=check,
                   deck_rng=deck_rng, where=where, stream_base=base_key(ss))
    if hands is not None:
        sim.deal_hands = np.asarray(hands, dtype=np.int64)
    try:
        res = sim.run(n, decks)
    except StrategyFault as fault:
        raise SimulationError(f"{fault}; {_reproduce(fault, rules, strategies, n, ss, decks, sim.b, matches, where)}"
                              ) from None
    if check and hands is None:
        check_determinism(rules, strategies, n, ss, decks, sim.b, matches, where)
    return res


def simulate_deals(rules: RuleSet, strategies: Sequence[object], n: int,
                   seed: int | np.random.SeedSequence | None = None, *, decks: NDArray[np.int8] | None = None,
                   check: bool = False, slots: int = DEFAULT_SLOTS, where: FaultContext | None = None) -> DealResults:
    """Play ``n`` deals; ``strategies[p]`` plays position p (p = 0 acts first, G2).

    Deals come from seeded shuffles (``seed``) or from ``decks`` (N, D).
    ``where`` says which cell and chunk this is, so that faults are named uniquely.
    """
    return _run(rules, strategies, n, seed, decks, check, slots, False, where)


def simulate_matches(rules: RuleSet, strategies: Sequence[object], n: int,
                     seed: int | np.random.SeedSequence | None = None, *, decks: NDArray[np.int8] | None = None,
                     check: bool = False, slots: int = 2048, where: FaultContext | None = None,
                     hands: Sequence[int] | None = None) -> MatchResults:
    """Play ``n`` matches to ``rules.target`` (G11); ``strategies[i]`` is player i (0 leads deal 1).

    ``hands`` (a permutation of the players): player ``p`` receives canonical hand ``hands[p]`` of every deck
    whoever deals (:func:`analyzer.engine.match.arrange_deck`), for duplicate designs where the dealer
    follows play (SV2); by default hands are dealt by seat (G10a).
    """
    if rules.target is None:
        raise ValueError(f"{rules.variant} has no match target; set the rule target=POINTS")
    return _run(rules, strategies, n, seed, decks, check, slots, True, where, hands)
