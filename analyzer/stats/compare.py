"""Duplicate-deal comparison of strategies: the work behind ``durak compare`` (issue 5, point 2).

Design
------
``D`` deck orders are drawn once (matches: ``D`` stacks of ``K`` deck orders,
deal k of match i uses ``decks[i, k]``).  Every deck is played once per
*rotation* of the strategy list through the positions: with ``k`` strategies
``S[0..k-1]`` and ``N`` players, rotation ``j`` (``j = 0..k-1``) seats
``S[(p + j) % k]`` at position ``p``.

* ``k < N``: the strategies repeat around the table (czech 4p with A, B, C:
  ``A B C A``, ``B C A B``, ``C A B C``);
* ``k > N``: each rotation seats only the first ``N`` of the rotated list
  (2 players with A, B, C: ``A B``, ``B C``, ``C A``) — a round robin;
* in every case each strategy sits in each position exactly once per deck
  (for a position ``p``, ``j -> (p + j) % k`` runs through all strategies), so
  every strategy is seen ``N`` times per deck, once per position: the luck of
  the deal and the advantage of the seat fall on all strategies alike.

The per-deck score of a strategy is the mean over its ``N`` (rotation, seat)
places of: win (1/0; matches: the win share, ties share, CZ7), loss (likewise)
and points (matches: the match total).  A pair is compared by the mean over
decks of the per-deck difference of scores (:func:`analyzer.stats.intervals.paired_difference`),
which is where the common luck cancels.  The same random strategies get the
same seed in every rotation of a deck (common random numbers), so a strategy
compared with itself differs by exactly 0 on every deck.

Verdicts use the 95% interval of the paired difference *and* the Holm
correction over all pairs: a pair is "A better than B" only if the interval
excludes 0 and the Holm-adjusted p-value is below 0.05; otherwise it is "not
distinguishable" (a winner is never named when the interval contains 0).

Interval narrowing: the half-width of the paired interval is set against the
half-width an independent-deals design with the same number of games would
give, i.e. two independent proportions each measured on ``D x N`` seat-games
(:func:`analyzer.stats.intervals.diff_proportions`); their ratio (``ratio``) is how many
times the duplicate design narrows the interval.  A second ratio
(``ratio_fresh_decks``) compares with the same line-ups played on a fresh deck
per game, estimated from the same games (the variance without the covariances
the shared deck brings); it differs from the first where two strategies sharing
a game are themselves correlated (two players: one's win is the other's loss).
Sharing decks pays off only where the deck decides much of the outcome: with
deterministic strategies in czech deals about 2x, while a ``random`` player in
every line-up scrambles the deal and leaves about 1x; in svinya matches (the
deal's winner leads the next, SV2) rotated line-ups drift back to the same
seats, the strategies' results become positively correlated and the ratio
falls below 1.  The ratios are measured, not assumed: read them before
trusting the design for a new setting.  Ranking intervals are normal intervals
of the per-deck scores (the ``N`` places of one deck are not independent, so a
Wilson interval on ``D x N`` seat-games would be too narrow).

Decks are cut into fixed-size chunks, played by
:mod:`analyzer.execution.compare_run` (``run_compare``) on the executor and
seeded from (seed, purpose "compare", the rules, chunk index), so the numbers
depend on the seed alone, not on ``--jobs``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from analyzer.core.rules import RuleSet
from analyzer.stats.intervals import Z95, diff_proportions, distinguishable, holm, mean_from_sums, paired_difference, z_test_p

CHUNK_DEALS = 20_000
CHUNK_MATCHES = 1_000
#: Deck orders drawn per match at first (czech to 500 needs ~36, at most ~50 in practice);
#: a chunk whose matches need more is replayed with twice as many, up to MAX_DEALS.
MATCH_DECKS = 400
ALPHA = 0.05
METRICS = ("win", "loss", "points")
SCORES = (*METRICS, "win_rot")

FloatArray = NDArray[np.float64]


class CompareError(ValueError):
    """A comparison that cannot be made (too few strategies, bad sizes); one line."""


def lineups(k: int, players: int) -> list[list[int]]:
    """Strategy indices by position for each of the ``k`` rotations.

    Rotation ``j`` seats strategy ``(p + j) % k`` at position ``p`` for ``p < players``.

    >>> lineups(3, 4)
    [[0, 1, 2, 0], [1, 2, 0, 1], [2, 0, 1, 2]]
    >>> lineups(3, 2)
    [[0, 1], [1, 2], [2, 0]]
    """
    return [[(p + j) % k for p in range(players)] for j in range(k)]


def labels(specs: Sequence[str]) -> list[str]:
    """Unique display names: a spec given twice becomes ``name``, ``name#2``."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


