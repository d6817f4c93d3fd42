"""Exact search of a deal whose every card is known: alpha-beta over the kernel's own phase functions.

With the talon empty in a two-player deal the unseen cards are exactly the
opponent's hand, and the pile's order is public (G8: it is turned over, not
shuffled), so the rest of the deal is a game of perfect information.  A
determinization (a sampled world: the opponent's hand and the talon's order)
is one too.  :func:`solve_actions` gives every candidate action's value for
seat ``me`` under perfect play by every seat: +1 a win, -1 a loss, 0 a capped
deal or a line the search did not resolve within its node budget (the values
of the last complete pass of iterative deepening: a +1 or -1 is always proven).
:func:`solve_rows` does it for R decisions of a batch view (``expert``,
strategies/expert.py): a row with nothing hidden is one exact solve, a row
with hidden cards is searched in sampled worlds, each solved exactly (a
determinized solve: the searcher then plays as if it knew the hidden cards).

The search is alpha-beta on the values -1, 0, +1 with an explicit stack (numba
cannot cache a recursive function), iterative deepening in decisions, and a
transposition table keyed by a 64-bit hash of the position (hands, talon and
pile in order, the scalar fields that decide what follows, the turn count among
them: the turn cap, G10, ends a line).

The rules are not written again: a move is carried out with
:func:`analyzer.kernel.deal.act`, a turn started with
:func:`analyzer.kernel.turn.begin_turn` and a deal scored with
:func:`analyzer.kernel.turn.finish`, exactly as :func:`~analyzer.kernel.deal.run_deal`
plays; the positions of the search live in per-depth copies of ``st``/``m``/``ring``.
Forced moves (one legal action and no suit to name) are followed without a node,
as the engine follows them.  Values are exact only where nothing draws at random:
the turned-over pile shuffled (``reshuffle = shuffle``) or a forgotten last-card
call (``forget_rate`` > 0) make the callers fall back to rollouts.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import DRAW, TAKE
from analyzer.kernel import params as P
from analyzer.kernel.bitops import RANK_MASKS, ZERO, bit, lowest, popcount
from analyzer.kernel.deal import act
from analyzer.kernel.jit import helper, inner, outer
from analyzer.kernel.rng import stream_key
from analyzer.kernel.search import MAX_TABLE, WORLD_STREAM, count_table, draw_world, load_world
from analyzer.kernel.state import (
    ACTIVE,
    BEGIN,
    CUR,
    DRAWN,
    DRAWN_CARD,
    DREW,
    HANDS,
    HEAD,
    NI,
    PCOUNT,
    PDRAW,
    PEND7,
    PHASE,
    PLAY,
    PSKIP,
    RING,
    SEVEN,
    STUCK,
    TCOUNT,
    TOP,
    TURNS,
    load,
    store,
)
from analyzer.kernel.turn import begin_turn, finish, legal_mask

#: the most candidate actions at one decision: every card of a hand (a wild four times) and DRAW or TAKE
MAX_OPTIONS = 4 * 52 + 2
#: search depth (decisions in a line) past which a line counts as unresolved (0): a deal that cycles
MAX_DEPTH = 96


@inner
def options(st: np.ndarray, m: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    """The candidate actions at the decision of ``st`` into ``out`` (rows action, suit), as the searches list
    them (analyzer.knowledge.search.view_candidates): legal cards by id, a wild once per suit it can name,
    then DRAW or TAKE; returns how many."""
    cur, phase = st[CUR], st[PHASE]
    hand = m[HANDS + cur]
    wild = RANK_MASKS[p[P.WILD]]
    names = popcount(hand) > 1
    k = 0
    if phase == PLAY:
        legal = legal_mask(hand, st[TOP], st[ACTIVE], p)
        drawable = (st[TCOUNT] > 0 or st[PCOUNT] > 1) and (legal == ZERO or p[P.VOLUNTARY])  # G8, G6, G7
    elif phase == DRAWN:
        legal = bit(st[DRAWN_CARD])
        drawable = False
    elif phase == SEVEN:
        legal = hand & RANK_MASKS[7]
        drawable = False
    else:  # LEAD (PR2): the dealer names the suit of the Jack turned up
        legal = bit(st[TOP])
        names = True
        drawable = False
    while legal != ZERO:
        c = lowest(legal)
        legal &= legal - np.uint64(1)
        if names and (bit(c) & wild) != ZERO:
            for s in range(4):
                out[k, 0], out[k, 1] = c, s
                k += 1
        else:
            out[k, 0], out[k, 1] = c, -1
            k += 1
    if drawable:
        out[k, 0], out[k, 1] = DRAW, -1
        k += 1
    if phase == SEVEN:
        out[k, 0], out[k, 1] = TAKE, -1
        k += 1
    return k


@inner
def step(st: np.ndarray, m: np.ndarray, ring: np.ndarray, action: int, suit: int, p: np.ndarray,
         pts: np.ndarray, held: np.ndarray, me: int, buf: np.ndarray) -> int:
    """Carry out ``action`` at the decision of ``st`` and play on through every forced move to the next real
    decision (left in ``st``); returns 2 there, else the deal's value for ``me`` (+1, -1, 0 capped)."""
    s = load(st)
    s, end, went_out, last_card = act(s, m, ring, s[PHASE], action, suit, p)
    while end < 0:
        if s[PHASE] == BEGIN:
            s, end = begin_turn(s, m, ring, p)
            if end >= 0:
                break
            if s[PHASE] == BEGIN:
                continue
        store(st, s)
        k = options(st, m, p, buf)
        if k > 1:
            return 2
        s, end, went_out, last_card = act(s, m, ring, s[PHASE], buf[0, 0], buf[0, 1], p)
    s, win, lose, _ = finish(s, m, end, went_out, last_card, p, pts, held)
    store(st, s)
    if win == me:
        return 1
    if lose == me:
        return -1
    return 0


