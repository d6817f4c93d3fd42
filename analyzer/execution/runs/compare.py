"""The execution of ``durak compare``: duplicate decks through every rotation, on the executor.

The statistics and presentation of a comparison live in
:mod:`analyzer.stats.compare`; this module plays the chunks.  Chunk ``c`` draws
its decks from :func:`analyzer.execution.seeds.chunk_seed` with the purpose
``"compare"`` and the rules and unit as content -- never the line-up, so the
same seed deals the same decks whichever strategies are compared, and never a
stream of ``durak simulate`` or ``durak run``.  The line-up is built once per
chunk, one object per distinct spec (:func:`analyzer.execution.lineup.build`),
and chunks run through :func:`analyzer.execution.executor.run_tasks`, so the
numbers depend on the seed alone, not on ``--jobs``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer import __version__
from analyzer.core.cards import shuffled_decks
from analyzer.core.faults import SimulationError
from analyzer.core.outcomes import END_CAPPED, MatchResults
from analyzer.core.public import needs_table
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RulesError, RuleSet
from analyzer.engine.match import MAX_DEALS
from analyzer.execution import lineup as lineups
from analyzer.execution.executor import engine_mode, play_decks, run_tasks
from analyzer.execution.runs.folder import RunFolder
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.kernel.serve import simulate_chunk
from analyzer.knowledge.table import simulate_observed_matches
from analyzer.report.compare_page import write_compare_page
from analyzer.report.compare_view import write_outputs
from analyzer.stats.compare import (
    CHUNK_DEALS,
    CHUNK_MATCHES,
    MATCH_DECKS,
    METRICS,
    SCORES,
    CompareError,
    Comparison,
)
from analyzer.stats.design import labels
from analyzer.stats.design import lineups as rotations
from analyzer.stats.sequential import Rule, Sprt, run_sequential, stopping_summary

#: Decks (matches) per chunk when a stopping rule runs: the rule is checked at every chunk boundary.
SEQ_DECKS = 1_000
SEQ_MATCHES = 100


def _scores(outcomes: list[dict[str, NDArray[Any]]], ups: list[list[int]], k: int) -> dict[str, NDArray[Any]]:
    """Per-deck scores from per-rotation, per-position outcomes (D, N).

    Returns ``win``, ``loss``, ``points`` as (D, k) per-deck scores and
    ``win_rot`` (D, rotations, k): rotation j's share of each win score (its
    seats' wins divided by the strategy's places per deck), so that
    ``win == win_rot.sum(axis=1)``.
    """
    n = next(iter(outcomes[0].values())).shape[0]
    count = np.zeros(k)
    for up in ups:
        np.add.at(count, up, 1)
    sums = {m: np.zeros((n, k)) for m in METRICS}
    win_rot = np.zeros((n, len(ups), k), np.float32)
    for j, (out, up) in enumerate(zip(outcomes, ups)):
        for p, s in enumerate(up):
            for m in METRICS:
                sums[m][:, s] += out[m][:, p]
            win_rot[:, j, s] += out["win"][:, p] / count[s]
    return {**{m: sums[m] / count for m in METRICS}, "win_rot": win_rot}


def _outcomes_deals(res: Any, players: int) -> dict[str, NDArray[Any]]:
    seats = np.arange(players)
    return {"win": (res.winner[:, None] == seats).astype(np.float64),
            "loss": (res.loser[:, None] == seats).astype(np.float64),
            "points": res.points.astype(np.float64)}


def _outcomes_matches(res: Any) -> dict[str, NDArray[Any]]:
    return {"win": res.win_share.astype(np.float64), "loss": res.loss_share.astype(np.float64),
            "points": res.totals.astype(np.float64)}


def compare_seed(seed: int, rules: RuleSet, matches: bool, c: int) -> np.random.SeedSequence:
    """Chunk ``c``'s stream: purpose "compare", keyed on the rules and unit only."""
    return chunk_seed(seed, "compare", content_text(rules, [], "match" if matches else "deal"), c)


def deals_by_player(rules: RuleSet) -> bool:
    """Matches where the dealer follows play (SV2: the winner of a deal leads the next) deal every deck's hands
    by player, not by seat (analyzer.stats.tournament, "Dealing by strategy"): otherwise the hands of deck k
    follow the earlier deals' winners and the rotations stop swapping them.  Where the deal passes to the left
    whatever happens (CZ2, PR7) the dealer of deal k is the same in every rotation and nothing changes."""
    return rules.variant == "svinya"


