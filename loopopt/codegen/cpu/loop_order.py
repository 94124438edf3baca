"""Loop order for locality (cpu): permute each perfect band into the order its cost prefers.

The cost and the legality are codegen/cpu/plan/locality.py's `plan_loop_order` (strides of every access
along each loop; transforms.interchange.check_loop_interchange, exact with isl); this step
applies the chosen permutation with `interchange.loop_interchange` through the rewriter. It
runs after scalar replacement (a sum moved innermost stays in memory there, and the register
tiling, codegen/cpu/register_tile.py, keeps it in registers across the whole reduction). Loads
and pure ops beside an inner loop that alone uses them (and writes nothing they read) are sunk
into it when that makes the band perfect and the plan then permutes it (else put back). A band is a perfect
nest of affine.for loops, carrying no values, down to an innermost loop, with no loop of the
same kind around its outermost loop's parent as the only op (the maximal band).

Reordering keeps each element's sequence of updates (the dependences keep their direction), so
results are bit-exact.

A band that ends above a reduction nest (its innermost loop P holds the reduction's init, its
loop and the store of its result: not perfect) is ordered for the register tile's lanes instead
(codegen/cpu/plan/lanes_order.py, docs/cpu_codegen.md section 30): when P walks an access of the
nest by more than one element and another loop of the band walks every access contiguously or
not at all, that loop is moved directly around the reduction.

Remarks (pass `loop-order`): `[LOOP ORDER] 1:0 ...` (Passed) per permuted band with the costs
or, for a reduction nest, the loop whose iterations become lanes and why P's were refused; with
`report_refusals`, `[STOP LOOP ORDER] ...` (Missed) when a better order would reverse a
dependence (the interchange refusal's code and detail).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_ops, collect_interchangeable_loops, nested_in
from ...analysis.refusal import Refusal
from ...analysis.vectorization import is_innermost
from ...mlir import ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...transforms.interchange import loop_interchange
from ...transforms.rewriter import Rewriter
from .plan.lanes_order import LanesOrder, plan_lanes_order
from .plan.locality import OrderPlan, plan_loop_order
from ...step import StepContext

PASS = "loop-order"


def sinkable(loop: ir.Operation) -> tuple[list[ir.Operation], ir.Operation] | None:
    """(ops, inner loop) when `loop`'s body is loads and pure ops followed by one affine.for
    that alone uses their results and writes nothing any of the loads may read: moving them to
    the top of the inner loop's body computes the same values (the band is then perfect)."""
    from ...analysis.accesses import access_pattern, collect_accesses
    from ...analysis.affine import Scope
    from ...analysis.dependence import may_alias
    from ...analysis.effects import is_pure_op, op_effects
    from ...analysis.memory import UNTRACED

    ops = body_ops(loop)
    if not ops or ops[-1].name != "affine.for" or any(o.name == "affine.for" for o in ops[:-1]):
        return None
    inner, head = ops[-1], ops[:-1]
    if not head or op_effects(inner).unknown:
        return None
    scope = Scope()
    writes = [a for a in collect_accesses(inner, scope) if a.is_write]
    for op in head:
        if op.regions or not (op.name == "affine.load" or is_pure_op(op)):
            return None
        if op.name == "affine.load":
            a = access_pattern(op, scope)
            if a.key is UNTRACED or any(w.key is UNTRACED or may_alias(w, a) for w in writes):
                return None
        for v in op.results:
            for use in v.uses:
                user = mlir.operation(use.owner)
                if user not in head and not nested_in(user, inner):
                    return None
    return head, inner


def _sink(head: list[ir.Operation], inner: ir.Operation) -> ir.Operation:
    """Move `head` (in order) to the top of `inner`'s body; returns the op they now precede."""
    first = mlir.block_ops(inner.regions[0].blocks[0])[0]
    for op in head:
        op.move_before(first)
    return first


def _unsink(head: list[ir.Operation], inner: ir.Operation) -> None:
    for op in head:
        op.move_before(inner)


def band_starts(fn: ir.Operation) -> list[tuple[ir.Operation, list[ir.Operation]]]:
    """(loop, its band) for every affine.for of the function that starts a maximal band (not the
    only op of a loop above it that carries nothing), in program order."""
    out = []
    for op in mlir.walk(fn):
        if op.name != "affine.for":
            continue
        parent = mlir.operation(op.parent) if op.parent is not None else None
        if parent is not None and parent.name == "affine.for" and body_ops(parent) == [op] and not parent.results:
            continue  # inside a band that starts higher
        out.append((op, collect_interchangeable_loops(op)))
    return out


def bands(fn: ir.Operation) -> list[list[ir.Operation]]:
    """The maximal perfect bands of the function that end at an innermost loop, in program order."""
    return [band for _, band in band_starts(fn) if len(band) >= 2 and is_innermost(band[-1])]


