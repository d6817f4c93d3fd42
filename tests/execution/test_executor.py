"""One executor: simulate is a one-cell experiment, seeds follow content.

``durak simulate`` and ``durak run`` of an experiment holding the same cell
print the same numbers for the same seed; a cell's numbers do not depend on
its index; line-ups build one object per distinct spec.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution import lineup
from analyzer.execution.play import cell_tables, play, summary_json
from analyzer.execution.runs import run_experiment
from analyzer.execution.seeds import PURPOSES, chunk_seed

RUN = CliRunner()


def _run(tmp_path: Path, toml: str, name: str = "e", jobs: int = 1) -> dict[str, pd.DataFrame]:
    f = tmp_path / f"{name}.toml"
    f.write_text(toml)
    out = run_experiment(f, out=tmp_path / name, jobs=jobs, quiet=True, report=False)
    return {t: pd.read_parquet(out / "results" / f"{t}.parquet") for t in ("positions", "totals", "hist")}


def _without_speed(d: dict) -> dict:
    d = dict(d)
    d.pop("deals_per_second")
    d.pop("engine", None)  # simulate --json names the engine it ran on
    return d


def test_simulate_prints_the_numbers_run_writes_for_the_same_cell(tmp_path: Path) -> None:
    res = RUN.invoke(app, ["simulate", "--variant", "czech", "--players", "3", "--strategies", "greedy;random",
                           "--rule", "sevens=on", "--deals", "3000", "--seed", "5", "--json", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    printed = json.loads(res.stdout)
    tables = _run(tmp_path, 'variant = "czech"\nplayers = 3\nlineup = ["greedy", "random"]\ndeals = 3000\n'
                            "seed = 5\n[rules]\nsevens = true\n")
    rules = make_rules("czech", 3, {"sevens": True})
    from_run = summary_json(rules, cell_tables(tables), 1.0, seed=5, matches=False)
    assert _without_speed(printed) == _without_speed(from_run)
    assert printed["strategies"] == ["greedy", "random", "greedy"]  # cycled like an experiment's lineup


def test_many_chunks_and_jobs_give_the_same_tables_as_run(tmp_path: Path) -> None:
    rules = make_rules("prague", 3)
    mine, _ = play(rules, ["random"], 2_500, seed=9, jobs=1, chunk=1_000)
    tables = _run(tmp_path, 'variant = "prague"\nplayers = 3\ndeals = 2500\nchunk_size = 1000\nseed = 9\n', jobs=2)
    theirs = cell_tables(tables)
    for name in ("positions", "totals", "hist"):
        pd.testing.assert_frame_equal(mine[name], theirs[name], check_exact=True, check_dtype=False)


def test_a_cell_numbers_follow_what_it_is_not_where_it_sits(tmp_path: Path) -> None:
    """The sevens=on cell is cell 1 of a grid and cell 0 of its own file: same numbers."""
    grid = _run(tmp_path, 'variant = "czech"\nplayers = 2\ndeals = 1500\nseed = 3\n[grid]\nsevens = [false, true]\n',
                name="grid")
    alone = _run(tmp_path, 'variant = "czech"\nplayers = 2\ndeals = 1500\nseed = 3\n[rules]\nsevens = true\n',
                 name="alone")
    a = grid["positions"][grid["positions"]["cell"] == 1].drop(columns="cell").reset_index(drop=True)
    b = alone["positions"].drop(columns="cell").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    off = grid["positions"][grid["positions"]["cell"] == 0]
    assert not off["wins"].reset_index(drop=True).equals(b["wins"])


def test_purposes_never_share_a_stream() -> None:
    content = "deal|czech 4p|random;random;random;random"
    states = {p: tuple(chunk_seed(0, p, content, 0).generate_state(4)) for p in PURPOSES}
    assert len(set(states.values())) == len(PURPOSES)
    with pytest.raises(ValueError, match="purpose"):
        chunk_seed(0, "nope", content, 0)


class _Named:
    def __init__(self, name: str) -> None:
        self.name = name


def test_one_object_per_distinct_spec() -> None:
    made: list[str] = []

    def resolve(spec: str) -> _Named:
        made.append(spec)
        return _Named(spec)

    objs = lineup.build(("greedy", "random", "greedy", "random"), resolve)
    assert made == ["greedy", "random"]
    assert objs[0] is objs[2] and objs[1] is objs[3] and objs[0] is not objs[1]
    ready = _Named("mine")
    assert lineup.build((ready, "random", ready), resolve)[2] is ready


@pytest.mark.parametrize("text, specs", [
    ("weighted?w_points=1.5,w_wild=-2,random,random,random",
     ("weighted?w_points=1.5,w_wild=-2", "random", "random", "random")),
    ("greedy; weighted?w_points=1.5, w_wild=-2 random", ("greedy", "weighted?w_points=1.5,w_wild=-2", "random")),
    ("greedy random", ("greedy", "random")),
    ("my.py:Strat?x=1;greedy", ("my.py:Strat?x=1", "greedy")),
])
def test_a_written_lineup_keeps_parameters_with_their_spec(text: str, specs: tuple[str, ...]) -> None:
    assert lineup.parse_lineup(text) == specs


@pytest.mark.parametrize("text, match", [
    ("random,x=1", "follows no 'name\\?' spec"),
    ("weighted?a=1;b=2", "follows no"),
    ("greedy,,random", "empty entry"),
    ("  ", "empty line-up"),
])
def test_an_ambiguous_lineup_is_one_line_error(text: str, match: str) -> None:
    with pytest.raises(lineup.LineupError, match=match):
        lineup.parse_lineup(text)


def test_short_lineups_cycle_long_ones_are_refused() -> None:
    assert lineup.cycle(("a", "b"), 5) == ("a", "b", "a", "b", "a")
    with pytest.raises(lineup.LineupError, match="3 strategies for 2 players"):
        lineup.cycle(("a", "b", "c"), 2)


def test_plugin_names_in_tables_and_two_of_one_name_told_apart() -> None:
    a, b = _Named("hero"), _Named("hero")
    assert lineup.display_names(["p.py:A", "random"], [a, _Named("random")]) == ["hero", "random"]
    assert lineup.display_names(["p.py:A", "q.py:B", "p.py:A"], [a, b, a]) == [
        "hero (p.py:A)", "hero (q.py:B)", "hero (p.py:A)"]


def test_a_worker_restarted_by_loky_between_runs_is_not_a_warning() -> None:
    """An idle worker timing out (executor.IDLE_WORKER_SECONDS) as the next run submits to the reusable pool makes
    loky restart it and warn, though no task is lost (seen in CI): after a run on loky that warning is silenced,
    others are not."""
    import warnings

    from analyzer.execution import executor

    assert sorted(executor.run_tasks(abs, [(-1,), (-2,)], jobs=2)) == [1, 2]
    with warnings.catch_warnings(record=True) as seen:
        warnings.warn(executor.WORKER_RESTART + ". This can be caused by a too short worker timeout.", UserWarning,
                      stacklevel=1)
        warnings.warn("another warning", UserWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["another warning"]
