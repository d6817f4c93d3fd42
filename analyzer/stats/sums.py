"""The sufficient statistics a chunk of results is stored as.

A chunk is stored on disk only as sums (:func:`summarize`), so ten million
deals cost kilobytes, and chunks add up by plain summation in any order: that
is what makes results independent of ``--jobs`` and of the order chunks
finish in.

Two strategies seated in the same deals are compared on *paired* per-deal
differences (:mod:`analyzer.stats.paired`), whose variance needs the products
of two seats' outcomes in the same deal: per position ``p`` the columns
``wins_x{q}``, ``losses_x{q}``, ``points_x{q}`` hold the sum over deals (or
matches) of ``x_p * x_q`` for every position ``q < MAX_SEATS`` (0 for seats
the cell does not have).  The wild-hand points compare like with like: hands
other than the winner's (``rest_*``; a match counts each hand by its share of
not winning), with and without a wild (G8/CZ7/PR7/SV6).

A deal's дурак is counted the way a match's is (CZ7, :func:`analyzer.engine.match.match_outcome`),
derived here from the deal's points, winner and wild holders (:func:`deal_losses`): the engine
names one loser per deal (a points tie goes to the earliest seat in play order); here every hand
tied with it shares the loss -- the wild holders tied with it where the wild rule acts on single
deals (``wild_rule = deal``, PR7) and some hand holds a wild, else the hands other than the
winner's.  "Lost by the wild rule" has one definition for deals and
matches: the wild rule acted and the set of losers differs from the one the points alone give; a
seat's ``losses_by_wild`` adds its share of each such loss.  Results that already carry a
``loss_share`` per deal are taken as they are.

The Jack question: per position, among decided games, how many it was *dealt* 0, 1 or
2+ wilds (``dealt{k}_n``, the deal's ``wilds_dealt``; a match counts its last deal, the one CZ7
judges) and its дурак shares in each (``dealt{k}_losses``); how many it ended holding a wild
(``held_n``) and its дурак shares then (``held_losses``).  Games whose simulator does not record
``wilds_dealt`` count in no ``dealt`` column.  The holder-minus-non-holder gap of a strategy pools
seats that share games, so its interval needs per-game sums over the strategy's seats: the
``hv_*`` columns, stored on the strategy's first position of the line-up (0 on the others), hold
the sums over games of the products of A = Σ held·loss, B = Σ held, C = Σ (1−held)·loss and
E = Σ (1−held) over its seats in decided games (:func:`analyzer.stats.tables.jack_question`).

The Jack comparisons that isolate the wild, all seats of a game together:

* *held at the end, like with like*: a hand left holding a wild is compared only with hands left
  holding the same number of cards (``LEFT_CLASSES``: 1 to 7, 8 or more; the hand that went out
  holds none and is in no stratum).  Per position ``left{k}_held_n/_losses`` and
  ``left{k}_free_n/_losses``; per cell the same-game moments ``lm_i_j`` = Σ over games of
  v_i·v_j of the game's vector v = (A, B_1..B_K, C_1..C_K, E_1..E_K): A the holders' дурак shares,
  B_k the holders with k cards left, C_k and E_k the same of the hands without a wild.
* *dealt a wild*: the seats dealt one or more wilds against those dealt none, a comparison the
  shuffle randomises; per cell ``dm_i_j`` the same-game moments of (A, B, C, E) of those two groups.

Games are the clusters: a game's seats exclude each other as дурак, so an interval that took them
as independent would be too narrow (:func:`analyzer.stats.tables.jack_effects` linearises).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, POINT_BINS, TURN_BINS, DealResults, MatchResults
from analyzer.core.rules import RuleSet

if TYPE_CHECKING:  # pandas is imported where a frame is built: ``durak simulate`` sums and prints without it
    import pandas as pd

#: a table as its columns, in order (what a run sums without pandas: analyzer.execution.totals)
Columns = dict[str, np.ndarray]


def _compiled() -> Any:
    """analyzer.kernel.deal_sums and analyzer.kernel.jack_sums as one namespace, loaded at the first chunk summed."""
    # here, not at the top: they load numba, which reading stored results (a report) never needs
    from analyzer.kernel import deal_sums, jack_sums

    return SimpleNamespace(loss_shares=deal_sums.loss_shares, jack_columns=deal_sums.jack_columns,
                           jack_sums=jack_sums.jack_sums)


#: Seats the cross-product columns cover (czech seats up to 8, RULES.md player counts).
MAX_SEATS = 8
#: Outcomes whose same-deal products are stored, with their per-position sum column.
CROSS_METRICS = {"wins": "wins", "losses": "losses", "points": "points_sum"}
#: Cross-product columns: ``{metric}_x{q}`` = sum over games of (this seat's x) * (seat q's x).
CROSS_COLUMNS = tuple(f"{m}_x{q}" for m in CROSS_METRICS for q in range(MAX_SEATS))
#: Wilds dealt: 0, 1, 2 or more (the last class open-ended).
DEALT_CLASSES = (0, 1, 2)
#: The Jack question's per-position sums (decided games; see the module docstring).
JACK_COLUMNS = (*(f"dealt{k}_{m}" for k in DEALT_CLASSES for m in ("n", "losses")), "held_n", "held_losses")
#: Per-strategy sums over games of products of A, B, C, E (module docstring), on its first position.
HV_PAIRS = ("aa", "ab", "bb", "cc", "ce", "ee", "ac", "ae", "bc", "be")
HV_COLUMNS = tuple(f"hv_{x}" for x in HV_PAIRS)
#: Cards left at the end, the strata of "held a wild at the end": 1 to 7, 8 or more (the last open-ended;
#: fine enough that holders and the hands they are set against hold as many cards, which decide the points).
LEFT_CLASSES = (1, 2, 3, 4, 5, 6, 7, 8)
#: A дурак share is a multiple of 1/k for k <= MAX_SEATS tied hands: times 840 (lcm of 1..8) it is an integer,
#: so the same-game moments are int64 sums, exact in any order (chunks add up to the same bits).
SHARE_SCALE = 840
#: Per position and stratum: hands holding a wild (``held``) and not (``free``), their count and дурак shares.
LEFT_COLUMNS = tuple(f"left{k}_{g}_{m}" for k in LEFT_CLASSES for g in ("held", "free") for m in ("n", "losses"))


def moment_names(prefix: str, dim: int) -> tuple[str, ...]:
    """``prefix_i_j`` for i <= j < dim: the upper triangle of a same-game moment matrix."""
    return tuple(f"{prefix}_{i}_{j}" for i in range(dim) for j in range(i, dim))


#: Same-game moments of the held comparison's game vector (A, B_1..B_K, C_1..C_K, E_1..E_K).
HELD_DIM = 1 + 3 * len(LEFT_CLASSES)
HELD_MOMENTS = moment_names("lm", HELD_DIM)
#: Same-game moments of the dealt comparison's game vector (A, B, C, E): dealt one or more wilds against none.
DEALT_MOMENTS = moment_names("dm", 4)
#: Columns of the per-position summary table (one row per position of a chunk or cell).
POSITION_COLUMNS = (
    "position", "strategy", "n", "wins", "losses", "losses_by_wild", "wild_held",
    "went_out", "points_sum", "points_sq", *CROSS_COLUMNS, *JACK_COLUMNS, *HV_COLUMNS, *LEFT_COLUMNS,
)
#: Columns of the per-chunk totals (one row per chunk or cell).
TOTAL_COLUMNS = ("n", "blocked", "capped", "turns_sum", "turns_sq", "turnovers_sum", "deals_sum",
                 "wild_any", "wild_hands", "wild_points_sum",
                 "rest_hands", "rest_points_sum", "wild_rest_hands", "wild_rest_points_sum",
                 *HELD_MOMENTS, *DEALT_MOMENTS)


def cross_sums(x: np.ndarray) -> np.ndarray:
    """``(P, MAX_SEATS)`` sums over games of ``x[:, p] * x[:, q]`` (zero-padded past P seats)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros((x.shape[1], MAX_SEATS))
    out[:, :x.shape[1]] = x.T @ x
    return out


