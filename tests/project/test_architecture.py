"""The package's shape, read from the source with ``ast``.

- The layers of docs/architecture.md's table ("The layers") hold: a module imports
  only from its own layer and the layers above it in the table.  The order is
  read from the page, so the table and the code cannot drift apart.
- No two modules import each other (counting imports inside functions and
  under ``TYPE_CHECKING``: a cycle hidden there is still a cycle).
- No unit (function or class) is over 400 lines.
- At most 8 imports of project modules inside functions, each with a one-line
  reason in a comment on its line or the line above: such an import hides a
  package cycle or delays a cost, and the reader should be told which.
- The run kinds live in one package: every kind of ``KINDS`` in
  ``analyzer/execution/runs/__init__.py`` is a module of that package and every
  module there is a kind (or the run folder); only the run folder
  (``analyzer/execution/runs/folder.py``) writes a ``manifest.json``; only the
  report layer draws (imports matplotlib or the chart helpers).

Each check is a function of a source tree, and ``test_each_check_fails_on_a_planted_violation`` runs it on
a small planted tree that breaks it, so a check that can no longer fail is noticed.
"""

from __future__ import annotations

import ast
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGES = ("analyzer", "strategies")
MAX_UNIT_LINES = 400
MAX_FUNCTION_IMPORTS = 8


@dataclass(frozen=True)
class Import:
    """One import of a project module: ``source`` imports ``target`` at ``line``."""

    source: str
    target: str
    line: int
    in_function: bool
    reason: str  # the comment on the import's line or the line above ('' if none)


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the project's packages under ``root``, by dotted name."""
    return {_module_name(root, p): p for pkg in PACKAGES if (root / pkg).is_dir()
            for p in sorted((root / pkg).rglob("*.py"))}


def _targets(node: ast.Import | ast.ImportFrom, source: str, is_package: bool, known: dict[str, Path]) -> list[str]:
    """The project modules an import statement loads (``from pkg import mod`` is module ``pkg.mod``)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = source.split(".")[: None if is_package else -1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, base] if base else parts)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    out = []
    for name in names:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in known and name not in out:
            out.append(name)
    return out


def imports(root: Path) -> list[Import]:
    """Every import of a project module by a project module, top-level, in functions and under TYPE_CHECKING."""
    known = modules(root)
    found = []
    for name, path in known.items():
        text = path.read_text()
        lines = text.splitlines()
        tree = ast.parse(text)
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            up: ast.AST = node
            in_function = False
            while up in parents:
                up = parents[up]
                in_function |= isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            around = lines[node.lineno - 2: node.end_lineno or node.lineno]  # the line above and the statement
            comments = [m.group(1).strip() for t in around if (m := re.search(r"#\s*(.*)$", t))]
            reason = next((c for c in comments if c and not c.startswith(("noqa", "type:"))), "")
            for target in _targets(node, name, path.name == "__init__.py", known):
                if target != name:
                    found.append(Import(name, target, node.lineno, in_function, reason))
    return found


def readme_layers(readme: Path) -> list[tuple[str, list[str]]]:
    """The layers of the page's table, bottom first: (layer, the paths of its "where" column)."""
    text = readme.read_text().split("## The layers", 1)[1].split("\n## ", 1)[0]
    layers = []
    for row in text.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("layer", "") and not set(cells[0]) <= {"-"}:
            layers.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return layers


def layer_of(module: str, layers: list[tuple[str, list[str]]]) -> int:
    """The table row of ``module`` (the package root ``analyzer``, which holds the version, sits with the
    core); a module no row names is an error, so a new package has to be placed in the table."""
    if module == "analyzer":
        return 0
    path = module.replace(".", "/")
    for i, (_, wheres) in enumerate(layers):
        for where in wheres:
            w = where.removesuffix(".py").rstrip("/")
            if path == w or path.startswith(w + "/"):
                return i
    raise AssertionError(f"{module} is in no layer of docs/architecture.md's table")


