"""Tournament designs: which line-ups play which decks, and what each design measures.

A *design* turns strategy specs and a player count into *tables*: a line-up by
position (position 0 acts first in deal 1, G2) and the deck stream it plays
on.  Tables on the same stream play the same deck orders deck by deck
(duplicate), so what differs between them is the seating, never the cards.
Tables on one stream should also hand their strategies the same random seed
(common random numbers, as ``durak compare`` does), so a ``random`` player
draws alike in every seating and a strategy against itself differs by 0.

``round-robin`` (2 players only)
    Every pair of strategies head to head, each pair in both seatings, both
    seatings on the same decks.  It measures head-to-head margins; Bradley–Terry
    ratings (:mod:`analyzer.stats.ratings`) summarise them.  Given ``pairs``, only
    those pairs play (still on the same decks): a field of many strategies where
    each meets a reference and its counterpart, not all the others, costs the
    pairs it names instead of ``k (k - 1) / 2``.
``hero``
    Each strategy in turn sits every position against ``players - 1`` copies of
    a reference strategy (or a given background field filling the other
    positions in order), all on the same decks.  It measures each strategy's win
    rate against one fixed opposition, seat advantage averaged out.
``field``
    The rotation of :func:`analyzer.stats.compare.lineups`: rotation ``j`` seats
    strategy ``(p + j) % k`` at position ``p``.  Each strategy sits each position
    once per deck, but against a different mix of the others: it measures a
    win rate against *the field*, pooled over opponents, not a head-to-head result.

Dealing by strategy, not by seat (SV2)
--------------------------------------
In a match the hands of deal ``k`` go to seats counted from that deal's dealer.
Under SV2 the previous deal's winner leads, so which *player* receives which
hand of deck ``k`` depends on how the earlier deals went: in the two seatings of
a pair the stronger strategy keeps winning the lead and keeps receiving the same
hand, the deck's luck adds up instead of cancelling, and the duplicate interval
widens.  The fix fixes the hands to the players: every table carries
``hands[p]``, the *canonical hand* the player at position ``p`` receives from
every deck, whoever deals.  Canonical hand ``j`` is what player ``j`` gets when
the first dealer (player ``n - 1``, :func:`analyzer.engine.match.first_dealer`)
deals the deck as it is, i.e. the cards at positions ``i < n * hand_size`` with
``i % n == j`` (G10a: card ``i`` goes to seat ``(i + 1) % n``, seat ``s`` is
player ``(dealer + s) % n``).  :func:`analyzer.engine.match.arrange_deck` reorders a deck so that a
deal from any dealer gives each player its hand; the talon (and starter) keep
their order.  With ``hands`` the identity, the strategies of a pair swap the
hands of every deck between the two seatings (each strategy plays each hand of
each deck once), and hero puts the hero on every hand once.  For single deals
and for CZ2/PR7 matches (the deal passes to the left whatever happens) the
dealer of deal ``k`` is the same at every table, so the arrangement changes
nothing that matters; it is needed where the dealer follows play (SV2).
The kernel applies it at deal time (``analyzer.kernel.matches.simulate_matches``
and the paused matches, ``hands=...``); ``durak compare --matches`` sets it for
svinya (:func:`analyzer.execution.runs.compare.deals_by_player`).
Measured with the rules engine (svinya matches, greedy against weighted, 400
stacks of decks, both seatings, 95 % half-width of the paired margin of match
win shares): ±7.8 pp dealt by seat, ±7.1 pp with an independent stack per
seating, ±6.2 pp dealt by strategy: by seat the duplicate design was worse than
none; by strategy it narrows the interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from analyzer.core.registry import StrategySpecError, parse_spec

DESIGNS = ("round-robin", "hero", "field")

FloatArray = NDArray[np.float64]


class TournamentError(ValueError):
    """A design that cannot be built (wrong player count, too few or repeated strategies); one line."""


@dataclass(frozen=True)
class Table:
    """One line-up of a design.

    Attributes:
        seats: entrant index (into :attr:`Design.entrants`) at each position; position 0 acts first.
        deck_stream: tables with the same stream play the same deck orders (duplicate).
        hands: ``hands[p]`` is the canonical hand (module doc) the player at position ``p`` receives.
        scored: positions whose results the design reads (round-robin and field: all; hero: the hero's).
        group: the pair (round-robin), hero strategy (hero) or rotation (field) the table belongs to.
    """

    seats: tuple[int, ...]
    deck_stream: int
    hands: tuple[int, ...]
    scored: tuple[int, ...]
    group: int


@dataclass(frozen=True)
class Design:
    """The tables of one tournament and what they measure.

    ``entrants`` are the compared ``strategies`` followed by any background
    specs that are not among them; ``Table.seats`` index into it.
    """

    name: str
    strategies: tuple[str, ...]
    players: int
    entrants: tuple[str, ...]
    tables: tuple[Table, ...]
    measures: str
    chosen: tuple[tuple[int, int], ...] | None = None  # round-robin: the pairs played (None: every pair)

    def lineup(self, t: int) -> tuple[str, ...]:
        """Specs by position of table ``t``."""
        return tuple(self.entrants[e] for e in self.tables[t].seats)

    @property
    def n_streams(self) -> int:
        return 1 + max(t.deck_stream for t in self.tables)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Round-robin: the strategy pairs ``(i, j)``, ``i < j``, in group order."""
        if self.chosen is not None:
            return list(self.chosen)
        return list(combinations(range(len(self.strategies)), 2))


def _canonical(spec: str) -> tuple[str, tuple[tuple[str, object], ...]]:
    """A spec as (target, sorted arguments), so ``w?a=1,b=2`` and ``w?b=2,a=1.0`` are the same entrant."""
    try:
        target, kwargs = parse_spec(spec)
    except StrategySpecError as e:
        raise TournamentError(str(e)) from None
    return target, tuple(sorted((k, float(v) if isinstance(v, int) and not isinstance(v, bool) else v)
                                for k, v in kwargs.items()))


def _check_strategies(specs: Sequence[str], least: int) -> tuple[str, ...]:
    specs = tuple(s.strip() for s in specs)
    if len(specs) < least:
        raise TournamentError(f"a tournament needs at least {least} strateg{'y' if least == 1 else 'ies'}, "
                              f"got {len(specs)}")
    seen: dict[tuple[str, tuple[tuple[str, object], ...]], str] = {}
    for s in specs:
        key = _canonical(s)
        if key in seen:
            raise TournamentError(f"strategy {s!r} is given twice (as {seen[key]!r}); name each strategy once")
        seen[key] = s
    return specs


def _check_players(players: int) -> None:
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise TournamentError(f"players must be a whole number of at least 2, got {players!r}")


def _check_pairs(pairs: Sequence[Sequence[object]], specs: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """``pairs`` as entrant indices ``(i, j)``, ``i < j``, in the order given: each item two entrants, by index
    into ``specs`` or by spec; one line naming the culprit otherwise."""
    keys = {_canonical(s): e for e, s in enumerate(specs)}

    def index(x: object) -> int:
        if isinstance(x, int) and not isinstance(x, bool):
            if 0 <= x < len(specs):
                return x
            raise TournamentError(f"pair entrant {x} is not an index of the {len(specs)} strategies (0-{len(specs) - 1})")
        if isinstance(x, str) and _canonical(x) in keys:
            return keys[_canonical(x)]
        raise TournamentError(f"pair entrant {x!r} is neither an index nor one of the strategies")

    out: list[tuple[int, int]] = []
    for item in pairs:
        if isinstance(item, str) or not isinstance(item, Sequence) or len(item) != 2:
            raise TournamentError(f"a pair names two strategies, got {item!r}")
        i, j = index(item[0]), index(item[1])
        if i == j:
            raise TournamentError(f"pair {list(item)!r} names one strategy twice")
        pair = (min(i, j), max(i, j))
        if pair in out:
            raise TournamentError(f"pair {specs[pair[0]]!r} - {specs[pair[1]]!r} is given twice")
        out.append(pair)
    if not out:
        raise TournamentError("pairs is empty; leave it out for every pair")
    adj = np.zeros((len(specs), len(specs)), np.bool_)
    for i, j in out:
        adj[i, j] = adj[j, i] = True
    linked = reached(adj)  # ratings and paired steps compare strategies only through a chain of pairs
    if apart := [specs[e] for e in range(len(specs)) if e not in linked]:
        raise TournamentError(f"the pairs leave {', '.join(map(repr, apart))} unlinked to {specs[0]!r}; "
                              "every strategy must meet the field through some chain of pairs")
    return tuple(out)


def reached(adj: NDArray[np.bool_]) -> set[int]:
    """Nodes reached from node 0 along ``adj[i, j]`` edges (a design's pairs, a ratings' decided games)."""
    seen, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(adj[i]):
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return seen


def round_robin(specs: Sequence[str], players: int = 2, *, shared_decks: bool = True,
                swap_hands: bool = False, pairs: Sequence[Sequence[object]] | None = None) -> Design:
    """Every pair head to head in both seatings, both on one deck stream.

    Pairs are taken in :func:`itertools.combinations` order; pair ``g`` gives
    tables ``2g`` (``i`` first) and ``2g + 1`` (``j`` first).  With
    ``shared_decks`` every pair plays the same decks (stream 0), so the bootstrap
    over decks resamples all pairs together; otherwise pair ``g`` plays stream ``g``.

    ``swap_hands``: every deck four ways, both seatings with the deck's two hands
    as dealt and both with the hands swapped (canonical hands ``(1, 0)``), so each
    strategy plays each hand in each seat: pair ``g`` gives tables ``4g .. 4g + 3``.
    It halves the decks a budget of games buys; measured in czech 2p
    (README, Tournaments) it narrows per deck but not per game played, so the
    two-way design stays the default.

    ``pairs``: only these pairs (entrant indices or specs, :func:`_check_pairs`), pair ``g`` the ``g``-th given.
    """
    _check_players(players)
    if players != 2:
        raise TournamentError(f"round-robin is for 2 players (head to head), got {players}; "
                              "use the hero design for more players")
    specs = _check_strategies(specs, 2)
    chosen = None if pairs is None else _check_pairs(pairs, specs)
    tables = []
    for g, (i, j) in enumerate(chosen or combinations(range(len(specs)), 2)):
        stream = 0 if shared_decks else g
        for hands in ((0, 1), (1, 0)) if swap_hands else ((0, 1),):
            for seats in ((i, j), (j, i)):
                tables.append(Table(seats=seats, deck_stream=stream, hands=hands, scored=(0, 1), group=g))
    k = len(specs)
    how = "in both seatings with both hands of every deck" if swap_hands else "in both seatings"
    which = (f"all {k * (k - 1) // 2} pairs of {k} strategies" if chosen is None
             else f"{len(chosen)} chosen pairs of {k} strategies")
    return Design(name="round-robin", strategies=specs, players=2, entrants=specs, tables=tuple(tables),
                  measures=(f"head-to-head margins of {which}, each pair {how} on the same decks"
                            if k > 2 else f"the head-to-head margin of the two strategies, {how} on the same decks"),
                  chosen=chosen)


def hero(specs: Sequence[str], players: int, *, reference: str | None = None,
         background: Sequence[str] | None = None, shared_decks: bool = True) -> Design:
    """Each strategy in every position against ``players - 1`` copies of ``reference`` (or ``background``).

    ``background`` lists the other ``players - 1`` specs, filling the free
    positions in order.  Strategy ``h`` gives tables ``h * players + p`` with the
    hero at position ``p``; all on stream 0 (``shared_decks``) or stream ``h``.
    """
    _check_players(players)
    specs = _check_strategies(specs, 1)
    if (reference is None) == (background is None):
        raise TournamentError("hero needs exactly one of a reference strategy or a background field")
    if background is None:
        assert reference is not None
        back = (reference.strip(),) * (players - 1)
        what = f"{players - 1} {'copy' if players == 2 else 'copies'} of {reference.strip()}"
    else:
        back = tuple(s.strip() for s in background)
        if len(back) != players - 1:
            raise TournamentError(f"a background field for {players} players names {players - 1} "
                                  f"strateg{'y' if players == 2 else 'ies'}, got {len(back)}")
        what = "the field " + ", ".join(back)
    keys = {_canonical(s): e for e, s in enumerate(specs)}
    entrants = list(specs)
    back_ids = []
    for s in back:
        key = _canonical(s)
        if key not in keys:
            keys[key] = len(entrants)
            entrants.append(s)
        back_ids.append(keys[key])
    tables = []
    for h in range(len(specs)):
        for p in range(players):
            others = iter(back_ids)
            seats = tuple(h if q == p else next(others) for q in range(players))
            tables.append(Table(seats=seats, deck_stream=0 if shared_decks else h, hands=tuple(range(players)),
                                scored=(p,), group=h))
    return Design(name="hero", strategies=specs, players=players, entrants=tuple(entrants), tables=tuple(tables),
                  measures=(f"each strategy's win rate against {what}, in every position on the same decks "
                            "(seat advantage averaged out)"))


def field(specs: Sequence[str], players: int) -> Design:
    """The rotated line-ups of ``durak compare`` today: rotation ``j`` seats strategy ``(p + j) % k`` at ``p``."""
    _check_players(players)
    specs = _check_strategies(specs, 2)
    k = len(specs)
    tables = tuple(Table(seats=tuple((p + j) % k for p in range(players)), deck_stream=0,
                         hands=tuple(range(players)), scored=tuple(range(players)), group=j) for j in range(k))
    return Design(name="field", strategies=specs, players=players, entrants=specs, tables=tables,
                  measures=("each strategy's win rate against the mix of the others it met (every position "
                            "once per deck, opponents pooled): a field average, not a head-to-head result"))


def make_design(name: str, specs: Sequence[str], players: int, *, reference: str | None = None,
                background: Sequence[str] | None = None, shared_decks: bool = True,
                swap_hands: bool = False, pairs: Sequence[Sequence[object]] | None = None) -> Design:
    """The design called ``name`` (one of :data:`DESIGNS`); a one-line TournamentError otherwise."""
    if swap_hands and name != "round-robin":
        raise TournamentError(f"swapping the hands of every deck belongs to the round-robin design, not {name}")
    if pairs is not None and name != "round-robin":
        raise TournamentError(f"chosen pairs belong to the round-robin design, not {name}")
    builders: dict[str, Callable[[], Design]] = {
        "round-robin": lambda: round_robin(specs, players, shared_decks=shared_decks, swap_hands=swap_hands,
                                           pairs=pairs),
        "hero": lambda: hero(specs, players, reference=reference, background=background, shared_decks=shared_decks),
        "field": lambda: field(specs, players),
    }
    if name not in builders:
        raise TournamentError(f"unknown design {name!r}; choose one of {', '.join(DESIGNS)}")
    if name != "hero" and (reference is not None or background is not None):
        raise TournamentError(f"a reference or background field belongs to the hero design, not {name}")
    return builders[name]()


# ---------------------------------------------------------------- results by strategy
def head_to_head(design: Design, wins: Sequence[ArrayLike]) -> FloatArray:
    """Per-deck head-to-head scores of a round-robin: (D, k, k), ``[d, i, j]`` = i's win share against j.

    ``wins[t]`` is table ``t``'s (D, 2) win share by position on the decks of its
    stream (deals: 1/0; matches: the win share, ties share, CZ7).  A pair's score
    on deck ``d`` is the mean over its tables (:func:`pair_tables`); the diagonal is NaN.  Capped
    deals give neither player a win, so ``[d, i, j] + [d, j, i]`` may be below 1.
    """
    if design.name != "round-robin":
        raise TournamentError(f"head-to-head scores come from a round-robin, not {design.name}")
    if len(wins) != len(design.tables):
        raise TournamentError(f"{len(design.tables)} tables in the design, results for {len(wins)}")
    arrs = [np.asarray(w, dtype=np.float64) for w in wins]
    sizes = {a.shape for a in arrs}
    if len(sizes) != 1 or arrs[0].ndim != 2 or arrs[0].shape[1] != 2:
        raise TournamentError(f"every table needs (decks, 2) win shares of the same size, got {sorted(sizes)}")
    d, k = arrs[0].shape[0], len(design.strategies)
    out = np.full((d, k, k), np.nan)
    for g, (i, j) in enumerate(design.pairs):
        mine = pair_tables(design, g)
        out[:, i, j] = sum(arrs[t][:, design.tables[t].seats.index(i)] for t in mine) / len(mine)
        out[:, j, i] = sum(arrs[t][:, design.tables[t].seats.index(j)] for t in mine) / len(mine)
    return out


def pair_tables(design: Design, g: int) -> list[int]:
    """The tables of round-robin pair ``g`` (both seatings; with swapped hands, four)."""
    return [t for t, table in enumerate(design.tables) if table.group == g]


def hero_scores(design: Design, results: Sequence[ArrayLike]) -> FloatArray:
    """Per-deck score of each hero strategy: (D, k), the mean over its ``players`` positions.

    ``results[t]`` is table ``t``'s (D, players) outcome by position (win share,
    loss share or points); only the hero's position is read.
    """
    if design.name != "hero":
        raise TournamentError(f"hero scores come from a hero design, not {design.name}")
    if len(results) != len(design.tables):
        raise TournamentError(f"{len(design.tables)} tables in the design, results for {len(results)}")
    k, n = len(design.strategies), design.players
    arrs = [np.asarray(r, dtype=np.float64) for r in results]
    out = np.zeros((arrs[0].shape[0], k))
    for t, (table, a) in enumerate(zip(design.tables, arrs)):
        if a.shape != arrs[0].shape or a.ndim != 2 or a.shape[1] != n:
            raise TournamentError(f"table {t}: expected (decks, {n}) outcomes like table 0, got {a.shape}")
        out[:, table.group] += a[:, table.scored[0]] / n
    return out
