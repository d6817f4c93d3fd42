"""The bench's comparator (benchmarks/proto_game.py, outside the package): a real game whose results follow from its
rules, and a bench without it measures the product alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analyzer.execution.bench_e2e import comparator

bench_proto = comparator()


def test_the_prototype_plays_whole_deals_the_same_on_any_threads():
    one = bench_proto.play(5000, seed=3, threads=1)
    two = bench_proto.play(5000, seed=3, threads=2)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    assert one["wins"].sum() + one["capped"] == 5000 and one["losses"].sum() == 5000
    # the first player moves first and sheds first more often; every deal takes at least 5 turns of its winner
    assert one["wins"][0] > one["wins"][3] and one["turns"] >= 5000 * 17
    assert not np.array_equal(one["wins"], bench_proto.play(5000, seed=4)["wins"])  # the seed matters


def test_the_comparator_is_lab_apparatus_outside_the_installed_package(tmp_path):
    """It lives in the checkout's benchmarks/ (pyproject installs analyzer and strategies only); a bench where it is
    absent has the product's end-to-end rows and no comparator row."""
    import analyzer
    from analyzer.execution import bench_e2e
    from analyzer.execution.benchmark import end_to_end_rows

    assert bench_proto is not None and Path(analyzer.__file__).parent not in Path(bench_proto.__file__).parents
    assert comparator(tmp_path / "absent.py") is None
    one = {"reported": 10.0, "reported_median": 9.0, "process": 5.0, "process_median": 4.0}
    end = {"case": "prague 4p random", "deals": 100, "repeats": 1, "cores": 2, "one_core": one, "all_cores": one}
    assert [r.engine for r in end_to_end_rows(end)] == ["durak simulate --json (its deals/s)",
                                                          "durak simulate, whole process"]
    with_it = {**end, "prototype": {"one_core": 1.0, "all_cores": 2.0, "one_core_median": 1.0}}
    assert len(end_to_end_rows(with_it)) == 3
    assert bench_e2e.COMPARATOR == Path(bench_proto.__file__)
