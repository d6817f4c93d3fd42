"""Determinizations: hidden states drawn uniformly among those consistent with a player's knowledge.

The hidden cards (the *pool*) must be spread over *classes* — groups of
unknown places that accept the same cards: each opponent's slots with equal
masks, and the talon when its content is not known in order.  Every
assignment of pool cards to classes that respects the masks and the class
sizes is one consistent world (up to the order of cards within a hand, which
does not matter, and within the talon, which is uniform).  Under a uniformly
shuffled deck and no model of the opponents' choices, these worlds are equally
likely, so the sampler draws assignments uniformly: a dynamic programme counts
the completions of every partial assignment (cards grouped into types of equal
allowed classes, the types taken in a fixed order, state = the room left in
each class), and each type's spread over its classes is drawn with probability
proportional to the completions that follow.  Exact, with no rejection loop
that could stall on a tightly constrained hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analyzer.knowledge.observer import Knowledge, cards_in


class InconsistentKnowledge(ValueError):
    """No hidden state fits the knowledge (a bug in inference, or a hand-made knowledge that is impossible)."""


@dataclass(frozen=True)
class Classes:
    """Places for hidden cards: ``owner[k]`` (a seat, or -1 for the talon), ``allowed[k]`` mask, ``size[k]``."""

    owner: tuple[int, ...]
    allowed: tuple[int, ...]
    size: tuple[int, ...]
    pool: tuple[int, ...]  # the hidden cards, ascending


@dataclass(frozen=True)
class World:
    """One determinization: every seat's hand and the talon (top first)."""

    hands: tuple[tuple[int, ...], ...]
    talon: tuple[int, ...]


def classes_of(k: Knowledge) -> Classes:
    """Group the hidden places of ``k`` into classes of equal masks."""
    pool = k.pool()
    groups: dict[tuple[int, int], int] = {}
    for seat in range(k.rules.players):
        if seat == k.me:
            continue
        for m in k.slot_masks(seat):
            key = (seat, m & pool)
            groups[key] = groups.get(key, 0) + 1
    talon = k.talon_mask()
    if talon is not None and k.talon_size:
        groups[(-1, talon & pool)] = k.talon_size
    keys = sorted(groups)
    return Classes(tuple(o for o, _ in keys), tuple(m for _, m in keys), tuple(groups[x] for x in keys),
                   tuple(cards_in(pool)))


