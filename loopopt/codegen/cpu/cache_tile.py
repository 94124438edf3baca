"""Cache tiling (cpu): a matrix product cut into blocks for L2 and L3 around its register tile.

Applies codegen/cpu/plan/cache_plan.py's CachePlan (the size model and the conditions are there).
For the nest `Q: for i { P: for j { R: for k { C[i, j] += A[i, k] * B[k, j] } } }` with blocks
nc (columns), kc (the reduction) and mc (rows) it builds, in place of Q:

    for jc = lbP to mainP step nc {          // whole column blocks
      for kb = lbR to mainR step kc {        // whole reduction blocks
        for ib = lbQ to mainQ step mc {      // whole row blocks
          for i = ib to ib + mc { for j = jc to jc + nc { for k = kb to kb + kc { body } } }
        }
        for i = mainQ to ubQ { ... }         // the rows left over, same j and k ranges
      }
      for k = mainR to ubR: the same row blocks and rows left over
    }
    the columns left over (mainP to ubP): the same reduction and row blocks

(`main = lb + ((ub - lb) floordiv block) * block`, symbolic bounds alike; a remainder that is
empty at compile time is not built). Every innermost band has single bounds, so the register
tiler (codegen/cpu/register_tile.py, the next step but LICM) takes each one as it is. The order of
the iterations changes, so the plan is applied only where the strip-mined band may be permuted
into it (`legality.permutation_violation`, exact with isl; checked on a scratch copy first); each
element of C keeps its sequence of updates (the reduction's blocks run in order, C stored after
one and loaded by the next): results are bit-exact.

Remarks (pass `cache-tile`, by default): `[CACHE TILING] ...` (Passed) per blocked nest with its
blocks and the caches they are for; `[STOP CACHE TILING] ...` (Missed) for a product whose B
panel exceeds half of L2 and whose blocks are refused, or whose reduction may not be cut.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...analysis.facts import Facts
from ...analysis.legality import permutation_violation
from ...analysis.loops import body_block, body_ops, loop_bound, perfect_nest
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import ANALYSIS, MISSED, PASSED, RemarkLog
from ...step import StepContext
from ...transforms.tiling import loop_tiling
from .plan.cache_plan import CacheCode, CachePlan, plan_cache_tiles, register_sum
from .plan.cpu_plan import reductions_of
from .register_tile import multiple_bound, start_of_rest

PASS = "cache-tile"
TILED = "[CACHE TILING]"


def band_of(plan: CachePlan) -> list[ir.Operation]:
    """The loops whose ranges the blocks cut, outermost first: Q, then P when the columns or the
    reduction are blocked, then R when the reduction is."""
    if plan.kc:
        return [plan.rows, plan.cols, plan.red]
    if plan.nc:
        return [plan.rows, plan.cols]
    return [plan.rows]


def blocked_levels(plan: CachePlan) -> list[tuple[int, int]]:
    """(band level, block) of each blocked loop, in the order their block loops nest: the
    columns (L3), the reduction (L2, B's micro-panels), the rows (L2, A's block)."""
    out = []
    for level, size in ((1, plan.nc), (2, plan.kc), (0, plan.mc)):
        if size:
            out.append((level, size))
    return out


# ----------------------------------------------------------------------------- the sum in memory

def sum_to_memory(p: ir.Operation) -> bool:
    """Put the sum P's reduction loop carries back in memory when it is scalar replacement's form
    of a memory reduction (`cache_plan.register_sum`): R's iteration loads the element, combines
    and stores it, R carries nothing, P's load and store go. Returns whether it did."""
    found = register_sum(p)
    if found is None:
        return False
    ld, r, st = found
    (red,), _ = reductions_of(r)
    lo, hi = loop_bound(r, "lb"), loop_bound(r, "ub")
    with r.context:
        new = mlir.affine_for(lo, hi, mlir.int_attr(r, "step"), [], ir.InsertionPoint(r), r.location)
        term = mlir.block_ops(body_block(new))[-1]
        first = ld.clone(ip=ir.InsertionPoint(term))
        for op in mlir.block_ops(body_block(r))[:-1]:
            op.move_before(term)
        block = body_block(r)
        block.arguments[0].replace_all_uses_with(body_block(new).arguments[0])
        block.arguments[1].replace_all_uses_with(first.results[0])
        store = st.clone(ip=ir.InsertionPoint(term))
        store.operands[0] = red.op.results[0]
    st.erase()
    mlir.erase_innermost_first(r)
    ld.erase()
    return True


