"""The cpu target's answers to what the seed's pass asks (loop_optimization/hooks.py).

Where the cpu departs from the seed (docs/cost_model.md): no partition dimension; a pair also
earns the bytes of an external buffer it reads twice or reads back (plan/sibling_reuse.py); two
innermost loops of which one is a reduction stay apart unless a shared input pays for it (the
vectorization guard); a longer loop whose extra iterations are read later is split; a consumer
that reads an intermediate in another order recomputes it; an interchange that aligns a pair may
not add strided innermost walks (plan/pair_locality.py).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.refusal import Code, Refusal
from ...analysis.vectorization import carried_dependence, is_innermost
from ...loop_optimization import rescues
from ...loop_optimization.hooks import TargetHooks
from ...mlir import ir
from .plan.pair_locality import pair_private_buffers, split_reductions, strided_walks
from .plan.sibling_reuse import (accumulates_only, reuse_reasons, reuses_produced_elements, reuses_read_elements,
                                 streams_shared_input)


class CpuHooks(TargetHooks):
    name = "cpu"
    requires_partition_dim = False
    rewards_shared_reads = True
    splits_read_tails = True
    # a longer loop that writes nothing is shrunk last: an interchange may align it first
    rescues = {
        Code.UNMATCHED_TRIP_COUNT: (rescues.dead_written_iterations, rescues.interchange_to_align,
                                    rescues.recompute_at_depth, rescues.dead_read_only_iterations),
        Code.NEGATIVE_DISTANCE: (rescues.distribute, rescues.interchange_to_align, rescues.recompute),
        Code.BLOCKED_BY_OPS: (rescues.distribute,),
    }

    def vectorization_refusal(self, l1: ir.Operation, l2: ir.Operation, facts) -> Refusal | None:
        """Two innermost loops where exactly one carries a dependence (a reduction) must not
        fuse, since the parallel one's work would run sequentially in the fused loop and lose
        vectorization. Fusing two sequential loops, or two parallel ones, is left to the battery;
        outer loops are never refused here (their inner loops stay separate)."""
        if not (is_innermost(l1, facts) and is_innermost(l2, facts)):
            return None
        c1, c2 = carried_dependence(l1, facts), carried_dependence(l2, facts)
        if (c1 is None) == (c2 is None):
            return None
        par, seq, why = (l1, l2, c2) if c1 is None else (l2, l1, c1)
        if accumulates_only(seq, facts) and streams_shared_input(l1, l2, facts):
            return None  # the input streamed once pays for the scalar reduction (sibling_reuse)
        return Refusal(Code.LOSES_VECTORIZATION, f"the loop at {mlir.location_of(par)} is parallel; the loop at "
                       f"{mlir.location_of(seq)} is sequential ({why.reason})", ops=(l1, l2))

    def reads_same_elements(self, l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
        return reuses_read_elements(l1, l2, root, facts)

    def reads_produced_elements(self, l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
        return reuses_produced_elements(l1, l2, root, facts)

    def fused_detail(self, l1: ir.Operation, l2: ir.Operation, facts) -> list[str]:
        return reuse_reasons(l1, l2, facts)

    def interchange_locality(self, first: ir.Operation, second: ir.Operation):
        """The permuted nest may not have more strided innermost walks than the nest had, its
        walks of the pair's private intermediates (which the fusion turns into values of one
        fused iteration) left out; unfused, the intermediate's walks are traffic too. Nor may it
        split more sums' reduction loops around their output loops (`split_reductions`: the
        sums would then go through memory once per step of the reduction loop put outside)."""
        private = pair_private_buffers(first, second)

        def check(nest: ir.Operation):
            before, outside = strided_walks(nest), split_reductions(nest)
            return lambda root: strided_walks(root, private) <= before and split_reductions(root) <= outside

        return check
