"""Why a transform was refused: one type for every legality check of the pass.

A check returns None when the step is legal, else a `Refusal`. Its `code` is what policies
switch on (which restructuring may rescue a refused fusion pair); its `message` is the remark
text, the seed's verbatim string where the seed has one; `detail` is our explanation for
people; `ops` are the ops involved (loops, the op that blocks). `remarks.RemarkLog.refused`
is the one place that turns a refusal into a remark.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Code(enum.Enum):
    """Every reason a step of the pass can be refused, with its remark text."""

    # fusion (seed 000's stop reasons first, verbatim)
    UNMATCHED_TRIP_COUNT = "[STOP FUSION] unmatched trip count"
    NO_PARTITION_DIM = "[STOP FUSION] loop to be fused doesn't access partition dim"
    NO_BENEFIT = "[STOP FUSION] no fusion benefit"
    NEGATIVE_DISTANCE = "[STOP FUSION] negative distance dep in def-use"
    BLOCKED_BY_OPS = "[STOP FUSION] ops between the loops can't be moved"
    OVER_BUDGET = "[STOP FUSION] fused working set exceeds SBSize"
    CARRIES_VALUES = "[STOP FUSION] loop yields values (iter_args)"
    UNMODELLED = "[STOP FUSION] unmodelled effects"
    LOSES_VECTORIZATION = "[STOP FUSION] a parallel inner loop would join a loop-carried reduction"
    LOSES_REGISTER_TILING = "[STOP FUSION] a product's output loop would carry a reduction its tile's lanes may not share"
    CHECK_ORDER = "[STOP FUSION] a run-time check would change its order with an op it must keep"
    COPY_INTO_PRODUCT = "[STOP FUSION] a copy feeds a matrix product's operand: fused, the product would run in strips of its reduction"
    # the recompute rescue (a remark only for what it cannot remap; its other preconditions are the pair's refusal)
    RECOMPUTE_UNMAPPED = "[RECOMPUTE] not recomputed: a value of the producer's loops cannot be had in the consumer"
    # distribution
    DISTRIBUTION_ONE_GROUP = "[STOP DISTRIBUTION] no independent statement groups"
    DISTRIBUTION_ITER_ARGS = "[STOP DISTRIBUTION] loop carries values through iter_args"
    DISTRIBUTION_NOT_PERFECT = "[STOP DISTRIBUTION] not a perfect loop nest"
    # interchange
    INTERCHANGE_NOT_PERFECT = "[STOP INTERCHANGE] not a perfect loop nest"
    INTERCHANGE_BAD_PERMUTATION = "[STOP INTERCHANGE] not a permutation of the nest's levels"
    INTERCHANGE_ITER_ARGS = "[STOP INTERCHANGE] loop carries values through iter_args"
    INTERCHANGE_BOUNDS = "[STOP INTERCHANGE] loop bounds use an induction variable that would move inside"
    INTERCHANGE_DEPENDENCE = "[STOP INTERCHANGE] would reverse a dependence"
    INTERCHANGE_NOT_ON_PARTITION_DIM = "invalid b/c not on partition dim"  # seed 001, verbatim
    # tiling
    TILING_NOTHING_TO_TILE = "[STOP TILING] no loop has more iterations than the tile size"
    TILING_TILE_ORDER = "[STOP TILING] tile loops stay inside point loops"
    # LICM (the remark reads "[LICM] not hoisted: <detail>")
    LICM_OPERAND_IN_LOOP = "[LICM] not hoisted: an operand is defined in the loop"
    LICM_WRITTEN_IN_LOOP = "[LICM] not hoisted: what it reads is written in the loop"
    LICM_ZERO_TRIP = "[LICM] not hoisted: the loop may run zero times"
    LICM_MAY_TRAP = "[LICM] not hoisted: it may divide by zero and the loop may run zero times"
    LICM_SIDE_EFFECTS = "[LICM] not hoisted: it writes, allocates, calls or has unmodelled effects"
    LICM_REGION = "[LICM] not hoisted: a region op that cannot move as a whole"
    LICM_TERMINATOR = "[LICM] not hoisted: it ends the loop body"
    LICM_CHECK = "[LICM] not hoisted: a run-time check and an op it must keep its order with"
    # contraction (the remark reads "[CONTRACTION] kept <buffer> at <loc>: <detail>")
    CONTRACTION_ESCAPES = "[CONTRACTION] kept: the buffer escapes"
    CONTRACTION_CONTROL_FLOW = "[CONTRACTION] kept: control flow the analysis does not model"
    CONTRACTION_NOT_FORWARDED = "[CONTRACTION] kept: a load does not read what the latest store wrote"
    CONTRACTION_NOT_PRIVATE = "[CONTRACTION] kept: no loop owns a slice of the buffer"

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class Refusal:
    """A refused step: its code, the remark message, a detail for people, the ops involved."""

    code: Code
    detail: str = ""
    ops: tuple = ()
    message: str = ""

    def __post_init__(self) -> None:
        if not self.message:
            object.__setattr__(self, "message", self.code.message)

    @property
    def loops(self) -> tuple:
        return self.ops

    def text(self) -> str:
        return f"{self.message}: {self.detail}" if self.detail else self.message

    __str__ = text


def refuse(code: Code, detail: str = "", *ops) -> Refusal:
    return Refusal(code, detail, tuple(ops))
