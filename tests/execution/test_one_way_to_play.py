"""One way to play given decks (analyzer.execution.executor.play_decks) for every command and API call.

A Python plugin that plays exactly as a built-in does (a subclass of ``greedy`` in its own file: no compiled
form, so the kernel pauses at its decisions) must give the numbers the built-in gives, beside a ``random``
seat whose draws come from the deals' stream, through each command: compare, the tournaments, the balance
explorer, tuning, the API's deals, and the cells of ``durak simulate`` and ``durak run`` (which deal their own
decks from each chunk's seed).  A line-up that reads the public history (tracker, pimc) plays on the kernel
too, its decks keyed as every command keys them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analyzer import api
from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.execution import runs
from analyzer.execution.balance_space import load_space
from analyzer.execution.balance_tables import play_chunk
from analyzer.execution.executor import (
    DEFAULT_SIMULATOR,
    cell_engines,
    decks_engine,
    play_decks,
    run_chunk,
    simulate_deals,
    simulate_matches,
    strategy_resolver,
)
from analyzer.execution.experiment import single_cell
from analyzer.execution.lineup import build
from analyzer.execution.runs import compare as compare_run
from analyzer.execution.runs.tournament import tournament_chunk
from analyzer.execution.runs.tune import hero_objective
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.stats.tournament import hero, round_robin

PLUGIN = '''
from strategies.greedy import Greedy


class PyGreedy(Greedy):
    """greedy's choices, in Python only (no compiled form)."""

    name = "py-greedy"
