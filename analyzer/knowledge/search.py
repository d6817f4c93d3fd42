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
  own phase functions (analyzer.kernel.turn, as ``run_deal`` applies a choice),
  then the deal played to its end by the rollout policy
  (:func:`analyzer.kernel.deal.run_deal`).  Every action of a world uses the
  same play stream (common random numbers), so actions are compared paired.

The dense table has ``prod(size_k + 1)`` entries; a knowledge with too many
distinct classes for that (rare: four or more players with long void
histories) is sampled by the Python sampler instead (:func:`world_arrays`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import DRAW, TAKE
from analyzer.core.outcomes import END_BLOCKED, END_OUT
from analyzer.kernel import params as P
from analyzer.kernel.bitops import bit, suit_of
from analyzer.kernel.deal import run_deal
from analyzer.kernel.jit import inner, outer
from analyzer.kernel.rng import next_float, stream_key
from analyzer.kernel.state import ACTIVE, BEGIN, CUR, HANDS, LAST_ACTOR, LEAD, NI, PCOUNT, PHASE, RING, RNG, TCOUNT, TURNS
from analyzer.kernel.turn import draw_decision, finish, play_card, take_seven
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


@outer
def draw_worlds(f: np.ndarray, stride: np.ndarray, fits: np.ndarray, size: np.ndarray, owner: np.ndarray,
                pool: np.ndarray, fixed: np.ndarray, talon_known: np.ndarray, talon_size: int, worlds: int,
                key: int) -> tuple[np.ndarray, np.ndarray]:
    """``worlds`` determinizations: hands (W, P) as card masks by seat, talons (W, talon_size) top first.

    ``fixed`` (P,) holds the cards every world gives each seat (own hand, known
    cards); ``talon_known`` the talon top first when its order is known (G8),
    else an empty array (the talon's cards are then the talon class's,
    shuffled uniformly).
    """
    n_cards, k = fits.shape
    n = fixed.shape[0]
    hands = np.zeros((worlds, n), np.uint64)
    talons = np.zeros((worlds, max(talon_size, 1)), np.int64)
    state = np.zeros(1, np.uint64)
    state[0] = np.uint64(key)
    room = np.zeros(k, np.int64)
    for w in range(worlds):
        for s in range(n):
            hands[w, s] = fixed[s]
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
                talons[w, t] = pool[i]
                t += 1
            else:
                hands[w, owner[pick]] |= bit(pool[i])
        if talon_known.shape[0]:
            for i in range(talon_size):
                talons[w, i] = talon_known[i]
        else:
            for i in range(t - 1, 0, -1):  # Fisher-Yates: a uniform talon order
                j = int(next_float(state, 0) * (i + 1))
                talons[w, i], talons[w, j] = talons[w, j], talons[w, i]
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


@outer
def search_scores(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, st0: np.ndarray, m0: np.ndarray,
                  ring0: np.ndarray, hands: np.ndarray, talons: np.ndarray, talon_size: int,
                  actions: np.ndarray, suits: np.ndarray, me: int, objective: int, key: int,
                  budget: int = 0, min_worlds: int = 1, totals: np.ndarray | None = None
                  ) -> tuple[np.ndarray, int, int]:
    """(scores, worlds, turns): every action's outcome summed over the worlds searched (higher is better
    for seat ``me``), how many worlds that was, and the rollout turns they took.

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
    """
    n = p[P.PLAYERS]
    d = p[P.DECK]
    n_worlds = hands.shape[0]
    n_actions = actions.shape[0]
    pile = st0[PCOUNT]
    st = np.zeros(NI, np.int64)
    m = np.zeros(HANDS + n, np.uint64)
    ring = np.zeros(RING, np.int64)
    pts = np.zeros(n, np.int64)
    held = np.zeros(n, np.bool_)
    out = np.zeros(n_actions, np.float64)
    turns = 0
    used = 0
    for w in range(n_worlds):
        if budget > 0 and w >= min_worlds and turns >= budget:
            break
        used += 1
        play_key = stream_key(key, w, 0, ROLLOUT_STREAM)
        for a in range(n_actions):
            st[:] = st0
            m[:] = m0
            for s in range(n):
                m[HANDS + s] = hands[w, s]
            for i in range(talon_size):
                ring[i] = talons[w, i]
            for i in range(pile):
                ring[(talon_size + i) % d] = ring0[i]
            st[TCOUNT] = talon_size
            m[RNG] = play_key
            action, suit = actions[a], suits[a]
            win, lose, done = -1, -1, False
            if st[PHASE] == LEAD:  # PR2: the dealer names the suit of the Jack lead
                st[ACTIVE] = suit_of(action) if suit < 0 else suit
                st[CUR] = 1 % n
                st[PHASE] = BEGIN
            elif action == DRAW:
                if draw_decision(st, m, ring, p) == END_BLOCKED:
                    win, lose, _ = finish(st, m, END_BLOCKED, -1, -1, p, pts, held)
                    done = True
            elif action == TAKE:
                take_seven(st, m, ring, p)
            elif play_card(st, m, ring, action, suit, p) == END_OUT:
                win, lose, _ = finish(st, m, END_OUT, st[LAST_ACTOR], action, p, pts, held)
                done = True
            if not done:
                win, lose, _ = run_deal(st, m, ring, kinds, weights, p, pts, held)
            turns += st[TURNS] - st0[TURNS] + 1
            if totals is not None:
                ended, mwin, mloss = match_shares(totals, pts, held, p, me)
                if ended:
                    if objective == WIN:
                        out[a] += mwin
                    elif objective == POINTS:
                        out[a] -= pts[me]
                    elif objective == BOTH:
                        out[a] += mwin - mloss - pts[me] / 10_000.0
                    else:
                        out[a] -= mloss + pts[me] / 10_000.0
                    continue
            if objective == WIN:
                out[a] += 1.0 if win == me else 0.0
            elif objective == POINTS:
                out[a] -= pts[me]
            elif objective == BOTH:
                out[a] += (1.0 if win == me else 0.0) - (1.0 if lose == me else 0.0) - pts[me] / 10_000.0
            else:
                out[a] -= (1.0 if lose == me else 0.0) + pts[me] / 10_000.0
    return out, used, turns


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
    size = np.array(cls.size, np.int64)
    owner = np.array(cls.owner, np.int64)
    pool = np.array(cls.pool, np.int64)
    if float(np.prod(size.astype(np.float64) + 1.0)) <= MAX_TABLE:
        f, stride = count_table(fits, size)
        if f[-1] <= 0.0:
            raise InconsistentKnowledge("no hidden state is consistent with what is known")
        return draw_worlds(f, stride, fits, size, owner, pool, fixed, known, k.talon_size, worlds,
                           int(stream_key(key, 0, 0, WORLD_STREAM)) & (2**63 - 1))
    sampler = Sampler(cls)
    hands = np.repeat(fixed[None, :], worlds, axis=0)
    talons = np.zeros((worlds, max(k.talon_size, 1)), np.int64)
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
