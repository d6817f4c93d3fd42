"""Hand-written scenario tests of the rules engine, one or more per RULES.md rule id.

Deals are built with ``Deal.start`` from small hands (seat 0 = dealer, seat 1
acts first, G2); moves are replay tokens.  Talons are written top first.
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.cards import DRAW, TAKE, card_str, deck, parse_card
from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, IllegalMove, deal_hands, hand_points
from analyzer.engine.match import match_outcome, next_dealer
from tests.helpers_engine import C, cards, hand, legal, make_deal, play, strs, top

S, CL, H, D = 0, 1, 2, 3


# ===================================================================== G3
def test_g3_suit_or_rank_is_legal():
    """G3: a card of the top card's suit or rank is legal, nothing else."""
    d = make_deal("czech", ["7C 8C", "KH 9S 10C 8D", "AC"], starter="9H", talon="AS AD")
    assert legal(d) == {"KH", "9S"}


def test_g3_rank_is_legal_even_after_a_suit_was_named():
    """G3 (000: ♦J on ♥J after spades were named), shown with wild_on_anything off so only G3 applies."""
    d = make_deal("czech", ["7C 8C", "JH 7D", "JD 10H 9S 8C"], starter="8H", talon="AS AD",
                  wild_on_anything=False)
    play(d, "JH>S")
    assert d.active_suit == S and d.current == 2
    assert legal(d) == {"JD", "9S"}  # the Jack by rank, the 9 by the named suit; not the 10H
    with pytest.raises(IllegalMove, match="does not go on"):
        d.verify(C("10H"))


def test_g3_active_suit_is_the_named_suit_only_while_the_wild_is_on_top():
    """G3: once a card covers the wild, the top card's own suit is active again."""
    d = make_deal("czech", ["7C 8C", "JH 7D", "9S 10D", "KS 7H"], starter="8H", talon="AS AD")
    play(d, "JH>S", "9S")
    assert d.active_suit == S and top(d) == "9S"
    d2 = make_deal("czech", ["7C 8C", "JH 7D", "KD 10D", "KS 7H"], starter="8H", talon="AS AD")
    play(d2, "JH>D", "KD")
    assert d2.active_suit == D
    assert d2.current == 3  # four players: seat 3 follows seat 2
    assert legal(d2) == {"KS"}  # K by rank; the 7H is not a diamond


def test_g3_illegal_card_refused_with_reason_and_state_unchanged():
    """G3: verify raises IllegalMove naming the reason; can() says no; nothing changes."""
    d = make_deal("czech", ["7C 8C", "KH 9S 10C", "AC"], starter="9H", talon="AS AD")
    before = (list(map(list, d.hands)), list(d.talon), list(d.pile), d.current, d.phase, d.turns)
    with pytest.raises(IllegalMove) as e:
        d.apply(C("10C"))
    assert "does not go on" in str(e.value)
    assert not d.can(C("10C"))
    with pytest.raises(IllegalMove, match="does not hold"):
        d.verify(C("AH"))
    with pytest.raises(IllegalMove, match="cannot draw"):
        d.verify(DRAW)
    with pytest.raises(IllegalMove, match="no sevens penalty"):
        d.verify(TAKE)
    with pytest.raises(IllegalMove, match="only a wild names a suit"):
        d.verify(C("KH"), S)
    assert (list(map(list, d.hands)), list(d.talon), list(d.pile), d.current, d.phase, d.turns) == before


# ===================================================================== G4
def test_g4_cz4_wild_goes_on_anything():
    """G4/CZ4: with wild_on_anything (default) a Jack is legal on any card."""
    d = make_deal("czech", ["7C 8C", "JC 7S", "AC"], starter="9H", talon="AS AD")
    assert legal(d) == {"JC"}


def test_g4_wild_on_anything_off_wild_needs_suit_or_rank():
    """G4: with wild_on_anything off a Jack follows G3 like any card."""
    d = make_deal("czech", ["7C 8C", "JC 7S", "AC"], starter="9H", talon="AS AD", wild_on_anything=False)
    assert legal(d) == {"draw"}
    d = make_deal("czech", ["7C 8C", "JC 7S", "AC"], starter="9C", talon="AS AD", wild_on_anything=False)
    assert legal(d) == {"JC"}


@pytest.mark.parametrize("named", [S, CL, H, D])
def test_g4_wild_names_any_suit_its_own_included(named):
    """G4: the player of a wild names any suit, its own included."""
    d = make_deal("czech", ["7C 8C", "JC 7S", "AC"], starter="9H", talon="AS AD")
    d.apply(C("JC"), named)
    assert d.active_suit == named and top(d) == "JC"


def test_g4_wild_without_a_named_suit_keeps_its_own_suit():
    d = make_deal("czech", ["7C 8C", "JC 7S", "AC"], starter="9H", talon="AS AD")
    d.apply(C("JC"))
    assert d.active_suit == CL


def test_g4_bad_suit_refused():
    d = make_deal("czech", ["7C 8C", "JC 7S", "AC"], starter="9H", talon="AS AD")
    with pytest.raises(IllegalMove):
        d.verify(C("JC"), 7)


# ===================================================================== G5
def test_g5_effect_served_once_by_next_player_only():
    """G5/PR5: the Ace's effect is served by the next player; the one after plays on the Ace normally."""
    d = make_deal("prague", ["QS 8C", "AS 10C", "KS 8D"], starter="9S", talon="7D 7C 6D")
    play(d, "AS")
    assert hand(d, 2) == {"KS", "8D", "7D"}  # drew 1, lost the turn
    assert d.current == 0 and d.phase == "play" and top(d) == "AS"
    assert hand(d, 0) == {"QS", "8C"}  # served once: seat 0 does not draw
    assert legal(d) == {"QS"}
    play(d, "QS")
    assert d.current == 1 and hand(d, 1) == {"10C"}


def test_g5_draw_without_skip_then_normal_turn_on_same_top():
    """G5 (000: after the ♣6 Stepan draws two, then plays the ♣J): draw, then a normal turn on the 6."""
    d = make_deal("prague", ["QS 8C", "6C 10D", "JC 8D"], starter="9C", talon="7D 7H 6D")
    play(d, "6C")
    assert d.current == 2 and d.phase == "play" and top(d) == "6C"
    assert hand(d, 2) == {"JC", "8D", "7D", "7H"}
    assert legal(d) == {"JC"}
    play(d, "JC>C")
    assert d.current == 0 and hand(d, 0) == {"QS", "8C"}  # the 6 is not served again


