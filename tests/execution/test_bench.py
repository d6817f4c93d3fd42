"""``durak bench``: every figure it prints is a measured, positive rate.

Timings are never asserted (STYLE.md: speed lives in benchmarks, not tests);
only that the command runs from the CLI and reports each measurement.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.kernel import _cache


def test_bench_json_reports_every_engine_for_each_case(monkeypatch) -> None:
    """Every engine's row; search's rows come from analyzer.execution.bench_search (stubbed here: a real
    search measurement takes tens of seconds)."""
    from analyzer.execution import bench_search

    fake = {"case": "czech 2p pimc", "engine": "search", "unit": "decisions", "n": 10, "one_core": 5.0,
            "all_cores": None, "ns_per_turn": None, "turns": None}
    monkeypatch.setattr(bench_search, "search_rows", lambda: [fake])
    res = CliRunner().invoke(app, ["bench", "--deals", "600", "--simple-deals", "100", "--engine-deals", "5",
                                   "--rollouts", "1000", "--variants", "svinya", "--repeats", "2", "--json",
                                   "--startup-repeats", "0"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["unit"] == "per second" and out["cores"] >= 1 and 0 < out["peak_mib"] < 1024
    assert {"deals_s", "matches_s", "positions_s", "cache_hits", "rules_s", "rules_cached"} <= set(out["compile"])
    assert out["compile"]["rules_kernels"] == 2  # svinya 2p deals, czech 2p rollouts
    assert out["kernel_cache"] == str(_cache.FOLDER)  # where compiled kernels are kept, said by the bench
    apart = out["compiled_apart"]  # cold kernels compiled in children: their figures apart from the run's peak
    assert set(apart) == {"kernels", "seconds", "cpu_seconds", "peak_mib"} and apart["kernels"] >= 0
    assert (apart["peak_mib"] > 0) == (apart["kernels"] > 0) and apart["peak_mib"] < 1024
    rows = {(r["case"], r["engine"]): r for r in out["rows"]}
    for engine in ("compiled", "kernel", "kernel, fixed rules", "simple path, paused kernel",
                   "simple path, README's strategy, paused kernel", "python fast path, paused kernel",
                   "history reader (tracker), paused kernel", "rules engine"):
        r = rows[("svinya 2p random", engine)]
        assert r["one_core"] > 0 and r["ns_per_turn"] > 0 and r["turns"] > 0, r
    for engine in ("compiled", "kernel"):
        assert rows[("svinya 2p greedy vs greedy", engine)]["all_cores"] > 0
    assert not any(engine == "numpy" for _, engine in rows)  # the retired simulator is not measured
    roll = rows[("czech 2p greedy from positions", "kernel")]
    assert roll["unit"] == "rollouts" and roll["n"] >= 1000 and roll["all_cores"] > 0
    assert rows[("czech 2p pimc", "search")]["one_core"] == 5.0
    assert not any(case.startswith(("czech 4p", "prague")) for case, _ in rows)
    # repeated rows: the best of the repeats and their median beside it
    assert out["repeats"] == 2
    for engine in ("kernel", "kernel, fixed rules", "simple path, paused kernel", "python fast path, paused kernel"):
        r = rows[("svinya 2p random", engine)]
        assert r["repeats"] == 2 and 0 < r["one_core_median"] <= r["one_core"], r
    for engine in ("kernel", "kernel, fixed rules"):  # the machine's two-thread ceiling measured beside them
        assert rows[("svinya 2p random", engine)]["ceiling"] > 0
    assert rows[("svinya 2p random", "compiled")]["ceiling"] is None
    assert len(out["load"]["before"]) == 3 and len(out["load"]["after"]) == 3
    assert out["per_turn_vs_czech"] == {}  # no czech row measured
    assert out["startup"] is None  # --startup-repeats 0: not measured


def test_bench_without_simple_engine_or_rollouts_and_bad_variants(monkeypatch) -> None:
    """prague: the end-to-end rows too, from analyzer.execution.bench_e2e (stubbed here: its processes are tested
    below), printed beside the others and taken apart."""
    from analyzer.execution import bench_e2e

    part = {"start_s": 1.0, "start_cpu_s": 0.8, "setup_s": 0.01, "load_s": 0.2, "load_cpu_s": 0.2, "run_s": 1.5,
            "run_cpu_s": 1.4, "play_s": 1.0, "tables_s": 0.3, "elapsed_s": 1.5}
    side = {"reported": 400.0, "reported_median": 390.0, "process": 200.0, "process_median": 190.0, "breakdown": part}
    fake = {"case": "prague 4p random", "deals": 3000, "cores": 2, "repeats": 1, "one_core": side, "all_cores": side,
            "prototype": {"one_core": 900.0, "one_core_median": 800.0, "one_core_wall_median": 780.0,
                          "all_cores": 1700.0, "all_cores_median": 1600.0},
            "vs_prototype": {"one_core": 0.5, "all_cores": 0.25},
            "turns_per_deal": {"case": 50.0, "prototype": 25.0}, "vs_prototype_per_turn": {"one_core": 1.0,
                                                                                            "all_cores": 0.5}}
    asked = []
    monkeypatch.setattr(bench_e2e, "measure", lambda n, r: asked.append((n, r)) or fake)
    started = {"repeats": 3, "load": {"before": [1.0, 1.0, 1.0], "after": [1.5, 1.0, 1.0]},
               "rows": {"durak --help": {"best": 0.12, "median": 0.13},
                        "durak simulate --deals 1000": {"best": 0.9, "median": 0.95},
                        "durak report quick, drawn": {"best": 4.5, "median": 4.7},
                        "durak report quick, unchanged": {"best": 0.6, "median": 0.65}}}
    monkeypatch.setattr(bench_e2e, "startup", lambda r: asked.append(("startup", r)) or started)
    args = ["bench", "--deals", "600", "--simple-deals", "0", "--engine-deals", "0", "--rollouts", "0", "--variants",
            "prague", "--no-search", "--e2e-deals", "3000", "--repeats", "1"]
    res = CliRunner().invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    engines = [(r["case"], r["engine"]) for r in out["rows"]]
    assert engines == [("prague 4p random", e) for e in ("compiled", "kernel", "kernel, fixed rules",
                                                         "durak simulate --json (its deals/s)",
                                                         "durak simulate, whole process")] + \
        [("4p shedding prototype", "prototype kernel (benchmarks/proto_game.py)")]
    assert [(r["one_core"], r["all_cores"], r["one_core_median"]) for r in out["rows"][-3:]] == \
        [(400.0, 400.0, 390.0), (200.0, 200.0, 190.0), (900.0, 1700.0, 800.0)]
    assert out["end_to_end"] == fake and asked == [(3000, 1), ("startup", 3)]  # 3 start-up rounds by default
    assert out["startup"] == started
    from analyzer.execution import benchmark

    # the table of the same measurement, with the breakdown beside it (measured once: the rows above)
    monkeypatch.setattr(benchmark, "measure", lambda **_: {k: v for k, v in out.items() if k != "unit"})
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0, table.output
    text = " ".join(table.output.split())
    assert "--jobs 1: start-up 1.00 (imports 0.80), set-up 0.01, kernel load or compile 0.20 (0.20)" in text, text
    assert f"compiled kernels: {_cache.FOLDER} (set NUMBA_CACHE_DIR" in text
    assert "play 1.00, tables 0.30, other 0.20" in text and "one core 0.50, 2 cores 0.25" in text
    assert ("durak --help: 0.12 (0.13) durak simulate --deals 1000: 0.90 (0.95) durak report quick, drawn: 4.50 (4.70) "
            "durak report quick, unchanged: 0.60 (0.65)") in text and "load average before [1.0, 1.0, 1.0]" in text
    assert "PYTHONDONTWRITEBYTECODE" not in text  # the children run with bytecode caches (_env)
    assert "per turn played (prague 4p random deals last 50.0 turns, the prototype's 25.0): one core 1.00, 2 cores 0.50" \
        in text
    monkeypatch.undo()
    monkeypatch.setattr(bench_e2e, "measure", lambda n, r: asked.append((n, r)) or fake)
    none = CliRunner().invoke(app, ["bench", "--deals", "600", "--simple-deals", "0", "--engine-deals", "0",
                                    "--rollouts", "0", "--variants", "svinya", "--no-search", "--repeats", "1", "--json",
                                    "--startup-repeats", "0"])
    assert none.exit_code == 0 and json.loads(none.stdout)["end_to_end"] is None and len(asked) == 2  # no prague
    bad = CliRunner().invoke(app, ["bench", "--variants", "durak"])
    assert bad.exit_code == 2 and "unknown variant 'durak'" in bad.output
    bad = CliRunner().invoke(app, ["bench", "--repeats", "0"])
    assert bad.exit_code == 2 and "--repeats must be a positive number" in bad.output
    bad = CliRunner().invoke(app, ["bench", "--startup-repeats", "-1"])
    assert bad.exit_code == 2 and "--startup-repeats must be 0" in bad.output


def test_startup_rows_time_each_command_in_a_fresh_process(tmp_path) -> None:
    """bench_e2e.startup: CPU seconds of durak --help, durak simulate --deals 1000 and durak report (here of a
    small synthetic folder, copied: the folder itself is left untouched), each positive; the report unchanged
    the second time costs less than drawing it."""
    from analyzer.execution import bench_e2e
    from tests.stats.test_tables import write_results

    folder = write_results(tmp_path / "small")
    st = bench_e2e.startup(1, report=folder)
    rows = st["rows"]
    assert list(rows) == ["durak --help", "durak simulate --deals 1000", "durak report small, drawn",
                          "durak report small, unchanged"]
    assert all(0 < r["best"] <= r["median"] for r in rows.values()), rows
    assert rows["durak report small, unchanged"]["best"] < rows["durak report small, drawn"]["best"]
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json", "results"]
    assert len(st["load"]["before"]) == 3
    assert bench_e2e.startup(1, report=tmp_path / "none")["rows"].keys() == {"durak --help",
                                                                           "durak simulate --deals 1000"}


def test_bench_children_run_as_a_users_python_with_bytecode_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's Python writes and reads .pyc files; a machine that sets PYTHONDONTWRITEBYTECODE (this one does)
    would make every timed start compile pandas and pyarrow again: the bench's children run without it."""
    from analyzer.execution import bench_e2e

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = bench_e2e._env()
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["PYTHONPATH"]


