"""``pimc``: determinized Monte Carlo search (perfect-information Monte Carlo).

At a decision with more than one action it samples up to ``worlds`` hidden
states consistent with what the player knows (own hand, hand sizes, every card
seen, inferred voids, the talon's order when the rules make it known), plays
every legal action in every world — a wild once per suit it can name — and
finishes each deal with the ``rollout`` policy in every seat, all in one call
of the compiled search (:mod:`analyzer.kernel.search`: the exact sampler,
the action applied with the kernel's own phase functions, the kernel's
``run_deal``).  Every action of a world rolls out on the same random stream
(common random numbers), so the comparison between actions is paired.  The
action with the best mean outcome is played (ties: the first in legal order).

Budget: worlds are searched one after another until the rollouts have played
``budget`` turns (at least 32 worlds, at most ``worlds``), so a short czech
deal gets about a thousand worlds and a long svinya deal a few hundred, at a
few milliseconds per decision; ``budget=0`` searches every world.

Adaptive search (``tolerance``, ``z``; analyzer.kernel.search.prune): from
the 32nd world on, an action whose paired difference to the leader has an
upper bound (mean + ``z`` standard errors) below ``tolerance`` is dropped: it
cannot be better by that much, so it stops costing rollouts; the decision ends
when one action is left.  A clear decision, or one between actions that score
alike in every world, ends after 32 worlds; only close calls spend the budget
(on the actions still in them).  Measured (czech 2p, 4,000 duplicate decks
against ``tolerance=0``, the full search): -0.20 pp [-1.48, +1.08] of win
rate, not distinguishable; rollout turns a decision 0.41x (czech 2p), 0.44x
(czech 4p), 0.59x (svinya 2p) of the full search's.

Objectives: ``loser`` (avoid being the дурак; the player's points break
ties between equally safe actions), ``win`` (go out first / win the deal),
``points`` (fewest points in hand at the end), ``both`` (+1 for winning, -1
for being the дурак: the two ends of a deal of more than two), and ``auto``
(the default): ``loser`` at two players, where winning and losing are one
outcome, ``both`` at more.  In czech 4p, seated in every position against
three ``weighted`` (300 duplicate decks), ``both`` won 27.3% against
``loser``'s 25.3% (+2.1 ± 1.8 pp paired) at nearly the same дурак rate
(22.3% against 21.8%), where ``win`` alone bought +2.8 pp of wins with +5.6
pp of дурак.
In a match (the view carries the totals), a rollout whose deal ends the
match is scored by the match's outcome instead (G11; CZ7's Jack rule acts
there), so the search knows that a Jack kept into the last deal loses.

Perfect memory needs the public history of the deal.  On the fast path
(``choose_batch``, the kernel logs the history for strategies that
declare ``uses_history = True``) every deal of the batch where pimc must choose
is searched in ONE compiled call (:func:`analyzer.kernel.search.search_rows`):
each row's knowledge read off its :class:`~analyzer.core.contract.BatchHistory`
(slot masks, known cards, the talon's mask or order), its worlds drawn by the
compiled sampler on its own key, its rollouts as one search of it plays them —
so a row gets exactly the scores ``choose_known`` gives the same decision with
the same key (tested move for move).  The engine's table runner
(:func:`analyzer.knowledge.table.play_observed`) asks ``choose_known`` with the
observer's :class:`Knowledge`.  The plain ``choose`` (the simulator's simple
path, the rules engine's ``play_deal``: durak replay's fault scenarios) reads
the same fields off :class:`~analyzer.core.contract.History` and searches its
decision as a one-row batch through ``choose_batch`` (:func:`one_row_view`): one
search, so a decision's key gives the same action on every path (tested move
for move).  A view without the history (a deal that does not record) is
refused with a one-line message rather than played blind.
"""

from __future__ import annotations

import time

import numpy as np

from analyzer.core.cards import DRAW, TAKE, rank_of
from analyzer.core.contract import EVENT_KINDS, Action, BatchHistory, BatchView, DecisionView, StrategyError
from analyzer.core.public import NO_CARD, mask, pack_events, turn_now
from analyzer.core.registry import Param, available, check_params, get_strategy, register
from analyzer.engine.deal import Deal
from analyzer.kernel.lineup import compile_lineup, policy_code
from analyzer.kernel.params import rule_params
from analyzer.kernel.positions import encode_deal
from analyzer.kernel.search import OBJECTIVE_CODES, search_scores
from analyzer.knowledge.observer import Knowledge
from analyzer.knowledge.search import ViewSearch, search_view, view_candidates, view_search, world_arrays

