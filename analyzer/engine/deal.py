"""The readable rules engine: one deal as a state machine (RULES.md G, CZ, PR, SV).

This module is the reference the batch simulator is tested against; it favours
clarity over speed.  A :class:`Deal` stops only at *decision points* of the
player to act; everything forced (penalty draws, lost turns, passing after a
useless draw, turning the pile over) happens inside it, as STYLE.md's
"automation" asks.  Moves follow pokerkit's triad: :meth:`Deal.verify` raises
:class:`IllegalMove` with the reason, :meth:`Deal.can` answers yes/no,
:meth:`Deal.apply` verifies and plays.

Decision points (``Deal.phase``):

* ``play``    — a normal turn: legal cards, plus ``DRAW`` when no card is legal
  or ``voluntary_draw`` is on (G6, G7).
* ``drawn``   — ``draw_one``: the card just drawn is legal and is played at once
  (G6); only that card is legal (the choice left is the suit of a wild).
* ``seven``   — answering a sevens chain (CZ8): a 7 from the hand, or ``TAKE``.
* ``lead_suit`` — prague with ``starter_effects``: the dealer names the suit of a
  Jack turned up as his lead (PR2); only the starter is "legal".

Under ``draw_until_play`` (SV4) a ``DRAW`` leaves the player in ``play`` with
the new card; with nothing left to draw and no legal card the turn passes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from analyzer.core.cards import DRAW, KING, QUEEN, TAKE, action_token, card_id, card_pretty, deck, rank_of, suit_of
from analyzer.core.contract import DecisionView, History, StrategyError, describe_action, is_action_int
from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT
from analyzer.core.public import reads_history
from analyzer.core.rules import RuleSet, private_copy
from analyzer.core.streams import DealStream
from analyzer.core.timelimit import DecisionTimeout, bounded, decision_limit, describe_limit
from analyzer.engine.explain import why_illegal
from analyzer.engine.match import MAX_DEALS, first_dealer, match_outcome, next_dealer
from analyzer.engine.record import DealRecord


class IllegalMove(ValueError):
    """A move the rules do not allow here; the message says why."""


@dataclass(frozen=True)
class Move:
    """A frozen record of one applied decision."""

    seat: int
    action: int  # card id, DRAW or TAKE
    suit: int | None  # suit named with a wild
    phase: str


@dataclass
class DealOutcome:
    """How a deal ended, by seat (seat 0 = dealer)."""

    points: list[int]
    went_out: int | None
    winner: int | None
    loser: int | None
    loser_by_wild: bool
    wild_holders: list[int]
    end: int  # results.END_*
    turns: int
    last_card: int | None
    turnovers: int
    #: wilds (G4) in each seat's hand as dealt, before the first turn (PR2: the dealer's lead is not in it)
    wilds_dealt: list[int] = field(default_factory=list)
    #: cards in each seat's hand at the end (held-a-wild is compared among equal counts)
    cards_left: list[int] = field(default_factory=list)

    def by_position(self) -> dict[str, object]:
        """This deal as ``DealResults.row`` gives one (position q is seat q + 1, G2): what the tests that hold
        the simulators equal to the engine compare, field for field."""
        n = len(self.points)

        def pos(s: int | None) -> int:
            return -1 if s is None else (s - 1) % n

        seats = [(q + 1) % n for q in range(n)]
        return {"points": [self.points[s] for s in seats], "went_out": pos(self.went_out),
                "winner": pos(self.winner), "loser": pos(self.loser), "loser_by_wild": self.loser_by_wild,
                "wild_held": [s in self.wild_holders for s in seats], "end": self.end, "turns": self.turns,
                "last_card": -1 if self.last_card is None else self.last_card, "turnovers": self.turnovers,
                "cards_left": [self.cards_left[s] for s in seats]}


def legal_cards(hand: Sequence[int], top: int | None, active_suit: int | None, rules: RuleSet) -> list[int]:
    """G3/G4/CZ8: the cards of ``hand`` that may go on ``top``."""
    if top is None:  # SV2: the lead may be any card
        return list(hand)
    top_rank = rank_of(top)
    if rules.queen_needs_king and top_rank == QUEEN != rules.wild_rank:
        king = card_id(KING, suit_of(top))  # CZ8 queen_needs_king, strict
        return [c for c in hand if c == king]
    return [
        c for c in hand
        if suit_of(c) == active_suit or rank_of(c) == top_rank
        or (rules.wild_on_anything and rank_of(c) == rules.wild_rank)
    ]


def hand_points(hand: Sequence[int], rules: RuleSet) -> int:
    """CZ6/PR6/SV6: points of a hand; svinya's lone Queen scores ``lone_wild_points``."""
    if rules.lone_wild_points is not None and len(hand) == 1 and rank_of(hand[0]) == rules.wild_rank:
        return rules.lone_wild_points
    return sum(rules.points[rank_of(c)] for c in hand)


