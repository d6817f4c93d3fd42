"""One deal as a game tree: the readable engine with chance made explicit (what OpenSpiel and the solver walk).

The engine (:class:`analyzer.engine.deal.Deal`) is handed a deck whose order is fixed up front.  Game-tree
algorithms need the deal's randomness as *chance nodes* instead, drawn when it first matters and no sooner, so
that no player's information set splits on a card nobody has seen.  :class:`Position` wraps the engine and adds
exactly that, with no rules of its own:

* the deal (G10a): one chance node per card, dealt one at a time from the dealer's left, dealer last; in czech
  the next card is the turned-up starter (CZ3); a prague dealer's last card is his lead (PR2);
* the talon: its cards stay unknown slots until one is drawn; a draw from an unknown slot stops the engine
  (:class:`_NeedCard`), the position becomes a chance node over the cards not yet placed, and the move is played
  again from the state before it with that card in the slot.  The talon's order is unknown to everyone, so
  drawing its cards one by one uniformly is the same distribution as shuffling it up front;
* the deal's random stream (``reshuffle = shuffle``, ``last_card_call``): one chance node over
  :data:`STREAM_KEYS` keys before the first card.

Players are *positions* (G2): position ``q`` is seat ``(q + 1) % n``, so position 0 acts first and the dealer is
the last position.  Actions (one fixed layout, :data:`NUM_ACTIONS` ids):

====================  ===========================================================
``0..51``             play that card (a wild as one's last card names no suit)
``52`` (``DRAW``)     draw (G6, G7, SV4)
``53`` (``TAKE``)     take a sevens chain (CZ8)
``54 + 4*w + s``      play the wild of suit ``w`` naming suit ``s`` (G4); also the
                      prague dealer naming the suit of a Jack lead (PR2)
====================  ===========================================================

Every decision point of the engine is a decision here, one legal action or many.  Returns (single deal): +1 to
the winner, -1 to the дурак, shared among hands tied with him as the reports share it
(:func:`analyzer.kernel.deal_sums.loss_shares`), 0 to everyone else and to all in a capped deal.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from analyzer.core.cards import DRAW, TAKE, card_id, card_str, deck, rank_of, suit_of
from analyzer.core.contract import DecisionView
from analyzer.core.outcomes import END_CAPPED
from analyzer.core.rules import RuleSet
from analyzer.engine.deal import Deal
from analyzer.kernel.deal_sums import loss_shares

#: Action ids past the cards (see the module's table).
WILD_BASE = 54
NUM_ACTIONS = WILD_BASE + 16
#: An unknown talon slot.
UNKNOWN = -1
#: Chance outcomes of the deal's random stream key.
STREAM_KEYS = 1 << 16
CHANCE = -1
TERMINAL = -4
#: The engine's strategy generator, which a deal with a stream key never draws from.
_UNUSED_RNG = np.random.default_rng(0)


class _NeedCard(Exception):
    """The engine reached an unknown talon slot: chance must place a card there first."""


class _ChanceDeal(Deal):
    """The engine's deal, stopping at an unknown talon card instead of drawing it (and keeping no text log)."""

    def _draw_one(self) -> int | None:
        if self.talon and self.talon[0] == UNKNOWN:
            raise _NeedCard
        return super()._draw_one()

    def _log(self, text: str) -> None:
        """The tree needs no narration; building the text is a fifth of a step's time."""


def _copy_deal(d: Deal) -> Deal:
    """A copy whose mutable parts are its own (faster than deepcopy; the rules and stream key are shared values)."""
    c = copy.copy(d)
    c.hands = [list(h) for h in d.hands]
    c.talon, c.pile, c.played = list(d.talon), list(d.pile), set(d.played)
    c.stream = copy.copy(d.stream)
    if d.public is not None:
        c.public = copy.deepcopy(d.public)
    return c


