"""Loop tiling (strip-mining) and the seed's GCD tile factor.

`loop_tiling(loop, N)` splits one affine.for into a tile loop that steps over blocks of N
iterations and a point loop inside it. Strip-mining alone never reorders iterations, so it is
always legal; moving tile loops outward (band tiling) is an interchange and is checked as one.

Two shapes, both correct for any trip count:
- constant bounds whose trip count N divides: the point loop is normalised, `0 to N*step`, and
  the old IV becomes `tile + point` inside the accesses' maps, so the point loop's bounds do not
  depend on the tile loop and it may later be interchanged outside it;
- otherwise: `tile to min(ub, tile + N*step)`, the form `mlir-opt --affine-loop-tile` emits, which
  keeps non-dividing and symbolic trip counts exact.

The seed's tile factor for a candidate fusion pair is N = GCD of the two loops' partition
(dim 0) extents, applied to both loops only when N > 1, remarked `[LOOP TILING] by N`.
"""
from __future__ import annotations

from math import gcd

from .. import mlir
from ..analysis.accesses import collect_accesses
from ..analysis.affine import NonAffine, Scope
from ..analysis.legality import induction_var, permutation_violation
from ..analysis.refusal import Code, Refusal
from ..analysis.loops import (body_block, constant_bounds, constant_trip_count, has_iter_args, is_outermost_loop,
                              known_trip_count, loop_dims, perfect_nest)
from ..mlir import affine_d, ir
from ..remarks import PASSED, RemarkLog
from .interchange import loop_interchange
from ..step import StepContext

TILING = "tiling"
STOP_NOTHING_TO_TILE = Code.TILING_NOTHING_TO_TILE.message
STOP_TILE_ORDER = Code.TILING_TILE_ORDER.message
# Ops whose trailing operands are the dims, then the symbols, of their "map" attribute.
MAP_OPS = {"affine.load": 1, "affine.store": 2, "affine.vector_load": 1, "affine.vector_store": 2,
           "affine.apply": 0, "affine.min": 0, "affine.max": 0}


def tiling_violation(loop: ir.Operation, n: int) -> str | None:
    """Why `loop` cannot be strip-mined by `n` (None if it can)."""
    if loop.name != "affine.for":
        return f"{loop.name} is not an affine.for"
    if n < 2:
        return f"tile size {n} must be at least 2"
    if has_iter_args(loop):
        return "the loop carries values through iter_args"
    return None


def loop_tiling(loop: ir.Operation, n: int) -> tuple[ir.Operation, ir.Operation]:
    """Strip-mine `loop` by `n`; returns (tile_loop, point_loop). `loop` is erased.

    Raises ValueError when `tiling_violation` refuses (no IR is changed then).
    """
    why = tiling_violation(loop, n)
    if why:
        raise ValueError(why)
    step = mlir.int_attr(loop, "step")
    lb_map = mlir.affine_map_attr(loop, "lowerBoundMap")
    ub_map = mlir.affine_map_attr(loop, "upperBoundMap")
    ops = list(loop.operands)
    n_lb = lb_map.n_dims + lb_map.n_symbols
    lb_ops, ub_ops = ops[:n_lb], ops[n_lb:n_lb + ub_map.n_dims + ub_map.n_symbols]
    width = n * step
    cb = constant_bounds(loop)
    normalised = cb is not None and cb[1] > cb[0] and (-(-(cb[1] - cb[0]) // step)) % n == 0
    with loop.context, loop.location:
        tile = affine_d.AffineForOp(lb_map, ub_map, width, lower_bound_operands=lb_ops,
                                    upper_bound_operands=ub_ops, ip=ir.InsertionPoint(loop))
        tile_iv = tile.induction_variable
        with ir.InsertionPoint(tile.body):
            if normalised:
                point = affine_d.AffineForOp(ir.AffineMap.get_constant(0), ir.AffineMap.get_constant(width), step)
            else:
                d = ir.AffineDimExpr.get(ub_map.n_dims)
                ub2 = ir.AffineMap.get(ub_map.n_dims + 1, ub_map.n_symbols,
                                       list(ub_map.results) + [d + width])
                ub2_ops = ub_ops[:ub_map.n_dims] + [tile_iv] + ub_ops[ub_map.n_dims:]
                point = affine_d.AffineForOp(ir.AffineMap.get_identity(1), ub2, step,
                                             lower_bound_operands=[tile_iv], upper_bound_operands=ub2_ops)
            affine_d.AffineYieldOp([])
        with ir.InsertionPoint(point.body):
            affine_d.AffineYieldOp([])
        point_op = point.operation
        _move_body(loop, point_op)
        old_iv, point_iv = induction_var(loop), point.induction_variable
        if normalised:
            _replace_iv_by_sum(old_iv, point_iv, tile_iv)
        else:
            old_iv.replace_all_uses_with(point_iv)
        loop.erase()
    return tile.operation, point_op


def _move_body(src: ir.Operation, dst: ir.Operation) -> None:
    """Move every op of `src`'s body but its terminator before `dst`'s terminator."""
    term = mlir.block_ops(body_block(dst))[-1]
    for op in mlir.block_ops(body_block(src))[:-1]:
        op.move_before(term)


def _replace_iv_by_sum(old: ir.Value, point: ir.Value, tile: ir.Value) -> None:
    """Every use of `old` becomes `point + tile`: folded into the map of affine map ops (so the
    nest stays perfect and accesses stay affine), through an affine.apply elsewhere."""
    by_key: dict[int, ir.Operation] = {}  # each user once: rebuilding a user erases it with all its uses
    for use in old.uses:
        u = mlir.operation(use.owner)
        by_key.setdefault(mlir.op_key(u), u)
    for user in list(by_key.values()):
        if user.name in MAP_OPS and _fold_into_map(user, old, point, tile):
            continue
        with ir.InsertionPoint(user):
            m = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(0) + ir.AffineDimExpr.get(1)])
            s = affine_d.AffineApplyOp(m, [point, tile])
        for k, v in enumerate(list(user.operands)):
            if v == old:
                user.operands[k] = s.result