def play_order(after: int, n: int) -> list[int]:
    """Seats in play order starting after seat ``after`` (G10's tie order)."""
    return [(after + k) % n for k in range(1, n + 1)]


def pick(seats: Sequence[int], key: Callable[[int], int], order: Sequence[int], most: bool) -> int:
    """The seat with the most (or fewest) ``key``; ties go to the earliest in ``order``."""
    best = max(key(s) for s in seats) if most else min(key(s) for s in seats)
    return next(s for s in order if s in seats and key(s) == best)


def deal_hands(deck: Sequence[int], rules: RuleSet) -> tuple[list[list[int]], int | None, list[int]]:
    """G10a/CZ2/PR2/SV2: deal ``deck`` one card at a time from the dealer's left, dealer last.

    Returns (hands by seat, starter or None, talon top first).  In prague the
    dealer's last card is his lead; in czech the next card is turned up.
    """
    n, h = rules.players, rules.hand_size
    hands: list[list[int]] = [[] for _ in range(n)]
    for i in range(n * h):
        hands[(i + 1) % n].append(int(deck[i]))
    rest = [int(c) for c in deck[n * h:]]
    if rules.starter_kind == "turned":
        return hands, rest[0], rest[1:]
    if rules.starter_kind == "dealer_lead":
        return hands, hands[0].pop(), rest
    return hands, None, rest


