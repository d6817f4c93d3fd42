"""The rule-balance explorer: the space, the search, resuming, Dask, the report and bad input.

The search's own tests run on ``tests.planted_sim``, a stand-in whose fairest
rule set is planted (``sevens`` and ``eight_stop`` on: no first-player edge,
every other rule set +8 points), so whether the explorer finds it, and at what
cost against a full grid run by the same machinery, is a known answer.  One
small run plays real deals on the compiled kernel.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analyzer.core.rules import make_rules
from analyzer.execution.balance_space import default_space, parse_space
from analyzer.execution.balance_tables import chunk_streams
from analyzer.execution.runs.balance import run_balance
from analyzer.execution.store import ResumeError
from analyzer.report.balance_view import recommendations
from analyzer.stats.balance import main_effects, pareto_ranks
from tests.cli.test_bad_input import assert_user_error, invoke

ROOT = Path(__file__).resolve().parents[2]
PLANTED = "tests.planted_sim"
#: 64 rule sets, one of them (sevens and eight_stop on, the rest default) planted fairest
SPACE: dict[str, Any] = {
    "variant": "czech", "players": 4, "strong": "weighted", "opponents": ["random"], "seed": 3,
    "first_decks": 250, "chunk_decks": 250, "eta": 4, "finalists": 2, "target_pp": 1.0, "max_decks": 12_000,
    "single_changes": False, "trace": "random",
    "space": {"sevens": [False, True], "eight_stop": [False, True], "queen_needs_king": [False, True],
              "hand_size": [5, 6], "reshuffle": ["turn_over", "shuffle"], "serve_last_effect": [False, True]},
}


def _numbers(folder: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every number of a run but the clock: the arms table and balance.json."""
    arms = pd.read_parquet(folder / "results" / "arms.parquet")
    info = json.loads((folder / "results" / "balance.json").read_text())
    return arms, info


def _fairest(arms: pd.DataFrame) -> str:
    return next(str(r["rules"]) for why, r in recommendations(arms) if "the fairest" in why.split(" and "))


# ---------------------------------------------------------------- the space


def test_default_czech_space_is_every_option_that_can_change_a_single_deal() -> None:
    space, left = default_space("czech", 4)
    assert space["hand_size"] == (5, 6, 7)  # CZ8: hand_size 6 or 7
    assert space["deck_size"] == (32, 36, 48, 52)  # G1
    assert space["wild_rule"] == ("match", "deal")  # CZ7 acts on a match's last deal: "off" plays a deal alike
    assert set(left) == {"jack_finish_doubles", "last_card_call", "forget_rate", "target", "turn_cap"}
    sp = parse_space({"variant": "czech", "players": 4})
    # 4 decks x 3 hands x 3 sevens settings (off; on with transfer or accumulate) x 2^9 switches: seven_chain folds
    assert len(sp.arms) == 4 * 3 * 3 * 2 ** 9
    assert sp.arms[sp.reference].label == "default rules"
    assert len({a.label for a in sp.arms}) == len(sp.arms)
    assert sp.strong == "weighted?preset=czech-4p" and sp.opponents == ("random",)


def test_prague_space_keeps_its_36_card_deck_pr1() -> None:
    space, left = default_space("prague", 4)
    assert "deck_size" not in space and "PR1" in left["deck_size"]
    assert space["wild_rule"] == ("deal", "off")  # PR7 against the forgiving rule
    assert len(parse_space({"variant": "prague", "players": 4}).arms) == 3 * 2 ** 7


def test_shared_decks_depend_on_the_deck_size_only() -> None:
    a, b = make_rules("czech", 4), make_rules("czech", 4, {"sevens": True, "hand_size": 6})
    c = make_rules("czech", 4, {"deck_size": 36})
    key = [tuple(s.generate_state(2)) for s in chunk_streams(0, a, 5)]
    assert key == [tuple(s.generate_state(2)) for s in chunk_streams(0, b, 5)]
    assert key != [tuple(s.generate_state(2)) for s in chunk_streams(0, c, 5)]
    assert key != [tuple(s.generate_state(2)) for s in chunk_streams(0, a, 6)]