def test_g5_after_penalty_without_legal_card_g6_applies():
    """G5 + G6: having drawn the penalty, a player with no legal card draws one as usual."""
    d = make_deal("prague", ["QS 8C", "6C 10D", "9H 8D"], starter="9C", talon="7D 7H 10S 6D")
    play(d, "6C")
    assert d.current == 2 and legal(d) == {"draw"}
    play(d, "draw")  # 10S does not fit: turn passes
    assert d.current == 0 and "10S" in hand(d, 2)


# ===================================================================== G6 / CZ5 / PR4
def test_g6_cz5_draw_one_legal_card_must_be_played_at_once():
    """G6/CZ5: no legal card -> draw one; it fits -> phase 'drawn' and only that card is legal."""
    d = make_deal("czech", ["7C 8C", "7S 8C", "AC"], starter="9H", talon="10H KS")
    assert legal(d) == {"draw"}
    play(d, "draw")
    assert d.phase == "drawn" and d.current == 1
    assert legal(d) == {"10H"}
    with pytest.raises(IllegalMove, match="just drawn"):
        d.verify(C("7S"))
    with pytest.raises(IllegalMove):
        d.verify(DRAW)
    play(d, "10H")
    assert d.current == 2 and top(d) == "10H" and d.turns == 2


def test_g6_drawn_wild_is_played_with_a_named_suit():
    """G6: a drawn Jack fits; the only choice left is its suit."""
    d = make_deal("czech", ["7C 8C", "7S 8C", "AC"], starter="9H", talon="JD KS")
    play(d, "draw")
    assert d.phase == "drawn" and legal(d) == {"JD"}
    d.apply(C("JD"), S)
    assert d.active_suit == S


def test_g6_pr4_drawn_card_not_legal_turn_passes():
    """G6/PR4: the drawn card does not fit -> it stays in hand and the turn passes."""
    d = make_deal("prague", ["7C 8C", "7S 8C", "AC"], starter="9H", talon="10S KS")
    play(d, "draw")
    assert d.current == 2 and d.phase == "play"
    assert hand(d, 1) == {"7S", "8C", "10S"}
    assert d.turns == 2


def test_g6_no_draw_while_holding_a_legal_card():
    """G6/G7: draw is not an option for a player holding a legal card (voluntary_draw off)."""
    d = make_deal("czech", ["7C 8C", "10H 8C", "AC"], starter="9H", talon="10S KS")
    assert "draw" not in legal(d)
    assert not d.can(DRAW)


# ===================================================================== G7
def test_g7_voluntary_draw_on():
    """G7: with voluntary_draw on, drawing is allowed while holding a legal card (draw_one still applies)."""
    d = make_deal("czech", ["7C 8C", "10H 8C", "AC"], starter="9H", talon="KS KH", voluntary_draw=True)
    assert legal(d) == {"10H", "draw"}
    play(d, "draw")  # KS does not fit: the turn passes
    assert d.current == 2 and "KS" in hand(d, 1)


def test_g7_voluntary_draw_drawn_card_fits_must_be_played():
    d = make_deal("czech", ["7C 8C", "10H 8C", "AC"], starter="9H", talon="KH KS", voluntary_draw=True)
    play(d, "draw")
    assert d.phase == "drawn" and legal(d) == {"KH"}


# ===================================================================== G8
def _long_pile_deal(**opts) -> Deal:
    d = make_deal("czech", ["QH KH AH 8S", "8H 9H 10H 7S"], starter="7H", talon="", **opts)
    play(d, "8H", "QH", "9H", "KH", "10H", "AH")
    assert strs(d.pile) == ["7H", "8H", "QH", "9H", "KH", "10H", "AH"] and not d.talon
    assert legal(d) == {"draw"}
    return d


def test_g8_empty_talon_pile_turned_over_oldest_first():
    """G8: the pile except its top becomes the talon, not shuffled; the oldest card is drawn first."""
    d = _long_pile_deal()
    play(d, "draw")
    assert d.turnovers == 1
    assert strs(d.pile) == ["AH"]
    assert "7H" in hand(d, 1)  # the oldest card, and it fits
    assert d.phase == "drawn" and legal(d) == {"7H"}
    assert strs(d.talon) == ["8H", "QH", "9H", "KH", "10H"]


def test_g8_g3_turnover_keeps_the_wild_on_top_and_its_named_suit():
    """G8 + G3: the top card stays when the pile is turned over; a wild's named suit stays active."""
    d = make_deal("czech", ["QH 8S 7S", "8H JH 7C"], starter="7H", talon="")
    play(d, "8H", "QH", "JH>S")
    assert legal(d) == {"8S", "7S"}
    play(d, "8S")  # seat 1 has only the 7C: must draw; 7H 8H QH JH (below the 8S) are turned over
    assert legal(d) == {"draw"}
    play(d, "draw")  # the oldest card, 7H, does not fit on the 8S: the turn passes
    assert d.turnovers == 1 and strs(d.pile) == ["8S"] and "7H" in hand(d, 1)
    d2 = make_deal("czech", ["QH 8S 10C", "8H JH 7C 9C"], starter="7H", talon="")
    play(d2, "8H", "QH", "JH>D")
    assert d2.current == 0 and legal(d2) == {"draw"}
    play(d2, "draw")  # turned over: 7H 8H QH; draws 7H, which does not fit diamonds
    assert d2.turnovers == 1 and strs(d2.pile) == ["JH"] and d2.active_suit == D
    assert strs(d2.talon) == ["8H", "QH"] and d2.current == 1


def test_g8_reshuffle_shuffle_changes_the_order():
    """G8 option reshuffle=shuffle: the turned-over pile is shuffled (some seed differs from oldest-first)."""
    oldest_first = ["7H", "8H", "QH", "9H", "KH", "10H"]
    orders = set()
    for seed in range(8):
        d = _long_pile_deal(reshuffle="shuffle", seed=seed)
        d.rng = np.random.default_rng(seed)
        play(d, "draw")
        assert d.turnovers == 1 and strs(d.pile) == ["AH"]
        drawn = d.hands[1][-1]
        order = [card_str(drawn)] + strs(d.talon)
        assert sorted(order) == sorted(oldest_first)
        orders.add(tuple(order))
    assert orders != {tuple(oldest_first)} and len(orders) > 1