OBJECTIVES = ("auto", "loser", "win", "points", "both")
#: worlds searched at every decision whatever the budget
MIN_WORLDS = 32
#: the adaptive search's default (analyzer.kernel.search.prune): a decision's search ends once no other action
#: can beat the leader by this much of the objective or more (half a point of дурак probability)
TOLERANCE = 0.005
#: ... with this many standard errors of the paired difference
Z = 2.5
#: the largest rollout budget in turns the searches take (the compiled search counts turns in int64; a trillion
#: turns is years of search)
MAX_BUDGET = 10**12
#: the rollout budget as both families check it
BUDGET = Param(True, 0, MAX_BUDGET, " of rollout turns (0 = no budget)")


def compiled_rollout(spec: str) -> object:
    """The rollout policy named by ``spec``: a strategy with a compiled form (the rollouts run in the kernel),
    else ValueError naming the parameter and the strategies that have one."""
    rollout = get_strategy(spec)
    if policy_code(rollout) is None:
        names = [n for n in available() if policy_code(_built(n)) is not None]
        raise ValueError(f"rollout must name a strategy with a compiled form ({', '.join(names)}, with parameters), "
                         f"not {spec!r}")
    return rollout


def _built(name: str) -> object:
    try:
        return get_strategy(name)
    except ValueError:  # a broken plugin's entry point: no compiled form
        return None


