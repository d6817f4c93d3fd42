"""One player's knowledge of a deal, kept move by move from public information only.

The observer watches the readable engine (:class:`analyzer.engine.deal.Deal`)
between decisions and reads only what a player at the table sees: the pile,
hand sizes, the talon's size, the named suit, whose turn it is, and its own
hand.  From the moves it infers what opponents cannot hold:

* **Forced draw** (G6/G7): a player who draws at a play decision while
  voluntary drawing is off held no legal card — no card of the active suit,
  none of the top card's rank and no wild (when wilds go on anything), as
  :func:`analyzer.engine.deal.legal_cards` defines legality for the variant
  (``queen_needs_king`` included).  Under ``draw_one`` a drawn card that is not
  played at once did not fit either.
* **Pass after drawing** (SV4): a svinya player who drew and then passed
  holds no legal card at all.

Each opponent's hand is a list of *slots*, one per card not publicly known,
each with a bit mask of the cards it may be.  A void narrows every slot held at
that moment; a card drawn later opens a fresh slot.  Slots therefore form a
chain (older slots are narrower), and when a card is played the narrowest slot
that allows it is removed — exact for chains (the remaining hand is then
feasible exactly when it was feasible before the play), a safe approximation
otherwise.

The talon (G8): before its first turn-over it holds never-seen cards; after a
turn-over it holds the old pile — in known order under ``reshuffle=turn_over``
(every later draw is then a publicly known card) and as a known set under
``reshuffle=shuffle``.  Inference is sound by construction: the true hidden
state always satisfies every constraint (tested on random deals of all three
variants).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from analyzer.core.cards import DRAW, TAKE, deck
from analyzer.core.public import NEVER_SEEN, draw_proves_void, drawn_card_proves, drop_slot, mask, narrow, pass_proves_void
from analyzer.core.rules import RuleSet
from analyzer.engine.deal import Deal, legal_cards

__all__ = ["NEVER_SEEN", "Knowledge", "Public", "cards_in", "mask", "narrow"]


def cards_in(m: int) -> list[int]:
    """Card ids of a bit mask, ascending."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


@dataclass(frozen=True)
class Public:
    """A snapshot of what everyone at the table sees (plus the observer's own hand)."""

    current: int
    phase: str
    pile: tuple[int, ...]
    active_suit: int | None
    hand_sizes: tuple[int, ...]
    talon_size: int
    turnovers: int
    own: tuple[int, ...]

    @classmethod
    def of(cls, deal: Deal, me: int) -> Public:
        return cls(deal.current, deal.phase, tuple(deal.pile), deal.active_suit,
                   tuple(len(h) for h in deal.hands), len(deal.talon), deal.turnovers, tuple(deal.hands[me]))

    @property
    def top(self) -> int | None:
        return self.pile[-1] if self.pile else None


