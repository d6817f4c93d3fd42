"""Determinizations: hidden states drawn uniformly among those consistent with a player's knowledge.

The hidden cards (the *pool*) must be spread over *classes* — groups of
unknown places that accept the same cards: each opponent's slots with equal
masks, and the talon when its content is not known in order.  Every
assignment of pool cards to classes that respects the masks and the class
sizes is one consistent world (up to the order of cards within a hand, which
does not matter, and within the talon, which is uniform).  Under a uniformly
shuffled deck and no model of the opponents' choices, these worlds are equally
likely, so the sampler draws assignments uniformly: a dynamic programme counts
the completions of every partial assignment (cards taken in a fixed order,
state = the room left in each class), and each card goes to a class with
probability proportional to the completions that follow.  Exact, with no
rejection loop that could stall on a tightly constrained hand.
"""

from __future__ import annotations

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
    """Uniform sampler over card-to-class assignments (counts memoised per state)."""

    def __init__(self, classes: Classes) -> None:
        if sum(classes.size) != len(classes.pool):
            raise InconsistentKnowledge(f"{len(classes.pool)} hidden cards for {sum(classes.size)} hidden places")
        self.c = classes
        self.fits = [[k for k, m in enumerate(classes.allowed) if m >> card & 1] for card in classes.pool]
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self.total = self._count(0, classes.size)
        if self.total == 0:
            raise InconsistentKnowledge("no hidden state is consistent with what is known")

    def _count(self, i: int, room: tuple[int, ...]) -> int:
        """Completions when cards ``i..`` are still to place and ``room`` is left per class."""
        if i == len(self.c.pool):
            return 1
        key = (i, room)
        got = self._memo.get(key)
        if got is None:
            got = 0
            for k in self.fits[i]:
                if room[k]:
                    got += self._count(i + 1, room[:k] + (room[k] - 1,) + room[k + 1:])
            self._memo[key] = got
        return got

    def assignment(self, rng: np.random.Generator, u: np.ndarray | None = None) -> list[int]:
        """Class index of every pool card, drawn uniformly among consistent assignments.

        ``u`` (one uniform per pool card, drawn in bulk by the caller) picks each
        card's class as ``floor(u * total)``: uniform up to a relative error of
        2**-53 per step; counts too large for that fall back to exact integers.
        """
        room = self.c.size
        out = []
        for i in range(len(self.c.pool)):
            options, weights = [], []
            for k in self.fits[i]:
                if room[k]:
                    nxt = room[:k] + (room[k] - 1,) + room[k + 1:]
                    w = self._count(i + 1, nxt)
                    if w:
                        options.append((k, nxt))
                        weights.append(w)
            total = sum(weights)
            r = int(u[i] * total) if u is not None and total < 2**52 else uniform_below(total, rng)
            for (k, nxt), w in zip(options, weights):
                if r < w:
                    out.append(k)
                    room = nxt
                    break
                r -= w
        return out


def sample_worlds(k: Knowledge, n: int, rng: np.random.Generator) -> list[World]:
    """``n`` determinizations of ``k``: own hand as known, opponents' hidden cards and the talon drawn."""
    cls = classes_of(k)
    sampler = Sampler(cls)
    worlds = []
    uniforms = rng.random((n, len(cls.pool)))
    for row in range(n):
        hands: list[list[int]] = [sorted(k.own) if s == k.me else list(k.known_cards[s])
                                  for s in range(k.rules.players)]
        talon: list[int] = []
        for card, j in zip(cls.pool, sampler.assignment(rng, uniforms[row])):
            (talon if cls.owner[j] < 0 else hands[cls.owner[j]]).append(card)
        if k.talon_order is not None:
            talon = list(k.talon_order)
        else:
            talon = [talon[i] for i in rng.permutation(len(talon))]
        worlds.append(World(tuple(tuple(sorted(h)) for h in hands), tuple(talon)))
    return worlds
