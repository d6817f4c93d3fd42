"""A stored chunk is resumed only by the code that played it (analyzer/execution/code_tag.py).

A run's fingerprint names its experiment, not the analyzer's code: before chunks carried a code tag, a run
resumed after a built-in strategy changed summed the old code's chunks with the new code's into one number.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from analyzer.core.registry import get_strategy
from analyzer.execution import code_tag as ct
from analyzer.execution.runs import run_experiment
from analyzer.execution.store import ChunkStore, atomic_write


def test_imports_are_read_in_every_form(tmp_path: Path) -> None:
    src = tmp_path / "pkg" / "mod.py"
    src.parent.mkdir()
    src.write_text("import a.b, c as d\nfrom e import (f,\n    g as h,  # note\n)\nfrom . import sib\n"
                   "from .near import x\nfrom ..up import y\n\ndef late():\n    import inside.mod\n")
    _, named = ct._read(str(src), "top.pkg.mod", 0, 0)
    assert {"a.b", "c", "e", "e.f", "e.g", "top.pkg", "top.pkg.sib", "top.pkg.near", "top.pkg.near.x",
            "top.up", "top.up.y", "inside.mod"} <= set(named)


def test_a_strategys_tag_covers_its_module_what_it_imports_and_the_kernel() -> None:
    greedy = ct.play_tag([get_strategy("greedy")]).modules
    expert = ct.play_tag([get_strategy("expert")]).modules
    assert "strategies/greedy.py" in greedy and "strategies/expert.py" not in greedy
    assert {"strategies/expert.py", "strategies/pimc.py", "analyzer/kernel/endgame.py"} <= set(expert)
    assert {"analyzer/execution/executor.py", "analyzer/kernel/turn.py"} <= set(greedy)
    assert not any(m.startswith("analyzer/report/") for m in greedy | expert)  # drawing plays no chunk


def test_an_edit_anywhere_in_the_closure_changes_the_tag(tmp_path: Path) -> None:
    (tmp_path / "helper_tagged.py").write_text("K = 1\n")
    plug = tmp_path / "plug_tagged.py"
    plug.write_text("import helper_tagged\n")
    before = ct.code_tag(files=[plug])
    (tmp_path / "helper_tagged.py").write_text("K = 2\n")
    after = ct.code_tag(files=[plug])
    assert before.tag != after.tag
    assert ct.changed_files(before.modules, after.modules) == [str((tmp_path / "helper_tagged.py").resolve())]


PLUGIN = '''import {helper}


class Mine:
    name = "mine"

    def choose(self, view, rng):
        return {helper}.pick(view), None
'''
HELPER = '''from analyzer.core.cards import DRAW, TAKE


def pick(view):
    cards = [a for a in view.legal if a < DRAW]
    return min(cards) if cards else (TAKE if TAKE in view.legal else DRAW)
'''


def _plugin(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """A strategy loaded by module name (so no file of it is in the fingerprint) with a helper module it imports."""
    name = f"plug_{tmp.name.replace('-', '_')}"
    helper = tmp / f"{name}_helper.py"
    helper.write_text(HELPER)
    (tmp / f"{name}.py").write_text(PLUGIN.format(helper=helper.stem))
    monkeypatch.syspath_prepend(str(tmp))
    return name, helper


def _exp(tmp: Path, plugin: str) -> Path:
    p = tmp / "tagged.toml"
    p.write_text(f'name = "tagged"\nvariant = "czech"\nplayers = 2\nladder = ["{plugin}:Mine", "random"]\n'
                 "deals = 30\nchunk_size = 10\nreports = []\n")
    return p


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_a_cell_whose_strategy_code_changed_is_played_again_and_the_run_names_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    plugin, helper = _plugin(tmp_path, monkeypatch)
    out = tmp_path / "out"
    first = run_experiment(_exp(tmp_path, plugin), out=out, jobs=1, quiet=True, report=False)
    totals = (first / "results" / "totals.parquet").read_bytes()
    helper.write_text(HELPER.replace("min(cards)", "min(cards)  # the lowest card first"))
    capsys.readouterr()
    run_experiment(_exp(tmp_path, plugin), out=out, jobs=1, quiet=False, report=False)
    err = capsys.readouterr().err
    manifest = _manifest(out)
    assert manifest["chunks_replayed"] == 3 and manifest["chunks_resumed"] == 3  # the plugin's cell only
    assert f"3 stored chunks were played by other code (changed since: {helper.resolve()}): played again" in err
    assert (out / "results" / "totals.parquet").read_bytes() == totals  # a comment changes no number
    run_experiment(_exp(tmp_path, plugin), out=out, jobs=1, quiet=True, report=False)
    assert _manifest(out)["chunks_replayed"] == 0 and _manifest(out)["chunks_resumed"] == 6


def test_chunks_stored_without_a_code_tag_are_played_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    plugin, _ = _plugin(tmp_path, monkeypatch)
    out = tmp_path / "out"
    run_experiment(_exp(tmp_path, plugin), out=out, jobs=1, quiet=True, report=False)
    for chunk in (out / "chunks").glob("c*-k*.zip"):  # as an earlier version wrote them
        with zipfile.ZipFile(chunk) as zf:
            members = {n: zf.read(n) for n in zf.namelist()}
        meta = json.loads(members["meta.json"])
        del meta["code"]
        members["meta.json"] = json.dumps(meta).encode()
        with zipfile.ZipFile(chunk, "w") as zf:
            for n, data in members.items():
                zf.writestr(n, data)
    (out / "chunks" / "CODE.json").unlink()
    capsys.readouterr()
    run_experiment(_exp(tmp_path, plugin), out=out, jobs=1, quiet=False, report=False)
    assert _manifest(out)["chunks_replayed"] == 6
    assert "6 stored chunks were played by other code (which files changed is not on record)" in \
        capsys.readouterr().err


def test_a_store_reads_back_only_its_own_tag(tmp_path: Path) -> None:
    import pandas as pd
    tables = {"positions": pd.DataFrame({"x": [1.0]}), "totals": pd.DataFrame({"n": [5]}),
              "hist": pd.DataFrame({"h": [0]})}
    old, new = ct.CodeTag("a" * 64, {"m.py": "1"}), ct.CodeTag("b" * 64, {"m.py": "2"})
    other = ct.CodeTag("c" * 64, {"n.py": "1"})
    store = ChunkStore(tmp_path / "chunks", "f" * 64, {0: old, 1: other})
    store.open(fresh=False, record={})
    store.write(0, 0, 5, tables)
    store.write(1, 0, 5, tables)
    store.close()
    again = ChunkStore(tmp_path / "chunks", "f" * 64, {0: new, 1: other})
    again.open(fresh=False, record={})
    assert again.read(0, 0, 5) is None and again.read(1, 0, 5) is not None
    assert again.replayed == {(0, 0)} and again.changed == ["m.py"]
    assert again.replayed_line() == "1 stored chunk was played by other code (changed since: m.py): played again"
    again.close()
    atomic_write(tmp_path / "chunks" / "CODE.json", b"not json")  # a damaged record names nothing, refuses nothing
    third = ChunkStore(tmp_path / "chunks", "f" * 64, {0: new, 1: other})
    third.open(fresh=False, record={})
    assert third.read(0, 0, 5) is None and third.read(1, 0, 5) is not None and third.changed is None
    assert third.replayed_line() == ("1 stored chunk was played by other code (which files changed is not on "
                                     "record): played again")
    third.close()


def _edited(real):  # noqa: ANN001, ANN202
    """``play_tag`` as it would read after an edit of the kernel's turn."""
    def tag(*args, **kw):  # noqa: ANN002, ANN003, ANN202
        got = real(*args, **kw)
        modules = {**got.modules, "analyzer/kernel/turn.py": "0" * 64}
        return ct.CodeTag("e" * 64, modules)
    return tag