def _fold_into_map(user: ir.Operation, old: ir.Value, point: ir.Value, tile: ir.Value) -> bool:
    """Rebuild an affine map op with `old` (a dim operand) replaced by `point + tile`."""
    prefix = MAP_OPS[user.name]
    m = mlir.affine_map_attr(user, "map")
    ops = list(user.operands)
    dims, syms = ops[prefix:prefix + m.n_dims], ops[prefix + m.n_dims:]
    if any(v == old for v in syms):
        return False
    new_dim = ir.AffineDimExpr.get(m.n_dims)
    exprs = list(m.results)
    for k, v in enumerate(dims):
        if v == old:
            exprs = [_subst_dim(e, k, ir.AffineDimExpr.get(k) + new_dim, m.n_dims + 1, m.n_symbols) for e in exprs]
    new_map = ir.AffineMap.get(m.n_dims + 1, m.n_symbols, exprs)
    new_dims = [point if v == old else v for v in dims] + [tile]
    attrs = dict(user.attributes.items())
    attrs["map"] = ir.AffineMapAttr.get(new_map)
    new = ir.Operation.create(user.name, results=[r.type for r in user.results],
                              operands=ops[:prefix] + new_dims + syms, attributes=attrs,
                              loc=user.location, ip=ir.InsertionPoint(user))
    for r_old, r_new in zip(user.results, new.results):
        r_old.replace_all_uses_with(r_new)
    user.erase()
    return True


def _subst_dim(e: ir.AffineExpr, k: int, repl: ir.AffineExpr, n_dims: int, n_syms: int) -> ir.AffineExpr:
    m = ir.AffineMap.get(n_dims, n_syms, [e])
    return m.replace(ir.AffineDimExpr.get(k), repl, n_dims, n_syms).results[0]


# ---------------------------------------------------------------------------------------------
# The seed's GCD tile factor


def partition_loop(loop: ir.Operation, scope: Scope | None = None, facts=None) -> ir.Operation | None:
    """The outermost loop of `loop`'s perfect nest whose IV indexes dim 0 (the partition dim).
    `facts` (an analysis.facts.Facts) supplies the accesses and the scope when given."""
    scope = facts.scope if facts is not None else scope or Scope()
    nest = perfect_nest(loop)
    try:
        accs = facts.accesses(loop) if facts is not None else collect_accesses(loop, scope)
    except NonAffine:
        return None
    for lp in nest:
        name = loop_dims(lp, scope)[0].name
        if any(a.rank >= 1 and a.uses_iv(name, 0) for a in accs):
            return lp
    return None