@dataclass
class Comparison:
    """Per-deck scores of ``k`` strategies over ``n_decks`` duplicate decks."""

    rules: RuleSet
    specs: list[str]
    names: list[str]
    matches: bool
    seed: int
    scores: dict[str, FloatArray]  # metric -> (D, k) per-deck score of each strategy; win_rot (D, k, k)
    capped: int  # deals stopped by the turn cap, over all rotations
    deals_played: int  # deals over all rotations (matches: summed over matches)
    seconds: float

    @property
    def n_decks(self) -> int:
        return int(self.scores["win"].shape[0])

    @property
    def games(self) -> int:
        """Deals (or matches) played: decks x rotations."""
        return self.n_decks * len(self.specs)

    @property
    def unit(self) -> str:
        return "match" if self.matches else "deal"


def _mean_ci(x: FloatArray) -> tuple[float, float, float]:
    e = mean_from_sums(x.sum(), (x * x).sum(), x.size)
    return float(e.est), float(e.lo), float(e.hi)


def _r(x: float, nd: int = 6) -> float | None:
    return round(float(x), nd) if math.isfinite(x) else None


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    """JSON-safe row: floats to 6 digits (ratios to 3), NaN and infinity to None."""
    return {k: _r(v, 3 if k.startswith("ratio") else 6) if isinstance(v, float) else v for k, v in row.items()}


def _div(a: float, b: float) -> float:
    return a / b if b > 0 else float("inf") if a > 0 else float("nan")


def _fresh_se(win_rot: NDArray[np.float32], i: int, j: int) -> float:
    """Standard error of the win difference i − j had every game of a deck's rotations had its own deck.

    The rotations' games are then independent, so the variance of the per-deck
    difference is the sum over rotations of the variances of each rotation's
    share (estimated from the same games); the duplicate design's variance adds
    their covariances, which sharing the deck makes negative when it helps.
    """
    c = win_rot[:, :, i].astype(np.float64) - win_rot[:, :, j]
    d = c.shape[0]
    if d < 2:
        return float("nan")
    return float(np.sqrt(c.var(axis=0, ddof=1).sum() / d))


def _p_value(est: float, se: float) -> float:
    if se == 0:
        return 1.0 if est == 0 else 0.0  # no variation at all: identical on every deck, or always apart
    return float(z_test_p(est, se))  # NaN when se is (a single deck)


