"""Rule sets of the three variants as data (RULES.md, "Option names").

One frozen :class:`RuleSet` holds every option of a variant; :func:`make_rules`
builds it from a variant id, a player count and option overrides, and refuses an
impossible combination with a one-line :class:`RulesError`.  The engine and the
batch simulator read only this object, so a house rule is a value, never a
subclass.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from analyzer.core.cards import ACE, DECK_LOW_RANK, JACK, KING, QUEEN

VARIANTS = ("czech", "prague", "svinya")

#: Player counts allowed per variant (CZ1, PR1, SV1).
PLAYERS = {"czech": range(2, 9), "prague": range(2, 6), "svinya": range(2, 3)}

#: How the first card of the pile comes about: czech turns up the top of the
#: rest (CZ3), prague's dealer leads with his sixth card (PR2), svinya has none
#: and the leader may play anything (SV2).
STARTER_KIND = {"czech": "turned", "prague": "dealer_lead", "svinya": "none"}

#: Who plays the first card of a deal (of a match's first deal), by variant: czech's player left of the dealer
#: plays onto the turned-up starter (CZ3); prague's dealer turns his sixth card up as his lead (PR2), so the
#: deal's first card is his; svinya's dealer's opponent leads a first deal (SV2).  "The first player" in every
#: report means this seat, the *first mover*; positions stay numbered from the dealer's left (G2).
FIRST_MOVER = {"czech": "the player left of the dealer", "prague": "the dealer",
               "svinya": "the dealer's opponent"}
FIRST_MOVER_RULE = {"czech": "CZ3", "prague": "PR2", "svinya": "SV2"}


def dealer_position(players: int) -> int:
    """The dealer is the last position (G2)."""
    return players - 1


def first_mover_position(variant: str, players: int) -> int:
    """The position that plays the first card of a deal (:data:`FIRST_MOVER`): prague's dealer, else position 0."""
    return dealer_position(players) if variant == "prague" else 0


def first_mover_text(variant: str, players: int) -> str:
    """``the dealer (position 3; PR2)``: who goes first, which position that is, and the rule that says so."""
    return (f"{FIRST_MOVER[variant]} (position {first_mover_position(variant, players)}; "
            f"{FIRST_MOVER_RULE[variant]})")


class RulesError(ValueError):
    """An impossible or unknown rule setting; the message is one line."""


class Effect(NamedTuple):
    """G5: what a card does to the next player: draw ``draw`` and/or lose the turn.

    A NamedTuple, immutable for real (a frozen dataclass yields to ``object.__setattr__``): the effect
    table is shared by every copy of the rules a strategy is handed."""

    draw: int = 0
    skip: bool = False


def _points(variant: str) -> tuple[int, ...]:
    """Point table indexed by rank value 0..14 (CZ6, PR6, SV6)."""
    table = [0, 0] + list(range(2, 15))
    if variant == "prague":  # PR6: 10, J, Q, K = 10; A = 11
        table[JACK] = table[QUEEN] = table[KING] = 10
        table[ACE] = 11
    else:  # CZ6 / SV6: A = 11, K = 4, Q = 3, J = 2
        table[ACE], table[KING], table[QUEEN], table[JACK] = 11, 4, 3, 2
    return tuple(table)


