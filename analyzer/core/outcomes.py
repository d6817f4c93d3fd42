"""What a simulation yields: per-deal and per-match outcome arrays.

Per deal (:class:`DealResults`) and per match (:class:`MatchResults`) the
simulator returns arrays with a leading deal axis, columns in *position* order
(position 0 = the first player to act after the deal, G2).  A chunk is stored
on disk only as sums (:func:`summarize`), so ten million deals cost kilobytes,
and chunks add up by plain summation in any order: that is what makes results
independent of ``--jobs`` and of the order chunks finish in.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import NDArray

END_OUT, END_BLOCKED, END_CAPPED = 0, 1, 2
END_NAMES = ("out", "blocked", "capped")

#: Histogram bins: turns per deal 0..TURN_BINS-1 (the last bin holds the rest),
#: penalty points per hand 0..POINT_BINS-1 (likewise).
TURN_BINS = 400
POINT_BINS = 200
#: ``wilds_dealt`` of a simulator that does not record it (every entry): the deal's hands are unknown.
NOT_RECORDED = -1


def _not_recorded() -> NDArray[np.int8]:
    return np.zeros((0, 0), np.int8)


def _fill_not_recorded(res: DealResults | MatchResults, like: NDArray[np.generic]) -> None:
    """A results object built without ``wilds_dealt`` or ``cards_left`` gets it as NOT_RECORDED everywhere (N, P)."""
    for name in ("wilds_dealt", "cards_left"):
        got = getattr(res, name)
        if got.size == 0 and got.shape != like.shape:
            setattr(res, name, np.full(like.shape, NOT_RECORDED, np.int8))


@dataclass
class DealResults:
    """Per-deal outcome arrays (N deals, P positions)."""

    points: NDArray[np.int16]  # (N, P) points of each hand at the end (after doubling)
    went_out: NDArray[np.int8]  # (N,) position that shed its last card, -1 if none
    winner: NDArray[np.int8]  # (N,) deal winner (went out, or fewest points if blocked); -1 capped
    loser: NDArray[np.int8]  # (N,) deal loser (PR7 in prague, else most points); -1 capped
    loser_by_wild: NDArray[np.bool_]  # (N,) the wild rule, not the points, picked the loser
    wild_held: NDArray[np.bool_]  # (N, P) held a wild at the end
    end: NDArray[np.int8]  # (N,) END_OUT / END_BLOCKED / END_CAPPED
    turns: NDArray[np.int32]  # (N,) turns played (G10a)
    last_card: NDArray[np.int8]  # (N,) card that ended the deal, -1 if none
    turnovers: NDArray[np.int16]  # (N,) times the pile was turned into the talon (G8)
    #: (N, P) wilds (G4) in each position's hand as dealt, before the first turn: the prague
    #: dealer's lead card (PR2) is already on the pile, not in the hand; NOT_RECORDED (-1) where the
    #: simulator does not record it (then the reports say so instead of counting the deals)
    wilds_dealt: NDArray[np.int8] = field(default_factory=_not_recorded)
    #: (N, P) cards in each position's hand at the end (0 for the one who went out): the held-a-wild
    #: comparison is made only among hands left with the same number of cards;
    #: NOT_RECORDED (-1) where the simulator does not record it
    cards_left: NDArray[np.int8] = field(default_factory=_not_recorded)

    def __post_init__(self) -> None:
        _fill_not_recorded(self, self.points)

    def __len__(self) -> int:
        return int(self.went_out.shape[0])

    @staticmethod
    def concat(parts: list[DealResults]) -> DealResults:
        return DealResults(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                              for f in fields(DealResults)})

    def row(self, i: int) -> dict[str, object]:
        """Deal ``i``'s outcome of play, every field but ``wilds_dealt`` (how the hands were dealt,
        compared with the engine by its own test: tests/sim/test_simulator_equals_engine.py)."""
        return {f.name: getattr(self, f.name)[i].tolist() for f in fields(DealResults) if f.name != "wilds_dealt"}


@dataclass
class MatchResults:
    """Per-match outcome arrays (N matches, P positions; position 0 leads deal 1)."""

    totals: NDArray[np.int32]  # (N, P) points at the end of the match
    win_share: NDArray[np.float32]  # (N, P) share of the win (ties share, CZ7)
    loss_share: NDArray[np.float32]  # (N, P) share of the loss
    loser_by_wild: NDArray[np.bool_]  # (N,) the wild rule (CZ7/PR7) picked the loser
    wild_held: NDArray[np.bool_]  # (N, P) held a wild at the end of the last deal
    deals: NDArray[np.int32]  # (N,) deals played
    capped_deals: NDArray[np.int32]  # (N,) deals of the match stopped by the turn cap
    #: (N, P) wilds dealt to each player in the match's last deal (the one CZ7 judges), as DealResults'
    wilds_dealt: NDArray[np.int8] = field(default_factory=_not_recorded)
    #: (N, P) cards in each player's hand at the end of the match's last deal, as DealResults'
    cards_left: NDArray[np.int8] = field(default_factory=_not_recorded)

    def __post_init__(self) -> None:
        _fill_not_recorded(self, self.totals)

    def __len__(self) -> int:
        return int(self.deals.shape[0])

    @staticmethod
    def concat(parts: list[MatchResults]) -> MatchResults:
        return MatchResults(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                               for f in fields(MatchResults)})