def test_per_turn_ratio_is_each_random_case_over_czech_4p_round_by_round() -> None:
    from analyzer.execution.benchmark import per_turn_rounds, per_turn_vs_czech

    rounds = per_turn_rounds(["czech", "prague"], 300, 3)
    assert list(rounds) == ["prague 4p random"] and len(rounds["prague 4p random"]) == 3
    assert all(0.1 < x < 10 for x in rounds["prague 4p random"]), rounds  # ns per turn, not per deal
    assert per_turn_rounds(["prague", "svinya"], 300, 3) == {}  # no czech: nothing to compare with
    assert per_turn_vs_czech({"prague 4p random": [1.0, 3.0, 2.0], "svinya 2p random": [0.5]}) == \
        {"prague 4p random": 2.0, "svinya 2p random": 0.5}


def test_probe_two_threads_do_the_same_work_as_one() -> None:
    """The machine's ceiling (analyzer.kernel.probe): both thread counts fill every unit with the same words,
    so the ratio compares equal work; a positive ratio comes back."""
    import numpy as np

    from analyzer.kernel.driver import run_blocks
    from analyzer.kernel.probe import spin, two_thread_scaling

    one, two = np.zeros(5000, np.uint64), np.zeros(5000, np.uint64)
    run_blocks(lambda a, b: spin(a, b, one), 0, 5000, 1, size=64)
    run_blocks(lambda a, b: spin(a, b, two), 0, 5000, 2, size=64)
    assert (one != 0).all() and (one == two).all()
    assert two_thread_scaling(4096) > 0


