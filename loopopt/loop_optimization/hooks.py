"""What the seed's pass asks of the target, as LLVM's passes ask TargetTransformInfo.

Fusion (fusion.py, fusion_legality.py, profit.py, rescues.py) never tests which target it runs
on: where the targets differ it asks a TargetHooks. This class answers with the seed's rules,
which the Neuron targets (trn1, inf2, trn2) follow; `loopopt/codegen/cpu/hooks.py` answers for
the cpu. The driver picks one per run (`loopopt/pipeline.py`, `hooks_for`).
"""
from __future__ import annotations

from typing import Callable

from ..analysis.refusal import Code, Refusal
from ..mlir import ir
from . import rescues

# A check of an interchanged nest, made from the nest before its interchange: True keeps it.
LocalityCheck = Callable[[ir.Operation], Callable[[ir.Operation], bool]]


class TargetHooks:
    """The seed's answers (the Neuron targets)."""

    name = "neuron"
    # both loops of a pair must index the partition dimension (dimension 0) with their IV
    requires_partition_dim = True
    # a pair earns only the bytes of the placed tensors one loop writes and the other reads
    rewards_shared_reads = False
    # unmatched trip counts: a longer loop whose extra iterations are read later is refused (the
    # seed), not split into a head that fuses and a tail (rescues.PairRescues._split_tail)
    splits_read_tails = False
    # a pair the SBSize bound refuses stays apart (the seed), rather than measured by one
    # iteration of the fused loop and tried at the next inner common loop (inner_level.py)
    fuses_inner_level = False
    # the rescues a refused pair may try, by refusal code, in order (seed 001: distribution,
    # then tiling, then interchange; dead iterations first of all)
    rescues: dict[Code, tuple[rescues.Rescue, ...]] = {
        Code.UNMATCHED_TRIP_COUNT: (rescues.dead_iterations, rescues.tile_and_interchange,
                                    rescues.interchange_to_align),
        Code.NEGATIVE_DISTANCE: (rescues.distribute, rescues.interchange_to_align),
        Code.BLOCKED_BY_OPS: (rescues.distribute,),
    }

    def pair_refusal(self, l1: ir.Operation, l2: ir.Operation, facts, options) -> Refusal | None:
        """A pair (l1 runs first) the target's cost model refuses whatever its shape, before any
        rescue would reshape it (None: the seed has no such rule)."""
        return None

    def vectorization_refusal(self, l1: ir.Operation, l2: ir.Operation, facts, options=None) -> Refusal | None:
        """A pair that would cost the target its vectors under `options` (the numeric switches)
        (None: the seed has no such rule)."""
        return None

    def split_refusal(self, loop: ir.Operation, keep: int, scope) -> str | None:
        """Why the target keeps `loop` whole rather than split after `keep` iterations for a
        head that fuses (rescues.PairRescues._split_tail); None: the split may be tried."""
        return None

    def reads_same_elements(self, l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
        """l2 reads, per fused iteration, elements of external buffer `root` that l1 read."""
        return False

    def reads_produced_elements(self, l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
        """l2 reads, per fused iteration, elements of external buffer `root` that l1 just wrote."""
        return False

    def fused_detail(self, l1: ir.Operation, l2: ir.Operation, facts) -> list[str]:
        """Why a fused pair pays beyond the seed's profit, for its remark."""
        return []

    def interchange_locality(self, first: ir.Operation, second: ir.Operation) -> LocalityCheck | None:
        """For the interchange-to-align rescue of the pair (first runs first): a check that an
        interchanged nest keeps the target's memory walks (None: every legal interchange)."""
        return None
