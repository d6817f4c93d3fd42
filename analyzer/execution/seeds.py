"""The one seed derivation: every random stream of every command comes from here.

A chunk's stream is ``SeedSequence(seed, spawn_key=(purpose, *content, chunk))``:

* ``purpose`` keeps commands apart: ``durak simulate``/``run`` cells ("cell")
  and ``durak compare`` decks ("compare") never share a stream for the same
  seed, nor does the per-deal export ("deals");
* ``content`` is a stable hash of what is simulated (the canonical rules text,
  the line-up, the unit), never of a position in a file: a cell's numbers
  depend on what it is, so ``durak simulate`` of a cell equals ``durak run`` of
  any experiment holding that cell, and two different cells of one experiment
  (or of two experiments) never share a stream;
* ``chunk`` is the chunk's index: chunk k covers units ``[k*size, (k+1)*size)``.

Nothing else (jobs, backend, finishing order) enters, so results are identical
for any ``--jobs`` and scheduling.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from numpy.random import SeedSequence

from analyzer.core.rules import RuleSet

#: Purpose -> first spawn-key word.  Never renumber: it would change every seeded result.
PURPOSES = {"cell": 1, "compare": 2, "deals": 3, "tournament": 4, "balance": 5, "rules-pair": 6}


def content_text(rules: RuleSet, lineup: Sequence[str], unit: str) -> str:
    """What a stream is keyed on: ``deal|czech 4p sevens=on|greedy;random;random;random``."""
    return f"{unit}|{rules.label()}|{';'.join(lineup)}"


def content_key(text: str) -> tuple[int, int]:
    """Two 32-bit words of SHA-256 of ``text`` (stable across processes and Python versions)."""
    h = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(h[:4], "little"), int.from_bytes(h[4:8], "little")


def chunk_seed(seed: int, purpose: str, content: str, chunk: int) -> SeedSequence:
    """The stream of chunk ``chunk`` of ``content`` for ``purpose`` (module docstring)."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown seed purpose {purpose!r}; known: {', '.join(PURPOSES)}")
    return SeedSequence(seed, spawn_key=(PURPOSES[purpose], *content_key(content), chunk))
