"""The chunk sums (analyzer.stats.sums.summarize) equal a plain reference computation, bit for bit.

The reference below is the straightforward per-position / per-strategy / per-class computation
a vectorised summary must equal.  Every table, column and dtype must be the same and every float sum bit-identical:
the package sums each column in row order, as the reference's ``sum(axis=0)`` does.  The one
exception is the ``hv_*`` products: the reference's ``x @ y`` (BLAS ddot) splits its vector among
BLAS threads, so its last bits depend on the machine; the package sums them in a fixed order, so
they are held equal to within rounding (integer-valued ones, ``hv_bb`` and ``hv_ee``, exactly).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT, POINT_BINS, TURN_BINS, DealResults
from analyzer.core.rules import make_rules
from analyzer.execution.executor import simulate_deals, simulate_matches
from analyzer.stats import sums
from strategies import get_strategy


# --- the reference: the per-position / per-strategy / per-class computation, written plainly -----------
def _ref_ties_most(values, mask):
    v = np.where(mask, values.astype(np.float64), -np.inf)
    hit = mask & (v == v.max(axis=1, keepdims=True))
    return hit / np.maximum(hit.sum(axis=1, keepdims=True), 1)


def _ref_deal_losses(res, deal_rule):
    n, p = res.points.shape
    decided = (res.end != END_CAPPED) & (res.loser >= 0)
    seats = np.arange(p)[None, :]
    pts = res.points.astype(np.int64)
    others = (seats != res.winner[:, None]) & decided[:, None]
    holders = res.wild_held.astype(bool) & decided[:, None]
    acts = holders.any(axis=1) & deal_rule
    by_points, by_rule = _ref_ties_most(pts, others), _ref_ties_most(pts, holders)
    loser = seats == res.loser[:, None]
    lp = pts[np.arange(n), np.maximum(res.loser, 0)][:, None]
    tied = (np.where(acts[:, None], holders, others) & (pts == lp) | loser) & decided[:, None]
    loss = tied / np.maximum(tied.sum(axis=1, keepdims=True), 1)
    by_wild = decided & (res.loser_by_wild.astype(bool) | (acts & ((by_rule > 0) != (by_points > 0)).any(axis=1)))
    return loss, by_wild


def _ref_jack_sums(loss_x, held, dealt, decided, strategies):
    p = len(strategies)
    d = decided.astype(np.float64)[:, None] * np.ones((1, p))
    held_f = held.astype(np.float64) * d
    out = {}
    for k in sums.DEALT_CLASSES:
        in_k = (dealt >= 0) & ((dealt >= k) if k == sums.DEALT_CLASSES[-1] else (dealt == k))
        out[f"dealt{k}_n"] = (in_k * d).sum(axis=0)
        out[f"dealt{k}_losses"] = (in_k * d * loss_x).sum(axis=0)
    out["held_n"] = held_f.sum(axis=0)
    out["held_losses"] = (held_f * loss_x).sum(axis=0)
    hv = {c: np.zeros(p) for c in sums.HV_COLUMNS}
    for name in dict.fromkeys(strategies):
        mine = np.array([s == name for s in strategies])
        parts = {"a": (held_f * loss_x)[:, mine].sum(axis=1), "b": held_f[:, mine].sum(axis=1),
                 "c": ((d - held_f) * loss_x)[:, mine].sum(axis=1), "e": (d - held_f)[:, mine].sum(axis=1)}
        for pair in sums.HV_PAIRS:
            hv[f"hv_{pair}"][int(np.argmax(mine))] = float(parts[pair[0]] @ parts[pair[1]])
    return {**out, **hv}


def _ref_isolating(loss_x, held, dealt, left, decided):
    """The Jack comparisons that isolate the wild, the plain way: a loop over strata for the
    per-position counts, each game's vector written out for the same-game moments."""
    n, p = loss_x.shape
    ok = decided[:, None] & (left >= 1)
    stratum = np.minimum(left, sums.LEFT_CLASSES[-1])
    per_pos = {}
    for c in sums.LEFT_CLASSES:
        for g, mine in (("held", held), ("free", ~held)):
            sel = ok & mine & (stratum == c)
            per_pos[f"left{c}_{g}_n"] = sel.sum(axis=0).astype(np.float64)
            per_pos[f"left{c}_{g}_losses"] = (loss_x * sel).sum(axis=0)
    v = [(loss_x * (ok & held)).sum(axis=1)]
    v += [(ok & held & (stratum == c)).sum(axis=1) for c in sums.LEFT_CLASSES]
    v += [(loss_x * (ok & ~held & (stratum == c))).sum(axis=1) for c in sums.LEFT_CLASSES]
    v += [(ok & ~held & (stratum == c)).sum(axis=1) for c in sums.LEFT_CLASSES]
    v = np.array(v, dtype=np.float64).T
    known = decided[:, None] & (dealt >= 0)
    w = np.array([(loss_x * (known & (dealt >= 1))).sum(axis=1), (known & (dealt >= 1)).sum(axis=1),
                  (loss_x * (known & (dealt == 0))).sum(axis=1), (known & (dealt == 0)).sum(axis=1)], float).T
    totals = {}
    for prefix, x in (("lm", v), ("dm", w)):
        m = x.T @ x
        totals.update({f"{prefix}_{i}_{j}": m[i, j] for i in range(x.shape[1]) for j in range(i, x.shape[1])})
    return per_pos, totals