# ---------------------------------------------------------------- the statistics


def test_pareto_ranks_peel_fronts_of_cost_and_gain() -> None:
    cost = [0.0, 1.0, 2.0, 1.0, 3.0, 0.5]
    gain = [1.0, 3.0, 4.0, 2.0, 1.0, 1.0]
    # front: (0,1), (1,3), (2,4); then (1,2) and (0.5,1); then (3,1)
    assert pareto_ranks(cost, gain).tolist() == [0, 0, 0, 1, 2, 1]


def test_main_effect_recovers_a_planted_additive_effect_with_a_paired_interval() -> None:
    rng = np.random.default_rng(0)
    decks = 400
    values = pd.DataFrame({"sevens": ["off", "on"] * 8, "eight_stop": ["off"] * 8 + ["on"] * 8})
    deck_noise = rng.normal(0, 0.4, decks)  # shared by every arm on a deck: pairing removes it
    y = np.stack([deck_noise + 0.05 * (s == "on") + rng.normal(0, 0.01, decks) for s in values["sevens"]])
    eff = main_effects({"fpa": y}, values, {"sevens": "off", "eight_stop": "off"}).set_index("option")
    assert eff.loc["sevens", "fpa_lo"] < 0.05 < eff.loc["sevens", "fpa_hi"]
    assert eff.loc["sevens", "fpa_hi"] - eff.loc["sevens", "fpa_lo"] < 0.01  # the deck noise is gone
    assert eff.loc["sevens", "fpa_distinguishable"] and not eff.loc["eight_stop", "fpa_distinguishable"]


# ---------------------------------------------------------------- the search


def test_explorer_finds_the_planted_fairest_rule_set_with_far_fewer_deals_than_a_full_grid(tmp_path: Path) -> None:
    space = parse_space(SPACE)
    assert len(space.arms) == 64
    run_balance(space, tmp_path / "halving", jobs=1, simulator=PLANTED, report=False)
    grid = parse_space({**SPACE, "finalists": 64})  # no halving: every rule set measured to the target
    run_balance(grid, tmp_path / "grid", jobs=1, simulator=PLANTED, report=False)
    arms, info = _numbers(tmp_path / "halving")
    g_arms, g_info = _numbers(tmp_path / "grid")
    planted = "sevens=on, eight_stop=on"
    assert _fairest(arms) == planted == _fairest(g_arms)
    best = arms[arms["rules"] == planted].iloc[0]
    assert best["final_fpa_lo"] <= 0 <= best["final_fpa_hi"] and best["final_fpa_hi"] - best["final_fpa_lo"] <= 0.02
    assert best["vs_ref_fpa_hi"] < 0  # fairer than the default rules, paired on the same decks
    assert g_arms["finalist"].all() and g_info["deals"] > 0
    ratio = info["deals"] / g_info["deals"]
    assert ratio < 0.2, ratio
    # the run's own estimate of a full grid's cost agrees with the grid actually run, within a fifth
    assert abs(info["full_grid_deals"] / g_info["deals"] - 1) < 0.2


def test_real_deals_on_the_kernel_name_every_finalist_with_intervals(tmp_path: Path) -> None:
    space = parse_space({"variant": "czech", "players": 4, "first_decks": 250, "chunk_decks": 250, "eta": 2,
                         "finalists": 2, "target_pp": 4.0, "trace": "greedy", "space": {"sevens": [False, True],
                                                                      "eight_stop": [False, True]}})
    out = run_balance(space, tmp_path / "real", jobs=1)
    arms, info = _numbers(out)
    fin = arms[arms["finalist"]]
    assert len(fin) == 4 and fin["reference"].any()  # the default, both single changes and the best pair
    assert set(fin.loc[fin["changes"] == 1, "rules"]) == {"sevens=on", "eight_stop=on"}
    assert ((fin["final_fpa_hi"] - fin["final_fpa_lo"]) / 2 <= 0.04).all()
    assert (fin["final_skill0_lo"] > 0).all()  # the tuned preset beats random under every rule set
    assert ((fin["card_choice"] > 0.05) & (fin["card_choice"] < 0.95)).all()  # some decisions are forced, not all
    assert (fin["card_trace_decks"] == 250).all()
    text = (out / "report.md").read_text()
    assert "## Recommended rule sets" in text and "charts/pareto.png" in text and "## Main effects" in text
    assert "## Each option alone" in text and "the fairest single change" in text.lower()
    assert (out / "charts" / "pareto.png").stat().st_size > 0


