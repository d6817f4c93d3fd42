"""``durak run`` warns, from the run's tables in memory, of a cell whose capped share passes the alarm."""

from __future__ import annotations

import pandas as pd
import pytest

from analyzer.cli.reporting import warn_capped_tables
from analyzer.stats.tables import CAPPED_ALARM


def test_a_cell_past_the_capped_alarm_is_named_on_stderr_and_one_below_it_is_not(
        capsys: pytest.CaptureFixture[str]) -> None:
    over = int(1000 * CAPPED_ALARM) + 5
    totals = pd.DataFrame({"cell": [0, 1], "capped": [over, 0], "deals_sum": [1000, 1000]})
    cells = pd.DataFrame({"cell": [0, 1], "label": ["czech 4p random", "prague 4p random"]})
    warn_capped_tables(totals, cells)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"WARNING: czech 4p random: {over} of 1000 deals hit the turn cap")
    assert "prague" not in err and err.count("\n") == 1
