"""A chunk's дурак shares and Jack columns in compiled passes over its deals (no per-chunk table cost
comparable to the play).

:func:`analyzer.stats.sums.deal_losses` and the Jack columns of :func:`analyzer.stats.sums.summarize` were
whole-array numpy: a dozen passes over (N, P) arrays, about a sixth of what the kernel took to play a 50,000-deal
prague chunk.  Here each is one loop over the deals, adding in the order numpy did (row after row, a row's seats
in order), so every float is the same bit for bit (tests/stats/test_sums_reference.py holds them to a plain reference).
"""

from __future__ import annotations

import numpy as np

from analyzer.kernel.jit import outer


@outer
def loss_shares(points: np.ndarray, winner: np.ndarray, loser: np.ndarray, loser_by_wild: np.ndarray,
                wild_held: np.ndarray, end: np.ndarray, capped: int, deal_rule: bool, loss: np.ndarray,
                by_wild: np.ndarray) -> None:
    """Each decided deal's дурак shares into ``loss`` (N, P) and "the wild rule decided" into ``by_wild`` (N,), as
    analyzer.stats.sums.deal_losses defines them: the engine's loser shares the loss with every hand tied with it
    on points in its class (the wild holders where the rule acts, ``deal_rule`` and some hand holds a wild; else
    the hands other than the winner's); the rule decided where it acted and its losers (the holders with the
    most points) differ from the points' (the others with the most points)."""
    n, p = points.shape
    tied = np.zeros(p, np.bool_)
    for i in range(n):
        lo = loser[i]
        if end[i] == capped or lo < 0:
            continue
        acts = False
        for s in range(p):
            if wild_held[i, s]:
                acts = deal_rule
        lp = points[i, lo]
        count = 0.0
        for s in range(p):
            mine = wild_held[i, s] if acts else s != winner[i]
            tied[s] = (mine and points[i, s] == lp) or s == lo
            if tied[s]:
                count += 1.0
        share = 1.0 / max(count, 1.0)
        for s in range(p):
            loss[i, s] = share if tied[s] else 0.0
        decided_by_wild = loser_by_wild[i]
        if acts:
            top_held = top_other = -1  # points are never negative: -1 is "no such hand"
            for s in range(p):
                pts = int(points[i, s])
                if wild_held[i, s] and pts > top_held:
                    top_held = pts
                if s != winner[i] and pts > top_other:
                    top_other = pts
            for s in range(p):
                by_rule = wild_held[i, s] and points[i, s] == top_held
                by_points = s != winner[i] and points[i, s] == top_other
                if by_rule != by_points:
                    decided_by_wild = True
        by_wild[i] = decided_by_wild


@outer
def jack_columns(loss: np.ndarray, held: np.ndarray, dealt: np.ndarray, decided: np.ndarray, classes: int,
                 n_k: np.ndarray, loss_k: np.ndarray, held_n: np.ndarray, held_loss: np.ndarray, hl: np.ndarray,
                 cl: np.ndarray, hd: np.ndarray, nh: np.ndarray) -> None:
    """The Jack question's column sums of a chunk's decided deals, added in deal order: per class of wilds dealt
    (0, 1, ``classes - 1`` or more; -1 not recorded: none) and seat the count ``n_k`` and дурак shares ``loss_k``,
    per seat the wild holders at the end ``held_n`` and their shares ``held_loss``; and per deal and seat the
    holders' shares ``hl``, the others' ``cl`` and who held ``hd`` or not ``nh`` (the per-strategy products'
    inputs)."""
    n, p = loss.shape
    for i in range(n):
        if not decided[i]:
            continue
        for s in range(p):
            x = loss[i, s]
            d = dealt[i, s]
            if d >= 0:
                c = min(d, classes - 1)
                n_k[c, s] += 1.0
                loss_k[c, s] += x
            if held[i, s]:
                held_n[s] += 1.0
                held_loss[s] += x
                hl[i, s] = x
                hd[i, s] = True
            else:
                cl[i, s] = x
                nh[i, s] = True
