"""The Jack answer isolates the wild.

* a keeper-against-dumper gap is read as the wild's only for two strategies that differ in wild
  handling alone (they declare it: ``wild_twin`` / ``wild_params``);
* being dealt a wild is compared with being dealt none (the shuffle randomises it), games as clusters;
* a hand left holding a wild at the end is compared only with hands left with as many cards, never in
  two-player cells (where the one hand left with cards is the дурак);
* every sentence that names a cause is run on a field where the cause is absent and must not claim it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzer.core.outcomes import DealResults
from analyzer.core.registry import wild_twins
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, play_deal
from analyzer.execution.executor import simulate_deals
from analyzer.report import sentences, summary
from analyzer.stats import intervals as stats
from analyzer.stats import tables
from analyzer.stats.sums import LEFT_CLASSES, _isolating_sums, deal_losses, summarize
from strategies import get_strategy

REPORTS = Path(__file__).resolve().parents[2] / "reports"
KD = ["wild-keeper", "wild-dumper"]


def results_of(cells: list[tuple[str, int, dict, list[str], DealResults]]) -> tables.Results:
    """A Results folder in memory from (variant, players, rule overrides, lineup, deal results)."""
    frames: dict[str, list[pd.DataFrame]] = {"positions": [], "totals": [], "hist": []}
    rows = []
    for c, (variant, players, over, lineup, res) in enumerate(cells):
        rules = make_rules(variant, players, over)
        for k, df in summarize(res, lineup, rules).items():
            frames[k].append(df.assign(cell=c))
        rows.append({"cell": c, "variant": variant, "players": players, "unit": "deal",
                     "lineup": ",".join(lineup), "rules": rules.describe()})
    return tables.Results(cells=tables._normalize_cells(pd.DataFrame(rows)),
                          **{k: pd.concat(v, ignore_index=True) for k, v in frames.items()})


def _deals(variant: str, players: int, lineup: list[str], n: int, seed: int) -> DealResults:
    return simulate_deals(make_rules(variant, players), [get_strategy(s) for s in lineup], n, seed=seed)


def _field(variant: str, players: int, pair: list[str], n: int, seed: int) -> tables.Results:
    """Both seatings of a pair, as an experiment's ``field`` seats them."""
    lineups = [(pair * players)[:players], (pair[::-1] * players)[:players]]
    return results_of([(variant, players, {}, lu, _deals(variant, players, lu, n, seed + i))
                       for i, lu in enumerate(lineups)])


@pytest.fixture(scope="module")
def prague4() -> tuple[list[DealResults], list[list[str]], tables.Results]:
    lineups = [KD * 2, KD[::-1] * 2]
    parts = [_deals("prague", 4, lu, 1500, 21 + i) for i, lu in enumerate(lineups)]
    return parts, lineups, results_of([("prague", 4, {}, lu, r) for lu, r in zip(lineups, parts)])


# ---------------------------------------------------------------- the data: cards left at the end

def test_cards_left_is_each_hand_at_the_end_and_none_for_the_one_who_went_out(prague4):
    parts, _, _ = prague4
    for r in parts:
        out = r.went_out >= 0
        assert (r.cards_left[out, r.went_out[out]] == 0).all()
        assert (r.cards_left >= 0).all() and r.cards_left.dtype == np.int8
        others = np.ones_like(r.cards_left, bool)
        others[out, r.went_out[out]] = False
        assert (r.cards_left[others] >= 1).all()  # nobody else is out of cards (G9: the deal ends there)
        assert (r.cards_left[r.wild_held] >= 1).all()


def test_the_engine_records_the_cards_left_in_each_hand():
    rules = make_rules("czech", 3)
    deck = np.random.default_rng(5).permutation(rules.deck_size).tolist()
    deal = Deal.from_deck(rules, deck, rng=np.random.default_rng(1))
    out = play_deal(deal, [get_strategy("greedy")] * 3, np.random.default_rng(2))
    assert out.cards_left == [len(h) for h in deal.hands]
    assert out.went_out is None or out.cards_left[out.went_out] == 0


# ---------------------------------------------------------------- the numbers: counted directly