def test_g8_both_empty_penalty_draws_what_it_can():
    """G8: a penalty of 2 with one card obtainable (the turned-over pile) draws that one."""
    d = make_deal("prague", ["QS 8C", "6S 10D", "KD 8D"], starter="10S", talon="")
    play(d, "6S")
    assert hand(d, 2) == {"KD", "8D", "10S"}  # the 10S came from the turned-over pile
    assert strs(d.pile) == ["6S"] and not d.talon
    assert d.current == 2 and d.phase == "play"  # then a normal turn (G5)


def test_g8_both_empty_nothing_drawn_and_no_legal_card_passes():
    """G8/SV4: nothing to draw and no legal card: the turn passes (no draw action)."""
    d = make_deal("svinya", ["KD 8D", "9S 10S"], talon="")
    play(d, "9S")
    # seat 0 has no legal card and nothing can be drawn: passes; seat 1 acts again
    assert d.current == 1 and hand(d, 0) == {"KD", "8D"} and d.turns == 3
    assert legal(d) == {"10S"}


def test_g8_svinya_both_empty_penalty_draws_nothing():
    """G8/SV5: a 6 with talon and pile-below-top empty: the penalty draws nothing, the skip still applies."""
    d = make_deal("svinya", ["KD 8D", "6S 10S"], talon="")
    play(d, "6S")
    assert hand(d, 0) == {"KD", "8D"}
    assert d.current == 1 and top(d) == "6S"


# ===================================================================== G9
def test_g9_deal_ends_at_the_last_card_and_others_score():
    """G9: the deal ends the moment a player sheds the last card; every other player scores the hand."""
    d = make_deal("czech", ["AS 10D", "9S", "KC QD 7H"], starter="9H", talon="8S 8C")
    play(d, "9S")
    o = d.outcome
    assert d.done and o.end == END_OUT and o.went_out == 1 and o.winner == 1
    assert o.points == [21, 0, 14]
    assert o.loser == 0 and o.last_card == C("9S")
    assert d.legal_actions() == []
    with pytest.raises(IllegalMove, match="over"):
        d.verify(C("AS"))


def test_g9_last_card_effect_not_served():
    """G9: the effect of the last card is not served (prague 6)."""
    d = make_deal("prague", ["AS 10D", "6S", "KC QD 7H"], starter="9S", talon="8S 8C")
    play(d, "6S")
    assert d.done and hand(d, 2) == {"KC", "QD", "7H"}
    assert d.outcome.points == [21, 0, 27]


def test_g9_serve_last_effect_option():
    """G9 option serve_last_effect: the next player still draws the last card's penalty, which scores."""
    d = make_deal("prague", ["AS 10D", "6S", "KC QD 7H"], starter="9S", talon="8S 8C", serve_last_effect=True)
    play(d, "6S")
    assert d.done and hand(d, 2) == {"KC", "QD", "7H", "8S", "8C"}
    assert d.outcome.points == [21, 0, 27 + 16]


def test_g9_serve_last_effect_czech_seven():
    """G9 + CZ8: with serve_last_effect a last 7 (sevens on) still costs the next player one card."""
    d = make_deal("czech", ["AS 10D", "7H", "KC QD 7S"], starter="9H", talon="8S 8C",
                  sevens=True, serve_last_effect=True)
    play(d, "7H")
    assert d.done and hand(d, 2) == {"KC", "QD", "7S", "8S"}
    d = make_deal("czech", ["AS 10D", "7H", "KC QD 7S"], starter="9H", talon="8S 8C", sevens=True)
    play(d, "7H")
    assert d.done and hand(d, 2) == {"KC", "QD", "7S"}


# ===================================================================== G10
def test_g10_blocked_deal_fewest_points_wins():
    """G10: nobody can play or draw for a whole round -> blocked; fewest points wins, most loses."""
    d = make_deal("czech", ["8C", "7S"], starter="9H", talon="")
    o = d.outcome
    assert d.done and o.end == END_BLOCKED and o.went_out is None
    assert o.points == [8, 7]
    assert o.winner == 1 and o.loser == 0


def test_g10_blocked_three_players():
    d = make_deal("czech", ["AC", "7S", "8D"], starter="9H", talon="")
    o = d.outcome
    assert o.end == END_BLOCKED and o.points == [11, 7, 8]
    assert o.winner == 1 and o.loser == 0


def test_g10_blocked_tie_goes_to_earliest_seat_after_last_actor_two_players():
    """G10: tie on fewest points -> the earliest seat after the last player to act wins.

    Seat 1 passes, then seat 0 passes and completes the round: seat 0 acted last,
    so seat 1 (the first seat after it) wins the tie.
    """
    d = make_deal("czech", ["7C", "7S"], starter="9H", talon="")
    o = d.outcome
    assert o.end == END_BLOCKED and o.points == [7, 7]
    assert o.winner == 1
    assert o.loser == 0


def test_g10_blocked_tie_goes_to_earliest_seat_after_last_actor_three_players():
    """G10: all three tie; seats 1, 2, 0 pass in turn, seat 0 last -> seat 1 wins."""
    d = make_deal("czech", ["7C", "7S", "7D"], starter="9H", talon="")
    o = d.outcome
    assert o.end == END_BLOCKED and o.points == [7, 7, 7]
    assert o.winner == 1
    assert o.loser != o.winner


def test_g10_blocked_partial_tie_for_fewest():
    """G10: seats 1 and 2 tie for fewest; seat 1 comes first after the last actor (seat 0)."""
    d = make_deal("czech", ["AC", "7S", "7D"], starter="9H", talon="")
    o = d.outcome
    assert o.winner == 1 and o.loser == 0


def test_g10_a_draw_resets_the_round():
    """G10: a player who draws has acted; the deal is not blocked until a full round of passes."""
    d = make_deal("czech", ["8C", "7S"], starter="9H", talon="10C")
    assert not d.done and legal(d) == {"draw"}
    play(d, "draw")  # 10C does not fit on 9H: passes, but it was a draw
    # seat 0 passes (1), seat 1 passes (2): blocked only then, after 3 turns
    assert d.done and d.outcome.end == END_BLOCKED and d.outcome.turns == 3
    assert hand(d, 1) == {"7S", "10C"}


