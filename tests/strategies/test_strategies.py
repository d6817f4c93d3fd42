"""Built-in strategies: contracts on hand-built views, fast path == simple path.

Random views are dealt from the real deck of each rule set and their legal
moves follow G3/G4 (and CZ8 for a pending sevens chain, G7 for voluntary
draws), so both paths see what the engine would hand them.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.core.cards import DRAW, TAKE, deck, mask_of, parse_card, parse_cards, rank_of, suit_of
from analyzer.core.rules import RuleSet, make_rules
from strategies import BatchView, DecisionView, get_strategy
from strategies.masks import (
    card_bits,
    card_tables,
    highest_card,
    lowest_card,
    nth_card,
    popcount,
    rank_counts,
    row_view,
    suit_counts,
)

DETERMINISTIC = ["greedy", "wild-keeper", "wild-dumper", "aggressive", "suit-keeper", "weighted"]

RULE_SETS = {
    "czech": make_rules("czech", 4),
    "czech-sevens": make_rules("czech", 4, {"sevens": True}),
    "czech-sevens-eight": make_rules("czech", 4, {"sevens": True, "eight_stop": True, "seven_chain": "accumulate"}),
    "czech-7p": make_rules("czech", 7),
    "prague": make_rules("prague", 3),
    "svinya": make_rules("svinya", 2),
}


# ---------------------------------------------------------------- view builders


@dataclass
class Row:
    hand: tuple[int, ...]
    legal: tuple[int, ...]
    can_draw: bool
    can_take: bool
    top: int | None
    active: int | None
    pending: int
    hand_sizes: tuple[int, ...]
    talon: int
    played: frozenset[int]


def legal_cards(rules: RuleSet, hand: tuple[int, ...], top: int | None, active: int | None) -> tuple[int, ...]:
    """G3 and G4: suit or rank match, wilds on anything; anything on an empty pile."""
    if top is None:
        return tuple(sorted(hand))
    return tuple(sorted(
        c for c in hand
        if suit_of(c) == active or rank_of(c) == rank_of(top)
        or (rank_of(c) == rules.wild_rank and rules.wild_on_anything)
    ))


def make_row(
    rules: RuleSet,
    hand: list[int] | str,
    top: int | str | None,
    *,
    active: int | None = None,
    pending: int = 0,
    hand_sizes: tuple[int, ...] | None = None,
    legal: tuple[int, ...] | None = None,
) -> Row:
    """A consistent decision from a hand and a top card (cards as ids or notation)."""
    h = tuple(parse_cards(hand) if isinstance(hand, str) else hand)
    t = parse_card(top) if isinstance(top, str) else top
    if active is None and t is not None:
        active = suit_of(t)
    if pending:
        cards = tuple(sorted(c for c in h if rank_of(c) == 7))
        can_take, can_draw = True, False
    else:
        cards = legal_cards(rules, h, t, active) if legal is None else legal
        can_take, can_draw = False, rules.voluntary_draw or not cards
    sizes = hand_sizes or (len(h),) + (5,) * (rules.players - 1)
    return Row(h, cards, can_draw, can_take, t, active, pending, sizes, 10, frozenset())


def decision_view(rules: RuleSet, r: Row) -> DecisionView:
    legal = r.legal + ((DRAW,) if r.can_draw else ()) + ((TAKE,) if r.can_take else ())
    return DecisionView(rules=rules, seat=0, hand=r.hand, legal=legal, top=r.top,
                        active_suit=r.active, pending_seven=r.pending, hand_sizes=r.hand_sizes,
                        talon_size=r.talon, played=r.played)


def batch_view(rules: RuleSet, rows: list[Row]) -> BatchView:
    def m(xs: list[int]) -> np.ndarray:
        return np.array(xs, dtype=np.uint64)

    return BatchView(
        rules=rules,
        seat=np.zeros(len(rows), dtype=np.int8),
        hand=m([mask_of(r.hand) for r in rows]),
        legal=m([mask_of(r.legal) for r in rows]),
        can_draw=np.array([r.can_draw for r in rows], dtype=bool),
        can_take=np.array([r.can_take for r in rows], dtype=bool),
        top=np.array([-1 if r.top is None else r.top for r in rows], dtype=np.int8),
        active_suit=np.array([-1 if r.active is None else r.active for r in rows], dtype=np.int8),
        pending_seven=np.array([r.pending for r in rows], dtype=np.int16),
        hand_sizes=np.array([r.hand_sizes for r in rows], dtype=np.int16),
        talon_size=np.array([r.talon for r in rows], dtype=np.int16),
        played=m([mask_of(r.played) for r in rows]),
    )


def random_rows(rules: RuleSet, n: int, rng: np.random.Generator) -> list[Row]:
    """``n`` random decisions dealt from the rule set's deck, legal moves by G3/G4/CZ8/G7."""
    cards = np.array(deck(rules.deck_size))
    sevens = [c for c in cards if rank_of(c) == 7]
    rows = []
    for _ in range(n):
        perm = [int(c) for c in rng.permutation(cards)]
        size = int(rng.integers(1, 11))
        hand, rest = perm[:size], perm[size:]
        top: int | None = rest[0]
        if rules.starter_kind == "none" and rng.random() < 0.15:
            top = None
        pending = 0
        free_sevens = [c for c in sevens if c not in hand]
        if rules.sevens and free_sevens and rng.random() < 0.3:
            top = int(rng.choice(free_sevens))
            pending = int(rng.integers(1, 4))
        active = None if top is None else suit_of(top)
        if top is not None and rank_of(top) == rules.wild_rank and rng.random() < 0.7:
            active = int(rng.integers(4))
        sizes = (size,) + tuple(int(x) for x in rng.integers(1, 9, rules.players - 1))
        row = make_row(rules, hand, top, active=active, pending=pending, hand_sizes=sizes)
        row.talon = int(rng.integers(0, 30))
        row.played = frozenset(rest[1:1 + int(rng.integers(0, 12))])
        rows.append(row)
    return rows