# (N, P) arrays are handled flat (row-major, with each entry's seat in ``seat``): numpy loops over an
# (N, P) array broadcast against an (N, 1) one a row at a time, slowly when P is a handful of seats.
def _seats(n: int, p: int) -> np.ndarray:
    """The seat of each entry of a flattened (n, p) array."""
    return np.tile(np.arange(p, dtype=np.intp), n)


def _column_sums(bins: np.ndarray, p: int, x: np.ndarray | None = None, groups: int = 1) -> np.ndarray:
    """``(groups, p)`` float sums of flat ``x`` (1 without it) per bin ``group * p + seat`` (``bins``: the seats
    when there is one group; ``groups * p``: left out).

    Each sum adds its terms one row after another, as ``(x * (group == g)).sum(axis=0)`` does on the
    (N, p) array (numpy reduces axis 0 row by row), so the floats are bit-identical to it.  One
    ``np.bincount`` pass for all groups.
    """
    out = np.bincount(bins, weights=None if x is None else x.astype(np.float64, copy=False),
                      minlength=groups * p + 1)
    return out[:groups * p].reshape(groups, p).astype(np.float64)


def _row_any(x: np.ndarray) -> np.ndarray:
    """Row-wise any of an (N, P) bool array, a column at a time."""
    out = x[:, 0].copy()
    for s in range(1, x.shape[1]):
        out |= x[:, s]
    return out


