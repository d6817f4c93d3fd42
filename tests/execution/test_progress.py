"""Progress where nobody watches a terminal: plain lines on stderr for logs, ``nohup`` and pipes; ``--quiet`` silences.

The interval is shortened through ``$DURAK_PROGRESS_SECONDS`` so the lines come within a test's time.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from typer.testing import CliRunner

import analyzer.execution.executor as executor_mod
from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.progress import LINE_SECONDS, RunProgress, _line_seconds
from analyzer.execution.runs.tournament import run_design
from analyzer.stats.tournament import round_robin

LINE = re.compile(r"^durak: simulate: [\d.]+k?/[\d.]+k? deals \(\d+%\), [\d.]+k? deals/s, .* so far, "
                  r"(~.* left|time left not known yet)$")


def test_plain_lines_name_done_total_rate_and_time_left(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DURAK_PROGRESS_SECONDS", "0.02")
    with RunProgress(total_units=1000, total_cells=2, unit="deals") as bar:
        for _ in range(4):
            time.sleep(0.03)
            bar.advance(100)
    err = capsys.readouterr().err.splitlines()
    assert err, "no progress line on a stderr that is not a terminal"
    assert all(line.startswith("durak: cells ") for line in err)
    assert "/1.0k deals (" in err[-1] and "deals/s" in err[-1] and ("left" in err[-1])


def test_resumed_work_counts_as_done_but_not_in_the_rate(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A resumed run found 900 of 1,000 decks stored: until it plays one, it cannot know its time left (counting
    the stored ones as played at once would promise the rest in seconds)."""
    monkeypatch.setenv("DURAK_PROGRESS_SECONDS", "60")
    with RunProgress(total_units=1000, total_cells=1, unit="decks") as bar:
        bar.advance(900, resumed=True)
        assert bar._lines is not None
        line = bar._lines.line()
        assert "900/1.0k decks (90%)" in line and line.endswith("time left not known yet"), line
        time.sleep(0.05)
        bar.advance(50)
        rate = float(re.search(r", ([\d.]+) decks/s", bar._lines.line()).group(1))
        assert rate < 50 / 0.05 * 1.01  # only the 50 played decks, over the time since the start


def test_a_resumed_tournament_says_which_chunks_were_stored() -> None:
    """run_design tells its progress which chunks came from the store (resumed) and which it played."""
    rules = make_rules("czech", 2, {})
    design = round_robin(["random", "greedy"], 2)
    kept: dict[int, Any] = {}

    class Cache:
        def get(self, c: int, n: int) -> Any:
            return kept.get(c)

        def put(self, c: int, n: int, wins: Any) -> Any:
            kept[c] = wins
            return wins

    told: list[tuple[int, bool]] = []
    first = run_design(rules, design, 60, seed=2, chunk=20, boot=10, cache=Cache(),
                       on_chunk=lambda units, *, resumed=False: told.append((units, resumed)))
    assert told == [(20, False)] * 3
    told.clear()
    del kept[2]
    again = run_design(rules, design, 60, seed=2, chunk=20, boot=10, cache=Cache(),
                       on_chunk=lambda units, *, resumed=False: told.append((units, resumed)))
    assert told == [(20, True), (20, True), (20, False)]
    assert again["ratings"] == first["ratings"]


def test_quiet_progress_says_nothing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DURAK_PROGRESS_SECONDS", "0.01")
    with RunProgress(total_units=10, total_cells=1, enabled=False) as bar:
        time.sleep(0.05)
        bar.advance(5)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("value, seconds", [("", LINE_SECONDS), ("x", LINE_SECONDS), ("-1", LINE_SECONDS),
                                            ("2.5", 2.5)])
def test_the_interval_is_ten_seconds_unless_the_environment_says(monkeypatch: pytest.MonkeyPatch, value: str,
                                                                 seconds: float) -> None:
    monkeypatch.setenv("DURAK_PROGRESS_SECONDS", value)
    assert _line_seconds() == seconds


class _Stop(Exception):
    """The fake simulation stops here, once it has reported its chunks."""


@pytest.mark.parametrize("quiet", [False, True])
def test_simulate_logs_progress_lines_unless_quiet(monkeypatch: pytest.MonkeyPatch, quiet: bool) -> None:
    def slow_play(cells: Any, **kw: Any) -> Any:
        (cell,) = cells
        for _ in range(4):
            time.sleep(0.05)
            kw["on_chunk"](cell, cell.n // 4)
        raise _Stop

    monkeypatch.setattr(executor_mod, "simulate_cells", slow_play)
    args = ["simulate", "--deals", "4000", "--strategies", "random"] + (["--quiet"] if quiet else [])
    result = CliRunner().invoke(app, args, env={"DURAK_PROGRESS_SECONDS": "0.02"})
    assert isinstance(result.exception, _Stop)
    lines = [x for x in result.stderr.splitlines() if x.startswith("durak: simulate:")]
    if quiet:
        assert lines == []
    else:
        assert lines and all(LINE.match(x) for x in lines), result.stderr


@pytest.mark.parametrize("quiet", [False, True])
def test_balance_logs_progress_lines_within_a_round_unless_quiet(monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
                                                                quiet: bool) -> None:
    """`durak balance` piped: a round's deals as plain lines (a czech round can take many minutes), not only a
    line when the round ends; --quiet silences both."""
    monkeypatch.setenv("DURAK_PROGRESS_SECONDS", "0.01")
    monkeypatch.setenv("DURAK_SIMULATOR", "tests.planted_sim")
    monkeypatch.setenv("PLANTED_SLEEP", "0.05")
    monkeypatch.chdir(tmp_path)
    space = tmp_path / "s.toml"
    space.write_text('kind = "balance"\nvariant = "czech"\nplayers = 4\nstrong = "weighted"\ntarget_pp = 8.0\n'
                     'first_decks = 250\nfinalists = 1\nsingle_changes = false\ntrace = ""\n'
                     '[space]\nsevens = [false, true]\neight_stop = [false, true]\n')
    res = CliRunner().invoke(app, ["balance", "--rule-space", str(space), "--jobs", "1", "--out", "b",
                                   *(["--quiet"] if quiet else [])])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("durak: balance round 0: ")]
    assert bool(lines) is not quiet, res.stderr
    assert all(" deals (" in ln and "deals/s" in ln for ln in lines)
