"""Card-mask primitives for the compiled kernel (bit ``c`` = card id ``c``, analyzer.core.cards)."""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import config
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from analyzer.core.bits import RANK_MASK, SUIT_MASK
from analyzer.kernel.jit import inner

SUIT_MASKS = SUIT_MASK.copy()  # (4,) uint64: the cards of each suit S C H D
RANK_MASKS = RANK_MASK.copy()  # (15,) uint64: the cards of each rank value
ONE = np.uint64(1)
ZERO = np.uint64(0)


@inner
def bit(card: int) -> np.uint64:
    return ONE << np.uint64(card)


@inner
def popcount(x: np.uint64) -> int:
    """Number of cards in a mask (SWAR bit count)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))  # type: ignore[return-value]


@inner
def lowest(x: np.uint64) -> int:
    """Id of the lowest card of a non-empty mask."""
    return np.int64(trailing_zeros(x))  # type: ignore[call-arg,return-value]  # a numba intrinsic


@inner
def ix(i: int) -> np.uint64:
    """An array index known to be >= 0, as an unsigned word: numba then adds no negative-index wrap (a
    compare and a select on every access of the play loop's arrays)."""
    return np.uint64(i)


@inner
def wrap(i: int, size: int) -> int:
    """``i mod size`` for 0 <= i < 2 size, without a division (the hot path's ring and seat steps)."""
    return i - size if i >= size else i


@inner
def suit_mask(suit: int) -> np.uint64:
    """SUIT_MASKS[suit] (0 <= suit < 4) without a table look-up: every fourth bit from ``suit``."""
    return np.uint64(0x1111111111111) << np.uint64(suit)


@inner
def card_rank_mask(card: int) -> np.uint64:
    """RANK_MASKS[rank_of(card)] without a table look-up: the four bits of the card's rank."""
    return np.uint64(0xF) << np.uint64(card & ~3)


@inner
def rank_of(card: int) -> int:
    return card // 4 + 2


@inner
def suit_of(card: int) -> int:
    return card % 4


def _has_pdep() -> bool:
    """The kernels are compiled for a CPU with BMI2's ``pdep`` (the host's own features, not a chosen CPU)."""
    if getattr(config, "CPU_NAME", None) or getattr(config, "CPU_FEATURES", None):
        return False
    try:
        return bool(llvm.get_host_cpu_features().get("bmi2", False))
    except RuntimeError:  # features unknown on this host
        return False


PDEP = _has_pdep()


@intrinsic
def pdep(typingctx, x, mask):  # numba's intrinsic protocol
    """BMI2 parallel bit deposit: the low bits of ``x`` go, in order, to the set bits of ``mask``."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
        return builder.call(builder.module.declare_intrinsic("llvm.x86.bmi.pdep.64", fnty=fnty), args)
    return types.uint64(types.uint64, types.uint64), codegen


if PDEP:
    @inner
    def nth(x: np.uint64, k: int) -> int:
        """Id of the k-th lowest card (0-based) of a mask holding more than k cards (one pdep, no loop)."""
        return lowest(pdep(ONE << np.uint64(k), x))  # type: ignore[call-arg]  # typingctx is numba's
else:
    @inner
    def nth(x: np.uint64, k: int) -> int:
        """Id of the k-th lowest card (0-based) of a mask holding more than k cards."""
        for _ in range(k):
            x &= x - ONE
        return lowest(x)
