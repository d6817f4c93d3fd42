"""Deals per cell by variant and player count (experiment key ``cell_deals``): where one group's rate varies more
(prague 2p's first player in the skill ladder), its cells play more deals and the rest keep ``deals``.  A chunk's
seed is keyed on the cell's content and the chunk's index, never on the cell's size, so the bigger cell's first
chunks are the smaller one's and a run with more deals resumes from a smaller run's chunks."""

from __future__ import annotations

import json

import pytest

from analyzer.execution import executor
from analyzer.execution.experiment import ExperimentError, parse_experiment
from analyzer.execution.runs import run_experiment
from analyzer.execution.runs.cells import fingerprint
from tests.helpers_experiments import parse

BASE = """
name = "cd"
variants = ["czech", "prague"]
players = [2, 4]
ladder = ["random"]
deals = 200
chunk_size = 100
seed = 3
hand_rotations = 2
"""


def _sizes(extra: str) -> dict[str, int]:
    return {c.label: c.n for c in parse(BASE + extra).cells}


def test_a_variant_or_a_variant_at_a_player_count_gets_its_own_deals_the_more_specific_first() -> None:
    got = _sizes('cell_deals = { prague = 300, "prague 2p" = 400 }\n')
    assert got == {"czech 2p": 400, "czech 4p": 400, "prague 2p": 800, "prague 4p": 600}  # decks x 2 rotations
    assert _sizes('cell_deals = { "czech 4p" = 500 }\n') == {"czech 2p": 400, "czech 4p": 1000, "prague 2p": 400,
                                                             "prague 4p": 400}


def test_a_deals_override_sets_every_cell() -> None:
    exp = parse(BASE + 'cell_deals = { prague = 300 }\n').with_count(100)
    assert {c.n for c in exp.cells} == {200}
    assert "cell_deals" not in exp.to_dict()


def test_the_experiment_round_trips_with_its_cell_deals() -> None:
    exp = parse(BASE + 'cell_deals = { prague = 300, "czech 2p" = 500 }\n')
    d = exp.to_dict()
    assert d["cell_deals"] == {"prague": 300, "czech 2p": 500}
    again = parse_experiment({k: v for k, v in d.items() if k not in ("source", "cells")})
    assert [c.n for c in again.cells] == [c.n for c in exp.cells]


def test_more_deals_keep_the_chunk_seeds_and_the_fingerprint() -> None:
    """The bigger cell's chunk k is the smaller one's chunk k: same seed, same fingerprint (a resume reuses them)."""
    small, big = parse(BASE), parse(BASE + 'cell_deals = { "prague 2p" = 300 }\n')
    assert fingerprint(small)[0] == fingerprint(big)[0]
    cell_s = next(c for c in small.cells if c.label == "prague 2p")
    cell_b = next(c for c in big.cells if c.label == "prague 2p")
    assert len(cell_b.chunks()) == len(cell_s.chunks()) + 1
    for k in range(len(cell_s.chunks())):
        assert executor.cell_seed(3, cell_s, k).spawn_key == executor.cell_seed(3, cell_b, k).spawn_key


def test_a_run_with_cell_deals_plays_them_and_resumes_a_smaller_runs_chunks(tmp_path) -> None:
    """Run the small experiment, then the one with prague 2p at 300 decks into the same folder: only the new
    chunk is played, the prague 2p cell counts 300 decks, and the report says which cells got more."""
    (tmp_path / "small.toml").write_text(BASE)
    (tmp_path / "big.toml").write_text(BASE + 'cell_deals = { "prague 2p" = 300 }\nreports = ["first_player"]\n')
    out = tmp_path / "out"
    run_experiment(tmp_path / "small.toml", out=out, jobs=1, quiet=True, report=False)
    run_experiment(tmp_path / "big.toml", out=out, jobs=1, quiet=True)
    import json

    import pandas as pd

    m = json.loads((out / "manifest.json").read_text())
    assert (m["chunks"], m["chunks_resumed"]) == (9, 8)
    totals = pd.read_parquet(out / "results" / "totals.parquet").set_index("cell")
    cells = pd.read_parquet(out / "results" / "cells.parquet").set_index("cell")
    n = {cells.loc[c, "label"]: int(totals.loc[c, "n"]) for c in cells.index}
    assert n == {"czech 2p": 400, "czech 4p": 400, "prague 2p": 600, "prague 4p": 400}
    assert "but prague 2p 300 (the experiment's cell_deals)" in (out / "report.md").read_text()


@pytest.mark.parametrize(("value", "words"), [
    ('{ svinya = 100 }', "names no variant of this experiment"),
    ('{ "prague 3p" = 100 }', "not played at 3 players in this experiment"),
    ('{ "prague two" = 100 }', "names no variant"),
    ('{ prague = 0 }', "positive integer"),
    ('{ prague = true }', "positive integer"),
    ('5', "must be a table"),
    ('{}', "must be a table"),
])
def test_bad_cell_deals_are_one_line_naming_the_key(value: str, words: str) -> None:
    with pytest.raises(ExperimentError) as e:
        parse(BASE + f"cell_deals = {value}\n")
    msg = str(e.value)
    assert "cell_deals" in msg and words in msg and "\n" not in msg


def test_cell_deals_belong_to_single_deals() -> None:
    with pytest.raises(ExperimentError, match="cell_deals.*give deals = N as well"):
        parse_experiment({"name": "m", "variant": "czech", "players": 2, "matches": 10,
                          "rules": {"target": 30}, "cell_deals": {"czech": 20}})


def test_a_tournament_of_a_variant_plays_its_cell_deals_every_line_up_on_the_same_decks(tmp_path) -> None:
    """In an experiment of tournaments ``cell_deals`` sets one variant's decks (a costly game fewer, say); each
    tournament's pairs still share their decks, and the tournament without an entry keeps ``deals``."""
    exp = tmp_path / "t.toml"
    exp.write_text('name = "t"\nvariants = ["czech", "svinya"]\nplayers = [2]\ndesign = "round-robin"\n'
                   'field = ["random", "greedy", "weighted"]\ndeals = 40\nchunk_size = 20\n'
                   'cell_deals = { svinya = 20 }\n')
    folder = run_experiment(exp, out=tmp_path / "out", jobs=1, quiet=True)
    got = {t["variant"]: t for t in json.loads((folder / "results" / "tournaments.json").read_text())}
    assert got["czech"]["n_decks"] == 40 and got["svinya"]["n_decks"] == 20
    assert got["svinya"]["deals_played"] == 20 * 6 and all(p["n_decks"] == 20 for p in got["svinya"]["pairs"])
