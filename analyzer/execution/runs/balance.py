"""The rule-balance explorer (``durak balance``): successive halving over rule sets, on shared decks.

Why it is built this way:

* **Shared decks.** Chunk ``c`` of every arm (rule set) deals the same decks
  (:func:`chunk_streams`: the seed's ``"balance"`` stream keyed on the variant,
  the players and the deck size, never the other options) and gives random
  players the same stream, so arms are compared deck by deck
  (:mod:`analyzer.stats.balance`).  Each deck is played at the fair table
  (the strong player in every seat) and at one skill table per seat and
  opponent (the strong player in that seat, the opponent in the others).
* **Where the answer is open.** Round 0 plays every arm on ``first_decks``
  decks (also the data of the main effects: every arm, the same decks).  After
  each round the arms are ranked by Pareto rank on (unfairness, skill gap) --
  unfairness is the seat fairness (every seat, the win and the дурак:
  :mod:`analyzer.stats.fairness`) or, with ``fairness = "first-mover"``, the
  first mover's |advantage| -- and the best ``1/eta`` go on (never fewer than
  ``finalists``), each with ``eta`` times the decks (at most half of
  ``max_decks``); an arm with too many capped deals, or one that played every
  deck exactly as a simpler one did, is not ranked (:func:`_select`).  The
  *anchors* -- the reference rules, the yardstick, and every single change
  from them (``single_changes``) -- always go on.
* **No winner's curse.** The finalists are measured again on *selection
  decks* (chunks after every deck the halving saw) with sequential stopping:
  each plays until every half-width is within ``target_pp`` (the decks it
  needs are predicted from the spread seen, then checked) or ``max_decks``.
  The recommendations are picked on those decks
  (:func:`analyzer.stats.balance.recommend`), then the picked rule sets and
  the reference are measured once more, to the same target, on *report
  decks* that played no part in any choice: their reported numbers are those.
  The finalists' report card (skill trace, real choices) is played on the
  report decks too.
* **Resuming.** Every round's work is cut into tasks of :data:`TASK_PAIRS`
  (arm, chunk) pairs, a fixed cut whatever ``--jobs``; each finished task is
  written at once to the chunk store (:class:`analyzer.execution.store.ChunkStore`,
  ``OUT/chunks/``, round = cell, task = chunk) as its per-deck integers, and a
  rerun reads it back instead of playing it.  Every decision (who goes on, how
  many decks) is a function of the stored data, so a run killed anywhere
  resumes to the numbers of a straight run.  The fingerprint covers every
  setting and every arm; a changed space is refused (``--fresh`` starts over).
* **Execution.** Tasks run on the one executor
  (:func:`analyzer.execution.executor.run_tasks`: here, loky processes or Dask).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from analyzer import __version__
from analyzer.core.rules import format_value
from analyzer.execution import lineup as lineups
from analyzer.execution.balance_space import DEPENDS, BalanceSpace
from analyzer.execution.balance_tables import Columns, balance_job, chunk_streams, tables  # noqa: F401
from analyzer.execution.code_tag import BALANCE_PLAY, play_tag
from analyzer.execution.executor import (
    decks_engine,
    engine_mode,
    run_tasks,
    simulator_path,
    strategy_resolver,
)
from analyzer.execution.progress import RunProgress
from analyzer.execution.runs.folder import RunFolder
from analyzer.execution.store import CHUNK_FORMAT, ChunkStore
from analyzer.report.balance_view import write_balance_report
from analyzer.stats import balance as bal
from analyzer.stats import fairness
from analyzer.stats.intervals import wilson
from analyzer.stats.tables import CAPPED_ALARM

#: (arm, chunk) pairs per task: a fixed cut, so a rerun with other --jobs finds the same stored tasks.
TASK_PAIRS = 48
#: The report card's cut: one pair a task (a search player's trace is ~100x a table's work, so the finalists'
#: cards are spread over the workers; a stored task whose pairs differ is played again, never misread).
CARD_PAIRS = 1


class TaskStore:
    """The finished tasks of a run in the chunk store: round ``r`` is the store's cell, the task its chunk.

    A round's columns are the tables' (:func:`analyzer.stats.balance.raw_columns`) or the report card's
    (:data:`analyzer.stats.balance.CARD`): ``get`` and ``put`` name the ones they read and write."""

    def __init__(self, store: ChunkStore, chunk: int) -> None:
        self.store, self.chunk = store, chunk
        self.resumed = 0

    def get(self, r: int, task: int, pairs: Sequence[tuple[int, int]], columns: Sequence[str]
            ) -> list[Columns] | None:
        tables = self.store.read(r, task, len(pairs) * self.chunk)
        if tables is None:
            return None
        pos = tables["positions"]
        want = np.repeat(np.asarray(pairs, np.int64).reshape(-1, 2), self.chunk, axis=0)
        if list(pos.columns) != ["arm", "chunk", *columns] or len(pos) != len(want) or not (
                (pos["arm"].to_numpy() == want[:, 0]).all() and (pos["chunk"].to_numpy() == want[:, 1]).all()):
            return None  # another cut of the work: play it again
        self.resumed += 1
        return [{c: pos[c].to_numpy()[i * self.chunk:(i + 1) * self.chunk] for c in columns}
                for i in range(len(pairs))]

    def put(self, r: int, task: int, pairs: Sequence[tuple[int, int]], cols: list[Columns], columns: Sequence[str]
            ) -> list[Columns]:
        arm = np.repeat([a for a, _ in pairs], self.chunk).astype(np.int32)
        chk = np.repeat([c for _, c in pairs], self.chunk).astype(np.int32)
        frame = pd.DataFrame({"arm": arm, "chunk": chk, **{c: np.concatenate([x[c] for x in cols])
                                                          for c in columns}})
        self.store.write(r, task, len(pairs) * self.chunk, {
            "positions": frame, "totals": pd.DataFrame({"n": [len(pairs) * self.chunk]}),
            "hist": pd.DataFrame({"pairs": [len(pairs)]})})
        back = self.get(r, task, pairs, columns)  # what a resumed run would see
        if back is None:
            raise RuntimeError(f"task {task} of round {r} did not read back from {self.store.root}")
        self.resumed -= 1
        return back


def balance_fingerprint(space: BalanceSpace, simulator: str) -> tuple[str, dict[str, Any]]:
    """Hash of everything that sets a task's content or a decision of the search, and the record it hashes."""
    arms = hashlib.sha256(json.dumps([a.rules.to_dict() for a in space.arms], sort_keys=True,
                                     default=str).encode()).hexdigest()
    entrants = lineups.build([space.strong, *space.opponents], strategy_resolver(simulator))
    engines = sorted({decks_engine([entrants[e] for e in seats]) for a in space.arms[:1]
                      for seats in tables(0, len(space.opponents), space.players)})
    setting = {k: v for k, v in space.to_dict().items() if k not in ("name", "description", "source")}
    record = {"kind": "balance", "format": CHUNK_FORMAT, "layout": "per-deck integers v2", "version": __version__,
              "seeding": "balance-v1 base", "simulator": simulator, "task_pairs": TASK_PAIRS, "engines": engines,
              "arms_sha256": arms, **setting}
    canon = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canon.encode()).hexdigest(), record


