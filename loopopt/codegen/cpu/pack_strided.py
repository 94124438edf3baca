"""Strided operand packing (cpu): a reduction nest's operand read with a stride larger than
LANE_STRIDE along the register tile's lanes loop is copied first into a buffer whose last
dimension runs along it (codegen/cpu/plan/strided_packing.py has the rule; docs/cpu_codegen.md
section 31).

`pack_strided(plan)` places before the function-level op holding the nest

    %p = memref.alloc() {alignment = 64} : memref<D0 x .. x Dn>

and before the plan's `top` loop (the output channels of a convolution) the copy

    affine.for %d0 = 0 to D0 { .. affine.for %dn = 0 to Dn {
        (the load's index ops, on the copy's IVs plus each loop's lower bound)
        %v = affine.load %X[...] ; affine.store %v, %p[%d0, .., %dn] } }

replaces the load by `affine.load %p[iv0 - lo0, .., ivn - lon]` and frees the buffer after the
function-level op. The register tile then plans the nest with lanes along the last dimension.

Remarks (pass `pack-strided`): `[STRIDED PACK] ...` (Passed) per packed load, with the buffer's
shape; `[STOP STRIDED PACK] ...` (Missed) per load refused (PackCode).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_block
from ...analysis.memory import alias_root, value_name
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from ...transforms.rewriter import Rewriter
from .plan.cpu_plan import is_hot
from .plan.strided_packing import StridedPack, plan_strided_packs

PASS = "pack-strided"
PACKED = ("[STRIDED PACK] operand {name}, read {stride} elements apart along the lanes loop, copied before the "
          "nest into a {shape} buffer whose last dimension runs along it")


def _build(recipe, ivs: list[ir.Value], lowers: tuple[int, ...], ip: ir.InsertionPoint) -> ir.Value:
    """The index value `recipe` describes, in the copy: a dimension's IV plus its lower bound."""
    kind = recipe[0]
    if kind == "dim":
        k = recipe[1]
        if lowers[k] == 0:
            return ivs[k]
        shift = ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0) + lowers[k]])
        return ir.Operation.create("affine.apply", results=[ir.IndexType.get()], operands=[ivs[k]],
                                   attributes={"map": ir.AffineMapAttr.get(shift)}, ip=ip).results[0]
    if kind == "outside":
        return recipe[1]
    operands = [_build(r, ivs, lowers, ip) for r in recipe[2]]
    return ir.Operation.create("affine.apply", results=[ir.IndexType.get()], operands=operands,
                               attributes={"map": recipe[1]}, ip=ip).results[0]


def pack_strided(plan: StridedPack) -> ir.Operation:
    """Apply one plan; returns the buffer's alloc."""
    load, top, root = plan.load, plan.top, plan.root
    elem = load.results[0].type
    rank = len(plan.shape)
    with load.context, top.location:
        alloc = mlir.aligned_alloc(list(plan.shape), elem, ir.InsertionPoint(root))
        buf = alloc.results[0]
        ip, ivs = ir.InsertionPoint(top), []
        for n in plan.shape:
            loop = affine_d.AffineForOp(ir.AffineMap.get_constant(0), ir.AffineMap.get_constant(n), 1, ip=ip)
            with ir.InsertionPoint(loop.body):
                affine_d.AffineYieldOp([])
            ivs.append(loop.induction_variable)
            ip = ir.InsertionPoint(mlir.block_ops(loop.body)[-1])
        index = [_build(r, ivs, plan.lowers, ip) for r in plan.recipes]
        value = ir.Operation.create("affine.load", results=[elem], operands=[load.operands[0], *index],
                                    attributes={"map": load.attributes["map"]}, ip=ip).results[0]
        ident = ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))
        ir.Operation.create("affine.store", operands=[value, buf, *ivs], attributes={"map": ident}, ip=ip)
        read = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(k) - lo for k, lo in enumerate(plan.lowers)])
    with load.location:
        new = ir.Operation.create("affine.load", results=[elem],
                                  operands=[buf, *[body_block(d).arguments[0] for d in plan.dims]],
                                  attributes={"map": ir.AffineMapAttr.get(read)}, ip=ir.InsertionPoint(load))
    load.results[0].replace_all_uses_with(new.results[0])
    load.erase()
    ops = mlir.block_ops(root.block)
    after = ops[ops.index(root) + 1]  # an op of a function body is followed by its terminator at least
    with top.location:
        ir.Operation.create("memref.dealloc", operands=[buf], ip=ir.InsertionPoint(after))
    return alloc


def pack_strided_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                          report_refusals: bool = True) -> int:
    """Pack every strided operand codegen/cpu/plan/strided_packing.py selects; returns how many.
    A refused load says why when `report_refusals` or its nest is hot (as register-tile's do)."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    rewriter = Rewriter()
    count = 0
    for plan in plan_strided_packs(fn, Facts(), options):
        where = mlir.location_of(plan.load, filename)
        if plan.refusal is not None:
            if not (report_refusals or is_hot(plan.p)):
                continue
            log.refused(PASS, plan.refusal, function=fname, location=where, args={"stride": plan.stride})
            continue
        name = value_name(alias_root(plan.load.operands[0]))
        shape = "x".join(str(n) for n in plan.shape)

        def build(plan=plan):
            pack_strided(plan)
            return None

        rewriter.replace([], build)
        log.add(PASS, PASSED, PACKED.format(name=name, stride=plan.stride, shape=shape), function=fname,
                location=where, args={"loops_added": len(plan.shape), "shape": shape, "stride": plan.stride,
                                      "elements": plan.elements, "reads": plan.reads})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `pack-strided` (loopopt/pipeline.py)."""
    return pack_strided_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