# ===================================================================== G10a
def test_g10a_turns_count_lost_turns():
    """G10a: a turn lost to an effect is a turn."""
    d = make_deal("prague", ["QS 8C", "AS 10C", "KS 8D"], starter="9S", talon="7D 7C 6D")
    assert d.turns == 1
    play(d, "AS")
    assert d.turns == 3 and d.current == 0  # seat 2's lost turn counted


def test_g10a_turn_cap_caps_the_deal():
    """G10/G10a: at turn_cap turns the deal stops and is recorded as capped (no winner, no loser)."""
    d = make_deal("czech", ["QH AH 8S", "10H KH 7S"], starter="9H", talon="7C 8C", turn_cap=3)
    play(d, "10H", "QH", "KH")
    o = d.outcome
    assert d.done and o.end == END_CAPPED and o.turns == 3
    assert o.winner is None and o.loser is None and o.went_out is None
    assert o.points == [11 + 8, 7]


def test_g10a_turn_cap_counts_lost_turns():
    d = make_deal("prague", ["QS 8C", "AS 10C", "KS 8D"], starter="9S", talon="7D 7C 6D", turn_cap=2)
    play(d, "AS")  # turn 2 is seat 2's lost turn; turn 3 would exceed the cap
    assert d.done and d.outcome.end == END_CAPPED and d.outcome.turns == 2


def test_g10a_cz2_dealing_one_at_a_time_from_dealers_left_dealer_last():
    """G10a/CZ2/CZ3: one card at a time starting left of the dealer, dealer last; then the starter."""
    r = make_rules("czech", 3)
    dk = list(deck(32))
    hands, starter, talon = deal_hands(dk, r)
    assert hands[1] == dk[0:15:3] and hands[2] == dk[1:15:3] and hands[0] == dk[2:15:3]
    assert starter == dk[15] and talon == dk[16:]


def test_g10a_pr2_prague_dealers_last_card_is_the_lead():
    """G10a/PR2: six each, dealer last; the dealer's sixth (the last card dealt) is his lead."""
    r = make_rules("prague", 3)
    dk = list(reversed(deck(36)))
    hands, starter, talon = deal_hands(dk, r)
    assert hands[1] == dk[0:18:3] and hands[2] == dk[1:18:3]
    assert hands[0] == dk[2:15:3] and len(hands[0]) == 5
    assert starter == dk[17]
    assert talon == dk[18:]


def test_g10a_sv2_svinya_deal_has_no_starter():
    """G10a/SV2: five each, dealer last, no card turned up."""
    r = make_rules("svinya", 2)
    dk = list(deck(36))
    hands, starter, talon = deal_hands(dk, r)
    assert hands[1] == dk[0:10:2] and hands[0] == dk[1:10:2]
    assert starter is None and talon == dk[10:]


def test_cz8_hand_size_deals_that_many():
    """CZ8 hand_size / CZ2: 7 cards each with hand_size 7."""
    r = make_rules("czech", 4, {"hand_size": 7})
    d = Deal.from_deck(r, list(deck(32)))
    assert [len(h) for h in d.hands] == [7, 7, 7, 7] and len(d.talon) == 32 - 28 - 1


# ===================================================================== CZ3
def test_cz3_player_left_of_dealer_acts_first():
    d = Deal.from_deck(make_rules("czech", 4), list(deck(32)))
    assert d.current == 1


def test_cz3_starter_effect_not_served_by_default():
    """CZ3: starter_effects off by default: a turned-up 7 (sevens on) or 8 (eight_stop on) does nothing."""
    d = make_deal("czech", ["9C", "7S 10H", "8D"], starter="7H", talon="AS", sevens=True)
    assert d.current == 1 and d.phase == "play" and hand(d, 1) == {"7S", "10H"}
    d = make_deal("czech", ["9C", "7S 10H", "8D"], starter="8H", talon="AS", eight_stop=True)
    assert d.current == 1 and d.turns == 1


def test_cz3_starter_effects_on_serves_the_starter():
    """CZ3 option starter_effects: the first player serves the turned-up card's effect."""
    d = make_deal("czech", ["9C", "7S 10H", "8D"], starter="7H", talon="AS", sevens=True, starter_effects=True)
    assert d.current == 1 and d.phase == "seven" and legal(d) == {"7S", "take"}
    d = make_deal("czech", ["9C", "8S 10H", "8D"], starter="7H", talon="AS AD", sevens=True, starter_effects=True)
    assert d.current == 2 and hand(d, 1) == {"8S", "10H", "AS"}  # took the 7's penalty, lost the turn
    d = make_deal("czech", ["9C", "7S 10H", "8D"], starter="8H", talon="AS", eight_stop=True, starter_effects=True)
    assert d.current == 2 and d.turns == 2 and hand(d, 1) == {"7S", "10H"}


@pytest.mark.parametrize("effects", [False, True])
def test_cz3_jack_starter_names_no_suit(effects):
    """CZ3: a Jack as starter names no suit: its own suit is active (also with starter_effects on)."""
    d = make_deal("czech", ["9C", "9S 9H 10C", "8D"], starter="JS", talon="AS", starter_effects=effects)
    assert d.phase == "play" and d.current == 1
    assert d.active_suit == S and legal(d) == {"9S"}


# ===================================================================== CZ6
def test_cz6_points():
    """CZ6: A 11, K 4, Q 3, J 2, others their number."""
    r = make_rules("czech", 3)
    assert hand_points(cards("AS KS QS JS 10S 9S 8S 7S"), r) == 11 + 4 + 3 + 2 + 10 + 9 + 8 + 7
    d = make_deal("czech", ["AS KD", "9S", "QC JC 10H"], starter="9H", talon="8S")
    play(d, "9S")
    assert d.outcome.points == [15, 0, 15]
    # a tie for most points is not settled by RULES.md; the engine's interpretation
    # (analyzer.engine.deal.pick) takes the first seat in play order after the last actor
    assert d.outcome.loser == 2


# ===================================================================== CZ8 sevens
def _sevens(chain="transfer", **kw):
    return make_deal("czech", ["9C 10D", "7H KD", "7S 8D"], starter="9H", talon="AS AC AD",
                     sevens=True, seven_chain=chain, **kw)


