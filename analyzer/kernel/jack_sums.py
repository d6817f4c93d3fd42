"""The sums of the Jack comparisons that isolate the wild, in one compiled pass over a chunk's games.

:func:`analyzer.stats.sums.summarize` stores, for every chunk, the per-position counts of hands left with
1..K cards holding a wild or not, and the same-game moments of two game vectors (see that module).  As
whole-array numpy they cost more than the kernel took to play the chunk; one loop over the games here
costs a few instructions a seat.  The moments are sums of integers (дурак shares times
``analyzer.stats.sums.SHARE_SCALE``), exact in int64 whatever the order, so chunks add up to the same bits.
"""

from __future__ import annotations

import numpy as np

from analyzer.kernel.jit import inner, outer


@outer
def jack_sums(share: np.ndarray, loss: np.ndarray, held: np.ndarray, left: np.ndarray, dealt: np.ndarray,
              decided: np.ndarray, k: int, cnt: np.ndarray, los: np.ndarray, mh: np.ndarray, md: np.ndarray,
              cluster: int) -> None:
    """Add the chunk's games to ``cnt``/``los`` (2, k, P: held, free) and the moments ``mh`` (1 + 3k square)
    and ``md`` (4 square, upper triangles), over clusters of ``cluster`` consecutive games (1: each game; a deck
    dealt with its hands rotated: its deals, which share the cards, so their vectors are summed first).

    Per game, v = (A, B_1..B_k, C_1..C_k, E_1..E_k): the holders' scaled дурак shares, the holders left with
    c cards, the same of the hands without a wild (the last stratum open-ended; a hand with no card is in
    none); w = (A, B, C, E) of the seats dealt one or more wilds against none (NOT_RECORDED, -1: neither).
    ``loss`` is the дурак share (summed in game order for ``los``), ``share`` the same times the scale."""
    n, p = loss.shape
    dim = 1 + 3 * k
    v = np.zeros(dim, np.int64)
    w = np.zeros(4, np.int64)
    nz = np.zeros(dim, np.int64)  # the entries of v a game set: at most 1 + 2 P of the 1 + 3 k
    for i in range(n):
        if decided[i]:
            _add_game(i, p, k, share, loss, held, left, dealt, cnt, los, v, w)
        if (i + 1) % cluster == 0 or i == n - 1:  # the cluster's vectors are complete
            _add_moments(dim, v, w, nz, mh, md)


@inner
def _add_game(i: int, p: int, k: int, share: np.ndarray, loss: np.ndarray, held: np.ndarray, left: np.ndarray,
              dealt: np.ndarray, cnt: np.ndarray, los: np.ndarray, v: np.ndarray, w: np.ndarray) -> None:
    """Game ``i`` into the per-position counts and into its cluster's vectors ``v`` and ``w``."""
    for s in range(p):
        sh = share[i, s]
        cards = left[i, s]
        if cards >= 1:
            c = min(cards, k) - 1
            if held[i, s]:
                cnt[0, c, s] += 1
                los[0, c, s] += loss[i, s]
                v[0] += sh
                v[1 + c] += 1
            else:
                cnt[1, c, s] += 1
                los[1, c, s] += loss[i, s]
                v[1 + k + c] += sh
                v[1 + 2 * k + c] += 1
        d = dealt[i, s]
        if d >= 1:
            w[0] += sh
            w[1] += 1
        elif d == 0:
            w[2] += sh
            w[3] += 1


@inner
def _add_moments(dim: int, v: np.ndarray, w: np.ndarray, nz: np.ndarray, mh: np.ndarray, md: np.ndarray) -> None:
    """A cluster's vectors' outer products into the moments (upper triangles), and the vectors cleared."""
    m = 0
    for a in range(dim):
        if v[a] != 0:
            nz[m] = a
            m += 1
    for x in range(m):  # v's outer product over its non-zero entries (the moments are sums of integers: exact)
        a = nz[x]
        for y in range(x, m):
            b = nz[y]
            mh[a, b] += v[a] * v[b]
        v[a] = 0
    for a in range(4):
        if w[a] != 0:
            for b in range(a, 4):
                md[a, b] += w[a] * w[b]
    w[:] = 0
