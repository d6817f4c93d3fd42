"""The executor's engine: the compiled kernel alone where every strategy has a compiled form, paused at the
Python strategies' decisions elsewhere.

A chunk of Python strategies on the paused kernel is seeded as the kernel alone seeds it (the same decks, the
same per-deal option streams), so the Python forms of deterministic built-ins give the built-ins' deals, field
for field, and the same sums through the executor.  Results do not depend on --jobs.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.cards import shuffled_decks
from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.core.streams import base_key
from analyzer.execution.benchmark import PythonForm
from analyzer.execution.executor import ENGINE_ENV, choose_engine, engine_mode, simulate_cells
from analyzer.execution.experiment import ExperimentError, single_cell
from analyzer.execution.runs.cells import fingerprint
from analyzer.kernel.matches import simulate_matches as kernel_matches
from analyzer.kernel.pause import simulate_paused_matches
from analyzer.kernel.serve import simulate_chunk
from tests.plugin_example import HighestCard

DETERMINISTIC = ["greedy", "weighted", "wild-keeper", "wild-dumper", "aggressive", "suit-keeper"]


def _same(a: DealResults | MatchResults, b: DealResults | MatchResults) -> list[str]:
    """The fields in which two results differ."""
    return [f.name for f in fields(a) if not np.array_equal(getattr(a, f.name), getattr(b, f.name))]


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 4, {}),
    ("prague", 3, {"reshuffle": "shuffle", "hand_size": 8}),  # G8: the option's draws from the deal's stream
    ("czech", 3, {"sevens": True, "last_card_call": True, "forget_rate": 0.4}),  # CZ8
    ("svinya", 2, {"hand_size": 7}),
])
def test_a_chunk_of_python_forms_on_the_paused_kernel_equals_the_kernel_alone(variant, players, overrides):
    """Same chunk seed: every field of every deal equal (wilds_dealt too), deterministic line-ups."""
    rules = make_rules(variant, players, overrides)
    strats = [get_strategy(DETERMINISTIC[(p + players) % len(DETERMINISTIC)]) for p in range(players)]
    ss = np.random.SeedSequence(42, spawn_key=(7, players))
    a = simulate_chunk(rules, strats, 400, ss, matches=False, threads=2)
    b = simulate_chunk(rules, [PythonForm(s) for s in strats], 400, ss, matches=False)
    assert _same(a, b) == []
    assert (a.wilds_dealt >= 0).all() and a.wilds_dealt.sum() > 0


def test_paused_matches_on_given_decks_equal_the_kernels_own():
    """Matches (G11, CZ2 rotation, CZ7) on the same decks and play streams, field for field."""
    rules = make_rules("czech", 3, {"target": 60, "last_card_call": True, "forget_rate": 0.3})
    strats = [get_strategy(s) for s in ("greedy", "aggressive", "weighted")]
    ss = np.random.SeedSequence(5)
    decks = shuffled_decks(32, 60 * 30, np.random.default_rng(1)).reshape(60, 30, 32)
    a = kernel_matches(rules, strats, 60, base_key(ss), decks=decks, threads=1)
    b = simulate_paused_matches(rules, [PythonForm(s) for s in strats], 60, base_key(ss),
                                play_rng=np.random.default_rng(0), decks=decks)
    assert _same(a, b) == []
    assert a.deals.max() > 1


def _tables(rules, specs, n, *, matches=False, chunk=None, **kw):
    cell = single_cell(rules, specs, unit="match" if matches else "deal", n=n, chunk_size=chunk)
    return simulate_cells([cell], seed=3, **kw)


def _equal_tables(a, b) -> bool:
    return all(a[k].equals(b[k]) for k in a)


def test_the_executor_gives_the_same_sums_on_any_jobs():
    """A deterministic line-up through the executor (3 chunks), on the kernel alone and paused at a Python
    strategy: --jobs 1 = --jobs 2."""
    rules = make_rules("czech", 4)
    for specs in (["greedy", "weighted", "wild-keeper", "suit-keeper"],
                  ["greedy", "tests/plugin_example.py:HighestCard", "weighted", "greedy"]):
        one = _tables(rules, specs, 2500, chunk=1000, jobs=1)
        assert _equal_tables(one, _tables(rules, specs, 2500, chunk=1000, jobs=2)), specs


def test_random_play_results_do_not_depend_on_jobs_deals_and_matches():
    rules = make_rules("svinya", 2)
    for matches, n, chunk in ((False, 3000, 1000), (True, 150, 40)):
        one = _tables(rules, ["random"], n, matches=matches, chunk=chunk, jobs=1)
        two = _tables(rules, ["random"], n, matches=matches, chunk=chunk, jobs=2)
        assert _equal_tables(one, two), matches


class _ReadsHistory(HighestCard):
    name = "reads-history"
    uses_history = True


def test_which_engine_serves_a_line_up(monkeypatch):
    built_ins = [get_strategy("greedy"), get_strategy("random")]
    python = [get_strategy("greedy"), HighestCard()]
    history = [get_strategy("greedy"), _ReadsHistory()]
    assert choose_engine(built_ins) == "compiled"
    assert choose_engine(python) == "compiled+python"  # the kernel, paused at the Python strategy's decisions
    assert choose_engine(python, unit="match") == "compiled+python"  # matches pause on the kernel too
    assert choose_engine(history, unit="match") == "compiled+python"  # the kernel logs the public events
    assert choose_engine(history) == "compiled+python"
    assert choose_engine(built_ins, simulator="tests.fake_sim") == "numpy"  # a stand-in, called as its module
    monkeypatch.setenv(ENGINE_ENV, "numpy")
    with pytest.raises(ExperimentError, match=r"the numpy simulator is retired.*\(unset \$DURAK_ENGINE\)"):
        engine_mode()
    out = CliRunner().invoke(app, ["simulate", "--deals", "20"], env={ENGINE_ENV: "numpy"})
    assert out.exit_code == 2 and "numpy simulator is retired" in out.output and len(out.output.splitlines()) == 1
    monkeypatch.setenv(ENGINE_ENV, "fast")
    with pytest.raises(ExperimentError, match=r"got 'fast' \(from \$DURAK_ENGINE\)"):
        engine_mode()


def test_a_retired_engine_asked_for_stops_a_run_before_its_chunk_store_opens(tmp_path):
    """``$DURAK_ENGINE=numpy`` is a one-line error at the run's entry: no folder of chunks is left behind."""
    exp = tmp_path / "e.toml"
    exp.write_text('name = "e"\nvariants = ["czech"]\nplayers = [2]\nlineup = ["greedy"]\ndeals = 20\n')
    out = CliRunner().invoke(app, ["run", str(exp), "--out", str(tmp_path / "out"), "--quiet"],
                             env={ENGINE_ENV: "numpy"})
    assert out.exit_code == 2 and "numpy simulator is retired" in out.output, out.output
    assert not (tmp_path / "out" / "chunks").exists()


