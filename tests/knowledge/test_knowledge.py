"""What a player knows: inference of voids, and determinizations that never contradict it.

* Soundness on random deals of every variant: at every step the *true* hidden
  state satisfies every inferred constraint, and every sampled world agrees
  with the knowledge (own hand, hand sizes, known cards, voids, the talon).
* The sampler's distribution equals exact enumeration on a small case
  (chi-square at the 0.1% level).
* Named rules: G6/G7 forced draw proves a void; SV4 a pass after drawing;
  G8 a turned-over pile makes later draws known cards.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from analyzer.core.cards import DRAW, deck, parse_card, rank_of, suit_of
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, forced_action
from analyzer.knowledge.observer import NEVER_SEEN, Knowledge, Public, cards_in, mask
from analyzer.knowledge.sampler import Classes, InconsistentKnowledge, Sampler, classes_of, sample_worlds
from analyzer.knowledge.search import world_arrays
from tests.helpers_engine import make_deal, play


def fits(cards: list[int], masks: list[int]) -> bool:
    """Some one-to-one matching puts every card in a slot that allows it (Kuhn's augmenting paths)."""
    if len(cards) != len(masks):
        return False
    owner: dict[int, int] = {}

    def augment(ci: int, seen: set[int]) -> bool:
        for si, m in enumerate(masks):
            if m >> cards[ci] & 1 and si not in seen:
                seen.add(si)
                if si not in owner or augment(owner[si], seen):
                    owner[si] = ci
                    return True
        return False

    return all(augment(ci, set()) for ci in range(len(cards)))


def consistent(k: Knowledge, hands: list[list[int]], talon: list[int]) -> str | None:
    """Why ``hands``/``talon`` contradict ``k`` (None when they agree)."""
    if sorted(hands[k.me]) != sorted(k.own):
        return "own hand differs"
    for s, h in enumerate(hands):
        if s == k.me:
            continue
        rest = list(h)
        for c in k.known_cards[s]:
            if c not in rest:
                return f"seat {s} lacks known card {c}"
            rest.remove(c)
        if not fits(rest, k.slot_masks(s)):
            return f"seat {s}'s hand {sorted(rest)} does not fit its slots"
    if k.talon_order is not None:
        if list(talon) != k.talon_order:
            return "talon order differs"
    else:
        tm = k.talon_mask()
        if len(talon) != k.talon_size or (tm is not None and any(not tm >> c & 1 for c in talon)):
            return "talon content impossible"
    everything = sorted([c for h in hands for c in h] + list(talon) + list(k.pile))
    if everything != sorted(deck(k.rules.deck_size)):
        return "cards missing or doubled"
    return None


CONFIGS = [
    ("czech", 2, {}), ("czech", 4, {}), ("czech", 3, {"sevens": True, "seven_chain": "accumulate"}),
    ("czech", 2, {"reshuffle": "shuffle"}), ("czech", 3, {"queen_needs_king": True, "eight_stop": True}),
    ("prague", 3, {}), ("prague", 2, {"reshuffle": "shuffle"}), ("svinya", 2, {}),
]


@pytest.mark.parametrize("variant,players,options", CONFIGS, ids=[f"{v}{p}-{o}" for v, p, o in CONFIGS])
def test_inference_is_sound_and_sampled_worlds_never_contradict_it(variant: str, players: int, options: dict) -> None:
    rules = make_rules(variant, players, options)
    rng = np.random.default_rng([players, len(options), 7])
    voids_seen = 0
    for d in range(12):
        cards = list(deck(rules.deck_size))
        rng.shuffle(cards)
        deal = Deal.from_deck(rules, cards, rng=np.random.default_rng(d))
        if deal.phase == "lead_suit":
            deal.apply(deal.pile[-1], int(rng.integers(4)))
        me = d % players
        k = Knowledge.start(deal, me)
        steps = 0
        while not deal.done:
            before = Public.of(deal, me)
            action = forced_action(deal)
            suit = None
            if action is None:
                legal = deal.legal_actions()
                action = int(legal[rng.integers(len(legal))])
                if action < DRAW and rank_of(action) == rules.wild_rank:
                    suit = int(rng.integers(4))
            deal.apply(action, suit)
            k.observe(before, action, Public.of(deal, me))
            why = consistent(k, deal.hands, deal.talon)
            assert why is None, f"deal {d} step {steps}: the truth contradicts the inference: {why}"
            voids_seen += sum(m != k.full | NEVER_SEEN for s in range(players) if s != me for m in k.slots[s])
            if steps % 7 == 3 and not deal.done:
                for w in sample_worlds(k, 3, rng):
                    why = consistent(k, [list(h) for h in w.hands], list(w.talon))
                    assert why is None, f"deal {d} step {steps}: a sampled world contradicts the view: {why}"
                hands, talons = world_arrays(k, 3, steps)  # the compiled sampler (pimc's)
                for row in range(3):
                    world = [[c for c in range(52) if int(hands[row, s]) >> c & 1] for s in range(players)]
                    why = consistent(k, world, [int(c) for c in talons[row, :k.talon_size]])
                    assert why is None, f"deal {d} step {steps}: a compiled world contradicts the view: {why}"
            steps += 1
    if not rules.voluntary_draw:  # svinya's draws may be by choice (SV4): only rare passes prove a void
        assert voids_seen > 0, "no void was ever inferred: the inference paths were not exercised"


def test_sampler_matches_exact_enumeration() -> None:
    """Chi-square against the uniform distribution over every consistent assignment (7 cards, 3 classes)."""
    pool = (0, 1, 2, 3, 4, 5, 6)
    allowed = (mask([0, 1, 2, 3]), mask([2, 3, 4, 5, 6]), mask(list(pool)))
    size = (2, 2, 3)
    cls = Classes(owner=(1, 2, -1), allowed=allowed, size=size, pool=pool)
    valid = [a for a in itertools.product(range(3), repeat=7)
             if all(allowed[k] >> c & 1 for c, k in zip(pool, a)) and Counter(a) == Counter({0: 2, 1: 2, 2: 3})]
    sampler = Sampler(cls)
    assert sampler.total == len(valid)
    rng = np.random.default_rng(11)
    draws = 40 * len(valid)
    counts = Counter(tuple(sampler.assignment(rng)) for _ in range(draws))
    assert set(counts) <= set(valid)
    expected = draws / len(valid)
    chi2 = sum((counts.get(v, 0) - expected) ** 2 / expected for v in valid)
    df = len(valid) - 1
    z = 3.09  # upper 0.1% of the standard normal; Wilson-Hilferty quantile of chi-square
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    assert chi2 < critical, f"chi2 {chi2:.1f} over {critical:.1f} with {df} df"


def test_sampler_refuses_impossible_knowledge() -> None:
    cls = Classes(owner=(1,), allowed=(mask([0]),), size=(2,), pool=(0, 1))
    with pytest.raises(InconsistentKnowledge):
        Sampler(cls)


def test_G6_forced_draw_proves_no_card_of_suit_rank_or_wild() -> None:
    """czech: seat 1 holds no heart, no king, no Jack on the K♥ starter, so it must draw; the ♠A does not fit."""
    deal = make_deal("czech", ["7C 8C 9C 10C QC", "7S 8S 9S 10S QS"], talon="AS 7D 8D 9D", starter="KH")
    k = Knowledge.start(deal, 0)
    before = Public.of(deal, 0)
    play(deal, "draw")
    k.observe(before, DRAW, Public.of(deal, 0))
    forbidden = [c for c in deck(32) if suit_of(c) == suit_of(parse_card("KH")) or rank_of(c) in (13, 11)]
    assert len(k.slots[1]) == 6
    for m in k.slot_masks(1):
        assert not any(m >> c & 1 for c in forbidden)
    assert deal.current == 0  # the drawn ♠A did not fit: the turn passed (G6)


def test_SV4_pass_after_drawing_proves_a_void_but_voluntary_draws_prove_nothing() -> None:
    rules = make_rules("svinya", 2, {})
    deal = Deal.start(rules, [[parse_card(c) for c in "7C 8C 9C 10C KC".split()],
                              [parse_card(c) for c in "7S 8S 9S 10S AH".split()]],
                      [parse_card("KS")], None)
    k = Knowledge.start(deal, 0)
    before = Public.of(deal, 0)
    play(deal, "AH")  # SV5: an Ace skips seat 0, seat 1 plays again
    k.observe(before, parse_card("AH"), Public.of(deal, 0))
    before = Public.of(deal, 0)
    play(deal, "draw")  # voluntary (SV4): seat 1 could have played a spade? no: AH on top, it has no heart
    k.observe(before, DRAW, Public.of(deal, 0))
    assert deal.current == 1 or all(m != k.full | NEVER_SEEN for m in k.slots[1])


def test_cards_in_and_mask_are_inverse() -> None:
    cards = [0, 5, 17, 51]
    assert cards_in(mask(cards)) == cards


def test_classes_group_equal_slots() -> None:
    deal = make_deal("czech", ["7C 8C 9C 10C QC", "7S 8S 9S 10S QS"], talon="AS 7D 8D 9D", starter="KH")
    k = Knowledge.start(deal, 0)
    cls = classes_of(k)
    assert sorted(zip(cls.owner, cls.size)) == [(-1, 4), (1, 5)]  # seat 1's five unknown cards, the talon


def test_G8_a_turned_over_pile_makes_later_draws_known() -> None:
    """Empty talon: the pile (all but the top) becomes the talon oldest first, so seat 1's draw is the K♥."""
    deal = make_deal("czech", ["7D 8C 9C 10C QC", "7H 10S QS 9S 8S"], talon="", starter="KH")
    k = Knowledge.start(deal, 0)
    for token in ("7H", "7D", "draw"):
        before = Public.of(deal, 0)
        action = DRAW if token == "draw" else parse_card(token)
        play(deal, token)
        k.observe(before, action, Public.of(deal, 0))
    assert deal.turnovers == 1
    assert k.known_cards[1] == [parse_card("KH")]
    assert k.talon_order == [parse_card("7H")]
    assert parse_card("KH") in deal.hands[1]
