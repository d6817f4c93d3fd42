"""Which code played a stored chunk: a tag over the sources its numbers depend on.

Why: a run's fingerprint names the experiment (rules, line-ups, seed, chunk sizes, plugin files), not the analyzer's
own code, so a run resumed after a built-in strategy or the kernel changed would sum chunks of the old code with
chunks of the new, and print one number made by two programs.  Each chunk records the tag of the code that played
it (:class:`analyzer.execution.store.ChunkStore`); a chunk of another tag is played again and the run names the
files that changed.

What the tag covers: the modules a chunk's play goes through (the executor for cells and tournaments, the balance
explorer's task for its rounds), each strategy's own module (a plugin file's too), and every project module those
import, however deep, found by reading their import statements.  A module counts by its bytes: any edit of one
(a comment or a docstring too) plays its chunks again.  Reading syntax trees to skip those would cost a second of
parsing at every start for ~70 modules; reading the bytes and their import lines costs 0.05 CPU-s once a process.
The fingerprint is not touched: a committed report's fingerprint still names its experiment, whatever code made
it.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: The checkout (or installed tree) that holds ``analyzer/`` and ``strategies/``.
ROOT = Path(__file__).resolve().parents[2]
#: What the cells and tournaments play through; the balance explorer's tasks (:data:`BALANCE_PLAY`).
PLAY = "analyzer.execution.executor"
BALANCE_PLAY = "analyzer.execution.balance_tables"


@dataclass(frozen=True)
class CodeTag:
    """The tag (a hash) and the digest of each module it covers, by path (relative to :data:`ROOT` inside it)."""

    tag: str
    modules: Mapping[str, str]


@cache
def module_file(name: str, roots: tuple[Path, ...] = (ROOT,)) -> Path | None:
    """The source file of module ``name`` under one of ``roots`` (a package's ``__init__.py``), or None (asked once
    a process: a module's place does not move while a run resolves it)."""
    for root in roots:
        base = root.joinpath(*name.split("."))
        for path in (base / "__init__.py", base.with_suffix(".py")):
            if path.is_file():
                return path
    return None


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]*)", re.MULTILINE)


def _names(text: str) -> list[str]:
    """The names of an import list (``a as b, c``, parenthesised over lines, comments dropped)."""
    text = re.sub(r"#[^\n]*", "", text).strip("() \t\n\\")
    return [item.split()[0] for item in text.split(",") if item.strip()]


def _digest_and_imports(path: Path, name: str) -> tuple[str, tuple[str, ...]]:
    stat = path.stat()
    return _read(str(path), name, stat.st_mtime_ns, stat.st_size)


@cache
def _read(path: str, name: str, _mtime: int, _size: int) -> tuple[str, tuple[str, ...]]:
    """A module's digest (its bytes) and the modules its import statements name, at any depth (one read in
    docstring text names a module too: that only widens the tag)."""
    data = Path(path).read_bytes()
    text = data.decode("utf-8", errors="replace")
    package = name if Path(path).name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for m in _IMPORT.finditer(text):
        named.update(_names(m.group(1)))
    for m in _FROM.finditer(text):
        dots, base = m.group(1), m.group(2)
        if dots:
            parts = package.split(".")
            base = ".".join([*parts[: len(parts) - len(dots) + 1], *([base] if base else [])])
        named.add(base)
        named.update(f"{base}.{n}" for n in _names(m.group(3)))
    return hashlib.sha256(data).hexdigest(), tuple(sorted(named))


def _module_name(path: Path) -> str:
    """A file's dotted module name: from :data:`ROOT` inside it, else its stem (a plugin beside its helpers)."""
    if path.is_relative_to(ROOT):
        parts = path.relative_to(ROOT).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return path.stem


def _label(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def code_tag(modules: Iterable[str] = (), files: Iterable[Path] = (), own: Iterable[Path] = ()) -> CodeTag:
    """The tag of ``modules`` (dotted names under :data:`ROOT`) and ``files`` (any source file, e.g. a plugin's)
    with every project module they import, and of the files ``own`` alone (a run kind's module, whose imports
    reach its report)."""
    files = [Path(f).resolve() for f in files]
    roots = (ROOT, *dict.fromkeys(f.parent for f in files if not f.is_relative_to(ROOT)))  # a plugin's imports
    todo: list[tuple[str, Path]] = []
    for name in modules:
        path = module_file(name)
        if path is None:
            raise ValueError(f"no source for module {name!r} under {ROOT}")
        todo.append((name, path))
    todo += [(_module_name(f), f) for f in files]
    seen: dict[Path, str] = {}
    while todo:
        name, path = todo.pop()
        if path in seen:
            continue
        digest, named = _digest_and_imports(path, name)
        seen[path] = digest
        parents = [".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)]
        for other in (*parents, *named):
            found = module_file(other, roots)
            if found is not None:
                todo.append((other, found))
    for path in own:
        path = Path(path).resolve()
        seen.setdefault(path, hashlib.sha256(path.read_bytes()).hexdigest())
    by_label = {_label(p): d for p, d in seen.items()}
    tag = hashlib.sha256(json.dumps(by_label, sort_keys=True).encode()).hexdigest()
    return CodeTag(tag, dict(sorted(by_label.items())))


def strategy_files(strategies: Iterable[object]) -> list[Path]:
    """The source file of each strategy object's class (a built-in's module, a plugin's file)."""
    files = []
    for s in strategies:
        try:
            source = inspect.getsourcefile(type(s))
        except TypeError:  # a class without a file (built in C, made at run time): nothing to hash
            continue
        if source is not None:
            files.append(Path(source).resolve())
    return files


def play_tag(strategies: Iterable[object], *, play: str = PLAY, simulator: str | None = None,
             own: Iterable[Path] = ()) -> CodeTag:
    """The tag of the code that plays ``strategies``: ``play``'s module, the strategies' and a stand-in
    simulator's (``--simulator``, by module name, when it is a file under :data:`ROOT`), and ``own``."""
    modules = [play]
    if simulator is not None and module_file(simulator) is not None:
        modules.append(simulator)
    return code_tag(modules, strategy_files(strategies), own)


def changed_files(before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The files whose digest differs between two tags' modules (added or dropped ones included)."""
    return sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
