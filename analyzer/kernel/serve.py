"""The compiled kernel as the executor's engine: one chunk of a cell.

A chunk's SeedSequence ``ss`` gives a deck generator (its child 1: the decks
``analyzer.core.cards.shuffled_decks`` draws, analyzer.kernel.npdecks) and a
base key for the per-deal streams of the rule options and ``random``
(core.streams.base_key): deal ``j`` of the chunk gets the ``j``-th deck and
the play stream ``deal_key(base, j)``.  Matches draw their decks from the
kernel's own streams keyed by (base, match, deal).

A line-up with Python strategies (no compiled form) plays on the kernel
paused at their decisions (analyzer.kernel.pause), deals seeded the same way
(matches as the kernel's own matches), with a play generator for the
strategies (the chunk seed's child 0); its faults are
one line naming the deal with a scenario file that replays it, and ``check``
also plays a sample twice to catch a strategy that is not deterministic
(analyzer.kernel.replay).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from analyzer.core.faults import FaultContext, SimulationError, StrategyFault
from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.rules import RuleSet
from analyzer.core.streams import base_key, child_seed
from analyzer.kernel._cache import announce_if_cold
from analyzer.kernel.driver import Broken, simulate_deals
from analyzer.kernel.lineup import policy_code
from analyzer.kernel.matches import simulate_matches
from analyzer.kernel.pause import Answered, Traced, fault_error, simulate_paused, simulate_paused_matches
from analyzer.kernel.replay import check_determinism


def not_compiled(strategies: Sequence[object]) -> object | None:
    """The first strategy without a compiled form (a Python strategy), or None if all have one."""
    return next((s for s in strategies if policy_code(s) is None), None)


def reads_history(strategies: Sequence[object]) -> object | None:
    """The first strategy that reads the public history (``uses_history = True``), or None: the pause path then
    logs the deals' public events (analyzer.kernel.events)."""
    return next((s for s in strategies if getattr(s, "uses_history", False) is True), None)


def play_generator(ss: np.random.SeedSequence) -> np.random.Generator:
    """The generator of a chunk seeded ``ss`` for its Python strategies (its child 0)."""
    return np.random.default_rng(child_seed(ss, 0))


def deck_generator(ss: np.random.SeedSequence) -> np.random.Generator:
    """The deck generator of a chunk seeded ``ss`` (its child 1)."""
    return np.random.default_rng(child_seed(ss, 1))


def _paused_matches(rules: RuleSet, strategies: Sequence[object], n: int, ss: np.random.SeedSequence, *,
                    check: bool = False, where: FaultContext | None = None, decks: np.ndarray | None = None,
                    hands: Sequence[int] | None = None) -> MatchResults:
    """Matches with Python strategies on the kernel paused at their decisions, with the decks and play streams
    of the kernel's own matches (simulate_matches; strategies by player; ``decks`` and ``hands`` as there); a
    fault is one line."""
    where = where or FaultContext()
    announce_if_cold("pause.advance_matches")

    def run(trace: int = -1, m: int = n, log: list[Answered] | None = None) -> MatchResults:
        return simulate_paused_matches(rules, strategies, m, base_key(ss), play_rng=play_generator(ss), check=check,
                                       where=where, trace=trace, log=log,
                                       decks=None if decks is None else decks[:m], hands=hands)

    try:
        out = run()
    except StrategyFault as fault:
        raise fault_error(fault, rules, where, _traced(run, fault), matches=True) from None
    if check:  # a Python strategy must be deterministic given its generator
        check_determinism(lambda m, log: run(m=m, log=log), n, rules, strategies, where, matches=True)
    return out


