"""A report computes each shared table of its results once (analyzer.report.memo), the answers unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analyzer.report.memo import tables_once
from analyzer.stats import tables
from tests.stats.test_tables import write_results


def test_the_position_sums_under_the_position_tables_are_computed_once(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    res = tables.load_results(write_results(tmp_path / "r"))
    asks = [(tables.first_player_advantage, {}), (tables.first_player_advantage, {"pooled": True}),
            (tables.seat_fairness, {"pooled": True}), (tables.worst_positions, {"pooled": True}),
            (tables.win_loss_by_position, {}), (tables.wild_summary, {"pooled": True})]
    alone = [ask(res, **kw) for ask, kw in asks]
    calls: dict[str, int] = {"_positions": 0, "_pooled_positions": 0}

    def counting(name: str) -> Any:
        real = getattr(tables, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)
        return counted

    for name in calls:
        monkeypatch.setattr(tables, name, counting(name))
    with tables_once(res):
        shared = [getattr(tables, ask.__name__)(res, **kw) for ask, kw in asks]
        changed = tables._positions(res)
        changed.loc[:, "n"] = -1.0  # a caller changing what it got changes nobody else's table
        again = tables._positions(res)
    assert calls == {"_positions": 1, "_pooled_positions": 1}
    assert (again["n"] >= 0).all()
    for a, b in zip(alone, shared):
        pd.testing.assert_frame_equal(a, b)
