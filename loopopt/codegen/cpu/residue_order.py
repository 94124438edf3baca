"""Residue order (cpu): a loop around a reduction nest that reads again, D > 1 iterations later,
what an iteration read (a dilated convolution's rows) runs its iterations by residue mod D.

Applies codegen/cpu/plan/residue_order.py's ResiduePlan (the rule and its legality are there).
The loop `for i = lb to ub step s { body }` becomes

    for r = 0 to D {
      for i = lb + r * s to ub step s * D { body }
    }

which runs every iteration i = lb + m * s < ub exactly once (m = r + D q), in the order of
m's residue mod D. The body is moved unchanged.

Remarks (pass `residue-order`, by default): `[RESIDUE ORDER] ...` (Passed) per rewritten loop,
`[STOP RESIDUE ORDER] ...` (Missed) per candidate whose loop carries a dependence.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.legality import induction_var
from ...analysis.loops import body_block, nested_in
from ...mlir import affine_d, ir
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .plan.residue_order import PASS, ResiduePlan, candidates, plan_residue_order

DONE = "[RESIDUE ORDER]"


def residue_loops(plan: ResiduePlan) -> tuple[ir.Operation, ir.Operation]:
    """Rewrite plan.loop into its residue loop and the strided loop inside; returns both."""
    loop, d, s = plan.loop, plan.modulus, plan.step
    with loop.context, loop.location:
        outer = affine_d.AffineForOp(ir.AffineMap.get_constant(0), ir.AffineMap.get_constant(d), 1,
                                     ip=ir.InsertionPoint(loop))
        with ir.InsertionPoint(outer.body):
            lb = ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0) * s + plan.lower])
            inner = affine_d.AffineForOp(lb, ir.AffineMap.get_constant(plan.upper), s * d,
                                         lower_bound_operands=[outer.induction_variable])
            affine_d.AffineYieldOp([])
        with ir.InsertionPoint(inner.body):
            affine_d.AffineYieldOp([])
        end = mlir.block_ops(body_block(inner.operation))[-1]
        for op in mlir.block_ops(body_block(loop))[:-1]:
            op.move_before(end)
        induction_var(loop).replace_all_uses_with(inner.induction_variable)
        loop.erase()
    return outer.operation, inner.operation


def describe(plan: ResiduePlan) -> str:
    ts = ", ".join(str(t) for t in plan.distances)
    return (f"{DONE} the loop's {plan.trip} iterations run by residue mod {plan.modulus}: loads read again "
            f"{ts} iterations later are read again {', '.join(str(t // plan.modulus) for t in plan.distances)} "
            f"later ({plan.modulus} iterations load {plan.window / 1024:.0f} KiB)")


def residue_order_function(fn: ir.Operation, log: RemarkLog, filename: str = "<input>",
                           l2_bytes: int = 1 << 20) -> int:
    """Plan and apply every candidate loop of the function, outermost first; returns how many
    were rewritten."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    done: list[ir.Operation] = []
    for loop in candidates(fn):
        if any(nested_in(loop, d) for d in done):
            continue  # one order per nest: the outermost loop that gains
        facts = Facts()
        plan = plan_residue_order(loop, facts, l2_bytes)
        if plan is None:
            continue
        where = mlir.location_of(loop, filename)
        if plan.refusal is not None:
            log.refused(PASS, plan.refusal, function=fname, location=where)
            continue
        text = describe(plan)
        _, inner = residue_loops(plan)
        done.append(inner)
        log.add(PASS, PASSED, text, function=fname, location=where,
                args={"modulus": plan.modulus, "trip": plan.trip})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `residue-order` (loopopt/pipeline.py)."""
    with fn.context:
        return residue_order_function(fn, ctx.log, ctx.filename, ctx.options.plan_cache_sizes[1])