@dataclass
class Deal:
    """One deal in progress.  Seat 0 is the dealer; seat 1 acts first (G2)."""

    rules: RuleSet
    hands: list[list[int]]
    talon: list[int]  # top first
    starter: int | None = None
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    pile: list[int] = field(default_factory=list)  # bottom first; pile[-1] is the top
    active_suit: int | None = None
    current: int = 1
    phase: str = "play"
    pending_draw: int = 0
    pending_skip: bool = False
    pending_seven: int = 0
    drawn_card: int | None = None
    drew_this_turn: bool = False
    turns: int = 0
    stuck: int = 0
    turnovers: int = 0
    played: set[int] = field(default_factory=set)
    outcome: DealOutcome | None = None
    last_actor: int = 0
    log: list[str] = field(default_factory=list)
    names: list[str] | None = None
    #: the deal's own random stream for reshuffle=shuffle and forget_rate (core.streams)
    stream: DealStream = field(default_factory=lambda: DealStream(0))
    #: by seat, that seat's strategy's own copy of the rules: nothing it does to it reaches the game or another seat
    strategy_rules: dict[int, RuleSet] = field(default_factory=dict, repr=False)
    #: wilds (G4) in each seat's hand as dealt (set by :meth:`start`, before the first turn)
    wilds_dealt: list[int] = field(default_factory=list)
    #: the public history, kept only for a deal started with ``record=True``
    public: DealRecord | None = field(default=None, repr=False)

    # ----------------------------------------------------------------- setup
    @classmethod
    def from_deck(cls, rules: RuleSet, deck: Sequence[int], rng: np.random.Generator | None = None,
                  names: list[str] | None = None, stream_key: int | None = None, record: bool = False) -> Deal:
        hands, starter, talon = deal_hands(deck, rules)
        return cls.start(rules, hands, talon, starter, rng=rng, names=names, stream_key=stream_key, record=record)

    @classmethod
    def start(cls, rules: RuleSet, hands: list[list[int]], talon: list[int], starter: int | None,
              *, rng: np.random.Generator | None = None, names: list[str] | None = None,
              starter_suit: int | None = None, stream_key: int | None = None, record: bool = False) -> Deal:
        """Lay the starter (CZ3/PR2) and begin seat 1's first turn.

        ``starter_suit`` is the suit the prague dealer names for a Jack lead;
        left None, the dealer is asked at the ``lead_suit`` decision point.
        ``stream_key`` keys the deal's random stream (the simulator's key of the
        same deal gives the same shuffles and forgotten calls); left None, it is
        drawn from ``rng`` when the rules draw random numbers at all.  ``record`` keeps the deal's
        public history (:class:`~analyzer.engine.record.DealRecord`) for the views of strategies
        that read it (``uses_history = True``).
        """
        rng = rng if rng is not None else np.random.default_rng(0)
        if stream_key is None and (rules.reshuffle == "shuffle" or rules.last_card_call):
            stream_key = int(rng.integers(0, 2**63))
        d = cls(rules=rules, hands=[list(h) for h in hands], talon=list(talon), starter=starter,
                rng=rng, names=names, stream=DealStream(stream_key or 0))
        d.wilds_dealt = [sum(rank_of(c) == rules.wild_rank for c in h) for h in d.hands]
        d.current = 1 % rules.players
        if starter is not None:
            d.pile.append(starter)
            d.played.add(starter)
        if record:
            d.public = DealRecord(rules)
            d.public.start(d)
        if starter is None:  # SV2: no card is turned up
            d._begin_turn()
            return d
        d.active_suit = suit_of(starter)  # CZ3: a Jack starter names no suit
        d._log(f"starter {card_pretty(starter)}")
        if rules.starter_effects:
            d._set_pending(starter, chain=0)
            if rules.starter_kind == "dealer_lead" and rank_of(starter) == rules.wild_rank:
                if starter_suit is None:
                    d.current, d.phase = 0, "lead_suit"  # PR2: the dealer names the suit
                    return d
                d.active_suit = starter_suit
        d._begin_turn()
        return d

    # ------------------------------------------------------------- queries
    def name(self, seat: int) -> str:
        return self.names[seat] if self.names else f"seat {seat}"

    @property
    def done(self) -> bool:
        return self.outcome is not None

    @property
    def top(self) -> int | None:
        return self.pile[-1] if self.pile else None

    def can_draw(self) -> bool:
        """G8: something can be drawn (talon, or a pile to turn over)."""
        return bool(self.talon) or len(self.pile) > 1

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to act, sorted (cards, then DRAW/TAKE)."""
        if self.done:
            return []
        hand = self.hands[self.current]
        if self.phase == "lead_suit":
            return [self.pile[-1]]
        if self.phase == "drawn":
            return [self.drawn_card]  # type: ignore[list-item]
        if self.phase == "seven":
            return sorted(c for c in hand if rank_of(c) == 7) + [TAKE]
        cards = sorted(legal_cards(hand, self.top, self.active_suit, self.rules))
        if self.can_draw() and (not cards or self.rules.voluntary_draw):
            cards.append(DRAW)
        return cards

    def is_wild(self, card: int) -> bool:
        return rank_of(card) == self.rules.wild_rank

    def has_choice(self) -> bool:
        """A real choice: several actions, or a wild whose suit must be named."""
        acts = self.legal_actions()
        if len(acts) != 1:
            return True
        a = acts[0]
        return a < DRAW and self.is_wild(a) and (self.phase == "lead_suit" or len(self.hands[self.current]) > 1)

    # ------------------------------------------------------------- triad
    def verify(self, action: int, suit: int | None = None) -> None:
        """Raise IllegalMove saying why ``action`` (naming ``suit``) is not allowed now."""
        if self.done:
            raise IllegalMove("the deal is over")
        legal = self.legal_actions()
        who = self.name(self.current)
        if action not in legal:
            raise IllegalMove(why_illegal(self, action, legal, who))
        if suit is not None:
            if action >= DRAW or not self.is_wild(action):
                raise IllegalMove(f"{who}: only a wild names a suit")
            if not 0 <= suit < 4:
                raise IllegalMove(f"{who}: bad suit {suit}")

    def can(self, action: int, suit: int | None = None) -> bool:
        try:
            self.verify(action, suit)
        except IllegalMove:
            return False
        return True

    def apply(self, action: int, suit: int | None = None) -> Move:
        """Verify and play one decision; then run forced steps to the next decision."""
        self.verify(action, suit)
        seat, phase = self.current, self.phase
        if phase == "lead_suit":
            self.active_suit = suit_of(action) if suit is None else suit
            self._log(f"{self.name(0)} names {'SCHD'[self.active_suit]} for the lead")
            if self.public is not None:
                self.public.named_lead(self, self.active_suit)
            self.current = 1 % self.rules.players
            self._begin_turn()
        elif action == DRAW:
            self._draw_decision()
        elif action == TAKE:
            self._take_seven()
        else:
            self._play(action, suit)
        return Move(seat, action, suit, phase)

    # ------------------------------------------------------------- mechanics
    def _log(self, text: str) -> None:
        self.log.append(text)

    def _draw_one(self) -> int | None:
        """G8: take the talon's top card, turning the pile over when the talon is empty."""
        if not self.talon and len(self.pile) > 1:
            self.talon = self.pile[:-1]  # oldest card first, not shuffled
            self.pile = self.pile[-1:]
            self.turnovers += 1
            if self.rules.reshuffle == "shuffle":
                self.talon = self.stream.shuffle(self.talon)
            self._log("the pile is turned over into the talon")
            if self.public is not None:
                self.public.turned_over(self)
        if not self.talon:
            return None
        card = self.talon.pop(0)
        self.hands[self.current].append(card)
        if self.public is not None:
            self.public.drew(self, card)
        return card

    def _penalty(self, k: int) -> list[int]:
        """Draw ``k`` penalty cards, or what can be had (G8)."""
        got = []
        for _ in range(k):
            c = self._draw_one()
            if c is None:
                break
            got.append(c)
        if k:
            self._log(f"{self.name(self.current)} draws {k} penalty: "
                      + (" ".join(card_pretty(c) for c in got) or "nothing left"))
        return got

    def _set_pending(self, card: int, chain: int) -> None:
        """G5: the effect of ``card`` waits for the next player (CZ8 sevens chains aside)."""
        rank = rank_of(card)
        if self.rules.sevens and rank == 7:
            self.pending_seven = chain + 1
            return
        eff = self.rules.effects[rank]
        self.pending_draw, self.pending_skip = eff.draw, eff.skip

    def _advance(self) -> None:
        self.last_actor = self.current
        self.current = (self.current + 1) % self.rules.players
        self._begin_turn()

    def _begin_turn(self) -> None:
        """Start the current player's turn: cap, effects, forced draws (G5, G6, G10, G10a)."""
        if self.turns >= self.rules.turn_cap:
            self._finish(END_CAPPED)
            return
        self.turns += 1
        self.phase, self.drew_this_turn, self.drawn_card = "play", False, None
        if self.public is not None:
            self.public.begin_turn()
        if self.pending_seven:
            if any(rank_of(c) == 7 for c in self.hands[self.current]):
                self.phase = "seven"  # CZ8: answer with a 7, or take
                return
            self._take_seven()
            return
        if self.pending_draw or self.pending_skip:
            k, skip = self.pending_draw, self.pending_skip
            self.pending_draw, self.pending_skip = 0, False
            got = self._penalty(k)
            if skip:
                self._log(f"{self.name(self.current)} loses the turn")
                self._advance()
                return
            self.drew_this_turn = bool(got)
        self._settle()

    def _take_seven(self) -> None:
        """CZ8: the sevens penalty: one card (transfer) or one per 7 (accumulate), and the turn is lost."""
        k = self.rules.seven_penalty(self.pending_seven)
        self.pending_seven = 0
        if self.public is not None:
            self.public.took(self)
        self._penalty(k)
        self._log(f"{self.name(self.current)} loses the turn")
        self._advance()

    def _settle(self) -> None:
        """Stop at a decision point, or pass when nothing can be played or drawn."""
        if self.legal_actions():
            return
        # no legal card and nothing to draw: the turn passes (G8, SV4)
        if self.drew_this_turn:
            self.stuck = 0
        else:
            self.stuck += 1  # G10: a whole round of this blocks the deal
        self._log(f"{self.name(self.current)} passes")
        if self.public is not None:
            self.public.passed(self)
        if self.stuck >= self.rules.players:
            self.last_actor = self.current
            self._finish(END_BLOCKED)
            return
        self._advance()

    def _draw_decision(self) -> None:
        """G6 (draw_one) or SV4 (draw_until_play): the player draws at a decision point."""
        if self.public is not None:
            self.public.draw_decision(self, legal_cards(list(deck(self.rules.deck_size)), self.top, self.active_suit,
                                                        self.rules))
        card = self._draw_one()
        self.drew_this_turn = True
        self.stuck = 0
        who = self.name(self.current)
        assert card is not None  # DRAW is legal only when something can be drawn
        if self.public is not None:
            self.public.drawn(self, card)
        if self.rules.no_card == "draw_until_play":
            self._log(f"{who} draws {card_pretty(card)}")
            self._settle()
            return
        if card in legal_cards([card], self.top, self.active_suit, self.rules):
            self._log(f"{who} draws {card_pretty(card)}, which fits")
            self.phase, self.drawn_card = "drawn", card
            return
        self._log(f"{who} draws {card_pretty(card)} and passes")
        self._advance()

    def _play(self, card: int, suit: int | None) -> None:
        seat = self.current
        hand = self.hands[seat]
        hand.remove(card)
        chain = self.pending_seven if self.phase == "seven" else 0
        self.pending_seven = 0
        self.pile.append(card)
        self.played.add(card)
        self.stuck = 0
        wild = self.is_wild(card)
        self.active_suit = (suit if suit is not None else suit_of(card)) if wild else suit_of(card)
        named = f" and names {'SCHD'[self.active_suit]}" if wild else ""
        self._log(f"{self.name(seat)} plays {card_pretty(card)}{named}")
        if self.public is not None:
            self.public.played(self, seat, card, self.active_suit if wild else None)
        self._set_pending(card, chain)
        if not hand:  # G9: the deal ends the moment a player sheds the last card
            self.last_actor = seat
            if self.rules.serve_last_effect:
                self._serve_last_effect()
            self._finish(END_OUT, went_out=seat, last_card=card)
            return
        if self.rules.last_card_call and len(hand) == 1 and self.stream.random() < self.rules.forget_rate:
            self._log(f"{self.name(seat)} forgets to call the last card")
            self._penalty(2)  # CZ8 last_card_call
        self._advance()

    def _serve_last_effect(self) -> None:
        """G9 option ``serve_last_effect``: the next player still draws the last card's penalty."""
        k = self.pending_draw
        if self.pending_seven:
            k = self.rules.seven_penalty(self.pending_seven)
        self.current = (self.current + 1) % self.rules.players
        self._penalty(k)

    # ------------------------------------------------------------- scoring
    def _finish(self, end: int, went_out: int | None = None, last_card: int | None = None) -> None:
        """G9/G10/CZ7/PR7: score the hands and pick the deal's winner and loser."""
        r = self.rules
        n = r.players
        points = [hand_points(h, r) for h in self.hands]
        if r.jack_finish_doubles and last_card is not None and rank_of(last_card) == r.wild_rank:
            points = [2 * p for p in points]  # CZ8 jack_finish_doubles
        holders = [s for s in range(n) if any(self.is_wild(c) for c in self.hands[s])]
        winner = loser = None
        by_wild = False
        if end != END_CAPPED:
            order = play_order(self.last_actor, n)
            key = points.__getitem__
            # G10: a blocked deal is won by the fewest points, picked before the loser
            best = None if went_out is not None else pick(list(range(n)), key, order, most=False)
            others = [s for s in range(n) if s not in (went_out, best)]
            loser = pick(others, key, order, most=True)
            if r.wild_rule == "deal" and holders:  # PR7: a Jack in hand loses without counting
                wild_loser = pick(holders, key, order, most=True)
                by_wild = wild_loser != loser
                loser = wild_loser
            if went_out is not None:
                winner = went_out
            elif best != loser:
                winner = best
            else:  # PR7 made the blocked deal's best hand the loser: the next best wins
                winner = pick([s for s in range(n) if s != loser], key, order, most=False)
        self.outcome = DealOutcome(points, went_out, winner, loser, by_wild, holders, end,
                                   self.turns, last_card, self.turnovers, list(self.wilds_dealt),
                                   [len(h) for h in self.hands])
        self.phase = "over"
        how = {END_OUT: "goes out", END_BLOCKED: "blocked", END_CAPPED: "capped at the turn cap"}[end]
        self._log(f"deal ends: {self.name(went_out) + ' ' if went_out is not None else ''}{how}")

    # ------------------------------------------------------------- views
    def view(self, scores: Sequence[int] | None = None, history: bool = False) -> DecisionView:
        """What the player to act may know (the strategy view); ``history``: with the public
        history of the deal, which a deal started with ``record=True`` keeps."""
        n, s = self.rules.players, self.current
        # the contract's order (ascending card ids, as every path shows it), not the order cards were drawn in:
        # a plugin that reads ``hand[0]`` must play the same on the engine and on the kernel
        hand = tuple(sorted(self.hands[s] + [self.pile[-1]] if self.phase == "lead_suit" else self.hands[s]))
        return DecisionView(
            rules=self.rules_for(s), seat=s, hand=hand, legal=tuple(self.legal_actions()),
            top=None if self.phase == "lead_suit" else self.top, active_suit=self.active_suit,
            pending_seven=self.pending_seven if self.phase == "seven" else 0,
            hand_sizes=tuple(len(self.hands[(s + k) % n]) for k in range(n)),
            talon_size=len(self.talon), played=frozenset(self.played),
            scores=None if scores is None else tuple(scores[(s + k) % n] for k in range(n)),
            history=self._history(hand) if history else None,
        )

    def rules_for(self, seat: int) -> RuleSet:
        """Seat ``seat``'s strategy's own copy of the rules (what its views carry)."""
        rules = self.strategy_rules.get(seat)
        if rules is None:
            rules = self.strategy_rules[seat] = private_copy(self.rules)
        return rules

    def _history(self, hand: tuple[int, ...]) -> History:
        if self.public is None:
            raise ValueError("this deal keeps no public history: start it with record=True")
        return self.public.history(self, hand)


