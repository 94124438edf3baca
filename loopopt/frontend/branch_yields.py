"""loopopt-fold-branch-buffers: an scf.if whose branches both yield one buffer returns nothing.

A transposed convolution's phases (zero_phases.py) are an `scf.if`: the phases' write-back in one
branch, the original convolution in the other, both into the convolution's init in place, the
branch's result that tensor. After one-shot-bufferize both branches yield the same buffer, defined
above the `scf.if` (the init's allocation, or a view of it: a grouped convolution's expand_shape).
A memref result of a region is a value the deallocation passes cannot trace to its allocation:
ownership-based-buffer-deallocation then keeps a run-time deallocation of it (a helper function
comparing pointers), `memref.extract_strided_metadata` of the yielded view (which the lowering cannot
re-index: the grouped ConvTranspose2d did not lower at all), and `loopopt-results-into-out-params`
keeps the copy of the result into the out-parameter ("its value is not a buffer the function
allocates").

The rule: a result of an `scf.if` whose then and else `scf.yield` give the same value (which
dominates both branches, so it is defined above the `scf.if`) is that value. Exact: whichever branch runs, the result is that value. Its
uses read the value, the result is dropped (the `scf.if` rebuilt with the results left, its
regions moved as they are). `canonicalize` does the same, but run here it also changes
unrelated programs (it folds the reshapes of GroupNorm's gathers differently); this step touches
`scf.if` only.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir
from .registry import register

STEP = "loopopt-fold-branch-buffers"


@dataclass(frozen=True)
class BranchFold:
    """One scf.if and, per result, the value both branches yield (None: they differ)."""

    op: ir.Operation
    same: tuple  # ir.Value | None per result


def _yield_of(region: ir.Region) -> ir.Operation | None:
    blocks = list(region.blocks)
    if len(blocks) != 1:
        return None
    ops = mlir.block_ops(blocks[0])
    return ops[-1] if ops and ops[-1].name == "scf.yield" else None


def plan_branch_fold(op: ir.Operation) -> BranchFold | None:
    """The fold of an scf.if with results, or None when no result is the same value in both."""
    if op.name != "scf.if" or not op.results or len(op.regions) != 2:
        return None
    then_y, else_y = _yield_of(op.regions[0]), _yield_of(op.regions[1])
    if then_y is None or else_y is None:
        return None
    # one value yielded by both branches dominates both: it is defined above the scf.if
    same = tuple(a if a == b else None for a, b in zip(then_y.operands, else_y.operands))
    if all(v is None for v in same):
        return None
    return BranchFold(op, same)


def apply_branch_fold(plan: BranchFold) -> None:
    """Uses of each folded result read its value; the scf.if is rebuilt with the other results."""
    op = plan.op
    keep = [k for k, v in enumerate(plan.same) if v is None]
    for k, v in enumerate(plan.same):
        if v is not None:
            op.results[k].replace_all_uses_with(v)
    new = ir.Operation.create("scf.if", results=[op.results[k].type for k in keep], operands=list(op.operands),
                              regions=2, loc=op.location, ip=ir.InsertionPoint(op))
    for old_region, new_region in zip(op.regions, new.regions):
        old_block = list(old_region.blocks)[0]
        block = new_region.blocks.append()
        ops = mlir.block_ops(old_block)
        ip = ir.InsertionPoint(block)
        for child in ops[:-1]:
            ip.insert(child.detach_from_parent())
        old_yield = ops[-1]
        ir.Operation.create("scf.yield", operands=[old_yield.operands[k] for k in keep], loc=old_yield.location, ip=ip)
    for k, r in zip(keep, new.results):
        op.results[k].replace_all_uses_with(r)
    op.erase()


@register(STEP, "an scf.if whose branches yield one buffer (a transposed convolution's phases and its "
                "original, both in place) returns nothing: its uses read that buffer")
def fold_branch_buffers(module: ir.Module, filename: str) -> str:
    plans = [p for p in (plan_branch_fold(op) for op in mlir.walk(module.operation)) if p is not None]
    for plan in plans:
        apply_branch_fold(plan)
    folded = sum(1 for p in plans for v in p.same if v is not None)
    return f"{folded} scf.if result(s) replaced by the buffer both branches yield" if folded else ""