@dataclass
class Knowledge:
    """Everything player ``me`` knows about the hidden cards of a deal in progress.

    ``slots[s]`` holds one mask per unknown card in seat ``s``'s hand (empty for
    ``me``); ``seen`` is every card that has ever been public (played, turned
    up, or drawn from a talon of known order); ``talon_order`` is the talon top
    first when its order is known, ``talon_set`` its content when only the
    content is known, both None while it still holds only never-seen cards.
    """

    rules: RuleSet
    me: int
    full: int
    own: set[int]
    pile: list[int]
    slots: list[list[int]]
    seen: int
    talon_size: int
    talon_order: list[int] | None = None
    talon_set: int | None = None
    known_cards: list[list[int]] = field(default_factory=list)  # cards of opponents' hands known exactly
    _added: list[int] = field(default_factory=list, repr=False)  # slots opened by the last update, by seat

    # ----------------------------------------------------------------- start
    @classmethod
    def start(cls, deal: Deal, me: int) -> Knowledge:
        """Knowledge at the first decision of a deal: own hand, the pile, hand sizes."""
        full = mask(list(deck(deal.rules.deck_size)))
        n = deal.rules.players
        k = cls(rules=deal.rules, me=me, full=full, own=set(deal.hands[me]), pile=list(deal.pile),
                slots=[[] if s == me else [full | NEVER_SEEN] * len(deal.hands[s]) for s in range(n)],
                seen=mask(deal.pile), talon_size=len(deal.talon), known_cards=[[] for _ in range(n)])
        return k

    # ----------------------------------------------------------------- queries
    def pool(self) -> int:
        """Cards whose place is hidden from ``me``: not in own hand, pile, known talon or known hands."""
        public = mask(self.own) | mask(self.pile)
        if self.talon_order is not None:
            public |= mask(self.talon_order)
        for known in self.known_cards:
            public |= mask(known)
        return self.full & ~public

    def slot_masks(self, seat: int) -> list[int]:
        """The effective masks of ``seat``'s unknown cards (never-seen slots exclude every seen card)."""
        return [m & self.full & ~self.seen if m & NEVER_SEEN else m for m in self.slots[seat]]

    def talon_mask(self) -> int | None:
        """What an unknown talon card may be; None when the talon's order is known (nothing to sample)."""
        if self.talon_order is not None:
            return None
        return self.talon_set if self.talon_set is not None else self.full & ~self.seen

    # ----------------------------------------------------------------- updates
    def observe(self, before: Public, action: int, after: Public) -> None:
        """Update from one decision (``action`` by ``before.current``) and every forced step it led to."""
        actor = before.current
        if before.phase == "lead_suit":  # PR2: the dealer only names a suit; no card moves
            return
        played = action < DRAW and action not in (DRAW, TAKE)
        pile_at_turnover = list(before.pile) + ([action] if played else [])
        if played:
            self._play(actor, action)
        self._draws(before, after, actor, played, pile_at_turnover)
        self._infer(before, action, after, actor)
        self.pile = list(after.pile)
        self.own = set(after.own)
        self.talon_size = after.talon_size
        self._check(after)

    def _play(self, seat: int, card: int) -> None:
        masks = self.slot_masks(seat)  # read before the card counts as seen
        seen_before = self.seen
        self.seen |= 1 << card
        if seat == self.me:
            return
        if card in self.known_cards[seat]:
            self.known_cards[seat].remove(card)
            return
        slots = self.slots[seat]
        fits = [i for i, m in enumerate(masks) if m >> card & 1]
        if not fits:
            raise AssertionError(f"seat {seat} played {card}, which no slot allows: inference is unsound")
        if all(masks[i] == masks[fits[0]] for i in fits):  # equal candidates (the usual case): drop_slot's
            slots.pop(fits[0])  # answer -- the first goes, nothing widens -- without the array round trip
            return
        # the batch simulator's slot choice (public.drop_slot) on one row: the narrowest slot that allows
        # the card goes, every other candidate it is not a subset of takes its cards (sound)
        out, _ = drop_slot(np.array([slots], np.uint64), np.array([len(slots)]), np.array([card]), self.full,
                           np.array([seen_before], np.uint64))
        self.slots[seat] = [int(m) for m in out[0, : len(slots) - 1]]

    def _draws(self, before: Public, after: Public, actor: int, played: bool, pile_at_turnover: list[int]) -> None:
        """New cards in hands: from the never-seen talon, or from a turned-over pile (G8).

        The engine serves draws in play order from the actor (the actor's own
        draw or last-card penalty first, then the next players' penalties); the
        cards left in the talon go first, then, after a turn-over, the old pile.
        """
        n = self.rules.players
        self._added = [0] * n
        grown = [after.hand_sizes[s] - before.hand_sizes[s] + (1 if played and s == actor else 0) for s in range(n)]
        order = [(actor + k) % n for k in range(n)]
        drawers = [s for s in order for _ in range(max(grown[s], 0))]
        turned = after.turnovers > before.turnovers
        before_turn = before.talon_size if turned else len(drawers)
        old = pile_at_turnover[:-1]
        for i, s in enumerate(drawers):
            if i == before_turn:  # the talon ran out here and the pile was turned over
                self.talon_order = list(old) if self.rules.reshuffle == "turn_over" else None
                self.talon_set = mask(old) if self.rules.reshuffle == "shuffle" else None
            card = self.talon_order.pop(0) if self.talon_order is not None else None
            if s == self.me:
                continue
            if card is not None:
                self.known_cards[s].append(card)
                self.seen |= 1 << card
            else:
                self.slots[s].append(self.talon_set if self.talon_set is not None else self.full | NEVER_SEEN)
                self._added[s] += 1
        if turned and before_turn >= len(drawers):  # turned over, nothing drawn from it yet
            self.talon_order = list(old) if self.rules.reshuffle == "turn_over" else None
            self.talon_set = mask(old) if self.rules.reshuffle == "shuffle" else None

    def _infer(self, before: Public, action: int, after: Public, actor: int) -> None:
        """Voids from forced draws (G6/G7) and passes after drawing (SV4)."""
        if actor == self.me or action != DRAW or before.phase != "play":
            return
        # what the draw proves: the rules of analyzer.core.public, shared with the batch simulator
        r = self.rules
        void = mask(legal_cards(list(deck(r.deck_size)), before.top, before.active_suit, r))
        slots = self.slots[actor]
        k = len(slots) - self._added[actor]  # slots held before the draw
        if draw_proves_void(r):  # G6/G7: no legal card was held
            slots[:k] = [narrow(m, ~void) for m in slots[:k]]
        if drawn_card_proves(r):  # G6 draw_one: the drawn card fits exactly when it is now to be played
            fits = after.current == actor and after.phase == "drawn"
            slots[k:] = [narrow(m, void if fits else ~void) for m in slots[k:]]
        if pass_proves_void(r) and after.current != actor and after.top == before.top:
            self.slots[actor] = [narrow(m, ~void) for m in slots]  # SV4: drew, then passed

    def _check(self, after: Public) -> None:
        for s, slots in enumerate(self.slots):
            if s != self.me and len(slots) + len(self.known_cards[s]) != after.hand_sizes[s]:
                raise AssertionError(f"seat {s}: {len(slots)} slots + {len(self.known_cards[s])} known cards "
                                     f"for a hand of {after.hand_sizes[s]}")