def test_the_search_ranks_neither_a_capped_game_nor_a_twin_of_a_simpler_rule_set_g10(tmp_path: Path) -> None:
    # czech single deals: jack_finish_doubles doubles every hand's points (CZ8), never changing who wins or is
    # the дурак -- a twin of the same rules without it; turn_cap=15 cuts most deals off (G10)
    space = parse_space({"variant": "czech", "players": 4, "first_decks": 250, "chunk_decks": 250, "eta": 8,
                         "finalists": 1, "target_pp": 5.0, "single_changes": False, "trace": "",
                         "space": {"sevens": [False, True], "jack_finish_doubles": [False, True],
                                   "turn_cap": [2000, 15]}})
    arms, _ = _numbers(run_balance(space, tmp_path / "twins", jobs=1, report=False))
    assert set(arms.loc[arms["finalist"], "rules"]) == {"default rules", "sevens=on"}
    capped = arms[arms["rules"].str.contains("turn_cap")]
    assert (capped["search_capped_lo"] > 0.001).all()


CHILD = """
import json, sys
from pathlib import Path
from analyzer.execution.balance_space import parse_space
from analyzer.execution.runs.balance import run_balance
run_balance(parse_space(json.loads(sys.argv[1])), Path(sys.argv[2]), jobs=1, simulator="tests.planted_sim",
            report=False)
"""


def _stored(out: Path) -> int:
    return len(list((out / "chunks").glob("c*-k*.zip")))


def test_a_balance_run_killed_twice_resumes_to_the_numbers_of_a_straight_run(tmp_path: Path) -> None:
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    run_balance(parse_space(SPACE), straight, jobs=1, simulator=PLANTED, report=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PLANTED_SLEEP": "0.01"}
    for at in (2, 5):
        proc = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(SPACE), str(killed)], cwd=ROOT, env=env,
                                start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while _stored(killed) < at:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    run_balance(parse_space(SPACE), killed, jobs=1, simulator=PLANTED, report=False)
    manifest = json.loads((killed / "manifest.json").read_text())
    assert manifest["chunks_resumed"] >= 5 and manifest["deals_this_run"] < manifest["total_deals"]
    a, info_a = _numbers(straight)
    b, info_b = _numbers(killed)
    pd.testing.assert_frame_equal(a, b)
    assert info_a == info_b


def test_a_changed_space_is_refused_for_resuming(tmp_path: Path) -> None:
    small = {**SPACE, "space": {"sevens": [False, True], "eight_stop": [False, True]}}
    run_balance(parse_space(small), tmp_path / "b", jobs=1, simulator=PLANTED, report=False)
    with pytest.raises(ResumeError, match="changed"):
        run_balance(parse_space({**small, "target_pp": 2.0}), tmp_path / "b", jobs=1, simulator=PLANTED,
                    report=False)