def layer_violations(root: Path, readme: Path) -> list[str]:
    layers = readme_layers(readme)
    return sorted({f"{i.source}:{i.line} ({layers[layer_of(i.source, layers)][0]}) imports {i.target} "
                   f"({layers[layer_of(i.target, layers)][0]})"
                   for i in imports(root) if layer_of(i.target, layers) > layer_of(i.source, layers)})


def mutual_imports(root: Path) -> list[str]:
    edges = {(i.source, i.target) for i in imports(root)}
    return sorted(f"{a} <-> {b}" for a, b in edges if (b, a) in edges and a < b)


def long_units(root: Path, limit: int = MAX_UNIT_LINES) -> list[str]:
    out = []
    for name, path in modules(root).items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > limit:
                    out.append(f"{name}.{node.name}: {size} lines")
    return out


def function_imports(root: Path) -> list[Import]:
    """Project imports inside functions, one per statement."""
    seen: dict[tuple[str, int], Import] = {}
    for i in imports(root):
        if i.in_function:
            seen.setdefault((i.source, i.line), i)
    return list(seen.values())


def function_import_problems(root: Path, limit: int = MAX_FUNCTION_IMPORTS) -> list[str]:
    found = function_imports(root)
    out = [f"{i.source}:{i.line} imports {i.target} inside a function without a reason comment"
           for i in found if not i.reason]
    if len(found) > limit:
        out.append(f"{len(found)} function-level project imports, at most {limit}: "
                   + ", ".join(f"{i.source}:{i.line}" for i in found))
    return out


# ------------------------------------------------------------------------- the project


def compiled_outside_kernel(root: Path) -> list[str]:
    """Modules outside analyzer/kernel that compile with numba: compiled code lives in the kernel, whose cache key
    covers its files (analyzer.kernel._cache.compiled_sources), so no compiled module can run stale."""
    from analyzer.kernel._cache import _COMPILES

    kernel = root / "analyzer" / "kernel"
    return [name for name, path in modules(root).items()
            if path.parent != kernel and _COMPILES.search(path.read_bytes())]


RUNS_PACKAGE = "analyzer/execution/runs"
RUN_FOLDER = f"{RUNS_PACKAGE}/folder.py"
WRITES = {"write_text", "write_bytes", "atomic_write", "open", "dump", "write_result"}
DRAWING = {"figure", "save_figure"}


def run_kind_problems(root: Path) -> list[str]:
    """The registry's kinds against the package's modules: each ``KINDS`` value names a module of the package,
    and each module of the package (but the registry and the run folder) is a kind."""
    package = root / RUNS_PACKAGE
    init = package / "__init__.py"
    if not init.is_file():
        return [f"{RUNS_PACKAGE}/__init__.py: no run-kind registry"]
    kinds: dict[str, str] = {}
    for node in ast.walk(ast.parse(init.read_text())):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "KINDS" for t in node.targets):
            assert isinstance(node.value, ast.Dict), "KINDS must be a dict literal"
            kinds = {ast.literal_eval(k): v.id for k, v in zip(node.value.keys, node.value.values)  # type: ignore
                     if k is not None and isinstance(v, ast.Name)}
    out = [f"run kind {k!r}: {RUNS_PACKAGE}/{m}.py does not exist" for k, m in kinds.items()
           if not (package / f"{m}.py").is_file()]
    modules_there = {p.stem for p in package.glob("*.py")} - {"__init__", "folder"}
    out += [f"{RUNS_PACKAGE}/{m}.py is no run kind of KINDS" for m in sorted(modules_there - set(kinds.values()))]
    return out or ([] if kinds else [f"{RUNS_PACKAGE}/__init__.py: no KINDS"])


def manifest_writers(root: Path) -> list[str]:
    """Calls that write a file named ``manifest.json`` (a write call with that name in it or in its receiver),
    outside the run folder."""
    out = []
    for name, path in modules(root).items():
        if path == root / RUN_FOLDER:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            called = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if called in WRITES and any(isinstance(c, ast.Constant) and c.value == "manifest.json"
                                        for c in ast.walk(node)):
                out.append(f"{name}:{node.lineno} writes manifest.json (the run folder writes it)")
    return out


