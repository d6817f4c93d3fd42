"""--check: a plugin that is not deterministic (same seed, different numbers) is named.

A strategy must draw its random numbers from the generator it is handed; one
that uses the global ``random`` or ``np.random`` (or keeps state between
calls) makes two identical commands disagree.  The check plays a sample of
deals twice from the same seed, recording every move, and reports the first
move that differs with the strategy that made it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analyzer.core.faults import FaultContext, SimulationError, StrategyFault
from analyzer.core.rules import RuleSet
from analyzer.core.streams import base_key, child_seed
from analyzer.sim.batch import BatchSim

#: deals (or matches) replayed by the check: enough to meet most strategies' decisions, cheap beside a run
SAMPLE = 48


def _play_sample(rules: RuleSet, strategies: Sequence[object], m: int, ss: np.random.SeedSequence, decks,
                 slots: int, matches: bool, where: FaultContext) -> BatchSim:
    play_ss, deck_ss = child_seed(ss, 0), child_seed(ss, 1)
    sim = BatchSim(rules, strategies, slots=slots, rng=np.random.default_rng(play_ss), matches=matches,
                   deck_rng=np.random.default_rng(deck_ss), trace_jobs=set(range(m)), where=where,
                   stream_base=base_key(ss))
    sim.run(m, None if decks is None else decks[:m])
    return sim


def check_determinism(rules: RuleSet, strategies: Sequence[object], n: int, ss: np.random.SeedSequence, decks,
                      slots: int, matches: bool, where: FaultContext) -> None:
    """Play the first deals (or matches) twice from ``ss``; raise SimulationError at the first difference."""
    m = min(n, SAMPLE)
    try:
        a = _play_sample(rules, strategies, m, ss, decks, min(slots, m), matches, where)
        b = _play_sample(rules, strategies, m, ss, decks, min(slots, m), matches, where)
    except StrategyFault as fault:  # the full run passed: a fault now is non-determinism too
        raise SimulationError(f"{fault} (only when the check replayed the run: the strategy is not deterministic)"
                              ) from None
    unit = "match" if matches else "deal"
    # the first move, in the run's time, that differs: later differences may be innocent strategies
    # whose shared generator was drawn from differently because of it
    first: tuple[int, int, int] | None = None  # (step, job, move)
    for j in range(m):
        ha, hb = a.histories.get(j, []), b.histories.get(j, [])
        if ha == hb:
            continue
        k = next((i for i, (x, y) in enumerate(zip(ha, hb)) if x != y), min(len(ha), len(hb)))
        steps = a.move_steps[j] + [a.step_no + 1]
        if first is None or steps[k] < first[0]:
            first = (steps[k], j, k)
    if first is None:
        return
    _, j, k = first
    ha, hb = a.histories[j], b.histories[j]
    who = (a.actors[j] + [None])[k]
    name = getattr(who, "name", repr(who)) if who is not None else "?"
    shown = lambda h: h[k] if k < len(h) else "(end)"  # noqa: E731
    raise SimulationError(
        f"strategy {name!r} is not deterministic: the same seed played {rules.variant} {unit} "
        f"{where.first + j}{where.describe()} differently from move {k} ({shown(ha)} then {shown(hb)}); "
        "a strategy must draw from the rng it is handed, not the global random or np.random")