# ----------------------------------------------------------------------------- legality

def blocked_order(depth: int, levels: list[int]) -> list[int]:
    """The permutation of a band of `depth` loops whose `levels` (in their nesting order) were
    strip-mined in place (level l becomes a tile loop followed by its point loop): the tile loops
    first, in `levels`' order, then every point loop (and the loops not strip-mined) in the
    band's order."""
    pos, tile_pos = [], {}
    for level in range(depth):
        if level in levels:
            tile_pos[level] = len(pos)
            pos.append(("tile", level))
        pos.append(("point", level))
    tiles = [tile_pos[lv] for lv in levels]
    points = [k for k, (kind, _) in enumerate(pos) if kind == "point"]
    return tiles + points


def order_violation(plan: CachePlan) -> str | None:
    """Why the blocked order would reverse a dependence, or None: the band is copied, made
    perfect on the copy (the pure ops beside an inner loop moved into the innermost body, where
    they compute the same values; a sum carried from its element put back in memory,
    `sum_to_memory`), each blocked loop strip-mined, and the permutation that puts the block
    loops outside checked with isl; the copy is then erased."""
    band = band_of(plan)
    levels = [lv for lv, _ in blocked_levels(plan)]
    sizes = dict(blocked_levels(plan))
    top = band[0]
    with top.context, top.location:
        copy = mlir.operation(top.clone(ip=ir.InsertionPoint(top)))
    holder = [copy]
    try:
        why = _make_perfect(copy, len(band), bool(plan.kc))
        if why is not None:
            return why
        for level in sorted(levels, reverse=True):  # innermost first: the outer loops stay where they are
            loop = perfect_nest(holder[0])[level]
            tile, _ = loop_tiling(loop, sizes[level])
            if level == 0:
                holder[0] = tile
        depth = len(band) + len(levels)
        nest = perfect_nest(holder[0])[:depth]
        return permutation_violation(nest, blocked_order(len(band), levels), Scope())
    finally:
        holder[0].erase()


def _make_perfect(top: ir.Operation, depth: int, reduction: bool) -> str | None:
    """Make the band of `depth` loops under `top` (a scratch copy) perfect: the ops beside each
    inner loop (pure: the plan checked) moved to the top of the innermost band loop's body, in
    order; with `reduction`, the sum of the loop to block put back in memory. None, or why not."""
    loops = [top]
    while len(loops) < depth:
        inner = [o for o in body_ops(loops[-1]) if o.name == "affine.for"]
        if len(inner) != 1:
            return "the band is not a nest of single loops"
        loops.append(inner[0])
    if reduction and depth == 3 and register_sum(loops[1]) is not None:
        sum_to_memory(loops[1])
        loops[2] = next(o for o in body_ops(loops[1]) if o.name == "affine.for")
    first = mlir.block_ops(body_block(loops[-1]))[0]
    for outer, inner in zip(loops, loops[1:]):
        ops = [o for o in body_ops(outer) if o != inner and o.name != "affine.yield"]
        after = [o for o in ops if mlir.block_ops(body_block(outer)).index(o) > mlir.block_ops(body_block(outer)).index(inner)]
        if after:
            return f"{after[0].name} at {mlir.location_of(after[0])} follows the inner loop"
        for o in ops:
            o.move_before(first)
    return None


# ----------------------------------------------------------------------------- blocks

def _constant(bound: tuple) -> int | None:
    m, _ = bound
    if len(m.results) != 1:
        return None
    e = m.results[0]
    return e.value if isinstance(e, ir.AffineConstantExpr) else None


