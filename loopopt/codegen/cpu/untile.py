"""Untiling (cpu): a strip-mined loop becomes one flat loop again.

A 1-D loop tiled by a small factor (`for ii = lb to ub step 4 { for i = ii to min(ii + 4, ub) }`)
runs its inner loop a handful of times under a `min` bound, which the CPU back end neither
vectorizes nor unrolls well; the flat loop over the same integers it vectorizes (the tiled
symbolic chain of the benchmarks runs at about half the streaming bandwidth tiled).

Rule. An `affine.for` T with a constant step s > 1 and no iter_args, whose body is exactly one
`affine.for` P with step 1 and no iter_args (and the terminator), where T's induction variable is
used only as an operand of P's bounds, is replaced by one loop F with T's bound maps and operands,
step 1, and P's body, when the pair visits the integers of T's range in increasing order, each
once. With D = { [t, p] : T's and P's constraints } (symbols and the IVs of the loops around T
stay parameters, so the proof holds for every value of them), checked with isl:

1. the projection of D on p equals { p : max(T's lower bounds) <= p < min(T's upper bounds) };
2. each p has one t (D read as a map p -> t is single-valued);
3. t never decreases as p increases.

Then F runs P's body on the same values of p in the same order as the nest did, so the program
is unchanged whatever the body does: no dependence check is needed. Anything else (more ops in
T's body, T's IV used in P's body, a point range that skips, repeats or reorders integers) is
left alone. Runs on the cpu target only: on the Neuron targets tiling follows the partition
dimension (seed 001) and stays.
"""
from __future__ import annotations

import islpy as isl

from ... import mlir
from ...analysis.affine import NonAffine, Scope
from ...analysis.loops import body_block, body_ops, has_iter_args, loop_dims
from ...mlir import ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext

PASS = "untile"
UNTILED = "[UNTILE] strip-mined loop collapsed into one loop over the same iterations"


def strip_mined_point_loop(tile: ir.Operation) -> ir.Operation | None:
    """The point loop P if `tile` has the shape of a strip-mined loop (see the module docstring:
    step > 1, one affine.for in the body, T's IV only in P's bounds), else None. Shape only; the
    iteration sets are checked by `untile_violation`."""
    if tile.name != "affine.for" or has_iter_args(tile) or mlir.int_attr(tile, "step") <= 1:
        return None
    ops = body_ops(tile)
    if len(ops) != 1 or ops[0].name != "affine.for":
        return None
    point = ops[0]
    if has_iter_args(point) or mlir.int_attr(point, "step") != 1:
        return None
    iv = body_block(tile).arguments[0]
    for use in iv.uses:
        if mlir.operation(use.owner) != point:
            return None
    return point


def untile_violation(tile: ir.Operation, point: ir.Operation, scope: Scope) -> str | None:
    """None iff the nest tile/point visits the integers of tile's range in increasing order, each
    once (conditions 1-3 of the module docstring, with isl), else why not."""
    try:
        (t,), (p,) = loop_dims(tile, scope), loop_dims(point, scope)
    except NonAffine as e:
        return f"a bound is not affine ({e})"
    if not t.bounded or not p.bounded:
        return "a loop is unbounded"
    outer = sorted({*scope.params, *_outer_ivs(tile, scope)} - {t.name, p.name})
    head = f"[{', '.join(outer)}] -> " if outer else ""
    both = " and ".join(t.constraints() + p.constraints())
    try:
        visits = isl.Map(f"{head}{{ [{p.name}] -> [{t.name}] : {both} }}")  # p -> the tile running it
        bounds = " and ".join([f"{p.name} >= {lb}" for lb in t.lower] + [f"{p.name} < {ub}" for ub in t.upper])
        flat = isl.Set(f"{head}{{ [{p.name}] : {bounds} }}")
        covered = visits.domain()
        flat, covered = flat.align_params(covered.get_space()), covered.align_params(flat.get_space())
        if not covered.is_equal(flat):
            return "the point loops do not cover the tile loop's range exactly"
        if not visits.is_single_valued():
            return "an iteration of the point loop runs in more than one tile"
        later = isl.Map(f"{head}{{ [a] -> [b] : a < b }}").align_params(visits.get_space())
        tiles = later.apply_domain(visits).apply_range(visits)  # { t1 -> t2 : p1 < p2 run in them }
        earlier = isl.Map(f"{head}{{ [a] -> [b] : a > b }}").align_params(tiles.get_space())
        if not tiles.intersect(earlier).is_empty():
            return "the point loops run their iterations out of order"
    except isl.Error as e:
        return f"isl could not read the bounds ({e})"
    return None


def _outer_ivs(op: ir.Operation, scope: Scope) -> list[str]:
    """Names of the IVs of the loops around `op` (parameters of the proof)."""
    from ...analysis.loops import domain_loops

    return [lp.name for lp in domain_loops(op, scope)]


def untile(tile: ir.Operation, point: ir.Operation) -> ir.Operation:
    """Replace the nest by one loop with tile's bounds, step 1 and point's body; returns it.
    Requires untile_violation(...) is None."""
    with tile.context, tile.location:
        flat_op = mlir.for_with_bounds_of(tile, 1, [], ir.InsertionPoint(tile))
        block = body_block(flat_op)
        old = body_block(point)
        old.arguments[0].replace_all_uses_with(block.arguments[0])
        anchor = ir.Operation.create("affine.yield", operands=[], ip=ir.InsertionPoint(block))
        for op in mlir.block_ops(old)[:-1]:
            op.move_before(anchor)
    tile.erase()
    return flat_op


def untile_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Untile every strip-mined loop of `fn` whose nest passes untile_violation;
    returns how many. A shape that matches but fails the proof gets a Missed remark."""
    fname = mlir.func_name(fn)
    scope = Scope()
    count = 0
    erased: set[int] = set()  # op_key of the loops untile() erased: never touched again
    for tile in [op for op in mlir.walk(fn) if op.name == "affine.for"]:
        if mlir.op_key(tile) in erased:
            continue  # a point loop of a nest already untiled (its body moved, the loop erased)
        point = strip_mined_point_loop(tile)
        if point is None:
            continue
        where = mlir.location_of(tile, filename)
        why = untile_violation(tile, point, scope)
        if why is not None:
            log.add(PASS, MISSED, f"[UNTILE] kept the strip-mined loop: {why}", function=fname, location=where)
            continue
        step = mlir.int_attr(tile, "step")
        erased |= {mlir.op_key(tile), mlir.op_key(point)}
        untile(tile, point)
        log.add(PASS, PASSED, UNTILED, function=fname, location=where, args={"step": step})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `untile` (loopopt/pipeline.py)."""
    return untile_function(fn, ctx.options, ctx.log, ctx.filename)
