"""B packed per column block (cpu): the transposing copy of a product's B runs at the head of each
column block of the register tile, into one reused buffer of the block's columns.

Applies codegen/cpu/plan/column_block_packing.py's BlockPacking (the rule and its exactness are
there), per copy and the product after it: the copy nest C is cloned at the head of the block
loop L (step NB), the clone's column loop runs `0 to NB` with its old counter as
`affine.apply(new + jb)` (with a reduction-block loop around L, its row loop `0 to KC` as
`new + kb` too), a new `memref.alloc` of KC x NB (R x NB without reduction blocks; 64-byte
aligned) is allocated beside the old buffer and freed before each of its deallocs, every access
`[r, e]` of the pair becomes `[r - kb, e - jb]` (jb and kb appended to the access's map
operands) and C is erased; the old buffer goes when only its deallocs are left. The isl checks
run on the built clone; a refused clone is erased and nothing else changes. The step runs after
register tiling (whose column blocks it uses) and before `transpose-tiles`, which then moves the
clone's tiles in vector registers.

Remarks (pass `pack-column-blocks`, by default): `[PACK B] ...` (Passed) per buffer;
`[STOP PACK B] ...` (Missed) when a transposed B that a register tile reads stays whole.
"""
from __future__ import annotations

import math

from ... import mlir
from ...analysis.affine import Scope
from ...analysis.accesses import access_pattern
from ...analysis.loops import body_block, constant_bounds, enclosing_loops, loop_dims
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .plan.column_block_packing import BlockPacking, PackCode, check_clone, check_tail, plan_block_packing
from ...analysis.refusal import Refusal
from .plan.panel_layout import tile_b_buffers

PASS = "pack-column-blocks"

MAP_OPERAND = {"affine.load": 1, "affine.vector_load": 1, "affine.store": 2}


def shift_access(op: ir.Operation, buf: ir.Value, jb: ir.Value | int, kb: ir.Value | None, width: int = 0) -> None:
    """Rebuild the access `op` on `buf` at `[r - kb, e - jb]` (`[r, e - jb]` without kb) for its
    `[r, e]`; with `width` > 0, at `[jb floordiv width, r, e - jb]` (a whole panel layout, kb
    unused); jb may be a constant (a nest of the columns left over). `op` is erased."""
    first = MAP_OPERAND[op.name]
    amap = mlir.affine_map_attr(op, "map")
    operands = list(op.operands)
    operands[first - 1] = buf
    nd = amap.n_dims
    dims, syms = operands[first:first + nd], operands[first + nd:]
    r, e = amap.results
    d_jb = ir.AffineExpr.get_dim(nd) if not isinstance(jb, int) else ir.AffineExpr.get_constant(jb)
    if isinstance(jb, int):
        extra, results = [], [r, e - d_jb]
    elif width:
        extra, results = [jb], [ir.AffineExpr.get_floor_div(d_jb, width), r, e - d_jb]
    else:
        extra = [jb] if kb is None else [jb, kb]
        if kb is not None:
            r = r - ir.AffineExpr.get_dim(nd + 1)
        results = [r, e - d_jb]
    new_map = ir.AffineMap.get(nd + len(extra), amap.n_symbols, results)
    attrs = {name: attr for name, attr in op.attributes.items()}
    attrs["map"] = ir.AffineMapAttr.get(new_map)
    with op.location:
        new = ir.Operation.create(op.name, results=[t.type for t in op.results],
                                  operands=operands[:first] + dims + extra + syms, attributes=attrs,
                                  ip=ir.InsertionPoint(op))
    for old, fresh in zip(op.results, new.results):
        old.replace_all_uses_with(fresh)
    op.erase()


def _at(ops_a: list, target: ir.Operation, ops_b: list) -> ir.Operation:
    """The op of `ops_b` at `target`'s position in `ops_a` (a walk of a nest and of its clone)."""
    key = mlir.op_key(target)
    for x, y in zip(ops_a, ops_b):
        if mlir.op_key(x) == key:
            return y
    raise ValueError("op not in the walk")


