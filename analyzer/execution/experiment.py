"""Experiment files: what to simulate, parsed and checked before anything runs.

An experiment is a TOML file in ``experiments/``.  It is expanded into *cells*
(one rule set, one player count, one lineup of strategies by position, one
unit: single deals or whole matches) and every cell is validated up front --
rule sets built with :func:`analyzer.core.rules.make_rules`, strategies resolved --
so that a typo costs a one-line error, not an hour of simulation.

Format (every key but ``variant``/``variants`` and ``deals``/``matches`` is
optional)::

    name = "house_rules"            # output goes to runs/<name>/; default: file stem
    description = "free text"
    variants = ["czech", "prague"]  # or variant = "czech"
    players = [2, 3, 4]             # or players = 4; default: every count a variant allows.
                                    # A count a variant does not allow is skipped for that
                                    # variant; a count no listed variant allows is an error.
    lineup = ["greedy", "random"]   # strategies by position (position 0 acts first); cycled
                                    # to the player count (["random"] = everybody random),
                                    # never longer than a player count.  Default ["random"].
    field = ["greedy", "random"]    # instead of lineup: rotations of the field through the
                                    # positions, so that every strategy sits every position
                                    # (k strategies -> k lineups per player count).
    ladder = ["random", "pimc"]     # instead of lineup or field: one cell per entry with that
                                    # strategy in every seat (skill curves: the same questions
                                    # asked of tables of ever stronger players).
    ladder_players = { "expert" = [2] }  # a ladder step played at these player counts only
                                    # (expert differs from pimc at two players alone)
    design = "round-robin"          # with field: a tournament per variant x players x grid
                                    # (analyzer.stats.tournament): "round-robin" (2 players:
                                    # every pair in both seatings), "hero" (each strategy in
                                    # every position against players-1 copies of reference)
                                    # or "field" (the rotations above); a table picks one per
                                    # player count: [design] 2 = "round-robin", 4 = "hero".
                                    # Tournaments play single deals, every line-up on the same
                                    # decks.  In a spec, {variant} and {players} are filled in
                                    # per cell: "weighted?preset={variant}-{players}p".
    hand_rotations = 2              # single deals: every deck dealt this many times, its hands passed one
                                    # seat on each time (at most the player count; a table picks one per
                                    # player count: [hand_rotations] 2 = 2).  The same hands meet every
                                    # seat, so the first player's rate is free of the luck of the deal
                                    # (its interval over decks).  deals and chunk_size count decks then.
    reference = "weighted"          # hero: the opposition (default weighted)
    until_ci = 0.5                  # tournaments: play chunks of 1,000 decks until every interval is
                                    # within +- this many points of win rate (deals: the budget)
    deals = 40_000                  # per cell (unit = deal) ...
    cell_deals = { "prague 2p" = 44_000 }  # ... or this many for the cells of a variant ("prague") or of a
                                    # variant at a player count ("prague 2p"; the more specific wins):
                                    # where a rate varies more and its interval needs more deals
    matches = 5_000                 # ... and/or per cell (unit = match); both -> both kinds of cell
    seed = 1                        # default 0; chunk seeds derive from (seed, what the cell is, chunk)
    chunk_size = 50_000             # deals per chunk (the unit of parallel work and of resuming)
    match_chunk_size = 2_000        # matches per chunk
    reports = ["first_player", "positions", "length"]

    [rules]                         # option overrides (RULES.md "Option names") for every cell
    hand_size = 6
    [rules.prague]                  # overrides for one variant only
    target = 500
    [grid]                          # option -> values; the cartesian product makes the cells
    sevens = [false, true]

Cells are ordered unit x variant x players x grid product x lineup (or ladder
step), and numbered from 0 in that order.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analyzer.core.inputs import (
    MAX_CHUNK,
    MAX_COUNT,
    cells_problem,
    chunks_problem,
    count_problem,
    loads_toml,
    name_problem,
    read_user_text,
)
from analyzer.core.registry import get_strategy
from analyzer.core.report_kinds import REPORT_KINDS
from analyzer.core.rules import NEEDS, OPTIONS, PLAYERS, VARIANTS, RulesError, RuleSet, check_option, format_value, make_rules
from analyzer.execution.lineup import LineupError, cycle, entry_text, parse_lineup

UNITS = ("deal", "match")
#: Count key of each unit in the file.
UNIT_KEYS = {"deal": "deals", "match": "matches"}
DEFAULT_CHUNK = {"deal": 50_000, "match": 2_000}
#: Report kinds an experiment may ask for: the one list, drawn by analyzer.report.sections.
DEFAULT_REPORTS = ("first_player", "positions")
KNOWN_KEYS = (
    "name", "description", "variant", "variants", "players", "lineup", "field", "ladder", "rules",
    "grid", "deals", "matches", "seed", "chunk_size", "match_chunk_size", "reports", "design", "reference",
    "until_ci", "hand_rotations", "cell_deals", "pairs", "ladder_players",
)
#: Tournament designs of an experiment (analyzer.stats.tournament.DESIGNS, kept apart: no stats import here).
DESIGNS = ("round-robin", "hero", "field")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

StrategyResolver = Callable[[str], object]


class ExperimentError(ValueError):
    """A malformed or impossible experiment; the message is one line naming file and key."""


@dataclass(frozen=True)
class Cell:
    """One combination to simulate: it is what a chunk of work receives (picklable).

    It carries typed values, checked once where the cell is made: the frozen
    :class:`RuleSet` (built by the parser, never rebuilt in a worker) and the
    line-up resolved to the player count.
    """

    index: int
    unit: str  # "deal" | "match"
    rules: RuleSet
    lineup: tuple[Any, ...]  # strategy spec by position (the Python API may pass ready objects)
    grid: tuple[tuple[str, Any], ...] = ()  # this cell's grid values (typed), in grid key order
    n: int = 1  # deals or matches in the cell
    chunk_size: int = DEFAULT_CHUNK["deal"]
    show_lineup: bool = False  # the experiment has several lineups: name it in the label
    #: single deals: each deck dealt this many times, its hands passed one seat on each time (core.cards.rotated_hands);
    #: ``n`` and ``chunk_size`` count deals, multiples of it
    rotations: int = 1

    @property
    def variant(self) -> str:
        return self.rules.variant

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def label(self) -> str:
        """Short human name, e.g. ``czech 4p sevens=on``."""
        parts = [f"{self.variant} {self.players}p"]
        if self.unit == "match":
            parts.append("matches")
        idle = self.rules.inactive()  # a grid crossing an option with the one it needs (rules.NEEDS)
        parts += [f"{k}={format_value(v)}" + (f" (inactive without {idle[k]})" if k in idle else "")
                  for k, v in self.grid]
        if self.show_lineup:
            parts.append(",".join(entry_text(e) for e in self.lineup))
        return " ".join(parts)

    def chunks(self) -> list[tuple[int, int]]:
        """(chunk index, size) pairs: chunk k covers units [k*chunk_size, ...) of the cell.

        A chunk's content depends only on its index and size, never on ``n``, so a
        run with more deals reuses the full chunks of a smaller one.
        """
        return [(k, min(self.chunk_size, self.n - start))
                for k, start in enumerate(range(0, self.n, self.chunk_size))]


def single_cell(rules: RuleSet, lineup: tuple[Any, ...] | list[Any], *, unit: str = "deal", n: int,
                chunk_size: int | None = None) -> Cell:
    """The cell of a one-cell experiment (``durak simulate``, the Python API).

    The line-up is cycled to the player count and the unit checked against the
    rules (a match needs a target) exactly as the experiment parser does, and the
    chunk size is the experiments' default, so the cell's numbers are those of
    ``durak run`` of an experiment holding it.
    """
    if unit not in UNITS:
        raise ExperimentError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
    return Cell(index=0, unit=unit, rules=rules.for_unit(unit), lineup=cycle(tuple(lineup), rules.players),
                n=n, chunk_size=chunk_size or DEFAULT_CHUNK[unit])


@dataclass(frozen=True)
class Experiment:
    """A parsed, validated experiment file (see the module docstring for the format)."""

    name: str
    description: str
    variants: tuple[str, ...]
    players: tuple[int, ...] | None  # None: every count each variant allows
    lineup: tuple[str, ...] | None
    field: tuple[str, ...] | None
    rules: dict[str, Any]
    variant_rules: dict[str, dict[str, Any]]
    grid: dict[str, tuple[Any, ...]]
    counts: dict[str, int]  # unit -> deals or matches per cell
    seed: int
    chunk_size: int
    match_chunk_size: int
    reports: tuple[str, ...]
    source: str = "<experiment>"
    design: tuple[tuple[int, str], ...] | None = None  # (players, design); players 0: every count
    reference: str = "weighted"
    until_ci: float | None = None  # tournaments: stop at this 95 % half-width, in points of win rate
    ladder: tuple[str, ...] | None = None  # one cell per entry, that strategy in every seat
    #: ladder steps played at some player counts only: (step, player counts); None: every step at every count
    ladder_players: tuple[tuple[str, tuple[int, ...]], ...] | None = None
    rotations: tuple[tuple[int, int], ...] | None = None  # (players, hand rotations); players 0: every count
    #: single-deal cells of a variant (players 0) or of a variant at a player count: deals instead of ``deals``
    cell_deals: tuple[tuple[str, int, int], ...] | None = None
    #: round-robin: only these pairs of the field play (entrant indices or specs); None: every pair
    pairs: tuple[tuple[int | str, int | str], ...] | None = None
    _cells: tuple[Cell, ...] = dataclasses.field(default=(), repr=False, compare=False)

    @property
    def cells(self) -> tuple[Cell, ...]:
        return self._cells

    def lineups(self, players: int) -> list[tuple[str, ...]]:
        """Lineups by position at ``players``: the cycled lineup, the field's rotations, or one lineup per
        ladder step (its strategy in every seat)."""
        if self.ladder is not None:
            only = dict(self.ladder_players or ())
            return [(s,) * players for s in self.ladder if players in only.get(s, (players,))]
        if self.field is not None:
            k = len(self.field)
            rot = [tuple(self.field[(i + r) % k] for i in range(players)) for r in range(k)]
            return list(dict.fromkeys(rot))  # drop repeats, keep order
        return [cycle(self.lineup or ("random",), players)]

    def design_for(self, players: int) -> str:
        """The tournament design at ``players`` ("field" without a design key)."""
        if self.design is None:
            return "field"
        d = dict(self.design)
        return d.get(players, d.get(0, "field"))

    def deals_for(self, variant: str, players: int) -> int:
        """Deals of a single-deal cell of ``variant`` at ``players`` (``cell_deals``, else ``deals``)."""
        d = {(v, p): n for v, p, n in self.cell_deals or ()}
        return d.get((variant, players), d.get((variant, 0), self.counts["deal"]))

    def rotations_for(self, players: int) -> int:
        """How many times a deck of a single-deal cell at ``players`` is dealt, its hands rotated (1: once)."""
        d = dict(self.rotations or ())
        return d.get(players, d.get(0, 1))

    @property
    def tournament(self) -> bool:
        """True when the cells are played as round-robin or hero tournaments (analyzer.execution.runs.tournament)."""
        return any(self.design_for(c.players) != "field" for c in self._cells)

    def with_count(self, n: int) -> Experiment:
        """The same experiment with ``n`` deals (matches for match cells) per cell."""
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise ExperimentError(f"{self.source}: deals override: must be a positive integer, got {n!r}")
        if problem := chunks_problem((n, c.chunk_size) for c in self._cells):
            raise ExperimentError(f"{self.source}: deals override {n:,} per cell {problem}")
        counts = {u: n for u in self.counts}
        exp = replace(self, counts=counts, cell_deals=None)  # every cell: the override names one count
        return replace(exp, _cells=tuple(replace(c, n=n * c.rotations) for c in self._cells))

    def to_dict(self) -> dict[str, Any]:
        """The experiment as parsed (JSON-able; what the manifest records)."""
        d: dict[str, Any] = {
            "name": self.name, "description": self.description, "variants": list(self.variants),
            "players": list(self.players) if self.players is not None else None,
        }
        if self.design is not None:
            d["design"] = {str(p) if p else "all": v for p, v in self.design}
            d["reference"] = self.reference
            if self.until_ci is not None:
                d["until_ci"] = self.until_ci
            if self.pairs is not None:
                d["pairs"] = [list(p) for p in self.pairs]
        if self.rotations is not None:
            d["hand_rotations"] = {str(p) if p else "all": k for p, k in self.rotations}
        if self.cell_deals is not None:
            d["cell_deals"] = {f"{v} {p}p" if p else v: n for v, p, n in self.cell_deals}
        if self.ladder is not None:
            d["ladder"] = list(self.ladder)
            if self.ladder_players is not None:
                d["ladder_players"] = {s: list(ps) for s, ps in self.ladder_players}
        elif self.field is not None:
            d["field"] = list(self.field)
        else:
            d["lineup"] = list(self.lineup or ("random",))
        rules: dict[str, Any] = dict(self.rules)
        rules.update({v: dict(r) for v, r in self.variant_rules.items()})
        d.update({
            "rules": rules, "grid": {k: list(v) for k, v in self.grid.items()},
            **{UNIT_KEYS[u]: n for u, n in self.counts.items()},
            "seed": self.seed, "chunk_size": self.chunk_size,
            "match_chunk_size": self.match_chunk_size, "reports": list(self.reports),
            "source": self.source, "cells": len(self._cells),
        })
        return d


# --------------------------------------------------------------------------- parsing


def read_toml_file(path: str | Path) -> dict[str, Any]:
    """The TOML table of a user's file, read bounded; ExperimentError (one line naming the file) if it cannot be."""
    src = str(path)
    try:
        text = read_user_text(path)  # bounded: no FIFO wait, no /dev/zero, size capped
    except OSError as e:
        raise ExperimentError(f"{src}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ExperimentError(f"{src}: cannot read: not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        return loads_toml(text)  # nesting depth bounded before tomllib recurses
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{src}: not valid TOML: {_one_line(str(e))}") from None


def load_experiment(path: str | Path, *, resolve_strategy: StrategyResolver | None = None) -> Experiment:
    """Read and validate an experiment file; ExperimentError (one line) on any fault."""
    return parse_experiment(read_toml_file(path), source=str(path), default_name=Path(path).stem,
                            resolve_strategy=resolve_strategy)


def parse_experiment(
    data: Mapping[str, Any], *, source: str = "<experiment>", default_name: str | None = None,
    resolve_strategy: StrategyResolver | None = None,
) -> Experiment:
    """Validate a parsed TOML table and expand its cells.

    ``resolve_strategy`` turns a strategy spec into a strategy or raises
    ValueError; by default ``analyzer.core.registry.get_strategy``.
    """
    def err(key: str, msg: str) -> ExperimentError:
        return ExperimentError(f"{source}: key '{key}': {_one_line(msg)}")

    unknown = [k for k in data if k not in KNOWN_KEYS]
    if unknown:
        raise err(unknown[0], f"unknown key; known keys: {', '.join(KNOWN_KEYS)}")

    name = data.get("name", default_name)
    if name is None:
        raise err("name", "missing")
    if not isinstance(name, str) or not _NAME.match(name) or name_problem(name):
        raise err("name", f"must be a plain name of letters, digits, '_', '-' or '.', got {name!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise err("description", f"must be a string, got {_show(description)}")

    variants = _variants(data, err)
    players = _players(data, variants, err)
    lineup, fld = _strategies(data, err)
    ladder = _ladder(data, lineup, fld, err)
    ladder_players = _ladder_players(data, ladder, err)

    rules, variant_rules = _rules(data.get("rules", {}), variants, err)
    grid = _grid(data.get("grid", {}), rules, variant_rules, err)

    counts = {u: _positive(data, UNIT_KEYS[u], err) for u in UNITS if UNIT_KEYS[u] in data}
    if not counts:
        raise err("deals", "missing; give deals = N (single deals per cell) and/or matches = N")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise err("seed", f"must be a whole number >= 0, got {_show(seed)}")
    chunk_size = _positive(data, "chunk_size", err) if "chunk_size" in data else DEFAULT_CHUNK["deal"]
    match_chunk = (_positive(data, "match_chunk_size", err) if "match_chunk_size" in data
                   else DEFAULT_CHUNK["match"])
    reports = _reports(data, err)
    design, reference = _design(data, fld, counts, err)
    pairs = _pairs(data, design, err)
    rotations = _rotations(data, counts, design, err)
    cell_deals = _cell_deals(data, counts, design, variants, players, err)
    until_ci = data.get("until_ci")
    if until_ci is not None:
        if isinstance(until_ci, bool) or not isinstance(until_ci, (int, float)) or not 0 < until_ci < 100:
            raise err("until_ci", f"must be a number of points of win rate above 0 and below 100, got {_show(until_ci)}")
        if design is None or all(v == "field" for _, v in design):
            raise err("until_ci", "stops tournaments (design = \"round-robin\" or \"hero\"): a field experiment's "
                      "rotations are separate cells on decks of their own, with no paired margin to watch "
                      "(durak compare --until-ci stops field rotations on duplicate decks)")
        until_ci = float(until_ci)

    exp = Experiment(
        name=name, description=description, variants=variants, players=players,
        lineup=lineup, field=fld, rules=rules, variant_rules=variant_rules, grid=grid,
        counts=counts, seed=seed, chunk_size=chunk_size, match_chunk_size=match_chunk,
        reports=reports, source=source, design=design, reference=reference, until_ci=until_ci, ladder=ladder,
        ladder_players=ladder_players, rotations=rotations, cell_deals=cell_deals, pairs=pairs,
    )
    n_players = len(players) if players else max(len(p) for p in PLAYERS.values())
    upper = (len(counts) * len(variants) * n_players * (len(fld) if fld else len(ladder) if ladder else 1)
             * math.prod(len(v) for v in grid.values()))
    if problem := cells_problem(upper):  # before any cell is built
        raise err("grid", problem)
    cells = _expand(exp, err)
    if problem := chunks_problem((c.n, c.chunk_size) for c in cells):
        raise err(UNIT_KEYS[cells[0].unit], problem)
    _check_strategies(exp, cells, resolve_strategy, err)
    return replace(exp, _cells=tuple(cells))


def _one_line(msg: str) -> str:
    return " ".join(msg.split())


def _show(v: Any) -> str:
    return f"{type(v).__name__} {v!r}"


def _positive(data: Mapping[str, Any], key: str, err: Callable[[str, str], ExperimentError]) -> int:
    v = data[key]
    problem = count_problem(v, MAX_CHUNK if key.endswith("chunk_size") else MAX_COUNT)  # bounded before use
    if problem:
        raise err(key, problem)
    return v


def _variants(data: Mapping[str, Any], err: Callable[[str, str], ExperimentError]) -> tuple[str, ...]:
    if "variant" in data and "variants" in data:
        raise err("variants", "give either variant or variants, not both")
    if "variant" in data:
        key, raw = "variant", [data["variant"]]
        if not isinstance(data["variant"], str):
            raise err(key, f"must be a variant name, got {_show(data['variant'])}")
    elif "variants" in data:
        key, raw = "variants", data["variants"]
        if not isinstance(raw, list) or not raw:
            raise err(key, f"must be a non-empty list of variant names, got {_show(raw)}")
    else:
        raise err("variants", f"missing; give variant = \"czech\" or variants = [...] ({', '.join(VARIANTS)})")
    for v in raw:
        if v not in VARIANTS:
            raise err(key, f"unknown variant {v!r}; known: {', '.join(VARIANTS)}")
    if len(set(raw)) != len(raw):
        raise err(key, "lists a variant twice")
    return tuple(raw)


def _players(data: Mapping[str, Any], variants: tuple[str, ...],
             err: Callable[[str, str], ExperimentError]) -> tuple[int, ...] | None:
    if "players" not in data:
        return None
    raw = data["players"]
    vals = raw if isinstance(raw, list) else [raw]
    if not vals or any(isinstance(p, bool) or not isinstance(p, int) for p in vals):
        raise err("players", f"must be a player count or a non-empty list of them, got {_show(raw)}")
    if len(set(vals)) != len(vals):
        raise err("players", "lists a player count twice")
    for p in vals:
        if not any(p in PLAYERS[v] for v in variants):
            allowed = ", ".join(f"{v} {PLAYERS[v].start}" + (f"..{PLAYERS[v].stop - 1}" if len(PLAYERS[v]) > 1 else "")
                                for v in variants)
            raise err("players", f"no variant of the experiment is played by {p} players ({allowed})")
    for v in variants:
        if not any(p in PLAYERS[v] for p in vals):
            raise err("players", f"none of {vals} is a player count of {v}")
    return tuple(sorted(vals))


def _strategies(data: Mapping[str, Any], err: Callable[[str, str], ExperimentError]
                ) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    if "lineup" in data and "field" in data:
        raise err("field", "give either lineup or field, not both")
    for key in ("lineup", "field"):
        if key in data:
            raw = data[key]
            if isinstance(raw, str):  # one string: the line-up as --strategies writes it
                try:
                    names = parse_lineup(raw)
                except LineupError as e:
                    raise err(key, str(e)) from None
            else:
                if (not isinstance(raw, list) or not raw
                        or any(not isinstance(s, str) or not s.strip() for s in raw)):
                    raise err(key, f"must be a non-empty list of strategy names, got {_show(raw)}")
                names = tuple(s.strip() for s in raw)
            return (names, None) if key == "lineup" else (None, names)
    return None, None


def _ladder(data: Mapping[str, Any], lineup: tuple[str, ...] | None, fld: tuple[str, ...] | None,
            err: Callable[[str, str], ExperimentError]) -> tuple[str, ...] | None:
    """``ladder = [...]``: strategy specs, each played in every seat of a cell of its own."""
    if "ladder" not in data:
        return None
    if lineup is not None or fld is not None:
        raise err("ladder", "give one of lineup, field or ladder")
    if "design" in data:
        raise err("ladder", "a ladder seats one strategy in every seat; tournaments (design) take a field")
    raw = data["ladder"]
    if not isinstance(raw, list) or not raw or any(not isinstance(s, str) or not s.strip() for s in raw):
        raise err("ladder", f"must be a non-empty list of strategy specs, got {_show(raw)}")
    names = tuple(s.strip() for s in raw)
    if len(set(names)) != len(names):
        raise err("ladder", "lists a strategy twice")
    return names


def _ladder_players(data: Mapping[str, Any], ladder: tuple[str, ...] | None,
                    err: Callable[[str, str], ExperimentError]) -> tuple[tuple[str, tuple[int, ...]], ...] | None:
    """``ladder_players = { STEP = [players, ...] }``: a ladder step played at those player counts only."""
    if "ladder_players" not in data:
        return None
    raw = data["ladder_players"]
    if ladder is None:
        raise err("ladder_players", "goes with a ladder")
    if not isinstance(raw, dict) or not raw:
        raise err("ladder_players", f"must be a table of ladder steps and player counts, got {_show(raw)}")
    out = []
    for step, counts in raw.items():
        if step not in ladder:
            raise err("ladder_players", f"{step!r} is not a step of the ladder")
        if (not isinstance(counts, list) or not counts
                or any(isinstance(c, bool) or not isinstance(c, int) or not 2 <= c <= 8 for c in counts)):
            raise err("ladder_players", f"{step}: must be a non-empty list of player counts (2-8), got {_show(counts)}")
        out.append((step, tuple(sorted(set(counts)))))
    return tuple(out)


def _design(data: Mapping[str, Any], fld: tuple[str, ...] | None, counts: dict[str, int],
            err: Callable[[str, str], ExperimentError]) -> tuple[tuple[tuple[int, str], ...] | None, str]:
    """``design = "round-robin"`` or a table player count -> design; ``reference`` (hero)."""
    reference = data.get("reference", "weighted")
    if not isinstance(reference, str) or not reference.strip():
        raise err("reference", f"must be a strategy spec, got {_show(reference)}")
    if "design" not in data:
        if "reference" in data:
            raise err("reference", "belongs to design = \"hero\"")
        return None, reference.strip()
    raw = data["design"]
    items = [("all", raw)] if isinstance(raw, str) else list(raw.items()) if isinstance(raw, dict) else None
    if not items:
        raise err("design", f"must be one of {', '.join(DESIGNS)} or a table player count = design, got {_show(raw)}")
    out = []
    for k, v in items:
        key = "design" if k == "all" else f"design.{k}"
        if k != "all" and not (isinstance(k, str) and k.isdigit() and int(k) >= 2):
            raise err(key, f"a player count of 2 or more, got {k!r}")
        if v not in DESIGNS:
            raise err(key, f"must be one of {', '.join(DESIGNS)}, got {_show(v)}")
        out.append((0 if k == "all" else int(k), v))
    if any(v != "field" for _, v in out):
        if any(v == "field" for _, v in out):
            raise err("design", "field rotations and tournaments (round-robin, hero) go in separate experiments")
        if fld is None:
            raise err("design", "a tournament needs its strategies as field = [...]")
        if "match" in counts:
            raise err("matches", "tournaments (round-robin, hero) play single deals; give deals = N")
    if "reference" in data and not any(v == "hero" for _, v in out):
        raise err("reference", "belongs to design = \"hero\"")
    return tuple(out), reference.strip()


def _pairs(data: Mapping[str, Any], design: tuple[tuple[int, str], ...] | None,
           err: Callable[[str, str], ExperimentError]) -> tuple[tuple[int | str, int | str], ...] | None:
    """``pairs = [[a, b], ...]``: the round-robin plays only these pairs of the field (each entrant by its index
    in ``field`` or by its spec); the design checks them against the field of each tournament."""
    if "pairs" not in data:
        return None
    if design is None or not any(v == "round-robin" for _, v in design):
        raise err("pairs", "belongs to design = \"round-robin\"")
    raw = data["pairs"]
    ok = isinstance(raw, list) and raw and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, (int, str)) and not isinstance(x, bool) for x in p)
        for p in raw)
    if not ok:
        raise err("pairs", f"must be a list of pairs [a, b] of field indices or specs, got {_show(raw)}")
    return tuple((p[0], p[1]) for p in raw)


