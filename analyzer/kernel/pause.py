"""Python strategies on the compiled kernel, paused at their decisions.

A line-up with a user's Python strategy (or any strategy without a compiled
form) plays on the kernel: the kernel deals, plays forced moves, the compiled
strategies' moves, penalties, refills and scoring itself, and stops a deal
only at a *real* decision of a Python seat (analyzer.kernel.deal.PYTHON).

A batch of B deals lives in slot arrays (one st/m/ring row per slot).  One
call of :func:`advance_kernel` carries out the answers to the previous call's
pauses, then plays every slot on until its deal ends (its results are stored
and the slot takes the next deal of the chunk) or it reaches a Python seat's
real decision: the kernel writes that decision's view fields
(analyzer.kernel.views) and goes on with the next slot.  Python then asks each
Python strategy once for all its paused decisions, through the numpy
simulator's own calls and checks (analyzer.core.calls: the same BatchView,
``choose_batch`` or the simple path's ``choose`` per decision, the same
answer types, the same legality check and messages), and calls the kernel
again.

Seeds are analyzer.kernel.serve's: deal ``j`` of a chunk gets the ``j``-th
deck of the chunk's deck generator and the play stream ``deal_key(base, j)``,
and the strategies get the chunk's play generator, so a line-up of compiled
strategies' Python forms gives the compiled line-up's results deal by deal.

Matches (:func:`advance_matches`) play each slot's match deal after deal with
the decks, play streams and rotation of the kernel's own matches
(analyzer.kernel.matches); their pauses also carry the match scores.  A fault
is played again with the faulty deal traced (:func:`analyzer.kernel.deal.run_deal` given ``moves``): its
scenario holds the kernel's own moves, compiled strategies' included, up to
the faulty decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from analyzer.core.calls import StrategyCalls
from analyzer.core.cards import DRAW, TAKE, action_token, suit_of
from analyzer.core.cards import deck as deck_cards
from analyzer.core.contract import BatchStrategy
from analyzer.core.faults import FaultContext, SimulationError, StrategyFault, fault_dir
from analyzer.core.outcomes import END_CAPPED, DealResults, MatchResults
from analyzer.core.public import reads_history
from analyzer.core.rules import RuleSet, private_copy
from analyzer.core.streams import deal_key as stream_deal_key
from analyzer.engine.faults import write_fault_scenario, write_trace_scenario
from analyzer.engine.match import MAX_DEALS, match_outcome
from analyzer.kernel import events as E
from analyzer.kernel import params as P
from analyzer.kernel.bitops import ZERO, bit, popcount, wrap
from analyzer.kernel.deal import (
    DRAIN,
    GOING,
    PAUSED,
    PYTHON,
    conserved,
    count_dealt,
    record,
    resume,
    run_deal,
    start_from_deck,
    store_deal,
)
from analyzer.kernel.driver import WINDOW, Broken, empty_results, result_arrays, seat_lineup, seed_word
from analyzer.kernel.history import EventReader, history
from analyzer.kernel.jit import Specialised, body, helper, inner, outer
from analyzer.kernel.lineup import compile_lineup, policy_code
from analyzer.kernel.matches import match_deal
from analyzer.kernel.npdecks import next_deck, pcg_state, set_pcg_state
from analyzer.kernel.rng import deal_key
from analyzer.kernel.state import CUR, END, HANDS, LEAD, NI, PHASE, PLAYED, RING, RNG
from analyzer.kernel.views import Paused, SimplePath, batch_view, write_view

#: deals played side by side: more slots make fewer strategy calls per deal, fewer keep the slots' states in the
#: caches (czech 4p random's Python form: 8192 as fast as 16384 and 32768, 2048 and fewer slower)
SLOTS = 8192
_IDLE = -4  # a slot without a deal (run_deal's codes are seats, -1 and GOING / PAUSED)


@inner
def answer_slot(st: np.ndarray, m: np.ndarray, ring: np.ndarray, b: int, wait: np.ndarray, job: np.ndarray,
                trace: int, act: np.ndarray, suit: np.ndarray, a: int, p: np.ndarray, pts: np.ndarray,
                held: np.ndarray, moves: np.ndarray, nm: np.ndarray) -> tuple[int, int, bool, int]:
    """Slot ``b`` at the start of a call: its pause answered with answer ``a`` (as :func:`run_deal` returns if
    the deal ends there, else GOING), a deal going on, or _IDLE; and the answers read so far."""
    if wait[b]:
        wait[b] = False
        if job[b] == trace:
            record(moves, nm, st[PHASE], act[a], suit[a])
        win, lose, by_wild = resume(st, m, ring, st[PHASE], act[a], suit[a], p, pts, held)
        return win, lose, by_wild, a + 1
    return (GOING if job[b] >= 0 else _IDLE), -1, False, a


@inner
def play_slot(st: np.ndarray, m: np.ndarray, ring: np.ndarray, traced: bool, kinds: np.ndarray, weights: np.ndarray,
              p: np.ndarray, pts: np.ndarray, held: np.ndarray, moves: np.ndarray, nm: np.ndarray
              ) -> tuple[int, int, bool]:
    """:func:`run_deal` on a slot, recording its moves if it is the traced deal."""
    if traced:
        return run_deal(st, m, ring, kinds, weights, p, pts, held, moves, nm)
    return run_deal(st, m, ring, kinds, weights, p, pts, held)


@inner
def advance_slot(b: int, k: int, a: int, p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, seed: np.uint64,
                 decks: np.ndarray, pcg: np.ndarray, base: np.ndarray, hi: int, nxt: np.ndarray, slots: tuple,
                 act: np.ndarray, suit: np.ndarray, out: tuple, wilds_dealt: np.ndarray, check: bool,
                 broken: np.ndarray, deck_mask: np.uint64, view: tuple, trace: int, moves: np.ndarray, nm: np.ndarray,
                 pts: np.ndarray, held: np.ndarray, dealt: np.ndarray) -> tuple[int, int]:
    """Slot ``b`` in one call of :func:`advance_deals`: its pause answered (answer row ``a``), then played on
    until it pauses again (view row ``k``) or no deal is left.  Returns the next view and answer rows.

    Compiled without reference counting (analyzer.kernel.jit.inner): the slot's rows are taken here, so
    taking them costs no counter updates, a twentieth of the kernel's time."""
    sts, ms, rings, job, wait, slot_deck = slots
    n, d = p[P.PLAYERS], p[P.DECK]
    st, m, ring = sts[b], ms[b], rings[b]
    win, lose, by_wild, a = answer_slot(st, m, ring, b, wait, job, trace, act, suit, a, p, pts, held, moves, nm)
    while True:
        if win == GOING:
            win, lose, by_wild = play_slot(st, m, ring, job[b] == trace, kinds, weights, p, pts, held, moves, nm)
        if win == PAUSED:
            wait[b] = True
            write_view(k, b, job[b], st, m, p, view)
            return k + 1, a
        if win == DRAIN:  # its public-event log is read before it goes on (the next call)
            return k, a
        if job[b] >= 0:  # the deal is over
            j = job[b]
            store_deal(j, st, m, win, lose, by_wild, pts, held, n, out)
            if check and not conserved(st, m, ring, deck_mask, p):
                broken[j] = True
            job[b] = -1
        if nxt[0] >= hi:
            return k, a
        j = nxt[0]
        nxt[0] = j + 1
        job[b] = j
        if j == trace:
            nm[0] = 0
        deck = slot_deck[b]
        if decks.shape[0] > 0:
            for c in range(d):
                deck[c] = decks[j, c]
        else:
            next_deck(pcg, base, deck)
        m[RNG] = deal_key(seed, j, 0)
        start_from_deck(st, m, ring, deck, p)
        if p[P.LOG]:
            E.log_start(m, p, m[PLAYED])
        count_dealt(m, p, dealt)
        for q in range(n):
            wilds_dealt[j, q] = dealt[wrap(q + 1, n)]
        win = GOING