# Options: name -> (kind, allowed values or None, {variant: default}).  A variant
# missing from the defaults does not have the option ("—" in RULES.md).
_ALL = VARIANTS
OPTIONS: dict[str, tuple[str, tuple[Any, ...] | None, dict[str, Any]]] = {
    "deck_size": ("int", (32, 36, 48, 52), {"czech": None, "prague": 36, "svinya": 36}),
    "hand_size": ("int", tuple(range(1, 11)), {"czech": 5, "prague": 6, "svinya": 5}),
    "wild_on_anything": ("bool", None, {v: True for v in _ALL}),
    "starter_effects": ("bool", None, {"czech": False, "prague": True}),
    "sevens": ("bool", None, {"czech": False}),
    "seven_chain": ("enum", ("transfer", "accumulate"), {"czech": "transfer"}),
    "eight_stop": ("bool", None, {"czech": False}),
    "queen_needs_king": ("bool", None, {"czech": False}),
    "jack_finish_doubles": ("bool", None, {"czech": False}),
    "last_card_call": ("bool", None, {"czech": False}),
    "forget_rate": ("float", None, {"czech": 0.0}),
    "no_card": ("enum", ("draw_one", "draw_until_play"),
                {"czech": "draw_one", "prague": "draw_one", "svinya": "draw_until_play"}),
    "voluntary_draw": ("bool", None, {"czech": False, "prague": False, "svinya": True}),
    "reshuffle": ("enum", ("turn_over", "shuffle"), {v: "turn_over" for v in _ALL}),
    "serve_last_effect": ("bool", None, {v: False for v in _ALL}),
    "target": ("target", None, {"czech": 500, "prague": None, "svinya": 100}),
    "turn_cap": ("int", None, {v: 2000 for v in _ALL}),
    "lone_wild_points": ("int", None, {"svinya": 20}),
    # Not a RULES.md option: CZ7/PR7's "caught with a Jack loses" rule as a switch, so that
    # reports can measure the wild-holding penalty with the rule on and off.
    # deal = PR7 (every deal, and a match's last deal); match = CZ7 (a match's last deal only).
    "wild_rule": ("enum", ("deal", "match", "off"), {"czech": "match", "prague": "deal"}),
}


#: option -> (option, value): the first set away from its default acts only when the second has that value (CZ8:
#: a sevens chain needs sevens, forgetting the call needs the call).  make_rules refuses such a value without its
#: partner; a grid that crosses the two (an experiment, a rule space) keeps it and names it inactive in titles.
NEEDS: dict[str, tuple[str, Any]] = {"seven_chain": ("sevens", True), "forget_rate": ("last_card_call", True)}