def summarize_comparison(cmp: Comparison) -> dict[str, Any]:
    """The ``--json`` object: ranking, pairs (paired differences, Holm, verdicts) and narrowing."""
    win = cmp.scores["win"]
    d, k = win.shape
    players = cmp.rules.players
    seat_games = d * players  # per strategy: one place per position per deck
    ranking = []
    for i, name in enumerate(cmp.names):
        w, l, pts = (_mean_ci(cmp.scores[m][:, i]) for m in METRICS)
        ranking.append({"strategy": name, "spec": cmp.specs[i], "win_rate": w[0], "lo": w[1], "hi": w[2],
                        "loss_rate": l[0], "loss_lo": l[1], "loss_hi": l[2],
                        "mean_points": pts[0], "points_lo": pts[1], "points_hi": pts[2], "n": seat_games})
    ranking.sort(key=lambda r: -r["win_rate"])
    pairs, narrowing = [], []
    for i, j in combinations(range(k), 2):
        a, b = cmp.names[i], cmp.names[j]
        e = paired_difference(win[:, i], win[:, j])
        diff, se, lo, hi = float(e.est), float(e.se), float(e.lo), float(e.hi)
        indep = diff_proportions(win[:, i].mean(), seat_games, win[:, j].mean(), seat_games)
        paired_hw, indep_hw = Z95 * se, Z95 * float(indep.se)
        fresh_hw = Z95 * _fresh_se(cmp.scores["win_rot"], i, j)
        loss = paired_difference(cmp.scores["loss"][:, i], cmp.scores["loss"][:, j])
        pts = paired_difference(cmp.scores["points"][:, i], cmp.scores["points"][:, j])
        pairs.append({"a": a, "b": b, "diff": diff, "se": se, "lo": lo, "hi": hi, "p": _p_value(diff, se),
                      "loss_diff": float(loss.est), "loss_lo": float(loss.lo), "loss_hi": float(loss.hi),
                      "points_diff": float(pts.est), "points_lo": float(pts.lo), "points_hi": float(pts.hi)})
        narrowing.append({"a": a, "b": b, "paired_half_width": paired_hw, "independent_half_width": indep_hw,
                          "ratio": _div(indep_hw, paired_hw), "fresh_decks_half_width": fresh_hw,
                          "ratio_fresh_decks": _div(fresh_hw, paired_hw)})
    p_holm = holm([p["p"] for p in pairs]) if pairs else []
    for p, ph in zip(pairs, p_holm):
        p["p_holm"] = float(ph)
        sure = bool(distinguishable(p["lo"], p["hi"])) and p["p_holm"] < ALPHA
        p["verdict"] = ("not distinguishable" if not sure else
                        f"{p['a']} better than {p['b']}" if p["diff"] > 0 else f"{p['b']} better than {p['a']}")
    finite = [n["ratio"] for n in narrowing if math.isfinite(n["ratio"])]
    finite_fresh = [n["ratio_fresh_decks"] for n in narrowing if math.isfinite(n["ratio_fresh_decks"])]
    r = cmp.rules
    return {
        "variant": r.variant, "players": r.players, "rules": r.changed(), "unit": cmp.unit, "seed": cmp.seed,
        "strategies": cmp.names, "specs": cmp.specs,
        "lineups": [[cmp.names[s] for s in up] for up in lineups(k, players)],
        "n_decks": d, "games": cmp.games, "seat_games_per_strategy": seat_games,
        "deals_played": cmp.deals_played, "capped": cmp.capped,
        "ranking": [_rounded(row) for row in ranking],
        "pairs": [_rounded(row) for row in pairs],
        "narrowing": [_rounded(row) for row in narrowing],
        "narrowing_median": _r(float(np.median(finite)), 3) if finite else None,
        "narrowing_fresh_decks_median": _r(float(np.median(finite_fresh)), 3) if finite_fresh else None,
        "seconds": round(cmp.seconds, 2),
    }


# ---------------------------------------------------------------- presentation
def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.2f}"


def _ci(lo: float | None, hi: float | None, scale: float = 100.0, nd: int = 2) -> str:
    if lo is None or hi is None:
        return "[—]"
    return f"[{scale * lo:.{nd}f}, {scale * hi:.{nd}f}]"


def _p(x: float | None) -> str:
    return "—" if x is None else "<1e-15" if x < 1e-15 else f"{x:.2g}"


def _hw(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.3f}"


def _ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}x"


def _title(out: dict[str, Any]) -> str:
    extra = " ".join(f"{k}={v}" for k, v in out["rules"].items())
    return (f"{out['variant']} {out['players']}p{(' ' + extra) if extra else ''} — {out['n_decks']:,} duplicate "
            f"{'match deck stacks' if out['unit'] == 'match' else 'decks'} x {len(out['strategies'])} rotations "
            f"= {out['games']:,} {'matches' if out['unit'] == 'match' else 'deals'}, seed {out['seed']}")