def _imperfect_tops(fn: ir.Operation) -> list[ir.Operation]:
    """Loops that start a band ending above an innermost loop only because loads or pure ops sit
    beside the next loop (`sinkable`)."""
    return [op for op, band in band_starts(fn)
            if band and not is_innermost(band[-1]) and not band[-1].results and sinkable(band[-1]) is not None]


def _plan_with_sinking(top: ir.Operation, facts, options) -> OrderPlan | None:
    """The order plan of `top`'s band with the ops beside its inner loops sunk into them, kept
    sunk only when the plan permutes the band (else put back: nothing changes)."""
    moved = []
    while True:
        band = collect_interchangeable_loops(top)
        if not band or is_innermost(band[-1]) or band[-1].results:
            break
        found = sinkable(band[-1])
        if found is None:
            break
        head, inner = found
        facts.__init__(facts.scope)  # the loop bodies changed: drop every memoized fact
        _sink(head, inner)
        moved.append((head, inner))
    band = collect_interchangeable_loops(top)
    plan = plan_loop_order(band, facts, options) if moved and is_innermost(band[-1]) else None
    if plan is None or not plan.changes:
        for head, inner in reversed(moved):
            _unsink(head, inner)
        facts.__init__(facts.scope)
        return None
    return plan


def _lanes_tops(fn: ir.Operation) -> list[ir.Operation]:
    """Loops that start a maximal band of two or more loops ending above an inner nest (not at
    an innermost loop): the bands `plan_lanes_order` may reorder."""
    return [op for op, band in band_starts(fn) if len(band) >= 2 and not is_innermost(band[-1])]


def _lanes_remark(plan: LanesOrder, log: RemarkLog, fname: str, filename: str, report_refusals: bool) -> None:
    where = mlir.location_of(plan.band[0], filename)
    lanes = mlir.location_of(plan.band[plan.lanes], filename)
    if plan.refusal is not None:
        if report_refusals:
            why: Refusal = plan.refusal
            text = (f"the order {why.message[len('[STOP INTERCHANGE] '):]}" if why.message.startswith("[STOP INTERCHANGE] ")
                    else why.message[len("[STOP LOOP ORDER] "):] if why.message.startswith("[STOP LOOP ORDER] ")
                    else why.message)
            log.add(PASS, MISSED, f"[STOP LOOP ORDER] lanes along the loop at {lanes}: {text}",
                    function=fname, location=where,
                    args={"code": why.code.name, "detail": why.detail, "lanes_why": plan.lanes_why})
        return
    log.add(PASS, PASSED, f"[LOOP ORDER] {_levels(plan.order)}: lanes along the loop at {lanes}, which walks "
            f"every access of the reduction nest contiguously or not at all (was: the loop around the "
            f"reduction, lanes refused: {plan.lanes_why})", function=fname, location=where,
            args={"order": list(plan.order), "lanes_why": plan.lanes_why})


def _levels(order) -> str:
    return ":".join(str(k) for k in order)


def loop_order_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                        report_refusals: bool = True) -> int:
    """Permute every band whose cost prefers another legal order, and every band above a
    reduction nest whose lanes another of its loops gives (`plan_lanes_order`); returns the
    number permuted. cpu target only."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    facts = Facts()
    rewriter = Rewriter(facts)
    plans: list[OrderPlan] = []
    for band in bands(fn):
        plan = plan_loop_order(band, facts, options)
        if plan is not None:
            plans.append(plan)
    for top in _imperfect_tops(fn):
        plan = _plan_with_sinking(top, facts, options)
        if plan is not None:
            # the sunk band holds the perfect bands below it: their plans are superseded (applied
            # first, they would leave this one a band of erased loops)
            plans = [p for p in plans if not nested_in(p.band[0], top)]
            plans.append(plan)
    planned = {mlir.op_key(p.band[0]) for p in plans}
    for top in _lanes_tops(fn):
        if mlir.op_key(top) in planned or any(nested_in(top, p.band[0]) for p in plans):
            continue
        lanes = plan_lanes_order(collect_interchangeable_loops(top), facts, options)
        if lanes is not None:
            plans.append(lanes)
    count = 0
    for plan in plans:
        where = mlir.location_of(plan.band[0], filename)
        if isinstance(plan, LanesOrder):
            _lanes_remark(plan, log, fname, filename, report_refusals)
            if plan.changes:
                rewriter.replace([plan.band[0]], lambda band=list(plan.band), order=plan.order:
                                 [loop_interchange(band, list(order))])
                count += 1
            continue
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


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `loop-order` (loopopt/pipeline.py)."""
    return loop_order_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
