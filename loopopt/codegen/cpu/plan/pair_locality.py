"""Strided innermost walks of a candidate pair, not counting the pair's private intermediates.

The cpu guard of the interchange-to-align rescue (`loop_optimization/fusion.py`) refuses a permutation
that adds accesses whose innermost loop walks a non-last dimension (`codegen/cpu/plan/locality.py`). An
intermediate that only the two loops touch is different: once they fuse it is written and read
in the same fused iteration (a legal fusion's distance is 0 or more), and contraction usually
replaces it by the stored values. Its walks in the permuted (then fused) nest are not memory traffic, so they are
left out of the count after the permutation (before it, unfused, they are traffic): a consumer
that reads an intermediate in the producer's order may then be permuted even though its own
walk of the intermediate becomes strided (MLIR's loop-fusion.mlir `@should_fuse_loop_nest`).
"""
from __future__ import annotations

from .... import mlir
from ....analysis.affine import Scope
from ....analysis.effects import READ_OPS, WRITE_OPS
from ....analysis.loops import nested_in
from ....analysis.memory import buffer_key_of, escaping_use, is_placed
from ....mlir import ir


def pair_private_buffers(l1: ir.Operation, l2: ir.Operation) -> frozenset:
    """Buffer keys of the placed buffers that do not escape and whose every use other than their
    dealloc sits inside `l1` or `l2`, the first writing them and the second reading them."""
    keys = set()
    for op in mlir.walk(l1):
        if op.name not in WRITE_OPS:
            continue
        buf = op.operands[WRITE_OPS[op.name]]
        if not is_placed(buf) or escaping_use(buf, {**READ_OPS, **WRITE_OPS}) is not None:
            continue
        users = [mlir.operation(u.owner) for u in buf.uses]
        users = [u for u in users if u.name != "memref.dealloc"]
        if all(nested_in(u, l1) or nested_in(u, l2) for u in users) and \
                any(u.name in READ_OPS and nested_in(u, l2) for u in users):
            keys.add(buffer_key_of(buf))
    return frozenset(keys)


def strided_walks(root: ir.Operation, skip: frozenset = frozenset(), scope: Scope | None = None) -> int:
    """locality.strided_innermost_accesses of `root`, leaving out the buffers whose keys are in
    `skip` (the pair's private intermediates, `pair_private_buffers`)."""
    from .locality import strided_innermost_accesses

    return strided_innermost_accesses(root, scope, skip)
