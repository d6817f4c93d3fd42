"""What each command passes on: the exact RuleSet and line-up, without simulating.

The executor entry points are patched (fastapi-cli style), so these tests
check parsing and validation alone: variant-fitting defaults, cycling,
parameters inside a spec, one-line errors.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import analyzer.execution.executor as executor_mod
import analyzer.execution.runs.compare as compare_run
from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.experiment import Cell

RUN = CliRunner()


class _Stop(Exception):
    """Raised by the fake executor once it has seen its arguments."""


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    got: dict[str, Any] = {}

    def fake_simulate_cells(cells: list[Cell], **kw: Any) -> Any:
        (got["cell"],), got["kw"] = cells, kw
        raise _Stop

    def fake_compare(rules: Any, specs: Any, n: int, **kw: Any) -> Any:
        got["rules"], got["specs"], got["n"], got["kw"] = rules, list(specs), n, kw
        raise _Stop

    monkeypatch.setattr(executor_mod, "simulate_cells", fake_simulate_cells)
    monkeypatch.setattr(compare_run, "run_compare", fake_compare)
    return got


def _invoke(*args: str) -> Any:
    return RUN.invoke(app, list(args))


@pytest.mark.parametrize("args, rules, specs", [
    ([], make_rules("czech", 4), ("random",) * 4),
    (["--variant", "svinya"], make_rules("svinya", 2), ("random", "random")),  # SV1: defaults fit the variant
    (["--variant", "prague", "--players", "3", "--strategies", "greedy"], make_rules("prague", 3), ("greedy",) * 3),
    (["--strategies", "weighted?w_points=1.5,w_wild=-2,random,random,random"], make_rules("czech", 4),
     ("weighted?w_points=1.5,w_wild=-2", "random", "random", "random")),
    (["--strategies", "greedy,random", "--rule", "sevens=on", "-r", "seven_chain=accumulate"],
     make_rules("czech", 4, {"sevens": True, "seven_chain": "accumulate"}), ("greedy", "random") * 2),
])
def test_simulate_passes_on_the_rules_and_lineup(seen: dict[str, Any], args: list[str], rules: Any,
                                                 specs: tuple[str, ...]) -> None:
    res = _invoke("simulate", *args, "--deals", "10")
    assert isinstance(res.exception, _Stop), res.output
    cell = seen["cell"]
    assert cell.rules == rules and cell.lineup == specs
    assert (cell.unit, cell.n, cell.chunk_size) == ("deal", 10, 50_000)


def test_simulate_matches_cell(seen: dict[str, Any]) -> None:
    res = _invoke("simulate", "--variant", "svinya", "--matches", "7", "--strategies", "greedy random")
    assert isinstance(res.exception, _Stop), res.output
    assert seen["cell"].unit == "match" and seen["cell"].n == 7 and seen["cell"].rules.target == 100


@pytest.mark.parametrize("args, culprit", [
    (["--variant", "prague", "--matches", "5"], "no match target"),
    (["--players", "2", "--strategies", "greedy,random,random"], "3 strategies for 2 players"),
    (["--strategies", "random,w_wild=1"], "follows no 'name?' spec"),
    (["--variant", "svinya", "--players", "4"], "svinya is played by 2 players"),
    (["--rule", "sevens=maybe"], "bad value 'maybe' for rule 'sevens'"),
    (["--strategies", "nosuch"], "unknown strategy 'nosuch'"),
])
def test_simulate_bad_input_is_one_line_and_exit_2(seen: dict[str, Any], args: list[str], culprit: str) -> None:
    res = _invoke("simulate", *args)
    assert res.exit_code == 2, res.output
    assert "cell" not in seen
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and culprit in lines[0], res.stderr


def test_compare_passes_on_rules_and_specs(seen: dict[str, Any]) -> None:
    res = _invoke("compare", "greedy", "weighted?w_points=2,w_wild=-1", "--variant", "svinya", "--rule",
                  "hand_size=6", "--deals", "40", "--seed", "3")
    assert isinstance(res.exception, _Stop), res.output
    assert seen["rules"] == make_rules("svinya", 2, {"hand_size": 6})
    assert seen["specs"] == ["greedy", "weighted?w_points=2,w_wild=-1"] and seen["n"] == 40
    assert seen["kw"]["seed"] == 3 and seen["kw"]["matches"] is False


def test_rules_command_defaults_fit_the_variant() -> None:
    res = _invoke("rules", "svinya")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0].startswith("svinya 2p")
    assert "voluntary_draw       on" in res.stdout  # on/off, never True/False


def test_version() -> None:
    from analyzer import __version__

    res = _invoke("--version")
    assert res.exit_code == 0 and res.stdout.strip() == f"durak {__version__}"


def test_strategies_lists_parameters() -> None:
    res = _invoke("strategies")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("weighted "))
    assert "parameters:" in lines[i + 1] and "w_points=1.0" in lines[i + 1] and "w_wild=" in lines[i + 1]


def test_run_uses_the_plugin_name_in_tables(tmp_path: Any) -> None:
    """A plugin's ``name`` heads its rows, not its file path."""
    from pathlib import Path

    from analyzer.execution.runs import run_experiment

    plugin = Path(__file__).resolve().parents[1] / "plugin_example.py"
    f = tmp_path / "p.toml"
    f.write_text(f'variant = "czech"\nplayers = 2\nlineup = ["{plugin}:HighestCard", "random"]\ndeals = 200\n')
    out = run_experiment(f, out=tmp_path / "o", jobs=1, quiet=True, report=False)
    pos = pd.read_parquet(out / "results" / "positions.parquet")
    assert list(pos["strategy"]) == ["highest-card", "random"]


@pytest.mark.parametrize("args, label", [
    (["simulate", "--variant", "svinya", "--deals", "300", "--jobs", "1", "--json"], "simulate"),
    (["compare", "greedy", "random", "--players", "2", "--deals", "50", "--jobs", "1", "--json"], "compare"),
])
def test_progress_bar_on_a_terminal(args: list[str], label: str) -> None:
    """simulate, compare (and bench) draw a progress bar when stderr is a terminal."""
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    master, slave = pty.openpty()
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "120", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", *args], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    while True:  # read while it runs: a full terminal buffer would block its progress bar (and so the run)
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the command has exited and closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.stdout is not None
    proc.stdout.read()
    proc.wait(timeout=300)
    assert proc.returncode == 0
    text = seen.decode(errors="replace")
    assert label in text and "/s" in text, text[-500:]
