"""The balance explorer's work on the executor's side: one task's tables played on shared decks.

A task of :mod:`analyzer.execution.runs.balance` is a list of (arm, chunk) pairs; :func:`balance_job` deals each
chunk's decks once per deck size (:func:`chunk_streams`: common random numbers for every arm) and plays the fair
table and the skill tables (:func:`tables`) through :func:`analyzer.execution.executor.play_decks`, returning the
per-deck integers the search stores.  The executor runs it (in this process, on loky workers or Dask); nothing
here calls back into the run module, which only plans rounds, stores tasks and decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import shuffled_decks
from analyzer.core.outcomes import END_BLOCKED, END_CAPPED
from analyzer.core.rules import RuleSet
from analyzer.engine.choices import count_choices
from analyzer.execution import lineup as lineups
from analyzer.execution.executor import (
    DEFAULT_SIMULATOR,
    import_simulator,
    play_decks,
    strategy_resolver,
)
from analyzer.execution.seeds import chunk_seed
from analyzer.stats import balance as bal
from analyzer.stats.sums import deal_losses

Columns = dict[str, NDArray[Any]]


def chunk_streams(seed: int, rules: RuleSet, c: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """(decks, play) streams of chunk ``c``: keyed on variant, players and deck size only, so every arm of the
    same deck size plays the same decks with the same random players' stream (common random numbers)."""
    content = f"deal|{rules.variant} {rules.players}p deck {rules.deck_size}|balance"
    deck_ss, sim_ss = chunk_seed(seed, "balance", content, c).spawn(2)
    return deck_ss, sim_ss


def tables(strong: int, opponents: int, players: int) -> list[tuple[int, ...]]:
    """Line-ups by position as entrant indices (0 = strong, 1.. = opponents): the fair table, then for each
    opponent one skill table per seat of the strong player."""
    out = [(strong,) * players]
    for j in range(1, opponents + 1):
        out += [tuple(strong if s == h else j for s in range(players)) for h in range(players)]
    return out


def play_chunk(rules: RuleSet, entrants: Sequence[object], decks: NDArray[np.int8], sim_ss: np.random.SeedSequence,
               simulator: str) -> Columns:
    """One arm's per-deck integers (:data:`analyzer.stats.balance.RAW`, ``hero{j}``, ``herodec{j}``) on ``decks``."""
    n, p = len(decks), rules.players
    k = len(entrants) - 1
    cols: Columns = {}
    for t, seats in enumerate(tables(0, k, p)):
        res = _play(rules, [entrants[e] for e in seats], decks, sim_ss, simulator)
        decided = (res.end != END_CAPPED) & (res.winner >= 0)
        if t == 0:
            cols["winner"] = np.where(decided, res.winner, -1).astype(np.int8)
            cols["durak"] = np.where(decided, res.loser, -1).astype(np.int8)
            cols["decided"] = decided.astype(np.int8)
            cols["capped"] = (res.end == END_CAPPED).astype(np.int8)
            cols["blocked"] = (res.end == END_BLOCKED).astype(np.int8)
            cols["jack"] = deal_losses(res, rules.wild_rule == "deal")[1].astype(np.int8)
            cols["turns"] = res.turns.astype(np.int16)
            continue
        j, seat = divmod(t - 1, p)
        cols.setdefault(f"hero{j}", np.zeros(n, np.int8))
        cols.setdefault(f"herodec{j}", np.zeros(n, np.int8))
        cols[f"hero{j}"] += (res.winner == seat).astype(np.int8)
        cols[f"herodec{j}"] += decided.astype(np.int8)
    return cols


def _play(rules: RuleSet, lineup: Sequence[object], decks: NDArray[np.int8], sim_ss: np.random.SeedSequence,
          simulator: str) -> Any:
    if simulator == DEFAULT_SIMULATOR:
        return play_decks(rules, lineup, decks, sim_ss)
    # a stand-in simulator (tests), called as the numpy one is
    return import_simulator(simulator).simulate_deals(rules, list(lineup), len(decks), sim_ss, decks=decks)


def play_card(rules: RuleSet, strong: object, trace: object | None, decks: NDArray[np.int8],
              sim_ss: np.random.SeedSequence, simulator: str) -> Columns:
    """A finalist's report-card integers (:data:`analyzer.stats.balance.CARD`) on ``decks``: the trace player in
    each seat against ``players - 1`` strong players, and the fair table's decisions with a real choice, counted
    on the readable engine (the stand-in simulators of the tests play no cards: none counted)."""
    n, p = len(decks), rules.players
    cols: Columns = {c: np.zeros(n, np.int16) for c in bal.CARD}
    if trace is not None:
        for seat in range(p):
            res = _play(rules, [trace if s == seat else strong for s in range(p)], decks, sim_ss, simulator)
            cols["trace"] += (res.winner == seat).astype(np.int16)
            cols["tracedec"] += ((res.end != END_CAPPED) & (res.winner >= 0)).astype(np.int16)
    if simulator == DEFAULT_SIMULATOR:
        rng = np.random.default_rng(sim_ss.spawn(1)[0])
        choices, decisions = count_choices(rules, [strong] * p, decks, rng)
        cols["choices"], cols["decisions"] = choices.astype(np.int16), decisions.astype(np.int16)
    return cols


def balance_job(task: int, pairs: Sequence[tuple[int, int]], rules: dict[int, RuleSet], specs: Sequence[str], seed: int,
         chunk: int, simulator: str, card: str | None = None) -> tuple[int, list[Columns]]:
    """Worker entry: every (arm, chunk) pair of one task; decks made once per deck size and chunk.  ``card``: play
    the report card instead (``specs[0]`` the strong player, ``card`` the trace player or "")."""
    resolve = strategy_resolver(simulator)
    entrants = lineups.build(list(specs), resolve)
    trace = lineups.build([card], resolve)[0] if card else None
    decks: dict[tuple[int, int], tuple[NDArray[np.int8], np.random.SeedSequence]] = {}
    out = []
    for arm, c in pairs:
        r = rules[arm]
        key = (r.deck_size, c)
        if key not in decks:
            deck_ss, sim_ss = chunk_streams(seed, r, c)
            decks[key] = (shuffled_decks(r.deck_size, chunk, np.random.default_rng(deck_ss)), sim_ss)
        if card is None:
            out.append(play_chunk(r, entrants, *decks[key], simulator))
        else:
            out.append(play_card(r, entrants[0], trace, *decks[key], simulator))
    return task, out
