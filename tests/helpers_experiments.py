"""Small design experiments (tournaments) for the tests that run, resume or reject them."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from typing import Any

from analyzer.execution.experiment import Experiment, parse_experiment


def design_experiment(field: Sequence[str] = ("random", "greedy", "weighted"), players: Sequence[int] = (2, 3),
                      deals: int = 60, reference: str = "greedy", **extra: Any) -> str:
    """The TOML text of experiment "tx" in czech, seed 1: a round-robin at 2 players and, with 3 players,
    a hero tournament against ``reference``; ``extra`` adds keys (``chunk_size=20``, ``until_ci=4``)."""
    lines = ['name = "tx"', 'variants = ["czech"]', f"players = {json.dumps(list(players))}",
             f"field = {json.dumps(list(field))}"]
    if 3 in players:
        lines += ['design = {2 = "round-robin", 3 = "hero"}', f'reference = "{reference}"']
    else:
        lines.append('design = "round-robin"')
    lines += [f"deals = {deals}", "seed = 1"] + [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    return "\n".join(lines) + "\n"


def parse(text: str) -> Experiment:
    """The experiment of a TOML text, as ``durak run`` reads a file."""
    return parse_experiment(tomllib.loads(text), source="x.toml")