def test_a_tournament_resumed_under_other_code_plays_its_chunks_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import analyzer.execution.runs.tournament as tr
    from tests.helpers_experiments import design_experiment, parse
    exp = design_experiment(chunk_size=20)
    out = run_experiment(parse(exp), out=tmp_path / "tx", jobs=1, quiet=True, report=False)
    stored = len(list((out / "chunks").glob("c*-k*.zip")))
    monkeypatch.setattr(tr, "play_tag", _edited(tr.play_tag))
    capsys.readouterr()
    run_experiment(parse(exp), out=out, jobs=1, quiet=False, report=False)
    assert _manifest(out)["chunks_replayed"] == stored and _manifest(out)["chunks_resumed"] == 0
    assert (f"{stored} stored chunks were played by other code (changed since: analyzer/kernel/turn.py)"
            in capsys.readouterr().err)


def test_a_balance_space_resumed_under_other_code_plays_its_tasks_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.execution.runs.balance as bal
    from analyzer.execution.balance_space import parse_space
    from tests.execution.test_balance_explorer import PLANTED, SPACE
    space = parse_space({**SPACE, "space": {"sevens": [False, True], "eight_stop": [False, True]}})
    out = tmp_path / "b"
    bal.run_balance(space, out, jobs=1, simulator=PLANTED, report=False)
    stored = len(list((out / "chunks").glob("c*-k*.zip")))
    assert "tests/planted_sim.py" in json.loads((out / "chunks" / "CODE.json").read_text())["modules"]
    monkeypatch.setattr(bal, "play_tag", _edited(bal.play_tag))
    lines: list[str] = []
    bal.explore_balance(space, out, jobs=1, simulator=PLANTED, report=False, on_round=lines.append)
    assert _manifest(out)["chunks_replayed"] == stored and _manifest(out)["chunks_resumed"] == 0
    assert any(line.startswith(f"{stored} stored chunks were played by other code") for line in lines)