def drawing_outside_reports(root: Path) -> list[str]:
    """Modules outside analyzer/report/ that import matplotlib or the chart helpers that draw."""
    out = []
    for name, path in modules(root).items():
        if name.startswith("analyzer.report"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "matplotlib" for a in node.names):
                out.append(f"{name}:{node.lineno} imports matplotlib")
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "matplotlib":
                out.append(f"{name}:{node.lineno} imports matplotlib")
            if isinstance(node, ast.ImportFrom) and node.module == "analyzer.report.charts" and \
                    DRAWING & {a.name for a in node.names}:
                out.append(f"{name}:{node.lineno} draws (imports {', '.join(sorted(DRAWING & {a.name for a in node.names}))})")
    return out


def test_run_kinds_live_in_one_package_and_only_its_folder_writes_manifests() -> None:
    assert run_kind_problems(ROOT) == []
    assert manifest_writers(ROOT) == []


def test_only_the_report_layer_draws() -> None:
    assert drawing_outside_reports(ROOT) == []


def test_the_layers_of_the_architecture_table_hold() -> None:
    layers = readme_layers(ARCHITECTURE)
    assert [name for name, _ in layers][:2] == ["core", "rules engine"] and len(layers) >= 9
    assert layer_violations(ROOT, ARCHITECTURE) == []


def test_compiled_code_lives_in_the_kernel() -> None:
    assert compiled_outside_kernel(ROOT) == []


def test_no_two_modules_import_each_other() -> None:
    assert mutual_imports(ROOT) == []


def test_no_unit_is_over_400_lines() -> None:
    assert long_units(ROOT) == []


def test_function_level_project_imports_are_few_and_each_says_why() -> None:
    assert function_import_problems(ROOT) == []


# ------------------------------------------------------------------------- a planted tree


PLANTED_README = """# x

## The layers

| layer | where | what |
|---|---|---|
| core | `analyzer/core/` | the bottom |
| statistics | `analyzer/stats/` | above it |
| command line and API | `analyzer/cli/`, `analyzer/api.py` | the top |

## Next
"""


