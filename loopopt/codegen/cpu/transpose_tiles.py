"""Transposing copies in vector registers (cpu): W rows loaded, transposed by shuffles, stored.

Applies codegen/cpu/plan/transpose_tiles.py's TransposeTile (the rule and its exactness are
there). The band `for a { for b { dst[g(a, b)] = src[f(a, b)] } }` (in either loop order) steps
by W, and each iteration moves one W x W tile:

    r[i] = affine.vector_load src[f(a, b + i)]          (i < W: W lanes along a)
    log2(W) stages of W vector.shuffle interleaves      (r -> its columns c)
    affine.vector_store c[k], dst[g(a + k, b)]          (k < W: W lanes along b)

the shifted counters as `affine.apply`s. LLVM turns each interleave into one two-source permute
(vpermt2ps with AVX-512). The step runs after register tiling and before `panel-layout`, which
then rewrites the vector stores into the panels with the buffer's other accesses.

Remarks (pass `transpose-tiles`, by default): `[TRANSPOSE TILE] ...` (Passed) per band;
`[STOP TRANSPOSE TILE] ...` (Missed) for a transposing copy left element by element.
"""
from __future__ import annotations

from ... import mlir
from dataclasses import replace

from ...analysis.loops import body_block, constant_bounds, constant_trip_count
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext
from .plan.transpose_tiles import (EdgeBand, TransposeTile, edge_bands, mapped_copy_band, plan_transpose_tiles,
                                   transpose_network, zip_mask)

PASS = "transpose-tiles"


def _shifted(iv: ir.Value, by: int, ip: ir.InsertionPoint) -> ir.Value:
    """`iv + by` (the counter itself for 0)."""
    if by == 0:
        return iv
    amap = ir.AffineMap.get(1, 0, [ir.AffineExpr.get_dim(0) + ir.AffineExpr.get_constant(by)])
    return affine_d.AffineApplyOp(amap, [iv], ip=ip).result


def apply_maps(maps, load: ir.Operation, row: ir.Value, vt: ir.VectorType, ip: ir.InsertionPoint,
               splats: list) -> ir.Value:
    """The copy's elementwise ops applied to one row vector: each op's chain operand is the row
    so far, its other operands (defined outside the band) broadcast to the vector once per tile
    (`splats`: (value, vector) pairs)."""
    cur, prev = row, load.results[0]
    for op in maps:
        operands = []
        for v in op.operands:
            if v == prev:
                operands.append(cur)
                continue
            found = [vec for val, vec in splats if val == v]
            if not found:
                found = [ir.Operation.create("vector.broadcast", results=[vt], operands=[v], ip=ip).result]
                splats.append((v, found[0]))
            operands.append(found[0])
        attrs = {n: a for n, a in op.attributes.items()}
        cur_op = ir.Operation.create(op.name, results=[vt], operands=operands, attributes=attrs, ip=ip)
        cur, prev = cur_op.result, op.results[0]
    return cur


def _index_at(v: ir.Value, iv: ir.Value, new: ir.Value, ip: ir.InsertionPoint) -> ir.Value:
    """The index operand `v` with the counter `iv` replaced by `new`: `new` for the counter, a
    copy of an `affine.apply` of it (the band's index arithmetic) on `new`, else `v`."""
    if v == iv:
        return new
    if new == iv:
        return v
    owner = None if isinstance(v.owner, ir.Block) else mlir.operation(v.owner)
    if owner is not None and owner.name == "affine.apply" and any(o == iv for o in owner.operands):
        operands = [new if o == iv else o for o in owner.operands]
        return ir.Operation.create("affine.apply", results=[v.type], operands=operands,
                                   attributes={"map": owner.attributes["map"]}, ip=ip).result
    return v