@inner
def position_key(st: np.ndarray, m: np.ndarray, ring: np.ndarray, me: int, n: int, d: int) -> np.uint64:
    """A 64-bit hash of everything that decides the rest of the deal: hands, talon and pile in order, the top,
    the active suit, the phase and whose it is, pending effects, the turn count (G10's cap), ``me``."""
    h = np.uint64(0x9E3779B97F4A7C15) * np.uint64(me + 1)
    for s in range(n):
        h = (h ^ m[HANDS + s]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    for f in (TOP, ACTIVE, CUR, PHASE, DRAWN_CARD, PDRAW, PSKIP, PEND7, TCOUNT, PCOUNT, STUCK, DREW, TURNS):
        h = (h ^ np.uint64(st[f] + 7)) * np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(29)
    k = st[HEAD]
    for _ in range(st[TCOUNT] + st[PCOUNT]):
        h = (h ^ np.uint64(ring[k] + 1)) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        k += 1
        if k >= d:
            k = 0
    return h


#: the transposition table's size (2**TT_BITS entries: a key, and the depth searched, lower bound, upper bound
#: and best option of its position); a decision searches tens of thousands of positions at most
TT_BITS = 16


#: a search frame's fields (one row of ``frames`` per depth)
F_K, F_J, F_FIRST, F_ALPHA, F_BETA, F_A0, F_B0, F_BEST, F_BEST_I, F_DEPTH, F_SLOT, F_MAX = range(12)


@inner
def probe(key: np.uint64, slot: int, depth: int, alpha: int, beta: int, tt_key: np.ndarray, tt_val: np.ndarray
          ) -> tuple[bool, int, int, int, int]:
    """The transposition table at ``slot`` for position ``key`` searched ``depth`` decisions ahead in the window
    (``alpha``, ``beta``): (settled, value, alpha, beta, first option to try)."""
    if tt_key[slot] != key:
        return False, 0, alpha, beta, 0
    e_depth, lo, hi, first = tt_val[slot, 0], tt_val[slot, 1], tt_val[slot, 2], tt_val[slot, 3]
    if lo == 1 or hi == -1:  # a proven win or loss holds whatever the depth
        return True, (lo if lo == 1 else hi), alpha, beta, first
    if e_depth >= depth:
        if lo == hi or lo >= beta:
            return True, lo, alpha, beta, first
        if hi <= alpha:
            return True, hi, alpha, beta, first
        alpha = max(alpha, lo)
        beta = min(beta, hi)
    return False, 0, alpha, beta, first


@helper
def search(d0: int, depth0: int, S: np.ndarray, M: np.ndarray, R: np.ndarray, opts: np.ndarray, frames: np.ndarray,
           keys: np.ndarray, p: np.ndarray, pts: np.ndarray, held: np.ndarray, me: int, nodes: np.ndarray,
           budget: int, tt_key: np.ndarray, tt_val: np.ndarray) -> int:
    """Alpha-beta value for ``me`` of the decision in ``S[d0]``/``M[d0]``/``R[d0]`` looking ``depth0`` decisions
    ahead (values -1, 0, +1; 0 also for a line not over within the depth: only +1 and -1 are proven).

    An explicit stack of frames (one per depth) instead of recursion.  ``nodes[0]`` counts the positions
    searched; past ``budget`` the search stops and ``nodes[1]`` is set (the values found are then not to be
    trusted).  The transposition table keeps each position's bounds with the depth they hold for (a proven
    +1 or -1 holds for every depth) and the best option found there, tried first next time."""
    n, deck = p[P.PLAYERS], p[P.DECK]
    d, depth, alpha, beta = d0, depth0, -1, 1
    v = 0
    entering = True
    while True:
        if entering:  # a new position at depth d: settled at once, or a frame pushed
            entering = False
            nodes[0] += 1
            if nodes[0] > budget:
                nodes[1] = 1
                return 0
            settled = depth <= 0 or d + 1 >= S.shape[0]
            v = 0
            if not settled:
                key = position_key(S[d], M[d], R[d], me, n, deck)
                slot = int(key & np.uint64((1 << TT_BITS) - 1))
                settled, v, alpha, beta, first = probe(key, slot, depth, alpha, beta, tt_key, tt_val)
                if not settled:
                    k = options(S[d], M[d], p, opts[d])
                    f = frames[d]
                    keys[d] = key
                    f[F_K], f[F_J], f[F_FIRST] = k, 0, first if first < k else 0
                    f[F_ALPHA], f[F_BETA], f[F_A0], f[F_B0] = alpha, beta, alpha, beta
                    f[F_MAX] = S[d, CUR] == me
                    f[F_BEST] = -2 if f[F_MAX] else 2
                    f[F_BEST_I], f[F_DEPTH], f[F_SLOT] = f[F_FIRST], depth, slot
            if settled:
                if d == d0:
                    return v
                d -= 1
                have = True
            else:
                have = False
        else:
            have = True  # v: the value of the child just finished at depth d + 1
        f = frames[d]
        if have:  # fold the child's value into frame d
            i = f[F_J] - 1
            i = f[F_FIRST] if i == 0 else (i - 1 if i <= f[F_FIRST] else i)
            if f[F_MAX]:
                if v > f[F_BEST]:
                    f[F_BEST], f[F_BEST_I] = v, i
                if v > f[F_ALPHA]:
                    f[F_ALPHA] = v
            else:
                if v < f[F_BEST]:
                    f[F_BEST], f[F_BEST_I] = v, i
                if v < f[F_BETA]:
                    f[F_BETA] = v
        if f[F_ALPHA] >= f[F_BETA] or f[F_J] >= f[F_K]:  # frame d is done: store it and return to its parent
            best = f[F_BEST]
            lo, hi = -1, 1
            if best <= f[F_A0]:
                hi = best
            elif best >= f[F_B0]:
                lo = best
            else:
                lo = hi = best
            slot = f[F_SLOT]
            tt_key[slot] = keys[d]
            tt_val[slot, 0], tt_val[slot, 1], tt_val[slot, 2], tt_val[slot, 3] = f[F_DEPTH], lo, hi, f[F_BEST_I]
            v = best
            if d == d0:
                return v
            d -= 1
            continue
        j = f[F_J]  # the next option: the table's best first, then the others in order
        i = f[F_FIRST] if j == 0 else (j - 1 if j <= f[F_FIRST] else j)
        f[F_J] = j + 1
        S[d + 1, :] = S[d]
        M[d + 1, :] = M[d]
        R[d + 1, :] = R[d]
        v = step(S[d + 1], M[d + 1], R[d + 1], opts[d, i, 0], opts[d, i, 1], p, pts, held, me, opts[d + 1])
        if v == 2:
            d, depth, alpha, beta = d + 1, f[F_DEPTH] - 1, f[F_ALPHA], f[F_BETA]
            entering = True
            continue
        # a move that ends the deal: v is folded into frame d on the next pass


def new_table() -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table (keys, entries) for :func:`solve_actions` and :func:`solve_rows`."""
    return np.zeros(1 << TT_BITS, np.uint64), np.zeros((1 << TT_BITS, 4), np.int64)


@helper
def solve_actions(st: np.ndarray, m: np.ndarray, ring: np.ndarray, actions: np.ndarray, suits: np.ndarray,
                  n_actions: int, p: np.ndarray, me: int, budget: int, values: np.ndarray,
                  tt_key: np.ndarray, tt_val: np.ndarray) -> tuple[bool, int]:
    """Every candidate action's value for ``me`` at the decision of ``st``/``m``/``ring`` (a position whose
    every card is known) into ``values``: +1 a proven win, -1 a proven loss under perfect play, 0 not proven
    (a capped deal, or unresolved within ``budget`` nodes).  Iterative deepening: each pass looks twice as far
    as the last; the values of the last complete pass are kept.  Returns (solved: every value proven, nodes)."""
    n = p[P.PLAYERS]
    S = np.zeros((MAX_DEPTH + 2, NI), np.int64)
    M = np.zeros((MAX_DEPTH + 2, HANDS + n), np.uint64)
    R = np.zeros((MAX_DEPTH + 2, RING), np.int64)
    opts = np.zeros((MAX_DEPTH + 2, MAX_OPTIONS, 2), np.int64)
    frames = np.zeros((MAX_DEPTH + 2, 12), np.int64)
    keys = np.zeros(MAX_DEPTH + 2, np.uint64)
    pts = np.zeros(n, np.int64)
    held = np.zeros(n, np.bool_)
    nodes = np.zeros(2, np.int64)
    vals = np.zeros(n_actions, np.int64)
    for a in range(n_actions):
        values[a] = 0
    depth = 4
    while True:
        done = True
        for a in range(n_actions):
            if values[a] != 0:
                vals[a] = values[a]
                continue
            S[1, :] = st
            M[1, :] = m
            R[1, :] = ring
            v = step(S[1], M[1], R[1], actions[a], suits[a], p, pts, held, me, opts[1])
            if v == 2:
                v = search(1, depth, S, M, R, opts, frames, keys, p, pts, held, me, nodes, budget, tt_key, tt_val)
            if nodes[1]:
                return False, nodes[0]
            vals[a] = v
            if v == 0:
                done = False
        for a in range(n_actions):
            values[a] = vals[a]
        if done or depth >= MAX_DEPTH:
            return done, nodes[0]
        depth = min(2 * depth, MAX_DEPTH)


@outer
def solve_rows(p: np.ndarray, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray, fits: np.ndarray,
               n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray, owner: np.ndarray, pool: np.ndarray,
               fixed: np.ndarray, talon_known: np.ndarray, n_known: np.ndarray, talon_size: np.ndarray,
               actions: np.ndarray, suits: np.ndarray, n_actions: np.ndarray, me: np.ndarray, keys: np.ndarray,
               worlds: int, min_worlds: int, budget: int, world_budget: int, tt_key: np.ndarray, tt_val: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A determinized exact search of R decisions (the arrays of :func:`analyzer.kernel.search.search_rows`):
    each row's worlds drawn as pimc draws them (the row's key, :func:`draw_world`), every candidate action
    solved exactly in each (:func:`solve_actions`, at most ``world_budget`` nodes a world), worlds searched
    until ``worlds`` or, after ``min_worlds``, until the row has searched ``budget`` nodes.  A row whose hidden
    cards are all in opponents' hands (no class of the talon: it is empty or of known order) is one world at
    two players, solved exactly within ``budget``; the caller asks for two-player rows only.

    Returns (sums (R, A) of the actions' values over the worlds, worlds used (R,), worlds fully solved (R,),
    nodes (R,))."""
    rows = st0.shape[0]
    n, d = p[P.PLAYERS], p[P.DECK]
    out = np.zeros((rows, actions.shape[1]), np.float64)
    used = np.zeros(rows, np.int64)
    solved = np.zeros(rows, np.int64)
    spent = np.zeros(rows, np.int64)
    st = np.zeros(NI, np.int64)
    m = np.zeros(HANDS + n, np.uint64)
    ring = np.zeros(RING, np.int64)
    hands = np.zeros(n, np.uint64)
    talon = np.zeros(RING, np.int64)
    state = np.zeros(1, np.uint64)
    values = np.zeros(actions.shape[1], np.int64)
    room = np.zeros(fits.shape[2], np.int64)
    for r in range(rows):
        c, k = n_pool[r], n_cls[r]
        row_fits = fits[r, :c, :k]
        row_size = size[r, :k]
        f, stride, tkeys, tstart = count_table(row_fits, row_size, MAX_TABLE)
        state[0] = stream_key(keys[r], 0, 0, WORLD_STREAM) & np.uint64(2**63 - 1)
        known = talon_known[r, :n_known[r]]
        one = True  # every hidden card is in a hand (the talon empty or of known order) of the one opponent
        for j in range(k):
            one = one and owner[r, j] >= 0
        limit = 1 if one else worlds
        tt_key[:] = 0
        for w in range(limit):
            if w >= min_worlds and spent[r] >= budget:
                break
            draw_world(f, stride, tkeys, tstart, row_fits, row_size, owner[r, :k], pool[r, :c], fixed[r], known,
                       talon_size[r], state, room, hands, talon)
            load_world(st, m, ring, st0[r], m0[r], ring0[r], hands, talon, talon_size[r], n, d)
            ok, nodes = solve_actions(st, m, ring, actions[r], suits[r], n_actions[r], p, me[r],
                                      budget if one else world_budget, values, tt_key, tt_val)
            used[r] += 1
            solved[r] += ok
            spent[r] += nodes
            for a in range(n_actions[r]):
                out[r, a] += values[a]
    return out, used, solved, spent
