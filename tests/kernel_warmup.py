"""The compiled kernels the suite shares, compiled (or loaded) once per test run (compile once).

Every pytest-xdist worker is its own process: with a cold numba cache each one
compiled the same generic kernels itself (minutes of CPU each) the first time a
test touched them.  tests/conftest.py runs :func:`warm` before any test starts (while
the workers start and collect), in two processes side by side (:data:`PARTS`, about
the same compile time each), into the folder analyzer.kernel._cache chose; the
workers, and the processes tests start (``--jobs``, CLI subprocesses), then load each kernel from that
folder instead of compiling it.  With a warm cache this is a few loads.

Each part plays a few deals through the public entry points, with the argument
types the library passes, so the cached signatures are the ones tests ask for.
Only the generic kernels (the rules an argument) are here: a kernel compiled for
one rule set is asked for by one test or two, so compiling it where it is used
costs no more.

``python -m tests.kernel_warmup PART...`` warms those parts (names of :data:`PARTS`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np


def _deals() -> None:
    """The deals kernel (driver.deals_kernel), on its own decks, given decks and numpy's decks (npdecks)."""
    from analyzer.core.registry import get_strategy
    from analyzer.core.rules import make_rules
    from analyzer.kernel.driver import deck_orders, simulate_deals

    rules = make_rules("czech", 3, {})
    strats = [get_strategy(s) for s in ("random", "greedy", "weighted")]
    simulate_deals(rules, strats, 4, 1, threads=1, specialise=False)
    simulate_deals(rules, strats, 4, 1, threads=1, check=True, specialise=False, decks=deck_orders(rules, 4, 1))
    simulate_deals(rules, strats, 4, 1, threads=1, specialise=False, deck_rng=np.random.default_rng(1))


def _matches() -> None:
    """The match kernel (matches.matches_kernel) and rollouts from positions (positions.positions_kernel)."""
    from analyzer.core.registry import get_strategy
    from analyzer.core.rules import make_rules
    from analyzer.engine.deal import Deal
    from analyzer.kernel.driver import deck_orders
    from analyzer.kernel.matches import simulate_matches
    from analyzer.kernel.positions import encode_deal, play_from_positions

    rules = make_rules("czech", 3, {"target": 30})
    strats = [get_strategy(s) for s in ("random", "greedy", "weighted")]
    simulate_matches(rules, strats, 2, 1, threads=1, specialise=False)
    deal = Deal.from_deck(rules, deck_orders(rules, 1, 1)[0].tolist())
    play_from_positions(rules, strats, encode_deal(deal).repeat(2), seed=1, threads=1, specialise=False)


class _Lowest:
    """A Python strategy (no compiled form): the pause kernels stop at its decisions."""

    name = "warmup-lowest"

    def choose(self, view: object, rng: np.random.Generator) -> tuple[int, None]:
        return min(view.legal), None  # type: ignore[attr-defined]


def _paused() -> None:
    """The pause kernel of deals (pause.advance_kernel) under a Python strategy."""
    from analyzer.core.registry import get_strategy
    from analyzer.core.rules import make_rules
    from analyzer.kernel.pause import simulate_paused

    rules = make_rules("czech", 3, {})
    strats = [_Lowest(), get_strategy("random"), get_strategy("greedy")]
    simulate_paused(rules, strats, 4, 1, play_rng=np.random.default_rng(1), deck_rng=np.random.default_rng(1),
                    specialise=False)


def _paused_matches() -> None:
    """The pause kernel of matches (pause.advance_matches) under a Python strategy."""
    from analyzer.core.registry import get_strategy
    from analyzer.core.rules import make_rules
    from analyzer.kernel.pause import simulate_paused_matches

    strats = [_Lowest(), get_strategy("random"), get_strategy("greedy")]
    simulate_paused_matches(make_rules("czech", 3, {"target": 30}), strats, 2, 1, play_rng=np.random.default_rng(1))


def _search() -> None:
    """The search kernel of ``pimc`` one decision at a time (analyzer.kernel.search.search_scores) on the rules
    engine (``choose_known``), in a deal and in a match (the match's totals are another argument type)."""
    from analyzer.core.registry import get_strategy
    from analyzer.core.rules import make_rules
    from analyzer.engine.deal import Deal
    from analyzer.kernel.driver import deck_orders
    from analyzer.knowledge.table import play_observed, simulate_observed_matches

    rules = make_rules("czech", 2, {})
    deal = Deal.from_deck(rules, deck_orders(rules, 1, 1)[0].tolist(), rng=np.random.default_rng(1))
    play_observed(deal, [get_strategy("pimc?worlds=2,budget=0"), get_strategy("greedy")], np.random.default_rng(1))
    simulate_observed_matches(make_rules("czech", 2, {"target": 30}),
                              [get_strategy("pimc?worlds=2,budget=0"), get_strategy("greedy")], None,
                              np.random.SeedSequence(1), n=1)


def _paused_search() -> None:
    """The batch search of ``pimc`` (``choose_batch``: analyzer.kernel.search.search_rows) on the pause kernel
    with the public events logged, as the executor's ``simulate_deals`` plays a line-up that reads the history."""
    from analyzer.core.registry import get_strategy
    from analyzer.core.rules import make_rules
    from analyzer.execution.executor import simulate_deals

    simulate_deals(make_rules("czech", 2, {}), [get_strategy("pimc?worlds=2,budget=0"), get_strategy("random")], 2, 1)


#: The parts run side by side, split by what they compile: the pause kernels (a slot's talon and pile are int8) call
#: the turn functions with another argument type than the deals, match, rollout and search kernels (int64), so each
#: tree of turn functions is compiled by one part only.  Split otherwise (deals and paused deals in one part, matches,
#: paused matches and search in the other) both parts compiled both trees side by side: 164 CPU-s cold where one
#: process compiling every step in turn spends 122.  Steps alone, cold, one after the other (CPU-s): paused deals 52,
#: paused matches then 14; deals 28, matches then 16, search then 28 (the parts share only the small helpers).
#: pimc's batch search plays on the pause kernel, so it comes last in the paused part, where that kernel is loaded;
#: the search kernel's own (int64) turn functions are by then usually in the cache from the int64 part.
PARTS: dict[str, list[Callable[[], None]]] = {"int64": [_deals, _matches, _search],
                                              "paused": [_paused, _paused_matches, _paused_search]}


def warm(parts: list[str]) -> None:
    """Compile (or load from numba's cache) the kernels of ``parts``."""
    for part in parts:
        for step in PARTS[part]:
            step()


if __name__ == "__main__":
    t0 = time.perf_counter()
    warm(sys.argv[1:])
    print(f"{' '.join(sys.argv[1:])} {time.perf_counter() - t0:.0f} s")  # conftest's summary: the parts' balance