def forced_action(deal: Deal) -> int | None:
    """The one action of a decision without a real choice, else None."""
    return None if deal.has_choice() else deal.legal_actions()[0]


class MoveHistory:
    """The replay tokens of one deal, as ``durak replay`` reads them (the moves the simulator records).

    A prague Jack lead's named suit is not a move of its own: it belongs in the
    starter token (PR2), so it is kept apart in ``lead_suit``.
    """

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.lead_suit: int | None = None

    def add(self, phase: str, action: int, suit: int | None) -> None:
        if phase == "lead_suit":
            self.lead_suit = suit
        else:
            self.tokens.append(action_token(action, suit))


def checked_answer(answer: object, name: str) -> tuple[int, int | None]:
    """A strategy's answer as (action, suit), exact types only: ints or numpy integers,
    None (or -1) for no suit.  42.7, "42" or True are no card: StrategyError names the strategy."""
    action: object
    suit: object
    try:
        action, suit = answer  # type: ignore[misc]
    except (TypeError, ValueError):
        raise StrategyError(f"strategy {name!r}: choose returned {answer!r}, not an (action, suit) pair") from None
    if not is_action_int(type(action)) or not (suit is None or is_action_int(type(suit))):
        raise StrategyError(f"strategy {name!r}: choose returned {(action, suit)!r}, not an action "
                            "(a card id, DRAW or TAKE as an int, with a suit int or None)")
    a, s = int(action), (None if suit is None else int(suit))  # type: ignore[call-overload]
    return a, (None if s is None or s < 0 else s)


