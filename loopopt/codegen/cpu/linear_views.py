"""Delinearized accesses at base + i (cpu, step `linear-views`; rule in plan/linear_views.py,
docs/cpu_codegen.md section 36): an access of an innermost loop whose index takes the loop's counter
apart by floordiv and mod (x[n, g*8 + c, e floordiv 32, e mod 32], GroupNorm's statistics after
torch-mlir's reshape), and whose address isl proves one element further every iteration, reads
through a `memref.collapse_shape` view joining the dimensions it moves in, at base + e: the vector
planner then sees a stride of 1 and LLVM a linear address.

Remarks (pass `linear-views`): `[LINEAR VIEW] ...` (Passed) per access rewritten; named in --passes,
`[STOP LINEAR VIEW] why` (Missed) per delinearized access the rule refuses.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext
from .plan.linear_views import ACCESSES, LinearView, plan_lanes_views, plan_linear_views, top_loop

PASS = "linear-views"
DONE = ("[LINEAR VIEW] {n} access(es) move by one element per iteration in memory (isl): read through a "
        "view joining dimensions {first}..{last} of {shape}, at its base plus the loop's counter")
STOP = "[STOP LINEAR VIEW] {why}"


def joined_type(mt: ir.MemRefType, first: int) -> ir.MemRefType:
    """`mt` (identity layout, static sizes from `first` on) with dimensions `first`.. joined."""
    n = 1
    for d in range(first, mt.rank):
        n *= mt.get_dim_size(d)
    return ir.MemRefType.get([*mt.shape[:first], n], mt.element_type, memory_space=mt.memory_space)


def joining_view(memref: ir.Value, first: int, top: ir.Operation, views: dict) -> ir.Value:
    """A memref.collapse_shape of `memref` joining its dimensions `first`.., made once per
    (buffer, first) before `top`."""
    key = (memref, first)
    for k, v in views.items():
        if k[0] == memref and k[1] == first:
            return v
    mt = mlir.memref_type(memref)
    i64 = ir.IntegerType.get_signless(64)
    groups = [[k] for k in range(first)] + [list(range(first, mt.rank))]
    assoc = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, k) for k in g]) for g in groups])
    view = ir.Operation.create("memref.collapse_shape", results=[joined_type(mt, first)], operands=[memref],
                               attributes={"reassociation": assoc}, ip=ir.InsertionPoint(top)).result
    views[key] = view
    return view


def read_through_view(plan: LinearView, views: dict) -> None:
    """Rewrite the access of `plan` (planned, not refused) to its view and index."""
    op = plan.op
    first_operand = ACCESSES[op.name]
    memref = op.operands[first_operand - 1]
    amap = mlir.affine_map_attr(op, "map")
    mt = mlir.memref_type(memref)
    if plan.first < mt.rank - 1:
        op.operands[first_operand - 1] = joining_view(memref, plan.first, top_loop(plan.loop), views)
    results = [*amap.results[:plan.first], plan.index]
    op.attributes["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(amap.n_dims, amap.n_symbols, results))


def linear_views_function(fn: ir.Operation, scope: Scope, log: RemarkLog, filename: str = "<input>",
                          report_refusals: bool = False, planner=plan_linear_views, name: str = PASS) -> int:
    """Rewrite every delinearized access the rule (`planner`) takes; returns how many."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    views: dict = {}
    with fn.context, fn.location:
        done: dict = {}  # (location, first, shape) -> accesses rewritten (one remark each)
        refused: set = set()
        for plan in planner(fn, scope):
            where = mlir.location_of(plan.op, filename)
            if plan.refusal is not None:
                if report_refusals and (where, plan.refusal) not in refused:
                    refused.add((where, plan.refusal))
                    log.add(name, MISSED, STOP.format(why=plan.refusal), function=fname, location=where,
                            args={"code": plan.code.value})
                continue
            mt = mlir.memref_type(plan.op.operands[ACCESSES[plan.op.name] - 1])
            key = (where, plan.first, "x".join(map(str, mt.shape)), mt.rank - 1)
            read_through_view(plan, views)
            done[key] = done.get(key, 0) + 1
            count += 1
        for (where, first, shape, last), n in done.items():
            log.add(name, PASSED, DONE.format(n=n, first=first, last=last, shape=shape), function=fname,
                    location=where, args={"accesses": n})
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `linear-views` (loopopt/pipeline.py)."""
    return linear_views_function(fn, Scope(), ctx.log, ctx.filename, report_refusals=ctx.explicit)


PRODUCT_PASS = "product-views"


def run_products(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `product-views` (docs/cpu_codegen.md section 75): before the loop order and the
    register tile are planned, an access delinearized along a loop that holds a reduction (a
    product's B read at [k, j floordiv H, j mod H]: the columns j of `td,edh->teh` are (e, h)
    joined) reads through the same view at base + j, so that j can give the tile its lanes."""
    return linear_views_function(fn, Scope(), ctx.log, ctx.filename, report_refusals=ctx.explicit,
                                 planner=plan_lanes_views, name=PRODUCT_PASS)
