"""build_report on synthetic results folders written with pandas.to_parquet."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from analyzer.core.report_kinds import REPORT_KINDS
from analyzer.report import format as fmt
from analyzer.report import render
from analyzer.report.build import ReportPaths, build_report, requested_kinds
from analyzer.report.sections import SECTIONS
from analyzer.stats.tables import ResultsError
from tests.stats.test_tables import MANIFEST, write_results

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReportPaths]:
    d = write_results(tmp_path_factory.mktemp("report"))
    return d, build_report(d)


def test_report_writes_markdown_html_and_charts(built: tuple[Path, ReportPaths]) -> None:
    d, paths = built
    assert paths.markdown == d / "report.md" and paths.markdown.exists()
    assert paths.html == d / "report.html" and paths.html.exists()
    assert paths.charts and all(p.suffix == ".png" for p in paths.charts)  # one format by default
    assert all(p.parent == d / "charts" and p.read_bytes()[:8] == PNG_MAGIC for p in paths.charts)
    assert sorted((d / "charts").iterdir()) == sorted(paths.charts)  # every chart file is the report's


def test_report_opens_with_capped_warning_then_answers(built: tuple[Path, ReportPaths]) -> None:
    md = built[1].markdown.read_text(encoding="utf-8")
    lines = [ln for ln in md.splitlines() if ln.strip()]
    assert lines[0].startswith("# ")
    warn = next(ln for ln in lines if ln.startswith("**WARNING"))
    assert "turn cap" in warn and "2.0%" in warn
    assert md.index("WARNING") < md.index("## Answers") < md.index("## First-mover advantage")


def test_first_player_sentence_states_rate_interval_fair_share_and_n(built: tuple[Path, ReportPaths]) -> None:
    md = built[1].markdown.read_text(encoding="utf-8")
    # prague's first mover is the dealer (PR2), the last position
    assert ("In prague with 3 players the first mover, position 2 (the dealer), wins 30.0% [27.2, 32.9] of deals "
            "against a fair 33.3% (n=1,000)") in md
    # two seatings pooled, 110 of 198 decided deals (2 capped, G10) against a fair 50%: not distinguishable
    assert re.search(r"rotated over 2 seatings\) the first mover, position 0 \(left of the dealer\), wins 55\.6% "
                     r"\[48\.6, 62\.3\] of deals against a fair 50\.0% \(n=198\): not distinguishable from fair", md)
    assert "of matches against a fair 50.0% (n=10): not distinguishable from fair" in md


def test_report_answers_wild_penalty_keeper_dumper_and_length(built: tuple[Path, ReportPaths]) -> None:
    md = built[1].markdown.read_text(encoding="utf-8")
    assert "picked the loser in 10.0% [8.3, 12.0] of deals" in md
    assert "wild-keeper ends holding a wild most often (35.0% of its seat-deals) and wild-dumper least" in md
    assert "wild-keeper loses 54.0%" in md and "not distinguishable from 0" in md
    assert "a deal lasts 23.0 [19.6, 26.4] turns" in md
    assert "a match lasts 7.0 deals" in md


def test_report_records_how_it_was_run(built: tuple[Path, ReportPaths]) -> None:
    md = built[1].markdown.read_text(encoding="utf-8")
    tail = md[md.index("## How this was run"):]
    assert MANIFEST["command"] in tail and "Seed: 7" in tail and "0.1.0" in tail
    assert "1,370 deals simulated, 70 of them in 10 matches" in tail
    assert "sevens=True" in tail and "wild-keeper, wild-dumper" in tail


def test_html_is_self_contained_with_embedded_png_and_tables(built: tuple[Path, ReportPaths]) -> None:
    page = built[1].html.read_text(encoding="utf-8")
    imgs = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", page)
    assert imgs and all(base64.b64decode(i)[:8] == PNG_MAGIC for i in imgs)
    assert "<table" in page and "class='warn'" in page
    assert not re.search(r"src=['\"](?!data:)", page)  # nothing loaded from outside the file
    assert "<strong>WARNING" in page


def test_report_works_with_deals_only_and_single_variant(tmp_path: Path) -> None:
    d = write_results(tmp_path, manifest={**MANIFEST, "reports": ["first_player", "wild_penalty"]}, keep_cells=[0])
    paths = build_report(d)
    md = paths.markdown.read_text(encoding="utf-8")
    body = md.split("## How this was run")[0]
    assert "WARNING" not in body and "of matches" not in body and "czech" not in body
    assert "In prague with 3 players the first mover, position 2 (the dealer), wins" in md
    assert "No cell seats two strategies" in md


def test_report_works_with_matches_only(tmp_path: Path) -> None:
    d = write_results(tmp_path, manifest={**MANIFEST, "reports": ["first_player", "length"]}, keep_cells=[3])
    md = build_report(d).markdown.read_text(encoding="utf-8")
    assert "of matches against a fair 50.0%" in md and "a match lasts 7.0 deals" in md


def test_manifest_reports_list_restricts_sections(tmp_path: Path) -> None:
    d = write_results(tmp_path, manifest={**MANIFEST, "reports": ["first_player"]})
    md = build_report(d).markdown.read_text(encoding="utf-8")
    assert "## First-mover advantage" in md
    assert "## The wild-holding" not in md and "## Game length" not in md


def test_unknown_report_kind_is_one_line_naming_it_and_the_valid_ones(tmp_path: Path) -> None:
    d = write_results(tmp_path, manifest={**MANIFEST, "reports": ["first_player", "jack"]})
    with pytest.raises(ResultsError) as e:
        build_report(d)
    msg = str(e.value)
    assert "\n" not in msg and "'jack'" in msg and "manifest.json" in msg
    assert all(k in msg for k in REPORT_KINDS)


def test_one_builder_per_report_kind_in_report_order() -> None:
    assert tuple(SECTIONS) == REPORT_KINDS


@pytest.mark.parametrize("kinds, expected", [
    ([], REPORT_KINDS),
    (["length", "head_to_head"], ("head_to_head", "length")),
    (["positions", "first_player", "positions"], ("first_player", "positions")),
])
def test_requested_kinds_are_exact_and_in_report_order(kinds: list[str], expected: tuple[str, ...]) -> None:
    assert requested_kinds({"reports": kinds}, Path(".")) == expected


@pytest.mark.parametrize("kind", ["jack", "wild", "ends", "charts", "First_Player"])
def test_requested_kinds_have_no_aliases(kind: str) -> None:
    with pytest.raises(ResultsError, match=repr(kind)):
        requested_kinds({"reports": [kind]}, Path("."))


def test_percent_formatting_keeps_small_rates_visible() -> None:
    assert fmt.pct(0.3612) == "36.1%"
    assert fmt.pct(0.0002) == "0.020%"
    assert fmt.pct_ci(0.5, 0.4038, 0.5962) == "50.0% [40.4, 59.6]"
    assert fmt.pp_ci(0.0277, 0.0267, 0.0286) == "+2.8 pp [+2.7, +2.9]"


def test_markdown_table_escapes_pipes() -> None:
    import pandas as pd

    t = render.md_table(pd.DataFrame({"a": ["x|y"], "b": [1]}))
    assert t.splitlines()[2] == "| x\\|y | 1 |"


def test_report_states_effect_of_a_rule_switched_alone(built: tuple[Path, ReportPaths]) -> None:
    md = built[1].markdown.read_text(encoding="utf-8")
    assert ("switching on sevens=on moves the first mover's win rate per deal from 70.0% to 51.0%, "
            "-19.0 pp [-32.3, -5.6]") in md
    assert "## What each rule option changes" in md


def test_report_pools_rotated_lineups_for_the_first_player_answer(built: tuple[Path, ReportPaths]) -> None:
    md = built[1].markdown.read_text(encoding="utf-8")
    answers = md[md.index("## Answers"):md.index("### Which seat")]
    assert ("In czech with 2 players (sevens=on; wild-dumper and wild-keeper rotated over 2 seatings) "
            "the first mover, position 0 (left of the dealer), wins 55.6%") in answers


def test_strategy_sentences_name_a_winner_only_when_distinguishable() -> None:
    import pandas as pd

    from analyzer.report.sentences import strategy_sentences
    from analyzer.stats.intervals import wilson

    def rows(rates: dict[str, float], n: int) -> pd.DataFrame:
        out = []
        for s, p in rates.items():
            r = wilson(p * n, n)
            out.append({"variant": "czech", "players": 4, "unit": "deal", "rules": "{}", "strategy": s,
                        "outcome": "win", "count": p * n, "rate": p, "lo": float(r.lo), "hi": float(r.hi),
                        "n": n, "fair": 0.25})
        return pd.DataFrame(out)

    def pair(a: str, b: str, diff: float, half: float, p_holm: float, sure: bool) -> pd.DataFrame:
        return pd.DataFrame([{"variant": "czech", "players": 4, "unit": "deal", "rules": "{}", "a": a, "b": b,
                              "diff": diff, "lo": diff - half, "hi": diff + half, "p_holm": p_holm,
                              "distinguishable": sure}])

    clear = strategy_sentences(rows({"greedy": 0.30, "random": 0.20}, 100_000),
                               pair("greedy", "random", 0.10, 0.004, 1e-20, True))
    assert len(clear) == 1 and "greedy wins most" in clear[0] and "ahead of random" in clear[0]
    assert "+10.0 pp [+9.6, +10.4]" in clear[0]
    # the pair is stored as (a, b) by name; the leader's difference is read with the right sign
    flipped = strategy_sentences(rows({"weighted": 0.30, "greedy": 0.20}, 100_000),
                                 pair("greedy", "weighted", -0.10, 0.004, 1e-20, True))
    assert "weighted wins most, +10.0 pp [+9.6, +10.4] ahead of greedy" in flipped[0]
    # the interval excludes 0 but the Holm p (0.13) does not agree: no winner (the one verdict rule)
    close = strategy_sentences(rows({"greedy": 0.26, "weighted": 0.250}, 10_000),
                               pair("greedy", "weighted", 0.01, 0.009, 0.13, False))
    assert "not distinguishable" in close[0] and "wins most" not in close[0] and "Holm p 0.13" in close[0]




def test_a_spec_with_several_parameters_is_one_strategy_in_the_sentences() -> None:
    """pimc?budget=4000,worlds=64 in every seat is one line-up of one strategy, not "lineup pimc?budget=4000,
    worlds=64, ..." (the stored line-up joins specs with commas, and a spec's parameters use them too)."""
    from analyzer.report.sentences import split_lineup, where

    spec = "pimc?budget=4000,worlds=64"
    assert split_lineup(",".join([spec] * 4)) == [spec] * 4
    assert split_lineup(f"greedy,{spec},random") == ["greedy", spec, "random"]
    row = {"rules": "", "variant": "czech", "players": 4, "lineup": ",".join([spec] * 4)}
    assert where(row) == "In czech with 4 players"
    mixed = {**row, "lineup": f"{spec},weighted,weighted,weighted"}
    assert where(mixed) == f"In czech with 4 players (lineup {spec}, weighted, weighted, weighted)"


def test_the_turn_cap_warning_names_a_line_up_of_one_spec_once() -> None:
    """G10 capped deals: the warning box reads a stored line-up spec by spec (split_lineup), as the other
    sentences do: the same pimc?budget=...,worlds=... in every seat is one strategy, said once."""
    import pandas as pd

    from analyzer.report.sentences import capped_warnings

    spec = "pimc?budget=4000,worlds=64"
    cell = {"capped_alarm": True, "label": "svinya 2p", "unit": "deal", "capped_rate": 0.0015, "capped_lo": 0.0005,
            "capped_hi": 0.0044, "capped": 3, "deals_sum": 2000}
    length = pd.DataFrame([{**cell, "lineup": f"{spec},{spec}"},
                           {**cell, "unit": "match", "lineup": "wild-keeper,wild-dumper"},
                           {**cell, "capped_alarm": False, "lineup": "random,random"}])
    one, mixed = capped_warnings(length)
    assert one.startswith(f"**WARNING: svinya 2p (deals, {spec} in every seat): 0.15% [0.05, 0.44] of deals")
    assert one.count("pimc") == 1
    assert mixed.startswith("**WARNING: svinya 2p (matches, lineup wild-keeper, wild-dumper): ")
