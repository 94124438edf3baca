"""Transpose blocking (cpu): a band that reads along columns what it writes along rows walks its
strips one cache line wide.

codegen/cpu/plan/locality.py's `plan_transpose_block` finds the band (the innermost loop walks one access
contiguously and one load across rows, which an outer loop of the band walks contiguously) and
the strip: one 64-byte cache line of the load's elements. This step strip-mines the innermost
loop by it (`tiling.loop_tiling`, normalised: the point loop's bounds do not depend on the strip
loop) and moves the strip loop just outside the loop the load walks contiguously. The lines of
one strip then stay in L1 while the loops inside walk along them: without it, a power-of-two row
length maps every line of the column walk to a few cache sets, and each line is evicted before
its next element is read (torch-mlir's transposed weights: 0.25 ms per 512 x 256 f32 copy on this
machine, 20 us blocked).

Legality: the strip-mined band's permutation must keep every dependence's direction
(`legality.permutation_violation`, exact with isl), checked on a scratch copy before the real
band is touched. Reordering keeps each element's sequence of updates: results are bit-exact.

Remarks (pass `block-transposes`): `[BLOCK TRANSPOSE] ...` (Passed) per blocked band, naming
the strip and the loop it is placed outside; with `report_refusals`, `[STOP BLOCK TRANSPOSE] ...`
(Missed) when the reordering would reverse a dependence.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...analysis.facts import Facts
from ...analysis.legality import permutation_violation
from ...analysis.loops import perfect_nest
from ...mlir import ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...transforms.interchange import loop_interchange
from ...transforms.rewriter import Rewriter
from ...transforms.tiling import loop_tiling
from .loop_order import bands
from .plan.locality import CACHE_LINE_BYTES, TransposeBlock, plan_transpose_block
from ...step import StepContext

PASS = "block-transposes"


def tile_order(depth: int, level: int, tile_level: bool, inner_tiles_outside: bool = False) -> list[int]:
    """The permutation of a tiled band of `depth` loops: its innermost loop strip-mined (..., I
    tile, I point) and, with `tile_level`, band[level] too (K tile, K point at level, level + 1).
    The tile loops go to `level`, K's first (I's with `inner_tiles_outside`: the shorter sweep
    inside, plan/locality.py); the point loops keep their order inside them, the innermost point
    loop innermost."""
    if not tile_level:
        return [*range(level), depth - 1, *range(level, depth - 1), depth]
    tiles = [depth, level] if inner_tiles_outside else [level, depth]
    return [*range(level), *tiles, level + 1, *range(level + 2, depth), depth + 1]


def _tiled(top: ir.Operation, plan: TransposeBlock) -> list[ir.Operation]:
    """Strip-mine the plan's loops in the band under `top` (the plan's band or a copy of it);
    returns the band's loops in their strip-mined order (the permutation's input)."""
    depth = len(plan.band)
    loop_tiling(perfect_nest(top)[depth - 1], plan.lines)
    if plan.tile_level:
        tile, _ = loop_tiling(perfect_nest(top)[plan.level], plan.lines)
        if plan.level == 0:
            top = tile
    return perfect_nest(top)[:depth + 1 + plan.tile_level]


def _order(plan: TransposeBlock) -> list[int]:
    return tile_order(len(plan.band), plan.level, plan.tile_level, plan.inner_tiles_outside)


def transpose_violation(plan: TransposeBlock) -> str | None:
    """Why the plan's reordering would reverse a dependence (checked on a copy of the band,
    which is then erased), or None."""
    top = plan.band[0]
    with top.context, top.location:
        copy = mlir.operation(top.clone(ip=ir.InsertionPoint(top)))
    holder = [copy]
    try:
        nest = _tiled(copy, plan)
        holder = [nest[0]]
        return permutation_violation(nest, _order(plan), Scope())
    finally:
        holder[0].erase()


def block_transpose(plan: TransposeBlock) -> list[ir.Operation]:
    """Tile and reorder the plan's band (legal: transpose_violation said None); returns its new
    loops, outermost first."""
    return loop_interchange(_tiled(plan.band[0], plan), _order(plan))


def block_transposes_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                                report_refusals: bool = True) -> int:
    """Block every transposing band of `fn`; returns the number blocked."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    facts = Facts()
    rewriter = Rewriter(facts)
    plans = [p for p in (plan_transpose_block(b, facts) for b in bands(fn)) if p is not None]
    count = 0
    for plan in plans:
        where = mlir.location_of(plan.band[0], filename)
        why = transpose_violation(plan)
        if why is not None:
            if report_refusals:
                log.add(PASS, MISSED, f"[STOP BLOCK TRANSPOSE] {why}", function=fname, location=where)
            continue
        outside = mlir.location_of(plan.band[plan.level], filename)  # before the band is rewritten
        rewriter.replace([plan.band[0]], lambda plan=plan: [block_transpose(plan)])
        shape = (f"{plan.lines} x {plan.lines} tiles of the loop at {outside} and the innermost loop"
                 + (" (the innermost loop's tiles outside: the shorter sweep inside)" if plan.inner_tiles_outside else "")
                 if plan.tile_level else
                 f"strips of {plan.lines} iterations of the innermost loop, outside the loop at {outside}")
        log.add(PASS, PASSED, f"[BLOCK TRANSPOSE] {shape} (one {CACHE_LINE_BYTES}-byte cache line a side): the "
                f"column walk reuses {plan.lines} cache lines instead of touching one per iteration",
                function=fname, location=where,
                args={"lines": plan.lines, "level": plan.level, "tile_level": plan.tile_level,
                      "inner_tiles_outside": plan.inner_tiles_outside,
                      "loops_added": 1 + plan.tile_level})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `block-transposes` (loopopt/pipeline.py)."""
    return block_transposes_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