def headline(out: dict[str, Any]) -> str:
    """One sentence on the narrowing (medians over pairs)."""
    m, f = out["narrowing_median"], out["narrowing_fresh_decks_median"]
    if m is None:
        return "duplicate design: the strategies never differ on a deck (paired interval of width 0)"
    many = " (median over pairs)" if len(out["narrowing"]) > 1 else ""
    fresh = "" if f is None else f"; {f:.1f}x against the same line-ups on a fresh deck per game"
    verb = ("narrows the interval by" if m >= 1.1 else "hardly changes the interval: ratio" if m >= 0.9
            else "widens the interval: ratio")
    return (f"duplicate design {verb} {m:.1f}x{many} against two independent proportions "
            f"of the same sample sizes{fresh}")


def print_comparison(out: dict[str, Any]) -> None:
    """Rich tables: ranking, pairs with verdicts, narrowing."""
    from rich.console import Console
    from rich.table import Table

    unit = out["unit"]
    c = Console()
    t = Table(title=_title(out))
    for col in ("rank", "strategy", f"win % per seat-{unit} [95% CI]", "loser % [95% CI]", "mean points [95% CI]"):
        t.add_column(col)
    for i, r in enumerate(out["ranking"], 1):
        t.add_row(str(i), r["strategy"], f"{_pct(r['win_rate'])} {_ci(r['lo'], r['hi'])}",
                  f"{_pct(r['loss_rate'])} {_ci(r['loss_lo'], r['loss_hi'])}",
                  f"{r['mean_points']:.2f} {_ci(r['points_lo'], r['points_hi'], 1.0)}")
    c.print(t)
    t = Table(title="Pairs: paired difference of win rates A − B (percentage points), Holm over all pairs")
    for col in ("A", "B", "A − B [95% CI]", "p", "p Holm", "verdict", "narrowing"):
        t.add_column(col)
    for p, nw in zip(out["pairs"], out["narrowing"]):
        t.add_row(p["a"], p["b"], f"{100 * p['diff']:+.2f} {_ci(p['lo'], p['hi'])}", _p(p["p"]),
                  _p(p["p_holm"]), p["verdict"], _ratio(nw["ratio"]))
    c.print(t)
    t = Table(title="Interval narrowing: 95% half-widths of A − B (percentage points)")
    for col in ("A", "B", "duplicate", "independent", "ratio", "fresh decks", "ratio"):
        t.add_column(col)
    for n in out["narrowing"]:
        t.add_row(n["a"], n["b"], f"±{_hw(n['paired_half_width'])}", f"±{_hw(n['independent_half_width'])}",
                  _ratio(n["ratio"]), f"±{_hw(n['fresh_decks_half_width'])}", _ratio(n["ratio_fresh_decks"]))
    c.print(t)
    c.print(headline(out))
    if out["capped"]:
        c.print(f"[bold red]WARNING: {out['capped']} deals hit the turn cap — they count as no win and no loss[/]")


