"""Hands dealt by player, not by seat, in the compiled kernel's matches (SV2: svinya's matches).

Under SV2 the winner of a deal leads the next, so which player receives which
hand of deck ``k`` follows the earlier deals; a duplicate design deals every
deck's hands by player instead (analyzer.stats.tournament, "Dealing by
strategy").  The kernel alone and the kernel paused at Python strategies deal so (the same matches, deal by
deal, for the Python forms of deterministic built-ins); every player gets the same hand of a deck whoever
deals.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.outcomes import MatchResults
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.core.streams import base_key
from analyzer.engine.match import arrange_deck, hand_positions
from analyzer.execution.benchmark import PythonForm
from analyzer.kernel.matches import simulate_matches as kernel_matches
from analyzer.kernel.pause import simulate_paused_matches


def _differ(a: MatchResults, b: MatchResults) -> list[str]:
    return [f.name for f in fields(a) if not np.array_equal(getattr(a, f.name), getattr(b, f.name))]


@pytest.mark.parametrize("variant, players, hands, lineup", [
    ("svinya", 2, (1, 0), ("greedy", "weighted")),  # SV2: the dealer follows the winner
    ("svinya", 2, (0, 1), ("suit-keeper", "wild-dumper")),
    ("czech", 3, (2, 0, 1), ("weighted", "aggressive", "greedy")),  # CZ2: the deal passes to the left
    ("prague", 2, (1, 0), ("wild-keeper", "weighted")),  # PR2: the dealer's last dealt card is the lead
])
def test_paused_matches_dealt_by_player_equal_the_kernels_own_deal_by_deal(variant, players, hands,
                                                                         lineup) -> None:
    rules = make_rules(variant, players, {"target": 60})
    strats = [get_strategy(s) for s in lineup]
    ss = np.random.SeedSequence(11)
    k = 40
    decks = shuffled_decks(rules.deck_size, 50 * k, np.random.default_rng(3)).reshape(50, k, rules.deck_size)
    a = kernel_matches(rules, strats, 50, base_key(ss), decks=decks, threads=1, hands=hands)
    b = simulate_paused_matches(rules, [PythonForm(s) for s in strats], 50, base_key(ss),
                                play_rng=np.random.default_rng(0), decks=decks, hands=hands)
    assert _differ(a, b) == []
    assert a.deals.max() > 2
    by_seat = kernel_matches(rules, strats, 50, base_key(ss), decks=decks, threads=1)
    if hands != tuple(range(players)):  # dealing by player changes the matches
        assert _differ(a, by_seat) != []


def test_by_player_every_deck_gives_each_player_the_same_hand_whoever_deals() -> None:
    """The kernel's arrangement of a deck (arrange_hands) is the numpy one (arrange_deck), for every dealer."""
    from analyzer.kernel.matches import arrange_hands

    rules = make_rules("czech", 3, {})
    n, h = 3, rules.hand_size
    deck = shuffled_decks(rules.deck_size, 1, np.random.default_rng(0))[0]
    for hands in ((0, 1, 2), (2, 0, 1), (1, 2, 0)):
        for dealer in range(n):
            got = deck.astype(np.int64).copy()
            arrange_hands(got, np.zeros(n * h, np.int64), dealer, np.asarray(hands, np.int64), n, h)
            want = arrange_deck(deck[None], dealer, hands, players=n, hand_size=h)[0]
            assert np.array_equal(got, want)
            # and the player at seat s = (player - dealer) % n receives canonical hand hands[player]
            for player in range(n):
                seat = (player - dealer) % n
                dealt = got[[i for i in range(n * h) if (i + 1) % n == seat]]
                assert sorted(dealt) == sorted(deck[hand_positions(n, h)[hands[player]]])


def test_hands_must_be_a_permutation() -> None:
    rules = make_rules("svinya", 2, {})
    with pytest.raises(ValueError, match="permutation"):
        kernel_matches(rules, [get_strategy("greedy")] * 2, 2, 0, hands=(0, 0))


@pytest.mark.parametrize("variant, specs", [("svinya", ["greedy", "weighted", "suit-keeper"]),
                                            ("czech", ["wild-keeper", "wild-dumper"])])
def test_duplicate_match_comparisons_replay_with_more_decks_when_a_match_outlasts_them(variant, specs,
                                                                                      monkeypatch) -> None:
    """``durak compare --matches`` chunks on the kernel (hands by player in svinya): a chunk given two decks a
    match meets a match that needs more and plays again with more decks."""
    from analyzer.execution.runs import compare as compare_run

    rules = make_rules(variant, 2, {"target": 60})
    calls: list[int] = []
    real = compare_run.simulate_chunk

    def spy(*a: Any, **k: Any) -> Any:
        calls.append(k["decks"].shape[1])
        return real(*a, **k)

    monkeypatch.setattr(compare_run, "simulate_chunk", spy)
    short = compare_run.compare_chunk(rules, specs, 40, 5, 0, True, match_decks=2)  # 2 decks: must grow
    assert calls[0] == 2 and max(calls) > 2
    # each strategy's score is its mean win share over its k - 1 pairs, each pair's win shared out whole:
    # k (k - 1) / 2 pairs over k - 1 pairs a strategy is k / 2 a deck
    assert np.allclose(short["scores"]["win"].sum(axis=1), len(specs) / 2)


def test_svinya_match_comparisons_on_the_kernel_keep_the_duplicate_narrowing(monkeypatch) -> None:
    """Dealt by player, the paired interval of a svinya match comparison on the kernel is
    narrower than with a fresh deck per game (measured 1.03-1.09x, four pairs, 4,000 matches); dealt by seat
    it is wider (0.87-0.88x), the rotations no longer swapping the hands of a deck."""
    from analyzer.execution.runs import compare as compare_run
    from analyzer.stats.compare import summarize_comparison

    calls: list[int] = []
    real = compare_run.simulate_chunk

    def spy(*a: Any, **k: Any) -> Any:
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(compare_run, "simulate_chunk", spy)
    rules = make_rules("svinya", 2, {})

    def narrowing() -> float:
        cmp = compare_run.run_compare(rules, ["greedy", "weighted"], 1500, seed=0, matches=True, jobs=1)
        return float(summarize_comparison(cmp)["narrowing_median"])

    by_player = narrowing()
    assert calls  # the compiled engine played
    monkeypatch.setattr(compare_run, "deals_by_player", lambda r: False)
    by_seat = narrowing()
    assert by_player > 1.0 > by_seat and by_player - by_seat > 0.1, (by_player, by_seat)