def check_legal(view: DecisionView, action: int, suit: int | None, may_take: bool = False) -> None:
    """A legal move, a suit only with a wild, no voluntary draw, TAKE only without a 7 (unless may_take)."""
    assert action in view.legal, (action, view)
    if 0 <= action < DRAW and rank_of(action) == view.rules.wild_rank:
        assert suit is None or suit in (-1, 0, 1, 2, 3)
    else:
        assert suit is None or suit == -1, (action, suit)
    if view.legal_cards:
        assert action != DRAW, "voluntary draw"
        if view.can_take and not may_take:
            assert action != TAKE


def choose(name: str, rules: RuleSet, row: Row, rng_seed: int = 0) -> tuple[int, int | None]:
    return get_strategy(name).choose(decision_view(rules, row), np.random.default_rng(rng_seed))


def choose_fast(name: str, rules: RuleSet, row: Row, rng_seed: int = 0) -> tuple[int, int]:
    a, s = get_strategy(name).choose_batch(batch_view(rules, [row]), np.random.default_rng(rng_seed))
    return int(a[0]), int(s[0])


# ---------------------------------------------------------------- mask helpers


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, (1 << 52) - 1), min_size=1, max_size=20), st.integers(0, 60))
def test_mask_helpers_match_python(masks: list[int], n: int) -> None:
    x = np.array(masks, dtype=np.uint64)
    bits = [[c for c in range(52) if (m >> c) & 1] for m in masks]
    assert popcount(x).tolist() == [len(b) for b in bits]
    assert lowest_card(x).tolist() == [b[0] if b else -1 for b in bits]
    assert highest_card(x).tolist() == [b[-1] if b else -1 for b in bits]
    assert nth_card(x, np.full(len(x), n)).tolist() == [b[n] if n < len(b) else -1 for b in bits]
    assert suit_counts(x).tolist() == [[sum(c % 4 == s for c in b) for s in range(4)] for b in bits]
    assert rank_counts(x)[:, 2:].tolist() == [[sum(c // 4 + 2 == r for c in b) for r in range(2, 15)] for b in bits]
    assert card_bits(x).tolist() == [[c in b for c in range(52)] for b in bits]


def test_card_tables_follow_rules() -> None:
    t = card_tables(RULE_SETS["prague"])
    assert t.effect[parse_card("AS")] and t.effect[parse_card("6H")] and t.effect[parse_card("7D")]
    assert not t.effect[parse_card("8S")]
    assert t.severity[parse_card("6H")] == 2 and t.severity[parse_card("AH")] == 2 and t.severity[parse_card("7H")] == 1
    assert t.wild[parse_card("JC")] and not t.wild[parse_card("QC")]
    assert card_tables(RULE_SETS["czech"]).effect.sum() == 0
    assert card_tables(RULE_SETS["czech-sevens-eight"]).effect.sum() == 8
    assert card_tables(RULE_SETS["svinya"]).wild[parse_card("QH")]


def test_row_view_round_trip() -> None:
    rules = RULE_SETS["czech-sevens"]
    rows = random_rows(rules, 50, np.random.default_rng(1))
    bv = batch_view(rules, rows)
    for i, r in enumerate(rows):
        expected = decision_view(rules, r)
        # hands are dealt unsorted (the simple path must not care); the mask forgets the order
        assert row_view(bv, i) == expected._replace(hand=tuple(sorted(expected.hand)))


# ---------------------------------------------------------------- fast == simple


@pytest.mark.parametrize("rules_id", list(RULE_SETS))
@pytest.mark.parametrize("name", DETERMINISTIC)
def test_fast_path_equals_simple_path(name: str, rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    rows = random_rows(rules, 700, np.random.default_rng(zlib.crc32(f"{name}/{rules_id}".encode())))
    strat = get_strategy(name)
    actions, suits = strat.choose_batch(batch_view(rules, rows), np.random.default_rng(0))
    assert actions.dtype == np.int16 and suits.dtype == np.int8 and actions.shape == (len(rows),)
    for i, r in enumerate(rows):
        view = decision_view(rules, r)
        a, s = strat.choose(view, np.random.default_rng(0))
        check_legal(view, a, s)
        assert (int(actions[i]), int(suits[i])) == (a, -1 if s is None else s), (i, r)


@pytest.mark.parametrize("seed", range(4))
def test_weighted_paths_agree_for_random_weights(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    # integer weights make many exact ties, which exercises the tie-break
    w = {k: float(rng.integers(-3, 4)) for k in
         ("w_points", "w_wild", "w_effect", "w_suit_len", "w_threat", "w_same_rank")}
    if seed % 2:
        w = {k: v + float(rng.random()) for k, v in w.items()}
    spec = "weighted?" + ",".join(f"{k}={v!r}" for k, v in w.items())
    strat = get_strategy(spec)
    for rules in (RULE_SETS["czech-sevens-eight"], RULE_SETS["prague"], RULE_SETS["svinya"]):
        rows = random_rows(rules, 400, rng)
        actions, suits = strat.choose_batch(batch_view(rules, rows), rng)
        for i, r in enumerate(rows):
            a, s = strat.choose(decision_view(rules, r), rng)
            assert (int(actions[i]), int(suits[i])) == (a, -1 if s is None else s)


@pytest.mark.parametrize("rules_id", list(RULE_SETS))
def test_random_returns_legal_moves_on_both_paths(rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    rows = random_rows(rules, 500, np.random.default_rng(7))
    strat = get_strategy("random")
    actions, suits = strat.choose_batch(batch_view(rules, rows), np.random.default_rng(3))
    rng = np.random.default_rng(4)
    for i, r in enumerate(rows):
        view = decision_view(rules, r)
        check_legal(view, int(actions[i]), int(suits[i]), may_take=True)
        check_legal(view, *strat.choose(view, rng), may_take=True)


def test_empty_batch() -> None:
    rules = RULE_SETS["prague"]
    for name in DETERMINISTIC + ["random"]:
        a, s = get_strategy(name).choose_batch(batch_view(rules, []), np.random.default_rng(0))
        assert a.shape == (0,) and s.shape == (0,)


# ---------------------------------------------------------------- greedy


def both(name: str, rules: RuleSet, row: Row) -> tuple[int, int | None]:
    """The simple path's answer, after checking the fast path gives the same."""
    a, s = choose(name, rules, row)
    assert choose_fast(name, rules, row) == (a, -1 if s is None else s)
    return a, s


def test_greedy_sheds_the_ace_before_the_ten() -> None:
    rules = RULE_SETS["czech"]
    assert both("greedy", rules, make_row(rules, "10S AS 8H", "9S")) == (parse_card("AS"), None)


def test_greedy_equal_points_non_wild_first_then_lowest_id() -> None:
    rules = RULE_SETS["prague"]  # PR6: 10, J, Q, K are all worth 10
    row = make_row(rules, "JS QS 10H", "10S")
    assert both("greedy", rules, row) == (parse_card("10H"), None)
    row = make_row(rules, "KS QS", "9S")
    assert both("greedy", rules, row) == (parse_card("QS"), None)  # QS id 40 < KS id 44
    rules = RULE_SETS["czech"]
    assert both("greedy", rules, make_row(rules, "9H 9S", "9C"))[0] == parse_card("9S")


def test_greedy_names_most_held_suit_ties_in_SCHD_order() -> None:
    rules = RULE_SETS["czech"]
    # only the Jack is legal on 7D; after it: one spade, one club, one heart -> spades
    assert both("greedy", rules, make_row(rules, "JH 8C 9S 10H", "7D")) == (parse_card("JH"), 0)
    # after it: clubs 1, hearts 2 -> hearts
    assert both("greedy", rules, make_row(rules, "JS 8C 9H 10H", "7D")) == (parse_card("JS"), 2)


def test_greedy_answers_seven_and_takes_without_one() -> None:
    rules = RULE_SETS["czech-sevens"]
    assert both("greedy", rules, make_row(rules, "7H 7S AS", "7C", pending=1)) == (parse_card("7S"), None)
    assert both("greedy", rules, make_row(rules, "AS 8H", "7C", pending=1)) == (TAKE, None)


def test_deterministic_strategies_draw_only_when_forced() -> None:
    rules = RULE_SETS["svinya"]  # voluntary draw is legal here
    with_card = make_row(rules, "9S KH", "9H")
    no_card = make_row(rules, "8S 10C", "9H")
    assert DRAW in decision_view(rules, with_card).legal
    for name in DETERMINISTIC:
        assert both(name, rules, with_card)[0] != DRAW
        assert both(name, rules, no_card) == (DRAW, None)


# ---------------------------------------------------------------- wilds


def test_wild_keeper_keeps_the_jack_until_last() -> None:
    rules = RULE_SETS["czech"]
    assert both("wild-keeper", rules, make_row(rules, "JS 8H 9C", "7H")) == (parse_card("8H"), None)
    # only the Jack is legal: play it and name the most-held suit (clubs)
    assert both("wild-keeper", rules, make_row(rules, "JS 8C 9C 10H", "7D")) == (parse_card("JS"), 1)


def test_wild_dumper_sheds_the_jack_first() -> None:
    rules = RULE_SETS["czech"]
    assert both("wild-dumper", rules, make_row(rules, "JS AH 9C", "7H")) == (parse_card("JS"), 1)
    assert both("wild-dumper", rules, make_row(rules, "AH 9C", "7H")) == (parse_card("AH"), None)
    # svinya: the Queen is the wild
    rules = RULE_SETS["svinya"]
    assert both("wild-dumper", rules, make_row(rules, "QD AS KS", "9S"))[0] == parse_card("QD")


# ---------------------------------------------------------------- aggressive


def test_aggressive_prefers_effect_cards() -> None:
    rules = RULE_SETS["prague"]  # 6: draw 2, 7: draw 1, A: draw 1 and skip
    row = make_row(rules, "6H KH 9C", "9H")
    assert both("aggressive", rules, row) == (parse_card("6H"), None)
    assert both("greedy", rules, row) == (parse_card("KH"), None)


def test_aggressive_plays_the_harshest_effect_when_next_player_is_close() -> None:
    rules = RULE_SETS["prague"]
    far = make_row(rules, "6H 7H", "9H", hand_sizes=(2, 5, 5))
    near = make_row(rules, "6H 7H", "9H", hand_sizes=(2, 2, 5))
    assert both("aggressive", rules, far)[0] == parse_card("7H")  # greedy among effects: 7 > 6
    assert both("aggressive", rules, near)[0] == parse_card("6H")  # 2 cards beat 1


def test_aggressive_in_czech_uses_sevens_and_eights_when_on() -> None:
    plain, eight = RULE_SETS["czech"], RULE_SETS["czech-sevens-eight"]
    assert both("aggressive", plain, make_row(plain, "8H AH", "9H"))[0] == parse_card("AH")
    assert both("aggressive", eight, make_row(eight, "8H AH", "9H"))[0] == parse_card("8H")


# ---------------------------------------------------------------- suit-keeper


def test_suit_keeper_keeps_its_long_suit() -> None:
    rules = RULE_SETS["czech"]
    # spades are long; 8S and 8H both match the 8D by rank: shed the heart
    assert both("suit-keeper", rules, make_row(rules, "8S 9S 10S 8H", "8D")) == (parse_card("8H"), None)
    # active spades: switch away by rank match rather than spend a spade
    assert both("suit-keeper", rules, make_row(rules, "9S 10S KS 8H", "8S")) == (parse_card("8H"), None)
    # follow the active suit (hearts) before switching to clubs by rank
    assert both("suit-keeper", rules, make_row(rules, "9S 10S KS 8H 7C", "7H"))[0] == parse_card("8H")
    # only spades legal: spend one (greedy order: the 9, 9 points against the King's 4)
    assert both("suit-keeper", rules, make_row(rules, "9S KS 8H", "7S"))[0] == parse_card("9S")


def test_suit_keeper_plays_wild_last_and_names_long_suit() -> None:
    rules = RULE_SETS["czech"]
    assert both("suit-keeper", rules, make_row(rules, "JD 9C 10C 8H", "7S")) == (parse_card("JD"), 1)
    assert both("suit-keeper", rules, make_row(rules, "JD 9C 10C 8S", "7S"))[0] == parse_card("8S")


# ---------------------------------------------------------------- weighted


def test_weighted_default_and_tuned_weights() -> None:
    rules = RULE_SETS["czech"]
    row = make_row(rules, "JS AH 9H 9C", "7H")
    assert both("weighted", rules, row)[0] != parse_card("JS")  # w_wild < 0 holds the Jack
    dumper = get_strategy("weighted?w_wild=100")
    a, s = dumper.choose(decision_view(rules, row), np.random.default_rng(0))
    assert a == parse_card("JS") and s == 2  # hearts: 2 left after the play
    points_only = get_strategy("weighted?w_points=1,w_wild=0,w_effect=0,w_suit_len=0,w_threat=0,w_same_rank=0")
    assert points_only.choose(decision_view(rules, row), np.random.default_rng(0))[0] == parse_card("AH")
    kept = get_strategy("weighted?w_points=0,w_wild=0,w_effect=0,w_suit_len=0,w_threat=0,w_same_rank=1")
    assert kept.choose(decision_view(rules, row), np.random.default_rng(0))[0] == parse_card("9H")


def test_weighted_rejects_bad_weights() -> None:
    from strategies.weighted import Weighted

    with pytest.raises(ValueError, match="w_points"):
        Weighted(w_points=float("nan"))
    with pytest.raises(TypeError):
        Weighted(1.0)  # type: ignore[misc]  # keyword-only


# ---------------------------------------------------------------- random


def test_random_is_uniform_over_legal_cards_and_suits() -> None:
    rules = RULE_SETS["czech"]
    row = make_row(rules, "8H 9H JS KC 10D", "7H")  # legal: 8H 9H JS
    view = decision_view(rules, row)
    strat = get_strategy("random")
    rng = np.random.default_rng(11)
    picks = [strat.choose(view, rng) for _ in range(4000)]
    cards = np.array([a for a, _ in picks])
    for c in view.legal_cards:
        assert abs((cards == c).sum() - 4000 / 3) < 120  # ~4.5 sd
    wild_suits = np.array([s for a, s in picks if a == parse_card("JS")])
    assert all(abs((wild_suits == s).sum() - len(wild_suits) / 4) < 90 for s in range(4))
    assert {a for a, _ in picks} <= set(view.legal_cards)  # never DRAW

    a, s = strat.choose_batch(batch_view(rules, [row] * 4000), np.random.default_rng(12))
    for c in view.legal_cards:
        assert abs((a == c).sum() - 4000 / 3) < 120
    ws = s[a == parse_card("JS")]
    assert all(abs((ws == k).sum() - len(ws) / 4) < 90 for k in range(4))
    assert ((s == -1) == (a != parse_card("JS"))).all()


def test_random_suit_is_independent_of_which_wild_it_plays() -> None:
    """The simple path names the suit from the same uniform draw that picks the card (its
    fractional part): every (wild, suit) pair must still come up 1/8 of the time."""
    rules = RULE_SETS["czech"]
    view = decision_view(rules, make_row(rules, "JS JH", "7H"))
    strat = get_strategy("random")
    rng = np.random.default_rng(21)
    picks = [strat.choose(view, rng) for _ in range(8000)]
    for wild in ("JS", "JH"):
        for suit in range(4):
            n = sum(1 for a, s in picks if a == parse_card(wild) and s == suit)
            assert abs(n - 1000) < 130, (wild, suit, n)  # ~4.4 sd


def test_random_answers_seven_about_half_the_time() -> None:
    rules = RULE_SETS["czech-sevens"]
    row = make_row(rules, "7H 7S 9C", "7C", pending=1)
    view = decision_view(rules, row)
    strat = get_strategy("random")
    rng = np.random.default_rng(5)
    acts = np.array([strat.choose(view, rng)[0] for _ in range(4000)])
    assert abs((acts == TAKE).mean() - 0.5) < 0.04
    assert set(acts.tolist()) == {TAKE, parse_card("7H"), parse_card("7S")}
    a, _ = strat.choose_batch(batch_view(rules, [row] * 4000), np.random.default_rng(6))
    assert abs((a == TAKE).mean() - 0.5) < 0.04
    assert set(a.tolist()) == {TAKE, parse_card("7H"), parse_card("7S")}
    # without a 7 it must take
    assert strat.choose(decision_view(rules, make_row(rules, "9C", "7C", pending=1)), rng) == (TAKE, None)


def test_random_never_draws_voluntarily_and_uses_only_its_rng() -> None:
    rules = RULE_SETS["svinya"]
    row = make_row(rules, "9S KH", "9H")
    view = decision_view(rules, row)
    strat = get_strategy("random")
    state = np.random.get_state()[1].copy()
    first = [strat.choose(view, np.random.default_rng(9)) for _ in range(3)]
    assert len(set(first)) == 1  # same seed, same move
    rng = np.random.default_rng(9)
    assert all(strat.choose(view, rng)[0] != DRAW for _ in range(500))
    a, _ = strat.choose_batch(batch_view(rules, [row] * 500), rng)
    assert (a != DRAW).all()
    b1 = strat.choose_batch(batch_view(rules, [row] * 50), np.random.default_rng(2))
    b2 = strat.choose_batch(batch_view(rules, [row] * 50), np.random.default_rng(2))
    assert (b1[0] == b2[0]).all() and (b1[1] == b2[1]).all()
    assert (np.random.get_state()[1] == state).all()
    assert strat.choose(decision_view(rules, make_row(rules, "8S", "9H")), rng) == (DRAW, None)


def test_every_builtin_has_a_one_line_description() -> None:
    for name in DETERMINISTIC + ["random"]:
        s = get_strategy(name)
        assert s.name == name
        assert s.description and "\n" not in s.description
