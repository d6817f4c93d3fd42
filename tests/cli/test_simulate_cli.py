"""``durak simulate``: the JSON object and the human table.

Every rate comes with its 95% interval (DEVELOPERS.md: statistics are the
product), the numbers depend on the seed and not on --jobs.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app

RUN = CliRunner()


def _json(*args: str) -> dict:
    res = RUN.invoke(app, ["simulate", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_json_holds_every_field_of_the_issue_with_intervals() -> None:
    out = _json("--variant", "czech", "--players", "4", "--strategies", "greedy,random,random,random",
                "--deals", "3000", "--seed", "7", "--jobs", "1")
    for key in ("deals", "win_rate", "win_ci", "loser_rate", "loser_ci", "mean_points", "mean_points_ci",
                "wild_held_rate", "wild_held_ci", "mean_turns", "mean_turns_ci", "blocked", "capped",
                "deals_per_second"):
        assert key in out, key
    assert out["deals"] == 3000 and out["strategies"] == ["greedy", "random", "random", "random"]
    for rate, ci in (("win_rate", "win_ci"), ("loser_rate", "loser_ci"), ("wild_held_rate", "wild_held_ci"),
                     ("mean_points", "mean_points_ci")):
        assert len(out[rate]) == len(out[ci]) == 4
        for r, (lo, hi) in zip(out[rate], out[ci]):
            assert lo <= r <= hi, (rate, r, lo, hi)
    # one winner and one loser per deal that is neither capped nor blocked
    played = (out["deals"] - out["capped"]) / out["deals"]
    assert sum(out["win_rate"]) == pytest.approx(played, abs=1e-5)
    assert sum(out["loser_rate"]) == pytest.approx(played, abs=1e-5)
    lo, hi = out["mean_turns_ci"]
    assert lo <= out["mean_turns"] <= hi and out["deals_per_second"] > 0
    # greedy is much better than random in czech 4p (a check that positions follow --strategies)
    assert out["win_rate"][0] > max(out["win_rate"][1:])


def test_seed_decides_the_numbers_not_jobs() -> None:
    args = ("--variant", "prague", "--players", "3", "--deals", "4000", "--seed", "11")
    a, b = _json(*args, "--jobs", "1"), _json(*args, "--jobs", "2")
    c = _json("--variant", "prague", "--players", "3", "--deals", "4000", "--seed", "12", "--jobs", "1")
    for out in (a, b, c):
        out.pop("deals_per_second")
    assert a == b
    assert a["win_rate"] != c["win_rate"]


def test_matches_report_match_rates() -> None:
    out = _json("--variant", "svinya", "--players", "2", "--strategies", "greedy,random", "--matches", "300",
                "--seed", "3", "--jobs", "1")
    assert out["unit"] == "match" and out["matches"] == 300
    assert sum(out["win_rate"]) == pytest.approx(1.0, abs=1e-5)  # SV7: one winner per match (ties share)
    assert out["mean_deals_per_match"] >= 1 and out["deals"] >= 300


def test_human_table_shows_an_interval_for_every_rate() -> None:
    res = RUN.invoke(app, ["simulate", "--variant", "svinya", "--players", "2", "--strategies", "greedy,random",
                           "--matches", "200", "--jobs", "1"], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    assert "200 matches" in res.stdout and "matchs" not in res.stdout
    rows = [line for line in res.stdout.splitlines() if re.search(r"\b(greedy|random)\b", line)]
    assert len(rows) == 2
    for line in rows:  # win, loser, points and wild-held columns each carry [lo, hi]
        assert len(re.findall(r"\[\s*-?[\d.]+, -?[\d.]+\]", line)) == 4, line
