"""B packed per column block (cpu): the transposing copy of a product's B runs at the head of each
column block of the register tile, into one reused buffer of the block's columns.

Applies codegen/cpu/plan/column_block_packing.py's BlockPacking (the rule and its exactness are
there): the copy nest C is cloned at the head of the block loop L (step NB), the clone's column
loop runs `0 to NB` with its old counter as `affine.apply(new + jb)`, a new `memref.alloc` of
rows x NB (64-byte aligned) replaces the rows x N buffer, every access `[r, e]` of it becomes
`[r, e - jb]` (jb appended to the access's map operands), its deallocs free the new buffer and C
is erased. The isl checks run on the built clone; a refused clone is erased and nothing else
changes. The step runs after register tiling (whose column blocks it uses) and before
`transpose-tiles`, which then moves the clone's tiles in vector registers.

Remarks (pass `pack-column-blocks`, by default): `[PACK B] ...` (Passed) per buffer;
`[STOP PACK B] ...` (Missed) when a transposed B that a register tile reads stays whole.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...analysis.loops import body_block
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .plan.column_block_packing import BlockPacking, check_clone, plan_block_packing
from .plan.panel_layout import tile_panel

PASS = "pack-column-blocks"

MAP_OPERAND = {"affine.load": 1, "affine.vector_load": 1, "affine.store": 2}


def _shift_columns(op: ir.Operation, buf: ir.Value, jb: ir.Value) -> None:
    """Rebuild the access `op` on `buf` at `[r, e - jb]` for its `[r, e]`; `op` is erased."""
    first = MAP_OPERAND[op.name]
    amap = mlir.affine_map_attr(op, "map")
    operands = list(op.operands)
    operands[first - 1] = buf
    nd = amap.n_dims
    dims, syms = operands[first:first + nd], operands[first + nd:]
    r, e = amap.results
    new_map = ir.AffineMap.get(nd + 1, amap.n_symbols, [r, e - ir.AffineExpr.get_dim(nd)])
    attrs = {name: attr for name, attr in op.attributes.items()}
    attrs["map"] = ir.AffineMapAttr.get(new_map)
    with op.location:
        new = ir.Operation.create(op.name, results=[t.type for t in op.results],
                                  operands=operands[:first] + dims + [jb] + syms, attributes=attrs,
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


def build_clone(plan: BlockPacking) -> tuple[ir.Operation, ir.Operation, ir.Operation, ir.Value]:
    """The copy cloned at the head of the block loop, its column loop running `0 to NB` with the
    old counter `new + jb`: (clone, its store, its column loop, jb)."""
    body = body_block(plan.block)
    jb = body.arguments[0]
    clone = mlir.operation(plan.copy.clone(ip=ir.InsertionPoint(mlir.operation(body.operations[0]))))
    walk0, walk1 = [plan.copy, *mlir.walk(plan.copy)], [clone, *mlir.walk(clone)]
    store, col = _at(walk0, plan.store, walk1), _at(walk0, plan.col_loop, walk1)
    with col.location:
        col.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get(0, 0, [ir.AffineExpr.get_constant(0)]))
        col.attributes["upperBoundMap"] = ir.AffineMapAttr.get(
            ir.AffineMap.get(0, 0, [ir.AffineExpr.get_constant(plan.width)]))
        iv = body_block(col).arguments[0]
        uses = [(mlir.operation(u.owner), u.operand_number) for u in iv.uses]
        amap = ir.AffineMap.get(2, 0, [ir.AffineExpr.get_dim(0) + ir.AffineExpr.get_dim(1)])
        shifted = affine_d.AffineApplyOp(amap, [iv, jb],
                                         ip=ir.InsertionPoint(mlir.operation(body_block(col).operations[0]))).result
        for owner, k in uses:
            owner.operands[k] = shifted
    return clone, store, col, jb


def apply_packing(plan: BlockPacking, clone: ir.Operation, store: ir.Operation, jb: ir.Value) -> ir.Operation:
    """Replace the buffer by one of rows x NB read and written at `[r, e - jb]`; erase the copy."""
    alloc = plan.alloc
    mt = mlir.memref_type(alloc.results[0])
    with alloc.context, alloc.location:
        ntype = ir.MemRefType.get([plan.rows, plan.width], mt.element_type, memory_space=mt.memory_space)
        attrs = {n: a for n, a in alloc.attributes.items() if n != "operandSegmentSizes"}
        align = mlir.int_attr(alloc, "alignment") if "alignment" in attrs else 0
        attrs["alignment"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), max(64, align or 0))
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([0, 0])
        new = ir.Operation.create("memref.alloc", results=[ntype], operands=[], attributes=attrs,
                                  ip=ir.InsertionPoint(alloc))
    buf = new.results[0]
    for op in (store, *plan.reads):
        _shift_columns(op, buf, jb)
    for d in plan.deallocs:
        d.operands[0] = buf
    mlir.erase_innermost_first(plan.copy)
    alloc.erase()
    return new


def candidates(fn: ir.Operation) -> list[ir.Operation]:
    """The local buffers of `fn` a register tile reads as B, once each, in program order."""
    seen, out = set(), []
    for op in mlir.walk(fn):
        found = tile_panel(op) if op.name == "affine.vector_load" else None
        if found is not None and mlir.op_key(found[0]) not in seen:
            seen.add(mlir.op_key(found[0]))
            out.append(found[0])
    return out


def pack_column_blocks_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Pack every transposed B of `fn` per column block of its register tile; returns how many."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    with fn.context:
        for alloc in candidates(fn):
            where = mlir.location_of(alloc, filename)
            plan = plan_block_packing(alloc, Scope())
            if plan is None:
                continue
            if plan.refusal is None:
                clone, store, col, jb = build_clone(plan)
                refusal = check_clone(plan, store, col, Scope())
                if refusal is not None:
                    mlir.erase_innermost_first(clone)
                    plan.refusal = refusal
            if plan.refusal is not None:
                log.refused(PASS, plan.refusal, function=fname, location=where)
                continue
            size = plan.rows * plan.width * mlir.element_size_bytes(mlir.memref_type(alloc.results[0]).element_type)
            apply_packing(plan, clone, store, jb)
            log.add(PASS, PASSED, f"[PACK B] the {plan.rows} x {plan.cols} transposed copy is made per column block "
                    f"of {plan.width} at {mlir.location_of(plan.block, filename)} into one {plan.rows} x {plan.width} "
                    f"buffer ({size // 1024} KiB): the source is read once, in the product's order, and the whole "
                    f"copy is gone", function=fname, location=where,
                    args={"rows": plan.rows, "columns": plan.cols, "block": plan.width, "bytes": size})
            count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `pack-column-blocks` (loopopt/pipeline.py)."""
    return pack_column_blocks_function(fn, ctx.options, ctx.log, ctx.filename)
