"""Compiled search: determinizations drawn and every (world × action) rolled out in one kernel call.

``pimc`` (strategies/pimc.py) asks one question per decision: for each
candidate action, the mean outcome over W sampled worlds.  Doing that in
Python costs an engine copy, an apply and an encode per (world, action) and a
Python dynamic programme per world; here it is one numba call:

* :func:`count_table` — the sampler's counting programme
  (:class:`analyzer.knowledge.sampler.Sampler`) as a dense table over the
  *room* left in each class (the number of cards still to place follows from
  the room, so the room alone is the state): ``f[room]`` = the completions
  that place the remaining pool cards, in float64 (exact up to 2**53, and a
  relative error of 2**-53 beyond: uniform to far below sampling noise);
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
  history (:func:`view_search`), its worlds drawn one at a time on its own key
  as :func:`draw_worlds` draws them, so a row scores exactly what one
  :func:`search_scores` of the same decision with the same key scores.

The dense table has ``prod(size_k + 1)`` entries; a knowledge with too many
distinct classes for that (rare: four or more players with long void
histories) is sampled by the Python sampler instead (:func:`world_arrays`;
on the fast path such a row is searched apart, :func:`search_view`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import BIT, RANK_MASK, cards_tuple, popcount
from analyzer.core.cards import DRAW, TAKE
from analyzer.core.contract import BatchView
from analyzer.kernel import params as P
from analyzer.kernel.bitops import bit
from analyzer.kernel.deal import BY_SEAT, GOING, resume, run_deal, scratch
from analyzer.kernel.driver import lineup_code
from analyzer.kernel.jit import Specialised, body, inner, outer
from analyzer.kernel.rng import next_float, stream_key
from analyzer.kernel.state import (
    ACTIVE,
    CUR,
    DRAWN_CARD,
    HANDS,
    LAST_ACTOR,
    LAST_CARD,
    LEAD,
    NI,
    PCOUNT,
    PDRAW,
    PEND7,
    PHASE,
    PLAY,
    PLAYED,
    PSKIP,
    RING,
    RNG,
    SEVEN,
    TCOUNT,
    TOP,
    TURNOVERS,
    TURNS,
    WENT_OUT,
)
from analyzer.knowledge.observer import Knowledge, mask
from analyzer.knowledge.sampler import Classes, InconsistentKnowledge, Sampler, classes_of

#: Largest dense counting table (entries of float64) before the Python sampler takes over.
MAX_TABLE = 1 << 21

#: Objectives of a search: avoid being the loser (points break ties), win the deal, fewest points,
#: and both ends at once (+1 for winning, -1 for being the loser, points break ties).
LOSER, WIN, POINTS, BOTH = 0, 1, 2, 3
OBJECTIVE_CODES = {"loser": LOSER, "win": WIN, "points": POINTS, "both": BOTH}

#: stream purposes of a decision's search: its worlds, and its rollouts (keyed by the decision's own key)
WORLD_STREAM, ROLLOUT_STREAM = 7, 8


@outer
def count_table(fits: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(f, stride): ``f[idx]`` completions for the room vector with mixed-radix index ``idx``.

    ``fits`` (cards, classes) says which classes accept each pool card (cards
    placed in row order); ``size`` (classes,) the places of each class.
    """
    n_cards, k = fits.shape
    stride = np.ones(k, np.int64)
    for j in range(1, k):
        stride[j] = stride[j - 1] * (size[j - 1] + 1)
    total = stride[k - 1] * (size[k - 1] + 1) if k else 1
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
    return f, stride