def _row_sum(x: np.ndarray, cols: list[int] | range) -> np.ndarray:
    """Float row sums of ``x[:, cols]``, bit-identical to ``x[:, cols].sum(axis=1)``: numpy's pairwise sum
    adds fewer than 8 terms one after another (as here, a column at a time) and 8 or more in its own order."""
    cols = list(cols)
    if len(cols) >= 8:
        return x[:, cols].sum(axis=1).astype(np.float64)
    out = x[:, cols[0]].astype(np.float64)
    for s in cols[1:]:
        out += x[:, s]
    return out


def deal_losses(res: DealResults, deal_rule: bool) -> tuple[np.ndarray, np.ndarray]:
    """(N, P) дурак shares and (N,) "the wild rule decided" of single deals, as a match decides them.

    ``deal_rule``: the wild rule acts on single deals (``wild_rule = deal``, PR7).  The engine's
    loser keeps the loss and shares it with every hand tied with it on points in the same class:
    the hands other than the winner's (G9/G10: the winner is settled first) or, where the wild rule
    acted (some hand holds a wild), the wild holders -- exact ties share, as in
    :func:`analyzer.engine.match.match_outcome`.  The rule decided the loser where it acted and its
    losers (the holders with the most points) differ from the points' (the hands other than the
    winner's with the most points): the one definition of deals and matches.  Capped deals: no loss.
    One compiled pass (:func:`analyzer.kernel.deal_sums.loss_shares`).
    """
    n, p = res.points.shape
    loss = np.zeros((n, p), np.float64)
    by_wild = np.zeros(n, np.bool_)
    _compiled().loss_shares(np.ascontiguousarray(res.points), np.ascontiguousarray(res.winner), np.ascontiguousarray(res.loser),
                            np.ascontiguousarray(res.loser_by_wild, dtype=np.bool_),
                            np.ascontiguousarray(res.wild_held, dtype=np.bool_), np.ascontiguousarray(res.end),
                            END_CAPPED, bool(deal_rule), loss, by_wild)
    return loss, by_wild


