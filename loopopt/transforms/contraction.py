"""Contraction after fusion: a placed intermediate whose every read is satisfied within one
iteration is replaced by the stored value itself, and its buffer is removed.

Rule: a buffer allocated by the function, used only by affine.load/affine.store (and
memref.dealloc), all of them in one block, where every load is preceded in that block by a
store to the identical index (same map and operands), never escapes: each load can take the
value of the latest such store, and the buffer is dead afterwards.
"""
from __future__ import annotations

from .. import mlir
from ..analysis.memory import ALLOC_OPS
from ..analysis.accesses import access_pattern
from ..analysis.affine import Scope
from ..analysis.dependence import same_element
from ..mlir import ir
from ..options import Options
from ..remarks import PASSED, RemarkLog


def contraction_plan(alloc: ir.Operation, scope: Scope | None = None) -> list[tuple[ir.Operation, ir.Operation]] | None:
    """(load, forwarding store) pairs if the buffer can be contracted, else None.

    Each load is forwarded from the latest preceding store in the block that provably writes
    the same element (isl), provided no other store in between may write that element."""
    scope = scope or Scope()
    buf = alloc.results[0]
    users = [mlir.operation(u.owner) for u in buf.uses]
    accesses = [u for u in users if u.name != "memref.dealloc"]
    if not accesses or any(u.name not in ("affine.load", "affine.store") for u in accesses):
        return None
    if any(u.name == "affine.store" and u.operands[0] == buf for u in accesses):
        return None  # the buffer itself is stored somewhere: it escapes
    block = accesses[0].block
    if any(u.block != block for u in accesses):
        return None
    stores: list = []  # access patterns of the stores seen so far, in order
    plan = []
    for op in mlir.block_ops(block):
        if op.name == "affine.store" and op.operands[1] == buf:
            stores.append(access_pattern(op, scope))
        elif op.name == "affine.load" and op.operands[0] == buf:
            load = access_pattern(op, scope)
            if not stores or not same_element(stores[-1], load, scope):
                return None  # the latest store must write exactly the element read
            plan.append((op, stores[-1].op))
        elif op.regions and any(True for _ in _uses_inside(op, buf)):
            return None
    return plan


def _uses_inside(op: ir.Operation, buf: ir.Value):
    for o in mlir.walk(op):
        if any(v == buf for v in o.operands):
            yield o


def contract(module: ir.Module, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Contract every eligible placed buffer in the module; returns how many were removed."""
    return sum(contract_function(fn, options, log, filename) for fn in mlir.functions(module))


def contract_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Contract every eligible placed buffer of one function."""
    count = 0
    fname = mlir.func_name(fn)
    scope = Scope()
    allocs = [o for o in mlir.walk(fn) if o.name in ALLOC_OPS]
    for alloc in allocs:
        plan = contraction_plan(alloc, scope)
        if plan is None:
            continue
        buf = alloc.results[0]
        where = mlir.location_of(alloc, filename)
        kind = alloc.name
        for load, store in plan:
            load.results[0].replace_all_uses_with(store.operands[0])
            load.erase()
        for u in [mlir.operation(u.owner) for u in buf.uses]:
            u.erase()
        alloc.erase()
        count += 1
        log.add("contraction", PASSED, f"[CONTRACTION] {kind} at {where} replaced by its stored values; buffer removed",
                function=fname, location=where, args={"loads_forwarded": len(plan)})
    return count