def _restrict(loop: ir.Operation, extent: int, base: ir.Value | int) -> None:
    """`loop` (constant bounds) runs `0 to extent` with its old counter as `new + base` (base a
    value or a constant)."""
    with loop.location:
        loop.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get(0, 0, [ir.AffineExpr.get_constant(0)]))
        loop.attributes["upperBoundMap"] = ir.AffineMapAttr.get(
            ir.AffineMap.get(0, 0, [ir.AffineExpr.get_constant(extent)]))
        iv = body_block(loop).arguments[0]
        uses = [(mlir.operation(u.owner), u.operand_number) for u in iv.uses]
        if isinstance(base, int):
            amap, args = ir.AffineMap.get(1, 0, [ir.AffineExpr.get_dim(0) + base]), [iv]
        else:
            amap, args = ir.AffineMap.get(2, 0, [ir.AffineExpr.get_dim(0) + ir.AffineExpr.get_dim(1)]), [iv, base]
        shifted = affine_d.AffineApplyOp(amap, args,
                                         ip=ir.InsertionPoint(mlir.operation(body_block(loop).operations[0]))).result
        for owner, k in uses:
            owner.operands[k] = shifted


def tile_split(step: int, extent: int, inner: tuple[int, int, int] | None) -> int | None:
    """The step a clone's loop of `step` takes to run `0 to extent` when `step` does not divide
    `extent` (block-transposes' 16-wide tiles in a block of 24 columns): g = gcd(step, extent),
    provided the loop's point loop `inner` = (lower, upper, step) runs `0 to step` in steps
    dividing g, so that it can run `0 to g` instead. None when `step` divides `extent` (nothing
    to split) or the tile cannot be split so."""
    if extent % step == 0 or inner is None:
        return None
    g = math.gcd(step, extent)
    lo, hi, s = inner
    return g if (lo, hi) == (0, step) and g % s == 0 and g > 1 else None


def _point_loop(loop: ir.Operation, step: int, store: ir.Operation, dim: int) -> ir.Operation | None:
    """The loop inside `loop` that runs `0 to step` and moves dimension `dim` of `store` (the
    tile's point loop along that dimension), or None."""
    scope = Scope()
    a = access_pattern(store, scope)
    for lp in enclosing_loops(store):
        if any(mlir.op_key(o) == mlir.op_key(loop) for o in enclosing_loops(lp)) and constant_bounds(lp) == (0, step) \
                and a.uses_iv(loop_dims(lp, scope)[0].name, dim=dim):
            return lp
    return None


def _split_tile(loop: ir.Operation, extent: int, store: ir.Operation, dim: int) -> None:
    """When `loop`'s step does not divide `extent` (`tile_split`), its step and the upper bound of
    its point loop along `store`'s dimension `dim` become g: the tile is cut into tiles of g that
    cover `0 to extent`. The isl checks on the clone (`check_clone`) decide whether the result
    moves exactly what the copy moved."""
    step = mlir.int_attr(loop, "step")
    inner = _point_loop(loop, step, store, dim)
    bounds = (*constant_bounds(inner), mlir.int_attr(inner, "step")) if inner is not None else None
    g = tile_split(step, extent, bounds)
    if g is None:
        return
    with loop.location:
        loop.attributes["step"] = ir.IntegerAttr.get(ir.IndexType.get(), g)
        inner.attributes["upperBoundMap"] = ir.AffineMapAttr.get(
            ir.AffineMap.get(0, 0, [ir.AffineExpr.get_constant(g)]))


