"""Compiled information-set Monte Carlo tree search (single-observer ISMCTS).

The second search family beside ``pimc`` (analyzer.kernel.search).  pimc
scores every root action by independent rollouts in sampled worlds, so it
plans as if it would know the hidden cards from the next move on ("strategy
fusion").  Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012, SO-ISMCTS)
instead grows ONE tree over the public action sequence from the searching
player's point of view, shared by all the worlds it samples:

* every iteration draws one determinization with the exact sampler pimc uses
  (:func:`analyzer.kernel.search.draw_world`, the row's counting table, one
  stream per decision), fills it into the public position and walks down the
  tree;
* at a node, the actions legal *in this world* for the player to move
  (:func:`candidates_at`: each legal card, a wild once per suit it can name,
  then DRAW, TAKE — the order of ``pimc``'s candidates) are matched to the
  node's children; if some have no child yet, one of them is added (picked
  uniformly) and the rest of the deal is a rollout of the ``rollout`` policy
  on the kernel (:func:`analyzer.kernel.deal.run_deal`); otherwise the child
  with the best UCB value ``mean + c * sqrt(ln(available) / visits)`` is
  taken, ``available`` counting the iterations in which that child was legal
  (ISMCTS's availability count);
* forced moves (one legal action) are played by the kernel and make no
  node: the tree pauses at real decisions only (every seat of the walk is a
  :data:`~analyzer.kernel.deal.PYTHON` seat, so ``run_deal`` stops there);
* the deal's outcome is backed up: a node keeps the reward of the seat that
  chose its action (every seat plays for the same ``objective``), in [0, 1]
  (``loser``: 1 for not being the дурак; ``win``: 1 for winning; ``both``:
  (1 + win - дурак) / 2; the player's points break ties by 1/10,000 of a point
  each; in a match a deal that ends it is scored by the match's result, G11,
  as pimc scores it).

The action played is the root child visited most (ties: the first in legal
order).  A decision's key fixes its worlds, its tree choices and its rollouts,
so every move depends on the seed only.  :func:`ismcts_rows` searches every
row of a batch in one compiled call (the fast path, ``Ismcts.choose_batch``);
every row's worlds come from the compiled sampler, dense or sparse
(:func:`analyzer.kernel.search.count_table`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from analyzer.core.cards import DRAW, TAKE
from analyzer.kernel import params as P
from analyzer.kernel.bitops import RANK_MASKS, ZERO, bit, lowest, popcount
from analyzer.kernel.deal import GOING, PAUSED, PYTHON, resume, run_deal, scratch
from analyzer.kernel.jit import Specialised, body, inner, outer
from analyzer.kernel.rng import next_float, stream_key
from analyzer.kernel.search import (
    BOTH,
    MAX_TABLE,
    ROLLOUT_STREAM,
    SPECIALISE_ROWS,
    WIN,
    WORLD_STREAM,
    count_table,
    draw_world,
    load_world,
    match_shares,
)
from analyzer.kernel.state import (
    ACTIVE,
    CUR,
    DRAWN,
    DRAWN_CARD,
    HANDS,
    PCOUNT,
    PHASE,
    PLAY,
    RING,
    RNG,
    SEVEN,
    TCOUNT,
    TOP,
    TURNS,
)
from analyzer.kernel.turn import legal_mask

#: stream purpose of a decision's tree choices (which untried action is added)
TREE_STREAM = 9
#: most candidate actions at one decision (cards, a wild once per suit, DRAW, TAKE)
MAX_CANDIDATES = 96
#: a point in hand costs this much reward: it only breaks ties between equal outcomes
POINT_WEIGHT = 1.0 / 10_000.0
#: iterations run at every decision whatever the budget
MIN_ITERATIONS = 32
#: no action to carry out (the walk falls back to a rollout)
NO_ACTION = -99


@inner
def candidates_at(st: np.ndarray, m: np.ndarray, p: np.ndarray, acts: np.ndarray, suits: np.ndarray) -> int:
    """The candidate actions of the player to move in the paused deal ``st``/``m`` into ``acts``/``suits``;
    returns how many.  The decision as the kernel's ``decide`` and the views read it: PLAY (G3/G4 legal
    cards, G7/G8 DRAW when something can be drawn and nothing fits or drawing is voluntary), DRAWN (G6: the
    drawn card that fits), SEVEN (CZ8: a 7 or TAKE), LEAD (PR2: the dealer names the suit of his Jack
    lead).  A wild names each of the four suits when its player holds another card (or leads, PR2)."""
    cur, phase = st[CUR], st[PHASE]
    hand = m[HANDS + cur]
    wild = RANK_MASKS[p[P.WILD]]
    draw, take = False, False
    names = popcount(hand) > 1
    if phase == PLAY:
        legal = legal_mask(hand, st[TOP], st[ACTIVE], p)
        draw = (st[TCOUNT] > 0 or st[PCOUNT] > 1) and (legal == ZERO or p[P.VOLUNTARY] != 0)
    elif phase == DRAWN or not (p[P.SEVENS] or p[P.STARTER_KIND] == P.STARTER_LEAD):
        legal = bit(st[DRAWN_CARD])
    elif p[P.SEVENS] and phase == SEVEN:
        legal = hand & RANK_MASKS[7]
        take = True
    else:  # LEAD
        legal = bit(st[TOP])
        names = True
    k = 0
    while legal != ZERO:
        c = lowest(legal)
        legal &= ~bit(c)
        if names and (bit(c) & wild) != ZERO:
            for s in range(4):
                acts[k], suits[k] = c, s
                k += 1
        else:
            acts[k], suits[k] = c, -1
            k += 1
    if draw:
        acts[k], suits[k] = DRAW, -1
        k += 1
    if take:
        acts[k], suits[k] = TAKE, -1
        k += 1
    return k


@inner
def seat_reward(objective: int, seat: int, win: int, lose: int, pts: np.ndarray, held: np.ndarray,
                totals: np.ndarray, in_match: bool, p: np.ndarray) -> float:
    """Seat ``seat``'s reward in [0, 1] (less a tie-breaking 1/10,000 per point in hand) for a finished
    deal: by the match's result when the deal ends a match (G11, CZ7/PR7/SV7: :func:`match_shares`).  A deal
    stopped by the turn cap (G10: no winner, no loser) is scored as the fair share of both, as if they were
    drawn at random: counted as "not lost" it would be every losing seat's best outcome, and searching
    players would steer into endless deals (svinya's Queens going round)."""
    won = 1.0 if win == seat else 0.0
    lost = 1.0 if lose == seat else 0.0
    if win < 0 and lose < 0:  # capped (G10)
        won = lost = 1.0 / p[P.PLAYERS]
    if in_match:
        ended, mwin, mloss = match_shares(totals, pts, held, p, seat)
        if ended:
            won, lost = mwin, mloss
    tie = pts[seat] * POINT_WEIGHT
    if objective == WIN:
        return won - tie
    if objective == BOTH:
        return 0.5 * (1.0 + won - lost) - tie
    return 1.0 - lost - tie  # LOSER


@inner
def child_of(first: np.ndarray, nxt: np.ndarray, t_act: np.ndarray, t_suit: np.ndarray, t_actor: np.ndarray,
             node: int, actor: int, a: int, s: int) -> int:
    """The child of ``node`` reached by seat ``actor`` playing action ``a`` naming ``s``, or -1.  The seat is
    part of the move: after a forced stretch (a draw that may or may not fit, G6) the next real decision can
    be any seat's, depending on the world, and two seats' moves must not share a node."""
    c = first[node]
    while c >= 0:
        if t_act[c] == a and t_suit[c] == s and t_actor[c] == actor:
            return c
        c = nxt[c]
    return -1


@inner
def tree_search(p: np.ndarray, walk: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray,
                m0: np.ndarray, ring0: np.ndarray, talon_size: int, root_a: np.ndarray, root_s: np.ndarray,
                n_root: int, me: int, objective: int, key: np.int64, iterations: int, c_explore: float,
                max_depth: int, budget: int, totals: np.ndarray, in_match: bool,
                f: np.ndarray, stride: np.ndarray, tkeys: np.ndarray, tstart: np.ndarray, fits: np.ndarray,
                size: np.ndarray, owner: np.ndarray, pool: np.ndarray, fixed: np.ndarray, known: np.ndarray,
                tree: tuple, work: tuple, visits_out: np.ndarray) -> tuple[int, int]:
    """One decision's search: ``iterations`` iterations of SO-ISMCTS from the public position
    ``st0``/``m0``/``ring0`` (analyzer.kernel.positions layout, as :func:`~analyzer.kernel.search.score_world`
    fills it), root candidates ``root_a``/``root_s`` (the decision's, in legal order).  Worlds come from
    the counting table (``f``/``stride``/``tkeys``/``tstart``, :func:`~analyzer.kernel.search.count_table`).
    ``walk``: every seat :data:`PYTHON` (the kernel pauses at each real decision in the tree);
    ``kinds``/``weights``: the rollout policy.  Fills ``visits_out[:n_root]`` with each root candidate's
    visits; returns (iterations run, rollout turns played: the kernel's turn count, tree walk included).
    ``budget`` > 0 stops after the first iteration (at least :data:`MIN_ITERATIONS`) at which the turns
    reach it, as pimc's budget stops its worlds (deterministic: turns do not depend on timing)."""
    t_act, t_suit, t_actor, first, nxt, visits, avail, reward, path = tree
    st, m, ring, pts, held, hands, talon, room, ca, cs, cnode, wstate, tstate, rew = work
    n = p[P.PLAYERS]
    d = p[P.DECK]
    first[0], nxt[0], visits[0] = -1, -1, 0.0
    n_nodes = 1
    wstate[0] = stream_key(key, 0, 0, WORLD_STREAM) & np.uint64(2**63 - 1)
    tstate[0] = stream_key(key, 0, 0, TREE_STREAM)
    turns = 0
    used = 0
    for it in range(iterations):
        if budget > 0 and it >= MIN_ITERATIONS and turns >= budget:
            break
        used += 1
        draw_world(f, stride, tkeys, tstart, fits, size, owner, pool, fixed, known, talon_size, wstate, room, hands,
                   talon)
        load_world(st, m, ring, st0, m0, ring0, hands, talon, talon_size, n, d)
        m[RNG] = stream_key(key, it, 0, ROLLOUT_STREAM)
        turn0 = st[TURNS]
        node, depth, in_tree = 0, 0, True
        path[0] = 0
        win, lose = GOING, -1
        while True:
            a, s = -1, -1
            if in_tree:
                if depth == 0:
                    k = n_root
                    for i in range(k):
                        ca[i], cs[i] = root_a[i], root_s[i]
                else:
                    k = candidates_at(st, m, p, ca, cs)
                if max_depth > 0 and depth >= max_depth:
                    k = 0
                if k == 0:  # below the depth limit (or no real decision, which cannot happen): roll out
                    in_tree = False
                    a = NO_ACTION
                else:
                    untried = 0
                    for i in range(k):
                        cnode[i] = child_of(first, nxt, t_act, t_suit, t_actor, node, st[CUR], ca[i], cs[i])
                        if cnode[i] < 0:
                            untried += 1
                    for i in range(k):  # ISMCTS availability: every child legal in this world is available
                        if cnode[i] >= 0:
                            avail[cnode[i]] += 1.0
                    pick = -1
                    if untried > 0:  # expansion: a new child, picked uniformly among the untried actions
                        j = int(next_float(tstate, 0) * untried)
                        for i in range(k):
                            if cnode[i] < 0:
                                if j == 0:
                                    pick = i
                                    break
                                j -= 1
                        c = n_nodes
                        n_nodes += 1
                        t_act[c], t_suit[c], t_actor[c] = ca[pick], cs[pick], st[CUR]
                        first[c], visits[c], avail[c], reward[c] = -1, 0.0, 1.0, 0.0
                        nxt[c] = first[node]
                        first[node] = c
                        cnode[pick] = c
                        in_tree = False
                    else:  # selection: UCB over the children legal in this world
                        best = -1.0e300
                        for i in range(k):
                            ch = cnode[i]
                            v = reward[ch] / visits[ch] + c_explore * math.sqrt(math.log(avail[ch]) / visits[ch])
                            if v > best:
                                best, pick = v, i
                    node = cnode[pick]
                    depth += 1
                    path[depth] = node
                    a, s = ca[pick], cs[pick]
            if a != NO_ACTION:
                win, lose, _ = resume(st, m, ring, st[PHASE], a, s, p, pts, held)
            else:
                win = GOING
            if win == GOING:
                win, lose, _ = run_deal(st, m, ring, walk if in_tree else kinds, weights, p, pts, held)
            if win != PAUSED:
                break
        turns += st[TURNS] - turn0 + 1
        for s in range(n):
            rew[s] = seat_reward(objective, s, win, lose, pts, held, totals, in_match, p)
        for i in range(1, depth + 1):
            c = path[i]
            visits[c] += 1.0
            reward[c] += rew[t_actor[c]]
    for i in range(n_root):
        c = child_of(first, nxt, t_act, t_suit, t_actor, 0, me, root_a[i], root_s[i])
        visits_out[i] = 0.0 if c < 0 else visits[c]
    return used, turns


@body
def rows_body(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray,
              ring0: np.ndarray, fits: np.ndarray, n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray,
              owner: np.ndarray, pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray,
              n_known: np.ndarray, talon_size: np.ndarray, actions: np.ndarray, suits: np.ndarray,
              n_actions: np.ndarray, me: np.ndarray, objective: int, keys: np.ndarray, iterations: int,
              c_explore: float, max_depth: int, budget: int, totals: np.ndarray, in_match: bool
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`tree_search` for R decisions of R deals in one call (arrays padded by row as
    :func:`analyzer.kernel.search.search_rows` takes them).  Row ``r``'s worlds come from its counting
    table.  Returns (root visits (R, A), iterations run (R,), rollout turns (R,))."""
    n = p[P.PLAYERS]
    rows = st0.shape[0]
    out = np.zeros((rows, actions.shape[1]), np.float64)
    turns = np.zeros(rows, np.int64)
    used = np.zeros(rows, np.int64)
    cap = iterations + 2
    tree = (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
            np.zeros(cap, np.int64), np.zeros(cap, np.float64), np.zeros(cap, np.float64),
            np.zeros(cap, np.float64), np.zeros(cap, np.int64))
    st, m, ring, _deck, pts, held, _dealt = scratch(n)
    work = (st, m, ring, pts, held, np.zeros(n, np.uint64), np.zeros(RING, np.int64),
            np.zeros(max(fits.shape[2], 1), np.int64), np.zeros(MAX_CANDIDATES, np.int64),
            np.zeros(MAX_CANDIDATES, np.int64), np.zeros(MAX_CANDIDATES, np.int64), np.zeros(1, np.uint64),
            np.zeros(1, np.uint64), np.zeros(n, np.float64))
    walk = np.full(n, PYTHON, np.int64)
    for r in range(rows):
        c, k = n_pool[r], n_cls[r]
        row_fits = fits[r, :c, :k]
        row_size = size[r, :k]
        f, stride, tkeys, tstart = count_table(row_fits, row_size, MAX_TABLE)
        used[r], turns[r] = tree_search(p, walk, kinds, weights, st0[r], m0[r], ring0[r], talon_size[r], actions[r],
                               suits[r], n_actions[r], me[r], objective, keys[r], iterations, c_explore,
                               max_depth, budget, totals[r], in_match, f, stride, tkeys, tstart, row_fits, row_size,
                               owner[r, :k], pool[r, :c], fixed[r], talon_known[r, :n_known[r]], tree, work, out[r])
    return out, used, turns


@outer
def ismcts_rows(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray,
                ring0: np.ndarray, fits: np.ndarray, n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray,
                owner: np.ndarray, pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray,
                n_known: np.ndarray, talon_size: np.ndarray, actions: np.ndarray, suits: np.ndarray,
                n_actions: np.ndarray, me: np.ndarray, objective: int, keys: np.ndarray, iterations: int,
                c_explore: float, max_depth: int, budget: int, totals: np.ndarray, in_match: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`rows_body` for any rules ``p``."""
    return rows_body(p, kinds, weights, st0, m0, ring0, fits, n_pool, n_cls, size, owner, pool, fixed, talon_known,
                     n_known, talon_size, actions, suits, n_actions, me, objective, keys, iterations, c_explore,
                     max_depth, budget, totals, in_match)


def _rows_for(rules: np.ndarray) -> Any:
    """:func:`rows_body` compiled for the rules ``rules`` (constants): :func:`ismcts_rows`' arguments but ``p``.
    The rollout line-up is not folded in: the tree's walk pauses every seat (PYTHON), the rollouts past it do not."""

    def ismcts_rows_for(kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray,
                        fits: np.ndarray, n_pool: np.ndarray, n_cls: np.ndarray, size: np.ndarray, owner: np.ndarray,
                        pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray, n_known: np.ndarray,
                        talon_size: np.ndarray, actions: np.ndarray, suits: np.ndarray, n_actions: np.ndarray,
                        me: np.ndarray, objective: int, keys: np.ndarray, iterations: int, c_explore: float,
                        max_depth: int, budget: int, totals: np.ndarray, in_match: bool
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return rows_body(rules, kinds, weights, st0, m0, ring0, fits, n_pool, n_cls, size, owner, pool, fixed,
                         talon_known, n_known, talon_size, actions, suits, n_actions, me, objective, keys, iterations,
                         c_explore, max_depth, budget, totals, in_match)

    return outer(ismcts_rows_for)


#: ismcts_rows compiled per rule set, switched to as pimc's (analyzer.kernel.search.ROWS, folded): the same visits
ROWS = Specialised(_rows_for, threshold=SPECIALISE_ROWS)


__all__ = ["MAX_CANDIDATES", "ROWS", "TREE_STREAM", "candidates_at", "ismcts_rows", "seat_reward"]