def test_the_engine_is_recorded(tmp_path):
    """durak simulate --json says which engine ran; a run's fingerprint holds each cell's engine."""
    out = CliRunner().invoke(app, ["simulate", "--deals", "300", "--strategies", "greedy", "--json", "--jobs", "1"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["engine"] == "compiled"
    out = CliRunner().invoke(app, ["simulate", "--deals", "300", "--strategies", "greedy,tracker", "--json", "--jobs",
                                   "1"])
    assert json.loads(out.output)["engine"] == "compiled+python"
    from analyzer.execution.experiment import load_experiment

    for field, engines in ((["greedy", "random"], ["compiled"] * 2), (["greedy", "tests/plugin_example.py:HighestCard"],
                                                                      ["compiled+python"] * 2)):
        exp_file = tmp_path / "e.toml"
        exp_file.write_text(f'name = "e"\nvariants = ["czech"]\nplayers = [2]\nfield = {json.dumps(field)}\ndeals = 100\n')
        exp = load_experiment(exp_file)
        assert fingerprint(exp)[1]["engines"] == engines


def test_a_change_of_an_engines_streams_changes_the_fingerprint(tmp_path, monkeypatch):
    """A chunk stored before an engine's random streams changed is never resumed after: the fingerprint holds
    the stream version of each engine the run uses, and of no other."""
    from analyzer.execution import executor
    from analyzer.execution.experiment import load_experiment

    exp_file = tmp_path / "e.toml"
    exp_file.write_text('name = "e"\nvariants = ["czech"]\nplayers = [2]\nfield = ["greedy", "random"]\ndeals = 100\n')
    exp = load_experiment(exp_file)
    fp, record = fingerprint(exp)
    assert record["streams"] == {"compiled": executor.STREAMS["compiled"]}
    monkeypatch.setitem(executor.STREAMS, "compiled+python", 99)  # an engine this run does not use
    assert fingerprint(exp)[0] == fp
    monkeypatch.setitem(executor.STREAMS, "compiled", 99)
    assert fingerprint(exp)[0] != fp


def test_cells_of_both_engines_in_one_run():
    """A run mixing a compiled cell and a Python one: each cell's sums as when it runs alone."""
    from analyzer.execution.experiment import Cell

    rules = make_rules("czech", 3)
    cells: list[Cell] = []
    for i, lineup in enumerate((["greedy", "weighted", "aggressive"], ["greedy", "tests/plugin_example.py:HighestCard",
                                                                      "greedy"])):
        c = single_cell(rules, lineup, n=900, chunk_size=400)
        cells.append(Cell(**{**c.__dict__, "index": i}))
    mixed = simulate_cells(cells, seed=2, jobs=2)
    for cell in cells:
        alone = simulate_cells([cell], seed=2, jobs=1)
        for name, table in alone.items():
            assert table.reset_index(drop=True).equals(
                mixed[name][mixed[name]["cell"] == cell.index].reset_index(drop=True)), (cell.index, name)


def test_compiled_chunks_stop_when_the_run_stops(monkeypatch):
    """Ctrl-C (or any consumer that stops) cancels the queued compiled chunks; only the running ones finish."""
    import threading
    import time

    from analyzer.execution import executor

    started = []
    lock = threading.Lock()

    def slow_job(cell, k, n, *rest):
        with lock:
            started.append(k)
        time.sleep(0.1)
        return cell.index, k, n, {}

    monkeypatch.setattr(executor, "cell_job", slow_job)
    cell = single_cell(make_rules("czech", 2), ["greedy"], n=40 * 10, chunk_size=10)
    run = executor.run_cell_chunks([(cell, k, n) for k, n in cell.chunks()], seed=1, jobs=2)
    next(run)
    run.close()
    time.sleep(0.3)
    assert 1 <= len(started) <= 6, started  # not the 40 chunks


def test_compiled_chunks_split_over_kernel_threads_only_when_none_waits(monkeypatch):
    """On two cores, chunks run two at a time on one kernel thread each; the last one, which starts when no
    chunk waits, splits its blocks over both (the only one of a run, too: a small match run uses every core)."""
    from analyzer.execution import executor

    got: dict[int, int] = {}

    def job(cell, k, n, seed, check, sim, threads):
        got[k] = threads
        return cell.index, k, n, {}

    monkeypatch.setattr(executor, "cell_job", job)
    monkeypatch.setattr(executor, "cores", lambda jobs, **kw: 2)  # two cores whatever this machine has
    cell = single_cell(make_rules("czech", 2), ["greedy"], n=6 * 10, chunk_size=10)
    list(executor.run_cell_chunks([(cell, k, n) for k, n in cell.chunks()], seed=1, jobs=2))
    assert got == {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 2}
    got.clear()
    one = single_cell(make_rules("czech", 2), ["greedy"], n=10, chunk_size=10)
    list(executor.run_cell_chunks([(one, 0, 10)], seed=1, jobs=2))
    assert got == {0: 2}


def test_process_chunks_are_handed_out_last_cell_first(monkeypatch):
    """The worker processes get the last cell's chunks first (a ladder's costliest step must not start last
    and leave a worker idle behind it), each cell's in chunk order; compiled chunks run here as before."""
    from analyzer.execution import executor

    handed: list[tuple[int, int]] = []

    def tasks(fn, calls, **kw):
        handed.extend((c[0].index, c[1]) for c in calls)
        return iter(())

    monkeypatch.setattr(executor, "run_tasks", tasks)
    monkeypatch.setattr(executor, "_run_threaded", lambda calls, threads: iter(()))
    rules = make_rules("czech", 2)
    cells = [replace(single_cell(rules, ["pimc?worlds=2", "random"], n=30, chunk_size=10), index=i) for i in range(3)]
    list(executor.run_cell_chunks([(c, k, n) for c in cells for k, n in c.chunks()], seed=1, jobs=2))
    assert handed == [(2, 0), (2, 1), (2, 2), (1, 0), (1, 1), (1, 2), (0, 0), (0, 1), (0, 2)]


def test_check_on_the_kernel_keeps_the_numbers_and_names_a_broken_deal(monkeypatch):
    """--check keeps the engine: the same numbers with and without it; the kernel's check (every card exactly
    once at the end of each deal) finds a lost or doubled card, and a broken deal is one line naming it."""
    from analyzer.core.faults import FaultContext, SimulationError
    from analyzer.kernel import serve
    from analyzer.kernel.deal import conserved
    from analyzer.kernel.driver import Broken
    from analyzer.kernel.params import rule_params
    from analyzer.kernel.state import HANDS, HEAD, PCOUNT, TCOUNT, new_state

    args = ["simulate", "--deals", "600", "--strategies", "random,greedy", "--players", "2", "--json", "--jobs", "1"]
    plain = json.loads(CliRunner().invoke(app, args).stdout)
    checked = json.loads(CliRunner().invoke(app, [*args, "--check"]).stdout)
    assert plain.pop("deals_per_second") and checked.pop("deals_per_second") and plain == checked
    assert checked["engine"] == "compiled"

    rules = make_rules("czech", 2)
    p = rule_params(rules)
    deck = np.arange(20, 52)  # the 32-card deck's ids
    mask = np.uint64(sum(1 << int(c) for c in deck))
    st, m, ring = new_state(2)
    m[HANDS], m[HANDS + 1] = np.uint64(sum(1 << int(c) for c in deck[:5])), np.uint64(sum(1 << int(c) for c in deck[5:10]))
    ring[:22] = deck[10:]
    st[HEAD], st[TCOUNT], st[PCOUNT] = 0, 20, 2
    assert conserved(st, m, ring, mask, p)
    m[HANDS] &= ~np.uint64(1 << 20)  # a card lost
    assert not conserved(st, m, ring, mask, p)
    m[HANDS] |= np.uint64(1 << 20)
    ring[21] = ring[20]  # a card twice
    assert not conserved(st, m, ring, mask, p)

    def broken(*a, **k):
        raise Broken(3)

    monkeypatch.setattr(serve, "simulate_deals", broken)
    with pytest.raises(SimulationError, match=r"^invariant broken: cards not conserved in czech deal 103 \(cell 0, chunk 1\)"):
        serve.simulate_chunk(rules, [get_strategy("greedy")] * 2, 10, np.random.SeedSequence(1), matches=False,
                             check=True, where=FaultContext(cell=0, chunk=1, first=100))
