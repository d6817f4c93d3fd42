"""``expert``: pimc on worlds weighed by an opponent model, with an exact endgame: the strongest built-in player.

``expert`` searches as ``pimc`` does (its parameters, same defaults: the
search family that measured strongest in both two-player games) with two
additions.  ``rollout=tuned`` rolls out with the tuned preset of the rules'
variant and player count (``weighted?preset=czech-2p`` in czech 2p, default
``weighted`` where none was tuned).  With ``tolerance=0`` as well it scores
+10.2 pp [+9.1, +11.3] against the tuned preset in czech 2p (10,000 unseen
decks; the defaults +9.5 [+8.4, +10.6] on the same decks), but loses to the
defaults head to head (-2.1 pp [-4.0, -0.1], 2,000 decks): its rollouts model
the opponent as the preset, which pays against the preset and costs against
anyone else, so it is not the default (docs/perfect_play.md).

Inference (``infer``, ``pool``): at two players the worlds pimc searches are
not drawn uniformly but resampled from ``pool`` uniform ones by the
likelihood of the opponent's observed plays under a generic soft model, a
softmax at inverse temperature ``infer`` over default ``weighted``'s scores
(:mod:`strategies.inference`; not a tuned preset).  The uniform sampler only
knows what the opponent could not hold; the model also reads which card it
chose and which suit it named.  ``infer=0`` searches uniform worlds (pimc's);
``back=1`` also reads the plays before the opponent's last kept draw (no
measurable gain, so off by default).
In czech 2p against the tuned preset it moved the margin from +7.0 to +9.2 pp
on the decks ``infer`` was chosen on, and by +1.8 pp [+0.8, +2.8] paired to
+9.5 [+8.4, +10.6] on 10,000 other decks; docs/perfect_play.md has the
measurements (prague 2p: about +29 pp, against plain pimc: even).

Exact endgame (:mod:`analyzer.kernel.endgame`): at a two-player decision
where nothing is hidden any more -- the talon empty (the unseen cards are then
exactly the opponent's hand, and the pile is turned over in its public order,
G8) or of known order -- the rest of the deal is a game of perfect
information: every candidate action is solved by alpha-beta over the kernel's
own phase functions, within ``nodes`` positions.  A proven win is played (the
one pimc ranks best if there are several), a proven loss is played only when
every action loses, and pimc's rollouts choose among the rest; where the
budget runs out before a value is proven the action keeps pimc's rank.

``solve`` > 0 also solves that many sampled worlds exactly while cards are
hidden (a determinized solve, each world at most ``nodes`` / 8 positions, the
row at most ``nodes``), and ranks the actions by their summed values first,
pimc's rollouts breaking ties.  It is off by default: in czech 2p against the
tuned preset (1,000 duplicate decks, seed 999, both seats) 64 solved worlds
scored -2.7 pp [-6.4, +1.0] against pimc alone on the same decks; the solver
assumes both seats know every hidden card and play perfectly from there.

The endgame is left out (pimc alone) where it is not exact: more than two
players, a match (the deal's outcome is not the stake, G11), a shuffled
turn-over (``reshuffle = shuffle``) or forgotten last-card calls
(``forget_rate`` > 0); and where a seat may draw at will (G7, ``voluntary_draw``:
svinya).  There a seat whose every play is a proven loss draws instead, a
line the search cannot resolve (the pile turns over and the deal goes on),
which it valued above the loss, and the deal ran on (svinya self-play, 6 deals:
18, 12, 12, 9, 15 and 1,536 turns, 2.9 CPU-s a deal against pimc's 0.14); the
inference where its reconstruction of the
opponent's past hands does not hold (:func:`strategies.inference.modelled`:
svinya's drawing, sevens, a Queen needing its King) and at more than two
players.  In czech 2p the talon rarely runs out before a player goes out, so
the endgame acts at 0.4% of decisions there; in prague 2p at about 10%.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.contract import Action, BatchView, DecisionView
from analyzer.core.registry import Param, check_params, register
from analyzer.engine.deal import Deal
from analyzer.kernel import params as P
from analyzer.kernel.endgame import new_table, solve_rows
from analyzer.kernel.rng import stream_key
from analyzer.kernel.search import MAX_TABLE, WORLD_STREAM, count_table, draw_worlds, search_scores
from analyzer.knowledge.observer import Knowledge
from analyzer.knowledge.search import ViewSearch, view_candidates
from strategies.inference import (
    kept_draw,
    log_likelihood,
    modelled,
    observed_choices,
    older_log_likelihood,
    reaches_back,
    resample,
)
from strategies.pimc import MIN_WORLDS, Pimc, compiled_rollout
from strategies.weighted_presets import PRESETS

#: ``rollout = "tuned"``: the rollouts play the tuned preset of the rules (:meth:`Expert.rollout_for`)
TUNED = "tuned"
#: a determinized solve's worlds each get at most this share of the decision's node budget
WORLD_SHARE = 8


@register("expert")
class Expert(Pimc):
    """pimc on inferred worlds with an exact endgame where nothing is hidden (two players; needs the public history)."""

    name = "expert"
    family = "expert"
    description = ("pimc (its parameters; `rollout=tuned`: the rules' tuned preset) on worlds "
                   "resampled by the likelihood of the opponent's plays (a softmax "
                   "at inverse temperature `infer` over default weighted's scores, from `pool` uniform worlds), with "
                   "an exact endgame: where nothing is hidden (two players, the talon empty) every action is solved "
                   "by alpha-beta within `nodes` positions and a proven win played; `solve` > 0 also solves that "
                   "many sampled worlds while cards are hidden")

    params = {**Pimc.params, "nodes": Param(True, 0, 10**9, " of positions an endgame searches (0 = no endgame)"),
              "solve": Param(True, 0, 4096, " of sampled worlds solved exactly while cards are hidden"),
              "infer": Param(False, 0, 100, " inverse temperature of the opponent model (0 = uniform worlds)"),
              "pool": Param(True, 1, 65536, " of worlds drawn before the inference resamples them"),
              "back": Param(True, 0, 1, " (1: the model also reads the plays before the opponent's last kept draw)")}

    def __init__(self, *, nodes: int = 40_000, solve: int = 0, infer: float = 1.0, pool: int = 4096,
                 back: int = 0, rollout: str = "weighted", **pimc: object) -> None:
        v = check_params({k: self.params[k] for k in ("nodes", "solve", "infer", "pool", "back")},
                         {"nodes": nodes, "solve": solve, "infer": infer, "pool": pool, "back": back})
        super().__init__(rollout="weighted" if rollout == TUNED else rollout, **pimc)  # type: ignore[arg-type]
        self.rollout_spec = rollout
        self.nodes, self.solve, self.infer, self.pool = v["nodes"], v["solve"], v["infer"], v["pool"]
        self.back = v["back"]
        self._view: BatchView | None = None
        self._table = new_table()
        self.solved = 0  # decisions whose ranking the exact search decided (a proven value differed among actions)
        self.positions = 0  # positions the endgame searched

    def rollout_for(self, rules: object) -> object:
        """``rollout = "tuned"``: the tuned preset of the rules' variant and player count
        (:data:`strategies.weighted_presets.PRESETS`), default ``weighted`` where there is none."""
        if self.rollout_spec != TUNED:
            return self.rollout
        preset = f"{rules.variant}-{rules.players}p"  # type: ignore[attr-defined]
        return compiled_rollout(f"weighted?preset={preset}") if preset in PRESETS else self.rollout

    def exact(self, p: np.ndarray, vs: ViewSearch) -> bool:
        """Whether the endgame's values are the deal's: two players, not a match, nothing drawn at random, and no
        drawing at will (G7: a seat facing a proven loss would draw on, beyond any budget's horizon)."""
        return (self.nodes > 0 and p[P.PLAYERS] == 2 and not vs.in_match and not p[P.SHUFFLE]
                and not (p[P.LAST_CALL] and p[P.FORGET] > 0) and not p[P.VOLUNTARY])

    def _search(self, p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, vs: ViewSearch, objective: int,
                keys: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """pimc's scores (on worlds weighed by the opponent model when ``infer`` > 0), re-ranked by the exact
        values where the endgame searched the row."""
        if self.infer > 0 and p[P.PLAYERS] == 2 and self._view is not None and modelled(self._view.rules):
            scores, played = self._inferred(p, kinds, weights, vs, objective, keys, self._view)
        else:
            scores, played = super()._search(p, kinds, weights, vs, objective, keys, rng)
        if not self.exact(p, vs):
            return scores, played
        tk, tv = self._table
        sums, used, _solved, spent = solve_rows(p, vs.st0, vs.m0, vs.ring0, vs.fits, vs.n_pool, vs.n_cls, vs.size,
                                                vs.owner, vs.pool, vs.fixed, vs.talon_known, vs.n_known,
                                                vs.talon_size, vs.actions, vs.suits, vs.n_actions, vs.me, keys,
                                                self.solve, min(MIN_WORLDS, self.solve), self.nodes,
                                                max(self.nodes // WORLD_SHARE, 1), tk, tv)
        self.positions += int(spent.sum())
        for r in np.flatnonzero(used > 0).tolist():
            na = int(vs.n_actions[r])
            ranked = ranked_scores(sums[r, :na], scores[r, :na])
            self.solved += int(np.argmax(ranked) != np.argmax(scores[r, :na]))
            scores[r, :na] = ranked
        return scores, played

    def choose_batch(self, view: BatchView, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """pimc's, with the view kept for the inference (its rows' event logs)."""
        self._view = view
        try:
            return super().choose_batch(view, rng)
        finally:
            self._view = None

    def _inferred(self, p: np.ndarray, kinds: np.ndarray, weights: np.ndarray, vs: ViewSearch, objective: int,
                  keys: np.ndarray, view: BatchView) -> tuple[np.ndarray, int]:
        """Each searched row's scores over ``worlds`` worlds resampled from ``pool`` uniform ones by the
        likelihood of the opponent's observed plays (:mod:`strategies.inference`), one search a row."""
        hist = view.history
        assert hist is not None
        rows = np.array([i for i, o in enumerate(view_candidates(view)) if len(o) > 1], np.int64)
        scores = np.full(vs.actions.shape, -np.inf)
        played = 0
        for i, r in enumerate(rows.tolist()):
            c, k, na, key = int(vs.n_pool[i]), int(vs.n_cls[i]), int(vs.n_actions[i]), int(keys[i])
            fits = np.ascontiguousarray(vs.fits[i, :c, :k])
            size, owner = vs.size[i, :k].copy(), vs.owner[i, :k].copy()
            f, stride, tkeys, tstart = count_table(fits, size, MAX_TABLE)
            ts = int(vs.talon_size[i])
            known = vs.talon_known[i, :vs.n_known[i]].copy()
            events, bottom, rules = hist.events[r, :hist.n_events[r]], int(hist.pile[r, 0]), view.rules
            choices = observed_choices(events, bottom, int(view.hand_sizes[r, 0]), rules)
            older = (observed_choices(events, bottom, int(view.hand_sizes[r, 0]), rules, segment=1)
                     if self.back and reaches_back(rules) else [])
            drawn = kept_draw(events, bottom, rules) if older else None
            count = self.pool if choices or drawn else self.worlds
            hands, talons = draw_worlds(f, stride, tkeys, tstart, fits, size, owner, vs.pool[i, :c].copy(),
                                        vs.fixed[i].copy(), known, ts, count,
                                        int(stream_key(key, 0, 0, WORLD_STREAM)) & (2**63 - 1))
            if choices or drawn:
                opp = (int(vs.me[i]) + 1) % 2
                ll = log_likelihood(hands[:, opp], choices, rules, self.infer)
                if drawn is not None:
                    ll += older_log_likelihood(hands[:, opp], older, drawn[0], drawn[1], rules, self.infer)
                pick = resample(ll, self.worlds, (key % 1_000_003) / 1_000_003)
                hands, talons = hands[pick], talons[pick]
            totals = vs.totals[i] if vs.in_match else None
            s, _used, _turns, rolled = search_scores(p, kinds, weights, vs.st0[i], vs.m0[i], vs.ring0[i], hands,
                                                     talons, ts, vs.actions[i, :na].copy(), vs.suits[i, :na].copy(),
                                                     int(vs.me[i]), objective, key, self.budget, MIN_WORLDS, totals,
                                                     self.tolerance, self.z)
            scores[i, :na] = s
            played += int(rolled)
        return scores, played

    def choose_known(self, view: DecisionView, knowledge: Knowledge, table: Deal,
                     rng: np.random.Generator) -> Action:
        """The table runner's decision: searched as a one-row batch (:meth:`choose`) where the view carries the
        public history, so the endgame acts there too; else pimc's own."""
        if view.history is not None:
            return self.choose(view, rng)
        return super().choose_known(view, knowledge, table, rng)


def ranked_scores(values: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Scores that order actions by their summed exact ``values`` first and pimc's ``scores`` second (a dropped
    action, -inf, below every live one; ties stay ties, so the first in legal order wins them)."""
    pm = scores.astype(np.float64).copy()
    live = np.isfinite(pm)
    low = pm[live].min() if live.any() else 0.0
    pm[~live] = low - 1.0
    spread = pm.max() - pm.min()
    tie = (pm - pm.min()) / spread * 0.5 if spread > 0 else np.zeros_like(pm)
    return np.asarray(values, np.float64) + tie  # values are whole numbers: the tie-break stays below one