def test_end_to_end_runs_the_users_command_and_takes_its_run_apart() -> None:
    """bench_e2e's two processes: ``durak simulate`` as a user runs it (its JSON's figure, and over the whole
    process), and the same run with its parts timed (each part positive, the parts of a one-thread run within it)."""
    from analyzer.execution import bench_e2e

    run = bench_e2e.run_command(3000, 1)
    assert 0 < run["process"] < run["reported"] and run["wall_s"] > 0  # the process counts its start-up too
    assert 20 < run["turns"] < 200  # the JSON's mean turns a deal: the per-turn ratio's length of a deal
    bench_proto = bench_e2e.comparator()
    assert bench_proto is not None
    assert 10 < bench_proto.turns_per_deal(2000) < run["turns"]  # the comparator's game is the shorter
    b = bench_e2e.run_breakdown(3000, 1)
    assert all(b[k] > 0 for k in ("start_s", "start_cpu_s", "setup_s", "load_s", "play_s", "tables_s", "run_s")), b
    assert b["play_s"] + b["tables_s"] <= b["run_s"] and b["elapsed_s"] <= b["run_s"], b


def test_match_rows_warm_up_as_big_as_a_timed_run_and_repeat(monkeypatch) -> None:
    """The match rows' warm-up plays as many matches as each timed run: a run big enough to switch to the kernel
    compiled for its rules switches in the warm-up, not in the first timed (one-core) run, which made two cores
    look faster than they were.  Each row is the best of its repeats, with the medians beside."""
    from analyzer.execution import benchmark

    calls = []
    real = benchmark.play

    def recording(rules, specs, n, **kw):
        calls.append((n, kw["jobs"], kw["seed"]))
        return real(rules, specs, n, **kw)

    monkeypatch.setattr(benchmark, "play", recording)
    rows = benchmark.match_rows(40, repeats=2)
    count = 40 * benchmark.COMPILED_MATCHES
    assert calls[0] == (count, -1, 99)  # the warm-up: as big as a timed run, another seed
    assert [c[:2] for c in calls[1:]] == [(count, 1), (count, -1)] * 2  # two rounds of one core, every core
    assert [r.engine for r in rows] == ["compiled"]
    for r in rows:
        assert r.unit == "matches" and r.repeats == 2 and r.turns > 1
        assert 0 < r.one_core_median <= r.one_core and 0 < r.all_cores_median <= r.all_cores