def build_clone(plan: BlockPacking):
    """The copy cloned at the head of the block loop, its column loop running `0 to NB` with the
    old counter `new + jb` (and its row loop `0 to KC` as `new + kb` with a reduction block):
    (clone, its store, its column loop, its row loop or None, jb, kb or None)."""
    body = body_block(plan.block)
    jb = body.arguments[0]
    kb = body_block(plan.row_block).arguments[0] if plan.row_block is not None else None
    clone = mlir.operation(plan.copy.clone(ip=ir.InsertionPoint(mlir.operation(body.operations[0]))))
    walk0, walk1 = [plan.copy, *mlir.walk(plan.copy)], [clone, *mlir.walk(clone)]
    store, col = _at(walk0, plan.store, walk1), _at(walk0, plan.col_loop, walk1)
    row = _at(walk0, plan.row_loop, walk1) if plan.row_loop is not None else None
    _restrict(col, plan.width, jb)
    _split_tile(col, plan.width, store, 1)
    if row is not None:
        _restrict(row, plan.height, kb)
        _split_tile(row, plan.height, store, 0)
    return clone, store, col, row, jb, kb


def build_tail_clone(plan: BlockPacking, tail) -> tuple[ir.Operation, ir.Operation]:
    """The copy cloned just before the nest of the columns left over, its column loop running
    `0 to width` with the old counter `new + start`: (clone, its store)."""
    clone = mlir.operation(plan.copy.clone(ip=ir.InsertionPoint(tail.nest)))
    walk0, walk1 = [plan.copy, *mlir.walk(plan.copy)], [clone, *mlir.walk(clone)]
    store, col = _at(walk0, plan.store, walk1), _at(walk0, plan.col_loop, walk1)
    _restrict(col, tail.width, tail.start)
    _split_tile(col, tail.width, store, 1)
    return clone, store


def apply_packing(plan: BlockPacking, store: ir.Operation, jb: ir.Value, kb: ir.Value | None) -> ir.Operation:
    """Give the pair its own buffer of rows x NB, read and written at `[r, e - jb]`, freed before
    each of the old buffer's deallocs (the caller erases the copy once every product that reads
    it is packed). Returns the new alloc."""
    alloc = plan.alloc
    mt = mlir.memref_type(alloc.results[0])
    with alloc.context, alloc.location:
        ntype = ir.MemRefType.get([plan.height, plan.width], mt.element_type, memory_space=mt.memory_space)
        attrs = {n: a for n, a in alloc.attributes.items() if n != "operandSegmentSizes"}
        align = mlir.int_attr(alloc, "alignment") if "alignment" in attrs else 0
        attrs["alignment"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), max(64, align or 0))
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([0, 0])
        new = ir.Operation.create("memref.alloc", results=[ntype], operands=[], attributes=attrs,
                                  ip=ir.InsertionPoint(alloc))
    buf = new.results[0]
    for op in (store, *plan.reads):
        shift_access(op, buf, jb, kb)
    for d in plan.deallocs:
        with d.location:
            ir.Operation.create("memref.dealloc", operands=[buf], ip=ir.InsertionPoint(d))
    return new


def drop_if_unused(alloc: ir.Operation) -> None:
    """Erase `alloc` and its deallocs when nothing else uses it any more."""
    users = [mlir.operation(u.owner) for u in alloc.results[0].uses]
    if all(u.name == "memref.dealloc" for u in users):
        for u in users:
            u.erase()
        alloc.erase()


def _unpacked_reader(alloc: ir.Operation, plans: list) -> ir.Operation | None:
    """A use of the buffer that reads it and is not among the reads of a pair `plans` packs (an
    unpacked product), or None. Such a load may read what any copy of the buffer wrote (a buffer
    bufferization shares between transposes, read past what its own copy wrote), so no copy may
    go: the pairs are packed only when there is none, and a copy is erased only when none is left."""
    packed = {mlir.op_key(r) for p in plans if p.refusal is None for r in (*p.reads, *(x for t in p.tails
                                                                                      for x in t.reads))}
    for u in alloc.results[0].uses:
        op = mlir.operation(u.owner)
        if op.name in ("memref.dealloc", "affine.store", "memref.store", "affine.vector_store", "vector.store"):
            continue
        if mlir.op_key(op) not in packed:
            return op
    return None


