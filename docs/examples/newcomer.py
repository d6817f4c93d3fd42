# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# %% [markdown]
# # Six questions a newcomer asks, answered through the Python API
#
# Run it as a script (`python docs/examples/newcomer.py`, from the repository) or open it as a notebook with
# jupytext (`jupytext --to notebook docs/examples/newcomer.py`). Every rate comes with its 95% interval.
# `DEALS` sets the sample size (the test that runs this file makes it small); 20,000 gives intervals of about
# ±0.6 points.

# %%
import os
from pathlib import Path

import analyzer
from analyzer.core.rules import first_mover_position
from analyzer.stats.intervals import wilson

DEALS = int(os.environ.get("DURAK_EXAMPLE_DEALS", "20000"))
HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path("docs/examples").resolve()
ROOT = HERE.parents[1]


def row(frame, **where):
    """The one row of a tidy frame matching ``where``."""
    for key, value in where.items():
        frame = frame[frame[key] == value]
    assert len(frame) == 1, where
    return frame.iloc[0]


# %% [markdown]
# ## 1. How big is the first mover's advantage?
# The first mover plays the deal's first card: position 0 in czech and svinya, the dealer (the last position) in
# prague, whose sixth card is his lead (PR2). Against the fair share 1/n, with its interval (`analyzer.simulate`
# is `durak simulate`).

# %%
for variant, players in (("czech", 4), ("prague", 4), ("svinya", 2)):
    sim = analyzer.simulate("random", variant=variant, players=players, deals=DEALS, seed=1)
    mover = first_mover_position(variant, players)
    first = row(sim, metric="win", position=mover)
    fair = 1 / players
    print(f"1. {variant} {players}p: the first mover (position {mover}) wins {100 * first.rate:.1f}% "
          f"[{100 * first.lo:.1f}, {100 * first.hi:.1f}] against a fair {100 * fair:.1f}%: "
          f"{100 * (first.rate - fair):+.1f} points")

# %% [markdown]
# ## 2. What does holding the Jack (the wild) cost?
# One row per deal and position (`analyzer.deals`): the дурак rate of players dealt no wild, one, or more.

# %%
d = analyzer.deals("random", variant="prague", players=4, n=DEALS, seed=2)
for dealt, group in d.groupby(d["wilds_dealt"].clip(upper=2)):
    r = wilson(group["loser"].sum(), len(group))
    label = {0: "no wild", 1: "one wild", 2: "two or more"}[dealt]
    print(f"2. prague 4p, dealt {label}: дурак {100 * float(r.rate):.1f}% [{100 * float(r.lo):.1f}, "
          f"{100 * float(r.hi):.1f}] of {len(group):,} hands")

# %% [markdown]
# ## 3. Which strategy wins?
# Duplicate deals: every deck played by every seating (`analyzer.compare` is `durak compare`).

# %%
cmp = analyzer.compare(["greedy", "weighted", "random"], variant="czech", players=2, deals=DEALS // 4, seed=3)
wins = cmp[cmp["metric"] == "win"].sort_values("rate", ascending=False)
for _, r in wins.iterrows():
    print(f"3. czech 2p: {r.strategy} wins {100 * r.rate:.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}] of its games")
pairs = cmp.attrs["pairs"]
best = pairs.iloc[0]
print(f"3. {best.a} − {best.b}: {100 * best['diff']:+.1f} points [{100 * best.lo:+.1f}, {100 * best.hi:+.1f}] "
      f"(paired, {best.verdict})")

# %% [markdown]
# ## 4. Which house rules are fairest?
# Each rule set against the defaults on the same decks with the same players (`analyzer.compare_rules` is
# `durak compare-rules`): the change of position 0's win rate, paired.

# %%
for change in ({"sevens": True}, {"eight_stop": True}, {"hand_size": 6}):
    t = analyzer.compare_rules(change, None, "random", variant="czech", players=4, deals=DEALS, seed=4)
    w = t[(t["quantity"] == "win") & (t["seat"] == 0)].iloc[0]
    name = ", ".join(f"{k}={v}" for k, v in change.items())
    print(f"4. czech 4p {name}: position 0 wins {100 * w.a:.1f}% [{100 * w.a_lo:.1f}, {100 * w.a_hi:.1f}] "
          f"against {100 * w.b:.1f}% by default, {100 * w['diff']:+.1f} points [{100 * w.lo:+.1f}, {100 * w.hi:+.1f}]")

# %% [markdown]
# ## 5. How do I work with a run from a script?
# A finished run folder (here the committed quick example) as one tidy frame, without playing again
# (`analyzer.results`; `analyzer.run` plays an experiment file and returns the same frame).

# %%
quick = analyzer.results(ROOT / "reports" / "quick")
firsts = quick[(quick["metric"] == "win") & (quick["position"] == 0)]
print(f"5. reports/quick: {firsts['cell'].nunique()} cells; position 0's win rate ranges "
      f"{100 * firsts['rate'].min():.1f}%–{100 * firsts['rate'].max():.1f}%")

# %% [markdown]
# ## 6. How do I try my own strategy?
# A plugin is a file with a class (docs/plugins.md); name it by path and attribute.

# %%
plugin = f"{HERE / 'save_the_wild.py'}:SaveTheWild"
mine = analyzer.simulate([plugin, "random"], variant="czech", players=2, deals=DEALS // 4, seed=6)
r = row(mine, metric="win", position=0)
print(f"6. save-the-wild in seat 0 against random: wins {100 * r.rate:.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}]")