def test_cz8_seven_next_player_answers_or_takes():
    """CZ8 sevens: a 7 puts the next player in the 'seven' phase: a 7 or take."""
    d = _sevens()
    play(d, "7H")
    assert d.current == 2 and d.phase == "seven" and legal(d) == {"7S", "take"}
    with pytest.raises(IllegalMove, match="7 or take"):
        d.verify(C("8D"))


def test_cz8_seven_take_draws_one_and_loses_turn():
    """CZ8 sevens: taking = 1 penalty card and the turn is lost; the player after plays normally."""
    d = _sevens()
    play(d, "7H", "take")
    assert hand(d, 2) == {"7S", "8D", "AS"}
    assert d.current == 0 and d.phase == "play" and hand(d, 0) == {"9C", "10D"}
    assert legal(d) == {"draw"}  # 9C 10D on 7H: nothing fits, and no second penalty


def test_cz8_seven_chain_transfer_still_one_card():
    """CZ8 seven_chain=transfer: answering passes one card on; answering is that player's turn."""
    d = _sevens("transfer")
    play(d, "7H", "7S")
    # seat 0 has no 7: takes automatically, loses the turn
    assert hand(d, 0) == {"9C", "10D", "AS"}
    assert d.current == 1 and d.phase == "play" and top(d) == "7S"
    assert d.turns == 4


def test_cz8_seven_chain_accumulate_one_card_per_seven():
    """CZ8 seven_chain=accumulate: one card per 7 in the chain."""
    d = _sevens("accumulate")
    play(d, "7H", "7S")
    assert hand(d, 0) == {"9C", "10D", "AS", "AC"}
    assert d.current == 1


def test_cz8_seven_chain_accumulate_three_sevens():
    d = make_deal("czech", ["7C 10D", "7H KD", "7S 8D"], starter="9H", talon="AS AC AD 8S",
                  sevens=True, seven_chain="accumulate")
    play(d, "7H", "7S", "7C")
    assert hand(d, 1) == {"KD", "AS", "AC", "AD"}
    assert d.current == 2


def test_cz8_sevens_off_a_seven_is_plain():
    d = make_deal("czech", ["9C 10D", "7H KD", "7S 8D"], starter="9H", talon="AS AC AD")
    play(d, "7H")
    assert d.current == 2 and d.phase == "play" and legal(d) == {"7S"}


def test_cz8_eight_stop():
    """CZ8 eight_stop: an 8 makes the next player lose the turn (no draw)."""
    d = make_deal("czech", ["9C 10D", "8H KD", "7S 8D"], starter="9H", talon="AS", eight_stop=True)
    play(d, "8H")
    assert d.current == 0 and hand(d, 2) == {"7S", "8D"} and d.turns == 3
    d = make_deal("czech", ["9C 10D", "8H KD", "7S 8D"], starter="9H", talon="AS")
    play(d, "8H")
    assert d.current == 2


def test_cz8_queen_needs_king_strict():
    """CZ8 queen_needs_king (strict): on a Queen only the King of its suit; no other card, no Jack."""
    d = make_deal("czech", ["9C", "KH KS QS JC 9H", "8D"], starter="QH", talon="AS", queen_needs_king=True)
    assert legal(d) == {"KH"}
    with pytest.raises(IllegalMove):
        d.verify(C("JC"), H)
    d = make_deal("czech", ["9C", "KS QS JC 9H", "8D"], starter="QH", talon="AS", queen_needs_king=True)
    assert legal(d) == {"draw"}
    d = make_deal("czech", ["9C", "KH KS QS JC 9H", "8D"], starter="QH", talon="AS")
    assert legal(d) == {"KH", "QS", "JC", "9H"}


def test_cz8_queen_needs_king_applies_to_drawn_card():
    """CZ8 queen_needs_king + G6: a drawn Jack does not fit on a Queen."""
    d = make_deal("czech", ["9C", "KS 9D", "8D"], starter="QH", talon="JH KH", queen_needs_king=True)
    play(d, "draw")
    assert d.current == 2 and "JH" in hand(d, 1)


def test_cz8_jack_finish_doubles():
    """CZ8 jack_finish_doubles: a Jack as the deal's last card doubles everyone's points."""
    d = make_deal("czech", ["AS 10D", "JC", "KC"], starter="9H", talon="8S", jack_finish_doubles=True)
    play(d, "JC")
    assert d.outcome.points == [42, 0, 8]
    d = make_deal("czech", ["AS 10D", "JC", "KC"], starter="9H", talon="8S")
    play(d, "JC")
    assert d.outcome.points == [21, 0, 4]
    d = make_deal("czech", ["AS 10D", "9S", "KC"], starter="9H", talon="8S", jack_finish_doubles=True)
    play(d, "9S")
    assert d.outcome.points == [21, 0, 4]


def test_cz8_last_card_call_forget_rate_one_draws_two():
    """CZ8 last_card_call: forgetting (forget_rate 1.0) to call the last card costs 2 penalty cards."""
    d = make_deal("czech", ["AS 10D", "9S 10H", "KC"], starter="9H", talon="8S 8C 8D",
                  last_card_call=True, forget_rate=1.0)
    play(d, "10H")
    assert hand(d, 1) == {"9S", "8S", "8C"} and d.current == 2


def test_cz8_last_card_call_forget_rate_zero_no_penalty():
    d = make_deal("czech", ["AS 10D", "9S 10H", "KC"], starter="9H", talon="8S 8C 8D",
                  last_card_call=True, forget_rate=0.0)
    play(d, "10H")
    assert hand(d, 1) == {"9S"}
    d = make_deal("czech", ["AS 10D", "9S 10H", "KC"], starter="9H", talon="8S 8C 8D", forget_rate=1.0)
    play(d, "10H")
    assert hand(d, 1) == {"9S"}  # the rule itself is off: forget_rate cannot act, which is why make_rules refuses it


# ===================================================================== PR2
def test_pr2_from_deck_dealer_keeps_five_and_leads_the_sixth():
    r = make_rules("prague", 4)
    dk = list(reversed(deck(36)))  # the dealer's sixth is the 9S: no Jack to name
    d = Deal.from_deck(r, dk)
    assert [len(h) for h in d.hands] == [5, 6, 6, 6]
    assert strs(d.pile) == [card_str(dk[23])] and d.current == 1