def play_deal(deal: Deal, strategies: Sequence[object], rng: np.random.Generator,
              scores: Sequence[int] | None = None, history: MoveHistory | None = None) -> DealOutcome:
    """Drive a deal to its end, asking ``strategies[seat]`` at each real choice.

    The one play loop of the engine: ``history`` (if given) receives every
    decision as a replay token, forced ones included, up to a fault -- which is
    how a fault is reproduced as a scenario (engine.faults) and how move
    histories are compared with the simulator's.  A strategy that reads the
    public history (``uses_history = True``) finds it in its views, as on the
    simulator: the deal must then have been started with ``record=True``
    (``core.public.reads_history(strategies)`` says when).
    """
    readers = [getattr(s, "uses_history", False) is True for s in strategies]
    limit = decision_limit()
    if any(readers) and deal.public is None:
        name = getattr(strategies[readers.index(True)], "name", "?")
        raise ValueError(f"strategy {name!r} reads the public history: start the deal with record=True")
    answered: list[None] = []  # one entry per answer: each starts the next decision's clock (core.timelimit)
    try:
        with bounded(answered, limit=limit):
            _play_loop(deal, strategies, rng, scores, history, readers, answered)
    except DecisionTimeout:
        name = _strategy_name(strategies[deal.current])
        raise StrategyError(f"strategy {name!r} {describe_limit(limit)}") from None
    assert deal.outcome is not None
    return deal.outcome


