"""The execution of a tournament (``durak compare --design round-robin|hero``).

Every table of the design (:mod:`analyzer.stats.tournament`) plays the same
decks: chunk ``c`` draws its decks from the ``"tournament"`` purpose of
:mod:`analyzer.execution.seeds` keyed on the rules only, and every table of
the chunk plays those decks with the same strategy seed (common random
numbers).  Chunks run on the one executor, so the numbers depend on the seed
alone, never on ``--jobs``.  The statistics (paired margins with Holm, ratings
with bootstrap intervals over decks) are
:func:`analyzer.stats.ratings.round_robin_summary` and
:func:`analyzer.stats.ratings.hero_summary`.

Stopping when the answer is known (``--until-ci``, ``--sprt``): chunks of
:data:`SEQ_CHUNK` decks are played in batches of ``jobs`` and the rule of
:mod:`analyzer.stats.sequential` is checked at every chunk boundary in index
order (:func:`analyzer.stats.sequential.run_sequential`), on the per-deck
quantities the report headlines (:func:`watched`): so where it stops depends on
the seed alone, never on ``--jobs``; the chunks played past the stop in the
last batch are discarded.

Resuming (``durak run`` of a design experiment): every finished chunk of every
tournament goes at once, atomically, into the chunk store the other cells use
(:class:`analyzer.execution.store.ChunkStore`, ``OUT/chunks/``) as its per-deck
win shares (:class:`StoredChunks`); a rerun reads them back instead of playing
them, so an interrupted run ends with the numbers of an uninterrupted one (the
run always goes on with what it read back, never with what it held in memory).
The store's fingerprint (:func:`tournament_fingerprint`) covers everything that
sets a chunk's content (rules, design tables, seed, chunk size, engines,
version): a changed experiment is refused for resuming, ``--fresh`` starts over.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from analyzer import __version__
from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet
from analyzer.engine.match import arrange_deck, first_dealer
from analyzer.execution import lineup as lineups
from analyzer.execution.code_tag import play_tag
from analyzer.execution.cores import cores
from analyzer.execution.executor import decks_engine, engine_mode, play_decks, run_tasks
from analyzer.execution.experiment import Experiment, ExperimentError, fill_spec
from analyzer.execution.progress import RunProgress
from analyzer.execution.runs.folder import RunFolder
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.execution.store import CHUNK_FORMAT, ChunkStore
from analyzer.report.compare_view import write_tournament_report
from analyzer.stats.ratings import hero_summary, round_robin_summary
from analyzer.stats.sequential import Rule, SequentialResult, Sprt, UntilCI, run_sequential, stopping_summary
from analyzer.stats.strength import families, strength_curves
from analyzer.stats.tournament import (
    Design,
    TournamentError,
    head_to_head,
    hero_scores,
    make_design,
    round_robin,
)

CHUNK_DECKS = 10_000
#: Decks per chunk when a stopping rule runs (the rule is checked at every chunk boundary).
SEQ_CHUNK = 1_000

FloatArray = NDArray[np.float64]


def tournament_chunk(rules: RuleSet, design: Design, n: int, seed: int, c: int) -> list[FloatArray]:
    """Chunk ``c``: ``n`` decks through every table; per table, (n, players) win shares by position."""
    deck_ss, sim_ss = chunk_seed(seed, "tournament", content_text(rules, [], "deal"), c).spawn(2)
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng(deck_ss))
    entrants = lineups.build(list(design.entrants), get_strategy)  # one object per distinct spec
    seats = np.arange(rules.players)
    wins = []
    dealt: dict[tuple[int, ...], NDArray[np.int8]] = {tuple(range(rules.players)): decks}
    for table in design.tables:
        if table.hands not in dealt:  # canonical hands to other players: the deck rearranged (first dealer, G10a)
            dealt[table.hands] = arrange_deck(decks, first_dealer(rules.players), table.hands,
                                              players=rules.players, hand_size=rules.hand_size)
        res = play_decks(rules, [entrants[e] for e in table.seats], dealt[table.hands], sim_ss)
        wins.append((res.winner[:, None] == seats).astype(np.float64))
    return wins


def _job(rules: RuleSet, design: Design, n: int, seed: int, c: int) -> tuple[int, list[FloatArray]]:
    return c, tournament_chunk(rules, design, n, seed, c)


def watched(design: Design, wins: Sequence[FloatArray], sprt: bool = False) -> FloatArray:
    """The per-deck quantities a stopping rule watches, (decks, columns), win shares as fractions.

    round-robin: every pair's margin (i's win share against j minus j's against i);
    hero: each strategy's win share against the field minus the fair share ``1 / players`` and, with
    two or more strategies, every pair's paired margin.  For the SPRT (``sprt``) exactly one column:
    the one pair (round-robin of two, hero of two) or the one hero's margin over the fair share.
    """
    if design.name == "round-robin":
        s = head_to_head(design, wins)
        cols = [s[:, i, j] - s[:, j, i] for i, j in design.pairs]
    elif design.name == "hero":
        h = hero_scores(design, wins)
        k = h.shape[1]
        pairs = [h[:, i] - h[:, j] for i in range(k) for j in range(i + 1, k)]
        cols = pairs if (sprt and k == 2) else [*(h[:, i] - 1.0 / design.players for i in range(k)), *pairs]
    else:
        raise TournamentError(f"stopping rules run on the round-robin and hero designs, not {design.name}")
    if sprt and len(cols) != 1:
        raise TournamentError(f"the SPRT compares two strategies (or one hero against its field); "
                              f"this {design.name} has {len(cols)} comparisons: use --until-ci")
    return np.stack(cols, axis=1)


def chunk_sizes(n: int, chunk: int) -> list[int]:
    """Decks of each chunk: ``chunk`` each, the last one the rest."""
    return [min(chunk, n - i) for i in range(0, n, chunk)]


class ChunkCache(Protocol):
    """Finished chunks of one tournament kept somewhere (:class:`StoredChunks`): ``get`` gives a stored chunk of
    ``n`` decks or None, ``put`` keeps one and gives back what a later ``get`` will give."""

    def get(self, c: int, n: int) -> list[FloatArray] | None: ...

    def put(self, c: int, n: int, wins: list[FloatArray]) -> list[FloatArray]: ...


class ChunkDone(Protocol):
    """Told of every finished chunk (a progress bar's ``advance``): its decks, and whether it was stored
    already (a resumed chunk counts as done but not towards the rate, or the time left would be wrong)."""

    def __call__(self, units: int, *, resumed: bool = False) -> None: ...


def _play(rules: RuleSet, design: Design, seed: int, jobs: int, todo: Sequence[tuple[int, int]],
          cache: ChunkCache | None) -> Iterator[tuple[int, list[FloatArray], bool]]:
    """Chunks ``(c, n)`` of ``todo`` with whether each was stored: stored ones from ``cache`` first, then the
    rest played on the executor (each kept in ``cache`` as it finishes, and what the cache gives back is used)."""
    left = []
    for c, n in todo:
        got = cache.get(c, n) if cache is not None else None
        if got is None:
            left.append((c, n))
        else:
            yield c, got, True
    sizes = dict(left)
    for c, wins in run_tasks(_job, [(rules, design, n, seed, c) for c, n in left], jobs=jobs):
        yield c, (cache.put(c, sizes[c], wins) if cache is not None else wins), False


def run_design(rules: RuleSet, design: Design, n: int, *, seed: int = 0, jobs: int = 1, chunk: int = CHUNK_DECKS,
               boot: int = 1000, rule: Rule | None = None, on_chunk: ChunkDone | None = None,
               seq_chunk: int = SEQ_CHUNK, cache: ChunkCache | None = None) -> dict[str, Any]:
    """Play ``n`` duplicate decks through every table of ``design`` (or, with ``rule``, chunks of
    ``seq_chunk`` decks until the rule stops, ``n`` decks at most); the JSON-ready summary.

    ``cache``: finished chunks to reuse and to keep (a resumable experiment, :class:`StoredChunks`).
    """
    lineups.build(list(design.entrants), get_strategy)  # an unknown strategy fails before any work
    t0 = time.perf_counter()
    seq: SequentialResult | None = None
    parts: dict[int, list[FloatArray]] = {}
    if rule is None:
        sizes = chunk_sizes(n, chunk)
        for c, wins, stored in _play(rules, design, seed, jobs, list(enumerate(sizes)), cache):
            parts[c] = wins
            if on_chunk is not None:
                on_chunk(sizes[c], resumed=stored)
        used = len(sizes)
    else:
        sizes = chunk_sizes(n, min(seq_chunk, n))
        is_sprt = isinstance(rule, Sprt)
        watched(design, [np.zeros((1, rules.players))] * len(design.tables), is_sprt)  # a one-line error now

        def mapper(_f: Callable[[int], Any], idx: Sequence[int]) -> list[FloatArray]:
            for c, wins, stored in _play(rules, design, seed, jobs, [(c, sizes[c]) for c in idx], cache):
                parts[c] = wins
                if on_chunk is not None:
                    on_chunk(sizes[c], resumed=stored)
            return [watched(design, parts[c], is_sprt) for c in idx]

        seq = run_sequential(lambda c: watched(design, parts[c], is_sprt), rule, max_chunks=len(sizes),
                             min_deals=min(2 * sizes[0], n), batch=cores(jobs, cap=False), mapper=mapper)
        used = seq.chunks
    per_table = [np.concatenate([parts[c][t] for c in range(used)]) for t in range(len(design.tables))]
    summary = round_robin_summary if design.name == "round-robin" else hero_summary
    out = summary(design, per_table, boot=boot, seed=seed)
    if design.name == "round-robin" and (fams := families(design.strategies)):
        out["strength"] = strength_curves(design, head_to_head(design, per_table), defaults=default_budgets(fams))
    decks = int(per_table[0].shape[0])
    out.update(variant=rules.variant, rules=rules.describe(), seed=seed, deals_played=decks * len(design.tables),
               seconds=round(time.perf_counter() - t0, 2))
    if seq is not None:
        assert rule is not None
        out["stopping"] = stopping_summary(seq, rule, sizes[0], n)
        out["stopping"]["deals"] = seq.deals * len(design.tables)
    return out


def default_budgets(fams: Iterable[str]) -> dict[str, float]:
    """Each budgeted family's default budget (its strategy built without arguments), for the strength axis."""
    out: dict[str, float] = {}
    for target in {f.split("?", 1)[0] for f in fams}:
        budget = getattr(get_strategy(target), "budget", None)
        if isinstance(budget, (int, float)) and budget > 0:
            out[target] = float(budget)
    return out


def run_round_robin(rules: RuleSet, specs: Sequence[str], n: int, *, seed: int = 0, jobs: int = 1,
                    chunk: int = CHUNK_DECKS, boot: int = 1000, rule: Rule | None = None,
                    on_chunk: ChunkDone | None = None) -> dict[str, Any]:
    """Play ``n`` duplicate decks through every seating of every pair; the JSON-ready summary."""
    design = round_robin(list(specs), rules.players)
    return run_design(rules, design, n, seed=seed, jobs=jobs, chunk=chunk, boot=boot, rule=rule, on_chunk=on_chunk)


# ---------------------------------------------------------------- experiments with a design (durak run)
def tournaments_of(exp: Experiment) -> list[tuple[RuleSet, Design]]:
    """One tournament per rule set of the experiment's cells (variant x players x grid), in cell order."""
    seen: dict[str, tuple[RuleSet, Design]] = {}
    for cell in exp.cells:
        rules = cell.rules
        if rules.label() in seen:
            continue
        name = exp.design_for(rules.players)
        specs = [fill_spec(s, rules.variant, rules.players) for s in exp.field or ()]
        pairs = None if exp.pairs is None or name != "round-robin" else [
            [fill_spec(x, rules.variant, rules.players) if isinstance(x, str) else x for x in p] for p in exp.pairs]
        try:
            design = make_design(name, specs, rules.players, reference=exp.reference if name == "hero" else None,
                                 pairs=pairs)
        except TournamentError as exc:
            key = "pairs" if pairs is not None and "pair" in str(exc) else "design"
            raise ExperimentError(f"{exp.source}: key {key!r}: {rules.label()}: {exc}") from None
        seen[rules.label()] = (rules, design)
    return list(seen.values())


class StoredChunks:
    """The finished chunks of tournament ``index`` in the experiment's chunk store (:class:`ChunkStore`).

    A chunk is stored as the store's three tables: ``positions`` holds the
    per-deck win shares, one column ``t{table}p{position}`` per table and
    position (float64, so a chunk reads back bit for bit), ``totals`` the decks
    ``n`` and the deals played, ``hist`` the table count.  A chunk of another
    shape reads as missing and is played again.
    """

    def __init__(self, store: ChunkStore, index: int, design: Design) -> None:
        self.store, self.index, self.design = store, index, design
        self.resumed = 0
        self.played_decks = 0

    def _columns(self) -> list[tuple[int, int, str]]:
        return [(t, p, f"t{t}p{p}") for t in range(len(self.design.tables)) for p in range(self.design.players)]

    def get(self, c: int, n: int) -> list[FloatArray] | None:
        got = self._load(c, n)
        self.resumed += got is not None
        return got

    def _load(self, c: int, n: int) -> list[FloatArray] | None:
        tables = self.store.read(self.index, c, n)
        if tables is None:
            return None
        pos = tables["positions"]
        cols = self._columns()
        if len(pos) != n or list(pos.columns) != [name for _, _, name in cols]:
            return None
        return [pos[[f"t{t}p{p}" for p in range(self.design.players)]].to_numpy(np.float64)
                for t in range(len(self.design.tables))]

    def put(self, c: int, n: int, wins: list[FloatArray]) -> list[FloatArray]:
        frame = pd.DataFrame({name: np.asarray(wins[t][:, p], np.float64) for t, p, name in self._columns()})
        self.store.write(self.index, c, n, {
            "positions": frame,
            "totals": pd.DataFrame({"n": [n], "deals_sum": [n * len(wins)]}),
            "hist": pd.DataFrame({"tables": [len(wins)]}),
        })
        back = self._load(c, n)  # what a resumed run would see, byte for byte
        if back is None:
            raise RuntimeError(f"chunk {c} of tournament {self.index} did not read back from {self.store.root}")
        self.played_decks += n
        return back


def chunk_decks(exp: Experiment) -> int:
    """Decks a stored chunk of the experiment's tournaments holds (``until_ci``: the sequential step)."""
    return SEQ_CHUNK if exp.until_ci is not None else min(exp.chunk_size, CHUNK_DECKS)


def tournament_fingerprint(exp: Experiment, plan: Sequence[tuple[RuleSet, Design]], chunk: int
                           ) -> tuple[str, dict[str, Any]]:
    """Hash of everything that sets a tournament chunk's content, and the record it hashes.

    Neither the deal count nor the ``until_ci`` target is in it (a chunk depends on neither: raising ``deals``
    or tightening the target reuses finished chunks).  The engines the record names follow from the line-ups.
    """
    plugins: dict[str, str] = {}
    tournaments = []
    for i, (rules, design) in enumerate(plan):
        for spec in design.entrants:
            file = spec.rsplit(":", 1)[0]
            if file.endswith(".py") and Path(file).is_file():
                plugins[spec] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
        entrants = lineups.build(list(design.entrants), get_strategy)
        tournaments.append({
            "index": i, "design": design.name, "entrants": list(design.entrants),
            "tables": [{"seats": list(t.seats), "hands": list(t.hands)} for t in design.tables],
            "engines": sorted({decks_engine([entrants[e] for e in t.seats]) for t in design.tables}),
            "rules": {"variant": rules.variant, "players": rules.players, **rules.options()},
        })
    record = {"kind": "tournaments", "format": CHUNK_FORMAT, "layout": "per-deck win shares v1",
              "version": __version__, "seed": exp.seed, "seeding": "tournament-v1 base", "plugins": plugins,
              "chunk_decks": chunk, "tournaments": tournaments}
    canon = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canon.encode()).hexdigest(), record


