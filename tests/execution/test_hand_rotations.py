"""Hands rotated through the seats (experiment key ``hand_rotations``): every deck dealt once per rotation, its
hands passed one seat on each time, so the first player's rate is measured with the luck of the deal cancelled
and its interval taken over decks (G10a: the deal order; analyzer.core.cards.rotated_hands,
analyzer.stats.tables.first_player_advantage)."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.cards import rotated_hands, shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import deal_hands
from analyzer.execution import executor
from analyzer.execution.experiment import ExperimentError, parse_experiment
from analyzer.execution.play import play_cell
from analyzer.execution.seeds import chunk_seed, content_text
from analyzer.stats import intervals
from analyzer.stats.sums import ROTATION_KIND
from analyzer.stats.tables import first_player_advantage, rotated_first
from tests.helpers_experiments import parse


@pytest.mark.parametrize(("variant", "players"), [("czech", 2), ("czech", 4), ("czech", 7), ("svinya", 2),
                                                  ("prague", 3)])
def test_g10a_each_rotation_deals_seat_s_the_hand_seat_s_minus_r_was_dealt(variant: str, players: int) -> None:
    rules = make_rules(variant, players)
    decks = shuffled_decks(rules.deck_size, 4, np.random.default_rng(5))
    out = rotated_hands(decks, players, rules.hand_size, players)
    assert out.shape == (4 * players, rules.deck_size)
    for i in range(4):
        hands0, starter0, talon0 = deal_hands(decks[i].tolist(), rules)
        full0 = [sorted(h) for h in deal_hands(decks[i].tolist(), rules)[0]]
        if rules.starter_kind == "dealer_lead":  # PR2: the dealer's last card is his lead; put it back to compare
            full0[0] = sorted([*hands0[0], starter0])
        for r in range(players):
            hands, starter, talon = deal_hands(out[i * players + r].tolist(), rules)
            assert talon == talon0  # the talon is never touched
            full = [sorted(h) for h in hands]
            if rules.starter_kind == "dealer_lead":
                full[0] = sorted([*hands[0], starter])
            else:
                assert starter == starter0
            assert full == [full0[(s - r) % players] for s in range(players)]
        assert sorted(out[i * players].tolist()) == sorted(decks[i].tolist())


def _cells(text: str):
    return parse(text).cells


LADDER = """
name = "rot"
variants = ["czech"]
players = [2, 4]
ladder = ["greedy"]
deals = 600
chunk_size = 200
seed = 4
hand_rotations = {rot}
"""


def test_a_cell_with_rotated_hands_counts_decks_and_plays_each_once_per_rotation() -> None:
    cells = _cells(LADDER.format(rot="{ 2 = 2 }"))
    two, four = cells
    assert (two.rotations, two.n, two.chunk_size) == (2, 1200, 400)  # deals and chunk_size count decks
    assert (four.rotations, four.n, four.chunk_size) == (1, 600, 200)  # a count the table leaves out: once
    tables, _ = play_cell(two, seed=4)
    h = tables["hist"][tables["hist"]["kind"] == ROTATION_KIND]
    wins, dec = h["bin"] // 9, h["bin"] % 9
    assert h["count"].sum() == 600  # decks
    assert (h["count"] * dec).sum() == tables["totals"]["n"].iloc[0] - tables["totals"]["capped"].iloc[0]
    first = tables["positions"].set_index("position")
    assert (h["count"] * wins).sum() == first.loc[0, "wins"]
    tables1, _ = play_cell(four, seed=4)
    assert not (tables1["hist"]["kind"] == ROTATION_KIND).any()


def test_a_rotated_cell_plays_the_same_deals_on_the_kernel_alone_and_paused() -> None:
    """The compiled kernel and the kernel paused at the Python forms of the same strategies deal the same rotated
    decks: the same sums."""
    from analyzer.execution.benchmark import PythonForm

    cell = _cells(LADDER.format(rot=2))[0]
    seed = executor.cell_seed(4, cell, 0)
    got = {"compiled": executor.run_chunk(cell, 0, 400, seed, False).tables()}
    real = executor.lineups.build
    with pytest.MonkeyPatch.context() as mp:  # the same cell (its seed, its names), its strategies as Python forms
        mp.setattr(executor.lineups, "build", lambda specs, resolve: [PythonForm(s) for s in real(specs, resolve)])
        assert executor.cell_engines([cell]) == ["compiled+python"]
        got["paused"] = executor.run_chunk(cell, 0, 400, seed, False).tables()
    for name in ("positions", "totals", "hist"):
        assert got["compiled"][name].equals(got["paused"][name]), name


def test_a_cell_without_rotations_keeps_its_seeds() -> None:
    """Results of experiments that do not rotate hands stay as they were (their chunks resume, their reports
    rebuild): the chunk seed of such a cell is keyed on its content as before."""
    cell = _cells(LADDER.format(rot=1))[0]
    names = list(cell.lineup)
    want = chunk_seed(4, "cell", content_text(cell.rules, names, cell.unit), 3)
    assert executor.cell_seed(4, cell, 3).spawn_key == want.spawn_key
    rotated = _cells(LADDER.format(rot=2))[0]
    assert executor.cell_seed(4, rotated, 3).spawn_key != want.spawn_key


def test_the_interval_over_decks_covers_the_rate_95_times_in_100() -> None:
    """Decks of two deals whose outcomes exclude each other more often than chance (one good hand): the interval
    over decks covers the true rate at its nominal 95 %, where one that took the deals as independent would be too
    wide (the negative correlation is what the rotation buys)."""
    rng = np.random.default_rng(12)
    reps, m, p = 2000, 400, 0.55
    covered = narrower = 0
    for _ in range(reps):
        good = rng.random(m) < 0.7  # a deck with one clearly better hand: its two rotations split the wins
        one = np.where(good, rng.random(m) < 0.5, rng.random(m) < p).astype(int)  # the first deal
        two = np.where(good, 1 - one, rng.random(m) < p).astype(int)  # the second: the other seat's hand
        capped = rng.random(m) < 0.03  # the second deal capped: no winner, not decided
        w, d = one + np.where(capped, 0, two), np.where(capped, 1, 2)
        e = intervals.ratio_over_clusters(m, w.sum(), d.sum(), (w * w).sum(), (w * d).sum(), (d * d).sum())
        truth = 0.7 * 0.5 + 0.3 * p  # every deal's chance, capped or not
        covered += bool(e.lo <= truth <= e.hi)
        r = intervals.wilson(w.sum(), d.sum())
        narrower += bool(e.hi - e.lo < r.hi - r.lo)
    assert 0.93 <= covered / reps <= 0.97
    assert narrower == reps


def test_first_player_advantage_takes_the_rate_over_decks_where_hands_rotate(monkeypatch: pytest.MonkeyPatch) -> None:
    """czech 2p, greedy in both seats, 4,000 decks: the rotated cell's interval is over decks and narrower than
    the binomial one of as many deals (a deal's hands lose what one seat wins); a cell without rotations keeps
    its Wilson interval and has no decks.  The verdict reads the interval the row shows (the deck one)."""
    from analyzer.execution.runs import run_experiment

    exp = parse(LADDER.replace("players = [2, 4]", "players = [2]").replace("deals = 600", "deals = 4000")
                .replace("chunk_size = 200", "chunk_size = 2000").format(rot=2))
    plain = parse(LADDER.replace("players = [2, 4]", "players = [2]").replace("deals = 600", "deals = 8000")
                  .replace("chunk_size = 200", "chunk_size = 2000").format(rot=1))
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        from analyzer.stats.tables import load_results

        out = {}
        for name, e in (("rotated", exp), ("plain", plain)):
            run_experiment(e, out=Path(tmp) / name, quiet=True, report=False, jobs=1)
            out[name] = load_results(Path(tmp) / name)
    rot, flat = first_player_advantage(out["rotated"]).iloc[0], first_player_advantage(out["plain"]).iloc[0]
    assert rot["decks"] == 4000 and rot["n"] == 8000 and np.isnan(flat["decks"])
    binomial = np.sqrt(rot["rate"] * (1 - rot["rate"]) / rot["n"])
    assert rot["se"] < 0.92 * binomial  # the luck of the deal cancelled: ~0.82 of it (corr -0.32 between rotations)
    assert rot["lo"] == pytest.approx(rot["rate"] - intervals.Z95 * rot["se"])
    w = intervals.wilson(flat["wins"], flat["n"])
    assert (flat["lo"], flat["hi"]) == (pytest.approx(float(w.lo)), pytest.approx(float(w.hi)))
    assert rotated_first(out["plain"]).empty
    assert rot["lo"] > rot["fair"] and rot["p_holm"] < 0.05 and bool(rot["distinguishable"])
    from analyzer.stats import tables

    # a Wilson interval that could tell nothing (0 to 1): the rotated cell's verdict still follows its deck interval
    monkeypatch.setattr(tables.stats, "wilson", lambda w, n: intervals.Rate(np.asarray(w) / np.asarray(n),
                                                                           np.zeros(len(np.atleast_1d(n))),
                                                                           np.ones(len(np.atleast_1d(n))), n))
    assert bool(first_player_advantage(out["rotated"]).iloc[0]["distinguishable"])
    assert not bool(first_player_advantage(out["plain"]).iloc[0]["distinguishable"])


@pytest.mark.parametrize(("value", "words"), [
    ("0", "whole number of 1 or more"),
    ('"two"', "whole number of 1 or more"),
    ("true", "whole number of 1 or more"),
    ("3", "at most the player count"),
    ("{ 1 = 2 }", "player count of 2 or more"),
    ("{ 4 = 0 }", "whole number of 1 or more"),
])
def test_bad_hand_rotations_are_one_line_naming_the_key(value: str, words: str) -> None:
    with pytest.raises(ExperimentError) as e:
        parse(LADDER.format(rot=value))
    msg = str(e.value)
    assert "hand_rotations" in msg and words in msg and "\n" not in msg


def test_hand_rotations_belong_to_single_deals_outside_tournaments() -> None:
    with pytest.raises(ExperimentError, match="hand_rotations.*a match deals each of its deals afresh"):
        parse_experiment({"name": "m", "variant": "czech", "players": 2, "matches": 10, "hand_rotations": 2,
                          "rules": {"target": 30}})
    with pytest.raises(ExperimentError, match="hand_rotations.*same decks"):
        parse_experiment({"name": "t", "variant": "czech", "players": 2, "deals": 10, "hand_rotations": 2,
                          "field": ["random", "greedy"], "design": "round-robin"})


def test_the_experiment_round_trips_with_its_rotations() -> None:
    exp = parse(LADDER.format(rot="{ 2 = 2 }"))
    d = exp.to_dict()
    assert d["hand_rotations"] == {"2": 2}
    again = parse_experiment({k: v for k, v in d.items() if k not in ("source", "cells")})
    assert [c.rotations for c in again.cells] == [c.rotations for c in exp.cells]


def test_a_rotated_chunk_checks_its_deals_and_names_its_cell_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """--check reaches the rotated decks' play as it reaches any chunk's (every card conserved in every deal)."""
    from analyzer.kernel import serve

    cell = _cells(LADDER.format(rot=2))[0]
    seen: list[tuple[bool, int]] = []
    real = serve.simulate_chunk
    monkeypatch.setattr(serve, "simulate_chunk", lambda *a, **k: seen.append((k["check"], k["where"].cell)) or real(*a, **k))
    checked = executor.run_chunk(cell, 1, 400, executor.cell_seed(4, cell, 1), True).tables()
    plain = executor.run_chunk(cell, 1, 400, executor.cell_seed(4, cell, 1), False).tables()
    assert seen == [(True, cell.index), (False, cell.index)]
    assert all(checked[name].equals(plain[name]) for name in checked)  # checking changes nothing


def test_the_jack_comparisons_take_a_rotated_deck_as_one_cluster() -> None:
    """A deck's rotations share its cards (the seat dealt the wild in one holds the same hand in the other), so the
    same-game sums behind the dealt and held Jack gaps' intervals are summed per deck first: the dealt moments
    ``dm`` and the per-strategy products ``hv`` of a chunk summarised in clusters of two equal the outer products of
    each pair of deals' summed vectors (and the per-position counts do not change)."""
    from analyzer.stats import sums
    from strategies import get_strategy

    rules = make_rules("czech", 2)
    decks = rotated_hands(shuffled_decks(rules.deck_size, 300, np.random.default_rng(3)), 2, rules.hand_size, 2)
    res = executor.simulate_deals(rules, [get_strategy("greedy")] * 2, len(decks), seed=5, decks=decks)
    one, two = sums.summarize(res, ["g", "g"], rules), sums.summarize(res, ["g", "g"], rules, cluster=2)
    loss, _ = sums.deal_losses(res, False)
    dec = (res.end != 2)[:, None]
    dealt = np.asarray(res.wilds_dealt)
    w = np.stack([(loss * dec * (dealt >= 1)).sum(1), (dec * (dealt >= 1)).sum(1),
                  (loss * dec * (dealt == 0)).sum(1), (dec * (dealt == 0)).sum(1)], axis=1)
    for x, frame in ((w, one), (w.reshape(-1, 2, 4).sum(axis=1), two)):
        m = x.T @ x
        want = [m[i, j] for i in range(4) for j in range(i, 4)]
        np.testing.assert_allclose(frame["totals"][list(sums.DEALT_MOMENTS)].to_numpy(float)[0], want, rtol=1e-12)
    held = res.wild_held & dec
    b = held.sum(1).reshape(-1, 2).sum(1).astype(float)
    assert two["positions"]["hv_bb"].iloc[0] == float((b * b).sum())
    assert one["positions"]["hv_bb"].iloc[0] == float((held.sum(1).astype(float) ** 2).sum())
    assert one["positions"]["held_n"].equals(two["positions"]["held_n"])
    assert one["positions"]["wins"].equals(two["positions"]["wins"])


def test_a_rotated_chunk_sums_its_jack_comparisons_per_deck(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = _cells(LADDER.format(rot=2))[0]
    asked: list[int] = []
    real = executor.chunk_sums
    monkeypatch.setattr(executor, "chunk_sums", lambda *a, **k: asked.append(k.get("cluster", 1)) or real(*a, **k))
    executor.run_chunk(cell, 0, 400, executor.cell_seed(4, cell, 0), False)
    assert asked == [2]