def _strategy_name(strat: object) -> str:
    """A strategy as messages name it: its ``name``, else its repr."""
    return getattr(strat, "name", repr(strat))


def _play_loop(deal: Deal, strategies: Sequence[object], rng: np.random.Generator, scores: Sequence[int] | None,
               history: MoveHistory | None, readers: list[bool], answered: list[None]) -> None:
    """:func:`play_deal`'s loop; ``answered`` gets an entry as each answer comes."""
    while not deal.done:
        phase = deal.phase
        forced = forced_action(deal)
        if forced is not None:
            deal.apply(forced)
            if history is not None:
                history.add(phase, forced, None)
            continue
        strat = strategies[deal.current]
        name = _strategy_name(strat)
        view = deal.view(scores, history=readers[deal.current])
        try:
            answer = strat.choose(view, rng)  # type: ignore[attr-defined]
        except Exception as exc:  # a faulty plugin must name itself
            raise StrategyError(f"strategy {name!r} raised {type(exc).__name__}: {exc}") from exc
        answered.append(None)
        action, suit = checked_answer(answer, name)
        try:
            deal.apply(action, suit)
        except IllegalMove as exc:
            raise StrategyError(f"strategy {name!r} returned an illegal move "
                                f"{describe_action(action, suit)}: {exc}") from exc
        if history is not None:
            history.add(phase, action, suit)


