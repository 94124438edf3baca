"""Fusion of sibling loops that carry values in `iter_args` (issue 25).

The seed refuses such a pair ("[STOP FUSION] loop yields values (iter_args)"). Fusing it is
legal under the battery's other checks plus one rule about values: each loop's carried values
stay with that loop's iterations. The fused loop carries l1's iter_args, then l2's; the body
runs l1's statements then l2's, each yielding into its own slots, so every chain of carried
values sees the same sequence of updates as before. What the carried values cannot tell the
memory analysis is checked here (`carried_values_refusal`): a loop's results exist only after
its last iteration, so the second loop (its bounds, its inits, its body) and the ops it needs
from between the loops must not use the first loop's results. Memory dependences between the
two bodies are the battery's (isl, exact).

`plan_carried_fusion` is the plan (legal or the refusal); `fuse_carrying` rebuilds the pair as
one loop and remaps both loops' results; the driver (loop_optimization/fusion.py) applies it through
the rewriter when the refusal code is CARRIES_VALUES.
"""
from __future__ import annotations

from .. import mlir
from ..analysis.loops import body_block, has_iter_args
from ..analysis.refusal import Code, Refusal
from ..mlir import ir

FUSED_CARRYING = "the fused loop carries the iter_args of both loops"


def _uses_any(op: ir.Operation, values: set) -> ir.Operation | None:
    """The first op in `op` (itself included) with an operand among `values`."""
    for o in [op, *mlir.walk_list(op)]:
        if any(v in values for v in o.operands):
            return o
    return None


def carried_values_refusal(l1: ir.Operation, l2: ir.Operation, hoist: list[ir.Operation]) -> Refusal | None:
    """None when l1's results are not needed before l1 has run to the end in the fused loop:
    neither l2 (operands or body) nor an op hoisted above l1 for it (`hoist`) uses them."""
    results = set(l1.results)
    if not results:
        return None
    for op in [l2, *hoist]:
        user = _uses_any(op, results)
        if user is not None:
            return Refusal(Code.CARRIES_VALUES, f"{user.name} at {mlir.location_of(user)} uses a result of the "
                           f"loop at {mlir.location_of(l1)}, known only after its last iteration", ops=(l1, l2))
    return None


def plan_carried_fusion(l1: ir.Operation, l2: ir.Operation, legality) -> tuple[list, Refusal | None]:
    """(ops to hoist, None) when the pair, one of them carrying iter_args, may fuse: the battery
    `legality(l1, l2)` (run without its iter_args refusal) and `carried_values_refusal` (on l2
    first, a legality question before the battery's cost checks; then on the ops to hoist)."""
    r = carried_values_refusal(l1, l2, [])
    if r is not None:
        return [], r
    hoist, r = legality(l1, l2)
    if r is None:
        r = carried_values_refusal(l1, l2, hoist)
    return (hoist, None) if r is None else ([], r)


def fuse_carrying(l1: ir.Operation, l2: ir.Operation, shifted_iv) -> ir.Operation:
    """One loop at l1's place with l1's bounds and step, carrying l1's iter_args then l2's: the
    body is l1's then l2's (on l1's IV, `shifted_iv(new, l2)` when the lower bounds differ), the
    yield concatenates both yields, and every use of a result of l1 or l2 reads the new loop's
    result in the same slot. l1 and l2 are erased; returns the new loop."""
    b1, b2 = body_block(l1), body_block(l2)
    y1, y2 = mlir.block_ops(b1)[-1], mlir.block_ops(b2)[-1]
    n1 = len(l1.results)
    inits1 = list(l1.operands)[len(l1.operands) - n1:] if n1 else []
    n2 = len(l2.results)
    inits2 = list(l2.operands)[len(l2.operands) - n2:] if n2 else []
    with l1.context, l1.location:
        new = mlir.for_with_bounds_of(l1, mlir.int_attr(l1, "step"), inits1 + inits2, ir.InsertionPoint(l1))
        block = body_block(new)
        args = list(block.arguments)
        anchor = ir.Operation.create("affine.yield", operands=[], ip=ir.InsertionPoint(block))
        b1.arguments[0].replace_all_uses_with(args[0])
        for k in range(n1):
            b1.arguments[1 + k].replace_all_uses_with(args[1 + k])
        for op in mlir.block_ops(b1)[:-1]:
            op.move_before(anchor)
        iv2 = shifted_iv(new, l2)
        b2.arguments[0].replace_all_uses_with(iv2)
        for k in range(n2):
            b2.arguments[1 + k].replace_all_uses_with(args[1 + n1 + k])
        for op in mlir.block_ops(b2)[:-1]:
            op.move_before(anchor)
        ir.Operation.create("affine.yield", operands=[*y1.operands, *y2.operands], ip=ir.InsertionPoint(anchor))
        anchor.erase()
    for k in range(n1):
        l1.results[k].replace_all_uses_with(new.results[k])
    for k in range(n2):
        l2.results[k].replace_all_uses_with(new.results[n1 + k])
    l1.erase()
    l2.erase()
    return new


def carries_values(l1: ir.Operation, l2: ir.Operation) -> bool:
    return has_iter_args(l1) or has_iter_args(l2)