def test_balance_on_a_dask_cluster_gives_the_local_numbers(tmp_path: Path) -> None:
    from tests.execution.test_cluster import Cluster  # starts dask processes: only this test needs them

    small = {**SPACE, "space": {"sevens": [False, True], "eight_stop": [False, True], "hand_size": [5, 6]}}
    run_balance(parse_space(small), tmp_path / "local", jobs=2, simulator=PLANTED, report=False)
    cluster = Cluster(worker_env={"PYTHONPATH": str(ROOT)})
    try:
        run_balance(parse_space(small), tmp_path / "dask", jobs=1, backend="dask", scheduler=cluster.address,
                    simulator=PLANTED, report=False)
    finally:
        cluster.close()
    a, info_a = _numbers(tmp_path / "local")
    b, info_b = _numbers(tmp_path / "dask")
    pd.testing.assert_frame_equal(a, b)
    assert info_a == info_b
    assert json.loads((tmp_path / "dask" / "manifest.json").read_text())["backend"] == "dask"


# ---------------------------------------------------------------- bad input: one line, exit 2


def _space_file(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "space.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("body, culprits", [
    ('kind = "balance"\n[space]\nsevns = [false, true]\n', ("space.sevns", "unknown rule option")),
    ('kind = "balance"\n[space]\nsevens = [false, "maybe"]\n', ("space.sevens", "maybe")),
    ('kind = "balance"\n[space]\nsevens = true\n', ("space.sevens", "list")),
    ('kind = "balance"\n[space]\nsevens = [true, true]\n', ("space.sevens", "twice")),
    ('kind = "balance"\n[space]\nsevens = [false]\n', ("space", "one rule set")),
    ('kind = "balance"\nvariant = "prague"\n', ("variant", "prague", "czech")),
    ('kind = "balance"\ntarget_pp = -1\n', ("target_pp", "-1")),
    ('kind = "balance"\nfirst_decks = 300\nchunk_decks = 250\n', ("first_decks", "multiple")),
    ('kind = "balance"\nfirst_decks = 10000000\n', ("key 'first_decks'", "at most max_decks (20,000")),
    ('kind = "balance"\nfirst_decks = 1000\nmax_decks = 500\n', ("key 'max_decks'", "at least first_decks (1000)")),
    ('kind = "balance"\nstrong = "nosuch"\n', ("strong", "nosuch")),
    ('kind = "balance"\ndeals = 5\n', ("deals", "unknown key")),
    ('kind = "balance"\n[rules]\nsevens = true\n[space]\nsevens = [false, true]\n', ("space.sevens", "[rules]")),
    ('kind = "balance"\n[space]\neight_stop = [false, true]\nlone_wild_points = [10, 20]\n',
     ("space.lone_wild_points", "czech")),
    ('kind = "balance"\n[space\n', ("space.toml", "TOML")),
    ('kind = "balance"\nfairness = "dealer-only"\n', ("fairness", "dealer-only", "every-seat")),
    ('kind = "balance"\ntrace = "nosuch"\n', ("trace", "nosuch")),
    ('kind = "balance"\ntrace_decks = 300\n', ("trace_decks", "multiple")),
])
def test_bad_rule_space_file_is_one_line(tmp_path: Path, body: str, culprits: tuple[str, ...]) -> None:
    f = _space_file(tmp_path, body)
    assert_user_error(invoke(["balance", "--variant", "czech", "--players", "4", "--rule-space", f], tmp_path),
                      str(f.name), *culprits)


@pytest.mark.parametrize("args, culprits", [
    (["--variant", "moscow"], ("moscow",)),
    (["--variant", "prague", "--players", "7"], ("prague", "7")),
    ([], ("--variant",)),
    (["--variant", "czech", "--target-pp", "0"], ("--target-pp",)),
    (["--variant", "czech", "--opponent", "nosuch"], ("nosuch",)),
    (["--variant", "czech", "--jobs", "0"], ("--jobs",)),
    (["--variant", "czech", "--scheduler", "tcp://x:1"], ("--scheduler",)),
    (["--variant", "czech", "--rule-space", "missing.toml"], ("missing.toml",)),
    (["--variant", "czech", "--fairness", "seat0"], ("--fairness", "seat0", "every-seat")),
])
def test_bad_balance_option_is_one_line(tmp_path: Path, args: list[str], culprits: tuple[str, ...]) -> None:
    assert_user_error(invoke(["balance", *args], tmp_path), *culprits)