'''


@pytest.fixture()
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "py_greedy.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    return "py_greedy.py:PyGreedy"


ROOT = Path(__file__).resolve().parents[2]


def _built(specs: list[str]) -> list[object]:
    return build(specs, strategy_resolver(None))


def test_the_plugin_plays_on_the_paused_kernel_and_draws_as_the_built_in(plugin: str) -> None:
    rules = make_rules("czech", 3, {"reshuffle": "shuffle"})
    decks = shuffled_decks(rules.deck_size, 300, np.random.default_rng(4))
    ss = np.random.SeedSequence(9)
    py, native = _built([plugin, "random", "random"]), _built(["greedy", "random", "random"])
    assert decks_engine(py) == "compiled+python" and decks_engine(native) == "compiled"
    a, b = play_decks(rules, py, decks, ss), play_decks(rules, native, decks, ss)
    for name in ("points", "winner", "loser", "turns", "end"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_tournaments_play_the_plugin_as_the_built_in(plugin: str) -> None:
    rules = make_rules("czech", 2, {})
    for design_of in (lambda g: round_robin([g, "random"], 2), lambda g: hero([g], 2, reference="random")):
        got = [tournament_chunk(rules, design_of(g), 200, 5, 0) for g in (plugin, "greedy")]
        assert all(np.array_equal(x, y) for x, y in zip(*got))


def test_the_balance_explorer_plays_the_plugin_as_the_built_in(plugin: str) -> None:
    rules = make_rules("prague", 3, {})
    decks = shuffled_decks(rules.deck_size, 200, np.random.default_rng(6))
    got = [play_chunk(rules, _built([g, "random"]), decks, np.random.SeedSequence(3), DEFAULT_SIMULATOR)
           for g in (plugin, "greedy")]
    assert got[0].keys() == got[1].keys()
    assert all(np.array_equal(got[0][k], got[1][k]) for k in got[0])


def test_compare_and_the_api_play_the_plugin_as_the_built_in(plugin: str) -> None:
    rules = make_rules("svinya", 2, {})
    runs = [compare_run.run_compare(rules, [g, "random"], 300, seed=2) for g in (plugin, "greedy")]
    assert runs[0].scores.keys() == runs[1].scores.keys()
    assert all(np.array_equal(runs[0].scores[k], runs[1].scores[k]) for k in runs[0].scores)
    frames = [api.compare(f"{g};random", variant="czech", players=3, deals=300, seed=1) for g in (plugin, "greedy")]
    cols = ["metric", "rate", "lo", "hi", "n"]
    assert frames[0][cols].equals(frames[1][cols])


def test_a_cell_chunk_plays_the_plugin_as_the_built_in(plugin: str) -> None:
    """Cells (``durak simulate``, ``durak run``) deal their own decks from each chunk's seed, and that seed is
    keyed on the cell's content (its line-up's text), so two line-ups never share a cell's decks: on the same
    chunk seed the plugin's line-up (the paused kernel) plays what the built-in's (the kernel alone) plays."""
    rules = make_rules("czech", 3, {})
    sums = []
    for g in (plugin, "greedy"):
        cell = single_cell(rules, [g, "random", "random"], n=400)
        assert cell_engines([cell]) == ["compiled+python" if g == plugin else "compiled"]
        sums.append(run_chunk(cell, 0, 400, np.random.SeedSequence(3), False).tables())
    for name, table in sums[0].items():
        other = sums[1][name]
        cols = [c for c in table.columns if c not in ("strategy", "lineup")]
        assert table[cols].equals(other[cols]), name


def test_tuning_plays_the_plugin_as_the_built_in(plugin: str) -> None:
    """A tuning run's opposition: the plugin as reference scores every candidate as the built-in does."""
    rules = make_rules("czech", 2, {})
    params, idx = np.array([[-8.0], [3.0]]), np.arange(60, dtype=np.int64)
    scores = [[hero_objective(rules, "weighted", ["w_wild"], reference=g, seed=2)(x, idx) for x in params]
              for g in (plugin, "greedy")]
    assert all(np.array_equal(a, b) for a, b in zip(*scores))


def test_a_tournament_plays_a_history_reader_on_the_kernel_keyed_as_every_other_command() -> None:
    """A tournament's line-up that reads the history plays on the kernel, its decks keyed as compare's and the
    API's are (:func:`~analyzer.core.streams.base_key` of the chunk's play seed)."""
    rules = make_rules("czech", 2, {})
    design = round_robin(["tracker", "random"], 2)
    got = tournament_chunk(rules, design, 80, 5, 0)
    deck_ss, sim_ss = chunk_seed(5, "tournament", content_text(rules, [], "deal"), 0).spawn(2)
    decks = shuffled_decks(rules.deck_size, 80, np.random.default_rng(deck_ss))
    entrants = _built(list(design.entrants))
    assert decks_engine([entrants[e] for e in design.tables[0].seats]) == "compiled+python"
    for table, wins in zip(design.tables, got):
        assert table.hands == (0, 1)
        res = play_decks(rules, [entrants[e] for e in table.seats], decks, sim_ss)
        assert np.array_equal(wins, (res.winner[:, None] == np.arange(2)).astype(np.float64))


def test_the_engine_asked_for_changes_no_number(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``$DURAK_ENGINE=compiled`` (what runs made before the kernel played every line-up record) is ``auto``: the
    same fingerprints for every run kind, so the same chunks and numbers."""
    exp = tmp_path / "t.toml"
    exp.write_text('name = "t"\nvariants = ["czech"]\nplayers = [2]\nfield = ["tracker", "random"]\n'
                   'design = "round-robin"\ndeals = 20\nseed = 3\nchunk_size = 20\n')
    plans = [runs.read_run_file(exp), load_space(ROOT / "experiments" / "balance_prague_3p.toml"),
             runs.read_run_file(ROOT / "experiments" / "quick.toml")]
    monkeypatch.delenv("DURAK_ENGINE", raising=False)
    auto = [runs.fingerprint_of(plan) for plan in plans]
    monkeypatch.setenv("DURAK_ENGINE", "compiled")
    assert [runs.fingerprint_of(plan) for plan in plans] == auto


def test_the_executors_deals_play_every_line_up_on_the_kernel() -> None:
    """``executor.simulate_deals`` (deals for scripts and tests): a line-up that reads the history plays on the
    kernel, its deals those of a cell's chunk on the same seed; matches too."""
    rules = make_rules("czech", 3, {})
    searching = ["pimc?worlds=4,budget=300", "greedy", "pimc?worlds=4,budget=300"]
    cell = single_cell(rules, searching, n=60)
    assert cell_engines([cell]) == ["compiled+python"]
    got = simulate_deals(rules, _built(searching), 60, 8)
    sums = run_chunk(cell, 0, 60, np.random.SeedSequence(8), False).tables()["positions"]
    assert np.bincount(got.winner, minlength=3).tolist() == sums.sort_values("position")["wins"].astype(int).tolist()
    assert np.array_equal(got.turns, simulate_deals(rules, _built(searching), 60, 8).turns)
    matches = simulate_matches(make_rules("czech", 2, {}), _built(["tracker", "greedy"]), 4, 1)
    assert len(matches.deals) == 4