def _plant(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_each_check_fails_on_a_planted_violation(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(PLANTED_README)
    lazy = "".join(f"def f{k}():\n    # why: a reason\n    from analyzer.core import a\n" for k in range(8))
    _plant(tmp_path, {
        "analyzer/__init__.py": "", "analyzer/core/__init__.py": "", "analyzer/stats/__init__.py": "",
        "analyzer/cli/__init__.py": "",
        "analyzer/core/a.py": "X = 1\n",
        "analyzer/stats/b.py": "from analyzer.core.a import X\n",  # down: fine
        "analyzer/api.py": "import analyzer.stats.b\n" + lazy,  # down, and 8 lazy imports with reasons: fine
    })
    assert (layer_violations(tmp_path, readme), mutual_imports(tmp_path), long_units(tmp_path),
            function_import_problems(tmp_path)) == ([], [], [], [])
    assert len(function_imports(tmp_path)) == 8 and function_imports(tmp_path)[0].reason == "why: a reason"

    _plant(tmp_path, {"analyzer/core/c.py": "from ..stats import b\n"})  # up, relative
    assert layer_violations(tmp_path, readme) == ["analyzer.core.c:1 (core) imports analyzer.stats.b (statistics)"]
    _plant(tmp_path, {"analyzer/core/c.py": "def g():\n    import analyzer.api  # a reason does not excuse it\n"})
    assert layer_violations(tmp_path, readme) == ["analyzer.core.c:2 (core) imports analyzer.api "
                                                  "(command line and API)"]
    (tmp_path / "analyzer/core/c.py").unlink()

    _plant(tmp_path, {"analyzer/stats/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                             "    from analyzer.stats import e\n",
                      "analyzer/stats/e.py": "from analyzer.stats.d import TYPE_CHECKING\n"})
    assert mutual_imports(tmp_path) == ["analyzer.stats.d <-> analyzer.stats.e"]
    (tmp_path / "analyzer/stats/e.py").unlink()

    _plant(tmp_path, {"analyzer/stats/big.py": "class Big:\n" + "    x = 1\n" * 400})
    assert long_units(tmp_path) == ["analyzer.stats.big.Big: 401 lines"]
    (tmp_path / "analyzer/stats/big.py").unlink()

    _plant(tmp_path, {"analyzer/stats/fast.py": "from numba import njit\n",
                      "analyzer/kernel/ok.py": "from numba import njit\n"})
    assert compiled_outside_kernel(tmp_path) == ["analyzer.stats.fast"]
    (tmp_path / "analyzer/stats/fast.py").unlink()

    _plant(tmp_path, {"analyzer/cli/app.py": "def h():\n    from analyzer.stats.b import X\n    return X\n"})
    problems = function_import_problems(tmp_path)
    assert problems[0] == "analyzer.cli.app:2 imports analyzer.stats.b inside a function without a reason comment"
    assert problems[1].startswith("9 function-level project imports, at most 8") and len(problems) == 2
    _plant(tmp_path, {"analyzer/cli/app.py": "def h():\n    from analyzer.stats.b import X  # lazy: a reason\n"})
    assert function_import_problems(tmp_path) == [function_import_problems(tmp_path)[0]]
    assert function_import_problems(tmp_path)[0].startswith("9 function-level")

    assert run_kind_problems(tmp_path) == ["analyzer/execution/runs/__init__.py: no run-kind registry"]
    _plant(tmp_path, {"analyzer/execution/__init__.py": "",
                      "analyzer/execution/runs/__init__.py": "from . import cells\nKINDS = {'cells': cells, 'x': gone}\n",
                      "analyzer/execution/runs/cells.py": "", "analyzer/execution/runs/folder.py": "",
                      "analyzer/execution/runs/stray.py": ""})
    assert run_kind_problems(tmp_path) == ["run kind 'x': analyzer/execution/runs/gone.py does not exist",
                                           "analyzer/execution/runs/stray.py is no run kind of KINDS"]
    _plant(tmp_path, {"analyzer/execution/runs/folder.py": "atomic_write(p / 'manifest.json', b'')\n",
                      "analyzer/cli/run.py": "(out / 'manifest.json').write_text('{}')\n"})
    assert manifest_writers(tmp_path) == ["analyzer.cli.run:1 writes manifest.json (the run folder writes it)"]
    _plant(tmp_path, {"analyzer/cli/run.py": "import matplotlib.pyplot as plt\n"
                                             "from analyzer.report.charts import FORMATS, save_figure\n",
                      "analyzer/report/draw.py": "import matplotlib\n"})
    assert drawing_outside_reports(tmp_path) == ["analyzer.cli.run:1 imports matplotlib",
                                                 "analyzer.cli.run:2 draws (imports save_figure)"]
    for rel in ("analyzer/cli/run.py", "analyzer/report/draw.py"):
        (tmp_path / rel).unlink()
    shutil.rmtree(tmp_path / "analyzer/execution")

    _plant(tmp_path, {"analyzer/extra/__init__.py": "from analyzer.core import a\n"})
    try:
        layer_violations(tmp_path, readme)
    except AssertionError as e:
        assert "analyzer.extra is in no layer" in str(e)
    else:
        raise AssertionError("a package outside the table went unnoticed")


def test_the_command_line_loads_its_heavy_half_only_for_the_commands_that_play() -> None:
    """The reason given for analyzer.cli.app's function-level imports of analyzer.cli.work holds: declaring the
    commands (``durak --help``, ``rules``, ``replay``) loads neither numba nor pandas; the work loads both."""
    import subprocess
    import sys

    code = ("import sys, analyzer.cli.app; print(sorted(m for m in ('pandas', 'numba', 'analyzer.cli.work')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    heavy = "import sys, analyzer.cli.work; print(sorted(m for m in ('pandas', 'numba') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", heavy], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "['numba', 'pandas']", out.stdout + out.stderr
