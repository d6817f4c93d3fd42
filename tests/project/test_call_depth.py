"""How deep the project's own calls go before a command plays: ``durak simulate`` reaches the compiled kernel in
at most six calls of ours (the command, its work, the executor's loop, the chunk, the kernel's chunk, its deals).

The count is taken from the stack as the kernel's ``driver.simulate_deals`` is entered (a profile hook, in this
process through typer's runner, one job so that every chunk plays on this thread): the frames whose code lives in
``analyzer/`` or ``strategies/``.  The script's entry (``analyzer.cli.app.main``) is above the command and not
counted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.kernel import driver

ROOT = Path(__file__).resolve().parents[2]
MAX_SIMULATE_FRAMES = 6


def project_frames(frame: FrameType | None) -> list[str]:
    """The project's frames of a stack, outermost first, as ``path:function``."""
    out = []
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if any(path.is_relative_to(ROOT / pkg) for pkg in ("analyzer", "strategies")):
            out.append(f"{path.relative_to(ROOT)}:{frame.f_code.co_name}")
        frame = frame.f_back
    return out[::-1]


def stack_at(target: CodeType, run: Callable[[], Any]) -> tuple[Any, list[str]]:
    """``run()``'s result and the project's frames on the stack the first time ``target`` is entered."""
    seen: list[str] = []

    def hook(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call" and frame.f_code is target and not seen:
            seen.extend(project_frames(frame))

    sys.setprofile(hook)
    try:
        result = run()
    finally:
        sys.setprofile(None)
    return result, seen


def test_simulate_reaches_the_kernel_in_at_most_six_calls_of_ours() -> None:
    args = ["simulate", "--deals", "200", "--jobs", "1", "--strategies", "greedy", "--quiet", "--json"]
    res, frames = stack_at(driver.simulate_deals.__code__, lambda: CliRunner().invoke(app, args))
    assert res.exit_code == 0, res.output
    assert frames[0] == "analyzer/cli/app.py:simulate" and frames[-1] == "analyzer/kernel/driver.py:simulate_deals"
    assert len(frames) <= MAX_SIMULATE_FRAMES, "\n".join(frames)

