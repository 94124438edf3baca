"""Operand packing (cpu): a product's operand walked across rows along the lanes loop is copied
first into a buffer whose rows run along it (codegen/cpu/plan/packing.py has the rule).

`pack_operand(plan)` places before the product's outermost loop

    %p = memref.alloc() {alignment = 64} : memref<K x J x T>
    affine.for %k = klo to khi { affine.for %j = jlo to jhi {
        (the load's index ops, on the copy's IVs)
        %v = affine.load %W[...] ; affine.store %v, %p[%k - klo, %j - jlo] } }

replaces the load by `affine.load %p[k - klo, j - jlo]` and frees the buffer after the loop.
The copy is a transposing band: transpose blocking tiles it. The index ops are copied when they
are affine.apply of the J and K IVs and of values defined before the product; anything else
leaves the load as it is (`copy_operands` says so before the IR is touched).

Remarks (pass `pack-operands`): `[PACK] ...` (Passed) per packed load, with the buffer's shape.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...analysis.legality import induction_var
from ...analysis.loops import nested_in
from ...analysis.memory import alias_root, value_name
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...transforms.rewriter import Rewriter
from .plan.packing import PackPlan, plan_operand_packs
from ...step import StepContext

PASS = "pack-operands"
PACKED = "[PACK] operand {name} copied before the product into a {shape} buffer whose rows run along the lanes loop"


def copy_operands(plan: PackPlan) -> list | None:
    """How to rebuild the load's index operands in the copy: per operand, ("j",), ("k",),
    ("outside", value) or ("apply", map attribute, [sub-recipes]); None when one cannot be."""
    j_iv, k_iv = induction_var(plan.j_loop), induction_var(plan.k_loop)

    def recipe(v: ir.Value, depth: int = 0):
        if v == j_iv:
            return ("j",)
        if v == k_iv:
            return ("k",)
        owner, block = mlir.value_owner(v)
        if owner is None:
            parent = mlir.operation(block.owner) if block is not None and block.owner is not None else None
            inside = parent is not None and (parent == plan.top or nested_in(parent, plan.top))
            return None if inside else ("outside", v)
        if not nested_in(owner, plan.top) and owner != plan.top:
            return ("outside", v)
        if owner.name != "affine.apply" or depth > 4:
            return None
        subs = [recipe(x, depth + 1) for x in owner.operands]
        return None if any(s is None for s in subs) else ("apply", owner.attributes["map"], subs)

    out = [recipe(v) for v in list(plan.load.operands)[1:]]
    return None if any(r is None for r in out) else out


def _build(recipe, j: ir.Value, k: ir.Value, ip: ir.InsertionPoint) -> ir.Value:
    kind = recipe[0]
    if kind == "j":
        return j
    if kind == "k":
        return k
    if kind == "outside":
        return recipe[1]
    operands = [_build(r, j, k, ip) for r in recipe[2]]
    return ir.Operation.create("affine.apply", results=[ir.IndexType.get()], operands=operands,
                               attributes={"map": recipe[1]}, ip=ip).results[0]


def pack_operand(plan: PackPlan, recipes: list) -> ir.Operation:
    """Apply one plan (copy_operands gave `recipes`); returns the buffer's alloc."""
    load, top = plan.load, plan.top
    (jlo, jhi), (klo, khi) = plan.j_bounds, plan.k_bounds
    elem = load.results[0].type
    with load.context, top.location:
        alloc = mlir.aligned_alloc([khi - klo, jhi - jlo], elem, ir.InsertionPoint(top))
        buf = alloc.results[0]
        kloop = affine_d.AffineForOp(ir.AffineMap.get_constant(klo), ir.AffineMap.get_constant(khi), 1,
                                     ip=ir.InsertionPoint(top))
        with ir.InsertionPoint(kloop.body):
            jloop = affine_d.AffineForOp(ir.AffineMap.get_constant(jlo), ir.AffineMap.get_constant(jhi), 1)
            affine_d.AffineYieldOp([])
        with ir.InsertionPoint(jloop.body):
            affine_d.AffineYieldOp([])
        term = mlir.block_ops(jloop.body)[-1]
        ip = ir.InsertionPoint(term)
        kk, jj = kloop.induction_variable, jloop.induction_variable
        index = [_build(r, jj, kk, ip) for r in recipes]
        value = ir.Operation.create("affine.load", results=[elem], operands=[load.operands[0], *index],
                                    attributes={"map": load.attributes["map"]}, ip=ip).results[0]
        d0, d1 = ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)
        store_map = ir.AffineMapAttr.get(ir.AffineMap.get(2, 0, [d0 - klo, d1 - jlo]))
        ir.Operation.create("affine.store", operands=[value, buf, kk, jj], attributes={"map": store_map}, ip=ip)
        read_map = ir.AffineMapAttr.get(ir.AffineMap.get(2, 0, [d1 - klo, d0 - jlo]))
    with load.location:
        new = ir.Operation.create("affine.load", results=[elem], operands=[buf, induction_var(plan.j_loop), induction_var(plan.k_loop)],
                                  attributes={"map": read_map}, ip=ir.InsertionPoint(load))
    load.results[0].replace_all_uses_with(new.results[0])
    load.erase()
    ops = mlir.block_ops(top.block)
    after = ops[ops.index(top) + 1]  # a loop is followed by its block's terminator at least
    with top.location:
        ir.Operation.create("memref.dealloc", operands=[buf], ip=ir.InsertionPoint(after))
    return alloc


def pack_operands_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Pack every operand codegen/cpu/plan/packing.py selects; returns how many."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    rewriter = Rewriter()
    count = 0
    for plan in plan_operand_packs(fn, Scope()):
        recipes = copy_operands(plan)
        if recipes is None:
            continue
        where = mlir.location_of(plan.load, filename)
        name = value_name(alias_root(plan.load.operands[0]))
        shape = f"{plan.k_bounds[1] - plan.k_bounds[0]}x{plan.j_bounds[1] - plan.j_bounds[0]}"

        def build(plan=plan, recipes=recipes):
            pack_operand(plan, recipes)
            return None

        rewriter.replace([], build)
        log.add(PASS, PASSED, PACKED.format(name=name, shape=shape), function=fname, location=where,
                args={"loops_added": 2, "shape": shape})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `pack-operands` (loopopt/pipeline.py)."""
    return pack_operands_function(fn, ctx.options, ctx.log, ctx.filename)