def _rotations(data: Mapping[str, Any], counts: dict[str, int], design: tuple[tuple[int, str], ...] | None,
               err: Callable[[str, str], ExperimentError]) -> tuple[tuple[int, int], ...] | None:
    """``hand_rotations = K`` or a table player count = K: each deck of a single-deal cell dealt K times, its
    hands passed one seat on each time (checked against each cell's player count where the cells are made)."""
    if "hand_rotations" not in data:
        return None
    raw = data["hand_rotations"]
    items = list(raw.items()) if isinstance(raw, dict) else [("all", raw)]
    if not items:
        raise err("hand_rotations", "must be a whole number of 1 or more, or a table player count = number")
    out = []
    for k, v in items:
        key = "hand_rotations" if k == "all" else f"hand_rotations.{k}"
        if k != "all" and not (isinstance(k, str) and k.isdigit() and int(k) >= 2):
            raise err(key, f"a player count of 2 or more, got {k!r}")
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise err(key, f"must be a whole number of 1 or more, got {_show(v)}")
        out.append((0 if k == "all" else int(k), v))
    if "match" in counts:
        raise err("hand_rotations", "rotates the hands of single deals; a match deals each of its deals afresh")
    if design is not None and any(v != "field" for _, v in design):
        raise err("hand_rotations", "tournaments (round-robin, hero) already play every line-up on the same decks")
    return tuple(out)