def test_pr2_lead_effect_served_by_first_player():
    """PR2 (starter_effects on by default): a lead Ace makes the first player draw 1 and lose the turn."""
    d = make_deal("prague", ["QS 8C", "KS 10C", "9S 8D"], starter="AS", talon="7D 7C")
    assert hand(d, 1) == {"KS", "10C", "7D"} and d.current == 2 and d.turns == 2


def test_pr2_lead_six_draw_two_then_normal_turn():
    d = make_deal("prague", ["QS 8C", "KS 10C", "9S 8D"], starter="6S", talon="7D 7C")
    assert hand(d, 1) == {"KS", "10C", "7D", "7C"} and d.current == 1 and legal(d) == {"KS"}


def test_pr2_starter_effects_off_lead_effect_not_served():
    d = make_deal("prague", ["QS 8C", "KS 10C", "9S 8D"], starter="AS", talon="7D 7C", starter_effects=False)
    assert hand(d, 1) == {"KS", "10C"} and d.current == 1


def test_pr2_jack_lead_dealer_names_suit():
    """PR2: a Jack lead: the dealer names the suit at the 'lead_suit' decision point."""
    d = make_deal("prague", ["QS 8C", "KH 10C", "9S 8D"], starter="JC", talon="7D 7C")
    assert d.phase == "lead_suit" and d.current == 0 and d.legal_actions() == [C("JC")]
    assert d.turns == 0
    d.apply(C("JC"), H)
    assert d.active_suit == H and d.current == 1 and d.phase == "play"
    assert legal(d) == {"KH"}


def test_pr2_jack_lead_suit_given_at_start():
    d = make_deal("prague", ["QS 8C", "KH 10C", "9S 8D"], starter="JC", starter_suit="H", talon="7D")
    assert d.phase == "play" and d.active_suit == H and d.current == 1


def test_pr2_jack_lead_without_starter_effects_names_no_suit():
    d = make_deal("prague", ["QS 8C", "KH 10C", "9S 8D"], starter="JC", talon="7D", starter_effects=False)
    assert d.phase == "play" and d.active_suit == CL and legal(d) == {"10C"}


# ===================================================================== PR5
def test_pr5_ace_next_player_draws_one_and_loses_turn():
    d = make_deal("prague", ["QS 8C", "AS 10C", "KS 8D"], starter="9S", talon="7D 7C 6D")
    play(d, "AS")
    assert hand(d, 2) == {"KS", "8D", "7D"} and d.current == 0


def test_pr5_seven_makes_next_player_draw_one_without_skip():
    d = make_deal("prague", ["QS 8C", "7S 10C", "KS 8D"], starter="9S", talon="7D 7C 6D")
    play(d, "7S")
    assert hand(d, 2) == {"KS", "8D", "7D"} and d.current == 2 and d.phase == "play"
    assert legal(d) == {"KS", "7D"}


def test_pr5_six_makes_next_player_draw_two_without_skip():
    d = make_deal("prague", ["QS 8C", "6S 10C", "KS 8D"], starter="9S", talon="7D 7C 6D")
    play(d, "6S")
    assert hand(d, 2) == {"KS", "8D", "7D", "7C"} and d.current == 2 and d.phase == "play"


def test_pr5_jack_names_the_suit():
    d = make_deal("prague", ["QS 8C", "JH 10C", "KS 8D"], starter="9S", talon="7D 7C 6D")
    play(d, "JH>D")
    assert d.active_suit == D and legal(d) == {"8D"}


def test_pr5_effect_on_two_players_wraps_to_dealer():
    d = make_deal("prague", ["QS 8C", "AS 10C"], starter="9S", talon="7D 7C")
    play(d, "AS")
    assert hand(d, 0) == {"QS", "8C", "7D"} and d.current == 1  # seat 0 lost the turn


# ===================================================================== PR6 / PR7
def test_pr6_points():
    """PR6: 10, J, Q, K = 10; A = 11; others their number."""
    r = make_rules("prague", 3)
    assert hand_points(cards("10S JS QS KS AS 9S 6S"), r) == 10 * 4 + 11 + 9 + 6
    d = make_deal("prague", ["AS 10D", "9S", "KC QD 7H"], starter="9H", talon="8S")
    play(d, "9S")
    assert d.outcome.points == [21, 0, 27]


def test_pr7_jack_holder_loses_without_counting():
    """PR7: a player holding a Jack loses the deal even with fewer points."""
    d = make_deal("prague", ["AS KS", "9S", "JC"], starter="9H", talon="8S")
    play(d, "9S")
    o = d.outcome
    assert o.points == [21, 0, 10]
    assert o.loser == 2 and o.loser_by_wild and o.wild_holders == [2] and o.winner == 1


def test_pr7_several_jack_holders_most_points_loses():
    d = make_deal("prague", ["JD AS", "9S", "JC"], starter="9H", talon="8S")
    play(d, "9S")
    o = d.outcome
    assert o.wild_holders == [0, 2] and o.loser == 0 and not o.loser_by_wild


def test_pr7_no_jack_most_points_loses():
    d = make_deal("prague", ["AS KS", "9S", "7C"], starter="9H", talon="8S")
    play(d, "9S")
    o = d.outcome
    assert o.loser == 0 and not o.loser_by_wild and o.wild_holders == []


def test_pr7_czech_deal_loser_by_points_only():
    """CZ7 applies to the match; a czech deal's loser is by points (the Jack counts at match end)."""
    d = make_deal("czech", ["AS KS", "9S", "JC"], starter="9H", talon="8S")
    play(d, "9S")
    o = d.outcome
    assert o.loser == 0 and o.wild_holders == [2] and not o.loser_by_wild


# ===================================================================== SV2-SV6
def test_sv2_lead_may_be_any_card():
    """SV2: no card turned up; the dealer's opponent leads any card (and may draw, SV4)."""
    d = make_deal("svinya", ["KD 8D", "9S 10C AH"], talon="7D")
    assert d.top is None and d.current == 1
    assert legal(d) == {"9S", "10C", "AH", "draw"}
    play(d, "10C")
    assert top(d) == "10C" and d.current == 0