def _ref_summarize(res, strategies, rules=None):
    n, p = len(res), len(strategies)
    if isinstance(res, DealResults):
        pts = res.points.astype(np.int64)
        wins = np.bincount(res.winner[res.winner >= 0], minlength=p).astype(float)
        went = np.bincount(res.went_out[res.went_out >= 0], minlength=p)
        turns = res.turns.astype(np.int64)
        totals = {"n": n, "blocked": int((res.end == END_BLOCKED).sum()), "capped": int((res.end == END_CAPPED).sum()),
                  "turns_sum": int(turns.sum()), "turns_sq": int((turns ** 2).sum()),
                  "turnovers_sum": int(res.turnovers.sum()), "deals_sum": n}
        hists = [("turns", np.bincount(np.minimum(turns, TURN_BINS - 1), minlength=TURN_BINS)),
                 ("points", np.bincount(np.minimum(pts.ravel(), POINT_BINS - 1), minlength=POINT_BINS))]
        win_x = (res.winner[:, None] == np.arange(p)).astype(np.float64)
        if getattr(res, "loss_share", None) is not None:
            loss_x, by_wild = np.asarray(res.loss_share, dtype=np.float64), res.loser_by_wild
        else:
            deal_rule = rules.wild_rule == "deal" if rules is not None else bool(res.loser_by_wild.any())
            loss_x, by_wild = _ref_deal_losses(res, deal_rule)
        losses, lbw = loss_x.sum(axis=0), (loss_x * by_wild[:, None]).sum(axis=0)
        decided = res.end != END_CAPPED
    else:
        pts = res.totals.astype(np.int64)
        wins = res.win_share.sum(axis=0, dtype=np.float64)
        losses = res.loss_share.sum(axis=0, dtype=np.float64)
        lbw = (res.loss_share * res.loser_by_wild[:, None]).sum(axis=0)
        went = np.zeros(p, dtype=np.int64)
        d = res.deals.astype(np.int64)
        totals = {"n": n, "blocked": 0, "capped": int(res.capped_deals.sum()), "turns_sum": 0,
                  "turns_sq": 0, "turnovers_sum": 0, "deals_sum": int(d.sum())}
        hists = [("deals", np.bincount(np.minimum(d, TURN_BINS - 1), minlength=TURN_BINS))]
        win_x, loss_x = res.win_share.astype(np.float64), res.loss_share.astype(np.float64)
        decided = np.ones(n, dtype=bool)
    totals["wild_any"] = int(res.wild_held.any(axis=1).sum())
    totals["wild_hands"] = int(res.wild_held.sum())
    totals["wild_points_sum"] = int((pts * res.wild_held).sum())
    rest = 1.0 - win_x
    totals["rest_hands"] = float(rest.sum())
    totals["rest_points_sum"] = float((rest * pts).sum())
    totals["wild_rest_hands"] = float((rest * res.wild_held).sum())
    totals["wild_rest_points_sum"] = float((rest * res.wild_held * pts).sum())
    cross = {m: sums.cross_sums(x) for m, x in (("wins", win_x), ("losses", loss_x), ("points", pts))}
    left_pos, moments = _ref_isolating(loss_x, res.wild_held.astype(bool), np.asarray(res.wilds_dealt).astype(int),
                                       np.asarray(res.cards_left).astype(int), decided)
    totals.update(moments)
    positions = pd.DataFrame({
        "position": np.arange(p), "strategy": list(strategies), "n": n,
        "wins": wins, "losses": losses, "losses_by_wild": np.asarray(lbw, dtype=float),
        "wild_held": res.wild_held.sum(axis=0).astype(np.int64), "went_out": went.astype(np.int64),
        "points_sum": pts.sum(axis=0), "points_sq": (pts ** 2).sum(axis=0),
        **{f"{m}_x{q}": cross[m][:, q] for m in sums.CROSS_METRICS for q in range(sums.MAX_SEATS)},
        **_ref_jack_sums(loss_x, res.wild_held, np.asarray(res.wilds_dealt), decided, list(strategies)),
        **left_pos,
    })
    hist = pd.concat([pd.DataFrame({"kind": k, "bin": np.arange(len(h)), "count": h.astype(np.int64)})
                      for k, h in hists], ignore_index=True)
    return {"positions": positions, "totals": pd.DataFrame([totals]), "hist": hist}