@dataclass(frozen=True, kw_only=True)
class RuleSet:
    """Every option of one variant at one player count (immutable).

    ``effects`` and ``points`` are indexed by rank value (0..14); they are
    derived from the variant and the switches, so that the engine reads data
    rather than branching on the variant name.
    """

    variant: str
    players: int
    deck_size: int
    hand_size: int
    wild_rank: int
    wild_on_anything: bool = True
    starter_effects: bool = False
    sevens: bool = False
    seven_chain: str = "transfer"
    eight_stop: bool = False
    queen_needs_king: bool = False
    jack_finish_doubles: bool = False
    last_card_call: bool = False
    forget_rate: float = 0.0
    no_card: str = "draw_one"
    voluntary_draw: bool = False
    reshuffle: str = "turn_over"
    serve_last_effect: bool = False
    target: int | None = None
    turn_cap: int = 2000
    lone_wild_points: int | None = None
    wild_rule: str = "off"
    effects: tuple[Effect, ...] = field(default=(), repr=False)
    points: tuple[int, ...] = field(default=(), repr=False)

    def __hash__(self) -> int:
        """Cached: strategies look their tables up by rule set on every batch call."""
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self)))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict[str, Any]:
        """String hashes differ between processes: never ship the cached hash to a worker."""
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    def seven_penalty(self, chain):  # noqa: ANN001, ANN201 — an int or an array of chain lengths
        """CZ8: cards drawn by the player who takes a sevens chain of ``chain`` 7s.

        The 7's entry of the effect table gives the cards per 7: once (``transfer``)
        or once per 7 of the chain (``accumulate``).
        """
        per_seven = self.effects[7].draw if self.effects else 1
        return per_seven * chain if self.seven_chain == "accumulate" else per_seven

    @property
    def starter_kind(self) -> str:
        return STARTER_KIND[self.variant]

    @property
    def first_mover(self) -> int:
        """The position that plays the deal's first card (:func:`first_mover_position`)."""
        return first_mover_position(self.variant, self.players)

    @property
    def dealer(self) -> int:
        return dealer_position(self.players)

    @property
    def low_rank(self) -> int:
        return DECK_LOW_RANK[self.deck_size]

    def options(self) -> dict[str, Any]:
        """The option values by RULES.md name (what a manifest records)."""
        return {k: getattr(self, k) for k in OPTIONS if k in OPTIONS and self.variant in OPTIONS[k][2]}

    def changed(self) -> dict[str, Any]:
        """Options that differ from the variant's defaults at this player count."""
        base = make_rules(self.variant, self.players)
        return {k: v for k, v in self.options().items() if getattr(base, k) != v}

    def inactive(self) -> dict[str, str]:
        """Options set away from their default that cannot act under the others (:data:`NEEDS`): name -> what it
        needs, e.g. ``{"seven_chain": "sevens=on"}``."""
        out = {k: f"{p}={format_value(v)}" for k, (p, v) in NEEDS.items()
               if self.variant in OPTIONS[k][2] and getattr(self, k) != OPTIONS[k][2][self.variant]
               and getattr(self, p) != v}
        if self.serve_last_effect and not any(e != Effect() for e in self.effects):
            # G9: with no effect card (czech without sevens and eight_stop, CZ8) no last card has an effect to serve
            out["serve_last_effect"] = "an effect card (sevens=on or eight_stop=on)"
        return out

    def describe(self) -> str:
        """The one text form of the rules: ``sevens=on, seven_chain=accumulate`` or ``default rules``.

        Only options that differ from the variant's defaults, in the option table's
        order; the same text goes to disk (cells.parquet), labels, legends and titles,
        and :func:`parse_description` reads it back.
        """
        return describe_options(self.changed())

    def label(self) -> str:
        """``czech 4p`` or ``czech 4p sevens=on``: the variant, the players and :meth:`describe`."""
        ch = self.changed()
        return f"{self.variant} {self.players}p" + (f" {describe_options(ch)}" if ch else "")

    def to_dict(self) -> dict[str, Any]:
        """The one dict form (JSON-able): variant, players and the changed options."""
        return {"variant": self.variant, "players": self.players, **self.changed()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def for_unit(self, unit: str) -> RuleSet:
        """Self, if the rules can be played as ``unit`` ("deal" or "match"); else RulesError.

        The one place the match target is checked (G11): a variant without a
        default target (prague) plays matches only with ``target`` set.
        """
        if unit == "match" and self.target is None:
            raise RulesError(f"{self.variant} has no match target by default; set the rule target=POINTS "
                             "to play matches")
        return self


def private_copy(rules: RuleSet) -> RuleSet:
    """A copy of ``rules`` for one strategy alone, down to its effect table.

    ``frozen`` does not stop ``object.__setattr__``: a strategy that writes to
    the rules it is handed must change only its own copy, never the game's
    rules nor what another strategy reads.  Every field is immutable for real
    (ints, text, tuples, :class:`Effect` tuples), so a copy of the fields is a
    deep copy, at a twentieth of ``copy.deepcopy``'s time: the rules engine
    makes one per seat and deal.
    """
    out = object.__new__(RuleSet)
    out.__dict__.update(rules.__dict__)  # the cached hash too: an equal copy, in this process
    return out


def format_value(value: Any) -> str:
    """An option value as the rules text writes it: on/off, none, numbers as typed."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    return str(value)


def describe_options(options: Mapping[str, Any]) -> str:
    """``k=v, k=v`` in the option table's order (unknown keys last, sorted); ``default rules`` if empty."""
    order = {k: i for i, k in enumerate(OPTIONS)}
    keys = sorted(options, key=lambda k: (order.get(k, len(order)), k))
    return ", ".join(f"{k}={format_value(options[k])}" for k in keys) or "default rules"


def parse_description(text: str) -> dict[str, Any]:
    """Options (typed) from :meth:`RuleSet.describe` text; RulesError on a bad item.

    Also reads the JSON dict form of :meth:`RuleSet.to_json` (results written
    before the text form), dropping ``variant`` and ``players``.
    """
    text = (text or "").strip()
    if text.startswith("{"):
        try:
            raw = json.loads(text)
        except ValueError:
            raise RulesError(f"bad rules text {text!r}: not JSON") from None
        if not isinstance(raw, dict):
            raise RulesError(f"bad rules text {text!r}: not a table of options")
        items = [(k, v) for k, v in raw.items() if k not in ("variant", "players")]
    elif text in ("", "default rules"):
        items = []
    else:
        items = []
        for part in text.split(","):
            k, eq, v = part.partition("=")
            if not eq:
                raise RulesError(f"bad rules text {text!r}: expected name=value items, got {part.strip()!r}")
            items.append((k.strip(), v.strip()))
    return {k: parse_value(k, v) for k, v in items}


def _effects(variant: str, o: Mapping[str, Any]) -> tuple[Effect, ...]:
    """Per-rank effect table: PR5, SV5, CZ8 (sevens, eight_stop)."""
    eff = [Effect()] * 15
    if variant == "prague":
        eff[ACE], eff[7], eff[6] = Effect(1, True), Effect(1, False), Effect(2, False)
    elif variant == "svinya":
        eff[ACE], eff[7], eff[6] = Effect(0, True), Effect(1, True), Effect(2, True)
    else:
        # CZ8 sevens: a 7 makes the next player draw 1 and lose the turn unless answered.
        # The engine serves it as a chain (pending_seven), and the chain's penalty is read
        # from this entry (RuleSet.seven_penalty: its draw, once or once per 7), so the
        # entry is used, never ignored; strategies read it as an effect card too.
        if o["sevens"]:
            eff[7] = Effect(1, True)
        if o["eight_stop"]:
            eff[8] = Effect(0, True)
    return tuple(eff)


def czech_deck(players: int) -> int:
    """CZ1: 2..4 players use 32 cards, 5..6 use 36, 7..8 use 52."""
    return 32 if players <= 4 else 36 if players <= 6 else 52


#: Upper bounds of numeric options (points are stored as int16; turns as int32).
_MAX = {"lone_wild_points": 1000, "turn_cap": 1_000_000, "target": 1_000_000}

_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


def parse_value(name: str, value: Any) -> Any:
    """Convert a CLI/file value of option ``name`` to its type, or raise RulesError."""
    if name not in OPTIONS:
        raise RulesError(f"unknown rule option {name!r}; known: {', '.join(OPTIONS)}")
    kind, allowed, _ = OPTIONS[name]
    bad = RulesError(f"bad value {value!r} for rule {name!r}: expected {expected_values(name)}")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        s = str(value).strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise bad
    if kind == "target":
        if value is None or str(value).strip().lower() in ("none", "off", ""):
            return None
        kind = "int"
    if kind == "int":
        if isinstance(value, bool):
            raise bad
        try:
            v = int(str(value).strip()) if not isinstance(value, int) else value
        except ValueError:
            raise bad from None
        if (allowed is not None and v not in allowed) or v <= 0 or v > _MAX.get(name, v):
            raise bad
        return v
    if kind == "float":
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise bad from None
        if not 0.0 <= f <= 1.0:
            raise bad
        return f
    s = str(value).strip().lower()
    if s not in allowed:  # type: ignore[operator]
        raise bad
    return s


def expected_values(name: str) -> str:
    """The values option ``name`` takes, as a user types them (error messages, ``durak rules``)."""
    kind, allowed, _ = OPTIONS[name]
    if kind == "bool":
        return "on/off"
    if kind == "float":
        return "a number from 0 to 1"
    if kind == "target":
        return f"a number of points from 1 to {_MAX['target']:,}, or none"
    if allowed:
        nums = all(isinstance(a, int) for a in allowed)
        if nums and len(allowed) > 4 and list(allowed) == list(range(allowed[0], allowed[-1] + 1)):
            return f"{allowed[0]}..{allowed[-1]}"
        return " | ".join(str(a) for a in allowed)
    if name in _MAX:
        return f"a whole number from 1 to {_MAX[name]:,}"
    return "a positive whole number"


def check_option(name: str, value: Any, variant: str | None = None) -> Any:
    """One option alone: its typed value (RulesError for an unknown name or bad value, or an
    option ``variant`` does not have).  make_rules checks every override through this."""
    v = parse_value(name, value)
    if variant is not None and variant not in OPTIONS[name][2]:
        raise RulesError(f"rule {name!r} does not apply to {variant}")
    return v


#: The player count a command uses when none is given: 4 where the variant allows it
#: (CZ1, PR1), else its only count (SV1: svinya is for two).
DEFAULT_PLAYERS = {v: 4 if 4 in PLAYERS[v] else PLAYERS[v].start for v in VARIANTS}


def default_players(variant: str) -> int:
    """DEFAULT_PLAYERS of ``variant``; RulesError for an unknown variant."""
    if variant not in VARIANTS:
        raise RulesError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    return DEFAULT_PLAYERS[variant]


def make_rules(variant: str, players: int | None = None, overrides: Mapping[str, Any] | None = None, *,
               inactive_ok: bool = False) -> RuleSet:
    """Build the RuleSet of ``variant`` for ``players`` with option overrides.

    Raises RulesError (one line) for an unknown variant, option or value, an
    option the variant does not have, a player count it does not allow, a
    deck too small for the deal (CZ1: players x hand + 1 > deck), or an option
    whose value cannot act without another's (:data:`NEEDS`: ``seven_chain``
    without ``sevens``), unless ``inactive_ok`` (a grid crossing the two,
    which names it inactive where it is shown: :meth:`RuleSet.inactive`).
    """
    if variant not in VARIANTS:
        raise RulesError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    if players is None:
        players = DEFAULT_PLAYERS[variant]
    if not isinstance(players, int) or isinstance(players, bool) or players not in PLAYERS[variant]:
        r = PLAYERS[variant]
        allowed = f"{r.start}..{r.stop - 1}" if len(r) > 1 else str(r.start)
        raise RulesError(f"{variant} is played by {allowed} players, not {players}")
    o: dict[str, Any] = {k: d[variant] for k, (_, _, d) in OPTIONS.items() if variant in d}
    if variant == "czech":
        o["deck_size"] = czech_deck(players)
    for name, value in (overrides or {}).items():
        o[name] = check_option(name, value, variant)
    if variant == "prague" and o["hand_size"] < 2:
        raise RulesError("prague's dealer leads his last card (PR2): hand_size must be at least 2")
    if players * o["hand_size"] + 1 > o["deck_size"]:
        raise RulesError(
            f"deck of {o['deck_size']} is too small for {players} players x {o['hand_size']} cards + 1"
        )
    wild = QUEEN if variant == "svinya" else JACK
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    kw = {k: v for k, v in o.items() if k in fields}
    rules = RuleSet(variant=variant, players=players, wild_rank=wild,
                    effects=_effects(variant, o), points=_points(variant), **kw)
    if not inactive_ok:
        for name, needs in rules.inactive().items():
            raise RulesError(f"rule {name}={format_value(o[name])} changes nothing without {needs}: "
                             f"set {needs} too, or leave {name} out")
    return rules


def parse_rule_args(items: list[str] | None) -> dict[str, str]:
    """Turn CLI ``--rule k=v`` strings into a dict; RulesError on an item without '='."""
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise RulesError(f"bad --rule {item!r}: expected name=value, e.g. sevens=on")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()  # names and values are checked once, by make_rules
    return out