def test_bench_doc_keeps_the_run_between_its_markers_and_leaves_the_page_around_them(monkeypatch, tmp_path) -> None:
    """``durak bench --doc PAGE``: the table and the lines under it go between the page's markers (appended the
    first time), replaced on the next run; what the page says around them stays."""
    from analyzer.execution import benchmark

    row = {"case": "svinya 2p random", "engine": "kernel", "unit": "deal", "one_core": 1000.0, "one_core_median": 900.0,
           "all_cores": 1800.0, "all_cores_median": 1700.0, "ceiling": 1.9, "ns_per_turn": 25.0,
           "turns": 40.0}
    result = {"cores": 2, "compile": {"deals_s": 0.1, "matches_s": 0.1, "positions_s": 0.1, "cache_hits": 3,
                                      "rules_kernels": 1, "rules_s": 0.2, "rules_cached": 1},
              "rows": [row], "end_to_end": None, "startup": None, "peak_mib": 300.0,
              "compiled_apart": {"kernels": 0}, "repeats": 3, "load": {"before": [0.5, 0.4, 0.3], "after": [0.6, 0.4, 0.3]},
              "per_turn_vs_czech": {}, "per_turn_rounds": {}, "kernel_cache": None}
    monkeypatch.setattr(benchmark, "measure", lambda **_: result)
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n\nCurated words.\n")
    args = ["bench", "--variants", "svinya", "--repeats", "3", "--doc", str(page), "-q"]
    assert CliRunner().invoke(app, args).exit_code == 0
    first = page.read_text()
    assert first.startswith("# Performance\n\nCurated words.\n\n" + benchmark.DOC_BEGIN)
    assert "| svinya 2p random | kernel | deal | 1,000 | 900 | 1,800 (1,700) | 1.80 | 1.90 | 25 | 40.0 |" in first
    assert "- load average (1, 5, 15 min) before [0.5, 0.4, 0.3]" in first and "best and median of 3 repeats" in first
    page.write_text(first + "\n## Later words\n")
    row["one_core"] = 2000.0
    assert CliRunner().invoke(app, args).exit_code == 0
    second = page.read_text()
    assert second.count(benchmark.DOC_BEGIN) == 1 and "| 2,000 |" in second and "| 1,000 |" not in second
    assert second.endswith("## Later words\n") and "Curated words." in second
    bad = CliRunner().invoke(app, ["bench", "--doc", str(tmp_path / "nowhere" / "p.md")])
    assert bad.exit_code == 2 and "does not exist" in bad.output
