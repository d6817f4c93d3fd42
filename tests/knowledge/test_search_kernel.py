"""The compiled search (analyzer.kernel.search): its sampler is the exact one, its rollouts the engine's.

* The compiled counting table counts exactly the consistent assignments, and
  its draws match the uniform distribution over them (chi-square, as the
  Python sampler's test).
* A (world, action) rollout in the kernel ends as the engine does when the
  engine applies the same action to the same world and the kernel plays on
  from the encoded position (deterministic rollout policy and options).
* ``pimc`` uses only its view: deals that differ only in hidden cards give it
  the same knowledge, and it makes the same choice.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from analyzer.core.cards import DRAW, deck, rank_of
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, forced_action
from analyzer.kernel.lineup import compile_lineup
from analyzer.kernel.params import rule_params
from analyzer.kernel.positions import encode_deal, play_from_positions
from analyzer.kernel.search import BOTH, LOSER, MAX_TABLE, count_table, draw_worlds, search_scores
from analyzer.knowledge.observer import Knowledge, Public, mask
from analyzer.knowledge.sampler import Sampler, World, classes_of
from analyzer.knowledge.search import world_arrays
from analyzer.knowledge.table import public_table, world_deal
from strategies.pimc import Pimc
from tests.knowledge.test_knowledge import consistent


def chi2_critical(df: int, z: float = 3.09) -> float:
    """Upper 0.1% point of chi-square (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("max_dense", [MAX_TABLE, 0], ids=["dense", "sparse"])
def test_compiled_sampler_matches_exact_enumeration(max_dense: int) -> None:
    """7 cards, classes seat 1 (2 places), seat 2 (2), talon (3): counts and draws against enumeration, from the
    dense counting table and from the sparse one (reachable room vectors only)."""
    pool = (0, 1, 2, 3, 4, 5, 6)
    allowed = (mask([0, 1, 2, 3]), mask([2, 3, 4, 5, 6]), mask(list(pool)))
    size = np.array([2, 2, 3], np.int64)
    owner = np.array([1, 2, -1], np.int64)
    valid = [a for a in itertools.product(range(3), repeat=7)
             if all(allowed[k] >> c & 1 for c, k in zip(pool, a)) and Counter(a) == Counter({0: 2, 1: 2, 2: 3})]
    fits = np.array([[m >> c & 1 for m in allowed] for c in pool], np.bool_)
    f, stride, keys, start = count_table(fits, size, max_dense)
    assert len(keys) == (0 if max_dense else len(f))
    assert f[0 if max_dense == 0 else -1] == len(valid)
    draws = 40 * len(valid)
    fixed = np.zeros(3, np.uint64)
    hands, talons = draw_worlds(f, stride, keys, start, fits, size, owner, np.array(pool, np.int64), fixed,
                                np.zeros(0, np.int64), 3, draws, 12345)
    seen: Counter[tuple[int, ...]] = Counter()
    for w in range(draws):
        cls = tuple(0 if int(hands[w, 1]) >> c & 1 else 1 if int(hands[w, 2]) >> c & 1 else 2 for c in pool)
        assert sorted(talons[w]) == [c for c, k in zip(pool, cls) if k == 2]
        seen[cls] += 1
    assert set(seen) <= set(valid)
    expected = draws / len(valid)
    chi2 = sum((seen.get(v, 0) - expected) ** 2 / expected for v in valid)
    assert chi2 < chi2_critical(len(valid) - 1), chi2
    # the talon's order is uniform too: the top card is each of its three cards about equally often
    tops = Counter(int(t[0]) for t in talons if sorted(t) == [4, 5, 6])
    assert len(tops) == 3 and min(tops.values()) > 0.2 * sum(tops.values())


def _walk(rules, seed: int, me: int, stop: int):
    """A deal played with random legal moves to ``me``'s ``stop``-th real decision; (deal, knowledge)."""
    rng = np.random.default_rng(seed)
    cards = list(deck(rules.deck_size))
    rng.shuffle(cards)
    deal = Deal.from_deck(rules, cards, rng=np.random.default_rng(seed))
    k = Knowledge.start(deal, me)
    seen = 0
    while not deal.done:
        action = forced_action(deal)
        if action is None and deal.current == me:
            if seen == stop:
                return deal, k
            seen += 1
        before = Public.of(deal, me)
        suit = None
        if action is None:
            legal = deal.legal_actions()
            action = int(legal[rng.integers(len(legal))])
            if action < DRAW and rank_of(action) == rules.wild_rank:
                suit = int(rng.integers(4))
        deal.apply(action, suit)
        k.observe(before, action, Public.of(deal, me))
    return None, None


CASES = [("czech", 2, {}), ("czech", 4, {"sevens": True}), ("prague", 3, {}), ("svinya", 2, {}),
         ("czech", 2, {"reshuffle": "shuffle"})]


@pytest.mark.parametrize("variant,players,options", CASES, ids=[f"{v}{p}-{o}" for v, p, o in CASES])
def test_kernel_rollouts_end_as_the_engine_plays_on(variant: str, players: int, options: dict) -> None:
    rules = make_rules(variant, players, options)
    weighted = get_strategy("weighted")
    kinds, weights = compile_lineup([weighted] * players)
    p = rule_params(rules)
    checked = 0
    for seed in range(8):
        deal, k = _walk(rules, seed, me=1 % players, stop=seed % 4)
        if deal is None:
            continue
        table = public_table(deal, deal.current)
        hands, talons = world_arrays(k, 2, seed)
        pos = encode_deal(table)
        options_ = Pimc().candidates(deal.view(), table)
        for w in range(2):
            world = World(tuple(tuple(c for c in range(52) if int(hands[w, s]) >> c & 1) for s in range(players)),
                          tuple(int(c) for c in talons[w, :k.talon_size]))
            assert consistent(k, [list(h) for h in world.hands], list(world.talon)) is None
            for action, suit in options_:
                # budget 0, min_worlds 1, no totals and tolerance 0 passed as pimc passes them, not left to their defaults: numba types
                # an omitted argument apart, so the call runs the signature the suite's warm-up compiled
                got, got_both = (search_scores(p, kinds, weights, pos.st[0], pos.m[0], pos.ring[0], hands[w:w + 1],
                                               talons[w:w + 1], k.talon_size, np.array([action]),
                                               np.array([-1 if suit is None else suit]), deal.current, objective,
                                               seed, 0, 1, None, 0.0, 2.0)[0][0] for objective in (LOSER, BOTH))
                d = world_deal(table, world, np.random.default_rng(0))
                d.apply(action, suit)
                if d.done:
                    o = d.outcome
                    assert o is not None
                    lost, won, pts = o.loser == deal.current, o.winner == deal.current, o.points[deal.current]
                else:
                    res = play_from_positions(rules, [weighted] * players, encode_deal(d), seed=seed)
                    q = (deal.current - 1) % players  # results by position: position q is seat q + 1
                    lost, won, pts = res.loser[0] == q, res.winner[0] == q, res.points[0, q]
                if "reshuffle" not in options:  # a shuffled turn-over draws from each engine's own stream
                    assert got == pytest.approx(-float(lost) - pts / 10_000), (seed, w, action, suit)
                    assert got_both == pytest.approx(float(won) - float(lost) - pts / 10_000), (seed, w, action, suit)
                checked += 1
    assert checked >= 8


def test_pimc_sees_only_its_view() -> None:
    """Deals alike in everything seat 1 sees (its hand, the starter, sizes) but not in hidden cards: same choice."""
    rules = make_rules("czech", 2, {})
    rng = np.random.default_rng(3)
    compared = 0
    for trial in range(6):
        cards = [int(c) for c in rng.permutation(deck(32))]
        mine, starter, rest = cards[:5], cards[5], cards[6:]
        choices = []
        for hidden in (rest, [rest[i] for i in rng.permutation(len(rest))]):
            deal = Deal.start(rules, [hidden[:5], mine], hidden[5:], starter, rng=np.random.default_rng(0))
            if deal.current != 1 or forced_action(deal) is not None:
                continue
            pimc = Pimc(worlds=16)
            choices.append(pimc.choose_known(deal.view(), Knowledge.start(deal, 1), public_table(deal, 1),
                                             np.random.default_rng(trial)))
        assert len(set(choices)) <= 1
        compared += len(choices) == 2
    assert compared >= 2


#: czech 3p house rules with long deals (hands of 7, sevens that accumulate, draw until a card plays): three
#: players' void histories split the hidden cards into many classes
LONG_CZECH = {"deck_size": 48, "hand_size": 7, "sevens": True, "seven_chain": "accumulate", "queen_needs_king": True,
              "no_card": "draw_until_play", "voluntary_draw": True, "reshuffle": "shuffle"}


def test_a_knowledge_past_the_dense_table_is_drawn_from_the_reachable_room_vectors() -> None:
    """A real czech 3p knowledge whose dense counting table would hold ~1.7e8 entries (17 classes): the sparse
    table counts what the Python sampler counts, its worlds are consistent with the knowledge and are the
    worlds the dense table draws on the same key (checked on smaller knowledge forced sparse)."""
    rules = make_rules("czech", 3, LONG_CZECH)
    deal, k = _walk(rules, 26, me=0, stop=45)
    assert deal is not None
    cls = classes_of(k)
    assert math.prod(z + 1 for z in cls.size) > 50 * MAX_TABLE
    fits = np.array([[m >> c & 1 for m in cls.allowed] for c in cls.pool], np.bool_)
    f, _stride, keys, _start = count_table(fits, np.array(cls.size, np.int64), MAX_TABLE)
    assert 0 < len(keys) < MAX_TABLE and f[0] == Sampler(cls).total
    hands, talons = world_arrays(k, 64, 3, MAX_TABLE)
    for w in range(64):
        world = [[c for c in range(52) if int(hands[w, s]) >> c & 1] for s in range(3)]
        assert consistent(k, world, [int(c) for c in talons[w, :k.talon_size]]) is None
    assert len({tuple(h) for h in hands.tolist()}) > 32  # draws, not one world repeated
    for seed, stop in [(5, 2), (19, 12), (21, 20)]:  # smaller knowledge: both forms, the same worlds
        deal, k = _walk(rules, seed, me=1, stop=stop)
        assert deal is not None
        dense, sparse = world_arrays(k, 32, seed, MAX_TABLE), world_arrays(k, 32, seed, 0)
        assert np.array_equal(dense[0], sparse[0]) and np.array_equal(dense[1], sparse[1])


@pytest.mark.parametrize("variant,players,options", [("czech", 4, {"target": 100}), ("czech", 3, {"target": 60, "wild_rule": "off"}),
                                                     ("prague", 4, {"target": 100}), ("svinya", 2, {})])
def test_a_rollout_that_ends_the_match_is_scored_as_the_engine_scores_the_match(variant: str, players: int,
                                                                              options: dict) -> None:
    """match_shares (the search's match objective) = analyzer.engine.match.match_outcome (G11, CZ7, PR7, SV7)."""
    from analyzer.engine.match import match_outcome
    from analyzer.kernel.search import match_shares

    rules = make_rules(variant, players, options)
    assert rules.target is not None
    p = rule_params(rules)
    gen = np.random.default_rng(players)
    ended_seen = 0
    for _ in range(400):
        totals = gen.integers(0, rules.target, players).astype(np.int64)
        pts = gen.choice([0, 3, 10, 20, 40], players).astype(np.int64)  # coarse values: ties happen
        held = gen.random(players) < 0.3
        win, loss, _ = match_outcome(rules, (totals + pts)[None, :], held[None, :])
        for me in range(players):
            ended, w, lo = match_shares(totals, pts, held, p, me)
            assert ended == bool((totals + pts).max() >= rules.target)
            if ended:
                ended_seen += 1
                assert (w, lo) == pytest.approx((win[0, me], loss[0, me])), (totals, pts, held, me)
    assert ended_seen > 100
