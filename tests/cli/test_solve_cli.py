"""``durak solve``: what it hands the solver, what it prints and writes, and its one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analyzer.cli import app as cli_app
from analyzer.execution.runs import solve as solve_kind
from analyzer.report.kinds import folder_kind
from analyzer.report.solve_view import markdown

FAKE: dict[str, Any] = {
    "variant": "czech", "deck": 8, "hand": 2, "research_size": True, "cards": "11 14", "turn_cap": 12,
    "exploitability": 0.0004, "first_mover_value": 0.45, "iterations": 50, "nodes": 10, "information_sets": 3,
    "build_seconds": 1.0, "solve_seconds": 0.1, "capped_share": 0.01, "trace": [(50, 0.0004)],
    "wild_effect": {"position 0": {"0 wilds": -0.5, "share dealt 0": 1.0},
                    "position 1": {"0 wilds": 0.5, "share dealt 0": 1.0}},
    "strategies": {"greedy": {"exploitability": 0.12, "loss": 0.11, "samples": 1}}, "not_measured": ["pimc"],
}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []

    def fake(variant: str, deck: int, hand: int, **kw: Any) -> dict[str, Any]:
        got.append({"variant": variant, "deck": deck, "hand": hand, **kw})
        return FAKE

    monkeypatch.setattr(solve_kind, "solve_size", fake)
    return got


def test_solve_passes_the_size_and_strategies_and_prints_the_json_keys(calls: list[dict[str, Any]],
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    cli_app.main(["solve", "--variant", "prague", "--deck", "12", "--hand", "3", "--strategies", "greedy,random",
                  "--json"])
    (call,) = calls
    assert (call["variant"], call["deck"], call["hand"], call["strategies"]) == ("prague", 12, 3, ["greedy", "random"])
    out = json.loads(capsys.readouterr().out)
    assert {"exploitability", "first_mover_value", "strategies"} <= set(out)
    assert out["strategies"]["greedy"] == {"exploitability": 0.12, "loss": 0.11, "samples": 1}


def test_solve_writes_the_report_folder(calls: list[dict[str, Any]], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A run folder like every kind's: the numbers, the page, a manifest naming the kind and the command; and
    ``durak report`` draws the page again from the numbers."""
    out = tmp_path / "r"
    cli_app.main(["solve", "--deck", "8", "--hand", "2", "--rule", "turn_cap=4", "--out", str(out)])
    assert json.loads((out / "solve.json").read_text())["first_mover_value"] == 0.45
    page = (out / "solve.md").read_text()
    assert page == markdown(FAKE)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "solve" and folder_kind(out) == "solve"
    assert manifest["command"].startswith("durak solve --variant czech --deck 8 --hand 2 --rule turn_cap=4 ")
    (out / "solve.md").unlink()
    cli_app.main(["report", str(out)])
    assert (out / "solve.md").read_text() == page
    assert "solve.md" in capsys.readouterr().out


def test_a_bad_out_is_refused_before_any_solving(calls: list[dict[str, Any]], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as exc:
        cli_app.main(["solve", "--out", str(tmp_path / "file" / "r")])
    assert exc.value.code != 0 and calls == [] and "file" in capsys.readouterr().err


@pytest.mark.parametrize("args,culprit", [
    (["--variant", "tarot"], "tarot"),
    (["--deck", "10"], "10"),
    (["--deck", "8", "--hand", "4"], "too small"),
    (["--target", "2"], "--target"),
])
def test_solve_refuses_bad_input_in_one_line(args: list[str], culprit: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli_app.main(["solve", *args])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and culprit in err and len(err.strip().splitlines()) == 1


def test_the_report_page_states_it_is_a_research_size_and_lists_every_strategy() -> None:
    page = markdown(FAKE)
    assert "research size, not a RULES.md game" in page and "| `greedy` | 0.1200 | +0.1100 |" in page


def test_summary_tabulates_every_solved_size_of_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sampled = {**FAKE, "variant": "prague", "rules": {"turn_cap": 4},
               "strategies": {"pimc": {"exploitability": 0.02, "loss": 0.01, "samples": 1, "draws": 3,
                                       "loss_interval": [0.005, 0.015], "exploitability_lower": 0.012,
                                       "exploitability_interval": [-0.01, 0.03]}}}
    for name, res in (("a", FAKE), ("b", sampled)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "solve.json").write_text(json.dumps(res))
    cli_app.main(["solve", "--summary", str(tmp_path)])
    page = (tmp_path / "README.md").read_text()
    assert "| czech 8x2 | prague 8x2 (turn_cap=4) |" in page.replace("| strategy ", "")
    assert "| `greedy` | 0.1200 / +0.1100 |  |" in page
    assert "0.0120 to 0.0200 [0.0000, 0.0300] / +0.0100 [+0.0050, +0.0150]" in page


def test_summary_of_a_folder_without_solved_sizes_is_refused_in_one_line(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli_app.main(["solve", "--summary", str(tmp_path)])
    err = capsys.readouterr().err
    assert exc.value.code != 0 and "--summary" in err and len(err.strip().splitlines()) == 1


def test_a_size_too_large_to_build_is_refused_in_one_line_before_building(capsys: pytest.CaptureFixture[str],
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """czech 12x2 reads about 1e9 nodes: the builder (~7,000 nodes a second, ~750 bytes each) ran for hours in
    silence until the memory ran out.  Now the estimate refuses it before any node is built."""
    from analyzer.exact import run as exact_run

    monkeypatch.setattr(exact_run, "build", lambda *a, **k: pytest.fail("built a tree past the limit"))
    with pytest.raises(SystemExit) as e:
        cli_app.main(["solve", "--variant", "czech", "--deck", "12", "--hand", "2"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "czech 12x2" in err and "--max-nodes 10,000,000" in err and "GiB" in err


def test_the_cli_node_limit_is_the_solvers() -> None:
    import inspect

    from analyzer.exact.run import MAX_NODES
    assert inspect.signature(cli_app.solve).parameters["max_nodes"].default == MAX_NODES
