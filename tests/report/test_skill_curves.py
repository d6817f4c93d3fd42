"""Skill curves: an experiment's ``ladder`` (one cell per step, that strategy in every seat)
and the ``skill_curves`` report section built on the per-cell tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzer.execution.experiment import ExperimentError
from analyzer.execution.runs import run_experiment
from analyzer.report.skill_curves import raise_table, skill_sentence, skill_table, step_label, strongest_steps
from analyzer.stats import tables
from tests.helpers_experiments import parse

LADDER = 'ladder = ["random", "greedy", "weighted?preset={variant}-{players}p"]\n'


def test_a_ladder_seats_each_step_in_every_seat_of_a_cell_of_its_own() -> None:
    exp = parse('name = "l"\nvariants = ["czech", "svinya"]\nplayers = [2, 4]\n' + LADDER + "deals = 10\n")
    got = [(c.variant, c.players, c.lineup) for c in exp.cells]
    assert got == [("czech", 2, ("random",) * 2), ("czech", 2, ("greedy",) * 2),
                   ("czech", 2, ("weighted?preset=czech-2p",) * 2),
                   ("czech", 4, ("random",) * 4), ("czech", 4, ("greedy",) * 4),
                   ("czech", 4, ("weighted?preset=czech-4p",) * 4),
                   ("svinya", 2, ("random",) * 2), ("svinya", 2, ("greedy",) * 2),
                   ("svinya", 2, ("weighted?preset=svinya-2p",) * 2)]
    assert all(c.show_lineup for c in exp.cells) and exp.to_dict()["ladder"][2] == "weighted?preset={variant}-{players}p"


@pytest.mark.parametrize("extra,culprit", [('lineup = ["random"]\n', "ladder"), ('design = "round-robin"\n', "ladder"),
                                           ("", "twice"), ("", "unknown strategy")])
def test_a_bad_ladder_is_one_line_naming_it(extra: str, culprit: str) -> None:
    ladder = LADDER
    if culprit == "twice":
        ladder = 'ladder = ["random", "random"]\n'
    elif culprit == "unknown strategy":
        ladder = 'ladder = ["random", "nosuch"]\n'
    with pytest.raises(ExperimentError) as e:
        parse('name = "l"\nvariants = ["czech"]\nplayers = [2]\n' + ladder + extra + "deals = 10\n")
    assert "'ladder'" in str(e.value) and "\n" not in str(e.value)


def test_step_labels() -> None:
    assert [step_label(s) for s in ("random", "weighted?preset=czech-2p", "pimc?worlds=64", "pimc",
                                    "ismcts?iterations=700", "ismcts")] == [
        "random", "tuned preset", "pimc 64", "pimc 1024", "ismcts 700", "ismcts"]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = ('name = "sc"\nvariants = ["czech", "prague"]\nplayers = [2, 4]\n' + LADDER
            + 'deals = 1500\nseed = 3\nchunk_size = 500\nreports = ["skill_curves"]\n')
    path = tmp_path_factory.mktemp("sc") / "sc.toml"
    path.write_text(text, encoding="utf-8")
    return run_experiment(path, out=path.parent / "out", jobs=1, quiet=True)


def test_the_section_reads_the_per_cell_tables_step_by_step(ran: Path) -> None:
    """Each step's first-player numbers are the per-cell table's; its Jack numbers the Jack question's for
    the group and strategy; the wild rule's share the wild summary's (prague: PR7 acts, czech: it cannot)."""
    res = tables.load_results(ran)
    st = skill_table(res)
    fpa = tables.first_player_advantage(res).set_index("cell")
    assert len(st) == 12 and list(st[st["group"] == "czech 2p"]["label"]) == ["random", "greedy", "tuned preset"]
    for _, r in st.iterrows():
        f = fpa.loc[r["cell"]]
        assert (r["first_rate"], r["first_lo"], r["first_hi"], r["diff"]) == (f["rate"], f["lo"], f["hi"], f["diff"])
    jq = tables.jack_question(res).set_index(["variant", "players", "strategy"])
    eff = tables.jack_effects(res, by_cell=True).set_index("cell")
    for _, r in st.iterrows():
        j = jq.loc[(r["variant"], r["players"], r["first_strategy"])]
        e = eff.loc[r["cell"]]
        assert r["dealt0_rate"] == j["dealt0_rate"] and r["dealt_gap"] == e["dealt_gap"]
        assert r["held_informative"] == (r["players"] > 2)  # never with two players
        assert (r["held_gap"] == e["held_gap"]) or (np.isnan(r["held_gap"]) and np.isnan(e["held_gap"]))
    assert st[st["variant"] == "prague"]["rule_acts"].all() and not st[st["variant"] == "czech"]["rule_acts"].any()
    ws = tables.wild_summary(res).set_index("cell")["by_wild_rate"]
    assert np.array_equal(st["by_wild_rate"].to_numpy(), ws.loc[st["cell"]].to_numpy())
    assert (st[(st["variant"] == "prague") & (st["players"] == 4)]["by_wild_rate"] > 0).all()  # PR7 picks some


def test_the_raise_verdict_compares_the_top_steps_with_the_weakest_and_the_preset(ran: Path) -> None:
    """The last two steps (greedy, tuned preset here) each against random, and against the preset where that is
    a weaker step (not here): two comparisons a group."""
    st = skill_table(tables.load_results(ran))
    rt = raise_table(st)
    got = rt[rt["group"] == "czech 2p"][["top", "against"]].values.tolist()
    assert got == [["greedy", "random"], ["tuned preset", "random"]]
    row = rt[(rt["group"] == "czech 2p") & (rt["top"] == "tuned preset")].iloc[0]
    g = st[st["group"] == "czech 2p"]
    top, bottom = g.iloc[-1], g.iloc[0]
    assert row["change"] == pytest.approx(top["first_rate"] - bottom["first_rate"])
    assert row["change_lo"] < row["change"] < row["change_hi"]
    assert np.array_equal(rt["distinguishable"], (rt["p_holm"] < 0.05) & ((rt["change_lo"] > 0) | (rt["change_hi"] < 0)))


def test_the_report_answers_per_group_with_one_chart_per_question(ran: Path) -> None:
    md = (ran / "report.md").read_text(encoding="utf-8")
    assert "Does skill raise the first mover's advantage?" in md
    for group in ("czech 2p", "czech 4p", "prague 2p", "prague 4p"):
        assert f"In **{group}** the first mover's edge over the fair share runs random " in md
    for chart in ("skill_first_player", "skill_jack_dealt", "skill_jack_held", "skill_jack_rule"):
        assert (ran / "charts" / f"{chart}.png").exists()
    summary = md.split("## Answers")[0]
    assert "Going first as skill rises" in summary and "Which strategy wins" not in summary


def test_the_headline_names_a_strong_step_that_moved_the_edge_even_when_the_last_did_not() -> None:
    """The summary reads every strongest step against random: pimc raising the edge in one group is said (with its
    change) though ismcts, the last step, did not; a group where neither did is counted as unchanged."""
    rows = [("svinya 2p", "pimc 1024", 0.032, 0.012, 0.052, True), ("svinya 2p", "ismcts", 0.029, 0.008, 0.05, False),
            ("czech 2p", "pimc 1024", 0.014, -0.006, 0.034, False), ("czech 2p", "ismcts", -0.012, -0.032, 0.008, False)]
    rt = pd.DataFrame([{"group": g, "top": t, "against": "random", "against_kind": "weakest", "change": c,
                        "change_lo": lo, "change_hi": hi, "distinguishable": d} for g, t, c, lo, hi, d in rows])
    st = pd.DataFrame({"step": [0, 1], "label": ["random", "ismcts"]})
    got = skill_sentence(st, rt)
    assert "raises the first mover's edge in **svinya 2p** (pimc 1024: +3.2 pp [+1.2, +5.2])" in got
    assert "no distinguishable amount in **czech 2p**" in got and "svinya 2p**;" not in got.split("raises")[0]
    assert got.startswith("From random play to pimc 1024 and ismcts in every seat")


def test_the_strongest_steps_are_each_search_family_at_its_full_budget() -> None:
    """Past the tuned preset, the last step of each strategy: pimc at its largest worlds, ismcts and expert; a
    ladder without a preset reads its steps past the weakest the same way."""
    specs = ["random", "greedy", "weighted?preset=czech-2p", "pimc?worlds=64", "pimc?worlds=1024", "ismcts", "expert"]
    g = pd.DataFrame({"step": range(len(specs)), "first_strategy": specs,
                      "label": [step_label(s) for s in specs]})
    assert strongest_steps(g)["first_strategy"].tolist() == ["pimc?worlds=1024", "ismcts", "expert"]
    plain = g.iloc[[0, 1, 3, 4]].assign(step=range(4))
    assert strongest_steps(plain)["first_strategy"].tolist() == ["greedy", "pimc?worlds=1024"]


def test_a_ladder_step_can_be_played_at_some_player_counts_only(tmp_path: Path) -> None:
    """``ladder_players``: a step left out at a player count has no cell there, and the report still names every
    other cell's step by its place on the ladder (a step left out in the middle shifts nothing)."""
    text = ('name = "lp"\nvariants = ["czech"]\nplayers = [2, 3]\nladder = ["random", "greedy", "weighted"]\n'
            'ladder_players = { greedy = [2] }\ndeals = 300\nseed = 5\nchunk_size = 300\nreports = ["skill_curves"]\n')
    exp = parse(text)
    assert [(c.players, c.lineup[0]) for c in exp.cells] == [(2, "random"), (2, "greedy"), (2, "weighted"),
                                                             (3, "random"), (3, "weighted")]
    assert parse(text).to_dict()["ladder_players"] == {"greedy": [2]}
    path = tmp_path / "lp.toml"
    path.write_text(text, encoding="utf-8")
    st = skill_table(tables.load_results(run_experiment(path, out=tmp_path / "out", jobs=1, quiet=True)))
    three = st[st["players"] == 3]
    assert list(three["label"]) == ["random", "weighted"] and list(three["step"]) == [0, 2]


@pytest.mark.parametrize("extra,needle", [
    ('ladder_players = { pimc = [2] }\n', "'pimc' is not a step"),
    ('ladder_players = { greedy = [1] }\n', "player counts (2-8)"),
    ('ladder_players = { greedy = "2" }\n', "player counts (2-8)"),
    ('ladder_players = [2]\n', "a table of ladder steps"),
])
def test_a_bad_ladder_players_table_is_one_line_naming_it(extra: str, needle: str) -> None:
    with pytest.raises(ExperimentError) as e:
        parse('name = "l"\nvariants = ["czech"]\nplayers = [2]\n' + LADDER + extra + "deals = 10\n")
    assert "'ladder_players'" in str(e.value) and needle in str(e.value) and "\n" not in str(e.value)