def _jack_sums(loss_x: np.ndarray, held: np.ndarray, dealt: np.ndarray, decided: np.ndarray,
               strategies: list[str], cluster: int = 1) -> dict[str, np.ndarray]:
    """The per-position Jack columns (JACK_COLUMNS, HV_COLUMNS) of one chunk.

    Column sums in deal order, compiled (:func:`analyzer.kernel.deal_sums.jack_columns`); the ``hv_*`` products
    are summed by numpy's pairwise sum, a fixed order (a BLAS dot product's order depends on its thread count).
    """
    n, p = loss_x.shape
    k = len(DEALT_CLASSES)
    n_k, loss_k = np.zeros((k, p)), np.zeros((k, p))
    held_n, held_loss = np.zeros(p), np.zeros(p)
    hl, cl = np.zeros((n, p)), np.zeros((n, p))  # held * loss, and not held * loss, in decided games
    held_d, not_held = np.zeros((n, p), np.bool_), np.zeros((n, p), np.bool_)
    _compiled().jack_columns(np.ascontiguousarray(loss_x, dtype=np.float64), np.ascontiguousarray(held, dtype=np.bool_),
                             np.ascontiguousarray(dealt, dtype=np.int8), np.ascontiguousarray(decided, dtype=np.bool_),
                             k, n_k, loss_k, held_n, held_loss, hl, cl, held_d, not_held)
    out: dict[str, np.ndarray] = {}
    for i, c in enumerate(DEALT_CLASSES):
        out[f"dealt{c}_n"] = n_k[i]
        out[f"dealt{c}_losses"] = loss_k[i]
    out["held_n"] = held_n
    out["held_losses"] = held_loss
    hv = {c: np.zeros(p) for c in HV_COLUMNS}
    for name in dict.fromkeys(strategies):
        mine = [q for q, s in enumerate(strategies) if s == name]
        parts = {"a": _row_sum(hl, mine), "b": _row_sum(held_d, mine), "c": _row_sum(cl, mine), "e": _row_sum(not_held, mine)}
        if cluster > 1:  # a deck's rotations share its cards: their sums are one cluster's
            parts = {x: y.reshape(-1, cluster).sum(axis=1) for x, y in parts.items()}
        for pair in HV_PAIRS:
            hv[f"hv_{pair}"][mine[0]] = float((parts[pair[0]] * parts[pair[1]]).sum())
    return {**out, **hv}


def _moments(m: np.ndarray, shares: list[int], prefix: str) -> dict[str, float]:
    """The upper triangle of an integer moment matrix ``m`` as columns, the ``shares`` rows and columns
    (дурак shares times SHARE_SCALE) scaled back."""
    scale = np.ones(m.shape[0])
    scale[shares] = SHARE_SCALE
    f = m.astype(np.float64) / np.outer(scale, scale)
    return dict(zip(moment_names(prefix, m.shape[0]), f[np.triu_indices(m.shape[0])].tolist()))


