"""Design experiments (tournaments) resume chunk by chunk from the run's chunk store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import analyzer.execution.runs.tournament as tr
from analyzer.execution.runs import run_experiment
from analyzer.execution.store import ResumeError
from tests.helpers_experiments import design_experiment, parse

EXP = design_experiment(chunk_size=20)


def _numbers(folder: Path) -> list[dict[str, Any]]:
    """Every number of results/tournaments.json but the wall-clock time."""
    res = json.loads((folder / "results" / "tournaments.json").read_text())
    return [{k: v for k, v in r.items() if k != "seconds"} for r in res]


def _interrupt_after(monkeypatch: pytest.MonkeyPatch, chunks: int) -> None:
    """The executor dies after ``chunks`` chunks have finished (a crash or Ctrl-C mid-run)."""
    real = tr._job
    done: list[tuple[Any, ...]] = []

    def job(*args: Any) -> Any:
        if len(done) == chunks:
            raise KeyboardInterrupt
        done.append(args)
        return real(*args)

    monkeypatch.setattr(tr, "_job", job)


def test_an_interrupted_tournament_experiment_resumes_with_the_numbers_of_a_straight_run(tmp_path, monkeypatch) -> None:
    straight = run_experiment(parse(EXP), out=tmp_path / "straight", jobs=1, quiet=True, report=False)
    with monkeypatch.context() as m:
        _interrupt_after(m, 4)  # 3 chunks of the round-robin, 1 of the hero tournament
        with pytest.raises(KeyboardInterrupt):
            run_experiment(parse(EXP), out=tmp_path / "cut", jobs=1, quiet=True, report=False)
    assert len(list((tmp_path / "cut" / "chunks").glob("c*-k*.zip"))) == 4
    assert not (tmp_path / "cut" / "results" / "tournaments.json").exists()
    played: list[tuple[Any, ...]] = []
    real = tr._job

    def job(*args: Any) -> Any:
        played.append(args[3:5])  # (seed, chunk) of each chunk played
        return real(*args)

    monkeypatch.setattr(tr, "_job", job)
    resumed = run_experiment(parse(EXP), out=tmp_path / "cut", jobs=1, quiet=True, report=False)
    assert played == [(1, 1), (1, 2)]  # only the hero tournament's two missing chunks
    manifest = json.loads((resumed / "manifest.json").read_text())
    assert manifest["chunks_resumed"] == 4 and manifest["deals_this_run"] == 2 * 20 * 9  # 9 hero tables
    assert _numbers(resumed) == _numbers(straight)
    again = run_experiment(parse(EXP), out=tmp_path / "cut", jobs=1, quiet=True, report=False)
    assert json.loads((again / "manifest.json").read_text())["chunks_resumed"] == 6 and len(played) == 2


def test_fresh_replays_every_chunk_and_a_changed_experiment_is_refused(tmp_path) -> None:
    out = tmp_path / "tx"
    first = _numbers(run_experiment(parse(EXP), out=out, jobs=1, quiet=True, report=False))
    run_experiment(parse(EXP), out=out, jobs=1, quiet=True, report=False, fresh=True)
    assert json.loads((out / "manifest.json").read_text())["chunks_resumed"] == 0 and _numbers(out) == first
    with pytest.raises(ResumeError, match="experiment changed") as e:
        run_experiment(parse(design_experiment(chunk_size=20, reference="weighted")), out=out, jobs=1,
                       quiet=True, report=False)
    assert "--fresh" in str(e.value) and "\n" not in str(e.value)
    changed = run_experiment(parse(design_experiment(chunk_size=20, reference="weighted")), out=out, jobs=1,
                             quiet=True, report=False, fresh=True)
    assert _numbers(changed)[1]["field"] == ["weighted", "weighted"]


def test_more_deals_reuse_the_finished_chunks(tmp_path) -> None:
    out = tmp_path / "tx"
    run_experiment(parse(EXP), out=out, jobs=1, quiet=True, report=False)
    run_experiment(parse(EXP), out=out, jobs=1, quiet=True, report=False, deals=80)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["chunks_resumed"] == 6 and manifest["deals_this_run"] == 20 * (6 + 9)  # one chunk of 6 and of 9 tables
    assert _numbers(out) == _numbers(run_experiment(parse(EXP), out=tmp_path / "straight", jobs=1, quiet=True,
                                                    report=False, deals=80))


def test_a_stopping_tournament_resumes_to_the_same_stop(tmp_path, monkeypatch) -> None:
    text = design_experiment(players=[2], deals=20000, chunk_size=20, until_ci=5)
    monkeypatch.setattr(tr, "SEQ_CHUNK", 200)
    straight = run_experiment(parse(text), out=tmp_path / "straight", jobs=1, quiet=True, report=False)
    stop = _numbers(straight)[0]["stopping"]
    assert stop["stopped"] and stop["chunks"] > 2
    with monkeypatch.context() as m:
        _interrupt_after(m, 2)
        with pytest.raises(KeyboardInterrupt):
            run_experiment(parse(text), out=tmp_path / "cut", jobs=1, quiet=True, report=False)
    resumed = run_experiment(parse(text), out=tmp_path / "cut", jobs=1, quiet=True, report=False)
    assert json.loads((resumed / "manifest.json").read_text())["chunks_resumed"] == 2
    assert _numbers(resumed) == _numbers(straight)
    tighter = run_experiment(parse(text.replace("until_ci = 5", "until_ci = 4")), out=tmp_path / "cut", jobs=1,
                             quiet=True, report=False)  # a narrower target goes on from the chunks played
    assert json.loads((tighter / "manifest.json").read_text())["chunks_resumed"] == stop["chunks"]
    assert _numbers(tighter)[0]["stopping"]["chunks"] > stop["chunks"]
