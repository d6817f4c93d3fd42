"""How deep the project's own calls go before a command plays: ``durak simulate`` reaches the compiled kernel in
at most six calls of ours (the command, its work, the executor's loop, the chunk, the kernel's chunk, its deals);
the balance explorer's work, once handed to the executor, never calls back into its run module.

The count is taken from the stack as the kernel's ``driver.simulate_deals`` is entered (a profile hook, in this
process through typer's runner, one job so that every chunk plays on this thread): the frames whose code lives in
``analyzer/`` or ``strategies/``.  The script's entry (``analyzer.cli.app.main``) is above the command and not
counted.
"""

from __future__ import annotations

import json
import subprocess
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


def _simulate_frames() -> dict[str, Any]:
    """``durak simulate``'s exit code and the project's frames on the stack where it enters the kernel's
    ``simulate_deals``; run in a fresh interpreter (the test below)."""
    args = ["simulate", "--deals", "200", "--jobs", "1", "--strategies", "greedy", "--quiet", "--json"]
    assert CliRunner().invoke(app, args).exit_code == 0  # unprofiled first: kernels load at full speed
    res, frames = stack_at(driver.simulate_deals.__code__, lambda: CliRunner().invoke(app, args))
    return {"exit_code": res.exit_code, "output": res.output, "frames": frames}


def _fresh(call: str, *args: str) -> Any:
    """``call(*args)`` of this module in a fresh interpreter, its JSON result.  A profile hook inside a suite
    worker, beside the threads earlier tests leave there (the decision watchdog, loky's manager), stalled for
    many minutes on a clean clone where the same test alone takes seconds."""
    code = (f"import json, sys; from tests.project.test_call_depth import {call}; "
            f"print(json.dumps({call}(*sys.argv[1:])))")
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_simulate_reaches_the_kernel_in_at_most_six_calls_of_ours() -> None:
    got = _fresh("_simulate_frames")
    frames = got["frames"]
    assert got["exit_code"] == 0, got["output"]
    assert frames[0] == "analyzer/cli/app.py:simulate" and frames[-1] == "analyzer/kernel/driver.py:simulate_deals"
    assert len(frames) <= MAX_SIMULATE_FRAMES, "\n".join(frames)


def _balance_calls(folder: str) -> dict[str, Any]:
    """What the balance run hands the executor and which frames of its run module run below it (module doc of
    the test below); run in a fresh interpreter, away from the threads and watchers other tests leave behind."""
    from analyzer.execution.balance_space import parse_space
    from analyzer.execution.runs import balance
    from tests.execution.test_balance_explorer import SPACE

    handed: set[str] = set()
    run_tasks = balance.run_tasks

    def recording(fn: Callable[..., Any], calls: Any, **kw: Any) -> Any:
        handed.add(fn.__module__)
        return run_tasks(fn, calls, **kw)

    balance.run_tasks = recording  # type: ignore[assignment]
    run_module = ROOT / "analyzer/execution/runs/balance.py"
    below = {ROOT / "analyzer/execution/balance_tables.py", ROOT / "analyzer/execution/executor.py"}
    back: set[str] = set()
    tasks = [0]

    def hook(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        path = Path(frame.f_code.co_filename)
        if frame.f_code.co_name == "balance_job":
            tasks[0] += 1
        if path == run_module:
            up = frame.f_back
            while up is not None:
                if Path(up.f_code.co_filename) in below and up.f_code.co_name != "run_tasks":
                    back.add(f"{up.f_code.co_name} -> {frame.f_code.co_name}")
                up = up.f_back

    space = parse_space({**SPACE, "space": {"sevens": [False, True], "eight_stop": [False, True]}})
    sys.setprofile(hook)
    try:
        done = balance.explore_balance(space, Path(folder) / "b", jobs=1, simulator="tests.planted_sim", report=False)
    finally:
        sys.setprofile(None)
    return {"tasks": tasks[0], "arms": len(done.arms), "handed": sorted(handed), "back": sorted(back)}


def test_balance_does_not_call_back_into_its_run_module_after_the_executor(tmp_path: Path) -> None:
    """The task the run module hands the executor is not the run module's, and below it (and below the executor's
    own functions) no frame of analyzer/execution/runs/balance.py runs: the run module plans, stores and decides;
    the task plays."""
    got = _fresh("_balance_calls", str(tmp_path))
    assert got["tasks"] > 0 and got["arms"] == 4
    assert got["handed"] == ["analyzer.execution.balance_tables"]
    assert got["back"] == [], got["back"]