class Search:
    """The state of one exploration: each arm's per-deck columns by chunk, played or read back in order."""

    def __init__(self, space: BalanceSpace, store: TaskStore, *, simulator: str, jobs: int, backend: str,
                 scheduler: str | None, progress: bool = False) -> None:
        self.space, self.store, self.simulator = space, store, simulator
        self.progress = progress  # a bar on a terminal, else a line every ~10 s on stderr, within each round
        self.jobs, self.backend, self.scheduler = jobs, backend, scheduler
        self.chunks: dict[int, dict[int, Columns]] = {a.index: {} for a in space.arms}
        self.cards: dict[int, dict[int, Columns]] = {a.index: {} for a in space.arms}
        self.round = 0
        self.deals = 0  # every deal of the search, played now or read back
        self.deals_now = 0  # played by this invocation
        self.tables = len(tables(0, len(space.opponents), space.players))
        self.columns_of = list(bal.raw_columns(len(space.opponents)))
        self.first = space.arms[space.reference].rules.first_mover

    def play(self, wants: dict[int, Iterable[int]], card: bool = False) -> None:
        """Play (or read back) the chunks ``wants[arm]`` of every arm: one round of the search (``card``: of the
        finalists' report card)."""
        have = self.cards if card else self.chunks
        columns = list(bal.CARD) if card else self.columns_of
        sp = self.space
        # deals per (arm, chunk): every table; a card's trace tables (one per seat) and its real-choice deal
        per_chunk = sp.chunk_decks * (((sp.players if sp.trace else 0) + 1) if card else self.tables)
        pairs = sorted((a, c) for a, cs in wants.items() for c in cs if c not in have[a])
        size = CARD_PAIRS if card else TASK_PAIRS
        cut = [pairs[i:i + size] for i in range(0, len(pairs), size)]
        todo = []
        for t, task in enumerate(cut):
            got = self.store.get(self.round, t, task, columns)
            if got is None:
                todo.append(t)
            else:
                self._keep(have, task, got)
                self.deals += len(task) * per_chunk
        specs = [sp.strong, *sp.opponents]
        calls = [(t, cut[t], {a: sp.arms[a].rules for a, _ in cut[t]}, specs, sp.seed, sp.chunk_decks,
                  self.simulator, sp.trace if card else None) for t in todo]
        label = f"balance round {self.round}" + (" (report card)" if card else "")
        with RunProgress(total_units=sum(len(cut[t]) for t in todo) * per_chunk, total_cells=1, unit="deals",
                         label=label, enabled=self.progress and bool(todo)) as bar:
            for t, cols in run_tasks(balance_job, calls, jobs=self.jobs, backend=self.backend, scheduler=self.scheduler):
                self._keep(have, cut[t], self.store.put(self.round, t, cut[t], cols, columns))
                self.deals += len(cut[t]) * per_chunk
                self.deals_now += len(cut[t]) * per_chunk
                bar.advance(len(cut[t]) * per_chunk)
        self.round += 1

    @staticmethod
    def _keep(have: dict[int, dict[int, Columns]], pairs: Sequence[tuple[int, int]], cols: list[Columns]) -> None:
        for (a, c), x in zip(pairs, cols):
            have[a][c] = x

    def columns(self, arm: int, start: int = 0, stop: int | None = None, card: bool = False) -> Columns:
        """The arm's per-deck columns over chunks ``start .. stop - 1`` (all it played from ``start``)."""
        have = (self.cards if card else self.chunks)[arm]
        got = sorted(c for c in have if c >= start and (stop is None or c < stop))
        names = bal.CARD if card else self.columns_of
        return {k: np.concatenate([have[c][k] for c in got]) for k in names}

    def summary(self, arm: int, start: int = 0, stop: int | None = None, exact: bool = True) -> dict[str, Any]:
        return bal.summary(self.columns(arm, start, stop), self.space.players, len(self.space.opponents),
                           self.first, exact=exact)

    def per_deck(self, arm: int, start: int = 0, stop: int | None = None) -> dict[str, Any]:
        return bal.per_deck(self.columns(arm, start, stop), self.space.players, len(self.space.opponents),
                            self.first)

    def last_chunk(self, arms: Iterable[int]) -> int:
        """The last chunk any of ``arms`` played (the next stage's decks start after it)."""
        return max(max(self.chunks[a]) for a in arms)