def _empty(lo: tuple, hi: tuple) -> bool:
    a, b = _constant(lo), _constant(hi)
    return a is not None and b is not None and a >= b


def _at_end(loop: ir.Operation) -> ir.InsertionPoint:
    return ir.InsertionPoint(mlir.block_ops(body_block(loop))[-1])


def _leaf(band: list[ir.Operation], ranges: list[tuple], ip) -> ir.Operation:
    """A copy of the band at `ip` whose loops run over `ranges` ((lower, upper) per level): new
    loops, each holding the ops of the same level of a clone of the band (moved, in order: the
    pure ops beside the next loop of the band, or the load and store around a sum the reduction
    loop carries, then the innermost body), the clone's IVs, carried values and results replaced
    by the new loops'."""
    clone = mlir.operation(band[0].clone(ip=ip))

    def level(old: ir.Operation, d: int, at) -> ir.Operation:
        lo, hi = ranges[d]
        n_bound = len(loop_bound(old, "lb")[1]) + len(loop_bound(old, "ub")[1])
        inits = list(old.operands)[n_bound:]
        new = mlir.affine_for(lo, hi, 1, inits, at, band[d].location)
        block = body_block(new)
        ops = mlir.block_ops(body_block(old))
        if inits:  # the innermost level: its body and its yield move as they are
            _append(ops[0], block)
            for prev, op in zip(ops, ops[1:]):
                op.move_after(prev)
        else:
            term = mlir.block_ops(block)[-1]
            for op in ops[:-1]:
                if d + 1 < len(band) and op.name == "affine.for" and _is_next(old, op):
                    level(op, d + 1, ir.InsertionPoint(term))
                else:
                    op.move_before(term)
        for a, b in zip(body_block(old).arguments, block.arguments):
            a.replace_all_uses_with(b)
        for a, b in zip(old.results, new.results):
            a.replace_all_uses_with(b)
        return new

    top = level(clone, 0, ip)
    mlir.erase_innermost_first(clone)
    return top


def _append(op: ir.Operation, block: ir.Block) -> None:
    """Move `op` to the end of an empty block."""
    with ir.InsertionPoint(block), op.location:
        anchor = affine_d.AffineYieldOp([])
    op.move_before(anchor.operation)
    anchor.operation.erase()


def _is_next(parent: ir.Operation, op: ir.Operation) -> bool:
    """Whether `op` is the one affine.for in `parent`'s body (the band's next level)."""
    return [o for o in body_ops(parent) if o.name == "affine.for"] == [op]


def build_blocks(plan: CachePlan) -> list[ir.Operation]:
    """The blocked nests (module doc) before the plan's band; returns the new top-level ops
    (the band is left for the caller to erase)."""
    band = band_of(plan)
    blocks = blocked_levels(plan)
    top = band[0]
    out: list[ir.Operation] = []

    def emit(ip, k: int, ranges: list[tuple], top_level: bool) -> None:
        if k == len(blocks):
            leaf = _leaf(band, ranges, ip)
            if top_level:
                out.append(leaf)
            return
        level, size = blocks[k]
        lo, hi = ranges[level]
        main = multiple_bound(lo, hi, size)
        if not _empty(lo, main):
            loop = mlir.affine_for(lo, main, size, [], ip, band[level].location)
            if top_level:
                out.append(loop)
            iv = body_block(loop).arguments[0]
            d0 = ir.AffineDimExpr.get(0)
            with band[level].location:
                block = (ir.AffineMap.get(1, 0, [d0]), [iv]), (ir.AffineMap.get(1, 0, [d0 + size]), [iv])
            emit(_at_end(loop), k + 1, ranges[:level] + [block] + ranges[level + 1:], False)
        if not _empty(main, hi):
            rest = (start_of_rest(main, lo, hi), hi)
            emit(ip, k + 1, ranges[:level] + [rest] + ranges[level + 1:], top_level)

    with top.context:
        emit(ir.InsertionPoint(top), 0, [(loop_bound(lp, "lb"), loop_bound(lp, "ub")) for lp in band], True)
    return out


