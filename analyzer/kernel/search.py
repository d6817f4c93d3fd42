"""Compiled search: determinizations drawn and every (world × action) rolled out in one kernel call.

``pimc`` (strategies/pimc.py) asks one question per decision: for each
candidate action, the mean outcome over W sampled worlds.  Doing that in
Python costs an engine copy, an apply and an encode per (world, action) and a
Python dynamic programme per world; here it is one numba call:

* :func:`count_table` — the sampler's counting programme
  (:class:`analyzer.knowledge.sampler.Sampler`) as a table over the
  *room* left in each class (the number of cards still to place follows from
  the room, so the room alone is the state): ``f[room]`` = the completions
  that place the remaining pool cards, in float64 (exact up to 2**53, and a
  relative error of 2**-53 beyond: uniform to far below sampling noise);
  dense over every room vector, or past :data:`MAX_TABLE` entries over the
  reachable ones only (:func:`reach_table`, read by :func:`table_at`);
* :func:`draw_worlds` — W worlds drawn card by card with probability
  proportional to the completions (exactly the Python sampler's rule), each
  world's talon shuffled uniformly unless its order is known (G8);
* :func:`search_scores` — for each world and action: the public position with
  the world's hands and talon filled in, the action applied with the kernel's
  own :func:`analyzer.kernel.deal.resume` (as ``run_deal`` applies a choice),
  then the deal played to its end by the rollout policy
  (:func:`analyzer.kernel.deal.run_deal`).  Every action of a world uses the
  same play stream (common random numbers), so actions are compared paired;
* :func:`search_rows` — the fast path (``Pimc.choose_batch``): R decisions of
  R deals in one call, each row's knowledge read off its batch view's public
  history (:func:`analyzer.knowledge.search.view_search`), its worlds drawn one
  at a time on its own key as :func:`draw_worlds` draws them, so a row scores
  exactly what one :func:`search_scores` of the same decision with the same
  key scores.

The knowledge these kernels take as arrays is read in Python by
:mod:`analyzer.knowledge.search`; the ismcts kernels (:mod:`analyzer.kernel.ismcts`)
inline the sampler and world loading from here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analyzer.kernel import params as P
from analyzer.kernel.bitops import bit
from analyzer.kernel.deal import BY_SEAT, GOING, resume, run_deal, scratch
from analyzer.kernel.driver import lineup_code
from analyzer.kernel.jit import Specialised, body, helper, inner, outer
from analyzer.kernel.rng import next_float, stream_key
from analyzer.kernel.state import (
    HANDS,
    NI,
    PCOUNT,
    PHASE,
    RING,
    RNG,
    TCOUNT,
    TURNS,
)

#: Objectives of a search: avoid being the loser (points break ties), win the deal, fewest points,
#: and both ends at once (+1 for winning, -1 for being the loser, points break ties).
LOSER, WIN, POINTS, BOTH = 0, 1, 2, 3
OBJECTIVE_CODES = {"loser": LOSER, "win": WIN, "points": POINTS, "both": BOTH}

#: stream purposes of a decision's search: its worlds, and its rollouts (keyed by the decision's own key)
WORLD_STREAM, ROLLOUT_STREAM = 7, 8


#: Largest dense counting table (float64 entries); past it the table keeps only the reachable room vectors.
MAX_TABLE = 1 << 21


@outer
def count_table(fits: np.ndarray, size: np.ndarray, max_dense: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(f, stride, keys, start): the completions of every room vector, read by :func:`table_at`.

    ``fits`` (cards, classes) says which classes accept each pool card (cards
    placed in row order); ``size`` (classes,) the places of each class.  A room
    vector's key is its mixed-radix index (``stride``).  Dense (``keys`` empty)
    while the index space has at most ``max_dense`` entries: ``f[key]``.  Past
    that, only the room vectors reachable from the full one are kept, layer by
    layer (layer ``i``: cards ``i..`` still to place), ``keys[start[i]:start[i + 1]]``
    ascending with ``f`` beside them: the same values summed in the same order,
    so both forms draw the same worlds.  Many classes (three or more players
    with long void histories) make the index space huge while the reachable
    vectors stay few: every step removes one card from one fitting class.
    """
    n_cards, k = fits.shape
    stride = np.ones(k, np.int64)
    for j in range(1, k):
        stride[j] = stride[j - 1] * (size[j - 1] + 1)
    total = stride[k - 1] * (size[k - 1] + 1) if k else 1
    if total > max_dense:
        keys, start, f = reach_table(fits, size, stride)
        return f, stride, keys, start
    f = np.zeros(total, np.float64)
    room = np.zeros(k, np.int64)
    left = 0  # sum of room
    for idx in range(total):
        if idx:  # step the mixed-radix counter
            j = 0
            while room[j] == size[j]:
                left -= room[j]
                room[j] = 0
                j += 1
            room[j] += 1
            left += 1
        if left == 0:
            f[idx] = 1.0
            continue
        i = n_cards - left  # the card to place next
        if i < 0:
            continue
        acc = 0.0
        for j in range(k):
            if room[j] and fits[i, j]:
                acc += f[idx - stride[j]]
        f[idx] = acc
    return f, stride, np.zeros(0, np.int64), np.zeros(0, np.int64)


