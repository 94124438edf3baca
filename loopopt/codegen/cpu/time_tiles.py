"""Time tiles (cpu): a stencil's time loop and its sweeps tiled together (PLUTO's time tiling).

Applies a `plan.time_tiles.TimeTilePlan` (the rule, the skew and the legality are in
codegen/cpu/plan/time_tiles.py). For T = `for t { S_0: for i {..}; ...; S_{K-1}: for i {..} }`
it builds, in T's place,

    for tt = lbT to ubT step Bt
      for xx = X0 + f K (tt - lbT) to X1 + f K (tt - lbT) + f K Bt step Bx
        for t = tt to min(tt + Bt, ubT)
          for i = max(lb_0, xx - f (K (t - lbT) + 0)) to min(ub_0, xx + Bx - f (K (t - lbT) + 0))
            S_0's body
          ...                                   // one loop per sweep, in their order

the sweeps' bodies moved into the new loops (T's counter and theirs replaced). Symbolic bounds
stay symbolic (the maps take the bounds' operands); a loop that runs zero times runs zero times.

Remarks (pass `time-tiles`): `[TIME TILING] ...` (Passed) with the block, the skew and the
width; `[STOP TIME TILING] ...` (Missed) for a refused time loop (a quiet code only when the step
is named in --passes).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_block, body_ops, loop_bound
from ...mlir import ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from ...transforms.rewriter import Rewriter
from .plan.time_tiles import PASS, TimeTilePlan, candidates, plan_time_tiles

DONE = "[TIME TILING]"


def _identity(v: ir.Value) -> tuple[ir.AffineMap, list[ir.Value]]:
    return ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0)]), [v]


def combine(parts: list[tuple[ir.AffineMap, list[ir.Value]]], fn) -> tuple[ir.AffineMap, list[ir.Value]]:
    """One affine map whose results are `fn(e_0, e_1, ...)`, e_k the single result of part k,
    over the parts' operands (every part's dims first, then every part's symbols)."""
    nd = sum(m.n_dims for m, _ in parts)
    ns = sum(m.n_symbols for m, _ in parts)
    exprs, dims, syms = [], [], []
    d_off = s_off = 0
    for m, ops in parts:
        e = m.results[0].shift_dims(m.n_dims, d_off).shift_symbols(m.n_symbols, s_off)
        exprs.append(e)
        dims += ops[:m.n_dims]
        syms += ops[m.n_dims:]
        d_off += m.n_dims
        s_off += m.n_symbols
    results = [ir.AffineExpr.simplify_affine_expr(r, nd, ns) for r in fn(*exprs)]
    return ir.AffineMap.get(nd, ns, results), dims + syms


def _origin(plan: TimeTilePlan, which: str, pick) -> tuple[ir.AffineMap, list[ir.Value]]:
    """The bound of the sweep whose bound is the tiles' origin (X0, or X1 for "ub"): the first
    sweep when all are equal, else the one with the least (greatest) constant."""
    best, value = plan.sweeps[0], None
    for s in plan.sweeps:
        m, _ = loop_bound(s, which)
        e = m.results[0]
        if isinstance(e, ir.AffineConstantExpr) and (value is None or pick(e.value, value) == e.value):
            best, value = s, e.value
    return loop_bound(best, which)


def build_time_tiles(plan: TimeTilePlan) -> ir.Operation:
    """The tiled nest, built before T with the sweeps' bodies moved into it; T is left with empty
    sweeps for the caller to erase. Returns the outermost new loop."""
    t_loop, f, bt, bx = plan.loop, plan.skew, plan.time_block, plan.width
    k_count = len(plan.sweeps)
    fk = f * k_count
    lb_t, ub_t = loop_bound(t_loop, "lb"), loop_bound(t_loop, "ub")
    loc = t_loop.location
    with t_loop.context, loc:
        blocks = mlir.affine_for(lb_t, ub_t, bt, [], ir.InsertionPoint(t_loop), loc)
        tt = body_block(blocks).arguments[0]
        at_tt = ir.InsertionPoint(mlir.block_ops(body_block(blocks))[-1])
        x_lo = combine([_origin(plan, "lb", min), _identity(tt), lb_t], lambda o, a, lo: [o + (a - lo) * fk])
        x_hi = combine([_origin(plan, "ub", max), _identity(tt), lb_t],
                       lambda u, a, lo: [u + (a - lo) * fk + fk * bt])
        tiles = mlir.affine_for(x_lo, x_hi, bx, [], at_tt, loc)
        xx = body_block(tiles).arguments[0]
        at_xx = ir.InsertionPoint(mlir.block_ops(body_block(tiles))[-1])
        steps = mlir.affine_for(_identity(tt), combine([_identity(tt), ub_t], lambda a, u: [a + bt, u]), 1, [], at_xx, loc)
        t = body_block(steps).arguments[0]
        at_t = ir.InsertionPoint(mlir.block_ops(body_block(steps))[-1])
        body_block(t_loop).arguments[0].replace_all_uses_with(t)
        for k, s in enumerate(plan.sweeps):
            lo = combine([loop_bound(s, "lb"), _identity(xx), _identity(t), lb_t],
                         lambda lb, x, tv, l0, k=k: [lb, x - ((tv - l0) * k_count + k) * f])
            hi = combine([loop_bound(s, "ub"), _identity(xx), _identity(t), lb_t],
                         lambda ub, x, tv, l0, k=k: [ub, x + bx - ((tv - l0) * k_count + k) * f])
            row = mlir.affine_for(lo, hi, 1, [], at_t, s.location)
            term = mlir.block_ops(body_block(row))[-1]
            body_block(s).arguments[0].replace_all_uses_with(body_block(row).arguments[0])
            for op in body_ops(s):
                op.move_before(term)
    return blocks


def describe(plan: TimeTilePlan) -> str:
    skew = f"skewed by {plan.skew}" if plan.skew else "unskewed"
    return (f"{DONE} {len(plan.sweeps)} sweep(s) in tiles of {plan.time_block} time steps x {plan.width} "
            f"points, {skew}: each tile's data stays in L1 across its time steps")


def time_tiles_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                        report_refusals: bool = True) -> int:
    """Plan and apply every candidate time loop of the function; returns how many were tiled.
    A refused candidate gets a Missed remark unless its code is quiet (then only with
    `report_refusals`, the step's explained form)."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    for t_loop in candidates(fn):
        facts = Facts()
        plan = plan_time_tiles(t_loop, facts, options)
        where = mlir.location_of(t_loop, filename)
        if plan.refusal is not None:
            if report_refusals or not plan.refusal.code.quiet:
                log.refused(PASS, plan.refusal, function=fname, location=where)
            continue
        args = {"sweeps": len(plan.sweeps), "skew": plan.skew, "time_block": plan.time_block, "width": plan.width}
        text = describe(plan)

        def build(plan=plan):
            new = build_time_tiles(plan)
            mlir.erase_innermost_first(plan.loop)
            return [[new]]

        Rewriter(facts).replace([t_loop], build)
        log.add(PASS, PASSED, text, function=fname, location=where, args=args)
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `time-tiles` (loopopt/pipeline.py)."""
    with fn.context:
        return time_tiles_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
