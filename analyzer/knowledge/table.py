"""Playing deals and matches with players who remember: the engine's play loop plus one :class:`Knowledge` per such seat.

A strategy that wants perfect memory implements ``choose_known(view, knowledge,
table, rng)``; the loop keeps its :class:`~analyzer.knowledge.observer.Knowledge`
up to date after every move (its own and everyone else's) and hands it a
*public table*: a copy of the deal with every hidden card removed (other
players' hands and the talon are empty lists), so a strategy can rebuild
positions from what it knows without ever seeing what it must not.  Other
strategies are asked through the ordinary contract, ``choose(view, rng)``.
Matches (:func:`play_match_observed`, :func:`simulate_observed_matches`) follow
the engine's :func:`~analyzer.engine.deal.play_match` deal for deal.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.contract import Action, DecisionView
from analyzer.core.faults import SimulationError  # the batch simulator's error, raised alike by this runner
from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.rules import RuleSet
from analyzer.core.streams import child_seed
from analyzer.engine.deal import Deal, DealOutcome, MatchOutcome, forced_action, match_loop
from analyzer.engine.match import arrange_deck
from analyzer.engine.record import DealRecord
from analyzer.knowledge.observer import Knowledge, Public
from analyzer.knowledge.sampler import World


@runtime_checkable
class KnowingStrategy(Protocol):
    """A strategy with memory: decides from its view, its knowledge and the public table."""

    name: str

    def choose_known(self, view: DecisionView, knowledge: Knowledge, table: Deal,
                     rng: np.random.Generator) -> Action: ...


def copy_deal(deal: Deal) -> Deal:
    """An independent copy of a deal in progress (its lists copied, its log not carried, its public record
    copied: a move made on the copy never reaches the original's history)."""
    d = copy.copy(deal)
    d.hands = [list(h) for h in deal.hands]
    d.talon, d.pile, d.played, d.log = list(deal.talon), list(deal.pile), set(deal.played), []
    if hasattr(deal, "stream"):  # the deal's own random stream: the copy steps a copy of it
        d.stream = copy.copy(deal.stream)
    if deal.public is not None:
        d.public = _copy_record(deal.public)
    return d


def _copy_record(record: DealRecord) -> DealRecord:
    """A recording deal's :class:`DealRecord` with its arrays copied (the rules shared)."""
    out = copy.copy(record)
    out.pub = copy.copy(record.pub)
    for name, value in vars(record.pub).items():
        if isinstance(value, np.ndarray):
            setattr(out.pub, name, value.copy())
    return out


def public_table(deal: Deal, me: int) -> Deal:
    """``deal`` as seat ``me`` sees it: other hands and the talon emptied, the rest (public) kept, the rules
    seat ``me``'s own copy (as its views carry)."""
    d = copy_deal(deal)
    d.rules = deal.rules_for(me)
    d.hands = [list(h) if s == me else [] for s, h in enumerate(deal.hands)]
    d.talon = []
    d.rng = np.random.default_rng(0)
    return d


def world_deal(table: Deal, world: World, rng: np.random.Generator | None = None) -> Deal:
    """The public table completed with one determinization: every hand and the talon filled in."""
    d = copy_deal(table)
    d.hands = [list(h) for h in world.hands]
    d.talon = list(world.talon)
    d.rng = rng if rng is not None else np.random.default_rng(0)
    return d


def play_observed(deal: Deal, strategies: Sequence[Any], rng: np.random.Generator,
                  scores: Sequence[int] | None = None) -> DealOutcome:
    """``play_deal`` for line-ups with players who remember (``choose_known``); ``scores``: match totals by seat."""
    n = deal.rules.players
    knowers = [s for s in range(n) if isinstance(strategies[s], KnowingStrategy)]
    know = {s: Knowledge.start(deal, s) for s in knowers}
    while not deal.done:
        before = {s: Public.of(deal, s) for s in knowers}
        seat = deal.current
        action, suit = forced_action(deal), None
        if action is None:
            strat = strategies[seat]
            view = deal.view(scores)
            if seat in know:
                action, suit = strat.choose_known(view, know[seat], public_table(deal, seat), rng)
            else:
                action, suit = strat.choose(view, rng)
        deal.apply(int(action), None if suit is None or suit < 0 else int(suit))
        for s in knowers:
            know[s].observe(before[s], int(action), Public.of(deal, s))
    assert deal.outcome is not None
    return deal.outcome


def play_match_observed(rules: RuleSet, strategies: Sequence[Any], rng: np.random.Generator,
                        next_deck: Callable[[int], Sequence[int]], deal_rng: np.random.Generator | None = None
                        ) -> MatchOutcome:
    """:func:`analyzer.engine.deal.play_match` with players who remember (G11, CZ2, SV2, then CZ7/PR7/SV7).

    ``strategies[i]`` plays for player i (player 0 acts first in deal 1);
    ``next_deck(dealer)`` gives each deal's deck order; ``deal_rng`` (default
    ``rng``) is the engine's deal stream, ``rng`` the strategies'.  A knower's
    memory is of the deal in progress: it starts afresh every deal, and its
    view carries the match totals (``scores``) as in the engine's match.
    """
    return match_loop(rules, strategies, rng, next_deck, play_observed, deal_rng)


def _deck_rng(seed: np.random.SeedSequence, j: int, purpose: int) -> np.random.Generator:
    """Deck ``j``'s own stream: results depend on the seed and the deck, never on chunking."""
    return np.random.default_rng(child_seed(seed, j, purpose))


def simulate_observed(rules: RuleSet, strategies: Sequence[Any], decks: np.ndarray,
                      seed: np.random.SeedSequence) -> DealResults:
    """Play one deal per deck with :func:`play_observed`; results by position, as the simulator gives them.

    This is the path for line-ups with players who remember through ``choose_known`` alone: the
    readable engine plays, so every move is verified.  Position ``q`` is seat
    ``q + 1`` (position 0 acts first, G2).
    """
    n, p = len(decks), rules.players
    out = DealResults(points=np.zeros((n, p), np.int16), went_out=np.full(n, -1, np.int8),
                      winner=np.full(n, -1, np.int8), loser=np.full(n, -1, np.int8),
                      loser_by_wild=np.zeros(n, bool), wild_held=np.zeros((n, p), bool),
                      end=np.zeros(n, np.int8), turns=np.zeros(n, np.int32), last_card=np.full(n, -1, np.int8),
                      turnovers=np.zeros(n, np.int16), wilds_dealt=np.zeros((n, p), np.int8),
                      cards_left=np.zeros((n, p), np.int8))
    by_seat = [(q + 1) % p for q in range(p)]

    def pos(seat: int | None) -> int:
        return -1 if seat is None else (seat - 1) % p

    for j, deck_order in enumerate(decks):
        deal = Deal.from_deck(rules, [int(c) for c in deck_order], rng=_deck_rng(seed, j, 0))
        o = play_observed(deal, [strategies[pos(s)] for s in range(p)], _deck_rng(seed, j, 1))
        out.points[j] = [o.points[s] for s in by_seat]
        out.wild_held[j] = [s in o.wild_holders for s in by_seat]
        out.went_out[j], out.winner[j], out.loser[j] = pos(o.went_out), pos(o.winner), pos(o.loser)
        out.loser_by_wild[j], out.end[j], out.turns[j] = o.loser_by_wild, o.end, o.turns
        out.last_card[j] = -1 if o.last_card is None else o.last_card
        out.turnovers[j] = o.turnovers
        out.wilds_dealt[j] = [o.wilds_dealt[s] for s in by_seat]
        out.cards_left[j] = [o.cards_left[s] for s in by_seat]
    return out


def simulate_observed_matches(rules: RuleSet, strategies: Sequence[Any], decks: np.ndarray | None,
                              seed: np.random.SeedSequence, n: int | None = None,
                              hands: Sequence[int] | None = None) -> MatchResults:
    """Matches with players who remember, by player (player 0 leads deal 1), as the simulators give them.

    ``decks`` (N, K, D): deal k of match j is dealt from ``decks[j, k]`` (a
    match needing more than K deals is an error naming "deals per match", as
    the batch simulator's); None shuffles every deal's deck from match j's own
    stream (``n`` matches).  ``hands`` (a permutation of the players): player
    ``p`` receives canonical hand ``hands[p]`` of every deck whoever deals
    (:func:`analyzer.engine.match.arrange_deck`).  Match j's play streams
    depend on the seed and j alone, never on chunking.
    """
    count = len(decks) if decks is not None else int(n or 0)
    p = rules.players
    out = MatchResults(totals=np.zeros((count, p), np.int32), win_share=np.zeros((count, p), np.float32),
                       loss_share=np.zeros((count, p), np.float32), loser_by_wild=np.zeros(count, bool),
                       wild_held=np.zeros((count, p), bool), deals=np.zeros(count, np.int32),
                       capped_deals=np.zeros(count, np.int32), wilds_dealt=np.zeros((count, p), np.int8),
                       cards_left=np.zeros((count, p), np.int8))
    for j in range(count):
        deck_rng, k = _deck_rng(seed, j, 2), [0]

        def next_deck(dealer: int, j: int = j, deck_rng: np.random.Generator = deck_rng, k: list[int] = k
                      ) -> Sequence[int]:
            if decks is None:
                order = shuffled_decks(rules.deck_size, 1, deck_rng)[0]
            else:
                if k[0] >= decks.shape[1]:
                    raise SimulationError(f"given decks hold {decks.shape[1]} deals per match; a match needs more")
                order = decks[j, k[0]]
            k[0] += 1
            if hands is not None:
                order = arrange_deck(order[None, :], dealer, hands, players=p, hand_size=rules.hand_size)[0]
            return [int(c) for c in order]

        o = play_match_observed(rules, strategies, _deck_rng(seed, j, 1), next_deck, deal_rng=_deck_rng(seed, j, 0))
        out.totals[j], out.win_share[j], out.loss_share[j] = o.totals, o.win_share, o.loss_share
        out.loser_by_wild[j], out.wild_held[j], out.deals[j] = o.loser_by_wild, o.wild_held, o.deals
        out.capped_deals[j], out.wilds_dealt[j], out.cards_left[j] = o.capped_deals, o.wilds_dealt, o.cards_left
    return out


def knows(strategies: Sequence[Any]) -> bool:
    """Does the line-up hold a player who remembers (its chunks then play on :func:`simulate_known`)?"""
    return any(isinstance(s, KnowingStrategy) for s in strategies)


def simulate_known(rules: RuleSet, strategies: Sequence[Any], n: int, seed: np.random.SeedSequence,
                   unit: str = "deal") -> DealResults | MatchResults:
    """``n`` deals (``unit="match"``: matches) of a line-up with players who remember, from one chunk seed
    (the executor's path).

    The decks are shuffled from the seed's first child and the deals played by
    :func:`simulate_observed` from its second (matches: every deal's deck and
    play from match j's streams of the second child, :func:`simulate_observed_matches`),
    so a chunk's results depend on its seed alone (not on ``--jobs``).  The strategy views of the batch
    simulator carry no public history, so these line-ups play on the engine's
    table runner, which keeps every knower's :class:`Knowledge`.
    """
    deck_ss, play_ss = child_seed(seed, 0), child_seed(seed, 1)
    if unit == "match":
        return simulate_observed_matches(rules, strategies, None, play_ss, n=n)
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng(deck_ss))
    return simulate_observed(rules, strategies, decks, play_ss)
