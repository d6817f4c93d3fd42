"""The execution of a round-robin tournament (``durak compare --design round-robin``, issue 14).

Every pair of strategies meets head to head in both seatings
(:func:`analyzer.stats.tournament.round_robin`), every table on the same
decks: chunk ``c`` draws its decks from the ``"tournament"`` purpose of
:mod:`analyzer.execution.seeds` keyed on the rules only, and every table of
the chunk plays those decks with the same strategy seed (common random
numbers).  Chunks run on the one executor, so the numbers depend on the seed
alone, never on ``--jobs``.  The statistics (paired margins with Holm, ratings
with bootstrap intervals over decks) are
:func:`analyzer.stats.ratings.round_robin_summary`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

import analyzer.sim.simulator as simulator
from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet
from analyzer.execution import lineup as lineups
from analyzer.execution.executor import run_tasks
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.knowledge.table import KnowingStrategy, simulate_observed
from analyzer.stats.ratings import round_robin_summary
from analyzer.stats.tournament import Design, round_robin

CHUNK_DECKS = 10_000


def tournament_chunk(rules: RuleSet, design: Design, n: int, seed: int, c: int) -> list[NDArray[np.float64]]:
    """Chunk ``c``: ``n`` decks through every table; per table, (n, 2) win shares by position."""
    deck_ss, sim_ss = chunk_seed(seed, "tournament", content_text(rules, [], "deal"), c).spawn(2)
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng(deck_ss))
    entrants = lineups.build(list(design.entrants), get_strategy)  # one object per distinct spec
    wins = []
    for table in design.tables:
        lineup = [entrants[e] for e in table.seats]
        if any(isinstance(s, KnowingStrategy) for s in lineup):
            res = simulate_observed(rules, lineup, decks, sim_ss)
        else:
            res = simulator.simulate_deals(rules, lineup, n, sim_ss, decks=decks)
        wins.append((res.winner[:, None] == np.arange(2)).astype(np.float64))
    return wins


def _job(rules: RuleSet, design: Design, n: int, seed: int, c: int) -> tuple[int, list[NDArray[np.float64]]]:
    return c, tournament_chunk(rules, design, n, seed, c)


def run_round_robin(rules: RuleSet, specs: Sequence[str], n: int, *, seed: int = 0, jobs: int = 1,
                    chunk: int = CHUNK_DECKS, boot: int = 1000,
                    on_chunk: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play ``n`` duplicate decks through every seating of every pair; the JSON-ready summary."""
    design = round_robin(list(specs), rules.players)
    lineups.build(list(design.entrants), get_strategy)  # an unknown strategy fails before any work
    sizes = [min(chunk, n - i) for i in range(0, n, chunk)]
    t0 = time.perf_counter()
    parts: dict[int, list[NDArray[np.float64]]] = {}
    for c, wins in run_tasks(_job, [(rules, design, m, seed, c) for c, m in enumerate(sizes)], jobs=jobs):
        parts[c] = wins
        if on_chunk is not None:
            on_chunk(sizes[c])
    per_table = [np.concatenate([parts[c][t] for c in range(len(sizes))]) for t in range(len(design.tables))]
    out = round_robin_summary(design, per_table, boot=boot, seed=seed)
    out.update(variant=rules.variant, rules=rules.describe(), seed=seed, deals_played=n * len(design.tables),
               seconds=round(time.perf_counter() - t0, 2))
    return out