def run_tournaments(exp: Experiment, out_dir: Path, *, jobs: int = -1, quiet: bool = False,
                    command: str = "", report: bool = True, fresh: bool = False) -> Path:
    """Play every tournament of a design experiment; write results/tournaments.json, manifest.json and the report.

    Resumable chunk by chunk (module doc): finished chunks go to ``out_dir/chunks``
    as they finish and a rerun reuses them; ``fresh`` discards them first.  The
    seed fixes every number.  With the experiment's ``until_ci`` each tournament
    stops at the first chunk boundary where every watched interval is that
    narrow (:func:`watched`), its deals the budget.
    """
    plan = tournaments_of(exp)
    decks = [exp.deals_for(rules.variant, rules.players) for rules, _ in plan]  # cell_deals, else deals
    chunk = chunk_decks(exp)
    mode = engine_mode()  # $DURAK_ENGINE checked in the parent; the manifest records it
    fp, record = tournament_fingerprint(exp, plan, chunk)
    entrants = dict.fromkeys(e for _, design in plan for e in design.entrants)
    store = ChunkStore(out_dir / "chunks", fp, play_tag(lineups.build(list(entrants), get_strategy),
                                                         own=[Path(__file__)]))
    store.open(fresh=fresh, record=record, experiment=exp.to_dict())  # refuses a foreign --out or a changed file
    t0 = time.perf_counter()
    results = []
    resumed = played = 0
    try:
        with RunProgress(total_units=sum(decks), total_cells=len(plan), unit="decks", enabled=not quiet) as bar:
            for i, (rules, design) in enumerate(plan):
                rule = UntilCI(exp.until_ci / 100) if exp.until_ci is not None else None
                cache = StoredChunks(store, i, design)
                out = run_design(rules, design, decks[i], seed=exp.seed, jobs=jobs, chunk=chunk, seq_chunk=chunk,
                                 rule=rule, on_chunk=bar.advance, cache=cache)
                out["label"] = rules.label()
                results.append(out)
                resumed += cache.resumed
                played += cache.played_decks * len(design.tables)
                bar.advance(0, cell_done=True)
    finally:
        store.close()
    line = store.replayed_line()
    if line is not None and not quiet:
        print(line, file=sys.stderr, flush=True)
    folder = RunFolder(out_dir)
    folder.write_result("tournaments.json", results)
    seconds = time.perf_counter() - t0
    deals = sum(o["deals_played"] for o in results)
    folder.write_manifest({"name": exp.name, "description": exp.description, "experiment": exp.to_dict(),
                           "seed": exp.seed, "version": __version__, "kind": "tournaments", "fingerprint": fp,
                           "engine": mode,
                           "tournaments": len(results), "total_deals": deals, "deals_this_run": played,
                           "chunks_resumed": resumed, "chunks_replayed": len(store.replayed),
                           "deals_per_second": round(played / seconds, 1) if seconds > 0 else None,
                           "seconds": round(seconds, 3), "command": command, "jobs": jobs})
    if report:
        write_tournament_report(results, out_dir, name=exp.name, description=exp.description, command=command)
    return out_dir


def store_design(result: dict[str, Any], out_dir: Path, *, design: str, command: str) -> Path:
    """``durak compare --design round-robin|hero --out OUT``: the one tournament's results, its manifest and its
    report (``durak report OUT`` rebuilds it from results/tournaments.json), as an experiment of tournaments
    writes them."""
    folder = RunFolder(out_dir)
    name = f"compare {design}"
    folder.write_result("tournaments.json", [result])
    folder.write_manifest({"name": name, "description": "", "command": command, "kind": "tournaments"})
    write_tournament_report([result], out_dir, name=name, description="", command=command)
    return out_dir