def play_matches(rules: RuleSet, lineup: Sequence[object], decks: NDArray[np.int8], ss: np.random.SeedSequence,
                 hands: Sequence[int] | None) -> Any:
    """Matches on given deck stacks (D, K, deck), hands dealt by seat or by player (``hands``), on the kernel
    (:func:`analyzer.kernel.serve.simulate_chunk`: alone, or paused at a Python strategy's decisions), or the
    engine's table runner for players who remember only through ``choose_known``.  A match that needs more than
    the K decks given is a SimulationError naming "deals per match" (the caller replays with more decks)."""
    n, k = decks.shape[0], decks.shape[1]
    if needs_table(lineup):  # players who remember only through the engine's table runner (choose_known alone)
        return simulate_observed_matches(rules, lineup, decks, ss, hands=hands)
    res = simulate_chunk(rules, lineup, n, ss, matches=True, decks=decks, hands=hands)
    assert isinstance(res, MatchResults) and rules.target is not None
    if ((res.deals >= k) & (res.totals.max(axis=1) < rules.target)).any():  # stopped for want of decks
        raise SimulationError(f"given decks hold {k} deals per match; a match needs more")
    return res


def compare_chunk(rules: RuleSet, specs: Sequence[Any], n: int, seed: int, c: int, matches: bool,
                  match_decks: int = MATCH_DECKS, by_player: bool | None = None) -> dict[str, Any]:
    """Play chunk ``c``: ``n`` decks, every rotation; per-deck scores and counts.

    ``by_player``: deal match hands by player (default :func:`deals_by_player`).
    """
    strats = lineups.build(specs, get_strategy)  # one object per distinct spec
    k, players, size = len(specs), rules.players, rules.deck_size
    by_player = deals_by_player(rules) if by_player is None else by_player
    hands = list(range(players)) if by_player else None
    ups = rotations(k, players)
    deck_ss, sim_ss = compare_seed(seed, rules, matches, c).spawn(2)
    K = match_decks
    while True:
        rng = np.random.default_rng(deck_ss)
        outcomes, capped, deals = [], 0, 0
        try:
            if matches:
                decks = shuffled_decks(size, n * K, rng).reshape(n, K, size)
                for up in ups:
                    # the same seed in every rotation: common random numbers for random strategies
                    res = play_matches(rules, [strats[s] for s in up], decks, sim_ss, hands)
                    outcomes.append(_outcomes_matches(res))
                    capped += int(res.capped_deals.sum())
                    deals += int(res.deals.sum())
            else:
                decks = shuffled_decks(size, n, rng)
                for up in ups:
                    dres = play_decks(rules, [strats[s] for s in up], decks, sim_ss)
                    outcomes.append(_outcomes_deals(dres, players))
                    capped += int((dres.end == END_CAPPED).sum())
                    deals += n
            break
        except SimulationError as exc:
            if not matches or "deals per match" not in str(exc) or K >= MAX_DEALS:
                raise
            K = min(2 * K, MAX_DEALS)
    return {"scores": _scores(outcomes, ups, k), "capped": capped, "deals": deals}


def _job(rules: RuleSet, specs: Sequence[Any], n: int, seed: int, c: int, matches: bool
         ) -> tuple[int, int, dict[str, Any]]:
    return c, n, compare_chunk(rules, specs, n, seed, c, matches)


def watched(scores: dict[str, NDArray[Any]], sprt: bool = False) -> NDArray[np.float64]:
    """The per-deck quantities a stopping rule watches in a field comparison, (decks, pairs): every pair's
    paired difference of win scores (points of win rate as fractions), the headline of ``durak compare``.
    The SPRT compares two strategies: a field of more has more pairs than one test can decide."""
    win = scores["win"]
    k = win.shape[1]
    if sprt and k != 2:
        raise CompareError(f"the SPRT compares two strategies; this field of {k} has {k * (k - 1) // 2} pairs: "
                           "use --until-ci")
    return np.stack([win[:, i] - win[:, j] for i, j in combinations(range(k), 2)], axis=1)


def _check(rules: RuleSet, specs: list[Any], n: int, matches: bool) -> None:
    if len(specs) < 2:
        raise CompareError(f"compare needs at least two strategies, got {len(specs)}")
    if n <= 0:
        raise CompareError(f"the number of {'matches' if matches else 'deals'} must be positive, got {n}")
    try:
        rules.for_unit("match" if matches else "deal")
    except RulesError as exc:
        raise CompareError(str(exc)) from None
    lineups.build(specs, get_strategy)  # an unknown strategy: StrategySpecError before any work


