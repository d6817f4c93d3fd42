"""Every command takes tracker and pimc: both read the public history of the numpy simulator's views
(the executor routes them there); numbers depend on the seed, not --jobs.
"""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.execution.play import play

RUN = CliRunner()


def test_pimc_and_tracker_cells_give_the_same_tables_for_any_jobs() -> None:
    rules = make_rules("czech", 2)
    one, _ = play(rules, ["pimc?worlds=4", "tracker"], 24, seed=3, jobs=1, chunk=12)
    two, _ = play(rules, ["pimc?worlds=4", "tracker"], 24, seed=3, jobs=2, chunk=12)
    for name in ("positions", "totals", "hist"):
        pd.testing.assert_frame_equal(one[name], two[name], check_exact=True, check_dtype=False)
    assert one["totals"]["n"].sum() == 24


def test_durak_simulate_plays_pimc_and_matches_with_players_who_remember() -> None:
    res = RUN.invoke(app, ["simulate", "--variant", "svinya", "--strategies", "pimc?worlds=4;weighted",
                           "--deals", "10", "--json", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["strategies"] == ["pimc?worlds=4", "weighted"]
    res = RUN.invoke(app, ["simulate", "--variant", "czech", "--players", "2", "--strategies", "tracker;pimc?worlds=4,budget=200",
                           "--matches", "3", "-r", "target=30", "--json", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["unit"] == "match" and got["matches"] == 3 and got["deals"] >= 3, got