def uniform_below(total: int, rng: np.random.Generator) -> int:
    """An exactly uniform integer in [0, total) for Python ints of any size (counts can pass 2**63)."""
    if total < 2**62:
        return int(rng.integers(total))
    bits = total.bit_length()
    while True:  # rejection on whole bit strings: accepts with probability > 1/2
        r = int.from_bytes(rng.bytes((bits + 7) // 8), "little") >> ((-bits) % 8)
        if r < total:
            return r


class Sampler:
    """Uniform sampler over card-to-class assignments, counted over card *types*.

    Cards with the same allowed classes are interchangeable for counting: a
    type of ``m`` cards spread as ``n_k`` cards to class ``k`` gives
    ``m! / prod n_k!`` assignments.  The types are taken one after another,
    each type's spread one class at a time (``C(left, n)`` ways to pick the
    ``n`` cards of the ``left`` not yet placed), so a step's state is the
    cards of the type still to place and the room left in each class.  The
    types are ordered to keep few classes *open* (touched by a type already
    taken and by one still to come): a class no later type can reach must
    take exactly its remaining room at its last step, and a class with more
    room than the cards that can still reach it is a dead end.  Counts run
    backwards over the reachable states of every step; a draw walks the steps
    forwards picking each spread with probability proportional to its
    completions, then deals each type's cards to its spread by a uniform
    permutation.
    """

    def __init__(self, classes: Classes) -> None:
        if sum(classes.size) != len(classes.pool):
            raise InconsistentKnowledge(f"{len(classes.pool)} hidden cards for {sum(classes.size)} hidden places")
        self.c = classes
        n_cls = len(classes.size)
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, card in enumerate(classes.pool):
            groups.setdefault(tuple(k for k, m in enumerate(classes.allowed) if m >> card & 1), []).append(i)
        if () in groups:
            raise InconsistentKnowledge(f"hidden card {classes.pool[groups[()][0]]} fits no hidden place")
        self.types = _order_types(groups, classes.size)
        # steps: (type, class, last step of the type, class closes: no later type reaches it)
        later = [0] * n_cls  # cards of the types after the current one that fit each class
        caps: list[list[int]] = []
        for fit, cards in reversed(self.types):
            caps.append(list(later))
            for k in fit:
                later[k] += len(cards)
        caps.reverse()
        self.steps: list[tuple[int, int, bool, bool, tuple[int, ...]]] = []
        for t, (fit, _cards) in enumerate(self.types):
            cap = caps[t]
            ordered = sorted(fit, key=lambda k: cap[k] > 0)  # closing classes first: their spread is forced
            for j, k in enumerate(ordered):
                self.steps.append((t, k, j == len(ordered) - 1, cap[k] == 0, tuple(ordered[j + 1:])))
        self._caps = caps
        self._layers = self._count_layers()
        start = self._start()
        self.total = self._layers[0].get(start, 0) if self.steps else int(not classes.pool)
        if self.total == 0:
            raise InconsistentKnowledge("no hidden state is consistent with what is known")

    def _start(self) -> tuple[int, tuple[int, ...]]:
        return (len(self.types[0][1]) if self.types else 0, self.c.size)

    def _children(self, s: int, left: int, room: tuple[int, ...]):
        """(n, weight factor C(left, n), next state) of step ``s`` from state (left, room)."""
        t, k, last, closes, rest = self.steps[s]
        if last:
            spreads = [left]
        elif closes:
            spreads = [room[k]]
        else:
            spreads = range(min(left, room[k]) + 1)
        cap = self._caps[t]
        out = []
        for n in spreads:
            if n > left or n > room[k] or (closes and n != room[k]) or room[k] - n > cap[k]:
                continue
            new_left = left - n
            if any(room[q] > new_left + cap[q] for q in rest):
                continue
            nxt = room[:k] + (room[k] - n,) + room[k + 1:]
            if last:
                new_left = len(self.types[t + 1][1]) if t + 1 < len(self.types) else 0
            out.append((n, math.comb(left, n), (new_left, nxt)))
        return out

    def _count_layers(self) -> list[dict[tuple[int, tuple[int, ...]], int]]:
        """Completions of every reachable state before each step (the last layer: the finished state)."""
        if not self.steps:
            return []
        reach = [{self._start()}]
        for s in range(len(self.steps)):
            nxt: set[tuple[int, tuple[int, ...]]] = set()
            for left, room in reach[-1]:
                nxt.update(st for _n, _w, st in self._children(s, left, room))
            reach.append(nxt)
        layers: list[dict[tuple[int, tuple[int, ...]], int]] = [{}] * len(reach)
        layers[-1] = {st: int(not any(st[1])) for st in reach[-1]}
        for s in range(len(self.steps) - 1, -1, -1):
            after = layers[s + 1]
            layers[s] = {(left, room): sum(w * after[st] for _n, w, st in self._children(s, left, room))
                         for left, room in reach[s]}
        return layers

    def assignment(self, rng: np.random.Generator, u: np.ndarray | None = None) -> list[int]:
        """Class index of every pool card, drawn exactly uniformly among consistent assignments.

        ``u`` is accepted for the callers that pass one uniform per pool card;
        the draw takes its randomness from ``rng`` (exact integers throughout).
        """
        out = [-1] * len(self.c.pool)
        if not self.steps:
            return out
        r = uniform_below(self.total, rng)
        state = self._start()
        spread: list[tuple[int, int]] = []
        for s, (t, k, last, _closes, _rest) in enumerate(self.steps):
            after = self._layers[s + 1]
            for n, w, st in self._children(s, *state):
                c = after.get(st, 0)
                if r < w * c:
                    r %= c  # uniform within the chosen spread's completions
                    break
                r -= w * c
            if n:
                spread.append((k, n))
            state = st
            if last:
                cards = self.types[t][1]
                if len(spread) > 1:
                    cards = [cards[i] for i in rng.permutation(len(cards))]
                at = 0
                for cls, n in spread:
                    for i in cards[at:at + n]:
                        out[i] = cls
                    at += n
                spread = []
        return out


def _order_types(groups: dict[tuple[int, ...], list[int]], size: tuple[int, ...]
                 ) -> list[tuple[tuple[int, ...], list[int]]]:
    """The types (allowed classes, pool indices) in an order that keeps the open classes few.

    Greedy: next the type after which the open classes (reached by a type
    taken and by one still to come) span the fewest room states, the most
    constrained first on ties.
    """
    left = dict(groups)
    users = [0] * len(size)
    for fit in groups:
        for k in fit:
            users[k] += 1
    touched: set[int] = set()
    order = []
    while left:
        def cost(fit: tuple[int, ...]) -> tuple[float, int]:
            open_ = {k for k in touched | set(fit) if users[k] - (k in fit) > 0}
            return sum(math.log(size[k] + 1) for k in open_), len(fit)

        fit = min(left, key=cost)
        order.append((fit, left.pop(fit)))
        touched |= set(fit)
        for k in fit:
            users[k] -= 1
    return order


def sample_worlds(k: Knowledge, n: int, rng: np.random.Generator) -> list[World]:
    """``n`` determinizations of ``k``: own hand as known, opponents' hidden cards and the talon drawn."""
    cls = classes_of(k)
    sampler = Sampler(cls)
    worlds = []
    for row in range(n):
        hands: list[list[int]] = [sorted(k.own) if s == k.me else list(k.known_cards[s])
                                  for s in range(k.rules.players)]
        talon: list[int] = []
        for card, j in zip(cls.pool, sampler.assignment(rng)):
            (talon if cls.owner[j] < 0 else hands[cls.owner[j]]).append(card)
        if k.talon_order is not None:
            talon = list(k.talon_order)
        else:
            talon = [talon[i] for i in rng.permutation(len(talon))]
        worlds.append(World(tuple(tuple(sorted(h)) for h in hands), tuple(talon)))
    return worlds