def _cell_deals(data: Mapping[str, Any], counts: dict[str, int], design: tuple[tuple[int, str], ...] | None,
                variants: tuple[str, ...], players: tuple[int, ...] | None,
                err: Callable[[str, str], ExperimentError]) -> tuple[tuple[str, int, int], ...] | None:
    """``cell_deals``: a table "variant" or "variant Np" = deals, for the single-deal cells it names (the
    more specific entry wins over the variant's; checked against the chunk size where the cells are made).  In
    an experiment of tournaments it is the decks of the tournaments of that variant (player count): every
    line-up of one tournament still plays the same decks."""
    if "cell_deals" not in data:
        return None
    raw = data["cell_deals"]
    if not isinstance(raw, dict) or not raw:
        raise err("cell_deals", 'must be a table "variant" or "variant Np" = deals, e.g. { "prague 2p" = 44000 }')
    if "deal" not in counts:
        raise err("cell_deals", "sets the deals of single-deal cells; give deals = N as well")
    out = []
    for k, v in raw.items():
        key = f"cell_deals.{k}"
        m = re.fullmatch(r"\s*([a-z]+)(?:\s+(\d+)p)?\s*", str(k))
        if m is None or m.group(1) not in variants:
            raise err(key, f"names no variant of this experiment ({', '.join(variants)}), nor \"variant Np\"")
        p = int(m.group(2)) if m.group(2) else 0
        if p and (p not in PLAYERS[m.group(1)] or (players is not None and p not in players)):
            raise err(key, f"{m.group(1)} is not played at {p} players in this experiment")
        if problem := count_problem(v, MAX_COUNT):
            raise err(key, problem)
        out.append((m.group(1), p, v))
    return tuple(out)