def _isolating_sums(loss_x: np.ndarray, held: np.ndarray, dealt: np.ndarray, left: np.ndarray,
                    decided: np.ndarray, cluster: int = 1) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The Jack comparisons that isolate the wild (module docstring): per-position LEFT_COLUMNS and the
    per-chunk same-game moments HELD_MOMENTS and DEALT_MOMENTS, in one compiled pass
    (:func:`analyzer.kernel.jack_sums.jack_sums`).  ``left`` or ``dealt`` NOT_RECORDED (-1) puts a seat in no
    stratum."""
    n, p = loss_x.shape
    k = len(LEFT_CLASSES)
    loss = np.ascontiguousarray(loss_x, dtype=np.float64)
    share = np.rint(loss * SHARE_SCALE).astype(np.int64)  # whole numbers: a share is a multiple of 1/j, j <= 8
    cnt, los = np.zeros((2, k, p), np.int64), np.zeros((2, k, p))
    mh, md = np.zeros((HELD_DIM, HELD_DIM), np.int64), np.zeros((4, 4), np.int64)
    _compiled().jack_sums(share, loss, np.ascontiguousarray(held, dtype=np.bool_),
                          np.ascontiguousarray(left, dtype=np.int8), np.ascontiguousarray(dealt, dtype=np.int8),
                          np.ascontiguousarray(decided, dtype=np.bool_), k, cnt, los, mh, md, cluster)
    per_pos: dict[str, np.ndarray] = {}
    for i, c in enumerate(LEFT_CLASSES):
        for g, tag in enumerate(("held", "free")):
            per_pos[f"left{c}_{tag}_n"] = cnt[g, i].astype(np.float64)
            per_pos[f"left{c}_{tag}_losses"] = los[g, i]
    totals = _moments(mh, [0, *range(1 + k, 1 + 2 * k)], "lm")
    totals.update(_moments(md, [0, 2], "dm"))
    return per_pos, totals


@dataclass
class ChunkSums:
    """A chunk's sums before they are tables: ``positions`` (column -> one value a position), ``totals`` (column ->
    number) and ``hists`` ((kind, counts by bin) in order).  :meth:`tables` are :func:`summarize`'s tables;
    :func:`stacked_tables` makes the tables of many chunks at once.  A run held in memory (``durak simulate``,
    ``compare``, the API) keeps its chunks so: a 2,000-match chunk's kernel takes ~8 ms, and building its three
    tables took ~5 ms more under the GIL, which the other thread's chunks waited on."""

    positions: dict[str, Any]
    totals: dict[str, Any]
    hists: list[tuple[str, np.ndarray]]

    def tables(self) -> dict[str, pd.DataFrame]:
        """The chunk's ``positions``, ``totals`` and ``hist`` tables."""
        return stacked_tables([self])

    def with_hist(self, kind: str, counts: np.ndarray) -> ChunkSums:
        """These sums with one more histogram kind."""
        return ChunkSums(self.positions, self.totals, [*self.hists, (kind, counts)])


def stacked_columns(chunks: list[ChunkSums]) -> dict[str, Columns]:
    """The tables of ``chunks`` one under the other, in order, as columns (no pandas): ``positions``, ``totals``
    and ``hist``, each column one array (the strategy names and histogram kinds as arrays of str objects)."""
    def column(name: str) -> np.ndarray:  # an array a position, or the strategy names (a list)
        parts = [ch.positions[name] for ch in chunks]
        if isinstance(parts[0], list):
            return np.array([x for part in parts for x in part], dtype=object)
        return np.concatenate(parts)

    positions = {name: column(name) for name in chunks[0].positions}
    kinds = np.array([k for ch in chunks for k, h in ch.hists for _ in range(len(h))], dtype=object)
    hist = {"kind": kinds,
            "bin": np.concatenate([np.arange(len(h)) for ch in chunks for _, h in ch.hists]),
            "count": np.concatenate([h.astype(np.int64) for ch in chunks for _, h in ch.hists])}
    return {"positions": positions, "totals": rows_columns([ch.totals for ch in chunks]), "hist": hist}


def stacked_tables(chunks: list[ChunkSums]) -> dict[str, pd.DataFrame]:
    """The tables of ``chunks`` one under the other, in order: ``pd.concat`` of each one's tables, the same
    values, dtypes and rows, built as one table each rather than three a chunk (pandas makes a column of str
    objects its text column)."""
    import pandas as pd

    return {name: pd.DataFrame(columns) for name, columns in stacked_columns(chunks).items()}


def summarize(res: DealResults | MatchResults, strategies: list[str],
              rules: RuleSet | None = None, cluster: int = 1) -> dict[str, pd.DataFrame]:
    """Sufficient statistics of a chunk: ``positions``, ``totals`` and ``hist`` tables (:func:`chunk_sums`)."""
    return chunk_sums(res, strategies, rules, cluster).tables()