# ----------------------------------------------------------------------------- remarks

def _bytes(n: int) -> str:
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n % scale == 0:
            return f"{n // scale}{unit}"
    return f"{n} bytes"


def _extent(n: int | None) -> str:
    return "?" if n is None else str(n)


def describe(plan: CachePlan) -> str:
    """The Passed remark: the product, its tile, each block and the cache it is for."""
    s = plan.sizes
    l1, l2, l3 = plan.caches
    k_block = plan.kc or s.k
    parts = []
    if plan.kc:
        parts.append(f"the reduction in blocks of {plan.kc} (B's {plan.kc} x {s.nr} micro-panel in L2)")
    if plan.mc:
        parts.append(f"rows in blocks of {plan.mc} (A's {plan.mc} x {_extent(k_block)} block in half of L2)")
    if plan.nc:
        parts.append(f"columns in blocks of {plan.nc} (B's {_extent(k_block)} x {plan.nc} panel in half of "
                     f"L3's share)")
    return (f"{TILED} {_extent(s.m)} x {_extent(s.n)} x {_extent(s.k)} product ({s.mr} x {s.nr} register tile): "
            f"{', '.join(parts)}; caches L1 {_bytes(l1)}, L2 {_bytes(l2)}, L3 {_bytes(l3)}")


def describe_unblocked(plan: CachePlan) -> str:
    s = plan.sizes
    why = ("the rows are kept whole beside B's micro-panel, B's panel fits L3's share"
           if any(r.code is CacheCode.ROWS for r in plan.partial) else "A's rows and B's panel fit L2 and L3's share")
    return (f"{TILED} {_extent(s.m)} x {_extent(s.n)} x {_extent(s.k)} product ({s.mr} x {s.nr} register tile): "
            f"no blocks: {why} ({_bytes(plan.caches[1])}, {_bytes(plan.caches[2])})")


def _args(plan: CachePlan) -> dict:
    s = plan.sizes
    return {"kc": plan.kc, "mc": plan.mc, "nc": plan.nc, "m": s.m, "n": s.n, "k": s.k, "mr": s.mr, "nr": s.nr,
            "caches": list(plan.caches)}


# ----------------------------------------------------------------------------- the step

def cache_tile_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Block every product nest of `fn` its plan blocks; returns the number blocked. Refusals of
    products whose B panel exceeds half of L2 are remarked (Missed) always."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    facts = Facts()
    from ...transforms.rewriter import Rewriter

    rewriter = Rewriter(facts)
    plans = plan_cache_tiles(fn, facts, options)
    count = 0
    for plan in plans:
        where = mlir.location_of(plan.cols, filename)
        if plan.refusal is not None:
            log.refused(PASS, plan.refusal, function=fname, location=where)
            continue
        for partial in plan.partial:
            log.refused(PASS, partial, function=fname, location=where)
        if not plan.blocked:
            log.add(PASS, ANALYSIS, describe_unblocked(plan), function=fname, location=where, args=_args(plan))
            continue
        why = order_violation(plan)
        if why is not None:
            log.add(PASS, MISSED, f"{CacheCode.ILLEGAL.message}: {why}", function=fname, location=where,
                    args={"code": CacheCode.ILLEGAL.name, "reason": why})
            continue
        text = describe(plan)
        target = band_of(plan)[0]
        rewriter.replace([target], lambda plan=plan, target=target: [_apply(plan, target)])
        log.add(PASS, PASSED, text, function=fname, location=where, args=_args(plan))
        count += 1
    return count


def _apply(plan: CachePlan, target: ir.Operation) -> list[ir.Operation]:
    new = build_blocks(plan)
    mlir.erase_innermost_first(target)
    return new


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `cache-tile` (loopopt/pipeline.py)."""
    return cache_tile_function(fn, ctx.options, ctx.log, ctx.filename)