def partition_extent(loop: ir.Operation, scope: Scope | None = None, facts=None) -> int | None:
    """Number of partitions `loop` walks: the constant trip count of its partition loop."""
    p = partition_loop(loop, scope, facts)
    return known_trip_count(p) if p is not None else None


def gcd_tile_factor(l1: ir.Operation, l2: ir.Operation, facts=None) -> int:
    """The seed's N = GCD(partitionExtent(l1), partitionExtent(l2)); 1 (do not tile) if unknown.
    `facts`: memoized accesses to use (a driver asks once per refused pair)."""
    e1, e2 = partition_extent(l1, facts=facts), partition_extent(l2, facts=facts)
    if not e1 or not e2:
        return 1
    return gcd(e1, e2)


def gcd_tiling(l1: ir.Operation, l2: ir.Operation, log: RemarkLog | None = None, function: str = ""):
    """Tile the partition loops of both candidates by N = gcd_tile_factor(l1, l2) when N > 1.

    Returns ((tile1, point1), (tile2, point2)) or None when nothing was tiled. The outermost loops
    of the two nests may be replaced: callers must take the new nests from the result.
    """
    n = gcd_tile_factor(l1, l2)
    p1, p2 = partition_loop(l1), partition_loop(l2)
    if n <= 1 or p1 is None or p2 is None or tiling_violation(p1, n) or tiling_violation(p2, n):
        return None
    where = mlir.location_of(l1)
    r1 = loop_tiling(p1, n)
    r2 = loop_tiling(p2, n)
    if log is not None:
        log.add(TILING, PASSED, f"[LOOP TILING] by {n}", function=function, location=where,
                args={"factor": n}, trace=True)  # the seed's log line
    return r1, r2


# ---------------------------------------------------------------------------------------------
# Standalone pass


def tile_band(root: ir.Operation, size: int) -> tuple[list[ir.Operation], Refusal | None]:
    """Tile the perfect band rooted at `root` by `size` in every loop whose trip count exceeds it,
    then move the tile loops outside the point loops if that is legal.

    Returns the band's new loops (outermost first) and why the tile loops stayed in place, if so.
    """
    band = perfect_nest(root)
    while band and has_iter_args(band[-1]):
        band.pop()
    chosen = [lp for lp in band if (constant_trip_count(lp) or size + 1) > size and not tiling_violation(lp, size)]
    if not chosen:
        return band, Refusal(Code.TILING_NOTHING_TO_TILE, ops=tuple(band))
    outer, tiles = band[0], []
    for lp in chosen:
        was_outer = lp == outer
        tile, _ = loop_tiling(lp, size)
        tiles.append(tile)
        if was_outer:
            outer = tile
    nest = perfect_nest(outer)
    # Strip-mined order is (t0, p0, t1, p1, ...); band tiling wants every tile loop first.
    is_tile = [any(lp == t for t in tiles) for lp in nest]
    perm = [k for k in range(len(nest)) if is_tile[k]] + [k for k in range(len(nest)) if not is_tile[k]]
    if perm == list(range(len(nest))):
        return nest, None
    why = permutation_violation(nest, perm, Scope())
    if why:
        return nest, Refusal(Code.TILING_TILE_ORDER, why, tuple(nest))
    return loop_interchange(nest, perm), None


def tile_pass(module: ir.Module, options, log: RemarkLog, size: int) -> int:
    """`--passes=tile=SIZE`: tile every outermost perfect band by SIZE; returns bands tiled."""
    return sum(tile_function(fn, options, log, size) for fn in mlir.functions(module))


def tile_function(fn: ir.Operation, options, log: RemarkLog, size: int, filename: str = "<input>") -> int:
    """tile_pass on one function."""
    count = 0
    name = mlir.func_name(fn)
    roots = [o for o in mlir.walk(fn) if o.name == "affine.for" and is_outermost_loop(o)]
    for root in roots:
        where = mlir.location_of(root, filename)
        nest, why = tile_band(root, size)
        if why is not None and why.message == STOP_NOTHING_TO_TILE:
            log.refused(TILING, why, function=name, location=where)
            continue
        count += 1
        log.add(TILING, PASSED, f"[LOOP TILING] by {size}", function=name, location=where,
                args={"factor": size, "depth": len(nest)}, trace=True)
        if why is not None:
            log.refused(TILING, why, function=name, location=where)
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `tiling` (loopopt/pipeline.py)."""
    return tile_function(fn, ctx.options, ctx.log, ctx.argument, ctx.filename)
