"""The ``durak`` command line (typer).

:func:`main` is the script's entry point.  It imports the command line only
inside its own guard, so that Ctrl-C at any moment, while the imports load
(pandas, numba: a second or more) as much as during a run or at exit, ends with
one line and exit code 130; this module imports nothing heavy for that reason.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from types import FrameType

#: the exit code of a run stopped by Ctrl-C (128 + SIGINT)
INTERRUPTED = 130


def main(argv: list[str] | None = None) -> None:
    """Run ``durak``: :func:`analyzer.cli.app.main` behind a guard against Ctrl-C before, during and after it."""
    try:
        # inside the guard: the command line's imports (typer, and pandas and numba for most commands) take a
        # second or more, and Ctrl-C then must end in one line as well
        from analyzer.cli.app import main as run

        run(argv)
    except KeyboardInterrupt:
        _stopped(None, None)
    finally:  # Ctrl-C while Python shuts down (workers stopped, files closed): the same one line
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _stopped)
        # the process ends here and its memory with it: the collections Python runs while it shuts down need not
        # walk every object once more (half a CPU-second after a report, whose charts leave much to walk)
        gc.freeze()


def _stopped(signum: int | None, frame: FrameType | None) -> None:
    """One line and exit 130 (143 for SIGTERM), whatever was running; a second Ctrl-C adds nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    terminated = False
    try:
        # only here: the guard imports nothing before the command line does (it may be what was stopped)
        from analyzer.execution.lifeline import was_terminated
        terminated = was_terminated()
    except BaseException:  # noqa: BLE001 — stopped while the imports were loading: nothing else to say
        pass
    try:
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001 — a closed or broken stdout: the line on stderr still goes out
        pass
    try:
        sys.stderr.write(f"durak: {'terminated' if terminated else 'interrupted'}\n")
        sys.stderr.flush()
    finally:
        os._exit(143 if terminated else INTERRUPTED)