@inner
def draw_world(f: np.ndarray, stride: np.ndarray, fits: np.ndarray, size: np.ndarray, owner: np.ndarray,
               pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray, talon_size: int, state: np.ndarray,
               room: np.ndarray, hands: np.ndarray, talon: np.ndarray) -> None:
    """One determinization into ``hands`` (P,) and ``talon`` (top first), stepping the stream ``state[0]``.

    Each pool card goes to a class with probability proportional to the
    completions that follow (``f``); the talon's cards are then shuffled
    uniformly unless its order is known (G8).  ``room`` is scratch (classes,).
    """
    n_cards, k = fits.shape
    for s in range(fixed.shape[0]):
        hands[s] = fixed[s]
    for j in range(k):
        room[j] = size[j]
    idx = f.shape[0] - 1
    t = 0
    for i in range(n_cards):
        r = next_float(state, 0) * f[idx]
        pick = -1
        for j in range(k):
            if room[j] and fits[i, j]:
                c = f[idx - stride[j]]
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
def draw_worlds(f: np.ndarray, stride: np.ndarray, fits: np.ndarray, size: np.ndarray, owner: np.ndarray,
                pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray, talon_size: int, worlds: int,
                key: int) -> tuple[np.ndarray, np.ndarray]:
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
        draw_world(f, stride, fits, size, owner, pool, fixed, talon_known, talon_size, state, room, hands[w],
                   talons[w])
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
              budget: int, min_worlds: int, totals: np.ndarray, in_match: bool, skip: np.ndarray,
              tolerance: float, z: float, uniform: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`search_scores` for R decisions of R deals in one call, each row's worlds drawn as
    :func:`world_arrays` draws them (:func:`count_table`, then :func:`draw_world` one world at a time,
    on the stream of the row's ``keys``), so row ``r`` scores exactly what one search of it scores.

    Arrays are padded by row: ``fits`` (R, C, K) of the row's ``n_pool[r]`` pool cards and ``n_cls[r]``
    classes, ``size``/``owner`` (R, K), ``pool`` (R, C), ``fixed`` (R, P), ``talon_known`` (R, T) of
    ``n_known[r]`` cards (0: the order is not known), ``actions``/``suits`` (R, A) of ``n_actions[r]``,
    ``totals`` (R, P) by seat when ``in_match``.  Rows with ``skip`` set are left at zero (the caller
    searches them apart).  Returns (scores (R, A), worlds used (R,), rollout turns (R,), rollouts (R,)).
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
        if skip[r]:
            continue
        pair_sq[:, :] = 0.0
        alive[:] = True
        c, k = n_pool[r], n_cls[r]
        row_fits = fits[r, :c, :k]
        row_size = size[r, :k]
        f, stride = count_table(row_fits, row_size)
        state[0] = stream_key(keys[r], 0, 0, WORLD_STREAM) & np.uint64(2**63 - 1)
        known = talon_known[r, :n_known[r]]
        for w in range(worlds):
            if searched_enough(w, min_worlds, budget, turns[r], tolerance, z, out[r], pair_sq, alive, n_actions[r]):
                break
            used[r] += 1
            draw_world(f, stride, row_fits, row_size, owner[r, :k], pool[r, :c], fixed[r], known, talon_size[r],
                       state, room, hands, talon)
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
                budget: int, min_worlds: int, totals: np.ndarray, in_match: bool, skip: np.ndarray,
                tolerance: float, z: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`rows_body` for any rules ``p`` and rollout line-up ``kinds``."""
    return rows_body(p, kinds, weights, st0, m0, ring0, fits, n_pool, n_cls, size, owner, pool, fixed, talon_known,
                     n_known, talon_size, actions, suits, n_actions, me, objective, keys, worlds, budget, min_worlds,
                     totals, in_match, skip, tolerance, z, BY_SEAT)


def _rows_for(rules: np.ndarray, uniform: int = BY_SEAT) -> Any:
    """:func:`rows_body` compiled for the rules ``rules`` and the rollout line-up code ``uniform`` (constants):
    the arguments of :func:`search_rows` but ``p``."""

    def search_rows_for(kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray,
                        fits: np.ndarray, n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray, owner: np.ndarray,
                        pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray, n_known: np.ndarray,
                        talon_size: np.ndarray, actions: np.ndarray, suits: np.ndarray, n_actions: np.ndarray,
                        me: np.ndarray, objective: int, keys: np.ndarray, worlds: int, budget: int, min_worlds: int,
                        totals: np.ndarray, in_match: bool, skip: np.ndarray, tolerance: float, z: float
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return rows_body(rules, kinds, weights, st0, m0, ring0, fits, n_pool, n_cls, size, owner, pool, fixed,
                         talon_known, n_known, talon_size, actions, suits, n_actions, me, objective, keys, worlds,
                         budget, min_worlds, totals, in_match, skip, tolerance, z, uniform)

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


def knowledge_arrays(k: Knowledge) -> tuple[Classes, NDArray[np.bool_], NDArray[np.uint64], NDArray[np.int64]]:
    """The knowledge as the kernels take it: classes, fits (cards, classes), fixed hands, known talon."""
    cls = classes_of(k)
    if sum(cls.size) != len(cls.pool):
        raise InconsistentKnowledge(f"{len(cls.pool)} hidden cards for {sum(cls.size)} hidden places")
    fits = np.array([[m >> c & 1 for m in cls.allowed] for c in cls.pool], np.bool_).reshape(len(cls.pool),
                                                                                              len(cls.allowed))
    n = k.rules.players
    fixed = np.array([mask(sorted(k.own)) if s == k.me else mask(k.known_cards[s]) for s in range(n)], np.uint64)
    known = np.array(k.talon_order if k.talon_order is not None else [], np.int64)
    return cls, fits, fixed, known


def world_arrays(k: Knowledge, worlds: int, key: int, rng: np.random.Generator
                 ) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """``worlds`` determinizations of ``k`` as arrays: hands (W, P) card masks by seat, talons (W, T).

    Drawn by the compiled sampler from the stream ``key``; a knowledge whose
    counting table would pass :data:`MAX_TABLE` entries is drawn by the Python
    sampler from ``rng`` (the same distribution).
    """
    cls, fits, fixed, known = knowledge_arrays(k)
    return class_worlds(cls, fits, fixed, known, k.talon_size, worlds, key, rng)


def fits_table(cls: Classes) -> bool:
    """Is the dense counting table of these classes small enough (:data:`MAX_TABLE`) for the compiled sampler?"""
    table = 1
    for z in cls.size:
        table *= z + 1
    return table <= MAX_TABLE


def class_worlds(cls: Classes, fits: NDArray[np.bool_], fixed: NDArray[np.uint64], known: NDArray[np.int64],
                 talon_size: int, worlds: int, key: int, rng: np.random.Generator
                 ) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """:func:`world_arrays` from the knowledge's arrays (:func:`knowledge_arrays`)."""
    size = np.array(cls.size, np.int64)
    owner = np.array(cls.owner, np.int64)
    pool = np.array(cls.pool, np.int64)
    if fits_table(cls):
        f, stride = count_table(fits, size)
        if f[-1] <= 0.0:
            raise InconsistentKnowledge("no hidden state is consistent with what is known")
        return draw_worlds(f, stride, fits, size, owner, pool, fixed, known, talon_size, worlds,
                           int(stream_key(key, 0, 0, WORLD_STREAM)) & (2**63 - 1))
    sampler = Sampler(cls)
    hands = np.repeat(fixed[None, :], worlds, axis=0)
    talons = np.zeros((worlds, max(talon_size, 1)), np.int64)
    for w in range(worlds):
        talon = []
        for card, j in zip(cls.pool, sampler.assignment(rng)):
            if cls.owner[j] < 0:
                talon.append(card)
            else:
                hands[w, cls.owner[j]] |= np.uint64(1 << card)
        order = list(known) if len(known) else [talon[i] for i in rng.permutation(len(talon))]
        talons[w, :len(order)] = order
    return hands, talons


# ------------------------------------------------------------------ the fast path: a batch of views at once
def view_candidates(view: BatchView) -> list[list[tuple[int, int]]]:
    """Every row's candidate actions as ``Pimc.candidates`` lists them: each legal action in legal order
    (cards by id, then DRAW, TAKE), a wild once per suit it can name (-1: no suit)."""
    rules = view.rules
    wild = int(RANK_MASK[rules.wild_rank])
    hist = view.history
    lead = (view.top < 0) & (hist.pile_size > 0) if hist is not None else np.zeros(len(view.seat), bool)
    out = []
    for legal, draw, take, hand, ld in zip(view.legal.tolist(), view.can_draw.tolist(), view.can_take.tolist(),
                                           view.hand.tolist(), lead.tolist()):
        names = ld or hand & (hand - 1) != 0  # PR2 lead, or more than one card in hand
        opts: list[tuple[int, int]] = []
        for c in cards_tuple(legal):
            opts.extend([(c, s) for s in range(4)] if names and wild >> c & 1 else [(c, -1)])
        if draw:
            opts.append((DRAW, -1))
        if take:
            opts.append((TAKE, -1))
        out.append(opts)
    return out


@dataclass
class ViewSearch:
    """The search inputs of R decisions read off a :class:`BatchView` (padded arrays by row, as
    :func:`search_rows` takes them), and what each row's knowledge says."""

    st0: NDArray[np.int64]
    m0: NDArray[np.uint64]
    ring0: NDArray[np.int64]
    fits: NDArray[np.bool_]
    n_pool: NDArray[np.int64]
    n_cls: NDArray[np.int64]
    size: NDArray[np.int64]
    owner: NDArray[np.int64]
    pool: NDArray[np.int64]
    fixed: NDArray[np.uint64]
    talon_known: NDArray[np.int64]
    n_known: NDArray[np.int64]
    talon_size: NDArray[np.int64]
    actions: NDArray[np.int64]
    suits: NDArray[np.int64]
    n_actions: NDArray[np.int64]
    me: NDArray[np.int64]
    totals: NDArray[np.int64]
    in_match: bool
    big: NDArray[np.bool_]  # rows whose counting table passes MAX_TABLE (searched apart)
    classes: list[Classes]


def view_search(view: BatchView, rows: NDArray[np.int64], options: list[list[tuple[int, int]]]) -> ViewSearch:
    """The search inputs of ``rows`` of ``view`` (whose ``history`` the simulator recorded): the public
    position (pile in order, top, active suit, sevens chain, whose turn, the turn and turn-over counts)
    and the knowledge (own hand, hand sizes, known cards, each opponent's slot masks, the talon's mask
    or known order) exactly as the observer's :class:`Knowledge` gives them to ``choose_known``:
    classes in the same order, so the same key draws the same worlds.  ``options[i]``: row ``rows[i]``'s
    candidates (:func:`view_candidates`)."""
    hist = view.history
    if hist is None:
        raise ValueError("pimc needs the public history in its views (uses_history = True)")
    rules = view.rules
    n, d = rules.players, rules.deck_size
    r_count = len(rows)
    seat = view.seat[rows].astype(np.int64)
    top = view.top[rows].astype(np.int64)
    ps = hist.pile_size[rows].astype(np.int64)
    pile = hist.pile[rows].astype(np.int64)
    lead = (top < 0) & (ps > 0)
    top_card = np.where(ps > 0, pile[np.arange(r_count), np.maximum(ps - 1, 0)], -1)
    own = np.where(lead, view.hand[rows] & ~BIT[np.maximum(top_card, 0)], view.hand[rows])

    st0 = np.zeros((r_count, NI), np.int64)
    st0[:, PCOUNT] = ps
    st0[:, TOP] = top_card
    st0[:, ACTIVE] = view.active_suit[rows]
    st0[:, CUR] = seat
    p7 = view.pending_seven[rows].astype(np.int64)
    st0[:, PHASE] = np.where(lead, LEAD, np.where(p7 > 0, SEVEN, PLAY))
    if rules.effects:  # PR2: the turned-up Jack's effect waits for the first player
        eff = rules.effects[rules.wild_rank]
        st0[:, PDRAW] = np.where(lead, eff.draw, 0)
        st0[:, PSKIP] = np.where(lead, int(eff.skip), 0)
    st0[:, PEND7] = p7
    st0[:, DRAWN_CARD] = -1
    st0[:, TURNS] = hist.turn[rows]
    st0[:, TURNOVERS] = hist.turnovers[rows]
    st0[:, LAST_ACTOR] = (seat - 1) % n
    st0[:, LAST_CARD] = -1
    st0[:, WENT_OUT] = -1
    m0 = np.zeros((r_count, HANDS + n), np.uint64)
    m0[:, PLAYED] = view.played[rows]
    ring0 = np.zeros((r_count, RING), np.int64)
    ring0[:, :d] = np.where(pile >= 0, pile, 0)

    offsets = (np.arange(n)[None, :] - seat[:, None]) % n  # (R, P): offset of each absolute seat
    sizes = np.take_along_axis(view.hand_sizes[rows].astype(np.int64), offsets, axis=1)
    known = np.take_along_axis(hist.known[rows], offsets, axis=1)
    slots = np.take_along_axis(hist.slots[rows], offsets[:, :, None], axis=1)  # (R, P, D) by absolute seat
    unknown = sizes - popcount(known).astype(np.int64)
    hidden = hist.hidden[rows]
    talon_size = view.talon_size[rows].astype(np.int64)
    talon_order = hist.talon[rows].astype(np.int64)
    order_known = talon_order[:, 0] >= 0
    talon_may = hist.talon_may[rows]
    fixed = np.where(np.arange(n)[None, :] == seat[:, None], own[:, None], known)

    classes: list[Classes] = []
    for me, pool_m, ts, ok, tm, srow, urow in zip(
            seat.tolist(), hidden.tolist(), talon_size.tolist(), order_known.tolist(), talon_may.tolist(),
            slots.tolist(), unknown.tolist()):
        groups: dict[tuple[int, int], int] = {}
        for s in range(n):
            if s == me:
                continue
            for m in srow[s][:urow[s]]:
                key = (s, m & pool_m)
                groups[key] = groups.get(key, 0) + 1
        if not ok and ts:
            groups[(-1, tm & pool_m)] = ts
        keys = sorted(groups)
        classes.append(Classes(tuple(o for o, _ in keys), tuple(m for _, m in keys), tuple(groups[x] for x in keys),
                               tuple(cards_tuple(pool_m))))
    c_max = max(max([len(c.pool) for c in classes], default=0), 1)
    k_max = max(max([len(c.size) for c in classes], default=0), 1)
    # padded Python lists, then every row's fits in one array operation
    allowed_l, size_l, owner_l, pool_l, n_pool_l, n_cls_l, big_l = [], [], [], [], [], [], []
    for c in classes:
        k, cp = len(c.size), len(c.pool)
        if sum(c.size) != cp:
            raise InconsistentKnowledge(f"{cp} hidden cards for {sum(c.size)} hidden places")
        pad_k = k_max - k
        allowed_l.append(c.allowed + (0,) * pad_k)
        size_l.append(c.size + (0,) * pad_k)
        owner_l.append(c.owner + (0,) * pad_k)
        pool_l.append(c.pool + (0,) * (c_max - cp))
        n_pool_l.append(cp)
        n_cls_l.append(k)
        table = 1
        for z in c.size:
            table *= z + 1
        big_l.append(table > MAX_TABLE)
    n_pool = np.array(n_pool_l, np.int64)
    n_cls = np.array(n_cls_l, np.int64)
    size = np.array(size_l, np.int64).reshape(r_count, k_max)
    owner = np.array(owner_l, np.int64).reshape(r_count, k_max)
    pool = np.array(pool_l, np.int64).reshape(r_count, c_max)
    big = np.array(big_l, np.bool_).reshape(r_count)
    allowed = np.array(allowed_l, np.uint64).reshape(r_count, k_max)
    fits = ((allowed[:, None, :] & BIT[pool][:, :, None]) != 0) \
        & (np.arange(c_max)[None, :, None] < n_pool[:, None, None]) & (np.arange(k_max)[None, None, :] < n_cls[:, None, None])
    a_max = max(len(o) for o in options)
    actions = np.zeros((r_count, a_max), np.int64)
    suits = np.full((r_count, a_max), -1, np.int64)
    n_actions = np.zeros(r_count, np.int64)
    for i, opts in enumerate(options):
        n_actions[i] = len(opts)
        actions[i, :len(opts)] = [a for a, _ in opts]
        suits[i, :len(opts)] = [s for _, s in opts]
    in_match = view.scores is not None and rules.target is not None
    totals = np.zeros((r_count, n), np.int64)
    if view.scores is not None and in_match:  # the match's points before this deal, by seat (the view: by offset)
        totals = np.take_along_axis(view.scores[rows].astype(np.int64), offsets, axis=1)
    return ViewSearch(st0, m0, ring0, fits, n_pool, n_cls, size, owner, pool, fixed.astype(np.uint64),
                      np.where(order_known[:, None], talon_order, 0), np.where(order_known, talon_size, 0),
                      talon_size, actions, suits, n_actions, seat, totals, in_match, big, classes)


def search_view(p: NDArray[np.int64], kinds: NDArray[np.int64], weights: NDArray[np.float64], vs: ViewSearch,
                objective: int, keys: NDArray[np.int64], worlds: int, budget: int, min_worlds: int,
                rng: np.random.Generator, tolerance: float = 0.0, z: float = 2.0, specialise: bool | None = None
                ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """(scores (R, A), rollouts played (R,)) of every row of ``vs``: all rollouts of all rows in one compiled
    call (:func:`search_rows`); a row whose counting table is too large is drawn by the Python sampler
    from ``rng`` and searched apart (:func:`search_scores`), as :func:`world_arrays` does.  ``specialise``: the rows
    on the kernel compiled for the rules (:func:`rows_kernel`; the same scores)."""
    rows = rows_kernel(p, kinds, len(vs.me), specialise)
    scores, _used, _turns, rolled = rows(kinds, weights, vs.st0, vs.m0, vs.ring0, vs.fits, vs.n_pool, vs.n_cls,
                                       vs.size, vs.owner, vs.pool, vs.fixed, vs.talon_known, vs.n_known,
                                       vs.talon_size, vs.actions, vs.suits, vs.n_actions, vs.me, objective, keys,
                                       worlds, budget, min_worlds, vs.totals, vs.in_match, vs.big, float(tolerance),
                                       float(z))
    for i in np.nonzero(vs.big)[0].tolist():
        c, k, a = int(vs.n_pool[i]), int(vs.n_cls[i]), int(vs.n_actions[i])
        hands, talons = class_worlds(vs.classes[i], vs.fits[i, :c, :k], vs.fixed[i], vs.talon_known[i, :vs.n_known[i]],
                                     int(vs.talon_size[i]), worlds, int(keys[i]), rng)
        sc, _, _, rolled[i] = search_scores(p, kinds, weights, vs.st0[i], vs.m0[i], vs.ring0[i], hands, talons,
                                 int(vs.talon_size[i]), vs.actions[i, :a], vs.suits[i, :a], int(vs.me[i]), objective,
                                 int(keys[i]), budget, min_worlds, vs.totals[i] if vs.in_match else None,
                                 float(tolerance), float(z))
        scores[i, :a] = sc
    return scores, rolled