# --- the chunks ----------------------------------------------------------------------------------------
LINE = ("wild-keeper", "wild-dumper", "greedy", "wild-keeper")


def _sim(variant, players, n, overrides=None, matches=False, line=LINE):
    rules = make_rules(variant, players, overrides or {})
    strats = [get_strategy(s) for s in line[:players]]
    res = (simulate_matches if matches else simulate_deals)(rules, strats, n, seed=11)
    return res, list(line[:players]), rules


def _capped(res):
    """Every third deal stopped by the turn cap (no winner, no loser), a few without wilds recorded."""
    out = dataclasses.replace(res, **{f.name: getattr(res, f.name).copy() for f in dataclasses.fields(res)})
    cap = np.arange(len(out)) % 3 == 0
    out.end[cap], out.winner[cap], out.loser[cap], out.went_out[cap] = END_CAPPED, -1, -1, -1
    out.wilds_dealt[1::7] = -1
    return out


def _random(n, p, seed):
    """Hand-made deals of ``p`` seats with frequent points ties, wilds and unknown dealt counts."""
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 4, (n, p)).astype(np.int16) * 5
    winner = rng.integers(0, p, n).astype(np.int8)
    points[np.arange(n), winner] = 0
    loser = np.argmax(np.where(np.arange(p) == winner[:, None], -1, points), axis=1).astype(np.int8)
    end = rng.choice([END_OUT, END_BLOCKED, END_CAPPED], n, p=[0.7, 0.2, 0.1]).astype(np.int8)
    capped = end == END_CAPPED
    winner[capped], loser[capped] = -1, -1
    return DealResults(points=points, went_out=np.where(end == END_OUT, winner, -1).astype(np.int8), winner=winner,
                       loser=loser, loser_by_wild=rng.random(n) < 0.05, wild_held=rng.random((n, p)) < 0.3, end=end,
                       turns=rng.integers(5, 300, n).astype(np.int32), last_card=np.zeros(n, np.int8),
                       turnovers=rng.integers(0, 3, n).astype(np.int16),
                       wilds_dealt=rng.integers(-1, 4, (n, p)).astype(np.int8),
                       cards_left=np.where(np.arange(p) == winner[:, None], 0, rng.integers(1, 12, (n, p))).astype(np.int8))


def _tie():
    """czech 4p: seats 1 and 2 tie for the дурак on 15 points."""
    return DealResults(points=np.array([[0, 15, 15, 3]], np.int16), went_out=np.array([0], np.int8),
                       winner=np.array([0], np.int8), loser=np.array([1], np.int8), loser_by_wild=np.array([False]),
                       wild_held=np.array([[False, False, False, True]]), end=np.array([END_OUT], np.int8),
                       turns=np.array([30], np.int32), last_card=np.array([3], np.int8), turnovers=np.zeros(1, np.int16))


def _chunks():
    czech, czech_line, czech_rules = _sim("czech", 4, 1500)
    prague, prague_line, prague_rules = _sim("prague", 4, 1500)  # PR7: the wild rule acts on single deals
    svinya, svinya_line, svinya_rules = _sim("svinya", 2, 150, {"target": 40}, matches=True)
    shared = _capped(czech)
    shared.loss_share = sums.deal_losses(shared, False)[0] / 2  # a chunk that carries its own shares
    return {
        "czech 4p": (czech, czech_line, czech_rules),
        "czech 4p, wild rule on deals": (czech, czech_line, make_rules("czech", 4, {"wild_rule": "deal"})),
        "prague 4p": (prague, prague_line, prague_rules),
        "prague 4p, no rules given": (prague, prague_line, None),
        "svinya matches": (svinya, svinya_line, svinya_rules),
        "capped czech 4p": (_capped(czech), czech_line, czech_rules),
        "capped prague 4p": (_capped(prague), prague_line, prague_rules),
        "carries loss_share": (shared, czech_line, czech_rules),
        "points tie": (_tie(), ["a", "b", "c", "d"], make_rules("czech", 4)),
        "8 seats, one strategy": (_random(3000, 8, 1), ["x"] * 8, make_rules("czech", 8, {"wild_rule": "deal"})),
        "8 seats, three strategies": (_random(3000, 8, 2), list("xyzxyzxx"), make_rules("czech", 8)),
        "3 seats, no wild rule": (_random(2000, 3, 3), list("xyx"), make_rules("czech", 3)),
    }


