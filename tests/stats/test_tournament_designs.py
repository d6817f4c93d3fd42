"""Tournament designs: who meets whom, in which seat, on which decks; dealing by strategy (SV2)."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import deal_hands
from analyzer.engine.match import DealingError, arrange_deck, first_dealer, hand_positions, hands_by_player
from analyzer.stats.tournament import (
    DESIGNS,
    TournamentError,
    field,
    head_to_head,
    hero,
    hero_scores,
    make_design,
    round_robin,
)

SEVEN = ["random", "greedy", "weighted", "suit-keeper", "aggressive", "wilds", "weighted?w_wild=2"]


@pytest.mark.parametrize("k", [2, 3, 4, 7])
def test_round_robin_every_pair_meets_in_every_seating_on_the_same_decks(k: int) -> None:
    d = round_robin(SEVEN[:k])
    assert len(d.tables) == k * (k - 1)  # every ordered pair once
    seatings = Counter(d.lineup(t) for t in range(len(d.tables)))
    assert set(seatings) == {(a, b) for a, b in permutations(SEVEN[:k], 2)}
    assert set(seatings.values()) == {1}
    for g, (i, j) in enumerate(d.pairs):
        mine = [t for t in d.tables if t.group == g]
        assert sorted(t.seats for t in mine) == sorted([(i, j), (j, i)])
        assert len({t.deck_stream for t in mine}) == 1  # duplicate: both seatings on one stream
        assert {t.hands for t in mine} == {(0, 1)}
    assert d.n_streams == 1


def test_round_robin_separate_streams_still_pair_the_seatings() -> None:
    d = round_robin(SEVEN[:4], shared_decks=False)
    assert d.n_streams == 6
    for g in range(6):
        assert {t.deck_stream for t in d.tables if t.group == g} == {g}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_hero_puts_each_strategy_in_every_position_against_the_reference(players: int) -> None:
    specs = ["random", "greedy", "weighted"]
    d = hero(specs, players, reference="greedy")
    assert len(d.tables) == len(specs) * players
    assert d.entrants == tuple(specs)  # greedy as reference is the same entrant
    for h in range(len(specs)):
        mine = [t for t in d.tables if t.group == h]
        assert sorted(t.scored[0] for t in mine) == list(range(players))
        for t in mine:
            p = t.scored[0]
            assert t.seats[p] == h
            assert [d.entrants[e] for q, e in enumerate(t.seats) if q != p] == ["greedy"] * (players - 1)
            assert t.deck_stream == 0 and t.hands == tuple(range(players))
    assert f"{players - 1} cop" in d.measures and "greedy" in d.measures


def test_hero_background_fills_the_other_positions_in_order() -> None:
    d = hero(["weighted", "aggressive"], 4, background=["random", "greedy", "random"])
    assert d.entrants == ("weighted", "aggressive", "random", "greedy")
    assert d.lineup(0) == ("weighted", "random", "greedy", "random")
    assert d.lineup(2) == ("random", "greedy", "weighted", "random")
    assert d.lineup(7) == ("random", "greedy", "random", "aggressive")
    assert "the field random, greedy, random" in d.measures


def test_field_is_the_rotation_of_compare() -> None:
    d = field(["a.py:A", "b.py:B", "c.py:C"], 4)
    assert [t.seats for t in d.tables] == [(0, 1, 2, 0), (1, 2, 0, 1), (2, 0, 1, 2)]
    # each strategy in each position exactly once per deck
    for p in range(4):
        assert sorted(t.seats[p] for t in d.tables) == [0, 1, 2]
    assert "not a head-to-head" in d.measures


@pytest.mark.parametrize("name", DESIGNS)
def test_every_design_says_what_it_measures_in_one_sentence(name: str) -> None:
    d = make_design(name, ["random", "greedy"], 2, reference="greedy" if name == "hero" else None)
    assert d.name == name and d.measures and "\n" not in d.measures


@pytest.mark.parametrize(("call", "words"), [
    (lambda: round_robin(["random", "greedy"], 4), "round-robin is for 2 players"),
    (lambda: round_robin(["random"]), "at least 2 strategies, got 1"),
    (lambda: round_robin(["random", "greedy", "random"]), "'random' is given twice"),
    (lambda: round_robin(["weighted?w_wild=2,w_points=1", "weighted?w_points=1.0,w_wild=2"]), "given twice"),
    (lambda: round_robin(["random", "greedy"], 1), "at least 2, got 1"),
    (lambda: round_robin(["random", "weighted?w_wild"]), "bad strategy parameter 'w_wild'"),
    (lambda: hero([], 3, reference="greedy"), "at least 1 strategy, got 0"),
    (lambda: hero(["random"], 3), "exactly one of a reference strategy or a background"),
    (lambda: hero(["random"], 3, reference="greedy", background=["a", "b"]), "exactly one of"),
    (lambda: hero(["random"], 3, background=["greedy"]), "names 2 strategies, got 1"),
    (lambda: field(["random"], 3), "at least 2 strategies"),
    (lambda: make_design("swiss", ["random", "greedy"], 2), "unknown design 'swiss'; choose one of round-robin"),
    (lambda: make_design("field", ["random", "greedy"], 2, reference="greedy"), "belongs to the hero design"),
])
def test_impossible_requests_are_one_line_errors(call, words: str) -> None:
    with pytest.raises(TournamentError) as e:
        call()
    assert words in str(e.value) and "\n" not in str(e.value)


def test_head_to_head_averages_the_two_seatings() -> None:
    d = round_robin(["A", "B", "C"])
    # tables: (A,B) (B,A) (A,C) (C,A) (B,C) (C,B); 2 decks
    wins: list[list[list[float]]] = [
        [[1, 0], [1, 0]],  # A first beats B on both decks
        [[1, 0], [0, 1]],  # B first: B wins deck 0, A wins deck 1
        [[0, 1], [0, 0]],  # A vs C: C wins deck 0, deck 1 capped
        [[1, 0], [0, 1]],  # C first
        [[0.5, 0.5], [0, 1]],
        [[0, 1], [1, 0]],
    ]
    s = head_to_head(d, wins)
    assert s.shape == (2, 3, 3) and np.isnan(s[:, [0, 1, 2], [0, 1, 2]]).all()
    assert s[:, 0, 1].tolist() == [0.5, 1.0] and s[:, 1, 0].tolist() == [0.5, 0.0]
    assert s[:, 0, 2].tolist() == [0.0, 0.5] and s[:, 2, 0].tolist() == [1.0, 0.0]  # a capped deal: no one's win
    assert s[:, 1, 2].tolist() == [0.75, 0.0] and s[:, 2, 1].tolist() == [0.25, 1.0]
    with pytest.raises(TournamentError, match="6 tables in the design, results for 5"):
        head_to_head(d, wins[:5])


def test_hero_scores_read_only_the_heros_position() -> None:
    d = hero(["X", "Y"], 3, reference="R")
    res = []
    for t in d.tables:
        a = np.full((4, 3), 9.0)
        a[:, t.scored[0]] = t.group + t.scored[0]  # hero value: group + position
        res.append(a)
    s = hero_scores(d, res)
    assert np.allclose(s[:, 0], (0 + 1 + 2) / 3) and np.allclose(s[:, 1], (1 + 2 + 3) / 3)


# ---------------------------------------------------------------- dealing by strategy (SV2)
def test_hands_by_player_is_the_engines_dealing() -> None:
    """The helper the tests trust deals like analyzer.engine.deal.deal_hands (G10a), seats turned into players."""
    rules = make_rules("czech", players=3)
    decks = shuffled_decks(rules.deck_size, 20, np.random.default_rng(1))
    for dealer in range(3):
        got = hands_by_player(decks, dealer, players=3, hand_size=rules.hand_size)
        for row in range(20):
            by_seat, _, _ = deal_hands(decks[row].tolist(), rules)
            for s in range(3):
                assert got[row, (dealer + s) % 3].tolist() == by_seat[s]


def test_canonical_hand_j_is_player_js_hand_from_the_first_dealer() -> None:
    decks = shuffled_decks(36, 5, np.random.default_rng(2))
    got = hands_by_player(decks, first_dealer(2), players=2, hand_size=5)
    for j, pos in enumerate(hand_positions(2, 5)):
        assert (got[:, j] == decks[:, pos]).all()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_arranged_decks_give_each_player_its_hand_whoever_deals(players: int) -> None:
    h = 5
    rng = np.random.default_rng(players)
    decks = shuffled_decks(52 if players > 2 else 36, 50, rng)
    canonical = hands_by_player(decks, first_dealer(players), players=players, hand_size=h)
    for perm in permutations(range(players)):
        dealer = rng.integers(0, players, 50)
        arranged = arrange_deck(decks, dealer, perm, players=players, hand_size=h)
        got = hands_by_player(arranged, dealer, players=players, hand_size=h)
        for p in range(players):
            assert (got[:, p] == canonical[:, perm[p]]).all()
        assert (arranged[:, players * h:] == decks[:, players * h:]).all()  # starter and talon untouched
        assert (np.sort(arranged, axis=1) == np.sort(decks, axis=1)).all()


def test_first_dealer_with_identity_hands_leaves_the_deck_alone() -> None:
    """Single deals (and deal 1 of a match) keep their seeded numbers: the arrangement is a no-op there."""
    decks = shuffled_decks(32, 10, np.random.default_rng(3))
    assert (arrange_deck(decks, first_dealer(2), [0, 1], players=2, hand_size=5) == decks).all()


def test_svinya_pair_swaps_the_hands_of_every_deck_whatever_the_leads() -> None:
    """SV2: the leader of deal k follows the previous winner; dealt by strategy, each strategy still plays
    each hand of deck k once over the two seatings of a pair (the widening case)."""
    rules = make_rules("svinya")
    d = round_robin(["A", "B"])
    decks = shuffled_decks(rules.deck_size, 40, np.random.default_rng(4))
    canon = hands_by_player(decks, first_dealer(2), players=2, hand_size=rules.hand_size)
    rng = np.random.default_rng(5)
    got: dict[str, list[np.ndarray]] = {"A": [], "B": []}
    for t in d.tables:
        dealer = rng.integers(0, 2, 40)  # any history of SV2 leads, independently per table
        arranged = arrange_deck(decks, dealer, t.hands, players=2, hand_size=rules.hand_size)
        dealt = hands_by_player(arranged, dealer, players=2, hand_size=rules.hand_size)
        for p, e in enumerate(t.seats):
            got[d.entrants[e]].append(dealt[:, p])
    for name in "AB":
        first, second = got[name]
        # the two hands a strategy received are the two canonical hands of the deck, once each
        assert ((first == canon[:, 0]) & (second == canon[:, 1])).all() or \
            ((first == canon[:, 1]) & (second == canon[:, 0])).all()
    assert (got["A"][0] == got["B"][1]).all()


def test_arrange_deck_rejects_a_non_permutation() -> None:
    with pytest.raises(DealingError, match="permutation"):
        arrange_deck(np.zeros((1, 36), np.int8), 0, [0, 0], players=2, hand_size=5)