def build_tile(plan: TransposeTile) -> None:
    """Replace the band's load and store by one tile's vector loads, shuffles and vector stores,
    and step both loops by the tile (module doc). Each operand load of a map op (plan.operands)
    becomes one vector load along a (or one element, broadcast) per tile."""
    w = plan.lanes
    load, store = plan.load, plan.store
    ip = ir.InsertionPoint(load)
    a_iv, b_iv = body_block(plan.a).arguments[0], body_block(plan.b).arguments[0]
    with load.location:
        vt = ir.VectorType.get([w], load.results[0].type)
        rows = []
        for i in range(w):
            b_i = _shifted(b_iv, i, ip)
            operands = [_index_at(v, b_iv, b_i, ip) for v in list(load.operands)]
            rows.append(ir.Operation.create("affine.vector_load", results=[vt], operands=operands,
                                            attributes={"map": load.attributes["map"]}, ip=ip).result)
        splats: list = []
        for op, along_a in plan.operands:
            if along_a:
                vec = ir.Operation.create("affine.vector_load", results=[vt], operands=list(op.operands),
                                          attributes={"map": op.attributes["map"]}, ip=ip).result
            else:
                one = op.clone(ip=ip)
                one = one.operation if hasattr(one, "operation") else one
                vec = ir.Operation.create("vector.broadcast", results=[vt], operands=[one.results[0]], ip=ip).result
            splats.append((op.results[0], vec))
        rows = [apply_maps(plan.maps, plan.load, r, vt, ip, splats) for r in rows]
        cols = rows
        for stage in transpose_network(w):
            cols = [ir.Operation.create("vector.shuffle", results=[vt], operands=[cols[x], cols[y]],
                                        attributes={"mask": ir.DenseI64ArrayAttr.get(zip_mask(w, high))},
                                        ip=ip).result for x, y, high in stage]
    with store.location:
        for k in range(w):
            a_k = _shifted(a_iv, k, ip)
            indices = [_index_at(v, a_iv, a_k, ip) for v in list(store.operands)[2:]]
            ir.Operation.create("affine.vector_store", operands=[cols[k], store.operands[1], *indices],
                                attributes={"map": store.attributes["map"]}, ip=ip)
    store.erase()
    for op in reversed(plan.maps):
        op.erase()
    load.erase()
    for op, _ in plan.operands:
        op.erase()
    for op in [o for o in body_block(plan.inner).operations if o.name == "affine.apply"]:
        if not list(op.results[0].uses):
            op.erase()
    for loop in (plan.outer, plan.inner):
        loop.attributes["step"] = ir.IntegerAttr.get(ir.IndexType.get(), w)


def _set_bounds(loop: ir.Operation, lo: int, hi: int) -> None:
    loop.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(lo))
    loop.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(hi))


def _restricted(plan: TransposeTile, band: EdgeBand, copy: bool) -> TransposeTile:
    """The plan on `band` of its iteration space: the band's own loops (`copy` False) or a copy
    of them placed after it, with the band's bounds."""
    outer = plan.outer
    if copy:
        outer = plan.outer.clone(ip=ir.InsertionPoint.after(plan.outer))
        outer = outer.operation if hasattr(outer, "operation") else outer
    inner, load, maps, store = mapped_copy_band(outer)
    a, b = (outer, inner) if plan.a == plan.outer else (inner, outer)
    _set_bounds(a, *band.a_range)
    _set_bounds(b, *band.b_range)
    return replace(plan, outer=outer, inner=inner, a=a, b=b, load=load, store=store, lanes=band.lanes, maps=maps)


def tile_with_edges(plan: TransposeTile) -> list[EdgeBand]:
    """Tile the band; a loop that is not a whole number of tiles runs its whole tiles in the band
    and the rest in edge bands after it (plan.edge_bands), each tiled by its own lanes or left
    element by element. Returns the bands."""
    ta, tb = plan.trips
    if ta % plan.lanes == 0 and tb % plan.lanes == 0:
        build_tile(plan)
        return [EdgeBand((0, ta), (0, tb), plan.lanes)]
    bands = edge_bands(constant_bounds(plan.a), constant_bounds(plan.b), plan.lanes)
    parts = [_restricted(plan, band, copy=True) for band in reversed(bands[1:])]
    parts.append(_restricted(plan, bands[0], copy=False))
    for part in parts:
        if part.lanes:
            build_tile(part)
    return bands


def transpose_tiles_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Move every transposing copy band of `fn` in vector tiles; returns how many."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    with fn.context:
        for plan in plan_transpose_tiles(fn, options):
            where = mlir.location_of(plan.outer, filename)
            ta, tb = plan.trips
            if plan.refusal is not None:
                log.add(PASS, MISSED, plan.refusal.text(), function=fname, location=where)
                continue
            w = plan.lanes
            through = f" through {', '.join(op.name for op in plan.maps)}" if plan.maps else ""
            if plan.operands:
                through += f" with {len(plan.operands)} operand(s) read once per tile"
            if plan.mid is not None:
                through += f", at each of the {constant_trip_count(plan.mid)} iterations of the loop between,"
            bands = tile_with_edges(plan)
            stages = w.bit_length() - 1
            edges = "".join(f"; {band.a_range[1] - band.a_range[0]} x {band.b_range[1] - band.b_range[0]} "
                            + (f"in {band.lanes} x {band.lanes} tiles" if band.lanes else "element by element")
                            for band in bands[1:])
            log.add(PASS, PASSED, f"[TRANSPOSE TILE] a {ta} x {tb} transposing copy{through} in {w} x {w} tiles, each {w} "
                    f"vector loads, {w * stages} shuffles and {w} vector stores{edges}",
                    function=fname, location=where,
                    args={"lanes": w, "tiles": (ta // w) * (tb // w), "shuffles_per_tile": w * stages})
            count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `transpose-tiles` (loopopt/pipeline.py)."""
    return transpose_tiles_function(fn, ctx.options, ctx.log, ctx.filename)
