"""Contraction after fusion: a placed intermediate whose every read is satisfied within one
iteration is replaced by the stored value itself, and its buffer is removed.

Rule: a buffer allocated by the function, used only by affine.load/affine.store (and
memref.dealloc), all of them in one block, where every load is preceded in that block by a
store to the identical index (same map and operands), never escapes: each load can take the
value of the latest such store, and the buffer is dead afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass

from math import gcd

import islpy as isl

from .. import mlir
from ..analysis.memory import ALLOC_OPS
from ..analysis.accesses import access_pattern
from ..analysis.affine import Scope
from ..analysis.affine import NonAffine
from ..analysis.dependence import instance_pair, pair_set, same_element
from ..analysis.loops import domain_loops, substitute
from ..mlir import ir
from ..options import Options
from ..remarks import PASSED, RemarkLog


def contraction_plan(alloc: ir.Operation, scope: Scope | None = None,
                     positions=None) -> list[tuple[ir.Operation, ir.Operation]] | None:
    """(load, forwarding store) pairs if the buffer can be contracted, else None.

    Each load is forwarded from the latest preceding store in the block that provably writes
    the same element (isl), provided no other store in between may write that element.
    `positions(block)` gives op -> index in block (cached by the caller)."""
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
    order = positions(block) if positions is not None else {mlir.op_key(o): k for k, o in enumerate(mlir.block_ops(block))}
    for op in sorted(accesses, key=lambda o: order[mlir.op_key(o)]):
        if op.name == "affine.store" and op.operands[1] == buf:
            stores.append(access_pattern(op, scope))
        elif op.name == "affine.load" and op.operands[0] == buf:
            load = access_pattern(op, scope)
            if not stores or not same_element(stores[-1], load, scope):
                return None  # the latest store must write exactly the element read
            plan.append((op, stores[-1].op))
    return plan


def contract(module: ir.Module, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Contract every eligible placed buffer in the module; returns how many were removed."""
    return sum(contract_function(fn, options, log, filename) for fn in mlir.functions(module))


def contract_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Contract every eligible placed buffer of one function."""
    count = 0
    fname = mlir.func_name(fn)
    scope = Scope()
    cache: dict = {}

    def positions(block):
        p = cache.get(block)
        if p is None:
            p = cache[block] = {mlir.op_key(o): k for k, o in enumerate(mlir.block_ops(block))}
        return p

    allocs = [o for o in mlir.walk(fn) if o.name in ALLOC_OPS]
    for alloc in allocs:
        plan = contraction_plan(alloc, scope, positions)
        if plan is None:
            shrink = shrink_plan(alloc, scope)
            if shrink is not None:
                where = mlir.location_of(alloc, filename)
                old = "x".join("?" if d == mlir.DYNAMIC else str(d) for d in mlir.memref_type(alloc.results[0]).shape)
                loop_at = mlir.location_of(shrink.loop, filename)
                apply_shrink(alloc, shrink)
                count += 1
                log.add("contraction", PASSED, f"[CONTRACTION] buffer at {where} shrunk from {old} to "
                        f"{'x'.join(map(str, shrink.shape))}: each iteration of the loop at {loop_at} owns its slice",
                        function=fname, location=where, args={"shape": list(shrink.shape)})
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


# ---------------------------------------------------------------------------------------
# Shrinking a buffer to the slice one iteration needs.


@dataclass(frozen=True)
class ShrinkPlan:
    """Replace a placed buffer by one of `shape`, indexed by the old index with the private
    loop's IV set to 0, minus `offsets`."""

    loop: ir.Operation  # the loop each of whose iterations owns its elements
    shape: tuple[int, ...]
    offsets: tuple[int, ...]
    strides: tuple[int, ...]  # every index value is offset + k * stride
    accesses: tuple  # AccessPattern of every load/store of the buffer


def _plain_operands(op: ir.Operation, first_index: int) -> bool:
    """Index operands are IVs or values defined outside every loop (no affine.apply results),
    so rewriting the map's dims rewrites the index exactly."""
    for v in list(op.operands)[first_index:]:
        owner, block = mlir.value_owner(v)
        if owner is not None and owner.name == "affine.apply":
            return False
    return True


def private_loop_violation(accesses, alloc_depth: int, loop_index: int, scope: Scope) -> bool:
    """True iff two different iterations of the loops from the allocation's depth down to the
    loop at `loop_index` may touch one element (the buffer then carries values between them)."""
    names = [lp.name for lp in accesses[0].loops[alloc_depth:loop_index + 1]]
    differ = " or ".join(f"{n}_s != {n}_t" for n in names)
    for i, a in enumerate(accesses):
        for b in accesses[i:]:
            p = instance_pair(a, b, scope, fixed=alloc_depth)
            if p is None:
                continue
            if not pair_set(p, [f"({differ})"]).is_empty():
                return True
    return False