def chunk_sums(res: DealResults | MatchResults, strategies: list[str],
               rules: RuleSet | None = None, cluster: int = 1) -> ChunkSums:
    """Sufficient statistics of a chunk: ``positions``, ``totals`` and ``hist`` tables.

    ``positions``: one row per position with counts and sums (POSITION_COLUMNS);
    wins/losses are float because ties share.  ``totals``: one row.
    ``hist``: columns kind ('turns' | 'points' | 'deals'), bin, count.
    ``rules``: the cell's rules, which say whether the wild rule acts on single deals
    (``wild_rule = deal``); without them a chunk in which the engine's loser was ever
    picked by the wild rule is taken to have it (tests and hand-made results).  ``cluster``: the games come in
    clusters of that many consecutive ones (a deck dealt with its hands rotated), which the same-game sums of the
    Jack comparisons (``hv_*``, ``lm_*``, ``dm_*``) take as one (their intervals are over clusters).
    """
    n = len(res)
    p = len(strategies)
    if isinstance(res, DealResults):
        pts = res.points.astype(np.int64)
        wins = np.bincount(res.winner[res.winner >= 0], minlength=p).astype(float)
        went = np.bincount(res.went_out[res.went_out >= 0], minlength=p)
        turns = res.turns.astype(np.int64)
        totals: dict[str, float] = {
            "n": n, "blocked": int((res.end == END_BLOCKED).sum()),
            "capped": int((res.end == END_CAPPED).sum()),
            "turns_sum": int(turns.sum()), "turns_sq": int((turns ** 2).sum()),
            "turnovers_sum": int(res.turnovers.sum()), "deals_sum": n,
        }
        hists = [("turns", np.bincount(np.minimum(turns, TURN_BINS - 1), minlength=TURN_BINS)),
                 ("points", np.bincount(np.minimum(pts.ravel(), POINT_BINS - 1), minlength=POINT_BINS))]
        seat = _seats(n, p)  # (N, P) arrays flat (see _seats)
        win_x = (seat == np.repeat(res.winner, p)).astype(np.float64).reshape(n, p)
        shared = getattr(res, "loss_share", None)
        if shared is not None:  # results that carry the shares themselves
            loss_x = np.asarray(shared, dtype=np.float64)
            by_wild = res.loser_by_wild
        else:  # a points tie for the дурак shared as in a match (CZ7); one "decided by the wild rule"
            deal_rule = rules.wild_rule == "deal" if rules is not None else bool(res.loser_by_wild.any())
            loss_x, by_wild = deal_losses(res, deal_rule)
        losses = _column_sums(seat, p, loss_x.ravel())[0]  # loss_x.sum(axis=0), bit for bit
        lbw = _column_sums(seat, p, loss_x.ravel() * np.repeat(by_wild, p))[0]
        decided = res.end != END_CAPPED
    else:
        pts = res.totals.astype(np.int64)
        wins = res.win_share.sum(axis=0, dtype=np.float64)
        losses = res.loss_share.sum(axis=0, dtype=np.float64)
        lbw = (res.loss_share * res.loser_by_wild[:, None]).sum(axis=0)
        went = np.zeros(p, dtype=np.int64)
        d = res.deals.astype(np.int64)
        totals = {"n": n, "blocked": 0, "capped": int(res.capped_deals.sum()), "turns_sum": 0,
                  "turns_sq": 0, "turnovers_sum": 0, "deals_sum": int(d.sum())}
        hists = [("deals", np.bincount(np.minimum(d, TURN_BINS - 1), minlength=TURN_BINS))]
        win_x = res.win_share.astype(np.float64)
        loss_x = res.loss_share.astype(np.float64)
        decided = np.ones(n, dtype=bool)
    wild = np.ascontiguousarray(res.wild_held.T).sum(axis=1)  # integer sums: any order, rows contiguous
    pts_t = np.ascontiguousarray(pts.T)
    # the wild-holding penalty exactly, not only per position: deals with any wild left,
    # and the points of the hands that held one (totals at the end of a match)
    totals["wild_any"] = int(_row_any(res.wild_held).sum())
    totals["wild_hands"] = int(res.wild_held.sum())
    totals["wild_points_sum"] = int((pts * res.wild_held).sum())
    # like with like: the hands other than the winner's (whose hand is empty when it went out)
    rest = 1.0 - win_x
    totals["rest_hands"] = float(rest.sum())
    totals["rest_points_sum"] = float((rest * pts).sum())
    totals["wild_rest_hands"] = float((rest * res.wild_held).sum())
    totals["wild_rest_points_sum"] = float((rest * res.wild_held * pts).sum())
    cross = {m: cross_sums(x) for m, x in (("wins", win_x), ("losses", loss_x), ("points", pts))}
    left_pos, moments = _isolating_sums(loss_x, res.wild_held, np.asarray(res.wilds_dealt),
                                        np.asarray(res.cards_left), decided, cluster)
    totals.update(moments)
    positions = {
        "position": np.arange(p), "strategy": list(strategies), "n": np.full(p, n, np.int64),
        "wins": wins, "losses": losses, "losses_by_wild": np.asarray(lbw, dtype=float),
        "wild_held": wild.astype(np.int64), "went_out": went.astype(np.int64),
        "points_sum": pts_t.sum(axis=1), "points_sq": (pts_t ** 2).sum(axis=1),
        **{f"{m}_x{q}": cross[m][:, q] for m in CROSS_METRICS for q in range(MAX_SEATS)},
        **_jack_sums(loss_x, res.wild_held, np.asarray(res.wilds_dealt), decided, list(strategies), cluster),
        **left_pos,
    }
    return ChunkSums(positions, totals, hists)


