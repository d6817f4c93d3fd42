"""A RuleSet as one small int64 array (rules as data for the compiled kernel).

One compiled kernel serves every variant and option: the kernel reads these
slots instead of branching on a variant name.  ``forget_rate`` (CZ8) is the
one real-valued option; it travels as a 53-bit threshold on the uniform draws,
so ``u < forget_rate`` is decided exactly as in the engine (core.streams).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import KING, QUEEN
from analyzer.core.rules import RuleSet

# scalar slots
PLAYERS, DECK, HAND, WILD, WILD_ANY, STARTER_KIND, STARTER_EFFECTS, SEVENS, ACCUMULATE, \
    QNK, JACK_DOUBLES, LAST_CALL, FORGET, UNTIL_PLAY, VOLUNTARY, SHUFFLE, SERVE_LAST, TURN_CAP, \
    LONE_WILD, WILD_RULE, TARGET, IS_SVINYA, EFFECTS, LOG = range(24)
#: per-rank tables (indexed by rank value 0..14) start at these slots
EFF_DRAW, EFF_SKIP, POINTS = 32, 48, 64
SIZE = 80

STARTER_TURNED, STARTER_LEAD, STARTER_NONE = 0, 1, 2
WILD_RULE_DEAL, WILD_RULE_MATCH, WILD_RULE_OFF = 0, 1, 2
_STARTER = {"turned": STARTER_TURNED, "dealer_lead": STARTER_LEAD, "none": STARTER_NONE}
_WILD_RULE = {"deal": WILD_RULE_DEAL, "match": WILD_RULE_MATCH, "off": WILD_RULE_OFF}

#: forget_rate p becomes the threshold p * 2**53 on 53-bit uniform integers
FORGET_SCALE = 1 << 53


def rule_params(r: RuleSet) -> NDArray[np.int64]:
    """The (SIZE,) parameter array of ``r``, read-only; ``-1`` marks "none" (no target, no lone-wild rule).

    Read-only because a kernel compiled for one rule set holds its rules as a
    constant array, which numba types read-only: every kernel then sees one
    type of ``p`` and its phase functions compile once (analyzer.kernel.jit.Specialised).
    """
    p = np.zeros(SIZE, np.int64)
    p[PLAYERS], p[DECK], p[HAND], p[WILD] = r.players, r.deck_size, r.hand_size, r.wild_rank
    p[WILD_ANY] = r.wild_on_anything
    p[STARTER_KIND] = _STARTER[r.starter_kind]
    p[STARTER_EFFECTS] = r.starter_effects
    p[SEVENS] = r.sevens
    p[ACCUMULATE] = r.seven_chain == "accumulate"
    p[QNK] = r.queen_needs_king and r.wild_rank != QUEEN  # CZ8: strict, and never on a wild Queen
    p[JACK_DOUBLES] = r.jack_finish_doubles
    p[LAST_CALL] = r.last_card_call
    # u < rate with u = k / 2**53  <=>  k < ceil(rate * 2**53) (the product is exact): the engine's test
    p[FORGET] = math.ceil(r.forget_rate * FORGET_SCALE)
    p[UNTIL_PLAY] = r.no_card == "draw_until_play"
    p[VOLUNTARY] = r.voluntary_draw
    p[SHUFFLE] = r.reshuffle == "shuffle"
    p[SERVE_LAST] = r.serve_last_effect
    p[TURN_CAP] = r.turn_cap
    p[LONE_WILD] = -1 if r.lone_wild_points is None else r.lone_wild_points
    p[WILD_RULE] = _WILD_RULE[r.wild_rule]
    p[TARGET] = -1 if r.target is None else r.target
    p[IS_SVINYA] = r.variant == "svinya"
    for rank in range(15):
        e = r.effects[rank]
        p[EFF_DRAW + rank], p[EFF_SKIP + rank] = e.draw, e.skip
        p[POINTS + rank] = r.points[rank]
    # some rank draws or skips (G5): else a played card leaves nothing pending, without a table look-up
    p[EFFECTS] = bool(p[EFF_DRAW:EFF_DRAW + 15].any() or p[EFF_SKIP:EFF_SKIP + 15].any())
    p[LOG] = 0  # not a rule: the pause path sets it where a strategy reads the public history (logging_params)
    assert KING == 13  # the kernel finds a Queen's King as card + 4 (queen_needs_king)
    p.setflags(write=False)
    return p


def logging_params(p: NDArray[np.int64]) -> NDArray[np.int64]:
    """``p`` with the kernel's public-event log on (analyzer.kernel.events): the deals write every public event
    into their ``m`` rows, for a line-up that reads the public history on the pause path; read-only."""
    q = np.array(p, np.int64)
    q[LOG] = 1
    q.setflags(write=False)
    return q