def test_sv2_from_deck_first_deal():
    d = Deal.from_deck(make_rules("svinya", 2), list(deck(36)))
    assert d.pile == [] and d.current == 1 and [len(h) for h in d.hands] == [5, 5]


def test_sv3_queens_wild_on_anything_and_name_suit():
    """SV3: Queens are wild, playable on anything; the player names the suit."""
    d = make_deal("svinya", ["QS 8C", "9H 10C"], talon="7D")
    play(d, "9H")
    assert legal(d) == {"QS", "draw"}
    d.apply(C("QS"), CL)
    assert d.active_suit == CL and legal(d) == {"10C", "draw"}


def test_sv3_jack_is_not_wild_in_svinya():
    d = make_deal("svinya", ["JS 8C", "9H 10C"], talon="7D")
    play(d, "9H")
    assert legal(d) == {"draw"}


def test_sv4_draw_until_play():
    """SV4: draw one at a time until a play; after each draw any legal card, or draw again."""
    d = make_deal("svinya", ["KD 8D", "9S 10C"], talon="10D 9D 8S")
    play(d, "9S")
    assert d.current == 0 and legal(d) == {"draw"}
    play(d, "draw")  # 10D does not fit: still seat 0
    assert d.current == 0 and d.phase == "play" and legal(d) == {"draw"}
    play(d, "draw")  # 9D fits by rank
    assert d.current == 0 and legal(d) == {"9D", "draw"}
    play(d, "draw")  # voluntary: 8S fits by suit
    assert legal(d) == {"9D", "8S"}  # talon empty, the pile is only its top: nothing to draw
    play(d, "8S")
    assert d.current == 1 and d.turns == 3


def test_sv4_voluntary_draw_while_holding_legal_card():
    d = make_deal("svinya", ["KS 8D", "9S 10C"], talon="10D 9D")
    play(d, "9S")
    assert legal(d) == {"KS", "draw"}
    play(d, "draw", "draw")
    assert d.current == 0 and legal(d) == {"KS", "9D"}


def test_sv4_nothing_left_to_draw_and_no_legal_card_passes():
    d = make_deal("svinya", ["KD 8D", "9S 10S"], talon="10D")
    play(d, "9S", "draw")
    # the 10D does not fit; nothing left to draw -> the turn passes
    assert d.current == 1 and hand(d, 0) == {"KD", "8D", "10D"}


def test_sv4_draw_until_play_turned_over_pile():
    """SV4 + G8: with the talon empty the pile below the top is turned over and drawn from."""
    d = make_deal("svinya", ["KD 8D 9H", "9S 10H 10C"], talon="")
    play(d, "9S", "9H", "10H")  # pile 9S 9H 10H; seat 0 has no heart and no 10
    assert d.current == 0 and legal(d) == {"draw"}
    play(d, "draw")  # oldest first: 9S, which does not fit
    assert "9S" in hand(d, 0) and d.turnovers == 1 and strs(d.talon) == ["9H"]
    assert d.current == 0 and legal(d) == {"draw"}
    play(d, "draw")  # 9H fits; nothing left to draw
    assert d.current == 0 and legal(d) == {"9H"}
    play(d, "9H")
    assert d.current == 1


@pytest.mark.parametrize("rank,drawn", [("A", 0), ("7", 1), ("6", 2)])
def test_sv5_ace_seven_six_skip_and_draw(rank, drawn):
    """SV5: A, 7 and 6 make the opponent lose the turn; 7 draws 1, 6 draws 2; the same player plays again."""
    d = make_deal("svinya", ["KD 8D", f"{rank}S 9S 10C"], talon="7D 7C 8H")
    play(d, f"{rank}S")
    assert len(d.hands[0]) == 2 + drawn
    assert d.current == 1 and top(d) == f"{rank}S" and d.turns == 3
    assert legal(d) == {"9S", "draw"}


def test_sv6_points_and_lone_queen_twenty():
    """SV6: A 11, K 4, Q 3, J 2; a hand of exactly one Queen scores 20."""
    r = make_rules("svinya", 2)
    assert hand_points(cards("QS"), r) == 20
    assert hand_points(cards("QS 7C"), r) == 10
    assert hand_points(cards("QS QH"), r) == 6
    assert hand_points(cards("JS"), r) == 2
    assert hand_points(cards("AS KS 10S 6S"), r) == 31
    d = make_deal("svinya", ["QH", "9S"], talon="7D")
    play(d, "9S")
    assert d.outcome.points == [20, 0] and d.outcome.loser == 0 and d.outcome.winner == 1


def test_sv6_lone_queen_rule_not_in_czech():
    assert hand_points(cards("QS"), make_rules("czech", 2)) == 3


# ===================================================================== G11 / CZ7 / SV7 / CZ2
class FirstLegal:
    name = "first-legal"

    def choose(self, view, rng):
        return view.legal[0], None


class RandomLegal:
    name = "random-legal"

    def __init__(self):
        self.max_seen_score = 0

    def choose(self, view, rng):
        if view.scores is not None:
            self.max_seen_score = max(self.max_seen_score, max(view.scores))
        a = int(view.legal[int(rng.integers(len(view.legal)))])
        suit = int(rng.integers(4)) if a < DRAW and view.is_wild(a) else None
        return a, suit


def _stacked(size: int, first: str) -> list[int]:
    """A full deck with the given cards first (deal order), the rest in id order."""
    head = cards(first)
    return head + [c for c in deck(size) if c not in head]


def test_cz7_jack_holder_loses_match_even_with_fewest_points():
    """CZ7 + G11: one deal to target 1; player 1 keeps a Jack (2 pts) and loses to player 2 (11 pts).

    Dealer of deal 1 is player 2 (seat 0); player 0 sits at seat 1 and acts first.
    """
    from analyzer.engine.deal import play_match

    r = make_rules("czech", 3, {"hand_size": 1, "target": 1})
    deck_ = _stacked(32, "9H JC AS 8H")  # seat1=player0 9H, seat2=player1 JC, seat0=player2 AS; starter 8H
    m = play_match(r, [FirstLegal()] * 3, np.random.default_rng(0), lambda: deck_)
    assert m.deals == 1 and m.totals == [0, 2, 11]
    assert m.wild_held == [False, True, False]
    assert m.loss_share == [0.0, 1.0, 0.0] and m.loser_by_wild
    assert m.win_share == [1.0, 0.0, 0.0]


