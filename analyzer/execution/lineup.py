"""Line-ups: the one way specs become a table of strategies.

* :func:`parse_lineup` reads a line-up written as one string (``--strategies``,
  an experiment's ``lineup = "..."``): entries are separated by ``;``, blanks or
  commas, and a comma-separated ``name=value`` item after a ``?`` belongs to the
  spec before it, so ``weighted?w_points=1.5,w_wild=-2,random`` is two entries.
* :func:`cycle` fits a line-up to the player count (position 0 acts first, G2):
  a shorter one repeats, a longer one is refused.
* :func:`build` makes **one strategy object per distinct spec**: the simulator
  groups decisions by object, so two seats of ``random`` share one object and
  its random stream in every command alike.
* :func:`display_names` gives each position the strategy's own ``name`` (a
  plugin's, not its file path), made unique where two specs share a name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from analyzer.core.registry import StrategySpecError

#: What a line-up entry may be: a spec, or a ready strategy object (Python API).
Entry = Any
Resolver = Callable[[str], Any]

_SEP = re.compile(r"(\s*[,;]\s*|\s+)")


class LineupError(StrategySpecError):
    """A line-up that cannot be read or fitted to the table (one line)."""


def parse_lineup(text: str) -> tuple[str, ...]:
    """Split a written line-up into specs (module docstring); LineupError if ambiguous or empty."""
    parts = _SEP.split(text.strip())
    specs: list[str] = []
    sep = ""
    for i in range(0, len(parts), 2):
        item = parts[i]
        if not item:
            if text.strip():
                raise LineupError(f"line-up {text!r}: an empty entry (two separators in a row)")
            break
        if "=" in item and "?" not in item:
            if not specs or "?" not in specs[-1] or "," not in sep:
                raise LineupError(
                    f"line-up {text!r}: parameter {item!r} follows no 'name?' spec; write "
                    "parameters as name?k=v,k=v and separate strategies with ';', ',' or blanks")
            specs[-1] += "," + item
        else:
            specs.append(item)
        sep = parts[i + 1] if i + 1 < len(parts) else ""
    if not specs:
        raise LineupError("empty line-up: name at least one strategy")
    return tuple(specs)


def cycle(entries: Sequence[Entry], players: int) -> tuple[Entry, ...]:
    """The line-up by position for ``players``: repeated to fit, never longer (G2: position 0 first)."""
    if not entries:
        raise LineupError("empty line-up: name at least one strategy")
    if len(entries) > players:
        raise LineupError(f"{len(entries)} strategies for {players} players; a line-up is cycled to the "
                          "player count but may not be longer")
    return tuple(entries[i % len(entries)] for i in range(players))


def _key(entry: Entry) -> Any:
    return entry.strip() if isinstance(entry, str) else ("object", id(entry))


def build(entries: Sequence[Entry], resolve: Resolver) -> list[Any]:
    """Strategy objects by position, one per distinct spec (a ready object is used as it is)."""
    made: dict[Any, Any] = {}
    out = []
    for e in entries:
        k = _key(e)
        if k not in made:
            made[k] = resolve(e.strip()) if isinstance(e, str) else e
        out.append(made[k])
    return out


def entry_text(entry: Entry) -> str:
    """A spec as written, or a ready object's ``name`` (what identifies it in seeds and labels)."""
    return entry.strip() if isinstance(entry, str) else str(getattr(entry, "name", type(entry).__name__))


def display_names(entries: Sequence[Entry], strategies: Sequence[Any]) -> list[str]:
    """Each position's strategy ``name``; two distinct specs sharing a name are told apart by spec.

    Built-ins are named as their spec (``greedy``; with parameters the whole
    spec), so only a plugin's name differs from what was written.
    """
    names = [str(getattr(s, "name", "") or entry_text(e)) for e, s in zip(entries, strategies)]
    by_name: dict[str, set[Any]] = {}
    for e, n in zip(entries, names):
        by_name.setdefault(n, set()).add(_key(e))
    return [n if len(by_name[n]) == 1 else f"{n} ({entry_text(e)})" for e, n in zip(entries, names)]