CHUNKS = _chunks()


@pytest.mark.parametrize("name", CHUNKS)
def test_summarize_is_the_reference_bit_for_bit(name):
    res, line, rules = CHUNKS[name]
    got, want = sums.summarize(res, line, rules), _ref_summarize(res, line, rules)
    assert list(got) == list(want)
    moments = [*sums.HELD_MOMENTS, *sums.DEALT_MOMENTS]  # exact in the code (integer sums), summed in floats here
    pd.testing.assert_frame_equal(got["totals"].drop(columns=moments), want["totals"].drop(columns=moments),
                                  check_exact=True)
    np.testing.assert_allclose(got["totals"][moments].to_numpy(float), want["totals"][moments].to_numpy(float),
                               rtol=1e-12, atol=1e-9)
    assert (got["totals"][["lm_1_1", "dm_1_1"]].to_numpy() > 0).all() or name in ("svinya matches", "points tie")
    pd.testing.assert_frame_equal(got["hist"], want["hist"], check_exact=True)
    g, w = got["positions"], want["positions"]
    assert list(g.columns) == list(w.columns) == list(sums.POSITION_COLUMNS)
    assert g.dtypes.equals(w.dtypes)
    exact = [c for c in g.columns if c not in sums.HV_COLUMNS or c in ("hv_bb", "hv_ee")]
    for c in exact:  # bit for bit (NaN-free), not merely close
        assert g[c].tolist() == w[c].tolist(), c
    for c in sums.HV_COLUMNS:
        np.testing.assert_allclose(g[c].to_numpy(), w[c].to_numpy(), rtol=1e-12, atol=0, err_msg=c)
    assert (g["hv_bb"] > 0).any() or name in ("points tie", "svinya matches")  # the products were exercised


@pytest.mark.parametrize("name", [k for k in CHUNKS if CHUNKS[k][0].__class__ is DealResults])
def test_deal_losses_is_the_reference_bit_for_bit(name):
    res, _, rules = CHUNKS[name]
    for deal_rule in (False, True):
        loss, by_wild = sums.deal_losses(res, deal_rule)
        r_loss, r_by_wild = _ref_deal_losses(res, deal_rule)
        assert loss.dtype == r_loss.dtype and np.array_equal(loss, r_loss)
        assert by_wild.dtype == r_by_wild.dtype and np.array_equal(by_wild, r_by_wild)


def test_the_chunks_hold_what_they_are_meant_to():
    """Shared losses (ties), deals decided by the wild rule, capped deals and unknown dealt counts all occur."""
    prague, _, rules = CHUNKS["prague 4p"]
    loss, by_wild = sums.deal_losses(prague, True)
    assert ((loss > 0).sum(axis=1) > 1).any() and by_wild.any()
    capped, _, _ = CHUNKS["capped czech 4p"]
    assert (capped.end == END_CAPPED).any() and (capped.wilds_dealt < 0).any()
    rnd, _, _ = CHUNKS["8 seats, one strategy"]
    assert (rnd.wilds_dealt >= 3).any() and ((sums.deal_losses(rnd, True)[0] > 0).sum(axis=1) > 2).any()


def test_rows_frame_is_pandas_own_frame_of_the_rows() -> None:
    """The chunks' totals rows (sums.rows_frame) built from one block per dtype: the same columns, order, dtypes
    and values as ``pd.DataFrame(rows)``; anything but ints and floats goes to pandas' own inference."""
    values = {"n": 7, "a": 0.5, "b": np.int64(3), "c": np.float64(-2.25), "d": 2**40, "e": 1e300}
    pd.testing.assert_frame_equal(sums.rows_frame([values]), pd.DataFrame([values]))
    more = [values, {**values, "n": 9, "a": -0.125, "d": 5}]
    pd.testing.assert_frame_equal(sums.rows_frame(more), pd.DataFrame(more))
    odd = {"n": 1, "flag": True, "x": 0.5}
    pd.testing.assert_frame_equal(sums.rows_frame([odd]), pd.DataFrame([odd]))
