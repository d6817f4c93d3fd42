"""The README's first command leaves a clone clean: ``durak run experiments/quick.toml`` writes where git ignores.

The committed example reports under ``reports/`` are the repository's; a user's run goes to ``runs/<name>``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_the_main_job_leaves_a_clone_clean(tmp_path: Path) -> None:
    """A clone's tracked files, as far as the run can touch them (the ignore rules, the experiment, the committed
    quick report), stay as they were, and nothing untracked appears."""
    clone = tmp_path / "clone"
    for rel in (".gitignore", "experiments/quick.toml", *_git(ROOT, "ls-files", "reports/quick").split()):
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, clone / rel)
    _git(clone, "init", "-q")
    _git(clone, "add", "-A")
    _git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "clone")
    run = subprocess.run([sys.executable, "-m", "analyzer", "run", "experiments/quick.toml", "--deals", "200",
                          "--jobs", "1", "--quiet"], cwd=clone, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert (clone / "runs" / "quick" / "report.html").is_file()
    assert _git(clone, "status", "--porcelain", "--untracked-files=all") == ""