def _by_hand(parts, lineups):
    """Flat per-hand arrays over the decided deals: deal index, loss share, held, cards left, dealt."""
    out = {k: [] for k in ("game", "loss", "held", "left", "dealt")}
    base = 0
    for r in parts:
        loss, _ = deal_losses(r, True)  # prague: PR7 acts on single deals
        ok = r.end != 2
        n, p = loss[ok].shape
        out["game"].append(np.repeat(np.arange(n) + base, p))
        out["loss"].append(loss[ok].ravel())
        out["held"].append(r.wild_held[ok].ravel())
        out["left"].append(r.cards_left[ok].ravel().astype(int))
        out["dealt"].append(r.wilds_dealt[ok].ravel().astype(int))
        base += n
    return {k: np.concatenate(v) for k, v in out.items()}, base


def test_the_held_gap_is_the_difference_within_equal_cards_left_weighted_as_the_holders(prague4):
    parts, lineups, res = prague4
    h, games = _by_hand(parts, lineups)
    stratum = np.minimum(h["left"], LEFT_CLASSES[-1])
    held, free = h["held"] & (h["left"] >= 1), ~h["held"] & (h["left"] >= 1)
    b = np.array([(held & (stratum == k)).sum() for k in LEFT_CLASSES], float)
    rate_h = np.array([h["loss"][held & (stratum == k)].mean() if b[i] else 0 for i, k in enumerate(LEFT_CLASSES)])
    rate_f = np.array([h["loss"][free & (stratum == k)].mean() for k in LEFT_CLASSES])
    want = float((b * (rate_h - rate_f)).sum() / b.sum())
    row = tables.jack_effects(res).iloc[0]
    assert row["held_informative"] and row["held_n"] == b.sum()
    assert row["held_gap"] == pytest.approx(want, rel=1e-9)
    # its interval: the linearised estimator summed per deal (the seats of one deal together)
    z = np.zeros(games)
    big_b = b.sum()
    for i, k in enumerate(LEFT_CLASSES):
        hk, fk = held & (stratum == k), free & (stratum == k)
        np.add.at(z, h["game"][hk], (h["loss"][hk] - rate_h[i]) / big_b)
        np.add.at(z, h["game"][hk], (rate_h[i] - rate_f[i] - want) / big_b)
        np.add.at(z, h["game"][fk], -(b[i] / big_b) * (h["loss"][fk] - rate_f[i]) / fk.sum())
    se = float(np.sqrt((z ** 2).sum()))
    assert (row["held_gap_hi"] - row["held_gap"]) / stats.Z95 == pytest.approx(se, rel=1e-6)
    # PR7: a Jack left in hand loses the deal, whatever else is left
    assert row["held_gap"] > 0.3 and row["held_distinguishable"]


def test_the_dealt_gap_is_one_or_more_wilds_against_none_with_deals_as_clusters(prague4):
    parts, lineups, res = prague4
    h, games = _by_hand(parts, lineups)
    w, o = h["dealt"] >= 1, h["dealt"] == 0
    rw, r0 = h["loss"][w].mean(), h["loss"][o].mean()
    row = tables.jack_effects(res).iloc[0]
    assert row["dealt_gap"] == pytest.approx(rw - r0, rel=1e-9)
    z = np.zeros(games)
    np.add.at(z, h["game"][w], (h["loss"][w] - rw) / w.sum())
    np.add.at(z, h["game"][o], -(h["loss"][o] - r0) / o.sum())
    se = float(np.sqrt((z ** 2).sum()))
    assert (row["dealt_gap_hi"] - row["dealt_gap"]) / stats.Z95 == pytest.approx(se, rel=1e-9)
    indep = stats.diff_proportions(rw, w.sum(), r0, o.sum())
    assert se != pytest.approx(float(indep.se), rel=0.01)  # the seats of one deal are not independent


def _null_deals(n: int, seed: int, p: int = 4, dealt_matters: bool = False) -> DealResults:
    """Deals where the дурак depends on the cards left and chance, never on a wild: hands with more cards
    score more points and the most points lose; who holds a wild depends on the cards left (so an
    unstratified comparison is confounded), who was dealt one on nothing."""
    rng = np.random.default_rng(seed)
    winner = rng.integers(0, p, n)
    left = rng.integers(1, 7, (n, p))  # 1..6 cards: each count its own stratum
    left[np.arange(n), winner] = 0
    points = (10 * left + rng.integers(0, 10, (n, p))) * (left > 0)
    held = (rng.random((n, p)) < 0.06 * left) & (left > 0)
    others = np.where(left > 0, points, -1)
    loser = others.argmax(axis=1)
    dealt = rng.binomial(2, 0.3, (n, p))
    if dealt_matters:
        dealt = np.where(np.arange(p)[None, :] == loser[:, None], 0, dealt)
    return DealResults(points=points.astype(np.int16), went_out=winner.astype(np.int8), winner=winner.astype(np.int8),
                       loser=loser.astype(np.int8), loser_by_wild=np.zeros(n, bool), wild_held=held,
                       end=np.zeros(n, np.int8), turns=np.full(n, 20, np.int32), last_card=np.zeros(n, np.int8),
                       turnovers=np.zeros(n, np.int16), wilds_dealt=dealt.astype(np.int8),
                       cards_left=left.astype(np.int8))


