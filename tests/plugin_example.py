"""A complete user strategy: load it with ``tests/plugin_example.py:HighestCard``."""

from analyzer.core.cards import DRAW, TAKE


class HighestCard:
    """Plays the highest legal card (by card id); a wild keeps its own suit."""

    name = "highest-card"
    description = "plays the highest legal card, never names a suit"

    def choose(self, view, rng):
        cards = [a for a in view.legal if a < DRAW]
        if cards:
            return max(cards), None
        return (TAKE if TAKE in view.legal else DRAW), None