def _paused(rules: RuleSet, strategies: Sequence[object], n: int, ss: np.random.SeedSequence, *,
            decks: np.ndarray | None = None, check: bool = False, where: FaultContext | None = None,
            specialise: bool | None = None, key: int | None = None) -> DealResults:
    """Deals with Python strategies on the kernel paused at their decisions; a fault is one line."""
    where = where or FaultContext()
    announce_if_cold("pause.advance_kernel")

    def run(trace: int = -1, m: int = n, log: list[Answered] | None = None) -> DealResults:
        return simulate_paused(rules, strategies, m, base_key(ss) if key is None else key, play_rng=play_generator(ss),
                               deck_rng=None if decks is not None else deck_generator(ss),
                               decks=None if decks is None else decks[:m], check=check, where=where, trace=trace,
                               specialise=specialise, log=log)

    try:
        res = run()
    except StrategyFault as fault:
        raise fault_error(fault, rules, where, _traced(run, fault)) from None
    if check:  # a Python strategy must be deterministic given its generator
        check_determinism(lambda m, log: run(m=m, log=log), n, rules, strategies, where, matches=False)
    return res


def _traced(run: Callable[[int], object], fault: StrategyFault) -> Traced | None:
    """The same run again, tracing the faulty deal: its moves up to the same fault, or None if the strategy
    does not fault the same way again (it is not deterministic given its generator)."""
    try:
        run(fault.job)
    except Traced as again:
        if again.fault.job == fault.job and str(again.fault) == str(fault):
            return again
    except Exception:  # noqa: BLE001 — a strategy that misbehaves differently the second time
        pass
    return None


def simulate_chunk(rules: RuleSet, strategies: Sequence[object], n: int, ss: np.random.SeedSequence, *,
                   matches: bool, threads: int = 1, check: bool = False, where: FaultContext | None = None,
                   specialise: bool | None = None, decks: np.ndarray | None = None, key: int | None = None,
                   hands: Sequence[int] | None = None) -> DealResults | MatchResults:
    """``n`` deals (or matches) of one chunk on the kernel, on ``threads`` threads (results do not depend on it).

    ``check`` (--check): every deal must end with every card exactly once in hands, talon and pile; a
    deal that does not is a SimulationError naming it (results unchanged).  The compiled strategies are the
    built-ins, deterministic given their streams, so the
    replay of a sample (a strategy that is not deterministic, analyzer.kernel.replay) has nothing to find here;
    deals with Python strategies are paused at their decisions (:func:`_paused`) and that replay runs.
    ``specialise``: deals on the kernel compiled for these rules (True), on the one for any rules (False), or
    on the first once the process has asked for enough deals (None; analyzer.kernel.jit.Specialised); the
    results are the same.  ``decks``: deal ``j`` is dealt ``decks[j]`` instead of the chunk's ``j``-th shuffle
    (duplicate designs, rotated hands), on the same play streams; for matches, ``decks`` (n, K, D) are the first
    K decks of each match and ``hands`` deals them by player (compare's duplicate matches).  ``key``: the deals'
    stream key (default :func:`~analyzer.core.streams.base_key` of ``ss``; given decks take the executor's).
    """
    where = where or FaultContext()
    try:
        if not_compiled(strategies) is not None:
            if matches:
                return _paused_matches(rules, strategies, n, ss, check=check, where=where, decks=decks, hands=hands)
            return _paused(rules, strategies, n, ss, check=check, where=where, specialise=specialise, decks=decks,
                           key=key)
        announce_if_cold("matches.matches_kernel" if matches else "driver.deals_kernel")  # a cold cache: one line first
        if matches:
            return simulate_matches(rules, strategies, n, base_key(ss), threads=threads, check=check, decks=decks,
                                    hands=hands)
        return simulate_deals(rules, strategies, n, base_key(ss) if key is None else key, decks=decks,
                              deck_rng=deck_generator(ss) if decks is None else None, threads=threads, check=check,
                              specialise=specialise)
    except Broken as exc:
        unit = "match" if matches else "deal"
        raise SimulationError(f"invariant broken: cards not conserved in {rules.variant} {unit} "
                              f"{where.first + exc.index}{where.describe()} (compiled kernel)") from None
