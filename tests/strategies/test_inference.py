"""The opponent model of ``expert?infer=``: the plays it reads off the log, its likelihood against a readable
reference, the resampling, and the worlds the search then gets."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import strategies.expert as expert_module
from analyzer.core.bits import BIT, popcount
from analyzer.core.cards import shuffled_decks
from analyzer.core.contract import EVENT_KINDS
from analyzer.core.public import pack_events
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.execution.executor import play_decks
from analyzer.kernel.state import PLAYED
from strategies.inference import (
    Choice,
    kept_draw,
    log_likelihood,
    modelled,
    observed_choices,
    older_log_likelihood,
    reaches_back,
    resample,
)
from strategies.weighted import DEFAULTS, THREAT_FROM

CZECH = make_rules("czech", 2, {})


def _log(*events: tuple[int, int, str, int, int]) -> np.ndarray:
    turn, seat, kind, card, suit = zip(*events)
    return pack_events(list(turn), list(seat), [EVENT_KINDS.index(k) for k in kind],
                       [63 if c < 0 else c for c in card], list(suit))


def test_the_plays_read_are_those_since_the_last_draw_that_kept_a_card() -> None:
    # card ids: (rank value - 2) * 4 + suit
    log = _log((1, 1, "play", 10, -1),   # before the kept draw: not read
               (2, 0, "play", 14, -1),
               (3, 1, "draw", -1, -1),   # kept: the window starts after it
               (4, 0, "play", 18, -1),
               (5, 1, "play", 22, -1),   # read: on 18, suit 2 (22 % 4 == 2)
               (6, 0, "draw", -1, -1),
               (7, 1, "draw", -1, -1),   # drawn and played at once: forced, hand unchanged
               (7, 1, "play", 26, -1),
               (8, 0, "play", 27, -1),
               (9, 1, "play", 31, -1))   # read: on 27, its rank
    got = observed_choices(log, 2, 3, CZECH)
    assert [c.card for c in got] == [22, 31]
    assert got[0] == Choice(top=18, active=2, card=22, suit=-1, later=(1 << 26) | (1 << 31), my_size=3)  # drew one, played one since
    assert got[1].top == 27 and got[1].active == 3 and got[1].later == 0 and got[1].my_size == 3


def test_the_model_is_used_only_where_the_reconstruction_holds() -> None:
    assert modelled(CZECH) and modelled(make_rules("prague", 2, {}))
    assert not modelled(make_rules("svinya", 2, {}))  # SV4: a draw may be followed by another card's play
    assert not modelled(make_rules("czech", 2, {"sevens": True}))
    assert not modelled(make_rules("czech", 2, {"queen_needs_king": True}))


def test_a_play_the_reconstruction_finds_illegal_is_left_out() -> None:
    log = _log((1, 1, "play", 13, -1))  # on the starter 2 (suit 2, rank value 2): 13 is suit 1, rank value 5
    assert observed_choices(log, 2, 5, CZECH) == []
    assert [c.card for c in observed_choices(log, 1, 5, CZECH)] == [13]  # on suit 1 it is legal


def _reference(hand: set[int], choices: list[Choice], rules: RuleSet, lam: float, without: int = -1) -> float:
    """The model's log-likelihood for one world, card by card in plain Python."""
    w = DEFAULTS
    total = 0.0
    for ch in choices:
        held = (hand | {c for c in range(52) if ch.later >> c & 1} | {ch.card}) - {without}
        options: list[tuple[float, bool]] = []
        for c in sorted(held):
            rank = c // 4 + 2
            wild = rank == rules.wild_rank
            if not (c % 4 == ch.active or rank == ch.top // 4 + 2 or (wild and rules.wild_on_anything)):
                continue
            rest = held - {c}
            counts = [sum(1 for x in rest if x % 4 == s) for s in range(4)]
            eff = rules.effects[rank]
            effect = 1 if (eff.draw > 0 or eff.skip) else 0
            base = (w["w_points"] * rules.points[rank] + w["w_wild"] * wild + w["w_effect"] * effect
                    + w["w_threat"] * effect * max(0, THREAT_FROM - ch.my_size)
                    + w["w_same_rank"] * sum(1 for x in rest if x // 4 + 2 == rank))
            if wild:
                options += [(base + w["w_suit_len"] * counts[s], c == ch.card and s == ch.suit) for s in range(4)]
            else:
                options.append((base + w["w_suit_len"] * counts[c % 4], c == ch.card))
        lse = math.log(sum(math.exp(lam * s) for s, _ in options))
        total += lam * next(s for s, chosen in options if chosen) - lse
    return total


def test_the_likelihood_is_the_readable_softmax_of_default_weighted() -> None:
    rng = np.random.default_rng(3)
    for rules in (CZECH, make_rules("prague", 2, {})):
        deck = list(range(52 - rules.deck_size, 52))  # the top ranks: 7..A (czech), 6..A (prague)
        jacks = [c for c in deck if c // 4 + 2 == rules.wild_rank]
        for i in range(40):
            cards = rng.choice(deck, size=12, replace=False).tolist()
            if i % 2 and not set(jacks) & set(cards[1:]):  # every other case: the choice is a wild and its suit
                cards[0] = jacks[i % 4]
            played, top = cards[:3], cards[3]
            suit = int(rng.integers(4)) if played[0] // 4 + 2 == rules.wild_rank else -1
            active = top % 4
            if not (played[0] % 4 == active or played[0] // 4 == top // 4):
                top = played[0] + (1 if played[0] % 4 < 3 else -1)  # same rank: legal
                active = top % 4
            ch = Choice(top, active, played[0], suit, (1 << played[1]) | (1 << played[2]), int(rng.integers(1, 7)))
            worlds = [set(rng.choice([c for c in deck if c not in cards[:4]], size=4, replace=False).tolist())
                      for _ in range(6)]
            hands = np.array([sum(1 << c for c in h) for h in worlds], np.uint64)
            for lam in (0.3, 1.0):
                got = log_likelihood(hands, [ch], rules, lam)
                want = [_reference(h, [ch], rules, lam) for h in worlds]
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_the_plays_before_the_last_kept_draw_average_over_the_card_it_brought() -> None:
    log = _log((1, 1, "play", 10, -1),   # read by segment 1: on the starter 2
               (2, 0, "play", 14, -1),
               (3, 1, "draw", -1, -1),   # kept: it brought a card not legal on 14 (suit 2, rank value 5)
               (4, 0, "play", 18, -1),
               (5, 1, "play", 23, -1))
    older = observed_choices(log, 2, 3, CZECH, segment=1)
    assert older == [Choice(top=2, active=2, card=10, suit=-1, later=1 << 23, my_size=5)]
    drawn = kept_draw(log, 2, CZECH)
    assert drawn is not None
    may, since = drawn
    legal_then = {c for c in range(52) if c % 4 == 2 or c // 4 == 3 or c // 4 + 2 == CZECH.wild_rank}
    assert {c for c in range(52) if may >> c & 1} == set(range(52)) - legal_then and since == 1 << 23
    assert observed_choices(log[:2], 2, 3, CZECH, segment=1) == [] and kept_draw(log[:2], 2, CZECH) is None
    worlds = [{21, 25, 30, 33}, {20, 29, 37, 41}, {24, 26, 34, 46}]  # 26, 34, 46 were legal on 14: never drawn
    hands = np.array([sum(1 << c for c in h) for h in worlds], np.uint64)
    got = older_log_likelihood(hands, older, may, since, CZECH, 0.7)
    for h, g in zip(worlds, got):
        xs = [x for x in h | {23} if may >> x & 1]
        want = math.log(np.mean([math.exp(_reference(h, older, CZECH, 0.7, without=x)) for x in xs])) if xs else 0.0
        assert g == pytest.approx(want, abs=1e-9)
    assert reaches_back(CZECH) and not reaches_back(make_rules("prague", 2, {}))  # prague: penalty draws


def test_resampling_never_picks_a_world_of_no_weight_and_follows_the_weights() -> None:
    with np.errstate(divide="ignore"):
        ll = np.log(np.array([0.0, 1.0, 3.0, 0.0]))
    pick = resample(ll, 4000, 0.37)
    assert set(pick.tolist()) == {1, 2}
    assert abs((pick == 2).mean() - 0.75) < 0.01
    assert (resample(np.zeros(5), 5, 0.5) == np.arange(5)).all()  # equal weights: every world once


def test_expert_searches_only_worlds_consistent_with_what_it_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every world the search gets after the inference gives the viewer its own hand and the opponent a hand of
    the right size with no card seen on the pile; and the inference did act."""
    seen: list[int] = []
    real = expert_module.search_scores

    def checked(p: Any, kinds: Any, weights: Any, st0: Any, m0: Any, ring0: Any, hands: Any, talons: Any, ts: int,
                actions: Any, suits: Any, me: int, *rest: Any) -> Any:
        opp = 1 - me
        assert (hands[:, me] == hands[0, me]).all()
        assert (hands[:, opp] & hands[:, me] == 0).all()
        assert (hands[:, opp] & m0[PLAYED] == 0).all()
        assert (popcount(hands[:, opp]) == popcount(hands[0, opp])).all()
        talon = np.bitwise_or.reduce(BIT[talons[:, :ts]], axis=1) if ts else np.zeros(len(hands), np.uint64)
        assert (talon & (hands[:, opp] | hands[:, me] | m0[PLAYED]) == 0).all()
        assert (popcount(talon) == ts).all()
        seen.append(len(np.unique(hands[:, opp])))
        return real(p, kinds, weights, st0, m0, ring0, hands, talons, ts, actions, suits, me, *rest)

    monkeypatch.setattr(expert_module, "search_scores", checked)
    called: list[int] = []
    real_resample = expert_module.resample

    def counted(*a: Any) -> Any:
        called.append(1)
        return real_resample(*a)

    monkeypatch.setattr(expert_module, "resample", counted)
    decks = shuffled_decks(CZECH.deck_size, 6, np.random.default_rng(8))
    play_decks(CZECH, [get_strategy("expert?infer=1,worlds=64,pool=256"), get_strategy("weighted")], decks,
               np.random.SeedSequence(2))
    assert seen and called


def test_expert_with_inference_plays_legal_deals_the_same_for_a_seed() -> None:
    """The simulator refuses an illegal move; the same seed gives the same deals (czech and prague)."""
    for variant in ("czech", "prague"):
        rules = make_rules(variant, 2, {})
        decks = shuffled_decks(rules.deck_size, 10, np.random.default_rng(5))
        out = []
        for _ in range(2):
            res = play_decks(rules, [get_strategy("expert?infer=1,pool=512"), get_strategy("weighted")], decks,
                             np.random.SeedSequence(1))
            out.append(np.stack([res.winner, res.turns, res.points[:, 0]]))
        assert (out[0] == out[1]).all()