def test_cz7_several_jack_holders_tie_share_the_loss():
    from analyzer.engine.deal import play_match

    r = make_rules("czech", 3, {"hand_size": 1, "target": 1})
    deck_ = _stacked(32, "9H JC JD 8H")
    m = play_match(r, [FirstLegal()] * 3, np.random.default_rng(0), lambda: deck_)
    assert m.totals == [0, 2, 2]
    assert m.loss_share == [0.0, 0.5, 0.5] and m.win_share == [1.0, 0.0, 0.0]


def test_cz7_match_outcome_arrays():
    """CZ7: most points loses; Jack holders lose first (most points among them); winner fewest among the others; ties share."""
    t = np.array([[100, 520, 300], [100, 520, 300], [100, 520, 300], [200, 200, 600], [510, 100, 100]])
    w = np.array([[False] * 3, [True, False, False], [True, False, True], [False] * 3, [False] * 3])
    win, loss, by_wild = match_outcome(make_rules("czech", 3), t, w)
    assert loss.tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 1], [1, 0, 0]]
    assert win.tolist() == [[1, 0, 0], [0, 0, 1], [1, 0, 0], [0.5, 0.5, 0], [0, 0.5, 0.5]]
    assert by_wild.tolist() == [False, True, True, False, False]


def test_cz7_wild_rule_off_lets_points_alone_decide():
    """wild_rule=off (the analyzer's switch for CZ7/PR7): the Jack holder no longer loses the match."""
    t = np.array([[100, 520, 300]])
    w = np.array([[True, False, False]])
    _, on, by_wild = match_outcome(make_rules("czech", 3), t, w)
    _, off, no_wild = match_outcome(make_rules("czech", 3, {"wild_rule": "off"}), t, w)
    assert on.tolist() == [[1, 0, 0]] and by_wild.tolist() == [True]
    assert off.tolist() == [[0, 1, 0]] and no_wild.tolist() == [False]


def test_pr7_wild_rule_off_in_a_deal():
    """PR7 switched off (wild_rule=off): the most points lose even when another player holds a Jack."""
    from analyzer.core.cards import parse_cards

    hands = [parse_cards("AS KS"), parse_cards("9D"), parse_cards("JC")]  # 21 points; out at once; a Jack (10)
    for rule, loser, by_wild in (("deal", 2, True), ("off", 0, False)):
        r = make_rules("prague", 3, {"wild_rule": rule, "starter_effects": False})
        d = Deal.start(r, hands, parse_cards("7D 8D"), parse_card("9C"))
        d.apply(parse_card("9D"))
        assert d.outcome.went_out == 1
        assert d.outcome.loser == loser and d.outcome.loser_by_wild == by_wild


def test_sv7_match_outcome_reaching_target_loses():
    """SV7: the player whose total reaches 100 loses; the other wins."""
    win, loss, _ = match_outcome(make_rules("svinya", 2), np.array([[40, 100], [120, 30]]), np.zeros((2, 2), bool))
    assert loss.tolist() == [[0, 1], [1, 0]] and win.tolist() == [[1, 0], [0, 1]]


def test_sv7_sv6_lone_queen_ends_match():
    """SV7 + SV6 via play_match: a lone Queen (20) reaches target 20 and loses the match."""
    from analyzer.engine.deal import play_match

    r = make_rules("svinya", 2, {"hand_size": 1, "target": 20})
    deck_ = _stacked(36, "9H QS")  # seat1 = player 0 leads 9H and goes out; player 1 keeps QS
    m = play_match(r, [FirstLegal()] * 2, np.random.default_rng(0), lambda: deck_)
    assert m.deals == 1 and m.totals == [0, 20]
    assert m.loss_share == [0.0, 1.0] and m.win_share == [1.0, 0.0]


@pytest.mark.parametrize("variant,players,target", [("czech", 3, 60), ("svinya", 2, 100), ("prague", 3, 80)])
def test_g11_match_ends_after_the_deal_reaching_target(variant, players, target):
    """G11: points accumulate and the match ends after the deal in which someone reaches the target."""
    from analyzer.engine.deal import play_match

    r = make_rules(variant, players, {"target": target})
    rng = np.random.default_rng(5)
    strats = [RandomLegal() for _ in range(players)]
    calls = []

    def next_deck():
        calls.append(1)
        return list(rng.permutation(deck(r.deck_size)))

    m = play_match(r, strats, np.random.default_rng(1), next_deck)
    assert m.deals == len(calls) >= 1
    assert max(m.totals) >= target
    assert max(s.max_seen_score for s in strats) < target  # no deal began after the target was reached
    assert abs(sum(m.loss_share) - 1) < 1e-9 and abs(sum(m.win_share) - 1) < 1e-9
    if variant == "svinya":
        assert m.loss_share[int(np.argmax(m.totals))] > 0


def test_g11_single_deal_variant_refuses_match():
    from analyzer.engine.deal import play_match

    with pytest.raises(ValueError, match="target"):
        play_match(make_rules("prague", 3), [FirstLegal()] * 3, np.random.default_rng(0), lambda: deck(36))


def test_cz2_sv2_dealer_rotation():
    """CZ2: the deal passes to the left; SV2: the winner of the previous deal leads (sits left of dealer)."""
    assert next_dealer("czech", 2, 0, 3) == 0
    assert next_dealer("czech", 0, 2, 3) == 1
    assert next_dealer("svinya", 1, 1, 2) == 0  # player 1 won: player 1 leads, player 0 deals
    assert next_dealer("svinya", 1, 0, 2) == 1
    assert next_dealer("svinya", 0, None, 2) == 1


def test_pr2_g9_prague_hand_size_one():
    """PR2 + G9: with hand_size 1 the prague dealer leads his only card and holds nothing.

    Either the configuration is refused (RulesError) or the deal ends at once with
    the dealer out (G9: the deal ends the moment a player sheds the last card); a
    deal that goes on with an empty-handed dealer contradicts G9.
    """
    from analyzer.core.rules import RulesError

    try:
        r = make_rules("prague", 3, {"hand_size": 1})
    except RulesError:
        return
    d = Deal.from_deck(r, list(reversed(deck(36))))
    assert d.hands[0] == []
    assert d.done and d.outcome.went_out == 0, "dealer has no cards but the deal goes on"
