"""Benchmark rows of the search strategy (issue 13): ``pimc`` at its default budget, one core.

``durak bench`` includes these rows (analyzer.execution.benchmark.search_rows).
For each case, ``pimc`` plays ``weighted`` on a few duplicate decks (both
seatings) through the table runner; the rows count only the time spent inside
its searches (sampling worlds, applying every action in every world and the
rollouts), not the engine's table runner around them:

* ``decisions`` — searched decisions per second (1000 / that = ms per decision);
* ``rollouts`` — (world × action) deals played to their end per second.

The first search (compiling, or loading the kernels from numba's cache) is
played before the clock starts.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.knowledge.table import simulate_observed

#: (variant, players, duplicate decks) of the rows
CASES = (("czech", 2, 60), ("svinya", 2, 12), ("czech", 4, 12))


def measure(variant: str, players: int, decks: int, spec: str = "pimc", seed: int = 0) -> dict[str, float]:
    """Search decisions, rollouts and seconds of ``spec`` against ``weighted`` on ``decks`` decks, both seatings."""
    rules = make_rules(variant, players)
    pimc, other = get_strategy(spec), get_strategy("weighted")
    orders = shuffled_decks(rules.deck_size, decks, np.random.default_rng(seed))
    simulate_observed(rules, [pimc] + [other] * (players - 1), orders[:1], np.random.SeedSequence(seed))  # compile / load
    pimc.decisions, pimc.rollouts, pimc.seconds = 0, 0, 0.0  # type: ignore[attr-defined]
    for lineup in ([pimc] + [other] * (players - 1), [other] * (players - 1) + [pimc]):
        simulate_observed(rules, lineup, orders, np.random.SeedSequence(seed))
    return {"decisions": pimc.decisions, "rollouts": pimc.rollouts, "seconds": pimc.seconds}  # type: ignore[attr-defined]


def search_rows() -> list[dict[str, object]]:
    """Rows in :class:`analyzer.execution.benchmark.Row`'s fields: decisions/s and rollouts/s on one core."""
    rows: list[dict[str, object]] = []
    for variant, players, decks in CASES:
        got = measure(variant, players, decks)
        secs = max(got["seconds"], 1e-9)
        case = f"{variant} {players}p pimc search vs weighted ({1000 * secs / max(got['decisions'], 1):.1f} ms/decision)"
        for unit in ("decisions", "rollouts"):
            rows.append({"case": case, "engine": "search", "unit": unit, "n": int(got[unit]),
                         "one_core": got[unit] / secs, "all_cores": None, "ns_per_turn": None, "turns": None})
    return rows
