"""The base install (``pip install -e .``, the README's main job) has none of the optional extras: scipy
(which open-spiel brings), open-spiel, Dask, the test tools.  Every module of the product but the OpenSpiel adapter imports
without them, and the main job runs; the suite itself has them installed, so only a process that refuses
those imports can tell."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: what only an extra installs (pyspiel: open-spiel's module; distributed: dask[distributed]'s; the test tools)
EXTRAS = ("scipy", "open_spiel", "pyspiel", "dask", "distributed", "pytest", "hypothesis", "xdist")
#: modules that exist for an extra (the adapter and the Dask runner: a command that needs them says so in one
#: line when the extra is missing)
FOR_AN_EXTRA = ("analyzer.openspiel", "analyzer.execution.cluster")

BLOCK = "import sys\nfor name in {extras!r}:\n    sys.modules[name] = None  # an import of it fails as if absent\n"


def _without_extras(code: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCK.format(extras=EXTRAS) + code], capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout)


def test_every_module_imports_without_the_optional_extras() -> None:
    modules = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                     for top in ("analyzer", "strategies") for p in (ROOT / top).rglob("*.py"))
    modules = [m.removesuffix(".__init__") for m in modules
               if not m.startswith(FOR_AN_EXTRA) and not m.endswith("__main__")]
    code = ("import importlib\nbad = []\n"
            f"for m in {modules!r}:\n"
            "    try:\n        importlib.import_module(m)\n"
            "    except ImportError as exc:\n        bad.append(f'{m}: {exc}')\n"
            "print('\\n'.join(bad))\n")
    done = _without_extras(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"modules that need an optional extra:\n{done.stdout}"


def test_the_main_job_runs_without_the_optional_extras(tmp_path: Path) -> None:
    code = ("from analyzer.cli import main\n"
            f"main(['run', 'experiments/quick.toml', '--deals', '300', '--jobs', '1', '-q', '--out', {str(tmp_path / 'q')!r}])\n")
    done = _without_extras(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "q" / "report.html").is_file()


def test_the_dask_backend_without_dask_is_one_line(tmp_path: Path) -> None:
    argv = ["run", "experiments/quick.toml", "--deals", "300", "--backend", "dask", "-q", "--out", str(tmp_path / "q")]
    code = f"from analyzer.cli import main\nmain({argv!r})\n"
    done = _without_extras(code)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.strip() == 'durak: error: --backend dask needs Dask, an optional extra: pip install -e ".[dask]"'
