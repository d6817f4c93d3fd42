"""A run's memory does not grow with its length: chunk sums are folded into running totals as they finish
(analyzer.execution.totals), so ``durak simulate`` of 100 times the deals and ``durak run`` of 25 times peak at the
same resident memory.  Each command runs in a process of its own, in chunks of 1,000 deals so that the long run has
hundreds of them (a run that kept every chunk's sums to the end grew by tens of MB over them)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

#: Runs the durak command line in this process with the chunk size of ``durak simulate`` set (it has no option for
#: it), then writes the peak resident memory (KiB) of the process and of any worker it started.
PEAK = """
import resource, sys
from analyzer.execution import experiment
experiment.DEFAULT_CHUNK["deal"] = int(sys.argv[2])
from analyzer.cli import main
main(sys.argv[3:])
peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
open(sys.argv[1], "w").write(str(peak))
"""
CHUNK = 1_000
SMALL, BIG = 8_000, 800_000  # 8 and 800 chunks; both below the deals that switch a cell to its own kernel
#: allowed growth of the peak over 100 times the deals (KiB): noise (the kernel's threads, the allocator)
SLACK_KB = 15 * 1024
#: ``durak run`` stores every chunk (a file each), so its long run is 200 chunks, not 800, and its slack narrower:
#: its peak moved by under 1 MB over them, and a planted leak (every chunk's sums kept) added 18.5 MB
RUN_BIG, RUN_SLACK_KB = 200_000, 10 * 1024

EXPERIMENT = f"""
name = "flat"
variants = ["czech"]
players = [4]
lineup = ["random"]
deals = {SMALL}
chunk_size = {CHUNK}
seed = 5
reports = []
"""


def _peak_kb(tmp_path: Path, tag: str, args: list[str]) -> int:
    out = tmp_path / f"{tag}.peak"
    done = subprocess.run([sys.executable, "-c", PEAK, str(out), str(CHUNK), *args], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return int(out.read_text())


def _flat(tmp_path: Path, command: Callable[[Path], list[str]], big_deals: int = BIG) -> tuple[int, int]:
    small = _peak_kb(tmp_path, "small", [*command(tmp_path / "small"), "--deals", str(SMALL)])
    big = _peak_kb(tmp_path, "big", [*command(tmp_path / "big"), "--deals", str(big_deals)])
    return small, big


def test_durak_simulate_peaks_at_the_same_memory_for_100_times_the_deals(tmp_path: Path) -> None:
    small, big = _flat(tmp_path, lambda _out: ["simulate", "--variant", "czech", "--players", "4", "--jobs", "2",
                                               "--quiet", "--json"])
    assert big - small < SLACK_KB, f"peak {small} KiB at {SMALL:,} deals, {big} KiB at {BIG:,}"


def test_durak_run_peaks_at_the_same_memory_for_25_times_the_deals(tmp_path: Path) -> None:
    file = tmp_path / "flat.toml"
    file.write_text(EXPERIMENT)
    small, big = _flat(tmp_path, lambda out: ["run", str(file), "--out", str(out), "--jobs", "2", "--quiet"], RUN_BIG)
    assert big - small < RUN_SLACK_KB, f"peak {small} KiB at {SMALL:,} deals, {big} KiB at {RUN_BIG:,}"
    assert len(list((tmp_path / "big" / "chunks").glob("c*-k*.zip"))) == RUN_BIG // CHUNK
