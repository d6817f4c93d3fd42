"""The Python API: tidy frames, the README's notebook example, lazy import."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import analyzer
from analyzer.api import wilds_dealt
from analyzer.cli.app import app
from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import deal_hands

ROOT = Path(__file__).resolve().parents[2]


def test_readme_notebook_example_runs(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "README has no python example in its Python API section"
    monkeypatch.chdir(ROOT)
    exec(compile(code.group(1), "README.md", "exec"), {"__name__": "readme"})  # noqa: S102 - our own README
    out = capsys.readouterr().out
    assert "greedy" in out and "verdict" in out and "wilds_dealt" in out and "czech 2p" in out


def test_simulate_is_tidy_and_equals_the_command() -> None:
    df = analyzer.simulate("greedy random", variant="prague", players=3, deals=2_000, seed=4)
    assert list(df.columns) == ["cell", "label", "variant", "players", "unit", "rules", "position", "strategy",
                                "metric", "rate", "lo", "hi", "n"]
    assert df.dtypes["rate"] == np.float64 and df.dtypes["lo"] == np.float64 and df.dtypes["n"] == np.int64
    assert set(df["metric"]) == {"win", "loss", "wild_held", "mean_points"} and len(df) == 4 * 3
    assert ((df["lo"] <= df["rate"]) & (df["rate"] <= df["hi"])).all()
    res = CliRunner().invoke(app, ["simulate", "--variant", "prague", "--players", "3", "--strategies",
                                   "greedy random", "--deals", "2000", "--seed", "4", "--json", "--jobs", "1"])
    printed = json.loads(res.stdout)
    wins = df[df.metric == "win"].sort_values("position")
    assert wins["rate"].round(6).tolist() == printed["win_rate"]
    assert wins["strategy"].tolist() == printed["strategies"] == ["greedy", "random", "greedy"]


def test_compare_is_tidy_with_pairs() -> None:
    df = analyzer.compare("greedy;random", variant="czech", players=2, deals=300, seed=2)
    assert set(df["metric"]) == {"win", "loss", "mean_points"} and set(df["strategy"]) == {"greedy", "random"}
    assert df.dtypes["n"] == np.int64 and (df["n"] == 600).all()
    pairs = df.attrs["pairs"]
    assert list(pairs[["a", "b"]].iloc[0]) == ["greedy", "random"]


def test_deals_export_rows_and_wilds() -> None:
    d = analyzer.deals(["greedy", "random"], variant="czech", players=3, n=200, seed=1)
    assert len(d) == 600 and list(d["position"][:3]) == [0, 1, 2]
    per_deal = d.groupby("deal")
    assert (per_deal["winner"].sum() <= 1).all() and (per_deal["loser"].sum() <= 1).all()
    assert (per_deal["wilds_dealt"].sum() <= 4).all() and d["wilds_dealt"].sum() > 0
    assert d.dtypes["points"] == np.int64 and d.dtypes["wild_held"] == np.bool_
    assert d[d.winner]["points"].eq(0).mean() > 0.9  # the winner went out, most of the time
    assert d.dtypes["cards_left"] == np.int64 and (d[d.wild_held]["cards_left"] >= 1).all()
    assert (d[d.winner & (d.end == "out")]["cards_left"] == 0).all()


@pytest.mark.parametrize("variant, players", [("czech", 4), ("prague", 3), ("svinya", 2)])
def test_wilds_dealt_follow_deal_hands(variant: str, players: int) -> None:
    """G10a/PR2/SV2: counted as the engine deals (position p = seat p + 1; prague's lead is not held)."""
    rules = make_rules(variant, players)
    decks = shuffled_decks(rules.deck_size, 30, np.random.default_rng(5))
    got = wilds_dealt(decks, rules)
    for i, deck in enumerate(decks):
        hands, _, _ = deal_hands(deck.tolist(), rules)
        want = [sum(c // 4 + 2 == rules.wild_rank for c in hands[(p + 1) % players]) for p in range(players)]
        assert got[i].tolist() == want


def test_importing_the_engine_or_rules_never_imports_pandas() -> None:
    code = ("import sys, analyzer, analyzer.engine, analyzer.engine.deal, analyzer.core.rules; "
            "print(sorted(m for m in ('pandas', 'analyzer.api', 'analyzer.kernel.serve') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_run_returns_one_block_per_cell(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    f.write_text('variant = "czech"\nplayers = [2, 3]\ndeals = 500\n[grid]\nsevens = [false, true]\n')
    df = analyzer.run(f, out=tmp_path / "o")
    assert sorted(set(df["cell"])) == [0, 1, 2, 3]
    assert set(df[df.cell == 1]["rules"]) == {"sevens=on"} and set(df[df.cell == 0]["rules"]) == {"default rules"}
    assert isinstance(df, pd.DataFrame) and df.dtypes["rate"] == np.float64