def _tails_text(plan: BlockPacking, filename: str) -> str:
    """The remark's words for the nests of the columns left over, packed into the same buffer."""
    return "".join(f"; the {t.width} columns left over ({t.start} .. {t.start + t.width - 1}) are copied into it "
                   f"before their nest at {mlir.location_of(t.nest, filename)}" for t in plan.tails)


def mt_of(alloc: ir.Operation) -> ir.MemRefType:
    return mlir.memref_type(alloc.results[0])


def candidates(fn: ir.Operation) -> list[ir.Operation]:
    """The local buffers of `fn` a register tile reads as B, once each, in program order."""
    return [alloc for alloc, _, _ in tile_b_buffers(fn)]


def pack_column_blocks_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Pack every transposed B of `fn` per column block of its register tile; returns how many."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    with fn.context:
        for alloc in candidates(fn):
            where = mlir.location_of(alloc, filename)
            done = 0
            packed: dict = {}  # copy -> (the copy, how many of its products are packed, how many it has)
            plans = list(plan_block_packing(alloc, Scope()))
            unpacked = _unpacked_reader(alloc, plans)
            if unpacked is not None:
                for plan in plans:
                    if plan.refusal is None:
                        plan.refusal = Refusal(PackCode.UNPACKED_READER, f"{unpacked.name} at "
                                               f"{mlir.location_of(unpacked, filename)}", (alloc, unpacked))
            for plan in plans:
                if plan.refusal is None:
                    clone, store, col, row, jb, kb = build_clone(plan)
                    refusal = check_clone(plan, store, col, row, Scope())
                    tails = []
                    for tail in plan.tails if refusal is None else ():
                        tails.append((tail, *build_tail_clone(plan, tail)))
                        refusal = check_tail(plan, tail, tails[-1][2], Scope())
                        if refusal is not None:
                            break
                    if refusal is not None:
                        for c in [clone, *(t[1] for t in tails)]:
                            mlir.erase_innermost_first(c)
                        plan.refusal = refusal
                if plan.refusal is not None:
                    log.refused(PASS, plan.refusal, function=fname, location=where)
                    continue
                size = plan.height * plan.width * mlir.element_size_bytes(mt_of(alloc).element_type)
                new = apply_packing(plan, store, jb, kb)
                for tail, _, tail_store in tails:
                    for op in (tail_store, *tail.reads):
                        shift_access(op, new.results[0], tail.start, None)
                c = packed.setdefault(mlir.op_key(plan.copy), [plan.copy, 0, plan.products])
                c[1] += 1
                per = "column block" if plan.row_block is None else "reduction and column block"
                per_rows = " per row block" if plan.repeats else ""
                if plan.repeats:
                    per = f"row block of {mlir.int_attr(plan.repeats[0], 'step')} and {per}"
                log.add(PASS, PASSED, f"[PACK B] the {plan.rows} x {plan.cols} transposed copy is made per {per} "
                        f"of {plan.width} at {mlir.location_of(plan.block, filename)} into one {plan.height} x "
                        f"{plan.width} buffer ({size // 1024} KiB): the source is read once{per_rows}, in the product's order, "
                        f"and the whole copy is gone{_tails_text(plan, filename)}", function=fname, location=where,
                        args={"rows": plan.rows, "columns": plan.cols, "block": plan.width, "height": plan.height,
                              "bytes": size, "tail": sum(t.width for t in plan.tails)})
                done += 1
            unpacked = _unpacked_reader(alloc, [])  # a clone refused: its product reads the whole buffer
            for copy, n, of in packed.values():
                if n == of and unpacked is None:
                    mlir.erase_innermost_first(copy)
            if done:
                drop_if_unused(alloc)
            count += done
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `pack-column-blocks` (loopopt/pipeline.py)."""
    return pack_column_blocks_function(fn, ctx.options, ctx.log, ctx.filename)