def anchors(space: BalanceSpace) -> set[int]:
    """Arms measured to the target whatever their rank: the reference, and (``single_changes``) every rule set
    that changes one explored option from it (the designer's question about each option alone)."""
    return {a.index for a in space.arms if a.index == space.reference or (space.single_changes and a.changes == 1)}


def _select(search: Search, active: list[int], keep: int) -> list[int]:
    """The ``keep`` best arms of ``active`` by Pareto rank on (unfairness, skill), the anchors besides.

    Not ranked: an arm whose capped share is above the alarm (:data:`analyzer.stats.tables.CAPPED_ALARM`,
    its whole interval), since a deal cut off by the turn cap has no winner and a game that often never ends
    is no recommendation; and an arm that played every deck so far exactly as a simpler one (same winners and
    дураки at every table: an option that changes nothing the players do) -- the simpler stands for both.
    """
    fixed = anchors(search.space)
    arms = search.space.arms
    p = search.space.players
    seen: set[bytes] = set()
    ranked, costs, skills = [], [], []
    for a in sorted(active, key=lambda a: (a not in fixed, arms[a].changes, a)):  # anchors first, then simplest
        cols = search.columns(a)
        play = b"".join(cols[k].tobytes() for k in ("winner", "durak", "hero0", "decided"))
        if a in fixed or play in seen:
            seen.add(play)
            continue
        seen.add(play)
        capped = _share_lo(cols["capped"])
        if capped > CAPPED_ALARM:
            continue
        d = search.per_deck(a)
        unfair = (fairness.point(cols["winner"], cols["durak"], p) if search.space.fairness == "every-seat"
                  else abs(float(d["fpa"].mean())))
        ranked.append(a)
        costs.append(unfair)
        skills.append(float(d["skill0"].mean()))
    order = bal.keep_order(costs, skills)
    return sorted(fixed | {ranked[i] for i in order[:keep]})


