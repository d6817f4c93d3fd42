"""`durak compare --out` writes an HTML page like an experiment's report, and `durak run` ends with the
headline answers and the path to report.html, also when stdout is not a terminal."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from analyzer.cli.app import app

runner = CliRunner()


def test_compare_out_writes_an_html_page_that_answers_first(tmp_path: Path) -> None:
    folder = tmp_path / "cmp"
    r = runner.invoke(app, ["compare", "--players", "2", "greedy", "random", "--deals", "300", "--jobs", "1",
                            "--seed", "2", "--out", str(folder)])
    assert r.exit_code == 0, r.output
    assert f"{folder}/compare.html" in r.stdout
    page = (folder / "compare.html").read_text(encoding="utf-8")
    summary, ranking = page.index("id='summary'"), page.index("id='ranking-by-win-rate'")
    assert summary < page.index("data:image/png;base64,") < ranking  # the heat map on the first screen
    assert re.search(r"<strong>greedy</strong> wins [\d.]+% \[", page)
    assert "href='#pairs'" in page and "pairs are told apart" in page


def test_run_ends_with_the_headline_answers_and_the_report_path(tmp_path: Path) -> None:
    exp = tmp_path / "tiny.toml"
    exp.write_text('name = "tiny"\nvariants = ["czech"]\nplayers = [2, 3]\nfield = ["greedy", "random"]\n'
                   'deals = 200\nchunk_size = 200\nseed = 5\n', encoding="utf-8")
    out = tmp_path / "out"
    r = runner.invoke(app, ["run", str(exp), "--out", str(out), "--jobs", "1", "--quiet"])  # stdout: not a tty
    assert r.exit_code == 0, r.output
    lines = r.stdout.strip().splitlines()
    assert any(ln.startswith("Going first: Going first is worth most in czech") for ln in lines), r.stdout
    assert any(ln.startswith("Which strategy wins: ") for ln in lines)
    assert lines[-1] == f"report: {out / 'report.html'}" and (out / "report.html").exists()
    assert "**" not in r.stdout


# ---------------------------------------------------------------- charts people read

def _quick_results():
    import numpy as np  # noqa: F401

    from analyzer.core.rules import make_rules
    from analyzer.execution.executor import simulate_deals
    from strategies import get_strategy
    from tests.stats.test_jack_question import results_of

    cells = []
    for variant, players, over in (("czech", 2, {}), ("czech", 2, {"queen_needs_king": True}), ("prague", 3, {})):
        for lineup in (["greedy", "random"] * 2)[:players], (["random", "greedy"] * 2)[:players]:
            rules = make_rules(variant, players, over)
            cells.append((variant, players, "deal", over, list(lineup),
                          simulate_deals(rules, [get_strategy(s) for s in lineup], 300, seed=len(cells))))
    return results_of(cells)


def test_every_heat_map_of_a_report_shares_one_colour_scale(tmp_path: Path, monkeypatch) -> None:
    from analyzer.report import charts, sections

    seen: list[float] = []
    real = charts.plot_heatmap

    def spy(*args, **kw):  # noqa: ANN002, ANN003
        seen.append(kw["lim"])
        ax = real(*args, **kw)
        assert ax.images[0].get_clim() == (-kw["lim"], kw["lim"])
        return ax

    monkeypatch.setattr(charts, "plot_heatmap", spy)
    sections.head_to_head(sections.Context(_quick_results(), tmp_path))
    assert len(seen) == 3 and len(set(seen)) == 1


def test_point_histograms_leave_out_the_winners_empty_hand() -> None:
    import pandas as pd

    from analyzer.report import charts

    ht = pd.DataFrame({"cell": 0, "label": "czech 2p", "lineup": "a,b", "bin": range(6),
                       "count": [900, 0, 10, 30, 40, 20]})
    ax = charts.plot_hist(ht, "points")
    x = ax.lines[0].get_xdata()
    assert min(x) >= 1 and "left out" in ax.get_xlabel()


def test_deal_length_chart_has_one_row_per_rule_set_on_a_log_scale_when_needed() -> None:
    from analyzer.report import charts
    from analyzer.stats import tables

    length = tables.game_length(_quick_results())
    ax = charts.plot_length(length, "deal")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["czech 2p (default)", "czech 2p queen_needs_king=on", "prague 3p (default)"]
    means = length.groupby("rules")["turns_mean"].mean()
    assert means.max() > 3 * means.min()  # queen_needs_king makes czech 2p deals several times longer
    assert ax.get_xscale() == ("log" if means.max() > 10 * means.min() else "linear")
