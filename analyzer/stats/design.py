"""The duplicate design of ``durak compare``: which strategy sits where, per rotation.

``D`` deck orders are drawn once (matches: ``D`` stacks of ``K`` deck orders,
deal k of match i uses ``decks[i, k]``).  Every deck is played once per
*rotation* of the strategy list through the positions: with ``k`` strategies
``S[0..k-1]`` and ``N`` players, rotation ``j`` (``j = 0..k-1``) seats
``S[(p + j) % k]`` at position ``p``.

* ``k < N``: the strategies repeat around the table (czech 4p with A, B, C:
  ``A B C A``, ``B C A B``, ``C A B C``);
* ``k > N``: each rotation seats only the first ``N`` of the rotated list
  (2 players with A, B, C: ``A B``, ``B C``, ``C A``) — a round robin;
* in every case each strategy sits in each position exactly once per deck
  (for a position ``p``, ``j -> (p + j) % k`` runs through all strategies), so
  every strategy is seen ``N`` times per deck, once per position: the luck of
  the deal and the advantage of the seat fall on all strategies alike.

The statistics of the resulting per-deck scores are in
:mod:`analyzer.stats.compare`; playing them is :mod:`analyzer.execution.runs.compare`.
"""

from __future__ import annotations

from collections.abc import Sequence


def lineups(k: int, players: int) -> list[list[int]]:
    """Strategy indices by position for each of the ``k`` rotations.

    Rotation ``j`` seats strategy ``(p + j) % k`` at position ``p`` for ``p < players``.

    >>> lineups(3, 4)
    [[0, 1, 2, 0], [1, 2, 0, 1], [2, 0, 1, 2]]
    >>> lineups(3, 2)
    [[0, 1], [1, 2], [2, 0]]
    """
    return [[(p + j) % k for p in range(players)] for j in range(k)]


def labels(specs: Sequence[str]) -> list[str]:
    """Unique display names: a spec given twice becomes ``name``, ``name#2``."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out