@body
def advance_deals(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, seed: np.uint64, decks: np.ndarray,
                  pcg: np.ndarray, base: np.ndarray, hi: int, nxt: np.ndarray, slots: tuple, act: np.ndarray,
                  suit: np.ndarray, out: tuple, wilds_dealt: np.ndarray, check: bool, broken: np.ndarray,
                  deck_mask: np.uint64, view: tuple, trace: int, moves: np.ndarray, nm: np.ndarray) -> int:
    """Answer the previous call's pauses (``act``/``suit`` by pause, in slot order) and play every slot on.

    A slot plays until its deal waits for a Python strategy (the decision goes to row ``k`` of ``view``)
    or ends (results to row ``job`` of ``out``); a free slot takes deal ``nxt[0]`` while it is below
    ``hi``, whose deck is ``decks[nxt[0]]`` if decks are given, else the next deck numpy's shuffled_decks
    draws from the PCG64 state ``pcg`` (deals are taken in order, so deal ``j`` gets the ``j``-th deck, as on
    the compiled kernel alone, and no window of decks is stored).  Deal ``trace`` (-1: none) records its decisions
    in ``moves`` (:func:`analyzer.kernel.deal.run_deal` given ``moves``; ``nm[0]`` of them).  Returns the
    number of pauses written.
    """
    n = p[P.PLAYERS]
    pts = np.zeros(n, np.int64)
    held = np.zeros(n, np.bool_)
    dealt = np.zeros(n, np.int64)
    k = 0  # pauses written
    a = 0  # answers read
    job = slots[3]
    for b in range(job.shape[0]):
        if job[b] < 0 and nxt[0] >= hi:  # an idle slot with no deal left to take (a free slot never waits)
            continue
        k, a = advance_slot(b, k, a, p, kinds, weights, seed, decks, pcg, base, hi, nxt, slots, act, suit, out,
                            wilds_dealt, check, broken, deck_mask, view, trace, moves, nm, pts, held, dealt)
    return k