class BatchSearch:
    """What the two search families share (pimc, ismcts): the objective, the rollout line-up compiled once per
    rule set, one key a searched decision from the strategy's own rng, ``choose`` as a one-row batch, and
    ``choose_batch``: every decision of a batch with more than one candidate searched in one compiled call
    (:meth:`_search`, the family's own), the best-scoring candidate played (ties: the first in legal order)."""

    #: the family's name in its error messages (an instance's ``name`` may be its whole spec)
    family = "search"
    #: the objectives the family scores (ismcts has no ``points``)
    objectives: tuple[str, ...] = OBJECTIVES
    objective: str
    rollout: object
    _compiled: dict[object, tuple[np.ndarray, np.ndarray, np.ndarray]]
    decisions: int
    rollouts: int
    seconds: float

    def __init__(self, *, rollout: str, objective: str) -> None:
        if objective not in self.objectives:
            raise ValueError(f"objective must be one of {', '.join(self.objectives)}, not {objective!r}")
        self.objective = objective
        self.rollout_spec = rollout
        if not isinstance(rollout, str):
            raise ValueError(f"rollout must name a strategy, not {rollout!r}")
        self.rollout = compiled_rollout(rollout)
        self._compiled = {}
        self.decisions = 0  # searched decisions, the rollouts they played and the CPU seconds they took
        self.rollouts = 0
        self.seconds = 0.0

    def objective_for(self, players: int) -> str:
        """``auto``: ``loser`` at two players (there it is ``win``'s mirror), ``both`` at more (measured: czech 4p)."""
        if self.objective != "auto":
            return self.objective
        return "loser" if players == 2 else "both"

    def choose(self, view: DecisionView, rng: np.random.Generator) -> Action:
        """One decision (the simple path, the rules engine's ``play_deal``): searched as a one-row batch by
        :meth:`choose_batch` itself, so a decision's key gives the action the fast path gives its row."""
        if view.history is None:
            raise StrategyError(f"{self.family} needs the deal's public history (perfect memory): its views carry it "
                                "when the simulator or the engine records it (uses_history = True)")
        acts, suits = self.choose_batch(one_row_view(view), rng)
        return int(acts[0]), None if suits[0] < 0 else int(suits[0])

    def rollout_for(self, rules: object) -> object:
        """The rollout policy under ``rules`` (``rollout``'s; a family may pick one by the rules)."""
        return self.rollout

    def _compile(self, rules: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        compiled = self._compiled.get(rules)
        if compiled is None:
            kinds, weights = compile_lineup([self.rollout_for(rules)] * rules.players)  # type: ignore[attr-defined]
            compiled = self._compiled[rules] = (rule_params(rules), kinds, weights)  # type: ignore[arg-type]
        return compiled

    @staticmethod
    def _keys(rng: np.random.Generator, count: int) -> np.ndarray:
        """Each searched decision's key (its worlds' and rollouts' streams), from the strategy's own rng."""
        return rng.integers(2**62, size=count)

    def _search(self, p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, vs: ViewSearch, objective: int,
                keys: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """(N, A) scores of the searched rows' candidates (higher is better) and the rollouts played."""
        raise NotImplementedError

    def choose_batch(self, view: BatchView, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Every decision of the batch with more than one candidate searched in one compiled call."""
        options = view_candidates(view)
        acts = np.array([o[0][0] for o in options], np.int16)
        suits = np.array([o[0][1] for o in options], np.int8)
        rows = np.array([i for i, o in enumerate(options) if len(o) > 1], np.int64)
        if not len(rows):
            return acts, suits
        t0 = time.process_time()
        rules = view.rules
        p, kinds, weights = self._compile(rules)
        vs = view_search(view, rows, [options[i] for i in rows.tolist()])
        keys = self._keys(rng, len(rows)).astype(np.int64)
        scores, played = self._search(p, kinds, weights, vs, OBJECTIVE_CODES[self.objective_for(rules.players)],
                                      keys, rng)
        masked = np.where(np.arange(scores.shape[1])[None, :] < vs.n_actions[:, None], scores, -np.inf)
        best = np.argmax(masked, axis=1)  # ties: the first in legal order
        acts[rows] = vs.actions[np.arange(len(rows)), best]
        suits[rows] = vs.suits[np.arange(len(rows)), best]
        self.decisions += len(rows)
        self.rollouts += played
        self.seconds += time.process_time() - t0
        return acts, suits


@register("pimc")
class Pimc(BatchSearch):
    """Determinized Monte Carlo search with rollouts on the compiled kernel (needs the public history)."""

    name = "pimc"
    family = "pimc"
    uses_history = True  # the fast path reads the views' public history (choose_batch)
    description = ("determinized Monte Carlo search: samples up to `worlds` worlds, rolls every action out with `rollout` "
                   "until `budget` rollout turns, picks the best mean `objective`; drops an action that cannot beat the "
                   "leader by `tolerance` (with `z` standard errors) and stops when one is left (tolerance=0: every world)")

    #: the numeric parameters and what the compiled search takes of each (checked here; ``durak tune``'s bounds)
    params = {"worlds": Param(True, 1, 4096), "budget": BUDGET,
              "tolerance": Param(False, 0, 1e9, " (0 = search to the budget)"),
              "z": Param(False, 0, 100, " of standard errors", above=True)}

    def __init__(self, *, worlds: int = 1024, budget: int = 40_000, rollout: str = "weighted",
                 objective: str = "auto", tolerance: float = TOLERANCE, z: float = Z) -> None:
        v = check_params(self.params, {"worlds": worlds, "budget": budget, "tolerance": tolerance, "z": z})
        super().__init__(rollout=rollout, objective=objective)
        self.worlds, self.budget, self.tolerance, self.z = v["worlds"], v["budget"], v["tolerance"], v["z"]

    @staticmethod
    def _key(rng: np.random.Generator) -> int:
        """A searched decision's key on the table runner (one draw of the strategy's own rng)."""
        return int(rng.integers(2**62))

    def _search(self, p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, vs: ViewSearch, objective: int,
                keys: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """Every candidate of every searched row rolled out in every world: mean outcomes, rollouts played."""
        scores, rolled = search_view(p, kinds, weights, vs, objective, keys, self.worlds, self.budget,
                                     MIN_WORLDS, self.tolerance, self.z)
        return scores, int(rolled.sum())

    # ----------------------------------------------------------------- search
    def candidates(self, view: DecisionView, table: Deal) -> list[Action]:
        """Every legal action, a wild once per suit (the suit it names changes what follows)."""
        out: list[Action] = []
        for a in view.legal:
            wild = a < DRAW and a != TAKE and rank_of(a) == view.rules.wild_rank
            names_suit = wild and (table.phase == "lead_suit" or len(view.hand) > 1)
            out.extend([(a, s) for s in range(4)] if names_suit else [(a, None)])
        return out

    def choose_known(self, view: DecisionView, knowledge: Knowledge, table: Deal,
                     rng: np.random.Generator) -> Action:
        options = self.candidates(view, table)
        if len(options) == 1:
            return options[0]
        t0 = time.process_time()
        self.decisions += 1
        rules = table.rules
        p, kinds, weights = self._compile(rules)
        key = self._key(rng)  # this decision's streams: its worlds, and rollouts shared by every action
        hands, talons = world_arrays(knowledge, self.worlds, key)
        pos = encode_deal(table)
        actions = np.array([a for a, _ in options], np.int64)
        suits = np.array([-1 if s is None else s for _, s in options], np.int64)
        totals = None
        if view.scores is not None and rules.target is not None:  # a match: scores are by seat offset
            n = rules.players
            totals = np.array([view.scores[(s - table.current) % n] for s in range(n)], np.int64)
        score, _used, _turns, rolled = search_scores(p, kinds, weights, pos.st[0], pos.m[0], pos.ring[0], hands, talons,
                                            knowledge.talon_size, actions, suits, table.current,
                                            OBJECTIVE_CODES[self.objective_for(rules.players)], key, self.budget,
                                            MIN_WORLDS, totals, self.tolerance, self.z)
        self.rollouts += rolled
        self.seconds += time.process_time() - t0
        return options[int(np.argmax(score))]


def one_row_view(view: DecisionView) -> BatchView:
    """The :class:`BatchView` of one decision of the simple path, its :class:`BatchHistory` read off the
    view's :class:`~analyzer.core.contract.History` (the fields the search reads: pile, known cards, hidden
    pool, a talon of known order, the event log, each opponent's slots, what a talon card may be): the row
    the batch simulator shows for the same decision."""
    h = view.history
    assert h is not None
    rules = view.rules
    n, d = rules.players, rules.deck_size
    pile = np.full((1, d), -1, np.int8)
    pile[0, :len(h.pile)] = h.pile
    talon = np.full((1, d), -1, np.int8)
    if h.talon is not None:
        talon[0, :len(h.talon)] = h.talon
    ev = list(h.events)
    events = np.full((1, max(len(ev), 1)), -1, np.int64)
    if ev:
        events[0, :len(ev)] = pack_events([e.turn for e in ev], [e.seat for e in ev],
                                          [EVENT_KINDS.index(e.kind) for e in ev],
                                          [NO_CARD if e.card is None else e.card for e in ev],
                                          [-1 if e.suit is None else e.suit for e in ev])
    slots = np.zeros((1, n, d), np.uint64)
    for k, seat_slots in enumerate(h.slots):
        slots[0, k, :len(seat_slots)] = [mask(m) for m in seat_slots]
    hist = BatchHistory(
        pile=pile, pile_size=np.array([len(h.pile)], np.int16), seen=np.array([mask(h.seen)], np.uint64),
        known=np.array([[mask(k) for k in h.known]], np.uint64), hidden=np.array([mask(h.hidden)], np.uint64),
        talon=talon, events=events, n_events=np.array([len(ev)], np.int32),
        turn=turn_now(events[0, max(len(ev) - 1, 0)], len(ev), 0, n)[None],
        turnovers=np.array([sum(e.kind == "turn_over" for e in ev)], np.int32), slots=slots,
        talon_may=np.array([mask(h.talon_may)], np.uint64))
    u64 = np.uint64
    return BatchView(
        rules, np.array([view.seat], np.int8), np.array([mask(view.hand)], u64),
        np.array([mask(view.legal_cards)], u64), np.array([view.can_draw]), np.array([view.can_take]),
        np.array([-1 if view.top is None else view.top], np.int8),
        np.array([-1 if view.active_suit is None else view.active_suit], np.int8),
        np.array([view.pending_seven], np.int16), np.array([view.hand_sizes], np.int16),
        np.array([view.talon_size], np.int16), np.array([mask(view.played)], u64),
        None if view.scores is None else np.array([view.scores], np.int32), hist)