@helper
def reach_table(fits: np.ndarray, size: np.ndarray, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(keys, start, f) of :func:`count_table`'s sparse form: a forward pass lists each layer's reachable
    keys (sorted, unique), a backward pass sums each key's completions over its children in class order."""
    n_cards, k = fits.shape
    full = 0
    for j in range(k):
        full += size[j] * stride[j]
    start = np.zeros(n_cards + 2, np.int64)
    keys = np.zeros(max(64, 4 * (n_cards + 1)), np.int64)
    keys[0] = full
    start[1] = 1
    for i in range(n_cards):
        lo, hi = start[i], start[i + 1]
        buf = np.zeros(max((hi - lo) * k, 1), np.int64)
        nb = 0
        for s in range(lo, hi):
            key = keys[s]
            for j in range(k):
                if fits[i, j] and (key // stride[j]) % (size[j] + 1) > 0:
                    buf[nb] = key - stride[j]
                    nb += 1
        layer = np.unique(buf[:nb])
        need = hi + layer.shape[0]
        if need > keys.shape[0]:
            grown = np.zeros(max(need, 2 * keys.shape[0]), np.int64)
            grown[:hi] = keys[:hi]
            keys = grown
        keys[hi:need] = layer
        start[i + 2] = need
    keys = keys[:start[n_cards + 1]].copy()
    f = np.zeros(keys.shape[0], np.float64)
    for s in range(start[n_cards], start[n_cards + 1]):
        f[s] = 1.0  # nothing left to place (the key is 0)
    for i in range(n_cards - 1, -1, -1):
        for s in range(start[i], start[i + 1]):
            key = keys[s]
            acc = 0.0
            for j in range(k):
                if fits[i, j] and (key // stride[j]) % (size[j] + 1) > 0:
                    acc += table_at(f, keys, start, i + 1, key - stride[j])
            f[s] = acc
    return keys, start, f


@inner
def table_at(f: np.ndarray, keys: np.ndarray, start: np.ndarray, i: int, key: int) -> float:
    """Completions of room vector ``key`` with cards ``i..`` to place (0 where the sparse table never reached it)."""
    if keys.shape[0] == 0:
        return f[key]
    lo, hi = start[i], start[i + 1]
    while lo < hi:  # binary search in the layer's ascending keys
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < start[i + 1] and keys[lo] == key:
        return f[lo]
    return 0.0


@inner
def draw_world(f: np.ndarray, stride: np.ndarray, keys: np.ndarray, start: np.ndarray, fits: np.ndarray,
               size: np.ndarray, owner: np.ndarray, pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray,
               talon_size: int, state: np.ndarray, room: np.ndarray, hands: np.ndarray, talon: np.ndarray) -> None:
    """One determinization into ``hands`` (P,) and ``talon`` (top first), stepping the stream ``state[0]``.

    Each pool card goes to a class with probability proportional to the
    completions that follow (``f``); the talon's cards are then shuffled
    uniformly unless its order is known (G8).  ``room`` is scratch (classes,).
    """
    n_cards, k = fits.shape
    for s in range(fixed.shape[0]):
        hands[s] = fixed[s]
    idx = 0
    for j in range(k):
        room[j] = size[j]
        idx += size[j] * stride[j]
    t = 0
    for i in range(n_cards):
        r = next_float(state, 0) * table_at(f, keys, start, i, idx)
        pick = -1
        for j in range(k):
            if room[j] and fits[i, j]:
                c = table_at(f, keys, start, i + 1, idx - stride[j])
                if c > 0.0:
                    pick = j
                    if r < c:
                        break
                    r -= c
        room[pick] -= 1
        idx -= stride[pick]
        if owner[pick] < 0:
            talon[t] = pool[i]
            t += 1
        else:
            hands[owner[pick]] |= bit(pool[i])
    if talon_known.shape[0]:
        for i in range(talon_size):
            talon[i] = talon_known[i]
    else:
        for i in range(t - 1, 0, -1):  # Fisher-Yates: a uniform talon order
            j = int(next_float(state, 0) * (i + 1))
            talon[i], talon[j] = talon[j], talon[i]


@outer
def draw_worlds(f: np.ndarray, stride: np.ndarray, keys: np.ndarray, start: np.ndarray, fits: np.ndarray,
                size: np.ndarray, owner: np.ndarray, pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray,
                talon_size: int, worlds: int, key: int) -> tuple[np.ndarray, np.ndarray]:
    """``worlds`` determinizations: hands (W, P) as card masks by seat, talons (W, talon_size) top first.

    ``fixed`` (P,) holds the cards every world gives each seat (own hand, known
    cards); ``talon_known`` the talon top first when its order is known (G8),
    else an empty array (the talon's cards are then the talon class's,
    shuffled uniformly).  World ``w`` follows world ``w - 1`` on one stream
    (:func:`draw_world`), so drawing them one at a time gives the same worlds.
    """
    n = fixed.shape[0]
    hands = np.zeros((worlds, n), np.uint64)
    talons = np.zeros((worlds, max(talon_size, 1)), np.int64)
    state = np.zeros(1, np.uint64)
    state[0] = np.uint64(key)
    room = np.zeros(fits.shape[1], np.int64)
    for w in range(worlds):
        draw_world(f, stride, keys, start, fits, size, owner, pool, fixed, talon_known, talon_size, state, room,
                   hands[w], talons[w])
    return hands, talons


@inner
def match_shares(totals: np.ndarray, pts: np.ndarray, held: np.ndarray, p: np.ndarray, me: int
                 ) -> tuple[bool, float, float]:
    """(ended, win share, loss share) of seat ``me`` when a match's deal ends with ``pts`` added to ``totals``.

    The match ends once a total reaches the target (G11); then CZ7/PR7 (a wild
    held at the end loses first, most points among the holders, unless
    ``wild_rule = off``) or SV7 (the total at the target loses) picks the loser
    and the fewest points among the others win, ties sharing, as
    :func:`analyzer.engine.match.match_outcome` decides.
    """
    n = p[P.PLAYERS]
    target = p[P.TARGET]
    top = -1
    for s in range(n):
        top = max(top, totals[s] + pts[s])
    if target < 0 or top < target:
        return False, 0.0, 0.0
    lose_mask = 0
    if p[P.IS_SVINYA]:
        for s in range(n):
            if totals[s] + pts[s] >= target:
                lose_mask |= 1 << s
    else:
        lose_mask = (1 << n) - 1
        if p[P.WILD_RULE] != P.WILD_RULE_OFF:
            any_held = 0
            for s in range(n):
                if held[s]:
                    any_held |= 1 << s
            if any_held:
                lose_mask = any_held
    worst, count = -1, 0  # most points inside lose_mask: the loss, shared by ties
    for s in range(n):
        if (lose_mask >> s) & 1:
            t = totals[s] + pts[s]
            if t > worst:
                worst, count = t, 1
            elif t == worst:
                count += 1
    losers = 0
    for s in range(n):
        if (lose_mask >> s) & 1 and totals[s] + pts[s] == worst:
            losers |= 1 << s
    loss = 1.0 / count if (losers >> me) & 1 else 0.0
    others = ((1 << n) - 1) & ~losers
    if others == 0:
        others = (1 << n) - 1
    best, wins = -1, 0
    for s in range(n):
        if (others >> s) & 1:
            t = totals[s] + pts[s]
            if best < 0 or t < best:
                best, wins = t, 1
            elif t == best:
                wins += 1
    win = 1.0 / wins if (others >> me) & 1 and totals[me] + pts[me] == best else 0.0
    return True, win, loss


@inner
def load_world(st: np.ndarray, m: np.ndarray, ring: np.ndarray, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray,
               hands: np.ndarray, talon: np.ndarray, talon_size: int, n: int, d: int) -> None:
    """The decision's position (``st0``/``m0``, its pile in ``ring0``) with a sampled world's ``hands`` and
    ``talon`` put in: the start of every rollout of pimc and ismcts (the caller keys ``m[RNG]``)."""
    for i in range(NI):
        st[i] = st0[i]
    for i in range(HANDS):
        m[i] = m0[i]
    for s in range(n):
        m[HANDS + s] = hands[s]
    for i in range(talon_size):
        ring[i] = talon[i]
    for i in range(st0[PCOUNT]):
        ring[(talon_size + i) % d] = ring0[i]
    st[TCOUNT] = talon_size


@inner
def score_world(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray,
                ring0: np.ndarray, hands: np.ndarray, talon: np.ndarray, talon_size: int, actions: np.ndarray,
                suits: np.ndarray, n_actions: int, me: int, objective: int, play_key: np.uint64,
                totals: np.ndarray, in_match: bool, st: np.ndarray, m: np.ndarray, ring: np.ndarray,
                pts: np.ndarray, held: np.ndarray, alive: np.ndarray, out: np.ndarray, uniform: int = BY_SEAT) -> int:
    """Every action still ``alive`` rolled out in one world (``hands`` (P,), ``talon``) on the play stream
    ``play_key`` (common random numbers); each one's outcome written to ``out``; returns the rollout turns played.

    ``st``/``m``/``ring``/``pts``/``held`` are scratch.  ``in_match``: a rollout
    whose deal ends the match (G11) is scored by the match's outcome.  ``uniform``: the rollout policy's kind
    in every seat, folded into a kernel compiled for it (:data:`ROWS`), or BY_SEAT (``kinds``).
    """
    n = p[P.PLAYERS]
    d = p[P.DECK]
    turns = 0
    for a in range(n_actions):
        if not alive[a]:
            continue
        load_world(st, m, ring, st0, m0, ring0, hands, talon, talon_size, n, d)
        m[RNG] = play_key
        action, suit = actions[a], suits[a]
        win, lose, _ = resume(st, m, ring, st[PHASE], action, suit, p, pts, held)  # PR2's suit of a Jack lead too
        if win == GOING:
            win, lose, _ = run_deal(st, m, ring, kinds, weights, p, pts, held, uniform=uniform)
        turns += st[TURNS] - st0[TURNS] + 1
        if in_match:
            ended, mwin, mloss = match_shares(totals, pts, held, p, me)
            if ended:
                if objective == WIN:
                    out[a] = mwin
                elif objective == POINTS:
                    out[a] = -pts[me]
                elif objective == BOTH:
                    out[a] = mwin - mloss - pts[me] / 10_000.0
                else:
                    out[a] = -(mloss + pts[me] / 10_000.0)
                continue
        if objective == WIN:
            out[a] = 1.0 if win == me else 0.0
        elif objective == POINTS:
            out[a] = -pts[me]
        elif objective == BOTH:
            out[a] = (1.0 if win == me else 0.0) - (1.0 if lose == me else 0.0) - pts[me] / 10_000.0
        else:
            out[a] = -((1.0 if lose == me else 0.0) + pts[me] / 10_000.0)
    return turns


@inner
def tally(world: np.ndarray, alive: np.ndarray, n_actions: int, out: np.ndarray, pair_sq: np.ndarray) -> int:
    """Add one world's outcomes (``world``, by action) of the actions still alive to the sums ``out`` and to the
    sums of squared paired differences ``pair_sq`` (A, A; upper triangle) that :func:`prune` reads; returns
    how many there were (the world's rollouts)."""
    rolled = 0
    for a in range(n_actions):
        if not alive[a]:
            continue
        rolled += 1
        out[a] += world[a]
        for c in range(a + 1, n_actions):
            if alive[c]:
                diff = world[a] - world[c]
                pair_sq[a, c] += diff * diff
    return rolled


@inner
def prune(out: np.ndarray, pair_sq: np.ndarray, alive: np.ndarray, n_actions: int, worlds: int,
          tolerance: float, z: float) -> int:
    """The adaptive search: after ``worlds`` worlds, drop every action that cannot beat the leader (the best
    sum of the live actions, the first in legal order on a tie: the action played) by ``tolerance`` of the
    objective or more -- the upper bound mean + ``z`` standard errors of its paired difference to
    the leader (common random numbers: a world's actions share its deal and its play stream) is below it.
    Returns the actions left; the search ends at one.

    Every live action has been rolled out in every world so far (an action, once dropped, stays dropped), so
    the differences are paired over the same worlds.  A clearly worse action stops costing rollouts at once;
    actions that score alike in every world (two equivalent low cards) drop after the first ``min_worlds``;
    only close calls search on to the budget.
    """
    lead = -1
    for a in range(n_actions):
        if alive[a] and (lead < 0 or out[a] > out[lead]):
            lead = a
    left = 0
    for a in range(n_actions):
        if not alive[a]:
            continue
        if a != lead:
            mean = (out[a] - out[lead]) / worlds
            sq = pair_sq[a, lead] if a < lead else pair_sq[lead, a]
            var = max(sq / worlds - mean * mean, 0.0) * worlds / (worlds - 1)
            if mean + z * np.sqrt(var / worlds) < tolerance:
                alive[a] = False
                continue
        left += 1
    return left


@inner
def searched_enough(w: int, min_worlds: int, budget: int, turns: int, tolerance: float, z: float, out: np.ndarray,
                    pair_sq: np.ndarray, alive: np.ndarray, n_actions: int) -> bool:
    """Whether a decision's search stops before world ``w``: from ``min_worlds`` on, once the rollouts have
    played ``budget`` turns (``budget`` > 0), or once the adaptive search (``tolerance`` > 0, :func:`prune`)
    has one action left.  The one stop of both world loops, so a batch row stops where one search stops."""
    return w >= min_worlds and ((budget > 0 and turns >= budget) or
                                (tolerance > 0 and prune(out, pair_sq, alive, n_actions, w, tolerance, z) == 1))


@inner
def dropped_out(out: np.ndarray, alive: np.ndarray, n_actions: int) -> None:
    """A dropped action scores -inf: its sum covers fewer worlds than the live ones' and it is never played."""
    for a in range(n_actions):
        if not alive[a]:
            out[a] = -np.inf


@outer
def search_scores(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray,
                  ring0: np.ndarray, hands: np.ndarray, talons: np.ndarray, talon_size: int,
                  actions: np.ndarray, suits: np.ndarray, me: int, objective: int, key: int,
                  budget: int = 0, min_worlds: int = 1, totals: np.ndarray | None = None,
                  tolerance: float = 0.0, z: float = 2.0) -> tuple[np.ndarray, int, int, int]:
    """(scores, worlds, turns, rollouts): every action's outcome summed over the worlds searched (higher is
    better for seat ``me``), how many worlds that was, the rollout turns they took and the rollouts.

    ``totals`` (by seat) are the match's points before this deal: where a
    rollout's deal ends the match (G11), the match's outcome is scored
    (:func:`match_shares`: CZ7's wild rule acts there) instead of the deal's.

    ``st0``/``m0``/``ring0`` is the public position (analyzer.kernel.positions
    layout, one row, empty talon and opponents' hands); ``kinds``/``weights``
    the rollout policy by seat.  World ``w``'s rollouts draw from the play
    stream keyed (``key``, ``w``) for every action: common random numbers.
    ``budget`` > 0 stops after the first world (at least ``min_worlds``) at
    which the rollouts have played that many turns in all: long deals get fewer
    worlds, short ones more (deterministic: turns do not depend on timing).
    ``tolerance`` > 0 makes the search adaptive (:func:`prune`, ``z`` its
    standard errors): from ``min_worlds`` on, an action that cannot beat the
    leader by ``tolerance`` is dropped, and the search ends when one is left
    (deterministic too: it reads the outcomes alone).  A dropped action scores -inf.
    """
    n = p[P.PLAYERS]
    n_worlds = hands.shape[0]
    n_actions = actions.shape[0]
    st, m, ring, _deck, pts, held, _dealt = scratch(n)
    out = np.zeros(n_actions, np.float64)
    world = np.zeros(n_actions, np.float64)
    pair_sq = np.zeros((n_actions, n_actions), np.float64)
    alive = np.ones(n_actions, np.bool_)
    tot = np.zeros(n, np.int64)
    in_match = totals is not None
    if totals is not None:
        tot[:] = totals
    turns = 0
    used = 0
    rolled = 0
    for w in range(n_worlds):
        if searched_enough(w, min_worlds, budget, turns, tolerance, z, out, pair_sq, alive, n_actions):
            break
        used += 1
        turns += score_world(p, kinds, weights, st0, m0, ring0, hands[w], talons[w], talon_size, actions, suits,
                             n_actions, me, objective, stream_key(key, w, 0, ROLLOUT_STREAM), tot, in_match,
                             st, m, ring, pts, held, alive, world)
        rolled += tally(world, alive, n_actions, out, pair_sq)
    dropped_out(out, alive, n_actions)
    return out, used, turns, rolled


@body
def rows_body(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray,
              ring0: np.ndarray, fits: np.ndarray, n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray,
              owner: np.ndarray, pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray,
              n_known: np.ndarray, talon_size: np.ndarray, actions: np.ndarray, suits: np.ndarray,
              n_actions: np.ndarray, me: np.ndarray, objective: int, keys: np.ndarray, worlds: int,
              budget: int, min_worlds: int, totals: np.ndarray, in_match: bool,
              tolerance: float, z: float, uniform: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`search_scores` for R decisions of R deals in one call, each row's worlds drawn as
    :func:`world_arrays` draws them (:func:`count_table`, then :func:`draw_world` one world at a time,
    on the stream of the row's ``keys``), so row ``r`` scores exactly what one search of it scores.

    Arrays are padded by row: ``fits`` (R, C, K) of the row's ``n_pool[r]`` pool cards and ``n_cls[r]``
    classes, ``size``/``owner`` (R, K), ``pool`` (R, C), ``fixed`` (R, P), ``talon_known`` (R, T) of
    ``n_known[r]`` cards (0: the order is not known), ``actions``/``suits`` (R, A) of ``n_actions[r]``,
    ``totals`` (R, P) by seat when ``in_match``.  Returns (scores (R, A), worlds used (R,), rollout turns (R,), rollouts (R,)).
    """
    n = p[P.PLAYERS]
    rows = st0.shape[0]
    out = np.zeros((rows, actions.shape[1]), np.float64)
    used = np.zeros(rows, np.int64)
    turns = np.zeros(rows, np.int64)
    rolled = np.zeros(rows, np.int64)
    st, m, ring, _deck, pts, held, _dealt = scratch(n)
    hands = np.zeros(n, np.uint64)
    talon = np.zeros(RING, np.int64)
    state = np.zeros(1, np.uint64)
    room = np.zeros(fits.shape[2], np.int64)
    world = np.zeros(actions.shape[1], np.float64)
    pair_sq = np.zeros((actions.shape[1], actions.shape[1]), np.float64)
    alive = np.zeros(actions.shape[1], np.bool_)
    for r in range(rows):
        pair_sq[:, :] = 0.0
        alive[:] = True
        c, k = n_pool[r], n_cls[r]
        row_fits = fits[r, :c, :k]
        row_size = size[r, :k]
        f, stride, tkeys, tstart = count_table(row_fits, row_size, MAX_TABLE)
        state[0] = stream_key(keys[r], 0, 0, WORLD_STREAM) & np.uint64(2**63 - 1)
        known = talon_known[r, :n_known[r]]
        for w in range(worlds):
            if searched_enough(w, min_worlds, budget, turns[r], tolerance, z, out[r], pair_sq, alive, n_actions[r]):
                break
            used[r] += 1
            draw_world(f, stride, tkeys, tstart, row_fits, row_size, owner[r, :k], pool[r, :c], fixed[r], known,
                       talon_size[r], state, room, hands, talon)
            turns[r] += score_world(p, kinds, weights, st0[r], m0[r], ring0[r], hands, talon, talon_size[r],
                                    actions[r], suits[r], n_actions[r], me[r], objective,
                                    stream_key(keys[r], w, 0, ROLLOUT_STREAM), totals[r], in_match, st, m, ring,
                                    pts, held, alive, world, uniform)
            rolled[r] += tally(world, alive, n_actions[r], out[r], pair_sq)
        dropped_out(out[r], alive, n_actions[r])
    return out, used, turns, rolled


@outer
def search_rows(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray,
                ring0: np.ndarray, fits: np.ndarray, n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray,
                owner: np.ndarray, pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray,
                n_known: np.ndarray, talon_size: np.ndarray, actions: np.ndarray, suits: np.ndarray,
                n_actions: np.ndarray, me: np.ndarray, objective: int, keys: np.ndarray, worlds: int,
                budget: int, min_worlds: int, totals: np.ndarray, in_match: bool,
                tolerance: float, z: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`rows_body` for any rules ``p`` and rollout line-up ``kinds``."""
    return rows_body(p, kinds, weights, st0, m0, ring0, fits, n_pool, n_cls, size, owner, pool, fixed, talon_known,
                     n_known, talon_size, actions, suits, n_actions, me, objective, keys, worlds, budget, min_worlds,
                     totals, in_match, tolerance, z, BY_SEAT)


def _rows_for(rules: np.ndarray, uniform: int = BY_SEAT) -> Any:
    """:func:`rows_body` compiled for the rules ``rules`` and the rollout line-up code ``uniform`` (constants):
    the arguments of :func:`search_rows` but ``p``."""

    def search_rows_for(kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray,
                        fits: np.ndarray, n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray, owner: np.ndarray,
                        pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray, n_known: np.ndarray,
                        talon_size: np.ndarray, actions: np.ndarray, suits: np.ndarray, n_actions: np.ndarray,
                        me: np.ndarray, objective: int, keys: np.ndarray, worlds: int, budget: int, min_worlds: int,
                        totals: np.ndarray, in_match: bool, tolerance: float, z: float
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return rows_body(rules, kinds, weights, st0, m0, ring0, fits, n_pool, n_cls, size, owner, pool, fixed,
                         talon_known, n_known, talon_size, actions, suits, n_actions, me, objective, keys, worlds,
                         budget, min_worlds, totals, in_match, tolerance, z, uniform)

    return outer(search_rows_for)


#: search_rows compiled per rule set and rollout line-up (analyzer.kernel.jit.Specialised): the rules' option
#: tests and tables folded in, and the rollout policy's kind where every seat plays one.  Measured on the rows of
#: a czech 2p, czech 4p and svinya 2p run (pimc against weighted, CPU beside a two-job run): 1.12-1.44x the generic
#: kernel's speed, the same scores bit for bit.  A process switches once it has searched :data:`SPECIALISE_ROWS`
#: decisions of a rule set, or at once where numba's cache holds the kernel (:func:`rows_kernel`).
SPECIALISE_ROWS = 5_000
ROWS = Specialised(_rows_for, threshold=SPECIALISE_ROWS)


def rows_kernel(p: np.ndarray, kinds: np.ndarray, rows: int, specialise: bool | None = None) -> Any:
    """The kernel to call with :func:`search_rows`' arguments for ``rows`` decisions: the one compiled for the rules
    (and the rollout kind, :func:`analyzer.kernel.driver.lineup_code`) once this process has asked for enough
    decisions of them or the cache holds it (a compile costs ~10-15 s, once a machine), else the generic one.
    ``specialise``: True always, False never (the results are the same)."""
    return folded(ROWS, search_rows, p, rows, specialise, lineup_code(kinds))


def folded(kernels: Specialised, generic: Any, p: np.ndarray, rows: int, specialise: bool | None,
           lineup: int | None = None) -> Any:
    """A search kernel for ``rows`` decisions (pimc's :data:`ROWS`, ismcts' own): the one ``kernels`` compiled
    for the rules ``p`` (and ``lineup``) once enough decisions were asked or at once when numba's cache holds
    it, else ``generic`` with ``p`` given first; either takes ``generic``'s arguments but ``p``."""
    if specialise is None and kernels.in_cache(p, lineup):
        specialise = True
    return kernels.runner(generic, p, rows, specialise, lineup)
