"""Move histories, not only outcomes (OpenSpiel's consistency tests).

For a sample of deals of every configuration of the equivalence test, the
simulator's recorded moves (the replay tokens, forced moves included) are the
rules engine's, token for token; a prague Jack lead's named suit agrees too.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, MoveHistory, play_deal
from analyzer.sim.batch import BatchSim
from tests.sim.test_simulator_equals_engine import CONFIGS, IDS, LINEUPS

SAMPLE = 40
#: czech's forget_rate=1.0: every deal runs to the turn cap (2,000 moves, one lock-step each): one round of the slots
SAMPLES = {"czech-4-starter_effects=True-sevens=True-last_card_call=True-forget_rate=1.0": 11}


@pytest.mark.parametrize("variant,players,overrides,sample", [(*c, SAMPLES.get(i, SAMPLE)) for c, i in zip(CONFIGS, IDS)],
                         ids=IDS)
def test_simulator_moves_equal_engine_moves(variant, players, overrides, sample):
    from strategies import get_strategy

    rules = make_rules(variant, players, overrides)
    rng = np.random.default_rng(zlib.crc32(f"moves-{variant}-{players}-{sorted(overrides.items())}".encode()))
    decks = shuffled_decks(rules.deck_size, sample, rng)
    start = int(rng.integers(len(LINEUPS)))
    strats = [get_strategy(LINEUPS[(start + p) % len(LINEUPS)]) for p in range(players)]
    sim = BatchSim(rules, strats, slots=11, rng=np.random.default_rng(0), trace_jobs=set(range(sample)))
    sim.run(sample, decks)
    n = rules.players
    for i in range(sample):
        hist = MoveHistory()
        play_deal(Deal.from_deck(rules, decks[i].tolist()), [strats[(s - 1) % n] for s in range(n)],
                  np.random.default_rng(0), history=hist)
        assert sim.histories[i] == hist.tokens, f"deal {i}: first difference at move " + str(
            next((k for k, (a, b) in enumerate(zip(sim.histories[i], hist.tokens)) if a != b), "end"))
        lead = sim.lead_suits[i]
        assert (None if lead is None or lead < 0 else lead) == hist.lead_suit, f"deal {i}: Jack lead suit"