def test_the_intervals_cover_a_gap_that_is_zero_by_construction():
    """200 synthetic experiments where neither holding nor being dealt a wild changes the дурак: both 95%
    intervals cover 0 about 95% of the time (binomial bounds for 200 draws), while the unstratified
    held-vs-not comparison, confounded by the cards left, is far from 0."""
    cover = {"held": 0, "dealt": 0}
    naive = []
    reps = 200
    for i in range(reps):
        r = _null_deals(1500, 1000 + i)
        loss, _ = deal_losses(r, False)
        # the chunk's sums and the two estimators of jack_effects, without the table's pooling (tested above)
        per_pos, moments = _isolating_sums(loss, r.wild_held, r.wilds_dealt, r.cards_left, r.end != 2)
        row = pd.Series({**{k: v.sum() for k, v in per_pos.items()}, **moments})
        row = row.rename(lambda c: re.sub(r"^left(\d+)_(held|free)_", r"\2\1_", c))
        dealt = r.wilds_dealt.astype(int)
        row["dealt_with_n"], row["dealt_with_losses"] = (dealt >= 1).sum(), loss[dealt >= 1].sum()
        row["dealt0_n"], row["dealt0_losses"] = (dealt == 0).sum(), loss[dealt == 0].sum()
        for m, (gap, se, *_) in (("held", tables._held_gap(row)), ("dealt", tables._dealt_gap(row))):
            cover[m] += abs(gap) <= stats.Z95 * se
        rest = r.cards_left > 0
        naive.append(loss[rest & r.wild_held].mean() - loss[rest & ~r.wild_held].mean())
    for m, c in cover.items():
        assert 0.91 * reps <= c <= 0.99 * reps, (m, c)
    assert np.mean(naive) > 0.05  # holders hold more cards: the comparison this test replaces


# ---------------------------------------------------------------- two players: no tautology

def test_a_handful_of_holders_gets_no_like_with_like_gap():
    """4 holders that all lost would give a zero-spread rate and a far too narrow interval: below MIN_HOLDERS
    no gap is computed, and the sentence says why."""
    r = _null_deals(400, 3)
    keep = np.zeros_like(r.wild_held)
    keep[:4, 1] = r.cards_left[:4, 1] > 0
    r.wild_held = keep
    res = results_of([("czech", 4, {}, ["a", "b", "a", "b"], r)])
    e = tables.jack_effects(res).iloc[0]
    assert 0 < e["held_n"] < tables.MIN_HOLDERS and np.isnan(e["held_gap"]) and not e["held_distinguishable"]
    said = " ".join(sentences.jack_sentences(tables.jack_question(res, by_strategy=False), tables.jack_effects(res)))
    assert "too few to set against" in said


def test_two_player_deals_never_set_a_holder_against_the_hand_that_went_out():
    res = _field("czech", 2, ["greedy", "random"], 1500, 3)
    eff = tables.jack_effects(res)
    assert not eff["held_informative"].any() and eff["held_gap"].isna().all()
    said = " ".join(sentences.jack_sentences(tables.jack_question(res, by_strategy=False), eff))
    assert "holding a wild at the end is not compared" in said
    assert "left holding a wild at the end is the дурак" not in said
    assert tables.jack_held_strata(res).empty
    assert "holding a wild" not in summary._held_sentence(tables.jack_effects(res))


# ---------------------------------------------------------------- causes claimed only where present

def test_declared_pairs_isolate_the_wild_and_other_pairs_do_not():
    assert wild_twins("wild-keeper", "wild-dumper") and wild_twins("greedy", "wild-keeper")
    assert wild_twins("weighted?w_wild=6", "weighted?w_wild=-6") and wild_twins("weighted", "weighted?w_wild=3")
    assert not wild_twins("greedy", "random")
    assert not wild_twins("weighted", "weighted")  # nothing differs
    assert not wild_twins("weighted?w_points=0.5", "weighted?w_points=2")  # same wilds, other play
    assert not wild_twins("weighted?w_wild=6,w_points=2", "weighted?w_wild=-6")
    assert not wild_twins("weighted?preset=czech-2p", "weighted")
    assert not wild_twins("no-such-strategy", "wild-keeper")


