"""Loop order for locality (cpu): permute each perfect band into the order its cost prefers.

The cost and the legality are analysis/locality.py's `plan_loop_order` (strides of every access
along each loop; transforms.interchange.check_loop_interchange, exact with isl); this step
applies the chosen permutation with `interchange.loop_interchange` through the rewriter. It
runs before scalar replacement, so that a reduction moved innermost gets its accumulator in a
register and the register tiling (transforms/register_tiling.py) finds it. A band is a perfect
nest of affine.for loops, carrying no values, down to an innermost loop, with no loop of the
same kind around its outermost loop's parent as the only op (the maximal band).

Reordering keeps each element's sequence of updates (the dependences keep their direction), so
results are bit-exact.

Remarks (pass `loop-order`): `[LOOP ORDER] 1:0 ...` (Passed) per permuted band with the costs;
with `report_refusals`, `[STOP LOOP ORDER] ...` (Missed) when a better order would reverse a
dependence (the interchange refusal's code and detail).
"""
from __future__ import annotations

from .. import mlir
from ..analysis.facts import Facts
from ..analysis.locality import OrderPlan, plan_loop_order
from ..analysis.loops import body_ops, collect_interchangeable_loops
from ..analysis.refusal import Refusal
from ..analysis.vectorization import is_innermost
from ..mlir import ir
from ..options import Options
from ..remarks import MISSED, PASSED, RemarkLog
from .interchange import loop_interchange
from .rewriter import Rewriter

PASS = "loop-order"


def bands(fn: ir.Operation) -> list[list[ir.Operation]]:
    """The maximal perfect bands of the function that end at an innermost loop, in program order."""
    out = []
    for op in mlir.walk(fn):
        if op.name != "affine.for":
            continue
        parent = mlir.operation(op.parent) if op.parent is not None else None
        if parent is not None and parent.name == "affine.for" and body_ops(parent) == [op] \
                and not parent.results:
            continue  # inside a band that starts higher
        band = collect_interchangeable_loops(op)
        if len(band) >= 2 and is_innermost(band[-1]):
            out.append(band)
    return out


def _levels(order) -> str:
    return ":".join(str(k) for k in order)


def loop_order_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                        report_refusals: bool = True) -> int:
    """Permute every band whose cost prefers another legal order; returns the number permuted.
    cpu target only."""
    if options.target.partitioned or mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    facts = Facts()
    rewriter = Rewriter(facts)
    plans: list[OrderPlan] = []
    for band in bands(fn):
        plan = plan_loop_order(band, facts, options)
        if plan is not None:
            plans.append(plan)
    count = 0
    for plan in plans:
        where = mlir.location_of(plan.band[0], filename)
        if plan.refusal is not None:
            if report_refusals:
                why: Refusal = plan.refusal
                log.add(PASS, MISSED, f"[STOP LOOP ORDER] the cheaper order {why.message[len('[STOP INTERCHANGE] '):]}"
                        if why.message.startswith("[STOP INTERCHANGE] ") else f"[STOP LOOP ORDER] {why.message}",
                        function=fname, location=where,
                        args={"code": why.code.name, "detail": why.detail, "kept": plan.kept_cost.describe()})
            continue
        if not plan.changes:
            continue
        band = list(plan.band)

        def build(band=band, order=plan.order):
            return [loop_interchange(band, list(order))]

        rewriter.replace([band[0]], build)
        log.add(PASS, PASSED, f"[LOOP ORDER] {_levels(plan.order)}: {plan.cost.describe()} (was: "
                f"{plan.kept_cost.describe()})", function=fname, location=where,
                args={"order": list(plan.order), "strided_before": list(plan.kept_cost.strided),
                      "strided_after": list(plan.cost.strided)})
        count += 1
    return count
