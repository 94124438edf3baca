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
from ...analysis.loops import body_block
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext
from .plan.transpose_tiles import TransposeTile, plan_transpose_tiles, transpose_network, zip_mask

PASS = "transpose-tiles"


def _shifted(iv: ir.Value, by: int, ip: ir.InsertionPoint) -> ir.Value:
    """`iv + by` (the counter itself for 0)."""
    if by == 0:
        return iv
    amap = ir.AffineMap.get(1, 0, [ir.AffineExpr.get_dim(0) + ir.AffineExpr.get_constant(by)])
    return affine_d.AffineApplyOp(amap, [iv], ip=ip).result


def build_tile(plan: TransposeTile) -> None:
    """Replace the band's load and store by one tile's vector loads, shuffles and vector stores,
    and step both loops by the tile (module doc)."""
    w = plan.lanes
    load, store = plan.load, plan.store
    ip = ir.InsertionPoint(load)
    a_iv, b_iv = body_block(plan.a).arguments[0], body_block(plan.b).arguments[0]
    with load.location:
        vt = ir.VectorType.get([w], load.results[0].type)
        rows = []
        for i in range(w):
            b_i = _shifted(b_iv, i, ip)
            operands = [b_i if v == b_iv else v for v in list(load.operands)]
            rows.append(ir.Operation.create("affine.vector_load", results=[vt], operands=operands,
                                            attributes={"map": load.attributes["map"]}, ip=ip).result)
        cols = rows
        for stage in transpose_network(w):
            cols = [ir.Operation.create("vector.shuffle", results=[vt], operands=[cols[x], cols[y]],
                                        attributes={"mask": ir.DenseI64ArrayAttr.get(zip_mask(w, high))},
                                        ip=ip).result for x, y, high in stage]
    with store.location:
        for k in range(w):
            a_k = _shifted(a_iv, k, ip)
            indices = [a_k if v == a_iv else v for v in list(store.operands)[2:]]
            ir.Operation.create("affine.vector_store", operands=[cols[k], store.operands[1], *indices],
                                attributes={"map": store.attributes["map"]}, ip=ip)
    store.erase()
    load.erase()
    for loop in (plan.outer, plan.inner):
        loop.attributes["step"] = ir.IntegerAttr.get(ir.IndexType.get(), w)


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
            build_tile(plan)
            stages = w.bit_length() - 1
            log.add(PASS, PASSED, f"[TRANSPOSE TILE] a {ta} x {tb} transposing copy in {w} x {w} tiles, each {w} "
                    f"vector loads, {w * stages} shuffles and {w} vector stores",
                    function=fname, location=where,
                    args={"lanes": w, "tiles": (ta // w) * (tb // w), "shuffles_per_tile": w * stages})
            count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `transpose-tiles` (loopopt/pipeline.py)."""
    return transpose_tiles_function(fn, ctx.options, ctx.log, ctx.filename)
