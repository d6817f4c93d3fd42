"""Two rule sets side by side (``durak compare-rules``): the same decks, the same players, paired differences.

Every deck is played once under rule set A and once under B, by the same line-up in the same seats and with the
same random stream for the strategies (common random numbers), so the per-deck difference of each quantity
(:func:`analyzer.stats.paired.rules_differences`) carries none of the deck-to-deck noise the two share.  Decks
and streams come from (seed, deck size, players, line-up, chunk) only: the same for any two rule sets that deal
from the same deck, whatever the other options.  Chunks of :data:`CHUNK` decks are played one after another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.outcomes import DealResults
from analyzer.core.rules import RuleSet
from analyzer.execution import lineup as lineups
from analyzer.execution.executor import DEFAULT_SIMULATOR, import_simulator, play_decks, strategy_resolver
from analyzer.execution.experiment import ExperimentError
from analyzer.execution.seeds import chunk_seed
from analyzer.stats.sums import deal_losses

#: decks per chunk (the unit of progress; results do not depend on it only because it is fixed)
CHUNK = 2_000

Columns = dict[str, np.ndarray]


class RulesPairError(ExperimentError):
    """Two rule sets that cannot share decks (another deck or player count); one line."""


def deck_outcomes(rules: RuleSet, res: DealResults) -> Columns:
    """One value per deck: ``win{p}`` and ``loss{p}`` (the дурак share, ties shared) of every seat, ``turns``
    and ``jack`` (the wild rule decided the loser), as the balance explorer counts them."""
    loss, by_wild = deal_losses(res, rules.wild_rule == "deal")
    out: Columns = {}
    for p in range(rules.players):
        out[f"win{p}"] = (res.winner == p).astype(np.float64)
        out[f"loss{p}"] = loss[:, p]
    out["turns"] = res.turns.astype(np.float64)
    out["jack"] = by_wild.astype(np.float64)
    return out


def play_pair(rules_a: RuleSet, rules_b: RuleSet, specs: Sequence[str], n: int, *, seed: int,
              simulator: str | None = None, on_chunk: Callable[[int], None] | None = None) -> tuple[Columns, Columns]:
    """Per-deck outcomes of ``n`` shared decks under A and under B (:func:`deck_outcomes`)."""
    if (rules_a.variant, rules_a.players) != (rules_b.variant, rules_b.players):
        raise RulesPairError(f"the two rule sets are different games ({rules_a.variant} {rules_a.players}p and "
                             f"{rules_b.variant} {rules_b.players}p)")
    if rules_a.deck_size != rules_b.deck_size:
        raise RulesPairError(f"deck_size differs ({rules_a.deck_size} and {rules_b.deck_size} cards): the two "
                             "rule sets cannot be played on the same decks; compare them with durak run instead")
    sim = simulator or DEFAULT_SIMULATOR
    entries = lineups.cycle(tuple(specs), rules_a.players)
    content = f"{rules_a.variant}|{rules_a.players}p|{rules_a.deck_size}|{';'.join(entries)}"
    parts: list[tuple[Columns, Columns]] = []
    for k, start in enumerate(range(0, n, CHUNK)):
        size = min(CHUNK, n - start)
        deck_ss, play_ss = chunk_seed(seed, "rules-pair", content, k).spawn(2)
        decks = shuffled_decks(rules_a.deck_size, size, np.random.default_rng(deck_ss))
        both = []
        for rules in (rules_a, rules_b):
            strats = lineups.build(entries, strategy_resolver(sim))  # fresh players for each rule set
            if sim == DEFAULT_SIMULATOR:
                res = play_decks(rules, strats, decks, play_ss)
            else:  # a stand-in simulator (tests), called as the numpy one is
                res = import_simulator(sim).simulate_deals(rules, strats, size, play_ss, decks=decks)
            both.append(deck_outcomes(rules, res))
        parts.append((both[0], both[1]))
        if on_chunk is not None:
            on_chunk(size)
    joined = tuple({key: np.concatenate([p[i][key] for p in parts]) for key in parts[0][i]} for i in (0, 1))
    return joined[0], joined[1]