def _share_lo(flags: NDArray[Any]) -> float:
    """The lower Wilson bound of a share of flagged decks."""
    return float(wilson(np.asarray(flags, np.float64).sum(), len(flags)).lo)


def _measure(search: Search, arms: Iterable[int], start: int, stage: str, log: list[dict[str, Any]],
             on_round: Callable[[str], None] | None) -> None:
    """Play ``arms`` on chunks from ``start`` until every half-width is within the target (or ``max_decks``)."""
    sp = search.space
    ch = sp.chunk_decks
    target = sp.target_pp / 100
    want = {a: sp.first_decks // ch for a in arms}
    while want:
        search.play({a: range(start, start + n) for a, n in want.items()})
        log.append({"round": search.round - 1, "stage": stage, "arms": len(want),
                    "decks_per_arm": max(want.values()) * ch, "deals_so_far": search.deals})
        _tell(on_round, log[-1])
        nxt = {}
        for a, n in want.items():
            cols = search.columns(a, start)
            # half-widths only: the seat fairness's simultaneous value is not needed to stop
            s = bal.summary(cols, sp.players, len(sp.opponents), search.first, exact=False)
            if max(bal.half_widths(s)) <= target or n * ch >= sp.max_decks:
                continue
            need = math.ceil(bal.decks_needed(cols, sp.players, search.first, target) * 1.02 / ch)
            nxt[a] = min(max(need, n + 1), sp.max_decks // ch)
        want = nxt


def explore(search: Search, on_round: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Successive halving, the finalists on selection decks, the picks, and the picks and the reference on
    report decks (module doc).  Returns the round log, the finalists, the first selection and report chunks and
    the picks ``[(why, arm)]``."""
    sp = search.space
    ch = sp.chunk_decks
    active = [a.index for a in sp.arms]
    decks = sp.first_decks
    cap = max(sp.first_decks, (sp.max_decks // 2) // ch * ch)
    log: list[dict[str, Any]] = []
    while True:
        search.play({a: range(decks // ch) for a in active})
        log.append({"round": search.round - 1, "stage": "halving", "arms": len(active), "decks_per_arm": decks,
                    "deals_so_far": search.deals})
        _tell(on_round, log[-1])
        if len(set(active) - anchors(sp)) <= sp.finalists:
            break
        ranked = len(set(active) - anchors(sp))
        active = _select(search, active, max(sp.finalists, math.ceil(ranked / sp.eta)))
        decks = min(decks * sp.eta, cap)
    fresh = decks // ch
    _measure(search, active, fresh, "finalists", log, on_round)
    report = search.last_chunk(active) + 1
    picked = finalist_rows(search, active, fresh, report)
    picks = [(why, int(picked.loc[i, "arm"])) for why, i in bal.recommend(picked, CAPPED_ALARM)]
    _measure(search, sorted({a for _, a in picks} | {sp.reference}), report, "report", log, on_round)
    search.play({a: range(report, report + sp.trace_decks // ch) for a in active}, card=True)
    log.append({"round": search.round - 1, "stage": "report card", "arms": len(active),
                "decks_per_arm": sp.trace_decks, "deals_so_far": search.deals})
    _tell(on_round, log[-1])
    return {"rounds": log, "finalists": active, "first_fresh_chunk": fresh, "first_report_chunk": report,
            "picks": [{"why": why, "arm": a} for why, a in picks]}


def finalist_rows(search: Search, finalists: Iterable[int], start: int, stop: int | None, prefix: str = "final_",
                  vs: str = "vs_ref_") -> pd.DataFrame:
    """One row per finalist on chunks ``start .. stop - 1``: its estimates (``prefix``), the cost the search
    minimises, and paired differences from the reference arm on the same decks (``vs``)."""
    sp = search.space
    players, opponents = sp.players, len(sp.opponents)
    ref_cols = search.columns(sp.reference, start, stop)
    ref = bal.per_deck(ref_cols, players, opponents, search.first)
    fixed = anchors(sp)
    rows = []
    for a in finalists:
        arm = sp.arms[a]
        cols = search.columns(a, start, stop)
        s = bal.summary(cols, players, opponents, search.first)
        row: dict[str, Any] = {"arm": a, "rules": arm.label, "reference": a == sp.reference, "changes": arm.changes,
                               "anchor": a in fixed}
        row.update({f"{prefix}{k}": v for k, v in s.items()})
        row[f"{prefix}cost"] = bal.cost(s, sp.fairness)
        mine = bal.per_deck(cols, players, opponents, search.first)
        n = min(len(cols["winner"]), len(ref_cols["winner"]))
        # the fair table's winner and дурак those of the reference rules on every deck both played: an option
        # that changes nothing the seats get (:func:`analyzer.stats.balance.same_play`)
        row[f"{prefix}same_outcomes"] = bool(all(np.array_equal(cols[k][:n], ref_cols[k][:n]) for k in ("winner", "durak")))
        for m in ("fpa", *(f"skill{j}" for j in range(opponents)), "turns", "jack"):
            e = bal.paired(mine[m], ref[m])
            row[f"{vs}{m}"], row[f"{vs}{m}_lo"], row[f"{vs}{m}_hi"] = float(e.est), float(e.lo), float(e.hi)
        rows.append(row)
    return pd.DataFrame(rows)


def _tell(on_round: Callable[[str], None] | None, entry: dict[str, Any]) -> None:
    if on_round is not None:
        on_round(f"round {entry['round']} ({entry['stage']}): {entry['arms']:,} rule sets, up to "
                 f"{entry['decks_per_arm']:,} decks each; {entry['deals_so_far']:,} deals played so far")


def _arm_rows(search: Search, found: dict[str, Any]) -> pd.DataFrame:
    """One row per arm: the explored options and its estimates on every deck of the search; for the finalists
    their selection decks' numbers (``final_*``, ``vs_ref_*``: what chose the picks) and report card
    (``card_*``); for the picks and the reference their report decks' numbers (``report_*``, ``rep_vs_ref_*``)."""
    sp = search.space
    fresh, report = found["first_fresh_chunk"], found["first_report_chunk"]
    finalists = found["finalists"]
    whys: dict[int, list[str]] = {}
    for p in found["picks"]:
        whys.setdefault(p["arm"], []).append(p["why"])
    fixed = anchors(sp)
    rows = []
    for arm in sp.arms:
        row: dict[str, Any] = {"arm": arm.index, "rules": arm.label, "reference": arm.index == sp.reference,
                               "changes": arm.changes, "anchor": arm.index in fixed}
        values = dict(arm.values)
        for opt in sp.space:
            parent = DEPENDS.get(opt)
            shown = parent is None or values.get(parent[0], getattr(arm.rules, parent[0])) == parent[1]
            row[f"opt_{opt}"] = format_value(values[opt]) if shown else bal.NOT_APPLICABLE
        row["decks_played"] = len(search.chunks[arm.index]) * sp.chunk_decks
        on_search = search.summary(arm.index, 0, fresh, exact=False)  # thousands of rule sets: Šidák's value
        row.update({f"search_{k}": v for k, v in on_search.items()})
        row["search_cost"] = bal.cost(on_search, sp.fairness)
        row["finalist"] = arm.index in finalists
        row["picked"] = " and ".join(whys.get(arm.index, []))
        rows.append(row)
    out = pd.DataFrame(rows).set_index("arm", drop=False)
    fin = finalist_rows(search, finalists, fresh, report).set_index("arm")
    out = out.join(fin.drop(columns=["rules", "reference", "changes", "anchor"]))
    rep_arms = sorted(set(whys) | {sp.reference})
    rep = finalist_rows(search, rep_arms, report, None, prefix="report_", vs="rep_vs_ref_").set_index("arm")
    out = out.join(rep.drop(columns=["rules", "reference", "changes", "anchor"]))
    cards = {a: bal.card(search.columns(a, card=True), sp.players) for a in finalists if search.cards[a]}
    if cards:
        out = out.join(pd.DataFrame.from_dict(cards, orient="index").add_prefix("card_"))
    return out.reset_index(drop=True)


def _effects(search: Search, arms: pd.DataFrame) -> pd.DataFrame:
    """Main effects from round 0 (every arm, the first ``first_decks`` decks), one (arms, decks) float32 matrix
    per quantity at a time (czech's 18,432 arms x 500 decks: 37 MB each)."""
    sp = search.space
    n0 = sp.first_decks // sp.chunk_decks
    k = len(sp.opponents)
    quantities = ("fpa", *(f"skill{j}" for j in range(k)), "turns", "jack", "capped")
    raw = [search.columns(a.index, 0, n0) for a in sp.arms]
    matrices = {}
    for m in quantities:
        y = np.empty((len(raw), sp.first_decks), np.float32)
        for i, cols in enumerate(raw):
            y[i] = bal.per_deck(cols, sp.players, k, search.first)[m]
        matrices[m] = y
    values = arms[[f"opt_{o}" for o in sp.space]].rename(columns=lambda c: c[4:])
    ref = dict(sp.arms[sp.reference].values)
    return bal.main_effects(matrices, values, {k: format_value(v) for k, v in ref.items()})


def full_grid_deals(search: Search) -> int:
    """Deals a full grid would play to measure every arm to the target (each arm's decks from its first-round
    spread, at least ``first_decks``, at most ``max_decks``): what the halving is compared with."""
    sp = search.space
    n0 = sp.first_decks // sp.chunk_decks
    total = 0
    for a in sp.arms:
        need = bal.decks_needed(search.columns(a.index, 0, n0), sp.players, search.first, sp.target_pp / 100)
        total += min(max(need, sp.first_decks), sp.max_decks)
    return total * search.tables


@dataclass(frozen=True)
class BalanceRun:
    """A finished exploration as the command prints it: its folder, every arm's row (results/arms.parquet)
    and the summary (results/balance.json)."""

    folder: Path
    arms: pd.DataFrame
    summary: dict[str, Any]


def run_balance(space: BalanceSpace, out_dir: Path, **kw: Any) -> Path:
    """Explore ``space`` (module doc) and write ``out_dir``: results/, manifest.json and the report; return it
    (:func:`explore_balance`'s folder)."""
    return explore_balance(space, out_dir, **kw).folder


def explore_balance(space: BalanceSpace, out_dir: Path, *, jobs: int = -1, backend: str = "loky",
                    scheduler: str | None = None, fresh: bool = False, simulator: str | None = None,
                    report: bool = True, command: str = "", on_round: Callable[[str], None] | None = None,
                    progress: bool = False) -> BalanceRun:
    """Explore ``space`` (module doc), write ``out_dir`` (results/, manifest.json, the report) and return what
    it stored.

    ``on_round(line)`` hears one line per round (the command prints them on stderr); ``progress`` shows the
    deals within each round (:class:`analyzer.execution.progress.RunProgress`).
    """
    sim, mode = simulator_path(simulator), engine_mode()  # $DURAK_ENGINE checked here; the manifest records it
    fp, record = balance_fingerprint(space, sim)
    folder = RunFolder(out_dir)
    entrants = lineups.build([space.strong, *space.opponents], strategy_resolver(sim))
    store = ChunkStore(folder.chunks, fp, play_tag(entrants, play=BALANCE_PLAY, simulator=sim))
    store.open(fresh=fresh, record=record, experiment=space.to_dict())  # refuses a foreign --out or a changed space
    t0 = time.perf_counter()
    load = os.getloadavg()
    tasks = TaskStore(store, space.chunk_decks)
    search = Search(space, tasks, simulator=sim, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
    try:
        found = explore(search, on_round)
    finally:
        store.close()
    line = store.replayed_line()
    if line is not None and on_round is not None:
        on_round(line)
    seconds = time.perf_counter() - t0
    arms = _arm_rows(search, found)
    effects = _effects(search, arms)
    played = search.deals
    grid = full_grid_deals(search)
    folder.write_result("arms.parquet", arms)
    folder.write_result("effects.parquet", effects)
    rules = space.arms[space.reference].rules
    summary = {"space": space.to_dict(), **found, "deals": played, "full_grid_deals": grid,
               "tables_per_deck": search.tables, "dealer_position": rules.dealer,
               "first_mover_position": rules.first_mover, "reference_name": space.reference_name}
    folder.write_result("balance.json", summary)
    folder.write_manifest({"name": space.name, "description": space.description, "kind": "balance",
                           "experiment": space.to_dict(), "seed": space.seed, "version": __version__,
                           "fingerprint": fp, "engine": mode, "total_deals": played, "deals_this_run": search.deals_now,
                           "chunks_resumed": tasks.resumed,
                           "chunks_replayed": len(store.replayed), "seconds": round(seconds, 3),
                           "load_average_at_start": [round(x, 2) for x in load],
                           "load_average_at_end": [round(x, 2) for x in os.getloadavg()], "command": command,
                           "jobs": jobs, "backend": backend, "scheduler": scheduler})
    if report:
        write_balance_report(out_dir)
    return BalanceRun(out_dir, arms, summary)
