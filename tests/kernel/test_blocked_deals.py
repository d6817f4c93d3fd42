"""G10 in the kernel against the rules engine: deals that block.

Deals from full decks never block under the shipped rule sets (a turned-over pile refills the talon; none of the
equivalence tests' 4,800 deals blocks), so the blocked ending (a whole round of passes, fewest points wins, ties to
the earliest seat after the last player to act) is played here from small positions (tests/helpers_engine's
make_deal): the kernel, started from each position (analyzer.kernel.positions), ends as the engine does.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.outcomes import END_BLOCKED
from analyzer.core.registry import get_strategy
from analyzer.engine.deal import play_deal
from analyzer.kernel.positions import encode_deal, play_from_positions
from tests.helpers_engine import make_deal

#: (hands by seat, starter, talon): the one talon card is drawn and does not fit, then everyone passes
POSITIONS = [
    (["8C", "7S"], "9H", "10C"),
    (["8C 7D", "7S"], "9H", "10C"),
    (["7C", "7S", "7D"], "9H", "8C"),
    (["AC", "7S", "8D"], "9H", "10C"),
    (["7C", "KS", "8D"], "9H", "7S"),
    (["8C", "7S", "7D", "KC"], "9H", "10S"),
]


def test_blocked_deals_end_in_the_kernel_as_in_the_engine():
    """Each position played to its end by the kernel and the engine: the same ending, turns, winner, loser and
    points (by position: column q is seat q + 1); most of them block (G10)."""
    blocked = 0
    for hands, starter, talon in POSITIONS:
        deal = make_deal("czech", hands, starter=starter, talon=talon)
        n = deal.rules.players
        assert not deal.done
        e = play_deal(make_deal("czech", hands, starter=starter, talon=talon), [get_strategy("greedy")] * n,
                      np.random.default_rng(0))
        k = play_from_positions(deal.rules, [get_strategy("greedy")] * n, encode_deal(deal), seed=1)
        got = (int(k.end[0]), int(k.turns[0]), int(k.winner[0]), int(k.loser[0]), k.points[0].tolist())
        want = (e.end, e.turns, _position(e.winner, n), _position(e.loser, n), [e.points[(q + 1) % n] for q in range(n)])
        assert got == want, (hands, starter, talon)
        blocked += e.end == END_BLOCKED
    assert blocked >= 4


def _position(seat: int | None, n: int) -> int:
    """The kernel's position of an engine seat (-1 for nobody)."""
    return -1 if seat is None else (seat - 1) % n
