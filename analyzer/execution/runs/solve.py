"""The solve kind: one research size solved exactly (``durak solve``), kept in a run folder with ``--out``.

The solving is the exact layer's (:func:`analyzer.exact.run.solve_size`: the tree, CFR+, every strategy's
distance from the equilibrium); this module keeps what it found as every kind keeps its results: ``solve.json``
(the numbers, full precision), the page ``solve.md`` (drawn by :mod:`analyzer.report.solve_view`) and a
manifest naming the kind and the command, so that ``durak report FOLDER`` draws the page again.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from analyzer import __version__
from analyzer.exact.run import MAX_NODES, solve_size
from analyzer.execution.runs.folder import RunFolder
from analyzer.report.solve_view import write_page


def solve_command(variant: str, deck: int, hand: int, rules: Sequence[str], strategies: str | None, draws: int,
                  target: float, out: Path | None) -> str:
    """The ``durak solve`` command that makes the folder again (its manifest records it)."""
    argv = ["durak", "solve", "--variant", variant, "--deck", str(deck), "--hand", str(hand)]
    for r in rules:
        argv += ["--rule", r]
    if strategies:
        argv += ["--strategies", strategies]
    argv += ["--draws", str(draws), "--target", f"{target:g}"]
    if out is not None:
        argv += ["--out", str(out)]
    return shlex.join(argv)


def run_solve(variant: str, deck: int, hand: int, *, strategies: Sequence[str] | None, target: float, draws: int,
              overrides: dict[str, Any] | None, out: Path | None, command: str,
              on_progress: Callable[[str], None] | None = None, max_nodes: int = MAX_NODES) -> dict[str, Any]:
    """Solve the size (:func:`~analyzer.exact.run.solve_size`); with ``out``, keep it there (module doc)."""
    res = solve_size(variant, deck, hand, strategies=strategies, target=target, on_progress=on_progress,
                     draws=draws, overrides=overrides, max_nodes=max_nodes)
    if out is not None:
        folder = RunFolder(out)
        folder.write_record("solve.json", res)
        write_page(res, folder.root)
        folder.write_manifest({"name": f"solve {variant} {deck}x{hand}", "kind": "solve", "command": command,
                               "version": __version__, "variant": variant, "deck": deck, "hand": hand,
                               "rules": dict(overrides or {})})
    return res
