"""Bounded reading of user files and bounded sizes of user input.

Why this module exists: every size and shape of a user's input must be bounded
*before* anything is allocated, so that a hostile or mistaken input ends in one
line naming the culprit instead of a MemoryError, a RecursionError or a process
that waits forever.

* :func:`read_user_text` opens without blocking (a FIFO with no writer would
  otherwise wait forever), refuses anything but a regular file (``/dev/zero``
  would otherwise be read until memory runs out) and caps the size before
  reading.  Its refusals are ``OSError`` with a readable ``strerror``, so the
  callers' existing ``cannot read: ...`` handling formats them unchanged.
* :func:`loads_toml` bounds the nesting depth of arrays and inline tables
  before :mod:`tomllib` recurses into them (it has no limit of its own).
* :func:`count_problem` and friends hold the numeric bounds in one place.
"""

from __future__ import annotations

import errno
import os
import stat
import tomllib
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: Largest experiment or scenario file read (the biggest shipped one is a few KiB).
MAX_FILE_BYTES = 1 << 20
#: Deepest nesting of ``[...]`` / ``{...}`` in a TOML file (real files use 2 or 3).
MAX_TOML_DEPTH = 32
#: Most deals or matches per cell (the CLI's ``--deals`` cap too).
MAX_COUNT = 10**10
#: Most deals (or matches) in one chunk: a chunk is simulated in memory at once.
MAX_CHUNK = 1_000_000
#: Most cells of one experiment (variants x players x grid product x lineups).
MAX_CELLS = 10_000
#: Most chunks of one run: each has a task, a file and its sums held until the end.
MAX_CHUNKS = 100_000

_KINDS = {stat.S_IFDIR: "Is a directory", stat.S_IFIFO: "not a regular file (a FIFO or pipe)",
          stat.S_IFCHR: "not a regular file (a character device)",
          stat.S_IFBLK: "not a regular file (a block device)", stat.S_IFSOCK: "not a regular file (a socket)"}


def read_user_text(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a small regular file, read without ever blocking or over-allocating.

    Raises:
        OSError: missing, unreadable, not a regular file, or larger than ``limit``
            (``strerror`` says which, in words fit for a one-line message).
        UnicodeDecodeError: not UTF-8 text.
    """
    # O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            why = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise OSError(errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL, why, str(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"too large: {st.st_size:,} bytes (at most {limit:,})", str(path))
        data = bytearray()
        while len(data) <= limit:  # the file may grow while we read: never take more than limit + 1
            part = os.read(fd, limit + 1 - len(data))
            if not part:
                break
            data += part
        if len(data) > limit:
            raise OSError(errno.EFBIG, f"too large: more than {limit:,} bytes", str(path))
    finally:
        os.close(fd)
    return bytes(data).decode("utf-8")


def toml_depth_problem(text: str, limit: int = MAX_TOML_DEPTH) -> str | None:
    """Why ``text`` nests too deeply for a safe parse, or None.

    Counts ``[``/``{`` against ``]``/``}`` outside strings and comments; a syntax
    error this scan misreads is left for tomllib to report.
    """
    depth, line, i, n = 0, 1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        elif ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\" and ch == '"':
                    j += 1
                elif text[j] == "\n" and len(quote) == 1:
                    break  # an unterminated one-line string: tomllib will say so
                j += 1
            line += text.count("\n", i, j)
            i = j + len(quote)
            continue
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return f"nested more than {limit} levels deep (line {line})"
        elif ch in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def loads_toml(text: str) -> dict[str, Any]:
    """:func:`tomllib.loads` with the nesting depth bounded first (tomllib recurses per level).

    Raises:
        tomllib.TOMLDecodeError: invalid TOML, or nested too deeply.
    """
    problem = toml_depth_problem(text)
    if problem is not None:
        raise tomllib.TOMLDecodeError(problem)
    try:
        return tomllib.loads(text)
    except RecursionError:  # belt and braces: the scan above should make this unreachable
        raise tomllib.TOMLDecodeError(f"nested too deeply (more than {MAX_TOML_DEPTH} levels)") from None


def count_problem(value: Any, maximum: int) -> str | None:
    """Why ``value`` is not a whole number in 1..maximum, or None."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return f"must be a positive integer, got {value!r}"
    if value > maximum:
        return f"is too large: {value:,} (at most {maximum:,})"
    return None


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a folder safely (control characters, e.g. a newline), or None."""
    for ch in name:
        if unicodedata.category(ch).startswith("C"):
            return f"contains a control character ({ch!r})"
    return None


def chunks_problem(cells: Iterable[tuple[int, int]]) -> str | None:
    """Why a run of cells given as (count, chunk size) pairs has too many chunks, or None.

    Checked before any chunk list is built: each chunk costs a task, a file and
    its sums in memory, so 10**12 deals in chunks of 50,000 must be refused up front.
    """
    total = sum(-(-n // size) for n, size in cells)
    if total > MAX_CHUNKS:
        return (f"makes {total:,} chunks (at most {MAX_CHUNKS:,}); "
                "lower deals/matches or raise chunk_size/match_chunk_size")
    return None


def cells_problem(upper: int) -> str | None:
    """Why an experiment of (at most) ``upper`` cells is too big to expand, or None."""
    if upper > MAX_CELLS:
        return f"makes up to {upper:,} cells (at most {MAX_CELLS:,}); use fewer grid values, variants or players"
    return None