@outer
def advance_kernel(p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, seed: np.uint64, decks: np.ndarray,
                   pcg: np.ndarray, base: np.ndarray, hi: int, nxt: np.ndarray, slots: tuple, act: np.ndarray,
                   suit: np.ndarray, out: tuple, wilds_dealt: np.ndarray, check: bool, broken: np.ndarray,
                   deck_mask: np.uint64, view: tuple, trace: int, moves: np.ndarray, nm: np.ndarray) -> int:
    """:func:`advance_deals` for any rules ``p``."""
    return advance_deals(p, kinds, weights, seed, decks, pcg, base, hi, nxt, slots, act, suit, out, wilds_dealt,
                         check, broken, deck_mask, view, trace, moves, nm)


def _advance_for(rules: np.ndarray) -> Any:
    """:func:`advance_deals` compiled for the rules ``rules`` (a constant): advance_kernel's arguments but ``p``."""

    def advance_kernel_for(kinds: np.ndarray, weights: np.ndarray, seed: np.uint64, decks: np.ndarray,
                           pcg: np.ndarray, base: np.ndarray, hi: int, nxt: np.ndarray, slots: tuple,
                           act: np.ndarray, suit: np.ndarray, out: tuple, wilds_dealt: np.ndarray, check: bool,
                           broken: np.ndarray, deck_mask: np.uint64, view: tuple, trace: int, moves: np.ndarray,
                           nm: np.ndarray) -> int:
        return advance_deals(rules, kinds, weights, seed, decks, pcg, base, hi, nxt, slots, act, suit, out,
                             wilds_dealt, check, broken, deck_mask, view, trace, moves, nm)

    return outer(advance_kernel_for)


#: advance_kernel compiled per rule set (analyzer.kernel.jit.Specialised; the rules' option tests fold away, a
#: tenth to a fifth of the kernel's time on czech 4p)
ADVANCE = Specialised(_advance_for)


@helper
def start_match_deal(b: int, i: int, p: np.ndarray, kinds_pl: np.ndarray, weights_pl: np.ndarray, seed: np.uint64,
                     base: np.ndarray, decks: np.ndarray, hands: np.ndarray, slots: tuple, deck: np.ndarray,
                     tmp: np.ndarray, dealt: np.ndarray, wilds_dealt: np.ndarray) -> None:
    """Deal ``kd[b]`` of match ``i`` in slot ``b`` from its dealer, as analyzer.kernel.matches.play_matches
    deals it: seats' strategies from the dealer, the deck (given, else its own stream), hands by player if
    ``hands``, the play stream ``deal_key(seed, i, k)``."""
    sts, ms, rings, job, wait, slot_deck, kinds, weights, dealer, kd = slots
    n = p[P.PLAYERS]
    st, m, ring = sts[b], ms[b], rings[b]
    dl, k = dealer[b], kd[b]
    match_deal(kinds_pl, weights_pl, dl, kinds[b], weights[b], decks, i, k, base, seed, i, m, deck, tmp, hands, p)
    for j in range(deck.shape[0]):
        slot_deck[b, j] = deck[j]
    m[RNG] = deal_key(seed, i, k)
    start_from_deck(st, m, ring, deck, p)
    if p[P.LOG]:
        E.log_start(m, p, m[PLAYED])
    count_dealt(m, p, dealt)
    for s in range(n):
        wilds_dealt[i, (dl + s) % n] = dealt[s]