#: the hist kind of a cell whose hands rotate: per deck, the first seat's wins W and decided deals D of its rotations,
#: counted at bin ``W * ROTATION_BASE + D`` (at most 8 rotations: MAX_SEATS)
ROTATION_KIND = "rotated_first"
ROTATION_BASE = MAX_SEATS + 1


def rotation_counts(res: DealResults, rotations: int) -> np.ndarray:
    """The decks of a chunk whose hands rotate (deals deck by deck, ``rotations`` each), counted by the first
    seat's wins and decided deals among a deck's rotations: the deck-level sums of the first player's rate
    (:func:`analyzer.stats.tables.first_player_advantage`), whose interval is over decks, not deals; the
    :data:`ROTATION_KIND` histogram of the chunk."""
    wins = (res.winner == 0).reshape(-1, rotations).sum(axis=1)
    decided = (res.end != END_CAPPED).reshape(-1, rotations).sum(axis=1)
    return np.bincount(wins * ROTATION_BASE + decided, minlength=ROTATION_BASE * ROTATION_BASE).astype(np.int64)


def rows_columns(rows: list[dict[str, Any]]) -> Columns:
    """Rows of dicts with the same keys, all int or float values, as columns (int64 and float64, in the first
    row's order); other values as object columns."""
    first = rows[0]
    out: Columns = {}
    for k, v in first.items():
        values = [r[k] for r in rows]
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            out[k] = np.array(values, dtype=object)
        else:
            out[k] = np.array(values, dtype=np.int64 if isinstance(v, (int, np.integer)) else np.float64)
    return out


def rows_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """``pd.DataFrame(rows)`` of dicts with the same keys -- int64 and float64 columns in the first one's order --
    built column by column (:func:`rows_columns`): pandas infers ~350 columns one by one, about half of a
    2,000-match chunk's table time."""
    import pandas as pd

    columns = rows_columns(rows)
    if any(c.dtype == object for c in columns.values()):
        return pd.DataFrame(rows)  # anything but numbers: pandas' own inference
    return pd.DataFrame(columns)
