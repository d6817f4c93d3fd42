"""The rule space a balance run explores: which house rules, which values, which players.

A *rule space* is a set of option values (RULES.md names) whose cartesian
product gives the *arms*: one rule set each, every one played by the same
line-ups on the same decks (:mod:`analyzer.execution.runs.balance`).  Without a
file the space is every option of the variant that can change a single deal
(:func:`default_space`); the options that cannot are left out with the reason
(:data:`LEFT_OUT`), so the report can say what was not explored and why.

File format (``durak balance --rule-space FILE`` or ``durak run FILE``)::

    kind = "balance"                 # marks the file for ``durak run``
    name = "balance_czech_4p"        # output goes to reports/<name>/; default: file stem
    description = "free text"
    variant = "czech"                # required by durak run; durak balance takes --variant
    players = 4
    seed = 0
    strong = "weighted?preset={variant}-{players}p"   # the skilled player (default: the tuned preset; "expert": the strongest)
    opponents = ["random"]           # the skill gap is strong against each of these
    target_pp = 1.0                  # finalists' first-player advantage to +- this (95 %)
    first_decks = 500                # decks every arm plays in the first round
    chunk_decks = 250                # the unit of work and of resuming
    eta = 4                          # successive halving keeps 1/eta of the arms a round
    finalists = 12                   # arms measured to the target on fresh decks
    max_decks = 20000                # most decks an arm plays in a stage
    single_changes = true            # also measure every single change from the default rules to the target
    fairness = "every-seat"          # rank on every seat's win and дурак share, or "first-mover": its win only
    trace = "pimc?budget=4000"       # the report card's skill trace: this player against the strong one ("": none)
    trace_decks = 250                # decks of each finalist's skill trace and real-choice share
    [rules]                          # options fixed for every arm
    hand_size = 5
    [space]                          # option -> values; no [space]: every option (default_space)
    sevens = [false, true]

An option that only matters when another has a value (``seven_chain`` with
``sevens`` on, ``forget_rate`` with ``last_card_call`` on, :data:`DEPENDS`) is
set to its default elsewhere, and arms that are then the same rule set are one
arm.  Every setting is checked before any deal is played; a fault is one line
naming the file and the key (:class:`BalanceError`).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.core.inputs import count_problem, name_problem
from analyzer.core.registry import get_strategy
from analyzer.core.rules import (
    NEEDS,
    OPTIONS,
    PLAYERS,
    VARIANTS,
    RulesError,
    RuleSet,
    check_option,
    default_players,
    describe_options,
    make_rules,
)
from analyzer.execution.experiment import ExperimentError, fill_spec, read_toml_file
from analyzer.stats.balance import FAIRNESS_KINDS

KIND = "balance"
#: Options not explored by default: they cannot change who wins or loses a single deal, or they are the
#: variant's definition rather than a house rule.  A rule-space file may still list them.
LEFT_OUT = {
    "target": "sets a match's length (G11); the balance plays single deals",
    "turn_cap": "the simulation's safety cap (G10), not a house rule",
    "jack_finish_doubles": "doubles every hand's points (CZ8): a single deal's winner and дурак stay the same",
    "lone_wild_points": "the points of a lone Queen (SV6), not a house rule of play",
    "last_card_call": "with forget_rate 0 nobody forgets the call, so it changes nothing; a forgetting rate "
                      "is the players', not the rules'",
    "forget_rate": "a player's lapse, not a rule (CZ8 models last_card_call with it)",
}
#: The deck is the variant's own where RULES.md fixes it (PR1, SV1: 36 cards).
FIXED_DECK = ("prague", "svinya")
#: option -> (option, value): explored only where that option has that value, else at its default.
DEPENDS = NEEDS
#: Hand sizes explored by default: czech's own and the two CZ8 names; elsewhere the variant's own and one either side.
HAND_SIZES = {"czech": (5, 6, 7)}
HAND_SPREAD = (-1, 0, 1)
#: Most arms of one space (each is a rule set played on every first-round deck).
MAX_ARMS = 50_000
KNOWN_KEYS = ("kind", "name", "description", "variant", "players", "seed", "strong", "opponents", "target_pp",
              "first_decks", "chunk_decks", "eta", "finalists", "max_decks", "single_changes", "fairness", "trace",
              "trace_decks", "rules", "space")
#: The report card's skill trace: a search player at a small budget (a tenth of pimc's default) in each seat
#: against the strong player -- the level above the strong player, for the finalists only.
DEFAULT_TRACE = "pimc?budget=4000"
DEFAULT_STRONG = "weighted?preset={variant}-{players}p"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class BalanceError(ExperimentError):
    """A malformed rule space or balance setting; the message is one line naming the file and key."""


@dataclass(frozen=True)
class Arm:
    """One rule set of the space: its index, the explored options' values, the rules built from them, and how
    many explored options differ from the reference rule set (0 for it, 1 for a single change)."""

    index: int
    values: tuple[tuple[str, Any], ...]
    rules: RuleSet
    changes: int = 0

    @property
    def label(self) -> str:
        """The rules as the one text form writes them (``sevens=on, eight_stop=on`` or ``default rules``)."""
        return self.rules.describe()


@dataclass(frozen=True)
class BalanceSpace:
    """A checked rule space with the run's settings (module doc); ``arms[reference]`` is the variant's default."""

    name: str
    description: str
    variant: str
    players: int
    seed: int
    strong: str
    opponents: tuple[str, ...]
    target_pp: float
    first_decks: int
    chunk_decks: int
    eta: int
    finalists: int
    max_decks: int
    single_changes: bool
    fixed: dict[str, Any]
    space: dict[str, tuple[Any, ...]]
    left_out: dict[str, str]
    source: str = "<balance>"
    arms: tuple[Arm, ...] = field(default=(), repr=False, compare=False)
    reference: int = 0
    fairness: str = "every-seat"
    trace: str = DEFAULT_TRACE
    trace_decks: int = 250

    @property
    def reference_name(self) -> str:
        """What the reference arm is called: the variant's default rules, or the file's fixed ``[rules]``."""
        return reference_name(self.fixed)

    def to_dict(self) -> dict[str, Any]:
        """The space as parsed (JSON-able): what the manifest and the fingerprint record."""
        return {"kind": KIND, "name": self.name, "description": self.description, "variant": self.variant,
                "players": self.players, "seed": self.seed, "strong": self.strong, "opponents": list(self.opponents),
                "target_pp": self.target_pp, "first_decks": self.first_decks, "chunk_decks": self.chunk_decks,
                "eta": self.eta, "finalists": self.finalists, "max_decks": self.max_decks,
                "single_changes": self.single_changes, "fairness": self.fairness, "trace": self.trace,
                "trace_decks": self.trace_decks, "rules": dict(self.fixed),
                "space": {k: list(v) for k, v in self.space.items()},
                "left_out": dict(self.left_out), "source": self.source, "arms": len(self.arms)}


def reference_name(fixed: Mapping[str, Any]) -> str:
    """``the default rules``, or ``the fixed rules (hand_size=5)`` where a rule-space file fixes options."""
    return f"the fixed rules ({describe_options(fixed)})" if fixed else "the default rules"


def default_space(variant: str, players: int, fixed: Mapping[str, Any] | None = None
                  ) -> tuple[dict[str, tuple[Any, ...]], dict[str, str]]:
    """Every option of ``variant`` that can change a single deal, with its values; and the rest with why.

    Booleans take both values, enumerations every value; ``hand_size`` czech's 5, 6 and 7 (CZ2, CZ8),
    elsewhere the variant's own and one either side (:data:`HAND_SPREAD`); czech's ``deck_size`` every
    size of G1; ``wild_rule`` its default and the other rule that acts differently on single deals
    (``match``, CZ7, acts only on a match's last deal, so a single deal plays it as ``off``).  Options in
    ``fixed`` are not explored.
    """
    base = make_rules(variant, players)
    fixed = dict(fixed or {})
    space: dict[str, tuple[Any, ...]] = {}
    left: dict[str, str] = {}
    for name, (kind, allowed, defaults) in OPTIONS.items():
        if variant not in defaults:
            continue
        if name in fixed:
            left[name] = f"fixed at {describe_options({name: fixed[name]}).split('=', 1)[1]} by [rules]"
        elif name in LEFT_OUT:
            left[name] = LEFT_OUT[name]
        elif name == "deck_size" and variant in FIXED_DECK:
            left[name] = f"{variant} is played with 36 cards ({'PR1' if variant == 'prague' else 'SV1'})"
        elif name == "hand_size":
            space[name] = HAND_SIZES.get(variant) or tuple(base.hand_size + d for d in HAND_SPREAD
                                                            if base.hand_size + d >= 1)
        elif name == "wild_rule":
            own = defaults[variant]
            space[name] = (own, "off") if own == "deal" else (own, "deal")
        elif kind == "bool":
            space[name] = (False, True)
        elif allowed is not None:
            space[name] = tuple(allowed)
    return space, left


def expand(variant: str, players: int, fixed: Mapping[str, Any], space: Mapping[str, tuple[Any, ...]],
           err: Callable[[str, str], BalanceError]) -> tuple[tuple[Arm, ...], int]:
    """The arms of the space (cartesian product, dependents folded, duplicates and impossible sets dropped),
    the variant's default rule set (with ``fixed``) first; and the index of that reference arm (0)."""
    keys = list(space)
    seen: dict[str, Arm] = {}
    reference = make_rules(variant, players, fixed)
    ref_key = reference.describe()
    seen[ref_key] = Arm(0, tuple((k, getattr(reference, k)) for k in keys), reference)
    total = math.prod(len(v) for v in space.values())
    if total > MAX_ARMS * 4:
        raise err("space", f"{total:,} combinations; at most {MAX_ARMS:,} arms (list fewer values)")
    for combo in itertools.product(*(space[k] for k in keys)):
        values = dict(zip(keys, combo))
        for opt, (parent, when) in DEPENDS.items():
            if opt in values and {**fixed, **values}.get(parent, getattr(reference, parent, None)) != when:
                values[opt] = getattr(reference, opt)
        try:
            # a rule set where an option cannot act (serve_last_effect with no effect card) is still an arm: the
            # search sees it play every deck as the simpler one and lets that stand for both
            rules = make_rules(variant, players, {**fixed, **values}, inactive_ok=True)
        except RulesError:
            continue  # e.g. a deck too small for the hand: the combination is not a game
        key = rules.describe()
        if key not in seen:
            changes = sum(getattr(rules, k) != getattr(reference, k) for k in keys)
            seen[key] = Arm(len(seen), tuple(values.items()), rules, changes)
    if len(seen) > MAX_ARMS:
        raise err("space", f"{len(seen):,} arms; at most {MAX_ARMS:,} (list fewer values)")
    return tuple(seen.values()), 0


def _err_for(source: str) -> Callable[[str, str], BalanceError]:
    def err(key: str, msg: str) -> BalanceError:
        return BalanceError(f"{source}: key '{key}': {' '.join(str(msg).split())}")
    return err


def _positive_int(data: Mapping[str, Any], key: str, default: int, err: Callable[[str, str], BalanceError],
                  least: int = 1) -> int:
    v = data.get(key, default)
    if problem := count_problem(v, 10**7):
        raise err(key, problem)
    if v < least:
        raise err(key, f"must be at least {least}, got {v}")
    return int(v)


def _specs(data: Mapping[str, Any], variant: str, players: int, err: Callable[[str, str], BalanceError]
           ) -> tuple[str, tuple[str, ...]]:
    """The strong player and the opponents, ``{variant}``/``{players}`` filled in, each resolved once."""
    strong = data.get("strong", DEFAULT_STRONG)
    if not isinstance(strong, str) or not strong.strip():
        raise err("strong", f"must be a strategy spec, got {strong!r}")
    opponents = data.get("opponents", ["random"])
    if not isinstance(opponents, list) or not opponents or any(not isinstance(s, str) or not s.strip()
                                                               for s in opponents):
        raise err("opponents", f"must be a non-empty list of strategy specs, got {opponents!r}")
    filled = fill_spec(strong.strip(), variant, players)
    if "strong" not in data:
        try:
            get_strategy(filled)
        except ValueError:  # no tuned preset for this variant and count: the untuned weights
            filled = "weighted"
    out = [filled, *(fill_spec(s.strip(), variant, players) for s in opponents)]
    if len(set(out)) != len(out):
        raise err("opponents", f"lists the strong player or an opponent twice ({', '.join(out)})")
    for key, spec in zip(["strong", *["opponents"] * len(opponents)], out):
        try:
            get_strategy(spec)
        except (ValueError, ImportError, AttributeError, OSError) as e:
            raise err(key, str(e) or f"unknown strategy {spec!r}") from None
    return out[0], tuple(out[1:])


def _options(raw: Any, key: str, variant: str, err: Callable[[str, str], BalanceError], *, lists: bool
             ) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise err(key, f"must be a table of option = {'[values]' if lists else 'value'}, got {raw!r}")
    out: dict[str, Any] = {}
    for name, value in raw.items():
        where = f"{key}.{name}"
        values = value if lists else [value]
        if lists and (not isinstance(value, list) or not value):
            raise err(where, f"must be a non-empty list of values, got {value!r}")
        typed = []
        for v in values:
            if isinstance(v, (dict, list)):
                raise err(where, f"must be a single value, got {v!r}")
            try:
                typed.append(check_option(name, v, variant))
            except RulesError as e:
                raise err(where, str(e)) from None
        if len({json.dumps(t) for t in typed}) != len(typed):
            raise err(where, "lists a value twice")
        out[name] = tuple(typed) if lists else typed[0]
    return out


def parse_space(data: Mapping[str, Any], *, source: str = "<balance>", default_name: str | None = None,
                variant: str | None = None, players: int | None = None) -> BalanceSpace:
    """Check a rule-space table (module doc) and expand its arms; BalanceError (one line) on any fault.

    ``variant`` and ``players`` (the command's options) fill in what the file leaves out; a file that
    names others is refused.
    """
    err = _err_for(source)
    unknown = [k for k in data if k not in KNOWN_KEYS]
    if unknown:
        raise err(unknown[0], f"unknown key; known keys: {', '.join(KNOWN_KEYS)}")
    if data.get("kind", KIND) != KIND:
        raise err("kind", f"must be {KIND!r} in a rule-space file, got {data['kind']!r}")
    v = data.get("variant", variant)
    if v is None:
        raise err("variant", f"missing; give variant = \"czech\" ({', '.join(VARIANTS)})")
    if v not in VARIANTS:
        raise err("variant", f"unknown variant {v!r}; known: {', '.join(VARIANTS)}")
    if variant is not None and v != variant:
        raise err("variant", f"the file explores {v}, the command asked for {variant}")
    p = data.get("players", players if players is not None else default_players(v))
    if isinstance(p, bool) or not isinstance(p, int) or p not in PLAYERS[v]:
        r = PLAYERS[v]
        raise err("players", f"{v} is played by {r.start}..{r.stop - 1} players, not {p!r}")
    if players is not None and p != players:
        raise err("players", f"the file explores {p} players, the command asked for {players}")
    name = data.get("name", default_name or f"balance_{v}_{p}p")
    if not isinstance(name, str) or not _NAME.match(name) or name_problem(name):
        raise err("name", f"must be a plain name of letters, digits, '_', '-' or '.', got {name!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise err("description", f"must be a string, got {description!r}")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise err("seed", f"must be a whole number >= 0, got {seed!r}")
    target = data.get("target_pp", 1.0)
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0.05 <= target <= 50:
        raise err("target_pp", f"must be a number of percentage points from 0.05 to 50, got {target!r}")
    chunk = _positive_int(data, "chunk_decks", 250, err, least=10)
    first = _positive_int(data, "first_decks", 2 * chunk, err, least=chunk)
    if first % chunk:
        raise err("first_decks", f"must be a multiple of chunk_decks ({chunk}), got {first}")
    eta = _positive_int(data, "eta", 4, err, least=2)
    finalists = _positive_int(data, "finalists", 12, err)
    max_decks = _positive_int(data, "max_decks", 20_000, err)
    if max_decks < first:  # blame the key the file set: a first_decks above max_decks's default is first_decks' fault
        if "max_decks" in data:
            raise err("max_decks", f"must be at least first_decks ({first}), got {max_decks}")
        raise err("first_decks", f"must be at most max_decks ({max_decks:,} unless the file sets it), got {first:,}")
    single = data.get("single_changes", True)
    if not isinstance(single, bool):
        raise err("single_changes", f"must be true or false, got {single!r}")
    strong, opponents = _specs(data, v, p, err)
    fairness = data.get("fairness", "every-seat")
    if fairness not in FAIRNESS_KINDS:
        raise err("fairness", f"must be one of {', '.join(FAIRNESS_KINDS)}, got {fairness!r}")
    trace = data.get("trace", DEFAULT_TRACE)
    if not isinstance(trace, str):
        raise err("trace", f"must be a strategy spec or \"\" (none), got {trace!r}")
    trace = fill_spec(trace.strip(), v, p) if trace.strip() else ""
    if trace:
        try:
            get_strategy(trace)
        except (ValueError, ImportError, AttributeError, OSError) as e:
            raise err("trace", str(e) or f"unknown strategy {trace!r}") from None
    trace_decks = _positive_int(data, "trace_decks", chunk, err, least=chunk)
    if trace_decks % chunk:
        raise err("trace_decks", f"must be a multiple of chunk_decks ({chunk}), got {trace_decks}")
    fixed = _options(data.get("rules", {}), "rules", v, err, lists=False)
    if "space" in data:
        space = _options(data["space"], "space", v, err, lists=True)
        left = {k: "not in the file's [space]" for k in OPTIONS if v in OPTIONS[k][2] and k not in space}
        both = sorted(set(space) & set(fixed))
        if both:
            raise err(f"space.{both[0]}", "also set in [rules]; an option is either fixed or explored")
    else:
        space, left = default_space(v, p, fixed)
    try:
        make_rules(v, p, fixed)
    except RulesError as e:
        raise err("rules", str(e)) from None
    arms, ref = expand(v, p, fixed, space, err)
    if len(arms) < 2:
        raise err("space", "gives one rule set only; list at least two values of an option")
    return BalanceSpace(name=name, description=description, variant=v, players=p, seed=seed, strong=strong,
                        opponents=opponents, target_pp=float(target), first_decks=first, chunk_decks=chunk, eta=eta,
                        finalists=finalists, max_decks=max_decks, single_changes=single, fixed=fixed, space=dict(space), left_out=left,
                        source=source, arms=arms, reference=ref, fairness=fairness, trace=trace,
                        trace_decks=trace_decks)


def load_space(path: str | Path, *, variant: str | None = None, players: int | None = None) -> BalanceSpace:
    """Read and check a rule-space file (module doc)."""
    return parse_space(read_toml_file(path), source=str(path), default_name=Path(path).stem, variant=variant,
                       players=players)


def is_balance_file(path: str | Path) -> bool:
    """True if ``path`` is a TOML file marked ``kind = "balance"`` (``durak run`` hands it to the explorer)."""
    try:
        return read_toml_file(path).get("kind") == KIND
    except ExperimentError:
        return False  # the experiment parser reports the file's fault in its own words