@dataclass
class MatchOutcome:
    """One match, by player (player 0 acts first in deal 1)."""

    totals: list[int]
    win_share: list[float]
    loss_share: list[float]
    loser_by_wild: bool
    wild_held: list[bool]
    deals: int
    capped_deals: int
    #: wilds dealt to each player in the match's last deal (the one CZ7 judges)
    wilds_dealt: list[int] = field(default_factory=list)
    #: cards in each player's hand at the end of the match's last deal
    cards_left: list[int] = field(default_factory=list)


def play_match(rules: RuleSet, strategies: Sequence[object], rng: np.random.Generator,
               next_deck: Callable[[], Sequence[int]]) -> MatchOutcome:
    """G11: play deals to ``rules.target`` with the variant's rotation (CZ2, SV2), then CZ7/PR7/SV7.

    ``strategies[i]`` plays for player i; ``next_deck()`` gives each deal's deck order.
    """
    return match_loop(rules, strategies, rng, lambda _dealer: next_deck(), play_deal, record=reads_history(strategies))


def match_loop(rules: RuleSet, strategies: Sequence[object], rng: np.random.Generator,
               deck_for: Callable[[int], Sequence[int]], play: Callable[..., DealOutcome],
               deal_rng: np.random.Generator | None = None, record: bool = False) -> MatchOutcome:
    """The one match loop (G11, CZ2/SV2 rotation, CZ7/PR7/SV7 outcome) for every way of playing a deal.

    ``deck_for(dealer)`` gives each deal's deck order; ``play(deal, strategies_by_seat, rng, scores=...)``
    plays it (:func:`play_deal`, or the table runner's players who remember); ``deal_rng`` (default
    ``rng``) is the deal's own stream, ``rng`` the strategies'; ``record`` keeps each deal's public
    history (for strategies that read it in their views, :func:`play_deal`).
    """
    if rules.target is None:
        raise ValueError(f"{rules.variant} has no match target; set the rule target=POINTS")
    n = rules.players
    totals = [0] * n
    dealer = first_dealer(n)
    capped = deals = 0
    wild, dealt, left = [False] * n, [0] * n, [0] * n
    while True:
        seat_player = [(dealer + s) % n for s in range(n)]
        deal = Deal.from_deck(rules, list(deck_for(dealer)), rng=deal_rng if deal_rng is not None else rng, record=record)
        out = play(deal, [strategies[p] for p in seat_player], rng, scores=[totals[p] for p in seat_player])
        deals += 1
        capped += out.end == END_CAPPED
        for s, p in enumerate(seat_player):
            totals[p] += out.points[s]
        wild, dealt, left = [False] * n, [0] * n, [0] * n
        for s in out.wild_holders:
            wild[seat_player[s]] = True
        for s, k in enumerate(out.wilds_dealt):
            dealt[seat_player[s]] = k
        for s, k in enumerate(out.cards_left):
            left[seat_player[s]] = k
        if max(totals) >= rules.target or deals >= MAX_DEALS:
            break
        winner = None if out.winner is None else seat_player[out.winner]
        dealer = next_dealer(rules.variant, dealer, winner, n)
    win, loss, by_wild = match_outcome(rules, np.array([totals]), np.array([wild]))
    return MatchOutcome(totals, win[0].tolist(), loss[0].tolist(), bool(by_wild[0]), wild, deals, capped, dealt,
                        left)