def decode_action(action: int, rules: RuleSet) -> tuple[int, int | None]:
    """An action id as the engine's ``(action, suit)``."""
    if action >= WILD_BASE:
        a = action - WILD_BASE
        return card_id(rules.wild_rank, a // 4), a % 4
    return action, None


def encode_action(action: int, suit: int | None, rules: RuleSet, last_card: bool = False) -> int:
    """The engine's ``(action, suit)`` as an action id; a wild naming no suit names its own (G4)."""
    if action < DRAW and rank_of(action) == rules.wild_rank and not last_card:
        return WILD_BASE + 4 * suit_of(action) + (suit_of(action) if suit is None else suit)
    return action


def action_text(action: int, rules: RuleSet) -> str:
    """``8C``, ``JH>S``, ``draw``, ``take``."""
    a, s = decode_action(action, rules)
    if a == DRAW:
        return "draw"
    if a == TAKE:
        return "take"
    return card_str(a) + ("" if s is None else ">" + "SCHD"[s])


class Position:
    """A deal in progress as a game-tree node: a chance node, a decision of one position, or terminal.

    ``cards``: the deck (default the rules' deck, G1; a research size passes a short one).  Cheap to
    :meth:`clone`; information keys (:meth:`info_key`) hold exactly what a position knows: its own cards as they
    came to it, and every public event with the hand sizes after it.
    """

    def __init__(self, rules: RuleSet, cards: Sequence[int] | None = None, record: bool = False) -> None:
        self.rules = rules
        self.record = record  # keep the engine's public history, for strategies that read it
        self.cards = tuple(sorted(cards)) if cards is not None else deck(rules.deck_size)
        n = rules.players
        self.n = n
        self.first_cards = n * rules.hand_size + (1 if rules.starter_kind == "turned" else 0)
        if self.first_cards >= len(self.cards) + (1 if rules.starter_kind == "turned" else 0):
            raise ValueError(f"{len(self.cards)} cards are too few for {n} hands of {rules.hand_size}")
        self.needs_key = rules.reshuffle == "shuffle" or rules.last_card_call
        self.key: int | None = None
        self.dealt: list[int] = []
        self.deal: Deal | None = None
        self.before: Deal | None = None  # the state before the move waiting for a card
        self.waiting: tuple[int, int | None] | None = None  # that move (None: the deal's start)
        self.placed: list[int] = []  # talon cards chance placed for it so far
        self.unplaced = set(self.cards)
        self.public: list[tuple[int, str, tuple[int, ...], int]] = []  # (position or CHANCE, move, hand sizes, talon)
        self.private: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (event index, card)
        self.history: list[int] = []  # every action id, chance ones included
        self.move: tuple[int, str] = (CHANCE, "")  # the decision being played: (position, text)
        self._start_order: list[int] = []

    # ------------------------------------------------------------ queries
    def clone(self) -> Position:
        c = copy.copy(self)
        c.dealt, c.placed, c.unplaced = list(self.dealt), list(self.placed), set(self.unplaced)
        c.public, c.history = list(self.public), list(self.history)
        c.private = [list(p) for p in self.private]
        if self.deal is not None:
            c.deal = _copy_deal(self.deal)
        return c

    def child(self, action: int) -> Position:
        """A new position after ``action``; cheaper than clone-then-apply, as the move copies the deal anyway
        (:meth:`apply` never changes a deal it did not copy first)."""
        c = copy.copy(self)
        c.dealt, c.placed, c.unplaced = list(self.dealt), list(self.placed), set(self.unplaced)
        c.public, c.history = list(self.public), list(self.history)
        c.private = [list(p) for p in self.private]
        c.apply(action)
        return c

    def current_player(self) -> int:
        """The position to act, CHANCE (-1) or TERMINAL (-4)."""
        if self.deal is None or self.waiting is not None:
            return CHANCE
        if self.deal.done:
            return TERMINAL
        return (self.deal.current - 1) % self.n

    def is_terminal(self) -> bool:
        return self.deal is not None and self.waiting is None and self.deal.done

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The uniform chance outcomes here: the stream key, or a card not yet placed."""
        if self.needs_key and self.key is None:
            return [(k, 1.0 / STREAM_KEYS) for k in range(STREAM_KEYS)]
        left = sorted(self.unplaced)
        return [(c, 1.0 / len(left)) for c in left]

    def legal_actions(self) -> list[int]:
        """The action ids of the position to act, sorted."""
        d = self.deal
        if d is None or self.waiting is not None or d.done:
            return []
        rules = self.rules
        if d.phase == "lead_suit":
            w = suit_of(d.pile[-1])
            return [WILD_BASE + 4 * w + s for s in range(4)]
        last = len(d.hands[d.current]) == 1
        out: list[int] = []
        for a in d.legal_actions():
            if a < DRAW and rank_of(a) == rules.wild_rank and not last:
                out.extend(WILD_BASE + 4 * suit_of(a) + s for s in range(4))
            else:
                out.append(a)
        return sorted(out)

    def returns(self) -> list[float]:
        """By position: +1 the winner, -1 the дурак shared among hands tied with him, 0 else (capped: all 0)."""
        if not self.is_terminal():
            return [0.0] * self.n
        o = self.deal.outcome  # type: ignore[union-attr]
        assert o is not None
        n = self.n
        out = [0.0] * n
        if o.end == END_CAPPED:
            return out
        pos = [(s - 1) % n for s in range(n)]
        points = np.zeros((1, n), np.int16)
        held = np.zeros((1, n), np.bool_)
        for s in range(n):
            points[0, pos[s]] = o.points[s]
            held[0, pos[s]] = s in o.wild_holders
        winner, loser = pos[o.winner], pos[o.loser]  # type: ignore[index]
        loss = np.zeros((1, n))
        loss_shares(points, np.array([winner], np.int8), np.array([loser], np.int8), np.array([o.loser_by_wild]),
                    held, np.array([o.end], np.int8), END_CAPPED, self.rules.wild_rule == "deal", loss,
                    np.zeros(1, np.bool_))
        for q in range(n):
            out[q] = (q == winner) - float(loss[0, q])
        return out

    def hand(self, position: int) -> tuple[int, ...]:
        """Cards now in ``position``'s hand (the prague dealer's lead counts as his until it is led)."""
        if self.deal is None:
            return tuple(c for i, c in enumerate(self.dealt) if self._dealt_to(i) == position)
        return tuple(self.deal.hands[(position + 1) % self.n])

    def info_key(self, position: int) -> tuple[object, ...]:
        """Everything ``position`` knows, as a hashable value (perfect recall)."""
        return (position, tuple(self.public), tuple(self.private[position]))

    def view(self, history: bool = False) -> DecisionView:
        """The engine's strategy view of the position to act (what our strategies are shown); ``history``
        needs a position built with ``record=True``."""
        assert self.deal is not None
        return self.deal.view(history=history)

    def replayed(self, record: bool) -> Position:
        """This position rebuilt from its actions (e.g. with the public history recorded)."""
        p = Position(self.rules, self.cards, record=record)
        for a in self.history:
            p.apply(a)
        return p

    # ------------------------------------------------------------ moves
    def apply(self, action: int) -> None:
        """Play a chance outcome or a decision; a decision that needs an unknown card leaves a chance node."""
        self.history.append(action)
        if self.needs_key and self.key is None:
            self.key = action
            return
        if self.waiting is not None:
            self._place(action)
            return
        if self.deal is None:
            self._deal_card(action)
            return
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action_text(action, self.rules)}: legal are "
                             + " ".join(action_text(a, self.rules) for a in self.legal_actions()))
        self.before = self.deal
        self.deal = _copy_deal(self.deal)
        self.waiting = decode_action(action, self.rules)
        self.move = ((self.deal.current - 1) % self.n, action_text(action, self.rules))
        self.placed = []
        self._run()

    def _dealt_to(self, i: int) -> int | None:
        """The position the ``i``-th dealt card goes to (None: the czech starter)."""
        n = self.n
        return None if i >= n * self.rules.hand_size else (i % n)  # card i to seat (i + 1) % n, position i % n

    def _deal_card(self, card: int) -> None:
        if card not in self.unplaced:
            raise ValueError(f"card {card} is not left to deal")
        self.unplaced.discard(card)
        i = len(self.dealt)
        self.dealt.append(card)
        to = self._dealt_to(i)
        if to is not None:
            self.private[to].append((len(self.public), card))
        if len(self.dealt) < self.first_cards:
            return
        talon = [UNKNOWN] * (len(self.cards) - self.first_cards)
        if self.rules.starter_kind == "turned":
            talon = [self.dealt[-1], *talon]  # deal_hands takes rest[0] as the starter
        deck_order = self.dealt[:-1] + talon if self.rules.starter_kind == "turned" else self.dealt + talon
        self.before = None
        self.waiting = None
        self.placed = []
        self._start(deck_order)

    def _start(self, deck_order: list[int]) -> None:
        """Deal.from_deck, stopping at an unknown card a starter's penalty needs (PR2)."""
        order = list(deck_order)
        slots = [i for i, c in enumerate(order) if c == UNKNOWN]
        for i, c in zip(slots, self.placed):
            order[i] = c
        try:
            self.deal = _ChanceDeal.from_deck(self.rules, order, rng=_UNUSED_RNG, stream_key=self.key or 0,
                                              record=self.record)
        except _NeedCard:
            self.deal = None
            self.waiting = (-1, None)
            self.before = None
            self._start_order = deck_order
            return
        self.waiting = None
        self._event(CHANCE, "start", before=None)

    def _place(self, card: int) -> None:
        if card not in self.unplaced:
            raise ValueError(f"card {card} is not left to draw")
        self.unplaced.discard(card)
        self.placed.append(card)
        if self.waiting == (-1, None) and self.before is None:
            self._start(self._start_order)
            return
        self.deal = _copy_deal(self.before)  # type: ignore[arg-type]
        self._run()

    def _run(self) -> None:
        """Play the waiting move on ``self.deal`` (the state before it, placed cards in the first unknown slots)."""
        d = self.deal
        assert d is not None and self.waiting is not None
        talon = d.talon
        k = 0
        for i, c in enumerate(talon):
            if k == len(self.placed):
                break
            if c == UNKNOWN:
                talon[i] = self.placed[k]
                k += 1
        before = self.before
        try:
            d.apply(*self.waiting)
        except _NeedCard:
            return  # still a chance node: another card is needed
        self.waiting = None
        self._event(*self.move, before=before)

    def _event(self, actor: int, text: str, before: Deal | None) -> None:
        """Log a finished move: public text and hand sizes; to each position, the cards that came to it."""
        d = self.deal
        assert d is not None
        n = self.n
        idx = len(self.public)
        sizes = tuple(len(d.hands[(q + 1) % n]) for q in range(n))
        self.public.append((actor, text, sizes, len(d.talon)))
        if before is None:
            if self.rules.starter_kind == "turned" or (self.rules.starter_kind == "dealer_lead"):
                self.public[-1] = (actor, card_str(d.pile[0]), sizes, len(d.talon))
            for q in range(n):  # starter penalties (PR2) put talon cards in the first hand
                got = [c for c in d.hands[(q + 1) % n] if c in self.placed]
                self.private[q].extend((idx, c) for c in got)
            return
        for q in range(n):
            old = set(before.hands[(q + 1) % n])
            self.private[q].extend((idx, c) for c in d.hands[(q + 1) % n] if c not in old)
