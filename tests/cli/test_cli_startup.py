"""A quick start: ``durak --help`` and an argument the parser refuses answer without the heavy libraries.

numpy, pandas, numba and matplotlib take seconds to import on a busy machine; the app declares its commands
without them and loads a command's module only when that command runs (analyzer.cli.app._commands).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "pandas", "numba", "matplotlib", "analyzer.cli.work")


def _modules_after(argv: list[str]) -> tuple[list[str], str, str]:
    """The heavy modules loaded by ``durak ARGV`` (run through the entry point), its stdout and stderr."""
    code = ("import sys\nfrom analyzer.cli.app import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    *err, loaded = out.stderr.strip().splitlines()
    return eval(loaded), out.stdout, "\n".join(err)  # noqa: S307 -- our own print of a list of names


@pytest.mark.parametrize("argv", [["--help"], ["simulate", "--help"], ["compare", "--help"],
                                  ["simulate", "--deals", "many"], ["run"], ["nosuchcommand"],
                                  ["simulate", "--deals", "-5"], ["compare", "a", "b", "--jobs", "0"],
                                  ["run", "x.toml", "--deals", "0"], ["tune", "weighted", "--seed", "-1"],
                                  ["compare-rules", "--deals", "0"], ["deals", "--deals", "0"]])
def test_help_and_refused_arguments_load_no_heavy_library(argv: list[str]) -> None:
    loaded, out, err = _modules_after(argv)
    assert loaded == [], f"durak {' '.join(argv)} loaded {loaded}"
    assert out or err.startswith("durak: error:")


def test_help_shows_no_type_noise_beside_flags() -> None:
    _, out, _ = _modules_after(["run", "--help"])
    assert "--quiet" in out and "<bool>" not in out


def _loaded_by(argv: list[str], modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a whole ``durak ARGV`` run (it must succeed) has loaded by its end."""
    code = ("import sys\nfrom analyzer.cli.app import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            f"print(sorted(m for m in {modules!r} if m in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    return eval(out.stderr.strip().splitlines()[-1])  # noqa: S307 -- our own print of a list of names


def test_commands_load_only_what_they_use(tmp_path: Path) -> None:
    """A command imports what it uses: neither rules nor simulate draws, so neither loads matplotlib (nor the
    report builders, the API or the other commands' work), and simulate builds no frame, so it loads no pandas
    (a third of its start-up); the report draws but plays nothing, so no executor or
    runner, nor numba: a report builds strategies (to ask which two are wild twins), and the registry imports a
    built-in's module alone (strategies.BUILTINS), not the search strategies and their compiled kernels.
    simulate loads its kernels from the cache (the suite's warm-up compiled them) without numba's compiler
    registries (numba.np.arraymath is one of them), which only a compile reads (analyzer.kernel._cache)."""
    drawing = ("matplotlib", "analyzer.report.build", "analyzer.api", "analyzer.cli.work")
    assert _loaded_by(["rules", "prague"], drawing + ("pandas", "numba")) == []
    compiler = ("numba.np.arraymath", "numba.np.linalg", "numba.typed.typeddict")
    assert _loaded_by(["simulate", "--deals", "200", "--jobs", "1", "--quiet", "--json"], drawing + compiler) == []
    # its sums fold and print as columns (pandas only for --csv, --tsv or --out); typer converts its options
    # without pydantic (typer < 0.29, pyproject.toml)
    frames = ("pandas", "pyarrow", "pydantic")
    assert _loaded_by(["simulate", "--deals", "200", "--jobs", "1", "--quiet"], frames) == []
    from tests.stats.test_tables import write_results

    folder = write_results(tmp_path / "r")
    playing = ("analyzer.execution.executor", "analyzer.execution.runs.cells", "analyzer.api", "analyzer.cli.work")
    assert _loaded_by(["report", str(folder), "-q"], playing + ("numba",)) == []


def test_the_quick_report_loads_no_numba(tmp_path: Path) -> None:
    """The README's first report (reports/quick: random against greedy), rebuilt, plays and compiles nothing."""
    folder = tmp_path / "quick"
    shutil.copytree(ROOT / "reports" / "quick", folder)
    assert _loaded_by(["report", str(folder), "-q", "--redraw"], ("numba", "llvmlite", "analyzer.kernel")) == []


def test_the_objects_left_at_exit_are_not_walked_again() -> None:
    """The script's main freezes what is left as it returns: Python's collections while it shuts down skip it
    (half a CPU-second after a report, whose charts leave much garbage)."""
    code = ("import atexit, gc\nfrom analyzer.cli import main\n"
            "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0))\nmain(['rules', 'prague'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "frozen True"