def _value_range(a, text: str, scope: Scope) -> tuple[int, int, int] | None:
    """(min, max, stride) of the values `text` takes over the access's loops; stride is the gcd
    of the differences between values (1 when the set is too large to list)."""
    dims = [lp.name for lp in a.loops]
    cons = [c for lp in a.loops for c in lp.constraints()] + [f"v = {text}"]
    s = isl.Set(f"[{', '.join(sorted(scope.params))}] -> {{ [v] : exists ({', '.join(dims)}: "
                f"{' and '.join(cons)}) }}").remove_redundancies()
    if s.is_empty():
        return None
    try:
        lo, hi = s.dim_min(0), s.dim_max(0)
    except isl.Error:  # unbounded (e.g. a loop without affine bounds)
        raise NonAffine("unbounded footprint") from None
    if not (lo.is_cst() and hi.is_cst()):
        raise NonAffine("symbolic footprint")
    vals = []
    lo.foreach_piece(lambda _s, aff: vals.append(aff.get_constant_val().to_python()))
    hi.foreach_piece(lambda _s, aff: vals.append(aff.get_constant_val().to_python()))
    low, high = int(min(vals)), int(max(vals))
    stride = 0
    values = s.project_out(isl.dim_type.param, 0, s.dim(isl.dim_type.param))  # every parameter value
    if high - low <= 4096 and values.is_bounded():
        points = []
        values.foreach_point(lambda pt: points.append(int(pt.get_coordinate_val(isl.dim_type.set, 0).to_python())))
        for v in points:
            stride = gcd(stride, v - low)
    else:
        stride = 1
    return low, high, stride


def shrink_plan(alloc: ir.Operation, scope: Scope) -> ShrinkPlan | None:
    """A plan to shrink `alloc`'s buffer to the elements one iteration of some loop uses.

    Rule: every access is an affine load/store with plain index operands inside one loop L
    (below the allocation), no two iterations of L touch the same element (isl), and the
    footprint of one iteration has constant extents. Then each iteration can reuse one small
    buffer: index_d(iv_L = 0) - min_d addresses it injectively."""
    buf = alloc.results[0]
    t = mlir.memref_type(buf)
    users = [mlir.operation(u.owner) for u in buf.uses]
    ops = [u for u in users if u.name != "memref.dealloc"]
    if not ops or any(u.name not in ("affine.load", "affine.store") for u in ops):
        return None
    if any(u.name == "affine.store" and u.operands[0] == buf for u in ops):
        return None
    if not all(_plain_operands(u, 1 if u.name == "affine.load" else 2) for u in ops):
        return None
    accesses = [access_pattern(u, scope) for u in ops]
    if any(a.index is None or any(k in x for x in a.index for k in ("mod", "floor", "ceil")) for a in accesses):
        return None
    depth = min(len(a.loops) for a in accesses)
    common = 0
    while common < depth and all(a.loops[common].op == accesses[0].loops[common].op for a in accesses):
        common += 1
    alloc_depth = len(domain_loops(alloc, scope))
    old_size = 1
    for d in t.shape:
        old_size = None if d == mlir.DYNAMIC or old_size is None else old_size * d
    for k in range(alloc_depth, common):
        lp = accesses[0].loops[k]
        if lp.op.name != "affine.for" or not lp.bounded:
            continue
        if private_loop_violation(accesses, alloc_depth, k, scope):
            continue
        try:
            ranges = []
            for dim in range(len(t.shape)):
                found = [r for a in accesses
                         for r in [_value_range(a, substitute(a.index[dim], {lp.name: "0"}), scope)] if r]
                lo = min((r[0] for r in found), default=0)
                hi = max((r[1] for r in found), default=0)
                stride = 0
                for r in found:  # values of every access must share one residue class
                    stride = gcd(gcd(stride, r[2]), r[0] - lo)
                ranges.append((lo, hi, max(stride, 1)))
        except NonAffine:
            continue
        shape = tuple((hi - lo) // st + 1 for lo, hi, st in ranges)
        new_size = 1
        for d in shape:
            new_size *= d
        if old_size is not None and new_size >= old_size:
            continue
        return ShrinkPlan(lp.op, shape, tuple(r[0] for r in ranges), tuple(r[2] for r in ranges), tuple(accesses))
    return None


def apply_shrink(alloc: ir.Operation, plan: ShrinkPlan) -> None:
    """Rewrite the buffer and every access per `plan`."""
    buf = alloc.results[0]
    old_t = mlir.memref_type(buf)
    iv = plan.loop.regions[0].blocks[0].arguments[0]
    with alloc.context, alloc.location:
        new_t = ir.MemRefType.get(list(plan.shape), old_t.element_type)
        kind = mlir.memref_d.AllocaOp if alloc.name == "memref.alloca" else mlir.memref_d.AllocOp
        new = kind(new_t, [], [], ip=ir.InsertionPoint(alloc))
        for a in plan.accesses:
            op = a.op
            first = 1 if op.name == "affine.load" else 2
            m = mlir.affine_map_attr(op, "map")
            operands = list(op.operands)[first:]
            repl = [ir.AffineConstantExpr.get(0) if k < m.n_dims and operands[k] == iv else ir.AffineExpr.get_dim(k)
                    for k in range(m.n_dims)]
            sub = ir.AffineMap.get(m.n_dims, m.n_symbols, repl)
            results = []
            for r, off, st in zip(m.results, plan.offsets, plan.strides):
                e = r.compose(sub) + ir.AffineConstantExpr.get(-off)
                results.append(ir.AffineExpr.get_floor_div(e, ir.AffineConstantExpr.get(st)) if st > 1 else e)
            op.attributes["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(m.n_dims, m.n_symbols, results))
    buf.replace_all_uses_with(new.result)
    alloc.erase()