def _comparison(rules: RuleSet, specs: list[Any], seed: int, matches: bool, ordered: list[dict[str, Any]],
                t0: float) -> Comparison:
    scores = {m: np.concatenate([p["scores"][m] for p in ordered]) for m in SCORES}
    names = labels(lineups.display_names(specs, lineups.build(specs, get_strategy)))
    return Comparison(rules=rules, specs=[lineups.entry_text(s) for s in specs], names=names, matches=matches,
                      seed=seed, scores=scores, capped=sum(p["capped"] for p in ordered),
                      deals_played=sum(p["deals"] for p in ordered), seconds=time.perf_counter() - t0)


def run_compare_until(rules: RuleSet, specs: Sequence[Any], n: int, rule: Rule, *, seed: int = 0,
                      matches: bool = False, jobs: int = 1, chunk: int | None = None,
                      on_chunk: Callable[[int], None] | None = None) -> tuple[Comparison, dict[str, Any]]:
    """Play chunks of ``chunk`` decks (default :data:`SEQ_DECKS`, matches :data:`SEQ_MATCHES`) through every
    rotation until ``rule`` stops (:func:`watched`, checked at every chunk boundary in index order), ``n``
    decks at most; the comparison of the decks used and the ``stopping`` record.

    Chunks run ``jobs`` at a time, but the rule is checked in chunk order and chunks played past the stop
    are discarded, so where it stops depends on the seed alone, never on ``jobs``.
    """
    specs = list(specs)
    _check(rules, specs, n, matches)
    is_sprt = isinstance(rule, Sprt)
    if is_sprt and len(specs) != 2:
        watched({"win": np.zeros((1, len(specs)))}, True)  # the one-line error, before any work
    size = min(chunk or (SEQ_MATCHES if matches else SEQ_DECKS), n)
    sizes = [min(size, n - i) for i in range(0, n, size)]
    engine_mode()  # $DURAK_ENGINE checked in the parent
    t0 = time.perf_counter()
    parts: dict[int, dict[str, Any]] = {}

    def mapper(_f: Callable[[int], Any], idx: Sequence[int]) -> list[NDArray[np.float64]]:
        for c, m, part in run_tasks(_job, [(rules, specs, sizes[c], seed, c, matches) for c in idx], jobs=jobs):
            parts[c] = part
            if on_chunk is not None:
                on_chunk(m)
        return [watched(parts[c]["scores"], is_sprt) for c in idx]

    batch = max(1, os.cpu_count() or 1) if jobs < 0 else max(1, jobs)
    seq = run_sequential(lambda c: watched(parts[c]["scores"], is_sprt), rule, max_chunks=len(sizes),
                         min_deals=min(2 * size, n), batch=batch, mapper=mapper)
    cmp = _comparison(rules, specs, seed, matches, [parts[c] for c in range(seq.chunks)], t0)
    stopping = stopping_summary(seq, rule, size, n)
    stopping["deals"] = cmp.deals_played
    return cmp, stopping


def run_compare(rules: RuleSet, specs: Sequence[Any], n: int, *, seed: int = 0, matches: bool = False,
                jobs: int = 1, chunk: int | None = None, backend: str = "loky", scheduler: str | None = None,
                on_chunk: Callable[[int], None] | None = None) -> Comparison:
    """Play ``n`` duplicate decks (or match deck stacks) through every rotation of ``specs``.

    ``on_chunk(decks)`` is called as each chunk finishes (a progress bar).
    """
    specs = list(specs)
    _check(rules, specs, n, matches)
    chunk = chunk or (CHUNK_MATCHES if matches else CHUNK_DEALS)
    sizes = [min(chunk, n - i) for i in range(0, n, chunk)]
    t0 = time.perf_counter()
    parts: dict[int, dict[str, Any]] = {}
    engine_mode()  # $DURAK_ENGINE checked in the parent
    for c, m, part in run_tasks(_job, [(rules, specs, m, seed, c, matches) for c, m in enumerate(sizes)],
                                jobs=jobs, backend=backend, scheduler=scheduler):
        parts[c] = part
        if on_chunk is not None:
            on_chunk(m)
    return _comparison(rules, specs, seed, matches, [parts[c] for c in range(len(sizes))], t0)


def store_compare(result: dict[str, Any], out: Path, *, command: str) -> Path:
    """``durak compare --out OUT`` (field design): the comparison's numbers in ``compare.json`` (full precision),
    then its report, drawn by the report layer (compare.md, compare.html, the heat map)."""
    folder = RunFolder(out)
    folder.write_record("compare.json", result)
    write_outputs(result, out, command=command)
    write_compare_page(result, out, command=command)
    folder.write_manifest({"name": "compare", "kind": "compare", "command": command, "seed": result.get("seed"),
                           "version": __version__, "variant": result.get("variant"), "players": result.get("players")})
    return out
