"""Output that cannot be written is one line naming the file or folder at fault.

A report file on a full disk failed with "No space left on device" and no
file name (a failed ``write`` carries none); ``--out`` naming a file printed
only "File exists", after the whole comparison had run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.test_bad_input import assert_user_error, invoke

FULL = Path("/dev/full")  # every write to it fails with ENOSPC, as on a full disk


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full (Linux)")
def test_a_full_disk_while_the_report_is_written_names_the_file(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    out.mkdir()
    (out / "compare.json").symlink_to(FULL)
    res = invoke(["compare", "greedy", "random", "--players", "2", "--deals", "20", "--jobs", "1", "--out", str(out)],
                 tmp_path)
    line = assert_user_error(res, str(out / "compare.json"), "No space left on device")
    assert line.endswith(f"{out / 'compare.json'}: No space left on device")


@pytest.mark.parametrize("command", [
    ["compare", "greedy", "random", "--players", "2", "--deals", "20", "--jobs", "1"],
    ["tune", "weighted", "--players", "2", "--budget", "4", "--decks", "2", "--holdout", "2", "--jobs", "1"],
])
@pytest.mark.parametrize("below", [False, True])
def test_out_naming_a_file_is_one_line_before_any_work(tmp_path: Path, command: list[str], below: bool) -> None:
    afile = tmp_path / "taken"
    afile.write_text("not a folder\n", encoding="utf-8")
    out = afile / "sub" if below else afile
    res = invoke([*command, "--out", str(out)], tmp_path)
    line = assert_user_error(res, f"--out {out}", f"{afile} is a file, not a folder")
    assert "File exists" not in line
    assert sorted(os.listdir(tmp_path)) == ["taken"]