def fill_spec(spec: str, variant: str, players: int) -> str:
    """A spec with ``{variant}`` and ``{players}`` filled in (``weighted?preset={variant}-{players}p``)."""
    return spec.replace("{variant}", variant).replace("{players}", str(players))


def _rules(raw: Any, variants: tuple[str, ...], err: Callable[[str, str], ExperimentError]
           ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    if not isinstance(raw, dict):
        raise err("rules", f"must be a table of option = value, got {_show(raw)}")
    common: dict[str, Any] = {}
    per: dict[str, dict[str, Any]] = {}
    for k, v in raw.items():
        if k in VARIANTS:
            if not isinstance(v, dict):
                raise err(f"rules.{k}", f"must be a table of option = value, got {_show(v)}")
            if k not in variants:
                raise err(f"rules.{k}", f"{k} is not among the variants of the experiment")
            for opt, val in v.items():
                _check_option(f"rules.{k}.{opt}", opt, val, err)
            per[k] = dict(v)
        else:
            _check_option(f"rules.{k}", k, v, err)
            common[k] = v
    for v, table in per.items():
        both = set(table) & set(common)
        if both:
            opt = sorted(both)[0]
            raise err(f"rules.{v}.{opt}", "also set in [rules] for every variant; set it in one place")
    return common, per


def _check_option(key: str, opt: str, value: Any, err: Callable[[str, str], ExperimentError]) -> None:
    if opt not in OPTIONS:
        raise err(key, f"unknown rule option {opt!r}; known: {', '.join(OPTIONS)}")
    if isinstance(value, (dict, list)):
        raise err(key, f"must be a single value, got {_show(value)}")


def _grid(raw: Any, rules: dict[str, Any], per: dict[str, dict[str, Any]],
          err: Callable[[str, str], ExperimentError]) -> dict[str, tuple[Any, ...]]:
    if not isinstance(raw, dict):
        raise err("grid", f"must be a table of option = [values], got {_show(raw)}")
    grid: dict[str, tuple[Any, ...]] = {}
    for k, vals in raw.items():
        key = f"grid.{k}"
        if k not in OPTIONS:
            raise err(key, f"unknown rule option {k!r}; known: {', '.join(OPTIONS)}")
        if not isinstance(vals, list) or not vals:
            raise err(key, f"must be a non-empty list of values, got {_show(vals)}")
        for v in vals:
            _check_option(key, k, v, err)
        if len({json.dumps(v) for v in vals}) != len(vals):
            raise err(key, "lists a value twice")
        if k in rules or any(k in t for t in per.values()):
            raise err(key, "also set in [rules]; an option is either fixed or a grid axis")
        grid[k] = tuple(vals)
    return grid


def _reports(data: Mapping[str, Any], err: Callable[[str, str], ExperimentError]) -> tuple[str, ...]:
    if "reports" not in data:
        return DEFAULT_REPORTS
    raw = data["reports"]
    if not isinstance(raw, list) or any(not isinstance(r, str) for r in raw):
        raise err("reports", f"must be a list of report kinds, got {_show(raw)}")
    for r in raw:
        if r not in REPORT_KINDS:
            raise err("reports", f"unknown report kind {r!r}; known: {', '.join(REPORT_KINDS)}")
    return tuple(dict.fromkeys(raw))


def _refuse_idle(exp: Experiment, cells: list[Cell], err: Callable[[str, str], ExperimentError]) -> None:
    """An option that is inactive in every cell that sets it (``seven_chain`` where ``sevens`` is never on) would
    change nothing anywhere: refused in one line.  Inactive in some cells only, it is named so in their labels."""
    for name, (needs, value) in NEEDS.items():
        setting = [c for c in cells if name in c.rules.changed()]
        if setting and all(name in c.rules.inactive() for c in setting):
            key = "grid" if name in exp.grid else "rules"
            raise err(key, f"{name} changes nothing without {needs}={format_value(value)} (in no cell is it on): "
                      f"set {needs} too, or leave {name} out")


def _expand(exp: Experiment, err: Callable[[str, str], ExperimentError]) -> list[Cell]:
    """All cells in their fixed order, each rule set built (and so checked) once."""
    # Each option alone first (value, and whether the variant has it), so that such
    # an error names its key; what is left are faults of a combination.
    single = ([(f"rules.{k}", k, x, exp.variants) for k, x in exp.rules.items()]
              + [(f"rules.{v}.{k}", k, x, (v,)) for v, t in exp.variant_rules.items() for k, x in t.items()]
              + [(f"grid.{k}", k, x, exp.variants) for k, xs in exp.grid.items() for x in xs])
    for key, opt, value, variants in single:
        try:
            for v in variants:
                check_option(opt, value, v)
        except RulesError as e:
            raise err(key, str(e)) from None

    several = (exp.field is not None and len(exp.field) > 1) or (exp.ladder is not None and len(exp.ladder) > 1)
    keys = list(exp.grid)
    cells: list[Cell] = []
    for unit in UNITS:
        if unit not in exp.counts:
            continue
        chunk = exp.chunk_size if unit == "deal" else exp.match_chunk_size
        for v in exp.variants:
            base = {**exp.rules, **exp.variant_rules.get(v, {})}
            for p in [p for p in (exp.players or PLAYERS[v]) if p in PLAYERS[v]]:
                for combo in itertools.product(*(exp.grid[k] for k in keys)):
                    gv = tuple((k, check_option(k, x)) for k, x in zip(keys, combo))
                    ov = {**base, **dict(gv)}
                    try:
                        rs = make_rules(v, p, ov, inactive_ok=True)  # named inactive in labels; below
                    except RulesError as e:
                        where = "".join(f" {k}={format_value(x)}" for k, x in gv)
                        raise err("grid" if gv else "rules", f"{v} {p}p{where}: {e}") from None
                    try:
                        rs.for_unit(unit)
                    except RulesError:
                        raise err(UNIT_KEYS[unit], f"{v} has no match target by default; set target in "
                                  f"[rules.{v}] (or [rules]) to play matches") from None
                    try:
                        seatings = [tuple(fill_spec(s, v, p) for s in up) for up in exp.lineups(p)]
                    except LineupError as e:
                        raise err("ladder" if exp.ladder is not None else "field" if exp.field is not None
                                  else "lineup", str(e)) from None
                    if exp.design_for(p) == "round-robin" and p != 2:
                        raise err("design", f"round-robin is for 2 players (head to head), not {v} {p}p; "
                                  "use hero for more players, e.g. [design] 2 = \"round-robin\", 4 = \"hero\"")
                    rot = exp.rotations_for(p) if unit == "deal" else 1
                    if rot > p:
                        raise err("hand_rotations", f"{rot} rotations of the hands for {v} {p}p: at most the "
                                  "player count (one for each seat)")
                    for lineup in seatings:
                        cells.append(Cell(
                            index=len(cells), unit=unit, rules=rs, lineup=lineup, grid=gv,
                            n=(exp.deals_for(v, p) if unit == "deal" else exp.counts[unit]) * rot,
                            chunk_size=chunk * rot, show_lineup=several, rotations=rot,
                        ))
    _refuse_idle(exp, cells, err)
    if exp.lineup is not None:
        longest = len(exp.lineup)
        smallest = min(c.players for c in cells)
        if longest > smallest:
            raise err("lineup", f"{longest} strategies for {smallest} players; a lineup is cycled to "
                      "the player count but may not be longer")
    return cells


def _check_strategies(exp: Experiment, cells: list[Cell], resolve: StrategyResolver | None,
                      err: Callable[[str, str], ExperimentError]) -> None:
    """Resolve every strategy spec once, so an unknown name fails before any work."""
    key = "ladder" if exp.ladder is not None else "field" if exp.field is not None else "lineup"
    if resolve is None:
        resolve = get_strategy
    specs = [s for c in cells for s in c.lineup]
    if exp.design is not None and any(d == "hero" for _, d in exp.design):
        specs.append(exp.reference)
    for spec in dict.fromkeys(specs):
        try:
            resolve(spec)
        except (ValueError, ImportError, AttributeError, OSError) as e:
            raise err(key, str(e) or f"unknown strategy {spec!r}") from None