@outer
def advance_matches(p: np.ndarray, kinds_pl: np.ndarray, weights_pl: np.ndarray, seed: np.uint64, hi: int,
                    nxt: np.ndarray, base: np.ndarray, decks: np.ndarray, max_deals: int, slots: tuple,
                    act: np.ndarray, suit: np.ndarray, res: tuple, check: bool, broken: np.ndarray,
                    deck_mask: np.uint64, hands: np.ndarray, view: tuple, scores: np.ndarray, player: np.ndarray,
                    trace: int, moves: np.ndarray, nm: np.ndarray) -> int:
    """:func:`advance_kernel` for matches (G11): a slot plays match ``job`` deal after deal, rotating the deal
    as analyzer.kernel.matches.play_matches does (CZ2, SV2), until a player reaches the target; a pause also
    writes the match totals by seat offset (``scores``) and the deciding ``player``.  Strategies by player.
    Match ``trace`` records the decisions of its current deal in ``moves``.  Returns the number of pauses
    written."""
    sts, ms, rings, job, wait, slot_deck, kinds, weights, dealer, kd = slots
    totals, wild_held, deals, capped, wilds_dealt, cards_left = res
    n = p[P.PLAYERS]
    pts = np.zeros(n, np.int64)
    held = np.zeros(n, np.bool_)
    dealt = np.zeros(n, np.int64)
    deck = np.zeros(base.shape[0], np.int64)
    tmp = np.zeros(n * p[P.HAND], np.int64)
    k = 0
    a = 0
    for b in range(sts.shape[0]):
        st, m, ring = sts[b], ms[b], rings[b]
        win, _lose, _bw, a = answer_slot(st, m, ring, b, wait, job, trace, act, suit, a, p, pts, held, moves, nm)
        while True:
            if win == GOING:
                win, _lose, _bw = play_slot(st, m, ring, job[b] == trace, kinds[b], weights[b], p, pts, held, moves,
                                            nm)
            if win == PAUSED:
                wait[b] = True
                i, dl, cur = job[b], dealer[b], st[CUR]
                write_view(k, b, i, st, m, p, view)
                player[k] = (dl + cur) % n
                for j in range(n):
                    scores[k, j] = totals[i, (dl + cur + j) % n]
                k += 1
                break
            if win == DRAIN:  # its public-event log is read before it goes on (the next call)
                break
            if job[b] >= 0:  # a deal of the match is over
                i, dl = job[b], dealer[b]
                if check and not conserved(st, m, ring, deck_mask, p):
                    broken[i] = True
                kd[b] += 1
                capped[i] += st[END] == END_CAPPED
                top = 0
                for s in range(n):
                    pl = (dl + s) % n
                    totals[i, pl] += pts[s]
                    wild_held[i, pl] = held[s]
                    cards_left[i, pl] = popcount(m[HANDS + s])
                    top = max(top, totals[i, pl])
                if top < p[P.TARGET] and kd[b] < max_deals:
                    if p[P.IS_SVINYA] and win >= 0:  # SV2: the winner of the deal leads the next
                        dealer[b] = ((dl + win) % n - 1) % n
                    else:  # CZ2: the deal passes to the left
                        dealer[b] = (dl + 1) % n
                    start_match_deal(b, i, p, kinds_pl, weights_pl, seed, base, decks, hands, slots, deck, tmp, dealt,
                                     wilds_dealt)
                    if i == trace:  # only the current deal of a traced match is kept
                        nm[0] = 0
                    win = GOING
                    continue
                deals[i] = kd[b]
                job[b] = -1
            if nxt[0] >= hi:
                break
            i = nxt[0]
            nxt[0] = i + 1
            job[b] = i
            dealer[b] = n - 1  # player 0 acts first in deal 1, so player n - 1 deals it
            kd[b] = 0
            start_match_deal(b, i, p, kinds_pl, weights_pl, seed, base, decks, hands, slots, deck, tmp, dealt,
                             wilds_dealt)
            if i == trace:
                nm[0] = 0
            win = GOING
    return k


