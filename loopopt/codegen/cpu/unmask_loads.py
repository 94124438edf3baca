"""Masked vector loads read whole where the whole vector lies inside the buffer (cpu, step
`unmask-loads`; the rule: codegen/cpu/plan/unmask_loads.py, docs/cpu_codegen.md section 58).

Per nest at the function's top level: each `vector.maskedload` the rule takes
(`plan.unmask_loads.load_facts`) whose W elements lie inside its buffer on every iteration
(`reads_inside`) becomes `vector.load` of a 1-D view of the buffer at the linear offset and
`arith.select(mask, loaded, pass-through)`. When some do not, but every over-reading iteration is
the outermost loop's last (`peels_outer`), that iteration is split off (its loads keep their
masks) and the loads of the first part are proven again and rewritten.

Remarks (pass `unmask-loads`): `[UNMASK LOADS] N masked loads read whole vectors inside their
buffers, the lanes past the mask selected away` (with `; the last iteration of the outermost
loop split off, where the last vector passes the buffer's end`); named in --passes, `[STOP UNMASK
LOADS] why` for a nest whose masked loads stay.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...analysis.loops import constant_bounds
from ...loop_optimization.pair_restructuring import split_loop, split_violation
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext
from .plan.unmask_loads import MASKED_LOAD, LoadFacts, load_facts, peels_outer, reads_inside

PASS = "unmask-loads"
DONE = "[UNMASK LOADS] {n} masked loads read whole vectors inside their buffers, the lanes past the mask selected away"
PEELED = "; the last iteration of the outermost loop split off, where the last vector passes the buffer's end"
STOP = "[STOP UNMASK LOADS] {why}"


def masked_loads(op: ir.Operation) -> list[ir.Operation]:
    return [o for o in mlir.walk(op) if o.name == MASKED_LOAD]


def in_reduction_step(op: ir.Operation, nest: ir.Operation) -> bool:
    """The load runs in every step of a reduction: some loop between it and the nest carries
    values (a register tile's band). Loads once per tile (its accumulators' start, its epilogue)
    are left as they are: their cost does not count against the tile's K steps. Its buffer is
    defined outside the nest (the view goes before it)."""
    owner, _ = mlir.value_owner(op.operands[0])
    if owner is not None and _inside(owner, nest):
        return False
    at = mlir.operation(op.parent)
    while at is not None and at != nest:
        if at.name == "affine.for" and len(at.results):
            return True
        at = mlir.operation(at.parent) if at.parent is not None else None
    return False


def _inside(op: ir.Operation, nest: ir.Operation) -> bool:
    at = op
    while at is not None:
        if at == nest:
            return True
        at = mlir.operation(at.parent) if at.parent is not None else None
    return False


def flat_view(mem: ir.Value, nest: ir.Operation) -> ir.Value:
    """A `memref.collapse_shape` of the whole buffer `mem` (defined outside the nest:
    `in_reduction_step`) into one dimension, right before the nest."""
    mt = mlir.memref_type(mem)
    with nest.location:
        size = 1
        for d in mt.shape:
            size *= d
        vt = ir.MemRefType.get([size], mt.element_type, memory_space=mt.memory_space)
        i64 = ir.IntegerType.get_signless(64)
        groups = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in range(mt.rank)])])
        return ir.Operation.create("memref.collapse_shape", results=[vt], operands=[mem],
                                   attributes={"reassociation": groups}, ip=ir.InsertionPoint(nest)).result


def unmask(facts: LoadFacts, flat: ir.Value) -> None:
    """Replace the masked load by a whole-vector load through the 1-D view and a select."""
    op = facts.op
    mem = op.operands[0]
    rank = len(facts.strides)
    idx = list(op.operands)[1:1 + rank]
    mask, passthru = op.operands[1 + rank], op.operands[2 + rank]
    ip = ir.InsertionPoint(op)
    with op.location:
        expr = None
        for d, s in enumerate(facts.strides):
            term = ir.AffineExpr.get_dim(d) * s if s != 1 else ir.AffineExpr.get_dim(d)
            expr = term if expr is None else expr + term
        amap = ir.AffineMap.get(rank, 0, [expr])
        lin = ir.Operation.create("affine.apply", results=[ir.IndexType.get()], operands=idx,
                                  attributes={"map": ir.AffineMapAttr.get(amap)}, ip=ip).result
        vt = op.results[0].type
        whole = ir.Operation.create("vector.load", results=[vt], operands=[flat, lin], ip=ip).result
        sel = ir.Operation.create("arith.select", results=[vt], operands=[mask, whole, passthru], ip=ip).result
    op.results[0].replace_all_uses_with(sel)
    op.erase()


def unmask_nest(nest: ir.Operation, scope: Scope) -> tuple[int, bool, str]:
    """(loads rewritten, whether the outermost loop's last iteration was split off, why the
    nest's other masked loads stay or "")."""
    found = []
    why = ""
    for op in masked_loads(nest):
        if not in_reduction_step(op, nest):
            continue
        f, no = load_facts(op, scope)
        if f is None:
            why = why or f"the masked load at {mlir.location_of(op)}: {no}"
        else:
            found.append(f)
    inside = [f for f in found if reads_inside(f)]
    over = [f for f in found if f not in inside]
    peeled = False
    if over:
        refusal = peels_outer(over, nest, scope)
        split = split_violation(nest, constant_bounds(nest)[1] - constant_bounds(nest)[0] - 1) \
            if refusal is None else None
        refusal = refusal or (f"the outermost loop's last iteration cannot be split off: {split}" if split else None)
        if refusal is None:
            lb, ub = constant_bounds(nest)
            head, _ = split_loop(nest, ub - lb - 1)
            scope.forget_loop(nest)
            again = [load_facts(op, scope)[0] for op in masked_loads(head)]
            inside = [f for f in again if f is not None and in_reduction_step(f.op, head) and reads_inside(f)]
            peeled = bool(inside)
        else:
            why = why or refusal
    views: dict = {}
    for f in inside:
        mem = f.op.operands[0]
        if mem not in views:
            views[mem] = flat_view(mem, head if peeled else nest)
        unmask(f, views[mem])
    return len(inside), peeled, why


def unmask_loads_function(fn: ir.Operation, scope: Scope, log: RemarkLog, filename: str = "<input>",
                          report_refusals: bool = False) -> int:
    """Rewrite the masked loads of every top-level nest of `fn` the rule takes; returns how many."""
    body = mlir.func_body(fn)
    if body is None:
        return 0
    total = 0
    for nest in [op for op in mlir.block_ops(body) if op.name == "affine.for" and masked_loads(op)]:
        where = mlir.location_of(nest, filename)
        n, peeled, why = unmask_nest(nest, scope)
        if n:
            log.add(PASS, PASSED, DONE.format(n=n) + (PEELED if peeled else ""), function=mlir.func_name(fn),
                    location=where, args={"loads": n, "peeled": peeled})
            total += n
        if why and report_refusals:
            log.add(PASS, MISSED, STOP.format(why=why), function=mlir.func_name(fn), location=where)
    return total


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `unmask-loads` (loopopt/pipeline.py)."""
    with fn.context:
        return unmask_loads_function(fn, Scope(), ctx.log, ctx.filename, report_refusals=ctx.explicit)