def _claims_keeping(text: str) -> bool:
    return bool(re.search(r"[Kk]eeping (the wild|wilds) .*(lowers|raises)", text))


@pytest.mark.parametrize("pair", [["greedy", "random"], ["weighted?w_points=0.5", "weighted?w_points=2"]],
                         ids=["greedy-random", "same-wild-handling"])
def test_a_pair_that_does_not_differ_in_wild_handling_alone_is_never_read_as_the_wild(pair):
    """greedy against random differs in far more than wilds; two weighted tunings with the same w_wild do
    not differ in wilds at all: neither gap may be reported as what keeping the wild does."""
    res = _field("czech", 4, pair, 1200, 5)
    kvd = tables.keeper_vs_dumper(res)
    assert len(kvd) == 1 and not kvd["isolating"].any()
    panel = summary.jack_panel(res)
    assert panel is not None and not _claims_keeping(panel.sentence)
    assert "experiments/wild_penalty.toml" in panel.sentence
    said = " ".join(sentences.keeper_sentences(kvd))
    assert not _claims_keeping(said) and "not the wild's" in said


def test_a_pair_that_differs_in_wild_handling_alone_is_the_headline():
    res = _field("czech", 4, KD, 1200, 5)
    kvd = tables.keeper_vs_dumper(res)
    assert kvd["isolating"].all()
    panel = summary.jack_panel(res)
    assert panel is not None and panel.title == "Keeping the Jack"
    assert "differ in nothing else" in panel.sentence and _claims_keeping(panel.sentence)


def test_where_neither_dealing_nor_holding_a_wild_matters_no_effect_is_claimed():
    res = results_of([("czech", 4, {}, ["a", "b", "a", "b"], _null_deals(3000, 7))])
    eff = tables.jack_effects(res).iloc[0]
    assert not eff["dealt_distinguishable"] and not eff["held_distinguishable"]
    panel = summary.jack_panel(res)
    assert panel is not None and "not distinguishably" in panel.sentence
    assert "lowers a player's" not in panel.sentence and "raises a player's" not in panel.sentence
    assert "not distinguishable" in summary._held_sentence(tables.jack_effects(res))
    said = " ".join(sentences.jack_sentences(tables.jack_question(res, by_strategy=False), tables.jack_effects(res)))
    assert said.count("not distinguishable") >= 2


def test_where_being_dealt_a_wild_matters_the_effect_is_claimed():
    """The same construction with the дурак never dealt a wild: the claim appears (so the previous test's
    silence is the cause's absence, not a sentence that can never speak)."""
    res = results_of([("czech", 4, {}, ["a", "b", "a", "b"], _null_deals(3000, 7, dealt_matters=True))])
    panel = summary.jack_panel(res)
    assert panel is not None and "lowers a player's дурак rate" in panel.sentence


# ---------------------------------------------------------------- the committed reports

def _report_files() -> list[Path]:
    return sorted(REPORTS.rglob("report.md"))


def test_no_committed_report_states_a_tautology_or_a_confounded_jack():
    """No committed report sets a two-player holder against the hand that went out, and every "keeping the
    wild" claim is about a pair that differs in nothing else."""
    files = _report_files()
    assert len(files) >= 5
    for f in files:
        text = f.read_text(encoding="utf-8")
        for line in text.splitlines():
            if "holding a wild at the end is the дурак" in line:
                assert "with 2 players" not in line and " 2p deals a hand" not in line, (f, line)
                assert " 2p matches a hand" not in line, (f, line)
            if re.search(r"Keeping the wild \(", line):
                assert "differ in nothing else" in line, (f, line)
            assert ", the strategy holding wilds most)" not in line, (f, line)  # the old confounded headline


def test_the_committed_reports_carry_this_code_s_jack_headline():
    """Each committed report with stored cells opens with the summary this code writes from its results, so
    the committed reports were regenerated after the Jack answer changed."""
    folders = [f.parent for f in _report_files() if (f.parent / "results" / "cells.parquet").exists()]
    assert folders
    for folder in folders:
        text = (folder / "report.md").read_text(encoding="utf-8").replace("**", "")
        for line in summary.headlines(folder):
            body = line.split(": ", 1)[1]
            assert body in text, (folder, line)