@helper
def answers_legal(a: np.ndarray, s: np.ndarray, legal: np.ndarray, can_draw: np.ndarray, can_take: np.ndarray,
                  wild_rank: int) -> bool:
    """Whether every answer passes StrategyCalls._check_answers (a legal card naming a suit only if wild, or DRAW /
    TAKE where allowed): one compiled pass, the numpy check then runs only to name a bad answer."""
    for i in range(a.shape[0]):
        x, y = a[i], s[i]
        if 0 <= x < DRAW:
            if (legal[i] >> np.uint64(x)) & np.uint64(1) == 0:
                return False
            if y != -1 and not (x // 4 + 2 == wild_rank and 0 <= y < 4):  # analyzer.core.cards: rank = id // 4 + 2
                return False
        elif not ((x == DRAW and can_draw[i]) or (x == TAKE and can_take[i])) or y != -1:
            return False
    return True


class Answered(NamedTuple):
    """One batch of checked answers of one strategy: the deals (or matches) asked, the strategy's position (in
    matches its player), the actions and suits.  Replaying a run, these tell a strategy that is not
    deterministic (analyzer.kernel.replay)."""

    jobs: NDArray[np.int64]
    strategy: int
    act: NDArray[np.int64]
    suit: NDArray[np.int64]


class Answers(StrategyCalls):
    """The strategy calls and answer checks of analyzer.core.calls over paused decisions.

    Rows are pauses of one kernel call: ``cur``, ``turns`` and ``job`` are the
    paused decisions' seat, turn and deal, which the checks' messages name.
    """

    def __init__(self, rules: RuleSet, strategies: Sequence[object], rng: np.random.Generator, where: FaultContext,
                 paused: Paused, slot_deck: NDArray[np.int8], base: int,
                 match_slots: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
                 public: tuple[EventReader, NDArray[np.int64], NDArray[Any]] | None = None,
                 log: list[Answered] | None = None) -> None:
        self.r = rules
        self.log = log
        self.n = rules.players
        #: matches: each slot's dealer and deal of its match (strategies are by player, views show scores)
        self.match_slots = match_slots
        self.matches = match_slots is not None
        self.strats = list(strategies)
        #: by position, each strategy's own copy of the rules: nothing it does to it reaches the game or another
        self.view_rules = [private_copy(rules) for _ in self.strats]
        self.fast = [bool(isinstance(s, BatchStrategy) and hasattr(s, "choose_batch")) for s in self.strats]
        self.rng = rng
        self.where = where
        self.v = paused
        self.cur, self.turns, self.job = paused.seat, paused.turn, paused.job
        self.slot_deck = slot_deck
        self.rows = np.arange(len(paused.seat))
        self.base = base
        python = [i for i, s in enumerate(self.strats) if policy_code(s) is None]
        first = {id(self.strats[i]): i for i in reversed(python)}
        #: position -> the first position of the same strategy object: one call per object and pause batch
        self.group = np.array([first.get(id(s), -1) for s in self.strats], np.int64)
        self.single = python[0] if len(first) == 1 else None
        #: the public record and the slots' st and ring rows, where a strategy reads the history; who reads it
        self.public = public
        self.reads = [public is not None and getattr(s, "uses_history", False) is True for s in self.strats]
        self.simple_forms = {i: SimplePath(self.view_rules[i], paused, len(slot_deck), self.matches).strategy(s)
                             for i, s in enumerate(self.strats) if not self.fast[i] and not self.reads[i]}

    def _unit_at(self, row: int) -> str:
        return f"{'match' if self.matches else 'deal'} {self.where.first + int(self.job[row])}{self.where.describe()}"

    def answer(self, k: int, act: NDArray[np.int64], suit: NDArray[np.int64]) -> None:
        """Ask the strategies for paused decisions ``0 .. k-1``; checked answers go to ``act``/``suit``."""
        v = self.v
        if self.single is not None:
            groups: list[tuple[int, slice | NDArray[np.int64]]] = [(self.single, slice(0, k))]
        else:
            # deals: position 0 is seat 1 (G2); matches: strategies by player
            who = self.group[v.player[:k] if self.matches else (v.seat[:k].astype(np.int64) - 1) % self.n]
            groups = [(int(g), np.nonzero(who == g)[0]) for g in np.unique(who)]
        for g, rows in groups:
            strat = self.strats[g]
            rr = self.rows[rows]
            try:
                if self.reads[g]:  # the view carries the public history (both paths)
                    a, s = self._call(strat, self.fast[g], self._view_with_history(g, rows), rr)
                elif self.fast[g]:
                    a, s = self._call(strat, True, batch_view(self.view_rules[g], v, rows, self.matches), rr)
                else:  # the simple path: DecisionViews straight from the paused fields
                    a, s = self._call(self.simple_forms[g], True, rows, rr)
                # the check reads the kernel's own fields, not the strategy's copies; numpy's names the bad answer
                legal, can_draw, can_take = v.legal[rows], v.can_draw[rows], v.can_take[rows]
                if not answers_legal(a, s, legal, can_draw, can_take, self.r.wild_rank):
                    self._check_answers(strat, a, s, rr, legal, can_draw, can_take)
            except StrategyFault as fault:
                self._name(fault)
                raise
            act[rows] = a
            suit[rows] = s
            if self.log is not None:
                self.log.append(Answered(self.job[rows].copy(), g, a.copy(), s.copy()))

    def _view_with_history(self, g: int, rows: slice | NDArray[np.int64]) -> Any:
        """Strategy ``g``'s BatchView of pauses ``rows`` with the public history of their deals."""
        assert self.public is not None
        reader, st, ring = self.public
        v = self.v
        slots, seat, hand = v.slot[rows].astype(np.int64), v.seat[rows], v.hand[rows]
        hist = history(reader, slots, seat, hand, st, ring, self.r)
        return batch_view(self.view_rules[g], v, rows, self.matches, history=hist)

    def _name(self, fault: StrategyFault) -> None:
        """The faulty deal, its line-up by seat, deck and stream (what a scenario file replays)."""
        row = fault.row
        slot = int(self.v.slot[row])
        fault.job = int(self.job[row])
        if self.match_slots is None:
            dealer, deal = -1, 0  # seat s plays position s - 1
        else:
            dealer, deal = int(self.match_slots[0][slot]), int(self.match_slots[1][slot])
        fault.seat_strategies = [self.strats[(dealer + s) % self.n] for s in range(self.n)]
        fault.deck = self.slot_deck[slot].tolist()
        random_options = self.r.reshuffle == "shuffle" or self.r.last_card_call  # the rule options that draw at random
        fault.stream_key = stream_deal_key(self.base, fault.job, deal) if random_options else None


def simulate_paused(rules: RuleSet, strategies: Sequence[object], n: int, seed: int, *,
                    play_rng: np.random.Generator, deck_rng: np.random.Generator | None = None,
                    decks: NDArray[np.integer] | None = None, check: bool = False,
                    where: FaultContext | None = None, slots: int = SLOTS, trace: int = -1,
                    specialise: bool | None = None, log: list[Answered] | None = None) -> DealResults:
    """``n`` deals of a line-up (by position) with Python strategies, on the kernel paused at their decisions.

    Deal ``j`` is dealt ``decks[j]`` if given, else the ``j``-th deck ``deck_rng`` draws as numpy's
    ``shuffled_decks`` does; its play stream is ``deal_key(seed, j)``.  Python strategies draw from
    ``play_rng``.  A strategy that raises or answers illegally is a StrategyFault naming the deal
    (``where``); ``check``: every deal must end with every card exactly once, else :class:`Broken`.
    ``trace``: deal ``trace``'s moves are recorded, and a fault in it carries them (:class:`Traced`).
    ``specialise``: as in analyzer.kernel.driver.simulate_deals (:data:`ADVANCE`; the same results).
    ``log``: every batch of answers the Python strategies give is appended to it (:class:`Answered`).
    """
    where = where or FaultContext()
    players, size = rules.players, rules.deck_size
    kinds_pos, weights_pos = compile_lineup(strategies, python=PYTHON)
    if len(kinds_pos) != players:
        raise ValueError(f"{players} players need {players} strategies, not {len(kinds_pos)}")
    kinds, weights = seat_lineup(kinds_pos, weights_pos, players)
    p, base, deck_mask, width, logged = _table(rules, strategies)
    given = None if decks is None else np.ascontiguousarray(decks, dtype=np.int64)
    if given is not None and given.shape != (n, size):
        raise ValueError(f"decks must be ({n}, {size}), not {given.shape}")
    if given is not None:
        dk, pcg = given, np.zeros(6, np.uint64)
    elif deck_rng is not None:  # the kernel draws each deck as a deal starts (deck_rng's state, written back at the end)
        dk, pcg = np.zeros((0, size), np.int64), pcg_state(deck_rng)
    else:
        raise ValueError("simulate_paused needs decks or a deck generator")
    b = max(1, min(slots, n))
    # talon and pile as int8 (the kernel's functions take either): a third of a slot's bytes, a third less time
    state = (np.zeros((b, NI), np.int64), np.zeros((b, width), np.uint64), np.zeros((b, RING), np.int8),
             np.full(b, -1, np.int64), np.zeros(b, np.bool_), np.zeros((b, size), np.int8))
    paused = Paused.allocate(b, players)
    view = paused.arrays()
    act, suit = np.zeros(b, np.int64), np.zeros(b, np.int64)
    out = empty_results(n, players)
    arrays = result_arrays(out)
    broken = np.zeros(n if check else 0, np.bool_)
    reader = EventReader(rules, b) if logged else None
    answers = Answers(rules, strategies, play_rng, where, paused, state[5], seed, public=_public(reader, state),
                      log=log)
    word = seed_word(seed)
    nxt = np.zeros(1, np.int64)
    moves, nm = np.zeros((_trace_room(rules) if trace >= 0 else 0, 3), np.int64), np.zeros(1, np.int64)
    advance = ADVANCE.runner(advance_kernel, p, n, specialise)
    hi = 0
    span = b  # slots from ``span`` on are free and stay so (no deal is left for them)
    while True:
        # deals are handed out in windows of WINDOW, as when the windows' decks were drawn here: slots freed
        # after a window's last deal wait for the next call, which keeps the pauses' order, so the numbers of
        # random Python strategies
        if nxt[0] >= hi and hi < n:
            hi = n if given is not None else min(n, hi + WINDOW)
        k = advance(kinds, weights, word, dk, pcg, base, hi, nxt, state, act, suit, arrays, out.wilds_dealt, check,
                    broken, deck_mask, view, trace, moves, nm)
        if reader is not None:  # every slot's public events, before any strategy is asked
            reader.read(state[1])
        if k:
            _answer(answers, k, act, suit, trace, moves, nm)
            # the tail: half the slots in use are free for good (a public record's rows stay with their slots)
            if nxt[0] >= n and 2 * k <= span and reader is None:
                span = _compact(state, k)
        elif hi >= n and (reader is None or not _parked(state)):
            break  # no deal left, and none stopped for its log to be read
    if given is None and deck_rng is not None:
        set_pcg_state(deck_rng, pcg)  # as shuffled_decks leaves it
    if broken.any():
        raise Broken(int(np.argmax(broken)))
    return out


def _table(rules: RuleSet, strategies: Sequence[object]) -> tuple[NDArray[np.int64], NDArray[np.int64], np.uint64,
                                                                   int, bool]:
    """What a paused line-up plays by: the rule parameters (the public-event log on where a strategy reads the
    history, analyzer.kernel.events), the deck's cards and their mask, a slot's ``m`` row width (the log in its
    tail), and whether the deals log."""
    logged = reads_history(strategies)
    p = P.rule_params(rules)
    if logged:
        p = P.logging_params(p)
    base = np.asarray(deck_cards(rules.deck_size), np.int64)
    deck_mask = ZERO
    for c in base:
        deck_mask |= bit(int(c))
    width = E.log_words(rules.players) if logged else HANDS + rules.players
    return p, base, deck_mask, width, logged


def _public(reader: EventReader | None, state: tuple[NDArray[Any], ...]) -> tuple[EventReader, NDArray[Any],
                                                                                  NDArray[Any]] | None:
    """What :class:`Answers` builds a history from: the reader and the slots' ``st`` and ring rows."""
    return None if reader is None else (reader, state[0], state[2])


def _parked(state: tuple[NDArray[Any], ...]) -> bool:
    """Whether a slot in use stopped without a decision to answer: its log is full (DRAIN), to be read first."""
    return bool(((state[3] >= 0) & ~state[4]).any())


def _compact(state: tuple[NDArray[Any], ...], live: int) -> int:
    """The slots still playing (each waiting at a pause, ``live`` of them) moved to the front of the slot arrays
    ``state`` in their order, the others freed: once no deal is left to take, the tail's few deals are then walked
    side by side in memory instead of scattered over every slot's rows (their states no longer stream from
    memory in order).  The pauses keep their order, so the answers their rows (answer ``a`` goes to the
    ``a``-th waiting slot); a slot's number changes, which only names its deck (``Paused.slot``).  Returns
    ``live``."""
    job, wait = state[3], state[4]
    keep = np.flatnonzero(job >= 0)
    if len(keep) != live or not wait[keep].all():
        raise AssertionError("pause kernel: a slot in use is not waiting at a pause")
    for a in state:
        a[:live] = a[keep]
    job[live:] = -1
    wait[live:] = False
    return live


def simulate_paused_matches(rules: RuleSet, strategies: Sequence[object], n: int, seed: int, *,
                            play_rng: np.random.Generator, decks: NDArray[np.integer] | None = None,
                            check: bool = False, hands: Sequence[int] | None = None,
                            where: FaultContext | None = None, slots: int = SLOTS, trace: int = -1,
                            log: list[Answered] | None = None) -> MatchResults:
    """``n`` matches to ``rules.target`` (G11) with Python strategies (by player), on the kernel paused at their
    decisions: the decks, play streams and rotation of analyzer.kernel.matches.simulate_matches (so a line-up
    of compiled strategies' Python forms plays its matches), ``decks`` (n, K, D) and ``hands`` as there.
    ``trace``: a fault in match ``trace`` carries the moves of its deal (:class:`Traced`); ``log`` as in
    :func:`simulate_paused`."""
    if rules.target is None:
        raise ValueError(f"{rules.variant} has no match target; set the rule target=POINTS")
    where = where or FaultContext()
    players, size = rules.players, rules.deck_size
    kinds, weights = compile_lineup(strategies, python=PYTHON)
    if len(kinds) != players:
        raise ValueError(f"{players} players need {players} strategies, not {len(kinds)}")
    p, base, deck_mask, width, logged = _table(rules, strategies)
    max_deals = MAX_DEALS
    if decks is None:
        dk = np.zeros((0, 0, 0), np.int64)
    else:
        dk = np.ascontiguousarray(decks, dtype=np.int64)
        if dk.ndim != 3 or dk.shape[0] != n or dk.shape[2] != size:
            raise ValueError(f"decks must be ({n}, K, {size}), not {dk.shape}")
        max_deals = min(MAX_DEALS, dk.shape[1])
    hk = np.zeros(0, np.int64) if hands is None else np.asarray(hands, dtype=np.int64)
    if hands is not None and (hk.shape != (players,) or sorted(hk.tolist()) != list(range(players))):
        raise ValueError(f"hands must be a permutation of 0..{players - 1}, got {list(hands)}")
    b = max(1, min(slots, n))
    state = (np.zeros((b, NI), np.int64), np.zeros((b, width), np.uint64), np.zeros((b, RING), np.int8),
             np.full(b, -1, np.int64), np.zeros(b, np.bool_), np.zeros((b, size), np.int8),
             np.zeros((b, players), np.int64), np.zeros((b, players, weights.shape[1]), np.float64),
             np.zeros(b, np.int64), np.zeros(b, np.int64))
    paused = Paused.allocate(b, players)
    view = paused.arrays()
    act, suit = np.zeros(b, np.int64), np.zeros(b, np.int64)
    totals, wild = np.zeros((n, players), np.int32), np.zeros((n, players), np.bool_)
    deals, capped, dealt = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros((n, players), np.int8)
    left = np.zeros((n, players), np.int8)
    broken = np.zeros(n if check else 0, np.bool_)
    reader = EventReader(rules, b) if logged else None
    answers = Answers(rules, strategies, play_rng, where, paused, state[5], seed, (state[8], state[9]),
                      public=_public(reader, state), log=log)
    word = seed_word(seed)
    nxt = np.zeros(1, np.int64)
    moves, nm = np.zeros((_trace_room(rules) if trace >= 0 else 0, 3), np.int64), np.zeros(1, np.int64)
    while True:
        k = advance_matches(p, kinds, weights, word, n, nxt, base, dk, max_deals, state, act, suit,
                            (totals, wild, deals, capped, dealt, left), check, broken, deck_mask, hk, view, paused.scores,
                            paused.player, trace, moves, nm)
        if reader is not None:  # every slot's public events, before any strategy is asked
            reader.read(state[1])
        if not k:
            if reader is not None and _parked(state):
                continue  # a match stopped for its log to be read
            break
        _answer(answers, k, act, suit, trace, moves, nm)
    if broken.any():
        raise Broken(int(np.argmax(broken)))
    win, loss, by_wild = match_outcome(rules, totals, wild)
    return MatchResults(totals=totals, win_share=win.astype(np.float32), loss_share=loss.astype(np.float32),
                        loser_by_wild=by_wild, wild_held=wild, deals=deals, capped_deals=capped, wilds_dealt=dealt,
                        cards_left=left)


def _answer(answers: Answers, k: int, act: NDArray[np.int64], suit: NDArray[np.int64], trace: int,
            moves: NDArray[np.int64], nm: NDArray[np.int64]) -> None:
    """``answers.answer``; a fault in the traced deal (or match) becomes :class:`Traced` with its moves."""
    try:
        answers.answer(k, act, suit)
    except StrategyFault as fault:
        if fault.job == trace and nm[0] < len(moves):
            raise Traced(fault, moves[:nm[0]]) from None
        raise


def _trace_room(rules: RuleSet) -> int:
    """Decisions a traced deal may record: a few per turn to the turn cap (G9)."""
    return 4 * (rules.turn_cap or 2000) + 64


class Traced(Exception):
    """A fault in a traced deal, with the deal's decisions up to the faulty one (phase, action, suit)."""

    def __init__(self, fault: StrategyFault, moves: NDArray[np.int64]) -> None:
        super().__init__(str(fault))
        self.fault = fault
        self.moves = moves.copy()

    def tokens(self) -> tuple[list[str], int | None]:
        """The replay tokens of the moves and the suit named for a Jack lead (PR2), as a scenario file holds
        them (analyzer.engine.replay)."""
        tokens: list[str] = []
        lead_suit = None
        for phase, action, suit in self.moves.tolist():
            if phase == LEAD:
                lead_suit = suit if suit >= 0 else suit_of(action)
            else:
                tokens.append(action_token(action, None if suit < 0 else suit))
        return tokens, lead_suit


def fault_error(fault: StrategyFault, rules: RuleSet, where: FaultContext, traced: Traced | None = None,
                matches: bool = False) -> SimulationError:
    """The one-line error of a strategy fault, with a scenario file of the faulty deal: the moves the kernel
    played up to the faulty decision if ``traced`` (the same fault met again in a run tracing that deal),
    else the deal played again by the rules engine from its deck and stream (analyzer.engine.faults), which
    cannot follow the compiled strategies' random streams."""
    unit = "match" if matches else "deal"
    label = f"{rules.variant}-{where.file_part()}{unit}{where.first + fault.job}"
    if traced is not None:
        tokens, lead_suit = traced.tokens()
        try:
            path = write_trace_scenario(rules, fault.seat_strategies, fault.deck, tokens, lead_suit, fault_dir(),
                                        label, fault.stream_key, str(fault))
        except OSError as exc:
            return SimulationError(f"{fault}; could not write the fault scenario: {exc}")
        return SimulationError(f"{fault}; scenario {path} replays to the faulty decision: durak replay {path}")
    try:
        path, met = write_fault_scenario(rules, fault.seat_strategies, fault.deck, fault_dir(), label,
                                         fault.stream_key, str(fault))
    except OSError as exc:
        return SimulationError(f"{fault}; could not write the fault scenario: {exc}")
    how = "replays to the faulty decision" if met else "holds the deal (the strategy did not fault the same way again)"
    return SimulationError(f"{fault}; scenario {path} {how}: durak replay {path}")