def test_durak_run_of_a_balance_file_refuses_deals(tmp_path: Path) -> None:
    f = _space_file(tmp_path, 'kind = "balance"\nvariant = "czech"\n[space]\nsevens = [false, true]\n')
    assert_user_error(invoke(["run", f, "--deals", "100"], tmp_path), "--deals", "balance")


COMMITTED = ["balance_czech_4p", "balance_prague_4p", "balance_prague_3p", "balance_czech_3p"]


@pytest.mark.parametrize("name", COMMITTED)
def test_committed_balance_reports_name_rule_sets_measured_within_one_point_on_report_decks(name: str) -> None:
    """Every recommended rule set (and the reference) measured on report decks to +-1 pp: every seat's win and
    дурак share, the first mover's advantage and the skill gap; and named in the report."""
    folder = ROOT / "reports" / name
    arms = pd.read_parquet(folder / "results" / "arms.parquet")
    recs = recommendations(arms)
    assert recs
    for _, row in [*recs, ("the default rules", arms[arms["reference"]].iloc[0])]:
        assert row["report_fairness_hw"] <= 0.01 + 1e-9, row["rules"]
        assert (row["report_fpa_hi"] - row["report_fpa_lo"]) / 2 <= 0.01 + 1e-9, row["rules"]
    text = (folder / "report.md").read_text()
    for why, row in recs:
        assert f"{why[0].upper() + why[1:]}: {row['rules']}." in text


@pytest.mark.parametrize("name", COMMITTED)
def test_committed_balance_reports_say_who_moves_first_pr2_cz3(name: str) -> None:
    """prague's first mover is the dealer (PR2), czech's the player left of him (CZ3): the summary says so and
    names the position."""
    text = (ROOT / "reports" / name / "report.md").read_text()
    summary = text.split("## Summary", 1)[1][:1500]
    info = json.loads((ROOT / "reports" / name / "results" / "balance.json").read_text())
    p = info["space"]["players"]
    if "prague" in name:
        assert info["first_mover_position"] == p - 1 == info["dealer_position"]
        assert f"the first mover -- who plays the deal's first card -- is the dealer (position {p - 1}; PR2)" in summary
    else:
        assert info["first_mover_position"] == 0
        assert "is the player left of the dealer (position 0; CZ3)" in summary


def test_durak_run_of_a_balance_file_and_durak_balance_share_its_chunks_and_report(tmp_path: Path) -> None:
    f = _space_file(tmp_path, 'kind = "balance"\nname = "tiny"\nvariant = "czech"\nplayers = 4\ntarget_pp = 6.0\n'
                              'first_decks = 250\nfinalists = 1\nsingle_changes = false\n'
                              '[space]\nsevens = [false, true]\n')
    res = invoke(["run", f, "--jobs", "1", "--quiet"], tmp_path)
    assert res.exit_code == 0, res.stderr
    out = tmp_path / "reports" / "tiny"
    assert "report: " in res.stdout and (out / "report.html").is_file()
    first = json.loads((out / "manifest.json").read_text())
    assert first["command"] == f"durak run {f}" and first["deals_this_run"] == first["total_deals"] > 0
    again = invoke(["balance", "--variant", "czech", "--players", "4", "--rule-space", f, "--jobs", "1", "--quiet"],
                   tmp_path)
    assert again.exit_code == 0, again.stderr
    second = json.loads((out / "manifest.json").read_text())
    assert second["deals_this_run"] == 0 and second["total_deals"] == first["total_deals"]  # every task read back
    assert second["command"].startswith("durak balance --variant czech --players 4 --rule-space")
    kept = invoke(["report", out], tmp_path)  # the run built it from these very results
    assert kept.exit_code == 0 and "report up to date" in kept.stdout
    rebuilt = invoke(["report", out, "--redraw"], tmp_path)
    assert rebuilt.exit_code == 0 and "report written" in rebuilt.stdout
