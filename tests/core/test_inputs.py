"""Bounded reading of user files and bounded sizes.

Each case here failed before analyzer.core.inputs existed: a MemoryError, a
RecursionError, a process waiting forever on a FIFO, or a folder name ending in
a newline.  The CLI-level rows are in tests/cli/test_bad_input.py (the catalogue).
"""

from __future__ import annotations

import os
import threading
import tomllib
from pathlib import Path

import pytest

from analyzer.core import inputs
from analyzer.engine.replay import ScenarioError, load_scenario
from analyzer.execution.experiment import ExperimentError, load_experiment, parse_experiment

GOOD = 'name = "tiny"\nvariant = "czech"\nplayers = 2\ndeals = 20\nreports = []\n'


def _bounded(fn, seconds: float = 10.0):
    """Run fn in a thread; fail (instead of hanging the suite) if it does not return in time."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still blocked after {seconds} s"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


# --------------------------------------------------------------------------- files


def test_fifo_without_writer_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "exp.toml"
    os.mkfifo(fifo)
    with pytest.raises(ExperimentError, match="exp.toml: cannot read: not a regular file"):
        _bounded(lambda: load_experiment(fifo))
    with pytest.raises(ScenarioError, match="not a regular file"):
        _bounded(lambda: load_scenario(fifo))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_character_device_is_refused_without_reading(device: str) -> None:
    with pytest.raises(ExperimentError, match=f"{device}: cannot read: not a regular file"):
        _bounded(lambda: load_experiment(device))
    with pytest.raises(ScenarioError, match="character device"):
        _bounded(lambda: load_scenario(device))


def test_file_over_the_size_cap_is_refused_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:  # sparse: costs no disk, but stat says 2 GiB
        f.truncate(2 << 30)
    with pytest.raises(ExperimentError, match="big.toml: cannot read: too large: 2,147,483,648 bytes"):
        load_experiment(big)


def test_read_user_text_reads_a_small_file(tmp_path: Path) -> None:
    p = tmp_path / "a.toml"
    p.write_text("x = 'å'\n", encoding="utf-8")
    assert inputs.read_user_text(p) == "x = 'å'\n"
    with pytest.raises(OSError):
        inputs.read_user_text(p, limit=3)


def test_directory_and_missing_file_keep_their_words(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match="cannot read: Is a directory"):
        load_experiment(tmp_path)
    with pytest.raises(ExperimentError, match="cannot read: No such file or directory"):
        load_experiment(tmp_path / "nope.toml")


# --------------------------------------------------------------------------- TOML nesting


@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{a=", "}")])
def test_deep_nesting_is_one_error_not_recursion(tmp_path: Path, opener: str, closer: str) -> None:
    p = tmp_path / "deep.toml"
    p.write_text("x = " + opener * 100_000 + closer * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(ExperimentError, match="deep.toml: not valid TOML: nested more than 32 levels"):
        load_experiment(p)
    with pytest.raises(ScenarioError, match="nested more than 32 levels"):
        load_scenario(p)


def test_brackets_inside_strings_and_comments_do_not_count() -> None:
    text = ('a = "' + "[" * 50 + '"\nb = \'' + "{" * 50 + "'\n# " + "[" * 50
            + '\nc = """\n' + "[" * 50 + '\n"""\n[t]\nd = [[1, 2], [3]]\n[[arr]]\ne = {f = [1]}\n')
    assert inputs.toml_depth_problem(text) is None
    assert inputs.loads_toml(text)["t"]["d"] == [[1, 2], [3]]
    assert inputs.toml_depth_problem("x = " + "[" * 33 + "]" * 33) is not None
    assert inputs.toml_depth_problem("x = " + "[" * 32 + "]" * 32) is None
    with pytest.raises(tomllib.TOMLDecodeError):
        inputs.loads_toml('x = "unterminated\n')


# --------------------------------------------------------------------------- counts and sizes


@pytest.mark.parametrize("key, value", [("deals", 10**12), ("deals", 2**63 - 1), ("matches", 10**12),
                                        ("chunk_size", 10**12), ("match_chunk_size", 2**63 - 1)])
def test_huge_counts_in_the_file_are_refused(key: str, value: int) -> None:
    data = {"name": "x", "variant": "czech", "players": 2, "deals": 10, "reports": [], key: value}
    if key == "matches":
        data["rules"] = {"target": 50}
    with pytest.raises(ExperimentError, match=f"key '{key}': is too large"):
        parse_experiment(data)


def test_too_many_chunks_is_refused_before_they_are_listed() -> None:
    data = {"name": "x", "variant": "czech", "players": 2, "deals": 10**10, "chunk_size": 1000, "reports": []}
    with pytest.raises(ExperimentError, match="key 'deals': makes 10,000,000 chunks"):
        parse_experiment(data)
    exp = parse_experiment({**data, "deals": 10})
    with pytest.raises(ExperimentError, match="deals override 10,000,000,000 per cell makes"):
        exp.with_count(10**10)
    assert exp.with_count(50_000).cells[0].n == 50_000


def test_a_million_cell_grid_is_refused_before_expanding() -> None:
    data = {"name": "x", "variant": "czech", "players": 2, "deals": 10, "reports": [],
            "grid": {"forget_rate": [i / 1000 for i in range(1000)], "target": list(range(1, 1001))}}
    with pytest.raises(ExperimentError, match="key 'grid': makes up to 1,000,000 cells"):
        _bounded(lambda: parse_experiment(data), 5)


@pytest.mark.parametrize("name", ["bad\n", "bad\nname", "a\tb", "x\x00"])
def test_names_with_control_characters_are_refused(name: str) -> None:
    with pytest.raises(ExperimentError, match="key 'name'"):
        parse_experiment({"name": name, "variant": "czech", "players": 2, "deals": 10, "reports": []})


def test_good_file_still_loads(tmp_path: Path) -> None:
    p = tmp_path / "tiny.toml"
    p.write_text(GOOD, encoding="utf-8")
    assert load_experiment(p).name == "tiny"
