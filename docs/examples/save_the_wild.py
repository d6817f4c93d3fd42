"""A worked plugin strategy (docs/plugins.md): shed points, keep the wild for when nothing else goes.

Run it:  durak simulate --variant czech --players 3 --strategies docs/examples/save_the_wild.py:SaveTheWild,random
"""

from analyzer.core.cards import DRAW, TAKE, rank_of, suit_of


class SaveTheWild:
    """Plays the legal non-wild card worth the most points; a wild only when no other card goes
    (naming the suit it holds most of); otherwise takes a sevens chain or draws."""

    name = "save-the-wild"
    description = "sheds the most points first, keeps the wild for last"

    def __init__(self, keep_until: int = 1):
        self.keep_until = keep_until  # play a wild early once the hand is this small (SaveTheWild?keep_until=2)

    def choose(self, view, rng):
        points = view.rules.points  # indexed by rank value 2..14
        cards = view.legal_cards  # legal card ids, lowest id first
        plain = [c for c in cards if not view.is_wild(c)]
        wilds = [c for c in cards if view.is_wild(c)]
        if wilds and (not plain or len(view.hand) <= self.keep_until):
            wild = wilds[0]
            counts = view.suit_counts(exclude=wild)  # cards per suit (0..3 = S C H D) left after the wild
            return wild, max(range(4), key=lambda s: (counts[s], -s))
        if plain:
            best = max(plain, key=lambda c: (points[rank_of(c)], -suit_of(c)))
            return best, None  # a plain card keeps its own suit
        return (TAKE if view.can_take else DRAW), None
