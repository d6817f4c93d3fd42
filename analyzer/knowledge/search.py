"""What a search knows, as the compiled search (:mod:`analyzer.kernel.search`) takes it.

The kernels draw worlds from a dense counting table over the classes of
hidden places; this module reads those classes off a player's knowledge
(:func:`knowledge_arrays`, :func:`world_arrays`) or off a batch view's public
history for R decisions at once (:func:`view_search`), and lists each
decision's candidate actions (:func:`view_candidates`).  The Python sampler
(:class:`analyzer.knowledge.sampler.Sampler`) is the readable reference the
compiled one is tested against.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import BIT, RANK_MASK, cards_tuple, popcount
from analyzer.core.cards import DRAW, TAKE
from analyzer.core.contract import BatchView
from analyzer.kernel.rng import stream_key
from analyzer.kernel.search import MAX_TABLE, WORLD_STREAM, count_table, draw_worlds, rows_kernel
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
    SEVEN,
    TOP,
    TURNOVERS,
    TURNS,
    WENT_OUT,
)
from analyzer.knowledge.observer import Knowledge, mask
from analyzer.knowledge.sampler import Classes, InconsistentKnowledge, classes_of


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


def world_arrays(k: Knowledge, worlds: int, key: int, max_dense: int = MAX_TABLE
                 ) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """``worlds`` determinizations of ``k`` as arrays: hands (W, P) card masks by seat, talons (W, T), drawn by
    the compiled sampler from the stream ``key`` (``max_dense``: the counting table's dense limit,
    :func:`~analyzer.kernel.search.count_table`; the worlds do not depend on it)."""
    cls, fits, fixed, known = knowledge_arrays(k)
    size = np.array(cls.size, np.int64)
    f, stride, keys, start = count_table(fits, size, max_dense)
    if (f[0] if len(keys) else f[-1]) <= 0.0:  # the full room vector: the sparse table's first key, the dense last
        raise InconsistentKnowledge("no hidden state is consistent with what is known")
    return draw_worlds(f, stride, keys, start, fits, size, np.array(cls.owner, np.int64), np.array(cls.pool, np.int64),
                       fixed, known, k.talon_size, worlds, int(stream_key(key, 0, 0, WORLD_STREAM)) & (2**63 - 1))


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
    allowed_l, size_l, owner_l, pool_l, n_pool_l, n_cls_l = [], [], [], [], [], []
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
    n_pool = np.array(n_pool_l, np.int64)
    n_cls = np.array(n_cls_l, np.int64)
    size = np.array(size_l, np.int64).reshape(r_count, k_max)
    owner = np.array(owner_l, np.int64).reshape(r_count, k_max)
    pool = np.array(pool_l, np.int64).reshape(r_count, c_max)
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
                      talon_size, actions, suits, n_actions, seat, totals, in_match)


def search_view(p: NDArray[np.int64], kinds: NDArray[np.int64], weights: NDArray[np.float64], vs: ViewSearch,
                objective: int, keys: NDArray[np.int64], worlds: int, budget: int, min_worlds: int,
                tolerance: float = 0.0, z: float = 2.0, specialise: bool | None = None
                ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """(scores (R, A), rollouts played (R,)) of every row of ``vs``: all rollouts of all rows in one compiled
    call (:func:`search_rows`).  ``specialise``: the rows on the kernel compiled for the rules
    (:func:`rows_kernel`; the same scores)."""
    rows = rows_kernel(p, kinds, len(vs.me), specialise)
    scores, _used, _turns, rolled = rows(kinds, weights, vs.st0, vs.m0, vs.ring0, vs.fits, vs.n_pool, vs.n_cls,
                                         vs.size, vs.owner, vs.pool, vs.fixed, vs.talon_known, vs.n_known,
                                         vs.talon_size, vs.actions, vs.suits, vs.n_actions, vs.me, objective, keys,
                                         worlds, budget, min_worlds, vs.totals, vs.in_match, float(tolerance),
                                         float(z))
    return scores, rolled
