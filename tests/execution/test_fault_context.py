"""Faults are numbered by cell, chunk and deal; every fault
file is unique and replays to exactly the decision its message names, for any --jobs.

Before, deal numbers restarted in every chunk: two chunks failing at "deal 0" wrote the same
``faults/fault-czech-deal0.toml``, and the file could hold another deal than the message described.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from analyzer.core.cards import DRAW
from analyzer.core.faults import FaultContext, SimulationError
from analyzer.core.rules import make_rules
from analyzer.engine.replay import fault_state, load_scenario, replay
from analyzer.execution.executor import simulate_deals, simulate_matches
from strategies import get_strategy


class FirstDecisionFault:
    """Faults at its first real decision of every deal: every chunk fails at its local deal 0."""

    name = "first-decision-fault"

    def choose(self, view, rng):
        held = set(view.hand)
        return next(c for c in range(52) if c not in held), None


def _fail(rules, chunk: int, size: int, seed: int, label: str = "czech 3p") -> str:
    strats = [FirstDecisionFault()] + [get_strategy("random")] * (rules.players - 1)
    with pytest.raises(SimulationError) as err:
        simulate_deals(rules, strats, size, seed, where=FaultContext(label, 4, chunk, chunk * size))
    return str(err.value)


def test_chunks_failing_at_local_deal_0_write_distinct_files_that_replay_to_their_message(tmp_path, monkeypatch):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("czech", 3)
    # two "workers" at once, as --jobs 2 would run them
    with ThreadPoolExecutor(2) as pool:
        msgs = list(pool.map(lambda c: _fail(rules, c, 100, 1000 + c), [0, 1, 2]))
    paths = []
    for chunk, msg in enumerate(msgs):
        assert "\n" not in msg
        m = re.search(r"deal (\d+) \(cell 4 'czech 3p', chunk (\d+)\), turn (\d+), position (\d)", msg)
        assert m and int(m.group(2)) == chunk and chunk * 100 <= int(m.group(1)) < chunk * 100 + 100, msg
        path = re.search(r"durak replay (\S+)$", msg).group(1)
        assert path.endswith(f"fault-czech-cell4-chunk{chunk}-deal{m.group(1)}.toml")
        paths.append(path)
        sc = load_scenario(path)
        assert sc.fault and sc.fault in msg
        deal, out = replay(sc)
        assert out is None
        # the decision the message names: its turn, its position, the faulty strategy to act
        assert deal.turns == int(m.group(3)) and (deal.current - 1) % 3 == int(m.group(4))
        assert "first-decision-fault" in sc.names[deal.current]
        assert fault_state(sc, deal)[0].endswith("is to act")
    assert len(set(paths)) == 3 and len(list(tmp_path.glob("fault-*.toml"))) == 3


def test_the_same_fault_twice_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("czech", 3)
    a, b = _fail(rules, 0, 40, 7), _fail(rules, 0, 40, 7)
    pa, pb = (re.search(r"durak replay (\S+)$", m).group(1) for m in (a, b))
    assert pa != pb and pb.endswith("-2.toml")
    assert load_scenario(pa).moves == load_scenario(pb).moves


def test_match_faults_name_cell_chunk_and_global_match(tmp_path, monkeypatch):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("czech", 3, {"target": 100})
    strats = [FirstDecisionFault()] + [get_strategy("greedy")] * 2
    with pytest.raises(SimulationError, match=r"match 60 \(cell 1, chunk 3\)") as err:
        simulate_matches(rules, strats, 20, 2, where=FaultContext("", 1, 3, 60))
    assert "fault-czech-cell1-chunk3-match60" in str(err.value)


def test_without_context_numbers_are_local_and_names_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    msg = _fail.__wrapped__ if hasattr(_fail, "__wrapped__") else None
    rules = make_rules("czech", 3)
    with pytest.raises(SimulationError, match=r"\(czech, deal \d+, turn \d+, position 0\)") as err:
        simulate_deals(rules, [FirstDecisionFault()] + [get_strategy("greedy")] * 2, 30, 1)
    assert re.search(r"fault-czech-deal\d+\.toml", str(err.value)) and msg is None
    assert DRAW == 52 and np.int64(1)