def markdown(out: dict[str, Any], command: str | None = None) -> str:
    """compare.md: the same tables as the terminal, plus the design."""
    unit = out["unit"]
    lines = [f"# Duplicate comparison: {', '.join(out['strategies'])}", "", _title(out), ""]
    if command:
        lines += ["```sh", command, "```", ""]
    lines += ["Line-ups by rotation (position 0 acts first): "
              + "; ".join(" ".join(up) for up in out["lineups"]) + ".", "",
              "Every deck is played once per rotation, so each strategy sits in every position of every deck "
              "exactly once: the luck of the deal and of the seat cancels in the paired differences.", "",
              "## Ranking by win rate", "",
              f"| rank | strategy | win % per seat-{unit} [95% CI] | loser % [95% CI] | mean points [95% CI] |",
              "|---|---|---|---|---|"]
    for i, r in enumerate(out["ranking"], 1):
        lines.append(f"| {i} | {r['strategy']} | {_pct(r['win_rate'])} {_ci(r['lo'], r['hi'])} | "
                     f"{_pct(r['loss_rate'])} {_ci(r['loss_lo'], r['loss_hi'])} | "
                     f"{r['mean_points']:.2f} {_ci(r['points_lo'], r['points_hi'], 1.0)} |")
    fair = 1 / out["players"]
    lines += ["", f"Win rates are per seat-{unit} (fair share {100 * fair:.1f} %), n = "
              f"{out['seat_games_per_strategy']:,} seat-{unit}s per strategy; intervals from per-deck scores.", "",
              "## Pairs", "",
              "| A | B | A − B win, pp [95% CI] | p | p (Holm) | verdict | loser A − B, pp [95% CI] | "
              "points A − B [95% CI] | narrowing |", "|---|---|---|---|---|---|---|---|---|"]
    for p, nw in zip(out["pairs"], out["narrowing"]):
        lines.append(f"| {p['a']} | {p['b']} | {100 * p['diff']:+.2f} {_ci(p['lo'], p['hi'])} | {_p(p['p'])} | "
                     f"{_p(p['p_holm'])} | {p['verdict']} | {100 * p['loss_diff']:+.2f} "
                     f"{_ci(p['loss_lo'], p['loss_hi'])} | {p['points_diff']:+.2f} "
                     f"{_ci(p['points_lo'], p['points_hi'], 1.0)} | {_ratio(nw['ratio'])} |")
    lines += ["", "A winner is named only when the 95% interval excludes 0 and the Holm-adjusted p-value "
              "is below 0.05.", "", "## Interval narrowing", "",
              f"**{headline(out)}.**", "",
              "The 95% half-width of the paired difference of win rates against (1) an independent-deals design "
              "with the same number of games, as two independent proportions each on "
              f"{out['seat_games_per_strategy']:,} seat-{unit}s, and (2) the same line-ups with a fresh deck for "
              "every game, estimated from these games (rotations' variances without their covariances).", "",
              "| A | B | duplicate ± pp | independent ± pp | ratio | fresh decks ± pp | ratio |",
              "|---|---|---|---|---|---|---|"]
    for n in out["narrowing"]:
        lines.append(f"| {n['a']} | {n['b']} | {_hw(n['paired_half_width'])} | {_hw(n['independent_half_width'])} | "
                     f"{_ratio(n['ratio'])} | {_hw(n['fresh_decks_half_width'])} | "
                     f"{_ratio(n['ratio_fresh_decks'])} |")
    lines += ["", "![paired differences](compare_heatmap.png)", ""]
    if out["capped"]:
        lines += [f"**Warning:** {out['capped']} deals hit the turn cap (no win, no loss).", ""]
    return "\n".join(lines)


def heatmap(out: dict[str, Any]) -> Any:
    """Axes of the strategy x strategy paired differences of win rates (row − column)."""
    import pandas as pd

    from analyzer.report.charts import plot_heatmap

    names = out["strategies"]
    idx = pd.Index(names, name="strategy")
    cols = pd.Index(names, name="opponent strategy")
    m, lo, hi = (pd.DataFrame(np.nan, index=idx, columns=cols) for _ in range(3))
    for p in out["pairs"]:
        a, b = p["a"], p["b"]
        for frame, key in ((m, "diff"), (lo, "lo"), (hi, "hi")):
            frame.loc[a, b] = np.nan if p[key] is None else p[key]
        m.loc[b, a] = -m.loc[a, b]
        lo.loc[b, a], hi.loc[b, a] = -hi.loc[a, b], -lo.loc[a, b]
    unit = "matches" if out["unit"] == "match" else "deals"
    return plot_heatmap(m, lo=lo, hi=hi, title=f"Duplicate {unit}: win rate, row − column",
                        value_label="paired difference of win rates (percentage points)",
                        n=float(out["n_decks"]))


def write_outputs(out: dict[str, Any], folder: Path, command: str | None = None) -> list[Path]:
    """Write compare.md, compare.json and compare_heatmap.png/.svg into ``folder``."""
    from analyzer.report.charts import save_figure

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "compare.json").write_text(json.dumps(out, indent=1) + "\n")
    (folder / "compare.md").write_text(markdown(out, command))
    ax = heatmap(out)
    charts = save_figure(ax.figure, folder / "compare_heatmap")
    return [folder / "compare.md", folder / "compare.json", *charts]
